/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). The display source
 * (firmware/kernel/kdisplay.c) over the fake display: a present waits for its
 * render fence, flips go to the driver in order and only from the DPC queue,
 * results carry the driver's missed vblanks, the vsync event fires once per
 * wait, every display call checks its handles, a primary lives while it is
 * queued or on screen, and the pointer.
 */
#include "test-kernel.h"

/* A present flips only once the GPU has finished the buffer that drew
 * the primary, and only from the DPC queue; its result comes at the
 * vsync it took effect at. */
static void test_present_waits_for_render(void)
{
    struct proc a;
    struct presented got = { 0 };
    struct kapi_display_info info;
    uint32_t prim;

    setup_display();
    make_proc(&a, "a");
    prim = make_primary(&a);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, prim, DW * 4 * DH), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(present(&a, prim, a.sync, 1, 77, &got), ==, DDI_OK);
    g_assert_cmpuint(fd.flips_set, ==, 0);      /* never from the call */
    run();
    g_assert_cmpuint(fd.flips_set, ==, 0);      /* the GPU has not drawn it */
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 0);
    gpu.hold = false;
    run();
    g_assert_cmpuint(fd.flips_set, ==, 1);
    g_assert_cmphex(fd.q[0].primary_addr, ==, alloc_of(&a, prim)->gpu);
    g_assert_cmpuint(got.calls, ==, 0);         /* not shown yet */
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_OK);
    g_assert_cmpuint(got.r[0].tag, ==, 77);
    g_assert_cmpuint(got.r[0].vsync, ==, 2);
    g_assert_cmpuint(got.r[0].missed, ==, 0);
    g_assert_cmpint(kapi_display_info(a.p, a.dev, 0, &info), ==, DDI_OK);
    g_assert_cmpuint(info.flips, ==, 1);
    g_assert_cmpuint(info.vsyncs, ==, 2);
    g_assert_cmpuint(info.width, ==, DW);
    g_assert_cmpuint(info.pitch, ==, DW * 4);
    g_assert_true(info.pointer);
}

/* Flips in order, one per vsync; a vblank without a new picture is
 * reported as missed by the next result, as the driver counts it. */
static void test_present_order_missed(void)
{
    struct proc a;
    struct presented got = { 0 };
    uint32_t p0, p1;

    setup_display();
    make_proc(&a, "a");
    p0 = make_primary(&a);
    p1 = make_primary(&a);
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    g_assert_cmpint(present(&a, p1, 0, 0, 2, &got), ==, DDI_OK);
    g_assert_cmpint(present(&a, p0, 0, 0, 3, &got), ==, DDI_OK);
    run();
    g_assert_cmpuint(fd.flips_set, ==, 3);
    g_assert_cmpuint(fd.q[0].present_id, <, fd.q[1].present_id);
    for (unsigned i = 0; i < 3; i++) {
        fake_vsync();
        run();
    }
    g_assert_cmpuint(got.calls, ==, 3);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpuint(got.r[i].tag, ==, i + 1);
        g_assert_cmpuint(got.r[i].vsync, ==, i + 1);
        g_assert_cmpuint(got.r[i].missed, ==, 0);
    }
    /* two vblanks with nothing new, then a present */
    fake_vsync();
    fake_vsync();
    run();
    g_assert_cmpint(present(&a, p1, 0, 0, 4, &got), ==, DDI_OK);
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 4);
    g_assert_cmpuint(got.r[3].vsync, ==, 6);
    g_assert_cmpuint(got.r[3].missed, ==, 2);
    g_assert_cmpuint(kern.display.src[0].stats.missed, ==, 2);
    g_assert_cmpuint(kern.display.src[0].stats.flips, ==, 4);
    g_assert_cmphex(fd.scanout, ==, alloc_of(&a, p1)->gpu);
}

/* The driver's queue is full: the present waits for a flip_done. */
static void test_present_driver_busy(void)
{
    struct proc a;
    struct presented got = { 0 };
    uint32_t p0;

    setup_display();
    fd.cap = 1;
    make_proc(&a, "a");
    p0 = make_primary(&a);
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    g_assert_cmpint(present(&a, p0, 0, 0, 2, &got), ==, DDI_OK);
    run();
    g_assert_cmpuint(fd.flips_set, ==, 1);
    fake_vsync();
    run();
    g_assert_cmpuint(fd.flips_set, ==, 2);
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_cmpuint(got.r[1].tag, ==, 2);
    g_assert_cmpuint(got.r[1].missed, ==, 0);
}

/* Every display call checks its handles and arguments and changes
 * nothing when it refuses. */
