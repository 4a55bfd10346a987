/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's command processor: rings, packets, fences, faults,
 * interrupts per engine and the modelled time.
 *
 * Virtual time under -accel qtest moves only when the test steps it, so
 * every time below is exact: t0 is the device clock when the doorbell was
 * rung, and the engine starts at t0 (its bottom half runs before the next
 * qtest command is processed).
 *
 * One program past a thousand lines, as each of the device's qtests is:
 * one chapter of docs/specs/copro.rst, each of its rules a case of its
 * own over one harness (copro-qtest.h). Split, a chapter's rules would
 * be read in two places.
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "copro-qtest.h"

/* VRAM layout (GPU addresses) */
#define RING0       0x0000ull       /* engine 0 ring */
#define RING1       0x1000ull       /* engine 1 ring */
#define RING2       0x2000ull       /* engine 2 ring (engines=3) */
#define RING_N      16              /* entries per ring */
#define SCR         0x4000ull       /* fences, timestamps, write-back */
#define BUF0        0x10000ull      /* engine 0 DMA buffers */
#define BUF1        0x40000ull      /* engine 1 DMA buffers */
#define BUF2        0x70000ull      /* engine 2 DMA buffers */
#define DATA        0x100000ull     /* COPY/FILL/RECT data */
#define VRAM        ((uint64_t)COPRO_VRAM_DEFAULT)

/* the default cost model */
#define PACKET_NS   100
#define COPY_BW     (8 * GiB)
#define FILL_BW     (16 * GiB)
#define PIXEL_RATE  4000000000ull
#define CHUNK       (64 * KiB)
#define POLL_NS     20000           /* WAIT re-check period */
#define NS_PER_SEC  1000000000ull

#define ENG_BUF(e)  ((e) ? BUF1 : BUF0)
#define ENG_RING(e) ((e) ? RING1 : RING0)

typedef struct CostModel {
    uint64_t packet_ns;
    uint64_t copy_bw;
    uint64_t fill_bw;
    uint64_t pixel_rate;
} CostModel;

/* Boot q35 with a copro configured by @devopts; both engines get a ring. */
static void cmd_boot(Copro *c, const char *devopts)
{
    copro_boot(c, "-M q35", devopts);
    copro_ring_setup(c, 0, RING0, RING_N);
    copro_ring_setup(c, 1, RING1, RING_N);
}

/* Upload @b as engine @e's buffer at @addr and submit it; returns t0. */
static int64_t run_buf(Copro *c, unsigned e, uint64_t addr, GArray *b,
                       uint64_t fence, uint32_t context, uint32_t flags)
{
    uint32_t len = copro_buf_put(c, addr, b);

    copro_submit(c, e, addr, len, fence, context, flags);
    return copro_time(c);
}

/* ns to move @bytes at @bw bytes/s in 64 KiB chunks, rounded per chunk */
static uint64_t chunked_ns(uint64_t bytes, uint64_t bw)
{
    uint64_t ns = 0;

    while (bytes) {
        uint64_t n = MIN(bytes, CHUNK);

        ns += n * NS_PER_SEC / bw;
        bytes -= n;
    }
    return ns;
}

/*
 * Bytes a chunked transfer of @bytes at @bw has written @at ns after its
 * packet started: a chunk lands when the engine clock reaches its end.
 */
static uint64_t chunked_done(uint64_t bytes, uint64_t bw, uint64_t packet_ns,
                             uint64_t at)
{
    uint64_t t = packet_ns, done = 0;

    while (done < bytes) {
        uint64_t n = MIN(bytes - done, CHUNK);

        t += n * NS_PER_SEC / bw;
        if (t > at) {
            break;
        }
        done += n;
    }
    return done;
}

/* ns to fill a (clipped) w x h rectangle in bands of up to 64 KiB */
static uint64_t rect_ns(uint32_t w, uint32_t h, uint32_t bpp,
                        uint64_t pixel_rate)
{
    uint32_t band = w ? MAX(CHUNK / (w * bpp), 1) : h;
    uint64_t ns = 0;

    while (h) {
        uint32_t rows = MIN(band, h);

        ns += (uint64_t)rows * w * NS_PER_SEC / pixel_rate;
        h -= rows;
    }
    return ns;
}

/* Deterministic pseudo-random bytes (xorshift32). */
static void fill_random(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed | 1;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = x;
    }
}

static void vram_fill(Copro *c, uint64_t addr, uint8_t byte, size_t len)
{
    g_autofree uint8_t *p = g_malloc(len);

    memset(p, byte, len);
    vram_write(c, addr, p, len);
}

/* Compare VRAM [addr, addr + len) with @expect, reporting the first diff. */
static void vram_assert(Copro *c, uint64_t addr, const uint8_t *expect,
                        size_t len)
{
    g_autofree uint8_t *got = g_malloc(len);

    vram_read(c, addr, got, len);
    for (size_t i = 0; i < len; i++) {
        if (got[i] != expect[i]) {
            g_test_message("VRAM 0x%" PRIx64 ": 0x%02x, expected 0x%02x",
                           addr + i, got[i], expect[i]);
            g_assert_cmphex(got[i], ==, expect[i]);
        }
    }
}

static uint64_t int_status(Copro *c)
{
    return rd64(c, COPRO_REG_INT_STATUS);
}

static void int_ack_all(Copro *c)
{
    wr64(c, COPRO_REG_INT_STATUS, ~0ull);
    g_assert_cmphex(int_status(c), ==, 0);
}

static void assert_idle(Copro *c, unsigned e)
{
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_RING_HEAD), ==,
                     erd32(c, e, COPRO_ENG_RING_TAIL));
    g_assert_cmphex(erd64(c, e, COPRO_ENG_CURRENT_FENCE), ==, 0);
    g_assert_cmphex(erd32(c, e, COPRO_ENG_CURRENT_CONTEXT), ==, 0);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_NONE);
}

/*
 * Packets
 */

/*
 * NOPs of any length are skipped without decoding their payload; each
 * costs packet-ns, and the FENCE after them executes at exactly t0 + 4 *
 * packet-ns, not earlier.
 */
static void test_nop(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_nop(b, 1, 0);
    copro_pkt_nop(b, 2, 0xffffffff);
    /* the payload looks like an illegal packet: it must not be decoded */
    copro_pkt_nop(b, 7, COPRO_PKT_HDR(0xee, 0, 1));
    copro_pkt_fence(b, SCR, 0x1234, 0);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);

    copro_clock_to(&c, t0 + 4 * PACKET_NS - 1);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_BUSY);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_CURRENT_FENCE), ==, 1);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, 3);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);

    copro_clock_to(&c, t0 + 4 * PACKET_NS);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x1234);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    assert_idle(&c, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, 4);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_SUBMISSIONS), ==, 1);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==,
                     4 * PACKET_NS);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BYTES), ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_FAULTS), ==, 0);
    copro_shutdown(&c);
}

/*
 * TIMESTAMP writes the engine clock (u64) at the end of its step, and only
 * those 8 bytes.
 */
static void test_timestamp(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    uint8_t expect[64];
    uint64_t v;
    int64_t t0;

    cmd_boot(&c, "");
    qtest_clock_step(c.qts, 12345);     /* start at an arbitrary time */
    vram_fill(&c, SCR, 0xee, sizeof(expect));
    copro_pkt_timestamp(b, SCR + 8);
    copro_pkt_timestamp(b, SCR + 20);   /* unaligned is fine */
    copro_pkt_nop(b, 1, 0);
    copro_pkt_timestamp(b, SCR + 40);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);

    copro_clock_to(&c, t0 + 4 * PACKET_NS);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    memset(expect, 0xee, sizeof(expect));
    v = cpu_to_le64(t0 + PACKET_NS);
    memcpy(expect + 8, &v, 8);
    v = cpu_to_le64(t0 + 2 * PACKET_NS);
    memcpy(expect + 20, &v, 8);
    v = cpu_to_le64(t0 + 4 * PACKET_NS);
    memcpy(expect + 40, &v, 8);
    vram_assert(&c, SCR, expect, sizeof(expect));
    copro_shutdown(&c);
}

/*
 * INTERRUPT raises the engine's USER cause when it executes and latches
 * its payload in USER_DATA (the last one wins), per engine: engine 2 (a
 * render engine with engines=3; the copy engine has no INTERRUPT) raises
 * its own byte of INT_STATUS and has its own USER_DATA.
 */
static void test_interrupt(void)
{
    Copro c;
    g_autoptr(GArray) b0 = copro_buf_new();
    g_autoptr(GArray) b2 = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "engines=3");
    copro_ring_setup(&c, 2, RING2, RING_N);
    copro_pkt_interrupt(b0, 0xa5a5);
    copro_pkt_interrupt(b0, 0x5a5a0001);
    copro_pkt_work(b2, 1000);
    copro_pkt_interrupt(b2, 0x77);
    copro_buf_put(&c, BUF2, b2);
    copro_submit(&c, 2, BUF2, copro_buf_bytes(b2), 1, 0, 0);
    t0 = run_buf(&c, 0, BUF0, b0, 1, 0, 0);

    copro_clock_to(&c, t0 + PACKET_NS - 1);
    g_assert_cmphex(int_status(&c), ==, 0);
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_USER_DATA), ==, 0);

    copro_clock_to(&c, t0 + PACKET_NS);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(0, COPRO_INT_USER));
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_USER_DATA), ==, 0xa5a5);
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_ENG(0, COPRO_INT_USER));

    copro_clock_to(&c, t0 + 2 * PACKET_NS);
    g_assert_cmphex(int_status(&c), ==,
                    COPRO_INT_ENG(0, COPRO_INT_USER | COPRO_INT_DMA_DONE));
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_USER_DATA), ==, 0x5a5a0001);
    g_assert_cmphex(erd32(&c, 2, COPRO_ENG_USER_DATA), ==, 0);

    copro_clock_to(&c, t0 + 2 * PACKET_NS + 1000);
    g_assert_cmphex(int_status(&c), ==,
                    COPRO_INT_ENG(0, COPRO_INT_USER | COPRO_INT_DMA_DONE) |
                    COPRO_INT_ENG(2, COPRO_INT_USER | COPRO_INT_DMA_DONE));
    g_assert_cmphex(erd32(&c, 2, COPRO_ENG_USER_DATA), ==, 0x77);
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_USER_DATA), ==, 0x5a5a0001);
    g_assert_cmphex(erd32(&c, 1, COPRO_ENG_USER_DATA), ==, 0);
    copro_shutdown(&c);
}

/*
 * FENCE writes its 64-bit value (and nothing else) when it executes; the
 * FENCE cause is raised only with the IRQ flag.
 */
static void test_fence(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) b1 = copro_buf_new();
    uint8_t expect[32];
    uint64_t v;
    int64_t t0;

    cmd_boot(&c, "");
    vram_fill(&c, SCR, 0xee, sizeof(expect));
    memset(expect, 0xee, sizeof(expect));
    copro_pkt_fence(b, SCR + 4, 0x1122334455667788ull, 0);
    copro_pkt_work(b, 1000);
    copro_pkt_fence(b, SCR + 16, 0xfedcba9876543210ull, COPRO_FENCE_IRQ);
    copro_pkt_nop(b, 1, 0);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);

    copro_clock_to(&c, t0 + PACKET_NS);
    v = cpu_to_le64(0x1122334455667788ull);
    memcpy(expect + 4, &v, 8);
    vram_assert(&c, SCR, expect, sizeof(expect));
    g_assert_cmphex(int_status(&c), ==, 0);

    copro_clock_to(&c, t0 + 3 * PACKET_NS + 1000 - 1);
    vram_assert(&c, SCR, expect, sizeof(expect));
    g_assert_cmphex(int_status(&c), ==, 0);

    copro_clock_to(&c, t0 + 3 * PACKET_NS + 1000);
    v = cpu_to_le64(0xfedcba9876543210ull);
    memcpy(expect + 16, &v, 8);
    vram_assert(&c, SCR, expect, sizeof(expect));
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(0, COPRO_INT_FENCE));

    copro_clock_to(&c, t0 + 4 * PACKET_NS + 1000);
    g_assert_cmphex(int_status(&c), ==,
                    COPRO_INT_ENG(0, COPRO_INT_FENCE | COPRO_INT_DMA_DONE));

    /* engine 1's FENCE cause is engine 1's bit */
    int_ack_all(&c);
    copro_pkt_fence(b1, SCR + 0x40, 7, COPRO_FENCE_IRQ);
    t0 = run_buf(&c, 1, BUF1, b1, 1, 0, COPRO_SUBMIT_NO_IRQ);
    copro_clock_to(&c, t0 + PACKET_NS);
    g_assert_cmphex(vram_r64(&c, SCR + 0x40), ==, 7);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(1, COPRO_INT_FENCE));
    copro_shutdown(&c);
}

/*
 * A WAIT whose condition already holds costs packet-ns and never blocks;
 * the comparison is unsigned 64-bit.
 */
