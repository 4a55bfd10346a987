/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/page_pool.h"

#include <stddef.h>

static bool bit(const struct page_pool *p, uint32_t i)
{
    return (p->used[i / 64] >> (i % 64)) & 1;
}

static void set_bit(struct page_pool *p, uint32_t i, bool on)
{
    if (on) {
        p->used[i / 64] |= 1ull << (i % 64);
    } else {
        p->used[i / 64] &= ~(1ull << (i % 64));
    }
}

bool page_pool_init(struct page_pool *p, uint64_t base, uint32_t pages,
                    uint64_t *used)
{
    *p = (struct page_pool){ 0 };
    if (base == 0 || (base % PAGE_ALLOC_PAGE) || (pages && !used) ||
        base + (uint64_t)pages * PAGE_ALLOC_PAGE < base) {
        return false;
    }
    p->base = base;
    p->pages = pages;
    p->free = pages;
    p->used = used;
    for (uint32_t w = 0; w < PAGE_POOL_WORDS(pages); w++) {
        used[w] = 0;
    }
    return true;
}

bool page_pool_carve(struct page_pool *p, struct page_alloc *alloc,
                     uint32_t pages, uint64_t *used)
{
    uint64_t base;

    *p = (struct page_pool){ 0 };
    if (pages == 0 || !used || !page_alloc_pages(alloc, pages, 0, &base)) {
        return false;
    }
    return page_pool_init(p, base, pages, used);
}

bool page_pool_get(struct page_pool *p, uint32_t n, uint64_t *out)
{
    uint32_t k = 0;

    if (n == 0 || n > p->free || !out) {
        return false;
    }
    for (uint32_t i = 0; i < p->pages && k < n; i++) {
        if (!bit(p, i)) {
            set_bit(p, i, true);
            out[k++] = p->base + (uint64_t)i * PAGE_ALLOC_PAGE;
        }
    }
    p->free -= k;   /* k == n: free counted them */
    return true;
}

bool page_pool_get_contiguous(struct page_pool *p, uint32_t n,
                              uint64_t *first)
{
    uint32_t run = 0;

    if (n == 0 || n > p->free || !first) {
        return false;
    }
    for (uint32_t i = 0; i < p->pages; i++) {
        run = bit(p, i) ? 0 : run + 1;
        if (run == n) {
            uint32_t start = i + 1 - n;

            for (uint32_t k = start; k <= i; k++) {
                set_bit(p, k, true);
            }
            p->free -= n;
            *first = p->base + (uint64_t)start * PAGE_ALLOC_PAGE;
            return true;
        }
    }
    return false;
}

/* Index of page in the pool, or pages if it is not one of its pages. */
static uint32_t index_of(const struct page_pool *p, uint64_t page)
{
    uint64_t off = page - p->base;

    if (page < p->base || (off % PAGE_ALLOC_PAGE) ||
        off / PAGE_ALLOC_PAGE >= p->pages) {
        return p->pages;
    }
    return (uint32_t)(off / PAGE_ALLOC_PAGE);
}

bool page_pool_put(struct page_pool *p, const uint64_t *pages, uint32_t n)
{
    uint32_t i;
    bool ok = true;

    if (n && !pages) {
        return false;
    }
    /* Validate by clearing: a page given twice finds its bit clear the
     * second time. On failure, set back what this call cleared. */
    for (i = 0; i < n; i++) {
        uint32_t k = index_of(p, pages[i]);

        if (k == p->pages || !bit(p, k)) {
            ok = false;
            break;
        }
        set_bit(p, k, false);
    }
    if (!ok) {
        while (i-- > 0) {
            set_bit(p, index_of(p, pages[i]), true);
        }
        return false;
    }
    p->free += n;
    return true;
}
