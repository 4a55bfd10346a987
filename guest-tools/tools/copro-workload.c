// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro-workload: run a workload's clients (docs/workloads.rst) on Linux,
 * each client its own process through the DRM uapi (libcopro), and print
 * each client's metrics as one JSON line.
 *
 *   copro-workload DURATION_MS CLIENT...
 *     CLIENT = NAME:PRIORITY:JOBS_PER_CYCLE:WORK_NS:SLEEP_US:SUBMIT:
 *              START_MS:STOP_MS:CYCLES
 *     (PRIORITY low|normal|high, SUBMIT sync|async, CYCLES 0: no limit)
 *
 * The host's tools/copro-workload writes these arguments from a workload
 * file; this runner takes WORK jobs (other job kinds, presents, working
 * sets and dependencies are refused: not yet). Every time is the device's
 * (GPU_TIME, TIMESTAMP packets): deterministic under -icount. A job's
 * stream is TIMESTAMP, WORK, TIMESTAMP: its submit-to-start latency is the
 * first TIMESTAMP minus GPU_TIME read just before the submit ioctl.
 *
 * Output, one line per client:
 *   # WORKLOAD {"client":..,"cycles":..,"jobs":..,"elapsed_ns":..,
 *               "gpu_ns":..,"cycle_ns":[min,avg,p99,max],
 *               "latency_ns":[min,avg,p99,max]}
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

#define MAX_CLIENTS     16
#define MAX_JPC         64
#define MAX_SAMPLES     65536
#define SLOTS           4       /* cycles whose timestamps are kept */

struct client {
    char name[17];
    uint32_t prio;
    unsigned jpc;
    uint64_t work_ns;
    uint64_t sleep_us;
    int async;
    uint64_t start_ms, stop_ms, cycles;
};

static int parse(const char *s, struct client *c)
{
    char prio[8], submit[8];

    if (sscanf(s, "%16[a-z0-9_-]:%7[a-z]:%u:%" SCNu64 ":%" SCNu64
               ":%7[a-z]:%" SCNu64 ":%" SCNu64 ":%" SCNu64, c->name, prio,
               &c->jpc, &c->work_ns, &c->sleep_us, submit, &c->start_ms,
               &c->stop_ms, &c->cycles) != 9) {
        return -1;
    }
    if (!strcmp(prio, "low")) {
        c->prio = COPRO_CTX_PRIORITY_LOW;
    } else if (!strcmp(prio, "normal")) {
        c->prio = COPRO_CTX_PRIORITY_NORMAL;
    } else if (!strcmp(prio, "high")) {
        c->prio = COPRO_CTX_PRIORITY_HIGH;
    } else {
        return -1;
    }
    if (strcmp(submit, "sync") && strcmp(submit, "async")) {
        return -1;
    }
    c->async = !strcmp(submit, "async");
    if (!c->jpc || c->jpc > MAX_JPC || !c->work_ns ||
        c->stop_ms <= c->start_ms) {
        return -1;
    }
    return 0;
}

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

/* min, average, 99th percentile, max */
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

struct run {
    struct copro_dev d;
    struct copro_bo ts;         /* SLOTS x jpc x (start, end) */
    uint32_t ctx;
    uint32_t sync[SLOTS];
    uint64_t submit[SLOTS][MAX_JPC];
    uint64_t *lat, *cyc;
    unsigned nlat, ncyc;
    uint64_t jobs;
};

/* the jobs of the cycle in @slot have completed: read their times */
static void harvest(struct run *r, const struct client *c, unsigned slot)
{
    const uint64_t *t = (const uint64_t *)r->ts.map + 2 * slot * c->jpc;

    for (unsigned j = 0; j < c->jpc; j++) {
        uint64_t start = t[2 * j], sub = r->submit[slot][j];

        if (r->nlat < MAX_SAMPLES) {
            r->lat[r->nlat++] = start > sub ? start - sub : 0;
        }
        r->jobs++;
    }
}

