/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: a preemptible GPU-like coprocessor
 *
 * PCI function, register file, interrupts, reset and migration. The
 * command processor (rings, packets, fences) is in copro-engine.c; the
 * programming model is docs/specs/copro.rst and the register ABI is
 * include/copro/copro_regs.h.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qemu/bitops.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/core/qdev-prop-internal.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "system/runstate.h"
#include "copro.h"
#include "trace.h"

#define COPRO_PCIE_CAP_OFFSET 0x80

int64_t copro_now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * Does DMA to bus addresses [addr, addr + len) touch one of the device's
 * own BARs? The engines refuse such DMA as a fault: it would reach the
 * device's registers (or VRAM) from the middle of a step.
 */
bool copro_dma_hits_self(CoproState *s, dma_addr_t addr, dma_addr_t len)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    for (int bar = 0; bar < PCI_NUM_REGIONS; bar++) {
        pcibus_t base = pci_get_bar_addr(pdev, bar);
        pcibus_t size = pdev->io_regions[bar].size;

        if (size && base != PCI_BAR_UNMAPPED &&
            addr < base + size && base < addr + len) {
            return true;
        }
    }
    return false;
}

/*
 * Interrupts
 */

static bool copro_msix_on(CoproState *s)
{
    return msix_enabled(PCI_DEVICE(s));
}

static bool copro_msi_on(CoproState *s)
{
    return msi_enabled(PCI_DEVICE(s));
}

/* INTx follows (status & mask) when no message-signalled mode is on. */
static void copro_update_intx(CoproState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool level = !copro_msix_on(s) && !copro_msi_on(s) &&
                 (s->int_status & s->int_mask) != 0;

    pci_set_irq(pdev, level);
}

/* Send messages for enabled causes that were just raised or unmasked. */
static void copro_deliver(CoproState *s, uint64_t causes)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    causes &= s->int_mask;
    if (!causes) {
        return;
    }
    if (copro_msix_on(s)) {
        for (unsigned e = 0; e < s->num_engines; e++) {
            if (causes & COPRO_INT_ENGINE_MASK(e)) {
                trace_copro_irq_msix(COPRO_MSIX_VEC_ENGINE(e), causes);
                msix_notify(pdev, COPRO_MSIX_VEC_ENGINE(e));
            }
        }
        if (causes & COPRO_INT_DEV_ALL) {
            trace_copro_irq_msix(COPRO_MSIX_VEC_DEVICE(s->num_engines),
                                 causes);
            msix_notify(pdev, COPRO_MSIX_VEC_DEVICE(s->num_engines));
        }
    } else if (copro_msi_on(s)) {
        trace_copro_irq_msi(causes);
        msi_notify(pdev, 0);
    }
}

void copro_raise_irq(CoproState *s, uint64_t causes)
{
    trace_copro_irq_raise(causes, s->int_status, s->int_mask);
    s->int_status |= causes;
    copro_deliver(s, causes);
    copro_update_intx(s);
}

/*
 * Register file
 */

typedef enum CoproRegAccess {
    REG_RO,
    REG_RW,
    REG_W1C,
    REG_WO,
} CoproRegAccess;

typedef struct CoproRegInfo {
    hwaddr offset;
    uint8_t width;          /* 4 or 8 bytes */
    CoproRegAccess access;
    const char *name;
} CoproRegInfo;

