/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch: scene-based rendering's out-of-memory stops (the device's
 * tiling path, docs/specs/copro.rst "Parameter buffer full").
 *
 * A geometry buffer whose primitive does not fit its parameter buffer is
 * stopped by the engine before that primitive, exactly as a preemption
 * stops a buffer: progress in the context's save area, the ring's
 * unfetched entries dropped. Those dropped entries may be any context's:
 * they go back to their queues as they were, first in line, as after a
 * preemption, so nobody else loses work or is blamed. The stopped buffer
 * goes back with RESUME once the OS (vidmm, which owns parameter buffers
 * and their budget) has answered: it grew the buffer (resume), it runs a
 * partial render first (PARTIAL: see below), or it cannot (the scene is
 * lost: its context is put in error, as for a fault of its own).
 *
 * PARTIAL [PowerVR's FRAG_PR, Mali's incremental render]: the OS renders
 * the bins so far with a TILE_RENDER of COPRO_TILE_PARTIAL, which stores
 * the tiles and empties the bins, and the geometry goes on from the
 * primitive that did not fit. That render runs in the process's address
 * space but never on the stopped context: its save area holds the
 * stopped geometry, which a preempted tile pass there would overwrite.
 * The OS runs it on a context of its own and names the monitored fence
 * it signals once the render retired; the resumed buffer is held on that
 * fence at the front of its queue (a GPU wait inserted before it: the
 * held state of vidsch_sync.c), so nothing of its context runs before
 * it, and it runs as soon as the fence is reached (or its context is
 * lost or destroyed meanwhile: the buffer is then reported lost).
 */
#include "vidsch/vidsch_internal.h"
#include "vidsch/vidsch_tdr.h"

static struct vidsch_buf *ring_buf_of(struct vidsch_ring *r, uint64_t fence)
{
    for (struct vs_link *n = vs_list_first(&r->subs); n;
         n = vs_list_next(&r->subs, n)) {
        struct vidsch_sub *sub = vs_container_of(n, struct vidsch_sub, link);

        if (sub->fence == fence) {
            return vs_buf_of_sub(sub);
        }
    }
    return NULL;
}

/*
 * Holds c's buffers from b (the resumed one, first in c's queue) on y:
 * y joins c's waits in seq order, and in fifo order b and what of c
 * follows it leave the engine's list (fed again once y is reached).
 */
static void hold_from(struct vidsch *s, struct vidsch_ctx *c,
                      struct vidsch_buf *b, struct vidsch_sync *y)
{
    struct vs_link *pos = NULL;

    y->seq = b->seq;
    for (struct vs_link *n = vs_list_first(&c->waits);
         n && vs_container_of(n, struct vidsch_sync, link)->seq <= y->seq;
         n = vs_list_next(&c->waits, n)) {
        pos = n;
    }
    if (pos) {
        vs_list_insert_after(&c->waits, pos, &y->link);
    } else {
        vs_list_push_front(&c->waits, &y->link);
    }
    if (s->cfg.policy == VIDSCH_POLICY_FIFO) {
        for (struct vs_link *n = &b->link; n; n = vs_list_next(&c->queue, n)) {
            struct vidsch_buf *o = vs_container_of(n, struct vidsch_buf, link);

            if (o->in_fifo) {
                vs_list_remove(&s->engine[o->engine].fifo, &o->fifo);
                o->in_fifo = false;
            }
        }
        c->unfed = b;
    }
    vs_ctx_update(s, c);
}

void vs_on_tiler_oom(struct vidsch *s, struct vidsch_engine *e,
                     uint64_t oom_fence, uint32_t need, uint64_t completed)
{
    struct vidsch_buf *b = NULL;
    struct vidsch_oom_wait wait = { 0 };
    struct vidsch_sync *y;
    struct vidsch_ctx *c;
    uint64_t cookie, save_addr;
    int answer;

    if (oom_fence > e->ring.completed && oom_fence > completed) {
        b = ring_buf_of(&e->ring, oom_fence);
    }
    if (!b || !b->ctx) {
        /* settled already (a reset came first), or a paging buffer
         * (vidmm never bins in one): only the retirements are news */
        e->stats.stale_upcalls++;
        vs_retire_upto(s, e, completed);
        return;
    }
    c = b->ctx;
    cookie = b->cookie;
    save_addr = b->sub.save_addr;
    if (!vs_on_stopped(s, e, completed, oom_fence)) {
        return;
    }
    /* stop_requeue counted a preemption of the buffer: an OOM stop is
     * not one (the device does not count it either) */
    if (c->stats.preemptions) {
        c->stats.preemptions--;
    }
    e->stats.tiler_ooms++;
    /* the engine stopped by itself: it is responsive */
    vidsch_tdr_preempted(&e->tdr, vs_now(s), e->ring.completed);

    /* the wait a partial render needs, taken before asking: the OS
     * submits the render once it answered, so the hold cannot fail
     * after that */
    y = vs_sync_alloc(s);
    answer = s->env.scene_oom
             ? s->env.scene_oom(s->env.os, cookie, c->id, save_addr, need,
                                y ? &wait : NULL)
             : VIDSCH_OOM_FAIL;
    if (answer == VIDSCH_OOM_RESUME) {
        /* the buffer is first in its context's queue with RESUME */
        e->stats.tiler_oom_resumed++;
        if (y) {
            vs_sync_free(s, y);
        }
        return;
    }
    if (answer == VIDSCH_OOM_PARTIAL && y && wait.addr &&
        (c->lost || c->dying)) {
        /* gone meanwhile (the buffer came back lost): nothing to hold */
        e->stats.tiler_oom_partial++;
        vs_sync_free(s, y);
        return;
    }
    if (answer == VIDSCH_OOM_PARTIAL && y && wait.addr &&
        b->where == VS_QUEUED && vs_queue_head(c) == b) {
        e->stats.tiler_oom_partial++;
        if (*wait.addr >= wait.value) {
            vs_sync_free(s, y);     /* reached already: resume now */
            return;
        }
        y->addr = (volatile uint64_t *)wait.addr;
        y->value = wait.value;
        hold_from(s, c, b, y);
        return;
    }
    if (y) {
        vs_sync_free(s, y);
    }
    e->stats.tiler_oom_failed++;
    vs_lose_ctx(s, c);
}

