/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the scheduler has on one engine's ring: its submissions in the
 * order it queued them, and what the engine's fences say about them after
 * it stopped early (PREEMPTED, or an engine reset).
 *
 * The engine reports only two fences besides the preemption request's:
 * COMPLETED_FENCE, the last one retired, and the one it was executing
 * (PREEMPTED_FENCE, or the reset's ABORTED_FENCE; 0 when it stopped
 * between submissions). Everything else follows from the ring order,
 * which only this list remembers: the engine runs its ring in order, so
 * everything up to COMPLETED_FENCE retired, the interrupted one must be
 * the oldest that did not, and the ones after it never started (the
 * engine dropped them). This is the scheduler's copy of the logic of
 * kmd/copro_fences (which the driver-level scenarios use); the scheduler
 * keeps its own so that it depends on the DDI only.
 *
 * Fences grow along the ring: a fresh submission takes a new, larger id;
 * a paging buffer dropped by a stop goes back first with its original id,
 * which is still above COMPLETED_FENCE (WDDM's rule for paging buffers).
 *
 * Pure C; unit-tested on the host (tests/unit/test-vidsch-ring.c).
 */
#ifndef FW_VIDSCH_VIDSCH_RING_H
#define FW_VIDSCH_VIDSCH_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "vidsch/vidsch_list.h"

/* One ring entry, as submitted. Embedded in the scheduler's buffer. */
struct vidsch_sub {
    struct vs_link link;
    uint64_t fence;
    uint32_t flags;         /* COPRO_SUBMIT_* as submitted */
    uint64_t save_addr;     /* its context's save area, 0 if none */
};

struct vidsch_ring {
    struct vs_list subs;    /* oldest (executing) first */
    uint64_t completed;     /* highest COMPLETED_FENCE reported */
};

enum vidsch_fate {
    VIDSCH_FATE_COMPLETED,  /* retired before the engine stopped */
    VIDSCH_FATE_PREEMPTED,  /* interrupted mid-buffer: resume it (RESUME,
                               same save area) */
    VIDSCH_FATE_DROPPED,    /* never started: submit it again */
    VIDSCH_FATE_ABORTED,    /* in execution at an engine reset */
};

enum vidsch_stop_kind {
    VIDSCH_STOP_PREEMPT,    /* PREEMPTED upcall */
    VIDSCH_STOP_RESET,      /* engine reset */
};

const char *vidsch_fate_name(enum vidsch_fate f);

void vidsch_ring_init(struct vidsch_ring *r);

static inline unsigned vidsch_ring_count(const struct vidsch_ring *r)
{
    return r->subs.count;
}

static inline struct vidsch_sub *vidsch_ring_oldest(const struct vidsch_ring *r)
{
    return vs_entry(vs_list_first(&r->subs), struct vidsch_sub, link);
}

/* Appends s. False (and nothing queued) if s->fence is 0, not above
 * COMPLETED_FENCE or not above the last queued fence: the engine could
 * not then report on it unambiguously. */
bool vidsch_ring_push(struct vidsch_ring *r, struct vidsch_sub *s);

/* Removes and returns the oldest submission if its fence is <= completed
 * (it retired), else NULL; remembers completed. Call until NULL. */
struct vidsch_sub *vidsch_ring_retire(struct vidsch_ring *r,
                                      uint64_t completed);

/*
 * Before acting on a stop: NULL if the reported fences fit the list, or
 * why not (a driver or device bug; the caller then resets the engine and
 * resubmits everything as dropped): COMPLETED_FENCE beyond the last
 * queued fence, an interrupted fence that is not the oldest unfinished
 * submission, a preempted paging buffer, a preempted submission without
 * a save area.
 */
const char *vidsch_ring_check_stop(const struct vidsch_ring *r,
                                   enum vidsch_stop_kind kind,
                                   uint64_t completed, uint64_t interrupted);

/* The fate of a queued submission s at a stop. */
enum vidsch_fate vidsch_ring_fate(const struct vidsch_sub *s,
                                  enum vidsch_stop_kind kind,
                                  uint64_t completed, uint64_t interrupted);

/* Removes and returns the oldest submission (after the retired ones are
 * gone, what remains of a stop), or NULL. */
struct vidsch_sub *vidsch_ring_pop(struct vidsch_ring *r);

/* The flags to submit a submission of this fate again with: RESUME added
 * to a preempted one; a dropped one keeps its flags (a dropped RESUME
 * never started, so its save record is still the one to continue from);
 * an aborted one starts over without RESUME. */
uint32_t vidsch_fate_resubmit_flags(const struct vidsch_sub *s,
                                    enum vidsch_fate fate);

#endif /* FW_VIDSCH_VIDSCH_RING_H */
