/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/pci.h"

#include "lib/io.h"

#define PCI_CONFIG_ADDRESS      0xcf8
#define PCI_CONFIG_DATA         0xcfc
#define PCI_CONFIG_ENABLE       0x80000000u

/* Bounds the capability walk: a corrupt list must not loop forever. The
 * 192 bytes after the header hold at most 48 capabilities. */
#define PCI_CAP_MAX             48

static void pci_select(const struct pci_dev *d, uint16_t off)
{
    outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | (uint32_t)d->bus << 16 |
         (uint32_t)d->dev << 11 | (uint32_t)d->fn << 8 | (off & 0xfc));
}

uint8_t pci_read8(const struct pci_dev *d, uint16_t off)
{
    pci_select(d, off);
    return inb(PCI_CONFIG_DATA + (off & 3));
}

uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
    pci_select(d, off);
    return inw(PCI_CONFIG_DATA + (off & 2));
}

uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
    pci_select(d, off);
    return inl(PCI_CONFIG_DATA);
}

void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v)
{
    pci_select(d, off);
    outb(PCI_CONFIG_DATA + (off & 3), v);
}

void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
    pci_select(d, off);
    outw(PCI_CONFIG_DATA + (off & 2), v);
}

void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
    pci_select(d, off);
    outl(PCI_CONFIG_DATA, v);
}

/* Fills the identity fields; false if no function answers. */
static bool pci_probe_function(uint8_t bus, uint8_t dev, uint8_t fn,
                               struct pci_dev *out)
{
    struct pci_dev d = { .bus = bus, .dev = dev, .fn = fn };
    uint32_t id = pci_read32(&d, PCI_VENDOR_ID);

    if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0) {
        return false;
    }
    d.vendor_id = id & 0xffff;
    d.device_id = id >> 16;
    d.revision = pci_read8(&d, PCI_REVISION_ID);
    d.class_code = pci_read32(&d, PCI_REVISION_ID) >> 8;
    d.header_type = pci_read8(&d, PCI_HEADER_TYPE) & PCI_HEADER_TYPE_MASK;
    *out = d;
    return true;
}

/* depth bounds recursion against a misprogrammed bridge loop. */
static bool pci_scan_bus(uint8_t bus, unsigned depth,
                         bool (*visit)(const struct pci_dev *, void *),
                         void *ctx)
{
    if (depth > 8) {
        return false;
    }
    for (uint8_t dev = 0; dev < 32; dev++) {
        for (uint8_t fn = 0; fn < 8; fn++) {
            struct pci_dev d;

            if (!pci_probe_function(bus, dev, fn, &d)) {
                if (fn == 0) {
                    break;      /* no device: skip its other functions */
                }
                continue;
            }
            if (visit(&d, ctx)) {
                return true;
            }
            if (d.header_type == PCI_HEADER_TYPE_BRIDGE) {
                uint8_t sec = pci_read8(&d, PCI_SECONDARY_BUS);
                if (sec > bus &&
                    pci_scan_bus(sec, depth + 1, visit, ctx)) {
                    return true;
                }
            }
            if (fn == 0 &&
                !(pci_read8(&d, PCI_HEADER_TYPE) & PCI_HEADER_MULTIFUNC)) {
                break;
            }
        }
    }
    return false;
}

bool pci_scan(bool (*visit)(const struct pci_dev *d, void *ctx), void *ctx)
{
    return pci_scan_bus(0, 0, visit, ctx);
}

struct find_ctx {
    uint16_t vendor, device;
    struct pci_dev *out;
};

static bool match_id(const struct pci_dev *d, void *opaque)
{
    struct find_ctx *c = opaque;

    if (d->vendor_id == c->vendor && d->device_id == c->device) {
        *c->out = *d;
        return true;
    }
    return false;
}

bool pci_find_device(uint16_t vendor, uint16_t device, struct pci_dev *out)
{
    struct find_ctx c = { .vendor = vendor, .device = device, .out = out };

    return pci_scan(match_id, &c);
}

bool pci_bar_read(const struct pci_dev *d, unsigned index,
                  struct pci_bar *bar)
{
    uint16_t off = PCI_BAR0 + 4 * index;
    uint16_t cmd;
    uint32_t raw_lo, raw_hi = 0, probe_lo, probe_hi = 0;
    bool is64;

    *bar = (struct pci_bar){ .kind = PCI_BAR_NONE };
    if (index >= PCI_NUM_BARS || d->header_type != 0) {
        return false;
    }

    raw_lo = pci_read32(d, off);
    is64 = pci_bar_is_64bit(raw_lo);
    if (is64 && index + 1 >= PCI_NUM_BARS) {
        return false;
    }

    cmd = pci_read16(d, PCI_COMMAND);
    pci_write16(d, PCI_COMMAND,
                cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));

    pci_write32(d, off, 0xffffffff);
    probe_lo = pci_read32(d, off);
    pci_write32(d, off, raw_lo);
    if (is64) {
        raw_hi = pci_read32(d, off + 4);
        pci_write32(d, off + 4, 0xffffffff);
        probe_hi = pci_read32(d, off + 4);
        pci_write32(d, off + 4, raw_hi);
    }

    pci_write16(d, PCI_COMMAND, cmd);
    return pci_bar_decode(raw_lo, raw_hi, probe_lo, probe_hi, bar);
}

uint8_t pci_find_capability(const struct pci_dev *d, uint8_t cap_id)
{
    uint8_t pos;

    if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAP_LIST)) {
        return 0;
    }
    pos = pci_read8(d, PCI_CAPABILITY_LIST) & 0xfc;
    for (int i = 0; i < PCI_CAP_MAX && pos >= 0x40; i++) {
        if (pci_read8(d, pos) == cap_id) {
            return pos;
        }
        pos = pci_read8(d, pos + 1) & 0xfc;
    }
    return 0;
}

void pci_command_update(const struct pci_dev *d, uint16_t set, uint16_t clear)
{
    uint16_t cmd = pci_read16(d, PCI_COMMAND);

    pci_write16(d, PCI_COMMAND, (cmd & ~clear) | set);
}
