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

/*
 * Copies the value of the last "key=value" word into buf (NUL-terminated,
 * truncated to size - 1). Returns false if key is absent or cmdline NULL.
 */
bool cmdline_get(const char *cmdline, const char *key, char *buf,
                 size_t size);

/* True if a word equals flag exactly. */
bool cmdline_has_flag(const char *cmdline, const char *flag);

#endif /* FW_LIB_CMDLINE_H */
