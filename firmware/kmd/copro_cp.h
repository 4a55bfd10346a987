/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro kernel-mode driver, command-processor part: per-engine rings,
 * submission, the deferred half of interrupt processing (a DPC), waiting
 * for fences, and engine reset.
 *
 * Division of labour, as in a WDDM miniport:
 *  - the ISR (copro_irq.c) only reads INT_STATUS, acknowledges the causes
 *    of its vector and ORs them into dev->irq.pending;
 *  - copro_cp_dpc() turns those causes into driver state: it retires
 *    fences from COMPLETED_FENCE and latches fault records. It runs with
 *    interrupts disabled, from a wait loop (the firmware's DPC level).
 *
 * The pure logic (ring arithmetic, descriptors, fault kinds, packets,
 * VRAM allocation) lives in copro_ring, copro_dmabuf and copro_vram.
 */
#ifndef FW_KMD_COPRO_CP_H
#define FW_KMD_COPRO_CP_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include <copro/copro_tiler.h>

#include "kmd/copro.h"
#include "kmd/copro_dmabuf.h"
#include "kmd/copro_ring.h"
#include "kmd/copro_vram.h"

/* Per-engine causes the driver enables and handles. */
#define COPRO_CP_INT_CAUSES     (COPRO_INT_DMA_DONE | COPRO_INT_USER | \
                                 COPRO_INT_FENCE | COPRO_INT_PREEMPTED | \
                                 COPRO_INT_FAULT | COPRO_INT_ERROR | \
                                 COPRO_INT_TILER_OOM)
/* bits of COPRO_INT_ENGINE_ALL, and the tiler's TILER_OOM (bit 6) */
#define COPRO_CP_CAUSE_BITS     7
#define COPRO_CP_ENGINE_CAUSES  (COPRO_INT_ENGINE_ALL | COPRO_INT_TILER_OOM)

struct copro_engine {
    unsigned index;

    /* Ring: the driver owns tail, the engine owns head. */
    uint64_t ring_gpu;
    volatile struct copro_submit_desc *ring;    /* CPU view via BAR2 */
    uint32_t ring_entries;
    uint32_t tail;

    /* Fence write-back slot: the engine stores each retired fence here. */
    uint64_t fence_wb_gpu;
    volatile uint64_t *fence_wb;

    /* Fence ids are per engine, start at 1 (0 means "none" in the
     * registers) and only grow, so "fence f is done" is completed >= f. */
    uint64_t last_submitted;
    uint64_t completed;         /* highest retired, from COMPLETED_FENCE */
    uint64_t lost_through;      /* fences in (completed, lost_through]
                                   were dropped by an engine reset */

    /* Set by the DPC on FAULT/ERROR; cleared by copro_cp_engine_reset. */
    bool halted;
    struct copro_fault fault;
    unsigned faults;

    /* Latched by the DPC at each PREEMPTED cause: the engine is idle
     * then and the driver has not submitted since it asked, so the three
     * fences describe the stop exactly (copro_preempt.c interprets them). */
    struct {
        unsigned count;             /* PREEMPTED causes seen */
        uint64_t preempt_fence;     /* PREEMPT_FENCE: the request's id */
        uint64_t preempted_fence;   /* PREEMPTED_FENCE, 0 if between */
        uint64_t completed_fence;   /* COMPLETED_FENCE at that moment */
    } preempt;

    /* Latched by the DPC at each TILER_OOM cause (the engine is idle,
     * its ring's unfetched entries dropped, as after a preemption, and
     * it holds: nothing written to the ring runs until the stop is
     * acknowledged, copro_cp_tiler_ack). */
    struct {
        unsigned count;             /* TILER_OOM causes seen */
        uint64_t fence;             /* TILER_OOM_FENCE: the stopped one */
        uint32_t need;              /* TILER_OOM_NEED */
        uint64_t completed_fence;   /* COMPLETED_FENCE at that moment */
        bool held;                  /* not acknowledged (nor reset) yet */
    } oom;

    uint32_t user_data;         /* USER_DATA at the last USER cause */
    unsigned irq_causes[COPRO_CP_CAUSE_BITS];  /* per cause bit */
};

struct copro_cp {
    struct copro *dev;
    struct copro_vram_heap vram;
    unsigned num_engines;
    struct copro_engine eng[COPRO_MAX_ENGINES];
};

/*
 * Allocates a ring of ring_entries descriptors and a fence write-back
 * slot per engine, programs RING_BASE/RING_SIZE/FENCE_WB, clears stale
 * causes and enables COPRO_CP_INT_CAUSES for every engine. Interrupt
 * delivery (copro_irq_setup) must already be set up. Returns NULL or why
 * it failed.
 */
const char *copro_cp_init(struct copro_cp *cp, struct copro *dev,
                          uint32_t ring_entries);

/*
 * Allocates VRAM for the caller: *gpu receives the GPU address and the
 * return value is the CPU pointer to the same bytes (NULL if out of
 * VRAM).
 */
void *copro_cp_alloc(struct copro_cp *cp, uint64_t size, uint64_t align,
                     uint64_t *gpu);

/* Allocates a DMA buffer of size bytes and starts b over it. */
bool copro_cp_dmabuf_alloc(struct copro_cp *cp, struct copro_dmabuf *b,
                           uint32_t size);

