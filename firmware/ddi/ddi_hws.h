/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DDI's hardware-scheduling half [WDDM 2.7 HwQueues, HwSchEnabled;
 * AMD MES's mapped queues and run list]: optional (ddi_ops.hws NULL: the
 * GPU has no scheduler of its own, the OS decides every switch).
 *
 * With it the OS gives each context a hardware queue (a ring of ordinary
 * submissions the device fetches by itself) and lists an engine's queues
 * with their band, quantum and per-frame budget in a run list; the device
 * then makes every switch. The OS keeps the policy: which queues are
 * listed, in which band, with which quantum and budget; what may run at
 * all (a queue is listed suspended while vidmm moves its memory).
 *
 * Completions come back per queue (queue_progress) from the driver's DPC
 * after any interrupt, not only a completion one: a queue created without
 * completion_irq is reaped at the next interrupt of any kind (at the
 * latest the next vsync's SCHED_LOG). The device's own decisions come
 * back as its scheduling log (sched_log), read at every vsync.
 *
 * Pure C, no hardware: included on the host too.
 */
#ifndef FW_DDI_DDI_HWS_H
#define FW_DDI_DDI_HWS_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_hwsched.h>

#include "ddi/ddi.h"

#define DDI_HWS_NO_QUEUE        COPRO_HWQ_NONE

/* [D3DKMT_CREATEHWQUEUE; MES: an MQD] */
struct ddi_hwq_args {
    unsigned engine;
    uint32_t context;           /* every submission's context id */
    uint64_t save_addr;         /* COPRO_SAVE_SIZE bytes; 0: the driver
                                   gives one (queues never preempted
                                   mid-buffer: paging) */
    bool completion_irq;        /* interrupt when a submission completes */
};

/* One run-list entry [MES: ADD_QUEUE's priority level and quantum]. */
struct ddi_runlist_entry {
    uint32_t queue;             /* from queue_create */
    unsigned band;              /* COPRO_BAND_* */
    uint32_t quantum_ns;        /* COPRO_HWS_QUANTUM_MIN_NS .. MAX */
    uint32_t budget_ns;         /* GPU time per frame; 0: none */
    bool suspended;             /* keep its state, do not run it */
};

/* One queue's progress (queue_progress): every submission with fence <=
 * completed retired. */
struct ddi_hwq_progress {
    uint32_t queue;
    uint64_t completed;
};

/* Why a queue stopped (queue_error). */
struct ddi_hwq_error {
    uint32_t error;             /* COPRO_HWS_ERR_* */
    uint32_t fault;             /* COPRO_FAULT_* for QUEUE_FAULT */
    uint64_t error_fence;       /* the submission that faulted or was
                                   reset (not retired); 0: none */
    uint64_t completed;         /* last retired before it */
};

/* A queue stopped on a full parameter buffer (queue_oom) [Mali CSF's
 * tiler-heap OOM event; PowerVR's free-list grow request]. */
struct ddi_hwq_oom {
    uint64_t scene;             /* the parameter buffer (GPU VA) */
    uint32_t need;              /* bytes its next primitive needs */
    uint64_t oom_fence;         /* the stopped submission (at the queue's
                                   head, saved in its save area) */
    uint64_t completed;         /* last retired before it */
};

struct ddi_hws_ops {
    /* Creates a queue (not on any run list yet): DDI_OK and *queue, or
     * DDI_ENOMEM when every slot is taken. */
    int (*queue_create)(void *drv, const struct ddi_hwq_args *a,
                        uint32_t *queue);
    /* Forgets a queue that no active or pending run list names. */
    void (*queue_destroy)(void *drv, uint32_t queue);
    /* Appends one submission (args->fence: the queue's own, increasing)
     * to the queue's ring and rings its doorbell. DDI_EBUSY when the ring
     * is full, DDI_EINVAL for a queue in error or unknown. */
    int (*queue_submit)(void *drv, uint32_t queue,
                        const struct ddi_submit_args *args);
    /* Replaces the engine's run list (n 0: none; the engine goes back to
     * its kernel ring). DDI_EINVAL if the device refuses it (then the
     * active list stays). */
    int (*runlist_commit)(void *drv, unsigned engine,
                          const struct ddi_runlist_entry *e, unsigned n);
    /* Device-wide settings: the permille of a frame the NORMAL band
     * yields to IDLE (starvation protection), and the preemption timeout
     * after which the device resets a queue (device-side TDR). */
    void (*configure)(void *drv, uint32_t low_share, uint64_t timeout_ns);
    /* The vsync period, ns (frames and budgets are counted in it). */
    uint64_t (*frame_ns)(void *drv);
    /*
     * (optional, both or neither) Completion interrupts on demand
     * [i915's breadcrumbs]. completion_irq(on): the engines' DMA_DONE
     * (queues created with completion_irq) interrupts the CPU (on) or not
     * (off: the device still latches the cause; a latched one is dropped
     * when turned on: the caller polls right after, which sees it).
     * poll: reads the queues' progress and errors now, as the DPC does,
     * with the same upcalls (never from inside one); true if a queue
     * moved or went to error. The classic race is the caller's: turn on,
     * then poll, then sleep.
     */
    void (*completion_irq)(void *drv, bool on);
    bool (*poll)(void *drv);
    /* The answer to a queue_oom: resume (the parameter buffer grew: the
     * stopped submission resumes from its save area) or not (the queue
     * goes to ERROR, reported by queue_error with COPRO_HWS_ERR_TILER_OOM).
     * DDI_EINVAL when the queue is not waiting for an answer. */
    int (*queue_oom_answer)(void *drv, uint32_t queue, bool resume);
};

/*
 * Upcalls (struct ddi_upcalls, from the DPC):
 *   queue_progress(p, n): for each of the n queues, every submission with
 *     fence <= completed retired (all the queues that moved, in one call:
 *     one round of decisions per interrupt, not one per queue).
 *   queue_error(queue, err): the queue is in ERROR and runs no more (the
 *     device's TDR or a fault); the others go on.
 *   queue_oom(queue, oom): the queue stopped its geometry on a full
 *     parameter buffer and waits (COPRO_HWQ_STATE_OOM_WAIT: off the
 *     engine, the others run); answer with queue_oom_answer, from the
 *     upcall or later. Reported once per stop.
 *   sched_log(entries, n, dropped): the device's scheduling log since the
 *     last call, in order, already checked by the driver (kinds and queue
 *     slots in range; anything else was dropped and counted); FRAME
 *     entries carry each queue's GPU time in the frame that ended.
 */

#endif /* FW_DDI_DDI_HWS_H */
