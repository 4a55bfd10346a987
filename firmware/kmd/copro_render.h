/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copro miniport's render and patch [DxgkDdiRender, DxgkDdiPatch],
 * without the hardware: the validator that turns an application's command
 * buffer into a kernel DMA buffer, and the patcher that writes GPU
 * addresses into it at schedule time.
 *
 * An application names memory only through its allocation list (handles
 * the kernel has already resolved against the calling process) and never
 * supplies an address: every GPU-address field of its packets must be
 * zero and described by exactly one patch location, which says which
 * allocation (slot) and which offset in it the field will point at. The
 * validator works on the kernel's copy (the application could change its
 * own buffer afterwards) and refuses, with a DDI_E* code and nothing
 * reaching the GPU:
 *
 *   DDI_EINVAL   sizes (empty, not a multiple of 4, larger than the DMA
 *                buffer or COPRO_DMA_MAX, list lengths), duplicate
 *                allocation handles, a packet of length 0 or running past
 *                the end, a wrong fixed length, unknown flags, a non-zero
 *                address field, an address field without a patch location,
 *                a patch location that is not on an address field (or
 *                names the wrong packet, hardware slot or allocation slot),
 *                a write to an allocation listed read-only, a bad surface
 *                (format, dimensions, pitch), a RECT on a target slot not
 *                bound since the last split point (every packet with an
 *                address field is one: a portion may start there, after
 *                other contexts bound their own targets), FILL sizes not
 *                a multiple of 4, more
 *                WORK than COPRO_RENDER_MAX_WORK_NS;
 *   DDI_EOPCODE  an opcode that is unknown, reserved to the kernel
 *                (INTERRUPT, COPY_PTE) or not run by the target engine
 *                (COPRO_COPY_ENGINE_OPS);
 *   DDI_EBOUNDS  an access beyond its allocation: COPY source and
 *                destination and FILL by their size, TIMESTAMP, FENCE and
 *                WAIT by 8 bytes (8-aligned), SET_TARGET by pitch * height.
 *
 * Pure C, no hardware: unit-tested on the host, hostile buffers included
 * (tests/unit/test-copro-render.c).
 */
#ifndef FW_KMD_COPRO_RENDER_H
#define FW_KMD_COPRO_RENDER_H

#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_tiler.h>

#include "ddi/ddi.h"

/* Packets an application may submit; the rest are the kernel's. */
#define COPRO_RENDER_APP_OPS                                               \
    ((1u << COPRO_OP_NOP) | (1u << COPRO_OP_TIMESTAMP) |                   \
     (1u << COPRO_OP_FENCE) | (1u << COPRO_OP_WAIT) |                      \
     (1u << COPRO_OP_COPY) | (1u << COPRO_OP_FILL) |                       \
     (1u << COPRO_OP_SET_TARGET) | (1u << COPRO_OP_RECT) |                 \
     (1u << COPRO_OP_WORK) | COPRO_RENDER_SCENE_OPS)

/*
 * The tiling path (copro_tiler.h), GPU-VA mode only: a scene's packets
 * carry a parameter buffer the device writes up to a size kept in the
 * buffer itself, and a scene may span buffers, so they are accepted only
 * where the context's page tables confine every access to the process
 * (DDI_EOPCODE with an allocation list). Their slots must be bound in the
 * same buffer; flags, alignment and sizes are checked (DDI_EINVAL).
 */
#define COPRO_RENDER_SCENE_OPS                                             \
    ((1u << COPRO_OP_SCENE_BEGIN) | (1u << COPRO_OP_BIN_RECT) |            \
     (1u << COPRO_OP_BIN_BLIT) | (1u << COPRO_OP_SCENE_END) |              \
     (1u << COPRO_OP_TILE_RENDER))

/* Most synthetic work one buffer may ask for (a minute: a hog of many
 * seconds is fine, 2^63 ns is not). */
#define COPRO_RENDER_MAX_WORK_NS    (60ull * 1000 * 1000 * 1000)

/* Where and why a buffer was refused, for the kernel's log. */
struct copro_render_diag {
    int status;
    uint32_t offset;        /* packet's byte offset, UINT32_MAX if none */
    const char *why;
};

/*
 * Validates a->cmd for engine_ops (1u << COPRO_OP_* the engine runs) and
 * copies it into out (out->dw, out->cap_bytes and out->gpu_addr are the
 * caller's; every other field is filled): the allocation list, the patch
 * locations sorted by patch_offset, work_ns. DDI_OK or the refusal; diag
 * (optional) says where and why.
 */
int copro_render_validate(const struct ddi_render_args *a,
                          uint32_t engine_ops, struct ddi_dmabuf *out,
                          struct copro_render_diag *diag);

/*
 * Writes alloc[slot].gpu_addr + alloc_offset at every patch location of
 * buf whose split_offset lies in [first_byte, end_byte). alloc is
 * parallel to buf->alloc. DDI_EINVAL if a location names a slot beyond
 * the list or lies outside the buffer (a validated buffer has none).
 */
int copro_render_patch(struct ddi_dmabuf *buf,
                       const struct ddi_alloc_desc *alloc,
                       uint32_t first_byte, uint32_t end_byte);

#endif /* FW_KMD_COPRO_RENDER_H */
