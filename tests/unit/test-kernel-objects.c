/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). The kernel's objects through the
 * application API (firmware/kernel/kapi.c over kproc, kdevice, kcontext,
 * kalloc, ksync): every call refuses handles of another process, stale handles
 * and handles of the wrong type with DDI_EHANDLE, bad arguments with
 * DDI_EINVAL, and changes nothing when it refuses; render's refusals reach the
 * caller and nothing reaches the GPU; completions flow back as sync-object
 * values and CPU-wait callbacks; locks wait for the GPU's last use; shared
 * allocations and sync objects outlive their creator's handle; a context TDR
 * blames removes its device. With vidmm (a fake build_paging_buffer, a page
 * pool over host memory): allocations may add up to more than VRAM, residency
 * makes paging buffers that run on the copy engine first, a lock pins where it
 * is (the BAR view or the backing run) and a locked allocation is never moved,
 * a free refused while a paging buffer moves the allocation is done once it
 * retired.
 */
#include "test-kernel.h"

static void test_render_roundtrip(void)
{
    struct proc a;
    struct waited w = { 0 };
    uint64_t v = 0;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4096), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, on_wait, &w), ==, DDI_OK);
    g_assert_cmpuint(w.calls, ==, 0);       /* never from inside a call */
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 1);
    g_assert_cmpuint(kern.stats.buffers_done, ==, 1);
    g_assert_true(kernel_gpu_idle(&kern));
    /* what reached the "GPU" is the validated, patched copy */
    g_assert_cmpuint(gpu.q[0][0].dma_len, ==, COPRO_LEN_FILL * 4);
}

static void test_foreign_stale_wrong_type(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    volatile void *cpu;
    uint32_t h, name = 0;
    uint64_t v;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    /* b's handles mean nothing to a */
    g_assert_cmpint(fill(&a, b.ctx, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(fill(&a, a.ctx, b.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_create_context(a.p, b.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &h), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_lock(a.p, b.buf, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_signal_cpu(a.p, b.sync, 5), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, b.sync, 5), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_wait_gpu(a.p, b.ctx, a.sync, 5), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_wait_cpu(a.p, b.sync, 1, on_wait, &w), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_context(a.p, b.ctx), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_allocation(a.p, b.buf), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_device(a.p, b.dev), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_share_allocation(a.p, b.buf, &name), ==,
                    DDI_EHANDLE);
    /* wrong types, garbage */
    g_assert_cmpint(fill(&a, a.buf, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(fill(&a, a.ctx, a.ctx, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(a.p, a.buf, &v), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(a.p, 0, &v), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(a.p, UINT32_MAX, &v), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(NULL, a.sync, &v), ==, DDI_EHANDLE);
    /* stale: destroyed, then used */
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_context(a.p, a.ctx), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, b.buf, 64), ==, DDI_EHANDLE);
    run();
    /* nothing of it reached the GPU, and b still works */
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    g_assert_cmpuint(w.calls, ==, 0);
}

static void test_render_refusals(void)
{
    struct proc a;
    struct kapi_render_args r = { 0 };
    uint32_t bad[2] = { COPRO_PKT_HDR(0x42, 0, 1), 0 };

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4100), ==, DDI_EBOUNDS);
    r = (struct kapi_render_args){ .cmd = bad, .cmd_bytes = 4 };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EOPCODE);
    r.cmd_bytes = 0;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    r.cmd_bytes = 1u << 30;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    r = (struct kapi_render_args){ .cmd = bad, .cmd_bytes = 4,
                                   .nalloc = 1000 };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    r = (struct kapi_render_args){ .cmd = bad, .cmd_bytes = 4, .nalloc = 1 };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_render(a.p, a.ctx, NULL), ==, DDI_EINVAL);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpuint(kern.stats.render_refusals, ==, 7);
    /* no DMA buffer or record leaked: the segment holds only what the
     * process created (save area, allocation, sync) */
    g_assert_cmpuint(kern.seg.count, ==, 3);
}

static void test_args(void)
{
    struct proc a;
    struct kapi_alloc_desc d = { .size = 0 };
    uint32_t h;
    volatile void *cpu;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_EINVAL);
    d.size = 1ull << 40;
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_EINVAL);
    d.size = kern.seg.size - 1;     /* fits the segment, not the process's
                                       quota of it */
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_EQUOTA);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, NULL, &h), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 7, VIDSCH_PRIO_NORMAL,
                                        &h), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_COUNT,
                                        &h), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_lock(a.p, a.buf, 0, &cpu), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_lock(a.p, a.buf, 0x80, &cpu), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, NULL, NULL), ==,
                    DDI_EINVAL);
    /* monitored fences never go back */
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 10), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 9), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 10), ==, DDI_OK);
}

