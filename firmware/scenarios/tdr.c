/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdr: timeout detection and recovery, WDDM style, by the scheduler
 * (vidsch's watchdog), on a device that preempts only between packets
 * (run it with -device copro,preempt=command):
 *
 * 1. Long but healthy: an application's one buffer is 5 x the timeout
 *    of 1 ms WORK packets. The watchdog's preemption request is honoured
 *    at the next packet, the buffer is resumed and completes: no reset.
 * 2. Hang: the guilty application's buffer is a single 10 s WORK packet,
 *    which the engine cannot stop; an innocent application's frames are
 *    queued behind it. The watchdog must preempt after the timeout, reset
 *    the engine after the grace period, put the guilty context in error
 *    (its process is told its device is removed, and its calls return
 *    DDI_ELOST) and resubmit the innocent work, which completes.
 * 3. The innocent application runs new work on the reset engine.
 *
 * Each phase ends when its applications have done their frames. METRICS'
 * detect_ns is the first preemption request after the hung submission
 * (a quantum's or the watchdog's), reset_ns the engine reset.
 *
 * Command line: irq=..., tdr_ms= (default 50), tdr_grace_ms= (10), the
 * other scheduler options. Run under -icount shift=0,sleep=off.
 */
#include <stdint.h>

#include "apps/hog.h"
#include "apps/winapp.h"
#include "kmd/copro_info.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define LONG_FACTOR     5           /* the healthy job: x the timeout */
#define HANG_NS         (10000 * MS)

static struct os_scenario s;
static struct hog job, guilty;
static struct winapp innocent, after;
static uint32_t job_cmd[4096], guilty_cmd[256];
static uint64_t lost_at;
static unsigned lost_calls;

static void tdr_defaults(struct vidsch_config *c)
{
    c->tdr_timeout_ns = 50 * MS;
    c->tdr_grace_ns = 10 * MS;
}

static void on_lost(void *arg, uint32_t hdevice)
{
    struct app *a = arg;

    (void)hdevice;
    lost_calls++;
    lost_at = kapi_now(a->proc);
}

/* The watchdog's preemptions; in hardware mode (hwsched=1) its
 * suspensions of a queue, which make the device switch it out. */
static uint64_t tdr_preempts(void)
{
    const struct vidsch_engine_stats *es =
        vidsch_engine_stats(s.boot.k.vs, COPRO_ENGINE_RENDER);

    if (vidsch_hwsched(s.boot.k.vs)) {
        return vidsch_hws_stats(s.boot.k.vs)->suspensions;
    }
    return es ? es->preempt_requests[VIDSCH_PREEMPT_TDR] : 0;
}

static uint64_t tdr_resets(void)
{
    return vidsch_stats(s.boot.k.vs)->tdr_resets;
}

static void phase_long(void)
{
    struct hog_config hc = {
        .prio = VIDSCH_PRIO_NORMAL,
        .hog_ns = LONG_FACTOR * s.sched.tdr_timeout_ns,
        .work_packet_ns = 1 * MS, .max_buffers = 1,
    };
    uint64_t resets = tdr_resets();

    hog_init(&job, &s.boot.k, "long-job", &hc, job_cmd, sizeof(job_cmd));
    os_add_app(&s, hog_app(&job));
    os_run(&s, 10 * hc.hog_ns, 1000 * MS);
    report(&s.r, tdr_preempts() > 0 && tdr_resets() == resets,
           "the watchdog preempted the long job %lu times, honoured, no "
           "reset (%lu)", tdr_preempts(), tdr_resets() - resets);
}

static void phase_hang(uint64_t *detect, uint64_t *reset)
{
    struct hog_config hc = {
        .prio = VIDSCH_PRIO_NORMAL, .hog_ns = HANG_NS,
        .work_packet_ns = HANG_NS, .max_buffers = 1,
    };
    struct winapp_config wc = {
        .prio = VIDSCH_PRIO_NORMAL, .tag = 0x1b,
        .frames = { .depth = 2, .max_frames = 3 },
        .work_ns = 1 * MS, .work_packet_ns = 1 * MS,
        .draw = WINAPP_DRAW_FILL, .width = 64, .height = 64,
    };
    const struct vidsch_trace *t;
    uint64_t t0, budget = s.sched.tdr_timeout_ns + s.sched.tdr_grace_ns;
    volatile void *cpu;
    uint32_t h;

    os_clear_apps(&s);
    hog_init(&guilty, &s.boot.k, "guilty", &hc, guilty_cmd,
             sizeof(guilty_cmd));
    winapp_init(&innocent, &s.boot.k, "innocent", &wc);
    hog_app(&guilty)->expect_lost = true;
    kapi_set_lost_callback(hog_app(&guilty)->proc, on_lost,
                           hog_app(&guilty));
    os_add_app(&s, hog_app(&guilty));
    os_add_app(&s, winapp_app(&innocent));
    t0 = kernel_now(&s.boot.k);
    os_run(&s, 2000 * MS, 2000 * MS);

    t = kernel_trace_find(&s.boot.k, VIDSCH_TRACE_PREEMPT, t0, UINT32_MAX);
    *detect = t ? t->time - t0 : 0;
    t = kernel_trace_find(&s.boot.k, VIDSCH_TRACE_RESET, t0, UINT32_MAX);
    *reset = t ? t->time - t0 : 0;
    /* The watchdog may find a preemption already asked (a quantum's) and
     * wait out its grace instead of asking again: the reset's time is
     * what bounds the hang. */
    report(&s.r, *reset >= s.sched.tdr_timeout_ns && *reset <= budget +
           20 * MS, "hang detected and the engine reset %lu us after the "
           "hung submission (timeout %lu us + grace %lu us)", *reset / US,
           s.sched.tdr_timeout_ns / US, s.sched.tdr_grace_ns / US);
    report(&s.r, lost_calls == 1 && lost_at >= t0 + *reset,
           "the guilty process was told its device is removed (%u times)",
           lost_calls);
    report(&s.r, vidsch_stats(s.boot.k.vs)->contexts_lost == 1,
           "one context lost (%lu)", vidsch_stats(s.boot.k.vs)->contexts_lost);
    report(&s.r, kapi_create_context(hog_app(&guilty)->proc,
                                     hog_app(&guilty)->hdev, 0,
                                     VIDSCH_PRIO_NORMAL, &h) == DDI_ELOST &&
           kapi_lock(hog_app(&guilty)->proc, guilty.hblocks,
                     KAPI_LOCK_IGNORESYNC, &cpu) == DDI_OK,
           "the removed device refuses new work (DDI_ELOST); its memory can "
           "still be read");
}

static void phase_after(void)
{
    struct winapp_config wc = {
        .prio = VIDSCH_PRIO_NORMAL, .tag = 0x2c,
        .frames = { .depth = 2, .max_frames = 2 },
        .work_ns = 1 * MS, .work_packet_ns = 1 * MS,
        .draw = WINAPP_DRAW_RECT, .width = 64, .height = 64,
    };

    os_clear_apps(&s);
    winapp_init(&after, &s.boot.k, "after-reset", &wc);
    os_add_app(&s, winapp_app(&after));
    os_run(&s, 1000 * MS, 1000 * MS);
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t detect = 0, reset = 0;
    uint32_t gran = 0;

    kprintf("tdr: timeout detection and recovery by the scheduler\n");
    if (os_boot(&s, boot, tdr_defaults)) {
        gran = s.boot.dev.info.preempt_caps;
        if (report(&s.r, gran == COPRO_PREEMPT_COMMAND, "device preempts "
                   "between packets only (preempt=%s)",
                   copro_preempt_name(gran))) {
            report_info("watchdog: timeout %lu ms, grace %lu ms",
                        s.sched.tdr_timeout_ns / MS,
                        s.sched.tdr_grace_ns / MS);
            phase_long();
            phase_hang(&detect, &reset);
            phase_after();
        }
    }
    kprintf("METRICS {\"scenario\":\"tdr\",\"timeout_ms\":%lu,"
            "\"grace_ms\":%lu,\"detect_ns\":%lu,\"reset_ns\":%lu,"
            "\"preempt_requests\":%lu,\"resets\":%lu,\"contexts_lost\":%lu,"
            "\"irqs\":%lu,\"tests\":%u,\"failures\":%u}\n",
            s.sched.tdr_timeout_ns / MS, s.sched.tdr_grace_ns / MS, detect,
            reset, s.boot.k.vs ? tdr_preempts() : 0,
            s.boot.k.vs ? tdr_resets() : 0,
            s.boot.k.vs ? vidsch_stats(s.boot.k.vs)->contexts_lost : 0,
            kboot_interrupts(&s.boot), s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
