/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "vidmm/vidmm_segment.h"

#include <stddef.h>

void vidmm_segment_init(struct vidmm_segment *s, uint64_t base,
                        uint64_t size, volatile uint8_t *cpu,
                        struct vidmm_block *storage, unsigned cap)
{
    *s = (struct vidmm_segment){
        .base = base, .size = size, .cpu = cpu, .cap = cap, .used = storage,
    };
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

/* Records block {start, size} at index k (the caller checked room). */
static void insert_block(struct vidmm_segment *s, unsigned k, uint64_t start,
                         uint64_t size)
{
    for (unsigned j = s->count; j > k; j--) {
        s->used[j] = s->used[j - 1];
    }
    s->used[k] = (struct vidmm_block){ start, size };
    s->count++;
    s->used_bytes += size;
    if (s->used_bytes > s->peak_bytes) {
        s->peak_bytes = s->used_bytes;
    }
}

bool vidmm_segment_alloc_best(struct vidmm_segment *s, uint64_t size,
                              uint64_t align, uint64_t *addr)
{
    uint64_t gap_start = s->base;
    uint64_t end = s->base + s->size;
    uint64_t best_waste = UINT64_MAX, best_start = 0;
    unsigned best_k = 0;

    if (align == 0) {
        align = 1;
    }
    if (size == 0 || (align & (align - 1)) || s->count == s->cap) {
        return false;
    }
    for (unsigned k = 0; k <= s->count; k++) {
        uint64_t gap_end = k < s->count ? s->used[k].addr : end;
        uint64_t start;

        if (align_up(gap_start, align, &start) && start <= gap_end &&
            gap_end - start >= size &&
            gap_end - start - size < best_waste) {
            best_waste = gap_end - start - size;
            best_start = start;
            best_k = k;
        }
        if (k < s->count) {
            gap_start = s->used[k].addr + s->used[k].size;
        }
    }
    if (best_waste == UINT64_MAX) {
        return false;
    }
    insert_block(s, best_k, best_start, size);
    *addr = best_start;
    return true;
}

bool vidmm_segment_contains(const struct vidmm_segment *s, uint64_t addr,
                            uint64_t size)
{
    return size && addr >= s->base && addr - s->base <= s->size &&
           size <= s->size - (addr - s->base);
}

bool vidmm_segment_alloc_at(struct vidmm_segment *s, uint64_t addr,
                            uint64_t size)
{
    unsigned k = 0;

    if (!vidmm_segment_contains(s, addr, size) || s->count == s->cap) {
        return false;
    }
    while (k < s->count && s->used[k].addr < addr) {
        k++;
    }
    if (k > 0 && s->used[k - 1].addr + s->used[k - 1].size > addr) {
        return false;
    }
    if (k < s->count && s->used[k].addr < addr + size) {
        return false;
    }
    insert_block(s, k, addr, size);
    return true;
}

bool vidmm_segment_alloc(struct vidmm_segment *s, uint64_t size,
                         uint64_t align, uint64_t *addr)
{
    uint64_t gap_start = s->base;
    uint64_t end = s->base + s->size;

    if (align == 0) {
        align = 1;
    }
    if (size == 0 || (align & (align - 1)) || s->count == s->cap) {
        return false;
    }
    /* Gap k lies before used[k]; gap count lies after the last block. */
    for (unsigned k = 0; k <= s->count; k++) {
        uint64_t gap_end = k < s->count ? s->used[k].addr : end;
        uint64_t start;

        if (align_up(gap_start, align, &start) && start <= gap_end &&
            gap_end - start >= size) {
            insert_block(s, k, start, size);
            *addr = start;
            return true;
        }
        if (k < s->count) {
            gap_start = s->used[k].addr + s->used[k].size;
        }
    }
    return false;
}

/* Index of the block at addr (binary search), or -1. */
static int find(const struct vidmm_segment *s, uint64_t addr)
{
    unsigned lo = 0, hi = s->count;

    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;

        if (s->used[mid].addr == addr) {
            return (int)mid;
        }
        if (s->used[mid].addr < addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return -1;
}

bool vidmm_segment_free(struct vidmm_segment *s, uint64_t addr)
{
    int k = find(s, addr);

    if (k < 0) {
        return false;
    }
    s->used_bytes -= s->used[k].size;
    for (unsigned j = (unsigned)k; j + 1 < s->count; j++) {
        s->used[j] = s->used[j + 1];
    }
    s->count--;
    return true;
}

uint64_t vidmm_segment_block_size(const struct vidmm_segment *s,
                                  uint64_t addr)
{
    int k = find(s, addr);

    return k < 0 ? 0 : s->used[k].size;
}

volatile void *vidmm_segment_cpu(const struct vidmm_segment *s,
                                 uint64_t addr)
{
    if (!s->cpu || addr < s->base || addr - s->base >= s->size) {
        return NULL;
    }
    return s->cpu + (addr - s->base);
}
