/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the GPU scheduler's decisions (firmware/vidsch/), one
 * step at a time against a scripted GPU (vidsch-fake.c): the path of a
 * buffer, each policy's choice, preparation overlapping execution and
 * never preempted, priority and quantum preemption and what comes back
 * from it, the shallow ring, paging buffers, waits and signals, TDR and
 * faults, statistics, and the API's refusals.
 *
 * One program past a thousand lines: one scripted GPU (vidsch-fake.c)
 * and one scheduler, each decision a case that steps them together; the
 * scene and hardware-scheduling cases already have programs of their own
 * (test-vidsch-scene.c, test-vidsch-scene-hws.c).
 */
#include <string.h>

#include "vidsch-fake.h"

#define US  1000ull
#define MS  1000000ull

enum { E0 = 0, E1 = 1 };

/* Cookies of the ring writes from index `from` must be exactly want. */
static void assert_subs(struct fake *f, unsigned from, const unsigned *want,
                        unsigned n)
{
    unsigned got[FAKE_MAX_SUBS];
    unsigned m = fake_subs_since(f, from, got, FAKE_MAX_SUBS);

    for (unsigned i = 0; i < n && i < m; i++) {
        if (got[i] != want[i]) {
            g_error("ring write %u: cookie %u, expected %u", from + i, got[i],
                    want[i]);
        }
    }
    g_assert_cmpuint(m, ==, n);
}

#define ASSERT_SUBS(f, from, ...)                                         \
    do {                                                                  \
        const unsigned want_[] = { __VA_ARGS__ };                         \
        assert_subs(f, from, want_, sizeof(want_) / sizeof(want_[0]));    \
    } while (0)

static const struct ddi_submit_args *sub_of(struct fake *f, unsigned cookie,
                                            unsigned nth)
{
    for (unsigned i = 0; i < f->nsub; i++) {
        if (fake_cookie_of(f->sub[i].dma_addr) == cookie && nth-- == 0) {
            return &f->sub[i];
        }
    }
    g_error("cookie %u not submitted", cookie);
    return NULL;
}

/* ---- configuration and creation ---- */

static void test_config(void)
{
    struct vidsch_config c;
    enum vidsch_policy p = VIDSCH_POLICY_FIFO;

    vidsch_config_default(&c);
    g_assert_cmpint(c.policy, ==, VIDSCH_POLICY_QUANTUM);
    g_assert_cmpuint(c.quantum_ns, >, 0);
    g_assert_cmpuint(c.aging_ns, >, c.quantum_ns);
    g_assert_cmpuint(c.tdr_limit, >, 0);
    g_assert_cmpint(vidsch_policy_parse("priority", &p), ==, 0);
    g_assert_cmpint(p, ==, VIDSCH_POLICY_PRIORITY);
    g_assert_cmpint(vidsch_policy_parse("quantum", &p), ==, 0);
    g_assert_cmpint(p, ==, VIDSCH_POLICY_QUANTUM);
    g_assert_cmpint(vidsch_policy_parse("fifo", &p), ==, 0);
    g_assert_cmpint(p, ==, VIDSCH_POLICY_FIFO);
    g_assert_cmpint(vidsch_policy_parse("lottery", &p), ==, -1);
    g_assert_cmpint(vidsch_policy_parse(NULL, &p), ==, -1);
    g_assert_cmpstr(vidsch_policy_name(VIDSCH_POLICY_PRIORITY), ==,
                    "priority");
    g_assert_cmpstr(vidsch_priority_name(VIDSCH_PRIO_ABOVE_NORMAL), ==,
                    "ABOVE_NORMAL");
}

static void test_create_refuses(void)
{
    struct fake f;
    struct vidsch_config c;
    struct vidsch_env env;
    struct ddi_device dev;
    uint64_t need;
    void *mem;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    c = f.cfg;
    need = vidsch_storage_size(c.max_contexts, c.max_buffers);
    mem = g_malloc0(need + 8);
    env = (struct vidsch_env){ .os = &f };
    dev = (struct ddi_device){ .ops = NULL, .drv = &f };
    /* no ops, no env callbacks */
    g_assert_null(vidsch_create(mem, need, &dev, &env, &c));
    /* too small, and misaligned */
    g_assert_null(vidsch_create(mem, need - 1, &dev, &env, &c));
    g_assert_null(vidsch_create((char *)mem + 4, need, &dev, &env, &c));
    g_free(mem);
    /* a context without a save area on a device that saves mid-buffer */
    g_assert_null(vidsch_ctx_create(f.s, 9, E0, VIDSCH_PRIO_NORMAL, 0));
    /* no such engine or priority */
    g_assert_null(vidsch_ctx_create(f.s, 9, 3, VIDSCH_PRIO_NORMAL, 0x1000));
    g_assert_null(vidsch_ctx_create(f.s, 9, E0, VIDSCH_PRIO_COUNT, 0x1000));
    fake_fini(&f);
}

/* ---- the path of a buffer ---- */

static void test_path_of_a_buffer(void)
{
    struct fake f;
    struct vidsch_ctx *a;
    const struct ddi_submit_args *s;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 7, E0, VIDSCH_PRIO_NORMAL);
    g_assert_true(vidsch_idle(f.s));
    g_assert_cmpint(fake_submit(&f, a, 0), ==, DDI_OK);
    g_assert_false(vidsch_idle(f.s));
    /* elected, handed to the worker: nothing on the ring before patch */
    g_assert_cmpuint(f.work, ==, 1);
    g_assert_cmpuint(f.nsub, ==, 0);
    g_assert_cmpuint(f.npatch, ==, 0);
    fake_work(&f);
    g_assert_cmpuint(f.npatch, ==, 1);
    g_assert_cmpuint(f.nsub, ==, 1);
    s = fake_last_sub(&f);
    g_assert_cmpuint(s->engine, ==, E0);
    g_assert_cmphex(s->dma_addr, ==, FAKE_DMA(0));
    g_assert_cmpuint(s->dma_len, ==, 64);
    g_assert_cmpuint(s->fence, ==, 1);
    g_assert_cmpuint(s->context, ==, 7);
    g_assert_cmphex(s->save_addr, ==, FAKE_SAVE(7));
    g_assert_cmphex(s->flags, ==, 0);

    /* the next one is prepared while the first runs, and queued behind */
    fake_submit(&f, a, 1);
    fake_work(&f);
    fake_submit(&f, a, 2);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);           /* two deep: 2 waits prepared */
    g_assert_cmpuint(f.sub[1].fence, ==, 2);
    g_assert_cmpuint(f.npatch, ==, 3);

    fake_advance(&f, 3 * MS);
    fake_complete(&f, E0, 1);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    g_assert_cmpint(fake_status(&f, 1), ==, 1);     /* not yet */
    ASSERT_SUBS(&f, 0, 0, 1, 2);
    g_assert_cmpuint(f.sub[2].fence, ==, 3);
    fake_complete(&f, E0, 3);           /* one interrupt for two */
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_cmpint(fake_status(&f, 2), ==, DDI_OK);
    g_assert_true(vidsch_idle(f.s));
    g_assert_cmpuint(vidsch_ctx_stats(a)->completed, ==, 3);
    g_assert_cmpuint(vidsch_ctx_stats(a)->gpu_ns, ==, 3 * MS);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->submitted, ==, 3);
    fake_fini(&f);
}

/* Fills engine 0 with a REALTIME blocker: b0 on the ring, b1 prepared and
 * waiting (depth 1 without preemption), so later submissions queue. */
static struct vidsch_ctx *block_engine(struct fake *f, unsigned c0)
{
    struct vidsch_ctx *b = fake_ctx(f, 99, E0, VIDSCH_PRIO_REALTIME);

    fake_submit(f, b, c0);
    fake_work(f);
    fake_submit(f, b, c0 + 1);
    fake_work(f);
    return b;
}

static void drain_in_order(struct fake *f, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        fake_work(f);
        fake_advance(f, MS);
        fake_complete(f, E0, fake_last_sub(f)->fence);
    }
    fake_work(f);
}

static void test_priority_order(void)
{
    struct fake f;
    struct vidsch_ctx *l, *n, *h;

    fake_init(&f, 1, COPRO_PREEMPT_NONE, VIDSCH_POLICY_PRIORITY);
    block_engine(&f, 10);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_IDLE);
    n = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    h = fake_ctx(&f, 3, E0, VIDSCH_PRIO_HIGH);
    fake_submit(&f, l, 0);
    fake_submit(&f, n, 1);
    fake_submit(&f, h, 2);
    fake_submit(&f, n, 3);
    fake_submit(&f, h, 4);
    drain_in_order(&f, 7);
    ASSERT_SUBS(&f, 0, 10, 11, 2, 4, 1, 3, 0);
    fake_fini(&f);
}

static void test_priority_round_robin(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;

    fake_init(&f, 1, COPRO_PREEMPT_NONE, VIDSCH_POLICY_PRIORITY);
    block_engine(&f, 10);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);
    fake_submit(&f, a, 1);
    fake_submit(&f, a, 2);
    fake_submit(&f, b, 3);
    fake_submit(&f, b, 4);
    drain_in_order(&f, 7);
    /* equal levels take turns buffer by buffer */
    ASSERT_SUBS(&f, 0, 10, 11, 0, 3, 1, 4, 2);
    fake_fini(&f);
}

static void test_fifo_order_never_preempts(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_FIFO);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_IDLE);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_REALTIME);
    fake_submit(&f, l, 0);
    fake_work(&f);
    fake_submit(&f, l, 1);
    fake_work(&f);
    fake_submit(&f, l, 2);
    fake_submit(&f, h, 3);
    fake_submit(&f, l, 4);
    fake_submit(&f, h, 5);
    fake_work(&f);
    /* a prepared REALTIME buffer behind IDLE ones: fifo waits its turn */
    g_assert_cmpuint(f.npreempt, ==, 0);
    drain_in_order(&f, 6);
    ASSERT_SUBS(&f, 0, 0, 1, 2, 3, 4, 5);
    g_assert_cmpuint(f.npreempt, ==, 0);
    fake_fini(&f);
}

/* ---- priority preemption ---- */

