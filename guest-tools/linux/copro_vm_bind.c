// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: DRM_IOCTL_COPRO_VM_BIND and the drm_gpuvm operations
 * that carry it out on a VM's page tables (copro_vm.c).
 *
 * DOC: VM_BIND
 *
 * Every operation is checked in full before anything changes: alignment
 * to 4 KiB, a non-zero range that does not wrap, the range below the
 * kernel's VAs (COPRO_VM_KERNEL_VA), the buffer range inside the buffer,
 * a handle of the caller's file. Then, under the VM's lock:
 *
 * 1. if the range holds mappings (an UNMAP, or a MAP that replaces),
 *    wait for every job submitted on the VM so far (the VM's dma_resv):
 *    no job can reach a page through a mapping that is gone;
 * 2. make the page tables the range needs (so that nothing fails half
 *    way) and pin a VRAM buffer in VRAM where its first mapping in the VM
 *    is made (until its last one goes: a drm_gpuvm_bo per buffer and VM),
 *    charged to the binding process as pinned VRAM;
 * 3. lock the VM's and every touched buffer's dma_resv (drm_exec) and
 *    let drm_gpuvm split the request into map, remap and unmap steps,
 *    each writing or clearing its leaves; cleared leaves are flushed
 *    from the device's caches (VM_INVAL) before the locks go, so a
 *    buffer unpinned by an unmap cannot move while a stale translation
 *    still points at it.
 *
 * A VRAM buffer's leaves hold its VRAM offset; a GTT buffer's its
 * aperture offset with COPRO_PTE_APERTURE (its GART entries live as long
 * as the buffer). READ_ONLY leaves lack COPRO_PTE_WRITABLE.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/ttm/ttm_bo.h>

#include "uapi/copro_drm.h"
#include "copro_vm.h"

/* a buffer mapped in a VM: pinned in VRAM while it has mappings there */
struct copro_vm_bo {
	struct drm_gpuvm_bo base;
	struct copro_proc *proc;	/* charged for the pin */
	bool pinned;
};

/* the state of one operation, handed to the drm_gpuvm steps */
struct copro_bind {
	struct copro_vm *vm;
	struct drm_gpuvm_bo *vm_bo;	/* MAP: the buffer in the VM */
	u64 pte;		/* MAP: first leaf */
	struct drm_gpuva **spare;	/* the operation's (copro_bind_op) */
	bool cleared;		/* leaves were cleared: flush */
};

static struct drm_gpuvm_bo *copro_vm_bo_alloc(void)
{
	struct copro_vm_bo *vbo = kzalloc_obj(*vbo);

	return vbo ? &vbo->base : NULL;
}

/* the buffer's dma_resv is held (drm_gpuvm's gpuva lock) */
static void copro_vm_bo_free(struct drm_gpuvm_bo *vm_bo)
{
	struct copro_vm_bo *vbo = container_of(vm_bo, struct copro_vm_bo, base);

	if (vbo->pinned) {
		ttm_bo_unpin(&drm_gem_vram_of_gem(vm_bo->obj)->bo);
		copro_uncharge(vbo->proc, COPRO_RES_VRAM, vm_bo->obj->size);
	}
	copro_proc_put(vbo->proc);
	kfree(vbo);
}

static struct drm_gpuva *copro_bind_va(struct copro_bind *b)
{
	unsigned int i;

	for (i = 0; i < COPRO_BIND_SPARES; i++) {
		struct drm_gpuva *va = b->spare[i];

		if (va) {
			b->spare[i] = NULL;
			return va;
		}
	}
	return NULL;
}

static int copro_step_map(struct drm_gpuva_op *op, void *priv)
{
	struct copro_bind *b = priv;
	struct drm_gpuva *va = copro_bind_va(b);

	if (WARN_ON(!va))
		return -ENOMEM;
	drm_gpuva_map(&b->vm->base, va, &op->map);
	if (!(b->pte & COPRO_PTE_WRITABLE))
		va->flags |= COPRO_GPUVA_READ_ONLY;
	drm_gpuva_link(va, b->vm_bo);
	copro_vm_pt_write(b->vm, op->map.va.addr, op->map.va.range, b->pte,
			  COPRO_GPU_PAGE_SIZE);
	return 0;
}

static int copro_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct copro_bind *b = priv;
	struct drm_gpuva *old = op->remap.unmap->va;
	struct drm_gpuva *prev = NULL, *next = NULL;
	u64 start = old->va.addr, end = old->va.addr + old->va.range;

	if (op->remap.prev) {
		prev = copro_bind_va(b);
		start = op->remap.prev->va.addr + op->remap.prev->va.range;
	}
	if (op->remap.next) {
		next = copro_bind_va(b);
		end = op->remap.next->va.addr;
	}
	if (WARN_ON((op->remap.prev && !prev) || (op->remap.next && !next)))
		return -ENOMEM;
	copro_vm_pt_write(b->vm, start, end - start, 0, 0);
	b->cleared = true;
	drm_gpuva_remap(prev, next, &op->remap);
	/* link the pieces first: the buffer's vm_bo (and pin) stays */
	if (prev) {
		prev->flags |= old->flags & COPRO_GPUVA_READ_ONLY;
		drm_gpuva_link(prev, old->vm_bo);
	}
	if (next) {
		next->flags |= old->flags & COPRO_GPUVA_READ_ONLY;
		drm_gpuva_link(next, old->vm_bo);
	}
	drm_gpuva_unlink(old);
	kfree(old);
	return 0;
}