static void test_wait_satisfied(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "");
    vram_w64(&c, SCR, 5);
    vram_w64(&c, SCR + 8, 0x8000000000000000ull);
    copro_pkt_wait(b, SCR, 5);
    copro_pkt_wait(b, SCR, 4);
    copro_pkt_wait(b, SCR + 8, 0x7fffffffffffffffull);
    copro_pkt_timestamp(b, SCR + 16);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);

    copro_clock_to(&c, t0 + 3 * PACKET_NS);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_BUSY);
    copro_clock_to(&c, t0 + 4 * PACKET_NS);
    g_assert_cmpuint(vram_r64(&c, SCR + 16), ==, t0 + 4 * PACKET_NS);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==,
                     4 * PACKET_NS);
    assert_idle(&c, 0);
    copro_shutdown(&c);
}

typedef struct CopyCase {
    uint64_t dst, src, size;
} CopyCase;

/*
 * COPY of odd sizes and alignments (0 to 3 chunks plus a tail) copies
 * exactly size bytes, byte for byte; guards around stay untouched. The
 * buffer retires at exactly the modelled time.
 */
static void test_copy(void)
{
    static const CopyCase cases[] = {
        { DATA + 0x000000, DATA + 0x800000, 0 },
        { DATA + 0x001001, DATA + 0x801000, 1 },
        { DATA + 0x002002, DATA + 0x802001, 3 },
        { DATA + 0x003000, DATA + 0x803000, 4 },
        { DATA + 0x004003, DATA + 0x804002, 5 },
        { DATA + 0x010001, DATA + 0x810003, 4097 },
        { DATA + 0x020000, DATA + 0x820000, CHUNK },
        { DATA + 0x040002, DATA + 0x840001, CHUNK + 1 },
        { DATA + 0x080003, DATA + 0x880000, 3 * CHUNK + 3 },
    };
    const size_t guard = 16;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    uint64_t total = 0, bytes = 0;
    int64_t t0;

    cmd_boot(&c, "");
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const CopyCase *k = &cases[i];
        g_autofree uint8_t *src = g_malloc(k->size + 1);

        fill_random(src, k->size + 1, i + 1);
        vram_write(&c, k->src, src, k->size + 1);
        vram_fill(&c, k->dst - guard, 0xcc, k->size + 2 * guard);
        copro_pkt_copy(b, k->dst, k->src, k->size);
        total += PACKET_NS + chunked_ns(k->size, COPY_BW);
        bytes += k->size;
    }
    t0 = run_buf(&c, 0, BUF0, b, 9, 0, 0);

    copro_clock_to(&c, t0 + total - 1);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    copro_clock_to(&c, t0 + total);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 9);
    assert_idle(&c, 0);

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const CopyCase *k = &cases[i];
        size_t n = k->size + 2 * guard;
        g_autofree uint8_t *expect = g_malloc(n);

        memset(expect, 0xcc, n);
        fill_random(expect + guard, k->size, i + 1);
        vram_assert(&c, k->dst - guard, expect, n);
    }
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BYTES), ==, bytes);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, total);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==,
                     G_N_ELEMENTS(cases));
    copro_shutdown(&c);
}

typedef struct CopyLarge {
    const char *name;
    const char *devopts;
    CostModel m;
} CopyLarge;

static const CopyLarge copy_large_cases[] = {
    { "default", "", { PACKET_NS, COPY_BW, FILL_BW, PIXEL_RATE } },
    { "1GBps", "packet-ns=250,copy-bw=1000000000",
      { 250, 1000000000, FILL_BW, PIXEL_RATE } },
    { "3GBps", "copy-bw=3000000000",
      { PACKET_NS, 3000000000ull, FILL_BW, PIXEL_RATE } },
};

/*
 * A 1 MiB + 3 byte COPY runs in 17 chunks: it retires at exactly t0 +
 * packet-ns + the per-chunk costs rounded down (16 x 7629 ns at the
 * default 8 GiB/s), not 1 ns earlier; the data arrives byte for byte.
 */
static void test_copy_large(const void *data)
{
    const CopyLarge *k = data;
    const uint64_t size = MiB + 3;
    const uint64_t src = DATA, dst = DATA + 2 * MiB + 1;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *buf = g_malloc(size + 2);
    uint64_t cost = k->m.packet_ns + chunked_ns(size, k->m.copy_bw);
    int64_t t0;

    if (!*k->devopts) {
        g_assert_cmpuint(cost, ==, 100 + 16 * 7629);
    }
    cmd_boot(&c, k->devopts);
    fill_random(buf, size, 0x1234);
    vram_write(&c, src, buf, size);
    vram_fill(&c, dst - 1, 0x5c, size + 2);
    copro_pkt_copy(b, dst, src, size);
    copro_pkt_timestamp(b, SCR);
    t0 = run_buf(&c, 1, BUF1, b, 3, 0, 0);

    copro_clock_to(&c, t0 + cost / 2);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BYTES), ==,
                     chunked_done(size, k->m.copy_bw, k->m.packet_ns,
                                  cost / 2));
    copro_clock_to(&c, t0 + cost - 1);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BYTES), ==,
                     chunked_done(size, k->m.copy_bw, k->m.packet_ns,
                                  cost - 1));
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BYTES), <, size);
    copro_clock_to(&c, t0 + cost);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BYTES), ==, size);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    copro_clock_to(&c, t0 + cost + k->m.packet_ns);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 3);
    g_assert_cmpuint(vram_r64(&c, SCR), ==, t0 + cost + k->m.packet_ns);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BUSY_NS), ==,
                     cost + k->m.packet_ns);

    memmove(buf + 1, buf, size);
    buf[0] = 0x5c;
    buf[size + 1] = 0x5c;
    vram_assert(&c, dst - 1, buf, size + 2);
    copro_shutdown(&c);
}

/*
 * Overlapping COPY ranges copy forward in 64 KiB chunks (docs): each chunk
 * reads the source as earlier chunks left it.
 */
static void test_copy_overlap(void)
{
    const uint64_t size = 3 * CHUNK + 100, shift = 16;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *mem = g_malloc(size + shift);
    g_autofree uint8_t *tmp = g_malloc(CHUNK);

    cmd_boot(&c, "timing=instant");
    fill_random(mem, size + shift, 77);
    vram_write(&c, DATA, mem, size + shift);
    copro_pkt_copy(b, DATA + shift, DATA, size);
    run_buf(&c, 0, BUF0, b, 1, 0, 0);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);

    for (uint64_t done = 0; done < size; done += CHUNK) {
        uint64_t n = MIN(size - done, CHUNK);

        memcpy(tmp, mem + done, n);
        memcpy(mem + shift + done, tmp, n);
    }
    vram_assert(&c, DATA, mem, size + shift);
    copro_shutdown(&c);
}

typedef struct FillCase {
    uint64_t dst, size;
    uint32_t pattern;
} FillCase;

/*
 * FILL repeats its 4-byte pattern (little-endian) over size bytes at any
 * alignment, in 64 KiB chunks at fill-bw.
 */
static void test_fill(void)
{
    static const FillCase cases[] = {
        { DATA + 0x00001, 0, 0x11111111 },
        { DATA + 0x00101, 4, 0x44332211 },
        { DATA + 0x00203, 12, 0xa0b0c0d0 },
        { DATA + 0x10002, 200 * KiB, 0x01020304 },
    };
    const size_t guard = 8;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    uint64_t total = 0, bytes = 0;
    int64_t t0;

    g_assert_cmpuint(chunked_ns(200 * KiB, FILL_BW), ==, 3 * 3814 + 476);
    cmd_boot(&c, "");
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        vram_fill(&c, cases[i].dst - guard, 0xcc,
                  cases[i].size + 2 * guard);
        copro_pkt_fill(b, cases[i].dst, cases[i].size, cases[i].pattern);
        total += PACKET_NS + chunked_ns(cases[i].size, FILL_BW);
        bytes += cases[i].size;
    }
    copro_pkt_timestamp(b, SCR);
    total += PACKET_NS;
    t0 = run_buf(&c, 0, BUF0, b, 5, 0, 0);

    copro_clock_to(&c, t0 + total - 1);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    copro_clock_to(&c, t0 + total);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 5);
    g_assert_cmpuint(vram_r64(&c, SCR), ==, t0 + total);

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        const FillCase *k = &cases[i];
        size_t n = k->size + 2 * guard;
        g_autofree uint8_t *expect = g_malloc(n);
        uint32_t le = cpu_to_le32(k->pattern);

        memset(expect, 0xcc, n);
        for (uint64_t o = 0; o < k->size; o += 4) {
            memcpy(expect + guard + o, &le, 4);
        }
        vram_assert(&c, k->dst - guard, expect, n);
    }
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BYTES), ==, bytes);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, total);
    copro_shutdown(&c);
}

/* A surface in the test's model of VRAM. */
typedef struct Surface {
    uint64_t addr;
    uint32_t pitch, width, height, format;
} Surface;

/* Apply a RECT to @mem (a host copy of VRAM starting at @base). */
static uint64_t model_rect(uint8_t *mem, uint64_t base, const Surface *s,
                           uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                           uint32_t colour, uint32_t *cw, uint32_t *ch)
{
    uint32_t bpp = copro_fmt_bpp(s->format);
    uint32_t le = cpu_to_le32(colour);

    x = MIN(x, s->width);
    y = MIN(y, s->height);
    w = MIN(w, s->width - x);
    h = MIN(h, s->height - y);
    for (uint32_t r = 0; r < h; r++) {
        for (uint32_t i = 0; i < w; i++) {
            memcpy(mem + s->addr - base + (uint64_t)(y + r) * s->pitch +
                   (uint64_t)(x + i) * bpp, &le, bpp);
        }
    }
    *cw = w;
    *ch = h;
    return (uint64_t)w * h * bpp;
}

/*
 * SET_TARGET + RECT in one format: rectangles inside, clipped at the right
 * and bottom edges, entirely outside, in two slots at once, and a target
 * still bound in a later submission. The whole surface area, padding
 * included, is compared byte for byte with a model; STAT_BYTES and the
 * modelled time match.
 */
static void test_rect(const void *data)
{
    const uint32_t fmt = GPOINTER_TO_UINT(data);
    const uint32_t bpp = copro_fmt_bpp(fmt);
    const Surface sa = { DATA + 0x100, 40 * bpp + 24, 40, 30, fmt };
    const Surface sb = { DATA + 0x4000, 16 * bpp, 16, 8, fmt };
    const size_t span = 0x5000;
    static const struct {
        int target;
        uint32_t x, y, w, h, colour;
    } rects[] = {
        { 0, 5, 3, 7, 4, 0x11223344 },
        { 0, 30, 20, 100, 100, 0xa1b2c3d4 },        /* clipped to 10x10 */
        { 0, 40, 0, 5, 5, 0x55555555 },             /* x == width: none */
        { 0, 0, 30, 5, 5, 0x66666666 },             /* y == height: none */
        { 0, 39, 0, 0xffffffff, 1, 0x77777777 },    /* w overflows */
        { 1, 0, 0, 0xffffffff, 0xffffffff, 0x0f0e0d0c },
        { 0, 0, 29, 1, 1, 0x99999999 },             /* next submission */
    };
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) b2 = copro_buf_new();
    g_autofree uint8_t *mem = g_malloc(span);
    uint64_t total = 2 * PACKET_NS, bytes = 0;
    int64_t t0;

    cmd_boot(&c, "");
    memset(mem, 0x5a, span);
    vram_write(&c, DATA, mem, span);
    copro_pkt_set_target(b, 1, sa.addr, sa.pitch, sa.width, sa.height, fmt);
    copro_pkt_set_target(b, 3, sb.addr, sb.pitch, sb.width, sb.height, fmt);
    for (size_t i = 0; i < G_N_ELEMENTS(rects); i++) {
        const Surface *s = rects[i].target ? &sb : &sa;
        uint32_t w, h;

        copro_pkt_rect(i == G_N_ELEMENTS(rects) - 1 ? b2 : b,
                       rects[i].target ? 3 : 1, rects[i].x, rects[i].y,
                       rects[i].w, rects[i].h, rects[i].colour);
        bytes += model_rect(mem, DATA, s, rects[i].x, rects[i].y,
                            rects[i].w, rects[i].h, rects[i].colour,
                            &w, &h);
        total += PACKET_NS + rect_ns(w, h, bpp, PIXEL_RATE);
    }
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);
    copro_buf_put(&c, BUF0 + 0x1000, b2);
    copro_submit(&c, 0, BUF0 + 0x1000, copro_buf_bytes(b2), 2, 0, 0);

    copro_clock_to(&c, t0 + total - 1);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    copro_clock_to(&c, t0 + total);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 2);
    assert_idle(&c, 0);
    vram_assert(&c, DATA, mem, span);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BYTES), ==, bytes);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, total);
    copro_shutdown(&c);
}

/*
 * A large RECT runs in bands of up to 64 KiB of rows: 1024 x 100 pixels of
 * XRGB8888 is 6 bands of 16 rows and one of 4, 100 + 6 x 4096 + 1024 ns.
 */
