/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/compositor.h"
#include "apps/compositor_scene.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#define TITLE_H     16
#define BORDER      2
#define TASKBAR_H   28
#define LIGHTS      16
#define BANDS       8
/* room left in one DMA buffer before build flushes it: patch locations
 * (the end TIMESTAMP needs one) and bytes */
#define PATCH_ROOM  8
#define BYTE_ROOM   256

_Static_assert(offsetof(struct compositor, f) == 0, "frameapp first");

/* The model's canvas: the screen as frame n must be. */
static uint32_t screen_px[COMPOSITOR_MAX_WIDTH * COMPOSITOR_MAX_HEIGHT];

static uint32_t bounce(uint64_t v, uint32_t span)
{
    uint64_t p = v % (2ull * span);

    return (uint32_t)(p <= span ? p : 2ull * span - p);
}

/* Where frame n puts the cursor: it wanders over the whole screen. */
static void cursor_pos(const struct compositor *c, uint64_t n, int32_t *x,
                       int32_t *y)
{
    *x = (int32_t)bounce(n * 5, c->disp.width - DDI_POINTER_SIZE);
    *y = (int32_t)bounce(n * 3, c->disp.height - DDI_POINTER_SIZE);
}

/*
 * Frame n's own drawing: the desktop under the windows' content. A
 * window's content area is black until it has drawn a frame.
 */
static void desktop_picture(const struct compositor *c, uint64_t n,
                            struct picture *p)
{
    uint32_t w = c->disp.width, h = c->disp.height;
    uint32_t band = (h - TASKBAR_H) / BANDS;

    picture_init(p, 0x00204868);
    for (unsigned i = 1; i < BANDS; i++) {
        picture_rect(p, 0, i * band, w, band,
                     0x00204868 + i * 0x00020406);
    }
    picture_rect(p, 0, h - TASKBAR_H, w, TASKBAR_H, 0x00303038);
    picture_rect(p, 0, h - TASKBAR_H, w, 1, 0x00707078);
    picture_rect(p, 4, h - TASKBAR_H + 4, 64, TASKBAR_H - 8, 0x0030a050);
    for (unsigned i = 0; i < LIGHTS; i++) {
        picture_rect(p, w - 8 - (i + 1) * 10, h - TASKBAR_H + 10, 8, 8,
                     (n >> i) & 1 ? 0x00ffd040 : 0x00505058);
    }
    for (unsigned i = 0; i < c->nwin; i++) {
        const struct compositor_window *win = &c->win[i];
        uint32_t ww = win->owner->cfg.width, wh = win->owner->cfg.height;

        picture_rect(p, win->x - BORDER, win->y - TITLE_H - BORDER,
                     ww + 2 * BORDER, wh + TITLE_H + 2 * BORDER, 0x00c8c8c8);
        picture_rect(p, win->x, win->y - TITLE_H, ww, TITLE_H - 2,
                     win->title);
        picture_rect(p, win->x + ww - 14, win->y - TITLE_H + 1, 12, 12,
                     0x00e04040);
        picture_rect(p, win->x, win->y, ww, wh, 0);
    }
}

/* Flushes b if what comes next may not fit in it. */
static bool room(struct compositor *c, struct umd_cmdbuf *b, unsigned patches)
{
    if (b->npatch + patches + PATCH_ROOM <= DDI_MAX_PATCH_LIST &&
        umd_bytes(b) + BYTE_ROOM <= sizeof(c->cmd) &&
        b->nalloc + 4 <= DDI_MAX_ALLOC_LIST) {
        return true;
    }
    return frameapp_flush(&c->f);
}

