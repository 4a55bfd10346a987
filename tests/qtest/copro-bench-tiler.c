/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro tiling benchmark (make bench): immediate against scene-based
 * rendering of the same frames, in the device's virtual time and its
 * byte counters (deterministic: one run says it all). Not a test: it
 * prints tables and asserts only that the runs worked.
 *
 * 1. Frames drawn immediately (RECT, and COPY row by row for blits) and as
 *    a scene (geometry on engine 0, tile pass on engine 2): bytes read and
 *    written in GPU memory, and modelled GPU time.
 * 2. The overdraw-heavy frame with parameter buffers from generous to
 *    tiny, each OOM answered by growing the buffer or by a partial render.
 * 3. How long a high-priority request waits for a busy engine
 *    (request-to-saved, the compositor's submit-to-start when the OS
 *    reacts at once): a long tile pass preempted between tiles, against
 *    immediate rendering of the same frame preempted mid-command (and at
 *    command granularity).
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "copro-qtest.h"

#define RING0       0x0000
#define RING2       0x1000
#define SAVE0       0x2000
#define SAVE2       0x2100
#define TS          0x3000
#define BUF_G       (1 * MiB)
#define BUF_T       (2 * MiB)
#define BUF_I       (3 * MiB)
#define BUF_C       (4 * MiB)       /* compositor / partial buffers */
#define TGT         (8 * MiB)
#define SRC         (24 * MiB)
#define SRC_PITCH   256
#define PB          (32 * MiB)
#define SAMPLES     200

typedef struct Prim {
    bool blit;
    uint32_t x, y, w, h, colour;
} Prim;

typedef struct Frame {
    const char *name;
    uint32_t w, h;
    bool clear;
    GArray *prims;
} Frame;

static uint32_t rng = 12345;

static uint32_t rnd(uint32_t n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) % n;
}

static void add(Frame *f, bool blit, uint32_t x, uint32_t y, uint32_t w,
                uint32_t h, uint32_t colour)
{
    Prim p = { blit, x, y, w, h, colour };

    g_array_append_val(f->prims, p);
}

/* A game frame: sky, five parallax layers over the whole screen, sprites. */
static Frame game_frame(uint32_t w, uint32_t h)
{
    Frame f = { "game (overdraw)", w, h, true,
                g_array_new(false, false, sizeof(Prim)) };

    add(&f, false, 0, 0, w, h, 0x00203040);
    for (unsigned l = 0; l < 5; l++) {
        add(&f, false, 0, l * h / 10, w, h - l * h / 10, 0x00101010 * l);
    }
    for (unsigned i = 0; i < 64; i++) {
        add(&f, false, rnd(w - 48), rnd(h - 48), 48, 48, 0x00ff0000 + i);
    }
    for (unsigned i = 0; i < 16; i++) {
        add(&f, true, rnd(w - 64), rnd(h - 64), 64, 64, 0);
    }
    return f;
}

/* A UI frame: a few widgets on what is already there (no clear). */
static Frame ui_frame(uint32_t w, uint32_t h)
{
    Frame f = { "ui (no overdraw)", w, h, false,
                g_array_new(false, false, sizeof(Prim)) };

    for (unsigned i = 0; i < 12; i++) {
        add(&f, false, 20 + (i % 4) * 150, 20 + (i / 4) * 40, 120, 24,
            0x00c0c0c0);
    }
    for (unsigned i = 0; i < 4; i++) {
        add(&f, true, 20 + i * 150, 200, 64, 64, 0);
    }
    return f;
}

static uint32_t tiles(Frame *f, uint32_t ts)
{
    return DIV_ROUND_UP(f->w, ts) * DIV_ROUND_UP(f->h, ts);
}

static void set_target(GArray *b, unsigned slot, Frame *f)
{
    copro_pkt_set_target(b, slot, TGT, f->w * 4, f->w, f->h,
                         COPRO_FMT_XRGB8888);
}

/* The frame as an immediate renderer draws it. */
static uint32_t put_immediate(Copro *c, Frame *f)
{
    g_autoptr(GArray) b = copro_buf_new();

    copro_pkt_timestamp(b, TS);
    set_target(b, 0, f);
    if (f->clear) {
        copro_pkt_rect(b, 0, 0, 0, f->w, f->h, 0);
    }
    for (guint i = 0; i < f->prims->len; i++) {
        Prim *p = &g_array_index(f->prims, Prim, i);

        if (!p->blit) {
            copro_pkt_rect(b, 0, p->x, p->y, p->w, p->h, p->colour);
            continue;
        }
        for (uint32_t y = 0; y < p->h; y++) {
            copro_pkt_copy(b, TGT + (uint64_t)(p->y + y) * f->w * 4 +
                           p->x * 4, SRC + y * SRC_PITCH, p->w * 4);
        }
    }
    copro_pkt_timestamp(b, TS + 8);
    return copro_buf_put(c, BUF_I, b);
}

