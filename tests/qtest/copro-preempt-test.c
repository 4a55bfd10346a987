/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's preemption, engine reset and fault injection: each
 * granularity's arbitration points and latency bound in virtual time,
 * save/resume giving the same memory as an uninterrupted run, paging
 * buffers, idle and repeated requests, and the x-fault-injection modes.
 *
 * One program past a thousand lines, as each of the device's qtests is:
 * one chapter of docs/specs/copro.rst ("Preemption"), each rule a case
 * over one harness.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "copro-qtest.h"

#define RING0       0x0000          /* engine 0 ring, 64 entries */
#define RING1       0x1000          /* engine 1 ring */
#define SAVE        0x2000          /* save areas, 256 bytes each */
#define FLAG        0x3000          /* WAIT flag */
#define BUF         0x10000         /* DMA buffers */
#define DATA        (1 * MiB)       /* source data */
#define OUT         (4 * MiB)       /* output area */
#define OUT_SIZE    (2 * MiB)
#define PKT_NS      100
#define SLICE_NS    100000          /* arbitration-ns, default */
#define GART        0x4000          /* GART table, 16 entries */
#define TS          0x5000          /* timestamps */
/* a 4 KiB FILL at the default 16 GiB/s */
#define FILL4K_NS   (4096ULL * 1000000000ULL / (16ULL << 30))

static const char *const granularities[] = {
    "none", "dma-buffer", "command", "mid-command"
};

/*
 * Most tests look at arbitration points and their exact timing, so they
 * run with free context switches (ctx-state-size=0); the cost of a switch
 * has tests of its own. @opts may set it again: the last value wins.
 */
static void boot(Copro *c, const char *opts)
{
    g_autofree char *all = g_strdup_printf("ctx-state-size=0%s%s",
                                           *opts ? "," : "", opts);

    copro_boot(c, "-M q35", all);
    copro_ring_setup(c, 0, RING0, 64);
    copro_ring_setup(c, 1, RING1, 64);
}

static uint64_t preempt_bit(unsigned e)
{
    return COPRO_INT_ENG(e, COPRO_INT_PREEMPTED);
}

static void request(Copro *c, unsigned e, uint64_t fence)
{
    ewr64(c, e, COPRO_ENG_PREEMPT_REQ, fence);
}

static bool preempted(Copro *c, unsigned e)
{
    return rd64(c, COPRO_REG_INT_STATUS) & preempt_bit(e);
}

static void ack_all(Copro *c)
{
    wr64(c, COPRO_REG_INT_STATUS, ~0ULL);
}

static void submit_save(Copro *c, unsigned e, uint64_t addr, uint32_t len,
                        uint64_t fence, uint32_t flags, uint64_t save)
{
    struct copro_submit_desc d = copro_desc(addr, len, fence, 7, flags);

    d.save_addr = save;
    copro_submit_desc(c, e, &d);
}

static void read_save(Copro *c, uint64_t at, struct copro_save_record *r)
{
    vram_read(c, at, r, sizeof(*r));
}

/* The capability registers follow the "preempt" property. */
static void test_caps(void)
{
    for (unsigned g = 0; g < G_N_ELEMENTS(granularities); g++) {
        g_autofree char *opts = g_strdup_printf("preempt=%s",
                                                granularities[g]);
        Copro c;

        copro_boot(&c, "-M q35", opts);
        g_assert_cmpuint(rd32(&c, COPRO_REG_PREEMPT_CAPS), ==, g);
        g_assert_cmpuint(!!(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_PREEMPTION),
                         ==, g != COPRO_PREEMPT_NONE);
        g_assert_false(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_FAULT_INJECTION);
        copro_shutdown(&c);
    }
}

/* A request to an idle engine completes at once, interrupting nothing. */
static void test_idle(void)
{
    Copro c;

    boot(&c, "");
    request(&c, 0, 0x1234);
    copro_run(&c, 0);
    g_assert_true(preempted(&c, 0));
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPT_FENCE), ==, 0x1234);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 1);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==, 0);
    /* the request went nowhere else */
    g_assert_false(preempted(&c, 1));
    copro_shutdown(&c);
}

/*
 * A 10 ms WORK, preempted 1.23 ms in: with mid-command granularity the
 * engine stops at the end of the current 100 us slice. The save record
 * names the packet and its progress; resuming runs exactly the rest.
 */
