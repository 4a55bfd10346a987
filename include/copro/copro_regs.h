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
#define COPRO_BAR_DOORBELL          1       /* queue doorbells, a page each
                                               (COPRO_CAP_HWSCHED only;
                                               copro_hwsched.h) */
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
#define COPRO_REG_CTX_SWITCH_NS     0x0040  /* 64: modelled time to save
                                               (or restore) one context's
                                               state at a preemption, ns */

/* COPRO_REG_CAPS bits: features a driver may rely on */
#define COPRO_CAP_CMD_PROCESSOR     (1u << 0)   /* rings, packets, fences */
#define COPRO_CAP_GART              (1u << 1)   /* aperture through a GART */
#define COPRO_CAP_GPUVA             (1u << 2)   /* per-context page tables */
#define COPRO_CAP_PREEMPTION        (1u << 3)   /* preemption requests */
#define COPRO_CAP_FAULT_INJECTION   (1u << 4)   /* x-fault-injection=on */
#define COPRO_CAP_MSIX              (1u << 5)   /* MSI-X capability present */
#define COPRO_CAP_DISPLAY           (1u << 6)   /* display block (0x300) */
#define COPRO_CAP_MARKERS           (1u << 7)   /* timeline markers (0x400) */
#define COPRO_CAP_HWSCHED           (1u << 8)   /* hardware queues, run
                                                   lists, scheduling log
                                                   (0x500, BAR1;
                                                   copro_hwsched.h) */

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
#define COPRO_INT_ENGINE_ALL        0x3fu   /* the six above; not
                                               COPRO_INT_TILER_OOM (bit 6,
                                               copro_tiler.h) */
#define COPRO_INT_ENG(e, cause)     ((uint64_t)(cause) << \
                                     COPRO_INT_ENGINE_SHIFT(e))
/* device events */
#define COPRO_INT_DEV_TEST          (1ull << 32)    /* COPRO_REG_INT_TEST */
#define COPRO_INT_DEV_VSYNC         (1ull << 33)    /* display vsync */
#define COPRO_INT_DEV_FLIP_DONE     (1ull << 34)    /* a flip took effect */
#define COPRO_INT_DEV_DISPLAY_ERROR (1ull << 35)    /* surface refused */
/* bits 36..39: hardware scheduling, see copro_hwsched.h */
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
#define COPRO_ENG_INJECT            0x64    /* 32: RW, COPRO_INJECT_* */
#define COPRO_ENG_PREEMPT_REQ       0x68    /* 64: WO, preemption fence id */
#define COPRO_ENG_PREEMPT_FENCE     0x70    /* 64: RO, last request done */
#define COPRO_ENG_PREEMPTED_FENCE   0x78    /* 64: RO, interrupted fence */
/* statistics, 64-bit, read-only, cleared by device reset only */
#define COPRO_ENG_STAT_BUSY_NS      0x80    /* virtual ns spent executing */
#define COPRO_ENG_STAT_SUBMISSIONS  0x88    /* submissions completed */
#define COPRO_ENG_STAT_PACKETS      0x90    /* packets retired */
#define COPRO_ENG_STAT_BYTES        0x98    /* bytes moved by COPY/FILL/RECT */
#define COPRO_ENG_STAT_FAULTS       0xa0    /* faults and errors latched */
#define COPRO_ENG_STAT_PREEMPTIONS  0xa8    /* preemption requests done */
#define COPRO_ENG_STAT_PREEMPT_MIN  0xb0    /* request-to-saved, min ns */
#define COPRO_ENG_STAT_PREEMPT_MAX  0xb8    /* request-to-saved, max ns */
#define COPRO_ENG_STAT_PREEMPT_SUM  0xc0    /* sum, for the mean */
#define COPRO_ENG_STAT_TLB_HITS     0xc8    /* translation-cache hits */
#define COPRO_ENG_STAT_TLB_MISSES   0xd0    /* translation-cache misses */

/*
 * COPRO_ENG_PREEMPT_REQ: writing a fence id requests preemption. The
 * request is made by an 8-byte write or by a 4-byte write to the upper
 * half (write the lower half first). See docs/specs/copro.rst.
 */

