#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Linux guest's figures (make bench): never assertions.
#   1. boot: wall time from QEMU's start to /init and to a probed
#      /dev/dri/card0, and the guest's own uptime then, without -icount
#      (as fast as the host goes) and under -icount shift=1,sleep=off;
#   2. flips: 600 page flips with events under -icount (every flip on its
#      vblank?), the mean flip period and the spread of the vblank
#      timestamps (standard deviation over mean; goal below 0.1 %), and
#      the same without -icount (host scheduling shows there);
#   3. cursor moves per second and per vblank (asynchronous updates).
#
#   bench-linux.sh BUILDDIR
set -u
build=$1
here=$(dirname "$0")
run() {
    python3 "$here/run-linux.py" --qemu-python "$build/qemu/src/python" "$@" \
        "$build/qemu-run" "$build/linux"
}

boot() {
    local label=$1 start
    shift
    start=$(date +%s.%N)
    run "$@" --run 'true' | while IFS= read -r line; do
        case "$line" in
        "COPRO-INIT uptime"*)
            printf '  %-22s /init at %6.2f s wall, %s s guest\n' "$label" \
                "$(echo "$(date +%s.%N) - $start" | bc)" "${line##* }" ;;
        "COPRO-INIT card0"*)
            printf '  %-22s card0 at %6.2f s wall, %s s guest\n' "$label" \
                "$(echo "$(date +%s.%N) - $start" | bc)" "${line##* }" ;;
        esac
    done
    printf '  %-22s power-off at %6.2f s wall\n' "$label" \
        "$(echo "$(date +%s.%N) - $start" | bc)"
}

echo "== Linux guest: boot (Debian's kernel, PVH + qboot, the DRM stack and copro.ko) =="
boot "no icount" 
boot "icount shift=1" --icount shift=1,sleep=off
echo
echo "== Linux guest: 600 flips, vblank timestamps, cursor (copro-kmstest bench) =="
for mode in "shift=1,sleep=off" ""; do
    echo "  ${mode:-no icount}${mode:+-icount $mode}:"
    run --quiet ${mode:+--icount "$mode"} --run 'copro-kmstest bench' |
        grep -E "BENCH|late|max error|ppm|exactly" | sed 's/^# //; s/^/    /'
done
