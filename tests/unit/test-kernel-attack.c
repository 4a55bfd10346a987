/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). Hostile applications of the second
 * and third reviews (/kernel/attack2, /kernel/attack3): each breach failed on
 * the kernel before its fix.
 */
#include "test-kernel.h"

/* ---- attack2: second-round hostile applications (fail on this kernel) ---- */

struct a2_trim {
    struct gv_app *a;
    int st, evict_st;
    unsigned calls, waits_done, allowed;   /* allowed: waits not refused */
};

static void a2_wait_done(void *arg, int status)
{
    struct a2_trim *t = arg;

    (void)status;
    t->waits_done++;
}

static void a2_on_trim(void *arg, uint64_t bytes)
{
    struct a2_trim *t = arg;

    (void)bytes;
    t->calls++;
    /* a change (a CPU-wait slot taken, work queued) made from inside
     * another process's MakeResident: a trim callback may only evict */
    t->st = kapi_wait_throttle(t->a->p, a2_wait_done, t);
    t->allowed += t->st != DDI_EACCESS;
    t->evict_st = kapi_evict(t->a->p, t->a->dev, &t->a->h[0], 1, NULL);
    if (t->evict_st == DDI_OK) {
        t->a->held[0] = false;
    }
}

/*
 * attack2/trim-wait-throttle: kapi_wait_throttle makes no class check
 * (no KCALL), so a trim callback running inside ANOTHER process's
 * MakeResident takes a wait slot and queues kernel work there. Rule
 * broken: "a call made from a callback is checked against what that
 * callback may do" (kernel_internal.h: a trim callback may only evict;
 * everything else is DDI_EACCESS). kapi_timer_arm and
 * kapi_set_lost_callback have no class check either.
 */
static void test_attack2_trim_wait_throttle(void)
{
    struct gv_app a, v;
    struct a2_trim t = { .a = &a };
    uint64_t f = 0;

    setup_gpuva();
    gv_make(&a, "trimmed", 4, 0);
    g_assert_cmpint(kapi_set_trim_callback(a.p, a2_on_trim, &t), ==, DDI_OK);
    gv_make(&v, "victim", 2, 2 * GV_ALLOC);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpint(gv_resident(&a, i, &f), ==, DDI_OK);
        run();
    }
    g_assert_cmpint(gv_resident(&v, 0, &f), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_set_budget(a.p, 2 * GV_ALLOC), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&v, 1, &f), ==, DDI_OK);
    g_assert_cmpuint(t.calls, >=, 1);
    g_assert_cmpint(t.evict_st, ==, DDI_OK);
    /* the breach: OK, and no refusal counted; now every wait the trim
     * callback asked for was refused, and counted as a refusal */
    g_assert_cmpuint(t.allowed, ==, 0);
    g_assert_cmpuint(kern.cb.refused, >=, t.calls);
    run();
    g_assert_cmpuint(t.waits_done, ==, 0);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(v.p), ==, DDI_OK);
    run();
}

static void a2_count_fire(void *arg, uint64_t now)
{
    (void)now;
    (*(unsigned *)arg)++;
}

/*
 * attack2/timer-init-armed: kapi_timer_init on a timer the caller armed
 * (its own memory, a legal call: kapi.h forbids nothing) wipes its link
 * while the kernel's list still holds it. The hostile process arms its
 * timer first in the list and re-initialises it: when it is popped the
 * rest of the kernel's timer list goes with it. Another process's timer
 * never fires (frozen), nor would vidsch's quantum/TDR timers. Rule:
 * one process must never freeze another; the kernel's own list must not
 * live in state an application call can rewrite behind its back.
 */
static void test_attack2_timer_init_armed(void)
{
    struct proc a, b;
    struct ktimer ta, tb;
    unsigned a_fired = 0, b_fired = 0;

    setup();
    make_proc(&a, "hostile");
    make_proc(&b, "victim");
    kapi_timer_init(&tb, a2_count_fire, &b_fired);
    kapi_timer_arm(b.p, &tb, gpu.now + 2000000);
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    kapi_timer_arm(a.p, &ta, gpu.now + 1000);
    /* armed, then initialised again: legal calls on its own memory */
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    gpu.now += 5000000;
    run();
    /* the victim's timer was due 3 ms ago */
    g_assert_cmpuint(b_fired, ==, 1);
}

