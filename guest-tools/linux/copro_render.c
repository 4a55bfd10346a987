// SPDX-License-Identifier: GPL-2.0-or-later
/**
 * DOC: the render half's lifetime
 *
 * Its module parameters, bring-up (the pool, the GART, one drm_sched
 * per engine), the unplug that fails every job and stops the engines,
 * the release when the last file is gone, and the debugfs view.
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

static unsigned int job_timeout_ms = 2000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms, "drm_sched job timeout (ms): then a preemption is asked, and the engine reset if it is not honoured");

unsigned int copro_preempt_timeout_ms = 100;
module_param_named(preempt_timeout_ms, copro_preempt_timeout_ms, uint, 0444);
MODULE_PARM_DESC(preempt_timeout_ms, "How long a hang check waits for a preemption before resetting the engine (ms)");

unsigned int copro_timeslice_ms = 10;
module_param_named(timeslice_ms, copro_timeslice_ms, uint, 0444);
MODULE_PARM_DESC(timeslice_ms, "Time slice among contexts of the same priority (ms; 0: none): then the running job is preempted and goes behind its peers");

unsigned int copro_proc_jobs = 8;
module_param_named(proc_jobs, copro_proc_jobs, uint, 0444);
MODULE_PARM_DESC(proc_jobs, "Jobs of one priority one process (all its DRM files) may have on an engine's ring at once (1 to 64): the rest wait in drm_sched, so no process holds every slot");

unsigned int copro_hang_limit = 3;
module_param_named(hang_limit, copro_hang_limit, uint, 0444);
MODULE_PARM_DESC(hang_limit, "Engine resets in a row (no job retired between) before every engine is reset");

/* ---- bring-up ---- */

static void copro_render_release(struct drm_device *drm, void *data);

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
	init_waitqueue_head(&cdev->jobs_wq);
	INIT_WORK(&cdev->recovery_work, copro_recovery_work);
	/*
	 * The schedulers, the pool and the GART's bookkeeping live as long
	 * as the DRM device: the files, their contexts and jobs may outlive
	 * the PCI function (hot-unplug, copro_render_unplug).
	 */
	ret = drmm_add_action_or_reset(&cdev->drm, copro_render_release, cdev);
	if (ret)
		return ret;
	cdev->preempt_caps = copro_rd32(cdev, COPRO_REG_PREEMPT_CAPS);
	ret = copro_pool_init(cdev, COPRO_POOL_SIZE,
			      COPRO_MAX_ENGINES * COPRO_RING_ENTRIES *
			      COPRO_DESC_SIZE);
	if (ret)
		return ret;
	ret = copro_gart_init(cdev);
	if (ret)
		return ret;
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
			return ret;
		eng->sched_ready = true;
		copro_irq_enable(cdev, COPRO_INT_ENG(e, COPRO_INT_DMA_DONE |
						     COPRO_INT_PREEMPTED |
						     COPRO_INT_FAULT |
						     COPRO_INT_ERROR));
	}
	return 0;
}

/*
 * The PCI function goes away (copro_remove after drm_dev_unplug, or a
 * failed probe). No ioctl, run_job, hang check or recovery touches the
 * device from here on (drm_dev_enter fails). The engines stop and the
 * GART is switched off, so the device reaches no page the kernel frees
 * after this; every job the rings held fails with -ENODEV, so every
 * fence signals and every waiter wakes (jobs still queued in drm_sched
 * fail in run_job); the slice timers and the recovery work are stopped
 * before BAR0's mapping goes with the function. drm_sched itself stays
 * until the DRM device is released (copro_render_release): the files
 * and their contexts may still be open.
 */
void copro_render_unplug(struct copro_device *cdev)
{
	unsigned int e;

	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];
		struct copro_job *job, *tmp;
		unsigned long flags;

		if (!eng->sched_ready)
			continue;
		copro_irq_disable(cdev, COPRO_INT_ENGINE_MASK(e));
		spin_lock_irqsave(&eng->lock, flags);
		eng->unplugged = true;
		eng_wr32(eng, COPRO_ENG_CONTROL, COPRO_ENG_CTL_RESET);
		copro_preempt_cancel(eng);
		list_for_each_entry_safe(job, tmp, &eng->ring_jobs, link)
			copro_job_signal(eng, job, -ENODEV);
		list_for_each_entry_safe(job, tmp, &eng->held, link)
			copro_job_signal(eng, job, -ENODEV);
		spin_unlock_irqrestore(&eng->lock, flags);
		hrtimer_cancel(&eng->slice_timer);
		wake_up_all(&eng->wq);
	}
	cancel_work_sync(&cdev->recovery_work);
	copro_gart_disable(cdev);
}

/* drmm: the DRM device's last reference is gone (no file is open) */
static void copro_render_release(struct drm_device *drm, void *data)
{
	struct copro_device *cdev = data;
	unsigned int e;

	/*
	 * drm_sched frees the last jobs from its work (their fences all
	 * signalled at the close or the unplug); drm_sched_fini would leave
	 * them, and their buffers, behind.
	 */
	if (!wait_event_timeout(cdev->jobs_wq, !atomic_read(&cdev->jobs),
				10 * HZ))
		drm_err(drm, "%d jobs never freed\n", atomic_read(&cdev->jobs));
	/* copro_job_free's wake-up is over before cdev goes */
	spin_lock_irq(&cdev->jobs_wq.lock);
	spin_unlock_irq(&cdev->jobs_wq.lock);
	for (e = 0; e < cdev->num_engines; e++) {
		struct copro_engine *eng = &cdev->engines[e];

		if (!eng->sched_ready)
			continue;
		hrtimer_cancel(&eng->slice_timer);
		drm_sched_fini(&eng->sched);
		eng->sched_ready = false;
	}
	copro_gart_fini(cdev);
	copro_pool_fini(cdev);
	copro_limits_fini(cdev);
	ida_destroy(&cdev->ctx_ids);
}

void copro_engines_show(struct copro_device *cdev, struct seq_file *m)
{
	unsigned int e;

	seq_printf(m, "preempt_caps: %u\ndevice_recoveries: %llu\ntimeslice_ms: %u\nproc_jobs: %u\n",
		   cdev->preempt_caps, cdev->device_recoveries, copro_timeslice_ms,
		   copro_proc_jobs);
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
