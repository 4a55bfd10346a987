# SPDX-License-Identifier: GPL-2.0-or-later
"""Workload files (docs/workloads.rst): a GPU workload as data.

A workload is a TOML file (Python's tomllib parses it) naming clients,
each a process that runs cycles of GPU jobs: how many jobs, of what
work, with what CPU sleep between cycles, synchronous or not, presenting
at vsync or not. load() parses and checks a file and returns a Workload;
every error names the file, the line where it can be found, and the
field (WorkloadError). Nothing is half-configured: a file with one bad
field is refused whole.

    python3 tools/copro_workload.py FILE...   # check files, print a summary

The runners (the copro OS image, the Linux guest tool) take what this
module checks; the ideal figures (ideal_cycles, ideal_gpu_ns) are what a
client would reach with the GPU to itself, the yardstick their metrics
are measured against.
"""

import dataclasses
import re
import sys
import tomllib

PRIORITIES = ("low", "normal", "high")
SUBMITS = ("sync", "async")
# one job's GPU work: exactly one of these keys (docs/workloads.rst)
WORK_KINDS = {
    "work_ns": int,       # WORK packet: this many ns of device time
    "fill_bytes": int,    # FILL of a buffer this size
    "copy_bytes": int,    # COPY of a buffer this size
    "rect": list,         # RECT [width, height] on an XRGB8888 target
}
CLIENT_KEYS = {"name", "priority", "jobs_per_cycle", "job", "sleep_us",
               "submit", "present", "working_set", "depends_on",
               "start_ms", "stop_ms", "cycles"}
TOP_KEYS = {"name", "description", "duration_ms", "client"}
MAX_CLIENTS = 16
MAX_JOBS_PER_CYCLE = 64
MAX_WORK_NS = 10_000_000_000        # 10 s of device time in one job
MAX_BYTES = 256 << 20
MAX_DURATION_MS = 600_000


class WorkloadError(ValueError):
    """A file that cannot run: where and why."""

    def __init__(self, path, line, field, why):
        self.path, self.line, self.field, self.why = path, line, field, why
        where = "%s:%d" % (path, line) if line else path
        super().__init__("%s: %s: %s" % (where, field, why))


@dataclasses.dataclass
class Job:
    kind: str           # one of WORK_KINDS
    value: object       # ns, bytes, or [w, h]


@dataclasses.dataclass
class Client:
    name: str
    priority: str
    jobs_per_cycle: int
    job: Job
    sleep_us: int
    submit: str
    present: bool
    deadline_us: int    # 0: none
    allocations: int    # working set: allocations touched per job
    allocation_bytes: int
    depends_on: str     # "" or another client's name
    start_ms: int
    stop_ms: int
    cycles: int         # 0: as many as fit


@dataclasses.dataclass
class Workload:
    path: str
    name: str
    description: str
    duration_ms: int
    clients: list


def _line_of(text, client_index, key):
    """The line of KEY in the CLIENT_INDEX-th [[client]] table (1-based
    line numbers), or of KEY at the top when CLIENT_INDEX is None; 0 when
    it cannot be found. Only for messages: tomllib did the parsing."""
    lines = text.splitlines()
    start, end, seen = 0, len(lines), -1
    if client_index is not None:
        for i, s in enumerate(lines):
            if re.match(r"\s*\[\[\s*client\s*\]\]", s):
                seen += 1
                if seen == client_index:
                    start = i
                elif seen == client_index + 1:
                    end = i
                    break
        if seen < client_index:
            return 0
    else:
        for i, s in enumerate(lines):
            if re.match(r"\s*\[", s):
                end = i
                break
    if key is None:
        return start + 1
    pat = re.compile(r"\s*%s\s*[=.]" % re.escape(key))
    for i in range(start, end):
        if pat.match(lines[i]):
            return i + 1
    return start + 1 if client_index is not None else 0


