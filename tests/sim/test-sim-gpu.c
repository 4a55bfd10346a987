/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model (tests/sim/sim_gpu.c) against the device's programming
 * model (docs/specs/copro.rst): the cost model's exact figures, the four
 * preemption granularities with their fences, save records and resume,
 * paging buffers, WAIT, engine reset, faults and injected hangs, and
 * (test-sim-gpu-tiler.c) the tiler's scenes. These are the same numbers
 * the QEMU qtests check on the device.
 */
#include "test-sim-gpu.h"

static void up_done(void *os, unsigned engine, uint64_t completed)
{
    struct rec *r = os;

    r->done[r->ndone].engine = engine;
    r->done[r->ndone].completed = completed;
    r->done[r->ndone].at = r->clk.now;
    r->ndone++;
}

static void up_preempted(void *os, unsigned engine, uint64_t pf,
                         uint64_t preempted, uint64_t completed)
{
    struct rec *r = os;

    (void)engine;
    r->pre[r->npre].pf = pf;
    r->pre[r->npre].preempted = preempted;
    r->pre[r->npre].completed = completed;
    r->pre[r->npre].at = r->clk.now;
    r->npre++;
}

static void up_faulted(void *os, unsigned engine, const struct ddi_fault *f)
{
    struct rec *r = os;

    (void)engine;
    r->fault[r->nfault++] = *f;
}

static void up_tiler_oom(void *os, unsigned engine, uint64_t fence,
                         uint32_t need, uint64_t completed)
{
    struct rec *r = os;

    r->oom[r->noom].engine = engine;
    r->oom[r->noom].fence = fence;
    r->oom[r->noom].completed = completed;
    r->oom[r->noom].need = need;
    r->noom++;
}

const struct ddi_upcalls rec_up = {
    .dma_completed = up_done, .preempted = up_preempted,
    .faulted = up_faulted, .tiler_oom = up_tiler_oom,
};

static void obs_stopped(void *arg, unsigned engine, bool reset,
                        const struct copro_submit_desc *cut,
                        const struct copro_submit_desc *dropped, unsigned n)
{
    struct rec *r = arg;

    (void)engine;
    (void)reset;
    (void)cut;
    (void)dropped;
    r->dropped += n;
}

static void obs_loaded(void *arg, unsigned engine,
                       const struct copro_submit_desc *d)
{
    (void)engine;
    (void)d;
    ((struct rec *)arg)->loaded++;
}

static void obs_tile(void *arg, unsigned engine,
                     const struct copro_submit_desc *d, uint64_t pb,
                     uint32_t tile, uint32_t nprims, bool partial, bool last)
{
    struct rec *r = arg;

    (void)engine;
    (void)d;
    (void)pb;
    r->tile_done[tile < 64 ? tile : 63]++;
    r->tile_prims += nprims;
    r->passes += last;
    r->partial_passes += last && partial;
}

const struct sim_gpu_observer rec_obs = {
    .stopped = obs_stopped, .loaded = obs_loaded, .tile = obs_tile,
};

void rec_init(struct rec *r, unsigned preemption)
{
    struct sim_gpu_config c;

    memset(r, 0, sizeof(*r));
    sim_clock_init(&r->clk);
    sim_gpu_config_default(&c);
    c.preemption = preemption;
    c.ring_entries = 8;
    c.mem_size = 8 << 20;
    r->g = sim_gpu_create(&r->clk, &c);
    sim_gpu_connect(r->g, &rec_up, r);
    sim_gpu_observe(r->g, &rec_obs, r);
}

void rec_fini(struct rec *r)
{
    sim_gpu_destroy(r->g);
    sim_clock_fini(&r->clk);
}

void run_until(struct rec *r, uint64_t t)
{
    while (sim_step(&r->clk, t)) {
    }
    if (r->clk.now < t) {
        r->clk.now = t;
    }
}

