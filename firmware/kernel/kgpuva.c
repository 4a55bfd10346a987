/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU-VA mode's residency in the kernel: glue between the kernel's
 * objects, vidmm_residency (the contract: references, budgets, trims),
 * vidmm_gpuva (VA ranges and the leaf-entry updates of a move) and the
 * DDI (paging buffers, page tables). See kgpuva.h for the design; the
 * batches of paging buffers are kgpuva_paging.c's.
 */
#include "kernel/kgpuva.h"

#include <stddef.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kgpuva_internal.h"

#define KGPUVA_MAP_CHUNK    64      /* pages per MAP_APERTURE: 512 bytes
                                       of page list on the stack */

static void vram_uncharge_unreferenced(struct kernel *k);
static bool proc_busy(const struct kgpuva *g, const struct kproc *owner);
static int admit(void *ctx, struct vidmm_res_process *rp,
                 struct vidmm_res_alloc *const *req, unsigned n);

/* ---- the pager (vidmm_res_pager) ---- */

static struct kgpuva_alloc *ga_of(struct vidmm_res_alloc *a)
{
    return a->mm;
}

static int page_in(void *ctx, struct vidmm_res_alloc *a, uint64_t *fence)
{
    struct kgpuva *g = ctx;
    struct kgpuva_alloc *ga = ga_of(a);
    struct vidmm_gpuva_frame to = {
        .target = DDI_PTE_VRAM, .writable = true,
    };
    struct ddi_paging_op op;
    struct ddi_pte_update u;
    uint64_t vram;
    int st;

    *fence = 0;
    if (ga->out_pending) {
        /* its page-out never left: still in its block, still mapped */
        ga->out_pending = false;
        return DDI_OK;
    }
    if (!vidmm_segment_alloc(&g->vram, ga->bytes, PAGE, &vram)) {
        return DDI_ENOMEM;      /* fragmented after all */
    }
    /* the segment's GPU addresses are VRAM offsets on copro, what the
     * page tables take */
    to.addr = vram;
    st = vidmm_gpuva_remap(&ga->proc->space, ga->va, 0, 0, &to, &u);
    op = (struct ddi_paging_op){
        .kind = DDI_PAGING_TRANSFER, .src = ga->aper, .dst = vram,
        .size = ga->bytes,
    };
    if (st == DDI_OK) {
        st = kgpuva_batch_add(g, &op, 1, &u, 1, fence);
    }
    if (st != DDI_OK) {
        vidmm_segment_free(&g->vram, vram);
        return DDI_ENOMEM;
    }
    ga->vram = vram;
    g->stats.page_ins++;
    g->stats.bytes_in += ga->bytes;
    return DDI_OK;
}

static void page_out(void *ctx, struct vidmm_res_alloc *a, uint64_t *fence)
{
    struct kgpuva *g = ctx;
    struct kgpuva_alloc *ga = ga_of(a);
    struct vidmm_gpuva_frame to = { .target = DDI_PTE_INVALID };
    struct ddi_paging_op op = {
        .kind = DDI_PAGING_TRANSFER, .src = ga->vram, .dst = ga->aper,
        .size = ga->bytes,
    };
    struct ddi_pte_update u;

    *fence = 0;
    if (!ga->vram) {
        return;
    }
    /* Residency's contract: page_out cannot fail. A call that moves
     * memory starts with free buffers and a batch holds the worst call,
     * but a destruction cannot be refused and may find every paging
     * buffer on the GPU. Then the move waits (out_pending): the block
     * stays allocated and mapped (never reused under a live entry), and
     * kgpuva_retry issues the page-out once a buffer retired. */
    if (vidmm_gpuva_remap(&ga->proc->space, ga->va, 0, 0, &to,
                          &u) != DDI_OK ||
        kgpuva_batch_add(g, &op, 1, &u, 1, fence) != DDI_OK) {
        ga->out_pending = true;
        g->stats.deferred_page_outs++;
        return;
    }
    vidmm_segment_free(&g->vram, ga->vram);
    ga->vram = 0;
    g->stats.page_outs++;
    g->stats.bytes_out += ga->bytes;
}

