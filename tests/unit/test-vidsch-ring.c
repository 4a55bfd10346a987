/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the scheduler's view of an engine's ring
 * (firmware/vidsch/vidsch_ring.c): submissions in order, retirement, and
 * after an early stop which completed, which was preempted or aborted,
 * which were dropped; and refusing fences that fit no such story.
 */
#include <glib.h>

#include <copro/copro_cmd.h>

#include "vidsch/vidsch_ring.h"

#define SAVE    0x2000

struct fixture {
    struct vidsch_ring r;
    struct vidsch_sub sub[16];
};

/* Queues fences first..last, with a save area, as sub[fence]. */
static void queue(struct fixture *f, uint64_t first, uint64_t last)
{
    for (uint64_t fence = first; fence <= last; fence++) {
        f->sub[fence] = (struct vidsch_sub){ .fence = fence,
                                             .save_addr = SAVE };
        g_assert_true(vidsch_ring_push(&f->r, &f->sub[fence]));
    }
}

static void test_push_rules(void)
{
    struct fixture f;
    struct vidsch_sub a = { .fence = 5 }, b = { .fence = 5 },
                      c = { .fence = 0 }, d = { .fence = 9 };

    vidsch_ring_init(&f.r);
    g_assert_true(vidsch_ring_push(&f.r, &a));
    /* fences must grow, and 0 is "none" */
    g_assert_false(vidsch_ring_push(&f.r, &b));
    g_assert_false(vidsch_ring_push(&f.r, &c));
    g_assert_true(vidsch_ring_push(&f.r, &d));
    g_assert_cmpuint(vidsch_ring_count(&f.r), ==, 2);

    g_assert_null(vidsch_ring_retire(&f.r, 4));
    g_assert_true(vidsch_ring_retire(&f.r, 5) == &a);
    g_assert_null(vidsch_ring_retire(&f.r, 5));
    g_assert_true(vidsch_ring_oldest(&f.r) == &d);
    g_assert_true(vidsch_ring_retire(&f.r, 100) == &d);
    g_assert_cmpuint(vidsch_ring_count(&f.r), ==, 0);
    /* nothing at or below a completed fence can be queued again */
    b.fence = 100;
    g_assert_false(vidsch_ring_push(&f.r, &b));
    b.fence = 101;
    g_assert_true(vidsch_ring_push(&f.r, &b));
}

/* A paging buffer dropped by a stop keeps its (older) fence: legal as
 * long as it goes back first, above COMPLETED_FENCE. */
static void test_paging_fence_reuse(void)
{
    struct fixture f;
    struct vidsch_sub p = { .fence = 5, .flags = COPRO_SUBMIT_PAGING },
                      x = { .fence = 11 };

    vidsch_ring_init(&f.r);
    queue(&f, 3, 4);
    g_assert_true(vidsch_ring_push(&f.r, &p));
    g_assert_null(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 3, 4));
    g_assert_true(vidsch_ring_retire(&f.r, 3) == &f.sub[3]);
    g_assert_true(vidsch_ring_pop(&f.r) == &f.sub[4]);
    g_assert_true(vidsch_ring_pop(&f.r) == &p);
    g_assert_true(vidsch_ring_push(&f.r, &p));
    g_assert_true(vidsch_ring_push(&f.r, &x));
    g_assert_null(vidsch_ring_retire(&f.r, 4));
    g_assert_true(vidsch_ring_retire(&f.r, 5) == &p);
}

/* Mid-buffer preemption: 3..4 done, 5 interrupted, 6..7 dropped. */
static void test_preempted_mid_buffer(void)
{
    struct fixture f;
    struct vidsch_sub *s;
    enum vidsch_fate want[] = { VIDSCH_FATE_PREEMPTED, VIDSCH_FATE_DROPPED,
                                VIDSCH_FATE_DROPPED };
    unsigned i = 0;

    vidsch_ring_init(&f.r);
    queue(&f, 3, 7);
    g_assert_null(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 4, 5));
    g_assert_cmpint(vidsch_ring_fate(&f.sub[3], VIDSCH_STOP_PREEMPT, 4, 5),
                    ==, VIDSCH_FATE_COMPLETED);
    while (vidsch_ring_retire(&f.r, 4)) {
    }
    while ((s = vidsch_ring_pop(&f.r))) {
        g_assert_cmpuint(s->fence, ==, 5 + i);
        g_assert_cmpint(vidsch_ring_fate(s, VIDSCH_STOP_PREEMPT, 4, 5), ==,
                        want[i]);
        i++;
    }
    g_assert_cmpuint(i, ==, 3);
    /* the preempted one resumes; dropped ones run as they were */
    g_assert_cmphex(vidsch_fate_resubmit_flags(&f.sub[5],
                                               VIDSCH_FATE_PREEMPTED), ==,
                    COPRO_SUBMIT_RESUME);
    g_assert_cmphex(vidsch_fate_resubmit_flags(&f.sub[6],
                                               VIDSCH_FATE_DROPPED), ==, 0);
}

