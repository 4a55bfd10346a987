/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch: the public half. Creation over caller-given storage, contexts,
 * submission, the upcalls and the environment's entry points (timer,
 * worker), and the plumbing every entry point shares:
 *
 *   enter() ... leave(): the outermost call, on its way out, makes the
 *   decisions the call made necessary (vs_schedule_engine on every
 *   engine), then reports finished buffers and lost contexts to the
 *   environment, repeating while those callbacks submitted more work, and
 *   finally arms the one timer at the earliest deadline (TDR, quantum,
 *   aging, sync polling). A call made from inside a callback only records
 *   its work, so callbacks see consistent state and may submit.
 */
#include "vidsch/vidsch_internal.h"

#include "lib/string.h"

#define MS  1000000ull

const char *vidsch_policy_name(enum vidsch_policy p)
{
    switch (p) {
    case VIDSCH_POLICY_FIFO:     return "fifo";
    case VIDSCH_POLICY_PRIORITY: return "priority";
    case VIDSCH_POLICY_QUANTUM:  return "quantum";
    case VIDSCH_POLICY_JOBLIST:  return "joblist";
    }
    return "?";
}

int vidsch_policy_parse(const char *str, enum vidsch_policy *p)
{
    static const enum vidsch_policy all[] = {
        VIDSCH_POLICY_FIFO, VIDSCH_POLICY_PRIORITY, VIDSCH_POLICY_QUANTUM,
        VIDSCH_POLICY_JOBLIST,
    };

    for (unsigned i = 0; str && i < sizeof(all) / sizeof(all[0]); i++) {
        if (!strcmp(str, vidsch_policy_name(all[i]))) {
            *p = all[i];
            return 0;
        }
    }
    return -1;
}

const char *vidsch_priority_name(enum vidsch_priority p)
{
    static const char *const names[VIDSCH_PRIO_COUNT] = {
        "IDLE", "BELOW_NORMAL", "NORMAL", "ABOVE_NORMAL", "HIGH", "REALTIME",
    };

    return (unsigned)p < VIDSCH_PRIO_COUNT ? names[p] : "?";
}

void vidsch_config_default(struct vidsch_config *c)
{
    *c = (struct vidsch_config){
        .policy = VIDSCH_POLICY_QUANTUM,
        /* i915, amdgpu's MES and nvgpu slice at about 1 ms; a little more
         * halves the context switches of two saturating contexts */
        .quantum_ns = 2 * MS,
        /* Windows boosts a thread starved for 4 s; a GPU frame is short */
        .aging_ns = 100 * MS,
        /* WDDM: TdrDelay 2 s; TdrLimitCount 5 in TdrLimitTime 60 s */
        .tdr_timeout_ns = 2000 * MS,
        .tdr_grace_ns = 2000 * MS,
        .tdr_limit = 5,
        .tdr_window_ns = 60000 * MS,
        .serial_prepare = false,
        .ring_depth = 0,
        .sync_poll_ns = 1 * MS,
        .max_contexts = 64,
        .max_buffers = 1024,
        /* A turn that starts by paging in 1 MiB stalls its DMA buffer
         * for 128 us behind the copy engine (copy-bw 8 GiB/s): 6% of a
         * quantum, and every switch between two fighting contexts pays
         * it twice (out, then back in). Below that, paging is the price
         * of sharing VRAM and not worth longer turns. */
        .fight_bytes = 1ull << 20,
        /* Four quanta (8 ms): four times fewer swaps of the working
         * sets, while a peer of the same level still waits at most half
         * a 60 Hz frame; higher levels preempt as always. */
        .fight_factor = 4,
        .hwsched = false,
        .hws_low_share = COPRO_HWS_LOW_SHARE_DEFAULT,
        .hws_irq_prio = VIDSCH_PRIO_NORMAL,
        .hws_depth = 16,
    };
}

/* ---- storage ---- */

