/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scene checker (sim_check_scene.h): builds a scene workload's
 * processes, contexts and buffers, drives the run, follows every scene
 * through the GPU model's observer (loads, retirements, stops, bins,
 * tiles) and the OS's hooks, and judges the properties as they happen.
 */
#include "sim_check_scene.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim_host_scene.h"

#define US      1000ull
#define MS      1000000ull
#define PARTIAL_COOKIE  100000u     /* + scene index */
/* vidsch lets a running buffer it expects to end within VS_SWITCH_WAIT
 * (2) times the switch cost (2 switch times) end rather than preempt it
 * (vidsch_pick.c, "the switch cost"): waits allowed on top of a tile */
#define SWITCH_WAIT_ALLOWANCE   4
#define NO_SCENE        (-1)

struct sc_scene {
    const struct wls_scene *ws;
    unsigned proc, seq;         /* seq: the scene's number in its process */
    uint64_t pb, target;
    struct ddi_dmabuf geom, tile, partial;
    uint32_t tiles, bins_expected, prims_expected;
    /* progress */
    bool submitted, geom_retired, closed, rendered, tile_loaded;
    uint64_t submitted_at, ready_at;
    unsigned geom_done, tile_done;
    int geom_status, tile_status;
    uint32_t bins_binned, bins_rendered, prims_binned;
    bool in_pass, pass_partial;
    uint32_t next_tile;
    unsigned partials_asked, partials_done, ooms;
    bool partial_running;       /* a partial pass loaded, not retired */
    bool resume_after_partial;  /* the geometry's next load must find the
                                   partial retired and the fill reset */
    /* the tile-wait bound */
    bool waiting, exempt;
};

struct sc_proc {
    struct vidsch_ctx *geom, *tile, *tile2, *kern;
    uint64_t save_geom, save_tile, save_tile2, save_kern, target;
    volatile uint64_t sync;
    unsigned nscene;
    bool lost, may_lose;
    int last_rendered;          /* seq of its last rendered scene, -1 */
};

struct scene_checker {
    const struct scene_workload *w;
    const struct scene_check_opts *o;
    struct scene_check_result *r;
    struct sim_host *h;
    struct sim_scene_os os;
    struct sc_scene s[WLS_MAX_SCENE];
    struct sc_proc p[WLS_MAX_PROC];
    /* the tile engine's loaded buffer: its priority, -1 when idle */
    int e2_prio;
    uint32_t e2_ctx;
    /* a context's level raised by aging (boost) or lent through a sync
     * object (inheritance), by id; 0: its own */
    unsigned raised[4 * WLS_MAX_PROC + 2];
    uint64_t bound_ns;
    uint64_t stop_bound_ns;
    bool judge_bound;
};

const char *scene_mutation_name(enum scene_mutation m)
{
    static const char *const n[] = {
        "none", "no-wait", "two-tile-ctx", "not-between-tiles",
        "redo-tile", "skip-tile", "keep-bins", "partial-no-hold",
        "skip-prim", "coarse", "hws-oom-holds",
    };

    return m < SMUT_COUNT ? n[m] : "?";
}

struct scene_checker *scene_checker_new(void)
{
    struct scene_checker *k = calloc(1, sizeof(*k));

    if (!k) {
        abort();
    }
    return k;
}

void scene_checker_free(struct scene_checker *k)
{
    free(k);
}

static void fail(struct scene_checker *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(struct scene_checker *k, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!k->r->ok) {
        return;     /* the first violation is the one to read */
    }
    k->r->ok = false;
    n = snprintf(k->r->msg, sizeof(k->r->msg), "t=%" PRIu64 "us: ",
                 (uint64_t)(k->h->clk.now / US));
    va_start(ap, fmt);
    vsnprintf(k->r->msg + n, sizeof(k->r->msg) - (size_t)n, fmt, ap);
    va_end(ap);
}

static uint64_t now(const struct scene_checker *k)
{
    return k->h->clk.now;
}

static unsigned prio_of_scene(const struct scene_checker *k,
                              const struct sc_scene *s)
{
    unsigned prio = k->w->proc[s->proc].prio;

    /* SMUT_TWO_TILE_CTX: odd scenes go to a tile context one level up */
    if (k->o->mutation == SMUT_TWO_TILE_CTX && (s->seq & 1)) {
        prio++;
    }
    return prio;
}

