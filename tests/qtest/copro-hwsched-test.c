/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's hardware scheduling (COPRO_CAP_HWSCHED): hardware
 * queues, doorbells, run lists, the device's scheduler (bands, quanta,
 * blocked WAITs, frame budgets, the IDLE band's share, the preemption
 * timeout, queue faults), the scheduling log and every refused input.
 * Virtual time is stepped by the test; every expectation is an exact
 * value or a bound derived from the cost model.
 *
 * One program past a thousand lines, as each of the device's qtests is:
 * one chapter of docs/specs/copro.rst ("Hardware scheduling"), each rule
 * a case over one harness.
 */
#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "copro-qtest.h"
#include "copro/copro_hwsched.h"

#define DESC(q)     (0x10000 + (uint64_t)(q) * COPRO_HWQ_DESC_SIZE)
#define RING(q)     (0x20000 + (uint64_t)(q) * 0x1000)      /* 64 entries */
#define SAVE(q)     (0x60000 + (uint64_t)(q) * COPRO_SAVE_SIZE)
#define PROG(q)     (0x70000 + (uint64_t)(q) * 8)
#define RL(e)       (0x80000 + (uint64_t)(e) * 0x1000)
#define LOG         0x90000
#define LOG_SIZE    1024
#define FLAG        0xa0000
#define BUF(q)      (0x100000 + (uint64_t)(q) * 0x10000)
#define OUT         (4 * MiB)
#define RING_SIZE   64
#define CTX(q)      (100 + (q))
#define SLICE_NS    100000      /* arbitration-ns default */
#define PKT_NS      100         /* packet-ns default */
#define PERIOD_NS   (1000000000ULL / 60)

typedef struct Hws {
    Copro c;
    QPCIBar db;
    uint32_t tail[COPRO_HWQ_MAX];
    uint32_t log_read;
} Hws;

static void hws_boot(Hws *h, const char *opts)
{
    g_autofree char *all = g_strdup_printf("ctx-state-size=0%s%s",
                                           *opts ? "," : "", opts);

    memset(h, 0, sizeof(*h));
    copro_boot(&h->c, "-M q35", all);
    h->db = qpci_iomap(h->c.dev, COPRO_BAR_DOORBELL, NULL);
    wr64(&h->c, COPRO_REG_HWS_LOG_ADDR, LOG);
    wr32(&h->c, COPRO_REG_HWS_LOG_SIZE, LOG_SIZE);
}

static void hws_done(Hws *h)
{
    copro_shutdown(&h->c);
}

/* A queue descriptor in VRAM, with an empty ring. */
static void hwq_put(Hws *h, uint32_t q, uint32_t flags)
{
    struct copro_hwq_desc d = {
        .magic = cpu_to_le32(COPRO_HWQ_MAGIC),
        .version = cpu_to_le32(COPRO_HWQ_VERSION),
        .ring_base = cpu_to_le64(RING(q)),
        .ring_size = cpu_to_le32(RING_SIZE),
        .context = cpu_to_le32(CTX(q)),
        .save_addr = cpu_to_le64(SAVE(q)),
        .progress_addr = cpu_to_le64(PROG(q)),
        .flags = cpu_to_le32(flags),
    };

    vram_write(&h->c, DESC(q), &d, sizeof(d));
    vram_w64(&h->c, PROG(q), 0);
    h->tail[q] = 0;
}

static void hwq_get(Hws *h, uint32_t q, struct copro_hwq_desc *d)
{
    vram_read(&h->c, DESC(q), d, sizeof(*d));
}

static uint32_t hwq_state(Hws *h, uint32_t q)
{
    return vram_r32(&h->c, DESC(q) + offsetof(struct copro_hwq_desc, state));
}

static uint64_t hwq_u64(Hws *h, uint32_t q, size_t off)
{
    return vram_r64(&h->c, DESC(q) + off);
}

#define HWQ_FIELD(h, q, f) \
    hwq_u64(h, q, offsetof(struct copro_hwq_desc, f))

typedef struct RlEnt {
    uint32_t q, band, quantum, budget, flags;
} RlEnt;

/* Write @n entries at RL(@e). */
static void rl_write(Hws *h, unsigned e, const RlEnt *ent, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct copro_runlist_entry r = {
            .desc_addr = cpu_to_le64(DESC(ent[i].q)),
            .queue = cpu_to_le32(ent[i].q),
            .band = cpu_to_le32(ent[i].band),
            .quantum_ns = cpu_to_le32(ent[i].quantum),
            .budget_ns = cpu_to_le32(ent[i].budget),
            .flags = cpu_to_le32(ent[i].flags),
        };

        vram_write(&h->c, RL(e) + i * COPRO_RUNLIST_ENTRY_SIZE, &r,
                   sizeof(r));
    }
}

static void commit_raw(Hws *h, unsigned e, uint64_t addr, uint32_t n)
{
    wr64(&h->c, COPRO_RL_BASE(e) + COPRO_RL_ADDR, addr);
    wr32(&h->c, COPRO_RL_BASE(e) + COPRO_RL_COUNT, n);
    wr32(&h->c, COPRO_RL_BASE(e) + COPRO_RL_COMMIT, 1);
}

/* Write @n entries at RL(@e) and commit them on engine @e. */
static void rl_commit(Hws *h, unsigned e, const RlEnt *ent, uint32_t n)
{
    rl_write(h, e, ent, n);
    commit_raw(h, e, RL(e), n);
}

static uint32_t rl_reg(Hws *h, unsigned e, uint32_t reg)
{
    return rd32(&h->c, COPRO_RL_BASE(e) + reg);
}

static void doorbell(Hws *h, uint32_t q, uint32_t tail)
{
    qpci_io_writel(h->c.dev, h->db, (uint64_t)q * COPRO_DOORBELL_STRIDE +
                   COPRO_DOORBELL_TAIL, tail);
}

/* Append a submission of buffer @b to queue @q's ring; ring its bell. */
static void hwq_submit(Hws *h, uint32_t q, GArray *b, uint64_t fence,
                       uint32_t slot)
{
    uint64_t buf = BUF(q) + (uint64_t)slot * 0x1000;
    uint32_t len = copro_buf_put(&h->c, buf, b);
    struct copro_submit_desc d = copro_desc(buf, len, fence, CTX(q), 0);

    copro_desc_put(&h->c, RING(q) + (uint64_t)h->tail[q] * COPRO_DESC_SIZE,
                   &d);
    h->tail[q] = (h->tail[q] + 1) % RING_SIZE;
    doorbell(h, q, h->tail[q]);
}

static void submit_work(Hws *h, uint32_t q, uint64_t ns, uint64_t fence,
                        uint32_t slot)
{
    g_autoptr(GArray) b = copro_buf_new();

    copro_pkt_work(b, ns);
    hwq_submit(h, q, b, fence, slot);
}

static void step(Hws *h, int64_t ns)
{
    copro_clock_to(&h->c, copro_time(&h->c) + ns);
}

/* Let due bottom halves and timers at the present time run. */
static void settle(Hws *h)
{
    for (int i = 0; i < 20; i++) {
        rd32(&h->c, COPRO_REG_ID);
    }
}

/* Every log entry written so far, from the first (host order). */
static GArray *log_all(Hws *h)
{
    GArray *a = g_array_new(false, true,
                            sizeof(struct copro_sched_log_entry));
    uint32_t w = rd32(&h->c, COPRO_REG_HWS_LOG_WPTR);

    g_assert_cmpuint(w, <=, LOG_SIZE);
    g_assert_cmpuint(rd32(&h->c, COPRO_REG_HWS_LOG_DROPPED), ==, 0);
    for (uint32_t i = 0; i < w; i++) {
        struct copro_sched_log_entry le;

        vram_read(&h->c, LOG + (uint64_t)i * COPRO_SLOG_ENTRY_SIZE, &le,
                  sizeof(le));
        le.time_ns = le64_to_cpu(le.time_ns);
        le.kind = le16_to_cpu(le.kind);
        le.queue = le32_to_cpu(le.queue);
        le.arg0 = le64_to_cpu(le.arg0);
        le.arg1 = le64_to_cpu(le.arg1);
        g_array_append_val(a, le);
    }
    return a;
}

#define LE(a, i) (&g_array_index(a, struct copro_sched_log_entry, i))

/* HWS_DEBUG=1: print the log (when a test fails, to see the run) */
static void log_dump(Hws *h)
{
    g_autoptr(GArray) a = NULL;

    if (!getenv("HWS_DEBUG")) {
        return;
    }
    a = log_all(h);
    for (guint i = 0; i < a->len; i++) {
        fprintf(stderr, "%12" PRIu64 " kind %2u eng %u band %u q %d "
                "%" PRIu64 " %" PRIu64 "\n", LE(a, i)->time_ns,
                LE(a, i)->kind, LE(a, i)->engine, LE(a, i)->band,
                (int)LE(a, i)->queue, LE(a, i)->arg0, LE(a, i)->arg1);
    }
}

/* The @n-th (from 0) entry of @kind for @queue (NONE: any), or NULL. */
static struct copro_sched_log_entry *log_find(GArray *a, uint16_t kind,
                                              uint32_t queue, unsigned n)
{
    for (guint i = 0; i < a->len; i++) {
        if (LE(a, i)->kind == kind &&
            (queue == COPRO_HWQ_NONE || LE(a, i)->queue == queue) &&
            n-- == 0) {
            return LE(a, i);
        }
    }
    return NULL;
}

static unsigned log_count(GArray *a, uint16_t kind, uint32_t queue)
{
    unsigned n = 0;

    while (log_find(a, kind, queue, n)) {
        n++;
    }
    return n;
}

