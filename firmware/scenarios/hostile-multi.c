/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostile-multi: the desktop's compositor, cursor and game, a partner
 * process that shares an allocation and a sync object with an intruder,
 * and the intruder, which uses only legal calls against the others
 * (apps/intruder.h; issue 15, docs/os.rst "Security"). Every attack must
 * be refused with its code, and every victim's output must be right by
 * content: the compositor's screen and pointer, the game's window as
 * composed, the partner's locked allocation, surface and fence, and the
 * partner's buffers must complete while the intruder's timer spins.
 *
 * Command line: irq=..., duration_ms= (300), the scheduler options.
 */
#include <stdint.h>

#include "apps/compositor.h"
#include "apps/intruder.h"
#include "apps/winapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

static struct os_scenario s;
static struct compositor comp;
static struct winapp cursor, game;
static struct partner partner;
static struct intruder intruder;

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 300;
    struct winapp_config wc;
    struct kernel *k = &s.boot.k;

    kprintf("hostile-multi: processes that use legal calls against each "
            "other beside a desktop\n");
    s.boot.display.width = 640;
    s.boot.display.height = 480;
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_boot(&s, boot, NULL)) {
        compositor_init(&comp, k, "compositor", false);
        cursor_config_default(&wc);
        winapp_init(&cursor, k, "cursor", &wc);
        game_config_default(&wc);
        winapp_init(&game, k, "game", &wc);
        compositor_add_window(&comp, &game, 24, 40, 0x002060c0);
        compositor_set_cursor(&comp, &cursor);
        partner_init(&partner, k, "partner");
        intruder_init(&intruder, k, "intruder", &partner, &game, &comp);
        os_add_app(&s, compositor_app(&comp));
        os_add_app(&s, winapp_app(&cursor));
        os_add_app(&s, winapp_app(&game));
        os_add_app(&s, partner_app(&partner));
        os_add_app(&s, intruder_app(&intruder));
        os_run(&s, duration_ms * MS, 1000 * MS);
        os_print_table(&s);
    }
    kprintf("METRICS {\"scenario\":\"hostile-multi\",\"policy\":\"%s\","
            "\"duration_ms\":%lu,\"timer_yields\":%lu",
            vidsch_policy_name(s.sched.policy), duration_ms,
            k->ev.timer_yields);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
