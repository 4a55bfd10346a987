// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-workload: run a workload's clients (docs/workloads.rst) on Linux,
 * each client its own process through the DRM uapi (libcopro), and print
 * each client's metrics as one JSON line.
 *
 *   copro-workload DURATION_MS CLIENT...
 *     CLIENT = NAME:P:JOBS_PER_CYCLE:KVALUE:SLEEP_US:S:DEADLINE:START_MS:
 *              STOP_MS:CYCLES:WS_ALLOCS:WS_BYTES:DEP
 *     P l|n|h (priority), K w|f|c (WORK ns, FILL bytes, COPY bytes),
 *     S s|a (sync, async), DEADLINE - (no presents) or the deadline in us
 *     (0: presents, no deadline), CYCLES 0: no limit, DEP - or the index
 *     of the client whose progress each cycle waits for
 *
 * The copro OS image's encoding of a client (tools/copro_runners.py,
 * copro_args): the host tool writes it from a workload file. What a
 * client does is the copro OS client's (firmware/apps/wlclient.c), here
 * through the DRM uapi:
 *
 *   - a job is TIMESTAMP, a 4-byte FILL of each working-set buffer, the
 *     job (WORK; FILL of a VRAM buffer of its own; COPY between two),
 *     TIMESTAMP. The working set's buffers are VRAM buffers listed in
 *     every job's submit, so the kernel makes them resident for it.
 *   - depends_on: each client signals a timeline sync object of its own
 *     at point N with cycle N's last job; the parent creates them before
 *     the fork and hands each client an fd of it (drmSyncobjHandleToFD),
 *     and a shared page holds each client's last submitted N. A dependent
 *     cycle's first job waits on the GPU (an in-sync of the submit) for
 *     the other client's last submitted point.
 *   - presents: cycles are released at vblanks of card0 (the vblank's
 *     device time is DISP_VSYNC_TIME); a release while the client has no
 *     room (sync: its cycle in flight; async: three) is dropped and is a
 *     miss, and a cycle whose last job ends after release + deadline is a
 *     miss. The first presenting client also shows what it rendered: it
 *     holds card0 as DRM master (the parent opens it before the fork),
 *     sets the mode on a buffer pair in VRAM that its jobs list as
 *     written, and page-flips the rendered buffer after each cycle's
 *     submit: the flip waits for the job (implicit sync) and lands at the
 *     next vblank after it ("flips" counts those that landed).
 *
 * Every time is the device's (GPU_TIME, TIMESTAMP packets, DISP_VSYNC_TIME):
 * deterministic under -icount. A job's submit-to-start latency is its
 * first TIMESTAMP minus GPU_TIME read just before the submit ioctl.
 *
 * Output, one line per client, then one for the run:
 *   # WORKLOAD {"client":..,"cycles":..,"jobs":..,"elapsed_ns":..,
 *               "gpu_ns":..,"cycle_ns":[min,avg,p99,max],
 *               "latency_ns":[min,avg,p99,max],"deadline_misses":..,
 *               "dropped":..,"flips":..,"samples":..}
 *   # WORKLOAD-SAMPLES {"client":..,"latency_ns":[...]}  (sorted)
 *   # WORKLOAD-RUN {"os":"linux","vram_bytes":[{"engine":0,"read":..,
 *                   "write":..},...]}
 * vram_bytes: the device's own counters of the bytes its packets read and
 * wrote (COPRO_ENG_STAT_MEM_READ/WRITE) from before the clients start to
 * after they all ended, read from the register BAR (sysfs resource0: root
 * and iomem=relaxed, the driver holding the BAR); "null" if it cannot be.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
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

#include "libcopro.h"
#include "copro/copro_regs.h"
#include "copro/copro_tiler.h"

#define MAX_CLIENTS     16
#define MAX_JPC         64
#define MAX_SAMPLES     65536
#define SAMPLES_PRINTED 2048
#define SLOTS           4       /* cycles whose timestamps are kept */
/* the submit's list: timestamps, the job's two buffers, the flip target */
#define MAX_WS          (COPRO_SUBMIT_MAX_BOS - 4)

enum kind { WORK, FILL, COPY };

