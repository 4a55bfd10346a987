/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the OS scenarios share: boot the OS with the command line's
 * scheduler options, run a set of applications for a virtual duration
 * and let them drain, check their outputs, print the per-application
 * table and the figures for METRICS. A scenario itself is then the
 * applications, the policy, the duration and the checks: it never
 * touches the device and never schedules.
 */
#ifndef FW_SCENARIOS_OS_COMMON_H
#define FW_SCENARIOS_OS_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/app.h"
#include "kernel/kboot.h"
#include "lib/report.h"
#include "lib/scenario.h"

#define OS_MAX_APPS     16
#define MS              ((uint64_t)1000000)
#define US              ((uint64_t)1000)

struct os_scenario {
    struct kboot boot;
    struct report r;
    struct vidsch_config sched;
    const char *cmdline;

    unsigned napps;
    struct app *apps[OS_MAX_APPS];

    struct ktimer end_timer, limit_timer;
    uint64_t t0, t_stop, t_end;
    bool stopped, timed_out;
    /* the render engine's busy time (the device's count) at t0, t_stop */
    uint64_t busy_at_t0, busy_at_stop;     /* the device's STAT_BUSY_NS */
    uint64_t occ_at_t0, occ_at_stop;       /* vidsch_engine_busy_ns */
    /* the CPU's side over the same span: interrupts taken, cycles spent
     * scheduling (kernel_stats.sched_cycles) */
    uint64_t irq_at_t0, irq_at_stop;
    uint64_t cyc_at_t0, cyc_at_stop;
    uint64_t dpc_at_t0, dpc_at_stop;        /* ... of which in the DPC */
    uint64_t tim_at_t0, tim_at_stop;        /* ... in vidsch's timer */
    /* the OS's CPU time on every path, split: scheduling proper (vidsch's
     * decisions and preparation) and completion work (vidsch's retiring
     * and signalling, the kernel's DPC, deliveries and reaper) */
    uint64_t dec_at_t0, dec_at_stop, cmp_at_t0, cmp_at_stop;
    uint64_t prep_at_t0, prep_at_stop;  /* ... of decide: preparation */
    /* interrupts by cause (copro_irq_log.by_*): DMA_DONE, vsync, flip,
     * scheduling log, other */
    uint32_t irqc_t0[5], irqc_stop[5];
    /* bytes each engine's packets read and wrote in GPU memory (the
     * device's STAT_MEM_READ / _WRITE) at t0 and t_stop */
    uint64_t rd_at_t0[COPRO_MAX_ENGINES], rd_at_stop[COPRO_MAX_ENGINES];
    uint64_t wr_at_t0[COPRO_MAX_ENGINES], wr_at_stop[COPRO_MAX_ENGINES];
};

/* One application's figures, as the table and METRICS print them. */
struct os_app_figures {
    uint64_t frames, misses, dropped;
    uint64_t p50, p99, max;         /* submit-to-start, ns */
    unsigned share_permille;        /* GPU time / duration, until stop */
    uint64_t preemptions;
    uint64_t wasted;                /* preemptions after which it ran next */
    uint64_t gpu_ns;
    /* hardware scheduling: budget per frame now, frames (vsyncs) in which
     * it ran, and in which it used more than its budget */
    uint64_t budget_ns, frames_run, frames_over, frames_gpu_ns;
    uint64_t frames_budget_ns;
};

/*
 * Boots the OS: the scheduler options start from vidsch_config_default,
 * then *defaults (may be NULL) adjusts them, then the command line.
 */
bool os_boot(struct os_scenario *s, const struct boot_info *boot,
             void (*defaults)(struct vidsch_config *c));

void os_add_app(struct os_scenario *s, struct app *a);

/* Forgets the apps (for a scenario that runs phases). */
static inline void os_clear_apps(struct os_scenario *s)
{
    s->napps = 0;
}

/* Reads key=<decimal> from the command line into *value, which holds the
 * default; false (reported) if the value is not a decimal number. */
bool os_option(struct os_scenario *s, const struct boot_info *boot,
               const char *key, uint64_t *value);

/*
 * Starts every app, stops them after duration_ns, lets them drain (at
 * most drain_limit_ns more), then checks that each was set up and ran
 * without failure, and asks each to check its output.
 */
void os_run(struct os_scenario *s, uint64_t duration_ns,
            uint64_t drain_limit_ns);

void os_app_figures(const struct os_scenario *s, const struct app *a,
                    struct os_app_figures *f);

/* The per-application table. */
void os_print_table(const struct os_scenario *s);

/* ,"apps":[{...},...] for METRICS (no braces around it). */
void os_print_apps_json(const struct os_scenario *s);

/* ,"sched":{...} for METRICS: the CPU's cost of scheduling while the
 * apps ran (interrupts and cycles, per virtual second), the preemptions
 * the OS asked for, and in hardware mode what the device reported. */
void os_print_sched_json(const struct os_scenario *s);

/* ,"vram_bytes":[{"engine":e,"read":r,"write":w},...] for METRICS: the
 * bytes each engine's packets moved in GPU memory while the apps ran. */
void os_print_mem_json(const struct os_scenario *s);

/*
 * Pageable DMA buffers (dmabuf=aperture|vram, kernel/kdma.h): checks
 * that every DMA buffer was a vidmm allocation and none used the
 * kernel's segment; with dma_moved=1 on the command line also that some
 * were brought in at a switch, among them preempted (patched) ones taken
 * out and brought back. Nothing to check with dmabuf=kernel.
 * os_print_dmabuf_json: the figures, for METRICS.
 */
void os_check_dmabuf(struct os_scenario *s);
void os_print_dmabuf_json(const struct os_scenario *s);

/* Hardware scheduling's own checks (nothing in software mode): the OS
 * asked for no preemption (the device makes every switch), the device's
 * log came (frames, switches) and no log entry was refused. */
void os_check_hwsched(struct os_scenario *s);

/* Busy fraction of the render engine from t0 to t_stop (while the apps
 * ran), per mille, as the device counts it. */
unsigned os_busy_permille(const struct os_scenario *s);

/* "1.23 ms"-style, into buf. */
const char *os_fmt_ns(char *buf, unsigned size, uint64_t ns);

#endif /* FW_SCENARIOS_OS_COMMON_H */
