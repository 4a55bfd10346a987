/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch's decisions for one engine: which context is ready, which buffer
 * runs next (election), when to hand a prepared buffer back, when to
 * preempt, and what goes on the ring. Every decision looks at a fixed
 * number of things (the top of a bitmap, list heads, the few ring
 * entries), never at every context, so its cost does not grow with the
 * number of contexts.
 *
 * Policies:
 *
 *  fifo      buffers run in the order they became electable (submission
 *            order, but a buffer held by a wait does not hold up others);
 *            never preempts: the cooperative, pre-WDDM baseline.
 *  priority  the highest ready level runs; equal levels take turns buffer
 *            by buffer; a prepared buffer of a higher level preempts
 *            lower ones on the ring.
 *  quantum   priority, and within a level each context has a turn of
 *            quantum_ns of GPU time (deficit round robin: an overrun is
 *            paid back on its next turn, up to one quantum); when it is
 *            over and another context of the level waits, the next one's
 *            buffer preempts it. A context ready for aging_ns without
 *            running is boosted to the level currently on top for one
 *            turn (vs_age()). Eviction fighting (fight_sample()) lengthens
 *            the turns of a level whose contexts keep paging each other's
 *            allocations out. Turns and aging are vidsch_turn.c's.
 *
 * The patent's rule that a buffer being prepared is not preempted holds:
 * the slot's buffer is only reconsidered once the worker has prepared it.
 * A prepared buffer still waiting for room on the ring is handed back to
 * its context (still prepared: it is not patched again) when something
 * more urgent is ready, as a dropped ring entry would be.
 */
#include "vidsch/vidsch_internal.h"

int64_t vs_credit_now(struct vidsch *s, const struct vidsch_ctx *c)
{
    const struct vidsch_engine *e = &s->engine[c->engine];
    struct vidsch_buf *h = vs_ring_head(e);
    int64_t credit = c->credit;

    if (h && h->ctx == c) {
        credit -= (int64_t)(vs_now(s) - e->head_since);
    }
    return credit;
}

/* ---- context state ---- */

static void rq_leave(struct vidsch *s, struct vidsch_ctx *c, bool new_work)
{
    struct vidsch_engine *e = vs_engine_of(s, c);

    switch (c->rstate) {
    case VS_CTX_READY:
        if (!vs_fifo(s)) {
            vidsch_ready_remove(&e->rq, c->level, &c->rq);
        }
        break;
    case VS_CTX_HELD:
        vs_list_remove(&s->held, &c->rq);
        vs_trace(s, VIDSCH_TRACE_RELEASE, c->engine, c, NULL, 0,
                 new_work && !c->on_gpu);
        vs_inherit_release(s, c);
        break;
    }
}

static void rq_enter(struct vidsch *s, struct vidsch_ctx *c, bool at_head,
                     bool new_work)
{
    struct vidsch_engine *e = vs_engine_of(s, c);

    switch (c->rstate) {
    case VS_CTX_READY:
        /* Aging measures how long a context has wanted the engine
         * without getting it: the clock starts when work comes to a
         * context that had none anywhere. A buffer handed back
         * (unstaged, dropped) never ran, and new work behind buffers
         * still waiting on the ring is more of the same wait. */
        if (new_work && !c->on_gpu) {
            c->ready_since = vs_now(s);
        }
        if (vs_fifo(s)) {
            break;
        }
        /* an interrupted turn resumes before the others of its level */
        if (at_head || c->in_turn) {
            vidsch_ready_push_front(&e->rq, c->level, &c->rq);
        } else {
            vidsch_ready_push_back(&e->rq, c->level, &c->rq);
        }
        break;
    case VS_CTX_HELD:
        vs_list_push_back(&s->held, &c->rq);
        vs_trace(s, VIDSCH_TRACE_HOLD, c->engine, c, NULL, 0, 0);
        vs_inherit_from(s, c);
        break;
    case VS_CTX_IDLE:
        break;
    }
}

/* fifo: append c's buffers that became electable to the engine's fifo */
static void fifo_feed(struct vidsch *s, struct vidsch_ctx *c)
{
    struct vidsch_engine *e = vs_engine_of(s, c);

    while (c->unfed && !vs_blocking_wait(s, c, c->unfed->seq)) {
        struct vidsch_buf *b = c->unfed;

        vs_list_push_back(&e->fifo, &b->fifo);
        b->in_fifo = true;
        c->unfed = vs_entry(vs_list_next(&c->queue, &b->link),
                            struct vidsch_buf, link);
    }
}

