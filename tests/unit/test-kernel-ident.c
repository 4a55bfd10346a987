/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). Identities and lifetimes (issue 26,
 * docs/os.rst "Identities and lifetimes"): records, pids, names and handles are
 * never another's when reused; what a trim callback may call; exits with views
 * and paging in flight; bounded lock waits; priority loans that die with their
 * lender; a queued signal kept; a dead process's timers.
 */
#include "test-kernel.h"

/*
 * Item 1: a device destroyed while an allocation created on it lives on
 * (another process holds it open) keeps its record: the record is the
 * allocation's creator, and freed and taken by another process's new
 * device, it would make that process the creator of the shared
 * allocation (open with every right, grant it on) without any grant.
 */
static void test_ident_device_outlives_allocs(void)
{
    struct proc a, b;
    struct kproc *c;
    uint32_t name = 0, hb, dc, hc = 0;
    struct kdevice *adev;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "granted");
    hb = share_to(&a, &b, KAPI_ACCESS_READ);
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    adev = kalloc_of(&b, hb)->dev;
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    /* the record stays while b's handles name what was created on it */
    g_assert_true(adev->used);
    g_assert_true(kalloc_of(&b, hb)->dev == adev);
    /* a process with no grant, whose new device would take a free
     * device record: the exact name opens nothing, it grants nothing */
    c = kapi_process_create(&kern, "guesser");
    g_assert_nonnull(c);
    g_assert_cmpint(kapi_create_device(c, &dc), ==, DDI_OK);
    g_assert_true(handle_lookup(&c->handles, dc, HANDLE_DEVICE) != adev);
    g_assert_cmpint(kapi_open_allocation(c, dc, name, &hc), ==, DDI_EHANDLE);
    /* b's grant still reads, never writes */
    g_assert_cmpint(fill(&b, b.ctx, hb, 64), ==, DDI_EACCESS);
    /* the last reference goes: the device record with it */
    g_assert_cmpint(kapi_destroy_allocation(b.p, hb), ==, DDI_OK);
    run();
    g_assert_false(adev->used);
}

/*
 * Item 2: process ids are never reused (kapi_process_id is 32 bits, one
 * per life; the 8-bit id in handles is only a check), and grants die with
 * the process they name: after more lives than the 8-bit id space, no new
 * process inherits a dead process's grant.
 */
static void test_ident_pid_never_reused(void)
{
    struct proc a, b;
    struct kernel_census start;
    uint32_t name = 0, pid_b, h;
    uint32_t last = 0;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "granted");
    take_census(&start);
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    pid_b = kapi_process_id(b.p);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, pid_b,
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    run();
    /* its grant went with it */
    for (unsigned i = 0; i < KISOLATE_GRANTS; i++) {
        g_assert_true(kern.grants[i].name == 0 ||
                      kern.grants[i].pid != pid_b);
    }
    last = kapi_process_id(a.p) > pid_b ? kapi_process_id(a.p) : pid_b;
    for (unsigned life = 0; life < 3 * HANDLE_MAX_OWNER; life++) {
        struct proc x;

        make_proc(&x, "later");
        /* a new id each life, above every earlier one */
        g_assert_cmpuint(kapi_process_id(x.p), >, last);
        last = kapi_process_id(x.p);
        g_assert_cmpint(kapi_open_allocation(x.p, x.dev, name, &h), ==,
                        DDI_EHANDLE);
        /* a's grant to the dead pid gives it nothing either */
        g_assert_cmpint(kapi_grant_allocation(x.p, a.buf, pid_b,
                                              KAPI_ACCESS_READ), ==,
                        DDI_EHANDLE);
        g_assert_cmpint(kapi_process_exit(x.p), ==, DDI_OK);
        run();
    }
    g_assert_cmpuint(kern.stats.processes_freed, ==,
                     3 * HANDLE_MAX_OWNER + 1);
    (void)start;
}