static const CoproRegInfo copro_global_regs[] = {
    { COPRO_REG_ID,             4, REG_RO,  "ID" },
    { COPRO_REG_VERSION,        4, REG_RO,  "VERSION" },
    { COPRO_REG_CAPS,           4, REG_RO,  "CAPS" },
    { COPRO_REG_NUM_ENGINES,    4, REG_RO,  "NUM_ENGINES" },
    { COPRO_REG_VRAM_SIZE,      8, REG_RO,  "VRAM_SIZE" },
    { COPRO_REG_APERTURE_SIZE,  8, REG_RO,  "APERTURE_SIZE" },
    { COPRO_REG_APERTURE_BASE,  8, REG_RO,  "APERTURE_BASE" },
    { COPRO_REG_PREEMPT_CAPS,   4, REG_RO,  "PREEMPT_CAPS" },
    { COPRO_REG_MSIX_VECTORS,   4, REG_RO,  "MSIX_VECTORS" },
    { COPRO_REG_SCRATCH,        4, REG_RW,  "SCRATCH" },
    { COPRO_REG_GPU_TIME,       8, REG_RO,  "GPU_TIME" },
    { COPRO_REG_CTX_SWITCH_NS,  8, REG_RO,  "CTX_SWITCH_NS" },
    { COPRO_REG_INT_STATUS,     8, REG_W1C, "INT_STATUS" },
    { COPRO_REG_INT_MASK,       8, REG_RW,  "INT_MASK" },
    { COPRO_REG_INT_TEST,       4, REG_WO,  "INT_TEST" },
    { COPRO_REG_INT_TEST_DATA,  4, REG_RO,  "INT_TEST_DATA" },
    { COPRO_REG_GART_BASE,      8, REG_RW,  "GART_BASE" },
    { COPRO_REG_GART_ENTRIES,   4, REG_RW,  "GART_ENTRIES" },
    { COPRO_REG_GART_INVAL_FIRST, 4, REG_RW, "GART_INVAL_FIRST" },
    { COPRO_REG_GART_INVAL,     4, REG_WO,  "GART_INVAL" },
    { COPRO_REG_CTX_TABLE_BASE, 8, REG_RW,  "CTX_TABLE_BASE" },
    { COPRO_REG_CTX_TABLE_SIZE, 4, REG_RW,  "CTX_TABLE_SIZE" },
    { COPRO_REG_VM_INVAL,       4, REG_WO,  "VM_INVAL" },
    { COPRO_REG_DISP_CONTROL,   4, REG_RW,  "DISP_CONTROL" },
    { COPRO_REG_DISP_STATUS,    4, REG_RO,  "DISP_STATUS" },
    { COPRO_REG_DISP_SURFACE,   8, REG_RW,  "DISP_SURFACE" },
    { COPRO_REG_DISP_PITCH,     4, REG_RW,  "DISP_PITCH" },
    { COPRO_REG_DISP_WIDTH,     4, REG_RW,  "DISP_WIDTH" },
    { COPRO_REG_DISP_HEIGHT,    4, REG_RW,  "DISP_HEIGHT" },
    { COPRO_REG_DISP_FORMAT,    4, REG_RW,  "DISP_FORMAT" },
    { COPRO_REG_DISP_FLIP,      8, REG_RW,  "DISP_FLIP" },
    { COPRO_REG_DISP_SCANOUT,   8, REG_RO,  "DISP_SCANOUT" },
    { COPRO_REG_DISP_VSYNC_COUNT, 8, REG_RO, "DISP_VSYNC_COUNT" },
    { COPRO_REG_DISP_VSYNC_TIME, 8, REG_RO, "DISP_VSYNC_TIME" },
    { COPRO_REG_DISP_FLIP_ADDR, 8, REG_RO,  "DISP_FLIP_ADDR" },
    { COPRO_REG_DISP_FLIP_VSYNC, 8, REG_RO, "DISP_FLIP_VSYNC" },
    { COPRO_REG_DISP_FLIPS,     8, REG_RO,  "DISP_FLIPS" },
    { COPRO_REG_DISP_FLIPS_REPLACED, 8, REG_RO, "DISP_FLIPS_REPLACED" },
    { COPRO_REG_DISP_PERIOD_NS, 8, REG_RO,  "DISP_PERIOD_NS" },
    { COPRO_REG_DISP_REFRESH,   4, REG_RO,  "DISP_REFRESH" },
    { COPRO_REG_DISP_ERROR,     4, REG_RO,  "DISP_ERROR" },
    { COPRO_REG_DISP_ERROR_ADDR, 8, REG_RO, "DISP_ERROR_ADDR" },
    { COPRO_REG_CURSOR_CONTROL, 4, REG_RW,  "CURSOR_CONTROL" },
    { COPRO_REG_CURSOR_POS,     4, REG_RW,  "CURSOR_POS" },
    { COPRO_REG_CURSOR_SURFACE, 8, REG_RW,  "CURSOR_SURFACE" },
    { COPRO_REG_DISP_CRC_CONTROL, 4, REG_RW, "DISP_CRC_CONTROL" },
    { COPRO_REG_DISP_CRC,       8, REG_RO,  "DISP_CRC" },
    { COPRO_REG_DISP_CRC_VSYNC, 8, REG_RO,  "DISP_CRC_VSYNC" },
    { COPRO_REG_DISP_MODE_SIZE, 4, REG_RW,  "DISP_MODE_SIZE" },
    { COPRO_REG_DISP_PLANE_POS, 4, REG_RW,  "DISP_PLANE_POS" },
    { COPRO_REG_DISP_BACKGROUND, 4, REG_RW, "DISP_BACKGROUND" },
    { COPRO_REG_DISP_FLIP_ASYNC, 8, REG_WO, "DISP_FLIP_ASYNC" },
    { COPRO_REG_MARK_ARG0,      8, REG_RW,  "MARK_ARG0" },
    { COPRO_REG_MARK_ARG1,      8, REG_RW,  "MARK_ARG1" },
    { COPRO_REG_MARK,           8, REG_WO,  "MARK" },
    { COPRO_REG_TILER_TILE_SIZE, 4, REG_RO, "TILER_TILE_SIZE" },
    { COPRO_REG_TILER_MAX_TILES, 4, REG_RO, "TILER_MAX_TILES" },
    { COPRO_REG_TILER_TILE_NS,  8, REG_RO,  "TILER_TILE_NS" },
    { COPRO_REG_TILER_STAT_SCENES, 8, REG_RO, "TILER_STAT_SCENES" },
    { COPRO_REG_TILER_STAT_PRIMS, 8, REG_RO, "TILER_STAT_PRIMS" },
    { COPRO_REG_TILER_STAT_TILES, 8, REG_RO, "TILER_STAT_TILES" },
    { COPRO_REG_TILER_STAT_LOADS, 8, REG_RO, "TILER_STAT_LOADS" },
    { COPRO_REG_TILER_STAT_LOAD_SKIPS, 8, REG_RO, "TILER_STAT_LOAD_SKIPS" },
    { COPRO_REG_TILER_STAT_STORES, 8, REG_RO, "TILER_STAT_STORES" },
    { COPRO_REG_TILER_STAT_TILE_BYTES, 8, REG_RO, "TILER_STAT_TILE_BYTES" },
    { COPRO_REG_TILER_STAT_PB_READ, 8, REG_RO, "TILER_STAT_PB_READ" },
    { COPRO_REG_TILER_STAT_PB_WRITE, 8, REG_RO, "TILER_STAT_PB_WRITE" },
    { COPRO_REG_TILER_STAT_OOMS, 8, REG_RO, "TILER_STAT_OOMS" },
    { COPRO_REG_TILER_STAT_PARTIALS, 8, REG_RO, "TILER_STAT_PARTIALS" },
};