struct client {
    char name[17];
    uint32_t prio;
    unsigned jpc;
    enum kind kind;
    uint64_t value;
    uint64_t sleep_us;
    int async;
    bool present;
    uint64_t deadline_us;
    uint64_t start_ms, stop_ms, cycles;
    unsigned ws_allocs;
    uint64_t ws_bytes;
    int dep;                    /* -1: none */
};

/* what the clients share: each one's last submitted cycle */
struct shared {
    uint64_t begun[MAX_CLIENTS];
};

/* A decimal field up to the next ':' or the end. */
static int field(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t x = 0;

    if (*p < '0' || *p > '9') {
        return -1;
    }
    while (*p >= '0' && *p <= '9') {
        if (x > (UINT64_MAX - 9) / 10) {
            return -1;
        }
        x = x * 10 + (uint64_t)(*p++ - '0');
    }
    if (*p != ':' && *p) {
        return -1;
    }
    *s = *p ? p + 1 : p;
    *v = x;
    return 0;
}

static int field_char(const char **s, char *c)
{
    if (!(*s)[0] || (*s)[1] != ':') {
        return -1;
    }
    *c = (*s)[0];
    *s += 2;
    return 0;
}

static int parse(const char *s, struct client *c, int n)
{
    uint64_t jpc, ws, dep;
    char prio, kind, submit;
    unsigned i = 0;

    memset(c, 0, sizeof(*c));
    while (*s && *s != ':' && i < sizeof(c->name) - 1) {
        if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789_-", *s)) {
            return -1;
        }
        c->name[i++] = *s++;
    }
    if (!i || *s++ != ':' || field_char(&s, &prio) || field(&s, &jpc)) {
        return -1;
    }
    kind = *s++;
    if (!kind || field(&s, &c->value) || field(&s, &c->sleep_us) ||
        field_char(&s, &submit)) {
        return -1;
    }
    if (*s == '-' && s[1] == ':') {
        s += 2;
    } else if (!field(&s, &c->deadline_us)) {
        c->present = true;
    } else {
        return -1;
    }
    if (field(&s, &c->start_ms) || field(&s, &c->stop_ms) ||
        field(&s, &c->cycles) || field(&s, &ws) || field(&s, &c->ws_bytes)) {
        return -1;
    }
    c->dep = -1;
    if (*s == '-' && !s[1]) {
        s++;
    } else if (!field(&s, &dep) && dep < (uint64_t)n) {
        c->dep = (int)dep;
    } else {
        return -1;
    }
    if (*s || !strchr("lnh", prio) || !strchr("wfc", kind) ||
        !strchr("sa", submit) || !jpc || jpc > MAX_JPC || !c->value ||
        ws > MAX_WS || (ws && (c->ws_bytes < 4096 ||
                               c->ws_bytes > (256u << 20))) ||
        (kind != 'w' && (c->value % 4 || c->value > (256u << 20))) ||
        c->stop_ms <= c->start_ms) {
        return -1;
    }
    c->prio = prio == 'l' ? COPRO_CTX_PRIORITY_LOW :
              prio == 'n' ? COPRO_CTX_PRIORITY_NORMAL :
              COPRO_CTX_PRIORITY_HIGH;
    c->kind = kind == 'w' ? WORK : kind == 'f' ? FILL : COPY;
    c->async = submit == 'a';
    c->jpc = (unsigned)jpc;
    c->ws_allocs = (unsigned)ws;
    return 0;
}

/* ---- the device's registers (sysfs resource0 of card0) ---- */

/* volatile: device registers, read afresh at every access */
static volatile uint8_t *regs;

static void regs_map(void)
{
    int fd = open("/sys/class/drm/card0/device/resource0", O_RDONLY);
    void *p;

    if (fd < 0) {
        return;
    }
    p = mmap(NULL, COPRO_MMIO_SIZE, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
        regs = p;
    }
}

static uint32_t rd32(uint32_t off)
{
    return *(volatile uint32_t *)(regs + off);  /* a register */
}

static uint64_t rd64(uint32_t off)
{
    return *(volatile uint64_t *)(regs + off);  /* a register */
}

/* the last vsync's count and device time, read consistently */
static void last_vsync(uint64_t *count, uint64_t *time)
{
    uint64_t c;

    do {
        c = rd64(COPRO_REG_DISP_VSYNC_COUNT);
        *time = rd64(COPRO_REG_DISP_VSYNC_TIME);
        *count = rd64(COPRO_REG_DISP_VSYNC_COUNT);
    } while (c != *count);
}