/*
 * Item 12: a CPU wait that starts after the sync object's creator exited
 * fails with DDI_EABANDONED, as one pending at the exit does (kapi.h),
 * not DDI_OK because the value reads UINT64_MAX; the other calls on it
 * say the same.
 */
static void test_ident_wait_after_creator_exit(void)
{
    struct proc a, b;
    struct waited before = { 0 }, after = { 0 };
    uint32_t name = 0, h = 0;

    setup();
    make_proc(&a, "creator");
    make_proc(&b, "waiter");
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 5, on_wait, &before), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(before.calls, ==, 1);
    g_assert_cmpint(before.status, ==, DDI_EABANDONED);
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 6, on_wait, &after), ==,
                    DDI_EABANDONED);
    run();
    g_assert_cmpuint(after.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(b.p, h, UINT64_MAX), ==, DDI_EABANDONED);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 1), ==, DDI_EABANDONED);
    /* closing it still works, and frees it */
    g_assert_cmpint(kapi_destroy_sync(b.p, h), ==, DDI_OK);
}

/* Allocation i of a is in VRAM (the fake's page table is one for every
 * space, so another process's entries cannot be told apart there). */
static bool gv_in_vram(const struct gv_app *a, unsigned i)
{
    const struct kalloc *ka = handle_lookup(&a->p->handles, a->h[i],
                                            HANDLE_ALLOCATION);

    g_assert_nonnull(ka);
    g_assert_nonnull(ka->gv);
    return ka->gv->vram != 0;
}

/* A hostile trim callback: tries a call a trim callback may not make
 * (what), then evicts as asked. */
enum ht_what { HT_DESTROY_ALLOC, HT_DESTROY_DEVICE, HT_EXIT, HT_RESIDENT,
               HT_RENDER, HT_OPEN_SYNC, HT_OPEN_ALLOC, HT_CREATE_PROCESS,
               HT_COUNT };

struct hostile_trim {
    struct gv_app *a;
    enum ht_what what;
    int st, evict_st;
    unsigned calls;
    uint32_t name;      /* HT_OPEN_*: a name of the process's own */
    uint32_t dev2;      /* HT_OPEN_ALLOC: a device without GPU VA */
    uint32_t opened;    /* the handle the refused open wrote (0: none) */
};

static void ht_on_trim(void *arg, uint64_t bytes)
{
    struct hostile_trim *t = arg;
    struct gv_app *a = t->a;
    uint64_t f;

    (void)bytes;
    t->calls++;
    switch (t->what) {
    case HT_DESTROY_ALLOC:
        t->st = kapi_destroy_allocation(a->p, a->h[0]);
        break;
    case HT_DESTROY_DEVICE:
        t->st = kapi_destroy_device(a->p, a->dev);
        break;
    case HT_EXIT:
        t->st = kapi_process_exit(a->p);
        break;
    case HT_RESIDENT:
        t->st = kapi_make_resident(a->p, a->dev, &a->h[3], 1, &f);
        break;
    case HT_OPEN_SYNC:
        t->st = kapi_open_sync(a->p, a->dev, t->name, &t->opened);
        break;
    case HT_OPEN_ALLOC:
        t->st = kapi_open_allocation(a->p, t->dev2, t->name, &t->opened);
        break;
    case HT_CREATE_PROCESS:
        /* a process made here would be the kernel's, not the callback's */
        t->st = kapi_process_create(&kern, "spawned") ? DDI_OK : DDI_EACCESS;
        break;
    default:
        t->st = gv_render_va(a, a->va[0]);
        break;
    }
    /* then what a trim callback is for: its first allocation out (a
     * destroyed handle would be refused here) */
    t->evict_st = kapi_evict(a->p, a->dev, &a->h[0], 1, NULL);
    if (t->evict_st == DDI_OK) {
        a->held[0] = false;
    }
}

/*
 * Item 3 and the suspected trim paths: a trim callback runs inside
 * another process's MakeResident and may only evict. Destroying the
 * allocation it is asked to evict, its device, exiting its process,
 * MakeResident, render, opening a shared sync object or allocation,
 * creating a process: each refused (DDI_EACCESS, nothing changed, no
 * handle made),
 * so the allocation's record is never freed under residency's
 * reference, its evict goes through, and the victim's MakeResident
 * pages out only what the trimmed process let go of: the victim's
 * allocations stay mapped, no context of either is lost.
 */
