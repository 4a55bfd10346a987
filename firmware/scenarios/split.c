/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * split: one application whose every frame is a single DMA buffer over
 * six allocations adding up to 1.5x the OS's VRAM (apps/splitapp.h):
 * vidmm cannot make its list resident at once, so vidsch runs it in
 * portions cut at the patch locations' split offsets, with the paging
 * between them, and the umd binds the render target again after split
 * points. A second, small application (apps/memapp.h, same priority)
 * keeps rendering meanwhile. Both are checked by content after the run,
 * every word.
 *
 * Command line: irq=..., duration_ms= (300), percent= (the split app's
 * working set, % of the VRAM vidmm manages: 150), frames= (3), work_us= (1000),
 * refused= (1: the allocations are so big that not even one portion
 * fits, e.g. with percent=360: the split application's context must be
 * put in error with ENOMEM and the other must not notice), split=
 * (schedule, upfront, both: when the buffer is split, kernel/kmem.h),
 * vary= (1: the working set varies, frames cycle through the whole set,
 * a third and two thirds of it, apps/splitapp.h: only the whole frames
 * must be split; frames= then counts them all), the scheduler options.
 */
#include <stdint.h>

#include "apps/memapp.h"
#include "apps/splitapp.h"
#include "kernel/kmem.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

static struct os_scenario s;
static struct splitapp big;
static struct memapp small;

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 300, percent = 150, frames = 3, work_us = 1000,
             refused = 0, vary = 0;
    uint64_t seg_bytes = 0, each = 0, whole = 0;
    struct kernel *k = &s.boot.k;
    struct vidsch_engine_stats es = { 0 };

    kprintf("split: one DMA buffer over 1.5x VRAM, run in portions\n");
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "percent", &percent) &&
        os_option(&s, boot, "frames", &frames) &&
        os_option(&s, boot, "work_us", &work_us) &&
        os_option(&s, boot, "refused", &refused) &&
        os_option(&s, boot, "vary", &vary) &&
        report(&s.r, percent >= 10 && percent <= 400 && frames >= 1,
               "options: percent=%lu (10..400), frames=%lu (>= 1)", percent,
               frames) &&
        os_boot(&s, boot, NULL)) {
        struct splitapp_config sc;
        struct memapp_config mc;
        int st;

        seg_bytes = kernel_app_vram_bytes(k);
        /* six allocations of percent / 6 of VRAM each, whole 64 KiB */
        each = seg_bytes / 100 * percent / SPLITAPP_ALLOCS;
        each -= each % (64u << 10);
        splitapp_config_default(&sc);
        sc.alloc_bytes = each;
        sc.max_frames = frames;
        sc.work_ns = work_us * US;
        sc.vary = vary != 0;
        st = splitapp_init(&big, k, "split", &sc);
        report(&s.r, st == DDI_OK, "split: %u allocations of %lu KiB (%lu %% "
               "of %lu KiB of VRAM) (%s)", SPLITAPP_ALLOCS, each >> 10,
               seg_bytes ? each * SPLITAPP_ALLOCS * 100 / seg_bytes : 0,
               seg_bytes >> 10, ddi_status_name(st));
        if (refused) {
            /* two allocations of one packet exceed VRAM: not even a
             * portion fits, the context must be put in error, alone */
            splitapp_app(&big)->expect_error = DDI_ENOMEM;
        }
        os_add_app(&s, splitapp_app(&big));

        memapp_config_default(&mc);
        mc.tag = 0x6d;
        mc.nallocs = 2;
        mc.per_frame = 2;
        mc.alloc_bytes = MEMAPP_STRIPE * 2;
        mc.work_ns = 200 * US;
        st = memapp_init(&small, k, "small", &mc);
        report(&s.r, st == DDI_OK, "small: 2 allocations of %lu KiB (%s)",
               mc.alloc_bytes >> 10, ddi_status_name(st));
        os_add_app(&s, memapp_app(&small));

        os_run(&s, duration_ms * MS, 5000 * MS);
        os_print_table(&s);
        report(&s.r, refused ? splitapp_app(&big)->completed == 0 :
               splitapp_app(&big)->completed == frames,
               "split: %lu of %lu frames completed",
               splitapp_app(&big)->completed, frames);
        report(&s.r, memapp_app(&small)->completed > frames,
               "small: kept rendering (%lu frames)",
               memapp_app(&small)->completed);
        es = *vidsch_engine_stats(k->vs, COPRO_ENGINE_RENDER);
        whole = vary ? (frames + 2) / 3 : frames;
        /* what makes this the split scenario: the list did not fit, the
         * buffers ran in portions (more than one each) */
        /* (vary: a third of the frames are whole, the others may fit) */
        report(&s.r, percent <= 100 || refused ||
               (k->stats.split_buffers >= whole &&
                es.split_buffers >= whole && es.portions > es.split_buffers),
               "split: the kernel ran %lu buffers in portions, the render "
               "engine retired %lu portions of %lu split buffers",
               k->stats.split_buffers, es.portions, es.split_buffers);
        /* split up front: the estimate at submit time said the list can
         * never be resident at once, so every split was decided then and
         * no residency pass was tried at schedule time; at schedule time
         * only, none was */
        /* (vary: the whole frames are split up front, the partial ones
         * may be split at schedule time under split=both) */
        report(&s.r, percent <= 100 || refused ||
               (k->split_policy == KMEM_SPLIT_SCHEDULE
                ? k->stats.split_upfront == 0
                : vary ? k->stats.split_upfront == whole &&
                         (k->split_policy == KMEM_SPLIT_BOTH ||
                          k->stats.split_buffers == whole)
                       : k->stats.split_upfront == k->stats.split_buffers),
               "split=%s: %lu of %lu split buffers split up front",
               kmem_split_policy_name(k->split_policy),
               k->stats.split_upfront, k->stats.split_buffers);
    }
    os_check_dmabuf(&s);
    kprintf("METRICS {\"scenario\":\"split\",\"policy\":\"%s\","
            "\"percent\":%lu,\"alloc_kib\":%lu,\"vram_kib\":%lu,"
            "\"split_buffers\":%lu,\"portions\":%lu",
            vidsch_policy_name(s.sched.policy), percent, each >> 10,
            seg_bytes >> 10, es.split_buffers, es.portions);
    if (vary) {
        kprintf(",\"vary\":1,\"lists_waited\":%lu",
                kernel_vidmm_stats(k) ? kernel_vidmm_stats(k)->enomem : 0);
    }
    if (k->split_policy != KMEM_SPLIT_SCHEDULE) {
        /* only when asked for: the default's METRICS stay as they were */
        kprintf(",\"split\":\"%s\",\"split_upfront\":%lu",
                kmem_split_policy_name(k->split_policy),
                k->stats.split_upfront);
    }
    os_print_dmabuf_json(&s);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
