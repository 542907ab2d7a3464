#!/usr/bin/env python3
"""Latency of `sextant serve` as a viewer sees it: a load client in this
process, the server in another, over loopback (HTTP/1.1 keep-alive).

  tests/bench/tsp_latency.py [TRACE] [--runs N] [--cache-entries N]

Default trace: the large perf recording of tests/bench/record-large.sh
(/tmp/sextant-large-ctf). Two execution models are posted:

  rows     sched_waking -> sched_switch-in per $tid (every thread): tens of
           thousands of executions, one Comparison View row each;
  points   same_tid syscall entry -> exit of read and of write: the largest
           number of executions the trace gives, for the Time Perspective.

Measured, each as p50/p99 over --runs requests:
  states, cold   Comparison View states, 1,000 pixels, every row; each
                 request a viewport not asked before (the cache misses);
  states, warm   the same viewport again (answered from the cache);
  thread states  the thread status view, 1,000 pixels, every thread, cold;
  XY, cold/warm  Time Perspective scatter of every execution, nbTimes=1,000.

There is no peer TSP server to run on this machine (Trace Compass's server
is not installed), so no ratio is printed. Goals (issue 5): states <= 50 ms
p99 warm, <= 200 ms cold; XY <= 50 ms.
"""

import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SEXTANT = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "target", "release", "sextant"))
THREAD_STATUS = "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider"

ROWS_MODEL = {
    "name": "wakeup to run",
    "events": [
        {"name": "sched_waking", "fields": {"tid": "$tid"}},
        {"name": "sched_switch", "fields": {"next_tid": "$tid"}},
    ],
}
POINT_MODELS = [
    {"name": "read", "mode": "same_tid",
     "events": [{"name": "syscall_entry_read"}, {"name": "syscall_exit_read"}]},
    {"name": "write", "mode": "same_tid",
     "events": [{"name": "syscall_entry_write"}, {"name": "syscall_exit_write"}]},
]


class Client:
    def __init__(self, addr):
        host, port = addr.split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=600)

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body)
        self.conn.request(method, "/tsp/api" + path, body=data,
                          headers={"Content-Type": "application/json"})
        r = self.conn.getresponse()
        text = r.read()
        if r.status != 200:
            raise RuntimeError(f"{method} {path}: {r.status} {text[:300]!r}")
        return json.loads(text), len(text)

    def timed(self, path, body):
        # Request sent to last byte received; parsing the answer here is the
        # client's cost, not the server's, and is left out.
        data = json.dumps(body)
        t = time.perf_counter()
        self.conn.request("POST", "/tsp/api" + path, body=data,
                          headers={"Content-Type": "application/json"})
        r = self.conn.getresponse()
        text = r.read()
        dt = (time.perf_counter() - t) * 1000
        if r.status != 200:
            raise RuntimeError(f"POST {path}: {r.status} {text[:300]!r}")
        v, size = json.loads(text), len(text)
        if v.get("status") != "COMPLETED":
            raise RuntimeError(f"{path}: {v.get('status')} {v.get('statusMessage')}")
        return dt, v, size


def pct(xs, p):
    s = sorted(xs)
    k = max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))
    return s[k]


def report(name, times, extra=""):
    print(f"{name:<34} p50 {pct(times, 50):8.1f} ms   p99 {pct(times, 99):8.1f} ms   "
          f"(n={len(times)}){extra}", flush=True)


