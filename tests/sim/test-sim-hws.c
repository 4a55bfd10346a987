/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model of the device's scheduler (tests/sim/sim_hws.c) against
 * docs/specs/copro.rst "Parameter buffer full on a queue": a hardware
 * queue whose geometry fills its parameter buffer goes to OOM_WAIT (off
 * the engine, the other queues run, no preemption timeout), is reported
 * once (queue_oom) with a TILER_OOM log entry, and is answered per queue:
 * RESUME (runs again, from its save area), FAIL (ERROR TILER_OOM, the
 * stopped submission its error fence); an answer to a queue not waiting
 * or not mapped is refused and changes nothing. The same facts the qtest
 * checks on the device (tests/qtest/copro-tiler-test.c).
 */
#include <glib.h>
#include <string.h>

#include "sim_hws.h"

#define US  1000ull
#define MS  1000000ull

#define W       128
#define H       64
#define TILES   8
#define HEAP    192u

struct rec {
    struct sim_clock clk;
    struct sim_gpu *g;
    struct sim_hws h;
    uint64_t completed[COPRO_HWQ_MAX];
    struct { uint32_t queue; struct ddi_hwq_oom oom; } oom[8];
    unsigned noom;
    struct { uint32_t queue; struct ddi_hwq_error err; } err[8];
    unsigned nerr;
    struct copro_sched_log_entry log[256];
    unsigned nlog;
    unsigned resumed_loads;     /* loads of the geometry with RESUME */
    uint64_t pb, save, geom, work, target;
    uint32_t geom_len, work_len;
    uint32_t q0, q1;            /* the scene's queue, another */
};

static void up_progress(void *os, const struct ddi_hwq_progress *p,
                        unsigned n)
{
    struct rec *r = os;

    for (unsigned i = 0; i < n; i++) {
        r->completed[p[i].queue] = p[i].completed;
    }
}

static void up_error(void *os, uint32_t queue, const struct ddi_hwq_error *e)
{
    struct rec *r = os;

    g_assert_cmpuint(r->nerr, <, G_N_ELEMENTS(r->err));
    r->err[r->nerr].queue = queue;
    r->err[r->nerr++].err = *e;
}

static void up_oom(void *os, uint32_t queue, const struct ddi_hwq_oom *oom)
{
    struct rec *r = os;

    g_assert_cmpuint(r->noom, <, G_N_ELEMENTS(r->oom));
    r->oom[r->noom].queue = queue;
    r->oom[r->noom++].oom = *oom;
}

static void up_log(void *os, const struct copro_sched_log_entry *ent,
                   unsigned n, uint32_t dropped)
{
    struct rec *r = os;

    g_assert_cmpuint(dropped, ==, 0);
    for (unsigned i = 0; i < n && r->nlog < G_N_ELEMENTS(r->log); i++) {
        r->log[r->nlog++] = ent[i];
    }
}

static const struct ddi_upcalls rec_up = {
    .queue_progress = up_progress, .queue_error = up_error,
    .sched_log = up_log, .queue_oom = up_oom,
};

static void obs_loaded(void *arg, unsigned engine,
                       const struct copro_submit_desc *d)
{
    struct rec *r = arg;

    (void)engine;
    if (d->dma_addr == r->geom && (d->flags & COPRO_SUBMIT_RESUME)) {
        r->resumed_loads++;
    }
}

static const struct sim_gpu_observer rec_obs = { .loaded = obs_loaded };

static void run_until(struct rec *r, uint64_t t)
{
    while (sim_step(&r->clk, t)) {
    }
    if (r->clk.now < t) {
        r->clk.now = t;
    }
}

static void commit(struct rec *r, bool with_q0, bool q0_suspended)
{
    struct ddi_runlist_entry ent[2] = {
        { .queue = r->q1, .band = COPRO_BAND_NORMAL,
          .quantum_ns = 2 * MS },
        { .queue = r->q0, .band = COPRO_BAND_NORMAL,
          .quantum_ns = 2 * MS, .suspended = q0_suspended },
    };

    g_assert_cmpint(sim_hws_ops.runlist_commit(r->g, 0, ent,
                                               with_q0 ? 2 : 1), ==, DDI_OK);
}

