/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every simulated application has: a process with one device and
 * one context (an engine and a priority class), a life cycle the
 * scenario drives (start, stop, check), and the figures the scenario
 * reports (frames, deadline misses, submit-to-start latency, GPU share,
 * preemptions suffered).
 *
 * Applications use only the kernel API (kernel/kapi.h) and the umd; they
 * are state machines run by kernel timers and fence callbacks, never by
 * loops that wait.
 */
#ifndef FW_APPS_APP_H
#define FW_APPS_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kapi.h"
#include "lib/report.h"

#define APP_MAX_SAMPLES     2048

struct app;

struct app_ops {
    /* Begin: arm timers, submit the first work. */
    void (*start)(struct app *a);
    /* Stop making new work; the app sets drained once nothing of it is
     * in flight. */
    void (*stop)(struct app *a);
    /* Once drained: check the output by content, one report line or
     * more. */
    void (*check)(struct app *a, struct report *r);
};

struct app {
    const char *name;
    struct kernel *k;
    struct kproc *proc;
    uint32_t hdev, hctx;
    unsigned engine;
    enum vidsch_priority prio;
    const struct app_ops *ops;
    /* What its launcher (the scenario, or the app's init for a system
     * component) has the kernel grant the process at creation, before
     * any call: KAPI_PRIV_*. Set before app_init. */
    unsigned privileges;

    bool started, stopping, drained;
    /* The scenario expects TDR to blame it: losing its device (DDI_ELOST)
     * is then the outcome to check, not a failure. */
    bool expect_lost;
    /* The scenario expects its context to be put in error with this code
     * (e.g. DDI_ENOMEM: a buffer that cannot be resident even split):
     * that failure is then the outcome to check. 0: none expected. */
    int expect_error;
    uint64_t started_at, stopped_at;

    /* The first unexpected failure: which call, which code. */
    const char *fail_what;
    int fail_status;

    /* Figures. A frame is whatever the app submits as one unit. */
    uint64_t submitted, completed;
    uint64_t dropped;       /* periodic frames not even submitted: the
                               previous ones were still in flight */
    uint64_t misses;        /* deadline misses, dropped frames included */
    unsigned nlat;
    uint64_t lat[APP_MAX_SAMPLES];  /* submit-to-start, ns */
    uint64_t gpu_ns_at_stop;        /* the scheduler's count at stop */
};

/* Creates the process, its device and one context. DDI_OK or the code
 * of the call that failed (a->fail_what says which). */
int app_init(struct app *a, struct kernel *k, const char *name,
             unsigned engine, enum vidsch_priority prio,
             const struct app_ops *ops);

/* Records the first unexpected failure. */
void app_fail(struct app *a, const char *what, int status);

/* Records one submit-to-start latency sample. */
void app_latency(struct app *a, uint64_t ns);

/* The scenario's side of the life cycle. */
void app_start(struct app *a);
void app_stop(struct app *a);

/* Helpers for building and submitting with the umd. */
struct umd_cmdbuf;
int app_render(struct app *a, const struct umd_cmdbuf *b);

/* Creates an allocation on the app's device; 0 on failure (recorded). */
uint32_t app_alloc(struct app *a, uint64_t size, bool cpu_visible);

/* Maps an allocation the app keeps mapped for good (it knows from its
 * fences what the GPU wrote); NULL on failure (recorded). */
volatile void *app_map(struct app *a, uint32_t halloc);

/* The app's colours: tag in the top byte, the frame number below, so a
 * pixel tells which app and which frame drew it. */
static inline uint32_t app_colour(uint8_t tag, uint64_t frame)
{
    return ((uint32_t)tag << 24) | (uint32_t)(frame & 0xffffff);
}

/* A pixel one of frames 1..last of tag drew (or 0: not drawn yet). */
static inline bool app_colour_valid(uint32_t px, uint8_t tag, uint64_t last)
{
    return px == 0 || ((px >> 24) == tag && (px & 0xffffff) >= 1 &&
                       (px & 0xffffff) <= (last & 0xffffff));
}

#endif /* FW_APPS_APP_H */
