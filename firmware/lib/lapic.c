/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/lapic.h"

#include <stddef.h>

#include "lib/console.h"
#include "lib/idt.h"
#include "lib/io.h"

#define MSR_APIC_BASE           0x1b
#define APIC_BASE_ENABLE        (1ull << 11)
#define APIC_BASE_ADDR_MASK     0xffffff000ull

#define LAPIC_ID                0x020
#define LAPIC_TPR               0x080
#define LAPIC_EOI               0x0b0
#define LAPIC_SVR               0x0f0
#define LAPIC_ESR               0x280
#define LAPIC_LVT_TIMER         0x320
#define LAPIC_LVT_LINT0         0x350
#define LAPIC_LVT_ERROR         0x370
#define LAPIC_TIMER_INIT        0x380
#define LAPIC_TIMER_CURRENT     0x390
#define LAPIC_TIMER_DIVIDE      0x3e0

#define LAPIC_SVR_ENABLE        (1u << 8)
#define LAPIC_LVT_MASKED        (1u << 16)
#define LAPIC_LVT_PERIODIC      (1u << 17)
#define LAPIC_DIVIDE_16         0x3
#define LAPIC_DIVIDER           16

/* Read from the MSR on every access: cheap enough here, and it keeps the
 * module free of cached state. */
static volatile void *lapic_base(void)
{
    return (volatile void *)(uintptr_t)(rdmsr(MSR_APIC_BASE) &
                                        APIC_BASE_ADDR_MASK);
}

static uint32_t lapic_read(uint32_t reg)
{
    return mmio_read32(lapic_base(), reg);
}

static void lapic_write(uint32_t reg, uint32_t v)
{
    mmio_write32(lapic_base(), reg, v);
}

static void lapic_fallback(struct irq_frame *f, void *ctx)
{
    (void)ctx;
    kprintf("unexpected interrupt on vector %lu\n", f->vector);
    lapic_eoi();
}

/* Spurious interrupts must not get an EOI (the ISR bit is not set). */
static void lapic_spurious(struct irq_frame *f, void *ctx)
{
    (void)f;
    (void)ctx;
}

void lapic_init(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);

    if (!(base & APIC_BASE_ENABLE)) {
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
    }
    idt_set_fallback(lapic_fallback, NULL);
    idt_set_handler(IRQ_VEC_SPURIOUS, lapic_spurious, NULL);

    lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | IRQ_VEC_SPURIOUS);
    lapic_write(LAPIC_TPR, 0);
    /* The BIOS leaves LINT0 in ExtINT mode for the 8259; we mask the 8259
     * and route everything through the IOAPIC or MSI instead. */
    lapic_write(LAPIC_LVT_LINT0, LAPIC_LVT_MASKED);
    lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED);
    lapic_write(LAPIC_LVT_ERROR, LAPIC_LVT_MASKED);
    /* ESR is write-then-read; two writes clear stale errors. */
    lapic_write(LAPIC_ESR, 0);
    lapic_write(LAPIC_ESR, 0);
    lapic_eoi();
}

uint8_t lapic_id(void)
{
    return lapic_read(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
    lapic_write(LAPIC_EOI, 0);
}

static uint32_t ns_to_count(uint64_t ns)
{
    uint64_t c = ns * (LAPIC_TIMER_HZ / LAPIC_DIVIDER) / 1000000000ull;

    if (c == 0) {
        c = 1;
    }
    return c > 0xffffffffull ? 0xffffffffu : (uint32_t)c;
}

void lapic_timer_start(uint8_t vector, uint64_t period_ns, bool periodic)
{
    uint32_t lvt = vector ? vector : LAPIC_LVT_MASKED;

    if (periodic) {
        lvt |= LAPIC_LVT_PERIODIC;
    }
    lapic_write(LAPIC_TIMER_INIT, 0);       /* stop any running count */
    lapic_write(LAPIC_TIMER_DIVIDE, LAPIC_DIVIDE_16);
    lapic_write(LAPIC_LVT_TIMER, lvt);
    lapic_write(LAPIC_TIMER_INIT, ns_to_count(period_ns));
}

void lapic_timer_stop(void)
{
    lapic_write(LAPIC_TIMER_INIT, 0);
    lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED);
}

uint64_t lapic_timer_remaining_ns(void)
{
    uint64_t c = lapic_read(LAPIC_TIMER_CURRENT);

    return c * 1000000000ull / (LAPIC_TIMER_HZ / LAPIC_DIVIDER);
}
