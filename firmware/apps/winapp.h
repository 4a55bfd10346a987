/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An application that draws frames into its own window surface, which it
 * shares so the compositor can show it: the shape of the game, the video
 * player and the cursor (game.c, video.c, cursor.c give their settings).
 *
 * Frame n is: WORK (the shading, in packets of work_packet_ns), then the
 * whole window in colour app_colour(tag, n), by RECT on a bound target or
 * by FILL. Its output is checked by content: once drained, the window
 * holds exactly the colour of the last frame that completed.
 */
#ifndef FW_APPS_WINAPP_H
#define FW_APPS_WINAPP_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/frameapp.h"

#define WINAPP_CMD_BYTES    4096

enum winapp_draw {
    WINAPP_DRAW_RECT,       /* SET_TARGET + RECT (render engine) */
    WINAPP_DRAW_FILL,       /* FILL */
};

struct winapp_config {
    enum vidsch_priority prio;
    uint8_t tag;            /* top byte of its colours */
    struct frameapp_config frames;
    uint64_t work_ns;       /* per frame */
    uint64_t work_packet_ns;
    enum winapp_draw draw;
    uint32_t width, height; /* XRGB8888 pixels; pitch = width * 4 */
};

struct winapp {
    struct frameapp f;      /* first */
    struct winapp_config cfg;
    uint32_t hwin;          /* the window surface */
    uint32_t shared;        /* its global name, for the compositor */
    uint32_t cmd[WINAPP_CMD_BYTES / 4];
};

/* Process, device, context, window. DDI_OK or the failing call's code. */
int winapp_init(struct winapp *w, struct kernel *k, const char *name,
                const struct winapp_config *cfg);

/* Settings of the desktop's applications. */
void game_config_default(struct winapp_config *c);
void video_config_default(struct winapp_config *c);
void cursor_config_default(struct winapp_config *c);

static inline struct app *winapp_app(struct winapp *w)
{
    return &w->f.app;
}

#endif /* FW_APPS_WINAPP_H */
