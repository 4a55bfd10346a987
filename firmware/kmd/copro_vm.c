/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_vm.h"

#include <stddef.h>

static uint64_t vram_read64(void *opaque, uint64_t off)
{
    struct copro_vm *vm = opaque;

    return *(volatile uint64_t *)copro_cp_cpu_ptr(vm->cp, off);
}

static void vram_write64(void *opaque, uint64_t off, uint64_t v)
{
    struct copro_vm *vm = opaque;

    *(volatile uint64_t *)copro_cp_cpu_ptr(vm->cp, off) = v;
}

static bool pool_alloc_table(void *opaque, uint64_t *off)
{
    struct copro_vm *vm = opaque;
    volatile uint64_t *t;

    if (vm->pool_used == vm->pool_tables) {
        return false;
    }
    *off = vm->pool + (uint64_t)vm->pool_used++ * COPRO_PT_TABLE_BYTES;
    /* A fresh table must read as all-invalid to the device. */
    t = (volatile uint64_t *)copro_cp_cpu_ptr(vm->cp, *off);
    for (unsigned i = 0; i < COPRO_PT_ENTRIES; i++) {
        t[i] = 0;
    }
    return true;
}

const char *copro_vm_init(struct copro_vm *vm, struct copro_cp *cp,
                          uint32_t ctx_entries, uint32_t pool_tables)
{
    struct copro *dev = cp->dev;
    uint64_t table;

    *vm = (struct copro_vm){ .cp = cp };
    if (!(dev->info.caps & COPRO_CAP_GPUVA)) {
        return "device has no per-context page tables";
    }
    if (ctx_entries == 0 || ctx_entries > COPRO_CTX_TABLE_MAX ||
        pool_tables == 0) {
        return "bad context-table or pool size";
    }
    vm->ctx_entry = copro_cp_alloc(cp, (uint64_t)ctx_entries * 8, 4096,
                                   &table);
    if (!vm->ctx_entry ||
        !copro_cp_alloc(cp, (uint64_t)pool_tables * COPRO_PT_TABLE_BYTES,
                        COPRO_PT_TABLE_BYTES, &vm->pool)) {
        return "out of VRAM for the context table and page tables";
    }
    for (uint32_t i = 0; i < ctx_entries; i++) {
        vm->ctx_entry[i] = 0;
    }
    vm->ctx_table = table;
    vm->ctx_entries = ctx_entries;
    vm->pool_tables = pool_tables;
    vm->mem = (struct copro_pt_mem){
        .opaque = vm,
        .vram_size = dev->info.vram_size,
        .read64 = vram_read64,
        .write64 = vram_write64,
        .alloc_table = pool_alloc_table,
    };
    /* Writing these drops every cached translation too. */
    copro_write64(dev, COPRO_REG_CTX_TABLE_BASE, table);
    copro_write32(dev, COPRO_REG_CTX_TABLE_SIZE, ctx_entries);
    if (copro_read64(dev, COPRO_REG_CTX_TABLE_BASE) != table ||
        copro_read32(dev, COPRO_REG_CTX_TABLE_SIZE) != ctx_entries) {
        return "context-table registers did not take";
    }
    return NULL;
}

const char *copro_as_create(struct copro_vm *vm, struct copro_as *as,
                            uint32_t context)
{
    *as = (struct copro_as){ .vm = vm, .context = context };
    if (context >= vm->ctx_entries) {
        return "context id beyond the context table";
    }
    if (!pool_alloc_table(vm, &as->root)) {
        return "out of page-table memory";
    }
    /* The root is complete (all invalid) before the entry points at it:
     * the device reads the context-table entry on every access. */
    vm->ctx_entry[context] = copro_ctx_entry(as->root);
    return NULL;
}

const char *copro_as_map(struct copro_as *as, uint64_t va, uint64_t target,
                         uint64_t bytes, uint64_t flags, uint64_t page_bytes)
{
    const struct copro_pt_mem *m = &as->vm->mem;

    if (page_bytes != COPRO_PAGE_4K && page_bytes != COPRO_PAGE_64K) {
        return "page size neither 4 KiB nor 64 KiB";
    }
    if (bytes == 0 || bytes % page_bytes) {
        return "size not a multiple of the page size";
    }
    for (uint64_t off = 0; off < bytes; off += page_bytes) {
        uint64_t pte = copro_pte_leaf(target + off, flags);
        const char *err = page_bytes == COPRO_PAGE_64K
            ? copro_pt_map_64k(m, as->root, va + off, pte)
            : copro_pt_map_4k(m, as->root, va + off, pte);

        if (err) {
            return err;
        }
    }
    return NULL;
}

const char *copro_as_leaf_slot(struct copro_as *as, uint64_t va,
                               uint64_t *slot)
{
    uint64_t bytes;

    return copro_pt_leaf_slot(&as->vm->mem, as->root, va, slot, &bytes);
}

bool copro_as_unmap(struct copro_as *as, uint64_t va)
{
    return copro_pt_unmap(&as->vm->mem, as->root, va);
}

void copro_as_walk(struct copro_as *as, uint64_t va, bool write,
                   struct copro_pt_walk *w)
{
    copro_pt_walk(&as->vm->mem, as->root, va, write, w);
}

void copro_vm_invalidate(struct copro_vm *vm, uint32_t context)
{
    copro_write32(vm->cp->dev, COPRO_REG_VM_INVAL, context);
}