/* ---- one client ---- */

static void sleep_until_gpu(struct copro_dev *d, uint64_t t)
{
    uint64_t now = copro_gpu_time(d);

    if (now < t) {
        struct timespec ts = {
            .tv_sec = (t - now) / 1000000000,
            .tv_nsec = (t - now) % 1000000000,
        };

        nanosleep(&ts, NULL);
    }
}

static int cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* min, average, 99th percentile, max (sorts v) */
static void stats(uint64_t *v, unsigned n, uint64_t out[4])
{
    uint64_t sum = 0;

    memset(out, 0, 4 * sizeof(*out));
    if (!n) {
        return;
    }
    qsort(v, n, sizeof(*v), cmp64);
    for (unsigned i = 0; i < n; i++) {
        sum += v[i];
    }
    out[0] = v[0];
    out[1] = sum / n;
    out[2] = v[(n * 99 + 99) / 100 - 1];
    out[3] = v[n - 1];
}

/* the page flips of the presenting client that holds card0 */
struct display {
    int on;
    uint32_t crtc, conn, fb[2];
    drmModeModeInfo mode;
    struct copro_bo bo[2];
    unsigned back;
    int pending;
    uint64_t flips;
};

struct run {
    const struct client *c;
    int idx;
    struct copro_dev d;
    struct copro_cmd cmd;
    struct copro_bo ts, dst, src, ws[MAX_WS];
    uint32_t ctx;
    uint32_t sync[SLOTS];
    uint32_t tl, dep_tl;        /* own timeline, the other's */
    struct shared *sh;
    uint64_t submit[SLOTS][MAX_JPC];
    uint64_t release[SLOTS];
    uint64_t *lat, *cyc;
    unsigned nlat, ncyc;
    uint64_t jobs, begun, done, misses, dropped;
    int vfd;                    /* card0, for vblank waits */
    struct display disp;
};

static void on_flip(int fd, unsigned int seq, unsigned int sec,
                    unsigned int usec, void *data)
{
    struct display *dp = data;

    (void)fd;
    (void)seq;
    (void)sec;
    (void)usec;
    dp->pending = 0;
    dp->flips++;
}

static int flip_wait(struct run *r)
{
    drmEventContext ctx = {
        .version = 2,
        .page_flip_handler = on_flip,
    };

    while (r->disp.pending) {
        if (drmHandleEvent(r->d.fd, &ctx)) {
            return -errno;
        }
    }
    return 0;
}

/* card0 is ours (DRM master): a mode on a pair of VRAM buffers */
static int display_init(struct run *r)
{
    struct display *dp = &r->disp;
    drmModeRes *res = drmModeGetResources(r->d.fd);
    drmModeConnector *conn;
    uint32_t pitch, handles[4] = { 0 }, pitches[4] = { 0 };
    uint32_t offsets[4] = { 0 };

    if (!res || !res->count_crtcs || !res->count_connectors) {
        return -ENODEV;
    }
    dp->crtc = res->crtcs[0];
    dp->conn = res->connectors[0];
    drmModeFreeResources(res);
    conn = drmModeGetConnector(r->d.fd, dp->conn);
    if (!conn || !conn->count_modes) {
        return -ENODEV;
    }
    dp->mode = conn->modes[0];
    for (int i = 0; i < conn->count_modes; i++) {
        if (conn->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
            dp->mode = conn->modes[i];
        }
    }
    drmModeFreeConnector(conn);
    pitch = dp->mode.hdisplay * 4u;
    for (int i = 0; i < 2; i++) {
        int err = copro_bo_new(&r->d, (uint64_t)pitch * dp->mode.vdisplay,
                               &dp->bo[i]);

        if (err) {
            return err;
        }
        handles[0] = dp->bo[i].handle;
        pitches[0] = pitch;
        if (drmModeAddFB2(r->d.fd, dp->mode.hdisplay, dp->mode.vdisplay,
                          DRM_FORMAT_XRGB8888, handles, pitches, offsets,
                          &dp->fb[i], 0)) {
            return -errno;
        }
    }
    if (drmModeSetCrtc(r->d.fd, dp->crtc, dp->fb[0], 0, 0, &dp->conn, 1,
                       &dp->mode)) {
        return -errno;
    }
    dp->back = 1;
    dp->on = 1;
    return 0;
}