static void test_rect_bands(void)
{
    const uint32_t w = 1024, h = 100, pitch = w * 4 + 64;
    const uint64_t cost = PACKET_NS + 6 * 4096 + 1024;
    const size_t span = (size_t)pitch * (h + 1);
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *mem = g_malloc(span);
    const Surface s = { DATA, pitch, w, h, COPRO_FMT_XRGB8888 };
    uint32_t cw, ch;
    int64_t t0;

    g_assert_cmpuint(rect_ns(w, h, 4, PIXEL_RATE), ==, cost - PACKET_NS);
    cmd_boot(&c, "");
    memset(mem, 0x3c, span);
    vram_write(&c, DATA, mem, span);
    copro_pkt_set_target(b, 0, DATA, pitch, w, h, COPRO_FMT_XRGB8888);
    copro_pkt_rect(b, 0, 0, 0, w, h, 0xdeadbeef);
    copro_pkt_timestamp(b, SCR);
    model_rect(mem, DATA, &s, 0, 0, w, h, 0xdeadbeef, &cw, &ch);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);

    copro_clock_to(&c, t0 + PACKET_NS + cost + PACKET_NS);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    g_assert_cmpuint(vram_r64(&c, SCR), ==, t0 + PACKET_NS + cost +
                     PACKET_NS);
    vram_assert(&c, DATA, mem, span);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BYTES), ==, w * h * 4);
    copro_shutdown(&c);
}

/*
 * WORK of N ns retires at exactly t0 + packet-ns + N: at one ns before,
 * the submission is still current, no DMA_DONE and no fence.
 */
static void test_work(const void *data)
{
    const uint64_t n = GPOINTER_TO_SIZE(data);
    const uint64_t done = PACKET_NS + n;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "");
    ewr64(&c, 0, COPRO_ENG_FENCE_WB, (SCR + 8) | COPRO_FENCE_WB_ENABLE);
    copro_pkt_work(b, n);
    t0 = run_buf(&c, 0, BUF0, b, 0x4242, 6, 0);

    copro_clock_to(&c, t0 + done - 1);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_BUSY);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_CURRENT_FENCE), ==, 0x4242);
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_CURRENT_CONTEXT), ==, 6);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    g_assert_cmphex(vram_r64(&c, SCR + 8), ==, 0);
    g_assert_cmphex(int_status(&c), ==, 0);

    copro_clock_to(&c, t0 + done);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0x4242);
    g_assert_cmphex(vram_r64(&c, SCR + 8), ==, 0x4242);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(0, COPRO_INT_DMA_DONE));
    assert_idle(&c, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, done);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, 1);
    copro_shutdown(&c);
}

/*
 * Rings
 */

/*
 * A ring of 4 entries (3 outstanding at most) runs 11 submissions: head
 * and tail wrap, fences complete in order at the modelled times, each
 * buffer runs once, and the write-back follows COMPLETED_FENCE.
 */
static void test_ring_wrap(void)
{
    const uint32_t n = 11, size = 4;
    const uint64_t cost = PACKET_NS + 1000 + 2 * PACKET_NS;
    Copro c;
    uint32_t submitted = 0, len = 0;
    uint64_t last_ts = 0;

    cmd_boot(&c, "");
    copro_ring_setup(&c, 0, RING0, size);
    ewr64(&c, 0, COPRO_ENG_FENCE_WB, (SCR + 0x800) | COPRO_FENCE_WB_ENABLE);
    for (uint32_t i = 0; i < n; i++) {
        g_autoptr(GArray) b = copro_buf_new();

        copro_pkt_work(b, 1000);
        copro_pkt_fence(b, SCR + 8 * i, 0x100 + i, 0);
        copro_pkt_timestamp(b, SCR + 0x400 + 8 * i);
        len = copro_buf_put(&c, BUF0 + 0x100 * i, b);
    }

    while (submitted < n) {
        uint32_t batch = MIN(n - submitted, size - 1);
        uint32_t head = submitted % size;
        int64_t t0;

        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, head);
        for (uint32_t k = 0; k < batch; k++) {
            uint32_t i = submitted + k;
            struct copro_submit_desc d = copro_desc(BUF0 + 0x100 * i,
                                                    len, 1000 + i, 1, 0);

            copro_queue(&c, 0, i % size, &d);
        }
        ewr32(&c, 0, COPRO_ENG_RING_TAIL, (submitted + batch) % size);
        t0 = copro_time(&c);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==,
                         (head + 1) % size);

        for (uint32_t k = 0; k < batch; k++) {
            uint32_t i = submitted + k;

            copro_clock_to(&c, t0 + (k + 1) * cost - 1);
            g_assert_cmphex(erd64(&c, 0, COPRO_ENG_CURRENT_FENCE), ==,
                            1000 + i);
            g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==,
                            i ? 1000 + i - 1 : 0);
            copro_clock_to(&c, t0 + (k + 1) * cost);
            g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==,
                            1000 + i);
            g_assert_cmphex(vram_r64(&c, SCR + 0x800), ==, 1000 + i);
            g_assert_cmphex(vram_r64(&c, SCR + 8 * i), ==, 0x100 + i);
            g_assert_cmpuint(vram_r64(&c, SCR + 0x400 + 8 * i), ==,
                             t0 + (k + 1) * cost);
            g_assert_cmpuint(vram_r64(&c, SCR + 0x400 + 8 * i), >, last_ts);
            last_ts = vram_r64(&c, SCR + 0x400 + 8 * i);
            /* the next entry is fetched as this one retires */
            g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==,
                             (head + MIN(k + 2, batch)) % size);
        }
        submitted += batch;
        assert_idle(&c, 0);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==,
                         submitted % size);
    }
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_SUBMISSIONS), ==, n);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, 3 * n);
    /* nothing ran twice: the slot after the last fence is untouched */
    g_assert_cmphex(vram_r64(&c, SCR + 8 * n), ==, 0);
    copro_shutdown(&c);
}

/*
 * A zero-length buffer retires at once (no packet, no time) with its
 * fence, write-back, DMA_DONE and statistics.
 */
static void test_zero_length(void)
{
    Copro c;
    QDict *rsp, *dev, *ctx;

    cmd_boot(&c, "");
    ewr64(&c, 1, COPRO_ENG_FENCE_WB, (SCR + 16) | COPRO_FENCE_WB_ENABLE);
    copro_submit(&c, 1, BUF1, 0, 0x51, 3, 0);
    copro_submit(&c, 1, BUF1 + 0x100, 0, 0x52, 3, 0);
    g_assert_cmpuint(copro_run(&c, 1), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 0x52);
    g_assert_cmphex(vram_r64(&c, SCR + 16), ==, 0x52);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(1, COPRO_INT_DMA_DONE));
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_SUBMISSIONS), ==, 2);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_PACKETS), ==, 0);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BUSY_NS), ==, 0);
    assert_idle(&c, 1);

    dev = copro_query(&c, &rsp);
    ctx = copro_query_context(dev, 3);
    g_assert_nonnull(ctx);
    g_assert_cmpuint(qdict_get_int(ctx, "submissions"), ==, 2);
    g_assert_cmpuint(qdict_get_int(ctx, "busy-ns"), ==, 0);
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/*
 * FENCE_WB writes the retired fence (64-bit) to its 8-aligned address only
 * while bit 0 is set; bits 1-2 are not part of the address.
 */
static void test_fence_writeback(void)
{
    Copro c;

    cmd_boot(&c, "timing=instant");
    ewr64(&c, 0, COPRO_ENG_FENCE_WB, SCR + 0x40);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FENCE_WB), ==, SCR + 0x40);
    copro_submit(&c, 0, BUF0, 0, 0x1111, 0, 0);
    copro_run(&c, 0);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0x1111);
    g_assert_cmphex(vram_r64(&c, SCR + 0x40), ==, 0);

    ewr64(&c, 0, COPRO_ENG_FENCE_WB, (SCR + 0x40) | 7);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FENCE_WB), ==, (SCR + 0x40) | 7);
    copro_submit(&c, 0, BUF0, 0, 0x123456789abcdef0ull, 0, 0);
    copro_run(&c, 0);
    g_assert_cmphex(vram_r64(&c, SCR + 0x40), ==, 0x123456789abcdef0ull);
    g_assert_cmphex(vram_r64(&c, SCR + 0x48), ==, 0);

    /* 32-bit halves: the low half alone moves the address */
    ewr32(&c, 0, COPRO_ENG_FENCE_WB + 4, 0);
    ewr32(&c, 0, COPRO_ENG_FENCE_WB, (SCR + 0x80) | 1);
    copro_submit(&c, 0, BUF0, 0, 0x2222, 0, 0);
    copro_run(&c, 0);
    g_assert_cmphex(vram_r64(&c, SCR + 0x80), ==, 0x2222);
    g_assert_cmphex(vram_r64(&c, SCR + 0x40), ==, 0x123456789abcdef0ull);
    /* bit 0 clear: no write-back */
    ewr64(&c, 0, COPRO_ENG_FENCE_WB, SCR + 0x80);
    copro_submit(&c, 0, BUF0, 0, 0x3333, 0, 0);
    copro_run(&c, 0);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0x3333);
    g_assert_cmphex(vram_r64(&c, SCR + 0x80), ==, 0x2222);
    copro_shutdown(&c);
}

/*
 * RING_BASE and RING_SIZE writes are ignored while the engine is busy;
 * when it is idle they are taken and reset head and tail to 0.
 */
static void test_ring_reprogram(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_work(b, 1000000);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);
    copro_clock_to(&c, t0 + 1000);
    ewr64(&c, 0, COPRO_ENG_RING_BASE, 0x8000);
    ewr32(&c, 0, COPRO_ENG_RING_BASE + 4, 1);
    ewr32(&c, 0, COPRO_ENG_RING_SIZE, 32);
    ewr32(&c, 0, COPRO_ENG_RING_SIZE, 0);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_RING_BASE), ==, RING0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_SIZE), ==, RING_N);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 1);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==, 1);

    /* a second entry queued behind the busy one also keeps the ring */
    copro_submit(&c, 0, BUF0 + 0x100, 0, 2, 0, 0);
    copro_clock_to(&c, t0 + PACKET_NS + 1000000);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 2);
    assert_idle(&c, 0);

    /* idle: taken, head and tail restart at 0 */
    ewr64(&c, 0, COPRO_ENG_RING_BASE, 0x8000);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_RING_BASE), ==, 0x8000);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==, 0);
    ewr32(&c, 0, COPRO_ENG_RING_SIZE, 32);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_SIZE), ==, 32);
    copro_submit(&c, 0, BUF0, 0, 3, 0, 0);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 3);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 1);
    copro_shutdown(&c);
}

/*
 * Cross-engine synchronisation
 */

/*
 * Engine 1 blocks in a WAIT until engine 0's FENCE writes the value; it
 * resumes at the instant of the FENCE whatever the test's clock steps
 * (data: single big step or stepping deadline by deadline), so the
 * TIMESTAMPs order the two engines exactly. Blocked time is not busy.
 */
static void test_wait_cross_engine(const void *data)
{
    const bool one_step = GPOINTER_TO_INT(data);
    const uint64_t flag = SCR + 0x100;
    const int64_t fence_at = PACKET_NS + 50000 + 2 * PACKET_NS;
    Copro c;
    g_autoptr(GArray) b0 = copro_buf_new();
    g_autoptr(GArray) b1 = copro_buf_new();
    uint64_t a1, b1_ts, a0;
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_timestamp(b1, SCR + 0);
    copro_pkt_wait(b1, flag, 5);
    copro_pkt_timestamp(b1, SCR + 8);
    copro_pkt_work(b0, 50000);
    copro_pkt_timestamp(b0, SCR + 16);
    copro_pkt_fence(b0, flag, 5, 0);
    copro_pkt_timestamp(b0, SCR + 24);
    copro_buf_put(&c, BUF0, b0);
    copro_buf_put(&c, BUF1, b1);
    t0 = copro_time(&c);
    copro_submit(&c, 1, BUF1, copro_buf_bytes(b1), 11, 1, 0);
    copro_submit(&c, 0, BUF0, copro_buf_bytes(b0), 10, 0, 0);

    if (one_step) {
        copro_clock_to(&c, t0 + 1000000);
    } else {
        copro_clock_to(&c, t0 + 1000);
        g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_WAITING);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_BUSY);
        g_assert_cmphex(erd64(&c, 1, COPRO_ENG_CURRENT_FENCE), ==, 11);
        copro_clock_to(&c, t0 + fence_at - 1);
        g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_WAITING);
        g_assert_cmphex(vram_r64(&c, SCR + 8), ==, 0);
        copro_clock_to(&c, t0 + fence_at);
        g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_BUSY);
        copro_clock_to(&c, t0 + fence_at + PACKET_NS);
    }
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 10);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 11);
    assert_idle(&c, 0);
    assert_idle(&c, 1);

    a1 = vram_r64(&c, SCR + 0);
    b1_ts = vram_r64(&c, SCR + 8);
    a0 = vram_r64(&c, SCR + 16);
    g_assert_cmpuint(a1, ==, t0 + PACKET_NS);
    g_assert_cmpuint(a0, ==, t0 + fence_at - PACKET_NS);
    g_assert_cmpuint(b1_ts, ==, t0 + fence_at + PACKET_NS);
    g_assert_cmpuint(vram_r64(&c, SCR + 24), ==, t0 + fence_at + PACKET_NS);
    g_assert_cmpuint(a1, <, a0);
    g_assert_cmpuint(a0, <, b1_ts);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BUSY_NS), ==,
                     3 * PACKET_NS);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, fence_at +
                     PACKET_NS);
    copro_shutdown(&c);
}

