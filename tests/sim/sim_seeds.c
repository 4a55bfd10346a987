/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_seeds.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

void sim_seeds_parse(struct sim_seeds *o, int *argc, char ***argv,
                     bool with_hws)
{
    gint64 first = 0, count = 0, chunk = 250, seed = -1;
    gboolean verbose = FALSE, meta = FALSE, hws = FALSE;
    GOptionEntry entries[] = {
        { "first", 0, 0, G_OPTION_ARG_INT64, &first, "first seed", "N" },
        { "count", 0, 0, G_OPTION_ARG_INT64, &count, "seeds", "M" },
        { "chunk", 0, 0, G_OPTION_ARG_INT64, &chunk,
          "seeds per test case", "K" },
        { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "replay one seed", "S" },
        { "verbose", 0, 0, G_OPTION_ARG_NONE, &verbose,
          "with --seed: every decision", NULL },
        { "meta", 0, 0, G_OPTION_ARG_NONE, &meta,
          "the checkers against broken models", NULL },
        { "hws", 0, with_hws ? 0 : G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE,
          &hws, "hardware-scheduling mode", NULL },
        { NULL },
    };
    GOptionContext *ctx = g_option_context_new("- seeded property tests");
    GError *err = NULL;

    /* the rest (--tap, -p ...) is g_test_init()'s */
    g_option_context_set_ignore_unknown_options(ctx, TRUE);
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);
    *o = (struct sim_seeds){ .argv0 = (*argv)[0] };
    if (!g_option_context_parse(ctx, argc, argv, &err) ||
        first < 0 || count < 0 || chunk < 0 || (hws && !with_hws)) {
        fprintf(stderr, "%s: %s\n", o->argv0,
                err ? err->message
                : hws && !with_hws ? "--hws: not an option of this test"
                : "seed numbers are not negative");
        exit(2);
    }
    g_option_context_free(ctx);
    o->first = first;
    o->count = count;
    o->chunk = chunk ? chunk : 250;
    o->have_seed = seed >= 0;
    o->seed = o->have_seed ? (uint64_t)seed : 0;
    o->verbose = verbose;
    o->meta = meta;
    o->hws = hws;
}

void sim_seeds_add_cases(const struct sim_seeds *o, const char *suite,
                         GTestDataFunc fn)
{
    for (uint64_t s = o->first; s < o->first + o->count; s += o->chunk) {
        uint64_t *range = g_new(uint64_t, 2);
        char *name;

        range[0] = s;
        range[1] = MIN(o->chunk, o->first + o->count - s);
        name = g_strdup_printf("/%s/seeds-%" PRIu64 "-%" PRIu64, suite, s,
                               s + range[1] - 1);
        g_test_add_data_func_full(name, range, fn, g_free);
        g_free(name);
    }
}
