/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded waiting for something an interrupt handler will do.
 *
 * The CPU halts between interrupts, and a one-shot LAPIC timer interrupt
 * (IRQ_VEC_LAPIC_TIMER) ends the wait at the deadline, so a lost device
 * interrupt costs timeout_ns of guest time, never a hang. Interrupts are
 * enabled only while halted inside wait_for(): handlers therefore run at
 * well-defined points of a scenario.
 *
 * Uses the LAPIC timer; a scenario that wants the timer for something
 * else must not wait at the same time.
 */
#ifndef FW_LIB_WAIT_H
#define FW_LIB_WAIT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Waits until done(ctx) returns true or timeout_ns of (virtual) time
 * passed. done() is evaluated with interrupts disabled. Returns done's
 * final value; *waited_ns (if not NULL) receives the time spent.
 */
bool wait_for(bool (*done)(void *ctx), void *ctx, uint64_t timeout_ns,
              uint64_t *waited_ns);

/* Sleeps for ns, servicing interrupts meanwhile. */
void wait_ns(uint64_t ns);

#endif /* FW_LIB_WAIT_H */
