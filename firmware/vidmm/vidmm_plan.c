/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm: residency at schedule time (vidmm_make_resident, vidmm_release,
 * the paging buffers' retirement).
 *
 * make_resident plans on scratch copies (segments, deferred unmaps, and
 * per-allocation p_* fields), collecting the paging operations, and
 * commits only once the whole list fits and the driver built the paging
 * buffer: a failure leaves everything as it was.
 */
#include "vidmm/vidmm_internal.h"

#include <stddef.h>
#include <string.h>

/* ---- the plan ---- */

static void op(struct vidmm *vm, uint32_t kind, uint64_t src, uint64_t dst,
               uint64_t size, const uint64_t *pages)
{
    if (vm->nops == DDI_MAX_PAGING_OPS) {
        vm->ops_overflow = true;
        return;
    }
    vm->ops[vm->nops++] = (struct ddi_paging_op){
        .kind = kind, .src = src, .dst = dst, .size = size,
        .sys_pages = pages,
    };
}

static uint64_t ap_bytes(const struct vm_alloc *a)
{
    return pages_of(a->size) * VIDMM_PAGE_SIZE;
}

/* The paging buffer being planned. */
static uint64_t plan_ticket(const struct vidmm *vm)
{
    return vm->ticket_next + 1;
}

/* May the plan move a (out of its place) to make room for process? */
static bool victim_ok(struct vidmm *vm, struct vm_alloc *a, uint32_t process,
                      bool ignore_owner)
{
    if (!a->used || a->plan.in_list || a->plan.moved ||
        vm_state_pinned(&a->st)) {
        return false;
    }
    if (!ignore_owner && vm->cfg.evict_own_only && a->owner != process &&
        !a->st.offered) {
        return false;
    }
    if (a->st.busy || in_flight(vm, a)) {
        vm->skipped_busy = true;    /* would do once the GPU is done */
        return false;
    }
    return true;
}

/* Least recently used victim in VRAM (in the plan). */
static struct vm_alloc *lru_victim(struct vidmm *vm, uint32_t process)
{
    struct vm_alloc *best = NULL;

    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *a = &vm->a[i];

        if (a->used && a->plan.where == VIDMM_IN_VRAM &&
            victim_ok(vm, a, process, false) && (!best || a->st.lru < best->st.lru)) {
            best = a;
        }
    }
    return best;
}

/* Gives an aperture range back: UNMAP in this paging buffer, after the
 * transfers through it (the GPU unmaps in buffer order); the range stays
 * taken until this buffer has retired. */
static bool plan_release_ap(struct vidmm *vm, uint64_t addr, uint64_t bytes)
{
    op(vm, DDI_PAGING_UNMAP_APERTURE, 0, addr, bytes, NULL);
    if (vm->s_nunmap == vm->max_unmap) {
        vm->ops_overflow = true;    /* the plan is torn: never committed */
        return false;
    }
    vm->s_unmaps[vm->s_nunmap++] = (struct vm_unmap){
        .addr = addr, .size = bytes, .ticket = plan_ticket(vm),
        .emitted = true,
    };
    return true;
}

/*
 * The aperture fell short for a range the plan wanted. Ranges released by
 * paging buffers in flight (committed before this plan) come free when
 * those retire: "not now" (DDI_EBUSY), asked again then. Ranges this plan
 * took (its own temporary mappings, its unmaps of destroyed allocations)
 * come free only once its own paging buffer has retired: waiting cannot
 * help (that was the livelock: a list whose moves need more aperture than
 * one paging buffer can map, DDI_EBUSY for ever), so the plan stops there
 * and the moves made so far go out as a paging buffer of their own
 * (vidmm_make_resident: residency in steps). overlap_only: only ranges
 * overlapping [at, at + bytes) matter (a fixed address).
 */
static void plan_ap_short(struct vidmm *vm, uint64_t at, uint64_t bytes,
                          bool overlap_only)
{
    for (unsigned k = 0; k < vm->s_nunmap; k++) {
        const struct vm_unmap *u = &vm->s_unmaps[k];

        if (overlap_only && !(u->addr < at + bytes && u->addr + u->size > at)) {
            continue;
        }
        if (u->ticket < plan_ticket(vm)) {
            vm->skipped_busy = true;
        } else {
            vm->ap_own_short = true;
        }
    }
}