static void test_priority_preemption(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;
    unsigned mark;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    fake_submit(&f, l, 0);
    fake_work(&f);
    fake_submit(&f, l, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    fake_advance(&f, 500 * US);

    fake_submit(&f, h, 2);
    /* elected and being prepared: the GPU is not asked anything yet */
    g_assert_cmpuint(f.npreempt, ==, 0);
    fake_work(&f);
    /* prepared: now the lower entries on the ring must make way */
    g_assert_cmpuint(f.npreempt, ==, 1);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)
                     ->preempt_requests[VIDSCH_PREEMPT_PRIORITY], ==, 1);
    g_assert_cmpuint(f.nsub, ==, 2);    /* nothing goes on meanwhile */
    mark = f.nsub;
    fake_advance(&f, 100 * US);
    fake_preempted(&f, E0, 1, 0);       /* l0 interrupted, l1 dropped */
    fake_work(&f);
    /* h first; l0 waits in the slot (never behind a higher buffer) */
    ASSERT_SUBS(&f, mark, 2);
    g_assert_cmpuint(sub_of(&f, 2, 0)->fence, ==, 3);
    fake_complete(&f, E0, 3);
    fake_work(&f);
    /* then l0 resumes */
    g_assert_cmphex(sub_of(&f, 0, 1)->flags, ==, COPRO_SUBMIT_RESUME);
    g_assert_cmphex(sub_of(&f, 0, 1)->save_addr, ==, FAKE_SAVE(1));
    g_assert_cmpuint(sub_of(&f, 0, 1)->fence, ==, 4);   /* a new id */
    /* the dropped one as it was: no RESUME, new id, never patched again */
    g_assert_cmphex(sub_of(&f, 1, 1)->flags, ==, 0);
    g_assert_cmpuint(sub_of(&f, 1, 1)->fence, ==, 5);
    g_assert_cmpuint(f.npatch, ==, 3);
    fake_complete(&f, E0, 5);
    g_assert_true(vidsch_idle(f.s));
    g_assert_cmpuint(vidsch_ctx_stats(l)->preemptions, ==, 1);
    g_assert_cmpuint(vidsch_ctx_stats(l)->resumed, ==, 1);
    g_assert_cmpuint(vidsch_ctx_stats(l)->resubmitted, ==, 1);
    g_assert_cmpuint(vidsch_ctx_stats(l)->gpu_ns, ==, 600 * US);
    fake_fini(&f);
}

/* The buffer being prepared is never preempted: it is finished, then
 * handed back (prepared) when something more urgent is ready. */
static void test_prepared_not_preempted(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;
    unsigned unstaged0;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    fake_submit(&f, l, 0);
    fake_work(&f);
    fake_submit(&f, l, 1);
    fake_submit(&f, l, 2);
    fake_work_one(&f);
    fake_submit(&f, l, 3);
    /* ring [l0 l1], l2 elected and queued for the worker, l3 queued */
    g_assert_cmpuint(f.work, ==, 1);
    unstaged0 = fake_count_events(&f, VIDSCH_TRACE_UNSTAGE, 0);
    fake_submit(&f, h, 4);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_UNSTAGE, 0), ==,
                     unstaged0);
    fake_work_one(&f);      /* l2 prepared, handed back; h4 elected */
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_UNSTAGE, 0), ==,
                     unstaged0 + 1);
    g_assert_cmpuint(f.npatch, ==, 3);
    fake_work(&f);          /* h4 prepared: preempt */
    g_assert_cmpuint(f.npatch, ==, 4);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_preempted(&f, E0, 1, 0);
    drain_in_order(&f, 5);
    ASSERT_SUBS(&f, 2, 4, 0, 1, 2, 3);
    /* l2 was patched once, l3 once: nothing patched twice */
    g_assert_cmpuint(f.npatch, ==, 5);
    fake_fini(&f);
}

/*
 * The switch cost (issue 15, item 15). The first preemption measures the
 * context save (request to PREEMPTED: 2 ms here, a 16 MiB ctx-state);
 * the game's buffers then run 4 ms, shorter than twice the switch cost
 * (save + restore): a HIGH buffer waits for the running one to end
 * instead of preempting it (no GPU time spent on switching, and it
 * would have waited 2 ms for the save anyway), the game keeps one buffer
 * on the ring, and a buffer that outruns its estimate is preempted at
 * its expected end. The engine's occupied time never runs ahead of the
 * clock.
 */
static void test_switch_cost(void)
{
    struct fake f;
    struct vidsch_ctx *g, *c;
    uint64_t t0;
    unsigned n;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    g = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    c = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    /* g0 runs 1 ms, c1 preempts it: the save takes 2 ms */
    fake_submit(&f, g, 0);
    fake_work(&f);
    fake_advance(&f, MS);
    fake_submit(&f, c, 1);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_advance(&f, 2 * MS);
    fake_preempted(&f, E0, f.sub[0].fence, 0);
    fake_work(&f);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->switch_ns, ==, 2 * MS);
    /* c1 (1 ms), then g0's rest (1 ms, its total 5 ms with the save) */
    fake_advance(&f, MS);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));
    fake_work(&f);
    fake_advance(&f, MS);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));
    fake_work(&f);
    /* three more game buffers of 4 ms: the estimate settles near 4 ms */
    for (unsigned i = 2; i < 5; i++) {
        fake_submit(&f, g, i);
        fake_work(&f);
        fake_advance(&f, 4 * MS);
        fake_complete(&f, E0, fake_ring_oldest(&f, E0));
        fake_work(&f);
    }
    g_assert_true(vidsch_idle(f.s));
    /* g5 and g6 queued: one on the ring, one prepared (short buffers) */
    fake_submit(&f, g, 5);
    fake_submit(&f, g, 6);
    fake_work(&f);
    n = f.nsub;
    g_assert_cmpuint(fake_cookie_of(f.sub[n - 1].dma_addr), ==, 5);
    /* c7 1 ms into g5: deferred, not preempted */
    fake_advance(&f, MS);
    fake_submit(&f, c, 7);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->preempts_deferred, ==, 1);
    g_assert_cmpuint(f.nsub, ==, n);
    /* g5 ends: c7 goes next, then g6 */
    fake_advance(&f, 3 * MS);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));
    fake_work(&f);
    ASSERT_SUBS(&f, n, 7);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_advance(&f, MS);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));
    fake_work(&f);
    ASSERT_SUBS(&f, n, 7, 6);
    /* g6 outruns its estimate: c8, deferred at first, preempts it at the
     * expected end */
    fake_advance(&f, MS);
    fake_submit(&f, c, 8);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_advance(&f, 10 * MS);
    g_assert_cmpuint(f.npreempt, ==, 2);
    /* occupied time: never ahead of the clock */
    t0 = f.now;
    g_assert_cmpuint(vidsch_engine_busy_ns(f.s, E0), <=, t0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     0);
    fake_fini(&f);
}

/*
 * A paging buffer lost in a device reset (issue 15, item 16): it faulted
 * half run, so it cannot run again, and the DMA buffer waiting for it
 * (prepared in the render engine's slot) must not run on whatever its
 * allocations hold: it is reported DDI_ELOST and never submitted; its
 * context is not lost and its next buffer runs.
 */
static void test_lost_paging_fails_waiters(void)
{
    struct fake f;
    struct vidsch_ctx *l;

    fake_init_residency(&f, 2, COPRO_PREEMPT_MID_COMMAND,
                        VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    f.buf[30].engine = 1;
    f.resident_paging = &f.buf[30];
    f.resident_paging_cookie = 30;
    f.resident_ticket = 1;
    f.resident_wait = 1;
    fake_submit(&f, l, 0);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 30);             /* l0 waits for paging 30 */
    f.reset_rep[1] = (struct ddi_reset_report){ .aborted_fence = 1 };
    vidsch_upcalls.faulted(f.s, 1, &(struct ddi_fault){
        .kind = COPRO_FAULT_TRANSLATION, .fence = 1 });
    g_assert_cmpint(fake_status(&f, 30), ==, DDI_ELOST);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_ELOST);
    g_assert_false(vidsch_ctx_is_lost(l));
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 30);             /* l0 never ran */
    /* the context goes on */
    f.resident_wait = 0;
    fake_submit(&f, l, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 30, 1);
    fake_complete(&f, E0, fake_last_sub(&f)->fence);
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_true(vidsch_idle(f.s));
    fake_fini(&f);
}

/* A stop gives back an older buffer of the context whose newer buffer
 * is prepared in the slot: the older one runs first (one save area, one
 * stream per context), the prepared one follows, unpatched again. */
static void test_order_kept_after_stop(void)
{
    struct fake f;
    struct vidsch_ctx *c, *d, *h;
    unsigned mark;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_PRIORITY);
    c = fake_ctx(&f, 1, E0, VIDSCH_PRIO_ABOVE_NORMAL);
    d = fake_ctx(&f, 2, E0, VIDSCH_PRIO_ABOVE_NORMAL);
    h = fake_ctx(&f, 3, E0, VIDSCH_PRIO_HIGH);
    fake_submit(&f, c, 0);
    fake_work(&f);
    fake_submit(&f, d, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    fake_submit(&f, c, 2);
    fake_work(&f);
    /* c2 prepared, no preemption (same level) */
    g_assert_cmpuint(f.npreempt, ==, 0);
    /* h3: c2 is handed back, h3 preempts c0 and d1 */
    fake_submit(&f, h, 3);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    mark = f.nsub;
    fake_preempted(&f, E0, 1, 0);
    fake_work(&f);
    /* h3 (c0 waits in the slot: not behind a higher buffer), then c0
     * resumes before c2, which is not patched again */
    ASSERT_SUBS(&f, mark, 3);
    drain_in_order(&f, 4);
    ASSERT_SUBS(&f, mark, 3, 1, 0, 2);     /* d1 and c take turns */
    g_assert_cmphex(f.sub[mark + 2].flags, ==, COPRO_SUBMIT_RESUME);
    g_assert_cmphex(f.sub[mark + 3].flags, ==, 0);
    g_assert_cmpuint(f.npatch, ==, 4);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     0);
    fake_fini(&f);
}

/*
 * Never preempt a context to run the same context (issue 15, item 14).
 * In the desktop the game's buffer g0 ran with the hog's h1 queued behind
 * it and the game's g2 prepared: g2 outranked h1, the preemption stopped
 * g0, g2 was handed back (g0 is older) and g0 resumed: wasted. Now a
 * lower buffer never waits on the ring behind a higher one (it stays in
 * the slot and is handed back), and a preemption whose victim would be
 * the head of x's own context is not requested.
 */
static void test_no_self_preemption(void)
{
    struct fake f;
    struct vidsch_ctx *g, *hog, *p;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    g = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    hog = fake_ctx(&f, 2, E0, VIDSCH_PRIO_IDLE);
    fake_submit(&f, g, 0);
    fake_work(&f);
    fake_submit(&f, hog, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0);              /* h1 waits in the slot */
    fake_submit(&f, g, 2);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 2);           /* h1 handed back, g2 queued */
    drain_in_order(&f, 3);
    ASSERT_SUBS(&f, 0, 0, 2, 1);
    g_assert_cmpuint(f.npreempt, ==, 0);
    fake_fini(&f);

    /* quantum, one level: g0 runs, p1 (a peer, no credit yet) is queued
     * behind it, g2 (g's turn goes on) prepared: g2 "displaces" p1 for
     * the quantum, but the preemption would stop g0 only for g0 to run
     * again. No request while g0 is the head. */
    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    g = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    p = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, g, 0);
    fake_work(&f);
    fake_submit(&f, p, 1);
    fake_work(&f);
    fake_submit(&f, g, 2);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    g_assert_cmpuint(f.npreempt, ==, 0);
    drain_in_order(&f, 3);
    g_assert_cmpuint(f.npreempt, ==, 0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     0);
    fake_fini(&f);

    /* a preemption after which the interrupted context runs next (the
     * watchdog's, with nothing else to run): counted as wasted */
    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    g = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    hog = fake_ctx(&f, 2, E0, VIDSCH_PRIO_IDLE);
    fake_submit(&f, hog, 0);
    fake_work(&f);
    fake_advance(&f, 2001 * MS);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_preempted(&f, E0, f.sub[0].fence, 0);
    fake_work(&f);
    g_assert_cmphex(fake_last_sub(&f)->flags, ==, COPRO_SUBMIT_RESUME);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     1);
    g_assert_cmpuint(vidsch_ctx_stats(hog)->wasted_preemptions, ==, 1);
    g_assert_cmpuint(vidsch_ctx_stats(g)->wasted_preemptions, ==, 0);
    fake_fini(&f);
}

