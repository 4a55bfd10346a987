#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run a scenario image twice under -icount and require the same METRICS
# line: the device's virtual-time figures must be deterministic.
#
#   check-deterministic.sh QEMU_RUN IMAGE [qemu args...]
#
# Prints TAP.
set -uo pipefail
here=$(dirname "$0")
metrics() {
    bash "$here/run-firmware.sh" "$@" -icount shift=0,sleep=off 2>&1 |
        sed -n 's/^# METRICS //p'
}
echo "1..2"
a=$(metrics "$@")
b=$(metrics "$@")
if [ -n "$a" ]; then
    echo "ok 1 - scenario printed METRICS"
else
    echo "not ok 1 - scenario printed no METRICS"
fi
if [ -n "$a" ] && [ "$a" = "$b" ]; then
    echo "ok 2 - two runs gave identical METRICS"
    exit 0
fi
echo "not ok 2 - two runs differ"
echo "# first:  $a"
echo "# second: $b"
exit 1