static bool build(struct frameapp *f, uint64_t n, struct umd_cmdbuf *b)
{
    struct compositor *c = (struct compositor *)f;
    struct compositor_frame *r = &c->rec[n % COMPOSITOR_RECORDS];
    uint32_t pitch = c->disp.pitch, prim;
    int win_buf[COMPOSITOR_MAX_WINDOWS], cursor_buf = -1;
    struct picture pic;

    *r = (struct compositor_frame){
        .n = n, .primary = c->shown ? 1 - c->on_screen : 0,
        .pointer = 1 - c->pointer_shown,
    };
    prim = c->hprimary[r->primary];
    desktop_picture(c, n, &pic);
    if (c->sc.on) {
        /* what frame n shows, composed as a scene; then only the
         * pointer image below goes in b */
        for (unsigned i = 0; i < c->nwin; i++) {
            struct winapp *o = c->win[i].owner;

            r->win_front[i] = o->front;
            win_buf[i] = o->front ? (int)o->front_buf : -1;
            if (o->front) {
                winapp_hold(o, o->front_buf, n);
            }
        }
        if (c->cursor.owner && c->cursor.owner->front && !c->hw_cursor) {
            cursor_buf = (int)c->cursor.owner->front_buf;
        }
        cursor_pos(c, n, &r->cx, &r->cy);
        if (!comp_scene_submit(c, n, r, &pic, win_buf, cursor_buf)) {
            return false;
        }
    } else {
        picture_emit(&pic, b, prim, 0, pitch, c->disp.width,
                     c->disp.height);
    }
    for (unsigned i = 0; i < c->nwin && !c->sc.on; i++) {
        const struct compositor_window *win = &c->win[i];
        struct winapp *o = win->owner;
        uint64_t m = o->front;
        unsigned buf = o->front_buf;
        uint32_t row_bytes = o->cfg.width * 4;

        r->win_front[i] = m;
        if (!m) {
            continue;
        }
        winapp_hold(o, buf, n);
        for (uint32_t y = 0; y < o->cfg.height; y++) {
            if (!room(c, b, 2)) {
                return false;
            }
            umd_copy(b, prim, (uint64_t)(win->y + y) * pitch + win->x * 4,
                     win->h[buf], (uint64_t)y * row_bytes, row_bytes);
        }
    }
    if (c->cursor.owner) {
        struct winapp *o = c->cursor.owner;
        uint64_t m = o->front;
        unsigned buf = o->front_buf;

        r->cursor_front = m;
        cursor_pos(c, n, &r->cx, &r->cy);
        if (m) {
            winapp_hold(o, buf, n);
        }
        if (m && c->hw_cursor) {
            if (!room(c, b, 2)) {
                return false;
            }
            umd_copy(b, c->hpointer[r->pointer], 0, c->cursor.h[buf], 0,
                     DDI_POINTER_BYTES);
        }
        for (uint32_t y = 0;
             m && !c->hw_cursor && !c->sc.on && y < DDI_POINTER_SIZE;
             y++) {
            uint32_t x0 = c->span[y][0], x1 = c->span[y][1];

            if (x0 == x1) {
                continue;
            }
            if (!room(c, b, 2)) {
                return false;
            }
            umd_copy(b, prim,
                     (uint64_t)(r->cy + y) * pitch + (r->cx + x0) * 4,
                     c->cursor.h[buf],
                     (uint64_t)y * DDI_POINTER_SIZE * 4 + x0 * 4,
                     (x1 - x0) * 4);
        }
    }
    return true;
}

/* ---- presents ---- */

static void on_present(void *arg, const struct kapi_present_result *res)
{
    struct compositor *c = arg;
    struct app *a = &c->f.app;
    const struct compositor_frame *r =
        &c->rec[res->tag % COMPOSITOR_RECORDS];

    c->present_pending = false;
    if (res->status != DDI_OK || r->n != res->tag) {
        app_fail(a, "present", res->status != DDI_OK ? res->status
                                                     : DDI_EINVAL);
        frameapp_check_drained(&c->f);
        return;
    }
    c->flips++;
    c->missed += res->missed;

    c->late_flips += res->missed > 0;
    if (res->missed > c->max_missed) {
        c->max_missed = res->missed;
    }
    c->shown = res->tag;
    c->on_screen = r->primary;
    c->shown_vsync = res->vsync;
    c->shown_time = res->time;
    if (c->hw_cursor && c->cursor.owner) {
        /* the frame's pointer goes with its picture */
        struct kapi_pointer ptr = {
            .source = 0, .x = r->cx, .y = r->cy,
            .visible = r->cursor_front > 0,
            .hshape = r->cursor_front ? c->hpointer[r->pointer] : 0,
        };
        int st = kapi_set_pointer(a->proc, a->hdev, &ptr);

        if (st != DDI_OK) {
            app_fail(a, "set_pointer", st);
        }
        if (r->cursor_front) {
            c->pointer_shown = r->pointer;
        }
    }
    frameapp_check_drained(&c->f);
}

/* How long composing frame n took on the GPU: from its first packet's
 * start (the scene's geometry's, in scenes) to its last packet's end. */