/* dma-buffer granularity: the request stops between buffers. */
static void test_dma_buffer_granularity(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;
    unsigned mark;

    fake_init(&f, 1, COPRO_PREEMPT_DMA_BUFFER, VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_BELOW_NORMAL);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_ABOVE_NORMAL);
    fake_submit(&f, l, 0);
    fake_work(&f);
    fake_submit(&f, l, 1);
    fake_work(&f);
    fake_submit(&f, h, 2);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    mark = f.nsub;
    fake_preempted(&f, E0, 0, 1);       /* l0 completed, l1 dropped */
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 2);           /* l1 waits for h2 in the slot */
    fake_complete(&f, E0, fake_last_sub(&f)->fence);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 2, 1);
    g_assert_cmphex(sub_of(&f, 1, 1)->flags, ==, 0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->preempted_mid_buffer, ==,
                     0);
    fake_fini(&f);
}

/* Without preemption the ring stays one deep, so priority wins at the
 * next buffer boundary; the scheduler never asks for a preemption. */
static void test_shallow_ring_without_preemption(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;

    fake_init(&f, 1, COPRO_PREEMPT_NONE, VIDSCH_POLICY_QUANTUM);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_IDLE);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    for (unsigned i = 0; i < 4; i++) {
        fake_submit(&f, l, i);
        fake_work(&f);
    }
    ASSERT_SUBS(&f, 0, 0);              /* one on the ring, one prepared */
    fake_submit(&f, h, 10);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 0);
    ASSERT_SUBS(&f, 0, 0);
    fake_advance(&f, 5 * MS);
    fake_complete(&f, E0, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 10);          /* h at the first boundary */
    drain_in_order(&f, 4);
    ASSERT_SUBS(&f, 0, 0, 10, 1, 2, 3);
    g_assert_cmpuint(f.npreempt, ==, 0);
    fake_fini(&f);
}

/* ---- quantum ---- */

static void test_quantum_round_robin(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;
    unsigned mark;
    uint64_t t0;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    for (unsigned i = 0; i < 3; i++) {
        fake_submit(&f, a, i);
    }
    for (unsigned i = 10; i < 13; i++) {
        fake_submit(&f, b, i);
    }
    fake_work(&f);
    fake_work(&f);
    fake_work(&f);
    /* a's turn: a0 a1 on the ring, a2 prepared */
    ASSERT_SUBS(&f, 0, 0, 1);
    t0 = f.now;
    /* b waits, so a's turn ends after a quantum: a timer for it */
    g_assert_cmpuint(f.timer, ==, t0 + f.cfg.quantum_ns);
    fake_advance(&f, f.cfg.quantum_ns - 1);
    g_assert_cmpuint(f.npreempt, ==, 0);
    fake_advance(&f, 1);
    /* a2 handed back, b0 elected; prepared, it preempts a */
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)
                     ->preempt_requests[VIDSCH_PREEMPT_QUANTUM], ==, 1);
    mark = f.nsub;
    fake_advance(&f, 50 * US);
    fake_preempted(&f, E0, 1, 0);
    fake_work(&f);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 10, 11);      /* b's turn */
    /* a waits now: b's turn is timed from b0's start */
    g_assert_cmpuint(f.timer, ==, f.now + f.cfg.quantum_ns);
    fake_advance(&f, f.cfg.quantum_ns);
    fake_work(&f);
    mark = f.nsub;
    fake_preempted(&f, E0, 3, 0);       /* b0 interrupted */
    fake_work(&f);
    fake_work(&f);
    /* a resumes its a0 where it stopped, then a1 */
    ASSERT_SUBS(&f, mark, 0, 1);
    g_assert_cmphex(f.sub[mark].flags, ==, COPRO_SUBMIT_RESUME);
    g_assert_cmphex(f.sub[mark].save_addr, ==, FAKE_SAVE(1));
    g_assert_cmphex(f.sub[mark + 1].flags, ==, 0);
    /* each had a quantum (and a's 50 us over, paid back next turn) */
    g_assert_cmpuint(vidsch_ctx_stats(a)->gpu_ns, ==,
                     f.cfg.quantum_ns + 50 * US);
    g_assert_cmpuint(vidsch_ctx_stats(b)->gpu_ns, ==, f.cfg.quantum_ns);
    fake_fini(&f);
}

/* Alone at its level a context keeps the engine: no quantum preemption. */
static void test_quantum_alone_keeps_running(void)
{
    struct fake f;
    struct vidsch_ctx *a;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    for (unsigned i = 0; i < 20; i++) {
        fake_submit(&f, a, i);
        fake_work(&f);
    }
    for (unsigned i = 0; i < 20; i++) {
        fake_advance(&f, 3 * MS);
        fake_complete(&f, E0, f.sub[i].fence);
        fake_work(&f);
    }
    g_assert_cmpuint(f.npreempt, ==, 0);
    g_assert_true(vidsch_idle(f.s));
    fake_fini(&f);
}

/* An IDLE context under a saturating NORMAL one: boosted after aging_ns
 * under quantum, starved for ever under priority. */
/* The GPU of the starvation runs: answers a preemption, or retires its
 * oldest entry, every millisecond. */
static void gpu_ms(struct fake *f, unsigned *answered)
{
    fake_advance(f, MS);
    if (f->npreempt > *answered) {
        fake_preempted(f, E0, fake_ring_oldest(f, E0),
                       fake_ring_completed(f, E0));
        *answered = f->npreempt;
    } else {
        fake_complete(f, E0, fake_ring_oldest(f, E0));
    }
}

/*
 * An IDLE context (cookie 40) under a saturating NORMAL one; with
 * high_from_ms, a HIGH context also has work from then on for a few ms.
 * Returns when the IDLE buffer reached the ring (0: never within 50 ms),
 * its boosts, the levels of its first and last boosts, and the ring write
 * index of the IDLE buffer and of the first HIGH buffer.
 */
struct starve {
    unsigned boosts, boost_level, last_boost_level, idle_at, first_high_at;
};

static uint64_t run_starvation(enum vidsch_policy policy, unsigned high_from,
                               struct starve *out)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *n, *idle, *high;
    uint64_t t0, started = 0;
    unsigned next = 0, answered = 0;

    vidsch_config_default(&cfg);
    cfg.policy = policy;
    cfg.max_contexts = 4;
    cfg.max_buffers = 64;
    cfg.aging_ns = 10 * MS;
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    n = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    idle = fake_ctx(&f, 2, E0, VIDSCH_PRIO_IDLE);
    high = fake_ctx(&f, 3, E0, VIDSCH_PRIO_HIGH);
    *out = (struct starve){ 0 };
    for (; next < 4; next++) {
        fake_submit(&f, n, next % 32);
        fake_work(&f);
    }
    t0 = f.now;
    fake_submit(&f, idle, 40);
    fake_work(&f);
    for (unsigned ms = 0; ms < 50 && !started; ms++) {
        unsigned from = f.nsub;

        gpu_ms(&f, &answered);
        /* n keeps its queue full; high brings 3 buffers at high_from */
        fake_submit(&f, n, next++ % 32);
        if (high_from && ms + 1 == high_from) {
            for (unsigned k = 50; k < 53; k++) {
                fake_submit(&f, high, k);
            }
        }
        fake_work(&f);
        fake_work(&f);
        for (unsigned i = from; i < f.nsub; i++) {
            unsigned cookie = fake_cookie_of(f.sub[i].dma_addr);

            if (cookie == 40) {
                started = f.now - t0;
                out->idle_at = i;
            }
            if (cookie >= 50 && cookie < 53 && !out->first_high_at) {
                out->first_high_at = i;
            }
        }
    }
    out->boosts = vidsch_ctx_stats(idle)->boosts;
    for (unsigned i = f.nev; i-- > 0;) {
        if (f.ev[i].kind == VIDSCH_TRACE_BOOST && f.ev[i].context == 2) {
            if (!out->last_boost_level) {
                out->last_boost_level = f.ev[i].level;
            }
            out->boost_level = f.ev[i].level;    /* the first, at the end */
        }
    }
    fake_fini(&f);
    return started;
}

static void test_aging(void)
{
    struct starve st;
    uint64_t t = run_starvation(VIDSCH_POLICY_QUANTUM, 0, &st);

    /* after aging_ns, boosted to the level on top (the saturating
     * NORMAL), no higher; it runs once the running context's turn ends */
    g_assert_cmpuint(st.boosts, ==, 1);
    g_assert_cmpuint(st.boost_level, ==, VIDSCH_PRIO_NORMAL);
    g_assert_cmpuint(t, >=, 10 * MS);
    g_assert_cmpuint(t, <=, 10 * MS + 2 * MS + 1 * MS);
    /* the priority policy has no aging: it starves */
    g_assert_cmpuint(run_starvation(VIDSCH_POLICY_PRIORITY, 0, &st), ==, 0);
    g_assert_cmpuint(st.boosts, ==, 0);
}

/* HIGH work ready when the IDLE context has aged: it is boosted to HIGH,
 * not above, and takes its turn after the HIGH context's (round robin at
 * that level). HIGH work coming just after the boost to NORMAL: it
 * follows up to HIGH, behind that work too. */
static void test_aging_never_outranks(void)
{
    struct starve st;

    g_assert_cmpuint(run_starvation(VIDSCH_POLICY_QUANTUM, 9, &st), >, 0);
    g_assert_cmpuint(st.boost_level, ==, VIDSCH_PRIO_HIGH);
    g_assert_cmpuint(st.first_high_at, >, 0);
    g_assert_cmpuint(st.idle_at, >, st.first_high_at);

    g_assert_cmpuint(run_starvation(VIDSCH_POLICY_QUANTUM, 10, &st), >, 0);
    g_assert_cmpuint(st.boost_level, ==, VIDSCH_PRIO_NORMAL);
    g_assert_cmpuint(st.last_boost_level, ==, VIDSCH_PRIO_HIGH);
    g_assert_cmpuint(st.idle_at, >, st.first_high_at);
}

/*
 * Priority inheritance through a sync object: a HIGH context waits for
 * a value an IDLE context signals after its buffer, under a saturating
 * NORMAL one. The IDLE producer runs at HIGH (lent) at once, not after
 * aging_ns; once the HIGH context is released the level goes back.
 * Without it the HIGH frame waited for aging (10 ms here).
 */
