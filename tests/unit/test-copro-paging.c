/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the paging-buffer translation (firmware/kmd/copro_paging.c):
 * the packets each paging operation becomes, dword by dword, large
 * operations split at the packet bound, UNMAP as COPY_PTE of zero entries
 * over the GART, and every refusal (with the index of the bad operation)
 * leaving an empty buffer.
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_paging.h"

#define MIB         (1ull << 20)
#define PG          4096ull
#define AP          COPRO_APERTURE_BASE
#define GART        0x10000ull
#define ZERO        0x20000ull
#define CANARY      0xccccccccu
#define BUF_GPU     0x30000ull

static const struct copro_paging_space space = {
    .vram_size = 64 * MIB,
    .aperture_base = AP,
    .aperture_pages = 1024,             /* 4 MiB of aperture */
    .gart_table = GART,
    .zero_entries = ZERO,
    .zero_count = 4,
    .max_packet_bytes = 1 * MIB,
};

static uint32_t storage[256];
static struct ddi_dmabuf out;

static struct ddi_dmabuf *fresh(uint32_t cap_bytes)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(storage); i++) {
        storage[i] = CANARY;
    }
    memset(&out, 0, sizeof(out));
    out.dw = storage;
    out.gpu_addr = BUF_GPU;
    out.cap_bytes = cap_bytes;
    out.len_bytes = 12345;
    out.nalloc = 3;
    out.npatch = 7;
    return &out;
}

static int translate(const struct ddi_paging_op *ops, unsigned n)
{
    return copro_paging_translate(&space, ops, n, fresh(sizeof(storage)));
}

static void assert_copy(unsigned at, uint64_t dst, uint64_t src, uint64_t n)
{
    g_assert_cmphex(storage[at], ==,
                    COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY));
    g_assert_cmphex(storage[at + 1] | (uint64_t)storage[at + 2] << 32, ==,
                    dst);
    g_assert_cmphex(storage[at + 3] | (uint64_t)storage[at + 4] << 32, ==,
                    src);
    g_assert_cmphex(storage[at + 5] | (uint64_t)storage[at + 6] << 32, ==, n);
}

static void assert_fill(unsigned at, uint64_t dst, uint64_t n, uint32_t v)
{
    g_assert_cmphex(storage[at], ==,
                    COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL));
    g_assert_cmphex(storage[at + 1] | (uint64_t)storage[at + 2] << 32, ==,
                    dst);
    g_assert_cmphex(storage[at + 3] | (uint64_t)storage[at + 4] << 32, ==, n);
    g_assert_cmphex(storage[at + 5], ==, v);
}

static void assert_copy_pte(unsigned at, uint64_t dst, uint32_t count)
{
    g_assert_cmphex(storage[at], ==,
                    COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE));
    g_assert_cmphex(storage[at + 1] | (uint64_t)storage[at + 2] << 32, ==,
                    dst);
    g_assert_cmphex(storage[at + 3] | (uint64_t)storage[at + 4] << 32, ==,
                    ZERO);
    g_assert_cmpuint(storage[at + 5], ==, count);
}

/* out holds exactly ndw dwords, nothing written past them */
static void assert_len(unsigned ndw)
{
    g_assert_cmpuint(out.len_bytes, ==, ndw * 4);
    g_assert_cmpuint(out.engine, ==, COPRO_ENGINE_COPY);
    g_assert_cmpuint(out.nalloc, ==, 0);
    g_assert_cmpuint(out.npatch, ==, 0);
    for (unsigned i = ndw; i < G_N_ELEMENTS(storage); i++) {
        g_assert_cmphex(storage[i], ==, CANARY);
    }
}

static void test_empty(void)
{
    g_assert_cmpint(translate(NULL, 0), ==, DDI_OK);
    assert_len(0);
}

static void test_transfer(void)
{
    struct ddi_paging_op op = {
        .kind = DDI_PAGING_TRANSFER, .src = 0x1000, .dst = AP + 0x2000,
        .size = 12345,
    };

    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
    assert_copy(0, AP + 0x2000, 0x1000, 12345);
    assert_len(COPRO_LEN_COPY);
    /* aperture -> VRAM, and VRAM -> VRAM downwards over itself */
    op.src = AP;
    op.dst = 60 * MIB;
    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
    assert_copy(0, 60 * MIB, AP, 12345);
    op.src = 0x3000;
    op.dst = 0x2000;
    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
    assert_copy(0, 0x2000, 0x3000, 12345);
    /* up to the last byte of VRAM and of the aperture */
    op.src = 64 * MIB - 100;
    op.dst = AP + 4 * MIB - 100;
    op.size = 100;
    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
}

