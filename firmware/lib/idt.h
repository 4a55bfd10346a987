/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interrupt descriptor table: one assembly stub per vector (isr.S) saves
 * the registers and calls idt_dispatch(), which runs the handler
 * registered for the vector.
 *
 * Vectors 0-31 are CPU exceptions. Without a registered handler, an
 * exception prints a FAIL line with the faulting state and exits with
 * FW_EXIT_ABORT: a bug in the firmware becomes a readable failure rather
 * than a triple fault.
 */
#ifndef FW_LIB_IDT_H
#define FW_LIB_IDT_H

#include <stdint.h>

/* Vector plan, kept in one place so modules cannot collide. */
#define IRQ_VEC_LAPIC_TIMER     0x30
#define IRQ_VEC_DEVICE_BASE     0x40    /* device drivers: 0x40-0xef */
#define IRQ_VEC_DEVICE_LAST     0xef
#define IRQ_VEC_SPURIOUS        0xff

/* Register state pushed by the stubs, lowest address first. */
struct irq_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector;
    uint64_t error_code;    /* 0 for vectors without one */
    uint64_t rip, cs, rflags, rsp, ss;
};

typedef void (*irq_handler_fn)(struct irq_frame *frame, void *ctx);

void idt_init(void);

/* Installs fn for vector, replacing any previous handler; NULL removes it.
 * ctx is handed back to fn, so handlers need no global state. */
void idt_set_handler(uint8_t vector, irq_handler_fn fn, void *ctx);

/*
 * Handler for vectors >= 32 that have none of their own. The interrupt
 * controller code installs one that logs and acknowledges, so a stray
 * interrupt cannot leave the LAPIC waiting for an EOI forever.
 */
void idt_set_fallback(irq_handler_fn fn, void *ctx);

/* Called from isr.S only. */
void idt_dispatch(struct irq_frame *frame);

#endif /* FW_LIB_IDT_H */