/* What a descriptor is: the scene and which of its buffers. */
enum kind { K_NONE, K_GEOM, K_TILE, K_PARTIAL };

static int scene_of_dma(struct scene_checker *k, uint64_t dma, enum kind *kd)
{
    for (unsigned i = 0; i < k->w->nscene; i++) {
        struct sc_scene *s = &k->s[i];

        *kd = dma == s->geom.gpu_addr ? K_GEOM
              : dma == s->tile.gpu_addr ? K_TILE
              : dma == s->partial.gpu_addr ? K_PARTIAL : K_NONE;
        if (*kd != K_NONE) {
            return (int)i;
        }
    }
    return NO_SCENE;
}

static int scene_of_pb(struct scene_checker *k, uint64_t pb)
{
    for (unsigned i = 0; i < k->w->nscene; i++) {
        if (k->s[i].pb == pb) {
            return (int)i;
        }
    }
    return NO_SCENE;
}

/* ---- the tile-wait bound ---- */

/* A tile pass became ready (its geometry retired, it was submitted):
 * judged unless the tile engine runs something at its level or above. */
static void tile_ready(struct scene_checker *k, struct sc_scene *s)
{
    s->ready_at = now(k);
    s->waiting = true;
    s->exempt = k->e2_prio >= (int)prio_of_scene(k, s);
}

/* Something of level prio (context id ctx) was loaded on the tile engine:
 * waiting passes at or below its level, or the level it was raised to,
 * wait for it legitimately. */
static void tile_engine_loaded(struct scene_checker *k, unsigned prio,
                               uint32_t ctx, const struct sc_scene *self)
{
    if (ctx < sizeof(k->raised) / sizeof(k->raised[0]) &&
        k->raised[ctx] > prio) {
        prio = k->raised[ctx];
    }
    k->e2_prio = (int)prio;
    k->e2_ctx = ctx;
    for (unsigned i = 0; i < k->w->nscene; i++) {
        struct sc_scene *s = &k->s[i];

        if (s != self && s->waiting && prio_of_scene(k, s) <= prio) {
            s->exempt = true;
        }
    }
}

static void tile_started(struct scene_checker *k, struct sc_scene *s)
{
    uint64_t wait = now(k) - s->ready_at;
    uint64_t bound = k->bound_ns + SWITCH_WAIT_ALLOWANCE *
                     vidsch_engine_stats(k->h->vs, 2)->switch_ns;

    s->waiting = false;
    if (s->proc == 0 && k->judge_bound &&
        k->r->ncomp_wait < WLS_MAX_SCENE) {
        k->r->comp_wait_ns[k->r->ncomp_wait++] = wait;
    }
    if (!k->judge_bound || s->exempt) {
        return;
    }
    k->r->bounded_waits++;
    if (wait > k->r->max_wait_ns) {
        k->r->max_wait_ns = wait;
    }
    if (wait > bound) {
        fail(k, "scene %u (process %u, %s): its tile pass waited %" PRIu64
             " ns for lower-priority work on the tile engine (bound %"
             PRIu64 " ns: one tile, two switches, vidsch's allowance for "
             "a short buffer to end, the OS's reaction)",
             (unsigned)(s - k->s), s->proc,
             vidsch_priority_name(prio_of_scene(k, s)), wait, bound);
    }
}

/* ---- --verbose ---- */

