# SPDX-License-Identifier: GPL-2.0-or-later
"""The runs of a benchmark script (bench-os.sh, bench-switch.sh): each run
NAME left NAME.json (its METRICS line) and NAME.rc (QEMU's exit status)
in one directory."""
import json
import os


class Runs:
    def __init__(self, tmp):
        self.tmp = tmp
        self.failed = False     # a run failed: the script exits 1

    def load(self, name):
        """The METRICS of run NAME, or None; a failed run is said and
        counted."""
        try:
            with open(os.path.join(self.tmp, name + ".json")) as f:
                m = json.loads(f.read())
            with open(os.path.join(self.tmp, name + ".rc")) as f:
                rc = f.read().strip()
        except (OSError, ValueError):
            print("%s: FAILED, no METRICS line" % name)
            self.failed = True
            return None
        if rc != "0" or m.get("failures", 1) != 0:
            print("%s: FAILED (%s failed checks, exit %s)"
                  % (name, m.get("failures"), rc))
            self.failed = True
        return m


def fmt_ns(ns):
    """ns in the unit that keeps 3-4 significant digits ("-" for None)."""
    if ns is None:
        return "-"
    if ns < 1000000:
        return "%.1f us" % (ns / 1e3)
    if ns < 1000000000:
        return "%.2f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


def app(m, name):
    """The METRICS entry of application NAME in run M, or None."""
    for a in (m or {}).get("apps", []):
        if a["name"] == name:
            return a
    return None
