#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run tools/copro-top against a running scenario and check what it prints.

    check-top.py --qemu-python DIR -- QEMU_RUN IMAGE ARGS...

Boots IMAGE (its QEMU with a QMP socket), lets it run a moment, runs
copro-top for two intervals in line mode, stops QEMU and checks, as TAP,
that every interval's numbers are plausible: busy % between 0 and 100 per
engine, the contexts' shares of an engine adding up to its busy % (to the
rounding of the printed figures), no negative rate, and the render engine
seen working.
"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
n = 0
failed = False


def tap(ok, what):
    global n, failed
    n += 1
    failed |= not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", n, what), flush=True)


def wait_socket(path, proc, secs=30):
    end = time.monotonic() + secs
    while time.monotonic() < end and proc.poll() is None:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def check_line(line, k):
    f = dict(kv.split("=", 1) for kv in line.split())
    engines = sorted({int(m.group(1)) for key in f
                      for m in [re.match(r"e(\d+)\.busy$", key)] if m})
    ok = bool(engines) and float(f["virt_ms"]) > 0
    tap(ok, "interval %d: %d engines over %s virtual ms" % (
        k, len(engines), f.get("virt_ms")))
    for e in engines:
        busy = float(f["e%d.busy" % e])
        tap(0 <= busy <= 100, "interval %d: engine %d busy %.1f %% in "
            "[0, 100]" % (k, e, busy))
        shares = [float(v) for key, v in f.items()
                  if key.startswith("ctx.e%d." % e)]
        # each printed figure is rounded to 0.1: 0.05 each at most
        slack = 0.05 * (len(shares) + 1) + 1e-6
        tap(abs(sum(shares) - busy) <= slack,
            "interval %d: engine %d: %d contexts' shares add up to %.2f %% "
            "= busy %.1f %% (+-%.2f)" % (k, e, len(shares), sum(shares),
                                         busy, slack))
        rates = [float(f[key]) for key in f
                 if key.startswith("e%d." % e) and key.endswith("_s")]
        tap(all(r >= 0 for r in rates), "interval %d: engine %d rates >= 0 "
            "(%s)" % (k, e, ", ".join("%g" % r for r in rates)))
    return f


def main():
    argv = sys.argv[1:]
    if len(argv) < 5 or argv[0] != "--qemu-python" or argv[2] != "--":
        sys.exit(__doc__)
    qemu_python, (qemu_run, image), extra = argv[1], argv[3:5], argv[5:]
    tmp = tempfile.mkdtemp()
    sock = os.path.join(tmp, "qmp.sock")
    qemu = subprocess.Popen(
        [qemu_run, "-accel", "tcg", "-m", "256", "-no-reboot", "-nodefaults",
         "-display", "none", "-serial", "file:" + os.path.join(tmp, "serial"),
         "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
         "-kernel", image, "-qmp", "unix:%s,server=on,wait=off" % sock] +
        extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        tap(wait_socket(sock, qemu), "QEMU runs %s with a QMP socket"
            % os.path.basename(image))
        # Intervals of the device's clock, not the host's: 40 virtual ms
        # hold at least two of the compositor's 60 Hz frames however
        # slowly a loaded host (or a sanitizer build) runs the guest. The
        # second one starts well after the desktop's apps have started.
        top = subprocess.run(
            [sys.executable, os.path.join(here, "..", "tools", "copro-top"),
             "--qmp", sock, "--qemu-python", qemu_python, "-l", "-n", "2",
             "-v", "40"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, timeout=600)
        out = top.stdout.splitlines()
        for l in out:
            print("# " + l)
        lines = [l for l in out if l.startswith("host_s=")]
        tap(top.returncode == 0 and len(lines) == 2,
            "copro-top printed two intervals")
        fs = [check_line(l, k) for k, l in enumerate(lines, 1)]
        tap(len(fs) == 2 and float(fs[1].get("e0.busy", 0)) > 0 and
            float(fs[1].get("e0.subm_s", 0)) > 0,
            "the render engine was seen working in the second interval")
        tap(qemu.poll() is None, "the scenario was still running")
    finally:
        qemu.kill()
        qemu.wait()
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
