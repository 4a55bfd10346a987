/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for the copro device: PCI identity, BARs, register file, bad
 * accesses, interrupts (INTx, MSI-X), reset and the monitor commands.
 */
#include "qemu/osdep.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"
#include "copro-qtest.h"
#include "copro/copro_tiler.h"

static const char *const machines[] = { "-M pc", "-M q35" };

static void test_identity(const void *data)
{
    const char *machine = data;
    Copro c;
    uint8_t cap;
    bool express = strstr(machine, "q35") != NULL;

    copro_boot(&c, machine, "");
    g_assert_cmphex(qpci_config_readw(c.dev, PCI_VENDOR_ID), ==,
                    COPRO_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(c.dev, PCI_DEVICE_ID), ==,
                    COPRO_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(c.dev, PCI_CLASS_DEVICE), ==,
                    COPRO_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(c.dev, PCI_REVISION_ID), ==,
                    COPRO_PCI_REVISION);
    g_assert_cmphex(qpci_config_readb(c.dev, PCI_INTERRUPT_PIN), ==, 1);
    g_assert_cmpuint(c.mmio_size, ==, COPRO_MMIO_SIZE);
    g_assert_cmpuint(c.vram_size, ==, COPRO_VRAM_DEFAULT);
    /* BAR2 is 64-bit prefetchable memory */
    g_assert_cmphex(qpci_config_readl(c.dev, PCI_BASE_ADDRESS_2) &
                    (PCI_BASE_ADDRESS_MEM_TYPE_MASK |
                     PCI_BASE_ADDRESS_MEM_PREFETCH), ==,
                    PCI_BASE_ADDRESS_MEM_TYPE_64 |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    g_assert_cmpuint(qpci_find_capability(c.dev, PCI_CAP_ID_MSIX, 0), !=, 0);
    g_assert_cmpuint(qpci_find_capability(c.dev, PCI_CAP_ID_MSI, 0), !=, 0);
    cap = qpci_find_capability(c.dev, PCI_CAP_ID_EXP, 0);
    if (express) {
        g_assert_cmpuint(cap, !=, 0);
    } else {
        g_assert_cmpuint(cap, ==, 0);
    }
    copro_shutdown(&c);
}

static void test_vram_property(void)
{
    Copro c;

    copro_boot(&c, "-M pc", "vram=128M,engines=3");
    g_assert_cmpuint(c.vram_size, ==, 128 * 1024 * 1024);
    g_assert_cmphex(rd64(&c, COPRO_REG_VRAM_SIZE), ==, 128 * 1024 * 1024);
    g_assert_cmpuint(rd32(&c, COPRO_REG_NUM_ENGINES), ==, 3);
    g_assert_cmpuint(rd32(&c, COPRO_REG_MSIX_VECTORS), ==, 4);
    copro_shutdown(&c);
}

/* Values the device must show after power-on and after reset. */
static void check_reset_values(Copro *c)
{
    g_assert_cmphex(rd32(c, COPRO_REG_ID), ==, COPRO_ID_MAGIC);
    g_assert_cmphex(rd32(c, COPRO_REG_VERSION), ==, COPRO_VERSION);
    g_assert_cmphex(rd32(c, COPRO_REG_CAPS), ==,
                    COPRO_CAP_CMD_PROCESSOR | COPRO_CAP_GART |
                    COPRO_CAP_GPUVA | COPRO_CAP_PREEMPTION |
                    COPRO_CAP_MSIX | COPRO_CAP_DISPLAY |
                    COPRO_CAP_MARKERS | COPRO_CAP_HWSCHED |
                    COPRO_CAP_TILER);
    g_assert_cmpuint(rd32(c, COPRO_REG_NUM_ENGINES), ==, 2);
    g_assert_cmphex(rd64(c, COPRO_REG_VRAM_SIZE), ==, COPRO_VRAM_DEFAULT);
    g_assert_cmphex(rd32(c, COPRO_REG_VRAM_SIZE), ==, COPRO_VRAM_DEFAULT);
    g_assert_cmphex(rd32(c, COPRO_REG_VRAM_SIZE + 4), ==, 0);
    g_assert_cmphex(rd64(c, COPRO_REG_APERTURE_SIZE), ==,
                    COPRO_APERTURE_DEFAULT);
    g_assert_cmphex(rd64(c, COPRO_REG_APERTURE_BASE), ==, COPRO_APERTURE_BASE);
    g_assert_cmphex(rd32(c, COPRO_REG_PREEMPT_CAPS), ==,
                    COPRO_PREEMPT_MID_COMMAND);
    g_assert_cmpuint(rd32(c, COPRO_REG_MSIX_VECTORS), ==, 3);
    g_assert_cmphex(rd32(c, COPRO_REG_SCRATCH), ==, 0);
    g_assert_cmphex(rd64(c, COPRO_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd64(c, COPRO_REG_INT_MASK), ==, 0);
    g_assert_cmphex(rd32(c, COPRO_REG_INT_TEST_DATA), ==, 0);
    for (unsigned e = 0; e < 2; e++) {
        g_assert_cmphex(erd64(c, e, COPRO_ENG_RING_BASE), ==, 0);
        g_assert_cmpuint(erd32(c, e, COPRO_ENG_RING_SIZE), ==, 0);
        g_assert_cmpuint(erd32(c, e, COPRO_ENG_RING_HEAD), ==, 0);
        g_assert_cmpuint(erd32(c, e, COPRO_ENG_RING_TAIL), ==, 0);
        g_assert_cmpuint(erd32(c, e, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_IDLE);
        g_assert_cmphex(erd64(c, e, COPRO_ENG_COMPLETED_FENCE), ==, 0);
        g_assert_cmpuint(erd32(c, e, COPRO_ENG_FAULT_KIND), ==,
                         COPRO_FAULT_NONE);
        g_assert_cmphex(erd64(c, e, COPRO_ENG_STAT_SUBMISSIONS), ==, 0);
    }
}

static void test_reset_values(void)
{
    Copro c;

    copro_boot(&c, "-M q35", "");
    check_reset_values(&c);
    copro_shutdown(&c);
}

/*
 * CTX_SWITCH_NS: the save (or restore) time of a context at a
 * preemption, ctx-state-size at copy-bw, which a scheduler weighs a
 * preemption against; 0 when nothing is modelled.
 */
static void test_ctx_switch_ns(void)
{
    static const struct {
        const char *opts;
        uint64_t ns;
    } cases[] = {
        { "", 262144ULL * 1000000000ULL / (8ULL << 30) },
        { "ctx-state-size=16M,copy-bw=1073741824", 15625000 },
        { "ctx-state-size=0", 0 },
        { "timing=instant", 0 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        Copro c;

        copro_boot(&c, "-M q35", cases[i].opts);
        g_assert_cmpuint(rd64(&c, COPRO_REG_CTX_SWITCH_NS), ==, cases[i].ns);
        /* read-only */
        wr64(&c, COPRO_REG_CTX_SWITCH_NS, 1);
        g_assert_cmpuint(rd64(&c, COPRO_REG_CTX_SWITCH_NS), ==, cases[i].ns);
        copro_shutdown(&c);
    }
}

static void test_read_write(void)
{
    Copro c;
    int64_t t0, t1;

    copro_boot(&c, "-M pc", "");
    wr32(&c, COPRO_REG_SCRATCH, 0xdeadbeef);
    g_assert_cmphex(rd32(&c, COPRO_REG_SCRATCH), ==, 0xdeadbeef);
    wr32(&c, COPRO_REG_SCRATCH, 0x12345678);
    g_assert_cmphex(rd32(&c, COPRO_REG_SCRATCH), ==, 0x12345678);

    /* a 64-bit register as one access and as two halves */
    wr64(&c, COPRO_REG_INT_MASK, 0x0000000300000001ULL);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_MASK), ==, 0x0000000300000001ULL);
    wr32(&c, COPRO_REG_INT_MASK + 4, 0x1);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_MASK), ==, 0x0000000100000001ULL);
    g_assert_cmphex(rd32(&c, COPRO_REG_INT_MASK + 4), ==, 0x1);
    wr32(&c, COPRO_REG_INT_MASK, 0x0);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_MASK), ==, 0x0000000100000000ULL);

    /* read-only registers ignore writes */
    wr32(&c, COPRO_REG_ID, 0);
    wr64(&c, COPRO_REG_VRAM_SIZE, 1);
    ewr32(&c, 0, COPRO_ENG_RING_HEAD, 5);
    g_assert_cmphex(rd32(&c, COPRO_REG_ID), ==, COPRO_ID_MAGIC);
    g_assert_cmphex(rd64(&c, COPRO_REG_VRAM_SIZE), ==, COPRO_VRAM_DEFAULT);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_HEAD), ==, 0);

    /* the device clock is QEMU's virtual clock */
    t0 = rd64(&c, COPRO_REG_GPU_TIME);
    qtest_clock_step(c.qts, 12345);
    t1 = rd64(&c, COPRO_REG_GPU_TIME);
    g_assert_cmpint(t1 - t0, ==, 12345);

    /* VRAM through BAR2: first and last word, pattern in between */
    vram_w32(&c, 0, 0xcafef00d);
    vram_w32(&c, c.vram_size - 4, 0x0badf00d);
    vram_w64(&c, c.vram_size / 2, 0x0123456789abcdefULL);
    g_assert_cmphex(vram_r32(&c, 0), ==, 0xcafef00d);
    g_assert_cmphex(vram_r32(&c, c.vram_size - 4), ==, 0x0badf00d);
    g_assert_cmphex(vram_r64(&c, c.vram_size / 2), ==,
                    0x0123456789abcdefULL);
    copro_shutdown(&c);
}