static void test_work_mid_command(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    struct copro_save_record r;
    Copro c;
    int64_t t0, treq, first_slice_end;
    uint32_t len;

    boot(&c, "preempt=mid-command");
    copro_pkt_work(b, 10 * 1000 * 1000);
    copro_pkt_fill(b, OUT, 4096, 0xabcdabcd);
    len = copro_buf_put(&c, BUF, b);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 5, 0, SAVE);
    copro_run_until_busy(&c, 0);
    /* slices end at t0 + 100 + k * 100 us */
    treq = t0 + 1230 * 1000;
    copro_clock_to(&c, treq);
    request(&c, 0, 99);
    first_slice_end = t0 + PKT_NS + 13 * SLICE_NS;
    copro_clock_to(&c, first_slice_end - 1);
    g_assert_false(preempted(&c, 0));
    copro_clock_to(&c, first_slice_end);
    g_assert_true(preempted(&c, 0));
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPT_FENCE), ==, 99);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 5);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==,
                     first_slice_end - treq);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MIN), ==,
                     first_slice_end - treq);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_SUM), ==,
                     first_slice_end - treq);
    read_save(&c, SAVE, &r);
    g_assert_cmphex(le32_to_cpu(r.magic), ==, COPRO_SAVE_MAGIC);
    g_assert_cmpuint(le32_to_cpu(r.version), ==, COPRO_SAVE_VERSION);
    g_assert_cmphex(le64_to_cpu(r.dma_addr), ==, BUF);
    g_assert_cmpuint(le32_to_cpu(r.dma_len), ==, len);
    g_assert_cmpuint(le32_to_cpu(r.offset), ==, 0);
    g_assert_cmpuint(le32_to_cpu(r.in_packet), ==, 1);
    g_assert_cmpuint(le64_to_cpu(r.progress), ==, 13 * SLICE_NS);
    g_assert_cmpuint(le64_to_cpu(r.fence), ==, 5);
    /* the FILL after the WORK has not run */
    g_assert_cmphex(vram_r32(&c, OUT), ==, 0);

    /* resume: the remaining 8.7 ms, then the FILL */
    ack_all(&c);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 6, COPRO_SUBMIT_RESUME, SAVE);
    copro_run_until_busy(&c, 0);
    copro_clock_to(&c, t0 + 8700 * 1000 + PKT_NS + FILL4K_NS - 1);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    copro_clock_to(&c, t0 + 8700 * 1000 + PKT_NS + FILL4K_NS);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 6);
    g_assert_cmphex(vram_r32(&c, OUT + 4092), ==, 0xabcdabcd);
    copro_shutdown(&c);
}

/*
 * The latency bound of each granularity, with a buffer of two WORK packets
 * of 1 ms each (then a second queued buffer) and a request 300 us in:
 * mid-command stops at the slice end, command at the end of the first
 * packet, dma-buffer at the end of the buffer, none when the ring is empty.
 */
static void test_latency_bounds(void)
{
    for (unsigned g = 0; g < G_N_ELEMENTS(granularities); g++) {
        g_autofree char *opts = g_strdup_printf("preempt=%s",
                                                granularities[g]);
        g_autoptr(GArray) b = copro_buf_new();
        int64_t t0, treq, expect;
        uint32_t len;
        Copro c;

        boot(&c, opts);
        copro_pkt_work(b, 1000 * 1000);
        copro_pkt_work(b, 1000 * 1000);
        len = copro_buf_put(&c, BUF, b);
        t0 = copro_time(&c);
        submit_save(&c, 0, BUF, len, 1, 0, SAVE);
        submit_save(&c, 0, BUF, len, 2, 0, SAVE + 256);
        copro_run_until_busy(&c, 0);
        treq = t0 + 300 * 1000;
        copro_clock_to(&c, treq);
        request(&c, 0, 50 + g);
        switch (g) {
        case COPRO_PREEMPT_MID_COMMAND:
            expect = t0 + PKT_NS + 3 * SLICE_NS;
            break;
        case COPRO_PREEMPT_COMMAND:
            expect = t0 + PKT_NS + 1000 * 1000;
            break;
        case COPRO_PREEMPT_DMA_BUFFER:
            expect = t0 + 2 * (PKT_NS + 1000 * 1000);
            break;
        default:
            expect = t0 + 4 * (PKT_NS + 1000 * 1000);
            break;
        }
        copro_clock_to(&c, expect - 1);
        g_assert_false(preempted(&c, 0));
        copro_clock_to(&c, expect);
        g_assert_true(preempted(&c, 0));
        g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==,
                         expect - treq);
        /* what completed and what was interrupted */
        switch (g) {
        case COPRO_PREEMPT_MID_COMMAND:
        case COPRO_PREEMPT_COMMAND:
            g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 1);
            g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
            break;
        case COPRO_PREEMPT_DMA_BUFFER:
            /* between buffers: fence 2 was dropped, never started */
            g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 0);
            g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
            break;
        default:
            g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 0);
            g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 2);
            break;
        }
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==,
                         erd32(&c, 0, COPRO_ENG_RING_TAIL));
        copro_shutdown(&c);
    }
}

/*
 * The reference workload: packets whose results depend on their order and
 * on mid-packet progress, in one buffer.
 */
static uint32_t build_workload(Copro *c, uint64_t at)
{
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(512 * KiB);

    for (size_t i = 0; i < 512 * KiB; i++) {
        src[i] = i * 7 + (i >> 9);
    }
    vram_write(c, DATA, src, 512 * KiB);
    copro_pkt_fill(b, OUT, OUT_SIZE, 0x11111111);
    copro_pkt_copy(b, OUT + 100, DATA, 512 * KiB - 3);
    copro_pkt_set_target(b, 1, OUT + MiB, 1024, 256, 300,
                         COPRO_FMT_XRGB8888);
    copro_pkt_rect(b, 1, 10, 5, 200, 290, 0x00ff8800);
    copro_pkt_work(b, 350 * 1000);
    copro_pkt_set_target(b, 2, OUT + MiB + 512 * KiB, 512, 500, 200,
                         COPRO_FMT_R8);
    copro_pkt_rect(b, 2, 0, 0, 600, 100, 0x5a);
    copro_pkt_copy(b, OUT + 600 * KiB, OUT + 100, 300 * KiB);
    copro_pkt_rect(b, 1, 0, 200, 4, 4, 0x12345678);
    /*
     * An overlapping forward COPY: its result depends on which chunks have
     * run, so a resume that restarted or skipped a chunk would show.
     */
    copro_pkt_copy(b, OUT + 1600 * KiB, DATA, 256 * KiB);
    copro_pkt_copy(b, OUT + 1600 * KiB + 4096, OUT + 1600 * KiB, 256 * KiB);
    return copro_buf_put(c, at, b);
}

