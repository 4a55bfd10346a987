/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resapp: an application of GPU-VA mode (WDDM 2.x), for the `residency`
 * scenario. Its process has a GPU-VA device: each of its nallocs
 * CPU-visible allocations has a VA for life, its command buffers name
 * memory only by VA (umd_va_*), and it keeps its own residency list:
 *
 *  - before a step renders into allocation i, i must be resident: if the
 *    app holds no reference on it, kapi_make_resident, then
 *    kapi_wait_paging on the returned paging fence, so nothing of the
 *    step runs before the pager has moved i into VRAM and remapped it;
 *  - when the OS asks it to trim (its trim callback, the process over
 *    its budget), it evicts its least recently used allocations until at
 *    least the bytes asked for are released, and makes them resident
 *    again when it next needs them.
 *
 * Steps run one at a time (each waits for the previous one's fence on
 * the CPU), so an allocation it evicts is not in use by its own work and
 * the OS may page it out at once (it would wait otherwise:
 * kernel/kgpuva.h).
 *
 * Contents: allocation i is `chunks` chunks; its u-th use writes chunk u:
 * u = 0 FILLs the chunk with body(i); u > 0 COPYs chunk u - 1 onto it (a
 * read of what an earlier step wrote, perhaps before an eviction and in
 * another VRAM block since); then FILLs its first RESAPP_HEADER bytes
 * with header(i, u). Step s uses allocation s % nallocs; there are
 * nallocs * chunks steps. Then a verify pass makes each allocation
 * resident in turn, locks it and checks every word.
 */
#ifndef FW_APPS_RESAPP_H
#define FW_APPS_RESAPP_H

#include <stdint.h>

#include "apps/app.h"

#define RESAPP_MAX_ALLOCS   16
#define RESAPP_HEADER       16u

struct resapp_config {
    enum vidsch_priority prio;
    uint8_t tag;                /* tells the apps' patterns apart */
    unsigned nallocs;           /* 1..RESAPP_MAX_ALLOCS */
    uint64_t alloc_bytes;       /* chunks * chunk bytes, page multiple */
    unsigned chunks;            /* uses per allocation (>= 1) */
    uint64_t budget;            /* the process's, bytes (0: none) */
    uint64_t work_ns;           /* WORK per step */
};

enum resapp_phase { RESAPP_RENDER, RESAPP_VERIFY, RESAPP_DONE };

struct resapp {
    struct app app;             /* first */
    struct resapp_config cfg;
    uint32_t hsync;
    uint64_t sync_value;
    uint32_t halloc[RESAPP_MAX_ALLOCS];
    uint64_t va[RESAPP_MAX_ALLOCS];
    bool held[RESAPP_MAX_ALLOCS];       /* our reference on the list */
    uint64_t last_use[RESAPP_MAX_ALLOCS];   /* step: the LRU order */
    unsigned uses[RESAPP_MAX_ALLOCS];
    enum resapp_phase phase;
    uint64_t step;
    unsigned current;           /* allocation of the step in flight */
    /* figures */
    uint64_t trims, first_trim_bytes, trim_bytes, evicted_bytes;
    uint64_t make_residents, paging_waits;
    uint64_t verified, bad_words;
    uint32_t cmd[64];
};

void resapp_config_default(struct resapp_config *c);

/* Process, GPU-VA device, context, sync object, allocations (not
 * resident), budget and trim callback. DDI_OK or the failing call's
 * code (recorded in the app). */
int resapp_init(struct resapp *m, struct kernel *k, const char *name,
                const struct resapp_config *cfg);

static inline struct app *resapp_app(struct resapp *m)
{
    return &m->app;
}

#endif /* FW_APPS_RESAPP_H */
