/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The application API (kapi.h): sync objects (monitored fences), their
 * CPU and GPU signals and waits. As in kapi.c, every handle is resolved
 * and every argument checked before anything changes.
 */
#include "kernel/kapi.h"

#include <stddef.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kexit.h"
#include "kernel/kisolate.h"
#include "kernel/kquota.h"

/* ---- sync objects ---- */

int kapi_create_sync(struct kproc *p, uint32_t hdevice, uint64_t initial,
                     uint32_t *hsync)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return ksync_create(p, dev, initial, hsync);
}

int kapi_destroy_sync(struct kproc *p, uint32_t hsync)
{
    struct ksync *s = get_sync(p, hsync);

    KCALL(p, KCALL_CHANGE);

    if (!s) {
        return DDI_EHANDLE;
    }
    ksync_close(p, hsync, s);
    return DDI_OK;
}

int kapi_sync_value(struct kproc *p, uint32_t hsync, uint64_t *value)
{
    struct ksync *s = get_sync(p, hsync);

    if (!s) {
        return DDI_EHANDLE;
    }
    if (!value) {
        return DDI_EINVAL;
    }
    *value = *s->cpu;
    return DDI_OK;
}

/* DDI_OK, or the code for a call on s once TDR removed its creator's
 * device (the creator's process lost its device; any other is not to
 * blame) or its creator exited (abandoned: whatever was waited for will
 * never come, whenever the wait started). */
static int sync_gone(const struct kproc *p, const struct ksync *s)
{
    if (s->dev->removed) {
        return s->dev->proc == p ? DDI_ELOST : DDI_EABANDONED;
    }
    return s->abandoned ? DDI_EABANDONED : DDI_OK;
}

int kapi_signal_cpu(struct kproc *p, uint32_t hsync, uint64_t value)
{
    struct ksync *s = get_sync(p, hsync);

    KCALL(p, KCALL_CHANGE);

    if (!s) {
        return DDI_EHANDLE;
    }
    if (sync_gone(p, s) != DDI_OK) {
        return sync_gone(p, s);
    }
    if (!kiso_may(p, hsync, KAPI_ACCESS_WRITE)) {
        return DDI_EACCESS;
    }
    if (value < *s->cpu || value < s->high) {
        return DDI_EINVAL;      /* a monitored fence never goes back */
    }
    s->high = value;
    *s->cpu = value;
    vidsch_sync_changed(p->k->vs);
    kernel_after_vidsch(p->k);
    return DDI_OK;
}

/* A GPU-side signal or wait's context and sync object, and the code
 * the call fails with when either is gone. */
static int gpu_sync_args(struct kproc *p, uint32_t hcontext, uint32_t hsync,
                         struct kcontext **c, struct ksync **s)
{
    *c = get_context(p, hcontext);
    *s = get_sync(p, hsync);
    if (!*c || !*s) {
        return DDI_EHANDLE;
    }
    if ((*c)->dev->removed) {
        return DDI_ELOST;
    }
    return sync_gone(p, *s);
}

int kapi_signal_gpu(struct kproc *p, uint32_t hcontext, uint32_t hsync,
                    uint64_t value)
{
    struct kcontext *c;
    struct ksync *s;
    int st = gpu_sync_args(p, hcontext, hsync, &c, &s);

    KCALL(p, KCALL_CHANGE);

    if (st != DDI_OK) {
        return st;
    }
    if (!kiso_may(p, hsync, KAPI_ACCESS_WRITE)) {
        return DDI_EACCESS;
    }
    if (value < *s->cpu || value < s->high) {
        return DDI_EINVAL;      /* 10 then 3: refused, never written */
    }
    st = kquota_gpu_sync(p->k, p);
    if (st != DDI_OK) {
        return kthrottle_refused(p->k, p, st);
    }
    st = vidsch_signal(p->k->vs, c->vctx, s->cpu, value);
    if (st == DDI_OK) {
        s->high = value;
    }
    kernel_after_vidsch(p->k);
    return st;
}

int kapi_wait_gpu(struct kproc *p, uint32_t hcontext, uint32_t hsync,
                  uint64_t value)
{
    struct kcontext *c;
    struct ksync *s;
    int st = gpu_sync_args(p, hcontext, hsync, &c, &s);

    KCALL(p, KCALL_CHANGE);

    if (st != DDI_OK) {
        return st;
    }
    st = kquota_gpu_sync(p->k, p);
    if (st != DDI_OK) {
        return kthrottle_refused(p->k, p, st);
    }
    st = vidsch_wait(p->k->vs, c->vctx, s->cpu, value);
    kernel_after_vidsch(p->k);
    return st;
}

int kapi_wait_cpu(struct kproc *p, uint32_t hsync, uint64_t value,
                  kapi_wait_fn fn, void *arg)
{
    struct ksync *s = get_sync(p, hsync);
    struct kwait *w;
    int st;

    KCALL(p, KCALL_CHANGE);

    if (!s) {
        return DDI_EHANDLE;
    }
    if (sync_gone(p, s) != DDI_OK) {
        return sync_gone(p, s);
    }
    if (!fn) {
        return DDI_EINVAL;
    }
    w = kwait_new(p, &st);
    if (!w) {
        return st;
    }
    /* the creator's removal is this process's loss only if it is the
     * creator (ELOST); for another it abandons the object (deliver) */
    *w = (struct kwait){
        .kind = KWAIT_SYNC, .proc = p,
        .dev = s->dev->proc == p ? s->dev : NULL,
        .u.sync = { .sync = s, .value = value, .fn = fn }, .arg = arg,
    };
    kqueue_push(&p->k->ev.work, &p->k->deliver_work);
    return DDI_OK;
}

int kapi_wait_throttle(struct kproc *p, kapi_wait_fn fn, void *arg)
{
    struct kwait *w;
    int st;

    KCALL(p, KCALL_CHANGE);
    if (!kproc_live(p) || !fn) {
        return DDI_EINVAL;
    }
    w = kwait_new(p, &st);
    if (!w) {
        return st;
    }
    kthrottle_wait_init(p->k, p, w);
    w->u.throttle.fn = fn;
    w->arg = arg;
    /* nothing in flight: over at once (the call then answers for good) */
    kqueue_push(&p->k->ev.work, &p->k->deliver_work);
    return DDI_OK;
}
