/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's tiling path (COPRO_CAP_TILER): every geometry packet
 * and TILE_RENDER against a host-side model of the scene's pixels, tile
 * loads only where needed, both answers to a full parameter buffer (grow,
 * partial render) giving the pixels of an uninterrupted run, the engine
 * holding its ring after an OOM stop until the driver acknowledges it
 * (across migration; reset ends it), preemption at a tile boundary and
 * at a primitive boundary with exact resume, migration in the middle of
 * a tile pass, each bad input a BAD_PACKET
 * with its cause, the stages on the timeline, and the bytes moved against
 * immediate rendering of the same overdraw-heavy frame.
 *
 * One program past a thousand lines, as each of the device's qtests is:
 * one chapter of docs/specs/copro.rst ("Tiling") and its pixel model,
 * each rule a case over one harness.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "copro-qtest.h"

#define RING0       0x0000          /* geometry: engine 0 */
#define RING2       0x1000          /* tiles: engine 2 */
#define SAVE0       0x2000          /* save areas */
#define SAVE2       0x2100
#define FLAG        0x2200          /* a WAIT's flag */
#define MARK        0x2300          /* what put_mark()'s buffer writes */
#define MARK_TS     0x2308          /* ... and when it started */
#define BUF_G       0x10000         /* geometry buffer */
#define BUF_T       0x30000         /* tile buffer */
#define BUF_X       0x38000         /* put_mark()'s buffer */
#define PB          (1 * MiB)       /* parameter buffer */
#define PB_BIG      (512 * KiB)
#define SRC         (3 * MiB)       /* blit source */
#define SRC_PITCH   256
#define TGT         (4 * MiB)       /* the scene's target */
#define TGT_W       200             /* not a multiple of the tile size */
#define TGT_H       120
#define TGT_PITCH   1024
#define TGT_BYTES   (TGT_PITCH * TGT_H)
#define TS          32
#define TILES_X     ((TGT_W + TS - 1) / TS)
#define TILES_Y     ((TGT_H + TS - 1) / TS)
#define TILES       (TILES_X * TILES_Y)
#define CLEAR_COL   0x00102030
#define BASE_COL    0x00777777      /* target content before the scene */
#define IMM         (6 * MiB)       /* immediate-mode target */

#define OPTS        "engines=3,ctx-state-size=0"

static const char *const machine = "-M q35";

/* the scene: rectangles and blits, overlapping, some clipped */
typedef struct Prim {
    bool blit;
    uint32_t x, y, w, h, colour;
} Prim;

static const Prim scene[] = {
    { false, 0, 0, 150, 100, 0x00ff0000 },
    { false, 20, 10, 40, 40, 0x0000ff00 },
    { true, 50, 30, 60, 50, 0 },
    { false, 100, 60, 300, 300, 0x000000ff },   /* clipped right/bottom */
    { false, 500, 500, 10, 10, 0x00ffffff },    /* wholly outside */
    { false, 31, 31, 3, 3, 0x00abcdef },         /* across a tile corner */
    { true, 0, 90, 64, 30, 0 },
    { false, 0, 0, 0, 5, 0x00123456 },           /* empty */
    { false, 64, 0, 32, 32, 0x00aabbcc },        /* exactly one tile */
};

static uint32_t src_pixel(uint32_t x, uint32_t y)
{
    return 0x00010000 * (x & 0xff) + 0x100 * (y & 0xff) + ((x ^ y) & 0xff);
}

static void boot(Copro *c, const char *opts)
{
    g_autofree char *all = g_strdup_printf(OPTS "%s%s", *opts ? "," : "",
                                           opts);
    g_autofree uint32_t *src = g_new(uint32_t, SRC_PITCH / 4 * 128);

    copro_boot(c, machine, all);
    copro_ring_setup(c, 0, RING0, 64);
    copro_ring_setup(c, 2, RING2, 64);
    for (uint32_t y = 0; y < 128; y++) {
        for (uint32_t x = 0; x < SRC_PITCH / 4; x++) {
            src[y * SRC_PITCH / 4 + x] = cpu_to_le32(src_pixel(x, y));
        }
    }
    vram_write(c, SRC, src, SRC_PITCH * 128);
}

/* the expected target: @base everywhere, then every primitive */
static void model(uint32_t *img, uint32_t base, size_t nprims)
{
    for (uint32_t i = 0; i < TGT_PITCH / 4 * TGT_H; i++) {
        img[i] = base;
    }
    for (size_t i = 0; i < nprims; i++) {
        const Prim *p = &scene[i];

        for (uint32_t y = p->y; y < MIN(p->y + p->h, TGT_H); y++) {
            for (uint32_t x = p->x; x < MIN(p->x + p->w, TGT_W); x++) {
                img[y * TGT_PITCH / 4 + x] =
                    p->blit ? src_pixel(x - p->x, y - p->y) : p->colour;
            }
        }
    }
}

static void fill_target(Copro *c, uint64_t at, uint32_t colour)
{
    g_autofree uint32_t *img = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);

    for (uint32_t i = 0; i < TGT_PITCH / 4 * TGT_H; i++) {
        img[i] = cpu_to_le32(colour);
    }
    vram_write(c, at, img, TGT_BYTES);
}

/* the target as the device left it, pixels outside the width included */
static uint32_t *read_target(Copro *c, uint64_t at)
{
    uint32_t *img = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);

    vram_read(c, at, img, TGT_BYTES);
    for (uint32_t i = 0; i < TGT_PITCH / 4 * TGT_H; i++) {
        img[i] = le32_to_cpu(img[i]);
    }
    return img;
}

static void check_target(Copro *c, const uint32_t *want)
{
    g_autofree uint32_t *got = read_target(c, TGT);

    for (uint32_t y = 0; y < TGT_H; y++) {
        for (uint32_t x = 0; x < TGT_W; x++) {
            if (got[y * TGT_PITCH / 4 + x] != want[y * TGT_PITCH / 4 + x]) {
                g_test_message("pixel %u,%u: 0x%08x, want 0x%08x", x, y,
                               got[y * TGT_PITCH / 4 + x],
                               want[y * TGT_PITCH / 4 + x]);
                g_assert_not_reached();
            }
        }
    }
}

static void pkt_target(GArray *b, uint64_t at)
{
    copro_pkt_set_target(b, 1, at, TGT_PITCH, TGT_W, TGT_H,
                         COPRO_FMT_XRGB8888);
}

/* the geometry buffer of the scene's first @n primitives */
static uint32_t put_geometry(Copro *c, uint32_t flags, uint32_t pb_size,
                             size_t n)
{
    g_autoptr(GArray) b = copro_buf_new();

    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, flags, PB, pb_size, CLEAR_COL);
    for (size_t i = 0; i < n; i++) {
        const Prim *p = &scene[i];

        if (p->blit) {
            copro_pkt_bin_blit(b, SRC, SRC_PITCH, p->x, p->y, p->w, p->h);
        } else {
            copro_pkt_bin_rect(b, p->x, p->y, p->w, p->h, p->colour);
        }
    }
    copro_pkt_scene_end(b);
    return copro_buf_put(c, BUF_G, b);
}

static uint32_t put_tiles(Copro *c, uint64_t at, uint32_t flags)
{
    g_autoptr(GArray) b = copro_buf_new();

    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, flags, PB, TILES);
    return copro_buf_put(c, at, b);
}

static void submit(Copro *c, unsigned e, uint64_t buf, uint32_t len,
                   uint64_t fence, uint32_t flags, uint64_t save)
{
    struct copro_submit_desc d = copro_desc(buf, len, fence, 5, flags);

    d.save_addr = save;
    copro_submit_desc(c, e, &d);
}

static void run_ok(Copro *c, unsigned e, uint64_t fence)
{
    for (int i = 0; i < 100000; i++) {
        if (erd64(c, e, COPRO_ENG_COMPLETED_FENCE) == fence) {
            return;
        }
        if (erd32(c, e, COPRO_ENG_STATE) == COPRO_ENG_STATE_HALTED) {
            g_test_message("engine %u halted: fault %u cause %u at 0x%"
                           PRIx64, e, erd32(c, e, COPRO_ENG_FAULT_KIND),
                           erd32(c, e, COPRO_ENG_TILER_CAUSE),
                           erd64(c, e, COPRO_ENG_FAULT_ADDR));
            g_assert_not_reached();
        }
        qtest_clock_step(c->qts, 10000);
    }
    g_assert_not_reached();
}

/* Run until the engine halts (a bad input), stepping virtual time. */
static uint32_t run_halt(Copro *c, unsigned e)
{
    for (int i = 0; i < 100000; i++) {
        if (erd32(c, e, COPRO_ENG_STATE) == COPRO_ENG_STATE_HALTED) {
            return COPRO_ENG_STATE_HALTED;
        }
        qtest_clock_step(c->qts, 10000);
    }
    g_assert_not_reached();
}

