#!/usr/bin/env python3
"""Benchmarks of sextant against a peer run in the same script, on the same traces.

  tests/bench/bench.py read    [TRACE...]   CTF reading: babeltrace2 -o dummy vs
                                            sextant dump --format none (every field
                                            decoded) and --no-payload (names, times),
                                            on one thread (--jobs 1) and on --jobs N
                                            (default: one per core); and the same
                                            trace written as CTF 2 (sextant convert,
                                            a temp copy) on one thread, against
                                            babeltrace2 on the CTF 1.8 original
  tests/bench/bench.py analyze [TRACE...]   matching overhead: sextant dump --format
                                            none vs sextant analyze with two-event
                                            models, same_tid and different_tids
  tests/bench/bench.py threads [MANY FEW]   per-event cost of analyze (the models of
                                            `analyze`) on a trace of many threads vs
                                            one of a few, same work otherwise (both
                                            recorded by tests/bench/record-threads.sh:
                                            /tmp/sextant-threads-many, -few); goal
                                            <= 15 % apart
  tests/bench/bench.py tracedat [FILE...]   trace.dat reading: trace-cmd report > /dev/null
                                            vs sextant dump --format none (every field
                                            decoded) and --no-payload (names, times);
                                            default: /tmp/sextant-large.dat, recorded by
                                            tests/bench/record-large-tracedat.sh
  tests/bench/bench.py tasks [TRACE...]     sextant tasks (task detection, one pass)
                                            vs analyze --preset running on the same
                                            trace: ratio of CPU times; goal <= 1.2
  tests/bench/bench.py model [TRACE...]     the kernel model's share per event on
                                            small LTTng traces (default: the shared
                                            many-threads, multi-domains, flipping-
                                            endianness, lttng-tracefile-rotation):
                                            analyze minus reading names and times
                                            (dump --no-payload), per event; goal
                                            <= 60 ns/event

Default traces: ../shared/traces/ctf/many-threads (if present) and the large perf
trace recorded by tests/bench/record-large.sh (/tmp/sextant-large-ctf, if present).

analyze always runs with --no-store (a stored result would be read instead of
computed) and --jobs 1 (CPU time is the measure; --jobs adds threads' work).
Each command runs --runs times (default 3); the figure kept is the least CPU time
(user + sys, which a loaded machine disturbs less than wall time) and the largest
peak RSS. Ratios compare events per CPU-second, except for the --jobs N rows,
which compare events per wall-clock second with the same command on one thread
(the load average is printed: other work on the machine takes cores from them).
Prints a table; exits non-zero only when a command fails. SEXTANT_BIN names
another sextant binary than target/release/sextant (e.g. a copy to compare).
"""

import argparse
import os
import shutil
import subprocess
import sys
import json
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SEXTANT = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "target", "release", "sextant"))


def default_traces():
    out = []
    shared = os.path.abspath(os.path.join(ROOT, "..", "shared", "traces", "ctf", "many-threads"))
    if os.path.isdir(shared):
        out.append(shared)
    if os.path.isdir("/tmp/sextant-large-ctf"):
        out.append("/tmp/sextant-large-ctf")
    return out


class RusagePopen(subprocess.Popen):
    """Popen that keeps the child's own resource usage (os.wait4) when reaping it."""

    rusage = None

    def _try_wait(self, wait_flags):
        pid, sts, ru = os.wait4(self.pid, wait_flags)
        if pid == self.pid:
            self.rusage = ru
        return (pid, sts)


# A child forked from this (large) Python process inherits its peak RSS in
# ru_maxrss; GNU time, a small C program, reports the command's own.
GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def measure(cmd, runs):
    """Least CPU seconds, largest peak RSS (KiB), and the last stdout."""
    cpu, _, rss, out = measure_wall(cmd, runs)
    return cpu, rss, out


