/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copro GPU model. The engine loop follows hw/copro/copro-engine.c
 * step for step (the same order of arbitration, load, restore,
 * completion and fetch; the same charging of a step at its start), so
 * that preemption lands at the same points with the same fences.
 */
#include "sim_gpu.h"

#include <stdlib.h>
#include <string.h>

#define GIB     (1024ull * 1024 * 1024)

void sim_gpu_config_default(struct sim_gpu_config *c)
{
    *c = (struct sim_gpu_config){
        .engines = 2,
        .preemption = COPRO_PREEMPT_MID_COMMAND,
        .ring_entries = 64,
        .packet_ns = 100,
        .copy_bw = 8 * GIB,
        .fill_bw = 16 * GIB,
        .pixel_rate = 4000000000ull,
        .arbitration_ns = 100000,
        .ctx_state_size = 256 * 1024,
        .upcall_ns = 0,
        .mem_size = 16 << 20,
    };
}

enum step { STEP_DONE, STEP_MORE, STEP_BLOCKED, STEP_FAULT };
enum irq { IRQ_DMA_DONE, IRQ_PREEMPTED, IRQ_FAULT, IRQ_TILER_OOM };

static uint64_t now_of(const struct sim_engine *e)
{
    return e->g->clk->now;
}

static uint64_t dw64(const struct sim_packet *p, unsigned i)
{
    return p->dw[i] | (uint64_t)p->dw[i + 1] << 32;
}

/* units at rate per second, in ns (128-bit, as the device) */
static uint64_t cost(uint64_t units, uint64_t rate)
{
    unsigned __int128 ns = (unsigned __int128)units * 1000000000u / rate;

    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static uint64_t ctx_switch_ns(const struct sim_engine *e)
{
    return cost(e->g->cfg.ctx_state_size, e->g->cfg.copy_bw);
}

/* Charged when a step starts, to the engine and the submission's
 * context (the device's STAT_BUSY_NS and per-context busy time). */
static void account(struct sim_engine *e, int64_t ns)
{
    e->busy_ns += ns;
    if (e->active && e->desc.context < SIM_MAX_CTX_ID) {
        e->g->ctx_busy_ns[e->desc.context] += ns;
    }
}

/* ---- memory ---- */

/*
 * The host bytes behind GPU address addr, and in *run how many of len
 * follow contiguously there (to VRAM's end, or the aperture page's);
 * NULL if addr is not backed (outside VRAM, unmapped aperture page).
 */
static uint8_t *xlate(const struct sim_gpu *g, uint64_t addr, uint64_t len,
                      uint64_t *run)
{
    uint64_t off, in, phys;

    if (addr < g->cfg.mem_size) {
        *run = len < g->cfg.mem_size - addr ? len : g->cfg.mem_size - addr;
        return g->mem + addr;
    }
    off = addr - g->cfg.aperture_base;
    if (!g->gart || addr < g->cfg.aperture_base ||
        off >= g->cfg.aperture_size) {
        return NULL;
    }
    phys = g->gart[off / COPRO_GPU_PAGE_SIZE];
    if (!phys) {
        return NULL;
    }
    in = off % COPRO_GPU_PAGE_SIZE;
    *run = len < COPRO_GPU_PAGE_SIZE - in ? len : COPRO_GPU_PAGE_SIZE - in;
    return g->sys + (phys - SIM_SYS_PHYS) + in;
}

static bool mem_ok(const struct sim_gpu *g, uint64_t addr, uint64_t len)
{
    uint64_t run = 0;

    if (addr <= g->cfg.mem_size && len <= g->cfg.mem_size - addr) {
        return true;
    }
    if (addr + len < addr) {
        return false;
    }
    while (len) {
        if (!xlate(g, addr, len, &run)) {
            return false;
        }
        addr += run;
        len -= run;
    }
    return true;
}

/* Copies len bytes between the GPU address space and buf, piecewise
 * (the caller checked mem_ok). */
static void mem_copy(struct sim_gpu *g, uint64_t addr, void *buf,
                     uint64_t len, bool write)
{
    uint8_t *b = buf;
    uint64_t run = 0;

    while (len) {
        uint8_t *m = xlate(g, addr, len, &run);

        if (write) {
            memcpy(m, b, run);
        } else {
            memcpy(b, m, run);
        }
        addr += run;
        b += run;
        len -= run;
    }
}

static bool discarded(const struct sim_gpu *g, uint64_t addr, uint64_t len)
{
    return g->cfg.discard_size && addr >= g->cfg.discard_base &&
           addr - g->cfg.discard_base <= g->cfg.discard_size &&
           len <= g->cfg.discard_size - (addr - g->cfg.discard_base);
}

static void engine_fault(struct sim_engine *e, uint32_t kind, uint64_t addr);
static void raise_irq(struct sim_engine *e, enum irq irq);

static bool mem_read(struct sim_engine *e, uint64_t addr, void *buf,
                     uint64_t len)
{
    if (!mem_ok(e->g, addr, len)) {
        engine_fault(e, COPRO_FAULT_TRANSLATION, addr);
        return false;
    }
    mem_copy(e->g, addr, buf, len, false);
    return true;
}

static bool mem_write(struct sim_engine *e, uint64_t addr, const void *buf,
                      uint64_t len)
{
    if (!mem_ok(e->g, addr, len)) {
        engine_fault(e, COPRO_FAULT_TRANSLATION, addr);
        return false;
    }
    mem_copy(e->g, addr, (void *)buf, len, true);
    return true;
}

uint64_t sim_gpu_alloc(struct sim_gpu *g, uint64_t bytes, uint64_t align)
{
    uint64_t at = (g->mem_used + align - 1) & ~(align - 1);

    if (at > g->cfg.mem_size || bytes > g->cfg.mem_size - at) {
        return UINT64_MAX;
    }
    g->mem_used = at + bytes;
    memset(g->mem + at, 0, bytes);
    return at;
}

/* ---- the engine's timer and interrupts ---- */

static void engine_run(struct sim_engine *e);

static void wake(struct sim_engine *e)
{
    e->step_pending = true;
    e->state = SIM_ENG_BUSY;
    e->cursor = now_of(e);
}

static void timer_cb(void *obj, uint64_t gen)
{
    struct sim_engine *e = obj;

    if (gen != e->timer_gen) {
        return;     /* re-armed or deleted since */
    }
    /* a pending preemption takes a blocked WAIT before it is re-checked */
    if (e->state == SIM_ENG_WAITING && !e->preempt_pending) {
        wake(e);
    }
    engine_run(e);
}

static void timer_mod(struct sim_engine *e, uint64_t when)
{
    sim_at(e->g->clk, when, timer_cb, e, ++e->timer_gen);
}

static void timer_del(struct sim_engine *e)
{
    e->timer_gen++;
}

static void kick(struct sim_engine *e)
{
    timer_mod(e, now_of(e));
}

static void fence_written(struct sim_gpu *g)
{
    for (unsigned i = 0; i < g->cfg.engines; i++) {
        struct sim_engine *e = &g->engine[i];

        if (e->state == SIM_ENG_WAITING) {
            wake(e);
            kick(e);
        }
    }
}

/* The DPC: reads the registers when it runs, as a driver's does. */
static void deliver_cb(void *obj, uint64_t irq)
{
    struct sim_engine *e = obj;
    struct sim_gpu *g = e->g;

    if (irq == IRQ_TILER_OOM) {
        e->oom_unreported = false;
    }
    if (!g->up) {
        return;
    }
    switch (irq) {
    case IRQ_DMA_DONE:
        g->up->dma_completed(g->os, e->index, e->completed_fence);
        break;
    case IRQ_PREEMPTED:
        g->up->preempted(g->os, e->index, e->preempt_fence,
                         e->preempted_fence, e->completed_fence);
        break;
    case IRQ_TILER_OOM:
        if (g->up->tiler_oom) {
            g->up->tiler_oom(g->os, e->index, e->oom_fence, SIM_OOM_NEED,
                             e->completed_fence);
        }
        break;
    case IRQ_FAULT: {
        struct ddi_fault f = {
            .kind = e->fault_kind, .context = e->fault_context,
            .fence = e->fault_fence, .addr = e->fault_addr,
            .offset = e->fault_offset,
        };

        g->up->faulted(g->os, e->index, &f);
        break;
    }
    }
}

static void raise_irq(struct sim_engine *e, enum irq irq)
{
    sim_at(e->g->clk, now_of(e) + e->g->cfg.upcall_ns, deliver_cb, e, irq);
}

static void engine_fault(struct sim_engine *e, uint32_t kind, uint64_t addr)
{
    e->fault_kind = kind;
    e->fault_addr = addr;
    e->fault_offset = e->pc;
    e->fault_fence = e->active ? e->desc.fence : 0;
    e->fault_context = e->active ? e->desc.context : 0;
    e->faults++;
    e->state = SIM_ENG_HALTED;
    timer_del(e);
    if (e->g->obs && e->g->obs->faulted) {
        e->g->obs->faulted(e->g->obs_arg, e->index,
                           e->active ? &e->desc : NULL, kind);
    }
    raise_irq(e, IRQ_FAULT);
}

/* ---- packets ---- */

/*
 * The tiling path's packets (SCENE_BEGIN .. TILE_RENDER) are not modelled:
 * this GPU is a copro without COPRO_CAP_TILER, which refuses them as
 * ILLEGAL_OPCODE. What scheduling needs of a tiler, its OOM stops, is
 * injected (SIM_INJECT_OOM).
 */
#define SIM_SCENE_OPS   ((2u << COPRO_OP_TILE_RENDER) - \
                         (1u << COPRO_OP_SCENE_BEGIN))

