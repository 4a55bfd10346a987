/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kevents.h"

#include <stddef.h>

void kevents_init(struct kevents *ev)
{
    *ev = (struct kevents){ 0 };
    kqueue_init(&ev->dpc);
    kqueue_init(&ev->work);
    ktimer_list_init(&ev->timers);
}

enum kevents_step kevents_step(struct kevents *ev, uint64_t now,
                               uint64_t *wake)
{
    struct kitem *it;
    struct ktimer *t;

    /* whatever runs in this step arms its timers at now or later */
    ktimer_set_now(&ev->timers, now);
    if ((it = kqueue_pop(&ev->dpc)) != NULL) {
        ev->dpcs++;
        it->fn(it->arg);
        return KEVENTS_RAN_DPC;
    }
    if (ev->timer_run >= KEVENTS_TIMER_BURST &&
        (it = kqueue_pop(&ev->work)) != NULL) {
        /* timers kept the loop busy: kernel work goes first once */
        ev->timer_run = 0;
        ev->timer_yields++;
        ev->works++;
        it->fn(it->arg);
        return KEVENTS_RAN_WORK;
    }
    if ((t = ktimer_pop_due(&ev->timers, now)) != NULL) {
        ev->timers_fired++;
        ev->timer_run++;
        t->fn(t->arg, now);
        return KEVENTS_RAN_TIMER;
    }
    ev->timer_run = 0;
    if ((it = kqueue_pop(&ev->work)) != NULL) {
        ev->works++;
        it->fn(it->arg);
        return KEVENTS_RAN_WORK;
    }
    ev->idles++;
    ev->idle_work_at = now;     /* the caller does it before halting */
    if (!ktimer_next(&ev->timers, wake)) {
        *wake = KEVENTS_NEVER;
    }
    return KEVENTS_IDLE;
}

bool kevents_idle_work_due(struct kevents *ev, uint64_t now)
{
    if (now - ev->idle_work_at < KEVENTS_IDLE_WORK_NS) {
        return false;
    }
    ev->idle_work_at = now;
    ev->busy_idle_works++;
    return true;
}
