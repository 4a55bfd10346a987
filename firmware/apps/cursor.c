/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mouse cursor: REALTIME, tiny (a 16 x 16 sprite redrawn with
 * SET_TARGET and RECT, no work), every frame (16.67 ms), due within the
 * frame. The compositor places the sprite in the primary.
 */
#include "apps/winapp.h"

#define US      1000ull

void cursor_config_default(struct winapp_config *c)
{
    *c = (struct winapp_config){
        .prio = VIDSCH_PRIO_REALTIME,
        .tag = 0x63,
        .frames = { .period_ns = 16667 * US, .deadline_ns = 16667 * US,
                    .depth = 2 },
        .work_ns = 0,
        .work_packet_ns = 1,
        .draw = WINAPP_DRAW_RECT,
        .width = 16, .height = 16,
    };
}
