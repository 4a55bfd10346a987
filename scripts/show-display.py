#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot the display scenario and keep its last frame.

    show-display.py QEMU_RUN IMAGE OUT.png [--window sdl|vnc|none]
                    [--frames N] [--vnc :DISPLAY]

The scenario (firmware/scenarios/display.c, with its "hold" flag) draws and
flips its frames, reports, then keeps the last frame on screen. When it
says so on the serial line ("HOLD:"), this script saves QEMU's screendump
of the copro console as OUT.png (QMP, PNG format). With --window sdl the
QEMU window stays open until it is closed; with --window vnc QEMU serves
the console over VNC until interrupted; with none (the default when no
display is available) QEMU quits once the picture is saved.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time


def qmp(sock_path, commands):
    """Runs QMP commands in order; returns their answers."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(100):
        try:
            s.connect(sock_path)
            break
        except OSError:
            time.sleep(0.05)
    f = s.makefile("rw")
    json.loads(f.readline())                    # greeting
    answers = []
    for cmd in [{"execute": "qmp_capabilities"}] + commands:
        f.write(json.dumps(cmd) + "\n")
        f.flush()
        while True:
            msg = json.loads(f.readline())
            if "return" in msg or "error" in msg:
                answers.append(msg)
                break
    s.close()
    return answers[1:]


def watch(qemu, sock, args):
    """Echoes the serial line; at HOLD saves the PNG. True if saved."""
    deadline = time.time() + 180
    for line in qemu.stdout:
        sys.stdout.write(line)
        if line.startswith("HOLD:"):
            path = os.path.abspath(args.png)
            ans = qmp(sock, [{"execute": "screendump",
                              "arguments": {"filename": path,
                                            "format": "png"}}])
            if "error" in ans[0]:
                print("show-display: screendump failed: %s" %
                      ans[0]["error"]["desc"], file=sys.stderr)
                return False
            print("show-display: the last frame is in %s" % path)
            if args.window == "sdl":
                print("show-display: close QEMU's window to quit")
            elif args.window == "vnc":
                print("show-display: connect a VNC viewer to %s; Ctrl-C "
                      "quits" % args.vnc)
            else:
                print("show-display: no display (set DISPLAY, or "
                      "SHOW=vnc for VNC); QEMU quits")
                qmp(sock, [{"execute": "quit"}])
            return True
        if time.time() > deadline:
            print("show-display: no HOLD line in time", file=sys.stderr)
            return False
    print("show-display: QEMU ended before the picture was ready",
          file=sys.stderr)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("qemu")
    ap.add_argument("image")
    ap.add_argument("png")
    have_display = bool(os.environ.get("DISPLAY") or
                        os.environ.get("WAYLAND_DISPLAY"))
    ap.add_argument("--window", choices=["sdl", "vnc", "none"],
                    default="sdl" if have_display else "none")
    ap.add_argument("--vnc", default=":1", help="VNC display (--window vnc)")
    ap.add_argument("--frames", type=int, default=300)
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="copro-show-")
    sock = os.path.join(tmp, "qmp.sock")
    display = ["-display", "sdl" if args.window == "sdl" else "none"]
    if args.window == "vnc":
        display += ["-vnc", args.vnc]
    # -icount: the checks see exact virtual time even on a loaded host;
    # sleep stays on, so idle time (waiting for vsync) passes in real time
    # and the animation runs at about its real speed.
    cmd = [args.qemu, "-M", "q35", "-m", "256", "-nodefaults",
           "-icount", "shift=0",
           "-device", "copro", "-kernel", args.image,
           "-append", "irq=msix frames=%d hold" % args.frames,
           "-serial", "stdio", "-qmp", "unix:%s,server=on,wait=off" % sock,
           "-device", "isa-debug-exit,iobase=0xf4,iosize=4"] + display
    qemu = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    # a SIGTERM (timeout, make interrupted) must not leave QEMU running
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    saved = False
    try:
        saved = watch(qemu, sock, args)
        if saved and args.window != "none":
            for line in qemu.stdout:
                sys.stdout.write(line)
            qemu.wait()
        else:
            qemu.wait(timeout=10)
    except KeyboardInterrupt:
        pass
    finally:
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()
        try:
            os.unlink(sock)
        except OSError:
            pass
        os.rmdir(tmp)
    return 0 if saved else 1


if __name__ == "__main__":
    sys.exit(main())
