/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kernel.h"

#include <stddef.h>

#include "ddi/ddi_hws.h"
#include "kernel/kernel_internal.h"
#include "kernel/kexit.h"
#include "kernel/kmem.h"

static void zero(void *p, uint64_t n)
{
    uint8_t *b = p;

    while (n--) {
        *b++ = 0;
    }
}

uint64_t kernel_now(const struct kernel *k)
{
    return k->dev.ops->gpu_time(k->dev.drv);
}

/* ---- what vidsch asks of the kernel (struct vidsch_env) ---- */

static uint64_t env_now(void *os)
{
    return kernel_now(os);
}

static void env_set_timer(void *os, uint64_t when_ns)
{
    struct kernel *k = os;

    ktimer_arm(&k->ev.timers, &k->vidsch_timer, when_ns);
}

static void env_queue_work(void *os)
{
    struct kernel *k = os;

    kqueue_push(&k->ev.work, &k->vidsch_work);
}

/* Called from inside vidsch: only record, the reaper acts. */
static void env_buffer_done(void *os, uint64_t cookie, int status)
{
    struct kernel *k = os;
    struct kbuffer *kb = (struct kbuffer *)(uintptr_t)cookie;

    if (kgpuva_paging_done(k, cookie)) {
        /* contexts held on the paging fence (kapi_wait_paging) */
        vidsch_sync_changed(k->vs);
        /* a view's invalidation may have retired, a deferred page-out or
         * unmap may go now, an exited process's slot may be free: the
         * reaper (not from here: submitting would re-enter vidsch) */
        kqueue_push(&k->ev.work, &k->reap_work);
        return;
    }
    if (kmem_paging_done(k, cookie, status)) {
        /* vidmm may free what waited for that buffer to retire */
        if (k->reap_allocs) {
            kqueue_push(&k->ev.work, &k->reap_work);
        }
        return;
    }
    if (kb < k->buffers || kb >= k->buffers + KERNEL_MAX_BUFFERS ||
        !kb->used || kb->done) {
        return;     /* not ours: a scheduler bug, never a crash */
    }
    kb->done = true;
    kb->status = status;
    /* refused at schedule time (not lost to TDR, which removes the device
     * instead): the context is in error, nothing else is; recorded now,
     * before any wait on a fence after it is delivered */
    if (status != DDI_OK && status != DDI_ELOST && kb->ctx &&
        !kb->ctx->error) {
        kb->ctx->error = status;
    }
    kernel_mark(k, COPRO_MARK_DONE, kb->ctx->engine, kb->ctx->hw_id, cookie,
                (uint64_t)(int64_t)status);
    kqueue_push(&k->ev.work, &k->reap_work);
}

static void env_context_lost(void *os, uint32_t hw_id)
{
    struct kernel *k = os;

    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
        struct kcontext *c = &k->contexts[i];

        if (c->used && c->hw_id == hw_id) {
            c->dev->removed = true;
            k->stats.contexts_lost++;
        }
    }
    /* its sync objects take the error value now, not at the reaper:
     * vidsch released the lost contexts' signals with their values (the
     * whole device is lost at once, so none of its own held work ran),
     * and nothing may read those as work done meanwhile */
    if (kiso_abandon_syncs(k)) {
        vidsch_sync_changed(k->vs);
    }
    k->tell_lost = true;
    kqueue_push(&k->ev.work, &k->reap_work);
}

void kernel_mark(struct kernel *k, unsigned kind, unsigned engine,
                 uint32_t context, uint64_t arg0, uint64_t arg1)
{
    if (k->dev.ops->mark) {
        k->dev.ops->mark(k->dev.drv, kind, engine, context, arg0, arg1);
    }
}

static unsigned mark_reason(unsigned why)
{
    switch (why) {
    case VIDSCH_PREEMPT_PRIORITY:
        return COPRO_MARK_REASON_PRIORITY;
    case VIDSCH_PREEMPT_QUANTUM:
        return COPRO_MARK_REASON_QUANTUM;
    case VIDSCH_PREEMPT_TDR:
        return COPRO_MARK_REASON_TDR;
    default:
        return COPRO_MARK_REASON_OTHER;
    }
}

/* The scheduler's decisions as timeline markers: the buffer id is the
 * kernel's cookie, the link between a buffer's markers; the fence of
 * RING links them to the engine's own events. Retirements and completed
 * preemptions are the device's events already. */
