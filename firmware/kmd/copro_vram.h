/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A first-fit VRAM allocator over the GPU address range [0, size): rings,
 * fence write-back slots, DMA buffers and surfaces. It hands out GPU
 * addresses only (in this device version GPU address == VRAM offset ==
 * BAR2 offset, so the CPU view is vram + addr); it never touches VRAM,
 * so it is unit-tested on the host.
 *
 * The allocations are kept as a sorted array of fixed capacity: the
 * firmware has no heap of its own, and the driver allocates a few dozen
 * long-lived objects, not thousands.
 */
#ifndef FW_KMD_COPRO_VRAM_H
#define FW_KMD_COPRO_VRAM_H

#include <stdbool.h>
#include <stdint.h>

#define COPRO_VRAM_MAX_ALLOCS       64

struct copro_vram_range {
    uint64_t addr;
    uint64_t size;
};

struct copro_vram_heap {
    uint64_t size;          /* managed range is [0, size) */
    unsigned count;         /* allocations in use */
    struct copro_vram_range used[COPRO_VRAM_MAX_ALLOCS];  /* by address */
};

void copro_vram_init(struct copro_vram_heap *h, uint64_t size);

/*
 * Allocates size bytes (> 0) aligned to align (a power of two; 0 means 1)
 * at the lowest address that fits. Returns false when nothing fits or the
 * allocation table is full.
 */
bool copro_vram_alloc(struct copro_vram_heap *h, uint64_t size,
                      uint64_t align, uint64_t *addr);

/* Frees the allocation starting at addr; false if there is none. */
bool copro_vram_free(struct copro_vram_heap *h, uint64_t addr);

/* Bytes not allocated (alignment may make less usable in one piece). */
uint64_t copro_vram_free_bytes(const struct copro_vram_heap *h);

#endif /* FW_KMD_COPRO_VRAM_H */
