#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Quiet-period batching (the device's x-batch property, docs/specs/
# copro.rst "Emulation speed") must not change a result: run a scenario
# image under -icount with x-batch=off (one timer per step, the old path)
# and with x-batch=on, and require the same test results (the guest's
# PASS/FAIL lines), the same METRICS lines and the same timeline (every
# event, to the nanosecond, and the virtual time at exit). Both runs must
# pass and print METRICS, so the check cannot pass on two empty runs. The
# timeline file's first line is left out: the virtual time it gives is when
# QEMU wrote the file at exit, after the guest's last act, and QEMU's exit
# path does not stop the clock at a deterministic point.
#
#   check-batch.sh QEMU_RUN IMAGE [qemu args...]
#
# As in check-deterministic.sh, -icount is not record/replay and a loaded
# host very rarely perturbs a run by a few ns, so a differing pair is run
# once more before failing. Prints TAP.
set -uo pipefail
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME on|off: results in $tmp/NAME.out, timeline in $tmp/NAME.tl
run() {
    bash "$here/run-firmware.sh" "$@" -icount shift=0,sleep=off \
        -global "copro.x-batch=$batch" -global copro.timeline=1048576 \
        -global "copro.x-timeline-file=$tmp/$name.tl" >"$tmp/$name.log" 2>&1
    local rc=$?
    # the guest's checks and figures; QEMU's and the runner's own lines
    # (file names, timings of the host) are left out
    grep -E '^(ok|not ok) [0-9]+ - |^# METRICS ' "$tmp/$name.log" \
        >"$tmp/$name.out"
    tail -n +2 "$tmp/$name.tl" >"$tmp/$name.events" 2>/dev/null
    return $rc
}

echo "1..4"
for attempt in 1 2; do
    name=off batch=off run "$@"; rc_off=$?
    name=on batch=on run "$@"; rc_on=$?
    same_out=false same_tl=false
    cmp -s "$tmp/off.out" "$tmp/on.out" && same_out=true
    [ -s "$tmp/off.events" ] && cmp -s "$tmp/off.events" "$tmp/on.events" &&
        same_tl=true
    if $same_out && $same_tl; then
        break
    fi
    echo "# attempt $attempt: x-batch=off and on differ"
    diff "$tmp/off.out" "$tmp/on.out" | head -n 20 | sed 's/^/#   /'
    diff "$tmp/off.events" "$tmp/on.events" | head -n 6 | cut -c 1-300 |
        sed 's/^/#   timeline: /'
done

failed=false
if [ $rc_off -eq 0 ] && [ $rc_on -eq 0 ]; then
    echo "ok 1 - the scenario passed with x-batch=off and with x-batch=on"
else
    echo "not ok 1 - the scenario failed (x-batch=off: $rc_off, on: $rc_on)"
    sed 's/^/#   /' "$tmp/on.log" | tail -n 20
    failed=true
fi
if grep -q '^# METRICS ' "$tmp/off.out"; then
    echo "ok 2 - the scenario printed METRICS"
else
    echo "not ok 2 - the scenario printed no METRICS"
    failed=true
fi
if $same_out; then
    echo "ok 3 - identical checks and METRICS with and without batching" \
         "(attempt $attempt)"
else
    echo "not ok 3 - checks or METRICS differ with batching"
    failed=true
fi
if $same_tl; then
    echo "ok 4 - identical timelines with and without batching" \
         "($(grep -c '"time-ns"' "$tmp/on.events") events)"
else
    echo "not ok 4 - the timelines differ (or none was written)"
    failed=true
fi
! $failed