static void test_cpu_signal_wakes(void)
{
    struct proc a;
    struct waited w = { 0 };

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 3, on_wait, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 2), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 3), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
}

/* A GPU wait holds the context's later work until the value is there. */
static void test_gpu_wait(void)
{
    struct proc a;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_wait_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
}

static void test_lock(void)
{
    struct proc a;
    struct waited w = { 0 };
    volatile void *cpu = NULL;
    struct kapi_alloc_desc hidden = { .size = 64, .cpu_visible = false };
    uint32_t h;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_nonnull(cpu);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    /* the GPU still uses it */
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_EBUSY);
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpint(kapi_lock_wait(a.p, a.buf, on_lock, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);
    gpu.hold = false;
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_true(w.cpu == cpu);
    g_assert_cmphex(*(volatile uint32_t *)w.cpu, ==, 0);   /* fake GPU */
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    /* not CPU-visible: never mapped */
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &hidden, &h), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_lock(a.p, h, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_lock_wait(a.p, h, on_lock, &w), ==, DDI_EINVAL);
}

static void test_share(void)
{
    struct proc a, b;
    uint32_t name = 0, h = 0;
    unsigned before;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmphex(name, !=, 0);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name ^ 0x100, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, 0, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, a.dev, name, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmphex(h, !=, a.buf);
    /* the creator lets go: b's handle keeps it */
    before = kern.seg.count;
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, before);
    g_assert_cmpint(fill(&b, b.ctx, h, 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, before - 1);
    /* the name died with it */
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==,
                    DDI_EHANDLE);
}

/* Destroying an allocation the GPU still uses frees it afterwards. */
static void test_deferred_free(void)
{
    struct proc a;
    unsigned before;

    setup();
    make_proc(&a, "a");
    before = kern.seg.count;
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, before + 1);     /* + DMA buffer */
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.seg.count, ==, before - 1);
}

