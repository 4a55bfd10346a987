/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pageable DMA buffers (kdma.h): a DMA buffer that is a vidmm allocation
 * of its own, in the aperture or in VRAM, instead of a block of the
 * kernel's fixed segment.
 */
#include "kernel/kdma.h"

#include "kernel/kbuffer.h"
#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kproc.h"
#include "kernel/kquota.h"
#include "lib/page_pool.h"
#include "vidmm/vidmm.h"

static const char *const placement_names[KAPI_DMA_PLACEMENTS] = {
    [KAPI_DMA_KERNEL] = "kernel", [KAPI_DMA_APERTURE] = "aperture",
    [KAPI_DMA_VRAM] = "vram",
};

const char *kdma_placement_name(unsigned placement)
{
    return placement < KAPI_DMA_PLACEMENTS ? placement_names[placement]
                                           : NULL;
}

unsigned kdma_placement(const struct kernel *k, const struct kproc *p,
                        unsigned asked, bool gpuva, unsigned nalloc)
{
    unsigned pl = asked ? asked
                  : p && p->dma_placement ? p->dma_placement
                  : k->dma_placement;

    /* pageable buffers are vidmm allocations of the packet-based mode;
     * the aperture placement needs an aperture */
    if (!k->vm || gpuva || pl == KAPI_DMA_DEFAULT ||
        nalloc >= DDI_MAX_ALLOC_LIST ||
        (pl == KAPI_DMA_APERTURE && !k->vm_aperture_size)) {
        return KAPI_DMA_KERNEL;
    }
    return pl;
}

int kapi_set_dma_placement(struct kproc *p, unsigned placement)
{
    if (!p || placement >= KAPI_DMA_PLACEMENTS) {
        return DDI_EINVAL;
    }
    p->dma_placement = (uint8_t)placement;
    return DDI_OK;
}

int kdma_create(struct kernel *k, struct kproc *p, struct kbuffer *kb,
                uint32_t bytes)
{
    struct vidmm_alloc_info info = {
        .size = bytes, .align = VIDMM_PAGE_SIZE,
        /* the aperture: never in VRAM; VRAM: local only, as the split
         * scenario's allocations, so it never runs from the aperture */
        .segments = kb->placement == KAPI_DMA_VRAM ? VIDMM_SEG_VRAM
                                                   : VIDMM_SEG_APERTURE,
        .owner = 0, .cpu_visible = true,
        /* in VRAM from its residency on, not while it waits in a queue:
         * buffers queued by the dozen would otherwise take VRAM page by
         * page among the allocations, and making room would mean
         * evicting them one by one (more moves than one paging buffer
         * holds) */
        .place_on_use = true,
    };
    enum vidmm_where where;
    struct vidmm_alloc_state st;
    uint64_t addr;
    int rc;

    kb->dma_bytes = ((uint64_t)bytes + VIDMM_PAGE_SIZE - 1) /
                    VIDMM_PAGE_SIZE * VIDMM_PAGE_SIZE;
    rc = kquota_charge(k, p, KQ_BACKING, kb->dma_bytes);
    if (rc != DDI_OK) {
        return rc;
    }
    rc = vidmm_alloc_create(k->vm, &info, &kb->dma_vm);
    if (rc != DDI_OK) {
        kquota_uncharge(k, p, KQ_BACKING, kb->dma_bytes);
        kb->dma_vm = 0;
        return rc;
    }
    /* new: nothing moves it, the lock cannot be refused; the CPU fills
     * it where it is (VRAM through the BAR, or its backing run) */
    rc = vidmm_lock(k->vm, kb->dma_vm, &where, &addr);
    if (rc != DDI_OK) {
        vidmm_alloc_destroy(k->vm, kb->dma_vm);
        kquota_uncharge(k, p, KQ_BACKING, kb->dma_bytes);
        kb->dma_vm = 0;
        return rc;
    }
    vidmm_alloc_state(k->vm, kb->dma_vm, &st);
    kb->dmabuf.dw = where == VIDMM_IN_VRAM
                    ? (uint32_t *)(k->vram_cpu + (addr - k->vram_base))
                    : (uint32_t *)page_pool_cpu(st.pages[0]);
    kb->dmabuf.gpu_addr = addr;     /* 0 in system memory: set at
                                       residency */
    kb->dmabuf.cap_bytes = bytes;
    k->stats.dma_pageable++;
    return DDI_OK;
}

