/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What copro's display qtests share: a surface layout in VRAM, the vsync
 * times, staging and committing surfaces, test patterns, QMP screendumps
 * compared pixel by pixel, the CRC-32 model, and migration to a new
 * destination (whole, or a saved stream loaded into one).
 */
#ifndef COPRO_DISPLAY_QTEST_H
#define COPRO_DISPLAY_QTEST_H

#include "qemu/bswap.h"
#include "qemu/units.h"
#include "copro-qtest.h"

#define SURF_A      (1 * MiB)
#define SURF_B      (2 * MiB)
#define SURF_C      (3 * MiB)
#define SURF_D      (4 * MiB)
#define CURSOR      (5 * MiB)
#define GART        (6 * MiB)
#define RING        (7 * MiB)
#define BUF         (7 * MiB + 0x10000)
#define W           64
#define H           48
#define PITCH       (W * 4 + 64)    /* rows are not packed */
#define NS          1000000000ULL

#define DISP_INTS   (COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_FLIP_DONE | \
                     COPRO_INT_DEV_DISPLAY_ERROR)

/* vsync k after enabling at t0, at @hz: t0 + floor(k * 1e9 / hz) */
static inline int64_t vsync_at(int64_t t0, uint64_t k, uint32_t hz)
{
    return t0 + (int64_t)(k * NS / hz);
}

static inline void disp_stage(Copro *c, uint64_t addr, uint32_t pitch,
                              uint32_t w, uint32_t h, uint32_t fmt)
{
    wr64(c, COPRO_REG_DISP_SURFACE, addr);
    wr32(c, COPRO_REG_DISP_PITCH, pitch);
    wr32(c, COPRO_REG_DISP_WIDTH, w);
    wr32(c, COPRO_REG_DISP_HEIGHT, h);
    wr32(c, COPRO_REG_DISP_FORMAT, fmt);
}

/* Commit an XRGB8888 W x H surface at @addr; returns the enabling time. */
static inline int64_t disp_on(Copro *c, uint64_t addr)
{
    disp_stage(c, addr, PITCH, W, H, COPRO_FMT_XRGB8888);
    wr32(c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    return copro_time(c);
}

/* A recognisable XRGB8888 pattern, different per @seed, into @addr. */
static inline void put_pattern(Copro *c, uint64_t addr, uint32_t pitch,
                               uint32_t w, uint32_t h, uint32_t seed)
{
    g_autofree uint8_t *img = g_malloc0((size_t)pitch * h);

    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v = (x * 0x01030507u) ^ (y * 0x0b0d1113u) ^ seed;

            stl_le_p(img + (size_t)y * pitch + x * 4, v);
        }
    }
    vram_write(c, addr, img, (size_t)pitch * h);
}

/*
 * Screendump
 */

typedef struct Shot {
    int w, h;
    uint8_t *rgb;       /* w * h * 3 bytes */
} Shot;

static inline void shot_free(Shot *s)
{
    g_free(s->rgb);
    s->rgb = NULL;
}

