/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the tiling path (scene-based rendering)
 *
 * Geometry packets (SCENE_BEGIN, BIN_RECT, BIN_BLIT, SCENE_END) clip each
 * primitive to the scene's target and append it to the bin of every tile
 * it touches, in a parameter buffer in GPU memory; TILE_RENDER then draws
 * the scene tile by tile through an on-chip tile memory, loading a tile
 * from the target only when its content is needed and storing it once.
 * The parameter buffer's layout is ABI (include/copro/copro_tiler.h), so
 * the two stages can run on different engines and at different times.
 *
 * Everything the device reads back from the parameter buffer lives in
 * guest-writable memory and is checked at every use: a bad header, a bin
 * node outside the heap in use, a looping list or a primitive outside the
 * target halts the engine with BAD_PACKET and a cause in TILER_CAUSE.
 *
 * Binning is atomic per primitive: a primitive that does not fit stops
 * the geometry submission before anything of it is written (OOM), with
 * a save record, so that RESUME after a grow or a partial render bins it
 * again from scratch.
 *
 * TILE_RENDER runs two steps per tile: an even one plans the tile (walks
 * its bin, read-only, to price it) and an odd one, charged that price,
 * renders and stores it. Only even progress is a tile boundary, so
 * preemption stops between tiles and a resume redoes nothing.
 *
 * The programming model is docs/specs/copro.rst, "Tiling". Save
 * records, registers, reset and migration are in copro-tiler-state.c.
 *
 * About a thousand lines, kept as one idea: the two stages of one path
 * through one parameter buffer. Binning writes and the tile pass reads
 * the same bins, with the same checks of guest-writable memory at every
 * use; split apart, those checks would live in a third file that both
 * call, and a reader would need all three to see one scene through.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include "migration/vmstate.h"
#include "copro.h"
#include "trace.h"

#define TILE_ZERO_CHUNK     (64 * KiB)

bool copro_tiler_op(uint32_t op)
{
    return op >= COPRO_OP_SCENE_BEGIN && op <= COPRO_OP_TILE_RENDER;
}

static const char *copro_tiler_cause_name(uint32_t cause)
{
    static const char *const names[] = {
        [COPRO_TILER_ERR_NONE] = "none",
        [COPRO_TILER_ERR_NO_SCENE] = "no scene open",
        [COPRO_TILER_ERR_SCENE_OPEN] = "a scene is already open",
        [COPRO_TILER_ERR_HEADER] = "scene header invalid",
        [COPRO_TILER_ERR_PB_SIZE] = "parameter buffer size invalid",
        [COPRO_TILER_ERR_TILE_COUNT] = "bad tile count",
        [COPRO_TILER_ERR_NOT_CLOSED] = "scene geometry not finished",
        [COPRO_TILER_ERR_NOT_OOM] = "partial render of a scene not "
                                    "stopped on OOM",
        [COPRO_TILER_ERR_BIN_OUTSIDE] = "bin outside the parameter buffer",
        [COPRO_TILER_ERR_TARGET] = "target differs from the scene's",
        [COPRO_TILER_ERR_PRIM] = "primitive record invalid",
        [COPRO_TILER_ERR_NO_SAVE] = "no save area",
        [COPRO_TILER_ERR_QUEUE_OOM] = "parameter buffer full on a "
                                      "hardware queue",
    };

    return cause < ARRAY_SIZE(names) && names[cause] ? names[cause] : "?";
}

/* A tiler command error: BAD_PACKET with its cause. Returns STEP_FAULT. */
static StepResult tiler_fail(CoproEngine *e, uint32_t cause, uint64_t addr)
{
    e->tiler.cause = cause;
    qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: tiler: %s (0x%"
                  PRIx64 ")\n", e->index, copro_tiler_cause_name(cause),
                  addr);
    copro_engine_fault(e, COPRO_FAULT_BAD_PACKET, addr, 0);
    return STEP_FAULT;
}

static uint64_t pkt64(const CoproPacket *p, unsigned i)
{
    return p->dw[i] | ((uint64_t)p->dw[i + 1] << 32);
}

/*
 * Memory, counted: every byte a tiler packet moves is in the engine's
 * STAT_MEM_* and, for the parameter buffer, in the device's PB counters.
 * The scene header is not counted: hardware keeps it in registers.
 */
static bool tl_read(CoproEngine *e, uint64_t addr, void *buf, uint64_t len,
                    bool pb)
{
    if (!copro_mem_access(e, false, addr, buf, len, false)) {
        return false;
    }
    e->tiler.stat_mem_read += len;
    if (pb) {
        e->dev->tiler.stat[COPRO_TS_PB_READ] += len;
    }
    return true;
}

static bool tl_write(CoproEngine *e, uint64_t addr, const void *buf,
                     uint64_t len, bool pb)
{
    if (!copro_mem_access(e, false, addr, (void *)buf, len, true)) {
        return false;
    }
    e->tiler.stat_mem_write += len;
    if (pb) {
        e->dev->tiler.stat[COPRO_TS_PB_WRITE] += len;
    }
    return true;
}

