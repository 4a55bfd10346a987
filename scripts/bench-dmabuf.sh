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
#    buffers brought in at a switch, frames.
# 1b. inflight (the same working sets, then processes added one at a
#    time, each holding buffers in flight behind a GPU wait, until the
#    kernel refuses one): processes and buffers held, the refusing call
#    and the pool behind it, per placement and percentage, for small
#    buffers (2 x 2 KiB a process, a memapp's frames) and large ones
#    (8 x 64 KiB). Measured, not derived.
# 2. desktop and hog latency per placement (submit to start, p50/p99).
# 3. the split scenario with split=schedule, upfront, both: scheduling
#    latency of the split app's buffers, portions, GPU time; for its
#    whole working set of 1.5x VRAM and for one that varies (vary=1).
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
in_pls="kernel aperture vram" in_shapes="2x2048 8x65536"
if [ -n "${BENCH_SHORT:-}" ]; then
    pcts=150 lat_pls=vram splits=upfront in_pls=vram in_shapes=8x65536
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
printf '%-9s %5s %8s %14s %14s %10s %12s\n' placement pct frames \
    kseg_dma_kib dma_vram_kib brought_in back_patched
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
kseg = m.get("dma_kseg_peak", 0)
print("%-9s %5s %8s %14.1f %14.1f %10s %12s" % (pl, pc,
      m.get("frames", "-"), kseg / 1024, m.get("dma_vram_peak", 0) / 1024,
      m.get("dma_brought_in", 0), m.get("dma_back_patched", 0)))
' "$pl" "$pc"
    done
done
echo "kseg_dma_kib: kernel segment bytes held by DMA buffers at their peak;"
echo "dma_vram_kib: vidmm VRAM held by pageable DMA buffers at their peak"

echo
echo "inflight: the same working sets (100 ms), then processes each holding"
echo "buffers in flight (behind a GPU wait) added until the kernel refuses one"
printf '%-9s %5s %-8s %6s %8s %10s  %s\n' placement pct bufs procs buffers \
    kseg_kib "refused by"
for shape in $in_shapes; do
    nb=${shape%x*} nbytes=${shape#*x}
    for pl in $in_pls; do
        for pc in $pcts; do
            m=$(run "inflight-$pl-$pc-$shape" inflight copro,vram=16M \
                    "percent=$pc duration_ms=100 probe_bufs=$nb probe_bytes=$nbytes dmabuf=$pl")
            printf '%s\n' "$m" | "$py" -c '
import json, sys
pl, pc, shape = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    m = json.loads(sys.stdin.read())
except ValueError:
    m = {}
if not m:
    print("%-9s %5s  run FAILED" % (pl, pc)); sys.exit()
why = "%s %s" % (m["refused_by"], m["refused_status"])
if m.get("refused_pool"):
    why += " (%s: %s)" % (m["refused_pool"], m["refused_pool_status"])
print("%-9s %5s %-8s %6s %8s %10.1f  %s" % (pl, pc, shape, m["procs"],
      m["buffers"], m["kseg_held"] / 1024, why))
' "$pl" "$pc" "$shape"
        done
    done
done
echo "bufs: buffers x bytes each process submits; procs: processes that held"
echo "at least one (a later one throttled still counts); kseg_kib: the kernel"
echo "segment they held; refused by: the call that failed for the next"
echo "process and the quota pool behind it (process_create: the process"
echo "table, KERNEL_MAX_PROCS less the 3 memory apps)"

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
echo "split: one buffer of 1.5x VRAM in portions, per split policy (vram=16M);"
echo "vary: a working set that varies (9 frames: whole, a third, two thirds)"
printf '%-9s %-6s %-10s %8s %8s %10s %10s %12s %8s %7s\n' split set app \
    split_bufs portions p50_us p99_us gpu_ms frames waited
for set in whole vary; do
    for sp in $splits; do
        if [ $set = vary ]; then
            a="split=$sp vary=1 frames=9"
        else
            a="split=$sp"
        fi
        m=$(run "split-$set-$sp" split copro,vram=16M "$a")
        printf '%s\n' "$m" | "$py" -c '
import json, sys
sp, st = sys.argv[1], sys.argv[2]
try:
    m = json.loads(sys.stdin.read())
except ValueError:
    m = {}
for a in m.get("apps", []):
    print("%-9s %-6s %-10s %8s %8s %10.1f %10.1f %12.3f %8s %7s" % (sp, st,
          a["name"], m.get("split_buffers", "-"), m.get("portions", "-"),
          a["lat_p50_ns"] / 1000, a["lat_p99_ns"] / 1000, a["gpu_ns"] / 1e6,
          a["frames"], m.get("lists_waited", "-")))
' "$sp" "$set"
    done
done
echo "p50/p99: submit to start of the app's buffers (scheduling latency);"
echo "waited: residency passes refused for memory (a split at schedule time"
echo "tries one first; vary only)"
exit $status
