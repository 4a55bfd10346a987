/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the pure half of submission and fault handling
 * (firmware/kmd/copro_ring.c).
 */
#include <glib.h>
#include <stddef.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_ring.h"

static void test_size_valid(void)
{
    g_assert_false(copro_ring_size_valid(0));
    g_assert_true(copro_ring_size_valid(1));
    g_assert_true(copro_ring_size_valid(8));
    g_assert_false(copro_ring_size_valid(12));
    g_assert_true(copro_ring_size_valid(COPRO_RING_MAX_ENTRIES));
    g_assert_false(copro_ring_size_valid(COPRO_RING_MAX_ENTRIES * 2));
}

static void test_space(void)
{
    /* empty: entries - 1 free, one slot always stays empty */
    g_assert_cmpuint(copro_ring_space(0, 0, 8), ==, 7);
    g_assert_cmpuint(copro_ring_pending(0, 0, 8), ==, 0);
    g_assert_cmpuint(copro_ring_space(0, 7, 8), ==, 0);
    g_assert_cmpuint(copro_ring_pending(0, 7, 8), ==, 7);
    /* wrapped: tail behind head */
    g_assert_cmpuint(copro_ring_pending(6, 2, 8), ==, 4);
    g_assert_cmpuint(copro_ring_space(6, 2, 8), ==, 3);
    g_assert_cmpuint(copro_ring_space(3, 2, 8), ==, 0);
    /* a one-entry ring can never hold a submission */
    g_assert_cmpuint(copro_ring_space(0, 0, 1), ==, 0);
    g_assert_cmpuint(copro_ring_next(7, 8), ==, 0);
    g_assert_cmpuint(copro_ring_next(3, 8), ==, 4);
}

static void test_desc_make(void)
{
    struct copro_submit_desc d;

    /* The ABI's layout, as the device reads it. */
    g_assert_cmpuint(sizeof(d), ==, COPRO_DESC_SIZE);
    g_assert_cmpuint(offsetof(struct copro_submit_desc, dma_len), ==, 8);
    g_assert_cmpuint(offsetof(struct copro_submit_desc, flags), ==, 12);
    g_assert_cmpuint(offsetof(struct copro_submit_desc, fence), ==, 16);
    g_assert_cmpuint(offsetof(struct copro_submit_desc, context), ==, 24);
    g_assert_cmpuint(offsetof(struct copro_submit_desc, save_addr), ==, 32);

    memset(&d, 0xff, sizeof(d));
    d = copro_desc_make(0x1000, 64, 42, 7, COPRO_SUBMIT_PAGING);
    g_assert_cmphex(d.dma_addr, ==, 0x1000);
    g_assert_cmpuint(d.dma_len, ==, 64);
    g_assert_cmphex(d.flags, ==, COPRO_SUBMIT_PAGING);
    g_assert_cmpuint(d.fence, ==, 42);
    g_assert_cmpuint(d.context, ==, 7);
    /* the device refuses a descriptor with any reserved bit set */
    g_assert_cmpuint(d.reserved0, ==, 0);
    g_assert_cmpuint(d.save_addr, ==, 0);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpuint(d.reserved1[i], ==, 0);
    }
}

static void test_fault_cause(void)
{
    g_assert_cmpuint(copro_fault_cause(COPRO_FAULT_NONE), ==, 0);
    for (uint32_t k = 1; k <= COPRO_FAULT_LAST_ERROR; k++) {
        g_assert_cmphex(copro_fault_cause(k), ==, COPRO_INT_ERROR);
    }
    g_assert_cmphex(copro_fault_cause(COPRO_FAULT_TRANSLATION), ==,
                    COPRO_INT_FAULT);
    g_assert_cmphex(copro_fault_cause(COPRO_FAULT_DMA), ==, COPRO_INT_FAULT);
    g_assert_cmphex(copro_fault_cause(COPRO_FAULT_BAD_SAVE), ==,
                    COPRO_INT_ERROR);
    g_assert_cmphex(copro_fault_cause(COPRO_FAULT_GART), ==, COPRO_INT_FAULT);
    g_assert_cmphex(copro_fault_cause(COPRO_FAULT_PAGE), ==, COPRO_INT_FAULT);
    /* a kind newer than the driver is not an error the ABI lists */
    g_assert_cmphex(copro_fault_cause(99), ==, COPRO_INT_FAULT);
    g_assert_cmpstr(copro_fault_kind_name(COPRO_FAULT_ILLEGAL_OPCODE), ==,
                    "illegal-opcode");
    g_assert_cmpstr(copro_fault_kind_name(COPRO_FAULT_TRANSLATION), ==,
                    "translation");
    g_assert_cmpstr(copro_fault_kind_name(COPRO_FAULT_BAD_SAVE), ==,
                    "bad-save");
    g_assert_cmpstr(copro_fault_kind_name(1000), ==, "unknown");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copro-ring/size-valid", test_size_valid);
    g_test_add_func("/copro-ring/space", test_space);
    g_test_add_func("/copro-ring/desc-make", test_desc_make);
    g_test_add_func("/copro-ring/fault-cause", test_fault_cause);
    return g_test_run();
}