/* A free aperture range of `bytes` in the plan (plan_ap_short if none). */
static bool plan_ap_range(struct vidmm *vm, uint64_t bytes, uint64_t *addr)
{
    if (vm->cfg.aperture_size &&
        vidmm_segment_alloc_best(&vm->s_ap, bytes, VIDMM_PAGE_SIZE, addr)) {
        return true;
    }
    plan_ap_short(vm, 0, bytes, false);
    return false;
}

/* Copies a (in VRAM at from, in the plan) out to its backing pages
 * through a temporary mapping: MAP, TRANSFER, UNMAP. */
static bool plan_vram_to_sys(struct vidmm *vm, struct vm_alloc *a)
{
    uint64_t t;

    if (!plan_ap_range(vm, ap_bytes(a), &t)) {
        return false;
    }
    op(vm, DDI_PAGING_MAP_APERTURE, 0, t, ap_bytes(a),
       &vm->page_pool[a->page_first]);
    op(vm, DDI_PAGING_TRANSFER, a->plan.addr, t, a->size, NULL);
    if (!plan_release_ap(vm, t, ap_bytes(a))) {
        return false;
    }
    vidmm_segment_free(&vm->s_vram, a->plan.addr);
    a->plan.where = VIDMM_IN_SYSMEM;
    a->plan.addr = 0;
    a->plan.moved = true;
    vm->stats.evictions++;
    vm->stats.bytes_moved += a->size;
    return true;
}

/* Brings a (system memory or aperture, in the plan) into VRAM at `at`
 * (taken by the caller; given back if no aperture range can carry it, so
 * the plan stays one a partial commit may take). */
static bool plan_to_vram(struct vidmm *vm, struct vm_alloc *a, uint64_t at)
{
    uint64_t from = a->plan.addr;

    if (a->plan.where == VIDMM_IN_SYSMEM) {
        if (!plan_ap_range(vm, ap_bytes(a), &from)) {
            vidmm_segment_free(&vm->s_vram, at);
            return false;
        }
        op(vm, DDI_PAGING_MAP_APERTURE, 0, from, ap_bytes(a),
           &vm->page_pool[a->page_first]);
    }
    op(vm, DDI_PAGING_TRANSFER, from, at, a->size, NULL);
    if (!plan_release_ap(vm, from, ap_bytes(a))) {
        return false;
    }
    a->plan.where = VIDMM_IN_VRAM;
    a->plan.addr = at;
    a->plan.moved = true;
    vm->stats.restores++;
    vm->stats.bytes_moved += a->size;
    return true;
}

/* A VRAM range for a (list member) in the plan, evicting LRU victims. */
static bool plan_vram_range(struct vidmm *vm, struct vm_alloc *a,
                            uint32_t process, uint64_t *at)
{
    for (;;) {
        struct vm_alloc *v;

        if (vidmm_segment_alloc_best(&vm->s_vram, a->size, a->align, at)) {
            return true;
        }
        v = lru_victim(vm, process);
        if (!v || !plan_vram_to_sys(vm, v)) {
            return false;
        }
    }
}

/* Maps a (system memory) at a new aperture range: it lives there. */
static bool plan_map(struct vidmm *vm, struct vm_alloc *a)
{
    uint64_t at;

    if (!plan_ap_range(vm, ap_bytes(a), &at)) {
        return false;
    }
    op(vm, DDI_PAGING_MAP_APERTURE, 0, at, ap_bytes(a),
       &vm->page_pool[a->page_first]);
    a->plan.where = VIDMM_IN_APERTURE;
    a->plan.addr = at;
    a->plan.moved = true;
    return true;
}

/* Places list member a anywhere its segments allow, VRAM first. */
static bool plan_place(struct vidmm *vm, struct vm_alloc *a, uint32_t process)
{
    uint64_t at;

    if (a->plan.where == VIDMM_IN_VRAM) {
        return true;
    }
    if (a->plan.where == VIDMM_IN_APERTURE &&
        (!(a->segments & VIDMM_SEG_VRAM) || !may_move(vm, a))) {
        /* lives there, or in use there: a promotion waits until the
         * allocation is idle (the move rule) */
        return true;
    }
    if (vm_state_pinned(&a->st)) {
        /* locked where it is (its backing pages, a CPU pointer out):
         * never moved; the GPU reaches the same pages through the
         * aperture, a mapping, not a move */
        if (a->plan.where == VIDMM_IN_APERTURE) {
            return true;
        }
        return (a->segments & VIDMM_SEG_APERTURE) && plan_map(vm, a);
    }
    if (a->segments & VIDMM_SEG_VRAM) {
        if (plan_vram_range(vm, a, process, &at)) {
            return plan_to_vram(vm, a, at);
        }
        if (!(a->segments & VIDMM_SEG_APERTURE)) {
            return false;
        }
        /* no VRAM: the aperture will do */
    }
    return a->plan.where == VIDMM_IN_APERTURE || plan_map(vm, a);
}

