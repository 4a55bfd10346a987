/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch's hardware-scheduling mode [WDDM 2.7: HwSchEnabled, HwQueues;
 * AMD MES: mapped queues on a run list]. The device makes every switch;
 * vidsch keeps what is the OS's:
 *
 *  - the policy: priority class -> band (IDLE, BELOW_NORMAL: IDLE band;
 *    NORMAL, ABOVE_NORMAL: NORMAL; HIGH: FOCUS; REALTIME: REALTIME), the
 *    quantum (the configured one; ABOVE_NORMAL twice it), the budgets
 *    (none under `quantum`; per frame under `joblist`), which queues are
 *    listed and which are suspended; it writes an engine's run list
 *    whenever one of these changes, never for a switch;
 *  - render, validation, residency and patching, as in software mode:
 *    a buffer is elected into the engine's slot, prepared by the worker
 *    (vidmm makes its list resident and may queue a paging buffer;
 *    patch), then written to its context's queue (its doorbell) instead
 *    of the engine's ring. At most cfg.hws_depth submissions of a
 *    context are on its queue at once (vidmm keeps their allocations
 *    resident until they retire);
 *  - paging buffers go to the paging engine's own queue, REALTIME band
 *    (the device never preempts a PAGING submission), and a DMA buffer
 *    goes to its queue only once its paging buffer finished;
 *  - the watchdog: a queue on the engine that retired nothing for
 *    tdr_timeout_ns is listed suspended, which makes the device switch it
 *    out; a hung one does not yield within the device's preemption
 *    timeout (tdr_timeout_ns + tdr_grace_ns), is reset, and comes back
 *    with queue_error:
 *    its context is lost, blamed alone, the others go on (the device's
 *    TDR). A queue that yielded is listed again;
 *  - the job list (policy=joblist): at every vsync, from the log's FRAME
 *    entries (each queue's actual GPU time in the frame that ended), the
 *    next frame's budgets (vs_hws_joblist below).
 *
 * Completions come back per queue from any interrupt's DPC; the device's
 * decisions come back in its log, read at every vsync: SWITCH_IN and
 * COMPLETED give each buffer's start (the latency statistics), SWITCH_OUT
 * the GPU time.
 */
#include "vidsch/vidsch_internal.h"

#include "lib/string.h"

#define US  1000ull
#define MS  1000000ull

static const unsigned band_of_prio[VIDSCH_PRIO_COUNT] = {
    [VIDSCH_PRIO_IDLE] = COPRO_BAND_IDLE,
    [VIDSCH_PRIO_BELOW_NORMAL] = COPRO_BAND_IDLE,
    [VIDSCH_PRIO_NORMAL] = COPRO_BAND_NORMAL,
    [VIDSCH_PRIO_ABOVE_NORMAL] = COPRO_BAND_NORMAL,
    [VIDSCH_PRIO_HIGH] = COPRO_BAND_FOCUS,
    [VIDSCH_PRIO_REALTIME] = COPRO_BAND_REALTIME,
};

const struct vidsch_hws_stats *vidsch_hws_stats(const struct vidsch *s)
{
    return &s->hws_stats;
}

bool vidsch_hwsched(const struct vidsch *s)
{
    return s && s->hws;
}

/* Whether vidsch itself waits for a queue's progress (hardware mode):
 * a context held on a monitored fence (a retirement signals it), a
 * buffer in an engine's slot (its paging buffer, or memory that buffers
 * on the GPU hold), paging buffers in flight, or a context with buffers
 * that wait for room on its queue. Software mode: always (every switch
 * is the CPU's). */
bool vidsch_wants_progress(const struct vidsch *s)
{
    if (!s || !s->hws) {
        return true;
    }
    if (!vs_list_empty(&s->held)) {
        return true;
    }
    for (unsigned i = 0; i < s->nengines; i++) {
        const struct vidsch_engine *e = &s->engine[i];

        if (e->slot || !vs_list_empty(&e->paging) ||
            vidsch_ring_count(&e->paging_ring)) {
            return true;
        }
    }
    for (unsigned i = 0; i < s->nhw_live; i++) {
        const struct vidsch_ctx *c = s->hw_live[i];

        if (c && !c->lost && !vs_list_empty(&c->queue)) {
            return true;
        }
    }
    return false;
}

bool vs_hws_init(struct vidsch *s)
{
    const struct ddi_hws_ops *h = s->ops->hws;

    if (!h || !h->queue_create || !h->queue_destroy || !h->queue_submit ||
        !h->runlist_commit) {
        return false;
    }
    s->hws = true;
    s->hws_ops = h;
    s->frame_ns = h->frame_ns ? h->frame_ns(s->drv) : 0;
    if (!s->frame_ns) {
        s->frame_ns = 16666667;
    }
    if (!s->cfg.hws_depth) {
        s->cfg.hws_depth = 1;
    }
    for (unsigned i = 0; i < s->nengines; i++) {
        s->engine[i].paging_hwq = COPRO_HWQ_NONE;
        vidsch_ring_init(&s->engine[i].paging_ring);
    }
    if (h->configure) {
        /* the device resets a queue that does not yield within vidsch's
         * whole patience (a healthy buffer between arbitration points
         * may take long on a coarse-grained device) */
        h->configure(s->drv, s->cfg.hws_low_share,
                     s->cfg.tdr_timeout_ns + s->cfg.tdr_grace_ns);
    }
    return true;
}

int vs_hws_ctx_create(struct vidsch *s, struct vidsch_ctx *c)
{
    struct ddi_hwq_args a = {
        .engine = c->engine, .context = c->id, .save_addr = c->save_addr,
        .completion_irq = c->base >= s->cfg.hws_irq_prio,
    };
    int rc = s->hws_ops->queue_create(s->drv, &a, &c->hwq);

    if (rc != DDI_OK) {
        return rc;
    }
    if (c->hwq >= COPRO_HWQ_MAX || s->hwq_ctx[c->hwq]) {
        return DDI_EINVAL;      /* the driver gave a slot in use */
    }
    s->hwq_ctx[c->hwq] = c;
    s->hw_live[s->nhw_live++] = c;
    vidsch_ring_init(&c->hwring);
    c->hw_progress_at = vs_now(s);
    s->engine[c->engine].rl_dirty = true;
    s->dirty = true;
    return DDI_OK;
}

/* ---- run lists ---- */

static uint32_t quantum_of(const struct vidsch *s, const struct vidsch_ctx *c)
{
    uint64_t q = s->cfg.quantum_ns * (c->base == VIDSCH_PRIO_ABOVE_NORMAL
                                      ? 2 : 1);

    if (q < COPRO_HWS_QUANTUM_MIN_NS) {
        q = COPRO_HWS_QUANTUM_MIN_NS;
    }
    return q > COPRO_HWS_QUANTUM_MAX_NS ? COPRO_HWS_QUANTUM_MAX_NS
                                        : (uint32_t)q;
}

/* On its engine's run list: a live context, or a lost one whose queue
 * still holds entries the device was given (a context lost with
 * another of its device: they run out and retire, as entries on a
 * software ring do; the guilty one's were taken back already). */
static bool hw_runs(const struct vidsch_ctx *c)
{
    return !c->lost || vidsch_ring_count(&c->hwring) > 0;
}

static void commit(struct vidsch *s, struct vidsch_engine *e)
{
    struct ddi_runlist_entry ent[COPRO_RUNLIST_MAX];
    unsigned n = 0;

    e->rl_dirty = false;
    if (e->paging_hwq != COPRO_HWQ_NONE) {
        ent[n++] = (struct ddi_runlist_entry){
            .queue = e->paging_hwq, .band = COPRO_BAND_REALTIME,
            .quantum_ns = 1 * MS };
    }
    for (unsigned i = 0; i < s->nhw_live && n < COPRO_RUNLIST_MAX; i++) {
        struct vidsch_ctx *c = s->hw_live[i];

        if (!c || c->engine != e->index || !hw_runs(c)) {
            continue;
        }
        ent[n++] = (struct ddi_runlist_entry){
            .queue = c->hwq, .band = band_of_prio[c->base],
            .quantum_ns = quantum_of(s, c),
            .budget_ns = (uint32_t)c->stats.budget_ns,
            .suspended = c->hw_suspended,
        };
    }
    s->hws_stats.runlist_commits++;
    if (s->hws_ops->runlist_commit(s->drv, e->index, ent, n) != DDI_OK) {
        s->hws_stats.runlist_refused++;
    }
}

void vs_hws_ctx_gone(struct vidsch *s, struct vidsch_ctx *c)
{
    if (c->hwq < COPRO_HWQ_MAX && s->hwq_ctx[c->hwq] == c) {
        s->hwq_ctx[c->hwq] = NULL;
        for (unsigned i = 0; i < s->nhw_live; i++) {
            if (s->hw_live[i] == c) {
                s->hw_live[i] = s->hw_live[--s->nhw_live];
                break;
            }
        }
        commit(s, &s->engine[c->engine]);
        s->hws_ops->queue_destroy(s->drv, c->hwq);
    }
    c->hwq = COPRO_HWQ_NONE;
}

/* ---- feeding the queues ---- */

static void push_paging(struct vidsch *s, struct vidsch_engine *e)
{
    struct vidsch_buf *b;

    if (vs_list_empty(&e->paging)) {
        return;
    }
    if (e->paging_hwq == COPRO_HWQ_NONE) {
        struct ddi_hwq_args a = { .engine = e->index, .context = 0,
                                  .completion_irq = true };

        if (s->hws_ops->queue_create(s->drv, &a, &e->paging_hwq) != DDI_OK ||
            e->paging_hwq >= COPRO_HWQ_MAX) {
            e->paging_hwq = COPRO_HWQ_NONE;
            return;
        }
        commit(s, e);
    }
    while ((b = vs_entry(vs_list_first(&e->paging), struct vidsch_buf,
                         link))) {
        struct ddi_submit_args a = {
            .engine = e->index, .dma_addr = b->dma->gpu_addr,
            .dma_len = b->dma->len_bytes, .context = 0,
            .flags = COPRO_SUBMIT_PAGING,
        };

        if (!b->sub.fence) {
            b->sub.fence = ++e->paging_fence;
        }
        a.fence = b->sub.fence;
        if (s->hws_ops->queue_submit(s->drv, e->paging_hwq, &a) != DDI_OK) {
            return;
        }
        vs_list_remove(&e->paging, &b->link);
        b->where = VS_RING;
        b->submissions++;
        vidsch_ring_push(&e->paging_ring, &b->sub);
        vs_trace(s, VIDSCH_TRACE_SUBMIT, e->index, NULL, b, a.fence, 0);
        e->stats.submitted++;
    }
}

/* The prepared buffer in e's slot goes to its context's queue. */
static void push_slot(struct vidsch *s, struct vidsch_engine *e)
{
    struct vidsch_buf *b = e->slot;
    struct vidsch_ctx *c;
    struct ddi_submit_args a;

    if (!b || !e->slot_prepared || !vs_paging_ready(s, b)) {
        return;
    }
    c = b->ctx;
    a = (struct ddi_submit_args){
        .engine = e->index, .dma_addr = b->dma->gpu_addr + vs_run_first(b),
        .dma_len = vs_run_end(b) - vs_run_first(b), .fence = c->hwq_fence + 1,
        .context = c->id, .save_addr = c->save_addr,
    };
    if (s->hws_ops->queue_submit(s->drv, c->hwq, &a) != DDI_OK) {
        return;                 /* full: after a retirement; in error: the
                                   error upcall loses it */
    }
    c->hwq_fence++;
    b->sub.fence = a.fence;
    b->sub.flags = 0;
    b->sub.save_addr = c->save_addr;
    b->where = VS_RING;
    b->submissions++;
    vidsch_ring_push(&c->hwring, &b->sub);
    c->hw_submitted_at[a.fence % VS_HWS_HISTORY] = b->submitted_at;
    if (vidsch_ring_count(&c->hwring) == 1) {
        c->hw_progress_at = vs_now(s);  /* the watchdog counts from here */
    }
    e->slot = NULL;
    e->slot_prepared = false;
    e->stats.submitted++;
    s->hws_stats.queue_submits++;
    vs_trace(s, VIDSCH_TRACE_SUBMIT, e->index, c, b, a.fence, 0);
}

/* How many submissions of c may be on its queue: a queue that interrupts
 * at every completion is refilled at once, two keep the engine fed (one
 * running, one ready, as the software ring); one reaped only at the next
 * interrupt must hold what runs until then (hws_depth). Each holds its
 * allocations resident until it retires: deeper queues pin more memory,
 * which vidmm then cannot move for others. */
static unsigned depth_of(const struct vidsch *s, const struct vidsch_ctx *c)
{
    unsigned d = c->base >= s->cfg.hws_irq_prio ? 2 : s->cfg.hws_depth;

    return d < s->cfg.hws_depth ? d : s->cfg.hws_depth;
}

/* The most urgent context with work and room on its queue: its head goes
 * to the slot, to be prepared. */
static void elect(struct vidsch *s, struct vidsch_engine *e)
{
    for (int l = vidsch_ready_top(&e->rq); l >= 0; l--) {
        for (struct vs_link *n = vidsch_ready_head(&e->rq, (unsigned)l); n;
             n = vs_list_next(&e->rq.level[l], n)) {
            struct vidsch_ctx *c = vs_container_of(n, struct vidsch_ctx, rq);
            struct vidsch_buf *b = vs_queue_head(c);

            if (!b || vidsch_ring_count(&c->hwring) >= depth_of(s, c)) {
                continue;
            }
            vs_list_remove(&c->queue, &b->link);
            b->where = VS_SLOT;
            c->on_gpu++;
            e->slot = b;
            e->slot_prepared = false;
            e->stats.elected++;
            vs_trace(s, VIDSCH_TRACE_ELECT, e->index, c, b, 0, 0);
            vs_ctx_update(s, c);
            return;
        }
    }
}

/* The watchdog [TDR]: a queue the log shows on the engine that retired
 * nothing for tdr_timeout_ns is listed suspended, so that the device
 * switches it out (a hung one does not yield: the device resets it and
 * reports it); one that yielded is listed again after the device's
 * timeout. A queue waiting for the engine is not suspected: the device
 * runs it when its band's turn comes. When the log has not come for as
 * long (no display, so no vsync, and no other interrupt: a lone hang
 * interrupts nobody), nobody is known to wait: every queue with work and
 * no progress is suspected (suspending a waiting one costs nothing). */
static uint64_t suspect_at(const struct vidsch *s, const struct vidsch_ctx *c)
{
    uint64_t since = c->hw_progress_at > c->hw_in_at ? c->hw_progress_at
                                                     : c->hw_in_at;

    if (c->hw_suspended) {
        return c->hw_suspend_at + s->cfg.tdr_timeout_ns +
               s->cfg.tdr_grace_ns + 2 * s->frame_ns;
    }
    if (!vidsch_ring_count(&c->hwring)) {
        return VS_NEVER;
    }
    if (c->hw_in) {
        return since + s->cfg.tdr_timeout_ns;
    }
    since = c->hw_progress_at > s->log_at ? c->hw_progress_at : s->log_at;
    return since + s->cfg.tdr_timeout_ns;
}

static void watchdog(struct vidsch *s, struct vidsch_engine *e)
{
    uint64_t now = vs_now(s);

    for (unsigned i = 0; i < s->nhw_live; i++) {
        struct vidsch_ctx *c = s->hw_live[i];

        if (!c || c->engine != e->index || !hw_runs(c) ||
            now < suspect_at(s, c)) {
            continue;
        }
        if (c->hw_suspended) {
            c->hw_suspended = false;    /* it yielded: not hung */
            c->hw_progress_at = now;
        } else {
            c->hw_suspended = true;
            c->hw_suspend_at = now;
            s->hws_stats.suspensions++;
        }
        e->rl_dirty = true;
    }
}

uint64_t vs_hws_deadline(struct vidsch *s, struct vidsch_engine *e)
{
    uint64_t when = VS_NEVER;

    for (unsigned i = 0; i < s->nhw_live; i++) {
        struct vidsch_ctx *c = s->hw_live[i];

        if (c && c->engine == e->index && hw_runs(c) &&
            suspect_at(s, c) < when) {
            when = suspect_at(s, c);
        }
    }
    e->wd_at = when;
    return when;
}

void vs_hws_schedule_engine(struct vidsch *s, struct vidsch_engine *e)
{
    if (s->sync_dirty) {
        s->sync_dirty = false;
        vs_poll_held(s);
    }
    /* per event, only once a deadline is due: the deadlines move only
     * inside vidsch, and every outermost call recomputes them */
    if (vs_now(s) >= e->wd_at) {
        watchdog(s, e);
    }
    vs_hws_oom_poll(s, e);
    push_paging(s, e);
    push_slot(s, e);
    if (!e->slot) {
        elect(s, e);
    }
    /* the worker prepares one slot per call, engines in turn */
    if (e->slot && !e->slot_prepared && !s->work_queued) {
        s->work_queued = true;
        s->env.queue_work(s->env.os);
    }
    if (e->rl_dirty) {
        commit(s, e);
    }
}

/* ---- upcalls ---- */

static void retire(struct vidsch *s, struct vidsch_engine *e,
                   struct vidsch_buf *b)
{
    struct vidsch_ctx *c = b->ctx;

    b->where = VS_QUEUED;
    vs_trace(s, VIDSCH_TRACE_RETIRE, e->index, c, b, b->sub.fence, 0);
    e->stats.completed++;
    if (!c) {
        vs_finish(s, b, DDI_OK);
        return;
    }
    c->on_gpu--;
    c->hw_progress_at = vs_now(s);
    if (b->split && b->part.end < b->dma->len_bytes) {
        vs_portion_done(s, e, b);
    } else {
        vs_finish(s, b, DDI_OK);
    }
    vs_ctx_update(s, c);
    if (c->lost && !vidsch_ring_count(&c->hwring)) {
        e->rl_dirty = true;     /* run out: off the run list */
    }
}

static void enter_hws(struct vidsch *s)
{
    vs_enter(s);
}

/* Retirements may have written monitored fences (signals): held
 * contexts are looked at again on the way out. */
static void leave_hws(struct vidsch *s)
{
    if (!vs_list_empty(&s->held)) {
        s->sync_dirty = true;
    }
    s->dirty = true;
    vs_leave(s);
}

static void progress(struct vidsch *s, uint32_t queue, uint64_t completed)
{
    struct vidsch_ring *r = NULL;
    struct vidsch_engine *e = NULL;
    struct vidsch_sub *sub;

    if (queue >= COPRO_HWQ_MAX) {
        return;
    }
    if (s->hwq_ctx[queue]) {
        r = &s->hwq_ctx[queue]->hwring;
        e = &s->engine[s->hwq_ctx[queue]->engine];
    } else {
        for (unsigned i = 0; i < s->nengines; i++) {
            if (s->engine[i].paging_hwq == queue) {
                e = &s->engine[i];
                r = &e->paging_ring;
            }
        }
    }
    if (!r) {
        return;
    }
    while ((sub = vidsch_ring_retire(r, completed))) {
        retire(s, e, vs_buf_of_sub(sub));
    }
}

void vs_hws_up_progress(void *os, const struct ddi_hwq_progress *p,
                        unsigned n)
{
    struct vidsch *s = os;
    uint64_t t0;

    if (!s->hws || (!p && n)) {
        return;
    }
    enter_hws(s);
    t0 = vs_cycles(s);
    s->hws_stats.progress_upcalls++;
    for (unsigned i = 0; i < n; i++) {
        progress(s, p[i].queue, p[i].completed);
    }
    s->cyc.complete += vs_cycles(s) - t0;
    leave_hws(s);
}

void vs_hws_up_error(void *os, uint32_t queue, const struct ddi_hwq_error *err)
{
    struct vidsch *s = os;
    struct vidsch_ctx *c;
    struct vidsch_engine *e;
    struct vidsch_sub *sub;
    uint64_t t0;

    if (!s->hws || queue >= COPRO_HWQ_MAX || !err) {
        return;
    }
    enter_hws(s);
    t0 = vs_cycles(s);
    s->hws_stats.error_upcalls++;
    c = s->hwq_ctx[queue];
    if (c) {
        e = &s->engine[c->engine];
        /* what finished before it did finish */
        while ((sub = vidsch_ring_retire(&c->hwring, err->completed))) {
            retire(s, e, vs_buf_of_sub(sub));
        }
        e->stats.resets++;
        if (err->error == COPRO_HWS_ERR_TILER_OOM) {
            /* the OS answered its OOM stop with a failure
             * (vs_hws_up_oom): counted there, not a fault */
        } else if (err->error == COPRO_HWS_ERR_PREEMPT_TIMEOUT) {
            s->stats.tdr_resets++;
            vs_trace(s, VIDSCH_TRACE_RESET, e->index, c, NULL,
                     err->error_fence, 0);
        } else {
            e->stats.faults++;
        }
        /* the guilty context, and it alone, is lost [the device's TDR] */
        while ((sub = vidsch_ring_retire(&c->hwring, UINT64_MAX))) {
            struct vidsch_buf *b = vs_buf_of_sub(sub);

            c->on_gpu--;
            vs_finish(s, b, DDI_ELOST);
        }
        vs_lose_ctx(s, c);
        e->rl_dirty = true;     /* off the run list */
    } else {
        /* a paging queue: its buffers are lost (vidmm's memory state
         * cannot be trusted; as a device reset in software mode) */
        for (unsigned i = 0; i < s->nengines; i++) {
            e = &s->engine[i];
            if (e->paging_hwq != queue) {
                continue;
            }
            while ((sub = vidsch_ring_retire(&e->paging_ring, UINT64_MAX))) {
                vs_finish(s, vs_buf_of_sub(sub), DDI_ELOST);
            }
            s->stats.device_resets++;
        }
    }
    s->cyc.complete += vs_cycles(s) - t0;
    leave_hws(s);
}

/* ---- the scheduling log ---- */

static void started(struct vidsch_ctx *c, uint64_t fence, uint64_t at)
{
    uint64_t sub;

    if (!fence || fence > c->hwq_fence ||
        fence + VS_HWS_HISTORY <= c->hwq_fence) {
        return;                 /* not one we know the submit time of */
    }
    sub = c->hw_submitted_at[fence % VS_HWS_HISTORY];
    if (!sub) {
        return;                 /* counted already */
    }
    c->hw_submitted_at[fence % VS_HWS_HISTORY] = 0;
    vs_count_start(&c->stats, at > sub ? at - sub : 0);
}

/*
 * A queue the watchdog listed suspended is off the engine: it yielded
 * (switched out at an arbitration point, SWITCH_OUT reason RUNLIST), or
 * it was not on the engine when the list was taken. Either way it is not
 * hung: a hung one does not yield, and the device resets it (queue_error).
 * It is listed again at once, its watchdog counting from now, as software
 * mode resumes a buffer its watchdog preempted. (It used to wait for the
 * device's whole timeout, tdr_timeout + tdr_grace + 2 frames, before the
 * watchdog listed it again: a buffer longer than tdr_timeout ran
 * tdr_timeout out of every 2 tdr_timeout + grace, and with the default
 * grace (2 s) a 1 s hog at tdr_ms=500 had not finished 3 s later; issue
 * 26 item 13.)
 */
static void relist_yielded(struct vidsch *s, struct vidsch_ctx *c)
{
    if (!c->hw_suspended || c->hw_in) {
        return;
    }
    c->hw_suspended = false;
    c->hw_progress_at = vs_now(s);
    s->hws_stats.relisted++;
    if (c->engine < s->nengines) {
        s->engine[c->engine].rl_dirty = true;
    }
}

static void log_entry(struct vidsch *s, const struct copro_sched_log_entry *l)
{
    struct vidsch_ctx *c = l->queue < COPRO_HWQ_MAX ? s->hwq_ctx[l->queue]
                                                    : NULL;

    switch (l->kind) {
    case COPRO_SLOG_SWITCH_IN:
        s->hws_stats.device_switches++;
        if (c) {
            c->hw_in = true;
            c->hw_in_at = l->time_ns;
            if (!l->arg1) {
                started(c, l->arg0, l->time_ns);
            } else {
                c->stats.resumed++;     /* from its save area */
            }
        }
        break;
    case COPRO_SLOG_COMPLETED:
        /* the next submission starts at once if the queue stays on */
        if (c && c->hw_in) {
            started(c, l->arg0 + 1, l->time_ns);
        }
        break;
    case COPRO_SLOG_SWITCH_OUT:
        if (c) {
            c->hw_in = false;
            c->stats.gpu_ns += l->arg0;
            if (l->engine < s->nengines) {
                s->engine[l->engine].stats.busy_ns += l->arg0;
            }
            if (l->arg1 == COPRO_SLOG_OUT_RUNLIST) {
                relist_yielded(s, c);
            }
        }
        break;
    case COPRO_SLOG_RUNLIST:
        /* the list with the suspension was taken: a suspended queue not
         * on the engine now is not hung */
        for (unsigned i = 0; i < s->nhw_live; i++) {
            struct vidsch_ctx *o = s->hw_live[i];

            if (o && o->engine == l->engine && !o->lost) {
                relist_yielded(s, o);
            }
        }
        break;
    case COPRO_SLOG_PREEMPTED:
        s->hws_stats.device_preemptions++;
        if (c) {
            c->stats.preemptions++;
        }
        break;
    case COPRO_SLOG_RESET:
        s->hws_stats.device_resets++;
        break;
    case COPRO_SLOG_BUDGET:
        s->hws_stats.budget_drops++;
        break;
    case COPRO_SLOG_FRAME:
        if (c) {
            c->stats.last_frame_ns = l->arg0;
            c->stats.frames_gpu_ns += l->arg0;
            if (l->arg0) {
                c->stats.frames_run++;
                c->stats.frames_budget_ns += c->stats.budget_ns;
                if (c->stats.budget_ns && l->arg0 > c->stats.budget_ns) {
                    c->stats.frames_over++;
                }
            }
            /* smoothed (1/4) and a peak that decays by 1/8 per frame */
            c->hw_avg_frame_ns = (3 * c->hw_avg_frame_ns + l->arg0) / 4;
            c->hw_peak_frame_ns -= c->hw_peak_frame_ns / 8;
            if (l->arg0 > c->hw_peak_frame_ns) {
                c->hw_peak_frame_ns = l->arg0;
            }
        }
        break;
    default:
        break;
    }
}

/*
 * The job list [US 7,444,637: "at every VSYNC ... the actual execution
 * times of the previous frame"; WDDM: the scheduling log]: the periodic
 * contexts (ABOVE_NORMAL and up: video, compositor, cursor) get what
 * they recently needed at most, with a margin (half again, and 100 us);
 * what is left of the frame (less a tenth kept free for the device's
 * switches and late arrivals) is shared by the others in proportion to
 * their class (NORMAL 4, BELOW_NORMAL 2, IDLE 1). A queue past its budget
 * drops to the IDLE band for the rest of the frame: bulk work still
 * fills whatever is left, never before the periodic work.
 */
static void joblist(struct vidsch *s, struct vidsch_engine *e)
{
    static const unsigned weight[VIDSCH_PRIO_COUNT] = { 1, 2, 4, 4, 0, 0 };
    uint64_t avail = s->frame_ns - s->frame_ns / 10, periodic = 0;
    unsigned wsum = 0;
    bool changed = false;

    for (unsigned i = 0; i < s->nhw_live; i++) {
        struct vidsch_ctx *c = s->hw_live[i];

        if (!c || c->engine != e->index || c->lost) {
            continue;
        }
        if (c->base >= VIDSCH_PRIO_ABOVE_NORMAL) {
            periodic += c->hw_peak_frame_ns + c->hw_peak_frame_ns / 2 +
                        100 * US;
        } else {
            wsum += weight[c->base];
        }
    }
    for (unsigned i = 0; i < s->nhw_live; i++) {
        struct vidsch_ctx *c = s->hw_live[i];
        uint64_t want, old;

        if (!c || c->engine != e->index || c->lost) {
            continue;
        }
        if (c->base >= VIDSCH_PRIO_ABOVE_NORMAL) {
            want = c->hw_peak_frame_ns + c->hw_peak_frame_ns / 2 + 100 * US;
        } else {
            uint64_t rest = avail > periodic ? avail - periodic : 0;

            want = wsum ? rest * weight[c->base] / wsum : 0;
            want = want < COPRO_HWS_QUANTUM_MIN_NS ? COPRO_HWS_QUANTUM_MIN_NS
                                                   : want;
        }
        if (want > s->frame_ns) {
            want = s->frame_ns;
        }
        old = c->stats.budget_ns;
        /* rewrite the run list only for a change of an eighth or more */
        if (want > old + old / 8 || want + want / 8 < old) {
            c->stats.budget_ns = want;
            changed = true;
        }
    }
    if (changed) {
        s->hws_stats.budget_updates++;
        e->rl_dirty = true;
    }
}

void vs_hws_up_log(void *os, const struct copro_sched_log_entry *ent,
                   unsigned n, uint32_t dropped)
{
    struct vidsch *s = os;
    bool frame = false;
    uint64_t t0, t1;

    if (!s->hws || (!ent && n)) {
        return;
    }
    enter_hws(s);
    t0 = vs_cycles(s);
    s->hws_stats.log_upcalls++;
    s->log_at = vs_now(s);
    s->hws_stats.log_dropped += dropped;
    for (unsigned i = 0; i < n; i++) {
        const struct copro_sched_log_entry *l = &ent[i];

        s->hws_stats.log_entries++;
        if (l->queue != COPRO_HWQ_NONE &&
            (l->queue >= COPRO_HWQ_MAX || !s->hwq_ctx[l->queue])) {
            /* a paging queue, or one gone since: nothing to account */
            bool paging = false;

            for (unsigned k = 0; k < s->nengines; k++) {
                paging |= s->engine[k].paging_hwq == l->queue;
            }
            s->hws_stats.log_bad += !paging;
            continue;
        }
        frame |= l->kind == COPRO_SLOG_FRAME;
        log_entry(s, l);
    }
    /* reading the log into the statistics: bookkeeping, as retiring */
    t1 = vs_cycles(s);
    s->cyc.complete += t1 - t0;
    if (frame) {
        s->hws_stats.frames++;
        if (s->cfg.policy == VIDSCH_POLICY_JOBLIST) {
            for (unsigned i = 0; i < s->nengines; i++) {
                joblist(s, &s->engine[i]);
            }
        }
    }
    s->cyc.decide += vs_cycles(s) - t1;     /* the budgets */
    leave_hws(s);
}
