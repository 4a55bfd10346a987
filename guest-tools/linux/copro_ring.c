// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: the engines' rings under drm_sched.
 *
 * One drm_gpu_scheduler per engine picks jobs from its run queues (one
 * per priority, drm_sched's MIN, NORMAL and HIGH); run_job writes the
 * job's 64-byte descriptor at the ring's tail and rings the doorbell. A
 * job gets a new device fence id (hwid) for every ring entry it has; the
 * engine retires entries in ring order, so DMA_DONE retires every job on
 * ring_jobs up to the one COMPLETED_FENCE names.
 *
 * Priorities with mid-command preemption (amdgpu's MCBP in spirit): the
 * ring is kept in priority order. A job that would land behind a job of
 * lower priority is held and the engine is asked to preempt
 * (PREEMPT_REQ). At PREEMPTED the engine has saved the job it was running
 * (PREEMPTED_FENCE) in its save area and dropped the entries it had not
 * fetched; the driver writes the ring again, highest priority first, each
 * context's jobs in their order, the preempted job with RESUME. Every
 * job keeps its hardware fence, so drm_sched sees nothing of it.
 *
 * Hangs (timedout_job): first a preemption request; an engine that
 * honours it is healthy (a long job yields, goes behind its peers of the
 * same priority, and resumes). One that does not within
 * preempt_timeout_ms is reset: the context of the job it was running is
 * banned (its jobs' fences signal -EIO / -ECANCELED), every other job is
 * written to the ring again. A job found blocked in a WAIT at two
 * timeouts is hung too (a WAIT honours preemption requests). A fault or
 * command error halts the engine
 * and takes the same path from the interrupt. Repeated resets with no
 * retirement between reset the device (copro_recovery_work).
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_print.h>

#include "copro/copro_cmd.h"
#include "copro_render.h"
#include "copro_trace.h"

static unsigned int job_timeout_ms = 2000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms, "drm_sched job timeout (ms): then a preemption is asked, and the engine reset if it is not honoured");

static unsigned int preempt_timeout_ms = 100;
module_param(preempt_timeout_ms, uint, 0444);
MODULE_PARM_DESC(preempt_timeout_ms, "How long a hang check waits for a preemption before resetting the engine (ms)");

static unsigned int timeslice_ms = 10;
module_param(timeslice_ms, uint, 0444);
MODULE_PARM_DESC(timeslice_ms, "Time slice among contexts of the same priority (ms; 0: none): then the running job is preempted and goes behind its peers");

static unsigned int proc_jobs = 8;
module_param(proc_jobs, uint, 0444);
MODULE_PARM_DESC(proc_jobs, "Jobs of one priority one process (all its DRM files) may have on an engine's ring at once (1 to 64): the rest wait in drm_sched, so no process holds every slot");

static unsigned int hang_limit = 3;
module_param(hang_limit, uint, 0444);
MODULE_PARM_DESC(hang_limit, "Engine resets in a row (no job retired between) before every engine is reset");

#define COPRO_RING_ENTRIES	256u	/* power of two, at most 4096 */
#define COPRO_JOBS_IN_FLIGHT	64u	/* drm_sched credit limit */
#define COPRO_POOL_SIZE		(4u << 20)

static u32 eng_rd32(struct copro_engine *eng, u32 reg)
{
	return copro_rd32(eng->cdev, COPRO_ENG_BASE(eng->id) + reg);
}

static u64 eng_rd64(struct copro_engine *eng, u32 reg)
{
	return copro_rd64(eng->cdev, COPRO_ENG_BASE(eng->id) + reg);
}

static void eng_wr32(struct copro_engine *eng, u32 reg, u32 val)
{
	copro_wr32(eng->cdev, COPRO_ENG_BASE(eng->id) + reg, val);
}

static void eng_wr64(struct copro_engine *eng, u32 reg, u64 val)
{
	copro_wr64(eng->cdev, COPRO_ENG_BASE(eng->id) + reg, val);
}

/* ---- the kernel pool: one pinned VRAM buffer, carved with drm_mm ---- */

int copro_pool_init(struct copro_device *cdev, u64 size, u64 reserved)
{
	struct copro_pool *pool = &cdev->pool;
	int ret;

	mutex_init(&pool->lock);
	ret = copro_kbo_create(cdev, size, &pool->gbo, &pool->map, &pool->gpu);
	if (ret) {
		pool->gbo = NULL;
		return ret;
	}
	pool->size = size;
	/* [0, reserved): the rings; the rest is handed out to jobs */
	drm_mm_init(&pool->mm, reserved, size - reserved);
	return 0;
}

void copro_pool_fini(struct copro_device *cdev)
{
	struct copro_pool *pool = &cdev->pool;

	if (!pool->gbo)
		return;
	drm_mm_takedown(&pool->mm);
	copro_kbo_destroy(pool->gbo, &pool->map);
	pool->gbo = NULL;
}

int copro_pool_alloc(struct copro_device *cdev, struct drm_mm_node *node,
		     u64 size)
{
	int ret;

	mutex_lock(&cdev->pool.lock);
	ret = drm_mm_insert_node_generic(&cdev->pool.mm, node, size, 64, 0,
					 DRM_MM_INSERT_BEST);
	if (!ret)
		cdev->pool.used += node->size;
	mutex_unlock(&cdev->pool.lock);
	return ret;
}

void copro_pool_free(struct copro_device *cdev, struct drm_mm_node *node)
{
	if (!drm_mm_node_allocated(node))
		return;
	mutex_lock(&cdev->pool.lock);
	cdev->pool.used -= node->size;
	drm_mm_remove_node(node);
	mutex_unlock(&cdev->pool.lock);
}

/* ---- hardware fences ---- */

static const char *copro_fence_driver_name(struct dma_fence *f)
{
	return COPRO_DRIVER_NAME;
}

static const char *copro_fence_timeline_name(struct dma_fence *f)
{
	return "copro-ring";
}

static const struct dma_fence_ops copro_hw_fence_ops = {
	.get_driver_name = copro_fence_driver_name,
	.get_timeline_name = copro_fence_timeline_name,
};

/* ---- the ring (eng->lock held) ---- */

static void copro_ring_write(struct copro_engine *eng, struct copro_job *job)
{
	struct copro_device *cdev = eng->cdev;
	struct copro_submit_desc d = {
		.dma_addr = job->dma_gpu,
		.dma_len = job->dma_len,
		.flags = job->resume ? COPRO_SUBMIT_RESUME : 0,
		.fence = eng->next_hwid++,
		.context = job->ctx->id,
		.save_addr = job->save_gpu,
	};

	job->hwid = d.fence;
	job->written_ns = copro_rd64(cdev, COPRO_REG_GPU_TIME);
	iosys_map_memcpy_to(&cdev->pool.map,
			    eng->ring_offset + eng->tail * COPRO_DESC_SIZE,
			    &d, sizeof(d));
	eng->tail = (eng->tail + 1) % COPRO_RING_ENTRIES;
	list_add_tail(&job->link, &eng->ring_jobs);
	if (job->resume)
		eng->preempt_resumes++;
}

static void copro_ring_kick(struct copro_engine *eng)
{
	/* the descriptors reach VRAM before the doorbell */
	wmb();
	eng_wr32(eng, COPRO_ENG_RING_TAIL, eng->tail);
}

static void copro_job_signal(struct copro_engine *eng, struct copro_job *job,
			     int error)
{
	list_del_init(&job->link);
	trace_copro_retire(eng->id, job->ctx->id, job->hwid, error);
	eng->jobs_done++;	/* done or dropped: its fence signalled */
	if (job->counted) {
		job->counted = false;
		job->proc->in_flight[eng->id][job->prio]--;
		eng->in_flight--;
	}
	if (error) {
		dma_fence_set_error(&job->base.s_fence->finished, error);
		dma_fence_set_error(job->hw, error);
	}
	dma_fence_signal(job->hw);
}

/*
 * Time slices (eng->lock held). drm_sched orders jobs, it does not share
 * engine time: a long job keeps the engine from jobs of the same
 * priority queued behind it. When the job at the ring's head has peers
 * (jobs of another context at its priority), a timer of timeslice_ms
 * preempts it and puts its context behind them, as the firmware's
 * vidsch does with its quantum.
 */
static bool copro_has_peers(struct copro_engine *eng, struct copro_job *head)
{
	struct copro_job *job;

	list_for_each_entry(job, &eng->ring_jobs, link)
		if (job->prio == head->prio && job->ctx != head->ctx)
			return true;
	list_for_each_entry(job, &eng->held, link)
		if (job->prio == head->prio && job->ctx != head->ctx)
			return true;
	return false;
}

static void copro_slice_arm(struct copro_engine *eng)
{
	struct copro_job *head;
	u64 left, ran;

	if (!timeslice_ms || eng->slice_armed || eng->preempting ||
	    eng->cdev->preempt_caps == COPRO_PREEMPT_NONE)
		return;
	head = list_first_entry_or_null(&eng->ring_jobs, struct copro_job,
					link);
	if (!head || !copro_has_peers(eng, head))
		return;
	/* the slice counts from when the head job started running */
	left = (u64)timeslice_ms * NSEC_PER_MSEC;
	ran = copro_rd64(eng->cdev, COPRO_REG_GPU_TIME) - head->start_ns;
	if (head->start_ns && ran < left)
		left -= ran;
	else if (head->start_ns)
		left = 0;
	eng->slice_seq = head->seq;
	eng->slice_armed = true;
	hrtimer_start(&eng->slice_timer, ns_to_ktime(left), HRTIMER_MODE_REL);
}

static void copro_request_preempt(struct copro_engine *eng);

static enum hrtimer_restart copro_slice_end(struct hrtimer *t)
{
	struct copro_engine *eng = container_of(t, struct copro_engine,
						slice_timer);
	struct copro_job *head;
	unsigned long flags;

	spin_lock_irqsave(&eng->lock, flags);
	eng->slice_armed = false;
	head = list_first_entry_or_null(&eng->ring_jobs, struct copro_job,
					link);
	if (head && head->seq == eng->slice_seq && !eng->preempting &&
	    !eng->stopped && copro_has_peers(eng, head)) {
		eng->rotate_ctx = head->ctx;
		eng->slices++;
		copro_request_preempt(eng);
	} else {
		/* the head changed: a slice for the new one */
		copro_slice_arm(eng);
	}
	spin_unlock_irqrestore(&eng->lock, flags);
	return HRTIMER_NORESTART;
}

/*
 * Device time to the job's context and DRM file (fdinfo, context query).
 * A job runs from when it was written to the ring or when the engine's
 * previous job ended or left it, whichever is later, to its end.
 */
static void copro_job_charge(struct copro_engine *eng, struct copro_job *job,
			     u64 end)
{
	u64 start = max(job->written_ns, eng->last_end_ns);
	struct copro_ctx *ctx = job->ctx;

	if (end > start) {
		ctx->busy_ns += end - start;
		spin_lock(&ctx->cfile->stat_lock);
		ctx->cfile->busy_ns[eng->id] += end - start;
		spin_unlock(&ctx->cfile->stat_lock);
	}
	eng->last_end_ns = max(end, eng->last_end_ns);
}

/* Retire every job up to the one whose entry is @done. */
static void copro_retire(struct copro_engine *eng, u64 done)
{
	struct copro_job *job, *tmp;
	u64 now = 0;
	bool found = false;

	if (!done)
		return;
	list_for_each_entry(job, &eng->ring_jobs, link) {
		if (job->hwid == done) {
			found = true;
			break;
		}
	}
	if (!found)
		return;
	now = copro_rd64(eng->cdev, COPRO_REG_GPU_TIME);
	list_for_each_entry_safe(job, tmp, &eng->ring_jobs, link) {
		u64 hwid = job->hwid;
		struct copro_ctx *ctx = job->ctx;
		/* its last packet wrote when it ended (copro_job_stream) */
		u64 end = iosys_map_rd(&eng->cdev->pool.map, job->end_off, u64);

		copro_job_charge(eng, job, end && end <= now ? end : now);
		ctx->jobs++;
		copro_job_signal(eng, job, 0);
		if (hwid == done)
			break;
	}
	eng->hangs_in_row = 0;
	/* the next job starts now (an estimate for the statistics) */
	job = list_first_entry_or_null(&eng->ring_jobs, struct copro_job, link);
	if (job && !job->start_ns)
		job->start_ns = now;
	copro_slice_arm(eng);
}

static void copro_request_preempt(struct copro_engine *eng)
{
	if (eng->preempting)
		return;
	eng->preempting = true;
	eng->preempt_reqs++;
	eng_wr64(eng, COPRO_ENG_PREEMPT_REQ, eng->preempt_reqs);
}

/*
 * The engine is idle with head == tail (after a preemption or a reset):
 * write every job on ring_jobs and held again, highest priority first;
 * within one priority ring_jobs before held, so each context's jobs keep
 * their order (a context has one priority). The context in rotate_ctx
 * (a long job that a hang check preempted) goes behind its peers.
 */
static void copro_ring_rebuild(struct copro_engine *eng)
{
	struct copro_job *job, *tmp;
	LIST_HEAD(all);
	LIST_HEAD(order);
	int prio;
	int pass;

	list_splice_tail_init(&eng->ring_jobs, &all);
	list_splice_tail_init(&eng->held, &all);
	/* a banned or dead context's jobs leave the ring here, unrun */
	list_for_each_entry_safe(job, tmp, &all, link)
		if (!copro_ctx_runnable(job->ctx))
			copro_job_signal(eng, job, job->error ?: -ECANCELED);
	/* highest first: drm_sched's KERNEL is 0, LOW the last */
	for (prio = DRM_SCHED_PRIORITY_KERNEL; prio < DRM_SCHED_PRIORITY_COUNT;
	     prio++) {
		for (pass = 0; pass < 2; pass++) {
			list_for_each_entry_safe(job, tmp, &all, link) {
				bool rot = job->ctx == eng->rotate_ctx;

				if (job->prio != prio || rot != !!pass)
					continue;
				list_move_tail(&job->link, &order);
			}
		}
	}
	eng->rotate_ctx = NULL;
	list_for_each_entry_safe(job, tmp, &order, link) {
		list_del_init(&job->link);
		job->start_ns = 0;
		copro_ring_write(eng, job);
	}
	job = list_first_entry_or_null(&eng->ring_jobs, struct copro_job, link);
	if (job)
		job->start_ns = copro_rd64(eng->cdev, COPRO_REG_GPU_TIME);
	copro_ring_kick(eng);
	copro_slice_arm(eng);
}

static void copro_engine_program(struct copro_engine *eng)
{
	eng_wr64(eng, COPRO_ENG_RING_BASE, eng->ring_gpu);
	eng_wr32(eng, COPRO_ENG_RING_SIZE, COPRO_RING_ENTRIES);
	eng->tail = 0;
}

/*
 * Reset the engine (its lock held). The job whose entry is @guilty (0:
 * none known) has its context banned; every job of that context fails,
 * every other job goes on the ring again.
 */
static void copro_engine_recover(struct copro_engine *eng, u64 guilty,
				 int error)
{
	struct copro_job *job, *tmp, *bad = NULL;
	struct copro_ctx *ctx = NULL;

	copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
	eng_wr32(eng, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
	if (!guilty)
		guilty = eng_rd64(eng, COPRO_ENG_ABORTED_FENCE);
	trace_copro_reset(eng->id, guilty, error);
	eng->engine_resets++;
	eng->hangs_in_row++;
	/* a reset cancels the request, and leaves head == tail */
	if (eng->preempting) {
		eng->preempting = false;
		eng->preempt_done++;
	}
	list_for_each_entry(job, &eng->ring_jobs, link) {
		if (guilty && job->hwid == guilty)
			bad = job;
	}
	if (bad) {
		ctx = bad->ctx;
		if (!ctx->banned)
			eng->banned++;
		WRITE_ONCE(ctx->banned, true);
		copro_job_signal(eng, bad, error);
	}
	if (ctx) {
		list_for_each_entry_safe(job, tmp, &eng->ring_jobs, link)
			if (job->ctx == ctx)
				copro_job_signal(eng, job, -ECANCELED);
		list_for_each_entry_safe(job, tmp, &eng->held, link)
			if (job->ctx == ctx)
				copro_job_signal(eng, job, -ECANCELED);
	}
	if (eng->hangs_in_row >= hang_limit) {
		/* repeated hangs: the whole device is reset (from a worker) */
		eng->hangs_in_row = 0;
		schedule_work(&eng->cdev->recovery_work);
	}
	copro_ring_rebuild(eng);
	wake_up_all(&eng->wq);
}

/*
 * Eng->lock held: what retired is done, the engine is reset (which
 * cancels a preemption request not yet honoured) and programmed again,
 * and every unfinished job is written to the ring again, a preempted one
 * resuming from its save area.
 */
static void copro_engine_restart(struct copro_engine *eng)
{
	copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
	eng_wr32(eng, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
	if (eng->preempting) {
		eng->preempting = false;
		eng->preempt_done++;
	}
	copro_engine_program(eng);
	copro_ring_rebuild(eng);
}

/*
 * Device recovery: a function or bus reset through the PCI core, whose
 * reset_prepare/reset_done hooks save and restore the display and
 * (copro_render_reset_prepare/done) stop the rings and write every
 * unfinished job again. Without a reset method (the device on the root
 * complex), every engine is reset and programmed from scratch instead.
 */
static void copro_recovery_work(struct work_struct *w)
{
	struct copro_device *cdev = container_of(w, struct copro_device,
						 recovery_work);
	unsigned int e;
	int ret;

	cdev->device_recoveries++;
	ret = pci_try_reset_function(cdev->pdev);
	drm_warn(&cdev->drm, "repeated hangs: device reset (%s)\n",
		 ret ? "engines only, no PCI reset method" : "PCI reset");
	if (!ret)
		return;
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		unsigned long flags;

		spin_lock_irqsave(&eng->lock, flags);
		copro_engine_restart(eng);
		spin_unlock_irqrestore(&eng->lock, flags);
		wake_up_all(&eng->wq);
	}
}

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

	if (!copro_ctx_runnable(ctx))
		return ERR_PTR(-ECANCELED);
	if (sched_job->s_fence->finished.error)
		return ERR_PTR(sched_job->s_fence->finished.error);
	if (job->hw)		/* never twice: the driver resubmits itself */
		return dma_fence_get(job->hw);

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
	return dma_fence_get(f);
}

/*
 * Admission (drm_sched's prepare_job):
 * drm_sched's credit limit (COPRO_JOBS_IN_FLIGHT) is shared by every
 * client of an engine, so one process that queued 64 long jobs would hold
 * every slot, and another process's job would wait behind all of them:
 * time slices only share the engine among jobs on the ring. A process
 * (the one that submitted the job: more DRM files, or files opened by
 * clone() children, give it no more) with proc_jobs jobs of one priority
 * on the ring (or held) waits for its oldest of them to signal before
 * drm_sched picks its next job of that priority (its own higher-priority
 * jobs are not held up by its lower ones), and drm_sched's round robin
 * over the ready entities gives the slot to someone else meanwhile. The
 * engine's last ring_reserve slots go only to a process with no job on
 * it, however many processes hold their proc_jobs. So a newcomer's job
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
	    clamp(proc_jobs, 1u, COPRO_JOBS_IN_FLIGHT))
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

static enum drm_gpu_sched_stat copro_timedout_job(struct drm_sched_job *sched_job)
{
	struct copro_job *job = to_copro_job(sched_job);
	struct copro_engine *eng = &job->cdev->engines[job->engine];
	struct copro_job *cur, *tmp;
	unsigned long flags;
	u64 seq, running;
	long left;

	/* run_job failed it before it reached the hardware: done */
	if (!job->hw)
		goto out;
	spin_lock_irqsave(&eng->lock, flags);
	/* a lost DMA_DONE (INJECT DROP_IRQ) is found here */
	copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
	if (dma_fence_is_signaled(job->hw)) {
		spin_unlock_irqrestore(&eng->lock, flags);
		goto out;
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
			 * not count towards hang_limit.
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
				  msecs_to_jiffies(preempt_timeout_ms));

	spin_lock_irqsave(&eng->lock, flags);
	if (left || eng->preempt_done != seq) {
		eng->tdr_preempts++;
		spin_unlock_irqrestore(&eng->lock, flags);
		goto out;
	}
	/* hung: the job in execution is the guilty one */
	running = eng_rd64(eng, COPRO_ENG_CURRENT_FENCE);
	drm_warn_once(&eng->cdev->drm,
		      "engine %u hung (fence %llu): reset\n", eng->id, running);
	eng->rotate_ctx = NULL;
	copro_engine_recover(eng, running, -EIO);
	spin_unlock_irqrestore(&eng->lock, flags);
out:
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
		if (on_ring && !eng->stopped &&
		    cdev->preempt_caps != COPRO_PREEMPT_NONE)
			copro_request_preempt(eng);
		spin_unlock_irqrestore(&eng->lock, flags);
	}
}

