/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tiled: a tiled resource remapped in line with rendering, the WDDM
 * tiled-resource example (UpdateTileMappings -> D3DKMTUpdateGpuVirtualAddress
 * -> page-table updates in a paging companion context, synchronised by
 * monitored fences).
 *
 * The render context has its own GPU address space; the surface's VA
 * range comes from a vidmm VA space (vidmm_gpuva_map). It is four 64 KiB
 * tiles of 16 pages of 4 KiB each; at first they map onto the "old" VRAM
 * tile pages in order. On the render engine:
 *
 *   draw #42: SET_TARGET(surface VA) + RECTs + FENCE(render fence = 42)
 *   draw #43: WAIT(paging fence >= 43) + SET_TARGET + RECTs +
 *             FENCE(render fence = 43)
 *
 * and in between, on the copy engine, the paging companion context (no
 * address space of its own: it addresses page tables physically). Its
 * buffer is not built here: the scenario asks vidmm's GPU VA update
 * service (vidmm/vidmm_tiles.h: one MAP per tile, wait for render fence
 * 42, signal paging fence 43), and the driver's encoder
 * (copro_gpuva_update_emit) makes the update into
 *
 *   WAIT(render fence >= 42) + COPY_PTE(staged entries -> live leaf
 *   entries; the 64 entries are consecutive, so one packet) +
 *   FENCE(paging fence = 43)
 *
 * after which the scenario appends a TIMESTAMP (when the update was done).
 *
 * The new mapping sends the tiles to the "new" tile pages in a shuffled
 * order. Everything is submitted up front (the companion first, so it
 * really blocks); the fences alone order the work. The CPU then checks the
 * images byte for byte: the old tile pages hold #42's image and nothing of
 * #43's, the new pages hold #43's image (tile by tile, in the new order)
 * and nothing of #42's. #42's translations were cached by the render
 * engine when #43 started; only COPY_PTE's flush makes #43 see the new
 * tiles, so a missing flush shows as #43's pixels in the old pages.
 *
 * Command line: irq=auto|msix|msi|intx.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "ddi/ddi.h"
#include "kmd/copro_cp.h"
#include "kmd/copro_pte_update.h"
#include "kmd/copro_vm.h"
#include "lib/console.h"
#include "lib/wait.h"
#include "lib/string.h"
#include "scenarios/common.h"
#include "vidmm/vidmm_tiles.h"

#define RING_ENTRIES        8
#define PG                  4096u
#define TILE                ((uint32_t)COPRO_PAGE_64K)
#define TILES               4u
#define SURF_W              256u
#define SURF_H              256u
#define SURF_PITCH          (SURF_W * 4)            /* XRGB8888 */
#define SURF_BYTES          (SURF_PITCH * SURF_H)   /* = TILES * TILE */
#define ROWS_PER_TILE       (TILE / SURF_PITCH)
#define PAGES_PER_TILE      (TILE / PG)
#define SURF_PAGES          (TILES * PAGES_PER_TILE)

#define CTX_RENDER          1       /* own address space */
#define CTX_PAGING          2       /* physical: the paging companion */

/* The render context's VA layout. */
#define VA_BUF              0x00100000ull   /* its DMA buffers, 4 KiB pages */
#define VA_SYNC             0x00200000ull   /* fences and timestamps */
#define VA_SPACE            0x40000000ull   /* vidmm's VA space: the tiled */
#define VA_SPACE_BYTES      0x40000000ull   /* surface is its first range */
#define VA_SURF             VA_SPACE

/* Slots in the sync page (8 bytes each). */
enum { SYNC_RENDER_FENCE, SYNC_PAGING_FENCE, SYNC_TS_42, SYNC_TS_PAGING,
       SYNC_TS_43 };

#define DRAW_42             42
#define DRAW_43             43
#define CLEAR_OLD           0xff000000u
#define CLEAR_NEW           0xff101010u
#define RED                 0xffe02020u
#define ORANGE              0xfff08000u
#define BLUE                0xff2040e0u
#define CYAN                0xff20e0e0u

/* New mapping: surface tile i -> new tile page new_order[i]. */
static const unsigned new_order[TILES] = { 2, 0, 3, 1 };