/* Evicts every allocation that overlaps [at, at + size) of VRAM in the
 * plan: the patched-once rule (the process restriction does not apply). */
static bool plan_clear_vram(struct vidmm *vm, uint64_t at, uint64_t size,
                            uint32_t process)
{
    (void)process;
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *v = &vm->a[i];

        if (!v->used || v->plan.where != VIDMM_IN_VRAM ||
            v->plan.addr >= at + size || v->plan.addr + v->size <= at) {
            continue;
        }
        if (!victim_ok(vm, v, process, true) || !plan_vram_to_sys(vm, v)) {
            return false;
        }
    }
    return true;
}

/* Takes [at, at + bytes) of the aperture for the patched-once rule. A
 * range still waiting for its unmap to retire comes free later (EBUSY);
 * one another allocation lives in cannot be had in this buffer (a MAP
 * takes effect before the buffer's UNMAPs run): DDI_ENOMEM then. */
static bool plan_take_ap(struct vidmm *vm, uint64_t at, uint64_t bytes)
{
    if (vidmm_segment_alloc_at(&vm->s_ap, at, bytes)) {
        return true;
    }
    plan_ap_short(vm, at, bytes, true);
    return false;
}

/* Puts list member a back at addr (where it was patched). */
static bool plan_place_at(struct vidmm *vm, struct vm_alloc *a, uint64_t addr,
                          uint32_t process)
{
    if (a->plan.where != VIDMM_IN_SYSMEM && a->plan.addr == addr) {
        return true;
    }
    if (a->plan.where != VIDMM_IN_SYSMEM && !a->plan.moved && !may_move(vm, a)) {
        /* elsewhere and in use there: not now (the move rule) */
        if (!vm_state_pinned(&a->st)) {
            vm->skipped_busy = true;
        }
        return false;
    }
    if (vidmm_segment_contains(&vm->s_vram, addr, a->size)) {
        if (a->plan.where == VIDMM_IN_VRAM) {
            /* elsewhere in VRAM (maybe overlapping its target): out to its
             * pages first, then back at addr */
            a->plan.in_list = false;
            if (!victim_ok(vm, a, process, true) || !plan_vram_to_sys(vm, a)) {
                a->plan.in_list = true;
                return false;
            }
            a->plan.in_list = true;
        }
        return plan_clear_vram(vm, addr, a->size, process) &&
               vidmm_segment_alloc_at(&vm->s_vram, addr, a->size) &&
               plan_to_vram(vm, a, addr);
    }
    if (!vidmm_segment_contains(&vm->s_ap, addr, ap_bytes(a)) ||
        !plan_take_ap(vm, addr, ap_bytes(a))) {
        return false;
    }
    op(vm, DDI_PAGING_MAP_APERTURE, 0, addr, ap_bytes(a),
       &vm->page_pool[a->page_first]);
    if (a->plan.where == VIDMM_IN_VRAM) {
        op(vm, DDI_PAGING_TRANSFER, a->plan.addr, addr, a->size, NULL);
        vidmm_segment_free(&vm->s_vram, a->plan.addr);
        vm->stats.evictions++;
        vm->stats.bytes_moved += a->size;
    } else if (a->plan.where == VIDMM_IN_APERTURE &&
               !plan_release_ap(vm, a->plan.addr, ap_bytes(a))) {
        return false;
    }
    a->plan.where = VIDMM_IN_APERTURE;
    a->plan.addr = addr;
    a->plan.moved = true;
    return true;
}