static const CoproRegInfo copro_engine_regs[] = {
    { COPRO_ENG_RING_BASE,          8, REG_RW, "RING_BASE" },
    { COPRO_ENG_RING_SIZE,          4, REG_RW, "RING_SIZE" },
    { COPRO_ENG_RING_HEAD,          4, REG_RO, "RING_HEAD" },
    { COPRO_ENG_RING_TAIL,          4, REG_RW, "RING_TAIL" },
    { COPRO_ENG_STATE,              4, REG_RO, "STATE" },
    { COPRO_ENG_FENCE_WB,           8, REG_RW, "FENCE_WB" },
    { COPRO_ENG_COMPLETED_FENCE,    8, REG_RO, "COMPLETED_FENCE" },
    { COPRO_ENG_CURRENT_FENCE,      8, REG_RO, "CURRENT_FENCE" },
    { COPRO_ENG_CURRENT_CONTEXT,    4, REG_RO, "CURRENT_CONTEXT" },
    { COPRO_ENG_CONTROL,            4, REG_WO, "CONTROL" },
    { COPRO_ENG_FAULT_KIND,         4, REG_RO, "FAULT_KIND" },
    { COPRO_ENG_FAULT_OFFSET,       4, REG_RO, "FAULT_OFFSET" },
    { COPRO_ENG_FAULT_ADDR,         8, REG_RO, "FAULT_ADDR" },
    { COPRO_ENG_FAULT_FENCE,        8, REG_RO, "FAULT_FENCE" },
    { COPRO_ENG_ABORTED_FENCE,      8, REG_RO, "ABORTED_FENCE" },
    { COPRO_ENG_USER_DATA,          4, REG_RO, "USER_DATA" },
    { COPRO_ENG_FAULT_CONTEXT,      4, REG_RO, "FAULT_CONTEXT" },
    { COPRO_ENG_FAULT_INFO,         4, REG_RO, "FAULT_INFO" },
    { COPRO_ENG_INJECT,             4, REG_RW, "INJECT" },
    { COPRO_ENG_PREEMPT_REQ,        8, REG_WO, "PREEMPT_REQ" },
    { COPRO_ENG_PREEMPT_FENCE,      8, REG_RO, "PREEMPT_FENCE" },
    { COPRO_ENG_PREEMPTED_FENCE,    8, REG_RO, "PREEMPTED_FENCE" },
    { COPRO_ENG_STAT_BUSY_NS,       8, REG_RO, "STAT_BUSY_NS" },
    { COPRO_ENG_STAT_SUBMISSIONS,   8, REG_RO, "STAT_SUBMISSIONS" },
    { COPRO_ENG_STAT_PACKETS,       8, REG_RO, "STAT_PACKETS" },
    { COPRO_ENG_STAT_BYTES,         8, REG_RO, "STAT_BYTES" },
    { COPRO_ENG_STAT_FAULTS,        8, REG_RO, "STAT_FAULTS" },
    { COPRO_ENG_STAT_PREEMPTIONS,   8, REG_RO, "STAT_PREEMPTIONS" },
    { COPRO_ENG_STAT_PREEMPT_MIN,   8, REG_RO, "STAT_PREEMPT_MIN" },
    { COPRO_ENG_STAT_PREEMPT_MAX,   8, REG_RO, "STAT_PREEMPT_MAX" },
    { COPRO_ENG_STAT_PREEMPT_SUM,   8, REG_RO, "STAT_PREEMPT_SUM" },
    { COPRO_ENG_STAT_TLB_HITS,      8, REG_RO, "STAT_TLB_HITS" },
    { COPRO_ENG_STAT_TLB_MISSES,    8, REG_RO, "STAT_TLB_MISSES" },
    { COPRO_ENG_TILER_CAUSE,        4, REG_RO, "TILER_CAUSE" },
    { COPRO_ENG_TILER_OOM_NEED,     4, REG_RO, "TILER_OOM_NEED" },
    { COPRO_ENG_TILER_OOM_FENCE,    8, REG_RO, "TILER_OOM_FENCE" },
    { COPRO_ENG_STAT_MEM_READ,      8, REG_RO, "STAT_MEM_READ" },
    { COPRO_ENG_STAT_MEM_WRITE,     8, REG_RO, "STAT_MEM_WRITE" },
    { COPRO_ENG_TILER_SCENE,        8, REG_RO, "TILER_SCENE" },
};

/* hardware scheduling (COPRO_CAP_HWSCHED only) */
static const CoproRegInfo copro_hws_regs[] = {
    { COPRO_REG_HWS_QUEUES,     4, REG_RO,  "HWS_QUEUES" },
    { COPRO_REG_HWS_PREEMPT_TIMEOUT, 4, REG_RW, "HWS_PREEMPT_TIMEOUT" },
    { COPRO_REG_HWS_LOW_SHARE,  4, REG_RW,  "HWS_LOW_SHARE" },
    { COPRO_REG_HWS_LOG_ADDR,   8, REG_RW,  "HWS_LOG_ADDR" },
    { COPRO_REG_HWS_LOG_SIZE,   4, REG_RW,  "HWS_LOG_SIZE" },
    { COPRO_REG_HWS_LOG_WPTR,   4, REG_RO,  "HWS_LOG_WPTR" },
    { COPRO_REG_HWS_LOG_RPTR,   4, REG_RW,  "HWS_LOG_RPTR" },
    { COPRO_REG_HWS_LOG_DROPPED, 4, REG_RO, "HWS_LOG_DROPPED" },
    { COPRO_REG_HWS_ERROR,      4, REG_RO,  "HWS_ERROR" },
    { COPRO_REG_HWS_ERROR_QUEUE, 4, REG_RO, "HWS_ERROR_QUEUE" },
    { COPRO_REG_HWS_ERROR_ADDR, 8, REG_RO,  "HWS_ERROR_ADDR" },
    { COPRO_REG_HWS_DOORBELLS,  8, REG_RO,  "HWS_DOORBELLS" },
    { COPRO_REG_HWS_SWITCHES,   8, REG_RO,  "HWS_SWITCHES" },
    { COPRO_REG_HWS_OOM_ANSWER, 4, REG_WO,  "HWS_OOM_ANSWER" },
    { COPRO_REG_HWS_OOM_WAITING, 8, REG_RO, "HWS_OOM_WAITING" },
};

