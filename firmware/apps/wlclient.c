/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/wlclient.h"

#include <stddef.h>

#include <copro/copro_regs.h>

#include "lib/console.h"
#include "lib/string.h"

_Static_assert(offsetof(struct wlclient, app) == 0, "app first");

#define MS_NS   1000000ull
#define US_NS   1000ull

/* ---- the command line's encoding ---- */

/* A decimal up to the next ':' or the end; false if none or too big. */
static bool field_u64(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t x = 0;

    if (*p < '0' || *p > '9') {
        return false;
    }
    while (*p >= '0' && *p <= '9') {
        if (x > (UINT64_MAX - 9) / 10) {
            return false;
        }
        x = x * 10 + (uint64_t)(*p++ - '0');
    }
    if (*p != ':' && *p != '\0') {
        return false;
    }
    *s = *p ? p + 1 : p;
    *v = x;
    return true;
}

/* One character, then ':' */
static bool field_char(const char **s, char *c)
{
    const char *p = *s;

    if (!p[0] || p[1] != ':') {
        return false;
    }
    *c = p[0];
    *s = p + 2;
    return true;
}

bool wlclient_parse(const char *s, struct wlclient_config *c)
{
    uint64_t jpc, sleep_us, deadline_us = 0, start_ms, stop_ms;
    uint64_t ws_allocs, dep;
    unsigned n = 0;
    char prio, submit, kind;

    memset(c, 0, sizeof(*c));
    while (*s && *s != ':' && n < sizeof(c->name) - 1) {
        char ch = *s++;

        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_')) {
            return false;
        }
        c->name[n++] = ch;
    }
    if (!n || *s++ != ':' || !field_char(&s, &prio) ||
        !field_u64(&s, &jpc)) {
        return false;
    }
    kind = *s++;
    if (!field_u64(&s, &c->value) || !field_u64(&s, &sleep_us) ||
        !field_char(&s, &submit)) {
        return false;
    }
    if (*s == '-') {
        if (s[1] != ':') {
            return false;
        }
        s += 2;
    } else if (field_u64(&s, &deadline_us)) {
        c->present = true;
    } else {
        return false;
    }
    if (!field_u64(&s, &start_ms) || !field_u64(&s, &stop_ms) ||
        !field_u64(&s, &c->cycles) || !field_u64(&s, &ws_allocs) ||
        !field_u64(&s, &c->ws_bytes)) {
        return false;
    }
    c->depends_on = -1;
    if (*s == '-' && !s[1]) {
        s++;
    } else if (field_u64(&s, &dep) && dep < 16) {
        c->depends_on = (int)dep;
    } else {
        return false;
    }
    if (*s || ws_allocs > WLCLIENT_MAX_WS ||
        (ws_allocs && (c->ws_bytes < 4096 || c->ws_bytes > (256u << 20)))) {
        return false;
    }
    c->ws_allocs = (unsigned)ws_allocs;
    if (!strchr("lnh", prio) || !prio || !strchr("wfc", kind) || !kind) {
        return false;
    }
    c->prio = prio == 'l' ? VIDSCH_PRIO_BELOW_NORMAL :
              prio == 'n' ? VIDSCH_PRIO_NORMAL : VIDSCH_PRIO_HIGH;
    c->kind = kind == 'w' ? WLCLIENT_WORK :
              kind == 'f' ? WLCLIENT_FILL : WLCLIENT_COPY;
    if (submit != 's' && submit != 'a') {
        return false;
    }
    c->async = submit == 'a';
    /* the host's checker's bounds (tools/copro_workload.py) */
    if (!jpc || jpc > WLCLIENT_MAX_JPC || !c->value ||
        (c->kind == WLCLIENT_WORK && c->value > 10000000000ull) ||
        (c->kind != WLCLIENT_WORK && (c->value % 4 ||
                                      c->value > (256u << 20))) ||
        sleep_us > 10000000 || deadline_us > 10000000 ||
        stop_ms <= start_ms || stop_ms > 600000) {
        return false;
    }
    c->jobs_per_cycle = (unsigned)jpc;
    c->sleep_ns = sleep_us * US_NS;
    c->deadline_ns = deadline_us * US_NS;
    c->start_ns = start_ms * MS_NS;
    c->stop_ns = stop_ms * MS_NS;
    return true;
}

