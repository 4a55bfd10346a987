/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of vidsch's answer to a hardware queue's OOM stop
 * (vs_hws_up_oom, vidsch_scene.c) against vidsch-fake.c with scripted
 * queue ops: the OS is asked and the queue answered per queue (grown:
 * resume; no room: fail; a partial render: resume once its fence is
 * reached, not before), and a report that names a queue nobody owns, a
 * fence never given, or a queue whose partial render is pending again
 * gets no OS decision and a failure, never a crash (a report repeated
 * while a partial render is pending is ignored: the render answers). The queue's buffers
 * are never requeued (the device keeps them on the queue).
 */
#include "vidsch-fake.h"

#include "ddi/ddi_hws.h"

enum { E0 = 0 };

/* what the scripted queues saw */
static struct {
    unsigned nqueues;
    uint32_t ctx_of[COPRO_HWQ_MAX];
    uint64_t fence[COPRO_HWQ_MAX][16];
    unsigned nfence[COPRO_HWQ_MAX];
    unsigned nsubmit;
    struct { uint32_t queue; bool resume; } ans[16];
    unsigned nans;
} hq;

static int hq_create(void *drv, const struct ddi_hwq_args *a, uint32_t *q)
{
    (void)drv;
    *q = hq.nqueues++;
    hq.ctx_of[*q] = a->context;
    return DDI_OK;
}

static void hq_destroy(void *drv, uint32_t queue)
{
    (void)drv;
    (void)queue;
}

static int hq_submit(void *drv, uint32_t queue,
                     const struct ddi_submit_args *a)
{
    (void)drv;
    g_assert_cmpuint(queue, <, COPRO_HWQ_MAX);
    g_assert_cmpuint(hq.nfence[queue], <, 16);
    hq.fence[queue][hq.nfence[queue]++] = a->fence;
    hq.nsubmit++;
    return DDI_OK;
}

static int hq_commit(void *drv, unsigned engine,
                     const struct ddi_runlist_entry *e, unsigned n)
{
    (void)drv;
    (void)engine;
    (void)e;
    (void)n;
    return DDI_OK;
}

static int hq_answer(void *drv, uint32_t queue, bool resume)
{
    (void)drv;
    g_assert_cmpuint(hq.nans, <, 16);
    hq.ans[hq.nans].queue = queue;
    hq.ans[hq.nans].resume = resume;
    hq.nans++;
    return DDI_OK;
}

static const struct ddi_hws_ops hq_ops = {
    .queue_create = hq_create,
    .queue_destroy = hq_destroy,
    .queue_submit = hq_submit,
    .runlist_commit = hq_commit,
    .queue_oom_answer = hq_answer,
};

/* Contexts 1 and 2 on engine 0, hardware queues 0 and 1; context 1's
 * buffer 0 written to its queue. */