/* per engine, at COPRO_RL_BASE(e) */
static const CoproRegInfo copro_rl_regs[] = {
    { COPRO_RL_ADDR,            8, REG_RW,  "RL_ADDR" },
    { COPRO_RL_COUNT,           4, REG_RW,  "RL_COUNT" },
    { COPRO_RL_COMMIT,          4, REG_WO,  "RL_COMMIT" },
    { COPRO_RL_STATUS,          4, REG_RO,  "RL_STATUS" },
    { COPRO_RL_SEQ,             4, REG_RO,  "RL_SEQ" },
    { COPRO_RL_CURRENT,         4, REG_RO,  "RL_CURRENT" },
    { COPRO_RL_ACTIVE,          4, REG_RO,  "RL_ACTIVE" },
};

static const CoproRegInfo *copro_find_reg(const CoproRegInfo *tab, size_t n,
                                          hwaddr off)
{
    for (size_t i = 0; i < n; i++) {
        if (off >= tab[i].offset && off < tab[i].offset + tab[i].width) {
            return &tab[i];
        }
    }
    return NULL;
}

/*
 * Resolve an offset to a register. For engine registers *engine is set and
 * the returned offset is relative to the engine block.
 */
static const CoproRegInfo *copro_decode(CoproState *s, hwaddr addr,
                                        CoproEngine **engine, hwaddr *base)
{
    const CoproRegInfo *r;

    *engine = NULL;
    if (addr >= COPRO_ENG_BLOCK &&
        addr < COPRO_ENG_BASE(COPRO_MAX_ENGINES)) {
        unsigned idx = (addr - COPRO_ENG_BLOCK) / COPRO_ENG_STRIDE;
        hwaddr off = (addr - COPRO_ENG_BLOCK) % COPRO_ENG_STRIDE;

        if (idx >= s->num_engines) {
            return NULL;
        }
        r = copro_find_reg(copro_engine_regs, ARRAY_SIZE(copro_engine_regs),
                           off);
        if (r) {
            *engine = &s->engines[idx];
            *base = r->offset;
        }
        return r;
    }
    if (s->hwsched && addr >= COPRO_RL_BLOCK &&
        addr < COPRO_RL_BASE(COPRO_MAX_ENGINES)) {
        unsigned idx = (addr - COPRO_RL_BLOCK) / COPRO_RL_STRIDE;

        if (idx >= s->num_engines) {
            return NULL;
        }
        r = copro_find_reg(copro_rl_regs, ARRAY_SIZE(copro_rl_regs),
                           (addr - COPRO_RL_BLOCK) % COPRO_RL_STRIDE);
        if (r) {
            /* handled as a global register at its absolute offset */
            *base = COPRO_RL_BASE(idx) + r->offset;
        }
        return r;
    }
    if (s->hwsched && addr >= COPRO_REG_HWS_QUEUES && addr < COPRO_RL_BLOCK) {
        r = copro_find_reg(copro_hws_regs, ARRAY_SIZE(copro_hws_regs), addr);
        if (r) {
            *base = r->offset;
        }
        return r;
    }
    r = copro_find_reg(copro_global_regs, ARRAY_SIZE(copro_global_regs),
                       addr);
    if (r) {
        *base = r->offset;
    }
    return r;
}

static uint32_t copro_caps(CoproState *s)
{
    uint32_t caps = COPRO_CAP_CMD_PROCESSOR | COPRO_CAP_GPUVA |
                    COPRO_CAP_DISPLAY | COPRO_CAP_MARKERS | COPRO_CAP_TILER;

    if (s->msix_enabled_prop) {
        caps |= COPRO_CAP_MSIX;
    }
    if (s->aperture_size) {
        caps |= COPRO_CAP_GART;
    }
    if (s->preempt != COPRO_PREEMPT_NONE) {
        caps |= COPRO_CAP_PREEMPTION;
    }
    if (s->fault_injection) {
        caps |= COPRO_CAP_FAULT_INJECTION;
    }
    if (s->hwsched) {
        caps |= COPRO_CAP_HWSCHED;
    }
    return caps;
}

