/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobs: jobs per second through the firmware's render path, the copro
 * OS's side of copro-bench's `jobs` on Linux (issue 18's benchmark):
 * DMA buffers of one NOP rendered through the kernel API (validation,
 * copy into a kernel DMA buffer, vidsch, the kmd's submission, the
 * interrupt and DPC that retire it), first from one context, then from
 * eight at once (the same total, shared equally).
 *
 * Prints one METRICS line per phase: jobs, contexts, the GPU time from
 * the first render to the last batch's completion, and jobs per virtual
 * second; BENCH-MARK start/end lines around each phase let the runner
 * (scripts/bench-linux.sh) time it in host seconds. Checks only counts
 * (every buffer retired, exactly), never speed.
 *
 * Command line: irq=..., jobs= (2000), the scheduler options. Run it
 * under -icount shift=0,sleep=off, as the Linux side.
 */
#include <stdint.h>

#include "apps/nopapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define NCTX_MAX    8

static struct os_scenario s;
/* one array per phase: the first phase's process lives on */
static struct nopapp one[1], eight[NCTX_MAX];
static const char *const names[NCTX_MAX] = {
    "nop-0", "nop-1", "nop-2", "nop-3", "nop-4", "nop-5", "nop-6", "nop-7",
};

/*
 * One phase: nctx apps share `jobs` equally; 48 buffers in flight from
 * one context (a process's quota of the kernel's KERNEL_MAX_BUFFERS), 8
 * from each of eight (64), as many as the kernel grants.
 */
static void phase(struct nopapp *apps, uint64_t jobs, unsigned nctx)
{
    struct nopapp_config c = {
        .jobs = jobs / nctx,
        .batch = nctx == 1 ? 16 : 4,
        .depth = nctx == 1 ? 3 : 2,
    };
    uint64_t first = UINT64_MAX, last = 0, total = 0, ns;

    os_clear_apps(&s);
    for (unsigned i = 0; i < nctx; i++) {
        nopapp_init(&apps[i], &s.boot.k, names[i], &c);
        os_add_app(&s, nopapp_app(&apps[i]));
    }
    kprintf("BENCH-MARK start\n");
    /* the apps' work is their budget: the run's end stops nothing */
    os_run(&s, 1 * MS, 60000 * MS);
    kprintf("BENCH-MARK end\n");
    for (unsigned i = 0; i < nctx; i++) {
        if (apps[i].first_ns < first) {
            first = apps[i].first_ns;
        }
        if (apps[i].last_ns > last) {
            last = apps[i].last_ns;
        }
        total += nopapp_app(&apps[i])->completed;
    }
    ns = last > first ? last - first : 0;
    kprintf("jobs: %lu 1-NOP buffers from %u context%s in %lu us of GPU "
            "time: %lu per virtual second\n", total, nctx,
            nctx > 1 ? "s" : "", ns / US, ns ? total * 1000000000 / ns : 0);
    kprintf("METRICS {\"scenario\":\"jobs\",\"os\":\"copro\",\"jobs\":%lu,"
            "\"contexts\":%u,\"gpu_ns\":%lu,\"jobs_per_s\":%lu,"
            "\"tests\":%u,\"failures\":%u}\n", total, nctx, ns,
            ns ? total * 1000000000 / ns : 0, s.r.tests, s.r.failures);
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t jobs = 2000;

    kprintf("jobs: 1-NOP DMA buffers through the kernel API\n");
    if (os_option(&s, boot, "jobs", &jobs) && os_boot(&s, boot, NULL)) {
        if (jobs < NCTX_MAX) {
            jobs = NCTX_MAX;
        }
        phase(one, jobs, 1);
        phase(eight, jobs, NCTX_MAX);
    }
    return report_summary(&s.r);
}
