/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: an engine's migration: the checks of a loaded engine (the stream
 * is untrusted input) and its VMState, with the subsections for a context
 * switch in progress and a fault report batching has latched. The
 * engine's execution is copro-engine.c.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "migration/vmstate.h"
#include "copro-engine-internal.h"

/*
 * Check a migrated engine. The stream is untrusted input: every state
 * from which the engine would execute the current packet (a charged step,
 * a packet in progress, a WAIT to wake, a RETRY of a halted step) gets the
 * checks fetch makes, and the bound targets and clipped RECT (which bound
 * the bounce buffer) are checked or derived again. Nothing is restarted
 * here: copro_vm_state_change() does that when the VM runs.
 */
bool copro_engine_post_load(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    bool executes = e->in_packet || e->step_pending ||
                    e->state == COPRO_ENG_STATE_WAITING;

    for (unsigned i = 0; i < COPRO_TARGET_SLOTS; i++) {
        if (!copro_target_ok(&e->targets[i])) {
            return false;
        }
    }
    if (e->active && (e->pc > e->desc.dma_len || (e->pc & 3))) {
        return false;
    }
    if (executes) {
        if (!e->active || !e->in_packet || p->offset != e->pc ||
            (uint64_t)e->pc + COPRO_PKT_LEN(p->hdr) * 4 > e->desc.dma_len ||
            copro_packet_check(e) != COPRO_FAULT_NONE ||
            !copro_packet_progress_ok(e)) {
            return false;
        }
        if (e->state == COPRO_ENG_STATE_WAITING &&
            COPRO_PKT_OP(p->hdr) != COPRO_OP_WAIT) {
            return false;
        }
    }
    if (e->restore_pending && (!e->active || e->in_packet)) {
        return false;
    }
    /*
     * A save is for a PREEMPT_REQ or for a switch the device's scheduler
     * decided (copro/hwsched, loaded before this runs, carries it).
     */
    if (e->preempt_saving &&
        (!e->active || e->step_pending || e->restore_pending ||
         !(e->preempt_pending ||
           (copro_hws_owns(e) && copro_hws_switching(e))))) {
        return false;
    }
    /* a deferred fault report needs the fault it reports */
    if (e->fault_irq_due && (e->state != COPRO_ENG_STATE_HALTED ||
                             e->fault_kind == COPRO_FAULT_NONE)) {
        return false;
    }
    if (!copro_tiler_engine_post_load(e)) {
        return false;
    }
    /* per-pass bookkeeping starts afresh on the destination */
    e->slice_stamp = 0;
    e->slice_used = 0;
    e->batching = false;
    return true;
}

static bool copro_engine_valid(void *opaque, int version_id)
{
    CoproEngine *e = opaque;

    return e->ring_size <= COPRO_RING_MAX_ENTRIES &&
           (!e->ring_size || (is_power_of_2(e->ring_size) &&
                              e->ring_head < e->ring_size &&
                              e->ring_tail < e->ring_size)) &&
           e->state <= COPRO_ENG_STATE_HALTED &&
           e->desc.dma_len <= COPRO_DMA_MAX &&
           (!e->in_packet ||
            copro_packet_op_in_range(COPRO_PKT_OP(e->cur.hdr)));
}

static const VMStateDescription vmstate_copro_target = {
    .name = "copro/target",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, CoproTarget),
        VMSTATE_UINT32(pitch, CoproTarget),
        VMSTATE_UINT32(width, CoproTarget),
        VMSTATE_UINT32(height, CoproTarget),
        VMSTATE_UINT32(format, CoproTarget),
        VMSTATE_END_OF_LIST()
    },
};

static bool copro_engine_switch_needed(void *opaque)
{
    CoproEngine *e = opaque;

    return e->restore_pending || e->preempt_saving;
}

/* a context switch in progress: a save record to load, or being saved */
static const VMStateDescription vmstate_copro_engine_switch = {
    .name = "copro/engine/switch",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_engine_switch_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(restore_pending, CoproEngine),
        VMSTATE_BOOL(preempt_saving, CoproEngine),
        VMSTATE_END_OF_LIST()
    },
};

static bool copro_engine_batch_needed(void *opaque)
{
    CoproEngine *e = opaque;

    return e->fault_irq_due;
}

