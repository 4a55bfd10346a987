/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device bring-up as one sequence of checks, each reported: find the
 * function, map its BARs, read and validate its identity (the command
 * processor must be there), set up interrupt delivery as the boot command
 * line's irq=auto|msix|msi|intx asks, and start the command processor
 * (rings and fence write-back). Shared by the driver-level scenarios and
 * the kernel's boot (kernel/kboot.c), the driver's DxgkDdiStartDevice.
 */
#ifndef FW_KMD_COPRO_BRINGUP_H
#define FW_KMD_COPRO_BRINGUP_H

#include <stdbool.h>
#include <stdint.h>

#include "kmd/copro.h"
#include "kmd/copro_cp.h"
#include "lib/report.h"

/* MSI-X vectors start at vector_base. False (reported) on any failure. */
bool copro_bringup(struct report *r, const char *cmdline,
                   uint8_t vector_base, struct copro *dev,
                   struct copro_cp *cp, uint32_t ring_entries);

#endif /* FW_KMD_COPRO_BRINGUP_H */