/*
 * Work of the owner's GPU-VA contexts still in flight may use any of its
 * allocations (no lists say which): an evicted one is not paged out
 * until that work retired [VidMm waits for the device's fences]. Coarse
 * (any buffer of the process), never unsafe. Paging out early would
 * only lose the owner's own late writes (the leaf entries go invalid in
 * the same paging buffer, before the block is reused), but WDDM promises
 * the application its contents.
 */
static bool in_use(void *ctx, struct vidmm_res_alloc *a)
{
    return proc_busy(ctx, ga_of(a)->proc->kp);
}

/* owner has GPU-VA work in flight (in_use). */
static bool proc_busy(const struct kgpuva *g, const struct kproc *owner)
{
    /* Buffers not retired yet: one that retired (buffer_done) but is not
     * reaped yet (context.inflight still counts it until the reaper runs,
     * which may come after the application's wait was delivered) no
     * longer uses anything. */
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        const struct kbuffer *kb = &g->k->buffers[i];

        if (kb->used && !kb->done && kb->ctx && kb->ctx->proc == owner &&
            kb->ctx->dev->gpuva) {
            return true;
        }
    }
    return false;
}

/* ---- start ---- */

const char *kgpuva_start(struct kernel *k, const struct kgpuva_config *cfg)
{
    struct kgpuva *g = &k->gpuva;
    const struct vidmm_res_pager pager = {
        .page_in = page_in, .page_out = page_out, .in_use = in_use,
        .admit = admit,
        .ctx = g,
    };

    *g = (struct kgpuva){ .cfg = *cfg, .k = k };
    if (!gops(k) || !k->dev.ops->build_paging_buffer || !cfg->pool ||
        cfg->vram_bytes < PAGE || cfg->aperture_size < PAGE ||
        cfg->va_base < k->vram_base + k->vram_size) {
        return "GPU-VA mode needs the driver's gpuva ops, paging, a page "
               "pool, VRAM, an aperture window and a VA window above the "
               "OS's VRAM";
    }
    if (cfg->copy_engine >= k->caps.engines) {
        /* its paging buffers would be refused one by one (DDI_EINVAL):
         * no allocation would ever be resident */
        return "GPU-VA mode's paging engine is not one of the device's "
               "engines";
    }
    for (unsigned i = 0; i < KGPUVA_MAX_PAGING; i++) {
        if (!vidmm_segment_alloc(&k->seg, KGPUVA_PAGING_BYTES, 64,
                                 &g->paging[i].gpu)) {
            return "no room for GPU-VA paging buffers";
        }
    }
    /* every process slot's DMA-buffer arena, for good (its space maps
     * it, and spaces are recycled, never destroyed) */
    for (unsigned i = 0; i < KGPUVA_MAX_PROCS; i++) {
        struct kgpuva_proc *gp = &g->proc[i];

        if (!vidmm_segment_alloc(&k->seg, KGPUVA_DMA_BYTES, PAGE,
                                 &gp->dma_base)) {
            return "no room for GPU-VA DMA-buffer arenas";
        }
        vidmm_segment_init(&gp->dma, gp->dma_base, KGPUVA_DMA_BYTES,
                           vidmm_segment_cpu(&k->seg, gp->dma_base),
                           gp->dma_blocks, KGPUVA_DMA_BLOCKS);
    }
    if (!vidmm_segment_alloc(&k->seg, page_round(cfg->vram_bytes), PAGE,
                             &g->vram_base)) {
        return "no room for GPU-VA VRAM in the kernel's segment";
    }
    vidmm_segment_init(&g->vram, g->vram_base, page_round(cfg->vram_bytes),
                       NULL, g->vram_blocks, KGPUVA_MAX_ALLOCS + 1);
    vidmm_segment_init(&g->aper, cfg->aperture_base, cfg->aperture_size,
                       NULL, g->aper_blocks, KGPUVA_MAX_ALLOCS + 1);
    if (vidmm_res_init(&g->res, page_round(cfg->vram_bytes), &pager,
                       g->res_alloc, KGPUVA_MAX_ALLOCS) != DDI_OK) {
        return "vidmm_res_init refused";
    }
    g->on = true;
    return NULL;
}

/* ---- processes and devices ---- */

bool kgpuva_proc_on(const struct kernel *k, const struct kproc *p)
{
    unsigned i = (unsigned)(p - k->procs);

    return k->gpuva.on && i < KGPUVA_MAX_PROCS && k->gpuva.proc[i].on &&
           k->gpuva.proc[i].kp == p;
}

