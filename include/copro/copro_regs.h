/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro hardware ABI: PCI identity and the BAR0 register file.
 *
 * This header is the single source of truth for offsets and bits. It is
 * plain C with <stdint.h> only, and is included by the QEMU device model,
 * the bare-metal firmware, the Linux guest tools and the tests. The
 * programming model is described in docs/specs/copro.rst.
 *
 * All registers are little-endian. 32-bit registers take 4-byte accesses;
 * 64-bit registers take one 8-byte access or two 4-byte accesses (low half
 * at the lower address). Other sizes or misaligned accesses are ignored
 * (reads return 0) and logged as guest errors.
 */
#ifndef COPRO_REGS_H
#define COPRO_REGS_H

#include <stdint.h>

/* PCI identity */
#define COPRO_PCI_VENDOR_ID         0x1af4
#define COPRO_PCI_DEVICE_ID         0x10f0
#define COPRO_PCI_REVISION          0x01
#define COPRO_PCI_CLASS             0x0302  /* display: 3D controller */

/* BARs */
#define COPRO_BAR_MMIO              0       /* register file */
#define COPRO_BAR_VRAM              2       /* VRAM, 64-bit prefetchable */
#define COPRO_BAR_MSIX              4       /* MSI-X table and PBA */
#define COPRO_MMIO_SIZE             0x10000

/* VRAM sizes accepted by the "vram" property (power of two) */
#define COPRO_VRAM_MIN              (4u << 20)
#define COPRO_VRAM_DEFAULT          (64u << 20)
#define COPRO_VRAM_MAX              (1ull << 32)

/* Engines */
#define COPRO_MAX_ENGINES           4
#define COPRO_ENGINE_RENDER         0   /* runs every packet */
#define COPRO_ENGINE_COPY           1   /* copy/paging engine */

/* Version register value: major << 16 | minor */
#define COPRO_VERSION_MAJOR         1
#define COPRO_VERSION_MINOR         0
#define COPRO_VERSION               ((COPRO_VERSION_MAJOR << 16) | \
                                     COPRO_VERSION_MINOR)

/* ID register value: "CPRO" in little-endian byte order */
#define COPRO_ID_MAGIC              0x4f525043u

/*
 * Identification and capabilities (read-only unless stated)
 */
#define COPRO_REG_ID                0x0000  /* 32: COPRO_ID_MAGIC */
#define COPRO_REG_VERSION           0x0004  /* 32: COPRO_VERSION */
#define COPRO_REG_CAPS              0x0008  /* 32: COPRO_CAP_* */
#define COPRO_REG_NUM_ENGINES       0x000c  /* 32: engines present */
#define COPRO_REG_VRAM_SIZE         0x0010  /* 64: bytes */
#define COPRO_REG_APERTURE_SIZE     0x0018  /* 64: bytes, 0 = no aperture */
#define COPRO_REG_APERTURE_BASE     0x0020  /* 64: GPU address of aperture */
#define COPRO_REG_PREEMPT_CAPS      0x0028  /* 32: COPRO_PREEMPT_* */
#define COPRO_REG_MSIX_VECTORS      0x002c  /* 32: MSI-X vectors (0: none) */
#define COPRO_REG_SCRATCH           0x0030  /* 32: read/write, no effect */
#define COPRO_REG_GPU_TIME          0x0038  /* 64: device clock, ns */

/* COPRO_REG_CAPS bits: features a driver may rely on */
#define COPRO_CAP_CMD_PROCESSOR     (1u << 0)   /* rings, packets, fences */
#define COPRO_CAP_GART              (1u << 1)   /* aperture through a GART */
#define COPRO_CAP_GPUVA             (1u << 2)   /* per-context page tables */
#define COPRO_CAP_PREEMPTION        (1u << 3)   /* preemption requests */
#define COPRO_CAP_FAULT_INJECTION   (1u << 4)   /* x-fault-injection=on */
#define COPRO_CAP_MSIX              (1u << 5)   /* MSI-X capability present */

