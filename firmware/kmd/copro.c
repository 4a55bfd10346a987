/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro.h"

#include <stddef.h>

#include <copro/copro_hwsched.h>
#include <copro/copro_tiler.h>

/* boot.S maps [0, 4 GiB); a BAR the BIOS put higher is out of reach. */
#define IDENTITY_MAP_END    (1ull << 32)

bool copro_find(struct copro *c)
{
    return pci_find_device(COPRO_PCI_VENDOR_ID, COPRO_PCI_DEVICE_ID, &c->pci);
}

static bool bar_mappable(const struct pci_bar *b)
{
    return b->kind != PCI_BAR_NONE && b->kind != PCI_BAR_IO &&
           b->addr != 0 && b->addr + b->size <= IDENTITY_MAP_END;
}

const char *copro_map(struct copro *c)
{
    if (!pci_bar_read(&c->pci, COPRO_BAR_MMIO, &c->mmio_bar) ||
        c->mmio_bar.kind == PCI_BAR_IO) {
        return "BAR0 is not a memory BAR";
    }
    if (c->mmio_bar.size < COPRO_MMIO_SIZE) {
        return "BAR0 is smaller than the register file";
    }
    if (!pci_bar_read(&c->pci, COPRO_BAR_VRAM, &c->vram_bar) ||
        c->vram_bar.kind != PCI_BAR_MEM64) {
        return "BAR2 is not a 64-bit memory BAR";
    }
    if (!bar_mappable(&c->mmio_bar)) {
        return "BAR0 is unassigned or above the 4 GiB identity map";
    }
    if (!bar_mappable(&c->vram_bar)) {
        return "BAR2 is unassigned or above the 4 GiB identity map";
    }
    pci_command_update(&c->pci, PCI_COMMAND_MEMORY, 0);
    c->mmio = (volatile void *)(uintptr_t)c->mmio_bar.addr;
    c->vram = (volatile uint8_t *)(uintptr_t)c->vram_bar.addr;
    return NULL;
}

volatile uint8_t *copro_map_doorbells(struct copro *c)
{
    struct pci_bar bar;

    if (!pci_bar_read(&c->pci, COPRO_BAR_DOORBELL, &bar) ||
        !bar_mappable(&bar) || bar.size < COPRO_DOORBELL_BAR_SIZE) {
        return NULL;
    }
    return (volatile uint8_t *)(uintptr_t)bar.addr;
}

void copro_read_info(struct copro *c)
{
    struct copro_info *i = &c->info;

    i->id = copro_read32(c, COPRO_REG_ID);
    i->version = copro_read32(c, COPRO_REG_VERSION);
    i->caps = copro_read32(c, COPRO_REG_CAPS);
    i->num_engines = copro_read32(c, COPRO_REG_NUM_ENGINES);
    i->vram_size = copro_read64(c, COPRO_REG_VRAM_SIZE);
    i->aperture_size = copro_read64(c, COPRO_REG_APERTURE_SIZE);
    i->aperture_base = copro_read64(c, COPRO_REG_APERTURE_BASE);
    i->preempt_caps = copro_read32(c, COPRO_REG_PREEMPT_CAPS);
    i->ctx_switch_ns = copro_read64(c, COPRO_REG_CTX_SWITCH_NS);
    i->msix_vectors = copro_read32(c, COPRO_REG_MSIX_VECTORS);
    i->tile_size = (i->caps & COPRO_CAP_TILER)
                   ? copro_read32(c, COPRO_REG_TILER_TILE_SIZE) : 0;
}
