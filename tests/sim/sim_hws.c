/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device's scheduler over the GPU model's engines: see sim_hws.h.
 */
#include "sim_hws.h"

#include <string.h>

#define MS  1000000ull

void sim_hws_config_default(struct sim_hws_config *c)
{
    *c = (struct sim_hws_config){
        .frame_ns = 16666667,
        .low_share = COPRO_HWS_LOW_SHARE_DEFAULT,
        .preempt_timeout_ns = COPRO_HWS_PREEMPT_TIMEOUT_DEFAULT,
        .upcall_ns = 0,
    };
}

static uint64_t now_of(const struct sim_hws *h)
{
    return h->g->clk->now;
}

static struct sim_hws *hws_of(void *drv)
{
    return ((struct sim_gpu *)drv)->hws;
}

/* ---- the log and the interrupts ---- */

static void log_add(struct sim_hws *h, unsigned kind, int engine, int queue,
                    uint64_t arg0, uint64_t arg1)
{
    const struct sim_hwq *q = queue >= 0 ? &h->q[queue] : NULL;

    if (h->nlog == SIM_HWS_LOG) {
        h->dropped++;
        h->stats.log_dropped++;
        return;
    }
    h->log[h->nlog++] = (struct copro_sched_log_entry){
        .time_ns = now_of(h), .kind = (uint16_t)kind,
        .engine = engine < 0 ? 0xff : (uint8_t)engine,
        .band = q ? (uint8_t)q->band : 0,
        .queue = queue < 0 ? COPRO_HWQ_NONE : (uint32_t)queue,
        .arg0 = arg0, .arg1 = arg1,
    };
}

/* The DPC: every queue's progress, errors, then the log at a frame. */
static void deliver_cb(void *obj, uint64_t gen)
{
    struct sim_hws *h = obj;
    bool frame = h->frame_pending;

    if (gen != h->deliver_gen) {
        return;
    }
    h->deliver_pending = false;
    h->frame_pending = false;
    h->stats.interrupts++;
    if (!h->up) {
        return;
    }
    {
        struct ddi_hwq_progress moved[COPRO_HWQ_MAX];
        unsigned n = 0;

        for (unsigned i = 0; i < COPRO_HWQ_MAX; i++) {
            struct sim_hwq *q = &h->q[i];

            if (q->used && q->completed > q->reported) {
                q->reported = q->completed;
                moved[n++] = (struct ddi_hwq_progress){ i, q->completed };
            }
        }
        if (n) {
            h->up->queue_progress(h->os, moved, n);
        }
    }
    for (unsigned i = 0; i < COPRO_HWQ_MAX; i++) {
        struct sim_hwq *q = &h->q[i];

        if (q->used && q->err_pending) {
            q->err_pending = false;
            h->up->queue_error(h->os, i, &q->err);
        }
    }
    for (unsigned i = 0; i < COPRO_HWQ_MAX; i++) {
        struct sim_hwq *q = &h->q[i];
        struct ddi_hwq_oom oom;

        if (!q->used || !q->oom_pending) {
            continue;
        }
        q->oom_pending = false;
        if (q->state != COPRO_HWQ_STATE_OOM_WAIT) {
            continue;
        }
        oom = (struct ddi_hwq_oom){
            .scene = q->oom_scene, .need = q->oom_need,
            .oom_fence = q->oom_fence, .completed = q->completed };
        if (h->up->queue_oom) {
            h->up->queue_oom(h->os, i, &oom);
        } else {
            /* nobody to grow it: the kmd fails it (copro_hwq.c) */
            sim_hws_ops.queue_oom_answer(h->g, i, false);
        }
    }
    if (frame && h->up->sched_log) {
        uint32_t dropped = h->dropped;
        unsigned n = h->nlog;

        h->nlog = 0;
        h->dropped = 0;
        h->up->sched_log(h->os, h->log, n, dropped);
    }
}

static void interrupt(struct sim_hws *h)
{
    if (!h->deliver_pending) {
        h->deliver_pending = true;
        sim_at(h->g->clk, now_of(h) + h->cfg.upcall_ns, deliver_cb, h,
               ++h->deliver_gen);
    }
}

/* ---- queues ---- */

static unsigned count(const struct sim_hwq *q)
{
    return q->tail - q->head;
}