def measure_wall(cmd, runs):
    """Least CPU seconds, least wall seconds, largest peak RSS (KiB), last stdout."""
    best_cpu, best_wall, max_rss, out = None, None, 0, b""
    for _ in range(runs):
        t0 = time.monotonic()
        full = [GNU_TIME, "-f", "%M", *cmd] if GNU_TIME else cmd
        p = RusagePopen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.communicate()
        wall = time.monotonic() - t0
        best_wall = wall if best_wall is None else min(best_wall, wall)
        if p.returncode != 0:
            sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{err.decode(errors='replace')}")
        cpu = p.rusage.ru_utime + p.rusage.ru_stime
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        rss = int(err.split()[-1]) if GNU_TIME else p.rusage.ru_maxrss
        max_rss = max(max_rss, rss)
    return best_cpu, best_wall, max_rss, out


def count_events(trace):
    _, _, out = measure([SEXTANT, "dump", trace, "--format", "none", "--no-payload"], 1)
    return int(out.split()[0])


def row(label, events, cpu, rss, ref_rate=None):
    rate = events / cpu if cpu > 0 else float("inf")
    ratio = f"{rate / ref_rate:6.1f}x" if ref_rate else "  peer "
    print(f"  {label:<44} {cpu:8.3f} s {rate / 1e6:8.2f} M ev/s {ratio} {rss / 1024:8.1f} MiB")
    return rate


def bench_read(traces, runs, jobs):
    if not shutil.which("babeltrace2"):
        sys.exit("babeltrace2 is needed as the peer (apt-get install babeltrace2)")
    for t in traces:
        n = count_events(t)
        print(f"\n{t}: {n:,} events (load average {os.getloadavg()[0]:.1f})")
        cpu, rss, _ = measure(["babeltrace2", "-o", "dummy", t], runs)
        ref = row("babeltrace2 -o dummy", n, cpu, rss)
        for label, extra in [("all fields", []), ("names, times", ["--no-payload"])]:
            cmd = [SEXTANT, "dump", t, "--format", "none", *extra]
            cpu, wall1, rss, _ = measure_wall([*cmd, "--jobs", "1"], runs)
            row(f"sextant --jobs 1 ({label})", n, cpu, rss, ref)
            cpu, wall, rss, _ = measure_wall([*cmd, "--jobs", str(jobs)], runs)
            row(f"sextant --jobs {jobs} ({label})", n, cpu, rss, ref)
            print(f"  {'':<44} wall {wall1:.3f} s on one thread, {wall:.3f} s on {jobs}: {wall1 / wall:.2f}x events/s")
        bench_read_ctf2(t, n, runs, ref)


def bench_read_ctf2(trace, events, runs, ref):
    """The same trace written as CTF 2 (`sextant convert`, a temp copy),
    read on one thread, against babeltrace2 on the CTF 1.8 original (Debian's
    babeltrace2 2.0 reads no CTF 2)."""
    tmp = tempfile.mkdtemp(prefix="sextant-bench-ctf2-")
    try:
        copy = os.path.join(tmp, "ctf2")
        subprocess.run([SEXTANT, "convert", trace, copy], check=True, stdout=subprocess.DEVNULL)
        n = count_events(copy)
        if n != events:
            sys.exit(f"{copy}: {n} events, the CTF 1.8 original {events}")
        for label, extra in [("all fields", []), ("names, times", ["--no-payload"])]:
            cmd = [SEXTANT, "dump", copy, "--format", "none", "--jobs", "1", *extra]
            cpu, rss, _ = measure(cmd, runs)
            row(f"sextant --jobs 1, CTF 2 copy ({label})", n, cpu, rss, ref)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench_tracedat(traces, runs):
    if not shutil.which("trace-cmd"):
        sys.exit("trace-cmd is needed as the peer (apt-get install trace-cmd)")
    for t in traces:
        n = count_events(t)
        print(f"\n{t}: {n:,} events (load average {os.getloadavg()[0]:.1f})")
        # Its text goes to /dev/null, not through this script's pipe.
        cpu, rss, _ = measure(["sh", "-c", 'exec trace-cmd report -i "$0" >/dev/null 2>&1', t], runs)
        ref = row("trace-cmd report > /dev/null", n, cpu, rss)
        for label, extra in [("all fields", []), ("names, times", ["--no-payload"])]:
            cpu, rss, _ = measure([SEXTANT, "dump", t, "--format", "none", *extra], runs)
            row(f"sextant ({label})", n, cpu, rss, ref)