static void frame_done(struct frameapp *f, uint64_t n)
{
    struct compositor *c = (struct compositor *)f;
    unsigned s = n % FRAMEAPP_SLOTS;
    uint64_t start = f->rec[2 * s], end = f->rec[2 * s + 1];

    if (c->sc.on) {
        uint64_t g = comp_scene_start(c, n);

        start = g && g <= start ? g : start;
    }
    if (start && end >= start) {
        c->composed++;
        c->compose_ns_sum += end - start;
        if (end - start > c->compose_ns_max) {
            c->compose_ns_max = end - start;
        }
    }
}

static bool may_release(struct frameapp *f, uint64_t n)
{
    (void)n;
    /* the back buffer is free only once the last present is on screen */
    return !((struct compositor *)f)->present_pending;
}

static bool after_submit(struct frameapp *f, uint64_t n)
{
    struct compositor *c = (struct compositor *)f;
    const struct compositor_frame *r = &c->rec[n % COMPOSITOR_RECORDS];
    struct kapi_present pr = {
        .source = 0, .hprimary = c->hprimary[r->primary], .hsync = f->hsync,
        .value = n, .tag = n, .fn = on_present, .arg = c,
    };
    int st = kapi_present(f->app.proc, f->app.hdev, &pr);

    if (st != DDI_OK) {
        app_fail(&f->app, "present", st);
        return false;
    }
    c->present_pending = true;
    c->presents++;
    /* in the GPU's timeline: the present call (the flip shows when the
     * display's flip-done does) */
    kapi_mark(f->app.proc, f->app.hctx, COPRO_MARK_PRESENT, n,
              pr.hprimary);
    return true;
}

static bool busy(const struct frameapp *f)
{
    return ((const struct compositor *)f)->present_pending;
}

/* ---- the model and the check ---- */

static struct canvas screen_canvas(const struct compositor *c)
{
    return (struct canvas){
        .px = screen_px, .width = c->disp.width, .height = c->disp.height,
        .stride = c->disp.width,
    };
}

/* The primary of frame r as the GPU must have composed it. */
static void model_primary(const struct compositor *c,
                          const struct compositor_frame *r)
{
    struct canvas cv = screen_canvas(c);
    struct picture pic;

    desktop_picture(c, r->n, &pic);
    picture_paint(&pic, cv.width, cv.height, &cv, 0, 0);
    for (unsigned i = 0; i < c->nwin; i++) {
        const struct winapp *o = c->win[i].owner;

        if (r->win_front[i]) {
            winapp_picture(o, r->win_front[i], &pic);
            picture_paint(&pic, o->cfg.width, o->cfg.height, &cv,
                          c->win[i].x, c->win[i].y);
        }
    }
    if (!c->hw_cursor && c->cursor.owner && r->cursor_front) {
        winapp_picture(c->cursor.owner, r->cursor_front, &pic);
        for (uint32_t y = 0; y < DDI_POINTER_SIZE; y++) {
            for (uint32_t x = c->span[y][0]; x < c->span[y][1]; x++) {
                screen_px[(r->cy + y) * cv.stride + r->cx + x] =
                    picture_pixel(&pic, DDI_POINTER_SIZE, DDI_POINTER_SIZE,
                                  x, y);
            }
        }
    }
}

/* Counts the pixels of allocation h (w x h, stride pixels) that differ
 * from want (stride pixels too); the first one in *first. */
static uint64_t differ(struct app *a, uint32_t halloc, const uint32_t *want,
                       uint32_t w, uint32_t h, uint32_t stride, int *st,
                       uint64_t *first)
{
    volatile const uint32_t *px;
    volatile void *cpu = NULL;
    uint64_t bad = 0;

    *st = kapi_lock(a->proc, halloc, KAPI_LOCK_DONOTWAIT, &cpu);
    if (*st != DDI_OK) {
        return 0;
    }
    px = cpu;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            if (px[(uint64_t)y * stride + x] != want[y * stride + x] &&
                !bad++) {
                *first = (uint64_t)y << 32 | x;
            }
        }
    }
    kapi_unlock(a->proc, halloc);
    return bad;
}

/* The display's blend of the pointer over the scanout (spec: "Cursor
 * plane"), on the model's canvas. */
