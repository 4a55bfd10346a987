# SPDX-License-Identifier: GPL-2.0-or-later
# The render half (copro-rendertest through libcopro): GEM buffers,
# submission through drm_sched, the kernel's stream checks against bad
# input, fences and sync objects, several processes, priorities with
# mid-command preemption. Under -icount: WORK and TIMESTAMP are device
# time, waits with timeouts are virtual time.
. /bin/tap.sh
run_tap copro-rendertest basic
run_tap copro-rendertest bad
run_tap copro-rendertest fences
run_tap copro-rendertest multi 4
run_tap copro-rendertest preempt
# the render node is there for unprivileged clients
check "a render node (/dev/dri/renderD128)" test -c /dev/dri/renderD128
check "no job left behind" grep -q "^engine0: run \([0-9]*\) done \1 on_ring 0 held 0" \
    /sys/kernel/debug/dri/0/copro_engines
check "dmesg clean" dmesg_clean
tap_done
