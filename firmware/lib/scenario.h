/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contract between the boot code and a scenario image: each image
 * links exactly one scenario_main(). It runs with the console, IDT, LAPIC
 * up and the 8259 masked, interrupts disabled. Its return value is the
 * exit code (FW_EXIT_*, normally report_summary()'s).
 */
#ifndef FW_LIB_SCENARIO_H
#define FW_LIB_SCENARIO_H

#include <stdint.h>

struct boot_info {
    const char *cmdline;    /* QEMU -append, after the kernel file name */
    /*
     * RAM nobody uses: from the first page after the image and what the
     * loader put behind it (the command line) to the end of the RAM
     * above 1 MiB, capped at the identity map. Physical == virtual, so
     * these are pointers as well as bus addresses. free_start ==
     * free_end when the loader reported no memory.
     */
    uint64_t free_start;
    uint64_t free_end;
};

int scenario_main(const struct boot_info *boot);

#endif /* FW_LIB_SCENARIO_H */
