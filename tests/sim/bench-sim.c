/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scheduler figures on the GPU model (make bench), in virtual time:
 *
 *  fairness   8 NORMAL contexts, each keeping 4 buffers in flight, of
 *             different lengths (context i: (i + 1) x 250 us of WORK);
 *             Jain's index of the GPU time each got (the model's
 *             per-context busy time) over 2 s, per policy. 1 is perfectly
 *             fair; n contexts sharing by buffer count instead of time
 *             give (sum l)^2 / (n sum l^2) = 0.79 here.
 *  overlap    2 contexts keeping the engine busy with 500 us buffers,
 *             each needing prep_us of preparation on the worker; the GPU
 *             busy fraction with the worker preparing the next buffer
 *             while the current runs, and with serial_prepare (prepare
 *             only once the engine is idle), per preparation cost.
 *
 *  desktop    a compositor (HIGH, 1.5 ms every 16.7 ms), a cursor
 *             (REALTIME, 50 us every frame), a game (NORMAL, 6 ms frames
 *             back to back) and a hog (IDLE, one 1 s buffer) for 2 s per
 *             policy: frames, deadline misses (a frame not done by the
 *             next vsync), submit-to-done latency, GPU time, boosts.
 *
 *   bench-sim [fairness|overlap|desktop]   (all by default)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_host.h"

#define US  1000ull
#define MS  1000000ull

#define MAX_CTX     8
#define IN_FLIGHT   4

struct app {
    struct vidsch_ctx *ctx;
    struct ddi_dmabuf buf[IN_FLIGHT];
};

struct run {
    struct sim_host *h;
    struct app app[MAX_CTX];
    unsigned napp;
    uint64_t until;             /* stop resubmitting after */
};

static struct run R;

/* closed loop: a finished buffer is submitted again at once */
static void on_done(void *arg, uint64_t cookie, int status)
{
    struct app *a = &R.app[cookie / IN_FLIGHT];

    (void)arg;
    if (status == DDI_OK && R.h->clk.now < R.until) {
        vidsch_submit(R.h->vs, a->ctx, &a->buf[cookie % IN_FLIGHT], NULL,
                      cookie);
    }
}

static void build(struct sim_host *h, struct ddi_dmabuf *b, uint64_t work_ns)
{
    uint64_t at = sim_gpu_alloc(h->gpu, 64, 64);
    uint32_t *dw = sim_gpu_ptr(h->gpu, at);
    unsigned n = sim_emit_work(dw, 0, work_ns);

    *b = (struct ddi_dmabuf){ .dw = dw, .gpu_addr = at, .cap_bytes = 64,
                              .len_bytes = n * 4, .engine = 0 };
}

/* Runs napp closed-loop apps with buffers of work_ns[i] for duration;
 * returns each context's GPU time in busy[] and the engine's. */
static uint64_t run(struct sim_host *h, const struct vidsch_config *cfg_in,
                    unsigned napp, const uint64_t *work_ns, uint64_t prep_ns,
                    uint64_t duration, uint64_t *busy)
{
    static const struct sim_host_hooks hooks = { .buffer_done = on_done };
    struct vidsch_config c = *cfg_in, *cfg = &c;
    struct sim_gpu_config g;

    c.max_contexts = MAX_CTX;
    c.max_buffers = MAX_CTX * IN_FLIGHT;
    sim_gpu_config_default(&g);
    g.engines = 1;
    g.mem_size = 1 << 20;
    memset(&R, 0, sizeof(R));
    R.h = h;
    R.napp = napp;
    R.until = duration;
    sim_host_start(h, &g, cfg, prep_ns, 0, 1, &hooks, NULL);
    for (unsigned i = 0; i < napp; i++) {
        struct app *a = &R.app[i];

        a->ctx = vidsch_ctx_create(h->vs, i + 1, 0, VIDSCH_PRIO_NORMAL,
                                   sim_gpu_alloc(h->gpu, COPRO_SAVE_SIZE,
                                                 64));
        for (unsigned k = 0; k < IN_FLIGHT; k++) {
            build(h, &a->buf[k], work_ns[i]);
            vidsch_submit(h->vs, a->ctx, &a->buf[k], NULL,
                          i * IN_FLIGHT + k);
        }
    }
    /* measure the steady state: up to duration, not the drain after */
    sim_host_run(h, duration);
    for (unsigned i = 0; i < napp; i++) {
        busy[i] = h->gpu->ctx_busy_ns[i + 1];
    }
    return h->gpu->engine[0].busy_ns;
}

