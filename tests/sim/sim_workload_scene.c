/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_workload_scene.h"

#include <stdlib.h>
#include <string.h>

#include "sim_host.h"

#define US  1000ull
#define MS  1000000ull

uint32_t wls_tiles(const struct scene_workload *w, const struct wls_scene *s)
{
    uint32_t ts = w->gpu.tile_size;

    return ((s->width + ts - 1) / ts) * ((s->height + ts - 1) / ts);
}

uint32_t wls_prim_tiles(const struct scene_workload *w,
                           const struct wls_scene *s,
                           const struct wls_prim *p)
{
    uint32_t ts = w->gpu.tile_size, x1, y1;

    if (p->x >= s->width || p->y >= s->height || !p->w || !p->h) {
        return 0;
    }
    x1 = p->x + p->w < s->width ? p->x + p->w : s->width;
    y1 = p->y + p->h < s->height ? p->y + p->h : s->height;
    return ((x1 - 1) / ts - p->x / ts + 1) * ((y1 - 1) / ts - p->y / ts + 1);
}

static void gen_scene(struct scene_workload *w, uint64_t *rng,
                      struct wls_scene *s, bool small)
{
    uint32_t tiles, heap, need = 0, one;

    s->width = small ? (uint16_t)sim_rand_range(rng, 32, 96)
                     : (uint16_t)sim_rand_range(rng, 96, 256);
    s->height = small ? (uint16_t)sim_rand_range(rng, 32, 64)
                      : (uint16_t)sim_rand_range(rng, 64, 192);
    s->nprim = small ? (uint8_t)sim_rand_range(rng, 1, 6)
                     : (uint8_t)sim_rand_range(rng, 4, WLS_MAX_PRIM);
    for (unsigned i = 0; i < s->nprim; i++) {
        struct wls_prim *p = &s->prim[i];

        if (sim_rand_range(rng, 0, 5) == 0) {
            *p = (struct wls_prim){ 0, 0, s->width, s->height };  /* layer */
        } else {
            /* may reach past the target (clipped) or lie outside it */
            p->x = (uint16_t)sim_rand_range(rng, 0, s->width + 8);
            p->y = (uint16_t)sim_rand_range(rng, 0, s->height + 8);
            p->w = (uint16_t)sim_rand_range(rng, 1, s->width);
            p->h = (uint16_t)sim_rand_range(rng, 1, s->height);
        }
        if (wls_prim_tiles(w, s, p)) {
            need += (uint32_t)COPRO_PRIM_NEED(wls_prim_tiles(w, s, p));
        }
    }
    tiles = wls_tiles(w, s);
    heap = copro_scene_heap_start(tiles);
    /* the smallest a buffer may be holds any one primitive (vidmm_pb) */
    one = heap + (uint32_t)COPRO_PRIM_NEED(tiles);
    switch (sim_rand_range(rng, 0, 3)) {
    case 0:     /* generous */
        s->pb_size = heap + need > one ? heap + need : one;
        break;
    default:    /* tight: OOM stops */
        s->pb_size = one + 8 * (uint32_t)sim_rand_range(rng, 0, 64);
        break;
    }
    s->pb_reserved = sim_rand_range(rng, 0, 1)
                     ? s->pb_size
                     : s->pb_size + 4096 * (uint32_t)sim_rand_range(rng, 1, 3);
}

static int by_time(const void *a, const void *b)
{
    const struct wls_scene *x = a, *y = b;

    if (x->at != y->at) {
        return x->at < y->at ? -1 : 1;
    }
    return x->proc < y->proc ? -1 : x->proc > y->proc;
}

