/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An application that draws frames into its own window surface, which it
 * shares so the compositor can show it: the shape of the game, the video
 * player and the cursor (game.c, video.c, cursor.c give their settings).
 *
 * Frame n is: WORK (the shading, in packets of work_packet_ns), then the
 * window's picture for n (apps/picture.h): one colour app_colour(tag, n)
 * by RECT on a bound target or by FILL, or, with WINAPP_DRAW_PICTURE, the
 * app's own picture of frame n (a background and rectangles: a ball that
 * bounces, bars that scroll, a pointer whose colour cycles).
 *
 * A window shown by the compositor is a swap chain, as in DWM's flip
 * model: `buffers` surfaces. Frame n is drawn into a buffer that is
 * neither the front nor being drawn (the one drawn longest ago); once it
 * has completed it is the window's front (front, front_buf): the
 * compositor copies the front buffer and marks it held by its frame c
 * (winapp_hold). Before the app draws into a buffer again, its context
 * waits on the GPU for the compositor's sync object (shared with it by
 * winapp_attach) to reach the last frame that held it, so a buffer is
 * never redrawn while a composition that reads it may still run. With
 * buffers = depth + 1 there is always such a buffer.
 *
 * Checked by content once drained: the front buffer holds exactly the
 * picture of the last frame that completed, and every other buffer the
 * picture of the last frame drawn into it.
 */
#ifndef FW_APPS_WINAPP_H
#define FW_APPS_WINAPP_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/frameapp.h"
#include "apps/picture.h"

#define WINAPP_CMD_BYTES    4096
#define WINAPP_MAX_BUFFERS  4

enum winapp_draw {
    WINAPP_DRAW_RECT,       /* SET_TARGET + RECT (render engine) */
    WINAPP_DRAW_FILL,       /* FILL */
    WINAPP_DRAW_PICTURE,    /* the config's picture of frame n */
};

struct winapp_config;
/* Frame n's picture on a width x height window. */
typedef void (*winapp_picture_fn)(const struct winapp_config *c, uint64_t n,
                                  struct picture *out);

struct winapp_config {
    enum vidsch_priority prio;
    uint8_t tag;            /* top byte of its colours (RECT, FILL) */
    struct frameapp_config frames;
    uint64_t work_ns;       /* per frame */
    uint64_t work_packet_ns;
    enum winapp_draw draw;
    winapp_picture_fn picture;      /* WINAPP_DRAW_PICTURE */
    uint32_t width, height; /* XRGB8888 pixels; pitch = width * 4 */
    unsigned buffers;       /* swap chain length; 0: 1 */
    unsigned privileges;    /* granted by its launcher: KAPI_PRIV_* */
};

struct winapp {
    struct frameapp f;      /* first */
    struct winapp_config cfg;
    unsigned nbuf;
    uint32_t hwin[WINAPP_MAX_BUFFERS];      /* the window's surfaces */
    uint32_t shared[WINAPP_MAX_BUFFERS];    /* their global names */
    uint64_t front;         /* the last frame that completed (0: none) */
    unsigned front_buf;     /* the buffer it is in */
    uint64_t drawn[WINAPP_MAX_BUFFERS];     /* last frame drawn into each */
    bool drawing[WINAPP_MAX_BUFFERS];       /* a frame in flight draws it */
    uint8_t frame_buf[FRAMEAPP_SLOTS];      /* frame n's buffer, n mod */
    /* The compositor's side of the swap chain. */
    uint32_t hcomp_sync;    /* its sync object, opened here; 0: none */
    uint64_t held[WINAPP_MAX_BUFFERS];      /* its last frame reading it */
    uint64_t waits;         /* GPU waits for it before redrawing */
    uint32_t cmd[WINAPP_CMD_BYTES / 4];
};

/* Process, device, context, window. DDI_OK or the failing call's code. */
/* The window's owner grants process pid (the compositor) read access to
 * its surfaces, so that it may open them by their shared names. */
int winapp_share_to(struct winapp *w, uint32_t pid);

int winapp_init(struct winapp *w, struct kernel *k, const char *name,
                const struct winapp_config *cfg);

/* Frame n's picture (what its buffer holds once n completed). */
void winapp_picture(const struct winapp *w, uint64_t n, struct picture *out);

/* The compositor shares its sync object (global name) with the app: the
 * app waits for it before redrawing a buffer the compositor held. */
int winapp_attach(struct winapp *w, uint32_t comp_sync_name);

/* The compositor's frame c reads buffer b (a value the compositor's
 * sync object reaches once that frame has completed). */
static inline void winapp_hold(struct winapp *w, unsigned b, uint64_t c)
{
    if (b < w->nbuf && c > w->held[b]) {
        w->held[b] = c;
    }
}

/* Settings of the desktop's applications. */
void game_config_default(struct winapp_config *c);
void video_config_default(struct winapp_config *c);
void cursor_config_default(struct winapp_config *c);

static inline struct app *winapp_app(struct winapp *w)
{
    return &w->f.app;
}

#endif /* FW_APPS_WINAPP_H */