static bool runnable(const struct sim_hwq *q)
{
    return q->used && q->listed && !q->suspended &&
           q->state != COPRO_HWQ_STATE_ERROR &&
           q->state != COPRO_HWQ_STATE_OOM_WAIT && count(q) > 0;
}

static uint64_t frame_time(const struct sim_hws *h, const struct sim_hwq *q,
                           int running)
{
    return q->frame_ns + (running ? now_of(h) - q->run_start : 0);
}

static bool is_cur(const struct sim_hws *h, unsigned i)
{
    const struct sim_hwq *q = &h->q[i];

    return q->state == COPRO_HWQ_STATE_RUNNING &&
           h->eng[q->engine].cur == (int)i;
}

static unsigned eff_band(const struct sim_hws *h, unsigned i)
{
    const struct sim_hwq *q = &h->q[i];

    if (q->budget_ns && frame_time(h, q, is_cur(h, i)) >= q->budget_ns) {
        return COPRO_BAND_IDLE;
    }
    return q->band;
}

static void set_state(struct sim_hwq *q)
{
    if (q->state == COPRO_HWQ_STATE_ERROR ||
        q->state == COPRO_HWQ_STATE_RUNNING ||
        q->state == COPRO_HWQ_STATE_OOM_WAIT) {
        return;                 /* (OOM_WAIT: until the answer) */
    }
    q->state = count(q) == 0 ? COPRO_HWQ_STATE_IDLE
               : (!q->listed || q->suspended) ? COPRO_HWQ_STATE_SUSPENDED
               : COPRO_HWQ_STATE_READY;
}

/* ---- the engine's side ---- */

static void schedule(struct sim_hws *h, unsigned e);

static void timer_cb(void *obj, uint64_t arg)
{
    struct sim_hws *h = obj;
    unsigned e = (unsigned)(arg & 7);

    if ((arg >> 3) != h->eng[e].timer_gen) {
        return;
    }
    schedule(h, e);
}

static void arm(struct sim_hws *h, unsigned e, uint64_t when)
{
    struct sim_hws_engine *E = &h->eng[e];

    E->timer_gen++;
    sim_at(h->g->clk, when, timer_cb, h, (E->timer_gen << 3) | e);
}

static void frame_cb(void *obj, uint64_t arg);

static void arm_frame(struct sim_hws *h)
{
    uint64_t now = now_of(h), f = h->cfg.frame_ns;

    if (h->frame_armed || !f) {
        return;
    }
    h->frame_armed = true;
    h->next_frame = (now / f + 1) * f;
    sim_at(h->g->clk, h->next_frame, frame_cb, h, 0);
}

static void switch_out(struct sim_hws *h, unsigned e, unsigned reason)
{
    struct sim_hws_engine *E = &h->eng[e];
    struct sim_hwq *q = &h->q[E->cur];
    uint64_t ran = now_of(h) - q->run_start;

    q->frame_ns += ran;
    q->gpu_ns += ran;
    if (q->band == COPRO_BAND_IDLE || E->share_turn) {
        E->idle_used += ran;
    }
    if (q->state == COPRO_HWQ_STATE_RUNNING) {
        q->state = COPRO_HWQ_STATE_READY;
    }
    set_state(q);
    log_add(h, COPRO_SLOG_SWITCH_OUT, (int)e, E->cur, ran, reason);
    E->cur = -1;
    E->cur_fence = 0;
    E->switching = false;
    E->share_turn = false;
}

static void switch_in(struct sim_hws *h, unsigned e, unsigned i, bool share)
{
    struct sim_hws_engine *E = &h->eng[e];
    struct sim_hwq *q = &h->q[i];
    uint64_t turn = q->quantum_ns;

    E->cur = (int)i;
    E->share_turn = share;
    q->state = COPRO_HWQ_STATE_RUNNING;
    q->run_start = q->last_in = now_of(h);
    q->runs++;
    h->stats.switches++;
    if (share) {
        uint64_t left = (uint64_t)h->cfg.frame_ns * h->cfg.low_share / 1000 -
                        E->idle_used;

        turn = left < turn ? left : turn;
    }
    E->turn_end = now_of(h) + turn;
    for (unsigned k = 0; k < E->n; k++) {
        if (h->q[E->list[k]].state == COPRO_HWQ_STATE_OOM_WAIT) {
            h->stats.ran_while_waiting++;
            break;
        }
    }
    log_add(h, COPRO_SLOG_SWITCH_IN, (int)e, (int)i,
            q->ring[q->head % SIM_HWQ_RING].fence, q->resume);
}

