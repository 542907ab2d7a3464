#!/usr/bin/env python3
"""A recording's executions into pandas: through the Python package
(`sextant.open(TRACE).executions(...).to_pandas()`, the engine in the
process, the table handed over by the Arrow C stream interface) vs the
command line (`sextant analyze --format json` parsed and made a DataFrame; pandas.read_json
cannot take analyze's whole document, and is slower than this).

  tests/bench/python_executions.py [TRACE] [--preset NAME | --model FILE] [--runs N] [--binary BIN]

Run with a Python that has the package (tests/run-all.sh's venv,
target/python-package/bin/python, or `pip install ./python`). Default
trace: the large perf recording of tests/bench/record-large.sh
(/tmp/sextant-large-ctf); default preset: running (the most rows). Printed:
best wall time of --runs runs of each, the rows, and the ratio (goal >= 10x,
issue 33). Both read the trace (no store: the CLI runs with --no-store);
with --store, both read the executions from the trace's store in a cache
directory of their own (`sextant.open(..., store=True)`; the CLI's
default), filled by a first run that is not timed.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pandas

import sextant

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def best(runs, f):
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return min(times), out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace", nargs="?", default="/tmp/sextant-large-ctf")
    p.add_argument("--preset", default="running")
    p.add_argument("--model")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--store", action="store_true")
    p.add_argument("--binary", default=os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "target", "release", "sextant")))
    a = p.parse_args()
    if not os.path.exists(a.trace):
        sys.exit(f"{a.trace} is absent: record it with sudo tests/bench/record-large.sh, or give a trace")
    what = ["--model", a.model] if a.model else ["--preset", a.preset]
    model = a.model or f"preset:{a.preset}"

    def package():
        return sextant.open(a.trace, store=a.store).executions(model).to_pandas()

    def command_line():
        stored = [] if a.store else ["--no-store"]
        out = subprocess.run([a.binary, "analyze", a.trace, *what, "--format", "json", *stored],
                             check=True, stdout=subprocess.PIPE).stdout
        # analyze's document holds more than the list (model, stats,
        # trace), which pandas.read_json cannot take as one frame: the list
        # parsed by json and made a frame, faster than read_json would be.
        return pandas.DataFrame(json.loads(out)["executions"])

    if a.store:
        cache = tempfile.mkdtemp(prefix="sextant-bench-cache-")
        # Both the package (in this process) and the CLI read it.
        os.environ["XDG_CACHE_HOME"] = cache
        package()
    t_pkg, frame = best(a.runs, package)
    t_cli, listed = best(a.runs, command_line)
    assert len(frame) == len(listed), (len(frame), len(listed))
    if a.store:
        shutil.rmtree(cache)
    print(f"trace: {a.trace}, {model}: {len(frame)} executions{', from the store' if a.store else ''}")
    print(f"package  (executions().to_pandas()):        {t_pkg:8.3f} s")
    print(f"CLI      (analyze --format json + DataFrame): {t_cli:8.3f} s")
    print(f"ratio: {t_cli / t_pkg:.1f}x (goal >= 10x)")


if __name__ == "__main__":
    main()