/* Between buffers (dma-buffer granularity): nothing interrupted. */
static void test_preempted_between(void)
{
    struct fixture f;

    vidsch_ring_init(&f.r);
    queue(&f, 1, 3);
    g_assert_null(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 1, 0));
    g_assert_cmpint(vidsch_ring_fate(&f.sub[2], VIDSCH_STOP_PREEMPT, 1, 0),
                    ==, VIDSCH_FATE_DROPPED);
    /* granularity none: everything ran before the request completed */
    g_assert_null(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 3, 0));
}

/* A dropped RESUME keeps its flag; an aborted one starts over. */
static void test_resubmit_flags(void)
{
    struct vidsch_sub s = { .fence = 2, .flags = COPRO_SUBMIT_RESUME,
                            .save_addr = SAVE };

    g_assert_cmphex(vidsch_fate_resubmit_flags(&s, VIDSCH_FATE_DROPPED), ==,
                    COPRO_SUBMIT_RESUME);
    g_assert_cmphex(vidsch_fate_resubmit_flags(&s, VIDSCH_FATE_ABORTED), ==,
                    0);
    g_assert_cmpstr(vidsch_fate_name(VIDSCH_FATE_ABORTED), ==, "aborted");
}

/* Engine reset: the executing one is aborted, the rest dropped. */
static void test_reset(void)
{
    struct fixture f;

    vidsch_ring_init(&f.r);
    queue(&f, 10, 12);
    g_assert_null(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_RESET, 10, 11));
    g_assert_cmpint(vidsch_ring_fate(&f.sub[10], VIDSCH_STOP_RESET, 10, 11),
                    ==, VIDSCH_FATE_COMPLETED);
    g_assert_cmpint(vidsch_ring_fate(&f.sub[11], VIDSCH_STOP_RESET, 10, 11),
                    ==, VIDSCH_FATE_ABORTED);
    g_assert_cmpint(vidsch_ring_fate(&f.sub[12], VIDSCH_STOP_RESET, 10, 11),
                    ==, VIDSCH_FATE_DROPPED);
}

/* Fences that cannot describe the list are refused. */
static void test_inconsistent(void)
{
    struct fixture f;
    struct vidsch_sub paging = { .fence = 8, .flags = COPRO_SUBMIT_PAGING,
                                 .save_addr = SAVE };
    struct vidsch_sub nosave = { .fence = 8 };

    vidsch_ring_init(&f.r);
    queue(&f, 3, 7);
    /* in-order execution: 5 must be the interrupted one, not 6 */
    g_assert_nonnull(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 4, 6));
    g_assert_nonnull(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 4,
                                            99));
    g_assert_nonnull(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_RESET, 9, 0));
    /* a completed fence cannot also be the interrupted one */
    g_assert_nonnull(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 5, 5));
    g_assert_cmpuint(vidsch_ring_count(&f.r), ==, 5);

    /* a paging buffer is never preempted (but may be aborted) */
    vidsch_ring_init(&f.r);
    g_assert_true(vidsch_ring_push(&f.r, &paging));
    g_assert_nonnull(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 7, 8));
    g_assert_null(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_RESET, 7, 8));

    /* preempted without a save area: nowhere to resume from */
    vidsch_ring_init(&f.r);
    g_assert_true(vidsch_ring_push(&f.r, &nosave));
    g_assert_nonnull(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_PREEMPT, 7, 8));
    /* an interrupted fence with nothing queued */
    vidsch_ring_init(&f.r);
    g_assert_nonnull(vidsch_ring_check_stop(&f.r, VIDSCH_STOP_RESET, 0, 3));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidsch-ring/push-rules", test_push_rules);
    g_test_add_func("/vidsch-ring/paging-fence-reuse",
                    test_paging_fence_reuse);
    g_test_add_func("/vidsch-ring/preempted-mid-buffer",
                    test_preempted_mid_buffer);
    g_test_add_func("/vidsch-ring/preempted-between", test_preempted_between);
    g_test_add_func("/vidsch-ring/resubmit-flags", test_resubmit_flags);
    g_test_add_func("/vidsch-ring/reset", test_reset);
    g_test_add_func("/vidsch-ring/inconsistent", test_inconsistent);
    return g_test_run();
}
