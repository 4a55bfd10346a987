/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * residency: GPU-VA mode (WDDM 2.x) with budgets and trims. Two
 * applications of GPU-VA devices (apps/resapp.h) render into their
 * allocations by virtual address and keep their own residency lists:
 *
 *   res-over: 6 allocations of 256 KiB, a budget of 4 of them;
 *   res-fit:  2 allocations of 256 KiB, the same budget (it fits), and
 *             steps of 5 ms of WORK (preempted on quantum).
 *
 * The OS's GPU-VA VRAM is 6 allocations' worth, so both fit together
 * only while res-over keeps to its budget. Every time res-over makes a
 * fifth allocation resident, the OS calls its trim callback with exactly
 * the excess (one allocation), it evicts its least recently used one,
 * and the pager moves that one to system memory (COPY, then its leaf
 * entries invalid, on the copy engine) and the new one in (COPY, then its
 * entries onto the new VRAM block), with the VA kept. The checks:
 *
 *  - every word of every allocation of both apps is what they rendered,
 *    after all those moves (the apps' own checks);
 *  - res-over was trimmed, the first time with exactly 256 KiB; res-fit
 *    never was; the pager paged in and out;
 *  - res-fit's long steps are preempted and resumed: its save area is
 *    written through its own address space;
 *  - MakeResident / Evict reference counts: two MakeResident need two
 *    Evict; a third Evict is refused; a lock needs a reference;
 *  - another process's handle is refused; out of memory is clean: a
 *    MakeResident that cannot fit fails with DDI_ENOMEM and changes
 *    nothing; it succeeds once the memory is released.
 *
 * A process's referenced GPU-VA VRAM is a quota (kernel/kquota.h: half
 * by default, and its budget no more): the scenario, as the session
 * manager, gives res-over its budget's worth and res-edge all of it.
 *
 * The scenario never touches the device and never schedules.
 * Command line: irq=..., the scheduler options.
 */
#include <stdint.h>

#include "apps/resapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define KIB         ((uint64_t)1024)
#define ALLOC       (256 * KIB)
#define NOVER       6
#define NFIT        2
#define BUDGET      (4 * ALLOC)
#define GPUVA_VRAM  (6 * ALLOC)

static struct os_scenario s;
static struct resapp over, fit;

/* A process of the scenario's own, for the API's edge cases. */
static void api_checks(struct kernel *k)
{
    struct kproc *p = kapi_process_create(k, "res-edge");
    struct kapi_alloc_desc d = {
        .size = ALLOC, .cpu_visible = true, .zeroed = true,
    };
    uint32_t hdev = 0, h = 0, many[7] = { 0 };
    uint64_t fence = 0, budget = 0, usage = 0, usage0 = 0;
    volatile void *cpu;
    int st, st2, st3;
    bool ok = true;

    st = p ? kapi_create_device_gpuva(p, &hdev) : DDI_ENOMEM;
    if (st == DDI_OK) {
        st = kapi_create_allocation(p, hdev, &d, &h);
    }
    for (unsigned i = 0; i < 7 && st == DDI_OK; i++) {
        st = kapi_create_allocation(p, hdev, &d, &many[i]);
    }
    /* [the session manager] res-edge may reference all of the VRAM:
     * what refuses it below is the others' references and guarantees */
    if (st == DDI_OK) {
        st = kquota_set_limit(k, p, KQ_GPUVA_VRAM, GPUVA_VRAM);
    }
    if (!report(&s.r, st == DDI_OK, "res-edge: a GPU-VA device and 8 "
                "allocations of 256 KiB (%s)", ddi_status_name(st))) {
        return;
    }
    /* the two apps hold 6 references of 256 KiB: all of the VRAM */
    kapi_query_video_memory(p, &budget, &usage0);
    st = kapi_make_resident(p, hdev, &h, 1, &fence);
    kapi_query_video_memory(p, &budget, &usage);
    report(&s.r, st == DDI_ENOMEM && usage == usage0 &&
           kapi_evict(p, hdev, &h, 1, NULL) == DDI_EINVAL,
           "out of memory while every byte is referenced: MakeResident "
           "%s, nothing changed (usage %lu KiB, no reference to Evict)",
           ddi_status_name(st), usage >> 10);
    st = kapi_make_resident(p, over.app.hdev, &h, 1, &fence);
    st2 = kapi_make_resident(p, hdev, &over.halloc[0], 1, &fence);
    report(&s.r, st == DDI_EHANDLE && st2 == DDI_EHANDLE,
           "another process's device or allocation handle: %s, %s",
           ddi_status_name(st), ddi_status_name(st2));

    /* res-over's device goes: its references with it */
    st = kapi_destroy_device(over.app.proc, over.app.hdev);
    st2 = kapi_make_resident(p, hdev, many, 5, &fence);
    kapi_query_video_memory(p, &budget, &usage);
    report(&s.r, st == DDI_OK && st2 == DDI_ENOMEM && usage == 0,
           "5 allocations (1280 KiB) at once beside res-fit's 512 KiB in "
           "1536 KiB: MakeResident %s, all or nothing (usage %lu KiB)",
           ddi_status_name(st2), usage >> 10);

    /* reference counts: two MakeResident need two Evict */
    st = kapi_make_resident(p, hdev, &h, 1, &fence);
    st2 = kapi_make_resident(p, hdev, &h, 1, &fence);
    ok = st == DDI_OK && st2 == DDI_OK && fence > 0;
    st = kapi_evict(p, hdev, &h, 1, NULL);
    st2 = kapi_lock(p, h, KAPI_LOCK_IGNORESYNC, &cpu);
    if (st2 == DDI_OK) {
        kapi_unlock(p, h);
    }
    ok = ok && st == DDI_OK && st2 == DDI_OK;
    st = kapi_evict(p, hdev, &h, 1, NULL);
    st2 = kapi_lock(p, h, KAPI_LOCK_IGNORESYNC, &cpu);
    st3 = kapi_evict(p, hdev, &h, 1, NULL);
    report(&s.r, ok && st == DDI_OK && st2 == DDI_EBUSY &&
           st3 == DDI_EINVAL, "reference counts: MakeResident twice "
           "(paging fence %lu), Evict once still locks, Evict again %s, "
           "then lock %s and a third Evict %s", fence,
           ddi_status_name(st), ddi_status_name(st2),
           ddi_status_name(st3));
    /* 3, not 4: res-over lives on, and its guarantee (a sixteenth of
     * the VRAM) is kept for it */
    st = kapi_make_resident(p, hdev, many, 3, &fence);
    kapi_query_video_memory(p, &budget, &usage);
    report(&s.r, st == DDI_OK && usage >= 3 * ALLOC,
           "once memory is free, 3 of them at once: %s (usage %lu KiB)",
           ddi_status_name(st), usage >> 10);
}

