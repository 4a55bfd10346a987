#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot an image that holds its last frame on screen, and keep that frame.

    show-display.py [--qemu-python DIR] [--window sdl|vnc|none]
                    [--vnc :DISPLAY] [--append ARGS] [--icount OPTS]
                    [--tap] [--trace NAME.trace.json] QEMU_RUN IMAGE OUT.png

The image (the display scenario, or the desktop, with its "hold" flag in
--append) draws and flips its frames, reports, then keeps the last frame
on screen. When it says so on the serial line ("HOLD:"), this script saves
QEMU's screendump of the copro console as OUT.png (QMP, PNG format) and
says where it is. With --window sdl the QEMU window stays open until it is
closed; with --window vnc QEMU serves the console over VNC until
interrupted; with none (the default when no display is available) QEMU
quits once the picture is saved.

--tap prints the guest's PASS/FAIL/SKIP lines as TAP (as
scripts/run-firmware.sh does) and the rest as comments; the exit status
is then 0 only if the picture was saved and the guest reported no failure
(its SUMMARY line). QMP goes through QEMU's own Python library (python/ of
the QEMU tree the build prepared, --qemu-python).

--trace also records the device's timeline (docs/specs/copro.rst,
"Timeline"), has QEMU write it (QMP x-copro-timeline) as
NAME.timeline.json once the frame is held, and converts it with
tools/copro-trace into NAME.trace.json, which Perfetto opens.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from qmp_connect import connect

SUMMARY = re.compile(r'^SUMMARY: (\d+) tests, (\d+) unexpected failures')


class Console:
    """The guest's serial lines, echoed as they come (or as TAP)."""

    def __init__(self, tap):
        self.tap = tap
        self.n = 0
        self.failed = False
        self.summary_failures = None

    def line(self, line):
        line = line.rstrip('\r\n')
        m = SUMMARY.match(line)
        if m:
            self.summary_failures = int(m.group(2))
        if not self.tap:
            print(line, flush=True)
        elif line.startswith(('PASS: ', 'FAIL: ', 'SKIP: ')):
            self.n += 1
            kind, msg = line[:4], line[6:]
            if kind == 'FAIL':
                self.failed = True
            print('%s %d - %s%s' % ('not ok' if kind == 'FAIL' else 'ok',
                                    self.n, msg,
                                    ' # SKIP' if kind == 'SKIP' else ''),
                  flush=True)
        else:
            print('# ' + line, flush=True)

    def check(self, ok, msg):
        if self.tap:
            self.n += 1
            print('%s %d - %s' % ('ok' if ok else 'not ok', self.n, msg),
                  flush=True)
        else:
            print('show-display: ' + msg, flush=True)
        self.failed |= not ok
        return ok


def save_trace(con, mon, trace):
    """The device's timeline, written by QEMU, converted for Perfetto."""
    base = trace[:-5] if trace.endswith(".json") else trace
    raw = (base[:-6] if base.endswith(".trace") else base) + \
        ".timeline.json"
    mon.cmd("x-copro-timeline", file=os.path.abspath(raw))
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "tools", "copro-trace")
    r = subprocess.run([sys.executable, tool, raw, "-o", trace,
                        "--summary"], stderr=subprocess.PIPE, text=True)
    for line in r.stderr.splitlines():
        con.line(line.replace("copro-trace: ", ""))
    return con.check(r.returncode == 0, "timeline saved: %s (open it in "
                     "https://ui.perfetto.dev)" % trace)


def main():
    have_display = bool(os.environ.get("DISPLAY") or
                        os.environ.get("WAYLAND_DISPLAY"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--qemu-python", default="build/qemu/src/python",
                    help="QEMU's python/ directory (qemu.qmp)")
    ap.add_argument("--window", choices=["sdl", "vnc", "none"],
                    default="sdl" if have_display else "none")
    ap.add_argument("--vnc", default=":1", help="VNC display (--window vnc)")
    ap.add_argument("--append", default="irq=msix frames=300 hold",
                    help="the guest's command line (with hold)")
    # -icount: the checks see exact virtual time even on a loaded host.
    # With sleep on (the default here), idle time (waiting for vsync)
    # passes in real time and the animation runs at about its real speed;
    # sleep=off skips it (make run).
    ap.add_argument("--icount", default="shift=0")
    ap.add_argument("--tap", action="store_true")
    ap.add_argument("--trace", help="save the run's timeline as this "
                    "Perfetto trace (NAME.trace.json)")
    ap.add_argument("--timeout", type=int,
                    default=int(os.environ.get("COPRO_TIMEOUT", "180")))
    ap.add_argument("qemu")
    ap.add_argument("image")
    ap.add_argument("png")
    args = ap.parse_args()

    sys.path.insert(0, args.qemu_python)
    try:
        from qemu.qmp.legacy import QEMUMonitorProtocol
    except ImportError:
        print("show-display: QEMU's Python QMP library not found in %s "
              "(--qemu-python)" % args.qemu_python, file=sys.stderr)
        return 2

    con = Console(args.tap)
    tmp = tempfile.mkdtemp(prefix="copro-show-")
    sock = os.path.join(tmp, "qmp.sock")
    display = ["-display", "sdl" if args.window == "sdl" else "none"]
    if args.window == "vnc":
        display += ["-vnc", args.vnc]
    cmd = [args.qemu, "-M", "q35", "-accel", "tcg", "-m", "256",
           "-nodefaults", "-no-reboot", "-icount", args.icount,
           "-device", "copro", "-kernel", args.image,
           "-append", args.append,
           "-serial", "stdio", "-qmp", "unix:%s,server=on,wait=off" % sock,
           "-device", "isa-debug-exit,iobase=0xf4,iosize=4"] + display
    if args.trace:
        cmd += ["-global", "copro.timeline=1048576"]
    qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, text=True)
    # a SIGTERM (timeout, make interrupted) must not leave QEMU running
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    mon = None
    saved = False
    try:
        mon = connect(QEMUMonitorProtocol, sock, qemu)
        deadline = time.time() + args.timeout
        held = False
        for line in qemu.stdout:
            con.line(line)
            if line.startswith("HOLD:"):
                held = True
                break
            if time.time() > deadline:
                break
        if not held or not mon:
            con.check(False, "the guest never held its last frame (QEMU "
                      "%s)" % ("ended" if qemu.poll() is not None
                               else "timed out"))
        else:
            path = os.path.abspath(args.png)
            mon.cmd("screendump", filename=path, format="png")
            saved = con.check(os.path.exists(path),
                              "the last frame is in %s" % path)
            if args.trace:
                save_trace(con, mon, args.trace)
            if args.window == "sdl":
                print("show-display: close QEMU's window to quit")
            elif args.window == "vnc":
                print("show-display: connect a VNC viewer to %s; Ctrl-C "
                      "quits" % args.vnc)
            else:
                mon.cmd("quit")
        if saved and args.window != "none":
            for line in qemu.stdout:
                con.line(line)
            qemu.wait()
        else:
            qemu.wait(timeout=10)
    except KeyboardInterrupt:
        pass
    finally:
        if mon:
            try:
                mon.close()
            except Exception:
                pass
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()
        try:
            os.unlink(sock)
        except OSError:
            pass
        os.rmdir(tmp)
    if args.tap:
        print("1..%d" % con.n)
        if con.summary_failures != 0:
            con.failed = True
    return 0 if saved and not con.failed else 1


if __name__ == "__main__":
    sys.exit(main())