void wls_generate(struct scene_workload *w, uint64_t seed)
{
    static const unsigned gran[] = {
        COPRO_PREEMPT_COMMAND, COPRO_PREEMPT_MID_COMMAND,
        COPRO_PREEMPT_MID_COMMAND, COPRO_PREEMPT_DMA_BUFFER,
    };
    static const enum vidsch_policy pol[] = {
        VIDSCH_POLICY_PRIORITY, VIDSCH_POLICY_QUANTUM, VIDSCH_POLICY_FIFO,
    };
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 0x5ce7e;

    memset(w, 0, sizeof(*w));
    w->seed = seed;
    sim_gpu_config_default(&w->gpu);
    w->gpu.engines = 3;
    w->gpu.tiler = true;
    w->gpu.preemption = gran[sim_rand_range(&rng, 0, 3)];
    w->gpu.ring_entries = sim_rand_range(&rng, 0, 1) ? 8 : 16;
    w->gpu.upcall_ns = sim_rand_range(&rng, 0, 2) * 2 * US;
    w->gpu.tile_ns = sim_rand_range(&rng, 20, 150) * US;
    w->gpu.mem_size = 4 << 20;
    vidsch_config_default(&w->vs);
    w->vs.policy = pol[sim_rand_range(&rng, 0, 2)];
    w->prep_ns = 5 * US;
    w->prep_jitter_ns = 5 * US;

    w->nproc = (unsigned)sim_rand_range(&rng, 2, WLS_MAX_PROC - 1);
    for (unsigned p = 0; p < w->nproc; p++) {
        unsigned n = (unsigned)sim_rand_range(&rng, p ? 2 : 3, p ? 6 : 8);
        uint64_t period = sim_rand_range(&rng, 1, 4) * MS;
        uint64_t t = sim_rand_range(&rng, 0, 5) * MS;

        /* process 0: the compositor; the others below it */
        w->proc[p].prio = p ? (uint8_t)sim_rand_range(&rng,
                                                      VIDSCH_PRIO_BELOW_NORMAL,
                                                      VIDSCH_PRIO_ABOVE_NORMAL)
                            : VIDSCH_PRIO_HIGH;
        w->proc[p].budget = 4096 * (uint32_t)sim_rand_range(&rng, 0, 8);
        for (unsigned i = 0; i < n && w->nscene < WLS_MAX_SCENE; i++) {
            struct wls_scene *s = &w->scene[w->nscene++];

            s->proc = (uint8_t)p;
            s->at = p ? sim_rand_range(&rng, 0, 15) * MS +
                        sim_rand_range(&rng, 0, 999) * US
                      : t + i * period;
            gen_scene(w, &rng, s, p == 0);
        }
    }
    {
        /* drawn apart, so the rest of a seed's workload is as before: a
         * few processes (never the compositor) that lose on an OOM */
        uint64_t r2 = seed * 0xbf58476d1ce4e5b9ull + 0x10f7;

        for (unsigned p = 1; p < w->nproc; p++) {
            w->proc[p].no_partial = sim_rand_range(&r2, 0, 9) == 0;
        }
    }
    qsort(w->scene, w->nscene, sizeof(w->scene[0]), by_time);
    w->max_tile_ns = w->gpu.packet_ns + w->gpu.tile_ns +
                     (COPRO_SCENE_TILE_SIZE + 40ull * WLS_MAX_PRIM) *
                     1000000000ull / w->gpu.copy_bw + 1;
}

unsigned wls_emit_geometry(const struct scene_workload *w,
                           const struct wls_scene *s, uint32_t *dw,
                           uint64_t pb, uint64_t target)
{
    unsigned at;

    (void)w;
    at = sim_emit_set_target(dw, 0, 0, target, s->width * 4u, s->width,
                             s->height, COPRO_FMT_XRGB8888);
    at = sim_emit_scene_begin(dw, at, COPRO_SCENE_CLEAR, pb, s->pb_size,
                              0x00101010);
    for (unsigned i = 0; i < s->nprim; i++) {
        const struct wls_prim *p = &s->prim[i];

        at = sim_emit_bin_rect(dw, at, p->x, p->y, p->w, p->h, 0x10000 * i);
    }
    return sim_emit_scene_end(dw, at);
}

unsigned wls_emit_tiles(const struct scene_workload *w,
                        const struct wls_scene *s, uint32_t *dw, uint64_t pb,
                        uint64_t target, bool partial)
{
    unsigned at;

    at = sim_emit_set_target(dw, 0, 0, target, s->width * 4u, s->width,
                             s->height, COPRO_FMT_XRGB8888);
    return sim_emit_tile_render(dw, at, partial ? COPRO_TILE_PARTIAL : 0, pb,
                                wls_tiles(w, s));
}

void wls_describe(const struct scene_workload *w, FILE *f)
{
    static const char *const gran[] = {
        "none", "dma-buffer", "command", "mid-command",
    };

    fprintf(f, "# workload %llu (scenes): preempt=%s, ring %u, policy=%s, "
            "tile-ns %llu, upcall %lluns, %u processes, %u scenes\n",
            (unsigned long long)w->seed, gran[w->gpu.preemption],
            w->gpu.ring_entries, vidsch_policy_name(w->vs.policy),
            (unsigned long long)w->gpu.tile_ns,
            (unsigned long long)w->gpu.upcall_ns, w->nproc, w->nscene);
    for (unsigned p = 0; p < w->nproc; p++) {
        fprintf(f, "#   process %u: %s, budget %u%s\n", p,
                vidsch_priority_name(w->proc[p].prio), w->proc[p].budget,
                w->proc[p].no_partial ? ", no partial renders" : "");
    }
    for (unsigned i = 0; i < w->nscene; i++) {
        const struct wls_scene *s = &w->scene[i];

        fprintf(f, "#   scene %u: process %u at %lluus, %ux%u (%u tiles), "
                "%u prims, pb %u of %u\n", i, s->proc,
                (unsigned long long)(s->at / US), s->width, s->height,
                wls_tiles(w, s), s->nprim, s->pb_size, s->pb_reserved);
    }
}
