/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The property checker. It keeps its own model of where every buffer is
 * (from the scheduler's trace events: elected, handed back, on the ring,
 * retired; and from the GPU model's observer: written to the ring,
 * loaded by the engine, retired, cut or dropped by a stop, hung or
 * faulted) and of the applications' sync objects (read from simulated
 * memory), and judges each decision against it. It never asks the
 * scheduler what it thinks: readiness, priority and waiting times are
 * computed from what was submitted and what the GPU did.
 */
#include "sim_check.h"

#include "sim_check_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct checker *checker_new(void)
{
    struct checker *k = calloc(1, sizeof(*k));

    if (!k) {
        abort();
    }
    k->dma = calloc(WL_MAX_BUF, sizeof(*k->dma));
    if (!k->dma) {
        abort();
    }
    return k;
}

void checker_free(struct checker *k)
{
    free(k->dma);
    free(k);
}

uint64_t chk_now(struct checker *k)
{
    return k->h->clk.now;
}

void chk_fail(struct checker *k, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!k->r->ok) {
        return;     /* the first violation is the one to look at */
    }
    k->r->ok = false;
    n = snprintf(k->r->msg, sizeof(k->r->msg), "t=%" PRIu64 "ns: ",
                 chk_now(k));
    va_start(ap, fmt);
    vsnprintf(k->r->msg + n, sizeof(k->r->msg) - n, fmt, ap);
    va_end(ap);
}

bool chk_policy_is(const struct checker *k, enum vidsch_policy p)
{
    return k->policy == p;
}

static bool priority_rules(const struct checker *k)
{
    if (k->hws) {
        /* the device's bands; budgets (joblist) demote on purpose */
        return chk_policy_is(k, VIDSCH_POLICY_QUANTUM);
    }
    return !chk_policy_is(k, VIDSCH_POLICY_FIFO) ||
           k->o->mutation == MUT_STRICT_FIFO;
}

static bool starvation_rules(const struct checker *k)
{
    return k->hws || chk_policy_is(k, VIDSCH_POLICY_QUANTUM) ||
           (k->o->mutation == MUT_STARVE_PRIORITY &&
            chk_policy_is(k, VIDSCH_POLICY_PRIORITY));
}

/* The device's band of a priority class (vidsch_hws.c's mapping). */
unsigned chk_band_of(unsigned prio)
{
    static const unsigned band[VIDSCH_PRIO_COUNT] = {
        COPRO_BAND_IDLE, COPRO_BAND_IDLE, COPRO_BAND_NORMAL,
        COPRO_BAND_NORMAL, COPRO_BAND_FOCUS, COPRO_BAND_REALTIME,
    };

    return band[prio];
}

static struct cbuf *buf_of_desc(struct checker *k,
                                const struct copro_submit_desc *d)
{
    /* every buffer starts with a NOP whose payload is its index */
    uint32_t idx = *(uint32_t *)sim_gpu_ptr(k->h->gpu, d->dma_addr + 4);

    if (idx >= k->w->nbuf || k->buf[idx].dma->gpu_addr != d->dma_addr) {
        chk_fail(k, "the GPU ran a buffer nobody submitted (0x%" PRIx64 ")",
             d->dma_addr);
        return NULL;
    }
    return &k->buf[idx];
}

struct cctx *chk_ctx_of(struct checker *k, const struct cbuf *b)
{
    return b->ctx < 0 ? NULL : &k->ctx[b->ctx];
}

static struct cctx *ctx_by_id(struct checker *k, uint32_t id)
{
    return id >= 1 && id <= k->w->nctx ? &k->ctx[id - 1] : NULL;
}

/* ---- readiness, as the checker sees it ---- */

static bool blocked(struct checker *k, const struct cctx *c, uint64_t seq)
{
    for (unsigned i = 0; i < c->nwait; i++) {
        const struct cwait *wt = &c->waits[i];

        if (wt->before_seq <= seq &&
            *(volatile uint64_t *)sim_gpu_ptr(k->h->gpu, wt->addr) <
                wt->value) {
            return true;
        }
    }
    return false;
}

