/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The user-mode driver (WDDM's UMD): what an application uses to build
 * command buffers. The application names memory by allocation handle and
 * offset, never by GPU address; the builder writes copro packets
 * (through the kmd's packet encoders, with every address field left zero)
 * and keeps, beside them, the allocation list (one entry per handle, with
 * whether the buffer writes it) and the patch-location list (one entry
 * per address field: which list slot, which offset in the allocation).
 * render (kernel side) validates the three and the kernel patches the
 * addresses in at schedule time.
 *
 * Every packet that uses an allocation is a split point (its byte offset
 * is the patch location's split_offset): a DMA buffer may be cut there
 * when its allocations do not all fit at once, and each portion runs
 * with its own placement (vidmm may move an allocation between two
 * portions). A SET_TARGET records its target slot as slot_id.
 *
 * State after a split point [the splitting rule: the UMD reprograms its
 * state after each split point]: a target binding is engine state that
 * outlives its packet, so a RECT after a split point would draw through
 * an address patched for an earlier portion. The builder therefore
 * re-emits the slot's SET_TARGET (same allocation, offset and surface)
 * before a RECT whenever a split point came after the slot's last
 * SET_TARGET: every RECT follows its binding with no split point in
 * between, so whatever portion holds the RECT holds (and patches) the
 * binding it draws through, and any split point is a valid start.
 *
 * As with copro_dmabuf, a packet that does not fit (buffer, allocation
 * list or patch list full) is not written at all and the first failure is
 * remembered in b->error.
 *
 * Pure C, no hardware: unit-tested on the host (tests/unit/test-umd.c).
 */
#ifndef FW_UMD_UMD_H
#define FW_UMD_UMD_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "kmd/copro_dmabuf.h"

#define UMD_FAILED      COPRO_DMABUF_FAILED

/* A target slot's binding, to program it again after a split point. */
struct umd_target {
    bool bound;
    uint32_t handle;
    uint64_t off;
    uint32_t pitch, width, height, format;
    uint32_t splits;                /* split points emitted up to and
                                       including its SET_TARGET */
};

struct umd_cmdbuf {
    struct copro_dmabuf enc;        /* the packets, addresses zero */
    unsigned nalloc;
    struct ddi_alloc_ref alloc[DDI_MAX_ALLOC_LIST];
    unsigned npatch;
    struct ddi_patch_loc patch[DDI_MAX_PATCH_LIST];
    const char *error;              /* first refused packet, NULL if none */
    uint32_t splits;                /* split points emitted */
    struct umd_target target[COPRO_TARGET_SLOTS];
    unsigned rebinds;               /* SET_TARGETs re-emitted */
};

/* Starts an empty command buffer over bytes of storage (the app's). */
void umd_init(struct umd_cmdbuf *b, uint32_t *storage, uint32_t bytes);

/* Empties it (lists too), keeping the storage. */
void umd_reset(struct umd_cmdbuf *b);

static inline bool umd_ok(const struct umd_cmdbuf *b)
{
    return b->error == NULL && copro_dmabuf_ok(&b->enc);
}

static inline const uint32_t *umd_words(const struct umd_cmdbuf *b)
{
    return b->enc.dw;
}

static inline uint32_t umd_bytes(const struct umd_cmdbuf *b)
{
    return copro_dmabuf_bytes(&b->enc);
}

/*
 * The list slot of handle, added if new; write marks it written (a slot
 * once written stays so). -1 when the list is full.
 */
int umd_slot(struct umd_cmdbuf *b, uint32_t handle, bool write);

/*
 * Packets. Each returns the packet's byte offset, or UMD_FAILED. Offsets
 * are bytes into the allocation named by its handle.
 */
uint32_t umd_nop(struct umd_cmdbuf *b, uint32_t ndw);
uint32_t umd_timestamp(struct umd_cmdbuf *b, uint32_t h, uint64_t off);
uint32_t umd_fence(struct umd_cmdbuf *b, uint32_t h, uint64_t off,
                   uint64_t value);
uint32_t umd_wait(struct umd_cmdbuf *b, uint32_t h, uint64_t off,
                  uint64_t value);
uint32_t umd_copy(struct umd_cmdbuf *b, uint32_t dst, uint64_t dst_off,
                  uint32_t src, uint64_t src_off, uint64_t size);
uint32_t umd_fill(struct umd_cmdbuf *b, uint32_t h, uint64_t off,
                  uint64_t size, uint32_t pattern);
/* Binds pitch x height rows at off in allocation h to target slot. */
uint32_t umd_set_target(struct umd_cmdbuf *b, unsigned slot, uint32_t h,
                        uint64_t off, uint32_t pitch, uint32_t width,
                        uint32_t height, uint32_t format);
/* Re-emits slot's SET_TARGET first if a split point came after it (its
 * offset is then the SET_TARGET's, the RECT right after it). */
uint32_t umd_rect(struct umd_cmdbuf *b, unsigned slot, uint32_t x,
                  uint32_t y, uint32_t w, uint32_t h, uint32_t colour);
uint32_t umd_work(struct umd_cmdbuf *b, uint64_t ns);

/*
 * GPU-VA mode (WDDM 2.x): the address fields are GPU virtual addresses of
 * the process's space (kapi_gpu_va), written as they are; no allocation
 * or patch-location list (the buffer is submitted with none). Mixing them
 * with the handle packets above in one buffer is refused by the kernel.
 */
uint32_t umd_va_fill(struct umd_cmdbuf *b, uint64_t va, uint64_t size,
                     uint32_t pattern);
uint32_t umd_va_copy(struct umd_cmdbuf *b, uint64_t dst_va, uint64_t src_va,
                     uint64_t size);
uint32_t umd_va_set_target(struct umd_cmdbuf *b, unsigned slot, uint64_t va,
                           uint32_t pitch, uint32_t width, uint32_t height,
                           uint32_t format);
/* TIMESTAMP: the GPU time (8 bytes) at va when the packet executes. */
uint32_t umd_va_timestamp(struct umd_cmdbuf *b, uint64_t va);

/*
 * A scene (docs/specs/copro.rst, "Tiling"), GPU-VA mode only: a geometry
 * buffer (umd_va_set_target, umd_va_scene_begin, umd_bin_rect /
 * umd_va_bin_blit, umd_scene_end) and a tile buffer (umd_va_set_target,
 * umd_va_tile_render) over a parameter buffer at pb_va. The slots must be
 * bound in the same buffer.
 */
uint32_t umd_va_scene_begin(struct umd_cmdbuf *b, unsigned slot, bool clear,
                            uint64_t pb_va, uint32_t pb_size,
                            uint32_t clear_colour);
uint32_t umd_bin_rect(struct umd_cmdbuf *b, uint32_t x, uint32_t y,
                      uint32_t w, uint32_t h, uint32_t colour);
uint32_t umd_va_bin_blit(struct umd_cmdbuf *b, uint64_t src_va,
                         uint32_t pitch, uint32_t x, uint32_t y, uint32_t w,
                         uint32_t h);
uint32_t umd_scene_end(struct umd_cmdbuf *b);
uint32_t umd_va_tile_render(struct umd_cmdbuf *b, unsigned slot,
                            bool partial, uint64_t pb_va, uint32_t tiles);

#endif /* FW_UMD_UMD_H */
