/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/wait.h"

#include <stddef.h>

#include "lib/idt.h"
#include "lib/io.h"
#include "lib/lapic.h"

struct deadline {
    volatile bool expired;
};

static void deadline_tick(struct irq_frame *f, void *ctx)
{
    struct deadline *d = ctx;

    (void)f;
    d->expired = true;
    lapic_eoi();
}

bool wait_for(bool (*done)(void *ctx), void *ctx, uint64_t timeout_ns,
              uint64_t *waited_ns)
{
    struct deadline d = { .expired = false };
    uint64_t remaining;
    bool ok;

    irq_disable();
    idt_set_handler(IRQ_VEC_LAPIC_TIMER, deadline_tick, &d);
    lapic_timer_start(IRQ_VEC_LAPIC_TIMER, timeout_ns, false);

    while (!(ok = done(ctx)) && !d.expired) {
        irq_wait_and_disable();
    }

    remaining = d.expired ? 0 : lapic_timer_remaining_ns();
    lapic_timer_stop();
    idt_set_handler(IRQ_VEC_LAPIC_TIMER, NULL, NULL);
    if (waited_ns) {
        *waited_ns = timeout_ns > remaining ? timeout_ns - remaining : 0;
    }
    return ok;
}

static bool never(void *ctx)
{
    (void)ctx;
    return false;
}

void wait_ns(uint64_t ns)
{
    wait_for(never, NULL, ns, NULL);
}