/*
 * Preempt the workload every @period ns of virtual time and resume it
 * until it completes; return the number of preemptions that interrupted
 * it.
 */
static unsigned run_preempted(Copro *c, uint32_t len, int64_t period)
{
    unsigned interrupted = 0;
    uint64_t fence = 100;

    submit_save(c, 0, BUF, len, fence, 0, SAVE);
    for (unsigned round = 0; round < 10000; round++) {
        int64_t now;

        copro_run_until_busy(c, 0);
        if (erd64(c, 0, COPRO_ENG_COMPLETED_FENCE) == fence) {
            return interrupted;
        }
        now = copro_time(c);
        copro_clock_to(c, now + period);
        request(c, 0, 1000 + round);
        while (!preempted(c, 0) &&
               erd64(c, 0, COPRO_ENG_COMPLETED_FENCE) != fence) {
            qtest_clock_step_next(c->qts);
        }
        g_assert_cmpuint(erd32(c, 0, COPRO_ENG_STATE), !=,
                         COPRO_ENG_STATE_HALTED);
        if (preempted(c, 0)) {
            ack_all(c);
            if (erd64(c, 0, COPRO_ENG_PREEMPTED_FENCE) == fence) {
                interrupted++;
                submit_save(c, 0, BUF, len, ++fence, COPRO_SUBMIT_RESUME,
                            SAVE);
            } else {
                g_assert_cmpuint(erd64(c, 0, COPRO_ENG_COMPLETED_FENCE), ==,
                                 fence);
                return interrupted;
            }
        }
    }
    g_assert_not_reached();
}

/*
 * At every granularity, a workload preempted many times and resumed
 * leaves memory byte for byte as the uninterrupted run does.
 */
static void test_resume_equivalence(const void *data)
{
    const char *gran = data;
    g_autofree char *opts = g_strdup_printf("preempt=%s", gran);
    g_autofree uint8_t *ref = g_malloc(OUT_SIZE);
    g_autofree uint8_t *got = g_malloc(OUT_SIZE);
    uint32_t len;
    unsigned n;
    Copro c;

    /* reference: uninterrupted */
    boot(&c, opts);
    len = build_workload(&c, BUF);
    submit_save(&c, 0, BUF, len, 1, 0, SAVE);
    while (erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE) != 1) {
        qtest_clock_step_next(c.qts);
    }
    vram_read(&c, OUT, ref, OUT_SIZE);
    copro_shutdown(&c);

    /* the same, preempted every 37 us */
    boot(&c, opts);
    len = build_workload(&c, BUF);
    n = run_preempted(&c, len, 37 * 1000);
    vram_read(&c, OUT, got, OUT_SIZE);
    g_assert_cmpmem(got, OUT_SIZE, ref, OUT_SIZE);
    if (!strcmp(gran, "mid-command")) {
        g_assert_cmpuint(n, >=, 8);
    } else if (!strcmp(gran, "command")) {
        g_assert_cmpuint(n, >=, 3);
    } else {
        g_assert_cmpuint(n, ==, 0);
    }
    g_test_message("%s: %u preemptions interrupted the buffer", gran, n);
    copro_shutdown(&c);
}

/* A blocked WAIT is preempted at once (command and finer) and resumed. */
static void test_wait(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint32_t len;
    Copro c;

    boot(&c, "preempt=command");
    vram_w64(&c, FLAG, 0);
    copro_pkt_fill(b, OUT, 64, 0x01010101);
    copro_pkt_wait(b, FLAG, 3);
    copro_pkt_fill(b, OUT + 64, 64, 0x02020202);
    len = copro_buf_put(&c, BUF, b);
    submit_save(&c, 0, BUF, len, 8, 0, SAVE);
    for (int i = 0; i < 10; i++) {
        qtest_clock_step(c.qts, 10000);
    }
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    request(&c, 0, 77);
    copro_run(&c, 0);
    g_assert_true(preempted(&c, 0));
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 8);
    g_assert_cmphex(vram_r32(&c, OUT), ==, 0x01010101);
    g_assert_cmphex(vram_r32(&c, OUT + 64), ==, 0);

    /* resume with the condition met: the WAIT passes, the FILL runs */
    ack_all(&c);
    vram_w64(&c, FLAG, 3);
    submit_save(&c, 0, BUF, len, 9, COPRO_SUBMIT_RESUME, SAVE);
    for (int i = 0; i < 10 &&
         erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE) != 9; i++) {
        qtest_clock_step(c.qts, 10000);
    }
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 9);
    g_assert_cmphex(vram_r32(&c, OUT + 64), ==, 0x02020202);
    copro_shutdown(&c);
}

