/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the user-mode driver's command-buffer builder
 * (firmware/umd/umd.c): packets with zero addresses, the allocation list
 * (one entry per handle, write flags merged), patch locations with their
 * split points and target slots, and all-or-nothing packets when a list
 * or the buffer is full. That render accepts what it builds is tested in
 * test-copro-render.c.
 */
#include <glib.h>

#include <copro/copro_cmd.h>

#include "umd/umd.h"

static uint32_t words[512];
static struct umd_cmdbuf b;

static void test_lists(void)
{
    uint32_t o1, o2, o3;

    umd_init(&b, words, sizeof(words));
    o1 = umd_wait(&b, 0xa, 8, 5);               /* read */
    o2 = umd_copy(&b, 0xb, 16, 0xa, 32, 64);    /* a read again, b write */
    o3 = umd_timestamp(&b, 0xa, 0);             /* a now written */
    g_assert_true(umd_ok(&b));
    g_assert_cmpuint(o1, ==, 0);
    g_assert_cmpuint(o2, ==, COPRO_LEN_WAIT * 4);
    g_assert_cmpuint(o3, ==, (COPRO_LEN_WAIT + COPRO_LEN_COPY) * 4);

    g_assert_cmpuint(b.nalloc, ==, 2);
    g_assert_cmphex(b.alloc[0].handle, ==, 0xa);
    g_assert_cmpuint(b.alloc[0].write, ==, 1);
    g_assert_cmphex(b.alloc[1].handle, ==, 0xb);
    g_assert_cmpuint(b.alloc[1].write, ==, 1);

    g_assert_cmpuint(b.npatch, ==, 4);
    g_assert_cmpuint(b.patch[0].slot, ==, 0);
    g_assert_cmpuint(b.patch[0].patch_offset, ==, o1 + 4);
    g_assert_cmpuint(b.patch[0].alloc_offset, ==, 8);
    g_assert_cmpuint(b.patch[0].split_offset, ==, o1);
    g_assert_cmpuint(b.patch[1].slot, ==, 1);
    g_assert_cmpuint(b.patch[1].patch_offset, ==, o2 + 4);
    g_assert_cmpuint(b.patch[1].alloc_offset, ==, 16);
    g_assert_cmpuint(b.patch[2].slot, ==, 0);
    g_assert_cmpuint(b.patch[2].patch_offset, ==, o2 + 12);
    g_assert_cmpuint(b.patch[2].alloc_offset, ==, 32);
    g_assert_cmpuint(b.patch[2].split_offset, ==, o2);
    g_assert_cmpuint(b.patch[3].patch_offset, ==, o3 + 4);
    for (unsigned i = 0; i < b.npatch; i++) {
        g_assert_cmpuint(b.patch[i].slot_id, ==, 0);
        /* the field itself is zero: the kernel patches it */
        g_assert_cmphex(words[b.patch[i].patch_offset / 4], ==, 0);
        g_assert_cmphex(words[b.patch[i].patch_offset / 4 + 1], ==, 0);
    }
    /* the non-address fields are what was asked */
    g_assert_cmphex(words[o1 / 4 + 3], ==, 5);
    g_assert_cmphex(words[o2 / 4 + 5], ==, 64);
}

static void test_set_target_slot(void)
{
    uint32_t o;

    umd_init(&b, words, sizeof(words));
    o = umd_set_target(&b, 3, 0x77, 4096, 256, 64, 16, COPRO_FMT_XRGB8888);
    umd_rect(&b, 3, 1, 1, 2, 2, 0xff00ff);
    g_assert_true(umd_ok(&b));
    g_assert_cmpuint(b.npatch, ==, 1);
    g_assert_cmpuint(b.patch[0].slot_id, ==, 3);
    g_assert_cmpuint(b.patch[0].split_offset, ==, o);
    g_assert_cmpuint(b.patch[0].alloc_offset, ==, 4096);
    g_assert_cmphex(words[o / 4], ==,
                    COPRO_PKT_HDR(COPRO_OP_SET_TARGET, 3,
                                  COPRO_LEN_SET_TARGET));
    /* a bad surface is refused before anything is written */
    g_assert_cmpuint(umd_set_target(&b, 0, 0x77, 0, 10, 64, 16,
                                    COPRO_FMT_XRGB8888), ==, UMD_FAILED);
    g_assert_false(umd_ok(&b));
    g_assert_cmpuint(b.npatch, ==, 1);
    umd_reset(&b);
    g_assert_true(umd_ok(&b));
    g_assert_cmpuint(umd_bytes(&b), ==, 0);
    g_assert_cmpuint(b.nalloc, ==, 0);
}

/*
 * The splitting rule: after a split point, a RECT's target is bound
 * again first (same allocation, offset, surface), so no split point lies
 * between a RECT and the SET_TARGET it draws through; without a split
 * point since the binding, nothing is added. A SET_TARGET of another
 * slot is a split point too.
 */