static uint32_t engine_ops(const struct sim_engine *e)
{
    return e->index == COPRO_ENGINE_COPY
           ? COPRO_COPY_ENGINE_OPS
           : ((2u << COPRO_OP_LAST) - 1) & ~SIM_SCENE_OPS;
}

static uint32_t header_check(const struct sim_engine *e, uint32_t hdr)
{
    uint32_t op = COPRO_PKT_OP(hdr), len = COPRO_PKT_LEN(hdr);

    if (op > COPRO_OP_LAST || !(engine_ops(e) & (1u << op))) {
        return COPRO_FAULT_ILLEGAL_OPCODE;
    }
    if (len == 0 || (copro_packet_len(op) && len != copro_packet_len(op))) {
        return COPRO_FAULT_BAD_LENGTH;
    }
    return COPRO_FAULT_NONE;
}

static bool target_ok(const struct sim_target *t)
{
    uint32_t bpp = copro_fmt_bpp(t->format);

    if (!t->format) {
        return true;
    }
    return bpp && t->width <= COPRO_TARGET_MAX_DIM &&
           t->height <= COPRO_TARGET_MAX_DIM &&
           (uint64_t)t->width * bpp <= t->pitch;
}

static bool prepare_rect(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    uint32_t slot = COPRO_PKT_FLAGS(p->hdr);
    struct sim_target *t;
    uint32_t x, y, bytes_per_row;

    if (slot >= COPRO_TARGET_SLOTS || !e->targets[slot].format) {
        return false;
    }
    t = &e->targets[slot];
    x = p->dw[0] < t->width ? p->dw[0] : t->width;
    y = p->dw[1] < t->height ? p->dw[1] : t->height;
    e->rect_x = x;
    e->rect_y = y;
    e->rect_w = p->dw[2] < t->width - x ? p->dw[2] : t->width - x;
    e->rect_h = p->dw[3] < t->height - y ? p->dw[3] : t->height - y;
    bytes_per_row = e->rect_w * copro_fmt_bpp(t->format);
    if (!bytes_per_row) {
        bytes_per_row = 1;
    }
    e->rect_rows_step = SIM_CHUNK_BYTES / bytes_per_row;
    if (!e->rect_rows_step) {
        e->rect_rows_step = 1;
    }
    if (e->rect_rows_step > e->rect_h - p->progress) {
        e->rect_rows_step = e->rect_h - p->progress;
    }
    return true;
}

static bool fields_ok(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    struct sim_target t;

    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_FILL:
        return !(dw64(p, 2) & 3);
    case COPRO_OP_COPY_PTE:
        return !(dw64(p, 0) & 7) && !(dw64(p, 2) & 7) &&
               p->dw[4] <= COPRO_COPY_PTE_MAX;
    case COPRO_OP_SET_TARGET:
        t = (struct sim_target){ .pitch = p->dw[2], .width = p->dw[3],
                                 .height = p->dw[4], .format = p->dw[5] };
        return COPRO_PKT_FLAGS(p->hdr) < COPRO_TARGET_SLOTS &&
               copro_fmt_bpp(t.format) && target_ok(&t);
    case COPRO_OP_RECT:
        return prepare_rect(e);
    default:
        return true;
    }
}