static void test_inherit_through_sync(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *n, *idle, *high;
    uint64_t sync = 0, t0, idle_at = 0, high_at = 0;
    unsigned next = 0, answered = 0;

    vidsch_config_default(&cfg);
    cfg.max_contexts = 4;
    cfg.max_buffers = 64;
    cfg.aging_ns = 10 * MS;
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    n = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    idle = fake_ctx(&f, 2, E0, VIDSCH_PRIO_IDLE);
    high = fake_ctx(&f, 3, E0, VIDSCH_PRIO_HIGH);
    for (; next < 4; next++) {
        fake_submit(&f, n, next % 32);
        fake_work(&f);
    }
    t0 = f.now;
    fake_submit(&f, idle, 40);
    g_assert_cmpint(vidsch_signal(f.s, idle, &sync, 1), ==, DDI_OK);
    g_assert_cmpint(vidsch_wait(f.s, high, &sync, 1), ==, DDI_OK);
    fake_submit(&f, high, 50);
    fake_work(&f);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 1);
    g_assert_cmpuint(vidsch_ctx_stats(idle)->inherits, ==, 1);
    for (unsigned ms = 0; ms < 50 && !high_at; ms++) {
        unsigned from = f.nsub;

        gpu_ms(&f, &answered);
        fake_submit(&f, n, next++ % 32);
        fake_work(&f);
        fake_work(&f);
        for (unsigned i = from; i < f.nsub; i++) {
            unsigned cookie = fake_cookie_of(f.sub[i].dma_addr);

            idle_at = cookie == 40 && !idle_at ? f.now - t0 : idle_at;
            high_at = cookie == 50 && !high_at ? f.now - t0 : high_at;
        }
    }
    /* the producer ran at HIGH at once (preempting the NORMAL one), well
     * before aging, and the HIGH frame right after its signal */
    g_assert_cmpuint(idle_at, >, 0);
    g_assert_cmpuint(idle_at, <=, 2 * MS);
    g_assert_cmpuint(high_at, <=, 4 * MS);
    g_assert_cmpuint(vidsch_ctx_stats(idle)->boosts, ==, 0);
    /* lent, then given back */
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 2);
    for (unsigned i = f.nev; i-- > 0;) {
        if (f.ev[i].kind == VIDSCH_TRACE_INHERIT) {
            g_assert_cmpuint(f.ev[i].reason, ==, 0);
            g_assert_cmpuint(f.ev[i].level, ==, VIDSCH_PRIO_IDLE);
            break;
        }
    }
    fake_fini(&f);
}

/*
 * A context is not preempted for a level it lent (issue 15, item 14,
 * through priority inheritance; sim seeds 3560, 5250-5499, 7750-7999).
 * d (BELOW_NORMAL) runs d0 with d1 behind it on the ring, then waits for
 * p's signal before d2: held, it lends its level to p (IDLE), whose p10
 * is prepared. d's turn ends and p10 is its peer at the lent level, but
 * a quantum preemption would hand d0 and d1 back: d, no longer held,
 * takes its level back, p10 is handed back and d0 resumes at once (two
 * context-state transfers for nothing). Now d's buffers in front of its
 * wait finish, p10 runs at the lent level, then d2.
 */
static void test_inherit_no_wasted_preemption(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *d, *p;
    uint64_t sync = 0;
    unsigned mark;

    vidsch_config_default(&cfg);
    cfg.max_contexts = 4;
    cfg.max_buffers = 64;
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    d = fake_ctx(&f, 1, E0, VIDSCH_PRIO_BELOW_NORMAL);
    p = fake_ctx(&f, 2, E0, VIDSCH_PRIO_IDLE);
    fake_submit(&f, d, 0);
    fake_submit(&f, d, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    fake_submit(&f, p, 10);
    g_assert_cmpint(vidsch_signal(f.s, p, &sync, 1), ==, DDI_OK);
    g_assert_cmpint(vidsch_wait(f.s, d, &sync, 1), ==, DDI_OK);
    fake_submit(&f, d, 2);
    fake_work(&f);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 1);
    /* d's turn runs out while d0 runs */
    fake_advance(&f, 3 * cfg.quantum_ns);
    fake_work(&f);
    fake_advance(&f, MS);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 0);
    mark = f.nsub;
    /* d0, then d1 complete: p10 next, then d2 once p10 signalled */
    fake_complete(&f, E0, f.sub[0].fence);
    fake_work(&f);
    fake_complete(&f, E0, f.sub[1].fence);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 10);
    fake_complete(&f, E0, fake_last_sub(&f)->fence);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 10, 2);
    g_assert_cmpuint(sync, ==, 1);
    g_assert_cmpuint(f.npreempt, ==, 0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     0);
    /* lent, then given back */
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 2);
    fake_fini(&f);
}

/*
 * At dma-buffer granularity the ring's head is never cut, so a buffer of
 * the head's own context may preempt what waits behind the head (sim
 * seed 17546). p0 (BELOW_NORMAL) runs with l1, a peer, behind it; then
 * h (HIGH) waits for p's signal after p2 and lends p its level. p2
 * outranks l1, but the no-self-preemption rule (meant for a cut head)
 * kept l1 on the ring: l1 ran while the HIGH context waited. Now the
 * request lets p0 end and drops l1: p2, then h3, then l1.
 */
static void test_dma_buffer_own_head(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *p, *l, *h;
    uint64_t sync = 0;
    unsigned mark;

    vidsch_config_default(&cfg);
    cfg.policy = VIDSCH_POLICY_PRIORITY;
    fake_init_cfg(&f, 1, COPRO_PREEMPT_DMA_BUFFER, &cfg);
    p = fake_ctx(&f, 1, E0, VIDSCH_PRIO_BELOW_NORMAL);
    l = fake_ctx(&f, 2, E0, VIDSCH_PRIO_BELOW_NORMAL);
    h = fake_ctx(&f, 3, E0, VIDSCH_PRIO_HIGH);
    fake_submit(&f, p, 0);
    fake_work(&f);
    fake_submit(&f, l, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    fake_submit(&f, p, 2);
    g_assert_cmpint(vidsch_signal(f.s, p, &sync, 1), ==, DDI_OK);
    g_assert_cmpint(vidsch_wait(f.s, h, &sync, 1), ==, DDI_OK);
    fake_submit(&f, h, 3);
    fake_work(&f);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 1);
    g_assert_cmpuint(f.npreempt, ==, 1);
    mark = f.nsub;
    fake_preempted(&f, E0, 0, f.sub[0].fence);  /* p0 done, l1 dropped */
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 2);
    fake_complete(&f, E0, fake_last_sub(&f)->fence);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 2, 3);
    fake_complete(&f, E0, fake_last_sub(&f)->fence);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 2, 3, 1);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     0);
    fake_fini(&f);
}

/*
 * Never cut a head whose context would run next (sim seed 103733). r0
 * (HIGH) runs with l10 behind it, queued while l ran at the HIGH level w
 * lent it (w waits for l's signal); w goes away, l is back at IDLE, and
 * m30 (NORMAL) outranks l10 but not r0. A preemption would stop r0, hand
 * m30 back (r is the higher level) and resume r0 at once: wasted. The
 * request waits for r0 to end: l10 is the head then, and is the one cut.
 */
static void test_no_cut_of_higher_head(void)
{
    struct fake f;
    struct vidsch_ctx *r, *l, *w, *m;
    uint64_t sync = 0;
    unsigned mark;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_PRIORITY);
    r = fake_ctx(&f, 1, E0, VIDSCH_PRIO_HIGH);
    l = fake_ctx(&f, 2, E0, VIDSCH_PRIO_IDLE);
    w = fake_ctx(&f, 3, E0, VIDSCH_PRIO_HIGH);
    m = fake_ctx(&f, 4, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, r, 0);
    fake_work(&f);
    fake_submit(&f, l, 10);
    g_assert_cmpint(vidsch_signal(f.s, l, &sync, 1), ==, DDI_OK);
    g_assert_cmpint(vidsch_wait(f.s, w, &sync, 1), ==, DDI_OK);
    fake_submit(&f, w, 20);
    fake_work(&f);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 1);
    ASSERT_SUBS(&f, 0, 0, 10);          /* l10 queued at the lent level */
    vidsch_ctx_destroy(f.s, w);         /* the lender goes away */
    fake_work(&f);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 2);
    fake_submit(&f, m, 30);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 0);    /* r0 is not cut */
    mark = f.nsub;
    fake_complete(&f, E0, f.sub[0].fence);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);    /* l10, now the head, is */
    fake_preempted(&f, E0, f.sub[1].fence, 0);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 30);
    fake_complete(&f, E0, fake_last_sub(&f)->fence);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 30, 10);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     0);
    fake_fini(&f);
}

/*
 * A level lent down a chain of loans counts against its first lender
 * (sim seed 86855): a (HIGH) runs a0 and a1, then waits for b's signal;
 * b waits for c's, and passes a's level on to c. c20, prepared, is at
 * a's level through b; when a's turn is over, a preemption for the
 * quantum would hand a0 and a1 back, a would be held no more, b and c
 * would lose the level and a would run next: wasted. No request: a's
 * buffers in front of its wait finish, then c20 runs.
 */
static void test_inherit_chain_no_wasted_preemption(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *a, *b, *c;
    uint64_t s1 = 0, s2 = 0;
    unsigned mark;

    vidsch_config_default(&cfg);
    cfg.policy = VIDSCH_POLICY_QUANTUM;
    cfg.max_contexts = 4;
    cfg.max_buffers = 64;
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_HIGH);
    b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    c = fake_ctx(&f, 3, E0, VIDSCH_PRIO_IDLE);
    fake_submit(&f, a, 0);
    fake_submit(&f, a, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    fake_submit(&f, c, 20);
    g_assert_cmpint(vidsch_signal(f.s, c, &s2, 1), ==, DDI_OK);
    g_assert_cmpint(vidsch_wait(f.s, a, &s1, 1), ==, DDI_OK);
    fake_submit(&f, a, 2);
    g_assert_cmpint(vidsch_wait(f.s, b, &s2, 1), ==, DDI_OK);
    fake_submit(&f, b, 10);
    g_assert_cmpint(vidsch_signal(f.s, b, &s1, 1), ==, DDI_OK);
    fake_work(&f);
    /* b lent a's level, c b's, then a's through b */
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_INHERIT, 0), ==, 3);
    ASSERT_SUBS(&f, 0, 0, 1);           /* c20 prepared in the slot */
    fake_advance(&f, 3 * cfg.quantum_ns);
    fake_work(&f);
    fake_advance(&f, MS);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 0);
    mark = f.nsub;
    fake_complete(&f, E0, f.sub[0].fence);
    fake_work(&f);
    fake_complete(&f, E0, f.sub[1].fence);
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 20);
    g_assert_cmpuint(f.npreempt, ==, 0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->wasted_preemptions, ==,
                     0);
    fake_fini(&f);
}

/*
 * A slot refused residency for now (DDI_EBUSY) with nothing of vidsch's
 * on the GPU: only memory freed outside vidsch's sight (an allocation
 * destroyed at a process's exit, an unlock) can let it go on, and
 * vidsch_memory_changed() says so. Without it the engine stalled for
 * good (lifetimes lives=2000 percent=200: the memapp's buffer waited in
 * the slot, every life queued behind it).
 */
static void test_resident_wait_memory_changed(void)
{
    struct fake f;
    struct vidsch_ctx *l;

    fake_init_residency(&f, 2, COPRO_PREEMPT_MID_COMMAND,
                        VIDSCH_POLICY_QUANTUM);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    f.resident_rc = DDI_EBUSY;
    fake_submit(&f, l, 0);
    fake_work(&f);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 1);
    fake_advance(&f, 100 * MS);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 1);   /* nothing to retry on */
    g_assert_cmpuint(f.nsub, ==, 0);
    f.resident_rc = DDI_OK;
    vidsch_memory_changed(f.s);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 2);
    ASSERT_SUBS(&f, 0, 0);
    fake_fini(&f);
}

