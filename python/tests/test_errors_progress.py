"""Errors as Python exceptions with the file and offset, the progress
callback, the GIL released during a pass, workers of Dask."""

import os
import re
import threading
import time

import pytest

import sextant
from conftest import FIXTURES, MODEL, shared_traces, truncated_ctf


def test_truncated_stream_names_file_and_offset(cli, tmp_path):
    trace, stream = truncated_ctf(tmp_path)
    with pytest.raises(sextant.TraceError) as caught:
        sextant.open(str(trace)).executions("preset:running")
    said = cli("analyze", str(trace), "--preset", "running", "--no-store", raw=True, check=False)
    assert said.returncode == 1
    # The CLI's message, "FILE: byte N: ...", is the exception's.
    cli_message = said.stderr.decode().removeprefix("sextant: error: ").strip()
    assert str(caught.value) == cli_message
    where = re.match(r"(.*?): byte (\d+):", cli_message)
    assert caught.value.file == where.group(1) == str(stream)
    assert caught.value.offset == int(where.group(2))
    assert caught.value.trace == str(trace)


def test_text_trace_error_names_the_line(cli, tmp_path):
    lines = open(FIXTURES[1]).read().splitlines(keepends=True)
    bad = tmp_path / "trace.txt"
    lines[200] = "this is not an ftrace line at all\n"
    bad.write_text("".join(lines))
    with pytest.raises(sextant.TraceError) as caught:
        sextant.open(str(bad)).executions("preset:running")
    said = cli("analyze", str(bad), "--preset", "running", "--no-store", raw=True, check=False)
    assert str(caught.value) == said.stderr.decode().removeprefix("sextant: error: ").strip()
    assert (caught.value.file, caught.value.line, caught.value.offset) == (str(bad), 201, None)


def test_bad_model_is_a_model_error():
    with pytest.raises(sextant.ModelError, match="deadline"):
        sextant.open(FIXTURES[0]).executions({"name": "x", "events": [{"name": "sched_switch"}], "deadline": "soon"})
    with pytest.raises(sextant.ModelError, match="periodic"):
        sextant.open(FIXTURES[0]).executions("preset:no-such")
    with pytest.raises(sextant.TraceError):
        sextant.open("/no/such/trace")


def test_progress_callback_sees_the_pass():
    # A trace big enough for the engine to report along the way.
    trace = (shared_traces() or [FIXTURES[3]])[0]
    seen = []
    sextant.open(trace).executions("preset:running", progress=seen.append)
    assert seen == sorted(seen) and len(seen) >= 2 and 0 <= seen[0] and seen[-1] <= 100, seen


def test_an_exception_in_the_callback_stops_the_pass():
    class Stop(Exception):
        pass

    def stop(p):
        if p >= 1:
            raise Stop(p)

    with pytest.raises(Stop):
        sextant.open((shared_traces() or [FIXTURES[3]])[0]).executions("preset:running", progress=stop)


def test_the_gil_is_released_during_a_pass():
    """A Python thread counts on at about its own pace while the pass runs:
    between the pass's first and last progress reports, the counter moves
    as it does when the main thread sleeps."""
    trace = (shared_traces() or [FIXTURES[3]])[0]
    done = threading.Event()
    count = [0]

    def counter():
        while not done.is_set():
            count[0] += 1

    spinner = threading.Thread(target=counter)
    spinner.start()
    try:
        start, at_start = time.perf_counter(), count[0]
        time.sleep(0.3)
        alone = (count[0] - at_start) / (time.perf_counter() - start)
        seen = []
        sextant.open(trace).executions("preset:running", progress=lambda p: seen.append((time.perf_counter(), count[0])))
    finally:
        done.set()
        spinner.join()
    (t0, n0), (t1, n1) = seen[0], seen[-1]
    assert t1 - t0 > 0.01, seen
    # Holding the GIL, the pass would let the counter run only at the
    # reports (a few switch intervals in all).
    assert (n1 - n0) / (t1 - t0) > 0.25 * alone, ((n1 - n0) / (t1 - t0), alone)


def test_dask_workers_map_traces(cli):
    """Each trace's executions found in a worker process of a Dask
    LocalCluster (bound to 127.0.0.1), counted as the CLI counts them."""
    from dask.distributed import Client, LocalCluster

    traces = FIXTURES + shared_traces()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        futures = client.map(lambda p: sextant.open(p).executions("preset:running").num_rows, traces)
        counts = client.gather(futures)
        pids = set(client.run(os.getpid).values())
    assert os.getpid() not in pids
    want = [len(cli("analyze", t, "--preset", "running", "--format", "json", "--no-store")["executions"]) for t in traces]
    assert counts == want