static bool multi_step(uint32_t op)
{
    return op == COPRO_OP_COPY || op == COPRO_OP_FILL ||
           op == COPRO_OP_COPY_PTE || op == COPRO_OP_RECT ||
           op == COPRO_OP_WORK;
}

static bool progress_ok(const struct sim_engine *e)
{
    const struct sim_packet *p = &e->cur;

    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_COPY:
        return !p->progress || p->progress < dw64(p, 4);
    case COPRO_OP_FILL:
        return !(p->progress & 3) &&
               (!p->progress || p->progress < dw64(p, 2));
    case COPRO_OP_WORK:
        return !p->progress || p->progress < dw64(p, 0);
    case COPRO_OP_COPY_PTE:
        return !(p->progress & 7) &&
               (!p->progress || p->progress < (uint64_t)p->dw[4] * 8);
    case COPRO_OP_RECT:
        return !p->progress || p->progress < e->rect_h;
    case COPRO_OP_WAIT:
        return p->progress <= 1;
    default:
        return !p->progress;
    }
}

static bool fetch_packet(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    uint64_t at = e->desc.dma_addr + e->pc;
    uint32_t hdr, len, kind;

    if (e->desc.dma_len - e->pc < 4) {
        engine_fault(e, COPRO_FAULT_BUFFER_OVERRUN, at);
        return false;
    }
    if (!mem_read(e, at, &hdr, 4)) {
        return false;
    }
    len = COPRO_PKT_LEN(hdr);
    kind = header_check(e, hdr);
    if (kind) {
        engine_fault(e, kind, at);
        return false;
    }
    if ((uint64_t)len * 4 > e->desc.dma_len - e->pc) {
        engine_fault(e, COPRO_FAULT_BUFFER_OVERRUN, at);
        return false;
    }
    memset(p, 0, sizeof(*p));
    p->offset = e->pc;
    p->hdr = hdr;
    if (COPRO_PKT_OP(hdr) != COPRO_OP_NOP && len > 1 &&
        !mem_read(e, at + 4, p->dw, (len - 1) * 4)) {
        return false;
    }
    if (!fields_ok(e)) {
        engine_fault(e, COPRO_FAULT_BAD_PACKET, at);
        return false;
    }
    e->in_packet = true;
    return true;
}

static uint64_t step_cost(const struct sim_engine *e)
{
    const struct sim_packet *p = &e->cur;
    const struct sim_gpu_config *c = &e->g->cfg;
    uint64_t first = p->progress == 0 ? c->packet_ns : 0, left;

    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_COPY:
        left = dw64(p, 4) - p->progress;
        return first + cost(left < SIM_CHUNK_BYTES ? left : SIM_CHUNK_BYTES,
                            c->copy_bw);
    case COPRO_OP_FILL:
        left = dw64(p, 2) - p->progress;
        return first + cost(left < SIM_CHUNK_BYTES ? left : SIM_CHUNK_BYTES,
                            c->fill_bw);
    case COPRO_OP_COPY_PTE:
        left = (uint64_t)p->dw[4] * 8 - p->progress;
        return first + cost(left < SIM_CHUNK_BYTES ? left : SIM_CHUNK_BYTES,
                            c->copy_bw);
    case COPRO_OP_RECT:
        return first + cost((uint64_t)e->rect_rows_step * e->rect_w,
                            c->pixel_rate);
    case COPRO_OP_WORK:
        left = dw64(p, 0) - p->progress;
        return first + (left < c->arbitration_ns ? left : c->arbitration_ns);
    case COPRO_OP_WAIT:
        return p->progress == 0 ? first : 0;
    default:
        return first;
    }
}

static enum step copy_chunk(struct sim_engine *e, uint64_t dst, uint64_t src,
                            uint64_t size)
{
    struct sim_packet *p = &e->cur;
    uint64_t n = size - p->progress;

    if (n > SIM_CHUNK_BYTES) {
        n = SIM_CHUNK_BYTES;
    }
    if (n) {
        if (!mem_ok(e->g, src + p->progress, n)) {
            engine_fault(e, COPRO_FAULT_TRANSLATION, src + p->progress);
            return STEP_FAULT;
        }
        if (!mem_ok(e->g, dst + p->progress, n)) {
            engine_fault(e, COPRO_FAULT_TRANSLATION, dst + p->progress);
            return STEP_FAULT;
        }
        if (!discarded(e->g, dst + p->progress, n)) {
            uint64_t s = src + p->progress, d = dst + p->progress, left = n;

            while (left) {
                uint64_t rs, rd, run;
                uint8_t *ms = xlate(e->g, s, left, &rs);
                uint8_t *md = xlate(e->g, d, left, &rd);

                run = rs < rd ? rs : rd;
                memmove(md, ms, run);
                s += run;
                d += run;
                left -= run;
            }
        }
    }
    p->progress += n;
    return p->progress < size ? STEP_MORE : STEP_DONE;
}

static enum step exec_fill(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    uint64_t dst = dw64(p, 0), size = dw64(p, 2), n = size - p->progress;

    if (n > SIM_CHUNK_BYTES) {
        n = SIM_CHUNK_BYTES;
    }
    if (n) {
        uint8_t *m;

        if (!mem_ok(e->g, dst + p->progress, n)) {
            engine_fault(e, COPRO_FAULT_TRANSLATION, dst + p->progress);
            return STEP_FAULT;
        }
        if (!discarded(e->g, dst + p->progress, n)) {
            uint64_t d = dst + p->progress, left = n, run;

            /* per contiguous piece (4-byte aligned: pages break at 4 KiB),
             * the pattern, then doubling copies of it */
            while (left) {
                uint64_t done = 4;

                m = xlate(e->g, d, left, &run);
                memcpy(m, &p->dw[4], run < 4 ? run : 4);
                while (done < run) {
                    uint64_t c = done < run - done ? done : run - done;

                    memcpy(m + done, m, c);
                    done += c;
                }
                d += run;
                left -= run;
            }
        }
    }
    p->progress += n;
    return p->progress < size ? STEP_MORE : STEP_DONE;
}

