/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). A process's exit and what it leaves
 * (issue 15 items 11, 12): locks, GPU-VA mappings, its calls after its exit
 * refused or ignored, its objects reclaimed while others still use them, a
 * thousand processes come and gone; and hostile processes at random (a property
 * test, in packet-based and GPU-VA mode), the kernel's books checked after
 * every life.
 */
#include "test-kernel.h"

/* A lock cannot be held for ever against the others: the locks a process
 * took through a handle go when the handle is closed or the process
 * exits (an opener that locked a shared allocation and died left it
 * pinned: vidmm could never move it again). */
static void test_exit_releases_locks(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    volatile void *cpu;
    uint32_t name, h;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 2);
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 0);
    /* a's own lock is a's, closed with its handle */
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 1);
}

/* GPU-VA mode: a process with resident allocations exits; its residency
 * and backing go back, and the next process of its slot takes its
 * address space instead of asking the driver for a new one (page tables
 * are not leaked per process). */
static void test_exit_gpuva(void)
{
    struct gv_app a, b;
    struct kernel_census start;
    uint64_t f = 0, budget, usage;

    setup_gpuva();
    take_census(&start);
    gv_make(&a, "a", 3, 0);
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a, 1, &f), ==, DDI_OK);
    run();
    g_assert_cmpuint(fv.spaces, ==, 1);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1);
    g_assert_cmpuint(kern.gpuva.stats.spaces_recycled, ==, 1);
    assert_census(&start);
    g_assert_cmpuint(kern.gpuva.res.used, ==, 0);
    gv_make(&b, "b", 3, 0);
    g_assert_cmpuint(fv.spaces, ==, 1);     /* a's, taken again */
    g_assert_cmpint(gv_resident(&b, 2, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, GV_ALLOC);  /* nothing of a's counted */
}

/* A process's calls after its exit (its record exiting, then freed):
 * refused or ignored, never a crash (an application's timer firing after
 * its process was killed). */
static void never_fires(void *arg, uint64_t now)
{
    (void)arg;
    (void)now;
    g_assert_not_reached();
}

static void test_exit_dead_calls(void)
{
    struct proc a;
    struct ktimer t;
    uint32_t h;

    setup();
    make_proc(&a, "a");
    kapi_timer_init(&t, NULL, NULL);
    for (unsigned pass = 0; pass < 2; pass++) {
        if (pass == 0) {
            gpu.hold = true;        /* its record stays: a buffer is out */
            g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
            run();
            g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
            g_assert_true(a.p->used && a.p->exiting);
        } else {
            gpu.hold = false;
            gpu.preempt_pending[0] = false;
            gpu.nq[0] = 0;
            kernel_upcalls.preempted(&kern, 0, gpu.preempt_fence[0], 0,
                                     gpu.completed[0]);
            run();
            g_assert_false(a.p->used);  /* freed: zeroed */
        }
        g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_EINVAL);
        g_assert_cmpint(kapi_create_device(a.p, &h), ==, DDI_EINVAL);
        g_assert_cmpint(kapi_create_device_gpuva(a.p, &h), ==, DDI_EINVAL);
        g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_EHANDLE);
        g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_EHANDLE);
        kapi_timer_init(&t, never_fires, NULL);
        kapi_timer_arm(a.p, &t, gpu.now + 1000);     /* not armed */
        run();
        kapi_timer_cancel(a.p, &t);
        kapi_set_lost_callback(a.p, NULL, NULL);
        (void)kapi_now(a.p);
    }
}

/* Process exit: a process with buffers on the GPU (held), queued behind
 * a wait, CPU waits, shared objects and presents... is killed: the
 * running buffer is preempted, everything it had comes back, the other
 * process keeps what it opened, and its waiter on the dead process's
 * sync object is released with DDI_EABANDONED. */
