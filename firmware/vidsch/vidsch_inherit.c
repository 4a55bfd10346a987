/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Priority inheritance through sync objects. A context held on a wait
 * (its next buffer waits for a monitored fence to reach a value) lends
 * its level to every context that has a GPU signal of that fence pending
 * with a value that satisfies the wait: the producer's buffers in front
 * of the signal then run at the waiter's level, instead of waiting,
 * below whatever else is ready, for aging to lift them (a HIGH frame
 * waiting on an IDLE producer took the aging delay, 100 ms by default,
 * under a busy NORMAL context). As in Windows' boosts, the level is only
 * lent: the producer goes back to its own (or its aging boost's) when
 * the waiter is released, leaves the held state or goes away.
 *
 * Cost: a hold or a new signal looks at every context's pending signals
 * (max_contexts lists of a few entries); elections are untouched, the
 * producer simply sits at another level of the ready queues.
 */
#include "vidsch/vidsch_internal.h"

static bool fifo(const struct vidsch *s)
{
    return s->cfg.policy == VIDSCH_POLICY_FIFO;
}

/* Moves c to level l in its engine's ready queues (at the tail). */
static void move_level(struct vidsch *s, struct vidsch_ctx *c, unsigned l)
{
    struct vidsch_engine *e = &s->engine[c->engine];
    bool ready = c->rstate == VS_CTX_READY && !fifo(s);

    if (c->level == l) {
        return;
    }
    if (ready) {
        vidsch_ready_remove(&e->rq, c->level, &c->rq);
    }
    c->level = (uint8_t)l;
    if (ready) {
        vidsch_ready_push_back(&e->rq, c->level, &c->rq);
    }
    s->dirty = true;
}

/* c's first wait that is not satisfied, NULL if none. */
static const struct vidsch_sync *blocking(const struct vidsch_ctx *c)
{
    for (struct vs_link *n = vs_list_first(&c->waits); n;
         n = vs_list_next(&c->waits, n)) {
        const struct vidsch_sync *y = vs_container_of(n, struct vidsch_sync,
                                                      link);

        if (*y->addr < y->value) {
            return y;
        }
    }
    return NULL;
}

static bool signals(const struct vidsch_ctx *p, const struct vidsch_sync *w)
{
    for (struct vs_link *n = vs_list_first(&p->signals); n;
         n = vs_list_next(&p->signals, n)) {
        const struct vidsch_sync *y = vs_container_of(n, struct vidsch_sync,
                                                      link);

        if (y->addr == w->addr && y->value >= w->value) {
            return true;
        }
    }
    return false;
}

void vs_inherit_from(struct vidsch *s, struct vidsch_ctx *w)
{
    const struct vidsch_sync *y = blocking(w);

    if (!y || fifo(s)) {
        return;     /* fifo has no levels to lend */
    }
    for (unsigned i = 0; i < s->cfg.max_contexts; i++) {
        struct vidsch_ctx *p = &s->ctxs[i];

        if (!p->used || p == w || p->lost || p->dying ||
            p->level >= w->level || !signals(p, y)) {
            continue;
        }
        p->donor = w;
        p->inherited = true;
        p->inherit_level = w->level;
        p->stats.inherits++;
        move_level(s, p, w->level);
        vs_trace(s, VIDSCH_TRACE_INHERIT, p->engine, p, NULL, w->id, 1);
    }
}

void vs_inherit_release(struct vidsch *s, struct vidsch_ctx *w)
{
    bool any = false;

    for (unsigned i = 0; i < s->cfg.max_contexts; i++) {
        struct vidsch_ctx *p = &s->ctxs[i];

        if (p->used && p->inherited && p->donor == w) {
            p->inherited = false;
            p->donor = NULL;
            move_level(s, p, p->base);
            p->boosted = false;     /* an aging boost ended with it */
            p->boost_spent = false;
            vs_trace(s, VIDSCH_TRACE_INHERIT, p->engine, p, NULL, w->id, 0);
            any = true;
        }
    }
    if (!any) {
        return;
    }
    /* another held context may still need one of them */
    for (struct vs_link *n = vs_list_first(&s->held); n;
         n = vs_list_next(&s->held, n)) {
        struct vidsch_ctx *o = vs_container_of(n, struct vidsch_ctx, rq);

        if (o != w) {
            vs_inherit_from(s, o);
        }
    }
}

void vs_inherit_signal(struct vidsch *s)
{
    for (struct vs_link *n = vs_list_first(&s->held); n;
         n = vs_list_next(&s->held, n)) {
        vs_inherit_from(s, vs_container_of(n, struct vidsch_ctx, rq));
    }
}
