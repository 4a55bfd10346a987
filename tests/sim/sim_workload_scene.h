/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seeded random scene-based workloads for the tiler's property tests
 * (sim_check_scene.h): processes that render in scenes, as the tiled game
 * does (firmware/apps/tiledgame.c), each with a geometry context on
 * engine 0 and a tile context on engine 2 at the process's priority. A
 * scene is a geometry buffer (SET_TARGET, SCENE_BEGIN, BIN_RECT..,
 * SCENE_END) and a tile buffer (SET_TARGET, TILE_RENDER) held on the
 * geometry's signal (vidsch_signal, vidsch_wait). Process 0 is a
 * compositor-like HIGH process with small scenes arriving periodically;
 * the others, at lower priorities, render large scenes (long tile passes
 * that it preempts at tile boundaries). Parameter buffers are sized from
 * generous to one primitive's worth, so OOM stops happen; a process may
 * grow its buffers (a reservation and a budget) or not.
 *
 * The same seed gives the same workload (and the same run).
 */
#ifndef TESTS_SIM_SIM_WORKLOAD_SCENE_H
#define TESTS_SIM_SIM_WORKLOAD_SCENE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_gpu.h"
#include "vidsch/vidsch.h"

#define WLS_MAX_PROC    6
#define WLS_MAX_SCENE   40
#define WLS_MAX_PRIM    24

struct wls_prim {
    uint16_t x, y, w, h;
};

struct wls_scene {
    uint64_t at;                /* submission time */
    uint8_t proc;
    uint8_t nprim;
    uint16_t width, height;     /* the target */
    uint32_t pb_size;           /* the parameter buffer's usable bytes */
    uint32_t pb_reserved;       /* ... and how far it may grow */
    struct wls_prim prim[WLS_MAX_PRIM];
};

struct wls_proc {
    uint8_t prio;               /* enum vidsch_priority */
    uint32_t budget;            /* bytes its parameter buffers may grow */
    bool no_partial;            /* the OS cannot render its scenes in
                                   part (no kernel context): an OOM its
                                   budget cannot grow fails, and loses
                                   its geometry context */
};

struct scene_workload {
    uint64_t seed;
    struct sim_gpu_config gpu;
    struct vidsch_config vs;
    uint64_t prep_ns, prep_jitter_ns;
    unsigned nproc, nscene;
    struct wls_proc proc[WLS_MAX_PROC];
    struct wls_scene scene[WLS_MAX_SCENE];  /* in time order */
    /* derived, for the checkers' bounds */
    uint64_t max_tile_ns;       /* the longest tile, modelled */
};

void wls_generate(struct scene_workload *w, uint64_t seed);

/* Tiles of scene s at the workload's tile size. */
uint32_t wls_tiles(const struct scene_workload *w,
                   const struct wls_scene *s);

/* Tiles primitive p of scene s touches once clipped (0: none, it bins
 * nothing). */
uint32_t wls_prim_tiles(const struct scene_workload *w,
                        const struct wls_scene *s, const struct wls_prim *p);

/* Builds scene s's geometry buffer (into dw, returns its dwords) for
 * the parameter buffer pb and the target at target. */
unsigned wls_emit_geometry(const struct scene_workload *w,
                           const struct wls_scene *s, uint32_t *dw,
                           uint64_t pb, uint64_t target);
/* ... and a tile pass over it (partial or final). */
unsigned wls_emit_tiles(const struct scene_workload *w,
                        const struct wls_scene *s, uint32_t *dw, uint64_t pb,
                        uint64_t target, bool partial);

void wls_describe(const struct scene_workload *w, FILE *f);

#endif /* TESTS_SIM_SIM_WORKLOAD_SCENE_H */
