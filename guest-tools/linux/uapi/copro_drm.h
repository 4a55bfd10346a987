/* SPDX-License-Identifier: (GPL-2.0-or-later WITH Linux-syscall-note) OR MIT */
/*
 * copro DRM driver: the render uapi (ioctls on /dev/dri/card* and
 * /dev/dri/renderD*). See docs/linux.rst.
 *
 * Memory model: buffers are GEM objects in VRAM. A command stream never
 * holds a GPU address: every address field of a packet is COPRO_ADDR(i,
 * off), buffer i of the submission's buffer list and a byte offset in it.
 * The kernel copies the stream, checks every packet (opcode, length,
 * fields, the byte range each address field touches, RECT only on a slot
 * the same stream bound) and patches the fields with the buffers' VRAM
 * addresses while they are pinned for the job. A stream can only touch
 * the buffers it lists, and a process can only list its own handles.
 */
#ifndef COPRO_DRM_H
#define COPRO_DRM_H

#ifdef __KERNEL__
#include <uapi/drm/drm.h>
#else
#include "drm.h"
#endif

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_COPRO_GET_PARAM		0x00
#define DRM_COPRO_GEM_CREATE		0x01
#define DRM_COPRO_GEM_INFO		0x02
#define DRM_COPRO_CTX_CREATE		0x03
#define DRM_COPRO_CTX_DESTROY		0x04
#define DRM_COPRO_CTX_QUERY		0x05
#define DRM_COPRO_SUBMIT		0x06
#define DRM_COPRO_VM_BIND		0x07

/* GET_PARAM: one value of the device or driver */
#define COPRO_PARAM_NUM_ENGINES		1
#define COPRO_PARAM_PREEMPT_CAPS	2	/* COPRO_PREEMPT_* of copro_regs.h */
#define COPRO_PARAM_GPU_TIME		3	/* the device clock, ns */
#define COPRO_PARAM_VRAM_SIZE		4
#define COPRO_PARAM_CTX_SWITCH_NS	5
#define COPRO_PARAM_JOB_TIMEOUT_MS	6
#define COPRO_PARAM_VM_VA_END		7	/* end of a file VM's user VA
						 * range; 0: no GPU VMs
						 */

struct drm_copro_get_param {
	__u32 param;		/* in: COPRO_PARAM_* */
	__u32 pad;		/* must be 0 */
	__u64 value;		/* out */
};

/*
 * GEM_CREATE: a buffer in VRAM (TTM: evicted to system memory while idle
 * when VRAM is short), or with COPRO_GEM_GTT in guest memory, mapped in
 * the device's aperture through the GART for its life (never scanned
 * out). Size rounded up to a page.
 */
#define COPRO_GEM_GTT			(1u << 0)

struct drm_copro_gem_create {
	__u64 size;		/* in: bytes, 1 to the VRAM size (GTT: 256 MiB) */
	__u32 flags;		/* in: COPRO_GEM_GTT or 0 */
	__u32 handle;		/* out */
};

/* GEM_INFO: size and mmap offset of a handle (mmap on the DRM fd) */
struct drm_copro_gem_info {
	__u32 handle;		/* in */
	__u32 pad;		/* must be 0 */
	__u64 size;		/* out */
	__u64 mmap_offset;	/* out */
};

/* contexts: one drm_sched entity per engine, at the context's priority */
#define COPRO_CTX_PRIORITY_LOW		0	/* DRM_SCHED_PRIORITY_LOW */
#define COPRO_CTX_PRIORITY_NORMAL	1
#define COPRO_CTX_PRIORITY_HIGH		2	/* CAP_SYS_NICE or DRM master */

/*
 * COPRO_CTX_CREATE_VM: the context runs in the file's GPU VM (see
 * DRM_IOCTL_COPRO_VM_BIND) and takes only COPRO_SUBMIT_VA submissions.
 */
#define COPRO_CTX_CREATE_VM		(1u << 0)

struct drm_copro_ctx_create {
	__u32 priority;		/* in: COPRO_CTX_PRIORITY_* */
	__u32 flags;		/* in: COPRO_CTX_CREATE_VM or 0 */
	__u32 handle;		/* out */
	__u32 pad;
};

struct drm_copro_ctx_destroy {
	__u32 handle;
	__u32 pad;		/* must be 0 */
};

#define COPRO_CTX_BANNED		(1u << 0)	/* a job of it hung or faulted */

