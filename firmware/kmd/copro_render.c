/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_render.h"

#include <stdbool.h>
#include <stddef.h>

#include "kmd/copro_dmabuf.h"

/* One GPU-address field of a packet and the access made through it. */
struct addr_field {
    unsigned dw;            /* its low dword, from the header */
    bool write;
    unsigned align;         /* the address must be a multiple of this */
    uint64_t bytes;         /* extent of the access from the address */
};

struct walk {
    const struct ddi_render_args *a;
    struct ddi_dmabuf *out;
    unsigned next_patch;    /* out->patch is sorted: the next to match */
    unsigned bound;         /* target slots bound since the last split
                               point (bit mask) */
    struct copro_render_diag *diag;
};

static int refuse(struct copro_render_diag *diag, int status,
                  uint32_t offset, const char *why)
{
    if (diag) {
        *diag = (struct copro_render_diag){ status, offset, why };
    }
    return status;
}

static uint64_t get64(const uint32_t *p, unsigned i)
{
    return (uint64_t)p[i] | ((uint64_t)p[i + 1] << 32);
}

static void sort_patches(struct ddi_patch_loc *p, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        struct ddi_patch_loc x = p[i];
        unsigned j = i;

        while (j > 0 && p[j - 1].patch_offset > x.patch_offset) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

/*
 * The address field f of the packet at off (dwords p): zero in the
 * buffer, and matched by the next patch location, which must name this
 * packet, hardware slot slot_id and an allocation that holds the access.
 */
static int check_field(struct walk *w, uint32_t off, const uint32_t *p,
                       const struct addr_field *f, uint32_t slot_id)
{
    struct ddi_dmabuf *out = w->out;
    uint32_t field = off + 4 * f->dw;
    const struct ddi_patch_loc *pl;
    uint64_t size;

    if (p[f->dw] || p[f->dw + 1]) {
        return refuse(w->diag, DDI_EINVAL, off, "an address field is not "
                      "zero (applications never supply addresses)");
    }
    if (w->next_patch == out->npatch ||
        out->patch[w->next_patch].patch_offset > field) {
        return refuse(w->diag, DDI_EINVAL, off,
                      "an address field has no patch location");
    }
    pl = &out->patch[w->next_patch];
    if (pl->patch_offset != field) {
        return refuse(w->diag, DDI_EINVAL, pl->patch_offset,
                      "a patch location is not on an address field");
    }
    w->next_patch++;
    if (pl->split_offset != off) {
        return refuse(w->diag, DDI_EINVAL, off, "a patch location's "
                      "split_offset is not the packet that uses it");
    }
    if (pl->slot_id != slot_id) {
        return refuse(w->diag, DDI_EINVAL, off, "a patch location's "
                      "slot_id is not the target slot its packet binds");
    }
    if (pl->slot >= out->nalloc) {
        return refuse(w->diag, DDI_EINVAL, off, "a patch location names "
                      "a slot beyond the allocation list");
    }
    if (f->write && !out->alloc[pl->slot].write) {
        return refuse(w->diag, DDI_EINVAL, off, "a packet writes an "
                      "allocation the list gives as read-only");
    }
    size = w->a->alloc_desc[pl->slot].size;
    if (f->bytes > size || pl->alloc_offset > size - f->bytes) {
        return refuse(w->diag, DDI_EBOUNDS, off, "an access runs past the "
                      "end of its allocation");
    }
    if (pl->alloc_offset % f->align) {
        return refuse(w->diag, DDI_EINVAL, off, "a 64-bit location is not "
                      "8-byte aligned");
    }
    return DDI_OK;
}

static int check_fields(struct walk *w, uint32_t off, const uint32_t *p,
                        const struct addr_field *f, unsigned n,
                        uint32_t slot_id)
{
    /* GPU-VA mode: the fields are the process's VAs, taken as they are;
     * the context's page tables confine them, so there is no list to
     * match and nothing to bound here (ddi_render_args.gpuva) */
    if (w->a->gpuva) {
        return DDI_OK;
    }
    /* A packet with patch locations is a split point: vidmm may end a
     * portion just before it and run paging buffers and other contexts
     * (which bind their own targets) before the rest. The rest starts
     * with nothing bound: a RECT after it needs a SET_TARGET after it
     * (the umd re-binds; the kernel never trusts that it did). */
    w->bound = 0;
    for (unsigned i = 0; i < n; i++) {
        int st = check_field(w, off, p, &f[i], slot_id);

        if (st != DDI_OK) {
            return st;
        }
    }
    return DDI_OK;
}

/* A packet of the tiling path (COPRO_RENDER_SCENE_OPS). */
static int check_scene_packet(struct walk *w, uint32_t off, const uint32_t *p,
                              unsigned op, unsigned flags)
{
    unsigned slot = flags & COPRO_TILER_SLOT_MASK;

    if (!w->a->gpuva) {
        return refuse(w->diag, DDI_EOPCODE, off, "scene-based rendering "
                      "needs GPU-VA mode");
    }
    switch (op) {
    case COPRO_OP_SCENE_BEGIN:
    case COPRO_OP_TILE_RENDER:
        /* the target is engine state: bound by this buffer, not left
         * behind by another context's */
        if (!(w->bound & (1u << slot))) {
            return refuse(w->diag, DDI_EINVAL, off, "scene target slot not "
                          "bound in this buffer");
        }
        if (get64(p, 1) & 7) {
            return refuse(w->diag, DDI_EINVAL, off, "parameter buffer not "
                          "8-byte aligned");
        }
        if (op == COPRO_OP_SCENE_BEGIN &&
            (p[3] > COPRO_PB_MAX || p[3] < copro_scene_heap_start(1))) {
            return refuse(w->diag, DDI_EINVAL, off, "parameter buffer size "
                          "out of range");
        }
        if (op == COPRO_OP_TILE_RENDER &&
            (!p[3] || p[3] > COPRO_TILER_MAX_TILES)) {
            return refuse(w->diag, DDI_EINVAL, off, "bad tile count");
        }
        return DDI_OK;
    case COPRO_OP_BIN_BLIT:
        return p[3] <= COPRO_BLIT_PITCH_MAX ? DDI_OK :
               refuse(w->diag, DDI_EINVAL, off, "blit pitch too large");
    default:
        return DDI_OK;
    }
}

/* The fields of one packet whose header and length are already valid. */
static int check_packet(struct walk *w, uint32_t off, const uint32_t *p,
                        unsigned op, unsigned flags)
{
    struct addr_field f[2];
    struct copro_surface surf;
    const char *why;
    uint64_t n;
    int st;

    switch (op) {
    case COPRO_OP_NOP:
        return DDI_OK;
    case COPRO_OP_TIMESTAMP:
    case COPRO_OP_FENCE:
    case COPRO_OP_WAIT:
        f[0] = (struct addr_field){ 1, op != COPRO_OP_WAIT, 8, 8 };
        return check_fields(w, off, p, f, 1, 0);
    case COPRO_OP_COPY:
        n = get64(p, 5);
        f[0] = (struct addr_field){ 1, true, 1, n };
        f[1] = (struct addr_field){ 3, false, 1, n };
        return check_fields(w, off, p, f, 2, 0);
    case COPRO_OP_FILL:
        n = get64(p, 3);
        if (n % 4) {
            return refuse(w->diag, DDI_EINVAL, off,
                          "FILL size not a multiple of 4");
        }
        f[0] = (struct addr_field){ 1, true, 1, n };
        return check_fields(w, off, p, f, 1, 0);
    case COPRO_OP_SET_TARGET:
        surf = (struct copro_surface){
            .pitch = p[3], .width = p[4], .height = p[5], .format = p[6],
        };
        why = copro_surface_check(&surf);
        if (why) {
            return refuse(w->diag, DDI_EINVAL, off, why);
        }
        f[0] = (struct addr_field){
            1, true, 1, (uint64_t)surf.pitch * surf.height,
        };
        st = check_fields(w, off, p, f, 1, flags);
        w->bound |= 1u << flags;    /* after the split point it starts */
        return st;
    case COPRO_OP_RECT:
        /* Bound targets are engine state that outlives a buffer and a
         * portion: a slot not bound since the last split point may hold
         * another process's surface. */
        if (!(w->bound & (1u << flags))) {
            return refuse(w->diag, DDI_EINVAL, off, "RECT on a target slot "
                          "not bound since the last split point");
        }
        return DDI_OK;
    case COPRO_OP_SCENE_BEGIN:
    case COPRO_OP_BIN_RECT:
    case COPRO_OP_BIN_BLIT:
    case COPRO_OP_SCENE_END:
    case COPRO_OP_TILE_RENDER:
        return check_scene_packet(w, off, p, op, flags);
    case COPRO_OP_WORK:
        n = get64(p, 1);
        if (n > COPRO_RENDER_MAX_WORK_NS - w->out->work_ns) {
            return refuse(w->diag, DDI_EINVAL, off, "more WORK than one "
                          "buffer may ask for");
        }
        w->out->work_ns += n;
        return DDI_OK;
    }
    return refuse(w->diag, DDI_EOPCODE, off, "opcode not allowed");
}

static int check_lists(const struct ddi_render_args *a,
                       struct copro_render_diag *diag)
{
    if (a->nalloc > DDI_MAX_ALLOC_LIST || a->npatch > DDI_MAX_PATCH_LIST) {
        return refuse(diag, DDI_EINVAL, UINT32_MAX,
                      "allocation or patch list too long");
    }
    if (a->gpuva && (a->nalloc || a->npatch)) {
        return refuse(diag, DDI_EINVAL, UINT32_MAX, "GPU-VA mode has no "
                      "allocation or patch-location list");
    }
    if ((a->nalloc && (!a->alloc || !a->alloc_desc)) ||
        (a->npatch && !a->patch)) {
        return refuse(diag, DDI_EINVAL, UINT32_MAX, "missing list");
    }
    for (unsigned i = 0; i < a->nalloc; i++) {
        for (unsigned j = 0; j < i; j++) {
            if (a->alloc[i].handle == a->alloc[j].handle) {
                return refuse(diag, DDI_EINVAL, UINT32_MAX, "an allocation "
                              "is listed twice");
            }
        }
    }
    return DDI_OK;
}

int copro_render_validate(const struct ddi_render_args *a,
                          uint32_t engine_ops, struct ddi_dmabuf *out,
                          struct copro_render_diag *diag)
{
    struct walk w = { .a = a, .out = out, .diag = diag };
    uint32_t len = a->cmd_bytes;
    int st;

    if (diag) {
        *diag = (struct copro_render_diag){ DDI_OK, UINT32_MAX, NULL };
    }
    if (len == 0 || len % 4 || !a->cmd) {
        return refuse(diag, DDI_EINVAL, UINT32_MAX, "empty buffer or size "
                      "not a multiple of 4");
    }
    if (len > out->cap_bytes || len > COPRO_DMA_MAX) {
        return refuse(diag, DDI_EINVAL, UINT32_MAX, "buffer larger than "
                      "the DMA buffer");
    }
    st = check_lists(a, diag);
    if (st != DDI_OK) {
        return st;
    }

    /* Validate the kernel's copy, never the application's buffer: what
     * was checked is then what the GPU runs. */
    for (uint32_t i = 0; i < len / 4; i++) {
        out->dw[i] = a->cmd[i];
    }
    out->len_bytes = len;
    out->engine = a->engine;
    out->nalloc = a->nalloc;
    for (unsigned i = 0; i < a->nalloc; i++) {
        out->alloc[i] = a->alloc[i];
    }
    out->npatch = a->npatch;
    for (unsigned i = 0; i < a->npatch; i++) {
        out->patch[i] = a->patch[i];
    }
    sort_patches(out->patch, out->npatch);
    out->work_ns = 0;

    for (uint32_t off = 0; off < len;) {
        const uint32_t *p = out->dw + off / 4;
        unsigned op = COPRO_PKT_OP(p[0]);
        unsigned flags = COPRO_PKT_FLAGS(p[0]);
        uint32_t ndw = COPRO_PKT_LEN(p[0]);

        if (op > COPRO_OP_LAST) {
            st = refuse(diag, DDI_EOPCODE, off, "unknown opcode");
        } else if (!((1u << op) & COPRO_RENDER_APP_OPS)) {
            st = refuse(diag, DDI_EOPCODE, off, "opcode reserved to the "
                        "kernel");
        } else if (!((1u << op) & engine_ops)) {
            st = refuse(diag, DDI_EOPCODE, off, "opcode not run by this "
                        "engine");
        } else if (ndw == 0 || ndw > (len - off) / 4) {
            st = refuse(diag, DDI_EINVAL, off, "packet length 0 or past the "
                        "end of the buffer");
        } else if (copro_packet_len(op) && ndw != copro_packet_len(op)) {
            st = refuse(diag, DDI_EINVAL, off, "wrong packet length");
        } else if (op == COPRO_OP_SET_TARGET || op == COPRO_OP_RECT) {
            st = flags < COPRO_TARGET_SLOTS ? DDI_OK :
                 refuse(diag, DDI_EINVAL, off, "target slot out of range");
        } else if (op == COPRO_OP_SCENE_BEGIN || op == COPRO_OP_TILE_RENDER) {
            unsigned known = COPRO_TILER_SLOT_MASK |
                             (op == COPRO_OP_SCENE_BEGIN ? COPRO_SCENE_CLEAR
                                                         : COPRO_TILE_PARTIAL);

            st = !(flags & ~known) ? DDI_OK :
                 refuse(diag, DDI_EINVAL, off, "packet flags not allowed");
        } else {
            st = flags == 0 ? DDI_OK :
                 refuse(diag, DDI_EINVAL, off, "packet flags not allowed");
        }
        if (st == DDI_OK) {
            st = check_packet(&w, off, p, op, flags);
        }
        if (st != DDI_OK) {
            return st;
        }
        off += ndw * 4;
    }
    if (w.next_patch != out->npatch) {
        return refuse(diag, DDI_EINVAL, out->patch[w.next_patch].patch_offset,
                      "a patch location is not on an address field");
    }
    return DDI_OK;
}

int copro_render_patch(struct ddi_dmabuf *buf,
                       const struct ddi_alloc_desc *alloc,
                       uint32_t first_byte, uint32_t end_byte)
{
    for (unsigned i = 0; i < buf->npatch; i++) {
        const struct ddi_patch_loc *pl = &buf->patch[i];
        uint64_t addr;

        if (pl->split_offset < first_byte || pl->split_offset >= end_byte) {
            continue;
        }
        if (pl->slot >= buf->nalloc || pl->patch_offset % 4 ||
            pl->patch_offset > buf->len_bytes ||
            buf->len_bytes - pl->patch_offset < 8) {
            return DDI_EINVAL;
        }
        addr = alloc[pl->slot].gpu_addr + pl->alloc_offset;
        buf->dw[pl->patch_offset / 4] = (uint32_t)addr;
        buf->dw[pl->patch_offset / 4 + 1] = (uint32_t)(addr >> 32);
    }
    return DDI_OK;
}
