/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kvamap.h"

#include <stddef.h>

#include "kernel/kernel_internal.h"
#include "kernel/kmem.h"

static struct kvamap *view_of(struct kernel *k, const struct kproc *p,
                              uint32_t h)
{
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        struct kvamap *m = &k->vamaps[i];

        if (m->used && !m->dying && m->proc == p && m->h == h) {
            return m;
        }
    }
    return NULL;
}

int kapi_map_gpu_va(struct kproc *p, uint32_t hdevice, uint32_t halloc,
                    uint64_t *va, uint64_t *paging_fence)
{
    struct kdevice *dev = get_device(p, hdevice);
    struct kalloc *a = get_alloc(p, halloc);
    struct kvamap *m = NULL;
    struct kernel *k;
    uint64_t vram, bytes;
    int st;

    if (!dev || !a) {
        return DDI_EHANDLE;
    }
    if (!va || !paging_fence || !dev->gpuva || a->gv) {
        return DDI_EINVAL;
    }
    if (dev->removed) {
        return DDI_ELOST;
    }
    k = p->k;
    m = view_of(k, p, halloc);
    if (m) {
        *va = m->va;
        *paging_fence = 0;
        return DDI_OK;
    }
    for (unsigned i = 0; i < KVAMAP_MAX && !m; i++) {
        if (!k->vamaps[i].used) {
            m = &k->vamaps[i];
        }
    }
    if (!m) {
        return DDI_ENOMEM;
    }
    st = kmem_pin_vram(k, a, &vram, &bytes);
    if (st == DDI_OK) {
        st = kgpuva_view_map(k, p, vram, bytes,
                             kiso_may(p, halloc, KAPI_ACCESS_WRITE), va,
                             paging_fence);
    }
    if (st != DDI_OK) {
        return st;      /* pinned or not, it is freed as any other */
    }
    *m = (struct kvamap){
        .used = true, .proc = p, .h = halloc, .alloc = a, .va = *va,
    };
    a->refs++;
    return DDI_OK;
}

static void release(struct kernel *k, struct kvamap *m)
{
    struct kalloc *a = m->alloc;

    *m = (struct kvamap){ 0 };
    a->refs--;
    kernel_alloc_release(k, a);
}

void kvamap_handle_gone(struct kernel *k, struct kproc *p, uint32_t h)
{
    struct kvamap *m = view_of(k, p, h);
    uint64_t fence = 0;

    if (!m) {
        return;
    }
    if (kgpuva_view_unmap(k, p, m->va, &fence) != DDI_OK) {
        /* the entries stay: the allocation stays with them, for ever
         * (leaked rather than reused under a live mapping) */
        m->dying = true;
        m->fence = UINT64_MAX;
        return;
    }
    if (!fence || fence <= k->gpuva.fence_done) {
        release(k, m);
        return;
    }
    m->dying = true;
    m->fence = fence;
}

void kvamap_reap(struct kernel *k)
{
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        struct kvamap *m = &k->vamaps[i];

        if (m->used && m->dying && m->fence <= k->gpuva.fence_done) {
            release(k, m);
        }
    }
}

bool kvamap_waiting(const struct kernel *k)
{
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        const struct kvamap *m = &k->vamaps[i];

        if (m->used && m->dying && m->fence != UINT64_MAX) {
            return true;
        }
    }
    return false;
}
