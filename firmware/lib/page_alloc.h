/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Physical page allocator over the free RAM after the image
 * (boot_info.free_start .. free_end): system-memory pages the device
 * reaches through the GART aperture (rings, DMA buffers, fences, data).
 *
 * A bump allocator: the firmware allocates a handful of long-lived
 * buffers per run and never gives them back one by one, so a free list
 * would only add code to get wrong. page_alloc_mark/page_alloc_release
 * return everything allocated after a mark, for scenarios that run
 * phases. It hands out addresses only and never touches the memory, so
 * it is unit-tested on the host (tests/unit/test-page-alloc.c). The
 * firmware identity-maps RAM: an address is also the CPU pointer.
 */
#ifndef FW_LIB_PAGE_ALLOC_H
#define FW_LIB_PAGE_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#define PAGE_ALLOC_PAGE     4096ull

struct page_alloc {
    uint64_t start;         /* first managed byte (page-aligned) */
    uint64_t next;          /* first free byte */
    uint64_t end;           /* end of the managed range */
};

/* Manages [start, end), shrunk inward to whole pages. */
void page_alloc_init(struct page_alloc *a, uint64_t start, uint64_t end);

/*
 * Allocates pages (> 0) contiguous pages aligned to align bytes (a power
 * of two, at least a page; 0 means a page). *addr receives the physical
 * address. False if it does not fit (nothing is allocated then).
 */
bool page_alloc_pages(struct page_alloc *a, uint64_t pages, uint64_t align,
                      uint64_t *addr);

/* Pages still free (alignment may make less usable in one piece). */
uint64_t page_alloc_free_pages(const struct page_alloc *a);

/* A point to release back to: everything allocated after it. */
static inline uint64_t page_alloc_mark(const struct page_alloc *a)
{
    return a->next;
}

void page_alloc_release(struct page_alloc *a, uint64_t mark);

#endif /* FW_LIB_PAGE_ALLOC_H */
