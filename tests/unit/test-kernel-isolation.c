/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). Isolation between processes (issue
 * 15; firmware/kernel/kisolate.h): a lock is its handle's, sharing needs a
 * grant, a monitored fence only moves forward, REALTIME needs a privilege, a
 * display source has one owner and a foreign wait cannot hold its flips, a
 * GPU-VA space maps only its own process's DMA arena, and blame follows guilt.
 */
#include "test-kernel.h"

/* Item 2: a lock is its handle's. An opener cannot release the owner's
 * lock (vidmm would then move the allocation under the owner's pointer),
 * nor does destroying its handle. */
static void test_lock_per_handle(void)
{
    struct proc a, b;
    volatile void *cpu = NULL;
    struct kalloc *ka;
    uint32_t h;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "opener");
    h = share_to(&a, &b, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    ka = kalloc_of(&a, a.buf);
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 1);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_EINVAL);
    g_assert_cmpuint(ka->locks, ==, 1);
    /* its own lock, then its handle goes with a lock held: only its
     * lock goes with it */
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_OK);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 2);
    g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 1);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 0);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_EINVAL);
}

/* Item 3: a shared name opens nothing without a grant; a grant is the
 * creator's to give and carries access rights. */
static void test_share_needs_grant(void)
{
    struct proc a, b, c;
    struct waited w = { 0 };
    uint32_t name = 0, sname = 0, h = 0, hs = 0, hc = 0;
    uint64_t v = 0;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "granted");
    make_proc(&c, "guesser");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &sname), ==, DDI_OK);
    /* the exact names, as a perfect guess: nothing */
    g_assert_cmpint(kapi_open_allocation(c.p, c.dev, name, &hc), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_sync(c.p, c.dev, sname, &hc), ==, DDI_EHANDLE);
    /* bad grants change nothing */
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          0), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_WRITE), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, 0, KAPI_ACCESS_READ),
                    ==, DDI_EINVAL);
    g_assert_cmpint(kapi_grant_allocation(b.p, a.buf, kapi_process_id(c.p),
                                          KAPI_ACCESS_READ), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==,
                    DDI_EHANDLE);
    /* read-only grants */
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, sname, &hs), ==, DDI_OK);
    /* b's grant is not c's; and b, an opener, cannot pass it on */
    g_assert_cmpint(kapi_open_allocation(c.p, c.dev, name, &hc), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_grant_allocation(b.p, h, kapi_process_id(c.p),
                                          KAPI_ACCESS_READ), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_grant_sync(b.p, hs, kapi_process_id(c.p),
                                    KAPI_ACCESS_READ), ==, DDI_EACCESS);
    /* read: a command buffer may read it, not write it; no lock */
    umd_init(&cb, cmd, sizeof(cmd));
    umd_copy(&cb, b.buf, 0, h, 0, 64);
    g_assert_cmpint(render(&b, b.ctx), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, h, 64), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_IGNORESYNC,
                              &w.cpu), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w), ==, DDI_EACCESS);
    /* a sync object opened to wait on cannot be signalled */
    g_assert_cmpint(kapi_signal_cpu(b.p, hs, 7), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_signal_gpu(b.p, b.ctx, hs, 7), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_wait_cpu(b.p, hs, 1, on_wait, &w), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 0);
    g_assert_cmpuint(w.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpuint(gpu.submits, ==, 1);   /* b's COPY only */
}

/* Item 4: a monitored fence only moves forward. A GPU signal below one
 * already accepted is refused; one a CPU signal overtook is ignored. */
static void test_fence_forward(void)
{
    struct proc a;
    uint64_t v = 0;

    setup();
    make_proc(&a, "a");
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 10), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 3), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 5), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 10), ==, DDI_OK);
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 10);
    /* a GPU signal of 15 overtaken by a CPU signal of 20: stays 20 */
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 15), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 20), ==, DDI_OK);
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 20);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 19), ==, DDI_EINVAL);
}

/* Item 7: REALTIME needs the privilege. */
static void test_realtime_privilege(void)
{
    struct proc a;
    uint32_t h = 0;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_REALTIME,
                                        &h), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_HIGH,
                                        &h), ==, DDI_OK);
    kernel_process_grant(&kern, a.p, KAPI_PRIV_REALTIME);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_REALTIME,
                                        &h), ==, DDI_OK);
}

/* Item 6: only the source's owner presents and moves the pointer; owning
 * needs the privilege; a stranger's present never reaches the queue, so
 * it cannot hold the owner's back. */
