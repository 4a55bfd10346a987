/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro interrupt delivery and the interrupt service routine.
 *
 * The ISR does the minimum: read the causes it owns, acknowledge them
 * (write-1-to-clear), record them for the driver, EOI. Acknowledging
 * before the EOI matters for INTx: the line is level-triggered, and an
 * EOI while (status & mask) still holds it high would redeliver at once.
 */
#include "kmd/copro.h"

#include <stddef.h>

#include <copro/copro_hwsched.h>

#include "lib/idt.h"
#include "lib/ioapic.h"
#include "lib/lapic.h"
#include "lib/console.h"

/* Causes an interrupt on this vector stands for. */
static uint64_t vector_causes(const struct copro *c, uint8_t vector)
{
    if (c->irq_mode == COPRO_IRQ_MSIX) {
        return copro_msix_entry_causes(vector - c->vector_base,
                                       c->info.num_engines);
    }
    return ~0ull;   /* INTx and MSI: one vector for everything */
}

static void count_causes(struct copro *c, uint64_t status)
{
    uint64_t done = 0, known;

    for (unsigned e = 0; e < c->info.num_engines; e++) {
        done |= COPRO_INT_ENG(e, COPRO_INT_DMA_DONE);
    }
    known = done | COPRO_INT_DEV_VSYNC | COPRO_INT_DEV_FLIP_DONE |
            COPRO_INT_DEV_SCHED_LOG;
    c->irq.by_dma_done += !!(status & done);
    c->irq.by_vsync += !!(status & COPRO_INT_DEV_VSYNC);
    c->irq.by_flip += !!(status & COPRO_INT_DEV_FLIP_DONE);
    c->irq.by_sched_log += !!(status & COPRO_INT_DEV_SCHED_LOG);
    c->irq.by_other += !!(status & ~known);
}

static void copro_isr(struct irq_frame *f, void *ctx)
{
    struct copro *c = ctx;
    uint8_t vector = (uint8_t)f->vector;
    uint64_t status = copro_read64(c, COPRO_REG_INT_STATUS) &
                      vector_causes(c, vector);

    if (status) {
        copro_write64(c, COPRO_REG_INT_STATUS, status);
        /* after the acknowledgement: what the hook does (a flip) may
         * raise a cause again, which must not be lost */
        if (c->isr_hook) {
            c->isr_hook(c->isr_hook_ctx, status);
        }
    } else {
        c->irq.spurious++;
    }
    count_causes(c, status);
    c->irq.last_vector = vector;
    c->irq.last_status = status;
    c->irq.causes_seen |= status;
    c->irq.pending |= status;
    c->irq.count++;
    if (status && c->queue_dpc) {
        c->queue_dpc(c->queue_dpc_ctx);
    }
    lapic_eoi();
}

static const char *setup_msix(struct copro *c, uint8_t apic)
{
    unsigned n = c->info.num_engines + 1;

    if (!msix_init(&c->msix, &c->pci)) {
        return "MSI-X capability or table not usable";
    }
    if (c->msix.table_size < n) {
        return "MSI-X table smaller than engines + 1";
    }
    for (unsigned e = 0; e < n; e++) {
        idt_set_handler(c->vector_base + e, copro_isr, c);
        msix_set_vector(&c->msix, e, apic, c->vector_base + e);
    }
    msix_enable(&c->msix);
    return NULL;
}

static const char *setup_msi(struct copro *c, uint8_t apic)
{
    idt_set_handler(c->vector_base, copro_isr, c);
    if (!msi_enable(&c->pci, apic, c->vector_base)) {
        idt_set_handler(c->vector_base, NULL, NULL);
        return "no MSI capability";
    }
    return NULL;
}

static const char *setup_intx(struct copro *c, uint8_t apic)
{
    uint8_t pin = pci_read8(&c->pci, PCI_INTERRUPT_PIN);
    uint8_t line = pci_read8(&c->pci, PCI_INTERRUPT_LINE);

    if (pin == 0) {
        return "device has no INTx pin";
    }
    if (line == 0 || line == 0xff) {
        return "BIOS did not route the INTx pin (Interrupt Line unset)";
    }
    c->intx_gsi = line;
    idt_set_handler(c->vector_base, copro_isr, c);
    /* PCI INTx is level-triggered. QEMU's chipsets present the routed
     * line to the IOAPIC active-high (what its ACPI tables describe). */
    if (!ioapic_route(line, c->vector_base, apic, IOAPIC_LEVEL,
                      IOAPIC_ACTIVE_HIGH)) {
        idt_set_handler(c->vector_base, NULL, NULL);
        return "Interrupt Line beyond the IOAPIC's pins";
    }
    pci_command_update(&c->pci, 0, PCI_COMMAND_INTX_DISABLE);
    return NULL;
}

const char *copro_irq_setup(struct copro *c, enum copro_irq_mode mode,
                            uint8_t vector_base)
{
    uint8_t apic = lapic_id();
    const char *err;

    if (mode == COPRO_IRQ_AUTO) {
        mode = pci_find_capability(&c->pci, PCI_CAP_ID_MSIX) ?
               COPRO_IRQ_MSIX : COPRO_IRQ_INTX;
    }
    /* A mode the function does not offer (-device copro,msix=off) falls
     * back to the next one it does, MSI-X -> MSI -> INTx (always there),
     * and says so: the caller reports "requested, using". */
    if (mode == COPRO_IRQ_MSIX &&
        !pci_find_capability(&c->pci, PCI_CAP_ID_MSIX)) {
        kprintf("# irq=msix: the device has no MSI-X capability, falling "
                "back\n");
        mode = COPRO_IRQ_MSI;
    }
    if (mode == COPRO_IRQ_MSI &&
        !pci_find_capability(&c->pci, PCI_CAP_ID_MSI)) {
        kprintf("# irq=msi: the device has no MSI capability, falling back "
                "to INTx\n");
        mode = COPRO_IRQ_INTX;
    }
    if (vector_base < IRQ_VEC_DEVICE_BASE ||
        vector_base + c->info.num_engines > IRQ_VEC_DEVICE_LAST) {
        return "vector range outside the device vectors";
    }
    c->irq_mode = mode;
    c->vector_base = vector_base;
    c->irq = (struct copro_irq_log){ 0 };

    /* Nothing may fire while delivery is half set up. */
    copro_write64(c, COPRO_REG_INT_MASK, 0);

    switch (mode) {
    case COPRO_IRQ_MSIX:
        err = setup_msix(c, apic);
        break;
    case COPRO_IRQ_MSI:
        err = setup_msi(c, apic);
        break;
    default:
        err = setup_intx(c, apic);
        break;
    }
    return err;
}

uint8_t copro_irq_vector_for(const struct copro *c, uint64_t cause)
{
    if (c->irq_mode != COPRO_IRQ_MSIX) {
        return c->vector_base;
    }
    for (unsigned e = 0; e <= c->info.num_engines; e++) {
        if (copro_msix_entry_causes(e, c->info.num_engines) & cause) {
            return c->vector_base + e;
        }
    }
    return 0;
}
