/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the hardware scheduler (COPRO_CAP_HWSCHED) and the engine's side
 * of it: which queue runs, when it is switched out and why (bands, quanta,
 * budgets, the IDLE band's share, blocked WAITs, the preemption timeout,
 * OOM waits), and what the engine tells it (fetch, retire, save, account).
 * docs/specs/copro.rst, "The scheduler".
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/runstate.h"
#include "copro.h"
#include "copro-hws-internal.h"
#include "trace.h"

/*
 * The scheduler
 */

static bool hwq_runnable(CoproHwq *q)
{
    return q->state == COPRO_HWQ_STATE_READY;
}

/* Frames are the display's: without vsyncs, no budget and no share. */
static bool hws_frames(CoproState *s)
{
    return s->display.control & COPRO_DISP_CTL_ENABLE;
}

/* ns of the frame the IDLE band is still owed (COPRO_REG_HWS_LOW_SHARE) */
static uint64_t hws_share_owed(CoproEngine *e)
{
    CoproState *s = e->dev;
    uint64_t share = (NANOSECONDS_PER_SECOND / s->refresh) *
                     s->hws.low_share / 1000;
    uint64_t used = hws_eng(e)->idle_ns;

    return share > used && hws_frames(s) ? share - used : 0;
}

/*
 * The highest effective band with a runnable queue other than the one on
 * the engine, or -1.
 */
static int hws_best_band(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    int best = -1;

    for (uint32_t i = 0; i < he->active_count; i++) {
        CoproHwq *q = &s->hws.q[he->active[i]];

        if (he->active[i] != he->current && hwq_runnable(q)) {
            best = MAX(best, (int)hwq_band(q));
        }
    }
    return best;
}

/* Round robin within @band: the queue after the one that last ran. */
static CoproHwq *hws_pick_in(CoproEngine *e, uint32_t band)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    uint32_t n = he->active_count, start = 0;

    for (uint32_t i = 0; i < n; i++) {
        if (he->active[i] == he->rr[band]) {
            start = i + 1;
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        CoproHwq *q = &s->hws.q[he->active[(start + k) % n]];

        if (hwq_runnable(q) && hwq_band(q) == band) {
            return q;
        }
    }
    return NULL;
}

static void hws_request_switch(CoproEngine *e, uint32_t reason)
{
    CoproHwsEngine *he = hws_eng(e);

    he->switching = true;
    he->switch_reason = reason;
    he->switch_time = copro_now_ns();
    trace_copro_hws_switch_req(e->index, he->current, reason);
    /* the preemption timeout runs from now */
    copro_hws_arm(e);
    hws_kick(e);
}

/*
 * Decide whether the queue on the engine goes on: called at every
 * scheduling event (doorbell, unblock, vsync, list taken, the timer).
 * It depends on the state and on deadlines that are times (quantum, share
 * turn), never on when it is called: a call more (a VM restart) changes
 * nothing, so a migrated run is the same run.
 */
static void hws_evaluate(CoproEngine *e, int64_t now)
{
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);
    int best = hws_best_band(e);
    uint32_t band;

    if (!q) {
        if (best >= 0 && !e->active) {
            hws_kick(e);
        }
        return;
    }
    if (he->switching) {
        return;
    }
    band = hwq_band(q);
    if (he->share_turn) {
        /*
         * A share turn yields only to bands above NORMAL (and above the
         * queue's own, which a vsync may have given back), or at its end.
         */
        if (best > COPRO_BAND_NORMAL && best > (int)band) {
            hws_request_switch(e, COPRO_SLOG_OUT_PREEMPTED);
            return;
        }
        if (now < he->share_end) {
            return;
        }
        /*
         * The turn has ended: rule 2 again, with the queue as one of its
         * effective band. A higher band takes the engine; otherwise the
         * end of the turn is the end of a quantum (rules 6 and 4).
         */
        he->share_turn = false;
        if (best > (int)band) {
            hws_request_switch(e, COPRO_SLOG_OUT_QUANTUM);
            return;
        }
    } else if (best > (int)band) {
        hws_request_switch(e, COPRO_SLOG_OUT_PREEMPTED);
        return;
    } else if (now - he->quantum_start < (int64_t)q->quantum_ns) {
        return;
    }
    /* the IDLE band's share first: a rotation of two must not starve it */
    if (band > COPRO_BAND_IDLE && hws_share_owed(e) &&
        hws_pick_in(e, COPRO_BAND_IDLE)) {
        hws_request_switch(e, COPRO_SLOG_OUT_SHARE);
    } else if (best == (int)band) {
        hws_request_switch(e, COPRO_SLOG_OUT_QUANTUM);
    } else {
        /* alone in its band: a new quantum, the same run */
        he->quantum_start = now;
    }
}