static void on_trace(void *arg, const struct vidsch_trace *ev)
{
    static const char *const kind[] = {
        "elect", "prepared", "unstage", "submit", "retire", "preempt",
        "preempted", "reset", "device-reset", "lost", "boost", "unboost",
        "hold", "release", "prepare", "fight", "inherit",
    };
    struct scene_checker *k = arg;

    /* a level raised above a context's own lets it go before higher
     * ones legitimately (aging; a level lent through a sync object) */
    if (ev->context < sizeof(k->raised) / sizeof(k->raised[0])) {
        if (ev->kind == VIDSCH_TRACE_BOOST ||
            (ev->kind == VIDSCH_TRACE_INHERIT && ev->reason)) {
            k->raised[ev->context] = ev->level;
            if (ev->context == k->e2_ctx && k->e2_prio >= 0 &&
                (int)ev->level > k->e2_prio) {
                /* raised while it runs: who waits at or below waits for
                 * it legitimately */
                k->e2_prio = (int)ev->level;
                for (unsigned i = 0; i < k->w->nscene; i++) {
                    if (k->s[i].waiting &&
                        prio_of_scene(k, &k->s[i]) <= ev->level) {
                        k->s[i].exempt = true;
                    }
                }
            }
        } else if (ev->kind == VIDSCH_TRACE_UNBOOST ||
                   (ev->kind == VIDSCH_TRACE_INHERIT && !ev->reason)) {
            k->raised[ev->context] = 0;
        }
    }
    if (!k->o->verbose) {
        return;
    }
    fprintf(stderr, "%10" PRIu64 " e%u vidsch %-9s ctx %u cookie %" PRIu64
            " fence %" PRIu64 " level %u reason %u\n", ev->time, ev->engine,
            ev->kind < sizeof(kind) / sizeof(kind[0]) ? kind[ev->kind] : "?",
            ev->context, ev->cookie, ev->fence, ev->level, ev->reason);
}

static void say(struct scene_checker *k, unsigned engine, const char *what,
                const struct copro_submit_desc *d)
{
    enum kind kd = K_NONE;
    int i = d ? scene_of_dma(k, d->dma_addr, &kd) : NO_SCENE;
    static const char *const kn[] = { "?", "geometry", "tiles", "partial" };

    if (k->o->verbose) {
        fprintf(stderr, "%10" PRIu64 " e%u gpu    %-9s scene %d %s fence %"
                PRIu64 "%s\n", now(k), engine, what, i, kn[kd],
                d ? d->fence : 0,
                d && (d->flags & COPRO_SUBMIT_RESUME) ? " RESUME" : "");
    }
}

/* oom-wait (hws): no engine's current queue is one in OOM_WAIT. */
static void check_oom_wait(struct scene_checker *k, const char *when)
{
    const struct sim_hws *h = &k->h->hws;

    if (!k->o->hws) {
        return;
    }
    for (unsigned e = 0; e < k->h->gpu->cfg.engines; e++) {
        int q = h->eng[e].cur;

        if (q >= 0 && h->q[q].state == COPRO_HWQ_STATE_OOM_WAIT) {
            fail(k, "engine %u: queue %d in OOM_WAIT holds the engine (%s)",
                 e, q, when);
        }
    }
}

/* ---- the GPU model's observer ---- */

static void obs_loaded(void *arg, unsigned engine,
                       const struct copro_submit_desc *d)
{
    struct scene_checker *k = arg;
    enum kind kd;
    int i = scene_of_dma(k, d->dma_addr, &kd);
    struct sc_scene *s;

    say(k, engine, "load", d);
    check_oom_wait(k, "at a load");
    if (i == NO_SCENE) {
        fail(k, "engine %u loaded an unknown buffer %#" PRIx64, engine,
             d->dma_addr);
        return;
    }
    s = &k->s[i];
    switch (kd) {
    case K_GEOM:
        if (s->resume_after_partial && (d->flags & COPRO_SUBMIT_RESUME)) {
            const struct copro_scene *h = sim_gpu_ptr(k->h->gpu, s->pb);

            if (s->partials_done < s->partials_asked || s->partial_running) {
                fail(k, "scene %d: its geometry resumed before the partial "
                     "pass retired (%u of %u done)", i, s->partials_done,
                     s->partials_asked);
            } else if (h->used != h->heap_start) {
                fail(k, "scene %d: its geometry resumed after a partial "
                     "render with the fill at %u, not heap_start %u", i,
                     h->used, h->heap_start);
            }
            s->resume_after_partial = false;
        }
        break;
    case K_TILE:
        if (!s->geom_retired) {
            fail(k, "scene %d: its tile pass started before its geometry "
                 "retired", i);
        }
        if (s->partial_running || s->partials_done < s->partials_asked) {
            fail(k, "scene %d: its final pass started before its partial "
                 "pass retired", i);
        }
        tile_engine_loaded(k, prio_of_scene(k, s), d->context, s);
        if (s->waiting) {
            tile_started(k, s);
        }
        s->tile_loaded = true;
        break;
    case K_PARTIAL:
        s->partial_running = true;
        tile_engine_loaded(k, k->w->proc[s->proc].prio, d->context, NULL);
        break;
    default:
        break;
    }
}

