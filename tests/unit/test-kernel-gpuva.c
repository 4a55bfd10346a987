/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests of the kernel (test-kernel.h). GPU-VA mode
 * (firmware/kernel/kgpuva.c, the fake driver's gpuva ops keeping a software
 * page table): VAs for life, MakeResident pages in and maps the VA onto VRAM, a
 * process over its budget gets a trim callback for exactly its excess and what
 * it evicts is paged out and unmapped, the paging fence holds the context's
 * next buffer, reference counts, foreign handles, a clean out-of-memory, every
 * page back at the end; GPU-VA views of vidmm's allocations (kapi_map_gpu_va,
 * kernel/kvamap.h).
 */
#include "test-kernel.h"

/* GPU-VA mode's paging engine must be one of the device's: refused at
 * start with a reason (not every paging buffer refused later); engine
 * 0, which runs every packet, serves a device with one engine. */
static void test_gpuva_paging_engine(void)
{
    const char *err = start_gpuva(ENGINES);

    g_assert_nonnull(err);
    g_assert_nonnull(strstr(err, "paging engine"));
    g_assert_null(start_gpuva(0));
}

static void test_gpuva_budget_trim(void)
{
    struct gv_app a;
    uint64_t f0 = 0, f1 = 0, f2 = 0, v0, v1, v2, va0, budget, usage;
    volatile void *cpu;

    setup_gpuva();
    gv_make(&a, "a", 3, 2 * GV_ALLOC);
    g_assert_cmpuint(fv.binds, ==, 1);
    /* VAs for life: distinct, non-zero, above the OS's VRAM; nothing
     * mapped until MakeResident */
    g_assert_cmpuint(a.va[0], >=, FV_VA_BASE);
    g_assert_cmpuint(a.va[1], >=, a.va[0] + GV_ALLOC);
    g_assert_false(gv_mapped(&a, 0, &v0));
    va0 = a.va[0];

    g_assert_cmpint(gv_resident(&a, 0, &f0), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a, 1, &f1), ==, DDI_OK);
    g_assert_cmpuint(f0, >, 0);
    g_assert_cmpuint(f1, >, f0);
    g_assert_true(gv_mapped(&a, 0, &v0));
    g_assert_true(gv_mapped(&a, 1, &v1));
    g_assert_cmpuint(v0, !=, v1);
    g_assert_cmpuint(a.trims, ==, 0);
    g_assert_cmpint(kapi_query_video_memory(a.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(budget, ==, 2 * GV_ALLOC);
    g_assert_cmpuint(usage, ==, 2 * GV_ALLOC);

    /* a third one takes it over budget: trimmed for exactly the excess;
     * what it evicted is paged out and unmapped, under the same VA */
    g_assert_cmpint(gv_resident(&a, 2, &f2), ==, DDI_OK);
    g_assert_cmpuint(a.trims, ==, 1);
    g_assert_cmpuint(a.trim_bytes[0], ==, GV_ALLOC);
    g_assert_false(a.held[0]);
    g_assert_false(gv_mapped(&a, 0, &v0));
    g_assert_true(gv_mapped(&a, 2, &v2));
    g_assert_cmpint(kapi_gpu_va(a.p, a.h[0], &a.va[0]), ==, DDI_OK);
    g_assert_cmpuint(a.va[0], ==, va0);
    g_assert_cmpint(kapi_query_video_memory(a.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, 2 * GV_ALLOC);
    /* a lock needs a reference (it may move otherwise) */
    g_assert_cmpint(kapi_lock(a.p, a.h[0], KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_EBUSY);
    g_assert_cmpint(kapi_lock(a.p, a.h[2], KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_lock(a.p, a.h[2], KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_true(cpu == (volatile void *)(vram + v2));
    g_assert_cmpint(kapi_unlock(a.p, a.h[2]), ==, DDI_OK);
    run();
    /* one paging fence value per paging buffer, all retired */
    g_assert_cmpuint(kern.gpuva.fence_done, ==, kern.gpuva.fence_issued);
    g_assert_cmpuint(kern.gpuva.stats.page_outs, ==, 1);
    g_assert_cmpuint(kern.gpuva.stats.page_ins, ==, 3);
}

/* MakeResident's paging fence holds the context's next buffer until the
 * paging buffer retired (kapi_wait_paging), and GPU-VA buffers carry no
 * lists. */
static void test_gpuva_paging_hold(void)
{
    struct gv_app a;
    uint64_t f = 0;
    struct kapi_render_args bad;

    setup_gpuva();
    gv_make(&a, "a", 1, 0);
    run();
    gpu.hold = true;
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpuint(f, >, 0);
    g_assert_cmpint(kapi_wait_paging(a.p, a.ctx, f + 1), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_wait_paging(a.p, a.ctx, f), ==, DDI_OK);
    g_assert_cmpint(gv_render_va(&a, a.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[1], >, 0);     /* the paging buffer */
    g_assert_cmpuint(gpu.nq[0], ==, 0);    /* the render buffer: held */
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.gpuva.fence_done, ==, f);
    g_assert_cmpuint(kern.stats.buffers_done, ==, 1);
    /* an allocation list on a GPU-VA context: refused */
    umd_init(&cb, cmd, sizeof(cmd));
    umd_fill(&cb, a.h[0], 0, 64, 1);
    bad = (struct kapi_render_args){
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
        .alloc = cb.alloc, .nalloc = cb.nalloc, .patch = cb.patch,
        .npatch = cb.npatch,
    };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &bad), ==, DDI_EINVAL);
    /* already reached: nothing to hold */
    g_assert_cmpint(kapi_wait_paging(a.p, a.ctx, f), ==, DDI_OK);
}

static void test_gpuva_refs_and_enomem(void)
{
    struct gv_app a, b;
    struct proc c;
    uint64_t f = 0, budget, usage, u0;
    uint32_t all[5];

    setup_gpuva();
    gv_make(&a, "a", 2, 0);
    gv_make(&b, "b", 5, 0);
    /* two MakeResident need two Evict; a third is refused */
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==,
                    DDI_EINVAL);
    /* a's other one resident too, unreferenced as well */
    g_assert_cmpint(gv_resident(&a, 1, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[1], 1, NULL), ==, DDI_OK);
    /* another process's handle or device; a device without GPU-VA */
    g_assert_cmpint(kapi_make_resident(a.p, a.dev, &b.h[0], 1, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_make_resident(a.p, b.dev, &a.h[0], 1, &f), ==,
                    DDI_EHANDLE);
    make_proc(&c, "c");
    g_assert_cmpint(kapi_make_resident(c.p, c.dev, &c.buf, 1, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_gpu_va(c.p, c.buf, &f), ==, DDI_EINVAL);
    /* b may reference all of the VRAM but a's guarantee: 5 at once
     * (more than the VRAM) is over its quota, 4 (all of it) would take
     * a's guarantee: both refused whole, nothing changed */
    gv_allow_all(&b);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &u0), ==, DDI_OK);
    memcpy(all, b.h, sizeof(all));
    g_assert_cmpint(kapi_make_resident(b.p, b.dev, all, 5, &f), ==,
                    DDI_EQUOTA);
    g_assert_cmpint(kapi_make_resident(b.p, b.dev, all, 4, &f), ==,
                    DDI_ENOMEM);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, u0);
    g_assert_cmpint(kapi_evict(b.p, b.dev, &all[0], 1, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpuint(kern.gpuva.stats.enomem, ==, 1);
    g_assert_cmpuint(b.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    /* 3 fit (one of a's unreferenced ones is taken back from it) */
    g_assert_cmpint(kapi_make_resident(b.p, b.dev, all, 3, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, 3 * GV_ALLOC);
    g_assert_cmpuint(b.p->quota.used[KQ_GPUVA_VRAM], ==, 3 * GV_ALLOC);
    g_assert_cmpint(kapi_query_video_memory(a.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, GV_ALLOC);
    /* everything goes: every backing page back once the GPU is done */
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_device(b.p, b.dev), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_device(c.p, c.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(fv.unbinds, ==, fv.binds);
    g_assert_cmpuint(pool.free, ==, pool.pages);
    g_assert_cmpuint(kern.gpuva.res.used, ==, 0);
    g_assert_cmpuint(vidmm_segment_used_bytes(&kern.gpuva.vram), ==, 0);
}

/* One MakeResident's moves are one paging buffer; with every paging
 * buffer on the GPU, MakeResident is DDI_EBUSY and changes nothing, and
 * works again once they retired. */
static void test_gpuva_batch_busy(void)
{
    struct gv_app a;
    uint64_t f = 0, budget, usage, u0, bufs, outs, ins;
    unsigned i, busy_at = 0;
    int st = DDI_OK;

    setup_gpuva();
    gv_make(&a, "a", 2, GV_ALLOC);
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    run();
    gpu.hold = true;
    for (i = 1; i < 2 * KGPUVA_MAX_PAGING && st == DDI_OK; i++) {
        bufs = kern.gpuva.stats.paging_buffers;
        outs = kern.gpuva.stats.page_outs;
        ins = kern.gpuva.stats.page_ins;
        kapi_query_video_memory(a.p, &budget, &u0);
        /* over budget: the other is trimmed (out) and this one comes in,
         * both in one buffer */
        st = gv_resident(&a, i % 2, &f);
        if (st == DDI_OK) {
            g_assert_cmpuint(kern.gpuva.stats.paging_buffers, ==, bufs + 1);
            g_assert_cmpuint(kern.gpuva.stats.page_outs, ==, outs + 1);
            g_assert_cmpuint(kern.gpuva.stats.page_ins, ==, ins + 1);
            g_assert_cmpuint(f, ==, kern.gpuva.fence_issued);
        } else {
            busy_at = i;
        }
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(busy_at, >, 1);
    kapi_query_video_memory(a.p, &budget, &usage);
    g_assert_cmpuint(usage, ==, u0);
    g_assert_false(a.held[busy_at % 2]);
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.gpuva.fence_done, ==, kern.gpuva.fence_issued);
    g_assert_cmpint(gv_resident(&a, busy_at % 2, &f), ==, DDI_OK);
}

/* An allocation evicted while the process's work is in flight is not
 * paged out under it: a MakeResident that needs its memory is DDI_EBUSY
 * until that work retired. */
static void test_gpuva_evict_in_use(void)
{
    struct gv_app a;
    uint64_t f = 0, v;

    setup_gpuva();
    gv_make(&a, "a", 5, 0);
    gv_allow_all(&a);
    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmpint(gv_resident(&a, i, &f), ==, DDI_OK);
    }
    run();
    gpu.hold = true;
    g_assert_cmpint(gv_render_va(&a, a.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==, DDI_OK);
    a.held[0] = false;
    g_assert_cmpint(gv_resident(&a, 4, &f), ==, DDI_EBUSY);
    g_assert_true(gv_mapped(&a, 0, &v));
    g_assert_false(gv_mapped(&a, 4, &v));
    gpu.hold = false;
    run();
    g_assert_cmpint(gv_resident(&a, 4, &f), ==, DDI_OK);
    g_assert_false(gv_mapped(&a, 0, &v));
    g_assert_true(gv_mapped(&a, 4, &v));
}

/* The fake page table over [va, + bytes): every page `target`, onto
 * consecutive frames from `frame`, writable as asked. */
static void assert_view(uint64_t va, uint64_t bytes, uint32_t target,
                        uint64_t frame, bool writable)
{
    for (uint64_t a = va; a < va + bytes; a += 4096) {
        uint64_t i = (a - FV_VA_BASE) / 4096;

        g_assert_cmpuint(i, <, FV_PAGES);
        g_assert_true(fv.reserved[i]);
        g_assert_cmpuint(fv.target[i], ==, target);
        if (target != DDI_PTE_INVALID) {
            g_assert_cmpuint(fv.frame[i], ==, frame + (a - va));
            g_assert_cmpint(fv.writable[i], ==, writable);
        }
    }
}

/*
 * A GPU-VA view of an allocation of a packet-based device: its owner's
 * (writable), one shared with another process read-only (read-only on
 * the GPU too); refused for what it cannot be; gone with the handle, the
 * allocation freed only once every view's invalidation retired and
 * nothing of either process left behind.
 */
static void test_gpuva_view(void)
{
    struct kapi_alloc_desc d = { .size = GV_ALLOC, .cpu_visible = true,
                                 .zeroed = true };
    struct kernel_census start;
    struct kproc *a, *b;
    uint32_t da, ga, ha, ha2, hgv, db, gb, hb, name, hs[2];
    uint64_t va, vas[2], vb, f, f2, vram, bufs;
    struct vidmm_alloc_state vs;
    struct kalloc *al;

    setup_gpuva_vidmm();
    take_census(&start);
    a = kapi_process_create(&kern, "a");
    b = kapi_process_create(&kern, "b");
    g_assert_cmpint(kapi_create_device(a, &da), ==, DDI_OK);
    g_assert_cmpint(kapi_create_device_gpuva(a, &ga), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a, da, &d, &ha), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a, ga, &d, &hgv), ==, DDI_OK);
    run();
    /* refused: not a GPU-VA device, a GPU-VA allocation, bad handles,
     * pointers and counts; nothing changed */
    g_assert_cmpint(kapi_map_gpu_va(a, da, &ha, 1, &va, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &hgv, 1, &va, &f), ==,
                    DDI_EINVAL);
    hs[0] = ha;
    hs[1] = 0x7fff0001;
    g_assert_cmpint(kapi_map_gpu_va(a, ga, hs, 2, vas, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_map_gpu_va(a, 0x7fff0001, &ha, 1, &va, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, NULL, 1, &va, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 1, NULL, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 1, &va, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 0, &va, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, KVAMAP_MAX + 1, &va, &f),
                    ==, DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(b, ga, &ha, 1, &va, &f), ==,
                    DDI_EHANDLE);
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        g_assert_false(kern.vamaps[i].used);
    }
    /* the owner's view: pinned where it is in VRAM, writable */
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 1, &va, &f), ==, DDI_OK);
    g_assert_cmpuint(f, >, 0);
    al = handle_lookup(&a->handles, ha, HANDLE_ALLOCATION);
    g_assert_nonnull(al);
    g_assert_cmpint(vidmm_alloc_state(kern.vm, al->vm, &vs), ==, DDI_OK);
    g_assert_cmpuint(vs.where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vs.pin, ==, 1);        /* the view's: it stays */
    vram = vs.gpu_addr;
    assert_view(va, GV_ALLOC, DDI_PTE_VRAM, vram, true);
    /* charged to the viewer: the view and the bytes it pins */
    g_assert_cmpuint(a->quota.used[KQ_VIEWS], ==, 1);
    g_assert_cmpuint(a->quota.used[KQ_PINNED], ==, GV_ALLOC);
    /* again, with a second one in the same call: the same VA, and one
     * paging buffer for the new view */
    g_assert_cmpint(kapi_create_allocation(a, da, &d, &ha2), ==, DDI_OK);
    hs[0] = ha;
    hs[1] = ha2;
    bufs = kern.gpuva.stats.paging_buffers;
    g_assert_cmpint(kapi_map_gpu_va(a, ga, hs, 2, vas, &f2), ==, DDI_OK);
    g_assert_cmpuint(vas[0], ==, va);
    g_assert_cmpuint(vas[1], !=, va);
    g_assert_cmpuint(f2, >, f);
    g_assert_cmpuint(kern.gpuva.stats.paging_buffers, ==, bufs + 1);
    g_assert_cmpuint(a->quota.used[KQ_VIEWS], ==, 2);
    run();
    g_assert_cmpuint(kern.gpuva.fence_done, >=, f2);
    /* shared read-only with b: b's view is read-only */
    g_assert_cmpint(kapi_create_device(b, &db), ==, DDI_OK);
    g_assert_cmpint(kapi_create_device_gpuva(b, &gb), ==, DDI_OK);
    g_assert_cmpint(kapi_share_allocation(a, ha, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a, ha, kapi_process_id(b),
                                          KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b, db, name, &hb), ==, DDI_OK);
    g_assert_cmpint(kapi_map_gpu_va(b, gb, &hb, 1, &vb, &f), ==, DDI_OK);
    /* (the fake keeps one table for every space: b's range is at the
     * same VA as a's) */
    assert_view(vb, GV_ALLOC, DDI_PTE_VRAM, vram, false);
    g_assert_cmpuint(b->quota.used[KQ_VIEWS], ==, 1);
    g_assert_cmpuint(b->quota.used[KQ_PINNED], ==, GV_ALLOC);
    vidmm_alloc_state(kern.vm, al->vm, &vs);
    g_assert_cmpuint(vs.pin, ==, 2);
    run();
    /* b's handle goes: its view with it; the allocation stays a's */
    g_assert_cmpint(kapi_destroy_allocation(b, hb), ==, DDI_OK);
    assert_view(vb, GV_ALLOC, DDI_PTE_INVALID, 0, false);
    run();
    g_assert_true(handle_lookup(&a->handles, ha, HANDLE_ALLOCATION) == al);
    g_assert_true(al->used);
    /* b's pin and charges went with its view */
    vidmm_alloc_state(kern.vm, al->vm, &vs);
    g_assert_cmpuint(vs.pin, ==, 1);
    g_assert_cmpuint(b->quota.used[KQ_VIEWS], ==, 0);
    g_assert_cmpuint(b->quota.used[KQ_PINNED], ==, 0);
    /* a exits with its view: the view, then the allocation go */
    g_assert_cmpint(kapi_process_exit(a), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(b), ==, DDI_OK);
    run();
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        g_assert_false(kern.vamaps[i].used);
    }
    assert_census(&start);
}

void kernel_tests_gpuva(void)
{
    g_test_add_func("/kernel/gpuva/budget-trim", test_gpuva_budget_trim);
    g_test_add_func("/kernel/gpuva/view", test_gpuva_view);
    g_test_add_func("/kernel/gpuva/paging-hold", test_gpuva_paging_hold);
    g_test_add_func("/kernel/gpuva/batch-busy", test_gpuva_batch_busy);
    g_test_add_func("/kernel/gpuva/evict-in-use", test_gpuva_evict_in_use);
    g_test_add_func("/kernel/gpuva/paging-engine", test_gpuva_paging_engine);
    g_test_add_func("/kernel/gpuva/refs-and-enomem",
                    test_gpuva_refs_and_enomem);
}
