#!/usr/bin/env python3
"""`sextant export` read back by pyarrow, pandas and DuckDB.

Each exported table (executions, thread states, events) is read in each
format (Arrow IPC file, Parquet, CSV) and checked against what
`sextant analyze --format json` and `sextant dump --format jsonl` print for
the same trace; one DuckDB query joins the executions of two traces (the
perf and the ftrace recordings of fixtures/scenario-a, period by period).

    python3 tests/python/test_exports.py path/to/sextant

pyarrow, pandas and duckdb come from PyPI into a virtual environment under
target/ when the running Python lacks them. The last line is
`test result: ok. N passed; M failed`, as cargo test writes it.
"""

import json
import os
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, "target", "python-exports")
MODEL = os.path.join(ROOT, "schemas", "examples", "periodic-rt_high.json")
PERF = os.path.join(ROOT, "fixtures", "scenario-a", "ctf")
FTRACE = os.path.join(ROOT, "fixtures", "scenario-a", "trace.txt")
PACKAGES = ["pyarrow", "pandas", "duckdb"]


def ensure_packages():
    """Re-runs this script in a virtual environment that has the packages."""
    try:
        import duckdb  # noqa: F401
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
        return
    except ImportError:
        if os.environ.get("SEXTANT_EXPORTS_VENV"):
            raise
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        if subprocess.run([sys.executable, "-m", "venv", VENV]).returncode != 0:
            # Debian's Python has venv in a package of its own.
            subprocess.run(["apt-get", "install", "-y", "-qq", "python3-venv"], check=True)
            subprocess.run([sys.executable, "-m", "venv", "--clear", VENV], check=True)
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *PACKAGES],
        check=True,
    )
    env = dict(os.environ, SEXTANT_EXPORTS_VENV="1")
    os.execve(python, [python, *sys.argv], env)


def run(binary, *args):
    out = subprocess.run([binary, *args], check=True, stdout=subprocess.PIPE, cwd=ROOT)
    return out.stdout


def analyze(binary, trace):
    doc = json.loads(run(binary, "analyze", trace, "--model", MODEL, "--format", "json", "--sort", "start"))
    return sorted(doc["executions"], key=lambda e: e["index"])


def export(binary, out, *what):
    run(binary, "export", *what, "--out", out)


def read_table(path, fmt):
    """The file as a list of row dicts, read the way a user would."""
    import pandas
    import pyarrow.ipc
    import pyarrow.parquet

    if fmt == "arrow":
        with pyarrow.ipc.open_file(path) as f:
            return f.read_all()
    if fmt == "parquet":
        return pyarrow.parquet.read_table(path)
    return pandas.read_csv(path, keep_default_na=False, na_values=[""])


def rows_of(table):
    if hasattr(table, "to_pylist"):
        return table.to_pylist()
    return table.to_dict("records")


COLUMNS = [
    "index", "start", "end", "duration", "running", "preempted", "blocked", "waiting",
    "tid", "start_tid", "end_tid", "start_comm", "end_comm",
]


def check_executions(binary, tmp):
    expected = analyze(binary, PERF)
    assert len(expected) > 50, f"only {len(expected)} executions of rt_high"
    for fmt in ["arrow", "parquet", "csv"]:
        out = os.path.join(tmp, f"executions.{fmt}")
        export(binary, out, PERF, "--model", MODEL, "--format", fmt)
        table = read_table(out, fmt)
        rows = rows_of(table)
        assert len(rows) == len(expected), (fmt, len(rows), len(expected))
        for got, want in zip(rows, expected):
            for c in COLUMNS:
                assert got[c] == want[c], (fmt, want["index"], c, got[c], want[c])
            cpus = got["cpus"] if fmt != "csv" else json.loads(got["cpus"])
            assert cpus == want["cpus"], (fmt, want["index"], cpus, want["cpus"])
            prio = got["prio"]
            prio = None if prio is None or prio != prio else int(prio)
            assert prio == want["prio"], (fmt, want["index"], prio, want["prio"])
        if fmt != "csv":
            meta = table.schema.metadata
            assert meta[b"sextant.table"] == b"executions", meta
            assert meta[b"sextant.version"] == b"1", meta
            assert str(table.schema.field("cpus").type) == "list<item: uint32 not null>", table.schema


