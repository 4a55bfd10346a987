/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduler's decision cost against the number of contexts (make
 * bench). Every context is NORMAL and always has work (the worst case
 * for a level's round robin); a scripted GPU retires the ring's oldest
 * entry each step and answers preemption requests at once, and each
 * retired buffer is submitted again by its application. One step is a
 * whole scheduling decision: retirement, quantum and aging checks,
 * election, preparation on the worker, ring write, and the resubmission.
 *
 *   bench-sched [--contexts=N] [--steps=N] [--reps=N]
 *
 * prints the minimum over reps of ns per step (a minimum is robust on a
 * shared machine: noise only adds). Under callgrind, the instructions of
 * measure() divided by --steps give a count independent of the machine
 * (scripts/bench-sched.sh does both).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vidsch/vidsch.h"

#define US  1000ull

struct bench {
    struct vidsch *s;
    uint64_t now, timer;
    unsigned work;
    uint64_t ring[256];             /* fences on the ring, oldest first */
    unsigned nring;
    uint64_t completed;
    uint64_t preempt_id;
    bool preempt_pending;
    struct vidsch_ctx **ctx;
    struct ddi_dmabuf *buf;         /* two per context */
    unsigned nctx;
};

static struct bench B;

static void caps(void *drv, struct ddi_caps *c)
{
    (void)drv;
    *c = (struct ddi_caps){ .engines = 1, .engine_ops = { 0x7ff },
                            .preemption = COPRO_PREEMPT_MID_COMMAND,
                            .ring_entries = 64, .max_dma_bytes = 1 << 24 };
}

static int patch(void *drv, struct ddi_dmabuf *b,
                 const struct ddi_alloc_desc *a, uint32_t f, uint32_t e)
{
    (void)drv; (void)b; (void)a; (void)f; (void)e;
    return DDI_OK;
}

static int submit(void *drv, const struct ddi_submit_args *a)
{
    (void)drv;
    B.ring[B.nring++] = a->fence;
    return DDI_OK;
}

static int preempt(void *drv, unsigned engine, uint64_t id)
{
    (void)drv;
    (void)engine;
    B.preempt_id = id;
    B.preempt_pending = true;
    return DDI_OK;
}

static int reset(void *drv, unsigned engine, struct ddi_reset_report *r)
{
    (void)drv;
    (void)engine;
    *r = (struct ddi_reset_report){ .completed_fence = B.completed };
    B.nring = 0;
    return DDI_OK;
}

static uint64_t gpu_time(void *drv)
{
    (void)drv;
    return B.now;
}

static const struct ddi_ops ops = {
    .query_caps = caps, .patch = patch, .submit = submit,
    .preempt = preempt, .reset_engine = reset, .gpu_time = gpu_time,
};

static uint64_t env_now(void *os)
{
    (void)os;
    return B.now;
}

static void env_timer(void *os, uint64_t when)
{
    (void)os;
    B.timer = when;
}

static void env_work(void *os)
{
    (void)os;
    B.work++;
}

/* the application submits its buffer again at once */
static void env_done(void *os, uint64_t cookie, int status)
{
    (void)os;
    if (status == DDI_OK) {
        vidsch_submit(B.s, B.ctx[cookie / 2], &B.buf[cookie], NULL, cookie);
    }
}

static void setup(unsigned nctx)
{
    struct vidsch_config cfg;
    struct vidsch_env env = {
        .now = env_now, .set_timer = env_timer, .queue_work = env_work,
        .buffer_done = env_done,
    };
    static struct ddi_device dev = { .ops = &ops };
    uint64_t bytes;
    void *mem;

    memset(&B, 0, sizeof(B));
    vidsch_config_default(&cfg);
    cfg.max_contexts = nctx;
    cfg.max_buffers = 2 * nctx + 8;
    bytes = vidsch_storage_size(cfg.max_contexts, cfg.max_buffers);
    mem = aligned_alloc(64, (bytes + 63) & ~63ull);
    B.s = vidsch_create(mem, bytes, &dev, &env, &cfg);
    B.nctx = nctx;
    B.ctx = calloc(nctx, sizeof(*B.ctx));
    B.buf = calloc(2 * nctx, sizeof(*B.buf));
    if (!B.s || !B.ctx || !B.buf) {
        abort();
    }
    for (unsigned i = 0; i < nctx; i++) {
        B.ctx[i] = vidsch_ctx_create(B.s, i + 1, 0, VIDSCH_PRIO_NORMAL,
                                     0x100000 + i * COPRO_SAVE_SIZE);
        for (unsigned k = 0; k < 2; k++) {
            struct ddi_dmabuf *b = &B.buf[2 * i + k];

            b->gpu_addr = 0x10000000 + (2 * i + k) * 64;
            b->len_bytes = 64;
            vidsch_submit(B.s, B.ctx[i], b, NULL, 2 * i + k);
        }
    }
}

/* One decision: the GPU moves on by 100 us and answers. */
static void step(void)
{
    B.now += 100 * US;
    if (B.preempt_pending) {
        uint64_t cut = B.nring ? B.ring[0] : 0;

        B.preempt_pending = false;
        B.nring = 0;
        vidsch_upcalls.preempted(B.s, 0, B.preempt_id, cut, B.completed);
    } else if (B.nring) {
        B.completed = B.ring[0];
        memmove(B.ring, B.ring + 1, --B.nring * sizeof(B.ring[0]));
        vidsch_upcalls.dma_completed(B.s, 0, B.completed);
    }
    if (B.timer <= B.now) {
        B.timer = UINT64_MAX;
        vidsch_timer(B.s);
    }
    while (B.work) {
        B.work--;
        vidsch_worker(B.s);
    }
}

/* The measured loop (callgrind: --toggle-collect=measure). */
__attribute__((noinline)) void measure(unsigned steps)
{
    for (unsigned i = 0; i < steps; i++) {
        step();
    }
}

static uint64_t clock_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned nctx = 64, steps = 20000, reps = 15;
    uint64_t best = UINT64_MAX;
    const struct vidsch_engine_stats *st;

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--contexts=", 11)) {
            nctx = (unsigned)strtoul(argv[i] + 11, NULL, 0);
        } else if (!strncmp(argv[i], "--steps=", 8)) {
            steps = (unsigned)strtoul(argv[i] + 8, NULL, 0);
        } else if (!strncmp(argv[i], "--reps=", 7)) {
            reps = (unsigned)strtoul(argv[i] + 7, NULL, 0);
        } else {
            fprintf(stderr, "usage: %s [--contexts=N] [--steps=N] "
                    "[--reps=N]\n", argv[0]);
            return 2;
        }
    }
    setup(nctx);
    measure(steps);         /* warm up: every context has had turns */
    for (unsigned r = 0; r < reps; r++) {
        uint64_t t0 = clock_ns(), t;

        measure(steps);
        t = clock_ns() - t0;
        if (t < best) {
            best = t;
        }
    }
    st = vidsch_engine_stats(B.s, 0);
    printf("contexts %u steps %u ns_per_step %.1f elected %" PRIu64
           " preemptions %" PRIu64 "\n", nctx, steps,
           (double)best / steps, st->elected, st->preemptions);
    return 0;
}
