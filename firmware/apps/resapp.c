/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/resapp.h"

#include <stddef.h>

#include "umd/umd.h"

_Static_assert(offsetof(struct resapp, app) == 0, "app first");

static uint32_t body(const struct resapp *m, unsigned i)
{
    return ((uint32_t)m->cfg.tag << 24) | 0x00c00000u | (i << 8) | 0xa5;
}

static uint32_t header(const struct resapp *m, unsigned i, uint64_t u)
{
    return ((uint32_t)m->cfg.tag << 24) | ((uint32_t)i << 16) |
           (uint32_t)(u & 0xffff);
}

static uint64_t chunk_bytes(const struct resapp *m)
{
    return m->cfg.alloc_bytes / m->cfg.chunks;
}

static void finish(struct resapp *m)
{
    m->phase = RESAPP_DONE;
    if (m->app.stopping) {
        m->app.drained = true;
    }
}

static void fail(struct resapp *m, const char *what, int st)
{
    app_fail(&m->app, what, st);
    finish(m);
}

/*
 * The trim notification: release at least bytes by evicting what the
 * app used longest ago. Only kapi_evict is allowed here.
 */
static void on_trim(void *arg, uint64_t bytes)
{
    struct resapp *m = arg;
    uint64_t freed = 0;

    if (m->trims++ == 0) {
        m->first_trim_bytes = bytes;
    }
    m->trim_bytes += bytes;
    while (freed < bytes) {
        int lru = -1;
        int st;

        for (unsigned i = 0; i < m->cfg.nallocs; i++) {
            if (m->held[i] &&
                (lru < 0 || m->last_use[i] < m->last_use[(unsigned)lru])) {
                lru = (int)i;
            }
        }
        if (lru < 0) {
            return;     /* nothing left to give: the OS copes */
        }
        st = kapi_evict(m->app.proc, m->app.hdev, &m->halloc[lru], 1, NULL);
        if (st != DDI_OK) {
            app_fail(&m->app, "evict", st);
            return;
        }
        m->held[lru] = false;
        freed += m->cfg.alloc_bytes;
        m->evicted_bytes += m->cfg.alloc_bytes;
    }
}

/* Allocation i resident for the work submitted next on the context. */
static int ensure_resident(struct resapp *m, unsigned i)
{
    uint64_t fence = 0;
    int st;

    if (m->held[i]) {
        return DDI_OK;
    }
    st = kapi_make_resident(m->app.proc, m->app.hdev, &m->halloc[i], 1,
                            &fence);
    if (st != DDI_OK) {
        return st;
    }
    m->held[i] = true;
    m->make_residents++;
    if (fence) {
        /* a scheduler hold: the step's buffer waits for the pager */
        m->paging_waits++;
        st = kapi_wait_paging(m->app.proc, m->app.hctx, fence);
    }
    return st;
}

static void build_use(struct resapp *m, unsigned i, struct umd_cmdbuf *b)
{
    uint64_t cb = chunk_bytes(m), u = m->uses[i]++;
    uint64_t at = m->va[i] + u * cb;

    if (u == 0) {
        umd_va_fill(b, at, cb, body(m, i));
    } else {
        umd_va_copy(b, at, at - cb, cb);
    }
    umd_va_fill(b, at, RESAPP_HEADER, header(m, i, u));
    if (m->cfg.work_ns) {
        umd_work(b, m->cfg.work_ns);
    }
}

/* Wrong words of allocation i, every chunk against what its uses wrote. */
static uint64_t count_bad(const struct resapp *m, unsigned i,
                          volatile const uint32_t *w)
{
    uint64_t cb = chunk_bytes(m), bad = 0;

    for (unsigned c = 0; c < m->cfg.chunks; c++) {
        volatile const uint32_t *ch = w + c * cb / 4;
        bool written = c < m->uses[i];

        for (uint64_t j = 0; j < cb / 4; j++) {
            uint32_t want = !written ? 0 :
                            j < RESAPP_HEADER / 4 ? header(m, i, c) :
                            body(m, i);

            bad += ch[j] != want;
        }
    }
    return bad;
}

static void next(struct resapp *m);

static void step_done(void *arg, int status)
{
    struct resapp *m = arg;
    volatile void *cpu = NULL;
    int st;

    if (status != DDI_OK) {
        fail(m, "wait_cpu", status);
        return;
    }
    m->app.completed++;
    if (m->phase == RESAPP_VERIFY) {
        /* resident, referenced, the pager and the GPU done with it */
        st = kapi_lock(m->app.proc, m->halloc[m->current],
                       KAPI_LOCK_IGNORESYNC, &cpu);
        if (st != DDI_OK) {
            fail(m, "lock", st);
            return;
        }
        m->bad_words += count_bad(m, m->current, cpu);
        m->verified++;
        kapi_unlock(m->app.proc, m->halloc[m->current]);
    }
    next(m);
}

