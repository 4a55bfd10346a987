/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the per-process handle tables (firmware/kernel/handle.c):
 * handles name live objects of one type in one process, and every other
 * value (zero, foreign, stale, wrong type, forged) is refused.
 */
#include <glib.h>

#include "ddi/ddi.h"
#include "kernel/handle.h"

#define CAP     8

static struct handle_entry slots_a[CAP], slots_b[CAP];
static struct handle_table ta, tb;
static int objs[32];

static void setup(void)
{
    handle_table_init(&ta, 1, slots_a, CAP);
    handle_table_init(&tb, 2, slots_b, CAP);
}

static void test_alloc_lookup(void)
{
    uint32_t h1, h2;

    setup();
    g_assert_cmpint(handle_alloc(&ta, HANDLE_CONTEXT, &objs[0], &h1), ==,
                    DDI_OK);
    g_assert_cmpint(handle_alloc(&ta, HANDLE_ALLOCATION, &objs[1], &h2), ==,
                    DDI_OK);
    g_assert_cmphex(h1, !=, 0);
    g_assert_cmphex(h1, !=, h2);
    g_assert_true(handle_lookup(&ta, h1, HANDLE_CONTEXT) == &objs[0]);
    g_assert_true(handle_lookup(&ta, h2, HANDLE_ALLOCATION) == &objs[1]);
    g_assert_cmpint(handle_type_of(h1), ==, HANDLE_CONTEXT);
    g_assert_cmpuint(ta.used, ==, 2);
}

static void test_refusals(void)
{
    uint32_t h;

    setup();
    g_assert_cmpint(handle_alloc(&ta, HANDLE_SYNC, &objs[0], &h), ==, DDI_OK);
    /* zero, wrong type, HANDLE_NONE */
    g_assert_null(handle_lookup(&ta, 0, HANDLE_SYNC));
    g_assert_null(handle_lookup(&ta, h, HANDLE_DEVICE));
    g_assert_null(handle_lookup(&ta, h, HANDLE_NONE));
    /* the same value in another process's table */
    g_assert_null(handle_lookup(&tb, h, HANDLE_SYNC));
    /* forged: other index, other generation, other owner, all ones */
    g_assert_null(handle_lookup(&ta, h + 1, HANDLE_SYNC));
    g_assert_null(handle_lookup(&ta, h ^ (1u << 14), HANDLE_SYNC));
    g_assert_null(handle_lookup(&ta, h ^ (1u << 24), HANDLE_SYNC));
    g_assert_null(handle_lookup(&ta, UINT32_MAX, HANDLE_SYNC));
    /* index beyond the table */
    g_assert_null(handle_lookup(&ta, (h & ~0x3ffu) | (CAP + 1), HANDLE_SYNC));
    /* bad arguments */
    g_assert_cmpint(handle_alloc(&ta, HANDLE_NONE, &objs[0], &h), ==,
                    DDI_EINVAL);
    g_assert_cmpint(handle_alloc(&ta, HANDLE_TYPE_COUNT, &objs[0], &h), ==,
                    DDI_EINVAL);
    g_assert_cmpint(handle_alloc(&ta, HANDLE_SYNC, NULL, &h), ==, DDI_EINVAL);
}

static void test_stale(void)
{
    uint32_t h, h2;

    setup();
    g_assert_cmpint(handle_alloc(&ta, HANDLE_DEVICE, &objs[0], &h), ==,
                    DDI_OK);
    g_assert_cmpint(handle_free(&ta, h, HANDLE_DEVICE), ==, DDI_OK);
    g_assert_null(handle_lookup(&ta, h, HANDLE_DEVICE));
    g_assert_cmpint(handle_free(&ta, h, HANDLE_DEVICE), ==, DDI_EHANDLE);
    /* Fill the table so the slot is reused: the old handle stays dead. */
    for (unsigned i = 0; i < CAP; i++) {
        g_assert_cmpint(handle_alloc(&ta, HANDLE_DEVICE, &objs[1 + i], &h2),
                        ==, DDI_OK);
        g_assert_cmphex(h2, !=, h);
    }
    g_assert_null(handle_lookup(&ta, h, HANDLE_DEVICE));
    g_assert_cmpint(handle_alloc(&ta, HANDLE_DEVICE, &objs[0], &h2), ==,
                    DDI_ENOMEM);
}

/* Slots are reused round-robin: the freed one comes back last. */
static void test_round_robin(void)
{
    uint32_t h[3], again;

    setup();
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpint(handle_alloc(&ta, HANDLE_SYNC, &objs[i], &h[i]), ==,
                        DDI_OK);
    }
    g_assert_cmpint(handle_free(&ta, h[0], HANDLE_SYNC), ==, DDI_OK);
    g_assert_cmpint(handle_alloc(&ta, HANDLE_SYNC, &objs[3], &again), ==,
                    DDI_OK);
    g_assert_cmpuint(again & 0x3ff, ==, 4);     /* slot 3, not slot 0 */
}

/* A slot freed and reused many times never gives an old handle back
 * before its generation wraps (1023 reuses). */
static void test_generations(void)
{
    struct handle_entry one[1];
    struct handle_table t;
    uint32_t first, h;

    handle_table_init(&t, 9, one, 1);
    g_assert_cmpint(handle_alloc(&t, HANDLE_SYNC, &objs[0], &first), ==,
                    DDI_OK);
    g_assert_cmpint(handle_free(&t, first, HANDLE_SYNC), ==, DDI_OK);
    for (unsigned i = 0; i < 1022; i++) {
        g_assert_cmpint(handle_alloc(&t, HANDLE_SYNC, &objs[0], &h), ==,
                        DDI_OK);
        g_assert_cmphex(h, !=, first);
        g_assert_null(handle_lookup(&t, first, HANDLE_SYNC));
        g_assert_cmpint(handle_free(&t, h, HANDLE_SYNC), ==, DDI_OK);
    }
}

static void count_cb(void *arg, uint32_t h, void *obj)
{
    unsigned *n = arg;

    (void)h;
    (void)obj;
    (*n)++;
}

static void free_cb(void *arg, uint32_t h, void *obj)
{
    (void)obj;
    g_assert_cmpint(handle_free(arg, h, handle_type_of(h)), ==, DDI_OK);
}

static void test_for_each(void)
{
    uint32_t h;
    unsigned n = 0;

    setup();
    handle_alloc(&ta, HANDLE_SYNC, &objs[0], &h);
    handle_alloc(&ta, HANDLE_DEVICE, &objs[1], &h);
    handle_alloc(&ta, HANDLE_SYNC, &objs[2], &h);
    handle_for_each(&ta, HANDLE_SYNC, count_cb, &n);
    g_assert_cmpuint(n, ==, 2);
    n = 0;
    handle_for_each(&ta, HANDLE_NONE, count_cb, &n);
    g_assert_cmpuint(n, ==, 3);
    handle_for_each(&ta, HANDLE_NONE, free_cb, &ta);
    g_assert_cmpuint(ta.used, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/handle/alloc-lookup", test_alloc_lookup);
    g_test_add_func("/handle/refusals", test_refusals);
    g_test_add_func("/handle/stale", test_stale);
    g_test_add_func("/handle/round-robin", test_round_robin);
    g_test_add_func("/handle/generations", test_generations);
    g_test_add_func("/handle/for-each", test_for_each);
    return g_test_run();
}