static void obs_retired(void *arg, unsigned engine,
                        const struct copro_submit_desc *d)
{
    struct scene_checker *k = arg;
    enum kind kd;
    int i = scene_of_dma(k, d->dma_addr, &kd);
    struct sc_scene *s;

    say(k, engine, "retire", d);
    if (engine == 2) {
        k->e2_prio = -1;
    }
    if (i == NO_SCENE) {
        return;
    }
    s = &k->s[i];
    switch (kd) {
    case K_GEOM:
        s->geom_retired = true;
        if (!s->closed) {
            fail(k, "scene %d: its geometry retired without SCENE_END", i);
        }
        if (s->submitted && !s->tile_loaded) {
            tile_ready(k, s);
        }
        break;
    case K_PARTIAL:
        s->partial_running = false;
        s->partials_done++;
        break;
    default:
        break;
    }
}

static void obs_stopped(void *arg, unsigned engine, bool reset,
                        const struct copro_submit_desc *cut,
                        const struct copro_submit_desc *dropped,
                        unsigned ndropped)
{
    struct scene_checker *k = arg;

    (void)dropped;
    say(k, engine, ndropped ? "stop+drop" : "stop", cut);
    if (reset) {
        fail(k, "engine %u was reset", engine);
    }
    if (engine == 2) {
        k->e2_prio = -1;
    }
    if (cut) {
        enum kind kd;
        int i = scene_of_dma(k, cut->dma_addr, &kd);

        if (i != NO_SCENE && kd == K_PARTIAL) {
            k->s[i].partial_running = false;   /* preempted: not retired */
        }
        if (i != NO_SCENE && engine == 2 && k->s[i].in_pass && !reset) {
            /* the device's part: request to stop within one tile, a
             * save, and a restore the request may have found under way */
            uint64_t took = now(k) - k->h->gpu->engine[2].preempt_req_time;

            k->r->preempted_passes++;
            k->r->tile_stops++;
            if (took > k->r->max_stop_ns) {
                k->r->max_stop_ns = took;
            }
            if (took > k->stop_bound_ns) {
                fail(k, "scene %d: its tile pass stopped %" PRIu64 " ns "
                     "after the preemption request (bound %" PRIu64 " ns: "
                     "one tile, a save and a restore)", i, took,
                     k->stop_bound_ns);
            }
        }
    }
}

static void obs_faulted(void *arg, unsigned engine,
                        const struct copro_submit_desc *d, uint32_t kind)
{
    struct scene_checker *k = arg;

    fail(k, "engine %u faulted (kind %u, tiler cause %u) on %#" PRIx64,
         engine, kind, k->h->gpu->engine[engine].tiler_cause,
         d ? d->dma_addr : 0);
}

static void obs_binned(void *arg, unsigned engine,
                       const struct copro_submit_desc *d, uint64_t pb,
                       uint32_t prim, uint32_t tiles)
{
    struct scene_checker *k = arg;
    int i = scene_of_pb(k, pb);

    (void)engine;
    (void)prim;
    if (i == NO_SCENE || d->dma_addr != k->s[i].geom.gpu_addr) {
        fail(k, "a primitive binned into %#" PRIx64 " by %#" PRIx64, pb,
             d->dma_addr);
        return;
    }
    k->s[i].bins_binned += tiles;
    k->s[i].prims_binned++;
}

static void obs_tiler_oom(void *arg, unsigned engine,
                          const struct copro_submit_desc *d, uint64_t pb,
                          uint32_t need)
{
    struct scene_checker *k = arg;
    int i = scene_of_pb(k, pb);

    (void)engine;
    (void)d;
    (void)need;
    say(k, engine, "oom", d);
    if (i != NO_SCENE) {
        k->s[i].ooms++;
        k->r->ooms++;
    }
}

static void obs_scene_end(void *arg, unsigned engine,
                          const struct copro_submit_desc *d, uint64_t pb)
{
    struct scene_checker *k = arg;
    int i = scene_of_pb(k, pb);

    (void)engine;
    (void)d;
    if (i != NO_SCENE) {
        k->s[i].closed = true;
    }
}

