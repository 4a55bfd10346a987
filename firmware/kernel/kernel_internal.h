/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What kernel.c (object lifetimes, the scheduler's environment) and
 * kapi.c (the calls) share. Not for anything outside kernel/.
 */
#ifndef FW_KERNEL_KERNEL_INTERNAL_H
#define FW_KERNEL_KERNEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* A process that may still call: not exited (kapi_process_exit), its
 * record not freed. An exited one's calls fail (handles: none left) or
 * do nothing, never touch a freed record's kernel. */
static inline bool kproc_live(const struct kproc *p)
{
    return p && p->used && !p->exiting;
}

/*
 * Calls made from a callback the kernel runs inside another call are
 * checked against what that callback may do [WDDM: a trim notification
 * callback may only evict]: the kernel is in the middle of the outer
 * call (residency's lists being walked, another process's MakeResident
 * under way), and a call that destroys, creates, submits or exits there
 * would change what the outer call holds. Each kapi call says its class
 * first; a refused one fails with DDI_EACCESS and changes nothing (and
 * the callback is told so: it must not take it as done).
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

/*
 * A context of p on dev, without a handle (kapi_create_context's work):
 * the kernel's own contexts in a process's device (kernel/kscene.h) are
 * charged to the process and live in its address space, but the process
 * cannot name them. kernel_context_destroy: as kapi_destroy_context (the
 * reaper frees it once vidsch let go and its buffers are done).
 */
int kernel_context_create(struct kproc *p, struct kdevice *dev,
                          unsigned engine, enum vidsch_priority prio,
                          struct kcontext **out);
void kernel_context_destroy(struct kernel *k, struct kcontext *c);
/* kapi_render on context c of p (validated, copied, queued). */
int kernel_render(struct kproc *p, struct kcontext *c,
                  const struct kapi_render_args *a);

/* After a call into vidsch: sync values may have moved, run waits. */
void kernel_after_vidsch(struct kernel *k);

/* Frees obj's global name (its k->shared slot), if it has one. */
void kernel_unshare(struct kernel *k, const void *obj, uint32_t *shared_name);
/* The object of type that a shared name names, NULL if it names none:
 * forged, of another type, or its object freed since. */
void *kernel_shared_object(const struct kernel *k, uint32_t name,
                           enum handle_type type);
/* Frees a's VRAM and record once no handle and no buffer names it. */
void kernel_alloc_release(struct kernel *k, struct kalloc *a);

/* True when no buffer of sequence <= seq that uses a is in flight. */
bool kernel_lock_ready(const struct kernel *k, const struct kalloc *a,
                       uint64_t seq);

/* Drops a buffer record and what it holds (VRAM, allocation uses). */
void kernel_buffer_free(struct kernel *k, struct kbuffer *kb);

/* A free wait slot, counted as pending and charged to p: the caller
 * fills it. NULL and *st why not. */
struct kwait *kernel_new_wait(struct kproc *p, int *st);
/* The lock-wait timer armed for the earliest lock wait's deadline (or
 * cancelled when none is pending). */
void kernel_arm_lock_timer(struct kernel *k);
/* p's waits on obj (a sync object or an allocation that goes away) fail
 * with DDI_EHANDLE instead of touching it later. */
void kernel_fail_waits(struct kernel *k, struct kproc *p, const void *obj);

#endif /* FW_KERNEL_KERNEL_INTERNAL_H */