/*
 * Accesses of the wrong size, misaligned, to unknown offsets or to absent
 * engines are logged and ignored; reads return 0 and nothing changes.
 */
static void test_bad_access(void)
{
    Copro c;

    copro_boot(&c, "-M pc", "");
    wr32(&c, COPRO_REG_SCRATCH, 0x11223344);

    g_assert_cmphex(qpci_io_readb(c.dev, c.mmio, COPRO_REG_ID), ==, 0);
    g_assert_cmphex(qpci_io_readw(c.dev, c.mmio, COPRO_REG_ID), ==, 0);
    g_assert_cmphex(rd32(&c, COPRO_REG_ID + 2), ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_SCRATCH), ==, 0);  /* 32-bit reg */
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_MASK + 4), ==, 0);
    g_assert_cmphex(rd32(&c, 0x0200), ==, 0);               /* unknown */
    g_assert_cmphex(rd32(&c, COPRO_MMIO_SIZE - 4), ==, 0);
    g_assert_cmphex(erd32(&c, 2, COPRO_ENG_STATE), ==, 0); /* no engine 2 */
    g_assert_cmphex(erd32(&c, 0, 0xfc), ==, 0);

    qpci_io_writeb(c.dev, c.mmio, COPRO_REG_SCRATCH, 0xff);
    qpci_io_writew(c.dev, c.mmio, COPRO_REG_SCRATCH, 0xffff);
    wr64(&c, COPRO_REG_SCRATCH, ~0ULL);
    wr32(&c, COPRO_REG_SCRATCH + 1, 0);
    wr32(&c, 0x0200, 0xffffffff);
    ewr32(&c, 3, COPRO_ENG_RING_TAIL, 1);
    wr64(&c, COPRO_REG_INT_MASK + 4, ~0ULL);
    g_assert_cmphex(rd32(&c, COPRO_REG_SCRATCH), ==, 0x11223344);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_MASK), ==, 0);

    /* bad ring programming is refused */
    ewr32(&c, 0, COPRO_ENG_RING_SIZE, 3);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_SIZE), ==, 0);
    ewr32(&c, 0, COPRO_ENG_RING_SIZE, COPRO_RING_MAX_ENTRIES * 2);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_SIZE), ==, 0);
    ewr32(&c, 0, COPRO_ENG_RING_TAIL, 1);     /* no ring: ignored */
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==, 0);
    ewr32(&c, 0, COPRO_ENG_RING_SIZE, 16);
    ewr32(&c, 0, COPRO_ENG_RING_TAIL, 16);    /* outside the ring */
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_RING_TAIL), ==, 0);

    /* still alive and well */
    g_assert_cmphex(rd32(&c, COPRO_REG_ID), ==, COPRO_ID_MAGIC);
    copro_shutdown(&c);
}

