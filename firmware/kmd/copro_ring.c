/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_ring.h"

#include <stddef.h>

bool copro_ring_size_valid(uint32_t entries)
{
    return entries && !(entries & (entries - 1)) &&
           entries <= COPRO_RING_MAX_ENTRIES;
}

uint32_t copro_ring_pending(uint32_t head, uint32_t tail, uint32_t entries)
{
    return (tail - head) & (entries - 1);
}

uint32_t copro_ring_space(uint32_t head, uint32_t tail, uint32_t entries)
{
    return entries - 1 - copro_ring_pending(head, tail, entries);
}

struct copro_submit_desc copro_desc_make(uint64_t dma_addr, uint32_t dma_len,
                                         uint64_t fence, uint32_t context,
                                         uint32_t flags)
{
    return (struct copro_submit_desc){
        .dma_addr = dma_addr,
        .dma_len = dma_len,
        .flags = flags,
        .fence = fence,
        .context = context,
    };
}

uint32_t copro_fault_cause(uint32_t kind)
{
    if (kind == COPRO_FAULT_NONE) {
        return 0;
    }
    /* The ABI says which kinds are command errors; every other kind is a
     * memory fault, including kinds newer than this driver. */
    return COPRO_FAULT_IS_ERROR(kind) ? COPRO_INT_ERROR : COPRO_INT_FAULT;
}

const char *copro_fault_kind_name(uint32_t kind)
{
    static const char *const names[] = {
        [COPRO_FAULT_NONE] = "none",
        [COPRO_FAULT_ILLEGAL_OPCODE] = "illegal-opcode",
        [COPRO_FAULT_BAD_LENGTH] = "bad-length",
        [COPRO_FAULT_BUFFER_OVERRUN] = "buffer-overrun",
        [COPRO_FAULT_BAD_DESCRIPTOR] = "bad-descriptor",
        [COPRO_FAULT_BAD_PACKET] = "bad-packet",
        [COPRO_FAULT_TRANSLATION] = "translation",
        [COPRO_FAULT_DMA] = "dma",
        [COPRO_FAULT_INJECTED] = "injected",
        [COPRO_FAULT_BAD_SAVE] = "bad-save",
        [COPRO_FAULT_GART] = "gart",
        [COPRO_FAULT_PAGE] = "page",
        [COPRO_FAULT_TABLE] = "table",
    };

    if (kind < sizeof(names) / sizeof(names[0]) && names[kind]) {
        return names[kind];
    }
    return "unknown";
}
