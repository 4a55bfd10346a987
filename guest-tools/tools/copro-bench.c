// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-bench: the firmware's benchmarks on Linux, through the ioctls.
 * All times are the device's (GPU_TIME, TIMESTAMP packets): virtual and
 * exact under -icount. Prints "# METRICS {json}" lines for
 * scripts/bench-linux.sh.
 *
 *   copro-bench hog [HOG_MS [FRAMES_MS [PERIOD_US]]]
 *       a LOW context's one job of HOG_MS of WORK, and a HIGH context's
 *       frame (a RECT between two TIMESTAMPs) every PERIOD_US (16667)
 *       for FRAMES_MS: the frames' submit-to-start latency (TIMESTAMP
 *       minus GPU_TIME read just before the submit ioctl) split into the
 *       device's share (its request-to-saved time of the preemption, from
 *       STAT_PREEMPT_SUM) and the OS's (the rest: ioctl, checks,
 *       drm_sched's thread, run_job, the interrupt, the ring rewrite);
 *       the hog's completion time (COPRO_BENCH_VERBOSE=1: every frame)
 *   copro-bench jobs N CTXS
 *       N jobs of one NOP through the submit ioctl, round robin over CTXS
 *       contexts: jobs per second of device time
 *   copro-bench fair CTXS MS
 *       CTXS processes, one NORMAL context each, keep two 1 ms WORK jobs
 *       in flight for MS: Jain's index of the device time each got
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcopro.h"
#include "copro/copro_cmd.h"

static struct copro_dev d;

static uint64_t engines_value(const char *key)
{
    char line[512];
    uint64_t v = 0;
    FILE *f = fopen("/sys/kernel/debug/dri/0/copro_engines", "r");

    while (f && fgets(line, sizeof(line), f)) {
        char *p = strstr(line, key);

        if (p && !strncmp(line, "engine0:", 8)) {
            v = strtoull(p + strlen(key), NULL, 10);
            break;
        }
    }
    if (f) {
        fclose(f);
    }
    return v;
}

static void sleep_until_gpu(uint64_t t)
{
    uint64_t now = copro_gpu_time(&d);

    if (now < t) {
        struct timespec ts = {
            .tv_sec = (t - now) / 1000000000,
            .tv_nsec = (t - now) % 1000000000,
        };

        nanosleep(&ts, NULL);
    }
    while (copro_gpu_time(&d) < t) {
        ;
    }
}

static int cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* median, p99, max of n values (sorted in place) */
static void stats(uint64_t *v, unsigned n, uint64_t out[3])
{
    qsort(v, n, sizeof(*v), cmp64);
    out[0] = n ? v[n / 2] : 0;
    out[1] = n ? v[(n * 99 + 99) / 100 - 1] : 0;
    out[2] = n ? v[n - 1] : 0;
}

#define MAX_FRAMES 1024

