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
#   bench-hog.sh QEMU_RUN HOG_IMAGE [HOG_MS [FRAMES_MS]]
#
# QEMU_RUN is build/qemu-run, HOG_IMAGE build/firmware/hog.elf; HOG_MS
# defaults to 10000 and FRAMES_MS to 1000. Runs under
# -icount shift=0,sleep=off, so virtual time skips ahead while the guest
# halts and the figures are deterministic. Exit status 1 if a run failed
# (its line then says so), 2 on bad usage.
set -u

if [ $# -lt 2 ] || [ $# -gt 4 ]; then
    echo "usage: $0 QEMU_RUN HOG_IMAGE [HOG_MS [FRAMES_MS]]" >&2
    exit 2
fi
qemu_run=$1
image=$2
hog_ms=${3:-10000}
frames_ms=${4:-1000}
here=$(dirname "$0")
status=0

for mode in none dma-buffer command mid-command; do
    start=$(date +%s.%N)
    out=$(COPRO_TIMEOUT=${COPRO_TIMEOUT:-600} bash "$here/run-firmware.sh" \
              "$qemu_run" "$image" -M q35 \
              -device "copro,preempt=$mode" \
              -icount shift=0,sleep=off \
              -append "irq=msix hog_ms=$hog_ms frames_ms=$frames_ms")
    rc=$?
    end=$(date +%s.%N)
    metrics=$(printf '%s\n' "$out" | sed -n 's/^# METRICS //p' | tail -n 1)
    if ! python3 - "$mode" "$metrics" "$rc" "$start" "$end" <<'PY'; then
import json
import sys

mode, metrics, rc, start, end = sys.argv[1:6]


def t(ns):
    """ns in the unit that keeps 3-4 significant digits."""
    if ns < 1000000:
        return "%.1f us" % (ns / 1e3)
    if ns < 1000000000:
        return "%.2f ms" % (ns / 1e6)
    return "%.3f s" % (ns / 1e9)


try:
    m = json.loads(metrics)
except ValueError:
    print("hog preempt=%s: FAILED, no METRICS line (exit %s)" % (mode, rc))
    sys.exit(1)
ok = rc == "0" and m["failures"] == 0
print("hog preempt=%s: hi-prio submit-to-start latency median %s p99 %s "
      "max %s (virtual time); hog done at %s; %d frames, %d preemptions; "
      "wall %.1f s%s"
      % (mode, t(m["lat_median_ns"]), t(m["lat_p99_ns"]), t(m["lat_max_ns"]),
         t(m["hog_done_ns"]), m["frames"], m["dev_preemptions"],
         float(end) - float(start),
         "" if ok else "; FAILED (%d failed checks)" % m["failures"]))
if "os_p99_ns" in m:
    print("    split: the device's share (request-to-saved, or the hog it "
          "cannot stop, to its end) median %s p99 %s; the OS's share "
          "median %s p99 %s max %s"
          % (t(m["dev_median_ns"]), t(m["dev_p99_ns"]), t(m["os_median_ns"]),
             t(m["os_p99_ns"]), t(m["os_max_ns"])))
sys.exit(0 if ok else 1)
PY
        status=1
        printf '%s\n' "$out" | grep -E '^not ok' >&2
    fi
done
exit $status