/*
 * A paging buffer is not preemptible: the request completes after it,
 * and the entries queued behind it are dropped. (The PAGING flag, not the
 * engine, decides; the render engine is used for its WORK packet.)
 */
static void test_paging(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;
    uint32_t len;
    Copro c;

    boot(&c, "preempt=mid-command");
    copro_pkt_work(b, 500 * 1000);
    len = copro_buf_put(&c, BUF, b);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 1, COPRO_SUBMIT_PAGING, SAVE);
    submit_save(&c, 0, BUF, len, 2, 0, SAVE + 256);
    copro_run_until_busy(&c, 0);
    copro_clock_to(&c, t0 + 1000);
    request(&c, 0, 31);
    copro_clock_to(&c, t0 + PKT_NS + 500 * 1000 - 1);
    g_assert_false(preempted(&c, 0));
    copro_clock_to(&c, t0 + PKT_NS + 500 * 1000);
    g_assert_true(preempted(&c, 0));
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 2);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    copro_shutdown(&c);
}

/* Two requests before the arbitration point give one preemption. */
static void test_twice(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    int64_t t0;
    uint32_t len;
    Copro c;

    boot(&c, "preempt=mid-command");
    copro_pkt_work(b, 1000 * 1000);
    len = copro_buf_put(&c, BUF, b);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 4, 0, SAVE);
    copro_run_until_busy(&c, 0);
    copro_clock_to(&c, t0 + 10000);
    request(&c, 0, 61);
    copro_clock_to(&c, t0 + 20000);
    /* lower half first, then the upper half makes the request */
    ewr32(&c, 0, COPRO_ENG_PREEMPT_REQ, 62);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 0);
    ewr32(&c, 0, COPRO_ENG_PREEMPT_REQ + 4, 0);
    copro_clock_to(&c, t0 + PKT_NS + SLICE_NS);
    g_assert_true(preempted(&c, 0));
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_PREEMPT_FENCE), ==, 62);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 1);
    /* latency counts from the first request */
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==,
                     PKT_NS + SLICE_NS - 10000);
    /* and a third one, now idle, completes at once */
    ack_all(&c);
    request(&c, 0, 63);
    copro_run(&c, 0);
    g_assert_true(preempted(&c, 0));
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPTIONS), ==, 2);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MIN), ==, 0);
    copro_shutdown(&c);
}

/* Engine reset mid-buffer aborts it and reports the fences. */
static void test_engine_reset(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) f = copro_buf_new();
    uint32_t len, flen;
    int64_t t0;
    Copro c;

    boot(&c, "");
    copro_pkt_work(b, 1000 * 1000);
    len = copro_buf_put(&c, BUF, b);
    copro_pkt_fill(f, OUT, 16, 0x77777777);
    flen = copro_buf_put(&c, BUF + 0x1000, f);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 10, 0, SAVE);
    submit_save(&c, 0, BUF, len, 11, 0, SAVE);
    submit_save(&c, 0, BUF, len, 12, 0, SAVE);
    copro_clock_to(&c, t0 + 1500 * 1000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 10);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_CURRENT_FENCE), ==, 11);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_ABORTED_FENCE), ==, 11);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 10);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==,
                     erd32(&c, 0, COPRO_ENG_RING_TAIL));
    copro_clock_to(&c, t0 + 5000 * 1000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 10);
    /* the engine takes new work */
    submit_save(&c, 0, BUF + 0x1000, flen, 13, 0, SAVE);
    copro_clock_to(&c, t0 + 6000 * 1000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 13);
    g_assert_cmphex(vram_r32(&c, OUT + 12), ==, 0x77777777);
    copro_shutdown(&c);
}

/* Without x-fault-injection the INJECT register does nothing. */
static void test_inject_disabled(void)
{
    Copro c;

    boot(&c, "");
    ewr32(&c, 0, COPRO_ENG_INJECT, COPRO_INJECT_HANG);
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_INJECT), ==, 0);
    copro_shutdown(&c);
}

/* HANG: no progress, no completion, preemption deferred; reset recovers. */
static void test_inject_hang(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint32_t len;
    int64_t t0;
    Copro c;

    boot(&c, "x-fault-injection=on");
    g_assert_true(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_FAULT_INJECTION);
    copro_pkt_fill(b, OUT, 16, 0x55555555);
    len = copro_buf_put(&c, BUF, b);
    ewr32(&c, 0, COPRO_ENG_INJECT, COPRO_INJECT_HANG);
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_INJECT), ==, COPRO_INJECT_HANG);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 21, 0, SAVE);
    copro_clock_to(&c, t0 + 1000 * 1000);
    request(&c, 0, 5);
    copro_clock_to(&c, t0 + 3000 * 1000);
    g_assert_false(preempted(&c, 0));
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_BUSY);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_CURRENT_FENCE), ==, 21);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 0);
    /* a hung engine touches no memory: the FILL has not happened */
    g_assert_cmphex(vram_r32(&c, OUT), ==, 0);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_ABORTED_FENCE), ==, 21);
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_INJECT), ==, 0);
    submit_save(&c, 0, BUF, len, 22, 0, SAVE);
    copro_clock_to(&c, t0 + 4000 * 1000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 22);
    g_assert_cmphex(vram_r32(&c, OUT + 12), ==, 0x55555555);
    copro_shutdown(&c);
}