/* Could vidsch elect a buffer of c now? Its first queued buffer, if it
 * has one not held by a wait (a buffer elected once passed its waits). */
bool chk_electable(struct checker *k, const struct cctx *c)
{
    if (c->lost) {
        return false;
    }
    for (unsigned i = 0; i < c->nbuf; i++) {
        const struct cbuf *b = &k->buf[c->bufs[i]];

        if (b->accepted && b->where == W_QUEUED) {
            return b->ever_elected || !blocked(k, c, b->seq);
        }
    }
    return false;
}

static bool pending(const struct cbuf *b)
{
    return b->accepted && !b->done && !b->retired;
}

/* Is c waiting for the engine: work to run, none of it running, not held
 * by a wait, not lost? */
static bool waiting(struct checker *k, const struct cctx *c)
{
    if (c->lost || c->loaded) {
        return false;
    }
    for (unsigned i = 0; i < c->nbuf; i++) {
        const struct cbuf *b = &k->buf[c->bufs[i]];

        if (pending(b)) {
            return b->ever_elected || b->where != W_QUEUED ||
                   !blocked(k, c, b->seq);
        }
    }
    return false;
}

static bool turn_rules(const struct checker *k)
{
    return !k->hws && (chk_policy_is(k, VIDSCH_POLICY_QUANTUM) ||
                       (k->o->mutation == MUT_TURNS_PRIORITY &&
                        chk_policy_is(k, VIDSCH_POLICY_PRIORITY)));
}

/*
 * Round robin (quantum): a context that runs while a peer of its own
 * level waits is stopped within a turn (bound_turn) of whichever came
 * later, its run's start or the peer's wait. A peer waits wherever its
 * buffer is: queued, prepared in the slot or on the ring behind the
 * running one (issue 26 item 6: one committed to the ring behind a long
 * buffer waited for all of it). Raised contexts (boosted, lent a level)
 * are left to the starvation and priority rules, and a context's turn
 * at its own level begins no earlier than its last loan or boost ended.
 */
static void check_turns(struct checker *k)
{
    uint64_t now = chk_now(k);

    if (!turn_rules(k)) {
        return;
    }
    for (unsigned e = 0; e < k->w->gpu.engines; e++) {
        const struct cctx *c;

        if (k->turn_ctx[e] < 0) {
            continue;
        }
        c = &k->ctx[k->turn_ctx[e]];
        if (!c->loaded || c->lost || c->boosted || c->lent) {
            continue;
        }
        for (unsigned i = 0; i < k->w->nctx; i++) {
            const struct cctx *h = &k->ctx[i];
            uint64_t since = h->waiting_since > k->turn_since[e]
                             ? h->waiting_since : k->turn_since[e];

            /* raised, c ran on at a level above h's: its turn at h's
             * level began when it came back down */
            if (c->lowered_at > since) {
                since = c->lowered_at;
            }

            if (h != c && h->engine == e && h->prio == c->prio &&
                h->waiting && !h->boosted && !h->lent &&
                now - since > k->bound_turn) {
                chk_fail(k, "ctx %u (%s) ran %" PRIu64 " us while ctx %u of "
                         "its level waited %" PRIu64 " us (a turn: %" PRIu64
                         " us)", c->id, vidsch_priority_name(c->prio),
                         (now - k->turn_since[e]) / US, h->id,
                         (now - h->waiting_since) / US,
                         k->bound_turn / US);
                return;
            }
        }
    }
}

