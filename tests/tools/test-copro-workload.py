#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tools/copro_workload.py against good and bad workload files: the
library's files load, every bad file is refused whole with the line and
the field named, and the ideal figures follow from the description."""

import os
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import copro_workload as cw  # noqa: E402

GOOD = """\
name = "two"
duration_ms = 100

[[client]]
name = "a"
job = { work_ns = 1000000 }
sleep_us = 1000

[[client]]
name = "b"
priority = "low"
jobs_per_cycle = 2
job = { work_ns = 4000000 }
submit = "async"
"""


def load_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".toml",
                                     delete=False) as f:
        f.write(text)
    try:
        return cw.load(f.name)
    finally:
        os.unlink(f.name)


class Good(unittest.TestCase):
    def test_library(self):
        d = os.path.join(ROOT, "workloads")
        names = sorted(x for x in os.listdir(d) if x.endswith(".toml"))
        self.assertGreaterEqual(len(names), 4)
        for n in names:
            w = cw.load(os.path.join(d, n))
            self.assertEqual(w.name + ".toml", n)

    def test_fields_and_defaults(self):
        w = load_text(GOOD)
        a, b = w.clients
        self.assertEqual((a.priority, a.jobs_per_cycle, a.submit,
                          a.start_ms, a.stop_ms), ("normal", 1, "sync", 0,
                                                   100))
        self.assertEqual((b.priority, b.jobs_per_cycle, b.submit),
                         ("low", 2, "async"))
        self.assertEqual((b.job.kind, b.job.value), ("work_ns", 4000000))

    def test_ideal(self):
        a, b = load_text(GOOD).clients
        # a: 1 ms + 100 ns of packet, then 1 ms asleep: 100 ms / 2.0001 ms
        # (cycles begin while the clock is before the stop: 49.99 is 50)
        self.assertEqual(cw.ideal_cycles(a, 100), 50)
        self.assertEqual(cw.ideal_gpu_ns(a, 49, 100), 49 * 1000100)
        # b: two 4 ms jobs a cycle: 100 ms / 8.0002 ms
        self.assertEqual(cw.ideal_cycles(b, 100), 13)
        # presenting at 60 Hz: at most one cycle a period
        w = load_text(GOOD.replace('sleep_us = 1000',
                                   'present = { deadline_us = 16666 }'))
        self.assertEqual(cw.ideal_cycles(w.clients[0], 100, 16666667), 5)


class Bad(unittest.TestCase):
    def refused(self, text, field, line):
        with self.assertRaises(cw.WorkloadError) as e:
            load_text(text)
        self.assertEqual(e.exception.field, field, str(e.exception))
        self.assertEqual(e.exception.line, line, str(e.exception))
        self.assertIn(":%d: " % line if line else ": ", str(e.exception))

    def test_syntax(self):
        self.refused(GOOD.replace('sleep_us = 1000', 'sleep_us = '),
                     "syntax", 7)

    def test_unknown_field(self):
        self.refused(GOOD.replace('sleep_us', 'slep_us'),
                     "client[0].slep_us", 7)
        self.refused("colour = 1\n" + GOOD, "colour", 1)

    def test_job(self):
        self.refused(GOOD.replace('{ work_ns = 1000000 }',
                                  '{ work_ns = 1, fill_bytes = 4 }'),
                     "client[0].job", 6)
        self.refused(GOOD.replace('job = { work_ns = 1000000 }\n', ''),
                     "client[0].job", 4)
        self.refused(GOOD.replace('{ work_ns = 4000000 }',
                                  '{ fill_bytes = 6 }'),
                     "client[1].job.fill_bytes", 13)
        self.refused(GOOD.replace('{ work_ns = 4000000 }',
                                  '{ rect = [0, 8] }'),
                     "client[1].job.rect", 13)

    def test_values(self):
        self.refused(GOOD.replace('"low"', '"urgent"'),
                     "client[1].priority", 11)
        self.refused(GOOD.replace('"async"', '"maybe"'),
                     "client[1].submit", 14)
        self.refused(GOOD.replace('jobs_per_cycle = 2',
                                  'jobs_per_cycle = 0'),
                     "client[1].jobs_per_cycle", 12)
        self.refused(GOOD.replace('duration_ms = 100', 'duration_ms = -1'),
                     "duration_ms", 2)
        self.refused(GOOD.replace('sleep_us = 1000',
                                  'sleep_us = 1000\nstop_ms = 0'),
                     "client[0].stop_ms", 8)

    def test_names_and_dependencies(self):
        self.refused(GOOD.replace('name = "b"', 'name = "a"'),
                     "client[1].name", 10)
        self.refused(GOOD.replace('submit = "async"',
                                  'depends_on = "nobody"'),
                     "client[1].depends_on", 14)
        self.refused(GOOD.replace('sleep_us = 1000', 'depends_on = "b"')
                     .replace('submit = "async"', 'depends_on = "a"'),
                     "client[0].depends_on", 7)

    def test_no_clients(self):
        self.refused('name = "x"\nduration_ms = 5\n', "client", 0)

    def test_missing_file(self):
        with self.assertRaises(cw.WorkloadError) as e:
            cw.load("/nonexistent/w.toml")
        self.assertEqual(e.exception.field, "file")


if __name__ == "__main__":
    result = unittest.main(exit=False).result
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed" % (result.testsRun - failed, failed))
    sys.exit(1 if failed else 0)