static void plan_begin(struct vidmm *vm)
{
    vm->nops = 0;
    vm->ops_overflow = false;
    vm->skipped_busy = false;
    vm->ap_own_short = false;
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *a = &vm->a[i];

        a->plan.in_list = a->plan.moved = false;
        a->plan.where = a->st.where;
        a->plan.addr = a->st.addr;
    }
    memcpy(vm->s_vram.used, vm->vram.used,
           vm->vram.count * sizeof(struct vidmm_block));
    vm->s_vram.count = vm->vram.count;
    vm->s_vram.used_bytes = vm->vram.used_bytes;
    vm->s_vram.peak_bytes = vm->vram.peak_bytes;
    memcpy(vm->s_ap.used, vm->ap.used,
           vm->ap.count * sizeof(struct vidmm_block));
    vm->s_ap.count = vm->ap.count;
    vm->s_ap.used_bytes = vm->ap.used_bytes;
    vm->s_ap.peak_bytes = vm->ap.peak_bytes;
    /* aperture ranges given back: free once their unmap retired; those
     * not unmapped yet (destroyed allocations) are unmapped by this
     * buffer, first */
    vm->s_nunmap = 0;
    for (unsigned k = 0; k < vm->nunmap; k++) {
        struct vm_unmap u = vm->unmaps[k];

        if (u.emitted && u.ticket <= vm->ticket_done) {
            vidmm_segment_free(&vm->s_ap, u.addr);
            continue;
        }
        if (!u.emitted) {
            op(vm, DDI_PAGING_UNMAP_APERTURE, 0, u.addr, u.size, NULL);
            u.emitted = true;
            u.ticket = plan_ticket(vm);
        }
        vm->s_unmaps[vm->s_nunmap++] = u;
    }
}

static void copy_segment(struct vidmm_segment *to,
                         const struct vidmm_segment *from)
{
    memcpy(to->used, from->used, from->count * sizeof(struct vidmm_block));
    to->count = from->count;
    to->used_bytes = from->used_bytes;
    if (from->peak_bytes > to->peak_bytes) {
        to->peak_bytes = from->peak_bytes;
    }
}

static void plan_commit(struct vidmm *vm, uint64_t ticket)
{
    copy_segment(&vm->vram, &vm->s_vram);
    copy_segment(&vm->ap, &vm->s_ap);
    memcpy(vm->unmaps, vm->s_unmaps, vm->s_nunmap * sizeof(struct vm_unmap));
    vm->nunmap = vm->s_nunmap;
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *a = &vm->a[i];

        if (a->used && a->plan.moved) {
            vm_state_moved(&a->st, a->plan.where, a->plan.addr,
                           pages_of(a->size) * VIDMM_PAGE_SIZE, ticket);
        }
    }
}

/* The VRAM bytes a takes (the segment's blocks are whole pages). */
static uint64_t vram_bytes(const struct vm_alloc *a)
{
    return pages_of(a->size) * VIDMM_PAGE_SIZE;
}

/*
 * Repacking (the fallback when best fit left VRAM too fragmented for a
 * list): a goes to the lowest VRAM range that only allocations the plan
 * may evict occupy, and those are evicted. Members placed this way sit
 * side by side from the bottom, so a list whose bytes fit VRAM (less
 * what is pinned or busy) is placed whatever the holes were.
 */
static bool plan_pack(struct vidmm *vm, struct vm_alloc *a, uint32_t process)
{
    uint64_t end = vm->cfg.vram_base + vm->cfg.vram_size;
    uint64_t at = vm->cfg.vram_base, size = vram_bytes(a);

    for (;;) {
        uint64_t next = 0;

        at = (at + a->align - 1) & ~(a->align - 1);
        if (at + size > end || at + size < at) {
            return false;
        }
        /* the furthest end of what may not move in the way */
        for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
            struct vm_alloc *v = &vm->a[i];

            if (v->used && v->plan.where == VIDMM_IN_VRAM && v != a &&
                v->plan.addr < at + size && v->plan.addr + vram_bytes(v) > at &&
                !victim_ok(vm, v, process, false) &&
                v->plan.addr + vram_bytes(v) > next) {
                next = v->plan.addr + vram_bytes(v);
            }
        }
        if (!next) {
            break;
        }
        at = next;
    }
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *v = &vm->a[i];

        if (v->used && v->plan.where == VIDMM_IN_VRAM && v != a &&
            v->plan.addr < at + size && v->plan.addr + vram_bytes(v) > at &&
            !plan_vram_to_sys(vm, v)) {
            return false;
        }
    }
    return vidmm_segment_alloc_at(&vm->s_vram, at, a->size) &&
           plan_to_vram(vm, a, at);
}

