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
 * A periodic frame released while depth frames are still in flight (or
 * waiting to be submitted) is dropped and counted as a miss. When the
 * kernel throttles a frame's render or signal (DDI_EBUSY: the process's
 * work in flight is at a limit, kernel/kthrottle.h), the frame waits
 * (kapi_wait_throttle) and goes on from that call once some of the
 * app's work retired; frames released meanwhile wait behind it, in
 * order, as they would behind a render thread blocked in the call. Frame numbers start at 1 (the sync
 * object starts at 0). The app embeds a struct frameapp first and gives
 * its build callback.
 *
 * Frames can also be released by the display: on_vsync releases one at
 * every vsync of display source 0 (the kernel's vsync event), its
 * release time that vsync's. A frame may take more than one DMA buffer:
 * build calls frameapp_flush to submit what it has so far (the patch
 * list of one buffer is bounded). Hooks, all optional, let an app that
 * does more than render (the compositor presents) say when a release
 * must be dropped, act once a frame is submitted, and hold back
 * "drained" while work of its own is pending.
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
    bool on_vsync;          /* release at each vsync of display source 0
                               (period_ns is then unused) */
};

/* How far the frame being submitted got (it goes on from there after a
 * throttle wait). */
enum frameapp_step {
    FRAMEAPP_BUILD, FRAMEAPP_RENDER, FRAMEAPP_SIGNAL, FRAMEAPP_WAIT,
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
    unsigned waiting;       /* released, not yet submitted (throttled) */
    uint64_t next_submit;   /* the next frame to submit */
    enum frameapp_step step;    /* ... and how far it got */
    bool throttled;         /* a kapi_wait_throttle is pending */
    uint64_t throttles;     /* times the kernel throttled it */
    uint64_t flushed_at;    /* GPU time before the frame's first
                               render when build flushed, else 0 */
    /* Optional hooks, set after frameapp_init. */
    /* a periodic or vsync release: false drops it (counted as a miss) */
    bool (*may_release)(struct frameapp *f, uint64_t n);
    /* frame n was rendered and its signal queued; false: the app failed
     * (it recorded why) */
    bool (*after_submit)(struct frameapp *f, uint64_t n);
    /* work of the app's own still pending: not drained yet */
    bool (*busy)(const struct frameapp *f);
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

/* From build: renders what b holds so far as one DMA buffer of the
 * frame and empties b. False if it failed (recorded). */
bool frameapp_flush(struct frameapp *f);

/* Sets drained if the app is stopping (or finished) and nothing of it is
 * in flight; for apps whose busy hook just became false. */
void frameapp_check_drained(struct frameapp *f);

/* The last frame that ran to completion (0: none yet). */
static inline uint64_t frameapp_last(const struct frameapp *f)
{
    return f->last_completed;
}

#endif /* FW_APPS_FRAMEAPP_H */