/* COPRO_ENG_INJECT (only with x-fault-injection=on; reads 0 otherwise) */
#define COPRO_INJECT_HANG           (1u << 0)   /* stop progressing; defer
                                                   preemption until reset */
#define COPRO_INJECT_FAULT_NEXT     (1u << 1)   /* fault at the next packet */
#define COPRO_INJECT_DROP_IRQ       (1u << 2)   /* drop the next DMA_DONE */
#define COPRO_INJECT_ALL            0x7u

/* COPRO_ENG_FENCE_WB: bit 0 enables write-back; address is 8-aligned */
#define COPRO_FENCE_WB_ENABLE       1ull

/* COPRO_ENG_CONTROL */
#define COPRO_ENG_CTL_RESET         (1u << 0)   /* abort, clear fault, idle */
#define COPRO_ENG_CTL_RETRY         (1u << 4)   /* memory fault: clear it and
                                                   restart the faulted step */
/* bit 5: COPRO_ENG_CTL_TILER_ACK (copro_tiler.h) */

/* COPRO_ENG_STATE */
#define COPRO_ENG_STATE_IDLE        0   /* ring empty */
#define COPRO_ENG_STATE_BUSY        1   /* executing packets */
#define COPRO_ENG_STATE_WAITING     2   /* blocked in a WAIT packet */
#define COPRO_ENG_STATE_HALTED      3   /* fault latched, needs reset */
/* 4: COPRO_ENG_STATE_HELD, stopped by TILER_OOM (copro_tiler.h) */

/*
 * COPRO_ENG_FAULT_KIND. Kinds up to COPRO_FAULT_LAST_ERROR are command
 * errors (ERROR interrupt); the others are memory faults (FAULT interrupt).
 */
#define COPRO_FAULT_NONE            0
#define COPRO_FAULT_ILLEGAL_OPCODE  1   /* unknown packet opcode */
#define COPRO_FAULT_BAD_LENGTH      2   /* packet length wrong for opcode */
#define COPRO_FAULT_BUFFER_OVERRUN  3   /* packet runs past buffer end */
#define COPRO_FAULT_BAD_DESCRIPTOR  4   /* ring entry breaks a rule */
#define COPRO_FAULT_BAD_PACKET      5   /* packet fields invalid */
#define COPRO_FAULT_LAST_ERROR      5
#define COPRO_FAULT_TRANSLATION     6   /* GPU address does not translate */
#define COPRO_FAULT_DMA             7   /* bus error on a DMA access */
#define COPRO_FAULT_INJECTED        8   /* COPRO_INJECT_FAULT_NEXT */
#define COPRO_FAULT_BAD_SAVE        9   /* RESUME with an invalid record */
/* command errors raise ERROR; memory faults (and injected ones) FAULT */
#define COPRO_FAULT_IS_ERROR(kind)  ((kind) <= COPRO_FAULT_LAST_ERROR || \
                                     (kind) == COPRO_FAULT_BAD_SAVE)
#define COPRO_FAULT_GART            10  /* aperture page: GART entry beyond
                                           the table, invalid or read-only */
#define COPRO_FAULT_PAGE            11  /* context VA: page-table entry
                                           invalid or read-only, VA too big */
#define COPRO_FAULT_TABLE           12  /* GART, context table or page table
                                           lies outside VRAM */
/* memory faults that CONTROL.RETRY restarts once the mapping is fixed */
#define COPRO_FAULT_IS_RETRYABLE(kind) \
    ((kind) == COPRO_FAULT_TRANSLATION || (kind) == COPRO_FAULT_DMA || \
     (kind) == COPRO_FAULT_GART || (kind) == COPRO_FAULT_PAGE || \
     (kind) == COPRO_FAULT_TABLE)

/* COPRO_ENG_FAULT_INFO */
#define COPRO_FAULT_INFO_WRITE      (1u << 0)   /* access was a write */
#define COPRO_FAULT_INFO_PROTECTION (1u << 1)   /* 1: write to a read-only
                                                   page, 0: not present */
