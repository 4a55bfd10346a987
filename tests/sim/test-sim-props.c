/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Property tests of the scheduler: seeded random workloads (sim_workload)
 * run through vidsch on the GPU model and checked (sim_check).
 *
 *   test-sim-props --first=N --count=M   seeds [N, N+M), in GTest cases
 *                                        of --chunk seeds (default 250)
 *   test-sim-props --seed=S [--verbose]  one seed, with its events
 *   test-sim-props --meta                the checkers themselves: each
 *                                        must catch a deliberate fault
 *   --hws                                hardware scheduling: vidsch's
 *                                        hardware mode over the device's
 *                                        scheduler (sim_hws), judged by
 *                                        the device's rules
 *
 * A failing seed prints itself, its workload and the command that
 * reproduces it.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_check.h"
#include "sim_seeds.h"

#define MS  1000000ull

static struct sim_seeds opt;

static struct sim_host host;
static struct checker *checker;
static struct workload wl;

static void host_once(void)
{
    static bool done;

    if (!done) {
        sim_host_init(&host, 8 << 20, WL_MAX_CTX, 512);
        checker = checker_new();
        done = true;
    }
}

static bool run_seed(uint64_t seed, enum check_mutation mut, bool verbose,
                     struct check_result *r)
{
    struct check_opts o = { .verbose = verbose, .mutation = mut,
                            .hws = opt.hws };

    host_once();
    wl_generate(&wl, seed);
    return checker_run(checker, &host, &wl, &o, r);
}

static void report_failure(uint64_t seed, const struct check_result *r)
{
    printf("# seed %" PRIu64 " FAILED: %s\n", seed, r->msg);
    wl_describe(&wl, stdout);
    printf("# reproduce: %s --seed=%" PRIu64 "%s --verbose\n", opt.argv0,
           seed, opt.hws ? " --hws" : "");
    fflush(stdout);
}

static void test_seeds(gconstpointer data)
{
    uint64_t first = ((const uint64_t *)data)[0];
    uint64_t count = ((const uint64_t *)data)[1];
    unsigned failed = 0;
    /* what the seeds exercised, so a reader can see the coverage */
    unsigned preempting = 0, resetting = 0, escalating = 0, losing = 0,
             boosting = 0, losing_devices = 0;
    uint64_t with_device = 0, device_bufs = 0, ran_after = 0, held = 0;
    uint64_t events = 0, buffers = 0;

    for (uint64_t s = first; s < first + count; s++) {
        struct check_result r;

        if (!run_seed(s, MUT_NONE, false, &r)) {
            report_failure(s, &r);
            failed++;
        }
        preempting += r.preemptions > 0;
        resetting += r.resets > 0;
        escalating += r.device_resets > 0;
        losing += r.lost > 0;
        boosting += r.boosts > 0;
        losing_devices += r.lost_with_device > 0;
        with_device += r.lost_with_device;
        device_bufs += r.device_bufs_lost;
        ran_after += r.device_ran_after;
        held += r.device_held_lost;
        events += r.events;
        buffers += r.buffers;
    }
    g_test_message("%" PRIu64 " workloads, %" PRIu64 " buffers, %" PRIu64
                   " events; with preemptions %u, engine resets %u, device "
                   "resets %u, contexts lost %u, aging boosts %u", count,
                   buffers, events, preempting, resetting, escalating,
                   losing, boosting);
    g_test_message("lost devices: in %u workloads, %" PRIu64 " contexts lost "
                   "with another of their device, %" PRIu64 " of their "
                   "buffers reported lost (%" PRIu64 " held by a GPU wait), "
                   "%" PRIu64 " started after the loss (on a ring then)",
                   losing_devices, with_device, device_bufs, held,
                   ran_after);
    /* make check's chunks must meet the lost-device rule, not pass it by */
    if (count >= 100 && (!with_device || !device_bufs || !held ||
                         (opt.hws && !ran_after))) {
        g_test_message("no context was lost with its device (or, hws, none "
                       "ran out its queue after): the lost-device property "
                       "was not exercised");
        failed++;
    }
    if (failed) {
        g_test_fail();
    }
}

/* ---- the checkers can fail ---- */

/* The message of the last run first_caught* rejected. */
static char caught_msg[sizeof(((struct check_result *)0)->msg)];