static void mark_trace(struct kernel *k, const struct vidsch_trace *ev)
{
    unsigned e = ev->engine;
    uint32_t c = ev->context;

    switch (ev->kind) {
    case VIDSCH_TRACE_ELECT:
        kernel_mark(k, COPRO_MARK_ELECT, e, c, ev->cookie, ev->level);
        break;
    case VIDSCH_TRACE_PREPARE:
        kernel_mark(k, COPRO_MARK_PREPARE_START, e, c, ev->cookie, 0);
        break;
    case VIDSCH_TRACE_PREPARED:
        kernel_mark(k, COPRO_MARK_PREPARE_END, e, c, ev->cookie, 0);
        break;
    case VIDSCH_TRACE_UNSTAGE:
        kernel_mark(k, COPRO_MARK_UNSTAGE, e, c, ev->cookie, 0);
        break;
    case VIDSCH_TRACE_SUBMIT:
        kernel_mark(k, COPRO_MARK_RING, e, c, ev->cookie, ev->fence);
        break;
    case VIDSCH_TRACE_PREEMPT:
        kernel_mark(k, COPRO_MARK_PREEMPT, e, c, mark_reason(ev->reason),
                    ev->fence);
        if (ev->reason == VIDSCH_PREEMPT_TDR) {
            kernel_mark(k, COPRO_MARK_TDR, e, c, COPRO_MARK_TDR_TIMEOUT, 0);
        }
        break;
    case VIDSCH_TRACE_RESET:
        kernel_mark(k, COPRO_MARK_TDR, e, c, COPRO_MARK_TDR_RESET,
                    ev->fence);
        break;
    case VIDSCH_TRACE_DEVICE_RESET:
        kernel_mark(k, COPRO_MARK_TDR, e, c, COPRO_MARK_TDR_DEVICE_RESET, 0);
        break;
    case VIDSCH_TRACE_LOST:
        kernel_mark(k, COPRO_MARK_TDR, e, c, COPRO_MARK_TDR_LOST, 0);
        break;
    case VIDSCH_TRACE_BOOST:
        kernel_mark(k, COPRO_MARK_BOOST, e, c, ev->level, 0);
        break;
    case VIDSCH_TRACE_UNBOOST:
        kernel_mark(k, COPRO_MARK_UNBOOST, e, c, 0, 0);
        break;
    case VIDSCH_TRACE_HOLD:
        kernel_mark(k, COPRO_MARK_HOLD, e, c, 0, 0);
        break;
    case VIDSCH_TRACE_RELEASE:
        kernel_mark(k, COPRO_MARK_RELEASE, e, c, 0, 0);
        break;
    default:
        break;
    }
}

static void env_trace(void *os, const struct vidsch_trace *ev)
{
    struct kernel *k = os;

    k->trace[k->trace_count++ % KERNEL_TRACE] = *ev;
    mark_trace(k, ev);
}

const struct vidsch_trace *kernel_trace_find(const struct kernel *k,
                                             enum vidsch_trace_kind kind,
                                             uint64_t since, unsigned reason)
{
    uint64_t first = k->trace_count > KERNEL_TRACE ?
                     k->trace_count - KERNEL_TRACE : 0;

    for (uint64_t i = first; i < k->trace_count; i++) {
        const struct vidsch_trace *t = &k->trace[i % KERNEL_TRACE];

        if (t->kind == kind && t->time >= since &&
            (reason == UINT32_MAX || t->reason == reason)) {
            return t;
        }
    }
    return NULL;
}

/* ---- after every entry into vidsch: sync values may have moved ---- */

void kernel_after_vidsch(struct kernel *k)
{
    if (k->nwaits) {
        kqueue_push(&k->ev.work, &k->deliver_work);
    }
    /* a present may be waiting for one of the values that moved */
    kdisplay_kick(k);
}

static uint64_t cycles_now(const struct kernel *k)
{
    return k->cycles ? k->cycles() : 0;
}

static uint64_t env_cycles(void *os)
{
    return cycles_now(os);
}

static uint64_t vidsch_cycles_all(const struct kernel *k)
{
    const struct vidsch_cycles *c = k->vs ? vidsch_cycles(k->vs) : NULL;

    return c ? c->decide + c->complete : 0;
}

