#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Emulation speed: how fast virtual time passes on this host.

    bench-speed.py [--qemu-python DIR] [--idle-seconds S] [--out FILE]
                   QEMU_RUN FIRMWARE_DIR

Boots the main scenarios under -icount shift=0,sleep=off (as make run
and the firmware tests do) with the device's quiet-period batching off
(x-batch=off: one timer per engine step, the old path) and on (the
default), side by side in one run, and prints per run: virtual seconds,
wall seconds, virtual seconds per wall second, QEMU's CPU seconds (user +
system), and per virtual second the host context switches of all of
QEMU's threads and the main loop's wake-ups (the main thread's voluntary
context switches: each is one return from its poll). The idle image is
the display scenario holding its last frame (hold): a guest that only
waits for vsync; it is measured over --idle-seconds of wall time after
its HOLD line, through QMP; idle-desktop is the desktop's OS idle after
its report (make run's hold).

Measurements, not tests: nothing is asserted, and the figures depend on
the host and its load (the wall-time ones most; CPU seconds and context
switches less). docs/specs/copro.rst, "Emulation speed", says how to
profile further.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")

# name, image, guest command line, device options
SCENARIOS = [
    ("desktop", "desktop", "irq=msix", ""),
    ("hog", "hog", "irq=msix hog_ms=10000 frames_ms=1000", ""),
    ("overlap", "overlap", "irq=msix", ""),
    ("oversubscribe", "oversubscribe", "irq=msix percent=150 "
     "duration_ms=1000", ",vram=16M"),
]

# idle guests, measured after their HOLD line: the display scenario's
# last frame (a bare guest that waits for vsync), and the desktop after
# its report (the OS idle, as make run leaves it)
IDLE = [
    ("idle", "display", "irq=msix hold", ""),
    ("idle-desktop", "desktop", "irq=msix hold", ""),
]


def proc_sample(pid):
    """CPU seconds of the process, its threads' context switches and the
    main thread's voluntary ones, from /proc (None once it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        csw = main_vol = 0
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches",
                                        "nonvoluntary_ctxt_switches")):
                        n = int(line.split()[1])
                        csw += n
                        if tid == str(pid) and line.startswith("vol"):
                            main_vol = n
        return cpu, csw, main_vol
    except (OSError, IndexError, ValueError):
        return None


def base_cmd(qemu, image, append, dev, batch):
    return [qemu, "-M", "q35", "-accel", "tcg", "-m", "256", "-nodefaults",
            "-no-reboot", "-display", "none", "-icount",
            "shift=0,sleep=off", "-device",
            "copro,x-batch=%s%s" % (batch, dev),
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            "-kernel", image, "-append", append]


def run_scenario(qemu, image, append, dev, batch, tmp):
    """One run to its end: the virtual time comes from the timeline file
    QEMU writes at exit (a one-event timeline costs nothing)."""
    tl = os.path.join(tmp, "tl.json")
    cmd = base_cmd(qemu, image, append, dev, batch) + [
        "-serial", "file:" + os.path.join(tmp, "serial.txt"),
        "-global", "copro.timeline=1", "-global",
        "copro.x-timeline-file=" + tl]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
    last = (0, 0, 0)
    while True:
        pid, _, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        last = proc_sample(p.pid) or last
        time.sleep(0.01)
    wall = time.monotonic() - t0
    p.returncode = 0    # reaped here
    with open(tl) as f:
        virt = json.loads(f.readline().split(', "events"')[0] + "}")
    # whole-run CPU and context switches from the exit status; the main
    # thread's from the last /proc sample (up to 10 ms before the end)
    return {"virtual_s": virt["gpu-time-ns"] / 1e9, "wall_s": wall,
            "cpu_s": ru.ru_utime + ru.ru_stime,
            "csw": ru.ru_nvcsw + ru.ru_nivcsw, "wakeups": last[2]}


def run_idle(qemu, image, append, batch, tmp, seconds, qemu_python):
    sys.path.insert(0, qemu_python)
    from qemu.qmp.legacy import QEMUMonitorProtocol
    sock = os.path.join(tmp, "qmp.sock")
    serial = os.path.join(tmp, "serial.txt")
    for f in (sock, serial):
        if os.path.exists(f):
            os.unlink(f)
    cmd = base_cmd(qemu, image, append, "", batch) + [
        "-serial", "file:" + serial, "-qmp",
        "unix:%s,server=on,wait=off" % sock]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:
            if os.path.exists(serial) and "HOLD:" in open(serial).read():
                break
            time.sleep(0.05)
        else:
            return None
        mon = QEMUMonitorProtocol(sock)
        mon.connect()

        def point():
            r = mon.cmd("x-query-copro")
            r = r["return"] if isinstance(r, dict) else r
            return time.monotonic(), r[0]["gpu-time-ns"], proc_sample(p.pid)
        a = point()
        time.sleep(seconds)
        b = point()
        mon.close()
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
    return {"virtual_s": (b[1] - a[1]) / 1e9, "wall_s": b[0] - a[0],
            "cpu_s": b[2][0] - a[2][0], "csw": b[2][1] - a[2][1],
            "wakeups": b[2][2] - a[2][2]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qemu-python", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "qemu",
        "src", "python"))
    ap.add_argument("--idle-seconds", type=float, default=3.0)
    ap.add_argument("--out", help="also save the figures as JSON here")
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--short", action="store_true",
                    help="make check's short form: one scenario and one "
                    "idle guest, small durations (every code path, no "
                    "figure worth quoting)")
    ap.add_argument("qemu")
    ap.add_argument("firmware")
    args = ap.parse_args()
    only = args.only.split(",") if args.only else None

    scenarios, idle = SCENARIOS, IDLE
    if args.short:
        scenarios = [("desktop", "desktop", "irq=msix duration_ms=200", "")]
        idle = IDLE[:1]
        args.idle_seconds = min(args.idle_seconds, 0.5)
    failed = False
    rows = []
    print("%-14s %-5s %9s %8s %8s %7s %9s %11s %11s" % (
        "scenario", "batch", "virtual_s", "wall_s", "virt/wall", "cpu_s",
        "virt/cpu", "csw/virt_s", "wake/virt_s"))
    with tempfile.TemporaryDirectory() as tmp:
        for name, image, append, dev in scenarios + idle:
            if only and name not in only:
                continue
            path = os.path.join(args.firmware, image + ".elf")
            for batch in ("off", "on"):
                if name.startswith("idle"):
                    r = run_idle(args.qemu, path, append, batch, tmp,
                                 args.idle_seconds, args.qemu_python)
                else:
                    r = run_scenario(args.qemu, path, append, dev, batch,
                                     tmp)
                if not r or r["virtual_s"] <= 0:
                    print("%-14s %-5s failed" % (name, batch))
                    failed = True
                    continue
                r.update(scenario=name, batch=batch)
                rows.append(r)
                v = r["virtual_s"]
                print("%-14s %-5s %9.3f %8.2f %8.2fx %7.2f %8.2fx %11.0f "
                      "%11.0f" % (name, batch, v, r["wall_s"],
                                  v / r["wall_s"], r["cpu_s"],
                                  v / max(r["cpu_s"], 0.01), r["csw"] / v,
                                  r["wakeups"] / v), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    # a run that failed fails the benchmark (it printed "failed" and
    # exited 0, so make bench passed with a broken run)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
