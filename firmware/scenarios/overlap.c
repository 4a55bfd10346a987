/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * overlap: how busy the render engine stays when buffers are short. Two
 * NORMAL applications submit short frames back to back (work_us of WORK
 * each, several in flight). The scheduler prepares the next buffer on
 * its worker while the current one runs (the patent's overlap); with
 * `serial_prepare` on the command line it prepares only once the engine
 * is idle, and the engine waits for the CPU after every buffer. Prints
 * the engine's busy fraction over the run, as the device counts it;
 * `make bench` compares the two. Checks that every frame ran and drew
 * what it should, and that the mechanism named happened: buffers were
 * prepared while the engine still had work (none with serial_prepare);
 * the apps' checks alone passed with the overlap switched off.
 *
 * Command line: irq=..., duration_ms= (500), work_us= (50),
 * serial_prepare, the scheduler options.
 */
#include <stdint.h>

#include "apps/winapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define NAPPS   2

static struct os_scenario s;
static struct winapp apps[NAPPS];
static const char *const names[NAPPS] = { "short-0", "short-1" };

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 500, work_us = 50, frames = 0;

    kprintf("overlap: engine busy fraction with short buffers\n");
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "work_us", &work_us) && os_boot(&s, boot, NULL)) {
        for (unsigned i = 0; i < NAPPS; i++) {
            struct winapp_config wc;

            game_config_default(&wc);
            wc.tag = (uint8_t)(0x20 + i);
            wc.work_ns = work_us * US;
            wc.frames.depth = 4;
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
            frames += winapp_app(&apps[i])->completed;
        }
        os_print_table(&s);
        {
            const struct vidsch_engine_stats *es =
                vidsch_engine_stats(s.boot.k.vs, COPRO_ENGINE_RENDER);

            report(&s.r, s.sched.serial_prepare ? es->prepared_ahead == 0
                                                : es->prepared_ahead > 0,
                   "%s preparation: %lu of %lu buffers prepared while the "
                   "engine still had work", s.sched.serial_prepare ?
                   "serial" : "overlapped", es->prepared_ahead,
                   es->prepared);
        }
        kprintf("%s preparation: engine busy %u.%u %% over %lu ms, %lu "
                "buffers of %lu us\n",
                s.sched.serial_prepare ? "serial" : "overlapped",
                os_busy_permille(&s) / 10, os_busy_permille(&s) % 10,
                duration_ms, frames, work_us);
    }
    kprintf("METRICS {\"scenario\":\"overlap\",\"serial_prepare\":%s,"
            "\"policy\":\"%s\",\"duration_ms\":%lu,\"work_us\":%lu,"
            "\"buffers\":%lu,\"busy_permille\":%u",
            s.sched.serial_prepare ? "true" : "false",
            vidsch_policy_name(s.sched.policy), duration_ms, work_us, frames,
            os_busy_permille(&s));
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