def check_states(binary, tmp):
    """Per thread, the state intervals add up to the whole-thread preset's times."""
    import duckdb

    doc = json.loads(run(binary, "analyze", PERF, "--preset", "whole-thread", "--format", "json"))
    lives = {(e["tid"], e["start"]): e for e in doc["executions"]}
    for fmt in ["arrow", "parquet", "csv"]:
        out = os.path.join(tmp, f"states.{fmt}")
        export(binary, out, PERF, "--states", "--format", fmt)
        table = read_table(out, fmt)
        con = duckdb.connect()
        con.register("states", table)
        sums = con.execute(
            """SELECT tid, thread_start, state, sum("end" - start), min(start), max("end")
               FROM states GROUP BY ALL"""
        ).fetchall()
        assert len(sums) > 20, (fmt, len(sums))
        by_life = {}
        for tid, life, state, total, first, last in sums:
            by_life.setdefault((tid, life), {})[state] = total
        matched = 0
        for key, totals in by_life.items():
            want = lives.get(key)
            if want is None:
                continue
            matched += 1
            for state, column in [("running", "running"), ("preempted", "preempted"),
                                  ("blocked", "blocked"), ("waiting_cpu", "waiting")]:
                assert totals.get(state, 0) == want[column], (fmt, key, state, totals, want)
        assert matched >= len(lives) // 2, (fmt, matched, len(lives))
        # Intervals of one thread life never overlap.
        overlaps = con.execute(
            """SELECT count(*) FROM (
                 SELECT start, lag("end") OVER (PARTITION BY tid, thread_start ORDER BY start) AS prev
                 FROM states) WHERE start < prev"""
        ).fetchone()[0]
        assert overlaps == 0, (fmt, overlaps)


def check_events(binary, tmp):
    """Every event of `dump --format jsonl`, same time, name, CPU and payload."""
    import duckdb

    dumped = [json.loads(line) for line in run(binary, "dump", PERF, "--format", "jsonl").splitlines()]
    for fmt in ["arrow", "parquet", "csv"]:
        out = os.path.join(tmp, f"events.{fmt}")
        export(binary, out, PERF, "--events", "--format", fmt)
        rows = rows_of(read_table(out, fmt))
        assert len(rows) == len(dumped), (fmt, len(rows), len(dumped))
        for i, (got, want) in enumerate(zip(rows, dumped)):
            cpu = got["cpu"]
            cpu = None if cpu is None or cpu != cpu else int(cpu)
            assert (got["ts"], got["name"], cpu) == (want["ts"], want["name"], want["cpu"]), (fmt, i, got, want)
            assert json.loads(got["payload"]) == want["fields"], (fmt, i, got, want)
    # A switch belongs to the thread switched out: its tid is its prev_pid.
    bad = duckdb.connect().execute(
        f"""SELECT count(*), count(*) FILTER (WHERE tid IS DISTINCT FROM
                   CAST(json_extract(payload, '$.prev_pid') AS BIGINT))
            FROM read_parquet('{os.path.join(tmp, "events.parquet")}')
            WHERE name = 'sched:sched_switch'"""
    ).fetchone()
    assert bad[0] > 100 and bad[1] == 0, bad


def check_join(binary, tmp):
    """The executions of two recordings of one scenario, joined by period."""
    import duckdb

    perf, ftrace = os.path.join(tmp, "perf.parquet"), os.path.join(tmp, "ftrace.parquet")
    export(binary, perf, PERF, "--model", MODEL, "--format", "parquet")
    export(binary, ftrace, FTRACE, "--model", MODEL, "--format", "parquet")
    got = duckdb.connect().execute(
        f"""SELECT p.index, p.duration, f.duration
            FROM read_parquet('{perf}') p JOIN read_parquet('{ftrace}') f USING (index)
            WHERE p.duration > 1000000 OR f.duration > 1000000
            ORDER BY p.index"""
    ).fetchall()
    a = {e["index"]: e["duration"] for e in analyze(binary, PERF)}
    b = {e["index"]: e["duration"] for e in analyze(binary, FTRACE)}
    want = [(i, a[i], b[i]) for i in sorted(a.keys() & b.keys()) if a[i] > 1_000_000 or b[i] > 1_000_000]
    assert want, "no late period in either recording"
    assert got == want, (got, want)


def main():
    ensure_packages()
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "sextant"))
    with tempfile.TemporaryDirectory() as tmp:
        # sextant stores in a cache of this run's own, neither the user's
        # nor beside the repository's fixtures.
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        run_checks([check_executions, check_states, check_events, check_join], (binary, tmp), "test_exports.py")


def run_checks(tests, args, script):
    """Runs each check with `args`, says ok or FAILED with the traceback,
    then the closing `test result:` line tests/run-all.sh counts, and exits
    1 when one failed."""
    passed = failed = 0
    for test in tests:
        try:
            test(*args)
            print(f"ok: {test.__name__}")
            passed += 1
        except Exception:
            traceback.print_exc()
            print(f"FAILED: {test.__name__}")
            failed += 1
    status = "ok" if failed == 0 else "FAILED"
    print(f"test result: {status}. {passed} passed; {failed} failed ({script})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
