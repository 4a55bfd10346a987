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

#endif /* FW_LIB_MULTIBOOT_H */
