/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model's tiler (docs/specs/copro.rst "Tiling"), at the level the
 * scheduler sees it: scene headers, bins and the heap's fill in the
 * parameter buffer (BIN_RECT and BIN_BLIT), OOM stops, tile passes one
 * tile per step (a blit's source read there), partial passes that empty
 * the bins; no pixels (hw/copro/copro-tiler.c draws them). An OOM stop can also be injected (SIM_INJECT_OOM) into any
 * buffer, scene or not.
 */
#include "sim_gpu_internal.h"

#include <string.h>

/* The injected OOM at this packet, if it has not fired yet (it fires
 * once: the resumed submission bins the primitive into the grown
 * buffer). */
bool sim_oom_injected(struct sim_engine *e)
{
    struct sim_gpu *g = e->g;

    for (unsigned i = 0; i < g->ninject; i++) {
        if (g->inject[i].dma_addr == e->desc.dma_addr &&
            g->inject[i].offset == e->pc &&
            g->inject[i].kind == SIM_INJECT_OOM && !g->inject[i].fired) {
            g->inject[i].fired = true;
            return true;
        }
    }
    return false;
}

/*
 * TILER_OOM (docs/specs/copro.rst "Parameter buffer full"): the
 * submission stops before the packet as a preemption stops it (save
 * record, queued entries dropped, idle) but is not one: PREEMPTED is not
 * raised for it; a request pending then completes right after, with
 * nothing to interrupt. The engine then holds until the stop is
 * acknowledged (sim_tiler_ack).
 */
void sim_oom_stop(struct sim_engine *e)
{
    struct copro_save_record r;

    sim_save_record(e, &r);
    sim_tiler_save_oom(&r);
    if (e->g->tiler_bug == SIM_TILER_SKIP_PRIM && e->in_packet) {
        r.offset += COPRO_PKT_LEN(e->cur.hdr) * 4;  /* (--meta) */
    }
    if (!sim_mem_write(e, e->desc.save_addr, &r, sizeof(r))) {
        return;     /* faulted: halted */
    }
    e->oom_scene = e->scene;
    e->scene = 0;               /* it is in the save record */
    e->oom_fence = e->desc.fence;
    e->ooms++;
    e->tiler_held = true;
    sim_notify_stop(e, false);
    e->head = e->tail;
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->pc = 0;
    sim_timer_del(e);
    e->state = SIM_ENG_IDLE;
    sim_raise_irq(e, IRQ_TILER_OOM);
    if (e->preempt_pending) {
        sim_preempt_now(e);
    }
}

/* ---- the parameter buffer ---- */

uint32_t sim_gpu_tiles(const struct sim_gpu *g, uint32_t width,
                       uint32_t height)
{
    return copro_tiles_of(width, g->cfg.tile_size) *
           copro_tiles_of(height, g->cfg.tile_size);
}

static enum step tiler_fail(struct sim_engine *e, uint32_t cause,
                            uint64_t addr)
{
    e->tiler_cause = cause;
    sim_engine_fault(e, COPRO_FAULT_BAD_PACKET, addr);
    return STEP_FAULT;
}

/* The header at pb, checked as the device checks it at every packet that
 * reads it (STEP_MORE: good). */
static enum step scene_load(struct sim_engine *e, uint64_t pb,
                            struct copro_scene *h)
{
    uint32_t err;

    if (!sim_mem_read(e, pb, h, sizeof(*h))) {
        return STEP_FAULT;
    }
    err = copro_scene_check(h, e->g->cfg.tile_size);
    return err ? tiler_fail(e, err, pb) : STEP_MORE;
}

static bool scene_store(struct sim_engine *e, uint64_t pb,
                        const struct copro_scene *h)
{
    return sim_mem_write(e, pb, h, sizeof(*h));
}

static bool clear_tiles(struct sim_engine *e, uint64_t pb, uint32_t tiles)
{
    static const uint8_t zero[4096];
    uint64_t at = pb + COPRO_SCENE_HDR_SIZE;
    uint64_t left = (uint64_t)tiles * COPRO_SCENE_TILE_SIZE;

    while (left) {
        uint64_t n = left < sizeof(zero) ? left : sizeof(zero);

        if (!sim_mem_write(e, at, zero, n)) {
            return false;
        }
        at += n;
        left -= n;
    }
    return true;
}

/* The primitive x, y, w, h clipped to the scene; false if nothing is
 * left of it. */
static bool clip(const struct copro_scene *h, const struct sim_packet *p,
                 struct copro_prim *out)
{
    bool blit = COPRO_PKT_OP(p->hdr) == COPRO_OP_BIN_BLIT;
    uint32_t x = blit ? COPRO_BLIT_LO(p->dw[3]) : p->dw[0];
    uint32_t y = blit ? COPRO_BLIT_HI(p->dw[3]) : p->dw[1];
    uint32_t w = blit ? COPRO_BLIT_LO(p->dw[4]) : p->dw[2];
    uint32_t hh = blit ? COPRO_BLIT_HI(p->dw[4]) : p->dw[3];

    if (x >= h->width || y >= h->height || !w || !hh) {
        return false;
    }
    /* clipping cuts only right and bottom: a blit's src stays the
     * source of its top-left pixel */
    *out = (struct copro_prim){
        .kind = blit ? COPRO_PRIM_BLIT : COPRO_PRIM_RECT, .x = x, .y = y,
        .w = w < h->width - x ? w : h->width - x,
        .h = hh < h->height - y ? hh : h->height - y,
        .arg = blit ? p->dw[2] : p->dw[4],
        .src = blit ? dw64(p, 0) : 0,
    };
    return true;
}

/* The part of r inside tile of h: false if none. */
static bool in_tile(const struct copro_scene *h, uint32_t tile,
                    const struct copro_prim *r, uint32_t *x0, uint32_t *y0,
                    uint32_t *x1, uint32_t *y1)
{
    uint32_t ts = h->tile_size;
    uint32_t tx = (tile % h->tiles_x) * ts, ty = (tile / h->tiles_x) * ts;

    *x0 = r->x > tx ? r->x : tx;
    *y0 = r->y > ty ? r->y : ty;
    *x1 = r->x + r->w < tx + ts ? r->x + r->w : tx + ts;
    *y1 = r->y + r->h < ty + ts ? r->y + r->h : ty + ts;
    return *x0 < *x1 && *y0 < *y1;
}

/* A blit's source bytes for its part in tile (first and one past the
 * last byte read, rows pitch apart), 0 bytes if it has none there. */
static uint64_t blit_span(const struct copro_scene *h, uint32_t tile,
                          const struct copro_prim *r, uint64_t *first)
{
    uint32_t bpp = copro_fmt_bpp(h->format), x0, y0, x1, y1;
    uint64_t last;

    if (r->kind != COPRO_PRIM_BLIT || !in_tile(h, tile, r, &x0, &y0, &x1,
                                               &y1)) {
        return 0;
    }
    *first = r->src + (uint64_t)(y0 - r->y) * r->arg +
             (uint64_t)(x0 - r->x) * bpp;
    last = r->src + (uint64_t)(y1 - 1 - r->y) * r->arg +
           (uint64_t)(x1 - r->x) * bpp;
    return last > *first ? last - *first : 0;
}

static uint32_t prim_tiles(const struct copro_scene *h,
                           const struct copro_prim *r)
{
    uint32_t ts = h->tile_size;

    return (uint32_t)(((r->x + r->w - 1) / ts - r->x / ts + 1) *
                      ((r->y + r->h - 1) / ts - r->y / ts + 1));
}

/* Length of tile's bin, its nodes checked (inside the heap in use,
 * aligned, no longer than the heap can hold); -1: faulted. */
static int64_t bin_len(struct sim_engine *e, uint64_t pb,
                       const struct copro_scene *h, uint32_t tile)
{
    struct copro_scene_tile t;
    uint64_t n = 0, max = (h->used - h->heap_start) / COPRO_BIN_NODE_SIZE;

    if (!sim_mem_read(e, pb + COPRO_SCENE_HDR_SIZE +
                      (uint64_t)tile * COPRO_SCENE_TILE_SIZE, &t, 8)) {
        return -1;
    }
    for (uint32_t at = t.head; at; n++) {
        struct copro_bin_node node;

        if (at < h->heap_start || at + COPRO_BIN_NODE_SIZE > h->used ||
            (at & 7) || n >= max || n >= COPRO_TILER_MAX_BIN) {
            tiler_fail(e, COPRO_TILER_ERR_BIN_OUTSIDE, pb + at);
            return -1;
        }
        if (!sim_mem_read(e, pb + at, &node, sizeof(node))) {
            return -1;
        }
        if (node.prim < h->heap_start ||
            node.prim + COPRO_PRIM_SIZE > h->used || (node.prim & 7)) {
            tiler_fail(e, COPRO_TILER_ERR_BIN_OUTSIDE, pb + node.prim);
            return -1;
        }
        at = node.next;
    }
    return (int64_t)n;
}

/* The primitives of tile's bin (bin_len checked its nodes), each checked
 * as the device checks it, and a blit's source read in the tile pass's
 * context: a source that is not mapped faults the tile pass (TRANSLATION
 * at the source), not the geometry that binned it. */
static bool tile_prims_ok(struct sim_engine *e, uint64_t pb,
                          const struct copro_scene *h, uint32_t tile)
{
    struct copro_scene_tile t;

    if (!sim_mem_read(e, pb + COPRO_SCENE_HDR_SIZE +
                      (uint64_t)tile * COPRO_SCENE_TILE_SIZE, &t, 8)) {
        return false;
    }
    for (uint32_t at = t.head; at;) {
        struct copro_bin_node node;
        struct copro_prim r;
        uint64_t from = 0, len;

        if (!sim_mem_read(e, pb + at, &node, sizeof(node)) ||
            !sim_mem_read(e, pb + node.prim, &r, sizeof(r))) {
            return false;
        }
        if ((r.kind != COPRO_PRIM_RECT && r.kind != COPRO_PRIM_BLIT) ||
            !r.w || !r.h || r.x >= h->width || r.y >= h->height ||
            r.w > h->width - r.x || r.h > h->height - r.y ||
            (r.kind == COPRO_PRIM_BLIT && r.arg > COPRO_BLIT_PITCH_MAX)) {
            tiler_fail(e, COPRO_TILER_ERR_PRIM, pb + node.prim);
            return false;
        }
        len = blit_span(h, tile, &r, &from);
        if (len && !sim_mem_ok(e->g, from, len)) {
            sim_engine_fault(e, COPRO_FAULT_TRANSLATION, from);
            return false;
        }
        at = node.next;
    }
    return true;
}

/* ---- packets ---- */

bool sim_tiler_fields_ok(const struct sim_engine *e,
                         const struct sim_packet *p, uint32_t *cause)
{
    uint32_t flags = COPRO_PKT_FLAGS(p->hdr);
    uint32_t slot = flags & COPRO_TILER_SLOT_MASK;

    *cause = COPRO_TILER_ERR_NONE;
    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_SCENE_BEGIN:
        if ((flags & ~(COPRO_TILER_SLOT_MASK | COPRO_SCENE_CLEAR)) ||
            !e->targets[slot].format) {
            *cause = COPRO_TILER_ERR_TARGET;
        } else if ((dw64(p, 0) & 7) || p->dw[2] > COPRO_PB_MAX) {
            *cause = COPRO_TILER_ERR_PB_SIZE;
        }
        break;
    case COPRO_OP_TILE_RENDER:
        if ((flags & ~(COPRO_TILER_SLOT_MASK | COPRO_TILE_PARTIAL)) ||
            !e->targets[slot].format) {
            *cause = COPRO_TILER_ERR_TARGET;
        } else if (dw64(p, 0) & 7) {
            *cause = COPRO_TILER_ERR_HEADER;
        } else if (!p->dw[2] || p->dw[2] > COPRO_TILER_MAX_TILES) {
            *cause = COPRO_TILER_ERR_TILE_COUNT;
        }
        break;
    case COPRO_OP_BIN_RECT:
    case COPRO_OP_SCENE_END:
        if (flags) {
            *cause = COPRO_TILER_ERR_PRIM;
        }
        break;
    case COPRO_OP_BIN_BLIT:
        if (flags || p->dw[2] > COPRO_BLIT_PITCH_MAX) {
            *cause = COPRO_TILER_ERR_PRIM;
        }
        break;
    }
    return *cause == COPRO_TILER_ERR_NONE;
}

