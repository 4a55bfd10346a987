/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/nopapp.h"

#include <stddef.h>

#include <copro/copro_regs.h>

_Static_assert(offsetof(struct nopapp, app) == 0, "app first");

static bool all_done(const struct nopapp *n)
{
    return n->rendered == n->cfg.jobs && n->batches_done == n->batches;
}

static void batch_done(void *arg, int status);

/*
 * Renders the next batch and queues its signal and its CPU wait; false
 * if nothing was rendered. The kernel may refuse a buffer for want of
 * DMA-buffer records (DDI_ENOMEM: the others use theirs; DDI_EQUOTA:
 * this process's limit; DDI_EBUSY: throttled, its own buffers in flight
 * hold them): the batch is then what it has, and the next
 * completion renders again. With nothing of it in flight that is a
 * failure (nothing would call it again).
 */
static bool render_batch(struct nopapp *n)
{
    struct app *a = &n->app;
    unsigned count = 0;
    int st = DDI_OK;

    while (count < n->cfg.batch && n->rendered < n->cfg.jobs) {
        st = app_render(a, &n->cb);
        if (st != DDI_OK) {
            break;
        }
        n->rendered++;
        a->submitted++;
        count++;
    }
    if ((st == DDI_ENOMEM || st == DDI_EQUOTA || st == DDI_EBUSY) &&
        (count || n->batches > n->batches_done)) {
        n->refused++;
        st = DDI_OK;
    }
    if (st == DDI_OK && count) {
        st = kapi_signal_gpu(a->proc, a->hctx, n->hsync, n->batches + 1);
    }
    if (st == DDI_OK && count) {
        st = kapi_wait_cpu(a->proc, n->hsync, n->batches + 1, batch_done, n);
    }
    if (st != DDI_OK) {
        app_fail(a, "render/signal/wait", st);
        a->drained = true;
        return false;
    }
    if (count) {
        n->batch_end[n->batches % NOPAPP_MAX_DEPTH] = n->rendered;
        n->batches++;
    }
    return count != 0;
}

/* Keeps depth batches in flight while there is work. */
static void render_more(struct nopapp *n)
{
    while (n->batches - n->batches_done < n->cfg.depth &&
           n->rendered < n->cfg.jobs && !n->app.fail_what &&
           render_batch(n)) {
    }
}

static void batch_done(void *arg, int status)
{
    struct nopapp *n = arg;
    struct app *a = &n->app;

    if (status != DDI_OK) {
        app_fail(a, "batch wait", status);
        a->drained = true;
        return;
    }
    a->completed = n->batch_end[n->batches_done % NOPAPP_MAX_DEPTH];
    n->batches_done++;
    render_more(n);
    if (all_done(n)) {
        n->last_ns = kapi_now(a->proc);
        if (a->stopping) {
            a->drained = true;
        }
    }
}

static void start(struct app *a)
{
    struct nopapp *n = (struct nopapp *)a;

    n->first_ns = kapi_now(a->proc);
    render_more(n);
}

static void stop(struct app *a)
{
    struct nopapp *n = (struct nopapp *)a;

    if (all_done(n) || a->fail_what) {
        a->drained = true;
    }
}

static void check(struct app *a, struct report *r)
{
    struct nopapp *n = (struct nopapp *)a;
    struct vidsch_ctx_stats st = { 0 };
    uint64_t value = 0;
    int s1 = kapi_sync_value(a->proc, n->hsync, &value);
    int s2 = kapi_context_stats(a->proc, a->hctx, &st);

    report(r, s1 == DDI_OK && s2 == DDI_OK && n->rendered == n->cfg.jobs &&
           a->completed == n->cfg.jobs && st.completed == n->cfg.jobs &&
           value == n->batches, "%s: %lu of %lu 1-NOP buffers rendered, "
           "%lu retired (the scheduler counts %lu), sync object at %lu of "
           "%lu batches", a->name, n->rendered, n->cfg.jobs, a->completed,
           st.completed, value, n->batches);
}

static const struct app_ops nop_ops = {
    .start = start,
    .stop = stop,
    .check = check,
};

int nopapp_init(struct nopapp *n, struct kernel *k, const char *name,
                const struct nopapp_config *cfg)
{
    struct app *a = &n->app;
    int st;

    n->cfg = *cfg;
    if (!n->cfg.batch) {
        n->cfg.batch = 1;
    }
    if (!n->cfg.depth) {
        n->cfg.depth = 1;
    }
    if (n->cfg.depth > NOPAPP_MAX_DEPTH) {
        n->cfg.depth = NOPAPP_MAX_DEPTH;
    }
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_NORMAL,
                  &nop_ops);
    if (st != DDI_OK) {
        return st;
    }
    umd_init(&n->cb, n->cmd, sizeof(n->cmd));
    umd_nop(&n->cb, 1);
    if (!umd_ok(&n->cb)) {
        app_fail(a, "umd", DDI_EINVAL);
        return DDI_EINVAL;
    }
    st = kapi_create_sync(a->proc, a->hdev, 0, &n->hsync);
    if (st != DDI_OK) {
        app_fail(a, "create_sync", st);
    }
    return st;
}
