/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: hardware scheduling (COPRO_CAP_HWSCHED)
 *
 * Per-context hardware queues with a doorbell page each (BAR1), a run
 * list per engine, the device's own scheduler and its scheduling log, as
 * WDDM 2.7's hardware scheduling, AMD's MES, Intel's GuC and NVIDIA's
 * runlists do. The ABI is include/copro/copro_hwsched.h; the programming
 * model is docs/specs/copro.rst, "Hardware scheduling".
 *
 * The engine (copro-engine.c) stays what it is: while a run list is
 * active, it asks copro_hws_fetch() for its next submission instead of
 * reading its kernel ring, and tells this file what happened (a
 * submission retired, a WAIT blocked, a fault, a save completed). Every
 * switch is made at the engine's arbitration points with the existing
 * save and resume machinery (copro-preempt.c); the scheduler's own
 * deadlines (quantum, frame budget, preemption timeout, WAIT polls) are
 * one QEMU_CLOCK_VIRTUAL timer per engine, so a run is deterministic
 * under -icount.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/pci/pci_device.h"
#include "migration/vmstate.h"
#include "monitor/monitor.h"
#include "qapi/qapi-types-copro.h"
#include "system/runstate.h"
#include "copro.h"
#include "trace.h"

#define HWS_POLL_NS     (20 * SCALE_US) /* the engine's WAIT poll period */
#define HWS_NO_ENGINE   0xff

/* the device-written part of the descriptor, from head on */
#define HWQ_WB_OFFSET   offsetof(struct copro_hwq_desc, head)
#define HWQ_WB_SIZE     (offsetof(struct copro_hwq_desc, reserved3) - \
                         HWQ_WB_OFFSET)

static void copro_hws_update(CoproEngine *e);
static void copro_hws_take(CoproEngine *e);
static void hws_arm(CoproEngine *e);

/*
 * Have the engine look at its queues at once: its timer due now, in
 * every mode (a bottom half would wait for the main loop, and a switch
 * made in virtual time must start the next queue at that time).
 */
static void hws_kick(CoproEngine *e)
{
    timer_mod(e->timer, copro_now_ns());
}

static CoproHwsEngine *hws_eng(CoproEngine *e)
{
    return &e->dev->hws.eng[e->index];
}

static CoproHwq *hws_current(CoproEngine *e)
{
    uint32_t slot = hws_eng(e)->current;

    return slot < COPRO_HWQ_MAX ? &e->dev->hws.q[slot] : NULL;
}

static uint32_t hwq_slot(CoproState *s, CoproHwq *q)
{
    return q - s->hws.q;
}

const char *copro_hwq_state_name(uint32_t state)
{
    static const char *const names[] = {
        [COPRO_HWQ_STATE_IDLE] = "idle",
        [COPRO_HWQ_STATE_READY] = "ready",
        [COPRO_HWQ_STATE_RUNNING] = "running",
        [COPRO_HWQ_STATE_BLOCKED] = "blocked",
        [COPRO_HWQ_STATE_SUSPENDED] = "suspended",
        [COPRO_HWQ_STATE_ERROR] = "error",
        [COPRO_HWQ_STATE_OOM_WAIT] = "oom-wait",
    };

    return state < ARRAY_SIZE(names) ? names[state] : "?";
}

static bool hwq_has_work(const CoproHwq *q)
{
    return q->head != q->tail || q->resume;
}

static uint32_t hwq_band(const CoproHwq *q)
{
    return q->over_budget ? COPRO_BAND_IDLE : q->band;
}

/* The state of a queue that is not on the engine, from its ring. */
static uint32_t hwq_rest_state(const CoproHwq *q)
{
    if (!hwq_has_work(q)) {
        return COPRO_HWQ_STATE_IDLE;
    }
    return q->suspended || !q->mapped ? COPRO_HWQ_STATE_SUSPENDED
                                      : COPRO_HWQ_STATE_READY;
}

/*
 * Memory. Descriptors, run lists, the log and progress fences live in the
 * physical GPU address space (VRAM or the aperture); the accesses go
 * through the MMU on behalf of an engine (its translation cache), never
 * halt it, and report failure to the caller.
 */
static bool hws_rw(CoproState *s, unsigned engine, uint64_t addr, void *buf,
                   uint64_t len, bool is_write)
{
    CoproMemFault f;

    return copro_mmu_rw_ctx(&s->engines[engine], true, 0, addr, buf, len,
                            is_write, &f);
}

/*
 * The log
 */
static void hws_log(CoproState *s, uint16_t kind, unsigned engine,
                    uint32_t band, uint32_t queue, uint64_t a0, uint64_t a1)
{
    CoproHws *h = &s->hws;
    struct copro_sched_log_entry le;
    uint64_t at;

    trace_copro_hws_log(kind, engine, queue, a0, a1);
    if (!h->log_size) {
        return;
    }
    if (h->log_wptr - h->log_rptr >= h->log_size) {
        h->log_dropped++;
        return;
    }
    le = (struct copro_sched_log_entry) {
        .time_ns = cpu_to_le64(copro_now_ns()),
        .kind = cpu_to_le16(kind),
        .engine = engine,
        .band = band,
        .queue = cpu_to_le32(queue),
        .arg0 = cpu_to_le64(a0),
        .arg1 = cpu_to_le64(a1),
    };
    at = copro_gpu_addr_add(h->log_addr,
                            (uint64_t)(h->log_wptr & (h->log_size - 1)) *
                            COPRO_SLOG_ENTRY_SIZE);
    if (!hws_rw(s, 0, at, &le, sizeof(le), true)) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: hwsched: scheduling log "
                      "write at 0x%" PRIx64 " failed, entry dropped\n", at);
        h->log_dropped++;
        h->error = COPRO_HWS_ERR_WRITEBACK;
        h->error_queue = COPRO_HWQ_NONE;
        h->error_addr = at;
        copro_raise_irq(s, COPRO_INT_DEV_HWS_ERROR);
        return;
    }
    h->log_wptr++;
}

static void hwq_log(CoproState *s, CoproHwq *q, uint16_t kind, uint64_t a0,
                    uint64_t a1)
{
    hws_log(s, kind, q->mapped ? q->engine : HWS_NO_ENGINE, hwq_band(q),
            hwq_slot(s, q), a0, a1);
}

/*
 * Refused input and queue errors: HWS_ERROR, HWS_ERROR_QUEUE and
 * HWS_ERROR_ADDR latch it, an ERROR entry is logged and HWS_ERROR raised.
 */
static void hws_error(CoproState *s, uint32_t err, unsigned engine,
                      uint32_t queue, uint64_t addr, const char *why)
{
    CoproHws *h = &s->hws;

    qemu_log_mask(LOG_GUEST_ERROR, "copro: hwsched: %s (error %u, queue %d, "
                  "0x%" PRIx64 ")\n", why, err,
                  queue == COPRO_HWQ_NONE ? -1 : (int)queue, addr);
    trace_copro_hws_error(err, queue, addr);
    h->error = err;
    h->error_queue = queue;
    h->error_addr = addr;
    hws_log(s, COPRO_SLOG_ERROR, engine,
            queue < COPRO_HWQ_MAX ? hwq_band(&h->q[queue]) : 0, queue, err,
            addr);
    copro_raise_irq(s, COPRO_INT_DEV_HWS_ERROR);
}

