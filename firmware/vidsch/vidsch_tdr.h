/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduler's timeout detection (the decision half of TDR) for one
 * engine: a watchdog fed with the time and the engine's COMPLETED_FENCE
 * at each tick (the caller drives it from the LAPIC timer, or arms a one-shot
 * timer at vidsch_tdr_deadline()).
 *
 * As in WDDM: when the engine has had work outstanding and retired
 * nothing for timeout_ns, the scheduler first asks it to preempt (a
 * long-running but healthy buffer gives the engine up at its next
 * arbitration point, and is resumed later); if the request is not honoured
 * within grace_ns the engine is declared hung and must be reset. A hung
 * engine (INJECT HANG) ignores preemption, so it always ends in RESET.
 *
 * Pure C, no hardware access: unit-tested on the host
 * (tests/unit/test-vidsch-tdr.c).
 */
#ifndef FW_VIDSCH_VIDSCH_TDR_H
#define FW_VIDSCH_VIDSCH_TDR_H

#include <stdbool.h>
#include <stdint.h>

struct vidsch_tdr_config {
    uint64_t timeout_ns;    /* no progress for this long: preempt */
    uint64_t grace_ns;      /* preemption not done after this: reset */
};

enum vidsch_tdr_state {
    VIDSCH_TDR_WATCHING,    /* idle, or progressing */
    VIDSCH_TDR_PREEMPTING,  /* timed out, preemption requested */
    VIDSCH_TDR_HUNG,        /* grace expired: reset it */
};

enum vidsch_tdr_action {
    VIDSCH_TDR_NONE,
    VIDSCH_TDR_PREEMPT,     /* request preemption now */
    VIDSCH_TDR_RESET,       /* reset the engine now */
};

struct vidsch_tdr {
    struct vidsch_tdr_config cfg;
    enum vidsch_tdr_state state;
    bool busy;                  /* work outstanding at the last look */
    uint64_t last_completed;    /* COMPLETED_FENCE at the last progress */
    uint64_t progress_at;       /* when it last progressed (or got work) */
    uint64_t timed_out_at;      /* when the timeout fired */
    uint64_t hung_at;           /* when it was declared hung */
};

void vidsch_tdr_init(struct vidsch_tdr *t,
                     const struct vidsch_tdr_config *cfg, uint64_t now,
                     uint64_t completed);

/* Work was queued at time now: an idle engine's clock starts here. */
void vidsch_tdr_submitted(struct vidsch_tdr *t, uint64_t now);

/*
 * One watchdog tick. outstanding: submissions queued and not retired.
 * Returns what the caller must do; PREEMPT and RESET are returned once,
 * on the tick where the state changes.
 */
enum vidsch_tdr_action vidsch_tdr_check(struct vidsch_tdr *t, uint64_t now,
                                        uint64_t completed,
                                        bool outstanding);

/* The preemption requested for the timeout completed: the engine is
 * responsive after all; watching starts again from now. */
void vidsch_tdr_preempted(struct vidsch_tdr *t, uint64_t now,
                          uint64_t completed);

/* The engine was reset; watching starts again from now. */
void vidsch_tdr_reset_done(struct vidsch_tdr *t, uint64_t now,
                           uint64_t completed);

/*
 * The earliest time at which vidsch_tdr_check() may return an action, so
 * that the caller can arm a one-shot timer rather than tick: UINT64_MAX
 * while idle (at the last check) or already hung.
 */
uint64_t vidsch_tdr_deadline(const struct vidsch_tdr *t);

#endif /* FW_VIDSCH_VIDSCH_TDR_H */
