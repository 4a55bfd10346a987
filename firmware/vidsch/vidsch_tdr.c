/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "vidsch/vidsch_tdr.h"

static void restart(struct vidsch_tdr *t, uint64_t now, uint64_t completed)
{
    t->state = VIDSCH_TDR_WATCHING;
    t->last_completed = completed;
    t->progress_at = now;
}

void vidsch_tdr_init(struct vidsch_tdr *t,
                     const struct vidsch_tdr_config *cfg, uint64_t now,
                     uint64_t completed)
{
    *t = (struct vidsch_tdr){ .cfg = *cfg };
    restart(t, now, completed);
}

void vidsch_tdr_submitted(struct vidsch_tdr *t, uint64_t now)
{
    if (!t->busy) {
        t->busy = true;
        t->progress_at = now;
    }
}

enum vidsch_tdr_action vidsch_tdr_check(struct vidsch_tdr *t, uint64_t now,
                                        uint64_t completed, bool outstanding)
{
    bool was_busy = t->busy;

    t->busy = outstanding;
    if (t->state == VIDSCH_TDR_HUNG) {
        return VIDSCH_TDR_NONE;     /* waiting for the reset */
    }
    if (!outstanding) {
        restart(t, now, completed);
        return VIDSCH_TDR_NONE;
    }
    if (!was_busy) {
        /* Work appeared without vidsch_tdr_submitted(): count from now
         * rather than from the last idle tick. */
        restart(t, now, completed);
        return VIDSCH_TDR_NONE;
    }
    if (t->state == VIDSCH_TDR_WATCHING) {
        if (completed != t->last_completed) {
            t->last_completed = completed;
            t->progress_at = now;
            return VIDSCH_TDR_NONE;
        }
        if (now - t->progress_at >= t->cfg.timeout_ns) {
            t->state = VIDSCH_TDR_PREEMPTING;
            t->timed_out_at = now;
            return VIDSCH_TDR_PREEMPT;
        }
        return VIDSCH_TDR_NONE;
    }
    /* PREEMPTING: a completion does not help, only the preemption does
     * (the caller reports it through vidsch_tdr_preempted). */
    if (now - t->timed_out_at >= t->cfg.grace_ns) {
        t->state = VIDSCH_TDR_HUNG;
        t->hung_at = now;
        return VIDSCH_TDR_RESET;
    }
    return VIDSCH_TDR_NONE;
}

void vidsch_tdr_preempted(struct vidsch_tdr *t, uint64_t now,
                          uint64_t completed)
{
    restart(t, now, completed);
}

void vidsch_tdr_reset_done(struct vidsch_tdr *t, uint64_t now,
                           uint64_t completed)
{
    restart(t, now, completed);
}

uint64_t vidsch_tdr_deadline(const struct vidsch_tdr *t)
{
    if (!t->busy) {
        return UINT64_MAX;
    }
    switch (t->state) {
    case VIDSCH_TDR_WATCHING:
        return t->progress_at + t->cfg.timeout_ns;
    case VIDSCH_TDR_PREEMPTING:
        return t->timed_out_at + t->cfg.grace_ns;
    default:
        return UINT64_MAX;
    }
}
