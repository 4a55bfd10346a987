# SPDX-License-Identifier: GPL-2.0-or-later
"""A sweep's unit of work (tools/copro-sweep): one deterministic run of
one workload file on one OS x policy x kernel x device parameters x
seed, as rows of one table (a row per client).

run_task uses only the standard library and runs tools/copro-workload by
the absolute path it is given, so a Dask worker needs no copy of this
module: copro-sweep sends the function by value. A worker does need the
same checkout and build at the same path (a shared file system), since
each run boots that QEMU and firmware image.
"""

import json
import subprocess

COLUMNS = ("workload", "os", "kernel", "policy", "hwsched", "device",
           "seed", "client", "cycles", "ideal_cycles", "jobs",
           "elapsed_ns", "ideal_elapsed_ns", "gpu_ns", "ideal_gpu_ns",
           "gpu_share", "cycle_min_ns", "cycle_avg_ns", "cycle_p99_ns",
           "cycle_max_ns", "latency_min_ns", "latency_avg_ns",
           "latency_p99_ns", "latency_max_ns", "preemptions",
           "deadline_misses", "error")


def run_task(t):
    """T: {"tool", "build", "file", "os", "kernel", "policy", "device"
    (["KEY=VALUE", ...]), "seed", "jitter_ms"}. Returns the run's rows
    (dicts over COLUMNS); a run that fails gives one row saying why."""
    cmd = [t["tool"], t["file"], "--os", t["os"], "--build", t["build"],
           "--json", "-", "--seed", str(t["seed"]), "--jitter-ms",
           str(t["jitter_ms"])]
    if t["policy"]:
        cmd += ["--policy", t["policy"]]
    if t["os"] == "linux":
        cmd += ["--kernel", t["kernel"]]
    for d in t["device"]:
        cmd += ["--device", d]
    base = {"workload": t["file"], "os": t["os"], "kernel": t["kernel"],
            "policy": t["policy"], "hwsched": int(t["policy"] == "joblist"),
            "device": ",".join(sorted(t["device"])), "seed": t["seed"]}
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        err = (out.stderr or out.stdout).strip().splitlines()
        return [dict(base, error=err[-1] if err else "exit %d" %
                     out.returncode)]
    res = json.loads(out.stdout)
    base["workload"] = res["workload"]
    rows = []
    for m in res["clients"]:
        row = dict(base, client=m["client"], error="")
        for k in ("cycles", "ideal_cycles", "jobs", "elapsed_ns",
                  "ideal_elapsed_ns", "gpu_ns", "ideal_gpu_ns", "gpu_share",
                  "preemptions", "deadline_misses"):
            row[k] = m.get(k, "")
        for k in ("cycle", "latency"):
            for name, v in zip(("min", "avg", "p99", "max"), m[k + "_ns"]):
                row["%s_%s_ns" % (k, name)] = v
        rows.append(row)
    return rows
