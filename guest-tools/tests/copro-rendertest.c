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
 *   copro-rendertest starve    a process with 80 long jobs queued through
 *                              two files does not starve another's job
 *   copro-rendertest limits W  a hostile process takes all it can of one
 *                              shared pool (W: pool, clone, contexts, gart,
 *                              vram); another's job still runs
 *   copro-rendertest vm        a GPU VM per file: map, unmap, submit by VA,
 *                              faults ban only their context, bad binds
 *   copro-rendertest kms       a page flip waits for the rendering into its
 *                              framebuffer (dma_resv implicit sync)
 *   copro-rendertest hang      (x-fault-injection=on) a long healthy job
 *                              survives the timeout, a hung or faulting
 *                              context is banned, innocents complete
 *   copro-rendertest ctxrace, gartreset, fuzz SEED PROCS THREADS OPS,
 *                    render-until-gone
 *                              lifetimes: see rendertest-life.c
 *
 * Times are the device's (virtual under -icount): WORK ns and TIMESTAMP.
 */
#include <stdarg.h>
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

struct copro_dev dev;

void die(const char *what, int err)
{
	printf("Bail out! %s: %s\n", what, strerror(-err));
	exit(2);
}

void bo_new(uint64_t size, struct copro_bo *bo)
{
	int ret = copro_bo_new(&dev, size, bo);

	if (!ret)
		ret = copro_bo_map(&dev, bo);
	if (ret)
		die("buffer", ret);
}

uint32_t ctx_new(uint32_t prio)
{
	uint32_t ctx;
	int ret = copro_ctx_new(&dev, prio, &ctx);

	if (ret)
		die("context", ret);
	return ctx;
}

uint64_t debugfs_value(const char *file, const char *key)
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

/* The first connected connector of card0 (@fd), with its resources. */
drmModeConnectorPtr kms_connector(int fd, drmModeResPtr *res)
{
	drmModeConnectorPtr conn = NULL;

	*res = drmModeGetResources(fd);
	for (int i = 0; *res && i < (*res)->count_connectors && !conn; i++) {
		conn = drmModeGetConnector(fd, (*res)->connectors[i]);
		if (conn && (conn->connection != DRM_MODE_CONNECTED ||
			     !conn->count_modes)) {
			drmModeFreeConnector(conn);
			conn = NULL;
		}
	}
	if (!conn)
		die("no connected connector", -ENODEV);
	return conn;
}

static void on_flip(int fd, unsigned int seq, unsigned int sec,
		    unsigned int usec, void *data)
{
	(void)fd;
	(void)seq;
	*(uint64_t *)data = sec * 1000000000ull + usec * 1000ull;
}

/*
 * Handle @fd's events until the flip queued with @flip_at as its user
 * data completed: *@flip_at is then its event's time (the vblank's).
 * The poll's timeout only guards against a hang.
 */
void kms_wait_flip(int fd, uint64_t *flip_at)
{
	drmEventContext ev = {
		.version = 2,
		.page_flip_handler = on_flip,
	};
	struct pollfd p = { fd, POLLIN, 0 };

	while (!*flip_at && poll(&p, 1, 5000) > 0)
		drmHandleEvent(fd, &ev);
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

bool all_u32(const void *p, size_t bytes, uint32_t v)
{
	const uint32_t *w = p;

	for (size_t i = 0; i < bytes / 4; i++)
		if (w[i] != v)
			return false;
	return true;
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
	if (!strcmp(what, "starve"))
		return t_starve();
	if (!strcmp(what, "hang"))
		return t_hang();
	if (!strcmp(what, "kms"))
		return t_kms();
	if (!strcmp(what, "attack27"))
		return t_attack27(argc - 2, argv + 2);
	if (!strcmp(what, "vm"))
		return t_vm();
	if (!strcmp(what, "prime"))
		return t_prime();
	if (!strcmp(what, "limits"))
		return t_limits(argc > 2 ? argv[2] : "pool");
	if (!strcmp(what, "ctxrace"))
		return t_ctxrace();
	if (!strcmp(what, "gartreset"))
		return t_gartreset();
	if (!strcmp(what, "fuzz") && argc > 5)
		return t_fuzz(strtoul(argv[2], NULL, 0), atoi(argv[3]),
			      atoi(argv[4]), strtoul(argv[5], NULL, 0));
	if (!strcmp(what, "render-until-gone"))
		return t_until_gone();
	fprintf(stderr, "usage: copro-rendertest basic|bad|fences|multi N|preempt|starve|hang|kms|vm|prime|limits W|ctxrace|gartreset|fuzz SEED PROCS THREADS OPS|render-until-gone\n");
	return 2;
}

