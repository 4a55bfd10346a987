/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's video memory (kmem.c): fixed placement in the kernel's
 * segment, or vidmm's packet-based mode with its residency hooks for the
 * scheduler. Internal to kernel/: kernel.c and kapi.c call it.
 */
#ifndef FW_KERNEL_KMEM_H
#define FW_KERNEL_KMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* Bytes of storage vidmm needs with vc (0 for NULL: no vidmm). */
uint64_t kmem_storage_bytes(const struct kernel_vidmm_config *vc);

/*
 * Sets up k's segments over the OS's VRAM [seg_base, + seg_size): all of
 * it the kernel's (vc NULL), or the kernel's first vc->kernel_bytes and
 * vidmm the rest (storage: kmem_storage_bytes(vc) bytes, 8-aligned).
 * Before vidsch_create. NULL or why not.
 */
const char *kmem_start(struct kernel *k, uint64_t seg_base,
                       uint64_t seg_size, volatile uint8_t *seg_cpu,
                       const struct kernel_vidmm_config *vc, void *storage,
                       uint64_t bytes);

/* Places a new allocation (a->vm, a->gpu), zeroed if d says so. DDI_OK,
 * DDI_ENOMEM (no VRAM for a fixed or primary one, no backing pages, no
 * table entry). */
int kmem_alloc_create(struct kernel *k, struct kalloc *a,
                      const struct kapi_alloc_desc *d);
/* Frees its memory: DDI_OK, or DDI_EBUSY (a paging buffer in flight
 * moves it: call again after one retired). */
int kmem_alloc_free(struct kernel *k, struct kalloc *a);

/* [D3DKMTLock] once the GPU is done with it: pins it where it is and
 * gives the CPU's pointer. DDI_EBUSY while a paging buffer moves it. */
int kmem_lock(struct kernel *k, struct kalloc *a, volatile void **cpu);
void kmem_unlock(struct kernel *k, struct kalloc *a);

/* The address the display reads a pointer shape at: pinned from now on
 * (until freed). DDI_EBUSY if it is not where the GPU sees it now. */
int kmem_scanout_addr(struct kernel *k, struct kalloc *a, uint64_t *addr);

/* For a GPU-VA view (kernel/kvamap.h): one more pin of a in VRAM (vidmm
 * never moves it while pinned); its address and its extent in whole
 * pages. DDI_EBUSY if it is not in VRAM now or a paging buffer moves it;
 * DDI_EINVAL for memory vidmm does not place (fixed placement, GPU-VA
 * allocations). kmem_unpin_vram drops that pin. */
int kmem_pin_vram(struct kernel *k, struct kalloc *a, uint64_t *addr,
                  uint64_t *bytes);
void kmem_unpin_vram(struct kernel *k, struct kalloc *a);

/*
 * When a DMA buffer whose list does not fit VRAM at once is split
 * (kernel.split_policy, command line split=) [US 7,444,637: up front
 * from a worst-case estimate, or at schedule time]:
 *   SCHEDULE  when vidmm finds at schedule time that the list does not
 *             fit (the default: the split point is known exactly then)
 *   UPFRONT   at submit time (render), when vidmm_estimate says the
 *             list's VRAM-only members exceed what VRAM could ever hold:
 *             the schedule-time residency pass is never tried for it; a
 *             list the estimate lets through that does not fit is
 *             refused (DDI_ENOMEM) as without splitting
 *   BOTH      up front when the estimate says so, at schedule time for
 *             what it let through
 */
enum kmem_split_policy {
    KMEM_SPLIT_SCHEDULE = 0,
    KMEM_SPLIT_UPFRONT,
    KMEM_SPLIT_BOTH,
};
/* "schedule", "upfront", "both" (split= on the command line). */
const char *kmem_split_policy_name(unsigned policy);

/* Records which entries of kb's allocation list vidmm places (at
 * render, kb->alloc[] and kb->dmabuf resolved), and whether it is split
 * up front (kmem_split_policy). */
void kmem_render_list(struct kernel *k, struct kbuffer *kb);

/* vidsch_env.make_resident / release_resident. */
int kmem_make_resident(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                       struct ddi_alloc_desc *alloc, bool patched,
                       struct vidsch_residency *out);
void kmem_release_resident(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                           unsigned engine, uint64_t fence);
/* vidsch_env.make_portion / release_portion: a buffer whose list does
 * not fit at once (kmem_make_resident said VIDSCH_RESIDENT_SPLIT) runs
 * portion by portion. */
int kmem_make_portion(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                      struct ddi_alloc_desc *alloc, uint32_t first,
                      bool patched, struct vidsch_residency *out,
                      struct vidsch_portion *part);
void kmem_release_portion(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                          const struct vidsch_portion *part, unsigned engine,
                          uint64_t fence);

/* buffer_done of cookie: if it is one of vidmm's paging buffers, tells
 * vidmm it retired, frees its packets and returns true. */
bool kmem_paging_done(struct kernel *k, uint64_t cookie, int status);

#endif /* FW_KERNEL_KMEM_H */
