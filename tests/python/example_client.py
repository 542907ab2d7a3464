#!/usr/bin/env python3
"""A scripted client of `sextant serve --stdio`, with the Python standard
library only: JSON-RPC 2.0 with LSP framing over the child's stdin/stdout.

It opens fixtures/scenario-a, defines an execution model (each job of the
periodic rt_high thread), and prints the five longest executions. It exits
non-zero when the answer is wrong (fewer than five executions, or not sorted
longest first), so that CI can run it as a test:

    python3 tests/python/example_client.py [path/to/sextant]
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "schemas", "examples", "periodic-rt_high.json")
TRACE = os.path.join(ROOT, "fixtures", "scenario-a", "ctf")


class Session:
    """One `sextant serve --stdio` child and its JSON-RPC conversation."""

    def __init__(self, binary):
        # Its stores in a cache of this run's own (removed with it), neither
        # the user's nor beside the repository's fixtures.
        self.cache = tempfile.TemporaryDirectory(prefix="sextant-client-cache-")
        self.child = subprocess.Popen(
            [binary, "serve", "--stdio"],
            cwd=ROOT,
            env=dict(os.environ, XDG_CACHE_HOME=self.cache.name),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.next_id = 0
        self.progress = []

    def send(self, message):
        body = json.dumps(message).encode()
        self.child.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.child.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.child.stdout.readline()
            if not line:
                raise RuntimeError("sextant closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        return json.loads(self.child.stdout.read(length))

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            m = self.receive()
            if m.get("id") == self.next_id and "method" not in m:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m["result"]
            if m.get("method") == "$/progress":
                self.progress.append(m["params"]["value"])

    def notify(self, method, params=None):
        self.send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    def close(self):
        self.request("shutdown")
        self.notify("exit")
        return self.child.wait(timeout=30)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "sextant"
    s = Session(binary)
    init = s.request("initialize", {
        "processId": os.getpid(),
        "clientInfo": {"name": "example_client.py"},
        "capabilities": {},
        "initializationOptions": {"traceRoots": [ROOT]},
    })
    s.notify("initialized")
    print("server:", init["serverInfo"]["name"], init["serverInfo"].get("version", ""))

    # With a workDoneToken the request answers once the trace is indexed.
    trace = s.request("tsp/traces/open", {
        "parameters": {"name": "scenario-a", "uri": TRACE},
        "workDoneToken": "open"})
    exp = s.request("tsp/experiments/create", {
        "parameters": {"name": "scenario-a example", "traces": [trace["UUID"]]},
        "workDoneToken": "index"})
    print("experiment: %s, %d events" % (exp["name"], exp["nbEvents"]))

    with open(MODEL) as f:
        model = json.load(f)
    comparison = s.request("tsp/outputs/create", {
        "expUUID": exp["UUID"],
        "outputId": "sextant.executions",
        "name": model["name"],
        "sourceTypeId": "sextant.execution-model",
        "parameters": model,
    })
    table = comparison["id"].replace("sextant.executions.comparison:", "sextant.executions.table:")
    columns = s.request("tsp/table/columns", {
        "expUUID": exp["UUID"], "outputId": table, "parameters": {}})["model"]
    names = [c["name"] for c in columns]
    lines = s.request("tsp/table/lines", {
        "expUUID": exp["UUID"], "outputId": table,
        "parameters": {"requested_table_index": 0, "requested_table_count": 100000}})["model"]["lines"]
    rows = [dict(zip(names, (c["content"] for c in line["cells"]))) for line in lines]
    # The Comparison View's rows come longest first: the server's order.
    tree = s.request("tsp/timeGraph/tree", {
        "expUUID": exp["UUID"], "outputId": comparison["id"],
        "parameters": {"sort": "duration"}})["model"]["entries"]
    by_index = {int(r["Index"]): r for r in rows}
    longest = [by_index[e["id"]] for e in tree[:5]]

    print("%d executions of %r; the five longest:" % (len(rows), model["name"]))
    print("%6s %16s %12s %12s %10s %8s" % ("index", "start (ns)", "duration", "preempted", "blocked", "miss"))
    for r in longest:
        print("%6s %16s %12s %12s %10s %8s" % (
            r["Index"], r["Start"], r["Duration"], r["Preempted"], r["Blocked"], r["Deadline miss"]))

    code = s.close()
    durations = [int(r["Duration"]) for r in longest]
    problems = []
    if len(longest) < 5:
        problems.append("fewer than five executions (%d)" % len(longest))
    if durations != sorted(durations, reverse=True) or any(d <= 0 for d in durations):
        problems.append("durations not positive and longest first: %s" % durations)
    if durations and durations[0] != max(int(r["Duration"]) for r in rows):
        problems.append("the first is not the longest of the table")
    if code != 0:
        problems.append("sextant exited with %d after shutdown and exit" % code)
    for p in problems:
        print("example_client: FAILED:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
