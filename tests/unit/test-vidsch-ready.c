/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the per-priority ready queues (firmware/vidsch/
 * vidsch_ready.c): FIFO within a level, the bitmap of non-empty levels
 * naming the top one, heads for resumed turns.
 */
#include <glib.h>

#include "vidsch/vidsch_ready.h"

struct item {
    struct vs_link link;
    unsigned id;
};

static unsigned head_id(struct vidsch_ready *r, unsigned level)
{
    struct vs_link *n = vidsch_ready_head(r, level);

    return n ? vs_container_of(n, struct item, link)->id : 0;
}

static void test_empty(void)
{
    struct vidsch_ready r;

    vidsch_ready_init(&r);
    g_assert_cmpint(vidsch_ready_top(&r), ==, -1);
    for (unsigned l = 0; l < VIDSCH_READY_LEVELS; l++) {
        g_assert_null(vidsch_ready_head(&r, l));
        g_assert_cmpuint(vidsch_ready_count(&r, l), ==, 0);
    }
}

static void test_top_follows_levels(void)
{
    struct vidsch_ready r;
    struct item a = { .id = 1 }, b = { .id = 2 }, c = { .id = 3 };

    vidsch_ready_init(&r);
    vidsch_ready_push_back(&r, VIDSCH_PRIO_NORMAL, &a.link);
    g_assert_cmpint(vidsch_ready_top(&r), ==, VIDSCH_PRIO_NORMAL);
    vidsch_ready_push_back(&r, VIDSCH_PRIO_IDLE, &b.link);
    g_assert_cmpint(vidsch_ready_top(&r), ==, VIDSCH_PRIO_NORMAL);
    vidsch_ready_push_back(&r, VIDSCH_PRIO_REALTIME, &c.link);
    g_assert_cmpint(vidsch_ready_top(&r), ==, VIDSCH_PRIO_REALTIME);
    vidsch_ready_remove(&r, VIDSCH_PRIO_REALTIME, &c.link);
    g_assert_cmpint(vidsch_ready_top(&r), ==, VIDSCH_PRIO_NORMAL);
    vidsch_ready_remove(&r, VIDSCH_PRIO_NORMAL, &a.link);
    g_assert_cmpint(vidsch_ready_top(&r), ==, VIDSCH_PRIO_IDLE);
    g_assert_cmpuint(head_id(&r, VIDSCH_PRIO_IDLE), ==, 2);
    vidsch_ready_remove(&r, VIDSCH_PRIO_IDLE, &b.link);
    g_assert_cmpint(vidsch_ready_top(&r), ==, -1);
    g_assert_false(vs_linked(&b.link));
}

static void test_fifo_and_front(void)
{
    struct vidsch_ready r;
    struct item it[4];

    vidsch_ready_init(&r);
    for (unsigned i = 0; i < 3; i++) {
        it[i].id = i + 1;
        vidsch_ready_push_back(&r, VIDSCH_PRIO_HIGH, &it[i].link);
    }
    g_assert_cmpuint(vidsch_ready_count(&r, VIDSCH_PRIO_HIGH), ==, 3);
    g_assert_cmpuint(head_id(&r, VIDSCH_PRIO_HIGH), ==, 1);
    /* the head's turn ends: it goes to the tail */
    vidsch_ready_remove(&r, VIDSCH_PRIO_HIGH, &it[0].link);
    vidsch_ready_push_back(&r, VIDSCH_PRIO_HIGH, &it[0].link);
    g_assert_cmpuint(head_id(&r, VIDSCH_PRIO_HIGH), ==, 2);
    /* an interrupted turn resumes first */
    it[3].id = 4;
    vidsch_ready_push_front(&r, VIDSCH_PRIO_HIGH, &it[3].link);
    g_assert_cmpuint(head_id(&r, VIDSCH_PRIO_HIGH), ==, 4);
    /* removing from the middle keeps the rest in order */
    vidsch_ready_remove(&r, VIDSCH_PRIO_HIGH, &it[1].link);
    g_assert_cmpuint(vidsch_ready_count(&r, VIDSCH_PRIO_HIGH), ==, 3);
    vidsch_ready_remove(&r, VIDSCH_PRIO_HIGH, &it[3].link);
    g_assert_cmpuint(head_id(&r, VIDSCH_PRIO_HIGH), ==, 3);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidsch-ready/empty", test_empty);
    g_test_add_func("/vidsch-ready/top-follows-levels",
                    test_top_follows_levels);
    g_test_add_func("/vidsch-ready/fifo-and-front", test_fifo_and_front);
    return g_test_run();
}
