/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A context (DXGCONTEXT): the scheduler's context of a device on one
 * engine, with its save area.
 */
#ifndef FW_KERNEL_KCONTEXT_H
#define FW_KERNEL_KCONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "vidsch/vidsch.h"

struct kdevice;
struct kproc;
struct vidsch_ctx;

struct kcontext {
    bool used;
    bool destroying;        /* handle gone; waiting for vidsch to let go */
    bool sched_gone;        /* ... it did; freed once inflight is 0 */
    struct kdevice *dev;
    struct kproc *proc;
    uint32_t hw_id;         /* the ring descriptors' context id */
    unsigned engine;
    enum vidsch_priority prio;
    struct vidsch_ctx *vctx;
    uint64_t save_gpu;
    unsigned inflight;      /* buffers submitted, not done */
    int error;              /* DDI_OK, or why one of its buffers could
                               not run (refused at schedule time, e.g.
                               DDI_ENOMEM: a split portion that cannot
                               fit): the context is in error, its
                               renders fail with this code */
};

#endif /* FW_KERNEL_KCONTEXT_H */
