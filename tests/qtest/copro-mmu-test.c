/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtest for copro's GPU memory: the GART aperture over guest memory,
 * per-context GPU virtual address spaces, translation caches and their
 * invalidation, COPY_PTE, GPU page faults with retry, and aperture DMA
 * behind intel-iommu (disabled and with a real second-level mapping).
 *
 * Every test runs with timing=instant: the engines run from the main loop
 * between qtest commands, so copro_run() just polls until they settle.
 *
 * One program past a thousand lines, as each of the device's qtests is:
 * one chapter of docs/specs/copro.rst (GPU memory), each rule a case over
 * one harness.
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "hw/i386/intel_iommu.h"
#include "hw/i386/intel_iommu_internal.h"
#include "copro-qtest.h"

/* VRAM layout (GPU physical addresses) */
#define RING0       0x0000ull
#define RING1       0x1000ull
#define RING_N      16
#define SCR         0x4000ull           /* fences */
#define BUF0        0x10000ull          /* engine 0 DMA buffers */
#define BUF1        0x20000ull          /* engine 1 DMA buffers */
#define GART        0x100000ull         /* GART: 64 Ki entries, 512 KiB */
#define CTXT        0x200000ull         /* context table */
#define PT          0x300000ull         /* page tables, 4 KiB each */
#define DATA        0x800000ull         /* data pages */
#define GART_N      65536u              /* entries for the 256 MiB default */
#define PG          4096ull

#define VA_BASE     0x40000000ull       /* VA window mapped by tests */

#define INFO_LEVEL(l)   ((l) << COPRO_FAULT_INFO_LEVEL_SHIFT)

static uint64_t fence_seq;

static void mmu_boot(Copro *c, const char *machine, const char *devopts)
{
    g_autofree char *opts = g_strdup_printf("timing=instant%s%s",
                                            *devopts ? "," : "", devopts);

    copro_boot(c, machine, opts);
    copro_ring_setup(c, 0, RING0, RING_N);
    copro_ring_setup(c, 1, RING1, RING_N);
    wr64(c, COPRO_REG_INT_MASK, ~0ull);
}

/* Copy @b to VRAM at @at, submit it on engine @e and run until settled. */
static uint32_t run_vram(Copro *c, unsigned e, uint64_t at, GArray *b,
                         uint32_t context)
{
    uint32_t len = copro_buf_put(c, at, b);

    copro_submit(c, e, at, len, ++fence_seq, context, 0);
    return copro_run(c, e);
}

/* Submit an already placed buffer at GPU (or context) address @addr. */
static uint32_t run_at(Copro *c, unsigned e, uint64_t addr, uint32_t len,
                       uint32_t context)
{
    copro_submit(c, e, addr, len, ++fence_seq, context, 0);
    return copro_run(c, e);
}

/* @b little-endian at guest-physical @gpa. */
static void guest_put_buf(Copro *c, uint64_t gpa, GArray *b)
{
    for (guint i = 0; i < b->len; i++) {
        qtest_writel(c->qts, gpa + i * 4, g_array_index(b, uint32_t, i));
    }
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = seed >> 16;
    }
}

static void vram_assert(Copro *c, uint64_t at, const uint8_t *want, size_t n)
{
    g_autofree uint8_t *got = g_malloc(n);

    vram_read(c, at, got, n);
    g_assert(memcmp(got, want, n) == 0);
}

static void guest_assert(Copro *c, uint64_t gpa, const uint8_t *want,
                         size_t n)
{
    g_autofree uint8_t *got = g_malloc(n);

    qtest_memread(c->qts, gpa, got, n);
    g_assert(memcmp(got, want, n) == 0);
}

/* Guest RAM, @pages 4 KiB pages, page-aligned. */
static uint64_t guest_pages(Copro *c, unsigned pages)
{
    uint64_t gpa = guest_alloc(&c->qs->alloc, pages * PG);

    g_assert_cmphex(gpa & (PG - 1), ==, 0);
    return gpa;
}

static void assert_fault(Copro *c, unsigned e, uint32_t kind, uint64_t addr,
                         uint32_t info, uint32_t context)
{
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_FAULT_KIND), ==, kind);
    g_assert_cmphex(erd64(c, e, COPRO_ENG_FAULT_ADDR), ==, addr);
    g_assert_cmphex(erd32(c, e, COPRO_ENG_FAULT_INFO), ==, info);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_FAULT_CONTEXT), ==, context);
    g_assert_cmpuint(erd64(c, e, COPRO_ENG_FAULT_FENCE), ==, fence_seq);
    g_assert_cmphex(rd64(c, COPRO_REG_INT_STATUS) &
                    COPRO_INT_ENG(e, COPRO_INT_FAULT), !=, 0);
}

