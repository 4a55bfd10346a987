/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/intruder.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#define MS          1000000ull
#define US          1000ull
#define PATTERN     0x5a5a0001u     /* what partner writes by CPU */
#define COLOUR      0x00c0ffeeu     /* what partner draws */
#define EVIL        0xe5e5e5e5u
#define SPIN_AT     (20 * MS)       /* the timer attack: after start ... */
#define SPIN_NS     (5 * MS)        /* ... for this long */

_Static_assert(offsetof(struct partner, app) == 0, "app first");
_Static_assert(offsetof(struct intruder, app) == 0, "app first");
_Static_assert(offsetof(struct watcher, app) == 0, "app first");
_Static_assert(offsetof(struct snoop, app) == 0, "app first");

/* ---- partner: the well-behaved process that shares ---- */

static void partner_waited(void *arg, int status)
{
    struct partner *m = arg;

    m->waiting = false;
    if (status == DDI_OK) {
        m->waits_done++;
    }
}

static void partner_tick(void *arg, uint64_t now)
{
    struct partner *m = arg;
    struct app *a = &m->app;
    uint64_t v = 0;
    int st;

    if (a->stopping) {
        return;
    }
    m->ticks++;
    /* the owner keeps writing through its lock's pointer */
    m->cpu[m->ticks % PARTNER_WORDS] = PATTERN;
    if (kapi_sync_value(a->proc, m->hsync, &v) == DDI_OK) {
        m->fence_backwards += v < m->fence_seen;
        m->fence_seen = v;
    }
    if (kapi_sync_value(a->proc, m->hdone, &v) == DDI_OK) {
        a->completed = v;
    }
    if (a->submitted - a->completed < 2) {
        /* bind, a split point (FILL), then RECT: the umd binds again */
        umd_reset(&m->cb);
        umd_set_target(&m->cb, 0, m->hsurf, 0, PARTNER_SURF_W * 4,
                       PARTNER_SURF_W, PARTNER_SURF_H, COPRO_FMT_XRGB8888);
        umd_fill(&m->cb, m->hsurf, 0, PARTNER_SURF_W * 4 * PARTNER_SURF_H,
                 0);
        umd_work(&m->cb, 100 * US);
        umd_rect(&m->cb, 0, 0, 0, PARTNER_SURF_W, PARTNER_SURF_H, COLOUR);
        st = umd_ok(&m->cb) ? app_render(a, &m->cb) : DDI_EINVAL;
        if (st == DDI_OK) {
            st = kapi_signal_gpu(a->proc, a->hctx, m->hdone,
                                 a->submitted + 1);
        }
        if (st != DDI_OK) {
            app_fail(a, "render", st);
            return;
        }
        a->submitted++;
    }
    if (!m->waiting && a->submitted &&
        kapi_wait_cpu(a->proc, m->hdone, a->submitted, partner_waited,
                      m) == DDI_OK) {
        m->waiting = true;
    }
    kapi_timer_arm(a->proc, &m->timer, now + 1 * MS);
}

static void partner_start(struct app *a)
{
    struct partner *m = (struct partner *)a;
    volatile void *cpu = NULL;
    int st = kapi_lock(a->proc, m->hshared, KAPI_LOCK_IGNORESYNC, &cpu);

    if (st != DDI_OK) {
        app_fail(a, "lock", st);
        return;
    }
    m->cpu = cpu;
    m->locked = true;
    for (unsigned i = 0; i < PARTNER_WORDS; i++) {
        m->cpu[i] = PATTERN;
    }
    partner_tick(m, kapi_now(a->proc));
}

static void partner_final(void *arg, int status)
{
    struct partner *m = arg;

    if (status != DDI_OK) {
        app_fail(&m->app, "wait_cpu", status);
    }
    m->app.completed = m->app.submitted;
    m->app.drained = true;
}