/* ---- interrupts ---- */

static void copro_preempted(struct copro_engine *eng)
{
	u64 pf = eng_rd64(eng, COPRO_ENG_PREEMPTED_FENCE);
	struct copro_job *job;

	copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
	if (!eng->preempting)
		return;
	trace_copro_preempt(eng->id, pf, eng->preempt_reqs);
	eng->preempting = false;
	eng->preempt_done++;
	eng->preemptions++;
	list_for_each_entry(job, &eng->ring_jobs, link) {
		/* the others were dropped unfetched: their state stands */
		if (pf && job->hwid == pf) {
			job->resume = true;
			copro_job_charge(eng, job,
					 copro_rd64(eng->cdev, COPRO_REG_GPU_TIME));
		}
	}
	/* stopped (system sleep): the jobs wait, written again at resume */
	if (!eng->stopped)
		copro_ring_rebuild(eng);
	wake_up_all(&eng->wq);
}

void copro_engine_irq(struct copro_engine *eng, u32 causes)
{
	unsigned long flags;
	bool cookie;

	if (!eng->sched_ready)
		return;
	/* lockdep: nothing here may allocate or wait on a fence */
	trace_copro_irq(eng->id, causes);
	cookie = dma_fence_begin_signalling();
	spin_lock_irqsave(&eng->lock, flags);
	if (causes & COPRO_INT_DMA_DONE)
		copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
	if (causes & (COPRO_INT_FAULT | COPRO_INT_ERROR)) {
		u32 kind = eng_rd32(eng, COPRO_ENG_FAULT_KIND);

		if (kind) {
			eng->faults++;
			/*
			 * A fault names its job and the engine reset clears
			 * it: the faulting context's problem alone (any
			 * process can fault in its own GPU VM at will), so it
			 * never adds up to a device reset (hang_limit).
			 */
			eng->hangs_in_row = 0;
			drm_dbg(&eng->cdev->drm,
				"engine %u: fault %u at %#x of fence %llu\n",
				eng->id, kind,
				eng_rd32(eng, COPRO_ENG_FAULT_OFFSET),
				eng_rd64(eng, COPRO_ENG_FAULT_FENCE));
			copro_engine_recover(eng,
					     eng_rd64(eng, COPRO_ENG_FAULT_FENCE),
					     -EIO);
		}
	}
	if (causes & COPRO_INT_PREEMPTED)
		copro_preempted(eng);
	spin_unlock_irqrestore(&eng->lock, flags);
	dma_fence_end_signalling(cookie);
}