static void blend_pointer(const struct compositor *c,
                          const struct compositor_frame *r)
{
    struct picture pic;

    winapp_picture(c->cursor.owner, r->cursor_front, &pic);
    for (uint32_t y = 0; y < DDI_POINTER_SIZE; y++) {
        for (uint32_t x = 0; x < DDI_POINTER_SIZE; x++) {
            uint32_t cp = picture_pixel(&pic, DDI_POINTER_SIZE,
                                        DDI_POINTER_SIZE, x, y);
            int64_t sx = r->cx + (int64_t)x, sy = r->cy + (int64_t)y;
            uint32_t a = cp >> 24, *s, out = 0;

            if (sx < 0 || sy < 0 || sx >= c->disp.width ||
                sy >= c->disp.height) {
                continue;
            }
            s = &screen_px[sy * c->disp.width + sx];
            for (int sh = 0; sh < 24; sh += 8) {
                uint32_t cc = (cp >> sh) & 0xff, sc = (*s >> sh) & 0xff;

                out |= ((cc * a + sc * (255 - a) + 127) / 255) << sh;
            }
            *s = out;
        }
    }
}

static void add_sample(struct compositor_screen *sc, const char *what,
                       uint32_t x, uint32_t y)
{
    if (sc->nsamples < COMPOSITOR_SAMPLES && x < sc->width &&
        y < sc->height) {
        sc->sample[sc->nsamples++] = (struct compositor_sample){
            .x = x, .y = y, .what = what,
            .rgb = screen_px[y * sc->width + x] & 0xffffff,
        };
    }
}

/* The screen (model with the pointer blended): CRC and samples. */
static void take_screen(struct compositor *c,
                        const struct compositor_frame *r)
{
    struct compositor_screen *sc = &c->screen;
    uint8_t row[COMPOSITOR_MAX_WIDTH * 3];
    uint32_t crc = 0;

    if (c->hw_cursor && c->cursor.owner && r->cursor_front) {
        blend_pointer(c, r);
    }
    *sc = (struct compositor_screen){
        .valid = true, .width = c->disp.width, .height = c->disp.height,
        .frame = r->n, .vsync = c->shown_vsync, .time = c->shown_time,
    };
    for (uint32_t y = 0; y < sc->height; y++) {
        for (uint32_t x = 0; x < sc->width; x++) {
            uint32_t px = screen_px[y * sc->width + x];

            row[3 * x] = (uint8_t)(px >> 16);
            row[3 * x + 1] = (uint8_t)(px >> 8);
            row[3 * x + 2] = (uint8_t)px;
        }
        crc = picture_crc32(crc, row, (uint64_t)sc->width * 3);
    }
    sc->crc = crc;
    add_sample(sc, "desktop", 2, 2);
    add_sample(sc, "taskbar", 20, sc->height - TASKBAR_H / 2);
    for (unsigned i = 0; i < c->nwin; i++) {
        const struct compositor_window *w = &c->win[i];

        add_sample(sc, w->owner->f.app.name,
                   w->x + w->owner->cfg.width / 2,
                   w->y + w->owner->cfg.height / 2);
        add_sample(sc, "title bar", w->x + 4, w->y - TITLE_H / 2);
    }
    if (c->cursor.owner && r->cursor_front) {
        /* inside the arrow's body */
        add_sample(sc, "cursor", (uint32_t)r->cx + 4, (uint32_t)r->cy + 24);
    }
}