#define COPRO_FAULT_INFO_VIRTUAL    (1u << 2)   /* address is a context VA */
#define COPRO_FAULT_INFO_LEVEL_SHIFT 4          /* bits 4..7: table level */
#define COPRO_FAULT_INFO_LEVEL(info) (((info) >> 4) & 0xfu)

/*
 * GART and MMU (docs/specs/copro.rst, "GPU memory"). The GART, the context
 * table and all page tables live in VRAM; their addresses are VRAM offsets.
 */
#define COPRO_REG_GART_BASE         0x0200  /* 64: RW, table, 4 KiB-aligned */
#define COPRO_REG_GART_ENTRIES      0x0208  /* 32: RW, entries, 0 = off */
#define COPRO_REG_GART_INVAL_FIRST  0x020c  /* 32: RW, first entry */
#define COPRO_REG_GART_INVAL        0x0210  /* 32: WO, count (0 = all) */
#define COPRO_REG_CTX_TABLE_BASE    0x0218  /* 64: RW, 8-aligned */
#define COPRO_REG_CTX_TABLE_SIZE    0x0220  /* 32: RW, entries, 0 = off */
#define COPRO_REG_VM_INVAL          0x0224  /* 32: WO, context id */

#define COPRO_APERTURE_DEFAULT      (256u << 20)
#define COPRO_APERTURE_MAX          (1ull << 39)
#define COPRO_CTX_TABLE_MAX         65536u
#define COPRO_VM_INVAL_ALL          0xffffffffu /* every context and GART */

/* GART entry (64-bit): one 4 KiB aperture page */
#define COPRO_GART_VALID            (1ull << 0)
#define COPRO_GART_WRITABLE         (1ull << 1)
#define COPRO_GART_ADDR_MASK        0x000ffffffffff000ull   /* guest phys */

/* Context table entry (64-bit) */
#define COPRO_CTX_VALID             (1ull << 0) /* has a page table */
#define COPRO_CTX_ROOT_MASK         0x000ffffffffff000ull   /* VRAM offset */

/*
 * Page tables: 3 levels of 512 64-bit entries (4 KiB tables), 39-bit VA.
 * Level 2 (root) indexes VA[38:30], level 1 VA[29:21], level 0 (leaf)
 * VA[20:12]. A level-1 entry with COPRO_PTE_64K points to a leaf table of
 * 32 entries, each mapping a 64 KiB page (VA[20:16]).
 */
#define COPRO_VA_BITS               39
#define COPRO_PT_LEVELS             3
#define COPRO_PT_ENTRIES            512
#define COPRO_PTE_VALID             (1ull << 0)
#define COPRO_PTE_WRITABLE          (1ull << 1) /* leaf */
#define COPRO_PTE_APERTURE          (1ull << 2) /* leaf: aperture offset */
#define COPRO_PTE_64K               (1ull << 3) /* level 1: 64 KiB leaves */
#define COPRO_PTE_ADDR_MASK         0x000ffffffffff000ull

/*
 * Timeline markers (docs/specs/copro.rst, "Timeline"). The device can keep
 * a host-side log of what its engines and display do, for people looking
 * at a run (never guest-visible memory). Through these registers the guest
 * OS records its own events (its scheduler's decisions, presents, missed
 * deadlines) into the same log, stamped by the device with its clock: write
 * the arguments, then MARK. Nothing guest-visible happens; with the log off
 * a marker is not recorded, so an OS that always writes its markers runs
 * the same whether the log is on or off.
 */
#define COPRO_REG_MARK_ARG0         0x0400  /* 64: RW, first argument */
#define COPRO_REG_MARK_ARG1         0x0408  /* 64: RW, second argument */
#define COPRO_REG_MARK              0x0410  /* 64: WO, COPRO_MARK(): record
                                               (8-byte write or upper half) */