uint64_t vidsch_storage_size(unsigned max_contexts, unsigned max_buffers)
{
    return sizeof(struct vidsch) +
           (uint64_t)max_contexts * sizeof(struct vidsch_ctx) +
           (uint64_t)max_buffers * (sizeof(struct vidsch_buf) +
                                    sizeof(struct vidsch_sync));
}

_Static_assert(sizeof(struct vidsch) % 8 == 0, "storage alignment");
_Static_assert(sizeof(struct vidsch_ctx) % 8 == 0, "storage alignment");
_Static_assert(sizeof(struct vidsch_buf) % 8 == 0, "storage alignment");

struct vidsch_buf *vs_buf_alloc(struct vidsch *s)
{
    struct vidsch_buf *b = vs_entry(vs_list_pop_front(&s->free_bufs),
                                    struct vidsch_buf, link);

    if (b) {
        memset(b, 0, sizeof(*b));
        s->live++;
    }
    return b;
}

static void buf_free(struct vidsch *s, struct vidsch_buf *b)
{
    b->where = VS_FREE;
    vs_list_push_back(&s->free_bufs, &b->link);
    s->live--;
}

struct vidsch_sync *vs_sync_alloc(struct vidsch *s)
{
    struct vidsch_sync *y = vs_entry(vs_list_pop_front(&s->free_syncs),
                                     struct vidsch_sync, link);

    if (y) {
        memset(y, 0, sizeof(*y));
    }
    return y;
}

void vs_sync_free(struct vidsch *s, struct vidsch_sync *y)
{
    vs_list_push_back(&s->free_syncs, &y->link);
}

/* ---- shared helpers ---- */

uint64_t vs_now(struct vidsch *s)
{
    return s->env.now(s->env.os);
}

uint64_t vs_cycles(const struct vidsch *s)
{
    return s->env.cycles ? s->env.cycles(s->env.os) : 0;
}

const struct vidsch_cycles *vidsch_cycles(const struct vidsch *s)
{
    return &s->cyc;
}

void vs_trace(struct vidsch *s, enum vidsch_trace_kind kind, unsigned engine,
              const struct vidsch_ctx *c, const struct vidsch_buf *b,
              uint64_t fence, unsigned reason)
{
    struct vidsch_trace ev;

    if (!s->env.trace) {
        return;
    }
    if (!c && b) {
        c = b->ctx;
    }
    ev = (struct vidsch_trace){
        .kind = kind, .engine = engine, .time = vs_now(s),
        .context = c ? c->id : 0, .cookie = b ? b->cookie : 0,
        .fence = fence, .flags = b ? b->sub.flags : 0,
        .level = c ? c->level : VIDSCH_PRIO_REALTIME, .reason = reason,
    };
    s->env.trace(s->env.os, &ev);
}

void vs_count_start(struct vidsch_ctx_stats *st, uint64_t lat_ns)
{
    unsigned bucket = 0;

    for (uint64_t lim = 10000; bucket < VIDSCH_LATENCY_BUCKETS - 1 &&
         lat_ns >= lim; lim *= 10) {
        bucket++;
    }
    st->latency_ns[bucket]++;
    st->latency_sum_ns += lat_ns;
    st->started++;
    if (lat_ns > st->latency_max_ns) {
        st->latency_max_ns = lat_ns;
    }
}

void vs_ctx_account(struct vidsch *s, struct vidsch_ctx *c)
{
    struct vidsch_buf *h = vs_ring_head(&s->engine[c->engine]);
    bool running = h && h->ctx == c;
    bool waiting = !c->lost && !running &&
                   (c->rstate == VS_CTX_READY || c->on_gpu > 0);
    uint64_t now = vs_now(s);

    if (c->acct_waiting) {
        c->stats.queued_ns += now - c->acct_mark;
    }
    c->acct_waiting = waiting;
    c->acct_mark = now;
}