/* COPRO_REG_PREEMPT_CAPS: finest preemption granularity, as WDDM reports */
#define COPRO_PREEMPT_NONE          0   /* never interrupts a DMA buffer */
#define COPRO_PREEMPT_DMA_BUFFER    1   /* between DMA buffers */
#define COPRO_PREEMPT_COMMAND       2   /* between packets */
#define COPRO_PREEMPT_MID_COMMAND   3   /* inside long packets */

/*
 * Interrupt block
 *
 * COPRO_REG_INT_STATUS holds pending interrupt causes (write 1 to clear);
 * COPRO_REG_INT_MASK enables causes (1 = enabled, reset value 0). Engine e
 * owns the eight bits starting at COPRO_INT_ENGINE_SHIFT(e); device events
 * live in the upper half.
 *
 * Delivery: with MSI-X enabled, each newly raised enabled cause of engine e
 * sends vector e and each device event sends vector COPRO_MSIX_VEC_DEVICE
 * (= number of engines). With MSI, every cause sends the single vector.
 * Otherwise INTx (pin A) is asserted while (status & mask) != 0.
 * Enabling a cause that is already pending delivers it.
 */
#define COPRO_REG_INT_STATUS        0x0100  /* 64: pending, W1C */
#define COPRO_REG_INT_MASK          0x0108  /* 64: enabled causes */
#define COPRO_REG_INT_TEST          0x0110  /* 32: write: raise TEST */
#define COPRO_REG_INT_TEST_DATA     0x0114  /* 32: last value written */

#define COPRO_INT_ENGINE_SHIFT(e)   ((e) * 8)
#define COPRO_INT_ENGINE_MASK(e)    (0xffull << COPRO_INT_ENGINE_SHIFT(e))
/* per-engine causes, shifted by COPRO_INT_ENGINE_SHIFT(e) */
#define COPRO_INT_DMA_DONE          (1u << 0)   /* submission completed */
#define COPRO_INT_USER              (1u << 1)   /* INTERRUPT packet */
#define COPRO_INT_FENCE             (1u << 2)   /* FENCE packet, IRQ flag */
#define COPRO_INT_PREEMPTED         (1u << 3)   /* preemption completed */
#define COPRO_INT_FAULT             (1u << 4)   /* GPU page/DMA fault */
#define COPRO_INT_ERROR             (1u << 5)   /* illegal packet, bad desc */
#define COPRO_INT_ENGINE_ALL        0x3fu
#define COPRO_INT_ENG(e, cause)     ((uint64_t)(cause) << \
                                     COPRO_INT_ENGINE_SHIFT(e))
/* device events */
#define COPRO_INT_DEV_TEST          (1ull << 32)    /* COPRO_REG_INT_TEST */
#define COPRO_INT_DEV_VSYNC         (1ull << 33)    /* display vsync */
#define COPRO_INT_DEV_ALL           (0xffffffffull << 32)

/* MSI-X vectors: one per engine, then one for device events */
#define COPRO_MSIX_VEC_ENGINE(e)    (e)
#define COPRO_MSIX_VEC_DEVICE(n_engines) (n_engines)

/*
 * Per-engine register blocks: engine e at COPRO_ENG_BASE(e)
 */
#define COPRO_ENG_BLOCK             0x1000
#define COPRO_ENG_STRIDE            0x0100
#define COPRO_ENG_BASE(e)           (COPRO_ENG_BLOCK + (e) * COPRO_ENG_STRIDE)

