// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-rendertest prime: sharing buffers between DRM files with PRIME
 * (dma-buf), the one way a buffer leaves the file that made it on a
 * render node. Two files of this process stand for two clients; a third,
 * on card0, for the compositor that scans a client's buffer out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "rendertest.h"

static struct copro_dev b;	/* the second client: a file of its own */

static bool b_bo_new(uint64_t size, uint32_t flags, struct copro_bo *bo)
{
	return !copro_bo_new_flags(&b, size, flags, bo) && !copro_bo_map(&b, bo);
}

/*
 * A writer's job (20 ms, then a FILL of @wbuf) and at once a reader's job
 * in another file that copies from the same buffer (@rbuf, its handle
 * there) into the reader's @dst: the reader waits for the writer.
 */
static void t_implicit(struct copro_dev *wd, uint32_t wctx,
		       struct copro_bo *wbuf, struct copro_bo *wts,
		       struct copro_dev *rd, uint32_t rctx,
		       struct copro_bo *rbuf, struct copro_bo *dst,
		       struct copro_bo *rts, uint32_t pattern, const char *who)
{
	struct copro_cmd w, r;
	uint64_t *tw = wts->map, *tr = rts->map;

	memset(wts->map, 0, 4096);
	memset(rts->map, 0, 4096);
	copro_cmd_init(&w);
	copro_cmd_work(&w, 20000000);
	copro_cmd_fill(&w, wbuf, 0, wbuf->size, pattern);
	copro_cmd_timestamp(&w, wts, 0);
	copro_cmd_init(&r);
	copro_cmd_timestamp(&r, rts, 0);
	copro_cmd_copy(&r, dst, 0, rbuf, 0, 65536);
	check(!copro_submit(wd, wctx, 0, &w, NULL) &&
	      !copro_run(rd, rctx, 1, &r),
	      "%s: a writer's job and a reader's on another engine", who);
	/* the writer's context runs in order: a NOP after it is its end */
	copro_cmd_reset(&w);
	copro_cmd_nop(&w);
	copro_run(wd, wctx, 0, &w);
	check(tw[0] && tr[0] >= tw[0] && all_u32(dst->map, 65536, pattern),
	      "%s: the reader started after the writer's end (%.3f ms after "
	      "it) and read what it wrote (implicit sync: dma_resv)", who,
	      ((double)tr[0] - (double)tw[0]) / 1e6);
	copro_cmd_fini(&w);
	copro_cmd_fini(&r);
}

/* The compositor (card0) scans out a buffer client B renders into. */
static void t_scanout(struct copro_bo *bvram, struct copro_bo *bgtt,
		      struct copro_bo *bts, uint32_t bctx)
{
	struct copro_dev k;
	drmModeResPtr res;
	drmModeConnectorPtr conn;
	struct copro_bo own, shared, gtt;
	uint32_t h[4] = { 0 }, p[4] = { 0 }, o[4] = { 0 }, fb_own, fb_shared;
	uint32_t fb_gtt, crtc, w, hgt;
	uint64_t flip_at = 0, off, sub, *t;
	struct copro_cmd c;
	int fd, ret;

	if (copro_dev_open(&k, "/dev/dri/card0"))
		die("card0", -ENODEV);
	conn = kms_connector(k.fd, &res);
	crtc = res->crtcs[0];
	w = conn->modes[0].hdisplay;
	hgt = conn->modes[0].vdisplay;
	p[0] = w * 4;
	/* B's buffers are large enough for the mode (made by the caller) */
	if (copro_bo_new(&k, (uint64_t)p[0] * hgt, &own))
		die("buffer", -ENOMEM);
	h[0] = own.handle;
	if (drmModeAddFB2(k.fd, w, hgt, DRM_FORMAT_XRGB8888, h, p, o,
			  &fb_own, 0))
		die("AddFB2", -errno);
	check(!copro_bo_export(&b, bvram, &fd) &&
	      !copro_bo_import(&k, fd, &shared),
	      "the compositor imports a client's VRAM buffer");
	close(fd);
	h[0] = shared.handle;
	ret = drmModeAddFB2(k.fd, w, hgt, DRM_FORMAT_XRGB8888, h, p, o,
			    &fb_shared, 0);
	check(!ret, "a framebuffer on it (%d)", ret);
	copro_bo_export(&b, bgtt, &fd);
	copro_bo_import(&k, fd, &gtt);
	close(fd);
	h[0] = gtt.handle;
	ret = drmModeAddFB2(k.fd, w, hgt, DRM_FORMAT_XRGB8888, h, p, o,
			    &fb_gtt, 0);
	check(ret && errno == EINVAL,
	      "a framebuffer on an imported GTT buffer is refused (EINVAL)");
	check(!drmModeSetCrtc(k.fd, crtc, fb_own, 0, 0, &conn->connector_id,
			      1, &conn->modes[0]),
	      "mode set on the compositor's own buffer");

