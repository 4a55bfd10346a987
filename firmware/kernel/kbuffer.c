/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DMA buffers (kbuffer.h): a render validated, copied into VRAM by the
 * driver and queued to the scheduler, and the record dropped with what it
 * holds once the buffer retired (or never ran).
 */
#include "kernel/kbuffer.h"

#include <copro/copro_cmd.h>

#include "kernel/kalloc.h"
#include "kernel/kdma.h"
#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kisolate.h"
#include "kernel/kmem.h"
#include "kernel/kquota.h"

static struct kbuffer *new_buffer(struct kernel *k)
{
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        if (!k->buffers[i].used) {
            return &k->buffers[i];
        }
    }
    return NULL;
}

int kbuffer_render(struct kproc *p, struct kcontext *c,
                   const struct kapi_render_args *a)
{
    struct ddi_render_args args;
    struct kbuffer *kb;
    struct kernel *k;
    uint64_t dma;
    int st;

    if (c->dev->removed) {
        return DDI_ELOST;
    }
    if (c->error) {
        return c->error;
    }
    k = p->k;
    if (!a || !a->cmd || a->cmd_bytes == 0 || a->cmd_bytes % 4 ||
        a->cmd_bytes > k->caps.max_dma_bytes ||
        a->nalloc > DDI_MAX_ALLOC_LIST || a->npatch > DDI_MAX_PATCH_LIST ||
        (a->nalloc && !a->alloc) || (a->npatch && !a->patch)) {
        k->stats.render_refusals++;
        k->stats.last_refusal = DDI_EINVAL;
        return DDI_EINVAL;
    }
    /* GPU-VA mode: addresses are the process's VAs, no lists */
    if (c->dev->gpuva && (a->nalloc || a->npatch)) {
        k->stats.render_refusals++;
        k->stats.last_refusal = DDI_EINVAL;
        return DDI_EINVAL;
    }
    /* a full table is work in flight too: wait for one's retirement */
    kb = new_buffer(k);
    if (!kb) {
        return kthrottle_refused(k, p, DDI_ENOMEM);
    }
    kb->dmabuf.nalloc = 0;
    for (unsigned i = 0; i < a->nalloc; i++) {
        struct kalloc *al = get_alloc(p, a->alloc[i].handle);

        if (!al) {
            k->stats.render_refusals++;
            k->stats.last_refusal = DDI_EHANDLE;
            return DDI_EHANDLE;
        }
        if (a->alloc[i].write &&
            !kiso_may(p, a->alloc[i].handle, KAPI_ACCESS_WRITE)) {
            k->stats.render_refusals++;
            k->stats.last_refusal = DDI_EACCESS;
            return DDI_EACCESS;     /* opened read-only */
        }
        kb->alloc[i] = al;
        kb->desc[i] = (struct ddi_alloc_desc){
            .size = al->size, .gpu_addr = al->gpu,
            .cpu_visible = al->cpu_visible,
        };
    }
    /* the buffer record and its copy in VRAM are the process's to pay
     * for (kquota.h); in GPU-VA mode the copy goes to the process's own
     * arena, the only OS VRAM its space maps (bounded by its size) */
    kb->placement = (uint8_t)kdma_placement(k, p, a->placement,
                                            c->dev->gpuva, a->nalloc);
    kb->dma_vm = 0;
    st = a->placement >= KAPI_DMA_PLACEMENTS ? DDI_EINVAL
         : kquota_charge(k, p, KQ_BUFFERS, 1);
    if (st == DDI_EINVAL) {
        k->stats.render_refusals++;
        k->stats.last_refusal = st;
        return st;
    }
    dma = 0;
    if (st == DDI_OK) {
        if (kb->placement != KAPI_DMA_KERNEL) {
            /* pageable: a vidmm allocation of its own (kdma.h) */
            kb->dma_seg = NULL;
            st = kdma_create(k, p, kb, a->cmd_bytes);
        } else if (c->dev->gpuva) {
            kb->dma_seg = kgpuva_dma_segment(k, p);
            st = kb->dma_seg &&
                 vidmm_segment_alloc(kb->dma_seg, a->cmd_bytes,
                                     KERNEL_ALLOC_ALIGN, &dma)
                 ? DDI_OK : DDI_ENOMEM;
        } else {
            kb->dma_seg = &k->seg;
            st = kquota_seg_alloc(k, p, a->cmd_bytes, KERNEL_ALLOC_ALIGN,
                                  &dma);
        }
        if (st != DDI_OK) {
            kquota_uncharge(k, p, KQ_BUFFERS, 1);
        }
    }
    if (st != DDI_OK) {
        /* records and copies are what buffers in flight hold: the
         * process waits for its own to retire (kthrottle.h) */
        return kthrottle_refused(k, p, st);
    }
    if (!kb->dma_vm) {
        kb->dmabuf.dw = (uint32_t *)vidmm_segment_cpu(kb->dma_seg, dma);
        kb->dmabuf.gpu_addr = dma;
        kb->dmabuf.cap_bytes = a->cmd_bytes;
        if (kb->dma_seg == &k->seg) {
            k->stats.dma_kseg_bytes += a->cmd_bytes;
            if (k->stats.dma_kseg_bytes > k->stats.dma_kseg_peak) {
                k->stats.dma_kseg_peak = k->stats.dma_kseg_bytes;
            }
        }
    }
    args = (struct ddi_render_args){
        .engine = c->engine, .cmd = a->cmd, .cmd_bytes = a->cmd_bytes,
        .alloc = a->alloc, .nalloc = a->nalloc, .patch = a->patch,
        .npatch = a->npatch, .alloc_desc = kb->desc,
        .gpuva = c->dev->gpuva,
    };
    st = k->dev.ops->render(k->dev.drv, &args, &kb->dmabuf);
    kdma_filled(k, kb);
    if (st != DDI_OK) {
        if (kb->dma_vm) {
            kdma_free(k, p, kb);
        } else if (kb->dma_seg == &k->seg) {
            kquota_seg_free(k, p, dma);
            k->stats.dma_kseg_bytes -= a->cmd_bytes;
        } else {
            vidmm_segment_free(kb->dma_seg, dma);
        }
        kquota_uncharge(k, p, KQ_BUFFERS, 1);
        kb->dmabuf.nalloc = 0;
        k->stats.render_refusals++;
        k->stats.last_refusal = st;
        return st;
    }
    kmem_render_list(k, kb);
    kb->used = true;
    kb->done = false;
    kb->seq = ++k->seq;
    kb->ctx = c;
    kb->dma_gpu = dma;
    for (unsigned i = 0; i < kb->dmabuf.nalloc; i++) {
        kb->alloc[i]->busy++;
    }
    c->inflight++;
    /* before vidsch_submit: the scheduler may elect it at once */
    kernel_mark(k, COPRO_MARK_QUEUE, c->engine, c->hw_id,
                (uint64_t)(uintptr_t)kb, kb->dmabuf.len_bytes);
    st = vidsch_submit(k->vs, c->vctx, &kb->dmabuf, kb->desc,
                       (uint64_t)(uintptr_t)kb);
    kernel_after_vidsch(k);
    if (st != DDI_OK) {
        kernel_mark(k, COPRO_MARK_DONE, c->engine, c->hw_id,
                    (uint64_t)(uintptr_t)kb, (uint64_t)(int64_t)st);
        kbuffer_free(k, kb);
        return st;
    }
    k->stats.renders++;
    return DDI_OK;
}

