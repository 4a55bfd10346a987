/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for the display's planes inside the mode (docs/specs/copro.rst,
 * "Mode size, plane position and background", "Asynchronous flips"): a
 * mode larger than the primary plane, the primary positioned and clipped,
 * the background where no plane covers a pixel, the CRTC on with its
 * primary plane off, flips that take effect at once, and all of it across
 * migration, with doctored streams refused.
 */
#include "qemu/osdep.h"
#include "copro-display-qtest.h"

#define MW          96      /* the mode: larger than the W x H primary */
#define MH          64
#define BG          0x123456u
#define BLACK_W     640     /* black with no valid size: the spec's */
#define BLACK_H     480

/* The screen as the spec composes it, from the primary in VRAM at @addr. */
static uint32_t *expect_composed(Copro *c, uint64_t addr, bool primary,
                                 int px, int py, uint32_t bg)
{
    g_autofree uint32_t *plane = expect_vram_xrgb(c, addr, PITCH, W, H);
    uint32_t *want = g_new(uint32_t, MW * MH);

    for (int y = 0; y < MH; y++) {
        for (int x = 0; x < MW; x++) {
            int sx = x - px, sy = y - py;

            want[y * MW + x] = primary && sx >= 0 && sx < W && sy >= 0 &&
                               sy < H ? plane[sy * W + sx] : bg;
        }
    }
    return want;
}

static uint32_t crc_of(const uint32_t *px, int n)
{
    g_autofree uint8_t *rgb = g_malloc((size_t)n * 3);

    for (int i = 0; i < n; i++) {
        rgb[3 * i] = px[i] >> 16;
        rgb[3 * i + 1] = px[i] >> 8;
        rgb[3 * i + 2] = px[i];
    }
    return crc32_model(rgb, (size_t)n * 3);
}

/* The screendump is the composed screen, the primary at (@x, @y). */
static void check_composed(Copro *c, uint64_t addr, int x, int y)
{
    g_autofree uint32_t *want = expect_composed(c, addr, true, x, y, BG);

    check_shot(c, want, MW, MH);
}

/* x-query-copro and info copro report the layout as committed. */
static void check_query(Copro *c, bool primary, int x, int y)
{
    g_autofree char *text = qtest_hmp(c->qts, "info copro");
    g_autofree char *line = g_strdup_printf("primary %s at (%d, %d)",
                                            primary ? "on" : "off", x, y);
    QDict *rsp, *dev, *di;

    g_assert_nonnull(strstr(text, "mode 96x64, background 0x123456"));
    g_assert_nonnull(strstr(text, line));
    dev = copro_query(c, &rsp);
    di = qdict_get_qdict(dev, "display");
    g_assert_true(qdict_get_bool(di, "primary") == primary);
    g_assert_cmpuint(copro_qdict_u64(di, "mode-width"), ==, MW);
    g_assert_cmpuint(copro_qdict_u64(di, "mode-height"), ==, MH);
    g_assert_cmpint(qdict_get_int(di, "plane-x"), ==, x);
    g_assert_cmpint(qdict_get_int(di, "plane-y"), ==, y);
    g_assert_cmphex(copro_qdict_u64(di, "background"), ==, BG);
    qobject_unref(rsp);
}

/* Commit the W x H primary at @addr in an MW x MH mode at (@x, @y). */
static int64_t layout_on(Copro *c, uint64_t addr, int x, int y, uint32_t ctl)
{
    disp_stage(c, addr, PITCH, W, H, COPRO_FMT_XRGB8888);
    wr32(c, COPRO_REG_DISP_MODE_SIZE, COPRO_DISP_SIZE(MW, MH));
    wr32(c, COPRO_REG_DISP_PLANE_POS, COPRO_DISP_POS(x, y));
    wr32(c, COPRO_REG_DISP_BACKGROUND, BG);
    wr32(c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE | ctl);
    return copro_time(c);
}