/* plan_list's answer when it stopped only for want of aperture ranges
 * its own paging buffer holds (plan_ap_short): the moves planned so far
 * are whole and may be committed. */
#define PLAN_PARTIAL    1

/* Plans list member[0 .. n) (see vidmm_make_resident). repack: first
 * move the members in VRAM that may move out to their pages, then place
 * those that want VRAM with plan_pack. A pinned (locked) member is never
 * packed: the CPU holds a pointer to where it is (plan_place's rule). */
static int plan_list(struct vidmm *vm, uint32_t process,
                     struct vm_alloc **member, unsigned n,
                     const struct ddi_alloc_desc *desc, bool patched,
                     bool repack)
{
    int rc = DDI_OK;

    plan_begin(vm);
    for (unsigned i = 0; i < n; i++) {
        member[i]->plan.in_list = true;
    }
    for (unsigned i = 0; repack && i < n && rc == DDI_OK; i++) {
        struct vm_alloc *a = member[i];

        if (a->plan.where == VIDMM_IN_VRAM && !a->plan.moved && may_move(vm, a) &&
            !plan_vram_to_sys(vm, a)) {
            rc = vm->skipped_busy ? DDI_EBUSY : DDI_ENOMEM;
        }
    }
    /* fixed addresses first (patched once), then the rest, in list order */
    for (unsigned pass = 0; pass < 2 && rc == DDI_OK; pass++) {
        for (unsigned i = 0; i < n && rc == DDI_OK; i++) {
            struct vm_alloc *a = member[i];
            bool fixed = patched && desc[i].gpu_addr;

            if (fixed != (pass == 0)) {
                continue;
            }
            vm->ap_own_short = false;   /* what stops the plan, if any */
            if (fixed ? !plan_place_at(vm, a, desc[i].gpu_addr, process)
                : repack && (a->segments & VIDMM_SEG_VRAM) &&
                  a->plan.where != VIDMM_IN_VRAM &&
                  (a->plan.where == VIDMM_IN_SYSMEM || may_move(vm, a)) &&
                  !vm_state_pinned(&a->st)
                ? !plan_pack(vm, a, process) && !plan_place(vm, a, process)
                : !plan_place(vm, a, process)) {
                rc = vm->skipped_busy ? DDI_EBUSY : DDI_ENOMEM;
                if (vm->ap_own_short && !vm->skipped_busy && !repack &&
                    !vm->ops_overflow) {
                    /* nothing on the GPU holds what is short: only this
                     * plan's own aperture ranges, which no retirement but
                     * its own paging buffer's frees */
                    rc = PLAN_PARTIAL;
                }
            }
        }
    }
    return rc;
}

int vidmm_make_resident(struct vidmm *vm, uint32_t process,
                        const struct ddi_alloc_ref *list, unsigned n,
                        struct ddi_alloc_desc *desc, bool patched,
                        struct vidmm_residency *res)
{
    struct vm_alloc *member[DDI_MAX_ALLOC_LIST];
    struct vidmm_stats saved;
    bool moves = false, partial;
    uint64_t ticket = 0, wait = 0;
    int rc = DDI_OK;

