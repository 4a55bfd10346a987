/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a DMA buffer lives (kdma.c) [US 7,444,637: "hardware DMA
 * buffers ... from where they are allocated and whether they are
 * pageable"]: a block of the kernel's fixed VRAM segment (KAPI_DMA_KERNEL,
 * the default), or a vidmm allocation of its own, pageable
 * (KAPI_DMA_APERTURE: guest pages mapped through the GART; KAPI_DMA_VRAM:
 * copied into VRAM). A pageable buffer is filled by the CPU where vidmm
 * put it at creation (its backing pages, or VRAM through the BAR), is
 * made resident with its allocation list at schedule time (kmem.c: the
 * last entry of kb->vm_list), may be taken out while it is not on the
 * GPU (vidmm's move rule: never while busy), and is brought back to the
 * address it was patched with if it was preempted (patched once).
 * Internal to kernel/.
 */
#ifndef FW_KERNEL_KDMA_H
#define FW_KERNEL_KDMA_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct kproc;
struct kbuffer;

/* vm_slot of the buffer's own entry in kb->vm_list */
#define KDMA_SLOT 0xffu

/* "kernel", "aperture", "vram" (dmabuf= on the command line), NULL for
 * anything else. */
const char *kdma_placement_name(unsigned placement);
/* The placement a render of p asking for asked gets: its own, else p's,
 * else the kernel's; KAPI_DMA_KERNEL where vidmm's packet-based mode
 * does not run (no vidmm, GPU-VA devices) and for a full allocation list
 * of nalloc = DDI_MAX_ALLOC_LIST entries (the buffer's own entry rides
 * on its list: vidmm takes at most that many). */
unsigned kdma_placement(const struct kernel *k, const struct kproc *p,
                        unsigned asked, bool gpuva, unsigned nalloc);

/* A pageable DMA buffer of bytes for kb (kb->placement set): its vidmm
 * allocation, charged to p as backing store, locked where it is for the
 * CPU's fill (kb->dmabuf.dw, .gpu_addr, .cap_bytes). DDI_OK, DDI_EQUOTA,
 * DDI_ENOMEM. kdma_filled unlocks it once the driver copied the commands
 * in: from then on vidmm may move it. */
int kdma_create(struct kernel *k, struct kproc *p, struct kbuffer *kb,
                uint32_t bytes);
void kdma_filled(struct kernel *k, struct kbuffer *kb);
/* Gives it back (p: who was charged). Destroyed now, or once the paging
 * buffer still moving it retired (kdma_reap, from kmem_paging_done). */
void kdma_free(struct kernel *k, struct kproc *p, struct kbuffer *kb);
void kdma_reap(struct kernel *k);

/*
 * Around vidmm_make_resident of a list that holds the buffer (schedule
 * time). begin: DDI_EBUSY while a paging buffer still moves it (its
 * contents are not where the CPU would patch them: ask again when that
 * one retired); otherwise, if it is in VRAM, a lock keeps it at that
 * address through the plan, so the patch the driver writes next lands
 * where the GPU reads it. end (rc: what vidmm said): unlocks, and on
 * success points kb->dmabuf at where it is now: gpu_addr for the ring,
 * dw for the patch (VRAM through the BAR if it stayed there, else its
 * backing pages, which the paging buffer copies or maps after the patch).
 */
struct kdma_pass {
    bool locked;
    uint8_t where_before;
};
int kdma_resident_begin(struct kernel *k, struct kbuffer *kb,
                        struct kdma_pass *ps);
void kdma_resident_end(struct kernel *k, struct kbuffer *kb,
                       const struct kdma_pass *ps, bool patched, int rc);

#endif /* FW_KERNEL_KDMA_H */
