/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hog: a low-priority application hogs the render engine with one long
 * buffer (seconds of WORK) while a high-priority application submits a
 * short frame every period. The scheduler (vidsch) decides everything:
 * it preempts the hog when a frame is ready, runs the frame, resumes the
 * hog from its save area. How soon a frame starts depends on the device's
 * preemption granularity (the `preempt` property):
 *
 *   mid-command  the hog yields within one 100 us WORK slice;
 *   command      within one of its WORK packets (work_us);
 *   dma-buffer   only between buffers: the hog is one buffer, so frames
 *   none         wait for the rest of it.
 *
 * Submit-to-start latency of a frame = its start TIMESTAMP minus the GPU
 * time read just before it was rendered (submitted), virtual ns. It is
 * split into the device's share (the engine held by work that could not
 * be taken from it at once: the hog until it was saved, by the device's
 * own request-to-saved measure, or until it ended, and the frame ahead)
 * and the OS's share: the rest (rendering and queuing, the decision to
 * preempt, interrupt, DPC, preparation, submission).
 *
 * Command line (decimal): irq=..., hog_ms (default 1000), frames_ms
 * (250: frames arrive for this long), period_us (16667), work_us (500:
 * the hog's WORK packet), expect_throttle (1: the frames queued behind
 * the hog exceed the process's limits of work in flight, and the check
 * is that the kernel throttled the app rather than failed it), the
 * scheduler options. Run it under
 * -icount shift=0,sleep=off: virtual time then skips ahead while the CPU
 * halts, so 10 s of GPU time cost far less wall time, deterministically.
 */
#include <stdint.h>

#include <copro/copro_regs.h>

#include "apps/hog.h"
#include "apps/winapp.h"
#include "kmd/copro_info.h"
#include "lib/console.h"
#include "lib/stats.h"
#include "scenarios/os_common.h"

#define MAX_FRAMES          256
#define HOG_MAX_MS          ((uint64_t)10000)
#define MIN_WORK_US         100
/* The device's arbitration points (docs/specs/copro.rst, Preemption):
 * WORK runs in 100 us slices, every packet costs packet-ns. */
#define WORK_SLICE_NS       (100 * US)
#define PACKET_NS           100
/* The OS's share of a frame's latency: PREEMPTED interrupt, DPC, the
 * scheduler's decision, preparation, the doorbell, the frame's first
 * packet. Generous (a few thousand instructions are a few us under
 * -icount shift=0): the benchmark reports the real figure. */
#define OS_MARGIN_NS        (100 * US)

static struct os_scenario s;
static uint32_t frames_ctx;     /* the frames app's hardware context id */
static struct hog hog;
static struct winapp frames;
static struct frameapp_record rec[MAX_FRAMES];
static uint32_t hog_cmd[(HOG_MAX_MS * 1000 / MIN_WORK_US + 64) * 3 + 256];
static uint64_t lat[MAX_FRAMES], os_share[MAX_FRAMES], dev_share[MAX_FRAMES];

/* The hog is one buffer: on a device that cannot stop it inside (none,
 * dma-buffer) it holds the engine for all of hog_ms, healthily. The
 * watchdog must not take that for a hang (WDDM's TdrDelay would be raised
 * for such a workload too). */
static uint64_t hog_ns_for_tdr;

static void hog_defaults(struct vidsch_config *c)
{
    if (c->tdr_timeout_ns < hog_ns_for_tdr + 2000 * MS) {
        c->tdr_timeout_ns = hog_ns_for_tdr + 2000 * MS;
    }
}

struct split {
    uint64_t min, p50, p99, max;
};

static struct split summarize(uint64_t *v, unsigned n)
{
    stats_sort_u64(v, n);
    return (struct split){
        .min = n ? v[0] : 0,
        .p50 = stats_percentile(v, n, 50),
        .p99 = stats_percentile(v, n, 99),
        .max = n ? v[n - 1] : 0,
    };
}

/*
 * The device's share of frame r's wait: the time within [submit, start]
 * the engine was held by work the OS could not take it from at once:
 * from the preemption request the frame caused to the hog's save (the
 * device's own request-to-saved measure), or, when the hog could not be
 * stopped, until the hog ended (hog_end), and the frame ahead of it
 * (prev_end). The rest of the latency is the OS's: rendering and
 * queuing the frame, deciding to preempt, the interrupt, the DPC,
 * preparing and submitting the frame.
 */
