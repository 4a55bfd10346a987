/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oversubscribe: three NORMAL applications that are mostly memory
 * (apps/memapp.h) whose working sets add up to more than the GPU's VRAM
 * (by default about twice the OS's VRAM segment of a 16 MiB device) run
 * frames back to back for a virtual duration. vidmm must make each DMA
 * buffer's allocations resident at schedule time, evicting what the
 * others used last, and every byte of every allocation must come out as
 * the applications wrote it. The percentage is of the VRAM vidmm manages
 * for applications (the OS's segment less the kernel's own part).
 * Reports frames per second and vidmm's paging traffic (paging buffers,
 * bytes moved, evictions, restores, from the kernel's vidmm statistics); `make bench` runs it with working sets from 50 % to
 * 200 % of VRAM and compares the throughput.
 *
 * The scenario never touches the device and never schedules: the sizes
 * are the applications', the decisions the OS's.
 *
 * Command line: irq=..., duration_ms= (500), percent= (working sets
 * together, % of the OS's VRAM segment: 200), per_frame= (allocations a
 * frame uses: 4), work_us= (WORK per frame: 1000), the scheduler
 * options.
 */
#include <stdint.h>

#include "apps/memapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define NAPPS       3
#define ALLOCS      MEMAPP_MAX_ALLOCS

static struct os_scenario s;
static struct memapp apps[NAPPS];
static const char *const names[NAPPS] = { "mem-a", "mem-b", "mem-c" };

/*
 * Allocation size for NAPPS apps of nallocs allocations adding up to
 * about percent of segment bytes: the nearest whole number of stripes
 * (rounding down would turn 110 % into less than VRAM), at least one.
 */
static uint64_t alloc_size(uint64_t segment, uint64_t percent,
                           unsigned nallocs)
{
    uint64_t total = segment / 100 * percent;
    uint64_t each = total / (NAPPS * (uint64_t)nallocs);
    uint64_t stripes = (each + MEMAPP_STRIPE / 2) / MEMAPP_STRIPE;

    return (stripes ? stripes : 1) * MEMAPP_STRIPE;
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 500, percent = 200, per_frame = 4,
             work_us = 1000, nallocs = 12, frames = 0, bytes = 0;
    uint64_t seg_bytes = 0;
    struct kernel *k = &s.boot.k;
    struct vidmm_stats vs = { 0 };

    kprintf("oversubscribe: three applications whose working sets exceed "
            "VRAM\n");
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "percent", &percent) &&
        os_option(&s, boot, "per_frame", &per_frame) &&
        os_option(&s, boot, "nallocs", &nallocs) &&
        os_option(&s, boot, "work_us", &work_us) &&
        report(&s.r, percent >= 10 && percent <= 400 && nallocs >= 1 &&
               nallocs <= ALLOCS && per_frame >= 1 && per_frame <= nallocs,
               "options: percent=%lu (10..400), nallocs=%lu (1..%u), "
               "per_frame=%lu (1..nallocs)", percent, nallocs, ALLOCS,
               per_frame) &&
        os_boot(&s, boot, NULL)) {
        seg_bytes = kernel_app_vram_bytes(k);
        for (unsigned i = 0; i < NAPPS; i++) {
            struct memapp_config mc;
            int st;

            memapp_config_default(&mc);
            mc.tag = (uint8_t)(0x41 + i);
            mc.nallocs = (unsigned)nallocs;
            mc.per_frame = (unsigned)per_frame;
            mc.alloc_bytes = alloc_size(seg_bytes, percent, mc.nallocs);
            mc.work_ns = work_us * US;
            bytes += memapp_bytes(&mc);
            st = memapp_init(&apps[i], k, names[i], &mc);
            report(&s.r, st == DDI_OK, "%s: %u allocations of %lu KiB, %u "
                   "per frame (%s)", names[i], mc.nallocs,
                   mc.alloc_bytes >> 10, mc.per_frame, ddi_status_name(st));
            os_add_app(&s, memapp_app(&apps[i]));
        }
        kprintf("working sets: %lu KiB together, %lu %% of the %lu KiB of "
                "VRAM for applications\n", bytes >> 10,
                seg_bytes ? bytes * 100 / seg_bytes : 0, seg_bytes >> 10);
        os_run(&s, duration_ms * MS, 5000 * MS);
        for (unsigned i = 0; i < NAPPS; i++) {
            frames += memapp_app(&apps[i])->completed;
        }
        os_print_table(&s);
        kprintf("throughput: %lu frames in %lu ms (%lu per second)\n",
                frames, duration_ms,
                duration_ms ? frames * 1000 / duration_ms : 0);
        if (kernel_vidmm_stats(k)) {
            vs = *kernel_vidmm_stats(k);
        }
        kprintf("vidmm: %lu paging buffers, %lu KiB moved, %lu evictions, "
                "%lu restores, %lu lists waited for memory\n",
                vs.paging_buffers, vs.bytes_moved >> 10, vs.evictions,
                vs.restores, vs.enomem);
        /* more than fits: the run must have paged (else the content
         * check proved nothing about eviction) */
        if (bytes > seg_bytes) {
            report(&s.r, vs.evictions > 0 && vs.restores > 0,
                   "working sets over VRAM: vidmm evicted (%lu) and "
                   "restored (%lu)", vs.evictions, vs.restores);
        }
    }
    os_check_dmabuf(&s);
    kprintf("METRICS {\"scenario\":\"oversubscribe\",\"policy\":\"%s\","
            "\"duration_ms\":%lu,\"percent\":%lu,\"working_set_kib\":%lu,"
            "\"vram_kib\":%lu,\"frames\":%lu,\"paging_bytes\":%lu,"
            "\"paging_buffers\":%lu,\"evictions\":%lu,\"restores\":%lu",
            vidsch_policy_name(s.sched.policy), duration_ms, percent,
            bytes >> 10, seg_bytes >> 10, frames, vs.bytes_moved,
            vs.paging_buffers, vs.evictions, vs.restores);
    os_print_dmabuf_json(&s);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
