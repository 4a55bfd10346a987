/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * splitapp: an application whose every frame is one DMA buffer that does
 * not fit in VRAM (the split scenario): six allocations of alloc_bytes
 * each (1.5x VRAM when alloc_bytes is a quarter of it) used by FILLs,
 * COPYs between them, and RECTs into a render target in allocation 2
 * bound once with SET_TARGET, before and after split points (the umd
 * binds the target again where a portion may start). vidmm cannot make
 * the list resident at once; vidsch runs the buffer in portions.
 *
 * Frame n writes, in order:
 *   FILL a0, a1, a2 with body(i, n); SET_TARGET slot 0 <- a2 (256 wide);
 *   RECT the whole target with colour(n, 1); FILL a3; COPY the first
 *   half of a0 onto a4; RECT (16, 16, 32, 32) colour(n, 2); FILL a5;
 *   COPY the second half of a1 onto the first half of a5; COPY a3 onto
 *   a0; FILL the second half of a4; RECT (8, 64, 50, 40) colour(n, 3);
 *   WORK.
 * Every byte of every allocation is written by each frame, so after the
 * last frame N each holds a function of N alone: checked by content,
 * every word, after the run (kapi_lock).
 *
 * Uses only the kernel API and the umd, like every application.
 */
#ifndef FW_APPS_SPLITAPP_H
#define FW_APPS_SPLITAPP_H

#include <stdint.h>

#include "apps/frameapp.h"

#define SPLITAPP_ALLOCS     6
#define SPLITAPP_TGT_W      256     /* target width, pixels (XRGB8888) */

struct splitapp_config {
    enum vidsch_priority prio;
    uint8_t tag;
    uint64_t alloc_bytes;       /* a multiple of 64 KiB, >= 128 KiB */
    uint64_t work_ns;           /* WORK per frame */
    uint64_t max_frames;        /* 0: until stopped */
    /* a working set that varies (split=schedule|upfront|both compared,
     * issue 29): frames cycle through the whole set (6 allocations),
     * a third of it (a0, a3) and two thirds (a0, a1, a3, a4), the last
     * frame (max_frames, which must be set) whole; the partial frames
     * write only their allocations and the last frame every byte, so
     * the content check is the same */
    bool vary;
};

struct splitapp {
    struct frameapp f;          /* first */
    struct splitapp_config cfg;
    uint32_t halloc[SPLITAPP_ALLOCS];
    uint32_t tgt_h;             /* target rows */
    uint32_t cmd[512];
};

void splitapp_config_default(struct splitapp_config *c);

/* DDI_OK or the failing call's code. */
int splitapp_init(struct splitapp *m, struct kernel *k, const char *name,
                  const struct splitapp_config *cfg);

static inline struct app *splitapp_app(struct splitapp *m)
{
    return &m->f.app;
}

#endif /* FW_APPS_SPLITAPP_H */
