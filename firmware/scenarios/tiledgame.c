/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiledgame: scene-based rendering on the OS (GPU-VA mode). Two games
 * render the same overdraw-heavy scenes (apps/tiledgame.h), geometry on
 * engine 0 and tile passes on engine 2 when the device has three
 * engines: one with a parameter buffer large enough for a scene, one
 * with a small one that the geometry overflows, so that the device stops
 * it with TILER_OOM, the kernel (vidmm's policy, vidmm_pb) grows the
 * buffer and vidsch resumes the stopped geometry. Both games' pixels are
 * checked against the CPU's drawing of each frame, so the grown scenes
 * must give the pixels of the uninterrupted ones. A third game renders
 * the same frames as the second with a buffer that may not grow (no
 * budget left) but with its partial render given to the kernel: every
 * OOM is answered by a partial render on the kernel's context before the
 * geometry resumes; its pixels are checked against the CPU's and its
 * frames compared with the growing game's, frame by frame (grow and
 * partial render give the same pixels). Two games' OOMs cannot be
 * answered: one gave no partial render and may not grow, one's heap is
 * smaller than a full-target primitive (an emptied heap cannot hold it):
 * each alone is put in error (its device lost), the others are not
 * disturbed. Then (a second phase) a
 * desktop in scenes: a game (NORMAL) with long tile passes and a
 * compositor (HIGH) with short scenes, both tile passes on the tile
 * engine: vidsch preempts the game's passes for the compositor's, the
 * device stops them at tile boundaries, and both games' pixels stay
 * exact (the test runs the device with tile-ns=100000 so that a pass is
 * long enough to be caught).
 *
 * With hardware scheduling (hwsched=1) every context is a hardware queue:
 * an OOM stops only that queue (OOM_WAIT), the kernel is asked as for a
 * ring and the queue answered (grow: it resumes; a partial render on the
 * kernel's context, itself a hardware queue: it resumes once the render's
 * fence is reached; else it fails, and that context alone is lost); the
 * same checks, and the per-queue answers counted.
 *
 * Command line: irq=..., frames= (4), hwsched=1.
 */
#include <stdint.h>

#include <copro/copro_tiler.h>

#include "apps/tiledgame.h"
#include "kernel/kapi.h"
#include "lib/console.h"
#include "scenarios/os_common.h"
#include "vidmm/vidmm_pb.h"

static struct os_scenario s;
static struct tiledgame big, small, partial, badpartial, nogrow, tiny, game,
                        comp;

/* Every engine's resets and faults so far. */
static void engine_troubles(struct kernel *k, uint64_t *resets,
                            uint64_t *faults)
{
    *resets = *faults = 0;
    for (unsigned e = 0; e < k->caps.engines; e++) {
        *resets += vidsch_engine_stats(k->vs, e)->resets;
        *faults += vidsch_engine_stats(k->vs, e)->faults;
    }
}

/*
 * A lost game's device is stopped as a whole: its tile context ran the
 * passes of the scenes it finished, one each, and nothing after (the
 * pass held on the lost geometry's signal was dropped, never run over
 * an unclosed scene); later calls get DDI_ELOST.
 */
static bool tile_ctx_stopped(struct tiledgame *g)
{
    struct vidsch_ctx_stats cs = { 0 };
    struct app *a = tiledgame_app(g);

    return kapi_context_stats(a->proc, g->sp.htile, &cs) == DDI_OK &&
           cs.started == g->frames_checked &&
           cs.completed == g->frames_checked &&
           kapi_context_error(a->proc, g->sp.htile) == DDI_ELOST;
}

/* The restarted and resubmitted buffers of a game's two contexts. */
static uint64_t disturbed(struct tiledgame *g)
{
    struct vidsch_ctx_stats gs = { 0 }, ts = { 0 };
    struct app *a = tiledgame_app(g);

    kapi_context_stats(a->proc, a->hctx, &gs);
    kapi_context_stats(a->proc, g->sp.htile, &ts);
    return gs.resubmitted + ts.resubmitted;
}