static void ctx_update_at(struct vidsch *s, struct vidsch_ctx *c,
                          bool at_head, bool new_work)
{
    enum vs_ctx_state want;

    if (!c->used || c->lost || c->dying) {
        want = VS_CTX_IDLE;
    } else if (vs_fifo(s)) {
        fifo_feed(s, c);
        want = c->unfed ? VS_CTX_HELD
               : vs_list_empty(&c->queue) ? VS_CTX_IDLE : VS_CTX_READY;
    } else {
        struct vidsch_buf *head = vs_queue_head(c);

        want = !head || c->split_open ? VS_CTX_IDLE
               : vs_blocking_wait(s, c, head->seq) ? VS_CTX_HELD
               : VS_CTX_READY;
    }
    if (want != c->rstate) {
        rq_leave(s, c, new_work);
        c->rstate = want;
        rq_enter(s, c, at_head, new_work);
    }
    /* Nothing left to elect and nothing on the GPU: its turn (and any
     * boost) is over. With buffers still on the GPU it is not: a stop may
     * give them back, and they run in the same turn. */
    if (c->rstate == VS_CTX_IDLE && !c->on_gpu) {
        c->in_turn = false;
        if (c->boosted) {
            vs_unboost(s, c);
        }
    }
    vs_ctx_account(s, c);
}

void vs_ctx_update(struct vidsch *s, struct vidsch_ctx *c)
{
    ctx_update_at(s, c, false, true);
}

/*
 * Puts b back in its context's queue in submission order: in front of
 * everything never elected, behind older buffers given back before it (a
 * stop hands back a ring's worth, newest first; a prepared buffer handed
 * back comes behind its context's older ones). Only those can be ahead
 * of it, so the walk is a few entries, whatever the number of contexts.
 * In fifo order the same holds on the engine's list.
 */
static void queue_insert(struct vidsch *s, struct vidsch_engine *e,
                         struct vidsch_buf *b)
{
    struct vidsch_ctx *c = b->ctx;
    struct vs_link *pos = NULL;

    for (struct vs_link *n = vs_list_first(&c->queue);
         n && vs_container_of(n, struct vidsch_buf, link)->seq < b->seq;
         n = vs_list_next(&c->queue, n)) {
        pos = n;
    }
    if (pos) {
        vs_list_insert_after(&c->queue, pos, &b->link);
    } else {
        vs_list_push_front(&c->queue, &b->link);
    }
    if (vs_fifo(s) && c->unfed && c->unfed->seq <= b->seq) {
        /* behind where its context is held (a TILER_OOM's partial render
         * holds it from an older buffer: vidsch_scene.c): fifo_feed puts
         * it on the engine's list in turn, after the older ones. On the
         * list now, it would be elected first and handed back again for
         * ever, and the older ones never fed ahead of it. */
        return;
    }
    if (vs_fifo(s)) {
        unsigned budget = s->caps.ring_entries + 2;

        pos = NULL;
        for (struct vs_link *n = vs_list_first(&e->fifo); n && budget--;
             n = vs_list_next(&e->fifo, n)) {
            struct vidsch_buf *o = vs_container_of(n, struct vidsch_buf,
                                                   fifo);

            if (o->ctx == c && o->seq < b->seq) {
                pos = n;
            }
        }
        if (pos) {
            vs_list_insert_after(&e->fifo, pos, &b->fifo);
        } else {
            vs_list_push_front(&e->fifo, &b->fifo);
        }
        b->in_fifo = true;
    }
}

void vs_requeue_front(struct vidsch *s, struct vidsch_engine *e,
                      struct vidsch_buf *b)
{
    struct vidsch_ctx *c = b->ctx;

    if (!c) {
        /* paging: first again, with its fence id */
        b->where = VS_QUEUED;
        vs_list_push_front(&e->paging, &b->link);
        return;
    }
    c->on_gpu--;
    vs_release_resident(s, b, 0);
    if (b->split) {
        c->split_open = false;  /* b itself is the queue's head again */
    }
    if (c->lost || c->dying) {
        vs_finish(s, b, DDI_ELOST);
        vs_ctx_account(s, c);
        return;
    }
    b->where = VS_QUEUED;
    queue_insert(s, e, b);
    /* It was elected before whatever is ready now, so it keeps its place
     * at the head of its level; unless its turn is what ended. */
    ctx_update_at(s, c, !(vs_quantum(s) && vs_credit_now(s, c) <= 0), false);
}

