#!/usr/bin/env python3
"""`sextant discover` with its pass vs mining the sequences kept in the
trace's store (issue 13: results saved and reused).

  tests/bench/discover_store.py [TRACE] [--process REGEX] [--runs N]

Default trace: the large perf recording of tests/bench/record-large.sh
(/tmp/sextant-large-ctf), threads named like `sched-messaging`. Printed, best
of --runs runs: CPU time (user + system of the child) of `discover
--no-store` (reads the trace) and of `discover` once the store keeps the
sequences (a first run, not timed, stores them), and their ratio. Both
answers are checked equal.
"""

import argparse
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tsp_latency import SEXTANT  # noqa: E402


def run(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([SEXTANT, "discover", *args, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default="/tmp/sextant-large-ctf")
    ap.add_argument("--process", default="sched-messaging")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if not os.path.exists(args.trace):
        sys.exit(f"{args.trace} is missing: record it with sudo tests/bench/record-large.sh")
    common = [args.trace, "--process", args.process, "--min-support", "1000", "--within-job"]
    run(common)  # stores the sequences
    passes, stored = [], []
    for _ in range(args.runs):
        cpu, fresh = run(common + ["--no-store"])
        passes.append(cpu)
        cpu, again = run(common)
        stored.append(cpu)
        assert again == fresh, "the stored sequences gave another answer"
    p, s = min(passes), min(stored)
    print(f"discover on {args.trace} (threads /{args.process}/), best of {args.runs}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  with a pass        cpu {p * 1000:8.1f} ms")
    print(f"  stored sequences   cpu {s * 1000:8.1f} ms")
    print(f"  {p / s:.1f}x less CPU")


if __name__ == "__main__":
    main()
