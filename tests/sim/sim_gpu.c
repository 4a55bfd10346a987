/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copro GPU model. The engine loop follows hw/copro/copro-engine.c
 * step for step (the same order of arbitration, load, restore,
 * completion and fetch; the same charging of a step at its start), so
 * that preemption lands at the same points with the same fences.
 *
 * This file: the engine's timer, interrupts and loop, submissions, the
 * DDI and the life cycle; memory and paging, packets, preemption and the
 * tiler are beside it (sim_gpu_internal.h lists them).
 */
#include "sim_gpu_internal.h"

#include <stdlib.h>
#include <string.h>

#define GIB     (1024ull * 1024 * 1024)

void sim_gpu_config_default(struct sim_gpu_config *c)
{
    *c = (struct sim_gpu_config){
        .engines = 2,
        .preemption = COPRO_PREEMPT_MID_COMMAND,
        .ring_entries = 64,
        .packet_ns = 100,
        .copy_bw = 8 * GIB,
        .fill_bw = 16 * GIB,
        .pixel_rate = 4000000000ull,
        .arbitration_ns = 100000,
        .ctx_state_size = 256 * 1024,
        .upcall_ns = 0,
        .mem_size = 16 << 20,
        .tile_size = COPRO_TILE_SIZE_DEFAULT,
        .tile_ns = 200,
    };
}

/* ---- the engine's timer and interrupts ---- */

static void wake(struct sim_engine *e)
{
    e->step_pending = true;
    e->state = SIM_ENG_BUSY;
    e->cursor = now_of(e);
}

static void timer_cb(void *obj, uint64_t gen)
{
    struct sim_engine *e = obj;

    if (gen != e->timer_gen) {
        return;     /* re-armed or deleted since */
    }
    /* a pending preemption takes a blocked WAIT before it is re-checked */
    if (e->state == SIM_ENG_WAITING && !e->preempt_pending) {
        wake(e);
    }
    sim_engine_run(e);
}

void sim_timer_mod(struct sim_engine *e, uint64_t when)
{
    sim_at(e->g->clk, when, timer_cb, e, ++e->timer_gen);
}

void sim_timer_del(struct sim_engine *e)
{
    e->timer_gen++;
}

void sim_kick(struct sim_engine *e)
{
    sim_timer_mod(e, now_of(e));
}

void sim_fence_written(struct sim_gpu *g)
{
    for (unsigned i = 0; i < g->cfg.engines; i++) {
        struct sim_engine *e = &g->engine[i];

        if (e->state == SIM_ENG_WAITING) {
            wake(e);
            sim_kick(e);
        }
    }
}

/* The DPC: reads the registers when it runs, as a driver's does. */
static void deliver_cb(void *obj, uint64_t irq)
{
    struct sim_engine *e = obj;
    struct sim_gpu *g = e->g;

    if (irq == IRQ_TILER_OOM) {
        /* acknowledged as the OS hears of it, before it resubmits */
        sim_tiler_ack(e);
    }
    if (!g->up) {
        return;
    }
    switch (irq) {
    case IRQ_DMA_DONE:
        g->up->dma_completed(g->os, e->index, e->completed_fence);
        break;
    case IRQ_PREEMPTED:
        g->up->preempted(g->os, e->index, e->preempt_fence,
                         e->preempted_fence, e->completed_fence);
        break;
    case IRQ_TILER_OOM:
        if (g->up->tiler_oom) {
            g->up->tiler_oom(g->os, e->index, e->oom_fence, e->oom_need,
                             e->completed_fence);
        }
        break;
    case IRQ_FAULT: {
        struct ddi_fault f = {
            .kind = e->fault_kind, .context = e->fault_context,
            .fence = e->fault_fence, .addr = e->fault_addr,
            .offset = e->fault_offset,
        };

        g->up->faulted(g->os, e->index, &f);
        break;
    }
    }
}

void sim_raise_irq(struct sim_engine *e, enum irq irq)
{
    sim_at(e->g->clk, now_of(e) + e->g->cfg.upcall_ns, deliver_cb, e, irq);
}