static void test_ident_trim_callback_limits(void)
{
    for (unsigned what = 0; what < HT_COUNT; what++) {
        struct gv_app a, v;
        struct hostile_trim t = { .a = &a, .what = what };
        uint64_t f = 0;
        struct kernel_census start;

        setup_gpuva();
        take_census(&start);
        gv_make(&a, "trimmed", 4, 0);
        if (what == HT_OPEN_SYNC) {
            g_assert_cmpint(kapi_share_sync(a.p, a.sync, &t.name), ==, DDI_OK);
        } else if (what == HT_OPEN_ALLOC) {
            struct kapi_alloc_desc d = { .size = 4096, .cpu_visible = true };
            uint32_t h;

            /* a shareable one: a GPU-VA allocation is its process's alone */
            g_assert_cmpint(kapi_create_device(a.p, &t.dev2), ==, DDI_OK);
            g_assert_cmpint(kapi_create_allocation(a.p, t.dev2, &d, &h), ==,
                            DDI_OK);
            g_assert_cmpint(kapi_share_allocation(a.p, h, &t.name), ==,
                            DDI_OK);
        }
        g_assert_cmpint(kapi_set_trim_callback(a.p, ht_on_trim, &t), ==,
                        DDI_OK);
        gv_make(&v, "victim", 2, 2 * GV_ALLOC);
        for (unsigned i = 0; i < 3; i++) {
            g_assert_cmpint(gv_resident(&a, i, &f), ==, DDI_OK);
            run();
        }
        g_assert_cmpint(gv_resident(&v, 0, &f), ==, DDI_OK);
        run();
        /* VRAM full: the victim's second one trims the other process */
        g_assert_cmpint(kapi_set_budget(a.p, 2 * GV_ALLOC), ==, DDI_OK);
        g_assert_cmpint(gv_resident(&v, 1, &f), ==, DDI_OK);
        g_assert_cmpuint(t.calls, >=, 1);
        g_assert_cmpint(t.st, ==, DDI_EACCESS);
        /* refused: nothing changed, no handle made (one made without its
         * reference would free the object under the other holders) */
        g_assert_cmpuint(t.opened, ==, 0);
        g_assert_cmpint(t.evict_st, ==, DDI_OK);
        g_assert_cmpuint(kern.cb.refused, >=, 1);
        g_assert_null(kern.cb.proc);
        run();
        g_assert_true(gv_in_vram(&v, 0));
        g_assert_true(gv_in_vram(&v, 1));
        g_assert_false(gv_in_vram(&a, 0));
        g_assert_cmpint(kapi_context_error(v.p, v.ctx), ==, DDI_OK);
        g_assert_cmpint(kapi_context_error(a.p, a.ctx), ==, DDI_OK);
        /* outside the callback the same calls are the process's own */
        g_assert_cmpint(kapi_destroy_allocation(a.p, a.h[0]), ==, DDI_OK);
        g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==,
                        DDI_EHANDLE);
        /* a second round: the victim's references are still its own */
        g_assert_cmpint(gv_resident(&v, 0, &f), ==, DDI_OK);
        run();
        g_assert_true(gv_in_vram(&v, 0));
        g_assert_true(gv_in_vram(&v, 1));
        g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
        g_assert_cmpint(kapi_process_exit(v.p), ==, DDI_OK);
        run();
        assert_census(&start);
    }
}

/*
 * Item 4: a GPU-VA process exits holding more views than the kernel has
 * paging buffers. Its unmaps go in one paging buffer (the exit's bulk),
 * and an unmap that finds no buffer free waits for one instead of
 * keeping the view for ever: every view goes, every record is freed,
 * and lives go on past the process table's size.
 */
