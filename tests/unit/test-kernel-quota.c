/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). Limits (issue 15 item 5; issue 26
 * items 7-11, docs/os.rst "A quota on every table"): a process runs into its
 * own limit and is throttled without freezing the others, every pool and every
 * table has a limit per process and a guarantee no other process can take, and
 * the GPU-VA pools keep theirs for processes in GPU-VA mode.
 */
#include "test-kernel.h"

/* A hostile process's buffers held behind a GPU wait that never
 * completes: it runs into its own limit (throttled: DDI_EBUSY, its
 * buffers in flight hold the records), its throttle wait never ends
 * while they are held, and a HIGH process can still render, wait, signal
 * and create contexts and sync objects. Before quotas it took every
 * DMA-buffer record and the HIGH process got DDI_ENOMEM everywhere. */
static void test_quota_held_buffers(void)
{
    struct proc evil, high;
    struct waited w = { 0 }, ew = { 0 };
    uint32_t never, ctx, sync;
    unsigned n = 0;
    int st = DDI_OK;

    setup();
    make_proc(&evil, "evil");
    make_proc(&high, "high");
    g_assert_cmpint(kapi_create_sync(evil.p, evil.dev, 0, &never), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(evil.p, evil.ctx, never, 1), ==, DDI_OK);
    while (n < 2 * KERNEL_MAX_BUFFERS &&
           (st = fill(&evil, evil.ctx, evil.buf, 64)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, KERNEL_MAX_BUFFERS / 2);
    g_assert_cmpuint(n, ==, evil.p->quota.used[KQ_BUFFERS]);
    g_assert_cmpint(kapi_wait_throttle(evil.p, on_wait, &ew), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpuint(ew.calls, ==, 0);      /* nothing of it retired */
    /* the victim: every call works */
    g_assert_cmpint(kapi_create_context(high.p, high.dev, 0,
                                        VIDSCH_PRIO_HIGH, &ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(high.p, high.dev, 0, &sync), ==,
                    DDI_OK);
    g_assert_cmpint(fill(&high, ctx, high.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(high.p, ctx, sync, 1), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(high.p, sync, 1, on_wait, &w), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(high.p, high.ctx, sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpuint(gpu.submits, ==, 1);
    /* the evil one gets its buffers back when it lets go, and its
     * throttle wait is over */
    g_assert_cmpint(kapi_signal_cpu(evil.p, never, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(ew.calls, ==, 1);
    g_assert_cmpint(ew.status, ==, DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_BUFFERS], ==, 0);
    g_assert_cmpuint(evil.p->quota.used[KQ_KVRAM], >, 0);   /* its save
                                                               area */
}

/* Back-pressure (kernel/kthrottle.h): a process at its limit of DMA
 * buffers in flight is throttled (DDI_EBUSY), not failed; its throttle
 * wait ends when one of its buffers retires and the call then succeeds.
 * The same for GPU signal slots. A process with nothing in flight is not
 * throttled: it fails with the pool's code, and its wait is over at
 * once. Before, the 49th render of a process whose frames were queued
 * behind a long buffer failed with DDI_EQUOTA (the hog bench). */
static void test_throttle_room(void)
{
    struct proc a, idle;
    struct waited w = { 0 }, w2 = { 0 };
    unsigned n = 0;
    int st;

    setup();
    make_proc(&a, "frames");
    make_proc(&idle, "idle");
    gpu.hold = true;            /* everything stays in flight */
    while (n < 2 * KERNEL_MAX_BUFFERS &&
           (st = fill(&a, a.ctx, a.buf, 64)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, a.p->quota.limit[KQ_BUFFERS]);
    g_assert_cmpuint(kern.stats.quota_refusals, >, 0);
    g_assert_cmpuint(kern.stats.throttled, ==, 1);
    g_assert_cmpint(kapi_wait_throttle(a.p, on_wait, &w), ==, DDI_OK);
    /* GPU signals: throttled the same way once their slots are used */
    for (n = 0; (st = kapi_signal_gpu(a.p, a.ctx, a.sync, 1)) == DDI_OK;
         n++) {
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, a.p->quota.limit[KQ_GPU_SYNCS]);
    run();
    g_assert_cmpuint(w.calls, ==, 0);       /* nothing retired yet */
    gpu.hold = false;
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 2), ==, DDI_OK);
    run();
    /* nothing in flight: waiting would never make room, so no throttle */
    g_assert_cmpint(kquota_set_limit(&kern, idle.p, KQ_BUFFERS, 0), ==,
                    DDI_OK);
    g_assert_cmpint(fill(&idle, idle.ctx, idle.buf, 64), ==, DDI_EQUOTA);
    g_assert_cmpint(kapi_wait_throttle(idle.p, on_wait, &w2), ==, DDI_OK);
    run();
    g_assert_cmpuint(w2.calls, ==, 1);      /* over at once */
    g_assert_cmpint(fill(&idle, idle.ctx, idle.buf, 64), ==, DDI_EQUOTA);
    g_assert_cmpint(kapi_wait_throttle(idle.p, NULL, NULL), ==, DDI_EINVAL);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* A throttled process cannot freeze another: a hostile process holds
 * its whole limit of buffers behind a GPU wait that never completes and
 * keeps asking (throttled, its wait never over); a victim queues past
 * its own share (throttled too) and its throttle wait ends when its own
 * buffers retire, every time; a process created before them still gets
 * its guarantee at once. */
static void test_throttle_no_freeze(void)
{
    struct proc evil, victim, late;
    struct waited ew = { 0 }, vw = { 0 };
    unsigned n = 0, rounds = 0;
    uint32_t never;
    int st;

    setup();
    make_proc(&late, "late");
    make_proc(&evil, "evil");
    make_proc(&victim, "victim");
    g_assert_cmpint(kapi_create_sync(evil.p, evil.dev, 0, &never), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(evil.p, evil.ctx, never, 1), ==, DDI_OK);
    while (n < 2 * KERNEL_MAX_BUFFERS &&
           (st = fill(&evil, evil.ctx, evil.buf, 64)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpint(kapi_wait_throttle(evil.p, on_wait, &ew), ==, DDI_OK);
    /* the victim: 200 buffers through its share, throttled when full */
    gpu.hold = true;
    for (n = 0; n < 200 && rounds < 100;) {
        st = fill(&victim, victim.ctx, victim.buf, 64);
        if (st == DDI_OK) {
            n++;
            continue;
        }
        g_assert_cmpint(st, ==, DDI_EBUSY);
        g_assert_cmpuint(victim.p->quota.used[KQ_BUFFERS], >, 0);
        vw.calls = 0;
        g_assert_cmpint(kapi_wait_throttle(victim.p, on_wait, &vw), ==,
                        DDI_OK);
        /* the evil one asks again meanwhile: still throttled */
        g_assert_cmpint(fill(&evil, evil.ctx, evil.buf, 64), ==, DDI_EBUSY);
        if (rounds == 0) {
            /* full table: the late process's guarantee is still its */
            g_assert_cmpint(fill(&late, late.ctx, late.buf, 64), ==,
                            DDI_OK);
        }
        gpu.hold = false;
        run();
        gpu.hold = true;
        g_assert_cmpuint(vw.calls, ==, 1);
        g_assert_cmpint(vw.status, ==, DDI_OK);
        rounds++;
    }
    gpu.hold = false;
    run();
    g_assert_cmpuint(n, ==, 200);
    g_assert_cmpuint(rounds, >, 1);
    g_assert_cmpuint(ew.calls, ==, 0);      /* its own never retired */
    g_assert_cmpuint(victim.p->quota.used[KQ_BUFFERS], ==, 0);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Every pool has a limit per process, and only that process is refused:
 * CPU waits, GPU signal slots, sync objects, contexts, allocations,
 * devices; each refusal is DDI_EQUOTA. */
static void test_quota_every_pool(void)
{
    struct proc evil, good;
    struct waited w = { 0 };
    uint32_t h, hs[KERNEL_MAX_ALLOCS];
    unsigned n;
    int st;

    setup();
    make_proc(&evil, "evil");
    make_proc(&good, "good");
    for (n = 0; (st = kapi_wait_cpu(evil.p, evil.sync, 1, on_wait, &w)) ==
                DDI_OK; n++) {
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_WAITS / 2);
    g_assert_cmpint(kapi_wait_cpu(good.p, good.sync, 1, on_wait, &w), ==,
                    DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&evil, evil.ctx, evil.buf, 64), ==, DDI_OK);
    for (n = 0; (st = kapi_signal_gpu(evil.p, evil.ctx, evil.sync, 1)) ==
                DDI_OK; n++) {
    }
    /* its buffer and signals in flight: throttled, not refused */
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, kern.quota_pool[KQ_GPU_SYNCS] / 2);
    g_assert_cmpint(kapi_signal_gpu(good.p, good.ctx, good.sync, 1), ==,
                    DDI_OK);
    for (n = 1; (st = kapi_create_sync(evil.p, evil.dev, 0, &h)) == DDI_OK;
         n++) {
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_SYNCS / 2);
    g_assert_cmpint(kapi_create_sync(good.p, good.dev, 0, &h), ==, DDI_OK);
    for (n = 1; (st = kapi_create_context(evil.p, evil.dev, 0,
                                          VIDSCH_PRIO_IDLE, &h)) == DDI_OK;
         n++) {
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_CONTEXTS / 2);
    g_assert_cmpint(kapi_create_context(good.p, good.dev, 0,
                                        VIDSCH_PRIO_HIGH, &h), ==, DDI_OK);
    /* (a process of its own: the others' handle tables are full) */
    make_proc(&evil, "hoarder");
    for (n = 1; n < KERNEL_MAX_ALLOCS; n++) {
        struct kapi_alloc_desc d = { .size = 64 };

        st = kapi_create_allocation(evil.p, evil.dev, &d, &hs[n]);
        if (st != DDI_OK) {
            break;
        }
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_ALLOCS / 2);
    g_assert_cmpint(kapi_create_allocation(good.p, good.dev,
                    &(struct kapi_alloc_desc){ .size = 64 }, &h), ==,
                    DDI_OK);
    /* the kernel's VRAM: fixed placement, half the segment at most */
    g_assert_cmpint(kapi_create_allocation(evil.p, evil.dev,
                    &(struct kapi_alloc_desc){ .size = kern.seg.size * 3 / 5 },
                    &h), ==, DDI_EQUOTA);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Beyond its limit nobody takes another's guarantee: three hostile
 * processes each up to their limit leave a fourth its share of every
 * pool. The ones that asked late get DDI_ENOMEM, never the victim. */
static void test_quota_guarantee(void)
{
    struct proc evil[3], victim;
    unsigned guarantee = KERNEL_MAX_BUFFERS / KERNEL_MAX_PROCS;
    uint32_t never;

    setup();
    make_proc(&victim, "victim");
    for (unsigned i = 0; i < 3; i++) {
        int st;

        make_proc(&evil[i], "evil");
        g_assert_cmpint(kapi_create_sync(evil[i].p, evil[i].dev, 0, &never),
                        ==, DDI_OK);
        g_assert_cmpint(kapi_wait_gpu(evil[i].p, evil[i].ctx, never, 1), ==,
                        DDI_OK);
        while ((st = fill(&evil[i], evil[i].ctx, evil[i].buf, 64)) ==
               DDI_OK) {
        }
        /* throttled: its buffers in flight hold what it asks for */
        g_assert_cmpint(st, ==, DDI_EBUSY);
    }
    for (unsigned i = 0; i < guarantee; i++) {
        g_assert_cmpint(fill(&victim, victim.ctx, victim.buf, 64), ==,
                        DDI_OK);
    }
}

/* Primaries are pinned in VRAM for life: charged to their creator as
 * pinned VRAM (an IDLE process pinned 13 MiB and a HIGH process's
 * context went into error); beyond its limit DDI_EQUOTA, another
 * process still pins its own, and what is freed comes back. */
static void test_quota_pinned(void)
{
    struct proc a, b;
    struct kapi_alloc_desc d = { .size = DW * 4 * DH, .primary = true };
    uint32_t h[5], hb;

    setup_vidmm();
    g_assert_null(kdisplay_start(&kern, 0, DW, DH));
    run();
    make_proc(&a, "pinner");
    make_proc(&b, "victim");
    /* the default: half of the pinned pool, itself half of vidmm's VRAM
     * (all processes' pins leave the other half to residency) */
    g_assert_cmpuint(a.p->quota.limit[KQ_PINNED], ==, VMSEG / 4);
    g_assert_cmpint(kquota_set_limit(&kern, a.p, KQ_PINNED, 4 * d.size), ==,
                    DDI_OK);
    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h[i]), ==,
                        DDI_OK);
    }
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h[4]), ==,
                    DDI_EQUOTA);
    g_assert_cmpint(kapi_create_allocation(b.p, b.dev, &d, &hb), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_allocation(a.p, h[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h[4]), ==,
                    DDI_OK);
    g_assert_cmpuint(a.p->quota.used[KQ_PINNED], ==, 4 * d.size);
}

/* ---- a quota on every table (issue 26 items 7-11) ---- */

/*
 * Structural: every table of the kernel's list (kernel/ktables.h) has a
 * rule, and every quota covers its table: the quota kind's pool is the
 * table, each of KERNEL_MAX_PROCS processes is guaranteed one entry at
 * least (presents excepted: one owner per source queues them), a
 * process's default limit is not all of it; every quota kind charges
 * some table or pool; every bound holds. scripts/check-kernel-tables.py
 * fails for an array of a kernel struct missing from the list.
 */
static void test_quota_tables(void)
{
    bool covered[KQ_COUNT] = { false };
    struct kernel_census c;
    const struct ktable *t;
    struct kproc *p;
    unsigned n;

    setup_gpuva_vidmm();
    p = kapi_process_create(&kern, "probe");
    g_assert_nonnull(p);
    t = ktables(&n);
    g_assert_cmpuint(n, <=, KTABLES_MAX);
    kernel_census(&kern, &c);
    for (unsigned i = 0; i < n; i++) {
        g_test_message("%s: rule %d, %" PRIu64 " of %" PRIu64, t[i].field,
                       t[i].rule, c.tables[i], t[i].capacity);
        for (unsigned j = 0; j < i; j++) {
            g_assert_cmpstr(t[i].field, !=, t[j].field);
        }
        if (t[i].capacity) {
            g_assert_cmpuint(c.tables[i], <=, t[i].capacity);
        }
        switch (t[i].rule) {
        case KTABLE_QUOTA: {
            uint64_t pool = kquota_pool(&kern, t[i].kind);

            g_assert_cmpuint(t[i].kind, <, KQ_COUNT);
            covered[t[i].kind] = true;
            if (t[i].capacity) {
                g_assert_cmpuint(pool, ==, t[i].capacity);
            }
            if (t[i].kind != KQ_PRESENTS) {
                g_assert_cmpuint(pool / KERNEL_MAX_PROCS, >=, 1);
                g_assert_cmpuint(p->quota.reserve[t[i].kind], >=, 1);
            }
            g_assert_cmpuint(p->quota.limit[t[i].kind], <, pool);
            g_assert_cmpuint(p->quota.limit[t[i].kind], >, 0);
            break;
        }
        case KTABLE_BOUNDED:
            g_assert_cmpuint(t[i].bound, <=, t[i].capacity);
            g_assert_nonnull(t[i].why);
            break;
        default:
            g_assert_nonnull(t[i].why);
            break;
        }
    }
    for (unsigned q = 0; q < KQ_COUNT; q++) {
        g_test_message("%s: pool %" PRIu64, kquota_kind_name(q),
                       kquota_pool(&kern, q));
        g_assert_true(covered[q]);
    }
}

/* What one charge of kind takes in the generic test: an entry, or a
 * guarantee's worth of bytes. */
static uint64_t unit_of(enum kquota_kind q)
{
    uint64_t pool = kquota_pool(&kern, q);

    return q == KQ_KVRAM || q == KQ_BACKING || q == KQ_PINNED ||
           q == KQ_GPUVA_VRAM || q == KQ_GPUVA_APER
               ? pool / KERNEL_MAX_PROCS / 4 : 1;
}

/* A process, in GPU-VA mode if gpuva (a GPU-VA device: the guarantees
 * of the GPU-VA pools are kept for such processes only). */
static struct kproc *gv_proc(const char *name, bool gpuva)
{
    struct kproc *p = kapi_process_create(&kern, name);
    uint32_t hdev;

    g_assert_nonnull(p);
    if (gpuva) {
        g_assert_cmpint(kapi_create_device_gpuva(p, &hdev), ==, DDI_OK);
    }
    return p;
}

/*
 * Every quota kind, generically (a kind added is covered): a hostile
 * process fills the pool as far as it may (refused with DDI_EQUOTA at
 * its limit), and a victim started later still gets its guarantee; a
 * victim started first keeps its whole guarantee against every other
 * process filling what it can (fifteen; five for the GPU-VA pools, whose
 * guarantees are kept for processes in GPU-VA mode).
 */
static void test_quota_every_kind(void)
{
    for (unsigned q = 0; q < KQ_COUNT; q++) {
        struct kproc *evil[KERNEL_MAX_PROCS - 1], *victim;
        /* GPU-VA pools: processes with a GPU-VA device (the fake driver
         * has 7 address spaces) */
        bool gv = kquota_gpuva_kind(q);
        unsigned others = gv ? 5 : KERNEL_MAX_PROCS - 1;
        uint64_t unit, got;
        int st;

        if (q == KQ_PRESENTS) {
            continue;   /* the source owner's alone (test_quota_tables) */
        }
        setup_gpuva_vidmm();
        unit = unit_of(q);
        g_assert_cmpuint(unit, >, 0);
        evil[0] = gv_proc("evil", gv);
        while ((st = kquota_charge(&kern, evil[0], q, unit)) == DDI_OK) {
        }
        g_assert_cmpint(st, ==, DDI_EQUOTA);
        g_assert_cmpuint(evil[0]->quota.used[q] + unit, >,
                         evil[0]->quota.limit[q]);
        victim = gv_proc("victim", gv);
        g_test_message("%s: victim guaranteed %" PRIu64,
                       kquota_kind_name(q), victim->quota.reserve[q]);
        g_assert_cmpuint(victim->quota.reserve[q], >=, unit);
        for (got = victim->quota.used[q];
             got + unit <= victim->quota.reserve[q];
             got += unit) {
            g_assert_cmpint(kquota_charge(&kern, victim, q, unit), ==,
                            DDI_OK);
        }

        /* the victim first, then everybody else */
        setup_gpuva_vidmm();
        victim = gv_proc("victim", gv);
        for (unsigned i = 0; i < others; i++) {
            evil[i] = gv_proc("evil", false);  /* (the pool may be full) */
            g_assert_nonnull(evil[i]);
            while (kquota_charge(&kern, evil[i], q, unit) == DDI_OK) {
            }
        }
        for (got = victim->quota.used[q];
             got + unit <= victim->quota.reserve[q];
             got += unit) {
            g_assert_cmpint(kquota_charge(&kern, victim, q, unit), ==,
                            DDI_OK);
        }
        g_assert_cmpuint(victim->quota.used[q], >=,
                         victim->quota.reserve[q] / unit * unit);
    }
}

/* Item 7: one process waited for vsync until refused (it held all 32
 * slots, and a compositor started later got DDI_ENOMEM 200 times of
 * 200); now its quota stops it and the compositor waits. */
static void test_quota_vsync_waits(void)
{
    struct proc evil, victim;
    unsigned n = 0;
    int st;

    setup_display();
    make_proc(&evil, "evil");
    vsync_calls = 0;
    while (n < 2 * KDISPLAY_VSYNC_WAITS &&
           (st = kapi_wait_vsync(evil.p, evil.dev, 0, on_vsync_count,
                                 NULL)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KDISPLAY_VSYNC_WAITS / 2);
    make_proc(&victim, "compositor");
    for (unsigned i = 0; i < KDISPLAY_VSYNC_WAITS / KERNEL_MAX_PROCS; i++) {
        g_assert_cmpint(kapi_wait_vsync(victim.p, victim.dev, 0,
                                        on_vsync_count, NULL), ==, DDI_OK);
    }
    fake_vsync();
    run();
    g_assert_cmpuint(vsync_calls, ==, n + KDISPLAY_VSYNC_WAITS /
                                          KERNEL_MAX_PROCS);
    /* delivered: given back */
    g_assert_cmpuint(evil.p->quota.used[KQ_VSYNC_WAITS], ==, 0);
    g_assert_cmpuint(victim.p->quota.used[KQ_VSYNC_WAITS], ==, 0);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Item 8, names: one process shared objects until the name table was
 * full; a window started later could not share with the compositor. Now
 * its quota stops it; the window shares, grants, the compositor opens;
 * names go back with their objects, to their creators. */
static void test_quota_shared_names(void)
{
    struct kapi_alloc_desc d = { .size = 64 };
    struct proc evil, window, comp;
    struct kernel_census start;
    uint32_t h[KERNEL_MAX_SHARED], name;
    unsigned n;
    int st = DDI_OK;

    setup();
    take_census(&start);
    make_proc(&evil, "evil");
    for (n = 0; n < KERNEL_MAX_SHARED; n++) {
        g_assert_cmpint(kapi_create_allocation(evil.p, evil.dev, &d, &h[n]),
                        ==, DDI_OK);
        st = kapi_share_allocation(evil.p, h[n], &name);
        if (st != DDI_OK) {
            break;
        }
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_SHARED / 2);
    make_proc(&window, "window");
    make_proc(&comp, "compositor");
    g_assert_cmpuint(share_to(&window, &comp, KAPI_ACCESS_READ), !=, 0);
    g_assert_cmpuint(window.p->quota.used[KQ_SHARED], ==, 1);
    for (unsigned i = 0; i <= n; i++) {
        g_assert_cmpint(kapi_destroy_allocation(evil.p, h[i]), ==, DDI_OK);
    }
    g_assert_cmpuint(evil.p->quota.used[KQ_SHARED], ==, 0);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(window.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(comp.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/* Item 8, grants: one process granted one name to process ids until the
 * grant table was full; a window started later could not grant its
 * buffer to the compositor. Now its quota stops it; grants go with their
 * name (they lingered until their slot was reused), to their granter. */
static void test_quota_grants(void)
{
    struct proc evil, window, comp;
    struct kernel_census start;
    uint32_t name;
    unsigned n;
    int st = DDI_OK;

    setup();
    take_census(&start);
    make_proc(&evil, "evil");
    g_assert_cmpint(kapi_share_allocation(evil.p, evil.buf, &name), ==,
                    DDI_OK);
    for (n = 0; n < 2 * KISOLATE_GRANTS; n++) {
        st = kapi_grant_allocation(evil.p, evil.buf, 100 + n,
                                   KAPI_ACCESS_READ);
        if (st != DDI_OK) {
            break;
        }
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KISOLATE_GRANTS / 2);
    make_proc(&window, "window");
    make_proc(&comp, "compositor");
    g_assert_cmpuint(share_to(&window, &comp, KAPI_ACCESS_READ), !=, 0);
    g_assert_cmpuint(window.p->quota.used[KQ_GRANTS], ==, 1);
    g_assert_cmpint(kapi_destroy_allocation(evil.p, evil.buf), ==, DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GRANTS], ==, 0);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(window.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(comp.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/* Item 9: one process made parameter buffers until the table was full
 * (8, no quota), and another's first one was refused. */
static void test_quota_scene_pbs(void)
{
    struct kapi_scene_pb_desc pd = {
        .tiles = SC_TILES, .size = 1024, .reserved = 1024, .step = 4096,
        .budget = 1024,
    };
    struct gv_app evil, victim;
    uint32_t h;
    uint64_t va;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 0, 0);
    while (n < 2 * KSCENE_MAX_PB &&
           (st = kapi_create_scene_pb(evil.p, evil.dev, &pd, &h, &va)) ==
               DDI_OK) {
        n++;
        run();      /* the aperture mappings' paging buffers retire */
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KSCENE_MAX_PB / 2);
    gv_make(&victim, "victim", 0, 0);
    g_assert_cmpint(kapi_create_scene_pb(victim.p, victim.dev, &pd, &h, &va),
                    ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_SCENE_PBS], ==, 1);
    run();
    /* its record goes with its allocation (let go at the next creation,
     * whoever's), its charge with it */
    g_assert_cmpint(kapi_destroy_allocation(victim.p, h), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_create_scene_pb(victim.p, victim.dev, &pd, &h, &va),
                    ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_SCENE_PBS], ==, 1);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Item 10: the GPU-VA allocation table (64) was smaller than one
 * process's allocation limit (80): a process took all of it and
 * another's first GPU-VA allocation got DDI_ENOMEM. */
static void test_quota_gpuva_allocs(void)
{
    struct kapi_alloc_desc d = { .size = 4096 };
    struct gv_app evil, victim;
    uint32_t h;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 0, 0);
    while (n < KERNEL_MAX_ALLOCS &&
           (st = kapi_create_allocation(evil.p, evil.dev, &d, &h)) ==
               DDI_OK) {
        n++;
        run();      /* the aperture mappings' paging buffers retire */
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KGPUVA_MAX_ALLOCS / 2);
    gv_make(&victim, "victim", 0, 0);
    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS / KERNEL_MAX_PROCS; i++) {
        g_assert_cmpint(kapi_create_allocation(victim.p, victim.dev, &d, &h),
                        ==, DDI_OK);
        run();
    }
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(victim.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
    g_assert_cmpuint(kern.stats.processes_freed, ==, 2);
}

/* Item 11: a process's budget was its own (the whole VRAM by default)
 * and what it references residency never takes back: one referenced all
 * of the GPU-VA VRAM and a victim's first MakeResident got DDI_ENOMEM.
 * Now referenced VRAM is a quota: the hog is refused (DDI_EQUOTA) at
 * half, its budget is no more than that whatever it asks, and the victim
 * makes its allocation resident. */
static void test_quota_gpuva_vram(void)
{
    struct gv_app evil, victim;
    uint64_t f = 0, budget, usage;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 4, 0);
    g_assert_cmpint(kapi_set_budget(evil.p, GV_VRAM), ==, DDI_OK);
    g_assert_cmpint(kapi_set_trim_callback(evil.p, NULL, NULL), ==, DDI_OK);
    while (n < evil.n && (st = gv_resident(&evil, n, &f)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpint(kapi_query_video_memory(evil.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(budget, ==, GV_VRAM / 2);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    run();
    gv_make(&victim, "victim", 1, 0);
    g_assert_cmpint(gv_resident(&victim, 0, &f), ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_GPUVA_VRAM], ==, GV_ALLOC);
    /* an Evict gives it back, a device's end too */
    g_assert_cmpint(kapi_evict(victim.p, victim.dev, &victim.h[0], 1, NULL),
                    ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    g_assert_cmpint(kapi_destroy_device(evil.p, evil.dev), ==, DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    run();
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Attacking item 11's fix: an allocation evicted while its owner's work
 * is in flight stays in VRAM (residency may not page it out under that
 * work), so a quota of referenced bytes alone let a process reference
 * half, evict it behind a buffer that never runs, reference the other
 * half, and leave a victim's MakeResident DDI_EBUSY for ever. It stays
 * charged until the work retired (the owner's MakeResident meanwhile:
 * DDI_EBUSY, as residency answers for memory still in use). */
static void test_quota_gpuva_vram_busy(void)
{
    struct gv_app evil, victim;
    uint32_t never;
    uint64_t f = 0;

    setup_gpuva();
    gv_make(&evil, "evil", 4, 0);
    g_assert_cmpint(kapi_set_trim_callback(evil.p, NULL, NULL), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(evil.p, evil.dev, 0, &never), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(evil.p, evil.ctx, never, 1), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&evil, 0, &f), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&evil, 1, &f), ==, DDI_OK);
    g_assert_cmpint(gv_render_va(&evil, evil.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_evict(evil.p, evil.dev, evil.h, 2, NULL), ==,
                    DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    /* within its quota once its work retired: retry then */
    g_assert_cmpint(gv_resident(&evil, 2, &f), ==, DDI_EBUSY);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    /* the same ones again: charged once */
    g_assert_cmpint(kapi_make_resident(evil.p, evil.dev, evil.h, 2, &f), ==,
                    DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    g_assert_cmpint(kapi_evict(evil.p, evil.dev, evil.h, 2, NULL), ==,
                    DDI_OK);
    run();
    gv_make(&victim, "victim", 1, 0);
    g_assert_cmpint(gv_resident(&victim, 0, &f), ==, DDI_OK);
    /* the work retires: what it kept goes back */
    g_assert_cmpint(kapi_signal_cpu(evil.p, never, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Found looking for every pool: each GPU-VA allocation's backing is
 * mapped at a range of the GPU-VA aperture window for its life, and the
 * window (4 MiB here) is smaller than a process's backing-store limit
 * (6 MiB): one process filled it and another's first allocation got
 * DDI_ENOMEM. */
static void test_quota_gpuva_aperture(void)
{
    struct kapi_alloc_desc big = { .size = GV_VRAM };  /* the largest */
    struct kapi_alloc_desc d = { .size = GV_ALLOC };
    struct gv_app evil, victim;
    uint32_t h;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 0, 0);
    while (n < 64 && (st = kapi_create_allocation(evil.p, evil.dev, &big,
                                                  &h)) == DDI_OK) {
        n++;
        run();
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, (4u << 20) / 2 / GV_VRAM);
    gv_make(&victim, "victim", 0, 0);
    g_assert_cmpint(kapi_create_allocation(victim.p, victim.dev, &d, &h), ==,
                    DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_GPUVA_APER], ==, GV_ALLOC);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(victim.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 2);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

void kernel_tests_quota(void)
{
    g_test_add_func("/kernel/quota/held-buffers", test_quota_held_buffers);
    g_test_add_func("/kernel/quota/every-pool", test_quota_every_pool);
    g_test_add_func("/kernel/throttle/room", test_throttle_room);
    g_test_add_func("/kernel/throttle/no-freeze", test_throttle_no_freeze);
    g_test_add_func("/kernel/quota/guarantee", test_quota_guarantee);
    g_test_add_func("/kernel/quota/pinned", test_quota_pinned);
    g_test_add_func("/kernel/quota/tables", test_quota_tables);
    g_test_add_func("/kernel/quota/every-kind", test_quota_every_kind);
    g_test_add_func("/kernel/quota/vsync-waits", test_quota_vsync_waits);
    g_test_add_func("/kernel/quota/shared-names", test_quota_shared_names);
    g_test_add_func("/kernel/quota/grants", test_quota_grants);
    g_test_add_func("/kernel/quota/scene-pbs", test_quota_scene_pbs);
    g_test_add_func("/kernel/quota/gpuva-allocs", test_quota_gpuva_allocs);
    g_test_add_func("/kernel/quota/gpuva-vram", test_quota_gpuva_vram);
    g_test_add_func("/kernel/quota/gpuva-vram-busy",
                    test_quota_gpuva_vram_busy);
    g_test_add_func("/kernel/quota/gpuva-aperture",
                    test_quota_gpuva_aperture);
}
