/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for apps/picture.c: the CPU model of what the applications
 * draw must agree with itself pixel by pixel (picture_pixel against
 * picture_paint, clipped to the surface and to the canvas as the device
 * clips a RECT), the GPU drawing must be the packets the model assumes,
 * and the CRC must be zlib's (the host compares screendumps with it).
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_cmd.h>

#include "apps/picture.h"
#include "umd/umd.h"

#define CW  96
#define CH  64

static uint32_t px[CW * CH];

static void random_picture(GRand *rng, struct picture *p, uint32_t w,
                           uint32_t h)
{
    picture_init(p, g_rand_int(rng));
    for (unsigned i = 0; i < 20; i++) {
        /* some start past the surface or run past its edge */
        picture_rect(p, g_rand_int_range(rng, 0, w + 8),
                     g_rand_int_range(rng, 0, h + 8),
                     g_rand_int_range(rng, 0, w + 16),
                     g_rand_int_range(rng, 0, h + 16), g_rand_int(rng));
    }
}

static void test_paint_matches_pixel(void)
{
    GRand *rng = g_rand_new_with_seed(7);

    for (unsigned round = 0; round < 200; round++) {
        uint32_t w = g_rand_int_range(rng, 1, 70);
        uint32_t h = g_rand_int_range(rng, 1, 50);
        uint32_t x0 = g_rand_int_range(rng, 0, CW);
        uint32_t y0 = g_rand_int_range(rng, 0, CH);
        uint32_t under = g_rand_int(rng);
        struct canvas c = { px, CW, CH, CW };
        struct picture p;

        random_picture(rng, &p, w, h);
        for (unsigned i = 0; i < CW * CH; i++) {
            px[i] = under;
        }
        picture_paint(&p, w, h, &c, x0, y0);
        for (uint32_t y = 0; y < CH; y++) {
            for (uint32_t x = 0; x < CW; x++) {
                bool inside = x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;
                uint32_t want = inside ? picture_pixel(&p, w, h, x - x0,
                                                       y - y0) : under;

                g_assert_cmphex(px[y * CW + x], ==, want);
            }
        }
    }
    g_rand_free(rng);
}

static void test_order_and_clip(void)
{
    struct picture p;

    picture_init(&p, 1);
    picture_rect(&p, 2, 2, 4, 4, 2);
    picture_rect(&p, 3, 3, 100, 1, 3);      /* runs past the edge */
    picture_rect(&p, 0, 0, 0, 5, 4);        /* empty: left out */
    g_assert_cmpuint(p.n, ==, 2);
    g_assert_cmphex(picture_pixel(&p, 8, 8, 0, 0), ==, 1);
    g_assert_cmphex(picture_pixel(&p, 8, 8, 2, 2), ==, 2);
    g_assert_cmphex(picture_pixel(&p, 8, 8, 3, 3), ==, 3);  /* later wins */
    g_assert_cmphex(picture_pixel(&p, 8, 8, 7, 3), ==, 3);
    g_assert_cmphex(picture_pixel(&p, 8, 8, 8, 3), ==, 1);  /* off surface */
    for (unsigned i = 0; i < PICTURE_MAX_RECTS; i++) {
        picture_rect(&p, 0, 0, 1, 1, 5);
    }
    g_assert_true(p.overflow);
    g_assert_cmpuint(p.n, ==, PICTURE_MAX_RECTS);
}

/* The GPU drawing: FILL of the whole surface, SET_TARGET, one RECT each,
 * with the allocation named by handle (two patch locations). */
static void test_emit(void)
{
    static uint32_t storage[256];
    struct umd_cmdbuf b;
    struct picture p;
    const uint32_t *dw;

    picture_init(&p, 0x00112233);
    picture_rect(&p, 1, 2, 3, 4, 0x00aabbcc);
    picture_rect(&p, 5, 6, 7, 8, 0x00ddeeff);
    umd_init(&b, storage, sizeof(storage));
    picture_emit(&p, &b, 0x1234, 64, 40, 10, 12);
    g_assert_true(umd_ok(&b));
    g_assert_cmpuint(b.nalloc, ==, 1);
    g_assert_cmphex(b.alloc[0].handle, ==, 0x1234);
    g_assert_true(b.alloc[0].write);
    g_assert_cmpuint(b.npatch, ==, 2);
    g_assert_cmpuint(umd_bytes(&b), ==, (COPRO_LEN_FILL + COPRO_LEN_SET_TARGET +
                                         2 * COPRO_LEN_RECT) * 4);
    dw = umd_words(&b);
    g_assert_cmpuint(COPRO_PKT_OP(dw[0]), ==, COPRO_OP_FILL);
    g_assert_cmpuint(COPRO_PKT_OP(dw[COPRO_LEN_FILL]), ==,
                     COPRO_OP_SET_TARGET);
}

static void test_crc32(void)
{
    const char *s = "123456789";

    g_assert_cmphex(picture_crc32(0, (const uint8_t *)s, 9), ==, 0xcbf43926);
    /* in pieces, as the screen is summed row by row */
    g_assert_cmphex(picture_crc32(picture_crc32(0, (const uint8_t *)s, 4),
                                  (const uint8_t *)s + 4, 5), ==, 0xcbf43926);
    g_assert_cmphex(picture_crc32(0, NULL, 0), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/picture/paint-matches-pixel", test_paint_matches_pixel);
    g_test_add_func("/picture/order-and-clip", test_order_and_clip);
    g_test_add_func("/picture/emit", test_emit);
    g_test_add_func("/picture/crc32", test_crc32);
    return g_test_run();
}
