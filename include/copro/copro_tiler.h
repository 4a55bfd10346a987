/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro hardware ABI: the tiling path (COPRO_CAP_TILER), scene-based
 * rendering as tilers do it (PowerVR, Mali, Adreno, Apple's AGX). See
 * docs/specs/copro.rst, "Tiling".
 *
 * A scene is rendered in two stages, each a DMA buffer of its own:
 *
 *   geometry   SCENE_BEGIN, then BIN_RECT / BIN_BLIT primitives, then
 *              SCENE_END: every primitive is clipped to the scene's target
 *              and appended to the list ("bin") of every tile it touches,
 *              in a parameter buffer in GPU memory
 *   tile       TILE_RENDER: tile by tile, the bin is drawn into on-chip
 *              tile memory, which is stored to the target once per tile
 *
 * Both are ordinary packets that any render engine executes; the stages
 * meet only through the parameter buffer, so a driver runs them on two
 * engines (two rings, two schedulers: geometry of scene N+1 overlaps the
 * tile pass of scene N) or on one. Plain C with <stdint.h> and
 * copro_cmd.h only.
 */
#ifndef COPRO_TILER_H
#define COPRO_TILER_H

#include <stdint.h>

#include "copro_cmd.h"     /* COPRO_TARGET_MAX_DIM, copro_fmt_bpp */

/* COPRO_REG_CAPS bit (copro_regs.h numbers the others) */
#define COPRO_CAP_TILER             (1u << 9)

/*
 * Packets (opcodes, lengths: copro_cmd.h; payload described here).
 *
 * SCENE_BEGIN  flags: bits 0..1 target slot (bound with SET_TARGET),
 *              bit 2 COPRO_SCENE_CLEAR. Payload: pb64 (8-aligned GPU
 *              address of the parameter buffer), pb_size32 (bytes the
 *              device may use, at most COPRO_PB_MAX), clear colour32.
 * BIN_RECT     x, y, w, h, colour (as RECT; clipped to the scene target)
 * BIN_BLIT     src64 (GPU address of the source's top-left pixel, in the
 *              target's format), src_pitch32 (at most
 *              COPRO_BLIT_PITCH_MAX), xy32 (x | y << 16), wh32
 *              (w | h << 16). The source is read by the tile stage.
 *              Coordinates are unsigned; clipping cuts only at the right
 *              and bottom edges.
 * SCENE_END    no payload
 * TILE_RENDER  flags: bits 0..1 target slot, bit 2 COPRO_TILE_PARTIAL.
 *              Payload: pb64, tiles32 (must equal the scene's tile count)
 */
#define COPRO_SCENE_CLEAR           (1u << 2)   /* SCENE_BEGIN flag */
#define COPRO_TILE_PARTIAL          (1u << 2)   /* TILE_RENDER flag */
#define COPRO_TILER_SLOT_MASK       3u
#define COPRO_BLIT_XY(x, y)         ((uint32_t)(x) | ((uint32_t)(y) << 16))
#define COPRO_BLIT_LO(v)            ((v) & 0xffffu)
#define COPRO_BLIT_HI(v)            ((v) >> 16)

/*
 * Parameter buffer: a scene header, then the tile table, then the heap
 * of primitive records and bin nodes. All offsets are bytes from the
 * parameter buffer's start; 0 ends a list. The device keeps the header
 * current after every geometry packet; the driver writes only pb_size
 * (to grow the buffer, and only between an OOM stop and the RESUME of
 * the stopped submission: the device writes the whole header back after
 * every geometry packet) and reads the rest.
 */
struct copro_scene {
    uint32_t magic;         /* COPRO_SCENE_MAGIC */
    uint32_t state;         /* COPRO_SCENE_* */
    uint32_t pb_size;       /* bytes usable; the driver may raise it
                               while the scene is stopped on OOM */
    uint32_t used;          /* heap top: bytes in use */
    uint32_t width;         /* target, pixels */
    uint32_t height;
    uint32_t format;        /* COPRO_FMT_* */
    uint32_t tile_size;     /* pixels per tile side */
    uint32_t tiles_x;
    uint32_t tiles_y;
    uint32_t flags;         /* COPRO_SCENE_F_* */
    uint32_t clear_colour;
    uint32_t heap_start;    /* offset of the heap (after the tile table) */
    uint32_t prims;         /* primitives binned since SCENE_BEGIN */
    uint32_t oom_need;      /* bytes the primitive that did not fit needs */
    uint32_t ooms;          /* out-of-memory stops */
    uint32_t partials;      /* partial renders done */
    uint32_t reserved0;
    uint64_t geom_start;    /* GPU time (ns): SCENE_BEGIN executed */
    uint64_t geom_end;      /* SCENE_END executed */
    uint64_t tile_start;    /* first tile of the first tile pass
                               (partial or final) */
    uint64_t tile_end;      /* last tile of the final tile pass */
    uint64_t reserved1[3];
};

struct copro_scene_tile {   /* one tile table entry: its bin */
    uint32_t head;          /* first node, 0: empty */
    uint32_t tail;          /* last node */
};

struct copro_bin_node {     /* one primitive in one tile's bin */
    uint32_t next;          /* next node, 0: end */
    uint32_t prim;          /* offset of its struct copro_prim */
};

struct copro_prim {         /* a binned primitive, clipped to the target */
    uint32_t kind;          /* COPRO_PRIM_* */
    uint32_t x, y, w, h;    /* in target pixels */
    uint32_t arg;           /* RECT: colour; BLIT: source pitch */
    uint64_t src;           /* BLIT: source of pixel (x, y) */
};

#define COPRO_SCENE_MAGIC           0x4e454353u     /* "SCEN" */
#define COPRO_SCENE_HDR_SIZE        128u
#define COPRO_SCENE_TILE_SIZE       8u              /* tile table entry */
#define COPRO_BIN_NODE_SIZE         8u
#define COPRO_PRIM_SIZE             32u
/* heap bytes a primitive touching @tiles tiles needs */
#define COPRO_PRIM_NEED(tiles)      (COPRO_PRIM_SIZE + \
                                     (uint64_t)(tiles) * COPRO_BIN_NODE_SIZE)

