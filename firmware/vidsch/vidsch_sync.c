/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GPU-side synchronisation on monitored fences, kernel-gated as WDDM does
 * it [WaitForSynchronizationObjectFromGpu / SignalSynchronizationObject]:
 *
 * - a wait is a marker in its context's stream: the buffers submitted
 *   after it are held (never elected) until the value at the address
 *   reaches the wait's; the context sits on the held list meanwhile, and
 *   the list is looked at again when fences retire, when the kernel says
 *   a CPU signal happened, and every sync_poll_ns;
 * - a signal is written by the scheduler once every buffer submitted
 *   before it on its context is done (retired, or lost).
 *
 * A context's buffers run in order on one engine, so "every buffer up to
 * seq is done" is "the oldest buffer not done has a larger seq".
 */
#include "vidsch/vidsch_internal.h"

/* seq of c's oldest buffer not done, or VS_NEVER. Its buffers on the
 * GPU (slot and ring, a few entries) are older than its queue's. */
static uint64_t oldest_pending(struct vidsch *s, const struct vidsch_ctx *c)
{
    const struct vidsch_engine *e = &s->engine[c->engine];
    uint64_t oldest = VS_NEVER;

    if (c->on_gpu) {
        for (struct vs_link *n = vs_list_first(&e->ring.subs); n;
             n = vs_list_next(&e->ring.subs, n)) {
            struct vidsch_buf *b = vs_buf_of_sub(
                vs_container_of(n, struct vidsch_sub, link));

            if (b->ctx == c && b->seq < oldest) {
                oldest = b->seq;
            }
        }
        /* hardware mode: its own queue's ring (oldest first) */
        if (s->hws && vidsch_ring_count(&c->hwring)) {
            struct vidsch_buf *b = vs_buf_of_sub(
                vidsch_ring_oldest(&c->hwring));

            if (b->seq < oldest) {
                oldest = b->seq;
            }
        }
        if (e->slot && e->slot->ctx == c && e->slot->seq < oldest) {
            oldest = e->slot->seq;
        }
    }
    if (!vs_list_empty(&c->queue) && vs_queue_head(c)->seq < oldest) {
        oldest = vs_queue_head(c)->seq;
    }
    return oldest;
}

void vs_fire_signals(struct vidsch *s, struct vidsch_ctx *c)
{
    uint64_t oldest;
    struct vs_link *n;

    if (vs_list_empty(&c->signals)) {
        return;
    }
    /* a lost context's buffers will never run: its signals are written
     * now, so that no waiter hangs on a removed device */
    oldest = c->lost ? VS_NEVER : oldest_pending(s, c);
    while ((n = vs_list_first(&c->signals))) {
        struct vidsch_sync *y = vs_container_of(n, struct vidsch_sync, link);

        if (y->seq >= oldest) {
            break;
        }
        vs_list_remove(&c->signals, n);
        /* a monitored fence never goes back: a signal overtaken by a
         * higher one (a CPU signal meanwhile) is ignored */
        if (*y->addr < y->value) {
            *y->addr = y->value;
        }
        vs_sync_free(s, y);
        s->sync_dirty = true;
    }
}

struct vidsch_sync *vs_blocking_wait(struct vidsch *s, struct vidsch_ctx *c,
                                     uint64_t seq)
{
    struct vs_link *n;

    while ((n = vs_list_first(&c->waits))) {
        struct vidsch_sync *y = vs_container_of(n, struct vidsch_sync, link);

        if (y->seq > seq) {
            return NULL;        /* holds later buffers only */
        }
        if (*y->addr >= y->value) {
            /* monitored fences only grow: satisfied for good */
            vs_list_remove(&c->waits, n);
            vs_sync_free(s, y);
            continue;
        }
        return y;
    }
    return NULL;
}

void vs_poll_held(struct vidsch *s)
{
    struct vs_link *n = vs_list_first(&s->held);

    s->last_poll = vs_now(s);
    while (n) {
        struct vs_link *next = vs_list_next(&s->held, n);

        vs_ctx_update(s, vs_container_of(n, struct vidsch_ctx, rq));
        n = next;
    }
}
