/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A picture as the applications draw it: a background colour and a list
 * of solid rectangles painted in order over it. The same list is drawn
 * twice: by the GPU (picture_emit: FILL of the surface with the
 * background, then SET_TARGET and one RECT per rectangle, the device
 * clipping each to the target) and by the CPU (picture_paint: the same
 * painter's algorithm on a canvas, clipped the same way), so an
 * application can check what the GPU drew pixel for pixel, and the
 * compositor can compute what the screen must show.
 *
 * Pixels are 32-bit XRGB8888 (ARGB8888 for pointer shapes: the top byte
 * is then alpha), as SET_TARGET's COPRO_FMT_XRGB8888 writes them.
 *
 * Pure C, no hardware: unit-tested on the host (tests/unit/test-picture.c).
 */
#ifndef FW_APPS_PICTURE_H
#define FW_APPS_PICTURE_H

#include <stdbool.h>
#include <stdint.h>

#define PICTURE_MAX_RECTS   48

struct pic_rect {
    uint32_t x, y, w, h;
    uint32_t colour;
};

struct picture {
    uint32_t background;
    unsigned n;
    bool overflow;              /* a rectangle did not fit the list */
    struct pic_rect r[PICTURE_MAX_RECTS];
};

/* A CPU image: width x height pixels, stride pixels from row to row. */
struct canvas {
    uint32_t *px;
    uint32_t width, height, stride;
};

void picture_init(struct picture *p, uint32_t background);
/* Adds a rectangle (empty ones are kept out); overflow if the list is
 * full. */
void picture_rect(struct picture *p, uint32_t x, uint32_t y, uint32_t w,
                  uint32_t h, uint32_t colour);

/*
 * Draws the picture with the GPU into the w x h XRGB8888 surface at
 * offset off of allocation halloc, pitch bytes per row, target slot 0:
 * FILL of pitch x h bytes with the background, SET_TARGET, one RECT per
 * rectangle. The umd records any failure in b.
 */
struct umd_cmdbuf;
void picture_emit(const struct picture *p, struct umd_cmdbuf *b,
                  uint32_t halloc, uint64_t off, uint32_t pitch, uint32_t w,
                  uint32_t h);

/* The colour of pixel (x, y) of the picture on a w x h surface. */
uint32_t picture_pixel(const struct picture *p, uint32_t w, uint32_t h,
                       uint32_t x, uint32_t y);

/*
 * Paints the picture, as drawn on a w x h surface, onto c with its
 * top-left pixel at (x0, y0): background and rectangles clipped to the
 * surface and to the canvas.
 */
void picture_paint(const struct picture *p, uint32_t w, uint32_t h,
                   struct canvas *c, uint32_t x0, uint32_t y0);

/* Fills a w x h rectangle of c at (x, y) with colour, clipped. */
void canvas_fill(struct canvas *c, uint32_t x, uint32_t y, uint32_t w,
                 uint32_t h, uint32_t colour);

/* CRC-32 (IEEE, as zlib's crc32) of bytes, continuing from crc (0 to
 * start). */
uint32_t picture_crc32(uint32_t crc, const uint8_t *bytes, uint64_t n);

#endif /* FW_APPS_PICTURE_H */
