/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: the render half's objects, shared by the submission
 * ioctls (copro_submit.c) and the engines (copro_engine.h).
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
struct copro_proc;
struct copro_vm;

struct copro_ctx {
	struct kref ref;
	struct copro_device *cdev;
	struct copro_file *cfile;	/* statistics of the DRM file */
	struct copro_proc *proc;	/* its creator: charged for its id */
	u32 id;			/* the device's context id (descriptors) */
	struct copro_vm *vm;	/* its address space, NULL: physical */
	enum drm_sched_priority prio;
	bool banned;		/* a job hung or faulted: no more submits */
	bool dead;		/* its process was killed: jobs dropped */
	/*
	 * @closed: destroyed (CTX_DESTROY or the file's close), its entities
	 * torn down. Set under @submit_lock, which a submit holds from its
	 * check of @closed to drm_sched_entity_push_job: a submit that slept
	 * (pinning, pool memory) while its context was destroyed fails
	 * rather than putting the entity back on a run queue.
	 */
	bool closed;
	struct mutex submit_lock;	/* job_arm + push_job in order */
	u64 fence_context;	/* hardware fences: one timeline per engine */
	u64 seqno[COPRO_MAX_ENGINES];
	u64 busy_ns;		/* device time of its retired jobs */
	u64 jobs;
	struct drm_sched_entity entity[COPRO_MAX_ENGINES];
};

/*
 * Per process (thread group) that holds anything of the device's shared
 * pools (copro_limits.c): the unit of every limit. It is the process that
 * submits, creates or allocates (task_tgid(current), as fdinfo counts),
 * never whoever opened the DRM file: files opened by short-lived clone()
 * children or passed over a socket give a process no more of anything.
 * Each job, context, GTT buffer and VRAM pin holds a reference to the
 * process it is charged to.
 */
struct copro_proc {
	struct kref ref;
	struct list_head link;	/* cdev->procs */
	struct copro_device *cdev;
	struct pid *tgid;
	/* jobs past run_job and not signalled, per engine and priority
	 * (the engine's lock)
	 */
	u32 in_flight[COPRO_MAX_ENGINES][DRM_SCHED_PRIORITY_COUNT];
	u64 held[COPRO_RES_COUNT];	/* cdev->limits.lock */
};

/* per DRM file */
struct copro_file {
	struct kref ref;
	struct xarray ctxs;	/* handle -> copro_ctx */
	u64 busy_ns[COPRO_MAX_ENGINES];	/* of retired jobs (fdinfo) */
	spinlock_t stat_lock;	/* busy_ns */
	struct copro_vm *vm;	/* GPU VM, made at first use (copro_vm.c) */
};

struct copro_job {
	struct drm_sched_job base;
	struct copro_device *cdev;
	struct copro_ctx *ctx;
	/* the submitter: charged for @mem, its VRAM pins and its ring slot */
	struct copro_proc *proc;
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
	u64 dma_gpu;
	u32 dma_len;
	u64 save_gpu;
	unsigned int bo_count;
	unsigned int bo_pinned;	/* bos[0..bo_pinned) went through the pin */
	bool pins_charged;	/* its VRAM buffers counted in limits.pins */
	struct drm_gem_object **bos;	/* pinned in VRAM while the job lives */
	struct copro_vm *vm;	/* by VA: its VM and its save slot there */
	unsigned int save_slot;
};

static inline struct copro_job *to_copro_job(struct drm_sched_job *j)
{
	return container_of(j, struct copro_job, base);
}

#define COPRO_SAVE_AREA		256u	/* COPRO_SAVE_SIZE, 64-aligned */
#define COPRO_END_AREA		64u	/* the job's end time (u64), 64-aligned */

extern const struct drm_sched_backend_ops copro_sched_ops;

void copro_ctx_put(struct copro_ctx *ctx);
void copro_ctx_cancel(struct copro_ctx *ctx);

/* a banned or dead context's jobs are dropped, never run */
static inline bool copro_ctx_runnable(struct copro_ctx *ctx)
{
	return !READ_ONCE(ctx->banned) && !READ_ONCE(ctx->dead);
}

void copro_file_put(struct copro_file *cfile);

/* copro_limits.c */
void copro_limits_init(struct copro_device *cdev, u64 pool_bytes);
void copro_limits_fini(struct copro_device *cdev);
struct copro_proc *copro_proc_get(struct copro_device *cdev);
void copro_proc_put(struct copro_proc *proc);
int copro_charge(struct copro_proc *proc, enum copro_res res, u64 n);
void copro_uncharge(struct copro_proc *proc, enum copro_res res, u64 n);
int copro_charge_wait(struct copro_proc *proc, enum copro_res res, u64 n);
int copro_pins_charge(struct copro_job *job);
void copro_pins_uncharge(struct copro_job *job);
void copro_limits_show(struct copro_device *cdev, struct seq_file *m);
unsigned int copro_ring_reserve(void);
void copro_job_free(struct copro_job *job);

/* copro_syncobj.c: the sync objects a submit or an async bind signals */
struct copro_out_sync {
	struct drm_syncobj *obj;
	struct dma_fence_chain *chain;
	u64 point;
};

int copro_out_syncs_get(struct drm_file *file, u64 uptr, u32 count,
			struct copro_out_sync **outp);
void copro_out_syncs_signal(struct copro_out_sync *out, u32 count,
			    struct dma_fence *fence);
void copro_out_syncs_put(struct copro_out_sync *out, u32 count);

#endif