static void partner_stop(struct app *a)
{
    struct partner *m = (struct partner *)a;
    int st;

    kapi_timer_cancel(a->proc, &m->timer);
    st = kapi_wait_cpu(a->proc, m->hdone, a->submitted, partner_final, m);
    if (st != DDI_OK) {
        app_fail(a, "wait_cpu", st);
        a->drained = true;
    }
}

/* Counts the words of h (n of them) that are not want. */
static uint64_t count_bad(struct app *a, uint32_t h, unsigned n,
                          uint32_t want)
{
    volatile void *cpu = NULL;
    uint64_t bad = 0;

    if (kapi_lock(a->proc, h, KAPI_LOCK_DONOTWAIT, &cpu) != DDI_OK) {
        return n;
    }
    for (unsigned i = 0; i < n; i++) {
        bad += ((volatile uint32_t *)cpu)[i] != want;
    }
    kapi_unlock(a->proc, h);
    return bad;
}

static void partner_check(struct app *a, struct report *r)
{
    struct partner *m = (struct partner *)a;
    int st = m->locked ? kapi_unlock(a->proc, m->hshared) : DDI_EINVAL;
    uint64_t bad;

    /* its own lock was still there to release: nobody released it */
    report(r, st == DDI_OK, "%s: its lock held to the end (unlock: %s)",
           a->name, ddi_status_name(st));
    m->locked = false;
    bad = count_bad(a, m->hshared, PARTNER_WORDS, PATTERN);
    report(r, bad == 0, "%s: what it wrote through its lock is in its "
           "allocation (%lu words wrong)", a->name, bad);
    bad = count_bad(a, m->hsurf, PARTNER_SURF_W * PARTNER_SURF_H, COLOUR);
    report(r, a->completed > 0 && bad == 0, "%s: its surface holds its "
           "colour after %lu frames (%lu pixels wrong)", a->name,
           a->completed, bad);
    report(r, m->fence_backwards == 0 && m->fence_seen >= 10, "%s: the "
           "shared fence never went back (%lu, last %lu)", a->name,
           m->fence_backwards, m->fence_seen);
}

static const struct app_ops partner_ops = {
    .start = partner_start, .stop = partner_stop, .check = partner_check,
};

int partner_init(struct partner *m, struct kernel *k, const char *name)
{
    struct app *a = &m->app;
    int st;

    st = app_init(a, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_NORMAL,
                  &partner_ops);
    if (st != DDI_OK) {
        return st;
    }
    umd_init(&m->cb, m->cmd, sizeof(m->cmd));
    kapi_timer_init(&m->timer, partner_tick, m);
    m->hshared = app_alloc(a, PARTNER_WORDS * 4, true);
    m->hsurf = app_alloc(a, PARTNER_SURF_W * 4 * PARTNER_SURF_H, true);
    if (!m->hshared || !m->hsurf) {
        return a->fail_status;
    }
    st = kapi_create_sync(a->proc, a->hdev, 0, &m->hsync);
    if (st == DDI_OK) {
        st = kapi_create_sync(a->proc, a->hdev, 0, &m->hdone);
    }
    if (st == DDI_OK) {
        st = kapi_share_allocation(a->proc, m->hshared, &m->shared_name);
    }
    if (st == DDI_OK) {
        st = kapi_share_sync(a->proc, m->hsync, &m->sync_name);
    }
    if (st != DDI_OK) {
        app_fail(a, "partner objects", st);
    }
    return st;
}

/* ---- watcher: an innocent that waits on a guilty process's fence ---- */

#define WATCH_COLOUR    0x00a5a5a5u

