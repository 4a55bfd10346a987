// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest: priorities with preemption and time slices
 * (preempt), hang recovery (hang).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "rendertest.h"
#include "copro/copro_cmd.h"
#include "copro/copro_regs.h"

/* ---- preemption ---- */

/* the low-priority job: WORK between writes of every kind */
static void low_stream(struct copro_cmd *c, struct copro_bo *a,
		       struct copro_bo *img, struct copro_bo *ts)
{
	copro_cmd_timestamp(c, ts, 0);
	copro_cmd_fill(c, a, 0, 4 << 20, 0x10203040);
	copro_cmd_work(c, 10000000);
	copro_cmd_target(c, 2, img, 0, 2048, 512, 512, COPRO_FMT_XRGB8888);
	copro_cmd_rect(c, 2, 0, 0, 512, 512, 0x00336699);
	copro_cmd_work(c, 10000000);
	copro_cmd_copy(c, a, 4 << 20, a, 0, 2 << 20);
	copro_cmd_rect(c, 2, 100, 100, 200, 300, 0x00ff0000);
	copro_cmd_work(c, 10000000);
	copro_cmd_fill(c, a, 1 << 20, 1 << 20, 0x77777777);
	copro_cmd_timestamp(c, ts, 8);
}

static void high_stream(struct copro_cmd *c, struct copro_bo *b, int i,
			struct copro_bo *ts)
{
	copro_cmd_timestamp(c, ts, 64 + 16 * i);
	copro_cmd_fill(c, b, i * 65536, 65536, 0xab000000 + i);
	copro_cmd_work(c, 200000);
	copro_cmd_timestamp(c, ts, 72 + 16 * i);
}