static void engine_reset(Copro *c, unsigned e)
{
    ewr32(c, e, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
    wr64(c, COPRO_REG_INT_STATUS, ~0ull);
    g_assert_cmpuint(erd32(c, e, COPRO_ENG_STATE), ==, COPRO_ENG_STATE_IDLE);
}

/*
 * Page tables for the tests: a bump allocator of 4 KiB tables at PT, and
 * map/unmap of single pages in the context's 3-level table.
 */
typedef struct VmCtx {
    Copro *c;
    uint32_t id;
    uint64_t root;
} VmCtx;

static uint64_t pt_next;

static uint64_t pt_alloc(Copro *c)
{
    g_autofree uint8_t *zero = g_malloc0(PG);
    uint64_t t = PT + pt_next;

    pt_next += PG;
    g_assert_cmpuint(pt_next, <=, DATA - PT);
    vram_write(c, t, zero, PG);
    return t;
}

/* Context table of @n entries at CTXT, all without page tables. */
static void ctx_table_setup(Copro *c, uint32_t n)
{
    g_autofree uint64_t *zero = g_new0(uint64_t, n);

    pt_next = 0;
    vram_write(c, CTXT, zero, n * 8);
    wr64(c, COPRO_REG_CTX_TABLE_BASE, CTXT);
    wr32(c, COPRO_REG_CTX_TABLE_SIZE, n);
}

static VmCtx vm_new(Copro *c, uint32_t id)
{
    VmCtx v = { .c = c, .id = id, .root = pt_alloc(c) };

    vram_w64(c, CTXT + id * 8, v.root | COPRO_CTX_VALID);
    return v;
}

/* VRAM address of the level-0 entry for @va, creating tables. */
static uint64_t vm_pte_addr(VmCtx *v, uint64_t va)
{
    uint64_t table = v->root;

    for (int level = 2; level > 0; level--) {
        uint64_t at = table + ((va >> (12 + 9 * level)) & 511) * 8;
        uint64_t ent = vram_r64(v->c, at);

        if (!(ent & COPRO_PTE_VALID)) {
            ent = pt_alloc(v->c) | COPRO_PTE_VALID;
            vram_w64(v->c, at, ent);
        }
        table = ent & COPRO_PTE_ADDR_MASK;
    }
    return table + ((va >> 12) & 511) * 8;
}

static uint64_t pte(uint64_t target, bool writable, bool aperture)
{
    return target | COPRO_PTE_VALID | (writable ? COPRO_PTE_WRITABLE : 0) |
           (aperture ? COPRO_PTE_APERTURE : 0);
}

/* Map VA page @va to VRAM page @pa (or aperture offset with @aperture). */
static void vm_map(VmCtx *v, uint64_t va, uint64_t pa, bool writable,
                   bool aperture)
{
    vram_w64(v->c, vm_pte_addr(v, va), pte(pa, writable, aperture));
}

/*
 * Registers
 */

static void test_regs(void)
{
    Copro c;

    mmu_boot(&c, "-M q35", "");
    g_assert_cmphex(rd32(&c, COPRO_REG_CAPS) &
                    (COPRO_CAP_GART | COPRO_CAP_GPUVA), ==,
                    COPRO_CAP_GART | COPRO_CAP_GPUVA);
    g_assert_cmphex(rd64(&c, COPRO_REG_APERTURE_SIZE), ==, 256 * MiB);
    g_assert_cmphex(rd64(&c, COPRO_REG_APERTURE_BASE), ==,
                    COPRO_APERTURE_BASE);
    g_assert_cmphex(rd64(&c, COPRO_REG_GART_BASE), ==, 0);
    wr64(&c, COPRO_REG_GART_BASE, GART + 0x123);
    g_assert_cmphex(rd64(&c, COPRO_REG_GART_BASE), ==, GART);
    wr32(&c, COPRO_REG_GART_ENTRIES, GART_N + 1);     /* too many */
    g_assert_cmpuint(rd32(&c, COPRO_REG_GART_ENTRIES), ==, 0);
    wr32(&c, COPRO_REG_GART_ENTRIES, GART_N);
    g_assert_cmpuint(rd32(&c, COPRO_REG_GART_ENTRIES), ==, GART_N);
    wr32(&c, COPRO_REG_CTX_TABLE_SIZE, COPRO_CTX_TABLE_MAX + 1);
    g_assert_cmpuint(rd32(&c, COPRO_REG_CTX_TABLE_SIZE), ==, 0);
    wr64(&c, COPRO_REG_CTX_TABLE_BASE, CTXT);
    wr32(&c, COPRO_REG_CTX_TABLE_SIZE, 16);
    g_assert_cmphex(rd64(&c, COPRO_REG_CTX_TABLE_BASE), ==, CTXT);
    g_assert_cmpuint(rd32(&c, COPRO_REG_CTX_TABLE_SIZE), ==, 16);
    g_assert_cmpuint(rd32(&c, COPRO_REG_GART_INVAL), ==, 0);   /* WO */
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_TLB_HITS), ==, 0);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_TLB_MISSES), ==, 0);
    copro_shutdown(&c);

    mmu_boot(&c, "-M q35", "aperture=0");
    g_assert_cmphex(rd32(&c, COPRO_REG_CAPS) & COPRO_CAP_GART, ==, 0);
    g_assert_cmphex(rd64(&c, COPRO_REG_APERTURE_SIZE), ==, 0);
    wr32(&c, COPRO_REG_GART_ENTRIES, 1);
    g_assert_cmpuint(rd32(&c, COPRO_REG_GART_ENTRIES), ==, 0);
    copro_shutdown(&c);

    mmu_boot(&c, "-M q35", "aperture=1M");
    g_assert_cmphex(rd64(&c, COPRO_REG_APERTURE_SIZE), ==, 1 * MiB);
    copro_shutdown(&c);
}

/*
 * Aperture
 */

/*
 * COPY VRAM -> aperture -> VRAM across scattered guest pages (mapped in
 * reverse order, unaligned ends), FILL and FENCE into the aperture, a
 * RECT whose target lives in the aperture.
 */
static void test_aperture_copy(void)
{
    const unsigned n = 4;
    const uint64_t len = n * PG - 100;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(len);
    g_autofree uint8_t *want = g_malloc(PG);
    uint64_t gpa;

    mmu_boot(&c, "-M q35", "");
    gpa = guest_pages(&c, n + 2);
    copro_gart_setup(&c, GART, GART_N);
    for (unsigned i = 0; i < n + 2; i++) {
        copro_gart_map(&c, GART, 10 + i, gpa + (n + 1 - i) * PG, true);
    }
    fill_pattern(src, len, 1);
    vram_write(&c, DATA, src, len);

    copro_pkt_copy(b, copro_aperture(10) + 50, DATA, len);
    copro_pkt_copy(b, DATA + 0x10000, copro_aperture(10) + 50, len);
    copro_pkt_fill(b, copro_aperture(15), 64, 0xa5a5a5a5);
    copro_pkt_fence(b, copro_aperture(15) + 0x100, 0x1122334455667788ull, 0);
    copro_pkt_set_target(b, 0, copro_aperture(15) + 0x200, 64, 16, 4,
                         COPRO_FMT_R8);
    copro_pkt_rect(b, 0, 2, 1, 4, 2, 0x7e);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, b, 1), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, fence_seq);

    vram_assert(&c, DATA + 0x10000, src, len);
    /* aperture page 10 + i is guest page n + 1 - i */
    guest_assert(&c, gpa + (n + 1) * PG + 50, src, PG - 50);
    guest_assert(&c, gpa + n * PG, src + PG - 50, PG);
    guest_assert(&c, gpa + 2 * PG, src + 3 * PG - 50, len - (3 * PG - 50));
    memset(want, 0xa5, 64);
    guest_assert(&c, gpa, want, 64);
    g_assert_cmphex(qtest_readq(c.qts, gpa + 0x100), ==,
                    0x1122334455667788ull);
    for (unsigned y = 0; y < 4; y++) {
        uint8_t row[16];

        qtest_memread(c.qts, gpa + 0x200 + y * 64, row, 16);
        for (unsigned x = 0; x < 16; x++) {
            g_assert_cmpuint(row[x], ==,
                             (y >= 1 && y < 3 && x >= 2 && x < 6) ? 0x7e
                                                                  : 0);
        }
    }
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_TLB_MISSES), >, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_TLB_HITS), >, 0);
    copro_shutdown(&c);
}

/*
 * The ring, the DMA buffer and the fence write-back all in the aperture.
 */
static void test_aperture_ring(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    struct copro_submit_desc d;
    uint64_t gpa;

    mmu_boot(&c, "-M q35", "");
    gpa = guest_pages(&c, 3);
    copro_gart_setup(&c, GART, GART_N);
    for (unsigned i = 0; i < 3; i++) {
        copro_gart_map(&c, GART, i, gpa + i * PG, true);
    }
    copro_ring_setup(&c, 0, copro_aperture(0), RING_N);
    ewr64(&c, 0, COPRO_ENG_FENCE_WB,
          (copro_aperture(2) + 8) | COPRO_FENCE_WB_ENABLE);
    copro_pkt_fence(b, copro_aperture(2), 0xfeed, 0);
    guest_put_buf(&c, gpa + PG, b);
    d = copro_desc(copro_aperture(1), copro_buf_bytes(b), 77, 3, 0);
    d.dma_addr = cpu_to_le64(d.dma_addr);
    d.dma_len = cpu_to_le32(d.dma_len);
    d.fence = cpu_to_le64(d.fence);
    d.context = cpu_to_le32(d.context);
    qtest_memwrite(c.qts, gpa, &d, sizeof(d));
    ewr32(&c, 0, COPRO_ENG_RING_TAIL, 1);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 77);
    g_assert_cmphex(qtest_readq(c.qts, gpa + 2 * PG), ==, 0xfeed);
    g_assert_cmphex(qtest_readq(c.qts, gpa + 2 * PG + 8), ==, 77);
    copro_shutdown(&c);
}

