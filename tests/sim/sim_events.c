/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_events.h"

#include <stdlib.h>
#include <string.h>

void sim_clock_init(struct sim_clock *c)
{
    memset(c, 0, sizeof(*c));
}

void sim_clock_fini(struct sim_clock *c)
{
    free(c->heap);
    memset(c, 0, sizeof(*c));
}

void sim_clock_reset(struct sim_clock *c, uint64_t now)
{
    c->count = 0;
    c->now = now;
    c->seq = 0;
    c->executed = 0;
}

static bool before(const struct sim_event *a, const struct sim_event *b)
{
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

void sim_at(struct sim_clock *c, uint64_t when, sim_event_fn fn, void *obj,
            uint64_t arg)
{
    struct sim_event ev = {
        .when = when < c->now ? c->now : when, .seq = c->seq++,
        .fn = fn, .obj = obj, .arg = arg,
    };
    unsigned i;

    if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->heap = realloc(c->heap, c->cap * sizeof(*c->heap));
        if (!c->heap) {
            abort();
        }
    }
    /* sift up */
    i = c->count++;
    while (i) {
        unsigned parent = (i - 1) / 2;

        if (!before(&ev, &c->heap[parent])) {
            break;
        }
        c->heap[i] = c->heap[parent];
        i = parent;
    }
    c->heap[i] = ev;
}

bool sim_step(struct sim_clock *c, uint64_t limit)
{
    struct sim_event ev, last;
    unsigned i = 0;

    if (!c->count || c->heap[0].when > limit) {
        return false;
    }
    ev = c->heap[0];
    last = c->heap[--c->count];
    /* sift the last one down from the root */
    for (;;) {
        unsigned child = 2 * i + 1;

        if (child >= c->count) {
            break;
        }
        if (child + 1 < c->count && before(&c->heap[child + 1],
                                           &c->heap[child])) {
            child++;
        }
        if (!before(&c->heap[child], &last)) {
            break;
        }
        c->heap[i] = c->heap[child];
        i = child;
    }
    if (c->count) {
        c->heap[i] = last;
    }
    c->now = ev.when;
    c->executed++;
    ev.fn(ev.obj, ev.arg);
    return true;
}
