/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/ktimer.h"

#include <stddef.h>

void ktimer_list_init(struct ktimer_list *l)
{
    l->head = NULL;
    l->count = 0;
    l->now = 0;
}

void ktimer_set_now(struct ktimer_list *l, uint64_t now)
{
    if (now > l->now) {
        l->now = now;
    }
}

void ktimer_init(struct ktimer *t, ktimer_fn fn, void *arg)
{
    *t = (struct ktimer){ .fn = fn, .arg = arg };
}

void ktimer_cancel(struct ktimer_list *l, struct ktimer *t)
{
    struct ktimer **pp;

    if (!t->armed) {
        return;
    }
    for (pp = &l->head; *pp; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            l->count--;
            break;
        }
    }
    t->next = NULL;
    t->armed = false;
}

void ktimer_arm(struct ktimer_list *l, struct ktimer *t, uint64_t when)
{
    struct ktimer **pp;

    ktimer_cancel(l, t);
    if (when < l->now) {
        when = l->now;      /* due now: behind those due already */
    }
    /* After every timer due at the same time or earlier: FIFO on ties. */
    for (pp = &l->head; *pp && (*pp)->when <= when; pp = &(*pp)->next) {
    }
    t->when = when;
    t->next = *pp;
    t->armed = true;
    *pp = t;
    l->count++;
}

bool ktimer_next(const struct ktimer_list *l, uint64_t *when)
{
    if (!l->head) {
        return false;
    }
    *when = l->head->when;
    return true;
}

struct ktimer *ktimer_pop_due(struct ktimer_list *l, uint64_t now)
{
    struct ktimer *t = l->head;

    if (!t || t->when > now) {
        return NULL;
    }
    l->head = t->next;
    l->count--;
    t->next = NULL;
    t->armed = false;
    return t;
}

unsigned ktimer_count_owned(const struct ktimer_list *l, uint32_t owner)
{
    unsigned n = 0;

    for (const struct ktimer *t = l->head; t; t = t->next) {
        n += t->owner == owner;
    }
    return n;
}

void ktimer_cancel_owned(struct ktimer_list *l, uint32_t owner)
{
    for (struct ktimer *t = l->head, *next; t; t = next) {
        next = t->next;
        if (t->owner == owner) {
            ktimer_cancel(l, t);
        }
    }
}
