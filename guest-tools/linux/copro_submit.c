// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: the submit ioctl.
 *
 * The stream is copied into kernel memory and checked there, packet by
 * packet, with the firmware kmd's rules (firmware/kmd/copro_render.c):
 * known opcodes only, each at its fixed length (copro_packet_len()),
 * none running past the stream; INTERRUPT and COPY_PTE are the kernel's
 * own; FENCE without the interrupt flag; the copy engine only its
 * opcodes. Every address field names a buffer of the list and an offset,
 * COPRO_ADDR(i, off): the whole range the packet touches (8 bytes for
 * TIMESTAMP, FENCE and WAIT; size bytes for COPY and FILL; pitch x height
 * for SET_TARGET) must lie inside buffer i, written ones must be listed
 * COPRO_BO_WRITE. A RECT draws only into a slot the same stream bound:
 * bound targets are engine state that outlives a submission. The checked
 * copy, with the buffers' VRAM addresses patched in, goes to the kernel
 * pool, where no process can change it before the engine reads it.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_syncobj.h>

#include "copro/copro_cmd.h"
#include "uapi/copro_drm.h"
#include "copro_render.h"
#include "copro_trace.h"
#include "copro_vm.h"

struct copro_check {
	u32 *cmd;
	u32 ndw;
	unsigned int engine;
	unsigned int bo_count;
	const u64 *gpu;		/* VRAM address of each buffer */
	const u64 *size;
	const u32 *flags;
	u32 bound;		/* target slots bound by this stream */
	u64 work_ns;
	u32 bad;		/* byte offset of the refused packet */
};

static u64 get64(const u32 *p)
{
	return (u64)p[0] | ((u64)p[1] << 32);
}

static void put64(u32 *p, u64 v)
{
	p[0] = lower_32_bits(v);
	p[1] = upper_32_bits(v);
}

/* Check and patch the address field at @p: @bytes from it, @align. */
static int copro_check_addr(struct copro_check *c, u32 *p, u64 bytes,
			    u32 align, bool write)
{
	u64 v = get64(p);
	u32 idx = upper_32_bits(v);
	u32 off = lower_32_bits(v);

	if (idx >= c->bo_count)
		return -EINVAL;
	if (write && !(c->flags[idx] & COPRO_BO_WRITE))
		return -EACCES;
	if (bytes > c->size[idx] || off > c->size[idx] - bytes)
		return -ERANGE;
	if (off % align)
		return -EINVAL;
	put64(p, c->gpu[idx] + off);
	return 0;
}

static int copro_check_packet(struct copro_check *c, u32 *p, u32 op,
			      u32 flags)
{
	u32 bpp, pitch, width, height;
	u64 n;
	int ret;

	switch (op) {
	case COPRO_OP_NOP:
		return 0;
	case COPRO_OP_TIMESTAMP:
		return copro_check_addr(c, p + 1, 8, 8, true);
	case COPRO_OP_FENCE:
		if (flags)	/* COPRO_FENCE_IRQ is the kernel's */
			return -EINVAL;
		return copro_check_addr(c, p + 1, 8, 8, true);
	case COPRO_OP_WAIT:
		return copro_check_addr(c, p + 1, 8, 8, false);
	case COPRO_OP_COPY:
		n = get64(p + 5);
		ret = copro_check_addr(c, p + 1, n, 1, true);
		return ret ?: copro_check_addr(c, p + 3, n, 1, false);
	case COPRO_OP_FILL:
		n = get64(p + 3);
		if (n % 4)
			return -EINVAL;
		return copro_check_addr(c, p + 1, n, 1, true);
	case COPRO_OP_SET_TARGET:
		pitch = p[3];
		width = p[4];
		height = p[5];
		bpp = copro_fmt_bpp(p[6]);
		if (flags >= COPRO_TARGET_SLOTS || !bpp ||
		    width > COPRO_TARGET_MAX_DIM ||
		    height > COPRO_TARGET_MAX_DIM || pitch < width * bpp)
			return -EINVAL;
		ret = copro_check_addr(c, p + 1, (u64)pitch * height, 1, true);
		if (!ret)
			c->bound |= BIT(flags);
		return ret;
	case COPRO_OP_RECT:
		/* a slot bound before may hold another process's surface */
		if (flags >= COPRO_TARGET_SLOTS || !(c->bound & BIT(flags)))
			return -EINVAL;
		return 0;
	case COPRO_OP_WORK:
		n = get64(p + 1);
		if (n > COPRO_SUBMIT_MAX_WORK_NS - c->work_ns)
			return -EINVAL;
		c->work_ns += n;
		return 0;
	default:
		/* INTERRUPT, COPY_PTE: the kernel's own */
		return -EINVAL;
	}
}

