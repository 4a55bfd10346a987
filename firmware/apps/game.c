/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The game: NORMAL priority, heavy frames back to back (two in flight,
 * like a swap chain's frame latency of two), drawn with SET_TARGET and
 * RECT into a 320 x 200 window: a sky, the ground, a ball that bounces
 * across, a player that runs the other way and the frame number in
 * lights. It has no deadline: it wants all of the GPU it can get, which
 * is what the scheduler must not give it at the compositor's and the
 * cursor's expense.
 */
#include "apps/winapp.h"

#define MS      1000000ull
#define US      1000ull

#define BALL        16
#define GROUND      32
#define PLAYER      24
#define LIGHTS      10

/* 0, 1, ..., span, span - 1, ..., 1, 0, 1, ...: something that bounces */
static uint32_t bounce(uint64_t v, uint32_t span)
{
    uint64_t p = v % (2ull * span);

    return (uint32_t)(p <= span ? p : 2ull * span - p);
}

static void game_picture(const struct winapp_config *c, uint64_t n,
                         struct picture *p)
{
    uint32_t ground_y = c->height - GROUND;

    picture_init(p, 0x00183860);                            /* sky */
    picture_rect(p, 0, ground_y, c->width, GROUND, 0x00307830);
    picture_rect(p, 0, ground_y, c->width, 2, 0x0050b050);  /* grass */
    picture_rect(p, c->width - PLAYER - bounce(n * 2, c->width - PLAYER),
                 ground_y - PLAYER, PLAYER, PLAYER, 0x00e0d040);
    picture_rect(p, bounce(n * 3, c->width - BALL),
                 40 + bounce(n * 4, ground_y - BALL - 40), BALL, BALL,
                 0x00ff8c1a);
    for (unsigned i = 0; i < LIGHTS; i++) {
        picture_rect(p, 8 + i * 12, 8, 8, 8,
                     (n >> i) & 1 ? 0x0040ff40 : 0x00304858);
    }
}

void game_config_default(struct winapp_config *c)
{
    *c = (struct winapp_config){
        .prio = VIDSCH_PRIO_NORMAL,
        .tag = 0x6a,
        .frames = { .period_ns = 0, .deadline_ns = 0, .depth = 2 },
        .work_ns = 4 * MS,
        .work_packet_ns = 500 * US,
        .draw = WINAPP_DRAW_PICTURE,
        .picture = game_picture,
        .width = 320, .height = 200,
        .buffers = 3,
    };
}