struct drm_copro_ctx_query {
	__u32 handle;		/* in */
	__u32 flags;		/* out: COPRO_CTX_BANNED */
	__u64 busy_ns;		/* out: engine time its jobs used */
	__u64 jobs;		/* out: jobs retired */
};

/* a buffer of the submission: index i in the list is COPRO_ADDR(i, ...) */
#define COPRO_BO_WRITE			(1u << 0)	/* the stream may write it */

struct drm_copro_bo_ref {
	__u32 handle;
	__u32 flags;		/* COPRO_BO_WRITE */
};

/* an in or out sync object; point 0: binary, else a timeline point */
struct drm_copro_sync {
	__u32 handle;
	__u32 flags;		/* must be 0 */
	__u64 point;
};

#define COPRO_ADDR(index, offset) \
	(((__u64)(index) << 32) | (__u32)(offset))

#define COPRO_SUBMIT_MAX_CMDS		(64u << 10)	/* bytes of stream */
#define COPRO_SUBMIT_MAX_BOS		64
#define COPRO_SUBMIT_MAX_SYNCS		64
#define COPRO_SUBMIT_MAX_WORK_NS	(60ull * 1000000000ull)

#define COPRO_SUBMIT_FENCE_FD_OUT	(1u << 0)	/* a sync_file in fence_fd */
/*
 * COPRO_SUBMIT_VA: cmds is the GPU virtual address of the command buffer
 * in the file's VM (4-aligned, cmds_size bytes, at most COPRO_DMA_MAX,
 * below COPRO_PARAM_VM_VA_END), run as it is by the device, whose MMU
 * keeps it inside the VM; bo_count must be 0. Only on a context created
 * with COPRO_CTX_CREATE_VM, which takes nothing else.
 */
#define COPRO_SUBMIT_VA			(1u << 1)

struct drm_copro_submit {
	__u32 ctx;		/* context handle */
	__u32 engine;		/* 0 render, 1 copy, ... */
	__u64 cmds;		/* user pointer: the stream (dwords); GPU VA
				 * with COPRO_SUBMIT_VA
				 */
	__u32 cmds_size;	/* bytes: a multiple of 4, at most MAX_CMDS */
	__u32 bo_count;
	__u64 bos;		/* user pointer: struct drm_copro_bo_ref[] */
	__u64 in_syncs;		/* user pointer: struct drm_copro_sync[] */
	__u64 out_syncs;	/* user pointer: struct drm_copro_sync[] */
	__u32 in_sync_count;
	__u32 out_sync_count;
	__u32 flags;		/* COPRO_SUBMIT_FENCE_FD_OUT, _VA */
	__s32 fence_fd;		/* out */
	__u32 bad_offset;	/* out: byte offset of a refused packet */
	__u32 pad;		/* must be 0 */
};

/**
 * DOC: GPU virtual memory (VM_BIND)
 *
 * Each DRM file has one GPU virtual address space (VM) on the device's
 * per-context page tables: a 39-bit VA, 4 KiB pages. DRM_IOCTL_COPRO_VM_BIND
 * maps ranges of the file's buffers into it and unmaps them; contexts
 * created with COPRO_CTX_CREATE_VM run in it, and their submissions name
 * their command buffer by VA (COPRO_SUBMIT_VA). The device's MMU, not a
 * stream checker, keeps such a job inside its VM: an access to a VA that
 * is not mapped (or a write to a read-only mapping) is a GPU page fault,
 * which bans the faulting context alone (its jobs' fences get -EIO, later
 * submissions -ECANCELED); every other context runs on.
 *
 * VAs from COPRO_PARAM_VM_VA_END up to 2^39 are the kernel's (the save
 * areas of preempted jobs) and cannot be bound. The binds of one ioctl
 * run in order, synchronously (when it returns they are in effect) or,
 * with COPRO_VM_BIND_ASYNC, in the background between sync objects. An
 * UNMAP (or a MAP over mapped VAs) first waits for every job submitted
 * on the VM so far, so that no job can reach memory through a mapping
 * that is gone. A mapped buffer stays alive (and, for a VRAM buffer,
 * resident in VRAM) while it is mapped, also after its handle is closed;
 * the pinned VRAM is charged to the process that bound it.
 */