static void test_display_refusals(void)
{
    struct proc a, b;
    struct presented got = { 0 };
    struct kapi_display_info info;
    struct kapi_alloc_desc small = { .size = 64, .primary = true };
    struct kapi_pointer ptr = { .source = 0, .visible = true };
    struct kapi_present pr = { .source = 0, .fn = on_present, .arg = &got };
    uint32_t pa, pb, h;

    setup_display();
    make_proc(&a, "a");
    make_proc(&b, "b");
    pa = make_primary(&a);
    pb = make_primary(&b);
    /* another process's primary, sync and device */
    g_assert_cmpint(present(&a, pb, 0, 0, 1, &got), ==, DDI_EHANDLE);
    g_assert_cmpint(present(&a, pa, b.sync, 1, 1, &got), ==, DDI_EHANDLE);
    pr.hprimary = pa;
    g_assert_cmpint(kapi_present(a.p, b.dev, &pr), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_wait_vsync(a.p, b.dev, 0, on_vsync_count, NULL), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_display_info(a.p, b.dev, 0, &info), ==,
                    DDI_EHANDLE);
    ptr.hshape = b.buf;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_EHANDLE);
    /* wrong types */
    g_assert_cmpint(present(&a, a.sync, 0, 0, 1, &got), ==, DDI_EHANDLE);
    g_assert_cmpint(present(&a, pa, a.buf, 1, 1, &got), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_present(a.p, a.ctx, &pr), ==, DDI_EHANDLE);
    /* not a primary, too small, no callback, no such source */
    g_assert_cmpint(present(&a, a.buf, 0, 0, 1, &got), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &small, &h), ==,
                    DDI_EINVAL);
    pr.fn = NULL;
    g_assert_cmpint(kapi_present(a.p, a.dev, &pr), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_present(a.p, a.dev, NULL), ==, DDI_EINVAL);
    pr.fn = on_present;
    pr.source = 1;
    g_assert_cmpint(kapi_present(a.p, a.dev, &pr), ==, DDI_ENOTSUP);
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 1, on_vsync_count, NULL), ==,
                    DDI_ENOTSUP);
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, NULL, NULL), ==,
                    DDI_EINVAL);
    ptr.hshape = a.buf;             /* 4 KiB: smaller than a shape */
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, NULL), ==, DDI_EINVAL);
    /* stale */
    g_assert_cmpint(kapi_destroy_allocation(a.p, pa), ==, DDI_OK);
    g_assert_cmpint(present(&a, pa, 0, 0, 1, &got), ==, DDI_EHANDLE);
    run();
    g_assert_cmpuint(fd.flips_set, ==, 0);
    g_assert_cmpuint(fd.shape_calls, ==, 0);
    g_assert_cmpuint(kern.display.src[0].stats.presents, ==, 0);
    g_assert_cmpuint(got.calls, ==, 0);
    /* a process may queue half of it (its quota) ... */
    for (unsigned i = 0; i < KDISPLAY_QUEUE / 2; i++) {
        g_assert_cmpint(present(&b, pb, b.sync, 1, i, &got), ==, DDI_OK);
    }
    g_assert_cmpint(present(&b, pb, b.sync, 1, 99, &got), ==, DDI_EQUOTA);
    /* ... and the queue is bounded whatever the quotas */
    g_assert_cmpint(kquota_set_limit(&kern, b.p, KQ_PRESENTS,
                                     KDISPLAY_QUEUE), ==, DDI_OK);
    for (unsigned i = KDISPLAY_QUEUE / 2; i < KDISPLAY_QUEUE; i++) {
        g_assert_cmpint(present(&b, pb, b.sync, 1, i, &got), ==, DDI_OK);
    }
    g_assert_cmpint(present(&b, pb, b.sync, 1, 99, &got), ==, DDI_ENOMEM);
}

/* Without a display source on, the display calls say so. */
static void test_display_off(void)
{
    struct proc a;
    struct presented got = { 0 };
    struct kapi_display_info info;
    struct kapi_alloc_desc d = { .size = 1 << 16, .primary = true };
    uint32_t h;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_ENOTSUP);
    g_assert_cmpint(present(&a, a.buf, 0, 0, 1, &got), ==, DDI_ENOTSUP);
    g_assert_cmpint(kapi_display_info(a.p, a.dev, 0, &info), ==,
                    DDI_ENOTSUP);
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, on_vsync_count, NULL), ==,
                    DDI_ENOTSUP);
}

/* The vsync event: one callback per wait, at the next vsync. */
static void test_vsync_event(void)
{
    struct proc a;

    setup_display();
    make_proc(&a, "a");
    vsync_calls = 0;
    fake_vsync();
    run();
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, on_vsync_count, NULL), ==,
                    DDI_OK);
    run();
    g_assert_cmpuint(vsync_calls, ==, 0);
    fake_vsync();
    g_assert_cmpuint(vsync_calls, ==, 0);       /* at passive level */
    run();
    g_assert_cmpuint(vsync_calls, ==, 1);
    g_assert_cmpuint(vsync_last, ==, 2);
    g_assert_cmpint(vsync_status, ==, DDI_OK);
    fake_vsync();
    run();
    g_assert_cmpuint(vsync_calls, ==, 1);       /* one-shot */
    /* a destroyed device's wait fails */
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, on_vsync_count, NULL), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(vsync_calls, ==, 2);
    g_assert_cmpint(vsync_status, ==, DDI_EHANDLE);
}

