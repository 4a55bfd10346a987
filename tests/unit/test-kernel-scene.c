/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). Scenes: the partial render's answer
 * to TILER_OOM (firmware/kernel/kscene.c): a partial render's checks, a
 * TILER_OOM answered by the partial render on the kernel's own context with the
 * geometry held until it retired, no partial render (fails), the process killed
 * while its render is queued or its geometry held (everything back), a device
 * lost with its scene.
 */
#include "test-kernel.h"

struct scene_app {
    struct gv_app g;        /* h[0]: the target */
    uint32_t hpb;
    uint64_t pb_va;
    uint32_t cmd[64];
    struct umd_cmdbuf b;
};

static void scene_make(struct scene_app *a, const char *name)
{
    struct kapi_scene_pb_desc pd = {
        .tiles = SC_TILES, .size = 1024, .reserved = 1024, .step = 4096,
        .budget = 1024,
    };
    uint64_t f = 0;

    gv_make(&a->g, name, 1, 0);
    g_assert_cmpint(kapi_create_scene_pb(a->g.p, a->g.dev, &pd, &a->hpb,
                                         &a->pb_va), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a->g, 0, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_make_resident(a->g.p, a->g.dev, &a->hpb, 1, &f),
                    ==, DDI_OK);
    run();
}

/* The partial render: SET_TARGET, TILE_RENDER (flags as given). */
static struct kapi_scene_partial_desc scene_partial(struct scene_app *a,
                                                    bool partial,
                                                    uint64_t pb_va,
                                                    uint32_t tiles)
{
    umd_init(&a->b, a->cmd, sizeof(a->cmd));
    umd_va_set_target(&a->b, 0, a->g.va[0], SC_W * 4, SC_W, SC_H,
                      COPRO_FMT_XRGB8888);
    umd_va_tile_render(&a->b, 0, partial, pb_va, tiles);
    return (struct kapi_scene_partial_desc){
        .engine = 0, .prio = VIDSCH_PRIO_NORMAL, .cmd = umd_words(&a->b),
        .cmd_bytes = umd_bytes(&a->b),
    };
}

/* What the device leaves when the geometry of the buffer just submitted
 * on a's context stops on OOM: the save record names the scene, the
 * header says OOM; the ring is dropped; the upcall. */
static void scene_oom(struct scene_app *a, uint32_t need)
{
    struct kcontext *c = handle_lookup(&a->g.p->handles, a->g.ctx,
                                       HANDLE_CONTEXT);
    volatile struct copro_save_record *rec;
    struct copro_save_tiler t = {
        .scene = a->pb_va,
        .flags = COPRO_SAVE_TILER_SCENE | COPRO_SAVE_TILER_OOM,
    };
    volatile void *cpu;
    volatile struct copro_scene *h;
    uint64_t fence;

    g_assert_nonnull(c);
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    fence = gpu.q[0][0].fence;
    rec = vidmm_segment_cpu(&kern.seg, c->save_gpu);
    memcpy((void *)rec->reserved, &t, sizeof(t));
    g_assert_cmpint(kapi_lock(a->g.p, a->hpb, KAPI_LOCK_IGNORESYNC, &cpu),
                    ==, DDI_OK);
    h = cpu;
    h->state = COPRO_SCENE_OOM;
    h->pb_size = 1024;
    h->used = 1000;
    kapi_unlock(a->g.p, a->hpb);
    gpu.nq[0] = 0;
    kernel_upcalls.tiler_oom(&kern, 0, fence, need, gpu.completed[0]);
}

static int scene_geometry(struct scene_app *a)
{
    struct kapi_render_args ra;

    umd_init(&a->b, a->cmd, sizeof(a->cmd));
    umd_va_set_target(&a->b, 0, a->g.va[0], SC_W * 4, SC_W, SC_H,
                      COPRO_FMT_XRGB8888);
    umd_va_scene_begin(&a->b, 0, true, a->pb_va, 1024, 0);
    umd_bin_rect(&a->b, 0, 0, SC_W, SC_H, 0xff);
    umd_scene_end(&a->b);
    ra = (struct kapi_render_args){
        .cmd = umd_words(&a->b), .cmd_bytes = umd_bytes(&a->b),
    };
    return kapi_render(a->g.p, a->g.ctx, &ra);
}

/* kapi_scene_pb_partial's checks: its shape, its buffer, its engine,
 * the caller's handle. */
