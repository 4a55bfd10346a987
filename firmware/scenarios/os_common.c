/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "scenarios/os_common.h"

#include <stddef.h>
#include <string.h>

#include "kernel/kdma.h"
#include "kernel/kloop.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/printf.h"
#include "lib/stats.h"

bool os_boot(struct os_scenario *s, const struct boot_info *boot,
             void (*defaults)(struct vidsch_config *c))
{
    s->cmdline = boot->cmdline;
    vidsch_config_default(&s->sched);
    if (defaults) {
        defaults(&s->sched);
    }
    return kboot_sched_options(&s->r, boot->cmdline, &s->sched) &&
           kboot_start(&s->boot, &s->r, boot, &s->sched);
}

void os_add_app(struct os_scenario *s, struct app *a)
{
    if (s->napps < OS_MAX_APPS) {
        s->apps[s->napps++] = a;
    }
}

bool os_option(struct os_scenario *s, const struct boot_info *boot,
               const char *key, uint64_t *value)
{
    if (cmdline_get_u64(boot->cmdline, key, value) < 0) {
        return report(&s->r, false, "command line: %s= must be a decimal "
                      "number", key);
    }
    return true;
}

static void cycles_split(const struct os_scenario *s, uint64_t *dec,
                         uint64_t *cmp)
{
    const struct vidsch_cycles *c = vidsch_cycles(s->boot.k.vs);

    *dec = c->decide;
    *cmp = c->complete + s->boot.k.stats.complete_cycles;
}

static void irq_causes(const struct os_scenario *s, uint32_t *n)
{
    const struct copro_irq_log *l = &s->boot.dev.irq;

    n[0] = l->by_dma_done;
    n[1] = l->by_vsync;
    n[2] = l->by_flip;
    n[3] = l->by_sched_log;
    n[4] = l->by_other;
}

static void end_of_run(void *arg, uint64_t now)
{
    struct os_scenario *s = arg;

    s->t_stop = now;
    s->stopped = true;
    s->busy_at_stop = kboot_engine_busy_ns(&s->boot, COPRO_ENGINE_RENDER);
    s->occ_at_stop = vidsch_engine_busy_ns(s->boot.k.vs, COPRO_ENGINE_RENDER);
    s->irq_at_stop = kboot_interrupts(&s->boot);
    s->cyc_at_stop = s->boot.k.stats.sched_cycles;
    s->dpc_at_stop = s->boot.k.stats.dpc_cycles;
    s->tim_at_stop = s->boot.k.stats.timer_cycles;
    cycles_split(s, &s->dec_at_stop, &s->cmp_at_stop);
    s->prep_at_stop = vidsch_cycles(s->boot.k.vs)->prepare;
    irq_causes(s, s->irqc_stop);
    for (unsigned e = 0; e < COPRO_MAX_ENGINES; e++) {
        kboot_engine_mem_bytes(&s->boot, e, &s->rd_at_stop[e],
                               &s->wr_at_stop[e]);
    }
    for (unsigned i = 0; i < s->napps; i++) {
        app_stop(s->apps[i]);
    }
}

static void run_limit(void *arg, uint64_t now)
{
    struct os_scenario *s = arg;

    (void)now;
    s->timed_out = true;
}

static bool run_over(void *arg)
{
    struct os_scenario *s = arg;

    if (s->timed_out) {
        return true;
    }
    /* Before the end too: applications with a fixed amount of work may
     * all be done early. */
    for (unsigned i = 0; i < s->napps; i++) {
        if (!s->apps[i]->drained && !s->apps[i]->fail_what) {
            return false;
        }
    }
    return true;
}

