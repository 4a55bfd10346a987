/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's display block: registers and reset values, the vsync
 * period exact in virtual time, flips taking effect exactly at the next
 * vsync (one or two per frame), the display interrupts and their masking,
 * refused surfaces, migration with a flip pending, and QMP screendump
 * giving exactly the scanout's pixels (shared VRAM, converted formats,
 * the aperture, the cursor plane, incremental redraws).
 *
 * One program past a thousand lines, as each of the device's qtests is:
 * one chapter of docs/specs/copro.rst ("Display"), each rule a case over
 * one harness (copro-display-qtest.h).
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "copro-qtest.h"
#include "copro-display-qtest.h"

/*
 * Registers
 */

static void check_display_reset_values(Copro *c)
{
    static const uint64_t zero64[] = {
        COPRO_REG_DISP_SURFACE, COPRO_REG_DISP_FLIP, COPRO_REG_DISP_SCANOUT,
        COPRO_REG_DISP_VSYNC_COUNT, COPRO_REG_DISP_VSYNC_TIME,
        COPRO_REG_DISP_FLIP_ADDR, COPRO_REG_DISP_FLIP_VSYNC,
        COPRO_REG_DISP_FLIPS, COPRO_REG_DISP_FLIPS_REPLACED,
        COPRO_REG_DISP_ERROR_ADDR, COPRO_REG_CURSOR_SURFACE,
    };
    static const uint64_t zero32[] = {
        COPRO_REG_DISP_CONTROL, COPRO_REG_DISP_STATUS, COPRO_REG_DISP_PITCH,
        COPRO_REG_DISP_WIDTH, COPRO_REG_DISP_HEIGHT, COPRO_REG_DISP_FORMAT,
        COPRO_REG_DISP_ERROR, COPRO_REG_CURSOR_CONTROL, COPRO_REG_CURSOR_POS,
    };

    for (size_t i = 0; i < G_N_ELEMENTS(zero64); i++) {
        g_assert_cmphex(rd64(c, zero64[i]), ==, 0);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(zero32); i++) {
        g_assert_cmphex(rd32(c, zero32[i]), ==, 0);
    }
    g_assert_cmpuint(rd32(c, COPRO_REG_DISP_REFRESH), ==, 60);
    g_assert_cmpuint(rd64(c, COPRO_REG_DISP_PERIOD_NS), ==, 16666666);
}

static void test_regs(void)
{
    Copro c;

    copro_boot(&c, "-M q35", "");
    g_assert_true(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_DISPLAY);
    check_display_reset_values(&c);

    /* staged mode registers read back and do nothing by themselves */
    disp_stage(&c, 0x123456789abcull, 0x1000, 800, 600, COPRO_FMT_RGB565);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SURFACE), ==, 0x123456789abcull);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_PITCH), ==, 0x1000);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_WIDTH), ==, 800);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_HEIGHT), ==, 600);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_FORMAT), ==, COPRO_FMT_RGB565);
    /* halves of a 64-bit register take effect on their own */
    wr32(&c, COPRO_REG_DISP_SURFACE + 4, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SURFACE), ==, 0x56789abc);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==, 0);

    /* the display is off: no vsync, and a flip is ignored */
    wr64(&c, COPRO_REG_INT_MASK, DISP_INTS);
    copro_clock_to(&c, copro_time(&c) + NS);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, 0);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);

    /* read-only registers ignore writes; bad sizes read 0 */
    wr64(&c, COPRO_REG_DISP_VSYNC_COUNT, 5);
    wr32(&c, COPRO_REG_DISP_STATUS, 7);
    wr32(&c, COPRO_REG_DISP_REFRESH, 5);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==, 0);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_REFRESH), ==, 60);
    g_assert_cmphex(qpci_io_readw(c.dev, c.mmio, COPRO_REG_DISP_WIDTH), ==,
                    0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_WIDTH), ==, 0);
    g_assert_cmphex(rd32(&c, 0x3fc), ==, 0);    /* unknown */

    /* cursor registers */
    wr32(&c, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(-5, 300));
    g_assert_cmpint(COPRO_CURSOR_POS_X(rd32(&c, COPRO_REG_CURSOR_POS)), ==,
                    -5);
    g_assert_cmpint(COPRO_CURSOR_POS_Y(rd32(&c, COPRO_REG_CURSOR_POS)), ==,
                    300);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, CURSOR);
    g_assert_cmphex(rd64(&c, COPRO_REG_CURSOR_SURFACE), ==, CURSOR);
    wr32(&c, COPRO_REG_CURSOR_CONTROL, 0xff);
    g_assert_cmphex(rd32(&c, COPRO_REG_CURSOR_CONTROL), ==,
                    COPRO_CURSOR_CTL_ENABLE);
    copro_shutdown(&c);
}

/* refresh out of range is refused when the device is created */
static void test_bad_refresh(void)
{
    static const uint32_t bad[] = { 0, 1001 };
    QTestState *qts = qtest_init("-M pc -nodefaults");
    QDict *rsp;

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments':"
                        " {'driver': 'copro', 'id': 'bad', 'refresh': %u}}",
                        bad[i]);
        g_assert_true(qdict_haskey(rsp, "error"));
        g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"),
                                              "desc"), "refresh="));
        qobject_unref(rsp);
    }
    qtest_quit(qts);
}

/*
 * Vsync: vsync k after enabling at t0 comes exactly at t0 + k * 1e9 / hz
 * (rounded down), for seconds on end; disabling stops it, enabling again
 * starts a new phase.
 */
