/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * display: flip on vsync, driven from interrupt level, with frames drawn
 * by the GPU.
 *
 * Two surfaces in VRAM take turns (double buffering). Frame k is drawn by
 * the render engine into the surface not on screen: FILL with a
 * background colour, then RECTs through SET_TARGET: eight colour bars, a
 * border, a square that moves with k, and k's low twelve bits as a row of
 * lights. The frame is then presented with its fence; the driver
 * (kmd/copro_display) programs the flip from the ISR once the fence has
 * retired and the previous flip is done, and the flip happens at the next
 * vsync. Frame k + 1 is drawn as soon as frame k is on screen.
 *
 * Phase 1, on time: `frames` frames of light work: every frame must be
 * shown at the vsync after the previous one (0 missed vsyncs, measured
 * from FLIP_DONE). Phase 2, late: `late` frames each with WORK of 1.25
 * refresh periods: each must miss exactly one vsync. Then the picture on
 * screen (DISP_SCANOUT) must be, byte for byte, the last frame as a CPU
 * model of the same drawing gives it, and the other surface the frame
 * before. The cursor plane follows the square.
 *
 * Command line: irq=auto|msix|msi|intx, frames=N (60), late=N (6), and
 * the flag "hold": after the report, keep the last frame on screen and
 * idle (interrupts still served) instead of exiting, so that someone can
 * look at it (make show) or take a screendump. Virtual-time figures are
 * exact under -icount.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_display.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/wait.h"
#include "scenarios/common.h"

#define RING_ENTRIES    16
#define WIDTH           320
#define HEIGHT          200
#define PITCH           (WIDTH * 4 + 256)   /* rows are not packed */
#define SURFACE_BYTES   ((uint64_t)PITCH * HEIGHT)
#define CONTEXT         0x20
#define FLIP_TIMEOUT_NS (1000 * MS)

#define SQUARE          40
#define SQUARE_Y        70
#define LIGHTS          12
#define LIGHTS_Y        150
#define BORDER          4

static const uint32_t bar_colour[8] = {
    0x00ffffff, 0x00ffff00, 0x0000ffff, 0x0000ff00,
    0x00ff00ff, 0x00ff0000, 0x000000ff, 0x00000000,
};

struct rect {
    uint32_t x, y, w, h, colour;
};

/*
 * Frame k as a list of rectangles, in drawing order, after a FILL of the
 * whole surface (padding included) with the background. The GPU draws
 * this list; the CPU model below reads it the same way.
 */
static uint32_t frame_background(uint32_t k)
{
    return 0x00102040u + ((k * 3u) & 0x3fu);
}

static unsigned frame_rects(uint32_t k, struct rect *r)
{
    unsigned n = 0;

    for (unsigned i = 0; i < 8; i++) {
        r[n++] = (struct rect){ i * 40, 0, 40, 40, bar_colour[i] };
    }
    r[n++] = (struct rect){ 0, 0, WIDTH, BORDER, 0x00c0c0c0 };
    r[n++] = (struct rect){ 0, HEIGHT - BORDER, WIDTH, BORDER, 0x00c0c0c0 };
    r[n++] = (struct rect){ 0, 0, BORDER, HEIGHT, 0x00c0c0c0 };
    r[n++] = (struct rect){ WIDTH - BORDER, 0, BORDER, HEIGHT, 0x00c0c0c0 };
    r[n++] = (struct rect){ (k * 5) % (WIDTH - SQUARE), SQUARE_Y, SQUARE,
                            SQUARE, 0x00ff8000 };
    for (unsigned b = 0; b < LIGHTS; b++) {
        r[n++] = (struct rect){ 8 + b * 24, LIGHTS_Y, 16, 16,
                                (k >> b) & 1 ? 0x0000e000 : 0x00303030 };
    }
    return n;
}

#define MAX_RECTS   (8 + 4 + 1 + LIGHTS)

