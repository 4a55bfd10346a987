/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host tests for the VRAM allocator (firmware/kmd/copro_vram.c). */
#include <glib.h>

#include "kmd/copro_vram.h"

#define MIB     (1ull << 20)

static void test_alignment_and_order(void)
{
    struct copro_vram_heap h;
    uint64_t a, b, c;

    copro_vram_init(&h, 64 * MIB);
    g_assert_true(copro_vram_alloc(&h, 100, 64, &a));
    g_assert_cmpuint(a, ==, 0);
    g_assert_true(copro_vram_alloc(&h, 8, 8, &b));
    g_assert_cmpuint(b, ==, 104);           /* 100 rounded up to 8 */
    g_assert_true(copro_vram_alloc(&h, 4096, 4096, &c));
    g_assert_cmpuint(c, ==, 4096);
    /* first fit: the 4 bytes of padding between a and b take it */
    g_assert_true(copro_vram_alloc(&h, 1, 0, &a));  /* align 0 = 1 */
    g_assert_cmpuint(a, ==, 100);
    g_assert_cmpuint(copro_vram_free_bytes(&h), ==,
                     64 * MIB - 100 - 8 - 4096 - 1);
}

static void test_free_and_reuse(void)
{
    struct copro_vram_heap h;
    uint64_t a, b, c, d;

    copro_vram_init(&h, 16 * 4096);
    g_assert_true(copro_vram_alloc(&h, 4096, 4096, &a));
    g_assert_true(copro_vram_alloc(&h, 4096, 4096, &b));
    g_assert_true(copro_vram_alloc(&h, 4096, 4096, &c));
    g_assert_true(copro_vram_free(&h, b));
    g_assert_false(copro_vram_free(&h, b));     /* already free */
    g_assert_false(copro_vram_free(&h, 12));    /* not an allocation */
    /* first fit: the hole left by b */
    g_assert_true(copro_vram_alloc(&h, 2048, 1, &d));
    g_assert_cmpuint(d, ==, b);
    /* too big for the rest of the hole: goes after c */
    g_assert_true(copro_vram_alloc(&h, 4096, 1, &d));
    g_assert_cmpuint(d, ==, c + 4096);
    g_assert_true(copro_vram_free(&h, a));
    g_assert_true(copro_vram_alloc(&h, 4096, 4096, &d));
    g_assert_cmpuint(d, ==, 0);
}

static void test_exhaustion(void)
{
    struct copro_vram_heap h;
    uint64_t a;

    copro_vram_init(&h, 8192);
    g_assert_false(copro_vram_alloc(&h, 8193, 1, &a));
    g_assert_false(copro_vram_alloc(&h, 0, 1, &a));         /* empty */
    g_assert_false(copro_vram_alloc(&h, 16, 3, &a));        /* not pow2 */
    g_assert_true(copro_vram_alloc(&h, 1, 1, &a));
    /* 8191 bytes left, but not 4096-aligned 8191 */
    g_assert_false(copro_vram_alloc(&h, 8191, 4096, &a));
    g_assert_true(copro_vram_alloc(&h, 4096, 4096, &a));
    g_assert_cmpuint(a, ==, 4096);
    g_assert_false(copro_vram_alloc(&h, 4096, 1, &a));
    g_assert_true(copro_vram_alloc(&h, 4095, 1, &a));
    g_assert_cmpuint(a, ==, 1);
    g_assert_cmpuint(copro_vram_free_bytes(&h), ==, 0);
    g_assert_false(copro_vram_alloc(&h, 1, 1, &a));
}

static void test_huge_alignment(void)
{
    struct copro_vram_heap h;
    uint64_t a;

    /* Rounding up must not wrap around to a small address. */
    copro_vram_init(&h, UINT64_MAX);
    g_assert_true(copro_vram_alloc(&h, 16, 1, &a));
    g_assert_true(copro_vram_alloc(&h, 16, 1ull << 63, &a));
    g_assert_cmphex(a, ==, 1ull << 63);
    /* the next 2^63 boundary is 2^64: it wraps, so nothing fits */
    g_assert_false(copro_vram_alloc(&h, 16, 1ull << 63, &a));
    g_assert_false(copro_vram_alloc(&h, UINT64_MAX, 1, &a));
}

static void test_table_full(void)
{
    struct copro_vram_heap h;
    uint64_t a;

    copro_vram_init(&h, 1 * MIB);
    for (unsigned k = 0; k < COPRO_VRAM_MAX_ALLOCS; k++) {
        g_assert_true(copro_vram_alloc(&h, 64, 64, &a));
        g_assert_cmpuint(a, ==, 64 * k);
    }
    g_assert_false(copro_vram_alloc(&h, 64, 64, &a));
    g_assert_true(copro_vram_free(&h, 64 * 10));
    g_assert_true(copro_vram_alloc(&h, 64, 64, &a));
    g_assert_cmpuint(a, ==, 64 * 10);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-vram/alignment", test_alignment_and_order);
    g_test_add_func("/copro-vram/free-reuse", test_free_and_reuse);
    g_test_add_func("/copro-vram/exhaustion", test_exhaustion);
    g_test_add_func("/copro-vram/huge-alignment", test_huge_alignment);
    g_test_add_func("/copro-vram/table-full", test_table_full);
    return g_test_run();
}