/* ---- bring-up ---- */

int copro_render_init(struct copro_device *cdev)
{
	struct drm_sched_init_args args = {
		.ops = &copro_sched_ops,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		.credit_limit = COPRO_JOBS_IN_FLIGHT,
		.hang_limit = 0,
		.timeout = msecs_to_jiffies(job_timeout_ms),
		.dev = cdev->drm.dev,
	};
	static const char * const names[COPRO_MAX_ENGINES] = {
		"copro-render", "copro-copy", "copro-e2", "copro-e3",
	};
	unsigned int e;
	int ret;

	ida_init(&cdev->ctx_ids);
	mutex_init(&cdev->procs_lock);
	INIT_LIST_HEAD(&cdev->procs);
	INIT_WORK(&cdev->recovery_work, copro_recovery_work);
	cdev->preempt_caps = copro_rd32(cdev, COPRO_REG_PREEMPT_CAPS);
	ret = copro_pool_init(cdev, COPRO_POOL_SIZE,
			      COPRO_MAX_ENGINES * COPRO_RING_ENTRIES *
			      COPRO_DESC_SIZE);
	if (ret)
		return ret;
	ret = copro_gart_init(cdev);
	if (ret) {
		copro_pool_fini(cdev);
		return ret;
	}
	copro_limits_init(cdev, COPRO_POOL_SIZE - COPRO_MAX_ENGINES *
			  COPRO_RING_ENTRIES * COPRO_DESC_SIZE);
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];

		eng->cdev = cdev;
		spin_lock_init(&eng->lock);
		spin_lock_init(&eng->fence_lock);
		INIT_LIST_HEAD(&eng->ring_jobs);
		INIT_LIST_HEAD(&eng->held);
		init_waitqueue_head(&eng->wq);
		hrtimer_setup(&eng->slice_timer, copro_slice_end,
			      CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		eng->next_hwid = 1;
		eng->ring_offset = e * COPRO_RING_ENTRIES * COPRO_DESC_SIZE;
		eng->ring_gpu = cdev->pool.gpu + eng->ring_offset;
		eng_wr32(eng, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
		copro_engine_program(eng);
		args.name = names[e];
		ret = drm_sched_init(&eng->sched, &args);
		if (ret)
			goto err;
		eng->sched_ready = true;
		copro_irq_enable(cdev, COPRO_INT_ENG(e, COPRO_INT_DMA_DONE |
						     COPRO_INT_PREEMPTED |
						     COPRO_INT_FAULT |
						     COPRO_INT_ERROR));
	}
	return 0;
err:
	copro_render_fini(cdev);
	return ret;
}