/* ---- the cycle state machine ---- */

static void try_cycle(struct wlclient *w, uint64_t release);
static void submit_jobs(struct wlclient *w);

static void check_drained(struct wlclient *w)
{
    if ((w->app.stopping || w->finished || w->app.fail_what) &&
        !w->submitting && !w->throttled && w->done == w->begun) {
        w->app.drained = true;
    }
}

static bool may_begin(struct wlclient *w, uint64_t now)
{
    return !w->app.stopping && !w->app.fail_what && now < w->end &&
           (!w->cfg.cycles || w->begun < w->cfg.cycles);
}

static void sample(uint64_t *v, unsigned *n, uint64_t x)
{
    if (*n < WLCLIENT_SAMPLES) {
        v[(*n)++] = x;
    }
}

/* Cycles complete in order on one context: every cycle up to the sync
 * value is done; read its jobs' timestamps. */
static void cycles_done(void *arg, int status)
{
    struct wlclient *w = arg;
    struct app *a = &w->app;
    uint64_t value = 0, now = kapi_now(a->proc);

    if (status != DDI_OK) {
        app_fail(a, "wait_cpu", status);
        w->done = w->begun;
        check_drained(w);
        return;
    }
    kapi_sync_value(a->proc, w->hsync, &value);
    while (w->done < value && w->done < w->begun) {
        unsigned s = w->done % WLCLIENT_SLOTS;
        /* volatile: the device wrote these */
        const volatile uint64_t *t = w->rec + 2 * s * WLCLIENT_MAX_JPC;
        uint64_t end = 0;
        int st = kapi_context_error(a->proc, a->hctx);

        w->done++;
        if (st != DDI_OK) {
            app_fail(a, "context in error", st);
            continue;
        }
        for (unsigned j = 0; j < w->cfg.jobs_per_cycle; j++) {
            uint64_t start = t[2 * j], sub = w->submit[s][j];

            if (start < sub || t[2 * j + 1] < start) {
                app_fail(a, "job timestamps", DDI_EINVAL);
            }
            sample(w->lat, &w->nlat, start > sub ? start - sub : 0);
            app_latency(a, start > sub ? start - sub : 0);
            end = t[2 * j + 1];
            w->jobs++;
        }
        a->completed++;
        if (w->cfg.present && w->cfg.deadline_ns &&
            end > w->release[s] + w->cfg.deadline_ns) {
            w->misses++;
            a->misses++;
            kapi_mark(a->proc, a->hctx, COPRO_MARK_DEADLINE_MISS, w->done,
                      end - (w->release[s] + w->cfg.deadline_ns));
        }
    }
    if (!w->cfg.present) {
        if (!w->cfg.async && w->done == w->begun && !w->finished) {
            /* sync: the next cycle after the sleep */
            kapi_timer_arm(a->proc, &w->timer, now + w->cfg.sleep_ns);
        } else if (w->want_cycle) {
            w->want_cycle = false;
            try_cycle(w, now);
        }
    }
    check_drained(w);
}

static void resume(void *arg, int status)
{
    struct wlclient *w = arg;

    w->throttled = false;
    if (status != DDI_OK) {
        app_fail(&w->app, "wait_throttle", status);
        w->submitting = false;
    } else {
        submit_jobs(w);
    }
    check_drained(w);
}

/* DDI_EBUSY: the process's work in flight is at a limit; go on from the
 * same step once some of it retired, as a thread blocked in the call. */
static void throttle(struct wlclient *w)
{
    int st = kapi_wait_throttle(w->app.proc, resume, w);

    if (st != DDI_OK) {
        app_fail(&w->app, "wait_throttle", st);
        w->submitting = false;
        return;
    }
    w->throttled = true;
}

