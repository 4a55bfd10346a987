/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/splitapp.h"

#include <stddef.h>

_Static_assert(offsetof(struct splitapp, f) == 0, "frameapp first");

#define MS      1000000ull
#define PITCH   (SPLITAPP_TGT_W * 4u)

static uint32_t body(const struct splitapp *m, unsigned i, uint64_t n)
{
    return ((uint32_t)m->cfg.tag << 24) | ((uint32_t)i << 20) |
           (uint32_t)(n & 0xfffff);
}

static uint32_t colour(const struct splitapp *m, uint64_t n, unsigned k)
{
    return ((uint32_t)m->cfg.tag << 24) | 0x00800000u | ((uint32_t)k << 16) |
           (uint32_t)(n & 0xffff);
}

/* vary: frame n's share of the working set, in thirds (3: whole); the
 * last frame is whole */
static unsigned thirds(const struct splitapp *m, uint64_t n)
{
    static const unsigned cycle[3] = { 3, 1, 2 };

    return m->cfg.vary && n <= m->cfg.max_frames
           ? cycle[(m->cfg.max_frames - n) % 3] : 3;
}

/* A partial frame (vary): the same packets on its allocations only. */
static void build_part(struct splitapp *m, uint64_t n, unsigned third,
                       struct umd_cmdbuf *b)
{
    const uint32_t *h = m->halloc;
    uint64_t size = m->cfg.alloc_bytes, half = size / 2;

    umd_fill(b, h[0], 0, size, body(m, 0, n));
    umd_fill(b, h[3], 0, size, body(m, 3, n));
    if (third == 2) {
        umd_fill(b, h[1], 0, size, body(m, 1, n));
        umd_copy(b, h[4], 0, h[0], 0, half);
        umd_fill(b, h[4], half, half, body(m, 4, n));
    }
    umd_copy(b, h[0], 0, h[3], 0, size);
}

static bool build(struct frameapp *f, uint64_t n, struct umd_cmdbuf *b)
{
    struct splitapp *m = (struct splitapp *)f;
    const uint32_t *h = m->halloc;
    uint64_t size = m->cfg.alloc_bytes, half = size / 2;
    unsigned third = thirds(m, n);

    if (third < 3) {
        build_part(m, n, third, b);
        if (m->cfg.work_ns) {
            umd_work(b, m->cfg.work_ns);
        }
        if (!umd_ok(b)) {
            app_fail(&f->app, "build", DDI_ENOMEM);
            return false;
        }
        return true;
    }
    umd_fill(b, h[0], 0, size, body(m, 0, n));
    umd_fill(b, h[1], 0, size, body(m, 1, n));
    umd_fill(b, h[2], 0, size, body(m, 2, n));
    umd_set_target(b, 0, h[2], 0, PITCH, SPLITAPP_TGT_W, m->tgt_h,
                   COPRO_FMT_XRGB8888);
    umd_rect(b, 0, 0, 0, SPLITAPP_TGT_W, m->tgt_h, colour(m, n, 1));
    umd_fill(b, h[3], 0, size, body(m, 3, n));
    umd_copy(b, h[4], 0, h[0], 0, half);
    /* after split points: the umd binds slot 0 to a2 again first */
    umd_rect(b, 0, 16, 16, 32, 32, colour(m, n, 2));
    umd_fill(b, h[5], 0, size, body(m, 5, n));
    umd_copy(b, h[5], 0, h[1], half, half);
    umd_copy(b, h[0], 0, h[3], 0, size);
    umd_fill(b, h[4], half, half, body(m, 4, n));
    umd_rect(b, 0, 8, 64, 50, 40, colour(m, n, 3));
    if (m->cfg.work_ns) {
        umd_work(b, m->cfg.work_ns);
    }
    if (!umd_ok(b)) {
        app_fail(&f->app, "build", DDI_ENOMEM);
        return false;
    }
    return true;
}

