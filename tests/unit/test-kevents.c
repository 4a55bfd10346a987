/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the kernel's event-loop pieces: the timer list
 * (firmware/kernel/ktimer.c), the DPC and work queues (kqueue.c) and the
 * order the loop serves them in (kevents.c), with a fake clock.
 */
#include <glib.h>
#include <string.h>

#include "kernel/kevents.h"

static char trace[256];

static void note(const char *what)
{
    g_strlcat(trace, what, sizeof(trace));
}

static void item_fn(void *arg)
{
    note(arg);
}

static void timer_fn(void *arg, uint64_t now)
{
    (void)now;
    note(arg);
}

static void test_timer_order(void)
{
    struct ktimer_list l;
    struct ktimer a, b, c, d, *t;
    uint64_t when;

    ktimer_list_init(&l);
    ktimer_init(&a, timer_fn, "a");
    ktimer_init(&b, timer_fn, "b");
    ktimer_init(&c, timer_fn, "c");
    ktimer_init(&d, timer_fn, "d");
    g_assert_false(ktimer_next(&l, &when));
    ktimer_arm(&l, &a, 300);
    ktimer_arm(&l, &b, 100);
    ktimer_arm(&l, &c, 200);
    ktimer_arm(&l, &d, 100);            /* tie with b: after it */
    g_assert_cmpuint(l.count, ==, 4);
    g_assert_true(ktimer_next(&l, &when));
    g_assert_cmpuint(when, ==, 100);
    g_assert_null(ktimer_pop_due(&l, 99));
    t = ktimer_pop_due(&l, 1000);
    g_assert_true(t == &b);
    g_assert_false(b.armed);
    g_assert_true(ktimer_pop_due(&l, 1000) == &d);
    g_assert_true(ktimer_pop_due(&l, 1000) == &c);
    g_assert_true(ktimer_pop_due(&l, 1000) == &a);
    g_assert_null(ktimer_pop_due(&l, UINT64_MAX));
    g_assert_cmpuint(l.count, ==, 0);
}

static void test_timer_rearm_cancel(void)
{
    struct ktimer_list l;
    struct ktimer a, b;
    uint64_t when;

    ktimer_list_init(&l);
    ktimer_init(&a, timer_fn, "a");
    ktimer_init(&b, timer_fn, "b");
    ktimer_arm(&l, &a, 100);
    ktimer_arm(&l, &b, 200);
    ktimer_arm(&l, &a, 300);            /* re-arm moves, never duplicates */
    g_assert_cmpuint(l.count, ==, 2);
    g_assert_true(ktimer_next(&l, &when));
    g_assert_cmpuint(when, ==, 200);
    ktimer_cancel(&l, &b);
    ktimer_cancel(&l, &b);              /* twice is harmless */
    g_assert_cmpuint(l.count, ==, 1);
    g_assert_true(ktimer_next(&l, &when));
    g_assert_cmpuint(when, ==, 300);
    ktimer_cancel(&l, &a);
    g_assert_false(ktimer_next(&l, &when));
}

static void test_queue_once(void)
{
    struct kqueue q;
    struct kitem x, y;

    kqueue_init(&q);
    kitem_init(&x, item_fn, "x");
    kitem_init(&y, item_fn, "y");
    g_assert_true(kqueue_empty(&q));
    g_assert_true(kqueue_push(&q, &x));
    g_assert_false(kqueue_push(&q, &x));    /* already queued: once */
    g_assert_true(kqueue_push(&q, &y));
    g_assert_true(kqueue_pop(&q) == &x);
    g_assert_false(x.queued);
    g_assert_true(kqueue_push(&q, &x));     /* may be queued again */
    g_assert_true(kqueue_pop(&q) == &y);
    g_assert_true(kqueue_pop(&q) == &x);
    g_assert_null(kqueue_pop(&q));
    g_assert_true(kqueue_empty(&q));
    g_assert_cmpuint(q.pushed, ==, 3);
    g_assert_cmpuint(q.ran, ==, 3);
}

/* An item that queues itself again runs again, after the others. */
struct requeue {
    struct kqueue *q;
    struct kitem it;
    unsigned left;
};

static void requeue_fn(void *arg)
{
    struct requeue *r = arg;

    note("r");
    if (--r->left) {
        kqueue_push(r->q, &r->it);
    }
}