static void pass_ends(struct scene_checker *k, struct sc_scene *s, int i)
{
    struct sc_proc *p = &k->p[s->proc];

    s->in_pass = false;
    if (s->pass_partial) {
        return;
    }
    s->rendered = true;
    k->r->scenes++;
    if (s->bins_rendered != s->bins_expected ||
        s->bins_binned != s->bins_expected ||
        s->prims_binned != s->prims_expected) {
        fail(k, "scene %d: %u primitives binned (%u expected), %u bin "
             "entries binned and %u rendered over %u partial pass(es), %u "
             "expected", i, s->prims_binned, s->prims_expected,
             s->bins_binned, s->bins_rendered, s->partials_done,
             s->bins_expected);
    }
    p->last_rendered = (int)s->seq;
}

static void obs_tile(void *arg, unsigned engine,
                     const struct copro_submit_desc *d, uint64_t pb,
                     uint32_t tile, uint32_t nprims, bool partial, bool last)
{
    struct scene_checker *k = arg;
    int i = scene_of_pb(k, pb);
    struct sc_scene *s;

    (void)engine;
    (void)d;
    if (i == NO_SCENE) {
        fail(k, "a tile of an unknown scene %#" PRIx64, pb);
        return;
    }
    s = &k->s[i];
    k->r->tiles++;
    if (k->o->verbose) {
        fprintf(stderr, "%10" PRIu64 " e%u gpu    tile      scene %d %s "
                "tile %u of %u, %u in its bin\n", now(k), engine, i,
                partial ? "partial" : "final", tile, s->tiles, nprims);
    }
    if (!s->in_pass) {
        /* a pass begins */
        if (tile != 0) {
            fail(k, "scene %d: a %s pass began at tile %u", i,
                 partial ? "partial" : "final", tile);
        }
        if (!partial && k->p[s->proc].last_rendered + 1 != (int)s->seq) {
            fail(k, "scene %d (process %u, its scene %u) began rendering "
                 "before its scene %d had been rendered", i, s->proc,
                 s->seq, k->p[s->proc].last_rendered + 1);
        }
        s->in_pass = true;
        s->pass_partial = partial;
        s->next_tile = 0;
    }
    if (partial != s->pass_partial) {
        fail(k, "scene %d: a %s tile inside a %s pass", i,
             partial ? "partial" : "final",
             s->pass_partial ? "partial" : "final");
    }
    if (tile != s->next_tile) {
        fail(k, "scene %d: tile %u rendered where tile %u was next (%s)",
             i, tile, s->next_tile,
             tile < s->next_tile ? "redone" : "skipped");
    }
    s->next_tile = tile + 1;
    s->bins_rendered += nprims;
    if (last != (tile + 1 == s->tiles)) {
        fail(k, "scene %d: tile %u of %u called %s", i, tile, s->tiles,
             last ? "last" : "not last");
    }
    if (last) {
        pass_ends(k, s, i);
    }
}

static const struct sim_gpu_observer observer = {
    .loaded = obs_loaded, .retired = obs_retired, .stopped = obs_stopped,
    .faulted = obs_faulted, .binned = obs_binned, .tiler_oom = obs_tiler_oom,
    .scene_end = obs_scene_end, .tile = obs_tile,
};

/* ---- the OS's hooks ---- */

static void on_done(void *arg, uint64_t cookie, int status)
{
    struct scene_checker *k = arg;
    struct sc_scene *s;

    if (sim_scene_os_buffer_done(&k->os, cookie, status)) {
        if (status != DDI_OK) {
            fail(k, "partial pass %" PRIu64 " reported %d", cookie, status);
        }
        return;
    }
    if (cookie / 2 >= k->w->nscene) {
        fail(k, "done: unknown cookie %" PRIu64, cookie);
        return;
    }
    s = &k->s[cookie / 2];
    if (cookie & 1) {
        s->tile_done++;
        s->tile_status = status;
    } else {
        s->geom_done++;
        s->geom_status = status;
    }
}

static void on_lost(void *arg, uint32_t id)
{
    struct scene_checker *k = arg;

    for (unsigned p = 0; p < k->w->nproc; p++) {
        const struct sc_proc *c = &k->p[p];

        if (vidsch_ctx_id(c->geom) == id || vidsch_ctx_id(c->tile) == id ||
            vidsch_ctx_id(c->tile2) == id || vidsch_ctx_id(c->kern) == id) {
            /* (final_checks: only a process one of whose OOMs failed) */
            k->p[p].lost = true;
            return;
        }
    }
    fail(k, "context %u lost (not a scene process's)", id);
}

