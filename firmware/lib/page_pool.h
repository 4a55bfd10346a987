/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pool of 4 KiB system-memory pages that are handed out and given back
 * one by one: the backing store of evicted allocations (vidmm's system
 * segment). page_alloc (a bump allocator) cannot free single pages, so
 * the pool takes one run from it once and keeps a bitmap of which of its
 * pages are in use; the bitmap is the caller's storage (no heap).
 *
 * Pages are guest-physical addresses. The firmware identity-maps the
 * first 4 GiB (lib/boot.S) and page_alloc only manages RAM below that,
 * so an address is also the CPU pointer (page_pool_cpu). The GPU reaches
 * a page through the aperture once the driver maps it
 * (DDI_PAGING_MAP_APERTURE with the addresses page_pool_get gave).
 *
 * The pool never touches the memory itself, so it is unit-tested on the
 * host (tests/unit/test-page-pool.c). A get hands out the lowest free
 * pages; they need not be contiguous (page_pool_get_contiguous: one
 * run).
 */
#ifndef FW_LIB_PAGE_POOL_H
#define FW_LIB_PAGE_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/page_alloc.h"

/* Bitmap words for a pool of pages pages. */
#define PAGE_POOL_WORDS(pages)  (((pages) + 63) / 64)

struct page_pool {
    uint64_t base;          /* address of page 0 (page-aligned) */
    uint32_t pages;         /* pages managed */
    uint32_t free;          /* pages not handed out */
    uint64_t *used;         /* PAGE_POOL_WORDS(pages) words: bit set =
                               handed out (caller's storage) */
};

/*
 * Manages pages pages at base (page-aligned, not 0) with used as the
 * bitmap (PAGE_POOL_WORDS(pages) words); all free. False (and an empty
 * pool) if base is unaligned or 0, or used is NULL with pages > 0.
 */
bool page_pool_init(struct page_pool *p, uint64_t base, uint32_t pages,
                    uint64_t *used);

/* As page_pool_init over pages pages taken from alloc. False if alloc
 * has not that many contiguous pages (nothing taken then). */
bool page_pool_carve(struct page_pool *p, struct page_alloc *alloc,
                     uint32_t pages, uint64_t *used);

/*
 * Hands out n pages: out[0 .. n) receives their addresses. All or
 * nothing: false if fewer than n are free, or n is 0.
 */
bool page_pool_get(struct page_pool *p, uint32_t n, uint64_t *out);

/*
 * Hands out n consecutive pages (first fit, lowest address): *first gets
 * the address of the first. For memory the CPU must see as one run (a
 * locked allocation's backing store: one pointer for all of it). False,
 * nothing taken, if no run of n free pages exists (the pool may still
 * have n scattered ones), or n is 0.
 */
bool page_pool_get_contiguous(struct page_pool *p, uint32_t n,
                              uint64_t *first);

/*
 * Gives back pages[0 .. n). All or nothing: false, and nothing freed, if
 * one is not a page of the pool, is not handed out, or appears twice.
 */
bool page_pool_put(struct page_pool *p, const uint64_t *pages, uint32_t n);

/* The CPU's view of a page (identity map). */
static inline void *page_pool_cpu(uint64_t page)
{
    return (void *)(uintptr_t)page;
}

#endif /* FW_LIB_PAGE_POOL_H */
