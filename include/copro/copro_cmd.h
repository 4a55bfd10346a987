/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro hardware ABI: ring entries (submission descriptors) and the packet
 * formats of DMA buffers. See docs/specs/copro.rst.
 *
 * All structures are little-endian and naturally aligned.
 */
#ifndef COPRO_CMD_H
#define COPRO_CMD_H

#include <stdint.h>

/*
 * GPU address space. [0, vram) is VRAM; the aperture follows at
 * COPRO_APERTURE_BASE (also readable from COPRO_REG_APERTURE_BASE).
 */
#define COPRO_APERTURE_BASE         (1ull << 40)
#define COPRO_GPU_PAGE_SIZE         4096u

/*
 * Ring entry: one submission (WDDM's SubmitCommand). 64 bytes.
 */
struct copro_submit_desc {
    uint64_t dma_addr;      /* GPU address of the DMA buffer, 4-aligned */
    uint32_t dma_len;       /* bytes, multiple of 4, at most COPRO_DMA_MAX */
    uint32_t flags;         /* COPRO_SUBMIT_* */
    uint64_t fence;         /* fence id reported when the buffer retires */
    uint32_t context;       /* context id, for statistics and faults */
    uint32_t reserved0;     /* must be zero */
    uint64_t save_addr;     /* context save area (preemption) */
    uint64_t reserved1[3];  /* must be zero */
};

#define COPRO_DESC_SIZE             64u
#define COPRO_DMA_MAX               (16u << 20)
#define COPRO_RING_MAX_ENTRIES      4096u

#define COPRO_SUBMIT_PAGING         (1u << 0)   /* paging buffer */
#define COPRO_SUBMIT_RESUME         (1u << 1)   /* continue from save_addr */
#define COPRO_SUBMIT_NO_IRQ         (1u << 2)   /* no DMA_DONE interrupt */
#define COPRO_SUBMIT_FLAGS_KNOWN    0x7u

/*
 * Save record, written to a submission's save_addr when it is preempted
 * mid-buffer and read back when it is resubmitted with COPRO_SUBMIT_RESUME.
 * The driver treats it as opaque apart from magic and the buffer fields;
 * the device refuses a record whose magic, version or buffer does not match
 * the resubmitted descriptor (COPRO_FAULT_BAD_SAVE). 256 bytes.
 */
struct copro_save_target {
    uint64_t addr;
    uint32_t pitch;
    uint32_t width;
    uint32_t height;
    uint32_t format;
};

struct copro_save_record {
    uint32_t magic;         /* COPRO_SAVE_MAGIC */
    uint32_t version;       /* COPRO_SAVE_VERSION */
    uint64_t dma_addr;      /* the preempted buffer */
    uint32_t dma_len;
    uint32_t offset;        /* byte offset of the packet to continue */
    uint64_t fence;         /* fence of the preempted submission */
    uint32_t context;
    uint32_t in_packet;     /* 1: the packet at offset is partly done */
    uint32_t hdr;           /* that packet's header and payload */
    uint32_t payload[6];
    uint32_t rect[5];       /* clipped RECT: x, y, w, h, rows per step */
    uint64_t progress;      /* bytes, rows or ns of the packet done */
    struct copro_save_target targets[4];    /* bound surfaces */
    uint8_t reserved[64];
};

#define COPRO_SAVE_MAGIC            0x45564153u     /* "SAVE" */
#define COPRO_SAVE_VERSION          1u
#define COPRO_SAVE_SIZE             256u

_Static_assert(sizeof(struct copro_submit_desc) == COPRO_DESC_SIZE,
               "ring entry layout");
_Static_assert(sizeof(struct copro_save_record) == COPRO_SAVE_SIZE,
               "save record layout");

/*
 * Packets. Every packet starts with a header dword:
 *   bits  0..7   opcode (COPRO_OP_*)
 *   bits  8..15  flags (per opcode)
 *   bits 16..31  length in dwords, header included (>= 1)
 * Multi-dword fields are little-endian, low dword first.
 */
#define COPRO_PKT_HDR(op, flags, ndw) \
    ((uint32_t)(op) | ((uint32_t)(flags) << 8) | ((uint32_t)(ndw) << 16))
#define COPRO_PKT_OP(hdr)           ((hdr) & 0xffu)
#define COPRO_PKT_FLAGS(hdr)        (((hdr) >> 8) & 0xffu)
#define COPRO_PKT_LEN(hdr)          ((hdr) >> 16)

enum copro_opcode {
    COPRO_OP_NOP        = 0x00,     /* any length: padding */
    COPRO_OP_TIMESTAMP  = 0x01,     /* addr64: write GPU time (u64 ns) */
    COPRO_OP_INTERRUPT  = 0x02,     /* data32: USER interrupt, USER_DATA */
    COPRO_OP_FENCE      = 0x03,     /* addr64, value64: write value */
    COPRO_OP_WAIT       = 0x04,     /* addr64, value64: until *addr >= v */
    COPRO_OP_COPY       = 0x05,     /* dst64, src64, size64 */
    COPRO_OP_FILL       = 0x06,     /* dst64, size64, pattern32 */
    COPRO_OP_SET_TARGET = 0x07,     /* addr64, pitch, width, height, fmt */
    COPRO_OP_RECT       = 0x08,     /* x, y, w, h, colour */
    COPRO_OP_WORK       = 0x09,     /* ns64: synthetic shader work */
    COPRO_OP_COPY_PTE   = 0x0a,     /* dst64, src64, count32: copy PTEs */
    /* tiling path (COPRO_CAP_TILER; payloads in copro_tiler.h) */
    COPRO_OP_SCENE_BEGIN = 0x0b,    /* pb64, pb_size32, clear colour32 */
    COPRO_OP_BIN_RECT   = 0x0c,     /* x, y, w, h, colour */
    COPRO_OP_BIN_BLIT   = 0x0d,     /* src64, src_pitch, xy, wh */
    COPRO_OP_SCENE_END  = 0x0e,     /* close the scene */
    COPRO_OP_TILE_RENDER = 0x0f,    /* pb64, tiles32 */
};

