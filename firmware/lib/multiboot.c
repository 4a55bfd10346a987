/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/multiboot.h"

#define MULTIBOOT_INFO_MEMORY   (1u << 0)
#define MULTIBOOT_INFO_CMDLINE  (1u << 2)

struct multiboot_info {
    uint32_t flags;
    uint32_t mem_lower, mem_upper;
    uint32_t boot_device;
    uint32_t cmdline;           /* physical address of a C string */
    /* more fields follow; unused */
};

const char *multiboot_cmdline(uint32_t magic, uint32_t info_addr)
{
    const struct multiboot_info *mbi;

    if (magic != MULTIBOOT_BOOTLOADER_MAGIC || info_addr == 0) {
        return "";
    }
    /* Physical == virtual: the boot map is an identity map. */
    mbi = (const struct multiboot_info *)(uintptr_t)info_addr;
    if (!(mbi->flags & MULTIBOOT_INFO_CMDLINE) || mbi->cmdline == 0) {
        return "";
    }
    return (const char *)(uintptr_t)mbi->cmdline;
}

uint64_t multiboot_ram_end(uint32_t magic, uint32_t info_addr)
{
    const struct multiboot_info *mbi;

    if (magic != MULTIBOOT_BOOTLOADER_MAGIC || info_addr == 0) {
        return 0;
    }
    mbi = (const struct multiboot_info *)(uintptr_t)info_addr;
    if (!(mbi->flags & MULTIBOOT_INFO_MEMORY)) {
        return 0;
    }
    /* mem_upper: KiB of contiguous RAM from 1 MiB up */
    return (1ull << 20) + (uint64_t)mbi->mem_upper * 1024;
}
