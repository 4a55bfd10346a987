/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What GPU-VA mode's two files share (kgpuva.c: start, processes,
 * devices, allocations, residency, views; kgpuva_paging.c: the paging
 * buffers). Not for anything outside them.
 */
#ifndef FW_KERNEL_KGPUVA_INTERNAL_H
#define FW_KERNEL_KGPUVA_INTERNAL_H

#include <stdint.h>

#include "kernel/kernel.h"

#define PAGE DDI_GPUVA_PAGE

/* A call that may move memory starts only with this many paging buffers
 * free (kgpuva_paging.c). */
#define KGPUVA_SLOTS_FREE   2

static inline uint64_t page_round(uint64_t v)
{
    return (v + PAGE - 1) & ~(PAGE - 1);
}

static inline const struct ddi_gpuva_ops *gops(const struct kernel *k)
{
    return k->dev.ops->gpuva;
}

/* Paging buffers not in use. */
unsigned kgpuva_slots_free(const struct kgpuva *g);

/*
 * Appends one move (ops in order, then the leaf-entry updates) to the
 * batch. *fence: the value the batch signals (0 if the move needed no
 * packets). DDI_EBUSY when no buffer is free; the driver's errors as
 * they come. Nothing of a refused move stays in the batch.
 */
int kgpuva_batch_add(struct kgpuva *g, const struct ddi_paging_op *ops,
                     unsigned nops, const struct ddi_pte_update *u,
                     unsigned nu, uint64_t *fence);

/* A destroyed allocation's backing goes back (its block, aperture range,
 * pages and charges) and its record is free. */
void kgpuva_free_backing(struct kgpuva *g, struct kgpuva_alloc *ga);

#endif /* FW_KERNEL_KGPUVA_INTERNAL_H */
