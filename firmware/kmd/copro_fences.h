/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fence bookkeeping for preemption and engine reset: which of an engine's
 * outstanding submissions completed, which one was interrupted, and which
 * were dropped from the ring and must be resubmitted.
 *
 * When an engine stops early (PREEMPTED, or an engine reset) it reports
 * only two fences besides the request's: COMPLETED_FENCE, the last one
 * retired, and the one it was executing (PREEMPTED_FENCE, or
 * ABORTED_FENCE after a reset; 0 when it stopped between submissions).
 * Everything else is inferred from the order in which the driver queued
 * the submissions, which only this list remembers: the engine executes its
 * ring in order, so every fence up to COMPLETED_FENCE retired, the
 * interrupted one must be the oldest that did not, and the ones after it
 * never started (the engine dropped them from the ring).
 *
 * Pure C, no hardware access: unit-tested on the host
 * (tests/unit/test-copro-fences.c).
 */
#ifndef FW_KMD_COPRO_FENCES_H
#define FW_KMD_COPRO_FENCES_H

#include <stdbool.h>
#include <stdint.h>

/* Outstanding submissions one engine can have: a ring holds at most
 * COPRO_RING_MAX_ENTRIES - 1, but the firmware's rings are small. */
#define COPRO_FENCES_MAX            64

/* What the driver needs to resubmit a submission exactly as it was. */
struct copro_sub {
    uint64_t fence;         /* id it carries on the ring (grows per engine) */
    uint64_t dma_addr;
    uint32_t dma_len;
    uint32_t flags;         /* COPRO_SUBMIT_* as submitted */
    uint32_t context;
    uint64_t save_addr;     /* its context's save area, 0 if none */
    /* The caller's name for the work. A resubmission gets a new fence id,
     * so the tag is what stays the same for it (a frame number, a job). */
    uint64_t tag;
};

/* An engine's outstanding submissions, oldest (lowest fence) first. */
struct copro_fences {
    unsigned count;
    struct copro_sub sub[COPRO_FENCES_MAX];
};

enum copro_fate {
    COPRO_FATE_COMPLETED,   /* retired before the engine stopped */
    COPRO_FATE_PREEMPTED,   /* interrupted by preemption: resubmit it with
                               RESUME and the same save area */
    COPRO_FATE_DROPPED,     /* never started: resubmit it as it was */
    COPRO_FATE_ABORTED,     /* in execution at an engine reset: lost */
};

const char *copro_fate_name(enum copro_fate f);

/* How the engine stopped. */
enum copro_stop_kind {
    COPRO_STOP_PREEMPT,     /* PREEMPTED interrupt */
    COPRO_STOP_RESET,       /* engine reset (CONTROL.RESET) */
};

/* The registers read when it stopped. */
struct copro_stop_regs {
    uint64_t completed;     /* COMPLETED_FENCE */
    /* PREEMPTED_FENCE (preemption) or ABORTED_FENCE (reset); 0 when the
     * engine stopped between submissions */
    uint64_t interrupted;
};

/* Every submission that was outstanding, in the order they were queued,
 * with its fate. */
struct copro_stop_plan {
    unsigned count;
    unsigned completed, preempted, dropped, aborted;
    struct {
        struct copro_sub sub;
        enum copro_fate fate;
    } entry[COPRO_FENCES_MAX];
};

void copro_fences_init(struct copro_fences *f);

/* Appends a submission. False if the list is full or s->fence does not
 * grow (the engine could not then report on it unambiguously). */
bool copro_fences_push(struct copro_fences *f, const struct copro_sub *s);

/* Removes the submissions with fence <= completed (they retired); returns
 * how many. */
unsigned copro_fences_retire(struct copro_fences *f, uint64_t completed);

/* The outstanding submission with this tag, or NULL. */
const struct copro_sub *copro_fences_find_tag(const struct copro_fences *f,
                                              uint64_t tag);

/*
 * Classifies every outstanding submission after the engine stopped, fills
 * plan, and empties the list (whatever is to run again is resubmitted
 * with new fence ids, and pushed again then). Returns NULL, or why the
 * registers cannot describe this list (a driver or device bug; the list
 * is then left as it was): an interrupted fence that is not the oldest
 * unfinished submission, a completed fence beyond the last submitted, a
 * preempted paging buffer, a preempted submission without a save area.
 */
const char *copro_fences_settle(struct copro_fences *f,
                                enum copro_stop_kind kind,
                                const struct copro_stop_regs *regs,
                                struct copro_stop_plan *plan);

/*
 * The flags to resubmit a submission of this fate with: RESUME added for
 * a preempted one; a dropped one keeps its flags (a dropped RESUME never
 * started, so its save record is still the one to continue from).
 */
uint32_t copro_fate_resubmit_flags(const struct copro_sub *s,
                                   enum copro_fate fate);

#endif /* FW_KMD_COPRO_FENCES_H */
