/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 64-bit C entry, called by boot.S: brings up the machine-wide pieces every
 * scenario needs, runs the scenario, exits through isa-debug-exit.
 */
#include <stdint.h>

#include "lib/console.h"
#include "lib/exit.h"
#include "lib/idt.h"
#include "lib/lapic.h"
#include "lib/multiboot.h"
#include "lib/pic.h"
#include "lib/scenario.h"
#include "lib/serial.h"

_Noreturn void fw_start(uint32_t mb_magic, uint32_t mb_info);

/* End of the image (.bss), from the linker script. */
extern char __bss_end[];

/* Below the 32-bit PCI hole: the RAM that is identity-mapped and not
 * shadowed by device BARs on either machine type. */
#define LOW_RAM_LIMIT   0xc0000000ull
#define PAGE            4096ull

static uint64_t page_up(uint64_t v)
{
    return (v + PAGE - 1) & ~(PAGE - 1);
}

/*
 * Free RAM: above the image and above the command line, which QEMU's
 * multiboot loader places right after the image; whatever follows is
 * unused (the information structure itself lives below 1 MiB).
 */
static void find_free_ram(struct boot_info *boot, uint32_t mb_magic,
                          uint32_t mb_info)
{
    uint64_t start = page_up((uint64_t)(uintptr_t)__bss_end);
    uint64_t end = multiboot_ram_end(mb_magic, mb_info);
    const char *c = boot->cmdline;

    if (c[0]) {
        uint64_t cend = (uint64_t)(uintptr_t)c;

        while (*(const char *)(uintptr_t)cend) {
            cend++;
        }
        cend = page_up(cend + 1);
        if (cend > start) {
            start = cend;
        }
    }
    if (end > LOW_RAM_LIMIT) {
        end = LOW_RAM_LIMIT;
    }
    end &= ~(PAGE - 1);
    if (end < start) {
        end = start;
    }
    boot->free_start = start;
    boot->free_end = end;
}

_Noreturn void fw_start(uint32_t mb_magic, uint32_t mb_info)
{
    struct boot_info boot;

    serial_init();
    idt_init();     /* first: from here on a fault prints instead of
                     * triple-faulting */
    pic_disable();
    lapic_init();

    boot.cmdline = multiboot_cmdline(mb_magic, mb_info);
    find_free_ram(&boot, mb_magic, mb_info);
    if (mb_magic != MULTIBOOT_BOOTLOADER_MAGIC) {
        kprintf("warning: not started by a multiboot loader (magic %#x)\n",
                mb_magic);
    }
    fw_exit(scenario_main(&boot));
}
