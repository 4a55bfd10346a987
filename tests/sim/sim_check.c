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

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US  1000ull
#define MS  1000000ull
#define SCRATCH_BYTES   (4u << 20)

enum where { W_NONE, W_QUEUED, W_SLOT, W_RING, W_RETIRED };

struct cbuf {
    struct ddi_dmabuf *dma;
    int ctx;                    /* -1: paging */
    unsigned engine;
    uint64_t check_addr, fence_addr, fence_value;
    uint32_t check_bytes, pattern;
    uint8_t where;
    bool accepted, loaded, ever_elected, elected_boosted;
    uint64_t loaded_at;         /* the model last loaded it */
    unsigned done, retired;
    int status;
    uint64_t seq;               /* per context, as vidsch numbers them */
    uint64_t order;             /* global submission order */
    uint64_t paging_fence;
};

struct cwait {
    uint64_t addr, value, before_seq;
};

struct cctx {
    struct vidsch_ctx *vc;
    uint32_t id;
    unsigned engine, prio;
    uint64_t save;
    bool lost, boosted, triggered;
    bool lent;                  /* runs at a level lent through a sync
                                   object (priority inheritance) ... */
    unsigned lent_level;        /* ... this one */
    uint64_t lent_at;           /* ... since then */
    uint64_t last_active;       /* ran, or became ready with new work */
    uint64_t starve_bound;      /* hws: how long it may wait */
    bool waiting;
    uint64_t waiting_since;
    uint64_t next_seq;
    unsigned loaded;
    unsigned nbuf;
    uint16_t bufs[WL_MAX_BUF];  /* in submission order */
    unsigned nwait;
    struct cwait waits[WL_MAX_SYNC];
};

struct checker {
    struct ddi_dmabuf *dma;     /* WL_MAX_BUF, reused */
    struct cbuf buf[WL_MAX_BUF];
    struct cctx ctx[WL_MAX_CTX];
    const struct workload *w;
    struct sim_host *h;
    const struct check_opts *o;
    struct check_result *r;
    uint64_t sync_addr[WL_MAX_SYNC];
    uint64_t scratch;
    uint64_t max_fence[DDI_MAX_ENGINES];
    uint16_t expect[DDI_MAX_ENGINES][WL_MAX_BUF];  /* paging to go first */
    unsigned nexpect[DDI_MAX_ENGINES];
    bool check_order;
    uint64_t last_order[DDI_MAX_ENGINES];
    uint64_t next_order;
    uint64_t bound_start;       /* priority: how late a lower one may start */
    uint64_t bound_starve[DDI_MAX_ENGINES];
    bool dropped_one;
    /* wasted preemptions: the reason of the engine's last request, and
     * the context a preemption cut mid-buffer (-1: none pending) */
    unsigned preempt_reason[DDI_MAX_ENGINES];
    uint64_t preempt_at[DDI_MAX_ENGINES];   /* last request */
    uint64_t retire_seen[DDI_MAX_ENGINES];  /* vidsch's last RETIRE */
    uint64_t retire_at_req[DDI_MAX_ENGINES];    /* ... at the request */
    int cut_ctx[DDI_MAX_ENGINES];
    /* hardware scheduling */
    bool hws;
    enum vidsch_policy policy;  /* the one the run uses */
};

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

static uint64_t now_of(struct checker *k)
{
    return k->h->clk.now;
}

static void fail(struct checker *k, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!k->r->ok) {
        return;     /* the first violation is the one to look at */
    }
    k->r->ok = false;
    n = snprintf(k->r->msg, sizeof(k->r->msg), "t=%" PRIu64 "ns: ",
                 now_of(k));
    va_start(ap, fmt);
    vsnprintf(k->r->msg + n, sizeof(k->r->msg) - n, fmt, ap);
    va_end(ap);
}

static bool policy_is(const struct checker *k, enum vidsch_policy p)
{
    return k->policy == p;
}

static bool priority_rules(const struct checker *k)
{
    if (k->hws) {
        /* the device's bands; budgets (joblist) demote on purpose */
        return policy_is(k, VIDSCH_POLICY_QUANTUM);
    }
    return !policy_is(k, VIDSCH_POLICY_FIFO) ||
           k->o->mutation == MUT_STRICT_FIFO;
}

