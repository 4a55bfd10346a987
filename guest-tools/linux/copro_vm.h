/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: GPU virtual memory, one VM per DRM file
 * (copro_vm.c: the VM and its page tables; copro_vm_bind.c: the
 * VM_BIND ioctl and the drm_gpuvm operations).
 */
#ifndef COPRO_VM_H
#define COPRO_VM_H

#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include <drm/drm_gpuvm.h>

#include "copro/copro_cmd.h"
#include "uapi/copro_drm.h"
#include "copro_render.h"

/*
 * The top 2 MiB of every VM are the kernel's: the VM's kernel area (save
 * areas of its preempted jobs) is mapped at COPRO_VM_KERNEL_VA; user
 * binds end below it.
 */
#define COPRO_VM_END		BIT_ULL(COPRO_VA_BITS)
#define COPRO_VM_KERNEL_VA	(COPRO_VM_END - SZ_2M)
#define COPRO_VM_KERNEL_SIZE	SZ_64K
#define COPRO_VM_SAVE_SLOTS	(COPRO_VM_KERNEL_SIZE / COPRO_SAVE_AREA)
/* a VM's own VRAM: its root, the kernel area and the area's two tables */
#define COPRO_VM_FIXED_COST	(COPRO_VM_KERNEL_SIZE + 3 * COPRO_GPU_PAGE_SIZE)
/* page tables of one VM: 4 MiB of VRAM, enough to map 2 GiB densely */
#define COPRO_VM_MAX_TABLES	1024u

struct copro_pt;

struct copro_vm {
	struct drm_gpuvm base;	/* its resv: jobs on the VM (BOOKKEEP) */
	struct copro_device *cdev;
	/* charged for the page tables (the process that created the VM) */
	struct copro_proc *proc;
	struct mutex lock;	/* binds, the page tables */
	struct copro_pt *root;	/* level 2 */
	unsigned int tables;
	/*
	 * @prepaid: VRAM bytes of the VM's fixed cost (its root, the kernel
	 * area and that area's two tables) charged at once at its creation,
	 * not yet spent on them: one charge, so that a process holding
	 * nothing makes its first VM out of the pool's reserve.
	 */
	u64 prepaid;
	/* the kernel area: save areas, one slot per job */
	struct drm_gem_vram_object *kbo;
	struct iosys_map kmap;
	u64 kgpu;
	spinlock_t save_lock;	/* @save_used */
	DECLARE_BITMAP(save_used, COPRO_VM_SAVE_SLOTS);
	wait_queue_head_t save_wq;
	/* asynchronous binds, run in order (copro_vm_async.c) */
	spinlock_t bind_lock;	/* @binds */
	struct list_head binds;
	struct work_struct bind_work;
	wait_queue_head_t bind_wq;	/* @binds emptied */
	u64 bind_context;	/* their fences' timeline */
	u64 bind_seqno;		/* vm->lock */
	unsigned int bind_pending;	/* @bind_lock */
	bool bind_closing;	/* the file closes: cancel what waits */
};

#define COPRO_VM_BIND_MAX_PENDING	16

static inline struct copro_vm *to_copro_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct copro_vm, base);
}

int copro_vm_init(struct copro_device *cdev);
/* a mapping the VM's jobs may only read (COPRO_VM_BIND_READ_ONLY) */
#define COPRO_GPUVA_READ_ONLY	DRM_GPUVA_USERBITS

void copro_vm_disable(struct copro_device *cdev);
void copro_vm_fini(struct copro_device *cdev);
void copro_vm_program(struct copro_device *cdev);
u64 copro_vm_va_end(struct copro_device *cdev);

struct copro_vm *copro_vm_of_file(struct copro_device *cdev,
				  struct copro_file *cfile);
void copro_vm_file_close(struct copro_file *cfile);

int copro_vm_ctx_attach(struct copro_ctx *ctx, struct copro_file *cfile);
void copro_vm_ctx_detach(struct copro_ctx *ctx);

int copro_vm_job_prepare(struct copro_job *job, u64 va, u32 len);
struct drm_exec;
struct drm_exec *copro_vm_job_lock(struct copro_job *job);
void copro_vm_job_publish(struct copro_vm *vm, struct drm_exec *exec,
			  struct dma_fence *fence);
void copro_vm_job_unlock(struct drm_exec *exec);
void copro_vm_job_release(struct copro_job *job);

/* the page tables (copro_vm.c), for copro_vm_bind.c; vm->lock held */
int copro_vm_pt_alloc(struct copro_vm *vm, u64 va, u64 range);
void copro_vm_pt_write(struct copro_vm *vm, u64 va, u64 range, u64 pte,
		       u64 step);
void copro_vm_flush(struct copro_vm *vm);
/* one operation of a VM_BIND, prepared (copro_vm_bind.c) */
#define COPRO_BIND_SPARES	4	/* a map and up to two remaps */

struct copro_bind_op {
	struct drm_copro_vm_bind_op op;
	struct drm_gem_object *obj;	/* MAP: the buffer */
	struct drm_gem_vram_object *gbo;	/* MAP, VRAM: pinned while run */
	u64 pte;		/* MAP: the first leaf */
	struct drm_gpuva *spare[COPRO_BIND_SPARES];
};

int copro_bind_op_prepare(struct copro_vm *vm, struct drm_file *file,
			  struct copro_bind_op *bop);
int copro_bind_op_run(struct copro_vm *vm, struct copro_bind_op *bop,
		      bool intr, bool wait);
void copro_bind_op_release(struct copro_bind_op *bop);

/* asynchronous binds (copro_vm_async.c) */
struct drm_copro_vm_bind;
int copro_vm_bind_async(struct copro_vm *vm, struct drm_file *file,
			struct drm_copro_vm_bind *a, struct copro_bind_op *ops);
int copro_vm_bind_wait_async(struct copro_vm *vm);
void copro_vm_async_init(struct copro_vm *vm);
void copro_vm_async_flush(struct copro_vm *vm);

extern const struct drm_gpuvm_ops copro_gpuvm_ops;
void copro_vm_free(struct drm_gpuvm *gpuvm);
void copro_vm_unmap_all(struct copro_vm *vm);

#endif