void sim_engine_fault(struct sim_engine *e, uint32_t kind, uint64_t addr)
{
    e->fault_kind = kind;
    e->fault_addr = addr;
    e->fault_offset = e->pc;
    e->fault_fence = e->active ? e->desc.fence : 0;
    e->fault_context = e->active ? e->desc.context : 0;
    e->faults++;
    e->state = SIM_ENG_HALTED;
    sim_timer_del(e);
    if (e->g->obs && e->g->obs->faulted) {
        e->g->obs->faulted(e->g->obs_arg, e->index,
                           e->active ? &e->desc : NULL, kind);
    }
    sim_raise_irq(e, IRQ_FAULT);
}

/* ---- submissions ---- */

static bool load_submission(struct sim_engine *e)
{
    struct copro_submit_desc *d = &e->desc;
    uint32_t size = e->g->cfg.ring_entries;

    e->pc = 0;
    *d = e->ring[e->head];
    e->head = (e->head + 1) & (size - 1);
    e->active = true;
    if ((d->dma_addr & 3) || (d->dma_len & 3) || d->dma_len > COPRO_DMA_MAX ||
        (d->flags & ~COPRO_SUBMIT_FLAGS_KNOWN) || d->reserved0 ||
        d->reserved1[0] || d->reserved1[1] || d->reserved1[2]) {
        sim_engine_fault(e, COPRO_FAULT_BAD_DESCRIPTOR, 0);
        return false;
    }
    e->restore_pending = d->flags & COPRO_SUBMIT_RESUME;
    if (e->g->obs && e->g->obs->loaded) {
        e->g->obs->loaded(e->g->obs_arg, e->index, d);
    }
    return true;
}

static void complete_submission(struct sim_engine *e)
{
    e->completed_fence = e->desc.fence;
    e->submissions++;
    e->active = false;
    e->scene = 0;       /* retired with its scene open: dropped */
    if (e->g->obs && e->g->obs->retired) {
        e->g->obs->retired(e->g->obs_arg, e->index, &e->desc);
    }
    if (!(e->desc.flags & COPRO_SUBMIT_NO_IRQ)) {
        sim_raise_irq(e, IRQ_DMA_DONE);
    }
    sim_fence_written(e->g);
}

/* ---- injection ---- */

static bool injected(struct sim_engine *e, enum sim_inject_kind kind)
{
    struct sim_gpu *g = e->g;

    for (unsigned i = 0; i < g->ninject; i++) {
        if (g->inject[i].dma_addr == e->desc.dma_addr &&
            g->inject[i].offset == e->pc && g->inject[i].kind == kind) {
            return true;
        }
    }
    return false;
}
/* ---- the engine loop (copro_engine_run) ---- */

