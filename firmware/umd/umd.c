/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "umd/umd.h"

#include <stddef.h>

/* One address field of a packet about to be emitted. */
struct ref {
    uint32_t handle;
    uint64_t offset;
    bool write;
    unsigned dw;            /* its low dword, from the packet header */
};

static void clear_state(struct umd_cmdbuf *b)
{
    b->nalloc = 0;
    b->npatch = 0;
    b->error = NULL;
    b->splits = 0;
    b->rebinds = 0;
    for (unsigned i = 0; i < COPRO_TARGET_SLOTS; i++) {
        b->target[i].bound = false;
    }
}

void umd_init(struct umd_cmdbuf *b, uint32_t *storage, uint32_t bytes)
{
    copro_dmabuf_init(&b->enc, storage, 0, bytes);
    clear_state(b);
}

void umd_reset(struct umd_cmdbuf *b)
{
    copro_dmabuf_reset(&b->enc);
    clear_state(b);
}

static uint32_t refuse(struct umd_cmdbuf *b, const char *why)
{
    if (!b->error) {
        b->error = why;
    }
    return UMD_FAILED;
}

int umd_slot(struct umd_cmdbuf *b, uint32_t handle, bool write)
{
    for (unsigned i = 0; i < b->nalloc; i++) {
        if (b->alloc[i].handle == handle) {
            b->alloc[i].write |= write;
            return (int)i;
        }
    }
    if (b->nalloc == DDI_MAX_ALLOC_LIST) {
        return -1;
    }
    b->alloc[b->nalloc] = (struct ddi_alloc_ref){ handle, write };
    return (int)b->nalloc++;
}

/* Room for n more patch locations and every new handle among refs? */
static bool lists_fit(const struct umd_cmdbuf *b, const struct ref *refs,
                      unsigned n)
{
    unsigned new_handles = 0;

    if (b->npatch + n > DDI_MAX_PATCH_LIST) {
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        bool known = false;

        for (unsigned j = 0; j < b->nalloc && !known; j++) {
            known = b->alloc[j].handle == refs[i].handle;
        }
        for (unsigned j = 0; j < i && !known; j++) {
            known = refs[j].handle == refs[i].handle;
        }
        new_handles += !known;
    }
    return b->nalloc + new_handles <= DDI_MAX_ALLOC_LIST;
}

/*
 * Emitted the packet at off (or UMD_FAILED) with refs as its address
 * fields: records them, or takes the packet back if the lists are full.
 */
static uint32_t with_refs(struct umd_cmdbuf *b, uint32_t off,
                          const struct ref *refs, unsigned n,
                          uint32_t slot_id)
{
    if (off == UMD_FAILED) {
        return refuse(b, b->enc.error);
    }
    if (!lists_fit(b, refs, n)) {
        b->enc.len_dw = off / 4;
        b->enc.packets--;
        return refuse(b, "allocation or patch list full");
    }
    for (unsigned i = 0; i < n; i++) {
        b->patch[b->npatch++] = (struct ddi_patch_loc){
            .slot = (uint32_t)umd_slot(b, refs[i].handle, refs[i].write),
            .patch_offset = off + 4 * refs[i].dw,
            .alloc_offset = refs[i].offset,
            .split_offset = off,
            .slot_id = slot_id,
        };
    }
    b->splits += n > 0;
    return off;
}

static uint32_t plain(struct umd_cmdbuf *b, uint32_t off)
{
    return off == UMD_FAILED ? refuse(b, b->enc.error) : off;
}

uint32_t umd_nop(struct umd_cmdbuf *b, uint32_t ndw)
{
    return plain(b, copro_emit_nop(&b->enc, ndw));
}

uint32_t umd_timestamp(struct umd_cmdbuf *b, uint32_t h, uint64_t off)
{
    struct ref r = { h, off, true, 1 };

    return with_refs(b, copro_emit_timestamp(&b->enc, 0), &r, 1, 0);
}

uint32_t umd_fence(struct umd_cmdbuf *b, uint32_t h, uint64_t off,
                   uint64_t value)
{
    struct ref r = { h, off, true, 1 };

    return with_refs(b, copro_emit_fence(&b->enc, 0, value, false), &r, 1,
                     0);
}

uint32_t umd_wait(struct umd_cmdbuf *b, uint32_t h, uint64_t off,
                  uint64_t value)
{
    struct ref r = { h, off, false, 1 };

    return with_refs(b, copro_emit_wait(&b->enc, 0, value), &r, 1, 0);
}

uint32_t umd_copy(struct umd_cmdbuf *b, uint32_t dst, uint64_t dst_off,
                  uint32_t src, uint64_t src_off, uint64_t size)
{
    struct ref r[2] = { { dst, dst_off, true, 1 }, { src, src_off, false, 3 } };

    return with_refs(b, copro_emit_copy(&b->enc, 0, 0, size), r, 2, 0);
}