static void test_display_owner(void)
{
    struct proc a, o;
    struct presented got = { 0 }, gota = { 0 };
    struct kapi_alloc_desc pd = { .size = DW * 4 * DH, .primary = true };
    struct kapi_pointer ptr = { .source = 0, .visible = true };
    uint32_t pa = 0, po;

    setup_display();
    make_proc(&a, "stranger");
    make_proc(&o, "owner");
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &pd, &pa), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_set_source_owner(a.p, a.dev, 0), ==, DDI_EACCESS);
    /* nobody owns it yet: nobody presents */
    g_assert_cmpint(present(&a, pa, a.sync, 1, 1, &gota), ==, DDI_EACCESS);
    po = make_primary(&o);
    g_assert_cmpint(present(&a, pa, a.sync, 1, 1, &gota), ==, DDI_EACCESS);
    g_assert_cmpint(present(&a, pa, 0, 0, 2, &gota), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_EACCESS);
    g_assert_cmpint(present(&o, po, 0, 0, 7, &got), ==, DDI_OK);
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_OK);
    g_assert_cmpuint(gota.calls, ==, 0);
    g_assert_cmpuint(kern.display.src[0].stats.presents, ==, 1);
    g_assert_cmpint(kapi_set_pointer(o.p, o.dev, &ptr), ==, DDI_OK);
    /* the owner's device goes: nobody owns the source */
    g_assert_cmpint(kapi_destroy_device(o.p, o.dev), ==, DDI_OK);
    g_assert_null(kern.display.src[0].owner);
}

/* Item 6: the owner's present waits on a fence a producer process never
 * signals. After KDISPLAY_FOREIGN_WAIT_VSYNCS vsyncs it fails with
 * DDI_ETIMEOUT and the owner's next present is shown; a present waiting
 * on the owner's own fence is left to the watchdog, never timed out. */
static void test_display_foreign_wait(void)
{
    struct proc a, o;
    struct presented got = { 0 };
    uint32_t name = 0, h = 0, po;

    setup_display();
    make_proc(&a, "producer");
    make_proc(&o, "owner");
    po = make_primary(&o);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(o.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(o.p, o.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(present(&o, po, h, 5, 1, &got), ==, DDI_OK);
    g_assert_cmpint(present(&o, po, 0, 0, 2, &got), ==, DDI_OK);
    run();
    for (unsigned i = 0; i < KDISPLAY_FOREIGN_WAIT_VSYNCS; i++) {
        fake_vsync();
        run();
    }
    /* still waiting within the bound: nothing shown, nothing failed */
    g_assert_cmpuint(got.calls, ==, 0);
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, >=, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_ETIMEOUT);
    g_assert_cmpuint(got.r[0].tag, ==, 1);
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_cmpint(got.r[1].status, ==, DDI_OK);
    g_assert_cmpuint(got.r[1].tag, ==, 2);

    /* the owner's own fence: no time limit from the display */
    g_assert_cmpint(present(&o, po, o.sync, 5, 3, &got), ==, DDI_OK);
    for (unsigned i = 0; i < 3 * KDISPLAY_FOREIGN_WAIT_VSYNCS; i++) {
        fake_vsync();
        run();
    }
    g_assert_cmpuint(got.calls, ==, 2);
}

/* Item 10: the creator of a shared sync object is reset by TDR. The
 * opener's waits end with DDI_EABANDONED, its GPU work waiting on the
 * object runs, its device stays healthy; the creator gets DDI_ELOST. */
static void test_blame_follows_guilt(void)
{
    struct proc a, b;
    struct waited wa = { 0 }, wb = { 0 };
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t name = 0, h = 0;
    uint64_t v = 0;
    unsigned submits;

    setup();
    make_proc(&a, "guilty");
    make_proc(&b, "innocent");
    lost_calls = 0;
    kapi_set_lost_callback(b.p, on_lost, NULL);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_OK);
    /* b waits for 5 on the CPU and the GPU; a never gets there */
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 5, on_wait, &wb), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 5, on_wait, &wa), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 5), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    submits = gpu.submits;
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    g_assert_cmpuint(wa.calls, ==, 1);
    g_assert_cmpint(wa.status, ==, DDI_ELOST);
    g_assert_cmpuint(wb.calls, ==, 1);
    g_assert_cmpint(wb.status, ==, DDI_EABANDONED);
    g_assert_cmpint(kapi_sync_value(b.p, h, &v), ==, DDI_OK);
    g_assert_cmphex(v, ==, UINT64_MAX);
    /* b's held buffer ran; b is not lost and renders on */
    g_assert_cmpuint(gpu.submits, >, submits);
    g_assert_cmpuint(lost_calls, ==, 0);
    g_assert_cmpint(kapi_context_error(b.p, b.ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 9, on_wait, &wb), ==,
                    DDI_EABANDONED);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 9), ==, DDI_EABANDONED);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_context_error(b.p, b.ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 9, on_wait, &wa), ==,
                    DDI_ELOST);
}