int scenario_main(const struct boot_info *boot)
{
    struct kernel *k = &s.boot.k;
    struct resapp_config c;
    struct kapi_gpuva_stats gs = { 0 };
    struct vidsch_ctx_stats cs = { 0 };
    int st;

    kprintf("residency: GPU-VA mode, budgets and trims\n");
    s.boot.gpuva_vram = GPUVA_VRAM;
    if (os_boot(&s, boot, NULL)) {
        resapp_config_default(&c);
        c.tag = 0x4f;
        c.nallocs = NOVER;
        c.alloc_bytes = ALLOC;
        c.budget = BUDGET;
        st = resapp_init(&over, k, "res-over", &c);
        /* [the session manager] res-over may reference 4 of the 6
         * allocations' worth, its budget (by default a process's quota
         * of referenced GPU-VA VRAM, and so its budget, is half) */
        if (st == DDI_OK) {
            st = kquota_set_limit(k, over.app.proc, KQ_GPUVA_VRAM, BUDGET);
        }
        report(&s.r, st == DDI_OK, "res-over: %u allocations of %lu KiB "
               "by VA, budget %lu KiB (%s)", c.nallocs, c.alloc_bytes >> 10,
               c.budget >> 10, ddi_status_name(st));
        os_add_app(&s, resapp_app(&over));
        c.tag = 0x46;
        c.nallocs = NFIT;
        c.work_ns = 5 * MS;     /* long steps: preempted on quantum (its
                                   save area in its address space) */
        st = resapp_init(&fit, k, "res-fit", &c);
        report(&s.r, st == DDI_OK, "res-fit: %u allocations of %lu KiB "
               "by VA, budget %lu KiB (%s)", c.nallocs, c.alloc_bytes >> 10,
               c.budget >> 10, ddi_status_name(st));
        os_add_app(&s, resapp_app(&fit));
        os_run(&s, 50 * MS, 5000 * MS);
        os_print_table(&s);
        kapi_gpuva_stats(over.app.proc, &gs);
        kprintf("pager: %lu page-ins (%lu KiB), %lu page-outs (%lu KiB), "
                "%lu paging buffers, %lu trims delivered, paging fence "
                "%lu\n", gs.page_ins, gs.bytes_in >> 10, gs.page_outs,
                gs.bytes_out >> 10, gs.paging_buffers, gs.trims_delivered,
                gs.paging_fence);
        report(&s.r, over.trims > 0 && over.first_trim_bytes == ALLOC,
               "res-over over its budget was trimmed %lu times, first for "
               "%lu KiB (the excess: %lu KiB); evicted %lu KiB", over.trims,
               over.first_trim_bytes >> 10, ALLOC >> 10,
               over.evicted_bytes >> 10);
        report(&s.r, fit.trims == 0, "res-fit within its budget was never "
               "trimmed (%lu)", fit.trims);
        /* its long steps were preempted: the engine saved and resumed
         * them through its address space, where its save page is the
         * one writable page of the kernel's VRAM (and, with its own
         * DMA buffers, the only one mapped) */
        kapi_context_stats(fit.app.proc, fit.app.hctx, &cs);
        report(&s.r, cs.preemptions > 0 && cs.resumed > 0,
               "res-fit preempted %lu times and resumed %lu in its address "
               "space (save page writable, its DMA buffers read-only, no "
               "other kernel VRAM mapped)", cs.preemptions, cs.resumed);
        report(&s.r, gs.page_outs > 0 && gs.page_ins > gs.page_outs &&
               over.paging_waits > 0,
               "the pager moved allocations both ways (%lu in, %lu out) and "
               "res-over's work waited for %lu paging fences", gs.page_ins,
               gs.page_outs, over.paging_waits);
        api_checks(k);
    }
    kprintf("METRICS {\"scenario\":\"residency\",\"page_ins\":%lu,"
            "\"page_outs\":%lu,\"bytes_in\":%lu,\"bytes_out\":%lu,"
            "\"paging_buffers\":%lu,\"trims\":%lu,\"trim_bytes\":%lu",
            gs.page_ins, gs.page_outs, gs.bytes_in, gs.bytes_out,
            gs.paging_buffers, over.trims, over.trim_bytes);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
