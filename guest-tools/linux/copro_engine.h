/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: the engines' internals, shared by the ring
 * (copro_ring.c), the drm_sched backend (copro_sched.c), recovery
 * (copro_recovery.c), the kernel pool (copro_pool.c) and the render half's
 * bring-up (copro_render.c). Every function here that takes an engine
 * wants its lock held unless it says otherwise.
 */
#ifndef COPRO_ENGINE_H
#define COPRO_ENGINE_H

#include "copro_render.h"

#define COPRO_RING_ENTRIES	256u	/* power of two, at most 4096 */
#define COPRO_JOBS_IN_FLIGHT	64u	/* drm_sched credit limit */
#define COPRO_POOL_SIZE		(4u << 20)

/* module parameters (copro_render.c) */
extern unsigned int copro_preempt_timeout_ms;
extern unsigned int copro_timeslice_ms;
extern unsigned int copro_proc_jobs;
extern unsigned int copro_hang_limit;

static inline u32 eng_rd32(struct copro_engine *eng, u32 reg)
{
	return copro_rd32(eng->cdev, COPRO_ENG_BASE(eng->id) + reg);
}

static inline u64 eng_rd64(struct copro_engine *eng, u32 reg)
{
	return copro_rd64(eng->cdev, COPRO_ENG_BASE(eng->id) + reg);
}

static inline void eng_wr32(struct copro_engine *eng, u32 reg, u32 val)
{
	copro_wr32(eng->cdev, COPRO_ENG_BASE(eng->id) + reg, val);
}

static inline void eng_wr64(struct copro_engine *eng, u32 reg, u64 val)
{
	copro_wr64(eng->cdev, COPRO_ENG_BASE(eng->id) + reg, val);
}

/*
 * A reset, an unplug or a restart drops a preemption request the engine
 * had not honoured yet: whoever waits for it (eng->wq) is let go.
 */
static inline void copro_preempt_cancel(struct copro_engine *eng)
{
	if (eng->preempting) {
		eng->preempting = false;
		eng->preempt_done++;
	}
}

/* copro_ring.c */
extern const struct dma_fence_ops copro_hw_fence_ops;
void copro_ring_write(struct copro_engine *eng, struct copro_job *job);
void copro_ring_kick(struct copro_engine *eng);
void copro_ring_rebuild(struct copro_engine *eng);
void copro_engine_program(struct copro_engine *eng);
void copro_job_signal(struct copro_engine *eng, struct copro_job *job,
		      int error);
void copro_job_charge(struct copro_engine *eng, struct copro_job *job,
		      u64 end);
void copro_retire(struct copro_engine *eng, u64 done);
void copro_slice_arm(struct copro_engine *eng);
enum hrtimer_restart copro_slice_end(struct hrtimer *t);
void copro_request_preempt(struct copro_engine *eng);

/* copro_recovery.c */
void copro_engine_recover(struct copro_engine *eng, u64 guilty, int error);
void copro_engine_restart(struct copro_engine *eng);
void copro_recovery_work(struct work_struct *w);

#endif
