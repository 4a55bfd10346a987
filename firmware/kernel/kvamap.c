/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kvamap.h"

#include <stddef.h>

#include "kernel/kernel_internal.h"
#include "kernel/kmem.h"
#include "kernel/kquota.h"

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

/* One view of handle h (allocation a): *va, and its paging fence
 * raised into *fence. */
static int map_one(struct kernel *k, struct kproc *p, uint32_t h,
                   struct kalloc *a, uint64_t *va, uint64_t *fence)
{
    struct kvamap *m = view_of(k, p, h);
    uint64_t vram, bytes, f = 0;
    int st;

    if (m) {
        *va = m->va;
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
    st = kquota_charge(k, p, KQ_VIEWS, 1);
    if (st != DDI_OK) {
        return st;
    }
    st = kmem_pin_vram(k, a, &vram, &bytes);
    if (st != DDI_OK) {
        kquota_uncharge(k, p, KQ_VIEWS, 1);
        return st;
    }
    *m = (struct kvamap){
        .proc = p, .h = h, .alloc = a, .pinned = a->primary ? 0 : bytes,
    };
    st = m->pinned ? kquota_charge(k, p, KQ_PINNED, m->pinned) : DDI_OK;
    if (st == DDI_OK) {
        st = kgpuva_view_map(k, p, vram, bytes,
                             kiso_may(p, h, KAPI_ACCESS_WRITE), va, &f);
        if (st != DDI_OK && m->pinned) {
            kquota_uncharge(k, p, KQ_PINNED, m->pinned);
        }
    }
    if (st != DDI_OK) {
        kmem_unpin_vram(k, a);
        kquota_uncharge(k, p, KQ_VIEWS, 1);
        *m = (struct kvamap){ 0 };
        return st;
    }
    m->used = true;
    m->va = *va;
    a->refs++;
    *fence = f > *fence ? f : *fence;
    return DDI_OK;
}

static void release(struct kernel *k, struct kvamap *m)
{
    struct kalloc *a = m->alloc;

    kmem_unpin_vram(k, a);
    if (m->pinned) {
        kquota_uncharge(k, m->proc, KQ_PINNED, m->pinned);
    }
    kquota_uncharge(k, m->proc, KQ_VIEWS, 1);
    *m = (struct kvamap){ 0 };
    a->refs--;
    kalloc_release(k, a);
}

void kvamap_handle_gone(struct kernel *k, struct kproc *p, uint32_t h)
{
    struct kvamap *m = view_of(k, p, h);
    uint64_t fence = 0;

    if (!m) {
        return;
    }
    m->dying = true;
    if (kgpuva_view_unmap(k, p, m->va, &fence) != DDI_OK) {
        /* no paging buffer free now (an exit unmapping many views while
         * the copy engine is busy): the entries stay, the allocation and
         * the view's charges with them, until kvamap_reap issues the
         * unmap once a paging buffer retired. Never given up: the view
         * would hold its process's record for ever. */
        m->unmap_pending = true;
        m->fence = UINT64_MAX;
        return;
    }
    if (!fence || fence <= k->gpuva.fence_done) {
        release(k, m);
        return;
    }
    m->fence = fence;
}

void kvamap_reap(struct kernel *k)
{
    /* the unmaps still to issue, all in one paging buffer */
    kgpuva_bulk(k, true);
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        struct kvamap *m = &k->vamaps[i];
        uint64_t fence = 0;

        if (m->used && m->unmap_pending &&
            kgpuva_view_unmap(k, m->proc, m->va, &fence) == DDI_OK) {
            m->unmap_pending = false;
            m->fence = fence;
        }
    }
    kgpuva_bulk(k, false);
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        struct kvamap *m = &k->vamaps[i];

        if (m->used && m->dying && !m->unmap_pending &&
            m->fence <= k->gpuva.fence_done) {
            release(k, m);
        }
    }
}

bool kvamap_waiting(const struct kernel *k)
{
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        const struct kvamap *m = &k->vamaps[i];

        if (m->used && m->dying) {
            return true;    /* its unmap retires or is still to issue */
        }
    }
    return false;
}

int kvamap_map(struct kproc *p, struct kdevice *dev, const uint32_t *halloc,
               unsigned n, uint64_t *va, uint64_t *paging_fence)
{
    int st = DDI_OK;

    if (!halloc || !va || !paging_fence || !n || n > KVAMAP_MAX ||
        !dev->gpuva) {
        return DDI_EINVAL;
    }
    if (dev->removed) {
        return DDI_ELOST;
    }
    /* every handle first: a bad one changes nothing */
    for (unsigned i = 0; i < n; i++) {
        const struct kalloc *a = get_alloc(p, halloc[i]);

        if (!a) {
            return DDI_EHANDLE;
        }
        if (a->gv) {
            return DDI_EINVAL;
        }
    }
    *paging_fence = 0;
    for (unsigned i = 0; i < n && st == DDI_OK; i++) {
        st = map_one(p->k, p, halloc[i], get_alloc(p, halloc[i]), &va[i],
                     paging_fence);
    }
    /* the views' entries: one paging buffer for the call */
    kgpuva_flush(p->k);
    return st;
}