/*
 * Descriptors
 */

/* Write the device's part of @q's descriptor back. */
static void hwq_writeback(CoproState *s, CoproHwq *q)
{
    struct copro_hwq_desc d;
    uint8_t *part = (uint8_t *)&d + HWQ_WB_OFFSET;

    d.head = cpu_to_le32(q->head);
    d.tail = cpu_to_le32(q->tail);
    d.resume = cpu_to_le32(q->resume);
    d.state = cpu_to_le32(q->state);
    d.error = cpu_to_le32(q->error);
    d.fault = cpu_to_le32(q->fault);
    d.band = cpu_to_le32(q->band);
    d.quantum_ns = cpu_to_le32(q->quantum_ns);
    d.budget_ns = cpu_to_le32(q->budget_ns);
    d.reserved2 = 0;
    d.completed_fence = cpu_to_le64(q->completed_fence);
    d.error_fence = cpu_to_le64(q->error_fence);
    d.gpu_time_ns = cpu_to_le64(q->gpu_time_ns);
    d.frame_time_ns = cpu_to_le64(q->frame_time_ns);
    d.last_frame_ns = cpu_to_le64(q->last_frame_ns);
    d.runs = cpu_to_le64(q->runs);
    d.preemptions = cpu_to_le64(q->preemptions);
    d.submissions = cpu_to_le64(q->submissions);
    d.oom_scene = cpu_to_le64(q->oom_scene);
    d.oom_need = cpu_to_le32(q->oom_need);
    d.ooms = cpu_to_le32(q->ooms);
    if (!hws_rw(s, q->engine, q->desc_addr + HWQ_WB_OFFSET, part,
                HWQ_WB_SIZE, true)) {
        hws_error(s, COPRO_HWS_ERR_WRITEBACK, q->engine, hwq_slot(s, q),
                  q->desc_addr, "queue descriptor write-back failed");
    }
}

/* The fence of the entry at @q's head, for reports (0: unreadable). */
static uint64_t hwq_head_fence(CoproState *s, unsigned engine, CoproHwq *q)
{
    uint64_t fence;

    if (!hws_rw(s, engine, copro_gpu_addr_add(q->ring_base,
                (uint64_t)q->head * COPRO_DESC_SIZE +
                offsetof(struct copro_submit_desc, fence)), &fence, 8,
                false)) {
        return 0;
    }
    return le64_to_cpu(fence);
}

/*
 * Read and check the descriptor at @addr into @q (not mapped yet).
 * Returns COPRO_HWS_ERR_NONE or COPRO_HWS_ERR_DESC.
 */
static uint32_t hwq_read_desc(CoproState *s, unsigned engine, uint64_t addr,
                              CoproHwq *q)
{
    struct copro_hwq_desc d;

    if ((addr & 63) || !hws_rw(s, engine, addr, &d, sizeof(d), false)) {
        return COPRO_HWS_ERR_DESC;
    }
    memset(q, 0, sizeof(*q));
    q->desc_addr = addr;
    q->ring_base = le64_to_cpu(d.ring_base);
    q->ring_size = le32_to_cpu(d.ring_size);
    q->context = le32_to_cpu(d.context);
    q->save_addr = le64_to_cpu(d.save_addr);
    q->progress_addr = le64_to_cpu(d.progress_addr);
    q->flags = le32_to_cpu(d.flags);
    q->head = le32_to_cpu(d.head);
    q->tail = le32_to_cpu(d.tail);
    q->resume = le32_to_cpu(d.resume);
    q->completed_fence = le64_to_cpu(d.completed_fence);
    q->gpu_time_ns = le64_to_cpu(d.gpu_time_ns);
    q->runs = le64_to_cpu(d.runs);
    q->preemptions = le64_to_cpu(d.preemptions);
    q->submissions = le64_to_cpu(d.submissions);
    q->ooms = le32_to_cpu(d.ooms);
    if (le32_to_cpu(d.magic) != COPRO_HWQ_MAGIC ||
        le32_to_cpu(d.version) != COPRO_HWQ_VERSION ||
        (q->ring_base & (COPRO_DESC_SIZE - 1)) ||
        !q->ring_size || q->ring_size > COPRO_RING_MAX_ENTRIES ||
        !is_power_of_2(q->ring_size) || (q->save_addr & 7) ||
        (q->progress_addr & 7) || (q->flags & ~COPRO_HWQ_F_KNOWN) ||
        d.reserved0 || d.reserved1[0] || d.reserved1[1] ||
        q->head >= q->ring_size || q->tail >= q->ring_size ||
        q->resume > 1) {
        return COPRO_HWS_ERR_DESC;
    }
    /*
     * A queue taken off its run list while it waited for an OOM answer
     * keeps waiting when it is listed again (its descriptor says so): the
     * driver answers it then, as before.
     */
    if (le32_to_cpu(d.state) == COPRO_HWQ_STATE_OOM_WAIT &&
        le32_to_cpu(d.resume) == 1) {
        q->state = COPRO_HWQ_STATE_OOM_WAIT;
        q->oom_scene = le64_to_cpu(d.oom_scene);
        q->oom_need = le32_to_cpu(d.oom_need);
        q->oom_fence = hwq_head_fence(s, engine, q);
    }
    return COPRO_HWS_ERR_NONE;
}

/*
 * Run lists
 */

/* Is @slot (or descriptor @addr) claimed by an engine other than @me? */
static bool rl_claimed_elsewhere(CoproState *s, unsigned me, uint32_t slot,
                                 uint64_t addr)
{
    for (unsigned i = 0; i < s->num_engines; i++) {
        CoproHwsEngine *he = &s->hws.eng[i];

        if (i == me) {
            continue;
        }
        for (uint32_t k = 0; he->pending && k < he->pending_count; k++) {
            if (he->pend[k].queue == slot ||
                he->pend[k].desc_addr == addr) {
                return true;
            }
        }
    }
    for (uint32_t k = 0; k < COPRO_HWQ_MAX; k++) {
        CoproHwq *q = &s->hws.q[k];

        if (q->mapped && q->engine != me &&
            (k == slot || q->desc_addr == addr)) {
            return true;
        }
    }
    return false;
}

/* Refuse a commit: the active list (and a pending one) stay. */
static void rl_refuse(CoproEngine *e, uint32_t err, uint32_t queue,
                      uint64_t addr, const char *why)
{
    CoproHwsEngine *he = hws_eng(e);

    he->status = (he->status & COPRO_RL_STS_PENDING) |
                 (err << COPRO_RL_STS_ERROR_SHIFT);
    trace_copro_hws_runlist(e->index, he->rl_count, he->seq, err);
    hws_error(e->dev, err, e->index, queue, addr, why);
    copro_raise_irq(e->dev, COPRO_INT_DEV_RUNLIST);
}

/*
 * COPRO_RL_COMMIT: read and check the staged list at once; a good one
 * becomes pending and is taken at the next safe point.
 */
