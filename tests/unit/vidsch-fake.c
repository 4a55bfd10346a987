/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "vidsch-fake.h"

#include <inttypes.h>
#include <string.h>

static void fk_query_caps(void *drv, struct ddi_caps *caps)
{
    *caps = ((struct fake *)drv)->caps;
}

static int fk_patch(void *drv, struct ddi_dmabuf *buf,
                    const struct ddi_alloc_desc *alloc, uint32_t first,
                    uint32_t end)
{
    struct fake *f = drv;

    (void)alloc;
    g_assert_cmpuint(f->npatch, <, FAKE_MAX_SUBS);
    f->patched[f->npatch].cookie = (uint64_t)(buf - f->buf);
    f->patched[f->npatch].first = first;
    f->patched[f->npatch].end = end;
    f->npatch++;
    return f->patch_rc;
}

static int fk_submit(void *drv, const struct ddi_submit_args *a)
{
    struct fake *f = drv;

    if (f->submit_rc) {
        return f->submit_rc;
    }
    g_assert_cmpuint(f->nsub, <, FAKE_MAX_SUBS);
    f->sub[f->nsub++] = *a;
    f->ring[a->engine][f->ring_n[a->engine]++] = a->fence;
    return DDI_OK;
}

static int fk_preempt(void *drv, unsigned engine, uint64_t id)
{
    struct fake *f = drv;

    f->preempt[f->npreempt].engine = engine;
    f->preempt[f->npreempt].id = id;
    f->npreempt++;
    return DDI_OK;
}

static int fk_reset_engine(void *drv, unsigned engine,
                           struct ddi_reset_report *rep)
{
    struct fake *f = drv;

    f->reset[f->nreset++].engine = engine;
    *rep = f->reset_rep[engine];
    f->ring_n[engine] = 0;
    return DDI_OK;
}

static uint64_t fk_gpu_time(void *drv)
{
    return ((struct fake *)drv)->now;
}

static const struct ddi_ops fake_ops = {
    .query_caps = fk_query_caps,
    .patch = fk_patch,
    .submit = fk_submit,
    .preempt = fk_preempt,
    .reset_engine = fk_reset_engine,
    .gpu_time = fk_gpu_time,
};

static uint64_t env_now(void *os)
{
    return ((struct fake *)os)->now;
}

static void env_set_timer(void *os, uint64_t when)
{
    struct fake *f = os;

    f->timer = when;
    f->timers_set++;
}

static void env_queue_work(void *os)
{
    ((struct fake *)os)->work++;
}

static void env_buffer_done(void *os, uint64_t cookie, int status)
{
    struct fake *f = os;

    g_assert_cmpuint(f->ndone, <, FAKE_MAX_SUBS);
    f->done[f->ndone].cookie = cookie;
    f->done[f->ndone].status = status;
    f->ndone++;
    if (f->on_done) {
        f->on_done(f, cookie, status);
    }
}

static void env_context_lost(void *os, uint32_t id)
{
    struct fake *f = os;

    f->lost[f->nlost++] = id;
}

static int env_scene_oom(void *os, uint64_t cookie, uint32_t context,
                         uint64_t save_addr, uint32_t need,
                         struct vidsch_oom_wait *wait)
{
    struct fake *f = os;

    g_assert_cmpuint(f->noom, <, G_N_ELEMENTS(f->oom));
    f->oom[f->noom].cookie = cookie;
    f->oom[f->noom].save_addr = save_addr;
    f->oom[f->noom].context = context;
    f->oom[f->noom].need = need;
    f->oom[f->noom].wait = wait != NULL;
    f->noom++;
    if (f->oom_answer == VIDSCH_OOM_PARTIAL && wait &&
        !f->oom_answer_no_fence) {
        wait->addr = &f->oom_fence;
        wait->value = f->oom_fence_value;
    }
    return f->oom_answer;
}

static void env_trace(void *os, const struct vidsch_trace *ev)
{
    struct fake *f = os;

    static const char *const names[] = {
        "ELECT", "PREPARED", "UNSTAGE", "SUBMIT", "RETIRE", "PREEMPT",
        "PREEMPTED", "RESET", "DEVICE_RESET", "LOST", "BOOST", "UNBOOST",
        "HOLD", "RELEASE", "PREPARE", "FIGHT",
    };

    if (f->nev < FAKE_MAX_EVENTS) {
        f->ev[f->nev++] = *ev;
    }
    if (g_getenv("VIDSCH_FAKE_TRACE")) {
        g_printerr("%10" PRIu64 " e%u %-12s ctx %u cookie %" PRIu64
                   " fence %" PRIu64 " flags %x level %u reason %u\n",
                   ev->time, ev->engine, names[ev->kind], ev->context,
                   ev->cookie, ev->fence, ev->flags, ev->level, ev->reason);
    }
}

static int env_make_resident(void *os, uint64_t cookie,
                             struct ddi_dmabuf *buf,
                             struct ddi_alloc_desc *alloc, bool patched,
                             struct vidsch_residency *out)
{
    struct fake *f = os;

