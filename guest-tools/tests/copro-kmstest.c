// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-kmstest: the project's own KMS checks against the copro DRM
 * driver, through libdrm, run inside the Linux guest. Prints TAP.
 *
 *   copro-kmstest [all]     every check below
 *   copro-kmstest flips N   N page flips with events: every flip on the
 *                           next vblank (sequence + 1), timestamps exactly
 *                           the device's vsync times (period apart)
 *   copro-kmstest crc       CRC-32 of what the CRTC scans out, as R, G, B
 *                           bytes row by row (what QEMU's screendump
 *                           shows), printed as "SCANOUT-CRC w h crc"
 *   copro-kmstest fuzz N    N seeded random atomic commits and legacy
 *                           ioctls: errnos only (dmesg is the caller's)
 *   copro-kmstest seq       the next vblank's sequence number
 *   copro-kmstest planes    the CRTC with its primary off, a positioned
 *                           primary, damage clips, asynchronous flips
 *   copro-kmstest bench     flip rate, vblank spread, cursor updates
 *
 * "all" also checks pipe CRCs (debugfs crtc-0/crc: the device's CRC of
 * the composed frame) against the frames the test drew, cursor included.
 *
 * Timing checks need the guest under -icount: the vblank timestamps are
 * then the device's exact virtual vsync times.
 *
 * One program past a thousand lines: one KMS client of the driver (one
 * open card, one set of framebuffers, one CRC model of what is scanned
 * out) that the Linux tests run one check at a time; scripts/build-linux.sh
 * builds it, with tap.c, into the Linux guest's initramfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "tap.h"


struct buf {
	uint32_t handle, fb, pitch, w, h;
	uint64_t size;
	uint8_t *map;
};

struct kms {
	int fd;
	uint32_t crtc, conn, cursor_plane;
	drmModeModeInfo mode;
	uint64_t period_ns;
};

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
		size_t n = strlen(key);

		if (!strncmp(line, key, n) && (line[n] == ':' || line[n] == ' ')) {
			char *p = line + n + 1;

			while (*p == ' ')
				p++;
			/* copro_regs: "NAME 0xOFF 0xVALUE"; copro_state: "key: v" */
			if (!strncmp(p, "0x", 2) && strchr(p, ' '))
				p = strchr(p, ' ') + 1;
			v = strtoull(p, NULL, 0);
			break;
		}
	}
	fclose(f);
	return v;
}