static void test_vsync_period(const void *data)
{
    uint32_t hz = GPOINTER_TO_UINT(data);
    g_autofree char *opts = g_strdup_printf("refresh=%u", hz);
    uint64_t n = 2 * hz + 3;    /* crosses two whole seconds */
    int64_t t0, t1, d;
    Copro c;

    copro_boot(&c, "-M q35", opts);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_REFRESH), ==, hz);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_PERIOD_NS), ==, NS / hz);
    put_pattern(&c, SURF_A, PITCH, W, H, 1);
    t0 = copro_time(&c) + 12345;
    copro_clock_to(&c, t0);
    g_assert_cmpint(disp_on(&c, SURF_A), ==, t0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    for (uint64_t k = 1; k <= n; k++) {
        d = vsync_at(t0, k, hz);
        copro_clock_to(&c, d - 1);
        g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, k - 1);
        g_assert_false(rd64(&c, COPRO_REG_INT_STATUS) & COPRO_INT_DEV_VSYNC);
        copro_clock_to(&c, d);
        g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, k);
        g_assert_cmpint(rd64(&c, COPRO_REG_DISP_VSYNC_TIME), ==, d);
        g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                        COPRO_INT_DEV_VSYNC);
        wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_DEV_VSYNC);
    }

    /* off: no vsync for a second; the count stays */
    copro_clock_to(&c, d + 1000);
    wr32(&c, COPRO_REG_DISP_CONTROL, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==, 0);
    copro_clock_to(&c, d + NS);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, n);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);

    /* on again: a new phase from the enabling write */
    t1 = copro_time(&c) + 777;
    copro_clock_to(&c, t1);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    copro_clock_to(&c, vsync_at(t1, 1, hz) - 1);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, n);
    copro_clock_to(&c, vsync_at(t1, 1, hz));
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, n + 1);
    /* committing again while on keeps the phase */
    copro_clock_to(&c, vsync_at(t1, 1, hz) + 5000);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    copro_clock_to(&c, vsync_at(t1, 2, hz));
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_VSYNC_COUNT), ==, n + 2);
    g_assert_cmpint(rd64(&c, COPRO_REG_DISP_VSYNC_TIME), ==,
                    vsync_at(t1, 2, hz));
    copro_shutdown(&c);
}

/*
 * A flip written in the middle of a frame takes effect exactly at the next
 * vsync: registers and the picture change there and not a nanosecond
 * before.
 */
static void test_flip_mid_frame(void)
{
    g_autofree uint32_t *pic_a = NULL, *pic_b = NULL;
    int64_t t0, d1, d2;
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_A, PITCH, W, H, 0xa);
    put_pattern(&c, SURF_B, PITCH, W, H, 0xb);
    pic_a = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    pic_b = expect_vram_xrgb(&c, SURF_B, PITCH, W, H);
    t0 = disp_on(&c, SURF_A);
    d1 = vsync_at(t0, 1, 60);
    d2 = vsync_at(t0, 2, 60);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_A);
    check_shot(&c, pic_a, W, H);

    copro_clock_to(&c, t0 + (d1 - t0) / 2);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE | COPRO_DISP_STS_FLIP_PENDING);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==,
                    SURF_B | COPRO_DISP_FLIP_PENDING);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_A);
    check_shot(&c, pic_a, W, H);

    copro_clock_to(&c, d1 - 1);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_A);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);
    check_shot(&c, pic_a, W, H);

    copro_clock_to(&c, d1);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_B);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP_ADDR), ==, SURF_B);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIP_VSYNC), ==, 1);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 1);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_FLIP_DONE);
    check_shot(&c, pic_b, W, H);

    /* the next vsync without a flip raises VSYNC only */
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    copro_clock_to(&c, d2);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, COPRO_INT_DEV_VSYNC);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 1);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_B);

    /* disabling drops a pending flip */
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_A);
    wr32(&c, COPRO_REG_DISP_CONTROL, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==, 0);
    copro_clock_to(&c, vsync_at(t0, 4, 60));
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 1);
    check_black(&c, 640, 480);
    copro_shutdown(&c);
}

/*
 * Two flips in one frame: the last wins. The first never shows, FLIP_DONE
 * is raised once with the second's address, and FLIPS_REPLACED counts the
 * first. A flip written as two halves is requested by the high half.
 */
static void test_two_flips(void)
{
    g_autofree uint32_t *pic_c = NULL;
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_C, PITCH, W, H, 0xc);
    pic_c = expect_vram_xrgb(&c, SURF_C, PITCH, W, H);
    t0 = disp_on(&c, SURF_A);
    copro_clock_to(&c, t0 + 1000);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    copro_clock_to(&c, t0 + 2000);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_C);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==,
                    SURF_C | COPRO_DISP_FLIP_PENDING);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS_REPLACED), ==, 1);
    copro_clock_to(&c, vsync_at(t0, 1, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_C);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP_ADDR), ==, SURF_C);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 1);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS_REPLACED), ==, 1);
    check_shot(&c, pic_c, W, H);

    /* split write: the low half alone requests nothing */
    wr32(&c, COPRO_REG_DISP_FLIP, SURF_D);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    wr32(&c, COPRO_REG_DISP_FLIP + 4, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_FLIP), ==,
                    SURF_D | COPRO_DISP_FLIP_PENDING);
    copro_clock_to(&c, vsync_at(t0, 2, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, SURF_D);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIP_VSYNC), ==, 2);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 2);

    /* a flip to the surface already shown still completes */
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_D);
    copro_clock_to(&c, vsync_at(t0, 3, 60));
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 3);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIP_VSYNC), ==, 3);
    copro_shutdown(&c);
}

/*
 * Interrupts: VSYNC, FLIP_DONE and DISPLAY_ERROR are device events, on the
 * device vector under MSI-X, recorded in INT_STATUS whether enabled or
 * not, delivered only while enabled in INT_MASK.
 */
static void test_interrupts_msix(void)
{
    unsigned dev_vec = COPRO_MSIX_VEC_DEVICE(2);
    uint64_t msg;
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M q35", "");
    msg = guest_alloc(&c.qs->alloc, 64);
    qtest_memset(c.qts, msg, 0, 64);
    qpci_msix_enable(c.dev);
    for (unsigned v = 0; v < 3; v++) {
        copro_msix_route(&c, v, msg + 4 * v, 0x100 + v);
    }
    wr64(&c, COPRO_REG_INT_MASK, DISP_INTS);
    t0 = disp_on(&c, SURF_A);
    copro_clock_to(&c, vsync_at(t0, 1, 60));
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);
    g_assert_cmphex(qtest_readl(c.qts, msg), ==, 0);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0);

    /* each vsync sends a message, also with VSYNC still pending */
    qtest_writel(c.qts, msg + 4 * dev_vec, 0);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    copro_clock_to(&c, vsync_at(t0, 2, 60));
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_FLIP_DONE);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);

    /*
     * Only VSYNC enabled: its message goes, FLIP_DONE is only recorded.
     * Then nothing enabled: nothing sent. Enabling the pending FLIP_DONE
     * delivers it.
     */
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_VSYNC);
    qtest_writel(c.qts, msg + 4 * dev_vec, 0);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_A);
    copro_clock_to(&c, vsync_at(t0, 3, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_FLIP_DONE);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_DEV_VSYNC);
    wr64(&c, COPRO_REG_INT_MASK, 0);
    qtest_writel(c.qts, msg + 4 * dev_vec, 0);
    copro_clock_to(&c, vsync_at(t0, 4, 60));
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==, 0);
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_FLIP_DONE);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);

    /* DISPLAY_ERROR at the commit of a bad mode */
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_DISPLAY_ERROR);
    qtest_writel(c.qts, msg + 4 * dev_vec, 0);
    wr32(&c, COPRO_REG_DISP_FORMAT, 9);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_DISPLAY_ERROR);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);
    qpci_msix_disable(c.dev);
    copro_shutdown(&c);
}