#define COPRO_ENG_RING_BASE         0x00    /* 64: GPU address, 64-aligned */
#define COPRO_ENG_RING_SIZE         0x08    /* 32: entries, power of 2, 0=off */
#define COPRO_ENG_RING_HEAD         0x0c    /* 32: RO, next entry to fetch */
#define COPRO_ENG_RING_TAIL         0x10    /* 32: doorbell, next free entry */
#define COPRO_ENG_STATE             0x14    /* 32: RO, COPRO_ENG_STATE_* */
#define COPRO_ENG_FENCE_WB          0x18    /* 64: write-back addr | enable */
#define COPRO_ENG_COMPLETED_FENCE   0x20    /* 64: RO, last completed fence */
#define COPRO_ENG_CURRENT_FENCE     0x28    /* 64: RO, fence in execution */
#define COPRO_ENG_CURRENT_CONTEXT   0x30    /* 32: RO, context in execution */
#define COPRO_ENG_CONTROL           0x34    /* 32: WO, COPRO_ENG_CTL_* */
#define COPRO_ENG_FAULT_KIND        0x38    /* 32: RO, COPRO_FAULT_* */
#define COPRO_ENG_FAULT_OFFSET      0x3c    /* 32: RO, packet offset, bytes */
#define COPRO_ENG_FAULT_ADDR        0x40    /* 64: RO, faulting address */
#define COPRO_ENG_FAULT_FENCE       0x48    /* 64: RO, fence of submission */
#define COPRO_ENG_ABORTED_FENCE     0x50    /* 64: RO, set by engine reset */
#define COPRO_ENG_USER_DATA         0x58    /* 32: RO, last INTERRUPT payload */
#define COPRO_ENG_FAULT_CONTEXT     0x5c    /* 32: RO, context of the fault */
#define COPRO_ENG_FAULT_INFO        0x60    /* 32: RO, COPRO_FAULT_INFO_* */
/* statistics, 64-bit, read-only, cleared by device reset only */
#define COPRO_ENG_STAT_BUSY_NS      0x80    /* virtual ns spent executing */
#define COPRO_ENG_STAT_SUBMISSIONS  0x88    /* submissions completed */
#define COPRO_ENG_STAT_PACKETS      0x90    /* packets retired */
#define COPRO_ENG_STAT_BYTES        0x98    /* bytes moved by COPY/FILL/RECT */
#define COPRO_ENG_STAT_FAULTS       0xa0    /* faults and errors latched */

/* COPRO_ENG_FENCE_WB: bit 0 enables write-back; address is 8-aligned */
#define COPRO_FENCE_WB_ENABLE       1ull

/* COPRO_ENG_CONTROL */
#define COPRO_ENG_CTL_RESET         (1u << 0)   /* abort, clear fault, idle */

/* COPRO_ENG_STATE */
#define COPRO_ENG_STATE_IDLE        0   /* ring empty */
#define COPRO_ENG_STATE_BUSY        1   /* executing packets */
#define COPRO_ENG_STATE_WAITING     2   /* blocked in a WAIT packet */
#define COPRO_ENG_STATE_HALTED      3   /* fault latched, needs reset */

/*
 * COPRO_ENG_FAULT_KIND. Kinds up to COPRO_FAULT_LAST_ERROR are command
 * errors (ERROR interrupt); the others are memory faults (FAULT interrupt).
 */
#define COPRO_FAULT_NONE            0
#define COPRO_FAULT_ILLEGAL_OPCODE  1   /* unknown packet opcode */
#define COPRO_FAULT_BAD_LENGTH      2   /* packet length wrong for opcode */
#define COPRO_FAULT_BUFFER_OVERRUN  3   /* packet runs past buffer end */
#define COPRO_FAULT_BAD_DESCRIPTOR  4   /* ring entry or ring setup invalid */
#define COPRO_FAULT_BAD_PACKET      5   /* packet fields invalid */
#define COPRO_FAULT_LAST_ERROR      5
#define COPRO_FAULT_TRANSLATION     6   /* GPU address does not translate */
#define COPRO_FAULT_DMA             7   /* bus error on a DMA access */

/* COPRO_ENG_FAULT_INFO */
#define COPRO_FAULT_INFO_WRITE      (1u << 0)   /* access was a write */

#endif /* COPRO_REGS_H */
