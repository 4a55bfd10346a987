/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the tiler's engine state outside its packets: what a save record
 * keeps of it, its registers, reset, properties and migration. The
 * packets are copro-tiler.c; docs/specs/copro.rst, "Tiling".
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

/*
 * Save records: the scene open on the engine and the next tile
 */
void copro_tiler_save(CoproEngine *e, struct copro_save_record *r)
{
    struct copro_save_tiler st = { 0 };

    QEMU_BUILD_BUG_ON(sizeof(st) != sizeof(r->reserved));
    if (e->tiler.scene) {
        st.scene = cpu_to_le64(e->tiler.scene);
        st.flags |= COPRO_SAVE_TILER_SCENE;
    }
    if (e->in_packet && COPRO_PKT_OP(e->cur.hdr) == COPRO_OP_TILE_RENDER) {
        st.tile_next = cpu_to_le32(e->cur.progress / 2);
    }
    st.flags = cpu_to_le32(st.flags);
    memcpy(r->reserved, &st, sizeof(st));
}

bool copro_tiler_restore(CoproEngine *e, const struct copro_save_record *r)
{
    struct copro_save_tiler st;
    uint32_t flags;

    memcpy(&st, r->reserved, sizeof(st));
    flags = le32_to_cpu(st.flags);
    st.scene = le64_to_cpu(st.scene);
    if ((flags & ~(COPRO_SAVE_TILER_SCENE | COPRO_SAVE_TILER_OOM)) ||
        (st.scene & 7) || (!(flags & COPRO_SAVE_TILER_SCENE) && st.scene)) {
        return false;
    }
    e->tiler.scene = st.scene;
    e->tiler.scene_ctx = e->desc.context;
    e->tiler.scene_w = e->tiler.scene_h = COPRO_TARGET_MAX_DIM;
    return true;
}

/*
 * Registers, reset, properties
 */
uint64_t copro_tiler_engine_read(CoproEngine *e, hwaddr reg)
{
    switch (reg) {
    case COPRO_ENG_TILER_CAUSE:
        return e->tiler.cause;
    case COPRO_ENG_TILER_OOM_NEED:
        return e->tiler.oom_need;
    case COPRO_ENG_TILER_OOM_FENCE:
        return e->tiler.oom_fence;
    case COPRO_ENG_STAT_MEM_READ:
        return e->tiler.stat_mem_read;
    case COPRO_ENG_STAT_MEM_WRITE:
        return e->tiler.stat_mem_write;
    case COPRO_ENG_TILER_SCENE:
        return e->tiler.scene;
    default:
        return 0;
    }
}

uint64_t copro_tiler_read(CoproState *s, hwaddr reg)
{
    switch (reg) {
    case COPRO_REG_TILER_TILE_SIZE:
        return s->tiler.tile_size;
    case COPRO_REG_TILER_MAX_TILES:
        return COPRO_TILER_MAX_TILES;
    case COPRO_REG_TILER_TILE_NS:
        return s->tiler.tile_ns;
    case COPRO_REG_TILER_STAT_SCENES ... COPRO_REG_TILER_STAT_PARTIALS:
        return s->tiler.stat[(reg - COPRO_REG_TILER_STAT_SCENES) / 8];
    default:
        return 0;
    }
}

/*
 * an engine reset abandons the scene it was building (and its cause) and
 * ends a hold: the reset drops the ring as the ack would
 */
void copro_tiler_engine_soft_reset(CoproEngine *e)
{
    e->tiler.scene = 0;
    e->tiler.tile_cost = 0;
    e->tiler.cause = 0;
    e->tiler.held = false;
}

void copro_tiler_reset(CoproState *s)
{
    memset(s->tiler.stat, 0, sizeof(s->tiler.stat));
}

