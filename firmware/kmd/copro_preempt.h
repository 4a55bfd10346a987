/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro kernel-mode driver, preemption and recovery: contexts with save
 * areas, per-engine tracking of outstanding submissions, the preemption
 * request, and turning PREEMPTED (or an engine reset) into a plan of what
 * to resume, resubmit or give up.
 *
 * The hardware half of WDDM's preemption path. Which submissions a stop
 * completed, interrupted or dropped is decided by the pure copro_fences
 * module; the DPC (copro_cp.c) latches PREEMPT_FENCE, PREEMPTED_FENCE and
 * COMPLETED_FENCE when the PREEMPTED cause arrives; this module asks for
 * preemption and acts on the outcome. Policy (when to preempt, what runs
 * next) belongs to the caller: the scheduler or a scenario.
 *
 * Fence ids: every submission, including a resubmission, takes a new
 * fence id (as WDDM gives resubmitted render buffers new ids); the
 * caller's tag in struct copro_sub follows the work across them. Fences
 * a stop left unfinished are marked lost in the copro_cp engine, so a
 * copro_cp_wait_fence() on one returns ABORTED instead of hanging.
 * Preemption request ids are a separate sequence (PREEMPT_FENCE only
 * echoes them back).
 */
#ifndef FW_KMD_COPRO_PREEMPT_H
#define FW_KMD_COPRO_PREEMPT_H

#include <stdbool.h>
#include <stdint.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_fences.h"

/* A GPU context as the driver sees it. */
struct copro_context {
    uint32_t id;            /* the descriptors' context field */
    unsigned priority;      /* higher is more urgent (caller's policy) */
    /* Set when the context caused an engine reset (its submission was
     * aborted). The driver refuses its submissions from then on, as a
     * WDDM driver's context is put in the error state ("device lost"). */
    bool lost;
    uint64_t save_gpu;      /* its COPRO_SAVE_SIZE save area in VRAM */
};

/* Allocates the context's save area. NULL or why it failed. */
const char *copro_context_init(struct copro_cp *cp, struct copro_context *ctx,
                               uint32_t id, unsigned priority);

/* Preemption and recovery state of one engine. */
struct copro_preempt {
    struct copro_cp *cp;
    unsigned engine;
    struct copro_fences outstanding;    /* submitted, not known retired */
    uint64_t last_request;      /* last preemption request id used */
    uint64_t pending;           /* request in flight, 0 if none */
    unsigned seen;              /* DPC's PREEMPTED count at the request */
    uint64_t requested_at;      /* GPU_TIME when it was made */
    uint64_t done_at;           /* GPU_TIME when settle() saw it done */
    /* counters, for metrics */
    unsigned requests;          /* preemptions requested */
    unsigned interrupted;       /* ... that stopped a submission midway */
    unsigned resumed;           /* submissions resubmitted with RESUME */
    unsigned resubmitted;       /* dropped submissions submitted again */
};

void copro_preempt_init(struct copro_preempt *p, struct copro_cp *cp,
                        unsigned engine);

/* The device clock (GPU_TIME, virtual ns): the time base of TIMESTAMP. */
uint64_t copro_gpu_time(struct copro_cp *cp);

/*
 * Submits dma_len bytes at dma_addr for ctx on this engine with ctx's
 * save area, and tracks it under tag. Returns the fence id, or 0 if the
 * context is lost, a preemption request is in flight (the engine would
 * drop the entry at once), or the ring or the tracking list is full.
 */
uint64_t copro_preempt_submit(struct copro_preempt *p,
                              const struct copro_context *ctx,
                              uint64_t dma_addr, uint32_t dma_len,
                              uint32_t flags, uint64_t tag);

static inline uint64_t copro_preempt_submit_buf(struct copro_preempt *p,
                                                const struct copro_context *c,
                                                const struct copro_dmabuf *b,
                                                uint32_t flags, uint64_t tag)
{
    if (!copro_dmabuf_ok(b)) {
        return 0;
    }
    return copro_preempt_submit(p, c, b->gpu_addr, copro_dmabuf_bytes(b),
                                flags, tag);
}

/* Drops the tracked submissions the DPC saw retire; returns how many. */
unsigned copro_preempt_retire(struct copro_preempt *p);

/* The tracked submission with this tag, or NULL (retired or never). */
static inline const struct copro_sub *
copro_preempt_find(const struct copro_preempt *p, uint64_t tag)
{
    return copro_fences_find_tag(&p->outstanding, tag);
}

/*
 * Requests preemption (PREEMPT_REQ with a new request id) and returns the
 * id. A request while one is in flight replaces it (the device keeps the
 * latency from the first); submissions are refused until it is settled.
 */
uint64_t copro_preempt_request(struct copro_preempt *p);

/* The request in flight completed (the DPC saw PREEMPTED with its id). */
bool copro_preempt_done(const struct copro_preempt *p);

/*
 * After copro_preempt_done(): classifies the tracked submissions from the
 * latched fences into plan and forgets them (resubmit what should run
 * again with copro_preempt_resubmit). NULL or why the fences did not make
 * sense (then nothing is changed but the request is closed).
 */
const char *copro_preempt_settle(struct copro_preempt *p,
                                 struct copro_stop_plan *plan);

/*
 * Engine reset (TDR): resets the engine, classifies the tracked
 * submissions (the one it was executing is ABORTED, the rest that had not
 * retired DROPPED) and forgets them. Cancels a request in flight. rep
 * receives what the engine reported.
 */
const char *copro_preempt_reset(struct copro_preempt *p,
                                struct copro_stop_plan *plan,
                                struct copro_reset_report *rep);

/*
 * Submits again, in their original order, the plan's PREEMPTED (with
 * RESUME and the same save area) and DROPPED (as they were) entries,
 * except those of context skip_context (pass a context id no submission
 * uses to skip none). Returns how many were resubmitted; *err (optional)
 * gets NULL or why one could not be (e.g. the ring was full).
 */
unsigned copro_preempt_resubmit(struct copro_preempt *p,
                                const struct copro_stop_plan *plan,
                                uint32_t skip_context, const char **err);

#endif /* FW_KMD_COPRO_PREEMPT_H */