	/* B renders 50 ms into the shared buffer; the flip to it waits */
	memset(bts->map, 0, 4096);
	copro_cmd_init(&c);
	copro_cmd_work(&c, 50000000);
	copro_cmd_fill(&c, bvram, 0, (uint64_t)p[0] * hgt, 0x00402010);
	copro_cmd_timestamp(&c, bts, 0);
	off = mono_ns() - copro_gpu_time(&k);
	sub = mono_ns();
	ret = copro_submit(&b, bctx, 0, &c, NULL);
	check(!ret, "client B's 50 ms job into the shared buffer");
	ret = drmModePageFlip(k.fd, crtc, fb_shared, DRM_MODE_PAGE_FLIP_EVENT,
			      &flip_at);
	check(!ret, "the compositor's flip to it is queued at once");
	kms_wait_flip(k.fd, &flip_at);
	t = bts->map;
	printf("# the flip at %.3f ms after B's submit\n",
	       (flip_at - sub) / 1e6);
	check(flip_at && t[0] && flip_at - sub >= 50000000 &&
	      flip_at + 100000 >= t[0] + off,
	      "the flip waited for the client's rendering (the shared "
	      "buffer's dma_resv)");
	drmModeSetCrtc(k.fd, crtc, fb_own, 0, 0, &conn->connector_id, 1,
		       &conn->modes[0]);
	drmModeRmFB(k.fd, fb_shared);
	drmModeRmFB(k.fd, fb_own);
	copro_bo_free(&k, &gtt);
	copro_bo_free(&k, &shared);
	copro_bo_free(&k, &own);
	copro_cmd_fini(&c);
	drmModeFreeConnector(conn);
	drmModeFreeResources(res);
	copro_dev_close(&k);
}

