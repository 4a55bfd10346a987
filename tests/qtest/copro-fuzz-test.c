/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bad-input suite for copro: seeded random register writes, random packets
 * and descriptors in VRAM, doorbells, preemption requests, injected faults
 * and clock steps. Whatever the guest does, QEMU must neither crash nor
 * stop answering, and the device must still work afterwards. Seeds are
 * fixed so that a failure reproduces; COPRO_FUZZ_SEEDS=N runs more.
 */
#include "qemu/osdep.h"
#include "copro-qtest.h"
#include "copro/copro_hwsched.h"

#define WINDOW      0x40000     /* rings, buffers and targets live here */

/* hardware queues (hwsched=on, the default), inside the window */
#define HWQS        8
#define HWQ_RING(q) (0x20000 + (uint64_t)(q) * 0x400)   /* 16 entries */
#define HWQ_DESC(q) (0x24000 + (uint64_t)(q) * COPRO_HWQ_DESC_SIZE)
#define HWQ_SAVE(q) (0x26000 + (uint64_t)(q) * COPRO_SAVE_SIZE)
#define HWQ_PROG(q) (0x27000 + (uint64_t)(q) * 8)
#define HWQ_LOG     0x28000                             /* 64 entries */
#define HWQ_RL(e)   (0x29000 + (uint64_t)(e) * 0x100)
#define HWQ_BUF(q)  (0x2a000 + (uint64_t)(q) * 0x200)

static const uint64_t hws_regs[] = {
    COPRO_REG_HWS_PREEMPT_TIMEOUT, COPRO_REG_HWS_LOW_SHARE,
    COPRO_REG_HWS_LOG_ADDR, COPRO_REG_HWS_LOG_SIZE, COPRO_REG_HWS_LOG_RPTR,
};

static const uint64_t engine_regs[] = {
    COPRO_ENG_RING_BASE, COPRO_ENG_RING_SIZE, COPRO_ENG_RING_TAIL,
    COPRO_ENG_FENCE_WB, COPRO_ENG_CONTROL, COPRO_ENG_INJECT,
    COPRO_ENG_PREEMPT_REQ, COPRO_ENG_PREEMPT_REQ + 4,
};

static const uint64_t global_regs[] = {
    COPRO_REG_INT_STATUS, COPRO_REG_INT_MASK, COPRO_REG_INT_TEST,
    COPRO_REG_GART_BASE, COPRO_REG_GART_ENTRIES, COPRO_REG_GART_INVAL_FIRST,
    COPRO_REG_GART_INVAL, COPRO_REG_CTX_TABLE_BASE, COPRO_REG_CTX_TABLE_SIZE,
    COPRO_REG_VM_INVAL,
};

/* A value the device is likely to find interesting. */
static uint64_t pick_value(GRand *r)
{
    static const uint64_t specials[] = {
        0, 1, 2, 3, 4, 8, 16, 64, 0x1000, 0x10000, WINDOW - 64,
        COPRO_APERTURE_BASE, COPRO_APERTURE_BASE + 0x1000,
        0xffffffffull, ~0ull, ~0ull - 63,
    };

    switch (g_rand_int_range(r, 0, 4)) {
    case 0:
        return specials[g_rand_int_range(r, 0, G_N_ELEMENTS(specials))];
    case 1:
        return g_rand_int_range(r, 0, WINDOW);
    case 2:
        return g_rand_int(r);
    default:
        return ((uint64_t)g_rand_int(r) << 32) | g_rand_int(r);
    }
}

/*
 * A well-formed packet with random operands at @at, mostly aimed inside
 * the window, so that it reaches execution. Returns its length in bytes.
 */
static uint32_t put_packet(Copro *c, GRand *r, uint64_t at)
{
    uint32_t op = g_rand_int_range(r, 0, COPRO_OP_LAST + 1);
    uint32_t len = copro_packet_len(op) ? copro_packet_len(op) : 1;
    uint32_t flags = g_rand_int_range(r, 0, 4);

    vram_w32(c, at, COPRO_PKT_HDR(op, flags, len));
    for (unsigned i = 1; i < len; i++) {
        /* odd dwords: low halves of addresses/sizes; even: mostly 0 */
        uint32_t lo = g_rand_boolean(r) ? g_rand_int_range(r, 0, WINDOW)
                                        : g_rand_int_range(r, 0, 64) * 4;
        uint32_t hi = g_rand_int_range(r, 0, 16) ? 0 : g_rand_int(r);

        vram_w32(c, at + 4 * i, i & 1 ? lo : hi);
    }
    return len * 4;
}