static void test_exit_reclaims(void)
{
    struct proc a, b;
    struct kernel_census start;
    struct waited wa = { 0 }, wb = { 0 };
    uint32_t name, sname, h, hs, never, ctx2;

    setup();
    take_census(&start);
    make_proc(&b, "b");
    make_proc(&a, "a");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &sname), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, sname, &hs), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.p, hs, 5, on_wait, &wb), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, hs, 5), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);  /* held */
    /* a: one buffer running (the GPU holds it), more queued behind a
     * wait that never completes, a CPU wait */
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_IDLE,
                                        &ctx2), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(a.p, a.dev, 0, &never), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(a.p, ctx2, never, 1), ==, DDI_OK);
    for (unsigned i = 0; i < 5; i++) {
        g_assert_cmpint(fill(&a, ctx2, a.buf, 64), ==, DDI_OK);
    }
    g_assert_cmpint(kapi_wait_cpu(a.p, never, 1, on_wait, &wa), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_EINVAL);
    run();
    /* the running buffer: preempted, not run to its end */
    g_assert_true(gpu.preempt_pending[0]);
    gpu.preempt_pending[0] = false;
    gpu.nq[0] = 0;                      /* the engine dropped it */
    gpu.hold = false;
    kernel_upcalls.preempted(&kern, 0, gpu.preempt_fence[0], 0,
                             gpu.completed[0]);
    run();
    g_assert_cmpuint(wa.calls, ==, 0);  /* nothing calls the dead one */
    g_assert_cmpuint(wb.calls, ==, 1);
    g_assert_cmpint(wb.status, ==, DDI_EABANDONED);
    /* b's GPU wait was released: its buffer ran (after a's first) */
    g_assert_cmpuint(gpu.submits, ==, 2);
    g_assert_cmpuint(kern.stats.processes_freed, ==, 0);  /* b holds two */
    g_assert_cmpint(fill(&b, b.ctx, h, 64), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_sync(b.p, hs), ==, DDI_OK);
    run();
    /* b let go of the last things a created: a's record goes (the
     * sync object's word too: no wait or signal of it is pending) */
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1);
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 2);
    assert_census(&start);
}

/* Processes come and go far more often than there are ids or records:
 * 1000 lives, each with work on the GPU when it is killed. */
static void test_exit_many(void)
{
    struct kernel_census start;

    setup();
    take_census(&start);
    for (unsigned i = 0; i < 1000; i++) {
        struct proc a;

        make_proc(&a, "short-lived");
        g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
        g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
        if (i % 2) {
            run();
        }
        g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
        if (i % 3 == 0) {
            run();
        }
    }
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1000);
    assert_census(&start);
}

/* ---- hostile processes, at random (property test) ---- */

#define HP_PROCS    4
#define HP_HANDLES  48

struct hp_proc {
    struct kproc *p;
    uint32_t dev, ctx;
    uint32_t h[HP_HANDLES];     /* allocations and sync objects it made */
    unsigned nh;
    struct waited w;
    uint32_t gdev;              /* GPU-VA mode: its GPU-VA device */
    uint32_t res[8];            /* references it made resident */
    unsigned nres;
    bool lock_pending;          /* a lock wait of it is pending ... */
    uint32_t lock_h;            /* ... on this handle */
};

/* What the property test knows across lives: the mode, every shared
 * name seen (with its creator's pid) and every grant made, to check that
 * an open succeeds only where a grant (or creation) allows it. */
#define HP_NAMES    64
#define HP_GRANTS   4096

static struct {
    bool gpuva;
    unsigned exit_one_in;       /* exits: one step in this many */
    GRand *r;
    struct hp_proc *all;
    uint32_t last_pid;
    unsigned lives, trims, opens, lock_waits, refused_in_trim, waits_done;
    struct { uint32_t name, creator; bool sync; } names[HP_NAMES];
    unsigned nnames;
    struct { uint32_t name, pid; } grants[HP_GRANTS];
    unsigned ngrants;
    uint32_t dead_pids[16];
} hp;

/* The pid of the process that created the object x's handle h names. */
static uint32_t hp_creator(struct hp_proc *x, uint32_t h, bool sync)
{
    const struct kdevice *d;

    if (sync) {
        const struct ksync *o = handle_lookup(&x->p->handles, h,
                                              HANDLE_SYNC);
        d = o ? o->dev : NULL;
    } else {
        const struct kalloc *o = handle_lookup(&x->p->handles, h,
                                               HANDLE_ALLOCATION);
        d = o ? o->dev : NULL;
    }
    g_assert_nonnull(d);
    return kapi_process_id(d->proc);
}

static void hp_note_name(uint32_t name, uint32_t creator, bool sync)
{
    unsigned i = hp.nnames++ % HP_NAMES;

    hp.names[i].name = name;
    hp.names[i].creator = creator;
    hp.names[i].sync = sync;
}

