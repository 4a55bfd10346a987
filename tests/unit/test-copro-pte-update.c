/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for kmd/copro_pte_update.c: vidmm's page-table updates for a
 * move become staged leaf entries and COPY_PTE packets. The packets are
 * then executed here the way the device does (copy count 64-bit entries
 * in VRAM) and the result checked with the software walk of
 * kmd/copro_pt.c, so the test states what the GPU would translate after
 * the paging buffer ran.
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "ddi/ddi.h"
#include "kmd/copro_pte_update.h"
#include "vidmm/vidmm_gpuva.h"

#define VRAM_SIZE       (1u << 20)
#define POOL            0x80000u        /* page tables from here up */
#define STAGE           0x70000u        /* staged entries */
#define APERTURE_BYTES  (16u << 20)
#define VA              0x1fd000ull     /* 3 pages below a 2 MiB line */

#include "fake-pt-vram.h"

static uint64_t root;
static uint32_t dw[256];
static struct copro_dmabuf buf;
static struct copro_pte_stage stage;
static struct vidmm_gpuva_space space;
static struct vidmm_block blocks[4];

/* An address space whose range at VA (6 pages, crossing the 2 MiB line
 * after 3) maps onto VRAM 0x10000.. as the allocation's first placement,
 * and the vidmm space that handed that VA out. */
static uint64_t setup(void)
{
    uint64_t va;

    memset(vram, 0, sizeof(vram));
    next_table = POOL;
    g_assert_true(table(NULL, &root));
    for (unsigned i = 0; i < 6; i++) {
        g_assert_null(copro_pt_map_4k(&mem, root, VA + i * 4096ull,
                                      copro_pte_leaf(0x10000 + i * 4096ull,
                                                     COPRO_PTE_WRITABLE)));
        if (i == 2) {
            /* another region's tables in between, so the two leaf tables
             * are not adjacent in VRAM (adjacent ones would make one
             * run, which is right but tests less) */
            g_assert_null(copro_pt_map_4k(&mem, root, 0x40000000,
                                          copro_pte_leaf(0x30000, 0)));
        }
    }
    copro_dmabuf_init(&buf, dw, 0x60000, sizeof(dw));
    stage = (struct copro_pte_stage){ .vram = STAGE, .entries = 16 };
    g_assert_cmpint(vidmm_gpuva_init(&space, 3, 1, VA, 0x100000, blocks, 4),
                    ==, DDI_OK);
    g_assert_cmpint(vidmm_gpuva_map(&space, 6 * 4096, 0, &va), ==, DDI_OK);
    g_assert_cmphex(va, ==, VA);
    return va;
}

/* Runs the buffer's COPY_PTE packets as the device would. */
static unsigned run_copy_pte(void)
{
    unsigned i = 0, n = 0;

    while (i < buf.len_dw) {
        uint32_t hdr = dw[i];
        uint64_t dst, src;

        g_assert_cmpuint(COPRO_PKT_OP(hdr), ==, COPRO_OP_COPY_PTE);
        g_assert_cmpuint(COPRO_PKT_LEN(hdr), ==, COPRO_LEN_COPY_PTE);
        dst = dw[i + 1] | (uint64_t)dw[i + 2] << 32;
        src = dw[i + 3] | (uint64_t)dw[i + 4] << 32;
        g_assert_cmpuint(dst % 8, ==, 0);
        g_assert_cmpuint(src % 8, ==, 0);
        memmove(vram + dst, vram + src, (size_t)dw[i + 5] * 8);
        i += COPRO_LEN_COPY_PTE;
        n++;
    }
    return n;
}

static void test_move_to_aperture(void)
{
    uint64_t va = setup();
    struct vidmm_gpuva_frame to = {
        DDI_PTE_APERTURE, COPRO_APERTURE_BASE + 0x200000, true,
    };
    struct ddi_pte_update u;
    struct copro_pt_walk w;
    unsigned packets;

    g_assert_cmpint(vidmm_gpuva_remap(&space, va, 0, 0, &to, &u), ==,
                    DDI_OK);
    g_assert_null(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                        &stage, &buf, &packets));
    /* one run per leaf table: the 2 MiB line splits it */
    g_assert_cmpuint(packets, ==, 2);
    g_assert_cmpuint(buf.packets, ==, 2);
    g_assert_cmpuint(stage.used, ==, 6);
    /* building the buffer changed no live entry */
    copro_pt_walk(&mem, root, va, false, &w);
    g_assert_true(w.ok);
    g_assert_cmphex(w.pa, ==, 0x10000);

    g_assert_cmpuint(run_copy_pte(), ==, 2);
    for (unsigned i = 0; i < 6; i++) {
        copro_pt_walk(&mem, root, va + i * 4096ull + 8, true, &w);
        g_assert_true(w.ok);
        g_assert_cmphex(w.pa, ==, COPRO_APERTURE_BASE + 0x200000 +
                                  i * 4096ull + 8);
        g_assert_true(w.writable);
    }
}

