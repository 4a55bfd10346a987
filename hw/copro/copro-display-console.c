/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: what the display shows
 *
 * The scanout is a QEMU graphic console. An XRGB8888 surface in VRAM
 * without a cursor is handed to the UI as it is (VRAM is the console
 * surface, as bochs-display does); anything else (R8, RGB565, a surface
 * in the aperture, the cursor) is converted into a private XRGB8888
 * surface. Only rows whose VRAM changed are redrawn (dirty logging on
 * VRAM; the engines mark what they write); aperture surfaces are read
 * through the GART with PCI DMA and redrawn whole. The frame CRC is
 * computed from the same rows.
 *
 * The registers, vsync and flips are copro-display.c; the programming
 * model is docs/specs/copro.rst, "Display".
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include <zlib.h>
#include "qemu/log.h"
#include "system/dma.h"
#include "ui/console.h"
#include "ui/qemu-pixman.h"
#include "copro.h"
#include "trace.h"

/*
 * The graphic console
 */

bool copro_cursor_on(CoproState *s)
{
    return s->display.cursor_control & COPRO_CURSOR_CTL_ENABLE;
}

/* What the console should show now. */
static void copro_display_want(CoproState *s, CoproView *v)
{
    CoproDisplay *d = &s->display;
    const CoproScanout *m = &d->mode;
    uint32_t w = copro_display_mode_width(d);
    uint32_t h = copro_display_mode_height(d);

    memset(v, 0, sizeof(*v));
    if (!d->active) {
        v->kind = COPRO_VIEW_BLACK;
        /* a refused flip keeps the committed size, if it is a size */
        if (d->error && w && h && w <= COPRO_DISP_MAX_DIM &&
            h <= COPRO_DISP_MAX_DIM) {
            v->width = w;
            v->height = h;
        } else {
            v->width = COPRO_BLACK_WIDTH;
            v->height = COPRO_BLACK_HEIGHT;
        }
        return;
    }
    v->width = w;
    v->height = h;
    v->primary = copro_display_primary_on(d);
    if (v->primary) {
        v->sc = *m;
        v->plane_x = COPRO_DISP_POS_X(d->plane_pos);
        v->plane_y = COPRO_DISP_POS_Y(d->plane_pos);
    }
    v->background = d->background;
    /* the primary is the whole screen, as it is in VRAM: hand VRAM over */
    if (v->primary && !v->plane_x && !v->plane_y && m->width == w &&
        m->height == h && m->format == COPRO_FMT_XRGB8888 &&
        m->addr < s->vram_size &&
        (uint64_t)m->pitch * m->height <= s->vram_size - m->addr &&
        !copro_cursor_on(s)) {
        v->kind = COPRO_VIEW_SHARED;
        v->background = 0;
    } else {
        v->kind = COPRO_VIEW_CONVERTED;
    }
}

static DisplaySurface *copro_display_surface(CoproState *s,
                                             const CoproView *v)
{
    if (v->kind == COPRO_VIEW_SHARED) {
        return qemu_create_displaysurface_from(v->width, v->height,
                                               PIXMAN_LE_x8r8g8b8,
                                               v->sc.pitch,
                                               s->vram_ptr + v->sc.addr);
    }
    /* zero-filled: black */
    return qemu_create_displaysurface(v->width, v->height);
}

/*
 * Reads @len bytes at aperture offset @off through the GART. A page that
 * does not translate, or whose DMA fails, reads as zero (black): the
 * display does not fault.
 */
static void copro_display_read_aperture(CoproState *s, uint64_t off,
                                        uint8_t *buf, uint32_t len)
{
    CoproDisplay *d = &s->display;

    while (len) {
        uint32_t n = MIN(len, COPRO_GPU_PAGE_SIZE -
                              (off & (COPRO_GPU_PAGE_SIZE - 1)));
        MemTxResult r = MEMTX_DECODE_ERROR;
        uint64_t bus;

        if (copro_gart_lookup(s, off, &bus) &&
            !copro_dma_hits_self(s, bus, n)) {
            r = pci_dma_read(PCI_DEVICE(s), bus, buf, n);
        }
        if (r != MEMTX_OK) {
            memset(buf, 0, n);
            if (!d->dma_warned) {
                d->dma_warned = true;
                qemu_log_mask(LOG_GUEST_ERROR, "copro: display: aperture "
                              "offset 0x%" PRIx64 " unreadable (GART, DMA "
                              "or own BAR): shown black\n", off);
            }
        }
        buf += n;
        off += n;
        len -= n;
    }
}

