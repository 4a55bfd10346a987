// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: per-process limits on the device's shared pools.
 *
 * DOC: Shared pools
 *
 * Every pool that processes draw on has a bound per process and a
 * reserve, as the copro OS gives each process a quota and a guarantee:
 *
 * ========== ================================ ==========================
 * pool       bound per process                reserve
 * ========== ================================ ==========================
 * job pool   proc_pool_kib (1 MiB of 4)       pool_reserve_kib (512 KiB)
 * contexts   proc_contexts (1024 of 65535)    context_reserve (1024)
 * GART       proc_gart_mib (64 of 256 MiB)    gart_reserve_mib (32 MiB)
 * VRAM pins  proc_vram_pin_pct (of VRAM, 40)  vram_pin_reserve_pct (20)
 * ring slots proc_jobs (8 of 64, copro_ring)  ring_reserve (8)
 * ========== ================================ ==========================
 *
 * A process may take more of a pool while it stays within its bound and
 * the pool keeps its reserve free; a process that holds none of the pool
 * may take the reserve too. So however many processes hold their bound,
 * one that has nothing gets its first job, context or buffer.
 *
 * The unit is the process that submits, creates or allocates: its thread
 * group (task_tgid(current)), as fdinfo counts a client, never whoever
 * opened the DRM file; more files, or files opened by short-lived clone()
 * children, give a process no more. What it holds is charged to it until
 * the job, context or buffer is gone, even after the process exited.
 *
 * Job pool memory and VRAM pins are back-pressure: a submit past the bound
 * sleeps (interruptibly) until the process's own jobs retire, as a full
 * ring would make it wait. Contexts and GTT buffers fail with -ENOSPC: the
 * process holds them until it frees them.
 */
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_gem_vram_helper.h>

#include "copro/copro_cmd.h"
#include "copro_render.h"

static unsigned int proc_pool_kib = 1024;
module_param(proc_pool_kib, uint, 0444);
MODULE_PARM_DESC(proc_pool_kib, "Kernel job pool (KiB of 4 MiB: streams and save areas of queued jobs) one process may hold; more submits sleep until its jobs retire");

static unsigned int pool_reserve_kib = 512;
module_param(pool_reserve_kib, uint, 0444);
MODULE_PARM_DESC(pool_reserve_kib, "Job pool (KiB) only a process with no queued job may take");

static unsigned int proc_contexts = 1024;
module_param(proc_contexts, uint, 0444);
MODULE_PARM_DESC(proc_contexts, "Contexts one process may have (of 65535 device ids); then CTX_CREATE fails with ENOSPC");

static unsigned int context_reserve = 1024;
module_param(context_reserve, uint, 0444);
MODULE_PARM_DESC(context_reserve, "Context ids only a process with no context may take");

static unsigned int proc_gart_mib = 64;
module_param(proc_gart_mib, uint, 0444);
MODULE_PARM_DESC(proc_gart_mib, "GTT buffers (MiB of GART aperture, pinned guest pages) one process may have; then GEM_CREATE fails with ENOSPC");

static unsigned int gart_reserve_mib = 32;
module_param(gart_reserve_mib, uint, 0444);
MODULE_PARM_DESC(gart_reserve_mib, "GART aperture (MiB) only a process with no GTT buffer may take");

static unsigned int proc_vram_pin_pct = 40;
module_param(proc_vram_pin_pct, uint, 0444);
MODULE_PARM_DESC(proc_vram_pin_pct, "VRAM (percent) the queued jobs of one process may hold pinned; more submits sleep until its jobs retire");

static unsigned int vram_pin_reserve_pct = 20;
module_param(vram_pin_reserve_pct, uint, 0444);
MODULE_PARM_DESC(vram_pin_reserve_pct, "VRAM (percent) that jobs may pin only for a process with nothing pinned: the rest stays for other clients and mode sets");

static unsigned int ring_reserve = 8;
module_param(ring_reserve, uint, 0444);
MODULE_PARM_DESC(ring_reserve, "Ring slots of an engine (of 64) only a process with no job on it may take");

unsigned int copro_ring_reserve(void)
{
	return ring_reserve;
}

static const char * const copro_res_names[COPRO_RES_COUNT] = {
	[COPRO_RES_POOL] = "pool_bytes",
	[COPRO_RES_CTX] = "contexts",
	[COPRO_RES_GART] = "gart_pages",
	[COPRO_RES_VRAM] = "vram_pinned_bytes",
};

static void copro_limit_set(struct copro_limits *l, enum copro_res res,
			    u64 cap, u64 max, u64 reserve)
{
	l->cap[res] = cap;
	l->max[res] = min(max, cap);
	l->reserve[res] = min(reserve, cap);
}