static void test_transfer_split(void)
{
    /* 2.5 MiB at a 1 MiB bound: three COPYs, in address order */
    struct ddi_paging_op op = {
        .kind = DDI_PAGING_TRANSFER, .src = 8 * MIB, .dst = AP,
        .size = 2 * MIB + MIB / 2,
    };

    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
    assert_copy(0, AP, 8 * MIB, MIB);
    assert_copy(7, AP + MIB, 9 * MIB, MIB);
    assert_copy(14, AP + 2 * MIB, 10 * MIB, MIB / 2);
    assert_len(3 * COPRO_LEN_COPY);
    g_assert_cmpuint(copro_paging_bytes(&space, &op, 1), ==,
                     3 * COPRO_LEN_COPY * 4);
    /* exactly two bounds: two packets */
    op.size = 2 * MIB;
    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
    assert_len(2 * COPRO_LEN_COPY);
}

static void test_fill(void)
{
    struct ddi_paging_op op = {
        .kind = DDI_PAGING_FILL, .dst = 0x100, .size = MIB + 8,
        .value = 0xdeadbeef,
    };

    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
    assert_fill(0, 0x100, MIB, 0xdeadbeef);
    assert_fill(6, 0x100 + MIB, 8, 0xdeadbeef);
    assert_len(2 * COPRO_LEN_FILL);
    op.dst = AP + 4;
    op.size = 4;
    g_assert_cmpint(translate(&op, 1), ==, DDI_OK);
    assert_fill(0, AP + 4, 4, 0xdeadbeef);
}

static void test_map_unmap(void)
{
    static const uint64_t pages[10] = {
        0x100000, 0x105000, 0x101000, 0x200000, 0x7000,
        0x8000, 0x9000, 0xa000, 0xfff000, 0x1000,
    };
    struct ddi_paging_op ops[3] = {
        { .kind = DDI_PAGING_MAP_APERTURE, .dst = AP + 16 * PG,
          .size = 10 * PG, .sys_pages = pages },
        { .kind = DDI_PAGING_TRANSFER, .src = 0, .dst = AP + 16 * PG,
          .size = 10 * PG },
        { .kind = DDI_PAGING_UNMAP_APERTURE, .dst = AP + 16 * PG,
          .size = 10 * PG },
    };

    /* MAP alone emits nothing: the driver does it on the CPU */
    g_assert_cmpint(translate(ops, 1), ==, DDI_OK);
    assert_len(0);
    g_assert_cmpuint(copro_paging_first_page(&space, &ops[0]), ==, 16);
    /* MAP + TRANSFER + UNMAP: the COPY, then the GART entries 16..25
     * cleared four at a time from the zero entries */
    g_assert_cmpint(translate(ops, 3), ==, DDI_OK);
    assert_copy(0, AP + 16 * PG, 0, 10 * PG);
    assert_copy_pte(7, GART + 16 * 8, 4);
    assert_copy_pte(13, GART + 20 * 8, 4);
    assert_copy_pte(19, GART + 24 * 8, 2);
    assert_len(COPRO_LEN_COPY + 3 * COPRO_LEN_COPY_PTE);
    g_assert_cmpuint(copro_paging_bytes(&space, ops, 3), ==, out.len_bytes);
    /* the whole aperture can be mapped */
    {
        static uint64_t all[1024];
        struct ddi_paging_op m = {
            .kind = DDI_PAGING_MAP_APERTURE, .dst = AP, .size = 4 * MIB,
            .sys_pages = all,
        };

        for (unsigned i = 0; i < 1024; i++) {
            all[i] = 0x100000 + i * PG;
        }
        g_assert_cmpint(translate(&m, 1), ==, DDI_OK);
    }
}

/* op alone (after good ones) is refused with DDI_EINVAL naming it */
static void assert_refused(const struct ddi_paging_op *bad, int want)
{
    struct ddi_paging_op ops[3] = {
        { .kind = DDI_PAGING_FILL, .dst = 0, .size = 64 },
        { .kind = DDI_PAGING_TRANSFER, .src = 0, .dst = 0x1000, .size = 64 },
        *bad,
    };
    unsigned at = 99;

    g_assert_cmpint(copro_paging_check(&space, ops, 3, &at), ==, want);
    g_assert_cmpuint(at, ==, 2);
    g_assert_cmpint(translate(ops, 3), ==, want);
    g_assert_cmpuint(out.len_bytes, ==, 0);
}