/* What the step costs (charged at its start, as every step): SCENE_BEGIN
 * the tile table at fill-bw, BIN_RECT its heap bytes at copy-bw, a tile
 * tile-ns plus its table entry and 40 bytes per binned primitive at
 * copy-bw. A header or bin the step will refuse costs nothing more. */
uint64_t sim_tiler_step_cost(const struct sim_engine *e)
{
    const struct sim_packet *p = &e->cur;
    const struct sim_gpu_config *c = &e->g->cfg;
    struct sim_gpu *g = e->g;
    struct copro_scene h;
    const struct sim_target *t;
    struct copro_prim r;
    uint64_t first = p->progress == 0 ? c->packet_ns : 0;
    uint64_t pb = COPRO_PKT_OP(p->hdr) == COPRO_OP_BIN_RECT ||
                  COPRO_PKT_OP(p->hdr) == COPRO_OP_BIN_BLIT ? e->scene
                                                            : dw64(p, 0);

    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_SCENE_BEGIN:
        t = &e->targets[COPRO_PKT_FLAGS(p->hdr) & COPRO_TILER_SLOT_MASK];
        return first + cost((uint64_t)sim_gpu_tiles(g, t->width, t->height) *
                            COPRO_SCENE_TILE_SIZE, c->fill_bw);
    case COPRO_OP_BIN_RECT:
    case COPRO_OP_BIN_BLIT:
        if (!pb || !sim_mem_ok(g, pb, sizeof(h))) {
            return first;
        }
        sim_mem_copy(g, pb, &h, sizeof(h), false);
        if (!h.tile_size || !clip(&h, p, &r)) {
            return first;
        }
        return first + cost(COPRO_PRIM_NEED(prim_tiles(&h, &r)), c->copy_bw);
    case COPRO_OP_TILE_RENDER: {
        struct copro_scene_tile tile;
        uint32_t n = 0, at;
        uint64_t blit = 0;
        uint64_t ta = pb + COPRO_SCENE_HDR_SIZE +
                      (p->progress / 2) * COPRO_SCENE_TILE_SIZE;

        if (!sim_mem_ok(g, pb, sizeof(h)) || !sim_mem_ok(g, ta, 8)) {
            return first + c->tile_ns;
        }
        sim_mem_copy(g, pb, &h, sizeof(h), false);
        sim_mem_copy(g, ta, &tile, 8, false);
        /* the bin's length, bounded: the step checks it */
        for (at = tile.head; at && n < COPRO_TILER_MAX_BIN; n++) {
            struct copro_bin_node node;

            if (!sim_mem_ok(g, pb + at, sizeof(node))) {
                break;
            }
            sim_mem_copy(g, pb + at, &node, sizeof(node), false);
            if (sim_mem_ok(g, pb + node.prim, sizeof(r)) && h.tiles_x) {
                uint64_t from;

                sim_mem_copy(g, pb + node.prim, &r, sizeof(r), false);
                if (r.kind == COPRO_PRIM_BLIT &&
                    blit_span(&h, (uint32_t)(p->progress / 2), &r, &from)) {
                    uint32_t x0, y0, x1, y1;

                    in_tile(&h, (uint32_t)(p->progress / 2), &r, &x0, &y0,
                            &x1, &y1);
                    blit += (uint64_t)(x1 - x0) * (y1 - y0) *
                            copro_fmt_bpp(h.format);
                }
            }
            at = node.next;
        }
        /* (blit source bytes: the only pixels the model charges, as the
         * scheduler sees a blit-heavy tile take longer) */
        return first + c->tile_ns +
               cost(COPRO_SCENE_TILE_SIZE + 40ull * n + blit, c->copy_bw);
    }
    default:
        return first;
    }
}

