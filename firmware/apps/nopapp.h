/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The nop app: the firmware's render path at its cheapest, for jobs per
 * second. It renders a fixed number of DMA buffers of one NOP each on
 * its one context, in batches: after each batch a GPU signal of its sync
 * object (the batch number) and a CPU wait for it; when a batch is done
 * the next is rendered, so at most `depth` batches are in flight (the
 * kernel holds KERNEL_MAX_BUFFERS DMA buffers in flight for everyone,
 * with a quota per process; a refused render is tried again at the next
 * completion).
 * Copro-bench's `jobs` on Linux is the same workload through the ioctl
 * path (one sync object signal per context, at its last job).
 *
 * Its work is its budget: the end of the scenario's run stops nothing
 * (the scenario's drain limit bounds it); it is drained once every
 * buffer retired. Checked by count: every buffer rendered, retired as
 * the scheduler counts it, and the sync object at the last batch.
 */
#ifndef FW_APPS_NOPAPP_H
#define FW_APPS_NOPAPP_H

#include <stdint.h>

#include "apps/app.h"
#include "umd/umd.h"

#define NOPAPP_MAX_DEPTH    8

struct nopapp_config {
    uint64_t jobs;          /* buffers to render */
    unsigned batch;         /* buffers per signal (>= 1) */
    unsigned depth;         /* batches in flight at most (>= 1) */
};

struct nopapp {
    struct app app;         /* first */
    struct nopapp_config cfg;
    struct umd_cmdbuf cb;
    uint32_t cmd[4];
    uint32_t hsync;
    uint64_t rendered;      /* buffers rendered */
    uint64_t batches;       /* batches signalled */
    uint64_t batches_done;
    uint64_t batch_end[NOPAPP_MAX_DEPTH];  /* rendered through batch b */
    uint64_t refused;       /* renders the kernel refused for want of
                               DMA-buffer records (tried again later) */
    uint64_t first_ns;      /* GPU time before the first render */
    uint64_t last_ns;       /* GPU time at the last batch's callback */
};

int nopapp_init(struct nopapp *n, struct kernel *k, const char *name,
                const struct nopapp_config *cfg);

static inline struct app *nopapp_app(struct nopapp *n)
{
    return &n->app;
}

#endif /* FW_APPS_NOPAPP_H */