void sim_engine_run(struct sim_engine *e)
{
    uint64_t now = now_of(e);

    if (e->state == SIM_ENG_HALTED) {
        return;
    }
    if (!e->step_pending && e->cursor < now) {
        e->cursor = now;    /* restarts after an idle or blocked period */
    }
    for (;;) {
        if (e->hung && e->active) {
            e->state = SIM_ENG_BUSY;
            sim_timer_del(e);
            return;
        }
        if (e->step_pending) {
            enum step r;

            if (e->cursor > now) {
                sim_timer_mod(e, e->cursor);
                return;
            }
            e->step_pending = false;
            r = sim_exec_step(e);
            switch (r) {
            case STEP_FAULT:
                return;
            case STEP_OOM:
                sim_oom_stop(e);
                return;
            case STEP_BLOCKED:
                e->state = SIM_ENG_WAITING;
                e->cursor = now;
                sim_timer_mod(e, now + SIM_WAIT_POLL_NS);
                return;
            case STEP_DONE:
                e->packets++;
                e->in_packet = false;
                e->pc += COPRO_PKT_LEN(e->cur.hdr) * 4;
                break;
            case STEP_MORE:
                break;
            }
            continue;
        }
        /* a submission whose packets have all run retires before any
         * arbitration, as the device's does: preempting it there would
         * only make the driver resume it to retire it */
        if (e->active && !e->in_packet && !e->restore_pending &&
            !e->preempt_saving && e->pc >= e->desc.dma_len) {
            complete_submission(e);
            continue;
        }
        /* every step boundary is a potential arbitration point */
        if (e->preempt_pending && sim_arbitrate(e, now)) {
            return;
        }
        if (!e->active) {
            if (e->head == e->tail || e->tiler_held) {
                e->state = SIM_ENG_IDLE;
                return;
            }
            if (!load_submission(e)) {
                return;
            }
        }
        if (e->restore_pending && !sim_restore(e)) {
            return;
        }
        e->state = SIM_ENG_BUSY;
        if (!e->in_packet) {
            if (e->pc >= e->desc.dma_len) {
                complete_submission(e);
                continue;
            }
            if (sim_oom_injected(e)) {
                e->oom_need = SIM_OOM_NEED;
                sim_oom_stop(e);
                return;
            }
            if (injected(e, SIM_INJECT_HANG)) {
                e->hung = true;
                if (e->g->obs && e->g->obs->hung) {
                    e->g->obs->hung(e->g->obs_arg, e->index, &e->desc);
                }
                continue;
            }
            if (injected(e, SIM_INJECT_FAULT)) {
                sim_engine_fault(e, COPRO_FAULT_INJECTED,
                             e->desc.dma_addr + e->pc);
                return;
            }
            if (!sim_fetch_packet(e)) {
                return;
            }
        }
        {
            uint64_t c = sim_step_cost(e);

            account(e, (int64_t)c);
            e->cursor += c;
            e->step_pending = true;
        }
    }
}

/* ---- the DDI ---- */

static void gpu_query_caps(void *drv, struct ddi_caps *caps)
{
    struct sim_gpu *g = drv;

    *caps = (struct ddi_caps){
        .engines = g->cfg.engines, .preemption = g->cfg.preemption,
        .ring_entries = g->cfg.ring_entries, .vram_size = g->cfg.mem_size,
        .max_dma_bytes = COPRO_DMA_MAX,
        .aperture_base = g->cfg.aperture_base,
        .aperture_size = g->gart ? g->cfg.aperture_size : 0,
    };
    for (unsigned i = 0; i < g->cfg.engines; i++) {
        caps->engine_ops[i] = sim_engine_ops(&g->engine[i]);
    }
}

/* Structural validation only (opcodes allowed on the engine, lengths,
 * patch locations inside the buffer): the kernel's render validator
 * (bounds of every access against its allocation) is the driver's. */
static int gpu_render(void *drv, const struct ddi_render_args *a,
                      struct ddi_dmabuf *out)
{
    struct sim_gpu *g = drv;
    uint32_t at = 0, n = a->cmd_bytes / 4;

    if (a->engine >= g->cfg.engines || (a->cmd_bytes & 3) ||
        a->cmd_bytes > out->cap_bytes || a->nalloc > DDI_MAX_ALLOC_LIST ||
        a->npatch > DDI_MAX_PATCH_LIST) {
        return DDI_EINVAL;
    }
    while (at < n) {
        uint32_t hdr = a->cmd[at], len = COPRO_PKT_LEN(hdr);
        struct sim_engine probe = { .g = g, .index = a->engine };

        if (sim_header_check(&probe, hdr)) {
            return DDI_EOPCODE;
        }
        if (len > n - at) {
            return DDI_EINVAL;
        }
        at += len;
    }
    for (unsigned i = 0; i < a->npatch; i++) {
        if (a->patch[i].slot >= a->nalloc || (a->patch[i].patch_offset & 3) ||
            a->patch[i].patch_offset + 8 > a->cmd_bytes) {
            return DDI_EINVAL;
        }
    }
    memcpy(out->dw, a->cmd, a->cmd_bytes);
    out->len_bytes = a->cmd_bytes;
    out->engine = a->engine;
    out->nalloc = a->nalloc;
    memcpy(out->alloc, a->alloc, a->nalloc * sizeof(*a->alloc));
    out->npatch = a->npatch;
    memcpy(out->patch, a->patch, a->npatch * sizeof(*a->patch));
    return DDI_OK;
}