static void watcher_tick(void *arg, uint64_t now)
{
    struct watcher *w = arg;
    struct app *a = &w->app;
    uint64_t v = 0;
    int st;

    if (a->stopping) {
        return;
    }
    if (kapi_sync_value(a->proc, w->hdone, &v) == DDI_OK) {
        a->completed = v;
    }
    if (a->submitted < w->max_frames && a->submitted - a->completed < 2) {
        umd_reset(&w->cb);
        umd_fill(&w->cb, w->hsurf, 0, PARTNER_SURF_W * 4 * PARTNER_SURF_H,
                 WATCH_COLOUR + (uint32_t)a->submitted);
        st = umd_ok(&w->cb) ? app_render(a, &w->cb) : DDI_EINVAL;
        if (st == DDI_OK) {
            st = kapi_signal_gpu(a->proc, a->hctx, w->hdone,
                                 a->submitted + 1);
        }
        if (st != DDI_OK) {
            app_fail(a, "render", st);
            return;
        }
        a->submitted++;
    }
    kapi_timer_arm(a->proc, &w->timer, now + 2 * MS);
}

static void watcher_told(void *arg, int status)
{
    struct watcher *w = arg;

    w->watch_told = true;
    w->watch_status = status;
}

static void watcher_lost(void *arg, uint32_t hdevice)
{
    struct watcher *w = arg;

    (void)hdevice;
    w->lost_calls++;
}

static void watcher_start(struct app *a)
{
    struct watcher *w = (struct watcher *)a;
    int st = kapi_wait_cpu(a->proc, w->hwatch, 1, watcher_told, w);

    /* its frames wait for the creator's fence on the GPU */
    if (st == DDI_OK) {
        st = kapi_wait_gpu(a->proc, a->hctx, w->hwatch, 1);
    }
    if (st != DDI_OK) {
        app_fail(a, "wait", st);
        return;
    }
    watcher_tick(w, kapi_now(a->proc));
}

static void watcher_final(void *arg, int status)
{
    struct watcher *w = arg;

    if (status != DDI_OK) {
        app_fail(&w->app, "wait_cpu", status);
    }
    w->app.completed = w->app.submitted;
    w->app.drained = true;
}

static void watcher_stop(struct app *a)
{
    struct watcher *w = (struct watcher *)a;
    int st;

    kapi_timer_cancel(a->proc, &w->timer);
    st = kapi_wait_cpu(a->proc, w->hdone, a->submitted, watcher_final, w);
    if (st != DDI_OK) {
        app_fail(a, "wait_cpu", st);
        a->drained = true;
    }
}

static void watcher_check(struct app *a, struct report *r)
{
    struct watcher *w = (struct watcher *)a;
    uint64_t bad = count_bad(a, w->hsurf, PARTNER_SURF_W * PARTNER_SURF_H,
                             WATCH_COLOUR + (uint32_t)(a->submitted - 1));

    report(r, w->watch_told && w->watch_status == DDI_EABANDONED,
           "%s: its wait on the reset process's fence ended with %s "
           "(EABANDONED expected)", a->name,
           w->watch_told ? ddi_status_name(w->watch_status) : "nothing");
    report(r, w->lost_calls == 0 &&
           kapi_context_error(a->proc, a->hctx) == DDI_OK,
           "%s: its own device was not removed (lost callbacks %u)",
           a->name, w->lost_calls);
    report(r, a->submitted == w->max_frames && bad == 0, "%s: its %lu "
           "frames ran, the last one on its surface (%lu pixels wrong)",
           a->name, a->submitted, bad);
}

static const struct app_ops watcher_ops = {
    .start = watcher_start, .stop = watcher_stop, .check = watcher_check,
};

int watcher_init(struct watcher *w, struct kernel *k, const char *name,
                 unsigned max_frames)
{
    struct app *a = &w->app;
    int st;

    w->max_frames = max_frames;
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_NORMAL,
                  &watcher_ops);
    if (st != DDI_OK) {
        return st;
    }
    umd_init(&w->cb, w->cmd, sizeof(w->cmd));
    kapi_timer_init(&w->timer, watcher_tick, w);
    kapi_set_lost_callback(a->proc, watcher_lost, w);
    w->hsurf = app_alloc(a, PARTNER_SURF_W * 4 * PARTNER_SURF_H, true);
    if (!w->hsurf) {
        return a->fail_status;
    }
    st = kapi_create_sync(a->proc, a->hdev, 0, &w->hdone);
    if (st != DDI_OK) {
        app_fail(a, "create_sync", st);
    }
    return st;
}