void chk_update_waiting(struct checker *k)
{
    uint64_t now = chk_now(k);

    for (unsigned i = 0; i < k->w->nctx; i++) {
        struct cctx *c = &k->ctx[i];
        bool wnow = waiting(k, c);

        if (wnow && !c->waiting) {
            c->waiting = true;
            c->waiting_since = now;
        } else if (!wnow && c->waiting) {
            c->waiting = false;
            uint64_t bound = k->hws ? c->starve_bound
                                    : k->bound_starve[c->engine];

            if (starvation_rules(k) && now - c->waiting_since > bound) {
                chk_fail(k, "ctx %u (%s) starved: waited %" PRIu64 " us to run "
                     "(bound %" PRIu64 " us)", c->id,
                     vidsch_priority_name(c->prio),
                     (now - c->waiting_since) / US, bound / US);
            }
        }
    }
    check_turns(k);
}

/* ---- the scheduler's decisions (trace) ---- */

static const char *const trace_names[] = {
    "ELECT", "PREPARED", "UNSTAGE", "SUBMIT", "RETIRE", "PREEMPT",
    "PREEMPTED", "RESET", "DEVICE_RESET", "LOST", "BOOST", "UNBOOST",
    "HOLD", "RELEASE", "PREPARE", "FIGHT", "INHERIT",
};

/* The level c runs at: its own, or one lent to it. */
static unsigned effective(const struct cctx *c)
{
    return c->lent && c->lent_level > c->prio ? c->lent_level : c->prio;
}

static void check_elect(struct checker *k, const struct cctx *c)
{
    /* hws: vidsch's election only feeds queues (the device decides) */
    if (!priority_rules(k) || c->boosted || k->hws) {
        return;
    }
    for (unsigned i = 0; i < k->w->nctx; i++) {
        struct cctx *h = &k->ctx[i];

        if (h != c && h->engine == c->engine && h->prio > effective(c) &&
            chk_electable(k, h)) {
            chk_fail(k, "ctx %u (%s) elected while ctx %u (%s) is ready",
                 c->id, vidsch_priority_name(c->prio), h->id,
                 vidsch_priority_name(h->prio));
            return;
        }
    }
}

/*
 * c (guilty: it hung or faulted) is the first context of its device to
 * be lost: from now on, a buffer of the device starts on the GPU only if
 * a sibling had it on a ring then (vidsch_recover.c's vs_lose_ctx): on
 * its engine's ring in software mode (where==W_RING: SUBMIT seen;
 * stop_on_ring stops it at the next arbitration point, what comes back
 * is lost, so a stop clears the mark), in its context's queue ring in
 * hardware mode (SUBMIT seen: vidsch_hws.c keeps the context on the run
 * list until those entries run out). c's own never start again: the
 * engine's reset dropped its ring entries (software), the device reset
 * its queue (hardware). A context of its own (device 0) is its own
 * device.
 */
static void device_lost(struct checker *k, const struct cctx *c)
{
    if (c->device && k->dev_lost[c->device]) {
        return;
    }
    if (c->device) {
        k->dev_lost[c->device] = true;
    }
    for (unsigned i = 0; i < k->w->nbuf; i++) {
        struct cbuf *b = &k->buf[i];
        const struct cctx *o = chk_ctx_of(k, b);

        if (o && (o == c || (c->device && o->device == c->device))) {
            b->in_flight_at_loss = o != c &&
                                   (b->where == W_RING || b->loaded);
            b->held_at_loss = b->accepted && b->where == W_QUEUED &&
                              !b->ever_elected && blocked(k, o, b->seq);
        }
    }
}

/* Has b's device been lost (its context, or a sibling)? */
static bool device_is_lost(const struct checker *k, const struct cctx *c)
{
    return c->lost || (c->device && k->dev_lost[c->device]);
}

/* Has a lost context a buffer on engine e's ring (which vidsch stops at
 * the next arbitration point, whatever the policy)? */
static bool lost_on_ring(const struct checker *k, unsigned e)
{
    for (unsigned i = 0; i < k->w->nbuf; i++) {
        const struct cbuf *b = &k->buf[i];

        if (b->ctx >= 0 && b->engine == e && b->where == W_RING &&
            k->ctx[b->ctx].lost) {
            return true;
        }
    }
    return false;
}

