/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the DMA-buffer builder (firmware/kmd/copro_dmabuf.c):
 * every packet's encoding, dword by dword, against the ABI macros of
 * include/copro/copro_cmd.h, and the bounds and field checks.
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_cmd.h>

#include "kmd/copro_dmabuf.h"

#define CANARY      0xcccccccc
#define GPU_BASE    0x12340000ull

static uint32_t storage[64];
static struct copro_dmabuf buf;

/* A fresh buffer of ndw dwords over storage, the rest canaries. */
static struct copro_dmabuf *fresh(uint32_t ndw)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(storage); i++) {
        storage[i] = CANARY;
    }
    copro_dmabuf_init(&buf, storage, GPU_BASE, ndw * 4);
    return &buf;
}

/* The buffer holds exactly want[0..n) and nothing was written past it. */
static void assert_dwords(const uint32_t *want, unsigned n)
{
    g_assert_cmpuint(buf.len_dw, ==, n);
    for (unsigned i = 0; i < n; i++) {
        g_assert_cmphex(storage[i], ==, want[i]);
    }
    for (unsigned i = n; i < G_N_ELEMENTS(storage); i++) {
        g_assert_cmphex(storage[i], ==, CANARY);
    }
    g_assert_null(buf.error);
}

static void test_header_layout(void)
{
    /* The header layout copro_cmd.h documents: op 0-7, flags 8-15,
     * length 16-31; checked literally so a macro change shows. */
    g_assert_cmphex(COPRO_PKT_HDR(0x09, 0xa5, 0x1234), ==, 0x1234a509);
    g_assert_cmphex(COPRO_PKT_OP(0x1234a509u), ==, 0x09);
    g_assert_cmphex(COPRO_PKT_FLAGS(0x1234a509u), ==, 0xa5);
    g_assert_cmphex(COPRO_PKT_LEN(0x1234a509u), ==, 0x1234);
}

static void test_nop(void)
{
    struct copro_dmabuf *b = fresh(8);
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1),
        COPRO_PKT_HDR(COPRO_OP_NOP, 0, 3), 0, 0,
    };

    g_assert_cmpuint(copro_emit_nop(b, 1), ==, 0);
    g_assert_cmpuint(copro_emit_nop(b, 3), ==, 4);
    assert_dwords(want, G_N_ELEMENTS(want));
    g_assert_cmpuint(b->packets, ==, 2);
    g_assert_cmpuint(copro_dmabuf_bytes(b), ==, 16);
}

static void test_timestamp(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_TIMESTAMP, 0, COPRO_LEN_TIMESTAMP),
        0x89abcdef, 0x01234567,
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_TIMESTAMP);
    g_assert_cmpuint(copro_emit_timestamp(fresh(8), 0x0123456789abcdefull),
                     ==, 0);
    assert_dwords(want, G_N_ELEMENTS(want));
}

static void test_interrupt(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_INTERRUPT, 0, COPRO_LEN_INTERRUPT),
        0xfeedf00d,
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_INTERRUPT);
    g_assert_cmpuint(copro_emit_interrupt(fresh(8), 0xfeedf00d), ==, 0);
    assert_dwords(want, G_N_ELEMENTS(want));
}

static void test_fence(void)
{
    const uint32_t want_irq[] = {
        COPRO_PKT_HDR(COPRO_OP_FENCE, COPRO_FENCE_IRQ, COPRO_LEN_FENCE),
        0x00001000, 0x00000001, 0x55667788, 0x11223344,
    };
    const uint32_t want_plain[] = {
        COPRO_PKT_HDR(COPRO_OP_FENCE, 0, COPRO_LEN_FENCE),
        0x00002000, 0, 7, 0,
    };

    g_assert_cmpuint(G_N_ELEMENTS(want_irq), ==, COPRO_LEN_FENCE);
    copro_emit_fence(fresh(8), 0x100001000ull, 0x1122334455667788ull, true);
    assert_dwords(want_irq, G_N_ELEMENTS(want_irq));
    g_assert_cmpuint(COPRO_PKT_FLAGS(storage[0]), ==, COPRO_FENCE_IRQ);
    copro_emit_fence(fresh(8), 0x2000, 7, false);
    assert_dwords(want_plain, G_N_ELEMENTS(want_plain));
}

