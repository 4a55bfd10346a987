/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The driver's side of paging [DxgkDdiBuildPagingBuffer] on the device:
 * copro_paging's translation plus what only the CPU can do, the GART
 * entries of MAP_APERTURE (written and invalidated while the buffer is
 * built, before the GPU runs any of it). UNMAP_APERTURE is done by the
 * copy engine itself, in buffer order (see kmd/copro_paging.h), from a
 * small area of zero entries in VRAM that copro_pager_init allocates.
 *
 * The output is a final DMA buffer for COPRO_ENGINE_COPY, to be submitted
 * with COPRO_SUBMIT_PAGING (the device never preempts it).
 */
#ifndef FW_KMD_COPRO_PAGER_H
#define FW_KMD_COPRO_PAGER_H

#include <stdint.h>

#include "ddi/ddi.h"
#include "kmd/copro_cp.h"
#include "kmd/copro_gart.h"
#include "kmd/copro_paging.h"

/* Zero GART entries kept in VRAM for UNMAP: one COPY_PTE clears this many
 * aperture pages (8 MiB of aperture). */
#define COPRO_PAGER_ZERO_ENTRIES    2048u

struct copro_pager {
    struct copro_gart *gart;
    struct copro_paging_space space;
    /* counters */
    uint64_t builds, refused;
    uint64_t pages_mapped, pages_unmapped;
    uint64_t bytes_transferred, bytes_filled;
};

/*
 * Over a GART that copro_gart_init set up: the space is VRAM and the
 * GART's entries; allocates the zero entries. NULL or why not.
 */
const char *copro_pager_init(struct copro_pager *p, struct copro_cp *cp,
                             struct copro_gart *gart);

/*
 * The DDI's build_paging_buffer: translate ops into out, then write and
 * invalidate the GART entries of each MAP_APERTURE. On any error nothing
 * is mapped and out->len_bytes is 0 (see copro_paging_translate).
 */
int copro_pager_build(struct copro_pager *p, const struct ddi_paging_op *ops,
                      unsigned nops, struct ddi_dmabuf *out);

#endif /* FW_KMD_COPRO_PAGER_H */