static void test_loop_order(void)
{
    struct kevents ev;
    struct kitem d1, d2, w1, w2;
    struct ktimer t1, t2;
    struct requeue r;
    uint64_t wake = 0;
    enum kevents_step s;

    trace[0] = 0;
    kevents_init(&ev);
    kitem_init(&d1, item_fn, "D1");
    kitem_init(&d2, item_fn, "D2");
    kitem_init(&w1, item_fn, "W1");
    kitem_init(&w2, item_fn, "W2");
    ktimer_init(&t1, timer_fn, "T1");
    ktimer_init(&t2, timer_fn, "T2");
    r = (struct requeue){ .q = &ev.work, .left = 2 };
    kitem_init(&r.it, requeue_fn, &r);

    kqueue_push(&ev.work, &w1);
    kqueue_push(&ev.work, &r.it);
    kqueue_push(&ev.work, &w2);
    ktimer_arm(&ev.timers, &t1, 50);
    ktimer_arm(&ev.timers, &t2, 500);
    kqueue_push(&ev.dpc, &d1);
    kqueue_push(&ev.dpc, &d2);

    /* now = 100: DPCs first, then the due timer, then work, one a step */
    g_assert_cmpint(kevents_step(&ev, 100, &wake), ==, KEVENTS_RAN_DPC);
    g_assert_cmpint(kevents_step(&ev, 100, &wake), ==, KEVENTS_RAN_DPC);
    g_assert_cmpint(kevents_step(&ev, 100, &wake), ==, KEVENTS_RAN_TIMER);
    g_assert_cmpint(kevents_step(&ev, 100, &wake), ==, KEVENTS_RAN_WORK);
    /* a DPC queued between work items runs before the next one */
    kqueue_push(&ev.dpc, &d1);
    g_assert_cmpint(kevents_step(&ev, 100, &wake), ==, KEVENTS_RAN_DPC);
    while ((s = kevents_step(&ev, 100, &wake)) == KEVENTS_RAN_WORK) {
    }
    g_assert_cmpint(s, ==, KEVENTS_IDLE);
    g_assert_cmpuint(wake, ==, 500);
    g_assert_cmpstr(trace, ==, "D1D2T1W1D1rW2r");
    g_assert_cmpint(kevents_step(&ev, 500, &wake), ==, KEVENTS_RAN_TIMER);
    g_assert_cmpint(kevents_step(&ev, 500, &wake), ==, KEVENTS_IDLE);
    g_assert_cmpuint(wake, ==, KEVENTS_NEVER);
    g_assert_cmpuint(ev.dpcs, ==, 3);
    g_assert_cmpuint(ev.timers_fired, ==, 2);
    g_assert_cmpuint(ev.works, ==, 4);
}

/* A timer that re-arms itself at once (an application's zero-delay
 * loop) is due at every step: kernel work must still run (issue 15
 * item 8). */
struct spinner {
    struct ktimer t;
    struct ktimer_list *l;
    unsigned fired;
};

static void spin_fn(void *arg, uint64_t now)
{
    struct spinner *sp = arg;

    sp->fired++;
    ktimer_arm(sp->l, &sp->t, now);
}

static void test_timer_cannot_starve_work(void)
{
    struct kevents ev;
    struct spinner sp;
    struct kitem w;
    uint64_t wake = 0;
    unsigned steps = 0;

    trace[0] = 0;
    kevents_init(&ev);
    sp = (struct spinner){ .l = &ev.timers };
    ktimer_init(&sp.t, spin_fn, &sp);
    ktimer_arm(&ev.timers, &sp.t, 0);
    kitem_init(&w, item_fn, "W");
    kqueue_push(&ev.work, &w);
    while (!trace[0] && steps < 1000) {
        kevents_step(&ev, 100, &wake);
        steps++;
    }
    g_assert_cmpstr(trace, ==, "W");
    g_assert_cmpuint(sp.fired, ==, KEVENTS_TIMER_BURST);
    g_assert_cmpuint(steps, ==, KEVENTS_TIMER_BURST + 1);
    g_assert_cmpuint(ev.timer_yields, ==, 1);
    /* and again for the next work item, however long the loop spins */
    kqueue_push(&ev.work, &w);
    trace[0] = 0;
    for (steps = 0; !trace[0] && steps < 1000; steps++) {
        kevents_step(&ev, 200, &wake);
    }
    g_assert_cmpuint(steps, <=, KEVENTS_TIMER_BURST + 1);
    /* without work waiting, the timer runs every step */
    sp.fired = 0;
    for (unsigned i = 0; i < 50; i++) {
        g_assert_cmpint(kevents_step(&ev, 300, &wake), ==, KEVENTS_RAN_TIMER);
    }
    g_assert_cmpuint(sp.fired, ==, 50);
}

/* Issue 26 item 5: a timer armed in the past (at 0) that re-arms itself
 * at 0 from its callback. It used to stay the earliest timer for ever:
 * a kernel timer due meanwhile (vidsch's quantum, aging and watchdog)
 * never fired, and the LAPIC was never needed to end a halt. A time in the
 * past counts as now: the kernel's timer fires at the next timer step. */
struct past_spinner {
    struct ktimer t;
    struct ktimer_list *l;
    uint64_t when;          /* what it asks for */
    unsigned fired;
};

static void past_spin_fn(void *arg, uint64_t now)
{
    struct past_spinner *sp = arg;

    (void)now;
    sp->fired++;
    ktimer_arm(sp->l, &sp->t, sp->when);
}

