/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the copro render validator and patcher
 * (firmware/kmd/copro_render.c): good command buffers (built with the umd)
 * are copied and patched exactly; hostile ones (bad opcodes, lengths,
 * flags, supplied addresses, forged or missing patch locations,
 * out-of-bounds accesses, huge sizes) are refused with the documented
 * code; and randomly mutated buffers are either refused or only ever
 * touch memory inside their allocations once patched.
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_cmd.h>
#include <copro/copro_tiler.h>

#include "ddi/ddi.h"
#include "kmd/copro_render.h"
#include "umd/umd.h"

#define ALL_OPS     0xffffffffu
#define CAP_BYTES   4096u
#define NALLOC      4

/* Allocation handles and sizes the "kernel" resolved. */
static const uint32_t H[NALLOC] = { 0x1001, 0x1002, 0x1003, 0x1004 };
static struct ddi_alloc_desc desc[NALLOC] = {
    { .size = 4096, .gpu_addr = 0x100000 },
    { .size = 65536, .gpu_addr = 0x200000 },
    { .size = 64, .gpu_addr = 0x300000 },
    { .size = 256 * 1024, .gpu_addr = 0x400000 },
};

static uint32_t cmd_words[CAP_BYTES / 4];
static struct umd_cmdbuf cb;
static uint32_t out_words[CAP_BYTES / 4 + 16];
static struct ddi_dmabuf out;
static struct ddi_alloc_desc resolved[DDI_MAX_ALLOC_LIST];

static struct umd_cmdbuf *fresh(void)
{
    umd_init(&cb, cmd_words, sizeof(cmd_words));
    return &cb;
}

static struct ddi_alloc_desc *desc_of(uint32_t handle)
{
    for (unsigned i = 0; i < NALLOC; i++) {
        if (H[i] == handle) {
            return &desc[i];
        }
    }
    return &desc[0];
}

/* What the kernel does before render: resolve the list in order. */
static struct ddi_render_args args_of(const struct umd_cmdbuf *b,
                                      unsigned engine)
{
    for (unsigned i = 0; i < b->nalloc; i++) {
        resolved[i] = *desc_of(b->alloc[i].handle);
    }
    return (struct ddi_render_args){
        .engine = engine, .cmd = umd_words(b), .cmd_bytes = umd_bytes(b),
        .alloc = b->alloc, .nalloc = b->nalloc, .patch = b->patch,
        .npatch = b->npatch, .alloc_desc = resolved,
    };
}

static void out_reset(void)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(out_words); i++) {
        out_words[i] = 0xcccccccc;
    }
    memset(&out, 0, sizeof(out));
    out.dw = out_words;
    out.gpu_addr = 0x900000;
    out.cap_bytes = CAP_BYTES;
}

static int validate_args(const struct ddi_render_args *a, uint32_t ops,
                         struct copro_render_diag *d)
{
    out_reset();
    return copro_render_validate(a, ops, &out, d);
}

static int validate(const struct umd_cmdbuf *b, unsigned engine,
                    uint32_t ops)
{
    struct ddi_render_args a = args_of(b, engine);
    struct copro_render_diag d;
    int st;

    g_assert_true(umd_ok(b));
    st = validate_args(&a, ops, &d);
    g_assert_cmpint(d.status, ==, st);
    if (st != DDI_OK) {
        g_assert_nonnull(d.why);
        g_test_message("refused at %#x: %s", d.offset, d.why);
    }
    return st;
}

static uint64_t get64(const uint32_t *p)
{
    return p[0] | ((uint64_t)p[1] << 32);
}

