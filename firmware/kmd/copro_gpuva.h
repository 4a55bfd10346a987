/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro's side of GPU-VA mode at the DDI (struct ddi_gpuva_ops): per-
 * process address spaces on the device's per-context page tables
 * (kmd/copro_vm), contexts bound to them, leaf tables reserved for new VA
 * ranges, and page-table updates of moves as staged entries plus COPY_PTE
 * (kmd/copro_pte_update) appended to the OS's paging buffers.
 *
 * A space is one root table; every context bound to it gets a
 * context-table entry pointing at that same root, so all the contexts of
 * a process see one address space [WDDM: one page-table root per
 * process]. The OS's VRAM is mapped at identity in each space,
 * read-only, because the device fetches a context's DMA buffer through
 * the context's space; each bound context's save page is the one
 * writable page (the engine saves a preempted context there through its
 * space), read-only again at unbind. The hole the OS names (the VRAM
 * processes' allocations are paged into) is left out, so a process
 * reaches another's memory only if the OS maps it at one of its VAs.
 *
 * Staging: the new entries are written to a ring of staging slots in
 * VRAM when the paging buffer is built, and copied into the live tables
 * by its COPY_PTE when the copy engine runs it. A slot is reused only
 * after the ring wrapped: the ring holds more entries than the OS's
 * paging buffers in flight can name (COPRO_GPUVA_STAGE entries).
 */
#ifndef FW_KMD_COPRO_GPUVA_H
#define FW_KMD_COPRO_GPUVA_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "ddi/ddi_gpuva.h"
#include "kmd/copro_cp.h"
#include "kmd/copro_vm.h"

#define COPRO_GPUVA_SPACES      16
#define COPRO_GPUVA_CONTEXTS    64      /* context-table entries */
#define COPRO_GPUVA_TABLES      512     /* page tables, 2 MiB of VRAM */
#define COPRO_GPUVA_STAGE       32768   /* staging entries, 256 KiB */

struct copro_gpuva {
    struct copro_cp *cp;
    struct copro_vm vm;
    uint64_t aperture_size;
    uint64_t roots[COPRO_GPUVA_SPACES];     /* VRAM offsets; as = i + 1 */
    unsigned spaces;
    uint64_t stage;                         /* VRAM offset of slot 0 */
    uint32_t stage_next;
    uint64_t updates, entries;              /* counters */
};

/* Context table, page-table pool and staging ring from the driver's VRAM
 * (so before copro_ddi_take_segment). NULL or why not. */
const char *copro_gpuva_init(struct copro_gpuva *g, struct copro_cp *cp,
                             uint64_t aperture_size);

/* The DDI's gpuva ops over g (their drv is the struct copro_ddi). */
extern const struct ddi_gpuva_ops copro_gpuva_ops;

#endif /* FW_KMD_COPRO_GPUVA_H */