static int gpu_patch(void *drv, struct ddi_dmabuf *buf,
                     const struct ddi_alloc_desc *alloc, uint32_t first,
                     uint32_t end)
{
    (void)drv;
    for (unsigned i = 0; i < buf->npatch; i++) {
        const struct ddi_patch_loc *p = &buf->patch[i];
        uint64_t addr;

        if (p->split_offset < first || p->split_offset >= end) {
            continue;
        }
        if (!alloc || p->slot >= buf->nalloc ||
            p->patch_offset + 8 > buf->len_bytes) {
            return DDI_EINVAL;
        }
        addr = alloc[p->slot].gpu_addr + p->alloc_offset;
        buf->dw[p->patch_offset / 4] = (uint32_t)addr;
        buf->dw[p->patch_offset / 4 + 1] = (uint32_t)(addr >> 32);
    }
    return DDI_OK;
}

static int gpu_submit(void *drv, const struct ddi_submit_args *a)
{
    struct sim_gpu *g = drv;
    struct sim_engine *e;
    uint32_t mask = g->cfg.ring_entries - 1;

    if (a->engine >= g->cfg.engines) {
        return DDI_EINVAL;
    }
    e = &g->engine[a->engine];
    if (((e->tail + 1) & mask) == e->head) {
        return DDI_EBUSY;
    }
    e->ring[e->tail] = (struct copro_submit_desc){
        .dma_addr = a->dma_addr, .dma_len = a->dma_len, .flags = a->flags,
        .fence = a->fence, .context = a->context, .save_addr = a->save_addr,
    };
    if (g->obs && g->obs->submitted) {
        g->obs->submitted(g->obs_arg, e->index, &e->ring[e->tail]);
    }
    e->tail = (e->tail + 1) & mask;
    if (e->state != SIM_ENG_HALTED) {
        sim_kick(e);
    }
    return DDI_OK;
}

static int gpu_preempt(void *drv, unsigned engine, uint64_t fence)
{
    struct sim_gpu *g = drv;
    struct sim_engine *e;

    if (engine >= g->cfg.engines) {
        return DDI_EINVAL;
    }
    e = &g->engine[engine];
    if (!e->preempt_pending) {
        e->preempt_pending = true;
        e->preempt_req_time = now_of(e);
    }
    e->preempt_req = fence;     /* a second request replaces the fence */
    if (e->state != SIM_ENG_HALTED) {
        sim_kick(e);
    }
    return DDI_OK;
}

static int gpu_reset_engine(void *drv, unsigned engine,
                            struct ddi_reset_report *rep)
{
    struct sim_gpu *g = drv;
    struct sim_engine *e;
    uint64_t now;

    if (engine >= g->cfg.engines) {
        return DDI_EINVAL;
    }
    e = &g->engine[engine];
    now = now_of(e);
    sim_notify_stop(e, true);
    e->aborted_fence = e->active ? e->desc.fence : 0;
    sim_timer_del(e);
    if ((e->step_pending || e->preempt_saving) && e->cursor > now) {
        /* the aborted step was charged in advance: refund what never ran */
        account(e, -(int64_t)(e->cursor - now));
    }
    e->cursor = now;
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->restore_pending = false;
    e->preempt_saving = false;
    e->preempt_pending = false;
    e->hung = false;
    e->head = e->tail;
    e->tiler_held = false;
    e->pc = 0;
    memset(e->targets, 0, sizeof(e->targets));
    e->scene = 0;           /* an engine reset abandons the open scene */
    e->tiler_cause = COPRO_TILER_ERR_NONE;
    e->fault_kind = COPRO_FAULT_NONE;
    e->fault_offset = 0;
    e->fault_addr = 0;
    e->fault_fence = 0;
    e->fault_context = 0;
    e->state = SIM_ENG_IDLE;
    g->reset_gen++;
    if (rep) {
        rep->aborted_fence = e->aborted_fence;
        rep->completed_fence = e->completed_fence;
    }
    return DDI_OK;
}

static uint64_t gpu_time(void *drv)
{
    return ((struct sim_gpu *)drv)->clk->now;
}