static void next(struct resapp *m)
{
    struct app *a = &m->app;
    uint64_t render_steps = (uint64_t)m->cfg.nallocs * m->cfg.chunks;
    struct umd_cmdbuf b;
    struct kapi_render_args args;
    unsigned i;
    int st;

    if (m->phase == RESAPP_RENDER && m->step == render_steps) {
        m->phase = RESAPP_VERIFY;
        m->step = 0;
    }
    if (m->phase == RESAPP_VERIFY && m->step == m->cfg.nallocs) {
        finish(m);
    }
    if (m->phase == RESAPP_DONE) {
        return;
    }
    i = (unsigned)(m->step % m->cfg.nallocs);
    m->current = i;
    m->last_use[i] = ++m->step;
    st = ensure_resident(m, i);
    if (st != DDI_OK) {
        fail(m, "make_resident", st);
        return;
    }
    umd_init(&b, m->cmd, sizeof(m->cmd));
    if (m->phase == RESAPP_RENDER) {
        build_use(m, i, &b);
    } else {
        umd_work(&b, 1000);     /* a buffer the paging wait holds */
    }
    if (!umd_ok(&b)) {
        fail(m, "build", DDI_ENOMEM);
        return;
    }
    args = (struct kapi_render_args){
        .cmd = umd_words(&b), .cmd_bytes = umd_bytes(&b),
    };
    st = kapi_render(a->proc, a->hctx, &args);
    if (st == DDI_OK) {
        st = kapi_signal_gpu(a->proc, a->hctx, m->hsync, ++m->sync_value);
    }
    if (st == DDI_OK) {
        st = kapi_wait_cpu(a->proc, m->hsync, m->sync_value, step_done, m);
    }
    if (st != DDI_OK) {
        fail(m, "render", st);
        return;
    }
    a->submitted++;
}

static void start(struct app *a)
{
    next((struct resapp *)a);
}

static void stop(struct app *a)
{
    if (((struct resapp *)a)->phase == RESAPP_DONE) {
        a->drained = true;
    }
}

static void check(struct app *a, struct report *r)
{
    struct resapp *m = (struct resapp *)a;
    uint64_t steps = (uint64_t)m->cfg.nallocs * (m->cfg.chunks + 1);

    report(r, a->completed == steps && a->submitted == steps,
           "%s: %lu of %lu steps (renders by VA, then one verify per "
           "allocation) completed", a->name, a->completed, steps);
    report(r, m->verified == m->cfg.nallocs && m->bad_words == 0,
           "%s: %lu of %u allocations of %lu KiB checked after %lu "
           "MakeResident and %lu KiB evicted on trims: every word as "
           "rendered (%lu wrong)", a->name, m->verified, m->cfg.nallocs,
           m->cfg.alloc_bytes >> 10, m->make_residents,
           m->evicted_bytes >> 10, m->bad_words);
}

static const struct app_ops resapp_ops = {
    .start = start,
    .stop = stop,
    .check = check,
};

void resapp_config_default(struct resapp_config *c)
{
    *c = (struct resapp_config){
        .prio = VIDSCH_PRIO_NORMAL,
        .tag = 0x52,
        .nallocs = 6,
        .alloc_bytes = 256u << 10,
        .chunks = 4,
        .budget = 0,
        .work_ns = 100000,
    };
}

int resapp_init(struct resapp *m, struct kernel *k, const char *name,
                const struct resapp_config *cfg)
{
    struct app *a = &m->app;
    struct kapi_alloc_desc d;
    int st;

    *m = (struct resapp){ .cfg = *cfg, .phase = RESAPP_RENDER };
    *a = (struct app){
        .name = name, .k = k, .engine = COPRO_ENGINE_RENDER,
        .prio = cfg->prio, .ops = &resapp_ops,
    };
    if (cfg->nallocs == 0 || cfg->nallocs > RESAPP_MAX_ALLOCS ||
        cfg->chunks == 0 || cfg->alloc_bytes % cfg->chunks ||
        (cfg->alloc_bytes / cfg->chunks) % 4096 ||
        cfg->alloc_bytes / cfg->chunks < RESAPP_HEADER) {
        app_fail(a, "config", DDI_EINVAL);
        return DDI_EINVAL;
    }
    a->proc = kapi_process_create(k, name);
    if (!a->proc) {
        app_fail(a, "process_create", DDI_ENOMEM);
        return DDI_ENOMEM;
    }
    st = kapi_create_device_gpuva(a->proc, &a->hdev);
    if (st != DDI_OK) {
        app_fail(a, "create_device_gpuva", st);
        return st;
    }
    st = kapi_create_context(a->proc, a->hdev, a->engine, a->prio,
                             &a->hctx);
    if (st == DDI_OK) {
        st = kapi_create_sync(a->proc, a->hdev, 0, &m->hsync);
    }
    if (st == DDI_OK) {
        st = kapi_set_trim_callback(a->proc, on_trim, m);
    }
    if (st == DDI_OK) {
        st = kapi_set_budget(a->proc, cfg->budget);
    }
    d = (struct kapi_alloc_desc){
        .size = cfg->alloc_bytes, .cpu_visible = true, .zeroed = true,
    };
    for (unsigned i = 0; i < cfg->nallocs && st == DDI_OK; i++) {
        st = kapi_create_allocation(a->proc, a->hdev, &d, &m->halloc[i]);
        if (st == DDI_OK) {
            st = kapi_gpu_va(a->proc, m->halloc[i], &m->va[i]);
        }
    }
    if (st != DDI_OK) {
        app_fail(a, "setup", st);
    }
    return st;
}
