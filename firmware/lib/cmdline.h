/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel command line parsing (QEMU -append). Pure C, host-testable.
 *
 * The line is a list of blank-separated words; QEMU's multiboot loader
 * puts the kernel file name first. Arguments are key=value words; words
 * without '=' are ignored except as flags (cmdline_has_flag).
 */
#ifndef FW_LIB_CMDLINE_H
#define FW_LIB_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Copies the value of the last "key=value" word into buf (NUL-terminated,
 * truncated to size - 1). Returns false if key is absent or cmdline NULL.
 */
bool cmdline_get(const char *cmdline, const char *key, char *buf,
                 size_t size);

/*
 * The value of "key=<decimal>" in *value: returns 1 if found and valid,
 * 0 if key is absent (*value untouched, so it can hold the default), -1
 * if the value is not a decimal number that fits 64 bits.
 */
int cmdline_get_u64(const char *cmdline, const char *key, uint64_t *value);

/* True if a word equals flag exactly. */
bool cmdline_has_flag(const char *cmdline, const char *flag);

#endif /* FW_LIB_CMDLINE_H */