/*
 * Does the preemption timeout run? Not while a PAGING submission (never
 * preempted) is on the engine: the switch waits for its end.
 */
static bool hws_timeout_runs(CoproEngine *e)
{
    return e->dev->hws.preempt_timeout &&
           !(e->active && (e->desc.flags & COPRO_SUBMIT_PAGING));
}

/* The next time the scheduler of @e must look, or INT64_MAX. */
static int64_t hws_deadline(CoproEngine *e, int64_t now)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);
    int64_t t = INT64_MAX;

    if (q && !he->switching) {
        t = he->share_turn ? he->share_end
                           : he->quantum_start + (int64_t)q->quantum_ns;
    }
    if (q && he->switching && hws_timeout_runs(e)) {
        t = MIN(t, he->switch_time + (int64_t)s->hws.preempt_timeout);
    }
    for (uint32_t i = 0; i < he->active_count; i++) {
        CoproHwq *b = &s->hws.q[he->active[i]];

        if (b->state == COPRO_HWQ_STATE_BLOCKED) {
            int64_t k = (now - b->wait_since) / HWS_POLL_NS + 1;

            t = MIN(t, b->wait_since + k * HWS_POLL_NS);
        }
    }
    return MAX(t, now + 1);
}

/* Set the scheduler's timer to its next deadline. */
void copro_hws_arm(CoproEngine *e)
{
    CoproHwsEngine *he = hws_eng(e);
    int64_t now = copro_now_ns();
    int64_t t;

    if (!he->timer) {
        return;
    }
    t = (he->active_count || he->current != COPRO_HWQ_NONE)
        ? hws_deadline(e, now) : INT64_MAX;
    if (t == INT64_MAX) {
        timer_del(he->timer);
    } else {
        timer_mod(he->timer, t);
    }
}

void copro_hws_update(CoproEngine *e)
{
    if (!hws_eng(e)->timer) {
        return;
    }
    hws_evaluate(e, copro_now_ns());
    copro_hws_arm(e);
}

/* Put the queue on the engine out: it is no longer on the engine. */
static void hws_switch_out(CoproEngine *e, uint32_t reason)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);
    int64_t now = copro_now_ns();

    if (reason != COPRO_SLOG_OUT_EMPTY && reason != COPRO_SLOG_OUT_ERROR &&
        reason != COPRO_SLOG_OUT_RESET &&
        reason != COPRO_SLOG_OUT_TILER_OOM && hwq_has_work(q)) {
        q->preemptions++;
    }
    switch (reason) {
    case COPRO_SLOG_OUT_BLOCKED:
        q->state = COPRO_HWQ_STATE_BLOCKED;
        break;
    case COPRO_SLOG_OUT_ERROR:
    case COPRO_SLOG_OUT_RESET:
        q->state = COPRO_HWQ_STATE_ERROR;
        break;
    case COPRO_SLOG_OUT_TILER_OOM:
        q->state = COPRO_HWQ_STATE_OOM_WAIT;
        break;
    default:
        q->state = hwq_rest_state(q);
        break;
    }
    /* its band's next turn goes to the queue after it */
    he->rr[hwq_band(q)] = he->current;
    trace_copro_hws_switch_out(e->index, he->current, reason,
                               now - he->run_start);
    copro_hwq_log(s, q, COPRO_SLOG_SWITCH_OUT, now - he->run_start, reason);
    copro_tl_queue(s, COPRO_TL_QUEUE_OUT, e->index, q->context,
                   he->current, reason, now - he->run_start, hwq_band(q));
    copro_hwq_writeback(s, q);
    he->current = COPRO_HWQ_NONE;
    he->switching = false;
    he->share_turn = false;
    he->share_next = reason == COPRO_SLOG_OUT_SHARE;
    e->state = COPRO_ENG_STATE_IDLE;
    if (q->state == COPRO_HWQ_STATE_BLOCKED) {
        uint64_t v;
        CoproMemFault f;

        /* satisfied while it was being saved: runnable at once */
        if (copro_mmu_rw_ctx(e, false, q->context, q->wait_addr, &v, 8,
                             false, &f) &&
            le64_to_cpu(v) >= q->wait_value) {
            q->state = hwq_rest_state(q);
            copro_hwq_log(s, q, COPRO_SLOG_UNBLOCKED, q->wait_addr,
                    le64_to_cpu(v));
        }
    }
    copro_hws_take(e);
    copro_hws_update(e);
}


