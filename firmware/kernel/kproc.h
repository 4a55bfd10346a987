/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process (DXGPROCESS): its handle table, what it is charged, what it
 * opened and locked, its privileges.
 */
#ifndef FW_KERNEL_KPROC_H
#define FW_KERNEL_KPROC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/handle.h"
#include "kernel/kapi.h"
#include "kernel/klimits.h"
#include "kernel/kquota.h"

struct kernel;
struct kdevice;

struct kproc {
    bool used;
    uint8_t id;             /* the owner field of its handles (1..255,
                               reused once no live record has it) */
    uint32_t pid;           /* kapi_process_id: never reused (grants and
                               the kernel's records name a process by
                               it, so nothing of a dead process's passes
                               to a later one with the same id) */
    const char *name;
    struct kernel *k;
    struct handle_table handles;
    struct handle_entry slots[KERNEL_PROC_HANDLES];
    kapi_lost_fn lost_fn;
    void *lost_arg;
    struct kquota quota;    /* what it holds of the kernel's pools */
    struct {
        uint32_t h;         /* a handle opened (shared object) ... */
        struct kdevice *dev;    /* ... on this device (kexit.h) */
    } opened[KERNEL_PROC_HANDLES];
    struct {
        uint32_t h;         /* an allocation handle ... */
        unsigned n;         /* ... locked n times through it (kexit.h) */
    } locked[KERNEL_PROC_HANDLES];
    bool exiting;           /* kapi_process_exit: no handle left; the
                               record goes once nothing is charged to
                               it (kexit.c) */
    /* kernel/kisolate.h: KAPI_PRIV_*, and per handle slot the
     * KAPI_ACCESS_* rights the handle lacks (its locks: locked[]) */
    unsigned privileges;
    uint8_t dma_placement;  /* KAPI_DMA_* of its DMA buffers (kbuffer.c) */
    uint8_t handle_denied[KERNEL_PROC_HANDLES];
    uint64_t retired;       /* its DMA buffers retired (or dropped) so
                               far: what ends a throttle wait
                               (kernel/kthrottle.h) */
};

/* A process that may still call: not exited (kapi_process_exit), its
 * record not freed. An exited one's calls fail (handles: none left) or
 * do nothing, never touch a freed record's kernel. */
static inline bool kproc_live(const struct kproc *p)
{
    return p && p->used && !p->exiting;
}

/* A new process's record, with an id and a pid of its own; NULL if the
 * table or the ids are used up (kapi_process_create). */
struct kproc *kproc_create(struct kernel *k, const char *name);

#endif /* FW_KERNEL_KPROC_H */
