/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The video player: ABOVE_NORMAL, one frame every 33.3 ms (30 fps), due
 * before the next one; a frame is 2 ms of decoding work and a FILL of
 * its 256 x 64 window.
 */
#include "apps/winapp.h"

#define US      1000ull

void video_config_default(struct winapp_config *c)
{
    *c = (struct winapp_config){
        .prio = VIDSCH_PRIO_ABOVE_NORMAL,
        .tag = 0x76,
        .frames = { .period_ns = 33333 * US, .deadline_ns = 33333 * US,
                    .depth = 2 },
        .work_ns = 2000 * US,
        .work_packet_ns = 500 * US,
        .draw = WINAPP_DRAW_FILL,
        .width = 256, .height = 64,
    };
}
