/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: the render half's objects, shared by the submission
 * ioctls (copro_submit.c) and the engines' rings (copro_ring.c).
 *
 * A context (drm_copro_ctx_create) has one drm_sched entity per engine at
 * its priority; a submission becomes a copro_job on one of them. run_job
 * writes the job's ring entry (or holds it while a preemption makes room
 * for it), the engine's DMA_DONE interrupt signals its hardware fence,
 * drm_sched then signals the job's finished fence and calls free_job.
 */
#ifndef COPRO_RENDER_H
#define COPRO_RENDER_H

#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/sizes.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#include <drm/drm_gem.h>
#include <drm/gpu_scheduler.h>

#include "copro_drv.h"

struct copro_file;

struct copro_ctx {
	struct kref ref;
	struct copro_device *cdev;
	struct copro_file *cfile;	/* statistics of the DRM file */
	u32 id;			/* the device's context id (descriptors) */
	enum drm_sched_priority prio;
	bool banned;		/* a job hung or faulted: no more submits */
	bool dead;		/* its process was killed: jobs dropped */
	struct mutex submit_lock;	/* job_arm + push_job in order */
	u64 fence_context;	/* hardware fences: one timeline per engine */
	u64 seqno[COPRO_MAX_ENGINES];
	u64 busy_ns;		/* device time of its retired jobs */
	u64 jobs;
	struct drm_sched_entity entity[COPRO_MAX_ENGINES];
};

/*
 * Per process (thread group) with a DRM file of the device open: the
 * unit of admission to the rings, so that opening more files gives a
 * process no more of them (copro_ring.c, copro_job_dependency).
 */
struct copro_proc {
	struct kref ref;	/* its files */
	struct list_head link;	/* cdev->procs */
	struct copro_device *cdev;
	struct pid *tgid;
	/* jobs past run_job and not signalled, per engine and priority
	 * (the engine's lock)
	 */
	u32 in_flight[COPRO_MAX_ENGINES][DRM_SCHED_PRIORITY_COUNT];
};

/* per DRM file */
struct copro_file {
	struct kref ref;
	struct xarray ctxs;	/* handle -> copro_ctx */
	u64 busy_ns[COPRO_MAX_ENGINES];	/* of retired jobs (fdinfo) */
	atomic64_t pool_bytes;	/* kernel pool its jobs hold */
	spinlock_t stat_lock;	/* busy_ns */
	struct copro_proc *proc;	/* the process that opened it */
};

struct copro_job {
	struct drm_sched_job base;
	struct copro_device *cdev;
	struct copro_ctx *ctx;
	unsigned int engine;
	enum drm_sched_priority prio;
	struct dma_fence *hw;	/* signalled when the ring entry retires */
	struct dma_fence *hw_mem;	/* @hw before run_job: allocated at
					 * submit, never in the signalling path
					 */
	struct list_head link;	/* engine's ring_jobs or held */
	u64 hwid;		/* fence id of its latest ring entry */
	u64 seq;		/* order of run_job on its engine */
	bool resume;		/* preempted mid-buffer: RESUME from save */
	bool counted;		/* in its process's in_flight */
	int error;		/* why it is dropped at the next rebuild */
	u64 start_ns;		/* GPU_TIME when it reached the ring head */
	u64 written_ns;		/* GPU_TIME when it was last written to the ring */
	u32 end_off;		/* pool offset of its end time (TIMESTAMP) */
	struct drm_mm_node mem;	/* pool: the stream, then the save area */
	struct copro_file *cfile;	/* charged for @mem */
	u64 dma_gpu;
	u32 dma_len;
	u64 save_gpu;
	unsigned int bo_count;
	struct drm_gem_object **bos;	/* pinned in VRAM while the job lives */
};

static inline struct copro_job *to_copro_job(struct drm_sched_job *j)
{
	return container_of(j, struct copro_job, base);
}

#define COPRO_SAVE_AREA		256u	/* COPRO_SAVE_SIZE, 64-aligned */
#define COPRO_END_AREA		64u	/* the job's end time (u64), 64-aligned */
/* one file may hold at most this much of the kernel pool (4 MiB) */
#define COPRO_FILE_POOL_MAX	SZ_1M

extern const struct drm_sched_backend_ops copro_sched_ops;

void copro_ctx_put(struct copro_ctx *ctx);
void copro_ctx_cancel(struct copro_ctx *ctx);

/* a banned or dead context's jobs are dropped, never run */
static inline bool copro_ctx_runnable(struct copro_ctx *ctx)
{
	return !READ_ONCE(ctx->banned) && !READ_ONCE(ctx->dead);
}

void copro_file_put(struct copro_file *cfile);
void copro_job_free(struct copro_job *job);

#endif
