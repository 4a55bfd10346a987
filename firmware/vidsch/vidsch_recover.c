/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What vidsch does when an engine's work ends: retirement, and the three
 * early stops.
 *
 *  PREEMPTED   the interrupted buffer goes back to the front of its
 *              context's queue with RESUME (same save area, never patched
 *              again); the dropped ones go back in order; paging buffers
 *              to the front of the paging queue with their fence ids.
 *  TDR         the watchdog (vidsch_tdr) sees no progress for
 *              tdr_timeout_ns: preempt (a healthy long buffer yields and
 *              resumes later); not honoured within tdr_grace_ns: reset the
 *              engine [DxgkDdiResetEngine]. The buffer it aborted was the
 *              culprit: its context is lost (its process hears "device
 *              removed"); every other buffer is innocent and runs again.
 *              More than tdr_limit TDRs within tdr_window_ns, or a paging
 *              buffer caught by one, and every engine is reset (our model
 *              of an adapter reset [DxgkDdiResetFromTimeout]): innocents
 *              caught mid-buffer on the other engines start over.
 *  FAULTED     the engine halted on a buffer's memory or command error:
 *              reset it; the faulting context is lost, the rest run again.
 *
 * Fences that fit nothing the scheduler submitted (a driver or device
 * bug) are counted, and the engine is reset with everything resubmitted.
 */
#include "vidsch/vidsch_internal.h"

void vs_head_changed(struct vidsch *s, struct vidsch_engine *e)
{
    uint64_t now = vs_now(s);
    struct vidsch_buf *b = vs_ring_head(e);
    struct vidsch_ctx *c;

    e->head_since = now;
    if (!b || !b->ctx) {
        return;
    }
    c = b->ctx;
    if (e->watch_wasted) {
        /* the first DMA buffer to run after a preemption: the same
         * context's means the preemption bought nothing */
        e->watch_wasted = false;
        if (c->id == e->watch_ctx) {
            e->stats.wasted_preemptions++;
            c->stats.wasted_preemptions++;
        }
    }
    if (!b->started) {
        b->started = true;
        vs_count_start(&c->stats, now - b->submitted_at);
    }
    /* Not a sign that c ran (for aging): reaching the head of our list
     * is when it starts unless a stop is on its way, which drops it. Its
     * retirement or interruption says it ran (charge_head). */
    vs_ctx_account(s, c);
}

/* Charges the ring head's time on the engine until now to its context. */
static void charge_head(struct vidsch *s, struct vidsch_engine *e,
                        struct vidsch_buf *b)
{
    uint64_t now = vs_now(s), ran = now - e->head_since;

    e->stats.busy_ns += ran;
    b->ran_ns += ran;
    if (b->ctx) {
        b->ctx->stats.gpu_ns += ran;
        b->ctx->credit -= (int64_t)ran;
        b->ctx->ready_since = now;
    }
    e->head_since = now;
}

void vs_retire_upto(struct vidsch *s, struct vidsch_engine *e,
                    uint64_t completed)
{
    struct vidsch_sub *sub;

    while ((sub = vidsch_ring_retire(&e->ring, completed))) {
        struct vidsch_buf *b = vs_buf_of_sub(sub);
        struct vidsch_ctx *c = b->ctx;

        charge_head(s, e, b);
        e->stats.completed++;
        vs_trace(s, VIDSCH_TRACE_RETIRE, e->index, NULL, b, sub->fence, 0);
        if (c && b->split && b->part.end < b->dma->len_bytes) {
            /* a portion, not the buffer: on to the next one (its
             * completion is reported once, after the last) */
            vs_portion_done(s, e, b);
            vs_head_changed(s, e);
            continue;
        }
        if (c) {
            c->on_gpu--;
            if (!b->split) {
                /* weight 1/4: a few buffers make the estimate */
                c->buf_avg_ns = c->buf_avg_ns
                    ? c->buf_avg_ns - (c->buf_avg_ns >> 2) + (b->ran_ns >> 2)
                    : b->ran_ns;
            }
        }
        vs_finish(s, b, DDI_OK);
        vs_head_changed(s, e);
        if (c) {
            vs_ctx_update(s, c);
        }
    }
}

/*
 * Empties the ring after a stop the fences were checked for: the
 * interrupted or dropped entries go back (newest first, so each context's
 * order stays), all but an aborted one, which is returned (still counted
 * on the GPU for its context) for the caller to blame or restart.
 */
static struct vidsch_buf *stop_requeue(struct vidsch *s,
                                       struct vidsch_engine *e,
                                       enum vidsch_stop_kind kind,
                                       uint64_t completed,
                                       uint64_t interrupted)
{
    struct vidsch_buf *aborted = NULL, *head = vs_ring_head(e);
    struct vidsch_sub *sub;
    struct vs_list back;
    struct vs_link *n;

    vs_list_init(&back);
    while ((sub = vidsch_ring_pop(&e->ring))) {
        struct vidsch_buf *b = vs_buf_of_sub(sub);
        enum vidsch_fate fate = vidsch_ring_fate(sub, kind, completed,
                                                 interrupted);

        sub->flags = vidsch_fate_resubmit_flags(sub, fate);
        switch (fate) {
        case VIDSCH_FATE_PREEMPTED:
            b->ctx->stats.preemptions++;
            break;
        case VIDSCH_FATE_ABORTED:
            aborted = b;
            break;
        default:
            e->stats.dropped++;
            break;
        }
        if ((fate == VIDSCH_FATE_PREEMPTED || fate == VIDSCH_FATE_ABORTED) &&
            b == head) {
            charge_head(s, e, b);   /* it executed until now */
        }
        if (b != aborted) {
            b->where = VS_SLOT;     /* in transit */
            vs_list_push_back(&back, &b->link);
        }
    }
    e->head_since = vs_now(s);
    while ((n = vs_list_last(&back))) {
        struct vidsch_buf *b = vs_container_of(n, struct vidsch_buf, link);

        vs_list_remove(&back, n);
        vs_requeue_front(s, e, b);
    }
    if (head && head->ctx) {
        vs_ctx_account(s, head->ctx);
    }
    return aborted;
}

/* Starts an innocent buffer caught by a reset over, first in line. */
static void restart(struct vidsch *s, struct vidsch_engine *e,
                    struct vidsch_buf *b)
{
    b->sub.flags &= ~COPRO_SUBMIT_RESUME;
    vs_requeue_front(s, e, b);
}

/*
 * A paging buffer was lost in a reset (it was the culprit, caught mid-way:
 * its transfers half done, some of its UNMAPs run, so it cannot simply
 * run again). The DMA buffers waiting for it (prepared in an engine's
 * slot, held back until its ticket is done: no other place holds one)
 * must not run on whatever their allocations hold now: each is reported
 * finished with DDI_ELOST and never runs; its context goes on. The
 * allocations it moved are vidmm's to mark (vidmm_paging_lost): later
 * buffers that use them are refused the same way.
 */
static void fail_paging_waiters(struct vidsch *s, uint64_t ticket)
{
    for (unsigned i = 0; i < s->nengines; i++) {
        struct vidsch_engine *e = &s->engine[i];
        struct vidsch_buf *b = e->slot;

        if (b && b->ctx && b->resident && b->wait_ticket >= ticket) {
            e->slot = NULL;
            b->ctx->on_gpu--;
            vs_finish(s, b, DDI_ELOST);
            vs_ctx_update(s, b->ctx);
        }
    }
}

/* The aborted buffer was the culprit: it is lost, and so is its context. */
static void blame(struct vidsch *s, struct vidsch_buf *b)
{
    struct vidsch_ctx *c = b->ctx;

    if (!c && b->ticket) {
        fail_paging_waiters(s, b->ticket);
    }

    if (c) {
        c->on_gpu--;
    }
    vs_finish(s, b, DDI_ELOST);
    if (c) {
        vs_lose_ctx(s, c);
    }
}

/* Resets e and settles its ring; returns the aborted buffer (caller's). */
static struct vidsch_buf *engine_reset(struct vidsch *s,
                                       struct vidsch_engine *e)
{
    struct ddi_reset_report rep = { 0 };
    uint64_t interrupted;
    struct vidsch_buf *aborted;

    s->ops->reset_engine(s->drv, e->index, &rep);
    e->preempt_id = 0;          /* a reset cancels a request in flight */
    e->stats.resets++;
    vs_trace(s, VIDSCH_TRACE_RESET, e->index, NULL, NULL,
             rep.aborted_fence, 0);
    interrupted = rep.aborted_fence;
    if (vidsch_ring_check_stop(&e->ring, VIDSCH_STOP_RESET,
                               rep.completed_fence, interrupted)) {
        /* cannot tell who ran: everyone is innocent and runs again */
        e->stats.inconsistent++;
        interrupted = 0;
    }
    vs_retire_upto(s, e, rep.completed_fence);
    aborted = stop_requeue(s, e, VIDSCH_STOP_RESET, rep.completed_fence,
                           interrupted);
    vidsch_tdr_reset_done(&e->tdr, vs_now(s), e->ring.completed);
    return aborted;
}

/* Every engine reset at once; the culprit of guilty_e loses its context. */
static void device_reset(struct vidsch *s, struct vidsch_engine *guilty_e)
{
    s->stats.device_resets++;
    s->tdr_count = 0;
    vs_trace(s, VIDSCH_TRACE_DEVICE_RESET, guilty_e->index, NULL, NULL, 0, 0);
    for (unsigned i = 0; i < s->nengines; i++) {
        struct vidsch_engine *e = &s->engine[i];
        struct vidsch_buf *b = engine_reset(s, e);

        if (!b) {
            continue;
        }
        if (e == guilty_e) {
            blame(s, b);    /* a paging culprit is lost, nobody's fault */
        } else {
            restart(s, e, b);
        }
    }
}

static void tdr_reset(struct vidsch *s, struct vidsch_engine *e)
{
    uint64_t now = vs_now(s);
    struct vidsch_buf *head = vs_ring_head(e), *b;
    unsigned recent = 0;

    s->stats.tdr_resets++;
    /* forget the TDRs that left the window */
    for (unsigned i = 0; i < s->tdr_count; i++) {
        if (now - s->tdr_times[i] < s->cfg.tdr_window_ns) {
            s->tdr_times[recent++] = s->tdr_times[i];
        }
    }
    s->tdr_count = recent;
    if (recent >= s->cfg.tdr_limit || (head && !head->ctx)) {
        /* too many in the window (WDDM: TdrLimitCount in TdrLimitTime),
         * or a paging buffer hung (WDDM escalates, TdrReason 9) */
        device_reset(s, e);
        return;
    }
    if (s->tdr_count < VS_TDR_HISTORY) {
        s->tdr_times[s->tdr_count++] = now;
    }
    b = engine_reset(s, e);
    if (b) {
        blame(s, b);
    }
}

void vs_tdr_poll(struct vidsch *s, struct vidsch_engine *e)
{
    switch (vidsch_tdr_check(&e->tdr, vs_now(s), e->ring.completed,
                             vidsch_ring_count(&e->ring) > 0)) {
    case VIDSCH_TDR_PREEMPT:
        /* a request already in flight serves as the watchdog's too */
        vs_request_preempt(s, e, VIDSCH_PREEMPT_TDR);
        break;
    case VIDSCH_TDR_RESET:
        tdr_reset(s, e);
        break;
    default:
        break;
    }
}

void vs_on_preempted(struct vidsch *s, struct vidsch_engine *e,
                     uint64_t preempt_fence, uint64_t preempted,
                     uint64_t completed)
{
    if (!e->preempt_id || preempt_fence != e->preempt_id) {
        /* e.g. answered after a reset cancelled it: only the retirements
         * it reports are news */
        e->stats.stale_upcalls++;
        vs_retire_upto(s, e, completed);
        return;
    }
    e->preempt_id = 0;
    if (vidsch_ring_check_stop(&e->ring, VIDSCH_STOP_PREEMPT, completed,
                               preempted)) {
        struct vidsch_buf *b;

        e->stats.inconsistent++;
        b = engine_reset(s, e);
        if (b) {
            restart(s, e, b);
        }
        return;
    }
    vs_retire_upto(s, e, completed);
    if (preempted) {
        struct vidsch_buf *h = vs_ring_head(e);
        uint64_t took = vs_now(s) - e->preempt_at;

        /* the save is in there, plus the way to the arbitration point:
         * the shortest one is the best measure of the save alone */
        if (!e->switch_ns || took < e->switch_ns) {
            e->switch_ns = took;
        }
        /* the watchdog's grace covers what a healthy engine needs */
        if (2 * took > e->tdr.cfg.grace_ns) {
            e->tdr.cfg.grace_ns = 2 * took;
        }

        /* the interrupted buffer is the head (older ones retired) */
        e->watch_wasted = h && h->ctx && h->sub.fence == preempted;
        e->watch_ctx = e->watch_wasted ? h->ctx->id : 0;
    }
    vs_slot_yields_to_ring(s, e);
    stop_requeue(s, e, VIDSCH_STOP_PREEMPT, completed, preempted);
    e->stats.preemptions++;
    if (preempted) {
        e->stats.preempted_mid_buffer++;
    }
    vs_trace(s, VIDSCH_TRACE_PREEMPTED, e->index, NULL, NULL, preempted, 0);
    vidsch_tdr_preempted(&e->tdr, vs_now(s), e->ring.completed);
}

bool vs_on_stopped(struct vidsch *s, struct vidsch_engine *e,
                   uint64_t completed, uint64_t interrupted)
{
    if (vidsch_ring_check_stop(&e->ring, VIDSCH_STOP_PREEMPT, completed,
                               interrupted)) {
        struct vidsch_buf *b;

        e->stats.inconsistent++;
        b = engine_reset(s, e);
        if (b) {
            restart(s, e, b);
        }
        return false;
    }
    vs_retire_upto(s, e, completed);
    stop_requeue(s, e, VIDSCH_STOP_PREEMPT, completed, interrupted);
    return true;
}

void vs_on_fault(struct vidsch *s, struct vidsch_engine *e,
                 const struct ddi_fault *f)
{
    struct vidsch_buf *culprit = NULL, *b;
    struct vidsch_ctx *c;

    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        struct vidsch_sub *sub = vs_container_of(n, struct vidsch_sub, link);

        if (sub->fence == f->fence && f->fence > e->ring.completed) {
            culprit = vs_buf_of_sub(sub);
            break;
        }
    }
    if (!culprit) {
        /* about a submission settled already (a reset came first) */
        e->stats.stale_upcalls++;
        return;
    }
    e->stats.faults++;
    c = culprit->ctx;
    if (!c) {
        device_reset(s, e);
        return;
    }
    b = engine_reset(s, e);
    if (b && b->ctx == c) {
        blame(s, b);
    } else if (b) {
        restart(s, e, b);
    }
    vs_lose_ctx(s, c);
}

