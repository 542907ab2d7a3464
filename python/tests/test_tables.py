"""Each table against the CLI's JSON for the same trace, read by pandas,
polars and DuckDB."""

import json
import os

import pyarrow
import pytest

import sextant
from conftest import FIXTURES, MODEL, ROOT, shared_traces

PRESETS = ["running", "whole-thread"]


def cli_executions(cli, trace, *what):
    doc = cli("analyze", trace, *what, "--format", "json", "--sort", "start", "--no-store")
    return sorted(doc["executions"], key=lambda e: e["index"])


def assert_same_rows(table, want, trace):
    got = sorted(table.to_pylist(), key=lambda e: e["index"])
    assert len(got) == len(want), (trace, len(got), len(want))
    for g, w in zip(got, want):
        # analyze leaves out deadline_miss when the model has no deadline;
        # the table says null.
        assert set(w) <= set(g), (trace, set(w) - set(g))
        assert g == {k: w.get(k) for k in g}, (trace, g, w)


@pytest.mark.parametrize("trace", FIXTURES[:2])
def test_model_executions_match_analyze(cli, trace):
    table = sextant.open(trace).executions(MODEL)
    want = cli_executions(cli, trace, "--model", MODEL)
    assert len(want) > 50
    assert_same_rows(table, want, trace)
    meta = table.schema.metadata
    assert meta[b"sextant.table"] == b"executions"


def test_model_as_dict_is_the_file(cli):
    trace = FIXTURES[0]
    with open(MODEL) as f:
        model = json.load(f)
    assert sextant.open(trace).executions(model).equals(sextant.open(trace).executions(MODEL))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("trace", FIXTURES + shared_traces())
def test_preset_executions_match_analyze(cli, trace, preset):
    table = sextant.open(trace).executions(f"preset:{preset}")
    assert_same_rows(table, cli_executions(cli, trace, "--preset", preset), trace)


@pytest.mark.parametrize("trace", [FIXTURES[0], FIXTURES[1]] + shared_traces()[:1])
def test_events_match_dump(cli, trace):
    table = sextant.open(trace).events()
    dumped = [json.loads(line) for line in cli("dump", trace, "--format", "jsonl", raw=True).stdout.splitlines()]
    assert table.num_rows == len(dumped) > 1000
    for i, (got, want) in enumerate(zip(table.to_pylist(), dumped)):
        assert (got["ts"], got["name"], got["cpu"]) == (want["ts"], want["name"], want["cpu"]), (i, got, want)
        assert json.loads(got["payload"]) == want["fields"], (i, got, want)


@pytest.mark.parametrize("trace", FIXTURES[:3])
def test_thread_states_add_up_to_whole_threads(cli, trace):
    """Per thread life, DuckDB's sums of its state intervals are the
    whole-thread preset's running, preempted, blocked and waiting times."""
    import duckdb

    states = sextant.open(trace).thread_states()
    lives = {(e["tid"], e["start"]): e for e in cli_executions(cli, trace, "--preset", "whole-thread")}
    sums = duckdb.sql(
        'SELECT tid, thread_start, state, sum("end" - start) AS total FROM states GROUP BY ALL'
    ).fetchall()
    by_life = {}
    for tid, life, state, total in sums:
        by_life.setdefault((tid, life), {})[state] = total
    matched = 0
    for key, totals in by_life.items():
        want = lives.get(key)
        if want is None:
            continue
        matched += 1
        for state, column in [("running", "running"), ("preempted", "preempted"),
                              ("blocked", "blocked"), ("waiting_cpu", "waiting")]:
            assert totals.get(state, 0) == want[column], (key, state, totals, want)
    assert matched >= len(lives) // 2 > 5, (matched, len(lives))


def test_pandas_polars_duckdb_agree_with_analyze_stats(cli):
    """The late jobs counted, and the longest found, by three readers of
    the one table, against analyze's own statistics."""
    import duckdb
    import polars

    trace = FIXTURES[0]
    jobs = sextant.open(trace).executions(MODEL)
    doc = cli("analyze", trace, "--model", MODEL, "--format", "json", "--no-store")
    late = sum(1 for e in doc["executions"] if e["deadline_miss"])
    longest = max(e["duration"] for e in doc["executions"])
    assert late > 0

    frame = jobs.to_pandas()
    assert int(frame["deadline_miss"].sum()) == late
    assert int(frame["duration"].max()) == longest

    pl = polars.from_arrow(jobs)
    assert pl.filter(polars.col("deadline_miss")).height == late
    assert pl["duration"].max() == longest
    assert pl["cpus"].dtype == polars.List(polars.UInt32)

    got = duckdb.sql("SELECT count(*) FILTER (WHERE deadline_miss), max(duration) FROM jobs").fetchall()[0]
    assert got == (late, longest)


def test_tables_are_not_copied_into_pyarrow():
    """The columns arrive through the C stream interface: pyarrow's own
    allocator holds none of their bytes."""
    before = pyarrow.total_allocated_bytes()
    table = sextant.open(FIXTURES[0]).executions("preset:running")
    assert table.num_rows > 500
    assert pyarrow.total_allocated_bytes() - before < table.nbytes // 10


def test_several_traces_in_one_table(cli):
    a, b = FIXTURES[0], FIXTURES[1]
    both = sextant.open([a, b]).executions(MODEL)
    assert both.column_names[-1] == "trace"
    counts = both.group_by("trace").aggregate([("index", "count")]).to_pylist()
    want = {a: len(cli_executions(cli, a, "--model", MODEL)), b: len(cli_executions(cli, b, "--model", MODEL))}
    assert {c["trace"]: c["index_count"] for c in counts} == want


def test_presets_are_the_engines(cli):
    text = cli("--help", raw=True).stdout.decode()
    names = sextant.presets()
    assert "periodic" in names
    for name, what in names.items():
        assert what in text, name


def test_readme_example_draws_the_late_jobs(cli, tmp_path):
    """python/examples/late_jobs.py (the README's example) counts the late
    jobs as analyze does and writes a PNG."""
    import subprocess
    import sys

    png = tmp_path / "late.png"
    out = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples", "late_jobs.py"), str(png)],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    doc = cli("analyze", FIXTURES[0], "--model", MODEL, "--format", "json", "--no-store")
    late = sum(1 for e in doc["executions"] if e["deadline_miss"])
    assert out.splitlines()[0] == f"{len(doc['executions'])} jobs, {late} late"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
