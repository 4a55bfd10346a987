/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/handle.h"

#include <stddef.h>

#include "ddi/ddi.h"

#define INDEX_MASK  ((1u << HANDLE_INDEX_BITS) - 1)
#define TYPE_SHIFT  HANDLE_INDEX_BITS
#define TYPE_MASK   ((1u << HANDLE_TYPE_BITS) - 1)
#define GEN_SHIFT   (HANDLE_INDEX_BITS + HANDLE_TYPE_BITS)
#define GEN_MASK    ((1u << HANDLE_GEN_BITS) - 1)
#define OWNER_SHIFT (GEN_SHIFT + HANDLE_GEN_BITS)

_Static_assert(OWNER_SHIFT + HANDLE_OWNER_BITS == 32, "handle layout");
_Static_assert(HANDLE_TYPE_COUNT <= (1u << HANDLE_TYPE_BITS), "types");

static uint32_t make(const struct handle_table *t, unsigned index,
                     const struct handle_entry *e)
{
    return (uint32_t)(index + 1) | ((uint32_t)e->type << TYPE_SHIFT) |
           ((uint32_t)e->gen << GEN_SHIFT) | ((uint32_t)t->owner << OWNER_SHIFT);
}

/* The entry h names if it is live and matches type; NULL otherwise. */
static struct handle_entry *entry_of(const struct handle_table *t, uint32_t h,
                                     enum handle_type type, unsigned *index)
{
    unsigned i = h & INDEX_MASK;
    struct handle_entry *e;

    if (i == 0 || i > t->cap || (h >> OWNER_SHIFT) != t->owner ||
        type == HANDLE_NONE || ((h >> TYPE_SHIFT) & TYPE_MASK) != type) {
        return NULL;
    }
    e = &t->slot[i - 1];
    if (e->type != type || e->gen != ((h >> GEN_SHIFT) & GEN_MASK)) {
        return NULL;
    }
    if (index) {
        *index = i - 1;
    }
    return e;
}

void handle_table_init(struct handle_table *t, uint8_t owner,
                       struct handle_entry *storage, unsigned cap)
{
    if (cap > HANDLE_MAX_SLOTS) {
        cap = HANDLE_MAX_SLOTS;
    }
    *t = (struct handle_table){ .owner = owner, .cap = cap, .slot = storage };
    for (unsigned i = 0; i < cap; i++) {
        storage[i] = (struct handle_entry){ .gen = 1, .type = HANDLE_NONE };
    }
}

int handle_alloc(struct handle_table *t, enum handle_type type, void *obj,
                 uint32_t *h)
{
    if (type == HANDLE_NONE || type >= HANDLE_TYPE_COUNT || !obj) {
        return DDI_EINVAL;
    }
    if (t->used == t->cap) {
        return DDI_ENOMEM;
    }
    for (unsigned n = 0; n < t->cap; n++) {
        unsigned i = (t->next + n) % t->cap;
        struct handle_entry *e = &t->slot[i];

        if (e->type == HANDLE_NONE) {
            e->obj = obj;
            e->type = (uint8_t)type;
            t->used++;
            t->next = (i + 1) % t->cap;
            *h = make(t, i, e);
            return DDI_OK;
        }
    }
    return DDI_ENOMEM;      /* not reached: used < cap */
}

void *handle_lookup(const struct handle_table *t, uint32_t h,
                    enum handle_type type)
{
    struct handle_entry *e = entry_of(t, h, type, NULL);

    return e ? e->obj : NULL;
}

int handle_free(struct handle_table *t, uint32_t h, enum handle_type type)
{
    struct handle_entry *e = entry_of(t, h, type, NULL);

    if (!e) {
        return DDI_EHANDLE;
    }
    e->obj = NULL;
    e->type = HANDLE_NONE;
    /* A new generation: every handle made for the old one is stale. */
    e->gen = (uint16_t)((e->gen + 1) & GEN_MASK);
    if (e->gen == 0) {
        e->gen = 1;
    }
    t->used--;
    return DDI_OK;
}

void handle_for_each(struct handle_table *t, enum handle_type type,
                     void (*fn)(void *arg, uint32_t h, void *obj),
                     void *arg)
{
    for (unsigned i = 0; i < t->cap; i++) {
        struct handle_entry *e = &t->slot[i];

        if (e->type != HANDLE_NONE &&
            (type == HANDLE_NONE || e->type == type)) {
            fn(arg, make(t, i, e), e->obj);
        }
    }
}
