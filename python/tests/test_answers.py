"""explain and tasks against the CLI's JSON for the same trace."""

import json
import os

import pyarrow
import pytest

import sextant
from conftest import MODEL, ROOT

SCENARIO = os.path.join(ROOT, "fixtures", "scenario-a", "ctf")
TASKSET = [os.path.join(ROOT, "fixtures", "taskset", "trace.txt"), os.path.join(ROOT, "fixtures", "taskset", "ctf")]


@pytest.mark.parametrize("which", [["--longest"], ["--execution", "3"], ["--execution", "76", "--replay-ms", "20"]])
def test_explain_is_the_cli_json(cli, which):
    got = sextant.open(SCENARIO).explain(
        MODEL,
        longest=which[0] == "--longest",
        execution=int(which[1]) if which[0] == "--execution" else None,
        replay_ms=float(which[3]) if len(which) > 2 else 100.0,
    )
    want = cli("explain", SCENARIO, "--model", MODEL, *which, "--format", "json", "--no-store")
    assert got == want
    assert got["critical_path"] and got["diagnosis"]


def test_explain_cpus_and_preset(cli):
    got = sextant.open(SCENARIO).explain("preset:running", tids=[4611], longest=True, cpus=[0])
    want = cli(
        "explain", SCENARIO, "--preset", "running", "--tid", "4611", "--longest", "--cpus", "0",
        "--format", "json", "--no-store",
    )
    assert got == want


def test_explain_refuses_a_cpu_the_trace_lacks(cli):
    s = sextant.open(SCENARIO)
    with pytest.raises(ValueError, match=r"cpus 7: no such CPU in .*; it has CPUs 0,1"):
        s.explain("preset:running", tids=[4611], longest=True, cpus=[7])


def test_explain_asks_for_one_execution():
    s = sextant.open(SCENARIO)
    with pytest.raises(ValueError):
        s.explain(MODEL)
    with pytest.raises(ValueError):
        s.explain(MODEL, execution=1, longest=True)
    with pytest.raises(IndexError, match="no execution 100000"):
        s.explain(MODEL, execution=100000)


@pytest.mark.parametrize("trace", TASKSET)
def test_tasks_are_the_cli_json(cli, trace):
    table = sextant.open(trace).tasks()
    assert table.schema.metadata[b"sextant.table"] == b"tasks"
    want = cli("tasks", trace, "--format", "json")["tasks"]
    got = table.to_pylist()
    assert len(got) == len(want) >= 6
    for g, w in zip(got, want):
        assert set(g) == set(w)
        assert json.loads(g.pop("model")) == w["model"]
        assert g == {k: w[k] for k in g}, (g, w)


def test_tasks_deadline_and_readers(cli):
    trace = TASKSET[0]
    table = sextant.open(trace).tasks(min_jobs=20, deadline=0.5)
    want = cli("tasks", trace, "--format", "json", "--min-jobs", "20", "--deadline", "0.5")["tasks"]
    assert [(r["tid"], r["misses"], r["deadline"]) for r in table.to_pylist()] == [
        (w["tid"], w["misses"], w["deadline"]) for w in want
    ]
    df = table.to_pandas()
    assert list(df.columns) == table.column_names
    both = sextant.open(TASKSET).tasks()
    assert both.column_names[-1] == "trace" and isinstance(both, pyarrow.Table)
