/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the system-memory page pool (firmware/lib/page_pool.c):
 * all-or-nothing gets and puts, lowest pages first, reuse after a put,
 * and refusal of pages that are not the pool's or not handed out.
 */
#include <glib.h>

#include "lib/page_pool.h"

#define PG      PAGE_ALLOC_PAGE
#define BASE    0x200000ull

static void test_init(void)
{
    struct page_pool p;
    uint64_t used[PAGE_POOL_WORDS(70)];

    g_assert_true(page_pool_init(&p, BASE, 70, used));
    g_assert_cmpuint(p.free, ==, 70);
    g_assert_false(page_pool_init(&p, BASE + 1, 4, used));
    g_assert_cmpuint(p.pages, ==, 0);
    g_assert_false(page_pool_init(&p, 0, 4, used));
    g_assert_false(page_pool_init(&p, BASE, 4, NULL));
    g_assert_cmpuint(PAGE_POOL_WORDS(64), ==, 1);
    g_assert_cmpuint(PAGE_POOL_WORDS(65), ==, 2);
}

static void test_carve(void)
{
    struct page_alloc a;
    struct page_pool p;
    uint64_t used[1], pg;

    page_alloc_init(&a, 0x100000, 0x100000 + 10 * PG);
    g_assert_true(page_pool_carve(&p, &a, 8, used));
    g_assert_cmphex(p.base, ==, 0x100000);
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 2);
    /* too many: nothing taken from the allocator */
    g_assert_false(page_pool_carve(&p, &a, 3, used));
    g_assert_cmpuint(page_alloc_free_pages(&a), ==, 2);
    g_assert_cmpuint(p.pages, ==, 0);
    g_assert_false(page_pool_get(&p, 1, &pg));
}

static void test_get_put(void)
{
    struct page_pool p;
    uint64_t used[PAGE_POOL_WORDS(100)];
    uint64_t a[70], b[40], c[3];

    g_assert_true(page_pool_init(&p, BASE, 100, used));
    g_assert_true(page_pool_get(&p, 70, a));
    for (unsigned i = 0; i < 70; i++) {
        g_assert_cmphex(a[i], ==, BASE + i * PG);
    }
    g_assert_cmpuint(p.free, ==, 30);
    /* all or nothing */
    g_assert_false(page_pool_get(&p, 31, b));
    g_assert_cmpuint(p.free, ==, 30);
    g_assert_false(page_pool_get(&p, 0, b));
    /* give back three scattered pages: they come back lowest first */
    c[0] = a[65];
    c[1] = a[3];
    c[2] = a[64];
    g_assert_true(page_pool_put(&p, c, 3));
    g_assert_cmpuint(p.free, ==, 33);
    g_assert_true(page_pool_get(&p, 33, b));
    g_assert_cmphex(b[0], ==, BASE + 3 * PG);
    g_assert_cmphex(b[1], ==, BASE + 64 * PG);
    g_assert_cmphex(b[2], ==, BASE + 65 * PG);
    g_assert_cmphex(b[3], ==, BASE + 70 * PG);
    g_assert_cmphex(b[32], ==, BASE + 99 * PG);
    g_assert_cmpuint(p.free, ==, 0);
}

/* One run, first fit: holes too small are skipped, a put run is reused,
 * a run across a word of the bitmap works, scattered free pages are not
 * a run. */
static void test_contiguous(void)
{
    struct page_pool p;
    uint64_t used[PAGE_POOL_WORDS(100)];
    uint64_t a[100], first, one[1];

    g_assert_true(page_pool_init(&p, BASE, 100, used));
    g_assert_true(page_pool_get(&p, 100, a));
    /* free pages 10..12 (3), 60..69 (10, across bitmap word 0/1 at 64),
     * and every other page of 80..99 (10 scattered) */
    g_assert_true(page_pool_put(&p, &a[10], 3));
    g_assert_true(page_pool_put(&p, &a[60], 10));
    for (unsigned i = 80; i < 100; i += 2) {
        g_assert_true(page_pool_put(&p, &a[i], 1));
    }
    g_assert_cmpuint(p.free, ==, 23);
    g_assert_false(page_pool_get_contiguous(&p, 0, &first));
    /* 11 free pages exist in no run: refused, nothing taken */
    g_assert_false(page_pool_get_contiguous(&p, 11, &first));
    g_assert_cmpuint(p.free, ==, 23);
    /* 4: not in the hole of 3, first fit at 60 */
    g_assert_true(page_pool_get_contiguous(&p, 4, &first));
    g_assert_cmphex(first, ==, BASE + 60 * PG);
    g_assert_cmpuint(p.free, ==, 19);
    /* 3: the lowest hole */
    g_assert_true(page_pool_get_contiguous(&p, 3, &first));
    g_assert_cmphex(first, ==, BASE + 10 * PG);
    /* 6 left at 64..69, crossing no hole */
    g_assert_true(page_pool_get_contiguous(&p, 6, &first));
    g_assert_cmphex(first, ==, BASE + 64 * PG);
    g_assert_false(page_pool_get_contiguous(&p, 2, &first));
    g_assert_true(page_pool_get_contiguous(&p, 1, &first));
    g_assert_cmphex(first, ==, BASE + 80 * PG);
    /* a run put back is handed out again, whole */
    one[0] = BASE + 80 * PG;
    g_assert_true(page_pool_put(&p, one, 1));
    g_assert_true(page_pool_put(&p, &a[60], 10));
    g_assert_true(page_pool_get_contiguous(&p, 10, &first));
    g_assert_cmphex(first, ==, BASE + 60 * PG);
}

static void test_put_refuses(void)
{
    struct page_pool p;
    uint64_t used[1];
    uint64_t a[4], bad[3];

    g_assert_true(page_pool_init(&p, BASE, 8, used));
    g_assert_true(page_pool_get(&p, 4, a));
    /* outside, unaligned, below, never handed out */
    bad[0] = a[0];
    bad[1] = BASE + 8 * PG;
    g_assert_false(page_pool_put(&p, bad, 2));
    bad[1] = BASE + 100;
    g_assert_false(page_pool_put(&p, bad, 2));
    bad[1] = BASE - PG;
    g_assert_false(page_pool_put(&p, bad, 2));
    bad[1] = BASE + 5 * PG;
    g_assert_false(page_pool_put(&p, bad, 2));
    /* the same page twice in one call */
    bad[1] = a[1];
    bad[2] = a[0];
    g_assert_false(page_pool_put(&p, bad, 3));
    g_assert_false(page_pool_put(&p, NULL, 1));
    /* nothing was freed by the refusals */
    g_assert_cmpuint(p.free, ==, 4);
    g_assert_true(page_pool_put(&p, a, 4));
    g_assert_cmpuint(p.free, ==, 8);
    /* a second put of the same pages is refused */
    g_assert_false(page_pool_put(&p, a, 1));
    g_assert_cmpuint(p.free, ==, 8);
    g_assert_true(page_pool_put(&p, a, 0));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/page-pool/init", test_init);
    g_test_add_func("/page-pool/carve", test_carve);
    g_test_add_func("/page-pool/get-put", test_get_put);
    g_test_add_func("/page-pool/put-refuses", test_put_refuses);
    g_test_add_func("/page-pool/contiguous", test_contiguous);
    return g_test_run();
}
