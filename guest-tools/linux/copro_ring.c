// SPDX-License-Identifier: GPL-2.0-or-later
/**
 * DOC: the rings
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
 * Time slices share an engine among the contexts of one priority.
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

/* ---- hardware fences ---- */

static const char *copro_fence_driver_name(struct dma_fence *f)
{
	return COPRO_DRIVER_NAME;
}

static const char *copro_fence_timeline_name(struct dma_fence *f)
{
	return "copro-ring";
}

const struct dma_fence_ops copro_hw_fence_ops = {
	.get_driver_name = copro_fence_driver_name,
	.get_timeline_name = copro_fence_timeline_name,
};

/* ---- the ring (eng->lock held) ---- */

void copro_ring_write(struct copro_engine *eng, struct copro_job *job)
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

void copro_ring_kick(struct copro_engine *eng)
{
	/* the descriptors reach VRAM before the doorbell */
	wmb();
	eng_wr32(eng, COPRO_ENG_RING_TAIL, eng->tail);
}

void copro_job_signal(struct copro_engine *eng, struct copro_job *job,
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
 * (jobs of another context at its priority), a timer of copro_timeslice_ms
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

void copro_slice_arm(struct copro_engine *eng)
{
	struct copro_job *head;
	u64 left, ran;

	if (!copro_timeslice_ms || eng->slice_armed || eng->preempting ||
	    eng->unplugged || eng->cdev->preempt_caps == COPRO_PREEMPT_NONE)
		return;
	head = list_first_entry_or_null(&eng->ring_jobs, struct copro_job,
					link);
	if (!head || !copro_has_peers(eng, head))
		return;
	/* the slice counts from when the head job started running */
	left = (u64)copro_timeslice_ms * NSEC_PER_MSEC;
	ran = copro_rd64(eng->cdev, COPRO_REG_GPU_TIME) - head->start_ns;
	if (head->start_ns && ran < left)
		left -= ran;
	else if (head->start_ns)
		left = 0;
	eng->slice_seq = head->seq;
	eng->slice_armed = true;
	hrtimer_start(&eng->slice_timer, ns_to_ktime(left), HRTIMER_MODE_REL);
}

void copro_request_preempt(struct copro_engine *eng);

enum hrtimer_restart copro_slice_end(struct hrtimer *t)
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
	    !eng->stopped && !eng->unplugged && copro_has_peers(eng, head)) {
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
void copro_job_charge(struct copro_engine *eng, struct copro_job *job,
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
void copro_retire(struct copro_engine *eng, u64 done)
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

void copro_request_preempt(struct copro_engine *eng)
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
void copro_ring_rebuild(struct copro_engine *eng)
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

void copro_engine_program(struct copro_engine *eng)
{
	eng_wr64(eng, COPRO_ENG_RING_BASE, eng->ring_gpu);
	eng_wr32(eng, COPRO_ENG_RING_SIZE, COPRO_RING_ENTRIES);
	eng->tail = 0;
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