static void test_timer_in_past_cannot_starve_timers(void)
{
    static const uint64_t asks[] = { 0, 1, 99, 100 };

    for (unsigned a = 0; a < G_N_ELEMENTS(asks); a++) {
        struct kevents ev;
        struct past_spinner sp;
        struct ktimer kt;
        struct kitem w, d;
        uint64_t wake = 0, now = 100;
        unsigned steps;

        trace[0] = 0;
        kevents_init(&ev);
        sp = (struct past_spinner){ .l = &ev.timers, .when = asks[a] };
        ktimer_init(&sp.t, past_spin_fn, &sp);
        ktimer_init(&kt, timer_fn, "K");
        kitem_init(&w, item_fn, "W");
        kitem_init(&d, item_fn, "D");
        ktimer_arm(&ev.timers, &sp.t, 0);
        ktimer_arm(&ev.timers, &kt, 50);        /* due, behind it */
        for (steps = 0; !strchr(trace, 'K') && steps < 1000; steps++) {
            kevents_step(&ev, now, &wake);
        }
        g_assert_cmpstr(trace, ==, "K");
        g_assert_cmpuint(sp.fired, ==, 1);
        /* re-armed later, due later: again after one of the spinner's */
        trace[0] = 0;
        sp.fired = 0;
        ktimer_arm(&ev.timers, &kt, 150);
        now = 200;
        for (steps = 0; !strchr(trace, 'K') && steps < 1000; steps++) {
            kevents_step(&ev, now, &wake);
        }
        g_assert_cmpstr(trace, ==, "K");
        g_assert_cmpuint(sp.fired, <=, 1);
        /* and kernel work and DPCs still run between its firings */
        trace[0] = 0;
        kqueue_push(&ev.work, &w);
        kqueue_push(&ev.dpc, &d);
        for (steps = 0; strlen(trace) < 2 && steps < 1000; steps++) {
            kevents_step(&ev, now, &wake);
        }
        g_assert_cmpstr(trace, ==, "DW");
        g_assert_cmpuint(steps, <=, 2 + KEVENTS_TIMER_BURST);
    }
}

/* The idle loop's work is due every KEVENTS_IDLE_WORK_NS of a loop that
 * never idles (a spinning timer), and not while the loop idles. */
static void test_idle_work_while_busy(void)
{
    struct kevents ev;
    struct spinner sp;
    uint64_t wake = 0, now = 1000;
    unsigned due = 0;

    kevents_init(&ev);
    sp = (struct spinner){ .l = &ev.timers };
    ktimer_init(&sp.t, spin_fn, &sp);
    g_assert_cmpint(kevents_step(&ev, now, &wake), ==, KEVENTS_IDLE);
    g_assert_false(kevents_idle_work_due(&ev, now + 10));
    ktimer_arm(&ev.timers, &sp.t, now);
    /* 1 ms of steps 1 us apart, every one a timer */
    for (unsigned i = 0; i < 1000; i++, now += 1000) {
        g_assert_cmpint(kevents_step(&ev, now, &wake), ==,
                        KEVENTS_RAN_TIMER);
        due += kevents_idle_work_due(&ev, now);
    }
    g_assert_cmpuint(due, >=, 1000000 / KEVENTS_IDLE_WORK_NS - 1);
    g_assert_cmpuint(due, <=, 1000000 / KEVENTS_IDLE_WORK_NS);
    g_assert_cmpuint(ev.busy_idle_works, ==, due);
    /* idle again: the loop does it itself */
    ktimer_cancel(&ev.timers, &sp.t);
    g_assert_cmpint(kevents_step(&ev, now, &wake), ==, KEVENTS_IDLE);
    g_assert_false(kevents_idle_work_due(&ev, now + KEVENTS_IDLE_WORK_NS -
                                         1));
}

/* A due time in the past is the list's clock: FIFO behind those due. */
static void test_timer_past_is_now(void)
{
    struct ktimer_list l;
    struct ktimer a, b;

    ktimer_list_init(&l);
    ktimer_init(&a, timer_fn, "a");
    ktimer_init(&b, timer_fn, "b");
    ktimer_set_now(&l, 100);
    ktimer_arm(&l, &a, 90);
    ktimer_arm(&l, &b, 0);
    g_assert_cmpuint(a.when, ==, 100);
    g_assert_cmpuint(b.when, ==, 100);
    g_assert_true(ktimer_pop_due(&l, 100) == &a);
    ktimer_set_now(&l, 50);                 /* never goes back */
    ktimer_arm(&l, &a, 0);
    g_assert_cmpuint(a.when, ==, 100);
    g_assert_true(ktimer_pop_due(&l, 100) == &b);
    g_assert_true(ktimer_pop_due(&l, 100) == &a);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/kevents/timer-order", test_timer_order);
    g_test_add_func("/kevents/timer-rearm-cancel", test_timer_rearm_cancel);
    g_test_add_func("/kevents/queue-once", test_queue_once);
    g_test_add_func("/kevents/loop-order", test_loop_order);
    g_test_add_func("/kevents/timer-cannot-starve-work",
                    test_timer_cannot_starve_work);
    g_test_add_func("/kevents/timer-in-past-cannot-starve-timers",
                    test_timer_in_past_cannot_starve_timers);
    g_test_add_func("/kevents/timer-past-is-now", test_timer_past_is_now);
    g_test_add_func("/kevents/idle-work-while-busy",
                    test_idle_work_while_busy);
    return g_test_run();
}
