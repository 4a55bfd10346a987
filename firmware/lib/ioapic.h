/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IOAPIC: routes a global system interrupt (GSI) pin to a LAPIC vector.
 *
 * The IOAPIC address is QEMU's fixed 0xfec00000 (a real OS reads it from
 * the ACPI MADT). On both pc and q35, ISA IRQ n (n < 16) is IOAPIC pin n,
 * and SeaBIOS writes the routed IRQ of a PCI INTx pin into the Interrupt
 * Line register, so that value can be used as the GSI directly.
 */
#ifndef FW_LIB_IOAPIC_H
#define FW_LIB_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

enum ioapic_trigger { IOAPIC_EDGE, IOAPIC_LEVEL };
enum ioapic_polarity { IOAPIC_ACTIVE_HIGH, IOAPIC_ACTIVE_LOW };

/* Number of redirection entries (pins). */
unsigned ioapic_num_pins(void);

/*
 * Routes gsi to vector on the LAPIC with apic_id, fixed delivery,
 * physical destination, unmasked. Returns false if gsi is out of range.
 */
bool ioapic_route(unsigned gsi, uint8_t vector, uint8_t apic_id,
                  enum ioapic_trigger trigger, enum ioapic_polarity polarity);

void ioapic_mask(unsigned gsi);

/* Remote IRR of a level-triggered pin: set from delivery until EOI. */
bool ioapic_remote_irr(unsigned gsi);

#endif /* FW_LIB_IOAPIC_H */
