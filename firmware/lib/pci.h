/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCI configuration space through mechanism #1 (ports 0xcf8/0xcfc), bus
 * scan, BAR discovery and the capability list.
 *
 * The firmware does not assign resources: SeaBIOS has already enumerated
 * the bus and programmed BARs, the Command register and Interrupt Line
 * before -kernel images run. We read what it did.
 */
#ifndef FW_LIB_PCI_H
#define FW_LIB_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/pci_bar.h"

/* Standard config header registers */
#define PCI_VENDOR_ID           0x00
#define PCI_DEVICE_ID           0x02
#define PCI_COMMAND             0x04
#define PCI_STATUS              0x06
#define PCI_REVISION_ID         0x08
#define PCI_CLASS_PROG          0x09    /* class code: 0x09..0x0b */
#define PCI_HEADER_TYPE         0x0e
#define PCI_BAR0                0x10
#define PCI_SECONDARY_BUS       0x19    /* type 1 (bridge) header */
#define PCI_CAPABILITY_LIST     0x34
#define PCI_INTERRUPT_LINE      0x3c
#define PCI_INTERRUPT_PIN       0x3d

#define PCI_COMMAND_IO          (1u << 0)
#define PCI_COMMAND_MEMORY      (1u << 1)
#define PCI_COMMAND_MASTER      (1u << 2)
#define PCI_COMMAND_INTX_DISABLE (1u << 10)
#define PCI_STATUS_CAP_LIST     (1u << 4)
#define PCI_STATUS_INTERRUPT    (1u << 3)
#define PCI_HEADER_TYPE_MASK    0x7f
#define PCI_HEADER_TYPE_BRIDGE  0x01
#define PCI_HEADER_MULTIFUNC    0x80

#define PCI_CAP_ID_MSI          0x05
#define PCI_CAP_ID_EXP          0x10
#define PCI_CAP_ID_MSIX         0x11

#define PCI_NUM_BARS            6

struct pci_dev {
    uint8_t bus, dev, fn;
    uint16_t vendor_id, device_id;
    uint8_t revision;
    uint32_t class_code;    /* base << 16 | sub << 8 | prog-if */
    uint8_t header_type;    /* without the multifunction bit */
};

uint8_t pci_read8(const struct pci_dev *d, uint16_t off);
uint16_t pci_read16(const struct pci_dev *d, uint16_t off);
uint32_t pci_read32(const struct pci_dev *d, uint16_t off);
void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v);
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v);
void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v);

/*
 * Walks every function reachable from bus 0 through bridges, calling
 * visit for each; stops when visit returns true. Returns whether it was
 * stopped.
 */
bool pci_scan(bool (*visit)(const struct pci_dev *d, void *ctx), void *ctx);

/* Finds the first function with this vendor/device ID. */
bool pci_find_device(uint16_t vendor, uint16_t device, struct pci_dev *out);

/*
 * Reads and sizes BAR index (0..5). Memory/IO decoding is switched off
 * while sizing so the all-ones value never decodes. For a 64-bit BAR,
 * index must be the low half. Returns false for an unimplemented BAR.
 */
bool pci_bar_read(const struct pci_dev *d, unsigned index,
                  struct pci_bar *bar);

/* Offset of the first capability with this ID, 0 if none. */
uint8_t pci_find_capability(const struct pci_dev *d, uint8_t cap_id);

/* Sets and clears bits in the Command register. */
void pci_command_update(const struct pci_dev *d, uint16_t set, uint16_t clear);

#endif /* FW_LIB_PCI_H */
