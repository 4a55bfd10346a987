// SPDX-License-Identifier: GPL-2.0-or-later
/**
 * DOC: drm_sched backend
 *
 * One drm_gpu_scheduler per engine (copro_render.c) calls these:
 * prepare_job admits a job (per-process bounds on the ring), run_job
 * writes it to the ring or holds it behind a preemption, timedout_job
 * asks for a preemption and has a hung engine reset (copro_recovery.c),
 * free_job frees it. A killed process's context is cancelled here too.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "copro/copro_cmd.h"
#include "copro_engine.h"
#include "copro_trace.h"

/* ---- drm_sched backend ---- */

static bool copro_ring_needs_preempt(struct copro_engine *eng,
				     struct copro_job *job)
{
	struct copro_job *last;

	if (eng->cdev->preempt_caps == COPRO_PREEMPT_NONE)
		return false;
	if (list_empty(&eng->ring_jobs))
		return false;
	/*
	 * The ring is in priority order: its last job has the lowest.
	 * drm_sched numbers priorities from KERNEL (0) down to LOW.
	 */
	last = list_last_entry(&eng->ring_jobs, struct copro_job, link);
	return last->prio > job->prio;
}

static struct dma_fence *copro_run_job(struct drm_sched_job *sched_job)
{
	struct copro_job *job = to_copro_job(sched_job);
	struct copro_engine *eng = &job->cdev->engines[job->engine];
	struct copro_ctx *ctx = job->ctx;
	struct dma_fence *f;
	unsigned long flags;
	int idx;

	if (!copro_ctx_runnable(ctx))
		return ERR_PTR(-ECANCELED);
	if (sched_job->s_fence->finished.error)
		return ERR_PTR(sched_job->s_fence->finished.error);
	if (job->hw)		/* never twice: the driver resubmits itself */
		return dma_fence_get(job->hw);
	/*
	 * The device is gone: the job fails as those it held did
	 * (copro_render_unplug waits for this section to end before it
	 * fails them, so no job reaches a ring after that).
	 */
	if (!drm_dev_enter(&job->cdev->drm, &idx))
		return ERR_PTR(-ENODEV);

	f = job->hw_mem;
	job->hw_mem = NULL;
	dma_fence_init(f, &copro_hw_fence_ops, &eng->fence_lock,
		       ctx->fence_context + job->engine,
		       ++ctx->seqno[job->engine]);
	job->hw = f;

	spin_lock_irqsave(&eng->lock, flags);
	eng->jobs_run++;
	job->seq = eng->jobs_run;
	job->counted = true;
	job->proc->in_flight[eng->id][job->prio]++;
	eng->in_flight++;
	if (eng->preempting || eng->stopped) {
		list_add_tail(&job->link, &eng->held);
		trace_copro_run(eng->id, ctx->id, job->seq, 0, true);
	} else if (copro_ring_needs_preempt(eng, job)) {
		list_add_tail(&job->link, &eng->held);
		trace_copro_run(eng->id, ctx->id, job->seq, 0, true);
		copro_request_preempt(eng);
	} else {
		if (list_empty(&eng->ring_jobs))
			job->start_ns = copro_rd64(eng->cdev,
						   COPRO_REG_GPU_TIME);
		copro_ring_write(eng, job);
		trace_copro_run(eng->id, ctx->id, job->seq, job->hwid, false);
		copro_ring_kick(eng);
		copro_slice_arm(eng);
	}
	spin_unlock_irqrestore(&eng->lock, flags);
	drm_dev_exit(idx);
	return dma_fence_get(f);
}

