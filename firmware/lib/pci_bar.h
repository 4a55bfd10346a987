/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCI base address register decoding. Pure logic on raw register values,
 * host-testable; lib/pci.c does the config-space reads and writes.
 *
 * Sizing protocol: save the BAR, write all ones, read back ("probe"),
 * restore. The read-back has zeros in the address bits the device does
 * not decode, so size = ~(probe & address_mask) + 1. A 64-bit memory BAR
 * takes two consecutive registers; both halves are probed.
 */
#ifndef FW_LIB_PCI_BAR_H
#define FW_LIB_PCI_BAR_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_BAR_IO_SPACE            0x1u
#define PCI_BAR_MEM_TYPE_MASK       0x6u
#define PCI_BAR_MEM_TYPE_32         0x0u
#define PCI_BAR_MEM_TYPE_1M         0x2u    /* legacy: below 1 MiB */
#define PCI_BAR_MEM_TYPE_64         0x4u
#define PCI_BAR_MEM_PREFETCH        0x8u
#define PCI_BAR_MEM_ADDR_MASK       (~0xfull)
#define PCI_BAR_IO_ADDR_MASK        (~0x3ull)

enum pci_bar_kind {
    PCI_BAR_NONE,       /* not implemented (probe reads back zero) */
    PCI_BAR_IO,
    PCI_BAR_MEM32,
    PCI_BAR_MEM64,
};

struct pci_bar {
    enum pci_bar_kind kind;
    bool prefetchable;
    uint64_t addr;      /* bus address as programmed by the BIOS */
    uint64_t size;      /* bytes, a power of two; 0 if NONE */
};

/* True if this low BAR register value is a 64-bit memory BAR, i.e. the
 * next BAR register holds its upper half. */
bool pci_bar_is_64bit(uint32_t raw_lo);

/*
 * Decodes one BAR. raw_* are the values as found, probe_* the read-back
 * after writing all ones. For a 32-bit or I/O BAR, the *_hi arguments are
 * ignored. Returns false (and kind NONE) for an unimplemented BAR or an
 * invalid encoding (reserved memory type, a probe with holes in the
 * address mask).
 */
bool pci_bar_decode(uint32_t raw_lo, uint32_t raw_hi,
                    uint32_t probe_lo, uint32_t probe_hi,
                    struct pci_bar *bar);

const char *pci_bar_kind_name(enum pci_bar_kind kind);

#endif /* FW_LIB_PCI_BAR_H */