def start_server(trace, cache_entries):
    p = subprocess.Popen(
        [SEXTANT, "serve", "--port", "0", "--allow-root", os.path.dirname(os.path.abspath(trace)),
         "--cache-entries", str(cache_entries)],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"http://([^/]+)/tsp/api", line)
    if not m:
        p.kill()
        sys.exit(f"sextant serve: {line}")
    return p, m.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default="/tmp/sextant-large-ctf")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--cache-entries", type=int, default=64)
    args = ap.parse_args()
    if not os.path.exists(args.trace):
        sys.exit(f"{args.trace} is missing: record it with sudo tests/bench/record-large.sh")
    server, addr = start_server(args.trace, args.cache_entries)
    try:
        c = Client(addr)
        t0 = time.perf_counter()
        tr, _ = c.call("POST", "/traces", {"parameters": {"name": "bench", "uri": os.path.abspath(args.trace)}})
        ex, _ = c.call("POST", "/experiments", {"parameters": {"name": "bench", "traces": [tr["UUID"]]}})
        exp = ex["UUID"]
        while True:
            e, _ = c.call("GET", f"/experiments/{exp}")
            if e["indexingStatus"] == "COMPLETED":
                break
            time.sleep(0.2)
        start, end = e["start"], e["end"]
        print(f"trace {args.trace}: {e['nbEvents']} events, indexed in {time.perf_counter() - t0:.1f} s")
        base = f"/experiments/{exp}/outputs"

        def create(model):
            t = time.perf_counter()
            d, _ = c.call("POST", f"{base}/sextant.executions",
                          {"name": model["name"], "sourceTypeId": "sextant.execution-model", "parameters": model})
            config = d["id"].split(":", 1)[1]
            st, _ = c.call("POST", f"{base}/data/sextant.executions.statistics:{config}/tree", {"parameters": {}})
            n = int(st["model"]["entries"][0]["labels"][1]) if st["model"]["entries"] else 0
            print(f"model {model['name']!r}: {n} executions (found in {time.perf_counter() - t:.1f} s)")
            return config, n

        rows_cfg, rows_n = create(ROWS_MODEL)
        comparison = f"{base}/timeGraph/sextant.executions.comparison:{rows_cfg}"
        tree, _ = c.call("POST", f"{comparison}/tree", {"parameters": {}})
        longest = max(x["end"] for x in tree["model"]["entries"])
        items = [x["id"] for x in tree["model"]["entries"]]

        def states_body(k):
            # Each k a viewport never asked before: the end moves by k ns.
            return {"parameters": {"requested_timerange": {"start": 0, "end": longest + k, "nbTimes": 1000},
                                   "requested_items": items}}

        cold = []
        for k in range(args.runs):
            dt, v, size = c.timed(f"{comparison}/states", states_body(k + 1))
            cold.append(dt)
        report(f"states cold ({len(items)} rows)", cold, f"  {size / 1e6:.1f} MB")
        warm = [c.timed(f"{comparison}/states", states_body(1))[0] for _ in range(args.runs)]
        report(f"states warm ({len(items)} rows)", warm)

        ttree, _ = c.call("POST", f"{base}/timeGraph/{THREAD_STATUS}/tree", {"parameters": {}})
        threads = [x["id"] for x in ttree["model"]["entries"] if x.get("hasData")]
        tcold = []
        for k in range(max(5, args.runs // 5)):
            body = {"parameters": {"requested_timerange": {"start": start, "end": end + k + 1, "nbTimes": 1000},
                                   "requested_items": threads}}
            tcold.append(c.timed(f"{base}/timeGraph/{THREAD_STATUS}/states", body)[0])
        report(f"thread states cold ({len(threads)} rows)", tcold)

        best = None
        for m in POINT_MODELS:
            cfg, n = create(m)
            if best is None or n > best[1]:
                best = (cfg, n)
        cfg, n = best
        xy = f"{base}/XY/sextant.executions.perspective:{cfg}/xy"

        def xy_body(k):
            return {"parameters": {"requested_timerange": {"start": start, "end": end + k, "nbTimes": 1000},
                                   "requested_items": [1]}}

        xcold = [c.timed(xy, xy_body(k + 1))[0] for k in range(args.runs)]
        report(f"XY cold ({n} executions)", xcold)
        xwarm = [c.timed(xy, xy_body(1))[0] for _ in range(args.runs)]
        report(f"XY warm ({n} executions)", xwarm)
        ident, _ = c.call("GET", "/identifier")
        print(f"cache: {ident.get('cache')}")
        print("peer: none available (no Trace Compass server here); no ratio printed")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