/*
 * Hardware scheduling: a context's queue stopped its geometry on a full
 * parameter buffer and waits (COPRO_HWQ_STATE_OOM_WAIT) while the device
 * runs the other queues; nothing of the queue was dropped, so nothing
 * goes back to vidsch's queues. The OS is asked as for a kernel ring and
 * the queue answered: grown, it resumes its stopped buffer by itself; a
 * partial render (on the OS's own context: another hardware queue) is
 * waited for, and the queue answered resume once its fence is reached
 * (vs_hws_oom_poll); otherwise the queue fails and the device reports it
 * with queue_error (COPRO_HWS_ERR_TILER_OOM), which loses that context
 * alone.
 */
void vs_hws_up_oom(void *os, uint32_t queue, const struct ddi_hwq_oom *oom)
{
    struct vidsch *s = os;
    struct vidsch_oom_wait wait = { 0 };
    struct vidsch_ctx *c;
    struct vidsch_engine *e = NULL;
    struct vidsch_buf *b = NULL;
    int answer = VIDSCH_OOM_FAIL;

    if (!s->hws || queue >= COPRO_HWQ_MAX || !oom ||
        !s->hws_ops->queue_oom_answer) {
        return;     /* a driver that cannot be answered does not ask */
    }
    c = s->hwq_ctx[queue];
    if (c && c->hw_oom.addr) {
        /* reported again while its partial render is pending: the
         * answer comes with the render (vs_hws_oom_poll) */
        s->engine[c->engine].stats.stale_upcalls++;
        return;
    }
    vs_enter(s);
    if (c && !c->lost && !c->dying) {
        e = &s->engine[c->engine];
        b = ring_buf_of(&c->hwring, oom->oom_fence);
    }
    if (e) {
        e->stats.tiler_ooms++;
    }
    if (b && s->env.scene_oom) {
        answer = s->env.scene_oom(s->env.os, b->cookie, c->id, c->save_addr,
                                  oom->need, &wait);
    }
    if (answer == VIDSCH_OOM_RESUME) {
        if (s->hws_ops->queue_oom_answer(s->drv, queue, true) == DDI_OK) {
            e->stats.tiler_oom_resumed++;
        }
    } else if (answer == VIDSCH_OOM_PARTIAL && wait.addr) {
        /* answered once the render's fence is reached */
        e->stats.tiler_oom_partial++;
        c->hw_oom = wait;
        vs_hws_oom_poll(s, e);
    } else {
        /* a paging queue's (vidmm never bins there), a lost context's, a
         * fence the OS did not give, or no room: the queue fails */
        if (e) {
            e->stats.tiler_oom_failed++;
        }
        s->hws_ops->queue_oom_answer(s->drv, queue, false);
    }
    s->dirty = true;
    vs_leave(s);
}

/*
 * The queues of e's contexts waiting for a partial render: answered
 * resume once its fence is reached (the render retired: the bins are
 * empty), fail if the context was lost meanwhile.
 */
void vs_hws_oom_poll(struct vidsch *s, struct vidsch_engine *e)
{
    for (unsigned i = 0; i < s->nhw_live; i++) {
        struct vidsch_ctx *c = s->hw_live[i];
        bool gone;

        if (!c || c->engine != e->index || !c->hw_oom.addr) {
            continue;
        }
        gone = c->lost || c->dying;
        if (!gone && *c->hw_oom.addr < c->hw_oom.value) {
            continue;
        }
        c->hw_oom.addr = NULL;
        s->hws_ops->queue_oom_answer(s->drv, c->hwq, !gone);
    }
}
