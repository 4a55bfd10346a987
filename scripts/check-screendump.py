#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare QEMU's screendump of the desktop with what the guest drew.

    check-screendump.py --qemu-python DIR QEMU_RUN IMAGE [qemu args...]

Boots IMAGE (the desktop scenario; its -append must carry "hold") under
QEMU_RUN with the given arguments, under -icount so that the run is a
function of the guest's instructions. The desktop runs for its virtual
duration, drains, checks the picture on screen pixel for pixel against its
applications' models (in the guest) and prints one SCREEN line: the frame
on screen, the vsync it was flipped at and that vsync's virtual time, the
number of flips, the CRC-32 of the screen as the display shows it (R, G, B
bytes row by row, the pointer plane blended over the scanout) and sample
pixels. It then holds that frame ("HOLD:"). This script then stops the VM,
asks the device (x-query-copro) what it shows, takes QMP's screendump
(PPM), and checks, as TAP:

  - the guest reported no failure and printed its SCREEN line;
  - the display is on and scanning out, and has made exactly the flips the
    guest counted: the picture is the frame flipped at the reported vsync
    (a fixed virtual time under -icount), nothing after it;
  - the screendump has the guest's size, every sample pixel is the colour
    the guest computed, and the CRC-32 of its pixels is the guest's.

No picture file is stored anywhere: the expectation comes from the run.
QMP goes through QEMU's own Python library (python/ of the QEMU tree,
DIR). COPRO_TIMEOUT (seconds, default 120) bounds the run.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

SUMMARY = re.compile(r'^SUMMARY: (\d+) tests, (\d+) unexpected failures',
                     re.M)


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = False

    def check(self, ok, msg):
        self.n += 1
        print(f'{"ok" if ok else "not ok"} {self.n} - {msg}', flush=True)
        self.failed |= not ok
        return ok

    @staticmethod
    def comment(text):
        for line in str(text).splitlines() or ['']:
            print(f'# {line}', flush=True)