static enum step scene_begin(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    const struct sim_target *t =
        &e->targets[COPRO_PKT_FLAGS(p->hdr) & COPRO_TILER_SLOT_MASK];
    uint64_t pb = dw64(p, 0);
    uint32_t ts = e->g->cfg.tile_size;
    uint64_t tiles = (uint64_t)copro_tiles_of(t->width, ts) *
                     copro_tiles_of(t->height, ts);
    struct copro_scene h;

    if (e->scene) {
        return tiler_fail(e, COPRO_TILER_ERR_SCENE_OPEN, pb);
    }
    if (!t->width || !t->height || tiles > COPRO_TILER_MAX_TILES) {
        return tiler_fail(e, COPRO_TILER_ERR_TILE_COUNT, pb);
    }
    h = (struct copro_scene){
        .magic = COPRO_SCENE_MAGIC, .state = COPRO_SCENE_OPEN,
        .pb_size = p->dw[2], .width = t->width, .height = t->height,
        .format = t->format, .tile_size = ts,
        .tiles_x = copro_tiles_of(t->width, ts), .tiles_y = copro_tiles_of(t->height, ts),
        .flags = COPRO_PKT_FLAGS(p->hdr) & COPRO_SCENE_CLEAR
                 ? COPRO_SCENE_F_CLEAR : 0,
        .clear_colour = p->dw[3],
        .heap_start = copro_scene_heap_start((uint32_t)tiles),
        .geom_start = e->cursor,
    };
    h.used = h.heap_start;
    if (h.pb_size < h.heap_start) {
        return tiler_fail(e, COPRO_TILER_ERR_PB_SIZE, pb);
    }
    if (!clear_tiles(e, pb, (uint32_t)tiles) || !scene_store(e, pb, &h)) {
        return STEP_FAULT;
    }
    e->scene = pb;
    return STEP_DONE;
}