static bool starvation_rules(const struct checker *k)
{
    return k->hws || policy_is(k, VIDSCH_POLICY_QUANTUM) ||
           (k->o->mutation == MUT_STARVE_PRIORITY &&
            policy_is(k, VIDSCH_POLICY_PRIORITY));
}

/* The device's band of a priority class (vidsch_hws.c's mapping). */
static unsigned band_of(unsigned prio)
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
        fail(k, "the GPU ran a buffer nobody submitted (0x%" PRIx64 ")",
             d->dma_addr);
        return NULL;
    }
    return &k->buf[idx];
}

static struct cctx *ctx_of(struct checker *k, const struct cbuf *b)
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
static bool electable(struct checker *k, const struct cctx *c)
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

static void update_waiting(struct checker *k)
{
    uint64_t now = now_of(k);

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
                fail(k, "ctx %u (%s) starved: waited %" PRIu64 " us to run "
                     "(bound %" PRIu64 " us)", c->id,
                     vidsch_priority_name(c->prio),
                     (now - c->waiting_since) / US, bound / US);
            }
        }
    }
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
            electable(k, h)) {
            fail(k, "ctx %u (%s) elected while ctx %u (%s) is ready",
                 c->id, vidsch_priority_name(c->prio), h->id,
                 vidsch_priority_name(h->prio));
            return;
        }
    }
}

static void on_trace(void *arg, const struct vidsch_trace *ev)
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

    if (k->o->verbose) {
        fprintf(stderr, "%12" PRIu64 " e%u %-12s ctx %u cookie %" PRIu64
                " fence %" PRIu64 " flags %x level %u reason %u\n",
                ev->time, ev->engine, trace_names[ev->kind], ev->context,
                ev->cookie, ev->fence, ev->flags, ev->level, ev->reason);
    }
    if (has_buf) {
        if (ev->cookie >= k->w->nbuf) {
            fail(k, "trace about unknown cookie %" PRIu64, ev->cookie);
            return;
        }
        b = &k->buf[ev->cookie];
    }
    switch (ev->kind) {
    case VIDSCH_TRACE_ELECT:
        if (!c || b->ctx != (int)(c - k->ctx) || b->where != W_QUEUED) {
            fail(k, "elected buffer %" PRIu64 " was not queued", ev->cookie);
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
        break;
    case VIDSCH_TRACE_RETIRE:
        b->where = W_RETIRED;
        k->retire_seen[ev->engine] = now_of(k);
        break;
    case VIDSCH_TRACE_PREEMPT:
        k->r->preemptions++;
        k->preempt_reason[ev->engine] = ev->reason;
        k->preempt_at[ev->engine] = now_of(k);
        k->retire_at_req[ev->engine] = k->retire_seen[ev->engine];
        if (policy_is(k, VIDSCH_POLICY_FIFO) &&
            ev->reason != VIDSCH_PREEMPT_TDR) {
            fail(k, "fifo asked for a preemption (reason %u)", ev->reason);
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
            }
        }
        break;
    case VIDSCH_TRACE_DEVICE_RESET:
        k->r->device_resets++;
        break;
    case VIDSCH_TRACE_LOST:
        if (!c) {
            fail(k, "unknown context %u lost", ev->context);
            return;
        }
        c->lost = true;
        k->r->lost++;
        if (!c->triggered) {
            fail(k, "ctx %u put in error, but none of its buffers hung or "
                 "faulted", c->id);
        }
        break;
    case VIDSCH_TRACE_BOOST:
        k->r->boosts++;
        c->boosted = true;
        if (now_of(k) - c->last_active < k->w->vs.aging_ns) {
            fail(k, "ctx %u boosted after waiting only %" PRIu64 " us "
                 "(aging %" PRIu64 " us)", c->id,
                 (now_of(k) - c->last_active) / US,
                 k->w->vs.aging_ns / US);
        }
        break;
    case VIDSCH_TRACE_UNBOOST:
        c->boosted = false;
        break;
    case VIDSCH_TRACE_INHERIT: {
        const struct cctx *donor = ctx_by_id(k, (uint32_t)ev->fence);

        /* lent only by a context that waits, above the borrower */
        if (ev->reason && (!donor || ev->level <= c->prio ||
                           (!donor->boosted &&
                            effective(donor) < ev->level))) {
            fail(k, "ctx %u lent level %u by ctx %" PRIu64, c->id,
                 ev->level, ev->fence);
        }
        c->lent = ev->reason != 0;
        c->lent_level = ev->level;
        c->lent_at = now_of(k);
        break;
    }
    case VIDSCH_TRACE_RELEASE:
        if (ev->reason) {
            c->last_active = now_of(k);     /* new work became electable */
        }
        break;
    default:
        break;
    }
}

