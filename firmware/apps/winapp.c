/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/winapp.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#include "lib/console.h"

_Static_assert(offsetof(struct winapp, f) == 0, "frameapp first");

void winapp_picture(const struct winapp *w, uint64_t n, struct picture *out)
{
    const struct winapp_config *c = &w->cfg;

    if (c->draw == WINAPP_DRAW_PICTURE && c->picture) {
        c->picture(c, n, out);
        return;
    }
    /* one colour: FILL's pattern, or a RECT over the whole window (the
     * fresh surface was zeroed, and every frame covers all of it) */
    picture_init(out, n ? app_colour(c->tag, n) : 0);
}

/* A buffer that is neither the front nor being drawn, drawn longest ago
 * (the compositor is then the least likely to still hold it); -1 if
 * none (fewer buffers than depth + 1). */
static int pick_buffer(const struct winapp *w)
{
    int best = -1;

    if (w->nbuf == 1) {
        return 0;       /* one surface: every frame redraws it */
    }
    for (unsigned b = 0; b < w->nbuf; b++) {
        if (w->drawing[b] || (w->front && b == w->front_buf)) {
            continue;
        }
        if (best < 0 || w->drawn[b] < w->drawn[best]) {
            best = (int)b;
        }
    }
    return best;
}

static bool build(struct frameapp *f, uint64_t n, struct umd_cmdbuf *b)
{
    struct winapp *w = (struct winapp *)f;
    const struct winapp_config *c = &w->cfg;
    int pick = pick_buffer(w);
    unsigned buf;
    uint32_t pitch = c->width * 4;
    uint64_t left = c->work_ns;

    if (pick < 0) {
        /* buffers < depth + 1: a configuration error */
        app_fail(&f->app, "no free buffer in the swap chain", DDI_EINVAL);
        return false;
    }
    buf = (unsigned)pick;
    w->drawing[buf] = true;
    w->drawn[buf] = n;
    w->frame_buf[n % FRAMEAPP_SLOTS] = (uint8_t)buf;

    /* the compositor may still have to read this buffer */
    if (w->hcomp_sync && w->held[buf]) {
        int st = kapi_wait_gpu(f->app.proc, f->app.hctx, w->hcomp_sync,
                               w->held[buf]);

        if (st != DDI_OK) {
            app_fail(&f->app, "wait_gpu", st);
            return false;
        }
        w->waits++;
    }
    while (left) {
        uint64_t ns = left < c->work_packet_ns ? left : c->work_packet_ns;

        umd_work(b, ns);
        left -= ns;
    }
    if (c->draw == WINAPP_DRAW_RECT) {
        umd_set_target(b, 0, w->hwin[buf], 0, pitch, c->width, c->height,
                       COPRO_FMT_XRGB8888);
        umd_rect(b, 0, 0, 0, c->width, c->height, app_colour(c->tag, n));
    } else if (c->draw == WINAPP_DRAW_FILL) {
        umd_fill(b, w->hwin[buf], 0, (uint64_t)pitch * c->height,
                 app_colour(c->tag, n));
    } else {
        struct picture pic;

        winapp_picture(w, n, &pic);
        if (pic.overflow) {
            app_fail(&f->app, "picture", DDI_EINVAL);
            return false;
        }
        picture_emit(&pic, b, w->hwin[buf], 0, pitch, c->width, c->height);
    }
    return true;
}

/* Frame n completed: its buffer is the window's front. */
static void frame_done(struct frameapp *f, uint64_t n)
{
    struct winapp *w = (struct winapp *)f;
    unsigned buf = w->frame_buf[n % FRAMEAPP_SLOTS];

    w->drawing[buf] = false;
    w->front = n;
    w->front_buf = buf;
}

/* Compares buffer b with frame n's picture; the number of pixels that
 * differ, and the first one's value and expected value. */
