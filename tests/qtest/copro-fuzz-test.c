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

#define WINDOW      0x40000     /* rings, buffers and targets live here */

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

static void fuzz_step(Copro *c, GRand *r, unsigned engines)
{
    unsigned e = g_rand_int_range(r, 0, engines);
    uint64_t v = pick_value(r);
    uint64_t at = g_rand_int_range(r, 0, WINDOW / 4) * 4;
    int k = g_rand_int_range(r, 0, 100);

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
        if (erd32(c, e, COPRO_ENG_STATE) == COPRO_ENG_STATE_HALTED) {
            ewr32(c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        }
    } else if (k < 85) {
        vram_w32(c, at, v);
    } else if (k < 95) {
        qtest_clock_step(c->qts, g_rand_int_range(r, 1, 2000000));
    } else {
        /* a random-sized access anywhere in the register file */
        qpci_io_writeb(c->dev, c->mmio, g_rand_int_range(r, 0, 0x2000), v);
    }
}

static void fuzz_one(const char *opts, unsigned engines, uint32_t seed,
                     unsigned steps)
{
    g_autoptr(GRand) r = g_rand_new_with_seed(seed);
    uint64_t packets = 0, faults = 0, submissions = 0;
    Copro c;

    copro_boot(&c, "-M q35", opts);
    for (unsigned i = 0; i < steps; i++) {
        fuzz_step(&c, r, engines);
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
    }
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
