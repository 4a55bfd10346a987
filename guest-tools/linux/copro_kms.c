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

#include "copro_kms.h"

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
				       copro_num_primary_formats,
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
				       copro_num_cursor_formats,
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