/*
 * GART changes are ignored while cached, until an invalidation covering
 * the entry (a range, or the whole table).
 */
static void test_aperture_stale(const void *data)
{
    const bool whole = GPOINTER_TO_INT(data);
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    uint64_t gpa;

    mmu_boot(&c, "-M q35", "");
    gpa = guest_pages(&c, 2);
    qtest_writeq(c.qts, gpa, 0xaaaa);
    qtest_writeq(c.qts, gpa + PG, 0xbbbb);
    copro_gart_setup(&c, GART, GART_N);
    copro_gart_map(&c, GART, 7, gpa, true);
    copro_pkt_copy(b, SCR, copro_aperture(7), 8);
    run_vram(&c, 0, BUF0, b, 0);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0xaaaa);

    /* remapped without invalidation: the cached entry is still used */
    copro_gart_map(&c, GART, 7, gpa + PG, true);
    run_at(&c, 0, BUF0, copro_buf_bytes(b), 0);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0xaaaa);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_TLB_HITS), ==, 1);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_TLB_MISSES), ==, 1);

    /* a range that does not cover entry 7 changes nothing */
    copro_gart_inval(&c, 8, 100);
    run_at(&c, 0, BUF0, copro_buf_bytes(b), 0);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0xaaaa);
    /* neither do context invalidations */
    wr32(&c, COPRO_REG_VM_INVAL, 0);

    if (whole) {
        copro_gart_inval(&c, 0, 0);
    } else {
        copro_gart_inval(&c, 7, 1);
    }
    run_at(&c, 0, BUF0, copro_buf_bytes(b), 0);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0xbbbb);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_TLB_MISSES), ==, 2);

    /* engine 1 has its own cache: it sees the table as it is now */
    run_vram(&c, 1, BUF1, b, 0);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0xbbbb);
    g_assert_cmpuint(erd64(&c, 1, COPRO_ENG_STAT_TLB_MISSES), ==, 1);
    copro_shutdown(&c);
}

/*
 * Per-context address spaces
 */

/*
 * Context 5 maps VA pages onto VRAM (4 KiB pages and a 64 KiB page) and
 * onto the aperture; its DMA buffer, its fences and its COPY operands are
 * virtual. Context 6 (no page table) and context 99 (beyond the table)
 * keep using physical addresses.
 */
static void test_va_translate(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) p = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(3 * PG);
    g_autofree uint8_t *big = g_malloc(64 * KiB);
    VmCtx v;
    uint64_t gpa, l1, t64, va64 = VA_BASE + 0x200000;

    mmu_boot(&c, "-M q35", "");
    gpa = guest_pages(&c, 1);
    copro_gart_setup(&c, GART, GART_N);
    copro_gart_map(&c, GART, 3, gpa, true);
    ctx_table_setup(&c, 16);
    v = vm_new(&c, 5);

    /* VA_BASE + 0..2: DMA buffer page, then source pages (scattered) */
    vm_map(&v, VA_BASE, BUF0 + 0x8000, false, false);
    vm_map(&v, VA_BASE + PG, DATA + 5 * PG, false, false);
    vm_map(&v, VA_BASE + 2 * PG, DATA + 2 * PG, false, false);
    vm_map(&v, VA_BASE + 3 * PG, DATA + 9 * PG, false, false);
    vm_map(&v, VA_BASE + 8 * PG, DATA + 0x20000, true, false);
    vm_map(&v, VA_BASE + 9 * PG, DATA + 0x21000, true, false);
    vm_map(&v, VA_BASE + 10 * PG, DATA + 0x22000, true, false);
    vm_map(&v, VA_BASE + 11 * PG, 3 * PG, true, true);     /* aperture */

    /* a 64 KiB page: level-1 entry with the 64K flag, 32-entry table */
    t64 = pt_alloc(&c);
    l1 = vram_r64(&c, v.root + ((va64 >> 30) & 511) * 8) &
         COPRO_PTE_ADDR_MASK;
    vram_w64(&c, l1 + ((va64 >> 21) & 511) * 8,
             t64 | COPRO_PTE_VALID | COPRO_PTE_64K);
    vram_w64(&c, t64 + 3 * 8, pte(DATA + 0x100000, true, false));
    for (unsigned i = 0; i < 16; i++) {
        vm_map(&v, VA_BASE + (16 + i) * PG, DATA + 0x40000 + i * PG, false,
               false);
    }

    fill_pattern(src, 3 * PG, 2);
    vram_write(&c, DATA + 5 * PG, src, PG);
    vram_write(&c, DATA + 2 * PG, src + PG, PG);
    vram_write(&c, DATA + 9 * PG, src + 2 * PG, PG);
    fill_pattern(big, 64 * KiB, 3);
    vram_write(&c, DATA + 0x40000, big, 64 * KiB);

    copro_pkt_copy(b, VA_BASE + 8 * PG + 16, VA_BASE + PG + 16,
                   3 * PG - 32);
    copro_pkt_copy(b, VA_BASE + 11 * PG, VA_BASE + PG, 256);
    copro_pkt_fence(b, VA_BASE + 10 * PG + 0xff8, 0x5a5a, 0);
    copro_pkt_copy(b, va64 + 3 * 64 * KiB, VA_BASE + 16 * PG, 64 * KiB);
    copro_buf_put(&c, BUF0 + 0x8000, b);
    g_assert_cmpuint(run_at(&c, 0, VA_BASE, copro_buf_bytes(b), 5), ==,
                     COPRO_ENG_STATE_IDLE);
    vram_assert(&c, DATA + 0x20000 + 16, src + 16, PG - 16);
    vram_assert(&c, DATA + 0x21000, src + PG, PG);
    vram_assert(&c, DATA + 0x22000, src + 2 * PG, PG - 16);
    guest_assert(&c, gpa, src, 256);
    g_assert_cmphex(vram_r64(&c, DATA + 0x22ff8), ==, 0x5a5a);
    vram_assert(&c, DATA + 0x100000, big, 64 * KiB);

    /* context 6 (no page table) and 99 (beyond the table): physical */
    copro_pkt_fence(p, SCR, 0x66, 0);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, p, 6), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x66);
    g_array_set_size(p, 0);
    copro_pkt_fence(p, SCR, 0x99, 0);
    g_assert_cmpuint(run_vram(&c, 1, BUF1, p, 99), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x99);
    copro_shutdown(&c);
}

/*
 * Leaf entries of a context are cached until VM_INVAL names the context
 * (or all); invalidating another context or the GART does not help.
 */
