#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The scheduler's figures for make bench, on the host (no QEMU needed):
# decision cost against the number of contexts, and from the GPU model
# (tests/sim) the fairness and overlap figures. Measurements, never
# assertions.
#
#   bench-sched.sh BUILDDIR
set -euo pipefail
build=$(realpath "$1")
sched="$build/tests/sim/bench-sched"
sim="$build/tests/sim/bench-sim"
steps=10000 reps=60 counts="4 64 1024" seeds=""
if [ -n "${BENCH_SHORT:-}" ]; then
    # make check's form (bench.sh --short): every figure, little work
    steps=500 reps=2 counts="4 64" seeds=--seeds=1
fi

echo "== scheduler decision cost (host: one step = retire, quantum/aging checks, election,"
echo "   preparation, ring write and the application's resubmission; all contexts NORMAL) =="
# Two measures: the minimum over repetitions of the wall time (noise only
# adds, so the minimum is the figure), and with valgrind the instructions
# executed, which do not depend on the machine's load at all.
have_cg=0
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null &&
    have_cg=1
printf "%-9s %16s %20s %14s\n" contexts "ns/step (min of 60)" "instructions/step" "vs 4 contexts"
base=""
for n in $counts; do
    ns=$("$sched" --contexts=$n --steps=$steps --reps=$reps |
         sed -n 's/.*ns_per_step \([0-9.]*\).*/\1/p')
    ir="-"
    rel="-"
    if [ $have_cg = 1 ]; then
        out=$(mktemp)
        # measure() runs twice (warm-up and one repetition): 2 x steps
        valgrind --tool=callgrind --callgrind-out-file="$out" \
            --collect-atstart=no --toggle-collect=measure \
            "$sched" --contexts=$n --steps=$steps --reps=1 >/dev/null 2>&1
        total=$(callgrind_annotate "$out" 2>/dev/null |
                awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
        rm -f "$out"
        ir=$(( total / (2 * steps) ))
        [ -n "$base" ] || base=$ir
        rel=$(awk -v a="$ir" -v b="$base" 'BEGIN { printf "%+.1f%%", 100 * (a - b) / b }')
    fi
    printf "%-9s %16s %20s %14s\n" "$n" "$ns" "$ir" "$rel"
done

echo
echo "== fairness: Jain's index of GPU time, 8 NORMAL contexts (GPU model, virtual time) =="
"$sim" fairness
echo
echo "== overlap: GPU busy fraction, worker preparing during execution vs serial_prepare =="
"$sim" overlap
echo
echo "== desktop on the GPU model: compositor (HIGH), cursor (REALTIME), game (NORMAL), hog (IDLE) =="
"$sim" desktop
echo
echo "== vidmm: throughput with working sets of 50-200% of VRAM, relative to 50%; eviction fighting with and without avoidance (GPU model, virtual time) =="
"$build/tests/sim/bench-vidmm" $seeds
