#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, Rust unit and integration
# tests (conformance against babeltrace2 on ../shared traces when present), the
# Node end-to-end test of `sextant serve` with the real TypeScript client, the
# views drawn by the viewer's timeline-chart in Chromium, and every fuzz target
# for a few seconds.
# This is exactly what CI runs (.ci/run). It installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's heading, and how long the one before it took (where a cold
# run's time goes: compiling, installing, testing).
step_name=""
step_started=$(date +%s)
step() {
    local now
    now=$(date +%s)
    [ -z "$step_name" ] || echo "   ($step_name: $((now - step_started)) s)"
    step_name=$1
    step_started=$now
    echo "== $1"
}

# The decoding oracle: babeltrace2 and its Python bindings, from Debian.
if ! /usr/bin/python3 -c 'import bt2' 2>/dev/null || ! command -v babeltrace2 >/dev/null; then
    step "installing babeltrace2 (decoding oracle)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq babeltrace2 python3-bt2 >/dev/null
fi
# The trace.dat oracle: trace-cmd report (engine/tests/tracedat.rs).
if ! command -v trace-cmd >/dev/null; then
    step "installing trace-cmd (trace.dat oracle)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq trace-cmd >/dev/null
fi

# The shells whose completion scripts protocol/tests/shell.rs runs (bash is
# always there), and man to render the man page.
if ! command -v zsh >/dev/null || ! command -v fish >/dev/null || ! command -v man >/dev/null; then
    step "installing zsh, fish and man (completion and man page tests)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq zsh fish man-db >/dev/null
fi
# The witness that a repeated `sextant sql` reads no trace (protocol/tests/sql.rs).
if ! command -v strace >/dev/null; then
    step "installing strace (sql store test)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq strace >/dev/null
fi

