// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: buffers, contexts, files, parameters and fdinfo.
 *
 * Buffers are drm_gem_vram objects (TTM, VRAM or system memory while
 * evicted), the same kind as the KMS dumb buffers, so a render target can
 * be scanned out. A job pins its buffers in VRAM from submit to free_job;
 * the engines reach them by VRAM offset (kernel-validated physical
 * addressing, see copro_submit.c), never through a process-controlled
 * address.
 */
#include <linux/capability.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <drm/drm_auth.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_print.h>

#include "uapi/copro_drm.h"
#include "copro_render.h"
#include "copro_vm.h"

int copro_ioctl_get_param(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct copro_device *cdev = to_copro(drm);
	struct drm_copro_get_param *a = data;
	int idx, ret = 0;

	if (a->pad)
		return -EINVAL;
	/* some are registers: not once the device is gone */
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	switch (a->param) {
	case COPRO_PARAM_NUM_ENGINES:
		a->value = cdev->num_engines;
		break;
	case COPRO_PARAM_PREEMPT_CAPS:
		a->value = cdev->preempt_caps;
		break;
	case COPRO_PARAM_GPU_TIME:
		a->value = copro_rd64(cdev, COPRO_REG_GPU_TIME);
		break;
	case COPRO_PARAM_VRAM_SIZE:
		a->value = cdev->vram_size;
		break;
	case COPRO_PARAM_CTX_SWITCH_NS:
		a->value = copro_rd64(cdev, COPRO_REG_CTX_SWITCH_NS);
		break;
	case COPRO_PARAM_JOB_TIMEOUT_MS:
		a->value = jiffies_to_msecs(cdev->engines[0].sched.timeout);
		break;
	case COPRO_PARAM_VM_VA_END:
		a->value = copro_vm_va_end(cdev);
		break;
	default:
		ret = -EINVAL;
	}
	drm_dev_exit(idx);
	return ret;
}

int copro_ioctl_gem_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct copro_device *cdev = to_copro(drm);
	struct drm_copro_gem_create *a = data;
	struct drm_gem_vram_object *gbo;
	int ret;

	struct drm_gem_object *obj;

	if ((a->flags & ~COPRO_GEM_GTT) || !a->size)
		return -EINVAL;
	if (a->flags & COPRO_GEM_GTT) {
		if (a->size > SZ_256M)
			return -EINVAL;
		obj = copro_gtt_create(cdev, PAGE_ALIGN(a->size));
		if (IS_ERR(obj))
			return PTR_ERR(obj);
	} else {
		if (a->size > cdev->vram_size)
			return -EINVAL;
		gbo = drm_gem_vram_create(drm, PAGE_ALIGN(a->size), 0);
		if (IS_ERR(gbo))
			return PTR_ERR(gbo);
		obj = &gbo->bo.base;
	}
	ret = drm_gem_handle_create(file, obj, &a->handle);
	drm_gem_object_put(obj);
	return ret;
}

int copro_ioctl_gem_info(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct drm_copro_gem_info *a = data;
	struct drm_gem_object *obj;

	if (a->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, a->handle);
	if (!obj)
		return -ENOENT;
	a->size = obj->size;
	a->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return 0;
}

/* ---- files ---- */

static void copro_file_release(struct kref *ref)
{
	struct copro_file *cfile = container_of(ref, struct copro_file, ref);

	xa_destroy(&cfile->ctxs);
	kfree(cfile);
}

void copro_file_put(struct copro_file *cfile)
{
	kref_put(&cfile->ref, copro_file_release);
}

int copro_open(struct drm_device *drm, struct drm_file *file)
{
	struct copro_file *cfile = kzalloc_obj(*cfile);

	if (!cfile)
		return -ENOMEM;
	kref_init(&cfile->ref);
	xa_init_flags(&cfile->ctxs, XA_FLAGS_ALLOC1);
	spin_lock_init(&cfile->stat_lock);
	file->driver_priv = cfile;
	return 0;
}