/* INTx: the line follows INT_STATUS & INT_MASK for the display causes. */
static void test_interrupts_intx(void)
{
    const int gsi = 10;
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M pc", "msix=off,msi=off");
    qtest_outl(c.qts, 0xcf8, 0x80000000 | (1 << 11) | 0x60);
    qtest_outl(c.qts, 0xcfc, 0x0a0a0a0a);
    t0 = disp_on(&c, SURF_A);
    copro_clock_to(&c, vsync_at(t0, 1, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, COPRO_INT_DEV_VSYNC);
    g_assert_false(qtest_get_irq(c.qts, gsi));
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_FLIP_DONE);
    g_assert_false(qtest_get_irq(c.qts, gsi));
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    copro_clock_to(&c, vsync_at(t0, 2, 60));
    g_assert_true(qtest_get_irq(c.qts, gsi));
    g_assert_true(copro_intx_status(&c));
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_DEV_FLIP_DONE);
    g_assert_false(qtest_get_irq(c.qts, gsi));
    /* VSYNC pending but masked keeps the line low */
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, COPRO_INT_DEV_VSYNC);
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_VSYNC);
    g_assert_true(qtest_get_irq(c.qts, gsi));
    copro_shutdown(&c);
}

/*
 * Refused surfaces: every rule of the surface check, at a commit and at a
 * flip. The display goes black with the reason latched, raises
 * DISPLAY_ERROR, and a good surface brings it back.
 */
static void test_bad_surfaces(void)
{
    const uint64_t vram = COPRO_VRAM_DEFAULT;
    const uint64_t ap = COPRO_APERTURE_DEFAULT;
    const struct {
        uint64_t addr;
        uint32_t pitch, w, h, fmt, code;
    } bad[] = {
        { SURF_A, PITCH, W, H, 0, COPRO_DISP_ERR_FORMAT },
        { SURF_A, PITCH, W, H, 4, COPRO_DISP_ERR_FORMAT },
        { SURF_A, PITCH, 0, H, COPRO_FMT_XRGB8888, COPRO_DISP_ERR_SIZE },
        { SURF_A, PITCH, W, 0, COPRO_FMT_XRGB8888, COPRO_DISP_ERR_SIZE },
        { SURF_A, 16384 * 4, 4097, 4, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_SIZE },
        { SURF_A, 4096, 4, 4097, COPRO_FMT_R8, COPRO_DISP_ERR_SIZE },
        { SURF_A, W * 4 - 4, W, H, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_PITCH },
        { SURF_A, 6, 3, 4, COPRO_FMT_R8, COPRO_DISP_ERR_PITCH },
        { SURF_A, 65540, 4, 4, COPRO_FMT_R8, COPRO_DISP_ERR_PITCH },
        { SURF_A + 2, PITCH, W, H, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_ADDRESS },
        { vram, PITCH, W, H, COPRO_FMT_XRGB8888, COPRO_DISP_ERR_ADDRESS },
        { vram - PITCH * (H - 1), PITCH, W, H, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_ADDRESS },
        { vram + 4096, PITCH, W, H, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_ADDRESS },
        { COPRO_APERTURE_BASE + ap - 4096, 4096, 1024, 2, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_ADDRESS },
        { COPRO_APERTURE_BASE + ap, PITCH, W, H, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_ADDRESS },
        { ~0ull - 3, PITCH, W, H, COPRO_FMT_XRGB8888,
          COPRO_DISP_ERR_ADDRESS },
    };
    g_autofree uint32_t *pic_a = NULL;
    uint64_t errors = 0;
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_A, PITCH, W, H, 0x1);
    pic_a = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        bool size_ok = bad[i].w && bad[i].h && bad[i].w <= 4096 &&
                       bad[i].h <= 4096;

        disp_stage(&c, bad[i].addr, bad[i].pitch, bad[i].w, bad[i].h,
                   bad[i].fmt);
        wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
        g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                        COPRO_DISP_STS_ERROR);
        g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==, bad[i].code);
        g_assert_cmphex(rd64(&c, COPRO_REG_DISP_ERROR_ADDR), ==,
                        bad[i].addr);
        g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                        COPRO_INT_DEV_DISPLAY_ERROR);
        wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
        errors++;
        /* black, at the committed size when that is a size */
        if (bad[i].w * bad[i].h <= 64 * 64 && size_ok) {
            check_black(&c, bad[i].w, bad[i].h);
        } else if (!size_ok) {
            check_black(&c, 640, 480);
        }
        wr32(&c, COPRO_REG_DISP_CONTROL, 0);
    }

    /* aperture surfaces and a surface ending at the last VRAM byte pass */
    disp_stage(&c, COPRO_APERTURE_BASE + ap - 4096, 4096, 1024, 1,
               COPRO_FMT_XRGB8888);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    disp_stage(&c, vram - (PITCH * (H - 1) + W * 4), PITCH, W, H,
               COPRO_FMT_XRGB8888);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);

    /* a bad flip: refused at its vsync, black, no FLIP_DONE */
    wr32(&c, COPRO_REG_DISP_CONTROL, 0);
    t0 = disp_on(&c, SURF_A);
    check_shot(&c, pic_a, W, H);
    wr64(&c, COPRO_REG_DISP_FLIP, vram - 64);
    copro_clock_to(&c, vsync_at(t0, 1, 60) - 1);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE | COPRO_DISP_STS_FLIP_PENDING);
    copro_clock_to(&c, vsync_at(t0, 1, 60));
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ERROR);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==,
                     COPRO_DISP_ERR_ADDRESS);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_SCANOUT), ==, vram - 64);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_DISPLAY_ERROR);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_FLIPS), ==, 0);
    check_black(&c, W, H);
    errors++;

    /* a good flip recovers */
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_A);
    copro_clock_to(&c, vsync_at(t0, 2, 60));
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_FLIP_DONE);
    /* the reason of the last refusal stays latched */
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==,
                     COPRO_DISP_ERR_ADDRESS);
    check_shot(&c, pic_a, W, H);

    /* a cursor image outside VRAM is refused; the register keeps its value */
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, CURSOR);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, vram - COPRO_CURSOR_BYTES + 4);
    g_assert_cmphex(rd64(&c, COPRO_REG_CURSOR_SURFACE), ==, CURSOR);
    g_assert_cmpuint(rd32(&c, COPRO_REG_DISP_ERROR), ==,
                     COPRO_DISP_ERR_CURSOR);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_DISPLAY_ERROR);
    errors++;
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);

    {
        QDict *rsp, *dev = copro_query(&c, &rsp);
        QDict *di = qdict_get_qdict(dev, "display");

        g_assert_cmpuint(copro_qdict_u64(di, "errors"), ==, errors);
        qobject_unref(rsp);
    }
    copro_shutdown(&c);
}