/* A primary on screen, or queued, outlives its handle; it goes once
 * another picture replaced it. */
static void test_scanout_keeps_primary(void)
{
    struct proc a;
    struct presented got = { 0 };
    uint32_t p0, p1;
    const struct kalloc *k0;
    unsigned before;

    setup_display();
    make_proc(&a, "a");
    p0 = make_primary(&a);
    p1 = make_primary(&a);
    k0 = alloc_of(&a, p0);
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_allocation(a.p, p0), ==, DDI_OK);
    before = kern.seg.count;
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_OK);
    g_assert_true(k0->used);                    /* on screen */
    g_assert_cmpuint(kern.seg.count, ==, before);
    g_assert_cmpint(present(&a, p1, 0, 0, 2, &got), ==, DDI_OK);
    run();
    g_assert_true(k0->used);                    /* until replaced */
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_false(k0->used);
    g_assert_cmpuint(kern.seg.count, ==, before - 1);
}

/* What cannot be shown is reported: a refused flip, a present whose sync
 * object is destroyed, a removed device's present. */
static void test_present_failures(void)
{
    struct proc a, b;
    struct presented got = { 0 }, gotb = { 0 };
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t p0, pb;

    setup_display();
    make_proc(&a, "a");
    make_proc(&b, "b");
    p0 = make_primary(&a);
    pb = make_primary(&b);
    g_assert_cmpint(kapi_set_source_owner(a.p, a.dev, 0), ==, DDI_OK);
    fd.refuse_next = true;
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_EINVAL);
    g_assert_cmpuint(kern.display.src[0].stats.refused, ==, 1);
    g_assert_cmpuint(alloc_of(&a, p0)->scanout, ==, 0);
    /* waiting on a sync object that goes away */
    g_assert_cmpint(present(&a, p0, a.sync, 5, 2, &got), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_destroy_sync(a.p, a.sync), ==, DDI_OK);
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_cmpint(got.r[1].status, ==, DDI_EHANDLE);
    g_assert_cmpuint(got.r[1].tag, ==, 2);
    /* b's context is blamed: its present waiting for the GPU fails */
    g_assert_cmpint(kapi_set_source_owner(b.p, b.dev, 0), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&b, b.ctx, pb, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(b.p, b.ctx, b.sync, 1), ==, DDI_OK);
    g_assert_cmpint(present(&b, pb, b.sync, 1, 3, &gotb), ==, DDI_OK);
    run();
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    g_assert_cmpuint(gotb.calls, ==, 1);
    g_assert_cmpint(gotb.r[0].status, ==, DDI_ELOST);
    g_assert_cmpuint(fd.flips_set, ==, 1);
}

static void test_pointer(void)
{
    struct proc a;
    struct kapi_alloc_desc d = { .size = DDI_POINTER_BYTES };
    struct kapi_pointer ptr = { .source = 0, .x = -3, .y = 9,
                                .visible = true };
    uint32_t s0, s1;

    setup_display();
    make_proc(&a, "a");
    kernel_process_grant(&kern, a.p, KAPI_PRIV_DISPLAY);
    g_assert_cmpint(kapi_set_source_owner(a.p, a.dev, 0), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &s0), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &s1), ==, DDI_OK);
    /* visible without a shape: nothing to show */
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_false(fd.pvis);
    ptr.hshape = s0;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_cmphex(fd.shape, ==, alloc_of(&a, s0)->gpu);
    g_assert_true(fd.pvis);
    g_assert_cmpint(fd.px, ==, -3);
    g_assert_cmpint(fd.py, ==, 9);
    g_assert_cmpuint(alloc_of(&a, s0)->scanout, ==, 1);
    ptr.hshape = s1;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_cmpuint(alloc_of(&a, s0)->scanout, ==, 0);
    g_assert_cmpuint(alloc_of(&a, s1)->scanout, ==, 1);
    ptr.hshape = 0;
    ptr.x = 5;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_cmphex(fd.shape, ==, alloc_of(&a, s1)->gpu);
    g_assert_cmpint(fd.px, ==, 5);
    g_assert_cmpuint(fd.shape_calls, ==, 2);
}

void kernel_tests_display(void)
{
    g_test_add_func("/kernel/display/present-waits-for-render",
                    test_present_waits_for_render);
    g_test_add_func("/kernel/display/order-and-missed",
                    test_present_order_missed);
    g_test_add_func("/kernel/display/driver-busy", test_present_driver_busy);
    g_test_add_func("/kernel/display/refusals", test_display_refusals);
    g_test_add_func("/kernel/display/off", test_display_off);
    g_test_add_func("/kernel/display/vsync-event", test_vsync_event);
    g_test_add_func("/kernel/display/scanout-keeps-primary",
                    test_scanout_keeps_primary);
    g_test_add_func("/kernel/display/failures", test_present_failures);
    g_test_add_func("/kernel/display/pointer", test_pointer);
}