static void harvest(struct run *r, unsigned slot)
{
    const struct client *c = r->c;
    const uint64_t *t = (const uint64_t *)r->ts.map + 2 * slot * c->jpc;
    uint64_t end = 0;

    for (unsigned j = 0; j < c->jpc; j++) {
        uint64_t start = t[2 * j], sub = r->submit[slot][j];

        if (r->nlat < MAX_SAMPLES) {
            r->lat[r->nlat++] = start > sub ? start - sub : 0;
        }
        end = t[2 * j + 1];
        r->jobs++;
    }
    if (c->present && c->deadline_us &&
        end > r->release[slot] + c->deadline_us * 1000) {
        r->misses++;
    }
    r->done++;
}

static int fail(const struct client *c, const char *what, int err)
{
    fprintf(stderr, "copro-workload: %s: %s: %s\n", c->name, what,
            strerror(err < 0 ? -err : err));
    return 1;
}

/* The jobs of cycle r->begun + 1; released at @release (presents). */
static int cycle(struct run *r, uint64_t release)
{
    const struct client *c = r->c;
    uint64_t n = r->begun + 1;
    unsigned slot = r->begun % SLOTS;
    struct drm_copro_sync in = { 0 };
    uint64_t dep_point = 0;

    r->release[slot] = release;
    if (c->dep >= 0) {
        dep_point = __atomic_load_n(&r->sh->begun[c->dep], __ATOMIC_ACQUIRE);
        in.handle = r->dep_tl;
        in.point = dep_point;
    }
    for (unsigned j = 0; j < c->jpc; j++) {
        struct drm_copro_sync out[2] = {
            { .handle = r->sync[slot] },
            { .handle = r->tl, .point = n },
        };
        struct copro_submit_opts o = { 0 };
        uint32_t off = 16 * (slot * c->jpc + j);
        int err;

        if (j == 0 && dep_point) {
            o.in = &in;
            o.nin = 1;
        }
        if (j == c->jpc - 1) {
            o.out = out;
            o.nout = 2;
        }
        copro_cmd_reset(&r->cmd);
        copro_cmd_timestamp(&r->cmd, &r->ts, off);
        for (unsigned i = 0; i < c->ws_allocs; i++) {
            copro_cmd_fill(&r->cmd, &r->ws[i], 0, 4, (uint32_t)n);
        }
        switch (c->kind) {
        case WORK:
            copro_cmd_work(&r->cmd, c->value);
            break;
        case FILL:
            copro_cmd_fill(&r->cmd, &r->dst, 0, c->value,
                           0x5a000000u | (uint32_t)(n & 0xffffff));
            break;
        case COPY:
            copro_cmd_copy(&r->cmd, &r->dst, 0, &r->src, 0, c->value);
            break;
        }
        copro_cmd_timestamp(&r->cmd, &r->ts, off + 8);
        /* the frame the flip shows is written by the cycle's jobs */
        if (r->disp.on) {
            copro_cmd_bo(&r->cmd, &r->disp.bo[r->disp.back], 1);
        }
        if (r->cmd.err) {
            return fail(c, "command stream", r->cmd.err);
        }
        r->submit[slot][j] = copro_gpu_time(&r->d);
        err = copro_submit(&r->d, r->ctx, 0, &r->cmd,
                           o.nin || o.nout ? &o : NULL);
        if (err) {
            return fail(c, "submit", err);
        }
    }
    r->begun = n;
    __atomic_store_n(&r->sh->begun[r->idx], n, __ATOMIC_RELEASE);
    if (r->disp.on) {
        int err = flip_wait(r);

        if (!err && drmModePageFlip(r->d.fd, r->disp.crtc,
                                    r->disp.fb[r->disp.back],
                                    DRM_MODE_PAGE_FLIP_EVENT, &r->disp)) {
            err = -errno;
        }
        if (err) {
            return fail(c, "page flip", err);
        }
        r->disp.pending = 1;
        r->disp.back ^= 1;
    }
    return 0;
}

