/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/pci_bar.h"

bool pci_bar_is_64bit(uint32_t raw_lo)
{
    return !(raw_lo & PCI_BAR_IO_SPACE) &&
           (raw_lo & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64;
}

/* A valid decode mask is ones followed by zeros: ~mask + 1 is a power
 * of two. Anything else means the probe did not read back a BAR. */
static bool size_from_mask(uint64_t mask, uint64_t *size)
{
    uint64_t sz = ~mask + 1;

    if (mask == 0 || (sz & (sz - 1)) != 0) {
        return false;
    }
    *size = sz;
    return true;
}

bool pci_bar_decode(uint32_t raw_lo, uint32_t raw_hi,
                    uint32_t probe_lo, uint32_t probe_hi,
                    struct pci_bar *bar)
{
    uint64_t mask;

    *bar = (struct pci_bar){ .kind = PCI_BAR_NONE };

    if (raw_lo & PCI_BAR_IO_SPACE) {
        mask = probe_lo & PCI_BAR_IO_ADDR_MASK & 0xffffffffull;
        if (!mask) {
            return false;
        }
        /* Devices with 16-bit I/O decode return zeros in bits 31:16;
         * those bits are not part of the size. */
        if (!(mask & 0xffff0000ull)) {
            mask |= 0xffff0000ull;
        }
        mask |= 0xffffffff00000000ull;
        if (!size_from_mask(mask, &bar->size)) {
            return false;
        }
        bar->kind = PCI_BAR_IO;
        bar->addr = raw_lo & PCI_BAR_IO_ADDR_MASK & 0xffffffffull;
        return true;
    }

    switch (raw_lo & PCI_BAR_MEM_TYPE_MASK) {
    case PCI_BAR_MEM_TYPE_64:
        mask = ((uint64_t)probe_hi << 32) | (probe_lo & 0xfffffff0u);
        bar->addr = ((uint64_t)raw_hi << 32) | (raw_lo & 0xfffffff0u);
        bar->kind = PCI_BAR_MEM64;
        break;
    case PCI_BAR_MEM_TYPE_32:
    case PCI_BAR_MEM_TYPE_1M:
        mask = probe_lo & 0xfffffff0u;
        if (mask) {
            /* Upper half does not exist: all its bits are "decoded". */
            mask |= 0xffffffff00000000ull;
        }
        bar->addr = raw_lo & 0xfffffff0u;
        bar->kind = PCI_BAR_MEM32;
        break;
    default:    /* reserved type */
        *bar = (struct pci_bar){ .kind = PCI_BAR_NONE };
        return false;
    }

    if (!size_from_mask(mask, &bar->size)) {
        *bar = (struct pci_bar){ .kind = PCI_BAR_NONE };
        return false;
    }
    bar->prefetchable = (raw_lo & PCI_BAR_MEM_PREFETCH) != 0;
    return true;
}

const char *pci_bar_kind_name(enum pci_bar_kind kind)
{
    switch (kind) {
    case PCI_BAR_IO:    return "io";
    case PCI_BAR_MEM32: return "mem32";
    case PCI_BAR_MEM64: return "mem64";
    default:            return "none";
    }
}