/*
 * Admission (drm_sched's prepare_job):
 * drm_sched's credit limit (COPRO_JOBS_IN_FLIGHT) is shared by every
 * client of an engine, so one process that queued 64 long jobs would hold
 * every slot, and another process's job would wait behind all of them:
 * time slices only share the engine among jobs on the ring. A process
 * (the one that submitted the job: more DRM files, or files opened by
 * clone() children, give it no more) with copro_proc_jobs jobs of one priority
 * on the ring (or held) waits for its oldest of them to signal before
 * drm_sched picks its next job of that priority (its own higher-priority
 * jobs are not held up by its lower ones), and drm_sched's round robin
 * over the ready entities gives the slot to someone else meanwhile. The
 * engine's last ring_reserve slots go only to a process with no job on
 * it, however many processes hold their copro_proc_jobs. So a newcomer's job
 * reaches the ring at once and starts within one time slice per context
 * of its priority ahead of it, plus the device's preemption latency.
 */
static bool copro_proc_at_limit(struct copro_engine *eng,
				struct copro_job *job)
{
	struct copro_proc *proc = job->proc;
	unsigned int reserve = min(copro_ring_reserve(), COPRO_JOBS_IN_FLIGHT - 1);
	u32 mine = 0;
	unsigned int p;

	if (proc->in_flight[eng->id][job->prio] >=
	    clamp(copro_proc_jobs, 1u, COPRO_JOBS_IN_FLIGHT))
		return true;
	for (p = 0; p < DRM_SCHED_PRIORITY_COUNT; p++)
		mine += proc->in_flight[eng->id][p];
	return mine && eng->in_flight >= COPRO_JOBS_IN_FLIGHT - reserve;
}

static struct dma_fence *copro_prepare_job(struct drm_sched_job *sched_job,
					   struct drm_sched_entity *entity)
{
	struct copro_job *job = to_copro_job(sched_job), *cur;
	struct copro_engine *eng = &job->cdev->engines[job->engine];
	struct copro_proc *proc = job->proc;
	struct dma_fence *f = NULL;
	unsigned long flags;

	/* it will not run (run_job fails it): nothing to wait for */
	if (!copro_ctx_runnable(job->ctx))
		return NULL;
	spin_lock_irqsave(&eng->lock, flags);
	if (copro_proc_at_limit(eng, job)) {
		/*
		 * Wait for its oldest job of that priority, else (the reserve)
		 * its oldest of any: ring_jobs retire first, in ring order.
		 */
		list_for_each_entry(cur, &eng->ring_jobs, link)
			if (cur->proc == proc && cur->prio == job->prio)
				goto found;
		list_for_each_entry(cur, &eng->held, link)
			if (cur->proc == proc && cur->prio == job->prio)
				goto found;
		list_for_each_entry(cur, &eng->ring_jobs, link)
			if (cur->proc == proc)
				goto found;
		list_for_each_entry(cur, &eng->held, link)
			if (cur->proc == proc)
				goto found;
	}
	goto out;
found:
	f = dma_fence_get(cur->hw);
out:
	spin_unlock_irqrestore(&eng->lock, flags);
	return f;
}