class TestError(Exception):
    """The test cannot go on; the message says why."""


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM (P6, maxval 255)."""
    with open(path, 'rb') as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b'#':
            pos = data.index(b'\n', pos) + 1
            continue
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    magic, width, height, maxval = fields[0], *map(int, fields[1:])
    if magic != b'P6' or maxval != 255:
        raise TestError(f'screendump is not an 8-bit P6 PPM ({magic!r}, '
                        f'maxval {maxval})')
    pixels = data[pos + 1:]
    if len(pixels) != width * height * 3:
        raise TestError(f'screendump has {len(pixels)} bytes of pixels, '
                        f'not {width} x {height} x 3')
    return width, height, pixels


class Run:
    def __init__(self, opts, tmpdir):
        self.opts = opts
        self.tmpdir = tmpdir
        self.console_path = os.path.join(tmpdir, 'console.log')
        self.log_path = os.path.join(tmpdir, 'qemu.log')
        self.timeout = int(os.environ.get('COPRO_TIMEOUT', '120'))
        self.proc = None
        self.qmp = None

    def launch(self, QMP):
        sock = os.path.join(self.tmpdir, 'qmp.sock')
        args = [self.opts.qemu_run]
        if not any(a in ('-M', '-machine') or a.startswith('-M')
                   for a in self.opts.args):
            args += ['-M', 'q35']
        args += ['-accel', 'tcg', '-m', '256', '-no-reboot', '-nodefaults',
                 '-display', 'none',
                 '-chardev', f'file,id=con,path={self.console_path}',
                 '-serial', 'chardev:con',
                 '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
                 '-kernel', self.opts.image,
                 '-chardev', f'socket,id=qmp,path={sock},server=on,wait=off',
                 '-mon', 'chardev=qmp,mode=control'] + self.opts.args
        with open(self.log_path, 'wb') as log:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log)
        deadline = time.monotonic() + self.timeout
        while True:
            if self.proc.poll() is not None:
                raise TestError(f'QEMU exited with status '
                                f'{self.proc.returncode} at startup; '
                                f'{self.log()}')
            if os.path.exists(sock):
                self.qmp = QMP(sock)
                try:
                    self.qmp.connect()
                    return
                except Exception:
                    self.qmp = None
            if time.monotonic() > deadline:
                raise TestError(f'no QMP after {self.timeout} s')
            time.sleep(0.01)

    def log(self):
        try:
            with open(self.log_path, errors='replace') as f:
                text = f.read().strip()
        except OSError:
            text = ''
        return f'QEMU said: {text[-2000:]}' if text else 'QEMU said nothing'

    def console(self):
        try:
            with open(self.console_path, 'rb') as f:
                return f.read().decode('utf-8', errors='replace')
        except OSError:
            return ''

    def wait_hold(self):
        """The console once the guest holds its frame (or gave up)."""
        deadline = time.monotonic() + self.timeout
        while True:
            text = self.console()
            if re.search(r'^HOLD:', text, re.M):
                return text
            if self.proc.poll() is not None:
                raise TestError(f'the guest ended (QEMU exit status '
                                f'{self.proc.returncode}) without holding '
                                f'its last frame; console:\n'
                                f'{text[-3000:]}')
            if time.monotonic() > deadline:
                raise TestError(f'no HOLD line after {self.timeout} s')
            time.sleep(0.05)

    def cmd(self, name, **args):
        return self.qmp.cmd(name, **args)

    def stop(self):
        if self.qmp:
            try:
                self.qmp.cmd('quit')
            except Exception:
                pass
            try:
                self.qmp.close()
            except Exception:
                pass
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def check(run, t):
    text = run.wait_hold()
    summary = SUMMARY.search(text)
    t.check(summary is not None and summary.group(2) == '0',
            f'the guest passed its own checks ('
            f'{summary.group(0) if summary else "no SUMMARY line"})')
    lines = [l for l in text.splitlines() if l.startswith('SCREEN ')]
    if not t.check(len(lines) == 1, 'the guest printed its SCREEN line'):
        raise TestError('nothing to compare with')
    screen = json.loads(lines[0][len('SCREEN '):])
    Tap.comment(f'guest: frame {screen["frame"]} flipped at vsync '
                f'{screen["vsync"]}, t = {screen["time_ns"]} ns, '
                f'{screen["flips"]} flips, CRC-32 {screen["crc32"]:#010x}')

    # Nothing changes on the screen from here: the VM is stopped.
    run.cmd('stop')
    info = run.cmd('x-query-copro')
    if not t.check(len(info) == 1, 'one copro device'):
        raise TestError('no device to look at')
    disp = info[0]['display']
    t.check(disp['enabled'] and disp['active'] and disp['error'] == 'none' and
            not disp['flip-pending'],
            f'display on, scanning out {disp["width"]}x{disp["height"]} at '
            f'{disp["scanout"]:#x}, no error, no flip pending')
    t.check(disp['flips'] == screen['flips'] and
            disp['vsyncs'] >= screen['vsync'],
            f'the device made exactly the guest\'s {screen["flips"]} flips '
            f'(it counts {disp["flips"]}); the last at vsync '
            f'{screen["vsync"]}, {disp["vsyncs"]} vsyncs so far')

    ppm = os.path.join(run.tmpdir, 'screen.ppm')
    run.cmd('screendump', filename=ppm, format='ppm')
    width, height, pixels = read_ppm(ppm)
    if not t.check((width, height) == (screen['width'], screen['height']),
                   f'screendump {width}x{height}, the guest\'s '
                   f'{screen["width"]}x{screen["height"]}'):
        return
    wrong = []
    for s in screen['samples']:
        at = (s['y'] * width + s['x']) * 3
        got = pixels[at:at + 3].hex()
        if got != s['rgb']:
            wrong.append(f'{s["what"]} at ({s["x"]}, {s["y"]}): {got}, '
                         f'the guest says {s["rgb"]}')
    t.check(not wrong and screen['samples'],
            f'{len(screen["samples"])} sample pixels as the guest computed '
            f'them ({", ".join(s["what"] for s in screen["samples"])})' +
            (': ' + '; '.join(wrong) if wrong else ''))
    crc = zlib.crc32(pixels)
    t.check(crc == screen['crc32'],
            f'CRC-32 of the screendump\'s {width * height} pixels '
            f'{crc:#010x}, the guest\'s {screen["crc32"]:#010x}')


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--qemu-python', required=True,
                    help="python/ directory of the QEMU tree")
    ap.add_argument('qemu_run')
    ap.add_argument('image')
    ap.add_argument('args', nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    if not os.path.isfile(opts.image):
        print(f'Bail out! firmware image {opts.image} not found')
        return 1
    sys.path.insert(0, opts.qemu_python)
    try:
        from qemu.qmp.legacy import QEMUMonitorProtocol
    except ImportError as e:
        print(f'Bail out! QEMU\'s Python QMP library not found in '
              f'{opts.qemu_python}: {e}')
        return 1
    t = Tap()
    tmpdir = tempfile.mkdtemp(prefix='copro-screendump-')
    run = Run(opts, tmpdir)
    try:
        run.launch(QEMUMonitorProtocol)
        check(run, t)
    except TestError as e:
        t.check(False, str(e))
    except Exception:
        t.check(False, 'unexpected error')
        Tap.comment(traceback.format_exc())
    finally:
        run.stop()
    print(f'1..{t.n}')
    if t.failed:
        Tap.comment(f'run kept in {tmpdir} (console.log, qemu.log, '
                    f'screen.ppm)')
    else:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return 1 if t.failed else 0


if __name__ == '__main__':
    sys.exit(main())
