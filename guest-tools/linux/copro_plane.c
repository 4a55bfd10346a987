// SPDX-License-Identifier: GPL-2.0-or-later
/**
 * DOC: planes
 *
 * The primary plane (XRGB8888 and the device's other formats, linear,
 * any position and size within the mode; its surface is committed at the
 * CRTC's flush or flipped at the next vsync) and the 64x64 ARGB cursor
 * plane (its image copied to a buffer of the kernel's, asynchronous
 * moves written at once).
 */
#include <linux/iopoll.h>
#include <linux/ktime.h>

#include <drm/drm_atomic.h>
#include <drm/drm_debugfs_crc.h>
#include <drm/drm_drv.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_modes.h>
#include <drm/drm_modeset_helper.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>

#include "copro_kms.h"

const u32 copro_primary_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,	/* alpha ignored: scanned out as XRGB8888 */
	DRM_FORMAT_RGB565,
	DRM_FORMAT_R8,
};

const u32 copro_cursor_formats[] = {
	DRM_FORMAT_ARGB8888,
};

const unsigned int copro_num_primary_formats =
	ARRAY_SIZE(copro_primary_formats);
const unsigned int copro_num_cursor_formats = ARRAY_SIZE(copro_cursor_formats);

const u64 copro_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID
};

u32 copro_hw_format(u32 fourcc)
{
	switch (fourcc) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
		return 3;	/* XRGB8888 */
	case DRM_FORMAT_RGB565:
		return 2;	/* RGB565 */
	case DRM_FORMAT_R8:
		return 1;	/* R8 */
	}
	return 0;
}

u64 copro_plane_addr(struct drm_plane_state *st)
{
	struct drm_framebuffer *fb = st->fb;
	struct drm_gem_vram_object *gbo = drm_gem_vram_of_gem(fb->obj[0]);
	s64 off = drm_gem_vram_offset(gbo);

	if (off < 0)
		return 0;
	return off + fb->offsets[0] + (u64)(st->src.y1 >> 16) * fb->pitches[0] +
	       (u64)(st->src.x1 >> 16) * fb->format->cpp[0];
}

/* ---- primary plane ---- */

static int copro_primary_check(struct drm_plane *plane,
			       struct copro_atomic_state *state)
{
	struct drm_plane_state *st = drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *cs = NULL;
	struct drm_framebuffer *fb = st->fb;
	u64 first;
	int ret;

	if (st->crtc)
		cs = drm_atomic_get_new_crtc_state(state, st->crtc);
	/*
	 * Any position and size inside the mode: the device shows the
	 * background where the primary does not cover (DISP_PLANE_POS).
	 */
	ret = drm_atomic_helper_check_plane_state(st, cs, DRM_PLANE_NO_SCALING,
						  DRM_PLANE_NO_SCALING,
						  true, true);
	if (ret || !st->visible)
		return ret;
	/* the device fetches 4-byte aligned rows of at most 64 KiB */
	first = fb->offsets[0] + (u64)(st->src.y1 >> 16) * fb->pitches[0] +
		(u64)(st->src.x1 >> 16) * fb->format->cpp[0];
	if (first % 4 || fb->pitches[0] % 4 ||
	    fb->pitches[0] > COPRO_DISP_MAX_PITCH)
		return -EINVAL;
	return 0;
}

static void copro_primary_update(struct drm_plane *plane,
				 struct copro_atomic_state *state)
{
	struct copro_device *cdev = to_copro(plane->dev);
	struct drm_plane_state *st = drm_atomic_get_new_plane_state(state, plane);
	struct drm_framebuffer *fb = st->fb;
	struct drm_display_mode *mode;
	u32 w, h, fmt, size, pos, bg;
	u64 addr;
	int idx;

	/* an invisible primary: the CRTC's flush shows the background */
	if (!fb || !st->visible || !st->crtc || !st->crtc->state->active)
		return;
	/* unplugged: the registers are gone (copro_remove) */
	if (!drm_dev_enter(plane->dev, &idx))
		return;
	addr = copro_plane_addr(st);
	w = drm_rect_width(&st->src) >> 16;
	h = drm_rect_height(&st->src) >> 16;
	fmt = copro_hw_format(fb->format->format);
	/* the visible part (src and dst are clipped to the mode alike) */
	mode = &st->crtc->state->mode;
	size = COPRO_DISP_SIZE(mode->hdisplay, mode->vdisplay);
	pos = COPRO_DISP_POS(st->dst.x1, st->dst.y1);
	bg = copro_crtc_background(st->crtc->state);