/* Row @y of the source in XRGB8888 (host order) into @dst. */
static void copro_display_convert_row(CoproState *s, const CoproScanout *sc,
                                      uint32_t y, uint32_t *dst)
{
    uint32_t bpp = copro_fmt_bpp(sc->format);
    uint64_t at = sc->addr + (uint64_t)sc->pitch * y;
    const uint8_t *src;

    if (at < s->vram_size) {
        src = s->vram_ptr + at;
    } else {
        copro_display_read_aperture(s, at - COPRO_APERTURE_BASE,
                                    s->display.src_row, sc->width * bpp);
        src = s->display.src_row;
    }
    for (uint32_t x = 0; x < sc->width; x++) {
        uint32_t v, r, g, b;

        switch (sc->format) {
        case COPRO_FMT_R8:
            v = src[x];
            dst[x] = v << 16 | v << 8 | v;
            break;
        case COPRO_FMT_RGB565:
            v = lduw_le_p(src + 2 * x);
            r = v >> 11;
            g = (v >> 5) & 0x3f;
            b = v & 0x1f;
            dst[x] = ((r << 3 | r >> 2) << 16) | ((g << 2 | g >> 4) << 8) |
                     (b << 3 | b >> 2);
            break;
        default:
            dst[x] = ldl_le_p(src + 4 * x) & 0xffffff;
            break;
        }
    }
}

static uint32_t copro_blend(uint32_t c, uint32_t d, uint32_t a)
{
    return (c * a + d * (255 - a) + 127) / 255;
}

/* Blends the cursor's row over row @y of the converted surface. */
static void copro_display_cursor_row(CoproState *s, uint32_t y,
                                     uint32_t width, uint32_t *dst)
{
    CoproDisplay *d = &s->display;
    int32_t cx = COPRO_CURSOR_POS_X(d->cursor_pos);
    int32_t cy = COPRO_CURSOR_POS_Y(d->cursor_pos);
    const uint8_t *img;

    if ((int32_t)y < cy || (int32_t)y >= cy + COPRO_CURSOR_SIZE) {
        return;
    }
    img = s->vram_ptr + d->cursor_addr + (y - cy) * COPRO_CURSOR_PITCH;
    for (int32_t i = 0; i < COPRO_CURSOR_SIZE; i++) {
        int32_t x = cx + i;
        uint32_t c, a, p;

        if (x < 0 || x >= (int32_t)width) {
            continue;
        }
        c = ldl_le_p(img + 4 * i);
        a = c >> 24;
        if (!a) {
            continue;
        }
        p = dst[x];
        dst[x] = copro_blend((c >> 16) & 0xff, (p >> 16) & 0xff, a) << 16 |
                 copro_blend((c >> 8) & 0xff, (p >> 8) & 0xff, a) << 8 |
                 copro_blend(c & 0xff, p & 0xff, a);
    }
}

/*
 * Row @y of the screen as the view composes it: the background, the
 * primary plane's row clipped to the mode, the cursor blended over.
 */
static void copro_display_compose_row(CoproState *s, const CoproView *v,
                                      uint32_t y, uint32_t *dst)
{
    int32_t py = (int32_t)y - v->plane_y;

    for (uint32_t x = 0; x < v->width; x++) {
        dst[x] = v->background;
    }
    if (v->primary && py >= 0 && py < (int32_t)v->sc.height) {
        int32_t from = MAX(v->plane_x, 0);
        int32_t to = MIN(v->plane_x + (int32_t)v->sc.width,
                         (int32_t)v->width);

        if (from < to) {
            copro_display_convert_row(s, &v->sc, py, s->display.plane_row);
            memcpy(dst + from, s->display.plane_row + (from - v->plane_x),
                   (to - from) * sizeof(uint32_t));
        }
    }
    if (copro_cursor_on(s)) {
        copro_display_cursor_row(s, y, v->width, dst);
    }
}