void kcyc_begin(const struct kernel *k, struct kcyc *c)
{
    c->t0 = cycles_now(k);
    c->v0 = vidsch_cycles_all(k);
}

uint64_t kcyc_own(const struct kernel *k, const struct kcyc *c)
{
    uint64_t all = cycles_now(k) - c->t0;
    uint64_t vs = vidsch_cycles_all(k) - c->v0;

    return all > vs ? all - vs : 0;
}

static void on_vidsch_timer(void *arg, uint64_t now)
{
    struct kernel *k = arg;
    uint64_t t0 = cycles_now(k);
    struct kcyc cy;

    (void)now;
    vidsch_timer(k->vs);
    kcyc_begin(k, &cy);
    kernel_after_vidsch(k);
    k->stats.complete_cycles += kcyc_own(k, &cy);
    k->stats.vidsch_timers++;
    k->stats.timer_cycles += cycles_now(k) - t0;
    k->stats.sched_cycles += cycles_now(k) - t0;
}

static void on_vidsch_work(void *arg)
{
    struct kernel *k = arg;
    uint64_t t0 = cycles_now(k);
    struct kcyc cy;

    vidsch_worker(k->vs);
    kcyc_begin(k, &cy);
    kernel_after_vidsch(k);
    k->stats.complete_cycles += kcyc_own(k, &cy);
    k->stats.vidsch_workers++;
    k->stats.worker_cycles += cycles_now(k) - t0;
    k->stats.sched_cycles += cycles_now(k) - t0;
}

/* ---- completion interrupts on demand [i915's breadcrumbs] ---- */

/* Someone sleeps until the GPU makes progress: an application's CPU wait
 * or lock, a present waiting for its sync value, the reaper waiting for
 * buffers to retire, or vidsch itself (vidsch_wants_progress). */
static bool waits_for_gpu(const struct kernel *k)
{
    return k->nwaits || k->reap_contexts || k->reap_allocs ||
           kvamap_waiting(k) || kdisplay_waiting(k) ||
           vidsch_wants_progress(k->vs);
}

bool kernel_before_idle(struct kernel *k)
{
    const struct ddi_hws_ops *h = k->dev.ops->hws;
    struct kcyc cy;
    bool want, moved;

    if (!k->irq_demand || !vidsch_hwsched(k->vs) || !h ||
        !h->completion_irq || !h->poll) {
        return false;
    }
    kcyc_begin(k, &cy);
    want = waits_for_gpu(k);
    if (want != k->irq_on) {
        h->completion_irq(k->dev.drv, want);
        k->irq_on = want;
        if (want) {
            k->stats.cirq_on++;
        } else {
            k->stats.cirq_off++;
        }
    }
    /* After turning them on, before sleeping: a completion from before
     * is seen here, one after interrupts (no wait is lost). Without a
     * waiter: what retired meanwhile is reaped now anyway. */
    k->stats.idle_polls++;
    moved = h->poll(k->dev.drv);
    k->stats.idle_polls_moved += moved;
    k->stats.complete_cycles += kcyc_own(k, &cy);
    return moved;
}

/* ---- upcalls: the driver's DPC enters the scheduler through here ---- */

static void up_dma_completed(void *os, unsigned engine, uint64_t completed)
{
    struct kernel *k = os;

    vidsch_upcalls.dma_completed(k->vs, engine, completed);
    kernel_after_vidsch(k);
}

static void up_preempted(void *os, unsigned engine, uint64_t preempt_fence,
                         uint64_t preempted, uint64_t completed)
{
    struct kernel *k = os;

    vidsch_upcalls.preempted(k->vs, engine, preempt_fence, preempted,
                             completed);
    kernel_after_vidsch(k);
}

static void up_tiler_oom(void *os, unsigned engine, uint64_t oom_fence,
                         uint32_t need, uint64_t completed)
{
    struct kernel *k = os;

    /* vidsch asks kernel_scene_oom (kscene.c) from in there */
    vidsch_upcalls.tiler_oom(k->vs, engine, oom_fence, need, completed);
    kernel_after_vidsch(k);
}

static void up_faulted(void *os, unsigned engine, const struct ddi_fault *f)
{
    struct kernel *k = os;

    vidsch_upcalls.faulted(k->vs, engine, f);
    kernel_after_vidsch(k);
}

