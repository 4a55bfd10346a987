/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Property tests of vidsch's answer to TILER_OOM (vidsch_scene.c) over
 * the GPU model, seeded random workloads: contexts of random priorities
 * on one or two render engines (geometry on engine 0, tile passes on
 * engine 2, as a scene-based driver runs them), under every policy and
 * preemption granularity, their buffers stopped by injected OOMs at
 * random packets (SIM_INJECT_OOM). The OS's answer (the env's scene_oom,
 * vidmm's role) grows for most contexts and cannot for some. Checked:
 *
 *  - the run drains; every buffer is reported exactly once;
 *  - a context whose OOM was answered by a grow loses nothing: all its
 *    buffers retire, in submission order, and it is never put in error;
 *    only contexts whose OOM could not be answered are lost (nobody is
 *    blamed for another's OOM, nobody else's queued work is dropped);
 *  - every OOM stop is put to the OS once, with the stopped buffer's own
 *    save area, and the buffer's next start on the GPU is a RESUME.
 *
 * --meta: the same seeds with no scene_oom answer (every OOM fails) must
 * break the properties (a checker that cannot fail proves nothing).
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim_gpu.h"
#include "sim_host.h"

#define US      1000ull
#define MS      1000000ull
#define NCTX    5
#define NBUF    8
#define NCOOKIE (NCTX * NBUF)

struct tctx {
    struct vidsch_ctx *ctx;
    uint64_t save;
    unsigned engine;
    bool cannot_grow;           /* the OS answers FAIL for it */
    unsigned asked;             /* OOMs put to the OS */
    unsigned next;              /* next buffer expected to retire */
    bool lost;
};

struct trun {
    struct sim_host h;
    struct tctx c[NCTX];
    struct ddi_dmabuf buf[NCOOKIE];
    unsigned done[NCOOKIE];
    int status[NCOOKIE];
    bool want_resume[NCOOKIE];
    unsigned asks;
    bool answer;                /* false: the meta run (no hook) */
    uint64_t held_dropped;      /* entries written during holds, over all
                                   seeds (sim_gpu's held_dropped) */
    char msg[256];
};

static struct trun R;