/**
 * struct drm_copro_vm_bind_op - one map or unmap of a VM_BIND
 * @op: COPRO_VM_BIND_OP_MAP or COPRO_VM_BIND_OP_UNMAP.
 * @flags: MAP: COPRO_VM_BIND_READ_ONLY or 0 (the device may write the
 *	range); UNMAP: 0.
 * @handle: MAP: the buffer (of this file); UNMAP: 0.
 * @pad: must be 0.
 * @bo_offset: MAP: byte offset in the buffer, 4 KiB aligned, with
 *	@bo_offset + @range at most the buffer's size; UNMAP: 0.
 * @va: first GPU VA, 4 KiB aligned.
 * @range: bytes, a non-zero multiple of 4 KiB; [@va, @va + @range) must
 *	lie below COPRO_PARAM_VM_VA_END.
 *
 * A MAP replaces whatever was mapped in its range; an UNMAP of VAs that
 * are not mapped is not an error.
 */
struct drm_copro_vm_bind_op {
	__u32 op;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u64 bo_offset;
	__u64 va;
	__u64 range;
};

#define COPRO_VM_BIND_OP_MAP		0
#define COPRO_VM_BIND_OP_UNMAP		1

#define COPRO_VM_BIND_READ_ONLY		(1u << 0)

#define COPRO_VM_BIND_MAX_OPS		256

/*
 * COPRO_VM_BIND_ASYNC: the ioctl checks the operations, looks the buffers
 * up, makes the page tables and returns; the operations then run in the
 * background, in order with the file's other asynchronous binds, once
 * the in-syncs have signalled and the jobs submitted on the VM before
 * the ioctl have finished (an unmap does not wait for jobs submitted
 * after it, which may wait for its out-syncs); then the out-syncs
 * signal, with an error if an operation failed (the ones after it are
 * not run). A synchronous bind runs after the asynchronous ones before
 * it. Sync objects are for asynchronous binds only.
 */
#define COPRO_VM_BIND_ASYNC		(1u << 0)

/**
 * struct drm_copro_vm_bind - argument of DRM_IOCTL_COPRO_VM_BIND
 * @ops: user pointer to @op_count struct drm_copro_vm_bind_op.
 * @op_count: 1 to COPRO_VM_BIND_MAX_OPS.
 * @flags: COPRO_VM_BIND_ASYNC or 0.
 * @failed_op: out: index of the operation that failed (the ones before it
 *	are in effect, the ones after it were not tried), or U32_MAX.
 * @pad: must be 0.
 * @in_syncs: user pointer to @in_sync_count struct drm_copro_sync: what
 *	an asynchronous bind waits for (at most COPRO_SUBMIT_MAX_SYNCS).
 * @out_syncs: user pointer to @out_sync_count struct drm_copro_sync:
 *	signalled when an asynchronous bind is done.
 * @in_sync_count: 0 unless COPRO_VM_BIND_ASYNC.
 * @out_sync_count: 0 unless COPRO_VM_BIND_ASYNC.
 *
 * Errors: EINVAL for a malformed operation (alignment, zero or
 * overflowing range, unknown op or flag, non-zero pad), ERANGE for a
 * range outside the user VA or outside the buffer, ENOENT for an unknown
 * handle, ENODEV when the device has no per-context page tables, ENOSPC
 * when the process's share of pinned VRAM or the VM's page tables is
 * used up, EINTR/ERESTARTSYS when a wait was interrupted.
 */
struct drm_copro_vm_bind {
	__u64 ops;
	__u32 op_count;
	__u32 flags;
	__u32 failed_op;
	__u32 pad;
	__u64 in_syncs;
	__u64 out_syncs;
	__u32 in_sync_count;
	__u32 out_sync_count;
};

#define DRM_IOCTL_COPRO_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_COPRO_GET_PARAM, struct drm_copro_get_param)
#define DRM_IOCTL_COPRO_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_COPRO_GEM_CREATE, struct drm_copro_gem_create)
#define DRM_IOCTL_COPRO_GEM_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_COPRO_GEM_INFO, struct drm_copro_gem_info)
#define DRM_IOCTL_COPRO_CTX_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_COPRO_CTX_CREATE, struct drm_copro_ctx_create)
#define DRM_IOCTL_COPRO_CTX_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_COPRO_CTX_DESTROY, struct drm_copro_ctx_destroy)
#define DRM_IOCTL_COPRO_CTX_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_COPRO_CTX_QUERY, struct drm_copro_ctx_query)
#define DRM_IOCTL_COPRO_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_COPRO_SUBMIT, struct drm_copro_submit)
#define DRM_IOCTL_COPRO_VM_BIND \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_COPRO_VM_BIND, struct drm_copro_vm_bind)

#if defined(__cplusplus)
}
#endif

#endif