/* Run to the next vsync (nothing else is due): its time. */
static int64_t to_vsync(Hws *h)
{
    uint64_t n;

    /* frames are the display's: it runs (black, no mode set) */
    wr32(&h->c, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    n = rd64(&h->c, COPRO_REG_DISP_VSYNC_COUNT);

    qtest_clock_step_next(h->c.qts);
    g_assert_cmpuint(rd64(&h->c, COPRO_REG_DISP_VSYNC_COUNT), ==, n + 1);
    g_assert_cmpint(rd64(&h->c, COPRO_REG_DISP_VSYNC_TIME), ==,
                    copro_time(&h->c));
    return copro_time(&h->c);
}

static uint64_t int_status(Hws *h)
{
    return rd64(&h->c, COPRO_REG_INT_STATUS);
}

/*
 * Map one queue, submit FENCE + WORK, ring the doorbell: it runs, writes
 * its progress fence, is written back drained, and the log tells it all.
 */
static void test_basic(void)
{
    Hws h;
    RlEnt ent = { 3, COPRO_BAND_NORMAL, 1000000, 0, 0 };
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *in, *out, *done;
    struct copro_hwq_desc d;

    hws_boot(&h, "");
    g_assert_cmphex(rd32(&h.c, COPRO_REG_CAPS) & COPRO_CAP_HWSCHED, ==,
                    COPRO_CAP_HWSCHED);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_QUEUES), ==, COPRO_HWQ_MAX);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_PREEMPT_TIMEOUT), ==,
                     COPRO_HWS_PREEMPT_TIMEOUT_DEFAULT);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_LOW_SHARE), ==,
                     COPRO_HWS_LOW_SHARE_DEFAULT);
    g_assert_cmphex(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, COPRO_HWQ_NONE);

    hwq_put(&h, 3, 0);
    rl_commit(&h, 0, &ent, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_SEQ), ==, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_ACTIVE), ==, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_STATUS), ==, 0);
    g_assert_true(int_status(&h) & COPRO_INT_DEV_RUNLIST);

    copro_pkt_fence(b, OUT, 0x1234, 0);
    copro_pkt_work(b, 50000);
    hwq_submit(&h, 3, b, 77, 0);
    g_assert_cmpuint(qpci_io_readl(h.c.dev, h.db, 3 * COPRO_DOORBELL_STRIDE),
                     ==, 1);
    g_assert_cmpuint(rd64(&h.c, COPRO_REG_HWS_DOORBELLS), ==, 1);
    settle(&h);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 3);
    step(&h, 100000);
    g_assert_cmpuint(vram_r64(&h.c, OUT), ==, 0x1234);
    g_assert_cmpuint(vram_r64(&h.c, PROG(3)), ==, 77);
    g_assert_cmphex(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, COPRO_HWQ_NONE);

    hwq_get(&h, 3, &d);
    g_assert_cmpuint(le32_to_cpu(d.head), ==, 1);
    g_assert_cmpuint(le32_to_cpu(d.tail), ==, 1);
    g_assert_cmpuint(le32_to_cpu(d.resume), ==, 0);
    g_assert_cmpuint(le32_to_cpu(d.state), ==, COPRO_HWQ_STATE_IDLE);
    g_assert_cmpuint(le32_to_cpu(d.band), ==, COPRO_BAND_NORMAL);
    g_assert_cmpuint(le32_to_cpu(d.quantum_ns), ==, 1000000);
    g_assert_cmpuint(le64_to_cpu(d.completed_fence), ==, 77);
    g_assert_cmpuint(le64_to_cpu(d.submissions), ==, 1);
    g_assert_cmpuint(le64_to_cpu(d.runs), ==, 1);
    g_assert_cmpuint(le64_to_cpu(d.preemptions), ==, 0);
    /* FENCE and WORK packets: two packet costs and the WORK */
    g_assert_cmpuint(le64_to_cpu(d.gpu_time_ns), ==, 50000 + 2 * PKT_NS);
    g_assert_cmpuint(rd64(&h.c, COPRO_REG_HWS_SWITCHES), ==, 1);
    /* completion interrupts are off unless the queue asks */
    g_assert_cmphex(int_status(&h) & COPRO_INT_ENG(0, COPRO_INT_DMA_DONE),
                    ==, 0);
    /* the engine's statistics count it too */
    g_assert_cmpuint(erd64(&h.c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 77);

    log = log_all(&h);
    g_assert_cmpuint(LE(log, 0)->kind, ==, COPRO_SLOG_RUNLIST);
    g_assert_cmpuint(LE(log, 0)->arg0, ==, 1);
    g_assert_cmpuint(LE(log, 0)->arg1, ==, 1);
    g_assert_cmphex(LE(log, 0)->queue, ==, COPRO_HWQ_NONE);
    in = log_find(log, COPRO_SLOG_SWITCH_IN, 3, 0);
    done = log_find(log, COPRO_SLOG_COMPLETED, 3, 0);
    out = log_find(log, COPRO_SLOG_SWITCH_OUT, 3, 0);
    g_assert_nonnull(in);
    g_assert_nonnull(done);
    g_assert_nonnull(out);
    g_assert_cmpuint(in->arg0, ==, 77);
    g_assert_cmpuint(in->arg1, ==, 0);
    g_assert_cmpuint(in->engine, ==, 0);
    g_assert_cmpuint(in->band, ==, COPRO_BAND_NORMAL);
    g_assert_cmpuint(done->arg0, ==, 77);
    g_assert_cmpuint(done->arg1, ==, 50000 + 2 * PKT_NS);
    g_assert_cmpuint(done->time_ns - in->time_ns, ==, 50000 + 2 * PKT_NS);
    g_assert_cmpuint(out->arg1, ==, COPRO_SLOG_OUT_EMPTY);
    g_assert_cmpuint(out->arg0, ==, 50000 + 2 * PKT_NS);
    hws_done(&h);
}

/* COPRO_HWQ_F_COMPLETION_IRQ: DMA_DONE per submission, NO_IRQ wins. */
static void test_completion_irq(void)
{
    Hws h;
    RlEnt ent = { 5, COPRO_BAND_NORMAL, 1000000, 0, 0 };

    hws_boot(&h, "");
    hwq_put(&h, 5, COPRO_HWQ_F_COMPLETION_IRQ);
    rl_commit(&h, 0, &ent, 1);
    submit_work(&h, 5, 10000, 1, 0);
    step(&h, 20000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(5)), ==, 1);
    g_assert_cmphex(int_status(&h) & COPRO_INT_ENG(0, COPRO_INT_DMA_DONE),
                    ==, COPRO_INT_ENG(0, COPRO_INT_DMA_DONE));
    hws_done(&h);
}

/*
 * Two queues of one band: turns of one quantum each, in list order,
 * measured in virtual time; the switch comes at the first arbitration
 * point (a WORK slice end) after the quantum.
 */
static void test_round_robin(void)
{
    Hws h;
    const uint32_t quantum = 250000;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, quantum, 0, 0 },
        { 2, COPRO_BAND_NORMAL, quantum, 0, 0 },
    };
    g_autoptr(GArray) log = NULL;
    unsigned turns = 0;

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    rl_commit(&h, 0, ent, 2);
    submit_work(&h, 1, 1000000, 11, 0);
    submit_work(&h, 2, 1000000, 21, 0);
    step(&h, 3000000);
    log_dump(&h);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 11);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);

    log = log_all(&h);
    for (guint i = 0; i < log->len; i++) {
        struct copro_sched_log_entry *le = LE(log, i);

        if (le->kind == COPRO_SLOG_SWITCH_IN) {
            /* 1, 2, 1, 2, ... */
            g_assert_cmpuint(le->queue, ==, 1 + turns % 2);
            turns++;
        }
        if (le->kind == COPRO_SLOG_SWITCH_OUT &&
            le->arg1 == COPRO_SLOG_OUT_QUANTUM) {
            /* one quantum, then up to one WORK slice to the next point */
            g_assert_cmpuint(le->arg0, >=, quantum);
            g_assert_cmpuint(le->arg0, <=, quantum + SLICE_NS + PKT_NS);
        }
    }
    /* 1 ms of work each in turns of 250 to 350 us: 3 or 4 turns each */
    g_assert_cmpuint(turns, >=, 6);
    g_assert_cmpuint(turns, <=, 8);
    g_assert_cmpuint(log_count(log, COPRO_SLOG_SWITCH_OUT, 1) - 1, ==,
                     HWQ_FIELD(&h, 1, preemptions));
    g_assert_cmpuint(log_count(log, COPRO_SLOG_PREEMPTED, 1), ==,
                     HWQ_FIELD(&h, 1, preemptions));
    /* both ran exactly their work: switches are free here */
    g_assert_cmpuint(HWQ_FIELD(&h, 1, gpu_time_ns), ==, 1000000 + PKT_NS);
    g_assert_cmpuint(HWQ_FIELD(&h, 2, gpu_time_ns), ==, 1000000 + PKT_NS);
    hws_done(&h);
}

/* A buffer that fills, works, fills, and stamps: resumable state. */
static void long_buffer(GArray *b, uint64_t out, uint32_t pattern)
{
    copro_pkt_fill(b, out, 256 * KiB, pattern);
    copro_pkt_work(b, 1000000);
    copro_pkt_fill(b, out + 256 * KiB, 256 * KiB, pattern ^ 0xffffffff);
    copro_pkt_fence(b, FLAG + 0x100, pattern, 0);
}

/*
 * A REALTIME doorbell preempts a NORMAL queue in the middle of its WORK
 * within one arbitration slice; the NORMAL queue resumes from its save
 * area and ends as an uninterrupted run does (memory, GPU time).
 */
static void test_band_preempts(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 100000000, 0, 0 },
        { 2, COPRO_BAND_REALTIME, 100000000, 0, 0 },
        { 3, COPRO_BAND_NORMAL, 100000000, 0, 0 },
    };
    g_autoptr(GArray) b1 = copro_buf_new();
    g_autoptr(GArray) b3 = copro_buf_new();
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *pre, *done2, *in2;
    uint64_t alone, t0;
    g_autofree uint32_t *got = g_new(uint32_t, 128 * KiB);

    hws_boot(&h, "ctx-state-size=256K");
    for (uint32_t q = 1; q <= 3; q++) {
        hwq_put(&h, q, 0);
    }
    rl_commit(&h, 0, ent, 3);

    /* the reference: queue 3 runs the same buffer uninterrupted */
    long_buffer(b3, OUT + 1 * MiB, 0x33333333);
    hwq_submit(&h, 3, b3, 31, 0);
    step(&h, 2000000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(3)), ==, 31);
    alone = HWQ_FIELD(&h, 3, gpu_time_ns);

    long_buffer(b1, OUT, 0x11111111);
    hwq_submit(&h, 1, b1, 11, 0);
    t0 = copro_time(&h.c);
    step(&h, 400000);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 1);
    submit_work(&h, 2, 10000, 21, 0);
    step(&h, 5000000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 11);

    log = log_all(&h);
    pre = log_find(log, COPRO_SLOG_PREEMPTED, 1, 0);
    in2 = log_find(log, COPRO_SLOG_SWITCH_IN, 2, 0);
    done2 = log_find(log, COPRO_SLOG_COMPLETED, 2, 0);
    g_assert_nonnull(pre);
    g_assert_nonnull(in2);
    g_assert_nonnull(done2);
    g_assert_cmpuint(pre->arg0, ==, 11);
    /* granularity bound: one WORK slice, then the save */
    g_assert_cmpuint(pre->arg1, <=, SLICE_NS + PKT_NS +
                     rd64(&h.c, COPRO_REG_CTX_SWITCH_NS));
    g_assert_cmpuint(in2->time_ns, ==, pre->time_ns);
    g_assert_cmpuint(in2->time_ns - (t0 + 400000), <=, SLICE_NS + PKT_NS +
                     rd64(&h.c, COPRO_REG_CTX_SWITCH_NS));
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1, ==,
                     COPRO_SLOG_OUT_PREEMPTED);
    /* resumed: its second switch-in says so */
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_IN, 1, 1)->arg1, ==, 1);
    g_assert_cmpuint(HWQ_FIELD(&h, 1, preemptions), ==, 1);
    /* the same GPU time as alone, plus one save and one restore */
    g_assert_cmpuint(HWQ_FIELD(&h, 1, gpu_time_ns), ==,
                     alone + 2 * rd64(&h.c, COPRO_REG_CTX_SWITCH_NS));
    /* the same memory as the uninterrupted pattern */
    vram_read(&h.c, OUT, got, 512 * KiB);
    for (uint32_t i = 0; i < 128 * KiB; i++) {
        g_assert_cmphex(le32_to_cpu(got[i]), ==,
                        i < 64 * KiB ? 0x11111111 : 0xeeeeeeee);
    }
    hws_done(&h);
}

/*
 * A queue whose head is an unsatisfied WAIT is switched out BLOCKED and
 * the other queue gets the engine; a CPU write unblocks it within one
 * poll period, a FENCE of another queue (engine 1) at once.
 */
static void test_blocked(void)
{
    Hws h;
    RlEnt e0[] = {
        { 1, COPRO_BAND_NORMAL, 100000000, 0, 0 },
        { 2, COPRO_BAND_NORMAL, 100000000, 0, 0 },
    };
    RlEnt e1 = { 4, COPRO_BAND_NORMAL, 100000000, 0, 0 };
    g_autoptr(GArray) w = copro_buf_new();
    g_autoptr(GArray) w2 = copro_buf_new();
    g_autoptr(GArray) f = copro_buf_new();
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *un;
    int64_t t;

    hws_boot(&h, "");
    for (uint32_t q = 1; q <= 4; q++) {
        hwq_put(&h, q, 0);
    }
    vram_w64(&h.c, FLAG, 0);
    vram_w64(&h.c, FLAG + 8, 0);
    rl_commit(&h, 0, e0, 2);
    rl_commit(&h, 1, &e1, 1);

    copro_pkt_wait(w, FLAG, 1);
    copro_pkt_fence(w, OUT, 1, 0);
    hwq_submit(&h, 1, w, 11, 0);
    submit_work(&h, 2, 2000000, 21, 0);
    step(&h, 100000);
    /* queue 1 blocked, out; queue 2 on the engine */
    g_assert_cmpuint(hwq_state(&h, 1), ==, COPRO_HWQ_STATE_BLOCKED);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 2);
    t = copro_time(&h.c);
    vram_w64(&h.c, FLAG, 1);
    step(&h, 30000);
    log = log_all(&h);
    un = log_find(log, COPRO_SLOG_UNBLOCKED, 1, 0);
    g_assert_nonnull(un);
    g_assert_cmpuint(un->time_ns - t, <=, 20000);
    g_assert_cmpuint(un->arg0, ==, FLAG);
    g_assert_cmpuint(un->arg1, ==, 1);
    g_assert_cmpuint(log_find(log, COPRO_SLOG_BLOCKED, 1, 0)->arg1, ==, 1);
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1, ==,
                     COPRO_SLOG_OUT_BLOCKED);
    /* same band: queue 2 keeps its turn (100 ms) and finishes first */
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 2);
    step(&h, 2500000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 11);
    g_assert_cmpuint(vram_r64(&h.c, OUT), ==, 1);

    /* a FENCE of engine 1's queue unblocks at once */
    copro_pkt_wait(w2, FLAG + 8, 5);
    hwq_submit(&h, 1, w2, 12, 1);
    submit_work(&h, 2, 2000000, 22, 1);
    step(&h, 50000);
    g_assert_cmpuint(hwq_state(&h, 1), ==, COPRO_HWQ_STATE_BLOCKED);
    copro_pkt_fill(f, OUT + 4096, 4096, 1);
    copro_pkt_fence(f, FLAG + 8, 5, 0);
    hwq_submit(&h, 4, f, 41, 0);
    step(&h, 3000000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 12);
    g_assert_cmpuint(vram_r64(&h.c, PROG(4)), ==, 41);
    g_autoptr(GArray) log2 = log_all(&h);
    un = log_find(log2, COPRO_SLOG_UNBLOCKED, 1, 1);
    g_assert_nonnull(un);
    /* at the time of the fence: queue 4's completion follows it */
    g_assert_cmpuint(un->time_ns, ==,
                     log_find(log2, COPRO_SLOG_COMPLETED, 4, 0)->time_ns);
    g_assert_cmpuint(un->arg1, ==, 5);
    hws_done(&h);
}

