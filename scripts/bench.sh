#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: measurements, not tests. Nothing here asserts a speed; the
# figures are printed for people (and quoted in issue notes).
#
#   bench.sh [--short] BUILDDIR
#
# --short is make check's form (the meson test bench-short): every
# figure's code path with small durations and one run where the full form
# runs a series of the same kind, so that a change cannot break make bench
# unseen (issue 26: it failed, and nothing ran it). Its figures mean
# nothing; it fails only when a run fails. The pictures then go to
# BUILDDIR/bench-short.
set -euo pipefail
short=0
if [ "${1:-}" = --short ]; then
    short=1
    shift
fi
build=$(realpath "$1")
here=$(dirname "$0")
# the runs the pictures are made from, and the pictures
export BENCH_DIR=$build/bench
if [ $short = 1 ]; then
    export BENCH_DIR=$build/bench-short BENCH_SHORT=1
fi
mkdir -p "$BENCH_DIR"
# short: the value after the colon
pick() {
    if [ $short = 1 ]; then echo "$2"; else echo "$1"; fi
}

echo "== emulation throughput (timing=instant, host time, one run) =="
QTEST_QEMU_BINARY="$build/tests/qemu-system-x86_64" "$build/copro-bench" |
    grep -v '^#'

echo
echo "== tiling: immediate against scene-based frames, parameter-buffer sizes, preemption latency (virtual time, bytes moved) =="
QTEST_QEMU_BINARY="$build/tests/qemu-system-x86_64" "$build/copro-bench-tiler" |
    grep -v -e '^#' -e '^ok ' -e '^1\.\.'

echo
echo "== tiling in the OS: the compositor over a long tile pass against long immediate work (mid-command, command), the tiled game's scene wait (virtual time) =="
bash "$here/bench-tiling-os.sh" "$build/qemu-run" "$build/firmware" \
    $(pick 2000 100)

echo
echo "== emulation speed: virtual time per host second, quiet-period batching off (old path) and on (host time, one run each) =="
python3 "$here/bench-speed.py" $(pick "" --short) \
    --qemu-python "$build/qemu/src/python" --out "$BENCH_DIR/speed.json" \
    "$build/qemu-run" "$build/firmware"

echo
echo "== high-priority latency under a 10 s hog, per preemption mode (virtual time) =="
# short: a 2 s hog still queues more frames than the frames process may
# have in flight (the throttle's path)
bash "$here/bench-hog.sh" "$build/qemu-run" "$build/firmware/hog.elf" \
    $(pick 10000 2000) 1000

echo
echo "== cost of preemption: a 1 s hog preempted for frames over its whole run, mid-command (virtual time) =="
bash "$here/bench-hog.sh" --switch-cost "$build/qemu-run" \
    "$build/firmware/hog.elf" $(pick 1000 100) $(pick 1000 100)

echo
echo "== the OS: desktop per policy, overlap, fairness (virtual time) =="
bash "$here/bench-os.sh" "$build/qemu-run" "$build/firmware" \
    $(pick 2000 200)

echo
echo "== preemptions and the context switch cost: desktop per policy and per ctx-state-size (virtual time) =="
bash "$here/bench-switch.sh" "$build/qemu-run" "$build/firmware" \
    $(pick 2000 100)

echo
echo "== hardware scheduling (issue 17): desktop and hog under software quantum, hardware quantum and hardware joblist (virtual time) =="
bash "$here/bench-hwsched.sh" "$build/qemu-run" "$build/firmware" \
    $(pick 2000 200)

echo
bash "$here/bench-sched.sh" "$build"

echo
echo "== paging bandwidth: VRAM <-> system memory through the aperture, per modelled copy-bw (virtual time) =="
bash "$here/bench-paging.sh" "$build/qemu-run" \
    "$build/firmware/paging.elf" $(pick "" $((8 << 30)))

echo
echo "== oversubscription: working sets from 50 % to 200 % of VRAM, vidmm paging (virtual time) =="
DURATION_MS=$(pick 500 100) bash "$here/bench-oversubscribe.sh" \
    "$build/qemu-run" "$build/firmware/oversubscribe.elf" $(pick "" "50 150")

echo
echo "== eviction fighting: two same-priority working sets over VRAM, avoidance off and on (virtual time) =="
DURATION_MS=$(pick 500 100) bash "$here/bench-fighting.sh" \
    "$build/qemu-run" "$build/firmware/fighting.elf"

echo
echo "== DMA buffer placements (kernel segment, aperture, VRAM) and split policies (virtual time) =="
DURATION_MS=$(pick 500 100) bash "$here/bench-dmabuf.sh" "$build"

echo
bash "$here/bench-linux.sh" "$build"

echo
echo "== pictures (in $BENCH_DIR) =="
# Debian's python3 has Debian's matplotlib (scripts/install-deps.sh)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$here/plot-bench.py" "$BENCH_DIR"