struct kgpuva_proc *kgpuva_proc_of(struct kernel *k, const struct kproc *p)
{
    unsigned i = (unsigned)(p - k->procs);

    if (!k->gpuva.on || i >= KGPUVA_MAX_PROCS || !k->gpuva.proc[i].on) {
        return NULL;
    }
    return &k->gpuva.proc[i];
}

static void trim_thunk(void *ctx, struct vidmm_res_process *rp,
                       uint64_t bytes)
{
    struct kgpuva_proc *gp = ctx;
    struct kernel *k = gp->kp->k;

    (void)rp;
    if (gp->trim_fn) {
        const struct kproc *outer = k->cb.proc;
        unsigned outer_may = k->cb.may;

        k->gpuva.stats.trims_delivered++;
        /* residency is in the middle of a MakeResident (maybe another
         * process's): the callback may evict, nothing else
         * (kcall_check) */
        k->cb.proc = gp->kp;
        k->cb.may = KCALL_EVICT;
        gp->trim_fn(gp->trim_arg, bytes);
        k->cb.proc = outer;
        k->cb.may = outer_may;
    }
}

uint64_t kgpuva_budget(const struct kernel *k, const struct kproc *p)
{
    unsigned i = (unsigned)(p - k->procs);
    uint64_t max = p->quota.limit[KQ_GPUVA_VRAM], asked;

    if (!max || max > k->gpuva.res.capacity) {
        max = k->gpuva.res.capacity;
    }
    asked = i < KGPUVA_MAX_PROCS ? k->gpuva.proc[i].budget_asked : 0;
    return asked && asked < max ? asked : max;
}

static int proc_start(struct kernel *k, struct kproc *p)
{
    struct kgpuva *g = &k->gpuva;
    unsigned i = (unsigned)(p - k->procs);
    struct kgpuva_proc *gp;
    uint32_t as;
    int st;

    if (i >= KGPUVA_MAX_PROCS) {
        return DDI_ENOMEM;
    }
    gp = &g->proc[i];
    if (gp->on) {
        return DDI_OK;
    }
    st = kquota_gpuva_admit(k, p);
    if (st != DDI_OK) {
        return st;
    }
    /* A space an exited process of this slot left is taken again (the
     * DDI has no space_destroy; kgpuva_proc_exit): all its entries are
     * invalid, every allocation of it was destroyed. The slot's DMA
     * arena (kgpuva_start) is the only OS VRAM a space maps, read-only:
     * not the rest of the kernel's segment (other processes' command
     * buffers and save areas); its contexts' save pages are mapped
     * while they are bound. */
    as = gp->as;
    gp->kp = p;
    gp->rp = (struct vidmm_res_process){ 0 };
    gp->trim_fn = NULL;
    gp->trim_arg = NULL;
    gp->budget_asked = 0;
    st = as ? DDI_OK
            : gops(k)->space_create(k->dev.drv, gp->dma_base,
                                    KGPUVA_DMA_BYTES, 0, 0, &gp->as);
    if (st == DDI_OK) {
        st = vidmm_gpuva_init(&gp->space, gp->as, p->id, g->cfg.va_base,
                              g->cfg.va_size, gp->va_blocks,
                              KGPUVA_MAX_ALLOCS + 1);
    }
    if (st == DDI_OK) {
        /* its budget: what its quota lets it reference (kquota.h), until
         * it asks for less */
        st = vidmm_res_process_add(&g->res, &gp->rp, p->id,
                                   kgpuva_budget(k, p), trim_thunk, gp);
    }
    if (st != DDI_OK) {
        return st;
    }
    gp->on = true;
    return DDI_OK;
}

struct vidmm_segment *kgpuva_dma_segment(struct kernel *k,
                                         const struct kproc *p)
{
    struct kgpuva_proc *gp = kgpuva_proc_of(k, p);

    return gp ? &gp->dma : NULL;
}

int kgpuva_device_create(struct kernel *k, struct kproc *p, unsigned di)
{
    struct kgpuva *g = &k->gpuva;
    struct kgpuva_dev *gd;
    int st;

    if (!g->on) {
        return DDI_ENOTSUP;
    }
    if (di >= KGPUVA_MAX_DEVICES) {
        return DDI_ENOMEM;
    }
    st = proc_start(k, p);
    if (st != DDI_OK) {
        return st;
    }
    gd = &g->dev[di];
    *gd = (struct kgpuva_dev){ 0 };
    st = vidmm_res_device_add(&g->res, &gd->rd,
                              &kgpuva_proc_of(k, p)->rp, gd->entry,
                              KGPUVA_LIST);
    gd->on = st == DDI_OK;
    return st;
}