/*
 * Residency in steps: vidmm answers DDI_EBUSY with a paging buffer (the
 * list needs more aperture than one paging buffer maps). The paging
 * buffer goes on the copy engine at once and the slot is asked again
 * once it retired. It was dropped before: its ticket never retired and
 * the slot waited for ever (fighting on a 64 MiB device).
 */
static void test_resident_step(void)
{
    struct fake f;
    struct vidsch_ctx *l;

    fake_init_residency(&f, 2, COPRO_PREEMPT_MID_COMMAND,
                        VIDSCH_POLICY_QUANTUM);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    f.buf[30].engine = 1;
    f.resident_paging = &f.buf[30];
    f.resident_paging_cookie = 30;
    f.resident_ticket = 1;
    f.resident_rc = DDI_EBUSY;
    f.resident_step = true;
    fake_submit(&f, l, 0);
    fake_work(&f);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 1);
    ASSERT_SUBS(&f, 0, 30);                 /* the step, not l0 */
    g_assert_cmphex(f.sub[0].flags, ==, COPRO_SUBMIT_PAGING);
    g_assert_cmpuint(f.sub[0].engine, ==, 1);
    f.resident_rc = DDI_OK;
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 1);   /* not before it retired */
    fake_complete(&f, 1, 1);
    g_assert_cmpint(fake_status(&f, 30), ==, DDI_OK);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 2);
    ASSERT_SUBS(&f, 0, 30, 0);
    fake_complete(&f, E0, 1);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    g_assert_true(vidsch_idle(f.s));
    fake_fini(&f);
}

/* ---- paging buffers ---- */

static void test_paging_first_and_fence_kept(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;
    const struct ddi_submit_args *p;
    unsigned mark;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    fake_submit(&f, l, 0);
    fake_work(&f);
    fake_submit(&f, l, 1);
    fake_work(&f);
    fake_submit(&f, l, 2);
    fake_work(&f);                      /* l2 prepared, ring full */
    f.buf[20].engine = E0;
    g_assert_cmpint(vidsch_submit_paging(f.s, E0, &f.buf[20], 20), ==,
                    DDI_OK);
    /* straight onto the ring, ahead of the prepared l2 */
    ASSERT_SUBS(&f, 0, 0, 1, 20);
    p = fake_last_sub(&f);
    g_assert_cmphex(p->flags, ==, COPRO_SUBMIT_PAGING);
    g_assert_cmpuint(p->context, ==, 0);
    g_assert_cmpuint(p->save_addr, ==, 0);
    g_assert_cmpuint(p->fence, ==, 3);
    g_assert_cmpuint(f.npatch, ==, 3);  /* paging buffers are final */

    fake_submit(&f, h, 5);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    mark = f.nsub;
    fake_preempted(&f, E0, 1, 0);       /* l0 cut, l1 and paging dropped */
    fake_work(&f);
    /* the paging buffer first, with its own fence id; then h; l0 waits
     * in the slot (never behind a higher buffer) */
    ASSERT_SUBS(&f, mark, 20, 5);
    g_assert_cmpuint(f.sub[mark].fence, ==, 3);
    g_assert_cmphex(f.sub[mark].flags, ==, COPRO_SUBMIT_PAGING);
    g_assert_cmpuint(f.sub[mark + 1].fence, ==, 4);
    fake_complete(&f, E0, 3);
    g_assert_cmpint(fake_status(&f, 20), ==, DDI_OK);
    fake_complete(&f, E0, 4);
    fake_work(&f);
    /* then l0 resumes */
    ASSERT_SUBS(&f, mark, 20, 5, 0, 1);
    g_assert_cmphex(f.sub[mark + 2].flags, ==, COPRO_SUBMIT_RESUME);
    fake_fini(&f);
}

/* vidmm's residency hook: the paging buffer goes first on the copy
 * engine and the DMA buffer waits for it; "not now" waits for memory to
 * come free; residency is given back on retire and on hand-back, and a
 * handed-back buffer is made resident again (patched) without a second
 * patch; a refusal finishes the buffer with the error. */
static void test_residency_hook(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;
    unsigned npatch;

    fake_init_residency(&f, 2, COPRO_PREEMPT_MID_COMMAND,
                        VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    f.buf[30].engine = 1;
    f.resident_paging = &f.buf[30];
    f.resident_paging_cookie = 30;
    f.resident_ticket = 1;
    f.resident_wait = 1;
    fake_submit(&f, l, 0);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 1);
    g_assert_false(f.resident[0].patched);
    /* the paging buffer is on the copy engine, l0 held */
    ASSERT_SUBS(&f, 0, 30);
    g_assert_cmphex(f.sub[0].flags, ==, COPRO_SUBMIT_PAGING);
    g_assert_cmpuint(f.sub[0].engine, ==, 1);
    fake_complete(&f, 1, 1);
    g_assert_cmpint(fake_status(&f, 30), ==, DDI_OK);
    ASSERT_SUBS(&f, 0, 30, 0);
    g_assert_cmpuint(f.sub[1].engine, ==, E0);
    g_assert_cmpuint(f.npatch, ==, 1);

    /* not now: asked again only once memory may have come free */
    f.resident_wait = 0;
    f.resident_rc = DDI_EBUSY;
    fake_submit(&f, l, 1);
    fake_work(&f);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 2);
    f.resident_rc = DDI_OK;
    fake_complete(&f, E0, 1);               /* l0 retires: released */
    g_assert_cmpuint(f.nreleased, ==, 1);
    g_assert_cmpuint(f.released[0].cookie, ==, 0);
    g_assert_cmpuint(f.released[0].fence, ==, 1);
    fake_work(&f);
    g_assert_cmpuint(f.nresident, ==, 3);
    ASSERT_SUBS(&f, 0, 30, 0, 1);

    /* handed back by a preemption: released unfinished, then made
     * resident again as patched, and not patched twice */
    npatch = f.npatch;
    fake_submit(&f, h, 2);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_preempted(&f, E0, 2, 1);           /* l1 cut */
    g_assert_cmpuint(f.released[f.nreleased - 1].cookie, ==, 1);
    g_assert_cmpuint(f.released[f.nreleased - 1].fence, ==, 0);
    fake_work(&f);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));   /* h2 */
    fake_work(&f);
    g_assert_cmpuint(f.resident[f.nresident - 1].cookie, ==, 1);
    g_assert_true(f.resident[f.nresident - 1].patched);
    g_assert_cmpuint(f.npatch, ==, npatch + 1);        /* h2 only */
    g_assert_cmphex(fake_last_sub(&f)->flags, ==, COPRO_SUBMIT_RESUME);

    /* refused: the buffer never runs, it is reported with the error */
    f.resident_rc = DDI_ENOMEM;
    fake_submit(&f, l, 3);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));   /* l1 */
    fake_work(&f);
    g_assert_cmpint(fake_status(&f, 3), ==, DDI_ENOMEM);
    g_assert_true(vidsch_idle(f.s));
    g_assert_cmpuint(f.nreleased, ==, 4);   /* l0, l1 cut, h2, l1 retired */
    fake_fini(&f);
}

/* ---- splitting ---- */

static unsigned done_count(struct fake *f, uint64_t cookie)
{
    unsigned n = 0;

    for (unsigned i = 0; i < f->ndone; i++) {
        n += f->done[i].cookie == cookie;
    }
    return n;
}

/* Index of the patch call for cookie from byte first, or -1. */
static int patch_of(struct fake *f, uint64_t cookie, uint32_t first)
{
    for (unsigned i = 0; i < f->npatch; i++) {
        if (f->patched[i].cookie == cookie && f->patched[i].first == first) {
            return (int)i;
        }
    }
    return -1;
}

/* Index of the ring write of cookie at dma offset off, or -1. */
static int sub_at(struct fake *f, unsigned cookie, uint32_t off)
{
    for (unsigned i = 0; i < f->nsub; i++) {
        if (f->sub[i].dma_addr == FAKE_DMA(cookie) + off) {
            return (int)i;
        }
    }
    return -1;
}

/*
 * A buffer whose list does not fit at once (the hook says
 * VIDSCH_RESIDENT_SPLIT) runs as portions cut where make_portion says:
 * each made resident on its own, patched only in its range, submitted
 * as its own ring entry (address and length of the range), released
 * with its fence; the buffer is reported done once, after the last. The
 * context's next buffer waits for the last portion; other contexts run
 * between portions. A portion preempted comes back at the same range,
 * made resident as patched, not patched again, resumed. A portion that
 * cannot fit fails its buffer with DDI_ENOMEM, and only that buffer.
 */
