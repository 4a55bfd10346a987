/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the preemption/reset fence bookkeeping
 * (firmware/kmd/copro_fences.c): given an engine's outstanding
 * submissions in order and the fences it reported when it stopped, which
 * completed, which was preempted or aborted, which were dropped.
 */
#include <glib.h>

#include <copro/copro_cmd.h>

#include "kmd/copro_fences.h"

#define SAVE    0x2000

/* Queues fences first..last, tagged 100 + fence, all with a save area. */
static void queue(struct copro_fences *f, uint64_t first, uint64_t last)
{
    for (uint64_t fence = first; fence <= last; fence++) {
        struct copro_sub s = {
            .fence = fence, .dma_addr = 0x10000 + fence * 0x100,
            .dma_len = 64, .context = 7, .save_addr = SAVE,
            .tag = 100 + fence,
        };
        g_assert_true(copro_fences_push(f, &s));
    }
}

static void test_push_retire(void)
{
    struct copro_fences f;
    struct copro_sub s = { .fence = 5, .save_addr = SAVE };

    copro_fences_init(&f);
    g_assert_true(copro_fences_push(&f, &s));
    /* fences must grow, and 0 is "none" */
    g_assert_false(copro_fences_push(&f, &s));
    s.fence = 4;
    g_assert_false(copro_fences_push(&f, &s));
    s.fence = 0;
    g_assert_false(copro_fences_push(&f, &s));
    s.fence = 9;
    g_assert_true(copro_fences_push(&f, &s));
    g_assert_cmpuint(f.count, ==, 2);

    g_assert_cmpuint(copro_fences_retire(&f, 4), ==, 0);
    g_assert_cmpuint(copro_fences_retire(&f, 5), ==, 1);
    g_assert_cmpuint(f.sub[0].fence, ==, 9);
    g_assert_cmpuint(copro_fences_retire(&f, 100), ==, 1);
    g_assert_cmpuint(f.count, ==, 0);
}

static void test_full(void)
{
    struct copro_fences f;
    struct copro_sub s = { .fence = 1 };

    copro_fences_init(&f);
    queue(&f, 1, COPRO_FENCES_MAX);
    s.fence = COPRO_FENCES_MAX + 1;
    g_assert_false(copro_fences_push(&f, &s));
}

static void test_find_tag(void)
{
    struct copro_fences f;

    copro_fences_init(&f);
    queue(&f, 3, 6);
    g_assert_cmpuint(copro_fences_find_tag(&f, 105)->fence, ==, 5);
    g_assert_null(copro_fences_find_tag(&f, 107));
    copro_fences_retire(&f, 5);
    g_assert_null(copro_fences_find_tag(&f, 105));
}

/* Mid-buffer preemption: 3..4 done, 5 interrupted, 6..7 dropped. */
static void test_preempted_mid_buffer(void)
{
    struct copro_fences f;
    struct copro_stop_plan p;
    struct copro_stop_regs regs = { .completed = 4, .interrupted = 5 };

    copro_fences_init(&f);
    queue(&f, 3, 7);
    g_assert_null(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &regs, &p));
    g_assert_cmpuint(f.count, ==, 0);
    g_assert_cmpuint(p.count, ==, 5);
    g_assert_cmpuint(p.completed, ==, 2);
    g_assert_cmpuint(p.preempted, ==, 1);
    g_assert_cmpuint(p.dropped, ==, 2);
    g_assert_cmpuint(p.aborted, ==, 0);
    g_assert_cmpint(p.entry[0].fate, ==, COPRO_FATE_COMPLETED);
    g_assert_cmpint(p.entry[1].fate, ==, COPRO_FATE_COMPLETED);
    g_assert_cmpint(p.entry[2].fate, ==, COPRO_FATE_PREEMPTED);
    g_assert_cmpuint(p.entry[2].sub.tag, ==, 105);
    g_assert_cmpint(p.entry[3].fate, ==, COPRO_FATE_DROPPED);
    g_assert_cmpint(p.entry[4].fate, ==, COPRO_FATE_DROPPED);
    /* the preempted one resumes; dropped ones run as they were */
    g_assert_cmphex(copro_fate_resubmit_flags(&p.entry[2].sub,
                                              p.entry[2].fate), ==,
                    COPRO_SUBMIT_RESUME);
    g_assert_cmphex(copro_fate_resubmit_flags(&p.entry[3].sub,
                                              p.entry[3].fate), ==, 0);
}

/* Between buffers (dma-buffer granularity): nothing interrupted. */
static void test_preempted_between(void)
{
    struct copro_fences f;
    struct copro_stop_plan p;
    struct copro_stop_regs regs = { .completed = 1, .interrupted = 0 };

    copro_fences_init(&f);
    queue(&f, 1, 3);
    g_assert_null(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &regs, &p));
    g_assert_cmpuint(p.completed, ==, 1);
    g_assert_cmpuint(p.preempted, ==, 0);
    g_assert_cmpuint(p.dropped, ==, 2);
}

