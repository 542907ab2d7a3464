#!/bin/sh
# Record a LARGE trace.dat with trace-cmd (the workload of record-large.sh),
# for benchmarking sextant's trace.dat reader against `trace-cmd report`
# (tests/bench/bench.py tracedat).  Not committed data: the output goes to
# $1 (default /tmp/sextant-large.dat).  Idempotent: if the output already
# exists, nothing is recorded.  Prints the event count (trace-cmd report).
#
# Workload, on CPU 0: scenario_b (fixtures/scenario-b/scenario.c, a FIFO timer
# creating a worker every 250 us) and `perf bench sched messaging` in threaded
# pipe mode.  Events: sched_*, hrtimer_*, syscalls read/write/futex/
# clock_nanosleep/clone3 (except trace-cmd's own).  trace-cmd 3.1 records in
# this sandbox only with `-d --no-filter` and then exits with an error while
# clearing set_ftrace_filter, after the file is complete (hence `|| true`).
#
# usage: sudo tests/bench/record-large-tracedat.sh [OUT]
# env:   TICKS (scenario_b ticks, default 12000), LOOPS (hackbench loops,
#        default 500), GROUPS_ (hackbench groups, default 4), COMPRESSION
#        (trace-cmd --compression: zstd (its default here) or none)
set -eu
OUT=${1:-/tmp/sextant-large.dat}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC="$HERE/../../fixtures/scenario-b/scenario.c"
TICKS=${TICKS:-12000}
LOOPS=${LOOPS:-500}
GROUPS_=${GROUPS_:-4}
COMPRESSION=${COMPRESSION:-zstd}

count() {
    echo "events: $(trace-cmd report -i "$OUT" 2>/dev/null | grep -vc '^cpus=') in $OUT ($(du -h "$OUT" | cut -f1))"
}

. "$HERE/recording.sh"
recorded count "tracing, SCHED_FIFO"

TMP=$(mktemp -d /tmp/sextant-large-tracedat.XXXXXX)
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

F='common_pid != '$$
SYS=""
for s in read write futex clock_nanosleep clone3; do
    SYS="$SYS -e syscalls:sys_enter_$s -f '$F' -e syscalls:sys_exit_$s -f '$F'"
done
# trace-cmd on CPU 1, the workload on CPU 0; 64 MB of ring buffer per CPU.
eval nice -n -10 taskset -c 1 trace-cmd record -d --no-filter -C mono -b 65536 \
    --compression "$COMPRESSION" -o "$OUT.partial" \
    -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \
    -e sched:sched_wakeup_new -e sched:sched_process_fork \
    -e sched:sched_process_exit -e sched:sched_process_free \
    -e sched:sched_pi_setprio \
    -e timer:hrtimer_start -e timer:hrtimer_expire_entry \
    -e timer:hrtimer_expire_exit -e timer:hrtimer_cancel \
    "$SYS" "$TMP/workload.sh" >/dev/null 2>&1 || true
mv "$OUT.partial" "$OUT"
count
