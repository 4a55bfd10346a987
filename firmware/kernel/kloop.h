/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's event loop on the CPU: runs kevents steps (DPCs, due
 * timers, work items) and, when there is nothing to do, programs the
 * LAPIC one-shot timer for the earliest kernel timer and halts until
 * that or a device interrupt. Interrupts are enabled only while halted,
 * so interrupt handlers (which only queue DPCs) never run in the middle
 * of kernel code.
 */
#ifndef FW_KERNEL_KLOOP_H
#define FW_KERNEL_KLOOP_H

#include <stdbool.h>

#include "kernel/kernel.h"

/* Runs the loop until stop(arg) returns true; it is asked after every
 * step, so it should be cheap. The caller arms a timer if stop depends
 * on time alone. */
void kernel_run(struct kernel *k, bool (*stop)(void *arg), void *arg);

#endif /* FW_KERNEL_KLOOP_H */
