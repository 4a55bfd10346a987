/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host tests for the physical page allocator (firmware/lib/page_alloc.c). */
#include <glib.h>

#include "lib/page_alloc.h"

#define PG  PAGE_ALLOC_PAGE

static void test_init_rounds_inward(void)
{
    struct page_alloc a;

    page_alloc_init(&a, 0x100123, 0x108fff);
    g_assert_cmphex(a.start, ==, 0x101000);
    g_assert_cmphex(a.end, ==, 0x108000);
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 7);
    /* an empty or inverted range manages nothing */
    page_alloc_init(&a, 0x200000, 0x100000);
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 0);
    page_alloc_init(&a, 0x100001, 0x100fff);
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 0);
    /* no wrap at the top of the address space */
    page_alloc_init(&a, UINT64_MAX - 10, UINT64_MAX);
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 0);
}

static void test_alloc_in_order(void)
{
    struct page_alloc a;
    uint64_t p, q;

    page_alloc_init(&a, 0x100000, 0x110000);
    g_assert_true(page_alloc_pages(&a, 1, 0, &p));
    g_assert_cmphex(p, ==, 0x100000);
    g_assert_true(page_alloc_pages(&a, 3, PG, &q));
    g_assert_cmphex(q, ==, 0x101000);
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 12);
}

static void test_alignment(void)
{
    struct page_alloc a;
    uint64_t p;

    page_alloc_init(&a, 0x101000, 0x140000);
    g_assert_true(page_alloc_pages(&a, 1, 0x10000, &p));
    g_assert_cmphex(p, ==, 0x110000);
    /* the pages skipped for alignment are gone: a bump allocator */
    g_assert_true(page_alloc_pages(&a, 1, 0, &p));
    g_assert_cmphex(p, ==, 0x111000);
    /* alignments that are not powers of two or below a page: refused */
    g_assert_false(page_alloc_pages(&a, 1, 0x3000, &p));
    g_assert_false(page_alloc_pages(&a, 1, 0x800, &p));
}

static void test_exhaustion(void)
{
    struct page_alloc a;
    uint64_t p = 0xdead;

    page_alloc_init(&a, 0x100000, 0x104000);
    g_assert_false(page_alloc_pages(&a, 5, 0, &p));
    g_assert_false(page_alloc_pages(&a, 0, 0, &p));
    g_assert_false(page_alloc_pages(&a, UINT64_MAX, 0, &p));
    g_assert_cmphex(p, ==, 0xdead);         /* untouched on failure */
    g_assert_true(page_alloc_pages(&a, 4, 0, &p));
    g_assert_false(page_alloc_pages(&a, 1, 0, &p));
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 0);
    /* an alignment that lands beyond the end */
    page_alloc_init(&a, 0x101000, 0x108000);
    g_assert_false(page_alloc_pages(&a, 1, 0x100000, &p));
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 7);
}

static void test_mark_release(void)
{
    struct page_alloc a;
    uint64_t m, p, q;

    page_alloc_init(&a, 0x100000, 0x110000);
    g_assert_true(page_alloc_pages(&a, 2, 0, &p));
    m = page_alloc_mark(&a);
    g_assert_true(page_alloc_pages(&a, 5, 0, &q));
    page_alloc_release(&a, m);
    g_assert_true(page_alloc_pages(&a, 1, 0, &q));
    g_assert_cmphex(q, ==, 0x102000);
    /* a mark outside what is allocated changes nothing */
    page_alloc_release(&a, 0x10f000);
    page_alloc_release(&a, 0x1000);
    g_assert_cmphex(a.next, ==, 0x103000);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/page-alloc/init", test_init_rounds_inward);
    g_test_add_func("/page-alloc/order", test_alloc_in_order);
    g_test_add_func("/page-alloc/alignment", test_alignment);
    g_test_add_func("/page-alloc/exhaustion", test_exhaustion);
    g_test_add_func("/page-alloc/mark-release", test_mark_release);
    return g_test_run();
}