/* The CPU model: pixel (x, y) of frame k; x beyond WIDTH is padding. */
static uint32_t model_pixel(uint32_t k, const struct rect *r, unsigned n,
                            uint32_t x, uint32_t y)
{
    uint32_t px = frame_background(k);

    if (x >= WIDTH) {
        return px;
    }
    for (unsigned i = 0; i < n; i++) {
        if (x >= r[i].x && x < r[i].x + r[i].w && y >= r[i].y &&
            y < r[i].y + r[i].h) {
            px = r[i].colour;
        }
    }
    return px;
}

struct phase {
    const char *name;
    uint32_t frames;
    uint64_t work_ns;       /* extra GPU work per frame */
    uint64_t flips;
    uint64_t missed;
    uint64_t max_missed;
    uint64_t first_vsync, last_vsync;
    uint64_t t_start, t_end;
};

struct display_run {
    struct copro_cp *cp;
    struct copro_display disp;
    uint64_t surf[2];
    struct copro_dmabuf buf[2];
    uint64_t cursor_img;
    struct phase *phase;        /* the one whose flips are counted */
    uint32_t next_tag;          /* the tag the next flip must carry */
    uint32_t out_of_order;
    uint64_t flips_seen;
};

/* DPC-level upcall: one present on screen. */
static void on_flip(void *ctx, const struct copro_flip *f, uint64_t missed)
{
    struct display_run *run = ctx;
    struct phase *p = run->phase;

    run->out_of_order += f->tag != run->next_tag;
    run->next_tag = f->tag + 1;
    run->flips_seen++;
    if (!p) {
        return;
    }
    if (!p->flips) {
        p->first_vsync = f->vsync;
    }
    p->flips++;
    p->missed += missed;
    if (missed > p->max_missed) {
        p->max_missed = missed;
    }
    p->last_vsync = f->vsync;
    p->t_end = f->time;
}

static const struct copro_display_upcalls upcalls = {
    .flip_done = on_flip,
};

struct flip_wait {
    struct display_run *run;
    uint64_t flips;
};

static bool flip_seen(void *ctx)
{
    struct flip_wait *w = ctx;

    copro_cp_dpc(w->run->cp);
    copro_display_dpc(&w->run->disp);
    return w->run->flips_seen >= w->flips || w->run->cp->eng[0].halted;
}

/* Waits until `flips` flips have been seen in all. */
static bool wait_flips(struct display_run *run, uint64_t flips)
{
    struct flip_wait w = { .run = run, .flips = flips };

    if (flip_seen(&w)) {
        return true;
    }
    wait_for(flip_seen, &w, FLIP_TIMEOUT_NS, NULL);
    return run->flips_seen >= flips;
}

/* Draws frame k into surface k % 2 and presents it. */
static bool draw_and_present(struct report *r, struct display_run *run,
                             uint32_t k, uint64_t work_ns)
{
    struct copro_dmabuf *b = &run->buf[k & 1];
    uint64_t surf = run->surf[k & 1];
    struct rect rects[MAX_RECTS];
    unsigned n = frame_rects(k, rects);
    uint64_t fence;

    copro_dmabuf_reset(b);
    copro_emit_fill(b, surf, SURFACE_BYTES, frame_background(k));
    copro_emit_set_target(b, 0, &(struct copro_surface){
        .addr = surf, .pitch = PITCH, .width = WIDTH, .height = HEIGHT,
        .format = COPRO_FMT_XRGB8888 });
    for (unsigned i = 0; i < n; i++) {
        copro_emit_rect(b, 0, rects[i].x, rects[i].y, rects[i].w, rects[i].h,
                        rects[i].colour);
    }
    if (work_ns) {
        copro_emit_work(b, work_ns);
    }
    if (!copro_dmabuf_ok(b)) {
        return report(r, false, "frame %u: DMA buffer overflow", k);
    }
    fence = copro_cp_submit(run->cp, COPRO_ENGINE_RENDER, b, CONTEXT, 0);
    if (!fence) {
        return report(r, false, "frame %u: submission refused", k);
    }
    /* the cursor plane follows the square, above its top-left corner */
    copro_display_cursor(&run->disp, true,
                         (int16_t)((k * 5) % (WIDTH - SQUARE) + 20),
                         SQUARE_Y + 20, run->cursor_img);
    if (!copro_display_present(&run->disp, surf, COPRO_ENGINE_RENDER, fence,
                               k)) {
        return report(r, false, "frame %u: present queue full", k);
    }
    return true;
}