/* The first seed in [0, n) whose run the mutated checker rejects. */
static int64_t first_caught(enum check_mutation mut, unsigned n,
                            enum vidsch_policy policy)
{
    for (uint64_t s = 0; s < n; s++) {
        struct check_result r;
        struct check_opts o = { .mutation = mut };

        host_once();
        wl_generate(&wl, s);
        if (wl.vs.policy != policy) {
            continue;
        }
        if (!checker_run(checker, &host, &wl, &o, &r)) {
            g_test_message("mutation %d caught on seed %" PRIu64 ": %s",
                           mut, s, r.msg);
            memcpy(caught_msg, r.msg, sizeof(caught_msg));
            return (int64_t)s;
        }
    }
    return -1;
}

static void test_meta_strict_fifo(void)
{
    /* fifo ignores priorities: judged by the priority rules it fails */
    g_assert_cmpint(first_caught(MUT_STRICT_FIFO, 400, VIDSCH_POLICY_FIFO),
                    >=, 0);
}

static void test_meta_forget_triggers(void)
{
    g_assert_cmpint(first_caught(MUT_FORGET_TRIGGERS, 400,
                                 VIDSCH_POLICY_QUANTUM), >=, 0);
}

static void test_meta_drop_done(void)
{
    g_assert_cmpint(first_caught(MUT_DROP_DONE, 10, VIDSCH_POLICY_QUANTUM),
                    >=, 0);
}

/* vidsch told nothing about devices: a faulting context is lost alone,
 * its siblings run on (and its held one is released by its signal) */
static void test_meta_no_devices(void)
{
    g_assert_cmpint(first_caught(MUT_NO_DEVICES, 400, VIDSCH_POLICY_QUANTUM),
                    >=, 0);
    g_assert_nonnull(strstr(caught_msg, "device"));
}

static void test_meta_corrupt_memory(void)
{
    g_assert_cmpint(first_caught(MUT_CORRUPT_MEMORY, 10,
                                 VIDSCH_POLICY_QUANTUM), >=, 0);
}

/* A REALTIME context saturates the engine; an IDLE one wants 100 us. */
static void starving_workload(struct workload *w, enum vidsch_policy policy)
{
    wl_generate(w, 1);
    w->gpu.engines = 1;
    w->gpu.preemption = COPRO_PREEMPT_MID_COMMAND;
    w->gpu.upcall_ns = 0;
    w->vs.policy = policy;
    w->vs.quantum_ns = 1 * MS;
    w->vs.aging_ns = 10 * MS;
    w->prep_ns = 10000;
    w->prep_jitter_ns = 0;
    w->nctx = 2;
    w->ctx[0] = (struct wl_ctx){ .engine = 0, .prio = VIDSCH_PRIO_REALTIME };
    w->ctx[1] = (struct wl_ctx){ .engine = 0, .prio = VIDSCH_PRIO_IDLE };
    w->nbuf = 41;
    w->nop = 0;
    w->nsync = w->nwait = w->nhang = w->nfault = w->npaging = 0;
    for (unsigned i = 0; i < w->nbuf; i++) {
        struct wl_buf *b = &w->buf[i];

        *b = (struct wl_buf){ .ctx = i < 40 ? 0 : 1, .npkt = 1,
                              .hang_pkt = -1, .fault_pkt = -1,
                              .check_bytes = 64 };
        b->pkt[0] = (struct wl_pkt){ .op = COPRO_OP_WORK,
                                     .arg = i < 40 ? 2 * MS : 100000 };
        w->op[w->nop++] = (struct wl_op){ .at = i < 40 ? 0 : 1 * MS,
                                          .kind = WL_SUBMIT,
                                          .ctx = (uint16_t)b->ctx,
                                          .buf = (uint16_t)i };
    }
    w->max_buf_ns = wl_buf_ns(w, &w->buf[0]);
    w->max_pkt_ns = wl_pkt_ns(w, &w->buf[0].pkt[0]);
}

static void test_meta_starvation(void)
{
    struct check_opts o = { 0 };
    struct check_result r;

    host_once();
    /* quantum: the IDLE context is boosted after aging_ns and runs */
    starving_workload(&wl, VIDSCH_POLICY_QUANTUM);
    g_assert_true(checker_run(checker, &host, &wl, &o, &r));
    g_assert_cmpuint(r.boosts, >=, 1);
    /* priority has no aging: judged for starvation, it fails */
    starving_workload(&wl, VIDSCH_POLICY_PRIORITY);
    g_assert_true(checker_run(checker, &host, &wl, &o, &r));
    o.mutation = MUT_STARVE_PRIORITY;
    g_assert_false(checker_run(checker, &host, &wl, &o, &r));
    g_assert_nonnull(strstr(r.msg, "starved"));
}

