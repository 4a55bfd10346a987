/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/idt.h"

#include <stddef.h>

#include <stdbool.h>

#include "lib/console.h"
#include "lib/exit.h"
#include "lib/io.h"

#define KERNEL_CS               0x08    /* boot.S GDT */
#define IDT_GATE_INTERRUPT      0x8e    /* present, DPL 0, 64-bit int gate */

struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
} __attribute__((packed));

struct idt_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

struct idt_slot {
    irq_handler_fn fn;
    void *ctx;
};

extern const uint64_t isr_stub_table[256];

/*
 * The gate table and the handler table are file-level because the CPU
 * (through IDTR and the stubs) reaches them without any context pointer.
 * They are the only interrupt state; handlers get their own via ctx.
 */
static struct idt_gate idt[256] __attribute__((aligned(16)));
static struct idt_slot slots[256];
static struct idt_slot fallback;

static const char *const exception_names[32] = {
    "#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
    "#DF", "#MF(9)", "#TS", "#NP", "#SS", "#GP", "#PF", "(15)",
    "#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "(22)", "(23)",
    "(24)", "(25)", "(26)", "(27)", "#HV", "#VC", "#SX", "(31)",
};

void idt_init(void)
{
    struct idt_ptr ptr = { .limit = sizeof(idt) - 1, .base = (uintptr_t)idt };

    for (int v = 0; v < 256; v++) {
        uint64_t a = isr_stub_table[v];
        idt[v] = (struct idt_gate){
            .offset_lo = a & 0xffff,
            .selector = KERNEL_CS,
            .type_attr = IDT_GATE_INTERRUPT,
            .offset_mid = (a >> 16) & 0xffff,
            .offset_hi = a >> 32,
        };
    }
    __asm__ volatile("lidt %0" : : "m"(ptr));
}

void idt_set_handler(uint8_t vector, irq_handler_fn fn, void *ctx)
{
    /* Handlers run with interrupts off (interrupt gates); keep them off
     * here too so a handler never sees a half-written slot. */
    uint64_t flags;

    __asm__ volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
    slots[vector].fn = fn;
    slots[vector].ctx = ctx;
    if (flags & (1u << 9)) {
        irq_enable();
    }
}

void idt_dispatch(struct irq_frame *f)
{
    struct idt_slot *s = &slots[f->vector & 0xff];

    if (s->fn) {
        s->fn(f, s->ctx);
        return;
    }
    if (f->vector < 32) {
        kprintf("FAIL: unhandled CPU exception %s (vector %lu) error=%#lx "
                "rip=%#lx rsp=%#lx cr2=%#lx\n",
                exception_names[f->vector], f->vector, f->error_code,
                f->rip, f->rsp, read_cr2());
        fw_exit(FW_EXIT_ABORT);
    }
    if (fallback.fn) {
        fallback.fn(f, fallback.ctx);
        return;
    }
    kprintf("unexpected interrupt on vector %lu\n", f->vector);
}

void idt_set_fallback(irq_handler_fn fn, void *ctx)
{
    fallback.fn = fn;
    fallback.ctx = ctx;
}
