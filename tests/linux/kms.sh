# SPDX-License-Identifier: GPL-2.0-or-later
# KMS through the project's libdrm test and Debian's libdrm-tests
# (modetest, vbltest), under -icount (exact virtual timing).
. /bin/tap.sh
run_tap copro-kmstest all
# issue 31: primary off (background), positioned primary, damage, async flips
run_tap copro-kmstest planes

conn=$(modetest -M copro -c | awk '/connected/ { print $1; exit }')
crtc=$(modetest -M copro -p | awk '/^CRTCs:/ { getline; getline; print $1; exit }')
# mode set, then page flips at the refresh rate (-v prints the rate)
(sleep 4 | modetest -M copro -s "$conn@$crtc:1024x768" -v > /tmp/mt.out 2>&1)
check "modetest -s -v: mode set and flips" grep -q "freq: " /tmp/mt.out
rates=$(grep -o "freq: [0-9.]*" /tmp/mt.out | awk '{ print $2 }' | tail -n +2)
echo "# modetest -v rates: $(echo $rates)"
check "modetest -v flips at 60 Hz (within 0.5 %)" \
    awk -v r="$rates" 'BEGIN { n = split(r, a, " "); if (!n) exit 1;
        for (i = 1; i <= n; i++) if (a[i] < 59.7 || a[i] > 60.3) exit 1 }'
(sleep 2 | modetest -M copro -s "$conn@$crtc:1024x768" -C > /tmp/mtc.out 2>&1)
# (copro has no gamma LUT: modetest says so, and goes on)
ok_output() {
    grep -q "$2" "$1" && ! grep -v "set gamma" "$1" | grep -q -i "fail\|error\|invalid"
}
check "modetest -C: a moving cursor" ok_output /tmp/mtc.out "cursor stopped"
sed 's/^/# /' /tmp/mtc.out | head -5
primary=$(modetest -M copro -p | awk '/^Planes:/ { getline; getline; print $1; exit }')
flips() { awk '/^DISP_FLIPS / { print $3 }' /sys/kernel/debug/dri/0/copro_regs; }
f0=$(flips)
# atomic: a mode set with the primary plane, then flips (-v) until killed
timeout 3 modetest -M copro -a -s "$conn:800x600" -P "$primary@$crtc:800x600" -v \
    > /tmp/mta.out 2>&1
f1=$(flips)
echo "# modetest -a -v: $((f1 - f0)) flips in 3 s"
check "modetest -a: atomic mode set on the primary plane" \
    ok_output /tmp/mta.out "testing 800x600@XR24 on plane $primary"
check "modetest -a -v: atomic flips at the refresh rate ($((f1 - f0)) in 3 s)" \
    test $((f1 - f0)) -ge 150 -a $((f1 - f0)) -le 181

# review defect 8: the vblank timestamp's error bound is in nanoseconds,
# as drm_crtc_funcs documents (it was microseconds: two MMIO reads a few
# hundred ns apart gave 0)
err=$(awk '/^vblank_error_ns:/ { print $2 }' /sys/kernel/debug/dri/0/copro_state)
check "the vblank timestamp's error bound is in ns ($err ns)" \
    test "${err:-0}" -gt 0 -a "${err:-0}" -lt 10000

# vbltest: the vblank rate in the guest's (virtual) time
timeout 6 vbltest -M copro > /tmp/vbl.out 2>&1
# (the first figure counts from before the first vblank)
rates=$(grep -o "freq: [0-9.]*" /tmp/vbl.out | awk '{ print $2 }' | tail -n +2)
echo "# vbltest rates: $(echo $rates)"
check "vbltest: 60 Hz within 0.5 %" \
    awk -v r="$rates" 'BEGIN { n = split(r, a, " "); if (n < 3) exit 1;
        for (i = 1; i <= n; i++) if (a[i] < 59.7 || a[i] > 60.3) exit 1 }'
# hostile input: seeded random atomic commits and legacy ioctls
run_tap copro-kmstest fuzz 2000
check "the device refused no surface the driver accepted (DISP_ERROR 0)" \
    grep -q "^DISP_ERROR .* 0x00000000$" /sys/kernel/debug/dri/0/copro_regs
check "dmesg clean" dmesg_clean
tap_done
