/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for vidmm's fixed-placement segment allocator
 * (firmware/vidmm/vidmm_segment.c).
 */
#include <glib.h>

#include "vidmm/vidmm_segment.h"

#define BASE    0x100000ull
#define SIZE    0x10000ull

static struct vidmm_block blocks[4];
static struct vidmm_segment seg;
static uint8_t backing[SIZE];

static void setup(void)
{
    vidmm_segment_init(&seg, BASE, SIZE, backing, blocks, 4);
}

static void test_first_fit(void)
{
    uint64_t a, b, c;

    setup();
    g_assert_true(vidmm_segment_alloc(&seg, 0x1000, 0, &a));
    g_assert_cmphex(a, ==, BASE);
    g_assert_true(vidmm_segment_alloc(&seg, 0x100, 0x1000, &b));
    g_assert_cmphex(b, ==, BASE + 0x1000);
    g_assert_true(vidmm_segment_alloc(&seg, 0x10, 64, &c));
    g_assert_cmphex(c, ==, BASE + 0x1100);
    g_assert_cmpuint(vidmm_segment_used_bytes(&seg), ==, 0x1110);
    /* freeing the first makes room there again */
    g_assert_true(vidmm_segment_free(&seg, a));
    g_assert_false(vidmm_segment_free(&seg, a));
    g_assert_true(vidmm_segment_alloc(&seg, 0x800, 0, &a));
    g_assert_cmphex(a, ==, BASE);
    g_assert_cmpuint(vidmm_segment_block_size(&seg, a), ==, 0x800);
    g_assert_cmpuint(vidmm_segment_block_size(&seg, a + 1), ==, 0);
    g_assert_cmpuint(seg.peak_bytes, ==, 0x1110);
}

static void test_refusals(void)
{
    uint64_t a;

    setup();
    g_assert_false(vidmm_segment_alloc(&seg, 0, 0, &a));
    g_assert_false(vidmm_segment_alloc(&seg, 16, 3, &a));
    g_assert_false(vidmm_segment_alloc(&seg, SIZE + 1, 0, &a));
    g_assert_false(vidmm_segment_alloc(&seg, UINT64_MAX, 0, &a));
    g_assert_false(vidmm_segment_alloc(&seg, 16, 1ull << 63, &a));
    g_assert_true(vidmm_segment_alloc(&seg, SIZE, 0, &a));
    g_assert_false(vidmm_segment_alloc(&seg, 1, 0, &a));
    g_assert_true(vidmm_segment_free(&seg, a));
    /* the block table is full before the memory is */
    for (unsigned i = 0; i < 4; i++) {
        g_assert_true(vidmm_segment_alloc(&seg, 16, 0, &a));
    }
    g_assert_false(vidmm_segment_alloc(&seg, 16, 0, &a));
}

static void test_cpu_view(void)
{
    setup();
    g_assert_true(vidmm_segment_cpu(&seg, BASE) == backing);
    g_assert_true(vidmm_segment_cpu(&seg, BASE + SIZE - 1) ==
                  backing + SIZE - 1);
    g_assert_null(vidmm_segment_cpu(&seg, BASE + SIZE));
    g_assert_null(vidmm_segment_cpu(&seg, BASE - 1));
    vidmm_segment_init(&seg, BASE, SIZE, NULL, blocks, 4);
    g_assert_null(vidmm_segment_cpu(&seg, BASE));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidmm-segment/first-fit", test_first_fit);
    g_test_add_func("/vidmm-segment/refusals", test_refusals);
    g_test_add_func("/vidmm-segment/cpu-view", test_cpu_view);
    return g_test_run();
}