/*
 * The queue on the engine stops for good: @err (QUEUE_FAULT, WRITEBACK,
 * PREEMPT_TIMEOUT); the engine goes on with the others.
 */
void copro_hws_fail_current(CoproEngine *e, uint32_t err, uint32_t fault,
                             uint64_t addr, uint32_t reason)
{
    CoproState *s = e->dev;
    CoproHwq *q = hws_current(e);
    uint32_t slot = hws_eng(e)->current;

    q->error = err;
    q->fault = fault;
    q->error_fence = e->active ? e->desc.fence : 0;
    copro_engine_abort(e);   /* not resumed */
    hws_switch_out(e, reason);
    copro_hws_error(s, err, e->index, slot, addr,
              err == COPRO_HWS_ERR_PREEMPT_TIMEOUT ? "queue did not yield: "
              "reset" : "queue stopped by an error");
    hws_kick(e);
}

void copro_hws_queue_fault(CoproEngine *e)
{
    copro_hws_fail_current(e, COPRO_HWS_ERR_QUEUE_FAULT, e->fault_kind,
                     e->fault_addr, COPRO_SLOG_OUT_ERROR);
}

/*
 * The queue on the engine stopped its geometry on a full parameter
 * buffer (copro-tiler.c has written the save record to the queue's save
 * area and the scene header's OOM state). It waits for the driver's
 * answer (COPRO_REG_HWS_OOM_ANSWER) in OOM_WAIT: not runnable, off the
 * engine, so the engine runs the other queues meanwhile; not RUNNING, so
 * no preemption timeout runs for it. Its queued submissions stay in its
 * ring behind the stopped one (resume 1).
 */
void copro_hws_tiler_oom(CoproEngine *e, uint64_t scene, uint32_t need)
{
    CoproState *s = e->dev;
    CoproHwq *q = hws_current(e);
    uint32_t slot = hws_eng(e)->current;

    q->resume = 1;
    q->oom_scene = scene;
    q->oom_need = need;
    q->oom_fence = e->desc.fence;
    q->ooms++;
    trace_copro_hws_tiler_oom(e->index, slot, scene, need, e->desc.fence);
    copro_hwq_log(s, q, COPRO_SLOG_TILER_OOM, scene,
            need | (e->desc.fence << 32));
    hws_switch_out(e, COPRO_SLOG_OUT_TILER_OOM);
    copro_raise_irq(s, COPRO_INT_DEV_HWS_OOM);
    hws_kick(e);
}