void kgpuva_proc_exit(struct kernel *k, struct kproc *p)
{
    struct kgpuva_proc *gp = kgpuva_proc_of(k, p);

    if (!gp) {
        return;
    }
    /* its devices and allocations are gone already (kapi_process_exit):
     * this only takes its record out of residency */
    vidmm_res_process_remove(&k->gpuva.res, &gp->rp);
    gp->on = false;
    gp->kp = NULL;
    gp->trim_fn = NULL;
    k->gpuva.stats.spaces_recycled++;
}

void kgpuva_device_destroy(struct kernel *k, unsigned di)
{
    /* Residency refuses removals only from inside a trim callback
     * (DDI_EBUSY), and no device destruction or process exit can come
     * from there (kcall_check: DDI_EACCESS), so this one and
     * kgpuva_proc_exit's are never refused. */
    if (kgpuva_device_on(k, di)) {
        vidmm_res_device_remove(&k->gpuva.res, &k->gpuva.dev[di].rd);
        k->gpuva.dev[di].on = false;
        vram_uncharge_unreferenced(k);  /* its references are gone */
    }
}

bool kgpuva_device_on(const struct kernel *k, unsigned di)
{
    return k->gpuva.on && di < KGPUVA_MAX_DEVICES && k->gpuva.dev[di].on;
}

int kgpuva_context_bind(struct kernel *k, struct kproc *p, uint32_t hw_id,
                        uint64_t save)
{
    struct kgpuva_proc *gp = kgpuva_proc_of(k, p);

    if (!gp) {
        return DDI_EINVAL;
    }
    return gops(k)->space_bind(k->dev.drv, gp->as, hw_id, save,
                               KGPUVA_SAVE_BYTES);
}

void kgpuva_context_unbind(struct kernel *k, struct kproc *p, uint32_t hw_id,
                           uint64_t save)
{
    struct kgpuva_proc *gp = kgpuva_proc_of(k, p);

    if (gp) {
        gops(k)->space_unbind(k->dev.drv, gp->as, hw_id, save,
                              KGPUVA_SAVE_BYTES);
    }
}

/* ---- allocations ---- */

int kgpuva_alloc_create(struct kernel *k, struct kproc *p, uint32_t h,
                        uint64_t size, bool zeroed,
                        struct kgpuva_alloc **out)
{
    struct kgpuva *g = &k->gpuva;
    struct kgpuva_proc *gp = kgpuva_proc_of(k, p);
    struct kgpuva_alloc *ga = NULL;
    struct ddi_paging_op op;
    uint64_t bytes = page_round(size), fence, first;
    int st;