int t_preempt(void)
{
	struct copro_bo a, img, b, ts, a2, img2, b2;
	struct copro_cmd c;
	uint32_t lo = ctx_new(COPRO_CTX_PRIORITY_LOW);
	uint32_t hi = ctx_new(COPRO_CTX_PRIORITY_HIGH);
	struct drm_copro_sync s = { 0 };
	struct copro_submit_opts o = { .out = &s, .nout = 1 };
	uint64_t *t, p0, lat_max = 0, sub[8];
	int nhigh = 8;
	bool order = true;

	bo_new(8 << 20, &a);
	bo_new(512 * 512 * 4, &img);
	bo_new(nhigh * 65536, &b);
	bo_new(4096, &ts);
	bo_new(8 << 20, &a2);
	bo_new(512 * 512 * 4, &img2);
	bo_new(nhigh * 65536, &b2);
	t = ts.map;
	copro_cmd_init(&c);
	copro_syncobj_new(&dev, &s.handle);
	if (dev.preempt_caps != COPRO_PREEMPT_MID_COMMAND)
		printf("# preemption granularity %u (not mid-command)\n",
		       dev.preempt_caps);

	/* the reference: each alone, uninterrupted */
	memset(a2.map, 0, a2.size);
	memset(img2.map, 0, img2.size);
	memset(b2.map, 0, b2.size);
	low_stream(&c, &a2, &img2, &ts);
	copro_run(&dev, lo, 0, &c);
	for (int i = 0; i < nhigh; i++) {
		copro_cmd_reset(&c);
		high_stream(&c, &b2, i, &ts);
		copro_run(&dev, hi, 0, &c);
	}
	printf("# the low job alone: %" PRIu64 " ns\n", t[1] - t[0]);

	/*
	 * Now together: high-priority jobs every 2 ms into the low one.
	 * Submit-to-start includes the submit ioctl's own CPU time, which
	 * -icount counts as time: slub_debug's poisoning and red zones (every
	 * linux test boots with them) make it about 0.3 ms longer.
	 */
	memset(a.map, 0, a.size);
	memset(img.map, 0, img.size);
	memset(b.map, 0, b.size);
	memset(ts.map, 0, 4096);
	p0 = debugfs_value("copro_engines", "preemptions ");
	copro_cmd_reset(&c);
	low_stream(&c, &a, &img, &ts);
	copro_submit(&dev, lo, 0, &c, &o);
	for (int i = 0; i < nhigh; i++) {
		uint64_t until = copro_gpu_time(&dev) + 2000000;
		struct drm_copro_sync hs = { 0 };
		struct copro_submit_opts ho = { .out = &hs, .nout = 1 };

		while (copro_gpu_time(&dev) < until)
			usleep(500);
		copro_syncobj_new(&dev, &hs.handle);
		copro_cmd_reset(&c);
		high_stream(&c, &b, i, &ts);
		sub[i] = copro_gpu_time(&dev);
		copro_submit(&dev, hi, 0, &c, &ho);
		copro_syncobj_wait(&dev, hs.handle, 0, 10000000000ll);
		copro_syncobj_free(&dev, hs.handle);
	}
	copro_syncobj_wait(&dev, s.handle, 0, 10000000000ll);
	for (int i = 0; i < nhigh; i++) {
		uint64_t start = t[8 + 2 * i], end = t[9 + 2 * i];

		if (start - sub[i] > lat_max)
			lat_max = start - sub[i];
		if (!(start > t[0] && end < t[1]))
			order = false;
	}
	printf("# low job with %d high-priority jobs into it: %" PRIu64
	       " ns; submit-to-start max %" PRIu64 " ns\n", nhigh,
	       t[1] - t[0], lat_max);
	check(order, "every high-priority job ran inside the low one's span");
	check(debugfs_value("copro_engines", "preemptions ") - p0 >= (uint64_t)nhigh,
	      "the engine was preempted for each (%" PRIu64 ")",
	      debugfs_value("copro_engines", "preemptions ") - p0);
	check(lat_max < 1500000,
	      "submit-to-start of a high-priority job under 1.5 ms of device time");
	check(!memcmp(a.map, a2.map, a.size) && !memcmp(img.map, img2.map, img.size),
	      "the preempted-and-resumed low job's output equals its "
	      "uninterrupted run, byte for byte");
	check(!memcmp(b.map, b2.map, b.size),
	      "the high-priority jobs' output equals theirs alone");

	/* time slices among one priority: a short job is not stuck behind
	 * a long one of another context */
	{
		uint32_t n1 = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
		uint32_t n2 = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
		uint64_t slice = debugfs_value("copro_engines", "timeslice_ms: ");
		uint64_t s0 = debugfs_value("copro_engines", "slices ");
		uint64_t bsub;

		memset(ts.map, 0, 4096);
		copro_cmd_reset(&c);
		copro_cmd_timestamp(&c, &ts, 0);
		copro_cmd_work(&c, 50000000);
		copro_cmd_fill(&c, &a, 0, 1 << 20, 0x51c3);
		copro_cmd_timestamp(&c, &ts, 8);
		copro_submit(&dev, n1, 0, &c, &o);
		while (copro_gpu_time(&dev) < t[0] + 2000000 || !t[0])
			usleep(500);
		copro_cmd_reset(&c);
		copro_cmd_timestamp(&c, &ts, 16);
		copro_cmd_fill(&c, &b, 0, 65536, 0x51c4);
		bsub = copro_gpu_time(&dev);
		copro_run(&dev, n2, 0, &c);
		copro_syncobj_wait(&dev, s.handle, 0, 10000000000ll);
		printf("# time slice %" PRIu64 " ms: the short job started %.2f ms "
		       "after its submit, the long one took %.2f ms\n", slice,
		       (t[2] - bsub) / 1e6, (t[1] - t[0]) / 1e6);
		check(slice && t[2] - bsub < (slice + 1) * 1000000 && t[2] < t[1],
		      "a short job of another NORMAL context starts within one "
		      "time slice, inside the long job's span");
		check(debugfs_value("copro_engines", "slices ") > s0 &&
		      all_u32(a.map, 1 << 20, 0x51c3) &&
		      all_u32(b.map, 65536, 0x51c4),
		      "the sliced job resumed and both wrote the right bytes");
	}
	copro_cmd_fini(&c);
	return done();
}

/* ---- hangs (x-fault-injection=on) ---- */

static void inject(int engine, unsigned int v)
{
	FILE *f = fopen("/sys/kernel/debug/dri/0/copro_inject", "w");

	if (f) {
		fprintf(f, "%d %u\n", engine, v);
		fclose(f);
	}
}

