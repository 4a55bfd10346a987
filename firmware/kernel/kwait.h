/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pending asynchronous wait of an application: on a sync object's
 * value, for a lock, or for its process's work in flight.
 */
#ifndef FW_KERNEL_KWAIT_H
#define FW_KERNEL_KWAIT_H

#include <stdint.h>

#include "kernel/kapi.h"

struct kproc;
struct kdevice;
struct ksync;
struct kalloc;

/* KWAIT_THROTTLE: a call refused for its process's work in flight waits
 * for some of it to retire (kernel/kthrottle.h). */
enum kwait_kind { KWAIT_NONE, KWAIT_SYNC, KWAIT_LOCK, KWAIT_THROTTLE };

/* A pending asynchronous wait of an application. */
struct kwait {
    enum kwait_kind kind;
    struct kproc *proc;
    struct kdevice *dev;    /* removal fails the wait */
    union {
        struct { struct ksync *sync; uint64_t value; kapi_wait_fn fn; }
            sync;
        struct { struct kalloc *alloc; uint64_t seq; kapi_lock_fn fn;
                 uint32_t h;            /* the handle it locks by */
                 uint64_t deadline;     /* DDI_ETIMEOUT from then on */
        } lock;
        struct { uint64_t retired; unsigned syncs; kapi_wait_fn fn; }
            throttle;           /* the process's progress when it began */
    } u;
    void *arg;
    int fail;               /* non-zero: deliver this status (the object
                               waited on was destroyed) */
};

struct kernel;

/* A free wait slot, counted as pending and charged to p: the caller
 * fills it. NULL and *st why not. */
struct kwait *kwait_new(struct kproc *p, int *st);
/* p's waits on obj (a sync object or an allocation that goes away) fail
 * with DDI_EHANDLE instead of touching it later. */
void kwait_fail_on(struct kernel *k, struct kproc *p, const void *obj);

#endif /* FW_KERNEL_KWAIT_H */
