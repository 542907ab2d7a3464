#!/usr/bin/env python3
"""One SQL query over a fleet of traces (issue 29): `sextant sql` over N
traces, first (each trace read by a pass) and repeated (each trace's
executions read from its store), beside its peer, a shell loop of
`sextant analyze --format json --no-store` over the same traces, which is
what a user does without `sql`. Also the peak RSS of the one `sql`
process as the fleet grows: it should stay flat (one pass per core at a
time, batches streamed).

With --workers W (default 2; 0 for none), the same queries also run on W
local `sextant worker` processes (`sextant sql --cluster`), over a copy
of the fleet of their own (so that their first query reads every trace),
with the peak RSS of each worker.

  tests/bench/fleet.py [--traces N] [--workers W] [--binary BIN] [--preset NAME | --model FILE] [--from TRACE]

A model of one task (`--model schemas/examples/periodic-rt_high.json`)
stores a few rows per trace; a preset such as `running` one per running
stretch of every thread, which the repeated query reads back.

The fleet is made of copies of the fixtures (perf CTF, ftrace text,
trace.dat; each copy is its own trace with its own store) in a temporary
folder, with a temporary cache directory. With --from TRACE, of copies of
that one recording instead (hard links where the file system allows:
nightly recordings of the size of tests/bench/record-large.sh's, where a
pass costs what it costs on real traces rather than on 2 MB fixtures). Printed: wall time and peak RSS
of each run, and the ratios (goal: repeated >= 20x faster than first).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = [
    "scenario-a/ctf",
    "scenario-a/trace.txt",
    "scenario-b/ctf",
    "scenario-c/ctf",
    "scenario-c/trace.txt",
    "scenario-d/ctf",
    "scenario-d/trace.txt",
    "taskset/ctf",
    "taskset/trace.txt",
    "tracedat-a/trace-v7.dat",
]


def make_fleet(folder, n, source=None):
    for i in range(n):
        src = source or os.path.join(ROOT, "fixtures", SOURCES[i % len(SOURCES)])
        dst = os.path.join(folder, f"run{i:04d}", os.path.basename(src))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        # A recording of hundreds of MB is linked, not copied: each link is
        # a trace of its own (its own path, its own store beside it).
        copy = link_or_copy if source else shutil.copy2
        if os.path.isdir(src):
            shutil.copytree(src, dst, copy_function=copy)
        else:
            copy(src, dst)


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def run_sql(binary, folder, asked, env, cluster=None):
    what = asked[1] if asked[0] == "--model" else f"preset:{asked[1]}"
    query = (
        f"SELECT trace, count(*) AS n, max(duration) AS worst "
        f"FROM executions('{what}') GROUP BY trace"
    )
    cmd = [binary, "sql", query, folder, "--format", "csv"]
    if cluster:
        cmd += ["--cluster", cluster]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # wait4 gives this child's own peak RSS (getrusage of all children
    # would keep the largest child seen so far).
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read()
    err = proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"sextant sql failed: {err.decode()[-2000:]}")
    rows = max(0, out.decode().count("\n") - 1)
    return wall, usage.ru_maxrss / 1024, rows


class Workers:
    """W `sextant worker` processes on 127.0.0.1, each on a free port."""

    def __init__(self, binary, n, env):
        self.procs = []
        urls = []
        for _ in range(n):
            # Their log (a line per partition executed) is not read here.
            proc = subprocess.Popen([binary, "worker"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self.procs.append(proc)
            url = proc.stdout.readline().decode().strip()
            if not url:
                self.stop()
                sys.exit("sextant worker printed no URL")
            urls.append(url)
        self.urls = ",".join(urls)

    def peak_mib(self):
        """Each worker's peak resident set so far (VmHWM), MiB."""
        peaks = []
        for proc in self.procs:
            with open(f"/proc/{proc.pid}/status") as f:
                kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
            peaks.append(kib / 1024)
        return peaks

    def stop(self):
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.wait()


def run_loop(binary, folder, asked, env):
    traces = []
    for run in sorted(os.listdir(folder)):
        for name in os.listdir(os.path.join(folder, run)):
            traces.append(os.path.join(folder, run, name))
    start = time.perf_counter()
    for t in traces:
        subprocess.run(
            [binary, "analyze", t, *asked, "--format", "json", "--no-store"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--traces", type=int, default=200)
    p.add_argument("--preset", default="running")
    p.add_argument("--model", help="a model file instead of a preset")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--from", dest="source", help="a recording whose copies make the fleet")
    p.add_argument(
        "--binary", default=os.path.join(ROOT, "target", "release", "sextant")
    )
    a = p.parse_args()
    if not os.access(a.binary, os.X_OK):
        sys.exit(f"{a.binary}: no binary (cargo build --release)")
    if a.source:
        a.source = os.path.abspath(a.source)
        if not os.path.exists(a.source):
            sys.exit(f"{a.source}: no such trace (tests/bench/record-large.sh records one)")
    with tempfile.TemporaryDirectory(prefix="sextant-fleet-") as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        asked = ["--model", os.path.abspath(a.model)] if a.model else ["--preset", a.preset]
        made_of = a.source or f"{len(SOURCES)} fixtures"
        print(f"fleet of {a.traces} traces (copies of {made_of}), {' '.join(asked)}")
        print(f"{'traces':>7} {'first s':>9} {'repeat s':>9} {'ratio':>7} {'peak MiB':>9} {'rows':>6}")
        for n in sorted({max(1, a.traces // 4), max(1, a.traces // 2), a.traces}):
            folder = os.path.join(tmp, f"fleet{n}")
            make_fleet(folder, n, a.source)
            first, rss, rows = run_sql(a.binary, folder, asked, env)
            again, rss2, rows2 = run_sql(a.binary, folder, asked, env)
            if rows2 != rows:
                sys.exit(f"the repeated query gave {rows2} rows, the first {rows}")
            print(f"{n:>7} {first:>9.2f} {again:>9.3f} {first / again:>6.1f}x {max(rss, rss2):>9.0f} {rows:>6}")
            if a.workers:
                copy = folder + "-cluster"
                make_fleet(copy, n, a.source)
                workers = Workers(a.binary, a.workers, env)
                try:
                    cfirst, crss, crows = run_sql(a.binary, copy, asked, env, workers.urls)
                    cagain, crss2, crows2 = run_sql(a.binary, copy, asked, env, workers.urls)
                    peaks = workers.peak_mib()
                finally:
                    workers.stop()
                if (crows, crows2) != (rows, rows):
                    sys.exit(f"on {a.workers} workers: {crows} and {crows2} rows, embedded {rows}")
                print(
                    f"{'':>7} on {a.workers} workers: first {cfirst:.2f} s ({first / cfirst:.2f}x embedded), "
                    f"repeat {cagain:.3f} s ({first / cagain:.1f}x the embedded first), "
                    f"peak MiB coordinator {max(crss, crss2):.0f}, workers "
                    + " ".join(f"{m:.0f}" for m in peaks)
                )
        loop = run_loop(a.binary, folder, asked, env)
        print(
            f"peer: analyze --no-store in a shell loop over the {a.traces} traces: "
            f"{loop:.2f} s, {loop / first:.1f}x the first query, {loop / again:.0f}x the repeated one"
        )


if __name__ == "__main__":
    main()
