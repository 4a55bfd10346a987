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
 * and their budget) has answered: it grew the buffer (resume), or it
 * cannot (the scene is lost: its context is put in error, as for a
 * fault of its own).
 */
#include "vidsch/vidsch_internal.h"
#include "vidsch/vidsch_tdr.h"

static struct vidsch_buf *ring_buf_of(struct vidsch_engine *e, uint64_t fence)
{
    for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
         n = vs_list_next(&e->ring.subs, n)) {
        struct vidsch_sub *sub = vs_container_of(n, struct vidsch_sub, link);

        if (sub->fence == fence) {
            return vs_buf_of_sub(sub);
        }
    }
    return NULL;
}

void vs_on_tiler_oom(struct vidsch *s, struct vidsch_engine *e,
                     uint64_t oom_fence, uint32_t need, uint64_t completed)
{
    struct vidsch_buf *b = NULL;
    struct vidsch_ctx *c;
    uint64_t cookie, save_addr;
    int answer;

    if (oom_fence > e->ring.completed && oom_fence > completed) {
        b = ring_buf_of(e, oom_fence);
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

    answer = s->env.scene_oom
             ? s->env.scene_oom(s->env.os, cookie, c->id, save_addr, need)
             : VIDSCH_OOM_FAIL;
    if (answer == VIDSCH_OOM_RESUME) {
        /* the buffer is first in its context's queue with RESUME */
        e->stats.tiler_oom_resumed++;
        return;
    }
    e->stats.tiler_oom_failed++;
    vs_lose_ctx(s, c);
}