static void test_refusals(void)
{
    static const uint64_t good[2] = { 0x100000, 0x101000 };
    static const uint64_t unaligned[2] = { 0x100000, 0x101800 };
    static const uint64_t zero[2] = { 0x100000, 0 };
    static const uint64_t huge[2] = { 0x100000, 1ull << 52 };
    struct ddi_paging_op t = {
        .kind = DDI_PAGING_TRANSFER, .src = 0, .dst = AP, .size = PG,
    };
    struct ddi_paging_op f = { .kind = DDI_PAGING_FILL, .dst = 0, .size = 8 };
    struct ddi_paging_op m = {
        .kind = DDI_PAGING_MAP_APERTURE, .dst = AP + PG, .size = 2 * PG,
        .sys_pages = good,
    };
    struct ddi_paging_op u = {
        .kind = DDI_PAGING_UNMAP_APERTURE, .dst = AP, .size = PG,
    };
    struct ddi_paging_op o;

    /* transfers: size 0, past VRAM, straddling VRAM's end, past the
     * GART's pages, below the aperture, wrapping, overlapping upwards */
    o = t, o.size = 0, assert_refused(&o, DDI_EINVAL);
    o = t, o.src = 64 * MIB, assert_refused(&o, DDI_EINVAL);
    o = t, o.src = 64 * MIB - 8, assert_refused(&o, DDI_EINVAL);
    o = t, o.dst = AP + 4 * MIB - 8, assert_refused(&o, DDI_EINVAL);
    o = t, o.dst = AP - 8, assert_refused(&o, DDI_EINVAL);
    o = t, o.dst = UINT64_MAX - 8, assert_refused(&o, DDI_EINVAL);
    o = t, o.size = UINT64_MAX, assert_refused(&o, DDI_EINVAL);
    o = t, o.dst = 0x800, assert_refused(&o, DDI_EINVAL);
    /* fills: size 0, not a multiple of 4, out of range */
    o = f, o.size = 0, assert_refused(&o, DDI_EINVAL);
    o = f, o.size = 6, assert_refused(&o, DDI_EINVAL);
    o = f, o.dst = 64 * MIB, assert_refused(&o, DDI_EINVAL);
    /* maps: unaligned range, partial page, in VRAM, past the GART,
     * no pages, an unaligned, zero or too-high page */
    o = m, o.dst = AP + 8, assert_refused(&o, DDI_EINVAL);
    o = m, o.size = PG + 4, assert_refused(&o, DDI_EINVAL);
    o = m, o.dst = 0, assert_refused(&o, DDI_EINVAL);
    o = m, o.dst = AP + 1023 * PG, assert_refused(&o, DDI_EINVAL);
    o = m, o.size = 0, assert_refused(&o, DDI_EINVAL);
    o = m, o.sys_pages = NULL, assert_refused(&o, DDI_EINVAL);
    o = m, o.sys_pages = unaligned, assert_refused(&o, DDI_EINVAL);
    o = m, o.sys_pages = zero, assert_refused(&o, DDI_EINVAL);
    o = m, o.sys_pages = huge, assert_refused(&o, DDI_EINVAL);
    /* unmaps: unaligned, partial, outside */
    o = u, o.dst = AP + 4, assert_refused(&o, DDI_EINVAL);
    o = u, o.size = 100, assert_refused(&o, DDI_EINVAL);
    o = u, o.dst = AP + 4 * MIB, assert_refused(&o, DDI_EINVAL);
    /* an unknown kind */
    o = t, o.kind = 4, assert_refused(&o, DDI_EINVAL);
    o = t, o.kind = UINT32_MAX, assert_refused(&o, DDI_EINVAL);
}