static int submit(struct rec *r, uint32_t q, uint64_t addr, uint32_t len,
                  uint64_t fence)
{
    struct ddi_submit_args a = {
        .dma_addr = addr, .dma_len = len, .fence = fence,
    };

    return sim_hws_ops.queue_submit(r->g, q, &a);
}

/* Two queues on engine 0; q0's geometry bins three rectangles into a
 * parameter buffer with room for two (it stops before the third, needing
 * 64 bytes); q1's buffer is plain work. q0's is submitted first. */
static void setup(struct rec *r)
{
    struct sim_gpu_config c;
    struct sim_hws_config hc;
    struct ddi_hwq_args qa = { .engine = 0, .completion_irq = true };
    uint32_t *dw;
    unsigned at = 0;

    memset(r, 0, sizeof(*r));
    sim_clock_init(&r->clk);
    sim_gpu_config_default(&c);
    c.engines = 3;
    c.tiler = true;
    c.tile_ns = 1 * US;
    c.mem_size = 8 << 20;
    c.upcall_ns = 0;
    c.preemption = COPRO_PREEMPT_MID_COMMAND;
    r->g = sim_gpu_create(&r->clk, &c);
    sim_hws_config_default(&hc);
    hc.upcall_ns = 2 * US;
    sim_hws_init(&r->h, r->g, &hc);
    sim_hws_connect(&r->h, &rec_up, r);
    sim_gpu_observe(r->g, &rec_obs, r);

    r->target = sim_gpu_alloc(r->g, W * H * 4, 64);
    r->pb = sim_gpu_alloc(r->g, 4096, 64);
    r->save = sim_gpu_alloc(r->g, COPRO_SAVE_SIZE, 64);
    r->geom = sim_gpu_alloc(r->g, 256, 64);
    dw = sim_gpu_ptr(r->g, r->geom);
    at = sim_emit_set_target(dw, at, 0, r->target, W * 4, W, H,
                             COPRO_FMT_XRGB8888);
    at = sim_emit_scene_begin(dw, at, COPRO_SCENE_CLEAR, r->pb,
                              HEAP + 96 + 40, 0);
    at = sim_emit_bin_rect(dw, at, 0, 0, W, H, 1);
    at = sim_emit_bin_rect(dw, at, 10, 10, 20, 20, 2);
    at = sim_emit_bin_rect(dw, at, 30, 30, 10, 10, 3);
    at = sim_emit_scene_end(dw, at);
    r->geom_len = at * 4;
    r->work = sim_gpu_alloc(r->g, 64, 64);
    r->work_len = 4 * sim_emit_work(sim_gpu_ptr(r->g, r->work), 0, 100 * US);

    qa.context = 1;
    qa.save_addr = r->save;
    g_assert_cmpint(sim_hws_ops.queue_create(r->g, &qa, &r->q0), ==, DDI_OK);
    qa.context = 2;
    qa.save_addr = sim_gpu_alloc(r->g, COPRO_SAVE_SIZE, 64);
    g_assert_cmpint(sim_hws_ops.queue_create(r->g, &qa, &r->q1), ==, DDI_OK);
    commit(r, true, false);
    g_assert_cmpint(submit(r, r->q0, r->geom, r->geom_len, 1), ==, DDI_OK);
    g_assert_cmpint(submit(r, r->q1, r->work, r->work_len, 1), ==, DDI_OK);
}

static void fini(struct rec *r)
{
    sim_gpu_destroy(r->g);
    sim_clock_fini(&r->clk);
}

static const struct copro_scene *hdr(struct rec *r)
{
    return sim_gpu_ptr(r->g, r->pb);
}

static unsigned log_count(const struct rec *r, unsigned kind, uint32_t queue)
{
    unsigned n = 0;

    for (unsigned i = 0; i < r->nlog; i++) {
        n += r->log[i].kind == kind && r->log[i].queue == queue;
    }
    return n;
}

