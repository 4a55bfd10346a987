# SPDX-License-Identifier: GPL-2.0-or-later
# Every shared pool of the driver has a bound per process and a reserve
# that no single process can take (issue 27, review defects 4, 11, 12):
# a hostile process takes all it can of one pool (the job pool through
# four files, ring slots through files of clone() children, contexts, GTT
# buffers, VRAM pinned by queued jobs); another process's job, context or
# buffer still succeeds within a bound of device time (virtual: -icount).
. /bin/tap.sh
for w in pool clone contexts gart vram; do
    run_tap copro-rendertest limits $w
done
# the killed hostiles' jobs are dropped and freed by drm_sched's workers
left() {
    grep -q "^engine0: run \([0-9]*\) done \1 on_ring 0 held 0" \
        /sys/kernel/debug/dri/0/copro_engines
}
i=0
while ! left && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
grep -E "^engine|^limit|pool_used|gart_used" /sys/kernel/debug/dri/0/copro_engines | sed 's/^/# /'
check "no job left behind" grep -q "^engine0: run \([0-9]*\) done \1 on_ring 0 held 0" \
    /sys/kernel/debug/dri/0/copro_engines
check "dmesg clean" dmesg_clean
tap_done
