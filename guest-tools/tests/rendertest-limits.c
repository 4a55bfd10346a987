// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest limits WHAT: every shared pool of the driver has a
 * bound per process and a reserve (review defects 4, 11 and 12). A
 * hostile process takes all it can of one pool; then another process's
 * job, context or buffer must still succeed, in bounded device time.
 *
 *   pool      five DRM files and five threads fill the kernel job pool
 *             with jobs held back by a long job's fence (defect 4)
 *   clone     files opened by short-lived clone(CLONE_FILES|CLONE_VM)
 *             children, 8 long jobs on each (defect 11)
 *   contexts  as many contexts as the driver gives (defect 12)
 *   gart      as many GTT buffers as the driver gives (defect 12)
 *   vram      jobs held back by a long job's fence, pinning VRAM buffers
 *             (defect 12)
 *
 * The hostile reports its progress in shared memory; it is done when that
 * stops moving for 300 ms of the guest's clock (virtual under -icount),
 * whether it failed or sleeps in the kernel. A watchdog kills it after 4 s
 * (virtual) so that a victim kept waiting fails instead of hanging.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "rendertest.h"
#include "copro/copro_cmd.h"

#define LIM_FILES	5
#define LIM_CLONES	8
#define GATE_NS		1500000000ull	/* the long job holding others back */
#define CLONE_WORK_NS	500000000ull

struct shared {
	volatile uint64_t progress;	/* hostile's successful operations */
	volatile int last_err;
};

static struct shared *sh;

/* Wait until the hostile's progress stopped moving for @ms. */
static uint64_t settled(unsigned int ms)
{
	uint64_t last = sh->progress, since = mono_ns();

	while (mono_ns() - since < ms * 1000000ull) {
		usleep(5000);
		if (sh->progress != last) {
			last = sh->progress;
			since = mono_ns();
		}
	}
	return last;
}

/* the hostile's own waits are 100 ms: the victim waits longer */
static uint64_t hostile_settled(void)
{
	return settled(300);
}

static pid_t watchdog(pid_t victim)
{
	pid_t w = fork();

	if (!w) {
		sleep(4);
		kill(victim, SIGKILL);
		_exit(0);
	}
	return w;
}

static void reap(pid_t hostile, pid_t dog)
{
	kill(hostile, SIGKILL);
	waitpid(hostile, NULL, 0);
	kill(dog, SIGKILL);
	waitpid(dog, NULL, 0);
}

static uint64_t param(const char *name)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/copro/parameters/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* The victim: one small FILL, its device time from submit to done. */
static int victim_fill(uint64_t *ns, struct copro_bo *b)
{
	uint32_t ctx;
	struct copro_cmd c;
	uint64_t t0;
	int ret = copro_ctx_new(&dev, COPRO_CTX_PRIORITY_NORMAL, &ctx);

	if (ret)
		return ret;
	copro_cmd_init(&c);
	copro_cmd_fill(&c, b, 0, b->size, 0x71c7);
	t0 = copro_gpu_time(&dev);
	ret = copro_run(&dev, ctx, 0, &c);
	*ns = copro_gpu_time(&dev) - t0;
	copro_cmd_fini(&c);
	copro_ctx_free(&dev, ctx);
	return ret;
}

/* A job of @work_ns on its own context; its fence as a sync_file. */
static int gate_fd(struct copro_dev *d, uint64_t work_ns)
{
	struct copro_submit_opts o = { 0 };
	struct copro_cmd c;
	uint32_t ctx;
	int fd = -1;

	if (copro_ctx_new(d, COPRO_CTX_PRIORITY_NORMAL, &ctx))
		return -1;
	copro_cmd_init(&c);
	copro_cmd_work(&c, work_ns);
	o.fence_fd = &fd;
	if (copro_submit(d, ctx, 0, &c, &o))
		fd = -1;
	copro_cmd_fini(&c);
	return fd;
}

/* a sync object of @d holding the fence of sync_file @fd */
static uint32_t gate_syncobj(struct copro_dev *d, int fd)
{
	uint32_t h = 0;

	if (drmSyncobjCreate(d->fd, 0, &h) ||
	    drmSyncobjImportSyncFile(d->fd, h, fd))
		return 0;
	return h;
}