static void test_va_stale(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    VmCtx v;

    mmu_boot(&c, "-M q35", "");
    copro_gart_setup(&c, GART, GART_N);
    ctx_table_setup(&c, 16);
    v = vm_new(&c, 5);
    vram_w64(&c, DATA, 0x1111);
    vram_w64(&c, DATA + PG, 0x2222);
    vm_map(&v, VA_BASE, DATA, false, false);
    vm_map(&v, VA_BASE + 0x200000, SCR, true, false);
    copro_pkt_copy(b, VA_BASE + 0x200000, VA_BASE, 8);
    copro_buf_put(&c, BUF0, b);
    vm_map(&v, VA_BASE + 0x100000, BUF0, false, false);
    run_at(&c, 0, VA_BASE + 0x100000, copro_buf_bytes(b), 5);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x1111);

    vm_map(&v, VA_BASE, DATA + PG, false, false);
    run_at(&c, 0, VA_BASE + 0x100000, copro_buf_bytes(b), 5);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x1111);
    wr32(&c, COPRO_REG_VM_INVAL, 4);
    copro_gart_inval(&c, 0, 0);
    run_at(&c, 0, VA_BASE + 0x100000, copro_buf_bytes(b), 5);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x1111);
    wr32(&c, COPRO_REG_VM_INVAL, 5);
    run_at(&c, 0, VA_BASE + 0x100000, copro_buf_bytes(b), 5);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x2222);

    /* and back, with the invalidate-all value */
    vm_map(&v, VA_BASE, DATA, false, false);
    wr32(&c, COPRO_REG_VM_INVAL, COPRO_VM_INVAL_ALL);
    run_at(&c, 0, VA_BASE + 0x100000, copro_buf_bytes(b), 5);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x1111);
    copro_shutdown(&c);
}

/*
 * Faults: one case per kind and cause. Each runs a one-packet buffer in
 * VRAM for context 5 (whose page table maps VA_BASE read-only to DATA,
 * VA_BASE + PG writable to aperture page 1, which is GART-mapped
 * read-only) and checks every latched field.
 */
typedef struct FaultCase {
    const char *name;
    unsigned engine;
    uint32_t context;       /* 5: page table, 6: physical */
    bool write;             /* FENCE (write) or WAIT (read) */
    uint64_t addr;          /* the address the packet uses */
    uint32_t kind;
    uint32_t info;          /* expected FAULT_INFO without WRITE */
    void (*setup)(Copro *c, VmCtx *v);
} FaultCase;

#define AP(i)   (COPRO_APERTURE_BASE + (i) * PG)

static void setup_gart_far(Copro *c, VmCtx *v)
{
    wr64(c, COPRO_REG_GART_BASE, 64 * MiB - PG);    /* runs off VRAM */
    wr32(c, COPRO_REG_GART_ENTRIES, 1024);
}

static void setup_ctx_far(Copro *c, VmCtx *v)
{
    wr64(c, COPRO_REG_CTX_TABLE_BASE, 64 * MiB - 8);
}

static void setup_pde_far(Copro *c, VmCtx *v)
{
    vram_w64(c, v->root + 2 * 8, (128 * MiB) | COPRO_PTE_VALID);
}

static void setup_guest_hole(Copro *c, VmCtx *v)
{
    copro_gart_map(c, GART, 2, 1ull << 45, true);   /* no RAM there */
}

static void setup_leaf_far(Copro *c, VmCtx *v)
{
    vm_map(v, VA_BASE + 2 * PG, 512 * MiB, true, false);
}

static const FaultCase fault_cases[] = {
    { "phys/beyond-vram", 0, 6, true, 64 * MiB, COPRO_FAULT_TRANSLATION, 0 },
    { "phys/beyond-aperture", 1, 6, false, AP(65536),
      COPRO_FAULT_TRANSLATION, 0 },
    { "phys/below-aperture", 0, 6, false, COPRO_APERTURE_BASE - 8,
      COPRO_FAULT_TRANSLATION, 0 },
    { "gart/invalid", 0, 6, false, AP(0) + 8, COPRO_FAULT_GART, 0 },
    { "gart/beyond-table", 1, 6, true, AP(300), COPRO_FAULT_GART, 0 },
    { "gart/read-only", 0, 6, true, AP(1) + 16, COPRO_FAULT_GART,
      COPRO_FAULT_INFO_PROTECTION },
    { "gart/table-off-vram", 0, 6, false, AP(600), COPRO_FAULT_TABLE, 0,
      setup_gart_far },
    { "dma/no-ram", 1, 6, true, AP(2), COPRO_FAULT_DMA, 0,
      setup_guest_hole },
    { "va/level2", 0, 5, false, 0x8000000000ull - 8, COPRO_FAULT_PAGE,
      COPRO_FAULT_INFO_VIRTUAL | INFO_LEVEL(2) },
    { "va/level1", 0, 5, true, VA_BASE + 0x10000000, COPRO_FAULT_PAGE,
      COPRO_FAULT_INFO_VIRTUAL | INFO_LEVEL(1) },
    { "va/level0", 1, 5, false, VA_BASE + 5 * PG, COPRO_FAULT_PAGE,
      COPRO_FAULT_INFO_VIRTUAL | INFO_LEVEL(0) },
    { "va/beyond-39-bits", 0, 5, false, 1ull << 39, COPRO_FAULT_PAGE,
      COPRO_FAULT_INFO_VIRTUAL | INFO_LEVEL(2) },
    { "va/read-only", 1, 5, true, VA_BASE + 8, COPRO_FAULT_PAGE,
      COPRO_FAULT_INFO_VIRTUAL | COPRO_FAULT_INFO_PROTECTION },
    { "va/aperture-read-only", 0, 5, true, VA_BASE + PG + 8,
      COPRO_FAULT_GART, COPRO_FAULT_INFO_VIRTUAL |
      COPRO_FAULT_INFO_PROTECTION },
    { "va/leaf-off-vram", 0, 5, true, VA_BASE + 2 * PG + 8,
      COPRO_FAULT_TRANSLATION, COPRO_FAULT_INFO_VIRTUAL, setup_leaf_far },
    { "va/table-off-vram", 1, 5, false, 0x80000000ull, COPRO_FAULT_TABLE,
      COPRO_FAULT_INFO_VIRTUAL | INFO_LEVEL(1), setup_pde_far },
    { "va/context-table-off-vram", 0, 5, false, VA_BASE, COPRO_FAULT_TABLE,
      COPRO_FAULT_INFO_VIRTUAL | INFO_LEVEL(3), setup_ctx_far },
};

static void fault_setup(Copro *c, VmCtx *v)
{
    uint64_t gpa = guest_pages(c, 1);

    copro_gart_setup(c, GART, 256);
    copro_gart_map(c, GART, 1, gpa, false);
    ctx_table_setup(c, 16);
    *v = vm_new(c, 5);
    vm_map(v, VA_BASE, DATA, false, false);
    vm_map(v, VA_BASE + PG, PG, true, true);
}

