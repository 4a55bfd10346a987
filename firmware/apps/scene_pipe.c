/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/scene_pipe.h"

int scene_pipe_create(struct scene_pipe *sp, struct kproc *p, uint32_t hdev,
                      unsigned geom_engine, unsigned tile_engine,
                      enum vidsch_priority prio,
                      const struct kapi_scene_pb_desc *pd)
{
    int st;

    *sp = (struct scene_pipe){ 0 };
    st = kapi_create_context(p, hdev, geom_engine, prio, &sp->hgeom);
    if (st == DDI_OK) {
        st = kapi_create_context(p, hdev, tile_engine, prio, &sp->htile);
    }
    if (st == DDI_OK) {
        st = kapi_create_sync(p, hdev, 0, &sp->hsync_geom);
    }
    if (st == DDI_OK) {
        st = kapi_create_sync(p, hdev, 0, &sp->hsync_tile);
    }
    if (st == DDI_OK) {
        st = kapi_create_scene_pb(p, hdev, pd, &sp->hpb, &sp->pb_va);
    }
    return st;
}

int scene_pipe_wait_paging(const struct scene_pipe *sp, struct kproc *p,
                           uint64_t fence)
{
    int st = DDI_OK;

    if (fence) {
        st = kapi_wait_paging(p, sp->hgeom, fence);
    }
    if (st == DDI_OK && fence) {
        st = kapi_wait_paging(p, sp->htile, fence);
    }
    return st;
}

static int render(struct kproc *p, uint32_t hctx, const struct umd_cmdbuf *b)
{
    struct kapi_render_args args = {
        .cmd = umd_words(b), .cmd_bytes = umd_bytes(b),
    };

    return umd_ok(b) ? kapi_render(p, hctx, &args) : DDI_ENOMEM;
}

int scene_pipe_geometry(const struct scene_pipe *sp, struct kproc *p,
                        const struct umd_cmdbuf *b, uint64_t n)
{
    int st = render(p, sp->hgeom, b);

    return st == DDI_OK ? kapi_signal_gpu(p, sp->hgeom, sp->hsync_geom, n)
                        : st;
}

int scene_pipe_tiles(const struct scene_pipe *sp, struct kproc *p,
                     const struct umd_cmdbuf *b, uint64_t n)
{
    int st = kapi_wait_gpu(p, sp->htile, sp->hsync_geom, n);

    if (st == DDI_OK) {
        st = render(p, sp->htile, b);
    }
    return st == DDI_OK ? kapi_signal_gpu(p, sp->htile, sp->hsync_tile, n)
                        : st;
}