static int copro_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct copro_bind *b = priv;
	struct drm_gpuva *va = op->unmap.va;

	copro_vm_pt_write(b->vm, va->va.addr, va->va.range, 0, 0);
	b->cleared = true;
	drm_gpuva_unmap(&op->unmap);
	drm_gpuva_unlink(va);
	kfree(va);
	return 0;
}

const struct drm_gpuvm_ops copro_gpuvm_ops = {
	.vm_free = copro_vm_free,
	.vm_bo_alloc = copro_vm_bo_alloc,
	.vm_bo_free = copro_vm_bo_free,
	.sm_step_map = copro_step_map,
	.sm_step_remap = copro_step_remap,
	.sm_step_unmap = copro_step_unmap,
};

/*
 * Lock the VM's dma_resv, @obj's and those of the buffers mapped in
 * [@addr, @addr + @range), then, if @wait and the range holds mappings,
 * wait for the VM's jobs: no job can be submitted on the VM while its
 * dma_resv is held.
 */
static int copro_bind_lock(struct drm_exec *exec, struct copro_vm *vm,
			   struct drm_gem_object *obj, u64 addr, u64 range,
			   bool intr, bool wait)
{
	struct drm_gpuva *va;
	long ret;

	drm_exec_until_all_locked(exec) {
		ret = drm_exec_lock_obj(exec, drm_gpuvm_resv_obj(&vm->base));
		drm_exec_retry_on_contention(exec);
		if (ret)
			return ret;
		if (obj) {
			ret = drm_exec_lock_obj(exec, obj);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}
		drm_gpuvm_for_each_va_range(va, &vm->base, addr, addr + range) {
			ret = drm_exec_lock_obj(exec, va->gem.obj);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}
	}
	if (!wait || drm_gpuvm_interval_empty(&vm->base, addr, range))
		return 0;
	ret = dma_resv_wait_timeout(drm_gpuvm_resv(&vm->base),
				    DMA_RESV_USAGE_BOOKKEEP, intr,
				    MAX_SCHEDULE_TIMEOUT);
	return ret < 0 ? ret : 0;
}

/*
 * Check an operation against its buffer and make what it needs: the
 * page tables of its range, spare drm_gpuvas. vm->lock held. Nothing of
 * the VM changes: copro_bind_op_release undoes it.
 */
int copro_bind_op_prepare(struct copro_vm *vm, struct drm_file *file,
			  struct copro_bind_op *bop)
{
	const struct drm_copro_vm_bind_op *op = &bop->op;
	struct copro_device *cdev = vm->cdev;
	struct drm_gem_object *obj;
	unsigned int i;