/*
 * A submission's fence write-back also releases engines blocked in WAIT,
 * at the instant of the write-back.
 */
static void test_wait_writeback(void)
{
    Copro c;
    g_autoptr(GArray) b0 = copro_buf_new();
    g_autoptr(GArray) b1 = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "");
    ewr64(&c, 0, COPRO_ENG_FENCE_WB, (SCR + 0x40) | COPRO_FENCE_WB_ENABLE);
    copro_pkt_wait(b1, SCR + 0x40, 9);
    copro_pkt_timestamp(b1, SCR);
    copro_pkt_work(b0, 10000);
    copro_buf_put(&c, BUF0, b0);
    copro_buf_put(&c, BUF1, b1);
    t0 = copro_time(&c);
    copro_submit(&c, 1, BUF1, copro_buf_bytes(b1), 2, 0, 0);
    copro_submit(&c, 0, BUF0, copro_buf_bytes(b0), 8, 0, 0);
    copro_submit(&c, 0, BUF0, copro_buf_bytes(b0), 9, 0, 0);

    copro_clock_to(&c, t0 + 2 * (PACKET_NS + 10000) - 1);
    g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    copro_clock_to(&c, t0 + 200000);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 2);
    g_assert_cmpuint(vram_r64(&c, SCR), ==,
                     t0 + 2 * (PACKET_NS + 10000) + PACKET_NS);
    copro_shutdown(&c);
}

/*
 * A WAIT released by a CPU write through BAR2 (no fence) notices it at the
 * next 20 us poll, not before: blocked at t0 + 100, polls at t0 + 100 +
 * k x 20 us; a too-small value keeps it blocked.
 */
static void test_wait_cpu_write(void)
{
    const uint64_t flag = SCR + 0x100;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    QDict *rsp, *dev, *eng;
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_wait(b, flag, 7);
    copro_pkt_timestamp(b, SCR);
    t0 = run_buf(&c, 0, BUF0, b, 1, 4, 0);

    copro_clock_to(&c, t0 + PACKET_NS);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    copro_clock_to(&c, t0 + 30000);
    vram_w64(&c, flag, 6);
    copro_clock_to(&c, t0 + 50000);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    dev = copro_query(&c, &rsp);
    eng = copro_query_engine(dev, 0);
    g_assert_cmpstr(qdict_get_str(eng, "state"), ==, "waiting");
    g_assert_cmpuint(qdict_get_int(eng, "current-fence"), ==, 1);
    g_assert_cmpuint(qdict_get_int(eng, "current-context"), ==, 4);
    qobject_unref(rsp);

    vram_w64(&c, flag, 7);
    copro_clock_to(&c, t0 + PACKET_NS + 3 * POLL_NS - 1);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0);
    copro_clock_to(&c, t0 + PACKET_NS + 3 * POLL_NS);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_BUSY);
    copro_clock_to(&c, t0 + 2 * PACKET_NS + 3 * POLL_NS);
    g_assert_cmpuint(vram_r64(&c, SCR), ==, t0 + 2 * PACKET_NS + 3 * POLL_NS);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    assert_idle(&c, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==,
                     2 * PACKET_NS);
    copro_shutdown(&c);
}

/*
 * An engine reset while blocked in WAIT aborts that submission: no more
 * polling, and a later CPU write to the location releases nothing.
 */
static void test_wait_reset(void)
{
    const uint64_t flag = SCR + 0x100;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_wait(b, flag, 1);
    copro_pkt_timestamp(b, SCR);
    t0 = run_buf(&c, 1, BUF1, b, 7, 0, 0);
    copro_clock_to(&c, t0 + 50000);
    g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    ewr32(&c, 1, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_ABORTED_FENCE), ==, 7);
    assert_idle(&c, 1);
    vram_w64(&c, flag, 1);
    copro_clock_to(&c, t0 + 1000000);
    assert_idle(&c, 1);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_BUSY_NS), ==, PACKET_NS);
    g_assert_cmphex(int_status(&c), ==, 0);
    copro_shutdown(&c);
}

/*
 * Errors
 */

#define MARK_A      (SCR + 0x200)   /* FENCE before the bad packet */
#define MARK_B      (SCR + 0x208)   /* FENCE after it */
#define MARK_C      (SCR + 0x210)   /* submission queued while halted */
#define MARK_D      (SCR + 0x218)   /* submission after the reset */
#define ERR_OFF     20              /* offset of the bad packet */
#define ERR_FENCE   0x77
#define ERR_CTX     0x1234

typedef struct ErrExpect {
    uint32_t kind;
    uint32_t offset;
    uint64_t addr;
    uint32_t info;
    bool loaded;        /* the submission was loaded: fence and context */
    bool prefix_ran;    /* the packet before the bad one executed */
    bool suffix_ran;    /* the packet after it executed */
    bool no_desc;       /* the ring itself is bad: write no descriptor */
} ErrExpect;

typedef struct ErrorCase {
    const char *name;
    unsigned engine;
    /*
     * Append the bad packet(s) at ERR_OFF of the buffer @b (at @buf), or
     * break the descriptor @d (called after dma_len is set); adjust @x.
     */
    void (*build)(Copro *c, unsigned e, GArray *b, uint64_t buf,
                  struct copro_submit_desc *d, ErrExpect *x);
} ErrorCase;

static void err_illegal_opcode(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_LAST + 1, 0, 1));
    x->kind = COPRO_FAULT_ILLEGAL_OPCODE;
}

static void err_illegal_opcode_ff(Copro *c, unsigned e, GArray *b,
                                  uint64_t buf, struct copro_submit_desc *d,
                                  ErrExpect *x)
{
    if (d) {
        return;
    }
    /* the opcode is checked before the length */
    copro_buf_dw(b, COPRO_PKT_HDR(0xff, 0xff, 0));
    x->kind = COPRO_FAULT_ILLEGAL_OPCODE;
}

static void err_bad_length(Copro *c, unsigned e, GArray *b, uint64_t buf,
                           struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_FENCE, 0, COPRO_LEN_FENCE - 1));
    copro_buf_qw(b, MARK_B);
    copro_buf_dw(b, 1);
    x->kind = COPRO_FAULT_BAD_LENGTH;
}

static void err_bad_length_long(Copro *c, unsigned e, GArray *b, uint64_t buf,
                                struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY + 1));
    for (unsigned i = 0; i < COPRO_LEN_COPY; i++) {
        copro_buf_dw(b, 0);
    }
    x->kind = COPRO_FAULT_BAD_LENGTH;
}

static void err_bad_length_zero(Copro *c, unsigned e, GArray *b, uint64_t buf,
                                struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_NOP, 0, 0));
    x->kind = COPRO_FAULT_BAD_LENGTH;
}

static void err_overrun(Copro *c, unsigned e, GArray *b, uint64_t buf,
                        struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->dma_len = ERR_OFF + 4 * 4;   /* 4 of the COPY's 7 dwords */
        return;
    }
    copro_pkt_copy(b, DATA, DATA + 0x1000, 4);
    x->kind = COPRO_FAULT_BUFFER_OVERRUN;
}

static void err_overrun_nop(Copro *c, unsigned e, GArray *b, uint64_t buf,
                            struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    /* claims 100 dwords: only itself and the suffix FENCE (5) remain */
    copro_buf_dw(b, COPRO_PKT_HDR(COPRO_OP_NOP, 0, 100));
    x->kind = COPRO_FAULT_BUFFER_OVERRUN;
}

/* Descriptor errors: the fault address is the ring entry. */
static void desc_expect(Copro *c, unsigned e, ErrExpect *x)
{
    x->kind = COPRO_FAULT_BAD_DESCRIPTOR;
    x->offset = 0;
    x->addr = ENG_RING(e) + erd32(c, e, COPRO_ENG_RING_TAIL) *
              COPRO_DESC_SIZE;
    x->prefix_ran = false;
}

static void err_desc_misaligned(Copro *c, unsigned e, GArray *b, uint64_t buf,
                                struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->dma_addr += 2;
        desc_expect(c, e, x);
    }
}

static void err_desc_len(Copro *c, unsigned e, GArray *b, uint64_t buf,
                         struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->dma_len -= 2;
        desc_expect(c, e, x);
    }
}

static void err_desc_too_long(Copro *c, unsigned e, GArray *b, uint64_t buf,
                              struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->dma_len = COPRO_DMA_MAX + 4;
        desc_expect(c, e, x);
    }
}

static void err_desc_reserved0(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->reserved0 = 1;
        desc_expect(c, e, x);
    }
}

static void err_desc_reserved1(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->reserved1[2] = 1ull << 63;
        desc_expect(c, e, x);
    }
}

static void err_desc_flags(Copro *c, unsigned e, GArray *b, uint64_t buf,
                           struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->flags = COPRO_SUBMIT_NO_IRQ | (COPRO_SUBMIT_FLAGS_KNOWN + 1);
        desc_expect(c, e, x);
    }
}

/* RESUME without a save record (save area of zeros): ERROR, not FAULT */
static void err_resume_no_save(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        vram_fill(c, SCR + 0x300, 0, COPRO_SAVE_SIZE);
        d->flags = COPRO_SUBMIT_RESUME;
        d->save_addr = SCR + 0x300;
        x->kind = COPRO_FAULT_BAD_SAVE;
        x->offset = 0;
        x->addr = SCR + 0x300;
        x->prefix_ran = false;
    }
}

static void err_target_format(Copro *c, unsigned e, GArray *b, uint64_t buf,
                              struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_set_target(b, 0, DATA, 64, 16, 16, COPRO_FMT_XRGB8888 + 1);
    x->kind = COPRO_FAULT_BAD_PACKET;
}

static void err_target_format0(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_set_target(b, 0, DATA, 64, 16, 16, 0);
    x->kind = COPRO_FAULT_BAD_PACKET;
}

static void err_target_slot(Copro *c, unsigned e, GArray *b, uint64_t buf,
                            struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_set_target(b, COPRO_TARGET_SLOTS, DATA, 64, 16, 16,
                         COPRO_FMT_R8);
    x->kind = COPRO_FAULT_BAD_PACKET;
}

static void err_target_pitch(Copro *c, unsigned e, GArray *b, uint64_t buf,
                             struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_set_target(b, 0, DATA, 16 * 2 - 1, 16, 16, COPRO_FMT_RGB565);
    x->kind = COPRO_FAULT_BAD_PACKET;
}

static void err_target_dim(Copro *c, unsigned e, GArray *b, uint64_t buf,
                           struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_set_target(b, 0, DATA, 0x10000, 1, COPRO_TARGET_MAX_DIM + 1,
                         COPRO_FMT_R8);
    x->kind = COPRO_FAULT_BAD_PACKET;
}

static void err_rect_unbound(Copro *c, unsigned e, GArray *b, uint64_t buf,
                             struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_rect(b, 0, 0, 0, 1, 1, 0);
    x->kind = COPRO_FAULT_BAD_PACKET;
}

static void err_rect_slot(Copro *c, unsigned e, GArray *b, uint64_t buf,
                          struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_set_target(b, 0, DATA, 64, 16, 16, COPRO_FMT_R8);
    copro_pkt_rect(b, COPRO_TARGET_SLOTS, 0, 0, 1, 1, 0);
    x->kind = COPRO_FAULT_BAD_PACKET;
    x->offset += COPRO_LEN_SET_TARGET * 4;
    x->addr += COPRO_LEN_SET_TARGET * 4;
}

static void err_fill_size(Copro *c, unsigned e, GArray *b, uint64_t buf,
                          struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_fill(b, DATA, 6, 0);
    x->kind = COPRO_FAULT_BAD_PACKET;
}

/* Memory faults: the address is the failing access, FAULT not ERROR. */
static void xlat_expect(ErrExpect *x, uint64_t addr, bool write)
{
    x->kind = COPRO_FAULT_TRANSLATION;
    x->addr = addr;
    x->info = write ? COPRO_FAULT_INFO_WRITE : 0;
}

static void err_xlat_fence(Copro *c, unsigned e, GArray *b, uint64_t buf,
                           struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_fence(b, VRAM, 1, COPRO_FENCE_IRQ);
    xlat_expect(x, VRAM, true);
}

static void err_gart_unmapped(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_timestamp(b, COPRO_APERTURE_BASE);
    xlat_expect(x, COPRO_APERTURE_BASE, true);
    x->kind = COPRO_FAULT_GART;     /* GART off: the page has no entry */
}

/* Between VRAM and the aperture: nothing there. */
static void err_xlat_hole(Copro *c, unsigned e, GArray *b, uint64_t buf,
                          struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_timestamp(b, VRAM + 0x1000000);
    xlat_expect(x, VRAM + 0x1000000, true);
}

/* Just past the end of the aperture. */
static void err_xlat_aperture_end(Copro *c, unsigned e, GArray *b,
                                  uint64_t buf, struct copro_submit_desc *d,
                                  ErrExpect *x)
{
    uint64_t end = COPRO_APERTURE_BASE + rd64(c, COPRO_REG_APERTURE_SIZE);

    if (d) {
        return;
    }
    copro_pkt_fence(b, end, 1, 0);
    xlat_expect(x, end, true);
}

