/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A VRAM in host memory for the page-table tests (test-copro-pte-update,
 * test-vidmm-tiles): copro_pt_mem over a static array of VRAM_SIZE bytes,
 * page tables handed out from POOL up. Define VRAM_SIZE and POOL before
 * including it; one test file per program.
 */
#ifndef TESTS_UNIT_FAKE_PT_VRAM_H
#define TESTS_UNIT_FAKE_PT_VRAM_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kmd/copro_pt.h"

static uint8_t vram[VRAM_SIZE];
static uint64_t next_table = POOL;

static uint64_t rd(void *o, uint64_t off)
{
    uint64_t v;

    (void)o;
    g_assert_cmpuint(off + 8, <=, VRAM_SIZE);
    memcpy(&v, vram + off, 8);
    return v;
}

static void wr(void *o, uint64_t off, uint64_t v)
{
    (void)o;
    g_assert_cmpuint(off + 8, <=, VRAM_SIZE);
    memcpy(vram + off, &v, 8);
}

static bool table(void *o, uint64_t *off)
{
    (void)o;
    if (next_table + COPRO_PT_TABLE_BYTES > VRAM_SIZE) {
        return false;
    }
    *off = next_table;
    next_table += COPRO_PT_TABLE_BYTES;
    memset(vram + *off, 0, COPRO_PT_TABLE_BYTES);
    return true;
}

static const struct copro_pt_mem mem = {
    .vram_size = VRAM_SIZE, .read64 = rd, .write64 = wr, .alloc_table = table,
};

#endif /* TESTS_UNIT_FAKE_PT_VRAM_H */
