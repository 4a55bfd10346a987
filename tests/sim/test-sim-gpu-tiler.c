/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model's tiler (tests/sim/sim_gpu_tiler.c) against
 * docs/specs/copro.rst "Tiling": injected and real OOM stops, scenes
 * (bins, costs), tile passes preempted at tile boundaries, partial
 * passes, BIN_BLIT; with cfg.tiler off, the tiling packets refused.
 * Part of test-sim-gpu (test-sim-gpu.h).
 */
#include "test-sim-gpu.h"

static void test_tiler_oom(void)
{
    struct rec r;
    uint32_t len;
    uint64_t b, b2, save;
    const struct copro_save_record *rec;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    save = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
    b = buf_work(&r, &len, 2, 50 * US);
    b2 = buf_work(&r, &len, 1, 10 * US);
    sim_gpu_inject(r.g, b, 12, SIM_INJECT_OOM);    /* the second WORK */
    submit(&r, 0, b, len * 2, 1, 0, save);
    submit(&r, 0, b2, len, 2, 0, 0);        /* queued: dropped */
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(r.oom[0].fence, ==, 1);
    g_assert_cmpuint(r.oom[0].completed, ==, 0);
    g_assert_cmpuint(r.oom[0].need, ==, SIM_OOM_NEED);
    g_assert_cmpuint(r.npre, ==, 0);
    g_assert_cmpuint(r.ndone, ==, 0);
    g_assert_cmpuint(r.dropped, ==, 1);
    g_assert_cmpuint(r.g->engine[0].preemptions, ==, 0);
    rec = sim_gpu_ptr(r.g, save);
    g_assert_cmphex(rec->magic, ==, COPRO_SAVE_MAGIC);
    g_assert_cmpuint(rec->offset, ==, 12);
    g_assert_cmpuint(rec->in_packet, ==, 0);
    /* resumed: it does not stop again, and finishes the second WORK */
    submit(&r, 0, b, len * 2, 3, COPRO_SUBMIT_RESUME, save);
    submit(&r, 0, b2, len, 4, 0, 0);
    run_until(&r, 2 * MS);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(r.ndone, >=, 1);
    g_assert_cmpuint(r.done[r.ndone - 1].completed, ==, 4);
    g_assert_cmpuint(r.g->engine[0].ooms, ==, 1);

    rec_fini(&r);

    /* a request pending at the stop (dma-buffer granularity: not honoured
     * inside the buffer): PREEMPTED right after, interrupting nothing */
    rec_init(&r, COPRO_PREEMPT_DMA_BUFFER);
    save = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
    b = buf_work(&r, &len, 2, 50 * US);
    sim_gpu_inject(r.g, b, 12, SIM_INJECT_OOM);
    submit(&r, 0, b, len, 1, 0, save);
    run_until(&r, 20 * US);
    sim_gpu_ops.preempt(r.g, 0, 9);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(r.oom[0].fence, ==, 1);
    g_assert_cmpuint(r.npre, ==, 1);
    g_assert_cmpuint(r.pre[0].pf, ==, 9);
    g_assert_cmpuint(r.pre[0].preempted, ==, 0);
    g_assert_cmpuint(r.ndone, ==, 0);
    rec_fini(&r);
}

/*
 * The tiler (cfg.tiler): a 128 x 64 target in 32-pixel tiles is 8 tiles,
 * heap_start 192. Three primitives: the whole target (8 tiles, 96 heap
 * bytes), one inside tile 0 (40) and one across tiles 0, 1, 4, 5 (64):
 * 13 bin entries.
 */
#define SC_W        128
#define SC_H        64
#define SC_TILES    8
#define SC_HEAP     192u

struct scene_bufs {
    uint64_t pb, save, geom, tile, partial;
    uint32_t geom_len, tile_len, partial_len;
    uint32_t third_bin;         /* offset of the third BIN_RECT */
};

static void scene_init(struct rec *r, unsigned preemption, uint64_t tile_ns)
{
    struct sim_gpu_config c;

    memset(r, 0, sizeof(*r));
    sim_clock_init(&r->clk);
    sim_gpu_config_default(&c);
    c.preemption = preemption;
    c.engines = 3;
    c.tiler = true;
    c.tile_ns = tile_ns;
    c.ring_entries = 8;
    c.mem_size = 8 << 20;
    r->g = sim_gpu_create(&r->clk, &c);
    sim_gpu_connect(r->g, &rec_up, r);
    sim_gpu_observe(r->g, &rec_obs, r);
}