/*
 * attack2/timer-init-rearm-cycle: the same, then armed again: the
 * timer is inserted in front of itself (t->next == t). The kernel's
 * timer list is a cycle: the next walk of it (any kapi_timer_arm, any
 * vidsch timer, an exit's disarm) never ends -- the kernel hangs. The
 * test walks the list with a bound instead of hanging.
 */
static void test_attack2_timer_init_rearm_cycle(void)
{
    struct proc a;
    struct ktimer ta;
    unsigned a_fired = 0, n = 0;

    setup();
    make_proc(&a, "hostile");
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    kapi_timer_arm(a.p, &ta, gpu.now + 1000);
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    kapi_timer_arm(a.p, &ta, gpu.now + 1000);
    for (struct ktimer *t = kern.ev.timers.head; t && n <= 1000;
         t = t->next) {
        n++;
    }
    /* a well-formed list ends, and has as many entries as it counts */
    g_assert_cmpuint(n, <=, 1000);
    g_assert_cmpuint(n, ==, kern.ev.timers.count);
    kapi_timer_cancel(a.p, &ta);
}

/*
 * attack2/timer-init-outlives-exit: the exit disarms the timers whose
 * owner is the exiting pid; kapi_timer_init on an armed timer resets
 * its owner to 0 (the kernel's) and "armed" to false while it stays
 * linked behind another process's timer. The exit leaves it there; when
 * that timer is popped the hostile one comes to the head and fires
 * after its process exited and after its record went to a new process:
 * its callback calls with its old process pointer and creates a device
 * charged to the new process (the ident/dead-timer breach of issue 26,
 * again). Rule: none of an exited process's code runs again; a later
 * process is never taken for it.
 */
static void test_attack2_timer_init_outlives_exit(void)
{
    struct proc a, b, c;
    struct dead_timer d = { 0 };
    struct ktimer ta, tb;
    unsigned b_fired = 0;

    setup();
    make_proc(&b, "bystander");
    make_proc(&a, "killed");
    d.p = a.p;
    kapi_timer_init(&tb, a2_count_fire, &b_fired);
    kapi_timer_arm(b.p, &tb, gpu.now + 300000000ull);
    kapi_timer_init(&ta, dead_timer_fires, &d);
    kapi_timer_arm(a.p, &ta, gpu.now + 400000000ull);
    kapi_timer_init(&ta, dead_timer_fires, &d);   /* still linked */
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_false(a.p->used);
    make_proc(&c, "next");
    g_assert_true(c.p == a.p);          /* the record, reused */
    gpu.now += 350000000ull;            /* the bystander's timer's time */
    run();
    g_test_message("dead callback ran %u time(s), its create_device "
                   "returned %d; devices charged to the next process: %u",
                   d.fired, d.st, (unsigned)c.p->quota.used[KQ_DEVICES]);
    g_assert_cmpuint(b_fired, ==, 1);
    g_assert_cmpuint(d.fired, ==, 0);
    g_assert_cmpuint(c.p->quota.used[KQ_DEVICES], ==, 1);
}

/* ---- attack3: third-round hostile applications (fail on this kernel) ---- */

/*
 * attack3/timer-quota: kapi_timer_arm takes no charge and has no limit.
 * The hostile process arms 8000 timers of its own memory, all due
 * far in the future at the same time; every later kapi_timer_arm by
 * anyone (and vidsch's quantum/TDR timers) walks past all of them
 * (ktimer_arm is a sorted-list insert), and each exit's disarm walks
 * them too: one process makes every other's arm O(its count) without
 * bound -- the loop starves deterministically as the count grows.
 * Rule (docs/os.rst, "A quota on every table"): no process may grow a
 * kernel table without a charge and a limit. The test asserts that
 * the kernel's timer list does not hold more of one process's timers
 * than a generous bound (4096); a kernel with any per-process timer
 * quota refuses the rest.
 */
#define A3_TIMERS 8000
static void test_attack3_timer_quota(void)
{
    struct proc a, b;
    static struct ktimer ta[A3_TIMERS];
    struct ktimer tb;
    unsigned a_fired = 0, b_fired = 0, a_armed = 0;

    setup();
    make_proc(&a, "hostile");
    make_proc(&b, "victim");
    for (unsigned i = 0; i < A3_TIMERS; i++) {
        kapi_timer_init(&ta[i], a2_count_fire, &a_fired);
        kapi_timer_arm(a.p, &ta[i], gpu.now + 1000000000000ull);
    }
    for (struct ktimer *t = kern.ev.timers.head; t; t = t->next) {
        a_armed += t->owner == a.p->pid;
    }
    /* the victim's arm walks the hostile process's whole list */
    kapi_timer_init(&tb, a2_count_fire, &b_fired);
    kapi_timer_arm(b.p, &tb, gpu.now + 2000000000000ull);
    g_test_message("one process holds %u timers on the kernel's list "
                   "(%u in all)", a_armed,
                   (unsigned)kern.ev.timers.count);
    kapi_timer_cancel(b.p, &tb);
    for (unsigned i = 0; i < A3_TIMERS; i++) {
        kapi_timer_cancel(a.p, &ta[i]);
    }
    g_assert_cmpuint(a_armed, <=, 4096);
}

