// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: KMS on the display block.
 *
 * One CRTC (the scanout), its primary plane and the 64x64 ARGB cursor
 * plane, one virtual encoder and connector. The device has no mode timings
 * of its own: it scans a surface of any size up to 4096x4096 out at its
 * fixed refresh, so every mode offered or accepted is one whose vertical
 * refresh is that rate.
 *
 * Flips: the primary plane's new address is written to DISP_FLIP at the
 * CRTC's flush, after its event is parked (under the event lock) for the
 * FLIP_DONE interrupt; the device applies the flip at the next vsync and
 * raises VSYNC and FLIP_DONE together, so the event carries that vsync's
 * count and time. The vblank counter and timestamp are the device's
 * latched VSYNC_COUNT and VSYNC_TIME, not the CPU's clock at interrupt
 * time (which is far noisier under emulation).
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

#include "copro_drv.h"

static const u32 copro_primary_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,	/* alpha ignored: scanned out as XRGB8888 */
	DRM_FORMAT_RGB565,
	DRM_FORMAT_R8,
};

static const u32 copro_cursor_formats[] = {
	DRM_FORMAT_ARGB8888,
};

static const u64 copro_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID
};

static u32 copro_hw_format(u32 fourcc)
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

/* ---- framebuffers ---- */

/*
 * Linear only (6.1 lets DRM_FORMAT_MOD_INVALID through ADDFB2 unless the
 * driver looks), single-plane formats the planes know, and a pitch and
 * offset the display can take.
 */
static int copro_fb_check_cmd(const struct drm_mode_fb_cmd2 *cmd)
{
	if ((cmd->flags & DRM_MODE_FB_MODIFIERS) &&
	    cmd->modifier[0] != DRM_FORMAT_MOD_LINEAR)
		return -EINVAL;
	if (!copro_hw_format(cmd->pixel_format))
		return -EINVAL;
	if (cmd->pitches[0] % 4 || cmd->pitches[0] > COPRO_DISP_MAX_PITCH ||
	    cmd->offsets[0] % 4)
		return -EINVAL;
	if (cmd->width > COPRO_DISP_MAX_DIM || cmd->height > COPRO_DISP_MAX_DIM)
		return -EINVAL;
	return 0;
}

/*
 * The display reads VRAM only: no buffer in guest memory (GTT). The object
 * the framebuffer holds is checked, not a lookup of the handle before it
 * was made: another thread may have closed the handle and reused it for a
 * GTT object in between.
 */
static struct drm_framebuffer *copro_fb_vram_only(struct drm_framebuffer *fb)
{
	if (!IS_ERR(fb) && copro_is_gtt(fb->obj[0])) {
		drm_framebuffer_put(fb);
		return ERR_PTR(-EINVAL);
	}
	return fb;
}

#ifdef COPRO_FB_CREATE_INFO
static struct drm_framebuffer *
copro_fb_create(struct drm_device *drm, struct drm_file *file,
		const struct drm_format_info *info,
		const struct drm_mode_fb_cmd2 *cmd)
{
	int ret = copro_fb_check_cmd(cmd);

	if (ret)
		return ERR_PTR(ret);
	return copro_fb_vram_only(drm_gem_fb_create(drm, file, info, cmd));
}
#else
static struct drm_framebuffer *
copro_fb_create(struct drm_device *drm, struct drm_file *file,
		const struct drm_mode_fb_cmd2 *cmd)
{
	int ret = copro_fb_check_cmd(cmd);

	if (ret)
		return ERR_PTR(ret);
	return copro_fb_vram_only(drm_gem_fb_create(drm, file, cmd));
}
#endif