/*
 * Screendump: exactly the scanout's pixels
 */

/* XRGB8888 in VRAM (shared with the UI): CPU writes, engine writes. */
static void test_screendump_shared(void)
{
    g_autofree uint32_t *want = NULL;
    g_autoptr(GArray) b = copro_buf_new();
    uint8_t row[W * 4];
    Copro c;

    copro_boot(&c, "-M q35", "timing=instant");
    put_pattern(&c, SURF_A, PITCH, W, H, 0x5eed);
    disp_on(&c, SURF_A);
    want = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    check_shot(&c, want, W, H);

    /* a few rows change through BAR2: only they are redrawn */
    for (unsigned i = 0; i < sizeof(row); i++) {
        row[i] = i * 7 + 1;
    }
    vram_write(&c, SURF_A + PITCH * 5, row, sizeof(row));
    vram_write(&c, SURF_A + PITCH * 40 + 8, row, 16);
    g_free(want);
    want = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    check_shot(&c, want, W, H);

    /* the render engine draws into the scanout surface */
    copro_ring_setup(&c, 0, RING, 16);
    copro_pkt_set_target(b, 0, SURF_A, PITCH, W, H, COPRO_FMT_XRGB8888);
    copro_pkt_rect(b, 0, 10, 20, 30, 5, 0x00abcdef);
    copro_pkt_fill(b, SURF_A + PITCH * 30, PITCH, 0x00123456);
    copro_buf_put(&c, BUF, b);
    copro_submit(&c, 0, BUF, copro_buf_bytes(b), 1, 1, 0);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    for (int y = 20; y < 25; y++) {
        for (int x = 10; x < 40; x++) {
            want[y * W + x] = 0xabcdef;
        }
    }
    for (int x = 0; x < W; x++) {
        want[30 * W + x] = 0x123456;
    }
    check_shot(&c, want, W, H);
    copro_shutdown(&c);
}

/* RGB565 and R8 are converted: 565 by bit replication, R8 as grey. */
static void test_screendump_formats(void)
{
    const uint32_t w = 40, h = 20, pitch565 = 96, pitch8 = 44;
    g_autofree uint8_t *img = g_malloc0(pitch565 * h);
    g_autofree uint32_t *want = g_new(uint32_t, w * h);
    g_autoptr(GArray) pkts = copro_buf_new();
    Copro c;

    copro_boot(&c, "-M q35", "timing=instant");
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint16_t v = (x * 1657 + y * 6133) ^ 0x5a5a;
            uint32_t r = v >> 11, g = (v >> 5) & 63, b = v & 31;

            stw_le_p(img + y * pitch565 + x * 2, v);
            want[y * w + x] = (r << 3 | r >> 2) << 16 |
                              (g << 2 | g >> 4) << 8 | (b << 3 | b >> 2);
        }
    }
    vram_write(&c, SURF_A, img, pitch565 * h);
    disp_stage(&c, SURF_A, pitch565, w, h, COPRO_FMT_RGB565);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    check_shot(&c, want, w, h);
    /* an incremental change of one pixel */
    stw_le_p(img, 0xffff);
    vram_write(&c, SURF_A, img, 2);
    want[0] = 0xffffff;
    check_shot(&c, want, w, h);
    /* the engine's writes reach the converted view (dirty marking) */
    copro_ring_setup(&c, 0, RING, 16);
    copro_pkt_set_target(pkts, 0, SURF_A, pitch565, w, h, COPRO_FMT_RGB565);
    copro_pkt_rect(pkts, 0, 3, 4, 10, 2, 0xf81f);   /* magenta */
    copro_buf_put(&c, BUF, pkts);
    copro_submit(&c, 0, BUF, copro_buf_bytes(pkts), 1, 1, 0);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    for (uint32_t y = 4; y < 6; y++) {
        for (uint32_t x = 3; x < 13; x++) {
            want[y * w + x] = 0xff00ff;
        }
    }
    check_shot(&c, want, w, h);

    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t v = x * 5 + y * 11;

            img[y * pitch8 + x] = v;
            want[y * w + x] = v << 16 | v << 8 | v;
        }
    }
    vram_write(&c, SURF_B, img, pitch8 * h);
    disp_stage(&c, SURF_B, pitch8, w, h, COPRO_FMT_R8);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    check_shot(&c, want, w, h);
    copro_shutdown(&c);
}

/*
 * A surface in the aperture is read through the GART (guest RAM, by DMA);
 * a page whose GART entry is invalid shows black.
 */
static void test_screendump_aperture(void)
{
    const uint32_t w = 64, h = 64, pitch = 256;     /* 16 KiB: 4 pages */
    g_autofree uint8_t *img = g_malloc(pitch * h);
    g_autofree uint32_t *want = g_new(uint32_t, w * h);
    uint64_t ram;
    Copro c;

    copro_boot(&c, "-M q35", "");
    ram = guest_alloc(&c.qs->alloc, pitch * h + 4096);
    ram = (ram + 4095) & ~4095ull;
    for (uint32_t i = 0; i < w * h; i++) {
        stl_le_p(img + i * 4, i * 0x9e3779b1u);
        want[i] = (i * 0x9e3779b1u) & 0xffffff;
    }
    qtest_memwrite(c.qts, ram, img, pitch * h);
    copro_gart_setup(&c, GART, 16);
    for (uint32_t p = 0; p < 4; p++) {
        copro_gart_map(&c, GART, p, ram + p * 4096, false);
    }
    disp_stage(&c, copro_aperture(0), pitch, w, h, COPRO_FMT_XRGB8888);
    wr32(&c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    check_shot(&c, want, w, h);

    /* guest RAM changes are seen (aperture views are redrawn whole) */
    qtest_writel(c.qts, ram + 4 * 100, 0x00fedcba);
    want[100] = 0xfedcba;
    check_shot(&c, want, w, h);

    /* page 2 (rows 32 to 47) unmapped: black there, no fault */
    vram_w64(&c, GART + 2 * 8, 0);
    for (uint32_t i = 32 * w; i < 48 * w; i++) {
        want[i] = 0;
    }
    check_shot(&c, want, w, h);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);
    copro_shutdown(&c);
}

