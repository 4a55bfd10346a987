/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_vram.h"

#include <stddef.h>

void copro_vram_init(struct copro_vram_heap *h, uint64_t size)
{
    h->size = size;
    h->count = 0;
}

/* Rounds v up to align (a power of two); false if that overflows. */
static bool align_up(uint64_t v, uint64_t align, uint64_t *out)
{
    uint64_t r = (v + align - 1) & ~(align - 1);

    if (r < v) {
        return false;
    }
    *out = r;
    return true;
}

bool copro_vram_alloc(struct copro_vram_heap *h, uint64_t size,
                      uint64_t align, uint64_t *addr)
{
    uint64_t gap_start = 0;

    if (align == 0) {
        align = 1;
    }
    if (size == 0 || (align & (align - 1)) ||
        h->count == COPRO_VRAM_MAX_ALLOCS) {
        return false;
    }
    /* Gap k lies before used[k]; gap count lies after the last one. */
    for (unsigned k = 0; k <= h->count; k++) {
        uint64_t gap_end = k < h->count ? h->used[k].addr : h->size;
        uint64_t start;

        if (align_up(gap_start, align, &start) && start <= gap_end &&
            gap_end - start >= size) {
            for (unsigned j = h->count; j > k; j--) {
                h->used[j] = h->used[j - 1];
            }
            h->used[k] = (struct copro_vram_range){ start, size };
            h->count++;
            *addr = start;
            return true;
        }
        if (k < h->count) {
            gap_start = h->used[k].addr + h->used[k].size;
        }
    }
    return false;
}

bool copro_vram_free(struct copro_vram_heap *h, uint64_t addr)
{
    for (unsigned k = 0; k < h->count; k++) {
        if (h->used[k].addr == addr) {
            for (unsigned j = k; j + 1 < h->count; j++) {
                h->used[j] = h->used[j + 1];
            }
            h->count--;
            return true;
        }
    }
    return false;
}

uint64_t copro_vram_free_bytes(const struct copro_vram_heap *h)
{
    uint64_t used = 0;

    for (unsigned k = 0; k < h->count; k++) {
        used += h->used[k].size;
    }
    return h->size - used;
}
