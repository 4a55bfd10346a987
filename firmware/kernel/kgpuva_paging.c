/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU-VA mode's paging buffers (kgpuva.h).
 *
 * The moves of one kgpuva call (a MakeResident's page-outs and page-ins,
 * a destruction's page-out and unmap) go into one paging buffer, the
 * batch, submitted at the end of the call (kgpuva_flush): one paging
 * fence value per call, as WDDM gives one PagingFenceValue per
 * MakeResident. A batch is big enough for the worst call (every
 * allocation out, a full list in); if one ever fills, it is submitted and
 * another opened. A call that may move memory starts only with
 * KGPUVA_SLOTS_FREE buffers free (else DDI_EBUSY: retry once paging
 * retired), so a destruction, which cannot be refused, always finds
 * room.
 */
#include "kernel/kgpuva.h"

#include <stddef.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kgpuva_internal.h"

unsigned kgpuva_slots_free(const struct kgpuva *g)
{
    unsigned n = 0;

    for (unsigned i = 0; i < KGPUVA_MAX_PAGING; i++) {
        n += !g->paging[i].used && !g->paging[i].open;
    }
    return n;
}

static struct kgpuva_paging *batch_open(struct kgpuva *g)
{
    if (g->batch) {
        return g->batch;
    }
    for (unsigned i = 0; i < KGPUVA_MAX_PAGING; i++) {
        struct kgpuva_paging *pb = &g->paging[i];

        if (!pb->used && !pb->open) {
            pb->dmabuf = (struct ddi_dmabuf){
                .dw = (uint32_t *)vidmm_segment_cpu(&g->k->seg, pb->gpu),
                .gpu_addr = pb->gpu, .cap_bytes = KGPUVA_PAGING_BYTES,
                .engine = g->cfg.copy_engine,
            };
            pb->value = 0;
            pb->open = true;
            g->batch = pb;
            return pb;
        }
    }
    return NULL;
}

void kgpuva_flush(struct kernel *k)
{
    struct kgpuva *g = &k->gpuva;
    struct kgpuva_paging *pb = g->batch;
    int st;

    if (!pb) {
        return;
    }
    g->batch = NULL;
    pb->open = false;
    if (pb->dmabuf.len_bytes == 0) {
        return;     /* nothing the GPU must do (no value was handed out) */
    }
    pb->used = true;
    st = vidsch_submit_paging(k->vs, g->cfg.copy_engine, &pb->dmabuf,
                              (uint64_t)(uintptr_t)pb);
    if (st != DDI_OK) {
        /* The scheduler's table is full (it holds render buffers, waits
         * and signals too). The moves did not run: counted, and the
         * value retired at once so nothing waits for ever; contents of
         * what it paged out are lost (never another process's: the
         * VRAM is reused only by later buffers of the same engine). */
        g->stats.submit_failures++;
        kgpuva_paging_done(k, (uint64_t)(uintptr_t)pb);
        return;
    }
    g->stats.paging_buffers++;
    kernel_after_vidsch(k);
}

/*
 * Appends one move (ops in order, then the leaf-entry updates) to the
 * batch. *fence: the value the batch signals (0 if the move needed no
 * packets). DDI_EBUSY when no buffer is free; the driver's errors as
 * they come. Nothing of a refused move stays in the batch.
 */
int kgpuva_batch_add(struct kgpuva *g, const struct ddi_paging_op *ops,
                     unsigned nops, const struct ddi_pte_update *u,
                     unsigned nu, uint64_t *fence)
{
    struct kernel *k = g->k;

    *fence = 0;
    for (unsigned tries = 0; tries < 2; tries++) {
        struct kgpuva_paging *pb = batch_open(g);
        uint32_t len;
        struct ddi_dmabuf view;
        int st = DDI_OK;

        if (!pb) {
            return DDI_EBUSY;
        }
        len = pb->dmabuf.len_bytes;
        /* the driver builds from the start of what it is given: give it
         * the rest of the batch */
        view = (struct ddi_dmabuf){
            .dw = pb->dmabuf.dw + len / 4, .gpu_addr = pb->gpu + len,
            .cap_bytes = KGPUVA_PAGING_BYTES - len,
            .engine = g->cfg.copy_engine,
        };
        if (nops) {
            st = k->dev.ops->build_paging_buffer(k->dev.drv, ops, nops,
                                                 &view);
        }
        if (st == DDI_OK) {
            pb->dmabuf.len_bytes = len + view.len_bytes;
            if (nu) {
                st = gops(k)->pte_update(k->dev.drv, u, nu, &pb->dmabuf);
            }
        }
        if (st == DDI_OK) {
            if (pb->dmabuf.len_bytes && !pb->value) {
                pb->value = ++g->fence_issued;
            }
            *fence = pb->dmabuf.len_bytes ? pb->value : 0;
            return DDI_OK;
        }
        pb->dmabuf.len_bytes = len;
        if (st != DDI_ENOMEM || len == 0) {
            return st;
        }
        kgpuva_flush(k);        /* full: on the GPU, and a fresh one */
    }
    return DDI_ENOMEM;
}

void kgpuva_free_backing(struct kgpuva *g, struct kgpuva_alloc *ga)
{
    if (ga->vram) {
        /* a deferred page-out's block: its invalidation retired */
        vidmm_segment_free(&g->vram, ga->vram);
    }
    /* the record and the aperture range are free for anybody from here
     * on */
    kquota_uncharge(g->k, ga->charged, KQ_GPUVA_ALLOCS, 1);
    kquota_uncharge(g->k, ga->charged, KQ_GPUVA_APER, ga->bytes);
    vidmm_segment_free(&g->aper, ga->aper);
    for (uint32_t i = 0; i < ga->npages; i++) {
        uint64_t pg = ga->first_page + (uint64_t)i * PAGE;

        page_pool_put(g->cfg.pool, &pg, 1);
    }
    *ga = (struct kgpuva_alloc){ 0 };
}

bool kgpuva_paging_done(struct kernel *k, uint64_t cookie)
{
    struct kgpuva *g = &k->gpuva;
    struct kgpuva_paging *pb = (struct kgpuva_paging *)(uintptr_t)cookie;

    if (!g->on || pb < g->paging || pb >= g->paging + KGPUVA_MAX_PAGING ||
        !pb->used) {
        return false;
    }
    /* one engine, in order: the newest retired is the fence's value */
    if (pb->value > g->fence_done) {
        g->fence_done = pb->value;
    }
    pb->used = false;
    /* destroyed allocations whose last paging buffer is done: their
     * aperture range and backing pages go back */
    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS; i++) {
        struct kgpuva_alloc *ga = &g->alloc[i];

        if (ga->used && ga->dying && ga->free_at <= g->fence_done) {
            kgpuva_free_backing(g, ga);
        }
    }
    /* contexts held by vidsch_wait on fence_done may go now (the caller
     * tells the scheduler) */
    return true;
}