/* cycles complete in order: reap those done (all, if @block) */
static void reap(struct run *r, bool block)
{
    while (r->done < r->begun) {
        unsigned slot = r->done % SLOTS;

        if (copro_syncobj_wait(&r->d, r->sync[slot], 0,
                               block ? INT64_MAX : 0)) {
            return;
        }
        harvest(r, slot);
    }
}

static int run_cycles(struct run *r, uint64_t begin, uint64_t end,
                      uint64_t *last_end)
{
    const struct client *c = r->c;
    uint64_t cstart;

    sleep_until_gpu(&r->d, begin);
    while ((cstart = copro_gpu_time(&r->d)) < end &&
           (!c->cycles || r->begun < c->cycles)) {
        /* async: up to SLOTS - 1 cycles in flight */
        if (c->async && r->begun - r->done >= SLOTS - 1) {
            unsigned old = r->done % SLOTS;

            copro_syncobj_wait(&r->d, r->sync[old], 0, INT64_MAX);
            harvest(r, old);
        }
        if (cycle(r, cstart)) {
            return 1;
        }
        if (!c->async) {
            reap(r, true);
        }
        if (c->sleep_us) {
            usleep(c->sleep_us);
        }
        /* the cycle ended here, as the client sees it */
        *last_end = copro_gpu_time(&r->d);
        if (r->ncyc < MAX_SAMPLES) {
            r->cyc[r->ncyc++] = *last_end - cstart;
        }
    }
    reap(r, true);
    return 0;
}

/* presents: a cycle released at each vblank from begin to end */
static int run_presents(struct run *r, uint64_t begin, uint64_t end,
                        uint64_t *last_end)
{
    const struct client *c = r->c;
    uint64_t seen = 0, count, vtime, last_release = 0;
    unsigned room = c->async ? SLOTS - 1 : 1;

    sleep_until_gpu(&r->d, begin);
    for (;;) {
        drmVBlank vbl = {
            .request.type = DRM_VBLANK_RELATIVE,
            .request.sequence = 1,
        };

        if (drmWaitVBlank(r->vfd, &vbl)) {
            return fail(c, "vblank wait", errno);
        }
        last_vsync(&count, &vtime);
        if (vtime < begin) {
            continue;
        }
        reap(r, false);
        if (r->begun) {
            /* the last cycle ended here, as the client sees it */
            *last_end = vtime;
        }
        if (vtime >= end || (c->cycles && r->begun >= c->cycles)) {
            break;
        }
        /* the vsyncs since the last release went by while it had no room */
        if (seen && count > seen + 1) {
            r->dropped += count - seen - 1;
            r->misses += count - seen - 1;
        }
        seen = count;
        if (r->begun - r->done >= room) {
            r->dropped++;
            r->misses++;
            continue;
        }
        if (last_release && r->ncyc < MAX_SAMPLES) {
            r->cyc[r->ncyc++] = vtime - last_release;
        }
        last_release = vtime;
        if (cycle(r, vtime)) {
            return 1;
        }
        if (!c->async) {
            reap(r, true);
            /*
             * the vblanks that passed meanwhile are counted as dropped
             * at the next release (count > seen + 1)
             */
        }
    }
    reap(r, true);
    return 0;
}

/* the client's context, buffers and sync objects; 0 or it said why */
static int client_objects(struct run *r, const int *tl_fds)
{
    const struct client *c = r->c;
    const char *what = "a context";
    int err = copro_ctx_new(&r->d, c->prio, &r->ctx);

    if (!err) {
        what = "the timestamp buffer";
        err = copro_bo_new(&r->d, SLOTS * MAX_JPC * 16, &r->ts);
    }
    if (!err) {
        err = copro_bo_map(&r->d, &r->ts);
    }
    if (!err && c->kind != WORK) {
        what = "the job's buffer";
        err = copro_bo_new(&r->d, c->value, &r->dst);
    }
    if (!err && c->kind == COPY) {
        what = "the copy's source";
        err = copro_bo_new(&r->d, c->value, &r->src);
    }
    for (unsigned i = 0; !err && i < c->ws_allocs; i++) {
        what = "a working-set buffer";
        err = copro_bo_new(&r->d, c->ws_bytes, &r->ws[i]);
    }
    for (unsigned s = 0; !err && s < SLOTS; s++) {
        what = "a sync object";
        err = copro_syncobj_new(&r->d, &r->sync[s]);
    }
    if (!err) {
        what = "the shared timeline sync objects";
        err = copro_syncobj_import(&r->d, tl_fds[r->idx], &r->tl);
    }
    if (!err && c->dep >= 0) {
        err = copro_syncobj_import(&r->d, tl_fds[c->dep], &r->dep_tl);
    }
    return err ? fail(c, what, err) : 0;
}