/* copro_timedout_job on a job that reached the ring, the device there */
static void copro_job_hang_check(struct copro_job *job)
{
	struct copro_engine *eng = &job->cdev->engines[job->engine];
	struct copro_job *cur, *tmp;
	unsigned long flags;
	u64 seq, running;
	long left;

	spin_lock_irqsave(&eng->lock, flags);
	/* a lost DMA_DONE (INJECT DROP_IRQ) is found here */
	copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
	if (dma_fence_is_signaled(job->hw)) {
		spin_unlock_irqrestore(&eng->lock, flags);
		return;
	}
	/*
	 * A WAIT is preemptible at any time, so a job blocked in one for
	 * ever would pass the preemption test: one found blocked at two
	 * timeouts is hung (only its own buffers can release it).
	 */
	running = eng_rd64(eng, COPRO_ENG_CURRENT_FENCE);
	cur = NULL;
	list_for_each_entry(tmp, &eng->ring_jobs, link)
		if (running && tmp->hwid == running)
			cur = tmp;
	if (cur && eng_rd32(eng, COPRO_ENG_STATE) == COPRO_ENG_STATE_WAITING) {
		if (cur->seq == eng->tdr_wait_seq) {
			/*
			 * Its own problem alone: the context is banned and
			 * switched out by a preemption (the rebuild drops its
			 * jobs), never an engine or device reset, and it does
			 * not count towards copro_hang_limit.
			 */
			eng->tdr_wait_seq = 0;
			eng->rotate_ctx = NULL;
			if (!cur->ctx->banned)
				eng->banned++;
			WRITE_ONCE(cur->ctx->banned, true);
			cur->error = -ETIME;
			eng->wait_bans++;
		} else {
			eng->tdr_wait_seq = cur->seq;
		}
	}
	/* a healthy engine honours a preemption request: ask for one */
	cur = list_first_entry_or_null(&eng->ring_jobs, struct copro_job, link);
	eng->rotate_ctx = cur ? cur->ctx : NULL;
	seq = eng->preempt_done;
	copro_request_preempt(eng);
	spin_unlock_irqrestore(&eng->lock, flags);

	left = wait_event_timeout(eng->wq, READ_ONCE(eng->preempt_done) != seq,
				  msecs_to_jiffies(copro_preempt_timeout_ms));

	spin_lock_irqsave(&eng->lock, flags);
	if (left || eng->preempt_done != seq) {
		eng->tdr_preempts++;
		spin_unlock_irqrestore(&eng->lock, flags);
		return;
	}
	/* hung: the job in execution is the guilty one */
	running = eng_rd64(eng, COPRO_ENG_CURRENT_FENCE);
	drm_warn_once(&eng->cdev->drm,
		      "engine %u hung (fence %llu): reset\n", eng->id, running);
	eng->rotate_ctx = NULL;
	copro_engine_recover(eng, running, -EIO);
	spin_unlock_irqrestore(&eng->lock, flags);
}

static enum drm_gpu_sched_stat copro_timedout_job(struct drm_sched_job *sched_job)
{
	struct copro_job *job = to_copro_job(sched_job);
	int idx;

	/*
	 * run_job failed it before it reached the hardware, or the device
	 * is gone (copro_render_unplug failed every job): nothing to check.
	 */
	if (job->hw && drm_dev_enter(&job->cdev->drm, &idx)) {
		copro_job_hang_check(job);
		drm_dev_exit(idx);
	}
	/*
	 * Only long (it yielded), already done, or resolved by the driver's
	 * own recovery (copro_engine_recover signalled or rewrote every job):
	 * either way drm_sched keeps the job until its fence signals.
	 */
	return copro_sched_no_hang(sched_job);
}

static void copro_free_job(struct drm_sched_job *sched_job)
{
	drm_sched_job_cleanup(sched_job);
	copro_job_free(to_copro_job(sched_job));
}

const struct drm_sched_backend_ops copro_sched_ops = {
	.prepare_job = copro_prepare_job,
	.run_job = copro_run_job,
	.timedout_job = copro_timedout_job,
	.free_job = copro_free_job,
};

/*
 * A killed process's context (copro_ctx_teardown): its jobs still waiting
 * in drm_sched fail at run_job, its held jobs fail now, and a preemption
 * takes its jobs off the ring (the rebuild drops them), the running one
 * included, so that its GPU work stops at once and the process is not
 * kept waiting for it.
 */
void copro_ctx_cancel(struct copro_ctx *ctx)
{
	struct copro_device *cdev = ctx->cdev;
	unsigned int e;

	WRITE_ONCE(ctx->dead, true);
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		struct copro_job *job, *tmp;
		unsigned long flags;
		bool on_ring = false;

		spin_lock_irqsave(&eng->lock, flags);
		list_for_each_entry_safe(job, tmp, &eng->held, link)
			if (job->ctx == ctx) {
				eng->cancels++;
				copro_job_signal(eng, job, -ECANCELED);
			}
		list_for_each_entry(job, &eng->ring_jobs, link)
			if (job->ctx == ctx) {
				eng->cancels++;
				on_ring = true;
			}
		if (on_ring && !eng->stopped && !eng->unplugged &&
		    cdev->preempt_caps != COPRO_PREEMPT_NONE)
			copro_request_preempt(eng);
		spin_unlock_irqrestore(&eng->lock, flags);
	}
}