static void setup(struct fake *f, struct vidsch_ctx **a, struct vidsch_ctx **b)
{
    struct vidsch_config cfg;

    memset(&hq, 0, sizeof(hq));
    vidsch_config_default(&cfg);
    cfg.max_contexts = 16;
    cfg.max_buffers = 64;
    cfg.hwsched = true;
    fake_hws = &hq_ops;
    fake_init_cfg(f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    fake_hws = NULL;
    *a = fake_ctx(f, 1, E0, VIDSCH_PRIO_NORMAL);
    *b = fake_ctx(f, 2, E0, VIDSCH_PRIO_NORMAL);
    g_assert_cmpuint(hq.nqueues, ==, 2);
    g_assert_cmpuint(hq.ctx_of[0], ==, 1);
    g_assert_cmpint(fake_submit(f, *a, 0), ==, DDI_OK);
    fake_work(f);
    g_assert_cmpuint(hq.nfence[0], ==, 1);
}

static void queue_oom(struct fake *f, uint32_t queue, uint64_t fence)
{
    struct ddi_hwq_oom oom = { .scene = 0x1000, .need = 64,
                               .oom_fence = fence };

    vidsch_upcalls.queue_oom(f->s, queue, &oom);
    fake_work(f);
}

static void test_grow_resumes(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    setup(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_RESUME;
    queue_oom(&f, 0, hq.fence[0][0]);
    g_assert_cmpuint(f.noom, ==, 1);
    g_assert_cmpuint(f.oom[0].cookie, ==, 0);
    g_assert_cmpuint(f.oom[0].context, ==, 1);
    g_assert_cmpuint(f.oom[0].save_addr, ==, FAKE_SAVE(1));
    g_assert_cmpuint(f.oom[0].need, ==, 64);
    g_assert_cmpuint(hq.nans, ==, 1);
    g_assert_cmpuint(hq.ans[0].queue, ==, 0);
    g_assert_true(hq.ans[0].resume);
    /* nothing requeued: the queue keeps its buffer */
    g_assert_cmpuint(hq.nsubmit, ==, 1);
    g_assert_false(vidsch_ctx_is_lost(a));
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->tiler_oom_resumed, ==, 1);
    fake_fini(&f);
}

static void test_fail(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    setup(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_FAIL;
    queue_oom(&f, 0, hq.fence[0][0]);
    g_assert_cmpuint(hq.nans, ==, 1);
    g_assert_false(hq.ans[0].resume);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->tiler_oom_failed, ==, 1);
    /* the device's queue_error loses it; the other is not touched */
    g_assert_false(vidsch_ctx_is_lost(b));
    fake_fini(&f);
}

/* Reports nobody can own: no OS decision, the queue fails. */
static void test_hostile_reports(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    setup(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_RESUME;
    queue_oom(&f, 40, 1);                       /* no such queue */
    queue_oom(&f, 1, 1);                        /* b gave no fence 1 */
    queue_oom(&f, 0, hq.fence[0][0] + 7);       /* a fence never given */
    queue_oom(&f, COPRO_HWQ_MAX, 1);            /* out of range: ignored */
    vidsch_upcalls.queue_oom(f.s, 0, NULL);     /* ignored */
    g_assert_cmpuint(f.noom, ==, 0);
    g_assert_cmpuint(hq.nans, ==, 3);
    for (unsigned i = 0; i < hq.nans; i++) {
        g_assert_false(hq.ans[i].resume);
    }
    g_assert_false(vidsch_ctx_is_lost(a));
    g_assert_false(vidsch_ctx_is_lost(b));
    fake_fini(&f);
}

/* A partial render: answered resume once its fence is reached, and a
 * second report while it is pending gets no second decision. */
static void test_partial_waits_for_its_fence(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    setup(&f, &a, &b);
    f.oom_answer = VIDSCH_OOM_PARTIAL;
    f.oom_fence_value = 1;
    queue_oom(&f, 0, hq.fence[0][0]);
    g_assert_cmpuint(f.noom, ==, 1);
    g_assert_true(f.oom[0].wait);
    g_assert_cmpuint(hq.nans, ==, 0);
    fake_advance(&f, 1000000);
    fake_work(&f);
    g_assert_cmpuint(hq.nans, ==, 0);
    /* a repeated report while pending: not asked again, not answered
     * (the answer comes with the render) */
    queue_oom(&f, 0, hq.fence[0][0]);
    g_assert_cmpuint(f.noom, ==, 1);
    g_assert_cmpuint(hq.nans, ==, 0);
    /* the render retired: the queue is answered at the next pass */
    f.oom_fence = 1;
    vidsch_sync_changed(f.s);
    fake_work(&f);
    g_assert_cmpuint(hq.nans, ==, 1);
    g_assert_cmpuint(hq.ans[0].queue, ==, 0);
    g_assert_true(hq.ans[0].resume);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->tiler_oom_partial, ==, 1);
    fake_fini(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidsch/scene-hws/grow-resumes", test_grow_resumes);
    g_test_add_func("/vidsch/scene-hws/fail", test_fail);
    g_test_add_func("/vidsch/scene-hws/hostile-reports",
                    test_hostile_reports);
    g_test_add_func("/vidsch/scene-hws/partial-waits-for-its-fence",
                    test_partial_waits_for_its_fence);
    return g_test_run();
}