/*
 * Opcodes the copy/paging engine (COPRO_ENGINE_COPY) executes; any other is
 * ILLEGAL_OPCODE there. Every other engine is a render engine and runs all.
 */
#define COPRO_COPY_ENGINE_OPS                                              \
    ((1u << COPRO_OP_NOP) | (1u << COPRO_OP_TIMESTAMP) |                   \
     (1u << COPRO_OP_FENCE) | (1u << COPRO_OP_WAIT) |                      \
     (1u << COPRO_OP_COPY) | (1u << COPRO_OP_FILL) |                       \
     (1u << COPRO_OP_COPY_PTE))

/* packet lengths in dwords (header included) */
#define COPRO_LEN_TIMESTAMP         3
#define COPRO_LEN_INTERRUPT         2
#define COPRO_LEN_FENCE             5
#define COPRO_LEN_WAIT              5
#define COPRO_LEN_COPY              7
#define COPRO_LEN_FILL              6
#define COPRO_LEN_SET_TARGET        7
#define COPRO_LEN_RECT              6
#define COPRO_LEN_WORK              3
#define COPRO_LEN_COPY_PTE          6
#define COPRO_LEN_SCENE_BEGIN       5
#define COPRO_LEN_BIN_RECT          6
#define COPRO_LEN_BIN_BLIT          6
#define COPRO_LEN_SCENE_END         1
#define COPRO_LEN_TILE_RENDER       4

/* the highest opcode defined; every number up to it is an opcode */
#define COPRO_OP_LAST               COPRO_OP_TILE_RENDER

/*
 * The length in dwords, header included, that a packet of opcode @op must
 * have; 0 for NOP (any length >= 1) and for numbers above COPRO_OP_LAST.
 * The device, every driver and every test take packet lengths from here.
 */
static inline uint32_t copro_packet_len(uint32_t op)
{
    switch (op) {
    case COPRO_OP_TIMESTAMP:
        return COPRO_LEN_TIMESTAMP;
    case COPRO_OP_INTERRUPT:
        return COPRO_LEN_INTERRUPT;
    case COPRO_OP_FENCE:
        return COPRO_LEN_FENCE;
    case COPRO_OP_WAIT:
        return COPRO_LEN_WAIT;
    case COPRO_OP_COPY:
        return COPRO_LEN_COPY;
    case COPRO_OP_FILL:
        return COPRO_LEN_FILL;
    case COPRO_OP_SET_TARGET:
        return COPRO_LEN_SET_TARGET;
    case COPRO_OP_RECT:
        return COPRO_LEN_RECT;
    case COPRO_OP_WORK:
        return COPRO_LEN_WORK;
    case COPRO_OP_COPY_PTE:
        return COPRO_LEN_COPY_PTE;
    case COPRO_OP_SCENE_BEGIN:
        return COPRO_LEN_SCENE_BEGIN;
    case COPRO_OP_BIN_RECT:
        return COPRO_LEN_BIN_RECT;
    case COPRO_OP_BIN_BLIT:
        return COPRO_LEN_BIN_BLIT;
    case COPRO_OP_SCENE_END:
        return COPRO_LEN_SCENE_END;
    case COPRO_OP_TILE_RENDER:
        return COPRO_LEN_TILE_RENDER;
    default:
        return 0;
    }
}

/* COPY_PTE: 8-aligned addresses, count at most COPRO_COPY_PTE_MAX */
#define COPRO_COPY_PTE_MAX          (1u << 20)

/* FENCE flags */
#define COPRO_FENCE_IRQ             (1u << 0)   /* raise the FENCE cause */

/* FILL: size is a multiple of 4; the pattern repeats every 4 bytes */

/*
 * SET_TARGET binds a surface to slot (header flags, < COPRO_TARGET_SLOTS).
 * RECT draws into the slot named by its header flags; the rectangle is
 * clipped to the surface. Colour is written in the surface's format
 * (low bytes of the colour dword).
 */
#define COPRO_TARGET_SLOTS          4
#define COPRO_FMT_R8                1   /* 1 byte per pixel */
#define COPRO_FMT_RGB565            2   /* 2 bytes per pixel */
#define COPRO_FMT_XRGB8888          3   /* 4 bytes per pixel */
#define COPRO_TARGET_MAX_DIM        16384

static inline uint32_t copro_fmt_bpp(uint32_t fmt)
{
    switch (fmt) {
    case COPRO_FMT_R8:
        return 1;
    case COPRO_FMT_RGB565:
        return 2;
    case COPRO_FMT_XRGB8888:
        return 4;
    default:
        return 0;
    }
}

#endif /* COPRO_CMD_H */
