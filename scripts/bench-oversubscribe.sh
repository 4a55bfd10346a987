#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Oversubscription for make bench: the oversubscribe image
# (firmware/scenarios/oversubscribe.c) runs three memory applications
# whose working sets add up to PERCENT of the VRAM vidmm manages on a
# 16 MiB device, for DURATION_MS of virtual time each, and the table gives
# frames, throughput relative to the 50 % run (everything fits: no
# paging) and vidmm's paging traffic (paging buffers, bytes moved,
# evictions). Every run also checks every byte of every allocation.
# Measurements, not assertions (the issue's goal: at 150 % no worse than
# 2x slower than at 50 %).
#
#   bench-oversubscribe.sh QEMU_RUN OVERSUBSCRIBE_IMAGE [PERCENT...]
#
# PERCENT default 50 110 150 200 (the first is the reference). Runs under
# -icount shift=0,sleep=off: the figures are deterministic. With BENCH_DIR
# set, the table goes to BENCH_DIR/oversubscribe.txt and each run's
# METRICS line to BENCH_DIR/oversubscribe-PERCENT.json. Exit status 1 if
# a run failed (the guest's checks included), 2 on bad usage.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 QEMU_RUN OVERSUBSCRIBE_IMAGE [PERCENT...]" >&2
    exit 2
fi
qemu_run=$1
image=$2
shift 2
pcs=("$@")
[ ${#pcs[@]} -gt 0 ] || pcs=(50 110 150 200)
duration=${DURATION_MS:-500}
here=$(dirname "$0")
status=0
ref=""

# a number field of a METRICS line
field() {
    printf '%s\n' "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2
}

text="oversubscribe: 3 memory apps, vram=16M, ${duration} ms each (virtual time)"$'\n'
text+=$(printf '%8s %8s %10s %8s %10s %12s %10s %10s' percent actual \
        working_kib frames relative paging_mib buffers evictions)$'\n'
for pc in "${pcs[@]}"; do
    case $pc in
    ''|*[!0-9]*) echo "bench-oversubscribe: PERCENT must be a number: $pc" >&2
                 exit 2 ;;
    esac
    out=$(COPRO_TIMEOUT=${COPRO_TIMEOUT:-300} bash "$here/run-firmware.sh" \
              "$qemu_run" "$image" -M q35 -device copro,vram=16M \
              -icount shift=0,sleep=off \
              -append "irq=msix percent=$pc duration_ms=$duration")
    rc=$?
    m=$(printf '%s\n' "$out" | sed -n 's/^# METRICS //p' | tail -1)
    if [ $rc -ne 0 ] || [ -z "$m" ]; then
        status=1
        text+=$(printf '%8s  run FAILED (exit %s)' "$pc" "$rc")$'\n'
        text+=$(printf '%s\n' "$out" | grep -E '^not ok|Bail' | head -5)$'\n'
        continue
    fi
    frames=$(field "$m" frames)
    [ -n "$ref" ] || ref=$frames
    rel=$(awk -v f="$frames" -v r="$ref" \
          'BEGIN { if (r > 0) printf "%.2f", f / r; else print "-" }')
    mib=$(awk -v b="$(field "$m" paging_bytes)" \
          'BEGIN { printf "%.1f", b / 1048576 }')
    actual=$(awk -v w="$(field "$m" working_set_kib)" \
             -v v="$(field "$m" vram_kib)" \
             'BEGIN { if (v > 0) printf "%.0f%%", 100 * w / v }')
    text+=$(printf '%8s %8s %10s %8s %10s %12s %10s %10s' "$pc" "$actual" \
            "$(field "$m" working_set_kib)" "$frames" "$rel" "$mib" \
            "$(field "$m" paging_buffers)" "$(field "$m" evictions)")$'\n'
    if [ -n "${BENCH_DIR:-}" ]; then
        printf '%s\n' "$m" > "$BENCH_DIR/oversubscribe-$pc.json"
    fi
done
text+="actual: working sets / vidmm's VRAM (whole 64 KiB stripes per allocation)"$'\n'
text+="relative: frames / frames of the first run (${pcs[0]} %)"$'\n'
printf '%s' "$text"
if [ -n "${BENCH_DIR:-}" ]; then
    printf '%s' "$text" > "$BENCH_DIR/oversubscribe.txt"
fi
exit $status
