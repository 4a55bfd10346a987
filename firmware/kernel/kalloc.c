/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Allocations (kalloc.h): creation in either mode, a handle's close, the
 * release of the record once nothing names or uses it, and CPU locks.
 * Where the memory is (the kernel's segment, vidmm, a GPU-VA arena) is
 * kmem.c's and kgpuva.c's.
 */
#include "kernel/kalloc.h"

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kexit.h"
#include "kernel/kisolate.h"
#include "kernel/kmem.h"
#include "kernel/kquota.h"
#include "kernel/kwait.h"

int kalloc_create(struct kproc *p, struct kdevice *dev,
                  const struct kapi_alloc_desc *d, uint32_t *halloc)
{
    struct kalloc *a = NULL;
    struct kernel *k;
    int st;

    if (dev->removed) {
        return DDI_ELOST;
    }
    k = p->k;
    /* larger than all the VRAM it could ever have at once: refused (an
     * oversubscribed OS accepts many that do not fit together) */
    if (!d || !halloc || d->size == 0 || d->size > kernel_app_vram_bytes(k)) {
        return DDI_EINVAL;
    }
    if (dev->gpuva && d->primary) {
        return DDI_ENOTSUP;
    }
    if (d->primary && !kdisplay_primary_fits(k, d->size)) {
        return kdisplay_source(k, 0) ? DDI_EINVAL : DDI_ENOTSUP;
    }
    for (unsigned i = 0; i < KERNEL_MAX_ALLOCS && !a; i++) {
        if (!k->allocs[i].used) {
            a = &k->allocs[i];
        }
    }
    if (!a) {
        return DDI_ENOMEM;
    }
    *a = (struct kalloc){
        .dev = dev, .size = d->size, .cpu_visible = d->cpu_visible,
        .refs = 1, .primary = d->primary, .owner = p,
        .owner_gpuva = dev->gpuva,
    };
    st = kquota_alloc_charge(k, a);
    if (st != DDI_OK) {
        *a = (struct kalloc){ 0 };
        return st;
    }
    if (dev->gpuva) {
        /* the residency record is keyed by the handle: handle first */
        st = handle_alloc(&p->handles, HANDLE_ALLOCATION, a, halloc);
        if (st == DDI_OK) {
            st = kgpuva_alloc_create(k, p, *halloc, d->size, d->zeroed,
                                     &a->gv);
            if (st != DDI_OK) {
                handle_free(&p->handles, *halloc, HANDLE_ALLOCATION);
            }
        }
        if (st != DDI_OK) {
            kquota_alloc_uncharge(k, a);
            *a = (struct kalloc){ 0 };
            return st;
        }
        kiso_handle_new(p, *halloc, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
        a->used = true;
        return DDI_OK;
    }
    st = kmem_alloc_create(k, a, d);
    if (st != DDI_OK) {
        kquota_alloc_uncharge(k, a);
        *a = (struct kalloc){ 0 };
        return st;
    }
    st = handle_alloc(&p->handles, HANDLE_ALLOCATION, a, halloc);
    if (st != DDI_OK) {
        kmem_alloc_free(k, a);      /* new: nothing moves it yet */
        kquota_alloc_uncharge(k, a);
        *a = (struct kalloc){ 0 };
        return st;
    }
    kiso_handle_new(p, *halloc, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    a->used = true;
    return DDI_OK;
}

void kalloc_close(struct kproc *p, uint32_t halloc, struct kalloc *a)
{
    kiso_handle_gone(p, halloc);
    /* the locks taken through this handle go with it (a process that
     * dies holding one does not pin the allocation for ever), never
     * another handle's */
    for (unsigned n = kexit_take_locks(p, halloc); n && a->locks; n--) {
        a->locks--;
        kmem_unlock(p->k, a);
    }
    kvamap_handle_gone(p->k, p, halloc);
    handle_free(&p->handles, halloc, HANDLE_ALLOCATION);
    kexit_handle_gone(p, halloc);
    kwait_fail_on(p->k, p, a);
    a->refs--;
    /* Freed now if no buffer in flight uses it, else when the last one
     * retires (WDDM defers the destruction the same way). */
    kalloc_release(p->k, a);
}

void kalloc_release(struct kernel *k, struct kalloc *a)
{
    if (a->refs || a->busy || a->scanout) {
        return;
    }
    kernel_unshare(k, a, &a->shared_name);
    while (a->locks) {
        kmem_unlock(k, a);      /* the CPU's pointers died with the handles */
        a->locks--;
    }
    if (kmem_alloc_free(k, a) != DDI_OK) {
        /* vidmm is moving it (a paging buffer in flight): unreachable
         * already, freed by the reaper once one retires */
        a->dying = true;
        k->reap_allocs = true;
        return;
    }
    kquota_alloc_uncharge(k, a);
    if (a->dev && a->dev->destroyed) {
        /* it may have been the last record naming its device */
        k->reap_objects = true;
        kqueue_push(&k->ev.work, &k->reap_work);
    }
    *a = (struct kalloc){ 0 };
}

bool kalloc_lock_ready(const struct kernel *k, const struct kalloc *a,
                       uint64_t seq)
{
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        const struct kbuffer *kb = &k->buffers[i];

        if (!kb->used || kb->done || kb->seq > seq) {
            continue;
        }
        for (unsigned j = 0; j < kb->dmabuf.nalloc; j++) {
            if (kb->alloc[j] == a) {
                return false;
            }
        }
    }
    return true;
}

int kalloc_lock(struct kproc *p, uint32_t halloc, struct kalloc *a,
                unsigned flags, volatile void **cpu)
{
    const unsigned known = KAPI_LOCK_DONOTWAIT | KAPI_LOCK_IGNORESYNC;
    int st;

    if (!cpu || !a->cpu_visible || (flags & ~known) || !(flags & known)) {
        return DDI_EINVAL;
    }
    if (!kiso_may(p, halloc, KAPI_ACCESS_WRITE)) {
        return DDI_EACCESS;     /* a lock maps it writable */
    }
    if (a->gv && !(flags & KAPI_LOCK_IGNORESYNC)) {
        return DDI_EINVAL;  /* no lists: only the caller knows GPU use */
    }
    if (!(flags & KAPI_LOCK_IGNORESYNC) &&
        !kalloc_lock_ready(p->k, a, p->k->seq)) {
        return DDI_EBUSY;
    }
    st = kmem_lock(p->k, a, cpu);
    if (st == DDI_OK) {
        a->locks++;
        kexit_note_lock(p, halloc, 1);
    }
    return st;
}

int kalloc_unlock(struct kproc *p, uint32_t halloc, struct kalloc *a)
{
    /* per handle: only a lock this handle took (an opener cannot
     * release the owner's and let vidmm move it under its pointer) */
    if (a->locks == 0 || !kiso_lock_held(p, halloc)) {
        return DDI_EINVAL;
    }
    a->locks--;
    kmem_unlock(p->k, a);
    kexit_note_lock(p, halloc, -1);
    return DDI_OK;
}

int kalloc_gpu_va(const struct kalloc *a, uint64_t *va)
{
    if (!va || !a->gv) {
        return DDI_EINVAL;
    }
    *va = a->gv->va;
    return DDI_OK;
}