/* the interrupt of a fault latched ahead of time (batching), still due */
static const VMStateDescription vmstate_copro_engine_batch = {
    .name = "copro/engine/batch",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_engine_batch_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(fault_irq_due, CoproEngine),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_copro_engine = {
    .name = "copro/engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(ring_base, CoproEngine),
        VMSTATE_UINT32(ring_size, CoproEngine),
        VMSTATE_UINT32(ring_head, CoproEngine),
        VMSTATE_UINT32(ring_tail, CoproEngine),
        VMSTATE_UINT64(fence_wb, CoproEngine),
        VMSTATE_UINT32(state, CoproEngine),
        VMSTATE_BOOL(active, CoproEngine),
        VMSTATE_UINT64(desc.dma_addr, CoproEngine),
        VMSTATE_UINT32(desc.dma_len, CoproEngine),
        VMSTATE_UINT32(desc.flags, CoproEngine),
        VMSTATE_UINT64(desc.fence, CoproEngine),
        VMSTATE_UINT32(desc.context, CoproEngine),
        VMSTATE_UINT64(desc.save_addr, CoproEngine),
        VMSTATE_UINT32(pc, CoproEngine),
        VMSTATE_BOOL(in_packet, CoproEngine),
        VMSTATE_BOOL(step_pending, CoproEngine),
        VMSTATE_UINT32(cur.offset, CoproEngine),
        VMSTATE_UINT32(cur.hdr, CoproEngine),
        VMSTATE_UINT32_ARRAY(cur.dw, CoproEngine, COPRO_LEN_SET_TARGET - 1),
        VMSTATE_UINT64(cur.progress, CoproEngine),
        VMSTATE_UINT32(rect_x, CoproEngine),
        VMSTATE_UINT32(rect_y, CoproEngine),
        VMSTATE_UINT32(rect_w, CoproEngine),
        VMSTATE_UINT32(rect_h, CoproEngine),
        VMSTATE_UINT32(rect_rows_step, CoproEngine),
        VMSTATE_STRUCT_ARRAY(targets, CoproEngine, COPRO_TARGET_SLOTS, 1,
                             vmstate_copro_target, CoproTarget),
        VMSTATE_INT64(cursor, CoproEngine),
        VMSTATE_UINT64(completed_fence, CoproEngine),
        VMSTATE_UINT32(user_data, CoproEngine),
        VMSTATE_UINT32(fault_kind, CoproEngine),
        VMSTATE_UINT32(fault_offset, CoproEngine),
        VMSTATE_UINT64(fault_addr, CoproEngine),
        VMSTATE_UINT64(fault_fence, CoproEngine),
        VMSTATE_UINT32(fault_context, CoproEngine),
        VMSTATE_UINT32(fault_info, CoproEngine),
        VMSTATE_UINT64(aborted_fence, CoproEngine),
        VMSTATE_UINT64(stat_busy_ns, CoproEngine),
        VMSTATE_UINT64(stat_submissions, CoproEngine),
        VMSTATE_UINT64(stat_packets, CoproEngine),
        VMSTATE_UINT64(stat_bytes, CoproEngine),
        VMSTATE_UINT64(stat_faults, CoproEngine),
        VMSTATE_BOOL(preempt_pending, CoproEngine),
        VMSTATE_UINT64(preempt_req, CoproEngine),
        VMSTATE_INT64(preempt_req_time, CoproEngine),
        VMSTATE_UINT64(preempt_fence, CoproEngine),
        VMSTATE_UINT64(preempted_fence, CoproEngine),
        VMSTATE_UINT64(stat_preemptions, CoproEngine),
        VMSTATE_UINT64(stat_preempt_min, CoproEngine),
        VMSTATE_UINT64(stat_preempt_max, CoproEngine),
        VMSTATE_UINT64(stat_preempt_sum, CoproEngine),
        VMSTATE_UINT32(inject, CoproEngine),
        VMSTATE_TIMER_PTR(timer, CoproEngine),
        VMSTATE_VALIDATE("engine state in range", copro_engine_valid),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_copro_engine_switch,
        &vmstate_copro_engine_batch,
        &vmstate_copro_tiler_engine,
        NULL
    },
};

const VMStateDescription vmstate_copro_ctx_stat = {
    .name = "copro/ctx-stat",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(context, CoproCtxStat),
        VMSTATE_UINT32(used, CoproCtxStat),
        VMSTATE_UINT64(busy_ns, CoproCtxStat),
        VMSTATE_UINT64(submissions, CoproCtxStat),
        VMSTATE_END_OF_LIST()
    },
};
