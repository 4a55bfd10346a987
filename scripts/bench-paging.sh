#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Paging bandwidth for make bench: the paging image
# (firmware/scenarios/paging.c, "bench" on its command line) pages VRAM
# ranges of 64 KiB to 16 MiB out to system memory through the aperture
# and back in, each direction one paging buffer (TRANSFER + UNMAP; the
# MAP is a CPU write at build time) on the copy engine, timed by
# TIMESTAMP packets around it on the GPU clock. One table per modelled
# copy-bw (the device's copy-bw property): achieved GiB/s and the share
# of copy-bw (the rest is packet-ns per packet and UNMAP's COPY_PTE).
# Measurements, not assertions.
#
#   bench-paging.sh QEMU_RUN PAGING_IMAGE [COPY_BW...]
#
# COPY_BW in bytes per second, default 8 GiB/s and 32 GiB/s. Runs under
# -icount shift=0,sleep=off: the figures are deterministic. With
# BENCH_DIR set, the tables go to BENCH_DIR/paging.txt and each run's
# BANDWIDTH line to BENCH_DIR/paging-bw=COPY_BW.json. Exit status 1 if a
# run failed (the guest's checks included), 2 on bad usage.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 QEMU_RUN PAGING_IMAGE [COPY_BW...]" >&2
    exit 2
fi
qemu_run=$1
image=$2
shift 2
bws=("$@")
[ ${#bws[@]} -gt 0 ] || bws=($((8 << 30)) $((32 << 30)))
here=$(dirname "$0")
status=0
text=""

for bw in "${bws[@]}"; do
    case $bw in
    ''|*[!0-9]*) echo "bench-paging: COPY_BW must be bytes per second: $bw" >&2
                 exit 2 ;;
    esac
    out=$(COPRO_TIMEOUT=${COPRO_TIMEOUT:-300} bash "$here/run-firmware.sh" \
              "$qemu_run" "$image" -M q35 -device "copro,copy-bw=$bw" \
              -icount shift=0,sleep=off \
              -append "irq=msix bench copy_bw=$bw")
    rc=$?
    if [ $rc -ne 0 ]; then
        status=1
        table="copy-bw $bw: run FAILED (exit $rc)"$'\n'
        table+=$(printf '%s\n' "$out" | grep -E '^not ok|Bail' | head -5)
    else
        # the table: the guest's lines from its heading to the JSON line
        table=$(printf '%s\n' "$out" | sed -n 's/^# //p' |
                sed -n '/^paging bandwidth/,/^BANDWIDTH/p' | grep -v '^BANDWIDTH')
        if [ -n "${BENCH_DIR:-}" ]; then
            printf '%s\n' "$out" | sed -n 's/^# BANDWIDTH //p' \
                > "$BENCH_DIR/paging-bw=$bw.json"
        fi
    fi
    text+="$table"$'\n\n'
done
printf '%s' "$text"
if [ -n "${BENCH_DIR:-}" ]; then
    printf '%s' "$text" > "$BENCH_DIR/paging.txt"
fi
exit $status