/* A DMA buffer in GPU memory built by fn; returns its address and len. */
uint64_t buf_work(struct rec *r, uint32_t *len, unsigned n,
                         uint64_t ns)
{
    uint64_t at = sim_gpu_alloc(r->g, 256, 64);
    uint32_t *dw = sim_gpu_ptr(r->g, at);
    unsigned i = 0;

    for (unsigned k = 0; k < n; k++) {
        i = sim_emit_work(dw, i, ns);
    }
    *len = i * 4;
    return at;
}

int submit(struct rec *r, unsigned engine, uint64_t addr, uint32_t len,
                  uint64_t fence, uint32_t flags, uint64_t save)
{
    struct ddi_submit_args a = {
        .engine = engine, .dma_addr = addr, .dma_len = len, .fence = fence,
        .context = 5, .save_addr = save, .flags = flags,
    };

    return sim_gpu_ops.submit(r->g, &a);
}

static void test_work_cost(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    b = buf_work(&r, &len, 1, MS);
    submit(&r, 0, b, len, 1, 0, 0);
    run_until(&r, 10 * MS);
    /* "a WORK of 1 ms retires exactly 1 000 100 ns after the engine
     * starts it" */
    g_assert_cmpuint(r.ndone, ==, 1);
    g_assert_cmpuint(r.done[0].at, ==, 1000100);
    g_assert_cmpuint(r.done[0].completed, ==, 1);
    g_assert_cmpuint(r.g->engine[0].busy_ns, ==, 1000100);
    g_assert_cmpuint(r.g->ctx_busy_ns[5], ==, 1000100);
    rec_fini(&r);
}

static void test_fill_copy_cost_and_memory(void)
{
    struct rec r;
    uint64_t b = 0, dst, src;
    uint32_t *dw;
    unsigned i;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    dst = sim_gpu_alloc(r.g, 1 << 20, 4096);
    src = sim_gpu_alloc(r.g, 1 << 20, 4096);
    b = sim_gpu_alloc(r.g, 256, 64);
    dw = sim_gpu_ptr(r.g, b);
    i = sim_emit_fill(dw, 0, dst, 1 << 20, 0xa5a5a5a5);
    submit(&r, 1, b, i * 4, 1, 0, 0);      /* on the copy engine */
    run_until(&r, 10 * MS);
    /* 100 ns + 16 chunks of 64 KiB at 16 GiB/s (3814 ns each) */
    g_assert_cmpuint(r.done[0].at, ==, 100 + 16 * 3814);
    g_assert_cmphex(((uint32_t *)sim_gpu_ptr(r.g, dst))[262143], ==,
                    0xa5a5a5a5);

    memset(sim_gpu_ptr(r.g, src), 0x3c, 1 << 20);
    i = sim_emit_copy(dw, 0, dst, src, 1 << 20);
    submit(&r, 1, b, i * 4, 2, 0, 0);
    run_until(&r, 20 * MS);
    /* "a 1 MiB COPY at the default 8 GiB/s takes 100 + 16 x 7629" */
    g_assert_cmpuint(r.done[1].at - r.done[0].at, ==,
                     10 * MS - r.done[0].at + 100 + 16 * 7629);
    g_assert_cmphex(*(uint8_t *)sim_gpu_ptr(r.g, dst + 12345), ==, 0x3c);
    rec_fini(&r);
}

/* mid-command: stops at the next 100 us slice boundary, saves, resumes */
static void test_mid_command_preempt_resume(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b, save;
    struct copro_save_record *rec;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    b = buf_work(&r, &len, 1, MS);
    save = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
    submit(&r, 0, b, len, 1, 0, save);
    submit(&r, 0, b, len, 2, 0, save);      /* queued: will be dropped */
    run_until(&r, 250 * US);
    sim_gpu_ops.preempt(r.g, 0, 77);
    run_until(&r, 2 * MS);
    g_assert_cmpuint(r.npre, ==, 1);
    g_assert_cmpuint(r.pre[0].pf, ==, 77);
    g_assert_cmpuint(r.pre[0].preempted, ==, 1);
    g_assert_cmpuint(r.pre[0].completed, ==, 0);
    /* slice ends at 300.1 us, then the context state is saved */
    g_assert_cmpuint(r.pre[0].at, ==, 300100 + CS);
    g_assert_cmpuint(r.dropped, ==, 1);
    rec = sim_gpu_ptr(r.g, save);
    g_assert_cmphex(rec->magic, ==, COPRO_SAVE_MAGIC);
    g_assert_cmpuint(rec->offset, ==, 0);
    g_assert_cmpuint(rec->in_packet, ==, 1);
    g_assert_cmpuint(rec->progress, ==, 300 * US);
    g_assert_cmpuint(r.g->engine[0].preempt_max_ns, ==, 50100 + CS);

    submit(&r, 0, b, len, 3, COPRO_SUBMIT_RESUME, save);
    run_until(&r, 5 * MS);
    g_assert_cmpuint(r.ndone, ==, 1);
    g_assert_cmpuint(r.done[0].completed, ==, 3);
    /* restore, then the 700 us left (no second packet-ns) */
    g_assert_cmpuint(r.done[0].at, ==, 2 * MS + CS + 700 * US);
    rec_fini(&r);
}

