/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sync objects (ksync.h): creation, with the value in the kernel's
 * segment, and a handle's close; the record goes once the device's
 * contexts are gone (the reaper, kernel.c). Signals and waits are calls
 * (kapi_sync.c).
 */
#include "kernel/ksync.h"

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kexit.h"
#include "kernel/kisolate.h"
#include "kernel/kquota.h"
#include "kernel/kwait.h"

int ksync_create(struct kproc *p, struct kdevice *dev, uint64_t initial,
                 uint32_t *hsync)
{
    struct ksync *s = NULL;
    struct kernel *k;
    uint64_t gpu;
    int st;

    if (dev->removed) {
        return DDI_ELOST;
    }
    if (!hsync) {
        return DDI_EINVAL;
    }
    k = p->k;
    for (unsigned i = 0; i < KERNEL_MAX_SYNCS && !s; i++) {
        if (!k->syncs[i].used) {
            s = &k->syncs[i];
        }
    }
    if (!s) {
        return DDI_ENOMEM;
    }
    /* The value lives in VRAM: the CPU sees it through the segment, and
     * a GPU WAIT or FENCE could address it too. */
    st = kquota_charge(k, p, KQ_SYNCS, 1);
    if (st == DDI_OK) {
        st = kquota_seg_alloc(k, p, 8, KERNEL_ALLOC_ALIGN, &gpu);
        if (st != DDI_OK) {
            kquota_uncharge(k, p, KQ_SYNCS, 1);
        }
    }
    if (st != DDI_OK) {
        return st;
    }
    st = handle_alloc(&p->handles, HANDLE_SYNC, s, hsync);
    if (st != DDI_OK) {
        kquota_seg_free(k, p, gpu);
        kquota_uncharge(k, p, KQ_SYNCS, 1);
        return st;
    }
    *s = (struct ksync){
        .used = true, .dev = dev, .gpu = gpu,
        .cpu = vidmm_segment_cpu(&k->seg, gpu), .refs = 1,
        .devs = 1u << (dev - k->devices), .high = initial,
    };
    *s->cpu = initial;
    kiso_handle_new(p, *hsync, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    return DDI_OK;
}

void ksync_close(struct kproc *p, uint32_t hsync, struct ksync *s)
{
    kiso_handle_gone(p, hsync);
    handle_free(&p->handles, hsync, HANDLE_SYNC);
    kexit_handle_gone(p, hsync);
    kwait_fail_on(p->k, p, s);
    if (--s->refs) {
        return;             /* another process still has it open */
    }
    kernel_unshare(p->k, s, &s->shared_name);
    kdisplay_sync_gone(p->k, s);
    s->zombie = true;
    p->k->reap_objects = true;
    kqueue_push(&p->k->ev.work, &p->k->reap_work);
}