static void scene_read(Copro *c, struct copro_scene *h)
{
    vram_read(c, PB, h, sizeof(*h));
    h->magic = le32_to_cpu(h->magic);
    h->state = le32_to_cpu(h->state);
    h->pb_size = le32_to_cpu(h->pb_size);
    h->used = le32_to_cpu(h->used);
    h->prims = le32_to_cpu(h->prims);
    h->ooms = le32_to_cpu(h->ooms);
    h->partials = le32_to_cpu(h->partials);
    h->oom_need = le32_to_cpu(h->oom_need);
    h->flags = le32_to_cpu(h->flags);
    h->geom_start = le64_to_cpu(h->geom_start);
    h->geom_end = le64_to_cpu(h->geom_end);
    h->tile_start = le64_to_cpu(h->tile_start);
    h->tile_end = le64_to_cpu(h->tile_end);
}

static uint64_t tstat(Copro *c, uint64_t reg)
{
    return rd64(c, reg);
}

/* The capability, the tile size property and the limits. */
static void test_caps(void)
{
    Copro c;

    boot(&c, "");
    g_assert_true(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_TILER);
    g_assert_cmpuint(rd32(&c, COPRO_REG_TILER_TILE_SIZE), ==,
                     COPRO_TILE_SIZE_DEFAULT);
    g_assert_cmpuint(rd32(&c, COPRO_REG_TILER_MAX_TILES), ==,
                     COPRO_TILER_MAX_TILES);
    g_assert_cmpuint(rd64(&c, COPRO_REG_TILER_TILE_NS), ==, 200);
    copro_shutdown(&c);

    boot(&c, "tile-size=16,tile-ns=1000");
    g_assert_cmpuint(rd32(&c, COPRO_REG_TILER_TILE_SIZE), ==, 16);
    g_assert_cmpuint(rd64(&c, COPRO_REG_TILER_TILE_NS), ==, 1000);
    copro_shutdown(&c);
}

/*
 * A cleared scene: geometry on engine 0, the tile pass on engine 2; the
 * pixels are the model's, the header tells the stages' times, nothing is
 * loaded (the scene clears) and every tile is stored once.
 */
static void test_scene(void)
{
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    struct copro_scene h;
    uint32_t len;
    Copro c;

    boot(&c, "");
    fill_target(&c, TGT, BASE_COL);
    len = put_geometry(&c, COPRO_SCENE_CLEAR, PB_BIG, G_N_ELEMENTS(scene));
    submit(&c, 0, BUF_G, len, 1, 0, SAVE0);
    run_ok(&c, 0, 1);
    scene_read(&c, &h);
    g_assert_cmphex(h.magic, ==, COPRO_SCENE_MAGIC);
    g_assert_cmpuint(h.state, ==, COPRO_SCENE_CLOSED);
    g_assert_cmpuint(h.prims, ==, G_N_ELEMENTS(scene) - 2);
    g_assert_cmpuint(h.geom_start, <, h.geom_end);
    g_assert_cmpuint(h.tile_start, ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_TILER_SCENE), ==, 0);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_SCENES), ==, 1);

    len = put_tiles(&c, BUF_T, 0);
    submit(&c, 2, BUF_T, len, 2, 0, SAVE2);
    run_ok(&c, 2, 2);
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    check_target(&c, want);
    scene_read(&c, &h);
    g_assert_cmpuint(h.state, ==, COPRO_SCENE_RENDERED);
    g_assert_cmpuint(h.geom_end, <=, h.tile_start);
    g_assert_cmpuint(h.tile_start, <, h.tile_end);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_TILES), ==, TILES);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_LOADS), ==, 0);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_STORES), ==, TILES);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_TILE_BYTES), ==,
                     TGT_W * TGT_H * 4);
    /* engine 2 wrote the target once, nothing else */
    g_assert_cmpuint(erd64(&c, 2, COPRO_ENG_STAT_MEM_WRITE), ==,
                     TGT_W * TGT_H * 4);
    g_assert_cmpuint(erd64(&c, 2, COPRO_ENG_STAT_MEM_READ), >, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_MEM_WRITE), ==,
                     tstat(&c, COPRO_REG_TILER_STAT_PB_WRITE));

    /* a second final pass over a rendered scene is refused */
    submit(&c, 2, BUF_T, len, 3, 0, SAVE2);
    g_assert_cmpuint(run_halt(&c, 2), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 2, COPRO_ENG_TILER_CAUSE), ==,
                     COPRO_TILER_ERR_NOT_CLOSED);
    copro_shutdown(&c);
}

/*
 * Without CLEAR the target's content survives where no primitive covers
 * a tile: such tiles are loaded, covered ones are not, and tiles with an
 * empty bin are neither loaded nor stored. Tile size 16 here.
 */
static void test_load(void)
{
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    g_autoptr(GArray) t = copro_buf_new();
    uint32_t len, tiles = ((TGT_W + 15) / 16) * ((TGT_H + 15) / 16);
    uint64_t loads, skips, stores;
    Copro c;

    boot(&c, "tile-size=16");
    fill_target(&c, TGT, BASE_COL);
    len = put_geometry(&c, 0, PB_BIG, G_N_ELEMENTS(scene));
    submit(&c, 0, BUF_G, len, 1, 0, SAVE0);
    run_ok(&c, 0, 1);
    pkt_target(t, TGT);
    copro_pkt_tile_render(t, 1, 0, PB, tiles);
    len = copro_buf_put(&c, BUF_T, t);
    submit(&c, 2, BUF_T, len, 2, 0, SAVE2);
    run_ok(&c, 2, 2);
    model(want, BASE_COL, G_N_ELEMENTS(scene));
    check_target(&c, want);
    loads = tstat(&c, COPRO_REG_TILER_STAT_LOADS);
    skips = tstat(&c, COPRO_REG_TILER_STAT_LOAD_SKIPS);
    stores = tstat(&c, COPRO_REG_TILER_STAT_STORES);
    g_assert_cmpuint(loads, >, 0);
    g_assert_cmpuint(skips, >, 0);
    g_assert_cmpuint(loads + skips, ==, stores);
    g_assert_cmpuint(stores, <, tiles);
    copro_shutdown(&c);
}

/* Drive a geometry submission to its end, answering each OOM. */
static unsigned geometry_with_oom(Copro *c, uint32_t len, bool grow)
{
    uint64_t fence = 10;
    unsigned ooms = 0;

    submit(c, 0, BUF_G, len, fence, 0, SAVE0);
    for (;;) {
        struct copro_save_record r;
        struct copro_save_tiler st;
        struct copro_scene h;
        uint32_t tlen;

        for (int i = 0; i < 100000 &&
             erd64(c, 0, COPRO_ENG_COMPLETED_FENCE) != fence &&
             !(rd64(c, COPRO_REG_INT_STATUS) &
               COPRO_INT_ENG(0, COPRO_INT_TILER_OOM)); i++) {
            g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), !=,
                             COPRO_ENG_STATE_HALTED);
            qtest_clock_step(c->qts, 10000);
        }
        if (erd64(c, 0, COPRO_ENG_COMPLETED_FENCE) == fence) {
            return ooms;
        }
        /* stopped, saved, the scene says why */
        ooms++;
        g_assert_cmpuint(ooms, <, 32);
        wr64(c, COPRO_REG_INT_STATUS, COPRO_INT_ENG(0, COPRO_INT_TILER_OOM));
        g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_HELD);
        g_assert_cmpuint(erd64(c, 0, COPRO_ENG_TILER_OOM_FENCE), ==, fence);
        /* heard of: the ring is the driver's to write again */
        ewr32(c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
        g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_IDLE);
        scene_read(c, &h);
        g_assert_cmpuint(h.state, ==, COPRO_SCENE_OOM);
        g_assert_cmpuint(h.oom_need, ==, erd32(c, 0,
                                               COPRO_ENG_TILER_OOM_NEED));
        g_assert_cmpuint(h.used + h.oom_need, >, h.pb_size);
        vram_read(c, SAVE0, &r, sizeof(r));
        memcpy(&st, r.reserved, sizeof(st));
        g_assert_cmphex(le32_to_cpu(r.magic), ==, COPRO_SAVE_MAGIC);
        g_assert_cmphex(le64_to_cpu(st.scene), ==, PB);
        g_assert_cmphex(le32_to_cpu(st.flags), ==,
                        COPRO_SAVE_TILER_SCENE | COPRO_SAVE_TILER_OOM);
        if (grow) {
            /* more pages after the buffer's end: one more primitive's */
            vram_w32(c, PB + offsetof(struct copro_scene, pb_size),
                     h.pb_size + h.oom_need);
        } else {
            tlen = put_tiles(c, BUF_T + ooms * 0x100, COPRO_TILE_PARTIAL);
            submit(c, 2, BUF_T + ooms * 0x100, tlen, 100 + ooms, 0, SAVE2);
            run_ok(c, 2, 100 + ooms);
            scene_read(c, &h);
            g_assert_cmpuint(h.state, ==, COPRO_SCENE_OPEN);
            g_assert_cmpuint(h.partials, ==, ooms);
            g_assert_true(h.flags & COPRO_SCENE_F_STORED);
        }
        submit(c, 0, BUF_G, len, fence, COPRO_SUBMIT_RESUME, SAVE0);
    }
}

