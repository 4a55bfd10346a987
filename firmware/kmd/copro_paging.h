/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The paging buffer over copro [DxgkDdiBuildPagingBuffer]: vidmm's moves
 * (struct ddi_paging_op) checked and translated into copy-engine packets.
 * Pure C with no hardware access, so the translation is unit-tested on
 * the host (tests/unit/test-copro-paging.c); kmd/copro_pager.c applies
 * the part that must happen on the CPU (GART entries of MAP_APERTURE).
 *
 * How each operation becomes work:
 *   TRANSFER         COPY packets of at most max_packet_bytes each, in
 *                    address order (so a move towards lower addresses
 *                    inside one segment behaves like memmove; the other
 *                    direction, src < dst < src + size, is refused);
 *   FILL             FILL packets, the same way;
 *   MAP_APERTURE     nothing in the buffer: the driver writes the GART
 *                    entries on the CPU while it builds the buffer and
 *                    invalidates them, so the range is usable by every op
 *                    of the buffer [MapApertureSegment];
 *   UNMAP_APERTURE   COPY_PTE packets copying zero (invalid) entries from
 *                    a zeroed VRAM area over the range's GART entries. The
 *                    GPU does it, in buffer order, after the transfers
 *                    before it have read or written the range, and
 *                    COPY_PTE drops every cached translation (spec,
 *                    "Invalidation"). Done on the CPU at build time it
 *                    would pull the pages away from the TRANSFER that the
 *                    same buffer still has to run. The range is free for
 *                    another MAP once the paging buffer's fence retired.
 *
 * Bounding each COPY and FILL packet keeps one packet's run short (16 MiB
 * at 8 GiB/s is about 2 ms) and a fault's FAULT_OFFSET close to the bytes
 * that faulted; the device itself takes any 64-bit size.
 *
 * Every operation is checked before anything is emitted or mapped:
 * ranges wholly inside VRAM or inside the GART's part of the aperture
 * (never straddling), sizes not zero, FILL sizes multiples of 4, aperture
 * ranges and system pages 4 KiB aligned, a MAP may not follow another
 * use of its range in the same call (the CPU maps before the GPU runs any
 * of it, so it could not be ordered after that use), and no TRANSFER or
 * FILL may reach a range through the aperture after an UNMAP of it in the
 * same call (the engine would fault on it).
 */
#ifndef FW_KMD_COPRO_PAGING_H
#define FW_KMD_COPRO_PAGING_H

#include <stdint.h>

#include "ddi/ddi.h"

/* Default bound on one COPY or FILL packet of a paging buffer. */
#define COPRO_PAGING_MAX_PACKET_BYTES   (16ull << 20)

/* Where things are, as the translation needs to know them. */
struct copro_paging_space {
    uint64_t vram_size;         /* local memory: GPU [0, vram_size) */
    uint64_t aperture_base;     /* GPU address of GART entry 0 */
    uint32_t aperture_pages;    /* GART entries: the aperture in use */
    uint64_t gart_table;        /* VRAM address of GART entry 0 */
    uint64_t zero_entries;      /* VRAM address of zero_count zero
                                   64-bit entries (0 count: no UNMAP) */
    uint32_t zero_count;
    uint64_t max_packet_bytes;  /* 0: COPRO_PAGING_MAX_PACKET_BYTES;
                                   else a multiple of 4 */
};

/*
 * Checks ops[0 .. nops) against s. DDI_OK, DDI_EINVAL for a malformed
 * operation (its index in *bad, if bad is not NULL; nops above
 * DDI_MAX_PAGING_OPS or ops NULL: index 0), DDI_ENOTSUP for an UNMAP when
 * s has no zero entries.
 */
int copro_paging_check(const struct copro_paging_space *s,
                       const struct ddi_paging_op *ops, unsigned nops,
                       unsigned *bad);

/*
 * Checks, then writes the packets of ops into out (out->dw, gpu_addr and
 * cap_bytes set by the caller) and sets its length, engine
 * (COPRO_ENGINE_COPY) and empty allocation and patch lists: a final
 * buffer. Maps nothing. Errors as copro_paging_check (DDI_EINVAL also for
 * out NULL), or DDI_ENOMEM if the packets do not fit in cap_bytes or
 * out->dw is NULL (out->len_bytes is 0 on any error).
 */
int copro_paging_translate(const struct copro_paging_space *s,
                           const struct ddi_paging_op *ops, unsigned nops,
                           struct ddi_dmabuf *out);

/* Bytes of packets ops need (after a successful check), for sizing out. */
uint64_t copro_paging_bytes(const struct copro_paging_space *s,
                            const struct ddi_paging_op *ops, unsigned nops);

/* First aperture page of op's range (MAP/UNMAP; after a check). */
static inline uint32_t copro_paging_first_page(
    const struct copro_paging_space *s, const struct ddi_paging_op *op)
{
    return (uint32_t)((op->dst - s->aperture_base) / COPRO_GPU_PAGE_SIZE);
}

#endif /* FW_KMD_COPRO_PAGING_H */