static void test_map_after_use(void)
{
    static const uint64_t pages[2] = { 0x100000, 0x101000 };
    struct ddi_paging_op ops[2] = {
        { .kind = DDI_PAGING_TRANSFER, .src = 0, .dst = AP + 2 * PG - 8,
          .size = 16 },
        { .kind = DDI_PAGING_MAP_APERTURE, .dst = AP + 2 * PG,
          .size = 2 * PG, .sys_pages = pages },
    };
    unsigned at;

    /* the CPU maps before the GPU runs the transfer: refused */
    g_assert_cmpint(copro_paging_check(&space, ops, 2, &at), ==, DDI_EINVAL);
    g_assert_cmpuint(at, ==, 1);
    /* a transfer that ends just below the range is fine */
    ops[0].size = 8;
    g_assert_cmpint(copro_paging_check(&space, ops, 2, NULL), ==, DDI_OK);
    /* an UNMAP then a MAP of the same range, or two MAPs: refused */
    ops[0] = (struct ddi_paging_op){ .kind = DDI_PAGING_UNMAP_APERTURE,
                                     .dst = AP + 3 * PG, .size = PG };
    g_assert_cmpint(copro_paging_check(&space, ops, 2, &at), ==, DDI_EINVAL);
    ops[0] = ops[1];
    g_assert_cmpint(copro_paging_check(&space, ops, 2, &at), ==, DDI_EINVAL);
    /* a FILL through the aperture before the MAP too */
    ops[0] = (struct ddi_paging_op){ .kind = DDI_PAGING_FILL,
                                     .dst = AP + 3 * PG, .size = 4 };
    g_assert_cmpint(copro_paging_check(&space, ops, 2, &at), ==, DDI_EINVAL);
    /* but a FILL in VRAM at the same offset does not use the aperture */
    ops[0].dst = 3 * PG;
    g_assert_cmpint(copro_paging_check(&space, ops, 2, &at), ==, DDI_OK);
}

static void test_use_after_unmap(void)
{
    struct ddi_paging_op ops[2] = {
        { .kind = DDI_PAGING_UNMAP_APERTURE, .dst = AP + 4 * PG,
          .size = 2 * PG },
        { .kind = DDI_PAGING_TRANSFER, .src = AP + 6 * PG - 4, .dst = 0,
          .size = 8 },
    };
    unsigned at;

    /* the engine would run the TRANSFER after the UNMAP: refused */
    g_assert_cmpint(copro_paging_check(&space, ops, 2, &at), ==, DDI_EINVAL);
    g_assert_cmpuint(at, ==, 1);
    ops[1].src = AP + 6 * PG;           /* just above the range: fine */
    g_assert_cmpint(copro_paging_check(&space, ops, 2, NULL), ==, DDI_OK);
    ops[1] = (struct ddi_paging_op){ .kind = DDI_PAGING_FILL,
                                     .dst = AP + 4 * PG, .size = 4 };
    g_assert_cmpint(copro_paging_check(&space, ops, 2, &at), ==, DDI_EINVAL);
    ops[1].dst = 4 * PG;                /* VRAM: not behind the UNMAP */
    g_assert_cmpint(copro_paging_check(&space, ops, 2, NULL), ==, DDI_OK);
    /* a second UNMAP of the same range is harmless */
    ops[1] = ops[0];
    g_assert_cmpint(copro_paging_check(&space, ops, 2, NULL), ==, DDI_OK);
    /* and no out buffer at all is EINVAL, not a crash */
    g_assert_cmpint(copro_paging_translate(&space, ops, 1, NULL), ==,
                    DDI_EINVAL);
}

static void test_list_refusals(void)
{
    static struct ddi_paging_op many[DDI_MAX_PAGING_OPS + 1];
    struct copro_paging_space no_zero = space;
    struct ddi_paging_op u = {
        .kind = DDI_PAGING_UNMAP_APERTURE, .dst = AP, .size = PG,
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(many); i++) {
        many[i] = (struct ddi_paging_op){ .kind = DDI_PAGING_FILL,
                                          .dst = 0, .size = 4 };
    }
    g_assert_cmpint(copro_paging_check(&space, many, DDI_MAX_PAGING_OPS,
                                       NULL), ==, DDI_OK);
    g_assert_cmpint(translate(many, DDI_MAX_PAGING_OPS + 1), ==, DDI_EINVAL);
    g_assert_cmpint(translate(NULL, 1), ==, DDI_EINVAL);
    /* UNMAP needs the zero entries */
    no_zero.zero_count = 0;
    g_assert_cmpint(copro_paging_translate(&no_zero, &u, 1,
                                           fresh(sizeof(storage))), ==,
                    DDI_ENOTSUP);
    /* a packet bound that is not a multiple of 4 is a driver bug */
    no_zero = space;
    no_zero.max_packet_bytes = 6;
    g_assert_cmpint(copro_paging_check(&no_zero, &u, 1, NULL), ==,
                    DDI_EINVAL);
    /* so are zero entries or a table COPY_PTE cannot address */
    no_zero = space;
    no_zero.zero_entries = ZERO + 4;
    g_assert_cmpint(copro_paging_check(&no_zero, &u, 1, NULL), ==,
                    DDI_EINVAL);
    no_zero = space;
    no_zero.gart_table = GART + 2;
    g_assert_cmpint(copro_paging_check(&no_zero, &u, 1, NULL), ==,
                    DDI_EINVAL);
}

