/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro kernel-mode driver: device bring-up and interrupt service.
 *
 * One struct copro per device holds everything the driver knows; every
 * function takes it explicitly. The pure interpretation of register values
 * lives in copro_info.[ch]; this module touches the hardware.
 *
 * BARs are used where SeaBIOS put them: the boot identity map covers the
 * 4 GiB below which it assigns them, so bus address == pointer.
 */
#ifndef FW_KMD_COPRO_H
#define FW_KMD_COPRO_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_regs.h>

#include "kmd/copro_info.h"
#include "lib/io.h"
#include "lib/msi.h"
#include "lib/pci.h"

/* Interrupt bookkeeping, written by the ISR, read by the driver. */
struct copro_irq_log {
    volatile uint32_t count;        /* interrupts taken */
    volatile uint32_t spurious;     /* taken with no cause pending */
    volatile uint8_t last_vector;
    volatile uint64_t last_status;  /* causes acked by the last one */
    volatile uint64_t causes_seen;  /* OR of all causes acked */
    /* Causes acked but not yet processed: the ISR ORs them in, the
     * deferred handler (copro_cp_dpc) takes them with interrupts off. */
    volatile uint64_t pending;
    /* Interrupts taken, by what they acknowledged (one interrupt may
     * count in several): any engine's DMA_DONE, the display's vsync and
     * flips, the scheduling log, anything else. */
    volatile uint32_t by_dma_done, by_vsync, by_flip, by_sched_log,
                      by_other;
};

struct copro {
    struct pci_dev pci;
    struct pci_bar mmio_bar;        /* BAR0 */
    struct pci_bar vram_bar;        /* BAR2 */
    volatile void *mmio;
    volatile uint8_t *vram;
    struct copro_info info;
    /* Interrupt-level work of other parts of the driver, called by the
     * ISR with the causes it acknowledged (the display programs flips
     * there, WDDM's DIRQL SetVidPnSourceAddress). NULL: none. */
    void (*isr_hook)(void *ctx, uint64_t status);
    void *isr_hook_ctx;

    /* Interrupt delivery, set by copro_irq_setup() */
    enum copro_irq_mode irq_mode;   /* never AUTO once set up */
    uint8_t vector_base;            /* MSI-X entry i: vector_base + i */
    uint8_t intx_gsi;
    struct msix msix;
    struct copro_irq_log irq;

    /* Called by the ISR when it latched causes into irq.pending, so the
     * OS queues the driver's deferred processing (WDDM's DxgkCbQueueDpc
     * from DxgkDdiInterruptRoutine). NULL: nobody is told (the scenarios
     * that poll irq.pending themselves). */
    void (*queue_dpc)(void *ctx);
    void *queue_dpc_ctx;
};

/* Finds the device on the PCI bus; fills c->pci. */
bool copro_find(struct copro *c);

/*
 * Sizes BAR0 and BAR2, checks their kinds and that they lie inside the
 * identity map, enables memory decoding. Returns NULL or why it failed.
 */
const char *copro_map(struct copro *c);

/* The doorbell BAR (COPRO_CAP_HWSCHED), after copro_map: its CPU view,
 * or NULL if it is missing, too small or out of reach. */
volatile uint8_t *copro_map_doorbells(struct copro *c);

/* Reads the identity and capability registers into c->info. */
void copro_read_info(struct copro *c);

static inline uint32_t copro_read32(const struct copro *c, uint32_t reg)
{
    return mmio_read32(c->mmio, reg);
}

static inline void copro_write32(struct copro *c, uint32_t reg, uint32_t v)
{
    mmio_write32(c->mmio, reg, v);
}

static inline uint64_t copro_read64(const struct copro *c, uint32_t reg)
{
    return mmio_read64(c->mmio, reg);
}

static inline void copro_write64(struct copro *c, uint32_t reg, uint64_t v)
{
    mmio_write64(c->mmio, reg, v);
}

/*
 * Sets up interrupt delivery. AUTO picks MSI-X when the device has the
 * capability, else INTx. Vectors vector_base .. vector_base + engines are
 * used (only vector_base for INTx and MSI). Causes stay masked in
 * INT_MASK; the caller enables what it wants. Returns NULL or why not.
 */
const char *copro_irq_setup(struct copro *c, enum copro_irq_mode mode,
                            uint8_t vector_base);

/* Vector on which a cause is expected to arrive in the current mode. */
uint8_t copro_irq_vector_for(const struct copro *c, uint64_t cause);

#endif /* FW_KMD_COPRO_H */
