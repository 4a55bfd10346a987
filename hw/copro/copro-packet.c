/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the packets an engine executes (docs/specs/copro.rst, "Packets")
 *
 * Each opcode has one entry in copro_packet_ops[]: its name, the checks of
 * its fields (made when it is fetched, and again on state from a save
 * record or a migration stream), the progress its steps can leave, the
 * modelled cost of its next step and the step itself. The engine loop
 * (copro-engine.c) knows packets only through this table; the tiler's
 * packets are copro-tiler.c's.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "copro-engine-internal.h"
#include "trace.h"

typedef struct CoproPacketOps {
    const char *name;
    /*
     * The checks that need no memory beyond the packet's header: false
     * earns COPRO_FAULT_BAD_PACKET (NULL: none)
     */
    bool (*fields_ok)(CoproEngine *e);
    /*
     * What the progress of a checked packet can be (NULL: single-step,
     * progress 0)
     */
    bool (*progress_ok)(CoproEngine *e);
    /*
     * The modelled cost of the next step, besides the packet cost of a
     * first step (NULL: nothing more)
     */
    uint64_t (*step_cost)(CoproEngine *e);
    /* the step, when the engine clock reaches its end */
    StepResult (*exec)(CoproEngine *e);
} CoproPacketOps;

static uint64_t copro_packet_cost(CoproEngine *e)
{
    return copro_modelled(e) ? e->dev->packet_ns : 0;
}

/*
 * Short packets: one step each
 */

static StepResult copro_exec_nop(CoproEngine *e)
{
    return STEP_DONE;
}

static StepResult copro_exec_timestamp(CoproEngine *e)
{
    CoproPacket *p = &e->cur;

    return copro_mem_write64(e, dw64(p, 0), e->cursor) ? STEP_DONE
                                                       : STEP_FAULT;
}

static StepResult copro_exec_interrupt(CoproEngine *e)
{
    e->user_data = e->cur.dw[0];
    copro_raise_irq(e->dev, COPRO_INT_ENG(e->index, COPRO_INT_USER));
    return STEP_DONE;
}

static StepResult copro_exec_fence(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproState *s = e->dev;

    if (!copro_mem_write64(e, dw64(p, 0), dw64(p, 2))) {
        return STEP_FAULT;
    }
    if (COPRO_PKT_FLAGS(p->hdr) & COPRO_FENCE_IRQ) {
        copro_raise_irq(s, COPRO_INT_ENG(e->index, COPRO_INT_FENCE));
    }
    copro_engines_fence_written(s);
    return STEP_DONE;
}

/*
 * WAIT: only its first check is charged (the packet cost); waiting is not
 * busy time. A WAIT that was checked once has progress 1.
 */
static StepResult copro_exec_wait(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t v;

    if (!copro_mem_read64(e, dw64(p, 0), &v)) {
        return STEP_FAULT;
    }
    p->progress = 1;
    return v >= dw64(p, 2) ? STEP_DONE : STEP_BLOCKED;
}

static bool copro_wait_progress_ok(CoproEngine *e)
{
    return e->cur.progress <= 1;
}

/*
 * Chunked packets: COPY, COPY_PTE and FILL move COPRO_CHUNK_BYTES a step
 */

static uint64_t copro_copy_cost(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t left = dw64(p, 4) - p->progress;

    return copro_cost(e, MIN(left, COPRO_CHUNK_BYTES), e->dev->copy_bw);
}

static bool copro_copy_progress_ok(CoproEngine *e)
{
    CoproPacket *p = &e->cur;

    return !p->progress || p->progress < dw64(p, 4);
}

static uint64_t copro_copy_pte_cost(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t left = (uint64_t)p->dw[4] * 8 - p->progress;

    return copro_cost(e, MIN(left, COPRO_CHUNK_BYTES), e->dev->copy_bw);
}

static bool copro_copy_pte_fields_ok(CoproEngine *e)
{
    CoproPacket *p = &e->cur;

    return !(dw64(p, 0) & 7) && !(dw64(p, 2) & 7) &&
           p->dw[4] <= COPRO_COPY_PTE_MAX;
}

static bool copro_copy_pte_progress_ok(CoproEngine *e)
{
    CoproPacket *p = &e->cur;

    return !(p->progress & 7) &&
           (!p->progress || p->progress < (uint64_t)p->dw[4] * 8);
}

