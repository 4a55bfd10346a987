/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm: GPU VA updates on the paging companion context. See
 * vidmm_tiles.h.
 */
#include "vidmm/vidmm_tiles.h"

#include <stdbool.h>
#include <stddef.h>

#include "ddi/ddi.h"

#define PAGE            DDI_GPUVA_PAGE
#define PAGE_MASK       (PAGE - 1)

static bool fence_ok(const struct vidmm_monitored_fence *f)
{
    return f->gpu_addr != 0 && (f->gpu_addr & 7) == 0;
}

/* pages at va are a well-formed run: aligned, non-empty, no wrap */
static bool run_ok(uint64_t va, uint64_t pages)
{
    return pages != 0 && (va & PAGE_MASK) == 0 &&
           pages - 1 <= (UINT64_MAX - va - PAGE_MASK) / PAGE;
}

/* The whole run lies inside one range of the space: a tiled resource is
 * one allocation's VA, and an update may not reach into a neighbour's. */
static bool run_in_space(const struct vidmm_gpuva_space *s, uint64_t va,
                         uint64_t pages)
{
    uint64_t start, bytes;

    return vidmm_gpuva_range_of(s, va, &start, &bytes) &&
           pages <= (bytes - (va - start)) / PAGE;
}

static bool frame_ok(const struct vidmm_gpuva_frame *f, uint64_t pages)
{
    if (f->target != DDI_PTE_VRAM && f->target != DDI_PTE_APERTURE) {
        return false;
    }
    return (f->addr & PAGE_MASK) == 0 &&
           pages - 1 <= (UINT64_MAX - f->addr) / PAGE;
}

/* two page-aligned runs of the same length share a page */
static bool overlap(uint64_t a, uint64_t b, uint64_t pages)
{
    return (a < b ? b - a : a - b) / PAGE < pages;
}

/* Format checks of one op (DDI_EINVAL), before any VA is looked up. */
static bool op_well_formed(const struct vidmm_tile_op *op)
{
    if (!run_ok(op->va, op->pages)) {
        return false;
    }
    switch (op->kind) {
    case VIDMM_TILE_MAP:
        return frame_ok(&op->frame, op->pages);
    case VIDMM_TILE_UNMAP:
        return true;
    case VIDMM_TILE_COPY:
        return run_ok(op->src_va, op->pages) &&
               !overlap(op->va, op->src_va, op->pages);
    default:
        return false;
    }
}

static void to_ddi(const struct vidmm_gpuva_space *s,
                   const struct vidmm_tile_op *op, struct ddi_gpuva_op *d)
{
    if (op->kind == VIDMM_TILE_COPY) {
        d->kind = DDI_GPUVA_OP_COPY;
        d->copy = (struct ddi_pte_copy){
            .as = s->as, .dst_va = op->va, .src_va = op->src_va,
            .pages = op->pages,
        };
        return;
    }
    d->kind = DDI_GPUVA_OP_SET;
    d->set = (struct ddi_pte_update){
        .as = s->as, .va = op->va, .pages = op->pages,
        .target = op->kind == VIDMM_TILE_MAP ? op->frame.target
                                             : DDI_PTE_INVALID,
        .addr = op->kind == VIDMM_TILE_MAP ? op->frame.addr : 0,
        .writable = op->kind == VIDMM_TILE_MAP && op->frame.writable,
    };
}

int vidmm_tiles_update(const struct vidmm_gpuva_space *s,
                       const struct vidmm_tile_op *ops, unsigned n,
                       const struct vidmm_monitored_fence *wait,
                       const struct vidmm_monitored_fence *signal,
                       struct vidmm_tiles_update *out)
{
    if (!s || !ops || !signal || !out || n == 0 || !fence_ok(signal) ||
        signal->value == 0 || (wait && !fence_ok(wait))) {
        return DDI_EINVAL;
    }
    if (n > VIDMM_TILES_MAX_OPS) {
        return DDI_ENOMEM;
    }
    /* every check before anything of *out is written */
    for (unsigned i = 0; i < n; i++) {
        if (!op_well_formed(&ops[i])) {
            return DDI_EINVAL;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (!run_in_space(s, ops[i].va, ops[i].pages) ||
            (ops[i].kind == VIDMM_TILE_COPY &&
             !run_in_space(s, ops[i].src_va, ops[i].pages))) {
            return DDI_EBOUNDS;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        to_ddi(s, &ops[i], &out->ops[i]);
    }
    out->req = (struct ddi_gpuva_update){
        .wait_addr = wait ? wait->gpu_addr : 0,
        .wait_value = wait ? wait->value : 0,
        .ops = out->ops, .nops = n,
        .signal_addr = signal->gpu_addr, .signal_value = signal->value,
    };
    return DDI_OK;
}
