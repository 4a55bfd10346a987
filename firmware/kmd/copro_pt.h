/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU page-table arithmetic: GART entries, context-table entries, the
 * 3-level per-context page tables (4 KiB leaves, or 64 KiB leaves under a
 * level-1 entry with COPRO_PTE_64K), and a software walk that predicts
 * what the device's MMU will do with a VA (docs/specs/copro.rst, "GPU
 * memory").
 *
 * Pure C: the tables are reached through struct copro_pt_mem, so the
 * driver runs this code over VRAM (kmd/copro_vm.c) and the host unit
 * tests over an array (tests/unit/test-copro-pt.c). Every bit and
 * offset comes from include/copro/copro_regs.h.
 *
 * Levels follow WDDM (and the device's FAULT_INFO): 2 is the root, 0 the
 * leaf.
 */
#ifndef FW_KMD_COPRO_PT_H
#define FW_KMD_COPRO_PT_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#define COPRO_PT_TABLE_BYTES    4096u           /* every table, 4 KiB */
#define COPRO_PT_64K_ENTRIES    32u             /* a 64 KiB leaf table */
#define COPRO_PAGE_4K           4096ull
#define COPRO_PAGE_64K          65536ull
#define COPRO_VA_LIMIT          (1ull << COPRO_VA_BITS)

/* Leaf flags a caller may ask for; anything else is dropped. */
#define COPRO_PT_LEAF_FLAGS     (COPRO_PTE_WRITABLE | COPRO_PTE_APERTURE)

/* Index of va in its table at level (2 root: VA[38:30], 1: VA[29:21],
 * 0: VA[20:12]). */
static inline unsigned copro_pt_index(uint64_t va, unsigned level)
{
    return (unsigned)(va >> (12 + 9 * level)) & (COPRO_PT_ENTRIES - 1);
}

/* Index of va in a 64 KiB leaf table: VA[20:16]. */
static inline unsigned copro_pt_index_64k(uint64_t va)
{
    return (unsigned)(va >> 16) & (COPRO_PT_64K_ENTRIES - 1);
}

/* Bytes one entry of a level maps with 4 KiB leaves (1 GiB, 2 MiB, 4 KiB). */
static inline uint64_t copro_pt_level_span(unsigned level)
{
    return 1ull << (12 + 9 * level);
}

/* A leaf entry: target is a VRAM offset, or an aperture offset with
 * COPRO_PTE_APERTURE; its low 12 bits must be 0. */
static inline uint64_t copro_pte_leaf(uint64_t target, uint64_t flags)
{
    return (target & COPRO_PTE_ADDR_MASK) | COPRO_PTE_VALID |
           (flags & COPRO_PT_LEAF_FLAGS);
}

/* A non-leaf entry pointing at a table (a 64 KiB leaf table when big). */
static inline uint64_t copro_pde(uint64_t table, bool big)
{
    return (table & COPRO_PTE_ADDR_MASK) | COPRO_PTE_VALID |
           (big ? COPRO_PTE_64K : 0);
}

static inline uint64_t copro_pte_address(uint64_t entry)
{
    return entry & COPRO_PTE_ADDR_MASK;
}

/* Context-table entry giving a context the address space rooted at root. */
static inline uint64_t copro_ctx_entry(uint64_t root)
{
    return (root & COPRO_CTX_ROOT_MASK) | COPRO_CTX_VALID;
}

/* GART entry mapping one aperture page onto the guest page at gpa. */
static inline uint64_t copro_gart_entry(uint64_t gpa, bool writable)
{
    return (gpa & COPRO_GART_ADDR_MASK) | COPRO_GART_VALID |
           (writable ? COPRO_GART_WRITABLE : 0);
}

/* GPU address of aperture page index (aperture_base: APERTURE_BASE). */
static inline uint64_t copro_aperture_page(uint64_t aperture_base,
                                           uint32_t index)
{
    return aperture_base + (uint64_t)index * COPRO_GPU_PAGE_SIZE;
}

/* FAULT_INFO as the device reports it for a fault of these properties. */
static inline uint32_t copro_fault_info_make(bool write, bool protection,
                                             bool virt, unsigned level)
{
    return (write ? COPRO_FAULT_INFO_WRITE : 0) |
           (protection ? COPRO_FAULT_INFO_PROTECTION : 0) |
           (virt ? COPRO_FAULT_INFO_VIRTUAL : 0) |
           ((uint32_t)level << COPRO_FAULT_INFO_LEVEL_SHIFT);
}

/*
 * Where the tables live. Offsets are VRAM offsets; alloc_table returns a
 * zeroed, 4 KiB-aligned table of COPRO_PT_TABLE_BYTES (also used for the
 * 256-byte 64 KiB leaf tables: their address field is 4 KiB-grained).
 */
struct copro_pt_mem {
    void *opaque;
    uint64_t vram_size;     /* for the walk's TABLE and TRANSLATION checks */
    uint64_t (*read64)(void *opaque, uint64_t off);
    void (*write64)(void *opaque, uint64_t off, uint64_t v);
    bool (*alloc_table)(void *opaque, uint64_t *off);
};

/*
 * Maps the 4 KiB page at va (4 KiB-aligned, below 2^39) to leaf entry
 * pte, creating the level-1 and level-0 tables it needs. Refuses (and
 * writes nothing) when the 2 MiB region is already mapped with 64 KiB
 * pages. Returns NULL or why not.
 */
const char *copro_pt_map_4k(const struct copro_pt_mem *m, uint64_t root,
                            uint64_t va, uint64_t pte);

/*
 * Maps the 64 KiB page at va (64 KiB-aligned) to pte, whose address must
 * be 64 KiB-aligned. The 2 MiB region around va becomes a 64 KiB region:
 * refused if it already has a 4 KiB leaf table.
 */
const char *copro_pt_map_64k(const struct copro_pt_mem *m, uint64_t root,
                             uint64_t va, uint64_t pte);

/*
 * Finds the leaf entry that maps va without creating anything: *slot gets
 * its VRAM offset, *page_bytes 4 KiB or 64 KiB. The entry itself may be
 * invalid (that is how a mapping is found to fill in, or a COPY_PTE
 * destination computed). Returns NULL, or why there is no leaf table.
 */
const char *copro_pt_leaf_slot(const struct copro_pt_mem *m, uint64_t root,
                               uint64_t va, uint64_t *slot,
                               uint64_t *page_bytes);

/* Clears the leaf entry for va (the tables stay). False if none. */
bool copro_pt_unmap(const struct copro_pt_mem *m, uint64_t root,
                    uint64_t va);

/* The result of a software walk, as the device would see the access. */
struct copro_pt_walk {
    bool ok;
    uint64_t pa;            /* GPU physical address (aperture included) */
    uint64_t page_bytes;    /* 4 KiB or 64 KiB */
    bool writable;
    /* when !ok: what the device latches */
    uint32_t kind;          /* COPRO_FAULT_PAGE, _TABLE or _TRANSLATION */
    uint32_t info;          /* FAULT_INFO, VIRTUAL set */
};

/*
 * Translates va for a read or a write the way the device's MMU does
 * (without the GART step for aperture leaves, and without the context
 * table: root is the context's root table).
 */
void copro_pt_walk(const struct copro_pt_mem *m, uint64_t root, uint64_t va,
                   bool write, struct copro_pt_walk *w);

#endif /* FW_KMD_COPRO_PT_H */
