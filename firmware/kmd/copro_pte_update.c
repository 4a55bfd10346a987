/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm page-table updates as staged entries and COPY_PTE packets. See
 * copro_pte_update.h.
 */
#include "kmd/copro_pte_update.h"

#include <stdbool.h>
#include <stddef.h>

const char *copro_pte_update_entry(const struct ddi_pte_update *u,
                                   uint64_t i, uint64_t vram_size,
                                   uint64_t aperture_base,
                                   uint64_t aperture_size, uint64_t *entry)
{
    uint64_t addr = u->addr + i * DDI_GPUVA_PAGE;
    uint64_t flags = u->writable ? COPRO_PTE_WRITABLE : 0;

    if (addr & (COPRO_PAGE_4K - 1)) {
        return "frame not page-aligned";
    }
    switch (u->target) {
    case DDI_PTE_INVALID:
        *entry = 0;
        return NULL;
    case DDI_PTE_VRAM:
        if (addr < u->addr || addr >= vram_size) {
            return "VRAM frame past the end of VRAM";
        }
        *entry = copro_pte_leaf(addr, flags);
        return NULL;
    case DDI_PTE_APERTURE:
        if (addr < aperture_base || addr - aperture_base >= aperture_size) {
            return "aperture frame outside the aperture";
        }
        /* the leaf holds the aperture offset, not the GPU address */
        *entry = copro_pte_leaf(addr - aperture_base,
                                flags | COPRO_PTE_APERTURE);
        return NULL;
    default:
        return "unknown update target";
    }
}

/* Walks every page of every update: checks, and when write is set stages
 * the entries and emits the packets. Both passes find the same runs. */
static const char *walk(const struct copro_pt_mem *m, uint64_t root,
                        uint64_t aperture_size,
                        const struct ddi_pte_update *u, unsigned n,
                        struct copro_pte_stage *stage,
                        struct copro_dmabuf *out, bool write,
                        unsigned *packets)
{
    uint64_t staged = stage->used;
    uint64_t run_dst = 0, run_src = 0, run_len = 0;
    unsigned npk = 0;

    for (unsigned k = 0; k < n; k++) {
        if (u[k].pages == 0 || (u[k].va & (COPRO_PAGE_4K - 1)) ||
            u[k].va >= COPRO_VA_LIMIT ||
            u[k].pages > (COPRO_VA_LIMIT - u[k].va) / COPRO_PAGE_4K) {
            return "update range empty, unaligned or beyond the VA space";
        }
        for (uint64_t i = 0; i < u[k].pages; i++) {
            uint64_t va = u[k].va + i * COPRO_PAGE_4K, slot, bytes, entry;
            const char *why;

            why = copro_pte_update_entry(&u[k], i, m->vram_size,
                                         COPRO_APERTURE_BASE, aperture_size,
                                         &entry);
            if (why) {
                return why;
            }
            why = copro_pt_leaf_slot(m, root, va, &slot, &bytes);
            if (why) {
                return why;
            }
            if (bytes != COPRO_PAGE_4K) {
                return "VA mapped with 64 KiB pages";
            }
            if (staged >= stage->entries) {
                return "staging area full";
            }
            if (write) {
                m->write64(m->opaque, stage->vram + staged * 8, entry);
            }
            /* extend the run while both sides stay consecutive and the
             * device's count limit allows */
            if (run_len && slot == run_dst + run_len * 8 &&
                run_len < COPRO_COPY_PTE_MAX) {
                run_len++;
            } else {
                if (run_len && write) {
                    copro_emit_copy_pte(out, run_dst, run_src,
                                        (uint32_t)run_len);
                }
                npk += run_len != 0;
                run_dst = slot;
                run_src = stage->vram + staged * 8;
                run_len = 1;
            }
            staged++;
        }
    }
    if (run_len && write) {
        copro_emit_copy_pte(out, run_dst, run_src, (uint32_t)run_len);
    }
    npk += run_len != 0;
    if (!write) {
        uint32_t room = out->cap_dw - out->len_dw;

        if ((uint64_t)npk * COPRO_LEN_COPY_PTE > room) {
            return "paging buffer full";
        }
    } else {
        stage->used = (uint32_t)staged;
    }
    if (packets) {
        *packets = npk;
    }
    return NULL;
}

const char *copro_pte_update_emit(const struct copro_pt_mem *m, uint64_t root,
                                  uint64_t aperture_size,
                                  const struct ddi_pte_update *u, unsigned n,
                                  struct copro_pte_stage *stage,
                                  struct copro_dmabuf *out,
                                  unsigned *packets)
{
    const char *why;

    if (!m || !u || !stage || !out || n == 0 || (stage->vram & 7)) {
        return "bad arguments";
    }
    if (out->error) {
        return out->error;
    }
    why = walk(m, root, aperture_size, u, n, stage, out, false, NULL);
    if (why) {
        return why;
    }
    why = walk(m, root, aperture_size, u, n, stage, out, true, packets);
    return why ? why : out->error;
}
