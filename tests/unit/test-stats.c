/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host tests for order statistics (firmware/lib/stats.c). */
#include <glib.h>

#include "lib/stats.h"

static void test_sort(void)
{
    uint64_t v[] = { 5, 1, 4, 1, 0, UINT64_MAX, 3 };
    uint64_t want[] = { 0, 1, 1, 3, 4, 5, UINT64_MAX };

    stats_sort_u64(v, G_N_ELEMENTS(v));
    for (unsigned i = 0; i < G_N_ELEMENTS(v); i++) {
        g_assert_cmpuint(v[i], ==, want[i]);
    }
    stats_sort_u64(v, 0);
}

static void test_percentile(void)
{
    uint64_t v[100];

    for (unsigned i = 0; i < 100; i++) {
        v[i] = i + 1;
    }
    g_assert_cmpuint(stats_percentile(v, 100, 50), ==, 50);
    g_assert_cmpuint(stats_percentile(v, 100, 99), ==, 99);
    g_assert_cmpuint(stats_percentile(v, 100, 100), ==, 100);
    g_assert_cmpuint(stats_percentile(v, 100, 1), ==, 1);
    /* nearest rank on small sets: p99 of 10 samples is the largest */
    g_assert_cmpuint(stats_percentile(v, 10, 99), ==, 10);
    g_assert_cmpuint(stats_percentile(v, 10, 50), ==, 5);
    g_assert_cmpuint(stats_percentile(v, 1, 50), ==, 1);
    g_assert_cmpuint(stats_percentile(v, 0, 50), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/stats/sort", test_sort);
    g_test_add_func("/stats/percentile", test_percentile);
    return g_test_run();
}