/* Puts c in error without writing its signals yet (vs_lose_ctx writes
 * them once every context of its device is in error too). */
static void lose_one(struct vidsch *s, struct vidsch_ctx *c)
{
    struct vidsch_engine *e = &s->engine[c->engine];
    struct vidsch_buf *b;

    c->lost = true;
    s->stats.contexts_lost++;
    vs_trace(s, VIDSCH_TRACE_LOST, c->engine, c, NULL, 0, 0);
    vs_list_push_back(&s->lost, &c->lost_link);
    if (e->slot && e->slot->ctx == c) {
        b = e->slot;
        e->slot = NULL;
        c->on_gpu--;
        vs_finish(s, b, DDI_ELOST);
    }
    while ((b = vs_queue_head(c))) {
        vs_list_remove(&c->queue, &b->link);
        vs_finish(s, b, DDI_ELOST);
    }
    c->unfed = NULL;
    while (!vs_list_empty(&c->waits)) {
        vs_sync_free(s, vs_container_of(vs_list_pop_front(&c->waits),
                                        struct vidsch_sync, link));
    }
    vs_ctx_update(s, c);
    if (s->hws) {
        s->engine[c->engine].rl_dirty = true;   /* off the run list */
    }
}

/* A context of a device lost with another (not itself guilty) may have
 * a buffer on its engine's ring, perhaps not begun yet: the engine stops
 * it at its next arbitration point, as for a destroyed context, and what
 * comes back is reported lost (vs_requeue_front); others' entries come
 * back as after any preemption. */
