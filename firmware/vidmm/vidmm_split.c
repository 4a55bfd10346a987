/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm: split points [WDDM: a split DMA buffer] and running a buffer in
 * portions, each made resident by vidmm_plan.c.
 */
#include "vidmm/vidmm_internal.h"

#include <stddef.h>
#include <string.h>

/* ---- split points ---- */

/* The patch locations are sorted by split_offset and name real slots. */
static bool split_args_ok(const struct ddi_dmabuf *buf)
{
    if (!buf || buf->nalloc > DDI_MAX_ALLOC_LIST ||
        buf->npatch > DDI_MAX_PATCH_LIST) {
        return false;
    }
    for (unsigned p = 0; p < buf->npatch; p++) {
        const struct ddi_patch_loc *pl = &buf->patch[p];

        if (pl->slot >= buf->nalloc || pl->slot_id > COPRO_TARGET_SLOTS ||
            pl->split_offset >= buf->len_bytes ||
            (p && pl->split_offset < buf->patch[p - 1].split_offset)) {
            return false;
        }
    }
    return true;
}

/*
 * The range of buf beginning at first (0, or a split offset): whole
 * packets (all the patch locations of one split_offset go together: a
 * COPY's source and destination) as long as their allocations fit
 * capacity with the state slots programmed before first and not
 * reprogrammed by first's own packet.
 */
static int split_from(const struct ddi_dmabuf *buf, const uint64_t *slot_size,
                      uint64_t capacity, uint32_t first,
                      struct vidmm_split_range *out)
{
    uint32_t state_slot[COPRO_TARGET_SLOTS + 1] = { 0 };  /* slot_id -> 1+
                                                            list slot */
    struct vidmm_split_range cur = { .first = first, .end = buf->len_bytes };
    unsigned p = 0;

    for (; p < buf->npatch && buf->patch[p].split_offset < first; p++) {
        if (buf->patch[p].slot_id) {
            state_slot[buf->patch[p].slot_id] = buf->patch[p].slot + 1;
        }
    }
    if (first && (p == buf->npatch || buf->patch[p].split_offset != first)) {
        return DDI_EINVAL;      /* not a split point */
    }
    for (unsigned q = p; q < buf->npatch &&
         buf->patch[q].split_offset == first; q++) {
        state_slot[buf->patch[q].slot_id] = 0;
    }
    for (unsigned k = 1; k <= COPRO_TARGET_SLOTS; k++) {
        uint32_t bit = state_slot[k] ? 1u << (state_slot[k] - 1) : 0;

        if (bit && !(cur.slots & bit)) {
            cur.slots |= bit;
            cur.bytes += slot_size[state_slot[k] - 1];
        }
    }
    while (p < buf->npatch) {
        uint32_t at = buf->patch[p].split_offset, slots = cur.slots;
        uint64_t bytes = cur.bytes;
        unsigned q = p;

        for (; q < buf->npatch && buf->patch[q].split_offset == at; q++) {
            uint32_t bit = 1u << buf->patch[q].slot;

            if (!(slots & bit)) {
                slots |= bit;
                bytes += slot_size[buf->patch[q].slot];
                if (bytes > capacity || bytes < slot_size[buf->patch[q].slot]) {
                    /* the packet does not fit: the range ends before it,
                     * unless it is the range's first (cannot split) */
                    if (at == first) {
                        return DDI_ENOMEM;
                    }
                    cur.end = at;
                    *out = cur;
                    return DDI_OK;
                }
            }
        }
        cur.slots = slots;
        cur.bytes = bytes;
        p = q;
    }
    *out = cur;
    return DDI_OK;
}

int vidmm_split(const struct ddi_dmabuf *buf, const uint64_t *slot_size,
                uint64_t capacity, struct vidmm_split_range *out,
                unsigned max, unsigned *nout)
{
    uint32_t first = 0;
    unsigned n = 0;

    if (!split_args_ok(buf) || !slot_size || !out || !nout || !max) {
        return DDI_EINVAL;
    }
    for (;;) {
        int rc;

        if (n == max) {
            return DDI_EINVAL;
        }
        rc = split_from(buf, slot_size, capacity, first, &out[n]);
        if (rc != DDI_OK) {
            return rc;
        }
        first = out[n++].end;
        if (first >= buf->len_bytes) {
            break;
        }
    }
    *nout = n;
    return DDI_OK;
}

/* vidmm's handle of list slot i: handles[i] (0: not vidmm's), or the
 * list's own handle without a map. */
static uint32_t slot_handle(const struct ddi_dmabuf *buf,
                            const uint32_t *handles, unsigned i)
{
    return handles ? handles[i] : buf->alloc[i].handle;
}

/* a's size as the VRAM allocator rounds it (pages, alignment) */
static uint64_t vram_rounded(const struct vm_alloc *a)
{
    uint64_t al = a->align > VIDMM_PAGE_SIZE ? a->align : VIDMM_PAGE_SIZE;

    return (a->size + al - 1) & ~(al - 1);
}

/* What a portion is planned with: each allocation's size as the VRAM
 * allocator rounds it (0 for a slot that is not vidmm's), and VRAM less
 * what is pinned there (those never make room) and less the DMA buffer's
 * own pages when it may only be in VRAM (every portion is made resident
 * with it, see vidmm.h). DDI_EHANDLE for an unknown handle. */
