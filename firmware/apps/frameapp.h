/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The frame loop most applications share, as a state machine:
 *
 *   release frame n (a periodic timer, or the completion of an earlier
 *   frame when frames run back to back)
 *     -> build: TIMESTAMP(start), the app's packets, TIMESTAMP(end)
 *     -> render (kernel: validate, copy, queue on the context)
 *     -> signal the app's sync object to n from the GPU, and wait for n
 *        on the CPU with a callback
 *   callback -> frame n is done: its two timestamps give the
 *        submit-to-start latency (start minus the GPU time read just
 *        before render) and whether it met its deadline (end before
 *        release + deadline).
 *
 * A periodic frame released while depth frames are still in flight is
 * dropped and counted as a miss. Frame numbers start at 1 (the sync
 * object starts at 0). The app embeds a struct frameapp first and gives
 * its build callback.
 */
#ifndef FW_APPS_FRAMEAPP_H
#define FW_APPS_FRAMEAPP_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/app.h"
#include "kernel/ktimer.h"
#include "umd/umd.h"

#define FRAMEAPP_SLOTS      256     /* timestamp records, reused mod */

struct frameapp;

/* Adds frame n's packets to b (after its start timestamp); false if the
 * app cannot build it (recorded with app_fail). */
typedef bool (*frameapp_build_fn)(struct frameapp *f, uint64_t n,
                                  struct umd_cmdbuf *b);
/* Optional: frame n completed (after the figures were taken). */
typedef void (*frameapp_done_fn)(struct frameapp *f, uint64_t n);

/* What a frame did, for scenarios that look at every frame. */
struct frameapp_record {
    uint64_t release, submit, start, end;   /* GPU-clock ns */
};

struct frameapp_config {
    uint64_t period_ns;     /* 0: back to back */
    uint64_t deadline_ns;   /* after release; 0: no deadline */
    unsigned depth;         /* frames in flight at most (>= 1) */
    uint64_t max_frames;    /* 0: until stopped */
    uint64_t first_release_ns;  /* periodic: frame 1 this long after
                                   start */
};

struct frameapp {
    struct app app;
    struct frameapp_config cfg;
    frameapp_build_fn build;
    frameapp_done_fn done;

    struct umd_cmdbuf cb;
    uint32_t hrec;          /* FRAMEAPP_SLOTS x {start, end} u64 */
    volatile uint64_t *rec;
    uint32_t hsync;
    struct ktimer timer;

    uint64_t t0;
    uint64_t released;      /* last frame number released */
    uint64_t done_through;  /* every frame <= this completed (or was
                               dropped) */
    uint64_t last_completed;    /* the last frame that ran */
    unsigned inflight;
    struct frameapp_record *log;    /* optional: frame n at log[n - 1] */
    unsigned log_cap;
    struct {
        uint64_t release;   /* when it was due */
        uint64_t submit;    /* GPU time just before render */
        bool dropped;
    } slot[FRAMEAPP_SLOTS];
};

/*
 * Sets up f (whose app part app_init already did): the record
 * allocation, the sync object, cmd storage for the command buffer.
 * DDI_OK or the failing call's code.
 */
int frameapp_init(struct frameapp *f, const struct frameapp_config *cfg,
                  frameapp_build_fn build, frameapp_done_fn done,
                  uint32_t *cmd, uint32_t cmd_bytes);

/* The app_ops start/stop every frame app can use as they are. */
void frameapp_start(struct app *a);
void frameapp_stop(struct app *a);

/* The last frame that ran to completion (0: none yet). */
static inline uint64_t frameapp_last(const struct frameapp *f)
{
    return f->last_completed;
}

#endif /* FW_APPS_FRAMEAPP_H */