static void test_fault(const void *data)
{
    const FaultCase *fc = data;
    const unsigned e = fc->engine;
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    VmCtx v;
    QDict *rsp, *dev, *lf;

    mmu_boot(&c, "-M q35", "");
    fault_setup(&c, &v);
    if (fc->setup) {
        fc->setup(&c, &v);
    }
    if (fc->write) {
        copro_pkt_fence(b, fc->addr, 1, 0);
    } else {
        copro_pkt_wait(b, fc->addr, 0);
    }
    /* the buffer is physical; for context 5 it is mapped at VA 0x1000 */
    vm_map(&v, 0x1000, e ? BUF1 : BUF0, false, false);
    copro_buf_put(&c, e ? BUF1 : BUF0, b);
    g_assert_cmpuint(run_at(&c, e, fc->context == 5 ? 0x1000 :
                            (e ? BUF1 : BUF0), copro_buf_bytes(b),
                            fc->context), ==, COPRO_ENG_STATE_HALTED);
    if (fc->kind == COPRO_FAULT_TABLE &&
        COPRO_FAULT_INFO_LEVEL(fc->info) == 3) {
        /* the DMA buffer fetch itself faults */
        assert_fault(&c, e, fc->kind, 0x1000, fc->info, fc->context);
    } else {
        assert_fault(&c, e, fc->kind, fc->addr,
                     fc->info | (fc->write ? COPRO_FAULT_INFO_WRITE : 0),
                     fc->context);
    }
    g_assert_cmpuint(erd32(&c, e, COPRO_ENG_FAULT_OFFSET), ==, 0);
    g_assert_cmpuint(erd64(&c, e, COPRO_ENG_STAT_FAULTS), ==, 1);

    dev = copro_query(&c, &rsp);
    lf = qdict_get_qdict(dev, "last-fault");
    g_assert_nonnull(lf);
    g_assert_cmpint(qdict_get_int(lf, "engine"), ==, e);
    g_assert_cmpint(qdict_get_int(lf, "context"), ==, fc->context);
    g_assert_cmpint(qdict_get_int(lf, "fence"), ==, fence_seq);
    g_assert_cmpint(qdict_get_int(lf, "level"), ==,
                    COPRO_FAULT_INFO_LEVEL(fc->info));
    g_assert_cmpint(qdict_get_bool(lf, "write"), ==, fc->write);
    g_assert_cmpint(qdict_get_bool(lf, "protection"), ==,
                    !!(fc->info & COPRO_FAULT_INFO_PROTECTION));
    qobject_unref(rsp);

    /* recovery by engine reset: the engine runs again */
    engine_reset(&c, e);
    wr64(&c, COPRO_REG_CTX_TABLE_BASE, CTXT);
    g_array_set_size(b, 0);
    copro_pkt_fence(b, SCR, 0xd0e, 0);
    g_assert_cmpuint(run_vram(&c, e, e ? BUF1 : BUF0, b, 6), ==,
                     COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0xd0e);
    copro_shutdown(&c);
}

/*
 * RETRY: fix the mapping, invalidate, and the faulted step runs again.
 * A 3-page COPY into the aperture faults on its second page (the first
 * page is written), then completes after the fix; a DMA buffer whose
 * second page is unmapped faults on the packet fetch, and resumes there.
 */
static void test_retry(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(3 * PG);
    uint64_t gpa;
    VmCtx v;

    mmu_boot(&c, "-M q35", "");
    gpa = guest_pages(&c, 3);
    copro_gart_setup(&c, GART, GART_N);
    copro_gart_map(&c, GART, 0, gpa, true);
    copro_gart_map(&c, GART, 2, gpa + 2 * PG, true);
    fill_pattern(src, 3 * PG, 4);
    vram_write(&c, DATA, src, 3 * PG);
    copro_pkt_copy(b, AP(0), DATA, 3 * PG);
    copro_pkt_fence(b, SCR, 0x77, 0);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, b, 0), ==,
                     COPRO_ENG_STATE_HALTED);
    assert_fault(&c, 0, COPRO_FAULT_GART, AP(1), COPRO_FAULT_INFO_WRITE, 0);

    /* RETRY before the fix faults again at the same place */
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RETRY);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_HALTED);
    assert_fault(&c, 0, COPRO_FAULT_GART, AP(1), COPRO_FAULT_INFO_WRITE, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_STAT_FAULTS), ==, 2);

    copro_gart_map(&c, GART, 1, gpa + PG, true);
    copro_gart_inval(&c, 1, 1);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RETRY);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==, 0);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, fence_seq);
    guest_assert(&c, gpa, src, 3 * PG);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x77);

    /* a DMA buffer straddling an unmapped VA page */
    ctx_table_setup(&c, 8);
    v = vm_new(&c, 3);
    vm_map(&v, VA_BASE, BUF0, false, false);
    g_array_set_size(b, 0);
    copro_pkt_nop(b, PG / 4 - 1, 0);
    copro_pkt_fence(b, VA_BASE + 0x2000, 0x99, 0);
    vm_map(&v, VA_BASE + 0x2000, SCR, true, false);
    copro_buf_put(&c, BUF0, b);
    g_assert_cmpuint(run_at(&c, 0, VA_BASE, copro_buf_bytes(b), 3), ==,
                     COPRO_ENG_STATE_HALTED);
    assert_fault(&c, 0, COPRO_FAULT_PAGE, VA_BASE + PG,
                 COPRO_FAULT_INFO_VIRTUAL, 3);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_OFFSET), ==, PG - 4);
    vm_map(&v, VA_BASE + PG, BUF0 + PG, false, false);
    wr32(&c, COPRO_REG_VM_INVAL, 3);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RETRY);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(vram_r64(&c, SCR), ==, 0x99);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, fence_seq);

    /* RETRY is refused for command errors */
    g_array_set_size(b, 0);
    copro_buf_dw(b, COPRO_PKT_HDR(0xee, 0, 1));
    g_assert_cmpuint(run_vram(&c, 0, BUF0, b, 0), ==,
                     COPRO_ENG_STATE_HALTED);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RETRY);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_ILLEGAL_OPCODE);
    copro_shutdown(&c);
}

/*
 * COPY_PTE in a paging companion context: engine 0 (context 5) has read a
 * tile through its cached translation and now waits on a monitored fence;
 * engine 1 (physical context 0) waits for the CPU's go, copies a run of
 * staged PTEs over context 5's leaf entries, and signals. Engine 0's next
 * read sees the new tiles without any invalidation register write.
 */
