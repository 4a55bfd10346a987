/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIFO queues of deferred calls: the kernel's DPC queue (KeInsertQueueDpc:
 * filled by interrupt handlers, drained first by the event loop) and its
 * work queue (the patent's worker thread: passive-level work such as
 * vidsch_worker). An item is intrusive and queued at most once: queuing
 * an item that is already queued does nothing, as for a KDPC, so an
 * interrupt that fires twice before its DPC ran costs one call.
 *
 * The ISR pushes while the event loop pops; the firmware runs the loop
 * with interrupts disabled and takes them only while halted, so the two
 * never overlap and no lock is needed.
 *
 * Pure C, no hardware: unit-tested on the host (tests/unit/test-kevents.c).
 */
#ifndef FW_KERNEL_KQUEUE_H
#define FW_KERNEL_KQUEUE_H

#include <stdbool.h>
#include <stdint.h>

struct kitem {
    void (*fn)(void *arg);
    void *arg;
    struct kitem *next;
    volatile bool queued;
};

struct kqueue {
    struct kitem *head, *tail;
    uint64_t pushed, ran;       /* counters, for statistics */
};

void kqueue_init(struct kqueue *q);
void kitem_init(struct kitem *it, void (*fn)(void *arg), void *arg);

/* Appends it unless it is queued already; true if it was appended. */
bool kqueue_push(struct kqueue *q, struct kitem *it);

/* Removes and returns the oldest item (no longer queued), or NULL. */
struct kitem *kqueue_pop(struct kqueue *q);

static inline bool kqueue_empty(const struct kqueue *q)
{
    return q->head == 0;
}

#endif /* FW_KERNEL_KQUEUE_H */
