/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/frameapp.h"

#include <stddef.h>

/* Recovers the frame app from its embedded parts. */
static struct frameapp *of_app(struct app *a)
{
    return (struct frameapp *)a;
}

_Static_assert(offsetof(struct frameapp, app) == 0, "app first");

static void queue_frame(struct frameapp *f, uint64_t n);

/* Drained: stopped, or all of its max_frames released, and nothing in
 * flight or waiting to be submitted. */
static void check_drained(struct frameapp *f)
{
    bool finished = f->cfg.max_frames && f->released >= f->cfg.max_frames;

    if ((f->app.stopping || finished) && f->inflight == 0 &&
        f->waiting == 0 && !(f->busy && f->busy(f))) {
        f->app.drained = true;
    }
}

void frameapp_check_drained(struct frameapp *f)
{
    check_drained(f);
}

/* Frames complete in order on one context: everything up to the sync
 * value is done. */
static void frames_done(void *arg, int status)
{
    struct frameapp *f = arg;
    struct app *a = &f->app;
    uint64_t value = 0;
    int st;

    if (status != DDI_OK) {
        app_fail(a, "wait_cpu", status);
        f->inflight = 0;
        f->waiting = 0;
        a->drained = a->stopping;
        return;
    }
    kapi_sync_value(a->proc, f->hsync, &value);
    while (f->done_through < value && f->done_through < f->released) {
        uint64_t n = ++f->done_through;
        unsigned s = n % FRAMEAPP_SLOTS;
        uint64_t start = f->rec[2 * s], end = f->rec[2 * s + 1];

        if (f->slot[s].dropped) {
            continue;
        }
        f->inflight--;
        st = kapi_context_error(a->proc, a->hctx);
        if (st != DDI_OK) {
            /* its buffer never ran: no timestamps to read */
            app_fail(a, "context in error", st);
            continue;
        }
        a->completed++;
        f->last_completed = n;
        if (f->log && n <= f->log_cap) {
            f->log[n - 1] = (struct frameapp_record){
                f->slot[s].release, f->slot[s].submit, start, end,
            };
        }
        if (start >= f->slot[s].submit && end >= start) {
            app_latency(a, start - f->slot[s].submit);
        } else {
            app_fail(a, "frame timestamps", DDI_EINVAL);
        }
        if (f->cfg.deadline_ns &&
            end > f->slot[s].release + f->cfg.deadline_ns) {
            a->misses++;
            kapi_mark(a->proc, a->hctx, COPRO_MARK_DEADLINE_MISS, n,
                      end - (f->slot[s].release + f->cfg.deadline_ns));
        }
        if (f->done) {
            f->done(f, n);
        }
    }
    /* Back to back: the next frames go as soon as there is room. */
    while (!f->cfg.period_ns && !f->cfg.on_vsync && !a->stopping &&
           !a->fail_what && !f->throttled &&
           f->inflight + f->waiting < f->cfg.depth &&
           (!f->cfg.max_frames || f->released < f->cfg.max_frames)) {
        queue_frame(f, f->released + 1);
    }
    check_drained(f);
}

static void resume(void *arg, int status);

/* The kernel throttled the frame's call (DDI_EBUSY: the process's work
 * in flight is at a limit): it goes on from that step once some of that
 * work retired (kapi_wait_throttle), as a render thread would wait in
 * the call. False (the frame waits). */
static bool throttle(struct frameapp *f)
{
    int st;

    if (f->throttled) {
        return false;
    }
    st = kapi_wait_throttle(f->app.proc, resume, f);
    if (st != DDI_OK) {
        app_fail(&f->app, "wait_throttle", st);
        return false;
    }
    f->throttled = true;
    f->throttles++;
    return false;
}

/*
 * Frame n's submission from the step it reached: build (once), render,
 * signal, CPU wait. True once it is in flight; false when a call was
 * throttled (f->step says where it goes on) or failed (recorded).
 */