static void test_nomem(void)
{
    struct ddi_paging_op op = {
        .kind = DDI_PAGING_TRANSFER, .src = 0, .dst = AP, .size = 3 * MIB,
    };

    /* three COPYs need 84 bytes: 80 is too few, nothing written */
    g_assert_cmpint(copro_paging_translate(&space, &op, 1, fresh(80)), ==,
                    DDI_ENOMEM);
    g_assert_cmpuint(out.len_bytes, ==, 0);
    g_assert_cmphex(storage[0], ==, CANARY);
    g_assert_cmpint(copro_paging_translate(&space, &op, 1, fresh(84)), ==,
                    DDI_OK);
    assert_len(3 * COPRO_LEN_COPY);
    fresh(84);
    out.dw = NULL;
    g_assert_cmpint(copro_paging_translate(&space, &op, 1, &out), ==,
                    DDI_ENOMEM);
    /* a bad op is EINVAL even when the buffer is also too small */
    op.size = 0;
    g_assert_cmpint(copro_paging_translate(&space, &op, 1, fresh(0)), ==,
                    DDI_EINVAL);
}

/* More zero entries than one COPY_PTE may copy: packets of the limit. */
static void test_copy_pte_limit(void)
{
    struct copro_paging_space s = space;
    struct ddi_paging_op op = { .kind = DDI_PAGING_UNMAP_APERTURE,
                                .dst = AP };

    s.aperture_pages = COPRO_COPY_PTE_MAX + 1024;
    s.zero_count = UINT32_MAX;
    op.size = (uint64_t)(COPRO_COPY_PTE_MAX + 1) * PG;
    g_assert_cmpint(copro_paging_translate(&s, &op, 1,
                                           fresh(sizeof(storage))), ==,
                    DDI_OK);
    assert_copy_pte(0, GART, COPRO_COPY_PTE_MAX);
    assert_copy_pte(6, GART + (uint64_t)COPRO_COPY_PTE_MAX * 8, 1);
    assert_len(2 * COPRO_LEN_COPY_PTE);
}

static void test_default_bound(void)
{
    struct copro_paging_space s = space;
    struct ddi_paging_op op = {
        .kind = DDI_PAGING_TRANSFER, .src = 0, .dst = 32 * MIB,
        .size = 32 * MIB,
    };

    s.max_packet_bytes = 0;
    g_assert_cmpint(copro_paging_translate(&s, &op, 1,
                                           fresh(sizeof(storage))), ==,
                    DDI_OK);
    assert_copy(0, 32 * MIB, 0, COPRO_PAGING_MAX_PACKET_BYTES);
    assert_copy(7, 32 * MIB + COPRO_PAGING_MAX_PACKET_BYTES,
                COPRO_PAGING_MAX_PACKET_BYTES,
                32 * MIB - COPRO_PAGING_MAX_PACKET_BYTES);
    assert_len(2 * COPRO_LEN_COPY);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-paging/empty", test_empty);
    g_test_add_func("/copro-paging/transfer", test_transfer);
    g_test_add_func("/copro-paging/transfer-split", test_transfer_split);
    g_test_add_func("/copro-paging/fill", test_fill);
    g_test_add_func("/copro-paging/map-unmap", test_map_unmap);
    g_test_add_func("/copro-paging/refusals", test_refusals);
    g_test_add_func("/copro-paging/map-after-use", test_map_after_use);
    g_test_add_func("/copro-paging/use-after-unmap", test_use_after_unmap);
    g_test_add_func("/copro-paging/list-refusals", test_list_refusals);
    g_test_add_func("/copro-paging/nomem", test_nomem);
    g_test_add_func("/copro-paging/default-bound", test_default_bound);
    g_test_add_func("/copro-paging/copy-pte-limit", test_copy_pte_limit);
    return g_test_run();
}
