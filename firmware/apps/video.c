/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The video player: ABOVE_NORMAL, one frame every 33.3 ms (30 fps), due
 * before the next one; a frame is 2 ms of decoding work and its 256 x 144
 * picture: colour bars that move along every few frames and a progress
 * bar.
 */
#include "apps/winapp.h"

#define US      1000ull

#define BARS        8
#define BAR_W       32
#define STRIP       16

static const uint32_t bar_colour[BARS] = {
    0x00c0c0c0, 0x00c0c000, 0x0000c0c0, 0x0000c000,
    0x00c000c0, 0x00c00000, 0x000000c0, 0x00101010,
};

static void video_picture(const struct winapp_config *c, uint64_t n,
                          struct picture *p)
{
    uint32_t strip_y = c->height - STRIP;

    picture_init(p, 0x00000000);
    for (unsigned i = 0; i < BARS; i++) {
        picture_rect(p, i * BAR_W, 0, BAR_W, strip_y,
                     bar_colour[(i + n / 4) % BARS]);
    }
    picture_rect(p, 0, strip_y, c->width, STRIP, 0x00202020);
    picture_rect(p, 4, strip_y + 4, (uint32_t)(n % (c->width - 8)) + 1, 8,
                 0x00e0e0e0);
}

void video_config_default(struct winapp_config *c)
{
    *c = (struct winapp_config){
        .prio = VIDSCH_PRIO_ABOVE_NORMAL,
        .tag = 0x76,
        .frames = { .period_ns = 33333 * US, .deadline_ns = 33333 * US,
                    .depth = 2 },
        .work_ns = 2000 * US,
        .work_packet_ns = 500 * US,
        .draw = WINAPP_DRAW_PICTURE,
        .picture = video_picture,
        .width = 256, .height = 144,
        .buffers = 3,
    };
}