void chk_on_trace(void *arg, const struct vidsch_trace *ev)
{
    struct checker *k = arg;
    struct cbuf *b = NULL;
    struct cctx *c = ctx_by_id(k, ev->context);
    bool has_buf = ev->kind == VIDSCH_TRACE_ELECT ||
                   ev->kind == VIDSCH_TRACE_PREPARE ||
                   ev->kind == VIDSCH_TRACE_PREPARED ||
                   ev->kind == VIDSCH_TRACE_UNSTAGE ||
                   ev->kind == VIDSCH_TRACE_SUBMIT ||
                   ev->kind == VIDSCH_TRACE_RETIRE;

    k->trace_seq++;
    if (k->o->verbose) {
        fprintf(stderr, "%12" PRIu64 " e%u %-12s ctx %u cookie %" PRIu64
                " fence %" PRIu64 " flags %x level %u reason %u\n",
                ev->time, ev->engine, trace_names[ev->kind], ev->context,
                ev->cookie, ev->fence, ev->flags, ev->level, ev->reason);
    }
    if (has_buf) {
        if (ev->cookie >= k->w->nbuf) {
            chk_fail(k, "trace about unknown cookie %" PRIu64, ev->cookie);
            return;
        }
        b = &k->buf[ev->cookie];
    }
    switch (ev->kind) {
    case VIDSCH_TRACE_ELECT:
        if (!c || b->ctx != (int)(c - k->ctx) || b->where != W_QUEUED) {
            chk_fail(k, "elected buffer %" PRIu64 " was not queued", ev->cookie);
            return;
        }
        check_elect(k, c);
        b->where = W_SLOT;
        b->ever_elected = true;
        b->elected_boosted = c->boosted || c->lent;
        break;
    case VIDSCH_TRACE_UNSTAGE:
        b->where = W_QUEUED;
        break;
    case VIDSCH_TRACE_SUBMIT:
        b->where = W_RING;
        b->ring_seq = k->trace_seq;
        break;
    case VIDSCH_TRACE_RETIRE:
        b->where = W_RETIRED;
        k->retire_seen[ev->engine] = chk_now(k);
        break;
    case VIDSCH_TRACE_PREEMPT:
        k->r->preemptions++;
        k->preempt_reason[ev->engine] = ev->reason;
        k->preempt_at[ev->engine] = chk_now(k);
        k->preempt_seq[ev->engine] = k->trace_seq;
        k->preempt_for_lost[ev->engine] = lost_on_ring(k, ev->engine);
        k->retire_at_req[ev->engine] = k->retire_seen[ev->engine];
        if (chk_policy_is(k, VIDSCH_POLICY_FIFO) &&
            ev->reason != VIDSCH_PREEMPT_TDR &&
            !k->preempt_for_lost[ev->engine]) {
            chk_fail(k, "fifo asked for a preemption (reason %u)", ev->reason);
        }
        break;
    case VIDSCH_TRACE_PREEMPTED:
    case VIDSCH_TRACE_RESET:
        if (ev->kind == VIDSCH_TRACE_RESET) {
            k->r->resets++;
        }
        if (k->hws) {
            break;      /* the device reset one queue: the others stay */
        }
        for (unsigned i = 0; i < k->w->nbuf; i++) {
            if (k->buf[i].engine == ev->engine &&
                k->buf[i].where == W_RING) {
                k->buf[i].where = W_QUEUED;
                /* off the ring: a lost device's may not come back */
                k->buf[i].in_flight_at_loss = false;
            }
        }
        break;
    case VIDSCH_TRACE_DEVICE_RESET:
        k->r->device_resets++;
        break;
    case VIDSCH_TRACE_LOST:
        if (!c) {
            chk_fail(k, "unknown context %u lost", ev->context);
            return;
        }
        c->lost = true;
        k->lost_seq = k->trace_seq;
        k->r->lost++;
        if (c->triggered) {
            device_lost(k, c);
        } else if (c->device && k->dev_lost[c->device]) {
            k->r->lost_with_device++;
        } else {
            chk_fail(k, "ctx %u put in error, but none of its buffers hung or "
                 "faulted, nor any of its device's", c->id);
        }
        break;
    case VIDSCH_TRACE_BOOST:
        k->r->boosts++;
        c->boosted = true;
        c->raised_seq = k->trace_seq;
        if (chk_now(k) - c->last_active < k->w->vs.aging_ns) {
            chk_fail(k, "ctx %u boosted after waiting only %" PRIu64 " us "
                 "(aging %" PRIu64 " us)", c->id,
                 (chk_now(k) - c->last_active) / US,
                 k->w->vs.aging_ns / US);
        }
        break;
    case VIDSCH_TRACE_UNBOOST:
        c->boosted = false;
        c->lowered_at = chk_now(k);
        break;
    case VIDSCH_TRACE_INHERIT: {
        const struct cctx *donor = ctx_by_id(k, (uint32_t)ev->fence);

        /* lent only by a context that waits, above the borrower */
        if (ev->reason && (!donor || ev->level <= c->prio ||
                           (!donor->boosted &&
                            effective(donor) < ev->level))) {
            chk_fail(k, "ctx %u lent level %u by ctx %" PRIu64, c->id,
                 ev->level, ev->fence);
        }
        if (!ev->reason && c->lent) {
            c->unlent_level = effective(c);
            c->unlent_at = chk_now(k);
            c->lowered_at = chk_now(k);
            c->unlent_seq = k->trace_seq;
        }
        c->lent = ev->reason != 0;
        c->lent_level = ev->level;
        c->lent_at = chk_now(k);
        c->lent_seq = k->trace_seq;
        if (c->lent) {
            c->raised_seq = k->trace_seq;
        }
        break;
    }
    case VIDSCH_TRACE_RELEASE:
        if (ev->reason) {
            c->last_active = chk_now(k);     /* new work became chk_electable */
        }
        break;
    default:
        break;
    }
}

