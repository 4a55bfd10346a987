/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An allocation (DXGALLOCATION): video memory a process created, placed
 * by the kernel's segment or vidmm, or GPU-VA mode's record.
 */
#ifndef FW_KERNEL_KALLOC_H
#define FW_KERNEL_KALLOC_H

#include <stdbool.h>
#include <stdint.h>

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

#endif /* FW_KERNEL_KALLOC_H */