/* command: between packets; dma-buffer: between submissions */
static void test_command_and_dma_buffer(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b, save;
    struct copro_save_record *rec;

    rec_init(&r, COPRO_PREEMPT_COMMAND);
    b = buf_work(&r, &len, 2, MS);
    save = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
    submit(&r, 0, b, len, 1, 0, save);
    run_until(&r, 250 * US);
    sim_gpu_ops.preempt(r.g, 0, 9);
    run_until(&r, 5 * MS);
    g_assert_cmpuint(r.pre[0].at, ==, 1000100 + CS);
    g_assert_cmpuint(r.pre[0].preempted, ==, 1);
    rec = sim_gpu_ptr(r.g, save);
    g_assert_cmpuint(rec->offset, ==, 12);  /* the second WORK */
    g_assert_cmpuint(rec->in_packet, ==, 0);
    /* resumed, preempted again in its last packet: it retires first (as
     * the device: nothing left to resume), the stop interrupts nothing */
    submit(&r, 0, b, len, 2, COPRO_SUBMIT_RESUME, save);
    run_until(&r, 5 * MS + 250 * US);
    sim_gpu_ops.preempt(r.g, 0, 10);
    run_until(&r, 10 * MS);
    g_assert_cmpuint(r.npre, ==, 2);
    g_assert_cmpuint(r.pre[1].preempted, ==, 0);
    g_assert_cmpuint(r.pre[1].completed, ==, 2);
    rec_fini(&r);

    rec_init(&r, COPRO_PREEMPT_DMA_BUFFER);
    b = buf_work(&r, &len, 1, MS);
    submit(&r, 0, b, len, 1, 0, 0);
    submit(&r, 0, b, len, 2, 0, 0);
    run_until(&r, 250 * US);
    sim_gpu_ops.preempt(r.g, 0, 9);
    run_until(&r, 5 * MS);
    /* the first completes, the engine stops before the second */
    g_assert_cmpuint(r.ndone, ==, 1);
    g_assert_cmpuint(r.pre[0].at, ==, 1000100);
    g_assert_cmpuint(r.pre[0].preempted, ==, 0);
    g_assert_cmpuint(r.pre[0].completed, ==, 1);
    g_assert_cmpuint(r.dropped, ==, 1);
    rec_fini(&r);
}

/* none: the request waits for everything queued */
static void test_none_waits_for_the_ring(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b;

    rec_init(&r, COPRO_PREEMPT_NONE);
    b = buf_work(&r, &len, 1, MS);
    submit(&r, 0, b, len, 1, 0, 0);
    submit(&r, 0, b, len, 2, 0, 0);
    run_until(&r, 250 * US);
    sim_gpu_ops.preempt(r.g, 0, 9);
    run_until(&r, 5 * MS);
    g_assert_cmpuint(r.ndone, ==, 2);
    g_assert_cmpuint(r.pre[0].at, ==, 2000200);
    g_assert_cmpuint(r.pre[0].completed, ==, 2);
    g_assert_cmpuint(r.pre[0].preempted, ==, 0);
    /* and a request to an idle engine completes at once */
    sim_gpu_ops.preempt(r.g, 0, 10);
    run_until(&r, 6 * MS);
    g_assert_cmpuint(r.pre[1].at, ==, 5 * MS);
    rec_fini(&r);
}

