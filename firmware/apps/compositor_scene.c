/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compositor composing in scenes (apps/compositor.h, "In scenes"):
 * a GPU-VA device of its own process, a geometry context on the render
 * engine and a tile context on the tile engine, both HIGH as the
 * compositor is, a parameter buffer of the kernel's (kapi_create_scene_pb)
 * and GPU-VA views of the primaries and of the windows' surfaces.
 */
#include "apps/compositor_scene.h"

#include <copro/copro_tiler.h>

#include "kernel/kapi.h"
#include "umd/umd.h"
#include "vidmm/vidmm_pb.h"

#define PB_BYTES    (128u << 10)    /* the parameter buffer, at first */
#define PB_RESERVED (512u << 10)    /* what it may grow to */
#define PB_STEP     (16u << 10)

static int sc_fail(struct compositor *c, const char *what, int st)
{
    app_fail(&c->f.app, what, st);
    return st;
}

int comp_scene_view(struct compositor *c, const uint32_t *halloc,
                    unsigned n, uint64_t *va)
{
    struct compositor_scenes *sc = &c->sc;
    struct app *a = &c->f.app;
    uint64_t fence = 0;
    int st;

    st = kapi_map_gpu_va(a->proc, sc->hdev, halloc, n, va, &fence);
    /* nothing of the scenes may run before its entries are written */
    return st == DDI_OK ? scene_pipe_wait_paging(&sc->pipe, a->proc, fence)
                        : st;
}

int compositor_use_scenes(struct compositor *c, unsigned tile_engine)
{
    struct compositor_scenes *sc = &c->sc;
    struct app *a = &c->f.app;
    struct kapi_alloc_desc d = {
        .size = COMPOSITOR_RECORDS * 8, .cpu_visible = true, .zeroed = true,
    };
    struct kapi_scene_pb_desc pd;
    uint32_t res[2];
    uint64_t fence = 0;
    int st;

    if (a->fail_what) {
        return a->fail_status;
    }
    if (c->nwin || c->cursor.owner || sc->on) {
        return sc_fail(c, "scenes", DDI_EINVAL);
    }
    sc->tile_engine = tile_engine;
    sc->tiles = kapi_scene_tiles(a->proc, c->disp.width, c->disp.height);
    if (!sc->tiles) {
        return sc_fail(c, "scene_tiles", DDI_ENOTSUP);
    }
    pd = (struct kapi_scene_pb_desc){
        .tiles = sc->tiles, .size = PB_BYTES, .reserved = PB_RESERVED,
        .step = PB_STEP, .budget = PB_RESERVED,
    };
    st = kapi_create_device_gpuva(a->proc, &sc->hdev);
    if (st == DDI_OK) {
        st = scene_pipe_create(&sc->pipe, a->proc, sc->hdev,
                               COPRO_ENGINE_RENDER, tile_engine, a->prio,
                               &pd);
    }
    if (st == DDI_OK) {
        st = kapi_create_allocation(a->proc, sc->hdev, &d, &sc->hstamp);
    }
    if (st == DDI_OK) {
        st = kapi_gpu_va(a->proc, sc->hstamp, &sc->stamp_va);
    }
    if (st == DDI_OK) {
        res[0] = sc->pipe.hpb;
        res[1] = sc->hstamp;
        st = kapi_make_resident(a->proc, sc->hdev, res, 2, &fence);
    }
    if (st == DDI_OK) {
        st = scene_pipe_wait_paging(&sc->pipe, a->proc, fence);
    }
    if (st == DDI_OK) {
        st = comp_scene_view(c, c->hprimary, 2, sc->primary_va);
    }
    if (st != DDI_OK) {
        return sc_fail(c, "scenes", st);
    }
    sc->on = true;
    return DDI_OK;
}

bool comp_scene_submit(struct compositor *c, uint64_t n,
                       const struct compositor_frame *r,
                       const struct picture *desk, const int *win_buf,
                       int cursor_buf)
{
    struct compositor_scenes *sc = &c->sc;
    struct kproc *p = c->f.app.proc;
    uint32_t w = c->disp.width, h = c->disp.height, pitch = c->disp.pitch;
    uint64_t target = sc->primary_va[r->primary];
    struct vidmm_pb pb;
    struct umd_cmdbuf b;
    int st;

    /* the size the kernel let the parameter buffer grow to so far */
    st = kapi_scene_pb_stats(p, sc->pipe.hpb, &pb);
    if (st != DDI_OK) {
        sc_fail(c, "scene_pb_stats", st);
        return false;
    }
    /* geometry: the frame's first packet is its start */
    umd_init(&b, sc->geom, sizeof(sc->geom));
    umd_va_timestamp(&b, sc->stamp_va + (n % COMPOSITOR_RECORDS) * 8);
    umd_va_set_target(&b, 0, target, pitch, w, h, COPRO_FMT_XRGB8888);
    umd_va_scene_begin(&b, 0, true, sc->pipe.pb_va, pb.size,
                       desk->background);
    for (unsigned i = 0; i < desk->n; i++) {
        const struct pic_rect *q = &desk->r[i];

        umd_bin_rect(&b, q->x, q->y, q->w, q->h, q->colour);
    }
    for (unsigned i = 0; i < c->nwin; i++) {
        const struct compositor_window *win = &c->win[i];
        uint32_t ww = win->owner->cfg.width;

        if (win_buf[i] >= 0) {
            umd_va_bin_blit(&b, win->va[win_buf[i]], ww * 4, win->x, win->y,
                            ww, win->owner->cfg.height);
        }
    }
    /* the cursor drawn in: its opaque span of each row */
    for (uint32_t y = 0; cursor_buf >= 0 && y < DDI_POINTER_SIZE; y++) {
        uint32_t x0 = c->span[y][0], x1 = c->span[y][1];

        if (x0 != x1) {
            umd_va_bin_blit(&b, c->cursor.va[cursor_buf] +
                                (uint64_t)y * DDI_POINTER_SIZE * 4 + x0 * 4,
                            DDI_POINTER_SIZE * 4, (uint32_t)r->cx + x0,
                            (uint32_t)r->cy + y, x1 - x0, 1);
        }
    }
    umd_scene_end(&b);
    st = scene_pipe_geometry(&sc->pipe, p, &b, n);
    if (st != DDI_OK) {
        sc_fail(c, "scene geometry", st);
        return false;
    }
    /* the tile pass, once the geometry retired */
    umd_init(&b, sc->tile, sizeof(sc->tile));
    umd_va_set_target(&b, 0, target, pitch, w, h, COPRO_FMT_XRGB8888);
    umd_va_tile_render(&b, 0, false, sc->pipe.pb_va, sc->tiles);
    st = scene_pipe_tiles(&sc->pipe, p, &b, n);
    /* the frame's own buffer (its signal: frame n composed) after it */
    if (st == DDI_OK) {
        st = kapi_wait_gpu(p, c->f.app.hctx, sc->pipe.hsync_tile, n);
    }
    if (st != DDI_OK) {
        sc_fail(c, "scene tile pass", st);
        return false;
    }
    sc->scenes++;
    return true;
}

uint64_t comp_scene_start(struct compositor *c, uint64_t n)
{
    volatile void *cpu = NULL;
    uint64_t t;

    if (kapi_lock(c->f.app.proc, c->sc.hstamp, KAPI_LOCK_IGNORESYNC,
                  &cpu) != DDI_OK) {
        return 0;
    }
    t = ((volatile const uint64_t *)cpu)[n % COMPOSITOR_RECORDS];
    kapi_unlock(c->f.app.proc, c->sc.hstamp);
    return t;
}