static int client_main(const struct client *c, int idx, uint64_t t0,
                       struct shared *sh, const int *tl_fds, int master_fd)
{
    struct run r = { .c = c, .idx = idx, .sh = sh, .vfd = -1 };
    struct drm_copro_ctx_query q;
    uint64_t begin = t0 + c->start_ms * 1000000;
    uint64_t end = t0 + c->stop_ms * 1000000, last_end = begin;
    uint64_t lat[4], cyc[4];
    int err;

    r.lat = calloc(MAX_SAMPLES, sizeof(*r.lat));
    r.cyc = calloc(MAX_SAMPLES, sizeof(*r.cyc));
    if (!r.lat || !r.cyc) {
        return fail(c, "memory", ENOMEM);
    }
    if (master_fd >= 0) {
        /*
         * the presenting client that holds card0: render on it too, so
         * that its buffers are the framebuffers'
         */
        uint64_t v = 0;

        r.d.fd = master_fd;
        copro_param(&r.d, COPRO_PARAM_NUM_ENGINES, &v);
        r.d.engines = (uint32_t)v;
        copro_param(&r.d, COPRO_PARAM_PREEMPT_CAPS, &v);
        r.d.preempt_caps = (uint32_t)v;
        err = display_init(&r);
        if (err) {
            return fail(c, "mode set on card0 (DRM master)", err);
        }
        r.vfd = master_fd;
    } else {
        err = copro_dev_open(&r.d, NULL);
        if (err) {
            return fail(c, "open the device", err);
        }
    }
    if (c->present && r.vfd < 0) {
        r.vfd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
        if (r.vfd < 0) {
            return fail(c, "open card0 for vblanks", errno);
        }
    }
    if (c->present && !regs) {
        return fail(c, "the vsync registers (sysfs resource0: root and "
                    "iomem=relaxed)", EACCES);
    }
    err = client_objects(&r, tl_fds);
    if (err) {
        return 1;
    }
    copro_cmd_init(&r.cmd);
    err = c->present ? run_presents(&r, begin, end, &last_end)
                     : run_cycles(&r, begin, end, &last_end);
    if (err) {
        return err;
    }
    if (r.disp.on) {
        flip_wait(&r);
    }
    copro_ctx_query(&r.d, r.ctx, &q);
    stats(r.cyc, r.ncyc, cyc);
    stats(r.lat, r.nlat, lat);
    printf("# WORKLOAD {\"os\":\"linux\",\"client\":\"%s\",\"cycles\":%"
           PRIu64 ",\"jobs\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64
           ",\"gpu_ns\":%" PRIu64 ",\"cycle_ns\":[%" PRIu64 ",%" PRIu64
           ",%" PRIu64 ",%" PRIu64 "],\"latency_ns\":[%" PRIu64 ",%" PRIu64
           ",%" PRIu64 ",%" PRIu64 "],\"deadline_misses\":%" PRIu64
           ",\"dropped\":%" PRIu64 ",\"flips\":%" PRIu64
           ",\"samples\":%u}\n", c->name, r.done, r.jobs,
           last_end - begin, (uint64_t)q.busy_ns, cyc[0], cyc[1], cyc[2],
           cyc[3], lat[0], lat[1], lat[2], lat[3], r.misses, r.dropped,
           r.disp.flips, r.nlat);
    printf("# WORKLOAD-SAMPLES {\"client\":\"%s\",\"latency_ns\":[",
           c->name);
    for (unsigned i = 0; i < r.nlat && i < SAMPLES_PRINTED; i++) {
        printf("%s%" PRIu64, i ? "," : "", r.lat[i]);
    }
    printf("]}\n");
    fflush(stdout);
    return 0;
}