void copro_render_fini(struct copro_device *cdev)
{
	unsigned int e;

	cancel_work_sync(&cdev->recovery_work);
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];

		if (!eng->sched_ready)
			continue;
		copro_irq_disable(cdev, COPRO_INT_ENGINE_MASK(e));
		hrtimer_cancel(&eng->slice_timer);
		drm_sched_fini(&eng->sched);
		eng->sched_ready = false;
		eng_wr32(eng, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
	}
	copro_gart_fini(cdev);
	copro_pool_fini(cdev);
	copro_limits_fini(cdev);
	ida_destroy(&cdev->ctx_ids);
}

/* Before a function or bus reset: nothing more goes on the rings. */
void copro_render_reset_prepare(struct copro_device *cdev)
{
	unsigned int e;

	/* no submit writes a stream to VRAM until reset_done */
	down_write(&cdev->reset_sem);
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		unsigned long flags;

		if (!eng->sched_ready)
			continue;
		spin_lock_irqsave(&eng->lock, flags);
		eng->stopped = true;
		/* what retired before the reset is done */
		copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
		spin_unlock_irqrestore(&eng->lock, flags);
	}
}

/*
 * After a function or bus reset every engine register is 0: program the
 * rings again and write every unfinished job again (a preempted one
 * resumes from its save record, in VRAM, which survived; one that was
 * running starts again).
 */