static void err_xlat_wait(Copro *c, unsigned e, GArray *b, uint64_t buf,
                          struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_wait(b, ~7ull, 1);
    xlat_expect(x, ~7ull, false);
}

static void err_xlat_copy_src(Copro *c, unsigned e, GArray *b, uint64_t buf,
                              struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_copy(b, DATA, VRAM + 0x1000, 16);
    xlat_expect(x, VRAM + 0x1000, false);
}

static void err_xlat_copy_dst(Copro *c, unsigned e, GArray *b, uint64_t buf,
                              struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    copro_pkt_copy(b, VRAM, DATA, 16);
    xlat_expect(x, VRAM, true);
}

/* A FILL that leaves VRAM in its 3rd chunk writes its first two. */
static void err_xlat_fill_partial(Copro *c, unsigned e, GArray *b,
                                  uint64_t buf, struct copro_submit_desc *d,
                                  ErrExpect *x)
{
    const uint64_t dst = VRAM - 2 * CHUNK;

    if (d) {
        return;
    }
    vram_fill(c, dst - 4, 0, 2 * CHUNK + 4);
    copro_pkt_fill(b, dst, 3 * CHUNK, 0xabababab);
    xlat_expect(x, VRAM, true);
}

/* RECT rows are checked as they are written: rows 0-1 fit, row 2 not. */
static void err_xlat_rect(Copro *c, unsigned e, GArray *b, uint64_t buf,
                          struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        return;
    }
    vram_fill(c, VRAM - 128, 0, 128);
    copro_pkt_set_target(b, 2, VRAM - 128, 64, 16, 4, COPRO_FMT_XRGB8888);
    copro_pkt_rect(b, 2, 0, 0, 16, 4, 0xabababab);
    xlat_expect(x, VRAM, true);
    x->offset += COPRO_LEN_SET_TARGET * 4;
}

/*
 * A surface just below 2^64 whose rows, computed modulo 2^64, would land
 * in VRAM: still a translation fault, and VRAM is not written.
 */
static void err_xlat_rect_wrap(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    const uint64_t base = -(uint64_t)0x1000;

    if (d) {
        return;
    }
    vram_fill(c, DATA, 0, 64);
    copro_pkt_set_target(b, 0, base, DATA + 0x1000, 16, 4, COPRO_FMT_R8);
    copro_pkt_rect(b, 0, 0, 1, 16, 1, 0xabababab);
    xlat_expect(x, UINT64_MAX, true);
    x->offset += COPRO_LEN_SET_TARGET * 4;
}

/* The buffer itself is outside VRAM: the first fetch faults. */
static void err_xlat_buffer(Copro *c, unsigned e, GArray *b, uint64_t buf,
                            struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        d->dma_addr = VRAM;
        xlat_expect(x, VRAM, false);
        x->offset = 0;
        x->prefix_ran = false;
    }
}

/* The ring is outside VRAM: no submission is loaded at all. */
static void err_xlat_ring(Copro *c, unsigned e, GArray *b, uint64_t buf,
                          struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        ewr64(c, e, COPRO_ENG_RING_BASE, VRAM);
        xlat_expect(x, VRAM, false);
        x->offset = 0;
        x->loaded = false;
        x->prefix_ran = false;
        x->no_desc = true;
    }
}

/*
 * The fence write-back address is outside VRAM: every packet ran, the
 * retirement faults. The submission is aborted, not completed.
 */
static void err_xlat_writeback(Copro *c, unsigned e, GArray *b, uint64_t buf,
                               struct copro_submit_desc *d, ErrExpect *x)
{
    if (d) {
        ewr64(c, e, COPRO_ENG_FENCE_WB, VRAM | COPRO_FENCE_WB_ENABLE);
        xlat_expect(x, VRAM, true);
        x->offset = d->dma_len;
        x->suffix_ran = true;
    } else {
        copro_pkt_nop(b, 1, 0);
    }
}

static const ErrorCase error_cases[] = {
    { "illegal-opcode", 0, err_illegal_opcode },
    { "illegal-opcode-ff", 1, err_illegal_opcode_ff },
    { "bad-length", 0, err_bad_length },
    { "bad-length-long", 1, err_bad_length_long },
    { "bad-length-zero", 0, err_bad_length_zero },
    { "buffer-overrun", 0, err_overrun },
    { "buffer-overrun-nop", 1, err_overrun_nop },
    { "bad-desc-misaligned", 0, err_desc_misaligned },
    { "bad-desc-length", 1, err_desc_len },
    { "bad-desc-too-long", 0, err_desc_too_long },
    { "bad-desc-reserved0", 1, err_desc_reserved0 },
    { "bad-desc-reserved1", 0, err_desc_reserved1 },
    { "bad-desc-flags", 1, err_desc_flags },
    { "resume-no-save", 0, err_resume_no_save },
    { "bad-target-format", 0, err_target_format },
    { "bad-target-format0", 0, err_target_format0 },
    { "bad-target-slot", 0, err_target_slot },
    { "bad-target-pitch", 0, err_target_pitch },
    { "bad-target-size", 0, err_target_dim },
    { "rect-unbound", 0, err_rect_unbound },
    { "rect-bad-slot", 0, err_rect_slot },
    { "fill-size", 1, err_fill_size },
    { "xlat-fence", 0, err_xlat_fence },
    { "gart-unmapped", 1, err_gart_unmapped },
    { "xlat-hole", 1, err_xlat_hole },
    { "xlat-aperture-end", 0, err_xlat_aperture_end },
    { "xlat-wait", 0, err_xlat_wait },
    { "xlat-copy-src", 1, err_xlat_copy_src },
    { "xlat-copy-dst", 0, err_xlat_copy_dst },
    { "xlat-fill-partial", 1, err_xlat_fill_partial },
    { "xlat-rect-rows", 0, err_xlat_rect },
    { "xlat-rect-wrap", 0, err_xlat_rect_wrap },
    { "xlat-buffer", 1, err_xlat_buffer },
    { "xlat-ring", 0, err_xlat_ring },
    { "xlat-fence-writeback", 1, err_xlat_writeback },
};

static const char *const fault_names[] = {
    [COPRO_FAULT_NONE] = "none",
    [COPRO_FAULT_ILLEGAL_OPCODE] = "illegal opcode",
    [COPRO_FAULT_BAD_LENGTH] = "bad packet length",
    [COPRO_FAULT_BUFFER_OVERRUN] = "buffer overrun",
    [COPRO_FAULT_BAD_DESCRIPTOR] = "bad descriptor",
    [COPRO_FAULT_BAD_PACKET] = "bad packet fields",
    [COPRO_FAULT_TRANSLATION] = "translation fault",
    [COPRO_FAULT_DMA] = "DMA error",
    [COPRO_FAULT_INJECTED] = "injected fault",
    [COPRO_FAULT_BAD_SAVE] = "bad save record",
    [COPRO_FAULT_GART] = "GART fault",
    [COPRO_FAULT_PAGE] = "page fault",
    [COPRO_FAULT_TABLE] = "page table outside VRAM",
};

/* Case-specific effects of the packets that ran before the fault. */
static void error_check_partial(Copro *c, const ErrorCase *ec)
{
    g_autofree uint8_t *expect = g_malloc(2 * CHUNK + 4);

    if (ec->build == err_xlat_fill_partial) {
        memset(expect, 0, 4);
        memset(expect + 4, 0xab, 2 * CHUNK);
        vram_assert(c, VRAM - 2 * CHUNK - 4, expect, 2 * CHUNK + 4);
        g_assert_cmpuint(erd64(c, ec->engine, COPRO_ENG_STAT_BYTES), ==,
                         2 * CHUNK);
    } else if (ec->build == err_xlat_rect) {
        memset(expect, 0xab, 128);
        vram_assert(c, VRAM - 128, expect, 128);
    } else if (ec->build == err_xlat_rect_wrap) {
        memset(expect, 0, 64);
        vram_assert(c, DATA, expect, 64);
    }
}

/*
 * One error kind: the engine halts with the fault latched (kind, packet
 * offset, address, fence, context, read/write), raises ERROR for command
 * errors or FAULT for memory faults, keeps the effects of earlier packets,
 * ignores doorbells and ring reprogramming, and shows the fault on the
 * monitor. CONTROL.RESET reports the aborted fence, keeps the completed
 * one and the statistics, drops the queued entries, and later work runs.
 */
static void test_error(const void *data)
{
    const ErrorCase *ec = data;
    const unsigned e = ec->engine;
    const uint64_t buf = ENG_BUF(e) + 0x1000;
    Copro c;
    g_autoptr(GArray) ok = copro_buf_new();
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) bc = copro_buf_new();
    g_autoptr(GArray) bd = copro_buf_new();
    struct copro_submit_desc d;
    ErrExpect x = {
        .offset = ERR_OFF, .addr = buf + ERR_OFF,
        .loaded = true, .prefix_ran = true,
    };
    uint64_t cause;
    uint32_t head, tail;
    g_autofree char *hmp = NULL;
    g_autofree char *line = NULL;
    QDict *rsp, *dev, *eng;

    cmd_boot(&c, "");
    /* a good submission first: its fence must stay the completed one */
    copro_pkt_nop(ok, 1, 0);
    copro_buf_put(&c, ENG_BUF(e), ok);
    copro_submit(&c, e, ENG_BUF(e), 4, ERR_FENCE - 1, ERR_CTX, 0);
    qtest_clock_step(c.qts, 1000);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_COMPLETED_FENCE), ==,
                    ERR_FENCE - 1);
    int_ack_all(&c);

    copro_pkt_fence(b, MARK_A, 0xf00d, 0);
    g_assert_cmpuint(copro_buf_bytes(b), ==, ERR_OFF);
    ec->build(&c, e, b, buf, NULL, &x);
    copro_pkt_fence(b, MARK_B, 0xbad, 0);
    d = copro_desc(buf, copro_buf_put(&c, buf, b), ERR_FENCE, ERR_CTX, 0);
    ec->build(&c, e, b, buf, &d, &x);
    if (x.no_desc) {
        ewr32(&c, e, COPRO_ENG_RING_TAIL, 1);
    } else {
        copro_submit_desc(&c, e, &d);
    }
    qtest_clock_step(c.qts, 1000000);

    cause = COPRO_FAULT_IS_ERROR(x.kind) ? COPRO_INT_ERROR : COPRO_INT_FAULT;
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_FAULT_KIND), ==, x.kind);
    g_assert_cmphex(erd32(&c, e, COPRO_ENG_FAULT_OFFSET), ==, x.offset);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_FAULT_ADDR), ==, x.addr);
    g_assert_cmphex(erd32(&c, e, COPRO_ENG_FAULT_INFO), ==, x.info);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_FAULT_FENCE), ==,
                    x.loaded ? ERR_FENCE : 0);
    g_assert_cmphex(erd32(&c, e, COPRO_ENG_FAULT_CONTEXT), ==,
                    x.loaded ? ERR_CTX : 0);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(e, cause));
    g_assert_cmpuint(erd64(&c, e, COPRO_ENG_STAT_FAULTS), ==, 1);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_COMPLETED_FENCE), ==,
                    ERR_FENCE - 1);
    g_assert_cmphex(vram_r64(&c, MARK_A), ==, x.prefix_ran ? 0xf00d : 0);
    g_assert_cmphex(vram_r64(&c, MARK_B), ==, x.suffix_ran ? 0xbad : 0);
    error_check_partial(&c, ec);
    /* the other engine is not affected */
    g_assert_cmpuint(erd32(&c, !e, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_IDLE);

    dev = copro_query(&c, &rsp);
    eng = copro_query_engine(dev, e);
    g_assert_cmpstr(qdict_get_str(eng, "state"), ==, "halted");
    g_assert_cmpstr(qdict_get_str(eng, "fault"), ==, fault_names[x.kind]);
    g_assert_cmphex(copro_qdict_u64(eng, "fault-address"), ==, x.addr);
    g_assert_cmphex(qdict_get_int(eng, "fault-fence"), ==,
                    x.loaded ? ERR_FENCE : 0);
    g_assert_cmpuint(qdict_get_int(eng, "faults"), ==, 1);
    qobject_unref(rsp);
    hmp = qtest_hmp(c.qts, "info copro");
    line = g_strdup_printf("fault: %s at 0x%" PRIx64 " (fence %u)",
                           fault_names[x.kind], x.addr,
                           x.loaded ? ERR_FENCE : 0u);
    g_assert_nonnull(strstr(hmp, line));

    /* halted: a new doorbell is taken but nothing runs */
    head = erd32(&c, e, COPRO_ENG_RING_HEAD);
    tail = erd32(&c, e, COPRO_ENG_RING_TAIL);
    copro_pkt_fence(bc, MARK_C, 0x78, 0);
    copro_buf_put(&c, ENG_BUF(e) + 0x2000, bc);
    if (!x.no_desc) {
        d = copro_desc(ENG_BUF(e) + 0x2000, copro_buf_bytes(bc), 0x78, 0, 0);
        copro_queue(&c, e, tail, &d);
    }
    ewr32(&c, e, COPRO_ENG_RING_TAIL, tail + 1);
    qtest_clock_step(c.qts, 1000000);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_RING_HEAD), ==, head);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_RING_TAIL), ==, tail + 1);
    g_assert_cmphex(vram_r64(&c, MARK_C), ==, 0);
    ewr32(&c, e, COPRO_ENG_RING_SIZE, 2 * RING_N);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_RING_SIZE), ==, RING_N);

    /* recovery */
    ewr32(&c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_ABORTED_FENCE), ==,
                    x.loaded ? ERR_FENCE : 0);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_COMPLETED_FENCE), ==,
                    ERR_FENCE - 1);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_FAULT_KIND), ==, 0);
    g_assert_cmphex(erd32(&c, e, COPRO_ENG_FAULT_OFFSET), ==, 0);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_FAULT_ADDR), ==, 0);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_FAULT_FENCE), ==, 0);
    g_assert_cmphex(erd32(&c, e, COPRO_ENG_FAULT_CONTEXT), ==, 0);
    g_assert_cmphex(erd32(&c, e, COPRO_ENG_FAULT_INFO), ==, 0);
    g_assert_cmpuint(erd64(&c, e, COPRO_ENG_STAT_FAULTS), ==, 1);
    assert_idle(&c, e);
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_RING_HEAD), ==, tail + 1);
    if (x.no_desc) {
        copro_ring_setup(&c, e, ENG_RING(e), RING_N);
    }
    ewr64(&c, e, COPRO_ENG_FENCE_WB, 0);

    /* later work runs; the entry queued while halted was dropped */
    copro_pkt_fence(bd, MARK_D, 0x79, 0);
    copro_buf_put(&c, ENG_BUF(e) + 0x3000, bd);
    copro_submit(&c, e, ENG_BUF(e) + 0x3000, copro_buf_bytes(bd), 0x79,
                 0, 0);
    qtest_clock_step(c.qts, 1000);
    g_assert_cmphex(erd64(&c, e, COPRO_ENG_COMPLETED_FENCE), ==, 0x79);
    g_assert_cmphex(vram_r64(&c, MARK_D), ==, 0x79);
    g_assert_cmphex(vram_r64(&c, MARK_C), ==, 0);
    assert_idle(&c, e);
    g_assert_cmpuint(erd64(&c, e, COPRO_ENG_STAT_SUBMISSIONS), ==, 2);
    copro_shutdown(&c);
}

