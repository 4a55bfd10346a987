# SPDX-License-Identifier: GPL-2.0-or-later
# Hang recovery with the device's fault injection (x-fault-injection=on,
# job timeout 200 ms): a long healthy job survives its timeouts through
# preemption; a hung or faulting context is banned, innocent jobs run
# again; repeated hangs, a lost interrupt; the device works afterwards.
. /bin/tap.sh
run_tap copro-rendertest hang
check "the hang was reported once (engine reset)" \
    sh -c "dmesg | grep -c 'engine 0 hung' | grep -qx 1"
check "dmesg clean" dmesg_clean
tap_done
