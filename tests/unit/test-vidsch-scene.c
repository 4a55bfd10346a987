/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of vidsch's answer to a TILER_OOM stop (vidsch_scene.c),
 * against the scripted GPU of vidsch-fake.c: the stopped geometry
 * buffer resumes after the OS grew its parameter buffer, other
 * contexts' dropped entries go back as they were (nobody else loses
 * work or is blamed), a scene that cannot grow loses its own context
 * only, and a stale report changes nothing. A partial render's answer
 * (VIDSCH_OOM_PARTIAL): the resumed buffer is held at the front of its
 * context's queue until the OS's fence says the partial render retired,
 * the other contexts' dropped entries go back as they were meanwhile,
 * and the context's later buffers stay behind it.
 */
#include "vidsch-fake.h"

#define US  1000ull

enum { E0 = 0 };

static const struct ddi_submit_args *sub_of(struct fake *f, unsigned cookie,
                                            unsigned nth)
{
    for (unsigned i = 0; i < f->nsub; i++) {
        if (fake_cookie_of(f->sub[i].dma_addr) == cookie && nth-- == 0) {
            return &f->sub[i];
        }
    }
    return NULL;
}

/* Geometry buffer 0 of context 1 running, buffer 1 of context 2 queued
 * behind it on the ring (FIFO: both go on the ring at once). */
static void two_on_ring(struct fake *f, struct vidsch_ctx **a,
                        struct vidsch_ctx **b)
{
    fake_init(f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_FIFO);
    *a = fake_ctx(f, 1, E0, VIDSCH_PRIO_NORMAL);
    *b = fake_ctx(f, 2, E0, VIDSCH_PRIO_NORMAL);
    g_assert_cmpint(fake_submit(f, *a, 0), ==, DDI_OK);
    fake_work(f);
    g_assert_cmpint(fake_submit(f, *b, 1), ==, DDI_OK);
    fake_work(f);
    g_assert_cmpuint(f->nsub, ==, 2);
    g_assert_nonnull(sub_of(f, 0, 0));
    g_assert_nonnull(sub_of(f, 1, 0));
    fake_advance(f, 100 * US);
}

static void settle(struct fake *f)
{
    for (unsigned i = 0; i < 8 && !vidsch_idle(f->s); i++) {
        fake_work(f);
        if (f->nsub) {
            fake_complete(f, E0, f->sub[f->nsub - 1].fence);
        }
    }
    fake_work(f);
    g_assert_true(vidsch_idle(f->s));
}

static void test_oom_grow_resumes(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;
    const struct vidsch_engine_stats *st;

    two_on_ring(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_RESUME;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 0)->fence, 296, 0);
    /* asked once, about the stopped buffer, its save area and need */
    g_assert_cmpuint(f.noom, ==, 1);
    g_assert_cmpuint(f.oom[0].cookie, ==, 0);
    g_assert_cmpuint(f.oom[0].context, ==, 1);
    g_assert_cmphex(f.oom[0].save_addr, ==, FAKE_SAVE(1));
    g_assert_cmpuint(f.oom[0].need, ==, 296);
    settle(&f);
    /* the geometry resumed in its save area, under a new fence */
    g_assert_nonnull(sub_of(&f, 0, 1));
    g_assert_cmphex(sub_of(&f, 0, 1)->flags, ==, COPRO_SUBMIT_RESUME);
    g_assert_cmphex(sub_of(&f, 0, 1)->save_addr, ==, FAKE_SAVE(1));
    /* the other context's dropped entry went back as it was */
    g_assert_nonnull(sub_of(&f, 1, 1));
    g_assert_cmphex(sub_of(&f, 1, 1)->flags, ==, 0);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_cmpuint(f.nlost, ==, 0);
    st = vidsch_engine_stats(f.s, E0);
    g_assert_cmpuint(st->tiler_ooms, ==, 1);
    g_assert_cmpuint(st->tiler_oom_resumed, ==, 1);
    g_assert_cmpuint(st->tiler_oom_failed, ==, 0);
    /* not a preemption of anyone */
    g_assert_cmpuint(vidsch_ctx_stats(a)->preemptions, ==, 0);
    g_assert_cmpuint(vidsch_ctx_stats(b)->preemptions, ==, 0);
    g_assert_cmpuint(st->preemptions, ==, 0);
    fake_fini(&f);
}