static void test_paging_not_interrupted(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    b = buf_work(&r, &len, 1, MS);
    submit(&r, 0, b, len, 1, COPRO_SUBMIT_PAGING, 0);
    run_until(&r, 250 * US);
    sim_gpu_ops.preempt(r.g, 0, 9);
    run_until(&r, 5 * MS);
    g_assert_cmpuint(r.ndone, ==, 1);
    g_assert_cmpuint(r.pre[0].at, ==, 1000100);
    g_assert_cmpuint(r.pre[0].preempted, ==, 0);
    rec_fini(&r);
}

/* A blocked WAIT is an arbitration point at command granularity, and a
 * FENCE written by another engine releases it. */
static void test_wait(void)
{
    struct rec r;
    uint64_t b0, b1, flag, save;
    uint32_t *dw;
    unsigned n0, n1;

    rec_init(&r, COPRO_PREEMPT_COMMAND);
    flag = sim_gpu_alloc(r.g, 8, 8);
    save = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
    b0 = sim_gpu_alloc(r.g, 256, 64);
    dw = sim_gpu_ptr(r.g, b0);
    n0 = sim_emit_wait(dw, 0, flag, 1);
    n0 = sim_emit_work(dw, n0, 10 * US);
    b1 = sim_gpu_alloc(r.g, 256, 64);
    dw = sim_gpu_ptr(r.g, b1);
    n1 = sim_emit_fill(dw, 0, flag + 4096, 4096, 0);
    n1 = sim_emit_fence(dw, n1, flag, 1);
    submit(&r, 0, b0, n0 * 4, 1, 0, save);
    run_until(&r, 100 * US);
    g_assert_cmpint(r.g->engine[0].state, ==, SIM_ENG_WAITING);
    g_assert_cmpuint(r.g->engine[0].busy_ns, ==, 100);  /* only the check */
    sim_gpu_ops.preempt(r.g, 0, 4);
    run_until(&r, 200 * US);
    /* at once, saved as not started */
    g_assert_cmpuint(r.pre[0].at, ==, 100 * US + CS);
    g_assert_cmpuint(((struct copro_save_record *)sim_gpu_ptr(r.g, save))
                     ->in_packet, ==, 0);
    submit(&r, 0, b0, n0 * 4, 2, COPRO_SUBMIT_RESUME, save);
    run_until(&r, 300 * US);
    submit(&r, 1, b1, n1 * 4, 1, 0, 0);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.ndone, ==, 2);
    rec_fini(&r);
}

static void test_hang_and_reset(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b, b2;
    struct ddi_reset_report rep;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    b = buf_work(&r, &len, 2, 50 * US);
    b2 = buf_work(&r, &len, 2, 50 * US);
    sim_gpu_inject(r.g, b, 12, SIM_INJECT_HANG);   /* at the second WORK */
    submit(&r, 0, b, len, 1, 0, 0);
    submit(&r, 0, b2, len, 2, 0, 0);
    sim_gpu_ops.preempt(r.g, 0, 3);
    run_until(&r, 10 * MS);
    /* the first slice ended at an arbitration point: preempted there */
    g_assert_cmpuint(r.npre, ==, 1);
    submit(&r, 0, b, len, 4, 0, 0);
    run_until(&r, 20 * MS);
    sim_gpu_ops.preempt(r.g, 0, 5);
    run_until(&r, 30 * MS);
    /* hung: nothing retires, the request is ignored */
    g_assert_cmpuint(r.npre, ==, 1);
    g_assert_cmpuint(r.ndone, ==, 0);
    submit(&r, 0, b2, len, 6, 0, 0);
    sim_gpu_ops.reset_engine(r.g, 0, &rep);
    g_assert_cmpuint(rep.aborted_fence, ==, 4);
    g_assert_cmpuint(rep.completed_fence, ==, 0);
    run_until(&r, 40 * MS);
    g_assert_cmpuint(r.ndone, ==, 0);       /* 6 was dropped by the reset */
    submit(&r, 0, b2, len, 7, 0, 0);
    run_until(&r, 50 * MS);
    g_assert_cmpuint(r.ndone, ==, 1);
    g_assert_cmpuint(r.done[0].completed, ==, 7);
    rec_fini(&r);
}