static void scene_build(struct rec *r, struct scene_bufs *s, uint32_t pb_size)
{
    uint64_t target = sim_gpu_alloc(r->g, SC_W * SC_H * 4, 64);
    uint32_t *dw;
    unsigned at = 0;

    s->pb = sim_gpu_alloc(r->g, 4096, 64);
    s->save = sim_gpu_alloc(r->g, COPRO_SAVE_SIZE, 64);
    s->geom = sim_gpu_alloc(r->g, 256, 64);
    dw = sim_gpu_ptr(r->g, s->geom);
    at = sim_emit_set_target(dw, at, 0, target, SC_W * 4, SC_W, SC_H,
                             COPRO_FMT_XRGB8888);
    at = sim_emit_scene_begin(dw, at, COPRO_SCENE_CLEAR, s->pb, pb_size, 0);
    at = sim_emit_bin_rect(dw, at, 0, 0, SC_W, SC_H, 1);
    at = sim_emit_bin_rect(dw, at, 10, 10, 20, 20, 2);
    s->third_bin = at * 4;
    at = sim_emit_bin_rect(dw, at, 30, 30, 10, 10, 3);
    at = sim_emit_scene_end(dw, at);
    s->geom_len = at * 4;
    for (unsigned i = 0; i < 2; i++) {
        uint64_t *a = i ? &s->partial : &s->tile;
        uint32_t *len = i ? &s->partial_len : &s->tile_len;

        *a = sim_gpu_alloc(r->g, 64, 64);
        dw = sim_gpu_ptr(r->g, *a);
        at = sim_emit_set_target(dw, 0, 0, target, SC_W * 4, SC_W, SC_H,
                                 COPRO_FMT_XRGB8888);
        at = sim_emit_tile_render(dw, at, i ? COPRO_TILE_PARTIAL : 0, s->pb,
                                  SC_TILES);
        *len = at * 4;
    }
}

static const struct copro_scene *scene_hdr(struct rec *r,
                                           const struct scene_bufs *s)
{
    return sim_gpu_ptr(r->g, s->pb);
}

static void test_tiler_scene(void)
{
    struct rec r;
    struct scene_bufs s;
    uint64_t t0;

    scene_init(&r, COPRO_PREEMPT_MID_COMMAND, 1 * US);
    scene_build(&r, &s, 4096);
    submit(&r, 0, s.geom, s.geom_len, 1, 0, s.save);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.ndone, ==, 1);
    g_assert_cmphex(scene_hdr(&r, &s)->magic, ==, COPRO_SCENE_MAGIC);
    g_assert_cmpuint(scene_hdr(&r, &s)->state, ==, COPRO_SCENE_CLOSED);
    g_assert_cmpuint(scene_hdr(&r, &s)->prims, ==, 3);
    g_assert_cmpuint(scene_hdr(&r, &s)->used, ==, SC_HEAP + 96 + 40 + 64);
    g_assert_cmpuint(r.g->tiler.scenes, ==, 1);
    t0 = r.clk.now;
    submit(&r, 2, s.tile, s.tile_len, 1, 0, 0);
    run_until(&r, 2 * MS);
    g_assert_cmpuint(r.ndone, ==, 2);
    g_assert_cmpuint(scene_hdr(&r, &s)->state, ==, COPRO_SCENE_RENDERED);
    for (unsigned t = 0; t < SC_TILES; t++) {
        g_assert_cmpuint(r.tile_done[t], ==, 1);
    }
    g_assert_cmpuint(r.tile_prims, ==, 13);
    /* packet-ns twice, then per tile tile-ns and 8 + 40 n bytes at
     * copy-bw (1 ns per 8.59 bytes): 8 us and 8 * 8 + 40 * 13 bytes */
    g_assert_cmpuint(r.done[1].at - t0, >=, 8 * US + 200 + 60);
    g_assert_cmpuint(r.done[1].at - t0, <=, 8 * US + 200 + 60 + 16);
    /* a final pass of a rendered scene is refused */
    submit(&r, 2, s.tile, s.tile_len, 2, 0, 0);
    run_until(&r, 3 * MS);
    g_assert_cmpuint(r.nfault, ==, 1);
    g_assert_cmpuint(r.fault[0].kind, ==, COPRO_FAULT_BAD_PACKET);
    g_assert_cmpuint(r.g->engine[2].tiler_cause, ==,
                     COPRO_TILER_ERR_NOT_CLOSED);
    rec_fini(&r);
}

/* Preempted between tiles: the record names the next tile, RESUME
 * renders every tile once; command granularity too; dma-buffer never
 * interrupts the pass. */