/* COPRO_REG_HWS_OOM_ANSWER: the driver's answer to a queue's OOM stop. */
void copro_hws_oom_answer(CoproState *s, uint32_t val)
{
    uint32_t slot = COPRO_HWS_OOM_SLOT(val), ans = COPRO_HWS_OOM_ANS(val);
    CoproHwq *q = slot < COPRO_HWQ_MAX ? &s->hws.q[slot] : NULL;
    CoproEngine *e;

    if (!q || !q->mapped || q->state != COPRO_HWQ_STATE_OOM_WAIT ||
        (val >> 24) ||
        (ans != COPRO_HWS_OOM_RESUME && ans != COPRO_HWS_OOM_FAIL)) {
        copro_hws_error(s, COPRO_HWS_ERR_OOM_ANSWER,
                  q && q->mapped ? q->engine : COPRO_HWS_NO_ENGINE,
                  q ? slot : COPRO_HWQ_NONE, val,
                  "OOM answer to a queue not waiting for one, or bad "
                  "answer: refused");
        return;
    }
    e = &s->engines[q->engine];
    trace_copro_hws_oom_answer(slot, ans, q->oom_scene);
    copro_hwq_log(s, q, COPRO_SLOG_OOM_ANSWER, ans, q->oom_scene);
    if (ans == COPRO_HWS_OOM_FAIL) {
        q->state = COPRO_HWQ_STATE_ERROR;
        q->error = COPRO_HWS_ERR_TILER_OOM;
        q->fault = 0;
        q->error_fence = q->oom_fence;
        copro_hwq_writeback(s, q);
        copro_hws_error(s, COPRO_HWS_ERR_TILER_OOM, q->engine, slot,
                        q->oom_scene,
                  "the driver failed a queue's OOM stop");
        return;
    }
    /* resumed from its save area with RESUME semantics (copro_hws_fetch) */
    q->state = hwq_rest_state(q);
    copro_hwq_writeback(s, q);
    copro_hws_update(e);
    hws_kick(e);
}

/* PREEMPT_TIMEOUT ran out: reset the queue's submission (device TDR). */
static void hws_timeout(CoproEngine *e, int64_t now)
{
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);

    copro_hwq_log(e->dev, q, COPRO_SLOG_RESET, e->active ? e->desc.fence : 0,
            now - he->switch_time);
    e->aborted_fence = e->active ? e->desc.fence : 0;
    /* as CONTROL.RESET does: the injected faults go with it */
    e->inject = 0;
    copro_hws_fail_current(e, COPRO_HWS_ERR_PREEMPT_TIMEOUT, 0,
                     e->aborted_fence, COPRO_SLOG_OUT_RESET);
}

/*
 * Re-check the WAIT of blocked queues: all of them after a fence was
 * written, else those whose poll grid (every HWS_POLL_NS from the time
 * they blocked) is at @now.
 */
static void hws_poll(CoproEngine *e, bool all)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    int64_t now = copro_now_ns();

    for (uint32_t i = 0; i < he->active_count; i++) {
        CoproHwq *q = &s->hws.q[he->active[i]];
        CoproMemFault f;
        uint64_t v;

        if (q->state != COPRO_HWQ_STATE_BLOCKED ||
            (!all && (now <= q->wait_since ||
                      (now - q->wait_since) % HWS_POLL_NS))) {
            continue;
        }
        if (!copro_mmu_rw_ctx(e, false, q->context, q->wait_addr, &v, 8,
                              false, &f)) {
            q->state = COPRO_HWQ_STATE_ERROR;
            q->error = COPRO_HWS_ERR_QUEUE_FAULT;
            q->fault = f.kind;
            q->error_fence = 0;
            copro_hwq_writeback(s, q);
            copro_hws_error(s, COPRO_HWS_ERR_QUEUE_FAULT, e->index,
                            he->active[i],
                      q->wait_addr, "blocked queue's WAIT faulted");
            continue;
        }
        if (le64_to_cpu(v) >= q->wait_value) {
            q->state = hwq_rest_state(q);
            trace_copro_hws_unblock(he->active[i], q->wait_addr,
                                    le64_to_cpu(v));
            copro_hwq_log(s, q, COPRO_SLOG_UNBLOCKED, q->wait_addr,
                          le64_to_cpu(v));
        }
    }
}

void copro_hws_timer(void *opaque)
{
    CoproEngine *e = opaque;
    CoproHwsEngine *he = hws_eng(e);
    MemReentrancyGuard *guard = &DEVICE(e->dev)->mem_reentrancy_guard;
    bool was_engaged = guard->engaged_in_io;
    int64_t now = copro_now_ns();

    /* as the engine: nothing happens while the VM is stopped */
    if (!runstate_is_running()) {
        return;
    }
    guard->engaged_in_io = true;
    hws_poll(e, false);
    if (he->switching && he->current != COPRO_HWQ_NONE &&
        hws_timeout_runs(e) &&
        now >= he->switch_time + (int64_t)e->dev->hws.preempt_timeout) {
        hws_timeout(e, now);
    }
    copro_hws_update(e);
    guard->engaged_in_io = was_engaged;
}