void vs_release_resident(struct vidsch *s, struct vidsch_buf *b,
                         uint64_t fence)
{
    if (b->resident) {
        b->resident = false;
        s->release_gen++;
        if (b->split) {
            s->env.release_portion(s->env.os, b->cookie, b->dma, &b->part,
                                   b->engine, fence);
        } else {
            s->env.release_resident(s->env.os, b->cookie, b->dma,
                                    b->engine, fence);
        }
    }
}

/*
 * A portion of split buffer b retired and more follow. Its residency
 * goes back (retired with its fence: the allocations' LRU), and b goes
 * back to the front of its context's queue, unpatched, for the next
 * portion: elected, made resident and patched again like a new buffer.
 * Other contexts may run between portions (the policy decides as for any
 * buffer); each portion's residency is made at its own preparation, so
 * whatever moved in between is placed again before it runs.
 */
void vs_portion_done(struct vidsch *s, struct vidsch_engine *e,
                     struct vidsch_buf *b)
{
    vs_release_resident(s, b, b->sub.fence);
    b->part = (struct vidsch_portion){ .first = b->part.end };
    b->prepared = false;
    b->sub.flags &= ~(uint32_t)COPRO_SUBMIT_RESUME;
    b->submissions = 0;     /* a new entry, not a resubmission */
    e->stats.portions++;
    vs_requeue_front(s, e, b);
}

/* The last portion of a split buffer is done (or the buffer is lost
 * or refused): its context's later buffers may run. */
static void split_finished(struct vidsch *s, struct vidsch_buf *b,
                            int status)
{
    if (status == DDI_OK) {
        s->engine[b->engine].stats.portions++;
    }
    if (b->ctx) {
        b->ctx->split_open = false;
    }
}

void vs_finish(struct vidsch *s, struct vidsch_buf *b, int status)
{
    struct vidsch_ctx *c = b->ctx;

    vs_release_resident(s, b, status == DDI_OK ? b->sub.fence : 0);
    if (vs_is_paging(b)) {
        /* finished or lost (a device reset then): what waited on it may
         * go; a lost one's moves are as lost as everything else */
        if (b->ticket > s->paging_done) {
            s->paging_done = b->ticket;
        }
        s->release_gen++;
    }
    if (b->split) {
        split_finished(s, b, status);
    }
    b->where = VS_DONE;
    b->status = status;
    if (b->in_fifo) {
        vs_list_remove(&s->engine[b->engine].fifo, &b->fifo);
        b->in_fifo = false;
    }
    vs_list_push_back(&s->done, &b->link);
    if (c) {
        if (status == DDI_OK) {
            c->stats.completed++;
        } else {
            c->stats.lost++;
        }
        vs_fire_signals(s, c);
    }
    s->dirty = true;
}

/* ---- the outermost call ---- */

static void enter(struct vidsch *s)
{
    s->nesting++;
}

static void flush_callbacks(struct vidsch *s)
{
    struct vs_link *n;

    /* a process hears "device removed" before its buffers are reported */
    while ((n = vs_list_pop_front(&s->lost))) {
        struct vidsch_ctx *c = vs_container_of(n, struct vidsch_ctx,
                                               lost_link);

        if (s->env.context_lost) {
            s->env.context_lost(s->env.os, c->id);
        }
    }
    while ((n = vs_list_pop_front(&s->done))) {
        struct vidsch_buf *b = vs_container_of(n, struct vidsch_buf, link);
        uint64_t cookie = b->cookie;
        int status = b->status;

        /* freed first: the callback may submit into this record */
        buf_free(s, b);
        if (s->env.buffer_done) {
            s->env.buffer_done(s->env.os, cookie, status);
        }
    }
}