	lockdep_assert_held(&vm->lock);
	for (i = 0; i < COPRO_BIND_SPARES; i++) {
		bop->spare[i] = kzalloc_obj(*bop->spare[i]);
		if (!bop->spare[i])
			return -ENOMEM;
	}
	if (op->op == COPRO_VM_BIND_OP_UNMAP)
		return 0;
	obj = drm_gem_object_lookup(file, op->handle);
	if (!obj)
		return -ENOENT;
	bop->obj = obj;
	if (op->bo_offset > obj->size || op->range > obj->size - op->bo_offset)
		return -ERANGE;
	bop->pte = COPRO_PTE_VALID;
	if (!(op->flags & COPRO_VM_BIND_READ_ONLY))
		bop->pte |= COPRO_PTE_WRITABLE;
	if (copro_is_gtt(obj)) {
		/* in the aperture for its whole life */
		bop->pte |= COPRO_PTE_APERTURE |
			    ((copro_gtt_gpu(obj) - cdev->gart.aperture +
			      op->bo_offset) & COPRO_PTE_ADDR_MASK);
	}
	return copro_vm_pt_alloc(vm, op->va, op->range);
}

void copro_bind_op_release(struct copro_bind_op *bop)
{
	unsigned int i;

	if (bop->obj)
		drm_gem_object_put(bop->obj);
	for (i = 0; i < COPRO_BIND_SPARES; i++)
		kfree(bop->spare[i]);
	memset(bop, 0, sizeof(*bop));
}

/*
 * Carry a prepared operation out. @wait: first wait for the VM's jobs
 * (the synchronous ioctl; an asynchronous bind waited for the jobs
 * before it already). vm->lock held.
 */
int copro_bind_op_run(struct copro_vm *vm, struct copro_bind_op *bop,
		      bool intr, bool wait)
{
	const struct drm_copro_vm_bind_op *op = &bop->op;
	struct copro_bind b = { .vm = vm, .spare = bop->spare };
	struct drm_gpuvm_bo *vm_bo;
	struct copro_vm_bo *vbo;
	struct drm_exec exec;
	int ret;

	lockdep_assert_held(&vm->lock);
	if (bop->obj && !copro_is_gtt(bop->obj)) {
		struct drm_gem_vram_object *gbo = drm_gem_vram_of_gem(bop->obj);
		s64 off;

		/* in VRAM, where it stays while its leaves are written */
		ret = copro_bo_pin_vram(gbo, false);
		if (ret)
			return ret;
		off = drm_gem_vram_offset(gbo);
		if (off < 0) {
			copro_bo_unpin(gbo);
			return off;
		}
		bop->gbo = gbo;
		b.pte |= (off + op->bo_offset) & COPRO_PTE_ADDR_MASK;
	}
	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES |
		      (intr ? DRM_EXEC_INTERRUPTIBLE_WAIT : 0), 0);
	ret = copro_bind_lock(&exec, vm, bop->obj, op->va, op->range, intr,
			      wait);
	if (ret)
		goto out;
	if (op->op == COPRO_VM_BIND_OP_UNMAP) {
		ret = drm_gpuvm_sm_unmap(&vm->base, &b, op->va, op->range);
		goto out;
	}
	vm_bo = copro_gpuvm_bo_obtain(&vm->base, bop->obj);
	if (IS_ERR(vm_bo)) {
		ret = PTR_ERR(vm_bo);
		goto out;
	}
	/* its own dma_resv: jobs on the VM add their fences there too */
	drm_gpuvm_bo_extobj_add(vm_bo);
	vbo = container_of(vm_bo, struct copro_vm_bo, base);
	if (bop->gbo && !vbo->pinned) {
		/* the buffer's first mapping in the VM pins it for them all */
		if (!vbo->proc)
			vbo->proc = copro_proc_get(vm->cdev);
		if (!vbo->proc ||
		    copro_charge(vbo->proc, COPRO_RES_VRAM, bop->obj->size)) {
			ret = -ENOSPC;
			goto out_vm_bo;
		}
		ttm_bo_pin(&bop->gbo->bo);
		vbo->pinned = true;
	}
	b.vm_bo = vm_bo;
	b.pte |= bop->pte;
	ret = copro_gpuvm_sm_map(&vm->base, &b, op->va, op->range, bop->obj,
				 op->bo_offset);
out_vm_bo:
	/* the buffer's lock is held: a last put unpins it (vm_bo_free) */
	drm_gpuvm_bo_put(vm_bo);
