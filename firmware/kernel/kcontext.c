/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contexts (kcontext.h): creation with the scheduler's context and a save
 * area, and destruction, which the reaper (kernel.c) finishes once
 * vidsch let go and the context's buffers are done.
 */
#include "kernel/kcontext.h"

#include <copro/copro_cmd.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kquota.h"

static void fill_zero(volatile void *cpu, uint64_t bytes)
{
    volatile uint64_t *q = cpu;

    for (uint64_t i = 0; i < bytes / 8; i++) {
        q[i] = 0;
    }
}

int kcontext_create(struct kproc *p, struct kdevice *dev, unsigned engine,
                    enum vidsch_priority prio, struct kcontext **out)
{
    struct kcontext *c = NULL;
    struct kernel *k = p->k;
    uint64_t save;
    int st;

    if (dev->removed) {
        return DDI_ELOST;
    }
    if (engine >= k->caps.engines || (unsigned)prio >= VIDSCH_PRIO_COUNT) {
        return DDI_EINVAL;
    }
    /* REALTIME preempts everything, the compositor included: Windows
     * asks SeIncreaseBasePriorityPrivilege for it */
    if (prio == VIDSCH_PRIO_REALTIME &&
        !kiso_privileged(p, KAPI_PRIV_REALTIME)) {
        return DDI_EACCESS;
    }
    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS && !c; i++) {
        if (!k->contexts[i].used) {
            c = &k->contexts[i];
        }
    }
    if (!c) {
        return DDI_ENOMEM;
    }
    st = kquota_charge(k, p, KQ_CONTEXTS, 1);
    /* GPU-VA mode: a page of its own, the only writable page of the
     * kernel's VRAM in the process's space */
    if (st == DDI_OK) {
        st = kquota_seg_alloc(k, p, dev->gpuva ? KGPUVA_SAVE_BYTES
                                               : COPRO_SAVE_SIZE,
                              dev->gpuva ? KGPUVA_SAVE_BYTES
                                         : KERNEL_ALLOC_ALIGN, &save);
        if (st != DDI_OK) {
            kquota_uncharge(k, p, KQ_CONTEXTS, 1);
        }
    }
    if (st != DDI_OK) {
        return st;
    }
    /* A zeroed save area has no magic: a RESUME before any preemption
     * fails on the device instead of resuming garbage. */
    fill_zero(vidmm_segment_cpu(&k->seg, save), COPRO_SAVE_SIZE);
    *c = (struct kcontext){
        .used = true, .dev = dev, .proc = p, .hw_id = k->next_hw_ctx++,
        .engine = engine, .prio = prio, .save_gpu = save,
    };
    c->vctx = vidsch_ctx_create(k->vs, c->hw_id, engine, prio, save);
    /* a device removed stops all of its contexts, not the guilty one
     * alone: vidsch loses them together (vidsch_ctx_set_device) */
    vidsch_ctx_set_device(c->vctx, (uint32_t)(dev - k->devices) + 1);
    st = c->vctx ? DDI_OK : DDI_ENOMEM;
    if (st == DDI_OK && dev->gpuva) {
        /* it runs in the process's address space from its first buffer */
        st = kgpuva_context_bind(k, p, c->hw_id, save);
        if (st != DDI_OK) {
            /* Nothing was submitted: the scheduler lets go at once. */
            vidsch_ctx_destroy(k->vs, c->vctx);
        }
    }
    if (st != DDI_OK) {
        kquota_seg_free(k, p, save);
        kquota_uncharge(k, p, KQ_CONTEXTS, 1);
        *c = (struct kcontext){ 0 };
        return st;
    }
    dev->contexts++;
    *out = c;
    return DDI_OK;
}

void kcontext_destroy(struct kernel *k, struct kcontext *c)
{
    c->destroying = true;
    k->reap_contexts = true;
    kqueue_push(&k->ev.work, &k->reap_work);
}

void kcontext_close(struct kproc *p, uint32_t hcontext, struct kcontext *c)
{
    handle_free(&p->handles, hcontext, HANDLE_CONTEXT);
    kcontext_destroy(p->k, c);
}