/*
 * A parameter buffer too small for the scene, answered by growing it or
 * by partial renders: the final pixels are the same as with a big one.
 */
static void test_oom(gconstpointer data)
{
    bool grow = GPOINTER_TO_INT(data);
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    /* room for any one primitive (a partial render empties the heap) */
    uint32_t small = copro_scene_heap_start(TILES) + COPRO_PRIM_NEED(TILES);
    struct copro_scene h;
    unsigned ooms;
    uint32_t len;
    Copro c;

    boot(&c, "");
    fill_target(&c, TGT, BASE_COL);
    len = put_geometry(&c, COPRO_SCENE_CLEAR, small, G_N_ELEMENTS(scene));
    ooms = geometry_with_oom(&c, len, grow);
    g_assert_cmpuint(ooms, >=, 2);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_OOMS), ==, ooms);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_PARTIALS), ==,
                     grow ? 0 : ooms);
    scene_read(&c, &h);
    g_assert_cmpuint(h.state, ==, COPRO_SCENE_CLOSED);
    g_assert_cmpuint(h.ooms, ==, ooms);
    len = put_tiles(&c, BUF_T, 0);
    submit(&c, 2, BUF_T, len, 2, 0, SAVE2);
    run_ok(&c, 2, 2);
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    check_target(&c, want);
    /* after partial renders the final pass loads what they stored */
    if (!grow) {
        g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_LOADS), >, 0);
    }
    copro_shutdown(&c);
}

/*
 * The hold after an OOM stop (docs/specs/copro.rst "The engine holds")
 */

/*
 * A buffer a driver writes to the ring not knowing of a stop: it stamps
 * its start at MARK_TS, writes @value to MARK, then works 50 us.
 */
static uint32_t put_mark(Copro *c, uint64_t at, uint64_t value)
{
    g_autoptr(GArray) b = copro_buf_new();

    copro_pkt_timestamp(b, MARK_TS);
    copro_pkt_fence(b, MARK, value, 0);
    copro_pkt_work(b, 50000);
    return copro_buf_put(c, at, b);
}

/* Engine 0 holds after the OOM stop of fence 10; RING_HEAD is @head. */
static void check_held(Copro *c, uint32_t head)
{
    QDict *rsp, *eng;

    g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_HELD);
    g_assert_cmpuint(erd32(c, 0, COPRO_ENG_RING_HEAD), ==, head);
    g_assert_cmpuint(erd64(c, 0, COPRO_ENG_TILER_OOM_FENCE), ==, 10);
    eng = copro_query_engine(copro_query(c, &rsp), 0);
    g_assert_cmpstr(qdict_get_str(eng, "state"), ==, "held");
    g_assert_true(qdict_get_bool(eng, "tiler-held"));
    g_assert_cmpuint(copro_qdict_u64(eng, "tiler-oom-fence"), ==, 10);
    qobject_unref(rsp);
}

/*
 * Submit the too-big scene's geometry as fence 10 on engine 0 and step
 * virtual time until it stops on OOM. Returns its length.
 */
static uint32_t geometry_until_oom(Copro *c)
{
    uint32_t small = copro_scene_heap_start(TILES) + COPRO_PRIM_NEED(TILES);
    uint32_t len = put_geometry(c, COPRO_SCENE_CLEAR, small,
                                G_N_ELEMENTS(scene));

    submit(c, 0, BUF_G, len, 10, 0, SAVE0);
    for (int i = 0; i < 100000 && !(rd64(c, COPRO_REG_INT_STATUS) &
                                    COPRO_INT_ENG(0, COPRO_INT_TILER_OOM));
         i++) {
        qtest_clock_step(c->qts, 10000);
    }
    g_assert_true(rd64(c, COPRO_REG_INT_STATUS) &
                  COPRO_INT_ENG(0, COPRO_INT_TILER_OOM));
    wr64(c, COPRO_REG_INT_STATUS, ~0ull);
    return len;
}

/*
 * 2 ms of virtual time, in 20 us steps: the entry at ring slot @head
 * (fence 11, put_mark) is never fetched and nothing runs.
 */
static void check_nothing_runs(Copro *c, uint32_t head)
{
    int64_t t0 = copro_time(c);
    uint64_t busy = erd64(c, 0, COPRO_ENG_STAT_BUSY_NS);
    uint64_t subs = erd64(c, 0, COPRO_ENG_STAT_SUBMISSIONS);

    for (int i = 0; i < 100; i++) {
        qtest_clock_step(c->qts, 20000);
        g_assert_cmpuint(vram_r32(c, MARK), ==, 0);
        g_assert_cmpuint(erd64(c, 0, COPRO_ENG_COMPLETED_FENCE), <, 10);
        g_assert_cmpuint(erd32(c, 0, COPRO_ENG_RING_HEAD), ==, head);
    }
    g_assert_cmpint(copro_time(c), >=, t0 + 2000000);
    g_assert_cmpuint(erd64(c, 0, COPRO_ENG_STAT_BUSY_NS), ==, busy);
    g_assert_cmpuint(erd64(c, 0, COPRO_ENG_STAT_SUBMISSIONS), ==, subs);
    check_held(c, head);
}

/*
 * After the acknowledgement the driver resubmits the stopped geometry
 * (grown, RESUME) and then what it had written during the hold (fence
 * 11): both run, in that order, and the scene renders exactly.
 */
static void resubmit_after_ack(Copro *c, uint32_t glen, uint32_t xlen)
{
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    struct copro_scene h;
    uint32_t tlen;

    vram_w32(c, PB + offsetof(struct copro_scene, pb_size), PB_BIG);
    submit(c, 0, BUF_G, glen, 10, COPRO_SUBMIT_RESUME, SAVE0);
    submit(c, 0, BUF_X, xlen, 11, 0, 0);
    g_assert_cmpuint(copro_run_until_busy(c, 0), ==, COPRO_ENG_STATE_BUSY);
    run_ok(c, 0, 11);
    g_assert_cmpuint(vram_r32(c, MARK), ==, 0x11);
    scene_read(c, &h);
    g_assert_cmpuint(h.state, ==, COPRO_SCENE_CLOSED);
    /* fence 11 started after the stopped geometry finished */
    g_assert_cmpuint(vram_r64(c, MARK_TS), >=, h.geom_end);
    tlen = put_tiles(c, BUF_T, 0);
    submit(c, 2, BUF_T, tlen, 2, 0, SAVE2);
    run_ok(c, 2, 2);
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    check_target(c, want);
}

/*
 * After an OOM stop the engine holds: an entry written to its ring then,
 * as by a driver that has not seen TILER_OOM yet, does not run however
 * long virtual time runs, and a preemption request completes without
 * releasing the engine. An acknowledgement of an engine that holds
 * nothing is refused and changes nothing. The acknowledgement drops the
 * entry; the driver resubmits the stopped geometry first, then the entry,
 * and both run in that order.
 */
static void test_oom_hold(void)
{
    g_autofree char *text = NULL;
    uint32_t glen, xlen, head;
    Copro c;

    boot(&c, "packet-ns=10000");
    fill_target(&c, TGT, BASE_COL);
    glen = geometry_until_oom(&c);
    head = erd32(&c, 0, COPRO_ENG_RING_HEAD);
    check_held(&c, head);
    text = qtest_hmp(c.qts, "info copro");
    g_assert_nonnull(strstr(text, "held after the OOM stop of fence 10"));

    /* a preemption request completes at once; the engine still holds */
    ewr64(&c, 0, COPRO_ENG_PREEMPT_REQ, 0x77);
    qtest_clock_step(c.qts, 1000);
    g_assert_true(rd64(&c, COPRO_REG_INT_STATUS) &
                  COPRO_INT_ENG(0, COPRO_INT_PREEMPTED));
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPT_FENCE), ==, 0x77);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 0);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    check_held(&c, head);

    /* written after the stop: the doorbell is taken, nothing runs */
    xlen = put_mark(&c, BUF_X, 0x11);
    submit(&c, 0, BUF_X, xlen, 11, 0, 0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==, head + 1);
    check_nothing_runs(&c, head);

    /* an acknowledgement where nothing holds: refused, nothing changes */
    ewr32(&c, 2, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
    g_assert_cmpuint(erd32(&c, 2, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(&c, 2, COPRO_ENG_RING_HEAD), ==,
                     erd32(&c, 2, COPRO_ENG_RING_TAIL));
    check_nothing_runs(&c, head);

    /* acknowledged: the entry written meanwhile is dropped, unrun */
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, head + 1);
    qtest_clock_step(c.qts, 1000000);
    g_assert_cmpuint(vram_r32(&c, MARK), ==, 0);
    /* a second one has no hold to end: nothing changes */
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, head + 1);

    resubmit_after_ack(&c, glen, xlen);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_OOMS), ==, 1);
    copro_shutdown(&c);
}