int watcher_watch(struct watcher *w, struct app *creator, uint32_t hsync)
{
    uint32_t name = 0;
    int st = kapi_share_sync(creator->proc, hsync, &name);

    if (st == DDI_OK) {
        st = kapi_grant_sync(creator->proc, hsync,
                             kapi_process_id(w->app.proc), KAPI_ACCESS_READ);
    }
    if (st == DDI_OK) {
        st = kapi_open_sync(w->app.proc, w->app.hdev, name, &w->hwatch);
    }
    if (st != DDI_OK) {
        app_fail(&w->app, "watch", st);
    }
    return st;
}

/* ---- snoop: another process's command buffers by GPU address ---- */

static void snoop_told(void *arg, int status)
{
    struct snoop *n = arg;

    n->told = true;
    n->status = status;
    n->app.drained = true;
}

static void snoop_start(struct app *a)
{
    struct snoop *n = (struct snoop *)a;
    uint64_t fence = 0;
    int st = kapi_make_resident(a->proc, a->hdev, &n->hbuf, 1, &fence);

    if (st == DDI_OK && fence) {
        st = kapi_wait_paging(a->proc, a->hctx, fence);
    }
    if (st == DDI_OK) {
        umd_reset(&n->cb);
        umd_va_copy(&n->cb, n->va, n->target, SNOOP_BYTES);
        st = umd_ok(&n->cb) ? app_render(a, &n->cb) : DDI_EINVAL;
    }
    if (st == DDI_OK) {
        st = kapi_signal_gpu(a->proc, a->hctx, n->hdone, 1);
    }
    if (st == DDI_OK) {
        st = kapi_wait_cpu(a->proc, n->hdone, 1, snoop_told, n);
    }
    if (st != DDI_OK) {
        app_fail(a, "snoop", st);
        a->drained = true;
        return;
    }
    a->submitted++;
}

static void snoop_stop(struct app *a)
{
    (void)a;
}

static void snoop_check(struct app *a, struct report *r)
{
    struct snoop *n = (struct snoop *)a;
    volatile void *cpu = NULL;
    uint64_t bad = SNOOP_BYTES / 4;
    int st = kapi_lock(a->proc, n->hbuf, KAPI_LOCK_IGNORESYNC, &cpu);

    /* GPU-VA: no lists, the caller knows (its copy is over, lost) */
    if (st == DDI_OK) {
        bad = 0;
        for (unsigned i = 0; i < SNOOP_BYTES / 4; i++) {
            bad += ((volatile uint32_t *)cpu)[i] != 0;
        }
        kapi_unlock(a->proc, n->hbuf);
    }

    report(r, n->told && n->status == DDI_ELOST, "%s: its copy from "
           "another process's command buffers (GPU address %#lx) faulted "
           "its own context: its device removed (%s)", a->name, n->target,
           n->told ? ddi_status_name(n->status) : "no answer");
    report(r, st == DDI_OK && bad == 0, "%s: not a byte came through "
           "(%lu words not zero; lock %s)", a->name, bad,
           ddi_status_name(st));
}

static const struct app_ops snoop_ops = {
    .start = snoop_start, .stop = snoop_stop, .check = snoop_check,
};

/* The GPU-VA process of a probe (snoop, scribble): its device, one
 * NORMAL render context, a sync object and a buffer of SNOOP_BYTES at
 * *va. a->name, a->k, engine and prio are set. */
