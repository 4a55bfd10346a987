#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hardware scheduling against software scheduling (issue 17; make bench):
# desktop and hog, each under software `quantum`, hardware `quantum`
# (hwsched=1) and hardware `joblist`, side by side. Figures, never
# assertions; virtual time under -icount, deterministic.
#
#   bench-hwsched.sh QEMU_RUN FIRMWARE_DIR [DURATION_MS]
#
# 1. the CPU's cost: interrupts taken per virtual second and the OS's
#    cycles per virtual second on every path, split into scheduling
#    proper (vidsch_cycles.decide: electing, preparing, preemption
#    requests, timers, run lists, budgets) and completion work
#    (vidsch_cycles.complete and kernel_stats.complete_cycles: retiring,
#    signalling, waking, the DPC reading progress and the log), and the
#    ratio to software quantum (goal: >= 10x fewer);
# 2. desktop: compositor and cursor submit-to-start p50/p99/max, deadline
#    misses of every app, missed vblanks, the game's frames (throughput);
# 3. joblist: each periodic app's budget against its GPU time per frame,
#    the frames it went over, and its frames done before their deadline;
# 4. hog: the high-priority frames' latency split into the device's share
#    (from the frame's doorbell, or the OS's preemption request, to its
#    start) and the OS's share (the rest).
# hw-quantum-fewirq is hardware quantum with completion interrupts only
# for ABOVE_NORMAL and up (hws_irq=ABOVE_NORMAL): fewer interrupts, and
# the game's throughput it costs. hw-quantum-irqalways is hardware quantum
# with completion interrupts always on (irq_demand=0), the others turn
# them on only while someone waits for the GPU.
# Exit status 1 if a run failed (its line says so), 2 on bad usage; a
# device without COPRO_CAP_HWSCHED fails the hardware runs.
set -u

here=$(dirname "$0")
. "$here/bench-firmware-lib.sh"
bench_init "$@"

# run NAME IMAGE DEVICE APPEND... : the METRICS json of one run in $tmp
run() {
    local name=$1
    bench_run "$@"
    if [ -n "${BENCH_DIR:-}" ]; then
        cp "$tmp/$name.json" "$BENCH_DIR/hwsched-$name.json"
    fi
}

# BENCH_JOBS=N: N runs at once (1 by default; each run is deterministic
# under -icount whatever the host's load)
throttle() {
    while [ "$(jobs -rp | wc -l)" -ge "${BENCH_JOBS:-1}" ]; do
        wait -n
    done
}

modes="sw-quantum hw-quantum hw-joblist hw-quantum-fewirq hw-quantum-irqalways"
for m in $modes; do
    case $m in
    sw-quantum) a="policy=quantum" ;;
    hw-quantum) a="hwsched=1 policy=quantum" ;;
    hw-joblist) a="hwsched=1 policy=joblist" ;;
    # completion interrupts only for ABOVE_NORMAL and up: NORMAL work
    # (the game) is reaped at the next interrupt (at most a vsync)
    hw-quantum-fewirq) a="hwsched=1 policy=quantum hws_irq=ABOVE_NORMAL" ;;
    # completion interrupts always on, not only while someone waits (the
    # kernel's irq_demand=0): what interrupts on demand save
    hw-quantum-irqalways) a="hwsched=1 policy=quantum irq_demand=0" ;;
    esac
    throttle
    run "desktop-$m" desktop copro "$a duration_ms=$duration" &
    # the hog's frames have no display: joblist (budgets per vsync) needs
    # one, so the hog runs software and hardware quantum only
    if [ "$m" = sw-quantum ] || [ "$m" = hw-quantum ]; then
        throttle
        run "hog-$m" hog copro,preempt=mid-command "$a" &
    fi
done
wait

python3 - "$tmp" "$here" <<'PY' || status=1
import sys

sys.path.insert(0, sys.argv[-1])
from bench_metrics import Runs  # noqa: E402
from bench_metrics import fmt_ns as t, app  # noqa: E402

runs = Runs(sys.argv[1])
modes = ["sw-quantum", "hw-quantum", "hw-joblist", "hw-quantum-fewirq",
         "hw-quantum-irqalways"]


print("CPU cost, per virtual second (goal: hardware >= 10x fewer than "
      "software quantum): interrupts; the OS's cycles on every path "
      "(os = sched + complete): sched = scheduling proper (vidsch: elect, "
      "prepare for the ring, preemption requests, timers, run lists, "
      "budgets), complete = completion work (retire, signal, wake, the "
      "DPC reading progress and the log)")
print("%-8s %-17s %7s %6s %11s %6s %11s %6s %11s %6s %7s" %
      ("scenario", "mode", "irq/s", "x", "os cyc/s", "x", "sched/s", "x",
       "complete/s", "x", "OS prm"))


def ratio(b, v):
    return b / max(v, 1)


