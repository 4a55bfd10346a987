# SPDX-License-Identifier: GPL-2.0-or-later
# Boot and probe; the module unloaded and reloaded ten times; the MSI and
# INTx fallbacks; debugfs. Runs in the Linux guest (scripts/run-linux.py).
. /bin/tap.sh
check "the copro driver probed with MSI-X" \
    sh -c 'dmesg | grep -q "copro v1.0: 2 engines, 64 MiB VRAM, 60 Hz, MSI-X"'
check "/dev/dri/card0 and fbdev emulation (fb0)" test -c /dev/dri/card0 -a -c /dev/fb0
check "fbcon took copro's display" sh -c 'dmesg | grep -q "fb0: coprodrmfb frame buffer device"'
check "debugfs: the device's ID register" \
    grep -q "^ID .* 0x4f525043$" /sys/kernel/debug/dri/0/copro_regs
check "debugfs: the display is on at 1024x768 XRGB8888" \
    grep -q "^display: on 1024x768 pitch 4096 format 3" /sys/kernel/debug/dri/0/copro_state
check "dmesg holds no warning, BUG, Oops or splat after the probe" dmesg_clean

i=0
ok=0
while [ $i -lt 10 ]; do
    rmmod copro && insmod /lib/modules/copro.ko &&
        [ -c /dev/dri/card0 ] && ok=$((ok + 1))
    i=$((i + 1))
done
check "rmmod and insmod ten times" test $ok = 10
flips10() { copro-kmstest flips 10 > /tmp/flips.out 2>&1 || { sed 's/^/# /' /tmp/flips.out; return 1; }; }
check "the reloaded driver flips on every vblank" flips10
check "dmesg clean after ten reloads" dmesg_clean

for mode in msi intx; do
    rmmod copro
    insmod /lib/modules/copro.ko irq_mode=$mode
    check "irq_mode=$mode: probed" grep -q "^irq_mode: $mode" \
        /sys/kernel/debug/dri/0/copro_state
    check "irq_mode=$mode: flips complete on their vblank" flips10
done
rmmod copro
insmod /lib/modules/copro.ko irq_mode=bogus 2>/dev/null
check "irq_mode=bogus is refused" test ! -e /dev/dri/card0
rmmod copro
insmod /lib/modules/copro.ko
check "loaded again after the refusal" test -c /dev/dri/card0
check "dmesg clean at the end" dmesg_clean
tap_done
