/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the tiling path, device-internal state (copro-tiler.c,
 * copro-tiler-state.c)
 *
 * The guest-visible ABI is include/copro/copro_tiler.h.
 */
#ifndef HW_COPRO_TILER_H
#define HW_COPRO_TILER_H

#include "copro/copro_tiler.h"

/* per engine: what the tiler keeps between packets */
typedef struct CoproTilerEngine {
    uint64_t scene;         /* parameter buffer of the scene open here */
    uint32_t scene_ctx;     /* the context that opened it */
    uint32_t scene_w;       /* its target size (binning cost only) */
    uint32_t scene_h;
    uint64_t tile_cost;     /* TILE_RENDER: ns of the tile planned */
    uint32_t cause;         /* COPRO_TILER_ERR_* */
    uint32_t oom_need;
    uint64_t oom_fence;
    /* stopped by OOM: the kernel ring is not fetched until TILER_ACK */
    bool held;
    uint64_t stat_mem_read;
    uint64_t stat_mem_write;
} CoproTilerEngine;

/* statistics registers, in register order from ..._STAT_SCENES */
enum {
    COPRO_TS_SCENES,
    COPRO_TS_PRIMS,
    COPRO_TS_TILES,
    COPRO_TS_LOADS,
    COPRO_TS_LOAD_SKIPS,
    COPRO_TS_STORES,
    COPRO_TS_TILE_BYTES,
    COPRO_TS_PB_READ,
    COPRO_TS_PB_WRITE,
    COPRO_TS_OOMS,
    COPRO_TS_PARTIALS,
    COPRO_TS_COUNT,
};

typedef struct CoproTiler {
    uint32_t tile_size;     /* property "tile-size" */
    uint64_t tile_ns;       /* property "tile-ns" */
    uint64_t stat[COPRO_TS_COUNT];
    /*
     * The on-chip tile memory: tile_size^2 pixels of up to 4 bytes. A tile
     * is rendered within one step, so it holds nothing between steps and
     * is not migrated.
     */
    uint8_t *tile_mem;
} CoproTiler;

#endif /* HW_COPRO_TILER_H */