int t_hang(void)
{
	struct copro_bo x, y;
	struct copro_cmd c;
	uint32_t good = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	uint32_t bad = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	struct drm_copro_ctx_query q;
	uint64_t timeout = 0;
	int fd_bad, fd_good, ret;
	struct copro_submit_opts o = { .fence_fd = &fd_bad };

	copro_param(&dev, COPRO_PARAM_JOB_TIMEOUT_MS, &timeout);
	printf("# job timeout %" PRIu64 " ms\n", timeout);
	bo_new(65536, &x);
	bo_new(65536, &y);
	copro_cmd_init(&c);

	/* a healthy job longer than the timeout: preempted, resumed, done */
	copro_cmd_fill(&c, &x, 0, 4, 1);
	copro_cmd_work(&c, timeout * 2500000);
	copro_cmd_fill(&c, &x, 4, 4, 2);
	{
		int ffd = -1;
		struct copro_submit_opts fo = { .fence_fd = &ffd };
		struct pollfd p;

		ret = copro_submit(&dev, good, 0, &c, &fo);
		p = (struct pollfd){ ffd, POLLIN, 0 };
		poll(&p, 1, 30000);
		printf("# last job: submit %d, fence status %d\n", ret,
		       copro_fence_status(ffd));
		close(ffd);
	}
	copro_ctx_query(&dev, good, &q);
	check(!ret && ((uint32_t *)x.map)[1] == 2 && !q.flags,
	      "a job of 2.5 timeouts completes, its context not banned");
	check(debugfs_value("copro_engines", "tdr_preempts ") >= 1 &&
	      debugfs_value("copro_engines", "engine0: resets ") == 0,
	      "the timeout asked for a preemption, which it honoured: no reset");

	/* a hung job: its context is banned, the innocent's job runs */
	inject(0, COPRO_INJECT_HANG);
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &x, 0, 65536, 0xbad);
	copro_submit(&dev, bad, 0, &c, &o);
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &y, 0, 65536, 0x900d);
	o.fence_fd = &fd_good;
	copro_submit(&dev, good, 0, &c, &o);
	{
		struct pollfd p = { fd_good, POLLIN, 0 };

		poll(&p, 1, 30000);
	}
	check(copro_fence_status(fd_bad) < 0,
	      "the hung job's fence signals an error (%d)",
	      copro_fence_status(fd_bad));
	check(copro_fence_status(fd_good) == 1 && all_u32(y.map, 65536, 0x900d),
	      "the innocent job queued behind it ran again and completed");
	copro_ctx_query(&dev, bad, &q);
	check(q.flags & COPRO_CTX_BANNED, "the guilty context is banned");
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &x, 0, 4, 1);
	ret = copro_submit(&dev, bad, 0, &c, NULL);
	check(ret == -ECANCELED, "its next submit fails with ECANCELED (%d)", ret);
	copro_ctx_query(&dev, good, &q);
	check(!q.flags, "the innocent context is not");
	check(debugfs_value("copro_engines", "engine0: resets ") == 1,
	      "one engine reset");
	close(fd_bad);
	close(fd_good);

	/* an injected fault: the same, from the interrupt */
	bad = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	inject(0, COPRO_INJECT_FAULT_NEXT);
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &x, 0, 4, 1);
	ret = copro_run(&dev, bad, 0, &c);
	copro_ctx_query(&dev, bad, &q);
	check(q.flags & COPRO_CTX_BANNED,
	      "a faulting context is banned (FAULT_NEXT)");
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &y, 0, 65536, 0x900e);
	check(!copro_run(&dev, good, 0, &c) && all_u32(y.map, 65536, 0x900e),
	      "the engine runs the innocent's next job");

	/* a lost interrupt: the timeout finds the job done */
	inject(0, COPRO_INJECT_DROP_IRQ);
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &y, 0, 65536, 0x900f);
	check(!copro_run(&dev, good, 0, &c) && all_u32(y.map, 65536, 0x900f),
	      "a job whose DMA_DONE was dropped completes at the timeout");

	/* a WAIT for a value nobody writes: preemptible, yet hung */
	{
		uint32_t w = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
		struct copro_bo sem;
		int wfd = -1;
		struct copro_submit_opts wo = { .fence_fd = &wfd };
		struct pollfd p;

		bo_new(4096, &sem);
		memset(sem.map, 0, 4096);
		copro_cmd_reset(&c);
		copro_cmd_wait(&c, &sem, 0, 1);
		copro_submit(&dev, w, 0, &c, &wo);
		p = (struct pollfd){ wfd, POLLIN, 0 };
		poll(&p, 1, 30000);
		copro_ctx_query(&dev, w, &q);
		check(copro_fence_status(wfd) == -ETIME &&
		      (q.flags & COPRO_CTX_BANNED),
		      "a job blocked in a WAIT at two timeouts is hung: ETIME, "
		      "banned (%d)", copro_fence_status(wfd));
		close(wfd);
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &y, 0, 65536, 0x9011);
		check(!copro_run(&dev, good, 0, &c) &&
		      all_u32(y.map, 65536, 0x9011),
		      "and the innocent's next job runs");
	}

	/*
	 * Review defect 10: three WAITs nobody satisfies counted as hangs
	 * and reset the whole device. Each is its own context's problem:
	 * banned and switched out by a preemption, no engine or device
	 * reset.
	 */
	{
		uint64_t resets = debugfs_value("copro_engines", "resets ");
		struct copro_bo sem;
		int etime = 0, st[3];

		bo_new(4096, &sem);
		memset(sem.map, 0, 4096);
		for (int i = 0; i < 3; i++) {
			uint32_t w = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
			int wfd = -1;
			struct copro_submit_opts wo = { .fence_fd = &wfd };
			struct pollfd p;

			copro_cmd_reset(&c);
			copro_cmd_wait(&c, &sem, 0, 1);
			copro_submit(&dev, w, 0, &c, &wo);
			p = (struct pollfd){ wfd, POLLIN, 0 };
			poll(&p, 1, 30000);
			st[i] = copro_fence_status(wfd);
			etime += st[i] == -ETIME;
			close(wfd);
		}
		check(etime == 3, "three WAITs nobody satisfies: each ETIME "
		      "(%d %d %d)", st[0], st[1], st[2]);
		check(debugfs_value("copro_engines", "resets ") == resets &&
		      !debugfs_value("copro_engines", "device_recoveries: "),
		      "no engine reset, no device reset for them (resets %"
		      PRIu64 " -> %" PRIu64 ")", resets,
		      debugfs_value("copro_engines", "resets "));
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &y, 0, 65536, 0x9012);
		check(!copro_run(&dev, good, 0, &c) &&
		      all_u32(y.map, 65536, 0x9012),
		      "and the innocent's next job runs");
	}

	/* repeated hangs: the driver recovers every time */
	for (int i = 0; i < 3; i++) {
		uint32_t h = ctx_new(COPRO_CTX_PRIORITY_NORMAL);

		inject(0, COPRO_INJECT_HANG);
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &x, 0, 4, 1);
		copro_run(&dev, h, 0, &c);
	}
	/* the reset runs in a worker after the third job's fence signals */
	for (int i = 0; i < 200 &&
	     !debugfs_value("copro_engines", "device_recoveries: "); i++)
		usleep(10000);
	printf("# device recoveries: %" PRIu64 "\n",
	       debugfs_value("copro_engines", "device_recoveries: "));
	check(debugfs_value("copro_engines", "device_recoveries: ") >= 1,
	      "three hangs in a row: the device is reset");
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &y, 0, 65536, 0x9010);
	{
		int ffd = -1;
		struct copro_submit_opts fo = { .fence_fd = &ffd };
		struct pollfd p;

		ret = copro_submit(&dev, good, 0, &c, &fo);
		p = (struct pollfd){ ffd, POLLIN, 0 };
		poll(&p, 1, 30000);
		printf("# last job: submit %d, fence status %d\n", ret,
		       copro_fence_status(ffd));
		close(ffd);
	}
	copro_ctx_query(&dev, good, &q);
	check(!ret && all_u32(y.map, 65536, 0x9010) && !q.flags,
	      "the device renders right after them (a job submitted while "
	      "it was being reset)");
	copro_cmd_fini(&c);
	return done();
}


