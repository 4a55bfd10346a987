// SPDX-License-Identifier: GPL-2.0-or-later
/**
 * DOC: recovery
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
 *
 * A function or bus reset (reset_prepare/done) and system sleep
 * (suspend/resume) stop the rings and write every unfinished job again.
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

/*
 * Reset the engine (its lock held). The job whose entry is @guilty (0:
 * none known) has its context banned; every job of that context fails,
 * every other job goes on the ring again.
 */
void copro_engine_recover(struct copro_engine *eng, u64 guilty, int error)
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
	copro_preempt_cancel(eng);
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
	if (eng->hangs_in_row >= copro_hang_limit) {
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
void copro_engine_restart(struct copro_engine *eng)
{
	copro_retire(eng, eng_rd64(eng, COPRO_ENG_COMPLETED_FENCE));
	eng_wr32(eng, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
	copro_preempt_cancel(eng);
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
void copro_recovery_work(struct work_struct *w)
{
	struct copro_device *cdev = container_of(w, struct copro_device,
						 recovery_work);
	unsigned int e;
	int ret, idx;

	/* unplugged: nothing left to reset (copro_render_unplug) */
	if (!drm_dev_enter(&cdev->drm, &idx))
		return;
	cdev->device_recoveries++;
	ret = pci_try_reset_function(cdev->pdev);
	drm_warn(&cdev->drm, "repeated hangs: device reset (%s)\n",
		 ret ? "engines only, no PCI reset method" : "PCI reset");
	/* no reset method: every engine is reset and programmed instead */
	for (e = 0; ret && e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		unsigned long flags;

		spin_lock_irqsave(&eng->lock, flags);
		copro_engine_restart(eng);
		spin_unlock_irqrestore(&eng->lock, flags);
		wake_up_all(&eng->wq);
	}
	drm_dev_exit(idx);
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
		copro_preempt_cancel(eng);
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
 * engine that cannot preempt is given copro_preempt_timeout_ms to finish its
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
					   msecs_to_jiffies(copro_preempt_timeout_ms));
		else if (busy)
			wait_event_timeout(eng->wq,
					   list_empty_careful(&eng->ring_jobs),
					   msecs_to_jiffies(copro_preempt_timeout_ms));
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