/* QMP screendump of the (only) console to a PPM file, parsed. */
static inline void screendump(Copro *c, Shot *s)
{
    g_autofree char *file = g_strdup_printf("%s/copro-disp-%d.ppm",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *data = NULL;
    gsize len, row, stride;
    int maxval, hdr = 0;

    qtest_qmp_assert_success(c->qts, "{ 'execute': 'screendump', "
                             "'arguments': { 'filename': %s } }", file);
    g_assert_true(g_file_get_contents(file, &data, &len, NULL));
    unlink(file);
    g_assert_cmpint(sscanf(data, "P6 %d %d %d%n", &s->w, &s->h, &maxval,
                           &hdr), ==, 3);
    g_assert_cmpint(maxval, ==, 255);
    hdr++;      /* the single whitespace after maxval */
    /*
     * QEMU's ppm_save writes each row with the stride of its r8g8b8 line
     * buffer, rounded up to 4 bytes: for widths whose rows are not a
     * multiple of 4 bytes the rows carry padding. Accept that, drop it.
     */
    row = (gsize)s->w * 3;
    stride = (row + 3) & ~(gsize)3;
    if (len != hdr + row * s->h) {
        g_assert_cmpuint(len, ==, hdr + stride * s->h);
    } else {
        stride = row;
    }
    s->rgb = g_malloc(row * s->h);
    for (int y = 0; y < s->h; y++) {
        memcpy(s->rgb + row * y, data + hdr + stride * y, row);
    }
}

static inline uint32_t shot_px(const Shot *s, int x, int y)
{
    const uint8_t *p = s->rgb + ((size_t)y * s->w + x) * 3;

    return p[0] << 16 | p[1] << 8 | p[2];
}

/* The screendump equals @want (w x h XRGB, host order), pixel by pixel. */
static inline void check_shot(Copro *c, const uint32_t *want, int w, int h)
{
    Shot s;
    int bad = 0;

    screendump(c, &s);
    g_assert_cmpint(s.w, ==, w);
    g_assert_cmpint(s.h, ==, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint32_t got = shot_px(&s, x, y);

            if (got != (want[y * w + x] & 0xffffff)) {
                if (!bad) {
                    g_test_message("first difference at (%d, %d): got "
                                   "%06x want %06x", x, y, got,
                                   want[y * w + x] & 0xffffff);
                }
                bad++;
            }
        }
    }
    g_assert_cmpint(bad, ==, 0);
    shot_free(&s);
}

/* Expected picture of an XRGB8888 surface as it is in VRAM now. */
static inline uint32_t *expect_vram_xrgb(Copro *c, uint64_t addr,
                                         uint32_t pitch, uint32_t w,
                                         uint32_t h)
{
    uint32_t *want = g_new(uint32_t, w * h);
    g_autofree uint8_t *img = g_malloc((size_t)pitch * h);

    vram_read(c, addr, img, (size_t)pitch * h);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            want[y * w + x] = ldl_le_p(img + (size_t)y * pitch + x * 4) &
                              0xffffff;
        }
    }
    return want;
}

static inline void check_black(Copro *c, int w, int h)
{
    g_autofree uint32_t *zero = g_new0(uint32_t, w * h);

    check_shot(c, zero, w, h);
}

/* CRC-32 (zlib's polynomial), bit by bit: the test's own model */
static inline uint32_t crc32_model(const uint8_t *p, size_t n)
{
    uint32_t crc = ~0u;

    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++) {
            crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
        }
    }
    return ~crc;
}

static inline uint32_t shot_crc(Copro *c)
{
    Shot s;
    uint32_t crc;

    screendump(c, &s);
    crc = crc32_model(s.rgb, (size_t)s.w * s.h * 3);
    shot_free(&s);
    return crc;
}

/* Migrate @src (q35, default device) into @dst, which runs on. */
static inline void disp_migrate(Copro *src, Copro *dst)
{
    copro_migrate_to(src, dst, "-M q35", "");
}

typedef struct Stream {
    gchar *data;
    gsize len;
    gsize marker;
} Stream;

/* Loads @st into a new destination; whether the load succeeded. */
static inline bool load_stream(const char *file, const Stream *st)
{
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    bool done = false, failed = false;
    Copro dst;

    g_assert_true(g_file_set_contents(file, st->data, st->len, NULL));
    memset(&dst, 0, sizeof(dst));
    dst.qs = qtest_pc_boot("-M q35 -nodefaults -device copro,addr=%d.0 "
                           "-incoming defer", COPRO_SLOT);
    dst.qts = dst.qs->qts;
    dst.dev = qpci_device_find(dst.qs->pcibus, QPCI_DEVFN(COPRO_SLOT, 0));
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    for (int i = 0; i < 10000 && !done && !failed; i++) {
        QDict *rsp = qtest_qmp(dst.qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *status = ret && qdict_haskey(ret, "status") ?
                             qdict_get_str(ret, "status") : "";

        done = !strcmp(status, "completed");
        failed = !strcmp(status, "failed");
        qobject_unref(rsp);
        if (!done && !failed) {
            g_usleep(10 * 1000);
        }
    }
    g_assert_true(done || failed);
    /* a refused stream leaves the destination alive */
    qtest_qmp_assert_success(dst.qts, "{ 'execute': 'query-status' }");
    copro_shutdown(&dst);
    return done;
}

#endif /* COPRO_DISPLAY_QTEST_H */