static void copro_ctx_teardown(struct copro_ctx *ctx)
{
	unsigned int e;

	/*
	 * The handle is gone, but a submit that looked it up earlier may
	 * still hold a reference and sleep before pushing its job: from
	 * here on it fails (copro_ioctl_submit checks @closed under the
	 * same lock), so the entities stay torn down once destroyed.
	 */
	mutex_lock(&ctx->submit_lock);
	ctx->closed = true;
	mutex_unlock(&ctx->submit_lock);
	/*
	 * A killed process's jobs are dropped at once and its running job
	 * is preempted (copro_ctx_cancel); otherwise queued jobs run, as
	 * long as drm_sched waits for them at a close (1 s at an exit).
	 */
	if (fatal_signal_pending(current) ||
	    ((current->flags & PF_EXITING) && current->exit_code == SIGKILL))
		copro_ctx_cancel(ctx);
	/*
	 * A context on the file's VM: its jobs cannot outlive the VM, whose
	 * mappings go at the file's close (copro_vm_file_close waits for its
	 * jobs, uninterruptibly): they are cancelled, as a killed process's,
	 * so that no close waits for a long job to end.
	 */
	else if (ctx->vm && !READ_ONCE(ctx->dead))
		copro_ctx_cancel(ctx);
	for (e = 0; e < ctx->cdev->num_engines; e++)
		drm_sched_entity_destroy(&ctx->entity[e]);
	copro_ctx_put(ctx);
}

void copro_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct copro_file *cfile = file->driver_priv;
	struct copro_ctx *ctx;
	unsigned long id;

	xa_for_each(&cfile->ctxs, id, ctx) {
		xa_erase(&cfile->ctxs, id);
		copro_ctx_teardown(ctx);
	}
	copro_vm_file_close(cfile);
	file->driver_priv = NULL;
	copro_file_put(cfile);
}

/* ---- contexts ---- */

static void copro_ctx_release(struct kref *ref)
{
	struct copro_ctx *ctx = container_of(ref, struct copro_ctx, ref);

	/* its context-table entry goes before its id can be reused */
	copro_vm_ctx_detach(ctx);
	ida_free(&ctx->cdev->ctx_ids, ctx->id);
	copro_uncharge(ctx->proc, COPRO_RES_CTX, 1);
	copro_proc_put(ctx->proc);
	copro_file_put(ctx->cfile);
	mutex_destroy(&ctx->submit_lock);
	kfree(ctx);
}

void copro_ctx_put(struct copro_ctx *ctx)
{
	kref_put(&ctx->ref, copro_ctx_release);
}

int copro_ioctl_ctx_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	static const enum drm_sched_priority prios[] = {
		[COPRO_CTX_PRIORITY_LOW] = DRM_SCHED_PRIORITY_LOW,
		[COPRO_CTX_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
		[COPRO_CTX_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
	};
	struct copro_device *cdev = to_copro(drm);
	struct copro_file *cfile = file->driver_priv;
	struct drm_copro_ctx_create *a = data;
	struct copro_ctx *ctx;
	unsigned int e;
	int ret, id;
	u32 handle;

	if ((a->flags & ~COPRO_CTX_CREATE_VM) || a->pad ||
	    a->priority >= ARRAY_SIZE(prios))
		return -EINVAL;
	/* as amdgpu: above normal needs CAP_SYS_NICE or the DRM master */
	if (a->priority > COPRO_CTX_PRIORITY_NORMAL &&
	    !capable(CAP_SYS_NICE) && !drm_is_current_master(file))
		return -EACCES;
	ctx = kzalloc_obj(*ctx);
	if (!ctx)
		return -ENOMEM;
	/*
	 * The device's 65535 context ids are a shared pool: the creating
	 * process is charged (copro_limits.c), so no process takes them all.
	 */
	ctx->proc = copro_proc_get(cdev);
	if (!ctx->proc) {
		kfree(ctx);
		return -ENOMEM;
	}
	ret = copro_charge(ctx->proc, COPRO_RES_CTX, 1);
	if (ret) {
		copro_proc_put(ctx->proc);
		kfree(ctx);
		return -ENOSPC;
	}
	id = ida_alloc_range(&cdev->ctx_ids, 1, 0xffff, GFP_KERNEL);
	if (id < 0) {
		copro_uncharge(ctx->proc, COPRO_RES_CTX, 1);
		copro_proc_put(ctx->proc);
		kfree(ctx);
		return id;
	}
	kref_init(&ctx->ref);
	ctx->cdev = cdev;
	ctx->id = id;
	ctx->prio = prios[a->priority];
	mutex_init(&ctx->submit_lock);
	ctx->fence_context = dma_fence_context_alloc(COPRO_MAX_ENGINES);
	kref_get(&cfile->ref);
	ctx->cfile = cfile;
	if (a->flags & COPRO_CTX_CREATE_VM) {
		ret = copro_vm_ctx_attach(ctx, cfile);
		if (ret) {
			e = 0;
			goto err;
		}
	}
	for (e = 0; e < cdev->num_engines; e++) {
		struct drm_gpu_scheduler *sched = &cdev->engines[e].sched;

		ret = drm_sched_entity_init(&ctx->entity[e], ctx->prio, &sched,
					    1, NULL);
		if (ret)
			goto err;
	}
	ret = xa_alloc(&cfile->ctxs, &handle, ctx, xa_limit_32b, GFP_KERNEL);
	if (ret)
		goto err;
	a->handle = handle;
	return 0;
err:
	while (e--)
		drm_sched_entity_destroy(&ctx->entity[e]);
	copro_ctx_put(ctx);
	return ret;
}

int copro_ioctl_ctx_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct copro_file *cfile = file->driver_priv;
	struct drm_copro_ctx_destroy *a = data;
	struct copro_ctx *ctx;

	if (a->pad)
		return -EINVAL;
	ctx = xa_erase(&cfile->ctxs, a->handle);
	if (!ctx)
		return -ENOENT;
	copro_ctx_teardown(ctx);
	return 0;
}

