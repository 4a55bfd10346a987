/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DDI: the one interface between the OS (vidsch, vidmm, the kernel)
 * and a GPU. It is a table of function pointers, as WDDM's miniport
 * interface is, so the very same scheduler runs over the real device
 * (kmd/copro_ddi.c, registers and interrupts) and over the host's
 * discrete-event model of the GPU (tests/sim/), where thousands of random
 * workloads run in seconds.
 *
 * Downcalls (struct ddi_ops) are made by the OS; upcalls (struct
 * ddi_upcalls, WDDM's DxgkCbNotifyInterrupt) are made by the driver from
 * its deferred interrupt processing (DPC level), never from the ISR, so
 * the OS may do real work in them.
 *
 * WDDM names are given in brackets where ours differ.
 *
 * Pure C, no hardware: included on the host too.
 */
#ifndef FW_DDI_DDI_H
#define FW_DDI_DDI_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

/* Error codes of every DDI and kernel API call: 0 or a negative DDI_E*. */
enum ddi_status {
    DDI_OK = 0,
    DDI_EINVAL = -1,        /* malformed argument or command buffer */
    DDI_EHANDLE = -2,       /* handle unknown, stale or not the caller's */
    DDI_EBOUNDS = -3,       /* an access outside its allocation */
    DDI_EOPCODE = -4,       /* packet not allowed (or not on that engine) */
    DDI_ENOMEM = -5,        /* out of a fixed-size table or of memory */
    DDI_EBUSY = -6,         /* ring full, request in flight: retry later */
    DDI_ELOST = -7,         /* the context was lost (TDR): device removed */
    DDI_ETIMEOUT = -8,
    DDI_ENOTSUP = -9,       /* the GPU cannot do this (caps) */
    DDI_EQUOTA = -10,       /* over the calling process's quota of a
                               kernel pool (kernel/kquota.h) */
    DDI_EACCESS = -11,      /* beyond the caller's rights: a privilege it
                               lacks, a handle opened without the access,
                               a display source it does not own */
    DDI_EABANDONED = -12,   /* the object's creator was reset (TDR): what
                               was waited for will never come; the
                               caller is not to blame */
};

const char *ddi_status_name(int status);

/* ---- capabilities [DXGK_DRIVERCAPS, DXGK_QUERYADAPTERINFO] ---- */

#define DDI_MAX_ENGINES     COPRO_MAX_ENGINES

/* ---- display [DXGK_DRIVERCAPS, D3DKMDT_VIDPN_SOURCE_MODE] ----
 *
 * A display source (VidPN source) scans out one primary allocation and
 * flips on vsync through MMIO (WDDM's FlipOnVSyncMmIo): a present builds
 * no DMA buffer. The OS commits a mode, then calls set_source_address for
 * each present once the GPU has finished drawing it; the driver shows
 * presents in the order it is given them, one per vsync at most, and
 * reports each with the flip_done upcall (which vsync, how many vblanks
 * went by without a new picture). A pointer plane, if the display has
 * one, is blended over the scanout [DxgkDdiSetPointerShape/Position].
 */
#define DDI_MAX_SOURCES     1
#define DDI_POINTER_SIZE    COPRO_CURSOR_SIZE       /* square, pixels */
#define DDI_POINTER_BYTES   COPRO_CURSOR_BYTES      /* ARGB8888 */

struct ddi_display_caps {
    unsigned sources;               /* VidPN sources; 0: no display */
    uint32_t refresh_hz;
    uint64_t vsync_period_ns;
    uint32_t max_width, max_height;
    bool pointer;                   /* a hardware pointer plane: shapes of
                                       DDI_POINTER_SIZE square ARGB8888
                                       (B, G, R, A bytes, not
                                       premultiplied), DDI_POINTER_SIZE * 4
                                       bytes per row */
};

struct ddi_display_mode {
    uint32_t width, height;         /* pixels */
    uint32_t pitch;                 /* bytes from row to row */
    uint32_t format;                /* COPRO_FMT_* */
};

struct ddi_caps {
    unsigned engines;               /* engine i runs ops in engine_ops[i] */
    uint32_t engine_ops[DDI_MAX_ENGINES];   /* 1u << COPRO_OP_* */
    unsigned preemption;            /* COPRO_PREEMPT_*: finest granularity */
    uint32_t ring_entries;          /* per engine; at most entries-1 queued */
    uint64_t vram_size;             /* the local-memory segment */
    uint64_t aperture_base, aperture_size;  /* 0 size: no aperture */
    bool gpuva;                     /* per-context page tables */
    uint64_t max_dma_bytes;         /* COPRO_DMA_MAX */
    /* What one context save (or restore) costs the engine when a
     * preemption interrupts a buffer, ns (copro's CTX_SWITCH_NS); 0: the
     * driver does not know (vidsch then measures it, vidsch_pick.c) */
    uint64_t ctx_switch_ns;
    /* The tiling path (COPRO_CAP_TILER): pixels per tile side, which
     * sets a scene's tile count; 0: no tiler */
    uint32_t tile_size;
    struct ddi_display_caps display;
};

/* ---- command buffers, allocation lists, patch locations ----
 *
 * An application's command buffer holds copro packets
 * (include/copro/copro_cmd.h) whose GPU-address fields are left zero; it
 * names memory only through its allocation list (handles), and every
 * address field is described by one patch location. render validates the
 * buffer and copies it into a DMA buffer in kernel memory; patch writes
 * the addresses once the allocations have a placement (schedule time).
 */

/* [D3DDDI_ALLOCATIONLIST] one entry per allocation the buffer uses */
struct ddi_alloc_ref {
    uint32_t handle;        /* the process's allocation handle */
    uint32_t write;         /* the buffer writes it (WriteOperation) */
};

/* [D3DDDI_PATCHLOCATIONLIST] */
struct ddi_patch_loc {
    uint32_t slot;          /* index into the allocation list
                               (AllocationIndex) */
    uint32_t patch_offset;  /* byte offset of the 64-bit address field in
                               the buffer (PatchOffset) */
    uint64_t alloc_offset;  /* added to the allocation's address
                               (AllocationOffset) */
    uint32_t split_offset;  /* byte offset of the packet that uses it: a
                               split point (SplitOffset) */
    uint32_t slot_id;       /* hardware state slot it programs, e.g. the
                               SET_TARGET slot (SlotId); 0 if none */
};

/* What an allocation looks like to render and patch. */
struct ddi_alloc_desc {
    uint64_t size;
    uint64_t gpu_addr;      /* placement (patch time; 0 before) */
    bool cpu_visible;
};

/*
 * A DMA buffer in kernel memory: the validated copy of a command buffer.
 * The OS owns the storage; render fills it.
 */
#define DDI_MAX_ALLOC_LIST  32
#define DDI_MAX_PATCH_LIST  256

struct ddi_dmabuf {
    uint32_t *dw;               /* CPU view */
    uint64_t gpu_addr;          /* the engine's view of dw[0] */
    uint32_t cap_bytes;
    uint32_t len_bytes;
    unsigned engine;            /* engine it was validated for */
    unsigned nalloc;
    struct ddi_alloc_ref alloc[DDI_MAX_ALLOC_LIST];
    unsigned npatch;
    struct ddi_patch_loc patch[DDI_MAX_PATCH_LIST];
    uint64_t work_ns;           /* modelled cost hint (WORK total) */
};

/* Inputs of render [DXGKARG_RENDER]. */
struct ddi_render_args {
    unsigned engine;
    const uint32_t *cmd;                /* the application's buffer */
    uint32_t cmd_bytes;
    const struct ddi_alloc_ref *alloc;  /* its allocation list */
    unsigned nalloc;
    const struct ddi_patch_loc *patch;  /* its patch-location list */
    unsigned npatch;
    /* the allocations the list names, already resolved by the kernel
     * against the calling process's handle table (same order) */
    const struct ddi_alloc_desc *alloc_desc;
    /* GPU-VA mode [WDDM 2.x: no allocation or patch-location list]: the
     * buffer's address fields are GPU virtual addresses of the context's
     * space, taken as they are; nalloc and npatch must be 0. The MMU
     * confines every access to what the process mapped (a wrong address
     * faults that context only), so no bounds are checked here. */
    bool gpuva;
};

/* ---- submission [DXGKARG_SUBMITCOMMAND] ---- */

struct ddi_submit_args {
    unsigned engine;
    uint64_t dma_addr;
    uint32_t dma_len;
    uint64_t fence;         /* SubmissionFenceId: per engine, increasing */
    uint32_t context;       /* hardware context id */
    uint64_t save_addr;     /* context save area, 0 if none */
    uint32_t flags;         /* COPRO_SUBMIT_* (PAGING, RESUME, NO_IRQ) */
};

/* What an engine reset reported [DXGKARG_RESETENGINE]. */
struct ddi_reset_report {
    uint64_t aborted_fence;     /* in execution, 0 if none */
    uint64_t completed_fence;   /* last completed after the reset */
};

/* A flip [DXGKARG_SETVIDPNSOURCEADDRESS]. */
struct ddi_flip_args {
    unsigned source;            /* VidPnSourceId */
    uint64_t primary_addr;      /* PrimaryAddress: the primary's placement */
    uint32_t present_id;        /* the OS's, given back by flip_done */
};

/* A flip that took effect, or that the display refused. */
struct ddi_flip_done {
    unsigned source;
    uint32_t present_id;
    uint64_t primary_addr;
    int status;                 /* DDI_OK: shown; DDI_EINVAL: the display
                                   refused the surface (black until the
                                   next good flip) */
    uint64_t vsync;             /* the vsync it took effect at (count) */
    uint64_t time;              /* that vsync's GPU time, ns */
    uint64_t missed;            /* vblanks since the source's previous
                                   flip at which nothing new was shown:
                                   the missed-vblank measure (0 for the
                                   first flip after a mode commit) */
};

/* ---- paging [DxgkDdiBuildPagingBuffer, DXGK_BUILDPAGINGBUFFER] ----
 *
 * vidmm's moves, as operations the driver turns into a paging buffer: a
 * DMA buffer for the copy engine, submitted with COPRO_SUBMIT_PAGING (the
 * device never preempts it) and final (never patched). Addresses are GPU
 * addresses in the local-memory segment or the aperture.
 *
 * The backing store of an allocation that is not in VRAM is system
 * memory: 4 KiB pages of guest RAM that the OS owns (sys_pages, guest-
 * physical addresses). The GPU reaches them only through the aperture, so
 * a transfer to or from system memory maps the pages at an aperture range
 * first (MAP_APERTURE), and the range is unmapped when vidmm gives it back.
 * MAP takes effect while the driver builds the buffer (it writes the GART
 * entries on the CPU, as WDDM drivers do in BuildPagingBuffer, with the
 * invalidation the device requires), so it must come before any use of
 * its range in the same call. UNMAP takes effect in buffer order, when
 * the GPU reaches it (copro: COPY_PTE of invalid entries, after the
 * transfers before it), so MAP + TRANSFER + UNMAP fit in one buffer; the
 * range is free for another MAP once that buffer's fence retired. vidmm
 * never maps a range that a buffer on the GPU still uses.
 */
enum ddi_paging_kind {
    DDI_PAGING_TRANSFER,        /* [TransferAllocation] copy size bytes
                                   from src to dst */
    DDI_PAGING_FILL,            /* [FillAllocation] size bytes at dst
                                   (a multiple of 4) with the 32-bit value */
    DDI_PAGING_MAP_APERTURE,    /* [MapApertureSegment] aperture range
                                   dst .. dst + size (4 KiB multiples) onto
                                   sys_pages[0 .. size / 4096) */
    DDI_PAGING_UNMAP_APERTURE,  /* [UnmapApertureSegment] the range again */
};

struct ddi_paging_op {
    uint32_t kind;              /* enum ddi_paging_kind */
    uint32_t value;             /* FILL */
    uint64_t src, dst, size;
    const uint64_t *sys_pages;  /* MAP_APERTURE: guest-physical pages */
};

#define DDI_MAX_PAGING_OPS  64  /* per build_paging_buffer call */

/* A fault or command error, as latched by the engine. */
struct ddi_fault {
    uint32_t kind;          /* COPRO_FAULT_* */
    uint32_t context;
    uint64_t fence;         /* the submission that faulted */
    uint64_t addr;
    uint32_t offset;        /* packet offset in the buffer */
};

struct ddi_gpuva_ops;       /* ddi/ddi_gpuva.h */
struct ddi_hws_ops;         /* ddi/ddi_hws.h */
struct ddi_hwq_error;
struct ddi_hwq_progress;
struct copro_sched_log_entry;

struct ddi_ops {
    /* [DxgkDdiQueryAdapterInfo] */
    void (*query_caps)(void *drv, struct ddi_caps *caps);

    /* [DxgkDdiRender] validate args->cmd and translate it into out;
     * DDI_OK or why it was refused (nothing of it reaches the GPU). */
    int (*render)(void *drv, const struct ddi_render_args *args,
                  struct ddi_dmabuf *out);

    /* [DxgkDdiPatch] write each patch location's address from
     * alloc[slot].gpu_addr + alloc_offset, for the patch locations whose
     * split_offset lies in [first_byte, end_byte) (the whole buffer:
     * 0, len_bytes). */
    int (*patch)(void *drv, struct ddi_dmabuf *buf,
                 const struct ddi_alloc_desc *alloc,
                 uint32_t first_byte, uint32_t end_byte);

    /* [DxgkDdiBuildPagingBuffer] translate ops[0 .. nops) in order into
     * out (a DMA buffer for the copy engine, out->dw and out->gpu_addr set
     * by the caller, cap_bytes its room); MAPs happen now, UNMAPs when
     * the GPU runs the buffer (see above). DDI_OK,
     * DDI_EINVAL for a bad operation (nothing mapped then), DDI_ENOMEM if
     * out is too small. NULL: the GPU cannot page (fixed placement). */
    int (*build_paging_buffer)(void *drv, const struct ddi_paging_op *ops,
                               unsigned nops, struct ddi_dmabuf *out);

    /* [DxgkDdiSubmitCommand] queue one entry on the engine's ring.
     * DDI_EBUSY if the ring is full. */
    int (*submit)(void *drv, const struct ddi_submit_args *args);

    /* [DxgkDdiPreemptCommand] ask the engine to stop at its next
     * arbitration point; answered by the preempted upcall with the same
     * preempt_fence. */
    int (*preempt)(void *drv, unsigned engine, uint64_t preempt_fence);

    /* [DxgkDdiResetEngine] abort the engine's work, drop its ring. */
    int (*reset_engine)(void *drv, unsigned engine,
                        struct ddi_reset_report *rep);

    /* The GPU clock, virtual ns (the time base of TIMESTAMP). */
    uint64_t (*gpu_time)(void *drv);

    /*
     * Display (caps.display.sources > 0; a GPU without a display leaves
     * these NULL, and the scheduler never calls them).
     *
     * [DxgkDdiCommitVidPn] sets the source's mode and shows primary_addr
     * at once (not at a vsync); vsyncs and their upcalls run from then
     * on. mode NULL turns the source off. Presents not yet shown are
     * dropped without flip_done. DDI_EINVAL if the display refuses the
     * surface.
     */
    int (*commit_vidpn)(void *drv, unsigned source,
                        const struct ddi_display_mode *mode,
                        uint64_t primary_addr);
    /*
     * [DxgkDdiSetVidPnSourceAddress, FlipOnNextVSync] queue a flip to
     * primary_addr (the committed geometry): it takes effect at the first
     * vsync after the flips queued before it did, and flip_done reports
     * it. The OS calls it at DPC level once the GPU has finished the
     * primary; the driver programs the hardware from its interrupt
     * handler when the previous flip is done (WDDM calls this DDI at
     * DIRQL for FlipOnVSyncMmIo). DDI_EBUSY when the driver's queue is
     * full: call again after a flip_done.
     */
    int (*set_source_address)(void *drv, const struct ddi_flip_args *a);
    /* [DxgkDdiSetPointerShape] the pointer's image: DDI_POINTER_BYTES at
     * GPU address shape_addr (caps.display.pointer). Takes effect at
     * once. DDI_EINVAL if the display refuses the address. */
    int (*set_pointer_shape)(void *drv, unsigned source,
                             uint64_t shape_addr);
    /* [DxgkDdiSetPointerPosition] top-left pixel of the image at (x, y),
     * clipped to the screen; hidden unless visible. At once. */
    int (*set_pointer_position)(void *drv, unsigned source, int32_t x,
                                int32_t y, bool visible);

    /* Optional (NULL: none). Records an OS event in the GPU's timeline,
     * on the GPU clock, for the tools that show a run (copro: the MARK
     * registers, docs/specs/copro.rst "Timeline"). kind is COPRO_MARK_*,
     * engine COPRO_MARK_NO_ENGINE for none, context the hardware id. It
     * changes nothing of the GPU's work; call it from one level only
     * (the event loop), never from an ISR. */
    void (*mark)(void *drv, unsigned kind, unsigned engine, uint32_t context,
                 uint64_t arg0, uint64_t arg1);

    /* Optional (NULL: no GPU-VA mode): per-process address spaces and
     * page-table updates (ddi/ddi_gpuva.h). */
    const struct ddi_gpuva_ops *gpuva;

    /* Optional (NULL: the OS schedules): hardware queues, run lists and
     * the device's scheduling log (ddi/ddi_hws.h) [HwSchEnabled]. */
    const struct ddi_hws_ops *hws;
};

/*
 * Upcalls, from the driver's DPC [DxgkCbNotifyInterrupt]. fence values
 * are the submit args' fences.
 */
struct ddi_upcalls {
    /* DMA_COMPLETED: every submission with fence <= completed retired. */
    void (*dma_completed)(void *os, unsigned engine, uint64_t completed);
    /* PREEMPTED: request preempt_fence done; preempted is the submission
     * it interrupted (resume it with RESUME and its save area), 0 if the
     * engine stopped between submissions; every queued entry after it was
     * dropped (resubmit them). */
    void (*preempted)(void *os, unsigned engine, uint64_t preempt_fence,
                      uint64_t preempted, uint64_t completed);
    /* TILER_OOM (docs/specs/copro.rst "Parameter buffer full"): the
     * geometry submission oom_fence stopped before a primitive needing
     * need more heap bytes, its progress in its save area (resume it
     * with RESUME once the parameter buffer grew or a partial render
     * ran); as after PREEMPTED, every queued entry after it was dropped
     * (resubmit them), those submitted after the stop and before this
     * upcall included (the driver kept them from running), and
     * completed is the engine's retired fence. Not a
     * preemption: a preemption pending meanwhile is answered by its own
     * PREEMPTED upcall, after this one. NULL: ignored. */
    void (*tiler_oom)(void *os, unsigned engine, uint64_t oom_fence,
                      uint32_t need, uint64_t completed);
    /* FAULTED: the engine halted on f; it needs reset_engine. */
    void (*faulted)(void *os, unsigned engine, const struct ddi_fault *f);
    /* VSYNC [DXGK_INTERRUPT_CRTC_VSYNC]: the source's vsync count is now
     * count, the last one at GPU time time. Made once per DPC that saw
     * vsyncs (several may have passed: count says), after the flip_done
     * upcalls of the same DPC. */
    void (*vsync)(void *os, unsigned source, uint64_t count, uint64_t time);
    /* FLIP_DONE: one set_source_address took effect (or was refused), in
     * the order they were made. */
    void (*flip_done)(void *os, const struct ddi_flip_done *f);
    /* Hardware scheduling (ddi/ddi_hws.h; NULL in a scheduler that does
     * not use it). */
    void (*queue_progress)(void *os, const struct ddi_hwq_progress *p,
                           unsigned n);
    void (*queue_error)(void *os, uint32_t queue,
                        const struct ddi_hwq_error *err);
    void (*sched_log)(void *os, const struct copro_sched_log_entry *ent,
                      unsigned n, uint32_t dropped);
};

/* A GPU as the OS sees it: the driver's ops and its private state. */
struct ddi_device {
    const struct ddi_ops *ops;
    void *drv;
};

#endif /* FW_DDI_DDI_H */
