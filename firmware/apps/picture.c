/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/picture.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#include "umd/umd.h"

void picture_init(struct picture *p, uint32_t background)
{
    p->background = background;
    p->n = 0;
    p->overflow = false;
}

void picture_rect(struct picture *p, uint32_t x, uint32_t y, uint32_t w,
                  uint32_t h, uint32_t colour)
{
    if (!w || !h) {
        return;
    }
    if (p->n == PICTURE_MAX_RECTS) {
        p->overflow = true;
        return;
    }
    p->r[p->n++] = (struct pic_rect){ x, y, w, h, colour };
}

void picture_emit(const struct picture *p, struct umd_cmdbuf *b,
                  uint32_t halloc, uint64_t off, uint32_t pitch, uint32_t w,
                  uint32_t h)
{
    umd_fill(b, halloc, off, (uint64_t)pitch * h, p->background);
    if (!p->n) {
        return;
    }
    umd_set_target(b, 0, halloc, off, pitch, w, h, COPRO_FMT_XRGB8888);
    for (unsigned i = 0; i < p->n; i++) {
        umd_rect(b, 0, p->r[i].x, p->r[i].y, p->r[i].w, p->r[i].h,
                 p->r[i].colour);
    }
}

/* The part of [a, a + len) below lim: *end (exclusive), empty if a >= lim.
 * 64-bit so that a + len cannot wrap. */
static uint32_t clip_end(uint32_t a, uint32_t len, uint32_t lim)
{
    uint64_t end = (uint64_t)a + len;

    return (uint32_t)(end < lim ? end : lim);
}

uint32_t picture_pixel(const struct picture *p, uint32_t w, uint32_t h,
                       uint32_t x, uint32_t y)
{
    uint32_t px = p->background;

    if (x >= w || y >= h) {
        return px;
    }
    for (unsigned i = 0; i < p->n; i++) {
        const struct pic_rect *r = &p->r[i];

        if (x >= r->x && x < clip_end(r->x, r->w, w) && y >= r->y &&
            y < clip_end(r->y, r->h, h)) {
            px = r->colour;
        }
    }
    return px;
}

void canvas_fill(struct canvas *c, uint32_t x, uint32_t y, uint32_t w,
                 uint32_t h, uint32_t colour)
{
    uint32_t x1 = clip_end(x, w, c->width), y1 = clip_end(y, h, c->height);

    for (uint32_t j = y; j < y1; j++) {
        uint32_t *row = c->px + (uint64_t)j * c->stride;

        for (uint32_t i = x; i < x1; i++) {
            row[i] = colour;
        }
    }
}

void picture_paint(const struct picture *p, uint32_t w, uint32_t h,
                   struct canvas *c, uint32_t x0, uint32_t y0)
{
    /* the surface's pixels that land on the canvas */
    struct canvas view;

    if (x0 >= c->width || y0 >= c->height) {
        return;
    }
    view = (struct canvas){
        .px = c->px + (uint64_t)y0 * c->stride + x0,
        .width = clip_end(x0, w, c->width) - x0,
        .height = clip_end(y0, h, c->height) - y0,
        .stride = c->stride,
    };
    canvas_fill(&view, 0, 0, w, h, p->background);
    for (unsigned i = 0; i < p->n; i++) {
        const struct pic_rect *r = &p->r[i];

        /* clipped to the surface first, as the device does */
        if (r->x < w && r->y < h) {
            canvas_fill(&view, r->x, r->y, clip_end(r->x, r->w, w) - r->x,
                        clip_end(r->y, r->h, h) - r->y, r->colour);
        }
    }
}

uint32_t picture_crc32(uint32_t crc, const uint8_t *bytes, uint64_t n)
{
    static uint32_t table[256];
    static bool have_table;

    if (!have_table) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t v = i;

            for (int k = 0; k < 8; k++) {
                v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
            }
            table[i] = v;
        }
        have_table = true;
    }
    crc = ~crc;
    for (uint64_t i = 0; i < n; i++) {
        crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >> 8);
    }
    return ~crc;
}
