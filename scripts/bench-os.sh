#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The OS benchmarks (make bench): figures, never assertions. Each run is a
# firmware scenario under -icount shift=0,sleep=off, so the figures are
# virtual time and deterministic.
#
#   bench-os.sh QEMU_RUN FIRMWARE_DIR [DURATION_MS]
#
# 1. desktop under fifo, priority and quantum side by side: per
#    application frames, deadline misses, submit-to-start latency
#    p50/p99/max, GPU share, preemptions; the hog's completion time and
#    the engine's busy fraction; then the compositor's flips per policy
#    with the game, the video and the hog running: presents, flips,
#    vblanks missed as the driver's FLIP_DONE measured them, flips that
#    came late (goal: 0 under priority and quantum).
# 2. overlap: the engine's busy fraction with short buffers, with the
#    scheduler's overlapped preparation and with serial_prepare.
# 3. fairness: Jain's index of GPU time across 8 NORMAL contexts, per
#    policy.
# Exit status 1 if a run failed (its line says so), 2 on bad usage.
# With BENCH_DIR set, each desktop run also leaves there its METRICS
# (desktop-POLICY.json) and its timeline (desktop-POLICY.timeline.json and
# .trace.json), for scripts/plot-bench.py.
set -u

here=$(dirname "$0")
. "$here/bench-firmware-lib.sh"
bench_init "$@"

# run NAME IMAGE APPEND... : the METRICS json of one run in $tmp/NAME
run() {
    local name=$1 image=$2 bench_env=()
    shift 2
    if [ -n "${BENCH_DIR:-}" ] && [ "$image" = desktop ]; then
        bench_env=(COPRO_TRACE="$BENCH_DIR/$name.trace.json")
    fi
    bench_run "$name" "$image" copro "$@"
    if [ ${#bench_env[@]} -gt 0 ]; then
        cp "$tmp/$name.json" "$BENCH_DIR/$name.json"
    fi
}

for p in fifo priority quantum; do
    run "desktop-$p" desktop "policy=$p duration_ms=$duration"
done
# make check's short form (BENCH_SHORT): overlap and fairness for
# DURATION_MS too (their images' own lengths otherwise)
short_len=${BENCH_SHORT:+duration_ms=$duration}
run overlap-on overlap "$short_len"
run overlap-serial overlap "serial_prepare $short_len"
for p in fifo priority quantum; do
    run "fairness-$p" fairness "policy=$p $short_len"
done

python3 - "$tmp" "$(dirname "$0")" <<'PY' || status=1
import sys

sys.path.insert(0, sys.argv[-1])
from bench_metrics import Runs  # noqa: E402
from bench_metrics import fmt_ns as t  # noqa: E402

tmp = sys.argv[1]
runs = Runs(tmp)
load = runs.load


print("== desktop: compositor, cursor, game, video, hog per policy "
      "(virtual time) ==")
print("%-9s %-11s %7s %7s %10s %10s %10s %7s %8s" % (
    "policy", "app", "frames", "misses", "lat p50", "lat p99", "lat max",
    "gpu %", "preempt"))
for p in ("fifo", "priority", "quantum"):
    m = load("desktop-" + p)
    if not m:
        continue
    for a in m["apps"]:
        print("%-9s %-11s %7d %7d %10s %10s %10s %6.1f%% %8d" % (
            p, a["name"], a["frames"], a["misses"], t(a["lat_p50_ns"]),
            t(a["lat_p99_ns"]), t(a["lat_max_ns"]),
            a["gpu_share_permille"] / 10, a["preemptions"]))
    print("%-9s engine busy %.1f %%, hog's first buffer done %s" % (
        p, m["busy_permille"] / 10,
        t(m["hog_done_ns"]) if m["hog_done_ns"] else "never (in the run)"))

print()
print("== desktop display: the compositor's flips per policy, game, video "
      "and hog running ==")
print("   vblanks: while the compositor ran; missed vblanks: vblanks "
      "between two of")
print("   its flips with nothing new on screen, from the driver's "
      "FLIP_DONE (the wait")
print("   before its first flip is not one); deadline misses: frames not "
      "composed")
print("   before the next vsync, vsyncs that released none included")
print("%-9s %8s %8s %6s %15s %10s %9s %16s" % (
    "policy", "vblanks", "presents", "flips", "missed vblanks",
    "late flips", "max late", "deadline misses"))
for p in ("fifo", "priority", "quantum"):
    m = load("desktop-" + p)
    if not m or "display" not in m:
        continue
    d = m["display"]
    comp = [a for a in m["apps"] if a["name"] == "compositor"]
    print("%-9s %8d %8d %6d %15d %10d %9d %16s" % (
        p, d["vblanks"], d["presents"], d["flips"], d["missed_vblanks"],
        d["late_flips"], d["max_missed"],
        comp[0]["misses"] if comp else "?"))

print()
print("== overlap: engine busy with short buffers ==")
for name, label in (("overlap-on", "overlapped preparation"),
                    ("overlap-serial", "serial preparation")):
    m = load(name)
    if m:
        print("%-24s busy %.1f %% (%d buffers of %d us in %d ms)" % (
            label, m["busy_permille"] / 10, m["buffers"], m["work_us"],
            m["duration_ms"]))

print()
print("== fairness: 8 NORMAL contexts, Jain's index of GPU time ==")
for p in ("fifo", "priority", "quantum"):
    m = load("fairness-" + p)
    if m:
        shares = " ".join("%.1f" % (a["gpu_share_permille"] / 10)
                          for a in m["apps"])
        print("%-9s Jain %.3f, engine busy %.1f %%, shares %% %s" % (
            p, m["jain_permille"] / 1000, m["busy_permille"] / 10, shares))
sys.exit(1 if runs.failed else 0)
PY
exit $status