/* DMA buffers on the ring: what the depth limits. Paging entries are
 * not counted: they are never preempted and go first anyway. (A walk of
 * a few ring entries, not of contexts.) */
static unsigned dma_on_ring(const struct vidsch_engine *e)
{
    unsigned n = 0;

    for (struct vs_link *l = vs_list_first(&e->ring.subs); l;
         l = vs_list_next(&e->ring.subs, l)) {
        n += vs_buf_of_sub(vs_container_of(l, struct vidsch_sub,
                                           link))->ctx != NULL;
    }
    return n;
}

/* ---- the switch cost ---- */

/*
 * The switch cost. A preemption that interrupts a buffer costs the
 * engine a context save, and a restore when the buffer resumes: twice
 * the switch time of GPU time that runs nobody's work (the device's
 * ctx-state-size at its copy bandwidth: 30 us each with 256 KiB, 2 ms
 * with 16 MiB), and the urgent work waits for the save anyway. The
 * driver reports the save time (caps.ctx_switch_ns: copro's
 * CTX_SWITCH_NS register); a driver that does not know it reports 0 and
 * vidsch measures it: the shortest request-to-PREEMPTED time of a
 * preemption that interrupted a buffer (the save, plus the way to the
 * arbitration point). With that cost c = 2 x switch time:
 *  - a running buffer expected to end within VS_SWITCH_WAIT x c (its
 *    context's smoothed buffer time less what it has run) is not
 *    preempted: the urgent work starts at its end instead, and nothing
 *    is spent on switching; a buffer that outruns its estimate is
 *    preempted then (vs_pick_deadline wakes the scheduler at the
 *    expected end);
 *    This holds for both reasons to preempt: more urgent work, and the
 *    end of a turn (quantum), which then ends at the buffer's end. Only
 *    when the head is alone on the ring: anything behind it would start
 *    before the urgent work;
 *  - a context whose buffers are that short keeps one buffer on the
 *    ring, as on a device without preemption, so the urgent work waits
 *    for the end of one buffer, not of two.
 */
#define VS_SWITCH_WAIT  2

uint64_t vs_switch_ns(const struct vidsch *s, const struct vidsch_engine *e)
{
    return s->caps.ctx_switch_ns ? s->caps.ctx_switch_ns : e->switch_ns;
}

static uint64_t switch_cost(const struct vidsch *s,
                            const struct vidsch_engine *e)
{
    return 2 * vs_switch_ns(s, e);
}

/* Does c run buffers short enough to wait for rather than preempt? */
static bool short_buffers(const struct vidsch *s,
                          const struct vidsch_engine *e,
                          const struct vidsch_ctx *c)
{
    uint64_t cost = switch_cost(s, e);

    return cost && c && c->buf_avg_ns &&
           c->buf_avg_ns <= VS_SWITCH_WAIT * cost;
}

/* The ring head is expected to end within the wait allowance: when. */
static bool head_ends_soon(struct vidsch *s, struct vidsch_engine *e,
                           uint64_t *end)
{
    const struct vidsch_buf *h = vs_ring_head(e);
    uint64_t now = vs_now(s), ran;

    if (!h || h->split || !short_buffers(s, e, h->ctx) ||
        dma_on_ring(e) > 1) {
        /* (with more behind the head, those would start before the
         * urgent work when it ends: preempt now) */
        return false;
    }
    ran = h->ran_ns + (now - e->head_since);
    if (ran >= h->ctx->buf_avg_ns) {
        return false;           /* it outran its estimate: preempt */
    }
    *end = now + (h->ctx->buf_avg_ns - ran);
    return true;
}

/* DMA buffers the ring may hold now (see the switch cost). */
static unsigned depth_now(const struct vidsch *s,
                          const struct vidsch_engine *e)
{
    struct vs_link *l = vs_list_last(&e->ring.subs);
    const struct vidsch_buf *last;

    if (s->cfg.ring_depth || e->depth <= 1 || !l) {
        return e->depth;
    }
    last = vs_buf_of_sub(vs_container_of(l, struct vidsch_sub, link));
    return short_buffers(s, e, last->ctx) ? 1 : e->depth;
}

/* ---- election ---- */

static struct vidsch_buf *elect(struct vidsch *s, struct vidsch_engine *e)
{
    struct vidsch_ctx *c;
    struct vidsch_buf *b;