static enum step exec_rect(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    struct sim_target *t = &e->targets[COPRO_PKT_FLAGS(p->hdr)];
    uint32_t bpp = copro_fmt_bpp(t->format);
    uint64_t row_bytes = (uint64_t)e->rect_w * bpp;

    for (uint32_t r = 0; row_bytes && r < e->rect_rows_step; r++) {
        uint64_t y = e->rect_y + p->progress + r;
        uint64_t addr = t->addr + y * t->pitch + (uint64_t)e->rect_x * bpp;

        if (!mem_ok(e->g, addr, row_bytes)) {
            engine_fault(e, COPRO_FAULT_TRANSLATION, addr);
            return STEP_FAULT;
        }
        for (uint64_t i = 0; i < row_bytes; i += bpp) {
            mem_copy(e->g, addr + i, &p->dw[4], bpp, true);
        }
    }
    p->progress += e->rect_rows_step;
    if (p->progress < e->rect_h) {
        if (e->rect_rows_step > e->rect_h - p->progress) {
            e->rect_rows_step = e->rect_h - p->progress;
        }
        return STEP_MORE;
    }
    return STEP_DONE;
}

static enum step exec_step(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    struct sim_target *t;
    uint64_t v;

    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_NOP:
    case COPRO_OP_INTERRUPT:    /* USER: no DDI upcall for it */
        return STEP_DONE;
    case COPRO_OP_TIMESTAMP:
        v = e->cursor;
        return mem_write(e, dw64(p, 0), &v, 8) ? STEP_DONE : STEP_FAULT;
    case COPRO_OP_FENCE:
        v = dw64(p, 2);
        if (!mem_write(e, dw64(p, 0), &v, 8)) {
            return STEP_FAULT;
        }
        fence_written(e->g);
        return STEP_DONE;
    case COPRO_OP_WAIT:
        if (!mem_read(e, dw64(p, 0), &v, 8)) {
            return STEP_FAULT;
        }
        p->progress = 1;
        return v >= dw64(p, 2) ? STEP_DONE : STEP_BLOCKED;
    case COPRO_OP_COPY:
        return copy_chunk(e, dw64(p, 0), dw64(p, 2), dw64(p, 4));
    case COPRO_OP_COPY_PTE:
        return copy_chunk(e, dw64(p, 0), dw64(p, 2), (uint64_t)p->dw[4] * 8);
    case COPRO_OP_FILL:
        return exec_fill(e);
    case COPRO_OP_SET_TARGET:
        t = &e->targets[COPRO_PKT_FLAGS(p->hdr)];
        *t = (struct sim_target){ .addr = dw64(p, 0), .pitch = p->dw[2],
                                  .width = p->dw[3], .height = p->dw[4],
                                  .format = p->dw[5] };
        return STEP_DONE;
    case COPRO_OP_RECT:
        return exec_rect(e);
    case COPRO_OP_WORK:
        v = dw64(p, 0) - p->progress;
        p->progress += v < e->g->cfg.arbitration_ns ? v
                                                    : e->g->cfg.arbitration_ns;
        return p->progress < dw64(p, 0) ? STEP_MORE : STEP_DONE;
    }
    return STEP_DONE;
}

/* ---- submissions ---- */

static bool load_submission(struct sim_engine *e)
{
    struct copro_submit_desc *d = &e->desc;
    uint32_t size = e->g->cfg.ring_entries;

    e->pc = 0;
    *d = e->ring[e->head];
    e->head = (e->head + 1) & (size - 1);
    e->active = true;
    if ((d->dma_addr & 3) || (d->dma_len & 3) || d->dma_len > COPRO_DMA_MAX ||
        (d->flags & ~COPRO_SUBMIT_FLAGS_KNOWN) || d->reserved0 ||
        d->reserved1[0] || d->reserved1[1] || d->reserved1[2]) {
        engine_fault(e, COPRO_FAULT_BAD_DESCRIPTOR, 0);
        return false;
    }
    e->restore_pending = d->flags & COPRO_SUBMIT_RESUME;
    if (e->g->obs && e->g->obs->loaded) {
        e->g->obs->loaded(e->g->obs_arg, e->index, d);
    }
    return true;
}

static void complete_submission(struct sim_engine *e)
{
    e->completed_fence = e->desc.fence;
    e->submissions++;
    e->active = false;
    if (e->g->obs && e->g->obs->retired) {
        e->g->obs->retired(e->g->obs_arg, e->index, &e->desc);
    }
    if (!(e->desc.flags & COPRO_SUBMIT_NO_IRQ)) {
        raise_irq(e, IRQ_DMA_DONE);
    }
    fence_written(e->g);
}

static bool restore_fail(struct sim_engine *e)
{
    engine_fault(e, COPRO_FAULT_BAD_SAVE, e->desc.save_addr);
    return false;
}

/* RESUME: the save record, checked as the device checks it. */
static bool restore(struct sim_engine *e)
{
    struct copro_save_record r;
    uint64_t c;

    if (!mem_read(e, e->desc.save_addr, &r, sizeof(r))) {
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
        if (!target_ok(t)) {
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
            !multi_step(COPRO_PKT_OP(p->hdr)) ||
            header_check(e, p->hdr) || !fields_ok(e) || !progress_ok(e)) {
            return restore_fail(e);
        }
        e->in_packet = true;
    }
    e->restore_pending = false;
    c = ctx_switch_ns(e);
    account(e, (int64_t)c);
    e->cursor += c;
    return true;
}

/* ---- preemption ---- */

static bool at_arbitration_point(const struct sim_engine *e)
{
    if (!e->active) {
        /* legacy hardware only stops once everything queued has run */
        return e->g->cfg.preemption != COPRO_PREEMPT_NONE ||
               e->head == e->tail;
    }
    if (e->desc.flags & COPRO_SUBMIT_PAGING) {
        return false;
    }
    switch (e->g->cfg.preemption) {
    case COPRO_PREEMPT_COMMAND:
        return !e->in_packet || COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_WAIT;
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

static void notify_stop(struct sim_engine *e, bool reset)
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

static void save_record(struct sim_engine *e, struct copro_save_record *r)
{
    bool mid = e->in_packet && e->cur.progress &&
               multi_step(COPRO_PKT_OP(e->cur.hdr));

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
}

static void preempt_now(struct sim_engine *e)
{
    uint64_t latency = now_of(e) - e->preempt_req_time;

    if (e->active) {
        struct copro_save_record r;

        save_record(e, &r);
        if (!mem_write(e, e->desc.save_addr, &r, sizeof(r))) {
            return;     /* faulted: halted */
        }
        e->preempted_fence = e->desc.fence;
    } else {
        e->preempted_fence = 0;
    }
    notify_stop(e, false);
    e->head = e->tail;          /* queued entries dropped */
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->preempt_saving = false;
    e->pc = 0;
    timer_del(e);
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
    raise_irq(e, IRQ_PREEMPTED);
}

static bool arbitrate(struct sim_engine *e, uint64_t now)
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
        timer_mod(e, e->cursor);
        return true;
    }
    preempt_now(e);
    return true;
}

