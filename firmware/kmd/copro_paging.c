/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_paging.h"

#include <stdbool.h>
#include <stddef.h>

#include <copro/copro_regs.h>

#include "kmd/copro_dmabuf.h"

#define PG  ((uint64_t)COPRO_GPU_PAGE_SIZE)

/* Which part of the GPU address space a range lies in. */
enum seg {
    SEG_NONE,
    SEG_VRAM,
    SEG_APERTURE,
};

static uint64_t max_packet(const struct copro_paging_space *s)
{
    return s->max_packet_bytes ? s->max_packet_bytes
                               : COPRO_PAGING_MAX_PACKET_BYTES;
}

/* GART entries one COPY_PTE of an UNMAP clears (the packet's limit). */
static uint64_t zero_step(const struct copro_paging_space *s)
{
    return s->zero_count < COPRO_COPY_PTE_MAX ? s->zero_count
                                              : COPRO_COPY_PTE_MAX;
}

static uint64_t aperture_bytes(const struct copro_paging_space *s)
{
    return (uint64_t)s->aperture_pages * PG;
}

/* The segment [addr, addr + size) lies wholly in; SEG_NONE if it lies in
 * none, straddles two, or size is 0. Written without addr + size, which
 * could wrap. */
static enum seg segment_of(const struct copro_paging_space *s, uint64_t addr,
                           uint64_t size)
{
    if (size == 0) {
        return SEG_NONE;
    }
    if (size <= s->vram_size && addr <= s->vram_size - size) {
        return SEG_VRAM;
    }
    if (addr >= s->aperture_base && size <= aperture_bytes(s) &&
        addr - s->aperture_base <= aperture_bytes(s) - size) {
        return SEG_APERTURE;
    }
    return SEG_NONE;
}

static bool overlaps(uint64_t a, uint64_t asize, uint64_t b, uint64_t bsize)
{
    /* both ranges are checked not to wrap before this is called */
    return a < b + bsize && b < a + asize;
}

/* A MAP or UNMAP range: page-aligned, whole pages, in the aperture. */
static bool aperture_range_ok(const struct copro_paging_space *s,
                              const struct ddi_paging_op *op)
{
    return (op->dst % PG) == 0 && (op->size % PG) == 0 &&
           segment_of(s, op->dst, op->size) == SEG_APERTURE;
}

static bool map_pages_ok(const struct ddi_paging_op *op)
{
    uint64_t n = op->size / PG;

    if (!op->sys_pages) {
        return false;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t gpa = op->sys_pages[i];

        /* Page 0 is refused too: a zero address is how a caller's
         * uninitialised page list usually looks. */
        if (gpa == 0 || (gpa % PG) || (gpa & ~COPRO_GART_ADDR_MASK)) {
            return false;
        }
    }
    return true;
}

/* Does op (already checked) read or write aperture range [a, a + n)? */
static bool uses_aperture_range(const struct copro_paging_space *s,
                                const struct ddi_paging_op *op, uint64_t a,
                                uint64_t n)
{
    switch (op->kind) {
    case DDI_PAGING_TRANSFER:
        return (segment_of(s, op->src, op->size) == SEG_APERTURE &&
                overlaps(op->src, op->size, a, n)) ||
               (segment_of(s, op->dst, op->size) == SEG_APERTURE &&
                overlaps(op->dst, op->size, a, n));
    case DDI_PAGING_FILL:
        return segment_of(s, op->dst, op->size) == SEG_APERTURE &&
               overlaps(op->dst, op->size, a, n);
    default:
        return overlaps(op->dst, op->size, a, n);
    }
}

/* Does an UNMAP before ops[i] cover part of what ops[i] reaches through
 * the aperture? The GPU would run ops[i] after that UNMAP: a fault. */
static bool after_unmap(const struct copro_paging_space *s,
                        const struct ddi_paging_op *ops, unsigned i)
{
    for (unsigned j = 0; j < i; j++) {
        if (ops[j].kind == DDI_PAGING_UNMAP_APERTURE &&
            uses_aperture_range(s, &ops[i], ops[j].dst, ops[j].size)) {
            return true;
        }
    }
    return false;
}

/* DDI_OK or why op (the i-th) is refused. */
static int check_op(const struct copro_paging_space *s,
                    const struct ddi_paging_op *ops, unsigned i)
{
    const struct ddi_paging_op *op = &ops[i];
    enum seg src, dst;

    switch (op->kind) {
    case DDI_PAGING_TRANSFER:
        src = segment_of(s, op->src, op->size);
        dst = segment_of(s, op->dst, op->size);
        if (src == SEG_NONE || dst == SEG_NONE) {
            return DDI_EINVAL;
        }
        /* Packets go forward: only a move downwards is a memmove. */
        if (op->src < op->dst && op->dst - op->src < op->size) {
            return DDI_EINVAL;
        }
        return after_unmap(s, ops, i) ? DDI_EINVAL : DDI_OK;
    case DDI_PAGING_FILL:
        if ((op->size & 3) || segment_of(s, op->dst, op->size) == SEG_NONE) {
            return DDI_EINVAL;
        }
        return after_unmap(s, ops, i) ? DDI_EINVAL : DDI_OK;
    case DDI_PAGING_MAP_APERTURE:
        if (!aperture_range_ok(s, op) || !map_pages_ok(op)) {
            return DDI_EINVAL;
        }
        for (unsigned j = 0; j < i; j++) {
            if (uses_aperture_range(s, &ops[j], op->dst, op->size)) {
                return DDI_EINVAL;
            }
        }
        return DDI_OK;
    case DDI_PAGING_UNMAP_APERTURE:
        if (!aperture_range_ok(s, op)) {
            return DDI_EINVAL;
        }
        return s->zero_count ? DDI_OK : DDI_ENOTSUP;
    default:
        return DDI_EINVAL;
    }
}