    if (vs_fifo(s)) {
        b = vs_entry(vs_list_first(&e->fifo), struct vidsch_buf, fifo);
        if (!b) {
            return NULL;
        }
        if (b->ctx->split_open) {
            /* a context's next buffer waits for its split buffer's
             * last portion; the portion retires shortly (fifo: the
             * cooperative baseline, whose head of line this is) */
            return NULL;
        }
        vs_list_remove(&e->fifo, &b->fifo);
        b->in_fifo = false;
        c = b->ctx;
    } else {
        c = vs_pick_ctx(s, e);
        if (!c) {
            return NULL;
        }
        b = vs_queue_head(c);
    }
    vs_list_remove(&c->queue, &b->link);
    b->where = VS_SLOT;
    c->on_gpu++;
    e->slot = b;
    /* patched once, but its allocations may have moved since: a buffer
     * handed back goes through the worker again for residency */
    e->slot_prepared = b->prepared && (b->resident ||
                                       !s->env.make_resident);
    e->stats.elected++;
    vs_trace(s, VIDSCH_TRACE_ELECT, e->index, c, b, 0, 0);
    ctx_update_at(s, c, false, false);
    if (s->cfg.policy == VIDSCH_POLICY_PRIORITY &&
        c->rstate == VS_CTX_READY) {
        /* equal levels take turns buffer by buffer */
        vidsch_ready_remove(&e->rq, c->level, &c->rq);
        vidsch_ready_push_back(&e->rq, c->level, &c->rq);
    }
    return b;
}

/* A buffer of another context at level >= c's on e's ring: it waits
 * for its turn there as much as in a ready list (issue 26 item 6: a
 * peer's buffer committed behind the head is runnable work; ignored, the
 * head's turn never ended while nobody else was ready). */
bool vs_peer_on_ring(const struct vidsch_engine *e,
                     const struct vidsch_ctx *c)
{
    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        const struct vidsch_ctx *d = vs_buf_of_sub(
            vs_container_of(n, struct vidsch_sub, link))->ctx;

        if (d && d != c && d->level >= c->level) {
            return true;
        }
    }
    return false;
}

/* Is there, besides c, a context at level >= c's ready, elected, or
 * with a buffer on the ring? */
static bool someone_waits(const struct vidsch_engine *e,
                          const struct vidsch_ctx *c)
{
    int top = vidsch_ready_top(&e->rq);

    if (top > c->level) {
        return true;
    }
    if (top == c->level &&
        vidsch_ready_count(&e->rq, top) >
            (c->rstate == VS_CTX_READY && c->level == top ? 1u : 0u)) {
        return true;
    }
    if (e->slot && e->slot->ctx && e->slot->ctx != c &&
        e->slot->ctx->level >= c->level) {
        return true;
    }
    return vs_peer_on_ring(e, c);
}

/* The slot's prepared buffer x should yield to what is ready now, or
 * to an older buffer of its own context that a stop gave back (a
 * context's buffers run in order: one save area, one stream). */
static bool staged_outranked(struct vidsch *s, struct vidsch_engine *e,
                             const struct vidsch_buf *x)
{
    const struct vidsch_ctx *d = x->ctx;
    const struct vidsch_buf *older = d ? vs_queue_head(d) : NULL;
    int top = vidsch_ready_top(&e->rq);

    if (older && older->seq < x->seq) {
        return true;
    }
    if (vs_fifo(s) || !d || top < 0) {
        return false;
    }
    if (top > d->level) {
        return true;
    }
    return vs_quantum(s) && top == d->level && someone_waits(e, d) &&
           vs_credit_now(s, d) <= 0;
}

static void unstage(struct vidsch *s, struct vidsch_engine *e)
{
    struct vidsch_buf *b = e->slot;

    e->slot = NULL;
    e->stats.unstaged++;
    vs_trace(s, VIDSCH_TRACE_UNSTAGE, e->index, NULL, b, 0, 0);
    vs_requeue_front(s, e, b);
}

/*
 * The level d competes at against c. A level that c itself lent d
 * (priority inheritance: c is held on a wait that d's signal satisfies)
 * does not count against c: preempting c hands back c's buffers that are
 * still on the ring, older than its wait, so c is no longer held, takes
 * its level back (vs_inherit_release: d returns to its own class) and
 * outranks d's buffer at once. c would run next: the same wasted
 * preemption head_stays() avoids, reached through a lent level. c's
 * buffers in front of its wait run first, then c is held again and d
 * runs at the lent level. The same holds down a chain of loans (c lent
 * its level to b, held on a wait that d signals, and b passed it on to
 * d): handing back c's buffers releases b, which releases d. Each loan
 * goes to a lower level than the lender's, so a chain is at most
 * VIDSCH_PRIO_COUNT long.
 */
