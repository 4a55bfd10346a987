# SPDX-License-Identifier: GPL-2.0-or-later
# System sleep (issue 31): the kernel's pm_test levels with s2idle, then a
# real s2idle with an RTC wakeup where the image has rtcwake. The driver
# turns the display off while suspended (no vsync for the 5 s pm_test
# wait) and shows the same picture after resume.
. /bin/tap.sh
regs=/sys/kernel/debug/dri/0/copro_regs
reg() { awk -v r="$1" '$1 == r { print $3 }' "$regs"; }
check "the kernel has pm_test" test -w /sys/power/pm_test
check "s2idle (freeze) is offered" grep -q freeze /sys/power/state
copro-kmstest flips 5 > /dev/null
before=$(copro-kmstest crc)
echo "# before: $before, DISP_CONTROL $(reg DISP_CONTROL)"
for level in freezer devices; do
    echo $level > /sys/power/pm_test
    v0=$(reg DISP_VSYNC_COUNT)
    echo freeze > /sys/power/state
    rc=$?
    v1=$(reg DISP_VSYNC_COUNT)
    echo "# pm_test $level: rc $rc, vsyncs $((v1 - v0)) over the 5 s wait"
    check "pm_test $level: suspend and resume succeed" test $rc = 0
    if [ $level = devices ]; then
        # 5 s at 60 Hz is 300 vsyncs: the display was off most of them
        check "pm_test devices: no scanout while suspended ($((v1 - v0)) vsyncs)" \
            test $((v1 - v0)) -lt 150
    fi
    check "pm_test $level: the display is on again" \
        test "$(reg DISP_CONTROL)" = 0x00000001
    check "pm_test $level: the same picture after resume" \
        test "$(copro-kmstest crc)" = "$before"
done
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
