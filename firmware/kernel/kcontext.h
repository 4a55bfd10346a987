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
struct kernel;
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

/*
 * A context of p on dev, without a handle (kapi_create_context's work):
 * the kernel's own contexts in a process's device (kernel/kscene.h) are
 * charged to the process and live in its address space, but the process
 * cannot name them. kcontext_destroy: as kapi_destroy_context (the
 * reaper frees it once vidsch let go and its buffers are done).
 */
int kcontext_create(struct kproc *p, struct kdevice *dev, unsigned engine,
                    enum vidsch_priority prio, struct kcontext **out);
void kcontext_destroy(struct kernel *k, struct kcontext *c);
/* p's handle hcontext to c goes, and c with it. */
void kcontext_close(struct kproc *p, uint32_t hcontext, struct kcontext *c);

#endif /* FW_KERNEL_KCONTEXT_H */
