#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, Rust unit and integration
# tests (conformance against babeltrace2 on ../shared traces when present).
# This is exactly what CI runs (.ci/run). It installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

# The decoding oracle: babeltrace2 and its Python bindings, from Debian.
if ! /usr/bin/python3 -c 'import bt2' 2>/dev/null || ! command -v babeltrace2 >/dev/null; then
    echo "== installing babeltrace2 (decoding oracle)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq babeltrace2 python3-bt2 >/dev/null
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --release -- -D warnings
echo "== cargo test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --release 2>&1 | tee "$log"
# One closing line for the whole run, summed over every test binary.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "all: %d passed, %d failed\n", p, f; exit (f > 0) }' "$log"
