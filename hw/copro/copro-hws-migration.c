/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: migration of the hardware-scheduling state (copro/hwsched) and
 * its checks: the stream is untrusted.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "migration/vmstate.h"
#include "copro.h"
#include "copro-hws-internal.h"

/* pre_load's mark: the stream had no copro/hwsched/quantum */
#define HWS_QUANTUM_UNSET   INT64_MIN

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

/*
 * Where the running queue's present quantum began (rule 4: a queue alone
 * in its band starts a new quantum, not a new run). Sent only when it
 * differs from the run's start; a stream without it (an older source,
 * whose run_start was the quantum's start) takes run_start.
 */
static const VMStateDescription vmstate_copro_hws_engine_quantum = {
    .name = "copro/hws-engine-quantum",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_INT64(quantum_start, CoproHwsEngine),
        VMSTATE_END_OF_LIST()
    },
};

static bool copro_hws_quantum_needed(void *opaque)
{
    CoproState *s = opaque;

    for (unsigned i = 0; i < s->num_engines; i++) {
        if (s->hws.eng[i].current != COPRO_HWQ_NONE &&
            s->hws.eng[i].quantum_start != s->hws.eng[i].run_start) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_copro_hws_quantum = {
    .name = "copro/hwsched/quantum",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_hws_quantum_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_VARRAY_UINT32(hws.eng, CoproState, num_engines, 1,
                                     vmstate_copro_hws_engine_quantum,
                                     CoproHwsEngine),
        VMSTATE_END_OF_LIST()
    },
};

/* A switch the device decides by itself, and may be saving for. */
static bool hws_switch_reason_ok(uint32_t reason)
{
    switch (reason) {
    case COPRO_SLOG_OUT_QUANTUM:
    case COPRO_SLOG_OUT_PREEMPTED:
    case COPRO_SLOG_OUT_BLOCKED:
    case COPRO_SLOG_OUT_BUDGET:
    case COPRO_SLOG_OUT_RUNLIST:
    case COPRO_SLOG_OUT_SHARE:
        return true;
    default:
        return false;
    }
}

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
        /* an older stream has no quantum of its own: the run's start */
        if (he->quantum_start == HWS_QUANTUM_UNSET) {
            he->quantum_start = he->run_start;
        }
        if (!hws_time_ok(he->quantum_start) ||
            (he->current != COPRO_HWQ_NONE &&
             he->quantum_start < he->run_start)) {
            return false;
        }
        /*
         * A switch in progress (the engine may be saving for it): one the
         * device decides, decided while its queue was on the engine.
         */
        if (he->switching && (!hws_switch_reason_ok(he->switch_reason) ||
                              he->switch_time < he->run_start)) {
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

static int copro_hws_vmstate_pre_load(void *opaque)
{
    CoproState *s = opaque;

    for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
        s->hws.eng[i].quantum_start = HWS_QUANTUM_UNSET;
    }
    return 0;
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
    .pre_load = copro_hws_vmstate_pre_load,
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
    .subsections = (const VMStateDescription * const []) {
        &vmstate_copro_hws_quantum,
        NULL
    },
};
