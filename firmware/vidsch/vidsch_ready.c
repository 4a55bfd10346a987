/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "vidsch/vidsch_ready.h"

void vidsch_ready_init(struct vidsch_ready *r)
{
    for (unsigned l = 0; l < VIDSCH_READY_LEVELS; l++) {
        vs_list_init(&r->level[l]);
    }
    r->nonempty = 0;
}

void vidsch_ready_push_back(struct vidsch_ready *r, unsigned level,
                            struct vs_link *n)
{
    vs_list_push_back(&r->level[level], n);
    r->nonempty |= 1u << level;
}

void vidsch_ready_push_front(struct vidsch_ready *r, unsigned level,
                             struct vs_link *n)
{
    vs_list_push_front(&r->level[level], n);
    r->nonempty |= 1u << level;
}

void vidsch_ready_remove(struct vidsch_ready *r, unsigned level,
                         struct vs_link *n)
{
    vs_list_remove(&r->level[level], n);
    if (vs_list_empty(&r->level[level])) {
        r->nonempty &= ~(1u << level);
    }
}
