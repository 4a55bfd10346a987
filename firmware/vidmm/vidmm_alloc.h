/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm (packet-based mode), inside: an allocation's record and the one
 * owner of its state.
 *
 * struct vm_state holds everything that says whether and where an
 * allocation may move: its placement, its pins and CPU locks, the DMA
 * buffers holding its residency (busy), the paging buffer still moving
 * it (in flight) and whether a lost one left its contents unknown. It is
 * changed only through the vm_state_* functions below; the move rule
 * (may_move, vidmm_internal.h) and every kind of move ask them. A reader
 * who wants to know who changes a field finds it here:
 *
 *   field          changed by                     through
 *   where, addr    vidmm_alloc_create, the plan's vm_state_init,
 *                  commit (vidmm_plan.c)          vm_state_moved
 *   left_*         the plan's commit              vm_state_moved
 *   ticket         the plan's commit              vm_state_moved
 *   pins           create (primary), vidmm_pin,   vm_state_init,
 *                  vidmm_unpin                    vm_state_pin/unpin
 *   locks          vidmm_lock, vidmm_unlock       vm_state_lock/unlock
 *   busy, lru,     vidmm_make_resident,           vm_state_hold,
 *   last_fence     vidmm_release                  vm_state_unhold
 *   lru            a step of make_resident        vm_state_touch
 *   lost           vidmm_paging_lost              vm_state_lose
 *   offered        vidmm_offer                    vm_state_offer
 *
 * The plan in progress (struct vm_plan_entry) is vidmm_plan.c's scratch:
 * what the allocation's state would become if the plan is committed.
 */
#ifndef FW_VIDMM_VIDMM_ALLOC_H
#define FW_VIDMM_VIDMM_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "vidmm/vidmm.h"

struct vm_state {
    /* placement (enum vidmm_where); addr in VRAM or the aperture */
    uint8_t where;
    uint64_t addr;
    /* never moved while either is > 0 */
    unsigned pins;                  /* primary (1 for life), vidmm_pin */
    unsigned locks;                 /* CPU locks (vidmm_lock) */
    /* residency held by prepared, queued or running DMA buffers (once
     * per list entry); their last use, for LRU eviction */
    unsigned busy;
    uint64_t last_fence[DDI_MAX_ENGINES];
    uint64_t lru;
    /* in flight: the last paging buffer that moved it, until it retired */
    uint64_t ticket;
    uint64_t left_addr, left_bytes; /* the VRAM that move took it out of
                                       (0 bytes: none): the GPU copies
                                       from there while it is in flight */
    bool lost;                      /* a paging buffer that moved it was
                                       lost in a reset: contents unknown */
    bool offered;                   /* any process may evict it */
};

/* The plan in progress (vidmm_plan.c): where it would be. */
struct vm_plan_entry {
    bool in_list, moved;
    uint8_t where;
    uint64_t addr;
};

struct vm_alloc {
    /* what it is, set at creation (vidmm_alloc_create) */
    bool used, primary, cpu_visible;
    uint16_t gen;
    uint32_t segments, owner;
    uint64_t size, align;
    uint64_t page_first;            /* index into vm->pages */
    unsigned npages;
    /* its state: only through vm_state_* */
    struct vm_state st;
    struct vm_plan_entry plan;
};

static inline void vm_state_init(struct vm_state *st, uint8_t where,
                                 uint64_t addr, bool primary, uint64_t lru)
{
    *st = (struct vm_state){
        .where = where, .addr = addr, .pins = primary ? 1 : 0, .lru = lru,
    };
}

/* Pinned or locked: never moved. */
static inline bool vm_state_pinned(const struct vm_state *st)
{
    return st->pins || st->locks;
}

static inline void vm_state_pin(struct vm_state *st)
{
    st->pins++;
}

/* false if not pinned (a primary's own pin is for life) */
static inline bool vm_state_unpin(struct vm_state *st, bool primary)
{
    if (!st->pins || (primary && st->pins == 1)) {
        return false;
    }
    st->pins--;
    return true;
}

static inline void vm_state_lock(struct vm_state *st)
{
    st->locks++;
}

static inline bool vm_state_unlock(struct vm_state *st)
{
    if (!st->locks) {
        return false;
    }
    st->locks--;
    return true;
}

/* A DMA buffer's list holds it resident (make_resident); its last use is
 * the next tick of the manager's LRU clock. */
static inline void vm_state_hold(struct vm_state *st, uint64_t *lru_clock)
{
    st->busy++;
    st->lru = ++*lru_clock;
}

/* Brought in by a step of a list's residency (not held yet): counts as
 * just used, so that other lists evict it last meanwhile. */
static inline void vm_state_touch(struct vm_state *st, uint64_t *lru_clock)
{
    st->lru = ++*lru_clock;
}

/* That buffer retired on engine with fence (0: handed back unrun). false
 * if nothing held it. */
static inline bool vm_state_unhold(struct vm_state *st, unsigned engine,
                                   uint64_t fence, uint64_t *lru_clock)
{
    if (!st->busy) {
        return false;
    }
    st->busy--;
    if (fence && engine < DDI_MAX_ENGINES) {
        st->last_fence[engine] = fence;
    }
    st->lru = ++*lru_clock;
    return true;
}

/* Paging buffer ticket moves it to where/addr (the plan's commit). */
static inline void vm_state_moved(struct vm_state *st, uint8_t where,
                                  uint64_t addr, uint64_t vram_bytes,
                                  uint64_t ticket)
{
    bool left = st->where == VIDMM_IN_VRAM &&
                (where != VIDMM_IN_VRAM || addr != st->addr);

    st->left_addr = st->addr;
    st->left_bytes = left ? vram_bytes : 0;
    st->where = where;
    st->addr = addr;
    st->ticket = ticket;
}

static inline void vm_state_lose(struct vm_state *st)
{
    st->lost = true;
}

static inline void vm_state_offer(struct vm_state *st, bool offered)
{
    st->offered = offered;
}

#endif /* FW_VIDMM_VIDMM_ALLOC_H */