struct rect {
    uint32_t x, y, w, h, colour;
};

/* Both draws cross tile boundaries (a tile is 64 rows). */
static const struct rect rects_42[] = {
    { 10, 10, 100, 60, RED },
    { 120, 50, 130, 150, ORANGE },
};
static const struct rect rects_43[] = {
    { 0, 0, SURF_W, 20, BLUE },
    { 40, 100, 80, 140, CYAN },
};

/* Expected contents of the old and new tile pages, as VRAM holds them. */
static uint8_t want_old[TILES * TILE], want_new[TILES * TILE];

struct tiled_metrics {
    uint64_t ts_42, ts_paging, ts_43;
    uint64_t render_fence, paging_fence;
    uint64_t busy_ns[2];
    uint64_t tlb_misses0;
};

static void put_pixel(uint8_t *row, uint32_t x, uint32_t colour)
{
    for (unsigned k = 0; k < 4; k++) {
        row[x * 4 + k] = (uint8_t)(colour >> (8 * k));
    }
}

/*
 * Renders clear + rects into the tile pages of image, where surface tile
 * t lives at page tile_page[t]: the image as the GPU should leave it.
 */
static void model_image(uint8_t *image, const unsigned *tile_page,
                        uint32_t clear, const struct rect *rects,
                        unsigned n)
{
    for (uint32_t y = 0; y < SURF_H; y++) {
        uint8_t *row = image + tile_page[y / ROWS_PER_TILE] * TILE +
                       (y % ROWS_PER_TILE) * SURF_PITCH;

        for (uint32_t x = 0; x < SURF_W; x++) {
            uint32_t c = clear;

            for (unsigned k = 0; k < n; k++) {
                const struct rect *r = &rects[k];
                if (x >= r->x && x < r->x + r->w && y >= r->y &&
                    y < r->y + r->h) {
                    c = r->colour;
                }
            }
            put_pixel(row, x, c);
        }
    }
}

static void emit_draw(struct copro_dmabuf *b, const struct rect *rects,
                      unsigned n)
{
    const struct copro_surface s = {
        .addr = VA_SURF, .pitch = SURF_PITCH, .width = SURF_W,
        .height = SURF_H, .format = COPRO_FMT_XRGB8888,
    };

    /* Bound targets persist, but a draw must not rely on state another
     * submission left (the seeds' rule after a split point). */
    copro_emit_set_target(b, 0, &s);
    for (unsigned k = 0; k < n; k++) {
        copro_emit_rect(b, 0, rects[k].x, rects[k].y, rects[k].w,
                        rects[k].h, rects[k].colour);
    }
}

struct tiled_env {
    struct report *r;
    struct copro_cp *cp;
    struct copro_vm vm;
    struct copro_as as;
    struct vidmm_gpuva_space space;     /* the process's VA space */
    struct vidmm_block va_blocks[2];
    uint64_t bufs;          /* 4 DMA-buffer pages, VRAM */
    uint64_t sync;          /* sync page, VRAM */
    uint64_t old_tiles, new_tiles, stage;
    volatile uint8_t *old_cpu, *new_cpu;
};

/*
 * The surface's VA comes from vidmm's space for the process, so the
 * update service can check every op against it; its pages are 4 KiB,
 * the grain of vidmm's page-table updates (a tile is 16 entries).
 */
static bool map_surface(struct tiled_env *env)
{
    uint64_t va = 0;
    const char *err = NULL;
    int st;

    st = vidmm_gpuva_init(&env->space, CTX_RENDER, 1, VA_SPACE,
                          VA_SPACE_BYTES, env->va_blocks, 2);
    if (st == DDI_OK) {
        st = vidmm_gpuva_map(&env->space, TILES * TILE, TILE, &va);
    }
    if (st == DDI_OK && va == VA_SURF) {
        err = copro_as_map(&env->as, va, env->old_tiles, TILES * TILE,
                           COPRO_PTE_WRITABLE, PG);
    }
    return report(env->r, st == DDI_OK && va == VA_SURF && err == NULL,
                  "vidmm VA space: surface at %#lx (%s), %u 64 KiB tiles "
                  "of 4 KiB pages on the old tile pages%s%s", va,
                  ddi_status_name(st), TILES, err ? ": " : "",
                  err ? err : "");
}