int copro_paging_check(const struct copro_paging_space *s,
                       const struct ddi_paging_op *ops, unsigned nops,
                       unsigned *bad)
{
    unsigned dummy;

    bad = bad ? bad : &dummy;
    *bad = 0;
    /* a space COPY_PTE or FILL could not use is the driver's bug, but
     * still an error code, not a packet the device would refuse */
    if (nops > DDI_MAX_PAGING_OPS || (nops && !ops) ||
        (max_packet(s) & 3) ||
        (s->zero_count && ((s->gart_table | s->zero_entries) & 7))) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < nops; i++) {
        int rc = check_op(s, ops, i);

        if (rc != DDI_OK) {
            *bad = i;
            return rc;
        }
    }
    return DDI_OK;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

uint64_t copro_paging_bytes(const struct copro_paging_space *s,
                            const struct ddi_paging_op *ops, unsigned nops)
{
    uint64_t bytes = 0;

    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *op = &ops[i];

        switch (op->kind) {
        case DDI_PAGING_TRANSFER:
            bytes += div_up(op->size, max_packet(s)) * COPRO_LEN_COPY * 4;
            break;
        case DDI_PAGING_FILL:
            bytes += div_up(op->size, max_packet(s)) * COPRO_LEN_FILL * 4;
            break;
        case DDI_PAGING_UNMAP_APERTURE:
            if (s->zero_count) {
                bytes += div_up(op->size / PG, zero_step(s)) *
                         COPRO_LEN_COPY_PTE * 4;
            }
            break;
        default:
            break;
        }
    }
    return bytes;
}

static void emit_op(const struct copro_paging_space *s,
                    const struct ddi_paging_op *op, struct copro_dmabuf *b)
{
    uint64_t step = max_packet(s);

    switch (op->kind) {
    case DDI_PAGING_TRANSFER:
        for (uint64_t done = 0; done < op->size && copro_dmabuf_ok(b);
             done += step) {
            uint64_t n = op->size - done < step ? op->size - done : step;

            copro_emit_copy(b, op->dst + done, op->src + done, n);
        }
        break;
    case DDI_PAGING_FILL:
        for (uint64_t done = 0; done < op->size && copro_dmabuf_ok(b);
             done += step) {
            uint64_t n = op->size - done < step ? op->size - done : step;

            copro_emit_fill(b, op->dst + done, n, op->value);
        }
        break;
    case DDI_PAGING_UNMAP_APERTURE: {
        uint64_t first = copro_paging_first_page(s, op);
        uint64_t pages = op->size / PG;

        for (uint64_t done = 0; done < pages && copro_dmabuf_ok(b);
             done += zero_step(s)) {
            uint64_t n = pages - done < zero_step(s) ? pages - done
                                                     : zero_step(s);

            copro_emit_copy_pte(b, s->gart_table + (first + done) * 8,
                                s->zero_entries, (uint32_t)n);
        }
        break;
    }
    default:
        break;  /* MAP: done by the driver on the CPU */
    }
}

int copro_paging_translate(const struct copro_paging_space *s,
                           const struct ddi_paging_op *ops, unsigned nops,
                           struct ddi_dmabuf *out)
{
    struct copro_dmabuf b;
    int rc;

    if (!out) {
        return DDI_EINVAL;
    }
    out->len_bytes = 0;
    out->engine = COPRO_ENGINE_COPY;
    out->nalloc = 0;
    out->npatch = 0;
    out->work_ns = 0;
    rc = copro_paging_check(s, ops, nops, NULL);
    if (rc != DDI_OK) {
        return rc;
    }
    if (!out->dw || copro_paging_bytes(s, ops, nops) > out->cap_bytes) {
        return DDI_ENOMEM;
    }
    copro_dmabuf_init(&b, out->dw, out->gpu_addr, out->cap_bytes);
    for (unsigned i = 0; i < nops && copro_dmabuf_ok(&b); i++) {
        emit_op(s, &ops[i], &b);
    }
    if (!copro_dmabuf_ok(&b)) {
        /* only room can be short here: the check passed every field the
         * emitters look at (a cap above COPRO_DMA_MAX is capped there) */
        return DDI_ENOMEM;
    }
    out->len_bytes = copro_dmabuf_bytes(&b);
    return DDI_OK;
}