/*
 * The copy engine (engine 1) runs only the opcodes of
 * COPRO_COPY_ENGINE_OPS (copy, fill, fences, waits, timestamps, PTE
 * copies): any other halts it with ILLEGAL_OPCODE before its fields are
 * looked at, and engine 0 (render) is not affected; the allowed ones run.
 */
static void test_copy_engine_ops(void)
{
    const uint32_t render_only = (1u << COPRO_OP_INTERRUPT) |
                                 (1u << COPRO_OP_SET_TARGET) |
                                 (1u << COPRO_OP_RECT) |
                                 (1u << COPRO_OP_WORK);
    Copro c;
    g_autoptr(GArray) ok = copro_buf_new();
    unsigned refused = 0;

    g_assert_cmphex(COPRO_COPY_ENGINE_OPS & render_only, ==, 0);
    cmd_boot(&c, "");
    for (uint32_t op = 0; op <= COPRO_OP_LAST; op++) {
        g_autoptr(GArray) b = copro_buf_new();
        uint64_t buf = BUF1 + 0x100 * op;
        uint32_t len = copro_packet_len(op) ? copro_packet_len(op) : 1;

        if (COPRO_COPY_ENGINE_OPS & (1u << op)) {
            continue;
        }
        /* all-zero payload: a RECT without a target, for instance */
        copro_buf_dw(b, COPRO_PKT_HDR(op, 0, len));
        for (unsigned i = 1; i < len; i++) {
            copro_buf_dw(b, 0);
        }
        run_buf(&c, 1, buf, b, 0x100 + op, 2, 0);
        qtest_clock_step(c.qts, 1000);
        g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_HALTED);
        g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_FAULT_KIND), ==,
                         COPRO_FAULT_ILLEGAL_OPCODE);
        g_assert_cmphex(erd64(&c, 1, COPRO_ENG_FAULT_ADDR), ==, buf);
        g_assert_cmphex(erd32(&c, 1, COPRO_ENG_FAULT_OFFSET), ==, 0);
        g_assert_cmphex(erd64(&c, 1, COPRO_ENG_FAULT_FENCE), ==, 0x100 + op);
        g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(1, COPRO_INT_ERROR));
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_IDLE);
        ewr32(&c, 1, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        assert_idle(&c, 1);
        int_ack_all(&c);
        refused |= 1u << op;
    }
    g_assert_cmphex(refused & render_only, ==, render_only);

    /* one of each allowed packet runs on engine 1 */
    vram_w64(&c, SCR, 1);
    copro_pkt_nop(ok, 2, 0);
    copro_pkt_timestamp(ok, SCR + 8);
    copro_pkt_fence(ok, SCR + 16, 0x1234, 0);
    copro_pkt_wait(ok, SCR, 1);
    copro_pkt_copy(ok, DATA + 0x100, DATA, 16);
    copro_pkt_fill(ok, DATA + 0x200, 16, 0x01010101);
    copro_pkt_copy_pte(ok, DATA + 0x300, DATA, 2);
    run_buf(&c, 1, BUF1 + 0x2000, ok, 0x200, 2, 0);
    qtest_clock_step(c.qts, 100000);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 0x200);
    assert_idle(&c, 1);
    g_assert_cmphex(vram_r64(&c, SCR + 16), ==, 0x1234);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_PACKETS), ==, 7);
    copro_shutdown(&c);
}

/*
 * A ring whose last entries would lie beyond 2^64 does not wrap around to
 * VRAM offset 0: fetching such an entry is a translation fault, like any
 * other ring address outside the GPU address space.
 */
static void test_ring_wrap_2_64(void)
{
    const uint64_t base = -(uint64_t)COPRO_DESC_SIZE;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    struct copro_submit_desc d;

    cmd_boot(&c, "");
    copro_ring_setup(&c, 0, base, 2);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_RING_BASE), ==, base);
    /* entry 0 is at 2^64 - 64: outside, fault; reset moves head to 1 */
    ewr32(&c, 0, COPRO_ENG_RING_TAIL, 1);
    qtest_clock_step(c.qts, 10000);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_TRANSLATION);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FAULT_ADDR), ==, base);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 1);

    /* entry 1 would be at 2^64, i.e. 0 modulo 2^64: a valid descriptor */
    copro_pkt_fence(b, SCR, 0xbad, 0);
    d = copro_desc(BUF0, copro_buf_put(&c, BUF0, b), 9, 0, 0);
    copro_desc_put(&c, 0, &d);
    int_ack_all(&c);
    ewr32(&c, 0, COPRO_ENG_RING_TAIL, 0);
    qtest_clock_step(c.qts, 10000);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_TRANSLATION);
    /* the entry's address is not representable: the last address */
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FAULT_ADDR), ==, UINT64_MAX);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FAULT_FENCE), ==, 0);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(0, COPRO_INT_FAULT));
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0);
    copro_shutdown(&c);
}

/*
 * CONTROL.RESET in the middle of a WORK aborts it (ABORTED_FENCE), drops
 * the queued entries, keeps COMPLETED_FENCE and the statistics (busy time
 * only up to the reset), and unbinds the targets: a RECT on a slot bound
 * before the reset halts.
 */
static void test_reset_busy(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) r = copro_buf_new();
    QDict *rsp, *dev;
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_set_target(b, 1, DATA, 64, 16, 16, COPRO_FMT_RGB565);
    copro_pkt_work(b, 10000000);
    t0 = run_buf(&c, 0, BUF0, b, 1, 5, 0);
    copro_submit(&c, 0, BUF0 + 0x100, 0, 2, 5, 0);
    copro_submit(&c, 0, BUF0 + 0x100, 0, 3, 5, 0);
    copro_clock_to(&c, t0 + 1000000);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_BUSY);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 1);

    /* the current WORK slice is charged up to t0 + 1000200 */
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==,
                     1000000 + 2 * PACKET_NS);

    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_ABORTED_FENCE), ==, 1);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    assert_idle(&c, 0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 3);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, 1);
    /* the part of the step that never ran is not busy time */
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, 1000000);
    dev = copro_query(&c, &rsp);
    g_assert_cmpuint(qdict_get_int(copro_query_context(dev, 5), "busy-ns"),
                     ==, 1000000);
    qobject_unref(rsp);
    copro_clock_to(&c, t0 + 20000000);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    g_assert_cmphex(int_status(&c), ==, 0);

    /* a reset with nothing in execution aborts nothing */
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_ABORTED_FENCE), ==, 0);

    copro_pkt_rect(r, 1, 0, 0, 1, 1, 0);
    t0 = run_buf(&c, 0, BUF0 + 0x200, r, 4, 5, 0);
    copro_clock_to(&c, t0 + 1000);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_BAD_PACKET);
    copro_shutdown(&c);
}

/*
 * Interrupts
 */

/*
 * With MSI-X, engine 0's causes arrive on vector 0 and engine 1's on vector
 * 1, at the instant the cause is raised; NO_IRQ suppresses DMA_DONE (no
 * status bit, no message) but not the FENCE cause; errors use the engine's
 * vector too.
 */
static void test_irq_msix(void)
{
    Copro c;
    uint64_t msg;
    g_autoptr(GArray) w = copro_buf_new();
    g_autoptr(GArray) f = copro_buf_new();
    g_autoptr(GArray) bad = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, "");
    msg = guest_alloc(&c.qs->alloc, 64);
    qtest_memset(c.qts, msg, 0, 64);
    qpci_msix_enable(c.dev);
    for (unsigned v = 0; v < 3; v++) {
        copro_msix_route(&c, v, msg + 4 * v, 0x100 + v);
    }
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_ENGINE_MASK(0) |
         COPRO_INT_ENGINE_MASK(1));

    copro_pkt_nop(w, 1, 0);
    copro_pkt_timestamp(w, SCR + 0x100);
    t0 = run_buf(&c, 0, BUF0, w, 1, 0, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS - 1);
    g_assert_cmphex(qtest_readl(c.qts, msg + 0), ==, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS);
    g_assert_cmphex(qtest_readl(c.qts, msg + 0), ==, 0x100);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0);
    g_assert_cmphex(qtest_readl(c.qts, msg + 8), ==, 0);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(0, COPRO_INT_DMA_DONE));
    int_ack_all(&c);
    qtest_writel(c.qts, msg, 0);

    t0 = run_buf(&c, 1, BUF1, w, 1, 0, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS - 1);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0x101);
    g_assert_cmphex(qtest_readl(c.qts, msg + 0), ==, 0);
    g_assert_cmphex(qtest_readl(c.qts, msg + 8), ==, 0);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(1, COPRO_INT_DMA_DONE));
    int_ack_all(&c);
    qtest_writel(c.qts, msg + 4, 0);

    /* NO_IRQ: nothing at all */
    t0 = run_buf(&c, 0, BUF0, w, 2, 0, COPRO_SUBMIT_NO_IRQ);
    copro_submit(&c, 1, BUF0, copro_buf_bytes(w), 2, 0,
                 COPRO_SUBMIT_NO_IRQ);
    copro_clock_to(&c, t0 + 10000);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 2);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 2);
    g_assert_cmphex(int_status(&c), ==, 0);
    g_assert_cmphex(qtest_readl(c.qts, msg + 0), ==, 0);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0);

    /* NO_IRQ does not hide a FENCE cause */
    copro_pkt_fence(f, SCR, 1, COPRO_FENCE_IRQ);
    t0 = run_buf(&c, 1, BUF1 + 0x100, f, 3, 0, COPRO_SUBMIT_NO_IRQ);
    copro_clock_to(&c, t0 + PACKET_NS);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(1, COPRO_INT_FENCE));
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0x101);
    g_assert_cmphex(qtest_readl(c.qts, msg + 0), ==, 0);
    int_ack_all(&c);
    qtest_writel(c.qts, msg + 4, 0);

    /* an error on engine 0 */
    copro_buf_dw(bad, COPRO_PKT_HDR(0x55, 0, 1));
    t0 = run_buf(&c, 0, BUF0 + 0x200, bad, 4, 0, 0);
    copro_clock_to(&c, t0 + PACKET_NS);
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(0, COPRO_INT_ERROR));
    g_assert_cmphex(qtest_readl(c.qts, msg + 0), ==, 0x100);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0);
    g_assert_cmphex(qtest_readl(c.qts, msg + 8), ==, 0);
    qpci_msix_disable(c.dev);
    copro_shutdown(&c);
}

/*
 * With MSI (MSI-X off), every enabled cause of every engine sends the one
 * vector, at the instant it is raised; masked causes send nothing.
 */
