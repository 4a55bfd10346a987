/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MSI and MSI-X in x86 compatibility format: the message address is
 * 0xfee00000 | apic_id << 12 (fixed delivery, physical destination), the
 * data is the vector (edge-triggered).
 *
 * Enabling either also sets Command.INTx-disable (a function must not
 * signal both ways) and Bus Master: an MSI is a memory write by the
 * device, which is dropped while bus mastering is off.
 */
#ifndef FW_LIB_MSI_H
#define FW_LIB_MSI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/pci.h"

#define MSI_ADDR_BASE           0xfee00000u

static inline uint32_t msi_address(uint8_t apic_id)
{
    return MSI_ADDR_BASE | (uint32_t)apic_id << 12;
}

/* Plain MSI: one vector (Multiple Message Enable left at 1 message). */
bool msi_enable(const struct pci_dev *d, uint8_t apic_id, uint8_t vector);
void msi_disable(const struct pci_dev *d);

struct msix {
    const struct pci_dev *dev;
    uint8_t cap;                /* capability offset in config space */
    uint16_t table_size;        /* entries */
    volatile void *table;       /* mapped: BIR's BAR + table offset */
    volatile void *pba;
};

/*
 * Locates the MSI-X capability, its table and PBA (through their BARs,
 * which must be memory BARs inside the identity map). Does not enable.
 */
bool msix_init(struct msix *m, const struct pci_dev *d);

/* Programs and unmasks table entry to deliver vector to apic_id. */
bool msix_set_vector(struct msix *m, unsigned entry, uint8_t apic_id,
                     uint8_t vector);
void msix_mask_entry(struct msix *m, unsigned entry);
bool msix_pending(const struct msix *m, unsigned entry);

/* Sets MSI-X Enable (and INTx-disable, Bus Master); clears Function Mask. */
void msix_enable(struct msix *m);
void msix_disable(struct msix *m);

#endif /* FW_LIB_MSI_H */
