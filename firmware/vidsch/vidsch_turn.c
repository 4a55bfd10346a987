/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch's turns within a level (the quantum policy): whose turn it is,
 * a turn's length (deficit round robin, lengthened while contexts of a
 * level fight over VRAM), its end, and aging: a context starving below
 * the top level is boosted there for one turn. vidsch_pick.c asks
 * vs_pick_ctx() who runs next and calls vs_age() before each decision.
 */
#include "vidsch/vidsch_internal.h"

/* Back to its own level (at the tail) after its boosted turn. */
void vs_unboost(struct vidsch *s, struct vidsch_ctx *c)
{
    struct vidsch_engine *e = vs_engine_of(s, c);
    bool ready = c->rstate == VS_CTX_READY && !vs_fifo(s);

    if (!c->boosted) {
        return;
    }
    if (ready) {
        vidsch_ready_remove(&e->rq, c->level, &c->rq);
    }
    c->boosted = false;
    c->boost_spent = false;
    c->level = c->inherited ? c->inherit_level : c->base;
    if (ready) {
        vidsch_ready_push_back(&e->rq, c->level, &c->rq);
    }
    c->ready_since = vs_now(s);
    vs_trace(s, VIDSCH_TRACE_UNBOOST, c->engine, c, NULL, 0, 0);
}

/* ---- aging and turns (quantum) ---- */

/*
 * Aging. A context below the top ready level that has wanted the engine
 * for aging_ns without running is boosted, for one turn, to the top level
 * (the highest with a ready context), at its tail: it takes its turn with
 * whoever is winning the engine, behind those already waiting there, and
 * never outranks them (Windows boosts starved threads in the same spirit;
 * boosting to REALTIME instead would put a hog ahead of the compositor). If a higher level becomes
 * ready before its turn comes, it follows to that level at once: it has
 * waited its aging_ns already. So whatever runs on top, a starving
 * context runs within aging_ns plus a turn per context of the top level.
 *
 * Only the first few contexts of each level are looked at. A level is a
 * FIFO by readiness, except that a context whose turn or buffer was
 * interrupted goes back in front: such a context ran just now, and there
 * are only ever a couple of them ahead (the turn holder, the one a stop
 * cut), so whoever has waited longest is among the first VS_AGING_LOOK.
 * A context with a buffer on the engine is running, not starving.
 */
static bool starving(const struct vidsch *s, const struct vidsch_ctx *c,
                     uint64_t now)
{
    return !c->on_gpu && now - c->ready_since >= s->cfg.aging_ns;
}

void vs_age(struct vidsch *s, struct vidsch_engine *e)
{
    uint64_t now = vs_now(s);
    int top = vidsch_ready_top(&e->rq);

    for (int l = 0; l < top; l++) {
        struct vs_link *n = vidsch_ready_head(&e->rq, (unsigned)l);
        struct vidsch_ctx *c = NULL;

        for (unsigned i = 0; n && i < VS_AGING_LOOK; i++) {
            if (starving(s, vs_rq_ctx(n), now)) {
                c = vs_rq_ctx(n);
                break;
            }
            n = vs_list_next(&e->rq.level[l], n);
        }
        if (!c) {
            continue;
        }
        vidsch_ready_remove(&e->rq, (unsigned)l, &c->rq);
        c->level = (uint8_t)top;
        c->boosted = true;
        c->boost_spent = false;
        c->in_turn = false;
        vidsch_ready_push_back(&e->rq, c->level, &c->rq);
        c->stats.boosts++;
        vs_trace(s, VIDSCH_TRACE_BOOST, e->index, c, NULL, 0, 0);
    }
}

void vs_end_turn(struct vidsch *s, struct vidsch_ctx *c)
{
    struct vidsch_engine *e = vs_engine_of(s, c);

    c->in_turn = false;
    if (c->boosted) {
        vs_unboost(s, c);
        return;
    }
    if (c->rstate == VS_CTX_READY) {
        vidsch_ready_remove(&e->rq, c->level, &c->rq);
        vidsch_ready_push_back(&e->rq, c->level, &c->rq);
    }
    c->ready_since = vs_now(s);
}

/*
 * Eviction fighting. Two contexts of one level whose working sets fit
 * VRAM one at a time but not together evict each other at every switch:
 * each turn begins by paging its working set back in. Round robin cannot
 * see it, but the paging bytes charged to the engine's turns can: at
 * each new turn the previous turn's bytes go into a moving average
 * (weight 1/2: a turn that pages less than twice fight_bytes alone does
 * not flip the policy, two or three in a row do, and after a fight it
 * takes a few turns without paging to end it).
 * At fight_bytes or more, turns last fight_factor quanta: the working
 * sets are swapped that many times less often, and a context's queued
 * buffers run back to back, paging once for all of them. Below half of
 * fight_bytes the turns are normal again; the gap keeps the policy from
 * flapping around one threshold (longer turns lower the paging per unit
 * of time, not per turn, so the average stays high while the fighting
 * lasts and falls when the working sets fit again).
 */
