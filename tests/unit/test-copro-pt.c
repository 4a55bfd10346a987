/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the page-table helpers (firmware/kmd/copro_pt.c): entry
 * encodings and index arithmetic checked literally against the spec's bit
 * layout, table building over a fake VRAM, and the software walk against
 * the fault kinds and levels the device reports (docs/specs/copro.rst,
 * "GPU memory"; tests/qtest/copro-mmu-test.c checks the device).
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_regs.h>

#include "kmd/copro_pt.h"

#define VRAM_SIZE   (1u << 20)
#define POOL        0x10000u        /* tables come from here up */

static uint8_t vram[VRAM_SIZE];

struct fake {
    uint64_t next;
    unsigned tables_left;
    unsigned writes;
};

static uint64_t fake_read(void *o, uint64_t off)
{
    uint64_t v;

    (void)o;
    g_assert_cmpuint(off + 8, <=, VRAM_SIZE);
    memcpy(&v, vram + off, 8);
    return v;
}

static void fake_write(void *o, uint64_t off, uint64_t v)
{
    struct fake *f = o;

    g_assert_cmpuint(off + 8, <=, VRAM_SIZE);
    memcpy(vram + off, &v, 8);
    f->writes++;
}

static bool fake_alloc(void *o, uint64_t *off)
{
    struct fake *f = o;

    if (!f->tables_left) {
        return false;
    }
    f->tables_left--;
    *off = f->next;
    f->next += COPRO_PT_TABLE_BYTES;
    memset(vram + *off, 0, COPRO_PT_TABLE_BYTES);
    return true;
}

static struct fake fk;
static struct copro_pt_mem mem;
static const uint64_t root = 0x1000;

static void fresh(unsigned tables)
{
    memset(vram, 0xee, sizeof(vram));          /* garbage outside tables */
    memset(vram + root, 0, COPRO_PT_TABLE_BYTES);
    fk = (struct fake){ .next = POOL, .tables_left = tables };
    mem = (struct copro_pt_mem){
        .opaque = &fk, .vram_size = VRAM_SIZE, .read64 = fake_read,
        .write64 = fake_write, .alloc_table = fake_alloc,
    };
}

static void test_encodings(void)
{
    /* the spec's bits, literally: VALID 0, WRITABLE 1, APERTURE 2, 64K 3,
     * address 12-51 */
    g_assert_cmphex(copro_pte_leaf(0x123000, COPRO_PTE_WRITABLE), ==,
                    0x123003);
    g_assert_cmphex(copro_pte_leaf(0x123000, COPRO_PTE_APERTURE), ==,
                    0x123005);
    /* flags other than WRITABLE/APERTURE and low address bits dropped */
    g_assert_cmphex(copro_pte_leaf(0x123fff, COPRO_PTE_64K | 0x100), ==,
                    0x123001);
    g_assert_cmphex(copro_pte_leaf(0xfff0000000001000ull, 0), ==,
                    0x0000000000001001ull);
    g_assert_cmphex(copro_pde(0x5000, false), ==, 0x5001);
    g_assert_cmphex(copro_pde(0x5000, true), ==, 0x5009);
    g_assert_cmphex(copro_pte_address(0x8000000000123fffull), ==, 0x123000);
    g_assert_cmphex(copro_ctx_entry(0x3000), ==, 0x3001);
    g_assert_cmphex(copro_gart_entry(0x12345678fffull, true), ==,
                    0x12345678003ull);
    g_assert_cmphex(copro_gart_entry(0x7000, false), ==, 0x7001);
    g_assert_cmphex(copro_aperture_page(COPRO_APERTURE_BASE, 3), ==,
                    0x10000003000ull);
    g_assert_cmphex(copro_fault_info_make(true, false, true, 2), ==, 0x25);
    g_assert_cmphex(copro_fault_info_make(false, true, false, 3), ==, 0x32);
}

static void test_indices(void)
{
    /* VA 0x7f_c060_7000: [38:30] = 0x1ff, [29:21] = 3, [20:12] = 7 */
    const uint64_t va = 0x7fc0607000ull;

    g_assert_cmpuint(copro_pt_index(va, 2), ==, 0x1ff);
    g_assert_cmpuint(copro_pt_index(va, 1), ==, 3);
    g_assert_cmpuint(copro_pt_index(va, 0), ==, 7);
    /* 64 KiB leaf: VA[20:16] */
    g_assert_cmpuint(copro_pt_index_64k(0x40000000ull + 5 * 0x10000 + 0x1234),
                     ==, 5);
    g_assert_cmpuint(copro_pt_index_64k(0x401f0000ull), ==, 31);
    g_assert_cmpuint(copro_pt_level_span(0), ==, 4096);
    g_assert_cmpuint(copro_pt_level_span(1), ==, 2u << 20);
    g_assert_cmpuint(copro_pt_level_span(2), ==, 1u << 30);
}