/*
 * preempt=dma-buffer: a WAIT that starts its submission still does not
 * hold the engine (nothing to save: the submission goes back to the
 * head); a WAIT after another packet does, as the granularity says.
 */
static void test_blocked_coarse(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 100000000, 0, 0 },
        { 2, COPRO_BAND_NORMAL, 100000000, 0, 0 },
    };
    g_autoptr(GArray) w = copro_buf_new();
    g_autoptr(GArray) w2 = copro_buf_new();
    g_autoptr(GArray) log = NULL;
    struct copro_hwq_desc d;

    hws_boot(&h, "preempt=dma-buffer");
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    vram_w64(&h.c, FLAG, 0);
    rl_commit(&h, 0, ent, 2);
    copro_pkt_wait(w, FLAG, 1);
    copro_pkt_fence(w, OUT, 1, 0);
    hwq_submit(&h, 1, w, 11, 0);
    submit_work(&h, 2, 300000, 21, 0);
    step(&h, 100000);
    hwq_get(&h, 1, &d);
    g_assert_cmpuint(le32_to_cpu(d.state), ==, COPRO_HWQ_STATE_BLOCKED);
    g_assert_cmpuint(le32_to_cpu(d.resume), ==, 0);
    g_assert_cmpuint(le32_to_cpu(d.head), ==, 0);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 2);
    vram_w64(&h.c, FLAG, 1);
    step(&h, 500000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 11);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);
    log = log_all(&h);
    g_assert_null(log_find(log, COPRO_SLOG_PREEMPTED, 1, 0));
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1, ==,
                     COPRO_SLOG_OUT_BLOCKED);

    /* a WAIT after a NOP: the buffer has begun, the queue keeps the engine */
    vram_w64(&h.c, FLAG + 8, 0);
    copro_pkt_nop(w2, 1, 0);
    copro_pkt_wait(w2, FLAG + 8, 1);
    hwq_submit(&h, 1, w2, 12, 1);
    submit_work(&h, 2, 10000, 22, 1);
    step(&h, 100000);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 1);
    g_assert_cmpuint(erd32(&h.c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);
    vram_w64(&h.c, FLAG + 8, 1);
    step(&h, 100000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 12);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 22);
    hws_done(&h);
}

/*
 * A frame budget used up drops the queue to IDLE until the next vsync:
 * then an IDLE queue gets turns (with LOW_SHARE 0 it would not), and at
 * the vsync the queue is NORMAL again and preempts it.
 */
static void test_budget(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 2000000, 1000000, 0 },
        { 2, COPRO_BAND_IDLE, 10000000, 0, 0 },
    };
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *bud, *in2, *out2 = NULL, *frame;
    uint64_t vs;

    hws_boot(&h, "");
    wr32(&h.c, COPRO_REG_HWS_LOW_SHARE, 0);
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    /* start just after a vsync */
    vs = to_vsync(&h);
    copro_clock_to(&h.c, vs + 1000);
    rl_commit(&h, 0, ent, 2);
    submit_work(&h, 1, 40000000, 11, 0);
    submit_work(&h, 2, 40000000, 21, 0);
    copro_clock_to(&h.c, vs + PERIOD_NS + 500000);
    log_dump(&h);

    log = log_all(&h);
    bud = log_find(log, COPRO_SLOG_BUDGET, 1, 0);
    g_assert_nonnull(bud);
    g_assert_cmpuint(bud->arg0, >=, 1000000);
    g_assert_cmpuint(bud->arg0, <=, 1000000 + SLICE_NS + PKT_NS);
    g_assert_cmpuint(bud->arg1, ==, 1000000);
    g_assert_cmpuint(bud->band, ==, COPRO_BAND_IDLE);
    /* same (IDLE) band now: queue 1 ends its quantum, then queue 2 runs */
    in2 = log_find(log, COPRO_SLOG_SWITCH_IN, 2, 0);
    g_assert_nonnull(in2);
    g_assert_cmpuint(in2->time_ns, <, vs + PERIOD_NS);
    g_assert_cmpuint(in2->time_ns - (vs + 1000), >=, 2000000);
    g_assert_cmpuint(in2->time_ns - (vs + 1000), <=,
                     2000000 + SLICE_NS + PKT_NS);
    /*
     * queue 1 [0, 2 ms], queue 2 [2, 12], 1 [12, 14], 2 from 14 ms: at the
     * vsync queue 1 is NORMAL again and takes the engine back
     */
    for (unsigned i = 0; log_find(log, COPRO_SLOG_SWITCH_OUT, 2, i); i++) {
        struct copro_sched_log_entry *o =
            log_find(log, COPRO_SLOG_SWITCH_OUT, 2, i);

        if (o->arg1 == COPRO_SLOG_OUT_PREEMPTED) {
            out2 = o;
            break;
        }
        g_assert_cmpuint(o->arg1, ==, COPRO_SLOG_OUT_QUANTUM);
    }
    g_assert_nonnull(out2);
    g_assert_cmpuint(out2->time_ns, >=, vs + PERIOD_NS);
    g_assert_cmpuint(out2->time_ns, <=, vs + PERIOD_NS + SLICE_NS + PKT_NS);
    g_assert_cmpuint(out2->arg1, ==, COPRO_SLOG_OUT_PREEMPTED);
    frame = log_find(log, COPRO_SLOG_FRAME, 1, 0);
    g_assert_nonnull(frame);
    g_assert_cmpuint(frame->arg1, ==, rd64(&h.c, COPRO_REG_DISP_VSYNC_COUNT));
    g_assert_cmpuint(HWQ_FIELD(&h, 1, last_frame_ns), ==, frame->arg0);
    /* both ran all the frame (steps are charged when they start) */
    g_assert_cmpuint(log_find(log, COPRO_SLOG_FRAME, 2, 0)->arg0 +
                     frame->arg0, <=, PERIOD_NS + SLICE_NS + PKT_NS);
    g_assert_cmpuint(log_find(log, COPRO_SLOG_FRAME, 2, 0)->arg0 +
                     frame->arg0, >=, PERIOD_NS - SLICE_NS);
    hws_done(&h);
}

/*
 * LOW_SHARE: a NORMAL hog yields LOW_SHARE permille of each frame to a
 * runnable IDLE queue (to one quantum's granularity); with 0, nothing.
 */
static void run_share(uint32_t permille, bool two, uint64_t *idle_frame)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 2, COPRO_BAND_IDLE, 1000000, 0, 0 },
        { 3, COPRO_BAND_NORMAL, 1000000, 0, 0 },
    };
    g_autoptr(GArray) log = NULL;
    uint64_t vs;

    hws_boot(&h, "");
    wr32(&h.c, COPRO_REG_HWS_LOW_SHARE, permille);
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    hwq_put(&h, 3, 0);
    vs = to_vsync(&h);
    rl_commit(&h, 0, ent, two ? 3 : 2);
    submit_work(&h, 1, 200000000, 11, 0);
    submit_work(&h, 2, 200000000, 21, 0);
    if (two) {
        /* a rotation of two NORMAL queues does not starve it either */
        submit_work(&h, 3, 200000000, 31, 0);
    }
    copro_clock_to(&h.c, vs + 3 * PERIOD_NS + 1000);
    g_assert_true(int_status(&h) & COPRO_INT_DEV_SCHED_LOG);
    log = log_all(&h);
    /* the third frame: queue 2's FRAME entry */
    g_assert_cmpuint(log_count(log, COPRO_SLOG_FRAME, 2), ==, 3);
    *idle_frame = log_find(log, COPRO_SLOG_FRAME, 2, 2)->arg0;
    g_assert_cmpuint(log_find(log, COPRO_SLOG_FRAME, 1, 2)->arg0 +
                     (two ? log_find(log, COPRO_SLOG_FRAME, 3, 2)->arg0 : 0) +
                     *idle_frame, >=, PERIOD_NS - 2 * SLICE_NS);
    if (permille) {
        g_assert_nonnull(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0));
        g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1,
                         ==, COPRO_SLOG_OUT_SHARE);
    }
    hws_done(&h);
}

static void test_low_share(void)
{
    uint64_t share = PERIOD_NS * 100 / 1000, got;

    /* the last turn ends at the arbitration point after the share */
    run_share(100, false, &got);
    g_assert_cmpuint(got, >=, share - 2 * SLICE_NS);
    g_assert_cmpuint(got, <=, share + 2 * SLICE_NS);
    run_share(100, true, &got);
    g_assert_cmpuint(got, >=, share - 2 * SLICE_NS);
    g_assert_cmpuint(got, <=, share + 2 * SLICE_NS);
    run_share(0, false, &got);
    g_assert_cmpuint(got, ==, 0);
}

/*
 * PREEMPT_TIMEOUT: a hung queue (COPRO_INJECT_HANG) does not yield at
 * its quantum; after the timeout its submission is reset, the queue goes
 * to ERROR and the other queue completes.
 */
static void test_timeout(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 200000, 0, 0 },
        { 2, COPRO_BAND_NORMAL, 200000, 0, 0 },
    };
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *rst;
    struct copro_hwq_desc d;

    hws_boot(&h, "x-fault-injection=on");
    wr32(&h.c, COPRO_REG_HWS_PREEMPT_TIMEOUT, 1000000);
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    rl_commit(&h, 0, ent, 2);
    submit_work(&h, 1, 10000000, 11, 0);
    step(&h, 50000);
    ewr32(&h.c, 0, COPRO_ENG_INJECT, COPRO_INJECT_HANG);
    submit_work(&h, 2, 100000, 21, 0);
    step(&h, 1200000);
    /* quantum end at 200 us, the timeout 1 ms later */
    g_assert_cmpuint(hwq_state(&h, 1), ==, COPRO_HWQ_STATE_ERROR);
    step(&h, 300000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 0);
    hwq_get(&h, 1, &d);
    g_assert_cmpuint(le32_to_cpu(d.error), ==,
                     COPRO_HWS_ERR_PREEMPT_TIMEOUT);
    g_assert_cmpuint(le64_to_cpu(d.error_fence), ==, 11);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_ERROR), ==,
                     COPRO_HWS_ERR_PREEMPT_TIMEOUT);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_ERROR_QUEUE), ==, 1);
    g_assert_true(int_status(&h) & COPRO_INT_DEV_HWS_ERROR);
    g_assert_cmpuint(erd32(&h.c, 0, COPRO_ENG_STATE), !=,
                     COPRO_ENG_STATE_HALTED);
    log = log_all(&h);
    rst = log_find(log, COPRO_SLOG_RESET, 1, 0);
    g_assert_nonnull(rst);
    g_assert_cmpuint(rst->arg0, ==, 11);
    g_assert_cmpuint(rst->arg1, ==, 1000000);
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1, ==,
                     COPRO_SLOG_OUT_RESET);
    /* a doorbell for the queue in error is refused */
    doorbell(&h, 1, 5);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_ERROR), ==,
                     COPRO_HWS_ERR_DOORBELL_ERROR);
    hws_done(&h);
}

/*
 * The timeout runs from the decision to switch, whatever decided it: a
 * budget used up (checked as time is charged) with a quantum of 1 s still
 * resets the hung queue one timeout later.
 */