/* MARK value: kind in bits 0..15, engine in 16..23, context in 32..63 */
#define COPRO_MARK(kind, engine, context) \
    ((uint64_t)(kind) | (((uint64_t)(engine) & 0xffu) << 16) | \
     ((uint64_t)(uint32_t)(context) << 32))
#define COPRO_MARK_KIND(v)          ((uint32_t)(v) & 0xffffu)
#define COPRO_MARK_ENGINE(v)        (((uint32_t)(v) >> 16) & 0xffu)
#define COPRO_MARK_CONTEXT(v)       ((uint32_t)((v) >> 32))
#define COPRO_MARK_RESERVED         0xff000000ull  /* bits 24..31: zero */
#define COPRO_MARK_NO_ENGINE        0xff    /* the event is not an engine's */

/* marker kinds: what ARG0 and ARG1 hold ("buffer" is the OS's buffer id) */
#define COPRO_MARK_QUEUE            1   /* queued on its context: buffer,
                                           bytes */
#define COPRO_MARK_ELECT            2   /* chosen to run next: buffer,
                                           priority (the OS's level) */
#define COPRO_MARK_PREPARE_START    3   /* preparation begins: buffer */
#define COPRO_MARK_PREPARE_END      4   /* ... is done: buffer */
#define COPRO_MARK_UNSTAGE          5   /* prepared buffer handed back:
                                           buffer */
#define COPRO_MARK_RING             6   /* written to the ring: buffer,
                                           fence (links it to the
                                           engine's events) */
#define COPRO_MARK_DONE             7   /* the buffer left the OS: buffer,
                                           status (0 retired, negative:
                                           the OS's error, e.g. lost) */
#define COPRO_MARK_PREEMPT          8   /* preemption decided: reason
                                           (COPRO_MARK_REASON_*), the
                                           preemption fence */
#define COPRO_MARK_PAGING           9   /* paging buffer built: buffer,
                                           bytes it moves */
#define COPRO_MARK_PRESENT          10  /* frame shown: frame, surface */
#define COPRO_MARK_DEADLINE_MISS    11  /* frame, ns late (0: dropped,
                                           never rendered) */
#define COPRO_MARK_TDR              12  /* recovery step (COPRO_MARK_TDR_*),
                                           fence */
#define COPRO_MARK_BOOST            13  /* starvation boost: priority */
#define COPRO_MARK_UNBOOST          14  /* back to its own priority */
#define COPRO_MARK_HOLD             15  /* context held on a GPU wait */
#define COPRO_MARK_RELEASE          16  /* its wait is satisfied */
#define COPRO_MARK_LAST             16

/* COPRO_MARK_PREEMPT reasons */
#define COPRO_MARK_REASON_PRIORITY  0   /* more urgent work is ready */
#define COPRO_MARK_REASON_QUANTUM   1   /* the running context's turn ended */
#define COPRO_MARK_REASON_TDR       2   /* the watchdog: no progress */
#define COPRO_MARK_REASON_OTHER     3

/* COPRO_MARK_TDR steps */
#define COPRO_MARK_TDR_TIMEOUT      1   /* no progress: preempting */
#define COPRO_MARK_TDR_RESET        2   /* engine reset (fence: aborted) */
#define COPRO_MARK_TDR_LOST         3   /* context put in error */
#define COPRO_MARK_TDR_DEVICE_RESET 4   /* every engine reset */

/*
 * Display (docs/specs/copro.rst, "Display"): one scanout with flip on
 * vsync (WDDM's FlipOnVSyncMmIo) and a cursor plane.
 *
 * The mode registers (SURFACE, PITCH, WIDTH, HEIGHT, FORMAT) are staged:
 * a write of CONTROL with ENABLE commits them at once. FLIP queues a new
 * surface address (same geometry) that takes effect at the next vsync;
 * a second FLIP before that vsync replaces the first (the last wins).
 * Every surface the display is about to show (commit, flip) is checked;
 * a bad one is refused with DISPLAY_ERROR and the screen goes black.
 */
#define COPRO_REG_DISP_CONTROL      0x0300  /* 32: RW, COPRO_DISP_CTL_* */
#define COPRO_REG_DISP_STATUS       0x0304  /* 32: RO, COPRO_DISP_STS_* */
#define COPRO_REG_DISP_SURFACE      0x0308  /* 64: RW, staged GPU address */
#define COPRO_REG_DISP_PITCH        0x0310  /* 32: RW, staged bytes per row */
#define COPRO_REG_DISP_WIDTH        0x0314  /* 32: RW, staged pixels */
#define COPRO_REG_DISP_HEIGHT       0x0318  /* 32: RW, staged rows */
#define COPRO_REG_DISP_FORMAT       0x031c  /* 32: RW, staged COPRO_FMT_* */
#define COPRO_REG_DISP_FLIP         0x0320  /* 64: write: queue a flip;
                                               read: address | PENDING */
#define COPRO_REG_DISP_SCANOUT      0x0328  /* 64: RO, address shown */
#define COPRO_REG_DISP_VSYNC_COUNT  0x0330  /* 64: RO, vsyncs since reset */
#define COPRO_REG_DISP_VSYNC_TIME   0x0338  /* 64: RO, GPU time of the last */
#define COPRO_REG_DISP_FLIP_ADDR    0x0340  /* 64: RO, last flip done */
#define COPRO_REG_DISP_FLIP_VSYNC   0x0348  /* 64: RO, its VSYNC_COUNT */
#define COPRO_REG_DISP_FLIPS        0x0350  /* 64: RO, flips done */
#define COPRO_REG_DISP_FLIPS_REPLACED 0x0358 /* 64: RO, flips replaced by a
                                               later FLIP before a vsync */
#define COPRO_REG_DISP_PERIOD_NS    0x0360  /* 64: RO, 1e9 / refresh */
#define COPRO_REG_DISP_REFRESH      0x0368  /* 32: RO, Hz ("refresh") */
#define COPRO_REG_DISP_ERROR        0x036c  /* 32: RO, COPRO_DISP_ERR_* */
#define COPRO_REG_DISP_ERROR_ADDR   0x0370  /* 64: RO, refused address */
#define COPRO_REG_CURSOR_CONTROL    0x0380  /* 32: RW, COPRO_CURSOR_CTL_* */
#define COPRO_REG_CURSOR_POS        0x0384  /* 32: RW, COPRO_CURSOR_POS() */
#define COPRO_REG_CURSOR_SURFACE    0x0388  /* 64: RW, VRAM offset of the
                                               cursor image */
#define COPRO_REG_DISP_CRC_CONTROL  0x0390  /* 32: RW, COPRO_DISP_CRC_CTL_* */
#define COPRO_REG_DISP_CRC          0x0398  /* 64: RO, bits 0-31: CRC-32 of
                                               the frame shown at
                                               DISP_CRC_VSYNC */
#define COPRO_REG_DISP_CRC_VSYNC    0x03a0  /* 64: RO, VSYNC_COUNT of that
                                               frame; 0: none yet */
/*
 * Planes inside the mode (docs/specs/copro.rst, "Mode size, plane position
 * and background"): the CRTC's active size, where the primary plane sits
 * in it, and the colour shown where no plane covers a pixel. Staged, like
 * the mode registers; CONTROL.PRIMARY_OFF turns the primary plane off.
 */
#define COPRO_REG_DISP_MODE_SIZE    0x03a8  /* 32: RW, staged COPRO_DISP_SIZE();
                                               0: the primary's size */
#define COPRO_REG_DISP_PLANE_POS    0x03ac  /* 32: RW, staged COPRO_DISP_POS()
                                               of the primary's top-left */
#define COPRO_REG_DISP_BACKGROUND   0x03b0  /* 32: RW, staged XRGB8888 */
#define COPRO_REG_DISP_FLIP_ASYNC   0x03b8  /* 64: write: flip at once
                                               (tearing); reads 0 */

/* COPRO_REG_DISP_CONTROL */
#define COPRO_DISP_CTL_ENABLE       (1u << 0)   /* scan out; a write with
                                                   it set commits the mode */
#define COPRO_DISP_CTL_PRIMARY_OFF  (1u << 1)   /* with ENABLE: no primary
                                                   plane, the background */
#define COPRO_DISP_CTL_MASK         (COPRO_DISP_CTL_ENABLE | \
                                     COPRO_DISP_CTL_PRIMARY_OFF)

/* COPRO_REG_DISP_MODE_SIZE: width in bits 0-15, height in bits 16-31 */
#define COPRO_DISP_SIZE(w, h)       (((uint32_t)(w) & 0xffffu) | \
                                     ((uint32_t)(h) & 0xffffu) << 16)
