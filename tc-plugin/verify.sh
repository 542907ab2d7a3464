#!/usr/bin/env bash
# Builds the Eclipse bundle (Tycho) and runs its tests in a real Trace
# Compass 6.2 workbench under Xvfb, against the real `sextant serve --stdio`.
# Fetches everything it needs, pinned, into a cache that makes a second run
# fast (${SEXTANT_TC_CACHE:-~/.cache/sextant-tc}):
#   - Maven 3.9.9 from Maven Central (Tycho 4 needs Maven >= 3.9), checked
#     against its published SHA-512;
#   - Trace Compass 6.2 and the bundles it needs that Maven Central lacks,
#     as Debian bullseye .debs (`apt-get download` with an apt configuration
#     of its own: the system's sources and state are left alone), unpacked;
#   - Xvfb (xvfb-run), GTK 3 and xdotool from the system's apt when missing
#     (xdotool: the tests' double-click, through XTest like a mouse);
#   - Eclipse 4.34 and the rest from Maven Central, through Maven (the list
#     is eclipse/sextant.target).
# The sextant binary: $SEXTANT_BIN, else target/release/sextant (built with
# cargo when missing). Prints `verify: N passed, M failed` last.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
cache="${SEXTANT_TC_CACHE:-$HOME/.cache/sextant-tc}"
mkdir -p "$cache"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

MAVEN_VERSION=3.9.9
MAVEN_SHA512=a555254d6b53d267965a3404ecb14e53c3827c09c3b94b5678835887ab404556bfaf78dcfe03ba76fa2508649dca8531c74bca4d5846513522404d48e8c4ac8b
XVFB_VERSION="2:21.1.7-3+deb12u13"
XDOTOOL_VERSION="1:3.20160805.1-5"
GTK_VERSION="3.24.38-2~deb12u3"
# name=version of every bullseye package whose jars the target platform uses.
DEBS=(
    eclipse-tracecompass=6.2.0+repack-1
    libeclipse-cdt-java=9.9.0-5
    libeclipse-swtchart-java=0.13.0-4
    libswtchart-java=0.10.0-4
    libantlr3-runtime-java=3.5.2-9
    libeclipse-wst-common-core-java=1.3.0+eclipse3.18-5
    libeclipse-wst-common-emf-java=1.2.600+eclipse3.18-5
    libeclipse-wst-common-emfworkbench-integration-java=1.2.101+eclipse3.18-5
    libeclipse-wst-common-environment-java=1.0.400+eclipse3.18-5
    libeclipse-wst-common-frameworks-java=1.2.201+eclipse3.18-5
    libeclipse-wst-common-frameworks-ui-java=1.2.400+eclipse3.18-5
    libeclipse-wst-common-project-facet-core-java=1.4.400+eclipse3.18-5
    libeclipse-wst-common-ui-java=1.1.700+eclipse3.18-5
    libeclipse-wst-common-uriresolver-java=1.2.300+eclipse3.18-5
    libeclipse-wst-sse-core-java=1.2.400+eclipse3.18-5
    libeclipse-wst-sse-ui-java=1.7.0+eclipse3.18-5
    libeclipse-wst-validation-java=1.2.800+eclipse3.18-5
    libeclipse-wst-validation-ui-java=1.2.600+eclipse3.18-5
    libeclipse-wst-xml-core-java=1.2.200+eclipse3.18-5
    libeclipse-wst-xml-ui-java=1.2.400+eclipse3.18-5
    libeclipse-wst-xsd-core-java=1.2.0+eclipse3.18-5
    libeclipse-xsd-java=2.17.0+eclipse2.22.0-2
    libeclipse-jem-util-java=2.1.201+eclipse3.18-5
    libeclipse-emf-edit-java=2.16.0+eclipse2.24.0+dfsg-1
    libxerces2-java=2.12.1-1
    libxml-commons-resolver1.1-java=1.2-11
    libcommons-io-java=2.8.0-1
    libcommons-compress-java=1.20-1
    libcommons-lang-java=2.6-9
)

# --- Xvfb, GTK 3 (SWT draws with it), xdotool -----------------------------------
# SWT's Display.post makes events GTK never pairs into a double-click; xdotool
# sends the tests' double-click through XTest, as a mouse would.
if ! command -v xvfb-run >/dev/null || ! ldconfig -p | grep -q 'libgtk-3.so.0 ' || ! command -v xdotool >/dev/null; then
    echo "== installing xvfb $XVFB_VERSION, libgtk-3-0 $GTK_VERSION and xdotool $XDOTOOL_VERSION"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "xvfb=$XVFB_VERSION" \
        "libgtk-3-0=$GTK_VERSION" "xdotool=$XDOTOOL_VERSION" >/dev/null
