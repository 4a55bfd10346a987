/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fighting: eviction fighting. Two NORMAL applications that are mostly
 * memory (apps/memapp.h) each use their whole working set in every frame;
 * one working set fits in the VRAM vidmm manages, the two together do not
 * (by default each is 70 % of it). Whenever the render engine switches
 * from one to the other, vidmm must evict what the first used to make
 * room for the second: with short turns, they spend the copy engine's
 * time evicting each other.
 *
 * vidsch watches the paging bytes each turn costs; above its threshold
 * (fight_kib=, default vidsch's, 0: off) it detects fighting and, with
 * fight_factor > 1 (the default 4; 1: detect only), gives contexts of
 * the same level longer turns and prepares no peer's buffer ahead during
 * a turn, so the working sets change places less often. The scenario
 * reports the paging traffic and the turns; `make bench` runs it with
 * fight_factor=1 and with the default and compares them.
 *
 * The working sets are VRAM only (local=1, the default: render targets'
 * placement). Allocations that may also live in the aperture never
 * fight: what does not fit VRAM at first lives in the aperture, the GPU
 * uses it there, and the move rule keeps an allocation a buffer on the
 * GPU still uses where it is, so nothing ever moves (issue 26: 0 KiB
 * paged, 0 turns with fighting, with avoidance on and off alike, while
 * every check passed). local=0 keeps that case (the aperture's move
 * rule, fighting-4m).
 *
 * Checks: both applications ran and every byte of their allocations is
 * as they wrote it; with VRAM-only working sets over VRAM, vidmm paged
 * (bytes moved and evictions); with the threshold on, vidsch detected
 * fighting; with fight_factor > 1 it lengthened turns, with 1 it did
 * not. That avoidance pages less than no avoidance is compared by
 * scripts/bench-fighting.sh (its short form runs in make check).
 *
 * Command line: irq=..., duration_ms= (500), percent= (each working set,
 * % of vidmm's VRAM: 70), nallocs= (8), work_us= (500), local= (1),
 * fight_kib=, fight_factor=, the scheduler options.
 */
#include <stdint.h>

#include "apps/memapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define NAPPS       2

static struct os_scenario s;
static struct memapp apps[NAPPS];
static const char *const names[NAPPS] = { "fight-a", "fight-b" };

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 500, percent = 70, nallocs = 8, work_us = 500;
    uint64_t local = 1;
    uint64_t seg_bytes = 0, bytes = 0, frames = 0;
    struct kernel *k = &s.boot.k;
    struct vidmm_stats vs = { 0 };
    struct vidsch_engine_stats es = { 0 };

    kprintf("fighting: two same-priority applications whose working sets "
            "do not fit VRAM together\n");
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "percent", &percent) &&
        os_option(&s, boot, "nallocs", &nallocs) &&
        os_option(&s, boot, "work_us", &work_us) &&
        os_option(&s, boot, "local", &local) &&
        report(&s.r, percent >= 10 && percent <= 95 && nallocs >= 1 &&
               nallocs <= MEMAPP_MAX_ALLOCS, "options: percent=%lu (10..95: "
               "one working set must fit), nallocs=%lu (1..%u)", percent,
               nallocs, MEMAPP_MAX_ALLOCS) &&
        os_boot(&s, boot, NULL)) {
        seg_bytes = kernel_app_vram_bytes(k);
        for (unsigned i = 0; i < NAPPS; i++) {
            struct memapp_config mc;
            uint64_t each = seg_bytes / 100 * percent / nallocs;
            int st;

            memapp_config_default(&mc);
            mc.tag = (uint8_t)(0x61 + i);
            mc.nallocs = (unsigned)nallocs;
            mc.per_frame = (unsigned)nallocs;   /* the whole set, each frame */
            mc.alloc_bytes = each / MEMAPP_STRIPE * MEMAPP_STRIPE;
            if (!mc.alloc_bytes) {
                mc.alloc_bytes = MEMAPP_STRIPE;
            }
            mc.work_ns = work_us * US;
            mc.local_only = local != 0;
            bytes += memapp_bytes(&mc);
            st = memapp_init(&apps[i], k, names[i], &mc);
            report(&s.r, st == DDI_OK, "%s: %u allocations of %lu KiB, all "
                   "of them in every frame (%s)", names[i], mc.nallocs,
                   mc.alloc_bytes >> 10, ddi_status_name(st));
            os_add_app(&s, memapp_app(&apps[i]));
        }
        kprintf("working sets: %lu KiB together, %lu %% of the %lu KiB of "
                "VRAM for applications; fight threshold %lu KiB per turn\n",
                bytes >> 10, seg_bytes ? bytes * 100 / seg_bytes : 0,
                seg_bytes >> 10, s.sched.fight_bytes >> 10);
        os_run(&s, duration_ms * MS, 5000 * MS);
        for (unsigned i = 0; i < NAPPS; i++) {
            frames += memapp_app(&apps[i])->completed;
        }
        os_print_table(&s);
        if (kernel_vidmm_stats(k)) {
            vs = *kernel_vidmm_stats(k);
        }
        es = *vidsch_engine_stats(k->vs, COPRO_ENGINE_RENDER);
        kprintf("throughput: %lu frames in %lu ms; vidmm: %lu KiB moved in "
                "%lu paging buffers; render engine: %lu turns, %lu with "
                "fighting, %lu episodes\n", frames, duration_ms,
                vs.bytes_moved >> 10, vs.paging_buffers, es.turns,
                es.fight_turns, es.fight_episodes);
        if (local) {
            /* VRAM only: each turn's working set must be brought in */
            report(&s.r, bytes > seg_bytes && vs.bytes_moved > 0 &&
                   vs.evictions > 0,
                   "the VRAM-only working sets do not fit together: vidmm "
                   "paged (%lu KiB moved, %lu evictions)",
                   vs.bytes_moved >> 10, vs.evictions);
        } else {
            /* paged: evicted from VRAM, or (small VRAM) placed in the
             * aperture, where a busy allocation stays until it is idle */
            report(&s.r, bytes <= seg_bytes || vs.evictions > 0 ||
                   vs.paging_buffers > 0,
                   "the working sets do not fit together: vidmm paged (%lu "
                   "evictions, %lu paging buffers)", vs.evictions,
                   vs.paging_buffers);
        }
        if (local && s.sched.fight_bytes) {
            report(&s.r, es.fight_episodes > 0, "vidsch detected eviction "
                   "fighting (%lu episodes; %lu KiB paged per turn on "
                   "average at the end)", es.fight_episodes,
                   es.paging_per_turn >> 10);
            if (s.sched.fight_factor > 1) {
                report(&s.r, es.fight_turns > 0, "avoidance on: %lu turns "
                       "of %u quanta", es.fight_turns, s.sched.fight_factor);
            } else {
                report(&s.r, es.fight_turns == 0, "avoidance off "
                       "(fight_factor=1): no turn lengthened (%lu)",
                       es.fight_turns);
            }
        }
    }
    os_check_dmabuf(&s);
    kprintf("METRICS {\"scenario\":\"fighting\",\"policy\":\"%s\","
            "\"duration_ms\":%lu,\"percent\":%lu,\"fight_kib\":%lu,"
            "\"working_set_kib\":%lu,\"vram_kib\":%lu,\"frames\":%lu,"
            "\"paging_bytes\":%lu,\"paging_buffers\":%lu,\"evictions\":%lu,"
            "\"turns\":%lu,\"fight_turns\":%lu,\"fight_episodes\":%lu,"
            "\"fight_factor\":%u,\"local\":%lu",
            vidsch_policy_name(s.sched.policy), duration_ms, percent,
            s.sched.fight_bytes >> 10, bytes >> 10, seg_bytes >> 10, frames,
            vs.bytes_moved, vs.paging_buffers, vs.evictions, es.turns,
            es.fight_turns, es.fight_episodes, s.sched.fight_factor, local);
    os_print_dmabuf_json(&s);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