static unsigned level_against(const struct vidsch_ctx *d,
                              const struct vidsch_ctx *c)
{
    const struct vidsch_ctx *w = d;

    for (unsigned i = 0; i < VIDSCH_PRIO_COUNT && w->inherited && w->donor;
         i++) {
        w = w->donor;
        if (w == c) {
            return d->base;
        }
    }
    return d->level;
}

/* Why entry r on the ring should make way for prepared x, or -1. */
static int displaced_by(struct vidsch *s, const struct vidsch_buf *r,
                        const struct vidsch_buf *x)
{
    const struct vidsch_ctx *c = r->ctx, *d = x->ctx;
    unsigned dl;

    if (!c || !d) {
        return -1;      /* paging entries are never preempted */
    }
    dl = level_against(d, c);
    if (dl > c->level) {
        return VIDSCH_PREEMPT_PRIORITY;
    }
    if (vs_quantum(s) && dl == c->level && c != d &&
        vs_credit_now(s, c) <= 0 && vs_credit_now(s, d) > 0) {
        /* (a turn with nothing left, its overrun paid back, would hand
         * x back at once: c would run again, preempted for nothing) */
        return VIDSCH_PREEMPT_QUANTUM;
    }
    return -1;
}

static int ring_displaced_by(struct vidsch *s, struct vidsch_engine *e,
                             const struct vidsch_buf *x)
{
    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        int why = displaced_by(s, vs_buf_of_sub(
            vs_container_of(n, struct vidsch_sub, link)), x);

        if (why >= 0) {
            return why;
        }
    }
    return -1;
}

/*
 * Never cut a head whose context would run next. A preemption stops the
 * ring's head and hands back what is behind it; the head's context goes
 * back to the front of its level (unless its quantum turn is over). It
 * is still the most urgent work, and resumes at once, when:
 *  - it is x's own context (its older buffer goes back in front of x: one
 *    stream, in order);
 *  - it is at a higher level than x (x is handed back: staged_outranked);
 *  - it is at x's level and x's context has an older buffer on the ring:
 *    that one comes back in front of x, x is handed back, and the head's
 *    context is first at the level.
 * The preemption then bought two context-state transfers and a resume for
 * nothing (a wasted preemption: vidsch_engine_stats.wasted_preemptions).
 * It happened when x outranked only an entry queued behind the head: the
 * game's buffer running, the hog's queued behind it, the game's next one
 * prepared; an entry queued at a level since taken back behind a higher
 * context's buffer; a peer whose turn is over queued behind one whose
 * turn goes on. Then the decision waits for the head to retire: the
 * entry x outranks is the head then, and it is the one preempted. (One
 * race remains, as on any GPU: the head may have retired on the device
 * with its upcall still on the way, and the request then cuts the next
 * entry.)
 */
static bool head_stays(struct vidsch *s, const struct vidsch_engine *e,
                       const struct vidsch_buf *x)
{
    const struct vidsch_buf *h = vs_ring_head(e);
    const struct vidsch_ctx *c = h ? h->ctx : NULL, *d = x->ctx;
    unsigned dl;

    /* (at dma-buffer granularity the head is never cut: it ends, and
     * only the entries behind it are dropped; a paging head is never
     * preempted) */
    if (s->caps.preemption == COPRO_PREEMPT_DMA_BUFFER || !c || !d) {
        return false;
    }
    if (c == d) {
        return true;
    }
    dl = level_against(d, c);
    if (c->level != dl) {
        return c->level > dl;
    }
    if (vs_quantum(s) && vs_credit_now(s, c) <= 0) {
        return false;   /* its turn is over: it goes to the tail */
    }
    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        if (vs_buf_of_sub(vs_container_of(n, struct vidsch_sub,
                                          link))->ctx == d) {
            return true;
        }
    }
    return false;
}

/*
 * The head's turn is over and a peer's buffer waits on the ring behind
 * it (quantum): the head is cut as it would be for a peer's buffer in the
 * slot. Without this, a context whose buffer was committed behind a long
 * one (a fresh context's, elected while the ring had room) waited for the
 * whole of it whenever nobody else was ready. The peer must have its turn
 * ahead (credit left), or the stop would give the engine back to the head
 * (a wasted preemption). Why, or -1. (A walk of the ring's few entries.)
 */