static uint64_t copro_global_read(CoproState *s, hwaddr reg)
{
    switch (reg) {
    case COPRO_REG_ID:
        return COPRO_ID_MAGIC;
    case COPRO_REG_VERSION:
        return COPRO_VERSION;
    case COPRO_REG_CAPS:
        return copro_caps(s);
    case COPRO_REG_NUM_ENGINES:
        return s->num_engines;
    case COPRO_REG_VRAM_SIZE:
        return s->vram_size;
    case COPRO_REG_APERTURE_SIZE:
        return s->aperture_size;
    case COPRO_REG_GART_BASE ... COPRO_REG_VM_INVAL:
        return copro_mmu_read(s, reg);
    case COPRO_REG_APERTURE_BASE:
        return COPRO_APERTURE_BASE;
    case COPRO_REG_PREEMPT_CAPS:
        return s->preempt;
    case COPRO_REG_MSIX_VECTORS:
        return s->msix_enabled_prop ? s->num_engines + 1 : 0;
    case COPRO_REG_SCRATCH:
        return s->scratch;
    case COPRO_REG_GPU_TIME:
        return copro_now_ns();
    case COPRO_REG_CTX_SWITCH_NS:
        return copro_ctx_switch_ns(&s->engines[0]);
    case COPRO_REG_INT_STATUS:
        return s->int_status;
    case COPRO_REG_INT_MASK:
        return s->int_mask;
    case COPRO_REG_INT_TEST_DATA:
        return s->int_test_data;
    case COPRO_REG_DISP_CONTROL ... COPRO_REG_DISP_FLIP_ASYNC:
        return copro_display_read(s, reg);
    case COPRO_REG_MARK_ARG0 ... COPRO_REG_MARK:
        return copro_tl_mark_read(s, reg);
    case COPRO_REG_HWS_QUEUES ... COPRO_RL_BASE(COPRO_MAX_ENGINES) - 1:
        return copro_hws_read(s, reg);
    case COPRO_REG_TILER_TILE_SIZE ... COPRO_REG_TILER_STAT_PARTIALS:
        return copro_tiler_read(s, reg);
    default:
        return 0;
    }
}

/* val/mask are already shifted to the register's bit positions. */
static void copro_global_write(CoproState *s, hwaddr reg, uint64_t val,
                               uint64_t mask)
{
    uint64_t newly;

    switch (reg) {
    case COPRO_REG_SCRATCH:
        s->scratch = val;
        break;
    case COPRO_REG_INT_STATUS:
        s->int_status &= ~(val & mask);
        copro_update_intx(s);
        break;
    case COPRO_REG_INT_MASK:
        newly = (val & mask) & ~s->int_mask;
        s->int_mask = (s->int_mask & ~mask) | (val & mask);
        copro_deliver(s, newly & s->int_status);
        copro_update_intx(s);
        break;
    case COPRO_REG_INT_TEST:
        s->int_test_data = val;
        copro_raise_irq(s, COPRO_INT_DEV_TEST);
        break;
    case COPRO_REG_GART_BASE ... COPRO_REG_VM_INVAL:
        copro_mmu_write(s, reg, val, mask);
        break;
    case COPRO_REG_DISP_CONTROL ... COPRO_REG_DISP_FLIP_ASYNC:
        copro_display_write(s, reg, val, mask);
        break;
    case COPRO_REG_MARK_ARG0 ... COPRO_REG_MARK:
        copro_tl_mark_write(s, reg, val, mask);
        break;
    case COPRO_REG_HWS_QUEUES ... COPRO_RL_BASE(COPRO_MAX_ENGINES) - 1:
        copro_hws_write(s, reg, val, mask);
        break;
    default:
        g_assert_not_reached();
    }
}

static bool copro_access_ok(CoproState *s, hwaddr addr, unsigned size,
                            bool is_write, const CoproRegInfo **reg,
                            CoproEngine **engine, hwaddr *base)
{
    const char *what = is_write ? "write" : "read";

    *reg = copro_decode(s, addr, engine, base);
    if (!*reg) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "copro: %s of unknown register 0x%" HWADDR_PRIx "\n",
                      what, addr);
        trace_copro_mmio_bad(is_write, addr, size);
        return false;
    }
    if ((size != 4 && size != 8) || size > (*reg)->width ||
        (addr & (size - 1)) != 0) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "copro: bad %u-byte %s of %s at 0x%" HWADDR_PRIx
                      " (register is %u bytes)\n", size, what, (*reg)->name,
                      addr, (*reg)->width);
        trace_copro_mmio_bad(is_write, addr, size);
        return false;
    }
    return true;
}

static uint64_t copro_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    CoproState *s = opaque;
    const CoproRegInfo *reg;
    CoproEngine *e;
    hwaddr base;
    uint64_t val;

    if (!copro_access_ok(s, addr, size, false, &reg, &e, &base)) {
        return 0;
    }
    if (reg->access == REG_WO) {
        val = 0;
    } else if (e) {
        val = copro_engine_read(e, base);
    } else {
        val = copro_global_read(s, base);
    }
    if (size < reg->width) {
        val = extract64(val, (addr - (addr & ~7ULL)) * 8, size * 8);
    }
    trace_copro_mmio_read(addr, reg->name, size, val);
    return val;
}

static void copro_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    CoproState *s = opaque;
    const CoproRegInfo *reg;
    CoproEngine *e;
    hwaddr base;
    uint64_t mask = MAKE_64BIT_MASK(0, size * 8);
    unsigned shift;

    if (!copro_access_ok(s, addr, size, true, &reg, &e, &base)) {
        return;
    }
    trace_copro_mmio_write(addr, reg->name, size, val);
    if (reg->access == REG_RO) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "copro: write to read-only register %s at 0x%"
                      HWADDR_PRIx "\n", reg->name, addr);
        return;
    }
    shift = (addr & 7) * 8 * (reg->width == 8);
    if (e) {
        copro_engine_write(e, base, val << shift, mask << shift);
    } else {
        copro_global_write(s, base, val << shift, mask << shift);
    }
}