static bool setup(struct tiled_env *env)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    const char *err;

    err = copro_vm_init(&env->vm, cp, 16, 32);
    if (!report(r, err == NULL, "context table (16 entries) and page-table "
                "pool%s%s", err ? ": " : "", err ? err : "")) {
        return false;
    }
    env->old_cpu = copro_cp_alloc(cp, TILES * TILE, TILE, &env->old_tiles);
    env->new_cpu = copro_cp_alloc(cp, TILES * TILE, TILE, &env->new_tiles);
    if (!report(r, env->old_cpu && env->new_cpu &&
                copro_cp_alloc(cp, 4 * PG, PG, &env->bufs) &&
                copro_cp_alloc(cp, PG, PG, &env->sync) &&
                copro_cp_alloc(cp, SURF_PAGES * 8, 8, &env->stage),
                "VRAM: old tiles at %#lx, new tiles at %#lx",
                env->old_tiles, env->new_tiles)) {
        return false;
    }
    err = copro_as_create(&env->vm, &env->as, CTX_RENDER);
    if (!err) {
        err = copro_as_map(&env->as, VA_BUF, env->bufs, 4 * PG, 0, PG);
    }
    if (!err) {
        err = copro_as_map(&env->as, VA_SYNC, env->sync, PG,
                           COPRO_PTE_WRITABLE, PG);
    }
    if (!report(r, err == NULL, "context %u address space: root %#lx, "
                "buffers, sync page%s%s", CTX_RENDER, env->as.root,
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    return map_surface(env);
}

/*
 * The companion's buffer, from vidmm's GPU VA update service: one MAP per
 * tile onto its new tile page, after render fence 42, signalling paging
 * fence 43. The service checks the ops against the VA space; the driver's
 * encoder stages the entries and emits WAIT + COPY_PTE + FENCE.
 */
static bool build_companion(struct tiled_env *env, struct copro_dmabuf *out)
{
    static struct vidmm_tiles_update up;
    struct vidmm_tile_op ops[TILES];
    const struct vidmm_monitored_fence wait = {
        env->sync + SYNC_RENDER_FENCE * 8, DRAW_42,
    };
    const struct vidmm_monitored_fence signal = {
        env->sync + SYNC_PAGING_FENCE * 8, DRAW_43,
    };
    struct copro_pte_stage stage = {
        .vram = env->stage, .entries = SURF_PAGES,
    };
    const char *why = NULL;
    int st;

    for (unsigned i = 0; i < TILES; i++) {
        ops[i] = (struct vidmm_tile_op){
            .kind = VIDMM_TILE_MAP, .va = VA_SURF + i * TILE,
            .pages = PAGES_PER_TILE,
            .frame = { DDI_PTE_VRAM, env->new_tiles + new_order[i] * TILE,
                       true },
        };
    }
    st = vidmm_tiles_update(&env->space, ops, TILES, &wait, &signal, &up);
    if (st == DDI_OK) {
        why = copro_gpuva_update_emit(&env->vm.mem, env->as.root,
                                      env->cp->dev->info.aperture_size,
                                      &up.req, &stage, out);
    }
    return report(env->r, st == DDI_OK && why == NULL &&
                  out->packets == 3 && stage.used == SURF_PAGES,
                  "vidmm GPU VA update (%s): WAIT + COPY_PTE + FENCE, %u "
                  "packets, %u entries staged%s%s", ddi_status_name(st),
                  out->packets, stage.used, why ? ": " : "", why ? why : "");
}

/* A refused update leaves the companion's buffer empty: here an op that
 * reaches past the surface's range in the VA space. */
static void check_refusal(struct tiled_env *env)
{
    static struct vidmm_tiles_update up;
    const struct vidmm_tile_op op = {
        .kind = VIDMM_TILE_MAP, .va = VA_SURF + (TILES - 1) * TILE,
        .pages = PAGES_PER_TILE + 1,
        .frame = { DDI_PTE_VRAM, env->new_tiles, true },
    };
    const struct vidmm_monitored_fence signal = {
        env->sync + SYNC_PAGING_FENCE * 8, DRAW_43,
    };
    int st = vidmm_tiles_update(&env->space, &op, 1, NULL, &signal, &up);

    report(env->r, st == DDI_EBOUNDS, "update past the surface's VA range "
           "refused (%s)", ddi_status_name(st));
}

static void run_tiled(struct tiled_env *env, struct tiled_metrics *m)
{
    static const unsigned identity[TILES] = { 0, 1, 2, 3 };
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    struct copro_dmabuf d42, d43, paging;
    struct engine_stats s0, s1, after;
    struct copro_pt_walk w;
    uint64_t f42, f43, fpg;
    uint32_t state;
    bool ptes_ok = true;

    if (!setup(env)) {
        return;
    }
    check_refusal(env);
    for (unsigned i = 0; i < TILES * TILE / 4; i++) {
        ((volatile uint32_t *)env->old_cpu)[i] = CLEAR_OLD;
        ((volatile uint32_t *)env->new_cpu)[i] = CLEAR_NEW;
    }
    for (unsigned k = 0; k < PG / 8; k++) {
        vram_write64(cp, env->sync + k * 8, 0);
    }

    /* The render context's buffers: built through the CPU view of the
     * VRAM pages, executed at their VAs. */
    copro_dmabuf_init(&d42, (void *)copro_cp_cpu_ptr(cp, env->bufs),
                      VA_BUF, PG);
    emit_draw(&d42, rects_42, 2);
    copro_emit_timestamp(&d42, VA_SYNC + SYNC_TS_42 * 8);
    copro_emit_fence(&d42, VA_SYNC + SYNC_RENDER_FENCE * 8, DRAW_42, true);

    copro_dmabuf_init(&d43, (void *)copro_cp_cpu_ptr(cp, env->bufs + PG),
                      VA_BUF + PG, PG);
    copro_emit_wait(&d43, VA_SYNC + SYNC_PAGING_FENCE * 8, DRAW_43);
    copro_emit_timestamp(&d43, VA_SYNC + SYNC_TS_43 * 8);
    emit_draw(&d43, rects_43, 2);
    copro_emit_fence(&d43, VA_SYNC + SYNC_RENDER_FENCE * 8, DRAW_43, true);

    /* The companion: physical addresses (the sync page, the tables). */
    copro_dmabuf_init(&paging,
                      (void *)copro_cp_cpu_ptr(cp, env->bufs + 2 * PG),
                      env->bufs + 2 * PG, PG);
    if (!build_companion(env, &paging)) {
        return;
    }
    copro_emit_timestamp(&paging, env->sync + SYNC_TS_PAGING * 8);
    if (!report(r, copro_dmabuf_ok(&d42) && copro_dmabuf_ok(&d43) &&
                copro_dmabuf_ok(&paging), "draw #42, draw #43 and the "
                "paging buffer built")) {
        return;
    }
    engine_stats_read(cp, 0, &s0);
    engine_stats_read(cp, 1, &s1);

    fpg = copro_cp_submit(cp, 1, &paging, CTX_PAGING, COPRO_SUBMIT_PAGING);
    wait_ns(200 * US);
    state = copro_read32(cp->dev, COPRO_ENG_BASE(1) + COPRO_ENG_STATE);
    report(r, fpg != 0 && state == COPRO_ENG_STATE_WAITING,
           "paging companion blocked on the render fence (STATE %u)", state);
    f42 = copro_cp_submit(cp, 0, &d42, CTX_RENDER, 0);
    f43 = copro_cp_submit(cp, 0, &d43, CTX_RENDER, 0);
    check_fence_wait(r, cp, 0, f42, COPRO_WAIT_DONE, "draw #42");
    check_fence_wait(r, cp, 1, fpg, COPRO_WAIT_DONE, "paging companion "
                     "(WAIT 42, COPY_PTE, FENCE 43)");
    check_fence_wait(r, cp, 0, f43, COPRO_WAIT_DONE, "draw #43");

    m->render_fence = vram_read64(cp, env->sync + SYNC_RENDER_FENCE * 8);
    m->paging_fence = vram_read64(cp, env->sync + SYNC_PAGING_FENCE * 8);
    m->ts_42 = vram_read64(cp, env->sync + SYNC_TS_42 * 8);
    m->ts_paging = vram_read64(cp, env->sync + SYNC_TS_PAGING * 8);
    m->ts_43 = vram_read64(cp, env->sync + SYNC_TS_43 * 8);
    report(r, m->render_fence == DRAW_43 && m->paging_fence == DRAW_43,
           "monitored fences: render %lu, paging %lu (expected %u, %u)",
           m->render_fence, m->paging_fence, DRAW_43, DRAW_43);
    /* The companion's timestamp follows its FENCE, so only #42 -> update
     * is ordered by the fences; #43's start after the update is what the
     * images below prove. */
    report(r, m->ts_42 && m->ts_paging >= m->ts_42 && m->ts_43 >= m->ts_42,
           "order: #42 done at %lu <= page-table update done at %lu; #43 "
           "started at %lu", m->ts_42, m->ts_paging, m->ts_43);

    for (unsigned p = 0; p < SURF_PAGES; p++) {
        uint64_t slot = 0;
        uint64_t want = copro_pte_leaf(env->new_tiles +
                                       new_order[p / PAGES_PER_TILE] * TILE +
                                       (p % PAGES_PER_TILE) * PG,
                                       COPRO_PTE_WRITABLE);

        ptes_ok &= copro_as_leaf_slot(&env->as, VA_SURF + p * PG,
                                      &slot) == NULL &&
                   vram_read64(cp, slot) == want;
    }
    report(r, ptes_ok, "live leaf entries hold the new mapping (%u pages)",
           SURF_PAGES);
    copro_as_walk(&env->as, VA_SURF + TILE + 5 * PG, true, &w);
    report(r, w.ok && w.pa == env->new_tiles + new_order[1] * TILE + 5 * PG &&
           w.page_bytes == PG, "software walk: tile 1 page 5 now at %#lx "
           "(expected %#lx)", w.pa,
           env->new_tiles + new_order[1] * TILE + 5 * PG);

    model_image(want_old, identity, CLEAR_OLD, rects_42, 2);
    model_image(want_new, new_order, CLEAR_NEW, rects_43, 2);
    check_bytes(r, "old tile pages hold draw #42 only", env->old_cpu,
                want_old, TILES * TILE);
    check_bytes(r, "new tile pages hold draw #43 only, in the new tile "
                "order", env->new_cpu, want_new, TILES * TILE);

    engine_stats_read(cp, 0, &after);
    m->busy_ns[0] = after.busy_ns - s0.busy_ns;
    m->tlb_misses0 = copro_read64(cp->dev, COPRO_ENG_BASE(0) +
                                  COPRO_ENG_STAT_TLB_MISSES);
    engine_stats_read(cp, 1, &after);
    m->busy_ns[1] = after.busy_ns - s1.busy_ns;
    report(r, cp->eng[0].faults == 0 && cp->eng[1].faults == 0,
           "no faults on either engine");
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    static struct tiled_env env;
    struct report r = { 0 };
    struct tiled_metrics m = { 0 };

    report_info("copro tiled scenario, command line: \"%s\"", boot->cmdline);
    env.r = &r;
    env.cp = &cp;
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES) &&
        report(&r, cp.num_engines >= 2, "two engines (%u)",
               cp.num_engines)) {
        run_tiled(&env, &m);
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
    }
    kprintf("METRICS {\"scenario\":\"tiled\",\"irq_mode\":\"%s\","
            "\"render_fence\":%lu,\"paging_fence\":%lu,\"ts_42\":%lu,"
            "\"ts_paging\":%lu,\"ts_43\":%lu,\"busy_ns\":[%lu,%lu],"
            "\"tlb_misses\":%lu,\"irqs\":%u,\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), m.render_fence,
            m.paging_fence, m.ts_42, m.ts_paging, m.ts_43, m.busy_ns[0],
            m.busy_ns[1], m.tlb_misses0, dev.irq.count, r.tests, r.failures);
    return report_summary(&r);
}