static void up_vsync(void *os, unsigned source, uint64_t count,
                     uint64_t time)
{
    kdisplay_vsync(os, source, count, time);
}

static void up_flip_done(void *os, const struct ddi_flip_done *f)
{
    kdisplay_flip_done(os, f);
}

/* hardware scheduling: the queues' progress, errors and the log */
static void up_queue_progress(void *os, const struct ddi_hwq_progress *p,
                              unsigned n)
{
    struct kernel *k = os;

    vidsch_upcalls.queue_progress(k->vs, p, n);
    kernel_after_vidsch(k);
}

static void up_queue_error(void *os, uint32_t queue,
                           const struct ddi_hwq_error *err)
{
    struct kernel *k = os;

    vidsch_upcalls.queue_error(k->vs, queue, err);
    kernel_after_vidsch(k);
}

static void up_sched_log(void *os, const struct copro_sched_log_entry *ent,
                         unsigned n, uint32_t dropped)
{
    struct kernel *k = os;

    vidsch_upcalls.sched_log(k->vs, ent, n, dropped);
    kernel_after_vidsch(k);
}

static void up_queue_oom(void *os, uint32_t queue,
                         const struct ddi_hwq_oom *oom)
{
    struct kernel *k = os;

    /* vidsch asks kernel_scene_oom (kscene.c) from in there, as for a
     * kernel ring's TILER_OOM */
    vidsch_upcalls.queue_oom(k->vs, queue, oom);
    kernel_after_vidsch(k);
}

/*
 * Every upcall must be forwarded: one left out here is NULL, and the kmd
 * would take the event as reported. The count below fails to compile when
 * struct ddi_upcalls gains a member: add it here, then bump the count.
 */
#define KERNEL_UPCALLS  10
_Static_assert(sizeof(struct ddi_upcalls) ==
               KERNEL_UPCALLS * sizeof(void (*)(void)),
               "struct ddi_upcalls changed: forward the new upcall in "
               "kernel_upcalls and update KERNEL_UPCALLS");

const struct ddi_upcalls kernel_upcalls = {
    .dma_completed = up_dma_completed,
    .preempted = up_preempted,
    .tiler_oom = up_tiler_oom,
    .faulted = up_faulted,
    .vsync = up_vsync,
    .flip_done = up_flip_done,
    .queue_progress = up_queue_progress,
    .queue_error = up_queue_error,
    .sched_log = up_sched_log,
    .queue_oom = up_queue_oom,
};

/* ---- object lifetimes ---- */

void kernel_unshare(struct kernel *k, const void *obj, uint32_t *shared_name)
{
    unsigned slot = *shared_name & 0xff;

    if (*shared_name && slot < KERNEL_MAX_SHARED &&
        k->shared[slot].obj == obj) {
        /* the name names nothing from now on: its creator gets the
         * slot back (and the grants, below) */
        kquota_uncharge(k, k->shared[slot].charged, KQ_SHARED, 1);
        k->shared[slot].obj = NULL;
        k->shared[slot].charged = NULL;
    }
    /* the grants of the name die with it, given back to their owners:
     * names carry only 16 bits of generation, and a grant left behind
     * would give its process the object that gets the name 65536 shares
     * later */
    if (*shared_name) {
        kiso_revoke_name(k, *shared_name);
    }
    *shared_name = 0;
}

void *kernel_shared_object(const struct kernel *k, uint32_t name,
                           enum handle_type type)
{
    unsigned slot = name & 0xff;
    void *obj;
    uint32_t current;

    if ((name & ~0x00ffffffu) != SHARED_TAG || slot >= KERNEL_MAX_SHARED ||
        !k->shared[slot].obj || k->shared[slot].type != type) {
        return NULL;
    }
    obj = k->shared[slot].obj;
    current = type == HANDLE_ALLOCATION ? ((struct kalloc *)obj)->shared_name
                                        : ((struct ksync *)obj)->shared_name;
    return current == name ? obj : NULL;
}

static void tell_lost(void *arg, uint32_t h, void *obj)
{
    struct kdevice *dev = obj;
    struct kproc *p = arg;

    if (dev->removed && !dev->lost_told) {
        dev->lost_told = true;
        if (p->lost_fn) {
            p->lost_fn(p->lost_arg, h);
        }
    }
}