static bool submit(struct frameapp *f, uint64_t n)
{
    struct app *a = &f->app;
    unsigned s = n % FRAMEAPP_SLOTS;
    int st;

    if (f->step == FRAMEAPP_BUILD) {
        /* before build: a flush may start the GPU on the frame */
        f->rec[2 * s] = 0;
        f->rec[2 * s + 1] = 0;
        f->flushed_at = 0;
        umd_reset(&f->cb);
        umd_timestamp(&f->cb, f->hrec, 16 * s);
        if (!f->build(f, n, &f->cb)) {
            return false;
        }
        umd_timestamp(&f->cb, f->hrec, 16 * s + 8);
        if (!umd_ok(&f->cb)) {
            app_fail(a, f->cb.error ? f->cb.error : "umd", DDI_EINVAL);
            return false;
        }
        /* the submission starts here, however long a throttled call
         * then waits */
        f->slot[s].submit = f->flushed_at ? f->flushed_at
                                          : kapi_now(a->proc);
        if (!f->cfg.period_ns && !f->cfg.on_vsync) {
            f->slot[s].release = f->slot[s].submit;
        }
        f->step = FRAMEAPP_RENDER;
    }
    if (f->step == FRAMEAPP_RENDER) {
        st = app_render(a, &f->cb);
        if (st == DDI_EBUSY) {
            return throttle(f);
        }
        if (st != DDI_OK) {
            app_fail(a, "render", st);
            return false;
        }
        f->step = FRAMEAPP_SIGNAL;
    }
    if (f->step == FRAMEAPP_SIGNAL) {
        st = kapi_signal_gpu(a->proc, a->hctx, f->hsync, n);
        if (st == DDI_EBUSY) {
            return throttle(f);
        }
        if (st != DDI_OK) {
            app_fail(a, "signal_gpu", st);
            return false;
        }
        f->step = FRAMEAPP_WAIT;
    }
    st = kapi_wait_cpu(a->proc, f->hsync, n, frames_done, f);
    if (st != DDI_OK) {
        app_fail(a, "wait_cpu", st);
        return false;
    }
    f->step = FRAMEAPP_BUILD;
    f->inflight++;
    f->waiting--;
    a->submitted++;
    if (f->after_submit && !f->after_submit(f, n)) {
        app_fail(a, "after_submit", DDI_EINVAL);
    }
    return true;
}

/* Submits the released frames waiting for their turn, in order, until
 * one is throttled. */
static void submit_waiting(struct frameapp *f)
{
    while (f->waiting && !f->throttled && !f->app.fail_what &&
           f->next_submit <= f->released) {
        uint64_t n = f->next_submit;

        if (f->slot[n % FRAMEAPP_SLOTS].dropped) {
            f->next_submit++;
            continue;
        }
        if (!submit(f, n)) {
            return;
        }
        f->next_submit++;
    }
}

/* Frame n is released: it waits its turn behind throttled ones. */
static void queue_frame(struct frameapp *f, uint64_t n)
{
    f->released = n;
    f->slot[n % FRAMEAPP_SLOTS].dropped = false;
    f->waiting++;
    submit_waiting(f);
}

/* The throttle wait is over: the waiting frames go on. */
static void resume(void *arg, int status)
{
    struct frameapp *f = arg;

    f->throttled = false;
    if (status != DDI_OK) {
        app_fail(&f->app, "wait_throttle", status);
        f->waiting = 0;
    } else {
        submit_waiting(f);
    }
    check_drained(f);
}

bool frameapp_flush(struct frameapp *f)
{
    struct app *a = &f->app;
    int st;

    if (!umd_ok(&f->cb)) {
        app_fail(a, f->cb.error ? f->cb.error : "umd", DDI_EINVAL);
        return false;
    }
    if (!f->flushed_at) {
        f->flushed_at = kapi_now(a->proc);
    }
    /* a frame's earlier buffers are not throttled: a render refused
     * here (DDI_EBUSY too) fails the app; frames of several buffers keep
     * few in flight (the compositor) */
    st = app_render(a, &f->cb);
    if (st != DDI_OK) {
        app_fail(a, "render", st);
        return false;
    }
    umd_reset(&f->cb);
    return true;
}

/*
 * Frame n is due at release: submitted, or dropped when earlier frames
 * are still in flight or the app says so. A dropped frame takes its
 * number so the sync values stay in step.
 */