/*
 * A preemption request pending when the geometry stops on OOM completes
 * right after the stop at every granularity: the held engine has nothing
 * loaded, so it is at an arbitration point (PREEMPTED, PREEMPTED_FENCE 0)
 * and it still holds. Issue 25: with preempt=dma-buffer, or a request made
 * during a PAGING submission, the request stayed pending until TILER_ACK.
 */
static void test_oom_preempt_pending(gconstpointer data)
{
    const char *mode = data;
    bool paging = !strcmp(mode, "paging");
    g_autofree char *opts = g_strdup_printf("packet-ns=10000,preempt=%s",
                                            paging ? "mid-command" : mode);
    uint32_t small = copro_scene_heap_start(TILES) + COPRO_PRIM_NEED(TILES);
    uint64_t oom = COPRO_INT_ENG(0, COPRO_INT_TILER_OOM);
    uint64_t preempted = COPRO_INT_ENG(0, COPRO_INT_PREEMPTED);
    uint32_t len;
    Copro c;
    int i;

    boot(&c, opts);
    fill_target(&c, TGT, BASE_COL);
    len = put_geometry(&c, COPRO_SCENE_CLEAR, small, G_N_ELEMENTS(scene));
    submit(&c, 0, BUF_G, len, 10, paging ? COPRO_SUBMIT_PAGING : 0, SAVE0);
    g_assert_cmpuint(copro_run_until_busy(&c, 0), ==, COPRO_ENG_STATE_BUSY);
    ewr64(&c, 0, COPRO_ENG_PREEMPT_REQ, 0x77);
    for (i = 0; i < 100000 && !(rd64(&c, COPRO_REG_INT_STATUS) & oom); i++) {
        /* the granularity (or PAGING) keeps the request pending till then */
        g_assert_false(rd64(&c, COPRO_REG_INT_STATUS) & preempted);
        qtest_clock_step(c.qts, 1000);
    }
    g_assert_true(rd64(&c, COPRO_REG_INT_STATUS) & oom);
    qtest_clock_step(c.qts, 1000);
    g_assert_true(rd64(&c, COPRO_REG_INT_STATUS) & preempted);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPT_FENCE), ==, 0x77);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 0);
    check_held(&c, erd32(&c, 0, COPRO_ENG_RING_HEAD));
    copro_shutdown(&c);
}

/* An engine reset and a device reset each end a hold. */
static void test_oom_hold_reset(void)
{
    QDict *rsp;
    uint32_t xlen, head;
    Copro c;

    boot(&c, "packet-ns=10000");
    geometry_until_oom(&c);
    head = erd32(&c, 0, COPRO_ENG_RING_HEAD);
    xlen = put_mark(&c, BUF_X, 0x11);
    submit(&c, 0, BUF_X, xlen, 11, 0, 0);
    check_nothing_runs(&c, head);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, head + 1);
    g_assert_false(qdict_get_bool(copro_query_engine(copro_query(&c, &rsp),
                                                     0), "tiler-held"));
    qobject_unref(rsp);
    /* nothing to acknowledge now; the ring runs without it */
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
    xlen = put_mark(&c, BUF_X, 0x22);
    submit(&c, 0, BUF_X, xlen, 12, 0, 0);
    run_ok(&c, 0, 12);
    g_assert_cmpuint(vram_r32(&c, MARK), ==, 0x22);

    /* held again, then the whole device is reset */
    vram_w32(&c, MARK, 0);
    geometry_until_oom(&c);
    check_held(&c, erd32(&c, 0, COPRO_ENG_RING_HEAD));
    qtest_system_reset(c.qts);
    c.mmio = qpci_iomap(c.dev, COPRO_BAR_MMIO, NULL);
    c.vram = qpci_iomap(c.dev, COPRO_BAR_VRAM, NULL);
    qpci_device_enable(c.dev);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_false(qdict_get_bool(copro_query_engine(copro_query(&c, &rsp),
                                                     0), "tiler-held"));
    qobject_unref(rsp);
    copro_ring_setup(&c, 0, RING0, 64);
    submit(&c, 0, BUF_X, xlen, 1, 0, 0);
    run_ok(&c, 0, 1);
    g_assert_cmpuint(vram_r32(&c, MARK), ==, 0x22);
    copro_shutdown(&c);
}

/*
 * Migrated while held, with an entry written during the hold: the
 * destination holds too (the entry does not run), and fetches from the
 * moment the stop is acknowledged there.
 */
static void test_oom_hold_migrate(void)
{
    const char *opts = "packet-ns=10000";
    g_autofree char *all_opts = g_strdup_printf(OPTS ",%s", opts);
    uint32_t glen, xlen, head;
    Copro src, dst;

    boot(&src, opts);
    fill_target(&src, TGT, BASE_COL);
    glen = geometry_until_oom(&src);
    head = erd32(&src, 0, COPRO_ENG_RING_HEAD);
    xlen = put_mark(&src, BUF_X, 0x11);
    submit(&src, 0, BUF_X, xlen, 11, 0, 0);
    check_held(&src, head);

    copro_migrate_to(&src, &dst, machine, all_opts);
    check_nothing_runs(&dst, head);
    ewr32(&dst, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
    g_assert_cmpuint(erd32(&dst, 0, COPRO_ENG_RING_HEAD), ==, head + 1);
    resubmit_after_ack(&dst, glen, xlen);
    copro_shutdown(&dst);
}

/*
 * A tile pass preempted between tiles: the save record names the next
 * tile, the tiles before it are in the target and the ones after are not;
 * the resumed pass gives the pixels of an uninterrupted one.
 */
static void test_preempt_tile(gconstpointer data)
{
    const char *granularity = data;
    g_autofree char *opts = g_strdup_printf("preempt=%s", granularity);
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    g_autofree uint32_t *mid = NULL;
    struct copro_save_record r;
    struct copro_save_tiler st;
    uint32_t len, next;
    Copro c;

    /* 100 us per tile: the request lands inside the pass */
    boot(&c, opts);
    wr64(&c, COPRO_REG_SCRATCH, 0);
    fill_target(&c, TGT, BASE_COL);
    len = put_geometry(&c, COPRO_SCENE_CLEAR, PB_BIG, G_N_ELEMENTS(scene));
    submit(&c, 0, BUF_G, len, 1, 0, SAVE0);
    run_ok(&c, 0, 1);
    len = put_tiles(&c, BUF_T, 0);
    submit(&c, 2, BUF_T, len, 2, 0, SAVE2);
    copro_run_until_busy(&c, 2);
    qtest_clock_step(c.qts, 5 * 200 + 3000);
    ewr64(&c, 2, COPRO_ENG_PREEMPT_REQ, 0x99);
    for (int i = 0; i < 1000 && !(rd64(&c, COPRO_REG_INT_STATUS) &
                                   COPRO_INT_ENG(2, COPRO_INT_PREEMPTED));
         i++) {
        qtest_clock_step(c.qts, 1000);
    }
    g_assert_cmphex(erd64(&c, 2, COPRO_ENG_PREEMPTED_FENCE), ==, 2);
    vram_read(&c, SAVE2, &r, sizeof(r));
    memcpy(&st, r.reserved, sizeof(st));
    next = le32_to_cpu(st.tile_next);
    g_assert_cmpuint(le32_to_cpu(r.in_packet), ==, 1);
    g_assert_cmpuint(COPRO_PKT_OP(le32_to_cpu(r.hdr)), ==,
                     COPRO_OP_TILE_RENDER);
    g_assert_cmpuint(le64_to_cpu(r.progress), ==, 2 * next);
    g_assert_cmpuint(next, >, 0);
    g_assert_cmpuint(next, <, TILES);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_TILES), ==, next);

    /* tile next - 1 is stored, tile next is not */
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    mid = read_target(&c, TGT);
    {
        uint32_t done = next - 1;
        uint32_t x = (done % TILES_X) * TS, y = (done / TILES_X) * TS;
        uint32_t nx = (next % TILES_X) * TS, ny = (next / TILES_X) * TS;

        g_assert_cmphex(mid[y * TGT_PITCH / 4 + x], ==,
                        want[y * TGT_PITCH / 4 + x]);
        g_assert_cmphex(mid[ny * TGT_PITCH / 4 + nx], ==, BASE_COL);
    }

    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    submit(&c, 2, BUF_T, len, 2, COPRO_SUBMIT_RESUME, SAVE2);
    run_ok(&c, 2, 2);
    check_target(&c, want);
    g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_TILES), ==, TILES);
    copro_shutdown(&c);
}

/*
 * Geometry preempted at a primitive boundary resumes with its scene: the
 * save record names the parameter buffer, and the pixels are the same.
 */