void kdma_filled(struct kernel *k, struct kbuffer *kb)
{
    if (kb->dma_vm) {
        vidmm_unlock(k->vm, kb->dma_vm);
    }
}

void kdma_free(struct kernel *k, struct kproc *p, struct kbuffer *kb)
{
    if (!kb->dma_vm) {
        return;
    }
    if (p) {
        kquota_uncharge(k, p, KQ_BACKING, kb->dma_bytes);
    }
    if (vidmm_alloc_destroy(k->vm, kb->dma_vm) == DDI_EBUSY) {
        /* a paging buffer took it out after it retired: its pages go
         * once that one retired */
        for (unsigned i = 0; i < KDMA_DYING_MAX; i++) {
            if (!k->dma_dying[i]) {
                k->dma_dying[i] = kb->dma_vm;
                break;
            }
        }
    } else if (k->vs) {
        vidsch_memory_changed(k->vs);   /* its VRAM and aperture */
    }
    kb->dma_vm = 0;
    kb->dma_bytes = 0;
}

void kdma_reap(struct kernel *k)
{
    for (unsigned i = 0; i < KDMA_DYING_MAX; i++) {
        if (k->dma_dying[i] &&
            vidmm_alloc_destroy(k->vm, k->dma_dying[i]) != DDI_EBUSY) {
            k->dma_dying[i] = 0;
        }
    }
}

int kdma_resident_begin(struct kernel *k, struct kbuffer *kb,
                        struct kdma_pass *ps)
{
    enum vidmm_where where;
    uint64_t addr;

    *ps = (struct kdma_pass){ 0 };
    if (!kb->dma_vm) {
        return DDI_OK;
    }
    /* a lock is refused while a paging buffer moves it: the patch would
     * be written where that buffer's copy then overwrites it */
    if (vidmm_lock(k->vm, kb->dma_vm, &where, &addr) != DDI_OK) {
        k->stats.dma_busy_waits++;
        return DDI_EBUSY;
    }
    ps->where_before = (uint8_t)where;
    if (where == VIDMM_IN_VRAM) {
        ps->locked = true;      /* stays at addr through the plan */
    } else {
        vidmm_unlock(k->vm, kb->dma_vm);
    }
    return DDI_OK;
}

void kdma_resident_end(struct kernel *k, struct kbuffer *kb,
                       const struct kdma_pass *ps, bool patched, int rc)
{
    struct vidmm_alloc_state st;
    uint64_t vram = 0;

    if (!kb->dma_vm) {
        return;
    }
    if (ps->locked) {
        vidmm_unlock(k->vm, kb->dma_vm);
    }
    if (rc != DDI_OK) {
        return;
    }
    vidmm_alloc_state(k->vm, kb->dma_vm, &st);
    kb->dmabuf.gpu_addr = st.gpu_addr;
    /* where the driver's patch goes: VRAM only if it was there already
     * (the lock kept it); brought in now, the paging buffer copies (or
     * the GART maps) the backing pages after the patch is written */
    kb->dmabuf.dw = st.where == VIDMM_IN_VRAM && ps->locked
                    ? (uint32_t *)(k->vram_cpu +
                                   (st.gpu_addr - k->vram_base))
                    : (uint32_t *)page_pool_cpu(st.pages[0]);
    if (ps->where_before == VIDMM_IN_SYSMEM) {
        k->stats.dma_brought_in++;
        if (patched) {
            k->stats.dma_back_patched++;
        }
    }
    /* VRAM that pageable DMA buffers hold now */
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        const struct kbuffer *b = &k->buffers[i];

        if (b->used && b->dma_vm &&
            vidmm_alloc_state(k->vm, b->dma_vm, &st) == DDI_OK &&
            st.where == VIDMM_IN_VRAM) {
            vram += st.npages * (uint64_t)VIDMM_PAGE_SIZE;
        }
    }
    if (vram > k->stats.dma_vram_peak) {
        k->stats.dma_vram_peak = vram;
    }
}
