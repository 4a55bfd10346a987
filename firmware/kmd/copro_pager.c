/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_pager.h"

#include <stddef.h>

const char *copro_pager_init(struct copro_pager *p, struct copro_cp *cp,
                             struct copro_gart *gart)
{
    volatile uint64_t *zero;
    uint64_t zero_gpu;

    *p = (struct copro_pager){ .gart = gart };
    if (!gart || gart->entries == 0) {
        return "no GART";
    }
    zero = copro_cp_alloc(cp, COPRO_PAGER_ZERO_ENTRIES * 8ull,
                          COPRO_GPU_PAGE_SIZE, &zero_gpu);
    if (!zero) {
        return "out of VRAM for the zero GART entries";
    }
    for (unsigned i = 0; i < COPRO_PAGER_ZERO_ENTRIES; i++) {
        zero[i] = 0;
    }
    p->space = (struct copro_paging_space){
        .vram_size = cp->dev->info.vram_size,
        .aperture_base = gart->aperture_base,
        .aperture_pages = gart->entries,
        .gart_table = gart->table,
        .zero_entries = zero_gpu,
        .zero_count = COPRO_PAGER_ZERO_ENTRIES,
    };
    return NULL;
}

int copro_pager_build(struct copro_pager *p, const struct ddi_paging_op *ops,
                      unsigned nops, struct ddi_dmabuf *out)
{
    int rc = copro_paging_translate(&p->space, ops, nops, out);

    if (rc != DDI_OK) {
        p->refused++;
        return rc;
    }
    /* Only now, with every op checked and the buffer written, touch the
     * GART: a refusal leaves nothing mapped. */
    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *op = &ops[i];
        uint32_t first, pages;

        switch (op->kind) {
        case DDI_PAGING_MAP_APERTURE:
            first = copro_paging_first_page(&p->space, op);
            pages = (uint32_t)(op->size / COPRO_GPU_PAGE_SIZE);
            for (uint32_t k = 0; k < pages; k++) {
                copro_gart_set(p->gart, first + k, op->sys_pages[k], true);
            }
            copro_gart_invalidate(p->gart, first, pages);
            p->pages_mapped += pages;
            break;
        case DDI_PAGING_UNMAP_APERTURE:
            p->pages_unmapped += op->size / COPRO_GPU_PAGE_SIZE;
            break;
        case DDI_PAGING_TRANSFER:
            p->bytes_transferred += op->size;
            break;
        case DDI_PAGING_FILL:
            p->bytes_filled += op->size;
            break;
        }
    }
    p->builds++;
    return DDI_OK;
}