/*
 * The CRC-32 of the frame the display shows, the cursor blended in, as
 * R, G, B bytes row by row: what QMP's screendump gives (black when off
 * or in error, at the size the console has then).
 */
uint32_t copro_display_frame_crc(CoproState *s)
{
    CoproView v;
    g_autofree uint32_t *px = NULL;
    g_autofree uint8_t *rgb = NULL;
    uLong crc = crc32(0, Z_NULL, 0);

    copro_display_want(s, &v);
    px = g_new0(uint32_t, v.width);
    rgb = g_new0(uint8_t, (size_t)v.width * 3);
    for (uint32_t y = 0; y < v.height; y++) {
        if (v.kind != COPRO_VIEW_BLACK) {
            copro_display_compose_row(s, &v, y, px);
            for (uint32_t x = 0; x < v.width; x++) {
                rgb[3 * x] = px[x] >> 16;
                rgb[3 * x + 1] = px[x] >> 8;
                rgb[3 * x + 2] = px[x];
            }
        }
        crc = crc32(crc, rgb, v.width * 3);
    }
    return crc;
}

/* Marks the rows [y, y + n) clipped to [0, h) in @rows. */
static void copro_mark_rows(bool *rows, uint32_t h, int32_t y, int32_t n)
{
    for (int32_t i = MAX(y, 0); i < y + n && i < (int32_t)h; i++) {
        rows[i] = true;
    }
}

/* Sends the runs of marked rows to the UI. */
static void copro_display_flush_rows(CoproDisplay *d, const bool *rows,
                                     uint32_t w, uint32_t h)
{
    int32_t start = -1;

    for (uint32_t y = 0; y <= h; y++) {
        bool dirty = y < h && rows[y];

        if (dirty && start < 0) {
            start = y;
        } else if (!dirty && start >= 0) {
            dpy_gfx_update(d->con, 0, start, w, y - start);
            start = -1;
        }
    }
}

static void copro_display_update_shared(CoproState *s, bool full)
{
    CoproDisplay *d = &s->display;
    const CoproScanout *sc = &d->view.sc;
    g_autofree bool *rows = NULL;
    g_autofree DirtyBitmapSnapshot *snap = NULL;

    if (full) {
        dpy_gfx_update_full(d->con);
        return;
    }
    rows = g_new0(bool, sc->height);
    snap = memory_region_snapshot_and_clear_dirty(
        &s->vram, sc->addr, (uint64_t)sc->pitch * sc->height,
        DIRTY_MEMORY_VGA);
    for (uint32_t y = 0; y < sc->height; y++) {
        rows[y] = memory_region_snapshot_get_dirty(
            &s->vram, snap, sc->addr + (uint64_t)sc->pitch * y,
            sc->width * 4);
    }
    copro_display_flush_rows(d, rows, sc->width, sc->height);
}