/* heap_start of a scene of @tiles tiles */
static inline uint32_t copro_scene_heap_start(uint32_t tiles)
{
    return COPRO_SCENE_HDR_SIZE + tiles * COPRO_SCENE_TILE_SIZE;
}

/* Tiles along a side of @pixels at @tile_size pixels per tile side. */
static inline uint32_t copro_tiles_of(uint32_t pixels, uint32_t tile_size)
{
    return (uint32_t)(((uint64_t)pixels + tile_size - 1) / tile_size);
}

/* struct copro_scene.state */
#define COPRO_SCENE_OPEN            1   /* geometry running or preempted */
#define COPRO_SCENE_OOM             2   /* geometry stopped: buffer full */
#define COPRO_SCENE_CLOSED          3   /* SCENE_END done: ready to render */
#define COPRO_SCENE_RENDERED        4   /* final tile pass done */

/* struct copro_scene.flags */
#define COPRO_SCENE_F_CLEAR         (1u << 0)   /* tiles start cleared */
#define COPRO_SCENE_F_STORED        (1u << 1)   /* a partial render stored
                                                   tiles: later passes load
                                                   them */

#define COPRO_PRIM_RECT             1
#define COPRO_PRIM_BLIT             2

/* limits */
#define COPRO_PB_MAX                (64u << 20) /* pb_size, bytes */
#define COPRO_TILER_MAX_TILES       65536u      /* tiles_x * tiles_y */
#define COPRO_TILER_MAX_BIN         65536u      /* primitives in one bin */
#define COPRO_TILE_SIZE_DEFAULT     32u         /* "tile-size" property */
#define COPRO_TILE_SIZE_MIN         8u
#define COPRO_TILE_SIZE_MAX         256u
#define COPRO_BLIT_PITCH_MAX        (1u << 20)

/*
 * The device's check of a scene header (in host byte order) at every
 * packet that reads it, on a device of @tile_size: the error cause
 * (COPRO_TILER_ERR_*, below), COPRO_TILER_ERR_NONE for a good header.
 * Everything the device derives addresses or loop bounds from is here.
 */
static inline uint32_t copro_scene_check(const struct copro_scene *h,
                                         uint32_t tile_size);

/*
 * Per-engine registers (offsets in the engine block, copro_regs.h).
 */
#define COPRO_ENG_TILER_CAUSE       0xd8    /* 32: RO, COPRO_TILER_ERR_* of
                                               the last BAD_PACKET fault of
                                               a tiler packet */
