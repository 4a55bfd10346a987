# SPDX-License-Identifier: GPL-2.0-or-later
# The render half (copro-rendertest through libcopro): GEM buffers,
# submission through drm_sched, the kernel's stream checks against bad
# input, fences and sync objects, several processes, priorities with
# mid-command preemption. Under -icount: WORK and TIMESTAMP are device
# time, waits with timeouts are virtual time.
. /bin/tap.sh
# drm_sched's policy: the kernel's default, or the one the command line
# chose (linux-*-render-rr, -fair)
policy=$(cat /sys/module/gpu_sched/parameters/sched_policy)
echo "# drm_sched policy $policy (0 RR, 1 FIFO, 2 FAIR)"
want=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^gpu_sched.sched_policy=//p')
if [ -n "$want" ]; then
    check "drm_sched runs the policy asked for ($want)" test "$policy" = "$want"
fi
# the driver's tracepoints (copro_trace.h) and drm_sched's, around the
# basic test (buffers in VRAM and GTT, jobs on both engines)
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs tracefs $tr
echo 1 > $tr/events/copro/enable
echo 1 > $tr/events/gpu_scheduler/enable
run_tap copro-rendertest basic
echo 0 > $tr/events/copro/enable
echo 0 > $tr/events/gpu_scheduler/enable
for ev in copro_submit copro_run copro_irq copro_retire copro_bind; do
    check "tracepoint $ev: $(grep -c " $ev: " $tr/trace) events" \
        grep -q " $ev: " $tr/trace
done
# drm_sched's own: drm_run_job on 6.12, drm_sched_job_run on 7.x
check "drm_sched's run-job tracepoint" \
    grep -q -e " drm_run_job: " -e " drm_sched_job_run: " $tr/trace
grep -m1 " copro_submit: " $tr/trace | sed 's/^/# /'
run_tap copro-rendertest bad
run_tap copro-rendertest fences
run_tap copro-rendertest multi 4
run_tap copro-rendertest preempt
run_tap copro-rendertest starve
run_tap copro-rendertest kms
run_tap copro-rendertest prime
# the tools (guest-tools/tools over libcopro)
run_tap copro-run -n 2 fill:65536:0x1234 copy:100000 rect:100:50:0xff00 work:1000000
check "copro-run: RECT on the copy engine is refused" sh -c '! copro-run -e 1 rect:8:8:1 >/dev/null 2>&1'
check "copro-info: the device and the driver's engines" \
    sh -c 'copro-info | grep -q "^preemption: mid-command" && copro-info | grep -q "engine0: run"'
check "copro-bench hog: every frame started (200 ms of frames)" \
    sh -c 'copro-bench hog 300 200 | grep -q "\"frames\":12,"'
# the render node is there for unprivileged clients
check "a render node (/dev/dri/renderD128)" test -c /dev/dri/renderD128
check "no job left behind" grep -q "^engine0: run \([0-9]*\) done \1 on_ring 0 held 0" \
    /sys/kernel/debug/dri/0/copro_engines
check "dmesg clean" dmesg_clean
tap_done