void kbuffer_free(struct kernel *k, struct kbuffer *kb)
{
    bool gpuva = kb->ctx && kb->ctx->dev && kb->ctx->dev->gpuva;

    for (unsigned j = 0; j < kb->dmabuf.nalloc; j++) {
        if (kb->alloc[j]) {
            kb->alloc[j]->busy--;
            kalloc_release(k, kb->alloc[j]);
        }
    }
    if (kb->dma_vm) {
        kdma_free(k, kb->ctx ? kb->ctx->proc : NULL, kb);
    } else if (kb->dma_gpu) {
        /* a GPU-VA process's arena is bounded by its own size */
        if (kb->dma_seg == &k->seg) {
            kquota_seg_free(k, kb->ctx->proc, kb->dma_gpu);
            k->stats.dma_kseg_bytes -= kb->dmabuf.cap_bytes;
        } else {
            vidmm_segment_free(kb->dma_seg, kb->dma_gpu);
        }
    }
    if (kb->ctx) {
        kquota_uncharge(k, kb->ctx->proc, KQ_BUFFERS, 1);
        kb->ctx->inflight--;
        /* room for a throttled call of its process (kthrottle.h) */
        kb->ctx->proc->retired++;
    }
    kb->used = false;
    kb->done = false;
    kb->ctx = NULL;
    kb->dma_gpu = 0;
    kb->dmabuf.nalloc = 0;
    if (gpuva) {
        /* what its process evicted meanwhile may go now */
        kgpuva_vram_settle(k);
    }
}