void chk_on_buffer_done(void *arg, uint64_t cookie, int status)
{
    struct checker *k = arg;
    struct cbuf *b;

    if (cookie >= k->w->nbuf) {
        chk_fail(k, "buffer_done for unknown cookie %" PRIu64, cookie);
        return;
    }
    b = &k->buf[cookie];
    if (k->o->mutation == MUT_DROP_DONE && !k->dropped_one) {
        k->dropped_one = true;
        return;
    }
    if (!b->accepted) {
        chk_fail(k, "buffer %" PRIu64 " reported but never accepted", cookie);
    }
    if (++b->done > 1) {
        chk_fail(k, "buffer %" PRIu64 " reported twice", cookie);
    }
    b->status = status;
}

void chk_on_context_lost(void *arg, uint32_t id)
{
    struct checker *k = arg;
    struct cctx *c = ctx_by_id(k, id);

    if (!c || !c->lost) {
        chk_fail(k, "context_lost(%u) without a LOST decision", id);
    }
}

/* ---- what the GPU did (observer) ---- */

static void obs_submitted(void *arg, unsigned e,
                          const struct copro_submit_desc *d)
{
    struct checker *k = arg;
    struct cbuf *b = buf_of_desc(k, d);
    struct cctx *c;

    if (!b) {
        return;
    }
    c = chk_ctx_of(k, b);
    if (b->engine != e) {
        chk_fail(k, "buffer %ld submitted on engine %u, not %u",
             (long)(b - k->buf), e, b->engine);
    }
    if (d->flags & COPRO_SUBMIT_PAGING) {
        if (b->ctx >= 0) {
            chk_fail(k, "a DMA buffer submitted as paging");
        } else if (!b->paging_fence) {
            if (d->fence <= k->max_fence[e]) {
                chk_fail(k, "paging fence %" PRIu64 " not fresh (max %" PRIu64
                     ")", d->fence, k->max_fence[e]);
            }
            b->paging_fence = d->fence;
        } else if (d->fence != b->paging_fence) {
            chk_fail(k, "paging buffer resubmitted with fence %" PRIu64
                 ", not its own %" PRIu64, d->fence, b->paging_fence);
        }
    } else {
        if (b->ctx < 0) {
            chk_fail(k, "a paging buffer submitted without PAGING");
        }
        if (d->fence <= k->max_fence[e]) {
            chk_fail(k, "fence %" PRIu64 " not above %" PRIu64 " on engine %u",
                 d->fence, k->max_fence[e], e);
        }
        if (c && (d->context != c->id || d->save_addr != c->save)) {
            chk_fail(k, "buffer submitted with context %u save 0x%" PRIx64,
                 d->context, d->save_addr);
        }
    }
    if (d->fence > k->max_fence[e]) {
        k->max_fence[e] = d->fence;
    }
    /* paging buffers a stop dropped go back before any DMA buffer */
    if (k->nexpect[e]) {
        uint16_t want = k->expect[e][0];

        if (&k->buf[want] == b) {
            memmove(k->expect[e], k->expect[e] + 1,
                    --k->nexpect[e] * sizeof(k->expect[e][0]));
        } else {
            chk_fail(k, "buffer %ld submitted before dropped paging buffer %u",
                 (long)(b - k->buf), want);
        }
    }
}

