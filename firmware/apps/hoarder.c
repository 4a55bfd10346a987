/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/hoarder.h"

#include <stddef.h>

#include "kernel/kdisplay.h"
#include "kernel/kernel.h"
#include "kernel/kisolate.h"
#include "kernel/kscene.h"

_Static_assert(offsetof(struct hoarder, app) == 0, "app first");

/* Every vsync frees the slot: it takes it again at once. */
static void on_vsync(void *arg, int status, uint64_t vsyncs, uint64_t time)
{
    struct hoarder *h = arg;
    int st;

    (void)vsyncs;
    (void)time;
    if (status == DDI_OK && !h->app.stopping) {
        st = kapi_wait_vsync(h->app.proc, h->app.hdev, 0, on_vsync, h);
        if (st == DDI_OK) {
            return;     /* held again */
        }
        h->rearm_refused++;
        h->rearm_status = st;
    }
    if (!--h->vsync_held && h->app.stopping) {
        h->app.drained = true;
    }
}

static void hoard_vsync(struct hoarder *h)
{
    struct hoard *v = &h->vsync;

    v->last = DDI_OK;
    while (v->got < HOARDER_MAX && v->last == DDI_OK) {
        v->last = kapi_wait_vsync(h->app.proc, h->app.hdev, 0, on_vsync, h);
        v->got += v->last == DDI_OK;
    }
    h->vsync_held = v->got;
}

static void hoard_names(struct hoarder *h)
{
    struct hoard *n = &h->names;
    struct kapi_alloc_desc d = { .size = 64 };
    uint32_t name;

    n->last = DDI_OK;
    while (n->got < HOARDER_MAX && n->last == DDI_OK) {
        n->last = kapi_create_allocation(h->app.proc, h->app.hdev, &d,
                                         &h->halloc[n->got]);
        if (n->last == DDI_OK) {
            n->last = kapi_share_allocation(h->app.proc, h->halloc[n->got],
                                            &name);
            n->got += n->last == DDI_OK;
        }
    }
}

/* Its first shared allocation, granted to process ids nobody has (ids
 * above the process table's). */
static void hoard_grants(struct hoarder *h)
{
    struct hoard *g = &h->grants;

    g->last = h->names.got ? DDI_OK : DDI_EINVAL;
    while (g->got < 2 * HOARDER_MAX && g->last == DDI_OK) {
        g->last = kapi_grant_allocation(h->app.proc, h->halloc[0],
                                        128 + g->got, KAPI_ACCESS_READ);
        g->got += g->last == DDI_OK;
    }
}

/* ---- GPU-VA mode ---- */

#define GV_STEP_NS      (100 * 1000ull)
#define GV_ALLOC_BYTES  (64u << 10)

enum { GV_PBS, GV_ALLOCS, GV_RESIDENT, GV_DONE };

/* One call of the current hoard: false once it is over (refused). */
static bool gv_one(struct hoard *x, int st)
{
    if (st == DDI_EBUSY) {
        return true;    /* paging buffers in flight: again next step */
    }
    x->last = st;
    x->got += st == DDI_OK;
    return st == DDI_OK && x->got < HOARDER_MAX;
}

static void gv_step(void *arg, uint64_t now)
{
    struct hoarder *h = arg;
    struct kproc *p = h->app.proc;
    struct kapi_scene_pb_desc pd = {
        .tiles = kapi_scene_tiles(p, 64, 64), .size = 1024,
        .reserved = 4096, .step = 4096, .budget = 4096,
    };
    struct kapi_alloc_desc d = { .size = GV_ALLOC_BYTES };
    uint32_t hpb;
    uint64_t va, fence;
    bool more = false;

    switch (h->step) {
    case GV_PBS:
        more = gv_one(&h->pbs, kapi_create_scene_pb(p, h->hgv, &pd, &hpb,
                                                       &va));
        break;
    case GV_ALLOCS:
        more = gv_one(&h->gv_allocs,
                      kapi_create_allocation(p, h->hgv, &d,
                                             &h->halloc[h->gv_allocs.got]));
        break;
    case GV_RESIDENT:
        more = h->gv_resident.got < h->gv_allocs.got &&
               gv_one(&h->gv_resident,
                      kapi_make_resident(p, h->hgv,
                                         &h->halloc[h->gv_resident.got], 1,
                                         &fence));
        break;
    default:
        return;
    }
    h->step += !more;
    if (h->step != GV_DONE) {
        kapi_timer_arm(p, &h->timer, now + GV_STEP_NS);
    }
}