/* ---- injection ---- */

static bool injected(struct sim_engine *e, enum sim_inject_kind kind)
{
    struct sim_gpu *g = e->g;

    for (unsigned i = 0; i < g->ninject; i++) {
        if (g->inject[i].dma_addr == e->desc.dma_addr &&
            g->inject[i].offset == e->pc && g->inject[i].kind == kind) {
            return true;
        }
    }
    return false;
}

/* The injected OOM at this packet, if it has not fired yet (it fires
 * once: the resumed submission bins the primitive into the grown
 * buffer). */
static bool oom_injected(struct sim_engine *e)
{
    struct sim_gpu *g = e->g;

    for (unsigned i = 0; i < g->ninject; i++) {
        if (g->inject[i].dma_addr == e->desc.dma_addr &&
            g->inject[i].offset == e->pc &&
            g->inject[i].kind == SIM_INJECT_OOM && !g->inject[i].fired) {
            g->inject[i].fired = true;
            return true;
        }
    }
    return false;
}

/*
 * TILER_OOM (docs/specs/copro.rst "Parameter buffer full"): the
 * submission stops before the packet as a preemption stops it (save
 * record, queued entries dropped, idle) but is not one: PREEMPTED is not
 * raised for it; a request pending then completes right after, with
 * nothing to interrupt.
 */
static void oom_stop(struct sim_engine *e)
{
    struct copro_save_record r;

    save_record(e, &r);
    if (!mem_write(e, e->desc.save_addr, &r, sizeof(r))) {
        return;     /* faulted: halted */
    }
    e->oom_fence = e->desc.fence;
    e->ooms++;
    e->oom_unreported = true;
    notify_stop(e, false);
    e->head = e->tail;
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->pc = 0;
    timer_del(e);
    e->state = SIM_ENG_IDLE;
    raise_irq(e, IRQ_TILER_OOM);
    if (e->preempt_pending) {
        preempt_now(e);
    }
}

/* ---- the engine loop (copro_engine_run) ---- */

static void engine_run(struct sim_engine *e)
{
    uint64_t now = now_of(e);

    if (e->state == SIM_ENG_HALTED) {
        return;
    }
    if (!e->step_pending && e->cursor < now) {
        e->cursor = now;    /* restarts after an idle or blocked period */
    }
    for (;;) {
        if (e->hung && e->active) {
            e->state = SIM_ENG_BUSY;
            timer_del(e);
            return;
        }
        if (e->step_pending) {
            enum step r;

            if (e->cursor > now) {
                timer_mod(e, e->cursor);
                return;
            }
            e->step_pending = false;
            r = exec_step(e);
            switch (r) {
            case STEP_FAULT:
                return;
            case STEP_BLOCKED:
                e->state = SIM_ENG_WAITING;
                e->cursor = now;
                timer_mod(e, now + SIM_WAIT_POLL_NS);
                return;
            case STEP_DONE:
                e->packets++;
                e->in_packet = false;
                e->pc += COPRO_PKT_LEN(e->cur.hdr) * 4;
                break;
            case STEP_MORE:
                break;
            }
            continue;
        }
        /* every step boundary is a potential arbitration point */
        if (e->preempt_pending && arbitrate(e, now)) {
            return;
        }
        if (!e->active) {
            if (e->head == e->tail) {
                e->state = SIM_ENG_IDLE;
                return;
            }
            if (!load_submission(e)) {
                return;
            }
        }
        if (e->restore_pending && !restore(e)) {
            return;
        }
        e->state = SIM_ENG_BUSY;
        if (!e->in_packet) {
            if (e->pc >= e->desc.dma_len) {
                complete_submission(e);
                continue;
            }
            if (oom_injected(e)) {
                oom_stop(e);
                return;
            }
            if (injected(e, SIM_INJECT_HANG)) {
                e->hung = true;
                if (e->g->obs && e->g->obs->hung) {
                    e->g->obs->hung(e->g->obs_arg, e->index, &e->desc);
                }
                continue;
            }
            if (injected(e, SIM_INJECT_FAULT)) {
                engine_fault(e, COPRO_FAULT_INJECTED,
                             e->desc.dma_addr + e->pc);
                return;
            }
            if (!fetch_packet(e)) {
                return;
            }
        }
        {
            uint64_t c = step_cost(e);

            account(e, (int64_t)c);
            e->cursor += c;
            e->step_pending = true;
        }
    }
}

/* ---- the DDI ---- */

static void gpu_query_caps(void *drv, struct ddi_caps *caps)
{
    struct sim_gpu *g = drv;

    *caps = (struct ddi_caps){
        .engines = g->cfg.engines, .preemption = g->cfg.preemption,
        .ring_entries = g->cfg.ring_entries, .vram_size = g->cfg.mem_size,
        .max_dma_bytes = COPRO_DMA_MAX,
        .aperture_base = g->cfg.aperture_base,
        .aperture_size = g->gart ? g->cfg.aperture_size : 0,
    };
    for (unsigned i = 0; i < g->cfg.engines; i++) {
        caps->engine_ops[i] = engine_ops(&g->engine[i]);
    }
}

/* Structural validation only (opcodes allowed on the engine, lengths,
 * patch locations inside the buffer): the kernel's render validator
 * (bounds of every access against its allocation) is the driver's. */
static int gpu_render(void *drv, const struct ddi_render_args *a,
                      struct ddi_dmabuf *out)
{
    struct sim_gpu *g = drv;
    uint32_t at = 0, n = a->cmd_bytes / 4;

