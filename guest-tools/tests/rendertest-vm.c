// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest vm: a GPU VM per DRM file (DRM_IOCTL_COPRO_VM_BIND,
 * COPRO_CTX_CREATE_VM, COPRO_SUBMIT_VA).
 *
 * - command buffers named by GPU VA fill and draw into mapped buffers;
 * - a partial unmap leaves the rest of a mapping working;
 * - a VA the process did not map (where another process has its buffer)
 *   faults: that context alone is banned and its fence carries -EIO,
 *   while the other process's job completes and its buffer is intact;
 * - a write to a READ_ONLY mapping faults;
 * - bad binds and submissions are refused with their errnos, and a bind
 *   with a malformed operation does nothing;
 * - an unmap while a job uses the mapping waits for the job, which
 *   completes with its result;
 * - a VM job preempted mid-buffer resumes from its save area in the VM;
 * - faults in a row never reset the device;
 * - asynchronous binds wait for their in-syncs and signal their
 *   out-syncs; a synchronous bind comes after them;
 * - a job that reads a buffer a VM job writes waits for it (implicit
 *   sync through the mapped buffer's dma_resv);
 * - mappings pin VRAM only up to the process's share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "rendertest.h"
#include "copro/copro_cmd.h"

#define PAGE		4096u
#define VA_CMD		0x100000ull	/* the command buffer */
#define VA_DST		0x400000ull	/* the buffer written */
#define SECRET		0x5ec7e7u

/* copy @c into @cmd (mapped at VA_CMD) and run it by VA; the fence status */
static int run_va(struct copro_dev *d, uint32_t ctx, struct copro_bo *cmd,
		  struct copro_cmd *c, int *fence_status)
{
	int fd = -1, ret;
	struct copro_submit_opts o = { .fence_fd = &fd };

	memcpy(cmd->map, c->dw, c->n * 4);
	ret = copro_submit_va(d, ctx, 0, VA_CMD, c->n * 4, &o);
	if (ret)
		return ret;
	/* a sync_file's status once it signalled */
	for (int i = 0; i < 5000 && copro_fence_status(fd) == 0; i++)
		usleep(1000);
	*fence_status = copro_fence_status(fd);
	close(fd);
	return 0;
}

static bool banned(struct copro_dev *d, uint32_t ctx)
{
	struct drm_copro_ctx_query q;

	return !copro_ctx_query(d, ctx, &q) && (q.flags & COPRO_CTX_BANNED);
}

static void vm_render(uint32_t ctx, struct copro_bo *cmd)
{
	struct copro_bo dst;
	struct copro_cmd c;
	uint32_t *px;
	int st = 0, ret;

	bo_new(3 * PAGE, &dst);
	ret = copro_vm_map(&dev, &dst, 0, VA_DST, 3 * PAGE, 0);
	check(!ret, "map a buffer (%d)", ret);
	copro_cmd_init(&c);
	copro_cmd_fill_va(&c, VA_DST, 3 * PAGE, 0x11223344);
	/* 16x16 XRGB8888, pitch 64: a 4x4 square at (2, 3) */
	copro_cmd_target_va(&c, 0, VA_DST + PAGE, 64, 16, 16, COPRO_FMT_XRGB8888);
	copro_cmd_rect(&c, 0, 2, 3, 4, 4, 0x00ff8800);
	ret = run_va(&dev, ctx, cmd, &c, &st);
	px = (uint32_t *)((char *)dst.map + PAGE);
	check(!ret && st == 1 && all_u32(dst.map, PAGE, 0x11223344) &&
	      px[3 * 16 + 2] == 0x00ff8800 && px[6 * 16 + 5] == 0x00ff8800 &&
	      px[2 * 16 + 2] == 0x11223344 && px[3 * 16 + 6] == 0x11223344,
	      "a buffer run by VA fills and draws (submit %d, fence %d)",
	      ret, st);

	/* the middle page goes: the others stay mapped */
	ret = copro_vm_unmap(&dev, VA_DST + PAGE, PAGE);
	copro_cmd_reset(&c);
	copro_cmd_fill_va(&c, VA_DST, PAGE, 1);
	copro_cmd_fill_va(&c, VA_DST + 2 * PAGE, PAGE, 3);
	ret = ret ?: run_va(&dev, ctx, cmd, &c, &st);
	check(!ret && st == 1 && all_u32(dst.map, PAGE, 1) &&
	      all_u32((char *)dst.map + 2 * PAGE, PAGE, 3),
	      "a partial unmap keeps the rest of the mapping (%d, fence %d)",
	      ret, st);
	copro_vm_unmap(&dev, VA_DST, 3 * PAGE);
	copro_bo_free(&dev, &dst);

	/* a GTT buffer: its leaves point into the aperture (the GART) */
	ret = copro_bo_new_flags(&dev, 2 * PAGE, COPRO_GEM_GTT, &dst);
	ret = ret ?: copro_bo_map(&dev, &dst);
	if (ret)
		die("GTT buffer", ret);
	memset(dst.map, 0, 2 * PAGE);
	ret = copro_vm_map(&dev, &dst, PAGE, VA_DST, PAGE, 0);
	copro_cmd_reset(&c);
	copro_cmd_fill_va(&c, VA_DST, PAGE, 0x6161);
	ret = ret ?: run_va(&dev, ctx, cmd, &c, &st);
	check(!ret && st == 1 && all_u32(dst.map, PAGE, 0) &&
	      all_u32((char *)dst.map + PAGE, PAGE, 0x6161),
	      "a GTT buffer's second page mapped by VA is written (%d, fence %d)",
	      ret, st);
	copro_cmd_fini(&c);
	copro_vm_unmap(&dev, VA_DST, PAGE);
	copro_bo_free(&dev, &dst);
}

/*
 * Another process maps its buffer at VA_DST and keeps the engine busy;
 * this one writes VA_DST, which it never mapped: it faults, it alone.
 */
static void t_isolation(struct copro_bo *cmd)
{
	int pipe_ready[2], pipe_go[2];
	char b;
	pid_t pid;
	int status = 0;

	if (pipe(pipe_ready) || pipe(pipe_go))
		die("pipe", -errno);
	pid = fork();
	if (pid == 0) {
		struct copro_dev d2;
		struct copro_bo cmd2, buf;
		struct copro_cmd c;
		uint32_t ctx2;
		int st = 0, ok;

		if (copro_dev_open(&d2, NULL) || copro_ctx_new_vm(&d2, 1, &ctx2) ||
		    copro_bo_new(&d2, PAGE, &cmd2) || copro_bo_map(&d2, &cmd2) ||
		    copro_bo_new(&d2, PAGE, &buf) || copro_bo_map(&d2, &buf) ||
		    copro_vm_map(&d2, &cmd2, 0, VA_CMD, PAGE, 0) ||
		    copro_vm_map(&d2, &buf, 0, VA_DST, PAGE, 0))
			_exit(3);
		copro_cmd_init(&c);
		copro_cmd_fill_va(&c, VA_DST, PAGE, SECRET);
		if (run_va(&d2, ctx2, &cmd2, &c, &st) || st != 1)
			_exit(4);
		/* a job that runs across the other's fault */
		copro_cmd_reset(&c);
		copro_cmd_work(&c, 20000000);
		copro_cmd_fill_va(&c, VA_DST + 64, 64, SECRET + 1);
		if (write(pipe_ready[1], "r", 1) != 1 ||
		    read(pipe_go[0], &b, 1) != 1)
			_exit(5);
		if (run_va(&d2, ctx2, &cmd2, &c, &st))
			_exit(6);
		ok = st == 1 && !banned(&d2, ctx2) &&
		     all_u32(buf.map, 64, SECRET) &&
		     all_u32((char *)buf.map + 64, 64, SECRET + 1) &&
		     all_u32((char *)buf.map + 128, PAGE - 128, SECRET);
		_exit(ok ? 0 : 7);
	}
	{
		uint32_t ctx;
		struct copro_cmd c;
		int st = 0, ret;

		if (read(pipe_ready[0], &b, 1) != 1)
			die("child", -EIO);
		if (copro_ctx_new_vm(&dev, 1, &ctx))
			die("vm context", -EIO);
		memset((char *)cmd->map + 2048, 0, 64);
		if (write(pipe_go[1], "g", 1) != 1)
			die("pipe", -errno);
		copro_cmd_init(&c);
		/* reads the other process's VA: not mapped here */
		copro_cmd_copy_va(&c, VA_CMD + 2048, VA_DST, 64);
		ret = run_va(&dev, ctx, cmd, &c, &st);
		check(!ret && st == -EIO && banned(&dev, ctx),
		      "reading another process's VA faults, the context is banned (fence %d)",
		      st);
		check(all_u32((char *)cmd->map + 2048, 64, 0),
		      "nothing of the other process's buffer was read");
		ret = copro_submit_va(&dev, ctx, 0, VA_CMD, 8, NULL);
		check(ret == -ECANCELED, "a banned context takes no more jobs (%d)",
		      ret);
		copro_cmd_fini(&c);
		copro_ctx_free(&dev, ctx);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the other process's job completed, its buffer intact (status %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void t_read_only(struct copro_bo *cmd)
{
	struct copro_bo dst;
	struct copro_cmd c;
	uint32_t ctx;
	int st = 0, ret;

	if (copro_ctx_new_vm(&dev, 1, &ctx))
		die("vm context", -EIO);
	bo_new(PAGE, &dst);
	memset(dst.map, 0x5a, PAGE);
	ret = copro_vm_map(&dev, &dst, 0, VA_DST, PAGE, COPRO_VM_BIND_READ_ONLY);
	copro_cmd_init(&c);
	copro_cmd_copy_va(&c, VA_CMD + 2048, VA_DST, 64);
	ret = ret ?: run_va(&dev, ctx, cmd, &c, &st);
	check(!ret && st == 1 && all_u32((char *)cmd->map + 2048, 64, 0x5a5a5a5a),
	      "a READ_ONLY mapping is read (%d, fence %d)", ret, st);
	copro_cmd_reset(&c);
	copro_cmd_fill_va(&c, VA_DST, PAGE, 0);
	ret = run_va(&dev, ctx, cmd, &c, &st);
	check(!ret && st == -EIO && banned(&dev, ctx) &&
	      all_u32(dst.map, PAGE, 0x5a5a5a5a),
	      "a write to a READ_ONLY mapping faults and writes nothing (fence %d)",
	      st);
	copro_cmd_fini(&c);
	copro_ctx_free(&dev, ctx);
	copro_vm_unmap(&dev, VA_DST, PAGE);
	copro_bo_free(&dev, &dst);
}

static int bind1(uint32_t op, uint32_t flags, uint32_t handle, uint64_t off,
		 uint64_t va, uint64_t range)
{
	struct drm_copro_vm_bind_op o = {
		.op = op, .flags = flags, .handle = handle,
		.bo_offset = off, .va = va, .range = range,
	};

	return copro_vm_bind(&dev, &o, 1, NULL);
}

static void vm_bad(uint32_t vm_ctx, uint32_t phys_ctx, uint64_t end)
{
	const uint32_t M = COPRO_VM_BIND_OP_MAP, U = COPRO_VM_BIND_OP_UNMAP;
	struct drm_copro_vm_bind_op two[2] = {
		{ .op = M, .va = VA_DST, .range = PAGE },
		{ .op = M, .va = VA_DST + 1, .range = PAGE },
	};
	struct drm_copro_vm_bind_op pad = { .op = U, .va = 0, .range = PAGE,
					    .pad = 1 };
	struct copro_bo bo;
	struct copro_cmd c;
	uint32_t failed = 0;
	int ret;

	bo_new(2 * PAGE, &bo);
	two[0].handle = bo.handle;
	two[1].handle = bo.handle;
	check(bind1(M, 0, bo.handle, 0, VA_DST + 8, PAGE) == -EINVAL,
	      "an unaligned VA is refused");
	check(bind1(M, 0, bo.handle, 0, VA_DST, 100) == -EINVAL,
	      "an unaligned range is refused");
	check(bind1(M, 0, bo.handle, 0, VA_DST, 0) == -EINVAL,
	      "an empty range is refused");
	check(bind1(M, 0, bo.handle, 512, VA_DST, PAGE) == -EINVAL,
	      "an unaligned buffer offset is refused");
	check(bind1(M, 0, bo.handle, PAGE, VA_DST, 2 * PAGE) == -ERANGE,
	      "a range past the buffer's end is refused");
	check(bind1(M, 0, bo.handle, ~0ull & ~(uint64_t)(PAGE - 1), VA_DST,
		    2 * PAGE) == -ERANGE,
	      "an offset that wraps is refused");
	check(bind1(M, 0, bo.handle, 0, end - PAGE, 2 * PAGE) == -ERANGE,
	      "a range into the kernel's VAs is refused");
	check(bind1(M, 0, bo.handle, 0, end, PAGE) == -ERANGE,
	      "the kernel's VAs are refused");
	check(bind1(M, 0, bo.handle, 0, 1ull << 39, PAGE) == -ERANGE,
	      "a VA past 2^39 is refused");
	check(bind1(U, 0, 0, 0, ~0ull & ~(uint64_t)(PAGE - 1), 2 * PAGE) ==
	      -ERANGE, "a range that wraps around 2^64 is refused");
	check(bind1(M, 0, 0x7fff, 0, VA_DST, PAGE) == -ENOENT,
	      "an unknown handle is refused");
	check(bind1(7, 0, bo.handle, 0, VA_DST, PAGE) == -EINVAL,
	      "an unknown operation is refused");
	check(bind1(M, 0x80, bo.handle, 0, VA_DST, PAGE) == -EINVAL,
	      "an unknown flag is refused");
	check(bind1(U, 0, bo.handle, 0, VA_DST, PAGE) == -EINVAL,
	      "an UNMAP with a handle is refused");
	check(copro_vm_bind(&dev, &pad, 1, NULL) == -EINVAL,
	      "a non-zero pad is refused");
	check(copro_vm_bind(&dev, &pad, 0, NULL) == -EINVAL,
	      "no operations are refused");
	ret = copro_vm_bind(&dev, two, 2, &failed);
	check(ret == -EINVAL && failed == 1, "a bad second operation is named (%d, %u)",
	      ret, failed);
	/* nothing was mapped: a job at VA_DST faults */
	copro_cmd_init(&c);
	ret = copro_submit_va(&dev, phys_ctx, 0, VA_CMD, 16, NULL);
	check(ret == -EINVAL, "a physical context takes no VA submission (%d)",
	      ret);
	copro_cmd_fill(&c, &bo, 0, 64, 0);
	ret = copro_submit(&dev, vm_ctx, 0, &c, NULL);
	check(ret == -EINVAL, "a VM context takes no patched stream (%d)", ret);
	ret = copro_submit_va(&dev, vm_ctx, 0, VA_CMD + 2, 16, NULL);
	check(ret == -ERANGE, "an unaligned command buffer is refused (%d)",
	      ret);
	ret = copro_submit_va(&dev, vm_ctx, 0, end, 16, NULL);
	check(ret == -ERANGE, "a command buffer in the kernel's VAs is refused (%d)",
	      ret);
	copro_cmd_fini(&c);
	copro_bo_free(&dev, &bo);
}

/* the nothing-mapped check of vm_bad's two-op bind */
static void t_nothing_done(struct copro_bo *cmd)
{
	struct copro_cmd c;
	uint32_t ctx;
	int st = 0, ret;

	if (copro_ctx_new_vm(&dev, 1, &ctx))
		die("vm context", -EIO);
	copro_cmd_init(&c);
	copro_cmd_fill_va(&c, VA_DST, 64, 0);
	ret = run_va(&dev, ctx, cmd, &c, &st);
	check(!ret && st == -EIO,
	      "a refused bind mapped nothing: its VA faults (fence %d)", st);
	copro_cmd_fini(&c);
	copro_ctx_free(&dev, ctx);
}

/* an unmap while a job writes the mapping waits for the job */
static void t_unmap_busy(uint32_t ctx, struct copro_bo *cmd)
{
	struct copro_bo dst;
	struct copro_cmd c;
	uint32_t sync;
	struct drm_copro_sync out = { 0 };
	struct copro_submit_opts o = { .out = &out, .nout = 1 };
	int ret;

	bo_new(PAGE, &dst);
	if (copro_vm_map(&dev, &dst, 0, VA_DST, PAGE, 0) ||
	    copro_syncobj_new(&dev, &sync))
		die("map", -EIO);
	out.handle = sync;
	copro_cmd_init(&c);
	copro_cmd_work(&c, 50000000);	/* 50 ms of device time */
	copro_cmd_fill_va(&c, VA_DST, PAGE, 0xabcdef);
	memcpy(cmd->map, c.dw, c.n * 4);
	ret = copro_submit_va(&dev, ctx, 0, VA_CMD, c.n * 4, &o);
	check(!ret && copro_syncobj_wait(&dev, sync, 0, 0) == -ETIME,
	      "a long job by VA is running (%d)", ret);
	ret = copro_vm_unmap(&dev, VA_DST, PAGE);
	check(!ret && copro_syncobj_wait(&dev, sync, 0, 0) == 0,
	      "the unmap returned after the job finished (%d)", ret);
	check(!banned(&dev, ctx) && all_u32(dst.map, PAGE, 0xabcdef),
	      "the job wrote its result through the mapping");
	/* the handle goes while mapped: the buffer lives on */
	ret = copro_vm_map(&dev, &dst, 0, VA_DST, PAGE, 0);
	copro_bo_free(&dev, &dst);
	copro_cmd_reset(&c);
	copro_cmd_fill_va(&c, VA_DST, PAGE, 0x77);
	{
		int st = 0;

		ret = ret ?: run_va(&dev, ctx, cmd, &c, &st);
		check(!ret && st == 1,
		      "a mapping outlives its buffer's handle (%d, fence %d)",
		      ret, st);
	}
	copro_vm_unmap(&dev, VA_DST, PAGE);
	copro_syncobj_free(&dev, sync);
	copro_cmd_fini(&c);
}

/*
 * A high-priority job preempts a VM context's long job in mid-buffer: its
 * state is saved in the VM's kernel area (the context's address space)
 * and the job resumes from it, with its result.
 */
static void vm_preempt(uint32_t ctx, struct copro_bo *cmd)
{
	struct drm_copro_sync out = { 0 };
	struct copro_submit_opts o = { .out = &out, .nout = 1 };
	struct copro_bo dst, hbuf;
	struct copro_cmd c;
	uint64_t p0, r0;
	uint32_t hi;
	int ret;

	bo_new(PAGE, &dst);
	bo_new(PAGE, &hbuf);
	hi = ctx_new(COPRO_CTX_PRIORITY_HIGH);
	if (copro_vm_map(&dev, &dst, 0, VA_DST, PAGE, 0) ||
	    copro_syncobj_new(&dev, &out.handle))
		die("map", -EIO);
	p0 = debugfs_value("copro_engines", "preemptions ");
	r0 = debugfs_value("copro_engines", "resumes ");
	copro_cmd_init(&c);
	copro_cmd_fill_va(&c, VA_DST, PAGE / 2, 0x1111);
	copro_cmd_work(&c, 30000000);
	copro_cmd_fill_va(&c, VA_DST + PAGE / 2, PAGE / 2, 0x2222);
	memcpy(cmd->map, c.dw, c.n * 4);
	ret = copro_submit_va(&dev, ctx, 0, VA_CMD, c.n * 4, &o);
	/* 5 ms into it, the high-priority job */
	{
		uint64_t until = copro_gpu_time(&dev) + 5000000;

		while (copro_gpu_time(&dev) < until)
			usleep(500);
	}
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &hbuf, 0, PAGE, 0x3333);
	ret = ret ?: copro_run(&dev, hi, 0, &c);
	check(!ret && copro_syncobj_wait(&dev, out.handle, 0, 0) == -ETIME &&
	      all_u32(hbuf.map, PAGE, 0x3333),
	      "a high-priority job ran inside a VM job (%d)", ret);
	ret = copro_syncobj_wait(&dev, out.handle, 0, 10000000000ll);
	check(!ret && !banned(&dev, ctx) && all_u32(dst.map, PAGE / 2, 0x1111) &&
	      all_u32((char *)dst.map + PAGE / 2, PAGE / 2, 0x2222),
	      "the VM job resumed and finished its work (%d)", ret);
	check(debugfs_value("copro_engines", "preemptions ") > p0 &&
	      debugfs_value("copro_engines", "resumes ") > r0,
	      "it was preempted mid-buffer and resumed from its save area");
	copro_vm_unmap(&dev, VA_DST, PAGE);
	copro_syncobj_free(&dev, out.handle);
	copro_ctx_free(&dev, hi);
	copro_cmd_fini(&c);
	copro_bo_free(&dev, &dst);
	copro_bo_free(&dev, &hbuf);
}

/*
 * Any process can fault in its own VM at will: faults, one after the
 * other, ban their contexts but never add up to a device reset, and the
 * next job runs.
 */
static void t_fault_storm(uint32_t ctx, struct copro_bo *cmd)
{
	uint64_t r0 = debugfs_value("copro_engines", "device_recoveries: ");
	struct copro_bo dst;
	struct copro_cmd c;
	int st = 0, n = 0, ret;

	copro_cmd_init(&c);
	for (int i = 0; i < 6; i++) {
		uint32_t bad;

		if (copro_ctx_new_vm(&dev, 1, &bad))
			die("vm context", -EIO);
		copro_cmd_reset(&c);
		copro_cmd_fill_va(&c, VA_DST + 64 * PAGE, 64, 0);
		if (!run_va(&dev, bad, cmd, &c, &st) && st == -EIO &&
		    banned(&dev, bad))
			n++;
		copro_ctx_free(&dev, bad);
	}
	bo_new(PAGE, &dst);
	copro_cmd_reset(&c);
	copro_cmd_fill_va(&c, VA_DST, PAGE, 0x4444);
	ret = copro_vm_map(&dev, &dst, 0, VA_DST, PAGE, 0);
	ret = ret ?: run_va(&dev, ctx, cmd, &c, &st);
	check(n == 6 && !ret && st == 1 && all_u32(dst.map, PAGE, 0x4444),
	      "six faults in a row each ban their context; the next job runs (%d, fence %d)",
	      n, st);
	check(debugfs_value("copro_engines", "device_recoveries: ") == r0,
	      "faults never reset the device");
	copro_vm_unmap(&dev, VA_DST, PAGE);
	copro_bo_free(&dev, &dst);
	copro_cmd_fini(&c);
}

/*
 * Asynchronous binds: a map waits for its in-sync (a job's), a job waits
 * for the map's out-sync and uses the mapping; an unmap signals when the
 * mapping is gone; a synchronous bind comes after the asynchronous ones.
 */
static void t_async(uint32_t ctx, uint32_t phys, struct copro_bo *cmd)
{
	const uint64_t va = VA_DST + 16 * PAGE;
	struct drm_copro_vm_bind_op op = {
		.op = COPRO_VM_BIND_OP_MAP, .va = va, .range = PAGE,
	};
	struct drm_copro_sync gate = { 0 }, bound = { 0 }, job = { 0 };
	struct copro_submit_opts go = { .out = &gate, .nout = 1 };
	struct copro_submit_opts jo = { .in = &bound, .nin = 1,
					.out = &job, .nout = 1 };
	struct copro_bo dst, scratch;
	struct copro_cmd c;
	uint32_t bad;
	int st = 0, ret;

	bo_new(PAGE, &dst);
	bo_new(PAGE, &scratch);
	if (copro_syncobj_new(&dev, &gate.handle) ||
	    copro_syncobj_new(&dev, &bound.handle) ||
	    copro_syncobj_new(&dev, &job.handle))
		die("syncobj", -EIO);
	op.handle = dst.handle;
	/* the gate: a 20 ms job of another context */
	copro_cmd_init(&c);
	copro_cmd_work(&c, 20000000);
	copro_cmd_fill(&c, &scratch, 0, 64, 1);
	ret = copro_submit(&dev, phys, 0, &c, &go);
	ret = ret ?: copro_vm_bind_async(&dev, &op, 1, &gate, 1, &bound, 1, NULL);
	check(!ret && copro_syncobj_wait(&dev, bound.handle, 0, 0) == -ETIME,
	      "an asynchronous map returns before its in-sync signalled (%d)",
	      ret);
	copro_cmd_reset(&c);
	copro_cmd_fill_va(&c, va, PAGE, 0x5151);
	memcpy((char *)cmd->map + 1024, c.dw, c.n * 4);
	ret = copro_submit_va(&dev, ctx, 0, VA_CMD + 1024, c.n * 4, &jo);
	ret = ret ?: copro_syncobj_wait(&dev, job.handle, 0, 10000000000ll);
	check(!ret && !banned(&dev, ctx) && all_u32(dst.map, PAGE, 0x5151) &&
	      !copro_syncobj_wait(&dev, gate.handle, 0, 0),
	      "a job waiting for the map's out-sync used the mapping (%d)", ret);

	/* an unmap: the out-sync says the VA is gone */
	op.op = COPRO_VM_BIND_OP_UNMAP;
	op.handle = 0;
	ret = copro_vm_bind_async(&dev, &op, 1, NULL, 0, &bound, 1, NULL);
	ret = ret ?: copro_syncobj_wait(&dev, bound.handle, 0, 10000000000ll);
	if (copro_ctx_new_vm(&dev, 1, &bad))
		die("vm context", -EIO);
	copro_cmd_reset(&c);
	copro_cmd_fill_va(&c, va, 64, 0);
	ret = ret ?: run_va(&dev, bad, cmd, &c, &st);
	check(!ret && st == -EIO && all_u32(dst.map, PAGE, 0x5151),
	      "after an asynchronous unmap's out-sync the VA faults (%d, fence %d)",
	      ret, st);
	copro_ctx_free(&dev, bad);

	/* a synchronous unmap after an asynchronous map that still waits */
	op.op = COPRO_VM_BIND_OP_MAP;
	op.handle = dst.handle;
	copro_cmd_reset(&c);
	copro_cmd_work(&c, 20000000);
	copro_cmd_fill(&c, &scratch, 0, 64, 2);
	ret = copro_submit(&dev, phys, 0, &c, &go);
	ret = ret ?: copro_vm_bind_async(&dev, &op, 1, &gate, 1, &bound, 1, NULL);
	ret = ret ?: copro_vm_unmap(&dev, va, PAGE);
	check(!ret && !copro_syncobj_wait(&dev, bound.handle, 0, 0),
	      "a synchronous bind runs after the asynchronous one before it (%d)",
	      ret);

	/* sync objects only with ASYNC; flags checked */
	{
		struct drm_copro_vm_bind a = {
			.ops = (uintptr_t)&op, .op_count = 1,
			.in_syncs = (uintptr_t)&gate, .in_sync_count = 1,
		};
		struct drm_copro_sync none = { .handle = 0x7777 };

		ret = drmIoctl(dev.fd, DRM_IOCTL_COPRO_VM_BIND, &a) ? -errno : 0;
		check(ret == -EINVAL, "a synchronous bind takes no sync objects (%d)",
		      ret);
		a.in_sync_count = 0;
		a.flags = 0x80;
		ret = drmIoctl(dev.fd, DRM_IOCTL_COPRO_VM_BIND, &a) ? -errno : 0;
		check(ret == -EINVAL, "an unknown bind flag is refused (%d)", ret);
		a.flags = COPRO_VM_BIND_ASYNC;
		a.out_syncs = (uintptr_t)&none;
		a.out_sync_count = 1;
		ret = drmIoctl(dev.fd, DRM_IOCTL_COPRO_VM_BIND, &a) ? -errno : 0;
		check(ret == -ENOENT, "an unknown out-sync is refused (%d)", ret);
	}
	copro_cmd_fini(&c);
	copro_syncobj_free(&dev, gate.handle);
	copro_syncobj_free(&dev, bound.handle);
	copro_syncobj_free(&dev, job.handle);
	copro_bo_free(&dev, &dst);
	copro_bo_free(&dev, &scratch);
}

/*
 * Implicit sync: a patched job on the copy engine that reads a buffer a
 * VM job on the render engine writes (after 20 ms of work) waits for it,
 * through the buffer's dma_resv: the VM job lists no buffer.
 */
static void t_implicit(uint32_t ctx, uint32_t phys, struct copro_bo *cmd)
{
	struct drm_copro_sync out = { 0 };
	struct copro_submit_opts o = { .out = &out, .nout = 1 };
	struct copro_bo dst, copy;
	struct copro_cmd c;
	int ret;

	if (dev.engines < 2) {
		check(true, "# SKIP one engine");
		return;
	}
	bo_new(PAGE, &dst);
	bo_new(PAGE, &copy);
	memset(dst.map, 0, PAGE);
	memset(copy.map, 0, PAGE);
	if (copro_vm_map(&dev, &dst, 0, VA_DST, PAGE, 0) ||
	    copro_syncobj_new(&dev, &out.handle))
		die("map", -EIO);
	copro_cmd_init(&c);
	copro_cmd_work(&c, 20000000);
	copro_cmd_fill_va(&c, VA_DST, PAGE, 0x7171);
	memcpy(cmd->map, c.dw, c.n * 4);
	ret = copro_submit_va(&dev, ctx, 0, VA_CMD, c.n * 4, NULL);
	copro_cmd_reset(&c);
	copro_cmd_copy(&c, &copy, 0, &dst, 0, PAGE);
	ret = ret ?: copro_submit(&dev, phys, 1, &c, &o);
	ret = ret ?: copro_syncobj_wait(&dev, out.handle, 0, 10000000000ll);
	check(!ret && all_u32(copy.map, PAGE, 0x7171),
	      "a job reading a buffer waits for the VM job writing it (%d)",
	      ret);
	copro_cmd_fini(&c);
	copro_vm_unmap(&dev, VA_DST, PAGE);
	copro_syncobj_free(&dev, out.handle);
	copro_bo_free(&dev, &dst);
	copro_bo_free(&dev, &copy);
}

/*
 * Mappings pin VRAM: a process that binds buffer after buffer gets
 * ENOSPC at its share (proc_vram_pin_pct), and another process's job
 * still pins its buffer and runs.
 */
static void t_pin_bound(void)
{
	uint64_t vram = 0, pinned = 0;
	struct copro_bo bos[64];
	unsigned int n = 0;
	pid_t pid;
	int ret = 0, status = 0;

	copro_param(&dev, COPRO_PARAM_VRAM_SIZE, &vram);
	while (n < 64) {
		ret = copro_bo_new(&dev, 4u << 20, &bos[n]);
		if (ret)
			break;
		ret = copro_vm_map(&dev, &bos[n], 0, VA_DST + (uint64_t)n * (4u << 20),
				   4u << 20, 0);
		n++;
		if (ret)
			break;
		pinned += 4u << 20;
	}
	check(ret == -ENOSPC && pinned < vram / 2,
	      "binding pins VRAM up to the process's share, then ENOSPC (%d, %llu MiB of %llu)",
	      ret, (unsigned long long)(pinned >> 20),
	      (unsigned long long)(vram >> 20));
	pid = fork();
	if (pid == 0) {
		struct copro_dev d2;
		struct copro_bo b;
		struct copro_cmd c;
		uint32_t ctx2;

		if (copro_dev_open(&d2, NULL) || copro_ctx_new(&d2, 1, &ctx2) ||
		    copro_bo_new(&d2, 1u << 20, &b) || copro_bo_map(&d2, &b))
			_exit(3);
		copro_cmd_init(&c);
		copro_cmd_fill(&c, &b, 0, 1u << 20, 0x9191);
		if (copro_run(&d2, ctx2, 0, &c) || !all_u32(b.map, 1u << 20, 0x9191))
			_exit(4);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "another process's job still pins its buffer and runs (status %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	copro_vm_unmap(&dev, VA_DST, 64ull * (4u << 20));
	while (n--)
		copro_bo_free(&dev, &bos[n]);
}

int t_vm(void)
{
	struct copro_bo cmd;
	uint32_t ctx, phys;
	uint64_t end = 0;
	int ret;

	ret = copro_param(&dev, COPRO_PARAM_VM_VA_END, &end);
	check(!ret && end == (1ull << 39) - (2ull << 20),
	      "the user VA ends 2 MiB below 2^39 (%#llx)",
	      (unsigned long long)end);
	ret = copro_ctx_new_vm(&dev, 1, &ctx);
	if (ret)
		die("vm context", ret);
	phys = ctx_new(1);
	bo_new(PAGE, &cmd);
	ret = copro_vm_map(&dev, &cmd, 0, VA_CMD, PAGE, 0);
	if (ret)
		die("map the command buffer", ret);
	vm_render(ctx, &cmd);
	vm_bad(ctx, phys, end);
	t_nothing_done(&cmd);
	t_read_only(&cmd);
	t_unmap_busy(ctx, &cmd);
	vm_preempt(ctx, &cmd);
	t_fault_storm(ctx, &cmd);
	t_async(ctx, phys, &cmd);
	t_implicit(ctx, phys, &cmd);
	t_pin_bound();
	t_isolation(&cmd);
	copro_ctx_free(&dev, ctx);
	copro_ctx_free(&dev, phys);
	copro_vm_unmap(&dev, VA_CMD, PAGE);
	copro_bo_free(&dev, &cmd);
	return done();
}
