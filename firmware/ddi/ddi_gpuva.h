/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU-VA mode (WDDM 2.x) at the DDI: the page-table updates vidmm asks the
 * driver to put in a paging buffer when an allocation that has a GPU
 * virtual address moves [DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE,
 * D3DDDI_UPDATEGPUVIRTUALADDRESS_OPERATION].
 *
 * An update is device-neutral: "in address space as, the pages va ..
 * va + pages * 4 KiB now map onto this physical range (or nothing)". The
 * driver turns it into leaf-entry writes; copro does that with staged
 * entries and COPY_PTE packets on the copy engine
 * (kmd/copro_pte_update.h), whose flush also gives the invalidation the
 * device requires, so the buffers after the paging fence see the new
 * entries. A driver that writes entries on the CPU instead must
 * invalidate the address space's translations itself (copro: VM_INVAL).
 *
 * Kept apart from ddi.h so the packet-based paging operations there and
 * these evolve independently; this header includes nothing of the device.
 */
#ifndef FW_DDI_DDI_GPUVA_H
#define FW_DDI_DDI_GPUVA_H

#include <stdbool.h>
#include <stdint.h>

#define DDI_GPUVA_PAGE      4096ull     /* the page size of every update */

/* What the pages map onto after the update. */
enum ddi_pte_target {
    DDI_PTE_INVALID,        /* not present: an access faults (evicted
                               allocations in WDDM 2.0 are unmapped) */
    DDI_PTE_VRAM,           /* the local-memory segment */
    DDI_PTE_APERTURE,       /* system memory through the aperture */
};

/* One run of consecutive pages [UpdatePageTable: one PTE range]. */
struct ddi_pte_update {
    uint32_t as;            /* address space (vidmm's id for the process's
                               space; the driver knows its page tables) */
    uint32_t target;        /* enum ddi_pte_target */
    uint64_t va;            /* first page, DDI_GPUVA_PAGE-aligned */
    uint64_t pages;         /* >= 1 */
    uint64_t addr;          /* GPU address of the first page's new frame
                               (a VRAM offset, or an address in the
                               aperture); page i maps addr + i * 4 KiB;
                               0 for DDI_PTE_INVALID */
    bool writable;          /* ignored for DDI_PTE_INVALID */
};

/*
 * [D3DDDI_UPDATEGPUVIRTUALADDRESS_COPY] pages [dst_va, dst_va + pages *
 * 4 KiB) take the entries that pages [src_va, ...) hold when the GPU
 * reaches the operation (so after the operations before it in the same
 * update). The two ranges do not overlap.
 */
struct ddi_pte_copy {
    uint32_t as;
    uint64_t dst_va;        /* DDI_GPUVA_PAGE-aligned */
    uint64_t src_va;        /* DDI_GPUVA_PAGE-aligned */
    uint64_t pages;         /* >= 1 */
};

/* One operation of an update, applied in order. */
enum ddi_gpuva_op_kind {
    DDI_GPUVA_OP_SET,       /* [MAP / UNMAP] set: entries from a frame */
    DDI_GPUVA_OP_COPY,      /* [COPY] copy: entries from other pages */
};

struct ddi_gpuva_op {
    uint32_t kind;          /* enum ddi_gpuva_op_kind */
    union {
        struct ddi_pte_update set;
        struct ddi_pte_copy copy;
    };
};

/*
 * A GPU VA update that runs on the paging (companion) context, ordered by
 * monitored fences [D3DKMTUpdateGpuVirtualAddress: hFenceObject and
 * FenceValue; the paging fence the caller's later work waits for]:
 *
 *   wait until *wait_addr >= wait_value (no wait when wait_addr is 0);
 *   apply ops[0 .. nops) in order;
 *   write signal_value to signal_addr.
 *
 * Fence addresses are 8-aligned GPU addresses as the paging context sees
 * them (it has no address space of its own: VRAM offsets on copro). The
 * driver turns the update into one DMA buffer for the copy engine (copro:
 * kmd/copro_pte_update.h, copro_gpuva_update_emit).
 */
struct ddi_gpuva_update {
    uint64_t wait_addr, wait_value;
    const struct ddi_gpuva_op *ops;
    unsigned nops;
    uint64_t signal_addr, signal_value;
};

/*
 * The driver's GPU-VA operations (struct ddi_ops.gpuva; NULL: the GPU
 * has no per-context page tables) [DxgkDdiCreateProcess's page-table
 * root, DxgkDdiSetRootPageTable, DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE].
 *
 * space_create: a new, empty address space (*as its id). The OS's
 * VRAM [os_base, os_base + os_bytes) the device reads for this space's
 * contexts (their DMA buffers: what the scheduler hands the engine by
 * physical address) is mapped at identity in it, read-only, because a
 * context fetches its DMA buffer in its own space; the OS keeps its VA
 * window above it and gives only the part that belongs to the process
 * (never other processes' buffers). Except [hole_base, hole_base +
 * hole_bytes) (0 bytes: none), which stays unmapped.
 * space_bind: context (a hardware id) runs in space as from now on; its
 * save area [save, save + save_bytes) (whole pages of the OS's VRAM that
 * hold nothing else) is mapped writable at identity in the space, since
 * the engine writes a preempted context's state there through the
 * context's space.
 * space_unbind: the context is gone (nothing of it runs): its entry is
 * invalid again and its save pages unmapped, before the OS reuses
 * them.
 * space_reserve: leaf tables for [va, va + bytes), entries invalid (so a
 * later pte_update has its tables; moves never allocate tables).
 * pte_update: appends to out the packets that set the leaf entries of
 * u[0 .. n) when the GPU reaches them (after what out holds already),
 * with the invalidation the device requires. All or nothing: DDI_EINVAL
 * (bad update), DDI_ENOMEM (out or the driver's staging area too small).
 */
struct ddi_dmabuf;
struct ddi_gpuva_ops {
    int (*space_create)(void *drv, uint64_t os_base, uint64_t os_bytes,
                        uint64_t hole_base, uint64_t hole_bytes,
                        uint32_t *as);
    int (*space_bind)(void *drv, uint32_t as, uint32_t context,
                      uint64_t save, uint64_t save_bytes);
    void (*space_unbind)(void *drv, uint32_t as, uint32_t context,
                         uint64_t save, uint64_t save_bytes);
    int (*space_reserve)(void *drv, uint32_t as, uint64_t va,
                         uint64_t bytes);
    int (*pte_update)(void *drv, const struct ddi_pte_update *u, unsigned n,
                      struct ddi_dmabuf *out);
};

#endif /* FW_DDI_DDI_GPUVA_H */
