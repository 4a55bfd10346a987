/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, fixed placement: one memory segment (WDDM's DXGK_SEGMENTDESCRIPTOR:
 * a range of the GPU address space, and where the CPU sees it) and a
 * first-fit allocator over it. This is all the kernel needs while every
 * allocation stays where it was created: the kernel's own reservations
 * (DMA buffers, context save areas, sync-object values) and applications'
 * allocations. The next step of vidmm (eviction, paging, residency) builds
 * on it.
 *
 * Blocks are kept as a sorted array of fixed capacity, in the caller's
 * storage: the firmware has no heap. Freed neighbours merge implicitly
 * (only used blocks are recorded).
 *
 * Pure C, no hardware: unit-tested on the host
 * (tests/unit/test-vidmm-segment.c).
 */
#ifndef FW_VIDMM_VIDMM_SEGMENT_H
#define FW_VIDMM_VIDMM_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

struct vidmm_block {
    uint64_t addr;          /* GPU address */
    uint64_t size;
};

struct vidmm_segment {
    uint64_t base;          /* GPU address of the first byte */
    uint64_t size;
    volatile uint8_t *cpu;  /* CPU view of base (NULL: not CPU-visible) */
    unsigned count;         /* blocks in use */
    unsigned cap;
    struct vidmm_block *used;   /* sorted by address, cap entries */
    uint64_t used_bytes;
    uint64_t peak_bytes;    /* most ever allocated at once */
};

void vidmm_segment_init(struct vidmm_segment *s, uint64_t base,
                        uint64_t size, volatile uint8_t *cpu,
                        struct vidmm_block *storage, unsigned cap);

/*
 * Allocates size bytes (> 0) aligned to align (a power of two; 0 means
 * 1) at the lowest address that fits. False when nothing fits, the block
 * table is full, or the arguments are bad (nothing changes then).
 */
bool vidmm_segment_alloc(struct vidmm_segment *s, uint64_t size,
                         uint64_t align, uint64_t *addr);

/*
 * (vidmm, paging) The same, but in the smallest gap that fits (best fit):
 * with allocations coming and going through eviction, first fit leaves
 * the low addresses in slivers; best fit keeps the large gaps whole.
 */
bool vidmm_segment_alloc_best(struct vidmm_segment *s, uint64_t size,
                              uint64_t align, uint64_t *addr);

/* Takes exactly [addr, addr + size) (the "patched once" rule: a buffer
 * patched already needs its allocations back where it was patched);
 * false if any of it is in use or outside the segment. */
bool vidmm_segment_alloc_at(struct vidmm_segment *s, uint64_t addr,
                            uint64_t size);

/* True if [addr, addr + size) lies inside the segment. */
bool vidmm_segment_contains(const struct vidmm_segment *s, uint64_t addr,
                            uint64_t size);

/* Frees the block that starts at addr; false if there is none. */
bool vidmm_segment_free(struct vidmm_segment *s, uint64_t addr);

/* Size of the block that starts at addr, 0 if none. */
uint64_t vidmm_segment_block_size(const struct vidmm_segment *s,
                                  uint64_t addr);

static inline uint64_t vidmm_segment_used_bytes(const struct vidmm_segment *s)
{
    return s->used_bytes;
}

/* The CPU pointer for a GPU address inside the segment, NULL outside or
 * when the segment is not CPU-visible. */
volatile void *vidmm_segment_cpu(const struct vidmm_segment *s,
                                 uint64_t addr);

#endif /* FW_VIDMM_VIDMM_SEGMENT_H */
