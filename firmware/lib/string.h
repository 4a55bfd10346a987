/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The C string and memory functions the firmware uses. They keep their
 * standard names because the compiler emits calls to memcpy/memset/
 * memmove/memcmp on its own (structure copies, zeroing), even with
 * -ffreestanding.
 */
#ifndef FW_LIB_STRING_H
#define FW_LIB_STRING_H

#include <stddef.h>

void *memset(void *dst, int c, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

#endif /* FW_LIB_STRING_H */