static void copro_display_update_converted(CoproState *s, bool full)
{
    CoproDisplay *d = &s->display;
    const CoproView *v = &d->view;
    const CoproScanout *sc = &v->sc;
    DisplaySurface *ds = qemu_console_surface(d->con);
    uint32_t bpp = copro_fmt_bpp(sc->format);
    bool cursor = copro_cursor_on(s);
    int32_t cx = COPRO_CURSOR_POS_X(d->cursor_pos);
    int32_t cy = COPRO_CURSOR_POS_Y(d->cursor_pos);
    g_autofree bool *rows = g_new0(bool, v->height);
    g_autofree DirtyBitmapSnapshot *snap = NULL;
    uint64_t lo = UINT64_MAX, hi = 0;
    bool moved;

    if (full || (v->primary && sc->addr >= s->vram_size)) {
        /* no dirty tracking of guest RAM through the GART */
        copro_mark_rows(rows, v->height, 0, v->height);
    } else {
        if (v->primary) {
            lo = sc->addr;
            hi = sc->addr + (uint64_t)sc->pitch * (sc->height - 1) +
                 sc->width * bpp;
        }
        if (cursor) {
            lo = MIN(lo, d->cursor_addr);
            hi = MAX(hi, d->cursor_addr + COPRO_CURSOR_BYTES);
        }
        if (lo < hi) {
            snap = memory_region_snapshot_and_clear_dirty(
                &s->vram, lo, hi - lo, DIRTY_MEMORY_VGA);
        }
        for (uint32_t y = 0; snap && v->primary && y < sc->height; y++) {
            if (memory_region_snapshot_get_dirty(
                    &s->vram, snap, sc->addr + (uint64_t)sc->pitch * y,
                    sc->width * bpp)) {
                copro_mark_rows(rows, v->height, v->plane_y + (int32_t)y, 1);
            }
        }
        if (snap && cursor && memory_region_snapshot_get_dirty(
                &s->vram, snap, d->cursor_addr, COPRO_CURSOR_BYTES)) {
            copro_mark_rows(rows, v->height, cy, COPRO_CURSOR_SIZE);
        }
    }
    /* where the cursor was (erase) and where it is (draw) */
    moved = !cursor || !d->cursor_drawn || cx != d->cursor_drawn_x ||
            cy != d->cursor_drawn_y || d->cursor_addr != d->cursor_drawn_addr;
    if (d->cursor_drawn && moved) {
        copro_mark_rows(rows, v->height, d->cursor_drawn_y,
                        COPRO_CURSOR_SIZE);
    }
    if (cursor && moved) {
        copro_mark_rows(rows, v->height, cy, COPRO_CURSOR_SIZE);
    }
    for (uint32_t y = 0; y < v->height; y++) {
        uint32_t *dst;

        if (!rows[y]) {
            continue;
        }
        dst = (uint32_t *)((uint8_t *)surface_data(ds) +
                           (size_t)surface_stride(ds) * y);
        copro_display_compose_row(s, v, y, dst);
    }
    d->cursor_drawn = cursor;
    d->cursor_drawn_x = cx;
    d->cursor_drawn_y = cy;
    d->cursor_drawn_addr = d->cursor_addr;
    copro_display_flush_rows(d, rows, v->width, v->height);
}

/*
 * GraphicHwOps.gfx_update: called by the UI's refresh timer and by
 * screendump, which then reads the console surface. The surface is
 * rebuilt when what the display shows changed (mode, scanout address,
 * format, cursor on or off), else only the rows that changed are redrawn.
 */
static void copro_display_update(void *opaque)
{
    CoproState *s = opaque;
    CoproDisplay *d = &s->display;
    CoproView want;
    bool full = false;

    copro_display_want(s, &want);
    /* both zero-filled, padding included, and copied whole */
    if (memcmp(&want, &d->view, sizeof(want))) {
        memcpy(&d->view, &want, sizeof(want));
        d->cursor_drawn = false;
        d->dma_warned = false;
        dpy_gfx_replace_surface(d->con, copro_display_surface(s, &want));
        trace_copro_disp_console((int)want.kind, want.width, want.height);
        full = true;
    }
    switch (d->view.kind) {
    case COPRO_VIEW_SHARED:
        copro_display_update_shared(s, full);
        break;
    case COPRO_VIEW_CONVERTED:
        copro_display_update_converted(s, full);
        break;
    default:
        if (full) {
            dpy_gfx_update_full(d->con);
        }
        break;
    }
}

static void copro_display_invalidate(void *opaque)
{
    CoproState *s = opaque;

    s->display.view.kind = COPRO_VIEW_NONE;
}

const GraphicHwOps copro_display_ops = {
    .invalidate = copro_display_invalidate,
    .gfx_update = copro_display_update,
};
