/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The GPU model's tiler: what scheduling sees of it. The parameter
 * buffer's OOM stop is injected (SIM_INJECT_OOM) and stops the
 * submission as a preemption does.
 */
#include "sim_gpu_internal.h"

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
    if (!sim_mem_write(e, e->desc.save_addr, &r, sizeof(r))) {
        return;     /* faulted: halted */
    }
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
