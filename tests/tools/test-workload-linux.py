#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Linux runner (tools/copro-workload, guest-tools/tools/
copro-workload) on tests/tools/two-clients.toml, against figures the
description implies: a synchronous client runs a job per cycle and no
more cycles than its ideal, each client's device time is its jobs' WORK
plus at most the packets' cost, an asynchronous client's jobs are its
cycles times its jobs per cycle; and a second run gives the same
metrics, bit for bit. tests/tools/depends.toml: a dependency makes the
dependent wait on the GPU for the other's work (its jobs start over 1 ms
after their submit on average), and without it not (under 0.5 ms);
every job touches its working set (the device's bytes). TAP.

    test-workload-linux.py BUILD KERNEL [--twice]
"""

import dataclasses
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import copro_runners as cr  # noqa: E402
import copro_workload as cw  # noqa: E402

PACKETS_NS = 5000
n = failed = 0


def check(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))


def run(build, kernel):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        r = subprocess.run([os.path.join(ROOT, "tools", "copro-workload"),
                            os.path.join(HERE, "two-clients.toml"),
                            "--build", build, "--os", "linux",
                            "--kernel", kernel, "--json",
                            out.name], capture_output=True, text=True)
        for line in (r.stdout + r.stderr).splitlines():
            print("# " + line)
        if r.returncode:
            print("Bail out! the workload did not run")
            sys.exit(1)
        return json.load(open(out.name))["clients"]


def main():
    build, kernel = sys.argv[1], sys.argv[2]
    w = cw.load(os.path.join(HERE, "two-clients.toml"))
    first = run(build, kernel)
    for c, m in zip(w.clients, first):
        work = c.job.value
        check(m["jobs"] == m["cycles"] * c.jobs_per_cycle,
              "%s: %d jobs in %d cycles of %d" % (c.name, m["jobs"],
                                                  m["cycles"],
                                                  c.jobs_per_cycle))
        # a preempted job is also charged its saves and restores: 1 %
        check(m["jobs"] * work <= m["gpu_ns"] <=
              m["jobs"] * (work + PACKETS_NS) * 1.01,
              "%s: device time %d ns is its jobs' WORK (%d x %d ns), their "
              "packets, saves and restores" % (c.name, m["gpu_ns"],
                                               m["jobs"], work))
        if c.submit == "sync":
            ideal = cw.ideal_cycles(c, 0)
            check(1 <= m["cycles"] <= ideal,
                  "%s: %d cycles, at most its ideal %d" %
                  (c.name, m["cycles"], ideal))
    dep = cw.load(os.path.join(HERE, "depends.toml"))
    nodep = dataclasses.replace(dep, clients=[
        dataclasses.replace(c, depends_on="") for c in dep.clients])
    try:
        with_dep = cr.run_linux(dep, build, kernel)["clients"][1]
        free = cr.run_linux(nodep, build, kernel)
    except cr.RunError as e:
        for line in str(e).splitlines():
            print("# " + line)
        print("Bail out! depends.toml did not run")
        sys.exit(1)
    without = free["clients"][1]
    check(with_dep["latency_ns"][1] > 1000000 > 500000 >
          without["latency_ns"][1],
          "depends_on: the follower waits for the feeder's work (%d ns on "
          "average), without it not (%d ns)" % (with_dep["latency_ns"][1],
                                               without["latency_ns"][1]))
    jobs = {m["client"]: m["jobs"] for m in free["clients"]}
    eng = free["run"]["vram_bytes"][0]
    check(without["jobs"] and eng["read"] == 0 and
          eng["write"] == jobs["follower"] * 2 * 4,
          "working_set: %d jobs touched 2 allocations each: %d bytes "
          "written" % (jobs["follower"], eng["write"]))
    if "--twice" in sys.argv:
        again = run(build, kernel)
        check(first == again, "a second run gives the same metrics, bit for "
              "bit (QEMU's random numbers seeded, the clock the VM's, no "
              "address randomization)")
    print("1..%d" % n)
    print("# %d passed, %d failed" % (n - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
