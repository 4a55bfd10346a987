/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: preemption and fault injection
 *
 * A preemption request (PREEMPT_REQ) is honoured at the engine's next
 * arbitration point for the device's granularity (the "preempt" property):
 *
 *   none         when the ring has drained (legacy hardware: nothing is
 *                ever interrupted, the request waits for all queued work)
 *   dma-buffer   between submissions
 *   command      between packets; a blocked WAIT counts as not started
 *   mid-command  at every step boundary: inside COPY/FILL (64 KiB chunks),
 *                RECT (bands of rows), WORK (100 us slices), WAIT
 *
 * Paging submissions are never interrupted. At the arbitration point the
 * engine writes a save record to the submission's save area, drops the
 * ring entries it had not fetched, and raises PREEMPTED. Resubmitting the
 * buffer with COPRO_SUBMIT_RESUME and the same save area continues exactly
 * where it stopped.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "copro.h"
#include "trace.h"

/* A write to PREEMPT_REQ: the upper half (or a whole 8 bytes) triggers. */
void copro_preempt_request(CoproEngine *e, uint64_t val, uint64_t mask)
{
    e->preempt_req = (e->preempt_req & ~mask) | (val & mask);
    if (!(mask >> 32)) {
        return;
    }
    if (!e->preempt_pending) {
        e->preempt_pending = true;
        e->preempt_req_time = copro_now_ns();
    }
    /* a second request before the first is honoured replaces its fence */
    trace_copro_preempt_request(e->index, e->preempt_req, e->state);
    copro_tl_engine(e, COPRO_TL_PREEMPT_REQUEST);
    if (e->state != COPRO_ENG_STATE_HALTED) {
        copro_engine_kick_io(e);
    }
}

void copro_inject_write(CoproEngine *e, uint32_t val)
{
    if (!e->dev->fault_injection) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: INJECT written "
                      "without x-fault-injection=on, ignored\n", e->index);
        return;
    }
    if (val & ~COPRO_INJECT_ALL) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: unknown INJECT "
                      "bits 0x%" PRIx32 " ignored\n", e->index,
                      val & ~COPRO_INJECT_ALL);
    }
    trace_copro_inject(e->index, val & COPRO_INJECT_ALL);
    e->inject = val & COPRO_INJECT_ALL;
    /* clearing a hang lets the engine go on */
    if (e->state != COPRO_ENG_STATE_HALTED) {
        copro_engine_kick(e);
    }
}

static bool copro_packet_is_wait(CoproEngine *e)
{
    return e->in_packet && COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_WAIT;
}

/* Is the engine, between two steps, at an arbitration point? */
static bool copro_at_arbitration_point(CoproEngine *e)
{
    if (!e->active) {
        /*
         * legacy hardware only stops once everything queued has run;
         * between two submissions of a hardware queue nothing is queued
         * on the engine itself, and an engine held after an OOM stop
         * runs nothing of its ring
         */
        return e->dev->preempt != COPRO_PREEMPT_NONE ||
               e->ring_head == e->ring_tail || copro_hws_owns(e) ||
               e->tiler.held;
    }
    if (e->desc.flags & COPRO_SUBMIT_PAGING) {
        return false;
    }
    switch (e->dev->preempt) {
    case COPRO_PREEMPT_COMMAND:
        /* a tile pass stops at tile boundaries (copro-tiler.c) */
        return !e->in_packet || copro_packet_is_wait(e) ||
               copro_tiler_at_boundary(e);
    case COPRO_PREEMPT_MID_COMMAND:
        return !e->in_packet ||
               COPRO_PKT_OP(e->cur.hdr) != COPRO_OP_TILE_RENDER ||
               copro_tiler_at_boundary(e);
    default:
        return false;
    }
}

/* Could the engine stop at once for a switch (hardware scheduling)? */
bool copro_preempt_possible(CoproEngine *e)
{
    return !((e->inject & COPRO_INJECT_HANG) && e->active) &&
           copro_at_arbitration_point(e);
}

/* Packets that run in several steps and can stop part-way. */
static bool copro_op_multi_step(uint32_t op)
{
    switch (op) {
    case COPRO_OP_COPY:
    case COPRO_OP_FILL:
    case COPRO_OP_COPY_PTE:
    case COPRO_OP_RECT:
    case COPRO_OP_WORK:
    case COPRO_OP_TILE_RENDER:
        return true;
    default:
        return false;
    }
}

