/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm: parameter buffers of scene-based rendering (the device's tiling
 * path, docs/specs/copro.rst "Tiling"), as PowerVR's and Mali's kernel
 * drivers own their free lists and tiler heaps.
 *
 * A parameter buffer is a VA range of the process: `size` bytes the
 * device may use now (the header's pb_size), inside `reserved` bytes of
 * VA kept free after its start so that it can grow in place. When the
 * geometry stage stops with TILER_OOM (the header says `used` and the
 * `need` of the primitive that did not fit), vidmm answers:
 *
 *   GROW     size += the grow step (rounded up to cover used + need),
 *            if that stays within the reservation and the process's
 *            remaining budget: the caller commits the new pages, writes
 *            pb_size and resumes the geometry;
 *   PARTIAL  otherwise, if the caller can run a partial render (the
 *            process gave one for the scene, kernel/kscene.h; else it
 *            sets no_partial) and an emptied heap holds the primitive:
 *            the caller runs a partial TILE_RENDER, then resumes (the
 *            device empties the bins, so a later OOM of the same scene
 *            is answered the same way);
 *   FAIL     neither: no partial render to run, or no amount of partial
 *            rendering makes the primitive fit (the scene is lost; the
 *            context is put in error).
 *
 * and counts each. Pure C, no hardware: unit-tested on the host
 * (tests/unit/test-vidmm-pb.c); the kernel asks it on every TILER_OOM
 * (kernel/kscene.c).
 */
#ifndef FW_VIDMM_VIDMM_PB_H
#define FW_VIDMM_VIDMM_PB_H

#include <stdbool.h>
#include <stdint.h>

struct vidmm_pb {
    uint64_t va;            /* start, 8-aligned */
    uint32_t size;          /* usable now (the header's pb_size) */
    uint32_t reserved;      /* VA kept after va: the most it grows to */
    uint32_t step;          /* bytes per grow, a multiple of 4 KiB */
    uint32_t heap_start;    /* of the scene's tile count */
    bool no_partial;        /* the caller's, before vidmm_pb_oom: it
                               cannot run a partial render now (none
                               given, one on its way), so what would be
                               PARTIAL is FAIL */
    /* counters */
    uint32_t ooms;
    uint32_t grows;
    uint32_t partials;
    uint32_t fails;
    uint64_t grown_bytes;
};

enum vidmm_pb_answer {
    VIDMM_PB_GROW,
    VIDMM_PB_PARTIAL,
    VIDMM_PB_FAIL,
};

/*
 * A parameter buffer for scenes of @tiles tiles at @va: @size usable
 * (at least the smallest primitive's worth, COPRO_PRIM_NEED(1), over the
 * tile table; COPRO_PRIM_NEED(@tiles) holds any), @reserved at
 * most COPRO_PB_MAX, @step a non-zero multiple of 4 KiB. DDI_OK or
 * DDI_EINVAL.
 */
int vidmm_pb_init(struct vidmm_pb *pb, uint64_t va, uint32_t tiles,
                  uint32_t size, uint32_t reserved, uint32_t step);

/*
 * The answer to an OOM with the header's @used and @need, the process
 * able to commit @budget_left more bytes, the caller able to run a
 * partial render of the scene unless it set pb->no_partial; for GROW,
 * *new_size is the pb_size to write (pb->size is updated).
 */
enum vidmm_pb_answer vidmm_pb_oom(struct vidmm_pb *pb, uint32_t used,
                                  uint32_t need, uint64_t budget_left,
                                  uint32_t *new_size);

#endif /* FW_VIDMM_VIDMM_PB_H */