bool hoarder_hoarded(void *arg)
{
    const struct hoarder *h = arg;

    return h->step == GV_DONE || h->app.fail_what;
}

static void hoarder_start(struct app *a)
{
    (void)a;    /* it hoarded at init; its vsync waits re-arm */
}

static void hoarder_stop(struct app *a)
{
    struct hoarder *h = (struct hoarder *)a;

    a->drained = !h->vsync_held;
}

static void report_hoard(const struct hoarder *h, const struct hoard *x,
                         struct report *r)
{
    report(r, x->last == DDI_EQUOTA && x->got == x->want,
           "%s: %s stopped at %u (its quota: %u) with %s", h->app.name,
           x->what, x->got, x->want, ddi_status_name(x->last));
}

static void hoarder_check(struct app *a, struct report *r)
{
    struct hoarder *h = (struct hoarder *)a;

    if (h->gpuva) {
        report_hoard(h, &h->pbs, r);
        report_hoard(h, &h->gv_allocs, r);
        report_hoard(h, &h->gv_resident, r);
        return;
    }
    report_hoard(h, &h->vsync, r);
    report_hoard(h, &h->names, r);
    report_hoard(h, &h->grants, r);
    report(r, h->rearm_refused == 0, "%s: its vsync waits taken again "
           "from their callbacks were never refused (%lu, %s)", a->name,
           h->rearm_refused, ddi_status_name(h->rearm_status));
}

static const struct app_ops hoarder_ops = {
    .start = hoarder_start, .stop = hoarder_stop, .check = hoarder_check,
};

int hoarder_init(struct hoarder *h, struct kernel *k, const char *name)
{
    int st;

    *h = (struct hoarder){
        .vsync = { .what = "vsync waits",
                   .want = KDISPLAY_VSYNC_WAITS / 2 },
        .names = { .what = "shared names",
                   .want = KERNEL_MAX_SHARED / 2 },
        .grants = { .what = "grants", .want = KISOLATE_GRANTS / 2 },
    };
    st = app_init(&h->app, k, name, 0, VIDSCH_PRIO_NORMAL, &hoarder_ops);
    if (st == DDI_OK) {
        hoard_vsync(h);
        hoard_names(h);
        hoard_grants(h);
    }
    return st;
}

int hoarder_init_gpuva(struct hoarder *h, struct kernel *k,
                       const char *name)
{
    int st;

    *h = (struct hoarder){
        .gpuva = true,
        .pbs = { .what = "parameter buffers", .want = KSCENE_MAX_PB / 2 },
        /* the parameter buffers are GPU-VA allocations too */
        .gv_allocs = { .what = "GPU-VA allocations",
                       .want = KGPUVA_MAX_ALLOCS / 2 - KSCENE_MAX_PB / 2 },
        .gv_resident = { .what = "allocations made resident" },
    };
    st = app_init(&h->app, k, name, 0, VIDSCH_PRIO_NORMAL, &hoarder_ops);
    if (st == DDI_OK) {
        st = kapi_create_device_gpuva(h->app.proc, &h->hgv);
    }
    if (st != DDI_OK) {
        app_fail(&h->app, "create_device_gpuva", st);
        return st;
    }
    /* what its quota of referenced GPU-VA VRAM lets it hold (its
     * budget: half of the VRAM) */
    {
        uint64_t budget = 0, usage = 0;

        kapi_query_video_memory(h->app.proc, &budget, &usage);
        h->gv_resident.want = (unsigned)(budget / GV_ALLOC_BYTES);
    }
    kapi_timer_init(&h->timer, gv_step, h);
    kapi_timer_arm(h->app.proc, &h->timer, kapi_now(h->app.proc));
    return DDI_OK;
}
