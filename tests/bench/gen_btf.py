#!/usr/bin/env python3
"""Writes a large synthetic BTF trace for the benchmark (tests/bench/btf.py).

  tests/bench/gen_btf.py OUT [--rows N] [--cores C] [--tasks T] [--seed S]

A fixed-priority scheduler on C cores, simulated step by step: periodic tasks
activated by timer stimuli, started, preempted by more urgent ones, resumed,
waiting on and released from OS events, polling a semaphore, terminating;
each instance runs a few runnables (suspended and resumed with it); signals
written. Every row follows the BTF state machines, so the model does its
full work. Times in ns, one row per line, about 45 bytes a row.
"""

import argparse
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=20_000_000)
    ap.add_argument("--cores", type=int, default=4)
    ap.add_argument("--tasks", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    # Each task: name, core, priority (larger is more urgent), period (ns).
    tasks = []
    for k in range(a.tasks):
        period = rnd.choice([1, 2, 5, 10, 20]) * 1_000_000
        tasks.append((f"TASK_{k:03d}_{period // 1_000_000}MS", k % a.cores, rnd.randint(1, 50), period))
    instance = [0] * a.tasks
    # Per core: the tasks ready (activated or preempted), the one running
    # and when it ends; per task: remaining work (ns) and its runnable.
    ready = [[] for _ in range(a.cores)]
    running = [None] * a.cores
    remaining = [0] * a.tasks
    started = [False] * a.tasks
    runnable = [0] * a.tasks
    next_release = [rnd.randrange(t[3]) for t in tasks]
    out = open(a.out, "w", buffering=1 << 22)
    out.write("#version 2.2.0\n#creator sextant tests/bench/gen_btf.py\n#creationDate 2026-01-01T00:00:00Z\n#timeScale ns\n")
    out.write("# a synthetic fixed-priority system, generated for the benchmark\n")
    rows = 0
    now = 0
    w = []

    def emit(line):
        nonlocal rows
        w.append(line)
        rows += 1
        if len(w) >= 4096:
            out.write("".join(w))
            w.clear()

    def advance(ns):
        # Every core's work goes on meanwhile (a task due to end in the gap
        # ends just after it); activations due in it come late.
        nonlocal now
        now += ns
        for c in range(a.cores):
            if running[c] is not None:
                remaining[running[c]] = max(1, remaining[running[c]] - ns)

    def dispatch(c, t):
        # The most urgent ready task of core c runs.
        if not ready[c]:
            running[c] = None
            return
        ready[c].sort(key=lambda k: -tasks[k][2])
        k = ready[c].pop(0)
        name = tasks[k][0]
        inst = instance[k]
        action = "resume" if started[k] else "start"
        started[k] = True
        emit(f"{t},Core_{c},0,T,{name},{inst},{action}\n")
        emit(f"{t},{name},{inst},R,RUN_{k:03d}_{runnable[k]},{inst},{'resume' if action == 'resume' else 'start'}\n")
        running[c] = k

    while rows < a.rows:
        # The next activation, and the end of the running tasks' work.
        k_next = min(range(a.tasks), key=lambda k: next_release[k])
        t_act = max(next_release[k_next], now)
        c_end, t_end = None, None
        for c in range(a.cores):
            k = running[c]
            if k is not None and (t_end is None or now + remaining[k] < t_end):
                c_end, t_end = c, now + remaining[k]
        if t_end is not None and t_end <= t_act:
            for c in range(a.cores):
                if running[c] is not None:
                    remaining[running[c]] -= t_end - now
            now = t_end
            k = running[c_end]
            name, inst = tasks[k][0], instance[k]
            if runnable[k] < 2:
                # The next runnable of the instance, sometimes after waiting
                # for an OS event, polling a semaphore or writing a signal.
                emit(f"{now},{name},{inst},R,RUN_{k:03d}_{runnable[k]},{inst},terminate\n")
                runnable[k] += 1
                remaining[k] = rnd.randint(20_000, 200_000)
                roll = rnd.random()
                if roll < 0.1:
                    emit(f"{now},{name},{inst},EVENT,EV_{k:03d},0,wait_event\n")
                    emit(f"{now},Core_{c_end},0,T,{name},{inst},wait\n")
                    advance(5_000)
                    emit(f"{now},{name},{inst},EVENT,EV_{k:03d},0,set_event,{name}\n")
                    emit(f"{now},Core_{c_end},0,T,{name},{inst},release\n")
                    emit(f"{now},Core_{c_end},0,T,{name},{inst},resume\n")
                elif roll < 0.15:
                    emit(f"{now},Core_{c_end},0,T,{name},{inst},poll\n")
                    advance(2_000)
                    emit(f"{now},Core_{c_end},0,T,{name},{inst},run\n")
                elif roll < 0.4:
                    emit(f"{now},{name},{inst},SIG,SIG_{k % 7},0,write,{rnd.randint(0, 1000)}\n")
                emit(f"{now},{name},{inst},R,RUN_{k:03d}_{runnable[k]},{inst},start\n")
                continue
            emit(f"{now},{name},{inst},R,RUN_{k:03d}_{runnable[k]},{inst},terminate\n")
            emit(f"{now},Core_{c_end},0,T,{name},{inst},terminate\n")
            instance[k] += 1
            started[k] = False
            dispatch(c_end, now)
            continue
        t_act = max(t_act, now)
        for c in range(a.cores):
            if running[c] is not None:
                remaining[running[c]] -= t_act - now
        now = t_act
        k = k_next
        name, c, prio, period = tasks[k]
        next_release[k] += period
        if started[k] or k in ready[c] or running[c] == k:
            emit(f"{now},TIMER_{k:03d},{instance[k]},T,{name},{instance[k]},mtalimitexceeded\n")
            continue
        emit(f"{now},SIM,0,STI,TIMER_{k:03d},{instance[k]},trigger\n")
        emit(f"{now},TIMER_{k:03d},{instance[k]},T,{name},{instance[k]},activate\n")
        remaining[k] = rnd.randint(20_000, 300_000)
        runnable[k] = 0
        ready[c].append(k)
        cur = running[c]
        if cur is None:
            dispatch(c, now)
        elif tasks[cur][2] < prio:
            cname, cinst = tasks[cur][0], instance[cur]
            emit(f"{now},{cname},{cinst},R,RUN_{cur:03d}_{runnable[cur]},{cinst},suspend\n")
            emit(f"{now},Core_{c},0,T,{cname},{cinst},preempt\n")
            ready[c].append(cur)
            dispatch(c, now)
    out.write("".join(w))
    out.close()
    print(f"{a.out}: {rows:,} rows")


if __name__ == "__main__":
    main()