for sc in ["desktop", "hog"]:
    base = runs.load("%s-sw-quantum" % sc)
    for mode in modes:
        if sc == "hog" and mode in ("hw-joblist", "hw-quantum-fewirq",
                                    "hw-quantum-irqalways"):
            continue
        m = base if mode == "sw-quantum" else runs.load("%s-%s" % (sc, mode))
        if not m or not base:
            continue
        s, b = m["sched"], base["sched"]
        print("%-8s %-17s %7d %6.1f %11d %6.1f %11d %6.1f %11d %6.1f %7d" %
              (sc, mode, s["irq_per_s"],
               ratio(b["irq_per_s"], s["irq_per_s"]),
               s["os_cycles_per_s"],
               ratio(b["os_cycles_per_s"], s["os_cycles_per_s"]),
               s["decide_cycles_per_s"],
               ratio(b["decide_cycles_per_s"], s["decide_cycles_per_s"]),
               s["complete_cycles_per_s"],
               ratio(b["complete_cycles_per_s"],
                     s["complete_cycles_per_s"]),
               s["os_preempt_requests"]))

print()
print("interrupts per virtual second by cause (one interrupt may count "
      "in two), the share of scheduling proper that is the preparation "
      "(residency, patch: both modes alike), and in hardware mode how "
      "often completion interrupts were turned on and off")
print("%-8s %-20s %8s %6s %5s %6s %6s %10s %8s %8s" %
      ("scenario", "mode", "DMA_DONE", "vsync", "flip", "log", "other",
       "prepare/s", "irq on", "irq off"))
for sc in ["desktop", "hog"]:
    for mode in modes:
        if sc == "hog" and mode not in ("sw-quantum", "hw-quantum"):
            continue
        m = runs.load("%s-%s" % (sc, mode))
        if not m or "irq_by" not in m["sched"]:
            continue
        s = m["sched"]
        dur = s["interrupts"] / max(s["irq_per_s"], 1)
        by = s["irq_by"]
        print("%-8s %-20s %8d %6d %5d %6d %6d %10d %8d %8d" %
              (sc, mode, by["dma_done"] / dur, by["vsync"] / dur,
               by["flip"] / dur, by["sched_log"] / dur, by["other"] / dur,
               s["vidsch_prepare_cycles_per_s"], s["cirq_on"],
               s["cirq_off"]))

print()
print("desktop: submit-to-start latency, deadline misses, missed vblanks, "
      "the game's throughput")
print("%-17s %-10s %10s %10s %10s %7s" %
      ("mode", "app", "p50", "p99", "max", "misses"))
for mode in modes:
    m = runs.load("desktop-%s" % mode)
    if not m:
        continue
    for name in ["compositor", "cursor", "video", "game", "hog"]:
        a = app(m, name)
        if a:
            print("%-17s %-10s %10s %10s %10s %7d" %
                  (mode, name, t(a["lat_p50_ns"]), t(a["lat_p99_ns"]),
                   t(a["lat_max_ns"]), a["misses"]))
    d = m["display"]
    g = app(m, "game")
    print("%-17s missed vblanks %d (late flips %d); game frames %d; hog "
          "done at %s" % (mode, d["missed_vblanks"], d["late_flips"],
                          g["frames"] if g else 0, t(m["hog_done_ns"])))

m = runs.load("desktop-hw-joblist")
if m:
    print()
    print("joblist: budget per frame against GPU time per frame (from the "
          "log's FRAME entries), frames over budget, frames on time")
    print("(per vsync in which the app ran: its mean budget and mean GPU "
          "time; frames over budget of those; its own frames done before "
          "their deadline)")
    print("%-10s %-12s %12s %14s %11s %9s" %
          ("app", "priority", "budget", "GPU/frame", "over", "on time"))
    for a in m.get("apps", []):
        on_time = 100.0 * (a["frames"] - a["misses"]) / max(a["frames"], 1)
        print("%-10s %-12s %12s %14s %5d/%-5d %8.1f%%" %
              (a["name"], a["priority"], t(a["budget_ns_per_frame"]),
               t(a["gpu_ns_per_frame"]), a["frames_over_budget"],
               a["frames_run"], on_time))
    h = m["sched"].get("hws", {})
    print("run lists written %d (budget updates %d) over %d vsyncs; the "
          "device made %d switches, %d preemptions" %
          (h.get("runlist_commits", 0), h.get("budget_updates", 0),
           h.get("frames", 0), h.get("device_switches", 0),
           h.get("device_preemptions", 0)))

print()
print("hog: the frames' latency (mid-command) split into the device's and "
      "the OS's shares (goal in hardware mode: OS share 0)")
print("%-11s %10s %10s %10s %12s %12s %10s %10s" %
      ("mode", "p50", "p99", "max", "dev p50", "dev p99", "OS p50",
       "OS p99"))
for mode in ["sw-quantum", "hw-quantum"]:
    m = runs.load("hog-%s" % mode)
    if m:
        print("%-11s %10s %10s %10s %12s %12s %10s %10s" %
              (mode, t(m["lat_median_ns"]), t(m["lat_p99_ns"]),
               t(m["lat_max_ns"]), t(m["dev_median_ns"]),
               t(m["dev_p99_ns"]), t(m["os_median_ns"]),
               t(m["os_p99_ns"])))
sys.exit(1 if runs.failed else 0)
PY
exit $status