/* After the pool and the GART exist: their sizes are the capacities. */
void copro_limits_init(struct copro_device *cdev, u64 pool_bytes)
{
	struct copro_limits *l = &cdev->limits;
	u64 vram;

	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wq);
	mutex_init(&l->pins_lock);
	xa_init(&l->pins);
	copro_limit_set(l, COPRO_RES_POOL, pool_bytes,
			(u64)proc_pool_kib << 10, (u64)pool_reserve_kib << 10);
	copro_limit_set(l, COPRO_RES_CTX, 0xffff, proc_contexts,
			context_reserve);
	copro_limit_set(l, COPRO_RES_GART, cdev->gart.entries,
			((u64)proc_gart_mib << 20) / COPRO_GPU_PAGE_SIZE,
			((u64)gart_reserve_mib << 20) / COPRO_GPU_PAGE_SIZE);
	/* what the kernel's own buffers (pool, GART table) leave */
	vram = cdev->vram_size - min(cdev->vram_size,
				     cdev->pool.size + cdev->gart.entries * 8);
	copro_limit_set(l, COPRO_RES_VRAM, vram,
			div_u64(vram * min(proc_vram_pin_pct, 100u), 100),
			div_u64(vram * min(vram_pin_reserve_pct, 100u), 100));
}

void copro_limits_fini(struct copro_device *cdev)
{
	xa_destroy(&cdev->limits.pins);
}

/* The calling process's copro_proc, a reference taken; NULL: no memory. */
struct copro_proc *copro_proc_get(struct copro_device *cdev)
{
	struct pid *tgid = task_tgid(current);
	struct copro_proc *proc;

	mutex_lock(&cdev->procs_lock);
	list_for_each_entry(proc, &cdev->procs, link) {
		if (proc->tgid == tgid) {
			kref_get(&proc->ref);
			goto out;
		}
	}
	proc = kzalloc_obj(*proc);
	if (proc) {
		kref_init(&proc->ref);
		proc->cdev = cdev;
		proc->tgid = get_pid(tgid);
		list_add(&proc->link, &cdev->procs);
	}
out:
	mutex_unlock(&cdev->procs_lock);
	return proc;
}

/* kref_put_mutex: called with procs_lock held, releases it */
static void copro_proc_release(struct kref *ref)
{
	struct copro_proc *proc = container_of(ref, struct copro_proc, ref);
	struct copro_device *cdev = proc->cdev;

	list_del(&proc->link);
	mutex_unlock(&cdev->procs_lock);
	put_pid(proc->tgid);
	kfree(proc);
}

void copro_proc_put(struct copro_proc *proc)
{
	if (proc)
		kref_put_mutex(&proc->ref, copro_proc_release,
			       &proc->cdev->procs_lock);
}

/*
 * Charge @n of pool @res to @proc: 0, -EAGAIN when the bound or the
 * reserve says not now (what it holds must be released first), -ENOSPC
 * when @n alone is past its bound (never).
 */
int copro_charge(struct copro_proc *proc, enum copro_res res, u64 n)
{
	struct copro_limits *l = &proc->cdev->limits;
	int ret = -EAGAIN;

	if (n > l->max[res])
		return -ENOSPC;
	spin_lock(&l->lock);
	if (proc->held[res] + n > l->max[res] || l->used[res] + n > l->cap[res])
		goto out;
	/* the reserve is for processes that hold none of the pool */
	if (proc->held[res] && l->used[res] + n > l->cap[res] - l->reserve[res])
		goto out;
	proc->held[res] += n;
	l->used[res] += n;
	ret = 0;
out:
	spin_unlock(&l->lock);
	return ret;
}

void copro_uncharge(struct copro_proc *proc, enum copro_res res, u64 n)
{
	struct copro_limits *l = &proc->cdev->limits;

	spin_lock(&l->lock);
	if (!WARN_ON(proc->held[res] < n || l->used[res] < n)) {
		proc->held[res] -= n;
		l->used[res] -= n;
	}
	spin_unlock(&l->lock);
	atomic_inc(&l->releases);
	wake_up_all(&l->wq);
}

/*
 * Back-pressure: charge @n, sleeping until the process's jobs (or others')
 * release enough; a signal interrupts the wait.
 */
int copro_charge_wait(struct copro_proc *proc, enum copro_res res, u64 n)
{
	struct copro_limits *l = &proc->cdev->limits;

	for (;;) {
		unsigned int gen = atomic_read(&l->releases);
		int ret = copro_charge(proc, res, n);

		if (ret != -EAGAIN)
			return ret;
		ret = wait_event_interruptible(l->wq,
					       atomic_read(&l->releases) != gen);
		if (ret)
			return ret;
	}
}

