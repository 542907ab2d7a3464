#!/bin/sh
# Record the two traces of the thread-count benchmark (`bench.py threads`):
# the same token ring (tests/bench/threads.c) run by many threads and by a
# few, recorded with perf as record-large.sh records (system-wide, workload
# on CPU 0, perf on CPU 1) and converted to CTF. Not committed data: the
# outputs go to $1 and $2 (default /tmp/sextant-threads-many and
# /tmp/sextant-threads-few). Idempotent: an existing output is kept.
#
# usage: sudo tests/bench/record-threads.sh [MANY_OUT [FEW_OUT]]
# env:   MANY (threads of the many-thread ring, default 10000), FEW (default 8),
#        HOPS (token passes in each, default 300000)
# Events: sched_* (switch, waking, wakeup, wakeup_new, fork, exit, free),
# syscalls futex and clone3 (system-wide, except perf record's own syscalls).
set -eu
MANY_OUT=${1:-/tmp/sextant-threads-many}
FEW_OUT=${2:-/tmp/sextant-threads-few}
HERE=$(cd "$(dirname "$0")" && pwd)
MANY=${MANY:-10000}
FEW=${FEW:-8}
HOPS=${HOPS:-300000}

[ "$(id -u)" -eq 0 ] || { echo "must run as root (perf -a)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/sextant-threads.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -o "$TMP/threads" "$HERE/threads.c" -lpthread

record() { # OUT NTHREADS
    if [ -e "$1" ]; then
        echo "$1 exists, not recording again (remove it to re-record)"
    else
        cat > "$TMP/record.sh" <<REC
#!/bin/sh
F="common_pid != \$\$"
exec nice -n -10 taskset -c 1 perf record -k CLOCK_MONOTONIC -a --mmap-pages 65536 -o "$TMP/perf.data" \\
    -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \\
    -e sched:sched_wakeup_new -e sched:sched_process_fork \\
    -e sched:sched_process_exit -e sched:sched_process_free \\
    -e syscalls:sys_enter_futex --filter "\$F" -e syscalls:sys_exit_futex --filter "\$F" \\
    -e syscalls:sys_enter_clone3 --filter "\$F" -e syscalls:sys_exit_clone3 --filter "\$F" \\
    -- taskset -c 0 "$TMP/threads" $2 $HOPS
REC
        sh "$TMP/record.sh"
        rm -rf "$1.partial"
        perf data convert --to-ctf "$1.partial" -i "$TMP/perf.data"
        mv "$1.partial" "$1"
        rm -f "$TMP/perf.data"
    fi
    echo "events: $(babeltrace2 "$1" | wc -l) in $1 ($(du -sh "$1" | cut -f1))"
}

record "$MANY_OUT" "$MANY"
record "$FEW_OUT" "$FEW"
