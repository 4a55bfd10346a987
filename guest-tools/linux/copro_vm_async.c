// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: asynchronous VM_BIND (COPRO_VM_BIND_ASYNC).
 *
 * DOC: asynchronous binds
 *
 * The ioctl does everything that can fail for the caller's input or needs
 * memory: it checks the operations, looks the buffers up, makes the page
 * tables and the drm_gpuvas the operations may need, finds the in-syncs'
 * fences, takes a snapshot of the fences of the jobs submitted on the VM
 * so far, and installs the
 * bind's own fence in the out-syncs (so that jobs submitted next can wait
 * for it). A per-VM work item then runs the file's binds in order: it
 * waits for the in-syncs and the snapshot (an unmap must not pull a page
 * from under a job submitted before it; jobs submitted after it are the
 * caller's business and may wait for its out-syncs, so it must not wait
 * for them), carries the operations out under the VM's lock (pinning a
 * VRAM buffer in VRAM at its first mapping, as a synchronous bind does)
 * and signals the fence, with the error of the operation that failed.
 * At most COPRO_VM_BIND_MAX_PENDING binds of a VM wait; the next one
 * waits in the ioctl.
 *
 * When the file closes, binds that have not run are cancelled (their
 * fences signal -ECANCELED): a bind may wait for a job that waits for a
 * later bind of the same queue, which would never run.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>

#include "copro_vm.h"

struct copro_bind_fence {
	struct dma_fence base;	/* first: dma_fence_free frees it all */
	spinlock_t lock;	/* its own: it may outlive the VM */
};

struct copro_bind_job {
	struct list_head link;	/* vm->binds */
	struct copro_vm *vm;	/* a reference */
	struct copro_bind_op *ops;
	unsigned int op_count;
	struct dma_fence **waits;	/* in-syncs, then the VM's jobs */
	unsigned int wait_count;
	struct copro_bind_fence *done;
};

static const char *copro_bind_fence_driver(struct dma_fence *f)
{
	return "copro";
}

static const char *copro_bind_fence_timeline(struct dma_fence *f)
{
	return "vm_bind";
}

static const struct dma_fence_ops copro_bind_fence_ops = {
	.get_driver_name = copro_bind_fence_driver,
	.get_timeline_name = copro_bind_fence_timeline,
};

static void copro_bind_job_free(struct copro_bind_job *job)
{
	unsigned int i;

	for (i = 0; i < job->op_count; i++)
		copro_bind_op_release(&job->ops[i]);
	kvfree(job->ops);
	for (i = 0; i < job->wait_count; i++)
		dma_fence_put(job->waits[i]);
	kvfree(job->waits);
	if (job->done)
		dma_fence_put(&job->done->base);
	drm_gpuvm_put(&job->vm->base);
	kfree(job);
}

struct copro_bind_wake {
	struct dma_fence_cb cb;
	struct copro_vm *vm;
};

static void copro_bind_wake(struct dma_fence *f, struct dma_fence_cb *cb)
{
	wake_up_all(&container_of(cb, struct copro_bind_wake, cb)->vm->bind_wq);
}

/*
 * Wait for @f, or for the file to close: a fence that would never
 * signal (a job that waits for a later bind of this queue) must not keep
 * the file's close waiting for ever.
 */
static int copro_bind_wait(struct copro_vm *vm, struct dma_fence *f)
{
	struct copro_bind_wake w = { .vm = vm };

	if (!dma_fence_add_callback(f, &w.cb, copro_bind_wake)) {
		wait_event(vm->bind_wq, dma_fence_is_signaled(f) ||
			   READ_ONCE(vm->bind_closing));
		dma_fence_remove_callback(f, &w.cb);
	}
	return dma_fence_is_signaled(f) ? 0 : -ECANCELED;
}

static void copro_bind_job_run(struct copro_bind_job *job)
{
	struct copro_vm *vm = job->vm;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < job->wait_count; i++)
		ret = copro_bind_wait(vm, job->waits[i]);
	if (READ_ONCE(vm->bind_closing))
		ret = -ECANCELED;
	mutex_lock(&vm->lock);
	for (i = 0; !ret && i < job->op_count; i++)
		ret = copro_bind_op_run(vm, &job->ops[i], false, false);
	mutex_unlock(&vm->lock);
	if (ret)
		dma_fence_set_error(&job->done->base, ret);
	dma_fence_signal(&job->done->base);
}

static void copro_bind_work(struct work_struct *w)
{
	struct copro_vm *vm = container_of(w, struct copro_vm, bind_work);

	/*
	 * The file holds the VM until its close, which waits for this work:
	 * no job's reference here is the last.
	 */
	for (;;) {
		struct copro_bind_job *job;

		spin_lock(&vm->bind_lock);
		job = list_first_entry_or_null(&vm->binds,
					       struct copro_bind_job, link);
		spin_unlock(&vm->bind_lock);
		if (!job)
			break;
		copro_bind_job_run(job);
		spin_lock(&vm->bind_lock);
		list_del(&job->link);
		vm->bind_pending--;
		spin_unlock(&vm->bind_lock);
		wake_up_all(&vm->bind_wq);
		copro_bind_job_free(job);
	}
}

