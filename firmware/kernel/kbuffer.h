/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A DMA buffer submitted to the scheduler, from render to retirement.
 */
#ifndef FW_KERNEL_KBUFFER_H
#define FW_KERNEL_KBUFFER_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"

struct kcontext;
struct kalloc;
struct vidmm_segment;

/* One submitted DMA buffer: vidsch's cookie is its address. */
struct kbuffer {
    bool used;
    bool done;              /* buffer_done seen; reaped by a work item */
    int status;
    uint64_t seq;           /* submission order, kernel-wide */
    struct kcontext *ctx;
    uint64_t dma_gpu;       /* its VRAM, from dma_seg: the kernel's
                               segment, or its process's GPU-VA arena */
    struct vidmm_segment *dma_seg;
    /* a pageable DMA buffer (KAPI_DMA_APERTURE / _VRAM): its vidmm
     * allocation (0: dma_gpu in dma_seg), made resident with its list
     * (the last entry of vm_list, kmem.c); dmabuf.gpu_addr and .dw
     * follow it there */
    uint32_t dma_vm;
    uint8_t placement;      /* KAPI_DMA_* it was rendered with */
    uint64_t dma_bytes;     /* its pages (charged as backing store) */
    struct ddi_dmabuf dmabuf;
    struct ddi_alloc_desc desc[DDI_MAX_ALLOC_LIST];
    struct kalloc *alloc[DDI_MAX_ALLOC_LIST];
    /* the list entries vidmm manages: their vidmm handles and slots */
    unsigned vm_n;
    bool split_upfront;     /* split at submit time (kmem.h) */
    struct ddi_alloc_ref vm_list[DDI_MAX_ALLOC_LIST + 1];
    uint8_t vm_slot[DDI_MAX_ALLOC_LIST + 1];
};

struct kernel;
struct kproc;
struct kapi_render_args;

/* kapi_render on context c of p (validated, copied, queued). */
int kbuffer_render(struct kproc *p, struct kcontext *c,
                   const struct kapi_render_args *a);
/* Drops a buffer record and what it holds (VRAM, allocation uses). */
void kbuffer_free(struct kernel *k, struct kbuffer *kb);

#endif /* FW_KERNEL_KBUFFER_H */