static uint64_t copro_fill_cost(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t left = dw64(p, 2) - p->progress;

    return copro_cost(e, MIN(left, COPRO_CHUNK_BYTES), e->dev->fill_bw);
}

static bool copro_fill_fields_ok(CoproEngine *e)
{
    return !(dw64(&e->cur, 2) & 3);
}

static bool copro_fill_progress_ok(CoproEngine *e)
{
    CoproPacket *p = &e->cur;

    return !(p->progress & 3) &&
           (!p->progress || p->progress < dw64(p, 2));
}

/*
 * Copy the next chunk of the current packet's [src, src + size) to dst
 * (forward, through the engine's bounce buffer). Returns the bytes moved,
 * or -1 after a fault.
 */
static int64_t copro_copy_chunk(CoproEngine *e, uint64_t dst, uint64_t src,
                                uint64_t size)
{
    CoproPacket *p = &e->cur;
    uint64_t n = MIN(size - p->progress, COPRO_CHUNK_BYTES);

    if (n && (!copro_mem_read(e, copro_gpu_addr_add(src, p->progress),
                              e->bounce, n) ||
              !copro_mem_write(e, copro_gpu_addr_add(dst, p->progress),
                               e->bounce, n))) {
        return -1;
    }
    p->progress += n;
    e->tiler.stat_mem_read += n;
    e->tiler.stat_mem_write += n;
    return n;
}

static StepResult copro_exec_copy(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t size = dw64(p, 4);
    int64_t n = copro_copy_chunk(e, dw64(p, 0), dw64(p, 2), size);

    if (n < 0) {
        return STEP_FAULT;
    }
    e->stat_bytes += n;
    return p->progress < size ? STEP_MORE : STEP_DONE;
}

/*
 * COPY_PTE: copy page-table entries in 64 KiB chunks; every chunk drops
 * all cached translations of the device, so later accesses of any engine
 * see the new entries.
 */
static StepResult copro_exec_copy_pte(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t size = (uint64_t)p->dw[4] * 8;
    int64_t n = copro_copy_chunk(e, dw64(p, 0), dw64(p, 2), size);

    if (n < 0) {
        return STEP_FAULT;
    }
    if (n) {
        copro_mmu_flush(e->dev);
    }
    return p->progress < size ? STEP_MORE : STEP_DONE;
}

static StepResult copro_exec_fill(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t dst = dw64(p, 0), size = dw64(p, 2);
    uint32_t pattern = cpu_to_le32(p->dw[4]);
    uint64_t n = MIN(size - p->progress, COPRO_CHUNK_BYTES);

    if (n) {
        for (uint64_t i = 0; i < n; i += 4) {
            memcpy(e->bounce + i, &pattern, 4);
        }
        if (!copro_mem_write(e, copro_gpu_addr_add(dst, p->progress),
                             e->bounce, n)) {
            return STEP_FAULT;
        }
    }
    p->progress += n;
    e->stat_bytes += n;
    e->tiler.stat_mem_write += n;
    return p->progress < size ? STEP_MORE : STEP_DONE;
}

/*
 * Targets: SET_TARGET binds a surface, RECT fills a rectangle of one
 */

/* A bound (or unbound: format 0) surface the engine can draw into. */
bool copro_target_ok(const CoproTarget *t)
{
    uint32_t bpp = copro_fmt_bpp(t->format);

    if (!t->format) {
        return true;
    }
    return bpp && t->width <= COPRO_TARGET_MAX_DIM &&
           t->height <= COPRO_TARGET_MAX_DIM &&
           (uint64_t)t->width * bpp <= t->pitch;
}

static bool copro_check_set_target(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproTarget t = {
        .pitch = p->dw[2], .width = p->dw[3], .height = p->dw[4],
        .format = p->dw[5],
    };

    /* binding needs a real format: format 0 is only "unbound" state */
    return COPRO_PKT_FLAGS(p->hdr) < COPRO_TARGET_SLOTS &&
           copro_fmt_bpp(t.format) && copro_target_ok(&t);
}