static void check(struct app *a, struct report *r)
{
    struct compositor *c = (struct compositor *)a;
    const struct compositor_frame *rec =
        &c->rec[c->shown % COMPOSITOR_RECORDS];
    struct kapi_display_info info;
    uint64_t bad, first = 0, pbad = 0, pfirst = 0;
    int st, pst = DDI_OK;

    c->screen.valid = false;
    st = kapi_display_info(a->proc, a->hdev, 0, &info);
    if (st == DDI_OK && c->vsync_stop == c->vsync_start && !c->presents &&
        !info.flips) {
        /* a run shorter than one refresh (duration_ms=1 is legal): no
         * vsync released a frame, so there is nothing to check on screen */
        report(r, true, "%s: no vsync during the run: nothing presented, "
               "nothing to check on screen", a->name);
        return;
    }
    report(r, st == DDI_OK && c->flips == c->presents && c->flips > 0 &&
           info.flips == c->flips && info.missed == c->missed,
           "%s: %lu presents, all shown (the kernel counted %lu flips), "
           "%lu vblanks missed as FLIP_DONE measured them", a->name,
           c->presents, info.flips, c->missed);
    if (!report(r, c->shown && rec->n == c->shown, "%s: frame %lu on "
                "screen since vsync %lu", a->name, c->shown,
                c->shown_vsync)) {
        return;
    }
    model_primary(c, rec);
    bad = differ(a, c->hprimary[rec->primary], screen_px, c->disp.width,
                 c->disp.height, c->disp.width, &st, &first);
    if (c->hw_cursor && rec->cursor_front) {
        static uint32_t shape[DDI_POINTER_SIZE * DDI_POINTER_SIZE];
        struct canvas cv = {
            .px = shape, .width = DDI_POINTER_SIZE,
            .height = DDI_POINTER_SIZE, .stride = DDI_POINTER_SIZE,
        };
        struct picture pic;

        winapp_picture(c->cursor.owner, rec->cursor_front, &pic);
        picture_paint(&pic, DDI_POINTER_SIZE, DDI_POINTER_SIZE, &cv, 0, 0);
        pbad = differ(a, c->hpointer[rec->pointer], shape, DDI_POINTER_SIZE,
                      DDI_POINTER_SIZE, DDI_POINTER_SIZE, &pst, &pfirst);
    }
    if (!report(r, st == DDI_OK && bad == 0, "%s: the primary on screen is "
                "frame %lu's desktop, %u window(s) and the "
                "cursor (%s), pixel for pixel (%lu of %u differ, first at "
                "(%lu, %lu))", a->name, rec->n, c->nwin,
                c->hw_cursor ? "pointer plane" : "drawn in", bad,
                c->disp.width * c->disp.height, first & 0xffffffff,
                first >> 32) ||
        !report(r, pst == DDI_OK && pbad == 0, "%s: pointer image of frame "
                "%lu is the cursor's frame %lu at (%d, %d) (%lu pixels "
                "differ)", a->name, rec->n, rec->cursor_front, rec->cx,
                rec->cy, pbad)) {
        return;
    }
    take_screen(c, rec);
}

/* The vsync counts around the run: how many vblanks it could have
 * filled. */
static uint64_t vsyncs_now(struct compositor *c)
{
    struct kapi_display_info info;

    if (kapi_display_info(c->f.app.proc, c->f.app.hdev, 0, &info) != DDI_OK) {
        return 0;
    }
    return info.vsyncs;
}

static void start(struct app *a)
{
    struct compositor *c = (struct compositor *)a;

    c->vsync_start = vsyncs_now(c);
    frameapp_start(a);
}

static void stop(struct app *a)
{
    struct compositor *c = (struct compositor *)a;

    c->vsync_stop = vsyncs_now(c);
    frameapp_stop(a);
}

static const struct app_ops compositor_ops = {
    .start = start,
    .stop = stop,
    .check = check,
};

int compositor_init(struct compositor *c, struct kernel *k, const char *name,
                    bool sw_cursor)
{
    struct frameapp_config fc = { .on_vsync = true, .depth = 1 };
    struct app *a = &c->f.app;
    int st;

    /* the desktop window manager: it owns the display source */
    a->privileges = KAPI_PRIV_DISPLAY;
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_HIGH,
                  &compositor_ops);
    if (st == DDI_OK) {
        st = kapi_display_info(a->proc, a->hdev, 0, &c->disp);
    }
    if (st == DDI_OK) {
        st = kapi_set_source_owner(a->proc, a->hdev, 0);
    }
    if (st == DDI_OK &&
        (c->disp.format != COPRO_FMT_XRGB8888 ||
         c->disp.width > COMPOSITOR_MAX_WIDTH ||
         c->disp.height > COMPOSITOR_MAX_HEIGHT ||
         c->disp.width < 2 * DDI_POINTER_SIZE ||
         c->disp.height < 2 * DDI_POINTER_SIZE)) {
        st = DDI_ENOTSUP;
    }
    if (st != DDI_OK) {
        app_fail(a, "display", st);
        return st;
    }
    /* the next frame is due before the next vsync */
    fc.deadline_ns = c->disp.vsync_period_ns;
    st = frameapp_init(&c->f, &fc, build, frame_done, c->cmd,
                       sizeof(c->cmd));
    if (st != DDI_OK) {
        return st;
    }
    c->f.may_release = may_release;
    c->f.after_submit = after_submit;
    c->f.busy = busy;
    c->hw_cursor = c->disp.pointer && !sw_cursor;
    for (unsigned i = 0; i < 2; i++) {
        struct kapi_alloc_desc d = {
            .size = (uint64_t)c->disp.pitch * c->disp.height,
            .cpu_visible = true, .zeroed = true, .primary = true,
        };

        st = kapi_create_allocation(a->proc, a->hdev, &d, &c->hprimary[i]);
        if (st == DDI_OK && c->hw_cursor) {
            c->hpointer[i] = app_alloc(a, DDI_POINTER_BYTES, true);
            st = c->hpointer[i] ? DDI_OK : a->fail_status;
        }
        if (st != DDI_OK) {
            app_fail(a, "primary", st);
            return st;
        }
    }
    c->pointer_shown = 1;
    st = kapi_share_sync(a->proc, c->f.hsync, &c->sync_name);
    if (st != DDI_OK) {
        app_fail(a, "share_sync", st);
    }
    return st;
}