void os_run(struct os_scenario *s, uint64_t duration_ns,
            uint64_t drain_limit_ns)
{
    struct kernel *k = &s->boot.k;

    for (unsigned i = 0; i < s->napps; i++) {
        struct app *a = s->apps[i];

        report(&s->r, a->fail_what == NULL, "%s: set up (%s: %s)", a->name,
               a->fail_what ? a->fail_what : "no failure",
               ddi_status_name(a->fail_status));
    }
    s->stopped = false;
    s->timed_out = false;
    s->t0 = kernel_now(k);
    s->busy_at_t0 = kboot_engine_busy_ns(&s->boot, COPRO_ENGINE_RENDER);
    s->occ_at_t0 = vidsch_engine_busy_ns(s->boot.k.vs, COPRO_ENGINE_RENDER);
    s->irq_at_t0 = kboot_interrupts(&s->boot);
    s->cyc_at_t0 = s->boot.k.stats.sched_cycles;
    s->dpc_at_t0 = s->boot.k.stats.dpc_cycles;
    s->tim_at_t0 = s->boot.k.stats.timer_cycles;
    cycles_split(s, &s->dec_at_t0, &s->cmp_at_t0);
    s->prep_at_t0 = vidsch_cycles(s->boot.k.vs)->prepare;
    irq_causes(s, s->irqc_t0);
    for (unsigned e = 0; e < COPRO_MAX_ENGINES; e++) {
        kboot_engine_mem_bytes(&s->boot, e, &s->rd_at_t0[e],
                               &s->wr_at_t0[e]);
    }
    ktimer_init(&s->end_timer, end_of_run, s);
    ktimer_init(&s->limit_timer, run_limit, s);
    ktimer_arm(&k->ev.timers, &s->end_timer, s->t0 + duration_ns);
    ktimer_arm(&k->ev.timers, &s->limit_timer,
               s->t0 + duration_ns + drain_limit_ns);
    for (unsigned i = 0; i < s->napps; i++) {
        if (!s->apps[i]->fail_what) {
            app_start(s->apps[i]);
        }
    }
    kernel_run(k, run_over, s);
    if (!s->stopped) {
        end_of_run(s, kernel_now(k));
    }
    ktimer_cancel(&k->ev.timers, &s->end_timer);
    ktimer_cancel(&k->ev.timers, &s->limit_timer);
    s->t_end = kernel_now(k);
    report(&s->r, !s->timed_out, "applications done: ran %lu ms, drained "
           "in %lu ms (limit %lu ms after a run of at most %lu ms)",
           (s->t_stop - s->t0) / MS, (s->t_end - s->t_stop) / MS,
           drain_limit_ns / MS, duration_ns / MS);
    for (unsigned i = 0; i < s->napps; i++) {
        struct app *a = s->apps[i];

        if (a->expect_lost) {
            report(&s->r, a->fail_status == DDI_ELOST, "%s: lost its device "
                   "(its own fault, hang or scene), as expected (%s: %s)", a->name,
                   a->fail_what ? a->fail_what : "no failure",
                   ddi_status_name(a->fail_status));
            continue;
        }
        if (a->expect_error) {
            report(&s->r, a->fail_status == a->expect_error, "%s: its context "
                   "was put in error with %s, as expected (%s: %s)", a->name,
                   ddi_status_name(a->expect_error),
                   a->fail_what ? a->fail_what : "no failure",
                   ddi_status_name(a->fail_status));
            continue;
        }
        report(&s->r, a->fail_what == NULL, "%s: ran without failure%s%s%s%s",
               a->name, a->fail_what ? " (" : "",
               a->fail_what ? a->fail_what : "", a->fail_what ? ": " : "",
               a->fail_what ? ddi_status_name(a->fail_status) : "");
        /* An app that failed was reported; its output would only echo
         * the failure. */
        if (a->drained && !a->fail_what && a->ops->check) {
            a->ops->check(a, &s->r);
        }
    }
}

void os_app_figures(const struct os_scenario *s, const struct app *a,
                    struct os_app_figures *f)
{
    static uint64_t sorted[APP_MAX_SAMPLES];
    struct vidsch_ctx_stats st = { 0 };
    uint64_t dur = s->t_stop > s->t0 ? s->t_stop - s->t0 : 1;

    kapi_context_stats(a->proc, a->hctx, &st);
    for (unsigned i = 0; i < a->nlat; i++) {
        sorted[i] = a->lat[i];
    }
    stats_sort_u64(sorted, a->nlat);
    *f = (struct os_app_figures){
        .frames = a->completed, .misses = a->misses, .dropped = a->dropped,
        .p50 = stats_percentile(sorted, a->nlat, 50),
        .p99 = stats_percentile(sorted, a->nlat, 99),
        .max = a->nlat ? sorted[a->nlat - 1] : 0,
        .share_permille = (unsigned)(a->gpu_ns_at_stop * 1000 / dur),
        .preemptions = st.preemptions,
        .wasted = st.wasted_preemptions,
        .gpu_ns = st.gpu_ns,
        .budget_ns = st.budget_ns,
        .frames_run = st.frames_run,
        .frames_over = st.frames_over,
        .frames_gpu_ns = st.frames_gpu_ns,
        .frames_budget_ns = st.frames_budget_ns,
    };
}