static void append(struct sim_engine *e, uint64_t pb, uint32_t tile,
                   uint32_t node)
{
    uint64_t ta = pb + COPRO_SCENE_HDR_SIZE +
                  (uint64_t)tile * COPRO_SCENE_TILE_SIZE;
    struct copro_scene_tile t;

    sim_mem_copy(e->g, ta, &t, sizeof(t), false);
    if (t.head) {
        sim_mem_copy(e->g, pb + t.tail, &node, 4, true);  /* tail's next */
    } else {
        t.head = node;
    }
    t.tail = node;
    sim_mem_copy(e->g, ta, &t, sizeof(t), true);
}

/* One primitive, atomically: it fits and is binned, or the geometry
 * stops before it with OOM (STEP_OOM) and nothing of it is written. */
static enum step bin_prim(struct sim_engine *e)
{
    uint64_t pb = e->scene;
    struct copro_scene h;
    struct copro_prim r;
    uint32_t k = 0, need, node;
    enum step s;

    if (!pb) {
        return tiler_fail(e, COPRO_TILER_ERR_NO_SCENE, 0);
    }
    s = scene_load(e, pb, &h);
    if (s != STEP_MORE) {
        return s;
    }
    if (h.state != COPRO_SCENE_OPEN && h.state != COPRO_SCENE_OOM) {
        return tiler_fail(e, COPRO_TILER_ERR_HEADER, pb);
    }
    if (!clip(&h, &e->cur, &r)) {
        h.state = COPRO_SCENE_OPEN;
        return scene_store(e, pb, &h) ? STEP_DONE : STEP_FAULT;
    }
    k = prim_tiles(&h, &r);
    need = (uint32_t)COPRO_PRIM_NEED(k);
    if ((uint64_t)h.used + need > h.pb_size) {
        h.state = COPRO_SCENE_OOM;
        h.oom_need = need;
        h.ooms++;
        if (!scene_store(e, pb, &h)) {
            return STEP_FAULT;
        }
        e->oom_need = need;
        e->g->tiler.ooms++;
        if (e->g->obs && e->g->obs->tiler_oom) {
            e->g->obs->tiler_oom(e->g->obs_arg, e->index, &e->desc, pb, need);
        }
        return STEP_OOM;
    }
    if (!sim_mem_ok(e->g, pb + h.used, need)) {
        sim_engine_fault(e, COPRO_FAULT_TRANSLATION, pb + h.used);
        return STEP_FAULT;
    }
    sim_mem_copy(e->g, pb + h.used, &r, sizeof(r), true);
    node = h.used + COPRO_PRIM_SIZE;
    for (uint32_t ty = r.y / h.tile_size;
         ty <= (r.y + r.h - 1) / h.tile_size; ty++) {
        for (uint32_t tx = r.x / h.tile_size;
             tx <= (r.x + r.w - 1) / h.tile_size; tx++) {
            struct copro_bin_node n = { .next = 0, .prim = h.used };

            sim_mem_copy(e->g, pb + node, &n, sizeof(n), true);
            append(e, pb, ty * h.tiles_x + tx, node);
            node += COPRO_BIN_NODE_SIZE;
        }
    }
    h.used += need;
    h.prims++;
    h.state = COPRO_SCENE_OPEN;
    if (!scene_store(e, pb, &h)) {
        return STEP_FAULT;
    }
    e->g->tiler.prims++;
    if (e->g->obs && e->g->obs->binned) {
        e->g->obs->binned(e->g->obs_arg, e->index, &e->desc, pb, h.prims, k);
    }
    return STEP_DONE;
}