	if (cdev->hw_on && !cdev->hw_primary_off &&
	    cdev->hw_pitch == fb->pitches[0] &&
	    cdev->hw_width == w && cdev->hw_height == h &&
	    cdev->hw_format == fmt && cdev->hw_mode_size == size &&
	    cdev->hw_plane_pos == pos && cdev->hw_background == bg) {
		/* same geometry: a flip at the next vsync, written at flush */
		cdev->flip_queued = true;
		cdev->flip_addr = addr;
		drm_dev_exit(idx);
		return;
	}
	/* new geometry: commit it now (the vsync phase is kept if on) */
	copro_wr64(cdev, COPRO_REG_DISP_SURFACE, addr);
	copro_wr32(cdev, COPRO_REG_DISP_PITCH, fb->pitches[0]);
	copro_wr32(cdev, COPRO_REG_DISP_WIDTH, w);
	copro_wr32(cdev, COPRO_REG_DISP_HEIGHT, h);
	copro_wr32(cdev, COPRO_REG_DISP_FORMAT, fmt);
	copro_wr32(cdev, COPRO_REG_DISP_MODE_SIZE, size);
	copro_wr32(cdev, COPRO_REG_DISP_PLANE_POS, pos);
	copro_wr32(cdev, COPRO_REG_DISP_BACKGROUND, bg);
	copro_wr32(cdev, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
	cdev->hw_on = true;
	cdev->hw_background = bg;
	cdev->hw_primary_off = false;
	cdev->hw_mode_size = size;
	cdev->hw_plane_pos = pos;
	cdev->hw_pitch = fb->pitches[0];
	cdev->hw_width = w;
	cdev->hw_height = h;
	cdev->hw_format = fmt;
	drm_dev_exit(idx);
}

const struct drm_plane_helper_funcs copro_primary_helpers = {
	DRM_GEM_VRAM_PLANE_HELPER_FUNCS,
	.atomic_check = copro_primary_check,
	.atomic_update = copro_primary_update,
};

/* ---- cursor plane ---- */

static int copro_cursor_check(struct drm_plane *plane,
			      struct copro_atomic_state *state)
{
	struct drm_plane_state *st = drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *cs = NULL;
	struct drm_framebuffer *fb = st->fb;
	int ret;

	if (st->crtc)
		cs = drm_atomic_get_new_crtc_state(state, st->crtc);
	ret = drm_atomic_helper_check_plane_state(st, cs, DRM_PLANE_NO_SCALING,
						  DRM_PLANE_NO_SCALING,
						  true, true);
	if (ret || !fb)
		return ret;
	/*
	 * The device blends one 64x64 image with a 256-byte pitch: a 64x64
	 * source rectangle at whole pixels of any larger buffer, copied into
	 * the driver's image where its layout differs (copro_cursor_program).
	 */
	if ((st->src_x | st->src_y) & 0xffff ||
	    st->src_w != COPRO_CURSOR_SIZE << 16 ||
	    st->src_h != COPRO_CURSOR_SIZE << 16 ||
	    st->crtc_w != COPRO_CURSOR_SIZE || st->crtc_h != COPRO_CURSOR_SIZE)
		return -EINVAL;
	return 0;
}

/*
 * The VRAM offset of the 64x64 image the device is to read: the buffer's
 * own rows where they lie 256 bytes apart, else a copy of the source
 * rectangle in the driver's image (made now: a later drawing in the buffer
 * shows at the next cursor update, as on hardware that latches the image).
 */
s64 copro_cursor_image(struct copro_device *cdev, struct drm_plane_state *st)
{
	struct drm_framebuffer *fb = st->fb;
	struct iosys_map map[DRM_FORMAT_MAX_PLANES];
	struct iosys_map data[DRM_FORMAT_MAX_PLANES];
	u32 x = st->src_x >> 16, y = st->src_y >> 16, row;
	u64 first = fb->offsets[0] + (u64)y * fb->pitches[0] + x * 4;
	s64 off = drm_gem_vram_offset(drm_gem_vram_of_gem(fb->obj[0]));

	if (off < 0)
		return off;
	if (fb->pitches[0] == COPRO_CURSOR_PITCH && !x)
		return off + first;
	if (!cdev->cursor_gbo || drm_gem_fb_vmap(fb, map, data))
		return -ENOMEM;
	for (row = 0; row < COPRO_CURSOR_SIZE; row++) {
		u8 line[COPRO_CURSOR_PITCH];

		iosys_map_memcpy_from(line, &map[0],
				      first + (u64)row * fb->pitches[0],
				      sizeof(line));
		iosys_map_memcpy_to(&cdev->cursor_map, row * COPRO_CURSOR_PITCH,
				    line, sizeof(line));
	}
	drm_gem_fb_vunmap(fb, map);
	return cdev->cursor_off;
}

void copro_cursor_program(struct copro_device *cdev,
			  struct drm_plane_state *st)
{
	s64 off;
	int x, y, idx;