MODELS = {
    "same_tid futex entry->exit": '{"name":"futex","events":[{"name":"syscall_entry_futex"},{"name":"syscall_exit_futex"}]}',
    "same_tid switch-out->switch-in": '{"name":"off-cpu","events":[{"name":"sched_switch","fields":{"prev_tid":"$tid"}},{"name":"sched_switch","fields":{"next_tid":"$tid"}}]}',
    "different_tids fork->exit ($tid)": '{"name":"life","mode":"different_tids","start":{"name":"sched_process_fork","fields":{"child_tid":"$tid"}},"end":{"name":"sched_process_exit","fields":{"tid":"$tid"}}}',
    "different_tids waking->switch-in": '{"name":"wake","mode":"different_tids","start":{"name":"sched_waking","fields":{"tid":"$tid"}},"end":{"name":"sched_switch","fields":{"next_tid":"$tid"}}}',
}


def bench_analyze(traces, runs):
    for t in traces:
        n = count_events(t)
        print(f"\n{t}: {n:,} events")
        cpu_read, rss, _ = measure([SEXTANT, "dump", t, "--format", "none", "--jobs", "1"], runs)
        print(f"  {'dump --format none (reading, peer)':<44} {cpu_read:8.3f} s {n / cpu_read / 1e6:8.2f} M ev/s          {rss / 1024:8.1f} MiB")
        for label, model in MODELS.items():
            cpu, rss, out = measure(analyze_cmd(t, model), runs)
            doc = json.loads(out)
            found = len(doc["executions"])
            over = (cpu / cpu_read - 1) * 100
            print(
                f"  analyze {label:<36} {cpu:8.3f} s {n / cpu / 1e6:8.2f} M ev/s {over:+6.1f}% {rss / 1024:8.1f} MiB"
                f"  {found:,} executions, {cpu / n * 1e9:.1f} ns/event"
            )


def bench_tasks(traces, runs):
    for t in traces:
        n = count_events(t)
        print(f"\n{t}: {n:,} events")
        running = [SEXTANT, "analyze", t, "--preset", "running", "--format", "json", "--no-store", "--jobs", "1"]
        cpu_ref, rss, _ = measure(running, runs)
        row("analyze --preset running (peer)", n, cpu_ref, rss)
        cpu, rss, out = measure([SEXTANT, "tasks", t, "--format", "json", "--jobs", "1"], runs)
        doc = json.loads(out)
        kinds = [x["kind"] for x in doc["tasks"]]
        row("tasks", n, cpu, rss, n / cpu_ref)
        print(
            f"  tasks / analyze --preset running CPU time: {cpu / cpu_ref:.2f} (goal <= 1.20); "
            f"{kinds.count('periodic')} periodic, {kinds.count('sporadic')} sporadic tasks"
        )


def analyze_cmd(trace, model):
    return [SEXTANT, "analyze", trace, "--model", model, "--format", "json", "--no-store", "--jobs", "1"]