/* The jobs of cycle `begun` from job w->job on, then its signal and CPU
 * wait. */
static void submit_jobs(struct wlclient *w)
{
    struct app *a = &w->app;
    uint64_t n = w->begun + 1;
    unsigned s = w->begun % WLCLIENT_SLOTS;
    int st;

    if (w->dep && !w->dep_waited && w->dep->begun) {
        st = kapi_wait_gpu(a->proc, a->hctx, w->hdep, w->dep->begun);
        if (st == DDI_EBUSY) {
            throttle(w);
            return;
        }
        if (st != DDI_OK) {
            app_fail(a, "wait_gpu", st);
            w->submitting = false;
            return;
        }
    }
    w->dep_waited = true;
    while (w->job < w->cfg.jobs_per_cycle) {
        uint64_t off = 16 * ((uint64_t)s * WLCLIENT_MAX_JPC + w->job);

        umd_reset(&w->cb);
        umd_timestamp(&w->cb, w->hrec, off);
        /* the working set: each allocation touched (its first word), so
         * vidmm makes them all resident for the job */
        for (unsigned i = 0; i < w->cfg.ws_allocs; i++) {
            umd_fill(&w->cb, w->hws[i], 0, 4, (uint32_t)n);
        }
        switch (w->cfg.kind) {
        case WLCLIENT_WORK:
            umd_work(&w->cb, w->cfg.value);
            break;
        case WLCLIENT_FILL:
            umd_fill(&w->cb, w->hdst, 0, w->cfg.value,
                     (uint32_t)(0x5a000000u | (n & 0xffffff)));
            break;
        case WLCLIENT_COPY:
            umd_copy(&w->cb, w->hdst, 0, w->hsrc, 0, w->cfg.value);
            break;
        }
        umd_timestamp(&w->cb, w->hrec, off + 8);
        if (!umd_ok(&w->cb)) {
            app_fail(a, "umd", DDI_EINVAL);
            w->submitting = false;
            return;
        }
        w->submit[s][w->job] = kapi_now(a->proc);
        st = app_render(a, &w->cb);
        if (st == DDI_EBUSY) {
            throttle(w);
            return;
        }
        if (st != DDI_OK) {
            app_fail(a, "render", st);
            w->submitting = false;
            return;
        }
        a->submitted++;
        w->job++;
    }
    st = kapi_signal_gpu(a->proc, a->hctx, w->hsync, n);
    if (st == DDI_EBUSY) {
        throttle(w);
        return;
    }
    if (st == DDI_OK) {
        st = kapi_wait_cpu(a->proc, w->hsync, n, cycles_done, w);
    }
    w->submitting = false;
    if (st != DDI_OK) {
        app_fail(a, "signal/wait", st);
        return;
    }
    w->begun = n;
    if (w->cfg.async && !w->cfg.present) {
        kapi_timer_arm(a->proc, &w->timer,
                       kapi_now(a->proc) + w->cfg.sleep_ns);
    }
}

/* A cycle is due (released at `release`). */
static void try_cycle(struct wlclient *w, uint64_t release)
{
    struct app *a = &w->app;
    uint64_t now = kapi_now(a->proc);
    uint64_t inflight = w->begun - w->done;
    uint64_t room = w->cfg.async ? WLCLIENT_SLOTS - 1 : 1;

    if (w->begun && !w->finished) {
        /* the last cycle ended here, as the client sees it */
        w->last_end = now;
    }

    if (w->submitting || w->throttled) {
        /* only a vsync release can come while one is being submitted */
        w->dropped++;
        w->misses++;
        w->app.misses++;
        return;
    }
    if (!may_begin(w, now)) {
        w->finished = true;
        check_drained(w);
        return;
    }
    if (inflight >= room) {
        if (w->cfg.present) {
            w->dropped++;
            w->misses++;
            a->misses++;
            a->dropped++;
        } else {
            w->want_cycle = true;
        }
        return;
    }
    if (w->begun) {
        sample(w->cyc, &w->ncyc, now - w->last_cstart);
    }
    w->last_cstart = now;
    w->release[w->begun % WLCLIENT_SLOTS] = release;
    w->job = 0;
    w->dep_waited = false;
    w->submitting = true;
    submit_jobs(w);
}