    (void)buf;
    (void)alloc;
    g_assert_cmpuint(f->nresident, <, FAKE_MAX_SUBS);
    f->resident[f->nresident].cookie = cookie;
    f->resident[f->nresident++].patched = patched;
    if (f->resident_rc != DDI_OK &&
        !(f->resident_rc == DDI_EBUSY && f->resident_step)) {
        return f->resident_rc;
    }
    if (f->resident_rc == DDI_OK) {
        out->wait_ticket = f->resident_wait;
    }
    f->resident_step = false;
    if (f->resident_bytes) {
        out->paging_bytes = f->resident_bytes(f, cookie);
    }
    if (f->resident_paging) {
        out->paging = f->resident_paging;
        out->paging_engine = f->resident_paging->engine;
        out->paging_cookie = f->resident_paging_cookie;
        out->paging_ticket = f->resident_ticket;
        f->resident_paging = NULL;
    }
    return f->resident_rc;
}

static int env_make_portion(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                            struct ddi_alloc_desc *alloc, uint32_t first,
                            bool patched, struct vidsch_residency *out,
                            struct vidsch_portion *part)
{
    struct fake *f = os;
    uint32_t end = buf->len_bytes;

    (void)alloc;
    for (unsigned i = 0; i < f->ncut; i++) {
        if (f->cut[i] > first) {
            end = f->cut[i];
            break;
        }
    }
    g_assert_cmpuint(f->nportion, <, FAKE_MAX_SUBS);
    f->portion[f->nportion].cookie = cookie;
    f->portion[f->nportion].first = first;
    f->portion[f->nportion].end = end;
    f->portion[f->nportion++].patched = patched;
    if (f->portion_rc != DDI_OK) {
        return f->portion_rc;
    }
    out->wait_ticket = f->resident_wait;
    if (f->resident_paging) {
        out->paging = f->resident_paging;
        out->paging_engine = f->resident_paging->engine;
        out->paging_cookie = f->resident_paging_cookie;
        out->paging_ticket = f->resident_ticket;
        f->resident_paging = NULL;
    }
    part->end = end;
    part->slots = 1u << (f->nportion % 32);
    return DDI_OK;
}

static void env_release_portion(void *os, uint64_t cookie,
                                struct ddi_dmabuf *buf,
                                const struct vidsch_portion *part,
                                unsigned engine, uint64_t fence)
{
    struct fake *f = os;

    (void)buf;
    (void)engine;
    g_assert_cmpuint(f->nportion_released, <, FAKE_MAX_SUBS);
    f->portion_released[f->nportion_released].cookie = cookie;
    f->portion_released[f->nportion_released].first = part->first;
    f->portion_released[f->nportion_released++].fence = fence;
}

static void env_release_resident(void *os, uint64_t cookie,
                                 struct ddi_dmabuf *buf, unsigned engine,
                                 uint64_t fence)
{
    struct fake *f = os;

    (void)buf;
    (void)engine;
    g_assert_cmpuint(f->nreleased, <, FAKE_MAX_SUBS);
    f->released[f->nreleased].cookie = cookie;
    f->released[f->nreleased++].fence = fence;
}

static struct ddi_device fake_dev;
static bool fake_with_residency;
/* (hardware scheduling) the test's queue ops, given to vidsch with the
 * fake's (cfg.hwsched) */
const struct ddi_hws_ops *fake_hws;
static struct ddi_ops fake_ops_hws;

void fake_init_cfg(struct fake *f, unsigned engines, unsigned preemption,
                   const struct vidsch_config *cfg)
{
    struct vidsch_env env = {
        .os = f, .now = env_now, .set_timer = env_set_timer,
        .queue_work = env_queue_work, .buffer_done = env_buffer_done,
        .context_lost = env_context_lost, .trace = env_trace,
        .scene_oom = env_scene_oom,
    };
    uint64_t bytes;

    if (fake_with_residency) {
        env.make_resident = env_make_resident;
        env.release_resident = env_release_resident;
        env.make_portion = env_make_portion;
        env.release_portion = env_release_portion;
    }

    memset(f, 0, sizeof(*f));
    f->caps = (struct ddi_caps){
        .engines = engines, .preemption = preemption, .ring_entries = 16,
        .vram_size = 64 << 20, .max_dma_bytes = COPRO_DMA_MAX,
    };
    for (unsigned i = 0; i < engines; i++) {
        f->caps.engine_ops[i] = 0x7ff;
    }
    f->cfg = *cfg;
    f->now = 1000;
    f->timer = UINT64_MAX;
    f->buf = g_new0(struct ddi_dmabuf, FAKE_MAX_BUFS);
    for (unsigned i = 0; i < FAKE_MAX_BUFS; i++) {
        f->buf[i].gpu_addr = FAKE_DMA(i);
        f->buf[i].len_bytes = 64;
        f->buf[i].cap_bytes = 64;
    }
    bytes = vidsch_storage_size(cfg->max_contexts, cfg->max_buffers);
    f->storage = g_malloc0(bytes);
    fake_dev = (struct ddi_device){ .ops = &fake_ops, .drv = f };
    if (fake_hws) {
        fake_ops_hws = fake_ops;
        fake_ops_hws.hws = fake_hws;
        fake_dev.ops = &fake_ops_hws;
    }
    f->s = vidsch_create(f->storage, bytes, &fake_dev, &env, &f->cfg);
    g_assert_nonnull(f->s);
}