/* ---- starvation across processes ---- */

/*
 * Process A queues more long jobs than drm_sched has slots on the engine
 * (64), through two DRM files (a context on each); process B's single
 * job must still start within one time slice per context of A's (two)
 * of its submit (device time), plus the preemptions' latency: the driver
 * lets one process, whatever files it opens, have only proc_jobs jobs of
 * a priority on the ring, so B's job reaches the ring at once and the
 * time slices put it before A's. A's jobs all run and write the right
 * bytes.
 */
#define STARVE_JOBS	80
#define STARVE_FILES	2
#define STARVE_WORK_NS	50000000ull	/* each of A's jobs: 50 ms */

static int starve_a(int ready)
{
	struct copro_dev d[STARVE_FILES];
	struct copro_bo bo[STARVE_FILES];
	uint32_t ctx[STARVE_FILES], sync[STARVE_FILES];
	struct copro_cmd c;
	int bad = 0;

	for (int f = 0; f < STARVE_FILES; f++) {
		if (copro_dev_open(&d[f], NULL) ||
		    copro_ctx_new(&d[f], COPRO_CTX_PRIORITY_NORMAL, &ctx[f]) ||
		    copro_bo_new(&d[f], STARVE_JOBS * 4096, &bo[f]) ||
		    copro_bo_map(&d[f], &bo[f]) ||
		    copro_syncobj_new(&d[f], &sync[f]))
			return 3;
		memset(bo[f].map, 0, bo[f].size);
	}
	copro_cmd_init(&c);
	for (int i = 0; i < STARVE_JOBS; i++) {
		int f = i % STARVE_FILES;
		struct drm_copro_sync s = { .handle = sync[f] };
		struct copro_submit_opts o = { .out = &s, .nout = 1 };
		bool last = i + STARVE_FILES >= STARVE_JOBS;

		copro_cmd_reset(&c);
		copro_cmd_work(&c, STARVE_WORK_NS);
		copro_cmd_fill(&c, &bo[f], i * 4096, 4096, 0xa0000 + i);
		if (copro_submit(&d[f], ctx[f], 0, &c, last ? &o : NULL))
			return 4;
	}
	if (write(ready, "q", 1) != 1)
		return 5;
	for (int f = 0; f < STARVE_FILES; f++)
		if (copro_syncobj_wait(&d[f], sync[f], 0, 60000000000ll))
			return 6;
	for (int i = 0; i < STARVE_JOBS; i++)
		bad += !all_u32((char *)bo[i % STARVE_FILES].map + i * 4096,
				4096, 0xa0000 + i);
	return bad ? 1 : 0;
}