/* One of every packet an application may use, all accepted and patched. */
static void test_good_buffer(void)
{
    struct umd_cmdbuf *b = fresh();
    uint32_t o_ts, o_copy, o_tgt, o_fence, o_wait, o_fill;

    o_ts = umd_timestamp(b, H[0], 8);
    o_fill = umd_fill(b, H[1], 64, 1024, 0xabcdef01);
    o_copy = umd_copy(b, H[1], 4096, H[3], 100, 2000);
    o_tgt = umd_set_target(b, 2, H[3], 0, 256, 64, 32, COPRO_FMT_XRGB8888);
    umd_rect(b, 2, 1, 2, 3, 4, 0x112233);
    umd_work(b, 5000);
    umd_work(b, 7000);
    umd_nop(b, 3);
    o_wait = umd_wait(b, H[2], 56, 9);
    o_fence = umd_fence(b, H[0], 4088, 77);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);

    g_assert_cmpuint(out.len_bytes, ==, umd_bytes(b));
    g_assert_cmpint(memcmp(out_words, cmd_words, out.len_bytes), ==, 0);
    g_assert_cmphex(out_words[out.len_bytes / 4], ==, 0xcccccccc);
    g_assert_cmpuint(out.work_ns, ==, 12000);
    g_assert_cmpuint(out.engine, ==, 0);
    g_assert_cmpuint(out.nalloc, ==, 4);
    g_assert_cmpuint(out.npatch, ==, 7);
    for (unsigned i = 1; i < out.npatch; i++) {
        g_assert_cmpuint(out.patch[i - 1].patch_offset, <,
                         out.patch[i].patch_offset);
    }

    /* Patch everything: each field holds its allocation's address. */
    g_assert_cmpint(copro_render_patch(&out, resolved, 0, out.len_bytes),
                    ==, DDI_OK);
    g_assert_cmphex(get64(&out_words[o_ts / 4 + 1]), ==, 0x100000 + 8);
    g_assert_cmphex(get64(&out_words[o_fill / 4 + 1]), ==, 0x200000 + 64);
    g_assert_cmphex(get64(&out_words[o_copy / 4 + 1]), ==, 0x200000 + 4096);
    g_assert_cmphex(get64(&out_words[o_copy / 4 + 3]), ==, 0x400000 + 100);
    g_assert_cmphex(get64(&out_words[o_copy / 4 + 5]), ==, 2000);
    g_assert_cmphex(get64(&out_words[o_tgt / 4 + 1]), ==, 0x400000);
    g_assert_cmphex(get64(&out_words[o_wait / 4 + 1]), ==, 0x300000 + 56);
    g_assert_cmphex(get64(&out_words[o_fence / 4 + 1]), ==, 0x100000 + 4088);
    g_assert_cmphex(get64(&out_words[o_fence / 4 + 3]), ==, 77);
}

/* patch writes only the locations whose split point is in the range. */
static void test_patch_range(void)
{
    struct umd_cmdbuf *b = fresh();
    uint32_t o1, o2, o3;

    o1 = umd_timestamp(b, H[0], 0);
    o2 = umd_timestamp(b, H[0], 8);
    o3 = umd_timestamp(b, H[0], 16);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    g_assert_cmpint(copro_render_patch(&out, resolved, o2, o3), ==, DDI_OK);
    g_assert_cmphex(get64(&out_words[o1 / 4 + 1]), ==, 0);
    g_assert_cmphex(get64(&out_words[o2 / 4 + 1]), ==, 0x100008);
    g_assert_cmphex(get64(&out_words[o3 / 4 + 1]), ==, 0);
    g_assert_cmpint(copro_render_patch(&out, resolved, o3, out.len_bytes),
                    ==, DDI_OK);
    g_assert_cmphex(get64(&out_words[o3 / 4 + 1]), ==, 0x100010);
    /* a corrupted location is refused, never written */
    out.patch[0].slot = 99;
    g_assert_cmpint(copro_render_patch(&out, resolved, 0, out.len_bytes),
                    ==, DDI_EINVAL);
}

/* The patch list may come in any order; the DMA buffer's is sorted. */
static void test_patch_order(void)
{
    struct umd_cmdbuf *b = fresh();
    struct ddi_patch_loc tmp;

    umd_copy(b, H[1], 0, H[3], 0, 64);
    umd_timestamp(b, H[0], 0);
    tmp = b->patch[0];
    b->patch[0] = b->patch[2];
    b->patch[2] = tmp;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    g_assert_cmpuint(out.patch[0].patch_offset, ==, 4);
    g_assert_cmpuint(out.patch[1].patch_offset, ==, 12);
    g_assert_cmpuint(out.patch[2].patch_offset, ==, 28 + 4);
}

static void test_sizes(void)
{
    struct umd_cmdbuf *b = fresh();
    struct ddi_render_args a;

    umd_work(b, 10);
    a = args_of(b, 0);
    a.cmd_bytes = 0;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    a.cmd_bytes = 6;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    a.cmd_bytes = CAP_BYTES + 4;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    a.cmd_bytes = 0xfffffffc;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    a = args_of(b, 0);
    a.cmd = NULL;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    /* nothing was copied for a refused size */
    g_assert_cmphex(out_words[0], ==, 0xcccccccc);
}

