#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Eviction fighting for make bench: the fighting image
# (firmware/scenarios/fighting.c) runs two same-priority memory
# applications whose working sets fit VRAM one at a time but not
# together, on a 16 MiB device, with vidsch's eviction-fighting avoidance
# off (fighting detected, not avoided: fight_factor=1) and on (the
# default), DURATION_MS of virtual time each. The table gives frames,
# paging traffic and the render engine's turns, and the ratios on/off.
# Every run also checks every byte of every allocation. The figures are
# measurements; what is checked is only that the mechanism happened
# (deterministic counts under -icount, not speeds): both runs paged,
# fighting was detected without avoidance, and avoidance paged fewer
# bytes (issue 26: both runs once paged nothing and every check passed).
#
#   bench-fighting.sh QEMU_RUN FIGHTING_IMAGE
#
# Under -icount shift=0,sleep=off: deterministic. With BENCH_DIR set, the
# table goes to BENCH_DIR/fighting.txt and each METRICS line to
# BENCH_DIR/fighting-{off,on}.json. Exit status 1 if a run failed, 2 on
# bad usage.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 QEMU_RUN FIGHTING_IMAGE" >&2
    exit 2
fi
qemu_run=$1
image=$2
duration=${DURATION_MS:-500}
here=$(dirname "$0")
status=0
declare -A frames paging turns episodes

field() {
    printf '%s\n' "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2
}

text="fighting: 2 NORMAL memory apps, 70 % of vidmm's VRAM each, vram=16M, ${duration} ms (virtual time)"$'\n'
text+=$(printf '%-10s %8s %12s %10s %8s %12s' avoidance frames paging_mib \
        buffers turns fight_turns)$'\n'
for mode in off on; do
    opt=""
    [ "$mode" = off ] && opt="fight_factor=1"
    out=$(COPRO_TIMEOUT=${COPRO_TIMEOUT:-300} bash "$here/run-firmware.sh" \
              "$qemu_run" "$image" -M q35 -device copro,vram=16M \
              -icount shift=0,sleep=off \
              -append "irq=msix duration_ms=$duration $opt")
    rc=$?
    m=$(printf '%s\n' "$out" | sed -n 's/^# METRICS //p' | tail -1)
    if [ $rc -ne 0 ] || [ -z "$m" ]; then
        status=1
        text+=$(printf '%-10s run FAILED (exit %s)' "$mode" "$rc")$'\n'
        continue
    fi
    frames[$mode]=$(field "$m" frames)
    paging[$mode]=$(field "$m" paging_bytes)
    turns[$mode]=$(field "$m" turns)
    episodes[$mode]=$(field "$m" fight_episodes)
    text+=$(printf '%-10s %8s %12s %10s %8s %12s' "$mode" "${frames[$mode]}" \
            "$(awk -v b="${paging[$mode]}" 'BEGIN { printf "%.1f", b / 1048576 }')" \
            "$(field "$m" paging_buffers)" "${turns[$mode]}" \
            "$(field "$m" fight_turns)")$'\n'
    if [ -n "${BENCH_DIR:-}" ]; then
        printf '%s\n' "$m" > "$BENCH_DIR/fighting-$mode.json"
    fi
done
if [ $status -eq 0 ]; then
    text+=$(awk -v fo="${frames[off]}" -v fn="${frames[on]}" \
                -v po="${paging[off]}" -v pn="${paging[on]}" \
                -v to="${turns[off]}" -v tn="${turns[on]}" \
            'BEGIN { printf "on/off: throughput %.2fx, paging %.2fx, turns %.2fx",
                     fn / fo, (po > 0 ? pn / po : 0), (to > 0 ? tn / to : 0) }')$'\n'
fi
if [ $status -eq 0 ]; then
    # the mechanism, not a speed: paging without avoidance, fighting
    # detected, and fewer bytes paged with avoidance
    if [ "${paging[off]}" -eq 0 ] || [ "${episodes[off]}" -eq 0 ] ||
       [ "${paging[on]}" -ge "${paging[off]}" ]; then
        status=1
        text+="FAILED: no fighting to avoid, or avoidance paged no less (paging off ${paging[off]} on ${paging[on]}, episodes off ${episodes[off]})"$'\n'
    fi
fi
printf '%s' "$text"
if [ -n "${BENCH_DIR:-}" ]; then
    printf '%s' "$text" > "$BENCH_DIR/fighting.txt"
fi
exit $status