static bool tl_write32(CoproEngine *e, uint64_t addr, uint32_t v)
{
    uint32_t le = cpu_to_le32(v);

    return tl_write(e, addr, &le, 4, true);
}

static bool tl_read_tile(CoproEngine *e, uint64_t pb, uint32_t tile,
                         struct copro_scene_tile *t)
{
    if (!tl_read(e, copro_gpu_addr_add(pb, COPRO_SCENE_HDR_SIZE +
                                       (uint64_t)tile * 8), t, 8, true)) {
        return false;
    }
    t->head = le32_to_cpu(t->head);
    t->tail = le32_to_cpu(t->tail);
    return true;
}

static bool tl_write_tile(CoproEngine *e, uint64_t pb, uint32_t tile,
                          uint32_t head, uint32_t tail)
{
    struct copro_scene_tile t = {
        .head = cpu_to_le32(head), .tail = cpu_to_le32(tail),
    };

    return tl_write(e, copro_gpu_addr_add(pb, COPRO_SCENE_HDR_SIZE +
                                          (uint64_t)tile * 8), &t, 8, true);
}

/* the header in either byte order, to the other */
static void scene_swap(struct copro_scene *h)
{
    uint32_t *w = &h->magic;

    for (unsigned i = 0; i < offsetof(struct copro_scene, geom_start) / 4;
         i++) {
        le32_to_cpus(&w[i]);
    }
    le64_to_cpus(&h->geom_start);
    le64_to_cpus(&h->geom_end);
    le64_to_cpus(&h->tile_start);
    le64_to_cpus(&h->tile_end);
}

static bool scene_store(CoproEngine *e, uint64_t pb,
                        const struct copro_scene *h)
{
    struct copro_scene le = *h;

    scene_swap(&le);
    return copro_mem_access(e, false, pb, &le, sizeof(le), true);
}

/*
 * Load and check the header of the scene at @pb: everything the device
 * derives addresses or loop bounds from. Returns STEP_MORE if it is good.
 */
static StepResult scene_load(CoproEngine *e, uint64_t pb,
                             struct copro_scene *h)
{
    uint32_t err;

    if (!copro_mem_access(e, false, pb, h, sizeof(*h), false)) {
        return STEP_FAULT;
    }
    scene_swap(h);
    err = copro_scene_check(h, e->dev->tiler.tile_size);
    return err ? tiler_fail(e, err, pb) : STEP_MORE;
}

/*
 * Packet checks that need no memory (fetch, resume, migration)
 */
bool copro_tiler_fields_ok(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    uint32_t slot = COPRO_PKT_FLAGS(p->hdr) & COPRO_TILER_SLOT_MASK;
    uint32_t flags = COPRO_PKT_FLAGS(p->hdr);
    uint32_t cause = COPRO_TILER_ERR_NONE;

    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_SCENE_BEGIN:
        if ((flags & ~(COPRO_TILER_SLOT_MASK | COPRO_SCENE_CLEAR)) ||
            !e->targets[slot].format) {
            cause = COPRO_TILER_ERR_TARGET;
        } else if ((pkt64(p, 0) & 7) || p->dw[2] > COPRO_PB_MAX) {
            cause = COPRO_TILER_ERR_PB_SIZE;
        }
        break;
    case COPRO_OP_TILE_RENDER:
        if ((flags & ~(COPRO_TILER_SLOT_MASK | COPRO_TILE_PARTIAL)) ||
            !e->targets[slot].format) {
            cause = COPRO_TILER_ERR_TARGET;
        } else if (pkt64(p, 0) & 7) {
            cause = COPRO_TILER_ERR_HEADER;
        } else if (!p->dw[2] || p->dw[2] > COPRO_TILER_MAX_TILES) {
            cause = COPRO_TILER_ERR_TILE_COUNT;
        }
        break;
    case COPRO_OP_BIN_BLIT:
        if (p->dw[2] > COPRO_BLIT_PITCH_MAX) {
            cause = COPRO_TILER_ERR_PRIM;
        }
        /* fall through */
    default:
        if (flags) {
            cause = COPRO_TILER_ERR_PRIM;
        }
        break;
    }
    if (cause) {
        e->tiler.cause = cause;
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: tiler: %s\n",
                      e->index, copro_tiler_cause_name(cause));
        return false;
    }
    return true;
}

/* TILE_RENDER: two steps per tile, so progress < 2 * tiles */
bool copro_tiler_progress_ok(CoproEngine *e)
{
    return e->cur.progress < 2ull * e->cur.dw[2];
}

/* Between two tiles of a TILE_RENDER in progress? */
bool copro_tiler_at_boundary(CoproEngine *e)
{
    return e->in_packet && COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_TILE_RENDER &&
           !(e->cur.progress & 1);
}

/*
 * Cost model
 */

/* tiles a primitive at x, y of w x h touches in a w_max x h_max target */
static uint64_t prim_tiles(uint32_t ts, uint32_t x, uint32_t y, uint32_t w,
                           uint32_t h, uint32_t w_max, uint32_t h_max)
{
    x = MIN(x, w_max);
    y = MIN(y, h_max);
    w = MIN(w, w_max - x);
    h = MIN(h, h_max - y);
    if (!w || !h) {
        return 0;
    }
    return (uint64_t)((x + w - 1) / ts - x / ts + 1) *
           ((y + h - 1) / ts - y / ts + 1);
}