/*
 * No display model: caps.display.sources stays 0 and the DDI's display
 * ops (commit_vidpn, set_source_address, set_pointer_shape and
 * set_pointer_position) are NULL. vidsch never calls them (presents are
 * the kernel's, kernel/kdisplay.c, and build no DMA buffer), so the
 * scheduler's properties do not depend on a display; the kernel's
 * display half is tested over a fake display in
 * tests/unit/test-kernel-display.c and on the device by the desktop
 * scenario.
 */
const struct ddi_ops sim_gpu_ops = {
    .query_caps = gpu_query_caps,
    .render = gpu_render,
    .patch = gpu_patch,
    .build_paging_buffer = sim_gpu_build_paging_buffer,
    .submit = gpu_submit,
    .preempt = gpu_preempt,
    .reset_engine = gpu_reset_engine,
    .gpu_time = gpu_time,
};

/* ---- life cycle ---- */

static void engines_init(struct sim_gpu *g)
{
    for (unsigned i = 0; i < DDI_MAX_ENGINES; i++) {
        struct sim_engine *e = &g->engine[i];
        struct copro_submit_desc *ring = e->ring;

        memset(e, 0, sizeof(*e));
        e->g = g;
        e->index = i;
        e->ring = ring;
        e->timer_gen = 1;
    }
}

struct sim_gpu *sim_gpu_create(struct sim_clock *clk,
                               const struct sim_gpu_config *cfg)
{
    struct sim_gpu *g = calloc(1, sizeof(*g));

    if (!g) {
        abort();
    }
    g->clk = clk;
    g->mem = calloc(1, cfg->mem_size);
    for (unsigned i = 0; i < DDI_MAX_ENGINES; i++) {
        g->engine[i].ring = calloc(COPRO_RING_MAX_ENTRIES,
                                   sizeof(struct copro_submit_desc));
    }
    g->cfg = *cfg;
    g->mem_used = COPRO_GPU_PAGE_SIZE;
    sim_aperture_init(g, cfg);
    engines_init(g);
    return g;
}

void sim_gpu_reset(struct sim_gpu *g, const struct sim_gpu_config *cfg)
{
    uint64_t cap = g->cfg.mem_size;

    if (cfg->mem_size > cap || cfg->engines > DDI_MAX_ENGINES ||
        cfg->ring_entries > COPRO_RING_MAX_ENTRIES) {
        abort();
    }
    g->cfg = *cfg;
    g->cfg.mem_size = cfg->mem_size;
    /* page 0 is never handed out: GPU address 0 means "none" in the DDI
     * (a save area, for one) */
    g->mem_used = COPRO_GPU_PAGE_SIZE;
    sim_aperture_init(g, cfg);
    g->ninject = 0;
    g->reset_gen = 0;
    memset(&g->tiler, 0, sizeof(g->tiler));
    g->tiler_bug = SIM_TILER_OK;
    memset(g->ctx_busy_ns, 0, sizeof(g->ctx_busy_ns));
    engines_init(g);
}

void sim_gpu_destroy(struct sim_gpu *g)
{
    for (unsigned i = 0; i < DDI_MAX_ENGINES; i++) {
        free(g->engine[i].ring);
    }
    free(g->mem);
    free(g->sys);
    free(g->sys_free);
    free(g);
}

void sim_gpu_connect(struct sim_gpu *g, const struct ddi_upcalls *up,
                     void *os)
{
    g->up = up;
    g->os = os;
}

void sim_gpu_observe(struct sim_gpu *g, const struct sim_gpu_observer *o,
                     void *arg)
{
    g->obs = o;
    g->obs_arg = arg;
}

void sim_gpu_inject(struct sim_gpu *g, uint64_t dma_addr, uint32_t offset,
                    enum sim_inject_kind kind)
{
    if (g->ninject < SIM_MAX_INJECT) {
        g->inject[g->ninject].dma_addr = dma_addr;
        g->inject[g->ninject].offset = offset;
        g->inject[g->ninject].kind = kind;
        g->inject[g->ninject].fired = false;
        g->ninject++;
    }
}

