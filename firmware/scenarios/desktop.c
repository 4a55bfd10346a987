/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * desktop: what `make run` boots. A compositor (HIGH, a frame at every
 * vsync, presented and flipped on vsync), a cursor (REALTIME, tiny, every
 * frame, on the display's pointer plane), a game (NORMAL, heavy frames
 * back to back, in a window), a video player (ABOVE_NORMAL, 30 fps, in a
 * second window) and a hog (BELOW_NORMAL, one multi-second WORK buffer
 * after the other) share the GPU for a virtual duration on a 640 x 480
 * display; then every application drains, its output is
 * checked by content (the picture on screen pixel for pixel against the
 * applications' models of what they drew), and the per-application
 * table, the display's figures, one SCREEN line (the CRC-32 of the
 * screen as QEMU shows it, and sample pixels, for a host screendump to
 * match) and one METRICS line are printed.
 *
 * Command line: irq=..., policy=fifo|priority|quantum (default quantum),
 * quantum_us=, duration_ms= (2000), hog_ms= (1500: WORK per hog buffer),
 * video=0 to leave the video player out, sw_cursor=1 to draw the cursor
 * into the primary instead of on
 * the pointer plane, the other scheduler options of kernel/kboot.h, and
 * the flag "hold": after the report, keep the last frame on screen
 * (interrupts still served) instead of exiting, for a screendump or a
 * look (make run, make show). Under fifo the compositor misses vblanks
 * behind the hog; under priority and quantum it must not (make bench
 * counts them; the checks here are about content only).
 */
#include <stdint.h>

#include "apps/compositor.h"
#include "apps/hog.h"
#include "apps/winapp.h"
#include "kernel/kloop.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define HOG_MAX_MS      ((uint64_t)10000)
#define HOG_PACKET_NS   (1 * MS)
#define SCREEN_W        640
#define SCREEN_H        480

static struct os_scenario s;
static struct compositor comp;
static struct winapp cursor, game, video;
static struct hog hog;
static uint32_t hog_cmd[(HOG_MAX_MS * MS / HOG_PACKET_NS + 64) * 3 + 256];

static bool setup(uint64_t hog_ms, bool with_video, bool sw_cursor)
{
    struct kernel *k = &s.boot.k;
    struct winapp_config wc;
    struct hog_config hc = {
        .prio = VIDSCH_PRIO_BELOW_NORMAL, .hog_ns = hog_ms * MS,
        .work_packet_ns = HOG_PACKET_NS,
    };

    compositor_init(&comp, k, "compositor", sw_cursor);
    cursor_config_default(&wc);
    winapp_init(&cursor, k, "cursor", &wc);
    game_config_default(&wc);
    winapp_init(&game, k, "game", &wc);
    if (with_video) {
        video_config_default(&wc);
        winapp_init(&video, k, "video", &wc);
    }
    if (!report(&s.r, hog_cmd_bytes(&hc) <= sizeof(hog_cmd),
                "hog buffer of %lu ms fits its storage", hog_ms)) {
        return false;
    }
    hog_init(&hog, k, "hog", &hc, hog_cmd, sizeof(hog_cmd));

    report(&s.r, compositor_add_window(&comp, &game, 24, 40,
                                       0x002060c0) == DDI_OK &&
           (!with_video ||
            compositor_add_window(&comp, &video, 368, 72,
                                  0x00a04020) == DDI_OK) &&
           compositor_set_cursor(&comp, &cursor) == DDI_OK,
           "windows and cursor given to the compositor (%s)",
           comp.hw_cursor ? "pointer plane" : "cursor drawn in the primary");

    os_add_app(&s, compositor_app(&comp));
    os_add_app(&s, winapp_app(&cursor));
    os_add_app(&s, winapp_app(&game));
    if (with_video) {
        os_add_app(&s, winapp_app(&video));
    }
    os_add_app(&s, hog_app(&hog));
    return true;
}

/* The screen as the guest knows it: a host compares its screendump. */
static void print_screen(void)
{
    const struct compositor_screen *sc = compositor_screen(&comp);

    if (!sc->valid) {
        return;
    }
    kprintf("SCREEN {\"width\":%u,\"height\":%u,\"frame\":%lu,\"vsync\":%lu,"
            "\"time_ns\":%lu,\"flips\":%lu,\"crc32\":%u,\"samples\":[",
            sc->width, sc->height, sc->frame, sc->vsync, sc->time,
            comp.flips, sc->crc);
    for (unsigned i = 0; i < sc->nsamples; i++) {
        kprintf("%s{\"what\":\"%s\",\"x\":%u,\"y\":%u,\"rgb\":\"%06x\"}",
                i ? "," : "", sc->sample[i].what, sc->sample[i].x,
                sc->sample[i].y, sc->sample[i].rgb);
    }
    kprintf("]}\n");
}

