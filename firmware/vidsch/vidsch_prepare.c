/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch's worker [the patent's worker thread]: the buffer elected into
 * an engine's slot is prepared here while the engine runs the previous
 * one: vidmm makes its allocation list resident (and may queue a paging
 * buffer ahead of it, or split it into portions), then the driver patches
 * it [DxgkDdiPatch], once. Both modes alike: in hardware mode the
 * prepared buffer goes to its context's queue instead of the ring.
 */
#include "vidsch/vidsch_internal.h"

/* The buffer in e's slot cannot run: report it finished with rc. */
static void prepare_failed(struct vidsch *s, struct vidsch_engine *e,
                           struct vidsch_buf *b, int rc)
{
    /* render validated it, so this is the driver (or vidmm) refusing:
     * the buffer cannot run, its context is not to blame */
    e->slot = NULL;
    b->ctx->on_gpu--;
    vs_finish(s, b, rc);
    vs_ctx_update(s, b->ctx);
}

/* vidmm's part of the preparation: residency of the allocation list,
 * and its paging buffer ahead on the copy engine. DDI_EBUSY: the slot
 * waits (unprepared) until memory may have come free. */
static int make_resident(struct vidsch *s, struct vidsch_engine *e,
                         struct vidsch_buf *b)
{
    struct vidsch_residency r = { 0 };
    int rc = VIDSCH_RESIDENT_SPLIT;
    bool bad = false;

    if (vs_list_empty(&s->free_bufs)) {
        return DDI_EBUSY;       /* no record for a paging buffer now */
    }
    if (!b->split) {
        rc = s->env.make_resident(s->env.os, b->cookie, b->dma, b->alloc,
                                  b->prepared, &r);
        if (rc == VIDSCH_RESIDENT_SPLIT) {
            if (!s->env.make_portion || !s->env.release_portion) {
                return DDI_ENOMEM;      /* cannot split: does not fit */
            }
            /* from now on, portion by portion (for good: a portion
             * patched is patched once) */
            b->split = true;
            b->part = (struct vidsch_portion){ 0 };
            e->stats.split_buffers++;
        }
    }
    if (rc == VIDSCH_RESIDENT_SPLIT) {
        /* a portion handed back comes back as it was (patched once) */
        struct vidsch_portion p = b->prepared ? b->part
                                  : (struct vidsch_portion){
                                        .first = b->part.first };

        r = (struct vidsch_residency){ 0 };
        rc = s->env.make_portion(s->env.os, b->cookie, b->dma, b->alloc,
                                 p.first, b->prepared, &r, &p);
        if (rc == DDI_OK) {
            bad = p.first != b->part.first || p.end <= p.first ||
                  p.end > b->dma->len_bytes || (p.end & 3) ||
                  (b->prepared && p.end != b->part.end);
            b->part = p;
            /* its context's later buffers wait for the last portion */
            b->ctx->split_open = !bad && p.end < b->dma->len_bytes;
            vs_ctx_update(s, b->ctx);
        }
    }
    if (rc != DDI_OK && rc != DDI_EBUSY) {
        return rc;
    }
    /* charged to the engine's current turn (the buffer was elected in
     * it): what eviction fighting is measured by */
    b->ctx->stats.paging_bytes += r.paging_bytes;
    e->stats.paging_bytes += r.paging_bytes;
    e->turn_paging += r.paging_bytes;
    if (r.paging) {
        /* also with DDI_EBUSY: one step of a residency that takes more
         * than one paging buffer; its retirement asks again */
        struct vidsch_buf *p = vs_buf_alloc(s);
        unsigned pe = r.paging_engine < s->nengines ? r.paging_engine
                                                    : e->index;

        vs_paging_enqueue(s, p, pe, r.paging, r.paging_cookie,
                       r.paging_ticket);
    }
    if (rc == DDI_EBUSY) {
        e->resident_wait = true;
        e->resident_wait_gen = s->release_gen;
        return rc;
    }
    b->resident = true;
    b->wait_ticket = r.wait_ticket;
    if (bad) {
        /* not a portion of the buffer: give back what the hook placed
         * (its paging buffer runs anyway, harmless) and refuse */
        vs_release_resident(s, b, 0);
        return DDI_EINVAL;
    }
    return DDI_OK;
}

/* Prepares the buffer in e's slot: residency (vidmm), then patch
 * [DxgkDdiPatch], once: a buffer patched already only gets its
 * allocations back where it was patched. */
static void prepare(struct vidsch *s, struct vidsch_engine *e)
{
    struct vidsch_buf *b = e->slot;
    int rc = DDI_OK;

    if (s->env.make_resident && !b->resident) {
        rc = make_resident(s, e, b);
        if (rc == DDI_EBUSY) {
            return;             /* asked again once memory comes free */
        }
    }
    vs_trace(s, VIDSCH_TRACE_PREPARE, e->index, NULL, b, 0, 0);
    if (rc == DDI_OK && !b->prepared && s->ops->patch) {
        /* a portion patches only the locations inside it: the others'
         * allocations are not placed now */
        rc = s->ops->patch(s->drv, b->dma, b->alloc, vs_run_first(b),
                           vs_run_end(b));
    }
    if (rc != DDI_OK) {
        prepare_failed(s, e, b, rc);
        return;
    }
    b->prepared = true;
    e->slot_prepared = true;
    e->stats.prepared++;
    if (vidsch_ring_count(&e->ring) > 0) {
        e->stats.prepared_ahead++;
    }
    vs_trace(s, VIDSCH_TRACE_PREPARED, e->index, NULL, b, 0, 0);
}

void vidsch_worker(struct vidsch *s)
{
    vs_enter(s);
    s->work_queued = false;
    /* one buffer per call, engines in turn: the environment charges each
     * call as one preparation */
    for (unsigned i = 0; i < s->nengines; i++) {
        struct vidsch_engine *e =
            &s->engine[(s->worker_next + i) % s->nengines];

        if (e->slot && !e->slot_prepared) {
            uint64_t t0 = vs_cycles(s);

            prepare(s, e);
            t0 = vs_cycles(s) - t0;
            s->cyc.decide += t0;
            s->cyc.prepare += t0;
            s->worker_next = (e->index + 1) % s->nengines;
            break;
        }
    }
    s->dirty = true;
    vs_leave(s);
}
