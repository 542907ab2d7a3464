#!/usr/bin/env python3
"""A bounded load test of `sextant serve` on loopback, with faults.

  tests/load/load.py [--duration S] [--clients N] [--seed K] [--binary PATH]

One server process runs HTTP, WebSocket and stdio together (`serve --stdio
--port 0 --ws 0`); N clients (default 100) work on it at once for S seconds
(default 20; the long run by hand: --duration 600): 60 % over HTTP, 30 %
over WebSocket (one connection each), 10 % sharing the stdio session. Each
repeats what a viewer does: the thread status time graph (tree, then
states of a random viewport), the histogram XY, the events table (columns,
a page of lines), posting an execution model (its Comparison View's states,
then deleting it) and an explanation (the critical path's states, then
deleting it). Some requests are abandoned: HTTP and WebSocket clients that
disconnect mid-request, stdio requests cancelled with $/cancelRequest.

The traces are copies in a temporary directory: scenario (a) in CTF and as
ftrace text, a generated ftrace trace of 8 threads (heavier), and two that
break while served: a copy of scenario (b) whose stream files are truncated
to half after a third of the run, and a copy of scenario (a)'s text deleted
after two thirds. Failures on those two are expected (counted apart); any
other failure, a hang or the server's death is an error.

At the end the server must still answer, then SIGTERM must let a request in
flight finish and the process exit 0. Printed: requests/s, p50/p99 per
endpoint, errors, the server's peak RSS. Exit status 1 on any error.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from clients import Http, Stdio, Ws

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
THREAD_STATUS = "org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider"
HISTOGRAM = "org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider"
EVENTS = "org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider"

# label: (JSON-RPC method, HTTP verb, route)
OPS = {
    "timeGraph/tree": ("tsp/timeGraph/tree", "POST", "/experiments/{expUUID}/outputs/timeGraph/{outputId}/tree"),
    "timeGraph/states": ("tsp/timeGraph/states", "POST", "/experiments/{expUUID}/outputs/timeGraph/{outputId}/states"),
    "xy/tree": ("tsp/xy/tree", "POST", "/experiments/{expUUID}/outputs/XY/{outputId}/tree"),
    "xy/xy": ("tsp/xy/xy", "POST", "/experiments/{expUUID}/outputs/XY/{outputId}/xy"),
    "table/columns": ("tsp/table/columns", "POST", "/experiments/{expUUID}/outputs/table/{outputId}/columns"),
    "table/lines": ("tsp/table/lines", "POST", "/experiments/{expUUID}/outputs/table/{outputId}/lines"),
    "outputs/create": ("tsp/outputs/create", "POST", "/experiments/{expUUID}/outputs/{outputId}"),
    "outputs/delete": ("tsp/outputs/delete", "DELETE",
                       "/experiments/{expUUID}/outputs/{outputId}/{derivedOutputId}"),
}

MODEL = json.load(open(os.path.join(ROOT, "schemas", "examples", "periodic-rt_high.json")))


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency = {}
        self.errors = []
        self.expected = 0
        self.abandoned = 0

    def record(self, label, seconds):
        with self.lock:
            self.latency.setdefault(label, []).append(seconds)

    def error(self, what):
        with self.lock:
            self.errors.append(what)

    def count(self, field):
        with self.lock:
            setattr(self, field, getattr(self, field) + 1)


def route(template, ids):
    return re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], template)


class Worker:
    """One client's loop."""

    def __init__(self, n, kind, conn, exps, faulty, stats, deadline, rng, addrs):
        self.n, self.kind, self.conn = n, kind, conn
        self.exps, self.faulty, self.stats = exps, faulty, stats
        self.deadline, self.rng, self.addrs = deadline, rng, addrs
        self.made = 0

    def call(self, label, exp, ids, body, what=""):
        """One request; `what` tells its latency apart (a model's outputs
        from an explanation's)."""
        method, verb, template = OPS[label]
        ids = dict(ids, expUUID=exp["UUID"])
        t0 = time.monotonic()
        try:
            status, obj = self.conn.call(method, verb, route(template, ids), ids, body)
        except (OSError, ValueError) as e:
            status, obj = 0, {"title": type(e).__name__, "detail": str(e)}
        self.stats.record(label + what, time.monotonic() - t0)
        if status == 200:
            return obj
        if exp["name"] in self.faulty:
            self.stats.count("expected")
        else:
            self.stats.error("%s %s on %s over %s: %s %s" % (
                label, status, exp["name"], self.kind, obj.get("title") if isinstance(obj, dict) else obj,
                (obj.get("detail") if isinstance(obj, dict) else "")))
        return None

    def viewport(self, exp):
        start, end = exp["start"], exp["end"]
        a = self.rng.randint(start, end)
        b = self.rng.randint(a, end)
        return {"start": a, "end": max(b, a + 1), "nbTimes": self.rng.choice([200, 800, 1920])}

    def timegraph(self, exp):
        full = {"requested_timerange": {"start": exp["start"], "end": exp["end"]}}
        tree = self.call("timeGraph/tree", exp, {"outputId": THREAD_STATUS}, {"parameters": full})
        if tree is None or tree.get("model") is None:
            return
        # Threads: hosts and processes have no states.
        ids = [e["id"] for e in tree["model"]["entries"] if e.get("hasData")]
        items = self.rng.sample(ids, min(len(ids), 200))
        self.call("timeGraph/states", exp, {"outputId": THREAD_STATUS}, {"parameters": {
            "requested_timerange": self.viewport(exp), "requested_items": items}})

    def xy(self, exp):
        full = {"requested_timerange": {"start": exp["start"], "end": exp["end"]}}
        tree = self.call("xy/tree", exp, {"outputId": HISTOGRAM}, {"parameters": full})
        if tree is None or tree.get("model") is None:
            return
        items = [e["id"] for e in tree["model"]["entries"]]
        self.call("xy/xy", exp, {"outputId": HISTOGRAM}, {"parameters": {
            "requested_timerange": self.viewport(exp), "requested_items": items}})

    def table(self, exp):
        cols = self.call("table/columns", exp, {"outputId": EVENTS}, {"parameters": {}})
        if cols is None:
            return
        index = self.rng.randint(0, max(exp["nbEvents"] - 1, 0))
        self.call("table/lines", exp, {"outputId": EVENTS}, {"parameters": {
            "requested_table_index": index, "requested_table_count": 50}})

    def derived(self, exp, parent, source, parameters, what):
        """Posts a configuration, reads its first output's states, deletes it."""
        self.made += 1
        name = "load-%d-%d" % (self.n, self.made)
        d = self.call("outputs/create", exp, {"outputId": parent},
                      {"name": name, "sourceTypeId": source, "parameters": parameters}, what)
        if d is None:
            return
        out = d["id"]
        tree = self.call("timeGraph/tree", exp, {"outputId": out}, {"parameters": {
            "requested_timerange": {"start": exp["start"], "end": exp["end"]}}}, what)
        if tree is not None and tree.get("model"):
            items = [e["id"] for e in tree["model"]["entries"]][:500]
            self.call("timeGraph/states", exp, {"outputId": out}, {"parameters": {
                "requested_timerange": self.viewport(exp), "requested_items": items}}, what)
        self.call("outputs/delete", exp, {"outputId": parent, "derivedOutputId": out}, None, what)

    def model(self, exp):
        self.derived(exp, "sextant.executions", "sextant.execution-model", MODEL, " model")

    def explain(self, exp):
        self.derived(exp, "sextant.explain", "sextant.explain", {"model": MODEL, "execution": "longest"},
                     " explain")

    def abandon(self, exp):
        """A request its client gives up on mid-way."""
        body = {"parameters": {"requested_timerange": {"start": exp["start"], "end": exp["end"],
                                                         "nbTimes": 1920},
                               "requested_items": list(range(1, 200))}}
        path = "/tsp/api" + route(OPS["timeGraph/states"][2], {"expUUID": exp["UUID"],
                                                                "outputId": THREAD_STATUS})
        try:
            if self.kind == "http":
                host, port = self.addrs["http"].rsplit(":", 1)
                s = socket.create_connection((host, int(port)), timeout=10)
                data = json.dumps(body).encode()
                s.sendall(b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                          b"Content-Length: %d\r\n\r\n%s" % (path.encode(), self.addrs["http"].encode(),
                                                             len(data), data))
                s.close()
            elif self.kind == "ws":
                ws = Ws(self.addrs["ws"])
                params = dict(body, expUUID=exp["UUID"], outputId=THREAD_STATUS)
                ws.send({"jsonrpc": "2.0", "id": 1, "method": "tsp/timeGraph/states", "params": params})
                ws.sock.close()
            else:
                params = dict(body, expUUID=exp["UUID"], outputId=THREAD_STATUS)
                rid, slot = self.conn.start("tsp/timeGraph/states", params)
                self.conn.cancel(rid)
                status, obj = self.conn.wait(slot)
                if status not in (200, 499) and exp["name"] not in self.faulty:
                    self.stats.error("cancelled states: %s %s" % (status, obj))
        except OSError as e:
            self.stats.error("abandoning a request over %s: %s" % (self.kind, e))
        self.stats.count("abandoned")

    def run(self):
        steps = [(self.timegraph, 40), (self.xy, 20), (self.table, 20), (self.model, 8),
                 (self.explain, 7), (self.abandon, 5)]
        fns = [f for f, _ in steps]
        weights = [w for _, w in steps]
        while time.monotonic() < self.deadline:
            step = self.rng.choices(fns, weights)[0]
            # The models and explanations are about rt_high: scenario (a).
            pool = [e for e in self.exps if e["name"] in ("a", "a-text")] \
                if step in (self.model, self.explain) else self.exps
            step(self.rng.choice(pool))


