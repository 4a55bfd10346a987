/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intrusive doubly linked lists for the scheduler: a record carries its
 * own links, so moving a buffer or a context between queues allocates
 * nothing and costs O(1) (the firmware has no malloc, and the scheduler's
 * decisions must not grow with the number of contexts).
 *
 * A list is circular around a sentinel and counts its members.
 */
#ifndef FW_VIDSCH_VIDSCH_LIST_H
#define FW_VIDSCH_VIDSCH_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vs_link {
    struct vs_link *prev, *next;    /* NULL, NULL when on no list */
};

struct vs_list {
    struct vs_link head;            /* sentinel */
    unsigned count;
};

#define vs_container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void *vs_entry_at_(const struct vs_link *n, size_t offset)
{
    return n ? (void *)((char *)(uintptr_t)n - offset) : NULL;
}

/* The record holding link, or NULL when link is NULL (link is evaluated
 * once: it may be a call such as vs_list_pop_front()). */
#define vs_entry(link, type, member) \
    ((type *)vs_entry_at_((link), offsetof(type, member)))

static inline void vs_list_init(struct vs_list *l)
{
    l->head.prev = l->head.next = &l->head;
    l->count = 0;
}

static inline bool vs_list_empty(const struct vs_list *l)
{
    return l->count == 0;
}

static inline bool vs_linked(const struct vs_link *n)
{
    return n->next != NULL;
}

static inline struct vs_link *vs_list_first(const struct vs_list *l)
{
    return l->count ? l->head.next : NULL;
}

static inline struct vs_link *vs_list_last(const struct vs_list *l)
{
    return l->count ? l->head.prev : NULL;
}

/* The member after n, or NULL at the end. */
static inline struct vs_link *vs_list_next(const struct vs_list *l,
                                           const struct vs_link *n)
{
    return n->next == &l->head ? NULL : n->next;
}

/* The member before n, or NULL at the start. */
static inline struct vs_link *vs_list_prev(const struct vs_list *l,
                                           const struct vs_link *n)
{
    return n->prev == &l->head ? NULL : n->prev;
}

static inline void vs_link_between(struct vs_link *n, struct vs_link *prev,
                                   struct vs_link *next)
{
    n->prev = prev;
    n->next = next;
    prev->next = n;
    next->prev = n;
}

static inline void vs_list_push_back(struct vs_list *l, struct vs_link *n)
{
    vs_link_between(n, l->head.prev, &l->head);
    l->count++;
}

static inline void vs_list_push_front(struct vs_list *l, struct vs_link *n)
{
    vs_link_between(n, &l->head, l->head.next);
    l->count++;
}

/* Inserts n right after pos, a member of l. */
static inline void vs_list_insert_after(struct vs_list *l,
                                        struct vs_link *pos,
                                        struct vs_link *n)
{
    vs_link_between(n, pos, pos->next);
    l->count++;
}

static inline void vs_list_remove(struct vs_list *l, struct vs_link *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = NULL;
    l->count--;
}

static inline struct vs_link *vs_list_pop_front(struct vs_list *l)
{
    struct vs_link *n = vs_list_first(l);

    if (n) {
        vs_list_remove(l, n);
    }
    return n;
}

#endif /* FW_VIDSCH_VIDSCH_LIST_H */