static uint32_t put_geometry(Copro *c, Frame *f, uint32_t pb_size)
{
    g_autoptr(GArray) b = copro_buf_new();

    set_target(b, 1, f);
    copro_pkt_scene_begin(b, 1, f->clear ? COPRO_SCENE_CLEAR : 0, PB,
                          pb_size, 0);
    for (guint i = 0; i < f->prims->len; i++) {
        Prim *p = &g_array_index(f->prims, Prim, i);

        if (p->blit) {
            copro_pkt_bin_blit(b, SRC, SRC_PITCH, p->x, p->y, p->w, p->h);
        } else {
            copro_pkt_bin_rect(b, p->x, p->y, p->w, p->h, p->colour);
        }
    }
    copro_pkt_scene_end(b);
    return copro_buf_put(c, BUF_G, b);
}

static uint32_t put_tiles(Copro *c, uint64_t at, Frame *f, uint32_t flags,
                          uint32_t ts)
{
    g_autoptr(GArray) b = copro_buf_new();

    set_target(b, 1, f);
    copro_pkt_tile_render(b, 1, flags, PB, tiles(f, ts));
    return copro_buf_put(c, at, b);
}

static uint64_t fence_seq;

static void submit(Copro *c, unsigned e, uint64_t buf, uint32_t len,
                   uint32_t flags, uint64_t save)
{
    struct copro_submit_desc d = copro_desc(buf, len, ++fence_seq, 1,
                                            flags | COPRO_SUBMIT_NO_IRQ);

    d.save_addr = save;
    copro_submit_desc(c, e, &d);
}