static void test_partial_and_unmap(void)
{
    uint64_t va = setup();
    struct vidmm_gpuva_frame vr = { DDI_PTE_VRAM, 0x40000, false };
    struct vidmm_gpuva_frame none = { DDI_PTE_INVALID, 0, false };
    struct ddi_pte_update u[2];
    struct copro_pt_walk w;

    /* pages 1..2 to a read-only VRAM frame, page 4.. unmapped */
    g_assert_cmpint(vidmm_gpuva_remap(&space, va, 1, 2, &vr, &u[0]), ==,
                    DDI_OK);
    g_assert_cmpint(vidmm_gpuva_remap(&space, va, 4, 0, &none, &u[1]), ==,
                    DDI_OK);
    g_assert_null(copro_pte_update_emit(&mem, root, APERTURE_BYTES, u, 2,
                                        &stage, &buf, NULL));
    /* pages 1-2 share a table; 4-5 are in the next one */
    g_assert_cmpuint(run_copy_pte(), ==, 2);
    copro_pt_walk(&mem, root, va, false, &w);
    g_assert_cmphex(w.pa, ==, 0x10000);                 /* untouched */
    copro_pt_walk(&mem, root, va + 0x1000, false, &w);
    g_assert_true(w.ok);
    g_assert_cmphex(w.pa, ==, 0x41000);                 /* frame page 1 */
    g_assert_false(w.writable);
    copro_pt_walk(&mem, root, va + 0x2000, true, &w);
    g_assert_false(w.ok);                               /* read-only */
    copro_pt_walk(&mem, root, va + 0x3000, false, &w);
    g_assert_cmphex(w.pa, ==, 0x13000);                 /* untouched */
    copro_pt_walk(&mem, root, va + 0x4000, false, &w);
    g_assert_false(w.ok);
    g_assert_cmpuint(w.kind, ==, COPRO_FAULT_PAGE);
}

static void test_refusals_change_nothing(void)
{
    uint64_t va = setup();
    struct ddi_pte_update u = {
        .as = 3, .target = DDI_PTE_APERTURE, .va = va, .pages = 6,
        .addr = COPRO_APERTURE_BASE + APERTURE_BYTES - 0x2000,
        .writable = true,
    };
    uint8_t before[VRAM_SIZE / 16];

    memcpy(before, vram + STAGE, sizeof(before));
    /* aperture frames running past the aperture */
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    /* VRAM frames past VRAM */
    u.target = DDI_PTE_VRAM;
    u.addr = VRAM_SIZE - 0x1000;
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    /* a VA with no leaf table (never mapped) */
    u.addr = 0x10000;
    u.va = 0x80000000;
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    /* beyond the VA space, empty, unknown target */
    u.va = COPRO_VA_LIMIT;
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    u.va = va;
    u.pages = 0;
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    u.pages = 6;
    u.target = 9;
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    /* staging area too small */
    u.target = DDI_PTE_VRAM;
    stage.entries = 5;
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    stage.entries = 16;
    /* paging buffer too small for the two packets */
    buf.cap_dw = COPRO_LEN_COPY_PTE;
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    buf.cap_dw = sizeof(dw) / 4;
    /* none of that wrote anything */
    g_assert_cmpuint(buf.len_dw, ==, 0);
    g_assert_null(buf.error);
    g_assert_cmpuint(stage.used, ==, 0);
    g_assert_cmpmem(before, sizeof(before), vram + STAGE, sizeof(before));
    /* and the good one still works */
    g_assert_null(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                        &stage, &buf, NULL));
    g_assert_cmpuint(run_copy_pte(), ==, 2);
}

static void test_64k_region_refused(void)
{
    struct ddi_pte_update u = {
        .target = DDI_PTE_VRAM, .va = 0x400000, .pages = 1, .addr = 0x10000,
    };

    setup();
    g_assert_null(copro_pt_map_64k(&mem, root, 0x400000,
                                   copro_pte_leaf(0x20000, 0)));
    g_assert_nonnull(copro_pte_update_emit(&mem, root, APERTURE_BYTES, &u, 1,
                                           &stage, &buf, NULL));
    g_assert_cmpuint(buf.len_dw, ==, 0);
}

static void test_entry_encoding(void)
{
    struct ddi_pte_update u = {
        .target = DDI_PTE_APERTURE, .va = 0, .pages = 2,
        .addr = COPRO_APERTURE_BASE + 0x3000, .writable = false,
    };
    uint64_t e;

    /* the leaf holds the aperture offset with APERTURE set */
    g_assert_null(copro_pte_update_entry(&u, 1, VRAM_SIZE,
                                         COPRO_APERTURE_BASE, APERTURE_BYTES,
                                         &e));
    g_assert_cmphex(e, ==, 0x4000 | COPRO_PTE_VALID | COPRO_PTE_APERTURE);
    u.target = DDI_PTE_VRAM;
    u.addr = 0x5000;
    u.writable = true;
    g_assert_null(copro_pte_update_entry(&u, 0, VRAM_SIZE,
                                         COPRO_APERTURE_BASE, APERTURE_BYTES,
                                         &e));
    g_assert_cmphex(e, ==, 0x5000 | COPRO_PTE_VALID | COPRO_PTE_WRITABLE);
    u.target = DDI_PTE_INVALID;
    g_assert_null(copro_pte_update_entry(&u, 0, VRAM_SIZE,
                                         COPRO_APERTURE_BASE, APERTURE_BYTES,
                                         &e));
    g_assert_cmphex(e, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-pte-update/move-to-aperture",
                    test_move_to_aperture);
    g_test_add_func("/copro-pte-update/partial-and-unmap",
                    test_partial_and_unmap);
    g_test_add_func("/copro-pte-update/refusals-change-nothing",
                    test_refusals_change_nothing);
    g_test_add_func("/copro-pte-update/64k-region-refused",
                    test_64k_region_refused);
    g_test_add_func("/copro-pte-update/entry-encoding", test_entry_encoding);
    return g_test_run();
}