#define COPRO_ENG_TILER_OOM_NEED    0xdc    /* 32: RO, bytes the primitive
                                               that did not fit needs */
#define COPRO_ENG_TILER_OOM_FENCE   0xe0    /* 64: RO, fence of the
                                               submission stopped by OOM */
#define COPRO_ENG_STAT_MEM_READ     0xe8    /* 64: RO, bytes packets read
                                               from GPU memory (COPY source,
                                               tile loads, parameter buffer,
                                               blit sources) */
#define COPRO_ENG_STAT_MEM_WRITE    0xf0    /* 64: RO, bytes packets wrote
                                               (COPY/FILL/RECT destinations,
                                               tile stores, parameter
                                               buffer) */
#define COPRO_ENG_TILER_SCENE       0xf8    /* 64: RO, parameter buffer of
                                               the scene open on the engine
                                               (0: none) */

/*
 * The hold after an OOM stop (docs/specs/copro.rst, "Parameter buffer
 * full"): from the stop until the driver acknowledges it the engine
 * fetches nothing from its kernel ring. STATE reads HELD while the engine
 * is held and has nothing loaded. CONTROL.TILER_ACK (write 1) ends the
 * hold: the ring entries written since the stop, not fetched, are
 * dropped (RING_HEAD = RING_TAIL), as those queued at the stop were, and
 * the engine fetches what is written from then on. An ack with no hold
 * pending is a guest error and changes nothing. Engine and device reset
 * end a hold too. Hardware queues never hold: the queue waits in
 * COPRO_HWQ_STATE_OOM_WAIT while the others run (copro_hwsched.h).
 */
#define COPRO_ENG_STATE_HELD        4           /* STATE value (copro_regs.h
                                                   numbers the others) */
#define COPRO_ENG_CTL_TILER_ACK     (1u << 5)   /* CONTROL bit (copro_regs.h
                                                   numbers the others) */

/* COPRO_ENG_TILER_CAUSE */
#define COPRO_TILER_ERR_NONE        0
#define COPRO_TILER_ERR_NO_SCENE    1   /* BIN_* or SCENE_END, none open
                                           (by this submission) */
#define COPRO_TILER_ERR_SCENE_OPEN  2   /* SCENE_BEGIN with one open */
#define COPRO_TILER_ERR_HEADER      3   /* scene header invalid (magic,
                                           sizes, tile size, state), or
                                           TILE_RENDER's pb64 not
                                           8-aligned */
#define COPRO_TILER_ERR_PB_SIZE     4   /* pb_size below the tile table,
                                           above COPRO_PB_MAX, or below
                                           used; used not 8-aligned;
                                           SCENE_BEGIN's pb64 not
                                           8-aligned */
#define COPRO_TILER_ERR_TILE_COUNT  5   /* no tile (target 0 wide or
                                           high) or above the maximum,
                                           the header's tiles_x/tiles_y/
                                           heap_start not the target's,
                                           or TILE_RENDER's count (0
                                           included) differs */
#define COPRO_TILER_ERR_NOT_CLOSED  6   /* final TILE_RENDER: geometry
                                           did not finish (SCENE_END) */
#define COPRO_TILER_ERR_NOT_OOM     7   /* partial TILE_RENDER: geometry
                                           is not stopped on OOM */
#define COPRO_TILER_ERR_BIN_OUTSIDE 8   /* a bin node or primitive lies
                                           outside the heap in use, or a
                                           bin list loops or holds more
                                           than COPRO_TILER_MAX_BIN */
#define COPRO_TILER_ERR_TARGET      9   /* TILE_RENDER target differs
                                           from the scene's, slot
                                           unbound, or unknown flags on
                                           SCENE_BEGIN / TILE_RENDER */
#define COPRO_TILER_ERR_PRIM        10  /* primitive record invalid, a
                                           blit pitch above the maximum,
                                           or flags on BIN_* / SCENE_END */
#define COPRO_TILER_ERR_NO_SAVE     11  /* OOM in a submission whose
                                           save_addr is 0 */
#define COPRO_TILER_ERR_QUEUE_OOM   12  /* OOM on a hardware queue whose
                                           descriptor has no save area
                                           (save_addr 0). Kept for ABI
                                           stability: a queue with a save
                                           area waits for the driver
                                           instead (OOM_WAIT,
                                           copro_hwsched.h) */