/*
 * b, queued on the ring at its context's level, starts as the entry in
 * front of it ends, and that entry's context was raised (lent a level, or
 * boosted) above b's since b was queued. vidsch never cuts a head whose
 * context would run next (it would resume at once: a wasted preemption),
 * and a ring entry cannot be taken off but by cutting the head; so b
 * starts when the head ends, and vidsch preempts it once it hears of the
 * retirement (what the start bound then covers, as for any decision).
 */
static bool behind_raised(struct checker *k, const struct cbuf *b,
                          const struct cctx *c)
{
    int a = k->ahead_ctx[b->engine];
    const struct cctx *o;

    if (a < 0 || k->ahead_at[b->engine] != chk_now(k)) {
        return false;
    }
    o = &k->ctx[a];
    return o != c && (o->boosted || (o->lent && effective(o) > c->prio)) &&
           o->raised_seq > b->ring_seq;
}

static void check_start(struct checker *k, const struct cbuf *b,
                        const struct cctx *c)
{
    uint64_t now = chk_now(k);

    if (!priority_rules(k) || c->boosted || c->lent || b->elected_boosted ||
        (!k->hws && behind_raised(k, b, c))) {
        return;
    }
    for (unsigned i = 0; i < k->w->nctx; i++) {
        struct cctx *h = &k->ctx[i];
        uint64_t since = h->waiting_since;

        if (k->hws &&
            (chk_band_of(h->prio) <= chk_band_of(c->prio) ||
             /* NORMAL's share to IDLE (starvation protection) */
             (chk_band_of(c->prio) == COPRO_BAND_IDLE &&
              chk_band_of(h->prio) == COPRO_BAND_NORMAL &&
              k->h->hws.cfg.low_share))) {
            continue;
        }
        /* h waits on c only since c lost a level lent above h's: until
         * then c was the more urgent, and its buffers already on the
         * ring were entitled to run */
        if (c->unlent_level > h->prio && c->unlent_at > since) {
            since = c->unlent_at;
        }
        if (h != c && h->engine == c->engine && h->prio > c->prio &&
            h->waiting && waiting(k, h) &&
            now - since > k->bound_start) {
            chk_fail(k, "ctx %u (%s) starts while ctx %u (%s) has waited %"
                 PRIu64 " us (bound %" PRIu64 " us)", c->id,
                 vidsch_priority_name(c->prio), h->id,
                 vidsch_priority_name(h->prio),
                 (now - h->waiting_since) / US, k->bound_start / US);
            return;
        }
    }
}