/* What word w of allocation i holds after frame n. */
static uint32_t expected(const struct splitapp *m, unsigned i, uint64_t w,
                         uint64_t n)
{
    uint64_t half = m->cfg.alloc_bytes / 8;     /* words */

    switch (i) {
    case 0:
        return body(m, 3, n);                   /* a3 copied over it */
    case 2: {
        uint64_t y = w / SPLITAPP_TGT_W, x = w % SPLITAPP_TGT_W;

        if (y >= m->tgt_h) {
            return body(m, 2, n);
        }
        if (x >= 8 && x < 58 && y >= 64 && y < 104) {
            return colour(m, n, 3);
        }
        if (x >= 16 && x < 48 && y >= 16 && y < 48) {
            return colour(m, n, 2);
        }
        return colour(m, n, 1);
    }
    case 4:
        return w < half ? body(m, 0, n) : body(m, 4, n);
    case 5:
        return w < half ? body(m, 1, n) : body(m, 5, n);
    default:
        return body(m, i, n);
    }
}

static void check(struct app *a, struct report *r)
{
    struct splitapp *m = (struct splitapp *)a;
    uint64_t bad = 0, n = a->completed;
    int st = DDI_OK;

    if (a->completed == 0 || a->completed != a->submitted) {
        report(r, false, "%s: %lu of %lu frames completed (%s)", a->name,
               a->completed, a->submitted,
               ddi_status_name(a->fail_status));
        return;
    }
    for (unsigned i = 0; i < SPLITAPP_ALLOCS && st == DDI_OK; i++) {
        volatile void *cpu = NULL;

        st = kapi_lock(a->proc, m->halloc[i], KAPI_LOCK_DONOTWAIT, &cpu);
        if (st == DDI_OK) {
            volatile const uint32_t *w = cpu;

            for (uint64_t j = 0; j < m->cfg.alloc_bytes / 4; j++) {
                bad += w[j] != expected(m, i, j, n);
            }
            kapi_unlock(a->proc, m->halloc[i]);
        }
    }
    if (!report(r, st == DDI_OK, "%s: every allocation locked once "
                "drained (%s)", a->name, ddi_status_name(st))) {
        return;
    }
    report(r, bad == 0, "%s: %lu frames of %u allocations of %lu KiB, "
           "every word as the last frame wrote it (%lu wrong)", a->name, n,
           SPLITAPP_ALLOCS, m->cfg.alloc_bytes >> 10, bad);
}

static const struct app_ops splitapp_ops = {
    .start = frameapp_start,
    .stop = frameapp_stop,
    .check = check,
};

void splitapp_config_default(struct splitapp_config *c)
{
    *c = (struct splitapp_config){
        .prio = VIDSCH_PRIO_NORMAL,
        .tag = 0x53,
        .alloc_bytes = 1u << 20,
        .work_ns = 1 * MS,
        .max_frames = 3,
    };
}

int splitapp_init(struct splitapp *m, struct kernel *k, const char *name,
                  const struct splitapp_config *cfg)
{
    /* one frame at a time: each is a whole working set over VRAM */
    struct frameapp_config fc = {
        .period_ns = 0, .deadline_ns = 0, .depth = 1,
        .max_frames = cfg->max_frames,
    };
    struct app *a = &m->f.app;
    uint64_t rows;
    int st;

    m->cfg = *cfg;
    for (unsigned i = 0; i < SPLITAPP_ALLOCS; i++) {
        m->halloc[i] = 0;
    }
    if (cfg->alloc_bytes < (128u << 10) || cfg->alloc_bytes % (64u << 10) ||
        (cfg->vary && !cfg->max_frames)) {
        return DDI_EINVAL;
    }
    /* the target: as many 256-pixel rows as fit, at most 1024 */
    rows = cfg->alloc_bytes / PITCH;
    m->tgt_h = (uint32_t)(rows > 1024 ? 1024 : rows);
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, cfg->prio,
                  &splitapp_ops);
    if (st == DDI_OK) {
        st = frameapp_init(&m->f, &fc, build, NULL, m->cmd,
                           sizeof(m->cmd));
    }
    for (unsigned i = 0; i < SPLITAPP_ALLOCS && st == DDI_OK; i++) {
        /* VRAM only: through the aperture the list would fit as it
         * is, and nothing would need splitting */
        struct kapi_alloc_desc d = {
            .size = cfg->alloc_bytes, .cpu_visible = true, .zeroed = true,
            .local_only = true,
        };

        st = kapi_create_allocation(a->proc, a->hdev, &d, &m->halloc[i]);
        if (st != DDI_OK) {
            app_fail(a, "create_allocation", st);
            m->halloc[i] = 0;
        }
        if (!m->halloc[i]) {
            st = a->fail_status;
        }
    }
    return st;
}