static int copro_check_stream(struct copro_check *c)
{
	u32 i = 0;
	int ret;

	while (i < c->ndw) {
		u32 hdr = c->cmd[i];
		u32 op = COPRO_PKT_OP(hdr);
		u32 len = COPRO_PKT_LEN(hdr);

		c->bad = i * 4;
		if (op > COPRO_OP_LAST)
			return -EINVAL;
		if (c->engine == COPRO_ENGINE_COPY &&
		    !(COPRO_COPY_ENGINE_OPS & BIT(op)))
			return -EINVAL;
		if (op == COPRO_OP_NOP ? len < 1 : len != copro_packet_len(op))
			return -EINVAL;
		if (len > c->ndw - i)
			return -EINVAL;
		ret = copro_check_packet(c, &c->cmd[i], op, COPRO_PKT_FLAGS(hdr));
		if (ret)
			return ret;
		i += len;
	}
	c->bad = U32_MAX;
	return 0;
}

void copro_job_free(struct copro_job *job)
{
	struct copro_device *cdev = job->cdev;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < job->bo_pinned; i++)
		if (!copro_is_gtt(job->bos[i]))
			copro_bo_unpin(drm_gem_vram_of_gem(job->bos[i]));
	copro_pins_uncharge(job);
	for (i = 0; i < job->bo_count; i++)
		drm_gem_object_put(job->bos[i]);
	kvfree(job->bos);
	if (drm_mm_node_allocated(&job->mem)) {
		u64 size = job->mem.size;

		copro_pool_free(job->cdev, &job->mem);
		copro_uncharge(job->proc, COPRO_RES_POOL, size);
	}
	copro_vm_job_release(job);
	copro_proc_put(job->proc);
	if (job->hw)
		dma_fence_put(job->hw);
	kfree(job->hw_mem);
	copro_ctx_put(job->ctx);
	kfree(job);
	/* the last access to cdev: copro_render_release waits for it */
	spin_lock_irqsave(&cdev->jobs_wq.lock, flags);
	if (atomic_dec_and_test(&cdev->jobs))
		wake_up_locked(&cdev->jobs_wq);
	spin_unlock_irqrestore(&cdev->jobs_wq.lock, flags);
}

/*
 * Look the buffers up, pin the VRAM ones in VRAM; fill the check's
 * tables: each buffer's GPU address, size and flags. The VRAM buffers are
 * charged to the submitting process before they are pinned, so that the
 * queued jobs of one process never pin more than its share of VRAM
 * (copro_limits.c).
 */
static int copro_job_bos(struct copro_job *job, struct drm_file *file,
			 const struct drm_copro_submit *a, u64 *gpu, u64 *size,
			 u32 *flags)
{
	struct drm_copro_bo_ref *refs;
	unsigned int i, j;
	int ret = 0;

	if (!a->bo_count)
		return 0;
	refs = kvmalloc_array(a->bo_count, sizeof(*refs), GFP_KERNEL);
	job->bos = kvcalloc(a->bo_count, sizeof(*job->bos), GFP_KERNEL);
	if (!refs || !job->bos) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(refs, u64_to_user_ptr(a->bos),
			   a->bo_count * sizeof(*refs))) {
		ret = -EFAULT;
		goto out;
	}
	for (i = 0; i < a->bo_count; i++) {
		struct drm_gem_object *obj;

		if (refs[i].flags & ~COPRO_BO_WRITE) {
			ret = -EINVAL;
			goto out;
		}
		for (j = 0; j < i; j++) {
			if (refs[j].handle == refs[i].handle) {
				ret = -EINVAL;
				goto out;
			}
		}
		obj = drm_gem_object_lookup(file, refs[i].handle);
		if (!obj) {
			ret = -ENOENT;
			goto out;
		}
		job->bos[job->bo_count++] = obj;
		size[i] = obj->size;
		flags[i] = refs[i].flags;
	}
	ret = copro_pins_charge(job);
	if (ret)
		goto out;
	for (i = 0; i < job->bo_count; i++) {
		struct drm_gem_object *obj = job->bos[i];
		struct drm_gem_vram_object *gbo;
		s64 off;

		if (copro_is_gtt(obj)) {
			/* mapped in the aperture for its whole life */
			job->bo_pinned++;
			gpu[i] = copro_gtt_gpu(obj);
			continue;
		}
		gbo = drm_gem_vram_of_gem(obj);
		ret = copro_bo_pin_vram(gbo, false);
		if (ret)
			goto out;
		job->bo_pinned++;
		off = drm_gem_vram_offset(gbo);
		if (off < 0) {
			ret = off;
			goto out;
		}
		gpu[i] = off;
	}
