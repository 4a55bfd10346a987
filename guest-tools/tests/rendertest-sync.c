// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest: fences and sync objects (fences), several processes
 * (multi), implicit sync with KMS (kms).
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

/* ---- fences ---- */

int t_fences(void)
{
	struct copro_bo x, ts, big;
	struct copro_cmd c;
	uint32_t c1 = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	uint32_t c2 = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	struct drm_copro_sync s1 = { 0 }, s2 = { 0 }, tl = { 0 };
	struct copro_submit_opts o = { 0 };
	uint64_t *t;
	int ret, fd;

	bo_new(4096, &x);
	bo_new(4096, &ts);
	bo_new(1 << 20, &big);
	t = ts.map;
	memset(ts.map, 0, 4096);
	copro_cmd_init(&c);
	copro_syncobj_new(&dev, &s1.handle);
	copro_syncobj_new(&dev, &s2.handle);

	/* in one context: jobs retire in submission order */
	copro_cmd_work(&c, 30000000);
	copro_cmd_fill(&c, &x, 0, 4, 1);
	copro_cmd_timestamp(&c, &ts, 0);
	o.out = &s1;
	o.nout = 1;
	copro_submit(&dev, c1, 0, &c, &o);
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &x, 0, 4, 2);
	copro_cmd_timestamp(&c, &ts, 8);
	o.out = &s2;
	copro_submit(&dev, c1, 0, &c, &o);
	ret = copro_syncobj_wait(&dev, s1.handle, 0, 1000000);
	check(ret == -ETIME,
	      "a wait of 1 ms on a 30 ms job times out (-ETIME; got %d)", ret);
	ret = copro_syncobj_wait(&dev, s2.handle, 0, 10000000000ll);
	check(!ret && copro_syncobj_wait(&dev, s1.handle, 0, 0) == 0,
	      "the second job's fence signals, the first's already has");
	check(((uint32_t *)x.map)[0] == 2 && t[0] && t[1] > t[0],
	      "in order: the second job ran after the first (value 2)");

	/* across contexts: c2 waits for c1's long job through a sync object */
	copro_cmd_reset(&c);
	copro_cmd_work(&c, 2000000);
	copro_cmd_fill(&c, &big, 0, 1 << 20, 0x12345678);
	copro_cmd_timestamp(&c, &ts, 16);
	o.out = &s1;
	copro_submit(&dev, c1, 0, &c, &o);
	copro_cmd_reset(&c);
	copro_cmd_copy(&c, &x, 64, &big, 4096, 64);
	copro_cmd_timestamp(&c, &ts, 24);
	o.in = &s1;
	o.nin = 1;
	o.out = &s2;
	copro_submit(&dev, c2, COPRO_ENGINE_COPY, &c, &o);
	ret = copro_syncobj_wait(&dev, s2.handle, 0, 10000000000ll);
	check(!ret && all_u32((uint8_t *)x.map + 64, 64, 0x12345678) &&
	      t[3] > t[2],
	      "the copy engine's job waited for the render engine's (in sync)");
	o.in = NULL;
	o.nin = 0;

	/* timeline points */
	copro_syncobj_free(&dev, s1.handle);
	drmSyncobjCreate(dev.fd, 0, &tl.handle);
	for (int i = 1; i <= 3; i++) {
		copro_cmd_reset(&c);
		copro_cmd_work(&c, 500000);
		copro_cmd_fill(&c, &x, 128, 4, 100 + i);
		tl.point = i;
		o.out = &tl;
		copro_submit(&dev, i == 2 ? c2 : c1, 0, &c, &o);
	}
	ret = copro_syncobj_wait(&dev, tl.handle, 3, 10000000000ll);
	{
		uint64_t v = 0;

		drmSyncobjQuery(dev.fd, &tl.handle, &v, 1);
		check(!ret && v == 3 && ((uint32_t *)x.map)[32] == 103,
		      "timeline: three jobs signal points 1, 2, 3 (value %"
		      PRIu64 ")", v);
	}
	tl.point = 5;
	ret = copro_syncobj_wait(&dev, tl.handle, 5, 2000000);
	check(ret == -ETIME, "timeline: a wait for point 5 times out (%d)", ret);
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &x, 132, 4, 55);
	{
		struct drm_copro_sync in = { .handle = tl.handle, .point = 3 };
		struct drm_copro_sync out5 = { .handle = tl.handle, .point = 5 };

		o.in = &in;
		o.nin = 1;
		o.out = &out5;
		copro_submit(&dev, c2, 0, &c, &o);
		ret = copro_syncobj_wait(&dev, tl.handle, 5, 10000000000ll);
		check(!ret && ((uint32_t *)x.map)[33] == 55,
		      "timeline: a job waiting on point 3 signals point 5");
		o.in = NULL;
		o.nin = 0;
	}

	/* sync_file export */
	copro_cmd_reset(&c);
	copro_cmd_work(&c, 1000000);
	o.out = NULL;
	o.nout = 0;
	o.fence_fd = &fd;
	ret = copro_submit(&dev, c1, 0, &c, &o);
	check(!ret && fd >= 0 && copro_fence_status(fd) == 0,
	      "a sync_file of a running job: pending");
	{
		struct pollfd p = { fd, POLLIN, 0 };

		poll(&p, 1, 10000);
		check(copro_fence_status(fd) == 1,
		      "poll() on it returns once it signals (status 1)");
	}
	close(fd);

	copro_cmd_fini(&c);
	return done();
}

