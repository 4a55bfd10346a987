/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_host.h"

#include <stdlib.h>
#include <string.h>

static uint64_t env_now(void *os)
{
    return ((struct sim_host *)os)->clk.now;
}

static void timer_cb(void *obj, uint64_t gen)
{
    struct sim_host *h = obj;

    if (gen == h->timer_gen) {
        h->timer_calls++;
        vidsch_timer(h->vs);
    }
}

static void env_set_timer(void *os, uint64_t when)
{
    struct sim_host *h = os;

    sim_at(&h->clk, when, timer_cb, h, ++h->timer_gen);
}

static void worker_cb(void *obj, uint64_t arg)
{
    struct sim_host *h = obj;

    (void)arg;
    h->worker_calls++;
    vidsch_worker(h->vs);
}

static void env_queue_work(void *os)
{
    struct sim_host *h = os;
    uint64_t start = h->worker_free_at > h->clk.now ? h->worker_free_at
                                                    : h->clk.now;
    uint64_t cost = h->prep_ns;

    if (h->prep_jitter_ns) {
        cost += sim_rand(&h->rng) % h->prep_jitter_ns;
    }
    h->worker_free_at = start + cost;
    sim_at(&h->clk, h->worker_free_at, worker_cb, h, 0);
}

static void env_buffer_done(void *os, uint64_t cookie, int status)
{
    struct sim_host *h = os;

    if (h->hooks.buffer_done) {
        h->hooks.buffer_done(h->hooks_arg, cookie, status);
    }
}

static void env_context_lost(void *os, uint32_t context)
{
    struct sim_host *h = os;

    if (h->hooks.context_lost) {
        h->hooks.context_lost(h->hooks_arg, context);
    }
}

static void env_trace(void *os, const struct vidsch_trace *ev)
{
    struct sim_host *h = os;

    h->hooks.trace(h->hooks_arg, ev);
}

static int env_make_resident(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                             struct ddi_alloc_desc *alloc, bool patched,
                             struct vidsch_residency *out)
{
    struct sim_host *h = os;

    return h->hooks.make_resident(h->hooks_arg, cookie, buf, alloc, patched,
                                  out);
}

static void env_release_resident(void *os, uint64_t cookie,
                                 struct ddi_dmabuf *buf, unsigned engine,
                                 uint64_t fence)
{
    struct sim_host *h = os;

    h->hooks.release_resident(h->hooks_arg, cookie, buf, engine, fence);
}

static int env_make_portion(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                            struct ddi_alloc_desc *alloc, uint32_t first,
                            bool patched, struct vidsch_residency *out,
                            struct vidsch_portion *part)
{
    struct sim_host *h = os;

    return h->hooks.make_portion(h->hooks_arg, cookie, buf, alloc, first,
                                 patched, out, part);
}

static void env_release_portion(void *os, uint64_t cookie,
                                struct ddi_dmabuf *buf,
                                const struct vidsch_portion *part,
                                unsigned engine, uint64_t fence)
{
    struct sim_host *h = os;

    h->hooks.release_portion(h->hooks_arg, cookie, buf, part, engine, fence);
}

static int env_scene_oom(void *os, uint64_t cookie, uint32_t context,
                         uint64_t save_addr, uint32_t need,
                         struct vidsch_oom_wait *wait)
{
    struct sim_host *h = os;

    return h->hooks.scene_oom(h->hooks_arg, cookie, context, save_addr,
                              need, wait);
}

void sim_host_init(struct sim_host *h, uint64_t mem_size,
                   unsigned max_contexts, unsigned max_buffers)
{
    struct sim_gpu_config g;

    memset(h, 0, sizeof(*h));
    sim_clock_init(&h->clk);
    sim_gpu_config_default(&g);
    sim_hws_config_default(&h->hws_cfg);
    g.mem_size = mem_size;
    h->gpu = sim_gpu_create(&h->clk, &g);
    h->storage_bytes = vidsch_storage_size(max_contexts, max_buffers);
    h->storage = aligned_alloc(64, (h->storage_bytes + 63) & ~63ull);
    if (!h->storage) {
        abort();
    }
}

void sim_host_fini(struct sim_host *h)
{
    sim_gpu_destroy(h->gpu);
    free(h->storage);
    sim_clock_fini(&h->clk);
}

void sim_host_start(struct sim_host *h, const struct sim_gpu_config *gpu,
                    const struct vidsch_config *cfg, uint64_t prep_ns,
                    uint64_t prep_jitter_ns, uint64_t seed,
                    const struct sim_host_hooks *hooks, void *arg)
{
    struct sim_gpu_config gc = *gpu;

    sim_clock_reset(&h->clk, 0);
    if (cfg->hwsched) {
        /* the device's scheduler reacts at once; the OS hears of it
         * upcall_ns after the interrupt */
        h->hws_cfg.upcall_ns = gpu->upcall_ns;
        gc.upcall_ns = 0;
    }
    sim_gpu_reset(h->gpu, &gc);
    h->gpu->hws = NULL;
    h->hooks = hooks ? *hooks : (struct sim_host_hooks){ 0 };
    h->hooks_arg = arg;
    h->timer_gen = 0;
    h->worker_free_at = 0;
    h->prep_ns = prep_ns;
    h->prep_jitter_ns = prep_jitter_ns;
    h->rng = seed ^ 0x5eed;
    h->worker_calls = h->timer_calls = 0;
    h->ignore_devices = false;
    h->dev = (struct ddi_device){ .ops = &sim_gpu_ops, .drv = h->gpu };
    if (cfg->hwsched) {
        sim_hws_init(&h->hws, h->gpu, &h->hws_cfg);
        h->dev.ops = &h->hws.ops;
    }
    h->env = (struct vidsch_env){
        .os = h, .now = env_now, .set_timer = env_set_timer,
        .queue_work = env_queue_work, .buffer_done = env_buffer_done,
        .context_lost = env_context_lost,
        .trace = h->hooks.trace ? env_trace : NULL,
        .make_resident = h->hooks.make_resident ? env_make_resident : NULL,
        .release_resident = h->hooks.make_resident ? env_release_resident
                                                   : NULL,
        .make_portion = h->hooks.make_portion ? env_make_portion : NULL,
        .release_portion = h->hooks.make_portion ? env_release_portion
                                                 : NULL,
        .scene_oom = h->hooks.scene_oom ? env_scene_oom : NULL,
    };
    h->vs = vidsch_create(h->storage, h->storage_bytes, &h->dev, &h->env,
                          cfg);
    if (!h->vs) {
        abort();
    }
    if (cfg->hwsched) {
        sim_hws_connect(&h->hws, &vidsch_upcalls, h->vs);
    } else {
        sim_gpu_connect(h->gpu, &vidsch_upcalls, h->vs);
    }
}

struct vidsch_ctx *sim_host_ctx_create(struct sim_host *h, uint32_t id,
                                       unsigned engine,
                                       enum vidsch_priority prio,
                                       uint64_t save_addr, uint32_t device)
{
    struct vidsch_ctx *c = vidsch_ctx_create(h->vs, id, engine, prio,
                                             save_addr);

    if (c && !h->ignore_devices) {
        vidsch_ctx_set_device(c, device);
    }
    return c;
}

bool sim_host_run(struct sim_host *h, uint64_t limit)
{
    while (sim_step(&h->clk, limit)) {
    }
    return !sim_pending(&h->clk);
}