/* An injected TILER_OOM stops the submission before the packet like a
 * preemption (save record, queue dropped) without being one; RESUME goes
 * on exactly there, and a pending request completes after the stop. */
static void test_faults(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b, bad;
    struct ddi_reset_report rep;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    b = buf_work(&r, &len, 1, 10 * US);
    sim_gpu_inject(r.g, b, 0, SIM_INJECT_FAULT);
    submit(&r, 0, b, len, 1, 0, 0);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.nfault, ==, 1);
    g_assert_cmpuint(r.fault[0].kind, ==, COPRO_FAULT_INJECTED);
    g_assert_cmpuint(r.fault[0].fence, ==, 1);
    g_assert_cmpuint(r.fault[0].context, ==, 5);
    g_assert_cmpint(r.g->engine[0].state, ==, SIM_ENG_HALTED);
    sim_gpu_ops.reset_engine(r.g, 0, &rep);
    g_assert_cmpuint(rep.aborted_fence, ==, 1);

    /* WORK on the copy engine: illegal there */
    b = buf_work(&r, &len, 1, 10 * US);
    submit(&r, 1, b, len, 1, 0, 0);
    run_until(&r, 2 * MS);
    g_assert_cmpuint(r.fault[1].kind, ==, COPRO_FAULT_ILLEGAL_OPCODE);
    /* RESUME without a save record */
    bad = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
    submit(&r, 0, b, len, 2, COPRO_SUBMIT_RESUME, bad);
    run_until(&r, 3 * MS);
    g_assert_cmpuint(r.fault[2].kind, ==, COPRO_FAULT_BAD_SAVE);
    /* beyond the simulated VRAM */
    sim_gpu_ops.reset_engine(r.g, 0, &rep);
    {
        uint32_t *dw = sim_gpu_ptr(r.g, b);
        unsigned n = sim_emit_fence(dw, 0, 1ull << 40, 1);

        submit(&r, 0, b, n * 4, 3, 0, 0);
    }
    run_until(&r, 4 * MS);
    g_assert_cmpuint(r.fault[3].kind, ==, COPRO_FAULT_TRANSLATION);
    rec_fini(&r);
}

static void test_ring_full(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    b = buf_work(&r, &len, 1, MS);
    for (unsigned i = 1; i <= 7; i++) {
        g_assert_cmpint(submit(&r, 0, b, len, i, 0, 0), ==, DDI_OK);
    }
    g_assert_cmpint(submit(&r, 0, b, len, 8, 0, 0), ==, DDI_EBUSY);
    rec_fini(&r);
}

/* Preempting a FILL mid-way and resuming leaves memory as a run without
 * preemption would. */
static void test_resume_equals_uninterrupted(void)
{
    struct rec r;
    uint64_t b, dst, save;
    uint32_t *dw;
    unsigned n;
    uint8_t *m;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    dst = sim_gpu_alloc(r.g, 1 << 20, 4096);
    save = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
    b = sim_gpu_alloc(r.g, 256, 64);
    dw = sim_gpu_ptr(r.g, b);
    n = sim_emit_fill(dw, 0, dst, 1 << 20, 0x01020304);
    n = sim_emit_fill(dw, n, dst + 4096, 8192, 0x0a0b0c0d);
    submit(&r, 0, b, n * 4, 1, 0, save);
    run_until(&r, 20 * US);
    sim_gpu_ops.preempt(r.g, 0, 2);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(((struct copro_save_record *)sim_gpu_ptr(r.g, save))
                     ->progress, ==, 6 * SIM_CHUNK_BYTES);
    submit(&r, 0, b, n * 4, 3, COPRO_SUBMIT_RESUME, save);
    run_until(&r, 2 * MS);
    g_assert_cmpuint(r.ndone, ==, 1);
    m = sim_gpu_ptr(r.g, dst);
    for (uint64_t i = 0; i < (1 << 20); i += 4) {
        uint32_t want = i >= 4096 && i < 4096 + 8192 ? 0x0a0b0c0d
                                                     : 0x01020304;

        if (memcmp(m + i, &want, 4)) {
            g_error("byte %" G_GUINT64_FORMAT " wrong after resume", i);
        }
    }
    rec_fini(&r);
}