static bool never(void *arg)
{
    (void)arg;
    return false;
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 2000, hog_ms = 1500, with_video = 1;
    uint64_t sw_cursor = 0;
    struct vidsch_engine_stats es0 = { 0 };
    char hog_done[16];
    int rc;

    kprintf("desktop: compositor, cursor, game, video and hog share the "
            "GPU and the display\n");
    s.boot.display.width = SCREEN_W;
    s.boot.display.height = SCREEN_H;
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "hog_ms", &hog_ms) &&
        os_option(&s, boot, "video", &with_video) &&
        os_option(&s, boot, "sw_cursor", &sw_cursor) &&
        report(&s.r, duration_ms > 0 && hog_ms > 0 && hog_ms <= HOG_MAX_MS,
               "duration %lu ms, hog buffers of %lu ms (at most %lu)",
               duration_ms, hog_ms, HOG_MAX_MS) &&
        os_boot(&s, boot, NULL) &&
        setup(hog_ms, with_video != 0, sw_cursor != 0)) {
        os_run(&s, duration_ms * MS, 4 * hog_ms * MS + 1000 * MS);
        kprintf("\npolicy %s, quantum %lu us, %lu ms; engine busy %u.%u %%; "
                "hog's first buffer done %s\n",
                vidsch_policy_name(s.sched.policy), s.sched.quantum_ns / US,
                duration_ms, os_busy_permille(&s) / 10,
                os_busy_permille(&s) % 10,
                hog.first_done_ns ? os_fmt_ns(hog_done, sizeof(hog_done),
                                              hog.first_done_ns)
                                  : "never");
        os_print_table(&s);
        {
            const struct vidsch_engine_stats *es =
                vidsch_engine_stats(s.boot.k.vs, COPRO_ENGINE_RENDER);

            kprintf("render engine: %lu preemptions (%lu mid-buffer, %lu "
                    "wasted), %lu deferred for the switch cost (%lu us per "
                    "save)\n", es->preemptions, es->preempted_mid_buffer,
                    es->wasted_preemptions, es->preempts_deferred,
                    es->switch_ns / US);
        }
        kprintf("display: %lu vblanks while the compositor ran, %lu "
                "presents, %lu flips, %lu vblanks missed (FLIP_DONE), %lu "
                "flips late, at most %lu vblanks late\n",
                comp.vsync_stop - comp.vsync_start, comp.presents,
                comp.flips, comp.missed, comp.late_flips, comp.max_missed);
        print_screen();
        os_check_hwsched(&s);
    }
    if (s.boot.k.vs) {
        es0 = *vidsch_engine_stats(s.boot.k.vs, COPRO_ENGINE_RENDER);
    }
    kprintf("METRICS {\"scenario\":\"desktop\",\"policy\":\"%s\","
            "\"quantum_us\":%lu,\"duration_ms\":%lu,\"hog_ms\":%lu,"
            "\"hog_done_ns\":%lu,\"busy_permille\":%u,"
            "\"preemptions\":%lu,\"wasted_preemptions\":%lu,"
            "\"preempts_deferred\":%lu,\"switch_ns\":%lu,"
            "\"display\":{\"vblanks\":%lu,\"presents\":%lu,"
            "\"flips\":%lu,\"missed_vblanks\":%lu,\"late_flips\":%lu,"
            "\"max_missed\":%lu}",
            vidsch_policy_name(s.sched.policy), s.sched.quantum_ns / US,
            duration_ms, hog_ms, hog.first_done_ns,
            os_busy_permille(&s), es0.preemptions, es0.wasted_preemptions,
            es0.preempts_deferred, es0.switch_ns,
            comp.vsync_stop - comp.vsync_start,
            comp.presents, comp.flips, comp.missed, comp.late_flips,
            comp.max_missed);
    os_print_apps_json(&s);
    os_print_sched_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests,
            s.r.failures);
    rc = report_summary(&s.r);
    if (!cmdline_has_flag(boot->cmdline, "hold") ||
        !compositor_screen(&comp)->valid) {
        return rc;
    }
    /* the line scripts/show-display.py waits for before its screendump */
    kprintf("HOLD: the last frame stays on screen\n");
    kernel_run(&s.boot.k, never, NULL);
    return rc;
}
