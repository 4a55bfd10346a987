/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Back-pressure on work in flight: kthrottle.h says what and why.
 */
#include "kernel/kthrottle.h"

#include <stddef.h>

#include "kernel/kernel.h"

unsigned kthrottle_gpu_syncs(const struct kernel *k, const struct kproc *p)
{
    unsigned n = 0;

    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
        const struct kcontext *c = &k->contexts[i];

        if (c->used && c->proc == p && c->vctx && !c->sched_gone) {
            n += vidsch_ctx_syncs(c->vctx);
        }
    }
    return n;
}

bool kthrottle_in_flight(const struct kernel *k, const struct kproc *p)
{
    return p->quota.used[KQ_BUFFERS] > 0 || kthrottle_gpu_syncs(k, p) > 0;
}

int kthrottle_refused(struct kernel *k, struct kproc *p, int st)
{
    if ((st != DDI_EQUOTA && st != DDI_ENOMEM) ||
        !kthrottle_in_flight(k, p)) {
        return st;
    }
    k->stats.throttled++;
    return DDI_EBUSY;
}

void kthrottle_wait_init(struct kernel *k, struct kproc *p, struct kwait *w)
{
    *w = (struct kwait){
        .kind = KWAIT_THROTTLE, .proc = p,
        .u.throttle = { .retired = p->retired,
                        .syncs = kthrottle_gpu_syncs(k, p) },
    };
}

bool kthrottle_ready(const struct kernel *k, const struct kwait *w)
{
    const struct kproc *p = w->proc;

    return p->retired != w->u.throttle.retired ||
           kthrottle_gpu_syncs(k, p) < w->u.throttle.syncs ||
           !kthrottle_in_flight(k, p);
}