/* Clip the RECT to its target; sets rect_* and returns false if invalid. */
bool copro_prepare_rect(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint32_t slot = COPRO_PKT_FLAGS(p->hdr);
    uint32_t x = p->dw[0], y = p->dw[1], w = p->dw[2], h = p->dw[3];
    CoproTarget *t;
    uint32_t bytes_per_row;

    if (slot >= COPRO_TARGET_SLOTS || !e->targets[slot].format) {
        return false;
    }
    t = &e->targets[slot];
    x = MIN(x, t->width);
    y = MIN(y, t->height);
    e->rect_x = x;
    e->rect_y = y;
    e->rect_w = MIN(w, t->width - x);
    e->rect_h = MIN(h, t->height - y);
    bytes_per_row = MAX(e->rect_w * copro_fmt_bpp(t->format), 1);
    e->rect_rows_step = MAX(COPRO_CHUNK_BYTES / bytes_per_row, 1);
    e->rect_rows_step = MIN(e->rect_rows_step, e->rect_h - p->progress);
    return true;
}

static StepResult copro_exec_rect(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproTarget *t = &e->targets[COPRO_PKT_FLAGS(p->hdr)];
    uint32_t bpp = copro_fmt_bpp(t->format);
    uint32_t colour = cpu_to_le32(p->dw[4]);
    uint64_t row_bytes = (uint64_t)e->rect_w * bpp;
    uint8_t *row = e->bounce;   /* a row is at most 16384 * 4 bytes */

    QEMU_BUILD_BUG_ON(COPRO_TARGET_MAX_DIM * 4 > COPRO_CHUNK_BYTES);
    if (row_bytes) {
        for (uint64_t i = 0; i < row_bytes; i += bpp) {
            memcpy(row + i, &colour, bpp);
        }
        for (uint32_t r = 0; r < e->rect_rows_step; r++) {
            uint64_t y = e->rect_y + p->progress + r;
            uint64_t addr = t->addr + y * t->pitch +
                            (uint64_t)e->rect_x * bpp;

            if (addr < t->addr) {
                /* beyond 2^64: must fault, not wrap around into VRAM */
                addr = UINT64_MAX;
            }
            if (!copro_mem_write(e, addr, row, row_bytes)) {
                return STEP_FAULT;
            }
            e->stat_bytes += row_bytes;
            e->tiler.stat_mem_write += row_bytes;
        }
    }
    p->progress += e->rect_rows_step;
    if (p->progress < e->rect_h) {
        e->rect_rows_step = MIN(e->rect_rows_step, e->rect_h - p->progress);
        return STEP_MORE;
    }
    return STEP_DONE;
}

static StepResult copro_exec_set_target(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproTarget *t = &e->targets[COPRO_PKT_FLAGS(p->hdr)];

    t->addr = dw64(p, 0);
    t->pitch = p->dw[2];
    t->width = p->dw[3];
    t->height = p->dw[4];
    t->format = p->dw[5];
    return STEP_DONE;
}

static uint64_t copro_rect_cost(CoproEngine *e)
{
    return copro_cost(e, (uint64_t)e->rect_rows_step * e->rect_w,
                      e->dev->pixel_rate);
}

static bool copro_rect_progress_ok(CoproEngine *e)
{
    CoproPacket *p = &e->cur;

    /* copro_packet_check() clipped it: rect_h is current */
    return !p->progress || p->progress < e->rect_h;
}

/*
 * WORK: modelled work of a given length, sliced at the arbitration
 * period so a long one can be preempted in the middle
 */

static uint64_t copro_work_cost(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t left = dw64(p, 0) - p->progress;

    return copro_modelled(e) ? MIN(left, e->dev->arbitration_ns) : 0;
}

static StepResult copro_exec_work(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint64_t v = dw64(p, 0) - p->progress;

    p->progress += copro_modelled(e) ? MIN(v, e->dev->arbitration_ns) : v;
    return p->progress < dw64(p, 0) ? STEP_MORE : STEP_DONE;
}

static bool copro_work_progress_ok(CoproEngine *e)
{
    CoproPacket *p = &e->cur;

    return !p->progress || p->progress < dw64(p, 0);
}

/*
 * The table. The tiler's packets (copro-tiler.c) share their cost, check
 * and step functions, which dispatch on the opcode; only TILE_RENDER has
 * several steps.
 */
