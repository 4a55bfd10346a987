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

_Noreturn void fw_start(uint32_t mb_magic, uint32_t mb_info)
{
    struct boot_info boot;

    serial_init();
    idt_init();     /* first: from here on a fault prints instead of
                     * triple-faulting */
    pic_disable();
    lapic_init();

    boot.cmdline = multiboot_cmdline(mb_magic, mb_info);
    if (mb_magic != MULTIBOOT_BOOTLOADER_MAGIC) {
        kprintf("warning: not started by a multiboot loader (magic %#x)\n",
                mb_magic);
    }
    fw_exit(scenario_main(&boot));
}
