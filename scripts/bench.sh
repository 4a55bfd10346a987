#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: measurements, not tests. Nothing here asserts a speed; the
# figures are printed for people (and quoted in issue notes).
#
#   bench.sh BUILDDIR
set -euo pipefail
build=$(realpath "$1")
# the runs the pictures are made from, and the pictures
export BENCH_DIR=$build/bench
mkdir -p "$BENCH_DIR"

echo "== emulation throughput (timing=instant, host time, one run) =="
QTEST_QEMU_BINARY="$build/tests/qemu-system-x86_64" "$build/copro-bench" |
    grep -v '^#'

echo
echo "== tiling: immediate against scene-based frames, parameter-buffer sizes, preemption latency (virtual time, bytes moved) =="
QTEST_QEMU_BINARY="$build/tests/qemu-system-x86_64" "$build/copro-bench-tiler" |
    grep -v -e '^#' -e '^ok ' -e '^1\.\.'

echo
echo "== tiling in the OS: the compositor over a long tile pass against long immediate work (mid-command, command), the tiled game's scene wait (virtual time) =="
bash "$(dirname "$0")/bench-tiling-os.sh" "$build/qemu-run" "$build/firmware"

echo
echo "== emulation speed: virtual time per host second, quiet-period batching off (old path) and on (host time, one run each) =="
python3 "$(dirname "$0")/bench-speed.py" \
    --qemu-python "$build/qemu/src/python" --out "$BENCH_DIR/speed.json" \
    "$build/qemu-run" "$build/firmware"

echo
echo "== high-priority latency under a 10 s hog, per preemption mode (virtual time) =="
bash "$(dirname "$0")/bench-hog.sh" "$build/qemu-run" "$build/firmware/hog.elf"

echo
echo "== cost of preemption: a 1 s hog preempted for frames over its whole run, mid-command (virtual time) =="
bash "$(dirname "$0")/bench-hog.sh" --switch-cost "$build/qemu-run" \
    "$build/firmware/hog.elf" 1000 1000

echo
echo "== the OS: desktop per policy, overlap, fairness (virtual time) =="
bash "$(dirname "$0")/bench-os.sh" "$build/qemu-run" "$build/firmware"

echo
echo "== preemptions and the context switch cost: desktop per policy and per ctx-state-size (virtual time) =="
bash "$(dirname "$0")/bench-switch.sh" "$build/qemu-run" "$build/firmware"

echo
echo "== hardware scheduling (issue 17): desktop and hog under software quantum, hardware quantum and hardware joblist (virtual time) =="
bash "$(dirname "$0")/bench-hwsched.sh" "$build/qemu-run" "$build/firmware"

echo
bash "$(dirname "$0")/bench-sched.sh" "$build"

echo
echo "== paging bandwidth: VRAM <-> system memory through the aperture, per modelled copy-bw (virtual time) =="
bash "$(dirname "$0")/bench-paging.sh" "$build/qemu-run" \
    "$build/firmware/paging.elf"

echo
echo "== oversubscription: working sets from 50 % to 200 % of VRAM, vidmm paging (virtual time) =="
bash "$(dirname "$0")/bench-oversubscribe.sh" "$build/qemu-run" \
    "$build/firmware/oversubscribe.elf"

echo
echo "== eviction fighting: two same-priority working sets over VRAM, avoidance off and on (virtual time) =="
bash "$(dirname "$0")/bench-fighting.sh" "$build/qemu-run" \
    "$build/firmware/fighting.elf"

echo
bash "$(dirname "$0")/bench-linux.sh" "$build"

echo
echo "== pictures (in $BENCH_DIR) =="
# Debian's python3 has Debian's matplotlib (scripts/install-deps.sh)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$(dirname "$0")/plot-bench.py" "$BENCH_DIR"