/* INTx follows status & mask; the PCI status bit shows the line level. */
static void test_intx(void)
{
    Copro c;
    const int gsi = 10;

    copro_boot(&c, "-M pc", "msix=off,msi=off");
    /* route all PIIX3 PIRQs to IRQ 10 (the firmware's job) */
    qtest_outl(c.qts, 0xcf8, 0x80000000 | (1 << 11) | 0x60);
    qtest_outl(c.qts, 0xcfc, 0x0a0a0a0a);

    g_assert_false(copro_intx_status(&c));
    wr32(&c, COPRO_REG_INT_TEST, 0x5a5a);
    /* raised but masked: pending, line low */
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, COPRO_INT_DEV_TEST);
    g_assert_cmphex(rd32(&c, COPRO_REG_INT_TEST_DATA), ==, 0x5a5a);
    g_assert_false(copro_intx_status(&c));
    g_assert_false(qtest_get_irq(c.qts, gsi));

    /* unmasking a pending cause raises the line */
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_TEST);
    g_assert_true(copro_intx_status(&c));
    g_assert_true(qtest_get_irq(c.qts, gsi));

    /* writing 0 bits does not acknowledge */
    wr64(&c, COPRO_REG_INT_STATUS, 0);
    g_assert_true(qtest_get_irq(c.qts, gsi));
    /* write 1 to clear */
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_DEV_TEST);
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, 0);
    g_assert_false(copro_intx_status(&c));
    g_assert_false(qtest_get_irq(c.qts, gsi));

    /* raise again, acknowledge through the upper half */
    wr32(&c, COPRO_REG_INT_TEST, 1);
    g_assert_true(qtest_get_irq(c.qts, gsi));
    wr32(&c, COPRO_REG_INT_STATUS + 4, COPRO_INT_DEV_TEST >> 32);
    g_assert_false(qtest_get_irq(c.qts, gsi));

    /* masking lowers the line but keeps the cause pending */
    wr32(&c, COPRO_REG_INT_TEST, 2);
    g_assert_true(qtest_get_irq(c.qts, gsi));
    wr64(&c, COPRO_REG_INT_MASK, 0);
    g_assert_false(qtest_get_irq(c.qts, gsi));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, COPRO_INT_DEV_TEST);
    copro_shutdown(&c);
}

