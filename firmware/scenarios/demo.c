/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demo: the walking skeleton. Finds the copro device, prints what it is,
 * checks the register file, VRAM through BAR2 and the interrupt path, then
 * prints one METRICS line and the SUMMARY.
 *
 * Command line (QEMU -append): irq=auto|msix|msi|intx (default auto: MSI-X
 * if the device offers it, else INTx through the IOAPIC).
 */
#include <stdint.h>

#include <copro/copro_regs.h>

#include "kmd/copro.h"

#include <stddef.h>
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/exit.h"
#include "lib/idt.h"
#include "lib/ioapic.h"
#include "lib/report.h"
#include "lib/scenario.h"
#include "lib/wait.h"

#define MIB                     ((uint64_t)1 << 20)
#define PAGE                    ((uint64_t)4096)
#define VRAM_MIDDLE_PAGES       8

#define COPRO_VECTOR_BASE       IRQ_VEC_DEVICE_BASE
#define IRQ_TIMEOUT_NS          100000000ull    /* 100 ms of guest time */
#define IRQ_QUIET_NS            1000000ull      /* "no more interrupts" */

/* What the metrics line reports, filled as checks run. */
struct demo_metrics {
    bool found;
    const char *irq_mode;
    uint64_t vram_bytes_checked;
    uint64_t irq_latency_ns;
    uint32_t irq_count;
};

/* A value that differs between nearby bytes and between regions, so a
 * stuck bit, a wrong width or two regions aliasing each other all show. */
static uint8_t vram_pattern(uint64_t off)
{
    return (uint8_t)(off ^ (off >> 8) ^ (off >> 16) ^ (off >> 24) ^ 0x5a);
}

static void report_identity(struct report *r, struct copro *c)
{
    const struct copro_info *i = &c->info;
    char caps[128];
    const char *why;

    copro_read_info(c);
    copro_caps_format(i->caps, caps, sizeof(caps));

    report_info("copro: id %#x version %u.%u caps %#x (%s)", i->id,
                i->version >> 16, i->version & 0xffff, i->caps, caps);
    report_info("copro: %u engines, vram %lu MiB, aperture %lu MiB at %#lx, "
                "preemption %s, %u MSI-X vectors", i->num_engines,
                i->vram_size / MIB, i->aperture_size / MIB,
                i->aperture_base, copro_preempt_name(i->preempt_caps),
                i->msix_vectors);

    report(r, i->id == COPRO_ID_MAGIC, "ID register is %#x (expected %#x)",
           i->id, COPRO_ID_MAGIC);
    report(r, copro_version_compatible(i->version),
           "version %u.%u is compatible with driver %u.%u", i->version >> 16,
           i->version & 0xffff, COPRO_VERSION_MAJOR, COPRO_VERSION_MINOR);
    report(r, i->num_engines >= 1 && i->num_engines <= COPRO_MAX_ENGINES,
           "engine count %u within 1..%u", i->num_engines, COPRO_MAX_ENGINES);
    report(r, i->vram_size == c->vram_bar.size,
           "VRAM_SIZE %lu MiB equals BAR2 size %lu MiB", i->vram_size / MIB,
           c->vram_bar.size / MIB);
    why = copro_info_validate(i);
    report(r, why == NULL, "identity registers consistent%s%s",
           why ? ": " : "", why ? why : "");
}

static void check_scratch(struct report *r, struct copro *c)
{
    static const uint32_t values[] = { 0xa5a55a5a, 0x5a5aa5a5, 0, ~0u };
    bool ok = true;
    uint32_t bad = 0, got = 0;

    for (unsigned k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
        copro_write32(c, COPRO_REG_SCRATCH, values[k]);
        got = copro_read32(c, COPRO_REG_SCRATCH);
        if (got != values[k]) {
            ok = false;
            bad = values[k];
            break;
        }
    }
    if (ok) {
        report(r, true, "SCRATCH register reads back 4 patterns");
    } else {
        report(r, false, "SCRATCH register: wrote %#x, read %#x", bad, got);
    }
}