static void hp_note_grant(uint32_t name, uint32_t pid)
{
    g_assert_cmpuint(hp.ngrants, <, HP_GRANTS);
    hp.grants[hp.ngrants].name = name;
    hp.grants[hp.ngrants].pid = pid;
    hp.ngrants++;
}

static bool hp_was_granted(uint32_t name, uint32_t pid)
{
    for (unsigned i = 0; i < hp.ngrants; i++) {
        if (hp.grants[i].name == name && hp.grants[i].pid == pid) {
            return true;
        }
    }
    return false;
}

/* What every process holds adds up to what the tables hold. */
static void hp_check_books(const struct kernel_census *start)
{
    struct kernel_census now;
    uint64_t used[KQ_COUNT] = { 0 };

    kernel_census(&kern, &now);
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        for (unsigned q = 0; kern.procs[i].used && q < KQ_COUNT; q++) {
            used[q] += kern.procs[i].quota.used[q];
        }
    }
    g_assert_cmpuint(used[KQ_DEVICES], ==, now.devices);
    g_assert_cmpuint(used[KQ_CONTEXTS], ==, now.contexts);
    g_assert_cmpuint(used[KQ_ALLOCS], ==, now.allocs);
    g_assert_cmpuint(used[KQ_SYNCS], ==, now.syncs);
    g_assert_cmpuint(used[KQ_BUFFERS], ==, now.buffers);
    g_assert_cmpuint(used[KQ_WAITS], ==, now.waits);
    g_assert_cmpuint(used[KQ_KVRAM], ==, now.seg_bytes - start->seg_bytes);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
    /* every table with a quota: its charges are its entries */
    {
        unsigned n;
        const struct ktable *t = ktables(&n);

        for (unsigned i = 0; i < n; i++) {
            if (t[i].rule == KTABLE_QUOTA && t[i].capacity && t[i].count) {
                g_assert_cmpuint(used[t[i].kind], ==, now.tables[i]);
            }
        }
    }
}

static void hp_trim(void *arg, uint64_t bytes);

static void hp_spawn(struct hp_proc *x)
{
    memset(x, 0, sizeof(*x));
    x->p = kapi_process_create(&kern, "hostile");
    if (!x->p) {
        /* every record is an exited process the GPU still holds: let
         * the GPU run, and the reaper free them */
        gpu.hold = false;
        run();
        x->p = kapi_process_create(&kern, "hostile");
    }
    g_assert_nonnull(x->p);
    /* a new id each life, never one seen before */
    g_assert_cmpuint(kapi_process_id(x->p), >, hp.last_pid);
    hp.last_pid = kapi_process_id(x->p);
    hp.lives++;
    if (kapi_create_device(x->p, &x->dev) != DDI_OK) {
        /* device records of exited processes whose contexts' work the
         * GPU holds: as above */
        gpu.hold = false;
        run();
        g_assert_cmpint(kapi_create_device(x->p, &x->dev), ==, DDI_OK);
    }
    g_assert_cmpint(kapi_create_context(x->p, x->dev, 0, VIDSCH_PRIO_NORMAL,
                                        &x->ctx), ==, DDI_OK);
    if (hp.gpuva) {
        int st = kapi_create_device_gpuva(x->p, &x->gdev);

        if (st == DDI_ENOMEM) {
            /* GPU-VA device records held by exited processes whose work
             * the GPU holds: as above */
            gpu.hold = false;
            run();
            st = kapi_create_device_gpuva(x->p, &x->gdev);
        }
        g_assert_cmpint(st, ==, DDI_OK);
        /* small budgets: MakeResidents trim each other often */
        g_assert_cmpint(kapi_set_budget(x->p, GV_ALLOC), ==, DDI_OK);
        g_assert_cmpint(kapi_set_trim_callback(x->p, hp_trim, x), ==,
                        DDI_OK);
    }
}

static void hp_exit(struct hp_proc *x)
{
    hp.dead_pids[hp.lives % 16] = kapi_process_id(x->p);
    g_assert_cmpint(kapi_process_exit(x->p), ==, DDI_OK);
    hp_spawn(x);
}

static void hp_forget_res(struct hp_proc *x, uint32_t h)
{
    for (unsigned k = 0; k < x->nres; k++) {
        if (x->res[k] == h) {
            x->res[k--] = x->res[--x->nres];
        }
    }
}

/* The trim callback, inside someone's MakeResident: every call but an
 * evict (and queries) is refused, its own and anyone else's; then it
 * evicts what it holds. */
