/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compositor's scene path (apps/compositor.h, "In scenes"): internal
 * to apps/compositor.c and apps/compositor_scene.c.
 */
#ifndef FW_APPS_COMPOSITOR_SCENE_H
#define FW_APPS_COMPOSITOR_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/compositor.h"

/* GPU-VA views of the n allocations halloc[] of the compositor's process
 * (its primaries, a window's surfaces) at va[], usable by every scene
 * from now on. */
int comp_scene_view(struct compositor *c, const uint32_t *halloc,
                    unsigned n, uint64_t *va);

/*
 * Frame r (number n) as a scene: the desktop picture, window i's buffer
 * win_buf[i] (-1: nothing drawn yet) and, drawn in, the cursor's buffer
 * cursor_buf (-1: none). Submits the geometry and the tile pass, and
 * makes the frame's own render context wait for the tile pass. False if
 * it failed (recorded with app_fail).
 */
bool comp_scene_submit(struct compositor *c, uint64_t n,
                       const struct compositor_frame *r,
                       const struct picture *desk, const int *win_buf,
                       int cursor_buf);

/* Frame n's first packet's start (its geometry's), GPU clock; 0 if
 * unknown. */
uint64_t comp_scene_start(struct compositor *c, uint64_t n);

#endif /* FW_APPS_COMPOSITOR_SCENE_H */
