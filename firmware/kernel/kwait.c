/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Waits (kwait.h): a slot of the kernel's table for a new one, and the
 * failure of a process's waits on an object that goes away. Their
 * delivery is the kernel's work item (kernel.c).
 */
#include "kernel/kwait.h"

#include <stddef.h>

#include "kernel/kernel.h"
#include "kernel/kquota.h"

/* A free wait slot, counted as pending and charged to p: the caller
 * fills it. NULL and *st why not. */
struct kwait *kwait_new(struct kproc *p, int *st)
{
    struct kernel *k = p->k;

    for (unsigned i = 0; i < KERNEL_MAX_WAITS; i++) {
        if (k->waits[i].kind == KWAIT_NONE) {
            *st = kquota_charge(k, p, KQ_WAITS, 1);
            if (*st != DDI_OK) {
                return NULL;
            }
            k->nwaits++;
            return &k->waits[i];
        }
    }
    *st = DDI_ENOMEM;
    return NULL;
}

/* Waits on an object that goes away fail instead of touching it later. */
void kwait_fail_on(struct kernel *k, struct kproc *p, const void *obj)
{
    for (unsigned i = 0; i < KERNEL_MAX_WAITS; i++) {
        struct kwait *w = &k->waits[i];

        if (w->kind == KWAIT_NONE || w->proc != p) {
            continue;
        }
        if ((w->kind == KWAIT_SYNC && w->u.sync.sync == obj) ||
            (w->kind == KWAIT_LOCK && w->u.lock.alloc == obj)) {
            w->fail = DDI_EHANDLE;
            kqueue_push(&k->ev.work, &k->deliver_work);
        }
    }
}
