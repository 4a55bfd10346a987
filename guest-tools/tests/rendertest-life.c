// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest: lifetimes (issue 27, review defects 1, 5 and 9).
 *
 *   ctxrace        CTX_DESTROY while another thread's submit on that
 *                  context sleeps for kernel pool memory: the submit
 *                  fails with ENOENT, nothing is left behind
 *   gartreset      a GTT buffer freed and another created while a PCI
 *                  reset has the BARs off: the device reaches the new
 *                  buffer's pages, never the freed ones (as root, the
 *                  device behind a root port)
 *   fuzz S P T N   seeded random ioctls: P unprivileged processes of T
 *                  threads, N operations each (create, submit, destroy,
 *                  close racing each other); then nothing is left
 *   render-until-gone
 *                  submit and wait until the device goes away; exits 0
 *                  when an ioctl fails with ENODEV (hot-unplug)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "rendertest.h"
#include "copro/copro_cmd.h"

/* ---- a submit sleeping in pool charging, its context destroyed ---- */

/* a stream of @bytes: one NOP packet padding a WORK of @ns */
static void big_stream(struct copro_cmd *c, uint32_t bytes, uint64_t ns)
{
	uint32_t n = bytes / 4 - (ns ? COPRO_LEN_WORK : 0);
	uint32_t *p = calloc(n, 4);

	copro_cmd_reset(c);
	if (ns)
		copro_cmd_work(c, ns);
	p[0] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, n);
	copro_cmd_raw(c, p, n);
	free(p);
}

struct racer {
	uint32_t ctx;
	int jobs;		/* submits to make */
	int ret;		/* the first failure, or the last result */
	pid_t tid;
	volatile int started;
};

static void *submitter(void *arg)
{
	struct racer *r = arg;
	struct copro_cmd c;

	copro_cmd_init(&c);
	big_stream(&c, COPRO_SUBMIT_MAX_CMDS, 0);
	r->tid = gettid();
	__atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < r->jobs; i++) {
		r->ret = copro_submit(&dev, r->ctx, 0, &c, NULL);
		if (r->ret)
			break;
	}
	copro_cmd_fini(&c);
	return NULL;
}

/* the thread sleeps in the driver (its wchan is one of copro's) */
static bool asleep_in_copro(pid_t tid, char *wchan, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(wchan, len, f))
		wchan[0] = 0;
	fclose(f);
	return strstr(wchan, "copro") != NULL;
}

int t_ctxrace(void)
{
	struct racer fill = { .ctx = ctx_new(COPRO_CTX_PRIORITY_NORMAL),
			      .jobs = 64 };
	struct racer victim = { .ctx = ctx_new(COPRO_CTX_PRIORITY_NORMAL),
				.jobs = 1 };
	pthread_t tf, tv;
	struct copro_cmd c;
	char wchan[128] = "";
	int i, ret;

	/*
	 * One job of a second of device time holds the engine; every job
	 * holds 64 KiB of the kernel pool until it retires, so the filler
	 * soon sleeps for pool memory (a file's or process's share, or the
	 * whole pool), and so does any other submit of this process.
	 */
	copro_cmd_init(&c);
	big_stream(&c, COPRO_SUBMIT_MAX_CMDS, 1000000000ull);
	ret = copro_submit(&dev, fill.ctx, 0, &c, NULL);
	if (ret)
		die("the long job", ret);
	pthread_create(&tf, NULL, submitter, &fill);
	while (!__atomic_load_n(&fill.started, __ATOMIC_ACQUIRE))
		usleep(1000);
	for (i = 0; i < 2000 && !asleep_in_copro(fill.tid, wchan,
						  sizeof(wchan)); i++)
		usleep(1000);
	check(i < 2000, "a submit sleeps in the driver once the pool is "
	      "held (wchan %s)", strtok(wchan, "\n") ?: "?");
	pthread_create(&tv, NULL, submitter, &victim);
	while (!__atomic_load_n(&victim.started, __ATOMIC_ACQUIRE))
		usleep(1000);
	for (i = 0; i < 2000 && !asleep_in_copro(victim.tid, wchan,
						  sizeof(wchan)); i++)
		usleep(1000);
	check(i < 2000, "a submit on a second context sleeps too (%s)",
	      strtok(wchan, "\n") ?: "?");
	/* the long job still runs: the victim is still asleep */
	ret = copro_ctx_free(&dev, victim.ctx);
	check(!ret, "its context destroyed meanwhile (%d)", ret);
	pthread_join(tv, NULL);
	/* review defect 1: it went on the destroyed context's entity */
	check(victim.ret == -ENOENT, "the sleeping submit fails with ENOENT "
	      "once it wakes (%d)", victim.ret);
	pthread_join(tf, NULL);
	check(!fill.ret, "the other context's submits all went in (%d)",
	      fill.ret);
	big_stream(&c, 64, 0);
	ret = copro_run(&dev, fill.ctx, 0, &c);
	check(!ret, "and its last job completes (%d)", ret);
	copro_cmd_fini(&c);
	copro_ctx_free(&dev, fill.ctx);
	copro_dev_close(&dev);
	/* the jobs free their memory after their fences signal */
	for (i = 0; i < 1000 && debugfs_value("copro_engines",
					      "pool_used_bytes: "); i++)
		usleep(1000);
	check(!debugfs_value("copro_engines", "pool_used_bytes: "),
	      "every job gave its pool memory back (%" PRIu64 " bytes held)",
	      debugfs_value("copro_engines", "pool_used_bytes: "));
	return done();
}