static void test_lists(void)
{
    struct umd_cmdbuf *b = fresh();
    struct ddi_render_args a;

    umd_timestamp(b, H[0], 0);
    umd_timestamp(b, H[1], 0);
    a = args_of(b, 0);
    a.nalloc = DDI_MAX_ALLOC_LIST + 1;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    a = args_of(b, 0);
    a.npatch = DDI_MAX_PATCH_LIST + 1;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    a = args_of(b, 0);
    a.alloc_desc = NULL;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    a = args_of(b, 0);
    a.patch = NULL;
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
    /* the same allocation listed twice */
    b->alloc[1].handle = b->alloc[0].handle;
    a = args_of(b, 0);
    g_assert_cmpint(validate_args(&a, ALL_OPS, NULL), ==, DDI_EINVAL);
}

/* A buffer of raw dwords with no lists. */
static int validate_raw(const uint32_t *dw, unsigned n, uint32_t ops)
{
    struct ddi_render_args a = {
        .cmd = dw, .cmd_bytes = n * 4, .alloc_desc = resolved,
    };
    struct copro_render_diag d;
    int st = validate_args(&a, ops, &d);

    if (st) {
        g_test_message("refused at %#x: %s", d.offset, d.why);
    }
    return st;
}

static void test_opcodes(void)
{
    const uint32_t unknown[] = { COPRO_PKT_HDR(COPRO_OP_LAST + 1, 0, 1) };
    const uint32_t unknown2[] = { COPRO_PKT_HDR(0xff, 0, 1) };
    const uint32_t intr[] = { COPRO_PKT_HDR(COPRO_OP_INTERRUPT, 0, 2), 7 };
    const uint32_t pte[] = {
        COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, 6), 0, 0, 0, 0, 1,
    };
    const uint32_t work[] = { COPRO_PKT_HDR(COPRO_OP_WORK, 0, 3), 10, 0 };
    const uint32_t rect_after_nop[] = {
        COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1),
        COPRO_PKT_HDR(0x42, 0, 6), 0, 0, 1, 1, 0,
    };
    struct copro_render_diag d;
    struct ddi_render_args a = {
        .cmd = rect_after_nop, .cmd_bytes = sizeof(rect_after_nop),
    };

    g_assert_cmpint(validate_raw(unknown, 1, ALL_OPS), ==, DDI_EOPCODE);
    g_assert_cmpint(validate_raw(unknown2, 1, ALL_OPS), ==, DDI_EOPCODE);
    g_assert_cmpint(validate_raw(intr, 2, ALL_OPS), ==, DDI_EOPCODE);
    g_assert_cmpint(validate_raw(pte, 6, ALL_OPS), ==, DDI_EOPCODE);
    /* WORK runs on the render engine, not on the copy engine */
    g_assert_cmpint(validate_raw(work, 3, ALL_OPS), ==, DDI_OK);
    g_assert_cmpint(validate_raw(work, 3, COPRO_COPY_ENGINE_OPS), ==,
                    DDI_EOPCODE);
    /* the diagnosis names the packet */
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_EOPCODE);
    g_assert_cmpuint(d.offset, ==, 4);
}

static void test_copy_engine(void)
{
    struct umd_cmdbuf *b = fresh();

    umd_copy(b, H[1], 0, H[3], 0, 4096);
    umd_fill(b, H[1], 0, 64, 1);
    umd_timestamp(b, H[0], 0);
    g_assert_cmpint(validate(b, 1, COPRO_COPY_ENGINE_OPS), ==, DDI_OK);
    b = fresh();
    umd_set_target(b, 0, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    g_assert_cmpint(validate(b, 1, COPRO_COPY_ENGINE_OPS), ==, DDI_EOPCODE);
}

static void test_lengths_flags(void)
{
    const uint32_t zero_len[] = { COPRO_PKT_HDR(COPRO_OP_NOP, 0, 0) };
    const uint32_t overrun[] = { COPRO_PKT_HDR(COPRO_OP_NOP, 0, 3), 0 };
    const uint32_t short_work[] = { COPRO_PKT_HDR(COPRO_OP_WORK, 0, 2), 1 };
    const uint32_t long_work[] = {
        COPRO_PKT_HDR(COPRO_OP_WORK, 0, 4), 1, 0, 0,
    };
    const uint32_t work_flags[] = {
        COPRO_PKT_HDR(COPRO_OP_WORK, 1, 3), 1, 0,
    };
    const uint32_t huge_nop[] = { COPRO_PKT_HDR(COPRO_OP_NOP, 0, 0xffff) };
    const uint32_t nops[] = {
        COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1), COPRO_PKT_HDR(COPRO_OP_NOP, 0, 2),
        0xdeadbeef,
    };

    g_assert_cmpint(validate_raw(zero_len, 1, ALL_OPS), ==, DDI_EINVAL);
    g_assert_cmpint(validate_raw(overrun, 2, ALL_OPS), ==, DDI_EINVAL);
    g_assert_cmpint(validate_raw(short_work, 2, ALL_OPS), ==, DDI_EINVAL);
    g_assert_cmpint(validate_raw(long_work, 4, ALL_OPS), ==, DDI_EINVAL);
    g_assert_cmpint(validate_raw(work_flags, 3, ALL_OPS), ==, DDI_EINVAL);
    g_assert_cmpint(validate_raw(huge_nop, 1, ALL_OPS), ==, DDI_EINVAL);
    g_assert_cmpint(validate_raw(nops, 3, ALL_OPS), ==, DDI_OK);
}

