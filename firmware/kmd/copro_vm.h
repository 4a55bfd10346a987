/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-context GPU virtual address spaces (WDDM's GpuMmu model): the
 * context table, one 3-level page table per context that has its own
 * address space, and translation-cache invalidation. The table-walking
 * logic is the pure kmd/copro_pt.c; this module owns the VRAM the tables
 * live in and the registers.
 *
 * Page tables come from one VRAM pool allocated up front and are handed
 * out 4 KiB at a time: the general VRAM allocator keeps a short list of
 * long-lived objects and would run out of slots on a table per page.
 *
 * A context without an address space (no valid context-table entry) runs
 * in the physical GPU address space, as the paging companion does.
 */
#ifndef FW_KMD_COPRO_VM_H
#define FW_KMD_COPRO_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_pt.h"

struct copro_vm {
    struct copro_cp *cp;
    uint64_t ctx_table;             /* VRAM offset */
    volatile uint64_t *ctx_entry;   /* CPU view */
    uint32_t ctx_entries;
    uint64_t pool;                  /* page-table pool, VRAM offset */
    uint32_t pool_tables;
    uint32_t pool_used;
    struct copro_pt_mem mem;        /* the tables as copro_pt sees them */
};

/* One context's address space. */
struct copro_as {
    struct copro_vm *vm;
    uint32_t context;
    uint64_t root;                  /* VRAM offset of the level-2 table */
};

/*
 * Allocates a context table of ctx_entries (all physical) and a pool of
 * pool_tables page tables in VRAM and programs the context table
 * registers. Returns NULL or why it failed.
 */
const char *copro_vm_init(struct copro_vm *vm, struct copro_cp *cp,
                          uint32_t ctx_entries, uint32_t pool_tables);

/*
 * Gives context its own (empty) address space: allocates a root table and
 * points the context's entry at it. Returns NULL or why not.
 */
const char *copro_as_create(struct copro_vm *vm, struct copro_as *as,
                            uint32_t context);

/*
 * Maps bytes (a multiple of the page size) at va onto the GPU-physical
 * range at target: a VRAM offset, or an aperture offset with
 * COPRO_PTE_APERTURE in flags (COPRO_PT_LEAF_FLAGS). 4 KiB or 64 KiB
 * pages. No invalidation: call copro_vm_invalidate before relying on a
 * changed entry. Returns NULL or why not.
 */
const char *copro_as_map(struct copro_as *as, uint64_t va, uint64_t target,
                         uint64_t bytes, uint64_t flags, uint64_t page_bytes);

/* VRAM offset of the leaf entry for va (for COPY_PTE); NULL or why not. */
const char *copro_as_leaf_slot(struct copro_as *as, uint64_t va,
                               uint64_t *slot);

/* Clears the leaf entry for va; false if none. */
bool copro_as_unmap(struct copro_as *as, uint64_t va);

/* Software translation, as the device would do it. */
void copro_as_walk(struct copro_as *as, uint64_t va, bool write,
                   struct copro_pt_walk *w);

/* VM_INVAL: drop context's cached translations (COPRO_VM_INVAL_ALL:
 * every context and the GART). */
void copro_vm_invalidate(struct copro_vm *vm, uint32_t context);

#endif /* FW_KMD_COPRO_VM_H */
