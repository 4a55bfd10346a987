/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The game: NORMAL priority, heavy frames back to back (two in flight,
 * like a swap chain's frame latency of two), drawn with SET_TARGET and
 * RECT into a 256 x 64 window. It has no deadline: it wants all of the
 * GPU it can get, which is what the scheduler must not give it at the
 * compositor's and the cursor's expense.
 */
#include "apps/winapp.h"

#define MS      1000000ull
#define US      1000ull

void game_config_default(struct winapp_config *c)
{
    *c = (struct winapp_config){
        .prio = VIDSCH_PRIO_NORMAL,
        .tag = 0x6a,
        .frames = { .period_ns = 0, .deadline_ns = 0, .depth = 2 },
        .work_ns = 4 * MS,
        .work_packet_ns = 500 * US,
        .draw = WINAPP_DRAW_RECT,
        .width = 256, .height = 64,
    };
}