uint64_t copro_tiler_step_cost(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproState *s = e->dev;
    uint32_t ts = s->tiler.tile_size;
    CoproTarget *t;
    uint64_t n;

    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_SCENE_BEGIN:
        /* clearing the tile table */
        t = &e->targets[COPRO_PKT_FLAGS(p->hdr) & COPRO_TILER_SLOT_MASK];
        n = (uint64_t)copro_tiles_of(t->width, ts) *
            copro_tiles_of(t->height, ts);
        return copro_cost(e, MIN(n, COPRO_TILER_MAX_TILES) *
                          COPRO_SCENE_TILE_SIZE, s->fill_bw);
    case COPRO_OP_BIN_RECT:
        n = prim_tiles(ts, p->dw[0], p->dw[1], p->dw[2], p->dw[3],
                       e->tiler.scene_w, e->tiler.scene_h);
        return copro_cost(e, COPRO_PRIM_NEED(n), s->copy_bw);
    case COPRO_OP_BIN_BLIT:
        n = prim_tiles(ts, COPRO_BLIT_LO(p->dw[3]), COPRO_BLIT_HI(p->dw[3]),
                       COPRO_BLIT_LO(p->dw[4]), COPRO_BLIT_HI(p->dw[4]),
                       e->tiler.scene_w, e->tiler.scene_h);
        return copro_cost(e, COPRO_PRIM_NEED(n), s->copy_bw);
    case COPRO_OP_TILE_RENDER:
        /* plan steps are free; a render step costs what its plan found */
        return (p->progress & 1) ? e->tiler.tile_cost : 0;
    default:
        return 0;
    }
}

/*
 * Geometry
 */

static StepResult exec_scene_begin(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproState *s = e->dev;
    uint32_t flags = COPRO_PKT_FLAGS(p->hdr);
    CoproTarget *t = &e->targets[flags & COPRO_TILER_SLOT_MASK];
    uint64_t pb = pkt64(p, 0);
    uint32_t ts = s->tiler.tile_size;
    struct copro_scene h = {
        .magic = COPRO_SCENE_MAGIC,
        .state = COPRO_SCENE_OPEN,
        .pb_size = p->dw[2],
        .width = t->width,
        .height = t->height,
        .format = t->format,
        .tile_size = ts,
        .tiles_x = copro_tiles_of(t->width, ts),
        .tiles_y = copro_tiles_of(t->height, ts),
        .flags = (flags & COPRO_SCENE_CLEAR) ? COPRO_SCENE_F_CLEAR : 0,
        .clear_colour = p->dw[3],
        .geom_start = e->cursor,
    };
    uint64_t tiles = (uint64_t)h.tiles_x * h.tiles_y;
    uint64_t table;

    if (e->tiler.scene) {
        return tiler_fail(e, COPRO_TILER_ERR_SCENE_OPEN, e->tiler.scene);
    }
    if (!tiles || tiles > COPRO_TILER_MAX_TILES) {
        return tiler_fail(e, COPRO_TILER_ERR_TILE_COUNT, pb);
    }
    h.heap_start = copro_scene_heap_start(tiles);
    h.used = h.heap_start;
    if (h.pb_size < h.heap_start) {
        return tiler_fail(e, COPRO_TILER_ERR_PB_SIZE, pb);
    }
    /* empty bins, then the header that makes the scene valid */
    memset(e->bounce, 0, TILE_ZERO_CHUNK);
    table = tiles * COPRO_SCENE_TILE_SIZE;
    for (uint64_t off = 0; off < table; off += TILE_ZERO_CHUNK) {
        if (!tl_write(e, copro_gpu_addr_add(pb, COPRO_SCENE_HDR_SIZE + off),
                      e->bounce, MIN(table - off, TILE_ZERO_CHUNK), true)) {
            return STEP_FAULT;
        }
    }
    if (!scene_store(e, pb, &h)) {
        return STEP_FAULT;
    }
    e->tiler.scene = pb;
    e->tiler.scene_ctx = e->desc.context;
    e->tiler.scene_w = h.width;
    e->tiler.scene_h = h.height;
    trace_copro_tiler_scene(e->index, "begin", pb, h.tiles_x, h.tiles_y);
    copro_tl_tiler(e, COPRO_TL_SCENE_BEGIN, pb, e->desc.fence);
    return STEP_DONE;
}

/* The scene open on the engine, checked, for a geometry packet. */
static StepResult geometry_scene(CoproEngine *e, struct copro_scene *h)
{
    StepResult r;

    /*
     * The scene is its submission's (copro_tiler_retire); the context
     * check is a second line: a resumed submission gets its scene back
     * under its own context.
     */
    if (!e->tiler.scene || e->tiler.scene_ctx != e->desc.context) {
        return tiler_fail(e, COPRO_TILER_ERR_NO_SCENE,
                          copro_gpu_addr_add(e->desc.dma_addr, e->pc));
    }
    r = scene_load(e, e->tiler.scene, h);
    if (r != STEP_MORE) {
        return r;
    }
    /* OOM: resumed after a grow; a partial render set it OPEN again */
    if (h->state != COPRO_SCENE_OPEN && h->state != COPRO_SCENE_OOM) {
        return tiler_fail(e, COPRO_TILER_ERR_HEADER, e->tiler.scene);
    }
    /* for the binning cost of the next primitive */
    e->tiler.scene_w = h->width;
    e->tiler.scene_h = h->height;
    return STEP_MORE;
}