static void test_irq_msi(void)
{
    Copro c;
    g_autoptr(GArray) w = copro_buf_new();
    uint64_t msg;
    uint8_t cap;
    int64_t t0;

    cmd_boot(&c, "msix=off");
    cap = qpci_find_capability(c.dev, PCI_CAP_ID_MSI, 0);
    g_assert_cmpuint(cap, !=, 0);
    msg = guest_alloc(&c.qs->alloc, 64);
    qtest_memset(c.qts, msg, 0, 64);
    qpci_config_writel(c.dev, cap + PCI_MSI_ADDRESS_LO, msg & 0xffffffff);
    qpci_config_writel(c.dev, cap + PCI_MSI_ADDRESS_HI, msg >> 32);
    qpci_config_writew(c.dev, cap + PCI_MSI_DATA_64, 0x4321);
    qpci_config_writew(c.dev, cap + PCI_MSI_FLAGS,
                       qpci_config_readw(c.dev, cap + PCI_MSI_FLAGS) |
                       PCI_MSI_FLAGS_ENABLE);
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_ENG(1, COPRO_INT_DMA_DONE) |
         COPRO_INT_ENG(0, COPRO_INT_FENCE));

    /* FENCE cause at t0 + 100, DMA_DONE at t0 + 200 */
    copro_pkt_fence(w, SCR, 1, COPRO_FENCE_IRQ);
    copro_pkt_nop(w, 1, 0);
    t0 = run_buf(&c, 1, BUF1, w, 1, 0, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS - 1);
    /* engine 1's FENCE cause is pending but masked: no message */
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(1, COPRO_INT_FENCE));
    g_assert_cmphex(qtest_readl(c.qts, msg), ==, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS);
    g_assert_cmphex(qtest_readl(c.qts, msg), ==, 0x4321);
    int_ack_all(&c);
    qtest_writel(c.qts, msg, 0);

    /* engine 0: its FENCE cause is enabled, its DMA_DONE is not */
    t0 = run_buf(&c, 0, BUF0, w, 2, 0, 0);
    copro_clock_to(&c, t0 + PACKET_NS);
    g_assert_cmphex(qtest_readl(c.qts, msg), ==, 0x4321);
    qtest_writel(c.qts, msg, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS);
    g_assert_cmphex(int_status(&c), ==,
                    COPRO_INT_ENG(0, COPRO_INT_FENCE | COPRO_INT_DMA_DONE));
    g_assert_cmphex(qtest_readl(c.qts, msg), ==, 0);
    g_assert_false(copro_intx_status(&c));
    copro_shutdown(&c);
}

/*
 * Without MSI-X and MSI, DMA_DONE of either engine asserts INTx while it
 * is pending and enabled; acknowledging it lowers the line; NO_IRQ keeps
 * it low.
 */
static void test_irq_intx(void)
{
    const int gsi = 10;
    Copro c;
    g_autoptr(GArray) w = copro_buf_new();
    int64_t t0;

    copro_boot(&c, "-M pc", "msix=off,msi=off");
    copro_ring_setup(&c, 0, RING0, RING_N);
    copro_ring_setup(&c, 1, RING1, RING_N);
    /* route all PIIX3 PIRQs to IRQ 10 (the firmware's job) */
    qtest_outl(c.qts, 0xcf8, 0x80000000 | (1 << 11) | 0x60);
    qtest_outl(c.qts, 0xcfc, 0x0a0a0a0a);
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_ENG(0, COPRO_INT_DMA_DONE) |
         COPRO_INT_ENG(1, COPRO_INT_DMA_DONE));

    copro_pkt_nop(w, 1, 0);
    copro_pkt_timestamp(w, SCR + 0x100);
    t0 = run_buf(&c, 1, BUF1, w, 1, 0, COPRO_SUBMIT_NO_IRQ);
    copro_clock_to(&c, t0 + 5000);
    g_assert_cmphex(erd64(&c, 1, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    g_assert_false(copro_intx_status(&c));
    g_assert_false(qtest_get_irq(c.qts, gsi));

    t0 = run_buf(&c, 1, BUF1, w, 2, 0, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS - 1);
    g_assert_false(qtest_get_irq(c.qts, gsi));
    copro_clock_to(&c, t0 + 2 * PACKET_NS);
    g_assert_true(copro_intx_status(&c));
    g_assert_true(qtest_get_irq(c.qts, gsi));
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_ENG(1, COPRO_INT_DMA_DONE));
    g_assert_false(copro_intx_status(&c));
    g_assert_false(qtest_get_irq(c.qts, gsi));

    t0 = run_buf(&c, 0, BUF0, w, 3, 0, 0);
    copro_clock_to(&c, t0 + 2 * PACKET_NS);
    g_assert_true(qtest_get_irq(c.qts, gsi));
    g_assert_cmphex(int_status(&c), ==, COPRO_INT_ENG(0, COPRO_INT_DMA_DONE));
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_ENG(0, COPRO_INT_DMA_DONE));
    g_assert_false(qtest_get_irq(c.qts, gsi));
    copro_shutdown(&c);
}

/*
 * Monitor
 */

/*
 * x-query-copro and "info copro" show live engines (busy in a WORK,
 * waiting in a WAIT: fence, context, ring pointers) and afterwards the
 * statistics, per engine and per context (busy time, submissions).
 */
static void test_monitor_live(void)
{
    const uint64_t work = 1000000;
    Copro c;
    g_autoptr(GArray) w = copro_buf_new();
    g_autoptr(GArray) wt = copro_buf_new();
    g_autoptr(GArray) cp = copro_buf_new();
    g_autofree char *busy = NULL;
    g_autofree char *done = NULL;
    QDict *rsp, *dev, *e0, *e1, *ctx;
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_work(w, work);
    copro_pkt_wait(wt, SCR, 1);
    copro_pkt_copy(cp, DATA + 0x10000, DATA, 4096);
    copro_buf_put(&c, BUF1, wt);
    copro_buf_put(&c, BUF1 + 0x100, cp);
    t0 = run_buf(&c, 0, BUF0, w, 42, 7, 0);
    copro_submit(&c, 1, BUF1, copro_buf_bytes(wt), 43, 9, 0);
    copro_submit(&c, 1, BUF1 + 0x100, copro_buf_bytes(cp), 44, 7, 0);
    copro_clock_to(&c, t0 + work / 2);

    dev = copro_query(&c, &rsp);
    g_assert_cmpuint(qdict_get_int(dev, "gpu-time-ns"), ==, t0 + work / 2);
    e0 = copro_query_engine(dev, 0);
    e1 = copro_query_engine(dev, 1);
    g_assert_cmpstr(qdict_get_str(e0, "state"), ==, "busy");
    g_assert_cmpuint(qdict_get_int(e0, "current-fence"), ==, 42);
    g_assert_cmpuint(qdict_get_int(e0, "current-context"), ==, 7);
    g_assert_cmphex(qdict_get_int(e0, "ring-base"), ==, RING0);
    g_assert_cmpuint(qdict_get_int(e0, "ring-size"), ==, RING_N);
    g_assert_cmpuint(qdict_get_int(e0, "ring-head"), ==, 1);
    g_assert_cmpuint(qdict_get_int(e0, "ring-tail"), ==, 1);
    g_assert_cmpuint(qdict_get_int(e0, "completed-fence"), ==, 0);
    g_assert_cmpstr(qdict_get_str(e0, "fault"), ==, "none");
    g_assert_cmpstr(qdict_get_str(e1, "state"), ==, "waiting");
    g_assert_cmpuint(qdict_get_int(e1, "current-fence"), ==, 43);
    g_assert_cmpuint(qdict_get_int(e1, "current-context"), ==, 9);
    g_assert_cmpuint(qdict_get_int(e1, "ring-head"), ==, 1);
    g_assert_cmpuint(qdict_get_int(e1, "ring-tail"), ==, 2);
    qobject_unref(rsp);

    busy = qtest_hmp(c.qts, "info copro");
    g_assert_nonnull(strstr(busy, "engine 0: busy, ring base 0x0 size 16 "
                            "head 1 tail 1"));
    g_assert_nonnull(strstr(busy, "context 7 fence 42, completed fence 0"));
    g_assert_nonnull(strstr(busy, "engine 1: waiting, ring base 0x1000 "
                            "size 16 head 1 tail 2"));
    g_assert_nonnull(strstr(busy, "context 9 fence 43, completed fence 0"));

    vram_w64(&c, SCR, 1);
    copro_clock_to(&c, t0 + 2 * work);
    assert_idle(&c, 0);
    assert_idle(&c, 1);
    dev = copro_query(&c, &rsp);
    e0 = copro_query_engine(dev, 0);
    e1 = copro_query_engine(dev, 1);
    g_assert_cmpstr(qdict_get_str(e0, "state"), ==, "idle");
    g_assert_cmpuint(qdict_get_int(e0, "busy-ns"), ==, PACKET_NS + work);
    g_assert_cmpuint(qdict_get_int(e0, "submissions"), ==, 1);
    g_assert_cmpuint(qdict_get_int(e0, "packets"), ==, 1);
    g_assert_cmpuint(qdict_get_int(e0, "bytes"), ==, 0);
    g_assert_cmpuint(qdict_get_int(e0, "completed-fence"), ==, 42);
    g_assert_cmpuint(qdict_get_int(e0, "current-fence"), ==, 0);
    g_assert_cmpuint(qdict_get_int(e1, "busy-ns"), ==,
                     2 * PACKET_NS + chunked_ns(4096, COPY_BW));
    g_assert_cmpuint(qdict_get_int(e1, "submissions"), ==, 2);
    g_assert_cmpuint(qdict_get_int(e1, "packets"), ==, 2);
    g_assert_cmpuint(qdict_get_int(e1, "bytes"), ==, 4096);
    g_assert_cmpuint(qdict_get_int(e1, "completed-fence"), ==, 44);
    g_assert_cmpuint(qdict_get_int(e1, "faults"), ==, 0);
    g_assert_cmpuint(qdict_get_int(e0, "busy-ns"), ==,
                     erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS));
    ctx = copro_query_context(dev, 7);
    g_assert_nonnull(ctx);
    g_assert_cmpuint(qdict_get_int(ctx, "busy-ns"), ==, 2 * PACKET_NS + work +
                     chunked_ns(4096, COPY_BW));
    g_assert_cmpuint(qdict_get_int(ctx, "submissions"), ==, 2);
    ctx = copro_query_context(dev, 9);
    g_assert_nonnull(ctx);
    g_assert_cmpuint(qdict_get_int(ctx, "busy-ns"), ==, PACKET_NS);
    g_assert_cmpuint(qdict_get_int(ctx, "submissions"), ==, 1);
    g_assert_null(copro_query_context(dev, 0));
    g_assert_cmpuint(qlist_size(qdict_get_qlist(dev, "contexts")), ==, 2);
    qobject_unref(rsp);

    done = qtest_hmp(c.qts, "info copro");
    g_assert_nonnull(strstr(done, "engine 0: idle"));
    g_assert_nonnull(strstr(done, "busy 1000100 ns, 1 submissions, "
                            "1 packets, 0 bytes, 0 faults"));
    g_assert_nonnull(strstr(done, "context 9: busy 100 ns, 1 submissions"));
    /* the display comes last, after the contexts (the spec's order) */
    g_assert_nonnull(strstr(done, "  display: "));
    g_assert_true(strstr(done, "  display: ") >
                  strstr(done, "context 9: busy"));
    copro_shutdown(&c);
}

/*
 * Time model
 */

/*
 * Custom cost properties: TIMESTAMPs between packets of every kind equal
 * the modelled engine clock, and STAT_BUSY_NS is their sum.
 */
static void test_timestamps_model(void)
{
    const CostModel m = { 1000, 1000000000, 2000000000, 1000000000 };
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    uint64_t expect[7], t;
    int64_t t0;

    cmd_boot(&c, "packet-ns=1000,copy-bw=1000000000,fill-bw=2000000000,"
             "pixel-rate=1000000000");
    vram_w64(&c, SCR + 0x80, 3);
    copro_pkt_timestamp(b, SCR);
    copro_pkt_work(b, 12345);
    copro_pkt_timestamp(b, SCR + 8);
    copro_pkt_copy(b, DATA + 0x40000, DATA, 100000);
    copro_pkt_timestamp(b, SCR + 16);
    copro_pkt_fill(b, DATA + 0x80000, 70000, 0x12345678);
    copro_pkt_timestamp(b, SCR + 24);
    copro_pkt_set_target(b, 0, DATA + 0xc0000, 16, 10, 10, COPRO_FMT_R8);
    copro_pkt_rect(b, 0, 0, 0, 10, 10, 0xff);
    copro_pkt_timestamp(b, SCR + 32);
    copro_pkt_nop(b, 3, 0);
    copro_pkt_timestamp(b, SCR + 40);
    copro_pkt_wait(b, SCR + 0x80, 3);
    copro_pkt_interrupt(b, 1);
    copro_pkt_fence(b, SCR + 0x88, 1, 0);
    copro_pkt_timestamp(b, SCR + 48);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);

    t = t0 + m.packet_ns;
    expect[0] = t;
    t += m.packet_ns + 12345 + m.packet_ns;
    expect[1] = t;
    t += m.packet_ns + 65536 + 34464 + m.packet_ns;
    expect[2] = t;
    t += m.packet_ns + 32768 + 2232 + m.packet_ns;
    expect[3] = t;
    t += m.packet_ns + m.packet_ns + 100 + m.packet_ns;
    expect[4] = t;
    t += 2 * m.packet_ns;
    expect[5] = t;
    t += 4 * m.packet_ns;
    expect[6] = t;
    g_assert_cmpuint(expect[2] - expect[1], ==, m.packet_ns * 2 +
                     chunked_ns(100000, m.copy_bw));

    copro_clock_to(&c, t - 1);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    copro_clock_to(&c, t);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    for (int i = 0; i < 7; i++) {
        g_assert_cmpuint(vram_r64(&c, SCR + 8 * i), ==, expect[i]);
    }
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, t - t0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BYTES), ==,
                     100000 + 70000 + 100);
    copro_shutdown(&c);
}