/* ---- several processes ---- */

static int worker(int id, int jobs, bool slow)
{
	struct copro_dev d;
	struct copro_bo bo, img;
	struct copro_cmd c;
	uint32_t ctx;
	int bad = 0;

	if (copro_dev_open(&d, NULL) ||
	    copro_ctx_new(&d, COPRO_CTX_PRIORITY_NORMAL, &ctx) ||
	    copro_bo_new(&d, 65536, &bo) || copro_bo_map(&d, &bo) ||
	    copro_bo_new(&d, 64 * 64 * 4, &img) || copro_bo_map(&d, &img))
		return 3;
	copro_cmd_init(&c);
	for (int i = 0; i < jobs; i++) {
		uint32_t v = (id << 24) | i;

		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &bo, 0, 65536, v);
		copro_cmd_target(&c, 0, &img, 0, 256, 64, 64,
				 COPRO_FMT_XRGB8888);
		copro_cmd_rect(&c, 0, 0, 0, 64, 64, v);
		copro_cmd_work(&c, slow ? 5000000 : 50000);
		if (copro_run(&d, ctx, COPRO_ENGINE_RENDER, &c) ||
		    !all_u32(bo.map, 65536, v) ||
		    !all_u32(img.map, 64 * 64 * 4, v))
			bad++;
	}
	return bad ? 1 : 0;
}

int t_multi(int n)
{
	pid_t pids[16], victim;
	int status, good = 0;
	uint64_t pool0 = debugfs_value("copro_engines", "engine0: run ");

	if (n > 16)
		n = 16;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(worker(i + 1, 20, false));
	}
	/* a process killed while its jobs are queued and running */
	victim = fork();
	if (!victim) {
		struct copro_dev d;
		struct copro_bo bo;
		struct copro_cmd c;
		uint32_t ctx;

		struct copro_bo g;

		copro_dev_open(&d, NULL);
		copro_ctx_new(&d, COPRO_CTX_PRIORITY_NORMAL, &ctx);
		copro_bo_new(&d, 1 << 20, &bo);
		copro_bo_new_flags(&d, 1 << 20, COPRO_GEM_GTT, &g);
		copro_cmd_init(&c);
		copro_cmd_fill(&c, &bo, 0, 1 << 20, 0xdead);
		copro_cmd_copy(&c, &g, 0, &bo, 0, 1 << 20);
		/* 200 x 20 ms: more than drm_sched waits for at the exit
		 * (1 s), so it drops the rest (drm_sched_entity_kill) */
		copro_cmd_work(&c, 20000000);
		for (int i = 0; i < 200; i++)
			copro_submit(&d, ctx, 0, &c, NULL);
		for (;;)
			pause();
	}
	usleep(20000);
	{
		/* the guest's clock: deterministic under -icount */
		uint64_t t0 = mono_ns(), ms;

		kill(victim, SIGKILL);
		waitpid(victim, &status, 0);
		ms = (mono_ns() - t0) / 1000000;
		check(WIFSIGNALED(status), "a submitting process killed mid-way");
		/* review defect 13: it sat in drm_sched_entity_fini for 1 s
		 * (50 s with a full pool) while its queued jobs kept starting */
		check(ms < 200, "it is gone at once: its jobs dropped, the "
		      "running one preempted (%" PRIu64 " ms after the kill; "
		      "%" PRIu64 " jobs cancelled)", ms,
		      debugfs_value("copro_engines", "cancels "));
	}
	for (int i = 0; i < n; i++) {
		waitpid(pids[i], &status, 0);
		good += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	check(good == n, "%d processes x 20 jobs at once: %d with every "
	      "result right", n, good);
	/* everything the dead process had is gone */
	{
		uint64_t run = debugfs_value("copro_engines", "engine0: run ");
		uint64_t held = debugfs_value("copro_engines", "held ");
		uint64_t on = debugfs_value("copro_engines", "on_ring ");

		printf("# jobs run %" PRIu64 " since the start (of 280 "
		       "submitted)\n", run - pool0);
		check(!held && !on, "no job left on the ring or held");
	}
	{
		FILE *f = fopen("/sys/kernel/debug/dri/0/clients", "r");
		char line[256];
		int clients = 0;

		while (f && fgets(line, sizeof(line), f))
			clients++;
		if (f)
			fclose(f);
		/* the header line and this process */
		check(clients == 2, "no DRM client left but this one (%d lines)",
		      clients);
	}
	{
		FILE *f = fopen("/sys/kernel/debug/dri/0/gem_names", "r");
		char line[256];
		int names = 0;

		while (f && fgets(line, sizeof(line), f))
			names++;
		if (f)
			fclose(f);
		printf("# gem_names: %d lines\n", names);
	}
	/* the pool memory and the GART entries of every job and buffer of
	 * the processes that ended are back (free_job runs a little after
	 * the fence) */
	{
		uint64_t pool = 1, gart = 1;

		for (int i = 0; i < 200 && (pool || gart); i++) {
			usleep(5000);
			pool = debugfs_value("copro_engines", "pool_used_bytes: ");
			gart = debugfs_value("copro_engines", "gart_used_pages: ");
		}
		check(!pool && !gart, "no job memory or GART entry left "
		      "(%" PRIu64 " bytes, %" PRIu64 " pages)", pool, gart);
	}
	check(worker(30, 5, false) == 0, "the device renders right afterwards");
	return done();
}

