#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The scheduler's preemptions and the device's context switch cost (make
# bench; issue 15): figures, never assertions. Each run is the desktop
# under -icount shift=0,sleep=off, so the figures are virtual time and
# deterministic.
#
#   bench-switch.sh QEMU_RUN FIRMWARE_DIR [DURATION_MS]
#
# 1. per policy: the render engine's preemptions per second, the wasted
#    ones (preempted, then the same context ran next: goal 0), those
#    deferred for the switch cost, the compositor's submit-to-start
#    latency p50/p99 and the game's frames (its throughput);
# 2. quantum policy with ctx-state-size 0, 256K (the default), 16M, 64M:
#    the measured save time, the game's frames (and as a share of its
#    frames at 256K: goal at least 80 % at 16M), the compositor's
#    deadline misses (goal 0) and the engine's busy fraction (never above
#    100 %).
# Exit status 1 if a run failed (its line says so), 2 on bad usage.
set -u

here=$(dirname "$0")
. "$here/bench-firmware-lib.sh"
bench_init "$@"

# run NAME DEVICE_OPTS APPEND... : the METRICS json of one run in $tmp/NAME
run() {
    local name=$1 dev=$2
    shift 2
    bench_run "$name" desktop "copro$dev" "$@"
}

for p in fifo priority quantum; do
    run "policy-$p" "" "policy=$p duration_ms=$duration"
done
for cs in 0 256K 16M 64M; do
    run "cs-$cs" ",ctx-state-size=$cs" "duration_ms=$duration"
done

python3 - "$tmp" "$duration" "$(dirname "$0")" <<'PY' || status=1
import sys

sys.path.insert(0, sys.argv[-1])
from bench_metrics import Runs  # noqa: E402

tmp, duration = sys.argv[1], int(sys.argv[2])
runs = Runs(tmp)
load = runs.load


def app(m, name):
    return [a for a in m["apps"] if a["name"] == name][0]


print("== desktop per policy: preemptions of the render engine, the "
      "compositor's latency, the game's frames (virtual time, %d ms) =="
      % duration)
print("%-9s %9s %8s %7s %9s %12s %12s %11s" % (
    "policy", "preempt", "per s", "wasted", "deferred", "comp p50",
    "comp p99", "game frames"))
for p in ("fifo", "priority", "quantum"):
    m = load("policy-" + p)
    if not m:
        continue
    c, g = app(m, "compositor"), app(m, "game")
    print("%-9s %9d %8.1f %7d %9d %9.1f us %9.1f us %11d" % (
        p, m["preemptions"], m["preemptions"] * 1000.0 / duration,
        m["wasted_preemptions"], m["preempts_deferred"],
        c["lat_p50_ns"] / 1e3, c["lat_p99_ns"] / 1e3, g["frames"]))

print()
print("== desktop with the device's ctx-state-size (quantum, %d ms) =="
      % duration)
print("%-8s %10s %11s %9s %12s %11s %10s %8s" % (
    "state", "save", "game frames", "of 256K", "comp misses",
    "all misses", "preempt", "busy"))
base = load("cs-256K")
for cs in ("0", "256K", "16M", "64M"):
    m = load("cs-" + cs)
    if not m:
        continue
    g = app(m, "game")
    misses = sum(a["misses"] for a in m["apps"])
    share = (100.0 * g["frames"] / app(base, "game")["frames"]
             if base and app(base, "game")["frames"] else 0)
    print("%-8s %7.1f us %11d %8.1f%% %12d %11d %10d %7.1f%%" % (
        cs, m["switch_ns"] / 1e3, g["frames"], share,
        app(m, "compositor")["misses"], misses, m["preemptions"],
        m["busy_permille"] / 10))
sys.exit(1 if runs.failed else 0)
PY
exit $status