/* The runnable queue of the highest effective band (round robin within
 * it: least recently switched in), or -1. share: an IDLE one, if NORMAL
 * is the top and owes IDLE its share. */
static int pick(struct sim_hws *h, unsigned e, bool *share)
{
    struct sim_hws_engine *E = &h->eng[e];
    int best = -1, idle = -1;
    unsigned bb = 0;

    *share = false;
    for (unsigned k = 0; k < E->n; k++) {
        unsigned i = E->list[k];
        unsigned b;

        if (!runnable(&h->q[i])) {
            continue;
        }
        b = eff_band(h, i);
        if (best < 0 || b > bb ||
            (b == bb && h->q[i].last_in < h->q[best].last_in)) {
            best = (int)i;
            bb = b;
        }
        if (b == COPRO_BAND_IDLE &&
            (idle < 0 || h->q[i].last_in < h->q[idle].last_in)) {
            idle = (int)i;
        }
    }
    if (best >= 0 && bb == COPRO_BAND_NORMAL && idle >= 0 &&
        E->idle_used * 1000 < (uint64_t)h->cfg.frame_ns * h->cfg.low_share) {
        *share = true;
        return idle;
    }
    return best;
}

/* Asks the engine to stop the running queue (for reason). */
static void preempt(struct sim_hws *h, unsigned e, unsigned reason)
{
    struct sim_hws_engine *E = &h->eng[e];
    struct sim_hwq *q = &h->q[E->cur];

    if (E->switching) {
        return;
    }
    if (!E->cur_fence) {
        switch_out(h, e, reason);
        return;
    }
    if (q->ring[q->head % SIM_HWQ_RING].flags & COPRO_SUBMIT_PAGING) {
        return;                 /* never preempted: wait for its end */
    }
    E->switching = true;
    E->out_reason = reason;
    E->switch_at = now_of(h);
    h->stats.preemptions++;
    sim_gpu_ops.preempt(h->g, e, E->cur_fence);
    if (h->cfg.preempt_timeout_ns) {
        arm(h, e, E->switch_at + h->cfg.preempt_timeout_ns);
    }
}

/* Should the running queue give way now? A reason, or 0. */
static unsigned displaced(struct sim_hws *h, unsigned e)
{
    struct sim_hws_engine *E = &h->eng[e];
    unsigned i = (unsigned)E->cur;
    struct sim_hwq *q = &h->q[i];
    unsigned mine = E->share_turn ? COPRO_BAND_NORMAL : eff_band(h, i);
    bool share;
    int o;

    if (!q->listed || q->suspended) {
        return COPRO_SLOG_OUT_RUNLIST;
    }
    if (q->budget_ns && mine == COPRO_BAND_IDLE &&
        q->band != COPRO_BAND_IDLE && !E->share_turn) {
        /* dropped to IDLE: anyone above it goes first */
        o = pick(h, e, &share);
        if (o >= 0 && o != (int)i && eff_band(h, (unsigned)o) > mine) {
            return COPRO_SLOG_OUT_BUDGET;
        }
    }
    o = pick(h, e, &share);
    if (o < 0 || o == (int)i) {
        return 0;
    }
    if (eff_band(h, (unsigned)o) > mine && !share) {
        return COPRO_SLOG_OUT_PREEMPTED;
    }
    if (now_of(h) >= E->turn_end) {
        return share ? COPRO_SLOG_OUT_SHARE : COPRO_SLOG_OUT_QUANTUM;
    }
    return 0;
}

/* Puts the running queue's head on the engine if nothing is there. */
static void feed(struct sim_hws *h, unsigned e)
{
    struct sim_hws_engine *E = &h->eng[e];
    struct sim_hwq *q = &h->q[E->cur];
    struct ddi_submit_args a;

    if (E->cur_fence) {
        return;
    }
    a = q->ring[q->head % SIM_HWQ_RING];
    a.engine = e;
    a.fence = ++E->fence;
    a.context = q->context;
    a.save_addr = q->save_addr;
    a.flags &= ~(uint32_t)(COPRO_SUBMIT_NO_IRQ | COPRO_SUBMIT_RESUME);
    E->cur_resume = q->resume;
    if (q->resume) {
        a.flags |= COPRO_SUBMIT_RESUME;
        q->resume = false;
    }
    E->cur_fence = a.fence;
    sim_gpu_ops.submit(h->g, &a);
}

