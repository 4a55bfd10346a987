/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm: an allocation's life (create, destroy, pin, offer, lock, its
 * state for tests). Moves are vidmm_plan.c's.
 */
#include "vidmm/vidmm_internal.h"

#include <stddef.h>
#include <string.h>


/*
 * Is VRAM [addr, addr + bytes) being vacated: the source of a move whose
 * paging buffer has not retired? Such VRAM is free in the books from the
 * plan on (the next plan may take it: paging buffers run in order on the
 * copy engine, so its copy-in runs after the copy-out), but nothing else
 * may write it yet: a write would be carried into the moved allocation
 * in place of its contents. An allocation has at most one move in flight
 * (the move rule), so left_* describe it.
 */
static bool vacating(const struct vidmm *vm, uint64_t addr, uint64_t bytes)
{
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        const struct vm_alloc *v = &vm->a[i];

        if (v->used && v->st.left_bytes && in_flight(vm, v) &&
            v->st.left_addr < addr + bytes &&
            addr < v->st.left_addr + v->st.left_bytes) {
            return true;
        }
    }
    return false;
}

int vidmm_alloc_create(struct vidmm *vm, const struct vidmm_alloc_info *info,
                       uint32_t *handle)
{
    struct vm_alloc *a = NULL;
    uint64_t first, npages, align, addr = 0, lru;
    uint8_t where = VIDMM_IN_SYSMEM;
    uint32_t segs;
    unsigned idx;
    int rc = DDI_ENOMEM;

    if (!vm || !info || !handle || !info->size) {
        return DDI_EINVAL;
    }
    align = info->align ? info->align : VIDMM_PAGE_SIZE;
    segs = info->segments ? info->segments : VIDMM_SEG_VRAM;
    if ((align & (align - 1)) || (segs & ~(VIDMM_SEG_VRAM |
                                           VIDMM_SEG_APERTURE)) ||
        ((segs & VIDMM_SEG_APERTURE) && !vm->cfg.aperture_size) ||
        (info->primary && !(segs & VIDMM_SEG_VRAM)) ||
        info->size > UINT64_MAX - VIDMM_PAGE_SIZE) {
        return DDI_EINVAL;
    }
    npages = pages_of(info->size);
    for (idx = 0; idx < vm->cfg.max_allocs; idx++) {
        if (!vm->a[idx].used) {
            a = &vm->a[idx];
            break;
        }
    }
    if (!a || npages > UINT32_MAX ||
        !vidmm_segment_alloc(&vm->pages, npages, 1, &first)) {
        return DDI_ENOMEM;
    }
    if (vm->env.alloc_sys_pages(vm->env.os, &vm->page_pool[first],
                                (unsigned)npages) != DDI_OK) {
        vidmm_segment_free(&vm->pages, first);
        return DDI_ENOMEM;
    }
    *a = (struct vm_alloc){
        .used = true, .gen = (uint16_t)(a->gen + 1), .segments = segs,
        .owner = info->owner, .size = info->size, .align = align,
        .primary = info->primary, .cpu_visible = info->cpu_visible,
        .page_first = first, .npages = (unsigned)npages,
    };
    lru = ++vm->lru_clock;
    if (a->gen == 0) {
        a->gen = 1;
    }
    /* a new allocation has no contents to move: VRAM at once if it fits
     * without evicting anyone, and not in VRAM still being vacated: the
     * kernel zeroes it by the CPU right after this and its first
     * buffer's writes wait for no paging buffer, so both would land
     * before the copy-out, which would carry them into the evicted
     * allocation (lifetimes: a life's FILL completed and signalled, then
     * read back as zeros after its eviction). Then it starts in its
     * backing pages, and its first list places it after that copy; a
     * primary (VRAM now or never) is refused for now. */
    if ((segs & VIDMM_SEG_VRAM) && !info->place_on_use &&
        vidmm_segment_alloc_best(&vm->vram, info->size, align, &addr)) {
        if (vacating(vm, addr, npages * VIDMM_PAGE_SIZE)) {
            vidmm_segment_free(&vm->vram, addr);
            addr = 0;
            rc = DDI_EBUSY;
        } else {
            where = VIDMM_IN_VRAM;
        }
    }
    if (where != VIDMM_IN_VRAM && info->primary) {
        vm->env.free_sys_pages(vm->env.os, &vm->page_pool[first],
                               (unsigned)npages);
        vidmm_segment_free(&vm->pages, first);
        a->used = false;
        return rc;
    }
    /* a primary is pinned for life: scanout never moves */
    vm_state_init(&a->st, where, addr, info->primary, lru);
    *handle = ((uint32_t)a->gen << HANDLE_INDEX_BITS) | (idx + 1);
    return DDI_OK;
}


int vidmm_alloc_destroy(struct vidmm *vm, uint32_t handle)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (a->st.busy || a->st.locks || a->st.pins > (a->primary ? 1u : 0u) ||
        in_flight(vm, a)) {
        return DDI_EBUSY;
    }
    if (a->st.where == VIDMM_IN_APERTURE) {
        /* unmapped by the next paging buffer; the range stays taken
         * until that one retired */
        if (vm->nunmap == vm->max_unmap) {
            return DDI_ENOMEM;
        }
        vm->unmaps[vm->nunmap++] = (struct vm_unmap){
            .addr = a->st.addr, .size = pages_of(a->size) * VIDMM_PAGE_SIZE,
        };
    } else if (a->st.where == VIDMM_IN_VRAM) {
        vidmm_segment_free(&vm->vram, a->st.addr);
    }
    vm->env.free_sys_pages(vm->env.os, &vm->page_pool[a->page_first],
                           a->npages);
    vidmm_segment_free(&vm->pages, a->page_first);
    a->used = false;
    return DDI_OK;
}

int vidmm_pin(struct vidmm *vm, uint32_t handle)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    vm_state_pin(&a->st);
    return DDI_OK;
}

int vidmm_unpin(struct vidmm *vm, uint32_t handle)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    return vm_state_unpin(&a->st, a->primary) ? DDI_OK : DDI_EINVAL;
}

int vidmm_offer(struct vidmm *vm, uint32_t handle, bool offered)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    vm_state_offer(&a->st, offered);
    return DDI_OK;
}

int vidmm_lock(struct vidmm *vm, uint32_t handle, enum vidmm_where *where,
               uint64_t *gpu_addr)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (in_flight(vm, a)) {
        return DDI_EBUSY;       /* its contents are moving */
    }
    vm_state_lock(&a->st);
    if (where) {
        *where = (enum vidmm_where)a->st.where;
    }
    if (gpu_addr) {
        *gpu_addr = a->st.where == VIDMM_IN_SYSMEM ? 0 : a->st.addr;
    }
    return DDI_OK;
}

int vidmm_unlock(struct vidmm *vm, uint32_t handle)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    return vm_state_unlock(&a->st) ? DDI_OK : DDI_EINVAL;
}

int vidmm_alloc_state(const struct vidmm *vm, uint32_t handle,
                      struct vidmm_alloc_state *st)
{
    const struct vm_alloc *a = lookup(vm, handle);

    if (!a || !st) {
        return a ? DDI_EINVAL : DDI_EHANDLE;
    }
    *st = (struct vidmm_alloc_state){
        .where = a->st.where,
        .gpu_addr = a->st.where == VIDMM_IN_SYSMEM ? 0 : a->st.addr,
        .size = a->size, .pages = &vm->page_pool[a->page_first],
        .npages = a->npages, .pin = a->st.pins + a->st.locks,
        .busy = a->st.busy, .lru = a->st.lru,
    };
    return DDI_OK;
}