static void test_render_and_patch(void)
{
    struct rec r;
    struct ddi_dmabuf *out = g_new0(struct ddi_dmabuf, 1);
    uint32_t cmd[16];
    struct ddi_alloc_ref ref = { .handle = 1 };
    struct ddi_patch_loc loc = { .slot = 0, .patch_offset = 4,
                                 .alloc_offset = 8 };
    struct ddi_alloc_desc ad = { .size = 4096, .gpu_addr = 0x123000 };
    struct ddi_render_args a = {
        .engine = 0, .cmd = cmd, .alloc = &ref, .nalloc = 1, .patch = &loc,
        .npatch = 1, .alloc_desc = &ad,
    };
    unsigned n;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    out->gpu_addr = sim_gpu_alloc(r.g, 256, 64);
    out->dw = sim_gpu_ptr(r.g, out->gpu_addr);
    out->cap_bytes = 256;
    n = sim_emit_fence(cmd, 0, 0, 7);
    a.cmd_bytes = n * 4;
    g_assert_cmpint(sim_gpu_ops.render(r.g, &a, out), ==, DDI_OK);
    g_assert_cmpuint(out->len_bytes, ==, n * 4);
    g_assert_cmpint(sim_gpu_ops.patch(r.g, out, &ad, 0, out->len_bytes), ==,
                    DDI_OK);
    g_assert_cmphex(out->dw[1], ==, 0x123008);
    /* WORK is not a copy-engine packet */
    n = sim_emit_work(cmd, 0, 5);
    a.cmd_bytes = n * 4;
    a.engine = 1;
    a.npatch = 0;
    g_assert_cmpint(sim_gpu_ops.render(r.g, &a, out), ==, DDI_EOPCODE);
    g_free(out);
    rec_fini(&r);
}

/* (vidmm) The aperture and build_paging_buffer: MAP at build time, the
 * transfer through the mapping, UNMAP in buffer order (COPY_PTE), the
 * DDI's ordering rules refused with nothing mapped. */