static void rearm_timer(struct vidsch *s)
{
    uint64_t now = vs_now(s), when = VS_NEVER;

    for (unsigned i = 0; i < s->nengines; i++) {
        struct vidsch_engine *e = &s->engine[i];
        uint64_t d = vidsch_tdr_deadline(&e->tdr);

        if (vidsch_ring_count(&e->ring) && d < when) {
            when = d;
        }
        d = s->hws ? vs_hws_deadline(s, e) : vs_pick_deadline(s, e);
        if (d < when) {
            when = d;
        }
    }
    if (!vs_list_empty(&s->held)) {
        uint64_t d = s->last_poll + s->cfg.sync_poll_ns;

        if (d < when) {
            when = d;
        }
    }
    if (when == VS_NEVER) {
        return;
    }
    /* An armed timer that fires early is harmless (nothing is due, the
     * next one is armed then), so only an earlier deadline re-arms. */
    if (s->timer_at == VS_NEVER || when < s->timer_at || s->timer_at < now) {
        s->timer_at = when;
        s->env.set_timer(s->env.os, when);
    }
}

static void leave(struct vidsch *s)
{
    uint64_t t0;

    if (s->nesting > 1) {
        s->nesting--;
        s->dirty = true;
        return;
    }
    do {
        uint64_t t0 = vs_cycles(s), t1;

        s->dirty = false;
        if (s->sync_dirty) {
            s->sync_dirty = false;
            vs_poll_held(s);
        }
        for (unsigned i = 0; i < s->nengines; i++) {
            if (s->hws) {
                vs_hws_schedule_engine(s, &s->engine[i]);
            } else {
                vs_schedule_engine(s, &s->engine[i]);
            }
        }
        t1 = vs_cycles(s);
        s->cyc.decide += t1 - t0;
        flush_callbacks(s);
        s->cyc.complete += vs_cycles(s) - t1;
    } while (s->dirty || s->sync_dirty);
    t0 = vs_cycles(s);
    rearm_timer(s);
    s->cyc.decide += vs_cycles(s) - t0;
    s->nesting--;
}

void vs_enter(struct vidsch *s)
{
    enter(s);
}

void vs_leave(struct vidsch *s)
{
    leave(s);
}

/* ---- creation ---- */

