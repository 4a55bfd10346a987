/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DMA-buffer builder: appends copro packets (include/copro/copro_cmd.h) to
 * a buffer the caller owns. Pure C with no hardware access, so the
 * encodings are unit-tested on the host (tests/unit/test-copro-dmabuf.c).
 *
 * The buffer is described twice: by the CPU pointer the builder writes
 * through and by the GPU address the engine will read it at. The builder
 * never writes past the buffer: a packet that does not fit, or whose
 * fields the device would refuse, is not written at all, and the first
 * such failure is remembered in b->error so a caller can append a whole
 * sequence and check once before submitting.
 */
#ifndef FW_KMD_COPRO_DMABUF_H
#define FW_KMD_COPRO_DMABUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_tiler.h>

/* Returned instead of a packet offset when nothing was appended. */
#define COPRO_DMABUF_FAILED         UINT32_MAX

/* Longest packet the header's 16-bit length field can express. */
#define COPRO_PKT_MAX_DWORDS        0xffffu

struct copro_dmabuf {
    uint32_t *dw;           /* CPU view of the buffer */
    uint64_t gpu_addr;      /* the engine's view of dw[0] */
    uint32_t cap_dw;        /* capacity in dwords */
    uint32_t len_dw;        /* dwords appended so far */
    uint32_t packets;       /* packets appended so far */
    const char *error;      /* first refused append, NULL if none */
};

/* A render-target surface as SET_TARGET describes it. */
struct copro_surface {
    uint64_t addr;          /* GPU address of pixel (0, 0) */
    uint32_t pitch;         /* bytes from one row to the next */
    uint32_t width;
    uint32_t height;
    uint32_t format;        /* COPRO_FMT_* */
};

/*
 * Starts an empty buffer over size_bytes at cpu (GPU address gpu_addr).
 * A size that is not a multiple of 4 is rounded down; a buffer larger
 * than COPRO_DMA_MAX is capped there, since no descriptor could carry it.
 */
void copro_dmabuf_init(struct copro_dmabuf *b, void *cpu, uint64_t gpu_addr,
                       uint32_t size_bytes);

/* Drops the contents (and any error), keeping the storage. */
void copro_dmabuf_reset(struct copro_dmabuf *b);

static inline uint32_t copro_dmabuf_bytes(const struct copro_dmabuf *b)
{
    return b->len_dw * 4;
}

static inline bool copro_dmabuf_ok(const struct copro_dmabuf *b)
{
    return b->error == NULL;
}

/*
 * Each emitter appends one packet and returns its byte offset in the
 * buffer (what FAULT_OFFSET reports if the engine faults on it), or
 * COPRO_DMABUF_FAILED. Field rules checked here are the ones the device
 * would fault on with BAD_LENGTH or BAD_PACKET.
 */
uint32_t copro_emit_nop(struct copro_dmabuf *b, uint32_t ndw);
uint32_t copro_emit_timestamp(struct copro_dmabuf *b, uint64_t addr);
uint32_t copro_emit_interrupt(struct copro_dmabuf *b, uint32_t data);
uint32_t copro_emit_fence(struct copro_dmabuf *b, uint64_t addr,
                          uint64_t value, bool irq);
uint32_t copro_emit_wait(struct copro_dmabuf *b, uint64_t addr,
                         uint64_t value);
uint32_t copro_emit_copy(struct copro_dmabuf *b, uint64_t dst, uint64_t src,
                         uint64_t size);
/* size must be a multiple of 4 */
uint32_t copro_emit_fill(struct copro_dmabuf *b, uint64_t dst, uint64_t size,
                         uint32_t pattern);
/* slot < COPRO_TARGET_SLOTS; the surface must satisfy the device's rules */
uint32_t copro_emit_set_target(struct copro_dmabuf *b, unsigned slot,
                               const struct copro_surface *s);
uint32_t copro_emit_rect(struct copro_dmabuf *b, unsigned slot, uint32_t x,
                         uint32_t y, uint32_t w, uint32_t h, uint32_t colour);
uint32_t copro_emit_work(struct copro_dmabuf *b, uint64_t ns);
/* dst and src 8-aligned, 1 <= count <= COPRO_COPY_PTE_MAX entries */
uint32_t copro_emit_copy_pte(struct copro_dmabuf *b, uint64_t dst,
                             uint64_t src, uint32_t count);

/*
 * The tiling path (copro_tiler.h; docs/specs/copro.rst, "Tiling"). slot <
 * COPRO_TARGET_SLOTS; pb 8-aligned, pb_size at most COPRO_PB_MAX; blit
 * x, y, w, h below 65536 and pitch at most COPRO_BLIT_PITCH_MAX; tiles 1
 * to COPRO_TILER_MAX_TILES.
 */
uint32_t copro_emit_scene_begin(struct copro_dmabuf *b, unsigned slot,
                                bool clear, uint64_t pb, uint32_t pb_size,
                                uint32_t clear_colour);
uint32_t copro_emit_bin_rect(struct copro_dmabuf *b, uint32_t x, uint32_t y,
                             uint32_t w, uint32_t h, uint32_t colour);
uint32_t copro_emit_bin_blit(struct copro_dmabuf *b, uint64_t src,
                             uint32_t pitch, uint32_t x, uint32_t y,
                             uint32_t w, uint32_t h);
uint32_t copro_emit_scene_end(struct copro_dmabuf *b);
uint32_t copro_emit_tile_render(struct copro_dmabuf *b, unsigned slot,
                                bool partial, uint64_t pb, uint32_t tiles);

/*
 * Appends ndw dwords verbatim, unchecked: for tests that must hand the
 * engine something malformed (an unknown opcode, a wrong length).
 */
uint32_t copro_emit_raw(struct copro_dmabuf *b, const uint32_t *dw,
                        uint32_t ndw);

/* Why a surface would be refused by SET_TARGET, or NULL if it is fine. */
const char *copro_surface_check(const struct copro_surface *s);

#endif /* FW_KMD_COPRO_DMABUF_H */
