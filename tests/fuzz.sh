#!/usr/bin/env bash
# Runs every cargo-fuzz target of the repository for SECONDS each (default
# 20), one after the other: the readers' (engine/fuzz) and the protocol's
# (protocol/fuzz). Installs what it needs: the nightly toolchain (rustup)
# and cargo-fuzz (crates.io). Each target starts from the seeds kept in the
# repository (<crate>/fuzz/seeds/<target>, plus engine/fuzz/seed.py's
# generated CTF corpora) and its own corpus (gitignored), uses its
# dictionary when it has one, and fails on a crash, a timeout (10 s per
# input) or running out of memory; the input that did it is left in
# <crate>/fuzz/artifacts/<target>/.
#
#   tests/fuzz.sh [SECONDS] [TARGET...]
#
# Long runs by hand, one target at a time on a shared machine:
#   nice -n 19 tests/fuzz.sh 1200 rpc
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
only=("$@")

if ! rustup toolchain list | grep -q '^nightly'; then
    echo "== installing the nightly toolchain (cargo-fuzz needs it)"
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
# One target directory for both crates: the engine is built once.
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$PWD/target/fuzz}

passed=0
failed=0
for crate in engine/fuzz protocol/fuzz; do
    if [ "$crate" = engine/fuzz ] && [ ! -d engine/fuzz/corpus/stream ]; then
        (cd engine/fuzz && python3 seed.py)
    fi
    for t in $(cd "$crate" && cargo +nightly fuzz list); do
        if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " =~ " $t " ]]; then
            continue
        fi
        corpus=(corpus/"$t")
        [ -d "$crate/seeds/$t" ] && corpus+=(seeds/"$t")
        mkdir -p "$crate/corpus/$t"
        dict=()
        for d in "$crate/fuzz_targets/$t.dict" "$crate/$t.dict"; do
            [ -f "$d" ] && dict=(-dict="${d#"$crate"/}")
        done
        if [ ${#dict[@]} -eq 0 ] && [ "$crate" = engine/fuzz ] && [[ "$t" = metadata || "$t" = stream ]]; then
            dict=(-dict=tsdl.dict)
        fi
        echo "== fuzz $crate $t for ${secs}s"
        if (cd "$crate" && cargo +nightly fuzz run "$t" "${corpus[@]}" -- \
                -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" 2>&1 | tail -n 25); then
            passed=$((passed + 1))
        else
            echo "FAILED: $crate $t (the input is in $crate/artifacts/$t/)"
            failed=$((failed + 1))
        fi
    done
done
if [ "$failed" -eq 0 ]; then
    echo "test result: ok. $passed passed; 0 failed (fuzz targets)"
else
    echo "test result: FAILED. $passed passed; $failed failed (fuzz targets)"
    exit 1
fi