/* per-engine interrupt causes (shifted by COPRO_INT_ENGINE_SHIFT(e)) */
#define COPRO_INT_TILER_OOM         (1u << 6)   /* geometry stopped: the
                                                   parameter buffer is full;
                                                   the engine holds until
                                                   CONTROL.TILER_ACK. Not in
                                                   COPRO_INT_ENGINE_ALL:
                                                   unmask it as well */
/* bit 7 is reserved for the tiler */

/*
 * Device registers (BAR0)
 */
#define COPRO_REG_TILER_TILE_SIZE   0x0600  /* 32: RO, pixels per side */
#define COPRO_REG_TILER_MAX_TILES   0x0604  /* 32: RO */
#define COPRO_REG_TILER_TILE_NS     0x0608  /* 64: RO, fixed cost per tile */
/* statistics, 64-bit, read-only, cleared by device reset */
#define COPRO_REG_TILER_STAT_SCENES   0x0610    /* SCENE_END executed */
#define COPRO_REG_TILER_STAT_PRIMS    0x0618    /* primitives binned */
#define COPRO_REG_TILER_STAT_TILES    0x0620    /* tiles rendered */
#define COPRO_REG_TILER_STAT_LOADS    0x0628    /* tiles loaded from target */
#define COPRO_REG_TILER_STAT_LOAD_SKIPS 0x0630  /* loads avoided: cleared or
                                                   covered tiles */
#define COPRO_REG_TILER_STAT_STORES   0x0638    /* tiles stored */
#define COPRO_REG_TILER_STAT_TILE_BYTES 0x0640  /* bytes loaded + stored */
#define COPRO_REG_TILER_STAT_PB_READ  0x0648    /* parameter-buffer bytes */
#define COPRO_REG_TILER_STAT_PB_WRITE 0x0650
#define COPRO_REG_TILER_STAT_OOMS     0x0658    /* OOM stops */
#define COPRO_REG_TILER_STAT_PARTIALS 0x0660    /* partial renders */

/*
 * The save record's reserved bytes (struct copro_save_record.reserved,
 * version unchanged: a record without a scene has them zero).
 */
struct copro_save_tiler {
    uint64_t scene;         /* parameter buffer of the open scene, or 0 */
    uint32_t tile_next;     /* TILE_RENDER in progress: next tile
                               (informative: resumed from progress) */
    uint32_t flags;         /* COPRO_SAVE_TILER_* */
    uint8_t reserved[48];
};

#define COPRO_SAVE_TILER_SCENE      (1u << 0)   /* scene is valid */
#define COPRO_SAVE_TILER_OOM        (1u << 1)   /* saved by an OOM stop */

_Static_assert(sizeof(struct copro_scene) == COPRO_SCENE_HDR_SIZE,
               "scene header layout");
_Static_assert(sizeof(struct copro_prim) == COPRO_PRIM_SIZE,
               "primitive record layout");
_Static_assert(sizeof(struct copro_save_tiler) == 64,
               "save record: the tiler's part of reserved[]");

static inline uint32_t copro_scene_check(const struct copro_scene *h,
                                         uint32_t tile_size)
{
    uint64_t tiles = (uint64_t)h->tiles_x * h->tiles_y;

    if (h->magic != COPRO_SCENE_MAGIC || h->tile_size != tile_size ||
        h->state < COPRO_SCENE_OPEN || h->state > COPRO_SCENE_RENDERED ||
        !h->width || !h->height || h->width > COPRO_TARGET_MAX_DIM ||
        h->height > COPRO_TARGET_MAX_DIM || !copro_fmt_bpp(h->format)) {
        return COPRO_TILER_ERR_HEADER;
    }
    if (h->tiles_x != copro_tiles_of(h->width, tile_size) ||
        h->tiles_y != copro_tiles_of(h->height, tile_size) ||
        tiles > COPRO_TILER_MAX_TILES ||
        h->heap_start != copro_scene_heap_start((uint32_t)tiles)) {
        return COPRO_TILER_ERR_TILE_COUNT;
    }
    if (h->pb_size > COPRO_PB_MAX || h->used < h->heap_start ||
        h->used > h->pb_size || (h->used & 7)) {
        return COPRO_TILER_ERR_PB_SIZE;
    }
    return COPRO_TILER_ERR_NONE;
}

#endif /* COPRO_TILER_H */
