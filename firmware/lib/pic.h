/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The legacy 8259 pair. The firmware routes interrupts through the IOAPIC
 * and MSI only, so the 8259s are masked to keep their (BIOS-programmed)
 * timer and keyboard interrupts out of the way.
 */
#ifndef FW_LIB_PIC_H
#define FW_LIB_PIC_H

void pic_disable(void);

#endif /* FW_LIB_PIC_H */
