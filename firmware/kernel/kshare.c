/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sharing between processes [D3DKMTShareObjects, the NT-handle model]:
 * global names for allocations and sync objects, the creator's grants to
 * named processes with access rights (kernel/kisolate.h), and opening a
 * granted name into a handle of the caller's (kapi.h).
 */
#include "kernel/kapi.h"

#include <stddef.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kexit.h"
#include "kernel/kisolate.h"

/*
 * Sharing [D3DKMTShareObjects]: an object's global name is its slot in
 * k->shared, tagged and with the slot's generation, so a name of a freed
 * object never names its successor. share_name gives obj (of type, whose
 * name field is *shared_name, created by process creator) its name, the
 * one it has or a new one. A new name is charged to the creator
 * (KQ_SHARED: whoever asks, the name lives as long as the object, which
 * is the creator's) and given back when the object goes
 * (kernel_unshare).
 */
static int share_name(struct kernel *k, void *obj, enum handle_type type,
                      struct kproc *creator, uint32_t *shared_name,
                      uint32_t *name)
{
    int st;

    if (*shared_name) {
        *name = *shared_name;
        return DDI_OK;
    }
    st = kquota_charge(k, creator, KQ_SHARED, 1);
    if (st != DDI_OK) {
        return st;
    }
    for (unsigned i = 0; i < KERNEL_MAX_SHARED; i++) {
        if (!k->shared[i].obj) {
            k->shared[i].charged = creator;
            k->shared[i].obj = obj;
            k->shared[i].type = type;
            k->shared[i].gen = (uint16_t)(k->shared[i].gen + 1);
            *shared_name = SHARED_TAG | ((uint32_t)k->shared[i].gen << 8) | i;
            *name = *shared_name;
            return DDI_OK;
        }
    }
    kquota_uncharge(k, creator, KQ_SHARED, 1);  /* charges = slots */
    return DDI_ENOMEM;
}

int kapi_share_allocation(struct kproc *p, uint32_t halloc, uint32_t *name)
{
    struct kalloc *a = get_alloc(p, halloc);

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (!name) {
        return DDI_EINVAL;
    }
    if (a->gv) {
        return DDI_ENOTSUP;     /* a VA is its process's alone */
    }
    return share_name(p->k, a, HANDLE_ALLOCATION, a->owner, &a->shared_name,
                      name);
}

/* Grants the object of type (whose name field is *shared_name, created
 * on dev) to process pid: the creator's process only. */
static int grant(struct kproc *p, void *obj, enum handle_type type,
                 const struct kdevice *dev, uint32_t *shared_name,
                 uint32_t pid, unsigned access)
{
    const unsigned known = KAPI_ACCESS_READ | KAPI_ACCESS_WRITE;
    uint32_t name;
    int st;

    if (!(access & KAPI_ACCESS_READ) || (access & ~known) || !pid) {
        return DDI_EINVAL;
    }
    if (dev->proc != p) {
        return DDI_EACCESS;     /* an opener cannot pass it on */
    }
    st = share_name(p->k, obj, type, p, shared_name, &name);
    return st == DDI_OK ? kiso_grant(p->k, p, name, pid, access) : st;
}

int kapi_grant_allocation(struct kproc *p, uint32_t halloc, uint32_t pid,
                          unsigned access)
{
    struct kalloc *a = get_alloc(p, halloc);

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (a->gv) {
        return DDI_ENOTSUP;
    }
    return grant(p, a, HANDLE_ALLOCATION, a->dev, &a->shared_name, pid,
                 access);
}

/* The access p may open name with: the creator's process all of it,
 * another only what it was granted (0: nothing). */
static unsigned open_access(struct kproc *p, const struct kdevice *creator,
                            uint32_t name)
{
    if (creator->proc == p) {
        return KAPI_ACCESS_READ | KAPI_ACCESS_WRITE;
    }
    return kiso_granted(p->k, name, p);
}

/*
 * Open the object of @type that the shared @name names on @hdevice: a new
 * handle in p's table with the access its grant gives (the creator has
 * all), noted for p's exit. *obj and *dev are what was opened and on
 * which device; the caller takes its reference. Not granted is as if the
 * name named nothing (DDI_EHANDLE: no oracle).
 */
static int open_shared(struct kproc *p, uint32_t hdevice, uint32_t name,
                       enum handle_type type, uint32_t *h, void **obj,
                       struct kdevice **dev)
{
    const struct kdevice *creator;
    unsigned access;
    int st;

    *dev = get_device(p, hdevice);
    if (!*dev) {
        return DDI_EHANDLE;
    }
    if ((*dev)->removed) {
        return DDI_ELOST;
    }
    if (!h) {
        return DDI_EINVAL;
    }
    *obj = kernel_shared_object(p->k, name, type);
    if (!*obj) {
        return DDI_EHANDLE;
    }
    creator = type == HANDLE_ALLOCATION ? ((struct kalloc *)*obj)->dev
                                        : ((struct ksync *)*obj)->dev;
    access = open_access(p, creator, name);
    if (!access) {
        return DDI_EHANDLE;
    }
    st = handle_alloc(&p->handles, type, *obj, h);
    if (st == DDI_OK) {
        kiso_handle_new(p, *h, access);
        kexit_note_open(p, *h, *dev);
    }
    return st;
}

int kapi_open_allocation(struct kproc *p, uint32_t hdevice, uint32_t name,
                         uint32_t *halloc)
{
    struct kdevice *dev;
    void *a;
    int st;

    /* admitted first: a refused call (a trim callback's) changes nothing */
    KCALL(p, KCALL_CHANGE);

    st = open_shared(p, hdevice, name, HANDLE_ALLOCATION, halloc, &a, &dev);
    if (st == DDI_OK) {
        ((struct kalloc *)a)->refs++;
    }
    return st;
}

int kapi_share_sync(struct kproc *p, uint32_t hsync, uint32_t *name)
{
    struct ksync *s = get_sync(p, hsync);

    KCALL(p, KCALL_CHANGE);

    if (!s) {
        return DDI_EHANDLE;
    }
    if (!name) {
        return DDI_EINVAL;
    }
    return share_name(p->k, s, HANDLE_SYNC, s->dev->proc, &s->shared_name,
                      name);
}

int kapi_grant_sync(struct kproc *p, uint32_t hsync, uint32_t pid,
                    unsigned access)
{
    struct ksync *s = get_sync(p, hsync);

    KCALL(p, KCALL_CHANGE);

    if (!s) {
        return DDI_EHANDLE;
    }
    return grant(p, s, HANDLE_SYNC, s->dev, &s->shared_name, pid, access);
}

int kapi_open_sync(struct kproc *p, uint32_t hdevice, uint32_t name,
                   uint32_t *hsync)
{
    struct kdevice *dev;
    void *obj;
    int st;

    KCALL(p, KCALL_CHANGE);

    st = open_shared(p, hdevice, name, HANDLE_SYNC, hsync, &obj, &dev);
    if (st == DDI_OK) {
        struct ksync *s = obj;

        s->refs++;
        /* this device's contexts may now wait on it: it is not freed
         * while they exist */
        s->devs |= 1u << (dev - p->k->devices);
    }
    return st;
}