static void test_split(void)
{
    struct fake f;
    struct vidsch_ctx *l, *o, *h;
    int s0, s1, s2, s3, sl1;
    unsigned npatch, nport;

    fake_init_residency(&f, 1, COPRO_PREEMPT_MID_COMMAND,
                        VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    o = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    h = fake_ctx(&f, 3, E0, VIDSCH_PRIO_HIGH);
    f.buf[0].len_bytes = f.buf[0].cap_bytes = 0x300;
    f.cut[0] = 0x100;
    f.cut[1] = 0x200;
    f.ncut = 2;
    f.resident_rc = VIDSCH_RESIDENT_SPLIT;
    fake_submit(&f, l, 0);
    fake_work(&f);
    f.resident_rc = DDI_OK;
    g_assert_cmpuint(f.nportion, ==, 1);
    g_assert_cmpuint(f.portion[0].first, ==, 0);
    g_assert_false(f.portion[0].patched);
    s0 = sub_at(&f, 0, 0);
    g_assert_cmpint(s0, ==, 0);
    g_assert_cmpuint(f.sub[s0].dma_len, ==, 0x100);
    g_assert_cmpuint(f.npatch, ==, 1);
    g_assert_cmpuint(f.patched[0].first, ==, 0);
    g_assert_cmpuint(f.patched[0].end, ==, 0x100);

    /* l's next buffer waits; o's runs between the portions */
    fake_submit(&f, l, 1);
    fake_submit(&f, o, 2);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 2);
    fake_complete(&f, E0, f.sub[s0].fence);         /* portion 1 */
    g_assert_cmpuint(done_count(&f, 0), ==, 0);
    g_assert_cmpuint(f.nportion_released, ==, 1);
    g_assert_cmpuint(f.portion_released[0].first, ==, 0);
    g_assert_cmpuint(f.portion_released[0].fence, ==, f.sub[s0].fence);
    fake_work(&f);
    s1 = sub_at(&f, 0, 0x100);
    g_assert_cmpint(s1, >, 0);
    g_assert_cmpuint(f.sub[s1].dma_len, ==, 0x100);
    g_assert_cmphex(f.sub[s1].flags, ==, 0);
    g_assert_cmpint(sub_at(&f, 1, 0), <, 0);
    g_assert_cmpuint(f.patched[f.npatch - 1].cookie, ==, 0);
    g_assert_cmpuint(f.patched[f.npatch - 1].first, ==, 0x100);
    g_assert_cmpuint(f.patched[f.npatch - 1].end, ==, 0x200);

    /* HIGH work preempts portion 2: it comes back at the same range */
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));     /* o2 */
    g_assert_cmpint(fake_status(&f, 2), ==, DDI_OK);
    npatch = f.npatch;
    nport = f.nportion;
    fake_submit(&f, h, 3);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_preempted(&f, E0, f.sub[s1].fence, fake_ring_completed(&f, E0));
    g_assert_cmpuint(f.portion_released[f.nportion_released - 1].first, ==,
                     0x100);
    g_assert_cmpuint(f.portion_released[f.nportion_released - 1].fence, ==,
                     0);
    fake_work(&f);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));     /* h3 */
    fake_work(&f);
    g_assert_cmpuint(f.nportion, ==, nport + 1);
    g_assert_cmpuint(f.portion[nport].first, ==, 0x100);
    g_assert_true(f.portion[nport].patched);
    g_assert_cmpuint(f.npatch, ==, npatch + 1);          /* h3 only */
    g_assert_cmphex(fake_last_sub(&f)->flags, ==, COPRO_SUBMIT_RESUME);
    g_assert_cmphex(fake_last_sub(&f)->dma_addr, ==, FAKE_DMA(0) + 0x100);
    g_assert_cmpuint(fake_last_sub(&f)->dma_len, ==, 0x100);
    g_assert_cmpint(sub_at(&f, 1, 0), <, 0);

    /* portion 3, the last: done once, then l's next buffer */
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));
    fake_work(&f);
    s2 = sub_at(&f, 0, 0x200);
    g_assert_cmpint(s2, >, 0);
    g_assert_cmpuint(f.sub[s2].dma_len, ==, 0x100);
    /* (the last portion prepared, l's next buffer may follow it) */
    g_assert_cmpint(patch_of(&f, 0, 0x200), >, 0);
    g_assert_cmpuint(f.patched[patch_of(&f, 0, 0x200)].end, ==, 0x300);
    g_assert_cmpint(patch_of(&f, 1, 0), >, patch_of(&f, 0, 0x200));
    g_assert_cmpuint(done_count(&f, 0), ==, 0);
    fake_complete(&f, E0, f.sub[s2].fence);
    g_assert_cmpuint(done_count(&f, 0), ==, 1);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    fake_work(&f);
    sl1 = sub_at(&f, 1, 0);
    g_assert_cmpint(sl1, >, s2);
    fake_complete(&f, E0, fake_ring_oldest(&f, E0));
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    /* every residency given back: 3 retired portions and the cut one */
    g_assert_cmpuint(f.nportion_released, ==, 4);
    g_assert_cmpuint(f.portion_released[3].fence, ==, f.sub[s2].fence);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->split_buffers, ==, 1);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->portions, ==, 3);

    /* even one portion cannot fit: that buffer fails, l goes on */
    f.buf[4].len_bytes = f.buf[4].cap_bytes = 0x300;
    f.resident_rc = VIDSCH_RESIDENT_SPLIT;
    f.portion_rc = DDI_ENOMEM;
    fake_submit(&f, l, 4);
    fake_work(&f);
    f.resident_rc = DDI_OK;
    f.portion_rc = DDI_OK;
    g_assert_cmpint(fake_status(&f, 4), ==, DDI_ENOMEM);
    g_assert_cmpint(sub_at(&f, 4, 0), <, 0);
    fake_submit(&f, l, 5);
    fake_work(&f);
    s3 = sub_at(&f, 5, 0);
    g_assert_cmpint(s3, >, 0);
    fake_complete(&f, E0, f.sub[s3].fence);
    g_assert_cmpint(fake_status(&f, 5), ==, DDI_OK);
    g_assert_false(vidsch_ctx_is_lost(l));
    g_assert_true(vidsch_idle(f.s));
    fake_fini(&f);
}

/* ---- eviction fighting ---- */

/*
 * Two NORMAL contexts (cookies 0-7 and 32-39) with buffers of 500 us
 * queued all the time, over a VRAM that holds one working set: the
 * first buffer made resident after the other context's pays ws bytes
 * of paging (evicting it, bringing its own back). From paging_stops_ms
 * on (0: never) nothing pages any more. Returns the context switches on
 * the ring and when each happened.
 */
struct fight_run {
    unsigned owner;                 /* context last made resident */
    uint64_t ws, paging_stops_at;
    struct vidsch_ctx *c[2];
    unsigned switches;
    uint64_t switch_at[256];
    uint64_t paging;
};

static struct fight_run fr;

static uint64_t fight_bytes_of(struct fake *f, uint64_t cookie)
{
    unsigned owner = cookie < 32 ? 1 : 2;
    uint64_t b = fr.owner && owner != fr.owner &&
                 f->now < fr.paging_stops_at ? fr.ws : 0;

    fr.owner = owner;
    fr.paging += b;
    return b;
}

static void fight_resubmit(struct fake *f, uint64_t cookie, int status)
{
    g_assert_cmpint(status, ==, DDI_OK);
    fake_submit(f, fr.c[cookie < 32 ? 0 : 1], (unsigned)cookie);
}

static void run_fight(uint64_t fight_bytes, uint64_t ws,
                      uint64_t paging_stops_ms, uint64_t ms,
                      struct vidsch_engine_stats *st)
{
    struct fake f;
    struct vidsch_config cfg;
    unsigned answered = 0, last = 0, seen = 0;

    vidsch_config_default(&cfg);
    cfg.max_contexts = 4;
    cfg.max_buffers = 64;
    cfg.fight_bytes = fight_bytes;
    fr = (struct fight_run){ .ws = ws };
    fake_init_residency_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    fr.paging_stops_at = paging_stops_ms ? f.now + paging_stops_ms * MS
                                         : UINT64_MAX;
    f.resident_bytes = fight_bytes_of;
    f.on_done = fight_resubmit;
    fr.c[0] = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    fr.c[1] = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    for (unsigned i = 0; i < 4; i++) {
        fake_submit(&f, fr.c[0], i);
        fake_submit(&f, fr.c[1], 32 + i);
    }
    fake_work(&f);
    for (unsigned step = 0; step < ms * 2; step++) {
        /* the GPU: a preemption answered, or the oldest retired */
        fake_advance(&f, 500 * US);
        if (f.npreempt > answered) {
            fake_preempted(&f, E0, fake_ring_oldest(&f, E0),
                           fake_ring_completed(&f, E0));
            answered = f.npreempt;
        } else {
            fake_complete(&f, E0, fake_ring_oldest(&f, E0));
        }
        fake_work(&f);
        for (; seen < f.nsub; seen++) {
            if (f.sub[seen].context != last) {
                if (last && fr.switches < G_N_ELEMENTS(fr.switch_at)) {
                    fr.switch_at[fr.switches] = f.now;
                }
                fr.switches += last != 0;
                last = f.sub[seen].context;
            }
        }
    }
    *st = *vidsch_engine_stats(f.s, E0);
    g_assert_cmpuint(st->paging_bytes, ==, fr.paging);
    g_assert_cmpuint(vidsch_ctx_stats(fr.c[0])->paging_bytes +
                     vidsch_ctx_stats(fr.c[1])->paging_bytes, ==, fr.paging);
    g_assert_cmpuint(f.nev, <, FAKE_MAX_EVENTS);  /* none dropped */
    /* a FIGHT event at every change: on (reason 1), off (reason 0) */
    {
        unsigned ons = 0, offs = 0;

        for (unsigned i = 0; i < f.nev; i++) {
            if (f.ev[i].kind == VIDSCH_TRACE_FIGHT) {
                ons += f.ev[i].reason == 1;
                offs += f.ev[i].reason == 0;
            }
        }
        g_assert_cmpuint(ons, ==, st->fight_episodes);
        g_assert_cmpuint(offs, ==, paging_stops_ms ? ons : 0);
    }
    fake_fini(&f);
}

/* Two contexts of a level that swap 4 MiB at every switch: with the
 * policy, turns of fight_factor quanta, so far fewer switches (and swaps)
 * in the same GPU time; without it, or without paging, the round robin
 * of plain quanta, switch for switch the same. */
static void test_fight_longer_turns(void)
{
    struct vidsch_engine_stats on, off, calm;
    unsigned n_on, n_off, n_calm;
    uint64_t paging_on, paging_off;

    run_fight(1 << 20, 4 << 20, 0, 100, &on);
    n_on = fr.switches;
    paging_on = fr.paging;
    run_fight(0, 4 << 20, 0, 100, &off);
    n_off = fr.switches;
    paging_off = fr.paging;
    run_fight(1 << 20, 0, 0, 100, &calm);
    n_calm = fr.switches;
    g_test_message("switches in 100 ms: %u fighting with the policy, %u "
                   "without, %u without paging", n_on, n_off, n_calm);
    /* 2 ms quanta: a switch every 2 ms or so */
    g_assert_cmpuint(n_off, >=, 40);
    g_assert_cmpuint(n_calm, ==, n_off);
    g_assert_cmpuint(off.fight_turns, ==, 0);
    g_assert_cmpuint(calm.fight_turns, ==, 0);
    g_assert_cmpuint(calm.fight_episodes, ==, 0);
    /* 8 ms turns once detected (after a turn or two) */
    g_assert_cmpuint(on.fight_episodes, ==, 1);
    g_assert_cmpuint(on.fight_turns, >, 0);
    g_assert_cmpuint(n_on * 3, <, n_off);
    g_assert_cmpuint(paging_on * 3, <, paging_off);
    g_assert_cmpuint(on.paging_per_turn, >=, 1 << 20);
}

/* Hysteresis: once the paging stops, the smoothed figure falls below
 * half the threshold within a few turns and turns are plain quanta
 * again. */
static void test_fight_hysteresis(void)
{
    struct vidsch_engine_stats st;
    uint64_t t_end = 0;
    unsigned late = 0;

    run_fight(1 << 20, 4 << 20, 40, 100, &st);
    g_assert_cmpuint(st.fight_episodes, ==, 1);
    g_assert_cmpuint(st.paging_per_turn, <, 1 << 19);
    /* in the last 30 ms, switches every quantum again */
    t_end = fr.switch_at[fr.switches - 1];
    for (unsigned i = 0; i < fr.switches; i++) {
        late += fr.switch_at[i] + 30 * MS > t_end;
    }
    g_assert_cmpuint(late, >=, 12);
    /* and between 10 and 40 ms, long turns */
    {
        unsigned mid = 0;

        for (unsigned i = 0; i < fr.switches; i++) {
            mid += fr.switch_at[i] >= 10 * MS && fr.switch_at[i] < 40 * MS;
        }
        g_assert_cmpuint(mid, <=, 5);
    }
}

/* Fences that fit nothing submitted are not believed: a device that
 * says it preempted a paging buffer is reset, and nobody is blamed. */
static void test_inconsistent_fences(void)
{
    struct fake f;
    struct vidsch_ctx *l, *h;
    unsigned mark;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_PRIORITY);
    l = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    h = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    fake_submit(&f, l, 0);
    fake_work(&f);
    f.buf[20].engine = E0;
    vidsch_submit_paging(f.s, E0, &f.buf[20], 20);
    ASSERT_SUBS(&f, 0, 0, 20);
    /* an answer nobody asked for is stale */
    vidsch_upcalls.preempted(f.s, E0, 77, 1, 0);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->stale_upcalls, ==, 1);
    g_assert_cmpuint(f.nreset, ==, 0);
    fake_submit(&f, h, 1);
    fake_work(&f);
    g_assert_cmpuint(f.npreempt, ==, 1);
    mark = f.nsub;
    f.reset_rep[E0] = (struct ddi_reset_report){ .completed_fence = 1 };
    fake_preempted(&f, E0, 2, 1);       /* "the paging buffer, cut" */
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->inconsistent, ==, 1);
    g_assert_cmpuint(f.nreset, ==, 1);
    g_assert_cmpuint(f.nlost, ==, 0);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    fake_work(&f);
    /* the paging buffer again first, with its fence; then h */
    ASSERT_SUBS(&f, mark, 20, 1);
    g_assert_cmpuint(f.sub[mark].fence, ==, 2);
    fake_fini(&f);
}