/* FENCE with the IRQ flag: applications do not raise interrupts. */
static void test_fence_irq(void)
{
    struct umd_cmdbuf *b = fresh();
    uint32_t o = umd_fence(b, H[0], 0, 1);

    cmd_words[o / 4] |= COPRO_FENCE_IRQ << 8;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
}

/* Applications never supply addresses, and every field is patched. */
static void test_addresses(void)
{
    struct umd_cmdbuf *b;
    uint32_t o;

    /* a non-zero address in the buffer (high half too) */
    b = fresh();
    o = umd_timestamp(b, H[0], 0);
    cmd_words[o / 4 + 1] = 0x1000;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b = fresh();
    o = umd_copy(b, H[1], 0, H[3], 0, 16);
    cmd_words[o / 4 + 4] = 1;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);

    /* an address field without a patch location */
    b = fresh();
    umd_copy(b, H[1], 0, H[3], 0, 16);
    b->npatch = 1;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);

    /* a patch location on the size field: it would write an address
     * where the size goes */
    b = fresh();
    o = umd_copy(b, H[1], 0, H[3], 0, 16);
    b->patch[b->npatch++] = (struct ddi_patch_loc){
        .slot = 0, .patch_offset = o + 20, .split_offset = o,
    };
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);

    /* a patch location beyond the buffer, or unaligned */
    b = fresh();
    umd_timestamp(b, H[0], 0);
    b->patch[0].patch_offset = 4096;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b->patch[0].patch_offset = 6;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);

    /* two locations for one field */
    b = fresh();
    umd_timestamp(b, H[0], 0);
    b->patch[1] = b->patch[0];
    b->npatch = 2;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);

    /* split_offset not the packet, slot_id not its target slot */
    b = fresh();
    umd_nop(b, 1);
    umd_timestamp(b, H[0], 0);
    b->patch[0].split_offset = 0;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b = fresh();
    umd_timestamp(b, H[0], 0);
    b->patch[0].slot_id = 1;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b = fresh();
    umd_set_target(b, 3, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    g_assert_cmpuint(b->patch[0].slot_id, ==, 3);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    b->patch[0].slot_id = 0;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);

    /* a slot beyond the allocation list */
    b = fresh();
    umd_timestamp(b, H[0], 0);
    b->patch[0].slot = 1;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b->patch[0].slot = UINT32_MAX;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);

    /* writing an allocation the list gives as read-only */
    b = fresh();
    umd_fill(b, H[1], 0, 64, 0);
    b->alloc[0].write = 0;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    /* reading one is fine */
    b = fresh();
    umd_wait(b, H[2], 0, 1);
    g_assert_cmpuint(b->alloc[0].write, ==, 0);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
}

static void test_bounds(void)
{
    struct umd_cmdbuf *b;

    /* COPY: destination and source by size (H[2] is 64 bytes) */
    b = fresh();
    umd_copy(b, H[2], 0, H[1], 0, 64);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    b = fresh();
    umd_copy(b, H[2], 1, H[1], 0, 64);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    b = fresh();
    umd_copy(b, H[1], 0, H[2], 0, 65);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    /* offset + size wrapping around 2^64 */
    b = fresh();
    umd_copy(b, H[1], UINT64_MAX - 7, H[3], 0, 16);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    b = fresh();
    umd_copy(b, H[1], 0, H[3], 0, UINT64_MAX);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    /* FILL */
    b = fresh();
    umd_fill(b, H[2], 4, 64, 0);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    b = fresh();
    umd_fill(b, H[2], 0, 1ull << 40, 0);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    /* TIMESTAMP, FENCE, WAIT: 8 bytes, 8-aligned */
    b = fresh();
    umd_timestamp(b, H[2], 56);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    b = fresh();
    umd_timestamp(b, H[2], 60);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    b = fresh();
    umd_fence(b, H[2], 64, 1);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    b = fresh();
    umd_wait(b, H[2], 4, 1);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    /* SET_TARGET: pitch * height (H[1] is 64 KiB) */
    b = fresh();
    umd_set_target(b, 0, H[1], 0, 256, 64, 256, COPRO_FMT_XRGB8888);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    b = fresh();
    umd_set_target(b, 0, H[1], 256, 256, 64, 256, COPRO_FMT_XRGB8888);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
    b = fresh();
    umd_set_target(b, 0, H[1], 0, 0x10000, 1, 2, COPRO_FMT_R8);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EBOUNDS);
}

