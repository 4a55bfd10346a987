/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, GPU-VA mode: per-process VA spaces and the page-table updates of
 * a move. See vidmm_gpuva.h.
 */
#include "vidmm/vidmm_gpuva.h"

#include <stddef.h>

#include "ddi/ddi.h"

#define PAGE            DDI_GPUVA_PAGE
#define PAGE_MASK       (PAGE - 1)

int vidmm_gpuva_init(struct vidmm_gpuva_space *s, uint32_t as,
                     uint8_t owner, uint64_t base, uint64_t size,
                     struct vidmm_block *blocks, unsigned cap)
{
    if (!s || !blocks || !cap || base == 0 || size == 0 ||
        ((base | size) & PAGE_MASK) || base + size < base) {
        return DDI_EINVAL;
    }
    s->as = as;
    s->owner = owner;
    vidmm_segment_init(&s->range, base, size, NULL, blocks, cap);
    return DDI_OK;
}

int vidmm_gpuva_map(struct vidmm_gpuva_space *s, uint64_t size,
                    uint64_t align, uint64_t *va)
{
    uint64_t bytes;

    if (!s || !va || size == 0 || size > UINT64_MAX - PAGE_MASK) {
        return DDI_EINVAL;
    }
    if (align == 0) {
        align = PAGE;
    }
    if ((align & (align - 1)) || align < PAGE) {
        return DDI_EINVAL;
    }
    bytes = (size + PAGE_MASK) & ~PAGE_MASK;
    return vidmm_segment_alloc(&s->range, bytes, align, va) ? DDI_OK
                                                             : DDI_ENOMEM;
}

int vidmm_gpuva_free(struct vidmm_gpuva_space *s, uint64_t va)
{
    if (!s) {
        return DDI_EINVAL;
    }
    return vidmm_segment_free(&s->range, va) ? DDI_OK : DDI_EHANDLE;
}

uint64_t vidmm_gpuva_range_bytes(const struct vidmm_gpuva_space *s,
                                 uint64_t va)
{
    return s ? vidmm_segment_block_size(&s->range, va) : 0;
}

static bool frame_ok(const struct vidmm_gpuva_frame *f, uint64_t bytes)
{
    switch (f->target) {
    case DDI_PTE_INVALID:
        return f->addr == 0;
    case DDI_PTE_VRAM:
    case DDI_PTE_APERTURE:
        /* the whole allocation's frames must be addressable */
        return !(f->addr & PAGE_MASK) && f->addr + bytes >= f->addr;
    default:
        return false;
    }
}

bool vidmm_gpuva_range_of(const struct vidmm_gpuva_space *s, uint64_t va,
                          uint64_t *start, uint64_t *bytes)
{
    if (!s) {
        return false;
    }
    /* blocks are sorted by address and few (one per mapped allocation) */
    for (unsigned i = 0; i < s->range.count; i++) {
        const struct vidmm_block *b = &s->range.used[i];

        if (va >= b->addr && va - b->addr < b->size) {
            *start = b->addr;
            *bytes = b->size;
            return true;
        }
    }
    return false;
}

int vidmm_gpuva_remap(const struct vidmm_gpuva_space *s, uint64_t va,
                      uint64_t first, uint64_t pages,
                      const struct vidmm_gpuva_frame *to,
                      struct ddi_pte_update *out)
{
    uint64_t bytes, total;

    if (!s || !to || !out) {
        return DDI_EINVAL;
    }
    bytes = vidmm_gpuva_range_bytes(s, va);
    if (!bytes) {
        return DDI_EHANDLE;
    }
    total = bytes / PAGE;
    if (first >= total || (pages && pages > total - first)) {
        return DDI_EBOUNDS;
    }
    if (!frame_ok(to, bytes)) {
        return DDI_EINVAL;
    }
    if (!pages) {
        pages = total - first;
    }
    out->as = s->as;
    out->target = to->target;
    out->va = va + first * PAGE;
    out->pages = pages;
    out->addr = to->target == DDI_PTE_INVALID ? 0 : to->addr + first * PAGE;
    out->writable = to->target != DDI_PTE_INVALID && to->writable;
    return DDI_OK;
}

bool vidmm_gpuva_update_covers(const struct ddi_pte_update *u,
                               uint64_t va_page, uint64_t *frame)
{
    uint64_t i;

    if (!u || va_page < u->va || (va_page & PAGE_MASK)) {
        return false;
    }
    i = (va_page - u->va) / PAGE;
    if (i >= u->pages) {
        return false;
    }
    if (frame) {
        *frame = u->target == DDI_PTE_INVALID ? 0 : u->addr + i * PAGE;
    }
    return true;
}