void copro_save_record_fill(CoproEngine *e, struct copro_save_record *r)
{
    /*
     * Only a multi-step packet with steps done is saved as partly done.
     * Any other packet in progress is saved as not started and runs again
     * on resume: a blocked WAIT is simply re-checked, and a single-step
     * packet whose step faulted and is being retried (RETRY) had done
     * nothing yet.
     */
    bool mid = e->in_packet && e->cur.progress &&
               copro_op_multi_step(COPRO_PKT_OP(e->cur.hdr));

    memset(r, 0, sizeof(*r));
    r->magic = cpu_to_le32(COPRO_SAVE_MAGIC);
    r->version = cpu_to_le32(COPRO_SAVE_VERSION);
    r->dma_addr = cpu_to_le64(e->desc.dma_addr);
    r->dma_len = cpu_to_le32(e->desc.dma_len);
    r->offset = cpu_to_le32(e->pc);
    r->fence = cpu_to_le64(e->desc.fence);
    r->context = cpu_to_le32(e->desc.context);
    r->in_packet = cpu_to_le32(mid);
    if (mid) {
        r->hdr = cpu_to_le32(e->cur.hdr);
        for (unsigned i = 0; i < ARRAY_SIZE(r->payload); i++) {
            r->payload[i] = cpu_to_le32(e->cur.dw[i]);
        }
        r->progress = cpu_to_le64(e->cur.progress);
        if (COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_RECT) {
            /* informative: a resume re-clips from the payload */
            r->rect[0] = cpu_to_le32(e->rect_x);
            r->rect[1] = cpu_to_le32(e->rect_y);
            r->rect[2] = cpu_to_le32(e->rect_w);
            r->rect[3] = cpu_to_le32(e->rect_h);
            r->rect[4] = cpu_to_le32(e->rect_rows_step);
        }
    }
    for (unsigned i = 0; i < COPRO_TARGET_SLOTS; i++) {
        r->targets[i].addr = cpu_to_le64(e->targets[i].addr);
        r->targets[i].pitch = cpu_to_le32(e->targets[i].pitch);
        r->targets[i].width = cpu_to_le32(e->targets[i].width);
        r->targets[i].height = cpu_to_le32(e->targets[i].height);
        r->targets[i].format = cpu_to_le32(e->targets[i].format);
    }
    copro_tiler_save(e, r);
}

/*
 * The submission is off the engine (preempted or stopped by the tiler).
 * What happens to the ring's queued submissions is the caller's: a kernel
 * ring drops them (the driver resubmits), a hardware queue keeps them.
 */
void copro_engine_stop(CoproEngine *e)
{
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->preempt_saving = false;
    e->pc = 0;
    e->tiler.scene = 0;
    timer_del(e->timer);
    e->state = COPRO_ENG_STATE_IDLE;
}

/*
 * The engine stops: for a preemption request (PREEMPT_REQ), or for the
 * device's own scheduler switching a hardware queue out (then the record
 * goes to the queue's save area, nothing is dropped and no interrupt is
 * raised unless a request was pending too).
 */
static void copro_preempt_now(CoproEngine *e)
{
    int64_t latency = MAX(copro_now_ns() - e->preempt_req_time, 0);
    bool saved = e->active;
    bool queue = copro_hws_owns(e);
    uint64_t fence = e->active ? e->desc.fence : 0;

    if (e->active) {
        struct copro_save_record r;

        copro_save_record_fill(e, &r);
        if (!copro_mem_access(e, false, e->desc.save_addr, &r, sizeof(r),
                              true)) {
            return;     /* faulted: the engine (or the queue) is halted */
        }
    }
    /* the device's own switches show as queue-switch-out instead */
    if (!queue || e->preempt_pending) {
        copro_tl_engine(e, COPRO_TL_PREEMPT_SAVED);
    }

    if (queue) {
        /* the queue keeps its ring: it resumes from its save area */
        copro_hws_saved(e, saved, fence);
    } else {
        /* queued submissions are dropped: the driver resubmits them */
        e->ring_head = e->ring_tail;
    }
    copro_engine_stop(e);

    if (queue) {
        /*
         * the device's scheduler picks the next queue now, in virtual
         * time (a timer due now, not a bottom half)
         */
        timer_mod(e->timer, copro_now_ns());
    }
    if (!e->preempt_pending) {
        return;     /* only the device's scheduler wanted it */
    }
    e->preempted_fence = fence;
    e->preempt_pending = false;
    e->preempt_fence = e->preempt_req;
    if (!e->stat_preemptions || latency < e->stat_preempt_min) {
        e->stat_preempt_min = latency;
    }
    e->stat_preempt_max = MAX(e->stat_preempt_max, latency);
    e->stat_preempt_sum += latency;
    e->stat_preemptions++;
    trace_copro_preempted(e->index, e->preempt_fence, e->preempted_fence,
                          e->completed_fence, latency);
    copro_raise_irq(e->dev, COPRO_INT_ENG(e->index, COPRO_INT_PREEMPTED));
}

