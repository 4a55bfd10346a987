/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/hoarder.h"

#include <stddef.h>

#include "kernel/kdisplay.h"
#include "kernel/kernel.h"
#include "kernel/kisolate.h"

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