static void on_timer(void *arg, uint64_t now)
{
    try_cycle(arg, now);
}

static void wait_vsync(struct wlclient *w);

static void on_vsync(void *arg, int status, uint64_t vsyncs, uint64_t time)
{
    struct wlclient *w = arg;

    (void)vsyncs;
    if (status != DDI_OK) {
        app_fail(&w->app, "wait_vsync", status);
        check_drained(w);
        return;
    }
    if (time >= w->begin) {
        try_cycle(w, time);
    }
    if (!w->finished && !w->app.stopping && !w->app.fail_what) {
        wait_vsync(w);
    }
    check_drained(w);
}

static void wait_vsync(struct wlclient *w)
{
    int st = kapi_wait_vsync(w->app.proc, w->app.hdev, 0, on_vsync, w);

    if (st != DDI_OK) {
        app_fail(&w->app, "wait_vsync", st);
    }
}

static void start(struct app *a)
{
    struct wlclient *w = (struct wlclient *)a;

    w->begin = a->started_at + w->cfg.start_ns;
    w->end = a->started_at + w->cfg.stop_ns;
    w->last_end = w->begin;
    if (w->cfg.present) {
        wait_vsync(w);
    } else {
        kapi_timer_arm(a->proc, &w->timer, w->begin);
    }
}

static void stop(struct app *a)
{
    struct wlclient *w = (struct wlclient *)a;

    kapi_timer_cancel(a->proc, &w->timer);
    w->want_cycle = false;
    if (w->begun && !w->finished) {
        w->last_end = kapi_now(a->proc);
    }
    check_drained(w);
}

static void check(struct app *a, struct report *r)
{
    struct wlclient *w = (struct wlclient *)a;
    struct vidsch_ctx_stats st = { 0 };
    uint64_t value = 0;
    int s1 = kapi_context_stats(a->proc, a->hctx, &st);
    int s2 = kapi_sync_value(a->proc, w->hsync, &value);

    report(r, s1 == DDI_OK && s2 == DDI_OK &&
           w->jobs == w->done * w->cfg.jobs_per_cycle &&
           st.completed == w->jobs && value == w->done,
           "%s: %lu cycles of %u jobs, %lu jobs retired (the scheduler "
           "counts %lu), sync object at %lu", a->name, w->done,
           w->cfg.jobs_per_cycle, w->jobs, st.completed, value);
}

static const struct app_ops wlclient_ops = {
    .start = start,
    .stop = stop,
    .check = check,
};

int wlclient_init(struct wlclient *w, struct kernel *k,
                  const struct wlclient_config *cfg)
{
    struct app *a = &w->app;
    int st;

    w->cfg = *cfg;
    st = app_init(a, k, w->cfg.name, COPRO_ENGINE_RENDER, w->cfg.prio,
                  &wlclient_ops);
    if (st != DDI_OK) {
        return st;
    }
    umd_init(&w->cb, w->cmd, sizeof(w->cmd));
    kapi_timer_init(&w->timer, on_timer, w);
    w->hrec = app_alloc(a, WLCLIENT_SLOTS * WLCLIENT_MAX_JPC * 16, true);
    if (!w->hrec) {
        return a->fail_status;
    }
    w->rec = app_map(a, w->hrec);
    if (!w->rec) {
        return a->fail_status;
    }
    if (w->cfg.kind != WLCLIENT_WORK) {
        w->hdst = app_alloc(a, w->cfg.value, false);
        if (!w->hdst) {
            return a->fail_status;
        }
    }
    if (w->cfg.kind == WLCLIENT_COPY) {
        w->hsrc = app_alloc(a, w->cfg.value, false);
        if (!w->hsrc) {
            return a->fail_status;
        }
    }
    for (unsigned i = 0; i < w->cfg.ws_allocs; i++) {
        struct kapi_alloc_desc d = {
            .size = w->cfg.ws_bytes, .cpu_visible = true, .zeroed = true,
            .local_only = true,
        };

        st = kapi_create_allocation(a->proc, a->hdev, &d, &w->hws[i]);
        if (st != DDI_OK) {
            app_fail(a, "create_allocation (working set)", st);
            return st;
        }
    }
    st = kapi_create_sync(a->proc, a->hdev, 0, &w->hsync);
    if (st != DDI_OK) {
        app_fail(a, "create_sync", st);
    }
    return st;
}

