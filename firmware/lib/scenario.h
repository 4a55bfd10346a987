/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contract between the boot code and a scenario image: each image
 * links exactly one scenario_main(). It runs with the console, IDT, LAPIC
 * up and the 8259 masked, interrupts disabled. Its return value is the
 * exit code (FW_EXIT_*, normally report_summary()'s).
 */
#ifndef FW_LIB_SCENARIO_H
#define FW_LIB_SCENARIO_H

struct boot_info {
    const char *cmdline;    /* QEMU -append, after the kernel file name */
};

int scenario_main(const struct boot_info *boot);

#endif /* FW_LIB_SCENARIO_H */
