#!/usr/bin/env python3
"""Side by side with Trace Compass (issue 32): the first open of the same
kernel traces by Trace Compass 6.2 and by sextant, each from nothing stored.

  tests/bench/tracecompass.py [TRACE...] [--runs N] [--vmargs ARGS]

Default trace: the large perf recording of tests/bench/record-large.sh
(/tmp/sextant-large-ctf). Needs the cache tc-plugin/verify.sh fills (Maven,
the Trace Compass 6.2 bundles from Debian, the Maven repository): run it once
(the first run here adds openjson, which lttng2.kernel.core needs, from Maven
Central). sextant: $SEXTANT_BIN, else target/release/sextant. A benchmark:
CI does not run it, and verify.sh does not build its Tycho module (profile
`bench` of tc-plugin/eclipse/pom.xml).

Trace Compass: what a user waits for on opening a kernel trace: the trace
validated as an LTTng kernel trace (the type Trace Compass 6.2 gives a CTF
trace whose env says domain = "kernel", LTTng's or perf's), indexed, and its
"Linux Kernel" analysis (KernelAnalysisModule, the state system of Control
Flow and Resources) built to completion, both started together as the
workbench does. It runs headless (OSGi, no workbench) in
tc-plugin/eclipse/io.sextant.tc.bench, one Maven/Tycho run, hence one JVM,
per trace and run, with the JVM options of Debian's Trace Compass launcher
(-Xms512m -Xmx1024m; --vmargs to change them) and a fresh workspace (Tycho
deletes it), where the index and state history go. Measured inside the JVM:
wall time from the trace's validation to the analysis's completion, the
JVM's CPU time over it (the scheduler's run time of all its threads, GC and
JIT included) and its peak resident memory, VmHWM of /proc/self/status at
the end: the whole JVM's, with the OSGi framework and the harness, whose
resident size before the trace was opened is printed beside ("JVM before").
JVM start and OSGi boot are not counted.

sextant: its first open as tests/bench/reopen.py measures it: `sextant serve`,
the trace opened and put in an experiment, wall time until the index is
COMPLETED (the index pass: events, threads and thread states, stored as
Arrow files), CPU time of the server meanwhile, peak resident memory (VmHWM)
at that point. Nothing stored before: the trace's files are hard-linked (or
copied, across file systems) into a fresh directory, so no NAME.sextant/
beside it is read, and XDG_CACHE_HOME is a fresh directory.

The trace's files are read once before the first run, so that both start
with them in the page cache. Best of --runs runs (default 1) of each, runs
alternating. Printed per trace: events, each side's wall, CPU and peak, the
ratios Trace Compass / sextant, and what each built (threads; Trace
Compass's thread Status intervals by state, which shows the events a
layout does not know: Trace Compass 6.2's perf layout takes syscalls from
raw_syscalls:sys_enter/exit only, so syscalls:sys_enter_NAME of a perf
recording leave its threads without the syscall state).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tsp_latency import ROOT, SEXTANT, THREAD_STATUS, Client  # noqa: E402
from reopen import cpu_seconds, memory_mb  # noqa: E402

CACHE = os.environ.get("SEXTANT_TC_CACHE", os.path.expanduser("~/.cache/sextant-tc"))
MVN = os.path.join(CACHE, "apache-maven-3.9.9", "bin", "mvn")
ECLIPSE = os.path.join(ROOT, "tc-plugin", "eclipse")


def tracecompass(trace, vmargs, scratch):
    """One headless Trace Compass first open (a JVM of its own): the figures
    FirstOpenBench writes."""
    out = os.path.join(scratch, "tc.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [MVN, "-B", "-q", "-f", os.path.join(ECLIPSE, "pom.xml"), "-Pbench", "-pl", "io.sextant.tc.bench",
           f"-Dmaven.repo.local={CACHE}/m2", f"-Dsextant.tc.bundles={CACHE}/bundles",
           f"-Dsextant.bench.trace={trace}", f"-Dsextant.bench.out={out}", f"-Dsextant.bench.vmargs={vmargs}",
           "verify"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0 or not os.path.exists(out):
        sys.exit(f"Trace Compass run failed ({' '.join(cmd)}):\n{p.stdout[-4000:]}")
    with open(out) as f:
        return json.load(f)


def link_tree(src, dst):
    """The trace's files in dst: hard links where possible, else copies."""
    def link(s, d):
        try:
            os.link(s, d)
        except OSError:
            shutil.copy2(s, d)
    shutil.copytree(src, dst, copy_function=link)


