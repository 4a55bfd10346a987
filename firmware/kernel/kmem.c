/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's video memory: where an allocation lives, and vidmm's part
 * of scheduling (the residency hooks of struct vidsch_env).
 *
 * Without vidmm (k->vm NULL) every allocation is placed once in the
 * kernel's segment and never moves. With vidmm, applications'
 * allocations are vidmm allocations that may live in VRAM, in the
 * aperture or only in their backing pages, and move when the scheduler
 * prepares a DMA buffer that uses them [VidMm at VidSch's preparation].
 * What the display or the CPU keeps an address of is pinned: primaries
 * from creation (vidmm pins them in VRAM), pointer shapes once shown,
 * locked allocations until unlocked.
 *
 * vidmm hands out no owner restriction here: the kernel checked every
 * handle against the calling process's table already (shared allocations
 * are used by processes other than their creator's), so all vidmm
 * allocations have owner 0 and residency asks for process 0.
 */
#include "kernel/kmem.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#include "kernel/kdma.h"
#include "kernel/kernel_internal.h"

static void fill_zero(volatile void *cpu, uint64_t bytes)
{
    volatile uint64_t *q = cpu;

    for (uint64_t i = 0; i < bytes / 8; i++) {
        q[i] = 0;
    }
}

static uint64_t round8(uint64_t v)
{
    return (v + 7) & ~(uint64_t)7;
}

/* ---- backing store: runs of the page pool ---- */

/* One contiguous run per allocation, so a lock gives the CPU one pointer
 * for all of it (the pool's identity map). */
static int sys_pages_get(void *os, uint64_t *pages, unsigned n)
{
    struct kernel *k = os;
    uint64_t first;

    if (!page_pool_get_contiguous(k->pool, n, &first)) {
        return DDI_ENOMEM;
    }
    for (unsigned i = 0; i < n; i++) {
        pages[i] = first + (uint64_t)i * VIDMM_PAGE_SIZE;
    }
    return DDI_OK;
}

static void sys_pages_put(void *os, const uint64_t *pages, unsigned n)
{
    struct kernel *k = os;

    page_pool_put(k->pool, pages, n);
}

static void vm_config(const struct kernel_vidmm_config *vc, uint64_t base,
                      uint64_t size, struct vidmm_config *cfg)
{
    *cfg = (struct vidmm_config){
        .vram_base = base, .vram_size = size,
        .aperture_base = vc->aperture_base,
        .aperture_size = vc->aperture_size,
        /* applications' allocations and pageable DMA buffers */
        .max_allocs = KERNEL_MAX_ALLOCS + KERNEL_MAX_BUFFERS,
        .max_blocks = KERNEL_SEGMENT_BLOCKS,
        .max_pages = vc->pool ? vc->pool->pages : 0,
        .copy_engine = vc->copy_engine,
    };
}

uint64_t kmem_storage_bytes(const struct kernel_vidmm_config *vc)
{
    struct vidmm_config cfg;

    if (!vc) {
        return 0;
    }
    vm_config(vc, 0, 1, &cfg);
    return round8(vidmm_storage_size(&cfg));
}

const char *kmem_start(struct kernel *k, uint64_t seg_base,
                       uint64_t seg_size, volatile uint8_t *seg_cpu,
                       const struct kernel_vidmm_config *vc, void *storage,
                       uint64_t bytes)
{
    struct vidmm_config cfg;
    struct vidmm_env env = {
        .os = k, .alloc_sys_pages = sys_pages_get,
        .free_sys_pages = sys_pages_put,
    };
    uint64_t kbytes;

    k->vram_base = seg_base;
    k->vram_size = seg_size;
    k->vram_cpu = seg_cpu;
    if (!vc) {
        vidmm_segment_init(&k->seg, seg_base, seg_size, seg_cpu,
                           k->seg_blocks, KERNEL_SEGMENT_BLOCKS);
        return NULL;
    }
    /* vidmm's part starts on a page: aperture transfers are page-sized */
    kbytes = (vc->kernel_bytes + VIDMM_PAGE_SIZE - 1) &
             ~(uint64_t)(VIDMM_PAGE_SIZE - 1);
    if (!vc->pool || !vc->pool->pages || kbytes >= seg_size ||
        !k->dev.ops->build_paging_buffer) {
        return "vidmm needs a page pool, VRAM beyond the kernel's part "
               "and a GPU that can page";
    }
    if (vc->copy_engine >= k->caps.engines) {
        return "vidmm's paging engine is not one of the device's engines";
    }
    vidmm_segment_init(&k->seg, seg_base, kbytes, seg_cpu, k->seg_blocks,
                       KERNEL_SEGMENT_BLOCKS);
    /* paging buffers' packets reserved now: residency must never wait
     * for DMA buffers to free the kernel's VRAM (those may be waiting
     * for it) */
    for (unsigned i = 0; i < KERNEL_MAX_PAGING; i++) {
        if (!vidmm_segment_alloc(&k->seg, KERNEL_PAGING_BYTES,
                                 KERNEL_ALLOC_ALIGN, &k->paging[i].gpu)) {
            return "no room for paging buffers in the kernel's VRAM";
        }
    }
    vm_config(vc, seg_base + kbytes, seg_size - kbytes, &cfg);
    k->pool = vc->pool;
    k->copy_engine = vc->copy_engine;
    k->vm_vram_size = seg_size - kbytes;
    k->vm_aperture_size = vc->aperture_size;
    k->vm = vidmm_create(storage, bytes, &cfg, &env, &k->dev);
    return k->vm ? NULL : "vidmm_create refused its configuration";
}

uint64_t kernel_app_vram_bytes(const struct kernel *k)
{
    return k->vm ? k->vm_vram_size : k->seg.size;
}

const struct vidmm_stats *kernel_vidmm_stats(const struct kernel *k)
{
    return k->vm ? vidmm_stats(k->vm) : NULL;
}

/* The CPU's view of VRAM address addr of the OS's segment. */
static volatile void *vram_cpu(const struct kernel *k, uint64_t addr)
{
    return k->vram_cpu + (addr - k->vram_base);
}

/* ---- allocations ---- */

int kmem_alloc_create(struct kernel *k, struct kalloc *a,
                      const struct kapi_alloc_desc *d)
{
    uint64_t bytes = (d->size + KERNEL_ALLOC_ALIGN - 1) &
                     ~(uint64_t)(KERNEL_ALLOC_ALIGN - 1);
    struct vidmm_alloc_info info;
    struct vidmm_alloc_state st;
    volatile void *cpu;
    int rc;

    a->vm = 0;
    a->gpu = 0;
    if (!k->vm) {
        if (!vidmm_segment_alloc(&k->seg, bytes, KERNEL_ALLOC_ALIGN,
                                 &a->gpu)) {
            return DDI_ENOMEM;
        }
        if (d->zeroed) {
            fill_zero(vidmm_segment_cpu(&k->seg, a->gpu), bytes);
        }
        return DDI_OK;
    }
    /* the aperture too: an allocation that cannot have VRAM (full of
     * buffers in flight, or locked in system memory) still runs */
    info = (struct vidmm_alloc_info){
        .size = d->size, .align = VIDMM_PAGE_SIZE,
        .segments = d->primary || d->local_only
                    ? VIDMM_SEG_VRAM : VIDMM_SEG_VRAM | VIDMM_SEG_APERTURE,
        .owner = 0, .cpu_visible = d->cpu_visible, .primary = d->primary,
    };
    rc = vidmm_alloc_create(k->vm, &info, &a->vm);
    if (rc != DDI_OK) {
        a->vm = 0;
        return rc;
    }
    vidmm_alloc_state(k->vm, a->vm, &st);
    if (d->primary) {
        a->gpu = st.gpu_addr;       /* pinned in VRAM for life */
    }
    if (d->zeroed) {
        /* where it is now: VRAM through the BAR, else its backing run
         * (a new allocation has nothing in flight) */
        cpu = st.where == VIDMM_IN_VRAM ? vram_cpu(k, st.gpu_addr)
                                        : page_pool_cpu(st.pages[0]);
        fill_zero(cpu, st.npages * (uint64_t)VIDMM_PAGE_SIZE);
    }
    return DDI_OK;
}

int kmem_alloc_free(struct kernel *k, struct kalloc *a)
{
    int rc;

    if (a->gv) {
        /* refused (residency is inside a trim callback): the record
         * stays dying and the reaper asks again, never freed under
         * residency's reference */
        rc = kgpuva_alloc_destroy(k, a->gv);
        if (rc == DDI_OK) {
            a->gv = NULL;
        }
        return rc;
    }
    if (!a->vm) {
        vidmm_segment_free(&k->seg, a->gpu);
        return DDI_OK;
    }
    if (a->pointer_pin) {
        vidmm_unpin(k->vm, a->vm);
        a->pointer_pin = false;
    }
    rc = vidmm_alloc_destroy(k->vm, a->vm);
    if (rc == DDI_EHANDLE) {
        rc = DDI_OK;    /* nothing of it left in vidmm */
    } else if (rc == DDI_OK && k->vs) {
        vidsch_memory_changed(k->vs);   /* its VRAM and aperture are free */
    }
    return rc;
}

int kmem_lock(struct kernel *k, struct kalloc *a, volatile void **cpu)
{
    struct vidmm_alloc_state st;
    enum vidmm_where where;
    uint64_t addr;
    int rc;

    if (a->gv) {
        return kgpuva_lock(k, a->gv, cpu);
    }
    if (!a->vm) {
        *cpu = vidmm_segment_cpu(&k->seg, a->gpu);
        return DDI_OK;
    }
    /* pinned where it is: VRAM through the BAR, the aperture and system
     * memory through the backing run the GPU reaches via the GART */
    rc = vidmm_lock(k->vm, a->vm, &where, &addr);
    if (rc != DDI_OK) {
        return rc;      /* DDI_EBUSY: a paging buffer is moving it */
    }
    if (where == VIDMM_IN_VRAM) {
        *cpu = vram_cpu(k, addr);
    } else {
        vidmm_alloc_state(k->vm, a->vm, &st);
        *cpu = page_pool_cpu(st.pages[0]);
    }
    return DDI_OK;
}

void kmem_unlock(struct kernel *k, struct kalloc *a)
{
    if (a->vm) {
        vidmm_unlock(k->vm, a->vm);
        if (k->vs) {
            vidsch_memory_changed(k->vs);   /* it may move again */
        }
    }
}

int kmem_scanout_addr(struct kernel *k, struct kalloc *a, uint64_t *addr)
{
    struct vidmm_alloc_state st;

    if (a->gv) {
        return DDI_EBUSY;   /* moves under its VA: nothing to scan out */
    }
    if (!a->vm || a->pointer_pin) {
        *addr = a->gpu;
        return DDI_OK;
    }
    /* the display reads it from now on: pinned where the GPU sees it
     * (VRAM or the aperture) until the allocation is freed */
    vidmm_alloc_state(k->vm, a->vm, &st);
    if (st.where == VIDMM_IN_SYSMEM || vidmm_pin(k->vm, a->vm) != DDI_OK) {
        return DDI_EBUSY;
    }
    a->pointer_pin = true;
    a->gpu = st.gpu_addr;
    *addr = a->gpu;
    return DDI_OK;
}

int kmem_pin_vram(struct kernel *k, struct kalloc *a, uint64_t *addr,
                  uint64_t *bytes)
{
    struct vidmm_alloc_state st;
    enum vidmm_where where;
    uint64_t gpu;

    if (a->gv || !a->vm) {
        return DDI_EINVAL;
    }
    /* a lock refuses what a paging buffer is moving */
    if (vidmm_lock(k->vm, a->vm, &where, &gpu) != DDI_OK) {
        return DDI_EBUSY;
    }
    vidmm_unlock(k->vm, a->vm);
    if (where != VIDMM_IN_VRAM || vidmm_pin(k->vm, a->vm) != DDI_OK) {
        return DDI_EBUSY;
    }
    vidmm_alloc_state(k->vm, a->vm, &st);
    *addr = gpu;
    *bytes = (uint64_t)st.npages * VIDMM_PAGE_SIZE;
    return DDI_OK;
}

void kmem_unpin_vram(struct kernel *k, struct kalloc *a)
{
    if (a->vm && vidmm_unpin(k->vm, a->vm) == DDI_OK && k->vs) {
        vidsch_memory_changed(k->vs);   /* it may move again */
    }
}

/* ---- residency at schedule time (vidsch_env hooks) ---- */

const char *kmem_split_policy_name(unsigned policy)
{
    return policy == KMEM_SPLIT_UPFRONT ? "upfront"
           : policy == KMEM_SPLIT_BOTH ? "both" : "schedule";
}

void kmem_render_list(struct kernel *k, struct kbuffer *kb)
{
    struct vidmm_estimate e;

    kb->vm_n = 0;
    kb->split_upfront = false;
    if (!k->vm) {
        return;
    }
    for (unsigned i = 0; i < kb->dmabuf.nalloc; i++) {
        struct kalloc *a = kb->alloc[i];

        if (a && a->vm) {
            kb->vm_slot[kb->vm_n] = (uint8_t)i;
            kb->vm_list[kb->vm_n] = (struct ddi_alloc_ref){
                .handle = a->vm, .write = kb->dmabuf.alloc[i].write,
            };
            kb->vm_n++;
            kb->desc[i].gpu_addr = 0;   /* placed at schedule time */
        }
    }
    if (kb->dma_vm) {
        /* a pageable DMA buffer is made resident with its own list
         * (kdma.h): the last entry, read by the GPU only */
        kb->vm_slot[kb->vm_n] = KDMA_SLOT;
        kb->vm_list[kb->vm_n] = (struct ddi_alloc_ref){
            .handle = kb->dma_vm, .write = 0,
        };
        kb->vm_n++;
    }
    /* split up front: the list's worst case can never be resident at
     * once, so the residency pass at schedule time would only fail */
    kb->split_upfront = k->split_policy != KMEM_SPLIT_SCHEDULE &&
                        kb->vm_n &&
                        vidmm_estimate(k->vm, kb->vm_list, kb->vm_n,
                                       &e) == DDI_OK && e.must_split;
}

static struct kbuffer *buffer_of(struct kernel *k, uint64_t cookie)
{
    struct kbuffer *kb = (struct kbuffer *)(uintptr_t)cookie;

    if (kb < k->buffers || kb >= k->buffers + KERNEL_MAX_BUFFERS ||
        !kb->used) {
        return NULL;
    }
    return kb;
}

static struct kpaging *paging_of(struct kernel *k, uint64_t cookie)
{
    struct kpaging *p = (struct kpaging *)(uintptr_t)cookie;

    if (p < k->paging || p >= k->paging + KERNEL_MAX_PAGING || !p->used) {
        return NULL;
    }
    return p;
}

/* A free paging buffer record with its storage ready, or NULL: all of
 * them in flight (one comes back when it retires, and the scheduler asks
 * again then). */
static struct kpaging *paging_take(struct kernel *k)
{
    for (unsigned i = 0; i < KERNEL_MAX_PAGING; i++) {
        struct kpaging *p = &k->paging[i];

        if (!p->used) {
            p->dmabuf = (struct ddi_dmabuf){
                .dw = (uint32_t *)vidmm_segment_cpu(&k->seg, p->gpu),
                .gpu_addr = p->gpu, .cap_bytes = KERNEL_PAGING_BYTES,
            };
            return p;
        }
    }
    return NULL;
}

/* Hands vidmm's paging buffer (if it built one) to the scheduler. */
static void paging_give(struct kernel *k, struct kpaging *p,
                        const struct vidmm_residency *res,
                        struct vidsch_residency *out)
{
    if (res->paging_built) {
        p->used = true;
        p->ticket = res->paging_ticket;
        out->paging = &p->dmabuf;
        out->paging_engine = k->copy_engine;
        out->paging_cookie = (uint64_t)(uintptr_t)p;
        out->paging_ticket = res->paging_ticket;
        /* what vidsch weighs a turn by (eviction fighting) */
        out->paging_bytes = res->paging_bytes;
    }
    out->wait_ticket = res->wait_ticket;
}

/* kb's list slots as vidmm handles (0: a slot vidmm does not manage). */
static void slot_handles(const struct kbuffer *kb,
                         uint32_t map[DDI_MAX_ALLOC_LIST])
{
    for (unsigned i = 0; i < DDI_MAX_ALLOC_LIST; i++) {
        map[i] = 0;
    }
    for (unsigned i = 0; i < kb->vm_n; i++) {
        if (kb->vm_slot[i] != KDMA_SLOT) {
            map[kb->vm_slot[i]] = kb->vm_list[i].handle;
        }
    }
}

int kmem_make_resident(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                       struct ddi_alloc_desc *alloc, bool patched,
                       struct vidsch_residency *out)
{
    struct kernel *k = os;
    struct kbuffer *kb = buffer_of(k, cookie);
    struct ddi_alloc_desc d[DDI_MAX_ALLOC_LIST];
    uint32_t map[DDI_MAX_ALLOC_LIST];
    struct vidmm_residency res = { 0 };
    struct kdma_pass dp;
    struct kpaging *p;
    int rc;

    if (!kb) {
        return DDI_EINVAL;      /* not ours: a scheduler bug */
    }
    if (kb->vm_n == 0) {
        return DDI_OK;
    }
    p = paging_take(k);
    if (!p) {
        return DDI_EBUSY;
    }
    if (kb->split_upfront && !patched) {
        /* decided at submit time: no residency pass, only whether each
         * portion can fit (or the buffer is refused before any runs) */
        slot_handles(kb, map);
        if (!vidmm_splittable(k->vm, buf, map, kb->dma_vm)) {
            return DDI_ENOMEM;
        }
        k->stats.split_buffers++;
        k->stats.split_upfront++;
        return VIDSCH_RESIDENT_SPLIT;
    }
    for (unsigned i = 0; i < kb->vm_n; i++) {
        /* the buffer's own entry: patched once, at its address */
        d[i] = kb->vm_slot[i] == KDMA_SLOT
               ? (struct ddi_alloc_desc){ .size = kb->dma_bytes,
                                          .gpu_addr = buf->gpu_addr }
               : alloc[kb->vm_slot[i]];
    }
    rc = kdma_resident_begin(k, kb, &dp);
    if (rc != DDI_OK) {
        return rc;              /* DDI_EBUSY: a paging buffer moves it */
    }
    res.paging = &p->dmabuf;
    rc = vidmm_make_resident(k->vm, 0, kb->vm_list, kb->vm_n, d, patched,
                             &res);
    kdma_resident_end(k, kb, &dp, patched, rc);
    if (rc == DDI_ENOMEM && !patched &&
        k->split_policy != KMEM_SPLIT_UPFRONT) {
        /* the whole list cannot be resident at once: in portions, if
         * each of them can (WDDM's DMA buffer splitting) */
        slot_handles(kb, map);
        if (vidmm_splittable(k->vm, buf, map, kb->dma_vm)) {
            k->stats.split_buffers++;
            return VIDSCH_RESIDENT_SPLIT;
        }
    }
    if (rc == DDI_EBUSY && res.paging_built) {
        paging_give(k, p, &res, out);   /* a step: runs, then ask again */
    }
    if (rc != DDI_OK) {
        return rc;
    }
    for (unsigned i = 0; i < kb->vm_n; i++) {
        if (kb->vm_slot[i] != KDMA_SLOT) {
            alloc[kb->vm_slot[i]].gpu_addr = d[i].gpu_addr;
        }
    }
    paging_give(k, p, &res, out);
    return DDI_OK;
}

/* vidmm_make_resident_portion for a pageable DMA buffer: the portion's
 * sub-list and the buffer's own entry, which every portion needs (each
 * runs from the buffer). Between portions it may move like any idle
 * allocation: the portions that ran are done with it, and the patches
 * they wrote move with its contents; a portion handed back (patched)
 * gets it back at its address. */
static int dma_portion(struct kernel *k, struct kbuffer *kb,
                       const uint32_t map[DDI_MAX_ALLOC_LIST],
                       struct ddi_alloc_desc *alloc,
                       const struct vidmm_split_range *r, bool patched,
                       struct vidmm_residency *res)
{
    struct ddi_alloc_ref list[DDI_MAX_ALLOC_LIST + 1];
    struct ddi_alloc_desc d[DDI_MAX_ALLOC_LIST + 1];
    unsigned slot[DDI_MAX_ALLOC_LIST], n = 0;
    struct kdma_pass dp;
    int rc;

    for (unsigned i = 0; i < kb->dmabuf.nalloc && i < DDI_MAX_ALLOC_LIST;
         i++) {
        if (map[i] && (r->slots & (1u << i))) {
            slot[n] = i;
            list[n] = (struct ddi_alloc_ref){
                .handle = map[i], .write = kb->dmabuf.alloc[i].write,
            };
            d[n] = alloc[i];
            n++;
        }
    }
    list[n] = (struct ddi_alloc_ref){ .handle = kb->dma_vm };
    d[n] = (struct ddi_alloc_desc){ .size = kb->dma_bytes,
                                    .gpu_addr = kb->dmabuf.gpu_addr };
    rc = kdma_resident_begin(k, kb, &dp);
    if (rc != DDI_OK) {
        return rc;
    }
    rc = vidmm_make_resident(k->vm, 0, list, n + 1, d, patched, res);
    kdma_resident_end(k, kb, &dp, patched, rc);
    if (rc == DDI_OK) {
        for (unsigned j = 0; j < n; j++) {
            alloc[slot[j]] = d[j];
        }
    }
    return rc;
}

int kmem_make_portion(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                      struct ddi_alloc_desc *alloc, uint32_t first,
                      bool patched, struct vidsch_residency *out,
                      struct vidsch_portion *part)
{
    struct kernel *k = os;
    struct kbuffer *kb = buffer_of(k, cookie);
    uint32_t map[DDI_MAX_ALLOC_LIST];
    struct vidmm_residency res = { 0 };
    struct vidmm_split_range r = { 0 };
    struct kpaging *p;
    int rc;

    if (!kb || !part) {
        return DDI_EINVAL;
    }
    p = paging_take(k);
    if (!p) {
        return DDI_EBUSY;
    }
    slot_handles(kb, map);
    if (patched) {
        /* handed back: the same portion, at its patched addresses */
        r = (struct vidmm_split_range){ .first = part->first,
                                        .end = part->end,
                                        .slots = part->slots };
    } else {
        rc = vidmm_portion(k->vm, buf, map, kb->dma_vm, first, &r);
        if (rc != DDI_OK) {
            return rc;
        }
    }
    res.paging = &p->dmabuf;
    rc = kb->dma_vm ? dma_portion(k, kb, map, alloc, &r, patched, &res)
                    : vidmm_make_resident_portion(k->vm, 0, buf, map, alloc,
                                                  &r, patched, &res);
    if (rc == DDI_EBUSY && res.paging_built) {
        paging_give(k, p, &res, out);   /* a step: runs, then ask again */
    }
    if (rc != DDI_OK) {
        return rc;
    }
    part->end = r.end;
    part->slots = r.slots;
    paging_give(k, p, &res, out);
    return DDI_OK;
}

void kmem_release_portion(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                          const struct vidsch_portion *part, unsigned engine,
                          uint64_t fence)
{
    struct kernel *k = os;
    struct kbuffer *kb = buffer_of(k, cookie);
    uint32_t map[DDI_MAX_ALLOC_LIST];

    if (kb && part) {
        slot_handles(kb, map);
        vidmm_release_portion(k->vm, buf, map, part->slots, engine, fence);
        if (kb->dma_vm) {
            struct ddi_alloc_ref own = { .handle = kb->dma_vm };

            vidmm_release(k->vm, &own, 1, engine, fence);
        }
    }
}

void kmem_release_resident(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                           unsigned engine, uint64_t fence)
{
    struct kernel *k = os;
    struct kbuffer *kb = buffer_of(k, cookie);

    (void)buf;
    if (kb && kb->vm_n) {
        vidmm_release(k->vm, kb->vm_list, kb->vm_n, engine, fence);
    }
}

bool kmem_paging_done(struct kernel *k, uint64_t cookie, int status)
{
    struct kpaging *p = paging_of(k, cookie);

    if (!p) {
        return false;
    }
    /* retired or lost in a reset: either way the GPU is done with its
     * ranges; a lost one's moves are not done, and vidmm refuses the
     * allocations they concern (vidsch fails the buffers waiting) */
    if (status != DDI_OK) {
        vidmm_paging_lost(k->vm, p->ticket);
    } else {
        vidmm_paging_done(k->vm, p->ticket);
    }
    p->used = false;                /* its packets' VRAM stays reserved */
    kdma_reap(k);                   /* DMA buffers freed while it ran */
    k->stats.paging_buffers_done++;
    return true;
}
