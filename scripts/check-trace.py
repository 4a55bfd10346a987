#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a trace made by tools/copro-trace, as TAP.

    check-trace.py TRACE.json [--expect what]...

Knows nothing of copro's own model: it reads the trace as Perfetto would
and checks that
- it is well-formed trace-event JSON: a traceEvents list of objects with
  a known phase, a name, numeric pid/tid and a timestamp >= 0;
- every slice is closed: per thread, each B has its E (same name, not
  earlier), nothing left open;
- the slices of one engine (threads named "engine ...") never overlap;
- every "preempt-saved" instant of an engine follows a "preempt-request"
  of that engine with the same preemption fence;
- every flow start has exactly one end, not earlier;
- counters are numbers >= 0.
--expect slices|preemptions|queues|flows|display|os|hwqueues also requires that
the trace shows some of those (so an empty trace cannot pass).
"""

import argparse
import json
import sys

PHASES = {"B", "E", "X", "i", "I", "C", "s", "t", "f", "M", "b", "e", "n"}

results = []


def check(ok, what, detail=""):
    results.append((ok, what, detail))
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--expect", action="append", default=[],
                    choices=["slices", "preemptions", "queues", "flows",
                             "display", "os", "hwqueues"])
    args = ap.parse_args()

    try:
        with open(args.trace) as f:
            doc = json.load(f)
        ok = True
    except (OSError, ValueError) as e:
        check(False, "trace parses as JSON", str(e))
        return finish()
    check(ok, "trace parses as JSON")
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not check(isinstance(evs, list), "a traceEvents list"):
        return finish()

    bad = []
    names = {}          # (pid, tid) -> thread name
    for i, e in enumerate(evs):
        if not isinstance(e, dict) or e.get("ph") not in PHASES:
            bad.append("event %d: not an event with a known phase" % i)
            continue
        if not isinstance(e.get("name"), str):
            bad.append("event %d: no name" % i)
        if not isinstance(e.get("pid"), int):
            bad.append("event %d: no numeric pid" % i)
        if e["ph"] == "M":
            if e["name"] == "thread_name":
                names[(e["pid"], e.get("tid"))] = e["args"]["name"]
            continue
        if not isinstance(e.get("tid"), int):
            bad.append("event %d: no numeric tid" % i)
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            bad.append("event %d: no timestamp >= 0" % i)
    check(not bad, "every event well-formed (%d events)" % len(evs),
          "; ".join(bad[:5]))
    if bad:
        return finish()

    # slices: B/E stacks per thread, in file order (sorted by time)
    stacks, unmatched, overlaps, backwards = {}, [], [], []
    nslices = {}
    last_ts = {}
    for e in evs:
        if e["ph"] == "M":
            continue
        key = (e["pid"], e["tid"])
        if e["ts"] < last_ts.get(key, 0):
            backwards.append("%s at %s" % (names.get(key, key), e["ts"]))
        last_ts[key] = e["ts"]
        st = stacks.setdefault(key, [])
        if e["ph"] == "B":
            st.append(e)
            nslices[key] = nslices.get(key, 0) + 1
            if len(st) > 1 and names.get(key, "").startswith("engine"):
                overlaps.append("%s: %s at %s inside %s from %s" % (
                    names[key], e["name"], e["ts"], st[-2]["name"],
                    st[-2]["ts"]))
        elif e["ph"] == "E":
            if not st:
                unmatched.append("%s: E %s at %s without B" % (
                    names.get(key, key), e["name"], e["ts"]))
                continue
            b = st.pop()
            if e.get("name", b["name"]) != b["name"] or e["ts"] < b["ts"]:
                unmatched.append("%s: E %s at %s ends B %s at %s" % (
                    names.get(key, key), e["name"], e["ts"], b["name"],
                    b["ts"]))
    for key, st in stacks.items():
        for b in st:
            unmatched.append("%s: B %s at %s never ends" % (
                names.get(key, key), b["name"], b["ts"]))
    check(not backwards, "each thread's events in time order",
          "; ".join(backwards[:5]))
    check(not unmatched, "every slice closed (%d slices)"
          % sum(nslices.values()), "; ".join(unmatched[:5]))
    check(not overlaps, "slices of one engine never overlap",
          "; ".join(overlaps[:5]))

    # preemptions: saved after its request, per engine
    pending, orphans, npreempt = {}, [], 0
    for e in evs:
        if e["ph"] not in ("i", "I"):
            continue
        key = (e["pid"], e["tid"])
        fence = e.get("args", {}).get("preempt-fence")
        if e["name"] == "preempt-request":
            pending.setdefault(key, set()).add(fence)
        elif e["name"] == "preempt-saved":
            npreempt += 1
            if fence not in pending.get(key, set()):
                orphans.append("%s: saved %s at %s" % (
                    names.get(key, key), fence, e["ts"]))
            pending.pop(key, None)
    check(not orphans, "every preempt-saved follows its preempt-request "
          "(%d preemptions)" % npreempt, "; ".join(orphans[:5]))

    # flows and counters
    starts, ends, badflow = {}, {}, []
    for e in evs:
        if e["ph"] == "s":
            if e["id"] in starts:
                badflow.append("flow %s starts twice" % e["id"])
            starts[e["id"]] = e
        elif e["ph"] == "f":
            if e["id"] in ends:
                badflow.append("flow %s ends twice" % e["id"])
            ends[e["id"]] = e
    for i, s in starts.items():
        if i not in ends:
            badflow.append("flow %s never ends" % i)
        elif ends[i]["ts"] < s["ts"]:
            badflow.append("flow %s ends before it starts" % i)
    badflow += ["flow %s never starts" % i for i in ends if i not in starts]
    check(not badflow, "every flow has one start and one end (%d flows)"
          % len(starts), "; ".join(badflow[:5]))
    badc = [e["name"] for e in evs if e["ph"] == "C" and
            not all(isinstance(v, (int, float)) and v >= 0
                    for v in e.get("args", {}).values())]
    check(not badc, "counters are numbers >= 0", "; ".join(badc[:5]))

    engine_slices = sum(n for k, n in nslices.items()
                        if names.get(k, "").startswith("engine"))
    queue_slices = sum(n for k, n in nslices.items()
                       if "queue" in names.get(k, ""))
    have = {
        "slices": engine_slices,
        "preemptions": npreempt,
        "queues": queue_slices,
        "flows": len(starts),
        "display": sum(1 for e in evs if e.get("name") == "vsync"),
        "os": sum(1 for e in evs if e.get("cat") == "guest" or
                  e.get("cat") == "os"),
        # hardware scheduling: per-queue budget and frame-time counters
        "hwqueues": sum(1 for e in evs if e["ph"] == "C" and
                        e.get("name", "").startswith("queue ")),
    }
    for what in args.expect:
        check(have[what] > 0, "the trace shows %s (%d)" % (what, have[what]))
    return finish()


def finish():
    for n, (ok, what, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
        if detail and not ok:
            print("# " + detail)
    print("1..%d" % len(results))
    return 0 if results and all(r[0] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