static uint64_t device_share(const struct frameapp_record *r,
                             uint64_t hog_end, uint64_t prev_end)
{
    const struct copro_ddi *d = &s.boot.ddi;
    uint64_t b[3], e[3], total = 0, covered;
    unsigned n = 0;

    /* Hardware scheduling: from its doorbell on, the wait is the
     * device's (its decision, the hog's save, the switch); before it,
     * the OS's (render, residency, patch, the queue write). */
    for (unsigned i = 0; vidsch_hwsched(s.boot.k.vs) &&
                         i < s.boot.hwq.ndb_log; i++) {
        const struct copro_hwq_db_rec *db = &s.boot.hwq.db_log[i];

        if (db->context == frames_ctx && db->at >= r->submit &&
            db->at <= r->start) {
            return r->start - db->at;
        }
    }

    for (unsigned i = 0; i < d->npreempt_log; i++) {
        const struct copro_ddi_preempt_rec *p = &d->preempt_log[i];

        if (p->engine == COPRO_ENGINE_RENDER && p->requested_at >= r->submit &&
            p->requested_at <= r->start) {
            b[n] = p->requested_at;
            e[n++] = p->requested_at + p->latency_ns;
            break;
        }
    }
    /* The hog held the engine to its end only if the frame started after
     * it. */
    if (hog_end > r->submit && hog_end <= r->start) {
        b[n] = r->submit;
        e[n++] = hog_end;
    }
    if (prev_end > r->submit && prev_end <= r->start) {
        b[n] = r->submit;
        e[n++] = prev_end;
    }
    /* The length of the union of the intervals, clipped to the wait. */
    covered = r->submit;
    for (;;) {
        unsigned best = n;

        for (unsigned i = 0; i < n; i++) {
            if (e[i] > covered && (best == n || b[i] < b[best])) {
                best = i;
            }
        }
        if (best == n) {
            break;
        }
        if (b[best] > covered) {
            covered = b[best];
        }
        if (e[best] > r->start) {
            e[best] = r->start;
        }
        if (e[best] > covered) {
            total += e[best] - covered;
            covered = e[best];
        }
        e[best] = 0;
    }
    return total;
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t hog_ms = 1000, frames_ms = 250, period_us = 16667, work_us = 500;
    uint64_t bound = 0, hog_end = 0, dev_max = 0;
    unsigned nframes = 0, started = 0, early = 0, blocked = 0;
    struct split l = { 0 }, o = { 0 }, d = { 0 };
    const struct vidsch_ctx_stats *hs = NULL;
    const struct vidsch_engine_stats *es = NULL;
    uint32_t gran = 0;
    uint64_t requests = 0;
    uint64_t expect_irq_off = 0, expect_throttle = 0;

    kprintf("hog: preemption of a long low-priority buffer by frames\n");
    if (os_option(&s, boot, "hog_ms", &hog_ms) &&
        os_option(&s, boot, "frames_ms", &frames_ms) &&
        os_option(&s, boot, "period_us", &period_us) &&
        os_option(&s, boot, "work_us", &work_us) &&
        os_option(&s, boot, "expect_irq_off", &expect_irq_off) &&
        os_option(&s, boot, "expect_throttle", &expect_throttle) &&
        report(&s.r, hog_ms > 0 && hog_ms <= HOG_MAX_MS && period_us > 0 &&
               work_us >= MIN_WORK_US && work_us <= hog_ms * 1000,
               "hog of %lu ms (at most %lu) in %lu us packets (at least %u), "
               "frames every %lu us for %lu ms", hog_ms, HOG_MAX_MS,
               work_us, MIN_WORK_US, period_us, frames_ms) &&
        (hog_ns_for_tdr = hog_ms * MS, os_boot(&s, boot, hog_defaults))) {
        struct hog_config hc = {
            .prio = VIDSCH_PRIO_BELOW_NORMAL, .hog_ns = hog_ms * MS,
            .work_packet_ns = work_us * US, .max_buffers = 1,
        };
        struct winapp_config wc = {
            .prio = VIDSCH_PRIO_HIGH, .tag = 0x46,
            /* The frames start one period after the hog, as they did
             * when the driver scheduled them by hand. */
            .frames = { .period_ns = period_us * US,
                        .first_release_ns = period_us * US },
            .draw = WINAPP_DRAW_FILL, .width = 64, .height = 1,
        };

        gran = s.boot.dev.info.preempt_caps;
        /* Rounded: 1 s at 16.667 ms is 60 frames, not 59. */
        nframes = (unsigned)((frames_ms * MS + period_us * US / 2) /
                             (period_us * US));
        if (nframes > MAX_FRAMES) {
            nframes = MAX_FRAMES;
        }
        wc.frames.max_frames = nframes;
        /* Every frame is queued, however long the hog holds the engine
         * (without mid-buffer preemption it holds it to the end). */
        wc.frames.depth = nframes;
        hog_init(&hog, &s.boot.k, "hog", &hc, hog_cmd, sizeof(hog_cmd));
        winapp_init(&frames, &s.boot.k, "frames", &wc);
        frames.f.log = rec;
        frames.f.log_cap = MAX_FRAMES;
        os_add_app(&s, hog_app(&hog));
        os_add_app(&s, winapp_app(&frames));
        report_info("preempt=%s (PREEMPT_CAPS %u)", copro_preempt_name(gran),
                    gran);
        os_run(&s, frames_ms * MS + period_us * US,
               2 * hog_ms * MS + 1000 * MS);

        hog_end = hog.first_done_ns ? hog.f.t0 + hog.first_done_ns : 0;
        for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
            if (s.boot.k.contexts[i].used &&
                s.boot.k.contexts[i].proc == winapp_app(&frames)->proc) {
                frames_ctx = vidsch_ctx_id(s.boot.k.contexts[i].vctx);
            }
        }
        for (unsigned i = 0; i < frames.f.last_completed && i < MAX_FRAMES;
             i++) {
            const struct frameapp_record *r = &rec[i];

            if (r->start == 0 || r->start < r->submit) {
                continue;
            }
            lat[started] = r->start - r->submit;
            dev_share[started] = device_share(r, hog_end,
                                              i ? rec[i - 1].end : 0);
            os_share[started] = lat[started] - dev_share[started];
            started++;
            /* Frames that arrived while the hog was still to finish. */
            if (r->submit < hog_end) {
                blocked += r->start >= hog_end;
                early += r->start < hog_end;
            }
        }
        report(&s.r, started == nframes, "frames completed with a start "
               "time after their submit: %u of %u", started, nframes);
        l = summarize(lat, started);
        o = summarize(os_share, started);
        d = summarize(dev_share, started);
        report(&s.r, hog.first_done_ns >= hc.hog_ns, "hog completed at %lu "
               "us (its WORK alone is %lu us)", hog.first_done_ns / US,
               hc.hog_ns / US);
        for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
            if (s.boot.k.contexts[i].used &&
                s.boot.k.contexts[i].proc == hog_app(&hog)->proc) {
                hs = vidsch_ctx_stats(s.boot.k.contexts[i].vctx);
            }
        }
        es = vidsch_engine_stats(s.boot.k.vs, COPRO_ENGINE_RENDER);
        for (unsigned i = 0; es && i < 4; i++) {
            requests += es->preempt_requests[i];
        }
        switch (gran) {
        case COPRO_PREEMPT_MID_COMMAND:
        case COPRO_PREEMPT_COMMAND:
            /* The longest stretch between arbitration points, plus the
             * OS's own path. */
            bound = (gran == COPRO_PREEMPT_MID_COMMAND ? WORK_SLICE_NS
                                                       : work_us * US) +
                    PACKET_NS + OS_MARGIN_NS;
            report(&s.r, l.p99 < bound, "p99 submit-to-start latency %lu ns "
                   "< %lu ns (arbitration interval + OS margin)", l.p99,
                   bound);
            /* a short hog (hog_ms=1) may end before any frame arrives:
             * then there is nothing to preempt it for */
            report(&s.r, early + blocked == 0 ||
                   (hs && hs->preemptions > 0 && hs->resumed > 0),
                   "vidsch preempted the hog mid-buffer and resumed it (%lu "
                   "times; %u frames arrived while it ran)",
                   hs ? hs->resumed : 0, early + blocked);
            break;
        default:
            /* No arbitration point inside the hog: every frame that
             * arrived before it finished waited for all of it (none may
             * have: a short hog ends before the first one) */
            report(&s.r, early == 0 &&
                   (blocked > 0 || hc.hog_ns < period_us * US),
                   "%u frames that arrived during the hog all started after "
                   "it (%u started earlier)", blocked, early);
            report(&s.r, hs && hs->resumed == 0, "the hog was never "
                   "interrupted (%lu)", hs ? hs->resumed : 0);
            break;
        }
        for (unsigned i = 0; i < s.boot.ddi.npreempt_log; i++) {
            if (s.boot.ddi.preempt_log[i].latency_ns > dev_max) {
                dev_max = s.boot.ddi.preempt_log[i].latency_ns;
            }
        }
        report_info("latency ns: min %lu median %lu p99 %lu max %lu; "
                    "device share median %lu p99 %lu, OS share median %lu "
                    "p99 %lu max %lu; device request-to-saved max %lu over "
                    "%u requests", l.min, l.p50, l.p99, l.max, d.p50, d.p99,
                    o.p50, o.p99, o.max, dev_max, s.boot.ddi.npreempt_log);
        os_print_table(&s);
        os_check_hwsched(&s);
        /* frames queued behind a hog the device cannot stop: more than
         * the process may have in flight, so the kernel throttled the
         * frames app (its calls waited for its own frames to retire)
         * instead of failing it (issue 26: DDI_EQUOTA at frame 41) */
        report_info("frames app throttled %lu times (kernel: %lu calls "
                    "throttled, %lu throttle waits over)",
                    frames.f.throttles, s.boot.k.stats.throttled,
                    s.boot.k.stats.throttle_waits);
        if (expect_throttle) {
            report(&s.r, frames.f.throttles > 0 &&
                   s.boot.k.stats.throttle_waits > 0 &&
                   !winapp_app(&frames)->fail_what,
                   "back-pressure: the frames app's %u queued frames went "
                   "past its limit of work in flight; throttled %lu times, "
                   "never failed", nframes, frames.f.throttles);
        }
        if (expect_irq_off) {
            /* a short hog: between frames nobody waits for the GPU (the
             * frames' app waits for its timer), so the kernel turns the
             * completion interrupts off; every frame's wait is still
             * delivered (the frames' checks above) */
            report(&s.r, s.boot.k.stats.cirq_off > 0 &&
                   s.boot.k.stats.cirq_on > 0, "completion interrupts on "
                   "demand: off %lu times while nobody waited for the GPU, "
                   "on %lu times for a waiter", s.boot.k.stats.cirq_off,
                   s.boot.k.stats.cirq_on);
        }
    }
    os_check_dmabuf(&s);
    kprintf("METRICS {\"scenario\":\"hog\",\"mode\":\"%s\",\"hog_ms\":%lu,"
            "\"frames_ms\":%lu,\"period_us\":%lu,\"work_us\":%lu,"
            "\"policy\":\"%s\",\"frames\":%u,\"frames_started\":%u,"
            "\"lat_min_ns\":%lu,\"lat_median_ns\":%lu,\"lat_p99_ns\":%lu,"
            "\"lat_max_ns\":%lu,\"lat_bound_ns\":%lu,"
            "\"os_median_ns\":%lu,\"os_p99_ns\":%lu,\"os_max_ns\":%lu,"
            "\"dev_median_ns\":%lu,\"dev_p99_ns\":%lu,"
            "\"hog_done_ns\":%lu,\"preempt_requests\":%lu,"
            "\"hog_interrupted\":%lu,\"hog_resumed\":%lu,"
            "\"hog_resubmitted\":%lu,\"dev_preemptions\":%u,"
            "\"dev_preempt_max_ns\":%lu,\"irqs\":%lu",
            copro_preempt_name(gran), hog_ms, frames_ms, period_us, work_us,
            vidsch_policy_name(s.sched.policy), nframes, started, l.min,
            l.p50, l.p99, l.max, bound, o.p50, o.p99, o.max, d.p50, d.p99,
            hog.first_done_ns, requests, hs ? hs->preemptions : 0,
            hs ? hs->resumed : 0, hs ? hs->resubmitted : 0,
            s.boot.ddi.npreempt_log, dev_max, kboot_interrupts(&s.boot));
    os_print_dmabuf_json(&s);
    os_print_apps_json(&s);
    os_print_sched_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
