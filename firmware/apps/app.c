/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/app.h"

#include <stddef.h>

#include "kernel/kisolate.h"
#include "umd/umd.h"

void app_fail(struct app *a, const char *what, int status)
{
    if (!a->fail_what) {
        a->fail_what = what;
        a->fail_status = status;
    }
}

int app_init(struct app *a, struct kernel *k, const char *name,
             unsigned engine, enum vidsch_priority prio,
             const struct app_ops *ops)
{
    int st;

    a->name = name;
    a->k = k;
    a->engine = engine;
    a->prio = prio;
    a->ops = ops;
    a->proc = kapi_process_create(k, name);
    if (!a->proc) {
        app_fail(a, "process_create", DDI_ENOMEM);
        return DDI_ENOMEM;
    }
    if (a->privileges) {
        kernel_process_grant(k, a->proc, a->privileges);
    }
    st = kapi_create_device(a->proc, &a->hdev);
    if (st != DDI_OK) {
        app_fail(a, "create_device", st);
        return st;
    }
    st = kapi_create_context(a->proc, a->hdev, engine, prio, &a->hctx);
    if (st != DDI_OK) {
        app_fail(a, "create_context", st);
    }
    return st;
}

void app_latency(struct app *a, uint64_t ns)
{
    if (a->nlat < APP_MAX_SAMPLES) {
        a->lat[a->nlat++] = ns;
    }
}

void app_start(struct app *a)
{
    a->started = true;
    a->started_at = kapi_now(a->proc);
    a->ops->start(a);
}

void app_stop(struct app *a)
{
    struct vidsch_ctx_stats st;

    a->stopping = true;
    a->stopped_at = kapi_now(a->proc);
    if (kapi_context_stats(a->proc, a->hctx, &st) == DDI_OK) {
        a->gpu_ns_at_stop = st.gpu_ns;
    }
    a->ops->stop(a);
}

int app_render(struct app *a, const struct umd_cmdbuf *b)
{
    struct kapi_render_args args = {
        .cmd = umd_words(b), .cmd_bytes = umd_bytes(b),
        .alloc = b->alloc, .nalloc = b->nalloc,
        .patch = b->patch, .npatch = b->npatch,
    };

    return kapi_render(a->proc, a->hctx, &args);
}

uint32_t app_alloc(struct app *a, uint64_t size, bool cpu_visible)
{
    struct kapi_alloc_desc d = {
        .size = size, .cpu_visible = cpu_visible, .zeroed = true,
    };
    uint32_t h = 0;
    int st = kapi_create_allocation(a->proc, a->hdev, &d, &h);

    if (st != DDI_OK) {
        app_fail(a, "create_allocation", st);
        return 0;
    }
    return h;
}

volatile void *app_map(struct app *a, uint32_t halloc)
{
    volatile void *cpu = NULL;
    int st = kapi_lock(a->proc, halloc, KAPI_LOCK_IGNORESYNC, &cpu);

    if (st != DDI_OK) {
        app_fail(a, "lock", st);
        return NULL;
    }
    return cpu;
}
