/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lifetimes: processes created and killed (kapi_process_exit) over and
 * over, normally, mid-render, mid-paging and while sharing (apps/churn),
 * beside two applications that must not notice: a memapp whose working
 * set oversubscribes VRAM (so vidmm pages all the time, and the killed
 * processes' allocations are in every state of residency) and a hog
 * whose long buffers are preempted and resumed; both are checked by
 * content. At the end every application's process exits too, and the
 * kernel must be exactly as it was at boot: every table empty, the
 * kernel's VRAM segment, vidmm's VRAM and aperture, the page pool and
 * the scheduler back to where they started (kernel_census).
 *
 * Command line: irq=..., lives= (1000), period_us= (100), percent= (150:
 * the memapp's working set, in % of vidmm's VRAM, at most 250), modes=
 * (15: a bit per kind of life, apps/churn.h), the scheduler options.
 */
#include <stdint.h>

#include "apps/churn.h"
#include "apps/hog.h"
#include "apps/memapp.h"
#include "kernel/kexit.h"
#include "kernel/kloop.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

static struct os_scenario s;
static struct churn churn;
static struct memapp mem;
static struct hog hog;
static uint32_t hog_cmd[256];

static struct ktimer limit;
static bool limit_hit;

static void on_limit(void *arg, uint64_t now)
{
    (void)arg;
    (void)now;
    limit_hit = true;
}

/* Every process record reaped and the GPU idle, or the time limit. */
static bool all_reaped(void *arg)
{
    struct kernel *k = arg;

    return limit_hit || (k->stats.processes_freed == k->stats.processes_exited
                         && kernel_gpu_idle(k));
}

static void exit_all(struct kernel *k)
{
    struct app *apps[] = { churn_app(&churn), memapp_app(&mem),
                           hog_app(&hog) };

    for (unsigned i = 0; i < sizeof(apps) / sizeof(apps[0]); i++) {
        report(&s.r, kapi_process_exit(apps[i]->proc) == DDI_OK,
               "%s: its process exits", apps[i]->name);
    }
    ktimer_init(&limit, on_limit, NULL);
    ktimer_arm(&k->ev.timers, &limit, kernel_now(k) + 1000 * MS);
    kernel_run(k, all_reaped, k);
    ktimer_cancel(&k->ev.timers, &limit);
}

static void print_census(const char *when, const struct kernel_census *c)
{
    kprintf("%s: %u processes, %u devices, %u contexts, %u allocations, "
            "%u sync objects, %u buffers, %u waits, %u handles, %u "
            "presents; kernel VRAM %lu bytes in %u blocks; vidmm VRAM %lu, "
            "aperture %lu; page pool %lu pages free; scheduler %s\n", when,
            c->procs, c->devices, c->contexts, c->allocs, c->syncs,
            c->buffers, c->waits, c->handles, c->presents, c->seg_bytes,
            c->seg_blocks, c->vm_vram, c->vm_aperture, c->pool_free,
            c->sched_idle ? "idle" : "busy");
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t lives = 1000, period_us = 100, percent = 150, modes = 15;
    struct kernel *k = &s.boot.k;
    struct kernel_census boot_census = { 0 }, end = { 0 };
    const char *diff = "not run";

    kprintf("lifetimes: processes created and killed beside applications "
            "that must not notice\n");
    if (os_option(&s, boot, "lives", &lives) &&
        os_option(&s, boot, "period_us", &period_us) &&
        os_option(&s, boot, "percent", &percent) &&
        os_option(&s, boot, "modes", &modes) &&
        /* percent above 250: one memapp frame's three allocations no
         * longer fit VRAM together, and the memapp stalls (a vidmm
         * limit of its own, not what this scenario checks) */
        report(&s.r, lives >= 1 && period_us >= 10 && percent >= 10 &&
               percent <= 250 && modes >= 1 && modes <= 15, "options: "
               "lives=%lu (>= 1), period_us=%lu (>= 10), percent=%lu "
               "(10..250), modes=%lu (1..15)", lives, period_us, percent,
               modes)
        && os_boot(&s, boot, NULL)) {
        struct churn_config cc;
        struct memapp_config mc;
        struct hog_config hc = {
            .prio = VIDSCH_PRIO_IDLE, .hog_ns = 5 * MS,
            .work_packet_ns = 250 * US,
        };
        uint64_t vram = kernel_app_vram_bytes(k);

        kernel_census(k, &boot_census);
        print_census("at boot", &boot_census);
        churn_config_default(&cc);
        cc.lives = lives;
        cc.period_ns = period_us * US;
        cc.modes = (unsigned)modes;
        memapp_config_default(&mc);
        mc.nallocs = 8;
        mc.per_frame = 3;
        mc.alloc_bytes = (vram / 100 * percent / mc.nallocs) /
                         MEMAPP_STRIPE * MEMAPP_STRIPE;
        if (mc.alloc_bytes < MEMAPP_STRIPE) {
            mc.alloc_bytes = MEMAPP_STRIPE;
        }
        report(&s.r, churn_init(&churn, k, "launcher", &cc) == DDI_OK,
               "launcher set up");
        report(&s.r, memapp_init(&mem, k, "memapp", &mc) == DDI_OK,
               "memapp: %u allocations of %lu KiB (%lu %% of %lu KiB of "
               "VRAM)", mc.nallocs, mc.alloc_bytes >> 10, percent,
               vram >> 10);
        report(&s.r, hog_init(&hog, k, "hog", &hc, hog_cmd,
                              sizeof(hog_cmd)) == DDI_OK, "hog set up");
        os_add_app(&s, churn_app(&churn));
        os_add_app(&s, memapp_app(&mem));
        os_add_app(&s, hog_app(&hog));
        /* the lives take lives * period, and a little more when process
         * records are not free yet or paging is heavy: the launcher goes
         * on after the others stop, until its last life, for as long
         * again and 2 s more at most */
        os_run(&s, lives * period_us * US * 4 + 20 * MS,
               lives * period_us * US * 4 + 2000 * MS);
        os_print_table(&s);
        exit_all(k);
        kernel_census(k, &end);
        print_census("at the end", &end);
        diff = kernel_census_diff(&end, &boot_census);
        report(&s.r, !limit_hit && *diff == 0, "every process reaped (%lu "
               "exited, %lu freed) and the kernel as at boot (%s)",
               k->stats.processes_exited, k->stats.processes_freed,
               *diff ? diff : "no difference");
        report(&s.r, k->stats.quota_underflows == 0, "quota bookkeeping "
               "balanced (%lu underflows)", k->stats.quota_underflows);
    }
    os_check_dmabuf(&s);
    kprintf("METRICS {\"scenario\":\"lifetimes\",\"policy\":\"%s\","
            "\"lives\":%lu,\"created\":%lu,\"killed\":%lu,"
            "\"exited\":%lu,\"freed\":%lu,\"reads\":%lu,\"bad_reads\":%lu,"
            "\"quota_refusals\":%lu", vidsch_policy_name(s.sched.policy),
            lives, churn.started, churn.finished, k->stats.processes_exited,
            k->stats.processes_freed, churn.reads_ok, churn.reads_bad,
            k->stats.quota_refusals);
    os_print_dmabuf_json(&s);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
