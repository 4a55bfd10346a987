/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line of the seeded property tests (test-sim-props,
 * test-sim-scenes): which seeds to run, in GTest cases of how many, or
 * one seed to replay with its events.
 *
 *   --first=N --count=M   seeds [N, N+M), in cases of --chunk (250)
 *   --seed=S [--verbose]  one seed, replayed
 *   --meta                add the cases in which each checker must catch
 *                         a deliberately broken device or OS
 *   --hws                 (test-sim-props) hardware-scheduling mode
 *
 * GTest's own options (--tap, -p ...) are left for g_test_init().
 */
#ifndef SIM_SEEDS_H
#define SIM_SEEDS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct sim_seeds {
    uint64_t first, count, chunk;
    uint64_t seed;              /* with have_seed */
    bool have_seed, verbose, meta, hws;
    const char *argv0;
};

/* Parse and remove our options from argv; exits with a message on a bad
 * one. --hws is accepted only when @with_hws. */
void sim_seeds_parse(struct sim_seeds *o, int *argc, char ***argv,
                     bool with_hws);

/* One GTest case "/<suite>/seeds-A-B" per chunk of the seed range, its
 * data a uint64_t[2]: first seed, number of seeds. */
void sim_seeds_add_cases(const struct sim_seeds *o, const char *suite,
                         GTestDataFunc fn);

#endif /* SIM_SEEDS_H */
