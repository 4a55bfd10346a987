/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for vidmm/vidmm_tiles.c with kmd/copro_pte_update.c's
 * copro_gpuva_update_emit: a GPU VA update (map, unmap, copy of tile
 * mappings) becomes the paging companion's DMA buffer, WAIT + COPY_PTE +
 * FENCE. The buffer is executed here the way the device does (WAIT
 * checked against the fence value in VRAM, COPY_PTE copying 64-bit
 * entries, FENCE writing its value) and the page tables are then read
 * with the software walk of kmd/copro_pt.c, so each test states what the
 * GPU translates after the companion ran.
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "ddi/ddi.h"
#include "kmd/copro_pte_update.h"
#include "vidmm/vidmm_tiles.h"

#define VRAM_SIZE       (1u << 20)
#define POOL            0x80000u        /* page tables from here up */
#define STAGE           0x70000u        /* staged entries */
#define RENDER_FENCE    0x6f000u        /* the render context's fence */
#define PAGING_FENCE    0x6f008u        /* the companion's */
#define APERTURE_BYTES  (16u << 20)
#define SPACE_BASE      0x40000000ull
#define TILE_PAGES      16u             /* a 64 KiB tile */
#define OLD_FRAMES      0x10000u        /* first placement of the tiles */

#include "fake-pt-vram.h"

static uint64_t root;
static uint32_t dw[512];
static struct copro_dmabuf buf;
static struct copro_pte_stage stage;
static struct vidmm_gpuva_space space;
static struct vidmm_block blocks[4];
static uint64_t surf;                   /* the tiled resource's VA */

static const struct vidmm_monitored_fence wait42 = { RENDER_FENCE, 42 };
static const struct vidmm_monitored_fence signal43 = { PAGING_FENCE, 43 };

/* A space with one tiled resource of 4 tiles (64 pages) mapped, like the
 * `tiled` scenario's surface, onto OLD_FRAMES in order. */
static void setup(void)
{
    memset(vram, 0, sizeof(vram));
    next_table = POOL;
    g_assert_true(table(NULL, &root));
    g_assert_cmpint(vidmm_gpuva_init(&space, 1, 1, SPACE_BASE, 1u << 30,
                                     blocks, 4), ==, DDI_OK);
    g_assert_cmpint(vidmm_gpuva_map(&space, 4 * TILE_PAGES * 4096ull,
                                    0x10000, &surf), ==, DDI_OK);
    g_assert_cmphex(surf, ==, SPACE_BASE);
    for (unsigned i = 0; i < 4 * TILE_PAGES; i++) {
        g_assert_null(copro_pt_map_4k(&mem, root, surf + i * 4096ull,
                                      copro_pte_leaf(OLD_FRAMES +
                                                     i * 4096ull,
                                                     COPRO_PTE_WRITABLE)));
    }
    copro_dmabuf_init(&buf, dw, 0x60000, sizeof(dw));
    stage = (struct copro_pte_stage){ .vram = STAGE, .entries = 128 };
}

static uint64_t arg64(unsigned i)
{
    return dw[i] | (uint64_t)dw[i + 1] << 32;
}

/*
 * Runs the buffer as the device would; every packet must be WAIT,
 * COPY_PTE or FENCE. Returns the opcodes in order (up to cap) and their
 * count. A WAIT whose value is not there yet fails the test: the callers
 * set the render fence first, as the render engine would have.
 */
static unsigned run(uint32_t *ops, unsigned cap)
{
    unsigned i = 0, n = 0;

    while (i < buf.len_dw) {
        uint32_t hdr = dw[i];
        uint32_t op = COPRO_PKT_OP(hdr);

        if (n < cap) {
            ops[n] = op;
        }
        n++;
        switch (op) {
        case COPRO_OP_WAIT:
            g_assert_cmpuint(COPRO_PKT_LEN(hdr), ==, COPRO_LEN_WAIT);
            g_assert_cmpuint(rd(NULL, arg64(i + 1)), >=, arg64(i + 3));
            break;
        case COPRO_OP_COPY_PTE:
            g_assert_cmpuint(COPRO_PKT_LEN(hdr), ==, COPRO_LEN_COPY_PTE);
            g_assert_cmpuint(arg64(i + 1) % 8, ==, 0);
            g_assert_cmpuint(arg64(i + 3) % 8, ==, 0);
            memmove(vram + arg64(i + 1), vram + arg64(i + 3),
                    (size_t)dw[i + 5] * 8);
            break;
        case COPRO_OP_FENCE:
            g_assert_cmpuint(COPRO_PKT_LEN(hdr), ==, COPRO_LEN_FENCE);
            wr(NULL, arg64(i + 1), arg64(i + 3));
            break;
        default:
            g_assert_not_reached();
        }
        i += COPRO_PKT_LEN(hdr);
    }
    return n;
}

