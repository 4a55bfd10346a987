#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Pageable DMA buffers and split policies for make bench (issue 29).
# Measurements, not assertions; every run also passes its guest checks.
#
#   bench-dmabuf.sh BUILDDIR
#
# 1. oversubscribe (3 memory apps, vram=16M) at 50, 150 and 200 % of the
#    VRAM vidmm manages, per DMA buffer placement (dmabuf=kernel,
#    aperture, vram): the kernel segment's bytes held by DMA buffers at
#    their peak, vidmm VRAM held by pageable DMA buffers at their peak,
#    buffers brought in at a switch, frames; and how many processes with
#    the same buffers in flight the kernel's DMA-buffer VRAM could hold
#    (kernel segment / peak bytes per process; pageable placements hold
#    no kernel VRAM: bounded by the backing store instead).
# 2. desktop and hog latency per placement (submit to start, p50/p99).
# 3. the split scenario with split=schedule, upfront, both: scheduling
#    latency of the split app's buffers, portions, GPU time.
# Virtual time (-icount shift=0,sleep=off): deterministic. With BENCH_DIR
# set, each METRICS line goes to BENCH_DIR/dmabuf-*.json.
set -u
build=$1
here=$(dirname "$0")
qr=$build/qemu-run
status=0
dur=${DURATION_MS:-500}
icount=(-icount shift=0,sleep=off)
# make check's short form (bench.sh --short): every code path once
pcts="50 150 200" lat_pls="kernel aperture vram" splits="schedule upfront both"
if [ -n "${BENCH_SHORT:-}" ]; then
    pcts=150 lat_pls=vram splits=upfront
fi

run() {     # name image device append...
    local name=$1 image=$2 dev=$3
    shift 3
    local out rc m
    out=$(COPRO_TIMEOUT=${COPRO_TIMEOUT:-300} bash "$here/run-firmware.sh" \
              "$qr" "$build/firmware/$image.elf" -M q35 -device "$dev" \
              "${icount[@]}" -append "irq=msix $*")
    rc=$?
    m=$(printf '%s\n' "$out" | sed -n 's/^# METRICS //p' | tail -1)
    if [ $rc -ne 0 ] || [ -z "$m" ]; then
        echo "$name: run FAILED (exit $rc)" >&2
        printf '%s\n' "$out" | grep -E '^not ok|Bail' | head -5 >&2
        status=1
        m='{}'
    fi
    if [ -n "${BENCH_DIR:-}" ]; then
        printf '%s\n' "$m" > "$BENCH_DIR/dmabuf-$name.json"
    fi
    printf '%s\n' "$m"
}

py=/usr/bin/python3
[ -x "$py" ] || py=python3

echo "oversubscribe: 3 memory apps, vram=16M, ${dur} ms each, per DMA buffer placement"
printf '%-9s %5s %8s %14s %14s %10s %12s %18s\n' placement pct frames \
    kseg_dma_kib dma_vram_kib brought_in back_patched procs_in_flight
for pl in kernel aperture vram; do
    for pc in $pcts; do
        m=$(run "over-$pl-$pc" oversubscribe copro,vram=16M \
                "percent=$pc duration_ms=$dur dmabuf=$pl")
        printf '%s\n' "$m" | "$py" -c '
import json, sys
pl, pc = sys.argv[1], sys.argv[2]
try:
    m = json.loads(sys.stdin.read())
except ValueError:
    m = {}
if not m:
    print("%-9s %5s  run FAILED" % (pl, pc)); sys.exit()
apps = max(1, len(m.get("apps", [])))
kseg = m.get("dma_kseg_peak", 0)
if kseg:
    # the kernel segment (KiB) over the peak DMA bytes per process
    procs = "%d (kernel VRAM)" % (m["kseg_kib"] * 1024 // (kseg // apps or 1))
else:
    procs = "no kernel VRAM"
print("%-9s %5s %8s %14.1f %14.1f %10s %12s %18s" % (pl, pc,
      m.get("frames", "-"), kseg / 1024, m.get("dma_vram_peak", 0) / 1024,
      m.get("dma_brought_in", 0), m.get("dma_back_patched", 0), procs))
' "$pl" "$pc"
    done
done
echo "kseg_dma_kib: kernel segment bytes held by DMA buffers at their peak;"
echo "dma_vram_kib: vidmm VRAM held by pageable DMA buffers at their peak;"
echo "procs_in_flight: processes with this run's buffers in flight the"
echo "kernel segment could hold (derived: segment / peak per process)"

echo
echo "desktop and hog latency per placement (submit to start)"
printf '%-9s %-10s %-14s %10s %10s %8s\n' placement scenario app p50_us p99_us frames
for pl in $lat_pls; do
    for sc in desktop hog; do
        if [ $sc = desktop ]; then
            a="duration_ms=$((dur * 2)) dmabuf=$pl"
        else
            a="dmabuf=$pl"
        fi
        m=$(run "$sc-$pl" $sc copro "$a")
        printf '%s\n' "$m" | "$py" -c '
import json, sys
pl, sc = sys.argv[1], sys.argv[2]
try:
    m = json.loads(sys.stdin.read())
except ValueError:
    m = {}
for a in m.get("apps", []):
    print("%-9s %-10s %-14s %10.1f %10.1f %8s" % (pl, sc, a["name"],
          a["lat_p50_ns"] / 1000, a["lat_p99_ns"] / 1000, a["frames"]))
' "$pl" "$sc"
    done
done

echo
echo "split: one buffer of 1.5x VRAM in portions, per split policy (vram=16M)"
printf '%-9s %-10s %8s %10s %10s %12s %8s\n' split app portions p50_us p99_us gpu_ms frames
for sp in $splits; do
    m=$(run "split-$sp" split copro,vram=16M "split=$sp")
    printf '%s\n' "$m" | "$py" -c '
import json, sys
sp = sys.argv[1]
try:
    m = json.loads(sys.stdin.read())
except ValueError:
    m = {}
for a in m.get("apps", []):
    print("%-9s %-10s %8s %10.1f %10.1f %12.3f %8s" % (sp, a["name"],
          m.get("portions", "-"), a["lat_p50_ns"] / 1000,
          a["lat_p99_ns"] / 1000, a["gpu_ns"] / 1e6, a["frames"]))
' "$sp"
done
echo "p50/p99: submit to start of the app's buffers (scheduling latency)"
exit $status