uint32_t umd_fill(struct umd_cmdbuf *b, uint32_t h, uint64_t off,
                  uint64_t size, uint32_t pattern)
{
    struct ref r = { h, off, true, 1 };

    return with_refs(b, copro_emit_fill(&b->enc, 0, size, pattern), &r, 1,
                     0);
}

uint32_t umd_set_target(struct umd_cmdbuf *b, unsigned slot, uint32_t h,
                        uint64_t off, uint32_t pitch, uint32_t width,
                        uint32_t height, uint32_t format)
{
    struct copro_surface s = {
        .addr = 0, .pitch = pitch, .width = width, .height = height,
        .format = format,
    };
    struct ref r = { h, off, true, 1 };
    uint32_t at = with_refs(b, copro_emit_set_target(&b->enc, slot, &s), &r,
                            1, slot);

    if (at != UMD_FAILED) {
        b->target[slot] = (struct umd_target){
            .bound = true, .handle = h, .off = off, .pitch = pitch,
            .width = width, .height = height, .format = format,
            .splits = b->splits,
        };
    }
    return at;
}

uint32_t umd_rect(struct umd_cmdbuf *b, unsigned slot, uint32_t x,
                  uint32_t y, uint32_t w, uint32_t h, uint32_t colour)
{
    uint32_t first = UMD_FAILED, at;

    if (slot < COPRO_TARGET_SLOTS && b->target[slot].bound &&
        b->target[slot].splits != b->splits) {
        /* a portion may start after the binding: bind again here, so the
         * RECT's portion patches the address it draws through */
        const struct umd_target t = b->target[slot];

        first = umd_set_target(b, slot, t.handle, t.off, t.pitch, t.width,
                               t.height, t.format);
        if (first == UMD_FAILED) {
            return UMD_FAILED;
        }
        b->rebinds++;
    }
    at = plain(b, copro_emit_rect(&b->enc, slot, x, y, w, h, colour));
    return at == UMD_FAILED || first == UMD_FAILED ? at : first;
}

uint32_t umd_work(struct umd_cmdbuf *b, uint64_t ns)
{
    return plain(b, copro_emit_work(&b->enc, ns));
}

uint32_t umd_va_fill(struct umd_cmdbuf *b, uint64_t va, uint64_t size,
                     uint32_t pattern)
{
    return plain(b, copro_emit_fill(&b->enc, va, size, pattern));
}

uint32_t umd_va_copy(struct umd_cmdbuf *b, uint64_t dst_va, uint64_t src_va,
                     uint64_t size)
{
    return plain(b, copro_emit_copy(&b->enc, dst_va, src_va, size));
}

uint32_t umd_va_timestamp(struct umd_cmdbuf *b, uint64_t va)
{
    return plain(b, copro_emit_timestamp(&b->enc, va));
}

uint32_t umd_va_set_target(struct umd_cmdbuf *b, unsigned slot, uint64_t va,
                           uint32_t pitch, uint32_t width, uint32_t height,
                           uint32_t format)
{
    struct copro_surface s = {
        .addr = va, .pitch = pitch, .width = width, .height = height,
        .format = format,
    };

    return plain(b, copro_emit_set_target(&b->enc, slot, &s));
}

uint32_t umd_va_scene_begin(struct umd_cmdbuf *b, unsigned slot, bool clear,
                            uint64_t pb_va, uint32_t pb_size,
                            uint32_t clear_colour)
{
    return plain(b, copro_emit_scene_begin(&b->enc, slot, clear, pb_va,
                                           pb_size, clear_colour));
}

uint32_t umd_bin_rect(struct umd_cmdbuf *b, uint32_t x, uint32_t y,
                      uint32_t w, uint32_t h, uint32_t colour)
{
    return plain(b, copro_emit_bin_rect(&b->enc, x, y, w, h, colour));
}

uint32_t umd_va_bin_blit(struct umd_cmdbuf *b, uint64_t src_va,
                         uint32_t pitch, uint32_t x, uint32_t y, uint32_t w,
                         uint32_t h)
{
    return plain(b, copro_emit_bin_blit(&b->enc, src_va, pitch, x, y, w, h));
}

uint32_t umd_scene_end(struct umd_cmdbuf *b)
{
    return plain(b, copro_emit_scene_end(&b->enc));
}

uint32_t umd_va_tile_render(struct umd_cmdbuf *b, unsigned slot,
                            bool partial, uint64_t pb_va, uint32_t tiles)
{
    return plain(b, copro_emit_tile_render(&b->enc, slot, partial, pb_va,
                                           tiles));
}
