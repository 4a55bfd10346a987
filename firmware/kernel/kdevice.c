/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Devices (kdevice.h): creation, in either mode, and destruction, which
 * takes the process's contexts, allocations and sync objects on the
 * device with it. The record itself goes once nothing names it (the
 * reaper, kernel.c).
 */
#include "kernel/kdevice.h"

#include "kernel/kalloc.h"
#include "kernel/kcontext.h"
#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kexit.h"
#include "kernel/kquota.h"
#include "kernel/ksync.h"

int kdevice_create(struct kproc *p, uint32_t *hdevice)
{
    struct kernel *k;

    if (!kproc_live(p) || !hdevice) {
        return DDI_EINVAL;
    }
    k = p->k;
    for (unsigned i = 0; i < KERNEL_MAX_DEVICES; i++) {
        struct kdevice *d = &k->devices[i];

        if (!d->used) {
            int st = kquota_charge(k, p, KQ_DEVICES, 1);

            if (st == DDI_OK) {
                st = handle_alloc(&p->handles, HANDLE_DEVICE, d, hdevice);
                if (st != DDI_OK) {
                    kquota_uncharge(k, p, KQ_DEVICES, 1);
                }
            }
            if (st == DDI_OK) {
                *d = (struct kdevice){ .used = true, .proc = p };
            }
            return st;
        }
    }
    return DDI_ENOMEM;
}

struct destroy_walk {
    struct kproc *p;
    struct kdevice *dev;
};

static void destroy_child(void *arg, uint32_t h, void *obj)
{
    struct destroy_walk *w = arg;

    switch (handle_type_of(h)) {
    case HANDLE_CONTEXT:
        if (((struct kcontext *)obj)->dev == w->dev) {
            struct kcontext *c = get_context(w->p, h);

            if (c) {
                kcontext_close(w->p, h, c);
            }
        }
        break;
    case HANDLE_ALLOCATION:
        /* created on it, or opened on it (a shared one) */
        if (((struct kalloc *)obj)->dev == w->dev ||
            kexit_opened_on(w->p, h) == w->dev) {
            struct kalloc *a = get_alloc(w->p, h);

            if (a) {
                kalloc_close(w->p, h, a);
            }
        }
        break;
    case HANDLE_SYNC:
        if (((struct ksync *)obj)->dev == w->dev ||
            kexit_opened_on(w->p, h) == w->dev) {
            struct ksync *s = get_sync(w->p, h);

            if (s) {
                ksync_close(w->p, h, s);
            }
        }
        break;
    default:
        break;
    }
}

void kdevice_destroy(struct kproc *p, uint32_t hdevice, struct kdevice *dev)
{
    struct destroy_walk w = { p, dev };

    kdisplay_device_gone(p->k, dev);
    if (dev->gpuva) {
        /* its allocations' page-outs and unmaps in one paging buffer */
        kgpuva_bulk(p->k, true);
    }
    handle_for_each(&p->handles, HANDLE_NONE, destroy_child, &w);
    /* the kernel's own contexts on it (no handle names them) */
    kscene_device_gone(p->k, dev);
    if (dev->gpuva) {
        kgpuva_bulk(p->k, false);
        /* its references go with it (allocations were destroyed above) */
        kgpuva_device_destroy(p->k, (unsigned)(dev - p->k->devices));
    }
    handle_free(&p->handles, hdevice, HANDLE_DEVICE);
    dev->destroyed = true;
    p->k->reap_objects = true;
    kqueue_push(&p->k->ev.work, &p->k->reap_work);
}

int kdevice_create_gpuva(struct kproc *p, uint32_t *hdevice)
{
    struct kdevice *d;
    int st;

    if (!kproc_live(p) || !hdevice) {
        return DDI_EINVAL;
    }
    if (!p->k->gpuva.on) {
        return DDI_ENOTSUP;
    }
    st = kdevice_create(p, hdevice);
    if (st != DDI_OK) {
        return st;
    }
    d = get_device(p, *hdevice);
    st = kgpuva_device_create(p->k, p, (unsigned)(d - p->k->devices));
    if (st != DDI_OK) {
        kdevice_destroy(p, *hdevice, d);
        return st;
    }
    d->gpuva = true;
    return DDI_OK;
}