struct vidsch *vidsch_create(void *storage, uint64_t storage_bytes,
                             struct ddi_device *dev,
                             const struct vidsch_env *env,
                             const struct vidsch_config *cfg)
{
    struct vidsch *s = storage;
    uint8_t *p;
    uint64_t now;

    if (!storage || ((uintptr_t)storage & 7) || !dev || !dev->ops || !env ||
        !cfg || !env->now || !env->set_timer || !env->queue_work ||
        !dev->ops->query_caps || !dev->ops->submit ||
        !dev->ops->preempt || !dev->ops->reset_engine ||
        !cfg->max_contexts || !cfg->max_buffers ||
        cfg->tdr_limit > VS_TDR_HISTORY ||
        storage_bytes < vidsch_storage_size(cfg->max_contexts,
                                            cfg->max_buffers) ||
        (cfg->policy == VIDSCH_POLICY_JOBLIST && !cfg->hwsched)) {
        return NULL;
    }
    memset(s, 0, sizeof(*s));
    s->ops = dev->ops;
    s->drv = dev->drv;
    s->env = *env;
    s->cfg = *cfg;
    if (!s->cfg.sync_poll_ns) {
        s->cfg.sync_poll_ns = 1 * MS;
    }
    if (s->cfg.tdr_timeout_ns < VIDSCH_TDR_TIMEOUT_MIN_NS) {
        s->cfg.tdr_timeout_ns = VIDSCH_TDR_TIMEOUT_MIN_NS;
    }
    if (s->cfg.tdr_grace_ns < VIDSCH_TDR_GRACE_MIN_NS) {
        s->cfg.tdr_grace_ns = VIDSCH_TDR_GRACE_MIN_NS;
    }
    if (!s->cfg.quantum_ns) {
        s->cfg.quantum_ns = 1;
    }
    s->ops->query_caps(s->drv, &s->caps);
    s->nengines = s->caps.engines < DDI_MAX_ENGINES ? s->caps.engines
                                                    : DDI_MAX_ENGINES;
    if (!s->nengines) {
        return NULL;
    }

    p = (uint8_t *)storage + sizeof(*s);
    s->ctxs = (struct vidsch_ctx *)p;
    p += (uint64_t)cfg->max_contexts * sizeof(struct vidsch_ctx);
    s->bufs = (struct vidsch_buf *)p;
    p += (uint64_t)cfg->max_buffers * sizeof(struct vidsch_buf);
    s->syncs = (struct vidsch_sync *)p;
    memset(s->ctxs, 0, (uint64_t)cfg->max_contexts * sizeof(*s->ctxs));
    vs_list_init(&s->free_bufs);
    vs_list_init(&s->free_syncs);
    for (unsigned i = 0; i < cfg->max_buffers; i++) {
        s->bufs[i].where = VS_FREE;
        vs_list_push_back(&s->free_bufs, &s->bufs[i].link);
        vs_list_push_back(&s->free_syncs, &s->syncs[i].link);
    }
    vs_list_init(&s->held);
    vs_list_init(&s->done);
    vs_list_init(&s->lost);
    s->timer_at = VS_NEVER;

    now = vs_now(s);
    s->last_poll = now;
    for (unsigned i = 0; i < s->nengines; i++) {
        struct vidsch_engine *e = &s->engine[i];
        unsigned max_depth = s->caps.ring_entries > 1
                             ? s->caps.ring_entries - 1 : 1;

        e->index = i;
        vidsch_ring_init(&e->ring);
        vs_list_init(&e->paging);
        vs_list_init(&e->fifo);
        vidsch_ready_init(&e->rq);
        /* Without preemption inside the ring, whatever is queued runs
         * before anything more urgent: keep one entry so that priority
         * wins at the next buffer boundary. Otherwise two, so that the
         * next buffer is on the ring when the current one retires. */
        e->depth = s->cfg.ring_depth ? s->cfg.ring_depth
                   : s->caps.preemption == COPRO_PREEMPT_NONE ? 1 : 2;
        if (e->depth > max_depth) {
            e->depth = max_depth;
        }
        vidsch_tdr_init(&e->tdr, &(struct vidsch_tdr_config){
                            .timeout_ns = s->cfg.tdr_timeout_ns,
                            .grace_ns = s->cfg.tdr_grace_ns }, now, 0);
    }
    if (cfg->hwsched && !vs_hws_init(s)) {
        return NULL;
    }
    return s;
}

/* ---- contexts ---- */

struct vidsch_ctx *vidsch_ctx_create(struct vidsch *s, uint32_t id,
                                     unsigned engine,
                                     enum vidsch_priority prio,
                                     uint64_t save_addr)
{
    struct vidsch_ctx *c = NULL;

    if (!s || engine >= s->nengines || (unsigned)prio >= VIDSCH_PRIO_COUNT) {
        return NULL;
    }
    /* mid-buffer preemption writes a save record: there must be a place */
    if (!save_addr && s->caps.preemption >= COPRO_PREEMPT_COMMAND) {
        return NULL;
    }
    for (unsigned i = 0; i < s->cfg.max_contexts; i++) {
        if (!s->ctxs[i].used) {
            c = &s->ctxs[i];
            break;
        }
    }
    if (!c) {
        return NULL;
    }
    memset(c, 0, sizeof(*c));
    vs_list_init(&c->queue);
    vs_list_init(&c->waits);
    vs_list_init(&c->signals);
    c->used = true;
    c->id = id;
    c->engine = engine;
    c->save_addr = save_addr;
    c->base = c->level = (uint8_t)prio;
    c->rstate = VS_CTX_IDLE;
    c->next_seq = 1;
    c->ready_since = c->acct_mark = vs_now(s);
    if (s->hws && vs_hws_ctx_create(s, c) != DDI_OK) {
        c->used = false;
        return NULL;
    }
    return c;
}