void fake_init(struct fake *f, unsigned engines, unsigned preemption,
               enum vidsch_policy policy)
{
    struct vidsch_config cfg;

    vidsch_config_default(&cfg);
    cfg.policy = policy;
    cfg.max_contexts = 16;
    cfg.max_buffers = 64;
    fake_init_cfg(f, engines, preemption, &cfg);
}

void fake_fini(struct fake *f)
{
    g_free(f->storage);
    g_free(f->buf);
}

struct vidsch_ctx *fake_ctx(struct fake *f, uint32_t id, unsigned engine,
                            enum vidsch_priority prio)
{
    struct vidsch_ctx *c = vidsch_ctx_create(f->s, id, engine, prio,
                                             FAKE_SAVE(id));

    g_assert_nonnull(c);
    return c;
}

int fake_submit(struct fake *f, struct vidsch_ctx *c, unsigned cookie)
{
    g_assert_cmpuint(cookie, <, FAKE_MAX_BUFS);
    f->buf[cookie].engine = vidsch_ctx_engine(c);
    return vidsch_submit(f->s, c, &f->buf[cookie], NULL, cookie);
}

void fake_work(struct fake *f)
{
    while (f->work) {
        f->work--;
        vidsch_worker(f->s);
    }
}

void fake_work_one(struct fake *f)
{
    if (f->work) {
        f->work--;
        vidsch_worker(f->s);
    }
}

void fake_advance_to(struct fake *f, uint64_t t)
{
    while (f->timer <= t) {
        uint64_t when = f->timer;

        if (when > f->now) {
            f->now = when;
        }
        f->timer = UINT64_MAX;
        vidsch_timer(f->s);
    }
    f->now = t;
}

static void ring_retire(struct fake *f, unsigned engine, uint64_t fence)
{
    unsigned n = 0;

    while (n < f->ring_n[engine] && f->ring[engine][n] <= fence) {
        f->completed[engine] = f->ring[engine][n];
        n++;
    }
    memmove(f->ring[engine], f->ring[engine] + n,
            (f->ring_n[engine] - n) * sizeof(uint64_t));
    f->ring_n[engine] -= n;
}

uint64_t fake_ring_oldest(struct fake *f, unsigned engine)
{
    return f->ring_n[engine] ? f->ring[engine][0] : 0;
}

uint64_t fake_ring_completed(struct fake *f, unsigned engine)
{
    return f->completed[engine];
}

void fake_complete(struct fake *f, unsigned engine, uint64_t fence)
{
    ring_retire(f, engine, fence);
    vidsch_upcalls.dma_completed(f->s, engine, fence);
}

void fake_tiler_oom(struct fake *f, unsigned engine, uint64_t fence,
                    uint32_t need, uint64_t completed)
{
    ring_retire(f, engine, completed);
    f->ring_n[engine] = 0;
    vidsch_upcalls.tiler_oom(f->s, engine, fence, need, completed);
}

void fake_preempted(struct fake *f, unsigned engine, uint64_t preempted,
                    uint64_t completed)
{
    g_assert_cmpuint(f->npreempt, >, 0);
    ring_retire(f, engine, completed);
    f->ring_n[engine] = 0;
    vidsch_upcalls.preempted(f->s, engine, f->preempt[f->npreempt - 1].id,
                             preempted, completed);
}

unsigned fake_subs_since(struct fake *f, unsigned from, unsigned *out,
                         unsigned max)
{
    unsigned n = 0;

    for (unsigned i = from; i < f->nsub && n < max; i++) {
        out[n++] = fake_cookie_of(f->sub[i].dma_addr);
    }
    return n;
}

unsigned fake_count_events(struct fake *f, enum vidsch_trace_kind kind,
                           unsigned from)
{
    unsigned n = 0;

    for (unsigned i = from; i < f->nev; i++) {
        n += f->ev[i].kind == kind;
    }
    return n;
}

int fake_status(struct fake *f, uint64_t cookie)
{
    for (unsigned i = 0; i < f->ndone; i++) {
        if (f->done[i].cookie == cookie) {
            return f->done[i].status;
        }
    }
    return 1;
}

void fake_init_residency(struct fake *f, unsigned engines,
                         unsigned preemption, enum vidsch_policy policy)
{
    fake_with_residency = true;
    fake_init(f, engines, preemption, policy);
    fake_with_residency = false;
}

void fake_init_residency_cfg(struct fake *f, unsigned engines,
                             unsigned preemption,
                             const struct vidsch_config *cfg)
{
    fake_with_residency = true;
    fake_init_cfg(f, engines, preemption, cfg);
    fake_with_residency = false;
}