static void test_copy_pte(void)
{
    const unsigned n = 4;
    Copro c;
    g_autoptr(GArray) r = copro_buf_new();
    g_autoptr(GArray) w = copro_buf_new();
    g_autoptr(GArray) p = copro_buf_new();
    uint64_t stage = DATA + 0x80000, leaf;
    VmCtx v;

    mmu_boot(&c, "-M q35", "");
    ctx_table_setup(&c, 8);
    v = vm_new(&c, 5);
    vm_map(&v, 0x1000, BUF0, false, false);
    vm_map(&v, 0x2000, BUF0 + PG, false, false);
    vm_map(&v, 0x3000, SCR, true, false);
    for (unsigned i = 0; i < n; i++) {
        vram_w64(&c, DATA + i * PG, 0x100 + i);        /* old tiles */
        vram_w64(&c, DATA + (8 + i) * PG, 0x200 + i);  /* new tiles */
        vm_map(&v, VA_BASE + i * PG, DATA + i * PG, false, false);
        vram_w64(&c, stage + i * 8, pte(DATA + (8 + i) * PG, false, false));
    }
    leaf = vm_pte_addr(&v, VA_BASE);

    /* read the tiles once: their translations are now cached */
    for (unsigned i = 0; i < n; i++) {
        copro_pkt_copy(r, 0x3000 + 0x100 + i * 8, VA_BASE + i * PG, 8);
    }
    copro_buf_put(&c, BUF0, r);
    g_assert_cmpuint(run_at(&c, 0, 0x1000, copro_buf_bytes(r), 5), ==,
                     COPRO_ENG_STATE_IDLE);
    for (unsigned i = 0; i < n; i++) {
        g_assert_cmphex(vram_r64(&c, SCR + 0x100 + i * 8), ==, 0x100 + i);
    }

    /* engine 0: wait for the paging fence, then read again */
    copro_pkt_wait(w, 0x3000 + 0x20, 1);
    for (unsigned i = 0; i < n; i++) {
        copro_pkt_copy(w, 0x3000 + 0x200 + i * 8, VA_BASE + i * PG, 8);
    }
    copro_buf_put(&c, BUF0 + PG, w);
    copro_submit(&c, 0, 0x2000, copro_buf_bytes(w), ++fence_seq, 5, 0);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);

    /* engine 1, physical: WAIT (CPU go) -> COPY_PTE -> FENCE */
    copro_pkt_wait(p, SCR + 0x10, 1);
    copro_pkt_copy_pte(p, leaf, stage, n);
    copro_pkt_fence(p, SCR + 0x20, 1, 0);
    copro_buf_put(&c, BUF1, p);
    copro_submit(&c, 1, BUF1, copro_buf_bytes(p), ++fence_seq, 0,
                 COPRO_SUBMIT_PAGING);
    g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_STATE), ==,
                     COPRO_ENG_STATE_WAITING);
    vram_w64(&c, SCR + 0x10, 1);
    copro_clock_to(&c, copro_time(&c) + 100000);
    g_assert_cmpuint(copro_run(&c, 1), ==, COPRO_ENG_STATE_IDLE);
    g_assert_cmpuint(copro_run(&c, 0), ==, COPRO_ENG_STATE_IDLE);
    for (unsigned i = 0; i < n; i++) {
        g_assert_cmphex(vram_r64(&c, leaf + i * 8), ==,
                        pte(DATA + (8 + i) * PG, false, false));
        g_assert_cmphex(vram_r64(&c, SCR + 0x200 + i * 8), ==, 0x200 + i);
    }

    /* misaligned operands and oversized counts are packet errors */
    g_array_set_size(p, 0);
    copro_pkt_copy_pte(p, leaf + 4, stage, 1);
    g_assert_cmpuint(run_vram(&c, 1, BUF1, p, 0), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 1, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_BAD_PACKET);
    engine_reset(&c, 1);
    g_array_set_size(p, 0);
    copro_pkt_copy_pte(p, leaf, stage, COPRO_COPY_PTE_MAX + 1);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, p, 0), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_BAD_PACKET);
    copro_shutdown(&c);
}

/* info copro and x-query-copro: GART, context table, caches. */
static void test_monitor(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree char *hmp = NULL;
    QDict *rsp, *dev, *eng;
    QList *spaces;
    VmCtx v;
    uint64_t gpa;

    mmu_boot(&c, "-M q35", "aperture=64M");
    gpa = guest_pages(&c, 3);
    copro_gart_setup(&c, GART, 1024);
    for (unsigned i = 0; i < 3; i++) {
        copro_gart_map(&c, GART, 100 + i, gpa + i * PG, true);
    }
    ctx_table_setup(&c, 32);
    v = vm_new(&c, 7);
    vm_new(&c, 9);
    vm_map(&v, 0, BUF0, false, false);
    vm_map(&v, PG, 100 * PG, true, true);
    copro_pkt_fence(b, PG, 1, 0);
    copro_pkt_fence(b, PG + 8, 2, 0);
    copro_buf_put(&c, BUF0, b);
    g_assert_cmpuint(run_at(&c, 0, 0, copro_buf_bytes(b), 7), ==,
                     COPRO_ENG_STATE_IDLE);
    g_assert_cmphex(qtest_readq(c.qts, gpa + 8), ==, 2);

    dev = copro_query(&c, &rsp);
    g_assert_cmpuint(qdict_get_int(dev, "aperture-size"), ==, 64 * MiB);
    g_assert_cmphex(qdict_get_int(dev, "gart-base"), ==, GART);
    g_assert_cmpuint(qdict_get_int(dev, "gart-entries"), ==, 1024);
    g_assert_cmpuint(qdict_get_int(dev, "gart-valid"), ==, 3);
    g_assert_cmphex(qdict_get_int(dev, "context-table-base"), ==, CTXT);
    g_assert_cmpuint(qdict_get_int(dev, "context-table-size"), ==, 32);
    spaces = qdict_get_qlist(dev, "address-spaces");
    g_assert_cmpuint(qlist_size(spaces), ==, 2);
    g_assert_cmpint(qdict_get_int(qobject_to(QDict, qlist_peek(spaces)),
                                  "context"), ==, 7);
    g_assert_cmphex(qdict_get_int(qobject_to(QDict, qlist_peek(spaces)),
                                  "root"), ==, v.root);
    g_assert_false(qdict_haskey(dev, "last-fault"));
    eng = copro_query_engine(dev, 0);
    /* buffer fetch, two packets' translation: VA + GART per access */
    g_assert_cmpuint(qdict_get_int(eng, "tlb-misses"), ==,
                     erd64(&c, 0, COPRO_ENG_STAT_TLB_MISSES));
    g_assert_cmpuint(qdict_get_int(eng, "tlb-hits"), ==,
                     erd64(&c, 0, COPRO_ENG_STAT_TLB_HITS));
    g_assert_cmpuint(qdict_get_int(eng, "tlb-hits"), >, 0);
    qobject_unref(rsp);

    hmp = qtest_hmp(c.qts, "info copro");
    g_assert_nonnull(strstr(hmp, "aperture 64 MiB"));
    g_assert_nonnull(strstr(hmp, "GART: 1024 entries at 0x100000, 3 valid"));
    g_assert_nonnull(strstr(hmp, "context 7: page table root 0x"));
    copro_shutdown(&c);
}

/*
 * Aperture DMA behind intel-iommu
 */

#define VTD(off)    (Q35_HOST_BRIDGE_IOMMU_ADDR + (off))
#define IOVA        0x80000000ull   /* I/O virtual addresses the GART uses */

