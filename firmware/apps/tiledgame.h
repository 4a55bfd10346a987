/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiledgame: an application that renders in scenes (docs/specs/copro.rst,
 * "Tiling"), GPU-VA mode. Each frame is an overdraw-heavy scene (full
 * layers, then smaller rectangles over them) built as two command
 * buffers, as a scene-based driver submits them: the geometry buffer
 * (SCENE_BEGIN, BIN_RECTs, SCENE_END) on its geometry context and the
 * tile buffer (TILE_RENDER) on its tile context, which waits for the
 * geometry's GPU signal (the dependency between a scene's two halves).
 * Its parameter buffer is the kernel's (kapi_create_scene_pb): when a
 * scene does not fit, the kernel grows it (TILER_OOM, kernel/kscene.h)
 * and the geometry resumes; with `partial`, the game also gives the
 * kernel its partial render (kapi_scene_pb_partial: SET_TARGET and a
 * TILE_RENDER with COPRO_TILE_PARTIAL on its target), which the kernel
 * runs when the buffer may not grow, before the geometry resumes. After
 * each frame the CPU checks every pixel against the frame drawn on the
 * CPU, keeps a checksum of the frame (frames of two games with the same
 * seed and size compare equal however their scenes were built) and
 * reads the scene header's count of partial renders. Its latency
 * samples are the tile pass's wait: from the geometry's last packet (a
 * TIMESTAMP after SCENE_END) to the tile buffer's first (a TIMESTAMP
 * before TILE_RENDER), on the device's clock.
 */
#ifndef FW_APPS_TILEDGAME_H
#define FW_APPS_TILEDGAME_H

#include <stdint.h>

#include "apps/app.h"
#include "apps/scene_pipe.h"
#include "kernel/ktimer.h"

#define TILEDGAME_MAX_W     256u
#define TILEDGAME_MAX_H     192u
#define TILEDGAME_LAYERS    8u      /* full-target rectangles per frame */
#define TILEDGAME_RECTS     24u     /* then smaller ones */
#define TILEDGAME_CMD_DW    512u
#define TILEDGAME_CRC_FRAMES 16u    /* frames whose checksum is kept */

struct tiledgame_config {
    enum vidsch_priority prio;
    unsigned tile_engine;       /* the tile context's engine */
    unsigned frames;
    uint32_t width, height;     /* at most TILEDGAME_MAX_W x _H */
    uint32_t pb_size;           /* the parameter buffer's first size */
    uint32_t pb_reserved;       /* what it may grow to */
    uint64_t pb_budget;         /* the process's budget for its parameter
                                   buffers (0: pb_reserved) */
    bool partial;               /* give the kernel the partial render */
    bool partial_faults;        /* (hostile) ... rendering to a surface
                                   it never made resident: it faults */
    uint32_t seed;
};

struct tiledgame {
    struct app app;             /* first; hctx: sp.hgeom */
    struct tiledgame_config cfg;
    struct scene_pipe sp;
    uint32_t htarget, hstamp, hunmapped;
    uint64_t target_va, stamp_va;
    uint32_t tiles;             /* a frame's, at the device's tile size */
    unsigned frame;
    bool done;
    uint64_t frames_checked, bad_pixels;
    uint64_t scene_partials;    /* the scene headers' partial renders */
    uint64_t scene_ns;          /* their geom_start -> tile_end, summed */
    uint32_t crc[TILEDGAME_CRC_FRAMES];     /* of frame f's pixels */
    struct ktimer check;        /* the next band of the pixel check */
    uint32_t check_y;           /* its first row */
    uint32_t check_crc;         /* the frame's checksum so far */
    uint32_t cmd[TILEDGAME_CMD_DW];
    uint32_t ref[TILEDGAME_MAX_W * TILEDGAME_MAX_H];
};

void tiledgame_config_default(struct tiledgame_config *c);
int tiledgame_init(struct tiledgame *g, struct kernel *k, const char *name,
                   const struct tiledgame_config *cfg);

static inline struct app *tiledgame_app(struct tiledgame *g)
{
    return &g->app;
}

#endif /* FW_APPS_TILEDGAME_H */