/* FAULT_NEXT faults the next packet; DROP_IRQ loses one DMA_DONE. */
static void test_inject_fault_and_drop(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint64_t done = COPRO_INT_ENG(0, COPRO_INT_DMA_DONE);
    uint32_t len;
    Copro c;

    boot(&c, "x-fault-injection=on,timing=instant");
    copro_pkt_nop(b, 1, 0);
    copro_pkt_nop(b, 1, 0);
    len = copro_buf_put(&c, BUF, b);

    ewr32(&c, 0, COPRO_ENG_INJECT, COPRO_INJECT_FAULT_NEXT);
    submit_save(&c, 0, BUF, len, 31, 0, SAVE);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_INJECTED);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FAULT_FENCE), ==, 31);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS) &
                    COPRO_INT_ENG(0, COPRO_INT_FAULT | COPRO_INT_ERROR), ==,
                    COPRO_INT_ENG(0, COPRO_INT_FAULT));
    g_assert_cmphex(erd32(&c, 0, COPRO_ENG_INJECT), ==, 0);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    ack_all(&c);

    ewr32(&c, 0, COPRO_ENG_INJECT, COPRO_INJECT_DROP_IRQ);
    submit_save(&c, 0, BUF, len, 32, 0, SAVE);
    copro_run(&c, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 32);
    g_assert_false(rd64(&c, COPRO_REG_INT_STATUS) & done);
    submit_save(&c, 0, BUF, len, 33, 0, SAVE);
    copro_run(&c, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 33);
    g_assert_true(rd64(&c, COPRO_REG_INT_STATUS) & done);
    copro_shutdown(&c);
}

/* A RESUME whose save record does not match is refused (ERROR). */
static void test_bad_save(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    struct copro_save_record r = { 0 };
    uint32_t len;
    Copro c;

    boot(&c, "timing=instant");
    copro_pkt_nop(b, 1, 0);
    len = copro_buf_put(&c, BUF, b);
    vram_write(&c, SAVE, &r, sizeof(r));
    submit_save(&c, 0, BUF, len, 41, COPRO_SUBMIT_RESUME, SAVE);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_BAD_SAVE);
    g_assert_true(rd64(&c, COPRO_REG_INT_STATUS) &
                  COPRO_INT_ENG(0, COPRO_INT_ERROR));
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);

    /* a record of another buffer, and one with progress past the end */
    r.magic = cpu_to_le32(COPRO_SAVE_MAGIC);
    r.version = cpu_to_le32(COPRO_SAVE_VERSION);
    r.dma_addr = cpu_to_le64(BUF + 4);
    r.dma_len = cpu_to_le32(len);
    vram_write(&c, SAVE, &r, sizeof(r));
    submit_save(&c, 0, BUF, len, 42, COPRO_SUBMIT_RESUME, SAVE);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    r.dma_addr = cpu_to_le64(BUF);
    r.in_packet = cpu_to_le32(1);
    r.hdr = cpu_to_le32(COPRO_PKT_HDR(COPRO_OP_WORK, 0, COPRO_LEN_WORK));
    r.payload[0] = cpu_to_le32(1000);
    r.progress = cpu_to_le64(5000);
    vram_write(&c, SAVE, &r, sizeof(r));
    submit_save(&c, 0, BUF, len, 43, COPRO_SUBMIT_RESUME, SAVE);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_BAD_SAVE);
    copro_shutdown(&c);
}

/* ns to move @bytes at the default 8 GiB/s copy bandwidth (truncated) */
static uint64_t copy_ns(uint64_t bytes)
{
    return bytes * 1000000000ULL / (8ULL << 30);
}

/*
 * One run of test_switch_cost: a 10 ms WORK then a TIMESTAMP, preempted
 * 1.23 ms in, resumed at a fixed later time. Returns when PREEMPTED was
 * raised (found exactly, ns by ns from the slice end) in *t_preempted and
 * the resumed TIMESTAMP.
 */
static uint64_t switch_run(uint64_t state_size, uint64_t *t_preempted,
                           uint64_t *busy_ns)
{
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree char *opts = g_strdup_printf("preempt=mid-command,"
                                            "ctx-state-size=%" PRIu64,
                                            state_size);
    Copro c;
    int64_t t0, t;
    uint32_t len;
    uint64_t ts;

    boot(&c, opts);
    copro_pkt_work(b, 10 * 1000 * 1000);
    copro_pkt_timestamp(b, TS);
    len = copro_buf_put(&c, BUF, b);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 5, 0, SAVE);
    copro_run_until_busy(&c, 0);
    copro_clock_to(&c, t0 + 1230 * 1000);
    request(&c, 0, 99);
    /* the 13th slice ends at t0 + PKT_NS + 13 * SLICE_NS */
    t = t0 + PKT_NS + 13 * SLICE_NS;
    copro_clock_to(&c, t);
    while (!preempted(&c, 0)) {
        g_assert_cmpint(t, <, t0 + 20 * 1000 * 1000);
        copro_clock_to(&c, ++t);
    }
    *t_preempted = t - (t0 + PKT_NS + 13 * SLICE_NS);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 5);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_PREEMPT_MAX), ==,
                     t - (t0 + 1230 * 1000));
    ack_all(&c);
    copro_clock_to(&c, t0 + 5 * 1000 * 1000);
    submit_save(&c, 0, BUF, len, 6, COPRO_SUBMIT_RESUME, SAVE);
    copro_clock_to(&c, t0 + 30 * 1000 * 1000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 6);
    ts = vram_r64(&c, TS);
    *busy_ns = erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS);
    copro_shutdown(&c);
    return ts - t0;
}