/* The partial-render games' checks. */
static void partial_report(uint64_t frames, struct vidmm_pb *pb_part,
                           struct vidmm_pb *pb_bad)
{
    kapi_scene_pb_stats(partial.app.proc, partial.sp.hpb, pb_part);
    report(&s.r, pb_part->partials > 0 && pb_part->grows == 0 &&
           pb_part->fails == 0 && pb_part->size == 1024 &&
           partial.scene_partials == pb_part->partials,
           "tiled-partial: %u TILER_OOM answered by %u partial renders "
           "(%lu counted by the device in the scene headers), no grow, "
           "the stopped geometry resumed after each", pb_part->ooms,
           pb_part->partials, partial.scene_partials);
    {
        unsigned n = (unsigned)frames < TILEDGAME_CRC_FRAMES
                     ? (unsigned)frames : TILEDGAME_CRC_FRAMES;
        unsigned same = 0;

        for (unsigned f = 0; f < n; f++) {
            same += partial.crc[f] == small.crc[f] &&
                    partial.crc[f] != 0;
        }
        report(&s.r, same == n && partial.frames_checked == frames &&
               small.frames_checked == frames,
               "tiled-partial's frames equal tiled-small's (the same "
               "seed: grow against partial render), %u of %u frames",
               same, n);
    }
    kapi_scene_pb_stats(badpartial.app.proc, badpartial.sp.hpb, pb_bad);
    /* the fault removed its device: its geometry, held on the partial
     * render, was lost with it and never resumed (so never stopped
     * again) */
    report(&s.r, pb_bad->partials == 1 && pb_bad->fails == 0 &&
           pb_bad->ooms == 1 && badpartial.frames_checked == 0 &&
           kapi_context_error(badpartial.app.proc,
                              badpartial.app.hctx) == DDI_ELOST,
           "tiled-badpartial: its partial render faulted, its held "
           "geometry was lost with its device, never resumed (%u OOM, %u "
           "refused): only its device was lost", pb_bad->ooms,
           pb_bad->fails);
}

/*
 * Hardware queues: the OOM stops of the geometry engine's queues, each
 * answered per queue: the grows resumed, the others failed their queue
 * (tiled-nogrow's and tiled-tiny's contexts alone lost).
 */
static void hwsched_oom_report(struct kernel *k)
{
    const struct vidsch_engine_stats *es =
        vidsch_engine_stats(k->vs, COPRO_ENGINE_RENDER);

    report(&s.r, es->tiler_ooms > 0 && es->tiler_oom_resumed > 0 &&
           es->tiler_oom_partial > 0 && es->tiler_oom_failed >= 2 &&
           es->tiler_ooms == es->tiler_oom_resumed + es->tiler_oom_partial +
                             es->tiler_oom_failed,
           "hwsched: %lu OOM stops of hardware queues answered per queue: "
           "%lu resumed after a grow, %lu after a partial render on the "
           "kernel's queue, %lu failed (their contexts alone lost)",
           es->tiler_ooms, es->tiler_oom_resumed, es->tiler_oom_partial,
           es->tiler_oom_failed);
}

