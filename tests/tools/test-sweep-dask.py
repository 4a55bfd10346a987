#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/copro-sweep on this machine and on a Dask cluster give the same
CSV. A tiny grid (tests/tools/two-clients.toml on the copro OS, quantum
and joblist, two device preemption granularities, seeds 0 and 1) runs
once with local workers and once on a LocalCluster of two worker
processes on loopback (--scheduler tcp://127.0.0.1:PORT); the two files
must be identical, byte for byte, with a row per client and no failed
run. TAP; skipped without python3-distributed.

    test-sweep-dask.py BUILD
"""

import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SWEEP = os.path.join(ROOT, "tools", "copro-sweep")
n = failed = 0


def check(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what))


def sweep(build, out, extra):
    r = subprocess.run([SWEEP, os.path.join(HERE, "two-clients.toml"),
                        "--policies", "quantum,joblist", "--device",
                        "preempt=command,mid-command", "--seeds", "0,1",
                        "--jitter-ms", "10", "--build", build, "--out",
                        out] + extra, capture_output=True, text=True)
    for line in (r.stdout + r.stderr).splitlines():
        print("# " + line)
    return r.returncode


def main():
    build = os.path.abspath(sys.argv[1])
    try:
        from distributed import LocalCluster
    except ImportError:
        print("1..0 # SKIP no Dask distributed (python3-distributed)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        local = os.path.join(tmp, "local.csv")
        dist = os.path.join(tmp, "dask.csv")
        check(sweep(build, local, ["--jobs", "1"]) == 0,
              "the local sweep ran every point")
        with LocalCluster(n_workers=2, threads_per_worker=1,
                          processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            addr = cluster.scheduler_address
            check(addr.startswith("tcp://127.0.0.1:"),
                  "a cluster of 2 workers on loopback: %s" % addr)
            check(sweep(build, dist, ["--scheduler", addr]) == 0,
                  "the distributed sweep ran every point")
        rows = list(csv.DictReader(open(local)))
        check(len(rows) == 2 * 2 * 2 * 2 and
              not any(r["error"] for r in rows) and
              {r["client"] for r in rows} == {"game", "heavy"},
              "%d rows: 8 runs of 2 clients, no error" % len(rows))
        check(len({(r["policy"], r["device"], r["seed"]) for r in rows}) == 8,
              "every point of the grid is a run of its own")
        same = open(local).read() == open(dist).read()
        check(same, "the local and distributed CSVs are identical")
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