/* The registers: reset values, staged read-back, FLIP_ASYNC write-only. */
static void test_regs(void)
{
    Copro c;

    copro_boot(&c, "-M q35", "");
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_MODE_SIZE), ==, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_PLANE_POS), ==, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_BACKGROUND), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP_ASYNC), ==, 0);
    wr32(&c, COPRO_REG_DISP_MODE_SIZE, COPRO_DISP_SIZE(MW, MH));
    wr32(&c, COPRO_REG_DISP_PLANE_POS, COPRO_DISP_POS(-5, 7));
    wr32(&c, COPRO_REG_DISP_BACKGROUND, BG);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_MODE_SIZE), ==,
                    COPRO_DISP_SIZE(MW, MH));
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_PLANE_POS), ==,
                    COPRO_DISP_POS(-5, 7));
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_BACKGROUND), ==, BG);
    /* staged: nothing is shown until a commit */
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==, 0);
    /* reserved CONTROL bits are still ignored */
    layout_on(&c, SURF_A, 0, 0, 0xf0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_CONTROL), ==,
                    COPRO_DISP_CTL_ENABLE);
    /* a device reset clears them */
    qtest_system_reset(c.qts);
    c.mmio = qpci_iomap(c.dev, COPRO_BAR_MMIO, NULL);
    qpci_device_enable(c.dev);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_MODE_SIZE), ==, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_PLANE_POS), ==, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_BACKGROUND), ==, 0);
    copro_shutdown(&c);
}

/*
 * A primary smaller than the mode, at a position, clipped at every edge;
 * the background around it; the frame CRC over the whole mode; a change
 * to the primary's VRAM redrawn where the primary is on screen.
 */
static void test_positioned(void)
{
    static const int pos[][2] = {
        { 20, 10 }, { 0, 0 }, { -8, -4 }, { MW - 10, MH - 6 },
        { MW + 3, 0 }, { -W, -H },
    };
    g_autofree uint32_t *plain = NULL;
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_A, PITCH, W, H, 0x77);
    t0 = layout_on(&c, SURF_A, 20, 10, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    wr32(&c, COPRO_REG_DISP_CRC_CONTROL, COPRO_DISP_CRC_CTL_ENABLE);
    for (size_t i = 0; i < G_N_ELEMENTS(pos); i++) {
        g_autofree uint32_t *want = NULL;

        wr32(&c, COPRO_REG_DISP_PLANE_POS,
             COPRO_DISP_POS(pos[i][0], pos[i][1]));
        wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
        want = expect_composed(&c, SURF_A, true, pos[i][0], pos[i][1], BG);
        check_shot(&c, want, MW, MH);
        copro_clock_to(&c, vsync_at(t0, i + 1, 60));
        g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==,
                        crc_of(want, MW * MH));
    }

    /* rows the primary changes are redrawn at their place on screen */
    wr32(&c, COPRO_REG_DISP_PLANE_POS, COPRO_DISP_POS(13, 9));
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    check_composed(&c, SURF_A, 13, 9);
    put_pattern(&c, SURF_A, PITCH, W, H, 0x99);
    check_composed(&c, SURF_A, 13, 9);

    /* a flip keeps the position */
    put_pattern(&c, SURF_B, PITCH, W, H, 0xbb);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    copro_clock_to(&c, vsync_at(t0, G_N_ELEMENTS(pos) + 1, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_B);
    check_composed(&c, SURF_B, 13, 9);

    /* a mode size a commit refuses: SIZE, black */
    wr32(&c, COPRO_REG_DISP_MODE_SIZE, COPRO_DISP_SIZE(0, MH));
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ERROR);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==,
                     COPRO_DISP_ERR_SIZE);
    wr32(&c, COPRO_REG_DISP_MODE_SIZE,
         COPRO_DISP_SIZE(COPRO_DISP_MAX_DIM + 1, MH));
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==,
                     COPRO_DISP_ERR_SIZE);
    check_black(&c, BLACK_W, BLACK_H);
    /* MODE_SIZE 0: the primary's size, as before these registers (a
     * commit shows the staged SURFACE, not the address flipped to) */
    wr32(&c, COPRO_REG_DISP_MODE_SIZE, 0);
    wr32(&c, COPRO_REG_DISP_PLANE_POS, 0);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    plain = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    check_shot(&c, plain, W, H);
    copro_shutdown(&c);
}