static enum step scene_end(struct sim_engine *e)
{
    uint64_t pb = e->scene;
    struct copro_scene h;
    enum step s;

    if (!pb) {
        return tiler_fail(e, COPRO_TILER_ERR_NO_SCENE, 0);
    }
    s = scene_load(e, pb, &h);
    if (s != STEP_MORE) {
        return s;
    }
    if (h.state != COPRO_SCENE_OPEN) {
        return tiler_fail(e, COPRO_TILER_ERR_HEADER, pb);
    }
    h.state = COPRO_SCENE_CLOSED;
    h.geom_end = e->cursor;
    if (!scene_store(e, pb, &h)) {
        return STEP_FAULT;
    }
    e->scene = 0;
    e->g->tiler.scenes++;
    if (e->g->obs && e->g->obs->scene_end) {
        e->g->obs->scene_end(e->g->obs_arg, e->index, &e->desc, pb);
    }
    return STEP_DONE;
}

/* One tile per step; the header and the target are checked at every
 * step, as every resume must. */
static enum step tile_render(struct sim_engine *e)
{
    struct sim_packet *p = &e->cur;
    uint32_t flags = COPRO_PKT_FLAGS(p->hdr);
    bool partial = flags & COPRO_TILE_PARTIAL;
    const struct sim_target *t = &e->targets[flags & COPRO_TILER_SLOT_MASK];
    uint64_t pb = dw64(p, 0);
    uint32_t tile = (uint32_t)(p->progress / 2), tiles;
    struct copro_scene h;
    int64_t n;
    enum step s;
    bool last;