static int split_sizes(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                       const uint32_t *handles, uint32_t own,
                       uint64_t *slot_size, uint64_t *capacity)
{
    uint64_t pinned = 0, own_vram = 0;

    for (unsigned i = 0; i < buf->nalloc; i++) {
        uint32_t h = slot_handle(buf, handles, i);
        const struct vm_alloc *a = lookup(vm, h);

        if (!h) {
            slot_size[i] = 0;       /* fixed placement: costs nothing */
            continue;
        }
        if (!a) {
            return DDI_EHANDLE;
        }
        slot_size[i] = vram_rounded(a);
    }
    if (own) {
        const struct vm_alloc *a = lookup(vm, own);

        if (!a) {
            return DDI_EHANDLE;
        }
        /* (pinned in VRAM, it is counted below with the pinned) */
        if (!(a->segments & VIDMM_SEG_APERTURE) &&
            !(vm_state_pinned(&a->st) && a->st.where == VIDMM_IN_VRAM)) {
            own_vram = vram_rounded(a);
        }
    }
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        const struct vm_alloc *a = &vm->a[i];

        if (a->used && vm_state_pinned(&a->st) &&
            a->st.where == VIDMM_IN_VRAM) {
            pinned += pages_of(a->size) * VIDMM_PAGE_SIZE;
        }
    }
    pinned += own_vram;
    *capacity = vm->cfg.vram_size > pinned ? vm->cfg.vram_size - pinned : 0;
    return DDI_OK;
}

int vidmm_portion(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                  const uint32_t *handles, uint32_t own, uint32_t first,
                  struct vidmm_split_range *out)
{
    uint64_t slot_size[DDI_MAX_ALLOC_LIST], capacity;
    int rc;

    if (!vm || !out || !split_args_ok(buf) ||
        (first && first >= buf->len_bytes)) {
        return DDI_EINVAL;
    }
    rc = split_sizes(vm, buf, handles, own, slot_size, &capacity);
    return rc == DDI_OK ? split_from(buf, slot_size, capacity, first, out)
                        : rc;
}

bool vidmm_splittable(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                      const uint32_t *handles, uint32_t own)
{
    uint64_t slot_size[DDI_MAX_ALLOC_LIST], capacity;
    struct vidmm_split_range r = { 0 };
    unsigned n = 0;

    if (!vm || !split_args_ok(buf) ||
        split_sizes(vm, buf, handles, own, slot_size, &capacity) != DDI_OK) {
        return false;
    }
    /* every portion must fit, or none runs: a buffer half run and then
     * refused would leave its output half written */
    do {
        if (split_from(buf, slot_size, capacity, r.end, &r) != DDI_OK) {
            return false;
        }
        n++;
    } while (r.end < buf->len_bytes);
    return n > 1;
}

/* The sub-list of vidmm's slots in mask, in list order (k -> slot[k]). */
static unsigned sub_list(const struct ddi_dmabuf *buf, const uint32_t *handles,
                         uint32_t mask, struct ddi_alloc_ref *list,
                         unsigned *slot)
{
    unsigned n = 0;

    for (unsigned i = 0; i < buf->nalloc; i++) {
        uint32_t h = slot_handle(buf, handles, i);

        if ((mask & (1u << i)) && h) {
            list[n] = (struct ddi_alloc_ref){ h, buf->alloc[i].write };
            slot[n++] = i;
        }
    }
    return n;
}

int vidmm_make_resident_portion(struct vidmm *vm, uint32_t process,
                                const struct ddi_dmabuf *buf,
                                const uint32_t *handles,
                                struct ddi_alloc_desc *desc,
                                const struct vidmm_split_range *r,
                                bool patched, struct vidmm_residency *res)
{
    struct ddi_alloc_ref list[DDI_MAX_ALLOC_LIST];
    struct ddi_alloc_desc sub[DDI_MAX_ALLOC_LIST];
    unsigned slot[DDI_MAX_ALLOC_LIST], n;
    int rc;

    if (!vm || !buf || !desc || !r || buf->nalloc > DDI_MAX_ALLOC_LIST ||
        (buf->nalloc < 32 && (r->slots >> buf->nalloc))) {
        return DDI_EINVAL;
    }
    n = sub_list(buf, handles, r->slots, list, slot);
    for (unsigned k = 0; k < n; k++) {
        sub[k] = desc[slot[k]];
    }
    rc = vidmm_make_resident(vm, process, list, n, sub, patched, res);
    if (rc == DDI_OK) {
        /* only the portion's slots: the others' addresses are not
         * patched into this portion */
        for (unsigned k = 0; k < n; k++) {
            desc[slot[k]] = sub[k];
        }
    }
    return rc;
}

void vidmm_release_portion(struct vidmm *vm, const struct ddi_dmabuf *buf,
                           const uint32_t *handles, uint32_t slots,
                           unsigned engine, uint64_t fence)
{
    struct ddi_alloc_ref list[DDI_MAX_ALLOC_LIST];
    unsigned slot[DDI_MAX_ALLOC_LIST];

    if (vm && buf && buf->nalloc <= DDI_MAX_ALLOC_LIST) {
        vidmm_release(vm, list, sub_list(buf, handles, slots, list, slot),
                      engine, fence);
    }
}