static int gpuva_probe_setup(struct app *a, uint32_t *hdone, uint32_t *hbuf,
                             uint64_t *va)
{
    struct kapi_alloc_desc d = { .size = SNOOP_BYTES, .cpu_visible = true,
                                 .zeroed = true };
    int st;

    a->proc = kapi_process_create(a->k, a->name);
    st = a->proc ? kapi_create_device_gpuva(a->proc, &a->hdev) : DDI_ENOMEM;
    if (st == DDI_OK) {
        st = kapi_create_context(a->proc, a->hdev, a->engine, a->prio,
                                 &a->hctx);
    }
    if (st == DDI_OK) {
        st = kapi_create_sync(a->proc, a->hdev, 0, hdone);
    }
    if (st == DDI_OK) {
        st = kapi_create_allocation(a->proc, a->hdev, &d, hbuf);
    }
    if (st == DDI_OK) {
        st = kapi_gpu_va(a->proc, *hbuf, va);
    }
    return st;
}

int snoop_init(struct snoop *n, struct kernel *k, const char *name,
               uint64_t target)
{
    struct app *a = &n->app;
    int st;

    n->target = target;
    *a = (struct app){
        .name = name, .k = k, .engine = COPRO_ENGINE_RENDER,
        .prio = VIDSCH_PRIO_NORMAL, .ops = &snoop_ops,
    };
    umd_init(&n->cb, n->cmd, sizeof(n->cmd));
    st = gpuva_probe_setup(a, &n->hdone, &n->hbuf, &n->va);
    if (st != DDI_OK) {
        app_fail(a, "snoop setup", st);
    }
    return st;
}

/* ---- scribble: a read-only view written to ---- */

static void scribble_told(void *arg, int status)
{
    struct scribble *n = arg;

    n->told = true;
    n->status = status;
    n->app.drained = true;
}

static void scribble_start(struct app *a)
{
    struct scribble *n = (struct scribble *)a;
    uint64_t fence = 0, f2 = 0;
    int st = kapi_map_gpu_va(a->proc, a->hdev, &n->hsurface, 1, &n->view,
                             &fence);

    if (st == DDI_OK) {
        st = kapi_make_resident(a->proc, a->hdev, &n->hbuf, 1, &f2);
    }
    if (st == DDI_OK && (fence || f2)) {
        st = kapi_wait_paging(a->proc, a->hctx, fence > f2 ? fence : f2);
    }
    /* reading through the view: what it was granted */
    if (st == DDI_OK) {
        umd_reset(&n->cb);
        umd_va_copy(&n->cb, n->va, n->view, SNOOP_BYTES);
        st = umd_ok(&n->cb) ? app_render(a, &n->cb) : DDI_EINVAL;
    }
    if (st == DDI_OK) {
        st = kapi_signal_gpu(a->proc, a->hctx, n->hdone, 1);
    }
    /* writing through it: what it was not */
    if (st == DDI_OK) {
        umd_reset(&n->cb);
        umd_va_fill(&n->cb, n->view, SNOOP_BYTES, 0x5c5c5c5c);
        st = umd_ok(&n->cb) ? app_render(a, &n->cb) : DDI_EINVAL;
    }
    if (st == DDI_OK) {
        st = kapi_signal_gpu(a->proc, a->hctx, n->hdone, 2);
    }
    if (st == DDI_OK) {
        st = kapi_wait_cpu(a->proc, n->hdone, 2, scribble_told, n);
    }
    if (st != DDI_OK) {
        app_fail(a, "scribble", st);
        a->drained = true;
        return;
    }
    a->submitted += 2;
}

static void scribble_check(struct app *a, struct report *r)
{
    struct scribble *n = (struct scribble *)a;
    volatile void *cpu = NULL;
    uint64_t bad = SNOOP_BYTES / 4;
    int st = kapi_lock(a->proc, n->hbuf, KAPI_LOCK_IGNORESYNC, &cpu);

    if (st == DDI_OK) {
        bad = 0;
        for (unsigned i = 0; i < SNOOP_BYTES / 4; i++) {
            bad += ((volatile uint32_t *)cpu)[i] != n->pattern;
        }
        kapi_unlock(a->proc, n->hbuf);
    }
    report(r, st == DDI_OK && bad == 0, "%s: read the surface it was "
           "granted through its view (%lu words wrong; lock %s)", a->name,
           bad, ddi_status_name(st));
    report(r, n->told && n->status == DDI_ELOST, "%s: its fill of the "
           "read-only view faulted its own context: its device removed "
           "(%s)", a->name, n->told ? ddi_status_name(n->status)
                                    : "no answer");
}

