/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: differences between the kernels the driver supports
 *
 * Debian 13's 6.12 and the newest Debian has, 7.x (docs/linux.rst). Each
 * difference is tested in the kernel's headers by Kbuild, never by
 * version number, and bridged here, so that the rest of the driver is
 * one code path:
 *
 * - 7.x calls the state of an atomic commit struct drm_atomic_commit
 *   (6.12: struct drm_atomic_state); the driver names it
 *   struct copro_atomic_state.
 * - 7.x's fb_create is handed the format's drm_format_info, which
 *   drm_gem_fb_create takes too (COPRO_FB_CREATE_INFO: copro_kms.c).
 * - 7.x's atomic_async_check says whether the update is a page flip
 *   (COPRO_ASYNC_CHECK_FLIP: copro_plane.c).
 * - 7.x's connector mode_valid takes a const mode (COPRO_CONST_MODE).
 * - hrtimer_setup replaced hrtimer_init in 6.13: 6.12 gets it here.
 * - 7.x has the CRTC's BACKGROUND_COLOR property (6.12: black only).
 *
 * And drm_gpuvm (copro_vm_bind.c): 7.x's drm_gpuvm_sm_map takes its
 * request in a struct drm_gpuvm_map_req (COPRO_GPUVM_MAP_REQ), and
 * drm_gpuvm_bo_obtain is called drm_gpuvm_bo_obtain_locked
 * (COPRO_GPUVM_OBTAIN_LOCKED); copro_gpuvm_sm_map and
 * copro_gpuvm_bo_obtain are both. 6.12 gives GEM objects their drm_gpuva
 * list only for a driver with DRIVER_GEM_GPUVA, which 7.x dropped
 * (COPRO_HAVE_DRIVER_GEM_GPUVA: COPRO_DRIVER_GEM_GPUVA).
 *
 * And drm_sched:
 *
 * A job that outlives its timeout but is only long (the engine honoured
 * a preemption request, or the job finished meanwhile) did not hang.
 * Since 6.17 timedout_job says so with DRM_GPU_SCHED_STAT_NO_HANG and
 * drm_sched puts the job back on its pending list and re-arms the
 * timeout itself; 6.12 has no such status, so the driver puts the job
 * back (as Xe did) and returns NOMINAL, or, when it was resolved
 * meanwhile, has drm_sched free it (review defect 3). Kbuild defines
 * COPRO_SCHED_NO_HANG when the kernel's header has the status: the
 * header is tested, not the version number.
 */
#ifndef COPRO_COMPAT_H
#define COPRO_COMPAT_H

#include <linux/hrtimer.h>
#include <drm/drm_blend.h>
#include <drm/drm_crtc.h>
#include <drm/drm_gpuvm.h>
#include <drm/gpu_scheduler.h>

#ifdef COPRO_DRM_ATOMIC_COMMIT
#define copro_atomic_state drm_atomic_commit
#else
#define copro_atomic_state drm_atomic_state
#endif

#ifdef COPRO_CONST_MODE
#define copro_conn_mode const struct drm_display_mode
#else
#define copro_conn_mode struct drm_display_mode
#endif

/*
 * 7.x: the CRTC's BACKGROUND_COLOR property, the colour of pixels no plane
 * covers; the device's DISP_BACKGROUND takes it as XRGB8888. 6.12 has no
 * such property: black.
 */
#ifdef COPRO_HAVE_BACKGROUND_COLOR
static inline u32 copro_crtc_background(const struct drm_crtc_state *cs)
{
	u64 c = cs->background_color;

	return DRM_ARGB64_GETR_BPCS(c, 8) << 16 |
	       DRM_ARGB64_GETG_BPCS(c, 8) << 8 | DRM_ARGB64_GETB_BPCS(c, 8);
}

static inline void copro_crtc_attach_background(struct drm_crtc *crtc)
{
	drm_crtc_attach_background_color_property(crtc);
}
#else
static inline u32 copro_crtc_background(const struct drm_crtc_state *cs)
{
	return 0;
}

static inline void copro_crtc_attach_background(struct drm_crtc *crtc)
{
}
#endif

#ifndef COPRO_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

static inline int copro_gpuvm_sm_map(struct drm_gpuvm *gpuvm, void *priv,
				     u64 addr, u64 range,
				     struct drm_gem_object *obj, u64 offset)
{
#ifdef COPRO_GPUVM_MAP_REQ
	struct drm_gpuvm_map_req req = {
		.map.va.addr = addr,
		.map.va.range = range,
		.map.gem.obj = obj,
		.map.gem.offset = offset,
	};

	return drm_gpuvm_sm_map(gpuvm, priv, &req);
#else
	return drm_gpuvm_sm_map(gpuvm, priv, addr, range, obj, offset);
#endif
}

#ifdef COPRO_HAVE_DRIVER_GEM_GPUVA
#define COPRO_DRIVER_GEM_GPUVA DRIVER_GEM_GPUVA
#else
#define COPRO_DRIVER_GEM_GPUVA 0
#endif

#ifdef COPRO_GPUVM_OBTAIN_LOCKED
#define copro_gpuvm_bo_obtain drm_gpuvm_bo_obtain_locked
#else
#define copro_gpuvm_bo_obtain drm_gpuvm_bo_obtain
#endif

#ifdef COPRO_SCHED_NO_HANG
static inline enum drm_gpu_sched_stat copro_sched_no_hang(struct drm_sched_job *job)
{
	return DRM_GPU_SCHED_STAT_NO_HANG;
}
#else
static inline enum drm_gpu_sched_stat copro_sched_no_hang(struct drm_sched_job *job)
{
	struct drm_gpu_scheduler *sched = job->sched;

	/*
	 * Resolved while timedout_job ran (a lost interrupt, a recovery,
	 * the job finishing during the preemption wait): its finished fence
	 * has signalled, and put back it would never be freed (the free
	 * work ran while it was off the list) and would time out for ever,
	 * hiding the jobs behind it. drm_sched frees a guilty job that
	 * completed as soon as timedout_job returns.
	 */
	if (dma_fence_is_signaled(&job->s_fence->finished)) {
		sched->free_guilty = true;
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}
	/* drm_sched took the job off its pending list to call timedout_job */
	spin_lock(&sched->job_list_lock);
	if (list_empty(&job->list))
		list_add(&job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}
#endif

#endif
