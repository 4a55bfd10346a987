#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Interrupt a firmware scenario in mid-run and require the same report.

    check-migration.py --qemu-python DIR --test NAME [--moment KIND]
                       [--known-bug TEXT] QEMU_RUN IMAGE [qemu args...]

Boots IMAGE (a scenario such as hog) under QEMU_RUN (build/qemu-run) with
the given QEMU arguments once without interruption, the reference, then
once more with one interruption, chosen by NAME:

  savevm  stop while a preemption is in progress, savevm into a qcow2
          image (made over QMP with blockdev-create: this QEMU is built
          without qemu-img), let the guest run on, loadvm, run to the end;
  file    stop there, migrate to a file, quit; a new QEMU loads the file
          (-incoming) and finishes the run;
  live    migrate to a second QEMU over a UNIX socket while the guest runs
          through its preemptions, switching over at the chosen moment;
          the destination finishes the run;
  reset   stop in the middle of a buffer, system_reset: the device must be
          in its power-on state, and the image, booting again, must pass.

savevm/loadvm is the true save and restore: the whole VM (RAM, VRAM,
device state, virtual clock) goes into the image's internal snapshot and
comes back into the same QEMU, over a guest that has run on since, as the
HMP commands do (QMP snapshot-save/-load are the same code as jobs). The
file migration is the other kind of save and restore (virsh save): the
state lands in a QEMU that never ran the guest.

The report is every PASS:, FAIL:, SKIP:, SUMMARY: and METRICS line the
guest printed on its serial console; what it printed between a savevm and
the loadvm that undoes it is left out, and a migrated run's console is the
source's followed by the destination's. Under -icount a run is a function
of the guest's instructions alone, so an interrupted run must give the
reference report line for line, virtual-time figures included. The moment
is found from guest progress, never from wall time: the device stops the
VM at each preemption request or submission start (QMP x-copro-stop-at,
exact under -icount), x-query-copro is looked at, and the VM continued,
until a preemption is in progress (pick_moment); the guest never runs on
in host time while the test looks, so the same moments are caught on a
fast host and a loaded one. Nothing is timed on the wall clock except hang
guards (COPRO_TIMEOUT seconds per QEMU, default 60). Prints TAP.

--known-bug TEXT marks a failure that has the known bug's signature as
TODO, with TEXT as the reason: the device's state changing while the VM
is stopped (during savevm or a migration, or after a load), and what
follows from it (the guest's result, the report). Any other failure is a
failure. See KNOWN BUG below.

QMP goes through QEMU's own Python library (python/ of the QEMU tree,
DIR), which needs only the standard library.
"""
import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

# QEMU exits with (code << 1) | 1 through isa-debug-exit: 1 when the guest
# reported success (firmware/lib/exit.h), 0 when it never got there.
GUEST_PASSED = 1

REPORT_LINE = re.compile(r'^(PASS:|FAIL:|SKIP:|SUMMARY:|METRICS )')

# PCI identity of copro (include/copro/copro_regs.h)
COPRO_PCI_ID = {'vendor': 0x1af4, 'device': 0x10f0}


class Tap:
    def __init__(self, known_bug):
        self.n = 0
        self.failed = False
        self.known_bug = known_bug
        self.bug_seen = False

    def check(self, ok, msg, todo=None):
        """One TAP line. TODO only on a failure: meson counts "ok # TODO"
        as an unexpected pass, i.e. a failure."""
        self.n += 1
        directive = f' # TODO {todo}' if todo and not ok else ''
        print(f'{"ok" if ok else "not ok"} {self.n} - {msg}{directive}',
              flush=True)
        if not ok and not todo:
            self.failed = True
        return ok

    def stopped_device(self, ok, msg):
        """A check that the device did not change while the VM was stopped:
        the known bug's signature when it did."""
        todo = self.known_bug if not ok else None
        if todo:
            self.bug_seen = True
        return self.check(ok, msg, todo)

    def outcome(self, ok, msg):
        """A check of what the guest got: TODO if it failed after the known
        bug showed."""
        return self.check(ok, msg, self.known_bug if self.bug_seen else None)

    @staticmethod
    def comment(text):
        for line in str(text).splitlines() or ['']:
            print(f'# {line}', flush=True)


class TestError(Exception):
    """The subtest cannot go on; the message says why."""