static void schedule(struct sim_hws *h, unsigned e)
{
    struct sim_hws_engine *E = &h->eng[e];
    uint64_t when = UINT64_MAX;

    if (E->switching) {
        if (now_of(h) >= E->switch_at + h->cfg.preempt_timeout_ns &&
            h->cfg.preempt_timeout_ns) {
            /* did not yield: reset it, only it */
            struct sim_hwq *q = &h->q[E->cur];
            struct ddi_reset_report rep;
            uint64_t fence = q->ring[q->head % SIM_HWQ_RING].fence;

            sim_gpu_ops.reset_engine(h->g, e, &rep);
            h->stats.resets++;
            log_add(h, COPRO_SLOG_RESET, (int)e, E->cur, fence,
                    now_of(h) - E->switch_at);
            q->err = (struct ddi_hwq_error){
                .error = COPRO_HWS_ERR_PREEMPT_TIMEOUT, .error_fence = fence,
                .completed = q->completed };
            E->cur_fence = 0;
            switch_out(h, e, COPRO_SLOG_OUT_RESET);
            q->state = COPRO_HWQ_STATE_ERROR;
            q->err_pending = true;
            log_add(h, COPRO_SLOG_ERROR, (int)e, (int)(q - h->q),
                    COPRO_HWS_ERR_PREEMPT_TIMEOUT, fence);
            interrupt(h);
        } else {
            return;             /* the preempted upcall comes */
        }
    }
    if (E->cur >= 0 && h->q[E->cur].state == COPRO_HWQ_STATE_OOM_WAIT) {
        return;                 /* (oom_holds_engine) until answered */
    }
    if (E->cur >= 0 && count(&h->q[E->cur]) == 0) {
        switch_out(h, e, COPRO_SLOG_OUT_EMPTY);
    }
    if (E->cur >= 0) {
        unsigned why = displaced(h, e);

        if (why) {
            preempt(h, e, why);
            if (E->switching) {
                return;
            }
        }
    }
    if (E->cur < 0) {
        bool share;
        int i = pick(h, e, &share);

        if (i < 0) {
            return;
        }
        switch_in(h, e, (unsigned)i, share);
    }
    feed(h, e);
    /* next look: the turn's end, or the budget running out */
    {
        struct sim_hwq *q = &h->q[E->cur];

        when = E->turn_end;
        if (q->budget_ns && !E->share_turn &&
            q->frame_ns < q->budget_ns) {
            uint64_t b = q->run_start + (q->budget_ns - q->frame_ns);

            when = b < when ? b : when;
        }
        if (when <= now_of(h)) {
            /* the turn is over and nobody wants the engine: a new one */
            E->turn_end = now_of(h) + q->quantum_ns;
            when = E->turn_end;
        }
        arm(h, e, when);
    }
    arm_frame(h);
}

/* The running queue's submission on the engine retired. */
static void retire(struct sim_hws *h, unsigned e)
{
    struct sim_hws_engine *E = &h->eng[e];
    struct sim_hwq *q = &h->q[E->cur];
    const struct ddi_submit_args *a = &q->ring[q->head % SIM_HWQ_RING];

    q->completed = a->fence;
    log_add(h, COPRO_SLOG_COMPLETED, (int)e, E->cur, a->fence, 0);
    q->head++;
    E->cur_fence = 0;
    if (q->irq && !(a->flags & COPRO_SUBMIT_NO_IRQ)) {
        interrupt(h);
    }
}

static void up_dma_completed(void *os, unsigned e, uint64_t completed)
{
    struct sim_hws *h = os;
    struct sim_hws_engine *E = &h->eng[e];

    if (E->cur >= 0 && E->cur_fence && completed >= E->cur_fence) {
        retire(h, e);
        if (E->switching) {
            /* it ended before the request took: nothing to save */
            unsigned why = E->out_reason;

            E->switching = false;
            E->switching = false;
            switch_out(h, e, why);
        }
    }
    schedule(h, e);
}