void copro_render_reset_done(struct copro_device *cdev)
{
	unsigned int e;

	copro_gart_program(cdev);
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		unsigned long flags;

		if (!eng->sched_ready)
			continue;
		spin_lock_irqsave(&eng->lock, flags);
		eng->stopped = false;
		if (eng->preempting) {
			eng->preempting = false;
			eng->preempt_done++;
		}
		copro_engine_program(eng);
		copro_ring_rebuild(eng);
		spin_unlock_irqrestore(&eng->lock, flags);
		wake_up_all(&eng->wq);
	}
	up_write(&cdev->reset_sem);
}

/*
 * System sleep: no job runs while the device sleeps. drm_sched stops
 * handing jobs over, the running job is preempted (its state goes to its
 * save area in VRAM, which the device keeps) and the engine stays idle.
 * copro_render_resume programs the rings again and writes every
 * unfinished job, the preempted one resuming from its save record. An
 * engine that cannot preempt is given preempt_timeout_ms to finish its
 * ring; a job still running then starts again at resume.
 */
void copro_render_suspend(struct copro_device *cdev)
{
	unsigned int e;

	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		unsigned long flags;
		bool busy;
		u64 seq;

		if (!eng->sched_ready)
			continue;
		drm_sched_wqueue_stop(&eng->sched);
		spin_lock_irqsave(&eng->lock, flags);
		eng->stopped = true;
		seq = eng->preempt_done;
		busy = !list_empty(&eng->ring_jobs);
		if (busy && cdev->preempt_caps != COPRO_PREEMPT_NONE)
			copro_request_preempt(eng);
		spin_unlock_irqrestore(&eng->lock, flags);
		if (busy && cdev->preempt_caps != COPRO_PREEMPT_NONE)
			wait_event_timeout(eng->wq,
					   READ_ONCE(eng->preempt_done) != seq,
					   msecs_to_jiffies(preempt_timeout_ms));
		else if (busy)
			wait_event_timeout(eng->wq,
					   list_empty_careful(&eng->ring_jobs),
					   msecs_to_jiffies(preempt_timeout_ms));
		eng->suspends++;
	}
}

