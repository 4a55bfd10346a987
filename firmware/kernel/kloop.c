/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kloop.h"

#include <stddef.h>

#include "lib/idt.h"
#include "lib/io.h"
#include "lib/lapic.h"

/* The LAPIC counts in 16 ns units and rounds down: aim a unit late so
 * the loop wakes when the timer is due, not just before. */
#define LAPIC_SLACK_NS      16

/* The timer interrupt only ends the halt: the loop looks at the clock. */
static void lapic_tick(struct irq_frame *f, void *ctx)
{
    (void)f;
    (void)ctx;
    lapic_eoi();
}

void kernel_run(struct kernel *k, bool (*stop)(void *arg), void *arg)
{
    irq_disable();
    idt_set_handler(IRQ_VEC_LAPIC_TIMER, lapic_tick, NULL);
    while (!stop(arg)) {
        uint64_t now = kernel_now(k), wake;

        if (kevents_step(&k->ev, now, &wake) != KEVENTS_IDLE) {
            /* the device's interrupts between steps, not only when idle:
             * an application whose timers or callbacks keep the loop
             * busy must not keep completions (DPCs) out */
            irq_window();
            if (kevents_idle_work_due(&k->ev, now)) {
                /* nor the idle loop's own work: a CPU waiter's
                 * completion interrupts turned on, progress polled */
                kernel_before_idle(k);
            }
            continue;
        }
        if (kernel_before_idle(k)) {
            continue;           /* progress came: its work first */
        }
        if (wake != KEVENTS_NEVER) {
            now = kernel_now(k);
            if (wake <= now) {
                continue;
            }
            lapic_timer_start(IRQ_VEC_LAPIC_TIMER,
                              wake - now + LAPIC_SLACK_NS, false);
        }
        /* sti; hlt: an interrupt pending since the check still wakes. */
        irq_wait_and_disable();
    }
    lapic_timer_stop();
}