/* Since engine e's last preemption request, a context of e lost a level
 * lent above c's: the request may have been for its work, urgent no more
 * (its lender was handed a buffer back, or released). */
static bool loan_ended(const struct checker *k, unsigned e,
                       const struct cctx *c)
{
    for (unsigned i = 0; i < k->w->nctx; i++) {
        const struct cctx *o = &k->ctx[i];

        if (o->engine == e && o->unlent_seq > k->preempt_seq[e] &&
            o->unlent_level > c->prio) {
            return true;
        }
    }
    return false;
}

static void obs_loaded(void *arg, unsigned e,
                       const struct copro_submit_desc *d)
{
    struct checker *k = arg;
    struct cbuf *b = buf_of_desc(k, d);
    struct cctx *c;

    if (!b) {
        return;
    }
    b->loaded = true;
    b->loaded_at = chk_now(k);
    if (k->o->verbose) {
        fprintf(stderr, "%12" PRIu64 " e%u   gpu loads  ctx %u cookie %ld "
                "fence %" PRIu64 " flags %x\n", chk_now(k), e, d->context,
                (long)(b - k->buf), d->fence, d->flags);
    }
    c = chk_ctx_of(k, b);
    if (!c) {
        return;
    }
    if (k->cut_ctx[e] >= 0) {
        /* Not wasted: a level lent to the interrupted context after the
         * request, in the same instant too (a context began to wait on
         * its signal). It is then the most urgent work, which must run
         * next (the priority rules above), and a request cannot be
         * taken back (the DDI has no cancel): new information, not a
         * wrong decision. */
        bool raised = c->lent && c->lent_seq > k->preempt_seq[e];
        /* nor when a context was lost since the request: the work it
         * was asked for may be gone (a prepared buffer of a context lost
         * with its device) */
        bool gone = k->lost_seq > k->preempt_seq[e];
        /* nor when a level lent above the cut one was taken back since
         * the request (the same new information the other way: the work
         * it was asked for is urgent no more; a lender is no longer held
         * once a buffer of its own is handed back to it) */
        bool lowered = loan_ended(k, e, c);

        if (k->cut_ctx[e] == b->ctx && !c->lost && !raised && !gone &&
            !lowered &&
            !chk_policy_is(k, VIDSCH_POLICY_FIFO) && !k->hws) {
            chk_fail(k, "wasted preemption: ctx %u was preempted mid-buffer, "
                 "then ran next", c->id);
        }
        k->cut_ctx[e] = -1;
    }
    if (device_is_lost(k, c)) {
        if (!b->in_flight_at_loss) {
            chk_fail(k, "buffer %ld of ctx %u starts after its device %u "
                     "was lost (it was not on a ring then)",
                     (long)(b - k->buf), c->id, c->device);
        }
        k->r->device_ran_after += c->device != 0;
    }
    c->loaded++;
    c->last_active = chk_now(k);
    if (k->turn_ctx[e] != b->ctx) {
        k->turn_ctx[e] = b->ctx;
        k->turn_since[e] = chk_now(k);
    }
    check_start(k, b, c);
    if (k->check_order && !(d->flags & COPRO_SUBMIT_RESUME)) {
        if (b->order < k->last_order[e]) {
            chk_fail(k, "fifo: buffer %ld started after a later submission",
                 (long)(b - k->buf));
        }
        k->last_order[e] = b->order;
    }
}

static void unload(struct checker *k, struct cbuf *b)
{
    struct cctx *c = chk_ctx_of(k, b);

    if (b->loaded && c) {
        c->loaded--;
        c->last_active = chk_now(k);
    }
    b->loaded = false;
}