static void test_ident_exit_many_views(void)
{
    struct kapi_alloc_desc d = { .size = 16u << 10, .cpu_visible = true,
                                 .zeroed = true };
    struct kernel_census start;
    enum { NVIEWS = KGPUVA_MAX_PAGING + 4, LIVES = 2 * KERNEL_MAX_PROCS };

    setup_gpuva_vidmm();
    take_census(&start);
    for (unsigned life = 0; life < LIVES; life++) {
        struct kproc *p = kapi_process_create(&kern, "viewer");
        uint32_t da, ga, h[NVIEWS];
        uint64_t va, f;

        g_assert_nonnull(p);
        g_assert_cmpint(kapi_create_device(p, &da), ==, DDI_OK);
        g_assert_cmpint(kapi_create_device_gpuva(p, &ga), ==, DDI_OK);
        for (unsigned i = 0; i < NVIEWS; i++) {
            g_assert_cmpint(kapi_create_allocation(p, da, &d, &h[i]), ==,
                            DDI_OK);
        }
        run();
        for (unsigned i = 0; i < NVIEWS; i++) {
            g_assert_cmpint(kapi_map_gpu_va(p, ga, &h[i], 1, &va, &f), ==,
                            DDI_OK);
            run();
        }
        /* the second half of the lives: with the copy engine busy, so
         * that the exit finds few buffers free */
        gpu.hold = life >= LIVES / 2;
        g_assert_cmpint(kapi_process_exit(p), ==, DDI_OK);
        gpu.hold = false;
        run();
        g_assert_cmpuint(kern.stats.processes_freed, ==, life + 1);
    }
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        g_assert_false(kern.vamaps[i].used);
    }
    assert_census(&start);
}

/*
 * Suspected path: page-outs at exit when every paging buffer is on the
 * GPU (a process's own destructions took the last ones). Before, such a
 * page-out was dropped: its entries stayed valid, pointing at a block
 * never freed, in a space the slot's next process gets. Now it waits for
 * a paging buffer: the entries go invalid, the block and the process's
 * record are freed after it, and the next process of the slot starts
 * with nothing mapped.
 */
static void test_ident_exit_paging_busy(void)
{
    struct kapi_alloc_desc d = { .size = GV_ALLOC };
    struct gv_app a, b, c;
    struct kernel_census start;
    uint64_t f, vb[3];
    unsigned busy = 0;

    setup_gpuva();
    take_census(&start);
    gv_make(&b, "exiting", 3, 0);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpint(gv_resident(&b, i, &f), ==, DDI_OK);
        run();
        vb[i] = b.va[i];
    }
    gv_make(&a, "busy", 0, 0);
    /* the copy engine holds everything: a's creations take paging
     * buffers (their aperture mappings) until two are left, its
     * destructions (never refused) the last ones */
    gpu.hold = true;
    while (busy < 8 && kapi_create_allocation(a.p, a.dev, &d,
                                              &a.h[busy]) == DDI_OK) {
        busy++;
    }
    g_assert_cmpuint(busy, >=, 2);
    for (unsigned i = 0; i < busy; i++) {
        g_assert_cmpint(kapi_destroy_allocation(a.p, a.h[i]), ==, DDI_OK);
    }
    for (unsigned i = 0; i < KGPUVA_MAX_PAGING; i++) {
        g_assert_true(kern.gpuva.paging[i].used);
    }
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    g_assert_cmpuint(kern.gpuva.stats.deferred_page_outs, >=, 1);
    gpu.hold = false;
    run();
    /* b's entries are invalid (the fake's one table: b's VAs), its
     * record freed only after that */
    for (unsigned i = 0; i < 3; i++) {
        uint64_t first = (vb[i] - FV_VA_BASE) / 4096;

        g_assert_cmpuint(fv.target[first], !=, DDI_PTE_VRAM);
    }
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1);
    gv_make(&c, "next", 1, 0);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(c.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/*
 * Item 14: a live process's work that never retires (held behind a GPU
 * wait on a fence it never signals) cannot block another process's
 * lock wait for ever: the wait is answered DDI_ETIMEOUT after
 * KERNEL_LOCK_WAIT_NS (no lock taken), and a wait after the work
 * retired gets the lock. With a read grant the wait is refused at once.
 */
static void test_ident_lock_wait_bounded(void)
{
    struct proc a, b, c;
    struct waited w = { 0 }, w2 = { 0 }, wr = { 0 };
    uint32_t h, hr;
    uint64_t t0;

    setup();
    make_proc(&a, "holder");
    make_proc(&b, "waiter");
    h = share_to(&a, &b, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    g_assert_cmpint(kapi_wait_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    t0 = gpu.now;
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);   /* 200 ms: still waiting */
    run();
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_ETIMEOUT);
    g_assert_null(w.cpu);
    g_assert_cmpuint(gpu.now - t0, >=, KERNEL_LOCK_WAIT_NS);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 0);
    /* a read grant is answered at once */
    make_proc(&c, "holder2");
    hr = share_to(&c, &b, KAPI_ACCESS_READ);
    g_assert_cmpint(kapi_lock_wait(b.p, hr, on_lock, &wr), ==, DDI_EACCESS);
    g_assert_cmpuint(wr.calls, ==, 0);
    /* the holder's work retires: the next wait gets the lock */
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w2), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(w2.calls, ==, 1);
    g_assert_cmpint(w2.status, ==, DDI_OK);
    g_assert_nonnull(w2.cpu);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_OK);
}

