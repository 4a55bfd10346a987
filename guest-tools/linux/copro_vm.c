// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: a GPU VM per DRM file, on the device's per-context
 * page tables (docs/specs/copro.rst, "Context table and page-table
 * format").
 *
 * DOC: GPU VMs
 *
 * With COPRO_CAP_GPUVA the device looks every context up in a context
 * table in VRAM: an entry with COPRO_CTX_VALID gives the context its own
 * 39-bit address space, translated by a 3-level page table whose root is
 * at the entry's VRAM offset. The driver keeps one context table of
 * COPRO_CTX_TABLE_MAX entries (the context ids' whole range), zero except
 * for contexts created on a VM: such a context's entry points at its
 * file's VM root from creation until the context is freed, and is cleared
 * (then VM_INVAL) before its id can be handed out again, so a physical
 * context never inherits an address space.
 *
 * A VM is a drm_gpuvm (the mappings, the drm_gpuva tree) and its page
 * tables: 4 KiB tables in VRAM, each its own pinned buffer, allocated when
 * a bind first needs them and kept until the VM is freed (bounded by
 * COPRO_VM_MAX_TABLES, charged to the process that created the VM as
 * pinned VRAM). Tables are written through the VRAM BAR with the reset
 * semaphore read-held (a reset has the BARs off and would drop the
 * writes); after entries are cleared every cached translation is dropped
 * (VM_INVAL) before the memory they pointed at can be reused.
 *
 * The top of each VM (COPRO_VM_KERNEL_VA) maps the VM's kernel area, where
 * the device saves a preempted job's state: a job's save area is in its
 * context's address space. Each job of the VM takes one of its slots from
 * submit to free_job.
 *
 * The VM's dma_resv (drm_gpuvm's resv object) carries the finished fence
 * of every job submitted on it (DMA_RESV_USAGE_BOOKKEEP): an unmap waits
 * for them, so a running job never sees its memory disappear, and a job
 * pins nothing: the mappings hold their buffers. Every mapped buffer is
 * one of drm_gpuvm's external objects (it has a dma_resv of its own): a
 * VM job waits for the buffers' earlier users and puts its fence in each
 * as a write, so KMS and the patched path see it (implicit sync).
 */
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_gem_vram_helper.h>

#include "copro_vm.h"

struct copro_pt {
	struct drm_gem_vram_object *gbo;
	struct iosys_map map;
	u64 gpu;		/* VRAM offset */
	struct copro_pt *child[];	/* levels 2 and 1 */
};

/* the device's context table (COPRO_REG_CTX_TABLE_*) */
struct copro_ctxt {
	struct drm_gem_vram_object *gbo;
	struct iosys_map map;
	u64 base;
};

#define COPRO_PT_SHIFT(level)	(12 + 9 * (level))
#define COPRO_PT_INDEX(va, level) \
	(((va) >> COPRO_PT_SHIFT(level)) & (COPRO_PT_ENTRIES - 1))

/* ---- the context table ---- */

int copro_vm_init(struct copro_device *cdev)
{
	struct copro_ctxt *t;
	int ret;

	if (!(cdev->caps & COPRO_CAP_GPUVA))
		return 0;
	t = kzalloc_obj(*t);
	if (!t)
		return -ENOMEM;
	ret = copro_kbo_create(cdev, COPRO_CTX_TABLE_MAX * 8, &t->gbo, &t->map,
			       &t->base);
	if (ret) {
		kfree(t);
		return ret;
	}
	iosys_map_memset(&t->map, 0, 0, COPRO_CTX_TABLE_MAX * 8);
	cdev->ctxt = t;
	copro_vm_program(cdev);
	return 0;
}

/* also after a device reset, which clears the registers (VRAM stays) */
void copro_vm_program(struct copro_device *cdev)
{
	if (!cdev->ctxt)
		return;
	copro_wr64(cdev, COPRO_REG_CTX_TABLE_BASE, cdev->ctxt->base);
	copro_wr32(cdev, COPRO_REG_CTX_TABLE_SIZE, COPRO_CTX_TABLE_MAX);
}

/* the device goes away (copro_gart_disable): no context translates now */
void copro_vm_disable(struct copro_device *cdev)
{
	if (cdev->ctxt)
		copro_wr32(cdev, COPRO_REG_CTX_TABLE_SIZE, 0);
}

/*
 * Every write of a table or register below: while the device is there
 * (drm_dev_enter; unplugged, nothing reaches it any more and the tables
 * go with the DRM device) and with no reset in progress (reset_sem read:
 * a reset has the BARs off and would drop the writes).
 */
static bool copro_vm_hw_begin(struct copro_device *cdev, int *idx)
{
	down_read(&cdev->reset_sem);
	if (drm_dev_enter(&cdev->drm, idx))
		return true;
	up_read(&cdev->reset_sem);
	return false;
}

static void copro_vm_hw_end(struct copro_device *cdev, int idx)
{
	drm_dev_exit(idx);
	up_read(&cdev->reset_sem);
}

void copro_vm_fini(struct copro_device *cdev)
{
	struct copro_ctxt *t = cdev->ctxt;

	if (!t)
		return;
	/* copro_vm_disable switched the table off while the device was here */
	copro_kbo_destroy(t->gbo, &t->map);
	kfree(t);
	cdev->ctxt = NULL;
}

u64 copro_vm_va_end(struct copro_device *cdev)
{
	return cdev->ctxt ? COPRO_VM_KERNEL_VA : 0;
}

static void copro_ctxt_write(struct copro_device *cdev, u32 id, u64 entry)
{
	int idx;

	if (!copro_vm_hw_begin(cdev, &idx))
		return;
	iosys_map_wr(&cdev->ctxt->map, id * 8, u64, entry);
	/* the entry reaches VRAM before the device may read it */
	wmb();
	if (!entry)
		copro_wr32(cdev, COPRO_REG_VM_INVAL, id);
	copro_vm_hw_end(cdev, idx);
}

/* ---- page tables ---- */

static struct copro_pt *copro_pt_new(struct copro_vm *vm, unsigned int level)
{
	struct copro_device *cdev = vm->cdev;
	struct copro_pt *pt;
	int ret, idx;

	if (vm->tables >= COPRO_VM_MAX_TABLES)
		return ERR_PTR(-ENOSPC);
	pt = kzalloc(struct_size(pt, child, level ? COPRO_PT_ENTRIES : 0),
		     GFP_KERNEL);
	if (!pt)
		return ERR_PTR(-ENOMEM);
	if (vm->prepaid >= COPRO_GPU_PAGE_SIZE) {
		vm->prepaid -= COPRO_GPU_PAGE_SIZE;
	} else if (copro_charge(vm->proc, COPRO_RES_VRAM,
				COPRO_GPU_PAGE_SIZE)) {
		kfree(pt);
		return ERR_PTR(-ENOSPC);
	}
	ret = copro_kbo_create(cdev, COPRO_GPU_PAGE_SIZE, &pt->gbo, &pt->map,
			       &pt->gpu);
	if (ret) {
		copro_uncharge(vm->proc, COPRO_RES_VRAM, COPRO_GPU_PAGE_SIZE);
		kfree(pt);
		return ERR_PTR(ret);
	}
	if (copro_vm_hw_begin(cdev, &idx)) {
		iosys_map_memset(&pt->map, 0, 0, COPRO_GPU_PAGE_SIZE);
		copro_vm_hw_end(cdev, idx);
	}
	vm->tables++;
	return pt;
}

static void copro_pt_free(struct copro_vm *vm, struct copro_pt *pt,
			  unsigned int level)
{
	unsigned int i;

	if (!pt)
		return;
	for (i = 0; level && i < COPRO_PT_ENTRIES; i++)
		copro_pt_free(vm, pt->child[i], level - 1);
	copro_kbo_destroy(pt->gbo, &pt->map);
	copro_uncharge(vm->proc, COPRO_RES_VRAM, COPRO_GPU_PAGE_SIZE);
	vm->tables--;
	kfree(pt);
}

/* The table of @level - 1 under @pt's entry for @va, made if missing. */
static int copro_pt_child(struct copro_vm *vm, struct copro_pt *pt,
			  unsigned int level, u64 va)
{
	unsigned int i = COPRO_PT_INDEX(va, level);
	struct copro_pt *c;
	int idx;

	if (pt->child[i])
		return 0;
	c = copro_pt_new(vm, level - 1);
	if (IS_ERR(c))
		return PTR_ERR(c);
	pt->child[i] = c;
	if (copro_vm_hw_begin(vm->cdev, &idx)) {
		iosys_map_wr(&pt->map, i * 8, u64,
			     (c->gpu & COPRO_PTE_ADDR_MASK) | COPRO_PTE_VALID);
		copro_vm_hw_end(vm->cdev, idx);
	}
	return 0;
}

/*
 * Make every table that maps [@va, @va + @range) exist, so that writing
 * the leaves afterwards cannot fail half-way.
 */
int copro_vm_pt_alloc(struct copro_vm *vm, u64 va, u64 range)
{
	u64 end = va + range;
	int ret;

	lockdep_assert_held(&vm->lock);
	while (va < end) {
		struct copro_pt *l1;

		ret = copro_pt_child(vm, vm->root, 2, va);
		if (ret)
			return ret;
		l1 = vm->root->child[COPRO_PT_INDEX(va, 2)];
		ret = copro_pt_child(vm, l1, 1, va);
		if (ret)
			return ret;
		va = (va | (BIT_ULL(COPRO_PT_SHIFT(1)) - 1)) + 1;
	}
	return 0;
}

/*
 * Write the leaves of [@va, @va + @range): @pte for the first page, each
 * next one @step further (0: every leaf @pte, e.g. 0 to clear). Tables
 * that do not exist hold no mapping: clearing skips them.
 */
void copro_vm_pt_write(struct copro_vm *vm, u64 va, u64 range, u64 pte,
		       u64 step)
{
	u64 end = va + range;
	int idx;

	lockdep_assert_held(&vm->lock);
	if (!copro_vm_hw_begin(vm->cdev, &idx))
		return;
	for (; va < end; va += COPRO_GPU_PAGE_SIZE, pte += step) {
		struct copro_pt *l1 = vm->root->child[COPRO_PT_INDEX(va, 2)];
		struct copro_pt *l0 = l1 ? l1->child[COPRO_PT_INDEX(va, 1)] :
				      NULL;

		if (WARN_ON_ONCE(!l0 && pte))
			break;
		if (l0)
			iosys_map_wr(&l0->map, COPRO_PT_INDEX(va, 0) * 8, u64,
				     pte);
	}
	copro_vm_hw_end(vm->cdev, idx);
}

/*
 * Drop every cached translation, after entries were cleared: no engine
 * may reach a page through them once the pages can be reused.
 */
void copro_vm_flush(struct copro_vm *vm)
{
	struct copro_device *cdev = vm->cdev;
	int idx;

	if (!copro_vm_hw_begin(cdev, &idx))
		return;
	/* the cleared entries reach VRAM before the caches are dropped */
	wmb();
	copro_wr32(cdev, COPRO_REG_VM_INVAL, COPRO_VM_INVAL_ALL);
	copro_vm_hw_end(cdev, idx);
}

/* ---- VMs ---- */

void copro_vm_free(struct drm_gpuvm *gpuvm)
{
	struct copro_vm *vm = to_copro_vm(gpuvm);

	/*
	 * drm_gpuvm has let its tree and resv object go; no context points
	 * at the tables any more (each held a reference).
	 */
	copro_pt_free(vm, vm->root, 2);
	if (vm->kbo) {
		copro_kbo_destroy(vm->kbo, &vm->kmap);
		copro_uncharge(vm->proc, COPRO_RES_VRAM, COPRO_VM_KERNEL_SIZE);
	}
	/* what a creation that failed half-way had not spent yet */
	if (vm->prepaid)
		copro_uncharge(vm->proc, COPRO_RES_VRAM, vm->prepaid);
	mutex_destroy(&vm->lock);
	copro_proc_put(vm->proc);
	kfree(vm);
}

static struct copro_vm *copro_vm_create(struct copro_device *cdev)
{
	struct drm_gem_object *r_obj;
	struct copro_vm *vm;
	int ret, idx;

	vm = kzalloc_obj(*vm);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	r_obj = drm_gpuvm_resv_object_alloc(&cdev->drm);
	if (!r_obj) {
		kfree(vm);
		return ERR_PTR(-ENOMEM);
	}
	vm->cdev = cdev;
	mutex_init(&vm->lock);
	spin_lock_init(&vm->save_lock);
	init_waitqueue_head(&vm->save_wq);
	copro_vm_async_init(vm);
	drm_gpuvm_init(&vm->base, "copro", 0, &cdev->drm, r_obj, 0,
		       COPRO_VM_END, COPRO_VM_KERNEL_VA,
		       COPRO_VM_END - COPRO_VM_KERNEL_VA, &copro_gpuvm_ops);
	/* drm_gpuvm holds its own reference of the resv object */
	drm_gem_object_put(r_obj);
	vm->proc = copro_proc_get(cdev);
	if (!vm->proc) {
		ret = -ENOMEM;
		goto err;
	}
	mutex_lock(&vm->lock);
	if (copro_charge(vm->proc, COPRO_RES_VRAM, COPRO_VM_FIXED_COST)) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	vm->prepaid = COPRO_VM_FIXED_COST;
	vm->root = copro_pt_new(vm, 2);
	if (IS_ERR(vm->root)) {
		ret = PTR_ERR(vm->root);
		vm->root = NULL;
		goto err_unlock;
	}
	/* pinned VRAM like the tables (prepaid): no VMs without bound */
	ret = copro_kbo_create(cdev, COPRO_VM_KERNEL_SIZE, &vm->kbo, &vm->kmap,
			       &vm->kgpu);
	if (ret) {
		vm->kbo = NULL;
		goto err_unlock;
	}
	vm->prepaid -= COPRO_VM_KERNEL_SIZE;
	/* the save areas start clean: freed VRAM may hold another's data */
	if (copro_vm_hw_begin(cdev, &idx)) {
		iosys_map_memset(&vm->kmap, 0, 0, COPRO_VM_KERNEL_SIZE);
		copro_vm_hw_end(cdev, idx);
	}
	ret = copro_vm_pt_alloc(vm, COPRO_VM_KERNEL_VA, COPRO_VM_KERNEL_SIZE);
	if (ret)
		goto err_unlock;
	copro_vm_pt_write(vm, COPRO_VM_KERNEL_VA, COPRO_VM_KERNEL_SIZE,
			  (vm->kgpu & COPRO_PTE_ADDR_MASK) | COPRO_PTE_VALID |
			  COPRO_PTE_WRITABLE, COPRO_GPU_PAGE_SIZE);
	mutex_unlock(&vm->lock);
	return vm;

err_unlock:
	mutex_unlock(&vm->lock);
err:
	drm_gpuvm_put(&vm->base);
	return ERR_PTR(ret);
}

/* The file's VM, made at its first use; NULL-free until the file closes. */
struct copro_vm *copro_vm_of_file(struct copro_device *cdev,
				  struct copro_file *cfile)
{
	struct copro_vm *vm = READ_ONCE(cfile->vm);

	if (vm)
		return vm;
	if (!cdev->ctxt)
		return ERR_PTR(-ENODEV);
	vm = copro_vm_create(cdev);
	if (IS_ERR(vm))
		return vm;
	if (cmpxchg(&cfile->vm, NULL, vm)) {
		/* another thread of the file made it first */
		drm_gpuvm_put(&vm->base);
		return READ_ONCE(cfile->vm);
	}
	return vm;
}

/*
 * The file closes (its contexts are gone, their jobs may still run):
 * every mapping goes, after the VM's jobs have finished, and the buffers
 * are released; the tables live until the last context lets the VM go.
 */
void copro_vm_file_close(struct copro_file *cfile)
{
	struct copro_vm *vm = cfile->vm;

	if (!vm)
		return;
	cfile->vm = NULL;
	copro_vm_async_flush(vm);
	copro_vm_unmap_all(vm);
	drm_gpuvm_put(&vm->base);
}

/* ---- contexts and jobs ---- */

int copro_vm_ctx_attach(struct copro_ctx *ctx, struct copro_file *cfile)
{
	struct copro_vm *vm = copro_vm_of_file(ctx->cdev, cfile);

	if (IS_ERR(vm))
		return PTR_ERR(vm);
	ctx->vm = vm;
	drm_gpuvm_get(&vm->base);
	copro_ctxt_write(ctx->cdev, ctx->id,
			 (vm->root->gpu & COPRO_CTX_ROOT_MASK) | COPRO_CTX_VALID);
	return 0;
}

/* before the context's id is freed: nobody else may run in this VM */
void copro_vm_ctx_detach(struct copro_ctx *ctx)
{
	if (!ctx->vm)
		return;
	copro_ctxt_write(ctx->cdev, ctx->id, 0);
	drm_gpuvm_put(&ctx->vm->base);
	ctx->vm = NULL;
}

/*
 * A submission by VA: the command buffer is where the process says, in
 * its VM; the job's save area is a slot of the VM's kernel area (waiting
 * for one while COPRO_VM_SAVE_SLOTS jobs of the VM are queued).
 */
static int copro_vm_save_get(struct copro_vm *vm)
{
	unsigned int slot;

	spin_lock(&vm->save_lock);
	slot = find_first_zero_bit(vm->save_used, COPRO_VM_SAVE_SLOTS);
	if (slot < COPRO_VM_SAVE_SLOTS)
		__set_bit(slot, vm->save_used);
	spin_unlock(&vm->save_lock);
	return slot < COPRO_VM_SAVE_SLOTS ? slot : -ENOSPC;
}

int copro_vm_job_prepare(struct copro_job *job, u64 va, u32 len)
{
	struct copro_vm *vm = job->ctx->vm;
	int slot, ret;

	if (!vm)
		return -EINVAL;
	if (va % 4 || len > COPRO_DMA_MAX || va >= COPRO_VM_KERNEL_VA ||
	    len > COPRO_VM_KERNEL_VA - va)
		return -ERANGE;
	ret = wait_event_interruptible(vm->save_wq,
				       (slot = copro_vm_save_get(vm)) >= 0);
	if (ret)
		return ret;
	job->vm = vm;
	drm_gpuvm_get(&vm->base);
	job->save_slot = slot;
	job->dma_gpu = va;
	job->dma_len = len;
	job->save_gpu = COPRO_VM_KERNEL_VA + slot * COPRO_SAVE_AREA;
	return 0;
}

/* Whether @vm maps @obj writable anywhere; @obj's dma_resv is held. */
static bool copro_vm_writes(struct copro_vm *vm, struct drm_gem_object *obj)
{
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *va;

	drm_gem_for_each_gpuvm_bo(vm_bo, obj) {
		if (vm_bo->vm != &vm->base)
			continue;
		drm_gpuvm_bo_for_each_va(va, vm_bo)
			if (!(va->flags & COPRO_GPUVA_READ_ONLY))
				return true;
	}
	return false;
}

/*
 * Lock the VM's dma_resv and those of the buffers mapped in it, and make
 * the job wait for their earlier users (implicit sync, as a patched job
 * waits for its listed buffers; a VM job may write any of them). The
 * returned drm_exec holds the locks until copro_vm_job_unlock.
 */
struct drm_exec *copro_vm_job_lock(struct copro_job *job)
{
	struct copro_vm *vm = job->vm;
	struct drm_exec *exec;
	unsigned int i;
	int ret;

	exec = kmalloc_obj(*exec);
	if (!exec)
		return ERR_PTR(-ENOMEM);
	drm_exec_init(exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(exec) {
		ret = drm_gpuvm_prepare_vm(&vm->base, exec, 1);
		drm_exec_retry_on_contention(exec);
		if (!ret) {
			ret = drm_gpuvm_prepare_objects(&vm->base, exec, 1);
			drm_exec_retry_on_contention(exec);
		}
		if (ret)
			goto err;
	}
	for (i = 0; i < exec->num_objects; i++) {
		struct drm_gem_object *obj = exec->objects[i];

		if (obj == drm_gpuvm_resv_obj(&vm->base))
			continue;
		ret = drm_sched_job_add_implicit_dependencies(&job->base, obj,
							      copro_vm_writes(vm, obj));
		if (ret)
			goto err;
	}
	return exec;

err:
	drm_exec_fini(exec);
	kfree(exec);
	return ERR_PTR(ret);
}

/*
 * The job's fence: in the VM's dma_resv (an unmap waits for it) and in
 * each mapped buffer's, as a write where the VM maps it writable and as
 * a read where it maps it read-only: a process that maps a shared buffer
 * read-only holds up neither the owner's readers nor its flips.
 */
void copro_vm_job_publish(struct copro_vm *vm, struct drm_exec *exec,
			  struct dma_fence *fence)
{
	unsigned int i;

	for (i = 0; i < exec->num_objects; i++) {
		struct drm_gem_object *obj = exec->objects[i];

		dma_resv_add_fence(obj->resv, fence,
				   obj == drm_gpuvm_resv_obj(&vm->base) ?
				   DMA_RESV_USAGE_BOOKKEEP :
				   copro_vm_writes(vm, obj) ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
	}
}

void copro_vm_job_unlock(struct drm_exec *exec)
{
	drm_exec_fini(exec);
	kfree(exec);
}

void copro_vm_job_release(struct copro_job *job)
{
	struct copro_vm *vm = job->vm;

	if (!vm)
		return;
	spin_lock(&vm->save_lock);
	__clear_bit(job->save_slot, vm->save_used);
	spin_unlock(&vm->save_lock);
	wake_up_all(&vm->save_wq);
	job->vm = NULL;
	drm_gpuvm_put(&vm->base);
}
