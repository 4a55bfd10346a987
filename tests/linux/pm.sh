# SPDX-License-Identifier: GPL-2.0-or-later
# System sleep (issue 31): the kernel's pm_test levels with s2idle, then a
# real s2idle with an RTC wakeup where the image has rtcwake. The driver
# turns the display off while suspended (no vsync during the pm_test
# wait) and shows the same picture after resume.
. /bin/tap.sh
regs=/sys/kernel/debug/dri/0/copro_regs
reg() { awk -v r="$1" '$1 == r { print $3 }' "$regs"; }
check "the kernel has pm_test" test -w /sys/power/pm_test
check "s2idle (freeze) is offered" grep -q freeze /sys/power/state
# pm_test waits pm_test_delay seconds at its level, with mdelay on 6.12:
# a busy loop, 5 s of guest time is minutes of TCG. One second is enough
# to see whether the display scans out (60 vsyncs if it did).
delay=1
echo $delay > /sys/module/suspend/parameters/pm_test_delay
copro-kmstest flips 5 > /dev/null
before=$(copro-kmstest crc)
echo "# before: $before, DISP_CONTROL $(reg DISP_CONTROL)"
for level in freezer devices; do
    echo $level > /sys/power/pm_test
    v0=$(reg DISP_VSYNC_COUNT)
    echo freeze > /sys/power/state
    rc=$?
    v1=$(reg DISP_VSYNC_COUNT)
    echo "# pm_test $level: rc $rc, vsyncs $((v1 - v0)) over the $delay s wait"
    check "pm_test $level: suspend and resume succeed" test $rc = 0
    if [ $level = devices ]; then
        # 60 vsyncs a second if it scanned out: off for most of them
        check "pm_test devices: no scanout while suspended ($((v1 - v0)) vsyncs)" \
            test $((v1 - v0)) -lt $((delay * 30))
    fi
    check "pm_test $level: the display is on again" \
        test "$(reg DISP_CONTROL)" = 0x00000001
    check "pm_test $level: the same picture after resume" \
        test "$(copro-kmstest crc)" = "$before"
done
# a job running when the system goes to sleep: preempted at suspend, no
# device time while suspended, resumed afterwards and right (issue 31)
busy() { awk '/^engine0: dev_busy_ns/ { print $3 }' /sys/kernel/debug/dri/0/copro_engines; }
susp() { sed -n 's/^engine0: .* suspends \([0-9]*\)$/\1/p' /sys/kernel/debug/dri/0/copro_engines; }
copro-run work:2000000000 > /tmp/long.out 2>&1 &
job=$!
sleep 0.2
echo devices > /sys/power/pm_test
s0=$(susp)
b0=$(busy)
t0=$(cut -d' ' -f1 /proc/uptime)
echo freeze > /sys/power/state
b1=$(busy)
t1=$(cut -d' ' -f1 /proc/uptime)
echo "# a 2 s job across a $delay s suspension ($t0 -> $t1 s): device busy $(( (b1 - b0) / 1000000 )) ms"
check "the engine was quiesced for the sleep ($(susp) suspends)" test "$(susp)" -gt "$s0"
check "no device time while suspended: $(( (b1 - b0) / 1000000 )) ms busy over the sleep" \
    test $((b1 - b0)) -lt $((delay * 500000000))
wait $job
check "the job resumed after the sleep and is right" \
    sh -c "grep -q 'work:2000000000: right' /tmp/long.out"
sed 's/^/# /' /tmp/long.out | head -3
echo none > /sys/power/pm_test
if command -v rtcwake > /dev/null; then
    rtcwake -m freeze -s 2 > /tmp/rtcwake.out 2>&1
    check "s2idle with an RTC wakeup" test $? = 0
    check "s2idle: the same picture after resume" \
        test "$(copro-kmstest crc)" = "$before"
else
    echo "# no rtcwake in the image: no real suspend and wake"
fi
check "dmesg clean" dmesg_clean
tap_done
