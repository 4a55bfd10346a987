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
 * hog_packet_us= (1000: the WORK packet, the longest command a
 * preempt=command device must finish before it switches), hog=0 to leave
 * the hog out, game=0 to leave the game out, video=0 to leave the
 * video player out, sw_cursor=1 to
 * draw the cursor into the primary instead of on
 * the pointer plane, the other scheduler options of kernel/kboot.h, and
 * the flag "hold": after the report, keep the last frame on screen
 * (interrupts still served) instead of exiting, for a screendump or a
 * look (make run, make show). Under fifo the compositor misses vblanks
 * behind the hog; under priority and quantum it must not (make bench
 * counts them; the checks here are about content only).
 *
 * tiled=1 adds a scene-based application (apps/tiledgame.h, GPU-VA mode):
 * a NORMAL game rendering overdraw-heavy 256 x 192 scenes, geometry on
 * engine 0 and its tile passes on tile_engine= (0 by default: the
 * compositor's engine, so that the compositor's frames preempt its long
 * tile passes at tile boundaries; 2 on a device with engines=3 runs them
 * beside everything else), tiled_frames= (40) of them, each checked
 * pixel by pixel, beside the same applications and the same checks.
 *
 * scenes=1: the compositor composes in scenes (apps/compositor.h, "In
 * scenes"): geometry on engine 0, tile passes on tile_engine= too, the
 * windows' surfaces and its primaries through GPU-VA views; the picture
 * on screen, and every check, are the same. With tiled=1 too, the whole
 * desktop is scene-based.
 */
#include <stdint.h>

#include "apps/compositor.h"
#include "apps/hog.h"
#include "apps/tiledgame.h"
#include "apps/winapp.h"
#include "kernel/kloop.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define HOG_MAX_MS      ((uint64_t)10000)
#define HOG_PACKET_NS   (1 * MS)
#define HOG_MAX_PACKET_US   100000
#define SCREEN_W        640
#define SCREEN_H        480

static struct os_scenario s;
static struct compositor comp;
static struct winapp cursor, game, video;
static struct hog hog;
static struct tiledgame tiled;
static uint32_t hog_cmd[(HOG_MAX_MS * MS / HOG_PACKET_NS + 64) * 3 + 256];

struct desktop_options {
    uint64_t hog_ms, hog_packet_us, with_hog, with_game, with_video;
    uint64_t sw_cursor;
    uint64_t tiled, tiled_frames, tile_engine, scenes;
};

/* The scene-based game: a full-size scene (48 tiles) per frame. */
static bool setup_tiled(const struct desktop_options *o)
{
    struct kernel *k = &s.boot.k;
    struct tiledgame_config tc;
    int st;

    tiledgame_config_default(&tc);
    tc.frames = (unsigned)o->tiled_frames;
    tc.tile_engine = (unsigned)o->tile_engine;
    tc.width = TILEDGAME_MAX_W;
    tc.height = TILEDGAME_MAX_H;
    tc.seed = 5;
    st = tiledgame_init(&tiled, k, "tiled", &tc);
    os_add_app(&s, tiledgame_app(&tiled));
    return report(&s.r, st == DDI_OK, "tiled: %u scenes of %u x %u in "
                  "GPU-VA mode, geometry on engine 0, tile passes on engine "
                  "%u (%s)", tc.frames, tc.width, tc.height, tc.tile_engine,
                  ddi_status_name(st));
}

static bool setup(const struct desktop_options *o)
{
    struct kernel *k = &s.boot.k;
    struct winapp_config wc;
    struct hog_config hc = {
        .prio = VIDSCH_PRIO_BELOW_NORMAL, .hog_ns = o->hog_ms * MS,
        .work_packet_ns = o->hog_packet_us * US,
    };
    bool with_video = o->with_video != 0, sw_cursor = o->sw_cursor != 0;

    compositor_init(&comp, k, "compositor", sw_cursor);
    if (o->scenes &&
        !report(&s.r, compositor_use_scenes(&comp, (unsigned)o->tile_engine)
                      == DDI_OK, "compositor: composes in scenes, tile "
                "passes on engine %lu", o->tile_engine)) {
        return false;
    }
    cursor_config_default(&wc);
    winapp_init(&cursor, k, "cursor", &wc);
    if (o->with_game) {
        game_config_default(&wc);
        winapp_init(&game, k, "game", &wc);
    }
    if (with_video) {
        video_config_default(&wc);
        winapp_init(&video, k, "video", &wc);
    }
    if (o->with_hog &&
        !report(&s.r, hog_cmd_bytes(&hc) <= sizeof(hog_cmd),
                "hog buffer of %lu ms fits its storage", o->hog_ms)) {
        return false;
    }
    if (o->with_hog) {
        hog_init(&hog, k, "hog", &hc, hog_cmd, sizeof(hog_cmd));
    }

    report(&s.r, (!o->with_game ||
                  compositor_add_window(&comp, &game, 24, 40,
                                        0x002060c0) == DDI_OK) &&
           (!with_video ||
            compositor_add_window(&comp, &video, 368, 72,
                                  0x00a04020) == DDI_OK) &&
           compositor_set_cursor(&comp, &cursor) == DDI_OK,
           "windows and cursor given to the compositor (%s)",
           comp.hw_cursor ? "pointer plane" : "cursor drawn in the primary");

    os_add_app(&s, compositor_app(&comp));
    os_add_app(&s, winapp_app(&cursor));
    if (o->with_game) {
        os_add_app(&s, winapp_app(&game));
    }
    if (with_video) {
        os_add_app(&s, winapp_app(&video));
    }
    if (o->with_hog) {
        os_add_app(&s, hog_app(&hog));
    }
    return !o->tiled || setup_tiled(o);
}

/* The scene-based game's tile passes: preempted (at tile boundaries) by
 * the compositor's frames when they share its engine. */
/* The compositor in scenes: every frame it presented was a scene. */
static void check_scenes(void)
{
    report(&s.r, comp.sc.on && comp.sc.scenes == comp.presents &&
           comp.presents > 0, "compositor: %lu frames composed as scenes "
           "(geometry on engine 0, tile passes on engine %u), %lu "
           "presented (their pixels checked above)", comp.sc.scenes,
           comp.sc.tile_engine, comp.presents);
}

static struct vidsch_ctx_stats tiled_cs;

static void check_tiled(const struct desktop_options *o)
{
    struct vidsch_ctx_stats cs = { 0 };
    int st;

    st = kapi_context_stats(tiled.app.proc, tiled.sp.htile, &cs);
    tiled_cs = cs;
    if (o->tile_engine == COPRO_ENGINE_RENDER || o->scenes) {
        report(&s.r, st == DDI_OK && cs.preemptions > 0 && cs.resumed > 0,
               "tiled: its tile passes on the compositor's engine were "
               "preempted %lu times and resumed %lu times (at tile "
               "boundaries: its pixels are exact)%s", cs.preemptions,
               cs.resumed, o->scenes ? " for the compositor's scenes" : "");
    }
    kprintf("# tiled: tile context preempted %lu times, resumed %lu\n",
            cs.preemptions, cs.resumed);
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
    uint64_t duration_ms = 2000;
    struct desktop_options o = {
        .hog_ms = 1500, .hog_packet_us = HOG_PACKET_NS / US, .with_hog = 1,
        .with_game = 1, .with_video = 1, .tiled_frames = 40,
        .tile_engine = COPRO_ENGINE_RENDER,
    };
    struct vidsch_engine_stats es0 = { 0 };
    char hog_done[16];
    int rc;

    kprintf("desktop: compositor, cursor, game, video and hog share the "
            "GPU and the display\n");
    s.boot.display.width = SCREEN_W;
    s.boot.display.height = SCREEN_H;
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "hog_ms", &o.hog_ms) &&
        os_option(&s, boot, "hog_packet_us", &o.hog_packet_us) &&
        os_option(&s, boot, "hog", &o.with_hog) &&
        os_option(&s, boot, "game", &o.with_game) &&
        os_option(&s, boot, "video", &o.with_video) &&
        os_option(&s, boot, "sw_cursor", &o.sw_cursor) &&
        os_option(&s, boot, "tiled", &o.tiled) &&
        os_option(&s, boot, "tiled_frames", &o.tiled_frames) &&
        os_option(&s, boot, "tile_engine", &o.tile_engine) &&
        os_option(&s, boot, "scenes", &o.scenes) &&
        report(&s.r, duration_ms > 0 && o.hog_ms > 0 &&
               o.hog_ms <= HOG_MAX_MS && o.hog_packet_us > 0 &&
               o.hog_packet_us <= HOG_MAX_PACKET_US,
               "duration %lu ms, hog buffers of %lu ms (at most %lu) in "
               "packets of %lu us (at most %u)", duration_ms, o.hog_ms,
               HOG_MAX_MS, o.hog_packet_us, HOG_MAX_PACKET_US) &&
        (!(o.tiled || o.scenes) ||
         report(&s.r, o.tiled_frames > 0 &&
                o.tile_engine < COPRO_MAX_ENGINES,
                "scenes: %lu of the tiled game, tile passes on engine %lu",
                o.tiled_frames, o.tile_engine))) {
        if (o.tiled || o.scenes) {
            /* the scene-based applications' GPU-VA memory */
            s.boot.gpuva_vram = 4u << 20;
        }
    }
    if (!s.r.failures && os_boot(&s, boot, NULL) && setup(&o)) {
        os_run(&s, duration_ms * MS, 4 * o.hog_ms * MS + 1000 * MS);
        kprintf("\npolicy %s, quantum %lu us, %lu ms; engine busy %u.%u %%; "
                "hog's first buffer done %s\n",
                vidsch_policy_name(s.sched.policy), s.sched.quantum_ns / US,
                duration_ms, os_busy_permille(&s) / 10,
                os_busy_permille(&s) % 10,
                o.with_hog && hog.first_done_ns
                    ? os_fmt_ns(hog_done, sizeof(hog_done),
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
        if (o.scenes) {
            check_scenes();
        }
        if (o.tiled) {
            check_tiled(&o);
        }
        os_check_hwsched(&s);
    }
    if (s.boot.k.vs) {
        es0 = *vidsch_engine_stats(s.boot.k.vs, COPRO_ENGINE_RENDER);
    }
    os_check_dmabuf(&s);
    kprintf("METRICS {\"scenario\":\"desktop\",\"policy\":\"%s\","
            "\"quantum_us\":%lu,\"duration_ms\":%lu,\"hog_ms\":%lu,"
            "\"hog_done_ns\":%lu,\"busy_permille\":%u,"
            "\"preemptions\":%lu,\"wasted_preemptions\":%lu,"
            "\"preempts_deferred\":%lu,\"switch_ns\":%lu,"
            "\"display\":{\"vblanks\":%lu,\"presents\":%lu,"
            "\"flips\":%lu,\"missed_vblanks\":%lu,\"late_flips\":%lu,"
            "\"max_missed\":%lu}",
            vidsch_policy_name(s.sched.policy), s.sched.quantum_ns / US,
            duration_ms, o.hog_ms, hog.first_done_ns,
            os_busy_permille(&s), es0.preemptions, es0.wasted_preemptions,
            es0.preempts_deferred, es0.switch_ns,
            comp.vsync_stop - comp.vsync_start,
            comp.presents, comp.flips, comp.missed, comp.late_flips,
            comp.max_missed);
    kprintf(",\"compositor\":{\"scenes\":%s,\"composed\":%lu,"
            "\"compose_ns_avg\":%lu,\"compose_ns_max\":%lu}",
            comp.sc.on ? "true" : "false", comp.composed,
            comp.composed ? comp.compose_ns_sum / comp.composed : 0,
            comp.compose_ns_max);
    if (o.tiled) {
        /* its tile context's preemptions (the app's are its geometry's) */
        kprintf(",\"tiled\":{\"frames\":%lu,\"tile_preemptions\":%lu,"
                "\"tile_resumed\":%lu}", tiled.frames_checked,
                tiled_cs.preemptions, tiled_cs.resumed);
    }
    os_print_dmabuf_json(&s);
    os_print_apps_json(&s);
    os_print_mem_json(&s);
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