/*
 * Issue 26 item 6: a NORMAL process starts a fresh context at every
 * vsync and gives it one long buffer (a tenth of the watchdog's limit
 * here, 1.9 s on the desktop); a NORMAL game submits a 1 ms frame at
 * every vsync. Each long buffer is a context's only one: elected while
 * the previous one runs, it goes on the ring behind it, and its context
 * is then in no ready list. Round robin must still see it: the head's
 * turn ends after a quantum, and the game gets a turn among them.
 */
#define RR_VSYNC    16666667ull
#define RR_LONGS    20
#define RR_FRAMES   40

static void fresh_contexts_workload(struct workload *w)
{
    wl_generate(w, 2);
    w->gpu.engines = 1;
    w->gpu.preemption = COPRO_PREEMPT_MID_COMMAND;
    w->gpu.upcall_ns = 0;
    w->vs.policy = VIDSCH_POLICY_QUANTUM;
    w->vs.quantum_ns = 2 * MS;
    w->vs.aging_ns = 100 * MS;
    w->vs.ring_depth = 0;
    w->vs.tdr_timeout_ns = 2000 * MS;
    w->prep_ns = 10000;
    w->prep_jitter_ns = 0;
    w->nctx = 1 + RR_LONGS;
    w->nbuf = RR_FRAMES + RR_LONGS;
    w->nop = 0;
    w->nsync = w->nwait = w->nhang = w->nfault = w->npaging = 0;
    for (unsigned i = 0; i < w->nctx; i++) {
        w->ctx[i] = (struct wl_ctx){ .engine = 0,
                                     .prio = VIDSCH_PRIO_NORMAL };
    }
    for (unsigned i = 0; i < w->nbuf; i++) {
        struct wl_buf *b = &w->buf[i];
        bool frame = i < RR_FRAMES;
        unsigned n = frame ? i : i - RR_FRAMES;

        *b = (struct wl_buf){ .ctx = frame ? 0 : (uint16_t)(1 + n),
                              .npkt = 1, .hang_pkt = -1, .fault_pkt = -1,
                              .check_bytes = 64 };
        b->pkt[0] = (struct wl_pkt){ .op = COPRO_OP_WORK,
                                     .arg = frame ? 1 * MS : 190 * MS };
        w->op[w->nop++] = (struct wl_op){ .at = n * RR_VSYNC + (frame ? 1 : 0),
                                          .kind = WL_SUBMIT,
                                          .ctx = b->ctx,
                                          .buf = (uint16_t)i };
    }
    /* in time order */
    for (unsigned i = 1; i < w->nop; i++) {
        for (unsigned j = i; j > 0 && w->op[j - 1].at > w->op[j].at; j--) {
            struct wl_op t = w->op[j];

            w->op[j] = w->op[j - 1];
            w->op[j - 1] = t;
        }
    }
    w->max_buf_ns = wl_buf_ns(w, &w->buf[RR_FRAMES]);
    w->max_pkt_ns = wl_pkt_ns(w, &w->buf[RR_FRAMES].pkt[0]);
}

static void test_round_robin_fresh_contexts(void)
{
    struct check_opts o = { .verbose = getenv("RR_VERBOSE") != NULL };
    struct check_result r;

    host_once();
    fresh_contexts_workload(&wl);
    if (!checker_run(checker, &host, &wl, &o, &r)) {
        g_test_message("%s", r.msg);
    }
    g_assert_true(r.ok);
}

/* The turn rule can fail: the priority policy has no turns (a peer's
 * long buffer runs to its end), and judged by the quantum's rule it
 * fails on the same workload. */
static void test_meta_turns(void)
{
    struct check_opts o = { .mutation = MUT_TURNS_PRIORITY };
    struct check_result r;

    host_once();
    fresh_contexts_workload(&wl);
    wl.vs.policy = VIDSCH_POLICY_PRIORITY;
    g_assert_false(checker_run(checker, &host, &wl, &o, &r));
    g_assert_nonnull(strstr(r.msg, "while ctx"));
    o.mutation = MUT_NONE;
    g_assert_true(checker_run(checker, &host, &wl, &o, &r));
}

/* ---- the same in hardware mode ---- */

/* The first seed in [0, n) whose hardware-mode run the mutated checker
 * (or device) rejects. */