    s = scene_load(e, pb, &h);
    if (s != STEP_MORE) {
        return s;
    }
    tiles = h.tiles_x * h.tiles_y;
    if (p->dw[2] != tiles || tile >= tiles) {
        return tiler_fail(e, COPRO_TILER_ERR_TILE_COUNT, pb);
    }
    if (t->width != h.width || t->height != h.height ||
        t->format != h.format) {
        return tiler_fail(e, COPRO_TILER_ERR_TARGET, pb);
    }
    if (!partial && h.state != COPRO_SCENE_CLOSED) {
        return tiler_fail(e, COPRO_TILER_ERR_NOT_CLOSED, pb);
    }
    if (partial && h.state != COPRO_SCENE_OOM) {
        return tiler_fail(e, COPRO_TILER_ERR_NOT_OOM, pb);
    }
    n = bin_len(e, pb, &h, tile);
    if (n < 0 || !tile_prims_ok(e, pb, &h, tile)) {
        return STEP_FAULT;
    }
    last = tile + 1 == tiles;
    if (tile == 0 && !h.tile_start) {
        h.tile_start = e->cursor;
    }
    if (last && !partial) {
        h.state = COPRO_SCENE_RENDERED;
        h.tile_end = e->cursor;
    } else if (last) {
        /* the bins are rendered and stored: empty them, reopen */
        if (e->g->tiler_bug != SIM_TILER_KEEP_BINS) {
            if (!clear_tiles(e, pb, tiles)) {
                return STEP_FAULT;
            }
            h.used = h.heap_start;
        }
        h.flags |= COPRO_SCENE_F_STORED;
        h.partials++;
        h.state = COPRO_SCENE_OPEN;
        e->g->tiler.partials++;
    }
    if (!scene_store(e, pb, &h)) {
        return STEP_FAULT;
    }
    e->g->tiler.tiles++;
    p->progress += 2;
    if (e->g->obs && e->g->obs->tile) {
        e->g->obs->tile(e->g->obs_arg, e->index, &e->desc, pb, tile,
                        (uint32_t)n, partial, last);
    }
    return last ? STEP_DONE : STEP_MORE;
}

