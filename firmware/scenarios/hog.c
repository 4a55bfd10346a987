/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hog: a low-priority context hogs the render engine with one long DMA
 * buffer while a high-priority context submits a short frame every
 * period. The driver preempts the hog whenever a frame is ready, runs the
 * frame, and resumes the hog from its save area afterwards; how soon a
 * frame starts depends on the device's preemption granularity (the
 * `preempt` property), which is the point of the scenario:
 *
 *   mid-command  the hog yields within one 100 us WORK slice;
 *   command      within one of its WORK packets (work_us);
 *   dma-buffer   only between buffers: the hog is one buffer, so frames
 *   none         wait for the rest of it.
 *
 * The hog is WORK packets with a FILL of one block after every
 * nwork/HOG_BLOCKS of them, then a COPY of all blocks and a TIMESTAMP; the
 * blocks and the copy are verified at the end, so a resume that lost or
 * repeated a step shows. Each frame is TIMESTAMP (start), FILL of its own
 * slot, TIMESTAMP (end).
 *
 * Submit-to-start latency of a frame = its start TIMESTAMP minus the
 * GPU_TIME the CPU read when the frame became ready (its "submit": the
 * application hands the frame to the scheduler then, whether or not the
 * engine can take it), all in virtual ns.
 *
 * Command line (decimal): irq=..., hog_ms (default 1000), frames_ms
 * (default 250: frames arrive for this long), period_us (16667),
 * work_us (500: the hog's WORK packet). Run it under
 * -icount shift=0,sleep=off: virtual time then skips ahead while the CPU
 * halts, so 10 s of GPU time cost far less wall time, deterministically.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_preempt.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/stats.h"
#include "lib/wait.h"
#include "scenarios/common.h"

#define RING_ENTRIES        64
#define ENGINE              COPRO_ENGINE_RENDER
#define CTX_HOG             0x10        /* low priority */
#define CTX_FRAMES          0x20        /* high priority */
#define PRIO_LOW            0
#define PRIO_HIGH           1

#define HOG_BLOCKS          16
#define BLOCK               4096u
#define FRAME_BYTES         256u
#define FRAME_BUF_BYTES     64u         /* 12 dwords used */
#define MAX_FRAMES          256
#define HOG_TAG             (~0ull)     /* frames are tagged by index */

/* The device's arbitration points (docs/specs/copro.rst, Preemption):
 * WORK runs in 100 us slices, every packet costs packet-ns. */
#define WORK_SLICE_NS       (100 * US)
#define PACKET_NS           100
/* The driver's share of a frame's latency: PREEMPTED interrupt, DPC,
 * classification, building the descriptor, doorbell, and the frame's
 * first packet. Generous: it is a few thousand instructions, i.e. a few
 * us under -icount shift=0. */
#define DRIVER_MARGIN_NS    (100 * US)

struct hog_config {
    uint64_t hog_ns;
    uint64_t frames_ns;
    uint64_t period_ns;
    uint64_t work_ns;
};

struct frame {
    uint64_t due;           /* GPU time it becomes ready */
    uint64_t arrived;       /* GPU_TIME read when the CPU saw it ready */
    uint64_t fence;         /* 0 until on the ring */
    struct copro_dmabuf buf;
};

struct hog_state {
    struct copro_cp *cp;
    struct hog_config cfg;
    struct copro_preempt pe;
    struct copro_context lo, hi;

    struct copro_dmabuf hog;
    uint64_t blocks, blocks_copy, hog_end_ts;
    uint64_t frame_ts;      /* 2 x u64 per frame: start, end */
    uint64_t frame_out;

    uint64_t t0;
    unsigned nframes;
    unsigned next_due;      /* frames [0, next_due) have arrived */
    unsigned next_submit;   /* frames [0, next_submit) are on the ring */
    struct frame frame[MAX_FRAMES];

    bool hog_redo;          /* plan holds the hog, to resubmit */
    struct copro_stop_plan plan;
    const char *error;      /* first scheduling failure */
    uint64_t latency[MAX_FRAMES];
};

static uint32_t block_pattern(unsigned k)
{
    return 0x01010101u * (0x30u + k) ^ 0x00ff00ffu;
}

static uint32_t frame_pattern(unsigned i)
{
    return 0x01010101u * ((i & 0x7f) + 1) ^ 0xff000000u;
}

static bool parse_config(struct report *r, const char *cmdline,
                         struct hog_config *c)
{
    uint64_t hog_ms = 1000, frames_ms = 250, period_us = 16667, work_us = 500;

    if (cmdline_get_u64(cmdline, "hog_ms", &hog_ms) < 0 ||
        cmdline_get_u64(cmdline, "frames_ms", &frames_ms) < 0 ||
        cmdline_get_u64(cmdline, "period_us", &period_us) < 0 ||
        cmdline_get_u64(cmdline, "work_us", &work_us) < 0 ||
        hog_ms == 0 || period_us == 0 || work_us == 0 ||
        hog_ms * 1000 < work_us) {
        return report(r, false, "command line: hog_ms, frames_ms, period_us, "
                      "work_us must be decimal, non-zero, work_us <= hog");
    }
    *c = (struct hog_config){
        .hog_ns = hog_ms * MS, .frames_ns = frames_ms * MS,
        .period_ns = period_us * US, .work_ns = work_us * US,
    };
    return true;
}

static void vram_zero(struct copro_cp *cp, uint64_t gpu, uint64_t n)
{
    volatile uint64_t *p = (volatile uint64_t *)copro_cp_cpu_ptr(cp, gpu);

    for (uint64_t i = 0; i < n / 8; i++) {
        p[i] = 0;
    }
}

/* WORK split around FILLs, then a COPY of the blocks and a TIMESTAMP. */
static bool build_hog(struct hog_state *s)
{
    const struct hog_config *c = &s->cfg;
    uint64_t nwork = c->hog_ns / c->work_ns;
    uint64_t rest = c->hog_ns % c->work_ns;
    uint64_t per_block = nwork / HOG_BLOCKS ? nwork / HOG_BLOCKS : 1;
    uint64_t bytes = (nwork + 1) * COPRO_LEN_WORK * 4 +
                     HOG_BLOCKS * COPRO_LEN_FILL * 4 + 256;
    unsigned k = 0;

    if (bytes > COPRO_DMA_MAX ||
        !copro_cp_dmabuf_alloc(s->cp, &s->hog, (uint32_t)bytes)) {
        return false;
    }
    for (uint64_t w = 0; w < nwork; w++) {
        copro_emit_work(&s->hog, c->work_ns);
        if ((w + 1) % per_block == 0 && k < HOG_BLOCKS) {
            copro_emit_fill(&s->hog, s->blocks + k * BLOCK, BLOCK,
                            block_pattern(k));
            k++;
        }
    }
    if (rest) {
        copro_emit_work(&s->hog, rest);
    }
    for (; k < HOG_BLOCKS; k++) {
        copro_emit_fill(&s->hog, s->blocks + k * BLOCK, BLOCK,
                        block_pattern(k));
    }
    copro_emit_copy(&s->hog, s->blocks_copy, s->blocks, HOG_BLOCKS * BLOCK);
    copro_emit_timestamp(&s->hog, s->hog_end_ts);
    return copro_dmabuf_ok(&s->hog);
}

static bool build_frames(struct hog_state *s)
{
    uint64_t bufs;
    uint8_t *cpu = copro_cp_alloc(s->cp, (uint64_t)s->nframes *
                                  FRAME_BUF_BYTES, 64, &bufs);

    if (!cpu) {
        return false;
    }
    for (unsigned i = 0; i < s->nframes; i++) {
        struct copro_dmabuf *b = &s->frame[i].buf;

        copro_dmabuf_init(b, cpu + i * FRAME_BUF_BYTES,
                          bufs + i * FRAME_BUF_BYTES, FRAME_BUF_BYTES);
        copro_emit_timestamp(b, s->frame_ts + i * 16);
        copro_emit_fill(b, s->frame_out + i * FRAME_BYTES, FRAME_BYTES,
                        frame_pattern(i));
        copro_emit_timestamp(b, s->frame_ts + i * 16 + 8);
        if (!copro_dmabuf_ok(b)) {
            return false;
        }
        s->frame[i].due = 0;
        s->frame[i].fence = 0;
    }
    return true;
}

static bool setup(struct report *r, struct hog_state *s)
{
    struct copro_cp *cp = s->cp;
    const char *err;
    bool ok;

    /* Rounded: 1 s at 16.667 ms is 60 frames, not 59. */
    s->nframes = (unsigned)((s->cfg.frames_ns + s->cfg.period_ns / 2) /
                            s->cfg.period_ns);
    if (s->nframes > MAX_FRAMES) {
        s->nframes = MAX_FRAMES;
    }
    copro_preempt_init(&s->pe, cp, ENGINE);
    err = copro_context_init(cp, &s->lo, CTX_HOG, PRIO_LOW);
    if (!err) {
        err = copro_context_init(cp, &s->hi, CTX_FRAMES, PRIO_HIGH);
    }
    if (!report(r, err == NULL, "contexts with save areas%s%s",
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    if (!report(r, copro_cp_alloc(cp, HOG_BLOCKS * BLOCK, 64, &s->blocks) &&
                copro_cp_alloc(cp, HOG_BLOCKS * BLOCK, 64, &s->blocks_copy) &&
                copro_cp_alloc(cp, 8, 8, &s->hog_end_ts) &&
                copro_cp_alloc(cp, (uint64_t)MAX_FRAMES * 16, 64,
                               &s->frame_ts) &&
                copro_cp_alloc(cp, (uint64_t)MAX_FRAMES * FRAME_BYTES, 64,
                               &s->frame_out), "output areas allocated")) {
        return false;
    }
    vram_zero(cp, s->blocks, HOG_BLOCKS * BLOCK);
    vram_zero(cp, s->blocks_copy, HOG_BLOCKS * BLOCK);
    vram_zero(cp, s->hog_end_ts, 8);
    vram_zero(cp, s->frame_ts, (uint64_t)MAX_FRAMES * 16);
    vram_zero(cp, s->frame_out, (uint64_t)MAX_FRAMES * FRAME_BYTES);
    ok = build_hog(s);
    if (!report(r, ok, "hog buffer: %lu ms of WORK in %lu us packets, %u "
                "FILLs, COPY, TIMESTAMP (%u bytes)", s->cfg.hog_ns / MS,
                s->cfg.work_ns / US, HOG_BLOCKS,
                copro_dmabuf_bytes(&s->hog))) {
        return false;
    }
    return report(r, build_frames(s), "%u frame buffers, one every %lu us "
                  "for %lu ms", s->nframes, s->cfg.period_ns / US,
                  s->cfg.frames_ns / MS);
}

static void fail(struct hog_state *s, const char *why)
{
    if (!s->error) {
        s->error = why;
    }
}

static bool hog_on_ring(const struct hog_state *s)
{
    return copro_preempt_find(&s->pe, HOG_TAG) != NULL;
}

static unsigned frames_on_ring(const struct hog_state *s)
{
    unsigned n = 0;

    for (unsigned i = 0; i < s->next_submit; i++) {
        n += copro_preempt_find(&s->pe, i) != NULL;
    }
    return n;
}

/* PREEMPTED arrived: whatever of the hog did not complete goes back to
 * the low-priority queue (the plan), to run after the frames. */
static void preemption_done(struct hog_state *s)
{
    const char *err = copro_preempt_settle(&s->pe, &s->plan);

    if (err) {
        fail(s, err);
        return;
    }
    for (unsigned i = 0; i < s->plan.count; i++) {
        if (s->plan.entry[i].sub.tag != HOG_TAG) {
            /* Frames are never on the ring when preemption is asked. */
            fail(s, "a frame was on the ring at a preemption");
        }
    }
    s->hog_redo = s->plan.preempted + s->plan.dropped > 0;
}

/* Frames that became ready are handed to the engine, or the hog is
 * preempted to make room for them. */
static void schedule(struct hog_state *s, uint64_t now)
{
    while (s->next_due < s->nframes && now >= s->frame[s->next_due].due) {
        s->frame[s->next_due++].arrived = now;
    }
    if (s->pe.pending) {
        if (copro_preempt_done(&s->pe)) {
            preemption_done(s);
        } else {
            return;
        }
    }
    if (s->next_submit < s->next_due) {
        if (hog_on_ring(s)) {
            copro_preempt_request(&s->pe);
            return;
        }
        while (s->next_submit < s->next_due) {
            struct frame *f = &s->frame[s->next_submit];

            f->fence = copro_preempt_submit_buf(&s->pe, &s->hi, &f->buf, 0,
                                                s->next_submit);
            if (!f->fence) {
                break;      /* ring full: the rest go when it drains */
            }
            s->next_submit++;
        }
        return;
    }
    /* No frame waiting: the hog may run again once the frames are done. */
    if (s->hog_redo && frames_on_ring(s) == 0) {
        const char *err;

        copro_preempt_resubmit(&s->pe, &s->plan, UINT32_MAX, &err);
        if (err) {
            fail(s, err);
        }
        s->hog_redo = false;
    }
}

static bool irq_pending(void *ctx)
{
    struct hog_state *s = ctx;

    return s->cp->dev->irq.pending != 0;
}

static bool all_done(const struct hog_state *s)
{
    return s->next_submit == s->nframes && s->pe.outstanding.count == 0 &&
           !s->hog_redo && !s->pe.pending;
}

static void run(struct report *r, struct hog_state *s)
{
    struct copro_engine *eng = &s->cp->eng[ENGINE];
    uint64_t deadline;

    s->t0 = copro_gpu_time(s->cp);
    for (unsigned i = 0; i < s->nframes; i++) {
        s->frame[i].due = s->t0 + (uint64_t)(i + 1) * s->cfg.period_ns;
    }
    /* Generous: the hog plus every frame, plus a second. */
    deadline = s->t0 + 2 * s->cfg.hog_ns + s->cfg.frames_ns + 1000 * MS;
    if (!report(r, copro_preempt_submit_buf(&s->pe, &s->lo, &s->hog, 0,
                                            HOG_TAG) != 0,
                "hog submitted by the low-priority context")) {
        return;
    }
    for (;;) {
        uint64_t now, wake;

        copro_cp_dpc(s->cp);
        copro_preempt_retire(&s->pe);
        if (eng->halted) {
            fail(s, copro_fault_kind_name(eng->fault.kind));
            break;
        }
        now = copro_gpu_time(s->cp);
        schedule(s, now);
        if (s->error || all_done(s)) {
            break;
        }
        if (now > deadline) {
            fail(s, "timed out");
            break;
        }
        wake = s->next_due < s->nframes ? s->frame[s->next_due].due
                                        : deadline;
        wait_for(irq_pending, s, wake > now + 1000 ? wake - now : 1000,
                 NULL);
    }
    report(r, s->error == NULL, "scheduling: %s",
           s->error ? s->error : "no failure");
}

static void check_outputs(struct report *r, struct hog_state *s)
{
    static uint8_t want[HOG_BLOCKS * BLOCK];
    const volatile uint8_t *blocks = copro_cp_cpu_ptr(s->cp, s->blocks);
    const volatile uint8_t *copy = copro_cp_cpu_ptr(s->cp, s->blocks_copy);
    unsigned frames_ok = 0;

    for (unsigned k = 0; k < HOG_BLOCKS; k++) {
        uint32_t p = block_pattern(k);

        for (unsigned i = 0; i < BLOCK; i++) {
            want[k * BLOCK + i] = (uint8_t)(p >> (8 * (i & 3)));
        }
    }
    check_bytes(r, "hog FILL blocks after resume", blocks, want,
                sizeof(want));
    check_bytes(r, "hog final COPY of the blocks", copy, want, sizeof(want));
    for (unsigned i = 0; i < s->nframes; i++) {
        const volatile uint32_t *o = (const volatile uint32_t *)
            copro_cp_cpu_ptr(s->cp, s->frame_out + i * FRAME_BYTES);
        bool ok = true;

        for (unsigned w = 0; w < FRAME_BYTES / 4; w++) {
            ok &= o[w] == frame_pattern(i);
        }
        frames_ok += ok;
    }
    report(r, frames_ok == s->nframes, "frame outputs: %u of %u as expected",
           frames_ok, s->nframes);
}

int scenario_main(const struct boot_info *boot)
{
    static struct hog_state s;
    struct report r = { 0 };
    struct copro dev = { 0 };
    static struct copro_cp cp;
    uint64_t sorted[MAX_FRAMES];
    uint64_t med = 0, p99 = 0, max = 0, min = 0, hog_end = 0;
    unsigned started = 0, blocked = 0, early = 0;
    const char *mode = "?";
    uint64_t bound = 0, stat_max = 0, stat_n = 0;

    kprintf("hog: preemption of a long low-priority buffer by frames\n");
    s.cp = &cp;
    if (parse_config(&r, boot->cmdline, &s.cfg) &&
        scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES) &&
        setup(&r, &s)) {
        uint32_t gran = dev.info.preempt_caps;

        mode = copro_preempt_name(gran);
        report_info("preempt=%s (PREEMPT_CAPS %u)", mode, gran);
        run(&r, &s);

        hog_end = vram_read64(&cp, s.hog_end_ts);
        for (unsigned i = 0; i < s.nframes; i++) {
            uint64_t start = vram_read64(&cp, s.frame_ts + i * 16);

            if (start == 0 || start < s.frame[i].arrived) {
                continue;
            }
            s.latency[started++] = start - s.frame[i].arrived;
            /* Frames that arrived while the hog was still to finish. */
            if (s.frame[i].arrived < hog_end) {
                blocked += start >= hog_end;
                early += start < hog_end;
            }
        }
        report(&r, started == s.nframes, "frames completed with a start "
               "time after their submit: %u of %u", started, s.nframes);
        for (unsigned i = 0; i < started; i++) {
            sorted[i] = s.latency[i];
        }
        stats_sort_u64(sorted, started);
        min = started ? sorted[0] : 0;
        med = stats_percentile(sorted, started, 50);
        p99 = stats_percentile(sorted, started, 99);
        max = started ? sorted[started - 1] : 0;
        report(&r, hog_end >= s.t0 + s.cfg.hog_ns, "hog completed at %lu us "
               "(its WORK alone is %lu us)", (hog_end - s.t0) / US,
               s.cfg.hog_ns / US);
        check_outputs(&r, &s);

        switch (gran) {
        case COPRO_PREEMPT_MID_COMMAND:
        case COPRO_PREEMPT_COMMAND:
            /* The longest stretch between arbitration points, plus the
             * driver's own path. */
            bound = (gran == COPRO_PREEMPT_MID_COMMAND ? WORK_SLICE_NS
                                                       : s.cfg.work_ns) +
                    PACKET_NS + DRIVER_MARGIN_NS;
            report(&r, p99 < bound, "p99 submit-to-start latency %lu ns < "
                   "%lu ns (arbitration interval + driver margin)", p99,
                   bound);
            report(&r, s.pe.interrupted > 0 && s.pe.resumed > 0,
                   "the hog was preempted mid-buffer and resumed (%u "
                   "times)", s.pe.resumed);
            break;
        default:
            /* No arbitration point inside the hog: every frame that
             * arrived before it finished waited for all of it. */
            report(&r, early == 0 && blocked > 0, "%u frames that arrived "
                   "during the hog all started after it (%u started "
                   "earlier)", blocked, early);
            report(&r, s.pe.interrupted == 0, "the hog was never "
                   "interrupted (%u)", s.pe.interrupted);
            break;
        }
        stat_n = copro_read64(&dev, COPRO_ENG_BASE(ENGINE) +
                              COPRO_ENG_STAT_PREEMPTIONS);
        stat_max = copro_read64(&dev, COPRO_ENG_BASE(ENGINE) +
                                COPRO_ENG_STAT_PREEMPT_MAX);
        report_info("latency ns: min %lu median %lu p99 %lu max %lu; device "
                    "request-to-saved max %lu ns over %lu requests", min, med,
                    p99, max, stat_max, stat_n);
    }
    kprintf("METRICS {\"scenario\":\"hog\",\"mode\":\"%s\",\"hog_ms\":%lu,"
            "\"frames_ms\":%lu,\"period_us\":%lu,\"work_us\":%lu,"
            "\"frames\":%u,\"frames_started\":%u,\"lat_min_ns\":%lu,"
            "\"lat_median_ns\":%lu,\"lat_p99_ns\":%lu,\"lat_max_ns\":%lu,"
            "\"lat_bound_ns\":%lu,\"hog_done_ns\":%lu,"
            "\"preempt_requests\":%u,\"hog_interrupted\":%u,"
            "\"hog_resumed\":%u,\"hog_resubmitted\":%u,"
            "\"dev_preemptions\":%lu,\"dev_preempt_max_ns\":%lu,"
            "\"irqs\":%u,\"tests\":%u,\"failures\":%u}\n",
            mode, s.cfg.hog_ns / MS, s.cfg.frames_ns / MS,
            s.cfg.period_ns / US, s.cfg.work_ns / US, s.nframes, started,
            min, med, p99, max, bound, hog_end ? hog_end - s.t0 : 0,
            s.pe.requests, s.pe.interrupted, s.pe.resumed, s.pe.resubmitted,
            stat_n, stat_max, dev.irq.count, r.tests, r.failures);
    return report_summary(&r);
}
