/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/memapp.h"

#include <stddef.h>

_Static_assert(offsetof(struct memapp, f) == 0, "frameapp first");

#define MS      1000000ull

static uint32_t body(const struct memapp *m, unsigned i)
{
    return ((uint32_t)m->cfg.tag << 24) | 0x00b00000u | (i << 8) | 0x5a;
}

static uint32_t header(const struct memapp *m, unsigned i, uint64_t u)
{
    return ((uint32_t)m->cfg.tag << 24) | ((uint32_t)i << 16) |
           (uint32_t)(u & 0xffff);
}

static unsigned stripes(const struct memapp *m)
{
    return (unsigned)(m->cfg.alloc_bytes / MEMAPP_STRIPE);
}

static bool build(struct frameapp *f, uint64_t n, struct umd_cmdbuf *b)
{
    struct memapp *m = (struct memapp *)f;
    unsigned s = stripes(m);

    (void)n;
    for (unsigned w = 0; w < m->cfg.per_frame; w++) {
        unsigned i = (m->next + w) % m->cfg.nallocs;
        uint32_t h = m->halloc[i];
        uint64_t u = m->uses[i]++;
        uint64_t at = (u % s) * MEMAPP_STRIPE;

        if (u == 0) {
            umd_fill(b, h, at, MEMAPP_STRIPE, body(m, i));
        } else {
            umd_copy(b, h, at, h, ((u - 1) % s) * MEMAPP_STRIPE,
                     MEMAPP_STRIPE);
        }
        umd_fill(b, h, at, MEMAPP_HEADER, header(m, i, u));
    }
    m->next = (m->next + m->cfg.per_frame) % m->cfg.nallocs;
    if (m->cfg.work_ns) {
        umd_work(b, m->cfg.work_ns);
    }
    if (!umd_ok(b)) {
        app_fail(&f->app, "build", DDI_ENOMEM);
        return false;
    }
    return true;
}

/* Wrong words of allocation i after uses uses of it. */
static uint64_t count_bad(const struct memapp *m, unsigned i,
                          volatile const uint32_t *w)
{
    unsigned s = stripes(m);
    uint64_t uses = m->uses[i], bad = 0;

    for (unsigned k = 0; k < s; k++) {
        volatile const uint32_t *st = w + (uint64_t)k * MEMAPP_STRIPE / 4;
        bool written = k < uses;
        /* the last use that wrote stripe k: k, k + s, k + 2s, ... */
        uint64_t last = written ? k + (uses - 1 - k) / s * s : 0;

        for (unsigned j = 0; j < MEMAPP_STRIPE / 4; j++) {
            uint32_t want = !written ? 0 :
                            j < MEMAPP_HEADER / 4 ? header(m, i, last) :
                            body(m, i);

            bad += st[j] != want;
        }
    }
    return bad;
}

static void check(struct app *a, struct report *r)
{
    struct memapp *m = (struct memapp *)a;
    uint64_t bad = 0, uses = 0;
    int st = DDI_OK;

    if (a->completed == 0 || a->completed != a->submitted) {
        report(r, false, "%s: %lu of %lu frames completed", a->name,
               a->completed, a->submitted);
        return;
    }
    for (unsigned i = 0; i < m->cfg.nallocs && st == DDI_OK; i++) {
        volatile void *cpu = NULL;

        st = kapi_lock(a->proc, m->halloc[i], KAPI_LOCK_DONOTWAIT, &cpu);
        if (st == DDI_OK) {
            bad += count_bad(m, i, cpu);
            uses += m->uses[i];
            kapi_unlock(a->proc, m->halloc[i]);
        }
    }
    if (!report(r, st == DDI_OK, "%s: every allocation locked once "
                "drained (%s)", a->name, ddi_status_name(st))) {
        return;
    }
    report(r, bad == 0, "%s: %lu frames, %lu uses of %u allocations of %lu "
           "KiB: every stripe as written (%lu words wrong)", a->name,
           a->completed, uses, m->cfg.nallocs, m->cfg.alloc_bytes >> 10,
           bad);
}

static const struct app_ops memapp_ops = {
    .start = frameapp_start,
    .stop = frameapp_stop,
    .check = check,
};

void memapp_config_default(struct memapp_config *c)
{
    *c = (struct memapp_config){
        .prio = VIDSCH_PRIO_NORMAL,
        .tag = 0x4d,
        .nallocs = 8,
        .alloc_bytes = 1u << 20,
        .per_frame = 4,
        .work_ns = 1 * MS,
    };
}

int memapp_init(struct memapp *m, struct kernel *k, const char *name,
                const struct memapp_config *cfg)
{
    /* back to back, two in flight: the next frame's residency work can
     * overlap the running one, as a swap chain's would */
    struct frameapp_config fc = {
        .period_ns = 0, .deadline_ns = 0, .depth = 2,
        .max_frames = cfg->max_frames,
    };
    struct app *a = &m->f.app;
    int st;

    m->cfg = *cfg;
    m->next = 0;
    for (unsigned i = 0; i < MEMAPP_MAX_ALLOCS; i++) {
        m->uses[i] = 0;
        m->halloc[i] = 0;
    }
    if (cfg->nallocs == 0 || cfg->nallocs > MEMAPP_MAX_ALLOCS ||
        cfg->per_frame == 0 || cfg->per_frame > cfg->nallocs ||
        cfg->alloc_bytes < MEMAPP_STRIPE ||
        cfg->alloc_bytes % MEMAPP_STRIPE) {
        return DDI_EINVAL;
    }
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, cfg->prio, &memapp_ops);
    if (st == DDI_OK) {
        st = frameapp_init(&m->f, &fc, build, NULL, m->cmd,
                           sizeof(m->cmd));
    }
    for (unsigned i = 0; i < cfg->nallocs && st == DDI_OK; i++) {
        struct kapi_alloc_desc d = {
            .size = cfg->alloc_bytes, .cpu_visible = true, .zeroed = true,
            .local_only = cfg->local_only,
        };

        st = kapi_create_allocation(a->proc, a->hdev, &d, &m->halloc[i]);
        if (st != DDI_OK) {
            app_fail(a, "create_allocation", st);
        }
    }
    return st;
}