def sextant(trace, scratch, binary):
    """sextant's first open of a fresh copy of the trace, with a fresh cache:
    (wall s, cpu s, peak MB, events, threads, stored MB)."""
    run = tempfile.mkdtemp(dir=scratch)
    copy = os.path.join(run, os.path.basename(trace))
    link_tree(trace, copy)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(run, "cache"))
    p = subprocess.Popen([binary, "serve", "--port", "0", "--allow-root", run],
                         cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stderr.readline()
        m = re.search(r"http://([^/]+)/tsp/api", line)
        if not m:
            sys.exit(f"sextant serve: {line}")
        c = Client(m.group(1))
        cpu0 = cpu_seconds(p.pid)
        t0 = time.perf_counter()
        tr, _ = c.call("POST", "/traces", {"parameters": {"name": "bench", "uri": copy}})
        ex, _ = c.call("POST", "/experiments", {"parameters": {"name": "bench", "traces": [tr["UUID"]]}})
        exp = ex["UUID"]
        while True:
            e, _ = c.call("GET", f"/experiments/{exp}")
            if e["indexingStatus"] == "COMPLETED":
                break
            if e["indexingStatus"] not in ("RUNNING", "STARTED"):
                sys.exit(f"sextant: indexing {e['indexingStatus']}")
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(p.pid) - cpu0
        peak = memory_mb(p.pid)[2]
        # What the index holds (after the figures): the threads with states.
        tree, _ = c.call("POST", f"/experiments/{exp}/outputs/timeGraph/{THREAD_STATUS}/tree", {"parameters": {}})
        threads = sum(1 for x in tree["model"]["entries"] if x.get("hasData"))
    finally:
        p.kill()
        p.wait()
    stored = sum(os.path.getsize(os.path.join(d, f))
                 for top in (env["XDG_CACHE_HOME"], copy + ".sextant") if os.path.isdir(top)
                 for d, _, fs in os.walk(top) for f in fs)
    shutil.rmtree(run)
    return wall, cpu, peak, e["nbEvents"], threads, stored / 2**20


def warm(trace):
    for d, _, fs in os.walk(trace):
        for f in fs:
            with open(os.path.join(d, f), "rb") as fh:
                while fh.read(1 << 24):
                    pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="*", default=["/tmp/sextant-large-ctf"])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--vmargs", default="-Xms512m -Xmx1024m",
                    help="Trace Compass's JVM options (default: those of Debian's Trace Compass 6.2 launcher)")
    args = ap.parse_args()
    if not os.path.exists(MVN) or not os.path.isdir(os.path.join(CACHE, "bundles")):
        sys.exit(f"no Maven or Trace Compass bundles in {CACHE}: run tc-plugin/verify.sh once")
    binary = os.path.abspath(SEXTANT)
    if not os.access(binary, os.X_OK):
        sys.exit(f"no sextant binary at {binary} (set SEXTANT_BIN)")
    rows = []
    for t in args.traces:
        trace = os.path.abspath(t).rstrip("/")
        if not os.path.isdir(trace):
            sys.exit(f"{trace} is missing (the large recording: sudo tests/bench/record-large.sh)")
        warm(trace)
        tcs, sxs = [], []
        with tempfile.TemporaryDirectory(prefix="sextant-vs-tc.") as scratch:
            for _ in range(args.runs):
                tcs.append(tracecompass(trace, args.vmargs, scratch))
                if "refused" in tcs[-1]:
                    break
                sxs.append(sextant(trace, scratch, binary))
        tc = tcs[0]
        print(f"trace {trace}  (load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs)")
        print(f"  Trace Compass 6.2: validation as an LTTng kernel trace: {tc['validation']}")
        if "refused" in tc:
            print(f"  Trace Compass refused it: {tc['refused']}")
            continue
        tw, tcpu = min(r["wall_s"] for r in tcs), min(r["cpu_s"] for r in tcs)
        tpeak, tbase = min(r["hwm_mb"] for r in tcs), min(r["baseline_rss_mb"] for r in tcs)
        tindex = min(r["index_s"] for r in tcs)
        sw, scpu, speak = (min(r[k] for r in sxs) for k in range(3))
        sev, sthreads, sstored = sxs[0][3], sxs[0][4], sxs[0][5]
        print(f"  Trace Compass: tracer {tc['tracer']}, layout {tc['layout']}, {tc['events']} events, "
              f"{tc.get('threads')} threads, thread Status intervals {tc.get('status_intervals')}; "
              f"index and state history {tc['supplementary_mb']:.1f} MB; JVM {tc['java']}, "
              f"max heap {tc['max_heap_mb']} MB, resident before the trace was opened {tbase:.0f} MB")
        print(f"  sextant: {sev} events, {sthreads} threads with states; stored {sstored:.1f} MB")
        print(f"  Trace Compass  wall {tw:8.2f} s (index done at {tindex:.2f} s)  cpu {tcpu:8.2f} s  "
              f"peak {tpeak:7.1f} MB (whole JVM)")
        print(f"  sextant        wall {sw:8.2f} s  cpu {scpu:8.2f} s  peak {speak:7.1f} MB")
        print(f"  Trace Compass / sextant: wall {tw / sw:.1f}x, cpu {tcpu / scpu:.1f}x, peak {tpeak / speak:.1f}x "
              f"(peak less the JVM's resident size before opening: {(tpeak - tbase) / speak:.1f}x); "
              f"best of {len(tcs)} run(s) each")
        if tc["events"] != sev:
            print(f"  NOTE: event counts differ: Trace Compass {tc['events']}, sextant {sev}")
        rows.append((os.path.basename(trace), sev, tw, tpeak, sw, speak))
    if len(rows) > 1:
        print(f"\n{'trace':<22}{'events':>11}{'TC wall s':>11}{'TC peak MB':>12}"
              f"{'sx wall s':>11}{'sx peak MB':>12}{'wall x':>8}{'peak x':>8}")
        for name, ev, tw, tp, sw, sp in rows:
            print(f"{name:<22}{ev:>11}{tw:>11.2f}{tp:>12.1f}{sw:>11.2f}{sp:>12.1f}{tw / sw:>8.1f}{tp / sp:>8.1f}")


if __name__ == "__main__":
    main()
