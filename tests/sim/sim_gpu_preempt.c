/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model's preemption (hw/copro/copro-preempt.c): arbitration
 * points per granularity, the save record, the stop, and RESUME's
 * restore from a save record.
 */
#include "sim_gpu_internal.h"

#include <string.h>

/* ---- preemption ---- */

static bool at_arbitration_point(const struct sim_engine *e)
{
    if (!e->active) {
        /* legacy hardware only stops once everything queued has run;
         * a held engine runs nothing of its ring */
        return e->g->cfg.preemption != COPRO_PREEMPT_NONE ||
               e->head == e->tail || e->tiler_held;
    }
    if (e->desc.flags & COPRO_SUBMIT_PAGING) {
        return false;
    }
    if (e->g->tiler_bug == SIM_TILER_COARSE && e->in_packet &&
        COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_TILE_RENDER &&
        (e->cur.progress / 2) % 4) {
        return false;   /* (--meta) only every fourth tile boundary */
    }
    switch (e->g->cfg.preemption) {
    case COPRO_PREEMPT_COMMAND:
        /* a tile pass is interrupted between tiles (every step is one) */
        return !e->in_packet || COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_WAIT ||
               COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_TILE_RENDER;
    case COPRO_PREEMPT_MID_COMMAND:
        return true;
    default:
        return false;
    }
}

/* The ring entries not fetched, in order (for the observer). */
static unsigned queued_entries(const struct sim_engine *e,
                               struct copro_submit_desc *out)
{
    unsigned n = 0;

    for (uint32_t i = e->head; i != e->tail;
         i = (i + 1) & (e->g->cfg.ring_entries - 1)) {
        out[n++] = e->ring[i];
    }
    return n;
}

void sim_notify_stop(struct sim_engine *e, bool reset)
{
    struct copro_submit_desc dropped[COPRO_RING_MAX_ENTRIES];
    unsigned n;

    if (!e->g->obs || !e->g->obs->stopped) {
        return;
    }
    n = queued_entries(e, dropped);
    e->g->obs->stopped(e->g->obs_arg, e->index, reset,
                       e->active ? &e->desc : NULL, dropped, n);
}

void sim_save_record(struct sim_engine *e, struct copro_save_record *r)
{
    bool mid = e->in_packet && e->cur.progress &&
               sim_multi_step(COPRO_PKT_OP(e->cur.hdr));

    memset(r, 0, sizeof(*r));
    r->magic = COPRO_SAVE_MAGIC;
    r->version = COPRO_SAVE_VERSION;
    r->dma_addr = e->desc.dma_addr;
    r->dma_len = e->desc.dma_len;
    r->offset = e->pc;
    r->fence = e->desc.fence;
    r->context = e->desc.context;
    r->in_packet = mid;
    if (mid) {
        r->hdr = e->cur.hdr;
        memcpy(r->payload, e->cur.dw, sizeof(r->payload));
        r->progress = e->cur.progress;
        if (COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_RECT) {
            r->rect[0] = e->rect_x;
            r->rect[1] = e->rect_y;
            r->rect[2] = e->rect_w;
            r->rect[3] = e->rect_h;
            r->rect[4] = e->rect_rows_step;
        }
    }
    for (unsigned i = 0; i < COPRO_TARGET_SLOTS; i++) {
        r->targets[i].addr = e->targets[i].addr;
        r->targets[i].pitch = e->targets[i].pitch;
        r->targets[i].width = e->targets[i].width;
        r->targets[i].height = e->targets[i].height;
        r->targets[i].format = e->targets[i].format;
    }
    sim_tiler_save(e, r);
}

void sim_preempt_now(struct sim_engine *e)
{
    uint64_t latency = now_of(e) - e->preempt_req_time;

    if (e->active) {
        struct copro_save_record r;

        sim_save_record(e, &r);
        if (!sim_mem_write(e, e->desc.save_addr, &r, sizeof(r))) {
            return;     /* faulted: halted */
        }
        e->preempted_fence = e->desc.fence;
        e->scene = 0;           /* it is in the save record */
    } else {
        e->preempted_fence = 0;
    }
    sim_notify_stop(e, false);
    e->head = e->tail;          /* queued entries dropped */
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->preempt_saving = false;
    e->pc = 0;
    sim_timer_del(e);
    e->state = SIM_ENG_IDLE;
    e->preempt_pending = false;
    e->preempt_fence = e->preempt_req;
    if (!e->preemptions || latency < e->preempt_min_ns) {
        e->preempt_min_ns = latency;
    }
    if (latency > e->preempt_max_ns) {
        e->preempt_max_ns = latency;
    }
    e->preempt_sum_ns += latency;
    e->preemptions++;
    sim_raise_irq(e, IRQ_PREEMPTED);
}

bool sim_arbitrate(struct sim_engine *e, uint64_t now)
{
    if (!e->preempt_saving) {
        uint64_t c;

        if (e->hung && e->active) {
            return false;       /* a hung engine ignores preemption */
        }
        if (!at_arbitration_point(e)) {
            return false;
        }
        c = e->active ? ctx_switch_ns(e) : 0;
        if (c) {
            account(e, (int64_t)c);
            e->cursor += c;
            e->preempt_saving = true;
        }
    }
    if (e->preempt_saving && e->cursor > now) {
        sim_timer_mod(e, e->cursor);
        return true;
    }
    sim_preempt_now(e);
    return true;
}

/* ---- RESUME ---- */

static bool restore_fail(struct sim_engine *e)
{
    sim_engine_fault(e, COPRO_FAULT_BAD_SAVE, e->desc.save_addr);
    return false;
}

/* RESUME: the save record, checked as the device checks it. */
bool sim_restore(struct sim_engine *e)
{
    struct copro_save_record r;
    uint64_t c;

    if (!sim_mem_read(e, e->desc.save_addr, &r, sizeof(r))) {
        return false;
    }
    if (r.magic != COPRO_SAVE_MAGIC || r.version != COPRO_SAVE_VERSION ||
        r.dma_addr != e->desc.dma_addr || r.dma_len != e->desc.dma_len ||
        (r.offset & 3) || r.offset > e->desc.dma_len) {
        return restore_fail(e);
    }
    for (unsigned i = 0; i < COPRO_TARGET_SLOTS; i++) {
        struct sim_target *t = &e->targets[i];

        *t = (struct sim_target){
            .addr = r.targets[i].addr, .pitch = r.targets[i].pitch,
            .width = r.targets[i].width, .height = r.targets[i].height,
            .format = r.targets[i].format,
        };
        if (!sim_target_ok(t)) {
            memset(e->targets, 0, sizeof(e->targets));
            return restore_fail(e);
        }
    }
    e->pc = r.offset;
    e->in_packet = false;
    if (r.in_packet) {
        struct sim_packet *p = &e->cur;

        memset(p, 0, sizeof(*p));
        p->offset = r.offset;
        p->hdr = r.hdr;
        memcpy(p->dw, r.payload, sizeof(p->dw));
        p->progress = r.progress;
        if ((uint64_t)r.offset + COPRO_PKT_LEN(p->hdr) * 4 >
                e->desc.dma_len ||
            !sim_multi_step(COPRO_PKT_OP(p->hdr)) ||
            sim_header_check(e, p->hdr) || !sim_fields_ok(e) ||
            !sim_progress_ok(e)) {
            return restore_fail(e);
        }
        e->in_packet = true;
    }
    if (!sim_tiler_restore(e, &r)) {
        return restore_fail(e);
    }
    e->restore_pending = false;
    c = ctx_switch_ns(e);
    account(e, (int64_t)c);
    e->cursor += c;
    return true;
}