bool vidsch_ctx_destroy(struct vidsch *s, struct vidsch_ctx *c)
{
    bool gone;

    if (!s || !c || !c->used) {
        return true;
    }
    enter(s);
    if (!c->dying) {
        struct vidsch_engine *e = &s->engine[c->engine];
        struct vidsch_buf *b;

        c->dying = true;
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
        vs_fire_signals(s, c);
        /* a buffer of it on the ring (a process killed mid-render): the
         * engine stops it at its next arbitration point instead of
         * running it to the end; what comes back is reported lost */
        for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
             n = vs_list_next(&e->ring.subs, n)) {
            if (vs_buf_of_sub(vs_container_of(n, struct vidsch_sub,
                                              link))->ctx == c) {
                vs_request_preempt(s, e, VIDSCH_PREEMPT_OTHER);
                break;
            }
        }
    }
    gone = c->on_gpu == 0;
    if (gone) {
        vs_ctx_account(s, c);
        /* its signals are all written once nothing of it is left */
        vs_fire_signals(s, c);
        if (vs_linked(&c->lost_link)) {
            vs_list_remove(&s->lost, &c->lost_link);
        }
        if (s->hws) {
            vs_hws_ctx_gone(s, c);
        }
        c->used = false;
    }
    leave(s);
    return gone;
}

const struct vidsch_ctx_stats *vidsch_ctx_stats(const struct vidsch_ctx *c)
{
    return &c->stats;
}

bool vidsch_ctx_is_lost(const struct vidsch_ctx *c)
{
    return c->lost;
}

void vidsch_ctx_set_device(struct vidsch_ctx *c, uint32_t device)
{
    if (c) {
        c->device = device;
    }
}

uint32_t vidsch_ctx_id(const struct vidsch_ctx *c)
{
    return c->id;
}

enum vidsch_priority vidsch_ctx_priority(const struct vidsch_ctx *c)
{
    return (enum vidsch_priority)c->base;
}

unsigned vidsch_ctx_engine(const struct vidsch_ctx *c)
{
    return c->engine;
}

unsigned vidsch_ctx_syncs(const struct vidsch_ctx *c)
{
    unsigned n = 0;

    for (struct vs_link *l = vs_list_first(&c->waits); l;
         l = vs_list_next(&c->waits, l)) {
        n++;
    }
    for (struct vs_link *l = vs_list_first(&c->signals); l;
         l = vs_list_next(&c->signals, l)) {
        n++;
    }
    return n;
}

static bool list_has(const struct vs_list *l, volatile const uint64_t *addr)
{
    for (struct vs_link *n = vs_list_first(l); n; n = vs_list_next(l, n)) {
        if (vs_container_of(n, struct vidsch_sync, link)->addr == addr) {
            return true;
        }
    }
    return false;
}

bool vidsch_sync_in_use(const struct vidsch *s,
                        volatile const uint64_t *cpu_addr)
{
    for (unsigned i = 0; i < s->cfg.max_contexts; i++) {
        const struct vidsch_ctx *c = &s->ctxs[i];

        if (c->used && (list_has(&c->waits, cpu_addr) ||
                        list_has(&c->signals, cpu_addr))) {
            return true;
        }
    }
    return false;
}

const struct vidsch_engine_stats *vidsch_engine_stats(const struct vidsch *s,
                                                      unsigned engine)
{
    return engine < s->nengines ? &s->engine[engine].stats : NULL;
}

uint64_t vidsch_engine_busy_ns(const struct vidsch *s, unsigned engine)
{
    const struct vidsch_engine *e;

    if (!s || engine >= s->nengines) {
        return 0;
    }
    e = &s->engine[engine];
    return e->stats.busy_ns + (vidsch_ring_count(&e->ring)
                               ? s->env.now(s->env.os) - e->head_since : 0);
}

const struct vidsch_stats *vidsch_stats(const struct vidsch *s)
{
    return &s->stats;
}

bool vidsch_idle(const struct vidsch *s)
{
    return s->live == 0;
}

/* ---- submission ---- */

