/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro's side of GPU-VA moves [DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE]:
 * vidmm's page-table updates (ddi/ddi_gpuva.h) become staged leaf entries
 * plus COPY_PTE packets for the paging buffer, the way the `tiled`
 * scenario remaps tiles.
 *
 * Why staged entries and COPY_PTE rather than CPU writes: the paging
 * buffer runs later, on the copy engine, after the transfer that moves
 * the contents; the leaf entries must change exactly then, not when the
 * buffer is built, or the GPU would read the new frames before they hold
 * the data (or the old ones after they were reused). COPY_PTE also drops
 * every engine's cached translations when it has written its entries
 * (docs/specs/copro.rst, "Translation caches and invalidation"), which is
 * the invalidation the device requires: no VM_INVAL is needed, and the
 * buffers that wait for the paging fence see the new mapping.
 *
 * One COPY_PTE covers a run of leaf entries that are consecutive in VRAM:
 * pages inside one leaf table (4 KiB pages; 2 MiB of VA per table). A run
 * is cut where the VA crosses into another leaf table. Regions mapped
 * with 64 KiB pages are refused: vidmm's updates are 4 KiB-grained.
 *
 * Pure C over struct copro_pt_mem: unit-tested on the host
 * (tests/unit/test-copro-pte-update.c).
 */
#ifndef FW_KMD_COPRO_PTE_UPDATE_H
#define FW_KMD_COPRO_PTE_UPDATE_H

#include <stdint.h>

#include "ddi/ddi_gpuva.h"
#include "kmd/copro_dmabuf.h"
#include "kmd/copro_pt.h"

/* Where the new entries are staged: VRAM the paging buffer copies from,
 * which must stay untouched until the buffer has run. */
struct copro_pte_stage {
    uint64_t vram;          /* VRAM offset of entry 0, 8-aligned */
    uint32_t entries;       /* room */
    uint32_t used;          /* entries staged so far */
};

/* The leaf entry an update gives its page i (0: not present). NULL or why
 * the update is bad (an aperture address outside [aperture_base,
 * aperture_base + aperture_size), a VRAM frame past vram_size). */
const char *copro_pte_update_entry(const struct ddi_pte_update *u,
                                   uint64_t i, uint64_t vram_size,
                                   uint64_t aperture_base,
                                   uint64_t aperture_size, uint64_t *entry);

/*
 * Stages the entries of updates u[0 .. n) (all of the address space whose
 * root table is at root) in stage and appends the COPY_PTE packets that
 * install them to out. Everything is checked before anything is written:
 * on an error (returned as a reason; NULL is success) neither the stage
 * nor out changes. The leaf tables must exist (they are made when the VA
 * range is first mapped); an update over a missing one is refused.
 * *packets (may be NULL) gets the number of COPY_PTE appended.
 */
const char *copro_pte_update_emit(const struct copro_pt_mem *m, uint64_t root,
                                  uint64_t aperture_size,
                                  const struct ddi_pte_update *u, unsigned n,
                                  struct copro_pte_stage *stage,
                                  struct copro_dmabuf *out,
                                  unsigned *packets);

/*
 * The paging companion's DMA buffer for a GPU VA update
 * [DxgkDdiBuildPagingBuffer UPDATEPAGETABLE / COPYPAGETABLEENTRIES on the
 * paging queue, bracketed by the monitored-fence wait and signal of
 * D3DKMTUpdateGpuVirtualAddress], appended to out:
 *
 *   WAIT(wait_addr >= wait_value)            unless wait_addr is 0
 *   per operation, in order:
 *     SET:  staged entries + COPY_PTE (as copro_pte_update_emit)
 *     COPY: COPY_PTE from the source's live leaf entries to the
 *           destination's (what they hold when the GPU gets there)
 *   FENCE(signal_addr = signal_value)
 *
 * All of req's operations are in the address space whose root table is
 * at root. The buffer runs on the copy engine in a physical context: the
 * fence addresses are VRAM offsets. Everything is checked first: on an
 * error (a reason; NULL is success) neither stage nor out changes.
 */
const char *copro_gpuva_update_emit(const struct copro_pt_mem *m,
                                    uint64_t root, uint64_t aperture_size,
                                    const struct ddi_gpuva_update *req,
                                    struct copro_pte_stage *stage,
                                    struct copro_dmabuf *out);

#endif /* FW_KMD_COPRO_PTE_UPDATE_H */
