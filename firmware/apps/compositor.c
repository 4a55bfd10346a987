/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/compositor.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#define US          1000ull
#define PERIOD_NS   (16667 * US)
#define TAG         0xc0
#define PITCH       (COMPOSITOR_WIDTH * 4)

_Static_assert(offsetof(struct compositor, f) == 0, "frameapp first");

/* Where frame n puts the cursor: it moves every frame. */
static void cursor_pos(const struct compositor *c, uint64_t n, uint32_t *x,
                       uint32_t *y)
{
    *x = (uint32_t)((n * 7) % (COMPOSITOR_WIDTH - c->cursor.cols + 1));
    *y = (uint32_t)((n * 5) % (COMPOSITOR_HEIGHT - c->cursor.rows + 1));
}

static bool build(struct frameapp *f, uint64_t n, struct umd_cmdbuf *b)
{
    struct compositor *c = (struct compositor *)f;

    umd_fill(b, c->hprimary, 0, (uint64_t)PITCH * COMPOSITOR_HEIGHT,
             app_colour(TAG, n));
    for (unsigned i = 0; i < c->nwin; i++) {
        const struct compositor_source *w = &c->win[i];

        umd_copy(b, c->hprimary, (uint64_t)w->row * PITCH, w->h, 0,
                 (uint64_t)w->rows * PITCH);
    }
    if (c->cursor.h) {
        uint32_t x, y;

        cursor_pos(c, n, &x, &y);
        for (uint32_t row = 0; row < c->cursor.rows; row++) {
            umd_copy(b, c->hprimary, (uint64_t)(y + row) * PITCH + x * 4,
                     c->cursor.h, (uint64_t)row * c->cursor.cols * 4,
                     (uint64_t)c->cursor.cols * 4);
        }
    }
    return true;
}

/* What pixel (x, y) of frame n's composition may hold. */
static bool pixel_ok(const struct compositor *c, uint64_t n, uint32_t x,
                     uint32_t y, uint32_t px)
{
    uint32_t cx, cy;

    if (c->cursor.h) {
        cursor_pos(c, n, &cx, &cy);
        if (x >= cx && x < cx + c->cursor.cols && y >= cy &&
            y < cy + c->cursor.rows) {
            return app_colour_valid(px, c->cursor.owner->cfg.tag,
                                    c->cursor.owner->f.released);
        }
    }
    for (unsigned i = 0; i < c->nwin; i++) {
        const struct compositor_source *w = &c->win[i];

        if (y >= w->row && y < w->row + w->rows) {
            return app_colour_valid(px, w->owner->cfg.tag,
                                    w->owner->f.released);
        }
    }
    return px == app_colour(TAG, n);
}

static void check(struct app *a, struct report *r)
{
    struct compositor *c = (struct compositor *)a;
    uint64_t n = frameapp_last(&c->f), bad = 0, first = UINT64_MAX;
    volatile const uint32_t *px;
    volatile void *cpu = NULL;
    int st = kapi_lock(a->proc, c->hprimary, KAPI_LOCK_DONOTWAIT, &cpu);

    if (!report(r, st == DDI_OK, "%s: primary locked once drained (%s)",
                a->name, ddi_status_name(st))) {
        return;
    }
    px = cpu;
    for (uint32_t y = 0; y < COMPOSITOR_HEIGHT; y++) {
        for (uint32_t x = 0; x < COMPOSITOR_WIDTH; x++) {
            if (!pixel_ok(c, n, x, y, px[y * COMPOSITOR_WIDTH + x])) {
                if (!bad) {
                    first = (uint64_t)y * COMPOSITOR_WIDTH + x;
                }
                bad++;
            }
        }
    }
    kapi_unlock(a->proc, c->hprimary);
    report(r, n > 0 && bad == 0 && a->completed == a->submitted,
           "%s: primary of frame %lu composed right (%lu of %u pixels "
           "wrong, first at %ld: %#x), %lu of %lu frames completed", a->name,
           n, bad, COMPOSITOR_WIDTH * COMPOSITOR_HEIGHT,
           bad ? (long)first : -1L, bad ? px[first] : 0, a->completed,
           a->submitted);
}

/* Frame n is on screen: say so in the GPU's timeline (the surface is
 * named by the compositor's handle of its primary). */
static void presented(struct frameapp *f, uint64_t n)
{
    struct compositor *c = (struct compositor *)f;

    kapi_mark(f->app.proc, f->app.hctx, COPRO_MARK_PRESENT, n, c->hprimary);
}

static const struct app_ops compositor_ops = {
    .start = frameapp_start,
    .stop = frameapp_stop,
    .check = check,
};

int compositor_init(struct compositor *c, struct kernel *k, const char *name)
{
    struct frameapp_config fc = {
        .period_ns = PERIOD_NS, .deadline_ns = PERIOD_NS, .depth = 2,
    };
    struct app *a = &c->f.app;
    int st;

    st = app_init(a, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_HIGH,
                  &compositor_ops);
    if (st == DDI_OK) {
        st = frameapp_init(&c->f, &fc, build, presented, c->cmd,
                           sizeof(c->cmd));
    }
    if (st != DDI_OK) {
        return st;
    }
    c->hprimary = app_alloc(a, (uint64_t)PITCH * COMPOSITOR_HEIGHT, true);
    return c->hprimary ? DDI_OK : a->fail_status;
}

static int open_source(struct compositor *c, const struct winapp *owner,
                       struct compositor_source *s)
{
    struct app *a = &c->f.app;
    uint64_t size = 0;
    int st = kapi_open_allocation(a->proc, a->hdev, owner->shared, &s->h);

    if (st == DDI_OK) {
        st = kapi_allocation_size(a->proc, s->h, &size);
    }
    if (st == DDI_OK &&
        size != (uint64_t)owner->cfg.width * 4 * owner->cfg.height) {
        st = DDI_EINVAL;
    }
    if (st != DDI_OK) {
        app_fail(a, "open_allocation", st);
        s->h = 0;
        return st;
    }
    s->rows = owner->cfg.height;
    s->cols = owner->cfg.width;
    s->owner = owner;
    return DDI_OK;
}

int compositor_add_window(struct compositor *c, const struct winapp *owner,
                          uint32_t row)
{
    struct compositor_source *w = &c->win[c->nwin];
    int st;

    if (c->nwin == COMPOSITOR_MAX_WINDOWS ||
        owner->cfg.width != COMPOSITOR_WIDTH ||
        row + owner->cfg.height > COMPOSITOR_HEIGHT) {
        return DDI_EINVAL;
    }
    st = open_source(c, owner, w);
    if (st == DDI_OK) {
        w->row = row;
        c->nwin++;
    }
    return st;
}

int compositor_set_cursor(struct compositor *c, const struct winapp *owner)
{
    if (owner->cfg.width > COMPOSITOR_WIDTH ||
        owner->cfg.height > COMPOSITOR_HEIGHT) {
        return DDI_EINVAL;
    }
    return open_source(c, owner, &c->cursor);
}
