/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_host_scene.h"

#include <string.h>

void sim_scene_os_init(struct sim_scene_os *o, struct sim_host *h)
{
    memset(o, 0, sizeof(*o));
    o->h = h;
}

void sim_scene_os_add_proc(struct sim_scene_os *o, unsigned proc,
                           struct vidsch_ctx *kern, uint64_t budget)
{
    if (proc < SIM_SCENE_OS_PROCS) {
        o->proc[proc].kern = kern;
        o->proc[proc].budget_left = budget;
    }
}

int sim_scene_os_add_scene(struct sim_scene_os *o, uint64_t geom_cookie,
                           unsigned proc, uint64_t pb, uint32_t tiles,
                           uint32_t size, uint32_t reserved,
                           struct ddi_dmabuf *partial,
                           uint64_t partial_cookie)
{
    struct sim_scene_os_scene *s;
    int rc;

    if (o->nscene >= SIM_SCENE_OS_SCENES || proc >= SIM_SCENE_OS_PROCS) {
        return DDI_ENOMEM;
    }
    s = &o->scene[o->nscene];
    *s = (struct sim_scene_os_scene){
        .geom_cookie = geom_cookie, .proc = proc, .partial = partial,
        .partial_cookie = partial_cookie,
    };
    rc = vidmm_pb_init(&s->pb, pb, tiles, size, reserved, 4096);
    if (rc == DDI_OK) {
        o->nscene++;
    }
    return rc;
}

struct sim_scene_os_scene *sim_scene_os_find(struct sim_scene_os *o,
                                             uint64_t geom_cookie)
{
    for (unsigned i = 0; i < o->nscene; i++) {
        if (o->scene[i].geom_cookie == geom_cookie) {
            return &o->scene[i];
        }
    }
    return NULL;
}

/* Not at DPC level: the worker's time (vidsch may be called). */
static void submit_partial_cb(void *obj, uint64_t i)
{
    struct sim_scene_os *o = obj;
    struct sim_scene_os_scene *s = &o->scene[i];

    struct vidsch_ctx *kern = o->proc[s->proc].kern;

    if (vidsch_submit(o->h->vs, kern, s->partial, NULL,
                      s->partial_cookie) != DDI_OK ||
        vidsch_signal(o->h->vs, kern, &o->proc[s->proc].partial_fence,
                      s->partial_value) != DDI_OK) {
        /* the kernel context is gone (a device reset lost it): nothing
         * will empty the bins; let the geometry go (it stops again) */
        s->partial_pending = false;
        o->proc[s->proc].partial_fence = s->partial_value;
        vidsch_sync_changed(o->h->vs);
    }
}

int sim_scene_os_oom(struct sim_scene_os *o, uint64_t cookie,
                     uint32_t context, uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait)
{
    struct sim_scene_os_scene *s = sim_scene_os_find(o, cookie);
    struct copro_scene *hdr;
    uint32_t new_size = 0;

    (void)context;
    (void)save_addr;
    if (!s) {
        o->fails++;
        return VIDSCH_OOM_FAIL;
    }
    if (s->partial_pending) {
        /* stopped again before the partial pass ran (only when the
         * geometry is not held): the pass in flight answers this too */
        return VIDSCH_OOM_RESUME;
    }
    hdr = sim_gpu_ptr(o->h->gpu, s->pb.va);
    switch (vidmm_pb_oom(&s->pb, hdr->used, need,
                         o->proc[s->proc].budget_left, &new_size)) {
    case VIDMM_PB_GROW:
        /* the reservation is backed already: commit = raise pb_size */
        o->proc[s->proc].budget_left -= new_size - hdr->pb_size;
        hdr->pb_size = new_size;
        o->grows++;
        return VIDSCH_OOM_RESUME;
    case VIDMM_PB_PARTIAL:
        if (!o->proc[s->proc].kern || !wait) {
            break;      /* no kernel context, or vidsch cannot hold it */
        }
        s->partial_pending = true;
        s->partial_value = ++o->proc[s->proc].partial_seq;
        o->partials++;
        /* from a work item: the upcall may not call vidsch */
        sim_at(&o->h->clk, o->h->clk.now, submit_partial_cb, o,
               (uint64_t)(s - o->scene));
        if (o->no_hold) {
            return VIDSCH_OOM_RESUME;
        }
        wait->addr = &o->proc[s->proc].partial_fence;
        wait->value = s->partial_value;
        return VIDSCH_OOM_PARTIAL;
    case VIDMM_PB_FAIL:
        break;
    }
    o->fails++;
    return VIDSCH_OOM_FAIL;
}

bool sim_scene_os_buffer_done(struct sim_scene_os *o, uint64_t cookie,
                              int status)
{
    (void)status;
    for (unsigned i = 0; i < o->nscene; i++) {
        struct sim_scene_os_scene *s = &o->scene[i];

        if (s->partial && s->partial_cookie == cookie) {
            s->partial_pending = false;
            return true;
        }
    }
    return false;
}