/* Step virtual time until engine @e retired fence @fence or raised OOM. */
static bool run(Copro *c, unsigned e, uint64_t fence)
{
    for (;;) {
        g_assert_cmpuint(erd32(c, e, COPRO_ENG_STATE), !=,
                         COPRO_ENG_STATE_HALTED);
        if (erd64(c, e, COPRO_ENG_COMPLETED_FENCE) == fence) {
            return true;
        }
        if (rd64(c, COPRO_REG_INT_STATUS) &
            COPRO_INT_ENG(e, COPRO_INT_TILER_OOM)) {
            wr64(c, COPRO_REG_INT_STATUS, ~0ull);
            /* the engine holds until then: the caller resubmits */
            ewr32(c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
            return false;
        }
        qtest_clock_step(c->qts, 20000);
    }
}

typedef struct Cost {
    uint64_t read, write, busy_ns;
} Cost;

static Cost cost_now(Copro *c)
{
    Cost k = { 0 };

    for (unsigned e = 0; e < 3; e += 2) {
        k.read += erd64(c, e, COPRO_ENG_STAT_MEM_READ);
        k.write += erd64(c, e, COPRO_ENG_STAT_MEM_WRITE);
        k.busy_ns += erd64(c, e, COPRO_ENG_STAT_BUSY_NS);
    }
    return k;
}

static Cost cost_since(Copro *c, Cost a)
{
    Cost b = cost_now(c);

    return (Cost) { b.read - a.read, b.write - a.write,
                    b.busy_ns - a.busy_ns };
}

static void boot(Copro *c, const char *opts)
{
    g_autofree char *all = g_strdup_printf("engines=3,vram=128M%s%s",
                                           *opts ? "," : "", opts);

    copro_boot(c, "-M q35", all);
    copro_ring_setup(c, 0, RING0, 64);
    copro_ring_setup(c, 2, RING2, 64);
}

static Cost immediate(Copro *c, Frame *f)
{
    Cost k = cost_now(c);

    submit(c, 0, BUF_I, put_immediate(c, f), 0, SAVE0);
    g_assert_true(run(c, 0, fence_seq));
    return cost_since(c, k);
}

typedef struct SceneRun {
    Cost cost;
    unsigned ooms, partials, grows;
} SceneRun;

/*
 * The frame as a scene with a parameter buffer of @pb_size bytes; each
 * OOM answered by a grow of @grow bytes, or (0) by a partial render.
 */
static SceneRun scene(Copro *c, Frame *f, uint32_t pb_size, uint32_t grow,
                      uint32_t ts)
{
    SceneRun r = { .cost = cost_now(c) };
    uint32_t glen = put_geometry(c, f, pb_size), flags = 0;
    uint64_t gfence;

    for (;;) {
        submit(c, 0, BUF_G, glen, flags, SAVE0);
        gfence = fence_seq;
        if (run(c, 0, gfence)) {
            break;
        }
        r.ooms++;
        flags = COPRO_SUBMIT_RESUME;
        if (grow) {
            uint32_t size = le32_to_cpu(vram_r32(c, PB + 8));

            vram_w32(c, PB + 8, cpu_to_le32(size + grow));
            r.grows++;
        } else {
            submit(c, 2, BUF_C, put_tiles(c, BUF_C, f, COPRO_TILE_PARTIAL,
                                          ts), 0, SAVE2);
            g_assert_true(run(c, 2, fence_seq));
            r.partials++;
        }
    }
    submit(c, 2, BUF_T, put_tiles(c, BUF_T, f, 0, ts), 0, SAVE2);
    g_assert_true(run(c, 2, fence_seq));
    r.cost = cost_since(c, r.cost);
    return r;
}

static void fill_src(Copro *c)
{
    g_autofree uint32_t *src = g_new(uint32_t, SRC_PITCH / 4 * 64);

    for (uint32_t i = 0; i < SRC_PITCH / 4 * 64; i++) {
        src[i] = cpu_to_le32(i * 2654435761u);
    }
    vram_write(c, SRC, src, SRC_PITCH * 64);
}

static void bench_frames(void)
{
    Frame frames[] = { game_frame(640, 480), ui_frame(640, 480) };
    Copro c;

    printf("frame              mode         read B    written B   total B  "
           "  GPU us  bytes ratio\n");
    for (unsigned i = 0; i < G_N_ELEMENTS(frames); i++) {
        Frame *f = &frames[i];
        Cost im;
        SceneRun sc;
        uint64_t ti, ts;

        boot(&c, "");
        fill_src(&c);
        im = immediate(&c, f);
        sc = scene(&c, f, 4 * MiB, 0, 32);
        ti = im.read + im.write;
        ts = sc.cost.read + sc.cost.write;

        printf("%-18s immediate %10" PRIu64 " %10" PRIu64 " %10" PRIu64
               " %8.1f\n", f->name, im.read, im.write, ti,
               im.busy_ns / 1e3);
        printf("%-18s scene     %10" PRIu64 " %10" PRIu64 " %10" PRIu64
               " %8.1f  %5.2fx fewer\n", f->name, sc.cost.read,
               sc.cost.write, ts, sc.cost.busy_ns / 1e3, (double)ti / ts);
        printf("%-18s   (parameter buffer: %" PRIu64 " B written, %" PRIu64
               " B read; tiles loaded %" PRIu64 ", stored %" PRIu64 ")\n",
               "", rd64(&c, COPRO_REG_TILER_STAT_PB_WRITE),
               rd64(&c, COPRO_REG_TILER_STAT_PB_READ),
               rd64(&c, COPRO_REG_TILER_STAT_LOADS),
               rd64(&c, COPRO_REG_TILER_STAT_STORES));
        g_array_free(f->prims, true);
        copro_shutdown(&c);
    }
}

static void bench_pb_sizes(void)
{
    Frame f = game_frame(640, 480);
    uint32_t heap0 = copro_scene_heap_start(tiles(&f, 32));
    uint32_t need = 0, min = heap0 + COPRO_PRIM_NEED(tiles(&f, 32));
    Copro c;

    boot(&c, "");
    fill_src(&c);
    /* what the whole frame needs: a generous run tells */
    scene(&c, &f, 4 * MiB, 0, 32);
    need = le32_to_cpu(vram_r32(&c, PB + 12));
    printf("parameter buffer (frame needs %u B)  answer   OOMs partial "
           "grows  GPU us   bytes moved\n", need);
    /* the whole heap, a half, a quarter, an eighth, one primitive's */
    for (unsigned div = 1; div <= 16; div *= 2) {
        uint32_t size = div == 16 ? min
                                  : MAX(heap0 + (need - heap0) / div, min);

        for (unsigned grow = 0; grow < 2; grow++) {
            SceneRun r = scene(&c, &f, size, grow ? size - heap0 : 0, 32);

            printf("%10u B (%-4s of the heap)        %-8s %4u %7u %5u "
                   "%7.1f %12" PRIu64 "\n", size,
                   div == 16 ? "min" : div == 1 ? "all" :
                   div == 2 ? "1/2" : div == 4 ? "1/4" : "1/8",
                   grow ? "grow" : "partial", r.ooms, r.partials, r.grows,
                   r.cost.busy_ns / 1e3, r.cost.read + r.cost.write);
        }
    }
    g_array_free(f.prims, true);
    copro_shutdown(&c);
}

typedef struct Lat {
    uint64_t v[SAMPLES];
} Lat;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * Preempt @e at SAMPLES pseudo-random points of the work @start submits
 * (which lasts about @dur_ns), the request-to-saved latency each time.
 */
static void latencies(Copro *c, unsigned e, uint64_t dur_ns,
                      void (*start)(Copro *c), const char *label)
{
    Lat l;

    for (unsigned i = 0; i < SAMPLES; i++) {
        uint64_t sum = erd64(c, e, COPRO_ENG_STAT_PREEMPT_SUM);

        start(c);
        qtest_clock_step(c->qts, 1000 + rnd(dur_ns * 8 / 10));
        ewr64(c, e, COPRO_ENG_PREEMPT_REQ, 0x1000 + i);
        while (!(rd64(c, COPRO_REG_INT_STATUS) &
                 COPRO_INT_ENG(e, COPRO_INT_PREEMPTED))) {
            qtest_clock_step(c->qts, 10000);
        }
        g_assert_cmpuint(erd64(c, e, COPRO_ENG_PREEMPTED_FENCE), ==,
                         fence_seq);
        l.v[i] = erd64(c, e, COPRO_ENG_STAT_PREEMPT_SUM) - sum;
        ewr32(c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        wr64(c, COPRO_REG_INT_STATUS, ~0ull);
    }
    qsort(l.v, SAMPLES, sizeof(l.v[0]), cmp_u64);
    printf("%-44s %8.1f %8.1f %8.1f\n", label, l.v[SAMPLES / 2] / 1e3,
           l.v[SAMPLES * 99 / 100] / 1e3, l.v[SAMPLES - 1] / 1e3);
}

static Frame big;
static uint32_t big_ilen, big_tlen;

static void start_tiles(Copro *c)
{
    /* the scene is closed once; each sample renders it again */
    vram_w32(c, PB + 4, cpu_to_le32(COPRO_SCENE_CLOSED));
    submit(c, 2, BUF_T, big_tlen, 0, SAVE2);
}

static void start_immediate(Copro *c)
{
    submit(c, 0, BUF_I, big_ilen, 0, SAVE0);
}

static void bench_latency(void)
{
    const char *modes[] = { "mid-command", "command" };
    uint64_t tile_ns, imm_ns;
    Copro c;

    big = game_frame(2048, 1536);
    printf("request on a busy engine, request-to-saved us "
           "(ctx-state-size=0)   p50      p99      max\n");
    for (unsigned m = 0; m < G_N_ELEMENTS(modes); m++) {
        g_autofree char *opts = g_strdup_printf("preempt=%s,"
                                                "ctx-state-size=0",
                                                modes[m]);
        g_autofree char *label = NULL;
        Cost k;

        boot(&c, opts);
        fill_src(&c);
        scene(&c, &big, 16 * MiB, 0, 32);
        big_tlen = put_tiles(&c, BUF_T, &big, 0, 32);
        big_ilen = put_immediate(&c, &big);
        k = cost_now(&c);
        vram_w32(&c, PB + 4, cpu_to_le32(COPRO_SCENE_CLOSED));
        submit(&c, 2, BUF_T, big_tlen, 0, SAVE2);
        g_assert_true(run(&c, 2, fence_seq));
        tile_ns = cost_since(&c, k).busy_ns;
        imm_ns = immediate(&c, &big).busy_ns;
        label = g_strdup_printf("tile pass (%.0f us), between tiles, %s",
                                tile_ns / 1e3, modes[m]);
        latencies(&c, 2, tile_ns, start_tiles, label);
        g_free(label);
        label = g_strdup_printf("immediate (%.0f us), %s", imm_ns / 1e3,
                                modes[m]);
        latencies(&c, 0, imm_ns, start_immediate, label);
        copro_shutdown(&c);
    }
    g_array_free(big.prims, true);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/copro/bench/tiler/frames", bench_frames);
    qtest_add_func("/copro/bench/tiler/pb-sizes", bench_pb_sizes);
    qtest_add_func("/copro/bench/tiler/latency", bench_latency);
    return g_test_run();
}