static void test_scene_partial_refusals(void)
{
    struct scene_app a, b;
    struct kapi_scene_partial_desc d;
    struct kernel_census start;

    setup_gpuva();
    take_census(&start);
    scene_make(&a, "a");
    scene_make(&b, "b");
    d = scene_partial(&a, false, a.pb_va, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    d = scene_partial(&a, true, a.pb_va + 8, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* another of its allocations: not this scene's parameter buffer */
    d = scene_partial(&a, true, a.g.va[0], SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    d = scene_partial(&a, true, a.pb_va, SC_TILES + 1);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* one more packet of another kind */
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    umd_rect(&a.b, 0, 0, 0, 1, 1, 0);
    d.cmd_bytes = umd_bytes(&a.b);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* two partial renders */
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    umd_va_tile_render(&a.b, 0, true, a.pb_va, SC_TILES);
    d.cmd_bytes = umd_bytes(&a.b);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* the copy engine does not render: the DDI says so */
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    d.engine = 1;
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==,
                    DDI_EOPCODE);
    d.engine = 7;
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    d.engine = 0;
    d.prio = VIDSCH_PRIO_REALTIME;
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==,
                    DDI_EACCESS);
    d.prio = VIDSCH_PRIO_NORMAL;
    /* another process's buffer, a stale or wrong-type handle */
    g_assert_cmpint(kapi_scene_pb_partial(b.g.p, a.hpb, &d), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.g.ctx, &d), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.g.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(b.g.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/*
 * An OOM answered by a partial render, step by step: the geometry is not
 * resumed while the kernel's render (on its own context, not the
 * process's) is on the GPU; once that retired the geometry resumes with
 * RESUME in its own save area. Then the scene's next OOM is answered the
 * same way. Counted in vidmm_pb and the kernel.
 */
static void test_scene_partial_oom(void)
{
    struct scene_app a;
    struct kapi_scene_partial_desc d;
    struct kernel_census start;
    struct kcontext *c;
    struct vidmm_pb pb;
    uint64_t save;

    setup_gpuva();
    take_census(&start);
    scene_make(&a, "a");
    c = handle_lookup(&a.g.p->handles, a.g.ctx, HANDLE_CONTEXT);
    save = c->save_gpu;
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    run();
    for (unsigned round = 1; round <= 2; round++) {
        scene_oom(&a, 128);
        run();
        /* the kernel's partial render on the GPU, alone: not the
         * geometry, not on the geometry's context */
        g_assert_cmpuint(gpu.nq[0], ==, 1);
        g_assert_cmpuint(gpu.q[0][0].context, !=, c->hw_id);
        g_assert_cmpuint(gpu.q[0][0].save_addr, !=, save);
        g_assert_cmphex(gpu.q[0][0].flags, ==, 0);
        g_assert_cmpuint(kern.scene.partials, ==, round);
        /* it retires: the geometry resumes where it stopped */
        gpu.completed[0] = gpu.q[0][0].fence;
        gpu.nq[0] = 0;
        kernel_upcalls.dma_completed(&kern, 0, gpu.completed[0]);
        run();
        g_assert_cmpuint(gpu.nq[0], ==, 1);
        g_assert_cmpuint(gpu.q[0][0].context, ==, c->hw_id);
        g_assert_cmphex(gpu.q[0][0].flags, ==, COPRO_SUBMIT_RESUME);
        g_assert_cmpuint(gpu.q[0][0].save_addr, ==, save);
    }
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_scene_pb_stats(a.g.p, a.hpb, &pb), ==, DDI_OK);
    g_assert_cmpuint(pb.ooms, ==, 2);
    g_assert_cmpuint(pb.partials, ==, 2);
    g_assert_cmpuint(pb.fails + pb.grows, ==, 0);
    g_assert_cmpuint(kern.scene.partial_errors, ==, 0);
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.g.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/* Without a partial render given, the same OOM fails the context (its
 * device removed), as before. */
static void test_scene_no_partial(void)
{
    struct scene_app a;
    struct vidmm_pb pb;

    setup_gpuva();
    scene_make(&a, "a");
    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    run();
    scene_oom(&a, 128);
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_ELOST);
    g_assert_cmpint(kapi_scene_pb_stats(a.g.p, a.hpb, &pb), ==, DDI_OK);
    g_assert_cmpuint(pb.fails, ==, 1);
    g_assert_cmpuint(kern.scene.partials, ==, 0);
}

/* The parameter buffer destroyed under a held geometry, before its
 * render was queued: the render is not run, the geometry is released at
 * once (not held for ever), stops again and is refused. */
static void test_scene_pb_destroyed(void)
{
    struct scene_app a;
    struct kapi_scene_partial_desc d;
    unsigned submits;

    setup_gpuva();
    scene_make(&a, "a");
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    run();
    scene_oom(&a, 128);
    g_assert_cmpint(kapi_destroy_allocation(a.g.p, a.hpb), ==, DDI_OK);
    submits = gpu.submits;
    run();
    /* the geometry again, not the render */
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpuint(gpu.q[0][0].context, ==,
                     ((struct kcontext *)handle_lookup(&a.g.p->handles,
                                                       a.g.ctx,
                                                       HANDLE_CONTEXT))
                     ->hw_id);
    g_assert_cmpuint(kern.scene.partial_errors, ==, 1);
    /* it stops on the same primitive: refused, its context lost */
    gpu.nq[0] = 1;
    kernel_upcalls.tiler_oom(&kern, 0, gpu.q[0][0].fence, 128,
                             gpu.completed[0]);
    gpu.nq[0] = 0;
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_ELOST);
    g_assert_true(kernel_gpu_idle(&kern));
}

/*
 * The process killed at the worst moments: right after the OOM was
 * answered (its render not yet queued), and while its geometry is held
 * behind its render on the GPU. Everything comes back (census), nothing
 * runs for the dead process afterwards, and the kernel's context goes
 * with its device.
 */
static void test_scene_partial_killed(void)
{
    struct kernel_census start;

    for (unsigned when = 0; when < 2; when++) {
        struct scene_app a;
        struct kapi_scene_partial_desc d;
        unsigned submits;

        setup_gpuva();
        take_census(&start);
        scene_make(&a, "a");
        d = scene_partial(&a, true, a.pb_va, SC_TILES);
        g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
        gpu.hold = true;
        g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
        run();
        scene_oom(&a, 128);
        if (when == 1) {
            run();      /* the render is on the GPU, the geometry held */
            g_assert_cmpuint(gpu.nq[0], ==, 1);
        }
        g_assert_cmpint(kapi_process_exit(a.g.p), ==, DDI_OK);
        run();
        submits = gpu.submits;
        if (when == 1) {
            /* the render is preempted (the fake answers once the ring is
             * empty): what comes back is lost */
            gpu.nq[0] = 0;
        }
        gpu.hold = false;
        run();
        g_assert_cmpuint(gpu.submits, ==, submits);
        g_assert_cmpuint(kern.scene.partial_errors, ==, 0);
        assert_census(&start);
    }
}

/* A fill of the first 4 KiB at va on context ctx of a (a tile pass's
 * stand-in: what matters is whether it runs). */
static int scene_fill(struct scene_app *a, uint32_t ctx, uint64_t va)
{
    struct kapi_render_args ra;

    umd_init(&a->b, a->cmd, sizeof(a->cmd));
    umd_va_fill(&a->b, va, 4096, 0x5a5a5a5a);
    ra = (struct kapi_render_args){
        .cmd = umd_words(&a->b), .cmd_bytes = umd_bytes(&a->b),
    };
    return kapi_render(a->g.p, ctx, &ra);
}

/*
 * A device lost stops all of its contexts [WDDM: device removed]: the
 * scene's geometry cannot be built (an OOM with no answer) and its
 * context is lost; the process's tile context, held on the geometry's
 * signal, is lost with it: its held buffer never runs (reported lost),
 * later calls on it get DDI_ELOST. The sync object is signalled with an
 * error: the process's own CPU waiter gets DDI_ELOST; another process
 * that opened it gets DDI_EABANDONED on the CPU and its GPU wait is
 * released (its buffer runs, its context stays healthy). A signal the
 * lost device queued on another process's object is written with its
 * value: that waiter is released too, and the object is not poisoned.
 */
static void test_scene_lost_device(void)
{
    struct scene_app a, b;
    struct waited wa = { 0 }, wb = { 0 }, wown = { 0 };
    struct kcontext *tc, *bc;
    uint32_t tile, name, hb, ha;
    uint64_t value = 0, lost;
    unsigned submits;

    setup_gpuva();
    scene_make(&a, "a");
    scene_make(&b, "b");
    g_assert_cmpint(kapi_create_context(a.g.p, a.g.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &tile), ==, DDI_OK);
    tc = handle_lookup(&a.g.p->handles, tile, HANDLE_CONTEXT);
    bc = handle_lookup(&b.g.p->handles, b.g.ctx, HANDLE_CONTEXT);
    g_assert_cmpint(kapi_share_sync(a.g.p, a.g.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.g.p, a.g.sync,
                                    kapi_process_id(b.g.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.g.p, b.g.dev, name, &hb), ==, DDI_OK);
    /* and a signals a sync object of b's (granted write) after its pass */
    g_assert_cmpint(kapi_share_sync(b.g.p, b.g.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(b.g.p, b.g.sync,
                                    kapi_process_id(a.g.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(a.g.p, a.g.dev, name, &ha), ==, DDI_OK);

    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.g.p, a.g.ctx, a.g.sync, 1), ==,
                    DDI_OK);
    /* the tile pass waits for the geometry, as the tiled game's does */
    g_assert_cmpint(kapi_wait_gpu(a.g.p, tile, a.g.sync, 1), ==, DDI_OK);
    g_assert_cmpint(scene_fill(&a, tile, a.g.va[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.g.p, tile, ha, 5), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.g.p, a.g.sync, 1, on_wait, &wa), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.g.p, b.g.sync, 5, on_wait, &wown), ==,
                    DDI_OK);
    /* another process's work waits on it too, on the GPU and the CPU */
    g_assert_cmpint(kapi_wait_gpu(b.g.p, b.g.ctx, hb, 1), ==, DDI_OK);
    g_assert_cmpint(scene_fill(&b, b.g.ctx, b.g.va[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.g.p, hb, 1, on_wait, &wb), ==, DDI_OK);
    run();
    lost = kern.stats.buffers_lost;
    scene_oom(&a, 128);     /* the geometry alone on the GPU */
    submits = gpu.submits;
    run();
    /* one buffer went to the GPU since: b's, released; nothing of a's */
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    g_assert_cmpuint(gpu.q[0][0].context, ==, bc->hw_id);
    g_assert_cmpuint(gpu.q[0][0].context, !=, tc->hw_id);
    gpu.hold = false;
    run();
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_ELOST);
    g_assert_cmpint(kapi_context_error(a.g.p, tile), ==, DDI_ELOST);
    g_assert_true(vidsch_ctx_is_lost(tc->vctx));
    g_assert_cmpuint(vidsch_stats(kern.vs)->contexts_lost_with_device, ==, 1);
    /* the geometry and the held tile pass: lost, never run */
    g_assert_cmpuint(kern.stats.buffers_lost, ==, lost + 2);
    g_assert_cmpint(scene_fill(&a, tile, a.g.va[0]), ==, DDI_ELOST);
    g_assert_cmpint(kapi_wait_gpu(a.g.p, tile, a.g.sync, 2), ==, DDI_ELOST);
    g_assert_cmpuint(wa.calls, ==, 1);
    g_assert_cmpint(wa.status, ==, DDI_ELOST);
    g_assert_cmpuint(wb.calls, ==, 1);
    g_assert_cmpint(wb.status, ==, DDI_EABANDONED);
    /* D3D12's value for a removed device's fence */
    g_assert_cmpint(kapi_sync_value(b.g.p, hb, &value), ==, DDI_OK);
    g_assert_cmphex(value, ==, UINT64_MAX);
    /* b's own object that a was to signal: released at the value a
     * promised (b's waiter does not hang), never poisoned: b signals on */
    g_assert_cmpuint(wown.calls, ==, 1);
    g_assert_cmpint(wown.status, ==, DDI_OK);
    g_assert_cmpint(kapi_sync_value(b.g.p, b.g.sync, &value), ==, DDI_OK);
    g_assert_cmpuint(value, ==, 5);
    g_assert_cmpint(kapi_signal_cpu(b.g.p, b.g.sync, 6), ==, DDI_OK);
    g_assert_cmpint(kapi_context_error(b.g.p, b.g.ctx), ==, DDI_OK);
    g_assert_cmpint(scene_fill(&b, b.g.ctx, b.g.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, submits + 2);
    g_assert_true(kernel_gpu_idle(&kern));
}

void kernel_tests_scene(void)
{
    g_test_add_func("/kernel/scene/partial-refusals",
                    test_scene_partial_refusals);
    g_test_add_func("/kernel/scene/partial-oom", test_scene_partial_oom);
    g_test_add_func("/kernel/scene/no-partial", test_scene_no_partial);
    g_test_add_func("/kernel/scene/partial-killed",
                    test_scene_partial_killed);
    g_test_add_func("/kernel/scene/pb-destroyed", test_scene_pb_destroyed);
    g_test_add_func("/kernel/scene/lost-device", test_scene_lost_device);
}