def _int(v, lo, hi):
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def load(path):
    """Parse and check the workload file at PATH."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise WorkloadError(path, 0, "file", e.strerror) from None
    text = raw.decode("utf-8", "replace")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise WorkloadError(path, int(m.group(1)) if m else 0, "syntax",
                            str(e)) from None
    return check(doc, path, text)


def check(doc, path="<workload>", text=""):
    """Check a parsed document; return a Workload or raise WorkloadError."""

    def fail(ci, key, why, field=None):
        name = field or (key if ci is None else "client[%d].%s" % (ci, key))
        raise WorkloadError(path, _line_of(text, ci, key.split(".")[0]),
                            name, why)

    for k in doc:
        if k not in TOP_KEYS:
            fail(None, k, "unknown field (known: %s)" %
                 ", ".join(sorted(TOP_KEYS)))
    name = doc.get("name", "")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_-]{1,40}",
                                                    name):
        fail(None, "name", "a name of 1 to 40 characters a-z 0-9 _ - is "
             "required")
    duration = doc.get("duration_ms")
    if not _int(duration, 1, MAX_DURATION_MS):
        fail(None, "duration_ms", "an integer from 1 to %d is required" %
             MAX_DURATION_MS)
    raw_clients = doc.get("client")
    if not isinstance(raw_clients, list) or not raw_clients:
        fail(None, "client", "at least one [[client]] table is required")
    if len(raw_clients) > MAX_CLIENTS:
        fail(None, "client", "at most %d clients" % MAX_CLIENTS)

    clients = []
    for ci, c in enumerate(raw_clients):
        for k in c:
            if k not in CLIENT_KEYS:
                fail(ci, k, "unknown field (known: %s)" %
                     ", ".join(sorted(CLIENT_KEYS)))
        cname = c.get("name")
        if not isinstance(cname, str) or not re.fullmatch(
                r"[a-z0-9_-]{1,16}", cname):
            fail(ci, "name", "a name of 1 to 16 characters a-z 0-9 _ - is "
                 "required")
        if any(x.name == cname for x in clients):
            fail(ci, "name", "%r names two clients" % cname)
        prio = c.get("priority", "normal")
        if prio not in PRIORITIES:
            fail(ci, "priority", "one of %s" % ", ".join(PRIORITIES))
        jpc = c.get("jobs_per_cycle", 1)
        if not _int(jpc, 1, MAX_JOBS_PER_CYCLE):
            fail(ci, "jobs_per_cycle", "an integer from 1 to %d" %
                 MAX_JOBS_PER_CYCLE)
        job = c.get("job")
        if not isinstance(job, dict) or len(job) != 1 or \
                next(iter(job)) not in WORK_KINDS:
            fail(ci, "job", "a table with exactly one of %s" %
                 ", ".join(WORK_KINDS))
        kind, value = next(iter(job.items()))
        if kind == "rect":
            if not (isinstance(value, list) and len(value) == 2 and
                    all(_int(v, 1, 4096) for v in value)):
                fail(ci, "job", "rect is [width, height], each 1 to 4096",
                     "client[%d].job.rect" % ci)
        elif kind == "work_ns":
            if not _int(value, 1, MAX_WORK_NS):
                fail(ci, "job", "work_ns from 1 to %d" % MAX_WORK_NS,
                     "client[%d].job.work_ns" % ci)
        elif not _int(value, 4, MAX_BYTES) or value % 4:
            fail(ci, "job", "%s: a multiple of 4 from 4 to %d" %
                 (kind, MAX_BYTES), "client[%d].job.%s" % (ci, kind))
        sleep = c.get("sleep_us", 0)
        if not _int(sleep, 0, 10_000_000):
            fail(ci, "sleep_us", "an integer from 0 to 10000000")
        submit = c.get("submit", "sync")
        if submit not in SUBMITS:
            fail(ci, "submit", "one of %s" % ", ".join(SUBMITS))
        present = c.get("present", False)
        deadline = 0
        if isinstance(present, dict):
            for k in present:
                if k != "deadline_us":
                    fail(ci, "present", "unknown field %r (known: "
                         "deadline_us)" % k, "client[%d].present.%s" %
                         (ci, k))
            deadline = present.get("deadline_us", 0)
            if not _int(deadline, 1, 10_000_000):
                fail(ci, "present", "deadline_us from 1 to 10000000",
                     "client[%d].present.deadline_us" % ci)
            present = True
        elif not isinstance(present, bool):
            fail(ci, "present", "true, false, or { deadline_us = N }")
        ws = c.get("working_set", {})
        if not isinstance(ws, dict) or set(ws) - {"allocations", "bytes"}:
            fail(ci, "working_set", "a table of allocations and bytes")
        allocs = ws.get("allocations", 0)
        abytes = ws.get("bytes", 0 if not allocs else 1 << 20)
        if not _int(allocs, 0, 64):
            fail(ci, "working_set", "allocations from 0 to 64",
                 "client[%d].working_set.allocations" % ci)
        if not _int(abytes, 0, MAX_BYTES) or (allocs and abytes < 4096):
            fail(ci, "working_set", "bytes from 4096 to %d" % MAX_BYTES,
                 "client[%d].working_set.bytes" % ci)
        dep = c.get("depends_on", "")
        if not isinstance(dep, str):
            fail(ci, "depends_on", "another client's name")
        start = c.get("start_ms", 0)
        stop = c.get("stop_ms", duration)
        if not _int(start, 0, duration - 1):
            fail(ci, "start_ms", "from 0 to duration_ms - 1")
        if not _int(stop, start + 1, duration):
            fail(ci, "stop_ms", "from start_ms + 1 to duration_ms")
        cycles = c.get("cycles", 0)
        if not _int(cycles, 0, 1_000_000):
            fail(ci, "cycles", "from 0 (as many as fit) to 1000000")
        clients.append(Client(cname, prio, jpc, Job(kind, value), sleep,
                              submit, bool(present), deadline, allocs,
                              abytes, dep, start, stop, cycles))
    names = {c.name for c in clients}
    for ci, c in enumerate(clients):
        if c.depends_on and (c.depends_on not in names or
                             c.depends_on == c.name):
            fail(ci, "depends_on", "%r is not another client" %
                 c.depends_on)
    # a dependency cycle would deadlock every client in it
    for c in clients:
        seen, cur = set(), c
        while cur.depends_on:
            if cur.name in seen:
                fail(clients.index(c), "depends_on",
                     "a cycle of dependencies through %r" % c.name)
            seen.add(cur.name)
            cur = next(x for x in clients if x.name == cur.depends_on)
    return Workload(path, name, doc.get("description", ""), duration,
                    clients)


def ideal_cycles(c, packet_ns, present_period_ns=0):
    """Cycles client C would run with the GPU to itself: each cycle costs
    its jobs' device time (WORK: the cost plus the per-packet cost; other
    kinds are not predicted: None) plus its sleep, and a presenting client
    at most one per vsync period."""
    if c.job.kind != "work_ns":
        return None
    gpu = c.jobs_per_cycle * (c.job.value + packet_ns)
    cycle = gpu + c.sleep_us * 1000
    span = (c.stop_ms - c.start_ms) * 1_000_000
    if c.present and present_period_ns and cycle <= present_period_ns:
        # released at vsyncs: as many as fall in the span
        n = span // present_period_ns
    else:
        if c.present and present_period_ns:
            cycle = -(-cycle // present_period_ns) * present_period_ns
        # a cycle begins while the clock is before the stop: the last
        # one may begin just before it
        n = -(-span // max(cycle, 1))
    return min(n, c.cycles) if c.cycles else n


def ideal_gpu_ns(c, cycles, packet_ns):
    """Device time of CYCLES cycles of C's WORK jobs."""
    if c.job.kind != "work_ns":
        return None
    return cycles * c.jobs_per_cycle * (c.job.value + packet_ns)


def main(argv):
    rc = 0
    for path in argv[1:]:
        try:
            w = load(path)
        except WorkloadError as e:
            print(e, file=sys.stderr)
            rc = 1
            continue
        print("%s: %s, %d ms, %d client%s: %s" % (
            path, w.name, w.duration_ms, len(w.clients),
            "s" if len(w.clients) > 1 else "",
            ", ".join("%s (%s, %s)" % (c.name, c.priority, c.submit)
                      for c in w.clients)))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