static void test_tiler_tile_preempt(void)
{
    static const unsigned gran[] = {
        COPRO_PREEMPT_MID_COMMAND, COPRO_PREEMPT_COMMAND,
        COPRO_PREEMPT_DMA_BUFFER,
    };

    for (unsigned i = 0; i < 3; i++) {
        struct rec r;
        struct scene_bufs s;
        const struct copro_save_record *rec;
        struct copro_save_tiler st;
        uint64_t save2;

        scene_init(&r, gran[i], 100 * US);
        scene_build(&r, &s, 4096);
        save2 = sim_gpu_alloc(r.g, COPRO_SAVE_SIZE, 64);
        submit(&r, 0, s.geom, s.geom_len, 1, 0, s.save);
        run_until(&r, 1 * MS);
        submit(&r, 2, s.tile, s.tile_len, 1, 0, save2);
        run_until(&r, 1 * MS + 250 * US);   /* tiles 0, 1 and in 2 */
        sim_gpu_ops.preempt(r.g, 2, 7);
        run_until(&r, 3 * MS);
        if (gran[i] == COPRO_PREEMPT_DMA_BUFFER) {
            g_assert_cmpuint(r.npre, ==, 1);
            g_assert_cmpuint(r.pre[0].preempted, ==, 0);
            g_assert_cmpuint(r.ndone, ==, 2);
            rec_fini(&r);
            continue;
        }
        g_assert_cmpuint(r.npre, ==, 1);
        g_assert_cmpuint(r.pre[0].preempted, ==, 1);
        /* it stopped after tile 2, at most one tile and the switch after
         * the request (SET_TARGET and TILE_RENDER: packet-ns each) */
        g_assert_cmpuint(r.pre[0].at, <=, 1 * MS + 300 * US + CS + 300);
        rec = sim_gpu_ptr(r.g, save2);
        memcpy(&st, rec->reserved, sizeof(st));
        g_assert_cmpuint(rec->in_packet, ==, 1);
        g_assert_cmpuint(st.tile_next, ==, 3);
        g_assert_cmpuint(rec->progress, ==, 6);
        g_assert_cmpuint(st.flags, ==, 0);
        g_assert_cmpuint(r.tile_done[3], ==, 0);
        submit(&r, 2, s.tile, s.tile_len, 2, COPRO_SUBMIT_RESUME, save2);
        run_until(&r, 5 * MS);
        g_assert_cmpuint(r.done[r.ndone - 1].completed, ==, 2);
        for (unsigned t = 0; t < SC_TILES; t++) {
            g_assert_cmpuint(r.tile_done[t], ==, 1);
        }
        g_assert_cmpuint(r.tile_prims, ==, 13);
        g_assert_cmpuint(scene_hdr(&r, &s)->state, ==, COPRO_SCENE_RENDERED);
        rec_fini(&r);
    }
}

/* The third primitive does not fit: OOM before it, the scene in the
 * record; a partial pass renders the bins so far and empties them; the
 * resumed geometry bins it; the final pass renders it: 13 bin entries
 * over both passes. A partial pass of a scene not stopped is refused. */
static void test_tiler_oom_partial(void)
{
    struct rec r;
    struct scene_bufs s;
    const struct copro_save_record *rec;
    struct copro_save_tiler st;

    scene_init(&r, COPRO_PREEMPT_MID_COMMAND, 1 * US);
    scene_build(&r, &s, SC_HEAP + 96 + 40);
    submit(&r, 0, s.geom, s.geom_len, 1, 0, s.save);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(r.oom[0].need, ==, 64);
    g_assert_cmpuint(r.ndone, ==, 0);
    g_assert_cmpuint(scene_hdr(&r, &s)->state, ==, COPRO_SCENE_OOM);
    g_assert_cmpuint(scene_hdr(&r, &s)->oom_need, ==, 64);
    rec = sim_gpu_ptr(r.g, s.save);
    memcpy(&st, rec->reserved, sizeof(st));
    g_assert_cmpuint(rec->offset, ==, s.third_bin);
    g_assert_cmphex(st.scene, ==, s.pb);
    g_assert_cmphex(st.flags, ==, COPRO_SAVE_TILER_SCENE |
                    COPRO_SAVE_TILER_OOM);
    g_assert_cmpuint(r.g->engine[0].scene, ==, 0);

    submit(&r, 2, s.partial, s.partial_len, 1, 0, 0);
    run_until(&r, 2 * MS);
    g_assert_cmpuint(r.partial_passes, ==, 1);
    g_assert_cmpuint(r.tile_prims, ==, 9);
    g_assert_cmpuint(scene_hdr(&r, &s)->state, ==, COPRO_SCENE_OPEN);
    g_assert_cmpuint(scene_hdr(&r, &s)->used, ==, SC_HEAP);
    g_assert_cmpuint(scene_hdr(&r, &s)->partials, ==, 1);
    g_assert(scene_hdr(&r, &s)->flags & COPRO_SCENE_F_STORED);

    submit(&r, 0, s.geom, s.geom_len, 2, COPRO_SUBMIT_RESUME, s.save);
    run_until(&r, 3 * MS);
    g_assert_cmpuint(r.noom, ==, 1);
    g_assert_cmpuint(scene_hdr(&r, &s)->state, ==, COPRO_SCENE_CLOSED);
    g_assert_cmpuint(scene_hdr(&r, &s)->prims, ==, 3);
    g_assert_cmpuint(scene_hdr(&r, &s)->used, ==, SC_HEAP + 64);
    submit(&r, 2, s.tile, s.tile_len, 2, 0, 0);
    run_until(&r, 4 * MS);
    g_assert_cmpuint(r.passes, ==, 2);
    g_assert_cmpuint(r.tile_prims, ==, 13);
    g_assert_cmpuint(r.nfault, ==, 0);
    /* a partial pass over a closed (rendered) scene */
    submit(&r, 2, s.partial, s.partial_len, 3, 0, 0);
    run_until(&r, 5 * MS);
    g_assert_cmpuint(r.nfault, ==, 1);
    g_assert_cmpuint(r.g->engine[2].tiler_cause, ==, COPRO_TILER_ERR_NOT_OOM);
    rec_fini(&r);
}