/* Zeroed guest page. */
static uint64_t guest_page0(Copro *c)
{
    static const uint8_t zero[4096];
    uint64_t gpa = guest_pages(c, 1);

    qtest_memwrite(c->qts, gpa, zero, sizeof(zero));
    return gpa;
}

/*
 * Program VT-d (legacy mode) so that the copro (bus 0, slot COPRO_SLOT)
 * translates IOVA + i * 4 KiB to gpa[i] through a 3-level (39-bit)
 * second-level table; @rw[i] is VTD_SL_R | VTD_SL_W or VTD_SL_R.
 */
static void vtd_enable(Copro *c, const uint64_t *gpa, const uint64_t *rw,
                       unsigned n)
{
    QTestState *qts = c->qts;
    uint64_t root = guest_page0(c), ctx = guest_page0(c);
    uint64_t l3 = guest_page0(c), l2 = guest_page0(c), l1 = guest_page0(c);
    unsigned devfn = QPCI_DEVFN(COPRO_SLOT, 0);

    g_assert_cmphex(qtest_readq(qts, VTD(DMAR_CAP_REG)) &
                    VTD_CAP_SAGAW_39bit, !=, 0);
    qtest_writeq(qts, root, ctx | VTD_ROOT_ENTRY_P);
    qtest_writeq(qts, ctx + devfn * 16, l3 | VTD_CONTEXT_ENTRY_P);
    qtest_writeq(qts, ctx + devfn * 16 + 8, 1 | (1 << 8));  /* AW 39, DID 1 */
    qtest_writeq(qts, l3 + ((IOVA >> 30) & 511) * 8,
                 l2 | VTD_SL_R | VTD_SL_W);
    qtest_writeq(qts, l2 + ((IOVA >> 21) & 511) * 8,
                 l1 | VTD_SL_R | VTD_SL_W);
    for (unsigned i = 0; i < n; i++) {
        qtest_writeq(qts, l1 + (((IOVA >> 12) + i) & 511) * 8,
                     gpa[i] | rw[i]);
    }
    qtest_writeq(qts, VTD(DMAR_RTADDR_REG), root);
    qtest_writel(qts, VTD(DMAR_GCMD_REG), VTD_GCMD_SRTP);
    g_assert_cmphex(qtest_readl(qts, VTD(DMAR_GSTS_REG)) & VTD_GSTS_RTPS,
                    !=, 0);
    qtest_writel(qts, VTD(DMAR_GCMD_REG), VTD_GCMD_TE);
    g_assert_cmphex(qtest_readl(qts, VTD(DMAR_GSTS_REG)) & VTD_GSTS_TES,
                    !=, 0);
}

/* intel-iommu present, translation off: the aperture DMA passes through. */
static void test_iommu_passthrough(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(2 * PG);
    uint64_t gpa;

    mmu_boot(&c, "-M q35 -device intel-iommu", "");
    g_assert_cmphex(qtest_readl(c.qts, VTD(DMAR_GSTS_REG)) & VTD_GSTS_TES,
                    ==, 0);
    gpa = guest_pages(&c, 2);
    copro_gart_setup(&c, GART, GART_N);
    copro_gart_map(&c, GART, 0, gpa + PG, true);
    copro_gart_map(&c, GART, 1, gpa, true);
    fill_pattern(src, 2 * PG, 5);
    vram_write(&c, DATA, src, 2 * PG);
    copro_pkt_copy(b, AP(0), DATA, 2 * PG);
    copro_pkt_copy(b, DATA + 0x10000, AP(0), 2 * PG);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, b, 0), ==, COPRO_ENG_STATE_IDLE);
    guest_assert(&c, gpa + PG, src, PG);
    guest_assert(&c, gpa, src + PG, PG);
    vram_assert(&c, DATA + 0x10000, src, 2 * PG);
    copro_shutdown(&c);
}

/*
 * intel-iommu translating: the GART holds I/O virtual addresses that the
 * IOMMU maps to scattered guest pages. A read-only IOMMU mapping refuses
 * device writes and an unmapped IOVA refuses everything: both are DMA
 * faults that latch the aperture address.
 */
static void test_iommu_translated(void)
{
    Copro c;
    g_autoptr(GArray) b = copro_buf_new();
    g_autofree uint8_t *src = g_malloc(3 * PG);
    uint64_t gpa[3], rw[3] = {
        VTD_SL_R | VTD_SL_W, VTD_SL_R | VTD_SL_W, VTD_SL_R
    };

    mmu_boot(&c, "-M q35 -device intel-iommu", "");
    for (unsigned i = 0; i < 3; i++) {
        gpa[i] = guest_page0(&c);
    }
    /* IOVA pages 0, 1 -> guest pages 1, 0; IOVA page 2 read-only */
    {
        uint64_t map[3] = { gpa[1], gpa[0], gpa[2] };

        vtd_enable(&c, map, rw, 3);
    }
    copro_gart_setup(&c, GART, GART_N);
    for (unsigned i = 0; i < 4; i++) {
        copro_gart_map(&c, GART, i, IOVA + i * PG, true);
    }
    fill_pattern(src, 3 * PG, 6);
    vram_write(&c, DATA, src, 3 * PG);
    qtest_memwrite(c.qts, gpa[2], src + 2 * PG, PG);

    copro_pkt_copy(b, AP(0) + 8, DATA + 8, 2 * PG - 8);
    copro_pkt_copy(b, DATA + 0x10000, AP(0), 3 * PG);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, b, 0), ==, COPRO_ENG_STATE_IDLE);
    guest_assert(&c, gpa[1] + 8, src + 8, PG - 8);
    guest_assert(&c, gpa[0], src + PG, PG);
    vram_assert(&c, DATA + 0x10008, src + 8, 3 * PG - 8);

    /* IOMMU read-only page: the device write fails */
    g_array_set_size(b, 0);
    copro_pkt_fence(b, AP(2) + 0x10, 1, 0);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, b, 7), ==,
                     COPRO_ENG_STATE_HALTED);
    assert_fault(&c, 0, COPRO_FAULT_DMA, AP(2) + 0x10,
                 COPRO_FAULT_INFO_WRITE, 7);
    engine_reset(&c, 0);

    /* IOVA page 3 is not mapped in the IOMMU */
    g_array_set_size(b, 0);
    copro_pkt_wait(b, AP(3), 0);
    g_assert_cmpuint(run_vram(&c, 1, BUF1, b, 8), ==,
                     COPRO_ENG_STATE_HALTED);
    assert_fault(&c, 1, COPRO_FAULT_DMA, AP(3), 0, 8);
    copro_shutdown(&c);
}

/*
 * Regression: device DMA onto the device's own BARs is refused as a DMA
 * fault. It used to reach copro_mmio_write from the middle of a step when
 * the step ran from the (unguarded) engine timer, so an aperture page
 * mapped onto BAR0 let a COPY write INT_TEST; onto BAR2 it wrote VRAM
 * behind the engine's back. Modelled timing: the step runs from the timer.
 */