static int turn_over_for_ring(struct vidsch *s, struct vidsch_engine *e)
{
    const struct vidsch_buf *h = vs_ring_head(e);
    const struct vidsch_ctx *c = h ? h->ctx : NULL;

    if (!c || !vs_quantum(s) || vs_credit_now(s, c) > 0 ||
        s->caps.preemption == COPRO_PREEMPT_NONE ||
        s->caps.preemption == COPRO_PREEMPT_DMA_BUFFER) {
        /* (at dma-buffer granularity the head runs to its end anyway:
         * a stop would only drop the peer's buffer) */
        return -1;
    }
    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        const struct vidsch_ctx *d = vs_buf_of_sub(
            vs_container_of(n, struct vidsch_sub, link))->ctx;

        if (d && d != c && level_against(d, c) == c->level &&
            vs_credit_now(s, d) > 0) {
            return VIDSCH_PREEMPT_QUANTUM;
        }
    }
    return -1;
}

/*
 * A stop is about to give back the ring's entries. Those of another
 * context than the head's, at the level of the slot's buffer or above,
 * were committed before it was elected: their turn came first, and they
 * go back on the ring first. The slot's buffer is handed back before
 * them, so that they end up in front of it in its level. Otherwise it
 * went on the ring first after every stop and they behind it again, to
 * be dropped by the next turn's end (issue 26 item 6: a game's frame
 * dropped turn after turn while fresh contexts' long buffers ran).
 */
void vs_slot_yields_to_ring(struct vidsch *s, struct vidsch_engine *e)
{
    const struct vidsch_buf *h = vs_ring_head(e), *x = e->slot;
    const struct vidsch_ctx *c = h ? h->ctx : NULL, *d = x ? x->ctx : NULL;

    if (!d || !e->slot_prepared || vs_fifo(s)) {
        return;     /* (one being prepared is never touched) */
    }
    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        const struct vidsch_ctx *r = vs_buf_of_sub(
            vs_container_of(n, struct vidsch_sub, link))->ctx;

        if (r && r != c && r != d && r->level >= d->level) {
            unstage(s, e);
            return;
        }
    }
}

void vs_request_preempt(struct vidsch *s, struct vidsch_engine *e,
                        enum vidsch_preempt_reason why)
{
    uint64_t id;

    if (e->preempt_id) {
        return;
    }
    id = ++e->preempt_seq;
    if (s->ops->preempt(s->drv, e->index, id) != DDI_OK) {
        return;
    }
    e->preempt_id = id;
    e->preempt_at = vs_now(s);
    e->stats.preempt_requests[why]++;
    vs_trace(s, VIDSCH_TRACE_PREEMPT, e->index, NULL, NULL, id, why);
}

/* ---- the ring ---- */

/* Writes b to the ring [DxgkDdiSubmitCommand]; false if the driver
 * refused (b stays where it was). */
static bool ring_submit(struct vidsch *s, struct vidsch_engine *e,
                        struct vidsch_buf *b)
{
    struct vidsch_ctx *c = b->ctx;
    struct vidsch_sub *last = vs_entry(vs_list_last(&e->ring.subs),
                                       struct vidsch_sub, link);
    bool keep_fence = vs_is_paging(b) && b->sub.fence &&
                      b->sub.fence > e->ring.completed &&
                      (!last || b->sub.fence > last->fence);
    uint64_t fence = keep_fence ? b->sub.fence : e->last_fence + 1;
    struct ddi_submit_args a = {
        .engine = e->index,
        /* a split buffer's portion: a range of whole packets, so a
         * dword-aligned address and length, as the ring requires */
        .dma_addr = b->dma->gpu_addr + vs_run_first(b),
        .dma_len = vs_run_end(b) - vs_run_first(b),
        .fence = fence,
        .context = c ? c->id : 0,
        .save_addr = c ? c->save_addr : 0,
        .flags = b->sub.flags,
    };
    bool was_empty = vidsch_ring_count(&e->ring) == 0;

    /* a paging buffer keeps its fence unless that could no longer be
     * told apart (never expected: it goes back first after a stop) */
    if (vs_is_paging(b) && b->sub.fence && !keep_fence) {
        e->stats.inconsistent++;
    }
    if (s->ops->submit(s->drv, &a) != DDI_OK) {
        return false;
    }
    if (!keep_fence) {
        e->last_fence = fence;
    }
    b->sub.fence = fence;
    b->sub.save_addr = a.save_addr;
    vidsch_ring_push(&e->ring, &b->sub);
    b->where = VS_RING;
    if (c) {
        if (b->sub.flags & COPRO_SUBMIT_RESUME) {
            c->stats.resumed++;
        } else if (b->submissions) {
            c->stats.resubmitted++;
        }
    }
    b->submissions++;
    e->stats.submitted++;
    vs_trace(s, VIDSCH_TRACE_SUBMIT, e->index, NULL, b, fence, 0);
    vidsch_tdr_submitted(&e->tdr, vs_now(s));
    if (was_empty) {
        vs_head_changed(s, e);
    }
    return true;
}