/* the bytes each engine's packets read and wrote, so far */
static void mem_bytes(unsigned engines, uint64_t *rd, uint64_t *wr)
{
    for (unsigned e = 0; e < engines; e++) {
        rd[e] = rd64(COPRO_ENG_BASE(e) + COPRO_ENG_STAT_MEM_READ);
        wr[e] = rd64(COPRO_ENG_BASE(e) + COPRO_ENG_STAT_MEM_WRITE);
    }
}

int main(int argc, char **argv)
{
    static struct client cl[MAX_CLIENTS];
    struct copro_dev d;
    struct shared *sh;
    uint64_t duration, t0;
    uint64_t rd0[COPRO_MAX_ENGINES], wr0[COPRO_MAX_ENGINES];
    uint64_t rd1[COPRO_MAX_ENGINES], wr1[COPRO_MAX_ENGINES];
    unsigned engines = 0;
    int n = argc - 2, bad = 0, status, master_fd = -1, presenter = -1;
    int tl_fds[MAX_CLIENTS];

    if (argc < 3 || n > MAX_CLIENTS ||
        sscanf(argv[1], "%" SCNu64, &duration) != 1 || !duration) {
        fprintf(stderr, "usage: copro-workload DURATION_MS NAME:P:JPC:"
                "KVALUE:SLEEP_US:S:DEADLINE:START_MS:STOP_MS:CYCLES:"
                "WS_ALLOCS:WS_BYTES:DEP... (at most %d clients)\n",
                MAX_CLIENTS);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        if (parse(argv[i + 2], &cl[i], n) || cl[i].stop_ms > duration ||
            cl[i].dep == i) {
            fprintf(stderr, "copro-workload: client %d: bad description "
                    "'%s'\n", i, argv[i + 2]);
            return 2;
        }
        if (cl[i].present && presenter < 0) {
            presenter = i;
        }
    }
    /*
     * card0 before anyone else: the first presenting client's, as DRM
     * master, for its page flips
     */
    if (presenter >= 0) {
        master_fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
        if (master_fd < 0 || drmSetMaster(master_fd)) {
            fprintf(stderr, "copro-workload: card0 as DRM master: %s\n",
                    strerror(errno));
            return 1;
        }
    }
    if (copro_dev_open(&d, NULL)) {
        fprintf(stderr, "copro-workload: no copro device: %s\n",
                strerror(errno));
        return 1;
    }
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        return 1;
    }
    memset(sh, 0, sizeof(*sh));
    /* each client's timeline, shared as fds through the fork */
    for (int i = 0; i < n; i++) {
        uint32_t h;

        if (copro_syncobj_new(&d, &h) ||
            copro_syncobj_export(&d, h, &tl_fds[i])) {
            fprintf(stderr, "copro-workload: a shared sync object: %s\n",
                    strerror(errno));
            return 1;
        }
    }
    regs_map();
    if (regs) {
        engines = rd32(COPRO_REG_NUM_ENGINES);
        if (engines > COPRO_MAX_ENGINES) {
            engines = COPRO_MAX_ENGINES;
        }
        mem_bytes(engines, rd0, wr0);
    }
    /* every client counts from the same instant, 20 ms from now */
    t0 = copro_gpu_time(&d) + 20000000;
    for (int i = 0; i < n; i++) {
        pid_t p;

        fflush(stdout);
        p = fork();
        if (p < 0) {
            return 1;
        }
        if (!p) {
            if (i != presenter && master_fd >= 0) {
                close(master_fd);
                master_fd = -1;
            }
            _exit(client_main(&cl[i], i, t0, sh, tl_fds, master_fd));
        }
    }
    if (master_fd >= 0) {
        close(master_fd);
    }
    while (wait(&status) > 0) {
        bad += !WIFEXITED(status) || WEXITSTATUS(status);
    }
    printf("# WORKLOAD-RUN {\"os\":\"linux\",\"vram_bytes\":");
    if (regs) {
        mem_bytes(engines, rd1, wr1);
        printf("[");
        for (unsigned e = 0; e < engines; e++) {
            printf("%s{\"engine\":%u,\"read\":%" PRIu64 ",\"write\":%"
                   PRIu64 "}", e ? "," : "", e, rd1[e] - rd0[e],
                   wr1[e] - wr0[e]);
        }
        printf("]}\n");
    } else {
        printf("null}\n");
    }
    copro_dev_close(&d);
    return bad ? 1 : 0;
}