static int hog(uint64_t hog_ms, uint64_t frames_ms, uint64_t period_us)
{
    static uint64_t lat[MAX_FRAMES], dev[MAX_FRAMES], os[MAX_FRAMES];
    struct copro_bo ts, img;
    struct copro_cmd c;
    uint32_t lo, hi;
    struct drm_copro_sync hs = { 0 };
    struct copro_submit_opts ho = { .out = &hs, .nout = 1 };
    unsigned n = (frames_ms * 1000 + period_us - 1) / period_us;
    unsigned started = 0;
    uint64_t *t, hog_sub, t0, l[3], o[3], dv[3], p0;

    if (n > MAX_FRAMES) {
        n = MAX_FRAMES;
    }
    if (copro_ctx_new(&d, COPRO_CTX_PRIORITY_LOW, &lo) ||
        copro_ctx_new(&d, COPRO_CTX_PRIORITY_HIGH, &hi) ||
        copro_bo_new(&d, 65536, &ts) || copro_bo_map(&d, &ts) ||
        copro_bo_new(&d, 256 * 256 * 4, &img)) {
        fprintf(stderr, "copro-bench: no context or buffer\n");
        return 1;
    }
    t = ts.map;
    memset(t, 0, 65536);
    copro_cmd_init(&c);
    copro_syncobj_new(&d, &hs.handle);
    p0 = engines_value("dev_preemptions ");

    /* one frame first, unmeasured: the buffers' first placement in VRAM
     * is not what the benchmark is about */
    copro_cmd_target(&c, 0, &img, 0, 1024, 256, 256, COPRO_FMT_XRGB8888);
    copro_cmd_rect(&c, 0, 0, 0, 256, 256, 0);
    copro_cmd_timestamp(&c, &ts, 16);
    copro_run(&d, hi, 0, &c);
    copro_cmd_reset(&c);

    /* the hog: one job, WORK in 10 ms packets */
    copro_cmd_timestamp(&c, &ts, 0);
    for (uint64_t ms = 0; ms < hog_ms; ms += 10) {
        copro_cmd_work(&c, (hog_ms - ms < 10 ? hog_ms - ms : 10) * 1000000);
    }
    copro_cmd_timestamp(&c, &ts, 8);
    {
        struct drm_copro_sync s = { 0 };
        struct copro_submit_opts so = { .out = &s, .nout = 1 };

        copro_syncobj_new(&d, &s.handle);
        hog_sub = copro_gpu_time(&d);
        copro_submit(&d, lo, 0, &c, &so);
        t0 = hog_sub + period_us * 1000;
        for (unsigned k = 0; k < n; k++) {
            uint64_t s0, s1, n0, n1, sub;

            sleep_until_gpu(t0 + k * period_us * 1000);
            n0 = engines_value("dev_preemptions ");
            s0 = engines_value("dev_preempt_sum_ns ");
            copro_cmd_reset(&c);
            copro_cmd_timestamp(&c, &ts, 64 + 16 * k);
            copro_cmd_target(&c, 0, &img, 0, 1024, 256, 256,
                             COPRO_FMT_XRGB8888);
            copro_cmd_rect(&c, 0, 0, 0, 256, 256, 0x00101010 * (k & 15));
            copro_cmd_timestamp(&c, &ts, 72 + 16 * k);
            sub = copro_gpu_time(&d);
            if (copro_submit(&d, hi, 0, &c, &ho) ||
                copro_syncobj_wait(&d, hs.handle, 0, 10000000000ll)) {
                break;
            }
            n1 = engines_value("dev_preemptions ");
            s1 = engines_value("dev_preempt_sum_ns ");
            lat[started] = t[8 + 2 * k] - sub;
            dev[started] = n1 > n0 ? s1 - s0 : 0;
            os[started] = lat[started] - dev[started];
            started++;
        }
        copro_syncobj_wait(&d, s.handle, 0, INT64_MAX);
    }
    if (getenv("COPRO_BENCH_VERBOSE")) {
        for (unsigned k = 0; k < started; k++) {
            printf("# frame %u: latency %" PRIu64 " device %" PRIu64
                   " OS %" PRIu64 " ns\n", k, lat[k], dev[k], os[k]);
        }
    }
    stats(lat, started, l);
    stats(os, started, o);
    stats(dev, started, dv);
    printf("# METRICS {\"scenario\":\"hog\",\"os\":\"linux\",\"hog_ms\":%"
           PRIu64 ",\"frames_ms\":%" PRIu64 ",\"period_us\":%" PRIu64
           ",\"frames\":%u,\"lat_median_ns\":%" PRIu64
           ",\"lat_p99_ns\":%" PRIu64 ",\"lat_max_ns\":%" PRIu64
           ",\"os_median_ns\":%" PRIu64 ",\"os_p99_ns\":%" PRIu64
           ",\"os_max_ns\":%" PRIu64 ",\"dev_median_ns\":%" PRIu64
           ",\"dev_p99_ns\":%" PRIu64 ",\"hog_done_ns\":%" PRIu64
           ",\"dev_preemptions\":%" PRIu64 "}\n",
           hog_ms, frames_ms, period_us, started, l[0], l[1], l[2], o[0],
           o[1], o[2], dv[0], dv[1], t[1] - hog_sub,
           engines_value("dev_preemptions ") - p0);
    return started == n ? 0 : 1;
}

