/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel's files share: the call layer's class check (KCALL),
 * the resolution of a process's handles (get_device, get_alloc, ...),
 * and kernel.c's services (the shared-name table, the lock-wait timer,
 * running waits after vidsch). Not for anything outside kernel/.
 */
#ifndef FW_KERNEL_KERNEL_INTERNAL_H
#define FW_KERNEL_KERNEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"

/*
 * Calls made from a callback the kernel runs inside another call are
 * checked against what that callback may do [WDDM: a trim notification
 * callback may only evict]: the kernel is in the middle of the outer
 * call (residency's lists being walked, another process's MakeResident
 * under way), and a call that destroys, creates, submits or exits there
 * would change what the outer call holds. Each kapi call says its class
 * first, before it changes anything (a handle made, a reference taken):
 * only lookups may come before KCALL. A refused one fails with DDI_EACCESS
 * and changes nothing (and the callback is told so: it must not take it
 * as done). A call that changes state without a process of its own
 * (kapi_process_create) asks kcall_check with none.
 */
enum kcall_class {
    KCALL_QUERY = 1u << 0,      /* reads state only: always allowed */
    KCALL_EVICT = 1u << 1,      /* kapi_evict: a trim callback's job */
    KCALL_CHANGE = 1u << 2,     /* everything else */
};

static inline int kcall_check(const struct kernel *k, const struct kproc *p,
                              unsigned cls)
{
    if (!k || !k->cb.proc || cls == KCALL_QUERY) {
        return DDI_OK;
    }
    if (p == k->cb.proc && (k->cb.may & cls)) {
        return DDI_OK;
    }
    ((struct kernel *)k)->cb.refused++;
    return DDI_EACCESS;
}

/* kcall_check for a kapi call of class cls by p: returns its refusal */
#define KCALL(p, cls)                                                   \
    do {                                                                \
        int kcall_st_ = kcall_check((p) ? (p)->k : NULL, (p), (cls));   \
        if (kcall_st_ != DDI_OK) {                                      \
            return kcall_st_;                                           \
        }                                                               \
    } while (0)

/* The same for a call that returns nothing: a refused one does nothing. */
#define KCALL_VOID(p, cls)                                              \
    do {                                                                \
        if (kcall_check((p) ? (p)->k : NULL, (p), (cls)) != DDI_OK) {   \
            return;                                                     \
        }                                                               \
    } while (0)

/* The caller's object that handle h names, NULL if it names no such
 * object of the caller's (the kernel API's first check on every call). */
static inline struct kdevice *get_device(struct kproc *p, uint32_t h)
{
    return p ? handle_lookup(&p->handles, h, HANDLE_DEVICE) : NULL;
}

static inline struct kcontext *get_context(struct kproc *p, uint32_t h)
{
    return p ? handle_lookup(&p->handles, h, HANDLE_CONTEXT) : NULL;
}

static inline struct kalloc *get_alloc(struct kproc *p, uint32_t h)
{
    return p ? handle_lookup(&p->handles, h, HANDLE_ALLOCATION) : NULL;
}

static inline struct ksync *get_sync(struct kproc *p, uint32_t h)
{
    return p ? handle_lookup(&p->handles, h, HANDLE_SYNC) : NULL;
}

/* After a call into vidsch: sync values may have moved, run waits. */
void kernel_after_vidsch(struct kernel *k);

/* Shared names: bit 30 set so they never look like handles or 0. */
#define SHARED_TAG      0x40000000u

/* Frees obj's global name (its k->shared slot), if it has one. */
void kernel_unshare(struct kernel *k, const void *obj, uint32_t *shared_name);
/* The object of type that a shared name names, NULL if it names none:
 * forged, of another type, or its object freed since (kshare.c gives
 * the names; kisolate.c checks grants by them). */
void *kernel_shared_object(const struct kernel *k, uint32_t name,
                           enum handle_type type);

/* The lock-wait timer armed for the earliest lock wait's deadline (or
 * cancelled when none is pending). */
void kernel_arm_lock_timer(struct kernel *k);

#endif /* FW_KERNEL_KERNEL_INTERNAL_H */