static void test_timeout_budget(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 1000000000, 500000, 0 },
        { 2, COPRO_BAND_NORMAL, 1000000000, 0, 0 },
    };
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *bud, *rst;
    int64_t t0;

    hws_boot(&h, "x-fault-injection=on");
    wr32(&h.c, COPRO_REG_HWS_PREEMPT_TIMEOUT, 1000000);
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    t0 = to_vsync(&h);
    rl_commit(&h, 0, ent, 2);
    submit_work(&h, 1, 5000000, 11, 0);
    submit_work(&h, 2, 100000, 21, 0);
    /* the budget is crossed when the step ending at 500.1 us is charged */
    copro_clock_to(&h.c, t0 + 450000);
    ewr32(&h.c, 0, COPRO_ENG_INJECT, COPRO_INJECT_HANG);
    copro_clock_to(&h.c, t0 + 1600000);
    g_assert_cmpuint(hwq_state(&h, 1), ==, COPRO_HWQ_STATE_ERROR);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);
    log = log_all(&h);
    bud = log_find(log, COPRO_SLOG_BUDGET, 1, 0);
    rst = log_find(log, COPRO_SLOG_RESET, 1, 0);
    g_assert_nonnull(bud);
    g_assert_nonnull(rst);
    g_assert_cmpuint(rst->arg1, ==, 1000000);
    g_assert_cmpuint(rst->time_ns - bud->time_ns, ==, 1000000);
    hws_done(&h);
}

/*
 * PREEMPT_REQ in queue mode: the running queue is saved to its own save
 * area and stays on the list; PREEMPTED is raised as in ring mode and the
 * queue resumes and completes exactly.
 */
static void test_preempt_req(void)
{
    Hws h;
    RlEnt ent = { 1, COPRO_BAND_NORMAL, 100000000, 0, 0 };
    g_autoptr(GArray) log = NULL;

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    rl_commit(&h, 0, &ent, 1);
    submit_work(&h, 1, 1000000, 11, 0);
    step(&h, 150000);
    ewr64(&h.c, 0, COPRO_ENG_PREEMPT_REQ, 0x99);
    step(&h, SLICE_NS);
    g_assert_true(int_status(&h) & COPRO_INT_ENG(0, COPRO_INT_PREEMPTED));
    g_assert_cmpuint(erd64(&h.c, 0, COPRO_ENG_PREEMPT_FENCE), ==, 0x99);
    g_assert_cmpuint(erd64(&h.c, 0, COPRO_ENG_PREEMPTED_FENCE), ==, 11);
    step(&h, 1000000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 11);
    g_assert_cmpuint(HWQ_FIELD(&h, 1, gpu_time_ns), ==, 1000000 + PKT_NS);
    log = log_all(&h);
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1, ==,
                     COPRO_SLOG_OUT_PREEMPTED);
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_IN, 1, 1)->arg1, ==, 1);
    hws_done(&h);
}

/* A packet fault stops its queue (ERROR, QUEUE_FAULT), not the engine. */
static void test_queue_fault(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 2, COPRO_BAND_NORMAL, 1000000, 0, 0 },
    };
    g_autoptr(GArray) bad = copro_buf_new();
    g_autoptr(GArray) log = NULL;
    struct copro_hwq_desc d;
    struct copro_sched_log_entry *err;

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    rl_commit(&h, 0, ent, 2);
    copro_pkt_work(bad, 10000);
    copro_buf_dw(bad, COPRO_PKT_HDR(0xee, 0, 1));
    hwq_submit(&h, 1, bad, 11, 0);
    submit_work(&h, 1, 10000, 12, 1);
    submit_work(&h, 2, 10000, 21, 0);
    step(&h, 100000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 21);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 0);
    hwq_get(&h, 1, &d);
    g_assert_cmpuint(le32_to_cpu(d.state), ==, COPRO_HWQ_STATE_ERROR);
    g_assert_cmpuint(le32_to_cpu(d.error), ==, COPRO_HWS_ERR_QUEUE_FAULT);
    g_assert_cmpuint(le32_to_cpu(d.fault), ==, COPRO_FAULT_ILLEGAL_OPCODE);
    g_assert_cmpuint(le64_to_cpu(d.error_fence), ==, 11);
    g_assert_cmpuint(le32_to_cpu(d.head), ==, 0);
    g_assert_cmpuint(erd32(&h.c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(int_status(&h) & COPRO_INT_ENGINE_MASK(0), ==, 0);
    g_assert_true(int_status(&h) & COPRO_INT_DEV_HWS_ERROR);
    log = log_all(&h);
    err = log_find(log, COPRO_SLOG_ERROR, 1, 0);
    g_assert_nonnull(err);
    g_assert_cmpuint(err->arg0, ==, COPRO_HWS_ERR_QUEUE_FAULT);
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1, ==,
                     COPRO_SLOG_OUT_ERROR);

    /* a ring the device cannot read: the queue's fault, logged in order */
    {
        RlEnt e3 = { 3, COPRO_BAND_NORMAL, 1000000, 0, 0 };
        g_autoptr(GArray) log2 = NULL;
        struct copro_sched_log_entry *in, *out;

        hwq_put(&h, 3, 0);
        vram_w64(&h.c, DESC(3) + offsetof(struct copro_hwq_desc, ring_base),
                 COPRO_APERTURE_BASE);
        rl_commit(&h, 1, &e3, 1);
        doorbell(&h, 3, 1);
        step(&h, 10000);
        hwq_get(&h, 3, &d);
        g_assert_cmpuint(le32_to_cpu(d.state), ==, COPRO_HWQ_STATE_ERROR);
        g_assert_cmpuint(le32_to_cpu(d.error), ==, COPRO_HWS_ERR_QUEUE_FAULT);
        g_assert_cmpuint(le32_to_cpu(d.fault), ==, COPRO_FAULT_GART);
        g_assert_cmpuint(erd32(&h.c, 1, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_IDLE);
        log2 = log_all(&h);
        in = log_find(log2, COPRO_SLOG_SWITCH_IN, 3, 0);
        out = log_find(log2, COPRO_SLOG_SWITCH_OUT, 3, 0);
        g_assert_nonnull(in);
        g_assert_nonnull(out);
        g_assert_true(in < out);
        g_assert_cmpuint(in->arg0, ==, 0);
        g_assert_cmpuint(out->arg1, ==, COPRO_SLOG_OUT_ERROR);
    }
    hws_done(&h);
}

/* Expect the last refused input to be @err about @queue. */
static void expect_error(Hws *h, uint32_t err, uint32_t queue)
{
    g_autoptr(GArray) log = log_all(h);
    struct copro_sched_log_entry *le = LE(log, log->len - 1);

    g_assert_cmpuint(rd32(&h->c, COPRO_REG_HWS_ERROR), ==, err);
    g_assert_cmphex(rd32(&h->c, COPRO_REG_HWS_ERROR_QUEUE), ==, queue);
    g_assert_true(int_status(h) & COPRO_INT_DEV_HWS_ERROR);
    g_assert_cmpuint(le->kind, ==, COPRO_SLOG_ERROR);
    g_assert_cmpuint(le->arg0, ==, err);
    g_assert_cmphex(le->queue, ==, queue);
    wr64(&h->c, COPRO_REG_INT_STATUS, ~0ULL);
}

static void expect_refused(Hws *h, unsigned e, uint32_t err, uint32_t queue)
{
    expect_error(h, err, queue);
    g_assert_cmpuint(COPRO_RL_STS_ERROR(rl_reg(h, e, COPRO_RL_STATUS)), ==,
                     err);
}

/*
 * Every bad input is refused with its error, a log entry and HWS_ERROR,
 * and the active list stays.
 */
static void test_bad_input(void)
{
    Hws h;
    RlEnt good = { 1, COPRO_BAND_NORMAL, 1000000, 0, 0 };
    RlEnt two[2] = { good, good };
    static const struct {
        uint32_t band, quantum, flags;
    } bad_entries[] = {
        { COPRO_BANDS, 1000000, 0 },
        { COPRO_BAND_NORMAL, COPRO_HWS_QUANTUM_MIN_NS - 1, 0 },
        { COPRO_BAND_NORMAL, COPRO_HWS_QUANTUM_MAX_NS + 1, 0 },
        { COPRO_BAND_NORMAL, 1000000, 2 },
    };
    static const struct {
        size_t off;
        uint32_t val;
    } bad_desc[] = {
        { offsetof(struct copro_hwq_desc, magic), 0 },
        { offsetof(struct copro_hwq_desc, version), 2 },
        { offsetof(struct copro_hwq_desc, ring_size), 3 },
        { offsetof(struct copro_hwq_desc, ring_size), 8192 },
        { offsetof(struct copro_hwq_desc, ring_base), 0x20010 },
        { offsetof(struct copro_hwq_desc, save_addr), 4 },
        { offsetof(struct copro_hwq_desc, progress_addr), 12 },
        { offsetof(struct copro_hwq_desc, flags), 2 },
        { offsetof(struct copro_hwq_desc, reserved0), 1 },
        { offsetof(struct copro_hwq_desc, reserved1), 1 },
        { offsetof(struct copro_hwq_desc, head), RING_SIZE },
        { offsetof(struct copro_hwq_desc, tail), RING_SIZE },
        { offsetof(struct copro_hwq_desc, resume), 2 },
    };

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    rl_commit(&h, 0, &good, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_SEQ), ==, 1);
    wr64(&h.c, COPRO_REG_INT_STATUS, ~0ULL);

    /* the list itself */
    commit_raw(&h, 0, RL(0) + 4, 1);
    expect_refused(&h, 0, COPRO_HWS_ERR_RUNLIST, COPRO_HWQ_NONE);
    commit_raw(&h, 0, RL(0), COPRO_RUNLIST_MAX + 1);
    expect_refused(&h, 0, COPRO_HWS_ERR_RUNLIST, COPRO_HWQ_NONE);
    commit_raw(&h, 0, 0x7f0000000000ULL, 1);
    expect_refused(&h, 0, COPRO_HWS_ERR_RUNLIST, COPRO_HWQ_NONE);
    /* entries */
    for (size_t i = 0; i < ARRAY_SIZE(bad_entries); i++) {
        RlEnt r = { 2, bad_entries[i].band, bad_entries[i].quantum, 0,
                    bad_entries[i].flags };

        hwq_put(&h, 2, 0);
        rl_commit(&h, 0, &r, 1);
        expect_refused(&h, 0, COPRO_HWS_ERR_ENTRY, 2);
    }
    vram_w32(&h.c, RL(0) + offsetof(struct copro_runlist_entry, queue),
             COPRO_HWQ_MAX);
    commit_raw(&h, 0, RL(0), 1);
    expect_refused(&h, 0, COPRO_HWS_ERR_ENTRY, COPRO_HWQ_NONE);
    rl_write(&h, 0, &good, 1);
    vram_w32(&h.c, RL(0) + offsetof(struct copro_runlist_entry, reserved),
             1);
    commit_raw(&h, 0, RL(0), 1);
    expect_refused(&h, 0, COPRO_HWS_ERR_ENTRY, 1);
    /* twice */
    rl_commit(&h, 0, two, 2);
    expect_refused(&h, 0, COPRO_HWS_ERR_DUPLICATE, 1);
    two[1].q = 2;
    rl_write(&h, 0, two, 2);
    vram_w64(&h.c, RL(0) + COPRO_RUNLIST_ENTRY_SIZE, DESC(1));
    commit_raw(&h, 0, RL(0), 2);
    expect_refused(&h, 0, COPRO_HWS_ERR_DUPLICATE, 2);
    /* slot 1 is engine 0's: not on engine 1 too */
    rl_commit(&h, 1, &good, 1);
    expect_refused(&h, 1, COPRO_HWS_ERR_QUEUE_BUSY, 1);
    /* descriptors */
    for (size_t i = 0; i < ARRAY_SIZE(bad_desc); i++) {
        RlEnt r = { 2, COPRO_BAND_NORMAL, 1000000, 0, 0 };

        hwq_put(&h, 2, 0);
        vram_w32(&h.c, DESC(2) + bad_desc[i].off, bad_desc[i].val);
        rl_commit(&h, 0, &r, 1);
        expect_refused(&h, 0, COPRO_HWS_ERR_DESC, 2);
    }
    two[1].q = 2;
    hwq_put(&h, 2, 0);
    rl_write(&h, 0, two, 2);
    vram_w64(&h.c, RL(0) + COPRO_RUNLIST_ENTRY_SIZE, DESC(2) + 8);
    commit_raw(&h, 0, RL(0), 2);
    expect_refused(&h, 0, COPRO_HWS_ERR_DESC, 2);
    /* the active list is still the first one */
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_SEQ), ==, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_ACTIVE), ==, 1);
    g_assert_cmpuint(rl_reg(&h, 1, COPRO_RL_SEQ), ==, 0);

    /* doorbells */
    doorbell(&h, 9, 1);
    expect_error(&h, COPRO_HWS_ERR_DOORBELL, 9);
    doorbell(&h, 1, RING_SIZE);
    expect_error(&h, COPRO_HWS_ERR_DOORBELL, 1);
    g_assert_cmpuint(hwq_state(&h, 1), ==, COPRO_HWQ_STATE_ERROR);
    doorbell(&h, 1, 1);
    expect_error(&h, COPRO_HWS_ERR_DOORBELL_ERROR, 1);
    /* log registers */
    wr64(&h.c, COPRO_REG_HWS_LOG_ADDR, LOG + 8);
    g_assert_cmpuint(rd64(&h.c, COPRO_REG_HWS_LOG_ADDR), ==, LOG);
    expect_error(&h, COPRO_HWS_ERR_REGISTER, COPRO_HWQ_NONE);
    wr32(&h.c, COPRO_REG_HWS_LOG_SIZE, 3);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_LOG_SIZE), ==, LOG_SIZE);
    expect_error(&h, COPRO_HWS_ERR_REGISTER, COPRO_HWQ_NONE);
    wr32(&h.c, COPRO_REG_HWS_LOW_SHARE, 1001);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_LOW_SHARE), ==,
                     COPRO_HWS_LOW_SHARE_DEFAULT);
    expect_error(&h, COPRO_HWS_ERR_REGISTER, COPRO_HWQ_NONE);

    /* a good list still works: queue 1 out (in error), queue 3 in */
    hwq_put(&h, 3, 0);
    good.q = 3;
    rl_commit(&h, 0, &good, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_STATUS), ==, 0);
    submit_work(&h, 3, 10000, 31, 0);
    step(&h, 50000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(3)), ==, 31);

    /* a log the device cannot write: entries dropped, WRITEBACK */
    wr64(&h.c, COPRO_REG_HWS_LOG_ADDR, COPRO_APERTURE_BASE);
    wr64(&h.c, COPRO_REG_INT_STATUS, ~0ULL);
    submit_work(&h, 3, 10000, 32, 1);
    step(&h, 50000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(3)), ==, 32);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_LOG_WPTR), ==, 0);
    /* SWITCH_IN, COMPLETED, SWITCH_OUT */
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_LOG_DROPPED), ==, 3);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_ERROR), ==,
                     COPRO_HWS_ERR_WRITEBACK);
    g_assert_cmphex(rd64(&h.c, COPRO_REG_HWS_ERROR_ADDR), ==,
                    COPRO_APERTURE_BASE);
    g_assert_true(int_status(&h) & COPRO_INT_DEV_HWS_ERROR);
    hws_done(&h);
}

