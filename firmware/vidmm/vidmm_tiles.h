/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, GPU-VA mode: updating a process's GPU virtual addresses in line
 * with its rendering [D3DKMTUpdateGpuVirtualAddress, the service behind
 * UpdateTileMappings of tiled resources].
 *
 * A tiled resource is a VA range whose pages the application maps onto
 * physical memory (tile pages) of its choosing, remaps between draws, or
 * leaves unmapped. The remap must happen exactly between two pieces of
 * the application's work: after the draws that used the old mapping,
 * before those that use the new one. WDDM does it on a paging companion
 * context: the update waits for a monitored fence value of the render
 * context, changes the page-table entries, then signals a fence value
 * the next draws wait for. Nothing blocks on the CPU; the fences alone
 * order the work.
 *
 * This module is the OS half: it checks the operations against the
 * process's VA space (vidmm_gpuva.h) and turns them into one
 * device-neutral update (ddi/ddi_gpuva.h, struct ddi_gpuva_update) that
 * the driver makes into the companion's DMA buffer (copro:
 * copro_gpuva_update_emit in kmd/copro_pte_update.h: WAIT, COPY_PTE
 * packets, FENCE; COPY_PTE's flush is the invalidation the device
 * requires).
 *
 * Every page is 4 KiB (DDI_GPUVA_PAGE); a 64 KiB tile is 16 pages.
 *
 * Pure C, no hardware, no heap: unit-tested on the host
 * (tests/unit/test-vidmm-tiles.c).
 */
#ifndef FW_VIDMM_VIDMM_TILES_H
#define FW_VIDMM_VIDMM_TILES_H

#include <stdint.h>

#include "ddi/ddi_gpuva.h"
#include "vidmm/vidmm_gpuva.h"

/* Operations per update (the storage of struct vidmm_tiles_update). */
#define VIDMM_TILES_MAX_OPS     16

/* [D3DDDI_UPDATEGPUVIRTUALADDRESS_OPERATION_TYPE] */
enum vidmm_tile_op_kind {
    VIDMM_TILE_MAP,         /* pages onto frame (VRAM or aperture) */
    VIDMM_TILE_UNMAP,       /* pages onto nothing: an access faults */
    VIDMM_TILE_COPY,        /* pages take the mapping of src_va's pages */
};

/* [D3DDDI_UPDATEGPUVIRTUALADDRESS_OPERATION] */
struct vidmm_tile_op {
    uint32_t kind;          /* enum vidmm_tile_op_kind */
    uint64_t va;            /* first page changed, 4 KiB-aligned */
    uint64_t pages;         /* >= 1 */
    uint64_t src_va;        /* COPY: first page copied from */
    /* MAP: page i of the op maps frame.addr + i * 4 KiB (target VRAM or
     * APERTURE, addr 4 KiB-aligned) */
    struct vidmm_gpuva_frame frame;
};

/* A monitored fence and a value, as the paging context addresses it
 * [hFenceObject + FenceValue]: gpu_addr 8-aligned, a VRAM offset on
 * copro (the companion has no address space of its own). */
struct vidmm_monitored_fence {
    uint64_t gpu_addr;
    uint64_t value;
};

/* The result: the update for the driver and the storage of its ops. */
struct vidmm_tiles_update {
    struct ddi_gpuva_update req;        /* req.ops points into ops[] */
    struct ddi_gpuva_op ops[VIDMM_TILES_MAX_OPS];
};

/*
 * [D3DKMTUpdateGpuVirtualAddress] the update of space s that, on the
 * paging context, waits for *wait (NULL: nothing to wait for), applies
 * ops[0 .. n) in order and then signals *signal (value > 0). Every page
 * an op names (both sides of a COPY) must lie inside one range the space
 * handed out (vidmm_gpuva_map). Nothing of s changes: the space only
 * says which VAs belong to the process.
 *
 * DDI_OK and *out; otherwise *out is left as it was and:
 *   DDI_EINVAL   NULL arguments, n == 0, an unknown kind, pages == 0, a
 *                VA or frame address not 4 KiB-aligned, a frame that
 *                wraps or has a bad target, COPY ranges that overlap, a
 *                fence address 0 or not 8-aligned, a signal value of 0;
 *   DDI_ENOMEM   n > VIDMM_TILES_MAX_OPS;
 *   DDI_EBOUNDS  a page outside the ranges of the space.
 */
int vidmm_tiles_update(const struct vidmm_gpuva_space *s,
                       const struct vidmm_tile_op *ops, unsigned n,
                       const struct vidmm_monitored_fence *wait,
                       const struct vidmm_monitored_fence *signal,
                       struct vidmm_tiles_update *out);

#endif /* FW_VIDMM_VIDMM_TILES_H */