/* A geometry of one primitive (a blit from src, or a rect: src 0) into a
 * scene at pb, and its final pass; returns the geometry's address. */
static uint64_t one_prim_scene(struct rec *r, uint64_t pb, uint64_t src,
                               uint32_t pitch, uint32_t x, uint32_t w,
                               uint64_t *tile, uint32_t *glen, uint32_t *tlen)
{
    uint64_t target = sim_gpu_alloc(r->g, SC_W * SC_H * 4, 64);
    uint64_t geom = sim_gpu_alloc(r->g, 128, 64);
    uint32_t *dw = sim_gpu_ptr(r->g, geom);
    unsigned at;

    at = sim_emit_set_target(dw, 0, 0, target, SC_W * 4, SC_W, SC_H,
                             COPRO_FMT_XRGB8888);
    at = sim_emit_scene_begin(dw, at, 0, pb, 4096, 0);
    at = src ? sim_emit_bin_blit(dw, at, src, pitch, x, 8, w, 16)
             : sim_emit_bin_rect(dw, at, x, 8, w, 16, 7);
    *glen = 4 * sim_emit_scene_end(dw, at);
    *tile = sim_gpu_alloc(r->g, 64, 64);
    dw = sim_gpu_ptr(r->g, *tile);
    at = sim_emit_set_target(dw, 0, 0, target, SC_W * 4, SC_W, SC_H,
                             COPRO_FMT_XRGB8888);
    *tlen = 4 * sim_emit_tile_render(dw, at, 0, pb, SC_TILES);
    return geom;
}

/* BIN_BLIT (docs/specs/copro.rst "Tiling"): binned as a rect is (clipped
 * right and bottom only, src kept), its source bytes charged to the
 * tiles at copy-bw and read in the tile pass, which a bad source faults
 * (not the geometry); a pitch above the maximum is refused. */
