/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's GPU-VA mode (WDDM 2.x) video memory: per-process GPU
 * virtual address spaces, allocations with a VA for life, residency from
 * each device's residency list (vidmm_residency) and the pager that makes
 * it real [VidMm's GpuMmu half under D3DKMTMakeResident / D3DKMTEvict].
 *
 * Internal to kernel/: kernel.c and kapi.c call it; applications reach it
 * through kapi.h (kapi_create_device_gpuva, kapi_make_resident, ...).
 *
 * Where memory is. Every GPU-VA allocation has, from creation to
 * destruction:
 *  - a VA range in its process's space (vidmm_gpuva), leaf tables made at
 *    creation by the driver (DDI gpuva->space_reserve), entries invalid
 *    while the allocation is not resident (WDDM 2.0: an evicted
 *    allocation is unmapped, so a use without MakeResident faults);
 *  - a backing store: contiguous pages of the page pool (system memory),
 *    mapped once at creation at its own range of the aperture window
 *    (MAP_APERTURE), so a page-in or page-out is just a TRANSFER and
 *    never waits for an aperture range;
 *  - while resident, a block of the GPU-VA VRAM (taken from the kernel's
 *    segment at start, capacity of residency).
 *
 * The pager. page_in: VRAM block, then in the call's paging buffer on
 * the copy engine: TRANSFER aperture -> VRAM, then the leaf entries of
 * the VA range onto the block (DDI gpuva->pte_update: COPY_PTE on copro,
 * whose flush is the invalidation). page_out: TRANSFER VRAM -> aperture,
 * then the entries invalid; the block is free for the next page-in at
 * once, because every paging buffer runs on the one copy engine in
 * order. The moves of one call share one paging buffer (kgpuva.c,
 * "paging buffers"). Every paging buffer gets the next paging fence
 * value; the kernel writes
 * it to the paging fence word when the buffer retires (they retire in
 * order), and a context waits for a value with vidsch_wait on that word
 * (kapi_wait_paging: a scheduler hold, nothing of the context runs
 * before). A paging buffer is never preempted (vidsch_submit_paging).
 *
 * Trim callbacks are the application's (kapi_set_trim_callback); they
 * run synchronously inside the MakeResident that needs the memory
 * (possibly another process's), because residency pages out only what
 * is unreferenced once they return. They may only call kapi_evict.
 *
 * An Evict-ed allocation is not paged out while its owner has GPU-VA
 * work in flight (it may use it: there are no lists to say); a
 * MakeResident that could only fit by taking such memory is DDI_EBUSY.
 */
#ifndef FW_KERNEL_KGPUVA_H
#define FW_KERNEL_KGPUVA_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "ddi/ddi_gpuva.h"
#include "lib/page_pool.h"
#include "vidmm/vidmm_gpuva.h"
#include "vidmm/vidmm_residency.h"
#include "vidmm/vidmm_segment.h"

struct kernel;
struct kproc;
struct kdevice;
struct kalloc;

#define KGPUVA_MAX_PROCS        16
#define KGPUVA_MAX_DEVICES      24
#define KGPUVA_MAX_ALLOCS       64
#define KGPUVA_LIST             64      /* residency-list entries/device */
#define KGPUVA_MAX_PAGING       8       /* paging buffers in flight */
/* one call's moves: every allocation out and a full list in, a transfer
 * and a few COPY_PTE each, with room to spare */
#define KGPUVA_PAGING_BYTES     16384u
/* A process's DMA buffers: an arena of the kernel's segment of its own,
 * the only part of the OS's VRAM its space maps (read-only), so that it
 * can read no other process's command buffers or context state. */
#define KGPUVA_DMA_BYTES        (64u << 10)
#define KGPUVA_DMA_BLOCKS       32

/* The trim notification as the application gets it: evict about bytes. */
typedef void (*kgpuva_trim_fn)(void *arg, uint64_t bytes);

struct kgpuva_config {
    uint64_t vram_bytes;            /* from the kernel's segment: what
                                       residency may fill */
    uint64_t aperture_base;         /* a window of the aperture nobody
                                       else maps (GPU addresses) */
    uint64_t aperture_size;
    uint64_t va_base, va_size;      /* every process's VA window: above
                                       the OS's VRAM, which the driver
                                       maps at identity */
    unsigned copy_engine;           /* runs paging buffers */
    struct page_pool *pool;         /* backing store */
};

struct kgpuva_proc {
    bool on;
    struct kproc *kp;
    struct vidmm_res_process rp;
    struct vidmm_gpuva_space space;
    struct vidmm_block va_blocks[KGPUVA_MAX_ALLOCS + 1];
    uint32_t as;                    /* the driver's id of its space */
    uint64_t dma_base;              /* its DMA-buffer arena ... */
    struct vidmm_segment dma;       /* ... where kapi_render puts them */
    struct vidmm_block dma_blocks[KGPUVA_DMA_BLOCKS];
    kgpuva_trim_fn trim_fn;
    void *trim_arg;
    uint64_t budget_asked;          /* kapi_set_budget's (0: none) */
};

struct kgpuva_dev {
    bool on;
    struct vidmm_res_device rd;
    struct vidmm_res_entry entry[KGPUVA_LIST];
};

struct kgpuva_alloc {
    bool used;
    struct kgpuva_proc *proc;
    struct kproc *charged;          /* its creator: charged for the
                                       record (KQ_GPUVA_ALLOCS) and, while
                                       referenced, its VRAM */
    bool vram_charged;              /* bytes charged as KQ_GPUVA_VRAM */
    uint32_t handle;                /* the kernel's allocation handle */
    uint64_t va;
    uint64_t bytes;                 /* page-rounded */
    uint64_t vram;                  /* block while resident, else 0 */
    uint64_t aper;                  /* its aperture range */
    uint64_t first_page;            /* backing run (guest-physical) */
    uint32_t npages;
    bool dying;                     /* destroyed: backing freed once the
                                       paging fence reaches free_at */
    uint64_t free_at;
    bool out_pending;               /* its page-out found no paging
                                       buffer: its entries still map vram
                                       (kept, not reused), its VA range
                                       kept; kgpuva_retry issues it */
};

/* A paging buffer: being filled (open), then on the GPU (used); its
 * packets in the kernel's VRAM. */
struct kgpuva_paging {
    bool used, open;
    uint64_t value;                 /* paging fence value it signals */
    uint64_t gpu;
    struct ddi_dmabuf dmabuf;
};

struct kgpuva_stats {
    uint64_t page_ins, page_outs, bytes_in, bytes_out;
    uint64_t paging_buffers, trims_delivered, enomem;
    uint64_t submit_failures;       /* never, one hopes */
    uint64_t deferred_page_outs;    /* page-outs that waited for a paging
                                       buffer (kgpuva_retry) */
    uint64_t spaces_recycled;       /* processes exited (kgpuva_proc_exit) */
};

struct kgpuva {
    bool on;
    struct kgpuva_config cfg;
    struct kernel *k;
    struct vidmm_res res;
    struct vidmm_res_alloc res_alloc[KGPUVA_MAX_ALLOCS];
    struct vidmm_segment vram;
    struct vidmm_block vram_blocks[KGPUVA_MAX_ALLOCS + 1];
    uint64_t vram_base;
    struct vidmm_segment aper;
    struct vidmm_block aper_blocks[KGPUVA_MAX_ALLOCS + 1];
    struct kgpuva_proc proc[KGPUVA_MAX_PROCS];
    struct kgpuva_dev dev[KGPUVA_MAX_DEVICES];
    struct kgpuva_alloc alloc[KGPUVA_MAX_ALLOCS];
    struct kgpuva_paging paging[KGPUVA_MAX_PAGING];
    struct kgpuva_paging *batch;    /* being filled, NULL if none */
    unsigned bulk;                  /* destructions batch until bulk off
                                       (nested: a process exit destroys
                                       devices) */
    uint64_t admitted;              /* charged by residency's admit
                                       during the current MakeResident */
    uint64_t fence_issued;          /* last paging fence value handed out */
    volatile uint64_t fence_done;   /* last retired: what contexts wait on */
    struct kgpuva_stats stats;
};

/*
 * Starts GPU-VA mode on k (after kernel_init): takes cfg->vram_bytes from
 * the kernel's segment, paging buffers' packets and every process
 * slot's DMA-buffer arena (KGPUVA_MAX_PROCS x KGPUVA_DMA_BYTES) too.
 * NULL or why not (the GPU has no gpuva ops, no room, a bad window).
 */
const char *kgpuva_start(struct kernel *k, const struct kgpuva_config *cfg);

/* True once p made its first GPU-VA device (it has a record). */
bool kgpuva_proc_on(const struct kernel *k, const struct kproc *p);
/* The process's record (made on its first GPU-VA device), NULL if none. */
struct kgpuva_proc *kgpuva_proc_of(struct kernel *k, const struct kproc *p);
/* Where the DMA buffers of p's GPU-VA contexts go (NULL: none). */
struct vidmm_segment *kgpuva_dma_segment(struct kernel *k,
                                         const struct kproc *p);

/* Device dev (slot index di) of p becomes a GPU-VA device: the process
 * gets its address space and residency record on the first one. */
/* The process exited (kexit.c), its devices and allocations destroyed:
 * it leaves residency; its address space (page tables, reserved leaf
 * tables, every entry invalid) is kept for the next process of its slot,
 * which takes it instead of asking the driver for a new one. */
void kgpuva_proc_exit(struct kernel *k, struct kproc *p);
int kgpuva_device_create(struct kernel *k, struct kproc *p, unsigned di);
void kgpuva_device_destroy(struct kernel *k, unsigned di);
bool kgpuva_device_on(const struct kernel *k, unsigned di);

/* p's budget: what it asked for (kapi_set_budget), at most what its
 * quota lets it reference (KQ_GPUVA_VRAM's limit, which the session
 * manager may change: taken again at every MakeResident). The budget is
 * the OS's to give, as WDDM's is: a process lowers its own, never raises
 * it beyond its quota. */
uint64_t kgpuva_budget(const struct kernel *k, const struct kproc *p);

/* A view of bytes (whole pages) of VRAM at vram that something else
 * placed and keeps there (kernel/kvamap.h) in p's space: *va, its
 * entries written by the paging buffer of value *fence, in the batch
 * (the caller calls kgpuva_flush once it added its views). Unmap: the
 * entries invalid (by the paging buffer of value *fence), the range
 * free; the VRAM must stay its owner's until *fence retired. DDI_EBUSY:
 * paging buffers in flight, retry. */
int kgpuva_view_map(struct kernel *k, struct kproc *p, uint64_t vram,
                    uint64_t bytes, bool writable, uint64_t *va,
                    uint64_t *fence);
int kgpuva_view_unmap(struct kernel *k, struct kproc *p, uint64_t va,
                      uint64_t *fence);

/* A context (hardware id) of a GPU-VA device runs in its process's
 * space, its save area [save, + bytes: whole pages of the kernel's
 * segment holding nothing else) writable there; unbind once it is gone,
 * before the pages are freed. */
#define KGPUVA_SAVE_BYTES   4096u
int kgpuva_context_bind(struct kernel *k, struct kproc *p, uint32_t hw_id,
                        uint64_t save);
void kgpuva_context_unbind(struct kernel *k, struct kproc *p, uint32_t hw_id,
                           uint64_t save);

/* Allocation handle h of p: VA range, backing store, aperture mapping,
 * residency record (not resident). Zeroed backing if zeroed. */
int kgpuva_alloc_create(struct kernel *k, struct kproc *p, uint32_t h,
                        uint64_t size, bool zeroed,
                        struct kgpuva_alloc **out);
/* DDI_OK, or DDI_EBUSY when residency refuses now (from inside a trim
 * callback): nothing changed, ask again later. */
int kgpuva_alloc_destroy(struct kernel *k, struct kgpuva_alloc *ga);

/* [D3DKMTLock] the CPU's view of where it is now: only while one of its
 * process's devices holds a reference (then it stays in VRAM), else
 * DDI_EBUSY (it may move at any MakeResident). */
int kgpuva_lock(struct kernel *k, struct kgpuva_alloc *ga,
                volatile void **cpu);

/* [D3DKMTMakeResident] / [D3DKMTEvict] on device slot di. The VRAM of
 * a referenced allocation is never taken back by residency: it is
 * charged to the allocation's creator (KQ_GPUVA_VRAM) from the
 * MakeResident that takes its first reference (refused with
 * DDI_EQUOTA / DDI_ENOMEM before anything moves) until the Evict,
 * device destruction or destruction that drops its last, or, if its
 * owner's work was in flight then (residency keeps it: in_use), until
 * that work retired. */
int kgpuva_make_resident(struct kernel *k, unsigned di, const uint32_t *h,
                         unsigned n, uint64_t *paging_fence);
int kgpuva_evict(struct kernel *k, unsigned di, const uint32_t *h,
                 unsigned n, uint64_t *bytes_to_trim);

/* A buffer retired: GPU-VA VRAM its process evicted while it was in
 * flight is no longer charged (kgpuva_make_resident). */
void kgpuva_vram_settle(struct kernel *k);

/* Submits the moves batched so far (the end of every call that moves). */
void kgpuva_flush(struct kernel *k);
/* Around many destructions (a device's): one batch for all of them. */
void kgpuva_bulk(struct kernel *k, bool on);

/* The reaper's part, once paging buffers retired: page-outs that found
 * no paging buffer are issued now (never dropped: their entries would
 * stay valid in a space the slot's next process gets). True if some
 * still wait. */
bool kgpuva_retry(struct kernel *k);
/* Something of process slot p's space is still pending (an allocation
 * dying or waiting for its page-out): the slot, and so p's record, is
 * not handed to another process yet (kexit_reap). */
bool kgpuva_slot_busy(const struct kernel *k, const struct kproc *p);

/* buffer_done of cookie: one of the pager's buffers retired (true). */
bool kgpuva_paging_done(struct kernel *k, uint64_t cookie);

#endif /* FW_KERNEL_KGPUVA_H */
