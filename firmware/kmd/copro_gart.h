/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GART: the device's window onto system memory. The table lives in
 * VRAM; entry i maps aperture page i (GPU address APERTURE_BASE + i * 4 KiB)
 * onto one 4 KiB guest-physical page. This is WDDM's aperture segment
 * (MAP_APERTURE_SEGMENT): rings, DMA buffers and fences may live in
 * system memory and the engines reach them through the aperture.
 *
 * The firmware identity-maps RAM, so a guest-physical address is also the
 * CPU pointer, and no IOMMU sits in front of the device in the firmware's
 * machines: the bus address is the physical address.
 *
 * Changing an entry only takes effect after an invalidation
 * (copro_gart_invalidate), so every map/unmap here is followed by one
 * before the pages are used.
 */
#ifndef FW_KMD_COPRO_GART_H
#define FW_KMD_COPRO_GART_H

#include <stdbool.h>
#include <stdint.h>

#include "kmd/copro_cp.h"
#include "lib/page_alloc.h"

struct copro_gart {
    struct copro_cp *cp;
    uint64_t table;             /* VRAM offset of entry 0 */
    volatile uint64_t *entry;   /* CPU view of the table (BAR2) */
    uint32_t entries;
    uint64_t aperture_base;     /* APERTURE_BASE */
    uint32_t next_free;         /* aperture pages below are handed out */
};

/*
 * Allocates a table of entries (all invalid) in VRAM, points the device
 * at it, and enables bus mastering (the device reaches aperture pages by
 * DMA). entries is capped at APERTURE_SIZE / 4 KiB. Returns NULL or why
 * it failed (no aperture, out of VRAM, registers did not take).
 */
const char *copro_gart_init(struct copro_gart *g, struct copro_cp *cp,
                            uint32_t entries);

/* Writes entry index (no invalidation). */
void copro_gart_set(struct copro_gart *g, uint32_t index, uint64_t gpa,
                    bool writable);
void copro_gart_clear(struct copro_gart *g, uint32_t index);

/* Drops the device's cached copies of entries [first, first + count);
 * count 0: the whole table. */
void copro_gart_invalidate(struct copro_gart *g, uint32_t first,
                           uint32_t count);

static inline uint64_t copro_gart_gpu(const struct copro_gart *g,
                                      uint32_t index)
{
    return g->aperture_base + (uint64_t)index * COPRO_GPU_PAGE_SIZE;
}

/*
 * Reserves pages consecutive aperture pages (no mapping yet); *first gets
 * the first index. False if the table is exhausted.
 */
bool copro_gart_reserve(struct copro_gart *g, uint32_t pages,
                        uint32_t *first);

/* A run of system memory seen through the aperture. */
struct copro_sysmem {
    uint64_t gpa;           /* guest-physical address == CPU pointer */
    uint64_t gpu;           /* its GPU address in the aperture */
    uint64_t bytes;
    uint32_t first;         /* first GART entry */
    uint32_t pages;
};

static inline void *copro_sysmem_cpu(const struct copro_sysmem *s)
{
    return (void *)(uintptr_t)s->gpa;
}

/*
 * Allocates bytes (rounded up to pages) of zeroed system memory from
 * pool, maps it writable at consecutive aperture pages and invalidates
 * them: ready for the engines. Returns NULL or why not.
 */
const char *copro_gart_map_sysmem(struct copro_gart *g, struct page_alloc *pool,
                                  uint64_t bytes, struct copro_sysmem *s);

#endif /* FW_KMD_COPRO_GART_H */