static void on_buffer_done(void *arg, uint64_t cookie, int status)
{
    struct checker *k = arg;
    struct cbuf *b;

    if (cookie >= k->w->nbuf) {
        fail(k, "buffer_done for unknown cookie %" PRIu64, cookie);
        return;
    }
    b = &k->buf[cookie];
    if (k->o->mutation == MUT_DROP_DONE && !k->dropped_one) {
        k->dropped_one = true;
        return;
    }
    if (!b->accepted) {
        fail(k, "buffer %" PRIu64 " reported but never accepted", cookie);
    }
    if (++b->done > 1) {
        fail(k, "buffer %" PRIu64 " reported twice", cookie);
    }
    b->status = status;
}

static void on_context_lost(void *arg, uint32_t id)
{
    struct checker *k = arg;
    struct cctx *c = ctx_by_id(k, id);

    if (!c || !c->lost) {
        fail(k, "context_lost(%u) without a LOST decision", id);
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
    c = ctx_of(k, b);
    if (b->engine != e) {
        fail(k, "buffer %ld submitted on engine %u, not %u",
             (long)(b - k->buf), e, b->engine);
    }
    if (d->flags & COPRO_SUBMIT_PAGING) {
        if (b->ctx >= 0) {
            fail(k, "a DMA buffer submitted as paging");
        } else if (!b->paging_fence) {
            if (d->fence <= k->max_fence[e]) {
                fail(k, "paging fence %" PRIu64 " not fresh (max %" PRIu64
                     ")", d->fence, k->max_fence[e]);
            }
            b->paging_fence = d->fence;
        } else if (d->fence != b->paging_fence) {
            fail(k, "paging buffer resubmitted with fence %" PRIu64
                 ", not its own %" PRIu64, d->fence, b->paging_fence);
        }
    } else {
        if (b->ctx < 0) {
            fail(k, "a paging buffer submitted without PAGING");
        }
        if (d->fence <= k->max_fence[e]) {
            fail(k, "fence %" PRIu64 " not above %" PRIu64 " on engine %u",
                 d->fence, k->max_fence[e], e);
        }
        if (c && (d->context != c->id || d->save_addr != c->save)) {
            fail(k, "buffer submitted with context %u save 0x%" PRIx64,
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
            fail(k, "buffer %ld submitted before dropped paging buffer %u",
                 (long)(b - k->buf), want);
        }
    }
}

static void check_start(struct checker *k, const struct cbuf *b,
                        const struct cctx *c)
{
    uint64_t now = now_of(k);

    if (!priority_rules(k) || c->boosted || c->lent || b->elected_boosted) {
        return;
    }
    for (unsigned i = 0; i < k->w->nctx; i++) {
        struct cctx *h = &k->ctx[i];

        if (k->hws &&
            (band_of(h->prio) <= band_of(c->prio) ||
             /* NORMAL's share to IDLE (starvation protection) */
             (band_of(c->prio) == COPRO_BAND_IDLE &&
              band_of(h->prio) == COPRO_BAND_NORMAL &&
              k->h->hws.cfg.low_share))) {
            continue;
        }
        if (h != c && h->engine == c->engine && h->prio > c->prio &&
            h->waiting && waiting(k, h) &&
            now - h->waiting_since > k->bound_start) {
            fail(k, "ctx %u (%s) starts while ctx %u (%s) has waited %"
                 PRIu64 " us (bound %" PRIu64 " us)", c->id,
                 vidsch_priority_name(c->prio), h->id,
                 vidsch_priority_name(h->prio),
                 (now - h->waiting_since) / US, k->bound_start / US);
            return;
        }
    }
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
    b->loaded_at = now_of(k);
    if (k->o->verbose) {
        fprintf(stderr, "%12" PRIu64 " e%u   gpu loads  ctx %u cookie %ld "
                "fence %" PRIu64 " flags %x\n", now_of(k), e, d->context,
                (long)(b - k->buf), d->fence, d->flags);
    }
    c = ctx_of(k, b);
    if (!c) {
        return;
    }
    if (k->cut_ctx[e] >= 0) {
        /* Not wasted: a level lent to the interrupted context after the
         * request (a context began to wait on its signal). It is then
         * the most urgent work, which must run next (the priority rules
         * above), and a request cannot be taken back (the DDI has no
         * cancel): new information, not a wrong decision. */
        bool raised = c->lent && c->lent_at > k->preempt_at[e];

        if (k->cut_ctx[e] == b->ctx && !c->lost && !raised &&
            !policy_is(k, VIDSCH_POLICY_FIFO) && !k->hws) {
            fail(k, "wasted preemption: ctx %u was preempted mid-buffer, "
                 "then ran next", c->id);
        }
        k->cut_ctx[e] = -1;
    }
    c->loaded++;
    c->last_active = now_of(k);
    check_start(k, b, c);
    if (k->check_order && !(d->flags & COPRO_SUBMIT_RESUME)) {
        if (b->order < k->last_order[e]) {
            fail(k, "fifo: buffer %ld started after a later submission",
                 (long)(b - k->buf));
        }
        k->last_order[e] = b->order;
    }
}

static void unload(struct checker *k, struct cbuf *b)
{
    struct cctx *c = ctx_of(k, b);

    if (b->loaded && c) {
        c->loaded--;
        c->last_active = now_of(k);
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
                    "%" PRIu64 "\n", now_of(k), e, (long)(b - k->buf),
                    d->fence);
        }
        unload(k, b);
        b->retired++;
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
                ", %u dropped\n", now_of(k), e,
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
         * it retired (the request was meant for that one) */
        k->cut_ctx[e] = !reset && b->ctx >= 0 &&
                        k->preempt_reason[e] != VIDSCH_PREEMPT_TDR &&
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
    struct cctx *c = b ? ctx_of(k, b) : NULL;

    if (c && k->o->mutation != MUT_FORGET_TRIGGERS) {
        c->triggered = true;
    }
}

static void obs_faulted(void *arg, unsigned e,
                        const struct copro_submit_desc *d, uint32_t kind)
{
    struct checker *k = arg;

    if (kind != COPRO_FAULT_INJECTED) {
        fail(k, "engine %u faulted (kind %u) on fence %" PRIu64, e, kind,
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

static const struct sim_gpu_observer observer = {
    .submitted = obs_submitted, .loaded = obs_loaded,
    .retired = obs_retired, .stopped = obs_stopped,
    .faulted = obs_faulted, .hung = obs_hung,
};

/* ---- building the run ---- */

/* Writes buffer i's packets into GPU memory (after a tagging NOP) and
 * injects its hang or fault. */
static void build_buffer(struct checker *k, unsigned i)
{
    const struct wl_buf *spec = &k->w->buf[i];
    struct cbuf *b = &k->buf[i];
    struct sim_gpu *g = k->h->gpu;
    uint32_t off[WL_MAX_PKT + 2];
    unsigned bytes = 8 + (WL_MAX_PKT + 2) * 4 * COPRO_LEN_COPY + 64;
    uint64_t at = sim_gpu_alloc(g, bytes, 64);
    uint32_t *dw = sim_gpu_ptr(g, at);
    unsigned n = 0;

    *b = (struct cbuf){
        .dma = &k->dma[i],
        .ctx = spec->ctx == WL_PAGING ? -1 : spec->ctx,
        .engine = spec->engine,
        .check_bytes = spec->check_bytes,
        .pattern = (uint32_t)(k->w->seed * 2654435761u) ^ (i * 0x9e3779b9u),
        .fence_value = ((uint64_t)i << 32) | 0x600d,
    };
    b->check_addr = sim_gpu_alloc(g, b->check_bytes, 64);
    b->fence_addr = sim_gpu_alloc(g, 8, 8);
    dw[n++] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, 2);
    dw[n++] = i;
    for (unsigned p = 0; p < spec->npkt; p++) {
        const struct wl_pkt *pk = &spec->pkt[p];

        off[p] = n * 4;
        switch (pk->op) {
        case COPRO_OP_WORK:
            n = sim_emit_work(dw, n, pk->arg);
            break;
        case COPRO_OP_FILL:
            n = sim_emit_fill(dw, n, k->scratch, pk->arg, i);
            break;
        case COPRO_OP_TIMESTAMP:
            n = sim_emit_timestamp(dw, n, k->scratch + 8 * (i % 64));
            break;
        default:
            n = sim_emit_nop(dw, n, (unsigned)pk->arg);
            break;
        }
    }
    off[spec->npkt] = n * 4;
    n = sim_emit_fill(dw, n, b->check_addr, b->check_bytes, b->pattern);
    off[spec->npkt + 1] = n * 4;
    n = sim_emit_fence(dw, n, b->fence_addr, b->fence_value);
    *b->dma = (struct ddi_dmabuf){ 0 };
    b->dma->dw = dw;
    b->dma->gpu_addr = at;
    b->dma->cap_bytes = bytes;
    b->dma->len_bytes = n * 4;
    b->dma->engine = spec->engine;
    if (spec->hang_pkt >= 0) {
        sim_gpu_inject(g, at, off[spec->hang_pkt], SIM_INJECT_HANG);
    }
    if (spec->fault_pkt >= 0) {
        sim_gpu_inject(g, at, off[spec->fault_pkt], SIM_INJECT_FAULT);
    }
}

/*
 * Hardware scheduling: how long a context may wait for the engine. The
 * device runs the highest band first, so it waits for at most the work of
 * the bands above its own (all other work under joblist, whose budgets
 * demote queues) and a turn of everyone (quantum, the granularity, the
 * preparations); an IDLE one gets NORMAL's share every frame, in turns
 * of at most a quantum; plus the recovery from hangs and faults (the
 * watchdog's suspension after tdr_timeout, the device's timeout) and a
 * few frames (the log, and so the watchdog, comes at vsyncs).
 */
static void compute_bounds_hws(struct checker *k, uint64_t g, uint64_t prep,
                               uint64_t cs, unsigned depth)
{
    const struct workload *w = k->w;
    uint64_t frame = k->h->hws_cfg.frame_ns;
    uint64_t turn = 2 * w->vs.quantum_ns + g + 3 * prep + 2 * cs;
    uint64_t recovery = (w->nhang + w->nfault) *
                        (2 * w->vs.tdr_timeout_ns + w->vs.tdr_grace_ns +
                         3 * frame + turn);
    bool joblist = policy_is(k, VIDSCH_POLICY_JOBLIST);

    k->bound_start += g + 2 * cs;
    for (unsigned i = 0; i < w->nctx; i++) {
        struct cctx *c = &k->ctx[i];
        unsigned mine = band_of(w->ctx[i].prio), n = 0, idle = 0;
        uint64_t higher = w->npaging * w->max_paging_ns;

        for (unsigned j = 0; j < w->nctx; j++) {
            n += w->ctx[j].engine == w->ctx[i].engine;
            idle += w->ctx[j].engine == w->ctx[i].engine &&
                    band_of(w->ctx[j].prio) == COPRO_BAND_IDLE;
        }
        for (unsigned b = 0; b < w->nbuf; b++) {
            const struct wl_buf *x = &w->buf[b];
            unsigned xb;

            if (x->ctx == WL_PAGING || x->ctx == i ||
                x->engine != w->ctx[i].engine) {
                continue;
            }
            xb = band_of(w->ctx[x->ctx].prio);
            if (joblist || (xb > mine &&
                            !(mine == COPRO_BAND_IDLE &&
                              xb == COPRO_BAND_NORMAL))) {
                higher += wl_buf_ns(w, x);
            }
        }
        c->starve_bound = higher + (n + 2) * turn +
                          (depth + 1) * w->max_buf_ns + recovery +
                          frame + 2 * w->vs.sync_poll_ns;
        if (mine == COPRO_BAND_IDLE || joblist) {
            /* a turn on NORMAL's share for every IDLE one before it, at
             * least one per frame (joblist: anyone may be demoted) */
            c->starve_bound += ((joblist ? n : idle) + 1) * frame;
        }
    }
}

static void compute_bounds(struct checker *k)
{
    const struct workload *w = k->w;
    unsigned depth = w->vs.ring_depth ? w->vs.ring_depth
                     : w->gpu.preemption == COPRO_PREEMPT_NONE ? 1 : 2;
    uint64_t cs = w->gpu.ctx_state_size * 1000000000ull / w->gpu.copy_bw;
    uint64_t prep = (w->gpu.engines + 2) * (w->prep_ns + w->prep_jitter_ns) +
                    4 * w->gpu.upcall_ns + 2 * cs + 10 * US;
    uint64_t g, turn, recovery;

    if (depth > w->gpu.ring_entries - 1) {
        depth = w->gpu.ring_entries - 1;
    }
    /* a lower buffer may still start while the higher one is prepared;
     * without preemption, also while the ring drains */
    k->bound_start = prep;
    if (w->gpu.preemption == COPRO_PREEMPT_NONE) {
        k->bound_start += depth * w->max_buf_ns;
    }
    /* the longest the engine runs without an arbitration point */
    switch (w->gpu.preemption) {
    case COPRO_PREEMPT_MID_COMMAND:
        g = w->gpu.arbitration_ns + w->gpu.packet_ns + cs;
        break;
    case COPRO_PREEMPT_COMMAND:
        g = w->max_pkt_ns + cs;
        break;
    case COPRO_PREEMPT_DMA_BUFFER:
        g = w->max_buf_ns;
        break;
    default:
        g = (depth + 1) * w->max_buf_ns;
        break;
    }
    turn = w->vs.quantum_ns + g + 3 * prep + 2 * cs +
           w->npaging * w->max_paging_ns;
    recovery = (w->nhang + w->nfault) *
               (w->vs.tdr_timeout_ns + w->vs.tdr_grace_ns + turn);
    /* A context ready to run waits at most: aging_ns until it is boosted
     * to the top level, a turn for everyone there, and the work of more
     * urgent contexts already committed to the ring when it got there
     * (higher levels are never preempted for it) */
    for (unsigned e = 0; e < w->gpu.engines; e++) {
        unsigned n = 0;

        for (unsigned c = 0; c < w->nctx; c++) {
            n += w->ctx[c].engine == e;
        }
        k->bound_starve[e] = w->vs.aging_ns + (n + 2) * turn +
                             (depth + 1) * w->max_buf_ns + recovery +
                             2 * w->vs.sync_poll_ns;
    }
    if (k->hws) {
        compute_bounds_hws(k, g, prep, cs, depth);
    }
}

static void run_op(void *obj, uint64_t idx)
{
    struct checker *k = obj;
    const struct wl_op *op = &k->w->op[idx];
    struct vidsch *vs = k->h->vs;
    struct cctx *c = op->ctx < k->w->nctx ? &k->ctx[op->ctx] : NULL;
    volatile uint64_t *sync = op->sync < WL_MAX_SYNC
        ? sim_gpu_ptr(k->h->gpu, k->sync_addr[op->sync]) : NULL;
    struct cbuf *b = &k->buf[op->buf];
    bool was;
    int rc;

    if (k->o->verbose && op->kind != WL_SUBMIT) {
        fprintf(stderr, "%12" PRIu64 "    op %u ctx %u sync %u value %" PRIu64
                "\n", now_of(k), op->kind, op->ctx + 1, op->sync,
                op->value);
    }
    switch (op->kind) {
    case WL_SUBMIT:
        /* the scheduler starts a context's aging clock when work comes
         * to a context that had none queued or on the GPU */
        was = false;
        for (unsigned i = 0; i < c->nbuf; i++) {
            uint8_t wh = k->buf[c->bufs[i]].where;

            was |= wh == W_QUEUED || wh == W_SLOT || wh == W_RING;
        }
        b->where = W_QUEUED;
        b->accepted = true;
        b->seq = c->next_seq;
        b->order = ++k->next_order;
        c->bufs[c->nbuf++] = op->buf;
        rc = vidsch_submit(vs, c->vc, b->dma, NULL, op->buf);
        if (rc == DDI_OK) {
            c->next_seq++;
            if (!was && electable(k, c)) {
                c->last_active = now_of(k);
            }
        } else {
            b->accepted = false;
            b->where = W_NONE;
            c->nbuf--;
            if (rc != DDI_ELOST || !c->lost) {
                fail(k, "vidsch_submit: %d", rc);
            }
        }
        break;
    case WL_PAGING_SUBMIT:
        b->where = W_QUEUED;
        b->accepted = true;
        rc = vidsch_submit_paging(vs, b->engine, b->dma, op->buf);
        if (rc != DDI_OK) {
            fail(k, "vidsch_submit_paging: %d", rc);
        }
        break;
    case WL_WAIT:
        rc = vidsch_wait(vs, c->vc, sync, op->value);
        if (rc == DDI_OK) {
            c->waits[c->nwait++] = (struct cwait){
                .addr = k->sync_addr[op->sync], .value = op->value,
                .before_seq = c->next_seq };
        } else if (rc != DDI_ELOST) {
            fail(k, "vidsch_wait: %d", rc);
        }
        break;
    case WL_SIGNAL:
        rc = vidsch_signal(vs, c->vc, sync, op->value);
        if (rc == DDI_ELOST) {
            /* a removed device's fences complete, as D3D12's do */
            *sync = op->value;
            vidsch_sync_changed(vs);
        } else if (rc != DDI_OK) {
            fail(k, "vidsch_signal: %d", rc);
        }
        break;
    case WL_CPU_SIGNAL:
        *sync = op->value;
        vidsch_sync_changed(vs);
        break;
    }
}

static void final_checks(struct checker *k, bool drained)
{
    const struct workload *w = k->w;
    struct sim_gpu *g = k->h->gpu;

    if (!drained) {
        fail(k, "the run did not end within the time limit");
    }
    if (!vidsch_idle(k->h->vs)) {
        for (unsigned i = 0; k->o->verbose && i < w->nbuf; i++) {
            if (k->buf[i].accepted && !k->buf[i].done) {
                fprintf(stderr, "buffer %u (ctx %d) not done, where %u\n",
                        i, k->buf[i].ctx + 1, k->buf[i].where);
            }
        }
        fail(k, "the scheduler is not idle at the end");
    }
    for (unsigned i = 0; i < w->nbuf; i++) {
        struct cbuf *b = &k->buf[i];
        struct cctx *c = ctx_of(k, b);

        if (!b->accepted) {
            continue;
        }
        if (b->done != 1) {
            fail(k, "buffer %u reported %u times", i, b->done);
            continue;
        }
        if (b->status == DDI_OK) {
            const uint8_t *m = sim_gpu_ptr(g, b->check_addr);

            if (b->retired != 1) {
                fail(k, "buffer %u completed but retired %u times", i,
                     b->retired);
            }
            for (uint32_t o = 0; o < b->check_bytes; o += 4) {
                if (memcmp(m + o, &b->pattern, 4)) {
                    fail(k, "buffer %u completed but its FILL is wrong at "
                         "+%u", i, o);
                    break;
                }
            }
            if (*(uint64_t *)sim_gpu_ptr(g, b->fence_addr) !=
                    b->fence_value) {
                fail(k, "buffer %u completed but its FENCE is missing", i);
            }
        } else if (b->status == DDI_ELOST) {
            if (b->retired) {
                fail(k, "buffer %u reported lost but it retired", i);
            }
            if (!c || !c->lost) {
                fail(k, "buffer %u lost, but its context was not", i);
            }
        } else {
            fail(k, "buffer %u reported with status %d", i, b->status);
        }
    }
    for (unsigned i = 0; i < w->nctx; i++) {
        if (k->ctx[i].triggered && !k->ctx[i].lost) {
            fail(k, "ctx %u hung or faulted but was not put in error",
                 k->ctx[i].id);
        }
    }
}

bool checker_run(struct checker *k, struct sim_host *h,
                 const struct workload *w, const struct check_opts *o,
                 struct check_result *r)
{
    static const struct sim_host_hooks hooks = {
        .buffer_done = on_buffer_done, .context_lost = on_context_lost,
        .trace = on_trace,
    };
    uint64_t limit = o->limit_ns ? o->limit_ns : 10000 * MS;
    struct vidsch_config vc = w->vs;
    bool drained;

    *r = (struct check_result){ .ok = true, .buffers = w->nbuf };
    k->w = w;
    k->h = h;
    k->o = o;
    k->r = r;
    memset(k->ctx, 0, sizeof(k->ctx));
    memset(k->max_fence, 0, sizeof(k->max_fence));
    memset(k->nexpect, 0, sizeof(k->nexpect));
    memset(k->last_order, 0, sizeof(k->last_order));
    k->next_order = 0;
    k->dropped_one = false;
    k->hws = o->hws;
    if (o->hws) {
        vc.hwsched = true;
        vc.policy = (w->seed & 1) ? VIDSCH_POLICY_JOBLIST
                                  : VIDSCH_POLICY_QUANTUM;
        vc.hws_low_share = o->mutation == MUT_HWS_NO_SHARE
                           ? 0 : COPRO_HWS_LOW_SHARE_DEFAULT;
        sim_hws_config_default(&h->hws_cfg);
        h->hws_cfg.flat_bands = o->mutation == MUT_HWS_FLAT_BANDS;
    }
    k->policy = vc.policy;
    for (unsigned e = 0; e < DDI_MAX_ENGINES; e++) {
        k->cut_ctx[e] = -1;
        k->preempt_reason[e] = VIDSCH_PREEMPT_OTHER;
        k->preempt_at[e] = 0;
        k->retire_seen[e] = 0;
        k->retire_at_req[e] = 0;
    }
    k->check_order = policy_is(k, VIDSCH_POLICY_FIFO) && !w->nwait &&
                     !w->nhang && !w->nfault && !w->npaging;

    {
        struct sim_gpu_config gc = w->gpu;

        /* the timing FILLs' target: nobody reads it back */
        gc.discard_base = w->gpu.mem_size - SCRATCH_BYTES;
        gc.discard_size = SCRATCH_BYTES;
        sim_host_start(h, &gc, &vc, w->prep_ns, w->prep_jitter_ns,
                       w->seed, &hooks, k);
    }
    memset(k->ctx, 0, sizeof(k->ctx));
    compute_bounds(k);
    sim_gpu_observe(h->gpu, &observer, k);
    k->scratch = w->gpu.mem_size - SCRATCH_BYTES;
    for (unsigned s = 0; s < WL_MAX_SYNC; s++) {
        k->sync_addr[s] = sim_gpu_alloc(h->gpu, 8, 8);
    }
    for (unsigned i = 0; i < w->nctx; i++) {
        struct cctx *c = &k->ctx[i];

        c->id = i + 1;
        c->engine = w->ctx[i].engine;
        c->prio = w->ctx[i].prio;
        c->save = sim_gpu_alloc(h->gpu, COPRO_SAVE_SIZE, 64);
        c->next_seq = 1;
        c->vc = vidsch_ctx_create(h->vs, c->id, c->engine,
                                  (enum vidsch_priority)c->prio, c->save);
        if (!c->vc) {
            fail(k, "vidsch_ctx_create failed");
            return false;
        }
    }
    for (unsigned i = 0; i < w->nbuf; i++) {
        build_buffer(k, i);
    }
    for (unsigned i = 0; i < w->nop; i++) {
        sim_at(&h->clk, w->op[i].at, run_op, k, i);
    }

    while (sim_step(&h->clk, limit)) {
        update_waiting(k);
    }
    drained = !sim_pending(&h->clk);

    if (o->mutation == MUT_CORRUPT_MEMORY) {
        for (unsigned i = 0; i < w->nbuf; i++) {
            if (k->buf[i].done && k->buf[i].status == DDI_OK) {
                memset(sim_gpu_ptr(h->gpu, k->buf[i].check_addr), 0, 4);
                break;
            }
        }
    }
    final_checks(k, drained);
    r->end_ns = h->clk.now;
    r->events = h->clk.executed;
    return r->ok;
}