/* ---- GART entries while a PCI reset has the BARs off ---- */

static char reset_path[256];

static void *resetter(void *arg)
{
	int fd = open(reset_path, O_WRONLY);

	*(int *)arg = fd >= 0 && write(fd, "1", 1) == 1 ? 0 : -errno;
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int gem_close(uint32_t handle)
{
	struct drm_gem_close a = { .handle = handle };

	return drmIoctl(dev.fd, DRM_IOCTL_GEM_CLOSE, &a) ? -errno : 0;
}

#define GTT_PAGES	16

int t_gartreset(void)
{
	struct copro_bo a, b, d;
	struct copro_cmd c;
	pthread_t tr;
	uint64_t t0, t = 0;
	uint32_t ctx = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	uint32_t *w;
	int reset_ret = -1, i, bad = -1, ret;
	FILE *f;

	f = popen("ls -d /sys/bus/pci/drivers/copro/0000:* | head -n 1", "r");
	if (!f || !fgets(reset_path, sizeof(reset_path) - 8, f))
		die("no copro PCI device", -ENODEV);
	pclose(f);
	strtok(reset_path, "\n");
	/* a bus reset: the BARs are off for a second or more */
	strcat(reset_path, "/reset_method");
	f = fopen(reset_path, "w");
	if (f) {
		fputs("bus", f);
		fclose(f);
	}
	strcpy(strrchr(reset_path, '/'), "/reset");

	if (copro_bo_new_flags(&dev, GTT_PAGES * 4096, COPRO_GEM_GTT, &a) ||
	    copro_bo_map(&dev, &a))
		die("GTT buffer", -ENOMEM);
	memset(a.map, 0xaa, a.size);
	bo_new(2 * GTT_PAGES * 4096, &d);
	memset(d.map, 0, d.size);

	/* wait until the BARs are off (the registers read back nothing) */
	t0 = copro_gpu_time(&dev);
	pthread_create(&tr, NULL, resetter, &reset_ret);
	for (i = 0; i < 5000; i++) {
		t = copro_gpu_time(&dev);
		if (!t || t == ~0ull || t < t0)
			break;
		t0 = t;
		usleep(200);
	}
	check(i < 5000, "a reset under way: the registers read %#" PRIx64,
	      t);
	/* within it: one buffer freed, another created in its place */
	munmap(a.map, a.size);
	ret = gem_close(a.handle);
	/*
	 * Twice its size, in the same range of the GART (the first fit):
	 * entries the reset dropped would still name the freed pages, or be
	 * invalid, whatever pages the new buffer got.
	 */
	if (!ret)
		ret = copro_bo_new_flags(&dev, 2 * GTT_PAGES * 4096,
					 COPRO_GEM_GTT, &b);
	if (!ret)
		ret = copro_bo_map(&dev, &b);
	check(!ret, "a GTT buffer freed and another created (%d)", ret);
	if (ret)
		return done();
	w = b.map;
	for (i = 0; i < 2 * GTT_PAGES * 1024; i++)
		w[i] = 0xcc000000u | i;
	pthread_join(tr, NULL);
	check(!reset_ret, "the reset is over (%d)", reset_ret);

	/* the device reads the new buffer through its GART entries */
	copro_cmd_init(&c);
	copro_cmd_copy(&c, &d, 0, &b, 0, b.size);
	ret = copro_run(&dev, ctx, 0, &c);
	check(!ret, "a copy from it runs (%d)", ret);
	w = d.map;
	for (i = 0; i < 2 * GTT_PAGES * 1024; i++)
		if (w[i] != (0xcc000000u | i)) {
			bad = i;
			break;
		}
	/* review defect 9: the entries still named the freed pages */
	check(bad < 0, "the device read the new buffer's pages, not the "
	      "freed ones (word %d: %#x)", bad, bad < 0 ? 0 : w[bad]);
	copro_cmd_fini(&c);
	return done();
}

/* ---- the fuzzer ---- */

#define FUZZ_SLOTS	8
#define FUZZ_SPARES	6

struct fuzz_proc {
	int fd;			/* the shared DRM fd (replaced at times) */
	unsigned int ops;
	uint32_t ctx[FUZZ_SLOTS];	/* handles seen (may be stale) */
	uint32_t bo[FUZZ_SLOTS];
	uint64_t bo_size[FUZZ_SLOTS];
	unsigned int seed;
	int spare[FUZZ_SPARES];	/* opened while still root */
	unsigned int next_spare;
};

struct fuzz_thread {
	struct fuzz_proc *p;
	unsigned int seed;
	unsigned int errors;
};

static int fio(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

static void fuzz_submit(struct fuzz_proc *p, unsigned int *seed)
{
	uint32_t s = rand_r(seed) % FUZZ_SLOTS;
	uint32_t ctx = p->ctx[rand_r(seed) % FUZZ_SLOTS];
	uint64_t size = __atomic_load_n(&p->bo_size[s], __ATOMIC_RELAXED);
	uint32_t handle = __atomic_load_n(&p->bo[s], __ATOMIC_RELAXED);
	struct drm_copro_bo_ref ref = { .handle = handle,
					.flags = COPRO_BO_WRITE };
	uint32_t dw[16];
	uint32_t n = 0;
	struct drm_copro_submit a = { 0 };
	uint64_t addr = (uint64_t)0 << 32;	/* buffer 0, offset 0 */
	uint64_t fill = size ? (size < 4096 ? size : 4096) : 4;

	switch (rand_r(seed) % 4) {
	case 0:
		dw[n++] = COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL);
		dw[n++] = (uint32_t)addr;
		dw[n++] = addr >> 32;
		dw[n++] = (uint32_t)fill;
		dw[n++] = fill >> 32;
		dw[n++] = rand_r(seed);
		break;
	case 1:
		dw[n++] = COPRO_PKT_HDR(COPRO_OP_WORK, 0, COPRO_LEN_WORK);
		dw[n++] = (rand_r(seed) % 2000) * 1000;	/* < 2 ms */
		dw[n++] = 0;
		break;
	case 2:
		dw[n++] = COPRO_PKT_HDR(COPRO_OP_TIMESTAMP, 0,
					COPRO_LEN_TIMESTAMP);
		dw[n++] = (uint32_t)addr;
		dw[n++] = addr >> 32;
		break;
	default:
		dw[n++] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1);
		break;
	}
	a.ctx = ctx;
	a.engine = rand_r(seed) % 2;
	a.cmds = (uintptr_t)dw;
	a.cmds_size = n * 4;
	a.bo_count = 1;
	a.bos = (uintptr_t)&ref;
	fio(p->fd, DRM_IOCTL_COPRO_SUBMIT, &a);
}