/*
 * Runs a phase: frame k is drawn once frame k - 1 is on screen, so the
 * surface it draws into is not being shown.
 */
static bool run_phase(struct report *r, struct display_run *run,
                      struct phase *p, uint32_t *k)
{
    run->phase = p;
    p->t_start = copro_read64(run->cp->dev, COPRO_REG_GPU_TIME);
    for (uint32_t i = 0; i < p->frames; i++, (*k)++) {
        if (*k > 0 && !wait_flips(run, *k)) {
            return report(r, false, "%s: frame %u never shown (engine %s)",
                          p->name, *k - 1,
                          run->cp->eng[0].halted ? "halted" : "idle");
        }
        if (!draw_and_present(r, run, *k, p->work_ns)) {
            return false;
        }
    }
    if (!wait_flips(run, *k)) {
        return report(r, false, "%s: last frame never shown", p->name);
    }
    return true;
}

/* Compares a surface with the model of frame k; reports one check. */
static bool check_frame(struct report *r, struct display_run *run,
                        unsigned which, uint32_t k, const char *what)
{
    const volatile uint32_t *px = (const volatile uint32_t *)
        copro_cp_cpu_ptr(run->cp, run->surf[which]);
    struct rect rects[MAX_RECTS];
    unsigned n = frame_rects(k, rects);
    uint64_t bad = 0, first = 0;
    uint32_t got = 0, want = 0;

    for (uint32_t y = 0; y < HEIGHT; y++) {
        for (uint32_t x = 0; x < PITCH / 4; x++) {
            uint32_t g = px[y * (PITCH / 4) + x];
            uint32_t w = model_pixel(k, rects, n, x, y);

            if (g != w) {
                if (!bad) {
                    first = (uint64_t)y << 32 | x;
                    got = g;
                    want = w;
                }
                bad++;
            }
        }
    }
    if (bad) {
        return report(r, false, "%s: %lu of %u pixels differ from frame %u, "
                      "first at (%lu, %lu): %#x, expected %#x", what, bad,
                      HEIGHT * PITCH / 4, k, first & 0xffffffff, first >> 32,
                      got, want);
    }
    return report(r, true, "%s: frame %u, all %u pixels (padding included) "
                  "as the model draws them", what, k, HEIGHT * PITCH / 4);
}

/*
 * A present the display refuses (a surface running past the end of VRAM):
 * the vsync raises DISPLAY_ERROR instead of FLIP_DONE and the screen goes
 * black. The driver must see the flip consumed, or its queue would stall:
 * the next present, the last frame again, is shown at the following vsync.
 */
static void check_refused(struct report *r, struct display_run *run,
                          uint32_t last)
{
    struct copro_display *d = &run->disp;
    uint64_t bad = run->cp->dev->info.vram_size - 64;
    uint64_t flips = run->flips_seen;
    uint32_t errors = d->errors, refused = d->flips_refused;

    run->phase = NULL;
    if (!report(r, copro_display_present(d, bad, COPRO_ENGINE_RENDER, 0,
                                         last + 1) &&
                copro_display_present(d, run->surf[last & 1],
                                      COPRO_ENGINE_RENDER, 0, last + 2),
                "presents of a bad and a good surface queued")) {
        return;
    }
    run->next_tag = last + 2;   /* the refused one is never shown */
    wait_flips(run, flips + 1);
    report(r, d->flips_refused == refused + 1 && d->errors == errors + 1 &&
           d->last_error == COPRO_DISP_ERR_ADDRESS &&
           copro_read64(run->cp->dev, COPRO_REG_DISP_ERROR_ADDR) == bad,
           "refused flip to %#lx seen by the driver (DISPLAY_ERROR, reason "
           "%u)", bad, d->last_error);
    report(r, run->flips_seen == flips + 1 && d->shown.tag == last + 2 &&
           d->shown.addr == run->surf[last & 1] && run->out_of_order == 0,
           "the next present shown after it (tag %u at %#lx)", d->shown.tag,
           d->shown.addr);
    check_frame(r, run, last & 1, last, "picture on screen again");
}