/*
 * The parameter buffer is full: stop the submission before the primitive
 * (nothing of it is written), saved as a preemption saves it, with its
 * queued successors dropped, and raise TILER_OOM. The driver grows the
 * buffer or has a partial render run, then resumes the submission.
 *
 * The engine then holds: it fetches nothing from its ring until the
 * driver acknowledges the stop (copro_tiler_ack). A driver writes its
 * ring without knowing of a stop that has just happened; what it writes
 * before it has seen TILER_OOM must not run ahead of the stopped
 * submission (whose resumption it has not written yet), nor retire
 * fences above the stopped one.
 *
 * A hardware queue does not hold the engine: the queue alone waits for
 * the driver's answer (OOM_WAIT, copro_hws_tiler_oom) and keeps its ring.
 */
static StepResult geometry_oom(CoproEngine *e, struct copro_scene *h,
                               uint32_t need)
{
    struct copro_save_record r;
    struct copro_save_tiler st;
    uint64_t pb = e->tiler.scene;

    if (!e->desc.save_addr) {
        /*
         * 0 is "no save area" (the DDI's convention): nowhere to stop. A
         * hardware queue without one cannot wait for the driver either:
         * it goes to ERROR (QUEUE_FAULT, cause QUEUE_OOM).
         */
        return tiler_fail(e, copro_hws_owns(e) ? COPRO_TILER_ERR_QUEUE_OOM
                                                : COPRO_TILER_ERR_NO_SAVE,
                          pb);
    }
    h->state = COPRO_SCENE_OOM;
    h->oom_need = need;
    h->ooms++;
    if (!scene_store(e, pb, h)) {
        return STEP_FAULT;
    }
    copro_save_record_fill(e, &r);
    memcpy(&st, r.reserved, sizeof(st));
    st.flags = cpu_to_le32(le32_to_cpu(st.flags) | COPRO_SAVE_TILER_OOM);
    memcpy(r.reserved, &st, sizeof(st));
    if (!copro_mem_access(e, false, e->desc.save_addr, &r, sizeof(r),
                          true)) {
        return STEP_FAULT;
    }
    e->dev->tiler.stat[COPRO_TS_OOMS]++;
    trace_copro_tiler_oom(e->index, pb, e->desc.fence, h->used, need,
                          h->pb_size);
    copro_tl_tiler(e, COPRO_TL_TILER_OOM, pb, need);
    if (copro_hws_owns(e)) {
        /*
         * A hardware queue waits for the driver's answer as a queue
         * (OOM_WAIT): its ring keeps its entries, the engine goes on
         * with the other queues, and nothing is held.
         */
        copro_engine_stop(e);
        copro_hws_tiler_oom(e, pb, need);
        return STEP_STOPPED;
    }
    e->tiler.oom_need = need;
    e->tiler.oom_fence = e->desc.fence;
    e->ring_head = e->ring_tail;    /* the driver resubmits the rest */
    copro_engine_stop(e);
    e->tiler.held = true;
    trace_copro_tiler_hold(e->index, e->tiler.oom_fence);
    copro_raise_irq(e->dev, COPRO_INT_ENG(e->index, COPRO_INT_TILER_OOM));
    if (e->preempt_pending) {
        /*
         * A held engine has nothing loaded: it is at an arbitration point
         * at every granularity (a PAGING submission's stop included), so
         * a pending request completes now, not at TILER_ACK.
         */
        copro_engine_kick(e);
    }
    return STEP_STOPPED;
}

/*
 * CONTROL.TILER_ACK: the driver has heard of the OOM stop. Whatever it
 * wrote to the ring in the meantime, it wrote not knowing the stopped
 * submission was off the engine: those entries are dropped as the ones
 * queued at the stop were, and the driver resubmits every submission
 * that had not retired (the stopped one with RESUME first) after the ack.
 */
void copro_tiler_ack(CoproEngine *e)
{
    uint32_t dropped;

    if (!e->tiler.held) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: TILER_ACK with no "
                      "OOM stop held, ignored\n", e->index);
        return;
    }
    dropped = e->ring_size ? (e->ring_tail - e->ring_head) &
                             (e->ring_size - 1) : 0;
    e->tiler.held = false;
    e->ring_head = e->ring_tail;
    trace_copro_tiler_ack(e->index, e->tiler.oom_fence, dropped);
    /* a preemption request may wait for the ring (preempt=none) */
    copro_engine_kick_io(e);
}

