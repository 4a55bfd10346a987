/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/ioapic.h"

#include "lib/io.h"

#define IOAPIC_BASE             0xfec00000ul
#define IOAPIC_REGSEL           0x00
#define IOAPIC_WIN              0x10

#define IOAPIC_REG_VER          0x01
#define IOAPIC_REG_REDIR(n)     (0x10 + 2 * (n))

#define REDIR_DEST_PHYSICAL     (0u << 11)
#define REDIR_REMOTE_IRR        (1u << 14)
#define REDIR_ACTIVE_LOW        (1u << 13)
#define REDIR_LEVEL             (1u << 15)
#define REDIR_MASKED            (1u << 16)

static volatile void *ioapic(void)
{
    return (volatile void *)IOAPIC_BASE;
}

static uint32_t ioapic_read(uint32_t reg)
{
    mmio_write32(ioapic(), IOAPIC_REGSEL, reg);
    return mmio_read32(ioapic(), IOAPIC_WIN);
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
    mmio_write32(ioapic(), IOAPIC_REGSEL, reg);
    mmio_write32(ioapic(), IOAPIC_WIN, v);
}

unsigned ioapic_num_pins(void)
{
    return ((ioapic_read(IOAPIC_REG_VER) >> 16) & 0xff) + 1;
}

bool ioapic_route(unsigned gsi, uint8_t vector, uint8_t apic_id,
                  enum ioapic_trigger trigger, enum ioapic_polarity polarity)
{
    uint32_t lo = vector | REDIR_DEST_PHYSICAL;

    if (gsi >= ioapic_num_pins()) {
        return false;
    }
    if (trigger == IOAPIC_LEVEL) {
        lo |= REDIR_LEVEL;
    }
    if (polarity == IOAPIC_ACTIVE_LOW) {
        lo |= REDIR_ACTIVE_LOW;
    }
    /* Mask while the entry is half-written, destination first, then the
     * low word, which unmasks. */
    ioapic_write(IOAPIC_REG_REDIR(gsi), REDIR_MASKED);
    ioapic_write(IOAPIC_REG_REDIR(gsi) + 1, (uint32_t)apic_id << 24);
    ioapic_write(IOAPIC_REG_REDIR(gsi), lo);
    return true;
}

void ioapic_mask(unsigned gsi)
{
    if (gsi < ioapic_num_pins()) {
        uint32_t lo = ioapic_read(IOAPIC_REG_REDIR(gsi));
        ioapic_write(IOAPIC_REG_REDIR(gsi), lo | REDIR_MASKED);
    }
}

bool ioapic_remote_irr(unsigned gsi)
{
    return gsi < ioapic_num_pins() &&
           (ioapic_read(IOAPIC_REG_REDIR(gsi)) & REDIR_REMOTE_IRR);
}