/*
 * A buffer of well-formed packets in one of the engine's buffer slots and
 * a valid descriptor for it at the ring tail, then the doorbell.
 */
static void submit(Copro *c, GRand *r, unsigned e)
{
    uint64_t buf = 0x10000 + (e * 8 + g_rand_int_range(r, 0, 8)) * 0x200;
    uint32_t len = 0;
    struct copro_submit_desc d;

    for (int n = g_rand_int_range(r, 0, 8); n > 0; n--) {
        len += put_packet(c, r, buf + len);
    }
    d = (struct copro_submit_desc) {
        .dma_addr = buf,
        .dma_len = len,
        .flags = g_rand_int_range(r, 0, 8) ? 0 :
                 g_rand_int_range(r, 0, COPRO_SUBMIT_FLAGS_KNOWN + 1),
        .fence = g_rand_int(r),
        .context = g_rand_int_range(r, 0, 8),
        .save_addr = 0x8000 + e * COPRO_SAVE_SIZE,
    };
    if (!erd32(c, e, COPRO_ENG_RING_SIZE)) {
        copro_ring_setup(c, e, e * 0x1000, 16);
    }
    copro_submit_desc(c, e, &d);
}

static void doorbell(Copro *c, QPCIBar db, uint32_t q, uint32_t tail)
{
    qpci_io_writel(c->dev, db, (uint64_t)q * COPRO_DOORBELL_STRIDE, tail);
}

/* A queue descriptor for slot @q, valid but for a random word at times. */
static void hws_put_desc(Copro *c, GRand *r, uint32_t q)
{
    struct copro_hwq_desc d = {
        .magic = cpu_to_le32(COPRO_HWQ_MAGIC),
        .version = cpu_to_le32(COPRO_HWQ_VERSION),
        .ring_base = cpu_to_le64(HWQ_RING(q)),
        .ring_size = cpu_to_le32(16),
        .context = cpu_to_le32(q),
        .save_addr = cpu_to_le64(HWQ_SAVE(q)),
        .progress_addr = cpu_to_le64(HWQ_PROG(q)),
        .flags = cpu_to_le32(g_rand_int_range(r, 0, 2)),
    };

    vram_write(c, HWQ_DESC(q), &d, sizeof(d));
    if (!g_rand_int_range(r, 0, 4)) {
        vram_w32(c, HWQ_DESC(q) + g_rand_int_range(r, 0, 64) * 4,
                 pick_value(r));
    }
}

/*
 * Hardware scheduling: descriptors, run lists (mostly well-formed, so
 * that queues run), submissions and doorbells, raw doorbells anywhere in
 * BAR1, and the device-wide registers.
 */
static void hws_step(Copro *c, QPCIBar db, GRand *r, unsigned engines)
{
    uint32_t q = g_rand_int_range(r, 0, HWQS);
    unsigned e = g_rand_int_range(r, 0, engines);
    uint32_t n, len = 0, tail;
    uint64_t reg;
    struct copro_submit_desc d;

    switch (g_rand_int_range(r, 0, 6)) {
    case 0:
        hws_put_desc(c, r, q);
        break;
    case 1:
        n = g_rand_int_range(r, 0, 5);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t slot = g_rand_int_range(r, 0, HWQS + 1);
            struct copro_runlist_entry ent = {
                .desc_addr = cpu_to_le64(HWQ_DESC(slot)),
                .queue = cpu_to_le32(slot),
                .band = cpu_to_le32(g_rand_int_range(r, 0, COPRO_BANDS + 1)),
                .quantum_ns = cpu_to_le32(g_rand_int_range(r, 5000,
                                                           2000000)),
                .budget_ns = cpu_to_le32(g_rand_boolean(r) ? 0 :
                                         g_rand_int_range(r, 0, 5000000)),
                .flags = cpu_to_le32(g_rand_int_range(r, 0, 8) ? 0 :
                                     g_rand_int_range(r, 0, 3)),
            };

            vram_write(c, HWQ_RL(e) + i * COPRO_RUNLIST_ENTRY_SIZE, &ent,
                       sizeof(ent));
        }
        wr64(c, COPRO_RL_BASE(e) + COPRO_RL_ADDR,
             g_rand_int_range(r, 0, 16) ? HWQ_RL(e) : pick_value(r));
        wr32(c, COPRO_RL_BASE(e) + COPRO_RL_COUNT, n);
        wr32(c, COPRO_RL_BASE(e) + COPRO_RL_COMMIT, 1);
        break;
    case 2:
        /* the doorbell page reads back the last tail written */
        tail = qpci_io_readl(c->dev, db, (uint64_t)q * COPRO_DOORBELL_STRIDE)
               % 16;
        for (int k = g_rand_int_range(r, 0, 6); k > 0; k--) {
            len += put_packet(c, r, HWQ_BUF(q) + len);
        }
        d = (struct copro_submit_desc) {
            .dma_addr = cpu_to_le64(HWQ_BUF(q)),
            .dma_len = cpu_to_le32(len),
            .fence = cpu_to_le64(g_rand_int(r)),
            .context = cpu_to_le32(g_rand_int_range(r, 0, 16) ? q : 99),
        };
        vram_write(c, HWQ_RING(q) + tail * COPRO_DESC_SIZE, &d, sizeof(d));
        doorbell(c, db, q, (tail + 1) % 16);
        break;
    case 3:
        qpci_io_writel(c->dev, db, g_rand_int_range(r, 0,
                       COPRO_DOORBELL_BAR_SIZE / 4) * 4, pick_value(r));
        break;
    case 4:
        reg = hws_regs[g_rand_int_range(r, 0, G_N_ELEMENTS(hws_regs))];
        if (reg == COPRO_REG_HWS_PREEMPT_TIMEOUT) {
            wr32(c, reg, g_rand_int_range(r, 0, 2000000));
        } else if (reg == COPRO_REG_HWS_LOG_ADDR) {
            wr64(c, reg, pick_value(r));
        } else {
            wr32(c, reg, g_rand_boolean(r) ? g_rand_int_range(r, 0, 1100)
                                           : pick_value(r));
        }
        break;
    default:
        wr64(c, COPRO_REG_HWS_LOG_ADDR, HWQ_LOG);
        wr32(c, COPRO_REG_HWS_LOG_SIZE, 64);
        break;
    }
}

