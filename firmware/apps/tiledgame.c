/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/tiledgame.h"

#include <copro/copro_tiler.h>

#include "kernel/kapi.h"
#include "lib/console.h"
#include "umd/umd.h"
#include "vidmm/vidmm_pb.h"

#define W(g)        ((g)->cfg.width)
#define H(g)        ((g)->cfg.height)
#define PITCH(g)    (W(g) * 4)
#define TILES(g)    ((g)->tiles)     /* of the device's tile size */
#define CLEAR       0x00101010u
#define PB_STEP     4096u

struct rect {
    uint32_t x, y, w, h, colour;
};

static void finish(struct tiledgame *g)
{
    g->done = true;
    if (g->app.stopping) {
        g->app.drained = true;
    }
}

static void fail(struct tiledgame *g, const char *what, int st)
{
    app_fail(&g->app, what, st);
    finish(g);
}

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Rectangle i of frame f: the same on the GPU and in the reference. */
static struct rect frame_rect(const struct tiledgame *g, unsigned f,
                              unsigned i)
{
    uint32_t s = g->cfg.seed * 7919u + f * 131u + i;
    struct rect r;

    rnd(&s);
    r.colour = (rnd(&s) & 0xffffff) | 0x00010101u;
    if (i < TILEDGAME_LAYERS) {
        r.x = r.y = 0;
        r.w = W(g);
        r.h = H(g);
    } else {
        r.x = rnd(&s) % W(g);
        r.y = rnd(&s) % H(g);
        r.w = 1 + rnd(&s) % (W(g) - r.x);
        r.h = 1 + rnd(&s) % (H(g) - r.y);
    }
    return r;
}

/* Rows [y0, y1) of frame f's reference: the same drawing as the GPU's. */
static void draw_reference_rows(struct tiledgame *g, unsigned f, uint32_t y0,
                                uint32_t y1)
{
    for (uint32_t i = y0 * W(g); i < y1 * W(g); i++) {
        g->ref[i] = CLEAR;
    }
    for (unsigned i = 0; i < TILEDGAME_LAYERS + TILEDGAME_RECTS; i++) {
        struct rect r = frame_rect(g, f, i);
        uint32_t a = r.y > y0 ? r.y : y0;
        uint32_t b = r.y + r.h < y1 ? r.y + r.h : y1;

        for (uint32_t y = a; y < b; y++) {
            for (uint32_t x = r.x; x < r.x + r.w; x++) {
                g->ref[y * W(g) + x] = r.colour;
            }
        }
    }
}

static void next_frame(struct tiledgame *g);

/*
 * One band of the frame's pixel check: the reference of CHECK_ROWS rows
 * drawn and compared. The kernel's loop runs an application's step to
 * its end before it takes interrupts and DPCs, so checking a whole
 * 256 x 192 frame in one step held every other process's completions
 * for about 3 ms of guest time (the tiled compositor's 3 ms p99 wait);
 * a band per step lets them in between.
 */
#define CHECK_ROWS  4u

static void check_band(void *arg, uint64_t now)
{
    struct tiledgame *g = arg;
    uint32_t y0 = g->check_y;
    uint32_t y1 = y0 + CHECK_ROWS < H(g) ? y0 + CHECK_ROWS : H(g);
    volatile void *cpu = NULL;
    const volatile uint32_t *px;
    int st;

    (void)now;
    st = kapi_lock(g->app.proc, g->htarget, KAPI_LOCK_IGNORESYNC, &cpu);
    if (st != DDI_OK) {
        fail(g, "lock", st);
        return;
    }
    draw_reference_rows(g, g->frame, y0, y1);
    px = cpu;
    for (uint32_t i = y0 * W(g); i < y1 * W(g); i++) {
        uint32_t v = px[i] & 0xffffff;

        g->bad_pixels += v != g->ref[i];
        g->check_crc = (g->check_crc ^ v) * 16777619u;
    }
    kapi_unlock(g->app.proc, g->htarget);
    g->check_y = y1;
    if (y1 < H(g)) {
        kapi_timer_arm(g->app.proc, &g->check, kapi_now(g->app.proc));
        return;
    }
    if (g->frame < TILEDGAME_CRC_FRAMES) {
        g->crc[g->frame] = g->check_crc;
    }
    g->frames_checked++;
    g->frame++;
    next_frame(g);
}