bool copro_tiler_check_props(CoproState *s, Error **errp)
{
    uint32_t ts = s->tiler.tile_size;

    if (ts < COPRO_TILE_SIZE_MIN || ts > COPRO_TILE_SIZE_MAX ||
        !is_power_of_2(ts)) {
        error_setg(errp, "copro: tile-size=%" PRIu32 " is not a power of "
                   "two from %u to %u", ts, COPRO_TILE_SIZE_MIN,
                   COPRO_TILE_SIZE_MAX);
        return false;
    }
    if (s->tiler.tile_ns > COPRO_PACKET_NS_MAX) {
        error_setg(errp, "copro: tile-ns=%" PRIu64 " is above the limit of "
                   "%llu ns (1 s)", s->tiler.tile_ns, COPRO_PACKET_NS_MAX);
        return false;
    }
    return true;
}

void copro_tiler_init(CoproState *s)
{
    s->tiler.tile_mem = g_malloc0((size_t)s->tiler.tile_size *
                                  s->tiler.tile_size * 4);
}

void copro_tiler_fini(CoproState *s)
{
    g_clear_pointer(&s->tiler.tile_mem, g_free);
}

/*
 * Migration
 */

/* the price of one tile is bounded: it cannot wrap the engine clock */
#define TILE_COST_MAX   (16 * COPRO_PACKET_NS_MAX)

bool copro_tiler_engine_post_load(CoproEngine *e)
{
    if ((e->tiler.scene & 7) || e->tiler.tile_cost > TILE_COST_MAX ||
        e->tiler.scene_w > COPRO_TARGET_MAX_DIM ||
        e->tiler.scene_h > COPRO_TARGET_MAX_DIM) {
        return false;
    }
    /*
     * A held engine has loaded nothing from its ring since the stop: what
     * runs on it can only be a hardware queue's, and a fault of one does
     * not halt the engine.
     */
    if (e->tiler.held && (e->state == COPRO_ENG_STATE_HALTED ||
                          (e->active && !copro_hws_owns(e)))) {
        return false;
    }
    return true;
}

static bool copro_tiler_hold_needed(void *opaque)
{
    CoproEngine *e = opaque;

    return e->tiler.held;
}

/* only while held, so that a stream without a hold loads anywhere */
static const VMStateDescription vmstate_copro_tiler_hold = {
    .name = "copro/engine/tiler/hold",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_tiler_hold_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(tiler.held, CoproEngine),
        VMSTATE_END_OF_LIST()
    },
};

static bool copro_tiler_engine_needed(void *opaque)
{
    CoproEngine *e = opaque;

    return e->tiler.scene || e->tiler.tile_cost || e->tiler.cause ||
           e->tiler.oom_need || e->tiler.oom_fence || e->tiler.held ||
           e->tiler.stat_mem_read || e->tiler.stat_mem_write;
}

const VMStateDescription vmstate_copro_tiler_engine = {
    .name = "copro/engine/tiler",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_tiler_engine_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(tiler.scene, CoproEngine),
        VMSTATE_UINT32(tiler.scene_ctx, CoproEngine),
        VMSTATE_UINT32(tiler.scene_w, CoproEngine),
        VMSTATE_UINT32(tiler.scene_h, CoproEngine),
        VMSTATE_UINT64(tiler.tile_cost, CoproEngine),
        VMSTATE_UINT32(tiler.cause, CoproEngine),
        VMSTATE_UINT32(tiler.oom_need, CoproEngine),
        VMSTATE_UINT64(tiler.oom_fence, CoproEngine),
        VMSTATE_UINT64(tiler.stat_mem_read, CoproEngine),
        VMSTATE_UINT64(tiler.stat_mem_write, CoproEngine),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_copro_tiler_hold,
        NULL
    },
};

static bool copro_tiler_needed(void *opaque)
{
    CoproState *s = opaque;

    for (unsigned i = 0; i < COPRO_TS_COUNT; i++) {
        if (s->tiler.stat[i]) {
            return true;
        }
    }
    return false;
}

const VMStateDescription vmstate_copro_tiler = {
    .name = "copro/tiler",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = copro_tiler_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64_ARRAY(tiler.stat, CoproState, COPRO_TS_COUNT),
        VMSTATE_END_OF_LIST()
    },
};