static int open_source(struct compositor *c, struct winapp *owner,
                       struct compositor_window *w)
{
    struct app *a = &c->f.app;
    uint64_t want = (uint64_t)owner->cfg.width * 4 * owner->cfg.height;
    int st;

    /* the NT-handle model: the window's owner grants its surfaces to
     * this process, which grants its sync object back (wait only) */
    st = winapp_share_to(owner, kapi_process_id(a->proc));
    if (st == DDI_OK) {
        st = kapi_grant_sync(a->proc, c->f.hsync,
                             kapi_process_id(owner->f.app.proc),
                             KAPI_ACCESS_READ);
    }
    for (unsigned b = 0; b < owner->nbuf && st == DDI_OK; b++) {
        uint64_t size = 0;

        st = kapi_open_allocation(a->proc, a->hdev, owner->shared[b],
                                  &w->h[b]);
        if (st == DDI_OK) {
            st = kapi_allocation_size(a->proc, w->h[b], &size);
        }
        if (st == DDI_OK && size != want) {
            st = DDI_EINVAL;
        }
    }
    if (st == DDI_OK && c->sc.on) {
        /* read-only: the window's owner granted them so */
        st = comp_scene_view(c, w->h, owner->nbuf, w->va);
    }
    if (st == DDI_OK) {
        st = winapp_attach(owner, c->sync_name);
    }
    if (st != DDI_OK) {
        app_fail(a, "open window", st);
        return st;
    }
    w->owner = owner;
    return DDI_OK;
}

int compositor_add_window(struct compositor *c, struct winapp *owner,
                          uint32_t x, uint32_t y, uint32_t title)
{
    struct compositor_window *w = &c->win[c->nwin];
    int st;

    if (c->nwin == COMPOSITOR_MAX_WINDOWS || x < BORDER ||
        y < TITLE_H + BORDER ||
        x + owner->cfg.width + BORDER > c->disp.width ||
        y + owner->cfg.height + BORDER > c->disp.height - TASKBAR_H) {
        return DDI_EINVAL;
    }
    st = open_source(c, owner, w);
    if (st == DDI_OK) {
        w->x = x;
        w->y = y;
        w->title = title;
        c->nwin++;
    }
    return st;
}

int compositor_set_cursor(struct compositor *c, struct winapp *owner)
{
    struct picture pic;

    if (owner->cfg.width != DDI_POINTER_SIZE ||
        owner->cfg.height != DDI_POINTER_SIZE) {
        return DDI_EINVAL;
    }
    /* The shape is the same in every frame (only its colours change):
     * the opaque span of each row, for drawing it into the primary. */
    winapp_picture(owner, 1, &pic);
    for (uint32_t y = 0; y < DDI_POINTER_SIZE; y++) {
        uint32_t x0 = DDI_POINTER_SIZE, x1 = 0;

        for (uint32_t x = 0; x < DDI_POINTER_SIZE; x++) {
            if (picture_pixel(&pic, DDI_POINTER_SIZE, DDI_POINTER_SIZE, x,
                              y) >> 24) {
                x0 = x < x0 ? x : x0;
                x1 = x + 1;
            }
        }
        c->span[y][0] = (uint8_t)(x1 ? x0 : 0);
        c->span[y][1] = (uint8_t)x1;
    }
    return open_source(c, owner, &c->cursor);
}