static void test_rebind_after_split(void)
{
    uint32_t t0, f, r1, r2, r3, t1, r4;

    umd_init(&b, words, sizeof(words));
    t0 = umd_set_target(&b, 2, 0x77, 4096, 256, 64, 16, COPRO_FMT_XRGB8888);
    r1 = umd_rect(&b, 2, 0, 0, 4, 4, 1);            /* right after: as is */
    g_assert_cmpuint(r1, ==, t0 + 4 * COPRO_LEN_SET_TARGET);
    f = umd_fill(&b, 0x55, 0, 64, 7);               /* a split point */
    r2 = umd_rect(&b, 2, 4, 4, 4, 4, 2);            /* bound again first */
    g_assert_true(umd_ok(&b));
    g_assert_cmpuint(r2, ==, f + 4 * COPRO_LEN_FILL);
    g_assert_cmphex(words[r2 / 4], ==,
                    COPRO_PKT_HDR(COPRO_OP_SET_TARGET, 2,
                                  COPRO_LEN_SET_TARGET));
    g_assert_cmphex(words[r2 / 4 + COPRO_LEN_SET_TARGET] & 0xff, ==,
                    COPRO_OP_RECT);
    /* the same surface as the first binding, its own patch location */
    for (unsigned i = 2; i < COPRO_LEN_SET_TARGET; i++) {
        g_assert_cmphex(words[r2 / 4 + i], ==, words[t0 / 4 + i]);
    }
    g_assert_cmpuint(b.npatch, ==, 3);
    g_assert_cmpuint(b.patch[2].split_offset, ==, r2);
    g_assert_cmpuint(b.patch[2].slot_id, ==, 2);
    g_assert_cmpuint(b.patch[2].alloc_offset, ==, 4096);
    g_assert_cmpuint(b.patch[2].slot, ==, b.patch[0].slot);
    r3 = umd_rect(&b, 2, 8, 8, 4, 4, 3);            /* no split since */
    g_assert_cmpuint(r3, ==, r2 + 4 * (COPRO_LEN_SET_TARGET +
                                       COPRO_LEN_RECT));
    t1 = umd_set_target(&b, 1, 0x78, 0, 256, 64, 16, COPRO_FMT_XRGB8888);
    r4 = umd_rect(&b, 2, 0, 0, 1, 1, 4);
    g_assert_cmpuint(r4, ==, t1 + 4 * COPRO_LEN_SET_TARGET);
    g_assert_cmpuint(b.rebinds, ==, 2);
    g_assert_cmpuint(b.npatch, ==, 5);
    /* every RECT's nearest split point before it is its own binding */
    g_assert_cmpuint(b.patch[4].split_offset, ==, r4);
    g_assert_cmpuint(b.patch[4].slot_id, ==, 2);
    /* an unbound slot is left to render to refuse, as before */
    umd_reset(&b);
    g_assert_cmpuint(b.rebinds, ==, 0);
    umd_fill(&b, 0x55, 0, 64, 7);
    g_assert_cmpuint(umd_rect(&b, 2, 0, 0, 1, 1, 4), ==,
                     4 * COPRO_LEN_FILL);
    g_assert_cmpuint(b.npatch, ==, 1);
}

/* When the allocation list is full, a packet naming a new allocation is
 * not written at all; one naming a listed allocation still is. */
static void test_alloc_list_full(void)
{
    uint32_t len;

    umd_init(&b, words, sizeof(words));
    for (unsigned i = 0; i < DDI_MAX_ALLOC_LIST; i++) {
        g_assert_cmpuint(umd_timestamp(&b, 0x100 + i, 0), !=, UMD_FAILED);
    }
    len = umd_bytes(&b);
    g_assert_cmpuint(umd_timestamp(&b, 0x999, 0), ==, UMD_FAILED);
    g_assert_cmpuint(umd_bytes(&b), ==, len);
    g_assert_cmpuint(b.nalloc, ==, DDI_MAX_ALLOC_LIST);
    g_assert_cmpuint(b.npatch, ==, DDI_MAX_ALLOC_LIST);
    g_assert_nonnull(b.error);
    g_assert_cmpint(umd_slot(&b, 0x999, false), ==, -1);
    g_assert_cmpint(umd_slot(&b, 0x100, false), ==, 0);
}

static void test_patch_list_full(void)
{
    static uint32_t big[8192];
    uint32_t len;

    umd_init(&b, big, sizeof(big));
    for (unsigned i = 0; i < DDI_MAX_PATCH_LIST / 2; i++) {
        g_assert_cmpuint(umd_copy(&b, 1, i, 2, i, 4), !=, UMD_FAILED);
    }
    len = umd_bytes(&b);
    g_assert_cmpuint(umd_fill(&b, 1, 0, 4, 0), ==, UMD_FAILED);
    g_assert_cmpuint(umd_bytes(&b), ==, len);
    g_assert_cmpuint(b.npatch, ==, DDI_MAX_PATCH_LIST);
    /* packets without addresses still fit */
    g_assert_cmpuint(umd_work(&b, 5), !=, UMD_FAILED);
}

static void test_buffer_full(void)
{
    umd_init(&b, words, 4 * COPRO_LEN_TIMESTAMP + 8);
    g_assert_cmpuint(umd_timestamp(&b, 1, 0), ==, 0);
    g_assert_cmpuint(umd_timestamp(&b, 2, 0), ==, UMD_FAILED);
    g_assert_cmpuint(b.nalloc, ==, 1);      /* nothing of it recorded */
    g_assert_cmpuint(b.npatch, ==, 1);
    g_assert_false(umd_ok(&b));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/umd/lists", test_lists);
    g_test_add_func("/umd/set-target-slot", test_set_target_slot);
    g_test_add_func("/umd/rebind-after-split", test_rebind_after_split);
    g_test_add_func("/umd/alloc-list-full", test_alloc_list_full);
    g_test_add_func("/umd/patch-list-full", test_patch_list_full);
    g_test_add_func("/umd/buffer-full", test_buffer_full);
    return g_test_run();
}