static uint64_t pa_of(uint64_t va)
{
    struct copro_pt_walk w;

    copro_pt_walk(&mem, root, va, false, &w);
    return w.ok ? w.pa : UINT64_MAX;
}

static void build(const struct vidmm_tile_op *ops, unsigned n,
                  const struct vidmm_monitored_fence *wait)
{
    struct vidmm_tiles_update up;

    g_assert_cmpint(vidmm_tiles_update(&space, ops, n, wait, &signal43, &up),
                    ==, DDI_OK);
    g_assert_null(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                          &up.req, &stage, &buf));
}

/* The scenario's remap: every tile to a new frame in a shuffled order. */
static void test_remap_tiles(void)
{
    static const unsigned order[4] = { 2, 0, 3, 1 };
    struct vidmm_tile_op ops[4];
    uint32_t kinds[8];

    setup();
    for (unsigned t = 0; t < 4; t++) {
        ops[t] = (struct vidmm_tile_op){
            .kind = VIDMM_TILE_MAP, .va = surf + t * 0x10000ull,
            .pages = TILE_PAGES,
            .frame = { DDI_PTE_VRAM, 0x40000 + order[t] * 0x10000ull, true },
        };
    }
    build(ops, 4, &wait42);
    /* building changed no live entry and signalled nothing */
    g_assert_cmphex(pa_of(surf + 0x10000), ==, OLD_FRAMES + 0x10000);
    g_assert_cmpuint(rd(NULL, PAGING_FENCE), ==, 0);
    /* the tiles' 64 entries are consecutive: one COPY_PTE */
    wr(NULL, RENDER_FENCE, 42);
    g_assert_cmpuint(run(kinds, 8), ==, 3);
    g_assert_cmpuint(kinds[0], ==, COPRO_OP_WAIT);
    g_assert_cmpuint(kinds[1], ==, COPRO_OP_COPY_PTE);
    g_assert_cmpuint(kinds[2], ==, COPRO_OP_FENCE);
    g_assert_cmpuint(arg64(3), ==, 42);                 /* WAIT value */
    g_assert_cmphex(arg64(1), ==, RENDER_FENCE);
    g_assert_cmpuint(rd(NULL, PAGING_FENCE), ==, 43);
    for (unsigned t = 0; t < 4; t++) {
        for (unsigned p = 0; p < TILE_PAGES; p++) {
            g_assert_cmphex(pa_of(surf + t * 0x10000ull + p * 4096ull + 4),
                            ==, 0x40000 + order[t] * 0x10000ull +
                                p * 4096ull + 4);
        }
    }
}

/* Map, unmap and copy in one update, applied in order: the copy sees the
 * map before it and not the unmap after it. */
static void test_map_unmap_copy_in_order(void)
{
    const struct vidmm_tile_op ops[] = {
        /* tile 0 -> aperture, read-only */
        { .kind = VIDMM_TILE_MAP, .va = surf, .pages = TILE_PAGES,
          .frame = { DDI_PTE_APERTURE, COPRO_APERTURE_BASE + 0x100000,
                     false } },
        /* tile 3 takes tile 0's (new) mapping: tiles may alias */
        { .kind = VIDMM_TILE_COPY, .va = surf + 0x30000,
          .src_va = surf, .pages = TILE_PAGES },
        /* tile 0's first two pages unmapped after the copy */
        { .kind = VIDMM_TILE_UNMAP, .va = surf, .pages = 2 },
    };
    uint32_t kinds[8];
    struct copro_pt_walk w;

    setup();
    build(ops, 3, NULL);
    /* no wait asked: no WAIT packet */
    g_assert_cmpuint(run(kinds, 8), ==, 4);
    g_assert_cmpuint(kinds[0], ==, COPRO_OP_COPY_PTE);
    g_assert_cmpuint(kinds[1], ==, COPRO_OP_COPY_PTE);
    g_assert_cmpuint(kinds[2], ==, COPRO_OP_COPY_PTE);
    g_assert_cmpuint(kinds[3], ==, COPRO_OP_FENCE);
    copro_pt_walk(&mem, root, surf, false, &w);
    g_assert_false(w.ok);
    g_assert_cmpuint(w.kind, ==, COPRO_FAULT_PAGE);
    g_assert_cmphex(pa_of(surf + 0x2000), ==,
                    COPRO_APERTURE_BASE + 0x102000);
    g_assert_cmphex(pa_of(surf + 0x30000), ==, COPRO_APERTURE_BASE + 0x100000);
    g_assert_cmphex(pa_of(surf + 0x3f000), ==, COPRO_APERTURE_BASE + 0x10f000);
    copro_pt_walk(&mem, root, surf + 0x30000, true, &w);
    g_assert_false(w.ok);                       /* copied read-only */
    /* tiles 1 and 2 untouched */
    g_assert_cmphex(pa_of(surf + 0x10000), ==, OLD_FRAMES + 0x10000);
    g_assert_cmphex(pa_of(surf + 0x2f000), ==, OLD_FRAMES + 0x2f000);
    g_assert_cmpuint(rd(NULL, PAGING_FENCE), ==, 43);
}