static void test_wait(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_WAIT, 0, COPRO_LEN_WAIT),
        0xdeadbee8, 0x000000ff, 0x00000005, 0x00000001,
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_WAIT);
    copro_emit_wait(fresh(8), 0xffdeadbee8ull, 0x100000005ull);
    assert_dwords(want, G_N_ELEMENTS(want));
}

static void test_copy(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_COPY, 0, COPRO_LEN_COPY),
        0x00003001, 0x00000002,     /* dst */
        0x00000003, 0x00000000,     /* src */
        0x00001003, 0x00000004,     /* size */
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_COPY);
    copro_emit_copy(fresh(8), 0x200003001ull, 3, 0x400001003ull);
    assert_dwords(want, G_N_ELEMENTS(want));
}

static void test_fill(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL),
        0x00004004, 0x00000000,     /* dst */
        0x00001800, 0x00000001,     /* size */
        0xdeadbeef,                 /* pattern */
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_FILL);
    copro_emit_fill(fresh(8), 0x4004, 0x100001800ull, 0xdeadbeef);
    assert_dwords(want, G_N_ELEMENTS(want));

    /* The device faults on a size that is not a multiple of 4. */
    g_assert_cmpuint(copro_emit_fill(fresh(8), 0, 6, 0), ==,
                     COPRO_DMABUF_FAILED);
    g_assert_nonnull(buf.error);
    g_assert_cmpuint(buf.len_dw, ==, 0);
    g_assert_cmphex(storage[0], ==, CANARY);
}

static void test_set_target(void)
{
    const struct copro_surface s = {
        .addr = 0x300030000ull, .pitch = 200, .width = 48, .height = 32,
        .format = COPRO_FMT_XRGB8888,
    };
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_SET_TARGET, 2, COPRO_LEN_SET_TARGET),
        0x00030000, 0x00000003, 200, 48, 32, COPRO_FMT_XRGB8888,
    };
    struct copro_surface bad;

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_SET_TARGET);
    copro_emit_set_target(fresh(8), 2, &s);
    assert_dwords(want, G_N_ELEMENTS(want));
    g_assert_cmpuint(COPRO_PKT_FLAGS(storage[0]), ==, 2);

    /* What the device would refuse with BAD_PACKET is refused here. */
    g_assert_cmpuint(copro_emit_set_target(fresh(8), COPRO_TARGET_SLOTS, &s),
                     ==, COPRO_DMABUF_FAILED);
    bad = s;
    bad.format = 0;
    g_assert_cmpuint(copro_emit_set_target(fresh(8), 0, &bad), ==,
                     COPRO_DMABUF_FAILED);
    bad = s;
    bad.pitch = 48 * 4 - 1;
    g_assert_cmpuint(copro_emit_set_target(fresh(8), 0, &bad), ==,
                     COPRO_DMABUF_FAILED);
    bad = s;
    bad.height = COPRO_TARGET_MAX_DIM + 1;
    g_assert_cmpuint(copro_emit_set_target(fresh(8), 0, &bad), ==,
                     COPRO_DMABUF_FAILED);
    g_assert_cmpuint(buf.len_dw, ==, 0);
    g_assert_cmphex(storage[0], ==, CANARY);

    /* The boundary cases are fine. */
    bad = s;
    bad.pitch = 48 * 4;
    bad.width = 48;
    bad.height = COPRO_TARGET_MAX_DIM;
    g_assert_cmpuint(copro_emit_set_target(fresh(8), 3, &bad), ==, 0);
    g_assert_null(copro_surface_check(&(struct copro_surface){
        .pitch = 3, .width = 3, .height = 1, .format = COPRO_FMT_R8 }));
    g_assert_nonnull(copro_surface_check(&(struct copro_surface){
        .pitch = 5, .width = 3, .height = 1, .format = COPRO_FMT_RGB565 }));
}