/*
 * DOC: VRAM pins
 *
 * A job pins its VRAM buffers from submit to free_job. The bytes of a
 * buffer are charged once, to the process whose job pinned it first, for
 * as long as any job pins it (limits.pins counts the jobs): a buffer that
 * a hundred jobs use is one buffer.
 */
struct copro_pin {
	struct copro_proc *proc;
	unsigned int jobs;
};

static bool copro_job_pins(struct copro_job *job, unsigned int i)
{
	unsigned int j;

	if (copro_is_gtt(job->bos[i]))
		return false;
	/* the same object under two handles is pinned once by the job */
	for (j = 0; j < i; j++)
		if (job->bos[j] == job->bos[i])
			return false;
	return true;
}

static void copro_pins_put(struct copro_job *job, unsigned int count)
{
	struct copro_limits *l = &job->cdev->limits;
	struct copro_pin *pin;
	unsigned int i;

	for (i = 0; i < count; i++) {
		if (!copro_job_pins(job, i))
			continue;
		pin = xa_load(&l->pins, (unsigned long)job->bos[i]);
		if (WARN_ON(!pin) || --pin->jobs)
			continue;
		xa_erase(&l->pins, (unsigned long)job->bos[i]);
		copro_uncharge(pin->proc, COPRO_RES_VRAM, job->bos[i]->size);
		copro_proc_put(pin->proc);
		kfree(pin);
	}
}

/* limits.pins_lock held: charge the buffers no job pins yet, count all */
static int copro_pins_try(struct copro_job *job)
{
	struct copro_limits *l = &job->cdev->limits;
	struct copro_pin *pin;
	unsigned int i;
	u64 bytes = 0;
	int ret;

	for (i = 0; i < job->bo_count; i++)
		if (copro_job_pins(job, i) &&
		    !xa_load(&l->pins, (unsigned long)job->bos[i]))
			bytes += job->bos[i]->size;
	if (bytes) {
		ret = copro_charge(job->proc, COPRO_RES_VRAM, bytes);
		if (ret)
			return ret;
	}
	for (i = 0; i < job->bo_count; i++) {
		if (!copro_job_pins(job, i))
			continue;
		pin = xa_load(&l->pins, (unsigned long)job->bos[i]);
		if (!pin) {
			pin = kzalloc_obj(*pin);
			if (!pin)
				goto err;
			if (xa_err(xa_store(&l->pins, (unsigned long)job->bos[i],
					    pin, GFP_KERNEL))) {
				kfree(pin);
				goto err;
			}
			kref_get(&job->proc->ref);
			pin->proc = job->proc;
			bytes -= job->bos[i]->size;
		}
		pin->jobs++;
	}
	return 0;

err:
	/* give back what this job took: its new pins uncharge themselves */
	copro_pins_put(job, i);
	if (bytes)
		copro_uncharge(job->proc, COPRO_RES_VRAM, bytes);
	return -ENOMEM;
}

/*
 * Count the job's VRAM buffers against its process before they are
 * pinned; sleeps while the process is at its bound (its jobs will retire).
 */
int copro_pins_charge(struct copro_job *job)
{
	struct copro_limits *l = &job->cdev->limits;

	for (;;) {
		unsigned int gen = atomic_read(&l->releases);
		int ret;

		mutex_lock(&l->pins_lock);
		ret = copro_pins_try(job);
		mutex_unlock(&l->pins_lock);
		if (!ret)
			job->pins_charged = true;
		if (ret != -EAGAIN)
			return ret;
		ret = wait_event_interruptible(l->wq,
					       atomic_read(&l->releases) != gen);
		if (ret)
			return ret;
	}
}

void copro_pins_uncharge(struct copro_job *job)
{
	struct copro_limits *l = &job->cdev->limits;

	if (!job->pins_charged)
		return;
	mutex_lock(&l->pins_lock);
	copro_pins_put(job, job->bo_count);
	mutex_unlock(&l->pins_lock);
	job->pins_charged = false;
}

void copro_limits_show(struct copro_device *cdev, struct seq_file *m)
{
	struct copro_limits *l = &cdev->limits;
	u64 used[COPRO_RES_COUNT];
	unsigned int r;

	spin_lock(&l->lock);
	memcpy(used, l->used, sizeof(used));
	spin_unlock(&l->lock);
	for (r = 0; r < COPRO_RES_COUNT; r++)
		seq_printf(m, "limit %s: used %llu of %llu, per process %llu, reserve %llu\n",
			   copro_res_names[r], used[r], l->cap[r], l->max[r],
			   l->reserve[r]);
}