static double jain(const uint64_t *x, unsigned n)
{
    double sum = 0, sq = 0;

    for (unsigned i = 0; i < n; i++) {
        sum += (double)x[i];
        sq += (double)x[i] * (double)x[i];
    }
    return sq ? sum * sum / (n * sq) : 0;
}

static void fairness(struct sim_host *h)
{
    static const enum vidsch_policy pol[] = {
        VIDSCH_POLICY_FIFO, VIDSCH_POLICY_PRIORITY, VIDSCH_POLICY_QUANTUM,
    };
    uint64_t work[MAX_CTX];

    for (unsigned i = 0; i < MAX_CTX; i++) {
        work[i] = (i + 1) * 250 * US;
    }
    printf("%-9s %7s  %s\n", "policy", "jain", "GPU ms per context "
           "(buffers of 0.25 .. 2 ms), 2 s, mid-command, prep 20 us");
    for (unsigned p = 0; p < 3; p++) {
        struct vidsch_config cfg;
        uint64_t busy[MAX_CTX];

        vidsch_config_default(&cfg);
        cfg.policy = pol[p];
        run(h, &cfg, MAX_CTX, work, 20 * US, 2000 * MS, busy);
        printf("%-9s %7.4f ", vidsch_policy_name(pol[p]),
               jain(busy, MAX_CTX));
        for (unsigned i = 0; i < MAX_CTX; i++) {
            printf(" %5.1f", (double)busy[i] / MS);
        }
        printf("\n");
    }
}

static void overlap(struct sim_host *h)
{
    static const uint64_t prep_us[] = { 50, 200, 400, 600 };
    uint64_t work[2] = { 500 * US, 500 * US };

    printf("%-8s %10s %10s   (GPU busy fraction, 2 contexts x 4 buffers of "
           "500 us, 1 s)\n", "prep_us", "overlapped", "serial");
    for (unsigned i = 0; i < 4; i++) {
        double frac[2];

        for (unsigned serial = 0; serial < 2; serial++) {
            struct vidsch_config cfg;
            uint64_t busy[2], dur = 1000 * MS;

            vidsch_config_default(&cfg);
            cfg.serial_prepare = serial;
            frac[serial] = (double)run(h, &cfg, 2, work, prep_us[i] * US,
                                       dur, busy) / dur;
        }
        printf("%-8" PRIu64 " %9.2f%% %9.2f%%\n", prep_us[i],
               100 * frac[0], 100 * frac[1]);
    }
}

/* ---- desktop: periodic compositor and cursor over a game and a hog ---- */

#define FRAME_NS    16666667ull

enum { COMPOSITOR, CURSOR, GAME, HOG, NDESK };

static const struct {
    const char *name;
    enum vidsch_priority prio;
    uint64_t work_ns;
    uint64_t offset_ns;         /* periodic apps: submit at offset + k frames */
    bool periodic;
} desk[NDESK] = {
    [COMPOSITOR] = { "compositor", VIDSCH_PRIO_HIGH, 1500 * US, 0, true },
    [CURSOR] = { "cursor", VIDSCH_PRIO_REALTIME, 50 * US, 1 * MS, true },
    [GAME] = { "game", VIDSCH_PRIO_NORMAL, 6 * MS, 0, false },
    [HOG] = { "hog", VIDSCH_PRIO_IDLE, 1000 * MS, 0, false },
};

static struct {
    struct vidsch_ctx *ctx[NDESK];
    struct ddi_dmabuf buf[NDESK][2];
    uint64_t submitted[NDESK][2];
    unsigned frames[NDESK], misses[NDESK];
    bool busy[NDESK];                   /* periodic: a frame in flight */
    uint64_t lat_max[NDESK], lat_sum[NDESK];
    uint64_t until;
    struct sim_host *h;
} D;

static void desk_done(void *arg, uint64_t cookie, int status)
{
    unsigned a = (unsigned)(cookie / 2), k = (unsigned)(cookie % 2);
    uint64_t now = D.h->clk.now, lat = now - D.submitted[a][k];

    (void)arg;
    if (status != DDI_OK) {
        return;
    }
    D.frames[a]++;
    D.lat_sum[a] += lat;
    if (lat > D.lat_max[a]) {
        D.lat_max[a] = lat;
    }
    if (desk[a].periodic) {
        D.busy[a] = false;
    } else if (a == GAME && now < D.until) {
        D.submitted[a][k] = now;
        vidsch_submit(D.h->vs, D.ctx[a], &D.buf[a][k], NULL, cookie);
    }
}

/* A periodic app's vsync: its previous frame must be done by now (else
 * a deadline miss, and this frame is skipped); then the next one. */