/*
 * A commit that removes the running queue is pending until the queue is
 * saved; the queue is written back SUSPENDED with its resume record, and
 * COUNT 0 gives the engine back to its kernel ring.
 */
static void test_runlist_switch(void)
{
    Hws h;
    RlEnt a = { 1, COPRO_BAND_NORMAL, 100000000, 0, 0 };
    RlEnt b = { 2, COPRO_BAND_NORMAL, 100000000, 0, 0 };
    struct copro_hwq_desc d;

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    rl_commit(&h, 0, &a, 1);
    submit_work(&h, 1, 1000000, 11, 0);
    step(&h, 150000);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 1);
    rl_commit(&h, 0, &b, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_STATUS), ==,
                     COPRO_RL_STS_PENDING);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_SEQ), ==, 1);
    step(&h, SLICE_NS + PKT_NS);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_STATUS), ==, 0);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_SEQ), ==, 2);
    hwq_get(&h, 1, &d);
    g_assert_cmpuint(le32_to_cpu(d.state), ==, COPRO_HWQ_STATE_SUSPENDED);
    g_assert_cmpuint(le32_to_cpu(d.resume), ==, 1);
    g_assert_cmpuint(le32_to_cpu(d.head), ==, 0);

    /* back on the list: it resumes and completes */
    RlEnt ab[] = { a, b };
    rl_commit(&h, 0, ab, 2);
    step(&h, 2000000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 11);

    /* COUNT 0: the kernel ring runs again */
    commit_raw(&h, 0, RL(0), 0);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_ACTIVE), ==, 0);
    copro_ring_setup(&h.c, 0, 0x300000, 16);
    {
        g_autoptr(GArray) kb = copro_buf_new();
        uint32_t len;

        copro_pkt_fence(kb, OUT + 64, 0x55, 0);
        len = copro_buf_put(&h.c, 0x310000, kb);
        copro_submit(&h.c, 0, 0x310000, len, 99, 7, 0);
    }
    step(&h, 10000);
    g_assert_cmpuint(vram_r64(&h.c, OUT + 64), ==, 0x55);
    g_assert_cmpuint(erd64(&h.c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 99);
    hws_done(&h);
}

/*
 * ENG_CONTROL.RESET in queue mode drops the run list, writes every queue
 * back, puts the running one in ERROR with its submission aborted; a
 * device reset puts every register back.
 */
static void test_reset(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 100000000, 0, 0 },
        { 2, COPRO_BAND_NORMAL, 100000000, 0, 0 },
    };
    struct copro_hwq_desc d;

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    rl_commit(&h, 0, ent, 2);
    submit_work(&h, 1, 1000000, 11, 0);
    submit_work(&h, 2, 1000000, 21, 0);
    step(&h, 150000);
    ewr32(&h.c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_ACTIVE), ==, 0);
    g_assert_cmphex(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, COPRO_HWQ_NONE);
    g_assert_cmpuint(erd64(&h.c, 0, COPRO_ENG_ABORTED_FENCE), ==, 11);
    hwq_get(&h, 1, &d);
    g_assert_cmpuint(le32_to_cpu(d.state), ==, COPRO_HWQ_STATE_ERROR);
    g_assert_cmpuint(le32_to_cpu(d.error), ==, COPRO_HWS_ERR_ENGINE_RESET);
    g_assert_cmpuint(le64_to_cpu(d.error_fence), ==, 11);
    g_assert_cmpuint(hwq_state(&h, 2), ==, COPRO_HWQ_STATE_SUSPENDED);
    step(&h, 2000000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(2)), ==, 0);
    /* the slots are free: the queues can be listed again, elsewhere too */
    hwq_put(&h, 1, 0);
    rl_commit(&h, 1, ent, 1);
    g_assert_cmpuint(rl_reg(&h, 1, COPRO_RL_ACTIVE), ==, 1);

    qtest_system_reset(h.c.qts);
    h.c.mmio = qpci_iomap(h.c.dev, COPRO_BAR_MMIO, NULL);
    h.c.vram = qpci_iomap(h.c.dev, COPRO_BAR_VRAM, NULL);
    h.db = qpci_iomap(h.c.dev, COPRO_BAR_DOORBELL, NULL);
    qpci_device_enable(h.c.dev);
    for (unsigned e = 0; e < 2; e++) {
        g_assert_cmpuint(rl_reg(&h, e, COPRO_RL_ACTIVE), ==, 0);
        g_assert_cmpuint(rl_reg(&h, e, COPRO_RL_SEQ), ==, 0);
        g_assert_cmpuint(rl_reg(&h, e, COPRO_RL_STATUS), ==, 0);
        g_assert_cmphex(rl_reg(&h, e, COPRO_RL_CURRENT), ==, COPRO_HWQ_NONE);
    }
    g_assert_cmpuint(rd64(&h.c, COPRO_REG_HWS_LOG_ADDR), ==, 0);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_LOG_WPTR), ==, 0);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_ERROR), ==, 0);
    g_assert_cmpuint(rd64(&h.c, COPRO_REG_HWS_DOORBELLS), ==, 0);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_PREEMPT_TIMEOUT), ==,
                     COPRO_HWS_PREEMPT_TIMEOUT_DEFAULT);
    g_assert_cmpuint(qpci_io_readl(h.c.dev, h.db, COPRO_DOORBELL_STRIDE), ==,
                     0);
    hws_done(&h);
}

/*
 * Migration in the middle of a hardware-scheduled run: a queue mid-WORK
 * on engine 0, one BLOCKED, a run list pending (it suspends the running
 * queue), budgets, the IDLE share and frames running. The migrated run is
 * the same run: every log entry (times included), descriptor, progress
 * fence, output byte and register equals the uninterrupted run's.
 */
typedef struct HwsRun {
    GArray *log;
    uint8_t desc[6][COPRO_HWQ_DESC_SIZE];
    uint64_t prog[6];
    uint8_t out[64 * KiB];
    uint32_t rl[2][4];
    uint64_t switches;
} HwsRun;

static void mig_run(HwsRun *r, bool migrate)
{
    Hws h;
    RlEnt l1[] = {
        { 2, COPRO_BAND_NORMAL, 300000, 0, 0 },
        { 1, COPRO_BAND_NORMAL, 300000, 800000, 0 },
        { 5, COPRO_BAND_IDLE, 300000, 0, 0 },
    };
    RlEnt l2[] = {
        { 2, COPRO_BAND_NORMAL, 300000, 0, 0 },
        { 5, COPRO_BAND_IDLE, 300000, 0, 0 },
        { 3, COPRO_BAND_REALTIME, 300000, 0, 0 },
        { 1, COPRO_BAND_NORMAL, 300000, 800000, COPRO_RL_F_SUSPENDED },
    };
    RlEnt l3[] = {
        { 2, COPRO_BAND_NORMAL, 300000, 0, 0 },
        { 1, COPRO_BAND_NORMAL, 300000, 800000, 0 },
        { 5, COPRO_BAND_IDLE, 300000, 0, 0 },
        { 3, COPRO_BAND_REALTIME, 300000, 0, 0 },
    };
    RlEnt e1 = { 4, COPRO_BAND_NORMAL, 300000, 0, 0 };
    g_autoptr(GArray) b1 = copro_buf_new();
    g_autoptr(GArray) b2 = copro_buf_new();
    g_autoptr(GArray) b4 = copro_buf_new();
    int64_t t0;

    hws_boot(&h, "ctx-state-size=64K");
    for (uint32_t q = 1; q <= 5; q++) {
        hwq_put(&h, q, 0);
    }
    vram_w64(&h.c, FLAG, 0);
    t0 = to_vsync(&h);
    rl_commit(&h, 0, l1, 3);
    rl_commit(&h, 1, &e1, 1);
    copro_pkt_wait(b2, FLAG, 1);
    copro_pkt_fill(b2, OUT, 64 * KiB, 0x22222222);
    copro_pkt_work(b2, 500000);
    hwq_submit(&h, 2, b2, 21, 0);
    copro_pkt_work(b1, 3000000);
    copro_pkt_fence(b1, FLAG + 8, 7, 0);
    hwq_submit(&h, 1, b1, 11, 0);
    submit_work(&h, 5, 5000000, 51, 0);

    copro_clock_to(&h.c, t0 + 150000);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 1);
    g_assert_cmpuint(hwq_state(&h, 2), ==, COPRO_HWQ_STATE_BLOCKED);
    rl_commit(&h, 0, l2, 4);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_STATUS), ==,
                     COPRO_RL_STS_PENDING);
    if (migrate) {
        Copro dst;

        copro_migrate_to(&h.c, &dst, "-M q35", "ctx-state-size=64K");
        h.c = dst;
        /* BAR1 came with the device state too */
    }
    copro_clock_to(&h.c, t0 + 250000);
    submit_work(&h, 3, 200000, 31, 0);
    copro_clock_to(&h.c, t0 + 300000);
    copro_pkt_fill(b4, OUT + 32 * KiB, 4096, 0x44444444);
    copro_pkt_fence(b4, FLAG, 1, 0);
    hwq_submit(&h, 4, b4, 41, 0);
    copro_clock_to(&h.c, t0 + 900000);
    rl_commit(&h, 0, l3, 4);
    copro_clock_to(&h.c, t0 + 2 * PERIOD_NS + 2000000);

    log_dump(&h);
    r->log = log_all(&h);
    for (uint32_t q = 1; q <= 5; q++) {
        vram_read(&h.c, DESC(q), r->desc[q], COPRO_HWQ_DESC_SIZE);
        r->prog[q] = vram_r64(&h.c, PROG(q));
    }
    vram_read(&h.c, OUT, r->out, sizeof(r->out));
    for (unsigned e = 0; e < 2; e++) {
        r->rl[e][0] = rl_reg(&h, e, COPRO_RL_STATUS);
        r->rl[e][1] = rl_reg(&h, e, COPRO_RL_SEQ);
        r->rl[e][2] = rl_reg(&h, e, COPRO_RL_CURRENT);
        r->rl[e][3] = rl_reg(&h, e, COPRO_RL_ACTIVE);
    }
    r->switches = rd64(&h.c, COPRO_REG_HWS_SWITCHES);
    hws_done(&h);
}