/* ---- implicit sync with KMS ---- */

int t_kms(void)
{
	struct copro_dev k;
	drmModeResPtr res;
	drmModeConnectorPtr conn;
	drmModeModeInfo mode;
	struct copro_bo fb_bo[2], ts;
	uint32_t fb[2], crtc, ctx, pitch;
	struct copro_cmd c;
	uint64_t flip_at = 0, sub_mono, off, *t;
	int fd, ret;
	struct copro_submit_opts o = { .fence_fd = &fd };

	if (copro_dev_open(&k, "/dev/dri/card0"))
		die("card0", -ENODEV);
	conn = kms_connector(k.fd, &res);
	mode = conn->modes[0];
	crtc = res->crtcs[0];
	pitch = mode.hdisplay * 4;
	for (int i = 0; i < 2; i++) {
		uint32_t h[4] = { 0 }, p[4] = { pitch }, offs[4] = { 0 };

		if (copro_bo_new(&k, (uint64_t)pitch * mode.vdisplay, &fb_bo[i]))
			die("framebuffer", -ENOMEM);
		h[0] = fb_bo[i].handle;
		if (drmModeAddFB2(k.fd, mode.hdisplay, mode.vdisplay,
				  DRM_FORMAT_XRGB8888, h, p, offs, &fb[i], 0))
			die("AddFB2", -errno);
	}
	if (copro_bo_new(&k, 4096, &ts) || copro_bo_map(&k, &ts))
		die("buffer", -ENOMEM);
	t = ts.map;
	{
		struct copro_bo g;
		uint32_t h[4] = { 0 }, p[4] = { pitch }, offs[4] = { 0 }, gfb;

		copro_bo_new_flags(&k, (uint64_t)pitch * mode.vdisplay,
				   COPRO_GEM_GTT, &g);
		h[0] = g.handle;
		ret = drmModeAddFB2(k.fd, mode.hdisplay, mode.vdisplay,
				    DRM_FORMAT_XRGB8888, h, p, offs, &gfb, 0);
		check(ret && errno == EINVAL,
		      "a framebuffer on a GTT buffer is refused (EINVAL)");
		copro_bo_free(&k, &g);
	}
	ret = drmModeSetCrtc(k.fd, crtc, fb[0], 0, 0, &conn->connector_id, 1,
			     &mode);
	check(!ret, "mode set %ux%u on a buffer of ours", mode.hdisplay,
	      mode.vdisplay);
	copro_ctx_new(&k, COPRO_CTX_PRIORITY_NORMAL, &ctx);

	/* 50 ms of rendering into the second buffer, then flip to it at once */
	copro_cmd_init(&c);
	copro_cmd_work(&c, 50000000);
	copro_cmd_fill(&c, &fb_bo[1], 0, (uint64_t)pitch * mode.vdisplay,
		       0x00204080);
	copro_cmd_timestamp(&c, &ts, 0);
	off = mono_ns() - copro_gpu_time(&k);
	sub_mono = mono_ns();
	ret = copro_submit(&k, ctx, 0, &c, &o);
	check(!ret, "the rendering job is submitted");
	ret = drmModePageFlip(k.fd, crtc, fb[1], DRM_MODE_PAGE_FLIP_EVENT,
			      &flip_at);
	check(!ret, "the flip to its buffer is queued at once (%d)", ret);
	kms_wait_flip(k.fd, &flip_at);
	printf("# rendering done %.3f ms after the submit, the flip at %.3f ms\n",
	       (t[0] + off - sub_mono) / 1e6, (flip_at - sub_mono) / 1e6);
	check(copro_fence_status(fd) == 1, "the job's sync_file signalled");
	check(flip_at && flip_at + 100000 >= t[0] + off &&
	      flip_at - sub_mono >= 50000000,
	      "the flip waited for the rendering (dma_resv implicit sync)");
	check(flip_at && flip_at < t[0] + off + 2 * 16700000ull,
	      "and took effect at one of the next vblanks after it");
	close(fd);

	/*
	 * Explicit sync: an atomic flip back to the first buffer with the
	 * sync_file of a job that renders elsewhere (so no implicit fence is
	 * on the framebuffer) as the plane's IN_FENCE_FD.
	 */
	{
		uint32_t plane = 0, p_fb = 0, p_fence = 0;
		drmModePlaneResPtr pres;
		drmModeAtomicReqPtr req;
		struct copro_bo other;

		drmSetClientCap(k.fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
		drmSetClientCap(k.fd, DRM_CLIENT_CAP_ATOMIC, 1);
		pres = drmModeGetPlaneResources(k.fd);
		for (uint32_t i = 0; pres && i < pres->count_planes && !plane; i++) {
			drmModeObjectPropertiesPtr pr =
				drmModeObjectGetProperties(k.fd, pres->planes[i],
							   DRM_MODE_OBJECT_PLANE);
			uint32_t fbp = 0, fp = 0;
			bool primary = false;

			for (uint32_t j = 0; pr && j < pr->count_props; j++) {
				drmModePropertyPtr pp =
					drmModeGetProperty(k.fd, pr->props[j]);

				if (!pp)
					continue;
				if (!strcmp(pp->name, "type") &&
				    pr->prop_values[j] == DRM_PLANE_TYPE_PRIMARY)
					primary = true;
				if (!strcmp(pp->name, "FB_ID"))
					fbp = pp->prop_id;
				if (!strcmp(pp->name, "IN_FENCE_FD"))
					fp = pp->prop_id;
				drmModeFreeProperty(pp);
			}
			if (primary) {
				plane = pres->planes[i];
				p_fb = fbp;
				p_fence = fp;
			}
			drmModeFreeObjectProperties(pr);
		}
		bo_new(65536, &other);
		copro_cmd_reset(&c);
		copro_cmd_work(&c, 40000000);
		copro_cmd_fill(&c, &other, 0, 65536, 1);
		copro_cmd_timestamp(&c, &ts, 8);
		sub_mono = mono_ns();
		ret = copro_submit(&k, ctx, 0, &c, &o);
		flip_at = 0;
		req = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(req, plane, p_fb, fb[0]);
		drmModeAtomicAddProperty(req, plane, p_fence, fd);
		ret = ret ?: drmModeAtomicCommit(k.fd, req,
						 DRM_MODE_ATOMIC_NONBLOCK |
						 DRM_MODE_PAGE_FLIP_EVENT,
						 &flip_at);
		drmModeAtomicFree(req);
		check(plane && p_fence && !ret,
		      "an atomic flip with the job's sync_file as IN_FENCE_FD "
		      "(%d)", ret);
		kms_wait_flip(k.fd, &flip_at);
		printf("# rendering done %.3f ms after the submit, the flip at "
		       "%.3f ms\n", (t[1] + off - sub_mono) / 1e6,
		       (flip_at - sub_mono) / 1e6);
		check(flip_at && flip_at + 100000 >= t[1] + off &&
		      flip_at - sub_mono >= 40000000,
		      "the flip waited for the fence (explicit sync_file interop)");
		close(fd);
		drmModeFreePlaneResources(pres);
	}
	copro_cmd_fini(&c);
	return done();
}