/* The test interrupt arrives on the device-event vector, not elsewhere. */
static void test_msix(const void *data)
{
    const char *machine = data;
    Copro c;
    uint64_t msg;
    unsigned dev_vec = COPRO_MSIX_VEC_DEVICE(2);

    copro_boot(&c, machine, "");
    msg = guest_alloc(&c.qs->alloc, 64);
    qtest_memset(c.qts, msg, 0, 64);
    qpci_msix_enable(c.dev);
    g_assert_cmpuint(qpci_msix_table_size(c.dev), ==, 3);
    for (unsigned v = 0; v < 3; v++) {
        copro_msix_route(&c, v, msg + 4 * v, 0x100 + v);
    }

    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_TEST);
    wr32(&c, COPRO_REG_INT_TEST, 0x77);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);
    g_assert_cmphex(qtest_readl(c.qts, msg + 0), ==, 0);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4), ==, 0);
    /* INTx stays low while MSI-X is on */
    g_assert_false(copro_intx_status(&c));
    g_assert_cmphex(rd64(&c, COPRO_REG_INT_STATUS), ==, COPRO_INT_DEV_TEST);
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_DEV_TEST);

    /* each new event sends a new message */
    qtest_writel(c.qts, msg + 4 * dev_vec, 0);
    wr32(&c, COPRO_REG_INT_TEST, 0x78);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);

    /* a masked cause sends nothing until it is enabled */
    wr64(&c, COPRO_REG_INT_STATUS, COPRO_INT_DEV_TEST);
    wr64(&c, COPRO_REG_INT_MASK, 0);
    qtest_writel(c.qts, msg + 4 * dev_vec, 0);
    wr32(&c, COPRO_REG_INT_TEST, 0x79);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==, 0);
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_TEST);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==,
                    0x100 + dev_vec);

    /* a masked MSI-X vector keeps the message pending */
    qtest_writel(c.qts, msg + 4 * dev_vec, 0);
    qpci_io_writel(c.dev, c.dev->msix_table_bar,
                   c.dev->msix_table_off + dev_vec * PCI_MSIX_ENTRY_SIZE +
                   PCI_MSIX_ENTRY_VECTOR_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT);
    wr32(&c, COPRO_REG_INT_TEST, 0x7a);
    g_assert_cmphex(qtest_readl(c.qts, msg + 4 * dev_vec), ==, 0);
    g_assert_true(qpci_msix_pending(c.dev, dev_vec));
    qpci_msix_disable(c.dev);
    copro_shutdown(&c);
}