def write_switches(path, lines):
    """ftrace text: two CPUs switching among 8 threads."""
    with open(path, "w") as out:
        out.write("# tracer: nop\n")
        cur = [(4600, "w0"), (4601, "w1")]
        for i in range(lines):
            cpu = i % 2
            t = 1000.0 + i * 1e-6
            pp, pc = cur[cpu]
            k = (i * 7) % 8
            np_, nc = 4600 + k, "w%d" % k
            state = "S" if i % 3 == 0 else "R"
            out.write("%16s-%-5d [%03d] d..2. %12.6f: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 "
                      "prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n"
                      % (pc, pp, cpu, t, pc, pp, state, nc, np_))
            cur[cpu] = (np_, nc)


def peak_rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def open_experiment(conn, name, uri):
    status, t = conn.call("tsp/traces/open", "POST", "/traces", {},
                          {"parameters": {"name": name, "uri": uri}})
    assert status == 200, (name, status, t)
    status, e = conn.call("tsp/experiments/create", "POST", "/experiments", {},
                          {"parameters": {"name": name, "traces": [t["UUID"]]}})
    assert status == 200, (name, status, e)
    while e["indexingStatus"] == "RUNNING":
        time.sleep(0.1)
        status, e = conn.call("tsp/experiments/get", "GET", "/experiments/" + e["UUID"],
                              {"expUUID": e["UUID"]}, None)
    assert e["indexingStatus"] == "COMPLETED", e
    return e


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary", default=os.environ.get(
        "SEXTANT_BIN", os.path.join(ROOT, "target", "release", "sextant")))
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="sextant-load-")
    shutil.copytree(os.path.join(ROOT, "fixtures", "scenario-a", "ctf"), os.path.join(tmp, "a"))
    shutil.copy(os.path.join(ROOT, "fixtures", "scenario-a", "trace.txt"), os.path.join(tmp, "a.txt"))
    shutil.copytree(os.path.join(ROOT, "fixtures", "scenario-b", "ctf"), os.path.join(tmp, "trunc"))
    shutil.copy(os.path.join(ROOT, "fixtures", "scenario-a", "trace.txt"), os.path.join(tmp, "gone.txt"))
    write_switches(os.path.join(tmp, "big.txt"), 200_000)

    server = subprocess.Popen([args.binary, "serve", "--stdio", "--port", "0", "--ws", "0",
                               "--allow-root", tmp], cwd=ROOT, stdin=subprocess.PIPE,
                              # Stores in the run's directory, removed with it.
                              env=dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache")),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    addrs = {}
    log = []

    def read_stderr():
        for line in server.stderr:
            text = line.decode(errors="replace").rstrip()
            log.append(text)
            for scheme in ("http", "ws"):
                m = re.search(scheme + r"://([^/\s]+)", text)
                if m and scheme not in addrs:
                    addrs[scheme] = m.group(1)

    threading.Thread(target=read_stderr, daemon=True).start()
    stdio = Stdio(server)
    _, slot = stdio.start("initialize", {"processId": os.getpid(), "capabilities": {},
                                         "clientInfo": {"name": "load test"}})
    assert stdio.wait(slot)[0] == 200
    stdio.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    until = time.monotonic() + 30
    while len(addrs) < 2:
        assert time.monotonic() < until and server.poll() is None, "no addresses: %s" % log
        time.sleep(0.05)

    setup = Http(addrs["http"])
    exps = [open_experiment(setup, name, os.path.join(tmp, f)) for name, f in
            (("a", "a"), ("a-text", "a.txt"), ("big", "big.txt"), ("trunc", "trunc"), ("gone", "gone.txt"))]
    faulty = {"trunc", "gone"}

    stats = Stats()
    rng = random.Random(args.seed)
    start = time.monotonic()
    deadline = start + args.duration
    workers = []
    for n in range(args.clients):
        share = n % 10
        kind = "stdio" if share == 0 else "ws" if share <= 3 else "http"
        conn = stdio if kind == "stdio" else Ws(addrs["ws"]) if kind == "ws" else Http(addrs["http"])
        workers.append(Worker(n, kind, conn, exps, faulty, stats, deadline,
                              random.Random(rng.random()), addrs))
    threads = [threading.Thread(target=w.run, daemon=True) for w in workers]
    for t in threads:
        t.start()

    # The faults, while every client works.
    time.sleep(args.duration / 3)
    for dirpath, _, files in os.walk(os.path.join(tmp, "trunc")):
        for f in files:
            if f != "metadata" and not f.endswith(".idx"):
                p = os.path.join(dirpath, f)
                os.truncate(p, os.path.getsize(p) // 2)
    print("truncated the stream files of 'trunc' at %.1f s" % (time.monotonic() - start))
    time.sleep(args.duration / 3)
    os.remove(os.path.join(tmp, "gone.txt"))
    print("deleted 'gone' at %.1f s" % (time.monotonic() - start))

    for t in threads:
        t.join(timeout=args.duration + 180)
    hung = sum(t.is_alive() for t in threads)
    elapsed = time.monotonic() - start
    for w in workers:
        if w.kind != "stdio":
            w.conn.close()

    alive = server.poll() is None
    status, health = (setup.call("tsp/health", "GET", "/health", {}, None) if alive else (0, None))
    rss = peak_rss_mb(server.pid) if alive else float("nan")

    # SIGTERM with a request in flight: it finishes, the process exits 0.
    inflight = {}

    def long_request():
        c = Http(addrs["http"])
        inflight["answer"] = c.call(*OPS["outputs/create"][:2], route(OPS["outputs/create"][2], {
            "expUUID": exps[2]["UUID"], "outputId": "sextant.executions"}), {}, {
            "name": "in flight", "sourceTypeId": "sextant.execution-model", "parameters": {
                "name": "switches", "mode": "same_tid", "threads": {"process": "^w"},
                "events": [{"name": "sched_switch"}, {"name": "sched_switch"}]}})

    term_code = None
    if alive:
        t = threading.Thread(target=long_request)
        t.start()
        time.sleep(0.05)
        server.send_signal(signal.SIGTERM)
        t.join(timeout=60)
        try:
            term_code = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    shutil.rmtree(tmp, ignore_errors=True)

    total = sum(len(v) for v in stats.latency.values())
    print("\n%-26s %8s %9s %9s" % ("endpoint", "requests", "p50 ms", "p99 ms"))
    for label in sorted(stats.latency):
        xs = stats.latency[label]
        print("%-26s %8d %9.1f %9.1f" % (label, len(xs), percentile(xs, 50) * 1e3, percentile(xs, 99) * 1e3))
    print("\n%d clients (%d HTTP, %d WebSocket, %d on stdio) for %.1f s: %d requests, %.0f requests/s"
          % (args.clients, sum(w.kind == "http" for w in workers), sum(w.kind == "ws" for w in workers),
             sum(w.kind == "stdio" for w in workers), elapsed, total, total / elapsed))
    print("abandoned mid-request: %d; failures on the broken traces (expected): %d"
          % (stats.abandoned, stats.expected))
    print("server peak RSS: %.1f MB" % rss)
    problems = list(stats.errors)
    if hung:
        problems.append("%d clients still waiting at the end" % hung)
    if not alive:
        problems.append("the server died: %s" % "\n".join(log[-20:]))
    elif status != 200:
        problems.append("the server no longer answers /health: %s %s" % (status, health))
    if alive and (term_code != 0 or inflight.get("answer", (0,))[0] != 200):
        problems.append("SIGTERM: exit code %s, request in flight answered %s"
                        % (term_code, inflight.get("answer", ("nothing",))[0]))
    elif alive:
        print("SIGTERM: the request in flight was answered, exit code 0")
    print("errors: %d" % len(problems))
    for p in problems[:30]:
        print("  " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
