/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware-independent half of the copro driver's bring-up: what the
 * identity registers mean and whether this driver can run on them, how
 * interrupt causes map to MSI-X vectors, names for printing. Pure C on
 * plain values, so tests/unit checks it on the host.
 */
#ifndef FW_KMD_COPRO_INFO_H
#define FW_KMD_COPRO_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The identity/capability registers, as read from BAR0. */
struct copro_info {
    uint32_t id;
    uint32_t version;
    uint32_t caps;
    uint32_t num_engines;
    uint64_t vram_size;
    uint64_t aperture_size;
    uint64_t aperture_base;
    uint32_t preempt_caps;
    uint32_t msix_vectors;
    uint64_t ctx_switch_ns;     /* save (= restore) time of a context */
    uint32_t tile_size;         /* tiler's pixels per tile side, 0: none */
};

enum copro_irq_mode {
    COPRO_IRQ_AUTO,     /* MSI-X if the device has it, else INTx */
    COPRO_IRQ_INTX,     /* pin A through the IOAPIC */
    COPRO_IRQ_MSI,      /* one vector for every cause */
    COPRO_IRQ_MSIX,     /* one vector per engine, one for device events */
};

/* Returns NULL if the identity is usable, else why not. */
const char *copro_info_validate(const struct copro_info *info);

/* Same major version: minor versions only add features. */
bool copro_version_compatible(uint32_t version);

/* "cmd-processor,gart,..." into buf (NUL-terminated, truncated). */
void copro_caps_format(uint32_t caps, char *buf, size_t size);

const char *copro_preempt_name(uint32_t preempt_caps);

/* Parses "auto", "intx", "msi", "msix". */
bool copro_irq_mode_parse(const char *s, enum copro_irq_mode *mode);
const char *copro_irq_mode_name(enum copro_irq_mode mode);

/*
 * With MSI-X, the INT_STATUS causes vector entry signals: engine e's byte
 * for entry e, all device events for entry num_engines, nothing else.
 */
uint64_t copro_msix_entry_causes(unsigned entry, unsigned num_engines);

#endif /* FW_KMD_COPRO_INFO_H */
