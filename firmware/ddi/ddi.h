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
};

const char *ddi_status_name(int status);

/* ---- capabilities [DXGK_DRIVERCAPS, DXGK_QUERYADAPTERINFO] ---- */

#define DDI_MAX_ENGINES     COPRO_MAX_ENGINES

struct ddi_caps {
    unsigned engines;               /* engine i runs ops in engine_ops[i] */
    uint32_t engine_ops[DDI_MAX_ENGINES];   /* 1u << COPRO_OP_* */
    unsigned preemption;            /* COPRO_PREEMPT_*: finest granularity */
    uint32_t ring_entries;          /* per engine; at most entries-1 queued */
    uint64_t vram_size;             /* the local-memory segment */
    uint64_t aperture_base, aperture_size;  /* 0 size: no aperture */
    bool gpuva;                     /* per-context page tables */
    uint64_t max_dma_bytes;         /* COPRO_DMA_MAX */
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

/* A fault or command error, as latched by the engine. */
struct ddi_fault {
    uint32_t kind;          /* COPRO_FAULT_* */
    uint32_t context;
    uint64_t fence;         /* the submission that faulted */
    uint64_t addr;
    uint32_t offset;        /* packet offset in the buffer */
};

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

    /* Optional (NULL: none). Records an OS event in the GPU's timeline,
     * on the GPU clock, for the tools that show a run (copro: the MARK
     * registers, docs/specs/copro.rst "Timeline"). kind is COPRO_MARK_*,
     * engine COPRO_MARK_NO_ENGINE for none, context the hardware id. It
     * changes nothing of the GPU's work; call it from one level only
     * (the event loop), never from an ISR. */
    void (*mark)(void *drv, unsigned kind, unsigned engine, uint32_t context,
                 uint64_t arg0, uint64_t arg1);
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
    /* FAULTED: the engine halted on f; it needs reset_engine. */
    void (*faulted)(void *os, unsigned engine, const struct ddi_fault *f);
};

/* A GPU as the OS sees it: the driver's ops and its private state. */
struct ddi_device {
    const struct ddi_ops *ops;
    void *drv;
};

#endif /* FW_DDI_DDI_H */