/*
 * A context switch costs ctx-state-size at copy-bw to save (between the
 * arbitration point and PREEMPTED, so in the request-to-saved latency) and
 * as much again to restore on RESUME; both count as busy time.
 */
static void test_switch_cost(void)
{
    uint64_t lat0, lat1, busy0, busy1;
    uint64_t ts0 = switch_run(0, &lat0, &busy0);
    uint64_t ts1 = switch_run(1 * MiB, &lat1, &busy1);

    g_assert_cmpuint(lat0, ==, 0);
    g_assert_cmpuint(lat1, ==, copy_ns(1 * MiB));
    /* the resumed run ends later by exactly the restore */
    g_assert_cmpuint(ts1 - ts0, ==, copy_ns(1 * MiB));
    g_assert_cmpuint(busy1 - busy0, ==, 2 * copy_ns(1 * MiB));
}

/*
 * A resumed submission with nothing left to run (its record's offset is
 * its length) still pays its restore, and retires when the restore has
 * elapsed: its fence is not written ahead of the engine clock, and the
 * next buffer starts after it. It used to retire at once, at the time of
 * the fetch, while the next buffer started after the restore.
 */
static void test_resume_nothing_left(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) n = copro_buf_new();
    struct copro_save_record r = { 0 };
    uint64_t restore = copy_ns(1 * MiB);
    uint32_t len, nlen;
    int64_t t0;
    Copro c;

    boot(&c, "ctx-state-size=1048576");
    copro_pkt_nop(b, 1, 0);
    len = copro_buf_put(&c, BUF, b);
    copro_pkt_timestamp(n, TS);
    nlen = copro_buf_put(&c, BUF + 0x1000, n);
    r.magic = cpu_to_le32(COPRO_SAVE_MAGIC);
    r.version = cpu_to_le32(COPRO_SAVE_VERSION);
    r.dma_addr = cpu_to_le64(BUF);
    r.dma_len = cpu_to_le32(len);
    r.offset = cpu_to_le32(len);
    vram_write(&c, SAVE, &r, sizeof(r));
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 6, COPRO_SUBMIT_RESUME, SAVE);
    submit_save(&c, 0, BUF + 0x1000, nlen, 7, 0, SAVE + 0x100);
    copro_clock_to(&c, t0 + restore - 1);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), <, 6);
    copro_clock_to(&c, t0 + 1000 * 1000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 7);
    /* the next buffer's one packet ran after the restore, not before */
    g_assert_cmpuint(vram_r64(&c, TS), >=, t0 + restore + PKT_NS);
    g_assert_cmpuint(vram_r64(&c, TS), <=, t0 + restore + 2 * PKT_NS);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_BUSY_NS), >=, restore);
    copro_shutdown(&c);
}

/* The default context state is documented as about 30 us per switch. */
static void test_switch_cost_default(void)
{
    static const struct {
        const char *prop;
        uint64_t want;
    } defaults[] = {
        { "ctx-state-size", 256 * KiB },
        { "arbitration-ns", SLICE_NS },
    };
    Copro c;

    copro_boot(&c, "-M q35", "id=gpu");
    for (size_t i = 0; i < G_N_ELEMENTS(defaults); i++) {
        QDict *rsp = qtest_qmp(c.qts, "{'execute': 'qom-get', 'arguments':"
                               " {'path': '/machine/peripheral/gpu',"
                               " 'property': %s}}", defaults[i].prop);

        g_assert_cmpuint(qdict_get_int(rsp, "return"), ==, defaults[i].want);
        qobject_unref(rsp);
    }
    copro_shutdown(&c);
    g_assert_cmpuint(copy_ns(256 * KiB), ==, 30517);
}

/* arbitration-ns sets the WORK slice, so the mid-command bound. */
static void test_arbitration_ns(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    Copro c;
    int64_t t0, end;
    uint32_t len;

    boot(&c, "preempt=mid-command,arbitration-ns=20000");
    copro_pkt_work(b, 10 * 1000 * 1000);
    len = copro_buf_put(&c, BUF, b);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 5, 0, SAVE);
    copro_run_until_busy(&c, 0);
    copro_clock_to(&c, t0 + 1230 * 1000);
    request(&c, 0, 99);
    /* slices end at t0 + 100 + k * 20 us: the next is k = 62 */
    end = t0 + PKT_NS + 62 * 20000;
    copro_clock_to(&c, end - 1);
    g_assert_false(preempted(&c, 0));
    copro_clock_to(&c, end);
    g_assert_true(preempted(&c, 0));
    copro_shutdown(&c);
}

