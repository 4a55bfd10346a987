# SPDX-License-Identifier: GPL-2.0-or-later
# Hot-unplug (issue 27, review defect 5): QMP device_del removes copro
# (behind a root port: PCIe native hotplug) while three processes render;
# each gets ENODEV and exits, no oops, WARN or poison report; device_add
# brings a device back that renders.
. /bin/tap.sh
d=$(ls -d /sys/bus/pci/drivers/copro/0000:* | head -n 1)
for i in 1 2 3; do
    copro-rendertest render-until-gone > "/tmp/client$i.out" 2>&1 &
    eval "pid$i=\$!"
done
sleep 0.2
check "QMP device_del" qmp device_del '{"id":"gpu"}'
i=0
while [ -e "$d" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "the device is gone ($((i / 10)) s)" test ! -e "$d"
gone=0
for i in 1 2 3; do
    eval "wait \$pid$i" && gone=$((gone + 1))
    sed 's/^/# client: /' "/tmp/client$i.out"
done
check "the three clients got ENODEV and exited" test $gone = 3
check "dmesg clean after the removal" dmesg_clean
# QEMU frees the device once the slot's power is off (DEVICE_DELETED),
# a moment after the guest let it go: until then its id is taken
add() {
    n=0
    until qmp device_add '{"driver":"copro","bus":"rp","id":"gpu"}' >/tmp/add.out 2>&1; do
        n=$((n + 1))
        [ $n -lt 100 ] || { sed 's/^/# /' /tmp/add.out; return 1; }
        sleep 0.1
    done
}
check "QMP device_add" add
i=0
while [ ! -e /dev/dri/renderD128 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "a render node again" test -c /dev/dri/renderD128
run_tap copro-rendertest basic
check "dmesg clean at the end" dmesg_clean
tap_done