static void test_vidmm_oversubscribe(void)
{
    struct kapi_alloc_desc big = { .size = VMSEG + 4096 };
    const struct vidmm_stats *vs;
    struct vidmm_alloc_state st;
    volatile void *cpu, *cpu0;
    struct proc a;
    uint32_t h[4], x;

    setup_vidmm();
    make_proc(&a, "a");
    /* 3 MiB on 2 MiB of VRAM: accepted; more than all of it: refused */
    make_big(&a, h);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &big, &x), ==,
                    DDI_EINVAL);
    /* h[2], h[3] used: older ones evicted, paging buffers first on the
     * copy engine, retired back through buffer_done */
    g_assert_cmpint(fill(&a, a.ctx, h[2], 4096), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, h[3], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 2);
    g_assert_cmpuint(fp.builds, >=, 1);
    g_assert_cmpuint(kern.stats.paging_buffers_done, ==, fp.builds);
    vs = kernel_vidmm_stats(&kern);
    g_assert_nonnull(vs);
    g_assert_cmpuint(vs->paging_buffers, ==, fp.builds);
    g_assert_cmpuint(vs->restores, ==, 2);
    g_assert_cmpuint(vs->evictions, >=, 2);
    g_assert_cmpuint(fp.transfers, ==, vs->restores + vs->evictions);
    g_assert_cmpuint(vstate(&a, h[2]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vstate(&a, h[3]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vstate(&a, h[0]).where, ==, VIDMM_IN_SYSMEM);
    g_assert_true(kernel_gpu_idle(&kern));
    /* lock: VRAM through the segment's CPU view, system memory its
     * backing run */
    st = vstate(&a, h[2]);
    g_assert_cmpint(kapi_lock(a.p, h[2], KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_true(cpu == (volatile void *)(vram + st.gpu_addr));
    st = vstate(&a, h[0]);
    g_assert_cmpint(kapi_lock(a.p, h[0], KAPI_LOCK_DONOTWAIT, &cpu0), ==,
                    DDI_OK);
    g_assert_true(cpu0 == (volatile void *)(uintptr_t)st.pages[0]);
    g_assert_cmpuint(vstate(&a, h[0]).pin, ==, 1);
    /* locked in system memory: the GPU uses it there (mapped in the
     * aperture), its pages stay where the CPU's pointer is */
    g_assert_cmpint(fill(&a, a.ctx, h[0], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 3);
    st = vstate(&a, h[0]);
    g_assert_cmpuint(st.where, ==, VIDMM_IN_APERTURE);
    g_assert_true(cpu0 == (volatile void *)(uintptr_t)st.pages[0]);
    /* unlocked (unpinned), it may come into VRAM */
    g_assert_cmpint(kapi_unlock(a.p, h[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_unlock(a.p, h[2]), ==, DDI_OK);
    g_assert_cmpint(kapi_unlock(a.p, h[2]), ==, DDI_EINVAL);
    g_assert_cmpuint(vstate(&a, h[0]).pin, ==, 0);
    g_assert_cmpint(fill(&a, a.ctx, h[0], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(vstate(&a, h[0]).where, ==, VIDMM_IN_VRAM);
    /* everything freed: the pool has all its pages back */
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(pool.free, ==, pool.pages);
    g_assert_cmpuint(vidmm_vram_used(kern.vm), ==, 0);
    /* the kernel's part holds only the paging buffers' reserved packets */
    g_assert_cmpuint(kern.seg.count, ==, KERNEL_MAX_PAGING);
}

/* Pageable DMA buffers (kernel/kdma.h): a placement per process or per
 * buffer; the buffer is a vidmm allocation, not a block of the kernel's
 * segment, starts in its backing pages, is brought in (copied into
 * VRAM, or mapped in the aperture) before it runs, and everything is
 * given back once it retired. A bad placement is refused. */
static void test_dma_placement(void)
{
    struct kapi_render_args r;
    struct proc a;
    unsigned kseg;

    setup_vidmm();
    make_proc(&a, "a");
    /* a first buffer in the kernel's segment: what the context takes
     * there on its first render stays (counted in kseg) */
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4096), ==, DDI_OK);
    run();
    kseg = kern.seg.count;
    g_assert_cmpint(kapi_set_dma_placement(a.p, KAPI_DMA_PLACEMENTS), ==,
                    DDI_EINVAL);
    umd_init(&cb, cmd, sizeof(cmd));
    umd_fill(&cb, a.buf, 0, 4096, 0x12345678);
    r = (struct kapi_render_args){
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
        .alloc = cb.alloc, .nalloc = cb.nalloc, .patch = cb.patch,
        .npatch = cb.npatch, .placement = KAPI_DMA_PLACEMENTS,
    };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    g_assert_cmpuint(kern.stats.dma_pageable, ==, 0);
    /* the process's placement: VRAM */
    g_assert_cmpint(kapi_set_dma_placement(a.p, KAPI_DMA_VRAM), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4096), ==, DDI_OK);
    g_assert_cmpuint(kern.stats.dma_pageable, ==, 1);
    g_assert_cmpuint(kern.seg.count, ==, kseg);     /* not the kernel's */
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 2);
    g_assert_cmpuint(kern.stats.dma_brought_in, ==, 1);
    g_assert_cmpuint(kern.stats.dma_vram_peak, ==, 4096);
    g_assert_cmpuint(kernel_vidmm_stats(&kern)->restores, >=, 1);
    /* one buffer's own: the aperture */
    r.placement = KAPI_DMA_APERTURE;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, kseg);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 3);
    g_assert_cmpuint(kern.stats.dma_brought_in, ==, 2);
    g_assert_cmpuint(kern.stats.dma_vram_peak, ==, 4096);
    /* the kernel's segment again */
    r.placement = KAPI_DMA_KERNEL;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, kseg + 1);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 4);
    g_assert_cmpuint(kern.stats.dma_pageable, ==, 2);
    /* nothing left behind */
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(pool.free, ==, pool.pages);
    g_assert_cmpuint(vidmm_vram_used(kern.vm), ==, 0);
    g_assert_cmpuint(kern.seg.count, ==, KERNEL_MAX_PAGING);
}

/* Destroyed while a paging buffer still moves it: vidmm refuses the
 * free, the kernel frees it once that buffer retired. */
static void test_vidmm_free_while_paging(void)
{
    struct proc a;
    struct kalloc *ka;
    uint32_t h[4];

    setup_vidmm();
    make_proc(&a, "a");
    make_big(&a, h);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, h[2], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(fp.builds, ==, 1);
    g_assert_cmpuint(kern.stats.paging_buffers_done, ==, 0);
    /* h[0] (least recently used after the 4 KiB buffer) went out */
    g_assert_cmpuint(vstate(&a, h[0]).where, ==, VIDMM_IN_SYSMEM);
    ka = kalloc_of(&a, h[0]);
    g_assert_cmpint(kapi_destroy_allocation(a.p, h[0]), ==, DDI_OK);
    g_assert_true(ka->used && ka->dying);
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.stats.paging_buffers_done, ==, 1);
    g_assert_cmpuint(kern.stats.buffers_done, ==, 1);
    g_assert_false(ka->used);
}

static void test_destroy_device(void)
{
    struct proc a;
    struct waited w = { 0 };

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, on_wait, &w), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_EHANDLE);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpuint(kern.seg.count, ==, 0);
    g_assert_cmpuint(a.p->handles.used, ==, 0);
}

/* A fault blames the context: its device is removed, its process told,
 * its waits fail, its calls return DDI_ELOST; others go on. */
