/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * drm_sched compatibility for the render half.
 *
 * Debian 12's kernel changed drm_sched_init() inside one stable series:
 * 6.1.191 and later take struct drm_sched_init_args, earlier ones the
 * positional arguments. Kbuild defines COPRO_SCHED_INIT_ARGS when the
 * header has the struct; this wrapper gives the engines one call either
 * way (copro_render_init). Both variants name the admission hook
 * .dependency (later kernels: .prepare_job), which copro_ring.c uses.
 */
#ifndef COPRO_SCHED_H
#define COPRO_SCHED_H

#include <drm/gpu_scheduler.h>

struct copro_sched_params {
	const struct drm_sched_backend_ops *ops;
	u32 hw_submission;	/* jobs in flight on the ring */
	unsigned int hang_limit;
	long timeout;		/* jiffies */
	const char *name;
	struct device *dev;
};

static inline int copro_sched_init(struct drm_gpu_scheduler *sched,
				   const struct copro_sched_params *p)
{
#ifdef COPRO_SCHED_INIT_ARGS
	const struct drm_sched_init_args args = {
		.ops = p->ops,
		.credit_limit = p->hw_submission,
		.hang_limit = p->hang_limit,
		.timeout = p->timeout,
		.name = p->name,
		.dev = p->dev,
	};

	return drm_sched_init(sched, &args);
#else
	return drm_sched_init(sched, p->ops, p->hw_submission, p->hang_limit,
			      p->timeout, NULL, NULL, p->name, p->dev);
#endif
}

#endif
