# SPDX-License-Identifier: GPL-2.0-or-later
# Hang recovery with the device's fault injection (x-fault-injection=on,
# job timeout 200 ms): a long healthy job survives its timeouts through
# preemption; a hung or faulting context is banned, innocent jobs run
# again; a lost interrupt; repeated hangs reset the device (behind a root
# port: a bus reset), after which it renders and displays again.
. /bin/tap.sh
run_tap copro-rendertest hang
check "the hang was reported once (engine reset)" \
    sh -c "dmesg | grep -c 'engine 0 hung' | grep -qx 1"
check "repeated hangs reset the device once (a PCI reset)" \
    grep -q "^resets: 1$" /sys/kernel/debug/dri/0/copro_state
check "the display is on again after it" \
    grep -q "^display: on" /sys/kernel/debug/dri/0/copro_state
check "dmesg clean" dmesg_clean
tap_done