#define COPRO_DISP_SIZE_W(v)        ((v) & 0xffffu)
#define COPRO_DISP_SIZE_H(v)        ((v) >> 16)
/* COPRO_REG_DISP_PLANE_POS: signed 16-bit x and y, as CURSOR_POS */
#define COPRO_DISP_POS(x, y)        COPRO_CURSOR_POS(x, y)
#define COPRO_DISP_POS_X(v)         COPRO_CURSOR_POS_X(v)
#define COPRO_DISP_POS_Y(v)         COPRO_CURSOR_POS_Y(v)

/*
 * COPRO_REG_DISP_CRC_CONTROL: with ENABLE, every vsync latches the CRC-32
 * (zlib's) of the frame the display shows from then on, the cursor blended
 * in, as R, G, B bytes row by row (QEMU's screendump) into DISP_CRC.
 */
#define COPRO_DISP_CRC_CTL_ENABLE   (1u << 0)

/* COPRO_REG_DISP_STATUS */
#define COPRO_DISP_STS_ACTIVE       (1u << 0)   /* showing SCANOUT */
#define COPRO_DISP_STS_FLIP_PENDING (1u << 1)   /* a flip waits for vsync */
#define COPRO_DISP_STS_ERROR        (1u << 2)   /* black: surface refused */