/* [off, off + len) regions of VRAM that the pattern test covers: the
 * first and last MiB and VRAM_MIDDLE_PAGES pages spread in between. */
static unsigned vram_regions(uint64_t size, uint64_t off[], uint64_t len[])
{
    unsigned n = 0;

    off[n] = 0;
    len[n++] = MIB;
    for (unsigned k = 1; k <= VRAM_MIDDLE_PAGES; k++) {
        off[n] = (size / (VRAM_MIDDLE_PAGES + 1) * k) & ~(PAGE - 1);
        len[n++] = PAGE;
    }
    off[n] = size - MIB;
    len[n++] = MIB;
    return n;
}

static void check_vram(struct report *r, struct copro *c,
                       struct demo_metrics *m)
{
    uint64_t size = c->info.vram_size;
    uint64_t off[VRAM_MIDDLE_PAGES + 2], len[VRAM_MIDDLE_PAGES + 2];
    uint64_t errors = 0, first_bad = 0, checked = 0;
    uint8_t want = 0, got = 0;
    unsigned n;

    if (size < 2 * MIB || size > c->vram_bar.size) {
        report(r, false, "VRAM pattern: VRAM_SIZE %#lx unusable with BAR2 "
               "size %#lx", size, c->vram_bar.size);
        return;
    }
    n = vram_regions(size, off, len);

    /* Write everything first, then verify: a write that lands in another
     * region (address aliasing) shows up as a mismatch there. */
    for (unsigned k = 0; k < n; k++) {
        for (uint64_t o = off[k]; o < off[k] + len[k]; o++) {
            c->vram[o] = vram_pattern(o);
        }
    }
    for (unsigned k = 0; k < n; k++) {
        for (uint64_t o = off[k]; o < off[k] + len[k]; o++) {
            uint8_t v = c->vram[o];
            if (v != vram_pattern(o)) {
                if (!errors) {
                    first_bad = o;
                    want = vram_pattern(o);
                    got = v;
                }
                errors++;
            }
            checked++;
        }
    }
    m->vram_bytes_checked = checked;
    if (errors) {
        report(r, false, "VRAM pattern: %lu of %lu bytes wrong, first at "
               "%#lx (wrote %#x, read %#x)", errors, checked, first_bad, want,
               got);
    } else {
        report(r, true, "VRAM pattern: %lu bytes in %u regions (first and "
               "last MiB, %u pages between) read back", checked, n,
               VRAM_MIDDLE_PAGES);
    }
}

struct irq_wait {
    struct copro *c;
    uint32_t count_before;
};

static bool irq_arrived(void *opaque)
{
    struct irq_wait *w = opaque;

    return w->c->irq.count != w->count_before;
}

/* Waits up to timeout_ns for the next interrupt; returns whether it came. */
static bool wait_irq(struct copro *c, uint64_t timeout_ns, uint64_t *waited)
{
    struct irq_wait w = { .c = c, .count_before = c->irq.count };

    return wait_for(irq_arrived, &w, timeout_ns, waited);
}

static uint64_t int_status(struct copro *c)
{
    return copro_read64(c, COPRO_REG_INT_STATUS);
}

static void check_interrupts(struct report *r, struct copro *c,
                             enum copro_irq_mode mode, struct demo_metrics *m)
{
    const uint64_t test = COPRO_INT_DEV_TEST;
    const uint32_t data_masked = 0x11110000, data = 0xc0de0001,
                   data_pending = 0xc0de0002;
    const char *err;
    uint8_t vec;
    uint64_t waited;
    bool got;

    err = copro_irq_setup(c, mode, COPRO_VECTOR_BASE);
    m->irq_mode = copro_irq_mode_name(c->irq_mode);
    if (!report(r, err == NULL, "interrupt setup (%s requested, using %s)%s%s",
                copro_irq_mode_name(mode), copro_irq_mode_name(c->irq_mode),
                err ? ": " : "", err ? err : "")) {
        return;
    }
    vec = copro_irq_vector_for(c, test);
    if (c->irq_mode == COPRO_IRQ_INTX) {
        report_info("copro: INTx pin %c, GSI %u -> vector %#x",
                    'A' + pci_read8(&c->pci, PCI_INTERRUPT_PIN) - 1,
                    c->intx_gsi, vec);
    } else {
        report_info("copro: %s, device events on vector %#x",
                    m->irq_mode, vec);
    }

