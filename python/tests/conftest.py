"""What the tests share: the repository's fixtures, ../shared's traces when
present, and the `sextant` binary whose JSON is the oracle."""

import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "traces")
MODEL = os.path.join(ROOT, "schemas", "examples", "periodic-rt_high.json")

#: Traces made by this project (each recording of scenario-a, a taskset).
FIXTURES = [
    os.path.join(ROOT, "fixtures", "scenario-a", "ctf"),
    os.path.join(ROOT, "fixtures", "scenario-a", "trace.txt"),
    os.path.join(ROOT, "fixtures", "scenario-c", "ctf"),
    os.path.join(ROOT, "fixtures", "taskset", "ctf"),
]
#: Traces nobody here recorded, read in place when ../shared is there.
SHARED_TRACES = [
    os.path.join(SHARED, "ctf", "many-threads"),
    os.path.join(SHARED, "ctf", "perf-taskset2"),
    os.path.join(SHARED, "ftrace", "ftrace_syscalls.txt"),
]


def shared_traces():
    present = [t for t in SHARED_TRACES if os.path.exists(t)]
    if not present:
        print("skipped: ../shared traces absent")
    return present


def truncated_ctf(folder):
    """A copy of scenario-a's CTF trace in `folder` whose first stream is
    cut short mid-packet: the trace and that stream."""
    trace = folder / "ctf"
    shutil.copytree(FIXTURES[0], trace)
    stream = sorted(p for p in trace.iterdir() if "stream" in p.name)[0]
    with open(stream, "r+b") as f:
        f.truncate(stream.stat().st_size // 2 + 3)
    return trace, stream


def binary():
    """The binary CI built (SEXTANT_BIN), else the workspace's."""
    found = os.environ.get("SEXTANT_BIN")
    if found:
        return found
    for profile in ["ci", "release", "debug"]:
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
        path = os.path.join(target, profile, "sextant")
        if os.path.exists(path):
            return path
    return shutil.which("sextant")


@pytest.fixture(scope="session")
def cli(tmp_path_factory):
    """Runs `sextant ARGS` and returns its stdout, parsed as JSON unless raw."""
    path = binary()
    if path is None:
        pytest.fail("no sextant binary: set SEXTANT_BIN or build with cargo")
    cache = str(tmp_path_factory.mktemp("cache"))

    def run(*args, raw=False, check=True):
        out = subprocess.run(
            [path, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ, XDG_CACHE_HOME=cache),
            cwd=ROOT,
        )
        if check and out.returncode != 0:
            raise AssertionError(f"sextant {args}: {out.stderr.decode()}")
        return out if raw else json.loads(out.stdout)

    return run
