// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest: buffers and streams: the right bytes (basic), and
 * every bad input refused (bad).
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

/* ---- basic ---- */

int t_basic(void)
{
	struct copro_bo a, b, img, ts;
	struct copro_cmd c;
	uint32_t ctx = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	uint32_t *px;
	bool ok;
	int ret;

	bo_new(1 << 20, &a);
	bo_new(1 << 20, &b);
	bo_new(256 * 256 * 4, &img);
	bo_new(4096, &ts);
	memset(a.map, 0, a.size);
	memset(b.map, 0, b.size);
	copro_cmd_init(&c);

	copro_cmd_fill(&c, &a, 0, 1 << 20, 0xa5a5f00d);
	ret = copro_run(&dev, ctx, COPRO_ENGINE_RENDER, &c);
	check(!ret && all_u32(a.map, 1 << 20, 0xa5a5f00d),
	      "FILL of 1 MiB: every word is the pattern (ret %d)", ret);

	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &a, 4096, 8192, 0x11223344);
	copro_cmd_copy(&c, &b, 100, &a, 4096, 8192);
	ret = copro_run(&dev, ctx, COPRO_ENGINE_RENDER, &c);
	ok = !ret && all_u32(a.map + 4096, 8192, 0x11223344);
	for (int i = 0; i < 100 && ok; i++)
		ok = ((uint8_t *)b.map)[i] == 0;
	ok = ok && !memcmp((uint8_t *)b.map + 100, (uint8_t *)a.map + 4096,
			   8192) && ((uint8_t *)b.map)[8292] == 0;
	check(ok, "COPY of 8 KiB to an unaligned offset: exactly those bytes");

	/* the copy engine: FILL and COPY */
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &b, 0, 65536, 0xc0c0c0c0);
	copro_cmd_copy(&c, &a, 0, &b, 0, 65536);
	ret = copro_run(&dev, ctx, COPRO_ENGINE_COPY, &c);
	check(!ret && all_u32(a.map, 65536, 0xc0c0c0c0),
	      "the copy engine runs FILL and COPY (ret %d)", ret);

	/* RECT into an XRGB8888 target: clipped, only its pixels */
	memset(img.map, 0, img.size);
	copro_cmd_reset(&c);
	copro_cmd_target(&c, 1, &img, 0, 1024, 256, 256, COPRO_FMT_XRGB8888);
	copro_cmd_rect(&c, 1, 10, 20, 30, 40, 0x00ff8000);
	copro_cmd_rect(&c, 1, 250, 250, 100, 100, 0x000000ff);
	ret = copro_run(&dev, ctx, COPRO_ENGINE_RENDER, &c);
	px = img.map;
	ok = !ret;
	for (int y = 0; y < 256 && ok; y++) {
		for (int x = 0; x < 256 && ok; x++) {
			uint32_t want = 0;

			if (x >= 10 && x < 40 && y >= 20 && y < 60)
				want = 0x00ff8000;
			if (x >= 250 && y >= 250)
				want = 0x000000ff;
			ok = px[y * 256 + x] == want;
		}
	}
	check(ok, "RECTs on a 256x256 XRGB8888 target: right pixels, clipped");

	/* WORK takes its device time: TIMESTAMPs around it */
	copro_cmd_reset(&c);
	copro_cmd_timestamp(&c, &ts, 0);
	copro_cmd_work(&c, 2000000);
	copro_cmd_timestamp(&c, &ts, 8);
	ret = copro_run(&dev, ctx, COPRO_ENGINE_RENDER, &c);
	{
		uint64_t *t = ts.map;

		printf("# WORK 2 ms: TIMESTAMPs %" PRIu64 " apart\n",
		       t[1] - t[0]);
		check(!ret && t[1] - t[0] >= 2000000 &&
		      t[1] - t[0] < 2100000,
		      "WORK of 2 ms: TIMESTAMPs 2 ms (+ packet costs) apart");
	}

	/* buffers in guest memory, through the GART */
	{
		struct copro_bo g, g2;
		bool gok;

		if (copro_bo_new_flags(&dev, 1 << 20, COPRO_GEM_GTT, &g) ||
		    copro_bo_map(&dev, &g) ||
		    copro_bo_new_flags(&dev, 256 * 256 * 4, COPRO_GEM_GTT, &g2) ||
		    copro_bo_map(&dev, &g2))
			die("GTT buffer", -ENOMEM);
		memset(g.map, 0, g.size);
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &a, 0, 65536, 0x6a6a0001);
		copro_cmd_copy(&c, &g, 4096, &a, 0, 65536);
		copro_cmd_fill(&c, &g, 131072, 65536, 0x6a6a0002);
		ret = copro_run(&dev, ctx, COPRO_ENGINE_RENDER, &c);
		gok = !ret && all_u32((uint8_t *)g.map + 4096, 65536, 0x6a6a0001) &&
		      all_u32((uint8_t *)g.map + 131072, 65536, 0x6a6a0002) &&
		      all_u32(g.map, 4096, 0);
		check(gok, "a GTT buffer: COPY from VRAM into it, FILL in it");
		copro_cmd_reset(&c);
		copro_cmd_copy(&c, &b, 0, &g, 131072, 65536);
		ret = copro_run(&dev, ctx, COPRO_ENGINE_COPY, &c);
		check(!ret && all_u32(b.map, 65536, 0x6a6a0002),
		      "the copy engine copies from it back to VRAM");
		copro_cmd_reset(&c);
		copro_cmd_target(&c, 3, &g2, 0, 1024, 256, 256,
				 COPRO_FMT_XRGB8888);
		copro_cmd_rect(&c, 3, 0, 0, 256, 256, 0x00c0ffee);
		ret = copro_run(&dev, ctx, COPRO_ENGINE_RENDER, &c);
		check(!ret && all_u32(g2.map, 256 * 256 * 4, 0x00c0ffee),
		      "RECT into a target in a GTT buffer");
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &g, 1 << 20, 4, 1);
		check(copro_submit(&dev, ctx, 0, &c, NULL) == -ERANGE,
		      "a FILL past a GTT buffer's end: ERANGE");
		copro_bo_free(&dev, &g2);
		/* g stays: fdinfo counts it */
	}

	/* more buffers than VRAM: TTM evicts the idle ones to system
	 * memory and brings each back when a job needs it */
	{
		uint64_t vram = 0;
		struct copro_bo ev[8];
		int nev, good = 0;

		copro_param(&dev, COPRO_PARAM_VRAM_SIZE, &vram);
		nev = vram * 3 / 2 / (16 << 20);
		if (nev > 8)
			nev = 8;
		for (int i = 0; i < nev; i++)
			bo_new(16 << 20, &ev[i]);
		for (int i = 0; i < nev; i++) {
			copro_cmd_reset(&c);
			copro_cmd_fill(&c, &ev[i], 0, 16 << 20, 0xe0000000 + i);
			copro_run(&dev, ctx, COPRO_ENGINE_RENDER, &c);
		}
		for (int i = 0; i < nev; i++) {
			good += all_u32(ev[i].map, 16 << 20, 0xe0000000 + i);
			copro_bo_free(&dev, &ev[i]);
		}
		check(nev >= 6 && good == nev,
		      "%d buffers of 16 MiB (1.5x VRAM), each filled by a job: "
		      "all %d right (eviction)", nev, good);
	}

	{
		struct drm_copro_ctx_query q;

		copro_ctx_query(&dev, ctx, &q);
		check(q.jobs == 5 + 6 + 3 && q.busy_ns >= 2000000 && !q.flags,
		      "the context's statistics: %" PRIu64 " jobs, %" PRIu64
		      " ns busy", (uint64_t)q.jobs, (uint64_t)q.busy_ns);
	}
	{
		char path[64], line[256], key[64], unit[8];
		uint64_t vram = 0, res = UINT64_MAX, gtt = 0;
		bool eng = false, id = false;
		FILE *f;

		/* Documentation/gpu/drm-usage-stats.rst's keys */
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", dev.fd);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			uint64_t v;
			int n;

			if (!strncmp(line, "drm-", 4))
				printf("# %s", line);
			unit[0] = 0;
			n = sscanf(line, "%63[^:]: %" SCNu64 " %7s", key, &v, unit);
			if (n < 2)
				continue;
			/* memory: bytes, KiB or MiB */
			if (!strcmp(unit, "KiB"))
				v <<= 10;
			else if (!strcmp(unit, "MiB"))
				v <<= 20;
			if (!strcmp(key, "drm-client-id"))
				id = v > 0;
			else if (!strcmp(key, "drm-engine-render"))
				eng = v >= 2000000;
			else if (!strcmp(key, "drm-total-vram"))
				vram = v;
			else if (!strcmp(key, "drm-resident-vram"))
				res = v;
			else if (!strcmp(key, "drm-total-gtt"))
				gtt = v;
		}
		if (f)
			fclose(f);
		check(id && eng && vram >= (2048 + 256 + 4) << 10 && res <= vram &&
		      gtt == 1 << 20,
		      "fdinfo: drm-client-id, drm-engine-render ns, "
		      "drm-total- and drm-resident-vram, drm-total-gtt");
	}
	/*
	 * Review defect 7: jobs of two contexts that retire in one interrupt
	 * were all charged to the first. Behind a 20 ms job, ten 2 us jobs
	 * of B alternate with ten of A: far shorter than the interrupt's
	 * latency, so they retire in batches. B is charged its own time.
	 */
	{
		uint32_t ca = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
		uint32_t cb = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
		struct drm_copro_ctx_query qa, qb;
		struct copro_cmd w;

		copro_cmd_init(&w);
		copro_cmd_work(&w, 20000000);
		copro_submit(&dev, ca, 0, &w, NULL);
		copro_cmd_reset(&w);
		copro_cmd_work(&w, 2000);
		for (int i = 0; i < 10; i++) {
			copro_submit(&dev, cb, 0, &w, NULL);
			copro_submit(&dev, ca, 0, &w, NULL);
		}
		copro_run(&dev, ca, 0, &w);
		copro_run(&dev, cb, 0, &w);
		copro_ctx_query(&dev, ca, &qa);
		copro_ctx_query(&dev, cb, &qb);
		/* 11 jobs of 2 us each, plus packet costs: well under 100 us */
		check(qb.jobs == 11 && qb.busy_ns >= 22000 && qb.busy_ns < 100000 &&
		      qa.busy_ns >= 20000000 && qa.busy_ns < 20200000,
		      "jobs retired together are each charged their own time: "
		      "A %" PRIu64 " ns, B %" PRIu64 " ns (%" PRIu64 " jobs)",
		      (uint64_t)qa.busy_ns, (uint64_t)qb.busy_ns,
		      (uint64_t)qb.jobs);
		copro_cmd_fini(&w);
		copro_ctx_free(&dev, ca);
		copro_ctx_free(&dev, cb);
	}
	copro_cmd_fini(&c);
	copro_bo_free(&dev, &a);
	copro_bo_free(&dev, &b);
	copro_bo_free(&dev, &img);
	copro_bo_free(&dev, &ts);
	check(!copro_ctx_free(&dev, ctx), "context destroyed");
	return done();
}

