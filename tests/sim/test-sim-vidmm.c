/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Property tests of vidmm's packet-based mode on the GPU model (see
 * sim_vidmm.h for what each run checks): seeded workloads whose working
 * set is 50%, 110%, 150% and 200% of VRAM, with and without the patent's
 * eviction restriction to the current process; and eviction fighting:
 * two apps of one level whose working sets each fit VRAM but not
 * together page less with the scheduler's policy than without it; and
 * splitting: one DMA buffer whose allocations add up to 1.5x VRAM runs
 * in portions, every byte right, while a HIGH context keeps running (see
 * sim_split.h); without the splitting hooks the same buffer is refused.
 *
 *   test-sim-vidmm [--tap] [--count=N]   N seeds per case (default 20)
 *   test-sim-vidmm --seed=S --ws=P [--own] [--aperture]   one run, verbose
 *   test-sim-vidmm --seed=S --ws=P --fight[=on]   one fighting run
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_split.h"
#include "sim_vidmm.h"

static struct sim_host host;
static uint64_t count = 20;

struct tcase {
    unsigned ws_pct;
    bool own;
    bool aperture;              /* allocations may live in the aperture */
    unsigned dma;               /* pageable DMA buffers: SVM_DMA_* */
};

static void test_case(gconstpointer data)
{
    const struct tcase *t = data;
    uint64_t evictions = 0, handed_back = 0, buffers = 0, enomem = 0;
    uint64_t promotions = 0, brought_in = 0, back = 0, loads = 0;
    unsigned failed = 0;

    for (uint64_t s = 0; s < count; s++) {
        struct svm_config c = { .seed = s + 1, .ws_pct = t->ws_pct,
                                .buffers = 40, .work_ns = 200000,
                                .evict_own_only = t->own,
                                .aperture = t->aperture, .dma = t->dma };
        struct svm_result r;

        if (!svm_run(&host, &c, &r)) {
            printf("# seed %" PRIu64 " ws %u%%%s%s dma %u FAILED: %s\n# "
                   "reproduce: test-sim-vidmm --seed=%" PRIu64
                   " --ws=%u%s%s --dma=%u\n", c.seed,
                   t->ws_pct, t->own ? " own" : "",
                   t->aperture ? " aperture" : "", t->dma, r.msg, c.seed,
                   t->ws_pct, t->own ? " --own" : "",
                   t->aperture ? " --aperture" : "", t->dma);
            failed++;
        }
        brought_in += r.dma_brought_in;
        back += r.dma_back_patched;
        loads += r.dma_loads_checked;
        promotions += r.promotions;
        evictions += r.evictions;
        handed_back += r.handed_back;
        buffers += r.buffers;
        enomem += r.enomem;
    }
    printf("# %" PRIu64 " seeds, %" PRIu64 " buffers, %" PRIu64
           " evictions, %" PRIu64 " re-residencies after a hand-back, %"
           PRIu64 " lists refused (ENOMEM)\n",
           count, buffers, evictions, handed_back, enomem);
    if (t->aperture) {
        printf("# %" PRIu64 " promotions from the aperture into VRAM\n",
               promotions);
    }
    if (t->dma) {
        printf("# pageable DMA buffers: %" PRIu64 " brought in, %" PRIu64
               " of them taken out and brought back to their patched "
               "address, %" PRIu64 " loads compared byte for byte\n",
               brought_in, back, loads);
    }
    g_assert_cmpuint(failed, ==, 0);
    if (t->dma) {
        g_assert_cmpuint(loads, >, 0);  /* the checks ran */
    }
    if (t->dma == SVM_DMA_VRAM && t->ws_pct >= 150 && !t->own) {
        g_assert_cmpuint(back, >, 0);   /* moved out and back */
    }
    if (t->ws_pct > 100) {
        g_assert_cmpuint(evictions, >, 0);      /* the test tests paging */
    }
    if (t->aperture && t->ws_pct > 100) {
        g_assert_cmpuint(promotions, >, 0);     /* ... and promotions */
    }
}

/*
 * Eviction fighting: both contexts NORMAL, saturating, each with 80% of
 * VRAM (160% together). Over the same seeds, the paging bytes with
 * vidsch's policy on (threshold an eighth of VRAM) must be lower than
 * with it off, every run passing the same checks (contents included).
 */
#define FIGHT_BYTES     (SVM_VRAM_BYTES / 8)

static void test_fight(void)
{
    uint64_t moved[2] = { 0 }, turns[2] = { 0 }, ns[2] = { 0 };
    uint64_t fight_turns = 0;
    unsigned failed = 0;

    for (uint64_t s = 0; s < count / 2 + 1; s++) {
        for (unsigned on = 0; on < 2; on++) {
            struct svm_config c = { .seed = s + 1, .ws_pct = 160,
                                    .buffers = 120, .work_ns = 200000,
                                    .fight = true,
                                    .fight_bytes = on ? FIGHT_BYTES : 0 };
            struct svm_result r;

            if (!svm_run(&host, &c, &r)) {
                printf("# seed %" PRIu64 " fight %s FAILED: %s\n# "
                       "reproduce: test-sim-vidmm --seed=%" PRIu64
                       " --ws=160 --fight%s\n", c.seed, on ? "on" : "off",
                       r.msg, c.seed, on ? "=on" : "");
                failed++;
            }
            moved[on] += r.bytes_moved;
            turns[on] += r.turns;
            ns[on] += r.gpu_ns;
            if (on) {
                fight_turns += r.fight_turns;
            }
        }
    }
    printf("# fighting, policy off: %" PRIu64 " KiB paged, %" PRIu64
           " turns, %" PRIu64 " us; on: %" PRIu64 " KiB, %" PRIu64
           " turns (%" PRIu64 " lengthened), %" PRIu64 " us\n",
           moved[0] >> 10, turns[0], ns[0] / 1000, moved[1] >> 10, turns[1],
           fight_turns, ns[1] / 1000);
    g_assert_cmpuint(failed, ==, 0);
    g_assert_cmpuint(moved[0], >, 0);       /* they do fight */
    g_assert_cmpuint(fight_turns, >, 0);
    g_assert_cmpuint(moved[1], <, moved[0]);
    g_assert_cmpuint(turns[1], <, turns[0]);
}