static void hp_trim(void *arg, uint64_t bytes)
{
    struct hp_proc *x = arg, *o = &hp.all[g_rand_int_range(hp.r, 0,
                                                          HP_PROCS)];
    uint32_t h = x->nh ? x->h[g_rand_int_range(hp.r, 0, x->nh)] : 0x1234;
    uint64_t f, budget, usage;
    int st;

    (void)bytes;
    hp.trims++;
    switch (g_rand_int_range(hp.r, 0, 7)) {
    case 0:
        st = kapi_destroy_allocation(x->p, h);
        break;
    case 1:
        st = kapi_destroy_device(x->p, x->gdev);
        break;
    case 2:
        st = kapi_process_exit(x->p);
        break;
    case 3:
        st = kapi_make_resident(x->p, x->gdev, &h, 1, &f);
        break;
    case 4:
        st = kapi_create_sync(o->p, o->dev, 0, &h);
        break;
    case 5:
        st = fill(&(struct proc){ .p = x->p }, x->ctx, h, 64);
        break;
    default:
        st = kapi_destroy_sync(o->p, h);
        break;
    }
    g_assert_cmpint(st, ==, DDI_EACCESS);
    hp.refused_in_trim++;
    g_assert_cmpint(kapi_query_video_memory(x->p, &budget, &usage), ==,
                    DDI_OK);
    while (x->nres) {
        st = kapi_evict(x->p, x->gdev, &x->res[0], 1, NULL);
        g_assert_true(st == DDI_OK || st == DDI_EHANDLE);
        hp_forget_res(x, x->res[0]);
        if (st == DDI_OK) {
            break;
        }
    }
}

static void hp_locked(void *arg, int status, volatile void *cpu)
{
    struct hp_proc *x = arg;

    (void)cpu;
    g_assert_true(x->lock_pending);
    x->lock_pending = false;
    hp.lock_waits++;
    if (status == DDI_OK) {
        /* from the callback: unlock, or keep it and exit (its lock goes
         * with it) */
        if (g_rand_int_range(hp.r, 0, 4) == 0) {
            hp_exit(x);
            return;
        }
        g_assert_cmpint(kapi_unlock(x->p, x->lock_h), ==, DDI_OK);
    } else {
        g_assert_true(status == DDI_ETIMEOUT || status == DDI_EHANDLE ||
                      status == DDI_ELOST);
    }
}

static void hp_forget(struct hp_proc *x, uint32_t h);

/* A CPU wait's callback: at times it destroys what it waited on, or
 * exits its process from there. */
static void hp_waited(void *arg, int status)
{
    struct hp_proc *x = arg;

    g_assert_true(status == DDI_OK || status == DDI_EHANDLE ||
                  status == DDI_ELOST || status == DDI_EABANDONED);
    hp.waits_done++;
    switch (g_rand_int_range(hp.r, 0, 6)) {
    case 0:
        hp_exit(x);
        break;
    case 1:
        if (x->nh) {
            uint32_t h = x->h[0];
            int st = handle_type_of(h) == HANDLE_SYNC
                     ? kapi_destroy_sync(x->p, h)
                     : kapi_destroy_allocation(x->p, h);

            g_assert_cmpint(st, ==, DDI_OK);
            hp_forget(x, h);
            hp_forget_res(x, h);
        }
        break;
    default:
        break;
    }
}

/* A handle of x's, or (one time in four) another process's: the call
 * must then refuse it. */
static uint32_t hp_pick(GRand *r, struct hp_proc *all, unsigned i,
                        bool *foreign)
{
    unsigned j = g_rand_int_range(r, 0, 4) ? i
                 : (unsigned)g_rand_int_range(r, 0, HP_PROCS);
    struct hp_proc *x = &all[j];

    *foreign = j != i;
    if (!x->p || x->nh == 0) {
        *foreign = false;
        return all[i].nh ? all[i].h[0] : 0x1234;
    }
    return x->h[g_rand_int_range(r, 0, x->nh)];
}

static void hp_forget(struct hp_proc *x, uint32_t h)
{
    for (unsigned k = 0; k < x->nh; k++) {
        if (x->h[k] == h) {
            x->h[k] = x->h[--x->nh];
            return;
        }
    }
}

/* The calls added for issue 26: lock waits, opens of any name seen
 * (another's, a dead process's), grants to live and dead pids, GPU-VA
 * residency (whose MakeResidents run the others' trim callbacks). */