def bench_threads(traces, runs):
    many, few = traces if len(traces) == 2 else ("/tmp/sextant-threads-many", "/tmp/sextant-threads-few")
    for t in (many, few):
        if not os.path.isdir(t):
            sys.exit(f"{t} missing: record it with sudo tests/bench/record-threads.sh")
    counts = {t: count_events(t) for t in (many, few)}
    print(f"\nmany: {many}, {counts[many]:,} events; few: {few}, {counts[few]:,} events "
          f"(load average {os.getloadavg()[0]:.1f})")
    print(f"  {'':<36} {'many ns/ev':>11} {'few ns/ev':>10} {'apart':>7}   threads (many / few)")
    rows = [("reading (dump --format none)", None)] + list(MODELS.items())
    for label, model in rows:
        per = {}
        found = {}
        for _ in range(runs):
            # Alternated, so that a change of load falls on both.
            for t in (many, few):
                if model is None:
                    cmd = [SEXTANT, "dump", t, "--format", "none", "--jobs", "1"]
                else:
                    cmd = analyze_cmd(t, model)
                cpu, _, out = measure(cmd, 1)
                per[t] = min(per.get(t, cpu), cpu)
                if model is not None:
                    found[t] = len(json.loads(out)["executions"])
        a, b = (per[t] / counts[t] * 1e9 for t in (many, few))
        extra = f"   {found[many]:,} / {found[few]:,} executions" if found else ""
        print(f"  {label:<36} {a:11.1f} {b:10.1f} {(a / b - 1) * 100:+6.1f}%{extra}")
    thread_counts = []
    for t in (many, few):
        cpu, _, out = measure([SEXTANT, "analyze", t, "--preset", "whole-thread", "--format", "json", "--no-store", "--jobs", "1"], 1)
        thread_counts.append(len({e.get("tid") for e in json.loads(out)["executions"]}))
    print(f"  threads with a whole-thread execution: {thread_counts[0]:,} / {thread_counts[1]:,}")


SMALL_LTTNG = ["many-threads", "multi-domains", "flipping-endianness", "lttng-tracefile-rotation"]


def bench_model(traces, runs):
    if not traces:
        base = os.path.abspath(os.path.join(ROOT, "..", "shared", "traces", "ctf"))
        traces = [os.path.join(base, n) for n in SMALL_LTTNG if os.path.isdir(os.path.join(base, n))]
    label, model = "same_tid futex entry->exit", MODELS["same_tid futex entry->exit"]
    print(f"\nanalyze ({label}) minus dump --format none --no-payload, least CPU of {runs} alternated runs")
    print(f"  {'trace':<28} {'events':>9} {'read ns/ev':>11} {'analyze ns/ev':>14} {'model ns/ev':>12}")
    for t in traces:
        n = count_events(t)
        read = ana = None
        for _ in range(runs):
            c, _, _ = measure([SEXTANT, "dump", t, "--format", "none", "--no-payload", "--jobs", "1"], 1)
            read = c if read is None else min(read, c)
            c, _, _ = measure(analyze_cmd(t, model), 1)
            ana = c if ana is None else min(ana, c)
        print(f"  {os.path.basename(t):<28} {n:9,} {read / n * 1e9:11.1f} {ana / n * 1e9:14.1f} {(ana - read) / n * 1e9:12.1f}")
    print(f"  (load average {os.getloadavg()[0]:.1f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["read", "analyze", "threads", "model", "tracedat", "tasks"])
    ap.add_argument("traces", nargs="*")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="threads of the parallel rows (read)")
    a = ap.parse_args()
    if not os.path.exists(SEXTANT):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    if a.what == "threads":
        return bench_threads(a.traces, a.runs)
    if a.what == "model":
        return bench_model(a.traces, max(a.runs, 7))
    if a.what == "tracedat":
        traces = a.traces or ["/tmp/sextant-large.dat"]
        print(f"{'':<46}{'CPU':>10} {'rate':>14} {'ratio':>7} {'peak RSS':>12}")
        return bench_tracedat(traces, a.runs)
    traces = a.traces or default_traces()
    if not traces:
        sys.exit("no trace: give one, or record /tmp/sextant-large-ctf with tests/bench/record-large.sh")
    print(f"{'':<46}{'CPU':>10} {'rate':>14} {'ratio':>7} {'peak RSS':>12}")
    if not GNU_TIME:
        print("(peak RSS includes this script's own: install GNU time for exact figures)")
    if a.what == "read":
        bench_read(traces, a.runs, a.jobs)
    elif a.what == "tasks":
        bench_tasks(traces, a.runs)
    else:
        bench_analyze(traces, a.runs)


if __name__ == "__main__":
    main()
