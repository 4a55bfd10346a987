/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "vidmm/vidmm_pb.h"

#include <copro/copro_tiler.h>

#include "ddi/ddi.h"

#define PAGE    4096u

int vidmm_pb_init(struct vidmm_pb *pb, uint64_t va, uint32_t tiles,
                  uint32_t size, uint32_t reserved, uint32_t step)
{
    uint32_t heap;

    if ((va & 7) || !tiles || tiles > COPRO_TILER_MAX_TILES ||
        !step || step % PAGE || reserved > COPRO_PB_MAX || size > reserved) {
        return DDI_EINVAL;
    }
    heap = copro_scene_heap_start(tiles);
    /* a buffer that cannot hold the smallest primitive even empty is
     * useless; one that holds small ones only may grow, and a primitive
     * larger than its empty heap fails (vidmm_pb_oom) */
    if (size < heap + COPRO_PRIM_NEED(1)) {
        return DDI_EINVAL;
    }
    *pb = (struct vidmm_pb){
        .va = va, .size = size, .reserved = reserved, .step = step,
        .heap_start = heap,
    };
    return DDI_OK;
}

enum vidmm_pb_answer vidmm_pb_oom(struct vidmm_pb *pb, uint32_t used,
                                  uint32_t need, uint64_t budget_left,
                                  uint32_t *new_size)
{
    uint64_t want = (uint64_t)used + need, grown;

    pb->ooms++;
    /* the header is the device's word, but checked: used within size */
    if (used < pb->heap_start || used > pb->size) {
        pb->fails++;
        return VIDMM_PB_FAIL;
    }
    /* grow by whole steps until the primitive fits */
    grown = pb->size;
    while (grown < want) {
        grown += pb->step;
    }
    if (grown <= pb->reserved && grown - pb->size <= budget_left) {
        pb->grows++;
        pb->grown_bytes += grown - pb->size;
        pb->size = (uint32_t)grown;
        *new_size = pb->size;
        return VIDMM_PB_GROW;
    }
    if (!pb->no_partial && need <= pb->size - pb->heap_start) {
        pb->partials++;
        return VIDMM_PB_PARTIAL;
    }
    pb->fails++;
    return VIDMM_PB_FAIL;
}