static void up_preempted(void *os, unsigned e, uint64_t pf,
                         uint64_t preempted, uint64_t completed)
{
    struct sim_hws *h = os;
    struct sim_hws_engine *E = &h->eng[e];

    (void)pf;
    if (E->cur < 0 || !E->switching) {
        schedule(h, e);
        return;
    }
    if (E->cur_fence && completed >= E->cur_fence) {
        retire(h, e);
    } else if (E->cur_fence && preempted == E->cur_fence) {
        struct sim_hwq *q = &h->q[E->cur];

        q->resume = true;
        q->preemptions++;
        log_add(h, COPRO_SLOG_PREEMPTED, (int)e, E->cur,
                q->ring[q->head % SIM_HWQ_RING].fence,
                now_of(h) - E->switch_at);
    } else if (E->cur_fence && E->cur_resume) {
        /* stopped before it was loaded (dropped): it still resumes from
         * its save area when fed again, as the device's queue does
         * (its resume flag is only cleared by a load) */
        h->q[E->cur].resume = true;
    }
    E->cur_fence = 0;
    switch_out(h, e, E->out_reason);
    schedule(h, e);
}

static void up_faulted(void *os, unsigned e, const struct ddi_fault *f)
{
    struct sim_hws *h = os;
    struct sim_hws_engine *E = &h->eng[e];
    struct ddi_reset_report rep;

    sim_gpu_ops.reset_engine(h->g, e, &rep);
    if (E->cur >= 0) {
        struct sim_hwq *q = &h->q[E->cur];
        unsigned i = (unsigned)E->cur;

        q->err = (struct ddi_hwq_error){
            .error = COPRO_HWS_ERR_QUEUE_FAULT, .fault = f->kind,
            .error_fence = q->ring[q->head % SIM_HWQ_RING].fence,
            .completed = q->completed };
        E->cur_fence = 0;
        switch_out(h, e, COPRO_SLOG_OUT_ERROR);
        q->state = COPRO_HWQ_STATE_ERROR;
        q->err_pending = true;
        log_add(h, COPRO_SLOG_ERROR, (int)e, (int)i,
                COPRO_HWS_ERR_QUEUE_FAULT, f->addr);
        interrupt(h);
    }
    schedule(h, e);
}

/*
 * The running queue's geometry stopped on a full parameter buffer: its
 * save record is in the queue's save area (the engine wrote it at
 * q->save_addr), the engine dropped nothing of the queue's ring (it holds
 * one submission at a time) and its own hold was taken back at once (the
 * device does not hold for a queue). The queue waits for the driver's
 * answer in OOM_WAIT, off the engine: the others run meanwhile. A
 * preemption asked just before completes on its own, with nothing to
 * interrupt (up_preempted then finds nothing switching).
 */
static void up_tiler_oom(void *os, unsigned e, uint64_t oom_fence,
                         uint32_t need, uint64_t completed)
{
    struct sim_hws *h = os;
    struct sim_hws_engine *E = &h->eng[e];
    struct sim_hwq *q;
    unsigned i;

    (void)completed;
    if (E->cur < 0 || !E->cur_fence || oom_fence != E->cur_fence) {
        schedule(h, e);
        return;
    }
    i = (unsigned)E->cur;
    q = &h->q[i];
    q->resume = true;
    q->oom_scene = h->g->engine[e].oom_scene;
    q->oom_need = need;
    q->oom_fence = q->ring[q->head % SIM_HWQ_RING].fence;
    q->ooms++;
    q->oom_pending = true;
    h->stats.ooms++;
    log_add(h, COPRO_SLOG_TILER_OOM, (int)e, (int)i, q->oom_scene,
            need | (q->oom_fence << 32));
    E->cur_fence = 0;
    if (h->cfg.oom_holds_engine) {
        E->switching = false;   /* (--meta) it stays on the engine */
    } else {
        switch_out(h, e, COPRO_SLOG_OUT_TILER_OOM);
    }
    q->state = COPRO_HWQ_STATE_OOM_WAIT;
    interrupt(h);
    schedule(h, e);
}

static const struct ddi_upcalls engine_upcalls = {
    .dma_completed = up_dma_completed,
    .preempted = up_preempted,
    .tiler_oom = up_tiler_oom,
    .faulted = up_faulted,
};

/* ---- frames (vsync) ---- */

static bool any_work(const struct sim_hws *h)
{
    for (unsigned i = 0; i < COPRO_HWQ_MAX; i++) {
        const struct sim_hwq *q = &h->q[i];

        if (q->used && ((count(q) && q->state != COPRO_HWQ_STATE_ERROR) ||
                        q->frame_ns)) {
            return true;
        }
    }
    return false;
}