void copro_render_resume(struct copro_device *cdev)
{
	unsigned int e;

	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		unsigned long flags;

		if (!eng->sched_ready)
			continue;
		spin_lock_irqsave(&eng->lock, flags);
		eng->stopped = false;
		copro_engine_restart(eng);
		spin_unlock_irqrestore(&eng->lock, flags);
		wake_up_all(&eng->wq);
		drm_sched_wqueue_start(&eng->sched);
	}
}

void copro_engines_show(struct copro_device *cdev, struct seq_file *m)
{
	unsigned int e;

	seq_printf(m, "preempt_caps: %u\ndevice_recoveries: %llu\ntimeslice_ms: %u\nproc_jobs: %u\n",
		   cdev->preempt_caps, cdev->device_recoveries, timeslice_ms,
		   proc_jobs);
	/* what the jobs and the GTT buffers hold: 0 once they are gone */
	seq_printf(m, "pool_used_bytes: %llu\ngart_used_pages: %llu\n",
		   READ_ONCE(cdev->pool.used), copro_gart_used(cdev));
	copro_limits_show(cdev, m);
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		unsigned long flags;
		unsigned int on_ring = 0, held = 0;
		struct copro_job *job;

		spin_lock_irqsave(&eng->lock, flags);
		list_for_each_entry(job, &eng->ring_jobs, link)
			on_ring++;
		list_for_each_entry(job, &eng->held, link)
			held++;
		spin_unlock_irqrestore(&eng->lock, flags);
		seq_printf(m, "engine%u: run %llu done %llu on_ring %u held %u\n",
			   e, eng->jobs_run, eng->jobs_done, on_ring, held);
		seq_printf(m, "engine%u: preempt_reqs %llu preemptions %llu resumes %llu tdr_preempts %llu slices %llu\n",
			   e, eng->preempt_reqs, eng->preemptions,
			   eng->preempt_resumes, eng->tdr_preempts,
			   eng->slices);
		seq_printf(m, "engine%u: resets %llu faults %llu banned %llu wait_bans %llu cancels %llu suspends %llu\n",
			   e, eng->engine_resets, eng->faults, eng->banned,
			   eng->wait_bans, eng->cancels, eng->suspends);
		seq_printf(m, "engine%u: ring head %u tail %u (driver %u) state %u completed %llu current %llu next %llu submissions %llu packets %llu\n",
			   e, eng_rd32(eng, COPRO_ENG_RING_HEAD),
			   eng_rd32(eng, COPRO_ENG_RING_TAIL), eng->tail,
			   eng_rd32(eng, COPRO_ENG_STATE),
			   eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE),
			   eng_rd64(eng, COPRO_ENG_CURRENT_FENCE),
			   eng->next_hwid,
			   eng_rd64(eng, COPRO_ENG_STAT_SUBMISSIONS),
			   eng_rd64(eng, COPRO_ENG_STAT_PACKETS));
		/* the device's own measures (request-to-saved latency) */
		seq_printf(m, "engine%u: dev_busy_ns %llu dev_preemptions %llu dev_preempt_sum_ns %llu dev_preempt_max_ns %llu\n",
			   e, eng_rd64(eng, COPRO_ENG_STAT_BUSY_NS),
			   eng_rd64(eng, COPRO_ENG_STAT_PREEMPTIONS),
			   eng_rd64(eng, COPRO_ENG_STAT_PREEMPT_SUM),
			   eng_rd64(eng, COPRO_ENG_STAT_PREEMPT_MAX));
	}
}
