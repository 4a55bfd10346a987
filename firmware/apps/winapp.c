/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/winapp.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#include "lib/console.h"

_Static_assert(offsetof(struct winapp, f) == 0, "frameapp first");

static bool build(struct frameapp *f, uint64_t n, struct umd_cmdbuf *b)
{
    struct winapp *w = (struct winapp *)f;
    const struct winapp_config *c = &w->cfg;
    uint32_t pitch = c->width * 4;
    uint64_t left = c->work_ns;

    while (left) {
        uint64_t ns = left < c->work_packet_ns ? left : c->work_packet_ns;

        umd_work(b, ns);
        left -= ns;
    }
    if (c->draw == WINAPP_DRAW_RECT) {
        umd_set_target(b, 0, w->hwin, 0, pitch, c->width, c->height,
                       COPRO_FMT_XRGB8888);
        umd_rect(b, 0, 0, 0, c->width, c->height, app_colour(c->tag, n));
    } else {
        umd_fill(b, w->hwin, 0, (uint64_t)pitch * c->height,
                 app_colour(c->tag, n));
    }
    return true;
}

static void check(struct app *a, struct report *r)
{
    struct winapp *w = (struct winapp *)a;
    uint64_t last = frameapp_last(&w->f);
    uint32_t want = last ? app_colour(w->cfg.tag, last) : 0;
    uint64_t pixels = (uint64_t)w->cfg.width * w->cfg.height, bad = 0;
    uint32_t got = 0;
    volatile const uint32_t *px = NULL;
    volatile void *cpu = NULL;
    int st = kapi_lock(a->proc, w->hwin, KAPI_LOCK_DONOTWAIT, &cpu);

    if (!report(r, st == DDI_OK, "%s: window locked once drained (%s)",
                a->name, ddi_status_name(st))) {
        return;
    }
    px = cpu;
    for (uint64_t i = 0; i < pixels; i++) {
        if (px[i] != want && !bad++) {
            got = px[i];
        }
    }
    kapi_unlock(a->proc, w->hwin);
    report(r, bad == 0 && a->completed == a->submitted,
           "%s: window holds frame %lu's colour %#x (%lu of %lu pixels "
           "differ, the first is %#x), %lu of %lu frames completed", a->name,
           last, want, bad, pixels, got, a->completed, a->submitted);
}

static const struct app_ops winapp_ops = {
    .start = frameapp_start,
    .stop = frameapp_stop,
    .check = check,
};

int winapp_init(struct winapp *w, struct kernel *k, const char *name,
                const struct winapp_config *cfg)
{
    struct app *a = &w->f.app;
    int st;

    w->cfg = *cfg;
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, cfg->prio, &winapp_ops);
    if (st == DDI_OK) {
        st = frameapp_init(&w->f, &cfg->frames, build, NULL, w->cmd,
                           sizeof(w->cmd));
    }
    if (st != DDI_OK) {
        return st;
    }
    w->hwin = app_alloc(a, (uint64_t)cfg->width * 4 * cfg->height, true);
    if (!w->hwin) {
        return a->fail_status;
    }
    st = kapi_share_allocation(a->proc, w->hwin, &w->shared);
    if (st != DDI_OK) {
        app_fail(a, "share_allocation", st);
    }
    return st;
}