static void stop_on_ring(struct vidsch *s, struct vidsch_ctx *c)
{
    struct vidsch_engine *e = &s->engine[c->engine];

    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        if (vs_buf_of_sub(vs_container_of(n, struct vidsch_sub,
                                          link))->ctx == c) {
            vs_request_preempt(s, e, VIDSCH_PREEMPT_OTHER);
            return;
        }
    }
}

/*
 * c is put in error, and with it every other context of its device
 * (vidsch_ctx_set_device) [WDDM: a device removed stops all of its
 * contexts]: all are marked lost first, their queued, prepared and held
 * buffers reported lost, never run; only then are their signals written.
 * Losing c alone would let its signals release a held buffer of a
 * sibling (the tile pass of a scene whose geometry was lost) before
 * the OS heard of the loss.
 */
void vs_lose_ctx(struct vidsch *s, struct vidsch_ctx *c)
{
    if (c->lost) {
        return;
    }
    lose_one(s, c);
    if (c->device) {
        for (unsigned i = 0; i < s->cfg.max_contexts; i++) {
            struct vidsch_ctx *o = &s->ctxs[i];

            if (o->used && !o->lost && o->device == c->device) {
                lose_one(s, o);
                s->stats.contexts_lost_with_device++;
                stop_on_ring(s, o);
            }
        }
        for (unsigned i = 0; i < s->cfg.max_contexts; i++) {
            struct vidsch_ctx *o = &s->ctxs[i];

            if (o->used && o != c && o->device == c->device) {
                vs_fire_signals(s, o);
            }
        }
    }
    vs_fire_signals(s, c);
}