static void frame_done(void *arg, int status)
{
    struct tiledgame *g = arg;
    volatile void *cpu = NULL;
    int st;

    if (status != DDI_OK) {
        fail(g, "wait_cpu", status);
        return;
    }
    g->app.completed++;
    st = kapi_lock(g->app.proc, g->hstamp, KAPI_LOCK_IGNORESYNC, &cpu);
    if (st != DDI_OK) {
        fail(g, "lock", st);
        return;
    }
    {
        const volatile uint64_t *t = cpu;

        /* geometry done -> tile pass started (GPU clock) */
        if (t[1] >= t[0] && t[0]) {
            app_latency(&g->app, t[1] - t[0]);
        } else {
            app_fail(&g->app, "frame timestamps", DDI_EINVAL);
        }
    }
    kapi_unlock(g->app.proc, g->hstamp);
    /* the device's count of the scene's partial renders */
    st = kapi_lock(g->app.proc, g->sp.hpb, KAPI_LOCK_IGNORESYNC, &cpu);
    if (st != DDI_OK) {
        fail(g, "lock", st);
        return;
    }
    {
        const volatile struct copro_scene *sc = cpu;

        g->scene_partials += sc->partials;
        if (sc->tile_end > sc->geom_start) {
            g->scene_ns += sc->tile_end - sc->geom_start;
        }
    }
    kapi_unlock(g->app.proc, g->sp.hpb);
    g->check_y = 0;
    g->check_crc = 2166136261u;     /* FNV-1a of the frame's pixels */
    check_band(g, 0);
}

static void next_frame(struct tiledgame *g)
{
    struct kproc *p = g->app.proc;
    uint64_t v = g->frame + 1;
    struct vidmm_pb pb;
    struct umd_cmdbuf b;
    int st;

    if (g->frame == g->cfg.frames || g->app.stopping) {
        finish(g);
        return;
    }
    /* the size the kernel let it grow to so far */
    st = kapi_scene_pb_stats(p, g->sp.hpb, &pb);
    if (st != DDI_OK) {
        fail(g, "scene_pb_stats", st);
        return;
    }
    /* geometry: bin the frame */
    umd_init(&b, g->cmd, sizeof(g->cmd));
    umd_va_set_target(&b, 0, g->target_va, PITCH(g), W(g), H(g),
                      COPRO_FMT_XRGB8888);
    umd_va_scene_begin(&b, 0, true, g->sp.pb_va, pb.size, CLEAR);
    for (unsigned i = 0; i < TILEDGAME_LAYERS + TILEDGAME_RECTS; i++) {
        struct rect r = frame_rect(g, g->frame, i);

        umd_bin_rect(&b, r.x, r.y, r.w, r.h, r.colour);
    }
    umd_scene_end(&b);
    umd_va_timestamp(&b, g->stamp_va);
    st = scene_pipe_geometry(&g->sp, p, &b, v);
    if (st != DDI_OK) {
        fail(g, "geometry", st);
        return;
    }
    g->app.submitted++;
    /* tile pass: after the geometry retired */
    umd_init(&b, g->cmd, sizeof(g->cmd));
    umd_va_set_target(&b, 0, g->target_va, PITCH(g), W(g), H(g),
                      COPRO_FMT_XRGB8888);
    umd_va_timestamp(&b, g->stamp_va + 8);
    umd_va_tile_render(&b, 0, false, g->sp.pb_va, TILES(g));
    st = scene_pipe_tiles(&g->sp, p, &b, v);
    if (st == DDI_OK) {
        st = kapi_wait_cpu(p, g->sp.hsync_tile, v, frame_done, g);
    }
    if (st != DDI_OK) {
        fail(g, "tile pass", st);
    }
}

static void start(struct app *a)
{
    next_frame((struct tiledgame *)a);
}

static void stop(struct app *a)
{
    if (((struct tiledgame *)a)->done) {
        a->drained = true;
    }
}

static void check(struct app *a, struct report *r)
{
    struct tiledgame *g = (struct tiledgame *)a;
    struct vidmm_pb pb = { 0 };

    kapi_scene_pb_stats(a->proc, g->sp.hpb, &pb);
    if (a->expect_lost) {
        /* a scene it could not finish: its own device is gone, what it
         * did show before was right */
        report(r, g->frames_checked < g->cfg.frames && g->bad_pixels == 0,
               "%s: lost after %lu of %u scenes, those checked right (%lu "
               "wrong pixels)", a->name, g->frames_checked, g->cfg.frames,
               g->bad_pixels);
        return;
    }
    report(r, g->frames_checked == g->cfg.frames && g->bad_pixels == 0,
           "%s: %lu of %u scenes (%u rectangles, %u full layers, %u x %u) "
           "checked pixel by pixel: %lu wrong", a->name, g->frames_checked,
           g->cfg.frames, TILEDGAME_LAYERS + TILEDGAME_RECTS,
           TILEDGAME_LAYERS, W(g), H(g), g->bad_pixels);
    kprintf("# %s: parameter buffer %u bytes now (of %u), %u OOMs: "
            "%u grown (%lu bytes), %u partial renders (%lu in the scene "
            "headers), %u refused; a scene %lu us from SCENE_BEGIN to its "
            "last tile stored (mean, device clock)\n", a->name, pb.size,
            g->cfg.pb_reserved, pb.ooms, pb.grows, pb.grown_bytes,
            pb.partials, g->scene_partials, pb.fails,
            g->frames_checked ? g->scene_ns / g->frames_checked / 1000 : 0);
}