/*
 * The CRTC on with its primary plane off: the background (and the
 * cursor), no surface checked, flips ignored; the primary back on.
 */
static void test_primary_off(void)
{
    g_autofree uint32_t *bg = g_new(uint32_t, MW * MH);
    g_autofree uint8_t *cur = g_malloc(COPRO_CURSOR_BYTES);
    int64_t t0;
    Copro c;

    for (int i = 0; i < MW * MH; i++) {
        bg[i] = BG;
    }
    copro_boot(&c, "-M q35", "");
    wr64(&c, COPRO_REG_INT_MASK, DISP_INTS);
    /* no primary to take the size from: SIZE */
    wr32(&c, COPRO_REG_DISP_BACKGROUND, BG);
    wr32(&c, COPRO_REG_DISP_CONTROL,
         COPRO_DISP_CTL_ENABLE | COPRO_DISP_CTL_PRIMARY_OFF);
    t0 = copro_time(&c);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ERROR);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==,
                     COPRO_DISP_ERR_SIZE);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);

    /* the primary's registers are garbage and not checked */
    disp_stage(&c, 3, 1, 0, 0, 99);
    wr32(&c, COPRO_REG_DISP_MODE_SIZE, COPRO_DISP_SIZE(MW, MH));
    wr32(&c, COPRO_REG_DISP_CONTROL,
         COPRO_DISP_CTL_ENABLE | COPRO_DISP_CTL_PRIMARY_OFF);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_CONTROL), ==,
                    COPRO_DISP_CTL_ENABLE | COPRO_DISP_CTL_PRIMARY_OFF);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);
    check_shot(&c, bg, MW, MH);
    check_query(&c, false, 0, 0);
    wr32(&c, COPRO_REG_DISP_CRC_CONTROL, COPRO_DISP_CRC_CTL_ENABLE);
    copro_clock_to(&c, vsync_at(t0, 1, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, crc_of(bg, MW * MH));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);

    /* flips are ignored: nothing pending, no FLIP_DONE */
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_A);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==, 0);
    wr64(&c, COPRO_REG_DISP_FLIP_ASYNC, SURF_A);
    copro_clock_to(&c, vsync_at(t0, 2, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 0);

    /* the cursor over the background */
    for (uint32_t i = 0; i < COPRO_CURSOR_SIZE * COPRO_CURSOR_SIZE; i++) {
        stl_le_p(cur + 4 * i, (i & 64 ? 0xff : 0x80) << 24 | i * 0x10307);
    }
    vram_write(&c, CURSOR, cur, COPRO_CURSOR_BYTES);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, CURSOR);
    wr32(&c, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(50, -20));
    wr32(&c, COPRO_REG_CURSOR_CONTROL, COPRO_CURSOR_CTL_ENABLE);
    copro_clock_to(&c, vsync_at(t0, 3, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, shot_crc(&c));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), !=, crc_of(bg, MW * MH));
    wr32(&c, COPRO_REG_CURSOR_CONTROL, 0);

    /* a flip pending when the primary goes off never completes */
    put_pattern(&c, SURF_A, PITCH, W, H, 0x31);
    layout_on(&c, SURF_A, 4, 4, 0);
    check_composed(&c, SURF_A, 4, 4);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    wr32(&c, COPRO_REG_DISP_CONTROL,
         COPRO_DISP_CTL_ENABLE | COPRO_DISP_CTL_PRIMARY_OFF);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    copro_clock_to(&c, vsync_at(t0, 4, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC);
    check_shot(&c, bg, MW, MH);
    /* and back on, where it was */
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    check_composed(&c, SURF_A, 4, 4);
    check_query(&c, true, 4, 4);
    copro_shutdown(&c);
}

/*
 * Asynchronous flips: shown at once, FLIP_DONE at once, a pending vsync
 * flip replaced, a refused surface reported at once, split writes, and
 * ignored while the display is off.
 */