static void release_frame(struct frameapp *f, uint64_t n, uint64_t release)
{
    struct app *a = &f->app;
    unsigned s = n % FRAMEAPP_SLOTS;

    f->slot[s].release = release;
    if (f->inflight + f->waiting >= f->cfg.depth ||
        (f->may_release && !f->may_release(f, n))) {
        f->released = n;
        f->slot[s].dropped = true;
        a->dropped++;
        a->misses++;
        kapi_mark(a->proc, a->hctx, COPRO_MARK_DEADLINE_MISS, n, 0);
        if (f->done_through == n - 1) {
            f->done_through = n;
        }
        if (f->next_submit == n) {
            f->next_submit = n + 1;
        }
    } else {
        queue_frame(f, n);
    }
}

static void on_vsync(void *arg, int status, uint64_t vsyncs, uint64_t time);

static void wait_vsync(struct frameapp *f)
{
    int st = kapi_wait_vsync(f->app.proc, f->app.hdev, 0, on_vsync, f);

    if (st != DDI_OK) {
        app_fail(&f->app, "wait_vsync", st);
        check_drained(f);
    }
}

/* A vsync: the next frame is due now. */
static void on_vsync(void *arg, int status, uint64_t vsyncs, uint64_t time)
{
    struct frameapp *f = arg;
    struct app *a = &f->app;

    (void)vsyncs;
    if (status != DDI_OK) {
        app_fail(a, "wait_vsync", status);
        check_drained(f);
        return;
    }
    if (a->stopping || a->fail_what ||
        (f->cfg.max_frames && f->released >= f->cfg.max_frames)) {
        check_drained(f);
        return;
    }
    release_frame(f, f->released + 1, time);
    wait_vsync(f);
}

/* A periodic frame is due. */
static void release(void *arg, uint64_t now)
{
    struct frameapp *f = arg;
    struct app *a = &f->app;
    uint64_t n = f->released + 1;

    (void)now;
    if (a->stopping || a->fail_what ||
        (f->cfg.max_frames && n > f->cfg.max_frames)) {
        check_drained(f);
        return;
    }
    release_frame(f, n, f->t0 + (n - 1) * f->cfg.period_ns);
    kapi_timer_arm(a->proc, &f->timer, f->t0 + n * f->cfg.period_ns);
}

void frameapp_start(struct app *a)
{
    struct frameapp *f = of_app(a);

    f->t0 = kapi_now(a->proc);
    if (f->cfg.on_vsync) {
        wait_vsync(f);
        return;
    }
    if (f->cfg.period_ns) {
        /* Frame n is due at t0 + (n - 1) * period. */
        f->t0 += f->cfg.first_release_ns;
        kapi_timer_arm(a->proc, &f->timer, f->t0);
        return;
    }
    frames_done(f, DDI_OK);     /* fills the pipeline */
}

void frameapp_stop(struct app *a)
{
    struct frameapp *f = of_app(a);

    kapi_timer_cancel(a->proc, &f->timer);
    check_drained(f);
}

int frameapp_init(struct frameapp *f, const struct frameapp_config *cfg,
                  frameapp_build_fn build, frameapp_done_fn done,
                  uint32_t *cmd, uint32_t cmd_bytes)
{
    struct app *a = &f->app;
    int st;

    f->cfg = *cfg;
    if (f->cfg.depth == 0) {
        f->cfg.depth = 1;
    }
    if (f->cfg.depth >= FRAMEAPP_SLOTS / 2) {
        f->cfg.depth = FRAMEAPP_SLOTS / 2;
    }
    f->build = build;
    f->done = done;
    f->next_submit = 1;
    f->step = FRAMEAPP_BUILD;
    umd_init(&f->cb, cmd, cmd_bytes);
    kapi_timer_init(&f->timer, release, f);
    f->hrec = app_alloc(a, FRAMEAPP_SLOTS * 16, true);
    if (!f->hrec) {
        return a->fail_status;
    }
    f->rec = (volatile uint64_t *)app_map(a, f->hrec);
    if (!f->rec) {
        return a->fail_status;
    }
    st = kapi_create_sync(a->proc, a->hdev, 0, &f->hsync);
    if (st != DDI_OK) {
        app_fail(a, "create_sync", st);
    }
    return st;
}
