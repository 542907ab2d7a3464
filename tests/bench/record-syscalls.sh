#!/bin/sh
# Record a raw_syscalls-heavy perf trace (a few million events, most of them
# raw_syscalls:sys_enter/sys_exit, whose payload is an array of six 64-bit
# arguments) and convert it to CTF, for `bench.py read` (issue 32: the
# reader's ratio to babeltrace2 on a recording it was not tuned on). Not
# committed data: the output goes to $1 (default /tmp/sextant-syscalls-ctf).
# Idempotent: an existing output is not recorded again. Prints the event
# count (babeltrace2 | wc -l).
#
# Workload: stress-ng --switch 2 (context switches through pipes) for
# $SECONDS_ seconds (default 3) on CPU 0; perf record on CPU 1 so that it
# drains its buffers. Events: sched_switch, sched_waking, sched_wakeup,
# raw_syscalls:sys_enter/sys_exit (except perf record's own).
#
# usage: sudo tests/bench/record-syscalls.sh [OUTDIR]
# needs: perf, stress-ng, babeltrace2 (apt-get install linux-perf stress-ng babeltrace2)
set -eu
OUT=${1:-/tmp/sextant-syscalls-ctf}
SECONDS_=${SECONDS_:-3}

. "$(cd "$(dirname "$0")" && pwd)/recording.sh"
recorded count_ctf "perf -a"
command -v stress-ng >/dev/null || { echo "stress-ng is missing: apt-get install stress-ng" >&2; exit 1; }

TMP=$(mktemp -d /tmp/sextant-syscalls.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# perf's own system calls (its writes to perf.data) would feed back into
# the trace: filtered out by its pid, which the inner shell execs into.
cat > "$TMP/record.sh" <<REC
#!/bin/sh
F="common_pid != \$\$"
exec nice -n -10 taskset -c 1 perf record -k CLOCK_MONOTONIC -a --mmap-pages 65536 -o "$TMP/perf.data" \\
    -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \\
    -e raw_syscalls:sys_enter --filter "\$F" -e raw_syscalls:sys_exit --filter "\$F" \\
    -- taskset -c 0 stress-ng --switch 2 --timeout ${SECONDS_}s --quiet
REC
sh "$TMP/record.sh"

mkdir -p "$(dirname "$OUT")"
rm -rf "$OUT.partial"
perf data convert --to-ctf "$OUT.partial" -i "$TMP/perf.data"
mv "$OUT.partial" "$OUT"
count_ctf