class Qemu:
    """One QEMU process: QMP through a socket, the guest's serial console
    in a file, QEMU's own output in another."""

    def __init__(self, env, name, incoming=False):
        self.env = env
        self.name = name
        self.dir = os.path.join(env.tmpdir, name)
        os.makedirs(self.dir)
        self.console_path = os.path.join(self.dir, 'console.log')
        self.log_path = os.path.join(self.dir, 'qemu.log')
        self.incoming = incoming
        self.proc = None
        self.qmp = None
        self.events = []

    def launch(self):
        sock = os.path.join(self.dir, 'qmp.sock')
        args = [self.env.qemu_run]
        if not any(a in ('-M', '-machine', '--machine') or
                   a.startswith(('-M', '-machine=', '--machine='))
                   for a in self.env.args):
            args += ['-M', 'q35']
        # As scripts/run-firmware.sh boots images, plus QMP, the console
        # in a file, and -S: nothing runs before we look.
        args += ['-accel', 'tcg', '-m', '256', '-no-reboot', '-nodefaults',
                 '-display', 'none',
                 '-chardev', f'file,id=con,path={self.console_path}',
                 '-serial', 'chardev:con',
                 '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
                 '-kernel', self.env.image,
                 '-chardev', f'socket,id=qmp,path={sock},server=on,wait=off',
                 '-mon', 'chardev=qmp,mode=control', '-S']
        if self.incoming:
            args += ['-incoming', 'defer']
        args += self.env.args
        with open(self.log_path, 'wb') as log:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log)
        # QEMU listens once it has parsed its options: connect when the
        # socket is there; give up when QEMU is gone or the guard expires.
        deadline = time.monotonic() + self.env.timeout
        while True:
            if self.proc.poll() is not None:
                raise TestError(f'{self.name}: QEMU exited with status '
                                f'{self.proc.returncode} at startup; '
                                f'{self.log()}')
            if os.path.exists(sock):
                self.qmp = self.env.QMP(sock, nickname=self.name)
                try:
                    self.qmp.connect()
                    return self
                except Exception:
                    self.qmp = None
            if time.monotonic() > deadline:
                self.kill()
                raise TestError(f'{self.name}: no QMP after '
                                f'{self.env.timeout} s; {self.log()}')
            time.sleep(0.01)

    def log(self):
        try:
            with open(self.log_path, errors='replace') as f:
                text = f.read().strip()
        except OSError:
            text = ''
        return f'QEMU said: {text[-2000:]}' if text else 'QEMU said nothing'

    def cmd(self, name, **args):
        try:
            return self.qmp.cmd(name, **args)
        except self.env.ExecuteError as e:
            raise TestError(f'{self.name}: {name} failed: {e}') from e
        except Exception as e:
            # The connection went away: QEMU is exiting (the guest
            # finished, or QEMU died).
            raise TestError(f'{self.name}: QEMU exited with status '
                            f'{self.exit_status()} during {name}; '
                            f'{self.log()}') from e

    def exit_status(self):
        try:
            return self.proc.wait(timeout=self.env.timeout)
        except subprocess.TimeoutExpired:
            return 'none (still running, QMP lost)'

    def hmp(self, line):
        return self.cmd('human-monitor-command', **{'command-line': line})

    def copro(self):
        return self.cmd('x-query-copro')

    def wait_event(self, name, match=lambda data: True):
        """The first event NAME (since the last one taken) whose data
        satisfies MATCH; the hang guard bounds the wait."""
        deadline = time.monotonic() + self.env.timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev['event'] == name and match(ev.get('data', {})):
                    del self.events[:i + 1]
                    return ev
            left = deadline - time.monotonic()
            if left <= 0:
                raise TestError(f'{self.name}: no {name} event after '
                                f'{self.env.timeout} s')
            try:
                self.events += self.qmp.get_events(wait=float(min(left, 1)))
            except TimeoutError:
                pass
            except Exception as e:
                raise TestError(f'{self.name}: QEMU exited with status '
                                f'{self.exit_status()} waiting for '
                                f'{name}; {self.log()}') from e

    def wait_status(self, status):
        deadline = time.monotonic() + self.env.timeout
        while self.cmd('query-status')['status'] != status:
            if time.monotonic() > deadline:
                raise TestError(f'{self.name}: not {status} after '
                                f'{self.env.timeout} s')
            time.sleep(0.01)

    def run_job(self, command, **args):
        """Run a QMP command that starts a job, and wait for its end."""
        job = args['job-id']
        self.cmd(command, **args)
        self.wait_event('JOB_STATUS_CHANGE', lambda d: d['id'] == job and
                        d['status'] == 'concluded')
        error = [j.get('error') for j in self.cmd('query-jobs')
                 if j['id'] == job][0]
        self.cmd('job-dismiss', id=job)
        if error:
            raise TestError(f'{self.name}: {command}: {error}')

    def enable_migration_events(self):
        self.cmd('migrate-set-capabilities',
                 capabilities=[{'capability': 'events', 'state': True}])

    def wait_migration(self):
        """Wait for the MIGRATION event that ends a migration; raise unless
        it completed."""
        ev = self.wait_event('MIGRATION', lambda d: d['status'] in
                             ('completed', 'failed', 'cancelled'))
        if ev['data']['status'] != 'completed':
            info = self.cmd('query-migrate')
            raise TestError(f'{self.name}: migration {ev["data"]["status"]}'
                            f': {info.get("error-desc", "")}')

    def console_size(self):
        # The serial port writes to the file as the guest transmits: with
        # the VM stopped, the file holds everything printed so far.
        return os.path.getsize(self.console_path)

    def console(self, start=0, end=None):
        with open(self.console_path, 'rb') as f:
            data = f.read()
        return data[start:end].decode('utf-8', errors='replace')

    def wait_exit(self):
        """Let the guest finish; QEMU's exit status."""
        try:
            status = self.proc.wait(timeout=self.env.timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise TestError(f'{self.name}: still running after '
                            f'{self.env.timeout} s (hang guard); '
                            f'{self.log()}') from None
        self.close()
        return status

    def quit(self):
        try:
            self.qmp.cmd('quit')
        except Exception:
            pass        # QEMU may close the socket before it answers
        return self.wait_exit()

    def close(self):
        if self.qmp:
            try:
                self.qmp.close()
            except Exception:
                pass        # QEMU is gone: the socket is closed already
            self.qmp = None

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.close()


def report_of(console):
    return [line.rstrip('\r') for line in console.splitlines()
            if REPORT_LINE.match(line)]


def engines(state):
    """(device index, engine info) for every engine of every copro."""
    for d, dev in enumerate(state):
        for e in dev['engines']:
            yield d, e


def total(state, key):
    return sum(e[key] for _, e in engines(state))


def run_until_stop(vm, **stop):
    """Arm x-copro-stop-at (an event kind and count, or a device time),
    let the guest run and return once the device has stopped the VM there.
    Under -icount the stop is at an exact point of the run, whatever the
    host's speed or load: the guest never runs on in host time while the
    test looks (a run that ends first is a TestError, and the same run
    ends first every time)."""
    vm.cmd('x-copro-stop-at', **stop)
    vm.cmd('cont')
    vm.wait_event('RESUME')
    vm.wait_event('STOP')


def wait_in_use(vm):
    """Run the guest from its start until its driver has given the device
    work (the first submission starts), and stop it there. The timeline
    records from here on, for the stops: the run is the same to the
    virtual nanosecond with it on or off (docs/specs/copro.rst)."""
    vm.cmd('x-copro-timeline-set', enable=True, capacity=4096)
    run_until_stop(vm, kind='start')


# The moments pick_moment can stop at, for each engine of each copro:
#   pending   a preemption request is pending (the engine has not reached
#             an arbitration point yet);
#   switched  the buffer that was first on the engine has been preempted
#             and another context's buffer is running;
#   resumed   that buffer runs again, after at least one preemption;
#   busy      a buffer is running (any scenario, with or without
#             preemption: --moment busy).
# 'auto', the default, takes the first preemption moment that comes, each
# kind from a number of completed preemptions on. A pending request is the
# most interesting and the shortest-lived (tens of us of virtual time while
# the CPU sleeps), so it is taken from the first completed preemption on
# (a resumed buffer and its save record are then in play too); the other
# two from the third and the fifth. Every preemption gives the later kinds
# one more chance, so a run with five preemptions is always caught. An
# explicit kind can be missed (short-lived ones especially): the run then
# ends first and the subtest fails; it is for reproducing, not for CI.
AUTO = {'pending': 1, 'switched': 3, 'resumed': 5}
MOMENTS = ['auto', 'pending', 'switched', 'resumed', 'busy']


def classify(state, first_ctx):
    """Yield (kind, completed preemptions, description) for every moment
    kind STATE is in."""
    for d, e in engines(state):
        n = e['preemptions']
        busy = e['state'] != 'idle'
        ctx = e['current-context']
        key = (d, e['index'])
        if busy and ctx and key not in first_ctx:
            first_ctx[key] = ctx
        first = first_ctx.get(key)
        where = (f'device {d} engine {e["index"]}: {e["state"]}, context '
                 f'{ctx:#x} fence {e["current-fence"]}, {n} preemptions done, '
                 f'gpu time {state[d]["gpu-time-ns"]} ns')
        # A request can reach an engine whose buffer has just retired (the
        # scheduler decided on what it saw a moment before): that is not
        # the middle of a buffer, and not the moment this kind is for.
        if e['preempt-pending'] and busy and e['current-fence']:
            yield 'pending', n, f'a preemption request pending ({where})'
        if n >= 1 and busy and ctx and ctx != first:
            yield 'switched', n, (f'context {first:#x} preempted, another '
                                  f'context running ({where})')
        if n >= 1 and busy and ctx == first:
            yield 'resumed', n, (f'context {first:#x} running again after '
                                 f'its resume ({where})')
        if busy and e['current-fence']:
            yield 'busy', n, f'in the middle of a buffer ({where})'


# The timeline event that can open each moment: the VM stops right at
# each one in turn until the state is of the kind wanted.
STOP_KIND = {'pending': 'preempt-request', 'switched': 'start',
             'resumed': 'start', 'busy': 'start', 'auto': 'preempt-request'}


def pick_moment(vm, moment):
    """Stop the VM at a MOMENT of the run (see MOMENTS). Returns (state,
    description) with the VM stopped.

    The device stops the VM at every event that can open such a moment
    (x-copro-stop-at: a preemption request, or a submission's start) and
    the state is looked at there; under -icount the stops are at exact
    points of the run, so the moment caught is the same from run to run
    and does not depend on the host. If the guest finishes first, QEMU
    exits and the wait raises TestError."""
    first_ctx = {}
    try:
        while True:
            state = vm.copro()
            for kind, n, where in classify(state, first_ctx):
                if kind == moment or (moment == 'auto' and
                                      n >= AUTO.get(kind, 1 << 30)):
                    return state, where
            run_until_stop(vm, kind=STOP_KIND[moment])
    except TestError as e:
        raise TestError(f'the run ended before a moment of kind {moment} '
                        f'was caught ({e})') from e


# KNOWN BUG (reported with the commit that added this test, issue 8):
# the device runs engine steps while the VM is stopped. A QMP stop can
# leave an engine timer due at the very virtual time the VM stopped at.
# Under -icount the TCG round-robin vCPU thread runs due QEMU_CLOCK_VIRTUAL
# timers itself (icount_handle_deadline), and re-enables that clock in its
# loop whenever it is woken while the VM is paused; every dirty-bitmap
# sync of a savevm or migration wakes it (tcg_log_global_after_sync does a
# run_on_cpu, which also drops the BQL). So the step runs in the middle of
# the save: after the final RAM sync, a FILL's VRAM writes are not saved
# but the device state saved after them says the FILL is done, and the
# guest, restored, finds a frame without its pixels. Likewise the engine
# runs after a load, before the VM does (post_load kicks it). The guest
# sees the same virtual time either way; the fix is in the device: no
# step while the VM is not running, restarted from a VM change-state
# handler (what issue 8 asks of post_load).

def state_lines(state):
    return json.dumps(state, indent=1, sort_keys=True).splitlines()


def diff(a, b, name_a, name_b):
    return '\n'.join(difflib.unified_diff(a, b, name_a, name_b, lineterm=''))


def same_state(t, before, after, what, name_a, name_b):
    """A stopped_device check that the two x-query-copro answers are
    equal, with the difference as comments."""
    if not t.stopped_device(after == before, what):
        t.comment(diff(state_lines(before), state_lines(after), name_a,
                       name_b))


class Env:
    def __init__(self, opts):
        sys.path.insert(0, opts.qemu_python)
        from qemu.qmp import ExecuteError
        from qemu.qmp.legacy import QEMUMonitorProtocol
        self.QMP = QEMUMonitorProtocol
        self.ExecuteError = ExecuteError
        self.qemu_run = opts.qemu_run
        self.image = opts.image
        self.args = opts.args
        self.moment = opts.moment
        self.timeout = float(os.environ.get('COPRO_TIMEOUT', '60'))
        self.tmpdir = tempfile.mkdtemp(prefix='copro-mig-')
        self.runs = 0

    def vm(self, name, **kw):
        self.runs += 1
        return Qemu(self, f'{self.runs:02d}-{name}', **kw)


def reference(env):
    """The uninterrupted run: its report, QEMU's exit status, the first
    line the image printed."""
    vm = env.vm('reference').launch()
    try:
        vm.cmd('cont')
        status = vm.wait_exit()
    finally:
        vm.kill()
    console = vm.console()
    lines = [line for line in console.splitlines() if line.strip()]
    return report_of(console), status, lines[0] if lines else ''


# Each subtest makes its own checks and returns the interrupted run's
# report.

def test_savevm(env, t):
    vm = env.vm('savevm').launch()
    try:
        # An empty file, formatted as qcow2 by QEMU itself: savevm keeps
        # the snapshot (RAM, VRAM and device state) inside. No guest
        # device uses it; savevm takes every writable image.
        img = os.path.join(vm.dir, 'snapshot.qcow2')
        open(img, 'wb').close()
        vm.cmd('blockdev-add', driver='file', filename=img,
               **{'node-name': 'snap-file'})
        vm.run_job('blockdev-create', **{'job-id': 'create'},
                   options={'driver': 'qcow2', 'file': 'snap-file',
                            'size': 1 << 20})
        vm.cmd('blockdev-add', driver='qcow2', file='snap-file',
               **{'node-name': 'snap'})
        wait_in_use(vm)
        saved, where = pick_moment(vm, env.moment)
        t.check(True, f'stopped mid-run: {where}')
        saved_console = vm.console_size()
        vm.run_job('snapshot-save', **{'job-id': 'save'}, tag='mid',
                   vmstate='snap', devices=['snap'])
        same_state(t, saved, vm.copro(), 'savevm into the qcow2 image; the '
                   'device did not change while the VM was stopped',
                   'at the stop', 'after savevm')

        # Run on, so that loadvm has something to undo: 5 ms of GPU time,
        # tens of the hog's WORK slices, maybe one more preemption; the
        # device stops the VM there (never the host's timing).
        t0 = saved[0]['gpu-time-ns']
        run_until_stop(vm, **{'time-ns': t0 + 5000000})
        later = vm.copro()
        t.check(True, f'the guest ran on past the snapshot: gpu time '
                f'{t0} -> {later[0]["gpu-time-ns"]} ns, '
                f'{total(later, "packets") - total(saved, "packets")} '
                f'packets more')
        discard = vm.console_size()

        vm.run_job('snapshot-load', **{'job-id': 'load'}, tag='mid',
                   vmstate='snap', devices=['snap'])
        loaded = vm.copro()
        t.check(loaded[0]['gpu-time-ns'] == t0, f'loadvm took the virtual '
                f'clock back to the snapshot ({loaded[0]["gpu-time-ns"]} '
                f'ns)')
        same_state(t, saved, loaded, 'loadvm restored the device state of '
                   'the snapshot (x-query-copro identical)', 'saved',
                   'loaded')
        vm.cmd('cont')
        status = vm.wait_exit()
    finally:
        vm.kill()
    t.outcome(status == GUEST_PASSED, f'the guest finished after loadvm '
              f'and passed (exit status {status})')
    # What the guest printed between savevm and loadvm never happened as
    # far as the restored guest is concerned.
    return report_of(vm.console(0, saved_console) + vm.console(discard))


def test_file(env, t):
    src = env.vm('file-source').launch()
    dst = None
    state_file = os.path.join(src.dir, 'state')
    try:
        src.enable_migration_events()
        wait_in_use(src)
        saved, where = pick_moment(src, env.moment)
        t.check(True, f'stopped mid-run: {where}')
        src.cmd('migrate', uri='file:' + state_file)
        src.wait_migration()
        same_state(t, saved, src.copro(), 'migrated to a file; the device '
                   'did not change while the VM was stopped', 'at the stop',
                   'after the migration')
        before = src.console()
        src.quit()
        # The source is gone: only the file links the two runs.
        dst = env.vm('file-destination', incoming=True).launch()
        dst.cmd('migrate-incoming', uri='file:' + state_file)
        dst.wait_status('paused')   # -S: paused once loaded
        same_state(t, saved, dst.copro(), 'a new QEMU loaded the file: '
                   'x-query-copro identical to the source\'s, gpu time '
                   'included', 'source', 'destination')
        dst.cmd('cont')
        status = dst.wait_exit()
    finally:
        src.kill()
        if dst:
            dst.kill()
    t.outcome(status == GUEST_PASSED, f'the new QEMU finished the run and '
              f'the guest passed (exit status {status})')
    return report_of(before + dst.console())


def test_live(env, t):
    src = env.vm('live-source').launch()
    dst = env.vm('live-destination', incoming=True).launch()
    try:
        # The migration must be live while the guest runs through its
        # preemptions and switch over only at the chosen moment: at
        # 64 KiB/s, with zero pages sent whole, pre-copy of the 320 MiB of
        # RAM and VRAM cannot converge within a 1 ms downtime, so RAM is
        # copied under dirty logging while the guest runs, until the
        # limits are lifted with the VM stopped at the moment. (Every
        # switchover happens with the VM stopped; here it is stopped by us
        # rather than by the migration thread.)
        src.cmd('migrate-set-parameters', **{'max-bandwidth': 64 << 10,
                                             'downtime-limit': 1,
                                             'zero-page-detection': 'none'})
        for vm in (src, dst):
            vm.enable_migration_events()
        wait_in_use(src)
        at_start = src.copro()
        uri = 'unix:' + os.path.join(dst.dir, 'migration.sock')
        dst.cmd('migrate-incoming', uri=uri)
        src.cmd('migrate', uri=uri)
        # The guest, stopped since wait_in_use, runs on only once the
        # migration is live: otherwise how far it gets while the migration
        # thread is still in setup depends on the host's speed
        src.wait_event('MIGRATION', lambda d: d['status'] == 'active')
        saved, where = pick_moment(src, env.moment)
        info = src.cmd('query-migrate')
        ran = {k: total(saved, k) - total(at_start, k)
               for k in ('packets', 'preemptions')}
        t.check(info['status'] == 'active' and ran['packets'] > 0,
                f'the guest ran on while the migration was live: '
                f'{saved[0]["gpu-time-ns"] - at_start[0]["gpu-time-ns"]} ns '
                f'of GPU time, {ran["packets"]} packets, '
                f'{ran["preemptions"]} preemptions ({info["status"]}, '
                f'{info.get("ram", {}).get("transferred", 0)} bytes sent)')
        t.check(True, f'switchover at: {where}')
        src.cmd('migrate-set-parameters', **{'max-bandwidth': 0,
                                             'downtime-limit': 300})
        src.wait_migration()
        dst.wait_migration()
        dst.wait_status('paused')   # -S: paused once loaded
        info = src.cmd('query-migrate')
        Tap.comment(f'migration: {info.get("total-time")} ms, downtime '
                    f'{info.get("downtime")} ms, '
                    f'{info.get("ram", {}).get("dirty-sync-count")} '
                    f'dirty-bitmap syncs')
        same_state(t, saved, src.copro(), 'migration completed; the device '
                   'did not change while the VM was stopped', 'at the stop',
                   'after the migration')
        same_state(t, saved, dst.copro(), 'the destination has the source\'s '
                   'device state (x-query-copro identical, gpu time '
                   'included)', 'source', 'destination')
        before = src.console()
        src.quit()
        dst.cmd('cont')
        status = dst.wait_exit()
    finally:
        src.kill()
        dst.kill()
    t.outcome(status == GUEST_PASSED, f'the destination finished the run '
              f'and the guest passed (exit status {status})')
    return report_of(before + dst.console())


def copro_pci(vm):
    """query-pci's entries for copro functions."""
    found = []
    for bus in vm.cmd('query-pci'):
        stack = list(bus['devices'])
        while stack:
            dev = stack.pop(0)
            if dev['id']['vendor'] == COPRO_PCI_ID['vendor'] and \
                    dev['id']['device'] == COPRO_PCI_ID['device']:
                found.append(dev)
            stack += dev.get('pci_bridge', {}).get('devices', [])
    return found


def without_clock(state):
    """x-query-copro without the clock, which a reset does not rewind."""
    return [{k: v for k, v in dev.items() if k != 'gpu-time-ns'}
            for dev in state]


def hmp_without_clock(text):
    return re.sub(r'gpu time \d+ ns', 'gpu time N ns', text)


def power_on_state(state):
    """What the spec says of a device just reset, field by field."""
    zero = ('ring-base', 'ring-size', 'ring-head', 'ring-tail',
            'current-context', 'current-fence', 'completed-fence',
            'fault-address', 'fault-fence', 'busy-ns', 'submissions',
            'packets', 'bytes', 'faults', 'tlb-hits', 'tlb-misses',
            'preemptions', 'preempt-min-ns', 'preempt-mean-ns',
            'preempt-max-ns', 'tiler-held', 'tiler-oom-fence')
    wrong = []
    for d, e in engines(state):
        if e['state'] != 'idle' or e['fault'] != 'none' or \
                e['preempt-pending']:
            wrong.append(f'device {d} engine {e["index"]}: {e["state"]}, '
                         f'fault {e["fault"]}, preemption pending '
                         f'{e["preempt-pending"]}')
        wrong += [f'device {d} engine {e["index"]}: {k} {e[k]}'
                  for k in zero if e[k]]
    for d, dev in enumerate(state):
        wrong += [f'device {d}: {k} {dev[k]}'
                  for k in ('int-status', 'int-mask', 'contexts',
                            'gart-base', 'gart-entries', 'gart-valid',
                            'context-table-base', 'context-table-size',
                            'address-spaces', 'mmu-faults') if dev[k]]
        if 'last-fault' in dev:
            wrong.append(f'device {d}: last-fault {dev["last-fault"]}')
    return wrong


def test_reset(env, t, first_line):
    vm = env.vm('reset').launch()
    try:
        # Power-on state: before the guest runs (-S), after QEMU's reset
        # of the machine at startup.
        power_on = vm.copro()
        power_on_hmp = vm.hmp('info copro')
        power_on_pci = copro_pci(vm)
        wait_in_use(vm)
        before, where = pick_moment(vm, env.moment)
        t.check(any(e['current-fence'] and e['state'] != 'idle'
                    for _, e in engines(before)),
                f'stopped in the middle of a buffer: {where}')
        rebooted_at = vm.console_size()
        # -no-reboot (reboot=shutdown) would turn system_reset into a
        # shutdown, and SeaBIOS resets the machine once more early in the
        # boot that follows a system_reset (it does so without copro too):
        # allow resets from here on. A guest that resets itself while it
        # runs shows as a second start of the image on the console.
        vm.cmd('set-action', reboot='reset')
        vm.cmd('system_reset')
        vm.wait_event('RESET', lambda d: not d.get('guest', True))
        after = vm.copro()

        wrong = power_on_state(after)
        if not t.check(not wrong, 'after system_reset: engines idle, rings '
                       'off, statistics zero, no interrupt pending or '
                       'enabled, GART and context table off'):
            t.comment('\n'.join(wrong))
        if not t.check(without_clock(after) == without_clock(power_on),
                       'x-query-copro equal to power-on (but the clock)'):
            t.comment(diff(state_lines(without_clock(power_on)),
                           state_lines(without_clock(after)),
                           'power-on', 'after reset'))
        hmp = vm.hmp('info copro')
        if not t.check(hmp_without_clock(hmp) ==
                       hmp_without_clock(power_on_hmp),
                       'info copro equal to power-on (but the clock)'):
            t.comment(diff(power_on_hmp.splitlines(), hmp.splitlines(),
                           'power-on', 'after reset'))
        pci = copro_pci(vm)
        if not t.check(pci and pci == power_on_pci, 'PCI function equal to '
                       'power-on (query-pci: command register, BARs, '
                       'interrupt line)'):
            t.comment(diff(state_lines(power_on_pci), state_lines(pci),
                           'power-on', 'after reset'))
        vm.cmd('cont')
        status = vm.wait_exit()
    finally:
        vm.kill()
    console = vm.console(rebooted_at)
    starts = console.splitlines().count(first_line)
    t.check(starts == 1, f'the image started once after the reset '
            f'({starts} times "{first_line}")')
    second = report_of(console)
    passes = sum(line.startswith('PASS:') for line in second)
    t.check(status == GUEST_PASSED and passes and
            not any(line.startswith('FAIL:') for line in second),
            f'the image booted again and passed: {passes} PASS, no FAIL, '
            f'exit through isa-debug-exit (status {status})')
    return second


SUBTESTS = {'savevm': test_savevm, 'file': test_file, 'live': test_live,
            'reset': test_reset}


def compare(env, t, ref, name):
    """The interrupted run must give the reference report, to the ns.

    -icount is not record/replay: QEMU documents that host events can
    still perturb a run, and scripts/check-deterministic.sh allows for two
    plain runs differing (rarely) on a loaded host. So when the report
    differs, the reference is run again: if the two references differ too,
    the host perturbed a run, and the interrupted run is tried once more
    (equal to either reference passes). If they agree, the difference is
    the interruption's: fail, without a second try, which would stop at
    another moment and could hide a bug that shows at this one."""
    refs = [ref]
    for attempt in (1, 2):
        got = SUBTESTS[name](env, t)
        if got in refs:
            break
        Tap.comment('report differs from the reference:')
        Tap.comment(diff(ref, got, 'reference', 'interrupted'))
        if attempt == 2 or t.bug_seen:
            break
        again, _, _ = reference(env)
        if again == ref:
            break
        refs.append(again)
        if got == again:
            break
        Tap.comment('the reference itself changed from run to run (host '
                    'perturbation of -icount): trying once more')
    t.outcome(got in refs, f'final report identical to the uninterrupted '
              f'run ({len(got)} lines, METRICS included)')


def compare_reset(t, ref, got):
    """After a reset the image runs again from the start, but the virtual
    clock runs on (a reset does not rewind it): a scenario that prints
    absolute GPU times prints other numbers. Its checks, and their
    outcome, must be the reference's."""
    def masked(report):
        return [re.sub(r'\d+', 'N', line) for line in report]
    if got == ref:
        Tap.comment('the second boot printed the reference report, to the '
                    'ns')
    if not t.check(masked(got) == masked(ref), f'second boot: the checks '
                   f'of the reference run, with their outcome '
                   f'({len(got)} lines; numbers aside)'):
        Tap.comment(diff(ref, got, 'reference', 'after reset'))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--qemu-python', required=True,
                    help="python/ directory of the QEMU tree")
    ap.add_argument('--test', required=True, choices=sorted(SUBTESTS))
    ap.add_argument('--moment', default='auto', choices=MOMENTS,
                    help='where to interrupt the run (default: auto, the '
                    'first preemption moment that comes)')
    ap.add_argument('--known-bug', metavar='TEXT',
                    help='mark failures with the known bug\'s signature '
                    'TODO, with TEXT as the reason')
    ap.add_argument('qemu_run')
    ap.add_argument('image')
    ap.add_argument('args', nargs=argparse.REMAINDER)
    opts = ap.parse_args()
    if not os.path.isfile(opts.image):
        print(f'Bail out! firmware image {opts.image} not found')
        return 1

    try:
        env = Env(opts)
    except ImportError as e:
        print(f'Bail out! QEMU\'s Python QMP library not found in '
              f'{opts.qemu_python}: {e}')
        return 1
    t = Tap(opts.known_bug)
    try:
        ref, status, first_line = reference(env)
        t.check(status == GUEST_PASSED and ref,
                f'reference run: {len(ref)} report lines, guest passed '
                f'(exit status {status})')
        if opts.test == 'reset':
            compare_reset(t, ref, test_reset(env, t, first_line))
        else:
            compare(env, t, ref, opts.test)
    except TestError as e:
        t.check(False, str(e))
    except Exception:
        # A bug of this script, or of the QMP library: still TAP.
        t.check(False, 'unexpected error')
        Tap.comment(traceback.format_exc())
    print(f'1..{t.n}')
    if t.failed:
        Tap.comment(f'runs kept in {env.tmpdir}')
    else:
        shutil.rmtree(env.tmpdir, ignore_errors=True)
    return 1 if t.failed else 0


if __name__ == '__main__':
    sys.exit(main())