static const struct app_ops scribble_ops = {
    .start = scribble_start, .stop = snoop_stop, .check = scribble_check,
};

int scribble_init(struct scribble *n, struct kernel *k, const char *name,
                  struct kproc *owner, uint32_t hsurface, uint32_t pattern)
{
    struct app *a = &n->app;
    uint32_t shared = 0;
    int st;

    n->pattern = pattern;
    *a = (struct app){
        .name = name, .k = k, .engine = COPRO_ENGINE_RENDER,
        .prio = VIDSCH_PRIO_NORMAL, .ops = &scribble_ops,
    };
    umd_init(&n->cb, n->cmd, sizeof(n->cmd));
    st = gpuva_probe_setup(a, &n->hdone, &n->hbuf, &n->va);
    /* the owner grants it read access only */
    if (st == DDI_OK) {
        st = kapi_share_allocation(owner, hsurface, &shared);
    }
    if (st == DDI_OK) {
        st = kapi_grant_allocation(owner, hsurface,
                                   kapi_process_id(a->proc),
                                   KAPI_ACCESS_READ);
    }
    if (st == DDI_OK) {
        st = kapi_open_allocation(a->proc, a->hdev, shared, &n->hsurface);
    }
    if (st != DDI_OK) {
        app_fail(a, "scribble setup", st);
    }
    return st;
}

/* ---- intruder ---- */

/* Never called: every present it makes is refused. */
static void on_present(void *arg, const struct kapi_present_result *r)
{
    struct intruder *e = arg;

    (void)r;
    app_fail(&e->app, "a stranger's present was accepted", DDI_EINVAL);
}

static int render_cb(struct intruder *e)
{
    return app_render(&e->app, &e->cb);
}

/* Attack i against another process; the code the kernel gave. */
static int attempt(void *arg, unsigned i)
{
    struct intruder *e = arg;
    struct app *a = &e->app;
    struct kapi_present pr = {
        .source = 0, .hprimary = e->hprimary, .hsync = e->hsync,
        .value = UINT64_MAX - 1, .fn = on_present, .arg = e,
    };
    struct kapi_pointer ptr = { .source = 0, .x = 1, .y = 1,
                                .visible = true };
    uint32_t h = 0;
    int st;

    umd_reset(&e->cb);
    switch (i) {
    case 0:     /* item 1: RECT after a split point, not bound again */
        umd_set_target(&e->cb, 0, e->hbuf, 0, 64, 16, 16,
                       COPRO_FMT_XRGB8888);
        umd_fill(&e->cb, e->hbuf, 0, 64, EVIL);
        if (copro_emit_rect(&e->cb.enc, 0, 0, 0, 4096, 4096, EVIL) ==
            COPRO_DMABUF_FAILED) {
            return DDI_OK;  /* reported as a wrong answer */
        }
        return render_cb(e);
    case 1:     /* item 2: the partner's lock, through its own handle */
        return kapi_unlock(a->proc, e->hshared);
    case 2:     /* item 3: the game's window by its exact name */
        st = kapi_open_allocation(a->proc, a->hdev, e->game->shared[0], &h);
        if (st == DDI_OK) {
            kapi_destroy_allocation(a->proc, h);
        }
        return st;
    case 3:     /* item 3: the compositor's sync object by its name */
        st = kapi_open_sync(a->proc, a->hdev, e->comp->sync_name, &h);
        if (st == DDI_OK) {
            kapi_destroy_sync(a->proc, h);
        }
        return st;
    case 4:     /* item 3: passing the partner's grant on */
        return kapi_grant_allocation(a->proc, e->hshared,
                                     kapi_process_id(e->game->f.app.proc),
                                     KAPI_ACCESS_READ);
    case 5:     /* item 4: the shared fence back, from the GPU (10 then 3) */
        st = kapi_signal_gpu(a->proc, a->hctx, e->hpsync, e->fence_next);
        if (st != DDI_OK) {
            return st;
        }
        st = kapi_signal_gpu(a->proc, a->hctx, e->hpsync,
                             e->fence_next - 7);
        e->fence_next += 10;
        return st;
    case 6:     /* item 4: ... and from the CPU */
        return kapi_signal_cpu(a->proc, e->hpsync, 3);
    case 7:     /* item 6: taking the display */
        return kapi_set_source_owner(a->proc, a->hdev, 0);
    case 8:     /* item 6: a present that would never become ready */
        return kapi_present(a->proc, a->hdev, &pr);
    case 9:     /* item 6: the pointer */
        return kapi_set_pointer(a->proc, a->hdev, &ptr);
    case 10:    /* item 7: REALTIME */
        st = kapi_create_context(a->proc, a->hdev, COPRO_ENGINE_RENDER,
                                 VIDSCH_PRIO_REALTIME, &h);
        if (st == DDI_OK) {
            kapi_destroy_context(a->proc, h);
        }
        return st;
    }
    return DDI_OK;
}

