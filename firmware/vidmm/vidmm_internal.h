/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, packet-based mode, inside: the tables its files share. Not for
 * callers outside firmware/vidmm/ (they have vidmm.h).
 *
 *   vidmm.c           the manager: storage, creation, its figures
 *   vidmm_alloc.c     an allocation's life: create, destroy, pin, lock
 *                     (vidmm_alloc.h: its record, and its state's owner)
 *   vidmm_plan.c      residency at schedule time: the plan on scratch
 *                     copies, its commit into a paging buffer, release
 *   vidmm_split.c     split points and running a buffer in portions
 *   vidmm_estimate.c  the worst-case estimate of a list (split up front)
 */
#ifndef FW_VIDMM_VIDMM_INTERNAL_H
#define FW_VIDMM_VIDMM_INTERNAL_H

#include <stddef.h>

#include "vidmm/vidmm.h"
#include "vidmm/vidmm_alloc.h"

#define HANDLE_INDEX_BITS   16u

/* An aperture range given back: its UNMAP runs in paging buffer `ticket`
 * (not emitted yet: in the next paging buffer), and the range is free for
 * another MAP once that buffer retired. */
struct vm_unmap {
    uint64_t addr, size, ticket;
    bool emitted;
};

struct vidmm {
    struct vidmm_config cfg;
    struct vidmm_env env;
    struct ddi_device *dev;
    struct vidmm_segment vram, ap, pages;
    struct vidmm_segment s_vram, s_ap;      /* scratch (the plan) */
    struct vm_alloc *a;
    uint64_t *page_pool;
    struct vm_unmap *unmaps, *s_unmaps;
    unsigned nunmap, s_nunmap, max_unmap;
    uint64_t lru_clock, ticket_next, ticket_done;
    struct ddi_paging_op ops[DDI_MAX_PAGING_OPS];
    unsigned nops;
    bool ops_overflow;
    bool skipped_busy;                      /* a victim was refused only
                                               for being in use now */
    bool ap_own_short;                      /* the aperture fell short
                                               only for ranges this plan
                                               itself holds until its
                                               paging buffer retired */
    struct vidmm_stats stats;
};

static inline uint64_t pages_of(uint64_t size)
{
    return (size + VIDMM_PAGE_SIZE - 1) / VIDMM_PAGE_SIZE;
}

/* ---- handles ---- */

static inline struct vm_alloc *lookup(const struct vidmm *vm, uint32_t handle)
{
    uint32_t idx = (handle & ((1u << HANDLE_INDEX_BITS) - 1)) - 1;
    struct vm_alloc *a;

    if (!vm || !handle || idx >= vm->cfg.max_allocs) {
        return NULL;
    }
    a = &vm->a[idx];
    if (!a->used || a->gen != (uint16_t)(handle >> HANDLE_INDEX_BITS)) {
        return NULL;
    }
    return a;
}

static inline bool in_flight(const struct vidmm *vm, const struct vm_alloc *a)
{
    return a->st.ticket > vm->ticket_done;
}

/*
 * The move rule, for every kind of move (eviction, promotion from the
 * aperture into VRAM, demotion, repacking, the patched-once put-back):
 * an allocation may leave its place only when no DMA buffer that may
 * still use it holds it (busy: prepared, on the ring or running), no
 * paging buffer that moved it is still in flight, and nobody pinned or
 * locked it. A busy allocation in the aperture stays there: the GPU
 * reaches it as well there, and the buffer on the GPU keeps its
 * addresses (a promotion would unmap the range under it: a GART fault,
 * or writes that land after the copy and are lost).
 */
static inline bool may_move(const struct vidmm *vm, const struct vm_alloc *a)
{
    return !vm_state_pinned(&a->st) && !a->st.busy && !in_flight(vm, a);
}

#endif /* FW_VIDMM_VIDMM_INTERNAL_H */