static void test_paging_buffer(void)
{
    struct rec r;
    struct sim_gpu_config c;
    const uint64_t ap = 1ull << 32;
    uint64_t pages[2], again[4], vram, pb;
    struct ddi_dmabuf out = { 0 };
    uint8_t *sys;
    uint32_t word;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    sim_gpu_config_default(&c);
    c.ring_entries = 8;
    c.mem_size = 8 << 20;
    c.aperture_base = ap;
    c.aperture_size = 64 * 1024;
    c.sys_pages = 4;
    sim_gpu_reset(r.g, &c);
    {
        struct ddi_caps caps;

        sim_gpu_ops.query_caps(r.g, &caps);
        g_assert_cmphex(caps.aperture_base, ==, ap);
        g_assert_cmpuint(caps.aperture_size, ==, 64 * 1024);
    }
    g_assert_true(sim_gpu_sys_alloc(r.g, pages, 2));
    g_assert_false(sim_gpu_sys_alloc(r.g, pages, 3));   /* 2 left */
    for (unsigned k = 0; k < 2; k++) {
        sys = sim_gpu_sys_ptr(r.g, pages[k]);
        memset(sys, 0xa0 + k, 4096);
    }
    vram = sim_gpu_alloc(r.g, 8192, 4096);
    pb = sim_gpu_alloc(r.g, 4096, 64);
    out.dw = sim_gpu_ptr(r.g, pb);
    out.gpu_addr = pb;
    out.cap_bytes = 4096;
    {
        struct ddi_paging_op bad1[] = {
            { .kind = DDI_PAGING_TRANSFER, .src = vram, .dst = ap,
              .size = 8192 },
            { .kind = DDI_PAGING_MAP_APERTURE, .dst = ap, .size = 8192,
              .sys_pages = pages },
        };
        struct ddi_paging_op bad2[] = {
            { .kind = DDI_PAGING_MAP_APERTURE, .dst = ap, .size = 8192,
              .sys_pages = pages },
            { .kind = DDI_PAGING_UNMAP_APERTURE, .dst = ap, .size = 8192 },
            { .kind = DDI_PAGING_TRANSFER, .src = ap, .dst = vram,
              .size = 8192 },
        };

        g_assert_cmpint(sim_gpu_ops.build_paging_buffer(r.g, bad1, 2, &out),
                        ==, DDI_EINVAL);
        g_assert_cmpint(sim_gpu_ops.build_paging_buffer(r.g, bad2, 3, &out),
                        ==, DDI_EINVAL);
        g_assert_cmpuint(r.g->gart[0], ==, 0);      /* nothing mapped */
    }
    {
        struct ddi_paging_op ops[] = {
            { .kind = DDI_PAGING_MAP_APERTURE, .dst = ap, .size = 8192,
              .sys_pages = pages },
            { .kind = DDI_PAGING_TRANSFER, .src = ap, .dst = vram,
              .size = 8192 },
            { .kind = DDI_PAGING_UNMAP_APERTURE, .dst = ap, .size = 8192 },
        };

        g_assert_cmpint(sim_gpu_ops.build_paging_buffer(r.g, ops, 3, &out),
                        ==, DDI_OK);
    }
    /* mapped now, unmapped only when the GPU gets there */
    g_assert_cmphex(r.g->gart[0], ==, pages[0]);
    g_assert_cmphex(r.g->gart[1], ==, pages[1]);
    g_assert_cmpint(submit(&r, 1, pb, out.len_bytes, 1, COPRO_SUBMIT_PAGING,
                           0), ==, DDI_OK);
    run_until(&r, 10 * MS);
    g_assert_cmpuint(r.ndone, ==, 1);
    g_assert_cmpuint(r.nfault, ==, 0);
    memcpy(&word, (uint8_t *)sim_gpu_ptr(r.g, vram) + 4096 + 8, 4);
    g_assert_cmphex(word, ==, 0xa1a1a1a1);
    memcpy(&word, sim_gpu_ptr(r.g, vram), 4);
    g_assert_cmphex(word, ==, 0xa0a0a0a0);
    g_assert_cmpuint(r.g->gart[0], ==, 0);
    g_assert_cmpuint(r.g->gart[1], ==, 0);
    g_assert_false(sim_gpu_read(r.g, ap, &word, 4));
    sim_gpu_sys_free(r.g, pages, 2);
    g_assert_true(sim_gpu_sys_alloc(r.g, again, 4));
    rec_fini(&r);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sim-gpu/work-cost", test_work_cost);
    g_test_add_func("/sim-gpu/paging-buffer", test_paging_buffer);
    g_test_add_func("/sim-gpu/fill-copy-cost-and-memory",
                    test_fill_copy_cost_and_memory);
    g_test_add_func("/sim-gpu/mid-command-preempt-resume",
                    test_mid_command_preempt_resume);
    g_test_add_func("/sim-gpu/command-and-dma-buffer",
                    test_command_and_dma_buffer);
    g_test_add_func("/sim-gpu/none-waits-for-the-ring",
                    test_none_waits_for_the_ring);
    g_test_add_func("/sim-gpu/paging-not-interrupted",
                    test_paging_not_interrupted);
    g_test_add_func("/sim-gpu/wait", test_wait);
    g_test_add_func("/sim-gpu/hang-and-reset", test_hang_and_reset);
    g_test_add_func("/sim-gpu/faults", test_faults);
    g_test_add_func("/sim-gpu/ring-full", test_ring_full);
    g_test_add_func("/sim-gpu/resume-equals-uninterrupted",
                    test_resume_equals_uninterrupted);
    g_test_add_func("/sim-gpu/render-and-patch", test_render_and_patch);
    sim_gpu_tiler_tests();
    return g_test_run();
}