    if (a->engine >= g->cfg.engines || (a->cmd_bytes & 3) ||
        a->cmd_bytes > out->cap_bytes || a->nalloc > DDI_MAX_ALLOC_LIST ||
        a->npatch > DDI_MAX_PATCH_LIST) {
        return DDI_EINVAL;
    }
    while (at < n) {
        uint32_t hdr = a->cmd[at], len = COPRO_PKT_LEN(hdr);
        struct sim_engine probe = { .g = g, .index = a->engine };

        if (header_check(&probe, hdr)) {
            return DDI_EOPCODE;
        }
        if (len > n - at) {
            return DDI_EINVAL;
        }
        at += len;
    }
    for (unsigned i = 0; i < a->npatch; i++) {
        if (a->patch[i].slot >= a->nalloc || (a->patch[i].patch_offset & 3) ||
            a->patch[i].patch_offset + 8 > a->cmd_bytes) {
            return DDI_EINVAL;
        }
    }
    memcpy(out->dw, a->cmd, a->cmd_bytes);
    out->len_bytes = a->cmd_bytes;
    out->engine = a->engine;
    out->nalloc = a->nalloc;
    memcpy(out->alloc, a->alloc, a->nalloc * sizeof(*a->alloc));
    out->npatch = a->npatch;
    memcpy(out->patch, a->patch, a->npatch * sizeof(*a->patch));
    return DDI_OK;
}

static int gpu_patch(void *drv, struct ddi_dmabuf *buf,
                     const struct ddi_alloc_desc *alloc, uint32_t first,
                     uint32_t end)
{
    (void)drv;
    for (unsigned i = 0; i < buf->npatch; i++) {
        const struct ddi_patch_loc *p = &buf->patch[i];
        uint64_t addr;

        if (p->split_offset < first || p->split_offset >= end) {
            continue;
        }
        if (!alloc || p->slot >= buf->nalloc ||
            p->patch_offset + 8 > buf->len_bytes) {
            return DDI_EINVAL;
        }
        addr = alloc[p->slot].gpu_addr + p->alloc_offset;
        buf->dw[p->patch_offset / 4] = (uint32_t)addr;
        buf->dw[p->patch_offset / 4 + 1] = (uint32_t)(addr >> 32);
    }
    return DDI_OK;
}

static int gpu_submit(void *drv, const struct ddi_submit_args *a)
{
    struct sim_gpu *g = drv;
    struct sim_engine *e;
    uint32_t mask = g->cfg.ring_entries - 1;

    if (a->engine >= g->cfg.engines) {
        return DDI_EINVAL;
    }
    e = &g->engine[a->engine];
    if (((e->tail + 1) & mask) == e->head || e->oom_unreported) {
        return DDI_EBUSY;
    }
    e->ring[e->tail] = (struct copro_submit_desc){
        .dma_addr = a->dma_addr, .dma_len = a->dma_len, .flags = a->flags,
        .fence = a->fence, .context = a->context, .save_addr = a->save_addr,
    };
    if (g->obs && g->obs->submitted) {
        g->obs->submitted(g->obs_arg, e->index, &e->ring[e->tail]);
    }
    e->tail = (e->tail + 1) & mask;
    if (e->state != SIM_ENG_HALTED) {
        kick(e);
    }
    return DDI_OK;
}

static int gpu_preempt(void *drv, unsigned engine, uint64_t fence)
{
    struct sim_gpu *g = drv;
    struct sim_engine *e;

    if (engine >= g->cfg.engines) {
        return DDI_EINVAL;
    }
    e = &g->engine[engine];
    if (!e->preempt_pending) {
        e->preempt_pending = true;
        e->preempt_req_time = now_of(e);
    }
    e->preempt_req = fence;     /* a second request replaces the fence */
    if (e->state != SIM_ENG_HALTED) {
        kick(e);
    }
    return DDI_OK;
}

static int gpu_reset_engine(void *drv, unsigned engine,
                            struct ddi_reset_report *rep)
{
    struct sim_gpu *g = drv;
    struct sim_engine *e;
    uint64_t now;

    if (engine >= g->cfg.engines) {
        return DDI_EINVAL;
    }
    e = &g->engine[engine];
    now = now_of(e);
    notify_stop(e, true);
    e->aborted_fence = e->active ? e->desc.fence : 0;
    timer_del(e);
    if ((e->step_pending || e->preempt_saving) && e->cursor > now) {
        /* the aborted step was charged in advance: refund what never ran */
        account(e, -(int64_t)(e->cursor - now));
    }
    e->cursor = now;
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->restore_pending = false;
    e->preempt_saving = false;
    e->preempt_pending = false;
    e->hung = false;
    e->head = e->tail;
    e->pc = 0;
    memset(e->targets, 0, sizeof(e->targets));
    e->fault_kind = COPRO_FAULT_NONE;
    e->fault_offset = 0;
    e->fault_addr = 0;
    e->fault_fence = 0;
    e->fault_context = 0;
    e->state = SIM_ENG_IDLE;
    g->reset_gen++;
    if (rep) {
        rep->aborted_fence = e->aborted_fence;
        rep->completed_fence = e->completed_fence;
    }
    return DDI_OK;
}

static uint64_t gpu_time(void *drv)
{
    return ((struct sim_gpu *)drv)->clk->now;
}

/*
 * No display model: caps.display.sources stays 0 and the DDI's display
 * ops (commit_vidpn, set_source_address, set_pointer_shape and
 * set_pointer_position) are NULL. vidsch never calls them (presents are
 * the kernel's, kernel/kdisplay.c, and build no DMA buffer), so the
 * scheduler's properties do not depend on a display; the kernel's
 * display half is tested over a fake display in tests/unit/test-kernel.c
 * and on the device by the desktop scenario.
 */
/* ---- paging (vidmm) ---- */

static bool gart_range_ok(const struct sim_gpu *g, uint64_t dst,
                          uint64_t size)
{
    return g->gart && size && !(dst % COPRO_GPU_PAGE_SIZE) &&
           !(size % COPRO_GPU_PAGE_SIZE) && dst >= g->cfg.aperture_base &&
           dst - g->cfg.aperture_base <= g->cfg.aperture_size &&
           size <= g->cfg.aperture_size - (dst - g->cfg.aperture_base);
}

static bool sys_page_ok(const struct sim_gpu *g, uint64_t phys)
{
    return phys >= SIM_SYS_PHYS && !(phys % COPRO_GPU_PAGE_SIZE) &&
           (phys - SIM_SYS_PHYS) / COPRO_GPU_PAGE_SIZE < g->sys_cap;
}

static unsigned put64(uint32_t *dw, unsigned at, uint64_t v);

static bool range_overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
    return a < b + bn && b < a + an;
}

/* The DDI's ordering rules (ddi.h): a MAP acts at build time, so nothing
 * before it in the call may use its range; an UNMAP acts in buffer
 * order, so no transfer or fill after it may go through its range. */