static void rl_commit(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    struct copro_runlist_entry ent[COPRO_RUNLIST_MAX];
    /* descriptors read: a refused commit leaves a pending list intact */
    g_autofree CoproHwq *got = g_new0(CoproHwq, COPRO_RUNLIST_MAX);
    CoproHwq *cur;
    uint32_t n = he->rl_count;

    if ((he->rl_addr & 7) || n > COPRO_RUNLIST_MAX) {
        rl_refuse(e, COPRO_HWS_ERR_RUNLIST, COPRO_HWQ_NONE, he->rl_addr,
                  "run list misaligned or too long");
        return;
    }
    if (n && !hws_rw(s, e->index, he->rl_addr, ent,
                     (uint64_t)n * COPRO_RUNLIST_ENTRY_SIZE, false)) {
        rl_refuse(e, COPRO_HWS_ERR_RUNLIST, COPRO_HWQ_NONE, he->rl_addr,
                  "run list unreadable");
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct copro_runlist_entry *r = &ent[i];

        r->desc_addr = le64_to_cpu(r->desc_addr);
        r->queue = le32_to_cpu(r->queue);
        r->band = le32_to_cpu(r->band);
        r->quantum_ns = le32_to_cpu(r->quantum_ns);
        r->budget_ns = le32_to_cpu(r->budget_ns);
        r->flags = le32_to_cpu(r->flags);
        r->reserved = le32_to_cpu(r->reserved);
        if (r->queue >= COPRO_HWQ_MAX || r->band >= COPRO_BANDS ||
            r->quantum_ns < COPRO_HWS_QUANTUM_MIN_NS ||
            r->quantum_ns > COPRO_HWS_QUANTUM_MAX_NS ||
            (r->flags & ~COPRO_RL_F_KNOWN) || r->reserved) {
            rl_refuse(e, COPRO_HWS_ERR_ENTRY,
                      r->queue < COPRO_HWQ_MAX ? r->queue : COPRO_HWQ_NONE,
                      i, "bad run list entry");
            return;
        }
        for (uint32_t k = 0; k < i; k++) {
            if (ent[k].queue == r->queue ||
                ent[k].desc_addr == r->desc_addr) {
                rl_refuse(e, COPRO_HWS_ERR_DUPLICATE, r->queue, i,
                          "queue listed twice");
                return;
            }
        }
        if (rl_claimed_elsewhere(s, e->index, r->queue, r->desc_addr) ||
            (s->hws.q[r->queue].mapped &&
             s->hws.q[r->queue].desc_addr != r->desc_addr)) {
            rl_refuse(e, COPRO_HWS_ERR_QUEUE_BUSY, r->queue, r->desc_addr,
                      "queue mapped elsewhere");
            return;
        }
        if (!s->hws.q[r->queue].mapped) {
            if (hwq_read_desc(s, e->index, r->desc_addr, &got[i])) {
                rl_refuse(e, COPRO_HWS_ERR_DESC, r->queue, r->desc_addr,
                          "bad queue descriptor");
                return;
            }
        }
    }

    memcpy(he->pend, ent, sizeof(ent[0]) * n);
    memcpy(he->pend_q, got, sizeof(got[0]) * n);
    he->pending_count = n;
    he->pending = true;
    he->status = COPRO_RL_STS_PENDING;
    trace_copro_hws_runlist(e->index, n, he->seq, 0);

    /* the safe point: at once unless the running queue leaves */
    cur = hws_current(e);
    if (cur) {
        bool stays = false;

        for (uint32_t i = 0; i < n; i++) {
            if (ent[i].queue == he->current &&
                !(ent[i].flags & COPRO_RL_F_SUSPENDED)) {
                stays = true;
            }
        }
        if (!stays) {
            if (!he->switching) {
                he->switching = true;
                he->switch_reason = COPRO_SLOG_OUT_RUNLIST;
                he->switch_time = copro_now_ns();
            }
            copro_hws_update(e);
            hws_kick(e);
            return;
        }
    }
    copro_hws_take(e);
}

/* Unmap @q: write it back as a queue no list holds. */
static void hwq_unmap(CoproState *s, CoproHwq *q)
{
    if (q->state != COPRO_HWQ_STATE_ERROR &&
        q->state != COPRO_HWQ_STATE_OOM_WAIT) {
        q->mapped = false;
        q->state = hwq_rest_state(q);
        q->mapped = true;
    }
    hwq_writeback(s, q);
    q->mapped = false;
    q->suspended = false;
    q->over_budget = false;
}