static const struct app_ops tiledgame_ops = {
    .start = start,
    .stop = stop,
    .check = check,
};

void tiledgame_config_default(struct tiledgame_config *c)
{
    *c = (struct tiledgame_config){
        .prio = VIDSCH_PRIO_NORMAL,
        .tile_engine = COPRO_ENGINE_RENDER,
        .frames = 4,
        .width = 128,
        .height = 96,
        .pb_size = 65536,
        .pb_reserved = 65536,
        .seed = 1,
    };
}

int tiledgame_init(struct tiledgame *g, struct kernel *k, const char *name,
                   const struct tiledgame_config *cfg)
{
    struct app *a = &g->app;
    struct kapi_alloc_desc d;
    struct kapi_scene_pb_desc pd;
    uint32_t res[3];
    uint64_t fence = 0;
    int st;

    *g = (struct tiledgame){ .cfg = *cfg };
    kapi_timer_init(&g->check, check_band, g);
    *a = (struct app){
        .name = name, .k = k, .engine = COPRO_ENGINE_RENDER,
        .prio = cfg->prio, .ops = &tiledgame_ops,
    };
    if (!cfg->width || cfg->width > TILEDGAME_MAX_W || !cfg->height ||
        cfg->height > TILEDGAME_MAX_H) {
        app_fail(a, "config", DDI_EINVAL);
        return DDI_EINVAL;
    }
    d = (struct kapi_alloc_desc){
        .size = PITCH(g) * H(g), .cpu_visible = true, .zeroed = true,
    };
    a->proc = kapi_process_create(k, name);
    if (!a->proc) {
        app_fail(a, "process_create", DDI_ENOMEM);
        return DDI_ENOMEM;
    }
    g->tiles = kapi_scene_tiles(a->proc, W(g), H(g));
    if (!g->tiles) {
        app_fail(a, "scene_tiles", DDI_ENOTSUP);
        return DDI_ENOTSUP;
    }
    pd = (struct kapi_scene_pb_desc){
        .tiles = TILES(g), .size = cfg->pb_size,
        .reserved = cfg->pb_reserved, .step = PB_STEP,
        .budget = cfg->pb_budget ? cfg->pb_budget : cfg->pb_reserved,
    };
    st = kapi_create_device_gpuva(a->proc, &a->hdev);
    if (st == DDI_OK) {
        st = scene_pipe_create(&g->sp, a->proc, a->hdev, a->engine,
                               cfg->tile_engine, a->prio, &pd);
        a->hctx = g->sp.hgeom;
    }
    if (st == DDI_OK) {
        st = kapi_create_allocation(a->proc, a->hdev, &d, &g->htarget);
    }
    if (st == DDI_OK) {
        st = kapi_gpu_va(a->proc, g->htarget, &g->target_va);
    }
    if (st == DDI_OK) {
        d.size = 4096;
        st = kapi_create_allocation(a->proc, a->hdev, &d, &g->hstamp);
    }
    if (st == DDI_OK) {
        st = kapi_gpu_va(a->proc, g->hstamp, &g->stamp_va);
    }
    if (st == DDI_OK && cfg->partial) {
        /* the scene's partial render: what the kernel runs when the
         * buffer may not grow (kernel/kscene.h) */
        struct umd_cmdbuf b;
        struct kapi_scene_partial_desc pr;
        uint64_t va = g->target_va;

        if (cfg->partial_faults) {
            /* a surface of the right shape, never made resident */
            d.size = PITCH(g) * H(g);
            st = kapi_create_allocation(a->proc, a->hdev, &d, &g->hunmapped);
            if (st == DDI_OK) {
                st = kapi_gpu_va(a->proc, g->hunmapped, &va);
            }
        }
        umd_init(&b, g->cmd, sizeof(g->cmd));
        umd_va_set_target(&b, 0, va, PITCH(g), W(g), H(g),
                          COPRO_FMT_XRGB8888);
        umd_va_tile_render(&b, 0, true, g->sp.pb_va, TILES(g));
        pr = (struct kapi_scene_partial_desc){
            .engine = cfg->tile_engine, .prio = cfg->prio,
            .cmd = umd_words(&b), .cmd_bytes = umd_bytes(&b),
        };
        if (st == DDI_OK) {
            st = umd_ok(&b) ? kapi_scene_pb_partial(a->proc, g->sp.hpb, &pr)
                            : DDI_ENOMEM;
        }
    }
    if (st == DDI_OK) {
        res[0] = g->htarget;
        res[1] = g->sp.hpb;
        res[2] = g->hstamp;
        st = kapi_make_resident(a->proc, a->hdev, res, 3, &fence);
    }
    if (st == DDI_OK) {
        st = scene_pipe_wait_paging(&g->sp, a->proc, fence);
    }
    if (st != DDI_OK) {
        app_fail(a, "setup", st);
    }
    return st;
}
