/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DMA buffer splitting on the GPU model: one DMA buffer of a NORMAL
 * context whose six allocations add up to 1.5x vidmm's VRAM (FILLs,
 * COPYs between them, a render target bound once with SET_TARGET and
 * drawn into with RECTs before and after split points), built by the
 * umd, run through vidsch with vidmm's residency and splitting hooks;
 * meanwhile a HIGH context keeps submitting small buffers that bind its
 * own target in the same engine slot (so a portion that drew through a
 * stale binding would draw into the other context's surface), and the
 * NORMAL context queues a second buffer behind the split one. Checked:
 *
 *  - the split buffer runs as two or more portions, in order, each
 *    starting where the previous ended, each loaded with every patch
 *    location of its range equal to its allocation's placement then;
 *  - it is reported done once, with DDI_OK, and the context's next
 *    buffer retires after it; the HIGH context's buffers retire while it
 *    is between its first and last portion;
 *  - every byte of every allocation of both contexts is what the
 *    buffers wrote in order (a host model of FILL, COPY and RECT),
 *    wherever the allocation is at the end;
 *  - no VRAM and no system page leaked once everything is destroyed.
 *
 * With split off, the same buffer is refused (DDI_ENOMEM) instead: what
 * the scheduler did before splitting existed.
 */
#ifndef TESTS_SIM_SIM_SPLIT_H
#define TESTS_SIM_SIM_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_host.h"

struct ssp_result {
    char msg[256];                  /* the first violation, "" if none */
    unsigned portions;              /* distinct portions loaded */
    unsigned loads;                 /* loads of them (resumes too) */
    unsigned others_during;         /* HIGH buffers retired between the
                                       first portion and the last */
    int status;                     /* the split buffer's */
    uint64_t evictions, bytes_moved;
};

/* One run over a host from svm_host_init (sim_vidmm.h); split false: no
 * splitting hooks. False (and r->msg) on the first violation. */
bool ssp_run(struct sim_host *h, uint64_t seed, bool split,
             struct ssp_result *r);

#endif /* TESTS_SIM_SIM_SPLIT_H */
