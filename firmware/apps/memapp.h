/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * memapp: an application that is mostly memory, for vidmm's scenarios
 * (oversubscribe, fighting). It owns nallocs CPU-visible allocations of
 * alloc_bytes each (its working set) and runs frames back to back; frame
 * n uses a window of per_frame of them, the next ones in turn, so over a
 * run it touches its whole set again and again, and a DMA buffer's
 * allocation list is the window.
 *
 * Each allocation is a row of stripes of MEMAPP_STRIPE bytes. The u-th
 * use of allocation i (u = 0, 1, ...) writes stripe u % S:
 *
 *   u = 0: FILL the stripe with body(i);
 *   u > 0: COPY stripe (u - 1) % S onto it (a read of what an earlier
 *          frame wrote, perhaps in another placement since);
 *   then FILL its first MEMAPP_HEADER bytes with header(i, u).
 *
 * So at the end stripe k holds header(i, last use that wrote it) and
 * body(i) after it, or zeros if no use reached it: checked by content
 * after the run, every byte. Content lost or mixed up in an eviction, a
 * stale copy brought back, an address patched to another allocation:
 * each shows as wrong words. WORK of work_ns per frame stands for the
 * shading a real frame does with its textures.
 */
#ifndef FW_APPS_MEMAPP_H
#define FW_APPS_MEMAPP_H

#include <stdint.h>

#include "apps/frameapp.h"

#define MEMAPP_MAX_ALLOCS   32
#define MEMAPP_STRIPE       65536u
#define MEMAPP_HEADER       16u

struct memapp_config {
    enum vidsch_priority prio;
    uint8_t tag;                /* tells the apps' patterns apart */
    unsigned nallocs;           /* 1..MEMAPP_MAX_ALLOCS */
    uint64_t alloc_bytes;       /* a multiple of MEMAPP_STRIPE */
    unsigned per_frame;         /* allocations a frame uses, <= nallocs */
    uint64_t work_ns;           /* WORK per frame */
    uint64_t max_frames;        /* 0: until stopped */
    bool local_only;            /* VRAM only, never through the aperture
                                   (render targets' placement): a frame
                                   runs only with its working set in
                                   VRAM */
};

struct memapp {
    struct frameapp f;          /* first */
    struct memapp_config cfg;
    uint32_t halloc[MEMAPP_MAX_ALLOCS];
    uint64_t uses[MEMAPP_MAX_ALLOCS];   /* uses built so far */
    unsigned next;              /* first allocation of the next window */
    uint32_t cmd[512];
};

void memapp_config_default(struct memapp_config *c);

/* DDI_OK or the failing call's code (the allocations are created here:
 * an oversubscribed OS must accept more than fits in VRAM). */
int memapp_init(struct memapp *m, struct kernel *k, const char *name,
                const struct memapp_config *cfg);

static inline struct app *memapp_app(struct memapp *m)
{
    return &m->f.app;
}

/* The working set, bytes. */
static inline uint64_t memapp_bytes(const struct memapp_config *c)
{
    return (uint64_t)c->nallocs * c->alloc_bytes;
}

#endif /* FW_APPS_MEMAPP_H */