step "cargo fmt --check"
cargo fmt --all -- --check
step "cargo clippy"
cargo clippy --workspace --all-targets --profile ci -- -D warnings
step "cargo test"
# Stores written beside the fixtures after this moment are a failure (below).
started=$(mktemp)
log=$(mktemp)
nodelog=$(mktemp)
javalog=$(mktemp)
eclipselog=$(mktemp)
browserlog=$(mktemp)
trap 'rm -f "$started" "$log" "$nodelog" "$javalog" "$eclipselog" "$browserlog"' EXIT
# Every test binary runs (--no-fail-fast): one failure does not hide the
# others. Failures are counted in the summary, as the other steps' are.
cargo_rc=0
cargo test --workspace --profile ci --no-fail-fast 2>&1 | tee "$log" || cargo_rc=$?
# The real TypeScript client (tsp-typescript-client, what the VS Code Trace
# Viewer uses) against the binary built above (profile ci, Cargo.toml). Its failures are
# counted in the summary rather than stopping the script here.
step "node tests (tests/node)"
node_rc=0
# The binary cargo test just built, wherever CARGO_TARGET_DIR puts it.
target_dir=$(cargo metadata --format-version 1 --no-deps | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export SEXTANT_BIN="$target_dir/ci/sextant"
(cd tests/node && npm ci --no-audit --no-fund && npm test) 2>&1 | tee "$nodelog" || node_rc=$?
# The same binary drawn by timeline-chart (the viewer's drawing library) in
# Debian's Chromium through puppeteer-core (tests/browser/README.md);
# screenshots in target/browser/. Counted like the node tests.
if ! command -v chromium >/dev/null; then
    step "installing chromium (browser test)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
step "browser tests (tests/browser)"
browser_rc=0
(cd tests/browser && npm ci --no-audit --no-fund && npm test) 2>&1 | tee "$browserlog" || browser_rc=$?
# The scripted JSON-RPC client (Python standard library, sextant serve --stdio), one test.
step "python example client (tests/python)"
py_result="ok. 1 passed; 0 failed"
/usr/bin/python3 tests/python/example_client.py "$SEXTANT_BIN" || py_result="FAILED. 0 passed; 1 failed"
echo "test result: $py_result (example_client.py)" >> "$log"
# The load test (tests/load): 100 clients over HTTP, WebSocket and stdio for
# 20 s, with disconnects, a trace truncated and one deleted while served,
# and SIGTERM with a request in flight. One test; its report is printed.
step "load test (tests/load, 20 s)"
load_result="ok. 1 passed; 0 failed"
/usr/bin/python3 tests/load/load.py --duration 20 --binary "$SEXTANT_BIN" || load_result="FAILED. 0 passed; 1 failed"
echo "test result: $load_result (load.py)" >> "$log"
# sextant export read back by pyarrow, pandas and DuckDB (installed from PyPI
# into a virtual environment under target/ by the script); it prints its own
# "test result:" line, or counts as one failure when it could not run.
step "python exports (tests/python/test_exports.py)"
# A Python test script against the binary, counted from its last line, or
# as one failure when it could not say.
python_script() {
    local out
    out=$(mktemp)
    /usr/bin/python3 "tests/python/$1" "$SEXTANT_BIN" 2>&1 | tee "$out" || true
    grep '^test result:' "$out" >> "$log" || echo "test result: FAILED. 0 passed; 1 failed ($1)" >> "$log"
    rm -f "$out"
}
python_script test_exports.py
# The Python package (python/: PyO3 + maturin), installed as a user does
# (`pip install ./python`, built in the workspace's target directory with
# the ci profile) into a virtual environment under target/ with the readers
# its tests compare through (pandas, polars, DuckDB, Dask); python/tests
# compare every table with the CLI's JSON. Counted from pytest's report.
# --force-reinstall: the package's version does not change with the source.
step "python package (python/tests)"
pyenv=target/python-package
junit=$(mktemp)
py_pkg_rc=0
{
    { [ -x "$pyenv/bin/python" ] || /usr/bin/python3 -m venv "$pyenv"; } &&
    "$pyenv/bin/pip" install -q --disable-pip-version-check pyarrow pytest pandas polars duckdb "dask[distributed]" matplotlib &&
    "$pyenv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./python &&
    PYTHONDONTWRITEBYTECODE=1 "$pyenv/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$junit" python/tests
} || py_pkg_rc=$?
/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as ET
try:
    s = ET.parse(sys.argv[1]).getroot()
    s = s if s.tag == "testsuite" else s.find("testsuite")
    bad = int(s.get("failures")) + int(s.get("errors"))
    ok = int(s.get("tests")) - int(s.get("skipped")) - bad
except Exception:
    ok, bad = 0, 1
if bad == 0 and int(sys.argv[2]) != 0:
    bad = 1
word = "ok" if bad == 0 else "FAILED"
print(f"test result: {word}. {ok} passed; {bad} failed (python/tests)")' "$junit" "$py_pkg_rc" >> "$log"
tail -n 1 "$log"
rm -f "$junit"
# sextant export --dataset (Hive-partitioned Parquet of a folder of traces)
# read as one dataset by pyarrow and DuckDB, and sextant sql's Parquet
# answers; same packages, same counting.
step "python dataset (tests/python/test_dataset.py)"
python_script test_dataset.py
# Every cargo-fuzz target (engine/fuzz, protocol/fuzz) for 15 s from the
# seeds kept in the repository, built with AddressSanitizer in target/fuzz
# on the stable toolchain (RUSTC_BOOTSTRAP=1; tests/fuzz.sh installs
# cargo-fuzz). It prints its own "test result:" line (one test per target);
# a crash, timeout or out-of-memory input, or a failure to install or build,
# is a failure (the input is left in <crate>/fuzz/artifacts/).
step "fuzz targets (tests/fuzz.sh, 15 s each)"
fuzz_log=$(mktemp)
tests/fuzz.sh 15 2>&1 | tee "$fuzz_log" || true
grep '^test result:' "$fuzz_log" | tail -n 1 >> "$log" || echo "test result: FAILED. 0 passed; 1 failed (tests/fuzz.sh)" >> "$log"
rm -f "$fuzz_log"
# The Trace Compass plugin's Java core (tc-plugin) with Maven and a JDK from
# Debian: unit tests, and integration tests against the same binary
# (SEXTANT_BIN above). Counted from surefire's reports.
if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
    step "installing maven and a JDK (tc-plugin)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq maven default-jdk-headless >/dev/null
fi
step "java tests (tc-plugin)"
java_rc=0
rm -rf tc-plugin/target/surefire-reports
mvn -B -q -f tc-plugin/pom.xml test || java_rc=$?
/usr/bin/python3 -c 'import glob, xml.etree.ElementTree as ET
s = [ET.parse(x).getroot() for x in glob.glob("tc-plugin/target/surefire-reports/TEST-*.xml")]
bad = sum(int(t.get("failures")) + int(t.get("errors")) for t in s)
print("java:", sum(int(t.get("tests")) - int(t.get("skipped")) for t in s) - bad, bad)' > "$javalog"
# The plugin's Eclipse side: the Tycho build and its tests in a real Trace
# Compass workbench under Xvfb, against the same binary (tc-plugin/verify.sh
# fetches Maven 3.9, the Trace Compass bundles and Xvfb, cached). Its last
# line, "verify: N passed, M failed", is counted below.
step "eclipse tests (tc-plugin/verify.sh)"
eclipse_rc=0
tc-plugin/verify.sh 2>&1 | tee "$eclipselog" || eclipse_rc=$?
# No test writes a store beside the repository's fixtures: sextant stores in
# the cache directory, which every test sets to one of its own.
step "no store beside the fixtures"
beside=$(find fixtures -name '*.sextant' -newer "$started" -prune -print)
if [ -n "$beside" ]; then
    echo "stores written beside the fixtures: $beside"
    echo "test result: FAILED. 0 passed; 1 failed (stores beside fixtures)" >> "$log"
else
    echo "test result: ok. 1 passed; 0 failed (no store beside fixtures)" >> "$log"
fi
step "summary"
# One closing line for the whole run, summed over every test binary, the
# node test runner's "# pass N" / "# fail N" (node and browser tests), the
# Java tests and the workbench tests (a node, browser, Maven or verify step
# that fails before reporting, e.g. npm ci, counts as one failure).
awk -v cargo_rc="$cargo_rc" -v node_rc="$node_rc" -v java_rc="$java_rc" -v eclipse_rc="$eclipse_rc" -v browser_rc="$browser_rc" '
     FILENAME == ARGV[1] && /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) { f += $i; cf += $i } } }
     FILENAME == ARGV[2] && $1 == "#" && NF == 3 && $2 == "pass" { p += $3 }
     FILENAME == ARGV[2] && $1 == "#" && NF == 3 && $2 == "fail" { f += $3; nf += $3 }
     FILENAME == ARGV[3] && $1 == "java:" { p += $2; f += $3; jf += $3 }
     FILENAME == ARGV[4] && $1 == "verify:" && $3 == "passed," { p += $2; f += $4; ef += $4; seen = 1 }
     FILENAME == ARGV[5] && $1 == "#" && NF == 3 && $2 == "pass" { p += $3 }
     FILENAME == ARGV[5] && $1 == "#" && NF == 3 && $2 == "fail" { f += $3; bf += $3 }
     END { if (cargo_rc != 0 && cf == 0) f += 1
           if (node_rc != 0 && nf == 0) f += 1
           if (java_rc != 0 && jf == 0) f += 1
           if (!seen || (eclipse_rc != 0 && ef == 0)) f += 1
           if (browser_rc != 0 && bf == 0) f += 1
           printf "all: %d passed, %d failed\n", p, f; exit (f > 0) }' "$log" "$nodelog" "$javalog" "$eclipselog" "$browserlog"