static void hp_step_more(GRand *r, struct hp_proc *all, unsigned i)
{
    struct hp_proc *x = &all[i];
    bool foreign = false;
    uint32_t h = hp_pick(r, all, i, &foreign), h2, name;
    uint32_t pid = x->p ? kapi_process_id(x->p) : 0;
    uint64_t f;
    int st = DDI_OK;

    switch (g_rand_int_range(r, 0, 5)) {
    case 0:
        if (x->lock_pending) {
            return;
        }
        st = kapi_lock_wait(x->p, h, hp_locked, x);
        if (st == DDI_OK) {
            x->lock_pending = true;
            x->lock_h = h;
        }
        break;
    case 1: {
        unsigned n = hp.nnames < HP_NAMES ? hp.nnames : HP_NAMES;
        unsigned j;

        if (!n) {
            return;
        }
        j = (unsigned)g_rand_int_range(r, 0, n);
        name = hp.names[j].name;
        st = hp.names[j].sync ? kapi_open_sync(x->p, x->dev, name, &h2)
                              : kapi_open_allocation(x->p, x->dev, name,
                                                     &h2);
        hp.opens++;
        if (st == DDI_OK) {
            /* only the creator, or a process it was granted to */
            g_assert_true(hp.names[j].creator == pid ||
                          hp_was_granted(name, pid));
            if (x->nh < HP_HANDLES) {
                x->h[x->nh++] = h2;
            } else if (hp.names[j].sync) {
                kapi_destroy_sync(x->p, h2);
            } else {
                kapi_destroy_allocation(x->p, h2);
            }
        } else {
            g_assert_true(st == DDI_EHANDLE || st == DDI_ENOMEM ||
                          st == DDI_EQUOTA || st == DDI_ELOST);
        }
        return;
    }
    case 2: {
        /* to a live process, a dead one, or made up */
        struct hp_proc *o = &all[g_rand_int_range(r, 0, HP_PROCS)];
        unsigned how = (unsigned)g_rand_int_range(r, 0, 3);
        uint32_t to = how == 0 ? kapi_process_id(o->p)
                      : how == 1 ? hp.dead_pids[g_rand_int_range(r, 0, 16)]
                      : (uint32_t)g_rand_int_range(r, 1, 1000);
        bool sync = handle_type_of(h) == HANDLE_SYNC;

        st = sync ? kapi_share_sync(x->p, h, &name)
                  : kapi_share_allocation(x->p, h, &name);
        if (st != DDI_OK) {
            break;
        }
        if (!foreign) {
            hp_note_name(name, hp_creator(x, h, sync), sync);
        }
        if (!to) {
            return;
        }
        st = sync ? kapi_grant_sync(x->p, h, to, KAPI_ACCESS_READ)
                  : kapi_grant_allocation(x->p, h, to, KAPI_ACCESS_READ);
        if (st == DDI_OK) {
            hp_note_grant(name, to);
        }
        break;
    }
    case 3:
        if (!hp.gpuva) {
            return;
        }
        if (x->nh < HP_HANDLES && g_rand_int_range(r, 0, 3) == 0) {
            struct kapi_alloc_desc d = { .size = GV_ALLOC,
                                         .cpu_visible = true };

            if (kapi_create_allocation(x->p, x->gdev, &d, &h2) == DDI_OK) {
                x->h[x->nh++] = h2;
            }
            return;
        }
        if (!foreign) {
            /* one of its GPU-VA allocations, if it has one */
            for (unsigned k = 0, n = x->nh; k < n; k++) {
                uint32_t c = x->h[(k + (unsigned)g_rand_int_range(r, 0, n))
                                  % n];
                const struct kalloc *ka =
                    handle_type_of(c) == HANDLE_ALLOCATION
                    ? handle_lookup(&x->p->handles, c, HANDLE_ALLOCATION)
                    : NULL;

                if (ka && ka->gv) {
                    h = c;
                    break;
                }
            }
        }
        st = kapi_make_resident(x->p, x->gdev, &h, 1, &f);
        if (st == DDI_OK) {
            g_assert_false(foreign);
            if (x->nres < 8) {
                x->res[x->nres++] = h;
            } else {
                g_assert_cmpint(kapi_evict(x->p, x->gdev, &h, 1, NULL), ==,
                                DDI_OK);
            }
        }
        break;
    default:
        if (!hp.gpuva || !x->nres) {
            return;
        }
        h = x->res[0];
        g_assert_cmpint(kapi_evict(x->p, x->gdev, &h, 1, NULL), ==, DDI_OK);
        hp_forget_res(x, h);
        return;
    }
    if (foreign) {
        g_assert_cmpint(st, ==, DDI_EHANDLE);
    }
}

