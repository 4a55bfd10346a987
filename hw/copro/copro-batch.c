/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: quiet-period batching (x-batch=on, under -icount): while the
 * machine can see nothing of an engine, its steps run back to back in one
 * pass instead of one timer each. The engine loop (copro-engine.c) asks
 * here whether the step it has charged may run ahead, whether it must
 * catch up with real time before an action the machine sees, and when a
 * blocked WAIT is re-checked. docs/specs/copro.rst, "Emulation speed".
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "system/cpu-timers.h"
#include "system/cpus.h"
#include "copro-engine-internal.h"
#include "trace.h"

/*
 * quiet-period batching: steps run ahead per pass; how far a WAIT's next
 * re-check may be skipped (a write from outside virtual time, such as
 * another device's DMA completed by the main loop, is seen that late)
 */
#define COPRO_BATCH_STEPS   4096
#define COPRO_BATCH_SKIP_NS (1 * SCALE_MS)

/*
 * Quiet-period batching (x-batch=on, under -icount). While every vCPU is
 * halted with nothing to do, nothing in the machine can act before the
 * next QEMU_CLOCK_VIRTUAL timer (the horizon): a halted CPU only wakes on
 * an interrupt, and under -icount every source of one that is exact in
 * virtual time (this device's engines and display, the guest's timers)
 * is such a timer. Until then no one can read the device's registers or
 * memory, write a preemption request, or write what a WAIT reads. So an
 * engine may execute the steps that end before the horizon back to back
 * in one pass, each with its own end time as its virtual time, instead
 * of one timer per step, and it must stop before anything the rest of
 * the machine would see at once: an interrupt, a fence that wakes a
 * waiting engine, a timeline event, a submission retired or loaded, an
 * arbitration point with a request pending. For the same reason a WAIT
 * that is not satisfied skips the re-checks before the horizon: the
 * memory it reads cannot change until then. Every result is the one the
 * step-by-step path (x-batch=off) gives, to the nanosecond.
 *
 * The horizon of @now (real virtual time), or @now if nothing may run
 * ahead. The engine's own timer is not part of it.
 */
static int64_t copro_batch_horizon(CoproEngine *e, int64_t now)
{
    int64_t d;

    if (!e->dev->batch || !icount_enabled() || !all_cpu_threads_idle()) {
        return now;
    }
    timer_del(e->timer);
    d = qemu_clock_deadline_ns_all(QEMU_CLOCK_VIRTUAL, QEMU_TIMER_ATTR_ALL);
    if (d < 0 || d > INT64_MAX - now) {
        return INT64_MAX;
    }
    return now + d;
}

/* Can the charged step run at once, ahead of its end time? */
bool copro_batch_step(CoproEngine *e, int64_t real, int64_t *horizon,
                             unsigned *batched)
{
    CoproState *s = e->dev;
    const char *stop = NULL;

    /*
     * Not while the engine runs hardware queues: its scheduler's decisions
     * (quanta, budgets, doorbells, log entries) are made in real virtual
     * time, step by step.
     */
    if (!s->batch || copro_hws_engine_on(e) || copro_hws_owns(e)) {
        return false;
    }
    switch (COPRO_PKT_OP(e->cur.hdr)) {
    case COPRO_OP_INTERRUPT:
        stop = "interrupt";
        break;
    case COPRO_OP_FENCE:
        if (COPRO_PKT_FLAGS(e->cur.hdr) & COPRO_FENCE_IRQ) {
            stop = "fence interrupt";
            break;
        }
        /* it wakes waiting engines at its real time */
        for (unsigned i = 0; i < s->num_engines; i++) {
            if (s->engines[i].state == COPRO_ENG_STATE_WAITING) {
                stop = "fence wakes";
            }
        }
        if (copro_hws_any_blocked(s)) {
            stop = "fence unblocks";
        }
        break;
    default:
        /* the tiler's steps may stop with OOM or record stage events */
        if (copro_tiler_op(COPRO_PKT_OP(e->cur.hdr))) {
            stop = "tiler";
        }
        break;
    }
    if (!stop && *batched >= COPRO_BATCH_STEPS) {
        stop = "steps";
    }
    if (!stop) {
        if (*horizon < 0) {
            *horizon = copro_batch_horizon(e, real);
        }
        if (*horizon == real) {
            stop = "machine busy";
        } else if (e->cursor >= *horizon) {
            stop = "horizon";
        }
    }
    if (stop) {
        trace_copro_batch_stop(e->index, stop, *batched, e->cursor);
        return false;
    }
    (*batched)++;
    return true;
}

/*
 * Is the engine ahead of real time (batching) before an action the rest
 * of the machine sees? Then it waits for its timer at @now to do it.
 */
bool copro_batch_catch_up(CoproEngine *e, int64_t now, int64_t real)
{
    if (now > real) {
        trace_copro_batch_stop(e->index, "visible", 0, now);
        timer_mod(e->timer, now);
        return true;
    }
    return false;
}

/*
 * The next re-check of a WAIT blocked at @now: the next poll, or while
 * nothing can write what it reads, the first poll at or after the
 * horizon (at most COPRO_BATCH_SKIP_NS on). Polls keep their period.
 */
int64_t copro_wait_poll_at(CoproEngine *e, int64_t now, int64_t real,
                                  int64_t *horizon)
{
    int64_t next = now + COPRO_WAIT_POLL_NS;
    int64_t until;

    if (!e->dev->batch || copro_hws_engine_on(e) || copro_hws_owns(e)) {
        return next;
    }
    if (*horizon < 0) {
        *horizon = copro_batch_horizon(e, real);
    }
    until = MIN(*horizon, now + (int64_t)COPRO_BATCH_SKIP_NS);
    if (until > next) {
        next += DIV_ROUND_UP(until - next, COPRO_WAIT_POLL_NS) *
                COPRO_WAIT_POLL_NS;
    }
    return next;
}