/* A context may still wait on s or signal it in vidsch: its word must
 * not be reused before (no handle names it any more, so no new wait or
 * signal comes). Asked of vidsch itself: that a device which once held
 * a handle still has contexts (the rule before) kept a killed process's
 * sync object, and its record, for as long as the process it shared
 * with lived. */
static bool sync_may_be_used(const struct kernel *k, const struct ksync *s)
{
    return vidsch_sync_in_use(k->vs, s->cpu);
}

/*
 * A destroyed device's record is freed only when no record names it any
 * more: its contexts, and the allocations and sync objects created on it
 * that outlive it (shared ones other processes still hold, ones a
 * buffer in flight still uses), whose creator is read through it (who
 * may open and grant them, whose removal abandons them). Freed earlier,
 * the record would be another process's device next, and that process
 * would be taken for their creator.
 */
static bool device_referenced(const struct kernel *k, const struct kdevice *d)
{
    if (d->contexts) {
        return true;
    }
    for (unsigned j = 0; j < KERNEL_MAX_SYNCS; j++) {
        if (k->syncs[j].used && k->syncs[j].dev == d) {
            return true;
        }
    }
    for (unsigned j = 0; j < KERNEL_MAX_ALLOCS; j++) {
        if (k->allocs[j].used && k->allocs[j].dev == d) {
            return true;
        }
    }
    for (unsigned j = 0; j < KERNEL_MAX_WAITS; j++) {
        if (k->waits[j].kind != KWAIT_NONE && k->waits[j].dev == d) {
            return true;
        }
    }
    /* (the kernel's scene contexts count in d->contexts; presents and
     * scene records let go of it in kapi_destroy_device) */
    return false;
}

static void reap_once(struct kernel *k)
{
    bool again = false;

    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        struct kbuffer *kb = &k->buffers[i];

        if (kb->used && kb->done) {
            if (kb->status == DDI_OK) {
                k->stats.buffers_done++;
            } else {
                k->stats.buffers_lost++;
            }
            kbuffer_free(k, kb);
        }
    }
    kgpuva_retry(k);
    kvamap_reap(k);
    if (k->reap_allocs) {
        k->reap_allocs = false;
        for (unsigned i = 0; i < KERNEL_MAX_ALLOCS; i++) {
            if (k->allocs[i].used && k->allocs[i].dying) {
                kalloc_release(k, &k->allocs[i]);
            }
        }
    }
    if (k->reap_contexts) {
        k->reap_contexts = false;
        for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
            struct kcontext *c = &k->contexts[i];

            if (!c->used || !c->destroying) {
                continue;
            }
            /* vidsch may report the dropped buffers from inside: they
             * are reaped by the next pass, and the record stays until
             * then (they point at it); vidsch is asked only until it has
             * let go (its record may be another context's after). */
            if (!c->sched_gone) {
                c->sched_gone = vidsch_ctx_destroy(k->vs, c->vctx);
            }
            if (c->sched_gone && c->inflight) {
                k->reap_contexts = true;
                again = true;
            } else if (c->sched_gone) {
                if (c->dev->gpuva) {
                    /* its save page read-only again before reuse */
                    kgpuva_context_unbind(k, c->proc, c->hw_id,
                                          c->save_gpu);
                }
                kquota_seg_free(k, c->proc, c->save_gpu);
                kquota_uncharge(k, c->proc, KQ_CONTEXTS, 1);
                c->dev->contexts--;
                *c = (struct kcontext){ 0 };
                again = true;
            } else {
                /* asked again when one of its buffers is done (each
                 * buffer_done queues the reaper): no spinning meanwhile */
                k->reap_contexts = true;
            }
        }
    }
    if (k->reap_objects) {
        k->reap_objects = false;
        for (unsigned i = 0; i < KERNEL_MAX_SYNCS; i++) {
            struct ksync *s = &k->syncs[i];

            if (s->used && s->zombie) {
                if (!sync_may_be_used(k, s)) {
                    kquota_seg_free(k, s->dev->proc, s->gpu);
                    kquota_uncharge(k, s->dev->proc, KQ_SYNCS, 1);
                    *s = (struct ksync){ 0 };
                } else {
                    k->reap_objects = true;
                }
            }
        }
        for (unsigned i = 0; i < KERNEL_MAX_DEVICES; i++) {
            struct kdevice *d = &k->devices[i];

            if (!d->used || !d->destroyed) {
                continue;
            }
            if (!device_referenced(k, d)) {
                kquota_uncharge(k, d->proc, KQ_DEVICES, 1);
                *d = (struct kdevice){ 0 };
            } else {
                k->reap_objects = true;
            }
        }
    }
    if (k->tell_lost) {
        k->tell_lost = false;
        /* blame follows guilt: the removed devices' sync objects are
         * signalled with an error, other processes' waiters released */
        if (kiso_abandon_syncs(k)) {
            vidsch_sync_changed(k->vs);
            kernel_after_vidsch(k);
        }
        for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
            if (k->procs[i].used) {
                handle_for_each(&k->procs[i].handles, HANDLE_DEVICE,
                                tell_lost, &k->procs[i]);
            }
        }
    }
    kexit_reap(k);
    if (again) {
        kqueue_push(&k->ev.work, &k->reap_work);
    }
    kqueue_push(&k->ev.work, &k->deliver_work);
}