#define COPRO_TILER_PACKET(op_name)                         \
    {                                                       \
        .name = op_name,                                    \
        .fields_ok = copro_tiler_fields_ok,                 \
        .step_cost = copro_tiler_step_cost,                 \
        .exec = copro_tiler_exec,                           \
    }

static const CoproPacketOps copro_packet_ops[] = {
    [COPRO_OP_NOP] = { .name = "NOP", .exec = copro_exec_nop },
    [COPRO_OP_TIMESTAMP] = {
        .name = "TIMESTAMP", .exec = copro_exec_timestamp,
    },
    [COPRO_OP_INTERRUPT] = {
        .name = "INTERRUPT", .exec = copro_exec_interrupt,
    },
    [COPRO_OP_FENCE] = { .name = "FENCE", .exec = copro_exec_fence },
    [COPRO_OP_WAIT] = {
        .name = "WAIT", .progress_ok = copro_wait_progress_ok,
        .exec = copro_exec_wait,
    },
    [COPRO_OP_COPY] = {
        .name = "COPY", .progress_ok = copro_copy_progress_ok,
        .step_cost = copro_copy_cost, .exec = copro_exec_copy,
    },
    [COPRO_OP_FILL] = {
        .name = "FILL", .fields_ok = copro_fill_fields_ok,
        .progress_ok = copro_fill_progress_ok,
        .step_cost = copro_fill_cost, .exec = copro_exec_fill,
    },
    [COPRO_OP_SET_TARGET] = {
        .name = "SET_TARGET", .fields_ok = copro_check_set_target,
        .exec = copro_exec_set_target,
    },
    [COPRO_OP_RECT] = {
        .name = "RECT", .fields_ok = copro_prepare_rect,
        .progress_ok = copro_rect_progress_ok,
        .step_cost = copro_rect_cost, .exec = copro_exec_rect,
    },
    [COPRO_OP_WORK] = {
        .name = "WORK", .progress_ok = copro_work_progress_ok,
        .step_cost = copro_work_cost, .exec = copro_exec_work,
    },
    [COPRO_OP_COPY_PTE] = {
        .name = "COPY_PTE", .fields_ok = copro_copy_pte_fields_ok,
        .progress_ok = copro_copy_pte_progress_ok,
        .step_cost = copro_copy_pte_cost, .exec = copro_exec_copy_pte,
    },
    [COPRO_OP_SCENE_BEGIN] = COPRO_TILER_PACKET("SCENE_BEGIN"),
    [COPRO_OP_BIN_RECT] = COPRO_TILER_PACKET("BIN_RECT"),
    [COPRO_OP_BIN_BLIT] = COPRO_TILER_PACKET("BIN_BLIT"),
    [COPRO_OP_SCENE_END] = COPRO_TILER_PACKET("SCENE_END"),
    [COPRO_OP_TILE_RENDER] = {
        .name = "TILE_RENDER", .fields_ok = copro_tiler_fields_ok,
        .progress_ok = copro_tiler_progress_ok,
        .step_cost = copro_tiler_step_cost, .exec = copro_tiler_exec,
    },
};

/* The operations of opcode @op, NULL if it is none. */
static const CoproPacketOps *copro_packet_ops_of(uint32_t op)
{
    if (op < ARRAY_SIZE(copro_packet_ops) && copro_packet_ops[op].name) {
        return &copro_packet_ops[op];
    }
    return NULL;
}

/* An opcode within the table (migration's first range check). */
bool copro_packet_op_in_range(uint32_t op)
{
    return op < ARRAY_SIZE(copro_packet_ops);
}

const char *copro_op_name(uint32_t op)
{
    const CoproPacketOps *ops = copro_packet_ops_of(op);

    return ops ? ops->name : "?";
}

/* Plan the next step of the current packet: returns its cost in ns. */
uint64_t copro_packet_step_cost(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    const CoproPacketOps *ops = copro_packet_ops_of(COPRO_PKT_OP(p->hdr));
    uint64_t first = p->progress == 0 ? copro_packet_cost(e) : 0;

    return first + (ops && ops->step_cost ? ops->step_cost(e) : 0);
}

