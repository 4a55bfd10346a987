#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Unit tests of tools/copro_timeline.py and tools/copro-trace on made-up
events: the cases a real run rarely shows (a log that starts in the middle
of a run, events dropped, the OS naming a buffer after the engine started
it, a fault then RETRY, a device reset with work in flight, a save
without its request) and what the trace makes of them."""

import importlib.machinery
import importlib.util
import os
import sys
import unittest

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "tools")
sys.path.insert(0, TOOLS)
import copro_timeline as tl  # noqa: E402

_loader = importlib.machinery.SourceFileLoader(
    "copro_trace", os.path.join(TOOLS, "copro-trace"))
_spec = importlib.util.spec_from_loader("copro_trace", _loader)
trace = importlib.util.module_from_spec(_spec)
_loader.exec_module(trace)


class Log:
    """Events as the device numbers them."""

    def __init__(self, seq=0):
        self.events = []
        self.seq = seq

    def add(self, t, kind, engine=None, context=None, source="engine",
            **args):
        ev = {"seq": self.seq, "time-ns": t, "kind": kind,
              "source": source, "args": dict(
                  (k.replace("_", "-"), v) for k, v in args.items())}
        if engine is not None:
            ev["engine"] = engine
        if context is not None:
            ev["context"] = context
        self.events.append(ev)
        self.seq += 1
        return self

    def skip(self, n):
        self.seq += n
        return self

    def start(self, t, ctx, fence, e=0, paging=False, resume=False):
        return self.add(t, "start", e, ctx, fence=fence, paging=paging,
                        resume=resume, slot=0)

    def retire(self, t, ctx, fence, e=0):
        return self.add(t, "retire", e, ctx, fence=fence, paging=False)

    def mark(self, t, kind, ctx, e=0, **args):
        return self.add(t, kind, e, ctx, source="guest", **args)

    def model(self):
        return tl.model_of({"engines": 2}, self.events)


class ModelTest(unittest.TestCase):
    def test_runs(self):
        m = Log().start(10, 1, 1).retire(30, 1, 1).start(30, 2, 2) \
            .retire(35, 2, 2).model()
        self.assertEqual([(r.start, r.end, r.context, r.end_kind)
                          for r in m.runs],
                         [(10, 30, 1, "retire"), (30, 35, 2, "retire")])
        self.assertEqual(m.problems, [])

    def test_start_while_running_is_a_problem(self):
        m = Log().start(10, 1, 1).start(20, 2, 2).model()
        self.assertEqual(len(m.problems), 1)
        self.assertEqual(m.runs[0].end, 20)     # closed, never overlapping

    def test_retire_of_a_run_older_than_the_log(self):
        m = Log(seq=100).add(50, "doorbell", 0, head=0, tail=1) \
            .retire(70, 3, 9).model()
        self.assertEqual([(r.start, r.end, r.context) for r in m.runs],
                         [(50, 70, 3)])
        self.assertEqual(m.problems, [])

    def test_hardware_queue_switches_and_frames(self):
        # the device's own switch ends the run without a request, and
        # each queue's frame becomes a budget and a frame-time counter
        log = (Log().add(0, "queue-switch-in", 0, 7, queue=3, fence=5,
                         resumed=False, band=1)
               .start(0, 7, 5)
               .add(300, "queue-switch-out", 0, 7, queue=3,
                    reason="quantum", run_ns=300, band=1)
               .add(400, "queue-frame", 0, 7, queue=3, band=1,
                    budget_ns=1000, frame_ns=300))
        m = log.model()
        self.assertEqual(m.problems, [])
        self.assertEqual(len(m.runs), 1)
        self.assertEqual(m.runs[0].end, 300)
        self.assertEqual(m.runs[0].end_kind, "switch-out: quantum")
        self.assertEqual(m.queue_frames, [(400, 0, 3, 1000, 300)])
        out = trace.convert({"engines": 2}, m)["traceEvents"]
        counters = sorted((e["name"], e["args"]["ns"]) for e in out
                          if e.get("ph") == "C" and e.get("pid") == trace.HWQ)
        self.assertEqual(counters, [("queue 3 budget", 1000),
                                    ("queue 3 frame time", 300)])

    def test_preemption_needs_its_request(self):
        ok = Log().start(0, 1, 1) \
            .add(10, "preempt-request", 0, 1, preempt_fence=5, fence=1) \
            .add(20, "preempt-saved", 0, 1, preempt_fence=5, fence=1,
                 offset=4, dropped=0, latency_ns=10).model()
        self.assertEqual(ok.problems, [])
        self.assertEqual(ok.runs[0].end_kind, "preempted")
        bad = Log().start(0, 1, 1) \
            .add(20, "preempt-saved", 0, 1, preempt_fence=5, fence=1,
                 offset=4, dropped=0, latency_ns=10).model()
        self.assertEqual(len(bad.problems), 1)
        # a request older than the log: not the log's fault
        old = Log().start(15, 1, 1) \
            .add(20, "preempt-saved", 0, 1, preempt_fence=5, fence=1,
                 offset=4, dropped=0, latency_ns=10).model()
        self.assertEqual(old.problems, [])

    def test_gap_forgets_open_state(self):
        m = Log().start(0, 1, 1).add(5, "doorbell", 0, head=1, tail=2) \
            .skip(5).retire(50, 1, 1).model()
        # after dropped events the run may have ended and another begun:
        # the open one ends where the log stopped telling, and the retire
        # makes a run from the first event after the gap
        self.assertEqual([(r.start, r.end, r.unfinished) for r in m.runs],
                         [(0, 5, True), (50, 50, False)])

    def test_fault_retry_reset(self):
        m = Log().start(0, 4, 7) \
            .add(10, "fault", 0, 4, fault="page fault", code=11, address=1,
                 offset=0, fence=7) \
            .add(20, "retry", 0, 4, fault="page fault", fence=7) \
            .add(30, "fault", 0, 4, fault="page fault", code=11, address=1,
                 offset=0, fence=7) \
            .add(40, "reset", 0, 4, aborted_fence=7, completed_fence=0) \
            .model()
        self.assertEqual([(r.start, r.end, r.end_kind) for r in m.runs],
                         [(0, 10, "fault"), (20, 30, "fault")])
        self.assertEqual([(h.start, h.end, h.end_kind) for h in m.halts],
                         [(10, 20, "retry"), (30, 40, "reset")])

    def test_device_reset_ends_everything(self):
        m = Log().start(0, 1, 1).start(0, 2, 2, e=1) \
            .add(5, "device-reset", source="device").model()
        self.assertEqual(sorted((r.engine, r.end, r.end_kind)
                                for r in m.runs),
                         [(0, 5, "device-reset"), (1, 5, "device-reset")])

    def test_queue_linked_when_the_ring_marker_comes_late(self):
        m = Log().mark(0, "queue", 3, buffer=0xb1, bytes=64) \
            .start(10, 3, 1) \
            .mark(11, "ring", 3, buffer=0xb1, fence=1) \
            .retire(20, 3, 1) \
            .mark(25, "done", 3, buffer=0xb1, status=0).model()
        self.assertEqual(len(m.flows), 1)
        q, run = m.flows[0]
        self.assertEqual((q.start, q.end, run.start, run.buffer),
                         (0, 25, 10, 0xb1))

    def test_resubmitted_buffer_has_one_flow(self):
        m = Log().mark(0, "queue", 3, buffer=0xb1, bytes=64) \
            .mark(1, "ring", 3, buffer=0xb1, fence=1).start(2, 3, 1) \
            .add(5, "preempt-request", 0, 3, preempt_fence=1, fence=1) \
            .add(6, "preempt-saved", 0, 3, preempt_fence=1, fence=1,
                 offset=4, dropped=0, latency_ns=1) \
            .mark(7, "ring", 3, buffer=0xb1, fence=2) \
            .start(8, 3, 2, resume=True).retire(9, 3, 2) \
            .mark(10, "done", 3, buffer=0xb1, status=0).model()
        self.assertEqual(len(m.flows), 1)
        self.assertEqual([r.buffer for r in m.runs], [0xb1, 0xb1])

    def test_queue_depth(self):
        m = Log().mark(0, "queue", 3, buffer=1, bytes=4) \
            .mark(1, "queue", 3, buffer=2, bytes=4) \
            .mark(2, "done", 3, buffer=1, status=0) \
            .mark(3, "done", 3, buffer=2, status=-7).model()
        self.assertEqual(m.queue_depth_changes(),
                         [(0, 3, 1), (1, 3, 2), (2, 3, 1), (3, 3, 0)])
        self.assertEqual([q.end_kind for q in m.queues], ["done", "error"])

    def test_unfinished_spans_closed_at_the_end(self):
        m = Log().mark(0, "queue", 3, buffer=1, bytes=4).start(5, 3, 1) \
            .add(9, "vsync", source="display", count=1).model()
        self.assertTrue(all(s.unfinished and s.end == 9
                            for s in m.runs + m.queues))

    def test_window_overlap(self):
        s = tl.Span(10)
        self.assertEqual(s.overlap(0, 15), 5)      # open: runs on
        s.close(20, "retire")
        self.assertEqual(s.overlap(15, 100), 5)
        self.assertEqual(s.overlap(20, 30), 0)


class TraceTest(unittest.TestCase):
    def convert(self, log):
        return trace.convert({"engines": 2, "path": "/x"}, log.model())

    def test_spans_closed_and_ordered(self):
        log = Log().mark(0, "queue", 3, buffer=1, bytes=4) \
            .mark(1, "queue", 3, buffer=2, bytes=4) \
            .mark(2, "ring", 3, buffer=1, fence=1).start(2, 3, 1) \
            .retire(4, 3, 1).mark(4, "ring", 3, buffer=2, fence=2) \
            .start(4, 3, 2).retire(4, 3, 2) \
            .mark(5, "done", 3, buffer=1, status=0)
        evs = self.convert(log)["traceEvents"]
        stacks = {}
        for e in evs:
            if e["ph"] == "B":
                stacks.setdefault((e["pid"], e["tid"]), []).append(e)
            elif e["ph"] == "E":
                b = stacks[(e["pid"], e["tid"])].pop()
                self.assertEqual(b["name"], e["name"])
                self.assertLessEqual(b["ts"], e["ts"])
        self.assertTrue(all(not s for s in stacks.values()))
        # two buffers queued at once: two lanes of the context's queue
        lanes = {e["args"]["name"] for e in evs
                 if e["ph"] == "M" and e["name"] == "thread_name" and
                 e["args"]["name"].startswith("ctx")}
        self.assertEqual(lanes, {"ctx 3 queue", "ctx 3 queue #2"})
        flows = [e for e in evs if e["ph"] in ("s", "f")]
        self.assertEqual(sorted(e["ph"] for e in flows), ["f", "f", "s", "s"])

    def test_zero_length_run_keeps_b_before_e(self):
        evs = self.convert(Log().start(7, 1, 1).retire(7, 1, 1)
                           .start(7, 1, 2).retire(9, 1, 2))["traceEvents"]
        seq = [(e["ph"], e["ts"]) for e in evs if e["ph"] in "BE"]
        self.assertEqual(seq, [("B", 0.007), ("E", 0.007), ("B", 0.007),
                               ("E", 0.009)])

    def test_preemption_instants_carry_the_fence(self):
        evs = self.convert(
            Log().start(0, 1, 1)
            .add(10, "preempt-request", 0, 1, preempt_fence=5, fence=1)
            .add(20, "preempt-saved", 0, 1, preempt_fence=5, fence=1,
                 offset=4, dropped=0, latency_ns=10))["traceEvents"]
        inst = [(e["name"], e["args"]["preempt-fence"]) for e in evs
                if e["ph"] == "i"]
        self.assertEqual(inst, [("preempt-request", 5),
                                ("preempt-saved", 5)])

    def test_tiler_stages(self):
        """The tiler's stage events become slices on a "stages" track of
        each engine: geometry on one, the tile passes on another, a pass
        still open at the end unfinished; an OOM is an engine instant."""
        evs = self.convert(
            Log().start(0, 1, 1)
            .add(10, "scene-begin", 0, 1, scene=0x1000, fence=1)
            .add(20, "tiler-oom", 0, 1, scene=0x1000, need=64)
            .add(30, "tile-pass-start", 2, 1, scene=0x1000, partial=True)
            .add(40, "tile-pass-end", 2, 1, scene=0x1000, partial=True)
            .add(50, "scene-end", 0, 1, scene=0x1000, prims=3)
            .add(60, "tile-pass-start", 2, 1, scene=0x1000, partial=False)
            .retire(70, 1, 1))["traceEvents"]
        slices = [(e["tid"], e["name"], e["ts"] * 1000) for e in evs
                  if e["ph"] == "B" and e.get("cat") == "stage"]
        self.assertEqual(slices, [(10, "geometry", 10),
                                  (12, "tiles (partial)", 30),
                                  (12, "tiles", 60)])
        ends = [e for e in evs if e["ph"] == "E" and e.get("cat") == "stage"]
        self.assertEqual([e["ts"] * 1000 for e in ends], [40, 50, 70])
        self.assertTrue(ends[-1]["args"]["unfinished"])
        self.assertIn("tiler-oom", [e["name"] for e in evs
                                    if e["ph"] == "i"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