/* Bin a clipped primitive into every tile it touches, or stop on OOM. */
static StepResult bin_prim(CoproEngine *e, struct copro_prim *pr)
{
    uint64_t pb = e->tiler.scene;
    struct copro_scene h;
    uint32_t ts = e->dev->tiler.tile_size;
    uint32_t tx0, ty0, tx1, ty1, off, node;
    uint64_t need;
    struct copro_prim le;
    StepResult r = geometry_scene(e, &h);

    if (r != STEP_MORE) {
        return r;
    }
    pr->x = MIN(pr->x, h.width);
    pr->y = MIN(pr->y, h.height);
    pr->w = MIN(pr->w, h.width - pr->x);
    pr->h = MIN(pr->h, h.height - pr->y);
    if (!pr->w || !pr->h) {
        return STEP_DONE;   /* wholly outside the target: nothing to bin */
    }
    tx0 = pr->x / ts;
    ty0 = pr->y / ts;
    tx1 = (pr->x + pr->w - 1) / ts;
    ty1 = (pr->y + pr->h - 1) / ts;
    need = COPRO_PRIM_NEED((uint64_t)(tx1 - tx0 + 1) * (ty1 - ty0 + 1));
    if (need > h.pb_size - h.used) {
        return geometry_oom(e, &h, MIN(need, UINT32_MAX));
    }

    off = h.used;
    le = (struct copro_prim) {
        .kind = cpu_to_le32(pr->kind),
        .x = cpu_to_le32(pr->x), .y = cpu_to_le32(pr->y),
        .w = cpu_to_le32(pr->w), .h = cpu_to_le32(pr->h),
        .arg = cpu_to_le32(pr->arg), .src = cpu_to_le64(pr->src),
    };
    if (!tl_write(e, copro_gpu_addr_add(pb, off), &le, sizeof(le), true)) {
        return STEP_FAULT;
    }
    node = off + COPRO_PRIM_SIZE;
    for (uint32_t ty = ty0; ty <= ty1; ty++) {
        for (uint32_t tx = tx0; tx <= tx1; tx++, node += 8) {
            uint32_t tile = ty * h.tiles_x + tx;
            struct copro_bin_node n = {
                .next = 0, .prim = cpu_to_le32(off),
            };
            struct copro_scene_tile t;

            if (!tl_read_tile(e, pb, tile, &t) ||
                !tl_write(e, copro_gpu_addr_add(pb, node), &n, 8, true)) {
                return STEP_FAULT;
            }
            if (!t.head) {
                t.head = node;
            } else if (t.tail < h.heap_start || t.tail > h.used - 8 ||
                       (t.tail & 7)) {
                return tiler_fail(e, COPRO_TILER_ERR_BIN_OUTSIDE,
                                  copro_gpu_addr_add(pb, t.tail));
            } else if (!tl_write32(e, copro_gpu_addr_add(pb, t.tail),
                                   node)) {
                return STEP_FAULT;
            }
            if (!tl_write_tile(e, pb, tile, t.head, node)) {
                return STEP_FAULT;
            }
        }
    }
    h.used = off + need;
    h.prims++;
    h.state = COPRO_SCENE_OPEN;
    if (!scene_store(e, pb, &h)) {
        return STEP_FAULT;
    }
    e->dev->tiler.stat[COPRO_TS_PRIMS]++;
    return STEP_DONE;
}

static StepResult exec_scene_end(CoproEngine *e)
{
    struct copro_scene h;
    StepResult r = geometry_scene(e, &h);
    uint64_t pb = e->tiler.scene;

    if (r != STEP_MORE) {
        return r;
    }
    h.state = COPRO_SCENE_CLOSED;
    h.geom_end = e->cursor;
    if (!scene_store(e, pb, &h)) {
        return STEP_FAULT;
    }
    e->tiler.scene = 0;
    e->dev->tiler.stat[COPRO_TS_SCENES]++;
    trace_copro_tiler_scene(e->index, "end", pb, h.prims, h.used);
    copro_tl_tiler(e, COPRO_TL_SCENE_END, pb, h.prims);
    return STEP_DONE;
}

/*
 * Tile stage
 */

/* what a walk of one tile's bin found */
typedef struct TileWalk {
    uint32_t x, y, w, h;    /* the tile's pixels in the target */
    uint32_t prims;
    bool covered;           /* a primitive covers the whole tile */
    uint64_t pixels;        /* shaded */
    uint64_t bytes;         /* read: parameter buffer and blit sources */
} TileWalk;

static void tile_fill(CoproTiler *tl, uint32_t bpp, uint32_t x, uint32_t y,
                      uint32_t w, uint32_t h, uint32_t colour)
{
    uint32_t pitch = tl->tile_size * bpp;
    uint32_t le = cpu_to_le32(colour);

    for (uint32_t r = 0; r < h; r++) {
        uint8_t *row = tl->tile_mem + (y + r) * pitch + x * bpp;

        for (uint32_t i = 0; i < w; i++) {
            memcpy(row + i * bpp, &le, bpp);
        }
    }
}

/*
 * Walk the bin of @tile: check every node and primitive, price them and,
 * with @draw, draw them into tile memory. The list is bounded by the heap
 * in use, so a looping list is an error, not a hang.
 */
