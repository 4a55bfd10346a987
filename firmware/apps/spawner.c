/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/spawner.h"

#include <stddef.h>

_Static_assert(offsetof(struct spawner, app) == 0, "app first");

#define VSYNC_NS    16666667ull

/* A fresh context and its one long buffer, every vsync. */
static void tick(void *arg, uint64_t now)
{
    struct spawner *sp = arg;
    struct app *a = &sp->app;
    struct kapi_render_args args;
    uint32_t h = 0;
    int st;

    if (a->stopping) {
        return;
    }
    if (sp->nctx < SPAWNER_MAX_CTX) {
        st = kapi_create_context(a->proc, a->hdev, a->engine, a->prio, &h);
        if (st != DDI_OK) {
            sp->refused++;      /* its quota: it keeps the ones it has */
            sp->last_refusal = st;
        } else {
            sp->hctx[sp->nctx++] = h;
            umd_reset(&sp->cb);
            for (uint64_t left = sp->buffer_ns; left;) {
                uint64_t w = left < SPAWNER_PACKET_NS ? left
                                                      : SPAWNER_PACKET_NS;

                umd_work(&sp->cb, w);
                left -= w;
            }
            args = (struct kapi_render_args){
                .cmd = umd_words(&sp->cb), .cmd_bytes = umd_bytes(&sp->cb),
            };
            st = umd_ok(&sp->cb) ? kapi_render(a->proc, h, &args)
                                 : DDI_EINVAL;
            if (st != DDI_OK) {
                app_fail(a, "render", st);
                return;
            }
            a->submitted++;
        }
    }
    kapi_timer_arm(a->proc, &sp->timer, now + sp->period_ns);
}

static void start(struct app *a)
{
    struct spawner *sp = (struct spawner *)a;

    tick(sp, kapi_now(a->proc));
}

/* Its buffers would run for seconds more: its contexts go, and their
 * buffers with them (reported lost to the scheduler). */
static void stop(struct app *a)
{
    struct spawner *sp = (struct spawner *)a;

    kapi_timer_cancel(a->proc, &sp->timer);
    for (unsigned i = 0; i < sp->nctx; i++) {
        int st = kapi_destroy_context(a->proc, sp->hctx[i]);

        if (st != DDI_OK) {
            app_fail(a, "destroy_context", st);
        }
    }
    a->drained = true;
}

static void check(struct app *a, struct report *r)
{
    struct spawner *sp = (struct spawner *)a;

    report(r, sp->nctx > 1, "%s: %u fresh contexts, each with a buffer of "
           "%lu ms (%u refused, last %s)", a->name, sp->nctx,
           sp->buffer_ns / 1000000, sp->refused,
           sp->refused ? ddi_status_name(sp->last_refusal) : "none");
}

static const struct app_ops spawner_ops = {
    .start = start, .stop = stop, .check = check,
};

int spawner_init(struct spawner *sp, struct kernel *k, const char *name,
                 uint64_t buffer_ns)
{
    int st;

    sp->buffer_ns = buffer_ns;
    sp->period_ns = VSYNC_NS;
    umd_init(&sp->cb, sp->cmd, sizeof(sp->cmd));
    kapi_timer_init(&sp->timer, tick, sp);
    st = app_init(&sp->app, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_NORMAL,
                  &spawner_ops);
    return st;
}
