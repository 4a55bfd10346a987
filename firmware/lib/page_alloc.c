/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/page_alloc.h"

static uint64_t round_up(uint64_t v, uint64_t align)
{
    return (v + align - 1) & ~(align - 1);
}

void page_alloc_init(struct page_alloc *a, uint64_t start, uint64_t end)
{
    uint64_t s = round_up(start, PAGE_ALLOC_PAGE);
    uint64_t e = end & ~(PAGE_ALLOC_PAGE - 1);

    /* round_up can wrap for a start in the last page of the space */
    if (s < start || e < s) {
        e = s;
    }
    a->start = a->next = s;
    a->end = e;
}

bool page_alloc_pages(struct page_alloc *a, uint64_t pages, uint64_t align,
                      uint64_t *addr)
{
    uint64_t at, bytes;

    if (align == 0) {
        align = PAGE_ALLOC_PAGE;
    }
    if (pages == 0 || (align & (align - 1)) || align < PAGE_ALLOC_PAGE ||
        pages > (a->end - a->start) / PAGE_ALLOC_PAGE) {
        return false;
    }
    bytes = pages * PAGE_ALLOC_PAGE;
    at = round_up(a->next, align);
    if (at < a->next || at > a->end || a->end - at < bytes) {
        return false;
    }
    a->next = at + bytes;
    *addr = at;
    return true;
}

uint64_t page_alloc_free_pages(const struct page_alloc *a)
{
    return (a->end - a->next) / PAGE_ALLOC_PAGE;
}

void page_alloc_release(struct page_alloc *a, uint64_t mark)
{
    if (mark >= a->start && mark <= a->next) {
        a->next = mark;
    }
}