static void test_map_4k(void)
{
    const uint64_t va = 0x40201000ull;     /* root 1, l1 1, l0 1 */
    struct copro_pt_walk w;
    uint64_t l1, l0, slot, bytes;

    fresh(8);
    g_assert_null(copro_pt_map_4k(&mem, root, va,
                                  copro_pte_leaf(0x80000,
                                                 COPRO_PTE_WRITABLE)));
    /* one level-1 and one level-0 table, linked at the right indices */
    g_assert_cmpuint(fk.next, ==, POOL + 2 * COPRO_PT_TABLE_BYTES);
    l1 = fake_read(NULL, root + 1 * 8);
    g_assert_cmphex(l1, ==, POOL | COPRO_PTE_VALID);
    l0 = fake_read(NULL, POOL + 1 * 8);
    g_assert_cmphex(l0, ==, (POOL + 0x1000) | COPRO_PTE_VALID);
    g_assert_cmphex(fake_read(NULL, POOL + 0x1000 + 1 * 8), ==, 0x80003);

    /* a neighbour in the same 2 MiB region reuses the tables */
    g_assert_null(copro_pt_map_4k(&mem, root, va + 0x1000,
                                  copro_pte_leaf(0x90000, 0)));
    g_assert_cmpuint(fk.next, ==, POOL + 2 * COPRO_PT_TABLE_BYTES);
    g_assert_null(copro_pt_leaf_slot(&mem, root, va + 0x1000, &slot,
                                     &bytes));
    g_assert_cmphex(slot, ==, POOL + 0x1000 + 2 * 8);
    g_assert_cmpuint(bytes, ==, 4096);

    copro_pt_walk(&mem, root, va + 0x123, true, &w);
    g_assert_true(w.ok);
    g_assert_cmphex(w.pa, ==, 0x80123);
    g_assert_cmpuint(w.page_bytes, ==, 4096);
    g_assert_true(w.writable);

    /* read-only page written: PAGE with PROTECTION, level 0 */
    copro_pt_walk(&mem, root, va + 0x1008, true, &w);
    g_assert_false(w.ok);
    g_assert_cmpuint(w.kind, ==, COPRO_FAULT_PAGE);
    g_assert_cmphex(w.info, ==, COPRO_FAULT_INFO_WRITE |
                    COPRO_FAULT_INFO_PROTECTION | COPRO_FAULT_INFO_VIRTUAL);
    copro_pt_walk(&mem, root, va + 0x1008, false, &w);
    g_assert_true(w.ok);
    g_assert_cmphex(w.pa, ==, 0x90008);

    g_assert_nonnull(copro_pt_map_4k(&mem, root, va + 8, 0x1001));
}

static void test_walk_levels(void)
{
    struct copro_pt_walk w;

    fresh(8);
    g_assert_null(copro_pt_map_4k(&mem, root, 0x40000000ull,
                                  copro_pte_leaf(0x2000, 0)));
    /* missing leaf entry: level 0 */
    copro_pt_walk(&mem, root, 0x40001000ull, false, &w);
    g_assert_false(w.ok);
    g_assert_cmpuint(w.kind, ==, COPRO_FAULT_PAGE);
    g_assert_cmphex(w.info, ==, COPRO_FAULT_INFO_VIRTUAL);
    /* missing level-0 table: level 1 */
    copro_pt_walk(&mem, root, 0x40200000ull, true, &w);
    g_assert_cmphex(w.info, ==, COPRO_FAULT_INFO_WRITE |
                    COPRO_FAULT_INFO_VIRTUAL |
                    (1u << COPRO_FAULT_INFO_LEVEL_SHIFT));
    /* missing level-1 table: level 2 */
    copro_pt_walk(&mem, root, 0x80000000ull, false, &w);
    g_assert_cmpuint(COPRO_FAULT_INFO_LEVEL(w.info), ==, 2);
    /* beyond 39 bits: level 2, nothing read */
    copro_pt_walk(&mem, root, 1ull << 39, false, &w);
    g_assert_cmpuint(w.kind, ==, COPRO_FAULT_PAGE);
    g_assert_cmpuint(COPRO_FAULT_INFO_LEVEL(w.info), ==, 2);
    g_assert_nonnull(copro_pt_map_4k(&mem, root, 1ull << 39, 0x1001));

    /* a level-1 table outside VRAM: TABLE at level 1 */
    fake_write(&fk, root + 3 * 8, copro_pde(4ull << 30, false));
    copro_pt_walk(&mem, root, 0xc0000000ull, false, &w);
    g_assert_cmpuint(w.kind, ==, COPRO_FAULT_TABLE);
    g_assert_cmpuint(COPRO_FAULT_INFO_LEVEL(w.info), ==, 1);
    /* a leaf pointing outside VRAM: TRANSLATION; into the aperture: fine */
    g_assert_null(copro_pt_map_4k(&mem, root, 0x40002000ull,
                                  copro_pte_leaf(8ull << 20, 0)));
    copro_pt_walk(&mem, root, 0x40002000ull, false, &w);
    g_assert_cmpuint(w.kind, ==, COPRO_FAULT_TRANSLATION);
    g_assert_null(copro_pt_map_4k(&mem, root, 0x40003000ull,
                                  copro_pte_leaf(8ull << 20,
                                                 COPRO_PTE_APERTURE)));
    copro_pt_walk(&mem, root, 0x40003010ull, false, &w);
    g_assert_true(w.ok);
    g_assert_cmphex(w.pa, ==, COPRO_APERTURE_BASE + (8ull << 20) + 0x10);

    /* unmap: the entry goes, the tables stay */
    g_assert_true(copro_pt_unmap(&mem, root, 0x40000000ull));
    copro_pt_walk(&mem, root, 0x40000000ull, false, &w);
    g_assert_cmpuint(COPRO_FAULT_INFO_LEVEL(w.info), ==, 0);
    g_assert_false(copro_pt_unmap(&mem, root, 0x80000000ull));
}

