/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fairness: eight NORMAL contexts, each an application drawing heavy
 * frames back to back, share the render engine for a virtual duration.
 * Prints each one's GPU time and Jain's fairness index of them, x 1000
 * (1000: perfectly equal shares); `make bench` compares the policies.
 * Checks only what must hold under any policy: every application ran
 * and drew what it should.
 *
 * Command line: irq=..., duration_ms= (1000), work_us= (2000: a frame's
 * WORK), the scheduler options.
 */
#include <stdint.h>

#include "apps/winapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define NAPPS   8

static struct os_scenario s;
static struct winapp apps[NAPPS];
static const char *const names[NAPPS] = {
    "normal-0", "normal-1", "normal-2", "normal-3",
    "normal-4", "normal-5", "normal-6", "normal-7",
};

/* Jain's index (sum x)^2 / (n sum x^2), x 1000, in integers: GPU times
 * are scaled to us first so the squares fit 64 bits. */
static unsigned jain_permille(const uint64_t *x, unsigned n)
{
    uint64_t sum = 0, sq = 0;

    for (unsigned i = 0; i < n; i++) {
        uint64_t us = x[i] / US;

        sum += us;
        sq += us * us;
    }
    return sq ? (unsigned)(sum * sum * 1000 / (n * sq)) : 0;
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 1000, work_us = 2000, gpu[NAPPS] = { 0 };
    unsigned jain = 0;

    kprintf("fairness: %u NORMAL contexts with heavy frames\n", NAPPS);
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "work_us", &work_us) && os_boot(&s, boot, NULL)) {
        for (unsigned i = 0; i < NAPPS; i++) {
            struct winapp_config wc;

            game_config_default(&wc);
            wc.tag = (uint8_t)(0x10 + i);
            wc.work_ns = work_us * US;
            wc.width = 32;
            wc.height = 8;
            /* one colour, one buffer: nobody composes these windows */
            wc.draw = WINAPP_DRAW_RECT;
            wc.buffers = 1;
            winapp_init(&apps[i], &s.boot.k, names[i], &wc);
            os_add_app(&s, winapp_app(&apps[i]));
        }
        os_run(&s, duration_ms * MS, 1000 * MS);
        for (unsigned i = 0; i < NAPPS; i++) {
            gpu[i] = winapp_app(&apps[i])->gpu_ns_at_stop;
        }
        jain = jain_permille(gpu, NAPPS);
        os_print_table(&s);
        kprintf("policy %s: Jain's index of GPU time %u.%03u, engine busy "
                "%u.%u %%\n", vidsch_policy_name(s.sched.policy),
                jain / 1000, jain % 1000, os_busy_permille(&s) / 10,
                os_busy_permille(&s) % 10);
    }
    kprintf("METRICS {\"scenario\":\"fairness\",\"policy\":\"%s\","
            "\"quantum_us\":%lu,\"duration_ms\":%lu,\"work_us\":%lu,"
            "\"jain_permille\":%u,\"busy_permille\":%u",
            vidsch_policy_name(s.sched.policy), s.sched.quantum_ns / US,
            duration_ms, work_us, jain, os_busy_permille(&s));
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