static void test_dma_to_self(void)
{
    const struct {
        unsigned bar;
        uint64_t offset;
    } targets[] = {
        { COPRO_BAR_MMIO, COPRO_REG_INT_TEST & ~(PG - 1) },
        { COPRO_BAR_VRAM, 0x700000 },
    };
    Copro c;

    copro_boot(&c, "-M q35", "");
    copro_ring_setup(&c, 0, RING0, RING_N);
    copro_gart_setup(&c, GART, 16);
    for (size_t i = 0; i < G_N_ELEMENTS(targets); i++) {
        QPCIBar *bar = targets[i].bar == COPRO_BAR_MMIO ? &c.mmio : &c.vram;
        uint64_t page = bar->addr + targets[i].offset;
        g_autoptr(GArray) b = copro_buf_new();
        uint32_t len;

        vram_w32(&c, DATA + (COPRO_REG_INT_TEST & (PG - 1)), 0x5eed);
        vram_w32(&c, DATA + (COPRO_REG_INT_TEST_DATA & (PG - 1)), 0x5eed);
        vram_w32(&c, 0x700000 + (COPRO_REG_INT_TEST & (PG - 1)), 0);
        copro_gart_map(&c, GART, 3, page, true);
        copro_gart_inval(&c, 0, 0);
        copro_pkt_copy(b, copro_aperture(3), DATA, PG);
        len = copro_buf_put(&c, BUF0, b);
        copro_submit(&c, 0, BUF0, len, 10 + i, 0, 0);
        copro_clock_to(&c, copro_time(&c) + 10 * 1000 * 1000);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_STATE), ==,
                         COPRO_ENG_STATE_HALTED);
        g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                         COPRO_FAULT_DMA);
        g_assert_cmphex(erd64(&c, 0, COPRO_ENG_FAULT_ADDR), ==,
                        copro_aperture(3));
        /* nothing reached the registers or VRAM */
        g_assert_cmphex(rd32(&c, COPRO_REG_INT_TEST_DATA), ==, 0);
        g_assert_false(rd64(&c, COPRO_REG_INT_STATUS) & COPRO_INT_DEV_TEST);
        g_assert_cmphex(vram_r32(&c, 0x700000 +
                                 (COPRO_REG_INT_TEST & (PG - 1))), ==, 0);
        ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
        wr64(&c, COPRO_REG_INT_STATUS, ~0ull);
    }
    copro_shutdown(&c);
}

/*
 * Regression: an MSI-X message whose address is the device's own BAR0,
 * sent from the engine timer (a completion in modelled time), must not
 * write the register: the timer is guarded like the bottom half.
 */
static void test_msix_to_self(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    Copro c;
    uint32_t len;

    copro_boot(&c, "-M q35", "");
    copro_ring_setup(&c, 0, RING0, RING_N);
    qpci_msix_enable(c.dev);
    copro_msix_route(&c, 0, c.mmio.addr + COPRO_REG_INT_TEST, 0xbad);
    wr64(&c, COPRO_REG_INT_MASK, COPRO_INT_ENGINE_MASK(0));
    copro_pkt_nop(b, 1, 0);
    len = copro_buf_put(&c, BUF0, b);
    copro_submit(&c, 0, BUF0, len, 1, 0, 0);
    copro_clock_to(&c, copro_time(&c) + 1000 * 1000);
    g_assert_cmpuint(erd64(&c, 0, COPRO_ENG_COMPLETED_FENCE), ==, 1);
    g_assert_cmphex(rd32(&c, COPRO_REG_INT_TEST_DATA), ==, 0);
    g_assert_false(rd64(&c, COPRO_REG_INT_STATUS) & COPRO_INT_DEV_TEST);
    copro_shutdown(&c);
}

/*
 * Regression: table bases near 2^64 must not wrap into VRAM. GART_BASE
 * 4 KiB below 2^64 puts entry 600 at "VRAM offset 704" if the sum wraps;
 * CTX_TABLE_BASE 128 bytes below puts context 20 at offset 32. Both are
 * TABLE faults.
 */
static void test_table_base_wrap(void)
{
    g_autoptr(GArray) b = copro_buf_new();
    g_autoptr(GArray) w = copro_buf_new();
    uint64_t gpa;
    Copro c;

    mmu_boot(&c, "-M q35", "");
    gpa = guest_pages(&c, 1);
    /* what a wrapped lookup would find: a valid entry, a valid root */
    vram_w64(&c, 704, gpa | COPRO_GART_VALID | COPRO_GART_WRITABLE);
    vram_w64(&c, 32, PT | COPRO_CTX_VALID);
    wr64(&c, COPRO_REG_GART_BASE, 0ull - PG);
    wr32(&c, COPRO_REG_GART_ENTRIES, 1024);
    copro_pkt_fill(b, copro_aperture(600), 64, 0x12345678);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, b, 0), ==, COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_TABLE);
    g_assert_cmphex(qtest_readl(c.qts, gpa), ==, 0);
    ewr32(&c, 0, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);

    wr64(&c, COPRO_REG_CTX_TABLE_BASE, 0ull - 128);
    wr32(&c, COPRO_REG_CTX_TABLE_SIZE, 32);
    copro_pkt_fill(w, DATA, 64, 0x12345678);
    g_assert_cmpuint(run_vram(&c, 0, BUF0, w, 20), ==,
                     COPRO_ENG_STATE_HALTED);
    g_assert_cmpuint(erd32(&c, 0, COPRO_ENG_FAULT_KIND), ==,
                     COPRO_FAULT_TABLE);
    copro_shutdown(&c);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (!qtest_has_device("copro")) {
        g_test_skip("copro device not built");
        return g_test_run();
    }
    qtest_add_func("/copro/mmu/regs", test_regs);
    qtest_add_func("/copro/mmu/aperture/copy", test_aperture_copy);
    qtest_add_func("/copro/mmu/aperture/ring", test_aperture_ring);
    qtest_add_data_func("/copro/mmu/aperture/stale/range",
                        GINT_TO_POINTER(false), test_aperture_stale);
    qtest_add_data_func("/copro/mmu/aperture/stale/whole",
                        GINT_TO_POINTER(true), test_aperture_stale);
    qtest_add_func("/copro/mmu/va/translate", test_va_translate);
    qtest_add_func("/copro/mmu/va/stale", test_va_stale);
    for (size_t i = 0; i < G_N_ELEMENTS(fault_cases); i++) {
        g_autofree char *p = g_strdup_printf("/copro/mmu/fault/%s",
                                             fault_cases[i].name);

        qtest_add_data_func(p, &fault_cases[i], test_fault);
    }
    qtest_add_func("/copro/mmu/fault/retry", test_retry);
    qtest_add_func("/copro/mmu/copy-pte", test_copy_pte);
    qtest_add_func("/copro/mmu/dma-to-self", test_dma_to_self);
    qtest_add_func("/copro/mmu/msix-to-self", test_msix_to_self);
    qtest_add_func("/copro/mmu/table-base-wrap", test_table_base_wrap);
    qtest_add_func("/copro/mmu/monitor", test_monitor);
    qtest_add_func("/copro/mmu/iommu/passthrough", test_iommu_passthrough);
    qtest_add_func("/copro/mmu/iommu/translated", test_iommu_translated);
    return g_test_run();
}