int copro_ioctl_ctx_query(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct copro_file *cfile = file->driver_priv;
	struct drm_copro_ctx_query *a = data;
	struct copro_ctx *ctx;

	xa_lock(&cfile->ctxs);
	ctx = xa_load(&cfile->ctxs, a->handle);
	if (ctx) {
		a->flags = READ_ONCE(ctx->banned) ? COPRO_CTX_BANNED : 0;
		a->busy_ns = READ_ONCE(ctx->busy_ns);
		a->jobs = READ_ONCE(ctx->jobs);
	}
	xa_unlock(&cfile->ctxs);
	return ctx ? 0 : -ENOENT;
}

/* ---- fdinfo (Documentation/gpu/drm-usage-stats.rst) ---- */

/*
 * drm_show_fdinfo prints drm-driver, drm-pdev and drm-client-id; this adds
 * each engine's busy time and the file's memory per region: VRAM-domain
 * buffers ("vram": resident while TTM has them in VRAM, evicted ones in
 * system memory count in drm-total only) and GTT buffers ("gtt", always
 * resident: their pages are pinned while the aperture maps them).
 */
void copro_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct copro_device *cdev = to_copro(file->minor->dev);
	struct copro_file *cfile = file->driver_priv;
	static const char * const names[COPRO_MAX_ENGINES] = {
		"render", "copy", "e2", "e3",
	};
	struct drm_memory_stats vram = {}, gtt = {};
	struct drm_gem_object *obj;
	u64 busy[COPRO_MAX_ENGINES];
	unsigned long flags;
	unsigned int e;
	int id;

	/* the engines' interrupt handlers take it too */
	spin_lock_irqsave(&cfile->stat_lock, flags);
	memcpy(busy, cfile->busy_ns, sizeof(busy));
	spin_unlock_irqrestore(&cfile->stat_lock, flags);

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct drm_memory_stats *s = copro_is_gtt(obj) ? &gtt : &vram;
		bool shared = obj->handle_count > 1 || obj->dma_buf;

		if (shared)
			s->shared += obj->size;
		else
			s->private += obj->size;
		if (copro_is_gtt(obj) || copro_bo_in_vram(obj))
			s->resident += obj->size;
	}
	spin_unlock(&file->table_lock);

	for (e = 0; e < cdev->num_engines; e++)
		drm_printf(p, "drm-engine-%s:\t%llu ns\n", names[e], busy[e]);
	drm_print_memory_stats(p, &vram, DRM_GEM_OBJECT_RESIDENT, "vram");
	drm_print_memory_stats(p, &gtt, DRM_GEM_OBJECT_RESIDENT, "gtt");
}