/*
 * Called at every step boundary while a request is pending; true when the
 * engine stops for it. At an arbitration point with a submission loaded,
 * the engine first spends the time of saving the context state
 * (ctx-state-size at copy-bw, charged to that submission's context) and
 * completes the preemption when its clock has passed it.
 */
bool copro_preempt_arbitrate(CoproEngine *e, int64_t now)
{
    if (!e->preempt_saving) {
        uint64_t cost;

        if ((e->inject & COPRO_INJECT_HANG) && e->active) {
            return false;   /* a hung engine defers preemption */
        }
        if (!copro_at_arbitration_point(e)) {
            return false;
        }
        cost = e->active ? copro_ctx_switch_ns(e) : 0;
        if (cost) {
            copro_account(e, cost);
            e->cursor += cost;
            e->preempt_saving = true;
        }
    }
    if (e->preempt_saving && e->cursor > now) {
        timer_mod(e->timer, e->cursor);
        return true;
    }
    copro_preempt_now(e);
    return true;
}

static bool copro_preempt_restore_fail(CoproEngine *e, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: cannot resume fence "
                  "%" PRIu64 ": %s\n", e->index, e->desc.fence, why);
    copro_engine_fault(e, COPRO_FAULT_BAD_SAVE, e->desc.save_addr, 0);
    return false;
}

/*
 * Load the save record of a RESUME submission into the engine. Every field
 * is checked against the descriptor and with the checks fetch makes: the
 * record lives in guest-writable memory. A memory fault reading it leaves
 * restore_pending set, so RETRY reads it again. Restoring the context
 * state costs as much time as saving it did.
 */
bool copro_preempt_restore(CoproEngine *e)
{
    struct copro_save_record r;
    uint32_t offset;
    uint64_t cost;

    if (!copro_mem_access(e, false, e->desc.save_addr, &r, sizeof(r),
                          false)) {
        return false;
    }
    offset = le32_to_cpu(r.offset);
    if (le32_to_cpu(r.magic) != COPRO_SAVE_MAGIC ||
        le32_to_cpu(r.version) != COPRO_SAVE_VERSION) {
        return copro_preempt_restore_fail(e, "no save record");
    }
    if (le64_to_cpu(r.dma_addr) != e->desc.dma_addr ||
        le32_to_cpu(r.dma_len) != e->desc.dma_len) {
        return copro_preempt_restore_fail(e, "record of another buffer");
    }
    if ((offset & 3) || offset > e->desc.dma_len) {
        return copro_preempt_restore_fail(e, "bad offset");
    }
    for (unsigned i = 0; i < COPRO_TARGET_SLOTS; i++) {
        CoproTarget *t = &e->targets[i];

        t->addr = le64_to_cpu(r.targets[i].addr);
        t->pitch = le32_to_cpu(r.targets[i].pitch);
        t->width = le32_to_cpu(r.targets[i].width);
        t->height = le32_to_cpu(r.targets[i].height);
        t->format = le32_to_cpu(r.targets[i].format);
        if (!copro_target_ok(t)) {
            memset(e->targets, 0, sizeof(e->targets));
            return copro_preempt_restore_fail(e, "bad bound target");
        }
    }

    if (!copro_tiler_restore(e, &r)) {
        return copro_preempt_restore_fail(e, "bad scene state");
    }
    e->pc = offset;
    e->in_packet = false;
    if (le32_to_cpu(r.in_packet)) {
        CoproPacket *p = &e->cur;

        memset(p, 0, sizeof(*p));
        p->offset = offset;
        p->hdr = le32_to_cpu(r.hdr);
        for (unsigned i = 0; i < ARRAY_SIZE(p->dw); i++) {
            p->dw[i] = le32_to_cpu(r.payload[i]);
        }
        p->progress = le64_to_cpu(r.progress);
        if ((uint64_t)offset + COPRO_PKT_LEN(p->hdr) * 4 > e->desc.dma_len ||
            !copro_op_multi_step(COPRO_PKT_OP(p->hdr)) ||
            copro_packet_check(e) != COPRO_FAULT_NONE ||
            !copro_packet_progress_ok(e) ||
            /* a tile pass is saved between tiles only */
            (COPRO_PKT_OP(p->hdr) == COPRO_OP_TILE_RENDER &&
             (p->progress & 1))) {
            return copro_preempt_restore_fail(e, "bad packet state");
        }
        e->in_packet = true;
    }
    e->restore_pending = false;
    cost = copro_ctx_switch_ns(e);
    copro_account(e, cost);
    e->cursor += cost;
    trace_copro_resume(e->index, e->desc.fence, offset, e->in_packet,
                       e->cur.progress);
    copro_tl_engine(e, COPRO_TL_RESUME);
    return true;
}
