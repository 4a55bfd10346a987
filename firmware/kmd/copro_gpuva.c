/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_gpuva.h"

#include <stddef.h>

#include "kmd/copro_ddi.h"
#include "kmd/copro_dmabuf.h"
#include "kmd/copro_pte_update.h"

const char *copro_gpuva_init(struct copro_gpuva *g, struct copro_cp *cp,
                             uint64_t aperture_size)
{
    const char *err;

    *g = (struct copro_gpuva){ .cp = cp, .aperture_size = aperture_size };
    err = copro_vm_init(&g->vm, cp, COPRO_GPUVA_CONTEXTS,
                        COPRO_GPUVA_TABLES);
    if (err) {
        return err;
    }
    if (!copro_cp_alloc(cp, (uint64_t)COPRO_GPUVA_STAGE * 8, 4096,
                        &g->stage)) {
        return "out of VRAM for the PTE staging ring";
    }
    return NULL;
}

static struct copro_gpuva *gv(void *drv)
{
    return ((struct copro_ddi *)drv)->gpuva;
}

static bool root_of(struct copro_gpuva *g, uint32_t as, uint64_t *root)
{
    if (!g || as == 0 || as > g->spaces) {
        return false;
    }
    *root = g->roots[as - 1];
    return true;
}

static int map_identity(struct copro_gpuva *g, uint64_t root, uint64_t from,
                        uint64_t to, uint64_t flags)
{
    for (uint64_t a = from; a < to; a += COPRO_PAGE_4K) {
        if (copro_pt_map_4k(&g->vm.mem, root, a, copro_pte_leaf(a, flags))) {
            return DDI_ENOMEM;
        }
    }
    return DDI_OK;
}

static int gv_space_create(void *drv, uint64_t os_base, uint64_t os_bytes,
                           uint64_t hole_base, uint64_t hole_bytes,
                           uint32_t *as)
{
    struct copro_gpuva *g = gv(drv);
    uint64_t root, end = os_base + os_bytes;
    int st;

    if (!g || !as || os_base % COPRO_PAGE_4K || os_bytes % COPRO_PAGE_4K ||
        hole_base % COPRO_PAGE_4K || hole_bytes % COPRO_PAGE_4K) {
        return DDI_EINVAL;
    }
    if (g->spaces == COPRO_GPUVA_SPACES ||
        !g->vm.mem.alloc_table(g->vm.mem.opaque, &root)) {
        return DDI_ENOMEM;
    }
    /* the OS's VRAM given, at identity, read-only (the engine only
     * fetches there; save areas: space_bind), and not the hole */
    if (hole_bytes && hole_base >= os_base && hole_base + hole_bytes <= end) {
        st = map_identity(g, root, os_base, hole_base, 0);
        if (st == DDI_OK) {
            st = map_identity(g, root, hole_base + hole_bytes, end, 0);
        }
    } else {
        st = map_identity(g, root, os_base, end, 0);
    }
    if (st != DDI_OK) {
        return st;      /* the pool's tables stay used: no free list */
    }
    g->roots[g->spaces++] = root;
    *as = g->spaces;
    return DDI_OK;
}

/* The save pages of a context: mapped at identity, writable, while it is
 * bound (the engine writes a preempted context's state there through the
 * context's space); unmapped again after (flags 0: unmap). The space maps
 * no other OS VRAM but what space_create was given. */
static int save_pages(struct copro_gpuva *g, uint64_t root, uint64_t save,
                      uint64_t bytes, uint64_t flags)
{
    if (save % COPRO_PAGE_4K || bytes % COPRO_PAGE_4K || bytes == 0 ||
        save + bytes < save || save + bytes > g->vm.mem.vram_size) {
        return DDI_EINVAL;
    }
    for (uint64_t a = save; a < save + bytes; a += COPRO_PAGE_4K) {
        if (!flags) {
            copro_pt_unmap(&g->vm.mem, root, a);
        } else if (copro_pt_map_4k(&g->vm.mem, root, a,
                                   copro_pte_leaf(a, flags))) {
            return DDI_ENOMEM;
        }
    }
    return DDI_OK;
}