static int buf_create(struct kms *k, struct buf *b, uint32_t w, uint32_t h,
		      uint32_t format, uint32_t bpp)
{
	struct drm_mode_create_dumb c = { .width = w, .height = h, .bpp = bpp };
	struct drm_mode_map_dumb m = { 0 };
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };

	if (drmIoctl(k->fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return -errno;
	b->handle = c.handle;
	b->pitch = c.pitch;
	b->size = c.size;
	b->w = w;
	b->h = h;
	m.handle = c.handle;
	if (drmIoctl(k->fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return -errno;
	b->map = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd,
		      m.offset);
	if (b->map == MAP_FAILED)
		return -errno;
	handles[0] = b->handle;
	pitches[0] = b->pitch;
	if (drmModeAddFB2(k->fd, w, h, format, handles, pitches, offsets,
			  &b->fb, 0))
		return -errno;
	return 0;
}

/* A picture that differs at every pixel between frames and positions. */
static void buf_fill(struct buf *b, uint32_t seed)
{
	uint32_t x, y;

	for (y = 0; y < b->h; y++) {
		uint32_t *row = (uint32_t *)(b->map + (size_t)y * b->pitch);

		for (x = 0; x < b->w; x++)
			row[x] = ((x * 255 / b->w) << 16) |
				 ((y * 255 / b->h) << 8) |
				 ((x ^ y ^ seed) & 0xff);
	}
}

static int kms_open(struct kms *k)
{
	drmModeRes *res;
	drmModeConnector *conn;
	drmVersionPtr ver;
	drmModePlaneRes *pres;
	uint32_t i;

	k->fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	ver = drmGetVersion(k->fd);
	if (!ver || strcmp(ver->name, "copro"))
		return -ENODEV;
	drmFreeVersion(ver);
	drmSetClientCap(k->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	res = drmModeGetResources(k->fd);
	if (!res || res->count_crtcs != 1 || res->count_connectors != 1)
		return -ENODEV;
	k->crtc = res->crtcs[0];
	k->conn = res->connectors[0];
	drmModeFreeResources(res);
	conn = drmModeGetConnector(k->fd, k->conn);
	if (!conn || conn->connection != DRM_MODE_CONNECTED ||
	    !conn->count_modes)
		return -ENODEV;
	k->mode = conn->modes[0];
	for (i = 0; i < (uint32_t)conn->count_modes; i++)
		if (conn->modes[i].type & DRM_MODE_TYPE_PREFERRED)
			k->mode = conn->modes[i];
	drmModeFreeConnector(conn);
	pres = drmModeGetPlaneResources(k->fd);
	for (i = 0; pres && i < pres->count_planes; i++) {
		drmModeObjectProperties *props =
			drmModeObjectGetProperties(k->fd, pres->planes[i],
						   DRM_MODE_OBJECT_PLANE);
		uint32_t j;

		for (j = 0; props && j < props->count_props; j++) {
			drmModePropertyRes *p = drmModeGetProperty(k->fd,
								   props->props[j]);

			if (p && !strcmp(p->name, "type") &&
			    props->prop_values[j] == DRM_PLANE_TYPE_CURSOR)
				k->cursor_plane = pres->planes[i];
			drmModeFreeProperty(p);
		}
		drmModeFreeObjectProperties(props);
	}
	drmModeFreePlaneResources(pres);
	k->period_ns = debugfs_value("copro_state", "period_ns");
	return k->period_ns ? 0 : -ENOENT;
}

struct flip_ev {
	unsigned int seq;
	uint64_t us;
	int got;
};

static void on_flip(int fd, unsigned int seq, unsigned int sec,
		    unsigned int usec, void *data)
{
	struct flip_ev *ev = data;

	(void)fd;

	ev->seq = seq;
	ev->us = (uint64_t)sec * 1000000 + usec;
	ev->got++;
}

static int wait_event(struct kms *k, struct flip_ev *ev)
{
	drmEventContext ctx = {
		.version = 2,
		.page_flip_handler = on_flip,
		.vblank_handler = on_flip,
	};

	ev->got = 0;
	while (!ev->got)
		if (drmHandleEvent(k->fd, &ctx))
			return -errno;
	return 0;
}

/*
 * N flips between two buffers, each requested after the previous one's
 * event: each must land on the very next vblank, and the event times must
 * be the device's vsync times: each one exactly period_ns after the last
 * (the device rounds k * 1e9 / refresh down: within 1 ns), give or take
 * the events' microsecond resolution. Over many frames the guest's clock
 * may run a few parts per million off the device's (its calibration):
 * that drift is reported, and bounded by 20 ppm.
 */
static void test_flips(struct kms *k, struct buf *bufs, int n, bool bench)
{
	struct flip_ev ev = { 0 };
	unsigned int seq0 = 0, bad_seq = 0;
	uint64_t us0 = 0, max_err = 0, prev_us = 0;
	double sum = 0, sum2 = 0, drift_ppm = 0;
	uint64_t flips0 = debugfs_value("copro_regs", "DISP_FLIPS");
	unsigned int prev_seq = 0;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		err = drmModePageFlip(k->fd, k->crtc, bufs[(i + 1) % 2].fb,
				      DRM_MODE_PAGE_FLIP_EVENT, &ev);
		if (err)
			break;
		err = wait_event(k, &ev);
		if (i == 0) {
			seq0 = ev.seq;
			us0 = ev.us;
		} else {
			int64_t want = (int64_t)(ev.seq - prev_seq) *
				       (int64_t)k->period_ns;
			int64_t got = (int64_t)(ev.us - prev_us) * 1000;
			uint64_t e = llabs(got - want);
			double d = (double)(ev.us - prev_us);

			if (ev.seq != prev_seq + 1)
				bad_seq++;
			if (e > max_err)
				max_err = e;
			sum += d;
			sum2 += d * d;
		}
		prev_seq = ev.seq;
		prev_us = ev.us;
	}
	if (n > 1 && ev.seq != seq0)
		drift_ppm = ((double)(prev_us - us0) * 1000 /
			     ((double)(prev_seq - seq0) * k->period_ns) - 1) * 1e6;
	check(!err, "%d page flips with events (%s)", n, strerror(-err));
	check(!bad_seq, "every flip completed on the next vblank (sequence + 1): %u late",
	      bad_seq);
	check(max_err <= 2000,
	      "flip events one vsync period apart: max error %" PRIu64 " ns",
	      max_err);
	check(fabs(drift_ppm) <= 20,
	      "the guest clock against the device's over %d frames: %.2f ppm",
	      n, drift_ppm);
	check(debugfs_value("copro_regs", "DISP_FLIPS") - flips0 == (uint64_t)n,
	      "the device made exactly %d flips", n);
	if (bench && n > 2) {
		double m = sum / (n - 1);
		double sd = sqrt(fmax(sum2 / (n - 1) - m * m, 0));

		printf("BENCH flips %d period_us %.3f spread %.5f%% drift %.2f ppm\n",
		       n, m, 100 * sd / m, drift_ppm);
	}
}

static void test_vblank_wait(struct kms *k)
{
	drmVBlank vbl;
	unsigned int seq = 0, bad = 0;
	uint64_t us = 0, max_err = 0;
	int i, err = 0;

	for (i = 0; i < 10 && !err; i++) {
		memset(&vbl, 0, sizeof(vbl));
		vbl.request.type = DRM_VBLANK_RELATIVE;
		vbl.request.sequence = 1;
		err = drmWaitVBlank(k->fd, &vbl) ? -errno : 0;
		if (err)
			break;
		if (i) {
			uint64_t t = (uint64_t)vbl.reply.tval_sec * 1000000 +
				     vbl.reply.tval_usec;
			int64_t e = (int64_t)(t - us) * 1000 - (int64_t)k->period_ns;

			if (vbl.reply.sequence != seq + 1)
				bad++;
			if ((uint64_t)llabs(e) > max_err)
				max_err = llabs(e);
		}
		seq = vbl.reply.sequence;
		us = (uint64_t)vbl.reply.tval_sec * 1000000 + vbl.reply.tval_usec;
	}
	check(!err && !bad, "10 vblank waits, one vblank apart (%s, %u skipped)",
	      strerror(-err), bad);
	check(max_err <= 2000, "vblank wait times one period apart: max error %" PRIu64 " ns",
	      max_err);
}

static void test_cursor(struct kms *k, bool bench)
{
	struct drm_mode_create_dumb c = { .width = 64, .height = 64, .bpp = 32 };
	struct drm_mode_create_dumb small = { .width = 32, .height = 32, .bpp = 32 };
	int i, err, moves = 0;
	uint64_t v0, v1, pos;

	check(!drmIoctl(k->fd, DRM_IOCTL_MODE_CREATE_DUMB, &c), "cursor buffer");
	err = drmModeSetCursor(k->fd, k->crtc, c.handle, 64, 64);
	check(!err, "64x64 cursor set (%d)", err);
	check(debugfs_value("copro_regs", "CURSOR_CONTROL") == 1,
	      "the device's cursor is on");
	v0 = debugfs_value("copro_regs", "DISP_VSYNC_COUNT");
	for (i = 0; i < 200; i++)
		moves += !drmModeMoveCursor(k->fd, k->crtc, i * 3, i * 2);
	v1 = debugfs_value("copro_regs", "DISP_VSYNC_COUNT");
	check(moves == 200, "200 cursor moves accepted");
	pos = debugfs_value("copro_regs", "CURSOR_POS");
	check(pos == ((uint64_t)(199 * 2) << 16 | 199 * 3),
	      "the device's cursor is where it was moved last (0x%" PRIx64 ")", pos);
	check(v1 - v0 < 200, "cursor moves are asynchronous: 200 moves took %" PRIu64 " vblanks",
	      v1 - v0);
	if (bench)
		printf("BENCH cursor moves 200 vblanks %" PRIu64 "\n", v1 - v0);
	check(!drmModeMoveCursor(k->fd, k->crtc, -63, -63) &&
	      debugfs_value("copro_regs", "CURSOR_POS") ==
	      (((uint64_t)(uint16_t)-63 << 16) | (uint16_t)-63),
	      "cursor partly off screen at (-63, -63)");
	check(!drmIoctl(k->fd, DRM_IOCTL_MODE_CREATE_DUMB, &small), "32x32 buffer");
	err = drmModeSetCursor(k->fd, k->crtc, small.handle, 32, 32);
	check(err == -EINVAL, "a 32x32 cursor is refused: %s", strerror(-err));
	err = drmModeSetCursor(k->fd, k->crtc, 0x7777, 64, 64);
	check(err == -ENOENT, "a cursor of a bad handle is refused: %s",
	      strerror(-err));
	check(!drmModeSetCursor(k->fd, k->crtc, 0, 0, 0) &&
	      debugfs_value("copro_regs", "CURSOR_CONTROL") == 0,
	      "cursor off");
}

static int addfb(struct kms *k, uint32_t handle, uint32_t w, uint32_t h,
		 uint32_t fmt, uint32_t pitch, uint32_t offset, uint64_t mod,
		 bool with_mod)
{
	uint32_t handles[4] = { handle }, pitches[4] = { pitch };
	uint32_t offsets[4] = { offset }, fb = 0;
	uint64_t mods[4] = { mod };
	int err;

	if (with_mod)
		err = drmModeAddFB2WithModifiers(k->fd, w, h, fmt, handles,
						 pitches, offsets, mods, &fb,
						 DRM_MODE_FB_MODIFIERS);
	else
		err = drmModeAddFB2(k->fd, w, h, fmt, handles, pitches,
				    offsets, &fb, 0);
	if (!err)
		drmModeRmFB(k->fd, fb);
	return err < 0 ? err : -err;
}

static void test_bad_input(struct kms *k, struct buf *b)
{
	drmModeModeInfo mode = k->mode;
	uint32_t conn = k->conn;
	int err;

	check(addfb(k, b->handle, 64, 64, DRM_FORMAT_XRGB8888, b->pitch, 0,
		    DRM_FORMAT_MOD_LINEAR, true) == 0, "linear modifier accepted");
	err = addfb(k, b->handle, 64, 64, DRM_FORMAT_XRGB8888, b->pitch, 0,
		    I915_FORMAT_MOD_X_TILED, true);
	check(err == -EINVAL, "a tiled modifier is refused: %s", strerror(-err));
	err = addfb(k, b->handle, 64, 64, DRM_FORMAT_XRGB8888, b->pitch, 0,
		    DRM_FORMAT_MOD_INVALID, true);
	check(err == -EINVAL, "DRM_FORMAT_MOD_INVALID is refused: %s", strerror(-err));
	err = addfb(k, b->handle, 64, 64, DRM_FORMAT_NV12, b->pitch, 0, 0, false);
	check(err == -EINVAL, "NV12 is refused: %s", strerror(-err));
	err = addfb(k, b->handle, 64, 64, DRM_FORMAT_ABGR2101010, b->pitch, 0, 0,
		    false);
	check(err == -EINVAL, "ABGR2101010 is refused: %s", strerror(-err));
	err = addfb(k, b->handle, 3, 4, DRM_FORMAT_RGB565, 6, 0, 0, false);
	check(err == -EINVAL, "a pitch that is not a multiple of 4 is refused: %s",
	      strerror(-err));
	err = addfb(k, b->handle, 64, 64, DRM_FORMAT_XRGB8888, 128, 0, 0, false);
	check(err == -EINVAL, "a pitch below the width is refused: %s",
	      strerror(-err));
	err = addfb(k, b->handle, 64, 64, DRM_FORMAT_XRGB8888, b->pitch, 2, 0,
		    false);
	check(err == -EINVAL, "an unaligned offset is refused: %s", strerror(-err));
	err = addfb(k, b->handle, b->w, b->h * 4, DRM_FORMAT_XRGB8888, b->pitch,
		    0, 0, false);
	check(err == -EINVAL, "a framebuffer larger than its buffer is refused: %s",
	      strerror(-err));
	err = addfb(k, 0x7777, 64, 64, DRM_FORMAT_XRGB8888, 256, 0, 0, false);
	check(err == -ENOENT, "a bad handle is refused: %s", strerror(-err));
	err = addfb(k, b->handle, 8192, 8, DRM_FORMAT_XRGB8888, 32768, 0, 0,
		    false);
	check(err == -EINVAL, "an 8192-wide framebuffer is refused: %s",
	      strerror(-err));

	/* a mode at another refresh rate: the device has only one */
	mode.clock = mode.clock * 3 / 2;
	err = drmModeSetCrtc(k->fd, k->crtc, b->fb, 0, 0, &conn, 1, &mode);
	check(err == -EINVAL, "a mode at 1.5x the refresh is refused: %s",
	      strerror(-err));
	mode = k->mode;
	mode.hdisplay = 5000;
	mode.hsync_start = 5010;
	mode.hsync_end = 5020;
	mode.htotal = 5030;
	err = drmModeSetCrtc(k->fd, k->crtc, b->fb, 0, 0, &conn, 1, &mode);
	check(err == -EINVAL || err == -ENOSPC,
	      "a 5000-wide mode is refused: %s", strerror(-err));
	err = drmModePageFlip(k->fd, k->crtc, 0x7777, DRM_MODE_PAGE_FLIP_EVENT, NULL);
	check(err == -ENOENT || err == -EINVAL, "a flip to a bad framebuffer is refused: %s",
	      strerror(-err));
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	size_t i;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t c = i;
			int j;

			for (j = 0; j < 8; j++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/*
 * The CRC-32 of what the CRTC shows, as R, G, B bytes row by row (QEMU's
 * screendump), computed from the framebuffer it scans out (GETFB2 gives
 * root the buffer's handle). The cursor must be off.
 */
static int scanout_crc(struct kms *k)
{
	drmModeCrtc *crtc = drmModeGetCrtc(k->fd, k->crtc);
	drmModeFB2 *fb;
	struct drm_mode_map_dumb m = { 0 };
	uint8_t *map, *row;
	uint32_t crc = 0, x, y, w, h;
	size_t size;

	if (!crtc || !crtc->buffer_id || !crtc->mode_valid)
		return -ENOENT;
	fb = drmModeGetFB2(k->fd, crtc->buffer_id);
	if (!fb || !fb->handles[0])
		return -EPERM;
	w = crtc->mode.hdisplay;
	h = crtc->mode.vdisplay;
	m.handle = fb->handles[0];
	if (drmIoctl(k->fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return -errno;
	size = (size_t)fb->pitches[0] * (crtc->y + h) + fb->offsets[0];
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, k->fd, m.offset);
	if (map == MAP_FAILED)
		return -errno;
	row = malloc(w * 3);
	for (y = 0; y < h; y++) {
		const uint8_t *src = map + fb->offsets[0] +
				     (size_t)(y + crtc->y) * fb->pitches[0];

		for (x = 0; x < w; x++) {
			uint32_t X = x + crtc->x;

			switch (fb->pixel_format) {
			case DRM_FORMAT_XRGB8888:
			case DRM_FORMAT_ARGB8888:
				row[3 * x] = src[4 * X + 2];
				row[3 * x + 1] = src[4 * X + 1];
				row[3 * x + 2] = src[4 * X];
				break;
			case DRM_FORMAT_RGB565: {
				uint16_t p = src[2 * X] | src[2 * X + 1] << 8;
				uint8_t r = p >> 11, g = (p >> 5) & 63, b = p & 31;

				row[3 * x] = r << 3 | r >> 2;
				row[3 * x + 1] = g << 2 | g >> 4;
				row[3 * x + 2] = b << 3 | b >> 2;
				break;
			}
			default:
				memset(row + 3 * x, src[X], 3);
			}
		}
		crc = crc32_update(crc, row, w * 3);
	}
	printf("SCANOUT-CRC %u %u %08x\n", w, h, crc);
	free(row);
	munmap(map, size);
	drmModeFreeFB2(fb);
	drmModeFreeCrtc(crtc);
	return 0;
}

/* The composed frame's CRC: @b (XRGB8888) with a cursor image over it. */
static uint32_t frame_crc(const struct buf *b, const uint32_t *cursor,
			  int cx, int cy)
{
	uint8_t *row = malloc(b->w * 3);
	uint32_t crc = 0, x, y;

	for (y = 0; y < b->h; y++) {
		const uint32_t *src = (const uint32_t *)(b->map + (size_t)y * b->pitch);

		for (x = 0; x < b->w; x++) {
			uint32_t p = src[x], c = 0, a = 0, i;

			if (cursor && (int)x >= cx && (int)x < cx + 64 &&
			    (int)y >= cy && (int)y < cy + 64) {
				c = cursor[(y - cy) * 64 + (x - cx)];
				a = c >> 24;
			}
			for (i = 0; i < 3; i++) {
				uint32_t sh = 16 - 8 * i;
				uint32_t sv = (p >> sh) & 255, cv = (c >> sh) & 255;

				/* the device's blend: straight alpha, rounded */
				row[3 * x + i] = (cv * a + sv * (255 - a) + 127) / 255;
			}
		}
		crc = crc32_update(crc, row, b->w * 3);
	}
	free(row);
	return crc;
}

/*
 * Pipe CRCs through debugfs crtc-0/crc: @n consecutive frames, each
 * with the CRC @want.
 */
static bool pipe_crcs(uint32_t want, int n, const char *what)
{
	const char *dir = "/sys/kernel/debug/dri/0/crtc-0/crc";
	char path[128], line[64];
	unsigned int frame = 0, crc = 0, last = 0;
	int i, good = 0, fd;

	snprintf(path, sizeof(path), "%s/control", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "auto", 4) != 4) {
		check(false, "%s: crtc-0/crc/control: %s", what, strerror(errno));
		return false;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		check(false, "%s: crtc-0/crc/data: %s", what, strerror(errno));
		return false;
	}
	/*
	 * One entry per read, "0xFRAME 0xCRC\n" padded with a NUL; the first
	 * may be of the frame before the change.
	 */
	for (i = 0; i < n + 1; i++) {
		ssize_t len = read(fd, line, sizeof(line) - 1);

		if (len <= 0)
			break;
		line[len] = 0;
		if (sscanf(line, "%x %x", &frame, &crc) != 2)
			break;
		if (i && crc == want && (good == 0 || frame == last + 1))
			good++;
		last = frame;
	}
	close(fd);
	return check(good == n, "%s: %d pipe CRCs of consecutive frames equal what the test drew (%08x, last %08x)",
		     what, n, want, crc);
}

static void test_pipe_crc(struct kms *k, struct buf *bufs)
{
	struct drm_mode_create_dumb c = { .width = 64, .height = 64, .bpp = 32 };
	struct drm_mode_map_dumb m = { 0 };
	uint32_t *img;
	int i;

	check(!drmModeSetCrtc(k->fd, k->crtc, bufs[1].fb, 0, 0, &k->conn, 1,
			      &k->mode), "buffer 1 on screen");
	pipe_crcs(frame_crc(&bufs[1], NULL, 0, 0), 3, "scanout");
	if (drmIoctl(k->fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return;
	m.handle = c.handle;
	drmIoctl(k->fd, DRM_IOCTL_MODE_MAP_DUMB, &m);
	img = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd,
		   m.offset);
	if (img == MAP_FAILED)
		return;
	/* transparent, half and opaque columns of colours */
	for (i = 0; i < 64 * 64; i++)
		img[i] = (i % 64 < 16 ? 0 : i % 64 < 40 ? 0x80 : 0xff) << 24 |
			 (uint32_t)i * 0x010203;
	check(!drmModeSetCursor(k->fd, k->crtc, c.handle, 64, 64) &&
	      !drmModeMoveCursor(k->fd, k->crtc, 100, 50), "cursor at (100, 50)");
	pipe_crcs(frame_crc(&bufs[1], img, 100, 50), 3, "scanout and cursor");
	check(!drmModeMoveCursor(k->fd, k->crtc, -20, k->mode.vdisplay - 30),
	      "cursor at the bottom left edge");
	pipe_crcs(frame_crc(&bufs[1], img, -20, k->mode.vdisplay - 30), 2,
		  "clipped cursor");
	drmModeSetCursor(k->fd, k->crtc, 0, 0, 0);
	munmap(img, c.size);
}

static uint32_t prop_id(struct kms *k, uint32_t obj, uint32_t type,
			const char *name)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(k->fd, obj,
								    type);
	uint32_t i, id = 0;

	for (i = 0; props && i < props->count_props && !id; i++) {
		drmModePropertyRes *p = drmModeGetProperty(k->fd, props->props[i]);

		if (p && !strcmp(p->name, name))
			id = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

/* CRC of a mode-sized frame: @b at (@px, @py) over background @bg */
static uint32_t placed_crc_bg(struct kms *k, const struct buf *b, int px,
			      int py, uint32_t bg)
{
	uint32_t w = k->mode.hdisplay, h = k->mode.vdisplay;
	uint8_t *row = malloc(w * 3);
	uint32_t crc = 0, x, y;

	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			int bx = (int)x - px, by = (int)y - py;
			uint32_t p = bg;

			if (b && bx >= 0 && by >= 0 && bx < (int)b->w &&
			    by < (int)b->h)
				p = ((const uint32_t *)(b->map + (size_t)by *
							b->pitch))[bx];
			row[3 * x] = p >> 16;
			row[3 * x + 1] = p >> 8;
			row[3 * x + 2] = p;
		}
		crc = crc32_update(crc, row, w * 3);
	}
	free(row);
	return crc;
}

static uint32_t placed_crc(struct kms *k, const struct buf *b, int px, int py)
{
	return placed_crc_bg(k, b, px, py, 0);
}

static uint32_t find_plane(struct kms *k, uint64_t type)
{
	drmModePlaneRes *pres = drmModeGetPlaneResources(k->fd);
	uint32_t i, id = 0, tp;

	for (i = 0; pres && i < pres->count_planes && !id; i++) {
		drmModeObjectProperties *props =
			drmModeObjectGetProperties(k->fd, pres->planes[i],
						   DRM_MODE_OBJECT_PLANE);
		uint32_t j;

		tp = prop_id(k, pres->planes[i], DRM_MODE_OBJECT_PLANE, "type");
		for (j = 0; props && j < props->count_props; j++)
			if (props->props[j] == tp &&
			    props->prop_values[j] == type)
				id = pres->planes[i];
		drmModeFreeObjectProperties(props);
	}
	drmModeFreePlaneResources(pres);
	return id;
}

/* An atomic commit of the primary plane: @fb (0: off) at (x, y), w x h */
static int commit_primary(struct kms *k, uint32_t plane, uint32_t fb,
			  int x, int y, uint32_t w, uint32_t h, uint32_t damage)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t mode_blob = 0;
	int ret;

#define P(obj, type, name, v) \
	drmModeAtomicAddProperty(req, obj, prop_id(k, obj, type, name), v)
	drmModeCreatePropertyBlob(k->fd, &k->mode, sizeof(k->mode), &mode_blob);
	P(k->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID", mode_blob);
	P(k->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1);
	P(k->conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", k->crtc);
	P(plane, DRM_MODE_OBJECT_PLANE, "FB_ID", fb);
	P(plane, DRM_MODE_OBJECT_PLANE, "CRTC_ID", fb ? k->crtc : 0);
	if (fb) {
		P(plane, DRM_MODE_OBJECT_PLANE, "SRC_X", 0);
		P(plane, DRM_MODE_OBJECT_PLANE, "SRC_Y", 0);
		P(plane, DRM_MODE_OBJECT_PLANE, "SRC_W", (uint64_t)w << 16);
		P(plane, DRM_MODE_OBJECT_PLANE, "SRC_H", (uint64_t)h << 16);
		P(plane, DRM_MODE_OBJECT_PLANE, "CRTC_X", (uint64_t)(int64_t)x);
		P(plane, DRM_MODE_OBJECT_PLANE, "CRTC_Y", (uint64_t)(int64_t)y);
		P(plane, DRM_MODE_OBJECT_PLANE, "CRTC_W", w);
		P(plane, DRM_MODE_OBJECT_PLANE, "CRTC_H", h);
	}
	if (damage)
		P(plane, DRM_MODE_OBJECT_PLANE, "FB_DAMAGE_CLIPS", damage);
#undef P
	ret = drmModeAtomicCommit(k->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET,
				  NULL);
	ret = ret ? -errno : 0;
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(k->fd, mode_blob);
	return ret;
}

/*
 * The cursor from a 64x64 source rectangle of a larger buffer (the
 * driver copies it where the layout is not the device's 256-byte pitch).
 */
static void test_big_cursor(struct kms *k, struct buf *bufs,
			    uint32_t bw, uint32_t bh, uint32_t sx, uint32_t sy)
{
	struct buf cb = { 0 };
	uint32_t plane = find_plane(k, DRM_PLANE_TYPE_CURSOR), *img, i;
	drmModeAtomicReq *req;
	int err;

	err = buf_create(k, &cb, bw, bh, DRM_FORMAT_ARGB8888, 32);
	check(!err, "a %ux%u cursor buffer (%s)", bw, bh, strerror(-err));
	if (err)
		return;
	img = malloc(64 * 64 * 4);
	for (i = 0; i < bw * bh; i++) {
		uint32_t x = i % bw, y = i / bw, v;

		v = (x % 64 < 16 ? 0 : x % 64 < 40 ? 0x80u : 0xffu) << 24 |
		    (x * 0x030201u + y * 0x010305u) % 0x1000000u;
		((uint32_t *)(cb.map + (size_t)y * cb.pitch))[x] = v;
		if (x >= sx && x < sx + 64 && y >= sy && y < sy + 64)
			img[(y - sy) * 64 + (x - sx)] = v;
	}
	req = drmModeAtomicAlloc();
#define P(name, v) drmModeAtomicAddProperty(req, plane, \
		prop_id(k, plane, DRM_MODE_OBJECT_PLANE, name), v)
	P("FB_ID", cb.fb);
	P("CRTC_ID", k->crtc);
	P("SRC_X", (uint64_t)sx << 16);
	P("SRC_Y", (uint64_t)sy << 16);
	P("SRC_W", 64 << 16);
	P("SRC_H", 64 << 16);
	P("CRTC_X", 200);
	P("CRTC_Y", 100);
	P("CRTC_W", 64);
	P("CRTC_H", 64);
#undef P
	err = drmModeAtomicCommit(k->fd, req, 0, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	check(!err, "cursor: 64x64 at (%u, %u) of a %ux%u buffer (%s)", sx, sy,
	      bw, bh, strerror(-err));
	pipe_crcs(frame_crc(&bufs[0], img, 200, 100), 2,
		  "cursor from a larger buffer");
	drmModeSetCursor(k->fd, k->crtc, 0, 0, 0);
	drmModeRmFB(k->fd, cb.fb);
	free(img);
}

/*
 * The CRTC's BACKGROUND_COLOR (7.x; 6.12 has no such property and shows
 * black) around @small, positioned at (100, 50): the device's
 * DISP_BACKGROUND and the pipe CRC follow it.
 */
static void test_background(struct kms *k, const struct buf *small)
{
	uint32_t bgp = prop_id(k, k->crtc, DRM_MODE_OBJECT_CRTC,
			       "BACKGROUND_COLOR");
	/* DRM_ARGB64: 16 bits per component, alpha at 48 */
	uint64_t argb = 0xffffull << 48 | 0x2020ull << 32 | 0x4040ull << 16 |
			0x8080;
	drmModeAtomicReq *req;
	int err;

	if (!bgp) {
		printf("# no BACKGROUND_COLOR property on this kernel: black\n");
		return;
	}
	for (int i = 0; i < 2; i++) {
		req = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(req, k->crtc, bgp,
					 i ? 0xffffull << 48 : argb);
		err = drmModeAtomicCommit(k->fd, req, 0, NULL) ? -errno : 0;
		drmModeAtomicFree(req);
		check(!err, "BACKGROUND_COLOR %s (%s)", i ? "black" : "#204080",
		      strerror(-err));
		check(debugfs_value("copro_regs", "DISP_BACKGROUND") ==
		      (i ? 0 : 0x204080u), "DISP_BACKGROUND %s",
		      i ? "black again" : "0x204080");
		pipe_crcs(placed_crc_bg(k, small, 100, 50, i ? 0 : 0x204080),
			  2, i ? "the primary over black" :
			  "the primary over the background colour");
	}
}

/*
 * Issue 31: the CRTC on with its primary plane off (the background), a
 * primary smaller than the mode and positioned, damage clips on the
 * primary, asynchronous page flips. The pipe CRCs check what is shown.
 */
static void test_planes(struct kms *k, struct buf *bufs)
{
	struct drm_mode_rect clip = { 10, 10, 100, 100 };
	struct flip_ev ev = { 0 };
	uint32_t primary, damage = 0;
	uint64_t f0, f1;
	struct buf small = { 0 };
	int err;

	drmSetClientCap(k->fd, DRM_CLIENT_CAP_ATOMIC, 1);
	primary = find_plane(k, DRM_PLANE_TYPE_PRIMARY);
	check(primary, "the primary plane");

	err = commit_primary(k, primary, 0, 0, 0, 0, 0, 0);
	check(!err, "the CRTC active with its primary plane off (%s)",
	      strerror(-err));
	check(debugfs_value("copro_regs", "DISP_CONTROL") == 3,
	      "the device shows the background (DISP_CONTROL ENABLE|PRIMARY_OFF)");
	pipe_crcs(placed_crc(k, NULL, 0, 0), 3, "primary off: black background");

	err = buf_create(k, &small, 320, 240, DRM_FORMAT_XRGB8888, 32);
	check(!err, "a 320x240 framebuffer (%s)", strerror(-err));
	buf_fill(&small, 7);
	err = commit_primary(k, primary, small.fb, 100, 50, 320, 240, 0);
	check(!err, "a 320x240 primary plane at (100, 50) (%s)", strerror(-err));
	pipe_crcs(placed_crc(k, &small, 100, 50), 3, "positioned primary");
	test_background(k, &small);
	err = commit_primary(k, primary, small.fb, -40, k->mode.vdisplay - 100,
			     320, 240, 0);
	check(!err, "a primary plane partly off screen (%s)", strerror(-err));
	pipe_crcs(placed_crc(k, &small, -40, k->mode.vdisplay - 100), 2,
		  "clipped primary");

	check(prop_id(k, primary, DRM_MODE_OBJECT_PLANE, "FB_DAMAGE_CLIPS"),
	      "the primary plane has FB_DAMAGE_CLIPS");
	drmModeCreatePropertyBlob(k->fd, &clip, sizeof(clip), &damage);
	err = commit_primary(k, primary, bufs[0].fb, 0, 0, k->mode.hdisplay,
			     k->mode.vdisplay, damage);
	check(damage && !err, "a commit with a damage clip (%s)",
	      strerror(-err));
	pipe_crcs(frame_crc(&bufs[0], NULL, 0, 0), 2, "full-screen primary");
	drmModeDestroyPropertyBlob(k->fd, damage);

	test_big_cursor(k, bufs, 256, 256, 32, 16);	/* copied */
	test_big_cursor(k, bufs, 64, 128, 0, 40);	/* read in place */

	/* asynchronous flips: done at once, not at the next vblank */
	/* right after a vblank: the next is a whole period away */
	{
		drmVBlank vbl = { .request.type = DRM_VBLANK_RELATIVE,
				  .request.sequence = 1 };

		drmWaitVBlank(k->fd, &vbl);
	}
	f0 = debugfs_value("copro_regs", "DISP_VSYNC_COUNT");
	err = drmModePageFlip(k->fd, k->crtc, bufs[1].fb,
			      DRM_MODE_PAGE_FLIP_EVENT |
			      DRM_MODE_PAGE_FLIP_ASYNC, &ev);
	check(!err, "an asynchronous page flip (%s)", strerror(-err));
	if (!err)
		wait_event(k, &ev);
	f1 = debugfs_value("copro_regs", "DISP_FLIP_VSYNC");
	check(!err && f1 == f0 &&
	      debugfs_value("copro_regs", "DISP_SCANOUT") != 0,
	      "it took effect in the frame it was asked in (vsync %" PRIu64
	      ", flip at %" PRIu64 ")", f0, f1);
	pipe_crcs(frame_crc(&bufs[1], NULL, 0, 0), 2, "after the async flip");
	drmModeSetCrtc(k->fd, k->crtc, bufs[0].fb, 0, 0, &k->conn, 1,
		       &k->mode);
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* An interesting value: small, edge, or anything */
static uint64_t rnd_val(uint64_t good)
{
	static const uint64_t edge[] = { 0, 1, 63, 64, 65, 4095, 4096, 4097,
					 0x7fffffff, 0x80000000, 0xffffffff,
					 ~0ull };

	switch (rnd() % 4) {
	case 0:
		return good;
	case 1:
		return good + (int)(rnd() % 9) - 4;
	case 2:
		return edge[rnd() % (sizeof(edge) / sizeof(edge[0]))];
	default:
		return (uint64_t)rnd() << 32 | rnd();
	}
}

/*
 * Hostile input: seeded random atomic commits (test-only and real) of the
 * primary and cursor planes' properties and the CRTC's, random ADDFB2,
 * cursor and flip ioctls. Each must succeed or fail with an errno; the
 * caller checks dmesg for warnings afterwards, and that the display still
 * flips.
 */
static void test_fuzz(struct kms *k, struct buf *bufs, int rounds)
{
	static const char * const plane_props[] = {
		"FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H",
		"CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H",
	};
	uint32_t primary = 0, ids[2][10], crtc_active, crtc_mode, fbs[6];
	uint32_t mode_blob = 0, conn_crtc;
	drmModePlaneRes *pres;
	struct buf small = { 0 }, cur = { 0 };
	int i, j, ok = 0, errs = 0, weird = 0;

	drmSetClientCap(k->fd, DRM_CLIENT_CAP_ATOMIC, 1);
	pres = drmModeGetPlaneResources(k->fd);
	for (i = 0; pres && i < (int)pres->count_planes; i++)
		if (pres->planes[i] != k->cursor_plane)
			primary = pres->planes[i];
	drmModeFreePlaneResources(pres);
	for (j = 0; j < 10; j++) {
		ids[0][j] = prop_id(k, primary, DRM_MODE_OBJECT_PLANE, plane_props[j]);
		ids[1][j] = prop_id(k, k->cursor_plane, DRM_MODE_OBJECT_PLANE,
				    plane_props[j]);
	}
	crtc_active = prop_id(k, k->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE");
	crtc_mode = prop_id(k, k->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID");
	conn_crtc = prop_id(k, k->conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	drmModeCreatePropertyBlob(k->fd, &k->mode, sizeof(k->mode), &mode_blob);
	buf_create(k, &small, 640, 480, DRM_FORMAT_XRGB8888, 32);
	buf_create(k, &cur, 64, 64, DRM_FORMAT_ARGB8888, 32);
	fbs[0] = bufs[0].fb;
	fbs[1] = bufs[1].fb;
	fbs[2] = small.fb;
	fbs[3] = cur.fb;
	fbs[4] = 0;
	fbs[5] = 0x7777;

	for (i = 0; i < rounds; i++) {
		drmModeAtomicReq *req = drmModeAtomicAlloc();
		uint32_t flags = rnd() % 4 ? DRM_MODE_ATOMIC_TEST_ONLY : 0;
		int n = 1 + rnd() % 6, err;

		for (j = 0; j < n; j++) {
			int p = rnd() % 2, which = rnd() % 13;
			uint32_t plane = p ? k->cursor_plane : primary;

			if (which < 10) {
				uint64_t good = which == 0 ? fbs[rnd() % 6] :
					which == 1 ? k->crtc :
					which >= 2 && which <= 5 ? (uint64_t)(p ? 64 : 1024) << 16 :
					which >= 8 ? (p ? 64 : 1024) : 0;

				drmModeAtomicAddProperty(req, plane, ids[p][which],
							 which == 0 || which == 1 ?
							 good : rnd_val(good));
			} else if (which == 10) {
				drmModeAtomicAddProperty(req, k->crtc, crtc_active,
							 rnd() % 4 != 0);
			} else if (which == 11) {
				drmModeAtomicAddProperty(req, k->crtc, crtc_mode,
							 rnd() % 4 ? mode_blob : rnd_val(mode_blob));
			} else {
				drmModeAtomicAddProperty(req, k->conn, conn_crtc,
							 rnd() % 4 ? k->crtc : 0);
			}
		}
		if (rnd() % 3 == 0)
			flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
		err = drmModeAtomicCommit(k->fd, req, flags, NULL);
		drmModeAtomicFree(req);
		if (!err)
			ok++;
		else if (err == -EINVAL || err == -ENOENT || err == -ERANGE ||
			 err == -ENOSPC || err == -EBUSY || err == -EACCES)
			errs++;
		else
			weird++;
		/* legacy paths too */
		switch (rnd() % 4) {
		case 0:
			drmModeMoveCursor(k->fd, k->crtc, (int)rnd_val(0), (int)rnd_val(0));
			break;
		case 1:
			drmModeSetCursor(k->fd, k->crtc, rnd() % 2 ? cur.handle : rnd(),
					 (uint32_t)rnd_val(64), (uint32_t)rnd_val(64));
			break;
		case 2:
			drmModePageFlip(k->fd, k->crtc, fbs[rnd() % 6], 0, NULL);
			break;
		default:
			addfb(k, rnd() % 2 ? bufs[0].handle : rnd(),
			      (uint32_t)rnd_val(1024), (uint32_t)rnd_val(768),
			      rnd() % 2 ? DRM_FORMAT_XRGB8888 : rnd(),
			      (uint32_t)rnd_val(4096), (uint32_t)rnd_val(0),
			      rnd_val(0), rnd() % 2);
		}
	}
	check(!weird, "%d random atomic commits: %d applied, %d refused with an errno, %d other",
	      rounds, ok, errs, weird);
	drmSetClientCap(k->fd, DRM_CLIENT_CAP_ATOMIC, 0);
	drmModeSetCursor(k->fd, k->crtc, 0, 0, 0);
	check(!drmModeSetCrtc(k->fd, k->crtc, bufs[0].fb, 0, 0, &k->conn, 1,
			      &k->mode), "the mode set again after the fuzzing");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Cursor moves for one second of the guest's time: per second, per vblank */
static void bench_cursor(struct kms *k)
{
	struct drm_mode_create_dumb c = { .width = 64, .height = 64, .bpp = 32 };
	uint64_t v0, v1;
	double t0, t;
	long n = 0;

	if (drmIoctl(k->fd, DRM_IOCTL_MODE_CREATE_DUMB, &c) ||
	    drmModeSetCursor(k->fd, k->crtc, c.handle, 64, 64))
		return;
	v0 = debugfs_value("copro_regs", "DISP_VSYNC_COUNT");
	t0 = now_s();
	do {
		drmModeMoveCursor(k->fd, k->crtc, n % 900, n % 700);
		n++;
		t = now_s();
	} while (t - t0 < 1.0);
	v1 = debugfs_value("copro_regs", "DISP_VSYNC_COUNT");
	printf("BENCH cursor %.0f moves/s %.1f moves/vblank\n", n / (t - t0),
	       v1 > v0 ? (double)n / (v1 - v0) : 0.0);
	drmModeSetCursor(k->fd, k->crtc, 0, 0, 0);
}

static int setup(struct kms *k, struct buf *bufs)
{
	int i, err;

	for (i = 0; i < 2; i++) {
		err = buf_create(k, &bufs[i], k->mode.hdisplay, k->mode.vdisplay,
				 DRM_FORMAT_XRGB8888, 32);
		if (err)
			return err;
		buf_fill(&bufs[i], i * 85);
	}
	return drmModeSetCrtc(k->fd, k->crtc, bufs[0].fb, 0, 0, &k->conn, 1,
			      &k->mode);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	struct kms k = { 0 };
	struct buf bufs[2] = { 0 };
	int err;

	err = kms_open(&k);
	if (err) {
		printf("not ok 1 - open the copro DRM device: %s\n", strerror(-err));
		return 1;
	}
	if (!strcmp(what, "crc"))
		return scanout_crc(&k) ? 1 : 0;
	if (!strcmp(what, "seq")) {
		/* the next vblank's sequence number */
		drmVBlank vbl = { .request.type = DRM_VBLANK_RELATIVE,
				  .request.sequence = 1 };

		if (drmWaitVBlank(k.fd, &vbl))
			return 1;
		printf("%u\n", vbl.reply.sequence);
		return 0;
	}

	err = setup(&k, bufs);
	check(!err, "mode %s set on copro (%s)", k.mode.name, strerror(-err));
	if (err)
		return 1;
	if (!strcmp(what, "fuzz")) {
		test_fuzz(&k, bufs, argc > 2 ? atoi(argv[2]) : 2000);
		test_flips(&k, bufs, 10, false);
	} else if (!strcmp(what, "planes")) {
		test_planes(&k, bufs);
	} else if (!strcmp(what, "flips")) {
		test_flips(&k, bufs, argc > 2 ? atoi(argv[2]) : 60, false);
	} else if (!strcmp(what, "bench")) {
		test_flips(&k, bufs, 600, true);
		test_cursor(&k, true);
		bench_cursor(&k);
	} else {
		test_flips(&k, bufs, 60, false);
		test_vblank_wait(&k);
		test_cursor(&k, false);
		test_bad_input(&k, &bufs[0]);
		test_pipe_crc(&k, bufs);
		err = scanout_crc(&k);
		check(!err, "scanout CRC computed (%s)", strerror(-err));
	}
	return done();
}
