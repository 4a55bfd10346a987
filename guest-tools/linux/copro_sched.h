/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one drm_sched difference between the kernels the driver supports
 * (Debian 13's 6.12 and the newest, 7.x; see docs/linux.rst).
 *
 * A job that outlives its timeout but is only long (the engine honoured
 * a preemption request, or the job finished meanwhile) did not hang.
 * Since 6.17 timedout_job says so with DRM_GPU_SCHED_STAT_NO_HANG and
 * drm_sched puts the job back on its pending list and re-arms the
 * timeout itself; 6.12 has no such status, so the driver puts the job
 * back (as Xe did) and returns NOMINAL. Kbuild defines
 * COPRO_SCHED_NO_HANG when the kernel's header has the status: the
 * header is tested, not the version number.
 */
#ifndef COPRO_SCHED_H
#define COPRO_SCHED_H

#include <drm/gpu_scheduler.h>

#ifdef COPRO_SCHED_NO_HANG
static inline enum drm_gpu_sched_stat copro_sched_no_hang(struct drm_sched_job *job)
{
	return DRM_GPU_SCHED_STAT_NO_HANG;
}
#else
static inline enum drm_gpu_sched_stat copro_sched_no_hang(struct drm_sched_job *job)
{
	struct drm_gpu_scheduler *sched = job->sched;

	/* drm_sched took the job off its pending list to call timedout_job */
	spin_lock(&sched->job_list_lock);
	if (list_empty(&job->list))
		list_add(&job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}
#endif

#endif