    if (!vm || (n && (!list || !desc)) || !res || n > DDI_MAX_ALLOC_LIST) {
        return DDI_EINVAL;
    }
    res->paging_built = false;
    res->paging_ticket = 0;
    res->wait_ticket = 0;
    res->paging_bytes = 0;
    for (unsigned i = 0; i < n; i++) {
        member[i] = lookup(vm, list[i].handle);
        if (!member[i] || member[i]->owner != process) {
            return DDI_EHANDLE;
        }
        if (member[i]->st.lost) {
            return DDI_ELOST;   /* would run on whatever is there */
        }
        if (member[i]->st.where == VIDMM_IN_SYSMEM &&
            ap_bytes(member[i]) > vm->cfg.aperture_size) {
            /* its pages reach the GPU only through one aperture range,
             * in any number of steps: never (and evict nothing for it) */
            vm->stats.enomem++;
            return DDI_ENOMEM;
        }
    }
    saved = vm->stats;
    rc = plan_list(vm, process, member, n, desc, patched, false);
    if (rc == DDI_ENOMEM && !patched) {
        /* the members already in VRAM may be what fragments it (a split
         * buffer's portions fill VRAM to the byte): once more, with
         * those not in use moved out first and placed again anew */
        vm->stats = saved;
        rc = plan_list(vm, process, member, n, desc, patched, true);
    }
    partial = rc == PLAN_PARTIAL;
    if (partial) {
        /* the list needs more aperture than one paging buffer maps: the
         * moves planned so far go out now; the rest once it retired */
        rc = DDI_OK;
    }
    if (rc == DDI_OK && vm->ops_overflow) {
        rc = DDI_EINVAL;
    }
    for (unsigned i = 0; rc == DDI_OK && i < vm->cfg.max_allocs; i++) {
        moves |= vm->a[i].used && vm->a[i].plan.moved;
    }
    if (partial && !moves && !vm->nops) {
        /* nothing planned before the aperture fell short: one member's
         * own moves exceed the aperture, so no number of steps helps */
        rc = DDI_ENOMEM;
    }
    moves |= partial && rc == DDI_OK;  /* unmaps alone free ranges too */
    if (rc == DDI_OK && moves) {
        ticket = vm->ticket_next + 1;
        if (!vm->dev || !vm->dev->ops->build_paging_buffer) {
            rc = DDI_ENOTSUP;
        } else if (!res->paging) {
            rc = DDI_EINVAL;
        } else {
            res->paging->engine = vm->cfg.copy_engine;
            rc = vm->dev->ops->build_paging_buffer(vm->dev->drv, vm->ops,
                                                   vm->nops, res->paging);
        }
    }
    if (rc != DDI_OK) {
        /* the plan's stats were counted on the way: take them back */
        vm->stats = saved;
        if (rc == DDI_ENOMEM || rc == DDI_EBUSY) {
            vm->stats.enomem++;
        }
        for (unsigned i = 0; i < n; i++) {
            member[i]->plan.in_list = false;
        }
        return rc;
    }
    if (moves) {
        vm->ticket_next = ticket;
        plan_commit(vm, ticket);
        vm->stats.paging_buffers++;
        res->paging_built = true;
        res->paging_ticket = ticket;
        /* the plan counted every transfer it made into the stats */
        res->paging_bytes = vm->stats.bytes_moved - saved.bytes_moved;
    }
    if (partial) {
        /* a step: not resident yet. The members brought in count as just
         * used, so that another list evicts them last meanwhile */
        vm->stats.paging_steps++;
        for (unsigned i = 0; i < n; i++) {
            member[i]->plan.in_list = false;
            if (member[i]->st.where == VIDMM_IN_VRAM) {
                vm_state_touch(&member[i]->st, &vm->lru_clock);
            }
        }
        return DDI_EBUSY;
    }
    for (unsigned i = 0; i < n; i++) {
        struct vm_alloc *a = member[i];

        a->plan.in_list = false;
        desc[i].gpu_addr = a->st.addr;
        desc[i].size = a->size;
        desc[i].cpu_visible = a->cpu_visible;
        if (a->st.ticket > vm->ticket_done && a->st.ticket > wait) {
            wait = a->st.ticket;
        }
    }
    /* busy once per list entry (duplicates too: release mirrors it) */
    for (unsigned i = 0; i < n; i++) {
        vm_state_hold(&member[i]->st, &vm->lru_clock);
    }
    res->wait_ticket = wait;
    return DDI_OK;
}

void vidmm_release(struct vidmm *vm, const struct ddi_alloc_ref *list,
                   unsigned n, unsigned engine, uint64_t fence)
{
    if (!vm || !list) {
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct vm_alloc *a = lookup(vm, list[i].handle);

        if (a) {
            vm_state_unhold(&a->st, engine, fence, &vm->lru_clock);
        }
    }
}

void vidmm_paging_lost(struct vidmm *vm, uint64_t ticket)
{
    if (!vm || !ticket || ticket <= vm->ticket_done) {
        return;
    }
    /* moved by it, or by a later paging buffer (which moved what it
     * left): their contents are whatever the half-run buffer made */
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        if (vm->a[i].used && vm->a[i].st.ticket >= ticket) {
            vm_state_lose(&vm->a[i].st);
        }
    }
    vidmm_paging_done(vm, ticket);
}

void vidmm_paging_done(struct vidmm *vm, uint64_t ticket)
{
    if (vm && ticket > vm->ticket_done && ticket <= vm->ticket_next) {
        vm->ticket_done = ticket;
    }
}