/* Each refusal by vidmm leaves *out as it was. */
static void refused(const struct vidmm_tile_op *ops, unsigned n,
                    const struct vidmm_monitored_fence *wait,
                    const struct vidmm_monitored_fence *signal, int want)
{
    static struct vidmm_tiles_update up, before;

    memset(&up, 0xa5, sizeof(up));
    before = up;
    g_assert_cmpint(vidmm_tiles_update(&space, ops, n, wait, signal, &up),
                    ==, want);
    g_assert_cmpmem(&up, sizeof(up), &before, sizeof(before));
}

static void test_refusals(void)
{
    struct vidmm_tile_op good = {
        .kind = VIDMM_TILE_MAP, .va = surf, .pages = TILE_PAGES,
        .frame = { DDI_PTE_VRAM, 0x40000, true },
    };
    struct vidmm_tile_op op, many[VIDMM_TILES_MAX_OPS + 1];
    const struct vidmm_monitored_fence bad_addr = { PAGING_FENCE + 4, 43 };
    const struct vidmm_monitored_fence no_addr = { 0, 43 };
    const struct vidmm_monitored_fence zero = { PAGING_FENCE, 0 };

    setup();
    /* VA outside the space's ranges: below, past the resource, inside
     * the space but never handed out, running off the resource's end */
    op = good;
    op.va = SPACE_BASE - 0x10000;
    refused(&op, 1, &wait42, &signal43, DDI_EBOUNDS);
    op.va = surf + 0x40000;
    refused(&op, 1, &wait42, &signal43, DDI_EBOUNDS);
    op.va = SPACE_BASE + 0x1000000;
    refused(&op, 1, &wait42, &signal43, DDI_EBOUNDS);
    op.va = surf + 0x30000;
    op.pages = TILE_PAGES + 1;
    refused(&op, 1, &wait42, &signal43, DDI_EBOUNDS);
    /* a copy whose source is outside */
    op = (struct vidmm_tile_op){ .kind = VIDMM_TILE_COPY, .va = surf,
                                 .src_va = surf + 0x40000, .pages = 1 };
    refused(&op, 1, &wait42, &signal43, DDI_EBOUNDS);
    /* overlapping copy */
    op.src_va = surf + 0x1000;
    op.pages = 2;
    refused(&op, 1, &wait42, &signal43, DDI_EINVAL);
    /* unaligned VA, unaligned frame, no pages, bad target, bad kind */
    op = good;
    op.va = surf + 0x800;
    refused(&op, 1, &wait42, &signal43, DDI_EINVAL);
    op = good;
    op.frame.addr = 0x40010;
    refused(&op, 1, &wait42, &signal43, DDI_EINVAL);
    op = good;
    op.pages = 0;
    refused(&op, 1, &wait42, &signal43, DDI_EINVAL);
    op = good;
    op.frame.target = DDI_PTE_INVALID;
    refused(&op, 1, &wait42, &signal43, DDI_EINVAL);
    op = good;
    op.kind = 7;
    refused(&op, 1, &wait42, &signal43, DDI_EINVAL);
    /* a bad op after a good one refuses the whole update */
    many[0] = good;
    many[1] = good;
    many[1].va = surf + 0x800;
    refused(many, 2, &wait42, &signal43, DDI_EINVAL);
    /* too many operations */
    for (unsigned i = 0; i <= VIDMM_TILES_MAX_OPS; i++) {
        many[i] = good;
    }
    refused(many, VIDMM_TILES_MAX_OPS + 1, &wait42, &signal43, DDI_ENOMEM);
    refused(many, 0, &wait42, &signal43, DDI_EINVAL);
    /* fences: unaligned, missing, value 0, no signal at all */
    refused(&good, 1, &bad_addr, &signal43, DDI_EINVAL);
    refused(&good, 1, &wait42, &bad_addr, DDI_EINVAL);
    refused(&good, 1, &wait42, &no_addr, DDI_EINVAL);
    refused(&good, 1, &wait42, &zero, DDI_EINVAL);
    refused(&good, 1, &wait42, NULL, DDI_EINVAL);
    /* the maximum is accepted */
    {
        struct vidmm_tiles_update up;

        g_assert_cmpint(vidmm_tiles_update(&space, many, VIDMM_TILES_MAX_OPS,
                                           &wait42, &signal43, &up), ==,
                        DDI_OK);
        g_assert_cmpuint(up.req.nops, ==, VIDMM_TILES_MAX_OPS);
        g_assert_true(up.req.ops == up.ops);
    }
}