/* Item 9: a GPU-VA space maps, of the OS's VRAM, only its process's DMA
 * arena: its DMA buffers are there, other processes' are not, nor save
 * areas, sync values or the VRAM allocations are paged into. */
static void test_gpuva_space_own_only(void)
{
    static struct gv_app a, b;
    struct kgpuva_proc *ga, *gb;
    const struct kbuffer *kb = NULL;
    uint64_t a_lo, a_hi, b_lo, b_hi;

    setup_gpuva();
    gv_make(&a, "a", 1, 0);
    gv_make(&b, "b", 1, 0);
    ga = kgpuva_proc_of(&kern, a.p);
    gb = kgpuva_proc_of(&kern, b.p);
    g_assert_nonnull(ga);
    g_assert_nonnull(gb);
    a_lo = fv.os_base[ga->as];
    a_hi = a_lo + fv.os_bytes[ga->as];
    b_lo = fv.os_base[gb->as];
    b_hi = b_lo + fv.os_bytes[gb->as];
    g_assert_cmpuint(a_lo, ==, ga->dma_base);
    g_assert_cmpuint(fv.os_bytes[ga->as], ==, KGPUVA_DMA_BYTES);
    g_assert_cmpuint(fv.os_bytes[ga->as], <, kern.seg.size / 4);
    g_assert_true(a_hi <= b_lo || b_hi <= a_lo);
    /* nothing else of the kernel's in it */
    for (unsigned i = 0; i < KERNEL_MAX_SYNCS; i++) {
        if (kern.syncs[i].used) {
            g_assert_true(kern.syncs[i].gpu < a_lo ||
                          kern.syncs[i].gpu >= a_hi);
        }
    }
    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
        if (kern.contexts[i].used) {
            g_assert_true(kern.contexts[i].save_gpu + KGPUVA_SAVE_BYTES <=
                          a_lo || kern.contexts[i].save_gpu >= a_hi);
        }
    }
    g_assert_true(kern.gpuva.vram_base + kern.gpuva.vram.size <= a_lo ||
                  kern.gpuva.vram_base >= a_hi);
    /* a's command buffer lands in a's arena, b's in b's */
    gpu.hold = true;
    g_assert_cmpint(gv_render_va(&a, a.va[0]), ==, DDI_OK);
    g_assert_cmpint(gv_render_va(&b, b.va[0]), ==, DDI_OK);
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        kb = &kern.buffers[i];
        if (!kb->used) {
            continue;
        }
        if (kb->ctx->proc == a.p) {
            g_assert_true(kb->dma_gpu >= a_lo &&
                          kb->dma_gpu + kb->dmabuf.len_bytes <= a_hi);
        } else {
            g_assert_true(kb->dma_gpu >= b_lo &&
                          kb->dma_gpu + kb->dmabuf.len_bytes <= b_hi);
        }
    }
    gpu.hold = false;
    run();
    g_assert_cmpuint(ga->dma.count, ==, 0);
    g_assert_cmpuint(gb->dma.count, ==, 0);
}

void kernel_tests_isolation(void)
{
    g_test_add_func("/kernel/isolation/lock-per-handle",
                    test_lock_per_handle);
    g_test_add_func("/kernel/isolation/share-needs-grant",
                    test_share_needs_grant);
    g_test_add_func("/kernel/isolation/fence-forward", test_fence_forward);
    g_test_add_func("/kernel/isolation/realtime-privilege",
                    test_realtime_privilege);
    g_test_add_func("/kernel/isolation/display-owner", test_display_owner);
    g_test_add_func("/kernel/isolation/display-foreign-wait",
                    test_display_foreign_wait);
    g_test_add_func("/kernel/isolation/gpuva-space-own-only",
                    test_gpuva_space_own_only);
    g_test_add_func("/kernel/isolation/blame-follows-guilt",
                    test_blame_follows_guilt);
}
