#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run one step of the build quietly: its output goes to a log, and this
# prints one line with the step's name, its time and, on failure, the end
# of the log and where the whole of it is.
#
#   step.sh NAME LOG COMMAND [ARGS...]
#
# V=1 in the environment shows the command's output as it runs instead
# (and still keeps the log).
set -uo pipefail

name=$1
log=$2
shift 2
mkdir -p "$(dirname "$log")"
start=$(date +%s)
if [ "${V:-0}" = 1 ]; then
    "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
else
    "$@" > "$log" 2>&1
    rc=$?
fi
secs=$(( $(date +%s) - start ))
# a step may say in one line what it did (a line starting "copro-step: ")
what=$(sed -n 's/^copro-step: //p' "$log" | tail -n 1)
# or, for ninja, whether it had anything to do
if [ -z "$what" ] && grep -q '^ninja: no work to do' "$log"; then
    what="up to date"
fi
if [ "$rc" = 0 ]; then
    printf '%-14s ok   %4d s  %s\n' "$name" "$secs" "${what:-}"
    exit 0
fi
printf '%-14s FAILED after %d s; the end of %s:\n' "$name" "$secs" "$log" >&2
tail -n 40 "$log" | sed 's/^/    /' >&2
echo "the whole log: $log (V=1 make ... shows the output as it runs)" >&2
exit "$rc"
