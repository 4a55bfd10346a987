/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An application's scene pipeline (docs/specs/copro.rst "Tiling";
 * docs/scheduler.rst "Scheduler classes"): in one GPU-VA device, a
 * geometry context and a tile context, a parameter buffer made by the
 * kernel, and the dependency between a scene's two halves: frame n's
 * geometry signals hsync_geom = n, its tile pass waits for that on the
 * GPU and signals hsync_tile = n. Used by the tiled game and the scene
 * compositor alike.
 */
#ifndef FW_APPS_SCENE_PIPE_H
#define FW_APPS_SCENE_PIPE_H

#include <stdint.h>

#include "kernel/kapi.h"
#include "umd/umd.h"

struct scene_pipe {
    uint32_t hgeom, htile;              /* the two contexts */
    uint32_t hsync_geom, hsync_tile;    /* frame n's halves done: n */
    uint32_t hpb;                       /* the parameter buffer */
    uint64_t pb_va;
};

/* Its contexts (geometry on @geom_engine, tile passes on @tile_engine,
 * both at @prio), sync objects and parameter buffer (@pd) in @hdev. */
int scene_pipe_create(struct scene_pipe *sp, struct kproc *p, uint32_t hdev,
                      unsigned geom_engine, unsigned tile_engine,
                      enum vidsch_priority prio,
                      const struct kapi_scene_pb_desc *pd);

/* Nothing either context runs after this before paging @fence (0: no
 * wait) is done. */
int scene_pipe_wait_paging(const struct scene_pipe *sp, struct kproc *p,
                           uint64_t fence);

/* Frame @n's geometry buffer, then its signal. */
int scene_pipe_geometry(const struct scene_pipe *sp, struct kproc *p,
                        const struct umd_cmdbuf *b, uint64_t n);

/* Frame @n's tile buffer, held until its geometry is done, then its
 * signal. */
int scene_pipe_tiles(const struct scene_pipe *sp, struct kproc *p,
                     const struct umd_cmdbuf *b, uint64_t n);

#endif /* FW_APPS_SCENE_PIPE_H */