static uint32_t blend(uint32_t c, uint32_t d, uint32_t a)
{
    return (c * a + d * (255 - a) + 127) / 255;
}

/*
 * The cursor plane is blended over the scanout (straight alpha), clipped
 * at the edges; moving it restores what it covered.
 */
static void test_screendump_cursor(void)
{
    g_autofree uint8_t *cur = g_malloc(COPRO_CURSOR_BYTES);
    g_autofree uint32_t *base = NULL;
    g_autofree uint32_t *want = g_new(uint32_t, W * H);
    const int positions[][2] = { { -10, 5 }, { 30, 20 }, { 50, -60 } };
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_A, PITCH, W, H, 0xc0c0);
    base = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    for (uint32_t y = 0; y < COPRO_CURSOR_SIZE; y++) {
        for (uint32_t x = 0; x < COPRO_CURSOR_SIZE; x++) {
            /* transparent, opaque and half-transparent quarters */
            uint32_t a = x < 32 ? (y < 32 ? 0 : 255) : (y < 32 ? 128 : 77);
            uint32_t rgb = (x * 4) << 16 | (y * 4) << 8 | 0x80;

            stl_le_p(cur + y * COPRO_CURSOR_PITCH + x * 4, a << 24 | rgb);
        }
    }
    vram_write(&c, CURSOR, cur, COPRO_CURSOR_BYTES);
    disp_on(&c, SURF_A);
    check_shot(&c, base, W, H);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, CURSOR);
    for (size_t i = 0; i < G_N_ELEMENTS(positions); i++) {
        int cx = positions[i][0], cy = positions[i][1];

        wr32(&c, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(cx, cy));
        wr32(&c, COPRO_REG_CURSOR_CONTROL, COPRO_CURSOR_CTL_ENABLE);
        memcpy(want, base, W * H * 4);
        for (int y = MAX(cy, 0); y < MIN(cy + 64, H); y++) {
            for (int x = MAX(cx, 0); x < MIN(cx + 64, W); x++) {
                uint32_t p = ldl_le_p(cur + (y - cy) * COPRO_CURSOR_PITCH +
                                      (x - cx) * 4);
                uint32_t a = p >> 24, d = want[y * W + x];

                want[y * W + x] =
                    blend((p >> 16) & 255, (d >> 16) & 255, a) << 16 |
                    blend((p >> 8) & 255, (d >> 8) & 255, a) << 8 |
                    blend(p & 255, d & 255, a);
            }
        }
        check_shot(&c, want, W, H);
    }
    /* the cursor image changes in VRAM: redrawn */
    stl_le_p(cur + (2 - positions[2][1]) * COPRO_CURSOR_PITCH +
             (60 - positions[2][0]) * 4, 0xff010203);
    vram_write(&c, CURSOR, cur, COPRO_CURSOR_BYTES);
    want[2 * W + 60] = 0x010203;
    check_shot(&c, want, W, H);
    /*
     * Another image at another address, same position: redrawn. The image
     * is written (and its dirty bits consumed by a screendump) before the
     * switch, so only the address change can make the rows redraw.
     */
    for (uint32_t i = 0; i < COPRO_CURSOR_SIZE * COPRO_CURSOR_SIZE; i++) {
        stl_le_p(cur + 4 * i, 0xff00ff00);
    }
    vram_write(&c, SURF_B, cur, COPRO_CURSOR_BYTES);
    check_shot(&c, want, W, H);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, SURF_B);
    memcpy(want, base, W * H * 4);
    for (int y = 0; y < 4; y++) {
        for (int x = 50; x < W; x++) {
            want[y * W + x] = 0x00ff00;
        }
    }
    check_shot(&c, want, W, H);
    /* off again: the plain scanout */
    wr32(&c, COPRO_REG_CURSOR_CONTROL, 0);
    check_shot(&c, base, W, H);
    copro_shutdown(&c);
}

/*
 * The frame CRC: latched at each vsync while enabled, equal to the CRC of
 * the screendump (the composed frame, the cursor blended in) and of the
 * pixels the test wrote; kept when disabled; reset to 0.
 */
static void test_crc(void)
{
    g_autofree uint32_t *pic = NULL;
    g_autofree uint8_t *rgb = g_malloc(W * H * 3);
    g_autofree uint8_t *cur = g_malloc(COPRO_CURSOR_BYTES);
    uint32_t crc_a, crc_cursor;
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M q35", "");
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_CRC_CONTROL), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC_VSYNC), ==, 0);
    put_pattern(&c, SURF_A, PITCH, W, H, 0x5a);
    pic = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    for (int i = 0; i < W * H; i++) {
        rgb[3 * i] = pic[i] >> 16;
        rgb[3 * i + 1] = pic[i] >> 8;
        rgb[3 * i + 2] = pic[i];
    }
    crc_a = crc32_model(rgb, W * H * 3);
    t0 = disp_on(&c, SURF_A);

    /* off: nothing latched */
    copro_clock_to(&c, vsync_at(t0, 1, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC_VSYNC), ==, 0);
    wr32(&c, COPRO_REG_DISP_CRC_CONTROL, COPRO_DISP_CRC_CTL_ENABLE);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC_VSYNC), ==, 0);
    copro_clock_to(&c, vsync_at(t0, 2, 60));
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_CRC_VSYNC), ==, 2);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, crc_a);
    g_assert_cmphex(shot_crc(&c), ==, crc_a);

    /* the cursor is part of the frame: the CRC is the screendump's */
    for (uint32_t i = 0; i < COPRO_CURSOR_SIZE * COPRO_CURSOR_SIZE; i++) {
        stl_le_p(cur + 4 * i, (i & 64 ? 0xff : 0x80) << 24 | i * 0x10307);
    }
    vram_write(&c, CURSOR, cur, COPRO_CURSOR_BYTES);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, CURSOR);
    wr32(&c, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(-7, 9));
    wr32(&c, COPRO_REG_CURSOR_CONTROL, COPRO_CURSOR_CTL_ENABLE);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, crc_a);
    copro_clock_to(&c, vsync_at(t0, 3, 60));
    crc_cursor = shot_crc(&c);
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_CRC_VSYNC), ==, 3);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, crc_cursor);
    g_assert_cmphex(crc_cursor, !=, crc_a);

    /* reserved bits are ignored; disabled, the latch keeps its value */
    wr32(&c, COPRO_REG_DISP_CRC_CONTROL, 0xfffffffe);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_CRC_CONTROL), ==, 0);
    wr32(&c, COPRO_REG_CURSOR_CONTROL, 0);
    copro_clock_to(&c, vsync_at(t0, 4, 60));
    g_assert_cmpuint(rd64(&c, COPRO_REG_DISP_CRC_VSYNC), ==, 3);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, crc_cursor);
    /* read-only */
    wr64(&c, COPRO_REG_DISP_CRC, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, crc_cursor);

    /* black while off: the CRC of the black frame */
    wr32(&c, COPRO_REG_DISP_CRC_CONTROL, COPRO_DISP_CRC_CTL_ENABLE);
    copro_clock_to(&c, vsync_at(t0, 5, 60));
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, crc_a);
    memset(rgb, 0, W * H * 3);
    wr64(&c, COPRO_REG_DISP_FLIP, 2);       /* unaligned: refused */
    copro_clock_to(&c, vsync_at(t0, 6, 60));
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_STATUS), ==, COPRO_DISP_STS_ERROR);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==,
                    crc32_model(rgb, W * H * 3));

    /* a device reset clears it */
    qtest_system_reset(c.qts);
    c.mmio = qpci_iomap(c.dev, COPRO_BAR_MMIO, NULL);
    qpci_device_enable(c.dev);
    g_assert_cmphex(rd32(&c, COPRO_REG_DISP_CRC_CONTROL), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_DISP_CRC_VSYNC), ==, 0);
    copro_shutdown(&c);
}