/* Stopped, waiting, reported once; the other queue runs meanwhile. */
static void wait_for_oom(struct rec *r)
{
    run_until(r, 1 * MS);
    g_assert_cmpuint(r->noom, ==, 1);
    g_assert_cmpuint(r->oom[0].queue, ==, r->q0);
    g_assert_cmphex(r->oom[0].oom.scene, ==, r->pb);
    g_assert_cmpuint(r->oom[0].oom.need, ==, 64);
    g_assert_cmpuint(r->oom[0].oom.oom_fence, ==, 1);
    g_assert_cmpuint(r->oom[0].oom.completed, ==, 0);
    g_assert_cmpuint(r->h.q[r->q0].state, ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpint(r->h.eng[0].cur, !=, (int)r->q0);
    g_assert_cmpuint(hdr(r)->state, ==, COPRO_SCENE_OOM);
    /* q1 ran to its end while q0 waited */
    g_assert_cmpuint(r->completed[r->q1], ==, 1);
    g_assert_cmpuint(r->completed[r->q0], ==, 0);
    g_assert_cmpuint(r->h.stats.ran_while_waiting, >, 0);
}

static void test_oom_resume(void)
{
    struct rec r;

    setup(&r);
    wait_for_oom(&r);
    /* a waiting queue is not running: no preemption timeout, however
     * long the answer takes (frames pass: the log comes with them) */
    run_until(&r, 3 * COPRO_HWS_PREEMPT_TIMEOUT_DEFAULT + 20 * MS);
    g_assert_cmpuint(r.nerr, ==, 0);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(r.h.q[r.q0].state, ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpuint(log_count(&r, COPRO_SLOG_TILER_OOM, r.q0), ==, 1);
    g_assert_cmpuint(log_count(&r, COPRO_SLOG_PREEMPTED, r.q0), ==, 0);
    for (unsigned i = 0; i < r.nlog; i++) {
        if (r.log[i].kind == COPRO_SLOG_TILER_OOM) {
            g_assert_cmphex(r.log[i].arg0, ==, r.pb);
            g_assert_cmphex(r.log[i].arg1, ==, 64 | (1ull << 32));
        }
        if (r.log[i].kind == COPRO_SLOG_SWITCH_OUT &&
            r.log[i].queue == r.q0) {
            g_assert_cmpuint(r.log[i].arg1, ==, COPRO_SLOG_OUT_TILER_OOM);
        }
    }
    /* its ring keeps taking entries while it waits */
    g_assert_cmpint(submit(&r, r.q0, r.work, r.work_len, 2), ==, DDI_OK);
    /* refused: a queue not waiting, a slot out of range */
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q1, true), ==,
                    DDI_EINVAL);
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, COPRO_HWQ_MAX, true),
                    ==, DDI_EINVAL);
    g_assert_cmpuint(r.h.stats.oom_refused, ==, 2);
    g_assert_cmpuint(r.h.q[r.q0].state, ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpuint(r.h.q[r.q1].state, ==, COPRO_HWQ_STATE_IDLE);

    /* grown, resumed: it goes on from the primitive that did not fit */
    ((struct copro_scene *)sim_gpu_ptr(r.g, r.pb))->pb_size += 64;
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q0, true), ==,
                    DDI_OK);
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q0, true), ==,
                    DDI_EINVAL);   /* answered already */
    run_until(&r, r.clk.now + 1 * MS);
    g_assert_cmpuint(r.resumed_loads, ==, 1);
    g_assert_cmpuint(r.completed[r.q0], ==, 2);
    g_assert_cmpuint(hdr(&r)->state, ==, COPRO_SCENE_CLOSED);
    g_assert_cmpuint(hdr(&r)->prims, ==, 3);
    g_assert_cmpuint(hdr(&r)->ooms, ==, 1);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(r.nerr, ==, 0);
    run_until(&r, r.clk.now + 20 * MS);
    g_assert_cmpuint(log_count(&r, COPRO_SLOG_OOM_ANSWER, r.q0), ==, 1);
    g_assert_cmpuint(log_count(&r, COPRO_SLOG_ERROR, r.q1), ==, 1);
    fini(&r);
}