const char *os_fmt_ns(char *buf, unsigned size, uint64_t ns)
{
    if (ns < 1000 * US) {
        ksnprintf(buf, size, "%lu.%lu us", ns / US, (ns % US) / 100);
    } else if (ns < 1000 * MS) {
        ksnprintf(buf, size, "%lu.%02lu ms", ns / MS, (ns % MS) / (10 * US));
    } else {
        ksnprintf(buf, size, "%lu.%03lu s", ns / (1000 * MS),
                  (ns % (1000 * MS)) / MS);
    }
    return buf;
}

void os_print_table(const struct os_scenario *s)
{
    char b1[16], b2[16], b3[16];
    const struct kernel_stats *ks = &s->boot.k.stats;

    if (vidsch_hwsched(s->boot.k.vs)) {
        kprintf("completion interrupts on demand (%s): on %lu times, off "
                "%lu times; progress polled before idling %lu times (found "
                "some %lu)\n", s->boot.k.irq_demand ? "yes" : "no",
                ks->cirq_on, ks->cirq_off, ks->idle_polls,
                ks->idle_polls_moved);
    }

    kprintf("%-12s %-13s %7s %7s %10s %10s %10s %7s %8s %7s\n", "app",
            "priority", "frames", "misses", "lat p50", "lat p99", "lat max",
            "gpu %", "preempt", "wasted");
    for (unsigned i = 0; i < s->napps; i++) {
        const struct app *a = s->apps[i];
        struct os_app_figures f;

        os_app_figures(s, a, &f);
        kprintf("%-12s %-13s %7lu %7lu %10s %10s %10s %3u.%u %8lu %7lu\n",
                a->name, vidsch_priority_name(a->prio), f.frames, f.misses,
                os_fmt_ns(b1, sizeof(b1), f.p50),
                os_fmt_ns(b2, sizeof(b2), f.p99),
                os_fmt_ns(b3, sizeof(b3), f.max), f.share_permille / 10,
                f.share_permille % 10, f.preemptions, f.wasted);
    }
}

void os_print_apps_json(const struct os_scenario *s)
{
    kprintf(",\"apps\":[");
    for (unsigned i = 0; i < s->napps; i++) {
        const struct app *a = s->apps[i];
        struct os_app_figures f;

        os_app_figures(s, a, &f);
        kprintf("%s{\"name\":\"%s\",\"priority\":\"%s\",\"frames\":%lu,"
                "\"misses\":%lu,\"dropped\":%lu,\"lat_p50_ns\":%lu,"
                "\"lat_p99_ns\":%lu,\"lat_max_ns\":%lu,\"gpu_ns\":%lu,"
                "\"gpu_share_permille\":%u,\"preemptions\":%lu,"
                "\"wasted_preemptions\":%lu,\"budget_ns\":%lu,"
                "\"frames_run\":%lu,\"frames_over_budget\":%lu,"
                "\"gpu_ns_per_frame\":%lu,\"budget_ns_per_frame\":%lu}",
                i ? "," : "", a->name, vidsch_priority_name(a->prio),
                f.frames, f.misses, f.dropped, f.p50, f.p99, f.max, f.gpu_ns,
                f.share_permille, f.preemptions, f.wasted, f.budget_ns,
                f.frames_run, f.frames_over,
                f.frames_run ? f.frames_gpu_ns / f.frames_run : 0,
                f.frames_run ? f.frames_budget_ns / f.frames_run : 0);
    }
    kprintf("]");
}

void os_print_mem_json(const struct os_scenario *s)
{
    kprintf(",\"vram_bytes\":[");
    for (unsigned e = 0; e < s->boot.cp.num_engines &&
         e < COPRO_MAX_ENGINES; e++) {
        kprintf("%s{\"engine\":%u,\"read\":%lu,\"write\":%lu}",
                e ? "," : "", e, s->rd_at_stop[e] - s->rd_at_t0[e],
                s->wr_at_stop[e] - s->wr_at_t0[e]);
    }
    kprintf("]");
}

static uint64_t os_requests(const struct os_scenario *s)
{
    uint64_t n = 0;

    for (unsigned e = 0; e < s->boot.cp.num_engines; e++) {
        const struct vidsch_engine_stats *es =
            vidsch_engine_stats(s->boot.k.vs, e);

        for (unsigned i = 0; es && i < 4; i++) {
            n += es->preempt_requests[i];
        }
    }
    return n;
}