static void test_rect(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_RECT, 1, COPRO_LEN_RECT),
        38, 25, 0xffffffff, 10, 0xffff07e0,
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_RECT);
    copro_emit_rect(fresh(8), 1, 38, 25, 0xffffffff, 10, 0xffff07e0);
    assert_dwords(want, G_N_ELEMENTS(want));
    g_assert_cmpuint(copro_emit_rect(fresh(8), 4, 0, 0, 1, 1, 0), ==,
                     COPRO_DMABUF_FAILED);
}

static void test_work(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_WORK, 0, COPRO_LEN_WORK),
        0x001e8480, 0x00000002,
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_WORK);
    copro_emit_work(fresh(8), 0x2001e8480ull);
    assert_dwords(want, G_N_ELEMENTS(want));
}

static void test_copy_pte(void)
{
    const uint32_t want[] = {
        COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE),
        0x00007008, 0x00000001, 0x00020000, 0x00000000, 4,
    };

    g_assert_cmpuint(G_N_ELEMENTS(want), ==, COPRO_LEN_COPY_PTE);
    g_assert_cmpuint(copro_emit_copy_pte(fresh(8), 0x100007008ull, 0x20000,
                                         4), ==, 0);
    assert_dwords(want, G_N_ELEMENTS(want));

    /* misaligned operands or too many entries: the device would refuse
     * with BAD_PACKET, so nothing is written */
    g_assert_cmpuint(copro_emit_copy_pte(fresh(8), 0x1004, 0x2000, 1), ==,
                     COPRO_DMABUF_FAILED);
    g_assert_nonnull(buf.error);
    g_assert_cmpuint(buf.len_dw, ==, 0);
    g_assert_cmpuint(copro_emit_copy_pte(fresh(8), 0x1000, 0x2002, 1), ==,
                     COPRO_DMABUF_FAILED);
    g_assert_cmpuint(copro_emit_copy_pte(fresh(8), 0x1000, 0x2000,
                                         COPRO_COPY_PTE_MAX + 1), ==,
                     COPRO_DMABUF_FAILED);
    g_assert_cmpuint(copro_emit_copy_pte(fresh(8), 0x1000, 0x2000,
                                         COPRO_COPY_PTE_MAX), ==, 0);
    g_assert_cmphex(storage[5], ==, COPRO_COPY_PTE_MAX);
    /* does not fit: 6 dwords into 5 */
    g_assert_cmpuint(copro_emit_copy_pte(fresh(5), 0x1000, 0x2000, 1), ==,
                     COPRO_DMABUF_FAILED);
    g_assert_cmphex(storage[0], ==, CANARY);
}

static void test_raw(void)
{
    const uint32_t bad[] = { COPRO_PKT_HDR(0x7f, 0, 1) };

    g_assert_cmpuint(copro_emit_nop(fresh(8), 2), ==, 0);
    g_assert_cmpuint(copro_emit_raw(&buf, bad, 1), ==, 8);
    g_assert_cmphex(storage[2], ==, 0x0001007f);
    g_assert_cmpuint(buf.packets, ==, 2);
    g_assert_cmpuint(copro_emit_raw(&buf, bad, 0), ==, COPRO_DMABUF_FAILED);
}

/* Offsets are byte offsets of each packet, as FAULT_OFFSET reports. */
static void test_offsets_sequence(void)
{
    struct copro_dmabuf *b = fresh(64);

    g_assert_cmpuint(copro_emit_nop(b, 1), ==, 0);
    g_assert_cmpuint(copro_emit_timestamp(b, 0), ==, 4);
    g_assert_cmpuint(copro_emit_interrupt(b, 0), ==, 16);
    g_assert_cmpuint(copro_emit_fence(b, 0, 0, false), ==, 24);
    g_assert_cmpuint(copro_emit_wait(b, 0, 0), ==, 44);
    g_assert_cmpuint(copro_emit_copy(b, 0, 0, 0), ==, 64);
    g_assert_cmpuint(copro_emit_fill(b, 0, 0, 0), ==, 92);
    g_assert_cmpuint(copro_emit_rect(b, 0, 0, 0, 0, 0, 0), ==, 116);
    g_assert_cmpuint(copro_emit_work(b, 0), ==, 140);
    g_assert_cmpuint(copro_dmabuf_bytes(b), ==, 152);
    g_assert_cmpuint(b->packets, ==, 9);
    g_assert_null(b->error);
    g_assert_cmphex(storage[38], ==, CANARY);
}