static void test_reset(void)
{
    Copro c;

    copro_boot(&c, "-M q35", "");
    wr32(&c, COPRO_REG_SCRATCH, 0x1234);
    wr64(&c, COPRO_REG_INT_MASK, ~0ULL);
    wr32(&c, COPRO_REG_INT_TEST, 0x99);
    ewr32(&c, 1, COPRO_ENG_RING_SIZE, 64);
    ewr64(&c, 1, COPRO_ENG_RING_BASE, 0x10000);
    vram_w32(&c, 0x100, 0xfeedface);
    qtest_system_reset(c.qts);
    /* the reset also cleared the BARs: map again */
    c.mmio = qpci_iomap(c.dev, COPRO_BAR_MMIO, NULL);
    c.vram = qpci_iomap(c.dev, COPRO_BAR_VRAM, NULL);
    qpci_device_enable(c.dev);
    check_reset_values(&c);
    /* VRAM keeps its contents across reset */
    g_assert_cmphex(vram_r32(&c, 0x100), ==, 0xfeedface);
    copro_shutdown(&c);
}

static void test_monitor(void)
{
    Copro c;
    g_autofree char *text = NULL;
    QDict *rsp;
    QList *devs, *engines;
    QDict *dev;

    copro_boot(&c, "-M q35", "");
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_DEV_TEST);
    text = qtest_hmp(c.qts, "info copro");
    g_assert_nonnull(strstr(text, "engine 0: idle"));
    g_assert_nonnull(strstr(text, "engine 1: idle"));
    g_assert_nonnull(strstr(text, "mask 0x100000000"));

    rsp = qtest_qmp(c.qts, "{'execute': 'x-query-copro'}");
    devs = qdict_get_qlist(rsp, "return");
    g_assert_nonnull(devs);
    g_assert_cmpuint(qlist_size(devs), ==, 1);
    dev = qobject_to(QDict, qlist_peek(devs));
    g_assert_cmpuint(qdict_get_int(dev, "vram-size"), ==,
                     COPRO_VRAM_DEFAULT);
    g_assert_cmphex(qdict_get_int(dev, "int-mask"), ==, COPRO_INT_DEV_TEST);
    engines = qdict_get_qlist(dev, "engines");
    g_assert_cmpuint(qlist_size(engines), ==, 2);
    g_assert_cmpstr(qdict_get_str(qobject_to(QDict, qlist_peek(engines)),
                                  "state"), ==, "idle");
    qobject_unref(rsp);
    copro_shutdown(&c);
}

/*
 * Out-of-range cost-model properties are refused when the device is
 * created (device_add realizes it, so the error comes back over QMP):
 * an unbounded packet-ns could wrap the 64-bit engine clock. The limits
 * themselves are accepted.
 */