static bool tile_walk(CoproEngine *e, uint64_t pb, const struct copro_scene *h,
                      uint32_t tile, bool draw, TileWalk *w)
{
    CoproTiler *tl = &e->dev->tiler;
    uint32_t ts = tl->tile_size, bpp = copro_fmt_bpp(h->format);
    /*
     * A list longer than the heap can hold loops; a bin is also bounded
     * so that one step's work (three walks) stays small for the host.
     */
    uint64_t max_nodes = MIN((h->used - h->heap_start) / 8 + 1,
                             COPRO_TILER_MAX_BIN);
    struct copro_scene_tile t;
    uint32_t at;

    memset(w, 0, sizeof(*w));
    w->x = (tile % h->tiles_x) * ts;
    w->y = (tile / h->tiles_x) * ts;
    w->w = MIN(ts, h->width - w->x);
    w->h = MIN(ts, h->height - w->y);
    if (!tl_read_tile(e, pb, tile, &t)) {
        return false;
    }
    w->bytes += 8;
    for (at = t.head; at; ) {
        struct copro_bin_node n;
        struct copro_prim pr;
        uint32_t x0, y0, x1, y1;

        if (at < h->heap_start || at > h->used - 8 || (at & 7) ||
            w->prims >= max_nodes) {
            tiler_fail(e, COPRO_TILER_ERR_BIN_OUTSIDE,
                       copro_gpu_addr_add(pb, at));
            return false;
        }
        if (!tl_read(e, copro_gpu_addr_add(pb, at), &n, 8, true)) {
            return false;
        }
        n.next = le32_to_cpu(n.next);
        n.prim = le32_to_cpu(n.prim);
        if (n.prim < h->heap_start || n.prim > h->used - COPRO_PRIM_SIZE ||
            (n.prim & 7)) {
            tiler_fail(e, COPRO_TILER_ERR_BIN_OUTSIDE,
                       copro_gpu_addr_add(pb, n.prim));
            return false;
        }
        if (!tl_read(e, copro_gpu_addr_add(pb, n.prim), &pr, sizeof(pr),
                     true)) {
            return false;
        }
        w->bytes += 8 + sizeof(pr);
        pr.kind = le32_to_cpu(pr.kind);
        pr.x = le32_to_cpu(pr.x);
        pr.y = le32_to_cpu(pr.y);
        pr.w = le32_to_cpu(pr.w);
        pr.h = le32_to_cpu(pr.h);
        pr.arg = le32_to_cpu(pr.arg);
        pr.src = le64_to_cpu(pr.src);
        if ((pr.kind != COPRO_PRIM_RECT && pr.kind != COPRO_PRIM_BLIT) ||
            !pr.w || !pr.h || pr.x >= h->width || pr.y >= h->height ||
            pr.w > h->width - pr.x || pr.h > h->height - pr.y ||
            (pr.kind == COPRO_PRIM_BLIT && pr.arg > COPRO_BLIT_PITCH_MAX)) {
            tiler_fail(e, COPRO_TILER_ERR_PRIM,
                       copro_gpu_addr_add(pb, n.prim));
            return false;
        }
        w->prims++;
        /* the part of the primitive inside this tile (may be empty) */
        x0 = MAX(pr.x, w->x);
        y0 = MAX(pr.y, w->y);
        x1 = MIN(pr.x + pr.w, w->x + w->w);
        y1 = MIN(pr.y + pr.h, w->y + w->h);
        if (x0 < x1 && y0 < y1) {
            w->pixels += (uint64_t)(x1 - x0) * (y1 - y0);
            if (x0 == w->x && y0 == w->y && x1 == w->x + w->w &&
                y1 == w->y + w->h) {
                w->covered = true;
            }
            if (pr.kind == COPRO_PRIM_BLIT) {
                w->bytes += (uint64_t)(x1 - x0) * bpp * (y1 - y0);
            }
            if (draw && pr.kind == COPRO_PRIM_RECT) {
                tile_fill(tl, bpp, x0 - w->x, y0 - w->y, x1 - x0, y1 - y0,
                          pr.arg);
            } else if (draw) {
                for (uint32_t y = y0; y < y1; y++) {
                    uint64_t src = copro_gpu_addr_add(pr.src,
                        (uint64_t)(y - pr.y) * pr.arg +
                        (uint64_t)(x0 - pr.x) * bpp);

                    if (!tl_read(e, src, tl->tile_mem +
                                 (y - w->y) * ts * bpp + (x0 - w->x) * bpp,
                                 (x1 - x0) * bpp, false)) {
                        return false;
                    }
                }
            }
        }
        at = n.next;
    }
    return true;
}

/*
 * A walk that only looks (to plan): what it reads is not counted, the
 * walk that draws the tile counts the same reads.
 */
static bool tile_walk_quiet(CoproEngine *e, uint64_t pb,
                            const struct copro_scene *h, uint32_t tile,
                            TileWalk *w)
{
    uint64_t mem = e->tiler.stat_mem_read;
    uint64_t pbr = e->dev->tiler.stat[COPRO_TS_PB_READ];
    bool ok = tile_walk(e, pb, h, tile, false, w);

    e->tiler.stat_mem_read = mem;
    e->dev->tiler.stat[COPRO_TS_PB_READ] = pbr;
    return ok;
}