/* ---- sync ---- */

static void test_wait_and_signal(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;
    uint64_t sync = 0, cpu = 0, polled = 0;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_HIGH);
    g_assert_cmpint(vidsch_wait(f.s, b, &sync, 1), ==, DDI_OK);
    fake_submit(&f, b, 10);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_HOLD, 0), ==, 1);
    fake_submit(&f, a, 0);
    g_assert_cmpint(vidsch_signal(f.s, a, &sync, 1), ==, DDI_OK);
    fake_work(&f);
    /* b is HIGH but held: a runs */
    ASSERT_SUBS(&f, 0, 0);
    g_assert_cmpuint(sync, ==, 0);
    fake_advance(&f, MS);
    fake_complete(&f, E0, 1);
    /* a's buffer retired: the signal is written, b is released */
    g_assert_cmpuint(sync, ==, 1);
    g_assert_cmpuint(fake_count_events(&f, VIDSCH_TRACE_RELEASE, 0), ==, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 10);

    /* a CPU signal, announced */
    vidsch_wait(f.s, b, &cpu, 5);
    fake_submit(&f, b, 11);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 10);
    cpu = 5;
    vidsch_sync_changed(f.s);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 10, 11);

    /* not announced: found by the poll within sync_poll_ns */
    vidsch_wait(f.s, b, &polled, 2);
    fake_submit(&f, b, 12);
    fake_work(&f);
    polled = 2;
    fake_advance(&f, f.cfg.sync_poll_ns / 2);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 10, 11);
    fake_advance(&f, f.cfg.sync_poll_ns);
    fake_work(&f);
    fake_complete(&f, E0, 3);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 10, 11, 12);

    /* a signal with nothing outstanding is written at once; a satisfied
     * wait holds nothing */
    fake_complete(&f, E0, 4);
    g_assert_cmpint(vidsch_signal(f.s, a, &sync, 9), ==, DDI_OK);
    g_assert_cmpuint(sync, ==, 9);
    g_assert_cmpint(vidsch_wait(f.s, b, &sync, 9), ==, DDI_OK);
    fake_submit(&f, b, 13);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 10, 11, 12, 13);
    fake_fini(&f);
}

/* ---- TDR and faults ---- */

static void tdr_cfg(struct vidsch_config *cfg, enum vidsch_policy policy)
{
    vidsch_config_default(cfg);
    cfg->policy = policy;
    cfg->max_contexts = 8;
    cfg->max_buffers = 64;
    cfg->tdr_timeout_ns = 50 * MS;
    cfg->tdr_grace_ns = 10 * MS;
    cfg->tdr_limit = 2;
    cfg->tdr_window_ns = 1000 * MS;
}

static void test_tdr_reset_blames_the_culprit(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *a, *b;
    uint64_t sig = 0;
    unsigned mark;

    tdr_cfg(&cfg, VIDSCH_POLICY_PRIORITY);
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);      /* hangs */
    fake_work(&f);
    fake_submit(&f, b, 1);
    fake_work(&f);
    fake_submit(&f, a, 2);
    vidsch_signal(f.s, a, &sig, 3);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    fake_advance(&f, 50 * MS - 1);
    g_assert_cmpuint(f.npreempt, ==, 0);
    fake_advance(&f, 1);
    /* no progress for the timeout: preempt first */
    g_assert_cmpuint(f.npreempt, ==, 1);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)
                     ->preempt_requests[VIDSCH_PREEMPT_TDR], ==, 1);
    fake_advance(&f, 10 * MS - 1);
    g_assert_cmpuint(f.nreset, ==, 0);
    f.reset_rep[E0] = (struct ddi_reset_report){ .aborted_fence = 1 };
    mark = f.nsub;
    fake_advance(&f, 1);
    /* not honoured in the grace: reset, a is lost, b runs again */
    g_assert_cmpuint(f.nreset, ==, 1);
    g_assert_cmpuint(f.nlost, ==, 1);
    g_assert_cmpuint(f.lost[0], ==, 1);
    g_assert_true(vidsch_ctx_is_lost(a));
    g_assert_false(vidsch_ctx_is_lost(b));
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_ELOST);
    g_assert_cmpint(fake_status(&f, 2), ==, DDI_ELOST);
    g_assert_cmpuint(sig, ==, 3);       /* nobody waits for ever on a */
    fake_work(&f);
    ASSERT_SUBS(&f, mark, 1);
    g_assert_cmphex(f.sub[mark].flags, ==, 0);
    g_assert_cmpuint(f.sub[mark].fence, ==, 3);
    g_assert_cmpint(fake_submit(&f, a, 3), ==, DDI_ELOST);
    g_assert_cmpint(vidsch_signal(f.s, a, &sig, 4), ==, DDI_ELOST);
    fake_complete(&f, E0, 3);
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_OK);
    g_assert_cmpuint(vidsch_stats(f.s)->tdr_resets, ==, 1);
    g_assert_cmpuint(vidsch_stats(f.s)->device_resets, ==, 0);
    g_assert_true(vidsch_idle(f.s));
    fake_fini(&f);
}

/* A long but healthy buffer yields to the watchdog's preemption. */
static void test_tdr_preemption_honoured(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *a;

    tdr_cfg(&cfg, VIDSCH_POLICY_PRIORITY);
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);
    fake_work(&f);
    fake_advance(&f, 50 * MS);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_advance(&f, 5 * MS);
    fake_preempted(&f, E0, 1, 0);
    fake_advance(&f, 20 * MS);
    g_assert_cmpuint(f.nreset, ==, 0);
    ASSERT_SUBS(&f, 0, 0, 0);
    g_assert_cmphex(f.sub[1].flags, ==, COPRO_SUBMIT_RESUME);
    fake_complete(&f, E0, 2);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    fake_fini(&f);
}

/*
 * The watchdog's floor (issue 15, item 17): tdr_ms=1 tdr_grace_ms=0 reset
 * healthy engines (a preemption cannot be honoured in 0 ns). vidsch
 * raises them to VIDSCH_TDR_TIMEOUT_MIN_NS and VIDSCH_TDR_GRACE_MIN_NS;
 * a healthy buffer that yields within the grace is not reset, and the
 * grace then grows to twice the longest preemption honoured.
 */
static void test_tdr_floor(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *a;

    tdr_cfg(&cfg, VIDSCH_POLICY_PRIORITY);
    cfg.tdr_timeout_ns = 1 * MS;
    cfg.tdr_grace_ns = 0;
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);
    fake_work(&f);
    fake_advance(&f, 5 * MS);
    g_assert_cmpuint(f.npreempt, ==, 0);    /* not at 1 ms */
    fake_advance(&f, VIDSCH_TDR_TIMEOUT_MIN_NS - 5 * MS);
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_advance(&f, VIDSCH_TDR_GRACE_MIN_NS / 2);
    g_assert_cmpuint(f.nreset, ==, 0);      /* a grace, not 0 */
    fake_preempted(&f, E0, 1, 0);
    fake_work(&f);
    g_assert_cmphex(fake_last_sub(&f)->flags, ==, COPRO_SUBMIT_RESUME);
    /* again: it took 0.5 ms to yield, the grace is at least 1 ms */
    fake_advance(&f, VIDSCH_TDR_TIMEOUT_MIN_NS);
    g_assert_cmpuint(f.npreempt, ==, 2);
    fake_advance(&f, VIDSCH_TDR_GRACE_MIN_NS - 1000);
    g_assert_cmpuint(f.nreset, ==, 0);
    fake_preempted(&f, E0, fake_last_sub(&f)->fence, 0);
    fake_work(&f);
    fake_complete(&f, E0, fake_last_sub(&f)->fence);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    g_assert_false(vidsch_ctx_is_lost(a));
    fake_fini(&f);
}

/* More TDRs than tdr_limit in the window: every engine is reset; the
 * innocent caught mid-buffer on the other engine starts over. */
static void test_tdr_escalates_to_device_reset(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *a, *c;
    unsigned mark;

    tdr_cfg(&cfg, VIDSCH_POLICY_PRIORITY);
    cfg.tdr_limit = 1;
    fake_init_cfg(&f, 2, COPRO_PREEMPT_MID_COMMAND, &cfg);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    c = fake_ctx(&f, 3, E1, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);
    fake_work(&f);
    f.reset_rep[E0] = (struct ddi_reset_report){ .aborted_fence = 1 };
    fake_advance(&f, 60 * MS);
    g_assert_cmpuint(f.nreset, ==, 1);
    g_assert_cmpuint(vidsch_stats(f.s)->device_resets, ==, 0);

    /* a second culprit on engine 0 while c runs on engine 1 */
    {
        struct vidsch_ctx *b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);

        fake_submit(&f, b, 1);
        fake_work(&f);
        fake_submit(&f, c, 2);
        fake_work(&f);
        f.reset_rep[E0] = (struct ddi_reset_report){ .aborted_fence = 2 };
        f.reset_rep[E1] = (struct ddi_reset_report){ .aborted_fence = 1 };
        mark = f.nsub;
        fake_advance(&f, 40 * MS);
        fake_complete(&f, E1, 0);       /* nothing: c is slow too */
        fake_advance(&f, 20 * MS);
        g_assert_cmpuint(vidsch_stats(f.s)->device_resets, ==, 1);
        g_assert_cmpuint(f.nreset, ==, 3);     /* both engines */
        g_assert_true(vidsch_ctx_is_lost(b));
        g_assert_false(vidsch_ctx_is_lost(c));
        fake_work(&f);
        /* c again from its start (no RESUME), on engine 1 */
        g_assert_cmpuint(fake_cookie_of(fake_last_sub(&f)->dma_addr), ==, 2);
        g_assert_cmpuint(fake_last_sub(&f)->engine, ==, E1);
        g_assert_cmphex(fake_last_sub(&f)->flags, ==, 0);
        g_assert_cmpuint(f.nsub, ==, mark + 1);
    }
    fake_fini(&f);
}

static void test_fault(void)
{
    struct fake f;
    struct vidsch_ctx *a, *b;
    struct ddi_fault flt;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    b = fake_ctx(&f, 2, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, b, 0);
    fake_work(&f);
    fake_submit(&f, a, 1);
    fake_work(&f);
    fake_complete(&f, E0, 1);
    fake_submit(&f, b, 2);
    fake_work(&f);
    /* ring: a1 (fence 2, executing), b2 (fence 3) */
    flt = (struct ddi_fault){ .kind = COPRO_FAULT_TRANSLATION, .context = 1,
                              .fence = 2 };
    /* a fault about something long retired is stale */
    vidsch_upcalls.faulted(f.s, E0, &(struct ddi_fault){ .fence = 1 });
    g_assert_cmpuint(f.nreset, ==, 0);
    f.reset_rep[E0] = (struct ddi_reset_report){ .aborted_fence = 2,
                                                 .completed_fence = 1 };
    vidsch_upcalls.faulted(f.s, E0, &flt);
    g_assert_cmpuint(f.nreset, ==, 1);
    g_assert_true(vidsch_ctx_is_lost(a));
    g_assert_false(vidsch_ctx_is_lost(b));
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_ELOST);
    fake_work(&f);
    g_assert_cmpuint(fake_cookie_of(fake_last_sub(&f)->dma_addr), ==, 2);
    g_assert_cmpuint(vidsch_engine_stats(f.s, E0)->faults, ==, 1);
    g_assert_cmpuint(vidsch_stats(f.s)->tdr_resets, ==, 0);
    fake_fini(&f);
}

