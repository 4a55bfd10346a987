/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kqueue.h"

#include <stddef.h>

void kqueue_init(struct kqueue *q)
{
    *q = (struct kqueue){ 0 };
}

void kitem_init(struct kitem *it, void (*fn)(void *arg), void *arg)
{
    *it = (struct kitem){ .fn = fn, .arg = arg };
}

bool kqueue_push(struct kqueue *q, struct kitem *it)
{
    if (it->queued) {
        return false;
    }
    it->queued = true;
    it->next = NULL;
    if (q->tail) {
        q->tail->next = it;
    } else {
        q->head = it;
    }
    q->tail = it;
    q->pushed++;
    return true;
}

struct kitem *kqueue_pop(struct kqueue *q)
{
    struct kitem *it = q->head;

    if (!it) {
        return NULL;
    }
    q->head = it->next;
    if (!q->head) {
        q->tail = NULL;
    }
    it->next = NULL;
    /* Cleared before the call: the item may be queued again by its own
     * function, or by an interrupt while it runs. */
    it->queued = false;
    q->ran++;
    return it;
}