static void test_lost(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t h;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    lost_calls = 0;
    kapi_set_lost_callback(a.p, on_lost, NULL);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, on_wait, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    g_assert_cmpuint(gpu.resets, >=, 1);
    g_assert_cmpuint(lost_calls, ==, 1);
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_ELOST);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &h), ==, DDI_ELOST);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.buffers_lost, ==, 1);
}

/*
 * A fault removes the whole device [WDDM], not the faulting context
 * alone: the process's other contexts, one with a buffer queued and one
 * held on the faulting context's signal (on the copy engine), are lost
 * with it: neither buffer runs, both are in error. Another process's
 * work runs on.
 */
static void test_lost_whole_device(void)
{
    struct proc a, b;
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t queued, held;
    unsigned submits;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &queued), ==, DDI_OK);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 1, VIDSCH_PRIO_NORMAL,
                                        &held), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    g_assert_cmpint(fill(&a, queued, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(a.p, held, a.sync, 1), ==, DDI_OK);
    umd_init(&cb, cmd, sizeof(cmd));
    umd_copy(&cb, a.buf, 0, a.buf, 2048, 64);
    g_assert_cmpint(render(&a, held), ==, DDI_OK);
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    submits = gpu.submits;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    /* nothing of a's ran after the fault */
    g_assert_cmpuint(gpu.submits, ==, submits);
    g_assert_cmpint(kapi_context_error(a.p, queued), ==, DDI_ELOST);
    g_assert_cmpint(kapi_context_error(a.p, held), ==, DDI_ELOST);
    g_assert_cmpuint(kern.stats.contexts_lost, ==, 3);
    g_assert_cmpuint(kern.stats.buffers_lost, ==, 3);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpint(kapi_context_error(b.p, b.ctx), ==, DDI_OK);
}

/* A sync object shared with another process: it waits on it on the GPU,
 * and keeps it when the creator lets go. */
static void test_share_sync(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    uint32_t name = 0, h = 0, bad = 0;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_share_sync(a.p, b.sync, &name), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_share_sync(a.p, a.buf, &name), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, NULL), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    /* an allocation's name is not a sync object's, nor the reverse */
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &bad), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, bad, &h), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_sync(b.p, a.dev, name, &h), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name ^ 0x100, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_OK);
    /* b's work waits for a's signal */
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    /* the creator lets go; b still waits on it and signals it */
    g_assert_cmpint(kapi_destroy_sync(a.p, a.sync), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 2, on_wait, &w), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(b.p, h, 2), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_sync(b.p, h), ==, DDI_OK);
    /* the name died with it */
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_EHANDLE);
}

/* Destroying a device closes the shared allocations and sync objects
 * opened on it (they leaked: the creator's reference count never came
 * back). */
static void test_destroy_device_opened(void)
{
    struct proc a, b;
    uint32_t name, sname, h, hs;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
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
    g_assert_cmpuint(kalloc_of(&a, a.buf)->refs, ==, 2);
    g_assert_cmpint(kapi_destroy_device(b.p, b.dev), ==, DDI_OK);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->refs, ==, 1);
    g_assert_cmpuint(((struct ksync *)handle_lookup(&a.p->handles, a.sync,
                                                    HANDLE_SYNC))->refs,
                     ==, 1);
    g_assert_cmpuint(b.p->handles.used, ==, 0);
}

void kernel_tests_objects(void)
{
    g_test_add_func("/kernel/render-roundtrip", test_render_roundtrip);
    g_test_add_func("/kernel/foreign-stale-wrong-type",
                    test_foreign_stale_wrong_type);
    g_test_add_func("/kernel/render-refusals", test_render_refusals);
    g_test_add_func("/kernel/args", test_args);
    g_test_add_func("/kernel/cpu-signal-wakes", test_cpu_signal_wakes);
    g_test_add_func("/kernel/gpu-wait", test_gpu_wait);
    g_test_add_func("/kernel/lock", test_lock);
    g_test_add_func("/kernel/share", test_share);
    g_test_add_func("/kernel/deferred-free", test_deferred_free);
    g_test_add_func("/kernel/destroy-device", test_destroy_device);
    g_test_add_func("/kernel/vidmm/oversubscribe", test_vidmm_oversubscribe);
    g_test_add_func("/kernel/vidmm/dma-placement", test_dma_placement);
    g_test_add_func("/kernel/vidmm/free-while-paging",
                    test_vidmm_free_while_paging);
    g_test_add_func("/kernel/lost", test_lost);
    g_test_add_func("/kernel/lost-whole-device", test_lost_whole_device);
    g_test_add_func("/kernel/share-sync", test_share_sync);
    g_test_add_func("/kernel/destroy-device-opened",
                    test_destroy_device_opened);
}