static void hp_step(GRand *r, struct hp_proc *all, unsigned i)
{
    struct hp_proc *x = &all[i];
    struct kapi_alloc_desc d = {
        .size = 64u << g_rand_int_range(r, 0, 10), .cpu_visible = true,
    };
    bool foreign = false;
    uint32_t h = hp_pick(r, all, i, &foreign), name, h2;
    volatile void *cpu;
    int st = DDI_OK;
    unsigned v = (unsigned)g_rand_int_range(r, 0, 60);

    if (g_rand_int_range(r, 0, hp.exit_one_in) == 0) {
        hp_exit(x);
        return;
    }
    if (g_rand_int_range(r, 0, hp.gpuva ? 2 : 4) == 0) {
        hp_step_more(r, all, i);
        return;
    }
    /* renders twice as often as the rest */
    switch (v % 12 == 10 || v == 59 ? 3 : v % 12) {
    case 0:
        if (x->nh < HP_HANDLES &&
            kapi_create_allocation(x->p, x->dev, &d, &h2) == DDI_OK) {
            x->h[x->nh++] = h2;
        }
        return;
    case 1:
        if (x->nh < HP_HANDLES &&
            kapi_create_sync(x->p, x->dev, 0, &h2) == DDI_OK) {
            x->h[x->nh++] = h2;
        }
        return;
    case 2:
        st = handle_type_of(h) == HANDLE_SYNC ? kapi_destroy_sync(x->p, h)
                                              : kapi_destroy_allocation(x->p,
                                                                        h);
        if (st == DDI_OK) {
            hp_forget(x, h);
            hp_forget_res(x, h);
        }
        break;
    case 3:
        st = fill(&(struct proc){ .p = x->p }, x->ctx, h, 64);
        break;
    case 4:
        st = kapi_signal_gpu(x->p, x->ctx, h,
                             (uint64_t)g_rand_int_range(r, 1, 4));
        break;
    case 5:
        /* a value that may never come: its buffers are held */
        st = kapi_wait_gpu(x->p, x->ctx, h,
                           (uint64_t)g_rand_int_range(r, 1, 8));
        break;
    case 6:
        st = kapi_wait_cpu(x->p, h, (uint64_t)g_rand_int_range(r, 1, 8),
                           hp_waited, x);
        break;
    case 7:
        st = kapi_signal_cpu(x->p, h, (uint64_t)g_rand_int_range(r, 1, 4));
        break;
    case 8: {
        struct hp_proc *o = &all[(i + 1) % HP_PROCS];

        st = handle_type_of(h) == HANDLE_SYNC
             ? kapi_share_sync(x->p, h, &name)
             : kapi_share_allocation(x->p, h, &name);
        /* and the grant (only a creator's goes through) */
        if (st == DDI_OK && o->p) {
            st = handle_type_of(h) == HANDLE_SYNC
                 ? kapi_grant_sync(x->p, h, kapi_process_id(o->p),
                                   KAPI_ACCESS_READ | KAPI_ACCESS_WRITE)
                 : kapi_grant_allocation(x->p, h, kapi_process_id(o->p),
                                         KAPI_ACCESS_READ |
                                         KAPI_ACCESS_WRITE);
            if (st == DDI_OK) {
                hp_note_grant(name, kapi_process_id(o->p));
            }
        }
        if (st == DDI_OK && o->p && o->nh < HP_HANDLES &&
            (handle_type_of(h) == HANDLE_SYNC
             ? kapi_open_sync(o->p, o->dev, name, &h2)
             : kapi_open_allocation(o->p, o->dev, name, &h2)) == DDI_OK) {
            o->h[o->nh++] = h2;
        }
        break;
    }
    case 9:
        st = kapi_lock(x->p, h, KAPI_LOCK_DONOTWAIT, &cpu);
        if (st == DDI_OK && g_rand_boolean(r)) {
            kapi_unlock(x->p, h);
        }
        break;
    case 11:
        gpu.hold = g_rand_int_range(r, 0, 3) == 0;
        run();
        return;
    default:
        pump();
        return;
    }
    if (foreign) {
        g_assert_cmpint(st, ==, DDI_EHANDLE);
    }
}