    if (!gp || size == 0 || bytes > g->res.capacity) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS && !ga; i++) {
        if (!g->alloc[i].used) {
            ga = &g->alloc[i];
        }
    }
    if (!ga) {
        return DDI_ENOMEM;
    }
    if (kgpuva_slots_free(g) < KGPUVA_SLOTS_FREE) {
        return DDI_EBUSY;       /* paging buffers in flight: retry */
    }
    /* a record of the kernel-wide table (smaller than the allocation
     * table): within p's quota, never another process's guarantee
     * (issue 26 item 10) */
    st = kquota_charge(k, p, KQ_GPUVA_ALLOCS, 1);
    if (st != DDI_OK) {
        return st;
    }
    /* its backing's aperture range, for life: the window is a pool of
     * its own, smaller than the backing store it maps */
    st = kquota_charge(k, p, KQ_GPUVA_APER, bytes);
    if (st != DDI_OK) {
        kquota_uncharge(k, p, KQ_GPUVA_ALLOCS, 1);
        return st;
    }
    *ga = (struct kgpuva_alloc){
        .proc = gp, .charged = p, .handle = h, .bytes = bytes,
        .npages = (uint32_t)(bytes / PAGE),
    };
    if (!page_pool_get_contiguous(g->cfg.pool, ga->npages, &first)) {
        *ga = (struct kgpuva_alloc){ 0 };
        kquota_uncharge(k, p, KQ_GPUVA_ALLOCS, 1);
        kquota_uncharge(k, p, KQ_GPUVA_APER, bytes);
        return DDI_ENOMEM;
    }
    ga->first_page = first;
    if (!vidmm_segment_alloc(&g->aper, bytes, PAGE, &ga->aper)) {
        st = DDI_ENOMEM;
        goto no_aper;
    }
    st = vidmm_gpuva_map(&gp->space, bytes, 0, &ga->va);
    if (st != DDI_OK) {
        goto no_va;
    }
    st = gops(k)->space_reserve(k->dev.drv, gp->as, ga->va, bytes);
    if (st != DDI_OK) {
        goto no_tables;
    }
    if (zeroed) {
        for (uint32_t i = 0; i < ga->npages; i++) {
            volatile uint64_t *q = page_pool_cpu(first + (uint64_t)i * PAGE);

            for (unsigned j = 0; j < PAGE / 8; j++) {
                q[j] = 0;
            }
        }
    }
    /* The backing store's aperture mapping: the driver writes the GART
     * while it builds (no packets needed), once for the allocation's
     * life. The page list is read only during the build. */
    {
        uint64_t pages[KGPUVA_MAP_CHUNK];
        uint32_t n = ga->npages;
        uint64_t done = 0;

        /* in chunks the (small) firmware stack holds */
        while (st == DDI_OK && done < n) {
            uint32_t c = n - done > KGPUVA_MAP_CHUNK
                             ? KGPUVA_MAP_CHUNK : n - (uint32_t)done;

            for (uint32_t i = 0; i < c; i++) {
                pages[i] = first + (done + i) * PAGE;
            }
            op = (struct ddi_paging_op){
                .kind = DDI_PAGING_MAP_APERTURE,
                .dst = ga->aper + done * PAGE, .size = (uint64_t)c * PAGE,
                .sys_pages = pages,
            };
            st = kgpuva_batch_add(g, &op, 1, NULL, 0, &fence);
            done += c;
        }
        kgpuva_flush(k);
    }
    if (st == DDI_OK) {
        st = vidmm_res_alloc_add(&g->res, &gp->rp, h, bytes, ga, NULL);
    }
    if (st != DDI_OK) {
        goto no_tables;
    }
    ga->used = true;
    *out = ga;
    return DDI_OK;

no_tables:
    /* a MAP that went in is undone by the next one of the range: the
     * range is free again only here, never in flight */
    vidmm_gpuva_free(&gp->space, ga->va);
no_va:
    vidmm_segment_free(&g->aper, ga->aper);
no_aper:
    for (uint32_t i = 0; i < ga->npages; i++) {
        uint64_t pg = first + (uint64_t)i * PAGE;

        page_pool_put(g->cfg.pool, &pg, 1);
    }
    *ga = (struct kgpuva_alloc){ 0 };
    kquota_uncharge(k, p, KQ_GPUVA_ALLOCS, 1);
    kquota_uncharge(k, p, KQ_GPUVA_APER, bytes);
    return st;
}

int kgpuva_alloc_destroy(struct kernel *k, struct kgpuva_alloc *ga)
{
    struct kgpuva *g = &k->gpuva;
    struct ddi_paging_op op;
    uint64_t fence = 0;
    int st;

    if (!ga || !ga->used || ga->dying) {
        return DDI_OK;
    }
    /* off every list, paged out (its entries invalid) if resident; a
     * refusal is not ignored: the record stays as long as residency
     * knows it */
    st = vidmm_res_alloc_remove(&g->res, &ga->proc->rp, ga->handle);
    if (st != DDI_OK && st != DDI_EHANDLE) {
        return st;
    }
    vram_uncharge_unreferenced(k);
    if (ga->out_pending) {
        /* its entries still map its block: the VA range, the block and
         * the backing wait for kgpuva_retry's invalidation */
        ga->dying = true;
        ga->free_at = UINT64_MAX;
        if (!g->bulk) {
            kgpuva_flush(k);
        }
        return DDI_OK;
    }
    vidmm_gpuva_free(&ga->proc->space, ga->va);
    /* The aperture range and backing pages go back once the GPU is past
     * the page-out that read them: an UNMAP after it in the batch, and
     * the record waits for that batch's value. */
    op = (struct ddi_paging_op){
        .kind = DDI_PAGING_UNMAP_APERTURE, .dst = ga->aper,
        .size = ga->bytes,
    };
    if (kgpuva_batch_add(g, &op, 1, NULL, 0, &fence) != DDI_OK) {
        fence = 0;      /* the GART entries stay: harmless, never reused
                           before the next MAP of the range rewrites them */
    }
    if (g->batch && g->batch->value && g->batch->dmabuf.len_bytes) {
        fence = g->batch->value;    /* the page-out's, if it had one */
    }
    if (fence) {
        ga->dying = true;
        ga->free_at = fence;
    } else {
        kgpuva_free_backing(g, ga);
    }
    if (!g->bulk) {
        kgpuva_flush(k);
    }
    return DDI_OK;
}

