/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copro ABI headers (include/copro/ headers) are plain C and include
 * <stdint.h>; a kernel build has no libc headers (-nostdinc), so this
 * stand-in, first on the module's include path, gives them the kernel's
 * fixed-width types instead.
 */
#ifndef COPRO_KERNEL_STDINT_H
#define COPRO_KERNEL_STDINT_H

#include <linux/types.h>
#include <linux/limits.h>

#endif
