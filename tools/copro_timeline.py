# SPDX-License-Identifier: GPL-2.0-or-later
"""Read a copro device's timeline and make sense of it.

The device logs events (docs/specs/copro.rst, "Timeline"); this module
loads them, from a file written by x-copro-timeline or x-timeline-file or
live over QMP, and rebuilds what they describe:

- runs: an engine occupied by one submission, from its start to its
  retire, preemption, fault or reset (a fault then RETRY makes two runs);
- halts: an engine stopped on a fault until its reset or RETRY;
- queue spans: a DMA buffer in the OS, from the guest's "queue" marker to
  its "done" marker, linked to the engine runs of the fences the "ring"
  markers gave it;
- prepare spans: the OS preparing a buffer ("prepare-start" to
  "prepare-end");
- instants: everything else that happens at one moment.

tools/copro-trace (Perfetto), tools/copro-top (live view) and
scripts/plot-bench.py (pictures) all read runs through this one model.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Span:
    """Something that lasted: [start, end) in virtual ns."""

    def __init__(self, start, **attrs):
        self.start = start
        self.end = None
        self.end_kind = None    # what ended it ("retire", "preempted"...)
        self.unfinished = False     # still open when the log ended
        self.__dict__.update(attrs)

    def close(self, t, kind):
        self.end = t
        self.end_kind = kind

    def overlap(self, t0, t1):
        """ns of this span inside [t0, t1), an open span running on."""
        end = t1 if self.end is None else self.end
        return max(0, min(end, t1) - max(self.start, t0))


class Model:
    """What the events say, built incrementally (feed() more events)."""

    def __init__(self, engines=2, check=True):
        self.engines = engines
        self.check = check      # record problems (a filtered read cannot)
        self.runs = []          # Span(engine, context, fence, paging, buffer)
        self.halts = []         # Span(engine, fault)
        self.queues = []        # Span(context, buffer, status)
        self.prepares = []      # Span(engine, context, buffer)
        self.instants = []      # (time, event)
        self.flows = []         # (queue Span, run Span)
        self.queue_frames = []  # (time, engine, queue, budget-ns, frame-ns)
        self.problems = []      # what a well-formed log never shows
        self.first_time = None
        self.known_since = None     # events since this time are all here
        self.last_time = None
        self.last_seq = None
        self._run = {}          # engine -> open run
        self._halt = {}         # engine -> open halt
        self._queue = {}        # buffer -> open queue span
        self._prepare = {}      # engine -> open prepare span
        self._fence_buf = {}    # (engine, fence) -> buffer
        self._unlinked = {}     # (engine, fence) -> run without its buffer
        self._linked = set()    # buffers whose first run has its flow
        self._requests = {}     # engine -> preempt fences requested

    def problem(self, ev, what):
        if not self.check:
            return
        self.problems.append("seq %d (%s at %d ns): %s" % (
            ev["seq"], ev["kind"], ev["time-ns"], what))

    def feed(self, events, contiguous=True):
        """contiguous: every event since the last one fed is here, so a
        gap in the numbering means the device dropped some."""
        for ev in events:
            t = ev["time-ns"]
            if contiguous and self.last_seq is not None and \
                    ev["seq"] != self.last_seq + 1:
                # a gap: events were dropped (the log was full)
                self.drop_state()
                self.known_since = t
            self.last_seq = ev["seq"]
            if self.last_time is not None and t < self.last_time:
                self.problem(ev, "time goes backwards")
            if self.first_time is None:
                self.first_time = self.known_since = t
            self.last_time = t
            handler = getattr(self, "on_" + ev["kind"].replace("-", "_"),
                              None)
            if handler:
                handler(ev, t, ev.get("args", {}))
            else:
                self.instants.append((t, ev))

    def prune(self, t):
        """Forget what ended before t (a live view keeps only the recent
        past)."""
        self.runs = [r for r in self.runs if r.end is None or r.end > t]
        self.halts = [h for h in self.halts if h.end is None or h.end > t]
        self.queues = [q for q in self.queues if q.end is None or q.end > t]
        self.prepares = [p for p in self.prepares
                         if p.end is None or p.end > t]
        self.instants = [i for i in self.instants if i[0] >= t]
        self.queue_frames = [f for f in self.queue_frames if f[0] >= t]
        self.flows = [f for f in self.flows if f[1].end is None or
                      f[1].end > t]

    def drop_state(self):
        """After a gap nothing open can be trusted: what was open ends
        where the log stopped telling (marked unfinished)."""
        t = self.last_time
        for spans in (self._run, self._halt, self._prepare):
            for sp in spans.values():
                sp.close(max(t, sp.start), "events dropped")
                sp.unfinished = True
            spans.clear()
        self._requests.clear()

    def finish(self, t=None):
        """Close what is still open at t (default: the last event)."""
        t = self.last_time if t is None else t
        for spans in (self._run, self._halt, self._queue, self._prepare):
            for s in spans.values():
                s.close(max(t, s.start), "unfinished")
                s.unfinished = True
            spans.clear()

    # ---- engines ----

    def end_run(self, ev, t, kind):
        run = self._run.pop(ev["engine"], None)
        if run:
            run.close(t, kind)
        return run

    def begin_run(self, ev, t, fence, paging):
        e = ev["engine"]
        if e in self._run:
            self.problem(ev, "engine %d starts while it runs" % e)
            self.end_run(ev, t, "overlapped")
        buf = self._fence_buf.get((e, fence))
        run = Span(t, engine=e, context=ev.get("context"), fence=fence,
                   paging=paging, buffer=None)
        self._run[e] = run
        self.runs.append(run)
        if buf is None:
            # the OS says which buffer it is once its doorbell returns,
            # often after the engine started it (a log without markers:
            # never; keep only the latest few)
            self._unlinked[(e, fence)] = run
            if len(self._unlinked) > 64:
                del self._unlinked[next(iter(self._unlinked))]
        else:
            self.link(run, buf)
        return run

    def link(self, run, buf):
        run.buffer = buf
        q = self._queue.get(buf)
        if q and buf not in self._linked:
            self._linked.add(buf)
            self.flows.append((q, run))

    def on_start(self, ev, t, a):
        self.begin_run(ev, t, a["fence"], a["paging"])
        self.instants.append((t, ev))

    def on_retire(self, ev, t, a):
        if not self.end_run(ev, t, "retire"):
            # its start is older than the log: it ran since at least then
            run = Span(self.known_since, engine=ev["engine"],
                       context=ev.get("context"), fence=a["fence"],
                       paging=a["paging"], buffer=None)
            run.close(t, "retire")
            self.runs.append(run)

    def on_preempt_request(self, ev, t, a):
        self._requests.setdefault(ev["engine"], set()).add(
            a["preempt-fence"])
        self.instants.append((t, ev))

    def on_preempt_saved(self, ev, t, a):
        requested = t - a["latency-ns"]
        if a["preempt-fence"] not in self._requests.get(ev["engine"], ()) \
                and requested >= self.known_since:
            self.problem(ev, "no request for preemption fence %d"
                         % a["preempt-fence"])
        self._requests.pop(ev["engine"], None)
        if a["fence"]:
            self.end_run(ev, t, "preempted")
        self.instants.append((t, ev))

    # ---- hardware queues (the device's own scheduler) ----

    def on_queue_switch_out(self, ev, t, a):
        # a device switch: the run (if one is open) ends, no request
        self.end_run(ev, t, "switch-out: %s" % a.get("reason"))
        self.instants.append((t, ev))

    def on_queue_frame(self, ev, t, a):
        self.queue_frames.append((t, ev.get("engine"), a["queue"],
                                  a["budget-ns"], a["frame-ns"]))

    def on_fault(self, ev, t, a):
        self.end_run(ev, t, "fault")
        self._halt[ev["engine"]] = h = Span(t, engine=ev["engine"],
                                            fault=a["fault"])
        self.halts.append(h)
        self.instants.append((t, ev))

    def on_retry(self, ev, t, a):
        h = self._halt.pop(ev["engine"], None)
        if h:
            h.close(t, "retry")
        if a["fence"]:
            self.begin_run(ev, t, a["fence"], False)
        self.instants.append((t, ev))

    def on_reset(self, ev, t, a):
        self.end_run(ev, t, "reset")
        h = self._halt.pop(ev["engine"], None)
        if h:
            h.close(t, "reset")
        self._requests.pop(ev["engine"], None)
        self.instants.append((t, ev))

    def on_device_reset(self, ev, t, a):
        for e in list(self._run):
            self._run.pop(e).close(t, "device-reset")
        for e in list(self._halt):
            self._halt.pop(e).close(t, "device-reset")
        self._requests.clear()
        self.instants.append((t, ev))

    # ---- the OS's markers ----

    def on_queue(self, ev, t, a):
        buf = a["buffer"]
        if buf in self._queue:
            self.problem(ev, "buffer %#x queued twice" % buf)
            self._queue.pop(buf).close(t, "requeued")
        self._queue[buf] = q = Span(t, context=ev["context"], buffer=buf,
                                    engine=ev.get("engine"), status=None)
        self._linked.discard(buf)
        self.queues.append(q)

    def on_ring(self, ev, t, a):
        key = (ev["engine"], a["fence"])
        self._fence_buf[key] = a["buffer"]
        run = self._unlinked.pop(key, None)
        if run:
            self.link(run, a["buffer"])
        self.instants.append((t, ev))

    def on_done(self, ev, t, a):
        q = self._queue.pop(a["buffer"], None)
        if q:
            q.status = a["status"]
            q.close(t, "done" if a["status"] == 0 else "error")

    def on_prepare_start(self, ev, t, a):
        e = ev.get("engine")
        if e in self._prepare:
            self._prepare.pop(e).close(t, "restarted")
        self._prepare[e] = p = Span(t, engine=e, context=ev["context"],
                                    buffer=a["buffer"])
        self.prepares.append(p)

    def on_prepare_end(self, ev, t, a):
        p = self._prepare.pop(ev.get("engine"), None)
        if p:
            p.close(t, "prepared")

    # ---- questions ----

    def queue_depth_changes(self):
        """[(time, context, depth)] as buffers enter and leave the OS."""
        steps = []
        for q in self.queues:
            steps.append((q.start, 1, q.context))
            if q.end is not None:
                steps.append((q.end, -1, q.context))
        depth = {}
        out = []
        for t, d, ctx in sorted(steps, key=lambda s: (s[0], s[1])):
            depth[ctx] = depth.get(ctx, 0) + d
            out.append((t, ctx, depth[ctx]))
        return out


def load(path):
    """A timeline file (x-copro-timeline's object): (header, events)."""
    with open(path) as f:
        obj = json.load(f)
    if "return" in obj:         # a QMP answer saved as it came
        obj = obj["return"]
    events = obj.pop("events")
    return obj, events


def model_of(header, events, finish=True):
    m = Model(header.get("engines", 2))
    m.feed(events)
    if finish:
        m.finish()
    return m


# ---- QMP, through QEMU's own Python library ----

def default_qemu_python():
    """build/qemu/src/python of the checkout this tool lives in."""
    return os.path.join(os.path.dirname(HERE), "build", "qemu", "src",
                        "python")


def qmp_connect(address, qemu_python=None):
    """A connected QEMUMonitorProtocol (qemu.qmp.legacy) to a socket path
    or host:port."""
    path = qemu_python or os.environ.get("COPRO_QEMU_PYTHON") or \
        default_qemu_python()
    if path not in sys.path:
        sys.path.insert(0, path)
    try:
        from qemu.qmp.legacy import QEMUMonitorProtocol
    except ImportError as e:
        sys.exit("cannot import qemu.qmp from %s (%s): build QEMU first "
                 "(make build) or pass --qemu-python" % (path, e))
    if ":" in address and not os.path.exists(address):
        host, port = address.rsplit(":", 1)
        address = (host, int(port))
    qmp = QEMUMonitorProtocol(address)
    qmp.connect()
    return qmp


def fetch(qmp, since=0, device=None, page=4096, kinds=None):
    """Events from since on (of these kinds only, if given), read in pages
    (a QMP answer stays small): (header of the last read, events)."""
    events = []
    while True:
        args = {"since": since, "max": page}
        if device:
            args["device"] = device
        if kinds:
            args["kinds"] = list(kinds)
        head = qmp.cmd("x-copro-timeline", **args)
        got = head.pop("events")
        events.extend(got)
        if len(got) < page:
            return head, events
        since = got[-1]["seq"] + 1
