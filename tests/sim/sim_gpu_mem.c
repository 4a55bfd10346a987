/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model's memory: GPU addresses to host bytes (simulated VRAM and
 * the GART aperture's system pages), the harness's allocator, and vidmm's
 * paging buffers (the DDI's build_paging_buffer).
 */
#include "sim_gpu_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- memory ---- */

/*
 * The host bytes behind GPU address addr, and in *run how many of len
 * follow contiguously there (to VRAM's end, or the aperture page's);
 * NULL if addr is not backed (outside VRAM, unmapped aperture page).
 */
uint8_t *sim_xlate(const struct sim_gpu *g, uint64_t addr, uint64_t len,
                      uint64_t *run)
{
    uint64_t off, in, phys;

    if (addr < g->cfg.mem_size) {
        *run = len < g->cfg.mem_size - addr ? len : g->cfg.mem_size - addr;
        return g->mem + addr;
    }
    off = addr - g->cfg.aperture_base;
    if (!g->gart || addr < g->cfg.aperture_base ||
        off >= g->cfg.aperture_size) {
        return NULL;
    }
    phys = g->gart[off / COPRO_GPU_PAGE_SIZE];
    if (!phys) {
        return NULL;
    }
    in = off % COPRO_GPU_PAGE_SIZE;
    *run = len < COPRO_GPU_PAGE_SIZE - in ? len : COPRO_GPU_PAGE_SIZE - in;
    return g->sys + (phys - SIM_SYS_PHYS) + in;
}

bool sim_mem_ok(const struct sim_gpu *g, uint64_t addr, uint64_t len)
{
    uint64_t run = 0;

    if (addr <= g->cfg.mem_size && len <= g->cfg.mem_size - addr) {
        return true;
    }
    if (addr + len < addr) {
        return false;
    }
    while (len) {
        if (!sim_xlate(g, addr, len, &run)) {
            return false;
        }
        addr += run;
        len -= run;
    }
    return true;
}

/* Copies len bytes between the GPU address space and buf, piecewise
 * (the caller checked mem_ok). */
void sim_mem_copy(struct sim_gpu *g, uint64_t addr, void *buf,
                     uint64_t len, bool write)
{
    uint8_t *b = buf;
    uint64_t run = 0;

    while (len) {
        uint8_t *m = sim_xlate(g, addr, len, &run);

        if (write) {
            memcpy(m, b, run);
        } else {
            memcpy(b, m, run);
        }
        addr += run;
        b += run;
        len -= run;
    }
}

bool sim_discarded(const struct sim_gpu *g, uint64_t addr, uint64_t len)
{
    return g->cfg.discard_size && addr >= g->cfg.discard_base &&
           addr - g->cfg.discard_base <= g->cfg.discard_size &&
           len <= g->cfg.discard_size - (addr - g->cfg.discard_base);
}

bool sim_mem_read(struct sim_engine *e, uint64_t addr, void *buf,
                     uint64_t len)
{
    if (!sim_mem_ok(e->g, addr, len)) {
        sim_engine_fault(e, COPRO_FAULT_TRANSLATION, addr);
        return false;
    }
    sim_mem_copy(e->g, addr, buf, len, false);
    return true;
}

bool sim_mem_write(struct sim_engine *e, uint64_t addr, const void *buf,
                      uint64_t len)
{
    if (!sim_mem_ok(e->g, addr, len)) {
        sim_engine_fault(e, COPRO_FAULT_TRANSLATION, addr);
        return false;
    }
    sim_mem_copy(e->g, addr, (void *)buf, len, true);
    return true;
}

uint64_t sim_gpu_alloc(struct sim_gpu *g, uint64_t bytes, uint64_t align)
{
    uint64_t at = (g->mem_used + align - 1) & ~(align - 1);

    if (at > g->cfg.mem_size || bytes > g->cfg.mem_size - at) {
        return UINT64_MAX;
    }
    g->mem_used = at + bytes;
    memset(g->mem + at, 0, bytes);
    return at;
}

/* ---- paging (vidmm) ---- */

static bool gart_range_ok(const struct sim_gpu *g, uint64_t dst,
                          uint64_t size)
{
    return g->gart && size && !(dst % COPRO_GPU_PAGE_SIZE) &&
           !(size % COPRO_GPU_PAGE_SIZE) && dst >= g->cfg.aperture_base &&
           dst - g->cfg.aperture_base <= g->cfg.aperture_size &&
           size <= g->cfg.aperture_size - (dst - g->cfg.aperture_base);
}

static bool sys_page_ok(const struct sim_gpu *g, uint64_t phys)
{
    return phys >= SIM_SYS_PHYS && !(phys % COPRO_GPU_PAGE_SIZE) &&
           (phys - SIM_SYS_PHYS) / COPRO_GPU_PAGE_SIZE < g->sys_cap;
}

static bool range_overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
    return a < b + bn && b < a + an;
}

