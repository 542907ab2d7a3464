"""The package's build reuses the main workspace's: every crate both build
is built with the same features and the same `ci` profile settings, or
`pip install ./python` after `cargo test` compiles arrow and DataFusion a
second time (minutes of CI). python/Cargo.toml says how the two are kept
alike; this says when they drift apart."""

import os
import re
import shutil
import subprocess
import tomllib

import pytest

from conftest import ROOT

PYTHON = os.path.join(ROOT, "python")


def _features(*args):
    """{package@version: features} of `cargo tree` with `args`."""
    out = subprocess.run(
        ["cargo", "tree", "--offline", "--locked", "--prefix", "none", "-f", "{p} [{f}]", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    found = {}
    for line in out.stdout.splitlines():
        m = re.match(r"(\S+) (v\S+)(?: \([^)]*\))? \[([^\]]*)\]", line)
        if m:
            found[f"{m.group(1)}@{m.group(2)}"] = m.group(3)
    return found


def test_shared_crates_have_the_workspaces_features():
    if shutil.which("cargo") is None:
        pytest.skip("no cargo on PATH")
    # What `cargo test --workspace` (CI) builds: every member, dev-dependencies too.
    workspace = _features("--workspace", "-e", "normal,build,dev")
    package = _features(
        "--manifest-path", os.path.join(PYTHON, "Cargo.toml"), "-e", "normal,build", "--features", "pyo3/extension-module"
    )
    # One version of each shared crate: python/Cargo.lock is the
    # workspace's lock plus PyO3's crates.
    versions = {}
    for found in (workspace, package):
        for k in found:
            name, version = k.rsplit("@", 1)
            versions.setdefault(name, [set(), set()])[found is package].add(version)
    other = {n: v for n, v in versions.items() if v[0] and v[1] and not v[1] <= v[0]}
    assert other == {}, "versions to align in python/Cargo.lock (workspace, package): " + repr(other)
    shared = set(workspace) & set(package)
    assert len(shared) > 100, sorted(shared)
    # The engine is compiled again anyway: the workspace's tests turn on its
    # test support, which the package must not ship.
    differ = {
        k: (workspace[k], package[k])
        for k in shared
        if workspace[k] != package[k] and not k.startswith("sextant-")
    }
    assert differ == {}, "features to mirror in python/Cargo.toml (workspace, package): " + repr(differ)


def test_the_ci_profiles_are_alike():
    if shutil.which("cargo") is None:
        pytest.skip("no cargo on PATH")
    with open(os.path.join(ROOT, "Cargo.toml"), "rb") as f:
        workspace = tomllib.load(f)["profile"]["ci"]
    with open(os.path.join(PYTHON, "Cargo.toml"), "rb") as f:
        package = tomllib.load(f)["profile"]["ci"]
    # The package overrides of crates the package does not build (the
    # distributed engine's) change nothing it compiles.
    built = set(n.split("@")[0] for n in _features("--manifest-path", os.path.join(PYTHON, "Cargo.toml"), "-e", "normal,build"))
    overrides = {k: v for k, v in workspace.get("package", {}).items() if k in built}
    assert {k: v for k, v in workspace.items() if k != "package"} == {k: v for k, v in package.items() if k != "package"}
    assert overrides == package.get("package", {})