static bool dma_len_ok(const struct vidsch *s, const struct ddi_dmabuf *buf)
{
    uint64_t max = s->caps.max_dma_bytes ? s->caps.max_dma_bytes
                                         : COPRO_DMA_MAX;

    return !(buf->len_bytes & 3) && buf->len_bytes <= max &&
           !(buf->gpu_addr & 3);
}

int vidsch_submit(struct vidsch *s, struct vidsch_ctx *c,
                  struct ddi_dmabuf *buf, struct ddi_alloc_desc *alloc,
                  uint64_t cookie)
{
    struct vidsch_buf *b;

    if (!s || !c || !c->used || !buf) {
        return DDI_EINVAL;
    }
    if (c->lost) {
        return DDI_ELOST;
    }
    if (c->dying || buf->engine != c->engine || !dma_len_ok(s, buf)) {
        return DDI_EINVAL;
    }
    b = vs_buf_alloc(s);
    if (!b) {
        return DDI_ENOMEM;
    }
    enter(s);
    b->ctx = c;
    b->dma = buf;
    b->alloc = alloc;
    b->cookie = cookie;
    b->engine = c->engine;
    b->seq = c->next_seq++;
    b->submitted_at = vs_now(s);
    b->sub.save_addr = c->save_addr;
    b->where = VS_QUEUED;
    vs_list_push_back(&c->queue, &b->link);
    if (s->cfg.policy == VIDSCH_POLICY_FIFO && !c->unfed) {
        c->unfed = b;
    }
    c->stats.submitted++;
    vs_ctx_update(s, c);
    s->dirty = true;
    leave(s);
    return DDI_OK;
}

/* Queues a paging buffer (the caller checked the arguments). */
void vs_paging_enqueue(struct vidsch *s, struct vidsch_buf *b,
                       unsigned engine, struct ddi_dmabuf *buf,
                       uint64_t cookie, uint64_t ticket)
{
    b->dma = buf;
    b->ticket = ticket;
    b->cookie = cookie;
    b->engine = engine;
    b->submitted_at = vs_now(s);
    b->prepared = true;         /* built final by vidmm: nothing to patch */
    b->sub.flags = COPRO_SUBMIT_PAGING;
    b->where = VS_QUEUED;
    vs_list_push_back(&s->engine[engine].paging, &b->link);
    s->dirty = true;
}

int vidsch_submit_paging(struct vidsch *s, unsigned engine,
                         struct ddi_dmabuf *buf, uint64_t cookie)
{
    struct vidsch_buf *b;

    if (!s || engine >= s->nengines || !buf || !dma_len_ok(s, buf)) {
        return DDI_EINVAL;
    }
    b = vs_buf_alloc(s);
    if (!b) {
        return DDI_ENOMEM;
    }
    enter(s);
    vs_paging_enqueue(s, b, engine, buf, cookie, 0);
    leave(s);
    return DDI_OK;
}

/* ---- synchronisation entry points ---- */

int vidsch_signal(struct vidsch *s, struct vidsch_ctx *c,
                  volatile uint64_t *cpu_addr, uint64_t value)
{
    struct vidsch_sync *y;
    int rc = DDI_OK;

    if (!s || !c || !c->used || !cpu_addr) {
        return DDI_EINVAL;
    }
    if (c->lost) {
        return DDI_ELOST;
    }
    enter(s);
    y = vs_sync_alloc(s);
    if (!y) {
        rc = DDI_ENOMEM;
    } else {
        y->addr = cpu_addr;
        y->value = value;
        y->seq = c->next_seq - 1;   /* the last buffer submitted before */
        vs_list_push_back(&c->signals, &y->link);
        vs_fire_signals(s, c);      /* at once if all are done already */
        vs_inherit_signal(s);       /* a held context may wait on it */
    }
    leave(s);
    return rc;
}