static void fuzz_step(Copro *c, QPCIBar db, GRand *r, unsigned engines)
{
    unsigned e = g_rand_int_range(r, 0, engines);
    uint64_t v = pick_value(r);
    uint64_t at = g_rand_int_range(r, 0, WINDOW / 4) * 4;
    int k = g_rand_int_range(r, 0, 125);

    if (k < 30) {
        uint64_t reg = engine_regs[g_rand_int_range(r, 0,
                                   G_N_ELEMENTS(engine_regs))];

        if (!(reg & 7) && g_rand_boolean(r)) {
            ewr64(c, e, reg, v);
        } else {
            ewr32(c, e, reg, v);
        }
    } else if (k < 38) {
        wr64(c, global_regs[g_rand_int_range(r, 0,
                            G_N_ELEMENTS(global_regs))], v);
    } else if (k < 45) {
        /* a packet header with a plausible opcode and length */
        vram_w32(c, at, COPRO_PKT_HDR(g_rand_int_range(r, 0, 12),
                                      g_rand_int_range(r, 0, 5),
                                      g_rand_int_range(r, 0, 9)));
    } else if (k < 70) {
        submit(c, r, e);
    } else if (k < 75) {
        /* recover, as a driver would */
        uint32_t state = erd32(c, e, COPRO_ENG_STATE);

        if (state == COPRO_ENG_STATE_HALTED) {
            ewr32(c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        } else if (state == COPRO_ENG_STATE_HELD) {
            ewr32(c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_TILER_ACK);
        }
    } else if (k < 85) {
        vram_w32(c, at, v);
    } else if (k < 95) {
        qtest_clock_step(c->qts, g_rand_int_range(r, 1, 2000000));
    } else if (k < 100) {
        /* a random-sized access anywhere in the register file */
        qpci_io_writeb(c->dev, c->mmio, g_rand_int_range(r, 0, 0x2000), v);
    } else {
        hws_step(c, db, r, engines);
    }
}

/*
 * After the storm: a fresh queue on a fresh list still runs to its
 * progress fence on every engine.
 */
static void hws_still_works(Copro *c, QPCIBar db, unsigned engines)
{
    g_autoptr(GArray) b = copro_buf_new();
    uint32_t len;

    wr32(c, COPRO_REG_CTX_TABLE_SIZE, 0);
    copro_pkt_nop(b, 4, 0);
    for (unsigned e = 0; e < engines; e++) {
        uint32_t q = HWQS + e;
        struct copro_hwq_desc d = {
            .magic = cpu_to_le32(COPRO_HWQ_MAGIC),
            .version = cpu_to_le32(COPRO_HWQ_VERSION),
            .ring_base = cpu_to_le64(0x30000 + e * 0x400),
            .ring_size = cpu_to_le32(16),
            .context = cpu_to_le32(q),
            .save_addr = cpu_to_le64(0x31000 + e * COPRO_SAVE_SIZE),
            .progress_addr = cpu_to_le64(0x32000 + e * 8),
        };
        struct copro_runlist_entry ent = {
            .desc_addr = cpu_to_le64(0x33000 + e * COPRO_HWQ_DESC_SIZE),
            .queue = cpu_to_le32(q),
            .band = cpu_to_le32(COPRO_BAND_NORMAL),
            .quantum_ns = cpu_to_le32(100000),
        };
        struct copro_submit_desc sd;

        vram_write(c, 0x33000 + e * COPRO_HWQ_DESC_SIZE, &d, sizeof(d));
        vram_write(c, 0x34000 + e * COPRO_RUNLIST_ENTRY_SIZE, &ent,
                   sizeof(ent));
        len = copro_buf_put(c, 0x35000 + e * 0x100, b);
        sd = copro_desc(0x35000 + e * 0x100, len, 0x77 + e, q, 0);
        copro_desc_put(c, 0x30000 + e * 0x400, &sd);
        vram_w64(c, 0x32000 + e * 8, 0);
        wr64(c, COPRO_RL_BASE(e) + COPRO_RL_ADDR,
             0x34000 + e * COPRO_RUNLIST_ENTRY_SIZE);
        wr32(c, COPRO_RL_BASE(e) + COPRO_RL_COUNT, 1);
        wr32(c, COPRO_RL_BASE(e) + COPRO_RL_COMMIT, 1);
        g_assert_cmpuint(COPRO_RL_STS_ERROR(rd32(c, COPRO_RL_BASE(e) +
                                                 COPRO_RL_STATUS)), ==, 0);
        doorbell(c, db, q, 1);
    }
    qtest_clock_step(c->qts, 1000000);
    for (unsigned e = 0; e < engines; e++) {
        g_assert_cmpuint(vram_r64(c, 0x32000 + e * 8), ==, 0x77 + e);
    }
}

static void fuzz_one(const char *opts, unsigned engines, uint32_t seed,
                     unsigned steps)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(seed);
    uint64_t packets = 0, faults = 0, submissions = 0;
    Copro c;

    QPCIBar db;

    copro_boot(&c, "-M q35", opts);
    db = qpci_iomap(c.dev, COPRO_BAR_DOORBELL, NULL);
    for (unsigned i = 0; i < steps; i++) {
        fuzz_step(&c, db, r, engines);
    }
    /* still answering, and every engine recovers with a reset */
    g_assert_cmphex(rd32(&c, COPRO_REG_ID), ==, COPRO_ID_MAGIC);
    for (unsigned e = 0; e < engines; e++) {
        packets += erd64(&c, e, COPRO_ENG_STAT_PACKETS);
        faults += erd64(&c, e, COPRO_ENG_STAT_FAULTS);
        submissions += erd64(&c, e, COPRO_ENG_STAT_SUBMISSIONS);
        ewr32(&c, e, COPRO_ENG_INJECT, 0);
        ewr32(&c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        g_assert_cmpuint(erd32(&c, e, COPRO_ENG_STATE), !=,
                         COPRO_ENG_STATE_HALTED);
        /* the reset took the engine's run list */
        g_assert_cmpuint(rd32(&c, COPRO_RL_BASE(e) + COPRO_RL_ACTIVE), ==, 0);
    }
    g_test_message("seed %u: %" PRIu64 " doorbells, %" PRIu64 " queue "
                   "switches", seed, rd64(&c, COPRO_REG_HWS_DOORBELLS),
                   rd64(&c, COPRO_REG_HWS_SWITCHES));
    hws_still_works(&c, db, engines);
    g_test_message("seed %u: %u steps, %" PRIu64 " submissions, %" PRIu64
                   " packets, %" PRIu64 " faults", seed, steps, submissions,
                   packets, faults);
    copro_shutdown(&c);
}

static void test_fuzz(const void *data)
{
    const char *opts = data;
    const char *env = g_getenv("COPRO_FUZZ_SEEDS");
    unsigned seeds = env ? atoi(env) : 4;
    unsigned engines = strstr(opts, "engines=3") ? 3 : 2;

    for (unsigned s = 1; s <= seeds; s++) {
        fuzz_one(opts, engines, s, 3000);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (!qtest_has_device("copro")) {
        g_test_skip("copro device not built");
        return g_test_run();
    }
    qtest_add_data_func("/copro/fuzz/modelled",
                        "x-fault-injection=on,engines=3", test_fuzz);
    qtest_add_data_func("/copro/fuzz/instant",
                        "x-fault-injection=on,timing=instant,"
                        "preempt=command", test_fuzz);
    return g_test_run();
}