static int gv_space_bind(void *drv, uint32_t as, uint32_t context,
                         uint64_t save, uint64_t save_bytes)
{
    struct copro_gpuva *g = gv(drv);
    uint64_t root;

    if (!root_of(g, as, &root) || context >= g->vm.ctx_entries ||
        save_pages(g, root, save, save_bytes, COPRO_PTE_WRITABLE)) {
        return DDI_EINVAL;
    }
    /* root complete before the entry points at it: the device reads the
     * context-table entry on every access (not cached) */
    g->vm.ctx_entry[context] = copro_ctx_entry(root);
    copro_vm_invalidate(&g->vm, context);
    return DDI_OK;
}

static void gv_space_unbind(void *drv, uint32_t as, uint32_t context,
                            uint64_t save, uint64_t save_bytes)
{
    struct copro_gpuva *g = gv(drv);
    uint64_t root;

    if (!root_of(g, as, &root) || context >= g->vm.ctx_entries) {
        return;
    }
    g->vm.ctx_entry[context] = 0;
    save_pages(g, root, save, save_bytes, 0);
    /* the save pages' writable translations may be cached: drop them
     * before the OS hands the pages to anything else */
    copro_vm_invalidate(&g->vm, context);
}

static int gv_space_reserve(void *drv, uint32_t as, uint64_t va,
                            uint64_t bytes)
{
    struct copro_gpuva *g = gv(drv);
    uint64_t root;

    if (!root_of(g, as, &root) || va % COPRO_PAGE_4K ||
        bytes % COPRO_PAGE_4K || bytes == 0 || va + bytes < va ||
        va + bytes > COPRO_VA_LIMIT) {
        return DDI_EINVAL;
    }
    /* an invalid leaf (entry 0) makes the tables and maps nothing */
    for (uint64_t a = va; a < va + bytes; a += COPRO_PAGE_4K) {
        if (copro_pt_map_4k(&g->vm.mem, root, a, 0)) {
            return DDI_ENOMEM;
        }
    }
    return DDI_OK;
}

static int gv_pte_update(void *drv, const struct ddi_pte_update *u,
                         unsigned n, struct ddi_dmabuf *out)
{
    struct copro_gpuva *g = gv(drv);
    struct copro_pte_stage stage;
    struct copro_dmabuf b;
    uint64_t root, pages = 0;
    const char *err;

    if (!g || !u || n == 0 || !out || out->len_bytes > out->cap_bytes ||
        !root_of(g, u[0].as, &root)) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < n; i++) {
        if (u[i].as != u[0].as || u[i].pages > COPRO_GPUVA_STAGE) {
            return DDI_EINVAL;
        }
        pages += u[i].pages;
    }
    if (pages > COPRO_GPUVA_STAGE) {
        return DDI_ENOMEM;
    }
    if (COPRO_GPUVA_STAGE - g->stage_next < pages) {
        g->stage_next = 0;      /* wrap: the oldest slots ran long ago */
    }
    stage = (struct copro_pte_stage){
        .vram = g->stage + (uint64_t)g->stage_next * 8,
        .entries = (uint32_t)(COPRO_GPUVA_STAGE - g->stage_next),
    };
    /* appended after what the OS's paging ops put there */
    copro_dmabuf_init(&b, (uint8_t *)out->dw + out->len_bytes,
                      out->gpu_addr + out->len_bytes,
                      out->cap_bytes - out->len_bytes);
    err = copro_pte_update_emit(&g->vm.mem, root, g->aperture_size, u, n,
                                &stage, &b, NULL);
    if (err) {
        return DDI_EINVAL;
    }
    if (!copro_dmabuf_ok(&b)) {
        return DDI_ENOMEM;
    }
    g->stage_next += stage.used;
    out->len_bytes += copro_dmabuf_bytes(&b);
    g->updates++;
    g->entries += stage.used;
    return DDI_OK;
}

const struct ddi_gpuva_ops copro_gpuva_ops = {
    .space_create = gv_space_create,
    .space_bind = gv_space_bind,
    .space_unbind = gv_space_unbind,
    .space_reserve = gv_space_reserve,
    .pte_update = gv_pte_update,
};