/* ---- defect 4: the job pool ---- */

struct filler {
	struct copro_dev d;
	uint32_t ctx, gate;
	uint32_t ndw;		/* stream size */
};

static void *pool_filler(void *arg)
{
	struct filler *f = arg;
	struct drm_copro_sync in = { .handle = f->gate };
	struct copro_submit_opts o = { .in = &in, .nin = 1 };
	struct copro_cmd c;
	uint32_t *nop = calloc(f->ndw, 4);

	nop[0] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, f->ndw);
	copro_cmd_init(&c);
	copro_cmd_raw(&c, nop, f->ndw);
	for (int i = 0; i < 20000; i++) {
		int ret = copro_submit(&f->d, f->ctx, 0, &c, &o);

		if (ret) {
			sh->last_err = ret;
			break;
		}
		__atomic_add_fetch(&sh->progress, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int hostile_pool(void)
{
	struct filler f[LIM_FILES];
	pthread_t t[LIM_FILES];
	int gate;

	for (int i = 0; i < LIM_FILES; i++) {
		if (copro_dev_open(&f[i].d, NULL))
			return 1;
		if (!i)
			gate = gate_fd(&f[0].d, GATE_NS);
		if (gate < 0 || copro_ctx_new(&f[i].d, COPRO_CTX_PRIORITY_NORMAL,
					      &f[i].ctx))
			return 1;
		f[i].gate = gate_syncobj(&f[i].d, gate);
		/* 64 KiB streams, and the last file the victim's size */
		f[i].ndw = i < LIM_FILES - 1 ? 16384 : 1;
	}
	for (int i = 0; i < LIM_FILES - 1; i++)
		pthread_create(&t[i], NULL, pool_filler, &f[i]);
	/* then small jobs: they leave no hole the victim's job fits in */
	settled(100);
	pthread_create(&t[LIM_FILES - 1], NULL, pool_filler, &f[LIM_FILES - 1]);
	for (int i = 0; i < LIM_FILES; i++)
		pthread_join(t[i], NULL);
	pause();
	return 0;
}

static void t_pool(void)
{
	uint64_t bound = param("proc_pool_kib") << 10, ns = 0, jobs;
	uint64_t used;
	struct copro_bo b;
	pid_t h, dog;
	int ret;

	bo_new(4096, &b);
	h = fork();
	if (!h)
		_exit(hostile_pool());
	jobs = hostile_settled();
	used = debugfs_value("copro_engines", "pool_used_bytes: ");
	dog = watchdog(h);
	ret = victim_fill(&ns, &b);
	printf("# hostile: %" PRIu64 " jobs queued through %d files, pool %"
	       PRIu64 " KiB in use; victim's FILL done %.2f ms after its "
	       "submit\n", jobs, LIM_FILES, used >> 10, ns / 1e6);
	check(bound && used <= bound,
	      "one process (%d files, %d threads) holds at most its bound of "
	      "the job pool (%" PRIu64 " KiB: %" PRIu64 " KiB)", LIM_FILES,
	      LIM_FILES, bound >> 10, used >> 10);
	check(!ret && ns < 50000000ull && all_u32(b.map, 4096, 0x71c7),
	      "another process's job is admitted and done within 50 ms (%.2f "
	      "ms, %s)", ns / 1e6, strerror(-ret));
	reap(h, dog);
}

/* ---- defect 11: files of clone() children ---- */

static volatile int clone_fd;

static int clone_open(void *arg)
{
	(void)arg;
	clone_fd = open("/dev/dri/renderD128", O_RDWR);
	return 0;
}

static int hostile_clone(void)
{
	static char stack[LIM_CLONES][16384];
	struct copro_cmd c;

	copro_cmd_init(&c);
	copro_cmd_work(&c, CLONE_WORK_NS);
	for (int i = 0; i < LIM_CLONES; i++) {
		struct copro_dev d = dev;
		uint32_t ctx;
		pid_t p;

		/* a short-lived child opens the file in the shared table */
		clone_fd = -1;
		p = clone(clone_open, stack[i] + sizeof(stack[i]),
			  CLONE_FILES | CLONE_VM | SIGCHLD, NULL);
		if (p < 0 || waitpid(p, NULL, 0) != p || clone_fd < 0)
			return 1;
		d.fd = clone_fd;
		if (copro_ctx_new(&d, COPRO_CTX_PRIORITY_NORMAL, &ctx))
			return 1;
		for (int j = 0; j < 8; j++) {
			if (copro_submit(&d, ctx, 0, &c, NULL))
				return 1;
			__atomic_add_fetch(&sh->progress, 1, __ATOMIC_RELAXED);
		}
	}
	pause();
	return 0;
}

static void t_clone(void)
{
	uint64_t per_proc = debugfs_value("copro_engines", "proc_jobs: ");
	uint64_t ring, ns = 0, jobs;
	struct copro_bo b;
	pid_t h, dog;
	int ret;

	bo_new(4096, &b);
	h = fork();
	if (!h)
		_exit(hostile_clone());
	jobs = hostile_settled();
	ring = debugfs_value("copro_engines", "on_ring ") +
	       debugfs_value("copro_engines", "held ");
	dog = watchdog(h);
	ret = victim_fill(&ns, &b);
	printf("# hostile: %" PRIu64 " jobs of %llu ms through %d files of "
	       "clone children, %" PRIu64 " on the ring; victim's FILL done "
	       "%.2f ms after its submit\n", jobs, CLONE_WORK_NS / 1000000,
	       LIM_CLONES, ring, ns / 1e6);
	check(per_proc && ring <= per_proc,
	      "the process has at most proc_jobs (%" PRIu64 ") jobs on the ring "
	      "through %d files its clone children opened (%" PRIu64 ")",
	      per_proc, LIM_CLONES, ring);
	check(!ret && ns < 200000000ull && all_u32(b.map, 4096, 0x71c7),
	      "another process's job is done within 200 ms (%.2f ms, %s)",
	      ns / 1e6, strerror(-ret));
	reap(h, dog);
}

/* ---- defect 12: context ids ---- */

static int hostile_contexts(void)
{
	uint32_t ctx;
	int ret;

	while (!(ret = copro_ctx_new(&dev, COPRO_CTX_PRIORITY_LOW, &ctx)))
		__atomic_add_fetch(&sh->progress, 1, __ATOMIC_RELAXED);
	sh->last_err = ret;
	pause();
	return 0;
}

static void t_contexts(void)
{
	uint64_t bound = param("proc_contexts"), n;
	uint32_t ctx = 0;
	pid_t h, dog;
	int ret;

	h = fork();
	if (!h)
		_exit(hostile_contexts());
	n = hostile_settled();
	dog = watchdog(h);
	ret = copro_ctx_new(&dev, COPRO_CTX_PRIORITY_NORMAL, &ctx);
	printf("# hostile created %" PRIu64 " contexts, then %s\n", n,
	       strerror(-sh->last_err));
	check(bound && n <= bound && sh->last_err == -ENOSPC,
	      "one process gets at most proc_contexts (%" PRIu64 ") contexts, "
	      "then ENOSPC (%" PRIu64 ")", bound, n);
	check(!ret, "another process still creates a context (%s)",
	      strerror(-ret));
	if (!ret)
		copro_ctx_free(&dev, ctx);
	reap(h, dog);
}

/* ---- defect 12: GART entries (pinned TT pages) ---- */

static int hostile_gart(void)
{
	struct copro_bo b;
	int ret;

	while (!(ret = copro_bo_new_flags(&dev, 16 << 20, COPRO_GEM_GTT, &b)))
		__atomic_add_fetch(&sh->progress, 1, __ATOMIC_RELAXED);
	sh->last_err = ret;
	pause();
	return 0;
}

static void t_gart(void)
{
	uint64_t bound = param("proc_gart_mib"), n, pages;
	struct copro_bo b;
	pid_t h, dog;
	int ret;

	h = fork();
	if (!h)
		_exit(hostile_gart());
	n = hostile_settled();
	pages = debugfs_value("copro_engines", "gart_used_pages: ");
	dog = watchdog(h);
	ret = copro_bo_new_flags(&dev, 1 << 20, COPRO_GEM_GTT, &b);
	printf("# hostile has %" PRIu64 " GTT buffers of 16 MiB (%" PRIu64
	       " MiB mapped), then %s\n", n, pages >> 8,
	       strerror(-sh->last_err));
	check(bound && n * 16 <= bound,
	      "one process maps at most proc_gart_mib (%" PRIu64 " MiB) of "
	      "the GART (%" PRIu64 " MiB)", bound, n * 16);
	check(!ret, "another process still gets a 1 MiB GTT buffer (%s)",
	      strerror(-ret));
	if (!ret)
		copro_bo_free(&dev, &b);
	reap(h, dog);
}

/* ---- defect 12: VRAM pinned by queued jobs ---- */

static void *vram_pinner(void *arg)
{
	struct filler *f = arg;
	struct drm_copro_sync in = { .handle = f->gate };
	struct copro_submit_opts o = { .in = &in, .nin = 1 };
	struct copro_bo b[4];
	struct copro_cmd c;

	copro_cmd_init(&c);
	for (int i = 0; i < 64; i++) {
		int ret = 0;

		copro_cmd_reset(&c);
		for (int j = 0; j < 4 && !ret; j++) {
			ret = copro_bo_new(&f->d, 1 << 20, &b[j]);
			if (!ret)
				copro_cmd_fill(&c, &b[j], 0, 4096, i);
		}
		if (!ret)
			ret = copro_submit(&f->d, f->ctx, 0, &c, &o);
		if (ret) {
			sh->last_err = ret;
			break;
		}
		__atomic_add_fetch(&sh->progress, 4, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int hostile_vram(void)
{
	struct filler f = { .d = dev };
	pthread_t t;
	int gate = gate_fd(&dev, GATE_NS);

	if (gate < 0 || copro_ctx_new(&dev, COPRO_CTX_PRIORITY_NORMAL, &f.ctx))
		return 1;
	f.gate = gate_syncobj(&dev, gate);
	/* a thread: past its bound the submit sleeps */
	pthread_create(&t, NULL, vram_pinner, &f);
	pthread_join(t, NULL);
	pause();
	return 0;
}

static void t_vram(void)
{
	uint64_t pct = param("proc_vram_pin_pct"), vram = 0, mib, ns = 0;
	struct copro_bo b;
	pid_t h, dog;
	int ret;

	copro_param(&dev, COPRO_PARAM_VRAM_SIZE, &vram);
	h = fork();
	if (!h)
		_exit(hostile_vram());
	mib = hostile_settled();
	dog = watchdog(h);
	ret = copro_bo_new(&dev, 4 << 20, &b);
	if (!ret)
		ret = copro_bo_map(&dev, &b);
	if (!ret)
		ret = victim_fill(&ns, &b);
	printf("# hostile's queued jobs pin %" PRIu64 " MiB of VRAM (%" PRIu64
	       " MiB), then %s; victim's 4 MiB FILL %.2f ms\n", mib,
	       vram >> 20, strerror(-sh->last_err), ns / 1e6);
	check(pct && mib <= (vram >> 20) * pct / 100,
	      "one process's queued jobs pin at most proc_vram_pin_pct (%"
	      PRIu64 " %%) of VRAM (%" PRIu64 " MiB)", pct, mib);
	check(!ret && ns < 50000000ull && all_u32(b.map, 4 << 20, 0x71c7),
	      "another process's FILL into a new 4 MiB VRAM buffer is done "
	      "within 50 ms (%.2f ms, %s)", ns / 1e6, strerror(-ret));
	reap(h, dog);
}

int t_limits(const char *what)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap", -errno);
	if (!strcmp(what, "pool"))
		t_pool();
	else if (!strcmp(what, "clone"))
		t_clone();
	else if (!strcmp(what, "contexts"))
		t_contexts();
	else if (!strcmp(what, "gart"))
		t_gart();
	else if (!strcmp(what, "vram"))
		t_vram();
	else
		die("limits: pool|clone|contexts|gart|vram", -EINVAL);
	return done();
}
