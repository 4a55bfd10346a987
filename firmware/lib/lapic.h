/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Local APIC (xAPIC, MMIO at the base from IA32_APIC_BASE): enable, EOI,
 * and the timer.
 *
 * Timer clock: QEMU counts the LAPIC timer in nanoseconds of virtual time
 * times the divider, i.e. a 1 GHz bus clock, under TCG and KVM alike.
 * The firmware relies on that instead of calibrating against the PIT;
 * LAPIC_TIMER_HZ is the single place that assumption lives.
 */
#ifndef FW_LIB_LAPIC_H
#define FW_LIB_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

#define LAPIC_TIMER_HZ          1000000000ull   /* before the divider */

/* Enables the LAPIC (software enable, spurious vector, TPR 0), masks
 * LINT0 (the 8259 is not used) and installs the fallback handler. */
void lapic_init(void);

uint8_t lapic_id(void);
void lapic_eoi(void);

/*
 * Timer. The divider is fixed at 16 (62.5 MHz at 1 GHz), so one-shot
 * counts cover up to about 68 s. lapic_timer_start() programs a one-shot
 * (periodic = false) or periodic timer of period_ns on vector; a vector of
 * 0 leaves it masked (poll lapic_timer_remaining_ns() instead).
 */
void lapic_timer_start(uint8_t vector, uint64_t period_ns, bool periodic);
void lapic_timer_stop(void);
uint64_t lapic_timer_remaining_ns(void);

#endif /* FW_LIB_LAPIC_H */
