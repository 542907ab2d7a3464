"""Session.sql against `sextant sql --format json` on the same traces, the
answer read by pandas and DuckDB, and its errors as the package's
exceptions."""

import json
import os
import re
import shutil

import pyarrow
import pytest

import sextant
from conftest import FIXTURES, MODEL, ROOT, shared_traces, truncated_ctf

TRACEDAT = os.path.join(ROOT, "fixtures", "tracedat-a", "trace-v7.dat")
#: CTF kernel, ftrace text, perf CTF (taskset) and trace.dat, side by side.
CORPUS = FIXTURES + [TRACEDAT]

QUERIES = [
    "SELECT trace, host, count(*) AS n, min(ts) AS first, max(ts) AS last FROM events GROUP BY trace, host ORDER BY trace",
    "SELECT trace, name, count(*) AS n FROM events WHERE name LIKE '%sched_switch' GROUP BY trace, name ORDER BY trace, name",
    "SELECT trace, tid, comm, state, count(*) AS n, sum(\"end\" - start) AS ns FROM thread_states "
    "GROUP BY trace, tid, comm, state ORDER BY trace, tid, comm, state",
    "SELECT trace, tid, start, \"end\" FROM threads ORDER BY trace, tid, start",
    "SELECT * FROM executions('preset:running') ORDER BY trace, \"index\"",
    f"SELECT trace, \"index\", start, duration, deadline_miss FROM executions('{MODEL}') ORDER BY trace, \"index\"",
    "SELECT trace, tid, comm, kind, period, jitter, jobs, misses FROM tasks() ORDER BY trace, kind <> 'periodic', tid",
]


def _rows(table: pyarrow.Table):
    """The table as the CLI's JSON rows: lists and times as JSON has them."""
    return json.loads(json.dumps(table.to_pylist()))


# rt_high's model warns for every trace but scenario-a's, as the CLI does.
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("query", QUERIES)
def test_sql_is_the_cli_json(cli, query):
    got = sextant.open(CORPUS).sql(query)
    want = cli("sql", query, *CORPUS, "--format", "json", "--no-store")
    assert _rows(got) == want
    assert got.num_rows > 0, query


def test_sql_over_shared_traces_is_the_cli_json(cli):
    traces = shared_traces()
    if not traces:
        pytest.skip("../shared traces absent")
    query = "SELECT trace, count(*) AS n, sum(duration) AS busy FROM executions('preset:running') GROUP BY trace ORDER BY trace"
    assert _rows(sextant.open(traces).sql(query)) == cli("sql", query, *traces, "--format", "json", "--no-store")


def test_sql_executions_are_the_sessions(cli):
    """A table function's rows are the method's, column for column."""
    s = sextant.open(FIXTURES[0])
    by_sql = s.sql(f"SELECT * FROM executions('{MODEL}') ORDER BY \"index\"")
    direct = s.executions(MODEL)
    assert by_sql.column_names[:2] == ["host", "trace"]
    assert by_sql.drop_columns(["host", "trace"]).to_pylist() == direct.to_pylist()
    analyzed = cli("analyze", FIXTURES[0], "--model", MODEL, "--format", "json", "--no-store")
    assert by_sql.num_rows == analyzed["stats"]["count"] > 0


def test_a_folder_is_every_trace_below_it(tmp_path):
    for name in ["run1", "run2"]:
        shutil.copytree(FIXTURES[0], tmp_path / name / "ctf")
    shutil.copy(FIXTURES[1], tmp_path / "run3.txt")
    got = sextant.open(str(tmp_path)).sql("SELECT trace, count(*) AS n FROM events GROUP BY trace ORDER BY trace")
    rows = got.to_pylist()
    assert [r["trace"] for r in rows] == ["run1/ctf", "run2/ctf", "run3.txt"]
    # Two copies of one recording: the same events.
    assert rows[0]["n"] == rows[1]["n"] > 0


def test_pandas_and_duckdb_read_the_answer(cli):
    duckdb = pytest.importorskip("duckdb")
    answer = sextant.open(CORPUS).sql("SELECT trace, tid, duration FROM executions('preset:running')")
    frame = answer.to_pandas()
    assert str(frame["duration"].dtype) == "int64"
    want = cli(
        "sql",
        "SELECT trace, max(duration) AS worst FROM executions('preset:running') GROUP BY trace ORDER BY trace",
        *CORPUS,
        "--format",
        "json",
        "--no-store",
    )
    by_pandas = frame.groupby("trace")["duration"].max()
    assert {r["trace"]: r["worst"] for r in want} == {k: int(v) for k, v in by_pandas.items()}
    worst = duckdb.sql("SELECT trace, max(duration) AS worst FROM answer GROUP BY trace ORDER BY trace").fetchall()
    assert [(r["trace"], r["worst"]) for r in want] == worst


def test_a_model_a_trace_lacks_warns_and_empties_that_trace():
    """rt_high's model on scenario-a, which has rt_high, and on a trace.dat,
    which has not: that trace has no rows and one warning, no error."""
    s = sextant.open([FIXTURES[0], TRACEDAT])
    with pytest.warns(UserWarning, match="rt_high"):
        got = s.sql(f"SELECT trace, count(*) AS n FROM executions('{MODEL}') GROUP BY trace")
    assert [r["trace"] for r in got.to_pylist()] == ["ctf"]
    assert len(s.warnings) == 1 and s.warnings[0].startswith(TRACEDAT), s.warnings


def test_query_errors_name_the_table_or_column():
    s = sextant.open(FIXTURES[0])
    with pytest.raises(sextant.QueryError, match="nosuchtable"):
        s.sql("SELECT * FROM nosuchtable")
    with pytest.raises(sextant.QueryError, match="nosuchcolumn"):
        s.sql("SELECT nosuchcolumn FROM events")
    with pytest.raises(ValueError, match="whole-thread"):
        s.sql("SELECT * FROM executions('preset:nope')")


def test_a_trace_that_cannot_be_read_is_a_trace_error(cli, tmp_path):
    trace, _ = truncated_ctf(tmp_path)
    with pytest.raises(sextant.TraceError) as caught:
        sextant.open([FIXTURES[1], str(trace)]).sql("SELECT count(*) FROM events")
    said = cli("sql", "SELECT count(*) FROM events", FIXTURES[1], str(trace), raw=True, check=False)
    assert said.returncode == 1
    where = re.search(r"(/\S*?): byte (\d+):", said.stderr.decode())
    assert caught.value.trace == str(trace)
    assert (caught.value.file, caught.value.offset) == (where.group(1), int(where.group(2)))
    assert "table events" in str(caught.value)


def test_store_keeps_executions_for_the_next_question(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    sextant.open(FIXTURES[0]).executions(MODEL)
    assert not cache.exists(), "store=False stores nothing"
    s = sextant.open(FIXTURES[0], store=True)
    first = s.executions(MODEL)
    units = list(cache.glob("sextant/*/model-*/executions.arrow"))
    assert len(units) == 1, units
    kept = units[0].stat().st_mtime_ns
    again = s.executions(MODEL)
    by_sql = s.sql(f"SELECT * FROM executions('{MODEL}') ORDER BY \"index\"")
    assert units[0].stat().st_mtime_ns == kept, "read from the store, not written again"
    assert again.to_pylist() == first.to_pylist() == by_sql.drop_columns(["host", "trace"]).to_pylist()
    # The stored arrays handed on keep the table's schema, metadata too.
    assert again.schema.equals(first.schema, check_metadata=True)
    assert first.num_rows > 0