static void frame_cb(void *obj, uint64_t arg)
{
    struct sim_hws *h = obj;

    (void)arg;
    h->frame_armed = false;
    h->vsync++;
    h->stats.frames++;
    for (unsigned i = 0; i < COPRO_HWQ_MAX; i++) {
        struct sim_hwq *q = &h->q[i];
        bool running = is_cur(h, i);

        if (!q->used) {
            continue;
        }
        if (running) {
            uint64_t ran = now_of(h) - q->run_start;

            q->frame_ns += ran;
            q->gpu_ns += ran;
            q->run_start = now_of(h);
        }
        q->last_frame_ns = q->frame_ns;
        q->frame_ns = 0;
        if (q->listed) {
            log_add(h, COPRO_SLOG_FRAME, (int)q->engine, (int)i,
                    q->last_frame_ns, h->vsync);
        }
    }
    for (unsigned e = 0; e < DDI_MAX_ENGINES; e++) {
        h->eng[e].idle_used = 0;
    }
    h->frame_pending = true;
    interrupt(h);
    for (unsigned e = 0; e < h->g->cfg.engines; e++) {
        schedule(h, e);
    }
    if (any_work(h)) {
        arm_frame(h);
    }
}

/* ---- the DDI ---- */

static int hws_queue_create(void *drv, const struct ddi_hwq_args *a,
                            uint32_t *queue)
{
    struct sim_hws *h = hws_of(drv);

    if (a->engine >= h->g->cfg.engines) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < COPRO_HWQ_MAX; i++) {
        struct sim_hwq *q = &h->q[i];

        if (!q->used) {
            memset(q, 0, sizeof(*q));
            q->used = true;
            q->engine = a->engine;
            q->context = a->context;
            q->save_addr = a->save_addr;
            q->irq = a->completion_irq;
            q->band = COPRO_BAND_NORMAL;
            q->quantum_ns = 2 * MS;
            q->state = COPRO_HWQ_STATE_IDLE;
            *queue = i;
            return DDI_OK;
        }
    }
    return DDI_ENOMEM;
}

static void hws_queue_destroy(void *drv, uint32_t queue)
{
    struct sim_hws *h = hws_of(drv);

    if (queue < COPRO_HWQ_MAX && !h->q[queue].listed &&
        !is_cur(h, queue)) {
        h->q[queue].used = false;
    }
}

static int hws_queue_submit(void *drv, uint32_t queue,
                            const struct ddi_submit_args *a)
{
    struct sim_hws *h = hws_of(drv);
    struct sim_hwq *q;

    if (queue >= COPRO_HWQ_MAX || !h->q[queue].used) {
        return DDI_EINVAL;
    }
    q = &h->q[queue];
    if (q->state == COPRO_HWQ_STATE_ERROR) {
        return DDI_EINVAL;
    }
    if (count(q) == SIM_HWQ_RING) {
        return DDI_EBUSY;
    }
    q->ring[q->tail++ % SIM_HWQ_RING] = *a;
    h->stats.doorbells++;
    set_state(q);
    if (q->listed) {
        schedule(h, q->engine);
    }
    return DDI_OK;
}

static int hws_runlist_commit(void *drv, unsigned engine,
                              const struct ddi_runlist_entry *ent, unsigned n)
{
    struct sim_hws *h = hws_of(drv);
    struct sim_hws_engine *E;
    bool seen[COPRO_HWQ_MAX] = { false };

    if (engine >= h->g->cfg.engines || n > COPRO_RUNLIST_MAX) {
        return DDI_EINVAL;
    }
    E = &h->eng[engine];
    for (unsigned k = 0; k < n; k++) {
        uint32_t i = ent[k].queue;

        if (i >= COPRO_HWQ_MAX || !h->q[i].used || seen[i] ||
            h->q[i].engine != engine || ent[k].band >= COPRO_BANDS ||
            ent[k].quantum_ns < COPRO_HWS_QUANTUM_MIN_NS ||
            ent[k].quantum_ns > COPRO_HWS_QUANTUM_MAX_NS) {
            return DDI_EINVAL;
        }
        seen[i] = true;
    }
    h->stats.commits++;
    for (unsigned k = 0; k < E->n; k++) {
        h->q[E->list[k]].listed = false;
    }
    E->n = n;
    for (unsigned k = 0; k < n; k++) {
        struct sim_hwq *q = &h->q[ent[k].queue];

        E->list[k] = ent[k].queue;
        q->listed = true;
        q->band = h->cfg.flat_bands ? COPRO_BAND_NORMAL : ent[k].band;
        q->quantum_ns = ent[k].quantum_ns;
        q->budget_ns = ent[k].budget_ns;
        q->suspended = ent[k].suspended;
    }
    for (unsigned i = 0; i < COPRO_HWQ_MAX; i++) {
        if (h->q[i].used && h->q[i].engine == engine) {
            set_state(&h->q[i]);
        }
    }
    log_add(h, COPRO_SLOG_RUNLIST, (int)engine, -1, n, h->stats.commits);
    schedule(h, engine);
    return DDI_OK;
}