/* PNG screendumps work (the build has libpng). */
static void test_screendump_png(void)
{
    g_autofree char *file = g_strdup_printf("%s/copro-disp-%d.png",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *data = NULL;
    gsize len;
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_A, PITCH, W, H, 3);
    disp_on(&c, SURF_A);
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'screendump', "
                             "'arguments': { 'filename': %s, "
                             "'format': 'png' } }", file);
    g_assert_true(g_file_get_contents(file, &data, &len, NULL));
    unlink(file);
    g_assert_cmpuint(len, >, 8);
    g_assert_cmpmem(data, 8, "\x89PNG\r\n\x1a\n", 8);
    copro_shutdown(&c);
}

/*
 * Reset turns the display off and every display register to its reset
 * value; the console goes black.
 */
static void test_reset(void)
{
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M q35", "");
    put_pattern(&c, SURF_A, PITCH, W, H, 9);
    t0 = disp_on(&c, SURF_A);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, CURSOR);
    wr32(&c, COPRO_REG_CURSOR_CONTROL, COPRO_CURSOR_CTL_ENABLE);
    copro_clock_to(&c, vsync_at(t0, 3, 60));
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    qtest_system_reset(c.qts);
    c.mmio = qpci_iomap(c.dev, COPRO_BAR_MMIO, NULL);
    c.vram = qpci_iomap(c.dev, COPRO_BAR_VRAM, NULL);
    qpci_device_enable(c.dev);
    check_display_reset_values(&c);
    copro_clock_to(&c, copro_time(&c) + NS);
    check_display_reset_values(&c);
    check_black(&c, 640, 480);
    copro_shutdown(&c);
}