int scenario_main(const struct boot_info *boot)
{
    struct kernel *k = &s.boot.k;
    struct tiledgame_config c;
    struct vidmm_pb pb_big = { 0 }, pb_small = { 0 }, pb_part = { 0 };
    struct vidmm_pb pb_bad = { 0 };
    struct vidsch_ctx_stats cs = { 0 };
    uint64_t frames = 4, resets1 = 0, faults1 = 0, resets, faults;
    bool hw = false;
    int st;

    kprintf("tiledgame: scenes with a parameter buffer that grows\n");
    s.boot.gpuva_vram = 4u << 20;
    if (os_boot(&s, boot, NULL) &&
        os_option(&s, boot, "frames", &frames)) {
        tiledgame_config_default(&c);
        c.frames = (unsigned)frames;
        c.tile_engine = k->caps.engines >= 3 ? 2 : COPRO_ENGINE_RENDER;
        hw = vidsch_hwsched(k->vs);
        st = tiledgame_init(&big, k, "tiled-big", &c);
        report(&s.r, st == DDI_OK, "tiled-big: parameter buffer of %u "
               "bytes, geometry on engine 0, tile passes on engine %u (%s)",
               c.pb_size, c.tile_engine, ddi_status_name(st));
        os_add_app(&s, tiledgame_app(&big));
        /* room for the tile table and a few primitives only */
        c.pb_size = 1024;
        c.seed = 1;             /* the same frames */
        st = tiledgame_init(&small, k, "tiled-small", &c);
        report(&s.r, st == DDI_OK, "tiled-small: parameter buffer of %u "
               "bytes that may grow to %u (%s)", c.pb_size, c.pb_reserved,
               ddi_status_name(st));
        os_add_app(&s, tiledgame_app(&small));
        /* the same frames, no budget to grow, a partial render given:
         * the kernel renders the bins so far and the geometry resumes */
        c.pb_reserved = 16384;
        c.pb_budget = c.pb_size;
        c.partial = true;
        st = tiledgame_init(&partial, k, "tiled-partial", &c);
        report(&s.r, st == DDI_OK, "tiled-partial: parameter buffer of %u "
               "bytes, no budget to grow, its partial render given to the "
               "kernel (%s)", c.pb_size, ddi_status_name(st));
        os_add_app(&s, tiledgame_app(&partial));
        /* (hostile) the same, but its partial render writes a surface it
         * never made resident: the render faults on the kernel's context
         * in its device; it alone loses (its device removed), and the
         * others' tile passes on that engine, restarted after the reset,
         * stay exact */
        c.partial_faults = true;
        c.seed = 5;
        st = tiledgame_init(&badpartial, k, "tiled-badpartial", &c);
        report(&s.r, st == DDI_OK, "tiled-badpartial: its partial render "
               "targets a surface that is not resident (%s)",
               ddi_status_name(st));
        tiledgame_app(&badpartial)->expect_lost = true;
        os_add_app(&s, tiledgame_app(&badpartial));
        c.partial_faults = false;
        c.seed = 1;
        /* no room to grow (reserved = size) and no partial render: the
         * kernel cannot answer its OOM; it alone is put in error, the
         * others go on */
        c.pb_reserved = 1024;
        c.pb_budget = 0;
        c.partial = false;
        c.seed = 2;
        st = tiledgame_init(&nogrow, k, "tiled-nogrow", &c);
        report(&s.r, st == DDI_OK, "tiled-nogrow: parameter buffer of %u "
               "bytes that may not grow, no partial render (%s)", c.pb_size,
               ddi_status_name(st));
        tiledgame_app(&nogrow)->expect_lost = true;
        os_add_app(&s, tiledgame_app(&nogrow));
        /* a partial render given, but a heap that holds primitives of
         * up to 4 tiles only: the frames' full layers cannot fit even an
         * emptied heap; it alone is put in error */
        {
            /* the frame's tiles at the device's tile size (0: no tiler,
             * and every game's set-up fails above) */
            uint32_t ts = k->caps.tile_size ? k->caps.tile_size : 1;
            uint32_t tiles = copro_tiles_of(c.width, ts) *
                             copro_tiles_of(c.height, ts);

            c.pb_size = c.pb_reserved =
                copro_scene_heap_start(tiles) + COPRO_PRIM_NEED(4);
        }
        c.partial = true;
        st = tiledgame_init(&tiny, k, "tiled-tiny", &c);
        report(&s.r, st == DDI_OK, "tiled-tiny: parameter buffer of %u "
               "bytes, smaller than a full layer's need, partial render "
               "given (%s)", c.pb_size, ddi_status_name(st));
        tiledgame_app(&tiny)->expect_lost = true;
        os_add_app(&s, tiledgame_app(&tiny));
        /* (two phases: the kernel's paging buffers for the games'
         * residency are a few at a time) */
        os_run(&s, 200 * MS, 5000 * MS);
        os_print_table(&s);
        /* a lost device stops all its contexts [WDDM]: the only engine
         * reset and fault are tiled-badpartial's, whose partial render
         * faulted (no tile pass of a lost scene runs over its unclosed
         * parameter buffer and faults NOT_CLOSED, resetting the tile
         * engine under the others' passes) */
        engine_troubles(k, &resets1, &faults1);
        /* (with hardware queues a reset is one queue's: the fault's and
         * each queue whose OOM was answered with a failure) */
        report(&s.r, (resets1 == 1 || hw) && faults1 == 1 &&
               vidsch_stats(k->vs)->tdr_resets == 0 &&
               vidsch_stats(k->vs)->device_resets == 0,
               "one fault in all (%lu: tiled-badpartial's partial render), "
               "%lu %s resets, no TDR", faults1, resets1,
               hw ? "queue" : "engine");
        report(&s.r, tile_ctx_stopped(&badpartial) &&
               tile_ctx_stopped(&nogrow) && tile_ctx_stopped(&tiny),
               "the lost games' tile contexts ran nothing after the loss "
               "(one pass per finished scene; their held pass dropped) "
               "and are in error: their whole devices were stopped "
               "(%lu contexts lost with another of their device)",
               vidsch_stats(k->vs)->contexts_lost_with_device);
        kprintf("# buffers of the healthy games resubmitted after stops "
                "(preemptions, OOM stops, the one reset): tiled-big %lu, "
                "tiled-small %lu, tiled-partial %lu\n", disturbed(&big),
                disturbed(&small), disturbed(&partial));
        os_clear_apps(&s);
        /* a desktop in scenes: a game's long tile passes (48 tiles) and
         * a compositor's short scenes, both tile passes on the same
         * engine: the compositor's preempt the game's at tile
         * boundaries, and both stay right */
        tiledgame_config_default(&c);
        c.frames = 12;
        c.tile_engine = k->caps.engines >= 3 ? 2 : COPRO_ENGINE_RENDER;
        c.width = TILEDGAME_MAX_W;
        c.height = TILEDGAME_MAX_H;
        c.seed = 3;
        st = tiledgame_init(&game, k, "tiled-game", &c);
        os_add_app(&s, tiledgame_app(&game));
        c.prio = VIDSCH_PRIO_HIGH;
        c.frames = 150;         /* all the while the game runs */
        c.width = c.height = 64;
        c.seed = 4;
        st = st ? st : tiledgame_init(&comp, k, "tiled-comp", &c);
        report(&s.r, st == DDI_OK, "tiled-game (NORMAL, %u x %u) and "
               "tiled-comp (HIGH, 64 x 64), tile passes on engine %u (%s)",
               TILEDGAME_MAX_W, TILEDGAME_MAX_H, c.tile_engine,
               ddi_status_name(st));
        os_add_app(&s, tiledgame_app(&comp));
        os_run(&s, 200 * MS, 5000 * MS);
        os_print_table(&s);
        kapi_scene_pb_stats(big.app.proc, big.sp.hpb, &pb_big);
        kapi_scene_pb_stats(small.app.proc, small.sp.hpb, &pb_small);
        report(&s.r, pb_big.ooms == 0, "tiled-big: no TILER_OOM (%u)",
               pb_big.ooms);
        report(&s.r, pb_small.grows > 0 && pb_small.fails == 0 &&
               pb_small.partials == 0 && pb_small.size > 1024,
               "tiled-small: %u TILER_OOM answered by %u grows (to %u "
               "bytes), the stopped geometry resumed", pb_small.ooms,
               pb_small.grows, pb_small.size);
        if (hw) {
            hwsched_oom_report(k);
        }
        partial_report(frames, &pb_part, &pb_bad);
        kapi_scene_pb_stats(nogrow.app.proc, nogrow.sp.hpb, &pb_small);
        report(&s.r, pb_small.ooms > 0 && pb_small.grows == 0 &&
               pb_small.partials == 0 && pb_small.fails > 0,
               "tiled-nogrow: its TILER_OOM could not be answered without "
               "a partial render (%u OOMs, %u refused)", pb_small.ooms,
               pb_small.fails);
        kapi_scene_pb_stats(tiny.app.proc, tiny.sp.hpb, &pb_small);
        report(&s.r, pb_small.ooms > 0 && pb_small.partials == 0 &&
               pb_small.fails > 0 && tiny.frames_checked == 0,
               "tiled-tiny: a full layer cannot fit its emptied heap: "
               "refused although a partial render was given (%u OOMs, %u "
               "refused)", pb_small.ooms, pb_small.fails);
        engine_troubles(k, &resets, &faults);
        report(&s.r, resets == resets1 && faults == faults1,
               "the desktop in scenes: no engine reset, no fault (%lu, %lu)",
               resets - resets1, faults - faults1);
        kapi_context_stats(game.app.proc, game.sp.htile, &cs);
        report(&s.r, cs.preemptions > 0 && cs.resumed > 0,
               "tiled-game's tile passes were preempted %lu times for the "
               "compositor's and resumed %lu times (at tile boundaries: "
               "its pixels above are exact)", cs.preemptions, cs.resumed);
        {
            struct os_app_figures fc, fg;
            char b1[24], b2[24], b3[24], b4[24];

            os_app_figures(&s, tiledgame_app(&comp), &fc);
            os_app_figures(&s, tiledgame_app(&game), &fg);
            /* a figure, not a check: the test asserts no timing */
            kprintf("# tile pass wait (geometry done -> tile pass start): "
                    "tiled-comp p50 %s p99 %s max %s over the game's "
                    "passes (tile-boundary preemption); tiled-game p99 %s\n",
                    os_fmt_ns(b1, sizeof(b1), fc.p50),
                    os_fmt_ns(b2, sizeof(b2), fc.p99),
                    os_fmt_ns(b3, sizeof(b3), fc.max),
                    os_fmt_ns(b4, sizeof(b4), fg.p99));
            kprintf("METRICS {\"scenario\":\"tiledgame\","
                    "\"comp_wait_p99_ns\":%lu,\"comp_wait_max_ns\":%lu,"
                    "\"game_tile_preemptions\":%lu}\n", fc.p99, fc.max,
                    cs.preemptions);
        }
        report(&s.r, k->scene.partials ==
               pb_part.partials + pb_bad.partials &&
               k->scene.partial_errors == 0, "kernel: %lu partial renders "
               "queued on its own contexts, %lu could not be",
               k->scene.partials, k->scene.partial_errors);
        kprintf("# kernel: %lu OOMs, %lu grows, %lu partial renders, %lu "
                "refused\n", k->scene.ooms, k->scene.grows,
                k->scene.partials, k->scene.refused);
    }
    return report_summary(&s.r);
}