/*
 * Regression: a memory fault while reading a RESUME submission's save
 * record, then RETRY, must load the record and go on from the saved
 * offset; it used to run the buffer again from offset 0, repeating the
 * packets before the preemption point.
 */
static void test_retry_resume(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint8_t zero[4096] = { 0 };
    uint64_t save = copro_aperture(1), gpa;
    uint32_t len;
    Copro c;
    int64_t t0;

    boot(&c, "preempt=mid-command");
    gpa = guest_alloc(&c.qs->alloc, 2 * 4096);
    gpa = ROUND_UP(gpa, 4096);
    copro_gart_setup(&c, GART, 16);
    copro_gart_map(&c, GART, 1, gpa, true);
    copro_gart_inval(&c, 0, 0);

    copro_pkt_fill(b, OUT, 4096, 0x11111111);       /* before the point */
    copro_pkt_work(b, 10 * 1000 * 1000);
    copro_pkt_fill(b, OUT + 4096, 4096, 0x22222222);
    len = copro_buf_put(&c, BUF, b);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 5, 0, save);
    copro_run_until_busy(&c, 0);
    copro_clock_to(&c, t0 + 1230 * 1000);
    request(&c, 0, 99);
    copro_clock_to(&c, t0 + 2 * 1000 * 1000);
    g_assert_true(preempted(&c, 0));
    ack_all(&c);

    /* the record page becomes unreachable; the first FILL's output is
     * cleared, so running it again would show */
    vram_write(&c, OUT, zero, sizeof(zero));
    vram_w64(&c, GART + 8, 0);
    copro_gart_inval(&c, 1, 1);
    submit_save(&c, 0, BUF, len, 6, COPRO_SUBMIT_RESUME, save);
    copro_clock_to(&c, t0 + 3 * 1000 * 1000);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_GART);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FAULT_ADDR), ==, save);

    copro_gart_map(&c, GART, 1, gpa, true);
    copro_gart_inval(&c, 1, 1);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RETRY);
    copro_clock_to(&c, t0 + 30 * 1000 * 1000);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 6);
    g_assert_cmphex(vram_r32(&c, OUT), ==, 0);
    g_assert_cmphex(vram_r32(&c, OUT + 4096 + 4092), ==, 0x22222222);
    copro_shutdown(&c);
}

/*
 * Regression: preempting an engine at the RETRY of a faulted FENCE (a
 * single-step packet, so nothing of it was done) must save the FENCE as
 * not started; it used to save it as half-done, and the RESUME then
 * halted with BAD_SAVE. The resumed run writes the fence as an
 * uninterrupted one would.
 */
static void test_preempt_at_retry(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint64_t flag = copro_aperture(2), gpa;
    struct copro_save_record r;
    uint32_t len;
    Copro c;

    boot(&c, "preempt=mid-command,timing=instant");
    gpa = ROUND_UP(guest_alloc(&c.qs->alloc, 2 * 4096), 4096);
    copro_gart_setup(&c, GART, 16);
    copro_pkt_fill(b, OUT, 4096, 0x33333333);
    copro_pkt_fence(b, flag, 0x1234, 0);
    copro_pkt_fill(b, OUT + 4096, 4096, 0x44444444);
    len = copro_buf_put(&c, BUF, b);
    submit_save(&c, 0, BUF, len, 5, 0, SAVE);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_GART);

    /* a request to the halted engine waits for it to go on */
    request(&c, 0, 99);
    copro_run(&c, 0);
    g_assert_false(preempted(&c, 0));
    copro_gart_map(&c, GART, 2, gpa, true);
    copro_gart_inval(&c, 2, 1);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RETRY);
    copro_run(&c, 0);
    g_assert_true(preempted(&c, 0));
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 5);
    read_save(&c, SAVE, &r);
    g_assert_cmpuint(le32_to_cpu(r.in_packet), ==, 0);
    g_assert_cmpuint(le32_to_cpu(r.offset), ==, COPRO_LEN_FILL * 4);
    g_assert_cmphex(qtest_readq(c.qts, gpa), ==, 0);
    ack_all(&c);

    submit_save(&c, 0, BUF, len, 6, COPRO_SUBMIT_RESUME, SAVE);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_NONE);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 6);
    g_assert_cmphex(qtest_readq(c.qts, gpa), ==, 0x1234);
    g_assert_cmphex(vram_r32(&c, OUT + 4096), ==, 0x44444444);
    copro_shutdown(&c);
}

/*
 * RESUME applies the checks fetch makes to the saved packet: fields fetch
 * would refuse are BAD_SAVE, however plausible the progress.
 */