static int64_t first_caught_hws(enum check_mutation mut, unsigned n)
{
    for (uint64_t s = 0; s < n; s++) {
        struct check_result r;
        struct check_opts o = { .mutation = mut, .hws = true };

        host_once();
        wl_generate(&wl, s);
        if (!checker_run(checker, &host, &wl, &o, &r)) {
            g_test_message("hws mutation %d caught on seed %" PRIu64 ": %s",
                           mut, s, r.msg);
            memcpy(caught_msg, r.msg, sizeof(caught_msg));
            return (int64_t)s;
        }
    }
    return -1;
}

/* a device that ignores bands runs lower ones before higher ones */
static void test_meta_hws_bands(void)
{
    g_assert_cmpint(first_caught_hws(MUT_HWS_FLAT_BANDS, 400), >=, 0);
}

/* a hang or fault the checker does not see: the queue's loss looks like
 * blame of an innocent */
static void test_meta_hws_blame(void)
{
    g_assert_cmpint(first_caught_hws(MUT_FORGET_TRIGGERS, 400), >=, 0);
}

static void test_meta_hws_drop_done(void)
{
    g_assert_cmpint(first_caught_hws(MUT_DROP_DONE, 10), >=, 0);
}

static void test_meta_hws_no_devices(void)
{
    g_assert_cmpint(first_caught_hws(MUT_NO_DEVICES, 400), >=, 0);
    g_assert_nonnull(strstr(caught_msg, "device"));
}

/*
 * Issue 26 item 13: a healthy buffer longer than the watchdog's limit,
 * in hardware mode. The watchdog lists its queue suspended once it has
 * retired nothing for tdr_timeout_ns; the device switches it out (it
 * yields: not hung), and it must be listed again and run to its end,
 * however many times that takes. Alone on the engine, and beside a
 * game's frames.
 */
static void long_healthy_workload(struct workload *w, bool with_game)
{
    wl_generate(w, 0);              /* even: the quantum policy */
    w->gpu.engines = 1;
    w->gpu.preemption = COPRO_PREEMPT_MID_COMMAND;
    w->vs.tdr_timeout_ns = 25 * MS;
    /* the device's patience: a hung queue is reset 525 ms after its
     * suspension; a healthy one must not wait for that */
    w->vs.tdr_grace_ns = 500 * MS;
    w->prep_ns = 10000;
    w->prep_jitter_ns = 0;
    w->nctx = with_game ? 2 : 1;
    w->ctx[0] = (struct wl_ctx){ .engine = 0, .prio = VIDSCH_PRIO_NORMAL };
    w->ctx[1] = (struct wl_ctx){ .engine = 0, .prio = VIDSCH_PRIO_HIGH };
    w->nbuf = with_game ? 11 : 1;
    w->nop = 0;
    w->nsync = w->nwait = w->nhang = w->nfault = w->npaging = 0;
    for (unsigned i = 0; i < w->nbuf; i++) {
        struct wl_buf *b = &w->buf[i];

        *b = (struct wl_buf){ .ctx = i ? 1 : 0, .npkt = 4,
                              .hang_pkt = -1, .fault_pkt = -1,
                              .check_bytes = 64 };
        for (unsigned p = 0; p < b->npkt; p++) {
            /* 4 x 30 ms: 120 ms, nearly five watchdog limits */
            b->pkt[p] = (struct wl_pkt){ .op = COPRO_OP_WORK,
                                         .arg = i ? 250000 : 30 * MS };
        }
        w->op[w->nop++] = (struct wl_op){ .at = i ? i * 16 * MS : 0,
                                          .kind = WL_SUBMIT,
                                          .ctx = b->ctx,
                                          .buf = (uint16_t)i };
    }
    w->max_buf_ns = wl_buf_ns(w, &w->buf[0]);
    w->max_pkt_ns = wl_pkt_ns(w, &w->buf[0].pkt[0]);
}

static void test_hws_long_healthy(void)
{
    struct check_opts o = { .hws = true,
                            .verbose = getenv("LH_VERBOSE") != NULL,
                            .limit_ns = 2000 * MS };
    struct check_result r;

    host_once();
    for (unsigned game = 0; game < 2; game++) {
        long_healthy_workload(&wl, game);
        if (!checker_run(checker, &host, &wl, &o, &r)) {
            g_test_message("%s: %s", game ? "with a game" : "alone", r.msg);
        }
        g_assert_true(r.ok);
        g_assert_cmpuint(r.lost, ==, 0);
        /* 120 ms of work, suspended every 25 ms: done within twice
         * that (it was 2.8 s: 25 ms run in every 2 x 25 + 500 + 33) */
        g_test_message("%s: done at %" PRIu64 " us", game ? "with a game"
                       : "alone", r.last_retired_ns / 1000);
        g_assert_cmpuint(r.last_retired_ns, <, 240 * MS);
    }
}