/* The DDI's ordering rules (ddi.h): a MAP acts at build time, so nothing
 * before it in the call may use its range; an UNMAP acts in buffer
 * order, so no transfer or fill after it may go through its range. */
static bool paging_order_ok(const struct ddi_paging_op *ops, unsigned nops)
{
    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *b = &ops[i];

        for (unsigned j = 0; j < i; j++) {
            const struct ddi_paging_op *a = &ops[j];

            if (b->kind == DDI_PAGING_MAP_APERTURE &&
                (range_overlaps(a->dst, a->size, b->dst, b->size) ||
                 (a->kind == DDI_PAGING_TRANSFER &&
                  range_overlaps(a->src, a->size, b->dst, b->size)))) {
                return false;
            }
            if (a->kind == DDI_PAGING_UNMAP_APERTURE &&
                (b->kind == DDI_PAGING_TRANSFER ||
                 b->kind == DDI_PAGING_FILL) &&
                (range_overlaps(a->dst, a->size, b->dst, b->size) ||
                 (b->kind == DDI_PAGING_TRANSFER &&
                  range_overlaps(a->dst, a->size, b->src, b->size)))) {
                return false;
            }
        }
    }
    return true;
}

/* [DxgkDdiBuildPagingBuffer] COPY for a transfer, FILL for a fill, GART
 * entries written now for a MAP, COPY_PTE of zero entries for an UNMAP
 * (in buffer order); a buffer with no packet gets one NOP. */
int sim_gpu_build_paging_buffer(void *drv, const struct ddi_paging_op *ops,
                                   unsigned nops, struct ddi_dmabuf *out)
{
    struct sim_gpu *g = drv;
    uint32_t need = 0;
    unsigned at = 0;

    if (!out || !out->dw || (nops && !ops) || nops > DDI_MAX_PAGING_OPS) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *o = &ops[i];

        switch (o->kind) {
        case DDI_PAGING_TRANSFER:
            need += COPRO_LEN_COPY * 4;
            if (!o->size) {
                return DDI_EINVAL;
            }
            break;
        case DDI_PAGING_FILL:
            need += COPRO_LEN_FILL * 4;
            if (!o->size || (o->size & 3)) {
                return DDI_EINVAL;
            }
            break;
        case DDI_PAGING_MAP_APERTURE:
            if (!gart_range_ok(g, o->dst, o->size) || !o->sys_pages) {
                return DDI_EINVAL;
            }
            for (uint64_t k = 0; k < o->size / COPRO_GPU_PAGE_SIZE; k++) {
                if (!sys_page_ok(g, o->sys_pages[k])) {
                    return DDI_EINVAL;
                }
            }
            break;
        case DDI_PAGING_UNMAP_APERTURE:
            if (!gart_range_ok(g, o->dst, o->size)) {
                return DDI_EINVAL;
            }
            need += (uint32_t)((o->size / COPRO_GPU_PAGE_SIZE +
                                SIM_GART_ZERO - 1) / SIM_GART_ZERO) *
                    COPRO_LEN_COPY_PTE * 4;
            break;
        default:
            return DDI_EINVAL;
        }
    }
    if (!paging_order_ok(ops, nops)) {
        return DDI_EINVAL;
    }
    if ((need ? need : 4) > out->cap_bytes) {
        return DDI_ENOMEM;
    }
    for (unsigned i = 0; i < nops; i++) {
        const struct ddi_paging_op *o = &ops[i];
        uint64_t first = (o->dst - g->cfg.aperture_base) / COPRO_GPU_PAGE_SIZE;

        switch (o->kind) {
        case DDI_PAGING_TRANSFER:
            at = sim_emit_copy(out->dw, at, o->dst, o->src, o->size);
            break;
        case DDI_PAGING_FILL:
            at = sim_emit_fill(out->dw, at, o->dst, o->size, o->value);
            break;
        case DDI_PAGING_MAP_APERTURE:
            for (uint64_t k = 0; k < o->size / COPRO_GPU_PAGE_SIZE; k++) {
                g->gart[first + k] = o->sys_pages[k];
            }
            g->gart_maps++;
            break;
        case DDI_PAGING_UNMAP_APERTURE:
            for (uint64_t k = 0; k < o->size / COPRO_GPU_PAGE_SIZE;
                 k += SIM_GART_ZERO) {
                uint64_t n = o->size / COPRO_GPU_PAGE_SIZE - k;

                if (n > SIM_GART_ZERO) {
                    n = SIM_GART_ZERO;
                }
                out->dw[at++] = COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0,
                                              COPRO_LEN_COPY_PTE);
                at = sim_put64(out->dw, at, g->gart_addr + (first + k) * 8);
                at = sim_put64(out->dw, at, g->gart_zero);
                out->dw[at++] = (uint32_t)n;
            }
            g->gart_unmaps++;
            break;
        }
    }
    if (!at) {
        at = sim_emit_nop(out->dw, 0, 1);
    }
    out->len_bytes = at * 4;
    out->npatch = 0;
    out->nalloc = 0;
    return DDI_OK;
}

