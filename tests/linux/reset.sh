# SPDX-License-Identifier: GPL-2.0-or-later
# Device resets (a bus reset through the device's root port, sysfs
# reset): the driver saves and restores the display around each, the
# vblank counter goes on, flips and the picture come back.
. /bin/tap.sh
d=$(ls -d /sys/bus/pci/drivers/copro/0000:* | head -n 1)
check "the device has a reset method" test -n "$(cat "$d/reset_method")"
copro-kmstest flips 5 > /dev/null
before=$(copro-kmstest crc)
ok=0
i=0
while [ $i -lt 3 ]; do
    s0=$(copro-kmstest seq)
    echo 1 > "$d/reset" || break
    s1=$(copro-kmstest seq)
    echo "# reset $i: vblank $s0 -> $s1"
    [ "$s1" -gt "$s0" ] && ok=$((ok + 1))
    i=$((i + 1))
done
check "three resets, the vblank counter increasing across each" test $ok = 3
check "the driver counted them" grep -q "^resets: 3" /sys/kernel/debug/dri/0/copro_state
check "the display is on again" grep -q "^display: on 1024x768" /sys/kernel/debug/dri/0/copro_state
flips() { copro-kmstest flips 10 > /tmp/f.out 2>&1 || { sed 's/^/# /' /tmp/f.out; return 1; }; }
check "flips complete on their vblank after the resets" flips
check "the picture is back (scanout CRC)" sh -c "[ \"\$(copro-kmstest crc)\" = '$before' ]"
s=$(screendump reset)
check "the screendump shows it ($s)" sh -c "copro-kmstest crc | grep -q '$s'"
check "dmesg clean" dmesg_clean
tap_done