static void test_tiler_blit(void)
{
    struct rec r;
    uint64_t pb[4], src, tile[4], geom, at[4];
    uint32_t glen, tlen[4];
    const struct copro_prim *pr;

    scene_init(&r, COPRO_PREEMPT_MID_COMMAND, 1 * US);
    src = sim_gpu_alloc(r.g, SC_W * SC_H * 4, 64);
    for (unsigned i = 0; i < 4; i++) {
        pb[i] = sim_gpu_alloc(r.g, 4096, 64);
    }
    /* the same 32x16 block at (16, 8), a rect then a blit: two tiles of
     * 16x16 pixels each, 1 KiB of source each for the blit */
    for (unsigned i = 0; i < 2; i++) {
        geom = one_prim_scene(&r, pb[i], i ? src : 0, SC_W * 4, 16, 32,
                              &tile[i], &glen, &tlen[i]);
        submit(&r, 0, geom, glen, i + 1, 0, 0);
        run_until(&r, (i + 1) * MS);
        at[i] = r.clk.now;
        submit(&r, 2, tile[i], tlen[i], i + 1, 0, 0);
        run_until(&r, (i + 1) * MS + 500 * US);
        g_assert_cmpuint(r.ndone, ==, 2 * i + 2);
        at[i] = r.done[2 * i + 1].at - at[i];
        g_assert_cmpuint(((const struct copro_scene *)sim_gpu_ptr(
                             r.g, pb[i]))->state, ==, COPRO_SCENE_RENDERED);
    }
    /* 2 KiB at copy-bw (8.59 bytes per ns), rounded per tile */
    g_assert_cmpuint(at[1] - at[0], >=, 236);
    g_assert_cmpuint(at[1] - at[0], <=, 242);
    pr = sim_gpu_ptr(r.g, pb[1] + SC_HEAP);
    g_assert_cmpuint(pr->kind, ==, COPRO_PRIM_BLIT);
    g_assert_cmphex(pr->src, ==, src);
    g_assert_cmpuint(pr->arg, ==, SC_W * 4);
    /* clipped at the right edge: src stays its top-left pixel's */
    geom = one_prim_scene(&r, pb[2], src + 4, SC_W * 4, SC_W - 8, 32,
                          &tile[2], &glen, &tlen[2]);
    submit(&r, 0, geom, glen, 3, 0, 0);
    run_until(&r, 3 * MS);
    pr = sim_gpu_ptr(r.g, pb[2] + SC_HEAP);
    g_assert_cmpuint(pr->w, ==, 8);
    g_assert_cmphex(pr->src, ==, src + 4);
    /* a source that is not memory: binned, the tile pass faults on it */
    geom = one_prim_scene(&r, pb[3], 16ull << 20, SC_W * 4, 16, 32,
                          &tile[3], &glen, &tlen[3]);
    submit(&r, 0, geom, glen, 4, 0, 0);
    run_until(&r, 4 * MS);
    g_assert_cmpuint(r.nfault, ==, 0);
    g_assert_cmpuint(r.ndone, ==, 6);
    submit(&r, 2, tile[3], tlen[3], 3, 0, 0);
    run_until(&r, 5 * MS);
    g_assert_cmpuint(r.nfault, ==, 1);
    g_assert_cmpuint(r.fault[0].kind, ==, COPRO_FAULT_TRANSLATION);
    g_assert_cmphex(r.fault[0].addr, ==, 16ull << 20);
    g_assert_cmpuint(r.fault[0].fence, ==, 3);
    rec_fini(&r);

    /* a pitch above COPRO_BLIT_PITCH_MAX: the packet is refused */
    scene_init(&r, COPRO_PREEMPT_MID_COMMAND, 1 * US);
    pb[0] = sim_gpu_alloc(r.g, 4096, 64);
    geom = one_prim_scene(&r, pb[0], 4096, COPRO_BLIT_PITCH_MAX + 1, 16, 32,
                          &tile[0], &glen, &tlen[0]);
    submit(&r, 0, geom, glen, 1, 0, 0);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.nfault, ==, 1);
    g_assert_cmpuint(r.fault[0].kind, ==, COPRO_FAULT_BAD_PACKET);
    g_assert_cmpuint(r.g->engine[0].tiler_cause, ==, COPRO_TILER_ERR_PRIM);
    rec_fini(&r);
}

/* Without cfg.tiler the tiling path's packets are refused. */
static void test_scene_ops_refused(void)
{
    struct rec r;
    uint64_t b;
    uint32_t *dw;

    rec_init(&r, COPRO_PREEMPT_MID_COMMAND);
    b = sim_gpu_alloc(r.g, 64, 64);
    dw = sim_gpu_ptr(r.g, b);
    dw[0] = COPRO_PKT_HDR(COPRO_OP_SCENE_END, 0, COPRO_LEN_SCENE_END);
    submit(&r, 0, b, 4, 1, 0, 0);
    run_until(&r, 1 * MS);
    g_assert_cmpuint(r.nfault, ==, 1);
    g_assert_cmpuint(r.fault[0].kind, ==, COPRO_FAULT_ILLEGAL_OPCODE);
    rec_fini(&r);
}

void sim_gpu_tiler_tests(void)
{
    g_test_add_func("/sim-gpu/tiler-oom", test_tiler_oom);
    g_test_add_func("/sim-gpu/scene-ops-refused", test_scene_ops_refused);
    g_test_add_func("/sim-gpu/tiler/scene", test_tiler_scene);
    g_test_add_func("/sim-gpu/tiler/tile-preempt", test_tiler_tile_preempt);
    g_test_add_func("/sim-gpu/tiler/oom-partial", test_tiler_oom_partial);
    g_test_add_func("/sim-gpu/tiler/blit", test_tiler_blit);
}