enum step sim_tiler_exec(struct sim_engine *e)
{
    switch (COPRO_PKT_OP(e->cur.hdr)) {
    case COPRO_OP_SCENE_BEGIN:
        return scene_begin(e);
    case COPRO_OP_BIN_RECT:
    case COPRO_OP_BIN_BLIT:
        return bin_prim(e);
    case COPRO_OP_SCENE_END:
        return scene_end(e);
    case COPRO_OP_TILE_RENDER:
        return tile_render(e);
    default:
        return tiler_fail(e, COPRO_TILER_ERR_PRIM, 0);
    }
}

/* ---- save records ---- */

/* The open scene and the next tile go into the record's reserved bytes
 * (struct copro_save_tiler). */
void sim_tiler_save(const struct sim_engine *e, struct copro_save_record *r)
{
    struct copro_save_tiler st = { 0 };

    if (e->scene) {
        st.scene = e->scene;
        st.flags |= COPRO_SAVE_TILER_SCENE;
    }
    if (e->in_packet && COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_TILE_RENDER) {
        st.tile_next = (uint32_t)(e->cur.progress / 2);
    }
    memcpy(r->reserved, &st, sizeof(st));
}

void sim_tiler_save_oom(struct copro_save_record *r)
{
    struct copro_save_tiler st;

    memcpy(&st, r->reserved, sizeof(st));
    if (st.flags & COPRO_SAVE_TILER_SCENE) {
        st.flags |= COPRO_SAVE_TILER_OOM;
    }
    memcpy(r->reserved, &st, sizeof(st));
}

bool sim_tiler_restore(struct sim_engine *e, const struct copro_save_record *r)
{
    struct copro_save_tiler st;

    memcpy(&st, r->reserved, sizeof(st));
    if ((st.flags & ~(COPRO_SAVE_TILER_SCENE | COPRO_SAVE_TILER_OOM)) ||
        (st.scene & 7) || (!(st.flags & COPRO_SAVE_TILER_SCENE) && st.scene)) {
        return false;
    }
    e->scene = st.scene;
    if (r->in_packet && COPRO_PKT_OP(r->hdr) == COPRO_OP_TILE_RENDER) {
        /* the deliberate bugs (--meta): resume a tile early or late */
        if (e->g->tiler_bug == SIM_TILER_REDO_TILE && e->cur.progress >= 2) {
            e->cur.progress -= 2;
        } else if (e->g->tiler_bug == SIM_TILER_SKIP_TILE &&
                   e->cur.progress + 2 < 2ull * e->cur.dw[2]) {
            e->cur.progress += 2;
        }
    }
    return true;
}
/*
 * CONTROL.TILER_ACK ("The engine holds"): what was written to the ring
 * during the hold is dropped, as what was queued at the stop was, and the
 * engine fetches again. Made by the DPC as it reports the stop, before
 * the upcall, as the kmd makes it.
 */
void sim_tiler_ack(struct sim_engine *e)
{
    uint32_t mask = e->g->cfg.ring_entries - 1;

    if (!e->tiler_held) {
        return;
    }
    e->held_dropped += (e->tail - e->head) & mask;
    sim_notify_stop(e, false);
    e->head = e->tail;
    e->tiler_held = false;
    if (e->state != SIM_ENG_HALTED) {
        sim_kick(e);
    }
}
