/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, packet-based mode (WDDM 1.x's VidMm; US 7,444,637): allocations
 * move between local VRAM, the aperture and system memory, and a DMA
 * buffer's allocation list is made resident when the scheduler prepares
 * it (schedule time), not when it is submitted.
 *
 * Segments [DXGK_SEGMENTDESCRIPTOR]:
 *   VRAM      the range of local memory the kernel gives vidmm
 *   APERTURE  caps.aperture_base/size: GPU addresses that reach system
 *             pages through the GART (MAP_APERTURE), CPU-visible
 *   system memory, the backing store: 4 KiB pages the environment gives
 *             (vidmm_env.alloc_sys_pages); the GPU reaches them only
 *             through the aperture
 *
 * Every allocation owns backing pages from creation on (a simplification
 * of WDDM's lazily committed backing store), so an eviction never fails
 * for want of system memory.
 *
 * Where an allocation is (enum vidmm_where): in VRAM; in the aperture (its
 *    backing pages mapped at an aperture range, the GPU uses it there:
 *    allocations that may live there, when VRAM is full or they prefer
 *    it); in system memory only (evicted: unmapped). Moves are paging
 *    operations (ddi/ddi.h, enum ddi_paging_kind) that vidmm turns into a
 *    paging buffer with ops->build_paging_buffer and hands to the caller
 *    (vidsch puts it on the copy engine ahead of the DMA buffer):
 *      evict     MAP t (its pages), TRANSFER vram -> t, UNMAP t
 *      restore   MAP t, TRANSFER t -> vram, UNMAP t (from the aperture:
 *                TRANSFER, UNMAP of its range)
 *    where t is a temporary aperture range.
 *
 * Rules kept:
 *  - an allocation used by a prepared or running DMA buffer (busy), or
 *    pinned, or moved by a paging buffer that has not retired yet
 *    (in flight), is never moved nor unmapped;
 *  - the DDI's paging contract: a MAP takes effect when the buffer is
 *    built, an UNMAP when the GPU reaches it (buffer order), so every
 *    range a buffer maps is fresh, and a range it unmaps stays taken
 *    until that buffer retired (vidmm_paging_done); a destroyed
 *    allocation's mapping is unmapped by the next paging buffer;
 *  - "patched once": a DMA buffer patched already (preempted, handed back)
 *    gets its allocations back at the addresses it was patched with;
 *    whatever occupies those ranges now is evicted;
 *  - failure (DDI_ENOMEM: the list cannot fit even after eviction) changes
 *    nothing: vidmm plans on scratch copies of its segments first.
 *
 * Eviction choice: least recently used first, among the VRAM allocations
 * that are not busy, pinned, in flight or in the list being made resident.
 * Allocations living in the aperture stay there until used from VRAM or
 * destroyed (an unmap could only make room for a later buffer). When best
 * fit leaves no hole for a member (the list's own members, already in
 * VRAM, may split the free space), the list is planned once more with its
 * members that are not in use moved out and packed from the bottom of
 * VRAM over evictable allocations: a list whose bytes fit is placed.
 * With cfg.evict_own_only (the patent's restriction, off by default) only
 * the allocations of the process whose buffer is being made resident, and
 * those marked with vidmm_offer (any process's, WDDM's OfferAllocations),
 * are candidates; the patched-once rule ignores the restriction (the
 * buffer could never run otherwise).
 *
 * No heap: every table lives in vidmm_storage_size() bytes of the caller.
 * Pure C, no hardware: unit-tested on the host (tests/unit/test-vidmm.c)
 * and run over the simulated GPU (tests/sim).
 */
#ifndef FW_VIDMM_VIDMM_H
#define FW_VIDMM_VIDMM_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "vidmm/vidmm_segment.h"

#define VIDMM_PAGE_SIZE     4096u

/* Preferred segments of an allocation (a mask). */
#define VIDMM_SEG_VRAM      (1u << 0)
#define VIDMM_SEG_APERTURE  (1u << 1)

enum vidmm_where {
    VIDMM_IN_SYSMEM,        /* backing pages only (evicted) */
    VIDMM_IN_VRAM,
    VIDMM_IN_APERTURE,      /* backing pages mapped at gpu_addr */
};

/* What vidmm needs from the OS around it. */
struct vidmm_env {
    void *os;
    /* n system pages (guest-physical addresses of 4 KiB pages) into
     * pages; DDI_OK or DDI_ENOMEM (nothing kept then). */
    int (*alloc_sys_pages)(void *os, uint64_t *pages, unsigned n);
    void (*free_sys_pages)(void *os, const uint64_t *pages, unsigned n);
};

struct vidmm_config {
    uint64_t vram_base, vram_size;      /* what the kernel gives vidmm */
    uint64_t aperture_base, aperture_size;  /* caps; 0 size: none */
    unsigned max_allocs;                /* allocation table */
    unsigned max_blocks;                /* per segment block table */
    unsigned max_pages;                 /* backing pages of all allocations */
    unsigned copy_engine;               /* engine that runs paging buffers */
    bool evict_own_only;                /* the patent's restriction */
};

struct vidmm_alloc_info {
    uint64_t size;
    uint64_t align;                     /* power of two, 0: 4 KiB */
    uint32_t segments;                  /* VIDMM_SEG_*; 0: VRAM */
    uint32_t owner;                     /* process id */
    bool cpu_visible;                   /* lock gives a CPU pointer */
    bool primary;                       /* scanout: VRAM, pinned */
    bool place_on_use;                  /* starts in its backing pages
                                           even if VRAM has room: placed
                                           by the first list that uses
                                           it (a pageable DMA buffer: in
                                           VRAM only from just before it
                                           runs, not while it waits) */
};

struct vidmm_stats {
    uint64_t evictions;                 /* VRAM -> aperture transfers */
    uint64_t restores;                  /* aperture -> VRAM transfers */
    uint64_t unmaps;                    /* aperture -> system memory */
    uint64_t paging_buffers;            /* built */
    uint64_t bytes_moved;
    uint64_t enomem;                    /* lists that did not fit */
    uint64_t paging_steps;              /* paging buffers of a list that
                                           needed more aperture than one
                                           maps (DDI_EBUSY after each) */
};

struct vidmm;   /* opaque; vidmm_create gives one */

uint64_t vidmm_storage_size(const struct vidmm_config *cfg);
/* NULL if storage is too small or not 8-byte aligned, or cfg is bad. dev:
 * the GPU whose build_paging_buffer builds the moves. */
struct vidmm *vidmm_create(void *storage, uint64_t storage_bytes,
                           const struct vidmm_config *cfg,
                           const struct vidmm_env *env,
                           struct ddi_device *dev);

/* Allocations. The handle is never 0; create gives the allocation a
 * place at once (VRAM if it fits without evicting and the range is not
 * being vacated by a paging buffer in flight, else system memory).
 * DDI_EINVAL bad info, DDI_ENOMEM no table entry / backing pages (a
 * primary: no VRAM), DDI_EBUSY a primary whose VRAM is still being
 * vacated (ask again once the paging buffers in flight retired). */
int vidmm_alloc_create(struct vidmm *vm, const struct vidmm_alloc_info *info,
                       uint32_t *handle);
/* DDI_EBUSY while busy or pinned, DDI_EHANDLE unknown. Frees its VRAM,
 * aperture range (unmapped with the next paging buffer) and pages. */
int vidmm_alloc_destroy(struct vidmm *vm, uint32_t handle);

/* Pin (never moved: scanout, the kernel's own) / unpin. Pin makes it
 * resident first if it can without a paging buffer; DDI_EBUSY if not. */
int vidmm_pin(struct vidmm *vm, uint32_t handle);
int vidmm_unpin(struct vidmm *vm, uint32_t handle);
/* [OfferAllocations] any process may evict it (evict_own_only). */
int vidmm_offer(struct vidmm *vm, uint32_t handle, bool offered);

/* Lock [DxgkDdiLock, simplified]: a CPU pointer needs the environment's
 * mapping, so vidmm only pins the allocation and says where it is;
 * unlock unpins. */
int vidmm_lock(struct vidmm *vm, uint32_t handle, enum vidmm_where *where,
               uint64_t *gpu_addr);
int vidmm_unlock(struct vidmm *vm, uint32_t handle);

/* Where it is now, for tests and tools (VIDMM_IN_SYSMEM: its contents
 * are in pages[]). */
struct vidmm_alloc_state {
    uint8_t where;                      /* enum vidmm_where */
    uint64_t gpu_addr;                  /* VRAM or aperture, 0 in sysmem */
    uint64_t size;
    const uint64_t *pages;              /* backing pages */
    unsigned npages;
    unsigned pin, busy;
    uint64_t lru;
};
int vidmm_alloc_state(const struct vidmm *vm, uint32_t handle,
                      struct vidmm_alloc_state *st);

/*
 * Residency at schedule time. Places every allocation of list[0 .. n)
 * (the DMA buffer's allocation list, handles of process) and writes their
 * addresses into desc[i].gpu_addr. patched: the buffer was patched
 * already, desc[i].gpu_addr is where each must be again.
 *
 * If moves are needed they are built into paging (out: its dw,
 * gpu_addr and cap_bytes set by the caller; engine set to copy_engine)
 * and *paging_built is true: the caller submits it on the copy engine.
 * *wait_ticket: the DMA buffer must not start before the paging buffer
 * with this ticket has retired (0: nothing to wait for). The paging
 * buffer just built has ticket *paging_ticket (tell vidmm_paging_done
 * when it retires).
 *
 * On success every allocation of the list is busy until vidmm_release.
 * DDI_EHANDLE unknown handle or not the process's; DDI_ELOST one of them
 * was moved by a paging buffer lost in a reset; DDI_EBUSY it would
 * fit once buffers on the GPU (busy allocations, paging buffers in
 * flight) are done: ask again then; DDI_ENOMEM does not fit even after
 * eviction; DDI_EINVAL bad arguments or the moves do not fit one paging
 * buffer (DDI_MAX_PAGING_OPS); DDI_ENOTSUP moves needed and the GPU
 * cannot page; or the DDI error of build_paging_buffer. Nothing changes
 * on any error, with one exception, residency in steps: each move maps
 * its system pages at an aperture range that stays taken until its paging
 * buffer retired, so a list whose moves need more aperture than that
 * (evictions and restores together) is made resident over several paging
 * buffers. Then DDI_EBUSY comes with *paging_built true: the moves that
 * fit were committed (the list is not resident, nothing is busy); the
 * caller submits that paging buffer like any other and asks again once
 * it retired (each step moves something: no livelock). A list whose
 * single member's moves exceed the aperture is DDI_ENOMEM.
 */
struct vidmm_residency {
    struct ddi_dmabuf *paging;          /* in: room for the moves */
    bool paging_built;                  /* out */
    uint64_t paging_ticket;             /* out */
    uint64_t wait_ticket;               /* out */
    uint64_t paging_bytes;              /* out: bytes its transfers move
                                           (evictions and restores), 0
                                           if none: what the scheduler
                                           weighs eviction fighting by */
};
int vidmm_make_resident(struct vidmm *vm, uint32_t process,
                        const struct ddi_alloc_ref *list, unsigned n,
                        struct ddi_alloc_desc *desc, bool patched,
                        struct vidmm_residency *res);

/* The buffer that list belongs to retired on engine with fence, or was
 * handed back unrun (fence 0): its allocations are not busy for it any
 * more, their last use is recorded (LRU). */
void vidmm_release(struct vidmm *vm, const struct ddi_alloc_ref *list,
                   unsigned n, unsigned engine, uint64_t fence);

/* The paging buffer with this ticket retired (or was lost). */
void vidmm_paging_done(struct vidmm *vm, uint64_t ticket);
/* The paging buffer with this ticket was lost in a reset (caught half
 * run; it cannot run again: some of its UNMAPs ran). The allocations it
 * or a later paging buffer moved have unknown contents: make_resident
 * refuses lists with any of them (DDI_ELOST), so no buffer runs on them;
 * their owners may only destroy them (WDDM: contents lost in a reset).
 * Then as vidmm_paging_done. */
void vidmm_paging_lost(struct vidmm *vm, uint64_t ticket);

/* Bytes in use in VRAM / the aperture (by allocations and ranges waiting
 * for their unmap). */
uint64_t vidmm_vram_used(const struct vidmm *vm);
uint64_t vidmm_aperture_used(const struct vidmm *vm);
/* Of that, ranges of freed allocations waiting for their UNMAP (in the
 * next paging buffer) before they come free. */
uint64_t vidmm_aperture_unmapping(const struct vidmm *vm);
const struct vidmm_stats *vidmm_stats(const struct vidmm *vm);

/*
 * Split points [WDDM: a DMA buffer split at patch-location split
 * offsets]. For a buffer whose allocation list cannot be resident at
 * once: ranges [first, end) of the buffer, cut at split_offsets, such
 * that the allocations each range uses fit capacity bytes (each size
 * rounded up to its slot_align). An allocation programmed into a
 * hardware state slot (slot_id != 0, e.g. a render target) stays in
 * every later range's sub-list until that slot is programmed again: the
 * state outlives the packet. Fragmentation is not modelled: capacity is
 * a byte budget. DDI_ENOMEM if one range's own needs exceed capacity,
 * DDI_EINVAL bad arguments or more than max ranges.
 */
struct vidmm_split_range {
    uint32_t first, end;                /* byte offsets in the buffer */
    uint32_t slots;                     /* mask of allocation-list slots */
    uint64_t bytes;                     /* their total size */
};
int vidmm_split(const struct ddi_dmabuf *buf, const uint64_t *slot_size,
                uint64_t capacity, struct vidmm_split_range *out,
                unsigned max, unsigned *nout);

/*
 * The worst-case estimate of an allocation list, per segment, at submit
 * time [the patent's act 3: the kernel-mode driver's copy and
 * validation]: what the list could take, whatever vidmm's state when the
 * buffer is scheduled. Each allocation counts once (a list may name it
 * twice), as its pages plus, in VRAM, the gap an alignment larger than a
 * page may leave in front of it.
 *
 *   vram_bytes        the members that can only live in VRAM: the list
 *                     cannot run at once unless VRAM holds them all
 *   vram_any_bytes    every member that may live in VRAM
 *   aperture_bytes    every member that may live in the aperture
 *   vram_capacity     what VRAM could ever hold for a list: vidmm's VRAM
 *                     less what is pinned for life (primaries)
 *   aperture_capacity the aperture's size
 *   must_split        vram_bytes > vram_capacity: the list can never be
 *                     resident at once, split it up front
 *
 * The estimate is never below what the list takes once resident
 * (tests/unit/test-vidmm.c, /vidmm/estimate/never-below): a VRAM of vram_bytes
 * always holds the VRAM-only members. DDI_EINVAL bad arguments,
 * DDI_EHANDLE unknown handle.
 */
struct vidmm_estimate {
    uint64_t vram_bytes, vram_any_bytes, aperture_bytes;
    uint64_t vram_capacity, aperture_capacity;
    bool must_split;
};
int vidmm_estimate(const struct vidmm *vm, const struct ddi_alloc_ref *list,
                   unsigned n, struct vidmm_estimate *e);

/*
 * Running a split buffer [WDDM: VidMm's split DMA buffer], one portion at
 * a time (vidsch's make_portion hook). handles maps buf's list slots to
 * vidmm handles (0: a slot vidmm does not manage, fixed placement: it
 * costs nothing and is never made resident); NULL: buf->alloc[i].handle
 * are vidmm's handles already.
 *
 * own: vidmm's handle of the DMA buffer itself when it is pageable
 * (kernel/kdma.c), 0 when it lives in the kernel's fixed segment. Every
 * portion runs from the buffer, so each portion is made resident with
 * it: when own may only be in VRAM, its pages come off every portion's
 * capacity (a portion that filled VRAM to the byte without them could
 * never be made resident).
 *
 * vidmm_portion plans the range of buf that begins at first (0 or a
 * split offset, the previous range's end) as vidmm_split would, with
 * vidmm's own sizes (each allocation rounded to its pages and alignment)
 * and capacity (VRAM less the allocations pinned there, less own's
 * VRAM). DDI_ENOMEM: the packet at first cannot fit even alone;
 * DDI_EHANDLE unknown handle (own included); DDI_EINVAL bad buffer or
 * first not a split point.
 *
 * vidmm_splittable: the list does not fit at once (the caller's
 * vidmm_make_resident said DDI_ENOMEM) but the buffer can run in two or
 * more portions, each of which fits (false if even one cannot: the
 * buffer is refused before any portion runs).
 *
 * vidmm_make_resident_portion: vidmm_make_resident of the sub-list of
 * r->slots; desc (parallel to buf->alloc) gets the addresses of those
 * slots only. A portion made resident again (patched) must be given the
 * same r: vidsch keeps it. vidmm_release_portion: vidmm_release of that
 * sub-list.
 */
int vidmm_portion(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                  const uint32_t *handles, uint32_t own, uint32_t first,
                  struct vidmm_split_range *out);
bool vidmm_splittable(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                      const uint32_t *handles, uint32_t own);
int vidmm_make_resident_portion(struct vidmm *vm, uint32_t process,
                                const struct ddi_dmabuf *buf,
                                const uint32_t *handles,
                                struct ddi_alloc_desc *desc,
                                const struct vidmm_split_range *r,
                                bool patched, struct vidmm_residency *res);
void vidmm_release_portion(struct vidmm *vm, const struct ddi_dmabuf *buf,
                           const uint32_t *handles, uint32_t slots,
                           unsigned engine, uint64_t fence);

#endif /* FW_VIDMM_VIDMM_H */
