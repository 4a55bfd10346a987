/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by copro's qtests: boot a machine with the device, map
 * its BARs, access registers and VRAM, and observe interrupts.
 */
#ifndef COPRO_QTEST_H
#define COPRO_QTEST_H

#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "hw/pci/pci_regs.h"
#include "copro/copro_regs.h"
#include "copro/copro_cmd.h"

#define COPRO_SLOT 4

typedef struct Copro {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar mmio;
    QPCIBar vram;
    uint64_t mmio_size;
    uint64_t vram_size;
} Copro;

/*
 * Boot @machine ("-M q35 ...") with a copro in slot COPRO_SLOT configured
 * by @devopts ("" or "vram=128M,..."), map BAR0 and BAR2, enable the
 * function (memory decoding and bus mastering).
 */
static inline void copro_boot(Copro *c, const char *machine,
                              const char *devopts)
{
    memset(c, 0, sizeof(*c));
    c->qs = qtest_pc_boot("%s -nodefaults -device copro,addr=%d.0%s%s",
                          machine, COPRO_SLOT, *devopts ? "," : "",
                          devopts);
    c->qts = c->qs->qts;
    c->dev = qpci_device_find(c->qs->pcibus, QPCI_DEVFN(COPRO_SLOT, 0));
    g_assert_nonnull(c->dev);
    c->mmio = qpci_iomap(c->dev, COPRO_BAR_MMIO, &c->mmio_size);
    c->vram = qpci_iomap(c->dev, COPRO_BAR_VRAM, &c->vram_size);
    qpci_device_enable(c->dev);
}

static inline void copro_shutdown(Copro *c)
{
    g_free(c->dev);
    qtest_shutdown(c->qs);
}

static inline uint32_t rd32(Copro *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->mmio, off);
}

static inline uint64_t rd64(Copro *c, uint64_t off)
{
    return qpci_io_readq(c->dev, c->mmio, off);
}

static inline void wr32(Copro *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->mmio, off, v);
}

static inline void wr64(Copro *c, uint64_t off, uint64_t v)
{
    qpci_io_writeq(c->dev, c->mmio, off, v);
}

static inline uint32_t erd32(Copro *c, unsigned e, uint64_t reg)
{
    return rd32(c, COPRO_ENG_BASE(e) + reg);
}

static inline uint64_t erd64(Copro *c, unsigned e, uint64_t reg)
{
    return rd64(c, COPRO_ENG_BASE(e) + reg);
}

static inline void ewr32(Copro *c, unsigned e, uint64_t reg, uint32_t v)
{
    wr32(c, COPRO_ENG_BASE(e) + reg, v);
}

static inline void ewr64(Copro *c, unsigned e, uint64_t reg, uint64_t v)
{
    wr64(c, COPRO_ENG_BASE(e) + reg, v);
}

/* VRAM through BAR2; offsets are GPU addresses in [0, vram). */
static inline void vram_write(Copro *c, uint64_t off, const void *buf,
                              size_t len)
{
    qpci_memwrite(c->dev, c->vram, off, buf, len);
}

static inline void vram_read(Copro *c, uint64_t off, void *buf, size_t len)
{
    qpci_memread(c->dev, c->vram, off, buf, len);
}

static inline void vram_w32(Copro *c, uint64_t off, uint32_t v)
{
    qpci_io_writel(c->dev, c->vram, off, v);
}

static inline uint32_t vram_r32(Copro *c, uint64_t off)
{
    return qpci_io_readl(c->dev, c->vram, off);
}

static inline void vram_w64(Copro *c, uint64_t off, uint64_t v)
{
    qpci_io_writeq(c->dev, c->vram, off, v);
}

static inline uint64_t vram_r64(Copro *c, uint64_t off)
{
    return qpci_io_readq(c->dev, c->vram, off);
}

/*
 * MSI-X: point table entry @vec at guest RAM (@addr) with @data, so a
 * message shows up as a memory write that the test can read.
 */
static inline void copro_msix_route(Copro *c, unsigned vec, uint64_t addr,
                                    uint32_t data)
{
    uint64_t entry = c->dev->msix_table_off + vec * PCI_MSIX_ENTRY_SIZE;

    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_LOWER_ADDR, addr & 0xffffffff);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_UPPER_ADDR, addr >> 32);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(c->dev, c->dev->msix_table_bar,
                   entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

/* INTx as the PCI core sees it: the Interrupt Status bit. */
static inline bool copro_intx_status(Copro *c)
{
    return qpci_config_readw(c->dev, PCI_STATUS) & PCI_STATUS_INTERRUPT;
}

#endif /* COPRO_QTEST_H */