int t_prime(void)
{
	struct copro_bo x, xi, y, ya, ts, tsb, g, gi, again;
	struct copro_cmd c;
	uint32_t actx = ctx_new(COPRO_CTX_PRIORITY_NORMAL), bctx;
	int fd, ret;

	if (copro_dev_open(&b, "/dev/dri/renderD128"))
		die("a second render file", -ENODEV);
	copro_ctx_new(&b, COPRO_CTX_PRIORITY_NORMAL, &bctx);

	/* A's buffer, filled by a job, to B through a dma-buf */
	bo_new(1 << 20, &x);
	bo_new(4096, &ts);
	bo_new(65536, &ya);
	copro_cmd_init(&c);
	copro_cmd_fill(&c, &x, 0, x.size, 0x11111111);
	copro_run(&dev, actx, 0, &c);
	ret = copro_bo_export(&dev, &x, &fd);
	check(!ret && fd >= 0, "A exports its VRAM buffer as a dma-buf (%d)",
	      ret);
	ret = copro_bo_import(&b, fd, &xi);
	check(!ret && xi.size == x.size,
	      "B imports it: a handle of its own, the same size (%d)", ret);
	check(!copro_bo_map(&b, &xi) && all_u32(xi.map, xi.size, 0x11111111),
	      "B maps it and reads what A's job wrote");
	ret = copro_bo_import(&dev, fd, &again);
	check(!ret && again.handle == x.handle,
	      "imported into A's own file: A's own handle again");
	close(fd);

	/* B's jobs use it like its own buffers */
	if (!b_bo_new(1 << 20, 0, &y) || !b_bo_new(4096, 0, &tsb))
		die("buffer", -ENOMEM);
	copro_cmd_reset(&c);
	copro_cmd_copy(&c, &y, 0, &xi, 4096, 65536);
	ret = copro_run(&b, bctx, 0, &c);
	check(!ret && all_u32(y.map, 65536, 0x11111111),
	      "B's job copies from it (%d)", ret);

	/* implicit sync across the files, both ways */
	t_implicit(&dev, actx, &x, &ts, &b, bctx, &xi, &y, &tsb, 0x22222222,
		   "A writes, B reads");
	t_implicit(&b, bctx, &xi, &tsb, &dev, actx, &x, &ya, &ts, 0x33333333,
		   "B writes, A reads");

	/* a GTT buffer (guest pages through the GART) likewise */
	ret = copro_bo_new_flags(&dev, 1 << 20, COPRO_GEM_GTT, &g);
	if (!ret)
		ret = copro_bo_map(&dev, &g);
	if (ret)
		die("GTT buffer", ret);
	memset(g.map, 0x5a, g.size);
	ret = copro_bo_export(&dev, &g, &fd);
	if (!ret)
		ret = copro_bo_import(&b, fd, &gi);
	close(fd);
	copro_cmd_reset(&c);
	copro_cmd_copy(&c, &y, 0, &gi, 0, 65536);
	check(!ret && !copro_run(&b, bctx, 1, &c) &&
	      all_u32(y.map, 65536, 0x5a5a5a5a),
	      "a GTT buffer shared the same way: B's copy engine reads it");

	/* the exporter lets go: the importer's reference keeps it */
	copro_bo_free(&dev, &x);
	copro_cmd_reset(&c);
	copro_cmd_fill(&c, &xi, 0, 65536, 0x44444444);
	copro_cmd_copy(&c, &y, 0, &xi, 0, 65536);
	ret = copro_run(&b, bctx, 0, &c);
	check(!ret && all_u32(y.map, 65536, 0x44444444),
	      "A freed its handle: B's still works (%d)", ret);

	/* bad input */
	check(copro_bo_import(&b, -1, &again) == -EBADF,
	      "importing fd -1: EBADF");
	{
		int pfd[2];

		if (pipe(pfd))
			die("pipe", -errno);
		ret = copro_bo_import(&b, pfd[0], &again);
		check(ret == -EINVAL, "importing a pipe: EINVAL (%d)", ret);
		close(pfd[0]);
		close(pfd[1]);
	}
	{
		struct drm_gem_flink f = { .handle = y.handle };
		struct drm_gem_open op = { .name = 1 };

		/* render nodes have no global names: only PRIME shares */
		check(drmIoctl(b.fd, DRM_IOCTL_GEM_FLINK, &f) && errno == EACCES,
		      "GEM_FLINK on a render node: EACCES");
		check(drmIoctl(b.fd, DRM_IOCTL_GEM_OPEN, &op) && errno == EACCES,
		      "GEM_OPEN on a render node: EACCES");
	}
	ret = copro_bo_export(&b, &(struct copro_bo){ .handle = 0xdead }, &fd);
	check(ret == -ENOENT, "exporting a handle B does not have: ENOENT (%d)",
	      ret);

	/* the compositor scans out a client's buffer */
	{
		struct copro_bo big;

		if (!b_bo_new(8 << 20, 0, &big))
			die("buffer", -ENOMEM);
		t_scanout(&big, &gi, &tsb, bctx);
		copro_bo_free(&b, &big);
	}

	copro_cmd_fini(&c);
	copro_bo_free(&b, &gi);
	copro_bo_free(&dev, &g);
	copro_bo_free(&b, &xi);
	copro_bo_free(&b, &y);
	copro_bo_free(&b, &tsb);
	copro_bo_free(&dev, &ts);
	copro_bo_free(&dev, &ya);
	copro_ctx_free(&b, bctx);
	copro_dev_close(&b);
	return done();
}