/* A packet that does not fit is not written at all, even partly. */
static void test_bounds(void)
{
    struct copro_dmabuf *b = fresh(6);
    const char *first;

    g_assert_cmpuint(copro_emit_interrupt(b, 1), ==, 0);        /* 2 dw */
    g_assert_cmpuint(copro_emit_fence(b, 0, 0, false), ==,      /* 5 dw */
                     COPRO_DMABUF_FAILED);
    first = b->error;
    g_assert_nonnull(first);
    g_assert_cmpuint(b->len_dw, ==, 2);
    g_assert_cmphex(storage[2], ==, CANARY);
    /* Exactly filling the rest still works; the error stays sticky. */
    g_assert_cmpuint(copro_emit_nop(b, 4), ==, 8);
    g_assert_cmpuint(b->len_dw, ==, 6);
    g_assert_cmphex(storage[6], ==, CANARY);
    g_assert_cmpuint(copro_emit_nop(b, 1), ==, COPRO_DMABUF_FAILED);
    g_assert_true(b->error == first);
    g_assert_false(copro_dmabuf_ok(b));

    copro_dmabuf_reset(b);
    g_assert_true(copro_dmabuf_ok(b));
    g_assert_cmpuint(b->len_dw, ==, 0);
    g_assert_cmpuint(b->packets, ==, 0);

    /* NOP lengths the header cannot carry */
    g_assert_cmpuint(copro_emit_nop(fresh(8), 0), ==, COPRO_DMABUF_FAILED);
    g_assert_cmpuint(copro_emit_nop(fresh(8), COPRO_PKT_MAX_DWORDS + 1), ==,
                     COPRO_DMABUF_FAILED);
    /* a zero-capacity buffer takes nothing */
    g_assert_cmpuint(copro_emit_nop(fresh(0), 1), ==, COPRO_DMABUF_FAILED);
}

static void test_init(void)
{
    copro_dmabuf_init(&buf, storage, GPU_BASE, 4 * 5 + 3);  /* rounds down */
    g_assert_cmpuint(buf.cap_dw, ==, 5);
    g_assert_cmpuint(buf.gpu_addr, ==, GPU_BASE);
    copro_dmabuf_init(&buf, storage, 0, UINT32_MAX);        /* capped */
    g_assert_cmpuint(buf.cap_dw, ==, COPRO_DMA_MAX / 4);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-dmabuf/header-layout", test_header_layout);
    g_test_add_func("/copro-dmabuf/nop", test_nop);
    g_test_add_func("/copro-dmabuf/timestamp", test_timestamp);
    g_test_add_func("/copro-dmabuf/interrupt", test_interrupt);
    g_test_add_func("/copro-dmabuf/fence", test_fence);
    g_test_add_func("/copro-dmabuf/wait", test_wait);
    g_test_add_func("/copro-dmabuf/copy", test_copy);
    g_test_add_func("/copro-dmabuf/fill", test_fill);
    g_test_add_func("/copro-dmabuf/set-target", test_set_target);
    g_test_add_func("/copro-dmabuf/rect", test_rect);
    g_test_add_func("/copro-dmabuf/work", test_work);
    g_test_add_func("/copro-dmabuf/copy-pte", test_copy_pte);
    g_test_add_func("/copro-dmabuf/raw", test_raw);
    g_test_add_func("/copro-dmabuf/offsets", test_offsets_sequence);
    g_test_add_func("/copro-dmabuf/bounds", test_bounds);
    g_test_add_func("/copro-dmabuf/init", test_init);
    return g_test_run();
}
