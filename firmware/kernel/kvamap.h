/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU-VA views of allocations that are not GPU-VA ones
 * [D3DKMTMapGpuVirtualAddress of an allocation a packet-based device
 * made]: a GPU-VA process maps an allocation it holds a handle to (its
 * own primary, a window surface another process shared with it) into
 * its address space (kapi_map_gpu_va), so that its scenes can bin that
 * memory (a compositor composing windows into its primary in scenes).
 *
 * The allocation is pinned in VRAM while a view of it lives
 * (kmem_pin_vram: vidmm does not move it, so the entries stay right),
 * and mapped over its whole pages only. The viewer is charged for the
 * view (KQ_VIEWS) and, unless it is a primary (pinned for life and
 * charged to its owner already), for the pinned bytes (KQ_PINNED): a
 * process granted a surface cannot pin other people's memory beyond its
 * own quota. A view is writable only
 * if the handle may write (a surface granted read-only stays
 * read-only on the GPU too). A view belongs to its handle: it goes when
 * the handle does (kapi_destroy_allocation, process exit). Its entries
 * go invalid in a paging buffer, and the view holds a reference on the
 * allocation until that buffer retired, so the VRAM is never anybody
 * else's while the process's GPU work may still reach it.
 *
 * Internal to kernel/: kapi.c (the handle's end), kernel.c (the reaper)
 * call it; applications reach it through kapi.h.
 */
#ifndef FW_KERNEL_KVAMAP_H
#define FW_KERNEL_KVAMAP_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct kproc;
struct kalloc;

#define KVAMAP_MAX      64      /* views of all processes (KQ_VIEWS) */

struct kvamap {
    bool used;
    bool dying;             /* unmapped: waits for its paging buffer */
    bool unmap_pending;     /* ... not issued yet: no paging buffer was
                               free (kvamap_reap issues it) */
    struct kproc *proc;
    uint32_t h;             /* the handle it belongs to */
    struct kalloc *alloc;   /* referenced (refs) while used */
    uint64_t va;
    uint64_t pinned;        /* bytes charged to proc's KQ_PINNED */
    uint64_t fence;         /* dying: the invalidation's paging fence */
};

/* Handle h of p goes: its view (if any) is unmapped. */
void kvamap_handle_gone(struct kernel *k, struct kproc *p, uint32_t h);

/* The reaper: views whose invalidation retired drop their reference. */
void kvamap_reap(struct kernel *k);
/* A view waits for its invalidation (the reaper must run when paging
 * buffers retire). */
bool kvamap_waiting(const struct kernel *k);

struct kproc;
struct kdevice;

/* GPU-VA views of p's allocations on dev (kapi_map_gpu_va's work). */
int kvamap_map(struct kproc *p, struct kdevice *dev, const uint32_t *halloc,
               unsigned n, uint64_t *va, uint64_t *paging_fence);

#endif /* FW_KERNEL_KVAMAP_H */