static void test_preempt_geometry(void)
{
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    struct copro_save_record r;
    struct copro_save_tiler st;
    struct copro_scene h;
    uint32_t len;
    Copro c;

    boot(&c, "preempt=command,packet-ns=10000");
    fill_target(&c, TGT, BASE_COL);
    len = put_geometry(&c, COPRO_SCENE_CLEAR, PB_BIG, G_N_ELEMENTS(scene));
    submit(&c, 0, BUF_G, len, 1, 0, SAVE0);
    copro_run_until_busy(&c, 0);
    qtest_clock_step(c.qts, 45000);
    ewr64(&c, 0, COPRO_ENG_PREEMPT_REQ, 0x98);
    for (int i = 0; i < 1000 && !(rd64(&c, COPRO_REG_INT_STATUS) &
                                   COPRO_INT_ENG(0, COPRO_INT_PREEMPTED));
         i++) {
        qtest_clock_step(c.qts, 1000);
    }
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 1);
    vram_read(&c, SAVE0, &r, sizeof(r));
    memcpy(&st, r.reserved, sizeof(st));
    g_assert_cmphex(le64_to_cpu(st.scene), ==, PB);
    g_assert_cmphex(le32_to_cpu(st.flags), ==, COPRO_SAVE_TILER_SCENE);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_TILER_SCENE), ==, 0);
    scene_read(&c, &h);
    g_assert_cmpuint(h.state, ==, COPRO_SCENE_OPEN);
    g_assert_cmpuint(h.prims, >, 0);
    g_assert_cmpuint(h.prims, <, G_N_ELEMENTS(scene) - 2);

    submit(&c, 0, BUF_G, len, 1, COPRO_SUBMIT_RESUME, SAVE0);
    run_ok(&c, 0, 1);
    len = put_tiles(&c, BUF_T, 0);
    submit(&c, 2, BUF_T, len, 2, 0, SAVE2);
    run_ok(&c, 2, 2);
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    check_target(&c, want);
    copro_shutdown(&c);
}

/* Run @b on engine @e; it must halt with BAD_PACKET and @cause. */
static void expect_cause(Copro *c, unsigned e, GArray *b, uint32_t cause)
{
    uint32_t len = copro_buf_put(c, BUF_T, b);

    submit(c, e, BUF_T, len, 0x500 + cause, 0, SAVE2);
    g_assert_cmpuint(run_halt(c, e), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_BAD_PACKET);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_TILER_CAUSE), ==, cause);
    g_assert_true(rd64(c, COPRO_REG_INT_STATUS) &
                  COPRO_INT_ENG(e, COPRO_INT_ERROR));
    ewr32(c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    wr64(c, COPRO_REG_INT_STATUS, ~0ull);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_TILER_CAUSE), ==, 0);
    g_array_set_size(b, 0);
}

/* A closed scene at PB (big buffer), rendered by nobody yet. */
static void closed_scene(Copro *c)
{
    uint32_t len = put_geometry(c, COPRO_SCENE_CLEAR, PB_BIG,
                                G_N_ELEMENTS(scene));

    submit(c, 0, BUF_G, len, 0x400, 0, SAVE0);
    run_ok(c, 0, 0x400);
}

/* the first node of tile 0's bin */
static uint32_t tile0_head(Copro *c)
{
    return le32_to_cpu(vram_r32(c, PB + COPRO_SCENE_HDR_SIZE));
}

/*
 * Every bad input is a command error with its cause, never a crash, and
 * the engine works again after a reset.
 */
static void test_errors(void)
{
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    g_autoptr(GArray) b = copro_buf_new();
    uint32_t head;
    Copro c;

    boot(&c, "");
    /* geometry without a scene */
    copro_pkt_bin_rect(b, 0, 0, 1, 1, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_NO_SCENE);
    copro_pkt_scene_end(b);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_NO_SCENE);
    /* a scene opened twice */
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB, PB_BIG, 0);
    copro_pkt_scene_begin(b, 1, 0, PB, PB_BIG, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_SCENE_OPEN);
    /* unbound slot, misaligned or oversized buffers, flags */
    copro_pkt_scene_begin(b, 2, 0, PB, PB_BIG, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_TARGET);
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB + 4, PB_BIG, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_PB_SIZE);
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB, COPRO_PB_MAX + 8, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_PB_SIZE);
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB, COPRO_SCENE_HDR_SIZE, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_PB_SIZE);
    copro_pkt_bin_blit(b, SRC, COPRO_BLIT_PITCH_MAX + 1, 0, 0, 1, 1);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_PRIM);
    /* too many tiles: 16384 x 16384 at 32 x 32 */
    copro_pkt_set_target(b, 1, TGT, 65536, 16384, 16384, COPRO_FMT_R8);
    copro_pkt_scene_begin(b, 1, 0, PB, PB_BIG, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_TILE_COUNT);

    /*
     * A geometry buffer without SCENE_END: its scene is dropped when it
     * retires, stays OPEN in memory, and nobody can add to it after
     */
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB, PB_BIG, 0);
    copro_pkt_bin_rect(b, 0, 0, 10, 10, 1);
    head = copro_buf_put(&c, BUF_G, b);
    g_array_set_size(b, 0);
    submit(&c, 0, BUF_G, head, 0x300, 0, SAVE0);
    run_ok(&c, 0, 0x300);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_TILER_SCENE), ==, 0);
    g_assert_cmpuint(le32_to_cpu(vram_r32(&c, PB + 4)), ==,
                     COPRO_SCENE_OPEN);
    copro_pkt_bin_rect(b, 0, 0, 1, 1, 0);
    expect_cause(&c, 0, b, COPRO_TILER_ERR_NO_SCENE);
    /* another context's scene is not refused because of it */
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB + 0x100000, PB_BIG, 0);
    copro_pkt_scene_end(b);
    head = copro_buf_put(&c, BUF_G, b);
    g_array_set_size(b, 0);
    {
        struct copro_submit_desc d = copro_desc(BUF_G, head, 0x301, 6, 0);

        d.save_addr = SAVE0;
        copro_submit_desc(&c, 0, &d);
    }
    run_ok(&c, 0, 0x301);
    /* a tile pass over the scene whose geometry did not finish */
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, TILES);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_NOT_CLOSED);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, COPRO_TILE_PARTIAL, PB, TILES);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_NOT_OOM);
    /* a halted engine keeps its scene until an engine reset drops it */
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB, PB_BIG, 0);
    copro_pkt_bin_blit(b, SRC, COPRO_BLIT_PITCH_MAX + 1, 0, 0, 1, 1);
    head = copro_buf_put(&c, BUF_G, b);
    g_array_set_size(b, 0);
    submit(&c, 0, BUF_G, head, 0x302, 0, SAVE0);
    g_assert_cmpuint(run_halt(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_TILER_SCENE), ==, PB);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_TILER_SCENE), ==, 0);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);

    /* a full parameter buffer with nowhere to save the geometry */
    pkt_target(b, TGT);
    copro_pkt_scene_begin(b, 1, 0, PB, copro_scene_heap_start(TILES) + 64, 0);
    copro_pkt_bin_rect(b, 0, 0, TGT_W, TGT_H, 1);
    head = copro_buf_put(&c, BUF_G, b);
    g_array_set_size(b, 0);
    submit(&c, 0, BUF_G, head, 0x303, 0, 0);
    g_assert_cmpuint(run_halt(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_TILER_CAUSE), ==,
                     COPRO_TILER_ERR_NO_SAVE);
    g_assert_false(rd64(&c, COPRO_REG_INT_STATUS) &
                   COPRO_INT_ENG(0, COPRO_INT_TILER_OOM));
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    wr64(&c, COPRO_REG_INT_STATUS, ~0ull);

    /* a closed scene, then its parameter buffer or the pass broken */
    closed_scene(&c);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, TILES + 1);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_TILE_COUNT);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, 0);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_TILE_COUNT);
    copro_pkt_set_target(b, 1, TGT, TGT_PITCH, TGT_W - 1, TGT_H,
                         COPRO_FMT_XRGB8888);
    copro_pkt_tile_render(b, 1, 0, PB, TILES);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_TARGET);

    head = tile0_head(&c);
    /* a bin head outside the heap */
    vram_w32(&c, PB + COPRO_SCENE_HDR_SIZE, 8);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, TILES);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_BIN_OUTSIDE);
    /* a bin list that loops */
    vram_w32(&c, PB + COPRO_SCENE_HDR_SIZE, head);
    {
        uint32_t next = vram_r32(&c, PB + head);
        uint32_t prim = vram_r32(&c, PB + head + 4);
        uint32_t kind = vram_r32(&c, PB + prim);

        vram_w32(&c, PB + head, head);
        pkt_target(b, TGT);
        copro_pkt_tile_render(b, 1, 0, PB, TILES);
        expect_cause(&c, 2, b, COPRO_TILER_ERR_BIN_OUTSIDE);
        vram_w32(&c, PB + head, next);
        /* a primitive of an unknown kind */
        vram_w32(&c, PB + prim, 7);
        pkt_target(b, TGT);
        copro_pkt_tile_render(b, 1, 0, PB, TILES);
        expect_cause(&c, 2, b, COPRO_TILER_ERR_PRIM);
        vram_w32(&c, PB + prim, kind);
    }
    /* header: magic, tile counts, sizes */
    vram_w32(&c, PB, 0x12345678);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, TILES);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_HEADER);
    vram_w32(&c, PB, COPRO_SCENE_MAGIC);
    vram_w32(&c, PB + offsetof(struct copro_scene, tiles_x), TILES_X + 1);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, TILES);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_TILE_COUNT);
    vram_w32(&c, PB + offsetof(struct copro_scene, tiles_x), TILES_X);
    vram_w32(&c, PB + offsetof(struct copro_scene, pb_size), 256);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, TILES);
    expect_cause(&c, 2, b, COPRO_TILER_ERR_PB_SIZE);
    vram_w32(&c, PB + offsetof(struct copro_scene, pb_size), PB_BIG);

    /* repaired, the scene renders as it should */
    fill_target(&c, TGT, BASE_COL);
    pkt_target(b, TGT);
    copro_pkt_tile_render(b, 1, 0, PB, TILES);
    head = copro_buf_put(&c, BUF_T, b);
    submit(&c, 2, BUF_T, head, 0x600, 0, SAVE2);
    run_ok(&c, 2, 0x600);
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    check_target(&c, want);
    g_assert_cmpuint(erd64(&c, 2, COPRO_ENG_STAT_FAULTS), >=, 10);
    copro_shutdown(&c);
}

