/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * COM1 (0x3f8), polled, 115200 8N1. The firmware's only output channel:
 * QEMU's -serial stdio turns it into the runner's input.
 */
#ifndef FW_LIB_SERIAL_H
#define FW_LIB_SERIAL_H

void serial_init(void);
/* Writes one character; '\n' goes out as "\r\n" for terminals. */
void serial_putc(char c);
void serial_puts(const char *s);

#endif /* FW_LIB_SERIAL_H */