out:
	kvfree(refs);
	return ret;
}

static int copro_syncs_in(struct copro_job *job, struct drm_file *file,
			  const struct drm_copro_submit *a)
{
	struct drm_copro_sync s;
	unsigned int i;
	int ret;

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
		ret = drm_sched_job_add_dependency(&job->base, f);
		if (ret)
			return ret;
	}
	return 0;
}

static struct copro_ctx *copro_ctx_lookup(struct copro_file *cfile, u32 h)
{
	struct copro_ctx *ctx;

	xa_lock(&cfile->ctxs);
	ctx = xa_load(&cfile->ctxs, h);
	if (ctx)
		kref_get(&ctx->ref);
	xa_unlock(&cfile->ctxs);
	return ctx;
}

/*
 * Take @size bytes of the kernel pool for @job, charged to the submitting
 * process: within its bound (proc_pool_kib) and leaving the reserve to
 * processes with no job queued (copro_limits.c). Past that, or when the
 * pool is fragmented, the submit sleeps until jobs retire (back-pressure,
 * as a full ring would give), or a signal interrupts it.
 */
static int copro_pool_charge(struct copro_job *job, u64 size)
{
	struct copro_device *cdev = job->cdev;
	struct copro_limits *l = &cdev->limits;

	for (;;) {
		unsigned int gen;
		int ret;

		ret = copro_charge_wait(job->proc, COPRO_RES_POOL, size);
		if (ret)
			return ret;
		gen = atomic_read(&l->releases);
		if (!copro_pool_alloc(cdev, &job->mem, size))
			return 0;
		/* fragmented: wait for a release other than this one */
		copro_uncharge(job->proc, COPRO_RES_POOL, size);
		ret = wait_event_interruptible(l->wq,
					       atomic_read(&l->releases) != gen + 1);
		if (ret)
			return ret;
	}
}

/* Copy, check and place the stream; the job's pool memory holds it. */
static int copro_job_stream(struct copro_job *job,
			    struct drm_copro_submit *a, struct copro_check *c)
{
	struct copro_device *cdev = job->cdev;
	/* the stream, then a TIMESTAMP of its end (below), 64-aligned */
	u32 stream = ALIGN(a->cmds_size + COPRO_LEN_TIMESTAMP * 4, 64);
	u64 end_gpu;
	u32 ts[COPRO_LEN_TIMESTAMP];
	int ret, idx;

	c->cmd = kvmalloc(a->cmds_size, GFP_KERNEL);
	if (!c->cmd)
		return -ENOMEM;
	if (copy_from_user(c->cmd, u64_to_user_ptr(a->cmds), a->cmds_size)) {
		ret = -EFAULT;
		goto out;
	}
	c->ndw = a->cmds_size / 4;
	ret = copro_check_stream(c);
	a->bad_offset = c->bad;
	if (ret)
		goto out;
	ret = copro_pool_charge(job, stream + COPRO_SAVE_AREA + COPRO_END_AREA);
	if (ret)
		goto out;
	job->dma_gpu = cdev->pool.gpu + job->mem.start;
	job->save_gpu = job->dma_gpu + stream;
	job->end_off = job->mem.start + stream + COPRO_SAVE_AREA;
	/*
	 * The job's last packet writes the device time at which it ended
	 * into the kernel's own memory: jobs that retire in one interrupt
	 * are each charged their own run time (review defect 7), not the
	 * first one all of it.
	 */
	end_gpu = cdev->pool.gpu + job->end_off;
	ts[0] = COPRO_PKT_HDR(COPRO_OP_TIMESTAMP, 0, COPRO_LEN_TIMESTAMP);
	ts[1] = lower_32_bits(end_gpu);
	ts[2] = upper_32_bits(end_gpu);
	/* VRAM writes are lost while a reset has the BARs off */
	down_read(&cdev->reset_sem);
	if (drm_dev_enter(&cdev->drm, &idx)) {
		iosys_map_memcpy_to(&cdev->pool.map, job->mem.start, c->cmd,
				    a->cmds_size);
		iosys_map_memcpy_to(&cdev->pool.map,
				    job->mem.start + a->cmds_size, ts,
				    sizeof(ts));
		iosys_map_wr(&cdev->pool.map, job->end_off, u64, 0);
		drm_dev_exit(idx);
	} else {
		ret = -ENODEV;	/* unplugged while it slept */
	}
	up_read(&cdev->reset_sem);
	job->dma_len = a->cmds_size + sizeof(ts);
out:
	kvfree(c->cmd);
	return ret;
}

