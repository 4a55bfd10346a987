/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for vidmm's parameter-buffer policy (firmware/vidmm/
 * vidmm_pb.c): grow while the reservation and the budget allow, partial
 * render when they do not but an emptied heap holds the primitive and
 * the caller has a partial render to run, fail when nothing can, with
 * every answer counted.
 */
#include <glib.h>

#include <copro/copro_tiler.h>

#include "ddi/ddi.h"
#include "vidmm/vidmm_pb.h"

#define TILES   300u            /* 640 x 480 at 32 x 32 */

static uint32_t heap(void)
{
    return copro_scene_heap_start(TILES);
}

static void test_init(void)
{
    struct vidmm_pb pb;
    uint32_t min = heap() + COPRO_PRIM_NEED(1);

    g_assert_cmpint(vidmm_pb_init(&pb, 0x1000, TILES, min, 65536, 4096), ==,
                    DDI_OK);
    g_assert_cmpuint(pb.heap_start, ==, heap());
    g_assert_cmpint(vidmm_pb_init(&pb, 0x1004, TILES, min, 65536, 4096), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_pb_init(&pb, 0x1000, TILES, min - 8, 65536, 4096),
                    ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_pb_init(&pb, 0x1000, TILES, min, min - 8, 4096), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_pb_init(&pb, 0x1000, TILES, min, 65536, 100), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_pb_init(&pb, 0x1000, TILES, min,
                                  COPRO_PB_MAX + 4096, 4096), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_pb_init(&pb, 0x1000, 0, min, 65536, 4096), ==,
                    DDI_EINVAL);
}

/* Grows by whole steps, within the reservation and the budget. */
static void test_grow(void)
{
    struct vidmm_pb pb;
    uint32_t size = heap() + 4096, got = 0;

    g_assert_cmpint(vidmm_pb_init(&pb, 0x10000, TILES, size, size + 16384,
                                  4096), ==, DDI_OK);
    g_assert_cmpint(vidmm_pb_oom(&pb, size - 16, 100, 1 << 20, &got), ==,
                    VIDMM_PB_GROW);
    g_assert_cmpuint(got, ==, size + 4096);
    /* a big primitive: several steps at once */
    g_assert_cmpint(vidmm_pb_oom(&pb, got - 8, 9000, 1 << 20, &got), ==,
                    VIDMM_PB_GROW);
    g_assert_cmpuint(got, ==, size + 4 * 4096);
    g_assert_cmpuint(pb.grows, ==, 2);
    g_assert_cmpuint(pb.grown_bytes, ==, 4 * 4096);
    /* the reservation is used up: a partial render instead */
    g_assert_cmpint(vidmm_pb_oom(&pb, got - 8, 100, 1 << 20, &got), ==,
                    VIDMM_PB_PARTIAL);
    g_assert_cmpuint(pb.size, ==, size + 4 * 4096);
    g_assert_cmpuint(pb.partials, ==, 1);
    g_assert_cmpuint(pb.ooms, ==, 3);
}

/* Out of budget: partial renders, as long as one primitive fits. */
static void test_budget(void)
{
    struct vidmm_pb pb;
    uint32_t size = heap() + COPRO_PRIM_NEED(TILES), got = 0;

    g_assert_cmpint(vidmm_pb_init(&pb, 0x10000, TILES, size, 1 << 20, 4096),
                    ==, DDI_OK);
    g_assert_cmpint(vidmm_pb_oom(&pb, size - 8, 64, 4095, &got), ==,
                    VIDMM_PB_PARTIAL);
    g_assert_cmpint(vidmm_pb_oom(&pb, size - 8, 64, 4096, &got), ==,
                    VIDMM_PB_GROW);
    g_assert_cmpuint(pb.partials, ==, 1);
    g_assert_cmpuint(pb.grows, ==, 1);
}

/*
 * Nothing helps: the primitive is larger than an empty heap and the
 * buffer cannot grow; a header whose used is not the buffer's fails too.
 */
static void test_fail(void)
{
    struct vidmm_pb pb;
    uint32_t size = heap() + COPRO_PRIM_NEED(TILES), got = 0;

    g_assert_cmpint(vidmm_pb_init(&pb, 0x10000, TILES, size, size, 4096), ==,
                    DDI_OK);
    g_assert_cmpint(vidmm_pb_oom(&pb, heap() + 8, size, 1 << 30, &got), ==,
                    VIDMM_PB_FAIL);
    g_assert_cmpint(vidmm_pb_oom(&pb, size + 8, 8, 1 << 30, &got), ==,
                    VIDMM_PB_FAIL);
    g_assert_cmpint(vidmm_pb_oom(&pb, heap() - 8, 8, 1 << 30, &got), ==,
                    VIDMM_PB_FAIL);
    g_assert_cmpuint(pb.fails, ==, 3);
    g_assert_cmpuint(pb.grows + pb.partials, ==, 0);
}

/* No partial render to run (the process gave none): what would have
 * been a partial render fails, counted as a failure. */
static void test_no_partial(void)
{
    struct vidmm_pb pb;
    uint32_t size = heap() + COPRO_PRIM_NEED(TILES), got = 0;

    g_assert_cmpint(vidmm_pb_init(&pb, 0x10000, TILES, size, size, 4096),
                    ==, DDI_OK);
    pb.no_partial = true;
    g_assert_cmpint(vidmm_pb_oom(&pb, size - 8, 64, 1 << 20, &got), ==,
                    VIDMM_PB_FAIL);
    pb.no_partial = false;
    g_assert_cmpint(vidmm_pb_oom(&pb, size - 8, 64, 1 << 20, &got), ==,
                    VIDMM_PB_PARTIAL);
    g_assert_cmpuint(pb.fails, ==, 1);
    g_assert_cmpuint(pb.partials, ==, 1);
    g_assert_cmpuint(pb.ooms, ==, 2);
}

/*
 * A buffer smaller than the largest primitive's need (allowed: it holds
 * the small ones): partial renders for those, and the large one fails
 * even with a partial render to run (an empty heap cannot hold it).
 */
static void test_small_heap(void)
{
    struct vidmm_pb pb;
    uint32_t size = heap() + COPRO_PRIM_NEED(4), got = 0;

    g_assert_cmpint(vidmm_pb_init(&pb, 0x10000, TILES, heap() +
                                  COPRO_PRIM_NEED(1) - 8, size, 4096), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_pb_init(&pb, 0x10000, TILES, size, size, 4096),
                    ==, DDI_OK);
    g_assert_cmpint(vidmm_pb_oom(&pb, size - 8, COPRO_PRIM_NEED(4), 1 << 20,
                                 &got), ==, VIDMM_PB_PARTIAL);
    g_assert_cmpint(vidmm_pb_oom(&pb, heap() + 8, COPRO_PRIM_NEED(TILES),
                                 1 << 20, &got), ==, VIDMM_PB_FAIL);
    g_assert_cmpuint(pb.partials, ==, 1);
    g_assert_cmpuint(pb.fails, ==, 1);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidmm-pb/init", test_init);
    g_test_add_func("/vidmm-pb/grow", test_grow);
    g_test_add_func("/vidmm-pb/budget", test_budget);
    g_test_add_func("/vidmm-pb/fail", test_fail);
    g_test_add_func("/vidmm-pb/no-partial", test_no_partial);
    g_test_add_func("/vidmm-pb/small-heap", test_small_heap);
    return g_test_run();
}
