/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compositor (DWM's part): HIGH priority, one frame per 16.67 ms,
 * due before the next. Until the display block exists it "presents" by
 * composing into its primary allocation and timestamping the result:
 * frame n fills the primary with its background colour, copies each
 * window (shared by its application, opened here) into its band of rows,
 * and copies the cursor sprite to a position that moves with n; the
 * frame's end timestamp is its present time.
 *
 * Checked by content once drained: every pixel of the primary is the last
 * frame's background, or in a window's band a colour that window's
 * application drew (any of its frames, as a window may be copied while
 * its application redraws it), or in the cursor's square a cursor colour.
 */
#ifndef FW_APPS_COMPOSITOR_H
#define FW_APPS_COMPOSITOR_H

#include <stdint.h>

#include "apps/frameapp.h"
#include "apps/winapp.h"

#define COMPOSITOR_MAX_WINDOWS  4
#define COMPOSITOR_WIDTH        256
#define COMPOSITOR_HEIGHT       192
#define COMPOSITOR_CMD_BYTES    4096

struct compositor_source {
    uint32_t h;                 /* the compositor's handle to the surface */
    uint32_t row;               /* first row in the primary (windows) */
    uint32_t rows, cols;
    const struct winapp *owner; /* whose colours may show there */
};

struct compositor {
    struct frameapp f;          /* first */
    uint32_t hprimary;
    unsigned nwin;
    struct compositor_source win[COMPOSITOR_MAX_WINDOWS];
    struct compositor_source cursor;    /* h == 0: none */
    uint32_t cmd[COMPOSITOR_CMD_BYTES / 4];
};

int compositor_init(struct compositor *c, struct kernel *k, const char *name);

/* Shows owner's window (as wide as the primary) from row on. */
int compositor_add_window(struct compositor *c, const struct winapp *owner,
                          uint32_t row);

/* Draws owner's sprite as the cursor. */
int compositor_set_cursor(struct compositor *c, const struct winapp *owner);

static inline struct app *compositor_app(struct compositor *c)
{
    return &c->f.app;
}

#endif /* FW_APPS_COMPOSITOR_H */
