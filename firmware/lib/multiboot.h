/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The little of the multiboot-1 information structure the firmware uses.
 */
#ifndef FW_LIB_MULTIBOOT_H
#define FW_LIB_MULTIBOOT_H

#include <stdint.h>

#define MULTIBOOT_BOOTLOADER_MAGIC  0x2badb002u

/* Returns the command line, or "" if the loader passed none (or we were
 * not started by a multiboot loader at all). */
const char *multiboot_cmdline(uint32_t magic, uint32_t info_addr);

/*
 * End of the RAM that starts at 1 MiB (mem_upper of the information
 * structure), or 0 if the loader gave no memory information.
 */
uint64_t multiboot_ram_end(uint32_t magic, uint32_t info_addr);

#endif /* FW_LIB_MULTIBOOT_H */
