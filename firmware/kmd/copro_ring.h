/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure half of submission and fault handling: ring index arithmetic,
 * building a descriptor, classifying a latched fault. No hardware access;
 * unit-tested on the host (tests/unit/test-copro-ring.c).
 */
#ifndef FW_KMD_COPRO_RING_H
#define FW_KMD_COPRO_RING_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

/* A ring size the device accepts: a power of two, 1..4096 entries. */
bool copro_ring_size_valid(uint32_t entries);

/* Entries the engine has not fetched yet (head: RING_HEAD). */
uint32_t copro_ring_pending(uint32_t head, uint32_t tail, uint32_t entries);

/*
 * Entries the driver may still fill. One slot always stays empty, since
 * head == tail must mean "nothing pending", so at most entries - 1 are
 * outstanding.
 */
uint32_t copro_ring_space(uint32_t head, uint32_t tail, uint32_t entries);

static inline uint32_t copro_ring_next(uint32_t index, uint32_t entries)
{
    return (index + 1) & (entries - 1);
}

/* A descriptor with every reserved field zero, as the device demands. */
struct copro_submit_desc copro_desc_make(uint64_t dma_addr, uint32_t dma_len,
                                         uint64_t fence, uint32_t context,
                                         uint32_t flags);

/* A latched fault, as the deferred handler reads it from the engine. */
struct copro_fault {
    uint32_t kind;          /* COPRO_FAULT_*, NONE if no fault */
    uint32_t offset;        /* packet's byte offset in its DMA buffer */
    uint64_t addr;          /* packet address (errors) or failing address */
    uint64_t fence;         /* fence of the faulting submission */
    uint32_t context;
    uint32_t info;          /* COPRO_FAULT_INFO_* */
    uint32_t cause;         /* COPRO_INT_FAULT or COPRO_INT_ERROR, as seen */
};

/* The interrupt cause a fault kind raises: ERROR for command errors
 * (COPRO_FAULT_IS_ERROR), FAULT for every other kind, 0 for NONE. */
uint32_t copro_fault_cause(uint32_t kind);

const char *copro_fault_kind_name(uint32_t kind);

#endif /* FW_KMD_COPRO_RING_H */