/*
 * attack3/gpuva-guarantee-before-device: a process's guarantee of the
 * GPU-VA pools is kept "from its first GPU-VA device on" (docs/os.rst),
 * and nothing checks, when that device comes, that the guarantee is
 * still there. The victim is created first, on an empty machine
 * (guarantee: a sixteenth of the GPU-VA VRAM); before it makes its
 * GPU-VA device two hostile processes, each within its quota (half),
 * reference all of the GPU-VA VRAM. The victim's device is created
 * (DDI_OK), yet its first MakeResident of one page -- far below its
 * guarantee -- fails with DDI_ENOMEM for as long as the hostile
 * processes like. Rule: each live process is guaranteed a sixteenth of
 * each pool (or what the others left when it was created); a call that
 * would take another's guarantee fails. A correct kernel either keeps
 * the victim's share or refuses its GPU-VA device with a clear error.
 */
static void test_attack3_gpuva_guarantee_before_device(void)
{
    struct gv_app h1, h2;
    struct kproc *v;
    struct kapi_alloc_desc d = { .size = 4096, .cpu_visible = true };
    uint32_t dev, h;
    uint64_t f = 0, va;
    int st;

    setup_gpuva();
    v = kapi_process_create(&kern, "victim");
    g_assert_nonnull(v);
    g_test_message("victim's guarantee of GPU-VA VRAM: %" PRIu64 " bytes",
                   v->quota.reserve[KQ_GPUVA_VRAM]);
    g_assert_cmpuint(v->quota.reserve[KQ_GPUVA_VRAM], >=, 4096);
    gv_make(&h1, "hostile1", 2, 0);
    gv_make(&h2, "hostile2", 2, 0);
    for (unsigned i = 0; i < 2; i++) {
        g_test_message("hostile1 MakeResident %u: %d", i,
                       gv_resident(&h1, i, &f));
        g_test_message("hostile2 MakeResident %u: %d", i,
                       gv_resident(&h2, i, &f));
    }
    run();
    st = kapi_create_device_gpuva(v, &dev);
    g_test_message("victim's GPU-VA device: %d", st);
    if (st != DDI_OK) {
        return;     /* refused with a clear error: the rule holds */
    }
    g_assert_cmpint(kapi_create_allocation(v, dev, &d, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_gpu_va(v, h, &va), ==, DDI_OK);
    run();
    st = kapi_make_resident(v, dev, &h, 1, &f);
    g_test_message("victim's MakeResident of one page: %d (hostiles "
                   "charged %" PRIu64 " + %" PRIu64 " of %" PRIu64 ")", st,
                   h1.p->quota.used[KQ_GPUVA_VRAM],
                   h2.p->quota.used[KQ_GPUVA_VRAM],
                   kern.gpuva.res.capacity);
    g_assert_cmpint(st, !=, DDI_ENOMEM);
}

void kernel_tests_attack(void)
{
    /* attack2: breaches the review of issue 26's fixes found (each failed
     * before its fix) */
    g_test_add_func("/kernel/attack2/trim-wait-throttle",
                    test_attack2_trim_wait_throttle);
    g_test_add_func("/kernel/attack2/timer-init-armed",
                    test_attack2_timer_init_armed);
    g_test_add_func("/kernel/attack2/timer-init-rearm-cycle",
                    test_attack2_timer_init_rearm_cycle);
    g_test_add_func("/kernel/attack2/timer-init-outlives-exit",
                    test_attack2_timer_init_outlives_exit);
    /* attack3: breaches the third review found (each failed before its
     * fix) */
    g_test_add_func("/kernel/attack3/timer-quota", test_attack3_timer_quota);
    g_test_add_func("/kernel/attack3/gpuva-guarantee-before-device",
                    test_attack3_gpuva_guarantee_before_device);
}