/* Buffers retired and objects freed: completion work, counted so. */
static void reap(void *arg)
{
    struct kernel *k = arg;
    struct kcyc cy;

    kcyc_begin(k, &cy);
    reap_once(k);
    k->stats.complete_cycles += kcyc_own(k, &cy);
}

/* A lock wait's deadline came: deliver answers it (DDI_ETIMEOUT) and
 * arms the timer for the next one. */
static void on_lock_timer(void *arg, uint64_t now)
{
    struct kernel *k = arg;

    (void)now;
    kqueue_push(&k->ev.work, &k->deliver_work);
}

void kernel_arm_lock_timer(struct kernel *k)
{
    uint64_t first = UINT64_MAX;

    for (unsigned i = 0; i < KERNEL_MAX_WAITS; i++) {
        const struct kwait *w = &k->waits[i];

        if (w->kind == KWAIT_LOCK && w->u.lock.deadline < first) {
            first = w->u.lock.deadline;
        }
    }
    if (first == UINT64_MAX) {
        ktimer_cancel(&k->ev.timers, &k->lock_timer);
    } else if (!k->lock_timer.armed || k->lock_timer.when != first) {
        ktimer_arm(&k->ev.timers, &k->lock_timer, first);
    }
}

/* Runs the applications' callbacks whose waits are over. */
static void deliver(void *arg)
{
    struct kernel *k = arg;
    struct kcyc cy;
    uint64_t own = 0;

    kcyc_begin(k, &cy);

    for (unsigned i = 0; i < KERNEL_MAX_WAITS && k->nwaits; i++) {
        struct kwait w = k->waits[i];
        volatile void *cpu = NULL;
        int st = DDI_OK;
        bool ready;

        if (w.kind == KWAIT_NONE) {
            continue;
        }
        if (w.fail) {
            st = w.fail;
        } else if (w.dev && w.dev->removed) {
            st = DDI_ELOST;
        } else if (w.kind == KWAIT_SYNC &&
                   (w.u.sync.sync->dev->removed ||
                    w.u.sync.sync->abandoned)) {
            st = DDI_EABANDONED;    /* another's creator was reset or
                                       exited */
        }
        if (w.kind == KWAIT_SYNC) {
            ready = st != DDI_OK || *w.u.sync.sync->cpu >= w.u.sync.value;
        } else if (w.kind == KWAIT_THROTTLE) {
            ready = st != DDI_OK || kthrottle_ready(k, &w);
        } else {
            ready = st != DDI_OK ||
                    kalloc_lock_ready(k, w.u.lock.alloc, w.u.lock.seq);
            /* the lock itself (vidmm pins it): not while a paging
             * buffer moves it; asked again after the next vidsch call */
            if (ready && st == DDI_OK &&
                kmem_lock(k, w.u.lock.alloc, &cpu) != DDI_OK) {
                ready = false;
            }
            /* Bounded: the buffers it waits for may never retire (a
             * live process's work held behind a fence it never
             * signals); the waiter is told the allocation is still in
             * use [DXGI_ERROR_WAS_STILL_DRAWING] and may lock again */
            if (!ready && kernel_now(k) >= w.u.lock.deadline) {
                st = DDI_ETIMEOUT;
                ready = true;
            }
        }
        if (!ready) {
            continue;
        }
        /* Free the slot first: the callback may wait again. */
        k->waits[i].kind = KWAIT_NONE;
        k->nwaits--;
        kquota_uncharge(k, w.proc, KQ_WAITS, 1);
        k->stats.waits_done++;
        if (w.kind == KWAIT_LOCK && st == DDI_OK) {
            w.u.lock.alloc->locks++;
            kexit_note_lock(w.proc, w.u.lock.h, 1);
        }
        /* the application's own work is not the kernel's */
        own += kcyc_own(k, &cy);
        if (w.kind == KWAIT_SYNC) {
            w.u.sync.fn(w.arg, st);
        } else if (w.kind == KWAIT_THROTTLE) {
            k->stats.throttle_waits++;
            w.u.throttle.fn(w.arg, st);
        } else {
            w.u.lock.fn(w.arg, st, st == DDI_OK ? cpu : NULL);
        }
        kcyc_begin(k, &cy);
    }
    kernel_arm_lock_timer(k);
    k->stats.complete_cycles += own + kcyc_own(k, &cy);
}