static unsigned ring_limit(const struct vidsch *s)
{
    return s->caps.ring_entries > 1 ? s->caps.ring_entries - 1 : 1;
}


/*
 * A DMA buffer never waits on the ring behind a buffer of a higher level:
 * it stays prepared in the slot until the ring has drained to its level.
 * Queued there, it would either start the moment the higher buffer
 * retires while higher work is ready (a lower context starting while a
 * higher one waits), or have to be preempted out from behind the higher
 * context's running buffer, which interrupts that buffer too only for it
 * to run again (a wasted preemption, see head_stays). Kept in the
 * slot, it is simply handed back when higher work is ready. The price is
 * the upcall latency once per fall to a lower level, not a preemption.
 */
static bool behind_higher(const struct vidsch *s,
                          const struct vidsch_engine *e,
                          const struct vidsch_buf *b)
{
    if (vs_fifo(s)) {
        return false;   /* no priorities: nothing is ever preempted */
    }
    for (struct vs_link *l = vs_list_first(&e->ring.subs); l;
         l = vs_list_next(&e->ring.subs, l)) {
        const struct vidsch_buf *r = vs_buf_of_sub(
            vs_container_of(l, struct vidsch_sub, link));

        if (r->ctx && b->ctx && r->ctx->level > b->ctx->level) {
            return true;
        }
    }
    return false;
}

static void fill_ring(struct vidsch *s, struct vidsch_engine *e)
{
    struct vidsch_buf *b;

    if (e->preempt_id) {
        return;     /* the engine would drop whatever goes on now */
    }
    while ((b = vs_entry(vs_list_first(&e->paging), struct vidsch_buf,
                         link)) &&
           vidsch_ring_count(&e->ring) < ring_limit(s)) {
        vs_list_remove(&e->paging, &b->link);
        if (!ring_submit(s, e, b)) {
            vs_list_push_front(&e->paging, &b->link);
            return;
        }
    }
    if (!vs_list_empty(&e->paging)) {
        return;     /* paging buffers first */
    }
    b = e->slot;
    if (b && e->slot_prepared && vs_paging_ready(s, b) &&
        dma_on_ring(e) < depth_now(s, e) && !behind_higher(s, e, b) &&
        vidsch_ring_count(&e->ring) < ring_limit(s)) {
        e->slot = NULL;
        if (!ring_submit(s, e, b)) {
            e->slot = b;
        }
    }
}

/*
 * Eviction fighting with its avoidance on: while the running context's
 * turn lasts, a peer's buffer (same level) is not prepared ahead.
 * Preparing it pages the peer's working set in under the turn, evicting
 * what the running context uses next, and the turn's next buffer usually
 * follows at once (an application submits it from the completion of the
 * one before): the working sets then change places at every buffer, not
 * at every turn, and longer turns page no less (fighting measured 2.5 GB
 * with avoidance against 2.4 GB without, issue 26). The peer's buffer is
 * prepared once the ring drained or the turn is over; a higher level is
 * prepared ahead as always.
 */
static bool turn_keeps_memory(struct vidsch *s, const struct vidsch_engine *e)
{
    const struct vidsch_buf *h = vs_ring_head(e);
    const struct vidsch_ctx *c = h ? h->ctx : NULL;

    return vs_quantum(s) && e->fighting && s->cfg.fight_factor > 1 && c &&
           c->in_turn && !vs_queue_head(c) &&
           vidsch_ready_top(&e->rq) == (int)c->level &&
           vs_credit_now(s, c) > 0;
}

static bool may_elect(struct vidsch *s, const struct vidsch_engine *e)
{
    if (s->cfg.serial_prepare) {
        /* the baseline: prepare only once the engine has nothing */
        return vidsch_ring_count(&e->ring) == 0 && !e->preempt_id;
    }
    if (turn_keeps_memory(s, e)) {
        return false;
    }
    /* prepare the next one while the ring's last one runs (at the
     * full depth: what is prepared may have to preempt the ring) */
    return dma_on_ring(e) <= e->depth;
}