static uint64_t compare(struct app *a, const struct winapp *w, unsigned b,
                        uint64_t n, uint32_t *got, uint32_t *want, int *st)
{
    const struct winapp_config *c = &w->cfg;
    volatile const uint32_t *px;
    volatile void *cpu = NULL;
    struct picture pic;
    uint64_t bad = 0;

    *st = kapi_lock(a->proc, w->hwin[b], KAPI_LOCK_DONOTWAIT, &cpu);
    if (*st != DDI_OK) {
        return 0;
    }
    px = cpu;
    winapp_picture(w, n, &pic);
    for (uint32_t y = 0; y < c->height; y++) {
        for (uint32_t x = 0; x < c->width; x++) {
            uint32_t g = px[y * c->width + x];
            uint32_t e = n ? picture_pixel(&pic, c->width, c->height, x, y)
                           : 0;

            if (g != e && !bad++) {
                *got = g;
                *want = e;
            }
        }
    }
    kapi_unlock(a->proc, w->hwin[b]);
    return bad;
}

static void check(struct app *a, struct report *r)
{
    struct winapp *w = (struct winapp *)a;
    uint64_t last = frameapp_last(&w->f);
    uint64_t pixels = (uint64_t)w->cfg.width * w->cfg.height, bad;
    uint32_t got = 0, want = 0;
    int st;

    bad = compare(a, w, w->front_buf, last, &got, &want, &st);
    if (!report(r, st == DDI_OK, "%s: window locked once drained (%s)",
                a->name, ddi_status_name(st))) {
        return;
    }
    report(r, bad == 0 && a->completed == a->submitted && w->front == last,
           "%s: window holds frame %lu's picture (%lu of %lu pixels "
           "differ, the first is %#x, expected %#x), %lu of %lu frames "
           "completed", a->name, last, bad, pixels, got, want, a->completed,
           a->submitted);
    if (w->nbuf == 1) {
        return;
    }
    bad = 0;
    for (unsigned b = 0; b < w->nbuf; b++) {
        if (b != w->front_buf && w->drawn[b]) {
            bad += compare(a, w, b, w->drawn[b], &got, &want, &st);
            bad += st != DDI_OK;
        }
    }
    report(r, bad == 0, "%s: the other %u buffers of its swap chain hold "
           "their last frames (%lu pixels differ); %lu GPU waits for the "
           "compositor", a->name, w->nbuf - 1, bad, w->waits);
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
    w->nbuf = cfg->buffers ? cfg->buffers : 1;
    a->privileges = cfg->privileges;
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, cfg->prio, &winapp_ops);
    if (st == DDI_OK && (w->nbuf > WINAPP_MAX_BUFFERS ||
                         (cfg->draw == WINAPP_DRAW_PICTURE &&
                          !cfg->picture))) {
        st = DDI_EINVAL;
        app_fail(a, "winapp config", st);
    }
    if (st == DDI_OK) {
        st = frameapp_init(&w->f, &cfg->frames, build, frame_done, w->cmd,
                           sizeof(w->cmd));
    }
    for (unsigned b = 0; b < w->nbuf && st == DDI_OK; b++) {
        w->hwin[b] = app_alloc(a, (uint64_t)cfg->width * 4 * cfg->height,
                               true);
        if (!w->hwin[b]) {
            return a->fail_status;
        }
        st = kapi_share_allocation(a->proc, w->hwin[b], &w->shared[b]);
        if (st != DDI_OK) {
            app_fail(a, "share_allocation", st);
        }
    }
    return st;
}

int winapp_share_to(struct winapp *w, uint32_t pid)
{
    struct app *a = &w->f.app;
    int st = DDI_OK;

    for (unsigned b = 0; b < w->nbuf && st == DDI_OK; b++) {
        st = kapi_grant_allocation(a->proc, w->hwin[b], pid,
                                   KAPI_ACCESS_READ);
    }
    if (st != DDI_OK) {
        app_fail(a, "grant_allocation", st);
    }
    return st;
}

int winapp_attach(struct winapp *w, uint32_t comp_sync_name)
{
    struct app *a = &w->f.app;
    int st = kapi_open_sync(a->proc, a->hdev, comp_sync_name,
                            &w->hcomp_sync);

    if (st != DDI_OK) {
        app_fail(a, "open_sync", st);
        w->hcomp_sync = 0;
    }
    return st;
}
