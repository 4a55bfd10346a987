/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model's packets: header and field checks, fetch, the cost of a
 * step and its effect (hw/copro/copro-packet.c's packet table), and the
 * packet writers for the harness.
 */
#include "sim_gpu_internal.h"

#include <string.h>

/* ---- packets ---- */

/*
 * The tiling path's packets (SCENE_BEGIN .. TILE_RENDER) run on the render
 * engines of a GPU with cfg.tiler (COPRO_CAP_TILER, sim_gpu_tiler.c);
 * without it they are ILLEGAL_OPCODE.
 */
#define SIM_SCENE_OPS   ((2u << COPRO_OP_TILE_RENDER) - \
                         (1u << COPRO_OP_SCENE_BEGIN))

uint32_t sim_engine_ops(const struct sim_engine *e)
{
    return e->index == COPRO_ENGINE_COPY
           ? COPRO_COPY_ENGINE_OPS
           : ((2u << COPRO_OP_LAST) - 1) &
             ~(e->g->cfg.tiler ? 0 : SIM_SCENE_OPS);
}

uint32_t sim_header_check(const struct sim_engine *e, uint32_t hdr)
{
    uint32_t op = COPRO_PKT_OP(hdr), len = COPRO_PKT_LEN(hdr);

    if (op > COPRO_OP_LAST || !(sim_engine_ops(e) & (1u << op))) {
        return COPRO_FAULT_ILLEGAL_OPCODE;
    }
    if (len == 0 || (copro_packet_len(op) && len != copro_packet_len(op))) {
        return COPRO_FAULT_BAD_LENGTH;
    }
    return COPRO_FAULT_NONE;
}

bool sim_target_ok(const struct sim_target *t)
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

bool sim_fields_ok(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    struct sim_target t;

    if (sim_is_scene_op(COPRO_PKT_OP(p->hdr))) {
        return sim_tiler_fields_ok(e, p, &e->tiler_cause);
    }
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
               copro_fmt_bpp(t.format) && sim_target_ok(&t);
    case COPRO_OP_RECT:
        return prepare_rect(e);
    default:
        return true;
    }
}

bool sim_multi_step(uint32_t op)
{
    return op == COPRO_OP_COPY || op == COPRO_OP_FILL ||
           op == COPRO_OP_COPY_PTE || op == COPRO_OP_RECT ||
           op == COPRO_OP_WORK || op == COPRO_OP_TILE_RENDER;
}

bool sim_progress_ok(const struct sim_engine *e)
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
    case COPRO_OP_TILE_RENDER:
        /* 2 * the next tile (the device's plan and render steps) */
        return !(p->progress & 1) && p->progress < 2ull * p->dw[2];
    default:
        return !p->progress;
    }
}

bool sim_fetch_packet(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    uint64_t at = e->desc.dma_addr + e->pc;
    uint32_t hdr, len, kind;

    if (e->desc.dma_len - e->pc < 4) {
        sim_engine_fault(e, COPRO_FAULT_BUFFER_OVERRUN, at);
        return false;
    }
    if (!sim_mem_read(e, at, &hdr, 4)) {
        return false;
    }
    len = COPRO_PKT_LEN(hdr);
    kind = sim_header_check(e, hdr);
    if (kind) {
        sim_engine_fault(e, kind, at);
        return false;
    }
    if ((uint64_t)len * 4 > e->desc.dma_len - e->pc) {
        sim_engine_fault(e, COPRO_FAULT_BUFFER_OVERRUN, at);
        return false;
    }
    memset(p, 0, sizeof(*p));
    p->offset = e->pc;
    p->hdr = hdr;
    if (COPRO_PKT_OP(hdr) != COPRO_OP_NOP && len > 1 &&
        !sim_mem_read(e, at + 4, p->dw, (len - 1) * 4)) {
        return false;
    }
    if (!sim_fields_ok(e)) {
        sim_engine_fault(e, COPRO_FAULT_BAD_PACKET, at);
        return false;
    }
    e->in_packet = true;
    return true;
}