/*
 * By VA (COPRO_SUBMIT_VA): the device runs the process's buffer in its VM
 * as it is. The pool holds only the job's end-time slot, which no packet
 * writes (the job is charged up to the interrupt that retires it); the
 * pool charge still bounds a process's queued jobs.
 */
static int copro_job_va(struct copro_job *job, struct drm_copro_submit *a)
{
	struct copro_device *cdev = job->cdev;
	int ret;

	ret = copro_vm_job_prepare(job, a->cmds, a->cmds_size);
	if (ret)
		return ret;
	ret = copro_pool_charge(job, COPRO_END_AREA);
	if (ret)
		return ret;
	job->end_off = job->mem.start;
	down_read(&cdev->reset_sem);
	iosys_map_wr(&cdev->pool.map, job->end_off, u64, 0);
	up_read(&cdev->reset_sem);
	return 0;
}

int copro_ioctl_submit(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct copro_device *cdev = to_copro(drm);
	struct copro_file *cfile = file->driver_priv;
	struct drm_copro_submit *a = data;
	struct copro_out_sync *out = NULL;
	struct copro_check c = {};
	struct ww_acquire_ctx acquire;
	struct dma_fence *fence;
	struct copro_job *job;
	struct copro_ctx *ctx;
	bool by_va = a->flags & COPRO_SUBMIT_VA;
	struct copro_vm *vm = NULL;
	struct drm_exec *vexec = NULL;
	bool inited = false;
	u64 *tables = NULL;
	int fd = -1;
	unsigned int i;
	int ret;

	a->bad_offset = U32_MAX;
	if ((a->flags & ~(COPRO_SUBMIT_FENCE_FD_OUT | COPRO_SUBMIT_VA)) ||
	    a->pad || a->engine >= cdev->num_engines || !a->cmds_size ||
	    a->cmds_size % 4 ||
	    a->cmds_size > (by_va ? COPRO_DMA_MAX : COPRO_SUBMIT_MAX_CMDS) ||
	    a->bo_count > (by_va ? 0 : COPRO_SUBMIT_MAX_BOS) ||
	    a->in_sync_count > COPRO_SUBMIT_MAX_SYNCS ||
	    a->out_sync_count > COPRO_SUBMIT_MAX_SYNCS)
		return -EINVAL;
	ctx = copro_ctx_lookup(cfile, a->ctx);
	if (!ctx)
		return -ENOENT;
	if (READ_ONCE(ctx->banned)) {
		copro_ctx_put(ctx);
		return -ECANCELED;
	}
	/* a VM's context runs VAs only; a physical one patched streams */
	if (by_va != !!ctx->vm) {
		copro_ctx_put(ctx);
		return -EINVAL;
	}
	job = kzalloc_obj(*job);
	if (!job) {
		copro_ctx_put(ctx);
		return -ENOMEM;
	}
	/* run_job is in the fence-signalling path: it must not allocate */
	job->hw_mem = kzalloc_obj(*job->hw_mem);
	if (!job->hw_mem) {
		kfree(job);
		copro_ctx_put(ctx);
		return -ENOMEM;
	}
	job->cdev = cdev;
	atomic_inc(&cdev->jobs);	/* copro_job_free from here on */
	/* the job's own reference: the submit keeps the lookup's to the end */
	kref_get(&ctx->ref);
	job->ctx = ctx;
	/*
	 * Everything the job holds (pool memory, VRAM pins, its ring slot) is
	 * charged to the process that submits it, whoever opened the file.
	 */
	job->proc = copro_proc_get(cdev);
	if (!job->proc) {
		ret = -ENOMEM;
		goto err;
	}
	job->engine = a->engine;
	job->prio = ctx->prio;
	INIT_LIST_HEAD(&job->link);

	/* gpu, size and flags of each buffer, one allocation */
	tables = kvcalloc(3 * COPRO_SUBMIT_MAX_BOS, sizeof(u64), GFP_KERNEL);
	if (!tables) {
		ret = -ENOMEM;
		goto err;
	}
	c.engine = a->engine;
	c.bo_count = a->bo_count;
	c.gpu = tables;
	c.size = tables + COPRO_SUBMIT_MAX_BOS;
	c.flags = (u32 *)(tables + 2 * COPRO_SUBMIT_MAX_BOS);
	if (by_va) {
		ret = copro_job_va(job, a);
	} else {
		ret = copro_job_bos(job, file, a, tables,
				    tables + COPRO_SUBMIT_MAX_BOS,
				    (u32 *)(tables + 2 * COPRO_SUBMIT_MAX_BOS));
		if (!ret)
			ret = copro_job_stream(job, a, &c);
	}
	if (ret)
		goto err;

	/* destroyed while this submit slept: no job on its entities */
	if (READ_ONCE(ctx->closed)) {
		ret = -ENOENT;
		goto err;
	}
	/* one ring entry: a job takes one of the engine's credits */
	ret = drm_sched_job_init(&job->base, &ctx->entity[a->engine], 1, cfile,
				 file->client_id);
	if (ret)
		goto err;
	inited = true;
	ret = copro_syncs_in(job, file, a);
	if (ret)
		goto err;
	ret = copro_out_syncs_get(file, a->out_syncs, a->out_sync_count, &out);
	if (ret)
		goto err;
	if (a->flags & COPRO_SUBMIT_FENCE_FD_OUT) {
		fd = get_unused_fd_flags(O_CLOEXEC);
		if (fd < 0) {
			ret = fd;
			goto err;
		}
	}

	/*
	 * implicit sync: wait for other writers (readers, when writing); a
	 * VM job's buffers are those mapped in its VM (it lists none)
	 */
	vm = job->vm;
	if (vm) {
		vexec = copro_vm_job_lock(job);
		ret = PTR_ERR_OR_ZERO(vexec);
	} else {
		ret = drm_gem_lock_reservations(job->bos, job->bo_count,
						&acquire);
	}
	if (ret)
		goto err;
	for (i = 0; i < job->bo_count; i++) {
		bool write = c.flags[i] & COPRO_BO_WRITE;

		ret = dma_resv_reserve_fences(job->bos[i]->resv, 1);
		if (!ret)
			ret = drm_sched_job_add_implicit_dependencies(&job->base,
								      job->bos[i],
								      write);
		if (ret) {
			drm_gem_unlock_reservations(job->bos, job->bo_count,
						    &acquire);
			goto err;
		}
	}

	mutex_lock(&ctx->submit_lock);
	/*
	 * The check that counts: under the lock copro_ctx_teardown sets it
	 * with, so the job is pushed before the entities are destroyed (and
	 * drm_sched_entity_destroy waits for it) or not at all.
	 */
	if (ctx->closed) {
		mutex_unlock(&ctx->submit_lock);
		if (vm)
			copro_vm_job_unlock(vexec);
		else
			drm_gem_unlock_reservations(job->bos, job->bo_count,
						    &acquire);
		ret = -ENOENT;
		goto err;
	}
	drm_sched_job_arm(&job->base);
	fence = dma_fence_get(&job->base.s_fence->finished);
	trace_copro_submit(ctx->id, job->engine, fence->context, fence->seqno,
			   job->dma_len);
	for (i = 0; i < job->bo_count; i++)
		dma_resv_add_fence(job->bos[i]->resv, fence,
				   c.flags[i] & COPRO_BO_WRITE ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
	if (vm)
		copro_vm_job_publish(vm, vexec, fence);
	/*
	 * Unlock before the push: the job, its buffer array and its
	 * references may retire and be freed as soon as it is pushed.
	 */
	if (vm)
		copro_vm_job_unlock(vexec);
	else
		drm_gem_unlock_reservations(job->bos, job->bo_count, &acquire);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&ctx->submit_lock);

	copro_out_syncs_signal(out, a->out_sync_count, fence);
	if (fd >= 0) {
		struct sync_file *sf = sync_file_create(fence);

		if (sf) {
			fd_install(fd, sf->file);
			a->fence_fd = fd;
		} else {
			put_unused_fd(fd);
			ret = -ENOMEM;
		}
	}
	dma_fence_put(fence);
	copro_out_syncs_put(out, a->out_sync_count);
	kvfree(tables);
	copro_ctx_put(ctx);
	return ret;

err:
	if (fd >= 0)
		put_unused_fd(fd);
	copro_out_syncs_put(out, a->out_sync_count);
	if (inited)
		drm_sched_job_cleanup(&job->base);
	copro_job_free(job);
	kvfree(tables);
	copro_ctx_put(ctx);
	return ret;
}