static void test_migration(void)
{
    HwsRun *ref = g_new0(HwsRun, 1), *got = g_new0(HwsRun, 1);

    mig_run(ref, false);
    mig_run(got, true);
    /* the run did what it was built for */
    g_assert_cmpuint(ref->prog[2], ==, 21);
    g_assert_cmpuint(ref->prog[3], ==, 31);
    g_assert_cmpuint(ref->prog[4], ==, 41);
    g_assert_cmpuint(ref->prog[1], ==, 11);
    g_assert_nonnull(log_find(ref->log, COPRO_SLOG_BUDGET, 1, 0));
    g_assert_nonnull(log_find(ref->log, COPRO_SLOG_UNBLOCKED, 2, 0));
    g_assert_cmpuint(log_count(ref->log, COPRO_SLOG_RUNLIST,
                               COPRO_HWQ_NONE), ==, 4);
    /* and the migrated one did exactly the same */
    g_assert_cmpuint(got->log->len, ==, ref->log->len);
    for (guint i = 0; i < ref->log->len; i++) {
        g_assert_cmpmem(LE(got->log, i), COPRO_SLOG_ENTRY_SIZE,
                        LE(ref->log, i), COPRO_SLOG_ENTRY_SIZE);
    }
    g_assert_cmpmem(got->desc, sizeof(got->desc), ref->desc,
                    sizeof(ref->desc));
    g_assert_cmpmem(got->prog, sizeof(got->prog), ref->prog,
                    sizeof(ref->prog));
    g_assert_cmpmem(got->out, sizeof(got->out), ref->out, sizeof(ref->out));
    g_assert_cmpmem(got->rl, sizeof(got->rl), ref->rl, sizeof(ref->rl));
    g_assert_cmpuint(got->switches, ==, ref->switches);
    g_array_free(ref->log, true);
    g_array_free(got->log, true);
    g_free(ref);
    g_free(got);
}

/*
 * x-query-copro and info copro show the queues and each engine's run
 * list; the timeline (device option timeline=N) has the device's
 * switches on the engine track and each queue's frame as counter values.
 */
static void test_monitor_timeline(void)
{
    Hws h;
    RlEnt ent[] = {
        { 6, COPRO_BAND_FOCUS, 200000, 3000000, 0 },
        { 7, COPRO_BAND_NORMAL, 200000, 0, 0 },
    };
    QDict *rsp, *dev, *hs, *rl, *q = NULL;
    const QListEntry *le;
    g_autofree char *text = NULL;
    QList *slots, *evs;
    unsigned ins = 0, outs = 0, frames = 0;
    int64_t t0;

    hws_boot(&h, "timeline=4096");
    hwq_put(&h, 6, 0);
    hwq_put(&h, 7, 0);
    t0 = to_vsync(&h);
    rl_commit(&h, 0, ent, 2);
    submit_work(&h, 7, 10000000, 71, 0);
    copro_clock_to(&h.c, t0 + 300000);
    submit_work(&h, 6, 10000000, 61, 0);
    copro_clock_to(&h.c, t0 + 1000000);

    dev = copro_query(&h.c, &rsp);
    hs = qdict_get_qdict(dev, "hwsched");
    g_assert_nonnull(hs);
    g_assert_cmpuint(qdict_get_int(hs, "log-size"), ==, LOG_SIZE);
    g_assert_cmpuint(qdict_get_int(hs, "doorbells"), ==, 2);
    rl = qobject_to(QDict, qlist_peek(qdict_get_qlist(hs, "run-lists")));
    g_assert_cmpuint(qdict_get_int(rl, "engine"), ==, 0);
    g_assert_cmpuint(qdict_get_int(rl, "seq"), ==, 1);
    g_assert_cmpuint(qdict_get_int(rl, "current"), ==, 6);
    slots = qdict_get_qlist(rl, "queues");
    g_assert_cmpuint(qlist_size(slots), ==, 2);
    g_assert_cmpuint(qnum_get_uint(qobject_to(QNum, qlist_peek(slots))), ==,
                     6);
    QLIST_FOREACH_ENTRY(qdict_get_qlist(hs, "queues"), le) {
        QDict *qi = qobject_to(QDict, qlist_entry_obj(le));

        if (qdict_get_int(qi, "slot") == 6) {
            q = qi;
        }
    }
    g_assert_nonnull(q);
    g_assert_cmpstr(qdict_get_str(q, "state"), ==, "running");
    g_assert_cmpuint(qdict_get_int(q, "band"), ==, COPRO_BAND_FOCUS);
    g_assert_cmpuint(qdict_get_int(q, "effective-band"), ==,
                     COPRO_BAND_FOCUS);
    g_assert_cmpuint(qdict_get_int(q, "context"), ==, CTX(6));
    g_assert_cmpuint(qdict_get_int(q, "budget-ns"), ==, 3000000);
    g_assert_cmpuint(qdict_get_int(q, "runs"), ==, 1);
    g_assert_cmpuint(qdict_get_int(q, "tail"), ==, 1);
    qobject_unref(rsp);

    text = qtest_hmp(h.c.qts, "info copro");
    g_assert_nonnull(strstr(text, "engine 0 run list (seq 1): 6 7; "
                            "running queue 6"));
    g_assert_nonnull(strstr(text, "queue 6: engine 0 band 2 (runs at 2) "
                            "running"));
    g_assert_nonnull(strstr(text, "queue 7: engine 0 band 1 (runs at 1) "
                            "ready"));

    rsp = qtest_qmp(h.c.qts, "{ 'execute': 'x-copro-timeline', "
                    "'arguments': { 'kinds': [ 'queue-switch-in', "
                    "'queue-switch-out', 'queue-frame' ] } }");
    evs = qdict_get_qlist(qdict_get_qdict(rsp, "return"), "events");
    QLIST_FOREACH_ENTRY(evs, le) {
        QDict *ev = qobject_to(QDict, qlist_entry_obj(le));
        QDict *args = qdict_get_qdict(ev, "args");
        const char *kind = qdict_get_str(ev, "kind");

        g_assert_cmpuint(qdict_get_int(ev, "engine"), ==, 0);
        if (!strcmp(kind, "queue-switch-in")) {
            g_assert_cmpuint(qdict_get_int(args, "queue"), ==,
                             ins ? 6 : 7);
            ins++;
        } else if (!strcmp(kind, "queue-switch-out")) {
            /* queue 7 preempted by the FOCUS queue 6 */
            g_assert_cmpuint(qdict_get_int(args, "queue"), ==, 7);
            g_assert_cmpstr(qdict_get_str(args, "reason"), ==, "preempted");
            outs++;
        } else {
            frames++;
        }
    }
    g_assert_cmpuint(ins, ==, 2);
    g_assert_cmpuint(outs, ==, 1);
    g_assert_cmpuint(frames, ==, 0);
    qobject_unref(rsp);

    /* the vsync: a frame counter per queue, as in its descriptor */
    copro_clock_to(&h.c, t0 + PERIOD_NS + 1000);
    rsp = qtest_qmp(h.c.qts, "{ 'execute': 'x-copro-timeline', "
                    "'arguments': { 'kinds': [ 'queue-frame' ] } }");
    evs = qdict_get_qlist(qdict_get_qdict(rsp, "return"), "events");
    QLIST_FOREACH_ENTRY(evs, le) {
        QDict *ev = qobject_to(QDict, qlist_entry_obj(le));
        QDict *args = qdict_get_qdict(ev, "args");
        uint64_t qn = qdict_get_int(args, "queue");

        g_assert_true(qn == 6 || qn == 7);
        g_assert_cmpuint(qdict_get_int(ev, "time-ns"), ==,
                         rd64(&h.c, COPRO_REG_DISP_VSYNC_TIME));
        g_assert_cmpuint(qdict_get_int(args, "budget-ns"), ==,
                         qn == 6 ? 3000000 : 0);
        g_assert_cmpuint(qdict_get_int(args, "frame-ns"), ==,
                         HWQ_FIELD(&h, qn, last_frame_ns));
        frames++;
    }
    g_assert_cmpuint(frames, ==, 2);
    /* FOCUS used its budget, NORMAL had the rest: the whole frame */
    g_assert_cmpuint(HWQ_FIELD(&h, 6, last_frame_ns), >=, 3000000);
    g_assert_cmpuint(HWQ_FIELD(&h, 6, last_frame_ns) +
                     HWQ_FIELD(&h, 7, last_frame_ns), >=,
                     PERIOD_NS - SLICE_NS);
    qobject_unref(rsp);
    hws_done(&h);
}

/* hwsched=off: no capability, no registers, no doorbell BAR. */
static void test_off(void)
{
    Copro c;

    copro_boot(&c, "-M q35", "hwsched=off");
    g_assert_cmphex(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_HWSCHED, ==, 0);
    g_assert_cmpuint(rd32(&c, COPRO_REG_HWS_QUEUES), ==, 0);
    g_assert_cmpuint(qpci_config_readl(c.dev, PCI_BASE_ADDRESS_1), ==, 0);
    copro_shutdown(&c);
}

/*
 * A scene's parameter buffer filling up on a hardware queue: the queue
 * stops its geometry as a ring does (save record in its save area,
 * COPRO_SAVE_TILER_OOM) and waits in OOM_WAIT for the driver's answer
 * (COPRO_REG_HWS_OOM_ANSWER) without holding the engine, which runs the
 * other queues meanwhile. The kernel ring keeps what it holds.
 */
#define TILER_PB    (3 * MiB)
#define TILER_PB2   (3 * MiB + 512 * KiB)
#define TILER_TGT   (6 * MiB)
#define TILER_TGT2  (7 * MiB)
#define TILER_W     256
#define TILER_H     128
#define TILER_PITCH 1024
#define TILER_TILES (8 * 4)
#define TILER_BIG   (64 * KiB)

/* One scene in one buffer: three rectangles binned, then its tile pass. */
static void tiler_scene(GArray *g, uint64_t pb, uint64_t tgt, uint32_t size)
{
    copro_pkt_set_target(g, 0, tgt, TILER_PITCH, TILER_W, TILER_H,
                         COPRO_FMT_XRGB8888);
    copro_pkt_scene_begin(g, 0, 0, pb, size, 0x101010);
    copro_pkt_bin_rect(g, 0, 0, 256, 128, 0x112233);
    copro_pkt_bin_rect(g, 16, 8, 100, 50, 0x445566);
    copro_pkt_bin_rect(g, 120, 40, 130, 80, 0x778899);
    copro_pkt_scene_end(g);
    copro_pkt_tile_render(g, 0, 0, pb, TILER_TILES);
}

/* room for one full-target primitive, not two */
static uint32_t tiler_small(void)
{
    return copro_scene_heap_start(TILER_TILES) +
           COPRO_PRIM_NEED(TILER_TILES);
}

static void oom_answer(Hws *h, uint32_t slot, uint32_t ans)
{
    wr32(&h->c, COPRO_REG_HWS_OOM_ANSWER, COPRO_HWS_OOM_ANSWER(slot, ans));
}

#define HWQ_F32(h, q, f) \
    vram_r32(&(h)->c, DESC(q) + offsetof(struct copro_hwq_desc, f))

/*
 * Queue 3 runs the scene into a buffer too small for it, queue 4 runs 300
 * us of work behind it on the same engine; queue 5 renders the same scene
 * uninterrupted (a buffer big enough) into TILER_TGT2, for the pixels.
 * Returns with queue 3 waiting.
 */
