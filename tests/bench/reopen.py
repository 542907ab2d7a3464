#!/usr/bin/env python3
"""First open vs reopen of a trace by `sextant serve`: the first open indexes
the trace in one pass and stores the index (Arrow files; asked beside the
trace, NAME.sextant/, so that the script finds it); a reopen, by a new server process, reads the stored index.

  tests/bench/reopen.py [TRACE] [--runs N] [--before BIN]

Default trace: the large perf recording of tests/bench/record-large.sh
(/tmp/sextant-large-ctf). Each run starts a server, opens the trace, waits
until it is indexed, draws the thread status view (tree, then states of every
thread at 1,000 pixels) and stops the server. Printed, best of --runs runs of
each kind: wall time from the open request to the index's completion, the
server's CPU time (the scheduler's run time of its threads) at that point, its
resident memory after drawing (VmRSS, and of it the anonymous part, RssAnon:
the heap, as opposed to mapped file pages the kernel can drop) and its peak
(VmHWM). The peer of a reopen is the first open in the same script (the
stored index removed before each first-open run). Goals (issue 13): reopen
>= 20x faster; resident memory after drawing flat with the trace's size
(give several traces of different sizes: one line each).

--before BIN: an earlier sextant binary whose first open is measured too, in
the same runs, and printed beside (issue 32: the first open's peak, which
the index pass's spilling bounds; goal < 250 MB whatever the trace's size).

A trace of 32 M events (39 M state intervals), recorded as root:

  sextant capture tracefs --out /tmp/sextant-huge-ctf --events sched,syscalls \
      --buffer-kb 524288 -- taskset -c 0 perf bench sched pipe -l 7600000

and one of 100 M events (5 GB; about 150 s): the same with `-l 23700000`
and `--out /tmp/sextant-100m-ctf`. Figures: docs/trace-size.md.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tsp_latency import ROOT, SEXTANT, THREAD_STATUS, Client  # noqa: E402

def cpu_seconds(pid):
    """CPU time of the process in s, ns-exact: the scheduler's run time of
    each of its threads (/proc/PID/task/*/schedstat), summed. The indexing
    thread is one of the runtime's blocking pool, alive for 10 s after its
    work, so it is counted."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return total / 1e9


def memory_mb(pid):
    """(VmRSS, RssAnon, VmHWM) of the process in MB."""
    found = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "VmHWM"):
                found[key] = int(value.split()[0]) / 1024
    return tuple(found.get(k, float("nan")) for k in ("VmRSS", "RssAnon", "VmHWM"))


def one_run(trace, binary=SEXTANT):
    p = subprocess.Popen(
        [binary, "serve", "--port", "0", "--store", "beside", "--allow-root", os.path.dirname(trace)],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stderr.readline()
        m = re.search(r"http://([^/]+)/tsp/api", line)
        if not m:
            sys.exit(f"sextant serve: {line}")
        c = Client(m.group(1))
        cpu0 = cpu_seconds(p.pid)
        t0 = time.perf_counter()
        tr, _ = c.call("POST", "/traces", {"parameters": {"name": "bench", "uri": trace}})
        ex, _ = c.call("POST", "/experiments", {"parameters": {"name": "bench", "traces": [tr["UUID"]]}})
        exp = ex["UUID"]
        while True:
            e, _ = c.call("GET", f"/experiments/{exp}")
            if e["indexingStatus"] == "COMPLETED":
                break
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(p.pid) - cpu0
        base = f"/experiments/{exp}/outputs/timeGraph/{THREAD_STATUS}"
        tree, _ = c.call("POST", f"{base}/tree", {"parameters": {}})
        threads = [x["id"] for x in tree["model"]["entries"] if x.get("hasData")]
        body = {"parameters": {"requested_timerange": {"start": e["start"], "end": e["end"], "nbTimes": 1000},
                               "requested_items": threads}}
        states, _ = c.call("POST", f"{base}/states", body)
        assert len(states["model"]["rows"]) == len(threads), "not every thread drawn"
        return wall, cpu, memory_mb(p.pid), e["nbEvents"], len(threads)
    finally:
        p.kill()
        p.wait()


def bench(trace, runs, before):
    store = trace + ".sextant"
    if not os.access(os.path.dirname(trace), os.W_OK):
        sys.exit(f"{os.path.dirname(trace)} is not writable: the index would go to the cache directory")
    results = {"first open": [], "reopen": []}
    if before:
        results["first open, before"] = []
    for _ in range(runs):
        if before:
            shutil.rmtree(os.path.join(store, "index"), ignore_errors=True)
            results["first open, before"].append(one_run(trace, before))
        shutil.rmtree(os.path.join(store, "index"), ignore_errors=True)
        results["first open"].append(one_run(trace))
        results["reopen"].append(one_run(trace))
    left = [n for n in os.listdir(store) if ".spill-" in n]
    if left:
        print(f"  scratch left in {store}: {left}")
    events, threads = results["reopen"][0][3], results["reopen"][0][4]
    print(f"trace {trace}: {events} events, {threads} threads; best of {runs} runs each, "
          f"load average {os.getloadavg()[0]:.1f}")
    best, peaks = {}, {}
    for kind, rs in results.items():
        wall = min(r[0] for r in rs)
        cpu = min(r[1] for r in rs)
        rss, anon, peak = (min(r[2][k] for r in rs) for k in range(3))
        best[kind] = (wall, cpu)
        peaks[kind] = peak
        print(f"  {kind:<18}  wall {wall * 1000:9.1f} ms  cpu {cpu * 1000:9.1f} ms  "
              f"after drawing: RSS {rss:7.1f} MB (heap {anon:7.1f} MB)  peak {peak:7.1f} MB")
    (fw, fc), (rw, rc) = best["first open"], best["reopen"]
    print(f"  reopen is {fw / rw:.1f}x faster (wall), {fc / rc:.1f}x less CPU (goal: 20x)")
    line = f"  first open's peak {peaks['first open']:.0f} MB (goal < 250 MB)"
    if before:
        (bw, bc) = best["first open, before"]
        line += (f"; before: {peaks['first open, before']:.0f} MB; "
                 f"first open takes {fw / bw:.2f}x the wall time, {fc / bc:.2f}x the CPU of before")
    print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="*", default=["/tmp/sextant-large-ctf"])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", help="an earlier sextant binary: its first open printed beside")
    args = ap.parse_args()
    for t in args.traces:
        trace = os.path.abspath(t).rstrip("/")
        if not os.path.exists(trace):
            sys.exit(f"{trace} is missing: record it with sudo tests/bench/record-large.sh")
        bench(trace, args.runs, args.before)


if __name__ == "__main__":
    main()