static int jobs(unsigned n, unsigned nctx)
{
    uint32_t ctx[64], nop = COPRO_PKT_HDR(COPRO_OP_NOP, 0, 1);
    struct drm_copro_sync s[64];
    struct copro_cmd c;
    uint64_t t0, t1;

    if (nctx > 64) {
        nctx = 64;
    }
    copro_cmd_init(&c);
    copro_cmd_raw(&c, &nop, 1);
    for (unsigned i = 0; i < nctx; i++) {
        if (copro_ctx_new(&d, COPRO_CTX_PRIORITY_NORMAL, &ctx[i]) ||
            copro_syncobj_new(&d, &s[i].handle)) {
            return 1;
        }
        s[i].flags = 0;
        s[i].point = 0;
    }
    printf("BENCH-MARK start\n");
    fflush(stdout);
    t0 = copro_gpu_time(&d);
    for (unsigned j = 0; j < n; j++) {
        unsigned i = j % nctx;
        struct copro_submit_opts o = { .out = &s[i], .nout = 1 };
        int ret;

        /* the last job of each context signals its sync object */
        ret = copro_submit(&d, ctx[i], 0, &c, j + nctx >= n ? &o : NULL);
        if (ret) {
            fprintf(stderr, "copro-bench: submit: %s\n", strerror(-ret));
            return 1;
        }
    }
    for (unsigned i = 0; i < nctx; i++) {
        copro_syncobj_wait(&d, s[i].handle, 0, INT64_MAX);
    }
    t1 = copro_gpu_time(&d);
    printf("BENCH-MARK end\n");
    printf("# METRICS {\"scenario\":\"jobs\",\"os\":\"linux\",\"jobs\":%u,"
           "\"contexts\":%u,\"gpu_ns\":%" PRIu64 ",\"jobs_per_s\":%.0f}\n",
           n, nctx, t1 - t0, n * 1e9 / (t1 - t0));
    return 0;
}

static int fair(unsigned nctx, uint64_t ms)
{
    int fds[2];
    uint64_t start = copro_gpu_time(&d) + 50000000, end;
    double sum = 0, sq = 0;
    uint64_t busy[64];

    if (nctx > 64) {
        nctx = 64;
    }
    end = start + ms * 1000000;
    if (pipe(fds)) {
        return 1;
    }
    for (unsigned i = 0; i < nctx; i++) {
        if (!fork()) {
            struct copro_dev cd;
            struct copro_cmd c;
            struct drm_copro_ctx_query q;
            struct drm_copro_sync s[2] = { { 0 }, { 0 } };
            uint32_t ctx;
            uint64_t rec[2];
            unsigned k = 0;

            if (copro_dev_open(&cd, NULL) ||
                copro_ctx_new(&cd, COPRO_CTX_PRIORITY_NORMAL, &ctx)) {
                _exit(1);
            }
            copro_syncobj_new(&cd, &s[0].handle);
            copro_syncobj_new(&cd, &s[1].handle);
            copro_cmd_init(&c);
            copro_cmd_work(&c, 1000000);
            while (copro_gpu_time(&cd) < start) {
                usleep(1000);
            }
            while (copro_gpu_time(&cd) < end) {
                struct copro_submit_opts o = { .out = &s[k & 1], .nout = 1 };

                /* two in flight: wait for the one before the last */
                if (k >= 2) {
                    copro_syncobj_wait(&cd, s[k & 1].handle, 0, INT64_MAX);
                }
                copro_submit(&cd, ctx, 0, &c, &o);
                k++;
            }
            copro_ctx_query(&cd, ctx, &q);
            rec[0] = i;
            rec[1] = q.busy_ns;
            if (write(fds[1], rec, sizeof(rec)) != sizeof(rec)) {
                _exit(1);
            }
            for (unsigned j = 0; j < 2 && j < k; j++) {
                copro_syncobj_wait(&cd, s[j].handle, 0, INT64_MAX);
            }
            _exit(0);
        }
    }
    for (unsigned i = 0; i < nctx; i++) {
        uint64_t rec[2];

        if (read(fds[0], rec, sizeof(rec)) != sizeof(rec)) {
            return 1;
        }
        busy[rec[0]] = rec[1];
    }
    while (wait(NULL) > 0) {
        ;
    }
    printf("# busy ms per context:");
    for (unsigned i = 0; i < nctx; i++) {
        sum += busy[i];
        sq += (double)busy[i] * busy[i];
        printf(" %.1f", busy[i] / 1e6);
    }
    printf("\n# METRICS {\"scenario\":\"fair\",\"os\":\"linux\","
           "\"contexts\":%u,\"ms\":%" PRIu64 ",\"jain\":%.4f}\n", nctx, ms,
           sq ? sum * sum / (nctx * sq) : 0);
    return 0;
}

