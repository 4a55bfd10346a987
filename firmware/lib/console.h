/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Formatted output to the console (the serial port). Unbuffered: each
 * character goes straight to the UART, so output survives a crash.
 */
#ifndef FW_LIB_CONSOLE_H
#define FW_LIB_CONSOLE_H

#include <stdarg.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif /* FW_LIB_CONSOLE_H */