static void test_async_flip(void)
{
    g_autofree uint32_t *pic_b = NULL;
    g_autofree uint32_t *pic_c = NULL;
    int64_t t0, mid;
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_A, PITCH, W, H, 0xa1);
    put_pattern(&c, SURF_B, PITCH, W, H, 0xb2);
    put_pattern(&c, SURF_C, PITCH, W, H, 0xc3);
    pic_b = expect_vram_xrgb(&c, SURF_B, PITCH, W, H);
    pic_c = expect_vram_xrgb(&c, SURF_C, PITCH, W, H);
    wr64(&c, COPRO_REG_INT_MASK, DISP_INTS);

    /* off: ignored */
    wr64(&c, COPRO_REG_DISP_FLIP_ASYNC, SURF_B);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);

    t0 = disp_on(&c, SURF_A);
    mid = vsync_at(t0, 2, 60) + 5555;
    copro_clock_to(&c, mid);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    /* at once, mid-frame: no vsync needed */
    wr64(&c, COPRO_REG_DISP_FLIP_ASYNC, SURF_B);
    g_assert_cmpint(copro_time(&c), ==, mid);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_B);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_FLIP_DONE);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 1);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP_ADDR), ==, SURF_B);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIP_VSYNC), ==, 2);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    check_shot(&c, pic_b, W, H);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);

    /* it replaces a flip pending for the vsync, which never completes */
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_A);
    wr32(&c, COPRO_REG_DISP_FLIP_ASYNC, (uint32_t)SURF_C);  /* low half */
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_B);
    wr32(&c, COPRO_REG_DISP_FLIP_ASYNC + 4, SURF_C >> 32);  /* high half */
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_C);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS_REPLACED), ==, 1);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==, 0);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    copro_clock_to(&c, vsync_at(t0, 3, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, COPRO_INT_DEV_VSYNC);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_C);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 2);
    check_shot(&c, pic_c, W, H);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);

    /* a refused surface: DISPLAY_ERROR at once, black */
    wr64(&c, COPRO_REG_DISP_FLIP_ASYNC, SURF_B + 2);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_DISPLAY_ERROR);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ERROR);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==,
                     COPRO_DISP_ERR_ADDRESS);
    check_black(&c, W, H);
    /* a good one recovers */
    wr64(&c, COPRO_REG_DISP_FLIP_ASYNC, SURF_B);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    check_shot(&c, pic_b, W, H);
    copro_shutdown(&c);
}