/* ---- the rest of the API ---- */

static void test_destroy(void)
{
    struct fake f;
    struct vidsch_ctx *a;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);
    fake_work(&f);
    fake_submit(&f, a, 1);
    fake_submit(&f, a, 2);
    fake_submit(&f, a, 3);
    fake_work(&f);
    fake_work(&f);
    /* a0 a1 on the ring, a2 prepared, a3 queued */
    g_assert_false(vidsch_ctx_destroy(f.s, a));
    g_assert_cmpint(fake_status(&f, 3), ==, DDI_ELOST);
    g_assert_cmpint(fake_submit(&f, a, 4), ==, DDI_EINVAL);
    /* what is on the ring is not run to its end (a killed process's
     * 10-second buffer): the engine is asked to stop */
    g_assert_cmpuint(f.npreempt, ==, 1);
    fake_complete(&f, E0, 1);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_OK);
    fake_preempted(&f, E0, 2, 1);       /* a1 cut */
    g_assert_cmpint(fake_status(&f, 1), ==, DDI_ELOST);
    fake_work(&f);
    if (!vidsch_ctx_destroy(f.s, a)) {
        /* a2, prepared before, went to the ring */
        fake_complete(&f, E0, fake_ring_oldest(&f, E0));
        fake_work(&f);
    }
    g_assert_true(vidsch_ctx_destroy(f.s, a));
    g_assert_true(vidsch_idle(f.s));
    fake_fini(&f);
}

static void test_submit_refusals(void)
{
    struct fake f;
    struct vidsch_ctx *a;

    fake_init(&f, 2, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    f.buf[0].engine = E1;
    g_assert_cmpint(vidsch_submit(f.s, a, &f.buf[0], NULL, 0), ==,
                    DDI_EINVAL);
    f.buf[0].engine = E0;
    f.buf[0].len_bytes = 62;
    g_assert_cmpint(vidsch_submit(f.s, a, &f.buf[0], NULL, 0), ==,
                    DDI_EINVAL);
    f.buf[0].len_bytes = COPRO_DMA_MAX + 4;
    g_assert_cmpint(vidsch_submit(f.s, a, &f.buf[0], NULL, 0), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidsch_submit_paging(f.s, 2, &f.buf[1], 1), ==,
                    DDI_EINVAL);
    /* the table is full: DDI_ENOMEM, then fine once buffers retire */
    f.buf[0].len_bytes = 64;
    for (unsigned i = 0; i < f.cfg.max_buffers; i++) {
        g_assert_cmpint(vidsch_submit(f.s, a, &f.buf[0], NULL, i), ==,
                        DDI_OK);
    }
    g_assert_cmpint(vidsch_submit(f.s, a, &f.buf[0], NULL, 99), ==,
                    DDI_ENOMEM);
    fake_fini(&f);
}

/* buffer_done may submit the next frame at once (re-entry). */
static void resubmit_on_done(struct fake *f, uint64_t cookie, int status)
{
    struct vidsch_ctx *a = (struct vidsch_ctx *)(uintptr_t)f->buf[63].gpu_addr;

    g_assert_cmpint(status, ==, DDI_OK);
    if (cookie < 5) {
        g_assert_cmpint(fake_submit(f, a, cookie + 1), ==, DDI_OK);
    }
}

static void test_reentry_from_buffer_done(void)
{
    struct fake f;
    struct vidsch_ctx *a;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    f.buf[63].gpu_addr = (uintptr_t)a;
    f.on_done = resubmit_on_done;
    fake_submit(&f, a, 0);
    for (unsigned i = 0; i < 6; i++) {
        fake_work(&f);
        fake_advance(&f, MS);
        fake_complete(&f, E0, fake_last_sub(&f)->fence);
    }
    ASSERT_SUBS(&f, 0, 0, 1, 2, 3, 4, 5);
    g_assert_true(vidsch_idle(f.s));
    fake_fini(&f);
}

static void test_patch_refused(void)
{
    struct fake f;
    struct vidsch_ctx *a;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    f.patch_rc = DDI_EBOUNDS;
    fake_submit(&f, a, 0);
    fake_work(&f);
    g_assert_cmpint(fake_status(&f, 0), ==, DDI_EBOUNDS);
    g_assert_false(vidsch_ctx_is_lost(a));
    f.patch_rc = DDI_OK;
    fake_submit(&f, a, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 1);
    fake_fini(&f);
}

static void test_serial_prepare(void)
{
    struct fake f;
    struct vidsch_config cfg;
    struct vidsch_ctx *a;

    vidsch_config_default(&cfg);
    cfg.max_contexts = 4;
    cfg.max_buffers = 16;
    cfg.serial_prepare = true;
    fake_init_cfg(&f, 1, COPRO_PREEMPT_MID_COMMAND, &cfg);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);
    fake_submit(&f, a, 1);
    fake_work(&f);
    /* the baseline prepares only once the engine has nothing */
    ASSERT_SUBS(&f, 0, 0);
    g_assert_cmpuint(f.work, ==, 0);
    fake_complete(&f, E0, 1);
    g_assert_cmpuint(f.work, ==, 1);
    fake_work(&f);
    ASSERT_SUBS(&f, 0, 0, 1);
    fake_fini(&f);
}

static void test_latency_stats(void)
{
    struct fake f;
    struct vidsch_ctx *a;
    const struct vidsch_ctx_stats *st;

    fake_init(&f, 1, COPRO_PREEMPT_MID_COMMAND, VIDSCH_POLICY_QUANTUM);
    a = fake_ctx(&f, 1, E0, VIDSCH_PRIO_NORMAL);
    fake_submit(&f, a, 0);
    fake_work(&f);
    fake_submit(&f, a, 1);
    fake_work(&f);
    fake_submit(&f, a, 2);
    fake_work(&f);
    fake_advance(&f, 5 * US);
    fake_complete(&f, E0, 1);       /* a1 starts 5 us after submission */
    fake_advance(&f, 500 * US);
    fake_complete(&f, E0, 2);       /* a2 after 505 us */
    fake_advance(&f, 2 * MS);
    fake_complete(&f, E0, 3);
    st = vidsch_ctx_stats(a);
    g_assert_cmpuint(st->started, ==, 3);
    g_assert_cmpuint(st->latency_ns[0], ==, 2);     /* 0 and 5 us */
    g_assert_cmpuint(st->latency_ns[2], ==, 1);     /* 505 us */
    g_assert_cmpuint(st->latency_max_ns, ==, 505 * US);
    g_assert_cmpuint(st->latency_sum_ns, ==, 510 * US);
    g_assert_cmpuint(st->gpu_ns, ==, 2505 * US);
    /* queued_ns is time the context waited while another ran: none */
    g_assert_cmpuint(st->queued_ns, ==, 0);
    fake_fini(&f);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidsch/config", test_config);
    g_test_add_func("/vidsch/create-refuses", test_create_refuses);
    g_test_add_func("/vidsch/path-of-a-buffer", test_path_of_a_buffer);
    g_test_add_func("/vidsch/priority/order", test_priority_order);
    g_test_add_func("/vidsch/priority/round-robin",
                    test_priority_round_robin);
    g_test_add_func("/vidsch/fifo/order-never-preempts",
                    test_fifo_order_never_preempts);
    g_test_add_func("/vidsch/priority/preemption", test_priority_preemption);
    g_test_add_func("/vidsch/prepared-not-preempted",
                    test_prepared_not_preempted);
    g_test_add_func("/vidsch/no-self-preemption", test_no_self_preemption);
    g_test_add_func("/vidsch/switch-cost", test_switch_cost);
    g_test_add_func("/vidsch/tdr-floor", test_tdr_floor);
    g_test_add_func("/vidsch/lost-paging-fails-waiters",
                    test_lost_paging_fails_waiters);
    g_test_add_func("/vidsch/order-kept-after-stop",
                    test_order_kept_after_stop);
    g_test_add_func("/vidsch/granularity/dma-buffer",
                    test_dma_buffer_granularity);
    g_test_add_func("/vidsch/granularity/none-shallow-ring",
                    test_shallow_ring_without_preemption);
    g_test_add_func("/vidsch/quantum/round-robin", test_quantum_round_robin);
    g_test_add_func("/vidsch/quantum/alone-keeps-running",
                    test_quantum_alone_keeps_running);
    g_test_add_func("/vidsch/quantum/aging", test_aging);
    g_test_add_func("/vidsch/quantum/aging-never-outranks",
                    test_aging_never_outranks);
    g_test_add_func("/vidsch/paging/first-fence-kept",
                    test_paging_first_and_fence_kept);
    g_test_add_func("/vidsch/inconsistent-fences", test_inconsistent_fences);
    g_test_add_func("/vidsch/residency-hook", test_residency_hook);
    g_test_add_func("/vidsch/split", test_split);
    g_test_add_func("/vidsch/fight/longer-turns", test_fight_longer_turns);
    g_test_add_func("/vidsch/fight/hysteresis", test_fight_hysteresis);
    g_test_add_func("/vidsch/sync/wait-and-signal", test_wait_and_signal);
    g_test_add_func("/vidsch/sync/inherit", test_inherit_through_sync);
    g_test_add_func("/vidsch/sync/inherit-no-wasted-preemption",
                    test_inherit_no_wasted_preemption);
    g_test_add_func("/vidsch/no-cut-of-higher-head",
                    test_no_cut_of_higher_head);
    g_test_add_func("/vidsch/sync/inherit-chain-no-wasted-preemption",
                    test_inherit_chain_no_wasted_preemption);
    g_test_add_func("/vidsch/granularity/dma-buffer-own-head",
                    test_dma_buffer_own_head);
    g_test_add_func("/vidsch/residency/wait-memory-changed",
                    test_resident_wait_memory_changed);
    g_test_add_func("/vidsch/residency/step", test_resident_step);
    g_test_add_func("/vidsch/tdr/reset-blames-the-culprit",
                    test_tdr_reset_blames_the_culprit);
    g_test_add_func("/vidsch/tdr/preemption-honoured",
                    test_tdr_preemption_honoured);
    g_test_add_func("/vidsch/tdr/escalates-to-device-reset",
                    test_tdr_escalates_to_device_reset);
    g_test_add_func("/vidsch/fault", test_fault);
    g_test_add_func("/vidsch/destroy", test_destroy);
    g_test_add_func("/vidsch/submit-refusals", test_submit_refusals);
    g_test_add_func("/vidsch/reentry-from-buffer-done",
                    test_reentry_from_buffer_done);
    g_test_add_func("/vidsch/patch-refused", test_patch_refused);
    g_test_add_func("/vidsch/serial-prepare", test_serial_prepare);
    g_test_add_func("/vidsch/latency-stats", test_latency_stats);
    return g_test_run();
}