/* The last INHERIT trace event for hardware context hw at or after
 * since with reason lent (1) or returned (0); NULL if none. */
static const struct vidsch_trace *inherit_event(uint32_t hw, uint64_t since,
                                                unsigned lent)
{
    const struct vidsch_trace *found = NULL;
    uint64_t n = kern.trace_count < KERNEL_TRACE ? kern.trace_count
                                                 : KERNEL_TRACE;

    for (uint64_t i = 0; i < n; i++) {
        const struct vidsch_trace *ev = &kern.trace[i];

        if (ev->kind == VIDSCH_TRACE_INHERIT && ev->context == hw &&
            ev->time >= since && ev->reason == lent &&
            (!found || ev->time >= found->time)) {
            found = ev;
        }
    }
    return found;
}

/*
 * Suspected path: a read grant used to lend HIGH to a third process's
 * producer through priority inheritance. A process granted a sync object
 * read-only may wait on it on the GPU, and its held context then lends
 * its own level to the context whose pending signal satisfies the wait
 * (vidsch_inherit.c): that is the mechanism, not a breach, as long as a
 * loan never exceeds the lender's own level (which the lender could use
 * for its own work anyway: HIGH needs no privilege, REALTIME does) and
 * dies with the lender. Both are checked here: the loan is the waiter's
 * HIGH, and it ends when the waiter's process exits.
 */