static void test_oom_fail(void)
{
    struct rec r;

    setup(&r);
    wait_for_oom(&r);
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q0, false), ==,
                    DDI_OK);
    run_until(&r, r.clk.now + 1 * MS);
    g_assert_cmpuint(r.nerr, ==, 1);
    g_assert_cmpuint(r.err[0].queue, ==, r.q0);
    g_assert_cmpuint(r.err[0].err.error, ==, COPRO_HWS_ERR_TILER_OOM);
    g_assert_cmpuint(r.err[0].err.error_fence, ==, 1);
    g_assert_cmpuint(r.h.q[r.q0].state, ==, COPRO_HWQ_STATE_ERROR);
    /* ERROR: refused again, its ring closed; the other queue runs on */
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q0, true), ==,
                    DDI_EINVAL);
    g_assert_cmpint(submit(&r, r.q0, r.work, r.work_len, 2), ==,
                    DDI_EINVAL);
    g_assert_cmpint(submit(&r, r.q1, r.work, r.work_len, 2), ==, DDI_OK);
    run_until(&r, r.clk.now + 1 * MS);
    g_assert_cmpuint(r.completed[r.q1], ==, 2);
    g_assert_cmpuint(r.nerr, ==, 1);
    fini(&r);
}

/* Unmapped by a run list that leaves it out, it keeps OOM_WAIT and an
 * answer to it is refused; listed again it is answered. Suspended, an
 * answer RESUME makes it SUSPENDED, not running. */
static void test_oom_unlisted_suspended(void)
{
    struct rec r;

    setup(&r);
    wait_for_oom(&r);
    commit(&r, false, false);
    g_assert_cmpuint(r.h.q[r.q0].state, ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q0, true), ==,
                    DDI_EINVAL);
    commit(&r, true, true);
    g_assert_cmpuint(r.h.q[r.q0].state, ==, COPRO_HWQ_STATE_OOM_WAIT);
    ((struct copro_scene *)sim_gpu_ptr(r.g, r.pb))->pb_size += 64;
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q0, true), ==,
                    DDI_OK);
    run_until(&r, r.clk.now + 1 * MS);
    g_assert_cmpuint(r.h.q[r.q0].state, ==, COPRO_HWQ_STATE_SUSPENDED);
    g_assert_cmpuint(r.resumed_loads, ==, 0);
    commit(&r, true, false);
    run_until(&r, r.clk.now + 1 * MS);
    g_assert_cmpuint(r.resumed_loads, ==, 1);
    g_assert_cmpuint(r.completed[r.q0], ==, 1);
    g_assert_cmpuint(hdr(&r)->state, ==, COPRO_SCENE_CLOSED);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(r.nerr, ==, 0);
    fini(&r);
}

/* --meta's broken device (oom_holds_engine): the waiting queue stays on
 * the engine and the other queue does not run until the answer. */
static void test_oom_holds_engine_mutation(void)
{
    struct rec r;

    setup(&r);
    r.h.cfg.oom_holds_engine = true;
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpint(r.h.eng[0].cur, ==, (int)r.q0);
    g_assert_cmpuint(r.completed[r.q1], ==, 0);
    ((struct copro_scene *)sim_gpu_ptr(r.g, r.pb))->pb_size += 64;
    g_assert_cmpint(sim_hws_ops.queue_oom_answer(r.g, r.q0, true), ==,
                    DDI_OK);
    run_until(&r, r.clk.now + 1 * MS);
    g_assert_cmpuint(r.completed[r.q0], ==, 1);
    g_assert_cmpuint(r.completed[r.q1], ==, 1);
    fini(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sim-hws/oom-resume", test_oom_resume);
    g_test_add_func("/sim-hws/oom-fail", test_oom_fail);
    g_test_add_func("/sim-hws/oom-unlisted-suspended",
                    test_oom_unlisted_suspended);
    g_test_add_func("/sim-hws/oom-holds-engine-mutation",
                    test_oom_holds_engine_mutation);
    return g_test_run();
}