static void test_oom_fail_loses_only_its_context(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    two_on_ring(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_FAIL;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 0)->fence, 1u << 30, 0);
    g_assert_cmpuint(f.noom, ==, 1);
    settle(&f);
    g_assert_cmpuint(f.nlost, ==, 1);
    g_assert_cmpuint(f.lost[0], ==, 1);
    g_assert_true(vidsch_ctx_is_lost(a));
    g_assert_false(vidsch_ctx_is_lost(b));
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_ELOST);
    /* never resumed */
    g_assert_null(sub_of(&f, 0, 1));
    /* the innocent one ran again and retired */
    g_assert_nonnull(sub_of(&f, 1, 1));
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->tiler_oom_failed, ==, 1);
    fake_fini(&f);
}

/*
 * A scene that cannot grow loses its device, not only its context: the
 * same device's tile context, held on the geometry's signal, is lost
 * with it before that signal is written, so its held buffer never runs
 * (reported lost); another device's context runs on, and the signal is
 * still written (nobody waits for ever on a removed device).
 */
static void test_oom_fail_loses_its_device(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b, *t;
    volatile uint64_t geom = 0;

    two_on_ring(&f, &a, &b);
    t = fake_ctx(&f, 3, E0, VIDSCH_PRIO_NORMAL);
    vidsch_ctx_set_device(a, 7);
    vidsch_ctx_set_device(t, 7);
    vidsch_ctx_set_device(b, 8);
    g_assert_cmpint(vidsch_signal(f.s, a, &geom, 1), ==, DDI_OK);
    g_assert_cmpint(vidsch_wait(f.s, t, &geom, 1), ==, DDI_OK);
    g_assert_cmpint(fake_submit(&f, t, 2), ==, DDI_OK);
    fake_work(&f);
    g_assert_null(sub_of(&f, 2, 0));
    f.oom_answer = VIDSCH_OOM_FAIL;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 0)->fence, 1u << 30, 0);
    settle(&f);
    g_assert_cmpuint(f.nlost, ==, 2);
    g_assert_true(vidsch_ctx_is_lost(a));
    g_assert_true(vidsch_ctx_is_lost(t));
    g_assert_false(vidsch_ctx_is_lost(b));
    /* the held tile pass: lost, never submitted */
    g_assert_null(sub_of(&f, 2, 0));
    g_assert_cmpint(fake_status(&f, 2), ==, DDI_ELOST);
    g_assert_cmpuint(vidsch_ctx_stats(t)->started, ==, 0);
    g_assert_cmpuint(vidsch_ctx_stats(t)->lost, ==, 1);
    g_assert_cmpuint(vidsch_stats(f.s)->contexts_lost_with_device, ==, 1);
    g_assert_cmpuint(geom, ==, 1);
    /* the other device's buffer ran again and retired */
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_cmpint(fake_submit(&f, t, 4), ==, DDI_ELOST);
    fake_fini(&f);
}

static void test_oom_stale(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;
    uint64_t f0;

    two_on_ring(&f, &a, &b);
    f0 = sub_of(&f, 0, 0)->fence;
    fake_complete(&f, E0, f0);
    /* about a buffer that retired: the OS is not asked, nothing moves */
    vidsch_upcalls.tiler_oom(f.s, E0, f0, 64, f0);
    g_assert_cmpuint(f.noom, ==, 0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->stale_upcalls, ==, 1);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->tiler_ooms, ==, 0);
    fake_work(&f);
    g_assert_cmpuint(f.nsub, ==, 2);
    fake_complete(&f, E0, sub_of(&f, 1, 0)->fence);
    fake_work(&f);
    g_assert_true(vidsch_idle(f.s));
    g_assert_cmpuint(f.nlost, ==, 0);
    fake_fini(&f);
}

/* Every ring write of cookie, in order: its position in f->sub. */
static int sub_index(struct fake *f, unsigned cookie, unsigned nth)
{
    for (unsigned i = 0; i < f->nsub; i++) {
        if (fake_cookie_of(f->sub[i].dma_addr) == cookie && nth-- == 0) {
            return (int)i;
        }
    }
    return -1;
}

/*
 * PARTIAL, step by step (fifo: both contexts' buffers on the ring): the
 * stopped geometry buffer 0 of context 1 is held on the OS's fence; the
 * other context's dropped buffer 1 goes back as it was and runs; a
 * later buffer 2 of context 1 waits behind the held one; once the fence
 * is reached the geometry resumes (RESUME, its save area), then 2.
 */
