/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulator's clock and event queue: virtual nanoseconds, events run
 * in time order and, at equal times, in the order they were scheduled
 * (so a run is a pure function of its inputs). An event is a function,
 * an opaque pointer and a 64-bit argument; there is no cancellation:
 * owners put a generation number in the argument and ignore stale ones.
 */
#ifndef TESTS_SIM_SIM_EVENTS_H
#define TESTS_SIM_SIM_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*sim_event_fn)(void *obj, uint64_t arg);

struct sim_event {
    uint64_t when;
    uint64_t seq;
    sim_event_fn fn;
    void *obj;
    uint64_t arg;
};

struct sim_clock {
    uint64_t now;
    uint64_t seq;
    struct sim_event *heap;
    unsigned count, cap;
    uint64_t executed;          /* events run so far */
};

void sim_clock_init(struct sim_clock *c);
void sim_clock_fini(struct sim_clock *c);
/* Empties the queue and sets the time (reuse between runs). */
void sim_clock_reset(struct sim_clock *c, uint64_t now);

/* Runs fn(obj, arg) at when (at now if when is in the past). */
void sim_at(struct sim_clock *c, uint64_t when, sim_event_fn fn, void *obj,
            uint64_t arg);

/* Runs the next event; false when there is none or it is after limit. */
bool sim_step(struct sim_clock *c, uint64_t limit);

static inline bool sim_pending(const struct sim_clock *c)
{
    return c->count != 0;
}

#endif /* TESTS_SIM_SIM_EVENTS_H */