static int on_oom(void *arg, uint64_t cookie, uint32_t context,
                  uint64_t save_addr, uint32_t need,
                  struct vidsch_oom_wait *wait)
{
    struct scene_checker *k = arg;
    struct sc_scene *s;
    int answer;
    unsigned partials = k->os.partials;

    if (cookie & 1 || cookie / 2 >= k->w->nscene) {
        fail(k, "OOM of cookie %" PRIu64 ", not a geometry buffer", cookie);
        return VIDSCH_OOM_FAIL;
    }
    s = &k->s[cookie / 2];
    check_oom_wait(k, "the OS hears of the stop");
    if (save_addr != k->p[s->proc].save_geom) {
        fail(k, "OOM of scene %u with save area %#" PRIx64 ", not its "
             "context's", (unsigned)(cookie / 2), save_addr);
    }
    answer = sim_scene_os_oom(&k->os, cookie, context, save_addr, need,
                              wait);
    if (k->os.partials != partials) {
        s->partials_asked++;
        s->resume_after_partial = true;
    }
    if (answer == VIDSCH_OOM_FAIL) {
        k->p[s->proc].may_lose = true;
    }
    return answer;
}

/* ---- building and driving the run ---- */

static void submit_cb(void *obj, uint64_t i)
{
    struct scene_checker *k = obj;
    struct sc_scene *s = &k->s[i];
    struct sc_proc *p = &k->p[s->proc];
    struct vidsch_ctx *tc = k->o->mutation == SMUT_TWO_TILE_CTX &&
                            (s->seq & 1) ? p->tile2 : p->tile;
    struct vidsch *vs = k->h->vs;
    int rc;

    s->submitted = true;
    s->submitted_at = now(k);
    rc = vidsch_submit(vs, p->geom, &s->geom, NULL, 2 * i);
    if (rc == DDI_OK) {
        rc = vidsch_signal(vs, p->geom, &p->sync, s->seq + 1);
    }
    if (rc == DDI_OK && k->o->mutation != SMUT_NO_WAIT) {
        rc = vidsch_wait(vs, tc, &p->sync, s->seq + 1);
    }
    if (rc == DDI_OK) {
        rc = vidsch_submit(vs, tc, &s->tile, NULL, 2 * i + 1);
    }
    if (rc == DDI_ELOST && p->lost) {
        s->geom_done = s->tile_done = 1;
        s->geom_status = s->tile_status = DDI_ELOST;
        return;
    }
    if (rc != DDI_OK) {
        fail(k, "scene %u: submission refused (%d)", (unsigned)i, rc);
    }
}

static struct ddi_dmabuf make_buf(struct sim_host *h, uint32_t cap,
                                  unsigned engine)
{
    uint64_t at = sim_gpu_alloc(h->gpu, cap, 64);

    if (at == UINT64_MAX) {
        abort();
    }
    return (struct ddi_dmabuf){
        .dw = sim_gpu_ptr(h->gpu, at), .gpu_addr = at, .cap_bytes = cap,
        .engine = engine,
    };
}

static uint64_t alloc_or_die(struct sim_host *h, uint64_t bytes)
{
    uint64_t at = sim_gpu_alloc(h->gpu, bytes, 64);

    if (at == UINT64_MAX) {
        abort();
    }
    return at;
}