/*
 * The parameter buffer is guest-writable memory: random words of a closed
 * scene's header, tile table and heap are overwritten, then the scene is
 * rendered (partial or final) and more geometry binned into it. Whatever
 * the damage, the engine completes or halts with a command error or a
 * memory fault, never anything else, and works again after a reset.
 */
static void test_pb_fuzz(void)
{
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    uint32_t used_end = copro_scene_heap_start(TILES) + 1024;
    GRand *r = g_rand_new_with_seed(1919);
    unsigned halted = 0, done = 0, geometry = 0;
    uint64_t fence = 0x700;
    Copro c;

    boot(&c, "");
    for (unsigned round = 0; round < 60; round++) {
        g_autoptr(GArray) b = copro_buf_new();
        unsigned mode = g_rand_int_range(r, 0, 3), e = mode < 2 ? 2 : 0;
        uint32_t len, kind;

        /* a closed scene (modes 0, 1) or one left open on engine 0 */
        pkt_target(b, TGT);
        copro_pkt_scene_begin(b, 1, COPRO_SCENE_CLEAR, PB, PB_BIG, 0);
        copro_pkt_bin_rect(b, 0, 0, 150, 100, 0x00ff0000);
        copro_pkt_bin_rect(b, 20, 10, 40, 40, 0x0000ff00);
        if (mode < 2) {
            copro_pkt_scene_end(b);
        } else {
            /* the rest of the scene once the test has done its damage */
            vram_w64(&c, FLAG, 0);
            copro_pkt_wait(b, FLAG, 1);
            copro_pkt_bin_rect(b, 100, 60, 300, 300, 0x000000ff);
            copro_pkt_bin_rect(b, 31, 31, 3, 3, 0x00abcdef);
            copro_pkt_scene_end(b);
        }
        len = copro_buf_put(&c, BUF_G, b);
        g_array_set_size(b, 0);
        submit(&c, 0, BUF_G, len, ++fence, 0, SAVE0);
        if (mode < 2) {
            run_ok(&c, 0, fence);
        } else {
            for (int i = 0; i < 1000 && erd32(&c, 0, COPRO_ENG_STATE) !=
                 COPRO_ENG_STATE_WAITING; i++) {
                qtest_clock_step(c.qts, 10000);
            }
            g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                             COPRO_ENG_STATE_WAITING);
        }

        for (unsigned k = g_rand_int_range(r, 1, 4); k; k--) {
            static const uint32_t vals[] = {
                0, 1, 4, 7, 8, 0x80, 0x88, 0xffffffff, 0x7ffffff8,
                COPRO_PB_MAX, COPRO_SCENE_OOM, COPRO_SCENE_OPEN,
            };
            uint32_t at = g_rand_int_range(r, 0, used_end / 4) * 4;
            uint32_t v = g_rand_boolean(r) ? g_rand_int(r) :
                         vals[g_rand_int_range(r, 0, G_N_ELEMENTS(vals))];

            vram_w32(&c, PB + at, v);
        }
        if (mode < 2) {
            pkt_target(b, TGT);
            copro_pkt_tile_render(b, 1, mode ? COPRO_TILE_PARTIAL : 0, PB,
                                  TILES);
            len = copro_buf_put(&c, BUF_T, b);
            submit(&c, e, BUF_T, len, ++fence, 0, SAVE2);
        } else {
            vram_w64(&c, FLAG, 1);
            geometry++;
        }
        for (int i = 0; i < 100000; i++) {
            if (erd64(&c, e, COPRO_ENG_COMPLETED_FENCE) == fence ||
                erd32(&c, e, COPRO_ENG_STATE) == COPRO_ENG_STATE_HALTED) {
                break;
            }
            qtest_clock_step(c.qts, 10000);
        }
        if (erd32(&c, e, COPRO_ENG_STATE) == COPRO_ENG_STATE_HALTED) {
            kind = erd32(&c, e, COPRO_ENG_FAULT_KIND);
            g_assert_true(kind == COPRO_FAULT_BAD_PACKET ||
                          !COPRO_FAULT_IS_ERROR(kind));
            halted++;
        } else {
            g_assert_cmpuint(erd64(&c, e, COPRO_ENG_COMPLETED_FENCE), ==,
                             fence);
            done++;
        }
        /* whatever happened, the engines start afresh */
        ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        ewr32(&c, 2, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    }
    g_test_message("60 rounds (%u binning into the damaged scene): %u "
                   "halted, %u completed", geometry, halted, done);
    g_assert_cmpuint(geometry, >, 0);
    g_assert_cmpuint(halted, >, 0);
    g_assert_cmpuint(done, >, 0);
    g_rand_free(r);

    /* the device still renders a good scene */
    fill_target(&c, TGT, BASE_COL);
    {
        uint32_t len = put_geometry(&c, COPRO_SCENE_CLEAR, PB_BIG,
                                    G_N_ELEMENTS(scene));

        submit(&c, 0, BUF_G, len, ++fence, 0, SAVE0);
        run_ok(&c, 0, fence);
        len = put_tiles(&c, BUF_T, 0);
        submit(&c, 2, BUF_T, len, ++fence, 0, SAVE2);
        run_ok(&c, 2, fence);
    }
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    check_target(&c, want);
    copro_shutdown(&c);
}

/*
 * Migration in the middle of a scene: with the geometry half done (the
 * scene open on engine 0) or in the middle of the tile pass (a tile
 * planned, its render step charged). The destination finishes the scene
 * with the pixels and header of an uninterrupted run.
 */