/* What the tile does with the target: load (before) and store (after). */
static void tile_plan(const struct copro_scene *h, const TileWalk *w,
                      bool *load, bool *store)
{
    bool clear = h->flags & COPRO_SCENE_F_CLEAR;
    bool stored = h->flags & COPRO_SCENE_F_STORED;

    if (!w->prims) {
        /*
         * An empty bin leaves the target as it is, unless the scene
         * clears and no partial render has stored the cleared tile yet.
         */
        *load = false;
        *store = clear && !stored;
        return;
    }
    /* content survives from the target unless covered or cleared */
    *load = !w->covered && (stored || !clear);
    *store = true;
}

static uint64_t tile_row_addr(const CoproTarget *t, uint32_t x, uint32_t y,
                              uint32_t bpp)
{
    return copro_gpu_addr_add(t->addr, (uint64_t)y * t->pitch +
                              (uint64_t)x * bpp);
}

/* Load or store the tile's rows between tile memory and the target. */
static bool tile_move(CoproEngine *e, const CoproTarget *t,
                      const TileWalk *w, bool store)
{
    CoproTiler *tl = &e->dev->tiler;
    uint32_t bpp = copro_fmt_bpp(t->format);
    uint32_t pitch = tl->tile_size * bpp;

    for (uint32_t r = 0; r < w->h; r++) {
        uint64_t addr = tile_row_addr(t, w->x, w->y + r, bpp);
        uint8_t *row = tl->tile_mem + r * pitch;
        bool ok = store ? tl_write(e, addr, row, w->w * bpp, false)
                        : tl_read(e, addr, row, w->w * bpp, false);

        if (!ok) {
            return false;
        }
    }
    tl->stat[COPRO_TS_TILE_BYTES] += (uint64_t)w->w * w->h * bpp;
    tl->stat[store ? COPRO_TS_STORES : COPRO_TS_LOADS]++;
    return true;
}

/* The scene of a TILE_RENDER, checked against the packet and its target */
static StepResult tile_scene(CoproEngine *e, struct copro_scene *h)
{
    CoproPacket *p = &e->cur;
    uint64_t pb = pkt64(p, 0);
    bool partial = COPRO_PKT_FLAGS(p->hdr) & COPRO_TILE_PARTIAL;
    CoproTarget *t = &e->targets[COPRO_PKT_FLAGS(p->hdr) &
                                 COPRO_TILER_SLOT_MASK];
    StepResult r = scene_load(e, pb, h);

    if (r != STEP_MORE) {
        return r;
    }
    if (partial && h->state != COPRO_SCENE_OOM) {
        return tiler_fail(e, COPRO_TILER_ERR_NOT_OOM, pb);
    }
    if (!partial && h->state != COPRO_SCENE_CLOSED) {
        return tiler_fail(e, COPRO_TILER_ERR_NOT_CLOSED, pb);
    }
    if (p->dw[2] != h->tiles_x * h->tiles_y) {
        return tiler_fail(e, COPRO_TILER_ERR_TILE_COUNT, pb);
    }
    if (t->width != h->width || t->height != h->height ||
        t->format != h->format) {
        return tiler_fail(e, COPRO_TILER_ERR_TARGET, t->addr);
    }
    return STEP_MORE;
}

/* Plan step: price the next tile. */
static StepResult tile_plan_step(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproState *s = e->dev;
    struct copro_scene h;
    TileWalk w;
    bool load, store;
    uint64_t bytes, ns, bpp;
    StepResult r = tile_scene(e, &h);

    if (r != STEP_MORE) {
        return r;
    }
    if (!tile_walk_quiet(e, pkt64(p, 0), &h, p->progress / 2, &w)) {
        return STEP_FAULT;
    }
    tile_plan(&h, &w, &load, &store);
    bpp = copro_fmt_bpp(h.format);
    bytes = w.bytes + (load + store) * (uint64_t)w.w * w.h * bpp;
    ns = s->tiler.tile_ns + copro_cost(e, bytes, s->copy_bw);
    ns += copro_cost(e, w.pixels + ((h.flags & COPRO_SCENE_F_CLEAR) && !load
                                    ? (uint64_t)w.w * w.h : 0),
                     s->pixel_rate);
    e->tiler.tile_cost = s->timing == COPRO_TIMING_MODELLED ? ns : 0;
    if (p->progress == 0 && !h.tile_start) {
        h.tile_start = e->cursor;
        if (!scene_store(e, pkt64(p, 0), &h)) {
            return STEP_FAULT;
        }
    }
    if (p->progress == 0) {
        copro_tl_tiler(e, COPRO_TL_TILE_PASS_START, pkt64(p, 0),
                       !!(COPRO_PKT_FLAGS(p->hdr) & COPRO_TILE_PARTIAL));
    }
    p->progress++;
    return STEP_MORE;
}