int t_starve(void)
{
	uint64_t slice = debugfs_value("copro_engines", "timeslice_ms: ");
	uint64_t per_proc = debugfs_value("copro_engines", "proc_jobs: ");
	uint64_t bsub, *t, done0, ring;
	struct copro_bo ts, b;
	struct copro_cmd c;
	uint32_t ctx = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	int p[2], status;
	char x;
	pid_t a;

	bo_new(4096, &ts);
	bo_new(65536, &b);
	t = ts.map;
	memset(ts.map, 0, 4096);
	if (pipe(p))
		die("pipe", -errno);
	done0 = debugfs_value("copro_engines", "engine0: run ");
	a = fork();
	if (!a)
		_exit(starve_a(p[1]));
	if (read(p[0], &x, 1) != 1)
		die("process A", -EIO);
	/* A's first job has run a while: B comes late */
	while (debugfs_value("copro_engines", "engine0: run ") - done0 <
	       per_proc)
		usleep(1000);
	bsub = copro_gpu_time(&dev) + 20000000;
	while (copro_gpu_time(&dev) < bsub)
		usleep(1000);
	ring = debugfs_value("copro_engines", "on_ring ") +
	       debugfs_value("copro_engines", "held ");
	copro_cmd_init(&c);
	copro_cmd_timestamp(&c, &ts, 0);
	copro_cmd_fill(&c, &b, 0, 65536, 0xb0b);
	bsub = copro_gpu_time(&dev);
	copro_run(&dev, ctx, 0, &c);
	printf("# A: %d jobs of %llu ms queued through %d files (proc_jobs %"
	       PRIu64 "); B's job started %.2f ms after its submit (time "
	       "slice %" PRIu64 " ms)\n", STARVE_JOBS, STARVE_WORK_NS / 1000000,
	       STARVE_FILES, per_proc, (t[0] - bsub) / 1e6, slice);
	check(per_proc && per_proc < 64 && ring == per_proc,
	      "A has %" PRIu64 " jobs on the ring through %d files, its limit "
	      "(proc_jobs %" PRIu64 "; drm_sched has 64 slots)", ring,
	      STARVE_FILES, per_proc);
	/*
	 * At worst B arrives as one of A's contexts starts its slice: that
	 * slice, then the other context's, each switch costing the driver's
	 * preemption path (about 0.5 ms of guest time under slub_debug,
	 * which -icount counts)
	 */
	check(slice && t[0] > bsub &&
	      t[0] - bsub < STARVE_FILES * (slice + 1) * 1000000,
	      "B's job starts within one time slice per context of A's (%d) "
	      "of its submit, though A queued %d jobs of %llu ms",
	      STARVE_FILES, STARVE_JOBS, STARVE_WORK_NS / 1000000);
	check(all_u32(b.map, 65536, 0xb0b), "B's job wrote the right bytes");
	waitpid(a, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "A's %d jobs all ran and wrote the right bytes (status %d)",
	      STARVE_JOBS, status);
	copro_cmd_fini(&c);
	return done();
}