/* A NORMAL context saturates the engine; an IDLE one wants 100 us: the
 * device's share (LOW_SHARE) runs it within a frame or two; without the
 * share it starves. */
static void test_meta_hws_share(void)
{
    struct check_opts o = { .hws = true };
    struct check_result r;

    host_once();
    starving_workload(&wl, VIDSCH_POLICY_QUANTUM);
    wl.seed = 0;                /* even: the quantum policy */
    wl.ctx[0].prio = VIDSCH_PRIO_NORMAL;
    g_assert_true(checker_run(checker, &host, &wl, &o, &r));
    o.mutation = MUT_HWS_NO_SHARE;
    o.verbose = getenv("META_VERBOSE") != NULL;
    g_assert_false(checker_run(checker, &host, &wl, &o, &r));
    g_assert_nonnull(strstr(r.msg, "starved"));
}

/*
 * Seeds that `make soak` (software scheduling) found failing, kept here so
 * that `make check` replays them: wasted preemptions (a head cut whose
 * context ran next: a higher head, a peer in its turn, a level lent down
 * a chain of loans, a loan taken back after the request) and lower
 * buffers starting behind a context raised after they were queued. Run
 * in sim-props-0.
 */
static const uint64_t soak_seeds[] = {
    19607, 34788, 50234, 51662, 59058, 71264, 73678, 73735, 76178, 76372,
    85493, 86855, 103733, 129801, 130868, 134664, 137641, 138857, 144537,
    147663, 165375, 177473, 188829, 199450,
};

static void test_soak_seeds(void)
{
    unsigned failed = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(soak_seeds); i++) {
        struct check_result r;

        if (!run_seed(soak_seeds[i], MUT_NONE, false, &r)) {
            report_failure(soak_seeds[i], &r);
            failed++;
        }
    }
    g_assert_cmpuint(failed, ==, 0);
}

int main(int argc, char **argv)
{
    sim_seeds_parse(&opt, &argc, &argv, true);
    if (opt.have_seed) {
        struct check_result r;
        bool ok = run_seed(opt.seed, MUT_NONE, opt.verbose, &r);

        wl_describe(&wl, stdout);
        printf("# seed %" PRIu64 ": %s (%" PRIu64 " events, %" PRIu64
               " us virtual, %u lost, %u preemptions, %u resets, "
               "%u device resets, %u boosts, %u lost with their device)\n",
               opt.seed, ok ? "ok" : r.msg, r.events, r.end_ns / 1000, r.lost,
               r.preemptions, r.resets, r.device_resets, r.boosts,
               r.lost_with_device);
        return ok ? 0 : 1;
    }
    g_test_init(&argc, &argv, NULL);
    sim_seeds_add_cases(&opt, "sim-props", test_seeds);
    if (!opt.meta && !opt.hws && opt.first == 0 && opt.count) {
        g_test_add_func("/sim-props/soak-seeds", test_soak_seeds);
    }
    if (opt.meta && opt.hws) {
        g_test_add_func("/sim-props/meta-hws/share", test_meta_hws_share);
        g_test_add_func("/sim-props/hws/long-healthy-buffer",
                        test_hws_long_healthy);
        g_test_add_func("/sim-props/meta-hws/bands", test_meta_hws_bands);
        g_test_add_func("/sim-props/meta-hws/blame", test_meta_hws_blame);
        g_test_add_func("/sim-props/meta-hws/drop-done",
                        test_meta_hws_drop_done);
        g_test_add_func("/sim-props/meta-hws/no-devices",
                        test_meta_hws_no_devices);
    } else if (opt.meta) {
        g_test_add_func("/sim-props/meta/starvation", test_meta_starvation);
        g_test_add_func("/sim-props/meta/turns", test_meta_turns);
        g_test_add_func("/sim-props/round-robin/fresh-contexts",
                        test_round_robin_fresh_contexts);
        g_test_add_func("/sim-props/meta/strict-fifo",
                        test_meta_strict_fifo);
        g_test_add_func("/sim-props/meta/forget-triggers",
                        test_meta_forget_triggers);
        g_test_add_func("/sim-props/meta/drop-done", test_meta_drop_done);
        g_test_add_func("/sim-props/meta/corrupt-memory",
                        test_meta_corrupt_memory);
        g_test_add_func("/sim-props/meta/no-devices", test_meta_no_devices);
    }
    return g_test_run();
}