/* The layout and the background migrate; the picture is the same. */
static void test_migration(void)
{
    g_autofree uint32_t *want = NULL;
    int64_t t0;
    Copro src, dst;

    copro_boot(&src, "-M q35", "");
    put_pattern(&src, SURF_A, PITCH, W, H, 0x5e);
    t0 = layout_on(&src, SURF_A, -6, 30, 0);
    want = expect_composed(&src, SURF_A, true, -6, 30, BG);
    /* staged values differ from committed ones and must stay staged */
    wr32(&src, COPRO_REG_DISP_PLANE_POS, COPRO_DISP_POS(1, 2));
    wr32(&src, COPRO_REG_DISP_BACKGROUND, 0xff00ff);
    copro_clock_to(&src, vsync_at(t0, 1, 60) + 77);
    disp_migrate(&src, &dst);
    g_assert_cmphex(rd32(&dst, COPRO_REG_DISP_MODE_SIZE), ==,
                    COPRO_DISP_SIZE(MW, MH));
    g_assert_cmphex(rd32(&dst, COPRO_REG_DISP_PLANE_POS), ==,
                    COPRO_DISP_POS(1, 2));
    g_assert_cmphex(rd32(&dst, COPRO_REG_DISP_BACKGROUND), ==, 0xff00ff);
    check_shot(&dst, want, MW, MH);
    copro_shutdown(&dst);

    /* with the primary off */
    copro_boot(&src, "-M q35", "");
    layout_on(&src, SURF_A, 0, 0, COPRO_DISP_CTL_PRIMARY_OFF);
    disp_migrate(&src, &dst);
    g_assert_cmphex(rd32(&dst, COPRO_REG_DISP_CONTROL), ==,
                    COPRO_DISP_CTL_ENABLE | COPRO_DISP_CTL_PRIMARY_OFF);
    g_assert_cmphex(rd32(&dst, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    g_free(want);
    want = expect_composed(&dst, SURF_A, false, 0, 0, BG);
    check_shot(&dst, want, MW, MH);
    copro_shutdown(&dst);
}

/*
 * Doctored layout subsections: found by a marker in the staged PLANE_POS
 * (no side effect); the committed fields follow it (the subsection's
 * order, big-endian).
 */
#define LAYOUT_MARKER   0xd15b1a7cu
#define AT_MODE_SIZE    8
#define AT_BACKGROUND   16

static void save_layout_stream(Stream *st, char **file, uint32_t ctl)
{
    g_autofree char *uri = NULL;
    uint8_t want[4];
    Copro src;

    *file = g_strdup_printf("%s/copro-planes-stream-%d.bin",
                            g_get_tmp_dir(), getpid());
    uri = g_strdup_printf("file:%s", *file);
    copro_boot(&src, "-M q35", "");
    layout_on(&src, SURF_A, 3, 3, ctl);
    wr32(&src, COPRO_REG_DISP_PLANE_POS, LAYOUT_MARKER);
    qtest_qmp_assert_success(src.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    g_assert_true(copro_migration_wait(src.qts));
    copro_shutdown(&src);
    g_assert_true(g_file_get_contents(*file, &st->data, &st->len, NULL));
    stl_be_p(want, LAYOUT_MARKER);
    st->marker = 0;
    for (gsize i = 0; i + 4 <= st->len; i++) {
        if (!memcmp(st->data + i, want, 4)) {
            g_assert_cmpuint(st->marker, ==, 0);   /* exactly once */
            st->marker = i;
        }
    }
    g_assert_cmpuint(st->marker, >, 4);
    g_assert_cmphex(ldl_be_p(st->data + st->marker + AT_MODE_SIZE), ==,
                    COPRO_DISP_SIZE(MW, MH));
    g_assert_cmphex(ldl_be_p(st->data + st->marker + AT_BACKGROUND), ==,
                    BG);
}

static void test_migration_hostile(void)
{
    static const uint32_t ctls[] = { 0, COPRO_DISP_CTL_PRIMARY_OFF };

    for (size_t i = 0; i < G_N_ELEMENTS(ctls); i++) {
        g_autofree char *file = NULL;
        g_autofree gchar *orig = NULL;
        Stream st;

        save_layout_stream(&st, &file, ctls[i]);
        orig = g_memdup2(st.data, st.len);
        g_assert_true(load_stream(file, &st));
        /* an active mode size a commit refuses */
        stl_be_p(st.data + st.marker + AT_MODE_SIZE, COPRO_DISP_SIZE(0, MH));
        g_assert_false(load_stream(file, &st));
        memcpy(st.data, orig, st.len);
        stl_be_p(st.data + st.marker + AT_MODE_SIZE,
                 COPRO_DISP_SIZE(MW, COPRO_DISP_MAX_DIM + 1));
        g_assert_false(load_stream(file, &st));
        memcpy(st.data, orig, st.len);
        /* a background a register write cannot give */
        stl_be_p(st.data + st.marker + AT_BACKGROUND, 0x01000000 | BG);
        g_assert_false(load_stream(file, &st));
        if (ctls[i]) {
            /* with the primary off, no size to fall back on */
            memcpy(st.data, orig, st.len);
            stl_be_p(st.data + st.marker + AT_MODE_SIZE, 0);
            g_assert_false(load_stream(file, &st));
        }
        unlink(file);
        g_free(st.data);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/copro/display/planes/regs", test_regs);
    qtest_add_func("/copro/display/planes/positioned", test_positioned);
    qtest_add_func("/copro/display/planes/primary-off", test_primary_off);
    qtest_add_func("/copro/display/planes/async-flip", test_async_flip);
    qtest_add_func("/copro/display/planes/migration", test_migration);
    qtest_add_func("/copro/display/planes/migration-hostile",
                   test_migration_hostile);
    return g_test_run();
}
