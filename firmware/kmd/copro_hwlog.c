/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduling log and the progress fences, checked: see copro_hwlog.h.
 */
#include "kmd/copro_hwlog.h"

bool copro_hwlog_entry_ok(const struct copro_sched_log_entry *e,
                          const struct copro_hwlog_view *v)
{
    if (e->kind < COPRO_SLOG_SWITCH_IN || e->kind > COPRO_SLOG_OOM_ANSWER ||
        e->band >= COPRO_BANDS ||
        (e->engine != 0xff && e->engine >= v->engines)) {
        return false;
    }
    if (e->queue == COPRO_HWQ_NONE) {
        /* only RUNLIST (and a device-wide ERROR) concern no queue */
        return e->kind == COPRO_SLOG_RUNLIST || e->kind == COPRO_SLOG_ERROR;
    }
    return e->queue < COPRO_HWQ_MAX && ((v->mapped >> e->queue) & 1);
}

unsigned copro_hwlog_take(const volatile struct copro_sched_log_entry *ring,
                          uint32_t size, uint32_t *rptr, uint32_t wptr,
                          const struct copro_hwlog_view *v,
                          struct copro_sched_log_entry *out, unsigned max,
                          struct copro_hwlog_stats *st)
{
    unsigned n = 0;

    if (!ring || !size || (size & (size - 1))) {
        *rptr = wptr;
        return 0;
    }
    if (wptr - *rptr > size) {
        st->overrun += wptr - *rptr - size;
        *rptr = wptr - size;
    }
    while (*rptr != wptr && n < max) {
        struct copro_sched_log_entry e;
        const volatile struct copro_sched_log_entry *src =
            &ring[*rptr & (size - 1)];

        /* one copy, then judged: the device may rewrite it meanwhile */
        e.time_ns = src->time_ns;
        e.kind = src->kind;
        e.engine = src->engine;
        e.band = src->band;
        e.queue = src->queue;
        e.arg0 = src->arg0;
        e.arg1 = src->arg1;
        (*rptr)++;
        if (!copro_hwlog_entry_ok(&e, v)) {
            st->bad++;
            continue;
        }
        out[n++] = e;
        st->taken++;
    }
    return n;
}

uint64_t copro_hwlog_progress(uint64_t written, uint64_t reported,
                              uint64_t submitted)
{
    return written > reported && written <= submitted ? written : 0;
}
