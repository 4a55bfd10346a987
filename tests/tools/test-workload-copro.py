#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The copro OS runner (tools/copro-workload --os copro, firmware image
workload.elf) against figures the descriptions imply. TAP.

tests/tools/two-clients.toml (the Linux runner's test file) under the
quantum policy and under hardware scheduling (joblist): every client's
jobs are its cycles times its jobs per cycle, its device time is its
jobs' WORK plus at most the packets' cost (and 1 % for saves and
restores), the synchronous client runs between 1 and its ideal cycles
and its elapsed time is its ideal's (the run's); a second run under
quantum gives the same metrics, bit for bit. tests/tools/fill-copy.toml:
the bytes the device's packets read and wrote are exactly the FILL and
COPY jobs' bytes. tests/tools/depends.toml: a dependency makes the
dependent wait for the other's work, and a working set's allocations are
each touched by every job. A command line that does not describe a workload is
refused before anything runs.

    test-workload-copro.py BUILD
"""

import dataclasses
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import copro_runners as cr  # noqa: E402
import copro_workload as cw  # noqa: E402

n = failed = 0


def check(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))


def run(w, build, **kw):
    try:
        return cr.run_copro(w, build, **kw)
    except cr.RunError as e:
        for line in str(e).splitlines():
            print("# " + line)
        print("Bail out! the workload did not run")
        sys.exit(1)


def check_two(w, res, how):
    for c, m in zip(w.clients, res["clients"]):
        work = c.job.value
        check(m["jobs"] == m["cycles"] * c.jobs_per_cycle and m["jobs"],
              "%s, %s: %d jobs in %d cycles of %d" % (
                  how, c.name, m["jobs"], m["cycles"], c.jobs_per_cycle))
        # a preempted job is also charged its save and restore: 1 %, and
        # with the device scheduling, 100 us a preemption at most
        check(m["jobs"] * work <= m["gpu_ns"] <=
              m["jobs"] * (work + cr.PACKETS_NS) * 1.01 +
              m["preemptions"] * 100000,
              "%s, %s: device time %d ns is its jobs' WORK (%d x %d ns), "
              "their packets, %d saves and restores" % (
                  how, c.name, m["gpu_ns"], m["jobs"], work,
                  m["preemptions"]))
        check(m["samples"] == m["jobs"] and
              0 < m["latency_ns"][0] <= m["latency_ns"][1] <=
              m["latency_ns"][2] <= m["latency_ns"][3],
              "%s, %s: a latency per job, min <= avg <= p99 <= max" %
              (how, c.name))
        if c.submit == "sync":
            check(1 <= m["cycles"] <= m["ideal_cycles"],
                  "%s, %s: %d cycles, at most its ideal %d" % (
                      how, c.name, m["cycles"], m["ideal_cycles"]))
            # each cycle is its job and its sleep at least, and the last
            # began before the stop (and may have waited a cycle's time)
            cycle = c.job.value + c.sleep_us * 1000
            check(m["cycles"] * cycle <= m["elapsed_ns"] <
                  m["ideal_elapsed_ns"] + 2 * cycle,
                  "%s, %s: elapsed %d ns, from its cycles' %d to the run's "
                  "%d and two cycles" % (
                      how, c.name, m["elapsed_ns"], m["cycles"] * cycle,
                      m["ideal_elapsed_ns"]))
    share = sum(m["gpu_share"] for m in res["clients"])
    check(abs(share - 1) < 1e-3, "%s: the GPU shares add up to 1" % how)


def main():
    build = sys.argv[1]
    two = cw.load(os.path.join(HERE, "two-clients.toml"))
    first = run(two, build, policy="quantum")
    check_two(two, first, "quantum")
    again = run(two, build, policy="quantum")
    check(first == again, "quantum: a second run gives the same metrics, "
          "bit for bit")
    check_two(two, run(two, build, policy="joblist"), "joblist (hwsched)")

    fc = cw.load(os.path.join(HERE, "fill-copy.toml"))
    res = run(fc, build, policy="priority")
    jobs = {m["client"]: m["jobs"] for m in res["clients"]}
    size = {c.name: c.job.value for c in fc.clients}
    want_rd = jobs["copier"] * size["copier"]
    want_wr = want_rd + jobs["filler"] * size["filler"]
    eng = res["run"]["vram_bytes"][0]
    check(eng["read"] == want_rd and eng["write"] == want_wr,
          "fill-copy: the device read %d and wrote %d bytes, the jobs' "
          "%d and %d" % (eng["read"], eng["write"], want_rd, want_wr))

    # depends_on: the HIGH follower's cycles wait for what the feeder last
    # submitted (2 ms of WORK a cycle); without it, HIGH starts at once.
    # working_set: each job touches (a 4-byte FILL) each allocation
    dep = cw.load(os.path.join(HERE, "depends.toml"))
    nodep = dataclasses.replace(dep, clients=[
        dataclasses.replace(c, depends_on="") for c in dep.clients])
    with_dep = run(dep, build, policy="priority")["clients"][1]
    free = run(nodep, build, policy="priority")
    without = free["clients"][1]
    check(with_dep["latency_ns"][1] > 1000000 > 500000 >
          without["latency_ns"][1],
          "depends_on: the follower waits for the feeder's work (%d ns on "
          "average), without it not (%d ns)" % (with_dep["latency_ns"][1],
                                               without["latency_ns"][1]))
    eng = free["run"]["vram_bytes"][0]
    check(eng["write"] == without["jobs"] * 2 * 4 and without["jobs"],
          "working_set: %d jobs touched 2 allocations each: %d bytes "
          "written" % (without["jobs"], eng["write"]))

    # a line that does not describe a workload: refused, nothing runs
    bad = subprocess.run(
        [os.path.join(ROOT, "scripts", "run-firmware.sh"),
         os.path.join(build, "qemu-run"),
         os.path.join(build, "firmware", "workload.elf"), "-M", "q35",
         "-device", "copro", "-icount", cr.COPRO_ICOUNT, "-append",
         "irq=msix duration_ms=100 wn=2 wc0=a:n:1:w1000:0:s:-:0:100:0:0:0:- "
         "wc1=b:n:1:x1000:0:s:-:0:100:0:0:0:-"], capture_output=True, text=True)
    check(bad.returncode != 0 and "wc1=b:n:1:x1000" in bad.stdout and
          "kernel up" not in bad.stdout,
          "a bad client on the command line is refused before the kernel "
          "starts")
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