static void desk_tick(void *obj, uint64_t a)
{
    struct sim_host *h = obj;

    if (h->clk.now >= D.until) {
        return;
    }
    if (D.busy[a]) {
        D.misses[a]++;
    } else {
        D.busy[a] = true;
        D.submitted[a][0] = h->clk.now;
        vidsch_submit(h->vs, D.ctx[a], &D.buf[a][0], NULL, a * 2);
    }
    sim_at(&h->clk, h->clk.now + FRAME_NS, desk_tick, h, a);
}

static void desk_trace(void *arg, const struct vidsch_trace *ev)
{
    static const char *const names[] = {
        "ELECT", "PREPARED", "UNSTAGE", "SUBMIT", "RETIRE", "PREEMPT",
        "PREEMPTED", "RESET", "DEVICE_RESET", "LOST", "BOOST", "UNBOOST",
        "HOLD", "RELEASE", "PREPARE",
    };

    (void)arg;
    fprintf(stderr, "%12" PRIu64 " %-10s ctx %u cookie %" PRIu64 " fence %"
            PRIu64 " level %u reason %u\n", ev->time, names[ev->kind],
            ev->context, ev->cookie, ev->fence, ev->level, ev->reason);
}

static void desktop(struct sim_host *h)
{
    static const enum vidsch_policy pol[] = {
        VIDSCH_POLICY_FIFO, VIDSCH_POLICY_PRIORITY, VIDSCH_POLICY_QUANTUM,
    };
    struct sim_host_hooks hooks = { .buffer_done = desk_done };

    if (getenv("BENCH_SIM_TRACE")) {
        hooks.trace = desk_trace;   /* every decision, on stderr */
    }

    printf("%-9s %-11s %7s %7s %10s %10s %9s %7s   (2 s, mid-command, "
           "prep 20 us)\n", "policy", "app", "frames", "misses", "lat mean",
           "lat max", "GPU ms", "boosts");
    for (unsigned p = 0; p < 3; p++) {
        struct vidsch_config cfg;
        struct sim_gpu_config g;

        vidsch_config_default(&cfg);
        cfg.policy = pol[p];
        cfg.max_contexts = MAX_CTX;
        cfg.max_buffers = MAX_CTX * IN_FLIGHT;
        sim_gpu_config_default(&g);
        g.engines = 1;
        g.mem_size = 1 << 20;
        memset(&D, 0, sizeof(D));
        D.h = h;
        D.until = 2000 * MS;
        sim_host_start(h, &g, &cfg, 20 * US, 0, 1, &hooks, NULL);
        for (unsigned a = 0; a < NDESK; a++) {
            D.ctx[a] = vidsch_ctx_create(h->vs, a + 1, 0, desk[a].prio,
                                         sim_gpu_alloc(h->gpu,
                                                       COPRO_SAVE_SIZE, 64));
            for (unsigned k = 0; k < 2; k++) {
                build(h, &D.buf[a][k], desk[a].work_ns);
            }
            if (desk[a].periodic) {
                sim_at(&h->clk, desk[a].offset_ns, desk_tick, h, a);
            } else {
                for (unsigned k = 0; k < (a == GAME ? 2u : 1u); k++) {
                    vidsch_submit(h->vs, D.ctx[a], &D.buf[a][k], NULL,
                                  a * 2 + k);
                }
            }
        }
        sim_host_run(h, D.until);
        for (unsigned a = 0; a < NDESK; a++) {
            printf("%-9s %-11s %7u %7u %8.2fms %8.2fms %9.1f %7" PRIu64 "\n",
                   a ? "" : vidsch_policy_name(pol[p]), desk[a].name,
                   D.frames[a], D.misses[a],
                   D.frames[a] ? (double)D.lat_sum[a] / D.frames[a] / MS
                               : 0.0,
                   (double)D.lat_max[a] / MS,
                   (double)h->gpu->ctx_busy_ns[a + 1] / MS,
                   vidsch_ctx_stats(D.ctx[a])->boosts);
        }
    }
}

int main(int argc, char **argv)
{
    struct sim_host h;
    bool all = argc < 2;

    sim_host_init(&h, 1 << 20, MAX_CTX, MAX_CTX * IN_FLIGHT);
    if (all || !strcmp(argv[1], "fairness")) {
        fairness(&h);
    }
    if (all || !strcmp(argv[1], "overlap")) {
        overlap(&h);
    }
    if (all || !strcmp(argv[1], "desktop")) {
        desktop(&h);
    }
    sim_host_fini(&h);
    return 0;
}