/*
 * timing=instant: everything retires without the clock moving, every
 * TIMESTAMP reads the doorbell time and no busy time is charged, even for
 * a WORK of an hour.
 */
static void test_instant(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(300000);
    int64_t t0;

    cmd_boot(&c, "timing=instant");
    fill_random(src, 300000, 5);
    vram_write(&c, DATA, src, 300000);
    copro_pkt_timestamp(b, SCR);
    copro_pkt_work(b, 3600ull * NS_PER_SEC);
    copro_pkt_copy(b, DATA + 0x100000, DATA, 300000);
    copro_pkt_fill(b, DATA + 0x200000, 1 * MiB, 0);
    copro_pkt_timestamp(b, SCR + 8);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpint(copro_time(&c), ==, t0);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    g_assert_cmpuint(vram_r64(&c, SCR), ==, t0);
    g_assert_cmpuint(vram_r64(&c, SCR + 8), ==, t0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BYTES), ==,
                     300000 + 1 * MiB);
    vram_assert(&c, DATA + 0x100000, src, 300000);
    copro_shutdown(&c);
}

/*
 * The slice budget does not change modelled time: with x-slice-packets
 * small enough that the engine yields between steps and between
 * submissions, and the test stepping the clock in large jumps, every
 * TIMESTAMP still equals t0 + k x packet-ns.
 */
static void test_slice_time(const void *data)
{
    g_autofree char *opts = g_strdup_printf("x-slice-packets=%u",
                                            GPOINTER_TO_UINT(data));
    const unsigned n = 8;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, opts);
    for (unsigned i = 0; i < n; i++) {
        copro_pkt_timestamp(b, SCR + 8 * i);
    }
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);
    copro_submit(&c, 0, BUF0, copro_buf_bytes(b) / 2, 2, 0, 0);
    for (unsigned i = 1; i <= 3 * n; i++) {
        copro_clock_to(&c, t0 + i * 1000000);
    }
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 2);
    for (unsigned i = 0; i < n / 2; i++) {
        g_assert_cmpuint(vram_r64(&c, SCR + 8 * i), ==,
                         t0 + (n + i + 1) * PACKET_NS);
    }
    for (unsigned i = n / 2; i < n; i++) {
        g_assert_cmpuint(vram_r64(&c, SCR + 8 * i), ==,
                         t0 + (i + 1) * PACKET_NS);
    }
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), ==,
                     (n + n / 2) * PACKET_NS);
    copro_shutdown(&c);
}

/*
 * x-slice-packets=4 with a buffer of thousands of NOPs: the engine yields
 * every few steps and still completes, in instant mode (driven by the
 * main loop alone) and in modelled mode at exactly n x packet-ns.
 */
static void test_slice_many_nops(const void *data)
{
    const bool instant = GPOINTER_TO_INT(data);
    const unsigned n = 4000;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;

    cmd_boot(&c, instant ? "x-slice-packets=4,timing=instant"
                         : "x-slice-packets=4");
    for (unsigned i = 0; i < n; i++) {
        copro_pkt_nop(b, 1, 0);
    }
    copro_pkt_fence(b, SCR, 0x600d, 0);
    copro_pkt_timestamp(b, SCR + 8);
    t0 = run_buf(&c, 0, BUF0, b, 1, 0, 0);
    if (instant) {
        g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
        g_assert_cmpuint(vram_r64(&c, SCR + 8), ==, t0);
    } else {
        copro_clock_to(&c, t0 + (n + 2) * PACKET_NS - 1);
        g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
        g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, n + 1);
        copro_clock_to(&c, t0 + (n + 2) * PACKET_NS);
        g_assert_cmpuint(vram_r64(&c, SCR + 8), ==, t0 + (n + 2) * PACKET_NS);
    }
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x600d);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, n + 2);
    copro_shutdown(&c);
}

/*
 * A ring kept full of long WORK never blocks the qtest: between clock
 * steps registers and the monitor answer, time advances exactly, the
 * engine stays busy on the first entry; an engine reset then aborts it
 * and the ring is usable again (the next entry wraps to slot 0).
 */
static void test_ring_full_work(void)
{
    Copro c;
    g_autoptr(GArray) w = copro_buf_new();
    g_autoptr(GArray) ts = copro_buf_new();
    QDict *rsp, *dev;
    int64_t t0;

    cmd_boot(&c, "");
    copro_pkt_work(w, 10ull * NS_PER_SEC);
    copro_buf_put(&c, BUF0, w);
    for (unsigned i = 0; i < RING_N - 1; i++) {
        struct copro_submit_desc d = copro_desc(BUF0, copro_buf_bytes(w),
                                                i + 1, 1, 0);

        copro_queue(&c, 0, i, &d);
    }
    t0 = copro_time(&c);
    ewr32(&c, 0, COPRO_ENG_RING_TAIL, RING_N - 1);
    for (unsigned i = 1; i <= 5; i++) {
        copro_clock_to(&c, t0 + i * 10000000);
        g_assert_cmpint(copro_time(&c), ==, t0 + i * 10000000);
        wr32(&c, COPRO_REG_SCRATCH, i);
        g_assert_cmpuint(rd32(&c, COPRO_REG_SCRATCH), ==, i);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_BUSY);
        g_assert_cmphex(erd64(&c, 0, COPRO_ENG_CURRENT_FENCE), ==, 1);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 1);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==, RING_N - 1);
        dev = copro_query(&c, &rsp);
        g_assert_cmpstr(qdict_get_str(copro_query_engine(dev, 0), "state"),
                        ==, "busy");
        qobject_unref(rsp);
    }
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_ABORTED_FENCE), ==, 1);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    assert_idle(&c, 0);

    copro_pkt_timestamp(ts, SCR);
    t0 = run_buf(&c, 0, BUF0 + 0x100, ts, 100, 1, 0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==, 0);
    copro_clock_to(&c, t0 + PACKET_NS);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 100);
    g_assert_cmpuint(vram_r64(&c, SCR), ==, t0 + PACKET_NS);
    copro_shutdown(&c);
}

/*
 * timing=instant with a ring of huge NOP buffers (millions of packets):
 * the engine runs from the main loop in slices, so the qtest keeps being
 * served and sees it progress; an engine reset stops it at once.
 */
static void test_instant_flood(void)
{
    const uint32_t len = 4 * MiB;
    Copro c;
    g_autofree uint32_t *nops = g_new(uint32_t, len / 4);
    uint64_t p0, p1;
    unsigned polls = 0;

    cmd_boot(&c, "timing=instant");
    for (uint32_t i = 0; i < len / 4; i++) {
        nops[i] = cpu_to_le32(COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1));
    }
    vram_write(&c, DATA, nops, len);
    for (unsigned i = 0; i < RING_N - 1; i++) {
        struct copro_submit_desc d = copro_desc(DATA, len, i + 1, 1, 0);

        copro_queue(&c, 0, i, &d);
    }
    ewr32(&c, 0, COPRO_ENG_RING_TAIL, RING_N - 1);

    p0 = erd64(&c, 0, COPRO_ENG_STAT_PACKETS);
    do {
        g_assert_cmpuint(++polls, <, 1000000);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_BUSY);
        p1 = erd64(&c, 0, COPRO_ENG_STAT_PACKETS);
    } while (p1 == p0);
    g_assert_cmpuint(p1, <, (uint64_t)(RING_N - 1) * (len / 4));
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    assert_idle(&c, 0);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_ABORTED_FENCE), ==,
                    erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE) + 1);
    p0 = erd64(&c, 0, COPRO_ENG_STAT_PACKETS);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PACKETS), ==, p0);
    copro_shutdown(&c);
}

int main(int argc, char **argv)
{
    static const uint64_t work_ns[] = { 0, 1, 100000, 250001, 1000000 };
    static const uint32_t slices[] = { 1, 2, 3, 4 };
    static const char *const fmt_names[] = {
        [COPRO_FMT_R8] = "r8",
        [COPRO_FMT_RGB565] = "rgb565",
        [COPRO_FMT_XRGB8888] = "xrgb8888",
    };

    g_test_init(&argc, &argv, NULL);
    if (!qtest_has_device("copro")) {
        g_test_skip("copro device not built");
        return g_test_run();
    }
    qtest_add_func("/copro/cmd/packet/nop", test_nop);
    qtest_add_func("/copro/cmd/packet/timestamp", test_timestamp);
    qtest_add_func("/copro/cmd/packet/interrupt", test_interrupt);
    qtest_add_func("/copro/cmd/packet/fence", test_fence);
    qtest_add_func("/copro/cmd/packet/wait-satisfied", test_wait_satisfied);
    qtest_add_func("/copro/cmd/packet/copy", test_copy);
    for (size_t i = 0; i < G_N_ELEMENTS(copy_large_cases); i++) {
        g_autofree char *p = g_strdup_printf("/copro/cmd/packet/copy-large/%s",
                                             copy_large_cases[i].name);

        qtest_add_data_func(p, &copy_large_cases[i], test_copy_large);
    }
    qtest_add_func("/copro/cmd/packet/copy-overlap", test_copy_overlap);
    qtest_add_func("/copro/cmd/packet/fill", test_fill);
    for (uint32_t f = COPRO_FMT_R8; f <= COPRO_FMT_XRGB8888; f++) {
        g_autofree char *p = g_strdup_printf("/copro/cmd/packet/rect/%s",
                                             fmt_names[f]);

        qtest_add_data_func(p, GUINT_TO_POINTER(f), test_rect);
    }
    qtest_add_func("/copro/cmd/packet/rect-bands", test_rect_bands);
    for (size_t i = 0; i < G_N_ELEMENTS(work_ns); i++) {
        g_autofree char *p = g_strdup_printf("/copro/cmd/packet/work/%"
                                             PRIu64, work_ns[i]);

        qtest_add_data_func(p, GSIZE_TO_POINTER(work_ns[i]), test_work);
    }
    qtest_add_func("/copro/cmd/ring/wrap", test_ring_wrap);
    qtest_add_func("/copro/cmd/ring/zero-length", test_zero_length);
    qtest_add_func("/copro/cmd/ring/fence-writeback", test_fence_writeback);
    qtest_add_func("/copro/cmd/ring/reprogram-busy", test_ring_reprogram);
    qtest_add_func("/copro/cmd/ring/beyond-2-64", test_ring_wrap_2_64);
    qtest_add_func("/copro/cmd/ring/full-of-work", test_ring_full_work);
    qtest_add_func("/copro/cmd/ring/instant-flood", test_instant_flood);
    qtest_add_data_func("/copro/cmd/wait/cross-engine/stepped",
                        GINT_TO_POINTER(false), test_wait_cross_engine);
    qtest_add_data_func("/copro/cmd/wait/cross-engine/one-step",
                        GINT_TO_POINTER(true), test_wait_cross_engine);
    qtest_add_func("/copro/cmd/wait/writeback", test_wait_writeback);
    qtest_add_func("/copro/cmd/wait/cpu-write", test_wait_cpu_write);
    qtest_add_func("/copro/cmd/wait/reset", test_wait_reset);
    for (size_t i = 0; i < G_N_ELEMENTS(error_cases); i++) {
        g_autofree char *p = g_strdup_printf("/copro/cmd/error/%s",
                                             error_cases[i].name);

        qtest_add_data_func(p, &error_cases[i], test_error);
    }
    qtest_add_func("/copro/cmd/error/reset-busy", test_reset_busy);
    qtest_add_func("/copro/cmd/error/copy-engine-ops", test_copy_engine_ops);
    qtest_add_func("/copro/cmd/irq/msix", test_irq_msix);
    qtest_add_func("/copro/cmd/irq/msi", test_irq_msi);
    qtest_add_func("/copro/cmd/irq/intx", test_irq_intx);
    qtest_add_func("/copro/cmd/monitor/live", test_monitor_live);
    qtest_add_func("/copro/cmd/time/model", test_timestamps_model);
    qtest_add_func("/copro/cmd/time/instant", test_instant);
    for (size_t i = 0; i < G_N_ELEMENTS(slices); i++) {
        g_autofree char *p = g_strdup_printf("/copro/cmd/time/slice-%u",
                                             slices[i]);

        qtest_add_data_func(p, GUINT_TO_POINTER(slices[i]), test_slice_time);
    }
    qtest_add_data_func("/copro/cmd/slice/many-nops/modelled",
                        GINT_TO_POINTER(false), test_slice_many_nops);
    qtest_add_data_func("/copro/cmd/slice/many-nops/instant",
                        GINT_TO_POINTER(true), test_slice_many_nops);
    return g_test_run();
}
