/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostile: the desktop's compositor, cursor and game, plus `evil`, an
 * application that keeps making malformed and hostile calls (bad and
 * reserved opcodes, out-of-bounds accesses, addresses of its own, forged
 * patch locations, other processes' and stale handles, huge sizes).
 * Every one must be refused with the code the API documents, its own
 * well-formed work must still run, and every other application's output
 * must stay correct.
 *
 * Command line: irq=..., duration_ms= (500), the scheduler options.
 */
#include <stdint.h>

#include "apps/compositor.h"
#include "apps/evil.h"
#include "apps/winapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

static struct os_scenario s;
static struct compositor comp;
static struct winapp cursor, game;
static struct evil evil;

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 500;
    struct winapp_config wc;
    struct kernel *k = &s.boot.k;

    kprintf("hostile: malformed and hostile command buffers and calls "
            "beside a desktop\n");
    s.boot.display.width = 640;
    s.boot.display.height = 480;
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_boot(&s, boot, NULL)) {
        compositor_init(&comp, k, "compositor", false);
        cursor_config_default(&wc);
        winapp_init(&cursor, k, "cursor", &wc);
        game_config_default(&wc);
        winapp_init(&game, k, "game", &wc);
        evil_init(&evil, k, "evil", &game);
        compositor_add_window(&comp, &game, 24, 40, 0x002060c0);
        compositor_set_cursor(&comp, &cursor);
        os_add_app(&s, compositor_app(&comp));
        os_add_app(&s, winapp_app(&cursor));
        os_add_app(&s, winapp_app(&game));
        os_add_app(&s, evil_app(&evil));
        os_run(&s, duration_ms * MS, 1000 * MS);
        report(&s.r, k->stats.render_refusals > 0, "the kernel refused %lu "
               "command buffers, accepted %lu", k->stats.render_refusals,
               k->stats.renders);
        os_print_table(&s);
    }
    kprintf("METRICS {\"scenario\":\"hostile\",\"policy\":\"%s\","
            "\"duration_ms\":%lu,\"refusals\":%lu,\"renders\":%lu",
            vidsch_policy_name(s.sched.policy), duration_ms,
            k->stats.render_refusals, k->stats.renders);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