/*
 * Hostile processes at random: each step one of four processes makes a
 * legal call (create, destroy, render, signal and wait on the GPU and
 * the CPU, share and open, lock, exit and be replaced by a new one),
 * often with another process's handles (always refused with
 * DDI_EHANDLE), with the GPU holding its work at times, so processes
 * exit with work queued, running, waiting for values that never come.
 * After every step what the processes are charged adds up to what the
 * tables hold; at the end every process exits and the kernel is as it
 * started.
 */
static void hp_run(unsigned seed, unsigned steps, bool gpuva,
                   unsigned exit_one_in)
{
    GRand *r = g_rand_new_with_seed(seed);
    struct hp_proc all[HP_PROCS];
    struct kernel_census start;

    memset(&hp, 0, sizeof(hp));
    hp.gpuva = gpuva;
    hp.exit_one_in = exit_one_in;
    hp.r = r;
    hp.all = all;
    if (gpuva) {
        setup_gpuva();
    } else {
        setup();
    }
    take_census(&start);
    for (unsigned i = 0; i < HP_PROCS; i++) {
        hp_spawn(&all[i]);
    }
    for (unsigned n = 0; n < steps; n++) {
        hp_step(r, all, (unsigned)g_rand_int_range(r, 0, HP_PROCS));
        hp_check_books(&start);
    }
    for (unsigned i = 0; i < HP_PROCS; i++) {
        g_assert_cmpint(kapi_process_exit(all[i].p), ==, DDI_OK);
    }
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==,
                     kern.stats.processes_exited);
    assert_census(&start);
    g_rand_free(r);
}

static void test_exit_hostile_random(void)
{
    for (unsigned seed = 1; seed <= 200; seed++) {
        hp_run(seed, 600, false, 60);
    }
}

/*
 * The same with more lives than the 8-bit id space (no process ever
 * inherits a dead one's grants or opens a name it was not granted: each
 * open checked against every grant made), and in GPU-VA mode, where
 * MakeResidents over small budgets run the others' trim callbacks, which
 * try calls they may not make (each refused) before evicting.
 */
static void test_exit_hostile_lives(void)
{
    unsigned lives = 0, opens = 0, waits = 0;

    for (unsigned seed = 1; seed <= 3; seed++) {
        hp_run(seed, 3000, false, 8);
        lives += hp.lives;
        opens += hp.opens;
        waits += hp.waits_done;
    }
    g_test_message("%u lives, %u opens of names seen, %u CPU-wait "
                   "callbacks (some destroying or exiting)", lives, opens,
                   waits);
    g_assert_cmpuint(waits, >, 0);
    g_assert_cmpuint(lives / 3, >, HANDLE_MAX_OWNER);
    g_assert_cmpuint(opens, >, 0);
}

static void test_exit_hostile_gpuva(void)
{
    unsigned trims = 0, lives = 0, locks = 0;

    for (unsigned seed = 1; seed <= 40; seed++) {
        hp_run(seed, 600, true, 30);
        trims += hp.trims;
        lives += hp.lives;
        locks += hp.lock_waits;
    }
    hp_run(41, 3000, true, 8);
    lives += hp.lives;
    trims += hp.trims;
    g_test_message("%u lives, %u trim callbacks (each tried a call it may "
                   "not make), %u lock waits answered", lives, trims, locks);
    g_assert_cmpuint(trims, >, 0);
    g_assert_cmpuint(locks, >, 0);
    g_assert_cmpuint(hp.lives, >, HANDLE_MAX_OWNER);
}

void kernel_tests_exit(void)
{
    g_test_add_func("/kernel/exit/reclaims", test_exit_reclaims);
    g_test_add_func("/kernel/exit/releases-locks", test_exit_releases_locks);
    g_test_add_func("/kernel/exit/gpuva", test_exit_gpuva);
    g_test_add_func("/kernel/exit/dead-calls", test_exit_dead_calls);
    g_test_add_func("/kernel/exit/hostile-random", test_exit_hostile_random);
    g_test_add_func("/kernel/exit/many", test_exit_many);
    g_test_add_func("/kernel/exit/hostile-lives", test_exit_hostile_lives);
    g_test_add_func("/kernel/exit/hostile-gpuva", test_exit_hostile_gpuva);
}
