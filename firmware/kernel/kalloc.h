/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An allocation (DXGALLOCATION): video memory a process created, placed
 * by the kernel's segment or vidmm, or GPU-VA mode's record.
 */
#ifndef FW_KERNEL_KALLOC_H
#define FW_KERNEL_KALLOC_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct kproc;
struct kdevice;
struct kgpuva_alloc;

struct kalloc {
    bool used;
    bool dying;             /* no handle, no user: vidmm refused to free
                               it yet (moved by a paging buffer still in
                               flight); freed again when one retires */
    bool pointer_pin;       /* pinned by vidmm as a pointer shape */
    struct kproc *owner;    /* charged for it (kquota.h): the creator */
    bool owner_gpuva;       /* created on a GPU-VA device (its charge) */
    struct kgpuva_alloc *gv;    /* GPU-VA mode's record, else NULL */
    struct kdevice *dev;    /* the creator's device */
    uint64_t size;
    uint32_t vm;            /* vidmm's handle; 0: fixed placement in the
                               kernel's segment (no vidmm) */
    uint64_t gpu;           /* fixed placement's address, or a pinned
                               vidmm allocation's (primary, pointer) */
    bool cpu_visible;
    unsigned refs;          /* handles naming it, in any process */
    unsigned busy;          /* in-flight buffers that use it */
    unsigned locks;
    uint32_t shared_name;   /* 0 if never shared */
    bool primary;           /* may be presented */
    unsigned scanout;       /* display references: queued presents, the
                               surface or pointer shape on screen */
};

struct kapi_alloc_desc;

/* A new allocation of p on dev as d describes, and its handle
 * (kapi_create_allocation's work). */
int kalloc_create(struct kproc *p, struct kdevice *dev,
                  const struct kapi_alloc_desc *d, uint32_t *halloc);
/* p's handle halloc to a goes (its locks, views and waits with it); a
 * goes once nothing else names or uses it (kapi_destroy_allocation). */
void kalloc_close(struct kproc *p, uint32_t halloc, struct kalloc *a);
/* Frees a's VRAM and record once no handle and no buffer names it. */
void kalloc_release(struct kernel *k, struct kalloc *a);
/* True when no buffer of sequence <= seq that uses a is in flight. */
bool kalloc_lock_ready(const struct kernel *k, const struct kalloc *a,
                       uint64_t seq);
/* A CPU lock of a through p's handle halloc, and its release
 * (kapi_lock, kapi_unlock). */
int kalloc_lock(struct kproc *p, uint32_t halloc, struct kalloc *a,
                unsigned flags, volatile void **cpu);
int kalloc_unlock(struct kproc *p, uint32_t halloc, struct kalloc *a);
/* a's GPU VA in GPU-VA mode (kapi_gpu_va). */
int kalloc_gpu_va(const struct kalloc *a, uint64_t *va);

#endif /* FW_KERNEL_KALLOC_H */