	/* unplugged: neither the registers nor VRAM are there */
	if (!drm_dev_enter(&cdev->drm, &idx))
		return;
	off = st->fb && st->crtc && st->visible ?
	      copro_cursor_image(cdev, st) : -ENOENT;
	if (off < 0) {
		copro_wr32(cdev, COPRO_REG_CURSOR_CONTROL, 0);
		drm_dev_exit(idx);
		return;
	}
	/* visible means on screen, so both fit in the register's 16 bits */
	x = clamp(st->crtc_x, -COPRO_CURSOR_SIZE, COPRO_DISP_MAX_DIM);
	y = clamp(st->crtc_y, -COPRO_CURSOR_SIZE, COPRO_DISP_MAX_DIM);
	copro_wr64(cdev, COPRO_REG_CURSOR_SURFACE, off);
	copro_wr32(cdev, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(x, y));
	copro_wr32(cdev, COPRO_REG_CURSOR_CONTROL, COPRO_CURSOR_CTL_ENABLE);
	drm_dev_exit(idx);
}

static void copro_cursor_update(struct drm_plane *plane,
				struct copro_atomic_state *state)
{
	copro_cursor_program(to_copro(plane->dev),
			     drm_atomic_get_new_plane_state(state, plane));
}

static void copro_cursor_disable(struct drm_plane *plane,
				 struct copro_atomic_state *state)
{
	int idx;

	if (!drm_dev_enter(plane->dev, &idx))
		return;
	copro_wr32(to_copro(plane->dev), COPRO_REG_CURSOR_CONTROL, 0);
	drm_dev_exit(idx);
}

/*
 * The cursor registers take effect at once, so a cursor move or image
 * change need not wait for a vblank: asynchronous updates let a client
 * move it as often as it likes.
 */
static int copro_cursor_async_check(struct drm_plane *plane,
				    struct copro_atomic_state *state)
{
	struct drm_plane_state *st = drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *cs;

	if (!st->crtc || !st->fb || plane->state->crtc != st->crtc)
		return -EINVAL;
	cs = drm_atomic_get_new_crtc_state(state, st->crtc);
	if (!cs || !cs->active || drm_atomic_crtc_needs_modeset(cs))
		return -EINVAL;
	return copro_cursor_check(plane, state);
}

#ifdef COPRO_ASYNC_CHECK_FLIP
/* 7.x also asks for async page flips: the cursor may take part in them */
static int copro_cursor_async_check_flip(struct drm_plane *plane,
					 struct copro_atomic_state *state,
					 bool flip)
{
	return copro_cursor_async_check(plane, state);
}
#endif

static void copro_cursor_async_update(struct drm_plane *plane,
				      struct copro_atomic_state *state)
{
	struct drm_plane_state *st = drm_atomic_get_new_plane_state(state, plane);
	struct drm_plane_state *cur = plane->state;

	/*
	 * Update the current state in place; the new state takes the old
	 * framebuffer, so the commit's cleanup unpins that one.
	 */
	swap(cur->fb, st->fb);
	cur->crtc_x = st->crtc_x;
	cur->crtc_y = st->crtc_y;
	cur->crtc_w = st->crtc_w;
	cur->crtc_h = st->crtc_h;
	cur->src_x = st->src_x;
	cur->src_y = st->src_y;
	cur->src_w = st->src_w;
	cur->src_h = st->src_h;
	cur->src = st->src;
	cur->dst = st->dst;
	cur->visible = st->visible;
	copro_cursor_program(to_copro(plane->dev), cur);
}

const struct drm_plane_helper_funcs copro_cursor_helpers = {
	DRM_GEM_VRAM_PLANE_HELPER_FUNCS,
	.atomic_check = copro_cursor_check,
	.atomic_update = copro_cursor_update,
	.atomic_disable = copro_cursor_disable,
#ifdef COPRO_ASYNC_CHECK_FLIP
	.atomic_async_check = copro_cursor_async_check_flip,
#else
	.atomic_async_check = copro_cursor_async_check,
#endif
	.atomic_async_update = copro_cursor_async_update,
};

static bool copro_format_mod_supported(struct drm_plane *plane, u32 format,
				       u64 modifier)
{
	return modifier == DRM_FORMAT_MOD_LINEAR;
}

const struct drm_plane_funcs copro_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
	.format_mod_supported = copro_format_mod_supported,
};