int vidsch_wait(struct vidsch *s, struct vidsch_ctx *c,
                volatile const uint64_t *cpu_addr, uint64_t value)
{
    struct vidsch_sync *y;
    int rc = DDI_OK;

    if (!s || !c || !c->used || !cpu_addr) {
        return DDI_EINVAL;
    }
    if (c->lost) {
        return DDI_ELOST;
    }
    if (*cpu_addr >= value) {
        return DDI_OK;              /* satisfied already: holds nothing */
    }
    enter(s);
    y = vs_sync_alloc(s);
    if (!y) {
        rc = DDI_ENOMEM;
    } else {
        y->addr = (volatile uint64_t *)cpu_addr;
        y->value = value;
        y->seq = c->next_seq;       /* holds the next buffer on */
        vs_list_push_back(&c->waits, &y->link);
        vs_ctx_update(s, c);
    }
    leave(s);
    return rc;
}

void vidsch_sync_changed(struct vidsch *s)
{
    enter(s);
    s->sync_dirty = true;
    leave(s);
}

void vidsch_memory_changed(struct vidsch *s)
{
    enter(s);
    s->release_gen++;       /* a slot waiting for memory asks again */
    leave(s);
}

/* ---- the environment's entry points ---- */

void vidsch_timer(struct vidsch *s)
{
    enter(s);
    s->timer_at = VS_NEVER;
    if (!vs_list_empty(&s->held) &&
        vs_now(s) >= s->last_poll + s->cfg.sync_poll_ns) {
        s->sync_dirty = true;
    }
    s->dirty = true;
    leave(s);
}

/* ---- upcalls [DxgkCbNotifyInterrupt] ---- */

static void up_dma_completed(void *os, unsigned engine, uint64_t completed)
{
    struct vidsch *s = os;
    uint64_t t0;

    if (engine >= s->nengines) {
        return;
    }
    enter(s);
    t0 = vs_cycles(s);
    vs_retire_upto(s, &s->engine[engine], completed);
    s->cyc.complete += vs_cycles(s) - t0;
    /* a retired buffer may have written a monitored fence */
    if (!vs_list_empty(&s->held)) {
        s->sync_dirty = true;
    }
    s->dirty = true;
    leave(s);
}

static void up_preempted(void *os, unsigned engine, uint64_t preempt_fence,
                         uint64_t preempted, uint64_t completed)
{
    struct vidsch *s = os;
    uint64_t t0;

    if (engine >= s->nengines) {
        return;
    }
    enter(s);
    t0 = vs_cycles(s);
    /* retirements and the hand-back to the ready queues: a decision's
     * consequence, counted with the decisions */
    vs_on_preempted(s, &s->engine[engine], preempt_fence, preempted,
                    completed);
    s->cyc.decide += vs_cycles(s) - t0;
    if (!vs_list_empty(&s->held)) {
        s->sync_dirty = true;
    }
    s->dirty = true;
    leave(s);
}

static void up_tiler_oom(void *os, unsigned engine, uint64_t oom_fence,
                         uint32_t need, uint64_t completed)
{
    struct vidsch *s = os;

    if (engine >= s->nengines) {
        return;
    }
    enter(s);
    vs_on_tiler_oom(s, &s->engine[engine], oom_fence, need, completed);
    if (!vs_list_empty(&s->held)) {
        s->sync_dirty = true;
    }
    s->dirty = true;
    leave(s);
}

static void up_faulted(void *os, unsigned engine, const struct ddi_fault *f)
{
    struct vidsch *s = os;

    if (engine >= s->nengines || !f) {
        return;
    }
    enter(s);
    vs_on_fault(s, &s->engine[engine], f);
    s->dirty = true;
    leave(s);
}

const struct ddi_upcalls vidsch_upcalls = {
    .dma_completed = up_dma_completed,
    .preempted = up_preempted,
    .tiler_oom = up_tiler_oom,
    .faulted = up_faulted,
    .queue_progress = vs_hws_up_progress,
    .queue_error = vs_hws_up_error,
    .queue_oom = vs_hws_up_oom,
    .sched_log = vs_hws_up_log,
};