static void test_map_64k(void)
{
    const uint64_t va = 0x40000000ull + 3 * COPRO_PAGE_64K;
    struct copro_pt_walk w;
    uint64_t slot, bytes, l1;

    fresh(8);
    g_assert_null(copro_pt_map_64k(&mem, root, va,
                                   copro_pte_leaf(0x30000,
                                                  COPRO_PTE_WRITABLE)));
    l1 = fake_read(NULL, root + 1 * 8);
    g_assert_cmphex(fake_read(NULL, copro_pte_address(l1)), ==,
                    (POOL + 0x1000) | COPRO_PTE_VALID | COPRO_PTE_64K);
    g_assert_null(copro_pt_leaf_slot(&mem, root, va + 0x1234, &slot,
                                     &bytes));
    g_assert_cmphex(slot, ==, POOL + 0x1000 + 3 * 8);
    g_assert_cmpuint(bytes, ==, COPRO_PAGE_64K);
    g_assert_cmphex(fake_read(NULL, slot), ==, 0x30003);

    /* the offset inside the 64 KiB page is kept, 4 KiB bits included */
    copro_pt_walk(&mem, root, va + 0xabcd, true, &w);
    g_assert_true(w.ok);
    g_assert_cmphex(w.pa, ==, 0x30000 + 0xabcd);
    g_assert_cmpuint(w.page_bytes, ==, COPRO_PAGE_64K);
    /* an empty 64 KiB slot faults at level 0 */
    copro_pt_walk(&mem, root, va + COPRO_PAGE_64K, false, &w);
    g_assert_false(w.ok);
    g_assert_cmpuint(COPRO_FAULT_INFO_LEVEL(w.info), ==, 0);

    /* 4 KiB and 64 KiB pages do not mix in one 2 MiB region */
    g_assert_nonnull(copro_pt_map_4k(&mem, root, 0x40010000ull, 0x1001));
    g_assert_null(copro_pt_map_4k(&mem, root, 0x40200000ull,
                                  copro_pte_leaf(0x1000, 0)));
    g_assert_nonnull(copro_pt_map_64k(&mem, root, 0x40210000ull,
                                      copro_pte_leaf(0x20000, 0)));
    /* alignment of the VA and of the page */
    g_assert_nonnull(copro_pt_map_64k(&mem, root, va + 0x1000,
                                      copro_pte_leaf(0x30000, 0)));
    g_assert_nonnull(copro_pt_map_64k(&mem, root, va,
                                      copro_pte_leaf(0x31000, 0)));
}

static void test_out_of_tables(void)
{
    unsigned writes;

    fresh(1);
    writes = fk.writes;
    /* the level-1 table fits, the level-0 one does not */
    g_assert_nonnull(copro_pt_map_4k(&mem, root, 0x40000000ull, 0x5001));
    fresh(0);
    writes = fk.writes;
    g_assert_nonnull(copro_pt_map_4k(&mem, root, 0x40000000ull, 0x5001));
    g_assert_cmpuint(fk.writes, ==, writes);
    g_assert_cmphex(fake_read(NULL, root + 8), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-pt/encodings", test_encodings);
    g_test_add_func("/copro-pt/indices", test_indices);
    g_test_add_func("/copro-pt/map-4k", test_map_4k);
    g_test_add_func("/copro-pt/walk-levels", test_walk_levels);
    g_test_add_func("/copro-pt/map-64k", test_map_64k);
    g_test_add_func("/copro-pt/out-of-tables", test_out_of_tables);
    return g_test_run();
}
