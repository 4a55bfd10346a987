/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A discrete-event model of the copro GPU on the host, behind the DDI
 * (firmware/ddi/ddi.h), so that the scheduler runs here exactly as it
 * runs in the firmware over the real device.
 *
 * It executes the real thing: the DMA buffers the OS builds, packet by
 * packet, from a simulated VRAM, with the device's rules and cost model
 * (docs/specs/copro.rst, hw/copro/copro-engine.c, copro-preempt.c):
 *
 *  - per engine a ring of caps.ring_entries descriptors, executed in
 *    order; engine 1 is the copy engine (copy/paging opcodes only);
 *  - every packet costs packet-ns on its first step; WORK runs in
 *    arbitration-ns slices, COPY/FILL/COPY_PTE in 64 KiB chunks at their
 *    bandwidth, RECT in bands of rows at the pixel rate; WAIT blocks
 *    (re-checked on every fence write and every 20 us) without being
 *    charged; a step's memory effect lands when the engine clock reaches
 *    its end; NOP, TIMESTAMP, INTERRUPT, FENCE, SET_TARGET: packet-ns;
 *  - preemption requests honoured at the granularity's arbitration points
 *    (none: once the ring drained; dma-buffer: between submissions;
 *    command: between packets or in a blocked WAIT; mid-command: between
 *    steps too), never inside a paging submission; saving costs
 *    ctx-state-size at copy-bw and writes the 256-byte save record; the
 *    queued entries are dropped; PREEMPTED reports the request's, the
 *    interrupted and the last completed fences; RESUME checks the record
 *    as the device does (BAD_SAVE otherwise) and continues exactly there;
 *  - engine reset (abort, drop the ring, report the aborted fence);
 *  - command errors and memory faults (outside the simulated VRAM) halt
 *    the engine as the device does;
 *  - injected per buffer: a hang (at a packet, ignores preemption until
 *    reset) or a fault (INJECTED, at a packet).
 *
 *  - (tiler, with cfg.tiler: docs/specs/copro.rst "Tiling", at the level
 *    the scheduler sees it, no pixels) SCENE_BEGIN writes the scene
 *    header and clears the tile table of the parameter buffer; each
 *    BIN_RECT or BIN_BLIT is one step that appends the clipped primitive
 *    to the bin of every tile it touches (COPRO_PRIM_NEED(k) heap bytes),
 *    or, when
 *    they do not fit, stops the submission with OOM (save record with the
 *    scene, ring dropped, TILER_OOM with the need); SCENE_END closes the
 *    scene; TILE_RENDER is one step per tile (the device's plan and
 *    render steps together), each costing tile-ns plus its bin's bytes
 *    and its blits' source bytes at copy-bw (a blit's source is read,
 *    and faults, in the tile pass), preemptible between tiles at command
 *    and mid-command (the
 *    save record names the next tile); a PARTIAL pass over a scene
 *    stopped by OOM empties its bins and reopens it. The open scene goes
 *    into save records (copro_save_tiler) and comes back with RESUME;
 *    errors are BAD_PACKET faults with a cause (tiler_cause).
 *
 *  - (vidmm) the GART aperture: GPU addresses aperture_base .. +
 *    aperture_size reach host "system pages" (sys_pages of them, at
 *    guest-physical SIM_SYS_PHYS + 4 KiB * i) through a table of 64-bit
 *    entries in the simulated VRAM (0: unmapped; an access through an
 *    unmapped page faults TRANSLATION as one outside VRAM does).
 *    build_paging_buffer follows the DDI's paging contract as the copro
 *    kmd implements it (kmd/copro_paging.h): MAP writes the entries on
 *    the CPU at build time; TRANSFER and FILL become COPY and FILL
 *    packets; UNMAP becomes COPY_PTE packets of zero entries over the
 *    table, so it happens in buffer order; a MAP after another use of its
 *    range in the same call, or a transfer or fill through a range after
 *    its UNMAP, is refused (DDI_EINVAL).
 *
 * Not modelled: per-context page tables, MSI-X and register access.
 *
 * Upcalls are delivered from the event loop upcall-ns after the
 * interrupt, never from inside a downcall (the DDI's DPC-level rule).
 */
#ifndef TESTS_SIM_SIM_GPU_H
#define TESTS_SIM_SIM_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_tiler.h>

#include "ddi/ddi.h"
#include "sim_events.h"

#define SIM_MAX_CTX_ID      4096    /* per-context statistics below this */
#define SIM_WAIT_POLL_NS    20000   /* a blocked WAIT is looked at again */
#define SIM_CHUNK_BYTES     65536   /* COPY/FILL/RECT step */

struct sim_gpu_config {
    unsigned engines;           /* 1..4; engine 1 copies and pages */
    unsigned preemption;        /* COPRO_PREEMPT_* */
    uint32_t ring_entries;      /* a power of two, 2..4096 */
    uint64_t packet_ns;         /* the device properties of that name */
    uint64_t copy_bw, fill_bw;  /* bytes per second */
    uint64_t pixel_rate;        /* pixels per second */
    uint64_t arbitration_ns;    /* WORK slice */
    uint64_t ctx_state_size;    /* bytes saved or restored per switch */
    uint64_t upcall_ns;         /* interrupt to DPC */
    uint64_t mem_size;          /* simulated VRAM, bytes */
    /* A window of VRAM the harness never reads (a target for FILLs that
     * are only there to take time): writes inside it cost their time but
     * are not stored, which keeps long runs fast. 0 size: none. */
    uint64_t discard_base, discard_size;
    /* (vidmm) the aperture and the system memory behind it; 0: none */
    uint64_t aperture_base, aperture_size;  /* 4 KiB multiples */
    unsigned sys_pages;
    /* (tiler) COPRO_CAP_TILER: scene packets on the render engines;
     * otherwise they are ILLEGAL_OPCODE */
    bool tiler;
    uint32_t tile_size;         /* "tile-size": pixels per tile side */
    uint64_t tile_ns;           /* "tile-ns": fixed cost of a tile */
};

#define SIM_SYS_PHYS        (1ull << 40)    /* first system page */
#define SIM_GART_ZERO       512             /* zero entries for UNMAP */

/* The device's defaults (packet-ns 100, copy-bw 8 GiB/s, ...). */
void sim_gpu_config_default(struct sim_gpu_config *c);

enum sim_engine_state {
    SIM_ENG_IDLE, SIM_ENG_BUSY, SIM_ENG_WAITING, SIM_ENG_HALTED,
};

struct sim_packet {
    uint32_t offset;
    uint32_t hdr;
    uint32_t dw[6];
    uint64_t progress;
};

struct sim_target {
    uint64_t addr;
    uint32_t pitch, width, height, format;
};

struct sim_engine {
    struct sim_gpu *g;
    unsigned index;
    struct copro_submit_desc *ring;
    uint32_t head, tail;
    enum sim_engine_state state;
    bool active;                /* a submission is loaded */
    bool in_packet, step_pending, restore_pending;
    bool preempt_pending, preempt_saving;
    bool hung;                  /* an injected hang caught it */
    struct copro_submit_desc desc;
    uint32_t pc;
    struct sim_packet cur;
    struct sim_target targets[COPRO_TARGET_SLOTS];
    uint32_t rect_x, rect_y, rect_w, rect_h, rect_rows_step;
    uint64_t cursor;            /* engine clock: end of the charged step */
    uint64_t timer_gen;         /* the engine's one timer (stale if old) */
    uint64_t preempt_req, preempt_req_time;
    /* registers */
    uint64_t completed_fence, preempt_fence, preempted_fence, aborted_fence;
    uint64_t oom_fence;         /* (tiler) the last OOM stop's */
    uint32_t oom_need;          /* ... what its primitive needs */
    uint64_t oom_scene;         /* ... its parameter buffer (0: an
                                   injected stop outside a scene) */
    uint32_t tiler_cause;       /* COPRO_TILER_ERR_* of the last error */
    uint64_t scene;             /* parameter buffer of the scene open
                                   here (by the loaded submission), 0 */
    uint64_t ooms;              /* OOM stops */
    bool tiler_held;            /* stopped by OOM, not acknowledged: the
                                   ring is not fetched (the device's
                                   hold, acknowledged by the DPC as the
                                   kmd does, copro_ddi.c) */
    uint64_t held_dropped;      /* entries written during a hold, dropped
                                   by its acknowledgement */
    uint32_t fault_kind, fault_offset, fault_context;
    uint64_t fault_addr, fault_fence;
    /* statistics */
    uint64_t busy_ns, submissions, packets, faults;
    uint64_t preemptions, preempt_min_ns, preempt_max_ns, preempt_sum_ns;
};

/* What the harness wants to see, as it happens (all optional). */
struct sim_gpu_observer {
    /* a ring entry written (DDI submit) */
    void (*submitted)(void *arg, unsigned engine,
                      const struct copro_submit_desc *d);
    /* the engine fetched it and starts (or resumes) executing it */
    void (*loaded)(void *arg, unsigned engine,
                   const struct copro_submit_desc *d);
    void (*retired)(void *arg, unsigned engine,
                    const struct copro_submit_desc *d);
    /* preemption (reset false) or engine reset: the submission it cut
     * (NULL if it stopped between two), then the entries it dropped */
    void (*stopped)(void *arg, unsigned engine, bool reset,
                    const struct copro_submit_desc *cut,
                    const struct copro_submit_desc *dropped,
                    unsigned ndropped);
    /* the engine halted on d (NULL if none loaded) with fault kind */
    void (*faulted)(void *arg, unsigned engine,
                    const struct copro_submit_desc *d, uint32_t kind);
    /* an injected hang caught d */
    void (*hung)(void *arg, unsigned engine,
                 const struct copro_submit_desc *d);
    /* (tiler) d binned a primitive into the scene at pb touching tiles
     * tiles (0: clipped away), its prim-th since SCENE_BEGIN */
    void (*binned)(void *arg, unsigned engine,
                   const struct copro_submit_desc *d, uint64_t pb,
                   uint32_t prim, uint32_t tiles);
    /* (tiler) d stopped on OOM before a primitive of the scene at pb */
    void (*tiler_oom)(void *arg, unsigned engine,
                      const struct copro_submit_desc *d, uint64_t pb,
                      uint32_t need);
    /* (tiler) d closed the scene at pb (SCENE_END) */
    void (*scene_end)(void *arg, unsigned engine,
                      const struct copro_submit_desc *d, uint64_t pb);
    /* (tiler) d rendered tile of the scene at pb, nprims primitives in
     * its bin, in a partial pass or not; last: the pass's last tile
     * (a partial pass has then emptied the bins) */
    void (*tile)(void *arg, unsigned engine,
                 const struct copro_submit_desc *d, uint64_t pb,
                 uint32_t tile, uint32_t nprims, bool partial, bool last);
};

enum sim_inject_kind {
    SIM_INJECT_HANG,            /* stop making progress at the packet */
    SIM_INJECT_FAULT,           /* fault INJECTED fetching the packet */
    SIM_INJECT_OOM,             /* (tiler) the parameter buffer is full
                                   before the packet, once: the engine
                                   stops as for TILER_OOM (save record,
                                   ring dropped, upcall tiler_oom with
                                   SIM_OOM_NEED); RESUME goes on */
};

#define SIM_OOM_NEED        296 /* what the injected OOM says it needs */

/* Deliberate breakage of the tiler model, to show that the scene
 * checkers can fail (sim_check_scene.h, --meta). */
enum sim_tiler_bug {
    SIM_TILER_OK,
    SIM_TILER_REDO_TILE,        /* RESUME redoes the saved tile's
                                   predecessor (renders it twice) */
    SIM_TILER_SKIP_TILE,        /* RESUME skips the saved next tile */
    SIM_TILER_KEEP_BINS,        /* a partial pass does not empty the
                                   bins (nor reset the fill) */
    SIM_TILER_COARSE,           /* a tile pass stops for a preemption
                                   only at every fourth tile boundary */
    SIM_TILER_SKIP_PRIM,        /* an OOM stop saves the packet after the
                                   primitive that did not fit: RESUME
                                   never bins it */
};

#define SIM_MAX_INJECT      64

struct sim_gpu {
    struct sim_gpu_config cfg;
    struct sim_clock *clk;
    uint8_t *mem;
    uint64_t mem_used;          /* bump allocator (sim_gpu_alloc) */
    struct sim_engine engine[DDI_MAX_ENGINES];
    const struct ddi_upcalls *up;
    void *os;
    const struct sim_gpu_observer *obs;
    void *obs_arg;
    struct {
        uint64_t dma_addr;
        uint32_t offset;
        enum sim_inject_kind kind;
        bool fired;             /* SIM_INJECT_OOM: once only */
    } inject[SIM_MAX_INJECT];
    unsigned ninject;
    uint64_t ctx_busy_ns[SIM_MAX_CTX_ID];
    uint64_t reset_gen;         /* engine resets so far */
    /* (vidmm) the aperture: GART entries (system page address, 0 if
     * unmapped) and the system pages; a free list for the harness */
    uint64_t *gart;             /* into mem, at gart_addr; NULL: none */
    uint64_t gart_addr, gart_zero;  /* table; SIM_GART_ZERO zero entries */
    uint8_t *sys;
    unsigned sys_cap;
    uint32_t *sys_free;         /* stack of free page indices */
    unsigned nsys_free;
    uint64_t gart_maps, gart_unmaps;
    /* the device's own scheduler over the engines (sim_hws.h), or NULL */
    struct sim_hws *hws;
    /* (tiler) device-wide statistics and the deliberate bug */
    struct {
        uint64_t scenes, prims, tiles, ooms, partials;
    } tiler;
    enum sim_tiler_bug tiler_bug;
};

/* The DDI over the model: drv is the struct sim_gpu. */
extern const struct ddi_ops sim_gpu_ops;

struct sim_gpu *sim_gpu_create(struct sim_clock *clk,
                               const struct sim_gpu_config *cfg);
void sim_gpu_destroy(struct sim_gpu *g);
/* Back to power-on with a new configuration (mem_size may not grow);
 * memory handed out by sim_gpu_alloc is forgotten (not cleared). */
void sim_gpu_reset(struct sim_gpu *g, const struct sim_gpu_config *cfg);

void sim_gpu_connect(struct sim_gpu *g, const struct ddi_upcalls *up,
                     void *os);
void sim_gpu_observe(struct sim_gpu *g, const struct sim_gpu_observer *o,
                     void *arg);
void sim_gpu_inject(struct sim_gpu *g, uint64_t dma_addr, uint32_t offset,
                    enum sim_inject_kind kind);

/* GPU memory: bytes at a GPU address, and a bump allocator for the
 * harness (zeroed memory, never page 0; UINT64_MAX when full). */
static inline void *sim_gpu_ptr(struct sim_gpu *g, uint64_t gpu_addr)
{
    return g->mem + gpu_addr;
}
uint64_t sim_gpu_alloc(struct sim_gpu *g, uint64_t bytes, uint64_t align);

/* (vidmm) System pages: n of them into pages (guest-physical); false if
 * there are not enough (none taken). Their host bytes. Whether bytes at a
 * GPU address are backed (VRAM or a mapped aperture page), and reading
 * them (false if not backed), for the harness's content checks. */
bool sim_gpu_sys_alloc(struct sim_gpu *g, uint64_t *pages, unsigned n);
void sim_gpu_sys_free(struct sim_gpu *g, const uint64_t *pages, unsigned n);
uint8_t *sim_gpu_sys_ptr(struct sim_gpu *g, uint64_t phys);
bool sim_gpu_read(struct sim_gpu *g, uint64_t gpu_addr, void *buf,
                  uint64_t len);

/* Packet writers for building DMA buffers in GPU memory; each returns the
 * next dword index. */
unsigned sim_emit_work(uint32_t *dw, unsigned at, uint64_t ns);
unsigned sim_emit_nop(uint32_t *dw, unsigned at, unsigned ndw);
unsigned sim_emit_fence(uint32_t *dw, unsigned at, uint64_t addr,
                        uint64_t value);
unsigned sim_emit_fill(uint32_t *dw, unsigned at, uint64_t dst,
                       uint64_t size, uint32_t pattern);
unsigned sim_emit_timestamp(uint32_t *dw, unsigned at, uint64_t addr);
unsigned sim_emit_wait(uint32_t *dw, unsigned at, uint64_t addr,
                       uint64_t value);
unsigned sim_emit_copy(uint32_t *dw, unsigned at, uint64_t dst, uint64_t src,
                       uint64_t size);
unsigned sim_emit_set_target(uint32_t *dw, unsigned at, unsigned slot,
                             uint64_t addr, uint32_t pitch, uint32_t width,
                             uint32_t height, uint32_t format);
/* (tiler) flags: COPRO_SCENE_CLEAR, COPRO_TILE_PARTIAL (slot in bits 0..1) */
unsigned sim_emit_scene_begin(uint32_t *dw, unsigned at, uint32_t flags,
                              uint64_t pb, uint32_t pb_size, uint32_t clear);
unsigned sim_emit_bin_rect(uint32_t *dw, unsigned at, uint32_t x, uint32_t y,
                           uint32_t w, uint32_t h, uint32_t colour);
unsigned sim_emit_bin_blit(uint32_t *dw, unsigned at, uint64_t src,
                           uint32_t pitch, uint32_t x, uint32_t y,
                           uint32_t w, uint32_t h);
unsigned sim_emit_scene_end(uint32_t *dw, unsigned at);
unsigned sim_emit_tile_render(uint32_t *dw, unsigned at, uint32_t flags,
                              uint64_t pb, uint32_t tiles);
/* (tiler) tiles of a width x height target at the model's tile size */
uint32_t sim_gpu_tiles(const struct sim_gpu *g, uint32_t width,
                       uint32_t height);

#endif /* TESTS_SIM_SIM_GPU_H */