/* info copro and x-query-copro show the display. */
static void test_monitor(void)
{
    g_autofree char *text = NULL;
    QDict *rsp, *dev, *di;
    int64_t t0;
    Copro c;

    copro_boot(&c, "-M q35", "");
    t0 = disp_on(&c, SURF_A);
    wr64(&c, COPRO_REG_CURSOR_SURFACE, CURSOR);
    wr32(&c, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(-3, 7));
    wr32(&c, COPRO_REG_CURSOR_CONTROL, COPRO_CURSOR_CTL_ENABLE);
    copro_clock_to(&c, vsync_at(t0, 2, 60) + 10);
    wr64(&c, COPRO_REG_DISP_FLIP, SURF_B);
    text = qtest_hmp(c.qts, "info copro");
    g_assert_nonnull(strstr(text, "display: on, scanning out, 60 Hz"));
    g_assert_nonnull(strstr(text, "flip pending to 0x200000"));
    g_assert_nonnull(strstr(text, "vsyncs 2"));
    g_assert_nonnull(strstr(text, "cursor on at (-3, 7)"));

    dev = copro_query(&c, &rsp);
    di = qdict_get_qdict(dev, "display");
    g_assert_nonnull(di);
    g_assert_true(qdict_get_bool(di, "enabled"));
    g_assert_true(qdict_get_bool(di, "active"));
    g_assert_cmpstr(qdict_get_str(di, "error"), ==, "none");
    g_assert_cmphex(copro_qdict_u64(di, "scanout"), ==, SURF_A);
    g_assert_cmpuint(copro_qdict_u64(di, "width"), ==, W);
    g_assert_cmpuint(copro_qdict_u64(di, "height"), ==, H);
    g_assert_cmpuint(copro_qdict_u64(di, "pitch"), ==, PITCH);
    g_assert_cmpuint(copro_qdict_u64(di, "format"), ==, COPRO_FMT_XRGB8888);
    g_assert_true(qdict_get_bool(di, "flip-pending"));
    g_assert_cmphex(copro_qdict_u64(di, "pending-address"), ==, SURF_B);
    g_assert_cmpuint(copro_qdict_u64(di, "vsyncs"), ==, 2);
    g_assert_cmpint(copro_qdict_u64(di, "last-vsync-ns"), ==,
                    vsync_at(t0, 2, 60));
    g_assert_cmpuint(copro_qdict_u64(di, "refresh"), ==, 60);
    g_assert_true(qdict_get_bool(di, "cursor"));
    g_assert_cmpint(qdict_get_int(di, "cursor-x"), ==, -3);
    g_assert_cmpint(qdict_get_int(di, "cursor-y"), ==, 7);
    g_assert_cmphex(copro_qdict_u64(di, "cursor-address"), ==, CURSOR);
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/*
 * Migration with a flip pending: the destination takes the flip at
 * exactly the vsync the source would have, with the same counts and the
 * same picture.
 */
static void test_migration_flip_pending(void)
{
    g_autofree uint32_t *pic_b = NULL;
    g_autofree uint8_t *cur = g_malloc0(COPRO_CURSOR_BYTES);
    int64_t t0, d3;
    Copro src, dst;

    copro_boot(&src, "-M q35", "");
    put_pattern(&src, SURF_A, PITCH, W, H, 0xaa);
    put_pattern(&src, SURF_B, PITCH, W, H, 0xbb);
    pic_b = expect_vram_xrgb(&src, SURF_B, PITCH, W, H);
    vram_write(&src, CURSOR, cur, COPRO_CURSOR_BYTES);    /* transparent */
    wr64(&src, COPRO_REG_INT_MASK, DISP_INTS);
    t0 = disp_on(&src, SURF_A);
    wr64(&src, COPRO_REG_CURSOR_SURFACE, CURSOR);
    wr32(&src, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(3, 4));
    wr32(&src, COPRO_REG_CURSOR_CONTROL, COPRO_CURSOR_CTL_ENABLE);
    copro_clock_to(&src, vsync_at(t0, 2, 60));
    wr64(&src, COPRO_REG_INT_STATUS, ~0ull);
    copro_clock_to(&src, vsync_at(t0, 2, 60) + 4321);
    wr64(&src, COPRO_REG_DISP_FLIP, SURF_B);
    d3 = vsync_at(t0, 3, 60);

    disp_migrate(&src, &dst);
    g_assert_cmphex(rd32(&dst, COPRO_REG_DISP_STATUS), ==,
                    COPRO_DISP_STS_ACTIVE | COPRO_DISP_STS_FLIP_PENDING);
    g_assert_cmphex(rd64(&dst, COPRO_REG_DISP_FLIP), ==,
                    SURF_B | COPRO_DISP_FLIP_PENDING);
    g_assert_cmphex(rd64(&dst, COPRO_REG_DISP_SCANOUT), ==, SURF_A);
    g_assert_cmpuint(rd64(&dst, COPRO_REG_DISP_VSYNC_COUNT), ==, 2);
    g_assert_cmphex(rd32(&dst, COPRO_REG_CURSOR_POS), ==,
                    COPRO_CURSOR_POS(3, 4));
    copro_clock_to(&dst, d3 - 1);
    g_assert_cmphex(rd64(&dst, COPRO_REG_DISP_SCANOUT), ==, SURF_A);
    copro_clock_to(&dst, d3);
    g_assert_cmphex(rd64(&dst, COPRO_REG_DISP_SCANOUT), ==, SURF_B);
    g_assert_cmpuint(rd64(&dst, COPRO_REG_DISP_VSYNC_COUNT), ==, 3);
    g_assert_cmpint(rd64(&dst, COPRO_REG_DISP_VSYNC_TIME), ==, d3);
    g_assert_cmpuint(rd64(&dst, COPRO_REG_DISP_FLIP_VSYNC), ==, 3);
    g_assert_cmphex(rd64(&dst, COPRO_REG_INT_STATUS), ==,
                    COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_FLIP_DONE);
    check_shot(&dst, pic_b, W, H);
    /* and the phase carries on across the one-second rebasing */
    copro_clock_to(&dst, vsync_at(t0, 61, 60));
    g_assert_cmpuint(rd64(&dst, COPRO_REG_DISP_VSYNC_COUNT), ==, 61);
    g_assert_cmpint(rd64(&dst, COPRO_REG_DISP_VSYNC_TIME), ==,
                    vsync_at(t0, 61, 60));
    copro_shutdown(&dst);
}

/*
 * Hostile migration streams: the display state is found in a saved stream
 * by a marker in the staged SURFACE register (no side effect), and fields
 * are patched at their offsets from it (vmstate_copro_display's order;
 * integers big-endian on the wire, bools one byte). The destination must
 * refuse every state that would bound a VRAM access or the vsync
 * arithmetic wrongly, and load the unpatched stream.
 */
#define MARKER          0xd15b1a7c0de00000ull
#define AT_CONTROL      (-4)
#define AT_ACTIVE       24
#define AT_ERROR        25
#define AT_MODE_ADDR    26
#define AT_MODE_PITCH   34
#define AT_INDEX        75
#define AT_CURSOR_CTL   151
#define AT_CURSOR_ADDR  159

static void save_stream(Stream *st, char **file)
{
    g_autofree char *uri = NULL;
    uint8_t want[8];
    Copro src;

    *file = g_strdup_printf("%s/copro-disp-stream-%d.bin", g_get_tmp_dir(),
                            getpid());
    uri = g_strdup_printf("file:%s", *file);
    copro_boot(&src, "-M q35", "");
    disp_on(&src, SURF_A);
    wr64(&src, COPRO_REG_CURSOR_SURFACE, CURSOR);
    copro_clock_to(&src, copro_time(&src) + 3 * NS / 60);
    wr64(&src, COPRO_REG_DISP_SURFACE, MARKER);
    qtest_qmp_assert_success(src.qts, "{ 'execute': 'migrate', "
                             "'arguments': { 'uri': %s } }", uri);
    g_assert_true(copro_migration_wait(src.qts));
    copro_shutdown(&src);

    g_assert_true(g_file_get_contents(*file, &st->data, &st->len, NULL));
    stq_be_p(want, MARKER);
    st->marker = 0;
    for (gsize i = 0; i + 8 <= st->len; i++) {
        if (!memcmp(st->data + i, want, 8)) {
            g_assert_cmpuint(st->marker, ==, 0);   /* exactly once */
            st->marker = i;
        }
    }
    g_assert_cmpuint(st->marker, >, 8);
    /* the layout is what the offsets assume */
    g_assert_cmphex(ldl_be_p(st->data + st->marker + AT_CONTROL), ==,
                    COPRO_DISP_CTL_ENABLE);
    g_assert_cmpuint(st->data[st->marker + AT_ACTIVE], ==, 1);
    g_assert_cmphex(ldq_be_p(st->data + st->marker + AT_MODE_ADDR), ==,
                    SURF_A);
    g_assert_cmpuint(ldl_be_p(st->data + st->marker + AT_MODE_PITCH), ==,
                     PITCH);
    g_assert_cmphex(ldq_be_p(st->data + st->marker + AT_CURSOR_ADDR), ==,
                    CURSOR);
}

static void test_migration_hostile(void)
{
    g_autofree char *file = NULL;
    g_autofree gchar *orig = NULL;
    Stream st;

    save_stream(&st, &file);
    orig = g_memdup2(st.data, st.len);
    g_assert_true(load_stream(file, &st));

    /* an active surface that would read past the end of VRAM */
    stq_be_p(st.data + st.marker + AT_MODE_ADDR, COPRO_VRAM_DEFAULT - 64);
    g_assert_false(load_stream(file, &st));
    memcpy(st.data, orig, st.len);
    /* a pitch the surface check refuses */
    stl_be_p(st.data + st.marker + AT_MODE_PITCH, 2);
    g_assert_false(load_stream(file, &st));
    memcpy(st.data, orig, st.len);
    /* active and in error at once */
    st.data[st.marker + AT_ERROR] = 1;
    g_assert_false(load_stream(file, &st));
    memcpy(st.data, orig, st.len);
    /* showing a surface while off */
    stl_be_p(st.data + st.marker + AT_CONTROL, 0);
    g_assert_false(load_stream(file, &st));
    memcpy(st.data, orig, st.len);
    /* reserved CONTROL and CURSOR_CONTROL bits */
    stl_be_p(st.data + st.marker + AT_CONTROL, 0x81);
    g_assert_false(load_stream(file, &st));
    memcpy(st.data, orig, st.len);
    stl_be_p(st.data + st.marker + AT_CURSOR_CTL, 2);
    g_assert_false(load_stream(file, &st));
    memcpy(st.data, orig, st.len);
    /* a cursor image past the end of VRAM */
    stq_be_p(st.data + st.marker + AT_CURSOR_ADDR, COPRO_VRAM_DEFAULT - 4);
    g_assert_false(load_stream(file, &st));
    memcpy(st.data, orig, st.len);
    /* a vsync phase outside [0, refresh) */
    stq_be_p(st.data + st.marker + AT_INDEX, 60);
    g_assert_false(load_stream(file, &st));
    unlink(file);
    g_free(st.data);
}

/*
 * Unplugging a device whose display is on (shared with the UI) closes its
 * console: QEMU goes on, and a screendump shows QEMU's placeholder.
 */
static void test_unplug(void)
{
    g_autofree uint32_t *pic_a = NULL;
    Shot s;
    Copro c;

    copro_boot(&c, "-M pc", "id=c1");
    put_pattern(&c, SURF_A, PITCH, W, H, 0x44);
    pic_a = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    disp_on(&c, SURF_A);
    check_shot(&c, pic_a, W, H);
    qpci_unplug_acpi_device_test(c.qts, "c1", COPRO_SLOT);
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'query-status' }");
    screendump(&c, &s);
    g_assert_cmpint(s.w, ==, W);
    g_assert_cmpint(s.h, ==, H);
    shot_free(&s);
    /* the vsync timer went with the device */
    qtest_clock_step(c.qts, NS);
    qtest_qmp_assert_success(c.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&c);
}