static void partial_holds(enum vidsch_policy policy)
{
    struct fake f;
    struct vidsch_ctx *a, *b;
    const struct vidsch_engine_stats *st;
    uint64_t f0;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, policy);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    g_assert_cmpint(fake_submit(&f, a, 0), ==, DDI_OK);
    fake_work(&f);
    g_assert_cmpint(fake_submit(&f, b, 1), ==, DDI_OK);
    fake_work(&f);
    fake_advance(&f, 100 * US);
    /* both on the ring (depth 2) */
    g_assert_nonnull(sub_of(&f, 1, 0));
    f0 = sub_of(&f, 0, 0)->fence;
    f.oom_answer = VIDSCH_OOM_PARTIAL;
    f.oom_fence = 6;
    f.oom_fence_value = 7;
    fake_tiler_oom(&f, E0, f0, 296, 0);
    g_assert_cmpuint(f.noom, ==, 1);
    g_assert_true(f.oom[0].wait);
    /* a later buffer of the same context, submitted meanwhile */
    g_assert_cmpint(fake_submit(&f, a, 2), ==, DDI_OK);
    fake_work(&f);
    /* the other context's dropped entry runs again, as it was */
    g_assert_nonnull(sub_of(&f, 1, 1));
    g_assert_cmphex(sub_of(&f, 1, 1)->flags, ==, 0);
    g_assert_null(sub_of(&f, 0, 1));
    g_assert_null(sub_of(&f, 2, 0));
    fake_complete(&f, E0, sub_of(&f, 1, 1)->fence);
    for (unsigned i = 0; i < 4; i++) {
        fake_advance(&f, 2000 * US);    /* the timer polls the wait */
        fake_work(&f);
    }
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    /* still held: the fence is below the value */
    g_assert_null(sub_of(&f, 0, 1));
    g_assert_null(sub_of(&f, 2, 0));
    g_assert_false(vidsch_idle(f.s));
    g_assert_true(vidsch_sync_in_use(f.s, &f.oom_fence));
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_HOLD, 0), >=, 1);
    /* the partial render retired: the OS's fence reaches the value */
    f.oom_fence = 7;
    vidsch_sync_changed(f.s);
    fake_work(&f);
    g_assert_nonnull(sub_of(&f, 0, 1));
    g_assert_cmphex(sub_of(&f, 0, 1)->flags, ==, COPRO_SUBMIT_RESUME);
    g_assert_cmphex(sub_of(&f, 0, 1)->save_addr, ==, FAKE_SAVE(1));
    settle(&f);
    /* in order: the resumed geometry before the context's next buffer */
    g_assert_cmpint(sub_index(&f, 2, 0), >, sub_index(&f, 0, 1));
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    g_assert_cmpint(fake_status(&f, 2), ==, DDI_OK);
    g_assert_cmpuint(f.nlost, ==, 0);
    g_assert_false(vidsch_sync_in_use(f.s, &f.oom_fence));
    st = vidsch_engine_stats(f.s, E0);
    g_assert_cmpuint(st->tiler_ooms, ==, 1);
    g_assert_cmpuint(st->tiler_oom_partial, ==, 1);
    g_assert_cmpuint(st->tiler_oom_resumed, ==, 0);
    g_assert_cmpuint(st->tiler_oom_failed, ==, 0);
    g_assert_cmpuint(vidsch_ctx_stats(a)->preemptions, ==, 0);
    g_assert_cmpuint(vidsch_ctx_stats(b)->preemptions, ==, 0);
    fake_fini(&f);
}

static void test_oom_partial_holds_fifo(void)
{
    partial_holds(VIDSCH_POLICY_FIFO);
}

static void test_oom_partial_holds_priority(void)
{
    partial_holds(VIDSCH_POLICY_PRIORITY);
}

static void test_oom_partial_holds_quantum(void)
{
    partial_holds(VIDSCH_POLICY_QUANTUM);
}

/* A second OOM of the same buffer after its partial render: held again
 * on the next value (the device emptied the bins; the scene goes on). */
