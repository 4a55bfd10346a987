#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The same workload on the copro OS and on Linux does the same work on
the device (issue 28): tests/tools/same-work.toml (a FILL client with a
working set, an asynchronous COPY one, a WORK one depending on it, a
presenting one; each a fixed number of cycles that fit the run) on the
copro OS (quantum) and on a Linux guest. Checks, each against the
description: every client ran its cycles and jobs on both; the bytes the
device's packets read and wrote (its own counters, COPRO_ENG_STAT_MEM_*)
are the FILL and COPY jobs' and the working sets' 4-byte touches, and
the same on both; each client's device time is the same on both (within
1 % and 5 us a job: the OSes charge a context its switches
and saves a little differently), a WORK
client's at least its jobs' WORK; on Linux each presented frame was
page-flipped. TAP.

    test-workload-same.py BUILD KERNEL
"""

import os
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


def run(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except (cr.RunError, cw.WorkloadError) as e:
        for line in str(e).splitlines():
            print("# " + line)
        print("Bail out! the workload did not run")
        sys.exit(1)


def want_bytes(w, jobs):
    """(read, write) the description implies for JOBS[name] jobs."""
    rd = wr = 0
    for c in w.clients:
        k = jobs[c.name]
        wr += k * c.allocations * 4
        if c.job.kind == "fill_bytes":
            wr += k * c.job.value
        elif c.job.kind == "copy_bytes":
            rd += k * c.job.value
            wr += k * c.job.value
    return rd, wr


def main():
    build, kernel = sys.argv[1], sys.argv[2]
    w = cw.load(os.path.join(HERE, "same-work.toml"))
    runs = {"copro OS": run(cr.run_copro, w, build, policy="quantum"),
            "Linux %s" % kernel: run(cr.run_linux, w, build, kernel)}
    for where, res in runs.items():
        for c, m in zip(w.clients, res["clients"]):
            print("# %s %s: %d cycles, %d jobs, %d ns, misses %s" % (
                where, c.name, m["cycles"], m["jobs"], m["gpu_ns"],
                m.get("deadline_misses")))
        for c, m in zip(w.clients, res["clients"]):
            check(m["client"] == c.name and m["cycles"] == c.cycles and
                  m["jobs"] == c.cycles * c.jobs_per_cycle,
                  "%s, %s: %d cycles of %d jobs, as described (%d)" % (
                      where, c.name, m["cycles"], c.jobs_per_cycle,
                      c.cycles))
            if c.job.kind == "work_ns":
                check(m["gpu_ns"] >= m["jobs"] * c.job.value,
                      "%s, %s: device time %d ns, at least its jobs' WORK "
                      "%d ns" % (where, c.name, m["gpu_ns"],
                                 m["jobs"] * c.job.value))
        jobs = {m["client"]: m["jobs"] for m in res["clients"]}
        rd, wr = want_bytes(w, jobs)
        eng = res["run"]["vram_bytes"] and res["run"]["vram_bytes"][0]
        check(eng and eng["read"] == rd and eng["write"] == wr,
              "%s: the device read %s and wrote %s bytes, the jobs' %d and "
              "%d" % (where, eng and eng["read"], eng and eng["write"], rd,
                      wr))
    (a_where, a), (b_where, b) = runs.items()
    check(a["run"]["vram_bytes"][0] == b["run"]["vram_bytes"][0],
          "the same bytes on both: %s" % a["run"]["vram_bytes"][0])
    for c, x, y in zip(w.clients, a["clients"], b["clients"]):
        tol = max(x["gpu_ns"], y["gpu_ns"]) // 100 + 5000 * x["jobs"]
        check(abs(x["gpu_ns"] - y["gpu_ns"]) <= tol,
              "%s: the same device time on both: %d and %d ns (within "
              "%d)" % (c.name, x["gpu_ns"], y["gpu_ns"], tol))
    game = [m for m in b["clients"] if m["client"] == "game"][0]
    check(game["flips"] == game["cycles"],
          "Linux: each of the game's %d frames page-flipped (%d flips)" %
          (game["cycles"], game["flips"]))
    print("1..%d" % n)
    print("# %d passed, %d failed" % (n - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