static void test_split(void)
{
    uint64_t portions = 0, loads = 0, during = 0, moved = 0;
    unsigned failed = 0;

    for (uint64_t s = 0; s < count / 4 + 1; s++) {
        struct ssp_result r;

        if (!ssp_run(&host, s + 1, true, &r)) {
            printf("# split seed %" PRIu64 " FAILED: %s\n", s + 1, r.msg);
            failed++;
        }
        portions += r.portions;
        loads += r.loads;
        during += r.others_during;
        moved += r.bytes_moved;
    }
    printf("# split: %" PRIu64 " portions (%" PRIu64 " loads with resumes), "
           "%" PRIu64 " HIGH buffers retired between portions, %" PRIu64
           " KiB paged\n", portions, loads, during, moved >> 10);
    g_assert_cmpuint(failed, ==, 0);
    g_assert_cmpuint(during, >, 0);         /* the others kept running */
}

/* The same buffer without the scheduler's splitting hooks: refused with
 * DDI_ENOMEM, nothing else harmed. */
static void test_split_off(void)
{
    struct ssp_result r;
    bool ok = ssp_run(&host, 1, false, &r);

    if (!ok) {
        printf("# %s\n", r.msg);
    }
    g_assert_true(ok);
    g_assert_cmpint(r.status, ==, DDI_ENOMEM);
    g_assert_cmpuint(r.portions, ==, 0);
}

int main(int argc, char **argv)
{
    static const struct tcase cases[] = {
        { 50, false, false }, { 110, false, false }, { 150, false, false },
        { 200, false, false }, { 150, true, false }, { 200, true, false },
        { 110, false, true }, { 150, false, true }, { 200, false, true },
        { 200, true, true },
        { 150, false, false, SVM_DMA_APERTURE },
        { 200, false, true, SVM_DMA_APERTURE },
        { 110, false, false, SVM_DMA_VRAM },
        { 150, false, false, SVM_DMA_VRAM },
        { 200, false, false, SVM_DMA_VRAM },
        { 200, true, false, SVM_DMA_VRAM },
        { 200, false, true, SVM_DMA_VRAM },
    };
    uint64_t seed = 0;
    unsigned ws = 150;
    bool own = false, aperture = false;
    unsigned dma = 0;
    int fight = -1;

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--count=", 8)) {
            count = strtoull(argv[i] + 8, NULL, 0);
        } else if (!strncmp(argv[i], "--seed=", 7)) {
            seed = strtoull(argv[i] + 7, NULL, 0);
        } else if (!strncmp(argv[i], "--ws=", 5)) {
            ws = (unsigned)strtoul(argv[i] + 5, NULL, 0);
        } else if (!strcmp(argv[i], "--own")) {
            own = true;
        } else if (!strcmp(argv[i], "--aperture")) {
            aperture = true;
        } else if (!strncmp(argv[i], "--dma=", 6)) {
            dma = (unsigned)strtoul(argv[i] + 6, NULL, 0);
        } else if (!strncmp(argv[i], "--fight", 7)) {
            fight = !strcmp(argv[i], "--fight=on");
        }
    }
    svm_host_init(&host);
    if (seed) {
        struct svm_config c = { .seed = seed, .ws_pct = ws, .buffers = 40,
                                .work_ns = 200000, .evict_own_only = own,
                                .aperture = aperture, .dma = dma,
                                .verbose = true };

        if (fight >= 0) {
            c.buffers = 120;
            c.fight = true;
            c.fight_bytes = fight ? FIGHT_BYTES : 0;
        }
        struct svm_result r;
        bool ok = svm_run(&host, &c, &r);

        printf("%s%s\n", ok ? "ok" : "FAILED: ", r.msg);
        printf("# %" PRIu64 " paging buffers (%" PRIu64 " of them steps of "
               "a residency), %" PRIu64 " bytes moved\n", r.paging_buffers,
               r.paging_steps, r.bytes_moved);
        return ok ? 0 : 1;
    }
    g_test_init(&argc, &argv, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        char name[64];

        snprintf(name, sizeof(name), "/sim-vidmm/ws-%u%s%s%s",
                 cases[i].ws_pct, cases[i].own ? "-own-process" : "",
                 cases[i].aperture ? "-aperture" : "",
                 cases[i].dma == SVM_DMA_VRAM ? "-dmabuf-vram"
                 : cases[i].dma ? "-dmabuf-aperture" : "");
        g_test_add_data_func(name, &cases[i], test_case);
    }
    g_test_add_func("/sim-vidmm/fighting", test_fight);
    g_test_add_func("/sim-vidmm/split", test_split);
    g_test_add_func("/sim-vidmm/split-refused-without-hooks", test_split_off);
    return g_test_run();
}