/* The driver refuses what it cannot build, changing neither the buffer
 * nor the staging area, and a good update still goes through after. */
static void test_driver_refusals_change_nothing(void)
{
    const struct vidmm_tile_op ops[] = {
        { .kind = VIDMM_TILE_MAP, .va = surf, .pages = 4 * TILE_PAGES,
          .frame = { DDI_PTE_VRAM, 0x20000, true } },
        { .kind = VIDMM_TILE_COPY, .va = surf + 0x10000, .src_va = surf,
          .pages = 4 },
    };
    struct vidmm_tiles_update up;
    uint8_t before[0x1000];
    uint32_t kinds[8];

    setup();
    g_assert_cmpint(vidmm_tiles_update(&space, ops, 2, &wait42, &signal43,
                                       &up), ==, DDI_OK);
    memcpy(before, vram + STAGE, sizeof(before));
    /* staging area too small for the 64 entries */
    stage.entries = 63;
    g_assert_nonnull(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                             &up.req, &stage, &buf));
    stage.entries = 128;
    /* buffer one dword too small for WAIT + 2 COPY_PTE + FENCE */
    buf.cap_dw = COPRO_LEN_WAIT + 2 * COPRO_LEN_COPY_PTE + COPRO_LEN_FENCE - 1;
    g_assert_nonnull(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                             &up.req, &stage, &buf));
    buf.cap_dw = sizeof(dw) / 4;
    /* a frame past VRAM (the driver knows the segment sizes) */
    up.ops[0].set.addr = VRAM_SIZE - 0x1000;
    g_assert_nonnull(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                             &up.req, &stage, &buf));
    up.ops[0].set.addr = 0x20000;
    /* a copy over VA without leaf tables */
    up.ops[1].copy.src_va = 0x80000000;
    g_assert_nonnull(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                             &up.req, &stage, &buf));
    /* overlapping copy ranges (vidmm refuses them too) */
    up.ops[1].copy.src_va = surf + 0x12000;
    g_assert_nonnull(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                             &up.req, &stage, &buf));
    up.ops[1].copy.src_va = surf;
    /* an unknown operation kind */
    up.ops[1].kind = 5;
    g_assert_nonnull(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                             &up.req, &stage, &buf));
    up.ops[1].kind = DDI_GPUVA_OP_COPY;
    g_assert_cmpuint(buf.len_dw, ==, 0);
    g_assert_null(buf.error);
    g_assert_cmpuint(stage.used, ==, 0);
    g_assert_cmpmem(before, sizeof(before), vram + STAGE, sizeof(before));
    g_assert_cmphex(pa_of(surf), ==, OLD_FRAMES);

    g_assert_null(copro_gpuva_update_emit(&mem, root, APERTURE_BYTES,
                                          &up.req, &stage, &buf));
    g_assert_cmpuint(stage.used, ==, 4 * TILE_PAGES);
    wr(NULL, RENDER_FENCE, 42);
    g_assert_cmpuint(run(kinds, 8), ==, 4);
    g_assert_cmphex(pa_of(surf + 0x3f000), ==, 0x20000 + 0x3f000);
    /* the copy ran after the map: tile 1's first pages alias tile 0's */
    g_assert_cmphex(pa_of(surf + 0x13000), ==, 0x20000 + 0x3000);
    g_assert_cmphex(pa_of(surf + 0x14000), ==, 0x20000 + 0x14000);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidmm-tiles/remap-tiles", test_remap_tiles);
    g_test_add_func("/vidmm-tiles/map-unmap-copy-in-order",
                    test_map_unmap_copy_in_order);
    g_test_add_func("/vidmm-tiles/refusals", test_refusals);
    g_test_add_func("/vidmm-tiles/driver-refusals-change-nothing",
                    test_driver_refusals_change_nothing);
    return g_test_run();
}