void kgpuva_bulk(struct kernel *k, bool on)
{
    struct kgpuva *g = &k->gpuva;

    if (on) {
        g->bulk++;
    } else if (g->bulk && --g->bulk == 0) {
        kgpuva_flush(k);
    }
}

/* A destroyed allocation's deferred page-out: its entries invalid and
 * its aperture range unmapped in the batch (its contents are dead: no
 * transfer); the block and the backing go once that retired. */
static int retry_one(struct kgpuva *g, struct kgpuva_alloc *ga)
{
    struct vidmm_gpuva_frame to = { .target = DDI_PTE_INVALID };
    struct ddi_paging_op op = {
        .kind = DDI_PAGING_UNMAP_APERTURE, .dst = ga->aper,
        .size = ga->bytes,
    };
    struct ddi_pte_update u;
    uint64_t fence;
    int st;

    st = vidmm_gpuva_remap(&ga->proc->space, ga->va, 0, 0, &to, &u);
    if (st == DDI_OK) {
        st = kgpuva_batch_add(g, &op, 1, &u, 1, &fence);
    }
    if (st != DDI_OK) {
        return st;
    }
    vidmm_gpuva_free(&ga->proc->space, ga->va);
    ga->out_pending = false;
    ga->free_at = fence ? fence : g->fence_issued;
    g->stats.page_outs++;
    return DDI_OK;
}

bool kgpuva_retry(struct kernel *k)
{
    struct kgpuva *g = &k->gpuva;
    bool waiting = false;

    if (!g->on) {
        return false;
    }
    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS; i++) {
        struct kgpuva_alloc *ga = &g->alloc[i];

        if (ga->used && ga->dying && ga->out_pending &&
            retry_one(g, ga) != DDI_OK) {
            waiting = true;
        }
    }
    kgpuva_flush(k);
    return waiting;
}

bool kgpuva_slot_busy(const struct kernel *k, const struct kproc *p)
{
    const struct kgpuva *g = &k->gpuva;
    unsigned slot = (unsigned)(p - k->procs);

    if (!g->on || slot >= KGPUVA_MAX_PROCS) {
        return false;
    }
    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS; i++) {
        if (g->alloc[i].used && g->alloc[i].proc == &g->proc[slot]) {
            return true;
        }
    }
    return false;
}

/* ---- residency ---- */

/* The references all devices of its process hold on ga (0: none, or it
 * is being destroyed). */
static uint32_t alloc_refs(struct kgpuva *g, const struct kgpuva_alloc *ga)
{
    struct vidmm_res_alloc *ra =
        ga->used && !ga->dying
            ? vidmm_res_alloc_find(&g->res, &ga->proc->rp, ga->handle)
            : NULL;

    return ra ? ra->refs : 0;
}

/* What p is charged for only because its work is in flight (evicted,
 * still in VRAM under that work). */
static uint64_t kept_bytes(struct kgpuva *g, const struct kproc *p)
{
    uint64_t bytes = 0;

    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS; i++) {
        const struct kgpuva_alloc *ga = &g->alloc[i];

        if (ga->used && ga->vram_charged && ga->charged == p &&
            !alloc_refs(g, ga)) {
            bytes += ga->bytes;
        }
    }
    return bytes;
}

/* vidmm_res_pager.admit: residency never takes a referenced allocation
 * from anyone, so what a process references is charged to it first
 * (issue 26 item 11: a process referenced all of the GPU-VA VRAM and
 * another's first MakeResident got DDI_ENOMEM); an allocation charged
 * still (evicted while its work was in flight) is not charged twice. */
