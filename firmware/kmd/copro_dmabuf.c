/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_dmabuf.h"

#include <stddef.h>

void copro_dmabuf_init(struct copro_dmabuf *b, void *cpu, uint64_t gpu_addr,
                       uint32_t size_bytes)
{
    if (size_bytes > COPRO_DMA_MAX) {
        size_bytes = COPRO_DMA_MAX;
    }
    b->dw = cpu;
    b->gpu_addr = gpu_addr;
    b->cap_dw = size_bytes / 4;
    copro_dmabuf_reset(b);
}

void copro_dmabuf_reset(struct copro_dmabuf *b)
{
    b->len_dw = 0;
    b->packets = 0;
    b->error = NULL;
}

/* Records the first failure; later ones would only hide its cause. */
static uint32_t refuse(struct copro_dmabuf *b, const char *why)
{
    if (!b->error) {
        b->error = why;
    }
    return COPRO_DMABUF_FAILED;
}

/*
 * Reserves ndw dwords and writes the header. Returns the first dword
 * (the header) or NULL, having recorded why.
 */
static uint32_t *begin(struct copro_dmabuf *b, uint32_t op, uint32_t flags,
                       uint32_t ndw)
{
    uint32_t *p;

    if (ndw == 0 || ndw > COPRO_PKT_MAX_DWORDS) {
        refuse(b, "packet length outside 1..65535 dwords");
        return NULL;
    }
    if (ndw > b->cap_dw - b->len_dw) {
        refuse(b, "DMA buffer full");
        return NULL;
    }
    p = b->dw + b->len_dw;
    p[0] = COPRO_PKT_HDR(op, flags, ndw);
    return p;
}

/* Commits a packet begun at p; returns its byte offset. */
static uint32_t commit(struct copro_dmabuf *b, const uint32_t *p,
                       uint32_t ndw)
{
    uint32_t offset = (uint32_t)(p - b->dw) * 4;

    b->len_dw += ndw;
    b->packets++;
    return offset;
}

/* 64-bit fields go low dword first (copro_cmd.h). */
static void put64(uint32_t *p, uint64_t v)
{
    p[0] = (uint32_t)v;
    p[1] = (uint32_t)(v >> 32);
}

uint32_t copro_emit_nop(struct copro_dmabuf *b, uint32_t ndw)
{
    uint32_t *p = begin(b, COPRO_OP_NOP, 0, ndw);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    /* The engine skips a NOP's payload; zero it so a dump reads cleanly
     * and no stale bytes from an earlier use of the buffer remain. */
    for (uint32_t i = 1; i < ndw; i++) {
        p[i] = 0;
    }
    return commit(b, p, ndw);
}

uint32_t copro_emit_timestamp(struct copro_dmabuf *b, uint64_t addr)
{
    uint32_t *p = begin(b, COPRO_OP_TIMESTAMP, 0, COPRO_LEN_TIMESTAMP);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, addr);
    return commit(b, p, COPRO_LEN_TIMESTAMP);
}

uint32_t copro_emit_interrupt(struct copro_dmabuf *b, uint32_t data)
{
    uint32_t *p = begin(b, COPRO_OP_INTERRUPT, 0, COPRO_LEN_INTERRUPT);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    p[1] = data;
    return commit(b, p, COPRO_LEN_INTERRUPT);
}

uint32_t copro_emit_fence(struct copro_dmabuf *b, uint64_t addr,
                          uint64_t value, bool irq)
{
    uint32_t *p = begin(b, COPRO_OP_FENCE, irq ? COPRO_FENCE_IRQ : 0,
                        COPRO_LEN_FENCE);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, addr);
    put64(p + 3, value);
    return commit(b, p, COPRO_LEN_FENCE);
}

uint32_t copro_emit_wait(struct copro_dmabuf *b, uint64_t addr,
                         uint64_t value)
{
    uint32_t *p = begin(b, COPRO_OP_WAIT, 0, COPRO_LEN_WAIT);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, addr);
    put64(p + 3, value);
    return commit(b, p, COPRO_LEN_WAIT);
}

uint32_t copro_emit_copy(struct copro_dmabuf *b, uint64_t dst, uint64_t src,
                         uint64_t size)
{
    uint32_t *p = begin(b, COPRO_OP_COPY, 0, COPRO_LEN_COPY);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, dst);
    put64(p + 3, src);
    put64(p + 5, size);
    return commit(b, p, COPRO_LEN_COPY);
}

uint32_t copro_emit_fill(struct copro_dmabuf *b, uint64_t dst, uint64_t size,
                         uint32_t pattern)
{
    uint32_t *p;

    if (size & 3) {
        return refuse(b, "FILL size not a multiple of 4");
    }
    p = begin(b, COPRO_OP_FILL, 0, COPRO_LEN_FILL);
    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, dst);
    put64(p + 3, size);
    p[5] = pattern;
    return commit(b, p, COPRO_LEN_FILL);
}

const char *copro_surface_check(const struct copro_surface *s)
{
    uint32_t bpp = copro_fmt_bpp(s->format);

    if (!bpp) {
        return "unknown surface format";
    }
    if (s->width > COPRO_TARGET_MAX_DIM || s->height > COPRO_TARGET_MAX_DIM) {
        return "surface larger than COPRO_TARGET_MAX_DIM";
    }
    if ((uint64_t)s->width * bpp > s->pitch) {
        return "surface pitch shorter than a row";
    }
    return NULL;
}