static void build(struct scene_checker *k)
{
    const struct scene_workload *w = k->w;
    struct sim_host *h = k->h;
    unsigned id = 1;

    for (unsigned p = 0; p < w->nproc; p++) {
        struct sc_proc *c = &k->p[p];
        enum vidsch_priority prio = (enum vidsch_priority)w->proc[p].prio;

        memset(c, 0, sizeof(*c));
        c->last_rendered = -1;
        c->save_geom = alloc_or_die(h, COPRO_SAVE_SIZE);
        c->save_tile = alloc_or_die(h, COPRO_SAVE_SIZE);
        c->save_tile2 = alloc_or_die(h, COPRO_SAVE_SIZE);
        c->save_kern = alloc_or_die(h, COPRO_SAVE_SIZE);
        c->target = alloc_or_die(h, 256 * 192 * 4);
        c->geom = vidsch_ctx_create(h->vs, id++, 0, prio, c->save_geom);
        c->tile = vidsch_ctx_create(h->vs, id++, 2, prio, c->save_tile);
        c->tile2 = vidsch_ctx_create(h->vs, id++, 2, prio + 1, c->save_tile2);
        c->kern = vidsch_ctx_create(h->vs, id++, 2, prio, c->save_kern);
        if (!c->geom || !c->tile || !c->tile2 || !c->kern) {
            abort();
        }
        /* one device per process, as the kernel's: an OOM that fails
         * loses the process's contexts together (its tile passes are
         * held on its geometry, never released by the loss) */
        vidsch_ctx_set_device(c->geom, p + 1);
        vidsch_ctx_set_device(c->tile, p + 1);
        vidsch_ctx_set_device(c->tile2, p + 1);
        vidsch_ctx_set_device(c->kern, p + 1);
        sim_scene_os_add_proc(&k->os, p, w->proc[p].no_partial ? NULL
                              : c->kern, w->proc[p].budget);
    }
    for (unsigned i = 0; i < w->nscene; i++) {
        const struct wls_scene *ws = &w->scene[i];
        struct sc_scene *s = &k->s[i];
        struct sc_proc *c = &k->p[ws->proc];

        memset(s, 0, sizeof(*s));
        s->ws = ws;
        s->proc = ws->proc;
        s->seq = c->nscene++;
        s->tiles = wls_tiles(w, ws);
        s->pb = alloc_or_die(h, ws->pb_reserved);
        s->target = c->target;
        for (unsigned j = 0; j < ws->nprim; j++) {
            uint32_t t = wls_prim_tiles(w, ws, &ws->prim[j]);

            s->bins_expected += t;
            s->prims_expected += t != 0;
        }
        s->geom = make_buf(h, 1024, 0);
        s->geom.len_bytes = 4 * wls_emit_geometry(w, ws, s->geom.dw, s->pb,
                                                  s->target);
        s->tile = make_buf(h, 64, 2);
        s->tile.len_bytes = 4 * wls_emit_tiles(w, ws, s->tile.dw, s->pb,
                                               s->target, false);
        s->partial = make_buf(h, 64, 2);
        s->partial.len_bytes = 4 * wls_emit_tiles(w, ws, s->partial.dw,
                                                  s->pb, s->target, true);
        if (sim_scene_os_add_scene(&k->os, 2 * i, ws->proc, s->pb, s->tiles,
                                   ws->pb_size, ws->pb_reserved, &s->partial,
                                   PARTIAL_COOKIE + i) != DDI_OK) {
            abort();
        }
        sim_at(&h->clk, ws->at, submit_cb, k, i);
    }
}

static void final_checks(struct scene_checker *k, bool drained)
{
    const struct scene_workload *w = k->w;

    if (!drained || !vidsch_idle(k->h->vs)) {
        fail(k, "the run did not drain");
    }
    for (unsigned p = 0; p < w->nproc; p++) {
        if (k->p[p].lost && !k->p[p].may_lose) {
            fail(k, "process %u lost, but none of its OOMs failed", p);
        }
        k->r->lost += k->p[p].lost;
    }
    for (unsigned i = 0; i < w->nscene; i++) {
        struct sc_scene *s = &k->s[i];
        bool lost = k->p[s->proc].lost;
        const struct copro_scene *hdr = sim_gpu_ptr(k->h->gpu, s->pb);

        if (s->geom_done != 1 || s->tile_done != 1) {
            fail(k, "scene %u: geometry reported %u times, tile pass %u",
                 i, s->geom_done, s->tile_done);
            continue;
        }
        if (lost) {
            continue;
        }
        if (s->geom_status != DDI_OK || s->tile_status != DDI_OK) {
            fail(k, "scene %u of process %u (not lost): status %d, %d", i,
                 s->proc, s->geom_status, s->tile_status);
        }
        if (!s->rendered || hdr->state != COPRO_SCENE_RENDERED) {
            fail(k, "scene %u: not rendered (state %u)", i, hdr->state);
        }
        if (hdr->prims != s->prims_expected) {
            fail(k, "scene %u: the header counts %u primitives, %u binned",
                 i, hdr->prims, s->prims_expected);
        }
        if (hdr->partials != s->partials_done) {
            fail(k, "scene %u: %u partial renders in the header, %u seen",
                 i, hdr->partials, s->partials_done);
        }
    }
}