static void obs_retired(void *arg, unsigned e,
                        const struct copro_submit_desc *d)
{
    struct checker *k = arg;
    struct cbuf *b = buf_of_desc(k, d);

    if (b) {
        if (k->o->verbose) {
            fprintf(stderr, "%12" PRIu64 " e%u   gpu retires cookie %ld fence "
                    "%" PRIu64 "\n", chk_now(k), e, (long)(b - k->buf),
                    d->fence);
        }
        unload(k, b);
        b->retired++;
        k->r->last_retired_ns = chk_now(k);
        k->ahead_ctx[e] = b->ctx;
        k->ahead_at[e] = chk_now(k);
    }
}

static void obs_stopped(void *arg, unsigned e, bool reset,
                        const struct copro_submit_desc *cut,
                        const struct copro_submit_desc *dropped, unsigned n)
{
    struct checker *k = arg;
    uint16_t list[WL_MAX_BUF];
    unsigned m = 0;

    if (k->o->verbose) {
        fprintf(stderr, "%12" PRIu64 " e%u   gpu %s: cut fence %" PRIu64
                ", %u dropped\n", chk_now(k), e,
                reset ? "reset" : "preempted", cut ? cut->fence : 0, n);
    }
    if (cut) {
        struct cbuf *b = buf_of_desc(k, cut);

        if (!b) {
            return;
        }
        unload(k, b);
        /* a preemption for more urgent work or a turn's end must let
         * another context run next (the watchdog's may resume the same).
         * Not counted: the race no driver avoids, b loaded before the
         * request while vidsch had not yet heard that the one before
         * it retired (the request was meant for that one); nor the stop
         * of a lost device's buffer on the ring, which cuts whoever
         * runs ahead of it */
        k->cut_ctx[e] = !reset && b->ctx >= 0 &&
                        k->preempt_reason[e] != VIDSCH_PREEMPT_TDR &&
                        !k->preempt_for_lost[e] &&
                        !(b->loaded_at <= k->preempt_at[e] &&
                          k->retire_at_req[e] <= b->loaded_at)
                        ? b->ctx : -1;
        if (reset && b->ctx < 0) {
            list[m++] = (uint16_t)(b - k->buf);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        struct cbuf *b = buf_of_desc(k, &dropped[i]);

        if (b && b->ctx < 0 && m < WL_MAX_BUF) {
            list[m++] = (uint16_t)(b - k->buf);
        }
    }
    /* these go back first, ahead of those still expected from before */
    for (unsigned i = 0; i < k->nexpect[e] && m < WL_MAX_BUF; i++) {
        list[m++] = k->expect[e][i];
    }
    memcpy(k->expect[e], list, m * sizeof(list[0]));
    k->nexpect[e] = m;
}

static void trigger(struct checker *k, const struct copro_submit_desc *d)
{
    struct cbuf *b = d ? buf_of_desc(k, d) : NULL;
    struct cctx *c = b ? chk_ctx_of(k, b) : NULL;

    if (c && k->o->mutation != MUT_FORGET_TRIGGERS) {
        c->triggered = true;
    }
}

static void obs_faulted(void *arg, unsigned e,
                        const struct copro_submit_desc *d, uint32_t kind)
{
    struct checker *k = arg;

    if (kind != COPRO_FAULT_INJECTED) {
        chk_fail(k, "engine %u faulted (kind %u) on fence %" PRIu64, e, kind,
             d ? d->fence : 0);
        return;
    }
    trigger(k, d);
}

static void obs_hung(void *arg, unsigned e, const struct copro_submit_desc *d)
{
    (void)e;
    trigger(arg, d);
}

const struct sim_gpu_observer chk_observer = {
    .submitted = obs_submitted, .loaded = obs_loaded,
    .retired = obs_retired, .stopped = obs_stopped,
    .faulted = obs_faulted, .hung = obs_hung,
};
