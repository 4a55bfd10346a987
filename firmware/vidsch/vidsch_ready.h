/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ready queues of one engine: one FIFO of contexts per priority level and
 * a bitmap of the levels that are not empty, so that finding the most
 * urgent ready context is one bit scan and a list head, whatever the
 * number of contexts (the patent's per-priority ready lists; Windows'
 * dispatcher ready summary does the same for threads).
 *
 * Pure C; unit-tested on the host (tests/unit/test-vidsch-ready.c).
 */
#ifndef FW_VIDSCH_VIDSCH_READY_H
#define FW_VIDSCH_VIDSCH_READY_H

#include <stdint.h>

#include "vidsch/vidsch.h"
#include "vidsch/vidsch_list.h"

#define VIDSCH_READY_LEVELS     VIDSCH_PRIO_COUNT

struct vidsch_ready {
    struct vs_list level[VIDSCH_READY_LEVELS];
    uint32_t nonempty;          /* bit l: level[l] has a member */
};

void vidsch_ready_init(struct vidsch_ready *r);

/* Joins level at its tail (its turn comes after everyone there) or at
 * its head (it resumes an interrupted turn). */
void vidsch_ready_push_back(struct vidsch_ready *r, unsigned level,
                            struct vs_link *n);
void vidsch_ready_push_front(struct vidsch_ready *r, unsigned level,
                             struct vs_link *n);
void vidsch_ready_remove(struct vidsch_ready *r, unsigned level,
                         struct vs_link *n);

/* The highest level with a member, or -1 when nothing is ready. */
static inline int vidsch_ready_top(const struct vidsch_ready *r)
{
    return r->nonempty ? 31 - __builtin_clz(r->nonempty) : -1;
}

static inline struct vs_link *vidsch_ready_head(const struct vidsch_ready *r,
                                                unsigned level)
{
    return vs_list_first(&r->level[level]);
}

static inline unsigned vidsch_ready_count(const struct vidsch_ready *r,
                                          unsigned level)
{
    return r->level[level].count;
}

#endif /* FW_VIDSCH_VIDSCH_READY_H */