void copro_vm_async_init(struct copro_vm *vm)
{
	spin_lock_init(&vm->bind_lock);
	INIT_LIST_HEAD(&vm->binds);
	INIT_WORK(&vm->bind_work, copro_bind_work);
	init_waitqueue_head(&vm->bind_wq);
	vm->bind_context = dma_fence_context_alloc(1);
}

static bool copro_vm_binds_idle(struct copro_vm *vm)
{
	bool idle;

	spin_lock(&vm->bind_lock);
	idle = list_empty(&vm->binds);
	spin_unlock(&vm->bind_lock);
	return idle;
}

/* a synchronous bind comes after the asynchronous ones before it */
int copro_vm_bind_wait_async(struct copro_vm *vm)
{
	return wait_event_interruptible(vm->bind_wq, copro_vm_binds_idle(vm));
}

/* the file closes: what has not run yet is cancelled (-ECANCELED) */
void copro_vm_async_flush(struct copro_vm *vm)
{
	WRITE_ONCE(vm->bind_closing, true);
	wake_up_all(&vm->bind_wq);
	wait_event(vm->bind_wq, copro_vm_binds_idle(vm));
	flush_work(&vm->bind_work);
}

/* the in-syncs' fences, then those of the jobs on the VM so far */
static int copro_bind_waits(struct copro_bind_job *job, struct drm_file *file,
			    const struct drm_copro_vm_bind *a)
{
	struct dma_fence **vmf = NULL;
	struct drm_copro_sync s;
	unsigned int i, nvm = 0;
	int ret;

	ret = dma_resv_get_fences(drm_gpuvm_resv(&job->vm->base),
				  DMA_RESV_USAGE_BOOKKEEP, &nvm, &vmf);
	if (ret)
		return ret;
	job->waits = kvcalloc(a->in_sync_count + nvm, sizeof(*job->waits),
			      GFP_KERNEL);
	if (!job->waits) {
		for (i = 0; i < nvm; i++)
			dma_fence_put(vmf[i]);
		kfree(vmf);
		return -ENOMEM;
	}
	for (i = 0; i < nvm; i++)
		job->waits[job->wait_count++] = vmf[i];
	kfree(vmf);
	for (i = 0; i < a->in_sync_count; i++) {
		struct dma_fence *f;

		if (copy_from_user(&s, u64_to_user_ptr(a->in_syncs) +
				   i * sizeof(s), sizeof(s)))
			return -EFAULT;
		if (s.flags)
			return -EINVAL;
		ret = drm_syncobj_find_fence(file, s.handle, s.point, 0, &f);
		if (ret)
			return ret;
		job->waits[job->wait_count++] = f;
	}
	return 0;
}

/* @ops checked; they become the job's, freed here on every path */
int copro_vm_bind_async(struct copro_vm *vm, struct drm_file *file,
			struct drm_copro_vm_bind *a, struct copro_bind_op *ops)
{
	struct copro_out_sync *out = NULL;
	struct copro_bind_job *job;
	unsigned int i;
	int ret;

	job = kzalloc_obj(*job);
	if (!job) {
		kvfree(ops);
		return -ENOMEM;
	}
	job->vm = vm;
	drm_gpuvm_get(&vm->base);
	job->ops = ops;
	job->op_count = a->op_count;
	job->done = kzalloc_obj(*job->done);
	if (!job->done) {
		ret = -ENOMEM;
		goto err;
	}
	spin_lock_init(&job->done->lock);
	ret = copro_out_syncs_get(file, a->out_syncs, a->out_sync_count, &out);
	if (ret)
		goto err;
	/* a bounded queue: past it the caller waits for its own binds */
	ret = wait_event_interruptible(vm->bind_wq,
				       READ_ONCE(vm->bind_pending) <
				       COPRO_VM_BIND_MAX_PENDING);
	if (ret)
		goto err;
	ret = mutex_lock_interruptible(&vm->lock);
	if (ret)
		goto err;
	for (i = 0; i < job->op_count; i++) {
		ret = copro_bind_op_prepare(vm, file, &job->ops[i]);
		if (ret) {
			a->failed_op = i;
			mutex_unlock(&vm->lock);
			goto err;
		}
	}
	ret = copro_bind_waits(job, file, a);
	if (ret) {
		mutex_unlock(&vm->lock);
		goto err;
	}
	/* the VM's lock orders the binds' fences and their queue */
	dma_fence_init(&job->done->base, &copro_bind_fence_ops,
		       &job->done->lock, vm->bind_context, ++vm->bind_seqno);
	copro_out_syncs_signal(out, a->out_sync_count, &job->done->base);
	spin_lock(&vm->bind_lock);
	list_add_tail(&job->link, &vm->binds);
	vm->bind_pending++;
	spin_unlock(&vm->bind_lock);
	mutex_unlock(&vm->lock);
	queue_work(system_unbound_wq, &vm->bind_work);
	copro_out_syncs_put(out, a->out_sync_count);
	return 0;

err:
	copro_out_syncs_put(out, a->out_sync_count);
	if (job->done && !job->done->base.ops) {
		/* never initialised: not a fence yet */
		kfree(job->done);
		job->done = NULL;
	}
	copro_bind_job_free(job);
	return ret;
}
