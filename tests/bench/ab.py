#!/usr/bin/env python3
"""Before/after timing of sextant binaries, runs alternated so that a change
in the machine's load falls on both alike.

  tests/bench/ab.py BIN_A BIN_B [--runs N] -- SEXTANT ARGS...

Runs `BIN_A ARGS` and `BIN_B ARGS` in turn, N times each (default 7), with
standard output checked equal (a changed checksum is an error), and prints
for each the least and median CPU time (user + sys of the child) and the
least wall time, with the load average before and after.
"""

import os
import statistics
import subprocess
import sys
import time


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return ru.ru_utime + ru.ru_stime, wall, out


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    k = argv.index("--")
    head, args = argv[:k], argv[k + 1 :]
    runs = 7
    if "--runs" in head:
        i = head.index("--runs")
        runs = int(head[i + 1])
        del head[i : i + 2]
    bins = head
    res = {b: ([], []) for b in bins}
    outs = {}
    load0 = os.getloadavg()[0]
    for _ in range(runs):
        for b in bins:
            cpu, wall, out = run([b, *args])
            res[b][0].append(cpu)
            res[b][1].append(wall)
            outs.setdefault(b, out)
            if out != outs[bins[0]]:
                sys.exit(f"outputs differ: {bins[0]} and {b}")
    load1 = os.getloadavg()[0]
    print(f"{' '.join(args)}  ({runs} alternated runs, load average {load0:.1f} -> {load1:.1f})")
    for b in bins:
        cpu, wall = res[b]
        print(f"  {b:<32} CPU least {min(cpu):.3f} s, median {statistics.median(cpu):.3f} s; wall least {min(wall):.3f} s")


if __name__ == "__main__":
    main()
