/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, GPU-VA mode (WDDM 2.x): per-process GPU virtual address spaces.
 *
 * Each process has one address space [the GpuMmu model's per-process
 * page-table root]; its allocations get a VA range from it
 * [D3DKMTMapGpuVirtualAddress without a BaseAddress] and keep that VA for
 * as long as they live, whatever happens to their memory. When vidmm moves
 * an allocation (VRAM <-> system memory through the aperture, or out of
 * both when it is evicted), nothing is patched: only the leaf entries of
 * its VA range change. vidmm_gpuva_remap describes that change as
 * ddi_pte_update records (ddi/ddi_gpuva.h) for the paging buffer that does
 * the move, placed after the content transfer, so the buffers that wait
 * for the paging fence see the new entries (the driver's COPY_PTE flushes
 * the translation caches; kmd/copro_pte_update.h).
 *
 * The VA range allocator is vidmm_segment's first-fit allocator over the
 * VA window (no CPU view): blocks are page-aligned and page-rounded, so a
 * VA range always covers whole leaf entries and two allocations never
 * share one. VA 0 is never handed out (base must be above it), so a zero
 * address in a command buffer faults instead of hitting an allocation.
 *
 * Pure C, no hardware, no heap: unit-tested on the host
 * (tests/unit/test-vidmm-residency.c).
 */
#ifndef FW_VIDMM_VIDMM_GPUVA_H
#define FW_VIDMM_VIDMM_GPUVA_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi_gpuva.h"
#include "vidmm/vidmm_segment.h"

/* One process's GPU virtual address space. */
struct vidmm_gpuva_space {
    uint32_t as;                    /* id put in every ddi_pte_update */
    uint8_t owner;                  /* the process (its handle owner id) */
    struct vidmm_segment range;     /* VA blocks handed out */
};

/* Where an allocation's pages are (its "physical" placement). */
struct vidmm_gpuva_frame {
    uint32_t target;                /* enum ddi_pte_target */
    uint64_t addr;                  /* GPU address of the first byte:
                                       VRAM offset or aperture address,
                                       page-aligned; 0 for INVALID */
    bool writable;
};

/*
 * Starts an empty space over VA [base, base + size): base > 0, both
 * page-aligned, no wrap; blocks[cap] is the range table (one block per
 * mapped allocation). DDI_OK or DDI_EINVAL.
 */
int vidmm_gpuva_init(struct vidmm_gpuva_space *s, uint32_t as,
                     uint8_t owner, uint64_t base, uint64_t size,
                     struct vidmm_block *blocks, unsigned cap);

/*
 * [D3DKMTMapGpuVirtualAddress] reserves a VA range for an allocation of
 * size bytes (> 0, rounded up to whole pages) aligned to align (a power
 * of two, at least a page; 0: a page). DDI_OK and *va; DDI_EINVAL for a
 * bad size or alignment; DDI_ENOMEM when the space or its table is full.
 * The range maps nothing until the first remap.
 */
int vidmm_gpuva_map(struct vidmm_gpuva_space *s, uint64_t size,
                    uint64_t align, uint64_t *va);

/* [D3DKMTFreeGpuVirtualAddress] the range that starts at va. DDI_OK or
 * DDI_EHANDLE when no range starts there. The caller unmaps its leaf
 * entries first (a remap to DDI_PTE_INVALID). */
int vidmm_gpuva_free(struct vidmm_gpuva_space *s, uint64_t va);

/* Bytes of the range that starts at va (page multiple), 0 if none. */
uint64_t vidmm_gpuva_range_bytes(const struct vidmm_gpuva_space *s,
                                 uint64_t va);

/* The range that holds va (anywhere in it): true with its start and size
 * in bytes, false when va lies in no range handed out. */
bool vidmm_gpuva_range_of(const struct vidmm_gpuva_space *s, uint64_t va,
                          uint64_t *start, uint64_t *bytes);

/*
 * The leaf-entry update for pages [first, first + pages) of the range
 * that starts at va now mapping onto frame `to` (page `first` of the
 * allocation maps to->addr + first * 4 KiB: the frame describes the whole
 * allocation's new placement, so a partial update of a moved allocation
 * and a whole one agree). pages 0 means "to the end of the range".
 * DDI_OK and *out; DDI_EHANDLE if no range starts at va; DDI_EBOUNDS if
 * the pages run past the range; DDI_EINVAL for a bad frame (unknown
 * target, unaligned or wrapping address, INVALID with an address).
 */
int vidmm_gpuva_remap(const struct vidmm_gpuva_space *s, uint64_t va,
                      uint64_t first, uint64_t pages,
                      const struct vidmm_gpuva_frame *to,
                      struct ddi_pte_update *out);

/*
 * The leaf entry value the update gives VA page `va_page` (for checks and
 * for software models of the page tables): true and the frame address, or
 * false when the update does not cover that page.
 */
bool vidmm_gpuva_update_covers(const struct ddi_pte_update *u,
                               uint64_t va_page, uint64_t *frame);

#endif /* FW_VIDMM_VIDMM_GPUVA_H */