static void test_bad_cost_properties(void)
{
    static const struct {
        const char *prop;
        uint64_t val;
        const char *why;
    } bad[] = {
        { "packet-ns", 1000000001ULL, "packet-ns=1000000001 is above" },
        { "packet-ns", UINT64_MAX, "above the limit" },
        { "arbitration-ns", 999, "arbitration-ns=999 is out of range" },
        { "arbitration-ns", 10000001, "out of range" },
        { "ctx-state-size", (1ULL << 32) + 1, "ctx-state-size=" },
    };
    QTestState *qts = qtest_init("-M pc -nodefaults");
    QDict *rsp;

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments':"
                        " {'driver': 'copro', 'id': 'bad', %s: %" PRIu64
                        "}}", bad[i].prop, bad[i].val);
        g_assert_true(qdict_haskey(rsp, "error"));
        g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"),
                                              "desc"), bad[i].why));
        qobject_unref(rsp);
    }
    rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments':"
                    " {'driver': 'copro', 'id': 'good',"
                    " 'packet-ns': 1000000000, 'arbitration-ns': 1000,"
                    " 'ctx-state-size': %" PRIu64 "}}", (uint64_t)1 << 32);
    g_assert_true(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

/*
 * A management stack retries device_add at the address where it failed,
 * and re-adds a device where one was just unplugged: a refused property
 * (here the timeline's capacity, checked after the VRAM exists) must
 * leave nothing behind, and neither must an unplug. Each used to leave
 * the VRAM block registered under the address's name, and the next
 * device_add there aborted QEMU ("RAMBlock ... already registered").
 */
static void test_readd_same_address(void)
{
    QTestState *qts = qtest_init("-M pc -nodefaults");
    g_autofree char *addr = g_strdup_printf("%x.0", COPRO_SLOT);
    QDict *rsp;

    for (unsigned i = 0; i < 5; i++) {
        rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments':"
                        " {'driver': 'copro', 'id': 'bad', 'addr': %s,"
                        " 'timeline': 4194305}}", addr);
        g_assert_true(qdict_haskey(rsp, "error"));
        g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"),
                                              "desc"), "timeline"));
        qobject_unref(rsp);
        rsp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments':"
                        " {'driver': 'copro', 'id': 'c1', 'addr': %s}}",
                        addr);
        g_assert_true(qdict_haskey(rsp, "return"));
        qobject_unref(rsp);
        qpci_unplug_acpi_device_test(qts, "c1", COPRO_SLOT);
    }
    qtest_qmp_assert_success(qts, "{ 'execute': 'query-status' }");
    qtest_quit(qts);
}

static void test_monitor_no_device(void)
{
    QTestState *qts = qtest_init("-M none");
    g_autofree char *text = qtest_hmp(qts, "info copro");
    QDict *rsp;

    g_assert_nonnull(strstr(text, "no copro device"));
    rsp = qtest_qmp(qts, "{'execute': 'x-query-copro'}");
    g_assert_true(qdict_haskey(rsp, "return"));
    g_assert_cmpuint(qlist_size(qdict_get_qlist(rsp, "return")), ==, 0);
    qobject_unref(rsp);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (!qtest_has_device("copro")) {
        g_test_skip("copro device not built");
        return g_test_run();
    }
    for (size_t i = 0; i < G_N_ELEMENTS(machines); i++) {
        const char *m = machines[i];
        g_autofree char *id = g_strdup_printf("/copro/identity/%s", m + 3);
        g_autofree char *msix = g_strdup_printf("/copro/irq/msix/%s", m + 3);

        qtest_add_data_func(id, m, test_identity);
        qtest_add_data_func(msix, m, test_msix);
    }
    qtest_add_func("/copro/vram-property", test_vram_property);
    qtest_add_func("/copro/bad-cost-properties", test_bad_cost_properties);
    qtest_add_func("/copro/readd-same-address", test_readd_same_address);
    qtest_add_func("/copro/regs/reset-values", test_reset_values);
    qtest_add_func("/copro/regs/read-write", test_read_write);
    qtest_add_func("/copro/regs/ctx-switch-ns", test_ctx_switch_ns);
    qtest_add_func("/copro/regs/bad-access", test_bad_access);
    qtest_add_func("/copro/irq/intx", test_intx);
    qtest_add_func("/copro/reset", test_reset);
    qtest_add_func("/copro/monitor/info", test_monitor);
    qtest_add_func("/copro/monitor/no-device", test_monitor_no_device);
    return g_test_run();
}