int wlclient_depend(struct wlclient *w, struct wlclient *other)
{
    uint32_t name = 0;
    int st = kapi_share_sync(other->app.proc, other->hsync, &name);

    if (st == DDI_OK) {
        st = kapi_grant_sync(other->app.proc, other->hsync,
                             kapi_process_id(w->app.proc), KAPI_ACCESS_READ);
    }
    if (st == DDI_OK) {
        st = kapi_open_sync(w->app.proc, w->app.hdev, name, &w->hdep);
    }
    if (st != DDI_OK) {
        app_fail(&w->app, "depends_on (share, grant, open)", st);
        return st;
    }
    w->dep = other;
    return DDI_OK;
}

/* ---- the metrics ---- */

/* Shell sort: the samples are few (WLCLIENT_SAMPLES at most). */
static void sort64(uint64_t *v, unsigned n)
{
    for (unsigned gap = n / 2; gap; gap /= 2) {
        for (unsigned i = gap; i < n; i++) {
            uint64_t x = v[i];
            unsigned j = i;

            for (; j >= gap && v[j - gap] > x; j -= gap) {
                v[j] = v[j - gap];
            }
            v[j] = x;
        }
    }
}

/* min, average, 99th percentile, max: the Linux runner's definitions */
static void stats(uint64_t *v, unsigned n, uint64_t out[4])
{
    uint64_t sum = 0;

    out[0] = out[1] = out[2] = out[3] = 0;
    if (!n) {
        return;
    }
    sort64(v, n);
    for (unsigned i = 0; i < n; i++) {
        sum += v[i];
    }
    out[0] = v[0];
    out[1] = sum / n;
    out[2] = v[(n * 99 + 99) / 100 - 1];
    out[3] = v[n - 1];
}

void wlclient_print_json(struct wlclient *w)
{
    struct app *a = &w->app;
    struct vidsch_ctx_stats st = { 0 };
    uint64_t lat[4], cyc[4];

    kapi_context_stats(a->proc, a->hctx, &st);
    stats(w->lat, w->nlat, lat);
    stats(w->cyc, w->ncyc, cyc);
    kprintf("WORKLOAD {\"os\":\"copro\",\"client\":\"%s\",\"cycles\":%lu,"
            "\"jobs\":%lu,\"elapsed_ns\":%lu,\"gpu_ns\":%lu,"
            "\"cycle_ns\":[%lu,%lu,%lu,%lu],"
            "\"latency_ns\":[%lu,%lu,%lu,%lu],\"preemptions\":%lu,"
            "\"deadline_misses\":%lu,\"dropped\":%lu,\"samples\":%u}\n",
            a->name, w->done, w->jobs,
            w->last_end > w->begin ? w->last_end - w->begin : 0,
            st.gpu_ns, cyc[0], cyc[1], cyc[2], cyc[3], lat[0], lat[1], lat[2],
            lat[3], st.preemptions, w->misses, w->dropped, w->nlat);
    /* every job's latency (sorted), for the host's CDFs */
    kprintf("WORKLOAD-SAMPLES {\"client\":\"%s\",\"latency_ns\":[",
            a->name);
    for (unsigned i = 0; i < w->nlat; i++) {
        kprintf("%s%lu", i ? "," : "", w->lat[i]);
    }
    kprintf("]}\n");
}
