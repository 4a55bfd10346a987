#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The hog scenario (firmware/scenarios/hog.c) once per `preempt` mode:
# a low-priority buffer of HOG_MS of GPU time, a high-priority frame every
# 16.667 ms for FRAMES_MS, scheduled by vidsch. Prints one line per mode
# with the frames' submit-to-start latency (median, p99, max), measured by
# the guest from GPU timestamps, in virtual time, and when the hog
# finished; then the latency split into the device's request-to-saved
# time and the OS's own share (interrupt, DPC, scheduler, preparation).
#
#   bench-hog.sh [--switch-cost] QEMU_RUN HOG_IMAGE [HOG_MS [FRAMES_MS]]
#
# With --switch-cost, instead: mid-command preemption only, one line per
# context-state size and frame period (the trade-off of preemption: the
# hog finishes later the more often it is preempted and the more state
# each switch saves and restores).
#
# QEMU_RUN is build/qemu-run, HOG_IMAGE build/firmware/hog.elf; HOG_MS
# defaults to 10000 and FRAMES_MS to 1000. Runs under
# -icount shift=0,sleep=off, so virtual time skips ahead while the guest
# halts and the figures are deterministic. Exit status 1 if a run failed
# (its line then says so), 2 on bad usage. With BENCH_DIR set, each run of
# the modes table also leaves there its METRICS (hog-preempt=MODE.json)
# and its timeline (hog-preempt=MODE.timeline.json and .trace.json), for
# scripts/plot-bench.py.
set -u

table=modes
if [ "${1:-}" = --switch-cost ]; then
    table=switch-cost
    shift
fi
if [ $# -lt 2 ] || [ $# -gt 4 ]; then
    echo "usage: $0 [--switch-cost] QEMU_RUN HOG_IMAGE [HOG_MS [FRAMES_MS]]" >&2
    exit 2
fi
qemu_run=$1
image=$2
hog_ms=${3:-10000}
frames_ms=${4:-1000}
here=$(dirname "$0")
# bench_metrics.py
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
status=0

# One hog run: LABEL, the -device copro options, extra -append arguments.
run_hog() {
    local label=$1 devopts=$2 append=$3 out rc start end metrics
    local figures_only=("${@:4}")
    local save=()
    if [ -n "${BENCH_DIR:-}" ] && [ "$table" = modes ]; then
        save=(COPRO_TRACE="$BENCH_DIR/hog-$label.trace.json")
    fi
    start=$(date +%s.%N)
    out=$(env "${save[@]}" COPRO_TIMEOUT=${COPRO_TIMEOUT:-600} \
          bash "$here/run-firmware.sh" \
              "$qemu_run" "$image" -M q35 \
              -device "copro,$devopts" \
              -icount shift=0,sleep=off \
              -append "irq=msix hog_ms=$hog_ms frames_ms=$frames_ms $append")
    rc=$?
    end=$(date +%s.%N)
    metrics=$(printf '%s\n' "$out" | sed -n 's/^# METRICS //p' | tail -n 1)
    if [ ${#save[@]} -gt 0 ]; then
        printf '%s\n' "$metrics" > "$BENCH_DIR/hog-$label.json"
    fi
    if ! python3 - "$label" "$metrics" "$rc" "$start" "$end" \
            "${figures_only[@]}" <<'PY'; then
import json
import sys
from bench_metrics import fmt_ns as t

label, metrics, rc, start, end = sys.argv[1:6]


try:
    m = json.loads(metrics)
except ValueError:
    print("hog %s: FAILED, no METRICS line (exit %s)" % (label, rc))
    sys.exit(1)
ok = rc == "0" and m["failures"] == 0
# in the switch-cost table the hog's own latency bound, which assumes free
# context switches, is expected to fail: report, do not fail the bench
figures_only = len(sys.argv) > 6
print("hog %s: hi-prio submit-to-start latency median %s p99 %s "
      "max %s (virtual time); hog done at %s; %d frames, %d preemptions; "
      "wall %.1f s%s"
      % (label, t(m["lat_median_ns"]), t(m["lat_p99_ns"]), t(m["lat_max_ns"]),
         t(m["hog_done_ns"]), m["frames"], m["dev_preemptions"],
         float(end) - float(start),
         "" if ok else "; %s (%d failed checks)"
         % ("checks above" if figures_only else "FAILED", m["failures"])))
if "os_p99_ns" in m:
    print("    split: the device's share (request-to-saved, or the hog it "
          "cannot stop, to its end) median %s p99 %s; the OS's share "
          "median %s p99 %s max %s"
          % (t(m["dev_median_ns"]), t(m["dev_p99_ns"]), t(m["os_median_ns"]),
             t(m["os_p99_ns"]), t(m["os_max_ns"])))
sys.exit(0 if ok or figures_only else 1)
PY
        status=1
    fi
    printf '%s\n' "$out" | grep -E '^not ok' >&2
}

if [ "$table" = modes ]; then
    for mode in none dma-buffer command mid-command; do
        run_hog "preempt=$mode" "preempt=$mode" ""
    done
else
    # The cost of a context switch: the same hog preempted more or less
    # often (frame period), with more or less context state to save and
    # restore (ctx-state-size, at the default 8 GiB/s copy bandwidth).
    # BENCH_SHORT (make check's form, bench.sh --short): one size with
    # state and one without, one period
    sizes="0 256K 1M 4M" periods="16667 8000 4000"
    if [ -n "${BENCH_SHORT:-}" ]; then
        sizes="0 1M" periods=16667
    fi
    for size in $sizes; do
        for period in $periods; do
            run_hog "ctx-state-size=$size period=${period}us" \
                "preempt=mid-command,ctx-state-size=$size" \
                "period_us=$period" figures-only
        done
    done
fi
exit $status