    /* Start clean: no stale causes from the BIOS or an earlier run. */
    copro_write64(c, COPRO_REG_INT_STATUS, ~0ull);
    report(r, int_status(c) == 0, "INT_STATUS clear after writing all ones "
           "(%#lx)", int_status(c));

    /* 1. A masked cause latches in INT_STATUS but does not interrupt. */
    copro_write32(c, COPRO_REG_INT_TEST, data_masked);
    got = wait_irq(c, IRQ_QUIET_NS, NULL);
    report(r, !got && (int_status(c) & test),
           "masked TEST cause: status %#lx, %s", int_status(c),
           got ? "interrupt taken (should not be)" : "no interrupt");
    copro_write64(c, COPRO_REG_INT_STATUS, test);
    report(r, !(int_status(c) & test), "TEST status cleared by write-1 "
           "(%#lx)", int_status(c));

    /* 2. Enabled cause: one interrupt, on the expected vector. */
    copro_write64(c, COPRO_REG_INT_MASK, test);
    report(r, copro_read64(c, COPRO_REG_INT_MASK) == test,
           "INT_MASK reads back %#lx", copro_read64(c, COPRO_REG_INT_MASK));
    copro_write32(c, COPRO_REG_INT_TEST, data);
    got = wait_irq(c, IRQ_TIMEOUT_NS, &waited);
    m->irq_latency_ns = waited;
    if (report(r, got, "TEST interrupt %s after %lu ns", got ? "arrived" :
               "did not arrive", waited)) {
        report(r, c->irq.last_vector == vec, "TEST interrupt on vector %#x "
               "via %s (expected %#x)", c->irq.last_vector, m->irq_mode, vec);
        report(r, c->irq.last_status == test, "ISR saw causes %#lx "
               "(expected DEV_TEST %#lx)", c->irq.last_status, test);
    }
    report(r, copro_read32(c, COPRO_REG_INT_TEST_DATA) == data,
           "INT_TEST_DATA %#x (expected %#x)",
           copro_read32(c, COPRO_REG_INT_TEST_DATA), data);
    report(r, int_status(c) == 0, "INT_STATUS clear after the ISR's ack "
           "(%#lx)", int_status(c));
    {
        uint32_t before = c->irq.count;
        wait_ns(IRQ_QUIET_NS);
        report(r, c->irq.count == before, "no further interrupt after ack "
               "(%u extra)", c->irq.count - before);
    }
    if (c->irq_mode == COPRO_IRQ_INTX) {
        report(r, !ioapic_remote_irr(c->intx_gsi),
               "IOAPIC remote IRR clear after EOI (GSI %u)", c->intx_gsi);
    }

    /* 3. Enabling a cause that is already pending delivers it. */
    copro_write64(c, COPRO_REG_INT_MASK, 0);
    copro_write32(c, COPRO_REG_INT_TEST, data_pending);
    got = wait_irq(c, IRQ_QUIET_NS, NULL);
    if (report(r, !got, "no interrupt while TEST is masked")) {
        copro_write64(c, COPRO_REG_INT_MASK, test);
        got = wait_irq(c, IRQ_TIMEOUT_NS, NULL);
        report(r, got && c->irq.last_status == test,
               "unmasking a pending TEST cause delivers it (%s)",
               got ? "delivered" : "not delivered");
    }

    copro_write64(c, COPRO_REG_INT_MASK, 0);
    copro_write64(c, COPRO_REG_INT_STATUS, ~0ull);
    m->irq_count = c->irq.count;
    report(r, c->irq.spurious == 0, "no interrupts without a pending cause "
           "(%u)", c->irq.spurious);
}