static const MemoryRegionOps copro_mmio_ops = {
    .read = copro_mmio_read,
    .write = copro_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* Every size reaches the handlers so that bad ones can be logged. */
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/*
 * Lifecycle
 */

static bool copro_check_props(CoproState *s, Error **errp)
{
    if (s->num_engines < 1 || s->num_engines > COPRO_MAX_ENGINES) {
        error_setg(errp, "copro: engines=%" PRIu32 " is out of range "
                   "(1 to %d)", s->num_engines, COPRO_MAX_ENGINES);
        return false;
    }
    if (s->vram_size < COPRO_VRAM_MIN || s->vram_size > COPRO_VRAM_MAX ||
        !is_power_of_2(s->vram_size)) {
        error_setg(errp, "copro: vram=%" PRIu64 " bytes is not a power of "
                   "two between %u MiB and %llu GiB", s->vram_size,
                   COPRO_VRAM_MIN / (unsigned)MiB,
                   COPRO_VRAM_MAX / GiB);
        return false;
    }
    if (s->timing == COPRO_TIMING_MODELLED &&
        (!s->copy_bw || !s->fill_bw || !s->pixel_rate)) {
        error_setg(errp, "copro: copy-bw, fill-bw and pixel-rate must be "
                   "non-zero");
        return false;
    }
    if (s->aperture_size > COPRO_APERTURE_MAX ||
        (s->aperture_size & (COPRO_GPU_PAGE_SIZE - 1))) {
        error_setg(errp, "copro: aperture=%" PRIu64 " bytes is not a "
                   "multiple of 4 KiB up to %llu GiB", s->aperture_size,
                   COPRO_APERTURE_MAX / GiB);
        return false;
    }
    if (!s->slice_packets) {
        error_setg(errp, "copro: x-slice-packets must be non-zero");
        return false;
    }
    /* the engine clock is 64-bit ns: bounded costs cannot wrap it */
    if (s->packet_ns > COPRO_PACKET_NS_MAX) {
        error_setg(errp, "copro: packet-ns=%" PRIu64 " is above the limit "
                   "of %llu ns (1 s)", s->packet_ns, COPRO_PACKET_NS_MAX);
        return false;
    }
    if (s->arbitration_ns < COPRO_ARBITRATION_NS_MIN ||
        s->arbitration_ns > COPRO_ARBITRATION_NS_MAX) {
        error_setg(errp, "copro: arbitration-ns=%" PRIu64 " is out of "
                   "range (%llu to %llu ns)", s->arbitration_ns,
                   COPRO_ARBITRATION_NS_MIN, COPRO_ARBITRATION_NS_MAX);
        return false;
    }
    if (s->refresh < 1 || s->refresh > COPRO_DISP_REFRESH_MAX) {
        error_setg(errp, "copro: refresh=%" PRIu32 " Hz is out of range "
                   "(1 to %d)", s->refresh, COPRO_DISP_REFRESH_MAX);
        return false;
    }
    if (s->ctx_state_size > COPRO_CTX_STATE_MAX) {
        error_setg(errp, "copro: ctx-state-size=%" PRIu64 " bytes is above "
                   "the limit of %llu GiB", s->ctx_state_size,
                   COPRO_CTX_STATE_MAX / GiB);
        return false;
    }
    return copro_tiler_check_props(s, errp);
}

static bool copro_init_irqs(CoproState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    Error *err = NULL;
    int ret;

    pci_config_set_interrupt_pin(pdev->config, 1);

    if (s->msi_enabled_prop) {
        ret = msi_init(pdev, 0, 1, true, false, &err);
        if (ret == -ENOTSUP) {
            /* the platform has no MSI: INTx still works */
            warn_report_err(err);
            err = NULL;
        } else if (ret < 0) {
            error_propagate(errp, err);
            return false;
        }
    }
    if (s->msix_enabled_prop) {
        unsigned nvec = s->num_engines + 1;

        ret = msix_init_exclusive_bar(pdev, nvec, COPRO_BAR_MSIX, &err);
        if (ret == -ENOTSUP) {
            warn_report_err(err);
            s->msix_enabled_prop = false;
        } else if (ret < 0) {
            error_propagate(errp, err);
            return false;
        } else {
            for (unsigned v = 0; v < nvec; v++) {
                msix_vector_use(pdev, v);
            }
        }
    }
    return true;
}

/*
 * Engines go on with what they were doing when the VM starts running (after
 * an incoming migration, loadvm or cont), not while the state is loading:
 * their DMA must not touch guest memory before the VM owns it.
 */
static void copro_vm_state_change(void *opaque, bool running,
                                  RunState state)
{
    CoproState *s = opaque;

    if (!running) {
        return;
    }
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_vm_start(&s->engines[i]);
    }
}

static void copro_fini_irqs(CoproState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (s->msix_enabled_prop && msix_present(pdev)) {
        msix_unuse_all_vectors(pdev);
        msix_uninit_exclusive_bar(pdev);
    }
    msi_uninit(pdev);
}

/*
 * Everything that can refuse the device (properties, capabilities,
 * interrupts, the VRAM allocation, the timeline) comes before anything
 * that cannot, and a refusal undoes what was done: a management stack
 * retries device_add at the same address, and a VRAM block left
 * registered under that address's name would abort QEMU then.
 */
static void copro_realize(PCIDevice *pdev, Error **errp)
{
    CoproState *s = COPRO(pdev);
    ERRP_GUARD();

    if (!copro_check_props(s, errp)) {
        return;
    }

    pci_config_set_revision(pdev->config, COPRO_PCI_REVISION);

    if (pci_bus_is_express(pci_get_bus(pdev))) {
        if (pcie_endpoint_cap_init(pdev, COPRO_PCIE_CAP_OFFSET) < 0) {
            error_setg(errp, "copro: cannot add the PCIe capability");
            return;
        }
    } else {
        pdev->cap_present &= ~QEMU_PCI_CAP_EXPRESS;
    }

    if (!copro_init_irqs(s, errp)) {
        copro_fini_irqs(s);
        return;
    }
    if (!memory_region_init_ram(&s->vram, OBJECT(s), "copro-vram",
                                s->vram_size, errp)) {
        copro_fini_irqs(s);
        return;
    }
    if (!copro_tl_realize(s, errp)) {
        copro_tl_unrealize(s);
        vmstate_unregister_ram(&s->vram, DEVICE(s));
        copro_fini_irqs(s);
        return;
    }
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);

    memory_region_init_io(&s->mmio, OBJECT(s), &copro_mmio_ops, s,
                          "copro-mmio", COPRO_MMIO_SIZE);
    pci_register_bar(pdev, COPRO_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    pci_register_bar(pdev, COPRO_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_PREFETCH |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->vram);

    copro_display_init(s);
    copro_tiler_init(s);
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_init(s, i);
    }
    copro_hws_init(s);
    s->vmstate_change = qdev_add_vm_change_state_handler(DEVICE(s),
                                                         copro_vm_state_change,
                                                         s);
}

