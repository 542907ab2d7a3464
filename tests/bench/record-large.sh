#!/bin/sh
# Record a LARGE real trace (a few million events) with perf and convert it to
# CTF, for benchmarking sextant.  Not committed data: the output goes to
# $1 (default /tmp/sextant-large-ctf).  Idempotent: if the output already
# exists, nothing is recorded.  Prints the event count (babeltrace2 | wc -l).
#
# Workload (about 3-5 s, on CPU 0):
#   * scenario_b (fixtures/scenario-b/scenario.c) with 12000 ticks (3 s):
#     SCHED_FIFO timer creating a short-lived worker thread every 250 us,
#     plus the rt_hog bursts, all pinned to CPU 0;
#   * perf bench sched messaging (hackbench) in threaded pipe mode, pinned to
#     CPU 0 with taskset.
# Events: sched_* (switch, waking, wakeup, wakeup_new, fork, exit, free,
# pi_setprio), hrtimer_*, and syscalls read/write/futex/clock_nanosleep/
# clone3/mq_* (system-wide, except perf record's own syscalls).
# Tested: ~3.5 M events, no loss, 272 MB of CTF, ~75 s including the
# conversion (perf 6.1, kernel 6.18, 2 vCPUs).
#
# usage: sudo tests/bench/record-large.sh [OUTDIR]
# env:   TICKS (scenario_b ticks, default 12000), LOOPS (hackbench loops,
#        default 500), GROUPS_ (hackbench groups, default 4)
set -eu
OUT=${1:-/tmp/sextant-large-ctf}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC="$HERE/../../fixtures/scenario-b/scenario.c"
TICKS=${TICKS:-12000}
LOOPS=${LOOPS:-500}
GROUPS_=${GROUPS_:-4}

. "$HERE/recording.sh"
recorded count_ctf "perf -a, SCHED_FIFO"

TMP=$(mktemp -d /tmp/sextant-large.XXXXXX)
OLD_RT_RUNTIME=$(cat /proc/sys/kernel/sched_rt_runtime_us)
cleanup() {
    echo "$OLD_RT_RUNTIME" > /proc/sys/kernel/sched_rt_runtime_us
    rm -rf "$TMP"
}
trap cleanup EXIT
echo -1 > /proc/sys/kernel/sched_rt_runtime_us

gcc -O2 -o "$TMP/scenario_b" "$SRC" -lrt -lpthread

cat > "$TMP/workload.sh" <<WL
#!/bin/sh
"$TMP/scenario_b" "$TMP/ground-truth.tsv" $TICKS &
taskset -c 0 perf bench sched messaging -p -t -g $GROUPS_ -l $LOOPS >/dev/null
wait
WL
chmod +x "$TMP/workload.sh"

# perf itself runs on CPU 1, the workload on CPU 0, so that perf can drain
# its buffers (with the workload on both CPUs perf lost ~45% of the events);
# 256 MB ring buffer per CPU and nice -10 so that a busy CPU 1 does not make
# perf lose events either.
# The syscall events exclude perf record's own pid: otherwise its write()s
# to perf.data are traced too and feed back into the trace.
cat > "$TMP/record.sh" <<REC
#!/bin/sh
F="common_pid != \$\$"
exec nice -n -10 taskset -c 1 perf record -k CLOCK_MONOTONIC -a --mmap-pages 65536 -o "$TMP/perf.data" \\
    -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \\
    -e sched:sched_wakeup_new -e sched:sched_process_fork \\
    -e sched:sched_process_exit -e sched:sched_process_free \\
    -e sched:sched_pi_setprio \\
    -e timer:hrtimer_start -e timer:hrtimer_expire_entry \\
    -e timer:hrtimer_expire_exit -e timer:hrtimer_cancel \\
    -e syscalls:sys_enter_read --filter "\$F" -e syscalls:sys_exit_read --filter "\$F" \\
    -e syscalls:sys_enter_write --filter "\$F" -e syscalls:sys_exit_write --filter "\$F" \\
    -e syscalls:sys_enter_futex --filter "\$F" -e syscalls:sys_exit_futex --filter "\$F" \\
    -e syscalls:sys_enter_clock_nanosleep --filter "\$F" -e syscalls:sys_exit_clock_nanosleep --filter "\$F" \\
    -e syscalls:sys_enter_clone3 --filter "\$F" -e syscalls:sys_exit_clone3 --filter "\$F" \\
    -e syscalls:sys_enter_mq_timedsend --filter "\$F" -e syscalls:sys_exit_mq_timedsend --filter "\$F" \\
    -e syscalls:sys_enter_mq_timedreceive --filter "\$F" -e syscalls:sys_exit_mq_timedreceive --filter "\$F" \\
    -- "$TMP/workload.sh"
REC
sh "$TMP/record.sh"

mkdir -p "$(dirname "$OUT")"
rm -rf "$OUT.partial"
perf data convert --to-ctf "$OUT.partial" -i "$TMP/perf.data"
mv "$OUT.partial" "$OUT"
count_ctf
