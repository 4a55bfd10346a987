/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm: the worst-case estimate of a DMA buffer's allocation list, per
 * segment, made when the buffer is submitted (US 7,444,637: "a worst
 * case estimate is calculated ... so as to be able to split the buffer
 * up front"). See vidmm.h.
 */
#include "vidmm/vidmm_internal.h"

/* The most VRAM a can take: its pages, and in the worst case the gap in
 * front of it up to its alignment (best fit places it at the lowest
 * aligned address of a hole that begins on any page). */
static uint64_t worst_vram(const struct vm_alloc *a)
{
    uint64_t slack = a->align > VIDMM_PAGE_SIZE ? a->align - VIDMM_PAGE_SIZE
                                                : 0;

    return pages_of(a->size) * VIDMM_PAGE_SIZE + slack;
}

/* The VRAM no list can ever have: pinned for the allocation's life (a
 * primary). Other pins and locks come and go. */
static uint64_t pinned_for_life(const struct vidmm *vm)
{
    uint64_t bytes = 0;

    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        const struct vm_alloc *a = &vm->a[i];

        if (a->used && a->primary && a->st.where == VIDMM_IN_VRAM) {
            bytes += pages_of(a->size) * VIDMM_PAGE_SIZE;
        }
    }
    return bytes;
}

int vidmm_estimate(const struct vidmm *vm, const struct ddi_alloc_ref *list,
                   unsigned n, struct vidmm_estimate *e)
{
    uint64_t life;

    if (!vm || !e || (n && !list) || n > DDI_MAX_ALLOC_LIST) {
        return DDI_EINVAL;
    }
    *e = (struct vidmm_estimate){ 0 };
    for (unsigned i = 0; i < n; i++) {
        const struct vm_alloc *a = lookup(vm, list[i].handle);
        bool again = false;

        if (!a) {
            return DDI_EHANDLE;
        }
        for (unsigned j = 0; j < i && !again; j++) {
            again = list[j].handle == list[i].handle;
        }
        if (again) {
            continue;           /* listed twice, placed once */
        }
        if (a->segments & VIDMM_SEG_VRAM) {
            e->vram_any_bytes += worst_vram(a);
            if (!(a->segments & VIDMM_SEG_APERTURE)) {
                e->vram_bytes += worst_vram(a);
            }
        }
        if (a->segments & VIDMM_SEG_APERTURE) {
            e->aperture_bytes += pages_of(a->size) * VIDMM_PAGE_SIZE;
        }
    }
    life = pinned_for_life(vm);
    e->vram_capacity = vm->cfg.vram_size > life ? vm->cfg.vram_size - life
                                                : 0;
    e->aperture_capacity = vm->cfg.aperture_size;
    e->must_split = e->vram_bytes > e->vram_capacity;
    return DDI_OK;
}