void os_print_sched_json(const struct os_scenario *s)
{
    const struct vidsch_hws_stats *h = vidsch_hws_stats(s->boot.k.vs);
    uint64_t dur = s->t_stop > s->t0 ? s->t_stop - s->t0 : 1;
    uint64_t irqs = s->irq_at_stop - s->irq_at_t0;
    uint64_t cyc = s->cyc_at_stop - s->cyc_at_t0;
    /* the decisions (interrupts' DPC, timer) apart from the preparation
     * (the worker: residency, patch), which both modes do alike */
    uint64_t dec = s->dpc_at_stop - s->dpc_at_t0 +
                   s->tim_at_stop - s->tim_at_t0;
    uint64_t ms = dur / MS ? dur / MS : 1;
    uint64_t decide = s->dec_at_stop - s->dec_at_t0;
    uint64_t complete = s->cmp_at_stop - s->cmp_at_t0;

    kprintf(",\"sched\":{\"hwsched\":%s,\"interrupts\":%lu,"
            "\"irq_per_s\":%lu,\"sched_cycles\":%lu,"
            "\"sched_cycles_per_s\":%lu,\"os_preempt_requests\":%lu,"
            "\"dpcs\":%lu,\"vidsch_timers\":%lu,"
            "\"decision_cycles_per_s\":%lu,\"prepare_cycles_per_s\":%lu",
            vidsch_hwsched(s->boot.k.vs) ? "true" : "false", irqs,
            irqs * 1000 * MS / dur, cyc,
            /* per second without overflow: cycles per ms of the span */
            cyc / ms * 1000,
            os_requests(s), s->boot.k.stats.dpcs,
            s->boot.k.stats.vidsch_timers, dec / ms * 1000,
            (cyc - dec) / ms * 1000);
    kprintf(",\"decide_cycles_per_s\":%lu,\"complete_cycles_per_s\":%lu,"
            "\"os_cycles_per_s\":%lu", decide / ms * 1000,
            complete / ms * 1000, (decide + complete) / ms * 1000);
    kprintf(",\"irq_demand\":%s,\"cirq_on\":%lu,\"cirq_off\":%lu,"
            "\"idle_polls\":%lu,\"idle_polls_moved\":%lu",
            s->boot.k.irq_demand && vidsch_hwsched(s->boot.k.vs) ? "true"
                                                                : "false",
            s->boot.k.stats.cirq_on, s->boot.k.stats.cirq_off,
            s->boot.k.stats.idle_polls, s->boot.k.stats.idle_polls_moved);
    kprintf(",\"vidsch_prepare_cycles_per_s\":%lu,\"irq_by\":{\"dma_done\":%u,"
            "\"vsync\":%u,\"flip\":%u,\"sched_log\":%u,\"other\":%u}",
            (s->prep_at_stop - s->prep_at_t0) / ms * 1000,
            s->irqc_stop[0] - s->irqc_t0[0], s->irqc_stop[1] - s->irqc_t0[1],
            s->irqc_stop[2] - s->irqc_t0[2], s->irqc_stop[3] - s->irqc_t0[3],
            s->irqc_stop[4] - s->irqc_t0[4]);
    if (vidsch_hwsched(s->boot.k.vs)) {
        kprintf(",\"hws\":{\"runlist_commits\":%lu,\"refused\":%lu,"
                "\"queue_submits\":%lu,\"device_switches\":%lu,"
                "\"device_preemptions\":%lu,\"device_resets\":%lu,"
                "\"frames\":%lu,\"budget_updates\":%lu,"
                "\"budget_drops\":%lu,\"suspensions\":%lu,"
                "\"log_entries\":%lu,\"log_dropped\":%lu,"
                "\"log_bad\":%lu}", h->runlist_commits, h->runlist_refused,
                h->queue_submits, h->device_switches, h->device_preemptions,
                h->device_resets, h->frames, h->budget_updates,
                h->budget_drops, h->suspensions, h->log_entries,
                h->log_dropped, h->log_bad);
    }
    kprintf("}");
}

void os_check_hwsched(struct os_scenario *s)
{
    const struct vidsch_hws_stats *h = vidsch_hws_stats(s->boot.k.vs);

    if (!vidsch_hwsched(s->boot.k.vs)) {
        return;
    }
    report(&s->r, os_requests(s) == 0, "hardware scheduling: the OS asked "
           "for no preemption (%lu)", os_requests(s));
    /* (no display, no vsync: the log is read at the other interrupts) */
    report(&s->r, h->log_entries > 0 && h->device_switches > 0, "hardware "
           "scheduling: the device's log came (%lu entries, %lu switches "
           "it made, %lu vsyncs)", h->log_entries, h->device_switches,
           h->frames);
    if (s->sched.policy == VIDSCH_POLICY_JOBLIST) {
        unsigned without = 0;

        for (unsigned i = 0; i < s->napps; i++) {
            struct os_app_figures f;

            os_app_figures(s, s->apps[i], &f);
            without += s->apps[i]->prio >= VIDSCH_PRIO_ABOVE_NORMAL &&
                       f.budget_ns == 0;
        }
        report(&s->r, h->budget_updates > 0 && without == 0, "job list: "
               "budgets written %lu times from the log's frame times, "
               "every periodic app has one (%u without)",
               h->budget_updates, without);
    }
    report(&s->r, h->runlist_refused == 0 && h->log_bad == 0 &&
           s->boot.hwq.stats.log.bad == 0, "hardware scheduling: no run "
           "list refused (%lu of %lu), no log entry refused (%lu)",
           h->runlist_refused, h->runlist_commits,
           s->boot.hwq.stats.log.bad + h->log_bad);
}