/*
 * The engine's side
 */

/*
 * @q goes on the engine: counted and logged before its head is loaded, so
 * that every SWITCH_OUT (a fault loading the entry included) follows its
 * SWITCH_IN. The fence at head is read for the log alone (0 if it cannot
 * be read: the load faults then).
 */
static void hws_switch_in(CoproEngine *e, CoproHwq *q)
{
    CoproState *s = e->dev;
    uint32_t slot = hws_eng(e)->current;
    uint64_t fence = copro_hwq_head_fence(s, e->index, q);

    q->runs++;
    s->hws.switches++;
    trace_copro_hws_switch_in(e->index, slot, fence, q->resume);
    copro_hwq_log(s, q, COPRO_SLOG_SWITCH_IN, fence, q->resume);
    copro_tl_queue(s, COPRO_TL_QUEUE_IN, e->index, q->context, slot, fence,
                   q->resume, hwq_band(q));
}

/*
 * The engine has no submission: go on with the queue on it, or switch it
 * out and pick the next (highest effective band, round robin), and load
 * the submission at its head. False: nothing to run (the engine idles).
 */
bool copro_hws_fetch(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);
    bool first = false, share;
    int best;

    if (q && he->switching) {
        hws_switch_out(e, he->switch_reason);
        q = NULL;
    } else if (q && !hwq_has_work(q)) {
        hws_switch_out(e, COPRO_SLOG_OUT_EMPTY);
        q = NULL;
    }
    if (!q) {
        copro_hws_take(e);
        best = hws_best_band(e);
        if (best < 0) {
            e->state = COPRO_ENG_STATE_IDLE;
            return false;
        }
        /*
         * The IDLE band's share: the turn after one that ended with
         * COPRO_SLOG_OUT_SHARE goes to the IDLE band, unless work above
         * NORMAL is ready.
         */
        share = he->share_next && best <= COPRO_BAND_NORMAL &&
                hws_share_owed(e) && hws_pick_in(e, COPRO_BAND_IDLE);
        he->share_next = false;
        if (share) {
            best = COPRO_BAND_IDLE;
        }
        q = hws_pick_in(e, best);
        he->current = hwq_slot(s, q);
        he->rr[best] = he->current;
        he->run_start = copro_now_ns();
        he->quantum_start = he->run_start;
        he->share_turn = share;
        he->share_end = he->run_start +
                        (int64_t)MIN(q->quantum_ns, hws_share_owed(e));
        q->state = COPRO_HWQ_STATE_RUNNING;
        hws_switch_in(e, q);
        first = true;
    }
    if (!copro_load_entry(e, q->ring_base, q->head, NULL)) {
        return false;   /* the queue faulted: copro_hws_queue_fault() */
    }
    if (e->desc.context != q->context ||
        (e->desc.flags & COPRO_SUBMIT_RESUME)) {
        copro_engine_fault(e, COPRO_FAULT_BAD_DESCRIPTOR,
                           q->ring_base + (uint64_t)q->head * COPRO_DESC_SIZE,
                           0);
        return false;
    }
    /* the device resumes a queue from the queue's own save area */
    e->desc.save_addr = q->save_addr;
    if (q->resume) {
        e->desc.flags |= COPRO_SUBMIT_RESUME;
        e->restore_pending = true;
    } else {
        q->sub_ns = 0;
    }
    if (first) {
        copro_hws_update(e);
    }
    return true;
}

/*
 * A WAIT of the queue on the engine is not satisfied: switch it out as
 * BLOCKED if the engine can stop there (true), else it waits in place.
 */
