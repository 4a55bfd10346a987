#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run a scenario image twice under -icount and require the same METRICS
# line: the device's virtual-time figures must be deterministic.
#
#   check-deterministic.sh QEMU_RUN IMAGE [qemu args...]
#
# -icount alone is not record/replay: QEMU documents that asynchronous host
# events can still perturb a run, and on a heavily loaded host a pair of runs
# very rarely differs by a few ns. So a second pair is tried before failing;
# a device that is not deterministic (a bottom half where a virtual-clock
# timer is needed) differs on every pair. Prints TAP.
set -uo pipefail
here=$(dirname "$0")
metrics() {
    bash "$here/run-firmware.sh" "$@" -icount shift=0,sleep=off 2>&1 |
        sed -n 's/^# METRICS //p'
}
echo "1..2"
for attempt in 1 2; do
    a=$(metrics "$@")
    b=$(metrics "$@")
    [ -n "$a" ] && [ "$a" = "$b" ] && break
    echo "# attempt $attempt: runs differ"
    echo "#   first:  $a"
    echo "#   second: $b"
done
if [ -n "$a" ]; then
    echo "ok 1 - scenario printed METRICS"
else
    echo "not ok 1 - scenario printed no METRICS"
fi
if [ -n "$a" ] && [ "$a" = "$b" ]; then
    echo "ok 2 - two runs gave identical METRICS (attempt $attempt)"
    exit 0
fi
echo "not ok 2 - two runs differ on both attempts"
exit 1
