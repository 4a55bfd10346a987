/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kscene.h"

#include <stddef.h>

#include <copro/copro_tiler.h>

#include "kernel/kapi.h"
#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "lib/string.h"

/* The record still names a live allocation of its process at its VA:
 * one destroyed since (its handle gone or reused) is not trusted. */
static bool pb_live(struct kscene_pb *r)
{
    uint64_t va;

    return r->used && r->proc && r->proc->used &&
           r->proc->id == r->proc_id &&
           kapi_gpu_va(r->proc, r->halloc, &va) == DDI_OK &&
           va == r->pb.va;
}

/* What the process's parameter buffers may still grow by. */
static uint64_t budget_left(struct kernel *k, struct kproc *p)
{
    uint64_t sum = 0, budget = 0;

    for (unsigned i = 0; i < KSCENE_MAX_PB; i++) {
        struct kscene_pb *r = &k->scene.pb[i];

        if (r->proc == p && pb_live(r)) {
            sum += r->pb.size;
            budget = r->budget;
        }
    }
    return budget > sum ? budget - sum : 0;
}

int kapi_create_scene_pb(struct kproc *p, uint32_t hdevice,
                         const struct kapi_scene_pb_desc *d,
                         uint32_t *halloc, uint64_t *va)
{
    struct kernel *k = p ? p->k : NULL;
    struct kdevice *dev = get_device(p, hdevice);
    struct kscene_pb *slot = NULL;
    struct kapi_alloc_desc ad;
    struct vidmm_pb pb;
    uint32_t h;
    uint64_t at;
    int st;

    if (!dev || !halloc || !va || !d) {
        return dev ? DDI_EINVAL : DDI_EHANDLE;
    }
    if (!dev->gpuva) {
        return DDI_ENOTSUP;
    }
    for (unsigned i = 0; i < KSCENE_MAX_PB && !slot; i++) {
        if (!pb_live(&k->scene.pb[i])) {
            slot = &k->scene.pb[i];
        }
    }
    if (!slot) {
        return DDI_ENOMEM;
    }
    /* checked before anything is made (va 0 stands for any 8-aligned) */
    st = vidmm_pb_init(&pb, 0, d->tiles, d->size, d->reserved, d->step);
    if (st != DDI_OK || d->budget < d->size) {
        return DDI_EINVAL;
    }
    ad = (struct kapi_alloc_desc){
        .size = d->reserved, .cpu_visible = true, .zeroed = true,
    };
    st = kapi_create_allocation(p, hdevice, &ad, &h);
    if (st != DDI_OK) {
        return st;
    }
    st = kapi_gpu_va(p, h, &at);
    if (st == DDI_OK) {
        st = vidmm_pb_init(&pb, at, d->tiles, d->size, d->reserved,
                           d->step);
    }
    if (st != DDI_OK) {
        kapi_destroy_allocation(p, h);
        return st;
    }
    *slot = (struct kscene_pb){
        .used = true, .proc = p, .proc_id = p->id, .halloc = h, .pb = pb,
        .budget = d->budget,
    };
    *halloc = h;
    *va = at;
    return DDI_OK;
}

int kapi_scene_pb_stats(struct kproc *p, uint32_t halloc,
                        struct vidmm_pb *out)
{
    struct kernel *k = p ? p->k : NULL;

    for (unsigned i = 0; k && i < KSCENE_MAX_PB; i++) {
        struct kscene_pb *r = &k->scene.pb[i];

        if (r->proc == p && r->halloc == halloc && pb_live(r)) {
            *out = r->pb;
            return DDI_OK;
        }
    }
    return DDI_EHANDLE;
}

int kernel_scene_oom(void *os, uint64_t cookie, uint32_t context,
                     uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait)
{
    struct kernel *k = os;
    struct kbuffer *kb = (struct kbuffer *)(uintptr_t)cookie;
    const volatile struct copro_save_record *rec;
    struct copro_save_tiler st;
    struct kscene_pb *r = NULL;
    volatile struct copro_scene *h;
    volatile void *cpu;
    struct kproc *p;
    enum vidmm_pb_answer ans;
    uint32_t new_size = 0;

    (void)save_addr;    /* the kernel's own record of it is used */
    (void)wait;         /* PARTIAL is not answered yet */
    k->scene.ooms++;
    if (kb < k->buffers || kb >= k->buffers + KERNEL_MAX_BUFFERS ||
        !kb->used || !kb->ctx || kb->ctx->hw_id != context) {
        k->scene.refused++;
        return VIDSCH_OOM_FAIL;
    }
    p = kb->ctx->proc;
    rec = vidmm_segment_cpu(&k->seg, kb->ctx->save_gpu);
    memcpy(&st, (const void *)rec->reserved, sizeof(st));
    for (unsigned i = 0; i < KSCENE_MAX_PB && !r; i++) {
        struct kscene_pb *x = &k->scene.pb[i];

        if (x->proc == p && x->pb.va == st.scene && pb_live(x)) {
            r = x;
        }
    }
    /* the scene is in a parameter buffer the kernel made (and on the
     * device: resident, so the CPU sees it where the GPU wrote it) */
    if (!r || !(st.flags & COPRO_SAVE_TILER_OOM) ||
        kapi_lock(p, r->halloc, KAPI_LOCK_IGNORESYNC, &cpu) != DDI_OK) {
        k->scene.refused++;
        return VIDSCH_OOM_FAIL;
    }
    h = cpu;
    ans = vidmm_pb_oom(&r->pb, h->used, need, budget_left(k, p), &new_size);
    if (ans == VIDMM_PB_GROW) {
        /* the pages are there (the reservation is committed): raising
         * the limit is the grow */
        h->pb_size = new_size;
        k->scene.grows++;
    } else {
        k->scene.refused++;
    }
    kapi_unlock(p, r->halloc);
    return ans == VIDMM_PB_GROW ? VIDSCH_OOM_RESUME : VIDSCH_OOM_FAIL;
}