static inline volatile uint8_t *copro_cp_cpu_ptr(const struct copro_cp *cp,
                                                 uint64_t gpu)
{
    return cp->dev->vram + gpu;
}

/*
 * Queues buf (NULL: an empty submission that only signals its fence) on
 * engine e and rings the doorbell. Returns the submission's fence id, or
 * 0 if the ring is full (entries - 1 outstanding) or buf is unusable.
 */
uint64_t copro_cp_submit(struct copro_cp *cp, unsigned e,
                         const struct copro_dmabuf *buf, uint32_t context,
                         uint32_t flags);

/*
 * Queues descriptor d as it is (its fence id is the caller's: the OS's
 * scheduler numbers submissions through the DDI) on engine e and rings
 * the doorbell. False if the ring is full or e does not exist.
 * last_submitted follows the highest fence queued.
 */
bool copro_cp_submit_desc(struct copro_cp *cp, unsigned e,
                          const struct copro_submit_desc *d);

/*
 * As copro_cp_submit, for a buffer given by address and length, with a
 * context save area (COPRO_SUBMIT_RESUME continues from it; a preemption
 * writes it). Used to resubmit what a preemption or reset left over.
 */
uint64_t copro_cp_submit_save(struct copro_cp *cp, unsigned e,
                              uint64_t dma_addr, uint32_t dma_len,
                              uint32_t context, uint32_t flags,
                              uint64_t save_addr);

/*
 * The deferred half of interrupt processing. Must run with interrupts
 * disabled (the ISR writes dev->irq.pending). Returns the causes it
 * processed.
 */
uint64_t copro_cp_dpc(struct copro_cp *cp);

enum copro_wait_result {
    COPRO_WAIT_DONE,        /* the fence retired */
    COPRO_WAIT_FAULT,       /* the engine halted before it retired */
    COPRO_WAIT_ABORTED,     /* an engine reset dropped it */
    COPRO_WAIT_TIMEOUT,
};

const char *copro_wait_result_name(enum copro_wait_result r);

/*
 * Waits (halting between interrupts, running the DPC after each) until
 * fence on engine e retired, the engine faulted, or timeout_ns passed.
 * Completion is only noticed through interrupts, so a lost interrupt
 * shows as a timeout. *waited_ns (optional) gets the time spent.
 */
enum copro_wait_result copro_cp_wait_fence(struct copro_cp *cp, unsigned e,
                                           uint64_t fence,
                                           uint64_t timeout_ns,
                                           uint64_t *waited_ns);

/* What an engine reset reported. */
struct copro_reset_report {
    uint64_t aborted_fence;     /* ABORTED_FENCE: in execution, 0 if none */
    uint64_t completed_fence;   /* COMPLETED_FENCE after the reset */
    uint32_t state;             /* STATE after the reset */
};

/*
 * Resets engine e (CONTROL.RESET): the engine aborts its submission and
 * drops the queued ones. The DPC runs first, so a fault that is pending
 * is recorded before the reset clears the registers; then every fence
 * submitted so far and not retired is marked lost and the engine's
 * fault record is cleared (the caller keeps a copy if it needs one).
 */
void copro_cp_engine_reset(struct copro_cp *cp, unsigned e,
                           struct copro_reset_report *rep);

/*
 * Resumes engine e after a memory fault (CONTROL.RETRY) once the driver
 * has fixed the mapping and invalidated: the engine restarts the step
 * that faulted, and its submissions stay queued. The DPC runs first so a
 * pending fault is recorded; the fault record is then cleared. Returns
 * false (and does nothing) unless the recorded fault is a memory fault,
 * the only kind the device retries.
 */
bool copro_cp_engine_retry(struct copro_cp *cp, unsigned e);

/*
 * Acknowledges engine e's TILER_OOM stop (CONTROL.TILER_ACK) if one is
 * held: the engine drops what was written to its ring since the stop and
 * fetches again. The caller has handed every unretired submission of the
 * engine back to the OS, which resubmits them after this call (anything
 * written before it is dropped). Nothing if no stop is held (an engine
 * reset ended it, or it was acknowledged already).
 */
void copro_cp_tiler_ack(struct copro_cp *cp, unsigned e);

/*
 * Moves engine e's ring and fence write-back slot to new GPU memory (in
 * the aperture, say): ring_cpu/ring_gpu for ring_entries descriptors
 * (64-byte aligned GPU address), wb_cpu/wb_gpu for the 8-byte slot. The
 * engine must be idle with nothing outstanding. Fence ids continue where
 * they were. Returns NULL or why not.
 */
const char *copro_cp_ring_move(struct copro_cp *cp, unsigned e,
                               volatile struct copro_submit_desc *ring_cpu,
                               uint64_t ring_gpu, uint32_t ring_entries,
                               volatile uint64_t *wb_cpu, uint64_t wb_gpu);

static inline unsigned copro_cp_cause_count(const struct copro_engine *eng,
                                            uint32_t cause)
{
    for (unsigned bit = 0; bit < COPRO_CP_CAUSE_BITS; bit++) {
        if (cause == (1u << bit)) {
            return eng->irq_causes[bit];
        }
    }
    return 0;
}

#endif /* FW_KMD_COPRO_CP_H */
