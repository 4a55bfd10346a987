/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for PCI BAR decoding (firmware/lib/pci_bar.c): the values a
 * BAR holds as the BIOS left it, and what it reads back after all ones
 * were written to it.
 */
#include <glib.h>

#include "lib/pci_bar.h"

static void test_mem32(void)
{
    struct pci_bar b;

    /* 64 KiB non-prefetchable MMIO at 0xfebe0000 (copro BAR0 under q35) */
    g_assert_true(pci_bar_decode(0xfebe0000, 0, 0xffff0000, 0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_MEM32);
    g_assert_false(b.prefetchable);
    g_assert_cmphex(b.addr, ==, 0xfebe0000);
    g_assert_cmphex(b.size, ==, 0x10000);

    /* 32-bit prefetchable, 16 MiB; the type bits are kept in the probe */
    g_assert_true(pci_bar_decode(0xfd000008, 0, 0xff000008, 0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_MEM32);
    g_assert_true(b.prefetchable);
    g_assert_cmphex(b.addr, ==, 0xfd000000);
    g_assert_cmphex(b.size, ==, 16u << 20);

    /* smallest memory BAR: 16 bytes */
    g_assert_true(pci_bar_decode(0xfebf1000, 0, 0xfffffff0, 0, &b));
    g_assert_cmphex(b.size, ==, 16);

    /* 2 GiB */
    g_assert_true(pci_bar_decode(0x80000000, 0, 0x80000000, 0, &b));
    g_assert_cmphex(b.size, ==, 0x80000000u);

    /* the *_hi arguments are ignored for a 32-bit BAR */
    g_assert_true(pci_bar_decode(0xfebe0000, 0x12345678, 0xffff0000,
                                 0xffffffff, &b));
    g_assert_cmphex(b.addr, ==, 0xfebe0000);
    g_assert_cmphex(b.size, ==, 0x10000);
}

static void test_mem64(void)
{
    struct pci_bar b;

    g_assert_true(pci_bar_is_64bit(0xf800000c));
    g_assert_false(pci_bar_is_64bit(0xf8000008));
    g_assert_false(pci_bar_is_64bit(0x0000c001));   /* I/O, bit 2 set */

    /* 64 MiB prefetchable VRAM below 4 GiB (copro BAR2) */
    g_assert_true(pci_bar_decode(0xf800000c, 0, 0xfc00000c, 0xffffffff, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_MEM64);
    g_assert_true(b.prefetchable);
    g_assert_cmphex(b.addr, ==, 0xf8000000);
    g_assert_cmphex(b.size, ==, 64u << 20);

    /* placed above 4 GiB by the BIOS */
    g_assert_true(pci_bar_decode(0x0000000c, 0x00000008, 0xfc00000c,
                                 0xffffffff, &b));
    g_assert_cmphex(b.addr, ==, 0x800000000ull);
    g_assert_cmphex(b.size, ==, 64u << 20);

    /* 4 GiB: the low half decodes no address bits at all */
    g_assert_true(pci_bar_decode(0x0000000c, 0x00000001, 0x0000000c,
                                 0xffffffff, &b));
    g_assert_cmphex(b.size, ==, 1ull << 32);

    /* 64 GiB: size bits reach into the high half */
    g_assert_true(pci_bar_decode(0x00000004, 0x00000010, 0x00000004,
                                 0xfffffff0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_MEM64);
    g_assert_false(b.prefetchable);
    g_assert_cmphex(b.addr, ==, 0x1000000000ull);
    g_assert_cmphex(b.size, ==, 64ull << 30);
}

static void test_io(void)
{
    struct pci_bar b;

    /* 32 bytes of I/O at 0xc000, device decodes all 32 bits */
    g_assert_true(pci_bar_decode(0x0000c001, 0, 0xffffffe1, 0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_IO);
    g_assert_cmphex(b.addr, ==, 0xc000);
    g_assert_cmphex(b.size, ==, 32);
    g_assert_false(b.prefetchable);

    /* 16-bit I/O decoder: upper 16 bits of the probe read as zero */
    g_assert_true(pci_bar_decode(0x0000c041, 0, 0x0000fff1, 0, &b));
    g_assert_cmphex(b.addr, ==, 0xc040);
    g_assert_cmphex(b.size, ==, 16);

    /* smallest I/O BAR: 4 ports */
    g_assert_true(pci_bar_decode(0x0000c0a1, 0, 0xfffffffd, 0, &b));
    g_assert_cmphex(b.addr, ==, 0xc0a0);
    g_assert_cmphex(b.size, ==, 4);
}

static void test_invalid(void)
{
    struct pci_bar b;

    /* unimplemented BAR: reads back zero */
    g_assert_false(pci_bar_decode(0, 0, 0, 0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_NONE);
    g_assert_cmphex(b.size, ==, 0);

    /* reserved memory type 0b11 */
    g_assert_false(pci_bar_decode(0xfe000006, 0, 0xff000006, 0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_NONE);

    /* a hole in the address mask is not a BAR read-back */
    g_assert_false(pci_bar_decode(0xfe000000, 0, 0xff0f0000, 0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_NONE);

    /* I/O BAR with no address bits */
    g_assert_false(pci_bar_decode(0x00000001, 0, 0x00000001, 0, &b));
    g_assert_cmpint(b.kind, ==, PCI_BAR_NONE);

    /* 64-bit BAR whose both halves read back zero */
    g_assert_false(pci_bar_decode(0x0000000c, 0, 0x0000000c, 0, &b));

    g_assert_cmpstr(pci_bar_kind_name(PCI_BAR_MEM64), ==, "mem64");
    g_assert_cmpstr(pci_bar_kind_name(PCI_BAR_NONE), ==, "none");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/pci-bar/mem32", test_mem32);
    g_test_add_func("/pci-bar/mem64", test_mem64);
    g_test_add_func("/pci-bar/io", test_io);
    g_test_add_func("/pci-bar/invalid", test_invalid);
    return g_test_run();
}