static void test_surfaces(void)
{
    struct umd_cmdbuf *b;
    uint32_t o;

    /* the umd refuses bad surfaces itself; forge them in the words */
    b = fresh();
    o = umd_set_target(b, 0, H[3], 0, 256, 64, 32, COPRO_FMT_XRGB8888);
    cmd_words[o / 4 + 6] = 0;                       /* format */
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    cmd_words[o / 4 + 6] = COPRO_FMT_XRGB8888;
    cmd_words[o / 4 + 3] = 255;                     /* pitch < row */
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    cmd_words[o / 4 + 3] = 256;
    cmd_words[o / 4 + 5] = COPRO_TARGET_MAX_DIM + 1;    /* height */
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    cmd_words[o / 4 + 5] = 32;
    cmd_words[o / 4] = COPRO_PKT_HDR(COPRO_OP_SET_TARGET, 4,
                                     COPRO_LEN_SET_TARGET);    /* slot */
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
}

/* A RECT may only draw into a target its own buffer bound: slots keep
 * other contexts' surfaces between buffers. */
static void test_rect_unbound(void)
{
    struct umd_cmdbuf *b;
    const uint32_t rect[] = {
        COPRO_PKT_HDR(COPRO_OP_RECT, 0, 6), 0, 0, 8, 8, 0xff,
    };

    g_assert_cmpint(validate_raw(rect, 6, ALL_OPS), ==, DDI_EINVAL);
    b = fresh();
    umd_set_target(b, 1, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    umd_rect(b, 0, 0, 0, 1, 1, 0);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b = fresh();
    umd_set_target(b, 1, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    umd_rect(b, 1, 0, 0, 1000, 1000, 0);    /* clipped by the device */
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
}

/*
 * issue 15 item 1: a packet with patch locations is a split point, after
 * which vidmm may run paging buffers and other contexts (binding their
 * own targets) before the rest of the buffer. A RECT after it must have
 * its own SET_TARGET after it: the kernel does not trust the umd to
 * re-bind.
 */
static void test_rect_after_split(void)
{
    struct umd_cmdbuf *b;

    /* bound, then a split point (FILL), then a RECT: refused */
    b = fresh();
    umd_set_target(b, 0, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    umd_fill(b, H[1], 0, 64, 0);
    g_assert_cmpuint(copro_emit_rect(&b->enc, 0, 0, 0, 4, 4, 0xff), !=,
                     UMD_FAILED);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    /* a SET_TARGET of another slot is a split point too */
    b = fresh();
    umd_set_target(b, 0, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    umd_set_target(b, 1, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    g_assert_cmpuint(copro_emit_rect(&b->enc, 0, 0, 0, 4, 4, 0xff), !=,
                     UMD_FAILED);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    /* packets without address fields (WORK, NOP) are no split points */
    b = fresh();
    umd_set_target(b, 0, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    umd_work(b, 10);
    g_assert_cmpuint(copro_emit_rect(&b->enc, 0, 0, 0, 4, 4, 0xff), !=,
                     UMD_FAILED);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    /* what the umd builds: it binds again after the split point */
    b = fresh();
    umd_set_target(b, 0, H[3], 0, 64, 16, 16, COPRO_FMT_XRGB8888);
    umd_fill(b, H[1], 0, 64, 0);
    umd_rect(b, 0, 0, 0, 4, 4, 0xff);
    g_assert_cmpuint(b->rebinds, ==, 1);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
}

static void test_sizes_in_packets(void)
{
    struct umd_cmdbuf *b;
    uint32_t o;

    b = fresh();
    umd_work(b, COPRO_RENDER_MAX_WORK_NS);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_OK);
    umd_work(b, 1);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b = fresh();
    umd_work(b, 1ull << 63);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    b = fresh();
    umd_work(b, UINT64_MAX);
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
    /* FILL of a size that is not a multiple of 4 */
    b = fresh();
    o = umd_fill(b, H[1], 0, 64, 0);
    cmd_words[o / 4 + 3] = 63;
    g_assert_cmpint(validate(b, 0, ALL_OPS), ==, DDI_EINVAL);
}

/*
 * Random mutations of a good buffer and its lists: never a crash, never a
 * write past the DMA buffer, and whatever is accepted, once patched, only
 * addresses bytes inside its allocations.
 */
static bool inside(uint64_t addr, uint64_t bytes)
{
    for (unsigned i = 0; i < NALLOC; i++) {
        if (addr >= desc[i].gpu_addr && bytes <= desc[i].size &&
            addr - desc[i].gpu_addr <= desc[i].size - bytes) {
            return true;
        }
    }
    return false;
}

static void check_accesses(const uint32_t *dw, uint32_t len)
{
    uint32_t bound_h[COPRO_TARGET_SLOTS] = { 0 };

    for (uint32_t off = 0; off < len;) {
        const uint32_t *p = dw + off / 4;
        unsigned op = COPRO_PKT_OP(p[0]);
        unsigned n = COPRO_PKT_LEN(p[0]);

        g_assert_cmpuint(n, >, 0);
        switch (op) {
        case COPRO_OP_TIMESTAMP:
        case COPRO_OP_FENCE:
        case COPRO_OP_WAIT:
        case COPRO_OP_COPY:
        case COPRO_OP_FILL:
        case COPRO_OP_SET_TARGET:
            /* a split point: nothing bound after it (issue 15 item 1) */
            memset(bound_h, 0, sizeof(bound_h));
            break;
        default:
            break;
        }
        switch (op) {
        case COPRO_OP_TIMESTAMP:
        case COPRO_OP_FENCE:
        case COPRO_OP_WAIT:
            g_assert_true(inside(get64(p + 1), 8));
            break;
        case COPRO_OP_COPY:
            g_assert_true(inside(get64(p + 1), get64(p + 5)));
            g_assert_true(inside(get64(p + 3), get64(p + 5)));
            break;
        case COPRO_OP_FILL:
            g_assert_true(inside(get64(p + 1), get64(p + 3)));
            break;
        case COPRO_OP_SET_TARGET:
            g_assert_true(inside(get64(p + 1), (uint64_t)p[3] * p[5]));
            bound_h[COPRO_PKT_FLAGS(p[0])] = 1;
            break;
        case COPRO_OP_RECT:
            g_assert_cmpuint(bound_h[COPRO_PKT_FLAGS(p[0])], ==, 1);
            break;
        case COPRO_OP_NOP:
        case COPRO_OP_WORK:
            break;
        default:
            g_assert_not_reached();
        }
        off += n * 4;
    }
}

static void test_fuzz(void)
{
    GRand *rng = g_rand_new_with_seed(0xc0b40);
    unsigned accepted = 0, runs = 20000;

    for (unsigned run = 0; run < runs; run++) {
        struct umd_cmdbuf *b = fresh();
        struct ddi_render_args a;
        int st;

        umd_timestamp(b, H[0], 0);
        umd_copy(b, H[1], 128, H[3], 64, 1024);
        umd_fill(b, H[2], 0, 64, 0x55);
        umd_set_target(b, 1, H[3], 0, 256, 64, 32, COPRO_FMT_XRGB8888);
        umd_rect(b, 1, 0, 0, 8, 8, 0xff);
        umd_work(b, 1000);
        umd_fence(b, H[0], 8, 3);
        for (unsigned m = g_rand_int_range(rng, 1, 4); m; m--) {
            switch (g_rand_int_range(rng, 0, 6)) {
            case 0:     /* flip a bit of the buffer */
                cmd_words[g_rand_int_range(rng, 0, umd_bytes(b) / 4)] ^=
                    1u << g_rand_int_range(rng, 0, 32);
                break;
            case 1:     /* a random dword */
                cmd_words[g_rand_int_range(rng, 0, umd_bytes(b) / 4)] =
                    g_rand_int(rng);
                break;
            case 2: {   /* a patch field (of the full list) */
                struct ddi_patch_loc *pl =
                    &b->patch[g_rand_int_range(rng, 0, 8)];
                switch (g_rand_int_range(rng, 0, 4)) {
                case 0: pl->slot = g_rand_int_range(rng, 0, 6); break;
                case 1: pl->patch_offset += 4 * g_rand_int_range(rng, -2, 3);
                        break;
                case 2: pl->alloc_offset = g_rand_int_range(rng, 0, 70000);
                        break;
                default: pl->split_offset = g_rand_int(rng) % 128; break;
                }
                break;
            }
            case 3:     /* the write flags */
                b->alloc[g_rand_int_range(rng, 0, b->nalloc)].write ^= 1;
                break;
            case 4:     /* list lengths */
                b->npatch = g_rand_int_range(rng, 0, b->npatch + 1);
                break;
            default:    /* the length */
                b->enc.len_dw = g_rand_int_range(rng, 1, b->enc.len_dw + 1);
                break;
            }
        }
        a = args_of(b, 0);
        st = validate_args(&a, ALL_OPS, NULL);
        g_assert_cmphex(out_words[CAP_BYTES / 4], ==, 0xcccccccc);
        if (st == DDI_OK) {
            accepted++;
            g_assert_cmpint(copro_render_patch(&out, resolved, 0,
                                               out.len_bytes), ==, DDI_OK);
            check_accesses(out_words, out.len_bytes);
        } else {
            g_assert_true(st == DDI_EINVAL || st == DDI_EBOUNDS ||
                          st == DDI_EOPCODE);
        }
    }
    g_test_message("%u of %u mutated buffers accepted", accepted, runs);
    g_assert_cmpuint(accepted, >, 0);
    g_assert_cmpuint(accepted, <, runs);
    g_rand_free(rng);
}

/* GPU-VA mode: addresses taken as they are, no lists (the MMU confines
 * them); the same buffer is refused in packet mode, and lists are
 * refused in GPU-VA mode. */
static void test_gpuva(void)
{
    struct umd_cmdbuf b;
    struct ddi_render_args a;
    struct copro_render_diag d;

    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_va_fill(&b, 0x100000000ull, 4096, 0x11223344);
    umd_va_copy(&b, 0x100002000ull, 0x100000000ull, 4096);
    g_assert_true(umd_ok(&b));
    a = (struct ddi_render_args){
        .engine = 0, .cmd = umd_words(&b), .cmd_bytes = umd_bytes(&b),
        .gpuva = true,
    };
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_OK);
    g_assert_cmpuint(get64(&out.dw[1]), ==, 0x100000000ull);
    a.gpuva = false;
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_EINVAL);
    /* a list in GPU-VA mode */
    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_fill(&b, H[0], 0, 64, 1);
    a = args_of(&b, 0);
    a.gpuva = true;
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_EINVAL);
}

/* GPU-VA arguments for the buffer b */
static struct ddi_render_args va_args(const struct umd_cmdbuf *b,
                                      unsigned engine)
{
    return (struct ddi_render_args){
        .engine = engine, .cmd = umd_words(b), .cmd_bytes = umd_bytes(b),
        .gpuva = true,
    };
}

#define PB_VA   0x200000000ull
#define TGT_VA  0x100000000ull

/* A scene's geometry and tile buffers, then each way to break one. */
static void test_scene(void)
{
    struct umd_cmdbuf b;
    struct ddi_render_args a;
    struct copro_render_diag d;
    uint32_t at;

    /* geometry */
    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_va_set_target(&b, 1, TGT_VA, 1024, 200, 100, COPRO_FMT_XRGB8888);
    at = umd_va_scene_begin(&b, 1, true, PB_VA, 65536, 0x123);
    umd_bin_rect(&b, 0, 0, 200, 100, 7);
    umd_bin_rect(&b, 1, 2, 3, 4, 5);
    umd_va_bin_blit(&b, TGT_VA + 4096, 256, 10, 20, 30, 40);
    umd_scene_end(&b);
    g_assert_true(umd_ok(&b));
    a = va_args(&b, 0);
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_OK);
    g_assert_cmphex(out.dw[at / 4], ==,
                    COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, 1 | COPRO_SCENE_CLEAR,
                                  COPRO_LEN_SCENE_BEGIN));
    g_assert_cmphex(get64(&out.dw[at / 4 + 1]), ==, PB_VA);
    /* with an allocation list: not at all */
    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_set_target(&b, 1, H[3], 0, 256, 64, 32, COPRO_FMT_XRGB8888);
    umd_va_scene_begin(&b, 1, true, 0, 65536, 0x123);
    a = args_of(&b, 0);
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_EOPCODE);
    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_set_target(&b, 1, H[3], 0, 256, 64, 32, COPRO_FMT_XRGB8888);
    umd_va_scene_begin(&b, 1, true, PB_VA, 65536, 0x123);
    /* nor on the copy engine */
    a = va_args(&b, 1);
    g_assert_cmpint(validate_args(&a, COPRO_COPY_ENGINE_OPS, &d), ==,
                    DDI_EOPCODE);

    /* tiles */
    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_va_set_target(&b, 3, TGT_VA, 1024, 200, 100, COPRO_FMT_XRGB8888);
    umd_va_tile_render(&b, 3, false, PB_VA, 28);
    umd_va_tile_render(&b, 3, true, PB_VA, 28);
    a = va_args(&b, 0);
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_OK);

    /* a slot another buffer (another context) bound */
    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_va_tile_render(&b, 3, false, PB_VA, 28);
    a = va_args(&b, 0);
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_EINVAL);
    umd_init(&b, cmd_words, sizeof(cmd_words));
    umd_va_set_target(&b, 0, TGT_VA, 1024, 200, 100, COPRO_FMT_XRGB8888);
    umd_va_scene_begin(&b, 1, false, PB_VA, 65536, 0);
    a = va_args(&b, 0);
    g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, DDI_EINVAL);
}

