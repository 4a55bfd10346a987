/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "vidsch/vidsch_ring.h"

#include <copro/copro_cmd.h>

const char *vidsch_fate_name(enum vidsch_fate f)
{
    switch (f) {
    case VIDSCH_FATE_COMPLETED: return "completed";
    case VIDSCH_FATE_PREEMPTED: return "preempted";
    case VIDSCH_FATE_DROPPED:   return "dropped";
    case VIDSCH_FATE_ABORTED:   return "aborted";
    }
    return "?";
}

void vidsch_ring_init(struct vidsch_ring *r)
{
    vs_list_init(&r->subs);
    r->completed = 0;
}

bool vidsch_ring_push(struct vidsch_ring *r, struct vidsch_sub *s)
{
    struct vidsch_sub *last = vs_entry(vs_list_last(&r->subs),
                                       struct vidsch_sub, link);

    if (s->fence == 0 || s->fence <= r->completed ||
        (last && s->fence <= last->fence)) {
        return false;
    }
    vs_list_push_back(&r->subs, &s->link);
    return true;
}

struct vidsch_sub *vidsch_ring_retire(struct vidsch_ring *r,
                                      uint64_t completed)
{
    struct vidsch_sub *s = vidsch_ring_oldest(r);

    if (completed > r->completed) {
        r->completed = completed;
    }
    if (!s || s->fence > completed) {
        return NULL;
    }
    vs_list_remove(&r->subs, &s->link);
    return s;
}

struct vidsch_sub *vidsch_ring_pop(struct vidsch_ring *r)
{
    return vs_entry(vs_list_pop_front(&r->subs), struct vidsch_sub, link);
}

const char *vidsch_ring_check_stop(const struct vidsch_ring *r,
                                   enum vidsch_stop_kind kind,
                                   uint64_t completed, uint64_t interrupted)
{
    const struct vidsch_sub *oldest = NULL, *last;

    for (struct vs_link *n = vs_list_first(&r->subs); n;
         n = vs_list_next(&r->subs, n)) {
        const struct vidsch_sub *s = vs_container_of(n, struct vidsch_sub,
                                                     link);

        if (s->fence > completed) {
            oldest = s;
            break;
        }
    }
    last = vs_entry(vs_list_last(&r->subs), struct vidsch_sub, link);
    if (last && completed > last->fence) {
        return "COMPLETED_FENCE is beyond the last submitted fence";
    }
    if (interrupted == 0) {
        return NULL;
    }
    /* in-order execution: only the oldest unfinished one can have run */
    if (!oldest || oldest->fence != interrupted) {
        return "interrupted fence is not the oldest unfinished submission";
    }
    if (kind == VIDSCH_STOP_PREEMPT) {
        if (oldest->flags & COPRO_SUBMIT_PAGING) {
            return "a paging submission was reported preempted";
        }
        if (oldest->save_addr == 0) {
            return "a submission without a save area was preempted";
        }
    }
    return NULL;
}

enum vidsch_fate vidsch_ring_fate(const struct vidsch_sub *s,
                                  enum vidsch_stop_kind kind,
                                  uint64_t completed, uint64_t interrupted)
{
    if (s->fence <= completed) {
        return VIDSCH_FATE_COMPLETED;
    }
    if (interrupted && s->fence == interrupted) {
        return kind == VIDSCH_STOP_PREEMPT ? VIDSCH_FATE_PREEMPTED
                                           : VIDSCH_FATE_ABORTED;
    }
    return VIDSCH_FATE_DROPPED;
}

uint32_t vidsch_fate_resubmit_flags(const struct vidsch_sub *s,
                                    enum vidsch_fate fate)
{
    switch (fate) {
    case VIDSCH_FATE_PREEMPTED:
        return s->flags | COPRO_SUBMIT_RESUME;
    case VIDSCH_FATE_ABORTED:
        return s->flags & ~COPRO_SUBMIT_RESUME;
    default:
        return s->flags;
    }
}
