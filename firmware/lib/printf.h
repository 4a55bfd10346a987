/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * printf-style formatting, freestanding and hardware-free: the same file
 * compiles into the firmware and into the host unit tests.
 *
 * Supported: flags '-' '0' '+' ' ' '#', width and precision (numbers or
 * '*'), length modifiers hh h l ll z j t, conversions d i u x X o c s p %.
 * No floating point (the firmware is built with -mgeneral-regs-only).
 *
 * The names carry a 'k' prefix so the host build does not collide with
 * the C library's printf family.
 */
#ifndef FW_LIB_PRINTF_H
#define FW_LIB_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

/* Where formatted characters go; put() is called once per character. */
struct fmt_sink {
    void (*put)(struct fmt_sink *sink, char c);
};

/* Format into a sink. Returns the number of characters produced. */
int kformat(struct fmt_sink *sink, const char *fmt, va_list ap);

/*
 * C99 snprintf semantics: writes at most size - 1 characters plus a NUL
 * (nothing at all if size is 0), returns the length the full output
 * would have had.
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int ksnprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* FW_LIB_PRINTF_H */