uint64_t sim_step_cost(const struct sim_engine *e)
{
    const struct sim_packet *p = &e->cur;
    const struct sim_gpu_config *c = &e->g->cfg;
    uint64_t first = p->progress == 0 ? c->packet_ns : 0, left;

    if (sim_is_scene_op(COPRO_PKT_OP(p->hdr))) {
        return sim_tiler_step_cost(e);
    }
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
        if (!sim_mem_ok(e->g, src + p->progress, n)) {
            sim_engine_fault(e, COPRO_FAULT_TRANSLATION, src + p->progress);
            return STEP_FAULT;
        }
        if (!sim_mem_ok(e->g, dst + p->progress, n)) {
            sim_engine_fault(e, COPRO_FAULT_TRANSLATION, dst + p->progress);
            return STEP_FAULT;
        }
        if (!sim_discarded(e->g, dst + p->progress, n)) {
            uint64_t s = src + p->progress, d = dst + p->progress, left = n;

            while (left) {
                uint64_t rs, rd, run;
                uint8_t *ms = sim_xlate(e->g, s, left, &rs);
                uint8_t *md = sim_xlate(e->g, d, left, &rd);

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

        if (!sim_mem_ok(e->g, dst + p->progress, n)) {
            sim_engine_fault(e, COPRO_FAULT_TRANSLATION, dst + p->progress);
            return STEP_FAULT;
        }
        if (!sim_discarded(e->g, dst + p->progress, n)) {
            uint64_t d = dst + p->progress, left = n, run;

            /* per contiguous piece (4-byte aligned: pages break at 4 KiB),
             * the pattern, then doubling copies of it */
            while (left) {
                uint64_t done = 4;

                m = sim_xlate(e->g, d, left, &run);
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

        if (!sim_mem_ok(e->g, addr, row_bytes)) {
            sim_engine_fault(e, COPRO_FAULT_TRANSLATION, addr);
            return STEP_FAULT;
        }
        for (uint64_t i = 0; i < row_bytes; i += bpp) {
            sim_mem_copy(e->g, addr + i, &p->dw[4], bpp, true);
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

enum step sim_exec_step(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    struct sim_target *t;
    uint64_t v;

    if (sim_is_scene_op(COPRO_PKT_OP(p->hdr))) {
        return sim_tiler_exec(e);
    }
    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_NOP:
    case COPRO_OP_INTERRUPT:    /* USER: no DDI upcall for it */
        return STEP_DONE;
    case COPRO_OP_TIMESTAMP:
        v = e->cursor;
        return sim_mem_write(e, dw64(p, 0), &v, 8) ? STEP_DONE : STEP_FAULT;
    case COPRO_OP_FENCE:
        v = dw64(p, 2);
        if (!sim_mem_write(e, dw64(p, 0), &v, 8)) {
            return STEP_FAULT;
        }
        sim_fence_written(e->g);
        return STEP_DONE;
    case COPRO_OP_WAIT:
        if (!sim_mem_read(e, dw64(p, 0), &v, 8)) {
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

/* ---- packet writers ---- */

unsigned sim_emit_work(uint32_t *dw, unsigned at, uint64_t ns)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_WORK, 0, COPRO_LEN_WORK);
    return sim_put64(dw, at, ns);
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
    at = sim_put64(dw, at, addr);
    return sim_put64(dw, at, value);
}

unsigned sim_emit_fill(uint32_t *dw, unsigned at, uint64_t dst,
                       uint64_t size, uint32_t pattern)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL);
    at = sim_put64(dw, at, dst);
    at = sim_put64(dw, at, size);
    dw[at++] = pattern;
    return at;
}

unsigned sim_emit_timestamp(uint32_t *dw, unsigned at, uint64_t addr)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_TIMESTAMP, 0, COPRO_LEN_TIMESTAMP);
    return sim_put64(dw, at, addr);
}

unsigned sim_emit_wait(uint32_t *dw, unsigned at, uint64_t addr,
                       uint64_t value)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_WAIT, 0, COPRO_LEN_WAIT);
    at = sim_put64(dw, at, addr);
    return sim_put64(dw, at, value);
}

unsigned sim_emit_copy(uint32_t *dw, unsigned at, uint64_t dst, uint64_t src,
                       uint64_t size)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY);
    at = sim_put64(dw, at, dst);
    at = sim_put64(dw, at, src);
    return sim_put64(dw, at, size);
}

unsigned sim_emit_set_target(uint32_t *dw, unsigned at, unsigned slot,
                             uint64_t addr, uint32_t pitch, uint32_t width,
                             uint32_t height, uint32_t format)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_SET_TARGET, slot, COPRO_LEN_SET_TARGET);
    at = sim_put64(dw, at, addr);
    dw[at++] = pitch;
    dw[at++] = width;
    dw[at++] = height;
    dw[at++] = format;
    return at;
}

unsigned sim_emit_scene_begin(uint32_t *dw, unsigned at, uint32_t flags,
                              uint64_t pb, uint32_t pb_size, uint32_t clear)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, flags,
                             COPRO_LEN_SCENE_BEGIN);
    at = sim_put64(dw, at, pb);
    dw[at++] = pb_size;
    dw[at++] = clear;
    return at;
}

unsigned sim_emit_bin_rect(uint32_t *dw, unsigned at, uint32_t x, uint32_t y,
                           uint32_t w, uint32_t h, uint32_t colour)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_BIN_RECT, 0, COPRO_LEN_BIN_RECT);
    dw[at++] = x;
    dw[at++] = y;
    dw[at++] = w;
    dw[at++] = h;
    dw[at++] = colour;
    return at;
}

unsigned sim_emit_bin_blit(uint32_t *dw, unsigned at, uint64_t src,
                           uint32_t pitch, uint32_t x, uint32_t y,
                           uint32_t w, uint32_t h)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_BIN_BLIT, 0, COPRO_LEN_BIN_BLIT);
    at = sim_put64(dw, at, src);
    dw[at++] = pitch;
    dw[at++] = COPRO_BLIT_XY(x, y);
    dw[at++] = COPRO_BLIT_XY(w, h);
    return at;
}

unsigned sim_emit_scene_end(uint32_t *dw, unsigned at)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_SCENE_END, 0, COPRO_LEN_SCENE_END);
    return at;
}

unsigned sim_emit_tile_render(uint32_t *dw, unsigned at, uint32_t flags,
                              uint64_t pb, uint32_t tiles)
{
    dw[at++] = COPRO_PKT_HDR(COPRO_OP_TILE_RENDER, flags,
                             COPRO_LEN_TILE_RENDER);
    at = sim_put64(dw, at, pb);
    dw[at++] = tiles;
    return at;
}