/* ---- bad input ---- */

/* a process whose results must stay right while the other misbehaves */
static pid_t bystander(int jobs)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		struct copro_dev d2;
		struct copro_bo bo;
		struct copro_cmd c;
		uint32_t ctx;
		int bad = 0;

		if (copro_dev_open(&d2, NULL) ||
		    copro_ctx_new(&d2, COPRO_CTX_PRIORITY_NORMAL, &ctx) ||
		    copro_bo_new(&d2, 65536, &bo) || copro_bo_map(&d2, &bo))
			_exit(3);
		copro_cmd_init(&c);
		for (int i = 0; i < jobs; i++) {
			copro_cmd_reset(&c);
			copro_cmd_fill(&c, &bo, 0, 65536, 0x5eed0000 + i);
			copro_cmd_work(&c, 20000);
			if (copro_run(&d2, ctx, 0, &c) ||
			    !all_u32(bo.map, 65536, 0x5eed0000 + i))
				bad++;
		}
		_exit(bad ? 1 : 0);
	}
}

static int sub(uint32_t ctx, uint32_t engine, struct copro_cmd *c)
{
	return copro_submit(&dev, ctx, engine, c, NULL);
}

static int raw_submit(struct drm_copro_submit *a)
{
	return drmIoctl(dev.fd, DRM_IOCTL_COPRO_SUBMIT, a) ? -errno : 0;
}

