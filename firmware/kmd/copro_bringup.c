/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_bringup.h"

#include "lib/cmdline.h"

#define MIB ((uint64_t)1 << 20)

bool copro_bringup(struct report *r, const char *cmdline,
                   uint8_t vector_base, struct copro *dev,
                   struct copro_cp *cp, uint32_t ring_entries)
{
    enum copro_irq_mode mode = COPRO_IRQ_AUTO;
    const char *err;
    char arg[16];

    if (cmdline_get(cmdline, "irq", arg, sizeof(arg)) &&
        !copro_irq_mode_parse(arg, &mode)) {
        return report(r, false, "unknown irq= mode \"%s\" (auto, msix, msi, "
                      "intx)", arg);
    }
    if (!report(r, copro_find(dev), "copro device found")) {
        return false;
    }
    err = copro_map(dev);
    if (!report(r, err == NULL, "BARs mapped%s%s", err ? ": " : "",
                err ? err : "")) {
        return false;
    }
    copro_read_info(dev);
    err = copro_info_validate(&dev->info);
    if (!err && !(dev->info.caps & COPRO_CAP_CMD_PROCESSOR)) {
        err = "no command processor";
    }
    if (!report(r, err == NULL, "identity: %u engines, %lu MiB VRAM, "
                "caps %#x%s%s", dev->info.num_engines,
                dev->info.vram_size / MIB, dev->info.caps, err ? ": " : "",
                err ? err : "")) {
        return false;
    }
    err = copro_irq_setup(dev, mode, vector_base);
    if (!report(r, err == NULL, "interrupts: %s requested, using %s%s%s",
                copro_irq_mode_name(mode), copro_irq_mode_name(dev->irq_mode),
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    err = copro_cp_init(cp, dev, ring_entries);
    return report(r, err == NULL, "driver up: %u engines, %u-entry rings%s%s",
                  cp->num_engines, ring_entries, err ? ": " : "",
                  err ? err : "");
}
