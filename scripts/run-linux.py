#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot the Linux guest (build/linux: Debian's kernel, the copro driver)
on -device copro and run a script in it.

  run-linux.py [options] QEMU_RUN LINUXDIR

--run SCRIPT (or --run-file FILE) is appended to the initramfs as /run.sh:
the guest's /init runs it once the driver is loaded, prints
"COPRO-EXIT <status>" and powers off; this script exits with that status
(1 if the guest never said, e.g. a panic or --timeout). Without a script,
the guest gives a shell on the serial console (this terminal), stdin
relayed to it (make linux).

A guest that runs `screendump NAME` (in the initramfs) gets QEMU's
screendump of copro's display written as NAME.ppm and NAME.png in
--screendir, and reads back "WIDTH HEIGHT CRC32" of its pixels (R, G, B
bytes row by row), to compare with what it computed itself. Under --icount the guest's timing is
virtual and exact: tests that check vblank times use it.
"""
import argparse
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "guest-tools", "image"))
from mkinitramfs import Cpio  # noqa: E402
from qmp_connect import connect  # noqa: E402


def read_ppm(path):
    """(width, height, RGB bytes) of QEMU's binary PPM screendump."""
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    return int(fields[1]), int(fields[2]), data[pos + 1:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qemu-python", default="build/qemu/src/python")
    ap.add_argument("--run", help="shell script to run in the guest")
    ap.add_argument("--run-file", help="file holding that script")
    ap.add_argument("--initrd-extra", action="append", default=[],
                    help="another gzipped cpio to append (mkinitramfs.py "
                    "--extra)")
    ap.add_argument("--file", action="append", default=[],
                    help="SRC:DEST, another file for the guest")
    ap.add_argument("--icount", help="e.g. shift=1,sleep=off")
    ap.add_argument("--append", action="append", default=[],
                    help="more kernel parameters (repeat)")
    ap.add_argument("--device", default="copro", help="the -device option")
    ap.add_argument("--qemu-arg", action="append", default=[],
                    help="one more QEMU argument (repeat)")
    ap.add_argument("--display", default="none")
    ap.add_argument("--screendir", default=".")
    ap.add_argument("--save-screen", metavar="NAME",
                    help="at the end, save the display as NAME.png too")
    ap.add_argument("--timeout", type=int,
                    default=int(os.environ.get("COPRO_TIMEOUT", "240")))
    ap.add_argument("--quiet", action="store_true",
                    help="print only the lines the script printed, as TAP "
                    "(other lines become comments)")
    ap.add_argument("qemu")
    ap.add_argument("linuxdir")
    args = ap.parse_args()

    sys.path.insert(0, args.qemu_python)
    from qemu.qmp.legacy import QEMUMonitorProtocol

    script = args.run
    if args.run_file:
        script = open(args.run_file).read()
    if script is not None and args.save_screen:
        # the output on the display's console too (make linux)
        script = ("{ (\n%s\n); echo $? > /tmp/.rc; } 2>&1 | tee /dev/tty1\n"
                  "rc=$(cat /tmp/.rc)\nscreendump %s >/dev/null\nexit $rc\n" %
                  (script, args.save_screen))
    elif args.save_screen:
        # the interactive shell's exit: see init
        args.append.append("copro_save_screen=" + args.save_screen)
    tmp = tempfile.mkdtemp(prefix="copro-linux-")
    initrd = os.path.join(tmp, "initrd.gz")
    with open(initrd, "wb") as f:
        f.write(open(os.path.join(args.linuxdir, "initrd.gz"), "rb").read())
        for extra in args.initrd_extra:
            f.write(open(extra, "rb").read())
        if script is not None or args.file:
            c = Cpio()
            if script is not None:
                c.file("run.sh", script.encode(), 0o755)
            for spec in args.file:
                src, dest = spec.split(":", 1)
                c.file(dest, open(src, "rb").read(), 0o755)
            f.write(gzip.compress(c.trailer(), compresslevel=1))
    sock = os.path.join(tmp, "qmp.sock")
    append = ("console=tty0 console=ttyS0 quiet panic=-1 consoleblank=0 "
              "vt.global_cursor_default=0 " + " ".join(args.append))
    cmd = [args.qemu, "-M", "q35", "-accel", "tcg", "-m", "1024",
           "-nodefaults", "-no-reboot", "-net", "none",
           "-bios", "qboot.rom", "-kernel",
           os.path.join(args.linuxdir, "vmlinux"), "-initrd", initrd,
           "-append", append] + args.qemu_arg + ["-device", args.device,
           "-serial", "stdio", "-display", args.display,
           "-qmp", "unix:%s,server=on,wait=off" % sock]
    if args.icount:
        cmd += ["-icount", args.icount]
    interactive = script is None
    qemu = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    status = None
    mon = None
    timer = None

    def relay():
        # a terminal goes raw: the guest's shell edits the line and echoes
        while True:
            data = os.read(0, 1024)
            if not data:
                return
            try:
                qemu.stdin.write(data.decode("latin-1"))
                qemu.stdin.flush()
            except (OSError, ValueError):
                return
    saved_tty = None
    if script is None and os.isatty(0):
        import termios
        import tty
        saved_tty = termios.tcgetattr(0)
        tty.setraw(0)
    try:
        mon = connect(QEMUMonitorProtocol, sock, qemu)
        if interactive:
            threading.Thread(target=relay, daemon=True).start()
        else:
            timer = threading.Timer(args.timeout, qemu.kill)
            timer.start()
        for line in qemu.stdout:
            if line.startswith("@@COPRO-SCREENDUMP "):
                name = line.split()[1].rstrip("@")
                base = os.path.abspath(os.path.join(args.screendir, name))
                ack = "0 0 0"
                if mon:
                    mon.cmd("screendump", filename=base + ".ppm")
                    mon.cmd("screendump", filename=base + ".png",
                            format="png")
                    w, h, px = read_ppm(base + ".ppm")
                    ack = "%d %d %08x" % (w, h, zlib.crc32(px))
                qemu.stdin.write(ack + "\n")
                qemu.stdin.flush()
                continue
            if line.startswith("@@COPRO-QMP "):
                # the guest's qmp helper: one command, its answer back
                req = json.loads(line[len("@@COPRO-QMP "):].rstrip()
                                 .rstrip("@"))
                try:
                    mon.cmd(req["execute"], **req.get("arguments", {}))
                    ack = "ok"
                except Exception as e:  # QMP's error, to the guest
                    ack = "error " + str(e).replace("\n", " ")
                qemu.stdin.write(ack + "\n")
                qemu.stdin.flush()
                continue
            if line.startswith("COPRO-EXIT "):
                status = int(line.split()[1])
            if args.quiet:
                # TAP for meson: what is not TAP becomes a comment
                if line.startswith(("COPRO-INIT", "[")):
                    continue
                if not re.match(r"(ok|not ok|1\.\.\d|#)", line):
                    line = "# " + line
            sys.stdout.write(line.replace("\n", "\r\n")
                             if saved_tty else line)
            sys.stdout.flush()
        qemu.wait(timeout=30)
    finally:
        if saved_tty:
            termios.tcsetattr(0, termios.TCSADRAIN, saved_tty)
        if timer:
            timer.cancel()
        if qemu.poll() is None:
            qemu.kill()
        if mon:
            try:
                mon.close()
            except Exception:
                pass
    if interactive:
        return 0
    if status is None:
        print("run-linux: the guest never finished its script (panic, "
              "or --timeout %d s)" % args.timeout)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