#define EXPECT(expr, err, what) do {					\
	int r_ = (expr);						\
	check(r_ == (err), "%s: %s (got %s)", what, strerror(-(err)),	\
	      r_ ? strerror(-r_) : "success");				\
} while (0)

int t_bad(void)
{
	struct copro_bo bo, ro, small;
	struct copro_cmd c;
	struct drm_copro_submit a;
	uint32_t ctx = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	uint32_t dead = ctx_new(COPRO_CTX_PRIORITY_NORMAL);
	uint32_t w[16];
	pid_t by = bystander(60);
	int status;

	bo_new(65536, &bo);
	bo_new(8192, &ro);
	bo_new(4096, &small);
	copro_cmd_init(&c);

	copro_ctx_free(&dev, dead);
	copro_cmd_fill(&c, &bo, 0, 64, 1);
	EXPECT(sub(dead, 0, &c), -ENOENT, "a destroyed (stale) context");
	EXPECT(sub(12345, 0, &c), -ENOENT, "a context handle never created");
	EXPECT(sub(ctx, 7, &c), -EINVAL, "an engine that does not exist");

	/* a buffer handle of another file, and a closed one */
	{
		struct copro_dev d2;
		struct copro_bo other[4];
		uint32_t h;

		copro_dev_open(&d2, NULL);
		for (int i = 0; i < 4; i++)
			copro_bo_new(&d2, 4096, &other[i]);
		h = other[3].handle;
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &other[3], 0, 64, 1);
		c.bos[0].handle = h + 100;	/* not one of ours */
		EXPECT(sub(ctx, 0, &c), -ENOENT,
		       "another file's buffer handle");
		copro_dev_close(&d2);
	}
	{
		struct copro_bo gone;

		bo_new(4096, &gone);
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &gone, 0, 64, 1);
		copro_bo_free(&dev, &gone);
		EXPECT(sub(ctx, 0, &c), -ENOENT, "a closed (stale) buffer handle");
	}

	/* ranges */
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 65532, 8, 1);
	EXPECT(sub(ctx, 0, &c), -ERANGE, "FILL past the end of its buffer");
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 4, 0xfffffffffffffff0ull, 1);
	EXPECT(sub(ctx, 0, &c), -ERANGE, "FILL of a huge size (offset + size wraps)");
	copro_cmd_reset(&c);
	copro_cmd_copy(&c, &bo, 0, &small, 2048, 4096);
	EXPECT(sub(ctx, 0, &c), -ERANGE, "COPY from past the end of the source");
	copro_cmd_reset(&c);
	copro_cmd_copy(&c, &small, 0, &bo, 0, 8192);
	EXPECT(sub(ctx, 0, &c), -ERANGE, "COPY past the end of the destination");
	copro_cmd_reset(&c);
	copro_cmd_timestamp(&c, &small, 4092);
	EXPECT(sub(ctx, 0, &c), -ERANGE, "TIMESTAMP at the last 4 bytes");
	copro_cmd_reset(&c);
	copro_cmd_fence(&c, &small, 4, 1);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "FENCE at a misaligned address");
	copro_cmd_reset(&c);
	copro_cmd_target(&c, 0, &small, 0, 1024, 256, 16, COPRO_FMT_XRGB8888);
	EXPECT(sub(ctx, 0, &c), -ERANGE, "SET_TARGET larger than its buffer");

	/* a read-only buffer written */
	copro_cmd_reset(&c);
	copro_cmd_copy(&c, &bo, 0, &ro, 0, 64);
	copro_cmd_fill(&c, &ro, 0, 64, 1);
	c.bos[1].flags = 0;
	EXPECT(sub(ctx, 0, &c), -EACCES, "a write to a buffer listed read-only");

	/* address fields that name no buffer of the list */
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 0, 64, 1);
	c.dw[2] = 1;	/* buffer index 1 of a 1-buffer list */
	EXPECT(sub(ctx, 0, &c), -EINVAL, "an address naming buffer 1 of 1");
	c.dw[2] = 0xffffffff;
	EXPECT(sub(ctx, 0, &c), -EINVAL, "an address naming buffer 2^32 - 1");
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 0, 64, 1);
	c.nbo = 0;
	EXPECT(sub(ctx, 0, &c), -EINVAL, "an address with an empty list");

	/* packets */
	w[0] = COPRO_PKT_HDR(0xff, 0, 1);
	copro_cmd_reset(&c);
	copro_cmd_raw(&c, w, 1);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "an unknown opcode");
	w[0] = COPRO_PKT_HDR(COPRO_OP_INTERRUPT, 0, COPRO_LEN_INTERRUPT);
	w[1] = 7;
	copro_cmd_reset(&c);
	copro_cmd_raw(&c, w, 2);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "INTERRUPT (the kernel's own)");
	memset(w, 0, sizeof(w));
	w[0] = COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE);
	copro_cmd_reset(&c);
	copro_cmd_raw(&c, w, COPRO_LEN_COPY_PTE);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "COPY_PTE (the kernel's own)");
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 0, 64, 1);
	c.dw[0] = COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL - 1);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "FILL one dword short");
	c.dw[0] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, 0);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "a NOP of length 0");
	c.dw[0] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, 7);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "a NOP running past the stream");
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 0, 66, 1);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "FILL of a size not a multiple of 4");
	copro_cmd_reset(&c);
	copro_cmd_rect(&c, 2, 0, 0, 10, 10, 0xffffffff);
	EXPECT(sub(ctx, 0, &c), -EINVAL,
	       "RECT on a slot this stream did not bind (another's target?)");
	copro_cmd_reset(&c);
	copro_cmd_target(&c, 4, &bo, 0, 64, 16, 16, COPRO_FMT_XRGB8888);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "SET_TARGET on slot 4");
	copro_cmd_reset(&c);
	copro_cmd_target(&c, 0, &bo, 0, 32, 16, 16, COPRO_FMT_XRGB8888);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "SET_TARGET with pitch < width x bpp");
	copro_cmd_reset(&c);
	copro_cmd_target(&c, 0, &bo, 0, 64, 16, 16, 9);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "SET_TARGET of an unknown format");
	copro_cmd_reset(&c);
	copro_cmd_fence(&c, &bo, 0, 1);
	c.dw[0] |= COPRO_FENCE_IRQ << 8;
	EXPECT(sub(ctx, 0, &c), -EINVAL, "FENCE with the interrupt flag");
	copro_cmd_reset(&c);
	copro_cmd_work(&c, 61000000000ull);
	EXPECT(sub(ctx, 0, &c), -EINVAL, "WORK of 61 s");
	copro_cmd_reset(&c);
	copro_cmd_target(&c, 0, &bo, 0, 64, 16, 16, COPRO_FMT_XRGB8888);
	copro_cmd_rect(&c, 0, 0, 0, 4, 4, 1);
	EXPECT(sub(ctx, COPRO_ENGINE_COPY, &c), -EINVAL,
	       "SET_TARGET on the copy engine");

	/* the submission's own fields */
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 0, 64, 1);
	memset(&a, 0, sizeof(a));
	a.ctx = ctx;
	a.cmds = (uintptr_t)c.dw;
	a.cmds_size = c.n * 4;
	a.bos = (uintptr_t)c.bos;
	a.bo_count = 1;
	a.flags = 1u << 7;
	EXPECT(raw_submit(&a), -EINVAL, "unknown submit flags");
	a.flags = 0;
	a.pad = 1;
	EXPECT(raw_submit(&a), -EINVAL, "a non-zero pad");
	a.pad = 0;
	a.cmds_size = 0;
	EXPECT(raw_submit(&a), -EINVAL, "an empty stream");
	a.cmds_size = 6;
	EXPECT(raw_submit(&a), -EINVAL, "a stream size not a multiple of 4");
	a.cmds_size = COPRO_SUBMIT_MAX_CMDS + 4;
	EXPECT(raw_submit(&a), -EINVAL, "a stream above 64 KiB");
	a.cmds_size = c.n * 4;
	a.bo_count = COPRO_SUBMIT_MAX_BOS + 1;
	EXPECT(raw_submit(&a), -EINVAL, "65 buffers");
	a.bo_count = 1;
	a.cmds = 16;
	EXPECT(raw_submit(&a), -EFAULT, "a stream pointer into nowhere");
	a.cmds = (uintptr_t)c.dw;
	a.bos = 16;
	EXPECT(raw_submit(&a), -EFAULT, "a buffer-list pointer into nowhere");
	a.bos = (uintptr_t)c.bos;
	c.bos[0].flags = 0x80;
	EXPECT(raw_submit(&a), -EINVAL, "unknown buffer flags");
	c.bos[0].flags = COPRO_BO_WRITE;
	{
		struct drm_copro_bo_ref two[2] = { c.bos[0], c.bos[0] };

		a.bos = (uintptr_t)two;
		a.bo_count = 2;
		EXPECT(raw_submit(&a), -EINVAL, "a buffer listed twice");
		a.bos = (uintptr_t)c.bos;
		a.bo_count = 1;
	}
	{
		struct drm_copro_sync s = { .handle = 999 };

		a.in_syncs = (uintptr_t)&s;
		a.in_sync_count = 1;
		EXPECT(raw_submit(&a), -ENOENT, "an in sync object that does not exist");
		a.in_sync_count = 0;
		a.out_syncs = (uintptr_t)&s;
		a.out_sync_count = 1;
		EXPECT(raw_submit(&a), -ENOENT, "an out sync object that does not exist");
		copro_syncobj_new(&dev, &s.handle);
		s.flags = 1;
		EXPECT(raw_submit(&a), -EINVAL, "sync flags");
		a.out_sync_count = COPRO_SUBMIT_MAX_SYNCS + 1;
		EXPECT(raw_submit(&a), -EINVAL, "65 out sync objects");
		a.out_sync_count = 0;
		copro_syncobj_free(&dev, s.handle);
	}

	/* the other ioctls */
	{
		struct drm_copro_gem_create g = { .size = 0 };
		struct drm_copro_gem_info gi = { .handle = 777 };
		struct drm_copro_ctx_create cc = { .priority = 3 };
		struct drm_copro_ctx_destroy cd = { .handle = 4242 };
		struct drm_copro_get_param gp = { .param = 99 };
		uint32_t h;

		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_GEM_CREATE, &g) ? -errno : 0,
		       -EINVAL, "a buffer of 0 bytes");
		g.size = 1ull << 40;
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_GEM_CREATE, &g) ? -errno : 0,
		       -EINVAL, "a buffer of 1 TiB");
		g.size = (256u << 20) + 4096;
		g.flags = COPRO_GEM_GTT;
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_GEM_CREATE, &g) ? -errno : 0,
		       -EINVAL, "a GTT buffer above 256 MiB");
		g.size = 4096;
		g.flags = 2;
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_GEM_CREATE, &g) ? -errno : 0,
		       -EINVAL, "buffer flags");
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_GEM_INFO, &gi) ? -errno : 0,
		       -ENOENT, "GEM_INFO of a handle never created");
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_CTX_CREATE, &cc) ? -errno : 0,
		       -EINVAL, "a priority above HIGH");
		cc.priority = 0;
		cc.flags = 2;	/* 1 is COPRO_CTX_CREATE_VM */
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_CTX_CREATE, &cc) ? -errno : 0,
		       -EINVAL, "context flags");
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_CTX_DESTROY, &cd) ? -errno : 0,
		       -ENOENT, "destroying a context never created");
		cd.handle = dead;
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_CTX_DESTROY, &cd) ? -errno : 0,
		       -ENOENT, "destroying a context twice");
		EXPECT(drmIoctl(dev.fd, DRM_IOCTL_COPRO_GET_PARAM, &gp) ? -errno : 0,
		       -EINVAL, "an unknown parameter");
		/* a context of another file */
		{
			struct copro_dev d2;

			copro_dev_open(&d2, NULL);
			copro_ctx_new(&d2, 0, &h);
			copro_ctx_new(&d2, 0, &h);
			copro_ctx_new(&d2, 0, &h);
			copro_cmd_reset(&c);
			copro_cmd_fill(&c, &bo, 0, 64, 1);
			EXPECT(sub(h, 0, &c), -ENOENT, "another file's context handle");
			copro_dev_close(&d2);
		}
	}

	/*
	 * One file cannot take the kernel's job memory from the others: its
	 * submits sleep (back-pressure) once it holds 1 MiB of it, while
	 * another process's job goes through.
	 */
	{
		uint32_t nop = COPRO_PKT_HDR(COPRO_OP_NOP, 0, 16384);
		struct copro_bo b2, tsb;
		struct copro_cmd big;
		uint64_t t0, t1, *tt;
		pid_t other;
		int n = 0, r = 0, st;

		bo_new(4096, &tsb);
		tt = tsb.map;
		copro_cmd_init(&big);
		copro_cmd_raw(&big, &nop, 1);
		big.dw = realloc(big.dw, 65536);
		memset(big.dw + 1, 0, 65532);
		big.n = 16384;	/* a 64 KiB stream: one NOP */
		copro_cmd_reset(&c);
		copro_cmd_work(&c, 1000000000);
		copro_cmd_timestamp(&c, &tsb, 0);
		t0 = copro_gpu_time(&dev);
		r = sub(ctx, 0, &c);
		other = fork();
		if (!other) {
			struct copro_dev d2;
			uint32_t c2;

			usleep(20000);
			copro_dev_open(&d2, NULL);
			copro_ctx_new(&d2, 0, &c2);
			copro_bo_new(&d2, 4096, &b2);
			copro_bo_map(&d2, &b2);
			copro_cmd_reset(&c);
			copro_cmd_fill(&c, &b2, 0, 4096, 0xabc);
			/* the copy engine is idle: done long before the WORK */
			_exit(!copro_run(&d2, c2, COPRO_ENGINE_COPY, &c) &&
			      all_u32(b2.map, 4096, 0xabc) &&
			      copro_gpu_time(&d2) < t0 + 500000000 ? 0 : 1);
		}
		while (!r && n < 32 && !(r = sub(ctx, 0, &big)))
			n++;
		t1 = copro_gpu_time(&dev);
		waitpid(other, &st, 0);
		check(!r && n == 32 && t1 >= tt[0] && tt[0],
		      "32 streams of 64 KiB behind a 1 s job: the submits slept "
		      "until it retired (%.0f ms)", (t1 - t0) / 1e6);
		check(WIFEXITED(st) && !WEXITSTATUS(st),
		      "meanwhile another process's job went through at once");
		copro_cmd_fini(&big);
	}

	/* another file cannot map our buffer by its mmap offset */
	{
		struct drm_copro_gem_info gi = { .handle = bo.handle };
		struct copro_dev d2;
		void *p;

		drmIoctl(dev.fd, DRM_IOCTL_COPRO_GEM_INFO, &gi);
		copro_dev_open(&d2, NULL);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, d2.fd,
			 gi.mmap_offset);
		check(p == MAP_FAILED && errno == EACCES,
		      "another file's mmap of our buffer's offset: EACCES");
		if (p != MAP_FAILED)
			munmap(p, 4096);
		copro_dev_close(&d2);
	}

	/* HIGH priority needs CAP_SYS_NICE (or the DRM master) */
	{
		pid_t pid = fork();
		int st;

		if (!pid) {
			struct copro_dev d2;
			uint32_t h;
			int r1, r2;

			if (copro_dev_open(&d2, "/dev/dri/renderD128") ||
			    setgid(65534) || setuid(65534))
				_exit(3);
			r1 = copro_ctx_new(&d2, COPRO_CTX_PRIORITY_HIGH, &h);
			r2 = copro_ctx_new(&d2, COPRO_CTX_PRIORITY_NORMAL, &h);
			_exit(r1 == -EACCES && r2 == 0 ? 0 : 1);
		}
		waitpid(pid, &st, 0);
		check(WIFEXITED(st) && !WEXITSTATUS(st),
		      "an unprivileged process: HIGH refused (EACCES), NORMAL "
		      "allowed");
	}

	/* after all that, good work still runs right */
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &bo, 0, 65536, 0x600d600d);
	check(!copro_run(&dev, ctx, 0, &c) && all_u32(bo.map, 65536, 0x600d600d),
	      "a good stream on the same context runs right after them");
	waitpid(by, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "another process's 60 jobs meanwhile: every result right");
	check(debugfs_value("copro_engines", "engine0: resets ") == 0 &&
	      debugfs_value("copro_engines", "faults ") == 0,
	      "no engine fault or reset: nothing bad reached the device");
	copro_cmd_fini(&c);
	return done();
}