static void test_resume_packet_checks(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    struct copro_save_record r = { 0 };
    uint32_t len;
    Copro c;
    static const struct {
        uint32_t hdr;
        uint32_t payload[6];
        uint64_t progress;
    } bad[] = {
        /* COPY_PTE of more than COPRO_COPY_PTE_MAX entries */
        { COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE),
          { 0, 0, 0, 0, COPRO_COPY_PTE_MAX + 1 }, 8 },
        /* COPY_PTE from an unaligned address */
        { COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE),
          { 0, 0, 4, 0, 16 }, 8 },
        /* FILL progress not a multiple of 4 */
        { COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL),
          { OUT, 0, 4096, 0, 0 }, 6 },
        /* FILL of a size not a multiple of 4 */
        { COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL),
          { OUT, 0, 4098, 0, 0 }, 8 },
        /* COPY_PTE on the copy engine's opcode list is fine; NOP is not
         * a multi-step packet */
        { COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1), { 0 }, 4 },
    };

    boot(&c, "timing=instant");
    copro_pkt_nop(b, 16, 0);
    len = copro_buf_put(&c, BUF, b);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        memset(&r, 0, sizeof(r));
        r.magic = cpu_to_le32(COPRO_SAVE_MAGIC);
        r.version = cpu_to_le32(COPRO_SAVE_VERSION);
        r.dma_addr = cpu_to_le64(BUF);
        r.dma_len = cpu_to_le32(len);
        r.in_packet = cpu_to_le32(1);
        r.hdr = cpu_to_le32(bad[i].hdr);
        for (unsigned j = 0; j < 6; j++) {
            r.payload[j] = cpu_to_le32(bad[i].payload[j]);
        }
        r.progress = cpu_to_le64(bad[i].progress);
        vram_write(&c, SAVE, &r, sizeof(r));
        submit_save(&c, 0, BUF, len, 50 + i, COPRO_SUBMIT_RESUME, SAVE);
        g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                         COPRO_FAULT_BAD_SAVE);
        ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    }
    copro_shutdown(&c);
}

/*
 * A request that arrives during a submission's last packet is honoured
 * after the submission retires: PREEMPTED names no submission, and the
 * driver has nothing to resume (it used to be preempted with all its
 * packets done).
 */
static void test_last_packet(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint32_t len;
    Copro c;
    int64_t t0;

    boot(&c, "preempt=command");
    copro_pkt_work(b, 1000 * 1000);
    len = copro_buf_put(&c, BUF, b);
    t0 = copro_time(&c);
    submit_save(&c, 0, BUF, len, 5, 0, SAVE);
    copro_run_until_busy(&c, 0);
    copro_clock_to(&c, t0 + 500 * 1000);
    request(&c, 0, 99);
    copro_clock_to(&c, t0 + 2 * 1000 * 1000);
    g_assert_true(preempted(&c, 0));
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 0);
    g_assert_cmphex(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 5);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_SUBMISSIONS), ==, 1);
    copro_shutdown(&c);
}

/* Preemption statistics are visible in x-query-copro. */
static void test_monitor(void)
{
    Copro c;
    QDict *rsp, *dev, *eng;

    boot(&c, "");
    request(&c, 0, 1);
    copro_run(&c, 0);
    dev = copro_query(&c, &rsp);
    eng = copro_query_engine(dev, 0);
    g_assert_cmpuint(qdict_get_int(eng, "preemptions"), ==, 1);
    g_assert_cmpuint(qdict_get_int(eng, "preempt-max-ns"), ==, 0);
    g_assert_false(qdict_get_bool(eng, "preempt-pending"));
    qobject_unref(rsp);
    copro_shutdown(&c);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (!qtest_has_device("copro")) {
        g_test_skip("copro device not built");
        return g_test_run();
    }
    qtest_add_func("/copro/preempt/caps", test_caps);
    qtest_add_func("/copro/preempt/idle", test_idle);
    qtest_add_func("/copro/preempt/work-mid-command", test_work_mid_command);
    qtest_add_func("/copro/preempt/latency-bounds", test_latency_bounds);
    for (unsigned g = 0; g < G_N_ELEMENTS(granularities); g++) {
        g_autofree char *path = g_strdup_printf("/copro/preempt/resume/%s",
                                                granularities[g]);

        qtest_add_data_func(path, granularities[g], test_resume_equivalence);
    }
    qtest_add_func("/copro/preempt/wait", test_wait);
    qtest_add_func("/copro/preempt/paging", test_paging);
    qtest_add_func("/copro/preempt/twice", test_twice);
    qtest_add_func("/copro/preempt/monitor", test_monitor);
    qtest_add_func("/copro/reset/engine-mid-buffer", test_engine_reset);
    qtest_add_func("/copro/inject/disabled", test_inject_disabled);
    qtest_add_func("/copro/inject/hang", test_inject_hang);
    qtest_add_func("/copro/inject/fault-and-drop",
                   test_inject_fault_and_drop);
    qtest_add_func("/copro/inject/bad-save", test_bad_save);
    qtest_add_func("/copro/preempt/switch-cost", test_switch_cost);
    qtest_add_func("/copro/preempt/resume-nothing-left",
                   test_resume_nothing_left);
    qtest_add_func("/copro/preempt/switch-cost-default",
                   test_switch_cost_default);
    qtest_add_func("/copro/preempt/arbitration-ns", test_arbitration_ns);
    qtest_add_func("/copro/preempt/retry-resume", test_retry_resume);
    qtest_add_func("/copro/preempt/last-packet", test_last_packet);
    qtest_add_func("/copro/preempt/preempt-at-retry", test_preempt_at_retry);
    qtest_add_func("/copro/preempt/resume-packet-checks",
                   test_resume_packet_checks);
    return g_test_run();
}