static const struct drm_mode_config_funcs copro_mode_config_funcs = {
	.fb_create = copro_fb_create,
	.mode_valid = drm_vram_helper_mode_valid,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

static const struct drm_mode_config_helper_funcs copro_mode_config_helpers = {
	/* enable the CRTC before its planes: the primary commits the mode */
	.atomic_commit_tail = drm_atomic_helper_commit_tail_rpm,
};

/* GPU address (a VRAM offset) of the first pixel a plane shows */
static u64 copro_plane_addr(struct drm_plane_state *st)
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

static const struct drm_plane_helper_funcs copro_primary_helpers = {
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
static s64 copro_cursor_image(struct copro_device *cdev,
			      struct drm_plane_state *st)
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

static void copro_cursor_program(struct copro_device *cdev,
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

static const struct drm_plane_helper_funcs copro_cursor_helpers = {
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

static const struct drm_plane_funcs copro_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
	.format_mod_supported = copro_format_mod_supported,
};

/* ---- CRTC ---- */

static enum drm_mode_status copro_check_mode(struct copro_device *cdev,
					     const struct drm_display_mode *mode)
{
	if (!mode->hdisplay || mode->hdisplay > COPRO_DISP_MAX_DIM)
		return MODE_BAD_HVALUE;
	if (!mode->vdisplay || mode->vdisplay > COPRO_DISP_MAX_DIM)
		return MODE_BAD_VVALUE;
	if (mode->flags & (DRM_MODE_FLAG_INTERLACE | DRM_MODE_FLAG_DBLSCAN |
			   DRM_MODE_FLAG_DBLCLK))
		return MODE_NO_INTERLACE;
	/* the device scans out at one rate only */
	if (drm_mode_vrefresh(mode) != cdev->refresh)
		return MODE_BAD;
	return MODE_OK;
}

static enum drm_mode_status copro_crtc_mode_valid(struct drm_crtc *crtc,
						  const struct drm_display_mode *mode)
{
	return copro_check_mode(to_copro(crtc->dev), mode);
}

static int copro_crtc_check(struct drm_crtc *crtc,
			    struct copro_atomic_state *state)
{
	struct drm_crtc_state *cs = drm_atomic_get_new_crtc_state(state, crtc);

	/*
	 * Planes may all be off: the device then shows the background, so no
	 * primary-plane check (since 6.4 the helper only demands one).
	 */
	if (cs->enable &&
	    copro_check_mode(to_copro(crtc->dev), &cs->mode) != MODE_OK)
		return -EINVAL;
	return 0;
}

static void copro_send_flip_event(struct copro_device *cdev)
{
	/* drm.event_lock held */
	if (cdev->flip_event) {
		drm_crtc_send_vblank_event(&cdev->crtc, cdev->flip_event);
		cdev->flip_event = NULL;
		drm_crtc_vblank_put(&cdev->crtc);
	}
}

static void copro_crtc_enable(struct drm_crtc *crtc,
			      struct copro_atomic_state *state)
{
	struct copro_device *cdev = to_copro(crtc->dev);
	int idx;

	/*
	 * The primary plane's update commits the surface. Unplugged, the
	 * display is not turned on again and vblank stays off: with vblank
	 * off, the helpers' waits for one return at once.
	 */
	cdev->hw_on = false;
	if (drm_dev_enter(crtc->dev, &idx)) {
		copro_irq_enable(cdev, COPRO_INT_DEV_FLIP_DONE |
				 COPRO_INT_DEV_DISPLAY_ERROR);
		drm_crtc_vblank_on(crtc);
		drm_dev_exit(idx);
	}
}

static void copro_crtc_disable(struct drm_crtc *crtc,
			       struct copro_atomic_state *state)
{
	struct copro_device *cdev = to_copro(crtc->dev);
	struct drm_crtc_state *cs = drm_atomic_get_new_crtc_state(state, crtc);
	int idx;

	u32 sts;

	/*
	 * off: vsync stops and a pending flip is dropped, never completed.
	 * The commit's event says the CRTC is off: read DISP_STATUS back
	 * (which also pushes the posted write to the device) until the
	 * display no longer scans out, and stop vblank first, so that the
	 * event carries the last vblank's count and time. Unplugged,
	 * copro_remove turns the display off itself; the events are sent
	 * all the same.
	 */
	if (drm_dev_enter(crtc->dev, &idx)) {
		copro_wr32(cdev, COPRO_REG_DISP_CONTROL, 0);
		if (readl_poll_timeout(cdev->mmio + COPRO_REG_DISP_STATUS, sts,
				       !(sts & COPRO_DISP_STS_ACTIVE), 0,
				       20000))
			drm_warn(crtc->dev,
				 "display still scanning out after off\n");
		drm_dev_exit(idx);
	}
	cdev->hw_on = false;
	cdev->flip_queued = false;
	drm_crtc_vblank_off(crtc);
	spin_lock_irq(&crtc->dev->event_lock);
	copro_send_flip_event(cdev);
	if (cs->event) {
		drm_crtc_send_vblank_event(crtc, cs->event);
		cs->event = NULL;
	}
	spin_unlock_irq(&crtc->dev->event_lock);
}

/* copro_crtc_flush, inside drm_dev_enter: the registers */
static void copro_crtc_flush_hw(struct drm_crtc *crtc,
				struct drm_crtc_state *cs,
				struct drm_pending_vblank_event *ev, bool flip)
{
	struct copro_device *cdev = to_copro(crtc->dev);
	struct drm_plane_state *ps = cdev->primary.state;
	u32 size, bg;

	size = COPRO_DISP_SIZE(cs->mode.hdisplay, cs->mode.vdisplay);
	bg = copro_crtc_background(cs);
	if ((ps->crtc != crtc || !ps->visible) &&
	    (!cdev->hw_on || !cdev->hw_primary_off ||
	     cdev->hw_mode_size != size || cdev->hw_background != bg)) {
		/* no primary: the background at the mode's size */
		copro_wr32(cdev, COPRO_REG_DISP_MODE_SIZE, size);
		copro_wr32(cdev, COPRO_REG_DISP_BACKGROUND, bg);
		cdev->hw_background = bg;
		copro_wr32(cdev, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE |
			   COPRO_DISP_CTL_PRIMARY_OFF);
		cdev->hw_on = true;
		cdev->hw_primary_off = true;
		cdev->hw_mode_size = size;
		/* the device drops a pending flip: complete its event */
		spin_lock_irq(&crtc->dev->event_lock);
		copro_send_flip_event(cdev);
		spin_unlock_irq(&crtc->dev->event_lock);
		flip = false;
	} else if (ps->crtc == crtc && ps->visible && cdev->hw_on &&
		   !cdev->hw_primary_off && cdev->hw_background != bg) {
		/*
		 * A new background under the same primary: staged like the
		 * geometry, so committed with it, and with the surface the
		 * plane shows (flips do not restage DISP_SURFACE). That shows a
		 * queued flip's buffer at once: complete its event.
		 */
		copro_wr64(cdev, COPRO_REG_DISP_SURFACE, copro_plane_addr(ps));
		copro_wr32(cdev, COPRO_REG_DISP_BACKGROUND, bg);
		copro_wr32(cdev, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
		cdev->hw_background = bg;
		spin_lock_irq(&crtc->dev->event_lock);
		copro_send_flip_event(cdev);
		spin_unlock_irq(&crtc->dev->event_lock);
		flip = false;
	}
	if (flip) {
		/* park the event first: FLIP_DONE may follow the write at once */
		bool ref = drm_crtc_vblank_get(crtc) == 0;

		spin_lock_irq(&crtc->dev->event_lock);
		copro_send_flip_event(cdev);
		if (ev && ref) {
			cdev->flip_event = ev;
			ev = NULL;
		} else if (ref) {
			drm_crtc_vblank_put(crtc);
		}
		/* an asynchronous flip tears, and FLIP_DONE comes at once */
		copro_wr64(cdev, cs->async_flip ? COPRO_REG_DISP_FLIP_ASYNC :
			   COPRO_REG_DISP_FLIP, cdev->flip_addr);
		if (ev)
			drm_crtc_send_vblank_event(crtc, ev);
		spin_unlock_irq(&crtc->dev->event_lock);
		return;
	}
	if (!ev)
		return;
	/* no flip (a new mode, a cursor change): complete at the next vblank */
	spin_lock_irq(&crtc->dev->event_lock);
	if (drm_crtc_vblank_get(crtc) == 0)
		drm_crtc_arm_vblank_event(crtc, ev);
	else
		drm_crtc_send_vblank_event(crtc, ev);
	spin_unlock_irq(&crtc->dev->event_lock);
}

static void copro_crtc_flush(struct drm_crtc *crtc,
			     struct copro_atomic_state *state)
{
	struct copro_device *cdev = to_copro(crtc->dev);
	struct drm_crtc_state *cs = drm_atomic_get_new_crtc_state(state, crtc);
	struct drm_pending_vblank_event *ev = cs->event;
	bool flip = cdev->flip_queued;
	int idx;

	cdev->flip_queued = false;
	if (!cs->active)
		return;
	cs->event = NULL;
	if (!drm_dev_enter(crtc->dev, &idx)) {
		/* unplugged: no vblank will come, complete it now */
		if (ev) {
			spin_lock_irq(&crtc->dev->event_lock);
			drm_crtc_send_vblank_event(crtc, ev);
			spin_unlock_irq(&crtc->dev->event_lock);
		}
		return;
	}
	copro_crtc_flush_hw(crtc, cs, ev, flip);
	drm_dev_exit(idx);
}

static const struct drm_crtc_helper_funcs copro_crtc_helpers = {
	.mode_valid = copro_crtc_mode_valid,
	.atomic_check = copro_crtc_check,
	.atomic_flush = copro_crtc_flush,
	.atomic_enable = copro_crtc_enable,
	.atomic_disable = copro_crtc_disable,
};

static int copro_enable_vblank(struct drm_crtc *crtc)
{
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return -ENODEV;
	copro_irq_enable(to_copro(crtc->dev), COPRO_INT_DEV_VSYNC);
	drm_dev_exit(idx);
	return 0;
}

static void copro_disable_vblank(struct drm_crtc *crtc)
{
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return;
	copro_irq_disable(to_copro(crtc->dev), COPRO_INT_DEV_VSYNC);
	drm_dev_exit(idx);
}

static u32 copro_get_vblank_counter(struct drm_crtc *crtc)
{
	struct copro_device *cdev = to_copro(crtc->dev);
	int idx;

	/*
	 * Unplugged: the count the interrupt handler read last (it reads the
	 * registers until copro_remove has freed the vectors), so that the
	 * count neither jumps nor stalls while removal turns the display off.
	 */
	if (drm_dev_enter(crtc->dev, &idx)) {
		WRITE_ONCE(cdev->vsync_last,
			   copro_rd64(cdev, COPRO_REG_DISP_VSYNC_COUNT));
		drm_dev_exit(idx);
	}
	return (u32)(cdev->vsync_base + READ_ONCE(cdev->vsync_last));
}

/*
 * The last vsync's device time, mapped to CLOCK_MONOTONIC through a
 * reading of GPU_TIME taken next to ktime_get() (both clocks run at the
 * same rate; bracketing the CPU read with two device reads bounds the
 * error by half their distance, retried when an emulator stall made it
 * wide).
 */
static bool copro_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
				       ktime_t *vblank_time, bool in_vblank_irq)
{
	struct copro_device *cdev = to_copro(crtc->dev);
	u64 vsync, g0, g1;
	unsigned long flags;
	ktime_t now;
	int tries = 0;
	int err, idx;

	/* unplugged: drm_vblank takes its own timestamp */
	if (!drm_dev_enter(crtc->dev, &idx))
		return false;
	vsync = copro_rd64(cdev, COPRO_REG_DISP_VSYNC_TIME);
	do {
		local_irq_save(flags);
		g0 = copro_rd64(cdev, COPRO_REG_GPU_TIME);
		now = ktime_get();
		g1 = copro_rd64(cdev, COPRO_REG_GPU_TIME);
		local_irq_restore(flags);
	} while (g1 - g0 > 10 * NSEC_PER_USEC && ++tries < 4);
	drm_dev_exit(idx);
	if (!vsync || vsync > g0)
		return false;
	*vblank_time = ktime_sub_ns(now, g0 + (g1 - g0) / 2 - vsync);
	/* in nanoseconds, as drm_crtc_funcs documents (review defect 8) */
	err = min_t(u64, (g1 - g0) / 2, INT_MAX);
	WRITE_ONCE(cdev->vblank_error_ns, err);
	if (max_error)
		*max_error = err;
	return true;
}

/*
 * Pipe CRC: one source, "auto" (the composed frame, cursor included, as
 * the device latches it at each vsync).
 */
static const char * const copro_crc_sources[] = { "auto" };

static int copro_verify_crc_source(struct drm_crtc *crtc, const char *source,
				   size_t *values_cnt)
{
	if (source && strcmp(source, "auto"))
		return -EINVAL;
	*values_cnt = 1;
	return 0;
}

static const char * const *copro_get_crc_sources(struct drm_crtc *crtc,
						 size_t *count)
{
	*count = ARRAY_SIZE(copro_crc_sources);
	return copro_crc_sources;
}

static int copro_set_crc_source(struct drm_crtc *crtc, const char *source)
{
	struct copro_device *cdev = to_copro(crtc->dev);
	bool on = source && !strcmp(source, "auto");
	int ret = 0, idx;

	if (source && !on)
		return -EINVAL;
	if (on == cdev->crc_on)
		return 0;
	if (!drm_dev_enter(crtc->dev, &idx))
		return -ENODEV;
	if (on) {
		/* the CRCs arrive with the vsync interrupt */
		ret = drm_crtc_vblank_get(crtc);
		if (!ret) {
			copro_wr32(cdev, COPRO_REG_DISP_CRC_CONTROL,
				   COPRO_DISP_CRC_CTL_ENABLE);
			WRITE_ONCE(cdev->crc_on, true);
		}
	} else {
		WRITE_ONCE(cdev->crc_on, false);
		copro_wr32(cdev, COPRO_REG_DISP_CRC_CONTROL, 0);
		drm_crtc_vblank_put(crtc);
	}
	drm_dev_exit(idx);
	return ret;
}

static const struct drm_crtc_funcs copro_crtc_funcs = {
	.reset = drm_atomic_helper_crtc_reset,
	.destroy = drm_crtc_cleanup,
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
	.enable_vblank = copro_enable_vblank,
	.disable_vblank = copro_disable_vblank,
	.get_vblank_counter = copro_get_vblank_counter,
	.get_vblank_timestamp = copro_get_vblank_timestamp,
	.set_crc_source = copro_set_crc_source,
	.verify_crc_source = copro_verify_crc_source,
	.get_crc_sources = copro_get_crc_sources,
};

/* Device events, from the interrupt handler (the causes are acked). */
void copro_kms_vsync(struct copro_device *cdev, u64 causes)
{
	struct drm_device *drm = &cdev->drm;
	unsigned long flags;

	/* VSYNC first: the flip's event carries this vsync's count and time */
	if (causes & COPRO_INT_DEV_VSYNC) {
		cdev->vsyncs++;
		WRITE_ONCE(cdev->vsync_last,
			   copro_rd64(cdev, COPRO_REG_DISP_VSYNC_COUNT));
		drm_crtc_handle_vblank(&cdev->crtc);
		if (READ_ONCE(cdev->crc_on)) {
			u64 frame = copro_rd64(cdev, COPRO_REG_DISP_CRC_VSYNC);
			u32 crc = copro_rd64(cdev, COPRO_REG_DISP_CRC);

			if (frame) {
				cdev->crcs++;
				drm_crtc_add_crc_entry(&cdev->crtc, true,
						       (u32)(cdev->vsync_base +
							     frame), &crc);
			}
		}
	}
	if (causes & (COPRO_INT_DEV_FLIP_DONE | COPRO_INT_DEV_DISPLAY_ERROR)) {
		if (causes & COPRO_INT_DEV_FLIP_DONE)
			cdev->flips_done++;
		/* a refused flip completes too: the client must not hang */
		if (causes & COPRO_INT_DEV_DISPLAY_ERROR)
			cdev->display_errors++;
		spin_lock_irqsave(&drm->event_lock, flags);
		if (!(copro_rd64(cdev, COPRO_REG_DISP_FLIP) &
		      COPRO_DISP_FLIP_PENDING))
			copro_send_flip_event(cdev);
		spin_unlock_irqrestore(&drm->event_lock, flags);
	}
}

/* ---- connector ---- */

/* sizes offered at the device's refresh rate; the first is preferred */
static const struct {
	u16 w, h;
} copro_sizes[] = {
	{ 1024, 768 }, { 640, 480 }, { 800, 600 }, { 1280, 720 },
	{ 1280, 800 }, { 1280, 1024 }, { 1600, 900 }, { 1920, 1080 },
	{ 1920, 1200 }, { 2560, 1440 }, { 3840, 2160 }, { 4096, 4096 },
};

static int copro_conn_get_modes(struct drm_connector *conn)
{
	struct copro_device *cdev = to_copro(conn->dev);
	struct drm_display_mode *mode;
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(copro_sizes); i++) {
		mode = drm_cvt_mode(conn->dev, copro_sizes[i].w,
				    copro_sizes[i].h, cdev->refresh,
				    false, false, false);
		if (!mode)
			continue;
		/* make the pixel clock give exactly the device's rate */
		mode->clock = DIV_ROUND_CLOSEST_ULL((u64)mode->htotal *
						    mode->vtotal * cdev->refresh,
						    1000);
		mode->type = DRM_MODE_TYPE_DRIVER;
		if (!i)
			mode->type |= DRM_MODE_TYPE_PREFERRED;
		drm_mode_set_name(mode);
		if (copro_check_mode(cdev, mode) != MODE_OK) {
			drm_mode_destroy(conn->dev, mode);
			continue;
		}
		drm_mode_probed_add(conn, mode);
		n++;
	}
	return n;
}

static enum drm_mode_status
copro_conn_mode_valid(struct drm_connector *conn, copro_conn_mode *mode)
{
	return copro_check_mode(to_copro(conn->dev), mode);
}

static const struct drm_connector_helper_funcs copro_conn_helpers = {
	.get_modes = copro_conn_get_modes,
	.mode_valid = copro_conn_mode_valid,
};

static const struct drm_connector_funcs copro_conn_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

static const struct drm_encoder_funcs copro_encoder_funcs = {
	.destroy = drm_encoder_cleanup,
};

/*
 * System sleep: the display's state is the atomic state, saved and the
 * CRTC turned off before the system sleeps (no vsync, no scanout while
 * suspended), committed again at resume. The GART registers are written
 * again too, in case the platform powered the device off (VRAM, where the
 * table lives, is the device's and kept by QEMU).
 */
static int copro_pm_suspend(struct device *dev)
{
	struct copro_device *cdev = dev_get_drvdata(dev);
	int ret;

	ret = drm_mode_config_helper_suspend(&cdev->drm);
	if (ret)
		return ret;
	/* and no job runs while the device sleeps */
	copro_render_suspend(cdev);
	return 0;
}

static int copro_pm_resume(struct device *dev)
{
	struct copro_device *cdev = dev_get_drvdata(dev);

	copro_gart_program(cdev);
	copro_render_resume(cdev);
	return drm_mode_config_helper_resume(&cdev->drm);
}

const struct dev_pm_ops copro_pm_ops = {
	SYSTEM_SLEEP_PM_OPS(copro_pm_suspend, copro_pm_resume)
};

static void copro_cursor_image_fini(struct drm_device *drm, void *data)
{
	struct copro_device *cdev = data;

	copro_kbo_destroy(cdev->cursor_gbo, &cdev->cursor_map);
	cdev->cursor_gbo = NULL;
}

/* the driver's 64x64 cursor image, pinned in VRAM for the device's life */
static int copro_cursor_image_init(struct copro_device *cdev)
{
	int ret;

	ret = copro_kbo_create(cdev, COPRO_CURSOR_PITCH * COPRO_CURSOR_SIZE,
			       &cdev->cursor_gbo, &cdev->cursor_map,
			       &cdev->cursor_off);
	if (ret)
		return ret;
	return drmm_add_action_or_reset(&cdev->drm, copro_cursor_image_fini,
					cdev);
}

int copro_kms_init(struct copro_device *cdev)
{
	struct drm_device *drm = &cdev->drm;
	int ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	ret = copro_cursor_image_init(cdev);
	if (ret)
		return ret;
	drm->mode_config.min_width = 1;
	drm->mode_config.min_height = 1;
	drm->mode_config.max_width = COPRO_DISP_MAX_DIM;
	drm->mode_config.max_height = COPRO_DISP_MAX_DIM;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.prefer_shadow = 1;
	drm->mode_config.cursor_width = COPRO_CURSOR_SIZE;
	drm->mode_config.cursor_height = COPRO_CURSOR_SIZE;
	/* DRM_MODE_PAGE_FLIP_ASYNC: DISP_FLIP_ASYNC shows it at once */
	drm->mode_config.async_page_flip = true;
	drm->mode_config.funcs = &copro_mode_config_funcs;
	drm->mode_config.helper_private = &copro_mode_config_helpers;

	ret = drm_universal_plane_init(drm, &cdev->primary, 1, &copro_plane_funcs,
				       copro_primary_formats,
				       ARRAY_SIZE(copro_primary_formats),
				       copro_modifiers, DRM_PLANE_TYPE_PRIMARY,
				       NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&cdev->primary, &copro_primary_helpers);
	/*
	 * The display reads the framebuffer in VRAM at every refresh, so a
	 * damage rectangle changes nothing it shows; offered for clients that
	 * always send one (see docs/linux.rst).
	 */
	drm_plane_enable_fb_damage_clips(&cdev->primary);

	ret = drm_universal_plane_init(drm, &cdev->cursor, 1, &copro_plane_funcs,
				       copro_cursor_formats,
				       ARRAY_SIZE(copro_cursor_formats),
				       copro_modifiers, DRM_PLANE_TYPE_CURSOR,
				       NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&cdev->cursor, &copro_cursor_helpers);

	ret = drm_crtc_init_with_planes(drm, &cdev->crtc, &cdev->primary,
					&cdev->cursor, &copro_crtc_funcs, NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&cdev->crtc, &copro_crtc_helpers);
	/* 7.x: pixels no plane covers show BACKGROUND_COLOR */
	copro_crtc_attach_background(&cdev->crtc);

	cdev->encoder.possible_crtcs = drm_crtc_mask(&cdev->crtc);
	ret = drm_encoder_init(drm, &cdev->encoder, &copro_encoder_funcs,
			       DRM_MODE_ENCODER_VIRTUAL, NULL);
	if (ret)
		return ret;

	ret = drm_connector_init(drm, &cdev->connector, &copro_conn_funcs,
				 DRM_MODE_CONNECTOR_VIRTUAL);
	if (ret)
		return ret;
	drm_connector_helper_add(&cdev->connector, &copro_conn_helpers);
	ret = drm_connector_attach_encoder(&cdev->connector, &cdev->encoder);
	if (ret)
		return ret;

	ret = drm_vblank_init(drm, 1);
	if (ret)
		return ret;
	/* VSYNC_COUNT is 64-bit; the vblank core takes 32 bits of it */
	drm->max_vblank_count = U32_MAX;
	drm_mode_config_reset(drm);
	return 0;
}