static void test_ident_inherit_loan_dies(void)
{
    struct proc v, prod, x;
    uint32_t name = 0, hp, hx, pctx, xctx, xsync;
    const struct vidsch_trace *ev;
    uint64_t t0;
    struct kcontext *pc;

    setup();
    make_proc(&v, "owner");
    make_proc(&prod, "producer");
    make_proc(&x, "lender");
    g_assert_cmpint(kapi_share_sync(v.p, v.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(v.p, v.sync, kapi_process_id(prod.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(v.p, v.sync, kapi_process_id(x.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(prod.p, prod.dev, name, &hp), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(x.p, x.dev, name, &hx), ==, DDI_OK);
    /* the producer, IDLE: its signal of the owner's fence pending behind
     * a wait on its own fence */
    g_assert_cmpint(kapi_create_context(prod.p, prod.dev, 0,
                                        VIDSCH_PRIO_IDLE, &pctx), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(prod.p, pctx, prod.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&prod, pctx, prod.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(prod.p, pctx, hp, 1), ==, DDI_OK);
    /* the lender, HIGH, with a read grant: held on the owner's fence */
    g_assert_cmpint(kapi_create_context(x.p, x.dev, 0, VIDSCH_PRIO_HIGH,
                                        &xctx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(x.p, x.dev, 0, &xsync), ==, DDI_OK);
    t0 = gpu.now;
    g_assert_cmpint(kapi_wait_gpu(x.p, xctx, hx, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&x, xctx, x.buf, 64), ==, DDI_OK);
    run();
    pc = handle_lookup(&prod.p->handles, pctx, HANDLE_CONTEXT);
    g_assert_nonnull(pc);
    ev = inherit_event(pc->hw_id, t0, 1);
    g_assert_nonnull(ev);
    g_assert_cmpuint(ev->level, ==, VIDSCH_PRIO_HIGH);  /* the lender's */
    /* the lender exits: its loan goes with it */
    t0 = gpu.now;
    g_assert_cmpint(kapi_process_exit(x.p), ==, DDI_OK);
    run();
    ev = inherit_event(pc->hw_id, t0, 0);
    g_assert_nonnull(ev);
    g_assert_cmpuint(ev->level, ==, VIDSCH_PRIO_IDLE);
    (void)xsync;
}

/*
 * Suspected path: a writer's queued GPU signal raises the fence's highest
 * accepted value before it runs, so the owner's CPU signals below it are
 * refused while the value is still low. Ruled out as a breach: write
 * access lets the writer signal that value from the CPU at once anyway,
 * and an accepted signal is a promise the kernel keeps: written when the
 * writer's work retires, and when its process exits or its device is
 * lost before that (never left below it for ever): the owner's waiters
 * for lower values are released then.
 */
static void test_ident_queued_signal_kept(void)
{
    struct proc o, w;
    struct waited ow = { 0 };
    uint32_t name = 0, h;
    uint64_t v = 0;

    setup();
    make_proc(&o, "owner");
    make_proc(&w, "writer");
    g_assert_cmpint(kapi_share_sync(o.p, o.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(o.p, o.sync, kapi_process_id(w.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(w.p, w.dev, name, &h), ==, DDI_OK);
    /* held behind a wait on its own fence, which never comes */
    g_assert_cmpint(kapi_wait_gpu(w.p, w.ctx, w.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&w, w.ctx, w.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(w.p, w.ctx, h, 100), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(o.p, o.sync, 5, on_wait, &ow), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_sync_value(o.p, o.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 0);
    /* documented: below an accepted signal is refused, equal is fine */
    g_assert_cmpint(kapi_signal_cpu(o.p, o.sync, 5), ==, DDI_EINVAL);
    g_assert_cmpuint(ow.calls, ==, 0);
    /* the writer dies with its signal queued: the promise is kept */
    g_assert_cmpint(kapi_process_exit(w.p), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_sync_value(o.p, o.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, >=, 100);
    g_assert_cmpuint(ow.calls, ==, 1);
    g_assert_cmpint(ow.status, ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(o.p, o.sync, 100), ==, DDI_OK);
}

/*
 * New attack (issue 26, identities): a shared name carries its slot's
 * 16-bit generation, so after 65536 shares of one slot a name comes
 * back. A grant made for the old object must not survive to name the new
 * one: grants die with the name they name (kiso_revoke_name when the
 * object's name is freed). The attacker cycles the slot's generation
 * with objects of its own until the victim's next share gets the old
 * name; the process granted the old object then tries to open it.
 */
static void test_ident_name_wrap(void)
{
    struct kapi_alloc_desc d = { .size = 64 };
    struct proc a, b, v;
    uint32_t name = 0, n2 = 0, h, vname = 0;

    setup();
    make_proc(&a, "attacker");
    make_proc(&b, "granted-once");
    make_proc(&v, "victim");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    /* the slot's generation round to one before the old name's */
    for (unsigned i = 0; i < 65535; i++) {
        g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                        DDI_OK);
        g_assert_cmpint(kapi_share_allocation(a.p, h, &n2), ==, DDI_OK);
        g_assert_cmpint(kapi_destroy_allocation(a.p, h), ==, DDI_OK);
        g_assert_cmpuint(n2, !=, name);
    }
    g_assert_cmpint(kapi_share_allocation(v.p, v.buf, &vname), ==, DDI_OK);
    g_assert_cmpuint(vname, ==, name);      /* the name came back */
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, vname, &h), ==,
                    DDI_EHANDLE);
}

/*
 * New attack on oneself (identities): a handle value comes back after
 * 1024 generations of its slot. What the kernel noted for a closed
 * handle (opened on which device, its locks) must go with it: before, a
 * created allocation that got an old opened handle's value was destroyed
 * with the device the old one had been opened on.
 */
static void test_ident_handle_notes_die(void)
{
    struct kapi_alloc_desc d = { .size = 64 };
    struct proc a, b;
    uint32_t hx, d2, h = 0;
    unsigned tries = 0;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "opener");
    hx = share_to(&a, &b, KAPI_ACCESS_READ);
    g_assert_cmpint(kapi_destroy_allocation(b.p, hx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_device(b.p, &d2), ==, DDI_OK);
    /* the same value, for an allocation created on its other device */
    do {
        if (h) {
            g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
        }
        g_assert_cmpint(kapi_create_allocation(b.p, d2, &d, &h), ==, DDI_OK);
    } while (h != hx && ++tries < 400000);
    g_assert_cmpuint(h, ==, hx);
    /* the device the old handle was opened on goes: not this one */
    g_assert_cmpint(kapi_destroy_device(b.p, b.dev), ==, DDI_OK);
    g_assert_nonnull(handle_lookup(&b.p->handles, h, HANDLE_ALLOCATION));
}

/*
 * New attack (identities): a process record is reused once its process
 * is gone, and the application's code names its process by the record's
 * pointer. A timer it armed before it was killed fired later and called
 * with that pointer: the call was the next process's (a device created
 * in it, charged to it). The timers a process armed are disarmed at its
 * exit: none of its code runs again.
 */
static void test_ident_dead_timer(void)
{
    struct proc a, b;
    struct dead_timer d = { 0 };
    struct ktimer t;

    setup();
    make_proc(&a, "killed");
    d.p = a.p;
    kapi_timer_init(&t, dead_timer_fires, &d);
    kapi_timer_arm(a.p, &t, gpu.now + 300000000ull);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_false(a.p->used);
    make_proc(&b, "next");
    g_assert_true(b.p == a.p);          /* the record, reused */
    gpu.now += 250000000ull;            /* the timer's time comes */
    run();
    g_assert_cmpuint(d.fired, ==, 0);
    g_assert_cmpuint(b.p->quota.used[KQ_DEVICES], ==, 1);
    kapi_timer_cancel(b.p, &t);
}

void kernel_tests_ident(void)
{
    g_test_add_func("/kernel/ident/device-outlives-allocs",
                    test_ident_device_outlives_allocs);
    g_test_add_func("/kernel/ident/pid-never-reused",
                    test_ident_pid_never_reused);
    g_test_add_func("/kernel/ident/wait-after-creator-exit",
                    test_ident_wait_after_creator_exit);
    g_test_add_func("/kernel/ident/trim-callback-limits",
                    test_ident_trim_callback_limits);
    g_test_add_func("/kernel/ident/exit-many-views",
                    test_ident_exit_many_views);
    g_test_add_func("/kernel/ident/exit-paging-busy",
                    test_ident_exit_paging_busy);
    g_test_add_func("/kernel/ident/lock-wait-bounded",
                    test_ident_lock_wait_bounded);
    g_test_add_func("/kernel/ident/inherit-loan-dies",
                    test_ident_inherit_loan_dies);
    g_test_add_func("/kernel/ident/queued-signal-kept",
                    test_ident_queued_signal_kept);
    g_test_add_func("/kernel/ident/name-wrap", test_ident_name_wrap);
    g_test_add_func("/kernel/ident/handle-notes-die",
                    test_ident_handle_notes_die);
    g_test_add_func("/kernel/ident/dead-timer", test_ident_dead_timer);
}
