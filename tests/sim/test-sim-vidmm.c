/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Property tests of vidmm's packet-based mode on the GPU model (see
 * sim_vidmm.h for what each run checks): seeded workloads whose working
 * set is 50%, 110%, 150% and 200% of VRAM, with and without the patent's
 * eviction restriction to the current process.
 *
 *   test-sim-vidmm [--tap] [--count=N]   N seeds per case (default 20)
 *   test-sim-vidmm --seed=S --ws=P [--own]   one run, verbose
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_vidmm.h"

static struct sim_host host;
static uint64_t count = 20;

struct tcase {
    unsigned ws_pct;
    bool own;
};

static void test_case(gconstpointer data)
{
    const struct tcase *t = data;
    uint64_t evictions = 0, handed_back = 0, buffers = 0, enomem = 0;
    unsigned failed = 0;

    for (uint64_t s = 0; s < count; s++) {
        struct svm_config c = { .seed = s + 1, .ws_pct = t->ws_pct,
                                .buffers = 40, .work_ns = 200000,
                                .evict_own_only = t->own };
        struct svm_result r;

        if (!svm_run(&host, &c, &r)) {
            printf("# seed %" PRIu64 " ws %u%%%s FAILED: %s\n# reproduce: "
                   "test-sim-vidmm --seed=%" PRIu64 " --ws=%u%s\n", c.seed,
                   t->ws_pct, t->own ? " own" : "", r.msg, c.seed, t->ws_pct,
                   t->own ? " --own" : "");
            failed++;
        }
        evictions += r.evictions;
        handed_back += r.handed_back;
        buffers += r.buffers;
        enomem += r.enomem;
    }
    printf("# %" PRIu64 " seeds, %" PRIu64 " buffers, %" PRIu64
           " evictions, %" PRIu64 " re-residencies after a hand-back, %"
           PRIu64 " lists refused (ENOMEM)\n",
           count, buffers, evictions, handed_back, enomem);
    g_assert_cmpuint(failed, ==, 0);
    if (t->ws_pct > 100) {
        g_assert_cmpuint(evictions, >, 0);      /* the test tests paging */
    }
}

int main(int argc, char **argv)
{
    static const struct tcase cases[] = {
        { 50, false }, { 110, false }, { 150, false }, { 200, false },
        { 150, true }, { 200, true },
    };
    uint64_t seed = 0;
    unsigned ws = 150;
    bool own = false;

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--count=", 8)) {
            count = strtoull(argv[i] + 8, NULL, 0);
        } else if (!strncmp(argv[i], "--seed=", 7)) {
            seed = strtoull(argv[i] + 7, NULL, 0);
        } else if (!strncmp(argv[i], "--ws=", 5)) {
            ws = (unsigned)strtoul(argv[i] + 5, NULL, 0);
        } else if (!strcmp(argv[i], "--own")) {
            own = true;
        }
    }
    svm_host_init(&host);
    if (seed) {
        struct svm_config c = { .seed = seed, .ws_pct = ws, .buffers = 40,
                                .work_ns = 200000, .evict_own_only = own,
                                .verbose = true };
        struct svm_result r;
        bool ok = svm_run(&host, &c, &r);

        printf("%s%s\n", ok ? "ok" : "FAILED: ", r.msg);
        return ok ? 0 : 1;
    }
    g_test_init(&argc, &argv, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        char name[64];

        snprintf(name, sizeof(name), "/sim-vidmm/ws-%u%s", cases[i].ws_pct,
                 cases[i].own ? "-own-process" : "");
        g_test_add_data_func(name, &cases[i], test_case);
    }
    return g_test_run();
}
