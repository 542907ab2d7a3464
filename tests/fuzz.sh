#!/usr/bin/env bash
# Runs every cargo-fuzz target of the repository for SECONDS each (default
# 20), one after the other: the readers' (engine/fuzz) and the protocol's
# (protocol/fuzz). Installs what it needs: cargo-fuzz (crates.io). Each
# target starts from the seeds kept in the repository
# (<crate>/fuzz/seeds/<target>, plus engine/fuzz/seed.py's generated CTF
# corpora) and its own corpus (gitignored), uses its dictionary when it has
# one, and fails on a crash, a timeout (10 s per input) or running out of
# memory (2 GiB); the input that did it is left in
# <crate>/fuzz/artifacts/<target>/.
#
# The toolchain is the default one (stable in CI) with RUSTC_BOOTSTRAP=1,
# which lets cargo-fuzz give rustc its unstable flags (AddressSanitizer,
# coverage instrumentation): nothing else to install, and the same compiler
# as the rest of CI. FUZZ_TOOLCHAIN=nightly uses a nightly instead
# (installed by rustup when absent). The targets are built in target/fuzz
# (FUZZ_TARGET_DIR to put them elsewhere). Any failure to install or build
# ends the script with an error; nothing is skipped.
#
#   tests/fuzz.sh [SECONDS] [TARGET...]
#
# CI (tests/run-all.sh) runs `tests/fuzz.sh 15`. Long runs by hand, at most
# one or two at a time on a shared machine:
#   FUZZ_CODEGEN_UNITS=1 FUZZ_OPT_LEVEL=3 nice -n 19 tests/fuzz.sh 1200 rpc
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
only=("$@")

toolchain=()
if [ -n "${FUZZ_TOOLCHAIN:-}" ]; then
    if ! rustup toolchain list | grep -q "^$FUZZ_TOOLCHAIN"; then
        echo "== installing the $FUZZ_TOOLCHAIN toolchain"
        rustup toolchain install "$FUZZ_TOOLCHAIN" --profile minimal
    fi
    toolchain=(+"$FUZZ_TOOLCHAIN")
else
    export RUSTC_BOOTSTRAP=1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --version 0.13.2 --locked
fi
# One target directory for both crates: what they share is built once (the
# engine twice: engine/fuzz turns on its `test-support` feature).
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$PWD/target/fuzz}
# cargo-fuzz builds each crate as one codegen unit unless told otherwise:
# the fastest fuzzing, but most of a cold CI run's fuzz time is that build.
# 16 units (cargo-fuzz's own suggestion for faster builds) cost some speed
# per input, which 15-second CI runs can spare; FUZZ_CODEGEN_UNITS=1 for
# long runs by hand.
cgu=${FUZZ_CODEGEN_UNITS:-16}
# Likewise at opt-level 1 rather than release's 3: the sanitizers'
# instrumentation makes optimisation the costliest part of compiling every
# dependency (arrow, parquet, tokio, axum) twice over, and a 15-second run
# needs coverage feedback more than speed per input. FUZZ_OPT_LEVEL=3 for
# long runs by hand.
export CARGO_PROFILE_RELEASE_OPT_LEVEL=${FUZZ_OPT_LEVEL:-1}

passed=0
failed=0
for crate in engine/fuzz protocol/fuzz; do
    if [ "$crate" = engine/fuzz ] && [ ! -d engine/fuzz/corpus/stream ]; then
        (cd engine/fuzz && python3 seed.py)
    fi
    # Not in the loop's head: a failing `cargo fuzz list` stops the script.
    targets=$(cd "$crate" && cargo "${toolchain[@]}" fuzz list)
    for t in $targets; do
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
        if (cd "$crate" && cargo "${toolchain[@]}" fuzz run --codegen-units "$cgu" "$t" "${corpus[@]}" -- \
                -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" 2>&1 | tail -n 25); then
            passed=$((passed + 1))
        else
            echo "FAILED: $crate $t (not built, or a finding: the input is in $crate/artifacts/$t/)"
            failed=$((failed + 1))
        fi
    done
done
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "test result: FAILED. 0 passed; 1 failed (fuzz targets: none ran)"
    exit 1
elif [ "$failed" -eq 0 ]; then
    echo "test result: ok. $passed passed; 0 failed (fuzz targets)"
else
    echo "test result: FAILED. $passed passed; $failed failed (fuzz targets)"
    exit 1
fi
