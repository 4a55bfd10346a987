/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kmd's reading of the device's scheduling log and progress fences
 * (firmware/kmd/copro_hwlog.c) against a hostile device: entries with
 * bad kinds, engines, bands and queues, a write pointer that lies, a
 * progress fence that runs ahead of what was submitted or goes back.
 * Nothing may crash, nothing bad may reach the OS, and what is good
 * must get through in order.
 */
#include <glib.h>
#include <string.h>

#include "kmd/copro_hwlog.h"

#define SIZE 16

static struct copro_sched_log_entry ring[SIZE];
static struct copro_sched_log_entry out[64];

static struct copro_sched_log_entry entry(uint16_t kind, uint8_t engine,
                                          uint32_t queue, uint64_t t)
{
    return (struct copro_sched_log_entry){
        .time_ns = t, .kind = kind, .engine = engine, .band = 1,
        .queue = queue, .arg0 = t * 10, .arg1 = 1,
    };
}

static const struct copro_hwlog_view view = {
    .engines = 2, .mapped = (1ull << 0) | (1ull << 3) | (1ull << 63),
};

static void test_good_in_order(void)
{
    struct copro_hwlog_stats st = { 0 };
    uint32_t rptr = 0;
    unsigned n;

    for (unsigned i = 0; i < 5; i++) {
        ring[i] = entry(COPRO_SLOG_SWITCH_IN + (i % 4), i & 1, i ? 3 : 0,
                        100 + i);
    }
    n = copro_hwlog_take(ring, SIZE, &rptr, 5, &view, out, 64, &st);
    g_assert_cmpuint(n, ==, 5);
    g_assert_cmpuint(rptr, ==, 5);
    for (unsigned i = 0; i < 5; i++) {
        g_assert_cmpuint(out[i].time_ns, ==, 100 + i);
    }
    g_assert_cmpuint(st.bad, ==, 0);
}

static void test_hostile_entries_dropped(void)
{
    struct copro_hwlog_stats st = { 0 };
    uint32_t rptr = 0;
    unsigned n;

    memset(ring, 0xff, sizeof(ring));           /* garbage everywhere */
    ring[0] = entry(0, 0, 0, 1);                /* kind 0 */
    ring[1] = entry(COPRO_SLOG_OOM_ANSWER + 1, 0, 0, 2);   /* kind beyond
                                                              the list */
    ring[2] = entry(COPRO_SLOG_FRAME, 7, 0, 3); /* no such engine */
    ring[3] = entry(COPRO_SLOG_FRAME, 0, 64, 4);    /* slot out of range */
    ring[4] = entry(COPRO_SLOG_FRAME, 0, 5, 5); /* not one of ours */
    ring[5] = entry(COPRO_SLOG_FRAME, 0, 0xfffffffeu, 6);
    ring[6] = entry(COPRO_SLOG_FRAME, 0, COPRO_HWQ_NONE, 7);   /* needs q */
    ring[7] = entry(COPRO_SLOG_TILER_OOM, 1, 63, 8);    /* good: the
                                                           last kinds */
    ring[8] = entry(COPRO_SLOG_RUNLIST, 0xff, COPRO_HWQ_NONE, 9); /* good */
    ring[9] = entry(COPRO_SLOG_FRAME, 0, 3, 10);
    ring[9].band = 9;                           /* no such band */
    n = copro_hwlog_take(ring, SIZE, &rptr, 12, &view, out, 64, &st);
    /* 10 and 11 are 0xff garbage: dropped too */
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpuint(out[0].time_ns, ==, 8);
    g_assert_cmpuint(out[1].time_ns, ==, 9);
    g_assert_cmpuint(st.bad, ==, 10);
    g_assert_cmpuint(rptr, ==, 12);
}

static void test_lying_wptr(void)
{
    struct copro_hwlog_stats st = { 0 };
    uint32_t rptr = 5;
    unsigned n;

    for (unsigned i = 0; i < SIZE; i++) {
        ring[i] = entry(COPRO_SLOG_COMPLETED, 0, 0, i);
    }
    /* a write pointer far ahead (or "behind", wrapped): at most a ring's
     * worth is read, never more, and the reader catches up */
    n = copro_hwlog_take(ring, SIZE, &rptr, 5 + 1000000, &view, out, 64,
                         &st);
    g_assert_cmpuint(n, ==, SIZE);
    g_assert_cmpuint(st.overrun, ==, 1000000 - SIZE);
    g_assert_cmpuint(rptr, ==, 5 + 1000000);
    rptr = 10;
    n = copro_hwlog_take(ring, SIZE, &rptr, 3, &view, out, 64, &st);
    g_assert_cmpuint(n, <=, SIZE);
    g_assert_cmpuint(rptr, ==, 3);
    /* a bad ring size reads nothing */
    rptr = 0;
    n = copro_hwlog_take(ring, 12, &rptr, 4, &view, out, 64, &st);
    g_assert_cmpuint(n, ==, 0);
    g_assert_cmpuint(rptr, ==, 4);
}

static void test_batches(void)
{
    struct copro_hwlog_stats st = { 0 };
    uint32_t rptr = 0;

    for (unsigned i = 0; i < SIZE; i++) {
        ring[i] = entry(COPRO_SLOG_COMPLETED, 0, 0, i);
    }
    g_assert_cmpuint(copro_hwlog_take(ring, SIZE, &rptr, 10, &view, out, 4,
                                      &st), ==, 4);
    g_assert_cmpuint(rptr, ==, 4);
    g_assert_cmpuint(copro_hwlog_take(ring, SIZE, &rptr, 10, &view, out, 64,
                                      &st), ==, 6);
    g_assert_cmpuint(out[0].time_ns, ==, 4);
}

static void test_progress(void)
{
    /* forward, within what was submitted */
    g_assert_cmpuint(copro_hwlog_progress(5, 3, 7), ==, 5);
    g_assert_cmpuint(copro_hwlog_progress(7, 3, 7), ==, 7);
    /* nothing new */
    g_assert_cmpuint(copro_hwlog_progress(3, 3, 7), ==, 0);
    /* backwards, or work never given: not believed */
    g_assert_cmpuint(copro_hwlog_progress(2, 3, 7), ==, 0);
    g_assert_cmpuint(copro_hwlog_progress(8, 3, 7), ==, 0);
    g_assert_cmpuint(copro_hwlog_progress(UINT64_MAX, 3, 7), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-hwlog/good-in-order", test_good_in_order);
    g_test_add_func("/copro-hwlog/hostile-entries", test_hostile_entries_dropped);
    g_test_add_func("/copro-hwlog/lying-wptr", test_lying_wptr);
    g_test_add_func("/copro-hwlog/batches", test_batches);
    g_test_add_func("/copro-hwlog/progress", test_progress);
    return g_test_run();
}
