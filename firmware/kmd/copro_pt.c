/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_pt.h"

#include <stddef.h>

/* A table entry inside VRAM (the device faults TABLE otherwise). */
static bool entry_in_vram(const struct copro_pt_mem *m, uint64_t off)
{
    return m->vram_size >= 8 && off <= m->vram_size - 8 && !(off & 7);
}

/*
 * The level-1 entry's VRAM offset for va, creating the level-1 table if
 * create is set. NULL or why not.
 */
static const char *level1_slot(const struct copro_pt_mem *m, uint64_t root,
                               uint64_t va, bool create, uint64_t *slot)
{
    uint64_t at = root + copro_pt_index(va, 2) * 8;
    uint64_t ent, table;

    if (va >= COPRO_VA_LIMIT) {
        return "VA beyond 39 bits";
    }
    ent = m->read64(m->opaque, at);
    if (!(ent & COPRO_PTE_VALID)) {
        if (!create) {
            return "no level-1 table";
        }
        if (!m->alloc_table(m->opaque, &table)) {
            return "out of page-table memory";
        }
        ent = copro_pde(table, false);
        m->write64(m->opaque, at, ent);
    }
    *slot = copro_pte_address(ent) + copro_pt_index(va, 1) * 8;
    return NULL;
}

/* The leaf table under a level-1 entry, created as big (64 KiB) or not. */
static const char *leaf_table(const struct copro_pt_mem *m, uint64_t l1slot,
                              bool big, uint64_t *table)
{
    uint64_t ent = m->read64(m->opaque, l1slot);

    if (ent & COPRO_PTE_VALID) {
        if (!!(ent & COPRO_PTE_64K) != big) {
            return big ? "2 MiB region already has 4 KiB pages"
                       : "2 MiB region already has 64 KiB pages";
        }
        *table = copro_pte_address(ent);
        return NULL;
    }
    if (!m->alloc_table(m->opaque, table)) {
        return "out of page-table memory";
    }
    m->write64(m->opaque, l1slot, copro_pde(*table, big));
    return NULL;
}

const char *copro_pt_map_4k(const struct copro_pt_mem *m, uint64_t root,
                            uint64_t va, uint64_t pte)
{
    uint64_t l1, table;
    const char *err;

    if (va & (COPRO_PAGE_4K - 1)) {
        return "VA not 4 KiB-aligned";
    }
    err = level1_slot(m, root, va, true, &l1);
    if (!err) {
        err = leaf_table(m, l1, false, &table);
    }
    if (err) {
        return err;
    }
    m->write64(m->opaque, table + copro_pt_index(va, 0) * 8, pte);
    return NULL;
}

const char *copro_pt_map_64k(const struct copro_pt_mem *m, uint64_t root,
                             uint64_t va, uint64_t pte)
{
    uint64_t l1, table;
    const char *err;

    if (va & (COPRO_PAGE_64K - 1)) {
        return "VA not 64 KiB-aligned";
    }
    /* The device ignores the low address bits of a 64 KiB leaf; a driver
     * that sets them has a bug that would show as a silent alias. */
    if (copro_pte_address(pte) & (COPRO_PAGE_64K - 1)) {
        return "64 KiB page not 64 KiB-aligned";
    }
    err = level1_slot(m, root, va, true, &l1);
    if (!err) {
        err = leaf_table(m, l1, true, &table);
    }
    if (err) {
        return err;
    }
    m->write64(m->opaque, table + copro_pt_index_64k(va) * 8, pte);
    return NULL;
}

const char *copro_pt_leaf_slot(const struct copro_pt_mem *m, uint64_t root,
                               uint64_t va, uint64_t *slot,
                               uint64_t *page_bytes)
{
    uint64_t l1, ent;
    const char *err = level1_slot(m, root, va, false, &l1);

    if (err) {
        return err;
    }
    ent = m->read64(m->opaque, l1);
    if (!(ent & COPRO_PTE_VALID)) {
        return "no leaf table";
    }
    if (ent & COPRO_PTE_64K) {
        *slot = copro_pte_address(ent) + copro_pt_index_64k(va) * 8;
        *page_bytes = COPRO_PAGE_64K;
    } else {
        *slot = copro_pte_address(ent) + copro_pt_index(va, 0) * 8;
        *page_bytes = COPRO_PAGE_4K;
    }
    return NULL;
}

bool copro_pt_unmap(const struct copro_pt_mem *m, uint64_t root, uint64_t va)
{
    uint64_t slot, bytes;

    if (copro_pt_leaf_slot(m, root, va, &slot, &bytes)) {
        return false;
    }
    m->write64(m->opaque, slot, 0);
    return true;
}

static void walk_fault(struct copro_pt_walk *w, uint32_t kind, bool write,
                       bool protection, unsigned level)
{
    w->ok = false;
    w->kind = kind;
    w->info = copro_fault_info_make(write, protection, true, level);
}

void copro_pt_walk(const struct copro_pt_mem *m, uint64_t root, uint64_t va,
                   bool write, struct copro_pt_walk *w)
{
    uint64_t table = root, ent = 0, shift = 30, base;

    *w = (struct copro_pt_walk){ 0 };
    if (va >= COPRO_VA_LIMIT) {
        walk_fault(w, COPRO_FAULT_PAGE, write, false, COPRO_PT_LEVELS - 1);
        return;
    }
    for (int level = COPRO_PT_LEVELS - 1; level >= 0; level--) {
        uint64_t at = table + copro_pt_index(va, (unsigned)level) * 8;

        if (!entry_in_vram(m, at)) {
            walk_fault(w, COPRO_FAULT_TABLE, write, false, (unsigned)level);
            return;
        }
        ent = m->read64(m->opaque, at);
        if (!(ent & COPRO_PTE_VALID)) {
            walk_fault(w, COPRO_FAULT_PAGE, write, false, (unsigned)level);
            return;
        }
        if (level == 1 && (ent & COPRO_PTE_64K)) {
            at = copro_pte_address(ent) + copro_pt_index_64k(va) * 8;
            if (!entry_in_vram(m, at)) {
                walk_fault(w, COPRO_FAULT_TABLE, write, false, 0);
                return;
            }
            ent = m->read64(m->opaque, at);
            if (!(ent & COPRO_PTE_VALID)) {
                walk_fault(w, COPRO_FAULT_PAGE, write, false, 0);
                return;
            }
            shift = 16;
            break;
        }
        if (level) {
            table = copro_pte_address(ent);
            shift -= 9;
        }
    }
    if (write && !(ent & COPRO_PTE_WRITABLE)) {
        walk_fault(w, COPRO_FAULT_PAGE, write, true, 0);
        return;
    }
    base = copro_pte_address(ent) & ~((1ull << shift) - 1);
    if (!(ent & COPRO_PTE_APERTURE) && base >= m->vram_size) {
        walk_fault(w, COPRO_FAULT_TRANSLATION, write, false, 0);
        return;
    }
    w->ok = true;
    w->page_bytes = 1ull << shift;
    w->writable = ent & COPRO_PTE_WRITABLE;
    w->pa = ((ent & COPRO_PTE_APERTURE) ? COPRO_APERTURE_BASE : 0) + base +
            (va & ((1ull << shift) - 1));
}
