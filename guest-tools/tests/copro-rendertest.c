// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest: the render uapi's checks, run inside the Linux guest
 * through libcopro. Prints TAP.
 *
 *   copro-rendertest basic     FILL, COPY, RECT, WORK, TIMESTAMP give the
 *                              right bytes; both engines; fdinfo
 *   copro-rendertest bad       every ioctl with bad input gets its errno,
 *                              while another process's results stay right
 *   copro-rendertest fences    ordering in a context, across contexts and
 *                              engines (sync objects), waits with
 *                              timeouts, timeline points, sync_file
 *   copro-rendertest multi N   N processes rendering at once; one killed
 *                              mid-submission leaks nothing
 *   copro-rendertest preempt   high priority preempts a long low-priority
 *                              job; both outputs equal uninterrupted runs
 *   copro-rendertest kms       a page flip waits for the rendering into its
 *                              framebuffer (dma_resv implicit sync)
 *   copro-rendertest hang      (x-fault-injection=on) a long healthy job
 *                              survives the timeout, a hung or faulting
 *                              context is banned, innocents complete
 *
 * Times are the device's (virtual under -icount): WORK ns and TIMESTAMP.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "libcopro.h"
#include "copro/copro_cmd.h"
#include "copro/copro_regs.h"

static int tap_n, tap_failed;

static bool check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	tap_failed += !ok;
	return ok;
}

static int done(void)
{
	printf("1..%d\n%d passed, %d failed\n", tap_n, tap_n - tap_failed,
	       tap_failed);
	return tap_failed ? 1 : 0;
}

static struct copro_dev dev;

static void die(const char *what, int err)
{
	printf("Bail out! %s: %s\n", what, strerror(-err));
	exit(2);
}

static void bo_new(uint64_t size, struct copro_bo *bo)
{
	int ret = copro_bo_new(&dev, size, bo);

	if (!ret)
		ret = copro_bo_map(&dev, bo);
	if (ret)
		die("buffer", ret);
}

static uint32_t ctx_new(uint32_t prio)
{
	uint32_t ctx;
	int ret = copro_ctx_new(&dev, prio, &ctx);

	if (ret)
		die("context", ret);
	return ctx;
}

static uint64_t debugfs_value(const char *file, const char *key)
{
	char path[128], line[256];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/0/%s", file);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (p) {
			v = strtoull(p + strlen(key), NULL, 0);
			break;
		}
	}
	fclose(f);
	return v;
}

static bool all_u32(const void *p, size_t bytes, uint32_t v)
{
	const uint32_t *w = p;

	for (size_t i = 0; i < bytes / 4; i++)
		if (w[i] != v)
			return false;
	return true;
}

/* ---- basic ---- */

static int t_basic(void)
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
		char path[64], line[256];
		bool eng = false, mem = false;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", dev.fd);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			uint64_t v;

			if (sscanf(line, "drm-engine-render: %" SCNu64, &v) == 1)
				eng = v >= 2000000;
			if (sscanf(line, "drm-memory-vram: %" SCNu64, &v) == 1)
				mem = v >= 2048 + 256 + 4;
			if (sscanf(line, "drm-memory-gtt: %" SCNu64, &v) == 1)
				mem = mem && v == 1024;
			if (!strncmp(line, "drm-", 4))
				printf("# %s", line);
		}
		if (f)
			fclose(f);
		check(eng && mem, "fdinfo: drm-engine-render ns, drm-memory-vram "
		      "and -gtt");
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

static int t_bad(void)
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
		cc.flags = 1;
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

/* ---- fences ---- */

static int t_fences(void)
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

static int t_multi(int n)
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

		copro_dev_open(&d, NULL);
		copro_ctx_new(&d, COPRO_CTX_PRIORITY_NORMAL, &ctx);
		copro_bo_new(&d, 1 << 20, &bo);
		copro_cmd_init(&c);
		copro_cmd_fill(&c, &bo, 0, 1 << 20, 0xdead);
		copro_cmd_work(&c, 2000000);
		for (int i = 0; i < 200; i++)
			copro_submit(&d, ctx, 0, &c, NULL);
		for (;;)
			pause();
	}
	usleep(20000);
	kill(victim, SIGKILL);
	waitpid(victim, &status, 0);
	check(WIFSIGNALED(status), "a submitting process killed mid-way");
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

		printf("# jobs run %" PRIu64 " since the start\n", run - pool0);
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
	check(worker(30, 5, false) == 0, "the device renders right afterwards");
	return done();
}

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