/* An arrow-ish cursor: opaque white edge, translucent body, clear rest. */
static void make_cursor(volatile uint32_t *img)
{
    for (uint32_t y = 0; y < COPRO_CURSOR_SIZE; y++) {
        for (uint32_t x = 0; x < COPRO_CURSOR_SIZE; x++) {
            uint32_t v = 0;

            if (y < 24 && x <= y / 2) {
                v = x == y / 2 || x == 0 ? 0xffffffffu : 0xa0000000u;
            }
            img[y * COPRO_CURSOR_SIZE + x] = v;
        }
    }
}

static void run_display(struct report *r, struct copro *dev,
                        struct copro_cp *cp, struct display_run *run,
                        struct phase *ph)
{
    struct copro_display_mode mode = {
        .width = WIDTH, .height = HEIGHT, .pitch = PITCH,
        .format = COPRO_FMT_XRGB8888,
    };
    uint64_t flips0, replaced0, missed_expected;
    uint32_t k = 0, last;
    const char *err;
    volatile uint32_t *cursor;

    run->cp = cp;
    err = copro_display_init(&run->disp, dev);
    if (!report(r, err == NULL, "display up: %u Hz, period %lu ns%s%s",
                run->disp.refresh, run->disp.period_ns, err ? ": " : "",
                err ? err : "")) {
        return;
    }
    copro_display_set_upcalls(&run->disp, &upcalls, run);
    for (unsigned i = 0; i < 2; i++) {
        if (!copro_cp_alloc(cp, SURFACE_BYTES, 4096, &run->surf[i]) ||
            !copro_cp_dmabuf_alloc(cp, &run->buf[i], 1024)) {
            report(r, false, "VRAM for surfaces and buffers");
            return;
        }
    }
    cursor = copro_cp_alloc(cp, COPRO_CURSOR_BYTES, 4096, &run->cursor_img);
    if (!report(r, cursor != NULL, "VRAM for the cursor image")) {
        return;
    }
    make_cursor(cursor);

    /* start on surface 1 (whatever it holds); frame 0 goes to surface 0 */
    err = copro_display_set_mode(&run->disp, &mode, run->surf[1]);
    if (!report(r, err == NULL, "mode %ux%u pitch %u XRGB8888 at %#lx%s%s",
                WIDTH, HEIGHT, PITCH, run->surf[1], err ? ": " : "",
                err ? err : "")) {
        return;
    }
    flips0 = copro_read64(dev, COPRO_REG_DISP_FLIPS);
    replaced0 = copro_read64(dev, COPRO_REG_DISP_FLIPS_REPLACED);

    ph[1].work_ns = run->disp.period_ns + run->disp.period_ns / 4;
    for (unsigned i = 0; i < 2; i++) {
        if (!run_phase(r, run, &ph[i], &k)) {
            return;
        }
    }
    copro_cp_dpc(cp);
    copro_display_dpc(&run->disp);
    last = k - 1;