/*
 * VM_BIND: n synchronous MAP + UNMAP pairs of a 64 KiB VRAM buffer in the
 * file's VM (each UNMAP waits for the VM's jobs: none here), then n
 * asynchronous pairs chained on one sync object; per virtual second.
 */
static int vmbind(unsigned n)
{
    struct copro_bo bo;
    uint32_t ctx, s;
    uint64_t t0, t1, t2;
    const uint64_t va = 1ull << 30;

    if (copro_ctx_new_vm(&d, COPRO_CTX_PRIORITY_NORMAL, &ctx) ||
        copro_bo_new(&d, 65536, &bo) || copro_syncobj_new(&d, &s)) {
        fprintf(stderr, "copro-bench: no GPU VM (COPRO_CAP_GPUVA?)\n");
        return 1;
    }
    printf("BENCH-MARK start\n");
    fflush(stdout);
    t0 = copro_gpu_time(&d);
    for (unsigned i = 0; i < n; i++) {
        if (copro_vm_map(&d, &bo, 0, va, bo.size, 0) ||
            copro_vm_unmap(&d, va, bo.size)) {
            fprintf(stderr, "copro-bench: VM_BIND failed\n");
            return 1;
        }
    }
    t1 = copro_gpu_time(&d);
    for (unsigned i = 0; i < n; i++) {
        struct drm_copro_vm_bind_op ops[2] = {
            { .op = COPRO_VM_BIND_OP_MAP, .handle = bo.handle, .va = va,
              .range = bo.size },
            { .op = COPRO_VM_BIND_OP_UNMAP, .va = va, .range = bo.size },
        };
        struct drm_copro_sync out = { .handle = s };

        if (copro_vm_bind_async(&d, ops, 2, NULL, 0, &out, 1, NULL)) {
            fprintf(stderr, "copro-bench: async VM_BIND failed\n");
            return 1;
        }
    }
    copro_syncobj_wait(&d, s, 0, INT64_MAX);
    t2 = copro_gpu_time(&d);
    printf("BENCH-MARK end\n");
    printf("# METRICS {\"scenario\":\"vmbind\",\"os\":\"linux\","
           "\"pairs\":%u,\"sync_ns\":%" PRIu64 ",\"async_ns\":%" PRIu64
           ",\"sync_ops_per_s\":%.0f,\"async_ops_per_s\":%.0f}\n", n,
           t1 - t0, t2 - t1, 2 * n * 1e9 / (t1 - t0),
           2 * n * 1e9 / (t2 - t1));
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "hog";

    if (copro_dev_open(&d, NULL)) {
        fprintf(stderr, "copro-bench: no copro DRM device\n");
        return 1;
    }
    if (!strcmp(what, "hog")) {
        return hog(argc > 2 ? strtoull(argv[2], NULL, 0) : 2000,
                   argc > 3 ? strtoull(argv[3], NULL, 0) : 1000,
                   argc > 4 ? strtoull(argv[4], NULL, 0) : 16667);
    }
    if (!strcmp(what, "jobs")) {
        return jobs(argc > 2 ? atoi(argv[2]) : 2000,
                    argc > 3 ? atoi(argv[3]) : 1);
    }
    if (!strcmp(what, "fair")) {
        return fair(argc > 2 ? atoi(argv[2]) : 8,
                    argc > 3 ? strtoull(argv[3], NULL, 0) : 500);
    }
    if (!strcmp(what, "vmbind")) {
        return vmbind(argc > 2 ? atoi(argv[2]) : 500);
    }
    fprintf(stderr, "usage: copro-bench hog [HOG_MS [FRAMES_MS [PERIOD_US]]]"
            " | jobs N CTXS | fair CTXS MS | vmbind PAIRS\n");
    return 2;
}
