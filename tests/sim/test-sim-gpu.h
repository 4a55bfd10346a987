/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-sim-gpu's recorder, shared by its two files (test-sim-gpu.c: the
 * engines; test-sim-gpu-tiler.c: the tiler): a GPU model whose upcalls
 * and observer events are recorded.
 */
#ifndef TESTS_SIM_TEST_SIM_GPU_H
#define TESTS_SIM_TEST_SIM_GPU_H

#include <glib.h>
#include <string.h>

#include "sim_gpu.h"

#define US  1000ull
#define MS  1000000ull
#define CS  30517ull    /* 256 KiB of context state at 8 GiB/s */

struct rec {
    struct sim_clock clk;
    struct sim_gpu *g;
    struct { unsigned engine; uint64_t completed, at; } done[64];
    unsigned ndone;
    struct { uint64_t pf, preempted, completed, at; } pre[16];
    unsigned npre;
    struct ddi_fault fault[8];
    unsigned nfault;
    struct { unsigned engine; uint64_t fence, completed; uint32_t need; }
        oom[8];
    unsigned noom;
    unsigned dropped;       /* from the observer */
    unsigned loaded;
    /* (tiler) tiles rendered, by tile, and the primitives in their bins */
    unsigned tile_done[64], tile_prims, passes, partial_passes;
};

extern const struct ddi_upcalls rec_up;
extern const struct sim_gpu_observer rec_obs;

void rec_init(struct rec *r, unsigned preemption);
void rec_fini(struct rec *r);
void run_until(struct rec *r, uint64_t t);
/* A DMA buffer of n WORK packets of ns each; its address, *len */
uint64_t buf_work(struct rec *r, uint32_t *len, unsigned n, uint64_t ns);
int submit(struct rec *r, unsigned engine, uint64_t addr, uint32_t len,
           uint64_t fence, uint32_t flags, uint64_t save);

/* test-sim-gpu-tiler.c's cases */
void sim_gpu_tiler_tests(void);

#endif /* TESTS_SIM_TEST_SIM_GPU_H */