fi

# --- Maven 3.9 ----------------------------------------------------------------
mvn="$cache/apache-maven-$MAVEN_VERSION/bin/mvn"
if [ ! -x "$mvn" ]; then
    echo "== fetching Maven $MAVEN_VERSION"
    tgz="$cache/apache-maven-$MAVEN_VERSION-bin.tar.gz"
    curl -fsSL -o "$tgz" "https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/$MAVEN_VERSION/apache-maven-$MAVEN_VERSION-bin.tar.gz"
    echo "$MAVEN_SHA512  $tgz" | sha512sum -c --quiet
    tar -xzf "$tgz" -C "$cache"
    rm "$tgz"
fi

# --- Trace Compass 6.2 bundles (Debian bullseye) ------------------------------
bundles="$cache/bundles"
stamp="$bundles/.debs"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${DEBS[*]}" ]; then
    echo "== fetching Trace Compass 6.2 and its bundles (Debian bullseye)"
    apt="$cache/apt"
    mkdir -p "$apt/etc/apt.conf.d" "$apt/etc/preferences.d" "$apt/etc/sources.list.d" \
        "$apt/state/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main" \
        > "$apt/etc/sources.list"
    touch "$apt/state/status"
    aptopts=(-o "Dir::Etc=$apt/etc" -o "Dir::Etc::SourceList=$apt/etc/sources.list"
        -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d" -o "Dir::Etc::Parts=$apt/etc/apt.conf.d"
        -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d" -o "Dir::State=$apt/state"
        -o "Dir::State::status=$apt/state/status" -o "Dir::Cache=$apt/cache" -o "Debug::NoLocking=1"
        -o "APT::Sandbox::User=root" -o "Acquire::Languages=none"
        -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false")
    [ -f "$apt/state/lists/deb.debian.org_debian_dists_bullseye_InRelease" ] \
        || apt-get "${aptopts[@]}" update -qq
    (cd "$apt/debs" && apt-get "${aptopts[@]}" download -qq "${DEBS[@]}")
    rm -rf "$bundles" "$apt/root"
    mkdir -p "$bundles"
    for d in "$apt"/debs/*.deb; do dpkg-deb -x "$d" "$apt/root"; done
    # The real jars only (Debian adds unversioned symlinks), without samples.
    find "$apt/root" -name '*.jar' -type f ! -name 'xercesSamples.jar' ! -name 'create_bundle.jar' \
        ! -path '*/maven-repo/*' -exec cp {} "$bundles/" \;
    rm -rf "$apt/root"
    echo "${DEBS[*]}" > "$stamp"
fi

# --- sextant ------------------------------------------------------------------
bin="${SEXTANT_BIN:-$repo/target/release/sextant}"
if [ ! -x "$bin" ]; then
    echo "== building sextant"
    (cd "$repo" && cargo build --release -p sextant-protocol)
fi
export SEXTANT_BIN="$bin"

# --- build and test -------------------------------------------------------------
echo "== Tycho build and workbench tests (Trace Compass 6.2 under Xvfb)"
out="$here/eclipse/io.sextant.tc.tests/target"
rm -rf "$out/surefire-reports" "$out/sidecar.pid"
rc=0
xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$mvn" -f "$here/eclipse/pom.xml" -Dmaven.repo.local="$cache/m2" -Dsextant.tc.bundles="$bundles" verify || rc=$?

# The workbench has exited: the sidecar it ran must be gone too.
orphan_pass=0
orphan_fail=0
if [ -f "$out/sidecar.pid" ]; then
    pid="$(cat "$out/sidecar.pid")"
    if kill -0 "$pid" 2>/dev/null && grep -q sextant "/proc/$pid/cmdline" 2>/dev/null; then
        echo "FAILED: sextant (pid $pid) outlived the workbench"
        kill "$pid"
        orphan_fail=1
    else
        echo "ok: no sextant process left after the workbench exited (pid $pid gone)"
        orphan_pass=1
    fi
else
    echo "FAILED: the workbench tests left no sidecar pid to check"
    orphan_fail=1
fi

echo "verify.sh took ${SECONDS} s (cache: $cache)"
python3 - "$out/surefire-reports" "$rc" "$orphan_pass" "$orphan_fail" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
reports, rc, op, of = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
suites = [ET.parse(f).getroot() for f in glob.glob(reports + "/TEST-*.xml")]
bad = sum(int(s.get("failures")) + int(s.get("errors")) for s in suites)
ran = sum(int(s.get("tests")) - int(s.get("skipped")) for s in suites)
passed, failed = ran - bad + op, bad + of
if rc != 0 and bad == 0:
    failed += 1
print(f"verify: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
