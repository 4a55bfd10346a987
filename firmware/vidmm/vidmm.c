/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, packet-based mode: see vidmm.h for the model and its rules, and
 * vidmm_internal.h for how its files divide the work. This one: the
 * manager's storage and creation, and its figures.
 */
#include "vidmm/vidmm_internal.h"

#include <stddef.h>
#include <string.h>

static uint64_t round8(uint64_t v)
{
    return (v + 7) & ~(uint64_t)7;
}


uint64_t vidmm_storage_size(const struct vidmm_config *cfg)
{
    uint64_t n = round8(sizeof(struct vidmm));

    n += round8((uint64_t)cfg->max_allocs * sizeof(struct vm_alloc));
    n += 4 * round8((uint64_t)cfg->max_blocks * sizeof(struct vidmm_block));
    n += round8((uint64_t)cfg->max_allocs * sizeof(struct vidmm_block));
    n += round8((uint64_t)cfg->max_pages * sizeof(uint64_t));
    n += 2 * round8((uint64_t)cfg->max_blocks * sizeof(struct vm_unmap));
    return n;
}

struct vidmm *vidmm_create(void *storage, uint64_t storage_bytes,
                           const struct vidmm_config *cfg,
                           const struct vidmm_env *env,
                           struct ddi_device *dev)
{
    struct vidmm *vm = storage;
    uint8_t *p;
    struct vidmm_block *b[5];

    if (!storage || !cfg || !env || !env->alloc_sys_pages ||
        !env->free_sys_pages || ((uintptr_t)storage & 7) ||
        storage_bytes < vidmm_storage_size(cfg) || !cfg->max_allocs ||
        cfg->max_allocs >= (1u << HANDLE_INDEX_BITS) || cfg->max_blocks < 2 ||
        !cfg->vram_size || cfg->copy_engine >= DDI_MAX_ENGINES) {
        return NULL;
    }
    memset(storage, 0, vidmm_storage_size(cfg));
    p = (uint8_t *)storage + round8(sizeof(*vm));
    vm->a = (struct vm_alloc *)p;
    p += round8((uint64_t)cfg->max_allocs * sizeof(struct vm_alloc));
    for (unsigned i = 0; i < 4; i++) {
        b[i] = (struct vidmm_block *)p;
        p += round8((uint64_t)cfg->max_blocks * sizeof(struct vidmm_block));
    }
    b[4] = (struct vidmm_block *)p;
    p += round8((uint64_t)cfg->max_allocs * sizeof(struct vidmm_block));
    vm->page_pool = (uint64_t *)p;
    p += round8((uint64_t)cfg->max_pages * sizeof(uint64_t));
    vm->unmaps = (struct vm_unmap *)p;
    p += round8((uint64_t)cfg->max_blocks * sizeof(struct vm_unmap));
    vm->s_unmaps = (struct vm_unmap *)p;
    vm->max_unmap = cfg->max_blocks;
    vm->cfg = *cfg;
    vm->env = *env;
    vm->dev = dev;
    vidmm_segment_init(&vm->vram, cfg->vram_base, cfg->vram_size, NULL,
                       b[0], cfg->max_blocks);
    vidmm_segment_init(&vm->ap, cfg->aperture_base, cfg->aperture_size,
                       NULL, b[1], cfg->max_blocks);
    vidmm_segment_init(&vm->s_vram, cfg->vram_base, cfg->vram_size, NULL,
                       b[2], cfg->max_blocks);
    vidmm_segment_init(&vm->s_ap, cfg->aperture_base, cfg->aperture_size,
                       NULL, b[3], cfg->max_blocks);
    /* backing-page slices of the pool: a range allocator over indices */
    vidmm_segment_init(&vm->pages, 0, cfg->max_pages, NULL, b[4],
                       cfg->max_allocs);
    return vm;
}


uint64_t vidmm_vram_used(const struct vidmm *vm)
{
    return vm->vram.used_bytes;
}

uint64_t vidmm_aperture_used(const struct vidmm *vm)
{
    return vm->ap.used_bytes;
}

uint64_t vidmm_aperture_unmapping(const struct vidmm *vm)
{
    uint64_t bytes = 0;

    for (unsigned k = 0; k < vm->nunmap; k++) {
        bytes += vm->unmaps[k].size;
    }
    return bytes;
}

const struct vidmm_stats *vidmm_stats(const struct vidmm *vm)
{
    return &vm->stats;
}