/*
 * The device's busy time over the run, bounded by the scheduler's count
 * of the time the engine was occupied. STAT_BUSY_NS is charged when a
 * step begins, for the whole step: read in the middle of a long one (a
 * context save of 1 GiB is 125 ms), it counts time that has not passed
 * yet, and "engine busy" read 100.5 %. vidsch's count (a buffer's time at
 * the head of the ring) never runs ahead of the clock, but includes the
 * interrupt's way back after each retirement; the smaller of the two is
 * the device's figure except when the device ran ahead.
 */
unsigned os_busy_permille(const struct os_scenario *s)
{
    uint64_t dur = s->t_stop > s->t0 ? s->t_stop - s->t0 : 0;
    uint64_t busy, occ;

    if (!dur || s->busy_at_stop < s->busy_at_t0 ||
        s->occ_at_stop < s->occ_at_t0) {
        return 0;
    }
    busy = s->busy_at_stop - s->busy_at_t0;
    occ = s->occ_at_stop - s->occ_at_t0;
    return (unsigned)((busy < occ ? busy : occ) * 1000 / dur);
}

void os_check_dmabuf(struct os_scenario *s)
{
    const struct kernel *k = &s->boot.k;
    const struct kernel_stats *st = &k->stats;
    uint64_t moved = 0;
    char asked[16];

    /* what the command line asked for, not what the kernel took: a
     * kernel that ignored dmabuf= fails here */
    if (!cmdline_get(s->cmdline, "dmabuf", asked, sizeof(asked)) ||
        !strcmp(asked, "kernel")) {
        return;
    }
    if (!report(&s->r, kdma_placement_name(k->dma_placement) &&
                !strcmp(asked, kdma_placement_name(k->dma_placement)),
                "dmabuf=%s: the kernel's default placement", asked)) {
        return;
    }
    if (cmdline_get_u64(s->cmdline, "dma_moved", &moved) < 0) {
        report(&s->r, false, "command line: dma_moved= must be a decimal "
               "number");
        return;
    }
    report(&s->r, st->dma_pageable > 0 && st->dma_pageable >= st->renders &&
           st->dma_kseg_peak == 0,
           "dmabuf=%s: every DMA buffer a vidmm allocation (%lu of %lu "
           "renders), none in the kernel's segment (%lu bytes at most)",
           kdma_placement_name(k->dma_placement), st->dma_pageable,
           st->renders, st->dma_kseg_peak);
    if (k->dma_placement == KAPI_DMA_APERTURE) {
        report(&s->r, st->dma_vram_peak == 0, "dmabuf=aperture: no DMA "
               "buffer in VRAM (%lu bytes at most)", st->dma_vram_peak);
    }
    if (moved) {
        report(&s->r, st->dma_brought_in > 0 && st->dma_back_patched > 0,
               "DMA buffers brought in at a switch: %lu, of them %lu "
               "preempted or handed back, taken out and brought back to "
               "their address", st->dma_brought_in, st->dma_back_patched);
    }
}

void os_print_dmabuf_json(const struct os_scenario *s)
{
    const struct kernel *k = &s->boot.k;
    const struct kernel_stats *st = &k->stats;

    kprintf(",\"dmabuf\":\"%s\",\"dma_kseg_peak\":%lu,"
            "\"dma_vram_peak\":%lu,\"dma_pageable\":%lu,"
            "\"dma_brought_in\":%lu,\"dma_back_patched\":%lu,"
            "\"dma_busy_waits\":%lu,\"kseg_kib\":%lu,"
            "\"app_vram_kib\":%lu,\"aperture_kib\":%lu",
            kdma_placement_name(k->dma_placement), st->dma_kseg_peak,
            st->dma_vram_peak, st->dma_pageable, st->dma_brought_in,
            st->dma_back_patched, st->dma_busy_waits, k->seg.size >> 10,
            kernel_app_vram_bytes(k) >> 10, k->caps.aperture_size >> 10);
}