uint32_t copro_emit_set_target(struct copro_dmabuf *b, unsigned slot,
                               const struct copro_surface *s)
{
    const char *why = copro_surface_check(s);
    uint32_t *p;

    if (slot >= COPRO_TARGET_SLOTS) {
        return refuse(b, "target slot out of range");
    }
    if (why) {
        return refuse(b, why);
    }
    p = begin(b, COPRO_OP_SET_TARGET, slot, COPRO_LEN_SET_TARGET);
    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, s->addr);
    p[3] = s->pitch;
    p[4] = s->width;
    p[5] = s->height;
    p[6] = s->format;
    return commit(b, p, COPRO_LEN_SET_TARGET);
}

uint32_t copro_emit_rect(struct copro_dmabuf *b, unsigned slot, uint32_t x,
                         uint32_t y, uint32_t w, uint32_t h, uint32_t colour)
{
    uint32_t *p;

    /* Whether the slot is bound is engine state the builder cannot see. */
    if (slot >= COPRO_TARGET_SLOTS) {
        return refuse(b, "target slot out of range");
    }
    p = begin(b, COPRO_OP_RECT, slot, COPRO_LEN_RECT);
    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    p[1] = x;
    p[2] = y;
    p[3] = w;
    p[4] = h;
    p[5] = colour;
    return commit(b, p, COPRO_LEN_RECT);
}

uint32_t copro_emit_work(struct copro_dmabuf *b, uint64_t ns)
{
    uint32_t *p = begin(b, COPRO_OP_WORK, 0, COPRO_LEN_WORK);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, ns);
    return commit(b, p, COPRO_LEN_WORK);
}

uint32_t copro_emit_scene_begin(struct copro_dmabuf *b, unsigned slot,
                                bool clear, uint64_t pb, uint32_t pb_size,
                                uint32_t clear_colour)
{
    uint32_t *p;

    if (slot >= COPRO_TARGET_SLOTS) {
        return refuse(b, "target slot out of range");
    }
    if ((pb & 7) || pb_size > COPRO_PB_MAX) {
        return refuse(b, "parameter buffer misaligned or too large");
    }
    p = begin(b, COPRO_OP_SCENE_BEGIN, slot | (clear ? COPRO_SCENE_CLEAR : 0),
              COPRO_LEN_SCENE_BEGIN);
    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, pb);
    p[3] = pb_size;
    p[4] = clear_colour;
    return commit(b, p, COPRO_LEN_SCENE_BEGIN);
}

uint32_t copro_emit_bin_rect(struct copro_dmabuf *b, uint32_t x, uint32_t y,
                             uint32_t w, uint32_t h, uint32_t colour)
{
    uint32_t *p = begin(b, COPRO_OP_BIN_RECT, 0, COPRO_LEN_BIN_RECT);

    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    p[1] = x;
    p[2] = y;
    p[3] = w;
    p[4] = h;
    p[5] = colour;
    return commit(b, p, COPRO_LEN_BIN_RECT);
}

uint32_t copro_emit_bin_blit(struct copro_dmabuf *b, uint64_t src,
                             uint32_t pitch, uint32_t x, uint32_t y,
                             uint32_t w, uint32_t h)
{
    uint32_t *p;

    if (pitch > COPRO_BLIT_PITCH_MAX || (x | y | w | h) > 0xffff) {
        return refuse(b, "blit pitch or coordinates out of range");
    }
    p = begin(b, COPRO_OP_BIN_BLIT, 0, COPRO_LEN_BIN_BLIT);
    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, src);
    p[3] = pitch;
    p[4] = COPRO_BLIT_XY(x, y);
    p[5] = COPRO_BLIT_XY(w, h);
    return commit(b, p, COPRO_LEN_BIN_BLIT);
}

uint32_t copro_emit_scene_end(struct copro_dmabuf *b)
{
    uint32_t *p = begin(b, COPRO_OP_SCENE_END, 0, COPRO_LEN_SCENE_END);

    return p ? commit(b, p, COPRO_LEN_SCENE_END) : COPRO_DMABUF_FAILED;
}

uint32_t copro_emit_tile_render(struct copro_dmabuf *b, unsigned slot,
                                bool partial, uint64_t pb, uint32_t tiles)
{
    uint32_t *p;

    if (slot >= COPRO_TARGET_SLOTS) {
        return refuse(b, "target slot out of range");
    }
    if ((pb & 7) || !tiles || tiles > COPRO_TILER_MAX_TILES) {
        return refuse(b, "parameter buffer misaligned or bad tile count");
    }
    p = begin(b, COPRO_OP_TILE_RENDER,
              slot | (partial ? COPRO_TILE_PARTIAL : 0),
              COPRO_LEN_TILE_RENDER);
    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, pb);
    p[3] = tiles;
    return commit(b, p, COPRO_LEN_TILE_RENDER);
}

uint32_t copro_emit_copy_pte(struct copro_dmabuf *b, uint64_t dst,
                             uint64_t src, uint32_t count)
{
    uint32_t *p;

    if ((dst | src) & 7) {
        return refuse(b, "COPY_PTE address not 8-aligned");
    }
    if (count > COPRO_COPY_PTE_MAX) {
        return refuse(b, "COPY_PTE count above COPRO_COPY_PTE_MAX");
    }
    p = begin(b, COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE);
    if (!p) {
        return COPRO_DMABUF_FAILED;
    }
    put64(p + 1, dst);
    put64(p + 3, src);
    p[5] = count;
    return commit(b, p, COPRO_LEN_COPY_PTE);
}

uint32_t copro_emit_raw(struct copro_dmabuf *b, const uint32_t *dw,
                        uint32_t ndw)
{
    uint32_t offset = b->len_dw * 4;

    if (ndw == 0 || ndw > b->cap_dw - b->len_dw) {
        return refuse(b, ndw ? "DMA buffer full" : "empty raw packet");
    }
    for (uint32_t i = 0; i < ndw; i++) {
        b->dw[b->len_dw + i] = dw[i];
    }
    b->len_dw += ndw;
    b->packets++;
    return offset;
}