/* COPRO_REG_DISP_FLIP reads: the pending address with bit 0 set */
#define COPRO_DISP_FLIP_PENDING     1ull

/* COPRO_REG_DISP_ERROR: why the last surface was refused */
#define COPRO_DISP_ERR_NONE         0
#define COPRO_DISP_ERR_FORMAT       1   /* not R8, RGB565 or XRGB8888 */
#define COPRO_DISP_ERR_SIZE         2   /* width or height 0 or too big */
#define COPRO_DISP_ERR_PITCH        3   /* < width * bpp, not 4-aligned,
                                           or above COPRO_DISP_MAX_PITCH */
#define COPRO_DISP_ERR_ADDRESS      4   /* not 4-aligned, or not wholly in
                                           VRAM or wholly in the aperture */
#define COPRO_DISP_ERR_CURSOR       5   /* cursor image outside VRAM or
                                           not 4-aligned */

/* surface limits */
#define COPRO_DISP_MAX_DIM          4096
#define COPRO_DISP_MAX_PITCH        65536

/* refresh property, Hz */
#define COPRO_DISP_REFRESH_DEFAULT  60
#define COPRO_DISP_REFRESH_MAX      1000

/* Cursor plane: a 64 x 64 ARGB8888 image (not premultiplied), in VRAM */
#define COPRO_CURSOR_CTL_ENABLE     (1u << 0)
#define COPRO_CURSOR_SIZE           64
#define COPRO_CURSOR_PITCH          (COPRO_CURSOR_SIZE * 4)
#define COPRO_CURSOR_BYTES          (COPRO_CURSOR_PITCH * COPRO_CURSOR_SIZE)
/* position of the image's top-left pixel: signed 16-bit x and y */
#define COPRO_CURSOR_POS(x, y)      (((uint32_t)(uint16_t)(int16_t)(x)) | \
                                     ((uint32_t)(uint16_t)(int16_t)(y) << 16))
#define COPRO_CURSOR_POS_X(pos)     ((int16_t)((pos) & 0xffffu))
#define COPRO_CURSOR_POS_Y(pos)     ((int16_t)((pos) >> 16))

#endif /* COPRO_REGS_H */