/*
 * Random display programming: whatever the guest writes, QEMU keeps
 * answering, screendumps work, and a good mode still shows afterwards.
 */
static void test_fuzz(void)
{
    static const uint64_t regs[] = {
        COPRO_REG_DISP_CONTROL, COPRO_REG_DISP_SURFACE,
        COPRO_REG_DISP_PITCH, COPRO_REG_DISP_WIDTH, COPRO_REG_DISP_HEIGHT,
        COPRO_REG_DISP_FORMAT, COPRO_REG_DISP_FLIP, COPRO_REG_DISP_FLIP + 4,
        COPRO_REG_CURSOR_CONTROL, COPRO_REG_CURSOR_POS,
        COPRO_REG_CURSOR_SURFACE,
    };
    static const uint64_t specials[] = {
        0, 1, 2, 3, 4, 64, 4096, 4097, 65536, SURF_A, SURF_B - 4,
        COPRO_VRAM_DEFAULT - 4, COPRO_APERTURE_BASE,
        COPRO_APERTURE_BASE + 4096, 0xffffffffull, ~0ull,
    };
    g_autoptr(GRand) r = g_rand_new_with_seed(0xd15b1a7);
    g_autofree uint32_t *pic_a = NULL;
    Copro c;

    copro_boot(&c, "-M q35", "");
    copro_gart_setup(&c, GART, 64);
    for (int i = 0; i < 1500; i++) {
        uint64_t reg = regs[g_rand_int_range(r, 0, G_N_ELEMENTS(regs))];
        uint64_t v = g_rand_boolean(r) ?
            specials[g_rand_int_range(r, 0, G_N_ELEMENTS(specials))] :
            ((uint64_t)g_rand_int(r) << 32 | g_rand_int(r)) >>
            g_rand_int_range(r, 0, 64);
        int k = g_rand_int_range(r, 0, 100);

        if (reg == COPRO_REG_DISP_CONTROL && g_rand_int_range(r, 0, 4)) {
            v = COPRO_DISP_CTL_ENABLE;
        }
        if (k < 70) {
            if (!(reg & 7) && g_rand_boolean(r)) {
                wr64(&c, reg, v);
            } else {
                wr32(&c, reg, v);
            }
        } else if (k < 85) {
            qtest_clock_step(c.qts, g_rand_int_range(r, 1, 40000000));
        } else {
            Shot s;

            screendump(&c, &s);
            g_assert_cmpint(s.w, >, 0);
            shot_free(&s);
        }
    }
    g_assert_cmphex(rd32(&c, COPRO_REG_ID), ==, COPRO_ID_MAGIC);
    wr32(&c, COPRO_REG_CURSOR_CONTROL, 0);
    put_pattern(&c, SURF_A, PITCH, W, H, 0x77);
    pic_a = expect_vram_xrgb(&c, SURF_A, PITCH, W, H);
    wr32(&c, COPRO_REG_DISP_CONTROL, 0);
    disp_on(&c, SURF_A);
    check_shot(&c, pic_a, W, H);
    copro_shutdown(&c);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/copro/display/regs", test_regs);
    qtest_add_func("/copro/display/bad-refresh", test_bad_refresh);
    qtest_add_data_func("/copro/display/vsync-period/60", GUINT_TO_POINTER(60),
                        test_vsync_period);
    qtest_add_data_func("/copro/display/vsync-period/7", GUINT_TO_POINTER(7),
                        test_vsync_period);
    qtest_add_func("/copro/display/flip-mid-frame", test_flip_mid_frame);
    qtest_add_func("/copro/display/two-flips", test_two_flips);
    qtest_add_func("/copro/display/irq/msix", test_interrupts_msix);
    qtest_add_func("/copro/display/irq/intx", test_interrupts_intx);
    qtest_add_func("/copro/display/bad-surfaces", test_bad_surfaces);
    qtest_add_func("/copro/display/screendump/shared",
                   test_screendump_shared);
    qtest_add_func("/copro/display/screendump/formats",
                   test_screendump_formats);
    qtest_add_func("/copro/display/screendump/aperture",
                   test_screendump_aperture);
    qtest_add_func("/copro/display/screendump/cursor",
                   test_screendump_cursor);
    qtest_add_func("/copro/display/screendump/png", test_screendump_png);
    qtest_add_func("/copro/display/crc", test_crc);
    qtest_add_func("/copro/display/reset", test_reset);
    qtest_add_func("/copro/display/monitor", test_monitor);
    qtest_add_func("/copro/display/migration-flip-pending",
                   test_migration_flip_pending);
    qtest_add_func("/copro/display/migration-hostile",
                   test_migration_hostile);
    qtest_add_func("/copro/display/unplug", test_unplug);
    qtest_add_func("/copro/display/fuzz", test_fuzz);
    return g_test_run();
}