#define VS_FIGHT_WEIGHT_SHIFT   1

static void fight_sample(struct vidsch *s, struct vidsch_engine *e)
{
    uint64_t x = e->turn_paging, avg = e->paging_avg;
    bool was = e->fighting;

    e->turn_paging = 0;
    avg = x >= avg ? avg + ((x - avg) >> VS_FIGHT_WEIGHT_SHIFT)
                   : avg - ((avg - x) >> VS_FIGHT_WEIGHT_SHIFT);
    if (x < avg && avg - x < (1u << VS_FIGHT_WEIGHT_SHIFT)) {
        avg = x;        /* the shift would never reach 0 */
    }
    e->paging_avg = avg;
    e->stats.paging_per_turn = avg;
    if (!s->cfg.fight_bytes) {
        e->fighting = false;
    } else if (avg >= s->cfg.fight_bytes) {
        e->fighting = true;
    } else if (avg < s->cfg.fight_bytes / 2) {
        e->fighting = false;
    }
    if (e->fighting != was) {
        e->stats.fight_episodes += e->fighting;
        vs_trace(s, VIDSCH_TRACE_FIGHT, e->index, NULL, NULL, avg,
                 e->fighting);
    }
}

static void begin_turn(struct vidsch *s, struct vidsch_ctx *c)
{
    struct vidsch_engine *e = vs_engine_of(s, c);
    int64_t q = (int64_t)s->cfg.quantum_ns;
    int64_t carry = c->credit < 0 ? c->credit : 0;

    e->stats.turns++;
    fight_sample(s, e);
    if (e->fighting && !c->boosted && s->cfg.fight_factor > 1) {
        /* only a peer of its level waits on a turn's length: higher
         * levels preempt it whatever its credit */
        q *= (int64_t)s->cfg.fight_factor;
        e->stats.fight_turns++;
    }
    if (c->boosted) {
        /* a boosted turn is the starving context's due: a whole quantum */
        c->boost_spent = true;
        carry = 0;
    } else if (carry < -q) {
        /* deficit round robin: an overrun is paid back, up to a quantum */
        carry = -q;
    }
    c->in_turn = true;
    c->credit = q + carry;
}

/* The context whose buffer runs next on e, or NULL. */
struct vidsch_ctx *vs_pick_ctx(struct vidsch *s, struct vidsch_engine *e)
{
    int top = vidsch_ready_top(&e->rq);
    struct vidsch_ctx *c;

    if (top < 0) {
        return NULL;
    }
    c = vs_rq_ctx(vidsch_ready_head(&e->rq, top));
    if (!vs_quantum(s)) {
        return c;
    }
    /* Contexts in their turn sit at the head of their level, and only
     * those with buffers on the GPU or just given back by a stop can be
     * (a ring's worth); ending a turn sends one to the tail, out of its
     * turn. So this loop ends within a few rounds whatever the number of
     * contexts. */
    for (;;) {
        int64_t left;

        if (!c->in_turn && c->boosted && c->boost_spent) {
            /* it had its boosted turn: one per aging, not a new rank */
            vs_unboost(s, c);
            top = vidsch_ready_top(&e->rq);
            c = vs_rq_ctx(vidsch_ready_head(&e->rq, top));
            continue;
        }
        if (!c->in_turn) {
            begin_turn(s, c);
            return c;
        }
        left = vs_credit_now(s, c);
        if (left > 0) {
            return c;
        }
        if (vidsch_ready_count(&e->rq, top) == 1 && !c->boosted &&
            vs_peer_on_ring(e, c)) {
            /* a peer's buffer waits on the ring: its turn comes first
             * (the head is cut for it), c's next one after it; electing
             * c now would begin c's turn again ahead of the peer */
            vs_end_turn(s, c);
            return NULL;
        }
        if (vidsch_ready_count(&e->rq, top) == 1 && !c->boosted) {
            /* nobody else at this level wants the engine: a new turn */
            c->credit += (int64_t)s->cfg.quantum_ns - left;
            return c;
        }
        vs_end_turn(s, c);
        top = vidsch_ready_top(&e->rq);
        c = vs_rq_ctx(vidsch_ready_head(&e->rq, top));
    }
}