/* Take the pending list (no queue is on the engine, or it stays). */
static void copro_hws_take(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproHwsEngine *he = hws_eng(e);
    uint32_t n = he->pending_count;

    if (!he->pending) {
        return;
    }
    /* queues that leave */
    for (uint32_t i = 0; i < he->active_count; i++) {
        uint32_t slot = he->active[i];
        bool stays = false;

        for (uint32_t k = 0; k < n; k++) {
            stays |= he->pend[k].queue == slot;
        }
        if (!stays) {
            hwq_unmap(s, &s->hws.q[slot]);
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        struct copro_runlist_entry *r = &he->pend[i];
        CoproHwq *q = &s->hws.q[r->queue];

        if (!q->mapped) {
            uint32_t db = q->doorbell;

            *q = he->pend_q[i];
            q->doorbell = db;
            q->mapped = true;
            q->engine = e->index;
        }
        q->band = r->band;
        q->quantum_ns = r->quantum_ns;
        q->budget_ns = r->budget_ns;
        q->suspended = r->flags & COPRO_RL_F_SUSPENDED;
        if (q->state != COPRO_HWQ_STATE_ERROR &&
            q->state != COPRO_HWQ_STATE_RUNNING &&
            q->state != COPRO_HWQ_STATE_BLOCKED &&
            q->state != COPRO_HWQ_STATE_OOM_WAIT) {
            q->state = hwq_rest_state(q);
        }
        he->active[i] = r->queue;
    }
    he->active_count = n;
    he->pending = false;
    he->pending_count = 0;
    he->status = 0;
    he->seq++;
    if (!n) {
        memset(he->rr, 0xff, sizeof(he->rr));
    }
    trace_copro_hws_runlist(e->index, n, he->seq, 0);
    hws_log(s, COPRO_SLOG_RUNLIST, e->index, 0, COPRO_HWQ_NONE, n, he->seq);
    copro_raise_irq(s, COPRO_INT_DEV_RUNLIST);
    copro_hws_update(e);
    /* COUNT 0: back to the kernel ring, which may hold work */
    hws_kick(e);
}

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
    hws_arm(e);
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
        /* a share turn yields only to bands above NORMAL, or at its end */
        if (best > COPRO_BAND_NORMAL) {
            hws_request_switch(e, COPRO_SLOG_OUT_PREEMPTED);
        } else if (now >= he->share_end && best >= 0) {
            hws_request_switch(e, COPRO_SLOG_OUT_QUANTUM);
        } else if (now >= he->share_end) {
            he->share_turn = false;
            he->run_start = now;
        }
        return;
    }
    if (best > (int)band) {
        hws_request_switch(e, COPRO_SLOG_OUT_PREEMPTED);
        return;
    }
    if (now - he->run_start < (int64_t)q->quantum_ns) {
        return;
    }
    /* the IDLE band's share first: a rotation of two must not starve it */
    if (band > COPRO_BAND_IDLE && hws_share_owed(e) &&
        hws_pick_in(e, COPRO_BAND_IDLE)) {
        hws_request_switch(e, COPRO_SLOG_OUT_SHARE);
    } else if (best == (int)band) {
        hws_request_switch(e, COPRO_SLOG_OUT_QUANTUM);
    } else {
        /* alone in its band: a new turn */
        he->run_start = now;
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
                           : he->run_start + (int64_t)q->quantum_ns;
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
static void hws_arm(CoproEngine *e)
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

static void copro_hws_update(CoproEngine *e)
{
    if (!hws_eng(e)->timer) {
        return;
    }
    hws_evaluate(e, copro_now_ns());
    hws_arm(e);
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
    hwq_log(s, q, COPRO_SLOG_SWITCH_OUT, now - he->run_start, reason);
    copro_tl_queue(s, COPRO_TL_QUEUE_OUT, e->index, q->context,
                   he->current, reason, now - he->run_start, hwq_band(q));
    hwq_writeback(s, q);
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
            hwq_log(s, q, COPRO_SLOG_UNBLOCKED, q->wait_addr,
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
static void hws_fail_current(CoproEngine *e, uint32_t err, uint32_t fault,
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
    hws_error(s, err, e->index, slot, addr,
              err == COPRO_HWS_ERR_PREEMPT_TIMEOUT ? "queue did not yield: "
              "reset" : "queue stopped by an error");
    hws_kick(e);
}

void copro_hws_queue_fault(CoproEngine *e)
{
    hws_fail_current(e, COPRO_HWS_ERR_QUEUE_FAULT, e->fault_kind,
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
    hwq_log(s, q, COPRO_SLOG_TILER_OOM, scene,
            need | (e->desc.fence << 32));
    hws_switch_out(e, COPRO_SLOG_OUT_TILER_OOM);
    copro_raise_irq(s, COPRO_INT_DEV_HWS_OOM);
    hws_kick(e);
}

/* COPRO_REG_HWS_OOM_ANSWER: the driver's answer to a queue's OOM stop. */
static void hws_oom_answer(CoproState *s, uint32_t val)
{
    uint32_t slot = COPRO_HWS_OOM_SLOT(val), ans = COPRO_HWS_OOM_ANS(val);
    CoproHwq *q = slot < COPRO_HWQ_MAX ? &s->hws.q[slot] : NULL;
    CoproEngine *e;

    if (!q || !q->mapped || q->state != COPRO_HWQ_STATE_OOM_WAIT ||
        (val >> 24) ||
        (ans != COPRO_HWS_OOM_RESUME && ans != COPRO_HWS_OOM_FAIL)) {
        hws_error(s, COPRO_HWS_ERR_OOM_ANSWER,
                  q && q->mapped ? q->engine : HWS_NO_ENGINE,
                  q ? slot : COPRO_HWQ_NONE, val,
                  "OOM answer to a queue not waiting for one, or bad "
                  "answer: refused");
        return;
    }
    e = &s->engines[q->engine];
    trace_copro_hws_oom_answer(slot, ans, q->oom_scene);
    hwq_log(s, q, COPRO_SLOG_OOM_ANSWER, ans, q->oom_scene);
    if (ans == COPRO_HWS_OOM_FAIL) {
        q->state = COPRO_HWQ_STATE_ERROR;
        q->error = COPRO_HWS_ERR_TILER_OOM;
        q->fault = 0;
        q->error_fence = q->oom_fence;
        hwq_writeback(s, q);
        hws_error(s, COPRO_HWS_ERR_TILER_OOM, q->engine, slot, q->oom_scene,
                  "the driver failed a queue's OOM stop");
        return;
    }
    /* resumed from its save area with RESUME semantics (copro_hws_fetch) */
    q->state = hwq_rest_state(q);
    hwq_writeback(s, q);
    copro_hws_update(e);
    hws_kick(e);
}

/* PREEMPT_TIMEOUT ran out: reset the queue's submission (device TDR). */
static void hws_timeout(CoproEngine *e, int64_t now)
{
    CoproHwsEngine *he = hws_eng(e);
    CoproHwq *q = hws_current(e);

    hwq_log(e->dev, q, COPRO_SLOG_RESET, e->active ? e->desc.fence : 0,
            now - he->switch_time);
    e->aborted_fence = e->active ? e->desc.fence : 0;
    /* as CONTROL.RESET does: the injected faults go with it */
    e->inject = 0;
    hws_fail_current(e, COPRO_HWS_ERR_PREEMPT_TIMEOUT, 0,
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
            hwq_writeback(s, q);
            hws_error(s, COPRO_HWS_ERR_QUEUE_FAULT, e->index, he->active[i],
                      q->wait_addr, "blocked queue's WAIT faulted");
            continue;
        }
        if (le64_to_cpu(v) >= q->wait_value) {
            q->state = hwq_rest_state(q);
            trace_copro_hws_unblock(he->active[i], q->wait_addr,
                                    le64_to_cpu(v));
            hwq_log(s, q, COPRO_SLOG_UNBLOCKED, q->wait_addr, le64_to_cpu(v));
        }
    }
}

static void copro_hws_timer(void *opaque)
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
    uint64_t fence = hwq_head_fence(s, e->index, q);

    q->runs++;
    s->hws.switches++;
    trace_copro_hws_switch_in(e->index, slot, fence, q->resume);
    hwq_log(s, q, COPRO_SLOG_SWITCH_IN, fence, q->resume);
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
     * is not one begun).
     */
    bool unstarted = q && e->pc == 0 && !q->resume &&
                     !(e->desc.flags & COPRO_SUBMIT_PAGING);

    if (!possible && !unstarted) {
        return false;
    }
    q->wait_addr = p->dw[0] | ((uint64_t)p->dw[1] << 32);
    q->wait_value = p->dw[2] | ((uint64_t)p->dw[3] << 32);
    q->wait_since = now;
    hwq_log(e->dev, q, COPRO_SLOG_BLOCKED, q->wait_addr, q->wait_value);
    if (!possible) {
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
        hws_arm(e);
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

        if (!hws_rw(s, e->index, q->progress_addr, &v, 8, true)) {
            hws_fail_current(e, COPRO_HWS_ERR_WRITEBACK, 0, q->progress_addr,
                             COPRO_SLOG_OUT_ERROR);
            return false;
        }
    }
    q->completed_fence = e->desc.fence;
    q->submissions++;
    q->head = (q->head + 1) & (q->ring_size - 1);
    q->resume = 0;
    hwq_log(s, q, COPRO_SLOG_COMPLETED, e->desc.fence, q->sub_ns);
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
        hwq_log(e->dev, q, COPRO_SLOG_PREEMPTED, fence,
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
        hwq_log(e->dev, q, COPRO_SLOG_BUDGET, q->frame_time_ns, q->budget_ns);
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
        hwq_log(s, q, COPRO_SLOG_RESET, q->error_fence, 0);
        hwq_log(s, q, COPRO_SLOG_SWITCH_OUT,
                copro_now_ns() - he->run_start, COPRO_SLOG_OUT_RESET);
        q->state = COPRO_HWQ_STATE_ERROR;
    }
    for (uint32_t i = 0; i < he->active_count; i++) {
        hwq_unmap(s, &s->hws.q[he->active[i]]);
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
    hws_log(s, COPRO_SLOG_RUNLIST, e->index, 0, COPRO_HWQ_NONE, 0, he->seq);
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
            hwq_log(s, q, COPRO_SLOG_FRAME, q->last_frame_ns, vsync_count);
            copro_tl_queue(s, COPRO_TL_QUEUE_FRAME, i, q->context,
                           he->active[k], hwq_band(q), q->budget_ns,
                           q->last_frame_ns);
            q->over_budget = false;
            hwq_writeback(s, q);
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

/*
 * Doorbells (BAR1): page n is queue slot n; its first dword is the tail.
 */
static uint64_t copro_doorbell_read(void *opaque, hwaddr addr, unsigned size)
{
    CoproState *s = opaque;

    if (addr % COPRO_DOORBELL_STRIDE != COPRO_DOORBELL_TAIL || size != 4) {
        return 0;
    }
    return s->hws.q[addr / COPRO_DOORBELL_STRIDE].doorbell;
}

static void copro_doorbell_write(void *opaque, hwaddr addr, uint64_t val,
                                 unsigned size)
{
    CoproState *s = opaque;
    uint32_t slot = addr / COPRO_DOORBELL_STRIDE;
    CoproHwq *q = &s->hws.q[slot];

    if (addr % COPRO_DOORBELL_STRIDE != COPRO_DOORBELL_TAIL || size != 4) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: doorbell: bad %u-byte write "
                      "at 0x%" HWADDR_PRIx ", ignored\n", size, addr);
        return;
    }
    s->hws.doorbells++;
    q->doorbell = val;
    trace_copro_hws_doorbell(slot, val);
    if (!q->mapped) {
        /* a queue on a list not taken yet: the tail goes with it */
        for (unsigned i = 0; i < s->num_engines; i++) {
            CoproHwsEngine *he = &s->hws.eng[i];

            for (uint32_t k = 0; he->pending && k < he->pending_count; k++) {
                CoproHwq *p = &he->pend_q[k];

                if (he->pend[k].queue == slot && !s->hws.q[slot].mapped) {
                    if (val >= p->ring_size) {
                        hws_error(s, COPRO_HWS_ERR_DOORBELL, i, slot, val,
                                  "doorbell tail outside the ring");
                        return;
                    }
                    p->tail = val;
                    return;
                }
            }
        }
        hws_error(s, COPRO_HWS_ERR_DOORBELL, HWS_NO_ENGINE, slot, val,
                  "doorbell of a queue that is not mapped");
        return;
    }
    if (q->state == COPRO_HWQ_STATE_ERROR) {
        hws_error(s, COPRO_HWS_ERR_DOORBELL_ERROR, q->engine, slot, val,
                  "doorbell of a queue in error");
        return;
    }
    if (val >= q->ring_size) {
        CoproEngine *e = &s->engines[q->engine];

        if (hws_eng(e)->current == slot) {
            hws_fail_current(e, COPRO_HWS_ERR_DOORBELL, 0, val,
                             COPRO_SLOG_OUT_ERROR);
        } else {
            q->state = COPRO_HWQ_STATE_ERROR;
            q->error = COPRO_HWS_ERR_DOORBELL;
            q->error_fence = 0;
            hwq_writeback(s, q);
            hws_error(s, COPRO_HWS_ERR_DOORBELL, q->engine, slot, val,
                      "doorbell tail outside the ring");
        }
        return;
    }
    q->tail = val;
    if (q->state == COPRO_HWQ_STATE_IDLE ||
        q->state == COPRO_HWQ_STATE_SUSPENDED) {
        q->state = hwq_rest_state(q);
    }
    copro_hws_update(&s->engines[q->engine]);
}

static const MemoryRegionOps copro_doorbell_ops = {
    .read = copro_doorbell_read,
    .write = copro_doorbell_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/*
 * Registers (BAR0 0x500..0x5ff)
 */

uint64_t copro_hws_read(CoproState *s, hwaddr reg)
{
    CoproHws *h = &s->hws;

    if (reg >= COPRO_RL_BLOCK) {
        CoproHwsEngine *he = &h->eng[(reg - COPRO_RL_BLOCK) / COPRO_RL_STRIDE];

        switch ((reg - COPRO_RL_BLOCK) % COPRO_RL_STRIDE) {
        case COPRO_RL_ADDR:
            return he->rl_addr;
        case COPRO_RL_COUNT:
            return he->rl_count;
        case COPRO_RL_STATUS:
            return he->status;
        case COPRO_RL_SEQ:
            return he->seq;
        case COPRO_RL_CURRENT:
            return he->current;
        case COPRO_RL_ACTIVE:
            return he->active_count;
        default:
            return 0;
        }
    }
    switch (reg) {
    case COPRO_REG_HWS_QUEUES:
        return COPRO_HWQ_MAX;
    case COPRO_REG_HWS_PREEMPT_TIMEOUT:
        return h->preempt_timeout;
    case COPRO_REG_HWS_LOW_SHARE:
        return h->low_share;
    case COPRO_REG_HWS_LOG_ADDR:
        return h->log_addr;
    case COPRO_REG_HWS_LOG_SIZE:
        return h->log_size;
    case COPRO_REG_HWS_LOG_WPTR:
        return h->log_wptr;
    case COPRO_REG_HWS_LOG_RPTR:
        return h->log_rptr;
    case COPRO_REG_HWS_LOG_DROPPED:
        return h->log_dropped;
    case COPRO_REG_HWS_ERROR:
        return h->error;
    case COPRO_REG_HWS_ERROR_QUEUE:
        return h->error_queue;
    case COPRO_REG_HWS_ERROR_ADDR:
        return h->error_addr;
    case COPRO_REG_HWS_DOORBELLS:
        return h->doorbells;
    case COPRO_REG_HWS_SWITCHES:
        return h->switches;
    case COPRO_REG_HWS_OOM_WAITING: {
        uint64_t w = 0;

        for (uint32_t k = 0; k < COPRO_HWQ_MAX; k++) {
            if (h->q[k].mapped &&
                h->q[k].state == COPRO_HWQ_STATE_OOM_WAIT) {
                w |= 1ull << k;
            }
        }
        return w;
    }
    default:
        return 0;
    }
}

void copro_hws_write(CoproState *s, hwaddr reg, uint64_t val, uint64_t mask)
{
    CoproHws *h = &s->hws;

    if (reg >= COPRO_RL_BLOCK) {
        unsigned idx = (reg - COPRO_RL_BLOCK) / COPRO_RL_STRIDE;
        CoproHwsEngine *he = &h->eng[idx];

        switch ((reg - COPRO_RL_BLOCK) % COPRO_RL_STRIDE) {
        case COPRO_RL_ADDR:
            he->rl_addr = (he->rl_addr & ~mask) | (val & mask);
            break;
        case COPRO_RL_COUNT:
            he->rl_count = val;
            break;
        case COPRO_RL_COMMIT:
            rl_commit(&s->engines[idx]);
            break;
        default:
            break;
        }
        return;
    }
    switch (reg) {
    case COPRO_REG_HWS_PREEMPT_TIMEOUT:
        h->preempt_timeout = val;
        for (unsigned i = 0; i < s->num_engines; i++) {
            copro_hws_update(&s->engines[i]);
        }
        break;
    case COPRO_REG_HWS_LOW_SHARE:
        if (val > 1000) {
            hws_error(s, COPRO_HWS_ERR_REGISTER, HWS_NO_ENGINE,
                      COPRO_HWQ_NONE, val, "LOW_SHARE above 1000 refused");
            break;
        }
        h->low_share = val;
        break;
    case COPRO_REG_HWS_LOG_ADDR:
        val = (h->log_addr & ~mask) | (val & mask);
        if (val & (COPRO_SLOG_ENTRY_SIZE - 1)) {
            hws_error(s, COPRO_HWS_ERR_REGISTER, HWS_NO_ENGINE, COPRO_HWQ_NONE,
                      val, "misaligned scheduling log address refused");
            break;
        }
        h->log_addr = val;
        h->log_wptr = 0;
        h->log_rptr = 0;
        h->log_dropped = 0;
        break;
    case COPRO_REG_HWS_LOG_SIZE:
        if (val > COPRO_HWS_LOG_MAX || (val && !is_power_of_2(val))) {
            hws_error(s, COPRO_HWS_ERR_REGISTER, HWS_NO_ENGINE, COPRO_HWQ_NONE,
                      val, "bad scheduling log size refused");
            break;
        }
        h->log_size = val;
        h->log_wptr = 0;
        h->log_rptr = 0;
        h->log_dropped = 0;
        break;
    case COPRO_REG_HWS_OOM_ANSWER:
        hws_oom_answer(s, val);
        break;
    case COPRO_REG_HWS_LOG_RPTR:
        if (h->log_wptr - (uint32_t)val > h->log_size) {
            hws_error(s, COPRO_HWS_ERR_REGISTER, HWS_NO_ENGINE, COPRO_HWQ_NONE,
                      val, "scheduling log read pointer out of range");
            break;
        }
        h->log_rptr = val;
        break;
    default:
        break;
    }
}

/*
 * Lifecycle
 */

void copro_hws_init(CoproState *s)
{
    if (!s->hwsched) {
        return;
    }
    memory_region_init_io(&s->hws.doorbell_mr, OBJECT(s), &copro_doorbell_ops,
                          s, "copro-doorbell", COPRO_DOORBELL_BAR_SIZE);
    pci_register_bar(PCI_DEVICE(s), COPRO_BAR_DOORBELL,
                     PCI_BASE_ADDRESS_SPACE_MEMORY, &s->hws.doorbell_mr);
    for (unsigned i = 0; i < s->num_engines; i++) {
        s->hws.eng[i].timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                           copro_hws_timer, &s->engines[i]);
    }
    copro_hws_reset(s);
}

void copro_hws_fini(CoproState *s)
{
    for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
        if (s->hws.eng[i].timer) {
            timer_free(s->hws.eng[i].timer);
            s->hws.eng[i].timer = NULL;
        }
    }
}