out:
	/* before the buffers' locks go: see DOC above */
	if (b.cleared)
		copro_vm_flush(vm);
	drm_exec_fini(&exec);
	if (bop->gbo) {
		copro_bo_unpin(bop->gbo);
		bop->gbo = NULL;
	}
	return ret;
}

static int copro_bind_check(const struct drm_copro_vm_bind_op *op)
{
	if (op->pad)
		return -EINVAL;
	switch (op->op) {
	case COPRO_VM_BIND_OP_MAP:
		if (op->flags & ~COPRO_VM_BIND_READ_ONLY)
			return -EINVAL;
		break;
	case COPRO_VM_BIND_OP_UNMAP:
		if (op->flags || op->handle || op->bo_offset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (!op->range || op->va % COPRO_GPU_PAGE_SIZE ||
	    op->range % COPRO_GPU_PAGE_SIZE ||
	    op->bo_offset % COPRO_GPU_PAGE_SIZE)
		return -EINVAL;
	/* the kernel's VAs and everything past 2^39 are out of reach */
	if (op->va >= COPRO_VM_KERNEL_VA ||
	    op->range > COPRO_VM_KERNEL_VA - op->va)
		return -ERANGE;
	return 0;
}

int copro_ioctl_vm_bind(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct copro_device *cdev = to_copro(drm);
	struct drm_copro_vm_bind *a = data;
	bool async = a->flags & COPRO_VM_BIND_ASYNC;
	struct copro_bind_op *ops;
	struct copro_vm *vm;
	unsigned int i;
	int ret = 0;

	a->failed_op = U32_MAX;
	if ((a->flags & ~COPRO_VM_BIND_ASYNC) || a->pad || !a->op_count ||
	    a->op_count > COPRO_VM_BIND_MAX_OPS ||
	    a->in_sync_count > (async ? COPRO_SUBMIT_MAX_SYNCS : 0) ||
	    a->out_sync_count > (async ? COPRO_SUBMIT_MAX_SYNCS : 0))
		return -EINVAL;
	vm = copro_vm_of_file(cdev, file->driver_priv);
	if (IS_ERR(vm))
		return PTR_ERR(vm);
	ops = kvcalloc(a->op_count, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < a->op_count; i++) {
		if (copy_from_user(&ops[i].op, u64_to_user_ptr(a->ops) +
				   i * sizeof(ops[i].op), sizeof(ops[i].op))) {
			ret = -EFAULT;
			goto out_free;
		}
	}
	/* a malformed operation anywhere: nothing is done */
	for (i = 0; i < a->op_count; i++) {
		ret = copro_bind_check(&ops[i].op);
		if (ret) {
			a->failed_op = i;
			goto out_free;
		}
	}
	if (async)
		return copro_vm_bind_async(vm, file, a, ops);
	/* after the asynchronous binds the file asked for before */
	ret = copro_vm_bind_wait_async(vm);
	if (ret)
		goto out_free;
	ret = mutex_lock_interruptible(&vm->lock);
	if (ret)
		goto out_free;
	for (i = 0; i < a->op_count; i++) {
		ret = copro_bind_op_prepare(vm, file, &ops[i]);
		if (!ret)
			ret = copro_bind_op_run(vm, &ops[i], true, true);
		copro_bind_op_release(&ops[i]);
		if (ret) {
			a->failed_op = i;
			break;
		}
	}
	mutex_unlock(&vm->lock);
out_free:
	kvfree(ops);
	return ret;
}

/* the file closes: every mapping goes, once the VM's jobs are done */
void copro_vm_unmap_all(struct copro_vm *vm)
{
	struct copro_bind_op bop = {
		.op = {
			.op = COPRO_VM_BIND_OP_UNMAP,
			.va = 0,
			.range = COPRO_VM_KERNEL_VA,
		},
	};
	int ret;

	mutex_lock(&vm->lock);
	ret = copro_bind_op_prepare(vm, NULL, &bop);
	if (!ret)
		ret = copro_bind_op_run(vm, &bop, false, true);
	copro_bind_op_release(&bop);
	mutex_unlock(&vm->lock);
	WARN_ON(ret);
}