static int t_preempt(void)
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

	/* now together: high-priority jobs every 3 ms into the low one */
	memset(a.map, 0, a.size);
	memset(img.map, 0, img.size);
	memset(b.map, 0, b.size);
	memset(ts.map, 0, 4096);
	p0 = debugfs_value("copro_engines", "preemptions ");
	copro_cmd_reset(&c);
	low_stream(&c, &a, &img, &ts);
	copro_submit(&dev, lo, 0, &c, &o);
	for (int i = 0; i < nhigh; i++) {
		uint64_t until = copro_gpu_time(&dev) + 3000000;
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
	check(lat_max < 1000000,
	      "submit-to-start of a high-priority job under 1 ms of device time");
	check(!memcmp(a.map, a2.map, a.size) && !memcmp(img.map, img2.map, img.size),
	      "the preempted-and-resumed low job's output equals its "
	      "uninterrupted run, byte for byte");
	check(!memcmp(b.map, b2.map, b.size),
	      "the high-priority jobs' output equals theirs alone");
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

static int t_hang(void)
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

	/* repeated hangs: the driver recovers every time */
	for (int i = 0; i < 3; i++) {
		uint32_t h = ctx_new(COPRO_CTX_PRIORITY_NORMAL);

		inject(0, COPRO_INJECT_HANG);
		copro_cmd_reset(&c);
		copro_cmd_fill(&c, &x, 0, 4, 1);
		copro_run(&dev, h, 0, &c);
	}
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

/* ---- implicit sync with KMS ---- */

static void on_flip(int fd, unsigned int seq, unsigned int sec,
		    unsigned int usec, void *data)
{
	uint64_t *t = data;

	(void)fd;
	(void)seq;
	*t = sec * 1000000000ull + usec * 1000ull;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int t_kms(void)
{
	struct copro_dev k;
	drmModeResPtr res;
	drmModeConnectorPtr conn = NULL;
	drmModeModeInfo mode;
	struct copro_bo fb_bo[2], ts;
	uint32_t fb[2], crtc, ctx, pitch;
	struct copro_cmd c;
	uint64_t flip_at = 0, sub_mono, off, *t;
	int fd, ret;
	struct copro_submit_opts o = { .fence_fd = &fd };

	if (copro_dev_open(&k, "/dev/dri/card0"))
		die("card0", -ENODEV);
	res = drmModeGetResources(k.fd);
	for (int i = 0; res && i < res->count_connectors && !conn; i++) {
		conn = drmModeGetConnector(k.fd, res->connectors[i]);
		if (conn && (conn->connection != DRM_MODE_CONNECTED ||
			     !conn->count_modes)) {
			drmModeFreeConnector(conn);
			conn = NULL;
		}
	}
	if (!conn)
		die("no connected connector", -ENODEV);
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
	{
		drmEventContext ev = {
			.version = 2,
			.page_flip_handler = on_flip,
		};
		struct pollfd p = { k.fd, POLLIN, 0 };

		while (!flip_at && poll(&p, 1, 5000) > 0)
			drmHandleEvent(k.fd, &ev);
	}
	printf("# rendering done %.3f ms after the submit, the flip at %.3f ms\n",
	       (t[0] + off - sub_mono) / 1e6, (flip_at - sub_mono) / 1e6);
	check(copro_fence_status(fd) == 1, "the job's sync_file signalled");
	check(flip_at && flip_at + 100000 >= t[0] + off &&
	      flip_at - sub_mono >= 50000000,
	      "the flip waited for the rendering (dma_resv implicit sync)");
	check(flip_at && flip_at < t[0] + off + 2 * 16700000ull,
	      "and took effect at one of the next vblanks after it");
	close(fd);
	copro_cmd_fini(&c);
	return done();
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "basic";
	int ret = copro_dev_open(&dev, NULL);

	if (ret)
		die("no copro DRM device", ret);
	if (!strcmp(what, "basic"))
		return t_basic();
	if (!strcmp(what, "bad"))
		return t_bad();
	if (!strcmp(what, "fences"))
		return t_fences();
	if (!strcmp(what, "multi"))
		return t_multi(argc > 2 ? atoi(argv[2]) : 4);
	if (!strcmp(what, "preempt"))
		return t_preempt();
	if (!strcmp(what, "hang"))
		return t_hang();
	if (!strcmp(what, "kms"))
		return t_kms();
	fprintf(stderr, "usage: copro-rendertest basic|bad|fences|multi N|preempt|hang\n");
	return 2;
}