static int client_main(const struct client *c, uint64_t t0)
{
    struct run r = { 0 };
    struct copro_cmd cmd;
    struct drm_copro_ctx_query q;
    uint64_t begin = t0 + c->start_ms * 1000000;
    uint64_t end = t0 + c->stop_ms * 1000000, last_end = begin;
    uint64_t lat[4], cyc[4], k = 0;

    r.lat = calloc(MAX_SAMPLES, sizeof(*r.lat));
    r.cyc = calloc(MAX_SAMPLES, sizeof(*r.cyc));
    if (!r.lat || !r.cyc || copro_dev_open(&r.d, NULL) ||
        copro_ctx_new(&r.d, c->prio, &r.ctx) ||
        copro_bo_new(&r.d, SLOTS * MAX_JPC * 16, &r.ts) ||
        copro_bo_map(&r.d, &r.ts)) {
        fprintf(stderr, "copro-workload: %s: cannot open the device, a "
                "context or a buffer: %s\n", c->name, strerror(errno));
        return 1;
    }
    for (unsigned s = 0; s < SLOTS; s++) {
        copro_syncobj_new(&r.d, &r.sync[s]);
    }
    copro_cmd_init(&cmd);
    sleep_until_gpu(&r.d, begin);
    while (copro_gpu_time(&r.d) < end && (!c->cycles || k < c->cycles)) {
        unsigned slot = k % SLOTS;
        uint64_t cstart = copro_gpu_time(&r.d);

        /* async: up to SLOTS - 1 cycles in flight; the oldest is done */
        if (k >= SLOTS - 1 && c->async) {
            unsigned old = (k - (SLOTS - 1)) % SLOTS;

            copro_syncobj_wait(&r.d, r.sync[old], 0, INT64_MAX);
            harvest(&r, c, old);
        }
        for (unsigned j = 0; j < c->jpc; j++) {
            struct drm_copro_sync out = { .handle = r.sync[slot] };
            struct copro_submit_opts o = { .out = &out, .nout = 1 };
            uint32_t off = 16 * (slot * c->jpc + j);

            copro_cmd_reset(&cmd);
            copro_cmd_timestamp(&cmd, &r.ts, off);
            copro_cmd_work(&cmd, c->work_ns);
            copro_cmd_timestamp(&cmd, &r.ts, off + 8);
            r.submit[slot][j] = copro_gpu_time(&r.d);
            if (copro_submit(&r.d, r.ctx, 0, &cmd,
                             j == c->jpc - 1 ? &o : NULL)) {
                fprintf(stderr, "copro-workload: %s: submit: %s\n",
                        c->name, strerror(errno));
                return 1;
            }
        }
        if (!c->async) {
            copro_syncobj_wait(&r.d, r.sync[slot], 0, INT64_MAX);
            harvest(&r, c, slot);
        }
        if (c->sleep_us) {
            usleep(c->sleep_us);
        }
        last_end = copro_gpu_time(&r.d);
        if (r.ncyc < MAX_SAMPLES) {
            r.cyc[r.ncyc++] = last_end - cstart;
        }
        k++;
    }
    /* the cycles still in flight (async) */
    for (uint64_t i = k > SLOTS - 1 ? k - (SLOTS - 1) : 0;
         c->async && i < k; i++) {
        copro_syncobj_wait(&r.d, r.sync[i % SLOTS], 0, INT64_MAX);
        harvest(&r, c, i % SLOTS);
    }
    copro_ctx_query(&r.d, r.ctx, &q);
    stats(r.lat, r.nlat, lat);
    stats(r.cyc, r.ncyc, cyc);
    printf("# WORKLOAD {\"os\":\"linux\",\"client\":\"%s\",\"cycles\":%"
           PRIu64 ",\"jobs\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64
           ",\"gpu_ns\":%" PRIu64 ",\"cycle_ns\":[%" PRIu64 ",%" PRIu64
           ",%" PRIu64 ",%" PRIu64 "],\"latency_ns\":[%" PRIu64 ",%" PRIu64
           ",%" PRIu64 ",%" PRIu64 "]}\n", c->name, k, r.jobs,
           last_end - begin, (uint64_t)q.busy_ns, cyc[0], cyc[1], cyc[2],
           cyc[3], lat[0], lat[1], lat[2], lat[3]);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    struct client cl[MAX_CLIENTS];
    struct copro_dev d;
    uint64_t duration, t0;
    int n = argc - 2, bad = 0, status;

    if (argc < 3 || n > MAX_CLIENTS ||
        sscanf(argv[1], "%" SCNu64, &duration) != 1 || !duration) {
        fprintf(stderr, "usage: copro-workload DURATION_MS NAME:PRIORITY:"
                "JOBS_PER_CYCLE:WORK_NS:SLEEP_US:sync|async:START_MS:"
                "STOP_MS:CYCLES... (at most %d clients)\n", MAX_CLIENTS);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        if (parse(argv[i + 2], &cl[i]) || cl[i].stop_ms > duration) {
            fprintf(stderr, "copro-workload: client %d: bad description "
                    "'%s'\n", i, argv[i + 2]);
            return 2;
        }
    }
    if (copro_dev_open(&d, NULL)) {
        fprintf(stderr, "copro-workload: no copro device: %s\n",
                strerror(errno));
        return 1;
    }
    /* every client counts from the same instant, 20 ms from now */
    t0 = copro_gpu_time(&d) + 20000000;
    copro_dev_close(&d);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();

        if (p < 0) {
            return 1;
        }
        if (!p) {
            _exit(client_main(&cl[i], t0));
        }
    }
    while (wait(&status) > 0) {
        bad += !WIFEXITED(status) || WEXITSTATUS(status);
    }
    return bad ? 1 : 0;
}