static void test_migrate(gconstpointer data)
{
    bool in_tiles = GPOINTER_TO_INT(data);
#define MIG_OPTS    "packet-ns=10000,tile-ns=20000"
    const char *opts = MIG_OPTS;
    const char *all_opts = OPTS "," MIG_OPTS;   /* as boot() gives them */
    g_autofree uint32_t *want = g_new(uint32_t, TGT_PITCH / 4 * TGT_H);
    struct copro_scene h, ref;
    uint32_t glen, tlen;
    Copro c, src, dst;

    /* reference */
    boot(&c, opts);
    fill_target(&c, TGT, BASE_COL);
    glen = put_geometry(&c, COPRO_SCENE_CLEAR, PB_BIG, G_N_ELEMENTS(scene));
    tlen = put_tiles(&c, BUF_T, 0);
    submit(&c, 0, BUF_G, glen, 1, 0, SAVE0);
    run_ok(&c, 0, 1);
    submit(&c, 2, BUF_T, tlen, 2, 0, SAVE2);
    run_ok(&c, 2, 2);
    scene_read(&c, &ref);
    copro_shutdown(&c);

    boot(&src, opts);
    fill_target(&src, TGT, BASE_COL);
    put_geometry(&src, COPRO_SCENE_CLEAR, PB_BIG, G_N_ELEMENTS(scene));
    put_tiles(&src, BUF_T, 0);
    submit(&src, 0, BUF_G, glen, 1, 0, SAVE0);
    if (in_tiles) {
        run_ok(&src, 0, 1);
        submit(&src, 2, BUF_T, tlen, 2, 0, SAVE2);
        copro_run_until_busy(&src, 2);
        qtest_clock_step(src.qts, 5 * 20000 + 15000);
        g_assert_cmpuint(rd64(&src, COPRO_REG_TILER_STAT_TILES), >, 0);
        g_assert_cmpuint(rd64(&src, COPRO_REG_TILER_STAT_TILES), <, TILES);
    } else {
        copro_run_until_busy(&src, 0);
        qtest_clock_step(src.qts, 45000);
        g_assert_cmphex(erd64(&src, 0, COPRO_ENG_TILER_SCENE), ==, PB);
    }
    copro_migrate_to(&src, &dst, machine, all_opts);
    if (in_tiles) {
        g_assert_cmpuint(erd32(&dst, 2, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_BUSY);
    } else {
        g_assert_cmphex(erd64(&dst, 0, COPRO_ENG_TILER_SCENE), ==, PB);
        run_ok(&dst, 0, 1);
        submit(&dst, 2, BUF_T, tlen, 2, 0, SAVE2);
    }
    run_ok(&dst, 2, 2);
    model(want, CLEAR_COL, G_N_ELEMENTS(scene));
    check_target(&dst, want);
    scene_read(&dst, &h);
    g_assert_cmpuint(h.state, ==, COPRO_SCENE_RENDERED);
    g_assert_cmpuint(h.prims, ==, ref.prims);
    g_assert_cmpuint(h.geom_start, ==, ref.geom_start);
    g_assert_cmpuint(h.geom_end, ==, ref.geom_end);
    if (in_tiles) {
        /* the same virtual times as the uninterrupted run */
        g_assert_cmpuint(h.tile_start, ==, ref.tile_start);
        g_assert_cmpuint(h.tile_end, ==, ref.tile_end);
    }
    copro_shutdown(&dst);
}

/* The stages on the timeline: geometry on engine 0, tiles on engine 2. */
static void test_timeline(void)
{
    static const char *const kinds[] = {
        "scene-begin", "scene-end", "tile-pass-start", "tile-pass-end",
    };
    static const int engines[] = { 0, 0, 2, 2 };
    const QListEntry *le;
    uint32_t glen, tlen;
    unsigned n = 0;
    int64_t last = -1;
    QDict *rsp;
    Copro c;

    boot(&c, "timeline=1000");
    glen = put_geometry(&c, COPRO_SCENE_CLEAR, PB_BIG, G_N_ELEMENTS(scene));
    tlen = put_tiles(&c, BUF_T, 0);
    submit(&c, 0, BUF_G, glen, 1, 0, SAVE0);
    run_ok(&c, 0, 1);
    submit(&c, 2, BUF_T, tlen, 2, 0, SAVE2);
    run_ok(&c, 2, 2);
    rsp = qtest_qmp(c.qts, "{ 'execute': 'x-copro-timeline', 'arguments': "
                    "{ 'kinds': [ 'scene-begin', 'scene-end', "
                    "'tile-pass-start', 'tile-pass-end' ] } }");
    QLIST_FOREACH_ENTRY(qdict_get_qlist(qdict_get_qdict(rsp, "return"),
                                        "events"), le) {
        QDict *ev = qobject_to(QDict, qlist_entry_obj(le));
        QDict *args = qdict_get_qdict(ev, "args");

        g_assert_cmpuint(n, <, G_N_ELEMENTS(kinds));
        g_assert_cmpstr(qdict_get_str(ev, "kind"), ==, kinds[n]);
        g_assert_cmpint(qdict_get_int(ev, "engine"), ==, engines[n]);
        g_assert_cmpuint(copro_qdict_u64(args, "scene"), ==, PB);
        g_assert_cmpint(qdict_get_int(ev, "time-ns"), >=, last);
        last = qdict_get_int(ev, "time-ns");
        n++;
    }
    g_assert_cmpuint(n, ==, G_N_ELEMENTS(kinds));
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/*
 * The bandwidth tiling saves: eight layers over the whole target drawn
 * immediately write every pixel eight times; binned, the parameter buffer
 * traffic and one store per tile are several times less. Pixels equal.
 */
static void test_bandwidth(void)
{
    g_autoptr(GArray) imm = copro_buf_new();
    g_autoptr(GArray) g = copro_buf_new();
    g_autofree uint32_t *a = NULL, *b = NULL;
    uint64_t imm_bytes, tiled_bytes;
    uint32_t len;
    Copro c;

    boot(&c, "");
    copro_pkt_set_target(imm, 0, IMM, TGT_PITCH, TGT_W, TGT_H,
                         COPRO_FMT_XRGB8888);
    pkt_target(g, TGT);
    copro_pkt_scene_begin(g, 1, 0, PB, PB_BIG, 0);
    for (unsigned i = 0; i < 8; i++) {
        copro_pkt_rect(imm, 0, i, i, TGT_W, TGT_H, 0x00100000 * i + 7);
        copro_pkt_bin_rect(g, i, i, TGT_W, TGT_H, 0x00100000 * i + 7);
    }
    copro_pkt_scene_end(g);
    len = copro_buf_put(&c, BUF_G, imm);
    submit(&c, 0, BUF_G, len, 1, 0, SAVE0);
    run_ok(&c, 0, 1);
    imm_bytes = erd64(&c, 0, COPRO_ENG_STAT_MEM_WRITE) +
                erd64(&c, 0, COPRO_ENG_STAT_MEM_READ);

    len = copro_buf_put(&c, BUF_G, g);
    submit(&c, 0, BUF_G, len, 2, 0, SAVE0);
    run_ok(&c, 0, 2);
    len = put_tiles(&c, BUF_T, 0);
    submit(&c, 2, BUF_T, len, 3, 0, SAVE2);
    run_ok(&c, 2, 3);
    tiled_bytes = erd64(&c, 0, COPRO_ENG_STAT_MEM_WRITE) +
                  erd64(&c, 0, COPRO_ENG_STAT_MEM_READ) - imm_bytes +
                  erd64(&c, 2, COPRO_ENG_STAT_MEM_WRITE) +
                  erd64(&c, 2, COPRO_ENG_STAT_MEM_READ);
    g_test_message("immediate %" PRIu64 " bytes, tiled %" PRIu64,
                   imm_bytes, tiled_bytes);
    g_assert_cmpuint(imm_bytes, ==, 8ull * (TGT_W - 0) * TGT_H * 4 -
                     4ull * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) *
                     (TGT_W + TGT_H) + 4ull * (0 + 1 + 4 + 9 + 16 + 25 +
                                                36 + 49));
    g_assert_cmpuint(tiled_bytes * 3, <=, imm_bytes);
    /* every tile loaded (no clear, layer 0 leaves a corner), stored once */
    g_assert_cmpuint(rd64(&c, COPRO_REG_TILER_STAT_STORES), ==, TILES);
    a = read_target(&c, IMM);
    b = read_target(&c, TGT);
    for (uint32_t y = 0; y < TGT_H; y++) {
        for (uint32_t x = 0; x < TGT_W; x++) {
            g_assert_cmphex(a[y * TGT_PITCH / 4 + x], ==,
                            b[y * TGT_PITCH / 4 + x]);
        }
    }
    copro_shutdown(&c);
}

/*
 * docs/specs/copro.rst, "Worked example", as it is written there: the
 * same addresses, dwords and register writes, and every value the text
 * says the device produces (answer A: grow; answer B: partial render).
 */
#define EX_TGT      0x00100000
#define EX_PB       0x00200000
#define EX_GEOM     0x00300000
#define EX_TILE     0x00310000
#define EX_PART     0x00320000
#define EX_SAVE     0x00330000
#define EX_RING0    0x00400000
#define EX_RING2    0x00401000
#define EX_RED      0x00ff0000
#define EX_BLUE     0x000000ff

static void ex_put(Copro *c, uint64_t at, const uint32_t *dw, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        vram_w32(c, at + 4 * i, dw[i]);
    }
}

/* wait for @bits in INT_STATUS, then clear them */
static void ex_irq(Copro *c, uint64_t bits)
{
    for (int i = 0; i < 100000; i++) {
        if ((rd64(c, COPRO_REG_INT_STATUS) & bits) == bits) {
            wr64(c, COPRO_REG_INT_STATUS, bits);
            return;
        }
        g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), !=,
                         COPRO_ENG_STATE_HALTED);
        g_assert_cmpuint(erd32(c, 2, COPRO_ENG_STATE), !=,
                         COPRO_ENG_STATE_HALTED);
        qtest_clock_step(c->qts, 10000);
    }
    g_assert_not_reached();
}

/* the example's header, host order (the fields the text names) */
static void ex_scene(Copro *c, struct copro_scene *h)
{
    vram_read(c, EX_PB, h, sizeof(*h));
    h->state = le32_to_cpu(h->state);
    h->used = le32_to_cpu(h->used);
    h->flags = le32_to_cpu(h->flags);
    h->oom_need = le32_to_cpu(h->oom_need);
    h->ooms = le32_to_cpu(h->ooms);
    h->partials = le32_to_cpu(h->partials);
    h->tile_start = le64_to_cpu(h->tile_start);
    h->tile_end = le64_to_cpu(h->tile_end);
}

