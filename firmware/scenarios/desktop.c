/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * desktop: what `make run` boots. A compositor (HIGH, a frame every
 * 16.67 ms with a deadline), a cursor (REALTIME, tiny, every frame), a
 * game (NORMAL, heavy frames back to back) and a hog (BELOW_NORMAL, one
 * multi-second WORK buffer after the other) share the GPU for a virtual
 * duration; then every application drains, its output is checked by
 * content, and the per-application table and one METRICS line are
 * printed.
 *
 * Command line: irq=..., policy=fifo|priority|quantum (default quantum),
 * quantum_us=, duration_ms= (2000), hog_ms= (1500: WORK per hog buffer),
 * video=1 to add the video player (ABOVE_NORMAL, 30 fps), and the other
 * scheduler options of kernel/kboot.h. Under fifo the compositor misses
 * its deadlines behind the hog; under priority and quantum it must not.
 */
#include <stdint.h>

#include "apps/compositor.h"
#include "apps/hog.h"
#include "apps/winapp.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

#define HOG_MAX_MS      ((uint64_t)10000)
#define HOG_PACKET_NS   (1 * MS)

static struct os_scenario s;
static struct compositor comp;
static struct winapp cursor, game, video;
static struct hog hog;
static uint32_t hog_cmd[(HOG_MAX_MS * MS / HOG_PACKET_NS + 64) * 3 + 256];

static bool setup(uint64_t hog_ms, bool with_video)
{
    struct kernel *k = &s.boot.k;
    struct winapp_config wc;
    struct hog_config hc = {
        .prio = VIDSCH_PRIO_BELOW_NORMAL, .hog_ns = hog_ms * MS,
        .work_packet_ns = HOG_PACKET_NS,
    };

    compositor_init(&comp, k, "compositor");
    cursor_config_default(&wc);
    winapp_init(&cursor, k, "cursor", &wc);
    game_config_default(&wc);
    winapp_init(&game, k, "game", &wc);
    if (with_video) {
        video_config_default(&wc);
        winapp_init(&video, k, "video", &wc);
    }
    if (!report(&s.r, hog_cmd_bytes(&hc) <= sizeof(hog_cmd),
                "hog buffer of %lu ms fits its storage", hog_ms)) {
        return false;
    }
    hog_init(&hog, k, "hog", &hc, hog_cmd, sizeof(hog_cmd));

    compositor_add_window(&comp, &game, 16);
    if (with_video) {
        compositor_add_window(&comp, &video, 96);
    }
    compositor_set_cursor(&comp, &cursor);

    os_add_app(&s, compositor_app(&comp));
    os_add_app(&s, winapp_app(&cursor));
    os_add_app(&s, winapp_app(&game));
    if (with_video) {
        os_add_app(&s, winapp_app(&video));
    }
    os_add_app(&s, hog_app(&hog));
    return true;
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 2000, hog_ms = 1500, with_video = 0;
    char hog_done[16];

    kprintf("desktop: compositor, cursor, game and hog share the GPU\n");
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "hog_ms", &hog_ms) &&
        os_option(&s, boot, "video", &with_video) &&
        report(&s.r, duration_ms > 0 && hog_ms > 0 && hog_ms <= HOG_MAX_MS,
               "duration %lu ms, hog buffers of %lu ms (at most %lu)",
               duration_ms, hog_ms, HOG_MAX_MS) &&
        os_boot(&s, boot, NULL) && setup(hog_ms, with_video != 0)) {
        os_run(&s, duration_ms * MS, 4 * hog_ms * MS + 1000 * MS);
        kprintf("\npolicy %s, quantum %lu us, %lu ms; engine busy %u.%u %%; "
                "hog's first buffer done %s\n",
                vidsch_policy_name(s.sched.policy), s.sched.quantum_ns / US,
                duration_ms, os_busy_permille(&s) / 10,
                os_busy_permille(&s) % 10,
                hog.first_done_ns ? os_fmt_ns(hog_done, sizeof(hog_done),
                                              hog.first_done_ns)
                                  : "never");
        os_print_table(&s);
    }
    kprintf("METRICS {\"scenario\":\"desktop\",\"policy\":\"%s\","
            "\"quantum_us\":%lu,\"duration_ms\":%lu,\"hog_ms\":%lu,"
            "\"hog_done_ns\":%lu,\"busy_permille\":%u",
            vidsch_policy_name(s.sched.policy), s.sched.quantum_ns / US,
            duration_ms, hog_ms, hog.first_done_ns,
            os_busy_permille(&s));
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests,
            s.r.failures);
    return report_summary(&s.r);
}