/* A boosted context whose turn has used its quantum goes back to its own
 * level at once, even with nobody else at the level it was boosted to:
 * the levels it jumped over may be waiting, and its buffer on the ring
 * must become theirs to preempt. (Only the running context spends
 * credit, so only the ring's head needs looking at.) */
static void expire_boost(struct vidsch *s, struct vidsch_engine *e)
{
    struct vidsch_buf *h = vs_ring_head(e);
    struct vidsch_ctx *c = h ? h->ctx : NULL;

    if (c && c->boosted && c->boost_spent && vs_credit_now(s, c) <= 0) {
        vs_end_turn(s, c);
    }
}

void vs_schedule_engine(struct vidsch *s, struct vidsch_engine *e)
{
    bool deferred;

    vs_tdr_poll(s, e);
    if (s->sync_dirty) {
        /* a signal was written (a retirement, a lost context): whoever
         * it releases competes in the decisions below */
        s->sync_dirty = false;
        vs_poll_held(s);
    }
    if (vs_quantum(s)) {
        expire_boost(s, e);
        vs_age(s, e);
    }
    e->stats.switch_ns = vs_switch_ns(s, e);
    deferred = e->preempt_deferred;
    e->preempt_deferred = false;
    for (unsigned pass = 0; pass < e->depth + 3; pass++) {
        struct vidsch_buf *x = e->slot;

        if (x && e->slot_prepared && staged_outranked(s, e, x)) {
            unstage(s, e);
            x = NULL;
        }
        if (x && e->slot_prepared && !e->preempt_id && !vs_fifo(s) &&
            s->caps.preemption != COPRO_PREEMPT_NONE) {
            int why = ring_displaced_by(s, e, x);

            if (why >= 0 && !head_stays(s, e, x)) {
                uint64_t end;

                if (head_ends_soon(s, e, &end)) {
                    e->preempt_deferred = true;
                    e->defer_until = end;
                } else {
                    vs_request_preempt(s, e,
                                       (enum vidsch_preempt_reason)why);
                }
            }
        }
        if (!e->preempt_id && !e->preempt_deferred) {
            int why = turn_over_for_ring(s, e);
            uint64_t end;

            if (why >= 0 && head_ends_soon(s, e, &end)) {
                e->preempt_deferred = true;
                e->defer_until = end;
            } else if (why >= 0) {
                vs_request_preempt(s, e, (enum vidsch_preempt_reason)why);
            }
        }
        fill_ring(s, e);
        if (e->slot || !may_elect(s, e) || !elect(s, e) ||
            !e->slot_prepared) {
            break;
        }
        /* elected a buffer prepared already: it may go on at once */
    }
    if (e->preempt_deferred && !deferred) {
        e->stats.preempts_deferred++;
    }
    if (e->resident_wait && e->resident_wait_gen != s->release_gen) {
        e->resident_wait = false;   /* memory may have come free */
    }
    if (e->slot && !e->slot_prepared && !e->resident_wait &&
        !s->work_queued) {
        s->work_queued = true;
        s->env.queue_work(s->env.os);
    }
}

uint64_t vs_pick_deadline(struct vidsch *s, struct vidsch_engine *e)
{
    uint64_t when = VS_NEVER;
    struct vidsch_buf *h;

    if (e->preempt_deferred) {
        /* look again when the head should have ended (switch cost) */
        when = e->defer_until + 1;
    }
    if (!vs_quantum(s)) {
        return when;
    }
    for (int l = 0; l < vidsch_ready_top(&e->rq); l++) {
        struct vs_link *n = vidsch_ready_head(&e->rq, (unsigned)l);

        for (unsigned i = 0; n && i < VS_AGING_LOOK; i++) {
            struct vidsch_ctx *c = vs_rq_ctx(n);

            if (!c->on_gpu && c->ready_since + s->cfg.aging_ns < when) {
                when = c->ready_since + s->cfg.aging_ns;
            }
            n = vs_list_next(&e->rq.level[l], n);
        }
    }
    /* the end of the running context's turn matters when someone waits,
     * and always when it is a boosted turn */
    h = vs_ring_head(e);
    if (h && h->ctx && (someone_waits(e, h->ctx) ||
                        (h->ctx->boosted && h->ctx->boost_spent))) {
        int64_t left = vs_credit_now(s, h->ctx);

        if (left > 0 && vs_now(s) + (uint64_t)left < when) {
            when = vs_now(s) + (uint64_t)left;
        }
    }
    return when;
}