static void copro_exit(PCIDevice *pdev)
{
    CoproState *s = COPRO(pdev);

    g_clear_pointer(&s->vmstate_change, qemu_del_vm_change_state_handler);
    copro_tl_unrealize(s);
    copro_display_fini(s);
    copro_hws_fini(s);
    copro_tiler_fini(s);
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_fini(&s->engines[i]);
    }
    copro_fini_irqs(s);
    /*
     * The VRAM block goes when the last reference to the device does
     * (later, after RCU); its migration name must go now, so that a
     * device added at the same address right away can take it.
     */
    vmstate_unregister_ram(&s->vram, DEVICE(s));
}

static void copro_instance_init(Object *obj)
{
    PCIDevice *pdev = PCI_DEVICE(obj);

    /* dropped in realize when the device is not on an Express bus */
    pdev->cap_present |= QEMU_PCI_CAP_EXPRESS;
}

/*
 * Reset returns every register to its power-on value and cancels the work
 * of all engines (their timers and bottom halves). VRAM contents survive,
 * as on real boards. The PCI core lowers INTx and resets MSI/MSI-X.
 */
static void copro_reset_hold(Object *obj, ResetType type)
{
    CoproState *s = COPRO(obj);

    s->scratch = 0;
    s->int_status = 0;
    s->int_mask = 0;
    s->int_test_data = 0;
    memset(s->ctx_stats, 0, sizeof(s->ctx_stats));
    for (unsigned i = 0; i < s->num_engines; i++) {
        copro_engine_reset(&s->engines[i]);
    }
    copro_hws_reset(s);
    copro_mmu_reset(s);
    copro_display_reset(s);
    copro_tl_reset(s);
    copro_tiler_reset(s);
    copro_update_intx(s);
}

static int copro_post_load(void *opaque, int version_id)
{
    CoproState *s = opaque;

    for (unsigned i = 0; i < s->num_engines; i++) {
        if (!copro_engine_post_load(&s->engines[i])) {
            error_report("copro: engine %u: inconsistent migrated state", i);
            return -EINVAL;
        }
    }
    return 0;
}

static const VMStateDescription vmstate_copro = {
    .name = "copro",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = copro_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, CoproState),
        VMSTATE_MSIX(parent_obj, CoproState),
        VMSTATE_UINT32(scratch, CoproState),
        VMSTATE_UINT64(int_status, CoproState),
        VMSTATE_UINT64(int_mask, CoproState),
        VMSTATE_UINT32(int_test_data, CoproState),
        /* only the engines that exist: the others have no timer */
        VMSTATE_UINT32_EQUAL(num_engines, CoproState, NULL),
        VMSTATE_STRUCT_VARRAY_UINT32(engines, CoproState, num_engines, 1,
                                     vmstate_copro_engine, CoproEngine),
        VMSTATE_STRUCT_ARRAY(ctx_stats, CoproState, COPRO_CTX_STATS, 1,
                             vmstate_copro_ctx_stat, CoproCtxStat),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_copro_mmu,
        &vmstate_copro_display,
        &vmstate_copro_hws,
        &vmstate_copro_tiler,
        NULL
    },
};

static const QEnumLookup copro_timing_lookup = {
    .array = (const char *const[]) {
        [COPRO_TIMING_MODELLED] = "modelled",
        [COPRO_TIMING_INSTANT] = "instant",
    },
    .size = 2,
};

static const PropertyInfo copro_prop_timing = {
    .type = "CoproTiming",
    .description = "modelled/instant",
    .enum_table = &copro_timing_lookup,
    .get = qdev_propinfo_get_enum,
    .set = qdev_propinfo_set_enum,
    .set_default_value = qdev_propinfo_set_default_value_enum,
};

static const QEnumLookup copro_preempt_lookup = {
    .array = (const char *const[]) {
        [COPRO_PREEMPT_NONE] = "none",
        [COPRO_PREEMPT_DMA_BUFFER] = "dma-buffer",
        [COPRO_PREEMPT_COMMAND] = "command",
        [COPRO_PREEMPT_MID_COMMAND] = "mid-command",
    },
    .size = 4,
};

static const PropertyInfo copro_prop_preempt = {
    .type = "CoproPreempt",
    .description = "none/dma-buffer/command/mid-command",
    .enum_table = &copro_preempt_lookup,
    .get = qdev_propinfo_get_enum,
    .set = qdev_propinfo_set_enum,
    .set_default_value = qdev_propinfo_set_default_value_enum,
};