/*
 * The GPU VM (DRM_IOCTL_COPRO_VM_BIND): map a slot's buffer (perhaps
 * closed, perhaps read-only, perhaps asynchronously after a sync object
 * nobody may ever signal) or unmap a range, at VAs that overlap each
 * other's, racing the jobs that use them.
 */
static void fuzz_bind(struct fuzz_proc *p, unsigned int *seed)
{
	uint32_t s = rand_r(seed) % FUZZ_SLOTS;
	uint64_t size = __atomic_load_n(&p->bo_size[s], __ATOMIC_RELAXED);
	struct drm_copro_vm_bind_op op = {
		.op = rand_r(seed) % 3 ? COPRO_VM_BIND_OP_MAP :
		      COPRO_VM_BIND_OP_UNMAP,
		.flags = rand_r(seed) % 4 ? 0 : COPRO_VM_BIND_READ_ONLY,
		.handle = __atomic_load_n(&p->bo[s], __ATOMIC_RELAXED),
		.va = (uint64_t)(rand_r(seed) % 64) << 16,
		.range = size ? size : 4096,
	};
	struct drm_copro_sync out = { 0 };
	struct drm_copro_vm_bind a = {
		.ops = (uintptr_t)&op,
		.op_count = 1,
	};
	struct drm_syncobj_create sc = { 0 };

	if (op.op == COPRO_VM_BIND_OP_UNMAP)
		op.handle = 0;
	if (rand_r(seed) % 3 == 0 &&
	    !fio(p->fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc)) {
		struct drm_syncobj_destroy sd = { .handle = sc.handle };

		out.handle = sc.handle;
		a.flags = COPRO_VM_BIND_ASYNC;
		a.out_syncs = (uintptr_t)&out;
		a.out_sync_count = 1;
		fio(p->fd, DRM_IOCTL_COPRO_VM_BIND, &a);
		fio(p->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
		return;
	}
	fio(p->fd, DRM_IOCTL_COPRO_VM_BIND, &a);
}

/* a job named by GPU VA: whatever the VM maps there (or a fault) */
static void fuzz_submit_va(struct fuzz_proc *p, unsigned int *seed)
{
	struct drm_copro_submit a = {
		.ctx = p->ctx[rand_r(seed) % FUZZ_SLOTS],
		.engine = rand_r(seed) % 2,
		.cmds = (uint64_t)(rand_r(seed) % 64) << 16,
		.cmds_size = 4 * (1 + rand_r(seed) % 64),
		.flags = COPRO_SUBMIT_VA,
	};

	fio(p->fd, DRM_IOCTL_COPRO_SUBMIT, &a);
}

static void *fuzz_thread(void *arg)
{
	struct fuzz_thread *t = arg;
	struct fuzz_proc *p = t->p;

	for (unsigned int i = 0; i < p->ops; i++) {
		unsigned int op = rand_r(&t->seed) % 100;
		uint32_t s = rand_r(&t->seed) % FUZZ_SLOTS;
		int fd = p->fd;

		if (op < 15) {
			struct drm_copro_ctx_create a = {
				.priority = rand_r(&t->seed) % 2,
				/* a third on the file's GPU VM */
				.flags = rand_r(&t->seed) % 3 ? 0 :
					 COPRO_CTX_CREATE_VM,
			};

			if (!fio(fd, DRM_IOCTL_COPRO_CTX_CREATE, &a))
				__atomic_store_n(&p->ctx[s], a.handle,
						 __ATOMIC_RELAXED);
		} else if (op < 30) {
			struct drm_copro_ctx_destroy a = {
				.handle = __atomic_load_n(&p->ctx[s],
							  __ATOMIC_RELAXED),
			};

			fio(fd, DRM_IOCTL_COPRO_CTX_DESTROY, &a);
		} else if (op < 42) {
			struct drm_copro_gem_create a = {
				.size = 4096 * (1 + rand_r(&t->seed) % 16),
				.flags = rand_r(&t->seed) % 2 ?
					 COPRO_GEM_GTT : 0,
			};

			if (!fio(fd, DRM_IOCTL_COPRO_GEM_CREATE, &a)) {
				__atomic_store_n(&p->bo_size[s], a.size,
						 __ATOMIC_RELAXED);
				__atomic_store_n(&p->bo[s], a.handle,
						 __ATOMIC_RELAXED);
			}
		} else if (op < 50) {
			struct drm_gem_close a = {
				.handle = __atomic_load_n(&p->bo[s],
							  __ATOMIC_RELAXED),
			};

			fio(fd, DRM_IOCTL_GEM_CLOSE, &a);
		} else if (op < 60) {
			fuzz_bind(p, &t->seed);
		} else if (op < 66) {
			fuzz_submit_va(p, &t->seed);
		} else if (op < 90) {
			fuzz_submit(p, &t->seed);
		} else if (op < 97) {
			struct drm_copro_ctx_query a = {
				.handle = __atomic_load_n(&p->ctx[s],
							  __ATOMIC_RELAXED),
			};

			fio(fd, DRM_IOCTL_COPRO_CTX_QUERY, &a);
		} else {
			/* the file closed under the other threads: a spare
			 * one takes its number (its handles are gone)
			 */
			unsigned int k = __atomic_fetch_add(&p->next_spare, 1,
							    __ATOMIC_RELAXED);

			if (k < FUZZ_SPARES)
				dup2(p->spare[k], fd);
		}
	}
	return NULL;
}

static int fuzz_child(unsigned int seed, int threads, unsigned int ops)
{
	struct fuzz_proc p = { .ops = ops, .seed = seed };
	struct fuzz_thread t[16];
	pthread_t th[16];

	p.fd = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
	if (p.fd < 0)
		return 3;
	for (int i = 0; i < FUZZ_SPARES; i++) {
		p.spare[i] = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
		if (p.spare[i] < 0)
			return 3;
	}
	/* unprivileged from here (nobody), as any render client */
	if (setgid(65534) || setuid(65534))
		return 4;
	for (int i = 0; i < threads; i++) {
		t[i] = (struct fuzz_thread){ .p = &p,
					     .seed = seed * 131 + i };
		pthread_create(&th[i], NULL, fuzz_thread, &t[i]);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	return 0;
}

int t_fuzz(unsigned int seed, int procs, int threads, unsigned int ops)
{
	pid_t pids[16];
	int status, good = 0;
	uint64_t on, held;

	if (procs > 16)
		procs = 16;
	if (threads > 16)
		threads = 16;
	copro_dev_close(&dev);
	printf("# seed %u: %d processes x %d threads x %u operations\n",
	       seed, procs, threads, ops);
	for (int i = 0; i < procs; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(fuzz_child(seed * 1000 + i, threads, ops));
	}
	for (int i = 0; i < procs; i++) {
		waitpid(pids[i], &status, 0);
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			good++;
		else
			printf("# process %d: status %#x\n", i, status);
	}
	check(good == procs, "%d of %d fuzzing processes finished", good,
	      procs);
	/* the files are closed: every job retired or dropped, every
	 * buffer and its pages gone
	 */
	for (int i = 0; i < 2000; i++) {
		on = debugfs_value("copro_engines", "on_ring ");
		held = debugfs_value("copro_engines", "held ");
		if (!on && !held && !debugfs_value("copro_engines",
						   "pool_used_bytes: ") &&
		    !debugfs_value("copro_engines", "gart_used_pages: ") &&
		    !debugfs_value("copro_engines",
				   "limit vram_pinned_bytes: used "))
			break;
		usleep(1000);
	}
	check(!on && !held, "no job left on the ring or held");
	check(!debugfs_value("copro_engines", "pool_used_bytes: "),
	      "the kernel pool is free");
	check(!debugfs_value("copro_engines", "gart_used_pages: "),
	      "no GART entry left");
	/* the VMs went with their files: no mapping, table or save area
	 * holds VRAM, no context id is left
	 */
	check(!debugfs_value("copro_engines", "limit vram_pinned_bytes: used ") &&
	      !debugfs_value("copro_engines", "limit contexts: used "),
	      "no VRAM pinned by a VM and no context left (%" PRIu64
	      " bytes, %" PRIu64 " contexts)",
	      debugfs_value("copro_engines", "limit vram_pinned_bytes: used "),
	      debugfs_value("copro_engines", "limit contexts: used "));
	return done();
}

/* ---- a client while the device goes away ---- */

int t_until_gone(void)
{
	struct copro_bo bo;
	struct copro_cmd c;
	uint32_t ctx;
	int ret, n = 0;

	ret = copro_ctx_new(&dev, COPRO_CTX_PRIORITY_NORMAL, &ctx);
	if (!ret)
		ret = copro_bo_new(&dev, 1 << 20, &bo);
	if (ret) {
		printf("# setup: %d\n", ret);
		return 2;
	}
	copro_cmd_init(&c);
	copro_cmd_fill(&c, &bo, 0, 1 << 20, 0x1234);
	copro_cmd_work(&c, 2000000);
	/* a bounded loop: 20 s of device work at most */
	for (n = 0; n < 10000; n++) {
		ret = copro_run(&dev, ctx, 0, &c);
		if (ret)
			break;
	}
	printf("# %d jobs, then %s\n", n, strerror(-ret));
	copro_cmd_fini(&c);
	copro_dev_close(&dev);
	return ret == -ENODEV ? 0 : 1;
}