static void test_oom_partial_twice(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    two_on_ring(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_PARTIAL;
    f.oom_fence_value = 1;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 0)->fence, 64, 0);
    fake_work(&f);
    fake_complete(&f, E0, sub_of(&f, 1, 1)->fence);
    fake_work(&f);
    g_assert_null(sub_of(&f, 0, 1));
    f.oom_fence = 1;
    vidsch_sync_changed(f.s);
    fake_work(&f);
    g_assert_nonnull(sub_of(&f, 0, 1));
    f.oom_fence_value = 2;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 1)->fence, 64, 0);
    g_assert_cmpuint(f.noom, ==, 2);
    g_assert_cmpuint(f.oom[1].cookie, ==, 0);
    fake_work(&f);
    g_assert_null(sub_of(&f, 0, 2));
    f.oom_fence = 2;
    vidsch_sync_changed(f.s);
    fake_work(&f);
    g_assert_nonnull(sub_of(&f, 0, 2));
    g_assert_cmphex(sub_of(&f, 0, 2)->flags, ==, COPRO_SUBMIT_RESUME);
    settle(&f);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    g_assert_cmpuint(f.nlost, ==, 0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->tiler_oom_partial, ==, 2);
    fake_fini(&f);
}

/* The OS's fence is there already (its render retired first): no hold. */
static void test_oom_partial_reached(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    two_on_ring(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_PARTIAL;
    f.oom_fence = 3;
    f.oom_fence_value = 3;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 0)->fence, 64, 0);
    fake_work(&f);
    g_assert_nonnull(sub_of(&f, 0, 1));
    g_assert_cmphex(sub_of(&f, 0, 1)->flags, ==, COPRO_SUBMIT_RESUME);
    settle(&f);
    g_assert_cmpuint(f.nlost, ==, 0);
    fake_fini(&f);
}

/* The process goes while its geometry is held: the held buffer is
 * reported lost and never runs, its wait is let go (the OS may reuse
 * the fence's memory), and the other context is not touched. */
static void test_oom_partial_destroyed(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    two_on_ring(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_PARTIAL;
    f.oom_fence_value = 1;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 0)->fence, 64, 0);
    fake_work(&f);
    g_assert_true(vidsch_sync_in_use(f.s, &f.oom_fence));
    g_assert_true(vidsch_ctx_destroy(f.s, a));
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_ELOST);
    g_assert_false(vidsch_sync_in_use(f.s, &f.oom_fence));
    fake_complete(&f, E0, sub_of(&f, 1, 1)->fence);
    fake_work(&f);
    g_assert_true(vidsch_idle(f.s));
    g_assert_null(sub_of(&f, 0, 1));
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_false(vidsch_ctx_is_lost(b));
    fake_fini(&f);
}

/* PARTIAL without a fence to wait on is no answer: the scene's context
 * is lost (nothing may resume before a render that nobody orders). */
static void test_oom_partial_no_fence(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    two_on_ring(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_PARTIAL;
    f.oom_fence_value = 1;
    /* the fake leaves wait->addr NULL when it has no value to give */
    f.oom_answer_no_fence = true;
    fake_tiler_oom(&f, E0, sub_of(&f, 0, 0)->fence, 64, 0);
    settle(&f);
    g_assert_true(vidsch_ctx_is_lost(a));
    g_assert_false(vidsch_ctx_is_lost(b));
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->tiler_oom_failed, ==, 1);
    fake_fini(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidsch/scene/oom-grow-resumes", test_oom_grow_resumes);
    g_test_add_func("/vidsch/scene/oom-fail-loses-only-its-context",
                    test_oom_fail_loses_only_its_context);
    g_test_add_func("/vidsch/scene/oom-fail-loses-its-device",
                    test_oom_fail_loses_its_device);
    g_test_add_func("/vidsch/scene/oom-stale", test_oom_stale);
    g_test_add_func("/vidsch/scene/oom-partial-holds-fifo",
                    test_oom_partial_holds_fifo);
    g_test_add_func("/vidsch/scene/oom-partial-holds-priority",
                    test_oom_partial_holds_priority);
    g_test_add_func("/vidsch/scene/oom-partial-holds-quantum",
                    test_oom_partial_holds_quantum);
    g_test_add_func("/vidsch/scene/oom-partial-twice", test_oom_partial_twice);
    g_test_add_func("/vidsch/scene/oom-partial-reached",
                    test_oom_partial_reached);
    g_test_add_func("/vidsch/scene/oom-partial-destroyed",
                    test_oom_partial_destroyed);
    g_test_add_func("/vidsch/scene/oom-partial-no-fence",
                    test_oom_partial_no_fence);
    return g_test_run();
}
