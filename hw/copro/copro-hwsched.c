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
 * This file: descriptors, the log, errors, run lists, doorbells, the
 * registers and the lifecycle. The scheduler and the engine's side are in
 * copro-hws-sched.c, migration in copro-hws-migration.c, the monitor in
 * copro-hws-monitor.c; what they share is copro-hws-internal.h.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/pci/pci_device.h"
#include "qapi/qapi-types-copro.h"
#include "copro.h"
#include "copro-hws-internal.h"
#include "trace.h"

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


/*
 * Memory. Descriptors, run lists, the log and progress fences live in the
 * physical GPU address space (VRAM or the aperture); the accesses go
 * through the MMU on behalf of an engine (its translation cache), never
 * halt it, and report failure to the caller.
 */
bool copro_hws_rw(CoproState *s, unsigned engine, uint64_t addr, void *buf,
                   uint64_t len, bool is_write)
{
    CoproMemFault f;

    return copro_mmu_rw_ctx(&s->engines[engine], true, 0, addr, buf, len,
                            is_write, &f);
}

/*
 * The log
 */
void copro_hws_log(CoproState *s, uint16_t kind, unsigned engine,
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
    if (!copro_hws_rw(s, 0, at, &le, sizeof(le), true)) {
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

void copro_hwq_log(CoproState *s, CoproHwq *q, uint16_t kind, uint64_t a0,
                    uint64_t a1)
{
    copro_hws_log(s, kind, q->mapped ? q->engine : COPRO_HWS_NO_ENGINE,
                  hwq_band(q),
            hwq_slot(s, q), a0, a1);
}

/*
 * Refused input and queue errors: HWS_ERROR, HWS_ERROR_QUEUE and
 * HWS_ERROR_ADDR latch it, an ERROR entry is logged and HWS_ERROR raised.
 */
void copro_hws_error(CoproState *s, uint32_t err, unsigned engine,
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
    copro_hws_log(s, COPRO_SLOG_ERROR, engine,
            queue < COPRO_HWQ_MAX ? hwq_band(&h->q[queue]) : 0, queue, err,
            addr);
    copro_raise_irq(s, COPRO_INT_DEV_HWS_ERROR);
}

/*
 * Descriptors
 */

/* Write the device's part of @q's descriptor back. */
void copro_hwq_writeback(CoproState *s, CoproHwq *q)
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
    if (!copro_hws_rw(s, q->engine, q->desc_addr + HWQ_WB_OFFSET, part,
                HWQ_WB_SIZE, true)) {
        copro_hws_error(s, COPRO_HWS_ERR_WRITEBACK, q->engine, hwq_slot(s, q),
                  q->desc_addr, "queue descriptor write-back failed");
    }
}

/* The fence of the entry at @q's head, for reports (0: unreadable). */
uint64_t copro_hwq_head_fence(CoproState *s, unsigned engine, CoproHwq *q)
{
    uint64_t fence;

    if (!copro_hws_rw(s, engine, copro_gpu_addr_add(q->ring_base,
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

    if ((addr & 63) || !copro_hws_rw(s, engine, addr, &d, sizeof(d), false)) {
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
        q->oom_fence = copro_hwq_head_fence(s, engine, q);
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
    copro_hws_error(e->dev, err, e->index, queue, addr, why);
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
    if (n && !copro_hws_rw(s, e->index, he->rl_addr, ent,
                     (uint64_t)n * COPRO_RUNLIST_ENTRY_SIZE, false)) {
        rl_refuse(e, COPRO_HWS_ERR_RUNLIST, COPRO_HWQ_NONE, he->rl_addr,
                  "run list unreadable");
        return;
    }
    /*
     * The checks go kind by kind over the whole list, in the order of the
     * spec's table (ENTRY, DUPLICATE, QUEUE_BUSY, DESC), each from the
     * first entry: the error reported is the first kind any entry has,
     * and no descriptor is read for a list with a bad entry.
     */
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
    }
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < i; k++) {
            if (ent[k].queue == ent[i].queue ||
                ent[k].desc_addr == ent[i].desc_addr) {
                rl_refuse(e, COPRO_HWS_ERR_DUPLICATE, ent[i].queue, i,
                          "queue listed twice");
                return;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        struct copro_runlist_entry *r = &ent[i];

        if (rl_claimed_elsewhere(s, e->index, r->queue, r->desc_addr) ||
            (s->hws.q[r->queue].mapped &&
             s->hws.q[r->queue].desc_addr != r->desc_addr)) {
            rl_refuse(e, COPRO_HWS_ERR_QUEUE_BUSY, r->queue, r->desc_addr,
                      "queue mapped elsewhere");
            return;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        struct copro_runlist_entry *r = &ent[i];

        if (!s->hws.q[r->queue].mapped &&
            hwq_read_desc(s, e->index, r->desc_addr, &got[i])) {
            rl_refuse(e, COPRO_HWS_ERR_DESC, r->queue, r->desc_addr,
                      "bad queue descriptor");
            return;
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
void copro_hwq_unmap(CoproState *s, CoproHwq *q)
{
    if (q->state != COPRO_HWQ_STATE_ERROR &&
        q->state != COPRO_HWQ_STATE_OOM_WAIT) {
        q->mapped = false;
        q->state = hwq_rest_state(q);
        q->mapped = true;
    }
    copro_hwq_writeback(s, q);
    q->mapped = false;
    q->suspended = false;
    q->over_budget = false;
}

/* Take the pending list (no queue is on the engine, or it stays). */
void copro_hws_take(CoproEngine *e)
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
            copro_hwq_unmap(s, &s->hws.q[slot]);
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
    copro_hws_log(s, COPRO_SLOG_RUNLIST, e->index, 0, COPRO_HWQ_NONE, n,
                  he->seq);
    copro_raise_irq(s, COPRO_INT_DEV_RUNLIST);
    copro_hws_update(e);
    /* COUNT 0: back to the kernel ring, which may hold work */
    hws_kick(e);
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
                        copro_hws_error(s, COPRO_HWS_ERR_DOORBELL, i, slot, val,
                                  "doorbell tail outside the ring");
                        return;
                    }
                    p->tail = val;
                    return;
                }
            }
        }
        copro_hws_error(s, COPRO_HWS_ERR_DOORBELL, COPRO_HWS_NO_ENGINE, slot,
                        val,
                  "doorbell of a queue that is not mapped");
        return;
    }
    if (q->state == COPRO_HWQ_STATE_ERROR) {
        copro_hws_error(s, COPRO_HWS_ERR_DOORBELL_ERROR, q->engine, slot, val,
                  "doorbell of a queue in error");
        return;
    }
    if (val >= q->ring_size) {
        CoproEngine *e = &s->engines[q->engine];

        if (hws_eng(e)->current == slot) {
            copro_hws_fail_current(e, COPRO_HWS_ERR_DOORBELL, 0, val,
                             COPRO_SLOG_OUT_ERROR);
        } else {
            q->state = COPRO_HWQ_STATE_ERROR;
            q->error = COPRO_HWS_ERR_DOORBELL;
            q->error_fence = 0;
            copro_hwq_writeback(s, q);
            copro_hws_error(s, COPRO_HWS_ERR_DOORBELL, q->engine, slot, val,
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
            copro_hws_error(s, COPRO_HWS_ERR_REGISTER, COPRO_HWS_NO_ENGINE,
                      COPRO_HWQ_NONE, val, "LOW_SHARE above 1000 refused");
            break;
        }
        h->low_share = val;
        break;
    case COPRO_REG_HWS_LOG_ADDR:
        val = (h->log_addr & ~mask) | (val & mask);
        if (val & (COPRO_SLOG_ENTRY_SIZE - 1)) {
            copro_hws_error(s, COPRO_HWS_ERR_REGISTER, COPRO_HWS_NO_ENGINE,
                            COPRO_HWQ_NONE,
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
            copro_hws_error(s, COPRO_HWS_ERR_REGISTER, COPRO_HWS_NO_ENGINE,
                            COPRO_HWQ_NONE,
                      val, "bad scheduling log size refused");
            break;
        }
        h->log_size = val;
        h->log_wptr = 0;
        h->log_rptr = 0;
        h->log_dropped = 0;
        break;
    case COPRO_REG_HWS_OOM_ANSWER:
        copro_hws_oom_answer(s, val);
        break;
    case COPRO_REG_HWS_LOG_RPTR:
        if (h->log_wptr - (uint32_t)val > h->log_size) {
            copro_hws_error(s, COPRO_HWS_ERR_REGISTER, COPRO_HWS_NO_ENGINE,
                            COPRO_HWQ_NONE,
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
