/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OS around vidsch, on the host: a struct vidsch_env over the
 * simulator's clock, so that the scheduler, the GPU model and the
 * harness all live in one discrete-event run.
 *
 *   now()          the virtual clock (the GPU's)
 *   set_timer()    an event at that time (re-arming replaces it)
 *   queue_work()   the worker thread: vidsch_worker() runs prep_ns (plus
 *                  a seeded jitter) after the worker is free, one
 *                  preparation per call, one at a time
 *   buffer_done, context_lost, trace: forwarded to the harness
 *   make_resident, release_resident (optional: vidmm's residency), and
 *   make_portion, release_portion (splitting): too
 */
#ifndef TESTS_SIM_SIM_HOST_H
#define TESTS_SIM_SIM_HOST_H

#include "sim_gpu.h"
#include "sim_hws.h"
#include "vidsch/vidsch.h"

struct sim_host_hooks {
    void (*buffer_done)(void *arg, uint64_t cookie, int status);
    void (*context_lost)(void *arg, uint32_t context);
    void (*trace)(void *arg, const struct vidsch_trace *ev);
    int (*make_resident)(void *arg, uint64_t cookie, struct ddi_dmabuf *buf,
                         struct ddi_alloc_desc *alloc, bool patched,
                         struct vidsch_residency *out);
    void (*release_resident)(void *arg, uint64_t cookie,
                             struct ddi_dmabuf *buf, unsigned engine,
                             uint64_t fence);
    /* splitting (optional, both or neither) */
    int (*make_portion)(void *arg, uint64_t cookie, struct ddi_dmabuf *buf,
                        struct ddi_alloc_desc *alloc, uint32_t first,
                        bool patched, struct vidsch_residency *out,
                        struct vidsch_portion *part);
    void (*release_portion)(void *arg, uint64_t cookie,
                            struct ddi_dmabuf *buf,
                            const struct vidsch_portion *part,
                            unsigned engine, uint64_t fence);
    /* (scenes) vidsch_env.scene_oom; NULL: none (every OOM fails) */
    int (*scene_oom)(void *arg, uint64_t cookie, uint32_t context,
                     uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait);
};

struct sim_host {
    struct sim_clock clk;
    struct sim_gpu *gpu;
    struct vidsch *vs;
    void *storage;
    uint64_t storage_bytes;
    struct ddi_device dev;
    struct vidsch_env env;
    struct sim_host_hooks hooks;
    void *hooks_arg;
    uint64_t timer_gen;
    uint64_t worker_free_at;
    uint64_t prep_ns, prep_jitter_ns;
    uint64_t rng;
    uint64_t worker_calls, timer_calls;
    /* hardware scheduling (vidsch_config.hwsched): the device's
     * scheduler over the GPU model; hws_cfg is what the next start uses
     * (its upcall_ns is the GPU config's) */
    struct sim_hws hws;
    struct sim_hws_config hws_cfg;
    /* (meta) the kernel tells vidsch nothing about devices: every
     * context is lost alone (reset by sim_host_start) */
    bool ignore_devices;
};

/* One host for many runs: sizes are the largest any run will use. */
void sim_host_init(struct sim_host *h, uint64_t mem_size,
                   unsigned max_contexts, unsigned max_buffers);
void sim_host_fini(struct sim_host *h);

/* A fresh run: GPU at power-on, clock at 0, a new scheduler. */
void sim_host_start(struct sim_host *h, const struct sim_gpu_config *gpu,
                    const struct vidsch_config *cfg, uint64_t prep_ns,
                    uint64_t prep_jitter_ns, uint64_t seed,
                    const struct sim_host_hooks *hooks, void *arg);

/* A context, as the kernel creates one: with the device it belongs to
 * (vidsch_ctx_set_device; 0: one of its own). NULL if vidsch refuses. */
struct vidsch_ctx *sim_host_ctx_create(struct sim_host *h, uint32_t id,
                                       unsigned engine,
                                       enum vidsch_priority prio,
                                       uint64_t save_addr, uint32_t device);

/* Runs events until none is left or the clock would pass limit; false if
 * events remain (the run did not drain). */
bool sim_host_run(struct sim_host *h, uint64_t limit);

/* splitmix64: the seeded generator every part of the sim uses */
static inline uint64_t sim_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static inline uint64_t sim_rand_range(uint64_t *state, uint64_t lo,
                                      uint64_t hi)
{
    return lo + (hi > lo ? sim_rand(state) % (hi - lo + 1) : 0);
}

#endif /* TESTS_SIM_SIM_HOST_H */