static uint64_t sched_bytes(void)
{
    return (vidsch_storage_size(KERNEL_MAX_CONTEXTS, KERNEL_SCHED_BUFFERS) +
            7) & ~(uint64_t)7;
}

uint64_t kernel_arena_bytes(const struct kernel_vidmm_config *vm)
{
    return sched_bytes() + kmem_storage_bytes(vm);
}

const char *kernel_init(struct kernel *k, const struct ddi_device *dev,
                        uint64_t seg_base, uint64_t seg_size,
                        volatile uint8_t *seg_cpu,
                        const struct vidsch_config *cfg,
                        const struct kernel_vidmm_config *vm, void *arena,
                        uint64_t arena_bytes)
{
    struct vidsch_config sched;
    const char *err;

    zero(k, sizeof(*k));
    k->dev = *dev;
    k->dev.ops->query_caps(k->dev.drv, &k->caps);
    if (arena_bytes < kernel_arena_bytes(vm)) {
        return "arena too small for the scheduler and vidmm";
    }
    err = kmem_start(k, seg_base, seg_size, seg_cpu, vm,
                     (uint8_t *)arena + sched_bytes(), kmem_storage_bytes(vm));
    if (err) {
        return err;
    }
    kevents_init(&k->ev);
    ktimer_init(&k->vidsch_timer, on_vidsch_timer, k);
    ktimer_init(&k->lock_timer, on_lock_timer, k);
    kitem_init(&k->vidsch_work, on_vidsch_work, k);
    kitem_init(&k->reap_work, reap, k);
    kitem_init(&k->deliver_work, deliver, k);
    kdisplay_init(k);
    kscene_init(k);
    k->next_hw_ctx = 1;
    k->next_proc_id = 1;
    k->env = (struct vidsch_env){
        .os = k, .now = env_now, .set_timer = env_set_timer,
        .queue_work = env_queue_work, .buffer_done = env_buffer_done,
        .context_lost = env_context_lost, .trace = env_trace,
        .cycles = env_cycles,
        .scene_oom = kernel_scene_oom,
    };
    if (k->vm) {
        /* residency at schedule time [VidMm in VidSch's preparation] */
        k->env.make_resident = kmem_make_resident;
        k->env.release_resident = kmem_release_resident;
        k->env.make_portion = kmem_make_portion;
        k->env.release_portion = kmem_release_portion;
    }
    sched = *cfg;
    sched.max_contexts = KERNEL_MAX_CONTEXTS;
    sched.max_buffers = KERNEL_SCHED_BUFFERS;
    k->vs = vidsch_create(arena, sched_bytes(), &k->dev, &k->env, &sched);
    if (!k->vs) {
        return "vidsch_create failed";
    }
    kquota_init(k);
    return NULL;
}

bool kernel_gpu_idle(const struct kernel *k)
{
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        if (k->buffers[i].used) {
            return false;
        }
    }
    return vidsch_idle(k->vs);
}

const struct vidsch_ctx_stats *kernel_ctx_stats_by_hw(const struct kernel *k,
                                                      uint32_t hw_id)
{
    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
        const struct kcontext *c = &k->contexts[i];

        if (c->used && c->hw_id == hw_id) {
            return vidsch_ctx_stats(c->vctx);
        }
    }
    return NULL;
}