static void check_gpu_time(struct report *r, struct copro *c)
{
    uint64_t t0 = copro_read64(c, COPRO_REG_GPU_TIME), t1;

    wait_ns(1000000);
    t1 = copro_read64(c, COPRO_REG_GPU_TIME);
    report(r, t1 > t0, "GPU_TIME advances over 1 ms (%lu -> %lu ns)", t0, t1);
}

static void print_metrics(const struct report *r, const struct copro *c,
                          const struct demo_metrics *m)
{
    kprintf("METRICS {\"scenario\":\"demo\",\"found\":%s,\"irq_mode\":\"%s\","
            "\"engines\":%u,\"version\":\"%u.%u\",\"caps\":%u,"
            "\"vram_mib\":%lu,\"bar2_mib\":%lu,\"vram_bytes_checked\":%lu,"
            "\"irq_latency_ns\":%lu,\"irq_count\":%u,"
            "\"tests\":%u,\"failures\":%u}\n",
            m->found ? "true" : "false", m->irq_mode, c->info.num_engines,
            c->info.version >> 16, c->info.version & 0xffff, c->info.caps,
            c->info.vram_size / MIB, c->vram_bar.size / MIB,
            m->vram_bytes_checked, m->irq_latency_ns, m->irq_count,
            r->tests, r->failures);
}

int scenario_main(const struct boot_info *boot)
{
    struct report r = { 0 };
    struct copro c = { 0 };
    struct demo_metrics m = { .irq_mode = "none" };
    enum copro_irq_mode mode = COPRO_IRQ_AUTO;
    char arg[16];
    const char *err;
    bool found;

    report_info("copro demo firmware, command line: \"%s\"", boot->cmdline);
    if (cmdline_get(boot->cmdline, "irq", arg, sizeof(arg)) &&
        !copro_irq_mode_parse(arg, &mode)) {
        report(&r, false, "unknown irq= mode \"%s\" (auto, msix, msi, intx)",
               arg);
        goto out;
    }

    found = m.found = copro_find(&c);
    if (!report(&r, found, "copro device %s (vendor %#06x device %#06x)",
                found ? "found" : "not found", COPRO_PCI_VENDOR_ID,
                COPRO_PCI_DEVICE_ID)) {
        goto out;
    }
    report_info("copro: PCI %02x:%02x.%x vendor %04x device %04x revision "
                "%02x class %06x", c.pci.bus, c.pci.dev, c.pci.fn,
                c.pci.vendor_id, c.pci.device_id, c.pci.revision,
                c.pci.class_code);
    report(&r, (c.pci.class_code >> 8) == COPRO_PCI_CLASS,
           "PCI class %#06x (expected %#06x)", c.pci.class_code >> 8,
           COPRO_PCI_CLASS);
    report(&r, c.pci.revision == COPRO_PCI_REVISION,
           "PCI revision %#04x (expected %#04x)", c.pci.revision,
           COPRO_PCI_REVISION);

    err = copro_map(&c);
    report_info("copro: BAR0 %s%s at %#lx size %#lx, BAR2 %s%s at %#lx "
                "size %#lx", pci_bar_kind_name(c.mmio_bar.kind),
                c.mmio_bar.prefetchable ? " prefetchable" : "",
                c.mmio_bar.addr, c.mmio_bar.size,
                pci_bar_kind_name(c.vram_bar.kind),
                c.vram_bar.prefetchable ? " prefetchable" : "",
                c.vram_bar.addr, c.vram_bar.size);
    if (!report(&r, err == NULL, "BARs mapped%s%s", err ? ": " : "",
                err ? err : "")) {
        goto out;
    }
    report(&r, c.vram_bar.prefetchable, "BAR2 (VRAM) is prefetchable");

    report_identity(&r, &c);
    if (c.info.id != COPRO_ID_MAGIC) {
        goto out;   /* not talking to the device we think: stop here */
    }
    check_scratch(&r, &c);
    check_vram(&r, &c, &m);
    check_interrupts(&r, &c, mode, &m);
    check_gpu_time(&r, &c);

out:
    print_metrics(&r, &c, &m);
    return report_summary(&r);
}
