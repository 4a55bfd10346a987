/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm page-table updates as staged entries and COPY_PTE packets. See
 * copro_pte_update.h.
 */
#include "kmd/copro_pte_update.h"

#include <stdbool.h>
#include <stddef.h>

/* SET operations walked as one group (their runs merge); a longer
 * sequence is cut into groups, which is correct, only less merged. */
#define COPRO_GPUVA_GROUP_MAX   16

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
        /* out NULL: the caller checks the room of several calls at once */
        uint32_t room = out ? out->cap_dw - out->len_dw : UINT32_MAX;

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

/* The leaf slot of a 4 KiB-mapped va, or why there is none. */
static const char *slot_4k(const struct copro_pt_mem *m, uint64_t root,
                           uint64_t va, uint64_t *slot)
{
    uint64_t bytes;
    const char *why = copro_pt_leaf_slot(m, root, va, slot, &bytes);

    if (why) {
        return why;
    }
    return bytes == COPRO_PAGE_4K ? NULL : "VA mapped with 64 KiB pages";
}

/*
 * A COPY operation: COPY_PTE straight from the source's live leaf entries
 * to the destination's, one packet per run that is consecutive on both
 * sides. The GPU copies what the entries hold when it gets there, so the
 * operations before it in the buffer are seen. Checks only (out NULL), or
 * emits; *packets gets the count either way.
 */
static const char *copy_runs(const struct copro_pt_mem *m, uint64_t root,
                             const struct ddi_pte_copy *c,
                             struct copro_dmabuf *out, unsigned *packets)
{
    uint64_t run_dst = 0, run_src = 0, run_len = 0;
    unsigned npk = 0;

    if (c->pages == 0 || ((c->dst_va | c->src_va) & (COPRO_PAGE_4K - 1)) ||
        c->dst_va >= COPRO_VA_LIMIT || c->src_va >= COPRO_VA_LIMIT ||
        c->pages > (COPRO_VA_LIMIT - c->dst_va) / COPRO_PAGE_4K ||
        c->pages > (COPRO_VA_LIMIT - c->src_va) / COPRO_PAGE_4K) {
        return "copy range empty, unaligned or beyond the VA space";
    }
    /* COPY_PTE's chunks would read entries an earlier chunk wrote */
    if ((c->dst_va < c->src_va ? c->src_va - c->dst_va
                               : c->dst_va - c->src_va) / COPRO_PAGE_4K <
        c->pages) {
        return "copy ranges overlap";
    }
    for (uint64_t i = 0; i < c->pages; i++) {
        uint64_t dst, src;
        const char *why;

        why = slot_4k(m, root, c->dst_va + i * COPRO_PAGE_4K, &dst);
        if (!why) {
            why = slot_4k(m, root, c->src_va + i * COPRO_PAGE_4K, &src);
        }
        if (why) {
            return why;
        }
        if (run_len && dst == run_dst + run_len * 8 &&
            src == run_src + run_len * 8 && run_len < COPRO_COPY_PTE_MAX) {
            run_len++;
            continue;
        }
        if (run_len && out) {
            copro_emit_copy_pte(out, run_dst, run_src, (uint32_t)run_len);
        }
        npk += run_len != 0;
        run_dst = dst;
        run_src = src;
        run_len = 1;
    }
    if (out) {
        copro_emit_copy_pte(out, run_dst, run_src, (uint32_t)run_len);
    }
    *packets = npk + 1;
    return NULL;
}

/*
 * Consecutive SET operations from req->ops[k] on, copied to set[] (at
 * most COPRO_GPUVA_GROUP_MAX): walked together, their entries merge into
 * one COPY_PTE where the leaf slots are consecutive (a tiled resource's
 * tiles, remapped one op per tile, take one packet). 0 if ops[k] is not
 * a SET.
 */
static unsigned set_group(const struct ddi_gpuva_update *req, unsigned k,
                          struct ddi_pte_update *set)
{
    unsigned n = 0;

    while (k + n < req->nops && n < COPRO_GPUVA_GROUP_MAX &&
           req->ops[k + n].kind == DDI_GPUVA_OP_SET) {
        set[n] = req->ops[k + n].set;
        n++;
    }
    return n;
}

const char *copro_gpuva_update_emit(const struct copro_pt_mem *m,
                                    uint64_t root, uint64_t aperture_size,
                                    const struct ddi_gpuva_update *req,
                                    struct copro_pte_stage *stage,
                                    struct copro_dmabuf *out)
{
    struct ddi_pte_update group[COPRO_GPUVA_GROUP_MAX];
    struct copro_pte_stage probe;
    unsigned sets = 0;
    uint64_t need_dw;
    const char *why;

    if (!m || !req || !stage || !out || !req->ops || req->nops == 0 ||
        (stage->vram & 7) || req->signal_addr == 0 ||
        ((req->signal_addr | req->wait_addr) & 7)) {
        return "bad arguments";
    }
    if (out->error) {
        return out->error;
    }
    /* Pass 1: check every operation and count what the buffer needs,
     * staging into a copy of the stage descriptor so the staged entries
     * of all SET operations together must fit. */
    probe = *stage;
    need_dw = COPRO_LEN_FENCE + (req->wait_addr ? COPRO_LEN_WAIT : 0);
    for (unsigned k = 0; k < req->nops; k += sets ? sets : 1) {
        const struct ddi_gpuva_op *op = &req->ops[k];
        unsigned npk = 0;

        sets = set_group(req, k, group);
        if (sets) {
            why = walk(m, root, aperture_size, group, sets, &probe,
                       NULL, false, &npk);
            for (unsigned i = 0; !why && i < sets; i++) {
                /* walk checked the room */
                probe.used += (uint32_t)group[i].pages;
            }
        } else if (op->kind == DDI_GPUVA_OP_COPY) {
            why = copy_runs(m, root, &op->copy, NULL, &npk);
        } else {
            why = "unknown update operation";
        }
        if (why) {
            return why;
        }
        need_dw += (uint64_t)npk * COPRO_LEN_COPY_PTE;
    }
    if (need_dw > out->cap_dw - out->len_dw) {
        return "paging buffer full";
    }
    /* Pass 2: nothing can fail now. */
    if (req->wait_addr) {
        copro_emit_wait(out, req->wait_addr, req->wait_value);
    }
    for (unsigned k = 0; k < req->nops; k += sets ? sets : 1) {
        unsigned npk;

        sets = set_group(req, k, group);
        if (sets) {
            walk(m, root, aperture_size, group, sets, stage, out, true,
                 &npk);
        } else {
            copy_runs(m, root, &req->ops[k].copy, out, &npk);
        }
    }
    /* No interrupt: the submission's own fence reports completion; this
     * one is for the GPU work that waits on it. */
    copro_emit_fence(out, req->signal_addr, req->signal_value, false);
    return out->error;
}
