#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot a scenario with its timeline saved, and check the trace, as TAP.

    check-trace-run.py TRACE.json [--expect what]... -- QEMU_RUN IMAGE ARGS...

Runs scripts/run-firmware.sh with COPRO_TRACE=TRACE.json (the scenario
must pass and its timeline be converted by tools/copro-trace, which must
find no broken rule: --strict), then scripts/check-trace.py on the trace
with the --expect options given.
"""

import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
n = 0
failed = False


def tap(ok, what):
    global n, failed
    n += 1
    failed |= not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what), flush=True)


def main():
    argv = sys.argv[1:]
    if "--" not in argv or len(argv) < 4:
        sys.exit(__doc__)
    i = argv.index("--")
    trace, expect, run = argv[0], argv[1:i], argv[i + 1:]
    # as scripts/run-firmware.sh names it
    raw = trace[:-5] if trace.endswith(".json") else trace
    raw = (raw[:-6] if raw.endswith(".trace") else raw) + ".timeline.json"
    for f in (trace, raw):
        if f and os.path.exists(f):
            os.unlink(f)

    env = dict(os.environ, COPRO_TRACE=trace)
    r = subprocess.run(["bash", os.path.join(here, "run-firmware.sh")] + run,
                       env=env, stdout=subprocess.PIPE, text=True)
    fails = [l for l in r.stdout.splitlines() if l.startswith("not ok")]
    for l in fails:
        print("# " + l)
    tap(r.returncode == 0, "%s passed, timeline saved (%s)"
        % (os.path.basename(run[1]), trace))
    if not os.path.exists(trace):
        tap(False, "trace written")
    else:
        s = subprocess.run([sys.executable,
                            os.path.join(here, "..", "tools", "copro-trace"),
                            raw, "-o", os.devnull, "--strict", "--summary"],
                           stderr=subprocess.PIPE, text=True)
        for l in s.stderr.splitlines():
            print("# " + l)
        tap(s.returncode == 0, "copro-trace --strict: the log breaks no "
            "rule of the device")
        c = subprocess.run([sys.executable,
                            os.path.join(here, "check-trace.py"), trace] +
                           expect, stdout=subprocess.PIPE, text=True)
        for l in c.stdout.splitlines():
            m = re.match(r"(ok|not ok) \d+ - (.*)", l)
            if m:
                tap(m.group(1) == "ok", m.group(2))
            elif l.startswith("#"):
                print(l)
        if c.returncode and not failed:
            tap(False, "check-trace.py")
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