static bool paging_order_ok(const struct ddi_paging_op *ops, unsigned nops)
{
    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *b = &ops[i];

        for (unsigned j = 0; j < i; j++) {
            const struct ddi_paging_op *a = &ops[j];

            if (b->kind == DDI_PAGING_MAP_APERTURE &&
                (range_overlaps(a->dst, a->size, b->dst, b->size) ||
                 (a->kind == DDI_PAGING_TRANSFER &&
                  range_overlaps(a->src, a->size, b->dst, b->size)))) {
                return false;
            }
            if (a->kind == DDI_PAGING_UNMAP_APERTURE &&
                (b->kind == DDI_PAGING_TRANSFER ||
                 b->kind == DDI_PAGING_FILL) &&
                (range_overlaps(a->dst, a->size, b->dst, b->size) ||
                 (b->kind == DDI_PAGING_TRANSFER &&
                  range_overlaps(a->dst, a->size, b->src, b->size)))) {
                return false;
            }
        }
    }
    return true;
}

/* [DxgkDdiBuildPagingBuffer] COPY for a transfer, FILL for a fill, GART
 * entries written now for a MAP, COPY_PTE of zero entries for an UNMAP
 * (in buffer order); a buffer with no packet gets one NOP. */
static int gpu_build_paging_buffer(void *drv, const struct ddi_paging_op *ops,
                                   unsigned nops, struct ddi_dmabuf *out)
{
    struct sim_gpu *g = drv;
    uint32_t need = 0;
    unsigned at = 0;

    if (!out || !out->dw || (nops && !ops) || nops > DDI_MAX_PAGING_OPS) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *o = &ops[i];

        switch (o->kind) {
        case DDI_PAGING_TRANSFER:
            need += COPRO_LEN_COPY * 4;
            if (!o->size) {
                return DDI_EINVAL;
            }
            break;
        case DDI_PAGING_FILL:
            need += COPRO_LEN_FILL * 4;
            if (!o->size || (o->size & 3)) {
                return DDI_EINVAL;
            }
            break;
        case DDI_PAGING_MAP_APERTURE:
            if (!gart_range_ok(g, o->dst, o->size) || !o->sys_pages) {
                return DDI_EINVAL;
            }
            for (uint64_t k = 0; k < o->size / COPRO_GPU_PAGE_SIZE; k++) {
                if (!sys_page_ok(g, o->sys_pages[k])) {
                    return DDI_EINVAL;
                }
            }
            break;
        case DDI_PAGING_UNMAP_APERTURE:
            if (!gart_range_ok(g, o->dst, o->size)) {
                return DDI_EINVAL;
            }
            need += (uint32_t)((o->size / COPRO_GPU_PAGE_SIZE +
                                SIM_GART_ZERO - 1) / SIM_GART_ZERO) *
                    COPRO_LEN_COPY_PTE * 4;
            break;
        default:
            return DDI_EINVAL;
        }
    }
    if (!paging_order_ok(ops, nops)) {
        return DDI_EINVAL;
    }
    if ((need ? need : 4) > out->cap_bytes) {
        return DDI_ENOMEM;
    }
    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *o = &ops[i];
        uint64_t first = (o->dst - g->cfg.aperture_base) / COPRO_GPU_PAGE_SIZE;

        switch (o->kind) {
        case DDI_PAGING_TRANSFER:
            at = sim_emit_copy(out->dw, at, o->dst, o->src, o->size);
            break;
        case DDI_PAGING_FILL:
            at = sim_emit_fill(out->dw, at, o->dst, o->size, o->value);
            break;
        case DDI_PAGING_MAP_APERTURE:
            for (uint64_t k = 0; k < o->size / COPRO_GPU_PAGE_SIZE; k++) {
                g->gart[first + k] = o->sys_pages[k];
            }
            g->gart_maps++;
            break;
        case DDI_PAGING_UNMAP_APERTURE:
            for (uint64_t k = 0; k < o->size / COPRO_GPU_PAGE_SIZE;
                 k += SIM_GART_ZERO) {
                uint64_t n = o->size / COPRO_GPU_PAGE_SIZE - k;

                if (n > SIM_GART_ZERO) {
                    n = SIM_GART_ZERO;
                }
                out->dw[at++] = COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0,
                                              COPRO_LEN_COPY_PTE);
                at = put64(out->dw, at, g->gart_addr + (first + k) * 8);
                at = put64(out->dw, at, g->gart_zero);
                out->dw[at++] = (uint32_t)n;
            }
            g->gart_unmaps++;
            break;
        }
    }
    if (!at) {
        at = sim_emit_nop(out->dw, 0, 1);
    }
    out->len_bytes = at * 4;
    out->npatch = 0;
    out->nalloc = 0;
    return DDI_OK;
}

bool sim_gpu_sys_alloc(struct sim_gpu *g, uint64_t *pages, unsigned n)
{
    if (n > g->nsys_free) {
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        pages[i] = SIM_SYS_PHYS +
                   (uint64_t)g->sys_free[--g->nsys_free] * COPRO_GPU_PAGE_SIZE;
    }
    return true;
}

void sim_gpu_sys_free(struct sim_gpu *g, const uint64_t *pages, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (sys_page_ok(g, pages[i]) && g->nsys_free < g->sys_cap) {
            g->sys_free[g->nsys_free++] =
                (uint32_t)((pages[i] - SIM_SYS_PHYS) / COPRO_GPU_PAGE_SIZE);
        }
    }
}

uint8_t *sim_gpu_sys_ptr(struct sim_gpu *g, uint64_t phys)
{
    return sys_page_ok(g, phys & ~(uint64_t)(COPRO_GPU_PAGE_SIZE - 1))
               ? g->sys + (phys - SIM_SYS_PHYS) : NULL;
}

bool sim_gpu_read(struct sim_gpu *g, uint64_t gpu_addr, void *buf,
                  uint64_t len)
{
    if (!mem_ok(g, gpu_addr, len)) {
        return false;
    }
    mem_copy(g, gpu_addr, buf, len, false);
    return true;
}

/* (Re)sizes the aperture and the system pages for cfg: the GART table
 * and its zero entries are the first simulated-VRAM allocations. */