static void tiler_oom_start(Hws *h)
{
    RlEnt ent[3] = {
        { 3, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 4, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 5, COPRO_BAND_NORMAL, 1000000, 0, 0 },
    };
    g_autoptr(GArray) g = copro_buf_new();
    g_autoptr(GArray) r = copro_buf_new();
    g_autoptr(GArray) f = copro_buf_new();
    struct copro_save_record rec;
    struct copro_save_tiler st;
    int64_t t0;

    hws_boot(h, "");
    /* a queue that waits is not running: no timeout may reset it */
    wr32(&h->c, COPRO_REG_HWS_PREEMPT_TIMEOUT, 50000);
    copro_ring_setup(&h->c, 0, 0x8000, 16);
    hwq_put(h, 3, 0);
    hwq_put(h, 4, 0);
    hwq_put(h, 5, 0);
    rl_commit(h, 0, ent, 3);
    /* in queue mode the kernel ring holds an entry it must keep */
    ewr32(&h->c, 0, COPRO_ENG_RING_TAIL, 1);

    tiler_scene(r, TILER_PB2, TILER_TGT2, TILER_BIG);
    hwq_submit(h, 5, r, 50, 0);
    tiler_scene(g, TILER_PB, TILER_TGT, tiler_small());
    hwq_submit(h, 3, g, 30, 0);
    copro_pkt_work(f, 300000);
    copro_pkt_fence(f, OUT, 0x4444, 0);
    hwq_submit(h, 4, f, 40, 0);
    settle(h);
    t0 = copro_time(&h->c);
    /* until queue 3 has stopped: its second rectangle does not fit */
    for (int i = 0; i < 1000 && hwq_state(h, 3) != COPRO_HWQ_STATE_OOM_WAIT;
         i++) {
        step(h, 1000);
    }
    g_assert_cmpuint(hwq_state(h, 3), ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpuint(HWQ_F32(h, 3, resume), ==, 1);
    g_assert_cmphex(HWQ_FIELD(h, 3, oom_scene), ==, TILER_PB);
    /* the second rectangle touches 4 x 2 tiles */
    g_assert_cmpuint(HWQ_F32(h, 3, oom_need), ==, COPRO_PRIM_NEED(8));
    g_assert_cmpuint(HWQ_F32(h, 3, ooms), ==, 1);
    g_assert_cmphex(rd64(&h->c, COPRO_REG_HWS_OOM_WAITING), ==, 1ull << 3);
    g_assert_true(int_status(h) & COPRO_INT_DEV_HWS_OOM);
    /* the save record in the queue's save area says why it stopped */
    vram_read(&h->c, SAVE(3), &rec, sizeof(rec));
    memcpy(&st, rec.reserved, sizeof(st));
    g_assert_cmphex(le32_to_cpu(rec.magic), ==, COPRO_SAVE_MAGIC);
    g_assert_true(le32_to_cpu(st.flags) & COPRO_SAVE_TILER_OOM);
    g_assert_cmphex(le64_to_cpu(st.scene), ==, TILER_PB);
    g_assert_cmpuint(vram_r32(&h->c, TILER_PB +
                              offsetof(struct copro_scene, state)), ==,
                     COPRO_SCENE_OOM);
    /* nothing of the stop a kernel ring would see */
    g_assert_false(int_status(h) & COPRO_INT_ENG(0, COPRO_INT_TILER_OOM));
    g_assert_cmpuint(erd32(&h->c, 0, COPRO_ENG_STATE), !=,
                     COPRO_ENG_STATE_HELD);
    g_assert_cmpuint(erd32(&h->c, 0, COPRO_ENG_RING_HEAD), ==, 0);
    g_assert_cmpuint(erd32(&h->c, 0, COPRO_ENG_RING_TAIL), ==, 1);

    /* meanwhile the engine runs queue 4 (300 us), and not queue 3 */
    step(h, 1000000);
    g_assert_cmpuint(vram_r64(&h->c, PROG(4)), ==, 40);
    g_assert_cmphex(vram_r64(&h->c, OUT), ==, 0x4444);
    g_assert_cmpuint(vram_r64(&h->c, PROG(5)), ==, 50);
    g_assert_cmpuint(vram_r64(&h->c, PROG(3)), ==, 0);
    g_assert_cmpuint(hwq_state(h, 3), ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpuint(rd32(&h->c, COPRO_REG_HWS_ERROR), ==, 0);
    (void)t0;
}

/* The scene was rendered exactly as the uninterrupted one. */
static void tiler_pixels_equal(Hws *h)
{
    size_t n = (size_t)TILER_PITCH * TILER_H;
    g_autofree uint8_t *a = g_malloc(n);
    g_autofree uint8_t *b = g_malloc(n);

    vram_read(&h->c, TILER_TGT, a, n);
    vram_read(&h->c, TILER_TGT2, b, n);
    g_assert_cmpmem(a, n, b, n);
    /* and it is the scene: the last rectangle's colour inside it */
    g_assert_cmphex(vram_r32(&h->c, TILER_TGT + 100 * TILER_PITCH + 200 * 4) &
                    0xffffff, ==, 0x778899);
}

static void tiler_grow_resume(Hws *h)
{
    vram_w32(&h->c, TILER_PB + offsetof(struct copro_scene, pb_size),
             TILER_BIG);
    oom_answer(h, 3, COPRO_HWS_OOM_RESUME);
    /* taken: runnable again (the answers refused before latched ERROR) */
    g_assert_cmphex(rd64(&h->c, COPRO_REG_HWS_OOM_WAITING), ==, 0);
    g_assert_cmpuint(hwq_state(h, 3), !=, COPRO_HWQ_STATE_OOM_WAIT);
    step(h, 2000000);
    g_assert_cmpuint(vram_r64(&h->c, PROG(3)), ==, 30);
    g_assert_cmpuint(hwq_state(h, 3), ==, COPRO_HWQ_STATE_IDLE);
    g_assert_cmphex(rd64(&h->c, COPRO_REG_HWS_OOM_WAITING), ==, 0);
    tiler_pixels_equal(h);
}

/* An answer refused: HWS_ERROR says so, an ERROR entry is logged. */
static void oom_answer_refused(Hws *h, uint32_t val, uint32_t queue)
{
    g_autoptr(GArray) a = NULL;
    uint32_t w = rd32(&h->c, COPRO_REG_HWS_LOG_WPTR);
    struct copro_sched_log_entry *le;

    wr32(&h->c, COPRO_REG_HWS_OOM_ANSWER, val);
    g_assert_cmpuint(rd32(&h->c, COPRO_REG_HWS_ERROR), ==,
                     COPRO_HWS_ERR_OOM_ANSWER);
    g_assert_cmpuint(rd32(&h->c, COPRO_REG_HWS_ERROR_QUEUE), ==, queue);
    g_assert_cmphex(rd64(&h->c, COPRO_REG_HWS_ERROR_ADDR), ==, val);
    a = log_all(h);
    g_assert_cmpuint(a->len, ==, w + 1);
    le = LE(a, w);
    g_assert_cmpuint(le->kind, ==, COPRO_SLOG_ERROR);
    g_assert_cmpuint(le->arg0, ==, COPRO_HWS_ERR_OOM_ANSWER);
}

/*
 * The queue waits (no timeout resets it, the other queues run), refuses
 * bad answers, and resumes after a grow with the pixels of a scene that
 * never stopped.
 */
/* The state x-query-copro gives queue @slot (a copy), or NULL. */
static char *query_queue_state(Hws *h, uint32_t slot)
{
    QDict *rsp, *hs;
    QListEntry *le;
    char *state = NULL;

    hs = qdict_get_qdict(copro_query(&h->c, &rsp), "hwsched");
    QLIST_FOREACH_ENTRY(qdict_get_qlist(hs, "queues"), le) {
        QDict *qi = qobject_to(QDict, qlist_entry_obj(le));

        if (qdict_get_int(qi, "slot") == slot) {
            state = g_strdup(qdict_get_str(qi, "state"));
        }
    }
    qobject_unref(rsp);
    return state;
}

static void test_tiler_oom(void)
{
    Hws h;
    g_autoptr(GArray) a = NULL;
    g_autoptr(GArray) a2 = NULL;
    struct copro_sched_log_entry *le;
    g_autofree char *state = NULL;

    tiler_oom_start(&h);
    a = log_all(&h);
    le = log_find(a, COPRO_SLOG_TILER_OOM, 3, 0);
    g_assert_nonnull(le);
    g_assert_cmphex(le->arg0, ==, TILER_PB);
    g_assert_cmphex(le->arg1, ==, COPRO_PRIM_NEED(8) | (30ull << 32));
    le = log_find(a, COPRO_SLOG_SWITCH_OUT, 3, 0);
    g_assert_nonnull(le);
    g_assert_cmpuint(le->arg1, ==, COPRO_SLOG_OUT_TILER_OOM);
    /* not a preemption */
    g_assert_cmpuint(HWQ_FIELD(&h, 3, preemptions), ==, 0);

    /* bad answers: out of range, not waiting, bad code, high bits */
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(COPRO_HWQ_MAX,
                       COPRO_HWS_OOM_RESUME), COPRO_HWQ_NONE);
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(0xffff,
                       COPRO_HWS_OOM_FAIL), COPRO_HWQ_NONE);
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(4, COPRO_HWS_OOM_RESUME), 4);
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(9, COPRO_HWS_OOM_RESUME), 9);
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(3, 0), 3);
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(3, 3), 3);
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(3, COPRO_HWS_OOM_RESUME) |
                       (1u << 24), 3);
    g_assert_cmpuint(hwq_state(&h, 3), ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpuint(hwq_state(&h, 4), ==, COPRO_HWQ_STATE_IDLE);
    /* x-query-copro names the state as the spec lists it */
    state = query_queue_state(&h, 3);
    g_assert_cmpstr(state, ==, "oom-wait");

    /* a RESUME without a grow: it stops again at the same primitive */
    oom_answer(&h, 3, COPRO_HWS_OOM_RESUME);
    step(&h, 200000);
    g_assert_cmpuint(hwq_state(&h, 3), ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpuint(HWQ_F32(&h, 3, ooms), ==, 2);

    tiler_grow_resume(&h);
    a2 = log_all(&h);
    g_assert_null(log_find(a2, COPRO_SLOG_RESET, 3, 0));
    g_assert_nonnull(log_find(a2, COPRO_SLOG_OOM_ANSWER, 3, 1));
    /* the queue is free for more: an answer now is refused */
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(3, COPRO_HWS_OOM_RESUME), 3);
    hws_done(&h);
}

/*
 * FAIL puts that queue in ERROR (TILER_OOM, the stopped fence), nobody
 * else; a queue without a save area cannot wait and fails at once
 * (QUEUE_OOM, kept from before).
 */
static void test_tiler_oom_fail(void)
{
    Hws h;
    RlEnt ent[4] = {
        { 3, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 4, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 5, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 6, COPRO_BAND_NORMAL, 1000000, 0, 0 },
    };
    g_autoptr(GArray) g = copro_buf_new();

    tiler_oom_start(&h);
    oom_answer(&h, 3, COPRO_HWS_OOM_FAIL);
    g_assert_cmpuint(hwq_state(&h, 3), ==, COPRO_HWQ_STATE_ERROR);
    g_assert_cmpuint(HWQ_F32(&h, 3, error), ==, COPRO_HWS_ERR_TILER_OOM);
    g_assert_cmpuint(HWQ_FIELD(&h, 3, error_fence), ==, 30);
    g_assert_cmpuint(rd32(&h.c, COPRO_REG_HWS_ERROR), ==,
                     COPRO_HWS_ERR_TILER_OOM);
    g_assert_cmphex(rd64(&h.c, COPRO_REG_HWS_OOM_WAITING), ==, 0);
    /* a second answer, to a queue in ERROR, is refused */
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(3, COPRO_HWS_OOM_RESUME), 3);
    g_assert_cmpuint(hwq_state(&h, 3), ==, COPRO_HWQ_STATE_ERROR);
    /* the others run on */
    submit_work(&h, 4, 10000, 41, 1);
    step(&h, 500000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(4)), ==, 41);
    g_assert_cmpuint(vram_r64(&h.c, PROG(3)), ==, 0);

    /* no save area: nowhere to stop, the queue fails at once */
    hwq_put(&h, 6, 0);
    vram_w64(&h.c, DESC(6) + offsetof(struct copro_hwq_desc, save_addr), 0);
    rl_commit(&h, 0, ent, 4);
    tiler_scene(g, TILER_PB, TILER_TGT, tiler_small());
    hwq_submit(&h, 6, g, 60, 0);
    step(&h, 500000);
    g_assert_cmpuint(hwq_state(&h, 6), ==, COPRO_HWQ_STATE_ERROR);
    g_assert_cmpuint(HWQ_F32(&h, 6, error), ==, COPRO_HWS_ERR_QUEUE_FAULT);
    g_assert_cmpuint(erd32(&h.c, 0, COPRO_ENG_TILER_CAUSE), ==,
                     COPRO_TILER_ERR_QUEUE_OOM);
    hws_done(&h);
}

