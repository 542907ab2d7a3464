#!/usr/bin/env bash
# Starts N sextant workers (datafusion-distributed) as separate processes on
# 127.0.0.1, each on a free port, and prints as its last line the URL list to
# give `sextant sql --cluster` once every worker answers. Stays in the
# foreground; stops them all on exit, Ctrl-C or SIGTERM.
#
#   tests/cluster/local.sh 2
#   sextant sql --cluster http://127.0.0.1:PORT1/,http://127.0.0.1:PORT2/ "SELECT ..." TRACES
#
# The binary: $SEXTANT_BIN, else target/ci/sextant, else target/release/sextant.
# Each worker's log (the partitions it executes) goes to this script's
# standard error, each line prefixed with the worker's number.
set -euo pipefail
cd "$(dirname "$0")/../.."

n=${1:?usage: tests/cluster/local.sh N}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "local.sh: N must be a positive number, not '$n'" >&2; exit 2; }
bin=${SEXTANT_BIN:-}
if [ -z "$bin" ]; then
    target=${CARGO_TARGET_DIR:-target}
    for candidate in "$target/ci/sextant" "$target/release/sextant"; do
        [ -x "$candidate" ] && { bin=$candidate; break; }
    done
fi
[ -n "$bin" ] && [ -x "$bin" ] || {
    echo "local.sh: no sextant binary (set SEXTANT_BIN, or cargo build --profile ci)" >&2
    exit 2
}

dir=$(mktemp -d)
pids=()
stop() {
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap stop EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

for i in $(seq 1 "$n"); do
    # stdout: the URL once listening; stderr: its log, prefixed.
    "$bin" worker --listen 127.0.0.1:0 >"$dir/url.$i" 2> >(sed -u "s/^/worker $i: /" >&2) &
    pids+=("$!")
done

urls=()
for i in $(seq 1 "$n"); do
    for _ in $(seq 1 300); do
        [ -s "$dir/url.$i" ] && break
        kill -0 "${pids[$((i - 1))]}" 2>/dev/null || { echo "local.sh: worker $i exited" >&2; exit 1; }
        sleep 0.1
    done
    url=$(head -n 1 "$dir/url.$i")
    [ -n "$url" ] || { echo "local.sh: worker $i printed no URL in 30 s" >&2; exit 1; }
    # Answers: accepts a TCP connection on its port.
    hostport=${url#http://}
    hostport=${hostport%/}
    if ! (exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}") 2>/dev/null; then
        echo "local.sh: worker $i ($url) does not answer" >&2
        exit 1
    fi
    urls+=("$url")
done

echo "$n workers: stop them with Ctrl-C or SIGTERM; give sextant sql --cluster:"
(IFS=,; echo "${urls[*]}")
# In the foreground until a worker ends or the script is told to stop.
wait -n "${pids[@]}" || true
echo "local.sh: a worker exited; stopping the others" >&2
exit 1
