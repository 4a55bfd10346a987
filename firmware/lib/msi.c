/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/msi.h"

#include <stddef.h>

#include "lib/io.h"

/* MSI capability */
#define MSI_FLAGS               0x02
#define MSI_ADDR_LO             0x04
#define MSI_ADDR_HI             0x08    /* 64-bit capable only */
#define MSI_DATA_32             0x08
#define MSI_DATA_64             0x0c
#define MSI_FLAGS_ENABLE        (1u << 0)
#define MSI_FLAGS_QSIZE_MASK    (7u << 4)   /* Multiple Message Enable */
#define MSI_FLAGS_64BIT         (1u << 7)

/* MSI-X capability */
#define MSIX_FLAGS              0x02
#define MSIX_TABLE              0x04
#define MSIX_PBA                0x08
#define MSIX_FLAGS_QSIZE        0x07ff
#define MSIX_FLAGS_MASKALL      (1u << 14)
#define MSIX_FLAGS_ENABLE       (1u << 15)
#define MSIX_BIR_MASK           0x7u

/* MSI-X table entry */
#define MSIX_ENTRY_SIZE         16
#define MSIX_ENTRY_ADDR_LO      0x0
#define MSIX_ENTRY_ADDR_HI      0x4
#define MSIX_ENTRY_DATA         0x8
#define MSIX_ENTRY_CTRL         0xc
#define MSIX_ENTRY_CTRL_MASKED  (1u << 0)

/* The boot identity map ends at 4 GiB (boot.S). */
#define IDENTITY_MAP_END        (1ull << 32)

bool msi_enable(const struct pci_dev *d, uint8_t apic_id, uint8_t vector)
{
    uint8_t cap = pci_find_capability(d, PCI_CAP_ID_MSI);
    uint16_t flags;

    if (!cap) {
        return false;
    }
    flags = pci_read16(d, cap + MSI_FLAGS);
    pci_write32(d, cap + MSI_ADDR_LO, msi_address(apic_id));
    if (flags & MSI_FLAGS_64BIT) {
        pci_write32(d, cap + MSI_ADDR_HI, 0);
        pci_write16(d, cap + MSI_DATA_64, vector);
    } else {
        pci_write16(d, cap + MSI_DATA_32, vector);
    }
    pci_command_update(d, PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE, 0);
    flags &= ~MSI_FLAGS_QSIZE_MASK;
    pci_write16(d, cap + MSI_FLAGS, flags | MSI_FLAGS_ENABLE);
    return true;
}

void msi_disable(const struct pci_dev *d)
{
    uint8_t cap = pci_find_capability(d, PCI_CAP_ID_MSI);

    if (cap) {
        uint16_t flags = pci_read16(d, cap + MSI_FLAGS);
        pci_write16(d, cap + MSI_FLAGS, flags & ~MSI_FLAGS_ENABLE);
    }
}

/* Maps (BIR, offset) from a Table/PBA register to a pointer. */
static volatile void *msix_locate(const struct pci_dev *d, uint32_t reg,
                                  uint64_t min_len)
{
    struct pci_bar bar;
    uint64_t off = reg & ~MSIX_BIR_MASK;

    if (!pci_bar_read(d, reg & MSIX_BIR_MASK, &bar) ||
        bar.kind == PCI_BAR_IO || bar.addr == 0 ||
        off + min_len > bar.size ||
        bar.addr + bar.size > IDENTITY_MAP_END) {
        return NULL;
    }
    return (volatile void *)(uintptr_t)(bar.addr + off);
}

bool msix_init(struct msix *m, const struct pci_dev *d)
{
    uint8_t cap = pci_find_capability(d, PCI_CAP_ID_MSIX);

    *m = (struct msix){ .dev = d };
    if (!cap) {
        return false;
    }
    m->cap = cap;
    m->table_size = (pci_read16(d, cap + MSIX_FLAGS) & MSIX_FLAGS_QSIZE) + 1;
    m->table = msix_locate(d, pci_read32(d, cap + MSIX_TABLE),
                           (uint64_t)m->table_size * MSIX_ENTRY_SIZE);
    m->pba = msix_locate(d, pci_read32(d, cap + MSIX_PBA),
                         ((m->table_size + 63) / 64) * 8);
    return m->table && m->pba;
}

static volatile void *msix_entry(const struct msix *m, unsigned entry)
{
    return (volatile void *)((uintptr_t)m->table + entry * MSIX_ENTRY_SIZE);
}

bool msix_set_vector(struct msix *m, unsigned entry, uint8_t apic_id,
                     uint8_t vector)
{
    volatile void *e;

    if (!m->table || entry >= m->table_size) {
        return false;
    }
    e = msix_entry(m, entry);
    /* Masked while being rewritten, so no half-updated message is sent. */
    mmio_write32(e, MSIX_ENTRY_CTRL, MSIX_ENTRY_CTRL_MASKED);
    mmio_write32(e, MSIX_ENTRY_ADDR_LO, msi_address(apic_id));
    mmio_write32(e, MSIX_ENTRY_ADDR_HI, 0);
    mmio_write32(e, MSIX_ENTRY_DATA, vector);
    mmio_write32(e, MSIX_ENTRY_CTRL, 0);
    return true;
}

void msix_mask_entry(struct msix *m, unsigned entry)
{
    if (m->table && entry < m->table_size) {
        mmio_write32(msix_entry(m, entry), MSIX_ENTRY_CTRL,
                     MSIX_ENTRY_CTRL_MASKED);
    }
}

bool msix_pending(const struct msix *m, unsigned entry)
{
    if (!m->pba || entry >= m->table_size) {
        return false;
    }
    return (mmio_read32(m->pba, (entry / 32) * 4) >> (entry % 32)) & 1;
}

void msix_enable(struct msix *m)
{
    const struct pci_dev *d = m->dev;
    uint16_t flags = pci_read16(d, m->cap + MSIX_FLAGS);

    pci_command_update(d, PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE |
                       PCI_COMMAND_MEMORY, 0);
    pci_write16(d, m->cap + MSIX_FLAGS,
                (flags | MSIX_FLAGS_ENABLE) & ~MSIX_FLAGS_MASKALL);
}

void msix_disable(struct msix *m)
{
    uint16_t flags = pci_read16(m->dev, m->cap + MSIX_FLAGS);

    pci_write16(m->dev, m->cap + MSIX_FLAGS, flags & ~MSIX_FLAGS_ENABLE);
    pci_command_update(m->dev, 0, PCI_COMMAND_INTX_DISABLE);
}
