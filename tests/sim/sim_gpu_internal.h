/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model's insides, shared by its parts:
 *
 *  - sim_gpu.c: the engine's timer, interrupts and loop (the order of
 *    hw/copro/copro-engine.c), submissions, the DDI, the life cycle;
 *  - sim_gpu_mem.c: GPU addresses to host bytes, the aperture, paging;
 *  - sim_gpu_packets.c: packet checks, fetch, step costs and effects,
 *    the packet writers;
 *  - sim_gpu_preempt.c: arbitration points, save records, the stop and
 *    RESUME's restore;
 *  - sim_gpu_tiler.c: the tiler: scenes, bins, tile passes, OOM stops.
 */
#ifndef TESTS_SIM_SIM_GPU_INTERNAL_H
#define TESTS_SIM_SIM_GPU_INTERNAL_H

#include "sim_gpu.h"

/* STEP_OOM: (tiler) a primitive did not fit; the engine stops with OOM */
enum step { STEP_DONE, STEP_MORE, STEP_BLOCKED, STEP_FAULT, STEP_OOM };
enum irq { IRQ_DMA_DONE, IRQ_PREEMPTED, IRQ_FAULT, IRQ_TILER_OOM };

static inline uint64_t now_of(const struct sim_engine *e)
{
    return e->g->clk->now;
}

static inline uint64_t dw64(const struct sim_packet *p, unsigned i)
{
    return p->dw[i] | (uint64_t)p->dw[i + 1] << 32;
}

/* units at rate per second, in ns (128-bit, as the device) */
static inline uint64_t cost(uint64_t units, uint64_t rate)
{
    unsigned __int128 ns = (unsigned __int128)units * 1000000000u / rate;

    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static inline uint64_t ctx_switch_ns(const struct sim_engine *e)
{
    return cost(e->g->cfg.ctx_state_size, e->g->cfg.copy_bw);
}

/* Charged when a step starts, to the engine and the submission's
 * context (the device's STAT_BUSY_NS and per-context busy time). */
static inline void account(struct sim_engine *e, int64_t ns)
{
    e->busy_ns += ns;
    if (e->active && e->desc.context < SIM_MAX_CTX_ID) {
        e->g->ctx_busy_ns[e->desc.context] += ns;
    }
}

static inline unsigned sim_put64(uint32_t *dw, unsigned at, uint64_t v)
{
    dw[at] = (uint32_t)v;
    dw[at + 1] = (uint32_t)(v >> 32);
    return at + 2;
}

/* sim_gpu.c */
void sim_engine_run(struct sim_engine *e);
void sim_timer_mod(struct sim_engine *e, uint64_t when);
void sim_timer_del(struct sim_engine *e);
void sim_kick(struct sim_engine *e);
void sim_fence_written(struct sim_gpu *g);
void sim_raise_irq(struct sim_engine *e, enum irq irq);
void sim_engine_fault(struct sim_engine *e, uint32_t kind, uint64_t addr);

/* sim_gpu_mem.c: bytes behind a GPU address (NULL if not backed; *run
 * of len follow contiguously); checks; copies; the discard window */
uint8_t *sim_xlate(const struct sim_gpu *g, uint64_t addr, uint64_t len,
                   uint64_t *run);
bool sim_mem_ok(const struct sim_gpu *g, uint64_t addr, uint64_t len);
void sim_mem_copy(struct sim_gpu *g, uint64_t addr, void *buf,
                  uint64_t len, bool write);
bool sim_discarded(const struct sim_gpu *g, uint64_t addr, uint64_t len);
/* the engine's accesses: a fault (TRANSLATION) halts it, false */
bool sim_mem_read(struct sim_engine *e, uint64_t addr, void *buf,
                  uint64_t len);
bool sim_mem_write(struct sim_engine *e, uint64_t addr, const void *buf,
                   uint64_t len);
void sim_aperture_init(struct sim_gpu *g, const struct sim_gpu_config *cfg);
int sim_gpu_build_paging_buffer(void *drv, const struct ddi_paging_op *ops,
                                unsigned nops, struct ddi_dmabuf *out);

/* sim_gpu_packets.c */
uint32_t sim_engine_ops(const struct sim_engine *e);
uint32_t sim_header_check(const struct sim_engine *e, uint32_t hdr);
bool sim_target_ok(const struct sim_target *t);
bool sim_fields_ok(struct sim_engine *e);
bool sim_multi_step(uint32_t op);
bool sim_progress_ok(const struct sim_engine *e);
bool sim_fetch_packet(struct sim_engine *e);
uint64_t sim_step_cost(const struct sim_engine *e);
enum step sim_exec_step(struct sim_engine *e);

/* sim_gpu_preempt.c */
bool sim_arbitrate(struct sim_engine *e, uint64_t now);
void sim_preempt_now(struct sim_engine *e);
void sim_save_record(struct sim_engine *e, struct copro_save_record *r);
void sim_notify_stop(struct sim_engine *e, bool reset);
bool sim_restore(struct sim_engine *e);

/* sim_gpu_tiler.c */
bool sim_oom_injected(struct sim_engine *e);
void sim_oom_stop(struct sim_engine *e);
bool sim_tiler_fields_ok(const struct sim_engine *e,
                         const struct sim_packet *p, uint32_t *cause);
uint64_t sim_tiler_step_cost(const struct sim_engine *e);
enum step sim_tiler_exec(struct sim_engine *e);
void sim_tiler_save(const struct sim_engine *e, struct copro_save_record *r);
void sim_tiler_save_oom(struct copro_save_record *r);
bool sim_tiler_restore(struct sim_engine *e,
                       const struct copro_save_record *r);

static inline bool sim_is_scene_op(uint32_t op)
{
    return op >= COPRO_OP_SCENE_BEGIN && op <= COPRO_OP_TILE_RENDER;
}
void sim_tiler_ack(struct sim_engine *e);

#endif /* TESTS_SIM_SIM_GPU_INTERNAL_H */