/* Called when the engine clock reaches the end of the step. */
StepResult copro_packet_exec_step(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    const CoproPacketOps *ops = copro_packet_ops_of(COPRO_PKT_OP(p->hdr));

    trace_copro_packet_exec(e->index, copro_op_name(COPRO_PKT_OP(p->hdr)),
                            p->offset, p->progress);
    g_assert(ops && ops->exec);
    return ops->exec(e);
}

/*
 * The checks of the current packet that need no memory, as the fault kind
 * it earns (0: it can execute). Made when it is fetched, and again
 * wherever packet state comes from elsewhere (a RESUME save record, a
 * migration stream), since the execution steps dispatch on the opcode,
 * index targets and size the bounce buffer by these fields. RECT is
 * clipped here.
 */
static uint32_t copro_packet_header_check(CoproEngine *e, uint32_t hdr)
{
    uint32_t op = COPRO_PKT_OP(hdr), len = COPRO_PKT_LEN(hdr);

    if (!copro_packet_ops_of(op) ||
        (e->index == COPRO_ENGINE_COPY && !(COPRO_COPY_ENGINE_OPS & BIT(op)))) {
        return COPRO_FAULT_ILLEGAL_OPCODE;
    }
    if (len == 0 || (copro_packet_len(op) && len != copro_packet_len(op))) {
        return COPRO_FAULT_BAD_LENGTH;
    }
    return COPRO_FAULT_NONE;
}

static bool copro_packet_fields_ok(CoproEngine *e)
{
    const CoproPacketOps *ops = copro_packet_ops_of(COPRO_PKT_OP(e->cur.hdr));

    return !ops || !ops->fields_ok || ops->fields_ok(e);
}

uint32_t copro_packet_check(CoproEngine *e)
{
    uint32_t kind = copro_packet_header_check(e, e->cur.hdr);

    if (kind) {
        return kind;
    }
    return copro_packet_fields_ok(e) ? COPRO_FAULT_NONE
                                     : COPRO_FAULT_BAD_PACKET;
}

/*
 * Progress of the current (checked) packet: what its steps can have left
 * it at. Multi-step packets stop short of their size (a finished packet
 * retires at once) and advance in whole units; single-step packets have
 * none, but a WAIT that was checked once has 1.
 */
bool copro_packet_progress_ok(CoproEngine *e)
{
    const CoproPacketOps *ops = copro_packet_ops_of(COPRO_PKT_OP(e->cur.hdr));

    return ops && ops->progress_ok ? ops->progress_ok(e) : !e->cur.progress;
}

/* Fetch and validate the packet at pc. */
bool copro_packet_fetch(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint32_t hdr, len, kind;
    uint64_t at = copro_gpu_addr_add(e->desc.dma_addr, e->pc);

    if (e->inject & COPRO_INJECT_FAULT_NEXT) {
        e->inject &= ~COPRO_INJECT_FAULT_NEXT;
        copro_engine_fault(e, COPRO_FAULT_INJECTED, at, 0);
        return false;
    }
    if (e->desc.dma_len - e->pc < 4) {
        copro_engine_fault(e, COPRO_FAULT_BUFFER_OVERRUN, at, 0);
        return false;
    }
    if (!copro_mem_read(e, at, &hdr, 4)) {
        return false;
    }
    hdr = le32_to_cpu(hdr);
    len = COPRO_PKT_LEN(hdr);
    kind = copro_packet_header_check(e, hdr);
    if (kind) {
        copro_engine_fault(e, kind, at, 0);
        return false;
    }
    if ((uint64_t)len * 4 > e->desc.dma_len - e->pc) {
        copro_engine_fault(e, COPRO_FAULT_BUFFER_OVERRUN, at, 0);
        return false;
    }
    memset(p, 0, sizeof(*p));
    p->offset = e->pc;
    p->hdr = hdr;
    if (COPRO_PKT_OP(hdr) != COPRO_OP_NOP && len > 1) {
        if (!copro_mem_read(e, copro_gpu_addr_add(at, 4), p->dw,
                            (len - 1) * 4)) {
            return false;
        }
        for (unsigned i = 0; i < len - 1; i++) {
            p->dw[i] = le32_to_cpu(p->dw[i]);
        }
    }

    if (!copro_packet_fields_ok(e)) {
        copro_engine_fault(e, COPRO_FAULT_BAD_PACKET, at, 0);
        return false;
    }
    e->in_packet = true;
    return true;
}
