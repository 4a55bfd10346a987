/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_fences.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

const char *copro_fate_name(enum copro_fate f)
{
    switch (f) {
    case COPRO_FATE_COMPLETED: return "completed";
    case COPRO_FATE_PREEMPTED: return "preempted";
    case COPRO_FATE_DROPPED:   return "dropped";
    case COPRO_FATE_ABORTED:   return "aborted";
    }
    return "?";
}

void copro_fences_init(struct copro_fences *f)
{
    f->count = 0;
}

bool copro_fences_push(struct copro_fences *f, const struct copro_sub *s)
{
    if (f->count == COPRO_FENCES_MAX || s->fence == 0 ||
        (f->count && s->fence <= f->sub[f->count - 1].fence)) {
        return false;
    }
    f->sub[f->count++] = *s;
    return true;
}

unsigned copro_fences_retire(struct copro_fences *f, uint64_t completed)
{
    unsigned n = 0;

    while (n < f->count && f->sub[n].fence <= completed) {
        n++;
    }
    for (unsigned i = n; i < f->count; i++) {
        f->sub[i - n] = f->sub[i];
    }
    f->count -= n;
    return n;
}

const struct copro_sub *copro_fences_find_tag(const struct copro_fences *f,
                                              uint64_t tag)
{
    for (unsigned i = 0; i < f->count; i++) {
        if (f->sub[i].tag == tag) {
            return &f->sub[i];
        }
    }
    return NULL;
}

static enum copro_fate fate_of(const struct copro_sub *s,
                               enum copro_stop_kind kind,
                               const struct copro_stop_regs *regs)
{
    if (s->fence <= regs->completed) {
        return COPRO_FATE_COMPLETED;
    }
    if (s->fence == regs->interrupted) {
        return kind == COPRO_STOP_PREEMPT ? COPRO_FATE_PREEMPTED
                                          : COPRO_FATE_ABORTED;
    }
    return COPRO_FATE_DROPPED;
}

/* Checks that the registers fit the list before anything is changed. */
static const char *check_regs(const struct copro_fences *f,
                              enum copro_stop_kind kind,
                              const struct copro_stop_regs *regs)
{
    const struct copro_sub *oldest = NULL;

    for (unsigned i = 0; i < f->count; i++) {
        if (f->sub[i].fence > regs->completed) {
            oldest = &f->sub[i];
            break;
        }
    }
    if (f->count && regs->completed > f->sub[f->count - 1].fence) {
        return "COMPLETED_FENCE is beyond the last submitted fence";
    }
    if (regs->interrupted == 0) {
        return NULL;
    }
    /* In-order execution: only the oldest unfinished one can have been
     * running. */
    if (!oldest || oldest->fence != regs->interrupted) {
        return "interrupted fence is not the oldest unfinished submission";
    }
    if (kind == COPRO_STOP_PREEMPT) {
        if (oldest->flags & COPRO_SUBMIT_PAGING) {
            return "a paging submission was reported preempted";
        }
        if (oldest->save_addr == 0) {
            return "a submission without a save area was preempted";
        }
    }
    return NULL;
}

const char *copro_fences_settle(struct copro_fences *f,
                                enum copro_stop_kind kind,
                                const struct copro_stop_regs *regs,
                                struct copro_stop_plan *plan)
{
    const char *err = check_regs(f, kind, regs);

    if (err) {
        return err;
    }
    *plan = (struct copro_stop_plan){ .count = f->count };
    for (unsigned i = 0; i < f->count; i++) {
        enum copro_fate fate = fate_of(&f->sub[i], kind, regs);

        plan->entry[i].sub = f->sub[i];
        plan->entry[i].fate = fate;
        switch (fate) {
        case COPRO_FATE_COMPLETED: plan->completed++; break;
        case COPRO_FATE_PREEMPTED: plan->preempted++; break;
        case COPRO_FATE_DROPPED:   plan->dropped++;   break;
        case COPRO_FATE_ABORTED:   plan->aborted++;   break;
        }
    }
    f->count = 0;
    return NULL;
}

uint32_t copro_fate_resubmit_flags(const struct copro_sub *s,
                                   enum copro_fate fate)
{
    if (fate == COPRO_FATE_PREEMPTED) {
        return s->flags | COPRO_SUBMIT_RESUME;
    }
    return s->flags;
}