/* Power-on state: no queue mapped, no list, registers at their defaults. */
void copro_hws_reset(CoproState *s)
{
    CoproHws *h = &s->hws;

    h->preempt_timeout = COPRO_HWS_PREEMPT_TIMEOUT_DEFAULT;
    h->low_share = COPRO_HWS_LOW_SHARE_DEFAULT;
    h->log_addr = 0;
    h->log_size = 0;
    h->log_wptr = 0;
    h->log_rptr = 0;
    h->log_dropped = 0;
    h->error = COPRO_HWS_ERR_NONE;
    h->error_queue = COPRO_HWQ_NONE;
    h->error_addr = 0;
    h->doorbells = 0;
    h->switches = 0;
    memset(h->q, 0, sizeof(h->q));
    for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
        CoproHwsEngine *he = &h->eng[i];
        QEMUTimer *timer = he->timer;

        if (timer) {
            timer_del(timer);
        }
        memset(he, 0, sizeof(*he));
        he->timer = timer;
        he->current = COPRO_HWQ_NONE;
        memset(he->rr, 0xff, sizeof(he->rr));
    }
}

/*
 * Migration
 */

static const VMStateDescription vmstate_copro_hwq = {
    .name = "copro/hwq",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(mapped, CoproHwq),
        VMSTATE_UINT32(engine, CoproHwq),
        VMSTATE_UINT64(desc_addr, CoproHwq),
        VMSTATE_UINT64(ring_base, CoproHwq),
        VMSTATE_UINT32(ring_size, CoproHwq),
        VMSTATE_UINT32(context, CoproHwq),
        VMSTATE_UINT64(save_addr, CoproHwq),
        VMSTATE_UINT64(progress_addr, CoproHwq),
        VMSTATE_UINT32(flags, CoproHwq),
        VMSTATE_UINT32(head, CoproHwq),
        VMSTATE_UINT32(tail, CoproHwq),
        VMSTATE_UINT32(resume, CoproHwq),
        VMSTATE_UINT32(state, CoproHwq),
        VMSTATE_UINT32(error, CoproHwq),
        VMSTATE_UINT32(fault, CoproHwq),
        VMSTATE_UINT32(band, CoproHwq),
        VMSTATE_UINT32(quantum_ns, CoproHwq),
        VMSTATE_UINT32(budget_ns, CoproHwq),
        VMSTATE_UINT64(completed_fence, CoproHwq),
        VMSTATE_UINT64(error_fence, CoproHwq),
        VMSTATE_UINT64(gpu_time_ns, CoproHwq),
        VMSTATE_UINT64(frame_time_ns, CoproHwq),
        VMSTATE_UINT64(last_frame_ns, CoproHwq),
        VMSTATE_UINT64(runs, CoproHwq),
        VMSTATE_UINT64(preemptions, CoproHwq),
        VMSTATE_UINT64(submissions, CoproHwq),
        VMSTATE_BOOL(suspended, CoproHwq),
        VMSTATE_BOOL(over_budget, CoproHwq),
        VMSTATE_UINT64(wait_addr, CoproHwq),
        VMSTATE_UINT64(wait_value, CoproHwq),
        VMSTATE_INT64(wait_since, CoproHwq),
        VMSTATE_UINT64(sub_ns, CoproHwq),
        VMSTATE_UINT32(doorbell, CoproHwq),
        VMSTATE_UINT64(oom_scene, CoproHwq),
        VMSTATE_UINT32(oom_need, CoproHwq),
        VMSTATE_UINT32(ooms, CoproHwq),
        VMSTATE_UINT64(oom_fence, CoproHwq),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_copro_rl_entry = {
    .name = "copro/rl-entry",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(desc_addr, struct copro_runlist_entry),
        VMSTATE_UINT32(queue, struct copro_runlist_entry),
        VMSTATE_UINT32(band, struct copro_runlist_entry),
        VMSTATE_UINT32(quantum_ns, struct copro_runlist_entry),
        VMSTATE_UINT32(budget_ns, struct copro_runlist_entry),
        VMSTATE_UINT32(flags, struct copro_runlist_entry),
        VMSTATE_UINT32(reserved, struct copro_runlist_entry),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_copro_hws_engine = {
    .name = "copro/hws-engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(rl_addr, CoproHwsEngine),
        VMSTATE_UINT32(rl_count, CoproHwsEngine),
        VMSTATE_UINT32(status, CoproHwsEngine),
        VMSTATE_UINT32(seq, CoproHwsEngine),
        VMSTATE_UINT32(active_count, CoproHwsEngine),
        VMSTATE_UINT32_ARRAY(active, CoproHwsEngine, COPRO_RUNLIST_MAX),
        VMSTATE_BOOL(pending, CoproHwsEngine),
        VMSTATE_UINT32(pending_count, CoproHwsEngine),
        VMSTATE_STRUCT_ARRAY(pend, CoproHwsEngine, COPRO_RUNLIST_MAX, 1,
                             vmstate_copro_rl_entry,
                             struct copro_runlist_entry),
        VMSTATE_STRUCT_ARRAY(pend_q, CoproHwsEngine, COPRO_RUNLIST_MAX, 1,
                             vmstate_copro_hwq, CoproHwq),
        VMSTATE_UINT32(current, CoproHwsEngine),
        VMSTATE_BOOL(switching, CoproHwsEngine),
        VMSTATE_UINT32(switch_reason, CoproHwsEngine),
        VMSTATE_INT64(switch_time, CoproHwsEngine),
        VMSTATE_INT64(run_start, CoproHwsEngine),
        VMSTATE_BOOL(share_turn, CoproHwsEngine),
        VMSTATE_BOOL(share_next, CoproHwsEngine),
        VMSTATE_INT64(share_end, CoproHwsEngine),
        VMSTATE_UINT32_ARRAY(rr, CoproHwsEngine, COPRO_BANDS),
        VMSTATE_UINT64(idle_ns, CoproHwsEngine),
        VMSTATE_TIMER_PTR(timer, CoproHwsEngine),
        VMSTATE_END_OF_LIST()
    },
};

/* A queue's driver part and position, as hwq_read_desc() checks them. */
static bool hwq_fields_ok(const CoproHwq *q)
{
    return !(q->ring_base & (COPRO_DESC_SIZE - 1)) && q->ring_size &&
           q->ring_size <= COPRO_RING_MAX_ENTRIES &&
           is_power_of_2(q->ring_size) && !(q->save_addr & 7) &&
           !(q->progress_addr & 7) && !(q->flags & ~COPRO_HWQ_F_KNOWN) &&
           q->head < q->ring_size && q->tail < q->ring_size &&
           q->resume <= 1 && q->state <= COPRO_HWQ_STATE_OOM_WAIT &&
           (q->state != COPRO_HWQ_STATE_OOM_WAIT || q->resume == 1);
}

static bool rl_entry_ok(const struct copro_runlist_entry *r)
{
    return r->queue < COPRO_HWQ_MAX && r->band < COPRO_BANDS &&
           r->quantum_ns >= COPRO_HWS_QUANTUM_MIN_NS &&
           r->quantum_ns <= COPRO_HWS_QUANTUM_MAX_NS &&
           !(r->flags & ~COPRO_RL_F_KNOWN) && !r->reserved;
}

/*
 * Check a migrated hardware-scheduling state: the stream is untrusted.
 * Every slot index, list, count and state the scheduler indexes or relies
 * on is checked, and the relations between them (a mapped queue is on
 * exactly one list, its engine's; the queue on an engine is RUNNING and
 * listed; a pending list is a list a commit would have accepted).
 */
/* a virtual time the scheduler subtracts from and adds to: no overflow */
static bool hws_time_ok(int64_t t)
{
    return t >= 0 && t < (INT64_C(1) << 62);
}

bool copro_hws_post_load(CoproState *s)
{
    CoproHws *h = &s->hws;
    unsigned listed[COPRO_HWQ_MAX] = { 0 };

    if (h->low_share > 1000 || h->log_size > COPRO_HWS_LOG_MAX ||
        (h->log_size && !is_power_of_2(h->log_size)) ||
        (h->log_addr & (COPRO_SLOG_ENTRY_SIZE - 1)) ||
        h->log_wptr - h->log_rptr > h->log_size ||
        (h->error_queue != COPRO_HWQ_NONE &&
         h->error_queue >= COPRO_HWQ_MAX)) {
        return false;
    }
    for (unsigned i = 0; i < s->num_engines; i++) {
        CoproHwsEngine *he = &h->eng[i];

        if (he->active_count > COPRO_RUNLIST_MAX ||
            he->pending_count > COPRO_RUNLIST_MAX ||
            (!he->pending && he->pending_count) ||
            he->switch_reason > COPRO_SLOG_OUT_SHARE ||
            he->switch_reason == COPRO_SLOG_OUT_TILER_OOM ||
            !hws_time_ok(he->switch_time) || !hws_time_ok(he->run_start) ||
            !hws_time_ok(he->share_end)) {
            return false;
        }
        for (uint32_t k = 0; k < he->active_count; k++) {
            uint32_t slot = he->active[k];

            if (slot >= COPRO_HWQ_MAX || listed[slot]++ ||
                !h->q[slot].mapped || h->q[slot].engine != i) {
                return false;
            }
        }
        if (he->current != COPRO_HWQ_NONE &&
            (he->current >= COPRO_HWQ_MAX || !listed[he->current] ||
             h->q[he->current].engine != i ||
             h->q[he->current].state != COPRO_HWQ_STATE_RUNNING)) {
            return false;
        }
        if ((he->switching || he->share_turn) &&
            he->current == COPRO_HWQ_NONE) {
            return false;
        }
        for (uint32_t k = 0; k < he->pending_count; k++) {
            const struct copro_runlist_entry *r = &he->pend[k];

            if (!rl_entry_ok(r)) {
                return false;
            }
            for (uint32_t j = 0; j < k; j++) {
                if (he->pend[j].queue == r->queue ||
                    he->pend[j].desc_addr == r->desc_addr) {
                    return false;
                }
            }
            /* taking the list maps it from pend_q, or keeps it mapped */
            if (h->q[r->queue].mapped ? (h->q[r->queue].engine != i ||
                                         h->q[r->queue].desc_addr !=
                                         r->desc_addr)
                                      : !hwq_fields_ok(&he->pend_q[k])) {
                return false;
            }
        }
    }
    /* pending lists of two engines never share a queue */
    for (unsigned i = 0; i < s->num_engines; i++) {
        for (unsigned j = i + 1; j < s->num_engines; j++) {
            for (uint32_t a = 0; a < h->eng[i].pending_count; a++) {
                for (uint32_t b = 0; b < h->eng[j].pending_count; b++) {
                    if (h->eng[i].pend[a].queue == h->eng[j].pend[b].queue) {
                        return false;
                    }
                }
            }
        }
    }
    for (uint32_t k = 0; k < COPRO_HWQ_MAX; k++) {
        CoproHwq *q = &h->q[k];

        if (!q->mapped) {
            continue;
        }
        if (!listed[k] || q->engine >= s->num_engines || !hwq_fields_ok(q) ||
            !hws_time_ok(q->wait_since) ||
            q->band >= COPRO_BANDS ||
            q->quantum_ns < COPRO_HWS_QUANTUM_MIN_NS ||
            q->quantum_ns > COPRO_HWS_QUANTUM_MAX_NS ||
            q->error > COPRO_HWS_ERR_TILER_OOM ||
            (q->state == COPRO_HWQ_STATE_RUNNING &&
             h->eng[q->engine].current != k)) {
            return false;
        }
    }
    return true;
}

static bool copro_hws_needed(void *opaque)
{
    CoproState *s = opaque;

    return s->hwsched;
}

static int copro_hws_vmstate_post_load(void *opaque, int version_id)
{
    CoproState *s = opaque;

    if (!copro_hws_post_load(s)) {
        error_report("copro: inconsistent migrated hardware-scheduling "
                     "state");
        return -EINVAL;
    }
    return 0;
}

/* queues, run lists (active and pending), the log and their registers */
const VMStateDescription vmstate_copro_hws = {
    .name = "copro/hwsched",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_hws_needed,
    .post_load = copro_hws_vmstate_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(hws.preempt_timeout, CoproState),
        VMSTATE_UINT32(hws.low_share, CoproState),
        VMSTATE_UINT64(hws.log_addr, CoproState),
        VMSTATE_UINT32(hws.log_size, CoproState),
        VMSTATE_UINT32(hws.log_wptr, CoproState),
        VMSTATE_UINT32(hws.log_rptr, CoproState),
        VMSTATE_UINT32(hws.log_dropped, CoproState),
        VMSTATE_UINT32(hws.error, CoproState),
        VMSTATE_UINT32(hws.error_queue, CoproState),
        VMSTATE_UINT64(hws.error_addr, CoproState),
        VMSTATE_UINT64(hws.doorbells, CoproState),
        VMSTATE_UINT64(hws.switches, CoproState),
        VMSTATE_STRUCT_ARRAY(hws.q, CoproState, COPRO_HWQ_MAX, 1,
                             vmstate_copro_hwq, CoproHwq),
        VMSTATE_STRUCT_VARRAY_UINT32(hws.eng, CoproState, num_engines, 1,
                                     vmstate_copro_hws_engine,
                                     CoproHwsEngine),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * Monitor (x-query-copro, info copro)
 */

void copro_hws_info(CoproState *s, CoproInfo *info)
{
    CoproHws *h = &s->hws;
    CoproHwSchedInfo *hi;
    CoproRunListInfoList **rtail;
    CoproHwQueueInfoList **qtail;

    if (!s->hwsched) {
        return;
    }
    hi = g_new0(CoproHwSchedInfo, 1);
    rtail = &hi->run_lists;
    qtail = &hi->queues;
    hi->log_address = h->log_addr;
    hi->log_size = h->log_size;
    hi->log_written = h->log_wptr;
    hi->log_read = h->log_rptr;
    hi->log_dropped = h->log_dropped;
    hi->error = h->error;
    hi->doorbells = h->doorbells;
    hi->switches = h->switches;
    for (unsigned i = 0; i < s->num_engines; i++) {
        CoproHwsEngine *he = &h->eng[i];
        CoproRunListInfo *ri = g_new0(CoproRunListInfo, 1);
        uint32List **stail = &ri->queues;

        ri->engine = i;
        ri->seq = he->seq;
        ri->pending = he->pending;
        ri->status = he->status;
        ri->has_current = he->current != COPRO_HWQ_NONE;
        ri->current = he->current;
        ri->switching = he->switching;
        for (uint32_t k = 0; k < he->active_count; k++) {
            QAPI_LIST_APPEND(stail, he->active[k]);
        }
        QAPI_LIST_APPEND(rtail, ri);
    }
    for (uint32_t k = 0; k < COPRO_HWQ_MAX; k++) {
        CoproHwq *q = &h->q[k];
        CoproHwQueueInfo *qi;

        if (!q->mapped) {
            continue;
        }
        qi = g_new0(CoproHwQueueInfo, 1);
        qi->slot = k;
        qi->engine = q->engine;
        qi->band = q->band;
        qi->effective_band = hwq_band(q);
        qi->state = g_strdup(copro_hwq_state_name(q->state));
        qi->error = q->error;
        qi->context = q->context;
        qi->head = q->head;
        qi->tail = q->tail;
        qi->ring_size = q->ring_size;
        qi->resume = q->resume;
        qi->quantum_ns = q->quantum_ns;
        qi->budget_ns = q->budget_ns;
        qi->completed_fence = q->completed_fence;
        qi->gpu_time_ns = q->gpu_time_ns;
        qi->frame_time_ns = q->frame_time_ns;
        qi->last_frame_ns = q->last_frame_ns;
        qi->runs = q->runs;
        qi->preemptions = q->preemptions;
        qi->submissions = q->submissions;
        QAPI_LIST_APPEND(qtail, qi);
    }
    info->hwsched = hi;
}

void copro_hws_hmp(Monitor *mon, CoproInfo *d)
{
    CoproHwSchedInfo *hi = d->hwsched;

    if (!hi) {
        return;
    }
    monitor_printf(mon, "  hardware scheduling: log at 0x%" PRIx64
                   " size %u written %u read %u dropped %u, error %u, "
                   "%" PRIu64 " doorbells, %" PRIu64 " switches\n",
                   hi->log_address, hi->log_size, hi->log_written,
                   hi->log_read, hi->log_dropped, hi->error, hi->doorbells,
                   hi->switches);
    for (CoproRunListInfoList *rl = hi->run_lists; rl; rl = rl->next) {
        CoproRunListInfo *r = rl->value;

        monitor_printf(mon, "    engine %u run list (seq %u%s):", r->engine,
                       r->seq, r->pending ? ", one pending" : "");
        for (uint32List *l = r->queues; l; l = l->next) {
            monitor_printf(mon, " %u", l->value);
        }
        if (!r->queues) {
            monitor_printf(mon, " none (kernel ring)");
        }
        if (r->has_current) {
            monitor_printf(mon, "; running queue %u%s", r->current,
                           r->switching ? " (switching out)" : "");
        }
        monitor_printf(mon, "\n");
    }
    for (CoproHwQueueInfoList *ql = hi->queues; ql; ql = ql->next) {
        CoproHwQueueInfo *q = ql->value;

        monitor_printf(mon, "    queue %u: engine %u band %u (runs at %u) "
                       "%s%s, context %u, head %u tail %u of %u, fence %"
                       PRIu64 "\n", q->slot, q->engine, q->band,
                       q->effective_band, q->state, q->resume ? " resume" :
                       "", q->context, q->head, q->tail, q->ring_size,
                       q->completed_fence);
        monitor_printf(mon, "      gpu %" PRIu64 " ns (frame %" PRIu64
                       ", last frame %" PRIu64 ", budget %u), runs %"
                       PRIu64 ", preemptions %" PRIu64 ", submissions %"
                       PRIu64 "\n", q->gpu_time_ns, q->frame_time_ns,
                       q->last_frame_ns, q->budget_ns, q->runs,
                       q->preemptions, q->submissions);
    }
}
