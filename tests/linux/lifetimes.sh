# SPDX-License-Identifier: GPL-2.0-or-later
# Lifetimes (issue 27, review defects 1 and 9), behind a root port (a bus
# reset): a context destroyed while another thread's submit on it sleeps
# for pool memory; GTT buffers freed and created while a PCI reset has
# the BARs off; then a seeded random ioctl fuzzer of unprivileged
# processes and threads. The guest boots with slub_debug=FZPU: dmesg
# must hold no oops, WARN, BUG or poison report.
. /bin/tap.sh
run_tap copro-rendertest ctxrace
check "dmesg clean after the destroy race" dmesg_clean
run_tap copro-rendertest gartreset
check "dmesg clean after the GART and reset race" dmesg_clean
run_tap copro-rendertest fuzz 27 4 3 400
check "dmesg clean after the fuzzer" dmesg_clean
tap_done
