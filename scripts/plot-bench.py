#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make bench's pictures, from the runs it saved in BENCH_DIR.

    plot-bench.py BENCH_DIR

Reads what scripts/bench-hog.sh and scripts/bench-os.sh left there (each
run's METRICS line as NAME.json and its timeline as NAME.timeline.json) and
writes, next to them:

- latency-cdf-preempt.png: how long high-priority work waits, from the OS
  queuing a buffer to the engine starting it (the guest's "queue" marker
  to the device's "start", virtual time), as a distribution per
  preemption granularity (the hog scenario);
- latency-cdf-policy.png: the same for the desktop's compositor and
  cursor per scheduling policy;
- gpu-share-policy.png: each desktop application's share of the GPU per
  policy (the device's busy time per context in the timeline);
- timeline-desktop.png: 50 ms of the desktop under the quantum policy
  around a preemption of the hog: the engine, each context's queue, the
  scheduler's preemption decisions; timeline-hog.png the same for the hog
  scenario at preempt=mid-command (the hog preempted for every frame).

Prints one line per picture. matplotlib (Debian's python3-matplotlib).
"""

import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tools"))
import copro_timeline as tl  # noqa: E402

# vidsch's priority classes, in the order of their levels (elect markers)
PRIORITIES = ["IDLE", "BELOW_NORMAL", "NORMAL", "ABOVE_NORMAL", "HIGH",
              "REALTIME"]
MODES = ["none", "dma-buffer", "command", "mid-command"]
POLICIES = ["fifo", "priority", "quantum"]


def load_run(d, name):
    """(metrics, model) of one saved run, or None if it is not there."""
    path = os.path.join(d, name + ".timeline.json")
    if not os.path.exists(path):
        return None
    try:
        with open(os.path.join(d, name + ".json")) as f:
            metrics = json.load(f)
    except (OSError, ValueError):
        metrics = {}
    head, events = tl.load(path)
    return metrics, tl.model_of(head, events)


def context_apps(metrics, m):
    """{context: application name}: a context's priority is the level it
    is most often elected at (a boost is the exception), and in these
    scenarios each application has its own priority class."""
    levels = {}
    for _, ev in m.instants:
        if ev["kind"] == "elect":
            c = levels.setdefault(ev["context"], {})
            p = ev["args"]["priority"]
            c[p] = c.get(p, 0) + 1
    by_prio = {a["priority"]: a["name"] for a in metrics.get("apps", [])}
    if metrics.get("scenario") == "hog" and not by_prio:
        # the hog scenario: the hog (BELOW_NORMAL) and the frames (HIGH)
        by_prio = {"BELOW_NORMAL": "hog", "HIGH": "frames"}
    out = {}
    for ctx, counts in levels.items():
        level = max(counts, key=counts.get)
        name = PRIORITIES[level] if level < len(PRIORITIES) else str(level)
        out[ctx] = by_prio.get(name, "ctx %d (%s)" % (ctx, name))
    return out


def latencies(m, contexts):
    """Queue-to-start latency (ns) of the buffers of these contexts."""
    return sorted(run.start - q.start for q, run in m.flows
                  if q.context in contexts)


STYLES = ["-", "--", "-.", ":"]


def cdf(ax, values, label, k=0):
    if not values:
        return
    n = len(values)
    ax.step([v / 1e3 for v in values], [(i + 1) / n for i in range(n)],
            where="post", label="%s (%d)" % (label, n),
            linestyle=STYLES[k % len(STYLES)], linewidth=1.6)


def plot_preempt(d):
    fig, ax = plt.subplots(figsize=(7, 4))
    shown = 0
    for k, mode in enumerate(MODES):
        run = load_run(d, "hog-preempt=" + mode)
        if not run:
            continue
        metrics, m = run
        apps = context_apps(metrics, m)
        hi = {c for c, name in apps.items() if name != "hog"}
        lat = latencies(m, hi)
        cdf(ax, lat, mode, k)
        shown += bool(lat)
    if not shown:
        plt.close(fig)
        return None
    ax.set_xscale("log")
    ax.set_xlabel("queued to started on the engine (us, virtual time)")
    ax.set_ylabel("fraction of frames")
    ax.set_title("High-priority frames under a hog, per preemption "
                 "granularity")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="preempt=", loc="lower right")
    return save(fig, d, "latency-cdf-preempt.png")


def plot_policy(d):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    shown = 0
    for ax, app in zip(axes, ("compositor", "cursor")):
        for k, p in enumerate(POLICIES):
            run = load_run(d, "desktop-" + p)
            if not run:
                continue
            metrics, m = run
            ctxs = {c for c, name in context_apps(metrics, m).items()
                    if name == app}
            lat = latencies(m, ctxs)
            cdf(ax, lat, p, k)
            shown += bool(lat)
        ax.set_xscale("log")
        ax.set_title(app)
        ax.set_xlabel("queued to started (us, virtual time)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(title="policy", loc="lower right")
    axes[0].set_ylabel("fraction of frames")
    if not shown:
        plt.close(fig)
        return None
    fig.suptitle("desktop: the compositor's and the cursor's wait, per "
                 "scheduling policy")
    return save(fig, d, "latency-cdf-policy.png")


def plot_share(d):
    shares = {}         # policy -> {app: %}
    for p in POLICIES:
        run = load_run(d, "desktop-" + p)
        if not run:
            continue
        metrics, m = run
        apps = context_apps(metrics, m)
        # the scenario's measured duration: from its first buffer on (then
        # the applications drain, the hog alone)
        t0 = min(q.start for q in m.queues)
        t1 = t0 + metrics.get("duration_ms", 2000) * 1_000_000
        busy = {}
        for r in m.runs:
            name = apps.get(r.context, "ctx %s" % r.context)
            busy[name] = busy.get(name, 0) + r.overlap(t0, t1)
        shares[p] = {a: 100.0 * ns / (t1 - t0) for a, ns in busy.items()}
    if not shares:
        return None
    apps = sorted({a for s in shares.values() for a in s})
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(apps)
    for i, app in enumerate(apps):
        xs = [k + i * width for k in range(len(shares))]
        ax.bar(xs, [shares[p].get(app, 0) for p in shares], width,
               label=app)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(shares))])
    ax.set_xticklabels(list(shares))
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylabel("share of the render engine (%)")
    ax.set_title("desktop: GPU share per application and policy\n"
                 "(the device's busy time over the run's duration)")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    return save(fig, d, "gpu-share-policy.png")


def plot_timeline(d, name="desktop-quantum", out="timeline-desktop.png",
                  title="desktop (quantum policy)", span_ns=50_000_000):
    run = load_run(d, name)
    if not run:
        return None
    metrics, m = run
    apps = context_apps(metrics, m)
    hog = {c for c, n in apps.items() if n == "hog"}
    front = {c for c, n in apps.items()
             if n in ("compositor", "cursor", "frames")}
    # a preemption of the hog for a compositor or cursor frame, a little
    # into the run; else any of the hog's
    runs0 = sorted((r for r in m.runs if r.engine == 0),
                   key=lambda r: r.start)
    saves = [a.end for a, b in zip(runs0, runs0[1:])
             if a.context in hog and a.end_kind == "preempted" and
             b.context in front and a.end > m.first_time + 100_000_000]
    saves += [t for t, ev in m.instants if ev["kind"] == "preempt-saved" and
              ev.get("context") in hog]
    if not saves:
        return None
    mid = saves[0]
    t0, t1 = mid - span_ns // 2, mid + span_ns // 2
    ctxs = sorted(apps, key=lambda c: -PRIORITIES.index(
        next((p["priority"] for p in metrics.get("apps", [])
              if p["name"] == apps[c]), "IDLE")))
    colours = {c: plt.cm.tab10(i) for i, c in enumerate(ctxs)}
    rows = ["engine 0"] + ["%s queue" % apps[c] for c in ctxs]
    fig, ax = plt.subplots(figsize=(11, 3.6))

    def bar(row, s, e, colour, lane=0, lanes=1, **kw):
        s, e = max(s, t0), min(e, t1)
        h = 0.76 / lanes
        if e >= s:
            # a frame's run is tens of us: at least 0.12 ms, to be seen
            ax.broken_barh([((s - t0) / 1e6, max((e - s) / 1e6, 0.12))],
                           (row - 0.38 + lane * h, h), facecolors=colour,
                           **kw)

    # short runs last, on top of the long ones they are widened over
    for r in sorted(m.runs, key=lambda r: r.start - r.end):
        if r.engine == 0 and r.end >= t0 and r.start <= t1:
            bar(0, r.start, r.end, colours.get(r.context, "grey"))
    # a context's buffers queued at once share its row, in lanes
    lanes, ends = {}, {}
    for q in sorted(m.queues, key=lambda q: q.start):
        if q.context not in colours or q.end < t0 or q.start > t1:
            continue
        le = ends.setdefault(q.context, [])
        k = next((i for i, e in enumerate(le) if e <= q.start), len(le))
        le[k:k + 1] = [q.end]
        lanes[id(q)] = k
    for q in m.queues:
        if id(q) in lanes:
            bar(1 + ctxs.index(q.context), q.start, q.end,
                colours[q.context], lanes[id(q)], len(ends[q.context]),
                alpha=0.5, edgecolor="black", linewidth=0.3)
    for t, ev in m.instants:
        if not t0 <= t <= t1:
            continue
        x = (t - t0) / 1e6
        if ev["kind"] == "preempt-saved" and ev.get("engine") == 0:
            ax.plot([x], [0], marker="v", color="black", markersize=5)
        elif ev["kind"] == "preempt-decision":
            ax.plot([x], [-0.62], marker="|", color="red", markersize=8)
    ax.legend(handles=[matplotlib.patches.Patch(color=colours[c],
                                                label=apps[c])
                       for c in ctxs], loc="center left", fontsize=8,
              bbox_to_anchor=(1.005, 0.5))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.set_ylim(len(rows) - 0.5, -0.9)
    ax.set_xlim(0, span_ns / 1e6)
    ax.set_xlabel("ms from %.3f s (virtual time); v: engine saved a "
                  "preempted buffer, red |: the scheduler decided to "
                  "preempt" % (t0 / 1e9))
    ax.set_title("%s: the render engine and each context's queue around "
                 "a preemption of the hog" % title)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    return save(fig, d, out)


def save(fig, d, name):
    path = os.path.join(d, name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    for what, fn in (("latency CDF per preemption mode", plot_preempt),
                     ("latency CDF per policy", plot_policy),
                     ("GPU share per application and policy", plot_share),
                     ("timeline excerpt, desktop", plot_timeline),
                     ("timeline excerpt, hog", lambda d: plot_timeline(
                         d, "hog-preempt=mid-command", "timeline-hog.png",
                         "hog, preempt=mid-command"))):
        path = fn(d)
        print("%-38s %s" % (what + ":", path or "no data (run skipped?)"))


if __name__ == "__main__":
    main()
