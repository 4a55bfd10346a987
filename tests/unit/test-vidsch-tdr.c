/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host tests for the TDR watchdog (firmware/vidsch/vidsch_tdr.c). */
#include <glib.h>

#include "vidsch/vidsch_tdr.h"

#define MS      1000000ull

static const struct vidsch_tdr_config cfg = {
    .timeout_ns = 50 * MS, .grace_ns = 10 * MS,
};

static void test_idle_never_fires(void)
{
    struct vidsch_tdr t;

    vidsch_tdr_init(&t, &cfg, 0, 0);
    for (uint64_t now = 0; now < 1000 * MS; now += 5 * MS) {
        g_assert_cmpint(vidsch_tdr_check(&t, now, 0, false), ==,
                        VIDSCH_TDR_NONE);
    }
}

static void test_progress_resets_clock(void)
{
    struct vidsch_tdr t;
    uint64_t completed = 0;

    vidsch_tdr_init(&t, &cfg, 0, 0);
    vidsch_tdr_submitted(&t, 0);
    /* a fence retires every 40 ms: never 50 ms without progress */
    for (uint64_t now = 5 * MS; now < 1000 * MS; now += 5 * MS) {
        if (now % (40 * MS) == 0) {
            completed++;
        }
        g_assert_cmpint(vidsch_tdr_check(&t, now, completed, true), ==,
                        VIDSCH_TDR_NONE);
    }
}

/* Hung: preempt at the timeout, reset after the grace period, once. */
static void test_hang(void)
{
    struct vidsch_tdr t;

    vidsch_tdr_init(&t, &cfg, 0, 3);
    vidsch_tdr_submitted(&t, 2 * MS);
    g_assert_cmpint(vidsch_tdr_check(&t, 51 * MS, 3, true), ==,
                    VIDSCH_TDR_NONE);
    g_assert_cmpint(vidsch_tdr_check(&t, 52 * MS, 3, true), ==,
                    VIDSCH_TDR_PREEMPT);
    g_assert_cmpuint(t.timed_out_at, ==, 52 * MS);
    /* a completion now does not cancel it: only the preemption would */
    g_assert_cmpint(vidsch_tdr_check(&t, 61 * MS, 3, true), ==,
                    VIDSCH_TDR_NONE);
    g_assert_cmpint(vidsch_tdr_check(&t, 62 * MS, 3, true), ==,
                    VIDSCH_TDR_RESET);
    g_assert_cmpint(t.state, ==, VIDSCH_TDR_HUNG);
    g_assert_cmpint(vidsch_tdr_check(&t, 70 * MS, 3, true), ==,
                    VIDSCH_TDR_NONE);
    vidsch_tdr_reset_done(&t, 71 * MS, 3);
    g_assert_cmpint(t.state, ==, VIDSCH_TDR_WATCHING);
    g_assert_cmpint(vidsch_tdr_check(&t, 120 * MS, 3, true), ==,
                    VIDSCH_TDR_NONE);
    g_assert_cmpint(vidsch_tdr_check(&t, 121 * MS, 3, true), ==,
                    VIDSCH_TDR_PREEMPT);
}

/* Long but preemptible: the request is honoured, no reset. */
static void test_preempt_honoured(void)
{
    struct vidsch_tdr t;

    vidsch_tdr_init(&t, &cfg, 0, 0);
    vidsch_tdr_submitted(&t, 0);
    g_assert_cmpint(vidsch_tdr_check(&t, 50 * MS, 0, true), ==,
                    VIDSCH_TDR_PREEMPT);
    vidsch_tdr_preempted(&t, 51 * MS, 0);
    g_assert_cmpint(vidsch_tdr_check(&t, 65 * MS, 0, true), ==,
                    VIDSCH_TDR_NONE);
    g_assert_cmpint(vidsch_tdr_check(&t, 101 * MS, 0, true), ==,
                    VIDSCH_TDR_PREEMPT);
}

/* Work that appears without submitted(): counted from the first look. */
static void test_work_without_submitted(void)
{
    struct vidsch_tdr t;

    vidsch_tdr_init(&t, &cfg, 0, 0);
    g_assert_cmpint(vidsch_tdr_check(&t, 100 * MS, 0, false), ==,
                    VIDSCH_TDR_NONE);
    g_assert_cmpint(vidsch_tdr_check(&t, 200 * MS, 0, true), ==,
                    VIDSCH_TDR_NONE);
    g_assert_cmpint(vidsch_tdr_check(&t, 249 * MS, 0, true), ==,
                    VIDSCH_TDR_NONE);
    g_assert_cmpint(vidsch_tdr_check(&t, 250 * MS, 0, true), ==,
                    VIDSCH_TDR_PREEMPT);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidsch-tdr/idle-never-fires", test_idle_never_fires);
    g_test_add_func("/vidsch-tdr/progress-resets-clock",
                    test_progress_resets_clock);
    g_test_add_func("/vidsch-tdr/hang", test_hang);
    g_test_add_func("/vidsch-tdr/preempt-honoured", test_preempt_honoured);
    g_test_add_func("/vidsch-tdr/work-without-submitted",
                    test_work_without_submitted);
    return g_test_run();
}