static void aperture_init(struct sim_gpu *g, const struct sim_gpu_config *cfg)
{
    uint64_t gart = cfg->aperture_size / COPRO_GPU_PAGE_SIZE;

    g->gart = NULL;
    if (gart) {
        g->gart_addr = sim_gpu_alloc(g, gart * 8, COPRO_GPU_PAGE_SIZE);
        g->gart_zero = sim_gpu_alloc(g, SIM_GART_ZERO * 8,
                                     COPRO_GPU_PAGE_SIZE);
        if (g->gart_addr == UINT64_MAX || g->gart_zero == UINT64_MAX) {
            abort();
        }
        g->gart = (uint64_t *)(g->mem + g->gart_addr);
    }
    if (cfg->sys_pages > g->sys_cap) {
        free(g->sys);
        free(g->sys_free);
        g->sys = calloc(cfg->sys_pages, COPRO_GPU_PAGE_SIZE);
        g->sys_free = calloc(cfg->sys_pages, sizeof(uint32_t));
        g->sys_cap = cfg->sys_pages;
    }
    if (cfg->sys_pages && (!g->sys || !g->sys_free)) {
        abort();
    }
    g->nsys_free = 0;
    for (unsigned i = cfg->sys_pages; i > 0; i--) {
        g->sys_free[g->nsys_free++] = i - 1;
    }
    g->gart_maps = g->gart_unmaps = 0;
}

const struct ddi_ops sim_gpu_ops = {
    .query_caps = gpu_query_caps,
    .render = gpu_render,
    .patch = gpu_patch,
    .build_paging_buffer = gpu_build_paging_buffer,
    .submit = gpu_submit,
    .preempt = gpu_preempt,
    .reset_engine = gpu_reset_engine,
    .gpu_time = gpu_time,
};

/* ---- life cycle ---- */

static void engines_init(struct sim_gpu *g)
{
    for (unsigned i = 0; i < DDI_MAX_ENGINES; i++) {
        struct sim_engine *e = &g->engine[i];
        struct copro_submit_desc *ring = e->ring;

        memset(e, 0, sizeof(*e));
        e->g = g;
        e->index = i;
        e->ring = ring;
        e->timer_gen = 1;
    }
}

struct sim_gpu *sim_gpu_create(struct sim_clock *clk,
                               const struct sim_gpu_config *cfg)
{
    struct sim_gpu *g = calloc(1, sizeof(*g));

    if (!g) {
        abort();
    }
    g->clk = clk;
    g->mem = calloc(1, cfg->mem_size);
    for (unsigned i = 0; i < DDI_MAX_ENGINES; i++) {
        g->engine[i].ring = calloc(COPRO_RING_MAX_ENTRIES,
                                   sizeof(struct copro_submit_desc));
    }
    g->cfg = *cfg;
    g->mem_used = COPRO_GPU_PAGE_SIZE;
    aperture_init(g, cfg);
    engines_init(g);
    return g;
}

void sim_gpu_reset(struct sim_gpu *g, const struct sim_gpu_config *cfg)
{
    uint64_t cap = g->cfg.mem_size;

    if (cfg->mem_size > cap || cfg->engines > DDI_MAX_ENGINES ||
        cfg->ring_entries > COPRO_RING_MAX_ENTRIES) {
        abort();
    }
    g->cfg = *cfg;
    g->cfg.mem_size = cfg->mem_size;
    /* page 0 is never handed out: GPU address 0 means "none" in the DDI
     * (a save area, for one) */
    g->mem_used = COPRO_GPU_PAGE_SIZE;
    aperture_init(g, cfg);
    g->ninject = 0;
    g->reset_gen = 0;
    memset(g->ctx_busy_ns, 0, sizeof(g->ctx_busy_ns));
    engines_init(g);
}

void sim_gpu_destroy(struct sim_gpu *g)
{
    for (unsigned i = 0; i < DDI_MAX_ENGINES; i++) {
        free(g->engine[i].ring);
    }
    free(g->mem);
    free(g->sys);
    free(g->sys_free);
    free(g);
}

void sim_gpu_connect(struct sim_gpu *g, const struct ddi_upcalls *up,
                     void *os)
{
    g->up = up;
    g->os = os;
}

void sim_gpu_observe(struct sim_gpu *g, const struct sim_gpu_observer *o,
                     void *arg)
{
    g->obs = o;
    g->obs_arg = arg;
}

void sim_gpu_inject(struct sim_gpu *g, uint64_t dma_addr, uint32_t offset,
                    enum sim_inject_kind kind)
{
    if (g->ninject < SIM_MAX_INJECT) {
        g->inject[g->ninject].dma_addr = dma_addr;
        g->inject[g->ninject].offset = offset;
        g->inject[g->ninject].kind = kind;
        g->inject[g->ninject].fired = false;
        g->ninject++;
    }
}

/* ---- packet writers ---- */

static unsigned put64(uint32_t *dw, unsigned at, uint64_t v)
{
    dw[at] = (uint32_t)v;
    dw[at + 1] = (uint32_t)(v >> 32);
    return at + 2;
}

unsigned sim_emit_work(uint32_t *dw, unsigned at, uint64_t ns)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_WORK, 0, COPRO_LEN_WORK);
    return put64(dw, at, ns);
}

unsigned sim_emit_nop(uint32_t *dw, unsigned at, unsigned ndw)
{
    dw[at] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, ndw);
    for (unsigned i = 1; i < ndw; i++) {
        dw[at + i] = 0;
    }
    return at + ndw;
}

unsigned sim_emit_fence(uint32_t *dw, unsigned at, uint64_t addr,
                        uint64_t value)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_FENCE, 0, COPRO_LEN_FENCE);
    at = put64(dw, at, addr);
    return put64(dw, at, value);
}

unsigned sim_emit_fill(uint32_t *dw, unsigned at, uint64_t dst,
                       uint64_t size, uint32_t pattern)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL);
    at = put64(dw, at, dst);
    at = put64(dw, at, size);
    dw[at++] = pattern;
    return at;
}

unsigned sim_emit_timestamp(uint32_t *dw, unsigned at, uint64_t addr)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_TIMESTAMP, 0, COPRO_LEN_TIMESTAMP);
    return put64(dw, at, addr);
}

unsigned sim_emit_wait(uint32_t *dw, unsigned at, uint64_t addr,
                       uint64_t value)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_WAIT, 0, COPRO_LEN_WAIT);
    at = put64(dw, at, addr);
    return put64(dw, at, value);
}

unsigned sim_emit_copy(uint32_t *dw, unsigned at, uint64_t dst, uint64_t src,
                       uint64_t size)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY);
    at = put64(dw, at, dst);
    at = put64(dw, at, src);
    return put64(dw, at, size);
}
