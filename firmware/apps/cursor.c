/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mouse cursor: REALTIME, tiny, every frame (16.67 ms), due within
 * the frame: a pointer shape, 64 x 64 ARGB8888 as the display's pointer
 * plane takes it (the top byte is alpha: 0 transparent, 255 opaque),
 * redrawn with SET_TARGET and RECT and no work. The arrow's body changes
 * colour every few frames; its outline is white. The compositor puts
 * the shape on the pointer plane, or into the primary if there is none.
 */
#include "apps/winapp.h"

#define US      1000ull

#define OPAQUE      0xff000000u
#define WHITE       0xffffffffu
#define ROWS        16          /* rows of the arrow head, 2 x 2 pixels */

static const uint32_t body_colour[8] = {
    0x00ff4040, 0x00ffa020, 0x00f0f020, 0x0040e040,
    0x0020c0ff, 0x004060ff, 0x00c040ff, 0x00ff40a0,
};

static void cursor_picture(const struct winapp_config *c, uint64_t n,
                           struct picture *p)
{
    uint32_t body = OPAQUE | body_colour[(n / 6) % 8];

    (void)c;
    picture_init(p, 0);                 /* transparent */
    for (uint32_t y = 0; y < ROWS; y++) {
        uint32_t span = 2 * (y / 2 + 1);    /* 2, 2, 4, 4, ... 16 */

        picture_rect(p, 0, 2 * y, span, 2, WHITE);
        if (span > 4) {
            picture_rect(p, 2, 2 * y, span - 4, 2, body);
        }
    }
    picture_rect(p, 0, 2 * ROWS, 18, 2, WHITE);
    picture_rect(p, 6, 2 * ROWS + 2, 6, 12, WHITE);     /* the stem */
    picture_rect(p, 8, 2 * ROWS + 2, 2, 10, body);
}

void cursor_config_default(struct winapp_config *c)
{
    *c = (struct winapp_config){
        .prio = VIDSCH_PRIO_REALTIME,
        /* a system component: its launcher grants what REALTIME needs */
        .privileges = KAPI_PRIV_REALTIME,
        .tag = 0x63,
        .frames = { .period_ns = 16667 * US, .deadline_ns = 16667 * US,
                    .depth = 2 },
        .work_ns = 0,
        .work_packet_ns = 1,
        .draw = WINAPP_DRAW_PICTURE,
        .picture = cursor_picture,
        .width = 64, .height = 64,
        .buffers = 3,
    };
}