static int admit(void *ctx, struct vidmm_res_process *rp,
                 struct vidmm_res_alloc *const *req, unsigned n)
{
    struct kgpuva *g = ctx;
    uint64_t bytes = 0;
    int st;

    for (unsigned i = 0; i < n; i++) {
        const struct kgpuva_alloc *ga = ga_of(req[i]);

        if (!req[i]->refs && !ga->vram_charged) {
            bytes += ga->bytes;
        }
    }
    for (unsigned i = 0; i < KGPUVA_MAX_PROCS; i++) {
        struct kgpuva_proc *gp = &g->proc[i];

        if (gp->on && &gp->rp == rp) {
            st = bytes ? kquota_charge(g->k, gp->kp, KQ_GPUVA_VRAM, bytes)
                       : DDI_OK;
            if (st == DDI_OK) {
                g->admitted += bytes;
            } else if (st == DDI_EQUOTA &&
                       gp->kp->quota.used[KQ_GPUVA_VRAM] + bytes -
                           kept_bytes(g, gp->kp) <=
                       gp->kp->quota.limit[KQ_GPUVA_VRAM]) {
                /* within its quota once its work retired: as residency
                 * answers for memory still in use, retry then */
                st = DDI_EBUSY;
            }
            return st;
        }
    }
    return DDI_EINVAL;
}

/* Referenced GPU-VA VRAM is charged to the allocation's creator
 * (kgpuva.h) for as long as residency cannot take it back: while it is
 * referenced, and while it stays in VRAM with its owner's work in flight
 * (in_use: an Evict does not free it then). What neither holds any more
 * is given back: after an Evict, a device or the allocation destroyed, a
 * buffer of the owner retired (kgpuva_vram_settle). */
static void vram_uncharge_unreferenced(struct kernel *k)
{
    struct kgpuva *g = &k->gpuva;

    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS; i++) {
        struct kgpuva_alloc *ga = &g->alloc[i];

        if (ga->used && ga->vram_charged && !alloc_refs(g, ga) &&
            !(ga->vram && !ga->dying && proc_busy(g, ga->proc->kp))) {
            ga->vram_charged = false;
            kquota_uncharge(k, ga->charged, KQ_GPUVA_VRAM, ga->bytes);
        }
    }
}

void kgpuva_vram_settle(struct kernel *k)
{
    if (k->gpuva.on) {
        vram_uncharge_unreferenced(k);
    }
}

int kgpuva_make_resident(struct kernel *k, unsigned di, const uint32_t *h,
                         unsigned n, uint64_t *paging_fence)
{
    struct kgpuva *g = &k->gpuva;
    struct kproc *p;
    struct kgpuva_proc *gp;
    uint64_t now = 0;
    int st;

    if (!kgpuva_device_on(k, di)) {
        return DDI_EINVAL;
    }
    if (g->res.in_trim) {
        return DDI_EBUSY;       /* a trim callback may only evict */
    }
    if (kgpuva_slots_free(g) < KGPUVA_SLOTS_FREE) {
        return DDI_EBUSY;       /* paging buffers in flight: retry */
    }
    p = k->devices[di].proc;
    gp = kgpuva_proc_of(k, p);
    if (!gp) {
        return DDI_EINVAL;
    }
    vidmm_res_set_budget(&gp->rp, kgpuva_budget(k, p));
    g->admitted = 0;            /* admit() charges p */
    st = vidmm_res_make_resident(&g->res, &g->dev[di].rd, h, n,
                                 paging_fence);
    if (st == DDI_OK) {
        for (unsigned i = 0; i < n; i++) {
            struct vidmm_res_alloc *ra =
                vidmm_res_alloc_find(&g->res, &gp->rp, h[i]);
            struct kgpuva_alloc *ga = ra ? ra->mm : NULL;

            if (ga && !ga->vram_charged) {
                ga->vram_charged = true;
                now += ga->bytes;
            }
        }
    }
    /* now: what the call charged in the end, what admit() charged unless
     * the call failed after it (then nothing) */
    if (now > g->admitted) {
        kquota_recharge(p, KQ_GPUVA_VRAM, now - g->admitted);
    } else if (g->admitted > now) {
        kquota_uncharge(k, p, KQ_GPUVA_VRAM, g->admitted - now);
    }
    g->admitted = 0;
    if (st == DDI_ENOMEM) {
        g->stats.enomem++;
    }
    /* the batch on the GPU: its retirement moves fence_done */
    kgpuva_flush(k);
    return st;
}

