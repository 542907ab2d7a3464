#!/usr/bin/env python3
"""`sextant export --dataset` read back as one dataset by pyarrow and DuckDB,
and `sextant sql --format parquet` read by pyarrow.

A folder of traces (perf CTF, ftrace text, a copy) is exported table by
table as Hive-partitioned Parquet (TABLE/host=.../trace=.../); pyarrow's
dataset API and DuckDB's read_parquet(hive_partitioning) each read a table
whole, and its rows per trace are checked against `sextant dump --format
jsonl` (events) and `sextant analyze --format json` (executions) on each
trace alone.

    python3 tests/python/test_dataset.py path/to/sextant

Packages as test_exports.py installs them (a virtual environment under
target/). The last line is `test result: ok. N passed; M failed`.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_exports import ROOT, ensure_packages, run_checks  # noqa: E402

MODEL = os.path.join(ROOT, "schemas", "examples", "periodic-rt_high.json")
FIXTURES = os.path.join(ROOT, "fixtures")
# The fleet: trace name (its path below the folder) and its source.
FLEET = {
    "perf/scenario-a": os.path.join(FIXTURES, "scenario-a", "ctf"),
    "perf/taskset": os.path.join(FIXTURES, "taskset", "ctf"),
    "ftrace/scenario-a.txt": os.path.join(FIXTURES, "scenario-a", "trace.txt"),
    "copies/scenario-a.txt": os.path.join(FIXTURES, "scenario-a", "trace.txt"),
}


def run(binary, *args):
    out = subprocess.run([binary, *args], check=True, stdout=subprocess.PIPE, cwd=ROOT)
    return out.stdout


def make_fleet(tmp):
    fleet = os.path.join(tmp, "fleet")
    for name, src in FLEET.items():
        dst = os.path.join(fleet, name)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copy(src, dst)
    return fleet


def events_of(binary, trace):
    return len(run(binary, "dump", trace, "--format", "jsonl").splitlines())


def executions_of(binary, trace):
    doc = json.loads(run(binary, "analyze", trace, "--model", MODEL, "--format", "json", "--no-store"))
    return sorted((e["index"], e["start"], e["end"], e["tid"]) for e in doc["executions"])


def check_events(binary, tmp, fleet, data):
    import duckdb
    import pyarrow.dataset as ds

    run(binary, "export", "--dataset", data, "--events", fleet)
    table = ds.dataset(os.path.join(data, "events"), format="parquet", partitioning="hive").to_table()
    by_arrow = {}
    for row in table.group_by("trace").aggregate([("ts", "count")]).to_pylist():
        by_arrow[row["trace"]] = row["ts_count"]
    by_duck = dict(duckdb.connect().execute(
        f"""SELECT trace, count(*) FROM read_parquet('{data}/events/*/*/*.parquet', hive_partitioning = true)
            GROUP BY trace"""
    ).fetchall())
    want = {name: events_of(binary, os.path.join(fleet, name)) for name in FLEET}
    assert by_arrow == want, (by_arrow, want)
    assert by_duck == want, (by_duck, want)
    # Each trace's host, as the metadata names it (a CTF trace) or its file.
    hosts = dict(duckdb.connect().execute(
        f"""SELECT DISTINCT trace, host FROM read_parquet('{data}/events/*/*/*.parquet', hive_partitioning = true)"""
    ).fetchall())
    assert hosts["ftrace/scenario-a.txt"] == "scenario-a.txt", hosts


def check_executions(binary, tmp, fleet, data):
    import duckdb
    import pyarrow.dataset as ds

    run(binary, "export", "--dataset", data, "--model", MODEL, fleet)
    path = os.path.join(data, "executions")
    table = ds.dataset(path, format="parquet", partitioning="hive").to_table()
    rows = table.to_pylist()
    duck = duckdb.connect().execute(
        f"""SELECT trace, index, start, "end", tid FROM read_parquet('{path}/*/*/*.parquet', hive_partitioning = true)"""
    ).fetchall()
    total = 0
    for name in FLEET:
        want = executions_of(binary, os.path.join(fleet, name))
        got = sorted((r["index"], r["start"], r["end"], r["tid"]) for r in rows if r["trace"] == name)
        assert got == want, (name, len(got), len(want))
        got = sorted(tuple(r[1:]) for r in duck if r[0] == name)
        assert got == want, (name, "duckdb", len(got), len(want))
        total += len(want)
    assert total > 100, total


def check_sql_parquet(binary, tmp, fleet, data):
    """A query's Parquet answer equals its JSON answer and the dataset's."""
    import duckdb
    import pyarrow.parquet as pq

    query = "SELECT trace, state, count(*) AS n, sum(\"end\" - start) AS total FROM thread_states GROUP BY trace, state ORDER BY trace, state"
    out = os.path.join(tmp, "answer.parquet")
    run(binary, "sql", query, fleet, "--format", "parquet", "--out", out)
    parquet = pq.read_table(out).to_pylist()
    as_json = json.loads(run(binary, "sql", query, fleet, "--format", "json"))
    assert parquet == as_json, (parquet[:3], as_json[:3])
    run(binary, "export", "--dataset", data, "--states", fleet)
    duck = duckdb.connect().execute(
        f"""SELECT trace, state, count(*), sum("end" - start)
            FROM read_parquet('{data}/thread_states/*/*/*.parquet', hive_partitioning = true)
            GROUP BY trace, state ORDER BY trace, state"""
    ).fetchall()
    assert [tuple(r.values()) for r in as_json] == duck, (as_json[:3], duck[:3])
    assert len(duck) >= 2 * len(FLEET), duck


def main():
    ensure_packages()
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "sextant"))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        fleet = make_fleet(tmp)
        data = os.path.join(tmp, "dataset")
        run_checks([check_events, check_executions, check_sql_parquet], (binary, tmp, fleet, data), "test_dataset.py")


if __name__ == "__main__":
    main()