static void ex_submit(Copro *c, unsigned e, uint64_t buf, uint32_t len,
                      uint64_t fence, uint32_t flags, uint64_t save)
{
    struct copro_submit_desc d = copro_desc(buf, len, fence, 1, flags);

    d.save_addr = save;
    copro_submit_desc(c, e, &d);
}

static void test_worked_example(gconstpointer data)
{
    bool partial = GPOINTER_TO_INT(data);
    static const uint32_t set_target[] = {
        0x00070007, EX_TGT, 0, 1024, 256, 192, 3,
    };
    static const uint32_t geom[] = {
        0x00070007, EX_TGT, 0, 1024, 256, 192, 3,
        0x0005040b, EX_PB, 0, 0x400, 0x00202020,
        0x0006000c, 0, 0, 256, 192, EX_RED,
        0x0006000c, 0, 96, 256, 96, EX_BLUE,
        0x0001000e,
    };
    uint32_t tile[11], part[11];
    struct copro_save_record r;
    struct copro_save_tiler st;
    struct copro_scene h;
    Copro c;

    G_STATIC_ASSERT(sizeof(geom) == 100);
    memcpy(tile, set_target, sizeof(set_target));
    tile[7] = 0x0004000f;
    tile[8] = EX_PB;
    tile[9] = 0;
    tile[10] = 48;
    memcpy(part, tile, sizeof(tile));
    part[7] = 0x0004040f;
    g_assert_cmphex(geom[7], ==, COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN,
                                               COPRO_SCENE_CLEAR, 5));
    g_assert_cmphex(part[7], ==, COPRO_PKT_HDR(COPRO_OP_TILE_RENDER,
                                               COPRO_TILE_PARTIAL, 4));

    copro_boot(&c, machine, "engines=3");
    g_assert_true(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_TILER);
    g_assert_cmpuint(rd32(&c, COPRO_REG_TILER_TILE_SIZE), ==, 32);
    ex_put(&c, EX_GEOM, geom, G_N_ELEMENTS(geom));
    ex_put(&c, EX_TILE, tile, G_N_ELEMENTS(tile));
    ex_put(&c, EX_PART, part, G_N_ELEMENTS(part));
    wr64(&c, 0x1000, EX_RING0);
    wr32(&c, 0x1008, 64);
    wr64(&c, 0x1200, EX_RING2);
    wr32(&c, 0x1208, 64);
    wr64(&c, 0x108, 0x00390079);

    /* geometry, stopped */
    ex_submit(&c, 0, EX_GEOM, 100, 1, 0, EX_SAVE);
    g_assert_cmpuint(rd32(&c, 0x1010), ==, 1);
    ex_irq(&c, 0x40);
    g_assert_cmpuint(rd64(&c, 0x10e0), ==, 1);
    g_assert_cmpuint(rd32(&c, 0x10dc), ==, 224);
    g_assert_cmpuint(rd64(&c, 0x1020), ==, 0);
    g_assert_cmpuint(rd32(&c, 0x1014), ==, 4);
    ex_scene(&c, &h);
    g_assert_cmpuint(h.state, ==, 2);
    g_assert_cmpuint(h.used, ==, 928);
    g_assert_cmpuint(h.oom_need, ==, 224);
    g_assert_cmpuint(h.ooms, ==, 1);
    vram_read(&c, EX_SAVE, &r, sizeof(r));
    memcpy(&st, r.reserved, sizeof(st));
    g_assert_cmphex(le32_to_cpu(r.offset), ==, 0x48);
    g_assert_cmpuint(le32_to_cpu(r.in_packet), ==, 0);
    g_assert_cmphex(le64_to_cpu(st.scene), ==, EX_PB);
    g_assert_cmpuint(le32_to_cpu(st.flags), ==, 3);
    wr32(&c, 0x1034, 0x20);
    g_assert_cmpuint(rd32(&c, 0x1014), ==, 0);

    if (!partial) {
        /* answer A: grow */
        vram_w32(&c, EX_PB + 8, 2048);
        ex_submit(&c, 0, EX_GEOM, 100, 1, COPRO_SUBMIT_RESUME, EX_SAVE);
        ex_irq(&c, 0x01);
        g_assert_cmpuint(rd64(&c, 0x1020), ==, 1);
        ex_scene(&c, &h);
        g_assert_cmpuint(h.state, ==, 3);
        g_assert_cmpuint(h.used, ==, 1152);
        ex_submit(&c, 2, EX_TILE, 44, 1, 0, EX_SAVE + 0x100);
        g_assert_cmpuint(rd32(&c, 0x1210), ==, 1);
        ex_irq(&c, 0x10000);
        g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_LOADS), ==, 0);
        g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_STORES), ==, 48);
        g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_TILE_BYTES), ==,
                         196608);
    } else {
        /* answer B: a partial render, with its own save area */
        ex_submit(&c, 2, EX_PART, 44, 1, 0, EX_SAVE + 0x200);
        g_assert_cmpuint(rd32(&c, 0x1210), ==, 1);
        ex_irq(&c, 0x10000);
        ex_scene(&c, &h);
        g_assert_cmpuint(h.state, ==, 1);
        g_assert_cmpuint(h.used, ==, 512);
        g_assert_cmpuint(h.flags, ==, 3);
        g_assert_cmpuint(h.partials, ==, 1);
        g_assert_cmpuint(rd64(&c, 0x1220), ==, 1);
        ex_submit(&c, 0, EX_GEOM, 100, 1, COPRO_SUBMIT_RESUME, EX_SAVE);
        ex_irq(&c, 0x01);
        ex_scene(&c, &h);
        g_assert_cmpuint(h.state, ==, 3);
        g_assert_cmpuint(h.used, ==, 736);
        ex_submit(&c, 2, EX_TILE, 44, 2, 0, EX_SAVE + 0x100);
        ex_irq(&c, 0x10000);
        g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_LOADS), ==, 0);
        g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_STORES), ==, 72);
        g_assert_cmpuint(tstat(&c, COPRO_REG_TILER_STAT_TILE_BYTES), ==,
                         294912);
    }
    ex_scene(&c, &h);
    g_assert_cmpuint(h.state, ==, 4);
    g_assert_cmpuint(h.tile_start, !=, 0);
    g_assert_cmpuint(h.tile_start, <, h.tile_end);
    for (uint32_t y = 0; y < 192; y++) {
        for (uint32_t x = 0; x < 256; x += 51) {
            g_assert_cmphex(vram_r32(&c, EX_TGT + y * 1024 + x * 4), ==,
                            y < 96 ? EX_RED : EX_BLUE);
        }
    }
    copro_shutdown(&c);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/copro/tiler/caps", test_caps);
    qtest_add_func("/copro/tiler/scene", test_scene);
    qtest_add_func("/copro/tiler/load", test_load);
    qtest_add_data_func("/copro/tiler/oom-grow", GINT_TO_POINTER(1),
                        test_oom);
    qtest_add_data_func("/copro/tiler/oom-partial", GINT_TO_POINTER(0),
                        test_oom);
    qtest_add_func("/copro/tiler/oom-hold", test_oom_hold);
    qtest_add_func("/copro/tiler/oom-hold/reset", test_oom_hold_reset);
    qtest_add_func("/copro/tiler/oom-hold/migrate", test_oom_hold_migrate);
    qtest_add_data_func("/copro/tiler/preempt-tile/command", "command",
                        test_preempt_tile);
    qtest_add_data_func("/copro/tiler/preempt-tile/mid-command",
                        "mid-command", test_preempt_tile);
    qtest_add_func("/copro/tiler/preempt-geometry", test_preempt_geometry);
    qtest_add_data_func("/copro/tiler/oom-preempt-pending/dma-buffer",
                        "dma-buffer", test_oom_preempt_pending);
    qtest_add_data_func("/copro/tiler/oom-preempt-pending/none", "none",
                        test_oom_preempt_pending);
    qtest_add_data_func("/copro/tiler/oom-preempt-pending/paging", "paging",
                        test_oom_preempt_pending);
    qtest_add_func("/copro/tiler/errors", test_errors);
    qtest_add_data_func("/copro/tiler/migrate/geometry", GINT_TO_POINTER(0),
                        test_migrate);
    qtest_add_data_func("/copro/tiler/migrate/tiles", GINT_TO_POINTER(1),
                        test_migrate);
    qtest_add_func("/copro/tiler/timeline", test_timeline);
    qtest_add_func("/copro/tiler/pb-fuzz", test_pb_fuzz);
    qtest_add_func("/copro/tiler/bandwidth", test_bandwidth);
    qtest_add_data_func("/copro/tiler/worked-example/grow",
                        GINT_TO_POINTER(0), test_worked_example);
    qtest_add_data_func("/copro/tiler/worked-example/partial",
                        GINT_TO_POINTER(1), test_worked_example);
    return g_test_run();
}
