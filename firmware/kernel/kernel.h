/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copro OS kernel (dxgkrnl's part): struct kernel, which holds the
 * tables of the objects behind the handles of kapi.h (each object's
 * structure and functions in its own header and file: kproc, kdevice,
 * kcontext, kalloc, ksync, kbuffer, kwait, kdisplay), and kernel.c, the
 * glue between the scheduler (vidsch), video memory (the kernel's fixed
 * segment and vidmm: kmem.c), the GPU (the DDI) and the event loop: the
 * scheduler's environment, the driver's upcalls, completions, the reaper.
 *
 * Everything here is pure C over the DDI: the kernel never touches a
 * register. The hardware-facing pieces are kloop.c (the CPU: halting,
 * the LAPIC timer) and kboot.c (bringing the copro driver up and wiring
 * its interrupt to the DPC queue).
 *
 * Levels, as in WDDM: the ISR only queues the driver's DPC; DPCs (the
 * driver's deferred processing, whose upcalls enter vidsch) run first in
 * the event loop; timers and work items (vidsch's worker, deliveries of
 * completed CPU waits and locks to applications) run at passive level.
 * Nothing re-enters vidsch: what vidsch reports from inside a call
 * (buffer_done, context_lost) is only recorded there and acted on by a
 * work item.
 */
#ifndef FW_KERNEL_KERNEL_H
#define FW_KERNEL_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "kernel/handle.h"
#include "kernel/kalloc.h"
#include "kernel/kapi.h"
#include "kernel/kbuffer.h"
#include "kernel/kcontext.h"
#include "kernel/kdevice.h"
#include "kernel/kdisplay.h"
#include "kernel/kevents.h"
#include "kernel/kgpuva.h"
#include "kernel/kscene.h"
#include "kernel/kvamap.h"
#include "kernel/kisolate.h"
#include "kernel/klimits.h"
#include "kernel/kproc.h"
#include "kernel/kquota.h"
#include "kernel/ksync.h"
#include "kernel/kthrottle.h"
#include "kernel/kwait.h"
#include "lib/page_pool.h"
#include "vidmm/vidmm.h"
#include "vidmm/vidmm_segment.h"
#include "vidsch/vidsch.h"

/* A paging buffer vidmm built, on the GPU until buffer_done gives its
 * address back as the cookie. Its packets live in the kernel segment,
 * reserved at start. */
struct kpaging {
    bool used;
    uint64_t ticket;        /* vidmm's */
    uint64_t gpu;
    struct ddi_dmabuf dmabuf;
};

/*
 * Video memory managed by vidmm (packet-based mode), when the GPU can
 * page (kernel_init's vm argument): the first kernel_bytes of the OS's
 * VRAM stay the kernel's fixed segment (DMA buffers, paging buffers,
 * context save areas, sync values, display records), the rest is vidmm's,
 * and applications' allocations are vidmm allocations backed by pages of
 * pool, oversubscribable.
 */
struct kernel_vidmm_config {
    uint64_t kernel_bytes;
    uint64_t aperture_base, aperture_size;  /* what the GART covers */
    unsigned copy_engine;                   /* runs paging buffers */
    struct page_pool *pool;                 /* backing store */
};

/* Kernel-wide counters (printed by scenarios, used by the benchmark). */
struct kernel_stats {
    uint64_t renders, render_refusals, submits;
    uint64_t paging_buffers_done;   /* vidmm's, retired on the GPU */
    uint64_t split_buffers;         /* DMA buffers run in portions */
    uint64_t split_upfront;         /* of those, split at submit time */
    /* pageable DMA buffers (kmem.h, KAPI_DMA_APERTURE / _VRAM) */
    uint64_t dma_pageable;          /* rendered into a vidmm allocation */
    uint64_t dma_brought_in;        /* made resident from system memory
                                       (mapped, or copied into VRAM) */
    uint64_t dma_back_patched;      /* of those, patched before: taken
                                       out while preempted or handed
                                       back, brought back to the same
                                       address */
    uint64_t dma_busy_waits;        /* residency asked again: a paging
                                       buffer was still moving it */
    uint64_t dma_kseg_bytes, dma_kseg_peak; /* the kernel segment's
                                       bytes held by DMA buffers */
    uint64_t dma_vram_peak;         /* vidmm VRAM held by pageable DMA
                                       buffers (at their residency) */
    uint64_t buffers_done, buffers_lost;
    uint64_t contexts_lost, waits_done;
    int last_refusal;       /* DDI_E* of the last refused render */
    uint64_t quota_refusals;        /* calls refused with DDI_EQUOTA */
    /* every charge a pool refused (DDI_EQUOTA: the process's limit;
     * DDI_ENOMEM: the pool, others' guarantees kept), and the last one's
     * kind (KQ_*) and code: what a throttled DDI_EBUSY stood for */
    uint64_t quota_denials;
    unsigned quota_last_kind;
    int quota_last_status;
    uint64_t throttled;             /* calls answered DDI_EBUSY: their
                                       process's work in flight was at
                                       a limit (kernel/kthrottle.h) */
    uint64_t throttle_waits;        /* kapi_wait_throttle callbacks run */
    uint64_t quota_underflows;      /* uncharges of more than charged:
                                       a bookkeeping bug, never */
    uint64_t processes_exited, processes_freed;
    /* The OS's CPU time spent scheduling (kernel.cycles set): in the
     * miniport's DPC (the interrupts' work: the driver and the vidsch
     * upcalls it makes) and in vidsch's timer and worker */
    uint64_t sched_cycles, dpc_cycles, timer_cycles, worker_cycles;
    /* The kernel's (and the miniport's) own completion work, outside
     * vidsch (which counts its own: vidsch_cycles): the DPC reading
     * progress fences, the log and the display, and the deliveries of
     * satisfied CPU waits and the reaper (without the applications'
     * callbacks they run) */
    uint64_t complete_cycles;
    /* Completion interrupts on demand (hardware mode): turned on, off;
     * progress polls before idling, and those that found some */
    uint64_t cirq_on, cirq_off, idle_polls, idle_polls_moved;
    uint64_t dpcs, vidsch_timers, vidsch_workers;
};

/* Cycles since kcyc_begin, less what vidsch counted itself meanwhile
 * (the kernel's own share of a piece of work). */
struct kcyc {
    uint64_t t0, v0;
};

struct kernel;
void kcyc_begin(const struct kernel *k, struct kcyc *c);
uint64_t kcyc_own(const struct kernel *k, const struct kcyc *c);

/* Before the CPU sleeps (kernel_run): in hardware mode with
 * irq_demand, completion interrupts on while someone waits for the GPU's
 * progress, off otherwise, and the progress read now. True if that made
 * work (do not sleep yet). */
bool kernel_before_idle(struct kernel *k);

struct kernel {
    /* Completion interrupts only while someone waits (hardware mode):
     * set by the boot code; irq_on: what the device has now */
    bool irq_demand, irq_on;
    /* The CPU's cycle counter (the firmware's rdtsc); NULL: scheduling
     * time is not measured (the host). */
    uint64_t (*cycles)(void);
    struct ddi_device dev;
    struct ddi_caps caps;
    struct vidsch *vs;
    struct vidsch_env env;
    struct kevents ev;

    struct vidmm_segment seg;
    struct vidmm_block seg_blocks[KERNEL_SEGMENT_BLOCKS];

    /* vidmm (NULL: every allocation has fixed placement in seg) */
    struct vidmm *vm;
    struct page_pool *pool;
    unsigned copy_engine;
    uint64_t vram_base, vram_size;      /* the whole OS segment ... */
    volatile uint8_t *vram_cpu;         /* ... as the CPU sees it */
    uint64_t vm_vram_size;              /* vidmm's part of it */
    uint64_t vm_aperture_size;          /* the aperture vidmm manages */
    unsigned split_policy;              /* enum kmem_split_policy */
    unsigned dma_placement;             /* KAPI_DMA_*: the default */
    /* pageable DMA buffers freed while a paging buffer still moved
     * them: destroyed once it retired (kmem_paging_done). Only what the
     * paging buffers in flight move can be here, so it never fills */
    uint32_t dma_dying[KDMA_DYING_MAX];
    bool reap_allocs;                   /* some kalloc is dying */
    struct kpaging paging[KERNEL_MAX_PAGING];

    struct ktimer vidsch_timer;
    struct kitem vidsch_work;
    struct kitem reap_work;     /* finished buffers, lost contexts */
    struct kitem deliver_work;  /* satisfied CPU waits and locks */
    struct ktimer lock_timer;   /* the earliest lock wait's deadline */
    bool reap_contexts;         /* some context is destroying */
    bool reap_objects;          /* a device or sync object awaits freeing */
    bool tell_lost;             /* a device was removed: tell its process */
    unsigned nwaits;            /* waits pending in waits[] */

    uint64_t seq;               /* last buffer sequence number */
    uint32_t next_hw_ctx;
    uint8_t next_proc_id;
    uint32_t next_pid;          /* the last kapi_process_id handed out */

    struct kproc procs[KERNEL_MAX_PROCS];
    struct kdevice devices[KERNEL_MAX_DEVICES];
    struct kcontext contexts[KERNEL_MAX_CONTEXTS];
    struct kalloc allocs[KERNEL_MAX_ALLOCS];
    struct ksync syncs[KERNEL_MAX_SYNCS];
    struct kbuffer buffers[KERNEL_MAX_BUFFERS];
    struct kwait waits[KERNEL_MAX_WAITS];
    struct {
        void *obj;              /* NULL if free */
        uint8_t type;           /* HANDLE_ALLOCATION or HANDLE_SYNC */
        uint16_t gen;
        struct kproc *charged;  /* the object's creator (KQ_SHARED) */
    } shared[KERNEL_MAX_SHARED];
    struct kgrant grants[KISOLATE_GRANTS];  /* who may open which name */

    struct kdisplay display;

    /* GPU-VA mode (kgpuva_start); gpuva.on false: not started */
    struct kgpuva gpuva;
    /* scene-based rendering's parameter buffers (kernel/kscene.h) */
    struct kscene scene;
    /* GPU-VA views of other allocations (kernel/kvamap.h) */
    struct kvamap vamaps[KVAMAP_MAX];

    /* A callback the kernel runs synchronously from inside a call (the
     * trim callback, from inside a MakeResident: kernel_internal.h's
     * kcall_check): whose it is and the calls (KCALL_*) it may make;
     * every other call by anyone meanwhile is refused (DDI_EACCESS) */
    struct {
        const struct kproc *proc;   /* NULL: no callback runs */
        unsigned may;
        uint64_t refused;           /* calls refused so (reports) */
    } cb;

    struct kernel_stats stats;
    uint64_t quota_pool[KQ_COUNT];      /* kquota.c */

    /* The scheduler's last KERNEL_TRACE decisions (env->trace), oldest
     * overwritten first: trace_count counts all of them. */
    uint64_t trace_count;
    struct vidsch_trace trace[KERNEL_TRACE];
};

/*
 * Starts the kernel over GPU dev: the scheduler with cfg (its table sizes
 * are the kernel's: KERNEL_MAX_CONTEXTS, KERNEL_SCHED_BUFFERS; its storage
 * from arena), the segment [seg_base, seg_base + seg_size) seen by the
 * CPU at seg_cpu for everything the kernel places in VRAM. vm: NULL for
 * fixed placement; else vidmm over the part of the segment beyond
 * vm->kernel_bytes (its storage from arena too; dev must offer
 * build_paging_buffer). Returns NULL or why not. The driver must then
 * deliver its upcalls to kernel_upcalls with os = k.
 */
const char *kernel_init(struct kernel *k, const struct ddi_device *dev,
                        uint64_t seg_base, uint64_t seg_size,
                        volatile uint8_t *seg_cpu,
                        const struct vidsch_config *cfg,
                        const struct kernel_vidmm_config *vm, void *arena,
                        uint64_t arena_bytes);

/* The upcalls the driver must make (os = the struct kernel *). */
extern const struct ddi_upcalls kernel_upcalls;

/* Bytes of arena kernel_init needs for the scheduler and, with vm,
 * vidmm (8-aligned). */
uint64_t kernel_arena_bytes(const struct kernel_vidmm_config *vm);

/* vidmm's counters (paging buffers, bytes moved, evictions, restores);
 * NULL with fixed placement. */
const struct vidmm_stats *kernel_vidmm_stats(const struct kernel *k);

/* Bytes of VRAM that applications' allocations can use at once (vidmm's
 * part, or the whole fixed segment). */
uint64_t kernel_app_vram_bytes(const struct kernel *k);

/* The kernel's clock: the GPU's (virtual ns). */
uint64_t kernel_now(const struct kernel *k);

/* True when no buffer is in flight and vidsch is idle. */
bool kernel_gpu_idle(const struct kernel *k);

/* The first trace event of kind at or after time since (for reason, when
 * kind is VIDSCH_TRACE_PREEMPT: UINT32_MAX for any), NULL if none is
 * kept. */
const struct vidsch_trace *kernel_trace_find(const struct kernel *k,
                                             enum vidsch_trace_kind kind,
                                             uint64_t since, unsigned reason);

/*
 * Records an event in the GPU's timeline (the DDI's mark: the OS's side
 * of the run, on the GPU's clock, for tools such as tools/copro-trace):
 * kind COPRO_MARK_*, engine or COPRO_MARK_NO_ENGINE, the hardware
 * context, two arguments. Nothing if the GPU has no timeline.
 */
void kernel_mark(struct kernel *k, unsigned kind, unsigned engine,
                 uint32_t context, uint64_t arg0, uint64_t arg1);

/* Starts GPU-VA mode (after kernel_init): kernel/kgpuva.h. NULL or why
 * not. */
const char *kernel_gpuva_start(struct kernel *k,
                               const struct kgpuva_config *cfg);

/* The scheduler's statistics of a context by hardware id (NULL if none). */
const struct vidsch_ctx_stats *kernel_ctx_stats_by_hw(const struct kernel *k,
                                                      uint32_t hw_id);

#endif /* FW_KERNEL_KERNEL_H */