bool copro_hws_blocked(CoproEngine *e, int64_t now)
{
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);
    CoproPacket *p = &e->cur;
    bool possible = q && copro_preempt_possible(e);
    /*
     * A WAIT that is its submission's first packet has nothing to save:
     * the submission is put back at the head, not started, whatever the
     * granularity (dma-buffer and none never interrupt a buffer, and this
     * is not one begun; command and mid-command could save it, but a save
     * of nothing done would only cost a save and a restore).
     */
    bool unstarted = q && e->pc == 0 && !q->resume &&
                     !(e->desc.flags & COPRO_SUBMIT_PAGING);

    if (!possible && !unstarted) {
        return false;
    }
    q->wait_addr = p->dw[0] | ((uint64_t)p->dw[1] << 32);
    q->wait_value = p->dw[2] | ((uint64_t)p->dw[3] << 32);
    q->wait_since = now;
    copro_hwq_log(e->dev, q, COPRO_SLOG_BLOCKED, q->wait_addr, q->wait_value);
    if (unstarted) {
        /* the charged time of the WAIT's check was spent: no refund */
        copro_engine_abort(e);   /* not resumed */
        hws_switch_out(e, COPRO_SLOG_OUT_BLOCKED);
        return true;
    }
    /* a switch already decided keeps its reason */
    if (!he->switching) {
        he->switching = true;
        he->switch_reason = COPRO_SLOG_OUT_BLOCKED;
        he->switch_time = now;
        copro_hws_arm(e);
    } else {
        he->switch_reason = COPRO_SLOG_OUT_BLOCKED;
    }
    return true;
}

/* The queue's submission retires: progress fence, counters, head. */
bool copro_hws_retire(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproHwq *q = hws_current(e);

    if (q->progress_addr) {
        uint64_t v = cpu_to_le64(e->desc.fence);

        if (!copro_hws_rw(s, e->index, q->progress_addr, &v, 8, true)) {
            copro_hws_fail_current(e, COPRO_HWS_ERR_WRITEBACK, 0,
                                   q->progress_addr,
                             COPRO_SLOG_OUT_ERROR);
            return false;
        }
    }
    q->completed_fence = e->desc.fence;
    q->submissions++;
    q->head = (q->head + 1) & (q->ring_size - 1);
    q->resume = 0;
    copro_hwq_log(s, q, COPRO_SLOG_COMPLETED, e->desc.fence, q->sub_ns);
    q->sub_ns = 0;
    return true;
}

bool copro_hws_completion_irq(CoproEngine *e)
{
    CoproHwq *q = hws_current(e);

    return !q || (q->flags & COPRO_HWQ_F_COMPLETION_IRQ);
}

/* The engine saved the queue's submission (or had none loaded). */
void copro_hws_saved(CoproEngine *e, bool saved, uint64_t fence)
{
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);
    uint32_t reason = he->switching ? he->switch_reason
                                    : COPRO_SLOG_OUT_PREEMPTED;

    if (saved) {
        q->resume = 1;
        copro_hwq_log(e->dev, q, COPRO_SLOG_PREEMPTED, fence,
                copro_now_ns() - (he->switching ? he->switch_time
                                                : e->preempt_req_time));
    }
    hws_switch_out(e, reason);
}

void copro_hws_account(CoproEngine *e, uint64_t ns)
{
    CoproHwq *q = hws_current(e);
    CoproHwsEngine *he = hws_eng(e);

    if ((int64_t)ns < 0) {
        /* a refund of time charged ahead that never ran */
        uint64_t r = -ns;

        q->gpu_time_ns -= MIN(q->gpu_time_ns, r);
        q->frame_time_ns -= MIN(q->frame_time_ns, r);
        q->sub_ns -= MIN(q->sub_ns, r);
        if (hwq_band(q) == COPRO_BAND_IDLE) {
            he->idle_ns -= MIN(he->idle_ns, r);
        }
        return;
    }
    q->gpu_time_ns += ns;
    q->frame_time_ns += ns;
    q->sub_ns += ns;
    if (hwq_band(q) == COPRO_BAND_IDLE) {
        he->idle_ns += ns;
    }
    /*
     * The frame budget is checked as time is charged (a step, a save or
     * a restore), so the drop to IDLE comes at the same point of every
     * run of the same work.
     */
    if (q->budget_ns && !q->over_budget && hws_frames(e->dev) &&
        q->frame_time_ns >= q->budget_ns) {
        q->over_budget = true;
        copro_hwq_log(e->dev, q, COPRO_SLOG_BUDGET, q->frame_time_ns,
                      q->budget_ns);
        if (!he->switching && hws_best_band(e) > COPRO_BAND_IDLE) {
            hws_request_switch(e, COPRO_SLOG_OUT_BUDGET);
        }
    }
}

