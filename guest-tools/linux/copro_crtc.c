// SPDX-License-Identifier: GPL-2.0-or-later
/**
 * DOC: the CRTC and vblank
 *
 * The CRTC turns the scanout on and off and commits or flips the primary
 * plane's surface at its flush; vblank counts and times are the device's
 * latched VSYNC_COUNT and VSYNC_TIME; the pipe CRC is the device's frame
 * CRC. copro_kms_vsync is the display's part of the interrupt handler.
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

/* ---- CRTC ---- */

enum drm_mode_status copro_check_mode(struct copro_device *cdev,
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

void copro_send_flip_event(struct copro_device *cdev)
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

const struct drm_crtc_helper_funcs copro_crtc_helpers = {
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

const struct drm_crtc_funcs copro_crtc_funcs = {
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
