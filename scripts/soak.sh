#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make soak: the scheduler's property tests over many seeds, split across
# a few processes. Every failing seed is printed with the command that
# reproduces it; the exit status is non-zero if any failed. Both modes:
# software scheduling, then hardware scheduling (--hws: vidsch's hardware
# mode over the device's scheduler modelled in tests/sim/sim_hws.c), or
# only the modes given.
#
#   soak.sh TEST-SIM-PROPS SEEDS [JOBS [MODES]]
set -uo pipefail
bin=$1
seeds=$2
jobs=${3:-2}
modes=${4:-sw hws}
per=$(( (seeds + jobs - 1) / jobs ))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

start=$(date +%s)
pids=()
for mode in $modes; do
    flag=
    [ "$mode" = hws ] && flag=--hws
    for ((j = 0; j < jobs; j++)); do
        first=$(( j * per ))
        count=$(( seeds - first < per ? seeds - first : per ))
        (( count > 0 )) || break
        "$bin" $flag --first=$first --count=$count --chunk=10000 \
            >"$dir/$mode-$j.log" 2>&1 &
        pids+=($!)
    done
done
rc=0
for p in "${pids[@]}"; do
    wait "$p" || rc=1
done
cat "$dir"/*.log | grep -E '^# (seed|reproduce|workload|  )' || true
failed=$(cat "$dir"/*.log | grep -c 'FAILED' || true)
echo "soak: $(basename "$bin"): $seeds seeds in each mode ($modes) in $(( $(date +%s) - start )) s, $failed failed"
exit $rc