/* COPRO_REG_HWS_OOM_ANSWER: the answer to a queue in OOM_WAIT. */
static int hws_queue_oom_answer(void *drv, uint32_t queue, bool resume)
{
    struct sim_hws *h = hws_of(drv);
    unsigned ans = resume ? COPRO_HWS_OOM_RESUME : COPRO_HWS_OOM_FAIL;
    struct sim_hwq *q = queue < COPRO_HWQ_MAX ? &h->q[queue] : NULL;
    struct sim_hws_engine *E;

    if (!q || !q->used || !q->listed ||
        q->state != COPRO_HWQ_STATE_OOM_WAIT) {
        /* refused: nothing changes (an ERROR entry, DEV_HWS_ERROR) */
        h->stats.oom_refused++;
        log_add(h, COPRO_SLOG_ERROR, q && q->listed ? (int)q->engine : -1,
                q ? (int)queue : -1, COPRO_HWS_ERR_OOM_ANSWER,
                COPRO_HWS_OOM_ANSWER(queue, ans));
        return DDI_EINVAL;
    }
    E = &h->eng[q->engine];
    log_add(h, COPRO_SLOG_OOM_ANSWER, (int)q->engine, (int)queue, ans,
            q->oom_scene);
    if (!resume) {
        h->stats.oom_failed++;
        q->state = COPRO_HWQ_STATE_ERROR;
        q->err = (struct ddi_hwq_error){
            .error = COPRO_HWS_ERR_TILER_OOM, .error_fence = q->oom_fence,
            .completed = q->completed };
        q->err_pending = true;
        if (E->cur == (int)queue) {
            switch_out(h, q->engine, COPRO_SLOG_OUT_ERROR);  /* (--meta) */
            q->state = COPRO_HWQ_STATE_ERROR;
        }
        log_add(h, COPRO_SLOG_ERROR, (int)q->engine, (int)queue,
                COPRO_HWS_ERR_TILER_OOM, q->oom_scene);
        interrupt(h);
    } else {
        h->stats.oom_resumed++;
        /* runnable again: resumes from its save area (q->resume) */
        q->state = E->cur == (int)queue ? COPRO_HWQ_STATE_RUNNING
                                        : COPRO_HWQ_STATE_IDLE;
        set_state(q);
    }
    schedule(h, q->engine);
    return DDI_OK;
}

static void hws_configure(void *drv, uint32_t low_share, uint64_t timeout)
{
    struct sim_hws *h = hws_of(drv);

    h->cfg.low_share = low_share > 1000 ? 1000 : low_share;
    h->cfg.preempt_timeout_ns = timeout;
}

static uint64_t hws_frame_ns(void *drv)
{
    return hws_of(drv)->cfg.frame_ns;
}

const struct ddi_hws_ops sim_hws_ops = {
    .queue_create = hws_queue_create,
    .queue_destroy = hws_queue_destroy,
    .queue_submit = hws_queue_submit,
    .runlist_commit = hws_runlist_commit,
    .configure = hws_configure,
    .frame_ns = hws_frame_ns,
    .queue_oom_answer = hws_queue_oom_answer,
};

void sim_hws_init(struct sim_hws *h, struct sim_gpu *g,
                  const struct sim_hws_config *cfg)
{
    memset(h, 0, sizeof(*h));
    h->cfg = *cfg;
    h->g = g;
    g->hws = h;
    for (unsigned e = 0; e < DDI_MAX_ENGINES; e++) {
        h->eng[e].cur = -1;
    }
    h->ops = sim_gpu_ops;
    h->ops.hws = &sim_hws_ops;
    sim_gpu_connect(g, &engine_upcalls, h);
}

void sim_hws_connect(struct sim_hws *h, const struct ddi_upcalls *up,
                     void *os)
{
    h->up = up;
    h->os = os;
}