/* Field and flag rules of the scene packets, on hand-made buffers. */
static void test_scene_fields(void)
{
    static const struct {
        uint32_t dw[6];
        unsigned n;
        int want;
    } cases[] = {
        /* good, for reference */
        { { COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, 0, 5), 0, 2, 4096, 0 }, 5,
          DDI_OK },
        /* misaligned buffer, size too large or too small, flags */
        { { COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, 0, 5), 4, 2, 4096, 0 }, 5,
          DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, 0, 5), 0, 2,
            COPRO_PB_MAX + 8, 0 }, 5, DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, 0, 5), 0, 2, 64, 0 }, 5,
          DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_SCENE_BEGIN, 0x10, 5), 0, 2, 4096, 0 }, 5,
          DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_TILE_RENDER, COPRO_TILE_PARTIAL, 4), 0, 2,
            1 }, 4, DDI_OK },
        { { COPRO_PKT_HDR(COPRO_OP_TILE_RENDER, 0, 4), 0, 2, 0 }, 4,
          DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_TILE_RENDER, 0, 4), 0, 2,
            COPRO_TILER_MAX_TILES + 1 }, 4, DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_TILE_RENDER, COPRO_SCENE_CLEAR << 1, 4),
            0, 2, 1 }, 4, DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_BIN_BLIT, 0, 6), 0, 2,
            COPRO_BLIT_PITCH_MAX + 1, 0, 0 }, 6, DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_BIN_RECT, 1, 6) }, 6, DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_SCENE_END, 1, 1) }, 1, DDI_EINVAL },
        { { COPRO_PKT_HDR(COPRO_OP_SCENE_END, 0, 2), 0 }, 2, DDI_EINVAL },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        struct umd_cmdbuf b;
        struct ddi_render_args a;
        struct copro_render_diag d;

        umd_init(&b, cmd_words, sizeof(cmd_words));
        umd_va_set_target(&b, 0, TGT_VA, 1024, 200, 100, COPRO_FMT_XRGB8888);
        copro_emit_raw(&b.enc, cases[i].dw, cases[i].n);
        a = va_args(&b, 0);
        g_test_message("case %u", i);
        g_assert_cmpint(validate_args(&a, ALL_OPS, &d), ==, cases[i].want);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-render/good-buffer", test_good_buffer);
    g_test_add_func("/copro-render/patch-range", test_patch_range);
    g_test_add_func("/copro-render/patch-order", test_patch_order);
    g_test_add_func("/copro-render/sizes", test_sizes);
    g_test_add_func("/copro-render/lists", test_lists);
    g_test_add_func("/copro-render/opcodes", test_opcodes);
    g_test_add_func("/copro-render/copy-engine", test_copy_engine);
    g_test_add_func("/copro-render/lengths-flags", test_lengths_flags);
    g_test_add_func("/copro-render/fence-irq", test_fence_irq);
    g_test_add_func("/copro-render/addresses", test_addresses);
    g_test_add_func("/copro-render/bounds", test_bounds);
    g_test_add_func("/copro-render/surfaces", test_surfaces);
    g_test_add_func("/copro-render/rect-unbound", test_rect_unbound);
    g_test_add_func("/copro-render/rect-after-split", test_rect_after_split);
    g_test_add_func("/copro-render/sizes-in-packets", test_sizes_in_packets);
    g_test_add_func("/copro-render/fuzz", test_fuzz);
    g_test_add_func("/copro-render/gpuva", test_gpuva);
    g_test_add_func("/copro-render/scene", test_scene);
    g_test_add_func("/copro-render/scene-fields", test_scene_fields);
    return g_test_run();
}