static void fail(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static void fail(const char *fmt, ...)
{
    va_list ap;

    if (R.msg[0]) {
        return;     /* the first violation is the one to read */
    }
    va_start(ap, fmt);
    vsnprintf(R.msg, sizeof(R.msg), fmt, ap);
    va_end(ap);
}

static int cookie_of_dma(uint64_t dma)
{
    for (unsigned i = 0; i < NCOOKIE; i++) {
        if (R.buf[i].gpu_addr == dma) {
            return (int)i;
        }
    }
    return -1;
}

static void on_done(void *arg, uint64_t cookie, int status)
{
    struct tctx *t;

    (void)arg;
    if (cookie >= NCOOKIE) {
        fail("done: unknown cookie %" PRIu64, cookie);
        return;
    }
    R.done[cookie]++;
    R.status[cookie] = status;
    t = &R.c[cookie / NBUF];
    if (status == DDI_OK) {
        if (cookie % NBUF != t->next) {
            fail("ctx %u: buffer %u retired, expected %u",
                 (unsigned)(cookie / NBUF), (unsigned)(cookie % NBUF),
                 t->next);
        }
        t->next = cookie % NBUF + 1;
    }
}

static void on_lost(void *arg, uint32_t context)
{
    (void)arg;
    if (context >= 1 && context <= NCTX) {
        R.c[context - 1].lost = true;
    }
}

static int on_oom(void *arg, uint64_t cookie, uint32_t context,
                  uint64_t save_addr, uint32_t need,
                  struct vidsch_oom_wait *wait)
{
    struct tctx *t;

    (void)arg;
    (void)wait;     /* never answers PARTIAL */
    R.asks++;
    if (cookie >= NCOOKIE || context != cookie / NBUF + 1) {
        fail("OOM asked about cookie %" PRIu64 " of context %u", cookie,
             context);
        return VIDSCH_OOM_FAIL;
    }
    t = &R.c[cookie / NBUF];
    if (save_addr != t->save || need != SIM_OOM_NEED) {
        fail("OOM of cookie %" PRIu64 ": save %#" PRIx64 " need %u",
             cookie, save_addr, need);
    }
    t->asked++;
    if (t->cannot_grow) {
        return VIDSCH_OOM_FAIL;
    }
    R.want_resume[cookie] = true;
    return VIDSCH_OOM_RESUME;
}

static void obs_loaded(void *arg, unsigned engine,
                       const struct copro_submit_desc *d)
{
    int k = cookie_of_dma(d->dma_addr);

    (void)arg;
    (void)engine;
    if (k >= 0 && R.want_resume[k]) {
        if (!(d->flags & COPRO_SUBMIT_RESUME)) {
            fail("cookie %d started over after its OOM (no RESUME)", k);
        }
        R.want_resume[k] = false;
    }
}

static const struct sim_gpu_observer obs = { .loaded = obs_loaded };

static bool run_seed(uint64_t seed, bool answer, char *why, size_t whylen)
{
    struct sim_host_hooks hooks = {
        .buffer_done = on_done, .context_lost = on_lost,
        .scene_oom = answer ? on_oom : NULL,
    };
    static const unsigned gran[] = {
        COPRO_PREEMPT_DMA_BUFFER, COPRO_PREEMPT_COMMAND,
        COPRO_PREEMPT_MID_COMMAND,
    };
    static const enum vidsch_policy pol[] = {
        VIDSCH_POLICY_FIFO, VIDSCH_POLICY_PRIORITY, VIDSCH_POLICY_QUANTUM,
    };
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
    struct sim_gpu_config g;
    struct vidsch_config cfg;
    unsigned fired = 0;
    bool drained;

    memset(R.c, 0, sizeof(R.c));
    memset(R.buf, 0, sizeof(R.buf));
    memset(R.done, 0, sizeof(R.done));
    memset(R.want_resume, 0, sizeof(R.want_resume));
    R.asks = 0;
    R.answer = answer;
    R.msg[0] = 0;

    sim_gpu_config_default(&g);
    g.engines = sim_rand_range(&rng, 0, 1) ? 3 : 1;
    g.preemption = gran[sim_rand_range(&rng, 0, 2)];
    g.ring_entries = 8;
    g.mem_size = 1 << 20;
    vidsch_config_default(&cfg);
    cfg.policy = pol[sim_rand_range(&rng, 0, 2)];
    cfg.max_contexts = NCTX;
    cfg.max_buffers = NCOOKIE;
    sim_host_start(&R.h, &g, &cfg, 5 * US, 5 * US, seed, &hooks, NULL);
    sim_gpu_observe(R.h.gpu, &obs, NULL);

    for (unsigned i = 0; i < NCTX; i++) {
        struct tctx *t = &R.c[i];

        t->engine = g.engines == 3 && sim_rand_range(&rng, 0, 1) ? 2 : 0;
        t->save = sim_gpu_alloc(R.h.gpu, COPRO_SAVE_SIZE, 64);
        t->cannot_grow = sim_rand_range(&rng, 0, 3) == 0;
        t->ctx = vidsch_ctx_create(R.h.vs, i + 1, t->engine,
                                   (enum vidsch_priority)
                                   sim_rand_range(&rng, VIDSCH_PRIO_NORMAL,
                                                  VIDSCH_PRIO_HIGH),
                                   t->save);
        g_assert_nonnull(t->ctx);
    }
    for (unsigned k = 0; k < NCOOKIE; k++) {
        struct tctx *t = &R.c[k / NBUF];
        uint64_t at = sim_gpu_alloc(R.h.gpu, 128, 64);
        uint32_t *dw = sim_gpu_ptr(R.h.gpu, at);
        unsigned n = (unsigned)sim_rand_range(&rng, 1, 4), i = 0;

        for (unsigned p = 0; p < n; p++) {
            i = sim_emit_work(dw, i, sim_rand_range(&rng, 10, 200) * US);
        }
        R.buf[k] = (struct ddi_dmabuf){
            .dw = dw, .gpu_addr = at, .cap_bytes = 128, .len_bytes = i * 4,
            .engine = t->engine,
        };
        if (sim_rand_range(&rng, 0, 2) == 0) {
            /* a WORK packet is 3 dwords: stop before one of them */
            sim_gpu_inject(R.h.gpu, at,
                           12 * (uint32_t)sim_rand_range(&rng, 0, n - 1),
                           SIM_INJECT_OOM);
        }
    }
    for (unsigned k = 0; k < NCOOKIE; k++) {
        int rc = vidsch_submit(R.h.vs, R.c[k / NBUF].ctx, &R.buf[k], NULL,
                               k);

        g_assert_cmpint(rc, ==, DDI_OK);
    }
    drained = sim_host_run(&R.h, 10000 * MS);

    if (!drained || !vidsch_idle(R.h.vs)) {
        fail("the run did not drain");
    }
    for (unsigned e = 0; e < g.engines; e++) {
        fired += (unsigned)R.h.gpu->engine[e].ooms;
        R.held_dropped += R.h.gpu->engine[e].held_dropped;
    }
    if (answer && fired != R.asks) {
        const struct vidsch_engine_stats *st =
            vidsch_engine_stats(R.h.vs, g.engines - 1);

        fail("%u OOM stops, %u put to the OS (e0: %" PRIu64 " stale, %"
             PRIu64 " inconsistent, %" PRIu64 " resets, lost %d%d%d%d%d)",
             fired, R.asks, st->stale_upcalls, st->inconsistent,
             st->resets, R.c[0].lost, R.c[1].lost, R.c[2].lost,
             R.c[3].lost, R.c[4].lost);
    }
    for (unsigned k = 0; k < NCOOKIE; k++) {
        if (R.done[k] != 1) {
            fail("cookie %u reported %u times", k, R.done[k]);
        }
    }
    for (unsigned i = 0; i < NCTX; i++) {
        struct tctx *t = &R.c[i];
        bool should_lose = t->asked && t->cannot_grow;

        if (t->lost != should_lose) {
            fail("ctx %u (%s, %u OOMs): %s", i,
                 t->cannot_grow ? "cannot grow" : "grows", t->asked,
                 t->lost ? "lost" : "not lost");
        }
        if (!t->lost && t->next != NBUF) {
            fail("ctx %u: %u of %u buffers retired", i, t->next, NBUF);
        }
    }
    for (unsigned k = 0; k < NCOOKIE; k++) {
        if (R.want_resume[k] && !R.c[k / NBUF].lost) {
            fail("cookie %u never resumed after its OOM", k);
        }
    }
    for (unsigned i = 0; i < NCTX; i++) {
        vidsch_ctx_destroy(R.h.vs, R.c[i].ctx);
    }
    snprintf(why, whylen, "%s", R.msg);
    return !R.msg[0];
}

static uint64_t first_seed, nseeds = 2000;

static void test_seeds(void)
{
    char why[256];
    unsigned ooms = 0;

    sim_host_init(&R.h, 1 << 20, NCTX, NCOOKIE);
    R.held_dropped = 0;
    for (uint64_t s = first_seed; s < first_seed + nseeds; s++) {
        if (!run_seed(s, true, why, sizeof(why))) {
            g_error("seed %" PRIu64 ": %s", s, why);
        }
        ooms += R.asks;
    }
    g_test_message("%u OOM stops answered over %" PRIu64 " seeds, %" PRIu64
                   " ring entries written during the engine's hold after "
                   "one (dropped by its acknowledgement, resubmitted)",
                   ooms, nseeds, R.held_dropped);
    /* the workloads really had OOMs to answer */
    g_assert_cmpuint(ooms, >, nseeds / 2);
    /* and the OS wrote its ring before it had heard of some of them */
    g_assert_cmpuint(R.held_dropped, >, 0);
    sim_host_fini(&R.h);
}

static void test_meta_no_answer(void)
{
    char why[256];
    unsigned broken = 0;

    sim_host_init(&R.h, 1 << 20, NCTX, NCOOKIE);
    for (uint64_t s = 0; s < 50; s++) {
        broken += !run_seed(s, false, why, sizeof(why));
    }
    g_assert_cmpuint(broken, >, 0);
    sim_host_fini(&R.h);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (int i = 1; i < argc; i++) {
        if (g_str_has_prefix(argv[i], "--first=")) {
            first_seed = g_ascii_strtoull(argv[i] + 8, NULL, 10);
        } else if (g_str_has_prefix(argv[i], "--count=")) {
            nseeds = g_ascii_strtoull(argv[i] + 8, NULL, 10);
        }
    }
    g_test_add_func("/sim-tiler/oom-seeds", test_seeds);
    g_test_add_func("/sim-tiler/meta/no-answer", test_meta_no_answer);
    return g_test_run();
}