/*
 * A waiting queue taken off its run list keeps its state (its descriptor
 * says OOM_WAIT, resume 1), and an answer to it then is refused (not
 * mapped); listed again it still waits. Migrated while it waits, it
 * waits on the destination, and grows and resumes there with the same
 * pixels.
 */
static void test_tiler_oom_migration(void)
{
    Hws h;
    RlEnt two[2] = {
        { 4, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 5, COPRO_BAND_NORMAL, 1000000, 0, 0 },
    };
    RlEnt three[3] = {
        { 3, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 4, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 5, COPRO_BAND_NORMAL, 1000000, 0, 0 },
    };
    Copro dst;

    tiler_oom_start(&h);
    rl_commit(&h, 0, two, 2);
    settle(&h);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_ACTIVE), ==, 2);
    g_assert_cmpuint(hwq_state(&h, 3), ==, COPRO_HWQ_STATE_OOM_WAIT);
    g_assert_cmpuint(HWQ_F32(&h, 3, resume), ==, 1);
    g_assert_cmphex(rd64(&h.c, COPRO_REG_HWS_OOM_WAITING), ==, 0);
    oom_answer_refused(&h, COPRO_HWS_OOM_ANSWER(3, COPRO_HWS_OOM_RESUME), 3);
    rl_commit(&h, 0, three, 3);
    settle(&h);
    step(&h, 100000);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_ACTIVE), ==, 3);
    g_assert_cmphex(rd64(&h.c, COPRO_REG_HWS_OOM_WAITING), ==, 1ull << 3);
    g_assert_cmpuint(vram_r64(&h.c, PROG(3)), ==, 0);

    copro_migrate_to(&h.c, &dst, "-M q35", "ctx-state-size=0");
    h.c = dst;
    g_assert_cmphex(rd64(&h.c, COPRO_REG_HWS_OOM_WAITING), ==, 1ull << 3);
    step(&h, 100000);
    g_assert_cmpuint(hwq_state(&h, 3), ==, COPRO_HWQ_STATE_OOM_WAIT);
    tiler_grow_resume(&h);
    hws_done(&h);
}

/*
 * Rule 7: a WAIT that is its submission's first packet is switched out at
 * once at every granularity: the submission goes back to the head, not
 * started. Nothing is saved (no PREEMPTED entry, no save time charged,
 * resume stays 0) and the queue is switched in again unresumed once the
 * WAIT is satisfied. Issue 25: with preempt=command and mid-command the
 * device saved the context (30,517 ns) and resumed it.
 */
static void test_wait_first_unstarted(void)
{
    static const char *const gran[] = {
        "preempt=mid-command", "preempt=command", "preempt=dma-buffer",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(gran); i++) {
        g_autofree char *opts = g_strdup_printf("%s,ctx-state-size=256K",
                                                gran[i]);
        RlEnt ent = { 1, COPRO_BAND_NORMAL, 1000000, 0, 0 };
        g_autoptr(GArray) w = copro_buf_new();
        g_autoptr(GArray) log = NULL;
        struct copro_sched_log_entry *out, *in;
        struct copro_hwq_desc d;
        Hws h;

        hws_boot(&h, opts);
        hwq_put(&h, 1, 0);
        vram_w64(&h.c, FLAG, 0);
        rl_commit(&h, 0, &ent, 1);
        copro_pkt_wait(w, FLAG, 1);
        copro_pkt_fence(w, OUT, 0x55, 0);
        hwq_submit(&h, 1, w, 9, 0);
        step(&h, 100000);

        hwq_get(&h, 1, &d);
        g_assert_cmpuint(le32_to_cpu(d.state), ==, COPRO_HWQ_STATE_BLOCKED);
        g_assert_cmpuint(le32_to_cpu(d.resume), ==, 0);
        g_assert_cmpuint(le32_to_cpu(d.head), ==, 0);
        /* no save: only the WAIT's own check was charged */
        g_assert_cmpuint(le64_to_cpu(d.gpu_time_ns), <=, PKT_NS);
        log = log_all(&h);
        g_assert_cmpuint(log_count(log, COPRO_SLOG_BLOCKED, 1), ==, 1);
        g_assert_cmpuint(log_count(log, COPRO_SLOG_PREEMPTED, 1), ==, 0);
        out = log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0);
        g_assert_nonnull(out);
        g_assert_cmpuint(out->arg1, ==, COPRO_SLOG_OUT_BLOCKED);
        g_assert_cmphex(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, COPRO_HWQ_NONE);

        vram_w64(&h.c, FLAG, 1);
        step(&h, 100000);
        g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 9);
        g_assert_cmpuint(vram_r64(&h.c, OUT), ==, 0x55);
        g_array_free(log, true);
        log = log_all(&h);
        in = log_find(log, COPRO_SLOG_SWITCH_IN, 1, 1);
        g_assert_nonnull(in);
        g_assert_cmpuint(in->arg1, ==, 0);      /* not resumed */
        g_assert_cmpuint(log_count(log, COPRO_SLOG_PREEMPTED, 1), ==, 0);
        hws_done(&h);
    }
}

/*
 * Rule 4: a queue alone in its band starts a new quantum, not a new run:
 * SWITCH_OUT's "ns on the engine in this run" (and the timeline's
 * run-ns) counts from the switch-in. Issue 25: with a 10 us quantum and
 * 1 ms of work the log said 100 ns (since the last quantum began).
 */
static void test_lone_run_time(void)
{
    Hws h;
    RlEnt ent = { 1, COPRO_BAND_NORMAL, 10000, 0, 0 };
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *in, *out;

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    rl_commit(&h, 0, &ent, 1);
    submit_work(&h, 1, 1000000, 1, 0);
    step(&h, 2000000);
    g_assert_cmpuint(vram_r64(&h.c, PROG(1)), ==, 1);
    log = log_all(&h);
    g_assert_cmpuint(log_count(log, COPRO_SLOG_SWITCH_IN, 1), ==, 1);
    g_assert_cmpuint(log_count(log, COPRO_SLOG_SWITCH_OUT, 1), ==, 1);
    in = log_find(log, COPRO_SLOG_SWITCH_IN, 1, 0);
    out = log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0);
    g_assert_cmpuint(out->arg1, ==, COPRO_SLOG_OUT_EMPTY);
    g_assert_cmpuint(out->arg0, ==, 1000000 + PKT_NS);
    g_assert_cmpuint(out->time_ns - in->time_ns, ==, 1000000 + PKT_NS);
    hws_done(&h);
}

/*
 * Rule 6: at the end of an IDLE share turn rule 2 applies again, with the
 * queue of the turn as one of its (effective) band. A FOCUS queue over
 * its budget that got the share turn has its band back after the vsync;
 * at the end of the turn it is alone in FOCUS, so it starts a new
 * quantum (rule 4) instead of being switched out (QUANTUM) and straight
 * back in (issue 25: two saves for nothing).
 */
static void test_share_turn_band_back(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_FOCUS, 1000000, 10000000, 0 },
        { 2, COPRO_BAND_NORMAL, 6000000, 0, 0 },
    };
    g_autoptr(GArray) log = NULL;
    struct copro_sched_log_entry *le;
    int64_t t0;

    hws_boot(&h, "");
    hwq_put(&h, 1, 0);
    hwq_put(&h, 2, 0);
    t0 = to_vsync(&h);
    rl_commit(&h, 0, ent, 2);
    submit_work(&h, 1, 30000000, 11, 0);
    submit_work(&h, 2, 30000000, 21, 0);
    copro_clock_to(&h.c, t0 + 18000000);
    log_dump(&h);
    log = log_all(&h);
    /* the run went as built: budget, NORMAL's quantum, the share turn */
    g_assert_nonnull(log_find(log, COPRO_SLOG_BUDGET, 1, 0));
    g_assert_cmpuint(log_find(log, COPRO_SLOG_SWITCH_OUT, 1, 0)->arg1, ==,
                     COPRO_SLOG_OUT_BUDGET);
    le = log_find(log, COPRO_SLOG_SWITCH_OUT, 2, 0);
    g_assert_nonnull(le);
    g_assert_cmpuint(le->arg1, ==, COPRO_SLOG_OUT_SHARE);
    g_assert_cmpint(le->time_ns, <, t0 + (int64_t)PERIOD_NS);
    g_assert_nonnull(log_find(log, COPRO_SLOG_FRAME, 1, 0));
    /* queue 1 went in twice (its start, the share turn) and stays on */
    g_assert_cmpuint(log_count(log, COPRO_SLOG_SWITCH_IN, 1), ==, 2);
    g_assert_cmpuint(log_count(log, COPRO_SLOG_SWITCH_OUT, 1), ==, 1);
    g_assert_cmpuint(log_count(log, COPRO_SLOG_PREEMPTED, 1), ==, 1);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_CURRENT), ==, 1);
    hws_done(&h);
}

/*
 * Commit checks run kind by kind over the whole list, in the table's
 * order (RUNLIST, ENTRY, DUPLICATE, QUEUE_BUSY, DESC): a bad entry 1 is
 * reported before entry 0's bad descriptor (issue 25: the device went
 * entry by entry and reported DESC).
 */
static void test_commit_check_order(void)
{
    Hws h;
    RlEnt ent[] = {
        { 1, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 2, 9, 1000000, 0, 0 },
    };
    RlEnt dup[] = {
        { 1, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 2, COPRO_BAND_NORMAL, 1000000, 0, 0 },
        { 2, COPRO_BAND_NORMAL, 1000000, 0, 0 },
    };
    struct copro_hwq_desc zero = { 0 };

    hws_boot(&h, "");
    vram_write(&h.c, DESC(1), &zero, sizeof(zero));    /* bad magic */
    hwq_put(&h, 2, 0);
    rl_commit(&h, 0, ent, 2);
    expect_refused(&h, 0, COPRO_HWS_ERR_ENTRY, 2);
    g_assert_cmpuint(rd64(&h.c, COPRO_REG_HWS_ERROR_ADDR), ==, 1);
    /* a duplicate (entries 1 and 2) before entry 0's descriptor */
    rl_commit(&h, 0, dup, 3);
    expect_refused(&h, 0, COPRO_HWS_ERR_DUPLICATE, 2);
    g_assert_cmpuint(rd64(&h.c, COPRO_REG_HWS_ERROR_ADDR), ==, 2);
    g_assert_cmpuint(rl_reg(&h, 0, COPRO_RL_ACTIVE), ==, 0);
    hws_done(&h);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/copro/hwsched/basic", test_basic);
    qtest_add_func("/copro/hwsched/completion-irq", test_completion_irq);
    qtest_add_func("/copro/hwsched/round-robin", test_round_robin);
    qtest_add_func("/copro/hwsched/wait-first-unstarted",
                   test_wait_first_unstarted);
    qtest_add_func("/copro/hwsched/lone-run-time", test_lone_run_time);
    qtest_add_func("/copro/hwsched/share-turn-band-back",
                   test_share_turn_band_back);
    qtest_add_func("/copro/hwsched/commit-check-order",
                   test_commit_check_order);
    qtest_add_func("/copro/hwsched/band-preempts", test_band_preempts);
    qtest_add_func("/copro/hwsched/blocked", test_blocked);
    qtest_add_func("/copro/hwsched/blocked-coarse", test_blocked_coarse);
    qtest_add_func("/copro/hwsched/budget", test_budget);
    qtest_add_func("/copro/hwsched/low-share", test_low_share);
    qtest_add_func("/copro/hwsched/timeout", test_timeout);
    qtest_add_func("/copro/hwsched/timeout-budget", test_timeout_budget);
    qtest_add_func("/copro/hwsched/preempt-req", test_preempt_req);
    qtest_add_func("/copro/hwsched/queue-fault", test_queue_fault);
    qtest_add_func("/copro/hwsched/bad-input", test_bad_input);
    qtest_add_func("/copro/hwsched/runlist-switch", test_runlist_switch);
    qtest_add_func("/copro/hwsched/reset", test_reset);
    qtest_add_func("/copro/hwsched/off", test_off);
    qtest_add_func("/copro/hwsched/monitor-timeline", test_monitor_timeline);
    qtest_add_func("/copro/hwsched/migration", test_migration);
    qtest_add_func("/copro/hwsched/tiler-oom", test_tiler_oom);
    qtest_add_func("/copro/hwsched/tiler-oom-fail", test_tiler_oom_fail);
    qtest_add_func("/copro/hwsched/tiler-oom-migration",
                   test_tiler_oom_migration);
    return g_test_run();
}