bool scene_checker_run(struct scene_checker *k, struct sim_host *h,
                       const struct scene_workload *w,
                       const struct scene_check_opts *o,
                       struct scene_check_result *r)
{
    struct sim_gpu_config g = w->gpu;
    struct vidsch_config cfg = w->vs;
    struct sim_host_hooks hooks = {
        .buffer_done = on_done, .context_lost = on_lost,
        .scene_oom = on_oom, .trace = on_trace,
    };
    uint64_t cs;
    bool drained;

    memset(r, 0, sizeof(*r));
    r->ok = true;
    k->w = w;
    k->o = o;
    k->r = r;
    k->h = h;
    k->e2_prio = -1;
    memset(k->raised, 0, sizeof(k->raised));
    if (o->mutation == SMUT_NOT_BETWEEN_TILES) {
        g.preemption = COPRO_PREEMPT_DMA_BUFFER;
    }
    if (o->hws) {
        /* every context a hardware queue; the policies of hardware mode
         * (as sim-props --hws) */
        cfg.hwsched = true;
        cfg.policy = (w->seed & 1) ? VIDSCH_POLICY_JOBLIST
                                   : VIDSCH_POLICY_QUANTUM;
        sim_hws_config_default(&h->hws_cfg);
        h->hws_cfg.oom_holds_engine = o->mutation == SMUT_HWS_OOM_HOLDS;
    }
    cfg.max_contexts = 4 * w->nproc;
    cfg.max_buffers = 4 * w->nscene + 16;
    sim_host_start(h, &g, &cfg, w->prep_ns, w->prep_jitter_ns, w->seed,
                   &hooks, k);
    sim_gpu_observe(h->gpu, &observer, k);
    h->gpu->tiler_bug = o->mutation == SMUT_REDO_TILE ? SIM_TILER_REDO_TILE
                        : o->mutation == SMUT_SKIP_TILE ? SIM_TILER_SKIP_TILE
                        : o->mutation == SMUT_KEEP_BINS ? SIM_TILER_KEEP_BINS
                        : o->mutation == SMUT_SKIP_PRIM ? SIM_TILER_SKIP_PRIM
                        : o->mutation == SMUT_COARSE ? SIM_TILER_COARSE
                        : SIM_TILER_OK;
    sim_scene_os_init(&k->os, h);
    k->os.no_hold = o->mutation == SMUT_PARTIAL_NO_HOLD;
    /* the bound: one tile, a save and a restore of context state, and the
     * OS's reaction (two upcalls, the worker's preparations, packet-ns of
     * the first packets) */
    cs = w->gpu.ctx_state_size * 1000000000ull / w->gpu.copy_bw + 1;
    k->bound_ns = w->max_tile_ns + 2 * cs + 2 * w->gpu.upcall_ns +
                  4 * (w->prep_ns + w->prep_jitter_ns) +
                  4 * w->gpu.packet_ns;
    /* one tile and its save, after a restore under way */
    k->stop_bound_ns = w->max_tile_ns + 2 * cs;
    k->judge_bound = !o->hws && w->vs.policy != VIDSCH_POLICY_FIFO &&
                     w->gpu.preemption >= COPRO_PREEMPT_COMMAND;
    build(k);
    drained = sim_host_run(h, o->limit_ns ? o->limit_ns : 10000 * MS);
    final_checks(k, drained);
    r->end_ns = h->clk.now;
    r->grows = k->os.grows;
    r->partials = k->os.partials;
    if (o->hws) {
        r->oom_waits = (unsigned)h->hws.stats.ooms;
        r->ran_while_waiting = (unsigned)h->hws.stats.ran_while_waiting;
        r->oom_failed = (unsigned)h->hws.stats.oom_failed;
        if (h->hws.stats.oom_refused) {
            fail(k, "%" PRIu64 " OOM answers refused (to a queue not in "
                 "OOM_WAIT)", h->hws.stats.oom_refused);
        }
    }
    for (unsigned p = 0; p < w->nproc; p++) {
        vidsch_ctx_destroy(h->vs, k->p[p].geom);
        vidsch_ctx_destroy(h->vs, k->p[p].tile);
        vidsch_ctx_destroy(h->vs, k->p[p].tile2);
        vidsch_ctx_destroy(h->vs, k->p[p].kern);
    }
    return r->ok;
}
