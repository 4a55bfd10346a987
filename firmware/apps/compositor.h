/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compositor (DWM's part): HIGH priority, one frame per vsync. Frame
 * n is released by the kernel's vsync event and composed with GPU work on
 * the render engine into the back buffer, the one of its two primaries
 * not on screen: the desktop (background, taskbar, the frame number in
 * lights, each window's border and title bar), then each window's front
 * buffer copied row by row into its place, then the cursor. It is then
 * presented (kapi_present: shown once the GPU has finished it, flipped at
 * a vsync), and the next frame is composed only once that present is on
 * screen, so the back buffer is never the one scanned out. A vsync that
 * finds the previous present not yet shown releases nothing (a dropped
 * frame, a deadline miss), and every present's result says how many
 * vblanks went by without a new picture: the missed-vblank measure, from
 * the driver's FLIP_DONE.
 *
 * The cursor: with a pointer plane, frame n copies the cursor
 * application's shape into one of two pointer images of its own and puts
 * it on the plane, with the position of frame n, when frame n is shown;
 * without one (or with sw_cursor), it copies the shape's opaque pixels
 * into the primary, row by row.
 *
 * Windows are swap chains (apps/winapp.h): the compositor copies a
 * window's front buffer and marks it held by frame n, so the application
 * waits on the GPU for the compositor's sync object before drawing into
 * it again. What frame n composed (each window's front frame, the
 * cursor's frame and position) is recorded, so the picture is known.
 *
 * Checked by content once drained: the primary on screen is, pixel for
 * pixel, the desktop of its frame with the windows' pictures of the
 * frames it copied (apps/picture.h, the applications' own models), the
 * pointer image the cursor's picture; every present was shown; the
 * kernel counted the same flips. compositor_screen() then gives the
 * screen as QEMU shows it (the pointer blended over the scanout): its
 * CRC-32 and sample pixels, for a host to compare with a screendump.
 *
 * In scenes (compositor_use_scenes, apps/compositor_scene.c): the same
 * frame composed as a scene (docs/specs/copro.rst, "Tiling") by a GPU-VA
 * device of the compositor's process: a geometry buffer on engine 0
 * (SCENE_BEGIN with the desktop's background as clear colour, a
 * BIN_RECT per rectangle of the desktop, a BIN_BLIT per window's front
 * buffer, the drawn-in cursor's rows as BIN_BLITs, SCENE_END) and a tile
 * pass on the tile engine held on the geometry's signal, into the
 * primary through a GPU-VA view of it (kapi_map_gpu_va; the windows'
 * surfaces are read through read-only views). The frame's own buffer on
 * the render context waits on the GPU for the tile pass, so its signal,
 * which the present and the windows wait for, still says "frame n is
 * composed". The picture, and so the check, is the same.
 */
#ifndef FW_APPS_COMPOSITOR_H
#define FW_APPS_COMPOSITOR_H

#include <stdint.h>

#include "apps/frameapp.h"
#include "apps/picture.h"
#include "apps/scene_pipe.h"
#include "apps/winapp.h"

#define COMPOSITOR_MAX_WINDOWS  4
#define COMPOSITOR_MAX_WIDTH    800
#define COMPOSITOR_MAX_HEIGHT   600
#define COMPOSITOR_RECORDS      8       /* frames remembered, by n mod */
#define COMPOSITOR_CMD_BYTES    8192
#define COMPOSITOR_SAMPLES      8
#define COMPOSITOR_SCENE_BYTES  8192

struct compositor_window {
    struct winapp *owner;       /* NULL: none */
    uint32_t h[WINAPP_MAX_BUFFERS];     /* its buffers, opened here */
    uint32_t x, y;              /* where its content goes on the screen */
    uint32_t title;             /* title bar colour */
    uint64_t va[WINAPP_MAX_BUFFERS];    /* in scenes: GPU-VA views */
};

/* What frame n composed. */
struct compositor_frame {
    uint64_t n;
    unsigned primary;           /* 0 or 1 */
    unsigned pointer;           /* pointer image it filled, 0 or 1 */
    uint64_t win_front[COMPOSITOR_MAX_WINDOWS];     /* 0: not drawn yet */
    uint64_t cursor_front;
    int32_t cx, cy;             /* the cursor's top-left */
};

struct compositor_sample {
    uint32_t x, y;
    uint32_t rgb;               /* 0xRRGGBB as the screen shows it */
    const char *what;
};

/* Composing in scenes (apps/compositor_scene.c). */
struct compositor_scenes {
    bool on;
    unsigned tile_engine;
    uint32_t hdev;              /* the GPU-VA device */
    struct scene_pipe pipe;     /* geometry on engine 0, tile passes */
    uint32_t hstamp;
    uint64_t stamp_va;
    uint64_t primary_va[2];
    uint32_t tiles;
    uint64_t scenes;            /* frames submitted as scenes */
    uint32_t geom[COMPOSITOR_SCENE_BYTES / 4];
    uint32_t tile[64];
};

/* The screen as the display shows it, once checked. */
struct compositor_screen {
    bool valid;                 /* the check ran and the picture is right */
    uint32_t width, height;
    uint64_t frame;             /* the compositor frame on screen */
    uint64_t vsync, time;       /* flipped at this vsync, GPU time */
    uint32_t crc;               /* CRC-32 of its R, G, B bytes, row by row
                                   (a PPM screendump's pixel data) */
    unsigned nsamples;
    struct compositor_sample sample[COMPOSITOR_SAMPLES];
};

struct compositor {
    struct frameapp f;          /* first */
    struct kapi_display_info disp;
    bool hw_cursor;             /* the pointer plane */
    uint32_t hprimary[2];
    uint32_t hpointer[2];       /* pointer images (hw_cursor) */
    uint32_t sync_name;         /* its frame sync object, shared */
    unsigned nwin;
    struct compositor_window win[COMPOSITOR_MAX_WINDOWS];
    struct compositor_window cursor;
    /* the cursor's opaque span per row [x0, x1), for the software path */
    uint8_t span[DDI_POINTER_SIZE][2];
    struct compositor_frame rec[COMPOSITOR_RECORDS];

    /* presents */
    bool present_pending;
    uint64_t shown;             /* frame on screen, 0: none of ours yet */
    unsigned on_screen;         /* its primary */
    unsigned pointer_shown;     /* the pointer image on the plane */
    uint64_t shown_vsync, shown_time;
    uint64_t presents, flips;
    uint64_t missed;            /* vblanks missed, from FLIP_DONE */
    uint64_t late_flips;        /* flips that missed at least one */
    uint64_t max_missed;
    uint64_t vsync_start, vsync_stop;   /* the source's count then */

    struct compositor_screen screen;
    /* composing a frame: its first packet's start to its last packet's
     * end (GPU clock), over the frames that completed */
    uint64_t composed, compose_ns_sum, compose_ns_max;
    struct compositor_scenes sc;
    uint32_t cmd[COMPOSITOR_CMD_BYTES / 4];
};

/* On display source 0, which must be on and XRGB8888; sw_cursor draws
 * the cursor into the primary even when there is a pointer plane. */
int compositor_init(struct compositor *c, struct kernel *k, const char *name,
                    bool sw_cursor);

/* Composes in scenes from now on, tile passes on tile_engine (the
 * render engine or another with COPRO_CAP_TILER's engines); needs the
 * kernel in GPU-VA mode. Before any window or cursor is added. */
int compositor_use_scenes(struct compositor *c, unsigned tile_engine);

/* Shows owner's window with its content's top-left at (x, y) (a title
 * bar and border go around it) and shares the compositor's sync object
 * with it. */
int compositor_add_window(struct compositor *c, struct winapp *owner,
                          uint32_t x, uint32_t y, uint32_t title);

/* Shows owner's window (a DDI_POINTER_SIZE square ARGB8888 shape) as
 * the cursor. */
int compositor_set_cursor(struct compositor *c, struct winapp *owner);

/* The checked screen (valid false if the check did not pass). */
static inline const struct compositor_screen *
compositor_screen(const struct compositor *c)
{
    return &c->screen;
}

static inline struct app *compositor_app(struct compositor *c)
{
    return &c->f.app;
}

#endif /* FW_APPS_COMPOSITOR_H */
