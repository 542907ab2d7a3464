#!/usr/bin/env python3
"""BTF reading speed against `wc -l` on the same file, in one run.

  tests/bench/btf.py [FILE] [--rows N] [--runs R]

Without FILE, a synthetic trace of N rows (default 10,000,000, about 450 MB)
is generated once by tests/bench/gen_btf.py into /tmp/sextant-bench-N.btf.
Each command runs R times (default 3); the figure kept is the least CPU time
(user + sys). The peer is `wc -l` (counting lines: the least any reader of
the file must do). Measured:

  parse + task model   sextant dump --format none --no-payload: every row
                       parsed, times scaled, every process, runnable and
                       semaphore through its BTF state machine, the
                       scheduling events derived
  + kernel model       sextant analyze --preset running: the same through the
                       single pass, the kernel model and the running preset
  + task instances     sextant analyze --preset task-instance

Goals (issue 17): parse + task model at least 5 M rows/s single-threaded, and
within 3x of wc -l. Prints the figures and whether each goal is met; exits
non-zero only when a command fails.
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import GNU_TIME, ROOT, SEXTANT, measure  # noqa: E402


def count_rows(path):
    rows = 0
    with open(path, "rb") as f:
        for line in f:
            if line[:1].isdigit():
                rows += 1
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if not os.path.exists(SEXTANT):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "sextant-protocol"], cwd=ROOT, check=True)
    path = a.file
    if path is None:
        path = f"/tmp/sextant-bench-{a.rows}.btf"
        if not os.path.exists(path):
            gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_btf.py")
            subprocess.run([sys.executable, gen, path + ".part", "--rows", str(a.rows)], check=True)
            os.rename(path + ".part", path)
    rows = count_rows(path)
    size = os.path.getsize(path)
    print(f"{path}: {rows:,} rows, {size / 1e6:,.0f} MB")
    print(f"{'':<34}{'CPU':>10} {'rows/s':>12} {'x wc -l':>8} {'peak RSS':>10}")
    if not GNU_TIME:
        print("(peak RSS includes this script's own: install GNU time for exact figures)")

    def line(label, cpu, rss, ref=None):
        ratio = f"{cpu / ref:7.2f}x" if ref else "   peer "
        print(f"  {label:<32}{cpu:8.3f} s {rows / cpu / 1e6:8.2f} M {ratio} {rss / 1024:7.1f} MiB")

    wc, rss, _ = measure(["wc", "-l", path], a.runs)
    line("wc -l", wc, rss)
    task, rss, _ = measure([SEXTANT, "dump", path, "--format", "none", "--no-payload"], a.runs)
    line("parse + task model", task, rss, wc)
    cpu, rss, _ = measure([SEXTANT, "analyze", path, "--preset", "running", "--format", "json", "--top", "1"], a.runs)
    line("+ kernel model (running)", cpu, rss, wc)
    cpu, rss, _ = measure(
        [SEXTANT, "analyze", path, "--preset", "task-instance", "--format", "json", "--top", "1"], a.runs
    )
    line("+ task instances", cpu, rss, wc)
    rate = rows / task / 1e6
    print(f"goal: parse + task model >= 5 M rows/s: {rate:.2f} M rows/s, {'met' if rate >= 5 else 'NOT met'}")
    print(f"goal: parse + task model within 3x of wc -l: {task / wc:.2f}x, {'met' if task <= 3 * wc else 'NOT met'}")


if __name__ == "__main__":
    main()