/* After the last tile: a partial render empties the bins. */
static StepResult tile_pass_end(CoproEngine *e, struct copro_scene *h)
{
    CoproPacket *p = &e->cur;
    uint64_t pb = pkt64(p, 0);
    bool partial = COPRO_PKT_FLAGS(p->hdr) & COPRO_TILE_PARTIAL;

    if (partial) {
        uint64_t table = (uint64_t)h->tiles_x * h->tiles_y *
                         COPRO_SCENE_TILE_SIZE;

        memset(e->bounce, 0, TILE_ZERO_CHUNK);
        for (uint64_t off = 0; off < table; off += TILE_ZERO_CHUNK) {
            if (!tl_write(e, copro_gpu_addr_add(pb, COPRO_SCENE_HDR_SIZE +
                                                off),
                          e->bounce, MIN(table - off, TILE_ZERO_CHUNK),
                          true)) {
                return STEP_FAULT;
            }
        }
        h->used = h->heap_start;
        h->flags |= COPRO_SCENE_F_STORED;
        h->state = COPRO_SCENE_OPEN;
        h->partials++;
        e->dev->tiler.stat[COPRO_TS_PARTIALS]++;
    } else {
        h->state = COPRO_SCENE_RENDERED;
        h->tile_end = e->cursor;
    }
    if (!scene_store(e, pb, h)) {
        return STEP_FAULT;
    }
    trace_copro_tiler_scene(e->index, partial ? "partial" : "rendered", pb,
                            h->tiles_x, h->tiles_y);
    copro_tl_tiler(e, COPRO_TL_TILE_PASS_END, pb, partial);
    return STEP_DONE;
}

/* Render step: the tile, through tile memory. */
static StepResult tile_render_step(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    CoproTiler *tl = &e->dev->tiler;
    CoproTarget *t = &e->targets[COPRO_PKT_FLAGS(p->hdr) &
                                 COPRO_TILER_SLOT_MASK];
    uint32_t tile = p->progress / 2;
    struct copro_scene h;
    TileWalk w;
    bool load, store;
    StepResult r = tile_scene(e, &h);

    if (r != STEP_MORE) {
        return r;
    }
    /* first what the tile needs, then the tile */
    if (!tile_walk_quiet(e, pkt64(p, 0), &h, tile, &w)) {
        return STEP_FAULT;
    }
    tile_plan(&h, &w, &load, &store);
    if (load) {
        if (!tile_move(e, t, &w, false)) {
            return STEP_FAULT;
        }
    } else {
        if (w.prims) {
            tl->stat[COPRO_TS_LOAD_SKIPS]++;
        }
        if (h.flags & COPRO_SCENE_F_CLEAR) {
            tile_fill(tl, copro_fmt_bpp(h.format), 0, 0, w.w, w.h,
                      h.clear_colour);
        }
    }
    if (!tile_walk(e, pkt64(p, 0), &h, tile, true, &w) ||
        (store && !tile_move(e, t, &w, true))) {
        return STEP_FAULT;
    }
    tl->stat[COPRO_TS_TILES]++;
    p->progress++;
    if (p->progress < 2ull * p->dw[2]) {
        return STEP_MORE;
    }
    return tile_pass_end(e, &h);
}

StepResult copro_tiler_exec(CoproEngine *e)
{
    CoproPacket *p = &e->cur;
    struct copro_prim pr = { 0 };

    trace_copro_tiler_step(e->index, copro_op_name(COPRO_PKT_OP(p->hdr)),
                           p->progress);
    switch (COPRO_PKT_OP(p->hdr)) {
    case COPRO_OP_SCENE_BEGIN:
        return exec_scene_begin(e);
    case COPRO_OP_BIN_RECT:
        pr = (struct copro_prim) {
            .kind = COPRO_PRIM_RECT, .x = p->dw[0], .y = p->dw[1],
            .w = p->dw[2], .h = p->dw[3], .arg = p->dw[4],
        };
        return bin_prim(e, &pr);
    case COPRO_OP_BIN_BLIT:
        pr = (struct copro_prim) {
            .kind = COPRO_PRIM_BLIT,
            .x = COPRO_BLIT_LO(p->dw[3]), .y = COPRO_BLIT_HI(p->dw[3]),
            .w = COPRO_BLIT_LO(p->dw[4]), .h = COPRO_BLIT_HI(p->dw[4]),
            .arg = p->dw[2], .src = pkt64(p, 0),
        };
        return bin_prim(e, &pr);
    case COPRO_OP_SCENE_END:
        return exec_scene_end(e);
    case COPRO_OP_TILE_RENDER:
        return (p->progress & 1) ? tile_render_step(e) : tile_plan_step(e);
    default:
        g_assert_not_reached();
    }
}

/*
 * A scene lives within its submission (and the resumptions of it, which
 * get it back from the save record): one left open when the submission
 * retires is dropped, so that no other submission, of this context or
 * another, ever bins into it or is refused a SCENE_BEGIN because of it.
 * It stays OPEN in memory; a final TILE_RENDER of it is NOT_CLOSED.
 */
void copro_tiler_retire(CoproEngine *e)
{
    if (e->tiler.scene) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: fence %" PRIu64
                      " retired with scene 0x%" PRIx64 " open (no "
                      "SCENE_END): dropped\n", e->index, e->desc.fence,
                      e->tiler.scene);
        e->tiler.scene = 0;
    }
}