bool sim_gpu_sys_alloc(struct sim_gpu *g, uint64_t *pages, unsigned n)
{
    if (n > g->nsys_free) {
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        pages[i] = SIM_SYS_PHYS +
                   (uint64_t)g->sys_free[--g->nsys_free] * COPRO_GPU_PAGE_SIZE;
    }
    return true;
}

void sim_gpu_sys_free(struct sim_gpu *g, const uint64_t *pages, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (sys_page_ok(g, pages[i]) && g->nsys_free < g->sys_cap) {
            g->sys_free[g->nsys_free++] =
                (uint32_t)((pages[i] - SIM_SYS_PHYS) / COPRO_GPU_PAGE_SIZE);
        }
    }
}

uint8_t *sim_gpu_sys_ptr(struct sim_gpu *g, uint64_t phys)
{
    return sys_page_ok(g, phys & ~(uint64_t)(COPRO_GPU_PAGE_SIZE - 1))
               ? g->sys + (phys - SIM_SYS_PHYS) : NULL;
}

bool sim_gpu_read(struct sim_gpu *g, uint64_t gpu_addr, void *buf,
                  uint64_t len)
{
    if (!sim_mem_ok(g, gpu_addr, len)) {
        return false;
    }
    sim_mem_copy(g, gpu_addr, buf, len, false);
    return true;
}

/* (Re)sizes the aperture and the system pages for cfg: the GART table
 * and its zero entries are the first simulated-VRAM allocations. */
void sim_aperture_init(struct sim_gpu *g, const struct sim_gpu_config *cfg)
{
    uint64_t gart = cfg->aperture_size / COPRO_GPU_PAGE_SIZE;

    g->gart = NULL;
    if (gart) {
        g->gart_addr = sim_gpu_alloc(g, gart * 8, COPRO_GPU_PAGE_SIZE);
        g->gart_zero = sim_gpu_alloc(g, SIM_GART_ZERO * 8,
                                     COPRO_GPU_PAGE_SIZE);
        if (g->gart_addr == UINT64_MAX || g->gart_zero == UINT64_MAX) {
            abort();
        }
        g->gart = (uint64_t *)(g->mem + g->gart_addr);
    }
    if (cfg->sys_pages > g->sys_cap) {
        free(g->sys);
        free(g->sys_free);
        g->sys = calloc(cfg->sys_pages, COPRO_GPU_PAGE_SIZE);
        g->sys_free = calloc(cfg->sys_pages, sizeof(uint32_t));
        g->sys_cap = cfg->sys_pages;
    }
    if (cfg->sys_pages && (!g->sys || !g->sys_free)) {
        abort();
    }
    g->nsys_free = 0;
    for (unsigned i = cfg->sys_pages; i > 0; i--) {
        g->sys_free[g->nsys_free++] = i - 1;
    }
    g->gart_maps = g->gart_unmaps = 0;
}
