/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_gart.h"

#include <stddef.h>

#include "kmd/copro_pt.h"
#include "lib/string.h"

const char *copro_gart_init(struct copro_gart *g, struct copro_cp *cp,
                            uint32_t entries)
{
    struct copro *dev = cp->dev;
    uint64_t max = dev->info.aperture_size / COPRO_GPU_PAGE_SIZE;
    uint64_t table;

    *g = (struct copro_gart){ .cp = cp };
    if (!(dev->info.caps & COPRO_CAP_GART) || max == 0) {
        return "device has no aperture";
    }
    if (entries == 0 || entries > max) {
        entries = (uint32_t)max;
    }
    g->entry = copro_cp_alloc(cp, (uint64_t)entries * 8, COPRO_GPU_PAGE_SIZE,
                              &table);
    if (!g->entry) {
        return "out of VRAM for the GART";
    }
    for (uint32_t i = 0; i < entries; i++) {
        g->entry[i] = 0;
    }
    g->table = table;
    g->entries = entries;
    g->aperture_base = dev->info.aperture_base;

    /* Aperture accesses are bus-master DMA; MSI-X setup enables it too,
     * but the INTx path does not. */
    pci_command_update(&dev->pci, PCI_COMMAND_MASTER, 0);
    copro_write64(dev, COPRO_REG_GART_BASE, table);
    copro_write32(dev, COPRO_REG_GART_ENTRIES, entries);
    if (copro_read64(dev, COPRO_REG_GART_BASE) != table ||
        copro_read32(dev, COPRO_REG_GART_ENTRIES) != entries) {
        return "GART registers did not take";
    }
    return NULL;
}

void copro_gart_set(struct copro_gart *g, uint32_t index, uint64_t gpa,
                    bool writable)
{
    if (index < g->entries) {
        g->entry[index] = copro_gart_entry(gpa, writable);
    }
}

void copro_gart_clear(struct copro_gart *g, uint32_t index)
{
    if (index < g->entries) {
        g->entry[index] = 0;
    }
}

void copro_gart_invalidate(struct copro_gart *g, uint32_t first,
                           uint32_t count)
{
    /* The entry stores above are ordered before these MMIO writes (x86
     * keeps stores in order; io.h's clobbers stop the compiler). */
    copro_write32(g->cp->dev, COPRO_REG_GART_INVAL_FIRST, first);
    copro_write32(g->cp->dev, COPRO_REG_GART_INVAL, count);
}

bool copro_gart_reserve(struct copro_gart *g, uint32_t pages,
                        uint32_t *first)
{
    if (pages == 0 || pages > g->entries - g->next_free) {
        return false;
    }
    *first = g->next_free;
    g->next_free += pages;
    return true;
}

const char *copro_gart_map_sysmem(struct copro_gart *g,
                                  struct page_alloc *pool, uint64_t bytes,
                                  struct copro_sysmem *s)
{
    uint64_t pages = (bytes + COPRO_GPU_PAGE_SIZE - 1) / COPRO_GPU_PAGE_SIZE;

    *s = (struct copro_sysmem){ 0 };
    if (pages == 0 || pages > UINT32_MAX) {
        return "bad size";
    }
    if (!copro_gart_reserve(g, (uint32_t)pages, &s->first)) {
        return "aperture exhausted";
    }
    if (!page_alloc_pages(pool, pages, 0, &s->gpa)) {
        return "out of system memory";
    }
    s->pages = (uint32_t)pages;
    s->bytes = pages * COPRO_GPU_PAGE_SIZE;
    s->gpu = copro_gart_gpu(g, s->first);
    memset(copro_sysmem_cpu(s), 0, s->bytes);
    for (uint32_t i = 0; i < s->pages; i++) {
        copro_gart_set(g, s->first + i, s->gpa + i * COPRO_GPU_PAGE_SIZE,
                       true);
    }
    copro_gart_invalidate(g, s->first, s->pages);
    return NULL;
}