    report(r, ph[0].flips == ph[0].frames && ph[0].missed == 0,
           "on time: %lu of %u frames shown, %lu vsyncs missed (vsyncs "
           "%lu to %lu)", ph[0].flips, ph[0].frames, ph[0].missed,
           ph[0].first_vsync, ph[0].last_vsync);
    missed_expected = ph[1].frames;
    report(r, ph[1].flips == ph[1].frames &&
           ph[1].missed == missed_expected && ph[1].max_missed == 1,
           "late (WORK %lu ns per frame): %lu of %u frames shown, %lu vsyncs "
           "missed (expected %lu, one per frame)", ph[1].work_ns,
           ph[1].flips, ph[1].frames, ph[1].missed, missed_expected);
    report(r, run->out_of_order == 0 && run->flips_seen == k,
           "every present shown once, in order (%lu flips, %u out of order)",
           run->flips_seen, run->out_of_order);
    report(r, copro_read64(dev, COPRO_REG_DISP_FLIPS) - flips0 == k &&
           copro_read64(dev, COPRO_REG_DISP_FLIPS_REPLACED) == replaced0,
           "device: %lu flips, none replaced (one flip in the hardware at "
           "a time)", copro_read64(dev, COPRO_REG_DISP_FLIPS) - flips0);
    report(r, run->disp.flips_programmed == k &&
           run->disp.flips_from_isr > 0 && run->disp.flips_refused == 0 &&
           run->disp.errors == 0 && run->disp.events_lost == 0,
           "driver: %u flips programmed, %u of them by the ISR (%u refused, "
           "%u display errors)", run->disp.flips_programmed,
           run->disp.flips_from_isr, run->disp.flips_refused,
           run->disp.errors);
    report(r, copro_read64(dev, COPRO_REG_DISP_SCANOUT) ==
           run->surf[last & 1] && run->disp.shown.addr == run->surf[last & 1],
           "on screen: surface %u at %#lx (DISP_SCANOUT %#lx)", last & 1,
           run->surf[last & 1], copro_read64(dev, COPRO_REG_DISP_SCANOUT));
    check_frame(r, run, last & 1, last, "picture on screen");
    check_frame(r, run, (last - 1) & 1, last - 1, "back buffer");
    check_refused(r, run, last);
    report(r, copro_read32(dev, COPRO_REG_DISP_STATUS) ==
           COPRO_DISP_STS_ACTIVE, "display active, no error (STATUS %#x)",
           copro_read32(dev, COPRO_REG_DISP_STATUS));
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    static struct display_run run;
    struct report r = { 0 };
    struct phase ph[2] = {
        { .name = "on time", .frames = 60 },
        { .name = "late", .frames = 6 },
    };
    uint64_t v;
    bool hold;

    report_info("copro display scenario, command line: \"%s\"",
                boot->cmdline);
    if (cmdline_get_u64(boot->cmdline, "frames", &v) > 0 && v >= 2 &&
        v < (1u << 30)) {
        ph[0].frames = (uint32_t)v;
    }
    if (cmdline_get_u64(boot->cmdline, "late", &v) > 0 && v < (1u << 20)) {
        ph[1].frames = (uint32_t)v;
    }
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES)) {
        run_display(&r, &dev, &cp, &run, ph);
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
    }
    hold = cmdline_has_flag(boot->cmdline, "hold");
    kprintf("METRICS {\"scenario\":\"display\",\"irq_mode\":\"%s\","
            "\"refresh\":%u,\"frames\":%u,\"late_frames\":%u,"
            "\"late_work_ns\":%lu,\"missed_on_time\":%lu,"
            "\"missed_late\":%lu,\"flips\":%lu,\"vsync_irqs\":%u,"
            "\"first_flip_vsync\":%lu,\"last_flip_vsync\":%lu,"
            "\"last_flip_ns\":%lu,\"irqs\":%u,"
            "\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), run.disp.refresh,
            ph[0].frames, ph[1].frames, ph[1].work_ns, ph[0].missed,
            ph[1].missed, run.flips_seen, run.disp.vsync_irqs,
            ph[0].first_vsync, ph[1].last_vsync, ph[1].t_end, dev.irq.count,
            r.tests, r.failures);
    if (!hold) {
        return report_summary(&r);
    }
    report_summary(&r);
    /* the line scripts/show-display.py waits for before its screendump */
    kprintf("HOLD: the last frame stays on screen\n");
    for (;;) {
        wait_ns(1000 * MS);
        copro_cp_dpc(&cp);
        copro_display_dpc(&run.disp);
    }
}