static void add_case(struct intruder *e, const char *what, int want)
{
    attacks_add(&e->cases, what, want);
}

static void tick(void *arg, uint64_t now)
{
    struct intruder *e = arg;

    if (e->app.stopping) {
        return;
    }
    attacks_try_next(&e->cases, attempt, e);
    kapi_timer_arm(e->app.proc, &e->timer, now + e->period_ns);
}

/* The timer attacks (issue 15 item 8, issue 26 item 5): a timer that
 * re-arms itself with no delay for SPIN_NS, at now, then at 0. */
static void spin(void *arg, uint64_t now)
{
    struct intruder *e = arg;
    unsigned i = e->spin;

    if (!e->spin_from) {
        e->spin_from = now;
        e->spin_until = now + SPIN_NS;
        e->partner_done_at_spin = e->partner->app.completed;
        e->partner_waits_at_spin = e->partner->waits_done;
        e->watch_at_spin = e->watch ? *e->watch : 0;
    }
    e->spins[i]++;
    if (now < e->spin_until && !e->app.stopping) {
        kapi_timer_arm(e->app.proc, &e->spinner, i ? 0 : now);
        return;
    }
    e->partner_done_in_spin[i] = e->partner->app.completed -
                                 e->partner_done_at_spin;
    e->partner_waits_in_spin[i] = e->partner->waits_done -
                                  e->partner_waits_at_spin;
    e->watch_in_spin[i] = e->watch ? *e->watch - e->watch_at_spin : 0;
    if (i == 0 && !e->app.stopping) {
        e->spin = 1;
        e->spin_from = 0;
        kapi_timer_arm(e->app.proc, &e->spinner, now + SPIN_AT);
    }
}

void intruder_watch(struct intruder *e, const uint64_t *counter)
{
    e->watch = counter;
}

static void start(struct app *a)
{
    struct intruder *e = (struct intruder *)a;
    uint64_t now = kapi_now(a->proc);

    kapi_timer_arm(a->proc, &e->spinner, now + SPIN_AT);
    tick(e, now);
}

static void stop(struct app *a)
{
    struct intruder *e = (struct intruder *)a;

    kapi_timer_cancel(a->proc, &e->timer);
    kapi_timer_cancel(a->proc, &e->spinner);
    a->drained = true;
}