int kgpuva_evict(struct kernel *k, unsigned di, const uint32_t *h,
                 unsigned n, uint64_t *bytes_to_trim)
{
    int st;

    if (!kgpuva_device_on(k, di)) {
        return DDI_EINVAL;
    }
    st = vidmm_res_evict(&k->gpuva.res, &k->gpuva.dev[di].rd, h, n,
                         bytes_to_trim);
    vram_uncharge_unreferenced(k);
    return st;
}

int kgpuva_lock(struct kernel *k, struct kgpuva_alloc *ga,
                volatile void **cpu)
{
    struct vidmm_res_alloc *ra =
        vidmm_res_alloc_find(&k->gpuva.res, &ga->proc->rp, ga->handle);

    if (!ra || !ra->refs || !ga->vram) {
        return DDI_EBUSY;
    }
    *cpu = k->vram_cpu + (ga->vram - k->vram_base);
    return DDI_OK;
}

/* ---- views of VRAM placed by someone else (kernel/kvamap.h) ---- */

int kgpuva_view_map(struct kernel *k, struct kproc *p, uint64_t vram,
                    uint64_t bytes, bool writable, uint64_t *va,
                    uint64_t *fence)
{
    struct kgpuva *g = &k->gpuva;
    struct kgpuva_proc *gp = kgpuva_proc_of(k, p);
    struct vidmm_gpuva_frame to = {
        .target = DDI_PTE_VRAM, .addr = vram, .writable = writable,
    };
    struct ddi_pte_update u;
    int st;

    /* whole pages only: a rounded-up last page would map whatever
     * follows the allocation in VRAM */
    if (!gp || !bytes || (bytes & (PAGE - 1)) || (vram & (PAGE - 1))) {
        return DDI_EINVAL;
    }
    if (!g->batch && kgpuva_slots_free(g) < KGPUVA_SLOTS_FREE) {
        return DDI_EBUSY;       /* paging buffers in flight: retry */
    }
    st = vidmm_gpuva_map(&gp->space, bytes, 0, va);
    if (st != DDI_OK) {
        return st;
    }
    st = gops(k)->space_reserve(k->dev.drv, gp->as, *va, bytes);
    if (st == DDI_OK) {
        st = vidmm_gpuva_remap(&gp->space, *va, 0, 0, &to, &u);
    }
    if (st == DDI_OK) {
        st = kgpuva_batch_add(g, NULL, 0, &u, 1, fence);
    }
    if (st != DDI_OK) {
        /* nothing went in: the range maps nothing */
        vidmm_gpuva_free(&gp->space, *va);
        return st;
    }
    return DDI_OK;      /* in the batch: the caller flushes */
}

int kgpuva_view_unmap(struct kernel *k, struct kproc *p, uint64_t va,
                      uint64_t *fence)
{
    struct kgpuva *g = &k->gpuva;
    unsigned i = (unsigned)(p - k->procs);
    struct vidmm_gpuva_frame to = { .target = DDI_PTE_INVALID };
    struct kgpuva_proc *gp;
    struct ddi_pte_update u;
    int st;

    /* the process may be exiting (gp->on already false): its space
     * stays for the next process of the slot, so its entries must go */
    if (!g->on || i >= KGPUVA_MAX_PROCS) {
        return DDI_EINVAL;
    }
    gp = &g->proc[i];
    st = vidmm_gpuva_remap(&gp->space, va, 0, 0, &to, &u);
    if (st == DDI_OK) {
        st = kgpuva_batch_add(g, NULL, 0, &u, 1, fence);
    }
    if (st != DDI_OK) {
        return st;
    }
    /* a later mapping of the range goes in a later paging buffer, after
     * this one on the one copy engine */
    vidmm_gpuva_free(&gp->space, va);
    if (!g->bulk) {
        kgpuva_flush(k);    /* else the bulk's one batch (an exit) */
    }
    return DDI_OK;
}

const char *kernel_gpuva_start(struct kernel *k,
                               const struct kgpuva_config *cfg)
{
    return kgpuva_start(k, cfg);
}
