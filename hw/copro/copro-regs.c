/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the register file and interrupts: the decode of BAR0 into the
 * global block and each engine's, the MMU's, the display's, the
 * scheduler's and the tiler's registers (include/copro/copro_regs.h), and
 * the delivery of interrupt causes by MSI-X, MSI or INTx. The PCI
 * function and its lifecycle are copro.c.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "qemu/bitops.h"
#include "hw/pci/pci.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "copro.h"
#include "trace.h"

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
void copro_update_intx(CoproState *s)
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

const MemoryRegionOps copro_mmio_ops = {
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