static void check(struct app *a, struct report *r)
{
    struct intruder *e = (struct intruder *)a;

    attacks_report(&e->cases, r, a->name);
    for (unsigned i = 0; i < 2; i++) {
        /* spin 0's figure is the partner's pace beside the game (6 in
         * its window); spin 1 comes later, when the partner's turns are
         * fewer: it must progress, and vidsch's timer fire (before issue
         * 26's fix, neither happened: 0 and 0) */
        report(r, e->spins[i] > 100 &&
               e->partner_done_in_spin[i] >= (i ? 1u : 3u) &&
               e->partner_waits_in_spin[i] >= 1 &&
               (!e->watch || e->watch_in_spin[i] > 0),
               "%s: while its timer re-armed itself at %s (%lu times in "
               "%lu ms), the partner's buffers still completed (%lu) and "
               "the watched kernel timer fired (%s%lu); its CPU waits "
               "ended: %lu", a->name,
               i ? "0, long past" : "now", e->spins[i],
               (uint64_t)(SPIN_NS / MS), e->partner_done_in_spin[i],
               e->watch ? "" : "not watched: ", e->watch_in_spin[i],
               e->partner_waits_in_spin[i]);
    }
}

static const struct app_ops intruder_ops = {
    .start = start, .stop = stop, .check = check,
};

int intruder_init(struct intruder *e, struct kernel *k, const char *name,
                  struct partner *partner, const struct winapp *game,
                  const struct compositor *comp)
{
    struct app *a = &e->app;
    struct kapi_display_info info;
    struct kapi_alloc_desc pd = { .primary = true };
    struct partner *m = partner;
    uint32_t pid;
    int st;

    e->partner = partner;
    e->game = game;
    e->comp = comp;
    e->period_ns = 1 * MS;
    e->fence_next = 10;
    umd_init(&e->cb, e->cmd, sizeof(e->cmd));
    kapi_timer_init(&e->timer, tick, e);
    kapi_timer_init(&e->spinner, spin, e);
    add_case(e, "a RECT after a split point without SET_TARGET",
             DDI_EINVAL);
    add_case(e, "unlocking the partner's lock", DDI_EINVAL);
    add_case(e, "opening the game's window by its name", DDI_EHANDLE);
    add_case(e, "opening the compositor's sync object by its name",
             DDI_EHANDLE);
    add_case(e, "passing a grant on", DDI_EACCESS);
    add_case(e, "a GPU signal moving the shared fence back", DDI_EINVAL);
    add_case(e, "a CPU signal moving the shared fence back", DDI_EINVAL);
    add_case(e, "owning the display source", DDI_EACCESS);
    add_case(e, "presenting without owning the source", DDI_EACCESS);
    add_case(e, "moving the pointer", DDI_EACCESS);
    add_case(e, "a REALTIME context", DDI_EACCESS);
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_NORMAL,
                  &intruder_ops);
    if (st != DDI_OK) {
        return st;
    }
    e->hbuf = app_alloc(a, 4096, true);
    if (!e->hbuf) {
        return a->fail_status;
    }
    st = kapi_display_info(a->proc, a->hdev, 0, &info);
    if (st == DDI_OK) {
        pd.size = (uint64_t)info.pitch * info.height;
        st = kapi_create_allocation(a->proc, a->hdev, &pd, &e->hprimary);
    }
    if (st == DDI_OK) {
        st = kapi_create_sync(a->proc, a->hdev, 0, &e->hsync);
    }
    /* the partner shares with it, read and write, as a producer would */
    pid = kapi_process_id(a->proc);
    if (st == DDI_OK) {
        st = kapi_grant_allocation(m->app.proc, m->hshared, pid,
                                   KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    }
    if (st == DDI_OK) {
        st = kapi_grant_sync(m->app.proc, m->hsync, pid,
                             KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    }
    if (st == DDI_OK) {
        st = kapi_open_allocation(a->proc, a->hdev, m->shared_name,
                                  &e->hshared);
    }
    if (st == DDI_OK) {
        st = kapi_open_sync(a->proc, a->hdev, m->sync_name, &e->hpsync);
    }
    if (st != DDI_OK) {
        app_fail(a, "intruder setup", st);
    }
    return st;
}