static const Property copro_properties[] = {
    DEFINE_PROP_SIZE("vram", CoproState, vram_size, COPRO_VRAM_DEFAULT),
    DEFINE_PROP_UINT32("engines", CoproState, num_engines, 2),
    DEFINE_PROP_BOOL("msix", CoproState, msix_enabled_prop, true),
    DEFINE_PROP_BOOL("msi", CoproState, msi_enabled_prop, true),
    DEFINE_PROP_UNSIGNED("timing", CoproState, timing,
                         COPRO_TIMING_MODELLED, copro_prop_timing,
                         uint32_t),
    DEFINE_PROP_UINT64("packet-ns", CoproState, packet_ns, 100),
    DEFINE_PROP_UINT64("copy-bw", CoproState, copy_bw, 8 * GiB),
    DEFINE_PROP_UINT64("fill-bw", CoproState, fill_bw, 16 * GiB),
    DEFINE_PROP_SIZE("aperture", CoproState, aperture_size,
                     COPRO_APERTURE_DEFAULT),
    DEFINE_PROP_UINT64("pixel-rate", CoproState, pixel_rate, 4000000000ULL),
    DEFINE_PROP_UINT32("x-slice-packets", CoproState, slice_packets, 256),
    DEFINE_PROP_BOOL("x-batch", CoproState, batch, true),
    DEFINE_PROP_UINT64("arbitration-ns", CoproState, arbitration_ns,
                       COPRO_ARBITRATION_NS_DEFAULT),
    DEFINE_PROP_SIZE("ctx-state-size", CoproState, ctx_state_size,
                     COPRO_CTX_STATE_DEFAULT),
    DEFINE_PROP_UNSIGNED("preempt", CoproState, preempt,
                         COPRO_PREEMPT_MID_COMMAND, copro_prop_preempt,
                         uint32_t),
    DEFINE_PROP_BOOL("x-fault-injection", CoproState, fault_injection,
                     false),
    DEFINE_PROP_UINT32("refresh", CoproState, refresh,
                       COPRO_DISP_REFRESH_DEFAULT),
    DEFINE_PROP_UINT32("timeline", CoproState, timeline, 0),
    DEFINE_PROP_STRING("x-timeline-file", CoproState, timeline_file),
    DEFINE_PROP_BOOL("hwsched", CoproState, hwsched, true),
    DEFINE_PROP_UINT32("tile-size", CoproState, tiler.tile_size,
                       COPRO_TILE_SIZE_DEFAULT),
    DEFINE_PROP_UINT64("tile-ns", CoproState, tiler.tile_ns, 200),
};

static const struct {
    const char *name;
    const char *text;
} copro_prop_docs[] = {
    { "vram", "VRAM size behind BAR2: a power of two, 4 MiB to 4 GiB" },
    { "engines", "number of engines, 1 to 4: engine 0 renders, engine 1 "
      "copies/pages" },
    { "msix", "offer MSI-X, one vector per engine plus one for device "
      "events" },
    { "msi", "offer single-vector MSI" },
    { "timing", "modelled: packets take virtual time per the cost model; "
      "instant: run as fast as the host can" },
    { "packet-ns", "modelled cost of fetching and decoding one packet, "
      "in ns" },
    { "copy-bw", "modelled COPY bandwidth in bytes per second" },
    { "fill-bw", "modelled FILL bandwidth in bytes per second" },
    { "pixel-rate", "modelled RECT fill rate in pixels per second" },
    { "aperture", "GART aperture size (multiple of 4 KiB, 0 = none)" },
    { "x-slice-packets", "packets an engine executes per main-loop slice "
      "before yielding" },
    { "arbitration-ns", "mid-command arbitration interval: WORK runs in "
      "slices of this many virtual ns (1 us to 10 ms)" },
    { "ctx-state-size", "modelled context state a preemption saves and a "
      "resume restores, in bytes, moved at copy-bw (0: switches are "
      "free)" },
    { "preempt", "preemption granularity: none (legacy, never interrupts "
      "a buffer), dma-buffer, command (between packets), mid-command "
      "(inside long packets)" },
    { "x-fault-injection", "enable the per-engine INJECT register (hang, "
      "forced fault, dropped interrupt) for testing recovery" },
    { "refresh", "display refresh rate in Hz (vsync period 1e9 / refresh "
      "ns on the virtual clock), 1 to 1000" },
    { "timeline", "record a host-side timeline of this many events (the "
      "oldest dropped when full; 0: off, QMP x-copro-timeline-set turns it "
      "on later)" },
    { "x-timeline-file", "at exit (a guest shutdown too), write the "
      "timeline to this file as x-copro-timeline returns it" },
    { "hwsched", "hardware scheduling: hardware queues with doorbells "
      "(BAR1), per-engine run lists, the device's scheduler and its log" },
    { "tile-size", "tiler: pixels per side of a square tile, a power of "
      "two from 8 to 256" },
    { "tile-ns", "tiler: modelled fixed cost of rendering one tile, in ns "
      "(up to 1 s)" },
};

static void copro_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = copro_realize;
    k->exit = copro_exit;
    k->vendor_id = COPRO_PCI_VENDOR_ID;
    k->device_id = COPRO_PCI_DEVICE_ID;
    k->revision = COPRO_PCI_REVISION;
    k->class_id = COPRO_PCI_CLASS;
    rc->phases.hold = copro_reset_hold;
    dc->vmsd = &vmstate_copro;
    dc->desc = "copro preemptible GPU-like coprocessor";
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
    device_class_set_props(dc, copro_properties);
    for (size_t i = 0; i < ARRAY_SIZE(copro_prop_docs); i++) {
        object_class_property_set_description(klass, copro_prop_docs[i].name,
                                              copro_prop_docs[i].text);
    }
}

static const TypeInfo copro_info = {
    .name = TYPE_COPRO,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(CoproState),
    .instance_init = copro_instance_init,
    .class_init = copro_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void copro_register_types(void)
{
    type_register_static(&copro_info);
    copro_monitor_register();
}

type_init(copro_register_types)
