"""The late jobs of scenario-a's rt_high, as in python/README.md: the
executions of its model, the late ones, and a histogram of every job's
duration against the deadline, saved as a PNG.

    python python/examples/late_jobs.py [OUT.png]   (default target/python-example/late-jobs.png)
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

import sextant

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "python-example", "late-jobs.png")

session = sextant.open(os.path.join(ROOT, "fixtures", "scenario-a", "ctf"))
jobs = session.executions(os.path.join(ROOT, "schemas", "examples", "periodic-rt_high.json")).to_pandas()
jobs["duration_ms"] = jobs["duration"] / 1e6
late = jobs[jobs["deadline_miss"]]
print(f"{len(jobs)} jobs, {len(late)} late")
print(late[["index", "duration_ms", "running", "preempted", "blocked", "waiting", "cpus"]].to_string(index=False))

with open(os.path.join(ROOT, "schemas", "examples", "periodic-rt_high.json")) as f:
    deadline_ms = json.load(f)["deadline"] / 1e6  # the model's deadline, in ns there
fig, ax = plt.subplots(figsize=(7, 4))
ax.hist([jobs.loc[~jobs["deadline_miss"], "duration_ms"], late["duration_ms"]], bins=40, stacked=True,
        label=["on time", "late"], color=["tab:blue", "tab:red"])
ax.axvline(deadline_ms, color="black", linestyle="--", label=f"deadline ({deadline_ms:g} ms)")
ax.set_xlabel("job duration (ms)")
ax.set_ylabel("jobs")
ax.set_title("rt_high jobs in fixtures/scenario-a (perf recording)")
ax.legend()
os.makedirs(os.path.dirname(out), exist_ok=True)
fig.savefig(out, dpi=100, bbox_inches="tight")
print(f"histogram: {out}")
