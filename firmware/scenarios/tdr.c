/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdr: timeout detection and recovery, WDDM style, on the render engine.
 *
 * A watchdog (vidsch_tdr) ticks on the LAPIC timer. When the engine has
 * had work outstanding and retired nothing for timeout_ms, the driver
 * first requests preemption; if the engine does not honour it within
 * grace_ms it is declared hung and reset. The context whose submission
 * the reset aborted is marked lost (the driver refuses its submissions),
 * and the other contexts' dropped work is resubmitted and completes.
 *
 * 1. Long but healthy: context B runs a WORK longer than the timeout.
 *    The watchdog's preemption request is honoured (needs a preemptible
 *    device, preempt=command or mid-command), the work is resumed and
 *    completes: no reset.
 * 2. Hang: with x-fault-injection=on, INJECT HANG is set on the engine
 *    before context A's submission; B's submissions are queued behind it,
 *    and B also works on the copy engine meanwhile. The watchdog must
 *    detect the hang within timeout + one tick, reset the engine after
 *    the grace period (ABORTED_FENCE = A's fence), mark A lost, and B's
 *    dropped work must complete after resubmission.
 *
 * Command line: irq=..., timeout_ms (default 50), grace_ms (10),
 * tick_ms (5). Run under -icount shift=0,sleep=off for exact timing.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_preempt.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/wait.h"
#include "scenarios/common.h"
#include "vidsch/vidsch_tdr.h"

#define RING_ENTRIES        16
#define ENGINE              COPRO_ENGINE_RENDER
#define CTX_GUILTY          0xa
#define CTX_INNOCENT        0xb
#define BLOCK               4096u
#define NBLOCKS             8
#define TAG_LONG            100
#define TAG_HANG            200
/* a job longer than the timeout, but healthy */
#define LONG_WORK_FACTOR    5   /* x timeout, in WORK packets of 1 ms */

struct tdr_config {
    uint64_t timeout_ns, grace_ns, tick_ns;
};

struct tdr_state {
    struct copro_cp *cp;
    struct tdr_config cfg;
    struct copro_preempt pe;
    struct copro_context guilty, innocent;
    struct vidsch_tdr wd;
    uint64_t area;                  /* NBLOCKS blocks of output */
    struct copro_stop_plan plan;

    /* what the watchdog did, for checks and metrics */
    unsigned preempt_requests, preempts_honoured, resets;
    uint64_t timed_out_at, reset_at;
    struct copro_reset_report rep;
    unsigned aborted, dropped, resubmitted;
    uint32_t guilty_ctx;            /* context of the aborted submission */
    const char *error;
};

static uint32_t pattern(unsigned k)
{
    return 0x01010101u * (0x60u + k);
}

static bool parse_config(struct report *r, const char *cmdline,
                         struct tdr_config *c)
{
    uint64_t timeout_ms = 50, grace_ms = 10, tick_ms = 5;

    if (cmdline_get_u64(cmdline, "timeout_ms", &timeout_ms) < 0 ||
        cmdline_get_u64(cmdline, "grace_ms", &grace_ms) < 0 ||
        cmdline_get_u64(cmdline, "tick_ms", &tick_ms) < 0 ||
        timeout_ms == 0 || tick_ms == 0) {
        return report(r, false, "command line: timeout_ms, grace_ms, tick_ms "
                      "must be decimal, timeout and tick non-zero");
    }
    *c = (struct tdr_config){ timeout_ms * MS, grace_ms * MS, tick_ms * MS };
    return true;
}

static bool build_fill(struct tdr_state *s, struct copro_dmabuf *b,
                       unsigned k)
{
    if (!copro_cp_dmabuf_alloc(s->cp, b, 64)) {
        return false;
    }
    copro_emit_fill(b, s->area + k * BLOCK, BLOCK, pattern(k));
    return copro_dmabuf_ok(b);
}

static void fail(struct tdr_state *s, const char *why)
{
    if (!s->error) {
        s->error = why;
    }
}

static void on_preempted(struct tdr_state *s)
{
    const char *err = copro_preempt_settle(&s->pe, &s->plan);

    if (err) {
        fail(s, err);
        return;
    }
    s->preempts_honoured++;
    /* The engine is responsive: what it gave up simply runs again. */
    copro_preempt_resubmit(&s->pe, &s->plan, UINT32_MAX, &err);
    if (err) {
        fail(s, err);
    }
    vidsch_tdr_preempted(&s->wd, copro_gpu_time(s->cp),
                         s->cp->eng[ENGINE].completed);
}

static void on_hung(struct tdr_state *s)
{
    const char *err;

    s->reset_at = copro_gpu_time(s->cp);
    err = copro_preempt_reset(&s->pe, &s->plan, &s->rep);
    s->resets++;
    if (err) {
        fail(s, err);
        return;
    }
    s->guilty_ctx = UINT32_MAX;
    for (unsigned i = 0; i < s->plan.count; i++) {
        if (s->plan.entry[i].fate == COPRO_FATE_ABORTED) {
            s->guilty_ctx = s->plan.entry[i].sub.context;
        }
    }
    s->aborted += s->plan.aborted;
    s->dropped += s->plan.dropped;
    if (s->guilty_ctx == s->guilty.id) {
        s->guilty.lost = true;
    } else if (s->guilty_ctx == s->innocent.id) {
        s->innocent.lost = true;
    }
    /* Everyone else's work runs again; the guilty context's does not. */
    s->resubmitted += copro_preempt_resubmit(&s->pe, &s->plan, s->guilty_ctx,
                                             &err);
    if (err) {
        fail(s, err);
    }
    vidsch_tdr_reset_done(&s->wd, copro_gpu_time(s->cp),
                          s->cp->eng[ENGINE].completed);
}

static bool irq_pending(void *ctx)
{
    struct tdr_state *s = ctx;

    return s->cp->dev->irq.pending != 0;
}

/* Runs the watchdog until nothing is outstanding on the engine. */
static void run_watchdog(struct tdr_state *s, uint64_t limit_ns)
{
    uint64_t deadline = copro_gpu_time(s->cp) + limit_ns;

    for (;;) {
        uint64_t now;
        struct copro_engine *eng = &s->cp->eng[ENGINE];

        copro_cp_dpc(s->cp);
        copro_preempt_retire(&s->pe);
        if (eng->halted) {
            fail(s, copro_fault_kind_name(eng->fault.kind));
            return;
        }
        if (copro_preempt_done(&s->pe)) {
            on_preempted(s);
        }
        now = copro_gpu_time(s->cp);
        switch (vidsch_tdr_check(&s->wd, now, eng->completed,
                                 s->pe.outstanding.count > 0)) {
        case VIDSCH_TDR_PREEMPT:
            s->timed_out_at = now;
            s->preempt_requests++;
            copro_preempt_request(&s->pe);
            break;
        case VIDSCH_TDR_RESET:
            on_hung(s);
            break;
        case VIDSCH_TDR_NONE:
            break;
        }
        if (s->error || (s->pe.outstanding.count == 0 && !s->pe.pending)) {
            return;
        }
        if (now > deadline) {
            fail(s, "work still outstanding at the scenario's time limit");
            return;
        }
        /* The tick: wake for an interrupt or after tick_ns. */
        wait_for(irq_pending, s, s->cfg.tick_ns, NULL);
    }
}

static void submit(struct tdr_state *s, const struct copro_context *ctx,
                   const struct copro_dmabuf *b, uint64_t tag)
{
    if (!copro_preempt_submit_buf(&s->pe, ctx, b, 0, tag)) {
        fail(s, "a submission was refused");
        return;
    }
    vidsch_tdr_submitted(&s->wd, copro_gpu_time(s->cp));
}

/* Phase 1: a job longer than the timeout, on a preemptible engine. */
static void run_long_job(struct report *r, struct tdr_state *s)
{
    struct copro_dmabuf b;
    unsigned n = (unsigned)(LONG_WORK_FACTOR * s->cfg.timeout_ns / MS);
    uint64_t t0, t1;
    unsigned resets = s->resets;

    if (!copro_cp_dmabuf_alloc(s->cp, &b, (n + 8) * COPRO_LEN_WORK * 4 +
                               64)) {
        report(r, false, "long job buffer allocated");
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        copro_emit_work(&b, MS);
    }
    copro_emit_fill(&b, s->area + 0 * BLOCK, BLOCK, pattern(0));
    t0 = copro_gpu_time(s->cp);
    submit(s, &s->innocent, &b, TAG_LONG);
    run_watchdog(s, 10 * n * MS);
    t1 = copro_gpu_time(s->cp);
    report(r, s->error == NULL && s->pe.outstanding.count == 0,
           "long job (%u ms, timeout %lu ms) completed after %lu ms%s%s", n,
           s->cfg.timeout_ns / MS, (t1 - t0) / MS, s->error ? ": " : "",
           s->error ? s->error : "");
    report(r, s->preempt_requests > 0 &&
           s->preempts_honoured == s->preempt_requests &&
           s->resets == resets, "watchdog preempted it %u times, each "
           "honoured (%u), no reset (%u)", s->preempt_requests,
           s->preempts_honoured, s->resets - resets);
    report(r, s->pe.resumed > 0, "the long job was resumed from its save "
           "area (%u times)", s->pe.resumed);
}

/* Phase 2: context A hangs the engine; B's work must survive. */
static void run_hang(struct report *r, struct tdr_state *s,
                     uint64_t *detect_ns, uint64_t *recover_ns)
{
    struct copro_dmabuf pre, hang, b2, b3, c1, after, refused;
    uint64_t ts_gpu, f_pre, f_hang, f_c1, hang_at;
    uint32_t inj;
    unsigned req0 = s->preempt_requests;

    /* The hung buffer starts with WORK: the device runs the first step
     * of a submission it loads with HANG set before it stops, and that
     * step must not be the FILL whose absence is checked. */
    if (!report(r, build_fill(s, &pre, 1) &&
                copro_cp_dmabuf_alloc(s->cp, &hang, 64) &&
                build_fill(s, &b2, 2) && build_fill(s, &b3, 3) &&
                build_fill(s, &after, 5) && build_fill(s, &refused, 6) &&
                copro_cp_dmabuf_alloc(s->cp, &c1, 64) &&
                copro_cp_alloc(s->cp, 8, 8, &ts_gpu), "hang buffers "
                "allocated")) {
        return;
    }
    copro_emit_work(&hang, MS);
    copro_emit_fill(&hang, s->area + 7 * BLOCK, BLOCK, pattern(7));
    copro_emit_fill(&c1, s->area + 4 * BLOCK, BLOCK, pattern(4));
    copro_emit_timestamp(&c1, ts_gpu);
    vram_write64(s->cp, ts_gpu, 0);

    /* B's work before the hang retires normally. */
    submit(s, &s->innocent, &pre, 1);
    f_pre = s->pe.outstanding.count ? s->pe.outstanding.sub[0].fence : 0;
    run_watchdog(s, 1000 * MS);

    copro_write32(s->cp->dev, COPRO_ENG_BASE(ENGINE) + COPRO_ENG_INJECT,
                  COPRO_INJECT_HANG);
    inj = copro_read32(s->cp->dev, COPRO_ENG_BASE(ENGINE) +
                       COPRO_ENG_INJECT);
    if (!report(r, inj == COPRO_INJECT_HANG, "INJECT HANG armed on engine "
                "%u (reads %#x)", ENGINE, inj)) {
        return;
    }
    hang_at = copro_gpu_time(s->cp);
    submit(s, &s->guilty, &hang, TAG_HANG);
    f_hang = s->pe.outstanding.sub[s->pe.outstanding.count - 1].fence;
    submit(s, &s->innocent, &b2, 2);
    submit(s, &s->innocent, &b3, 3);
    /* The copy engine is not hung: B's work there completes meanwhile. */
    f_c1 = copro_cp_submit(s->cp, COPRO_ENGINE_COPY, &c1, s->innocent.id, 0);

    run_watchdog(s, 2000 * MS);

    *detect_ns = s->timed_out_at - hang_at;
    *recover_ns = s->reset_at - hang_at;
    report(r, s->error == NULL, "recovery: %s",
           s->error ? s->error : "no failure");
    report(r, s->preempt_requests == req0 + 1 && s->timed_out_at > hang_at &&
           *detect_ns <= s->cfg.timeout_ns + s->cfg.tick_ns,
           "hang detected %lu us after the hung submission (timeout %lu us "
           "+ tick %lu us)", *detect_ns / US, s->cfg.timeout_ns / US,
           s->cfg.tick_ns / US);
    report(r, s->resets == 1 && s->reset_at >= s->timed_out_at +
           s->cfg.grace_ns && *recover_ns <= s->cfg.timeout_ns +
           s->cfg.grace_ns + 2 * s->cfg.tick_ns, "preemption ignored, "
           "engine reset %lu us after the hang (grace %lu us)",
           *recover_ns / US, s->cfg.grace_ns / US);
    report(r, s->rep.aborted_fence == f_hang &&
           s->rep.completed_fence == f_pre, "reset: ABORTED_FENCE %lu "
           "(the hung submission %lu), COMPLETED_FENCE %lu (expected %lu)",
           s->rep.aborted_fence, f_hang, s->rep.completed_fence, f_pre);
    report(r, s->guilty_ctx == CTX_GUILTY && s->guilty.lost &&
           !s->innocent.lost, "guilty context %#x marked lost, context "
           "%#x not", s->guilty_ctx, CTX_INNOCENT);
    report(r, s->aborted == 1 && s->dropped == 2 && s->resubmitted == 2,
           "plan: %u aborted, %u dropped, %u resubmitted", s->aborted,
           s->dropped, s->resubmitted);
    report(r, copro_preempt_submit_buf(&s->pe, &s->guilty, &refused, 0, 9) ==
           0, "the driver refuses the lost context's submissions");
    report(r, copro_cp_wait_fence(s->cp, COPRO_ENGINE_COPY, f_c1,
                                  FENCE_TIMEOUT_NS, NULL) == COPRO_WAIT_DONE &&
           vram_read64(s->cp, ts_gpu) != 0 &&
           vram_read64(s->cp, ts_gpu) < s->reset_at,
           "copy engine work of context %#x completed during the hang "
           "(at %lu us)", CTX_INNOCENT,
           (vram_read64(s->cp, ts_gpu) - hang_at) / US);
    submit(s, &s->innocent, &after, 5);
    run_watchdog(s, 1000 * MS);
    report(r, s->error == NULL && s->pe.outstanding.count == 0,
           "the render engine runs the innocent context's new work");
}

static void check_area(struct report *r, struct tdr_state *s)
{
    static uint8_t want[NBLOCKS * BLOCK];

    for (unsigned k = 0; k < NBLOCKS; k++) {
        /* block 6: refused submission; 7: the hung one, never ran */
        uint32_t p = k == 6 || k == 7 ? 0 : pattern(k);

        for (unsigned i = 0; i < BLOCK; i++) {
            want[k * BLOCK + i] = (uint8_t)(p >> (8 * (i & 3)));
        }
    }
    check_bytes(r, "output: innocent work done, guilty and refused work "
                "not", copro_cp_cpu_ptr(s->cp, s->area), want, sizeof(want));
}

int scenario_main(const struct boot_info *boot)
{
    static struct tdr_state s;
    static struct copro_cp cp;
    struct report r = { 0 };
    struct copro dev = { 0 };
    uint64_t detect = 0, recover = 0;
    const char *err = NULL;

    kprintf("tdr: timeout detection and recovery with a hung engine\n");
    s.cp = &cp;
    if (parse_config(&r, boot->cmdline, &s.cfg) &&
        scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES) &&
        report(&r, dev.info.caps & COPRO_CAP_FAULT_INJECTION, "device has "
               "fault injection (x-fault-injection=on)") &&
        report(&r, dev.info.preempt_caps >= COPRO_PREEMPT_COMMAND,
               "device preempts inside a buffer (preempt=%s)",
               copro_preempt_name(dev.info.preempt_caps))) {
        copro_preempt_init(&s.pe, &cp, ENGINE);
        err = copro_context_init(&cp, &s.guilty, CTX_GUILTY, 0);
        if (!err) {
            err = copro_context_init(&cp, &s.innocent, CTX_INNOCENT, 0);
        }
        if (report(&r, err == NULL && copro_cp_alloc(&cp, NBLOCKS * BLOCK,
                                                     64, &s.area),
                   "contexts and output area allocated")) {
            volatile uint64_t *a = (volatile uint64_t *)
                copro_cp_cpu_ptr(&cp, s.area);

            for (unsigned i = 0; i < NBLOCKS * BLOCK / 8; i++) {
                a[i] = 0;
            }
            vidsch_tdr_init(&s.wd, &(struct vidsch_tdr_config){
                                .timeout_ns = s.cfg.timeout_ns,
                                .grace_ns = s.cfg.grace_ns },
                            copro_gpu_time(&cp), cp.eng[ENGINE].completed);
            report_info("watchdog: timeout %lu ms, grace %lu ms, tick %lu ms",
                        s.cfg.timeout_ns / MS, s.cfg.grace_ns / MS,
                        s.cfg.tick_ns / MS);
            run_long_job(&r, &s);
            run_hang(&r, &s, &detect, &recover);
            check_area(&r, &s);
        }
    }
    kprintf("METRICS {\"scenario\":\"tdr\",\"timeout_ms\":%lu,"
            "\"grace_ms\":%lu,\"tick_ms\":%lu,\"detect_ns\":%lu,"
            "\"reset_ns\":%lu,\"preempt_requests\":%u,"
            "\"preempts_honoured\":%u,\"resets\":%u,\"aborted_fence\":%lu,"
            "\"guilty_context\":%u,\"aborted\":%u,\"dropped\":%u,"
            "\"resubmitted\":%u,\"resumed\":%u,\"irqs\":%u,\"tests\":%u,"
            "\"failures\":%u}\n",
            s.cfg.timeout_ns / MS, s.cfg.grace_ns / MS, s.cfg.tick_ns / MS,
            detect, recover, s.preempt_requests, s.preempts_honoured,
            s.resets, s.rep.aborted_fence, s.guilty_ctx, s.aborted,
            s.dropped, s.resubmitted, s.pe.resumed, dev.irq.count, r.tests,
            r.failures);
    return report_summary(&r);
}