/*
 * CONTROL.RESET with queues: the run list (and a pending one) goes, every
 * queue is written back, the one on the engine in ERROR with its
 * submission aborted. The engine is back on its kernel ring.
 */
void copro_hws_engine_reset(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);

    if (!he->active_count && !q && !he->pending) {
        return;
    }
    if (q) {
        q->error = COPRO_HWS_ERR_ENGINE_RESET;
        q->error_fence = e->active ? e->desc.fence : 0;
        copro_hwq_log(s, q, COPRO_SLOG_RESET, q->error_fence, 0);
        copro_hwq_log(s, q, COPRO_SLOG_SWITCH_OUT,
                copro_now_ns() - he->run_start, COPRO_SLOG_OUT_RESET);
        q->state = COPRO_HWQ_STATE_ERROR;
    }
    for (uint32_t i = 0; i < he->active_count; i++) {
        copro_hwq_unmap(s, &s->hws.q[he->active[i]]);
    }
    he->active_count = 0;
    he->pending = false;
    he->pending_count = 0;
    he->status = 0;
    he->current = COPRO_HWQ_NONE;
    he->switching = false;
    he->share_turn = false;
    he->idle_ns = 0;
    memset(he->rr, 0xff, sizeof(he->rr));
    if (he->timer) {
        timer_del(he->timer);
    }
    trace_copro_hws_runlist(e->index, 0, he->seq, 0);
    copro_hws_log(s, COPRO_SLOG_RUNLIST, e->index, 0, COPRO_HWQ_NONE, 0,
                  he->seq);
}

/* A fence was written by the device: blocked queues re-check at once. */
void copro_hws_fence_written(CoproState *s)
{
    for (unsigned i = 0; i < s->num_engines; i++) {
        CoproEngine *e = &s->engines[i];

        if (copro_hws_any_blocked(s) && s->hws.eng[i].active_count) {
            hws_poll(e, true);
            copro_hws_update(e);
        }
    }
}

bool copro_hws_any_blocked(CoproState *s)
{
    for (uint32_t k = 0; k < COPRO_HWQ_MAX; k++) {
        if (s->hws.q[k].mapped &&
            s->hws.q[k].state == COPRO_HWQ_STATE_BLOCKED) {
            return true;
        }
    }
    return false;
}

/*
 * Vsync: each mapped queue's GPU time in the frame that ended goes to its
 * FRAME entry and its descriptor, budgets start again. Returns the
 * interrupt cause to raise with VSYNC.
 */
uint64_t copro_hws_vsync(CoproState *s, uint64_t vsync_count)
{
    bool any = false;

    for (unsigned i = 0; i < s->num_engines; i++) {
        CoproHwsEngine *he = &s->hws.eng[i];

        for (uint32_t k = 0; k < he->active_count; k++) {
            CoproHwq *q = &s->hws.q[he->active[k]];

            q->last_frame_ns = q->frame_time_ns;
            q->frame_time_ns = 0;
            copro_hwq_log(s, q, COPRO_SLOG_FRAME, q->last_frame_ns,
                          vsync_count);
            copro_tl_queue(s, COPRO_TL_QUEUE_FRAME, i, q->context,
                           he->active[k], hwq_band(q), q->budget_ns,
                           q->last_frame_ns);
            q->over_budget = false;
            copro_hwq_writeback(s, q);
            any = true;
        }
        he->idle_ns = 0;
        if (he->active_count) {
            copro_hws_update(&s->engines[i]);
        }
    }
    return any ? COPRO_INT_DEV_SCHED_LOG : 0;
}

void copro_hws_vm_start(CoproEngine *e)
{
    CoproHwsEngine *he = hws_eng(e);

    if (he->timer && (he->active_count || he->current != COPRO_HWQ_NONE)) {
        timer_mod(he->timer, copro_now_ns());
    }
}

bool copro_hws_has_work(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);

    if (he->current != COPRO_HWQ_NONE) {
        return true;
    }
    for (uint32_t i = 0; i < he->active_count; i++) {
        if (hwq_runnable(&s->hws.q[he->active[i]])) {
            return true;
        }
    }
    return false;
}