/* Granularity none: the request completes after everything ran. */
static void test_preempt_none_all_done(void)
{
    struct copro_fences f;
    struct copro_stop_plan p;
    struct copro_stop_regs regs = { .completed = 3, .interrupted = 0 };

    copro_fences_init(&f);
    queue(&f, 1, 3);
    g_assert_null(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &regs, &p));
    g_assert_cmpuint(p.completed, ==, 3);
    g_assert_cmpuint(p.preempted + p.dropped + p.aborted, ==, 0);

    /* and with the list already retired by the DPC: nothing to do */
    g_assert_null(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &regs, &p));
    g_assert_cmpuint(p.count, ==, 0);
}

/* A dropped RESUME keeps its flag: its save record was not touched. */
static void test_dropped_resume_keeps_flag(void)
{
    struct copro_fences f;
    struct copro_stop_plan p;
    struct copro_stop_regs regs = { .completed = 1, .interrupted = 0 };
    struct copro_sub s = { .fence = 2, .flags = COPRO_SUBMIT_RESUME,
                           .save_addr = SAVE };

    copro_fences_init(&f);
    queue(&f, 1, 1);
    g_assert_true(copro_fences_push(&f, &s));
    g_assert_null(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &regs, &p));
    g_assert_cmpint(p.entry[1].fate, ==, COPRO_FATE_DROPPED);
    g_assert_cmphex(copro_fate_resubmit_flags(&p.entry[1].sub,
                                              p.entry[1].fate), ==,
                    COPRO_SUBMIT_RESUME);
}

/* Engine reset: the executing one is aborted, the rest dropped. */
static void test_reset(void)
{
    struct copro_fences f;
    struct copro_stop_plan p;
    struct copro_stop_regs regs = { .completed = 10, .interrupted = 11 };

    copro_fences_init(&f);
    queue(&f, 10, 12);
    g_assert_null(copro_fences_settle(&f, COPRO_STOP_RESET, &regs, &p));
    g_assert_cmpint(p.entry[0].fate, ==, COPRO_FATE_COMPLETED);
    g_assert_cmpint(p.entry[1].fate, ==, COPRO_FATE_ABORTED);
    g_assert_cmpint(p.entry[2].fate, ==, COPRO_FATE_DROPPED);
    g_assert_cmpuint(p.aborted, ==, 1);
    g_assert_cmpuint(p.dropped, ==, 1);
    g_assert_cmpstr(copro_fate_name(p.entry[1].fate), ==, "aborted");
}

/* Register values that cannot describe the list are refused, and the
 * list is left alone. */
static void test_inconsistent(void)
{
    struct copro_fences f;
    struct copro_stop_plan p;
    struct copro_stop_regs later = { .completed = 4, .interrupted = 6 };
    struct copro_stop_regs unknown = { .completed = 4, .interrupted = 99 };
    struct copro_stop_regs beyond = { .completed = 9, .interrupted = 0 };
    struct copro_stop_regs done = { .completed = 5, .interrupted = 5 };
    struct copro_sub paging = { .fence = 8, .flags = COPRO_SUBMIT_PAGING,
                                .save_addr = SAVE };
    struct copro_sub nosave = { .fence = 8 };

    copro_fences_init(&f);
    queue(&f, 3, 7);
    /* in-order execution: 5 must be the interrupted one, not 6 */
    g_assert_nonnull(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &later,
                                         &p));
    g_assert_nonnull(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &unknown,
                                         &p));
    g_assert_nonnull(copro_fences_settle(&f, COPRO_STOP_RESET, &beyond, &p));
    /* a completed fence cannot also be the interrupted one */
    g_assert_nonnull(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &done, &p));
    g_assert_cmpuint(f.count, ==, 5);

    /* a paging buffer is never preempted (but may be aborted) */
    copro_fences_init(&f);
    g_assert_true(copro_fences_push(&f, &paging));
    later = (struct copro_stop_regs){ .completed = 7, .interrupted = 8 };
    g_assert_nonnull(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &later,
                                         &p));
    g_assert_null(copro_fences_settle(&f, COPRO_STOP_RESET, &later, &p));
    g_assert_cmpint(p.entry[0].fate, ==, COPRO_FATE_ABORTED);

    /* preempted without a save area: nowhere to resume from */
    copro_fences_init(&f);
    g_assert_true(copro_fences_push(&f, &nosave));
    g_assert_nonnull(copro_fences_settle(&f, COPRO_STOP_PREEMPT, &later,
                                         &p));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-fences/push-retire", test_push_retire);
    g_test_add_func("/copro-fences/full", test_full);
    g_test_add_func("/copro-fences/find-tag", test_find_tag);
    g_test_add_func("/copro-fences/preempted-mid-buffer",
                    test_preempted_mid_buffer);
    g_test_add_func("/copro-fences/preempted-between",
                    test_preempted_between);
    g_test_add_func("/copro-fences/preempt-none-all-done",
                    test_preempt_none_all_done);
    g_test_add_func("/copro-fences/dropped-resume-keeps-flag",
                    test_dropped_resume_keeps_flag);
    g_test_add_func("/copro-fences/reset", test_reset);
    g_test_add_func("/copro-fences/inconsistent", test_inconsistent);
    return g_test_run();
}
