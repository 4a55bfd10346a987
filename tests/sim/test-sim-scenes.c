/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Property tests of scene-based rendering: seeded random scene workloads
 * (sim_workload_scene) run through vidsch on the GPU model's tiler, with
 * the kernel's parameter-buffer answers (sim_host_scene: grow or partial
 * render), checked by sim_check_scene: scene ordering, every tile of
 * every pass rendered once across tile-boundary preemptions, the wait of
 * a higher-priority tile pass bounded by one tile, partial renders before
 * the geometry resumes, every primitive rendered, nobody else blamed.
 *
 *   test-sim-scenes --first=N --count=M  seeds [N, N+M), in GTest cases
 *                                        of --chunk seeds (default 250)
 *   test-sim-scenes --seed=S [--verbose] one seed, with its workload (and
 *                                        the scheduler's and GPU's events)
 *   test-sim-scenes --meta               each checker must catch its
 *                                        deliberately broken device or OS
 *   ... --hws                            the same in hardware-scheduling
 *                                        mode (sim_hws: OOM stops put the
 *                                        geometry's queue in OOM_WAIT)
 *
 * A failing seed prints itself, its workload and the command that
 * reproduces it.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_check_scene.h"
#include "sim_seeds.h"

static struct sim_seeds opt;

static struct sim_host host;
static struct scene_checker *checker;
static struct scene_workload wl;

static bool run_seed(uint64_t seed, enum scene_mutation mut,
                     struct scene_check_result *r)
{
    static bool ready;
    struct scene_check_opts o = { .mutation = mut, .verbose = opt.verbose,
                                  .hws = opt.hws };

    if (!ready) {
        sim_host_init(&host, 4 << 20, 4 * WLS_MAX_PROC,
                      4 * WLS_MAX_SCENE + 16);
        checker = scene_checker_new();
        ready = true;
    }
    wls_generate(&wl, seed);
    return scene_checker_run(checker, &host, &wl, &o, r);
}

static void report_failure(uint64_t seed, const struct scene_check_result *r)
{
    printf("# seed %" PRIu64 " FAILED: %s\n", seed, r->msg);
    wls_describe(&wl, stdout);
    printf("# reproduce: %s --seed=%" PRIu64 " --verbose\n", opt.argv0,
           seed);
    fflush(stdout);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void test_seeds(gconstpointer data)
{
    uint64_t first = ((const uint64_t *)data)[0];
    uint64_t count = ((const uint64_t *)data)[1];
    unsigned failed = 0, with_oom = 0, with_grow = 0, with_partial = 0,
             with_preempted = 0, judged = 0, with_wait = 0, with_ran = 0,
             with_lost = 0, with_failed = 0;
    uint64_t scenes = 0, tiles = 0, waits = 0, max_wait = 0, partials = 0;
    uint64_t stops = 0, max_stop = 0;
    uint64_t *comp = g_new(uint64_t, count * WLS_MAX_SCENE + 1);
    size_t ncomp = 0;

    for (uint64_t s = first; s < first + count; s++) {
        struct scene_check_result r;

        if (!run_seed(s, SMUT_NONE, &r)) {
            report_failure(s, &r);
            failed++;
        }
        with_oom += r.ooms > 0;
        with_grow += r.grows > 0;
        with_partial += r.partials > 0;
        with_preempted += r.preempted_passes > 0;
        judged += r.bounded_waits > 0;
        with_lost += r.lost > 0;
        with_wait += r.oom_waits > 0;
        with_failed += r.oom_failed > 0;
        with_ran += r.ran_while_waiting > 0;
        scenes += r.scenes;
        tiles += r.tiles;
        partials += r.partials;
        waits += r.bounded_waits;
        max_wait = r.max_wait_ns > max_wait ? r.max_wait_ns : max_wait;
        stops += r.tile_stops;
        max_stop = MAX(max_stop, r.max_stop_ns);
        memcpy(comp + ncomp, r.comp_wait_ns,
               r.ncomp_wait * sizeof(comp[0]));
        ncomp += r.ncomp_wait;
    }
    /* a figure (virtual time), never asserted */
    if (ncomp) {
        qsort(comp, ncomp, sizeof(comp[0]), cmp_u64);
        g_test_message("the compositor's tile passes, geometry retired to "
                       "pass started (tile-boundary preemption, priority and quantum; every "
                       "wait, contended or not): p50 %"
                       PRIu64 " us, p99 %" PRIu64 " us, max %" PRIu64
                       " us over %zu scenes", comp[ncomp / 2] / 1000,
                       comp[ncomp * 99 / 100] / 1000, comp[ncomp - 1] / 1000,
                       ncomp);
    }
    g_free(comp);
    g_test_message("%" PRIu64 " workloads, %" PRIu64 " scenes, %" PRIu64
                   " tiles, %" PRIu64 " partial renders; with OOM stops %u, "
                   "grows %u, partial renders %u, failed OOMs (lost) %u, "
                   "tile passes preempted %u; "
                   "%" PRIu64 " tile-pass waits judged in %u workloads, the "
                   "longest %" PRIu64 " us; %" PRIu64 " tile passes stopped "
                   "between tiles, the longest request-to-stop %" PRIu64
                   " us", count, scenes, tiles, partials, with_oom,
                   with_grow, with_partial, with_lost, with_preempted, waits,
                   judged, max_wait / 1000, stops, max_stop / 1000);
    if (opt.hws) {
        g_test_message("hws: OOM_WAITs in %u workloads, other queues "
                       "switched in while one waited in %u, a queue failed "
                       "(TILER_OOM) in %u", with_wait, with_ran,
                       with_failed);
    }
    /* the seeds really exercise what is checked */
    if (count >= 100) {
        g_assert_cmpuint(with_partial, >, 0);
        g_assert_cmpuint(with_grow, >, 0);
        g_assert_cmpuint(with_lost, >, 0);
        g_assert_cmpuint(with_preempted, >, 0);
        if (opt.hws) {
            /* (the tile-wait bound is vidsch's: not judged here) */
            g_assert_cmpuint(with_wait, >, 0);
            g_assert_cmpuint(with_ran, >, 0);
            g_assert_cmpuint(with_failed, >, 0);
        } else {
            g_assert_cmpuint(judged, >, 0);
        }
    }
    if (failed) {
        g_test_fail();
    }
}

/* ---- the checkers can fail ---- */

enum { BOTH, RINGS, HWS };     /* the modes a mutation is tried in */

static const struct {
    enum scene_mutation mut;
    const char *caught_by;      /* in the message of the checker meant */
    int mode;
} metas[] = {
    { SMUT_NO_WAIT, "before its geometry retired", BOTH },
    { SMUT_TWO_TILE_CTX, "began rendering before its scene", BOTH },
    /* (the tile-wait bound: vidsch's decisions, rings only) */
    { SMUT_NOT_BETWEEN_TILES, "for lower-priority work", RINGS },
    { SMUT_REDO_TILE, "(redone)", BOTH },
    { SMUT_SKIP_TILE, "(skipped)", BOTH },
    { SMUT_KEEP_BINS, "with the fill at", BOTH },
    { SMUT_PARTIAL_NO_HOLD, "resumed before the partial pass retired",
      BOTH },
    { SMUT_SKIP_PRIM, "primitives binned (", BOTH },
    { SMUT_COARSE, "after the preemption request", BOTH },
    { SMUT_HWS_OOM_HOLDS, "in OOM_WAIT holds the engine", HWS },
};

static void test_meta(gconstpointer data)
{
    unsigned m = GPOINTER_TO_UINT(data);

    for (uint64_t s = 0; s < 300; s++) {
        struct scene_check_result r;

        if (!run_seed(s, metas[m].mut, &r)) {
            g_test_message("%s caught on seed %" PRIu64 ": %s",
                           scene_mutation_name(metas[m].mut), s, r.msg);
            if (!strstr(r.msg, metas[m].caught_by)) {
                g_test_message("... but not by the check expected (\"%s\")",
                               metas[m].caught_by);
                g_test_fail();
            }
            return;
        }
    }
    g_test_message("%s never caught", scene_mutation_name(metas[m].mut));
    g_test_fail();
}

int main(int argc, char **argv)
{
    sim_seeds_parse(&opt, &argc, &argv, true);
    if (opt.have_seed) {
        struct scene_check_result r;
        bool ok = run_seed(opt.seed, SMUT_NONE, &r);
        uint64_t comp_max = 0;

        for (unsigned i = 0; i < r.ncomp_wait; i++) {
            comp_max = MAX(comp_max, r.comp_wait_ns[i]);
        }
        wls_describe(&wl, stdout);
        printf("# seed %" PRIu64 ": %s (%" PRIu64 " us virtual, %u scenes, "
               "%u tiles, %u OOM stops, %u grows, %u partial renders, %u "
               "passes preempted, %u lost, %u waits judged, longest %"
               PRIu64 " us; the compositor's longest wait %" PRIu64
               " us)\n", opt.seed, ok ? "ok" : r.msg,
               r.end_ns / 1000, r.scenes, r.tiles, r.ooms, r.grows,
               r.partials, r.preempted_passes, r.lost, r.bounded_waits,
               r.max_wait_ns / 1000, comp_max / 1000);
        return ok ? 0 : 1;
    }
    g_test_init(&argc, &argv, NULL);
    sim_seeds_add_cases(&opt, "sim-scenes", test_seeds);
    if (opt.meta) {
        for (unsigned m = 0; m < G_N_ELEMENTS(metas); m++) {
            char *name;

            if (metas[m].mode == (opt.hws ? RINGS : HWS)) {
                continue;
            }
            name = g_strdup_printf("/sim-scenes/meta/%s",
                                   scene_mutation_name(metas[m].mut));

            g_test_add_data_func(name, GUINT_TO_POINTER(m), test_meta);
            g_free(name);
        }
    }
    return g_test_run();
}
