/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the command processor of one engine
 *
 * An engine fetches submission descriptors from its ring, executes the
 * packets of each DMA buffer on QEMU_CLOCK_VIRTUAL and reports completion
 * with a fence and an interrupt.
 *
 * Time model: every packet is split into steps (a whole short packet, or a
 * chunk of a COPY/FILL, a band of RECT rows, a slice of WORK). A step is
 * first charged its modelled cost; its memory effects happen when the
 * engine's clock reaches the end of the step. The engine clock ("cursor")
 * advances by exactly the modelled costs while the engine stays busy, so
 * results do not depend on how late a timer fires. With timing=instant
 * every cost is zero.
 *
 * At most x-slice-packets steps run per main-loop slice, after which the
 * engine reschedules its bottom half, so a buffer that never ends cannot
 * stall QEMU or the guest.
 *
 * The packets themselves are copro-packet.c's: the loop reaches them only
 * through its table of per-opcode operations (cost, step, checks).
 * Quiet-period batching, which runs steps ahead of their time while
 * nothing can look, is copro-batch.c's; its migration is
 * copro-engine-state.c's.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/units.h"
#include "qemu/timer.h"
#include "exec/memory.h"
#include "system/cpu-timers.h"
#include "system/cpus.h"
#include "system/runstate.h"
#include "copro-engine-internal.h"
#include "trace.h"

const char *copro_engine_state_name(uint32_t state)
{
    static const char *const names[] = {
        [COPRO_ENG_STATE_IDLE] = "idle",
        [COPRO_ENG_STATE_BUSY] = "busy",
        [COPRO_ENG_STATE_WAITING] = "waiting",
        [COPRO_ENG_STATE_HALTED] = "halted",
        [COPRO_ENG_STATE_HELD] = "held",
    };

    return state < ARRAY_SIZE(names) ? names[state] : "?";
}

/*
 * STATE as the guest reads it. Held after an OOM stop (copro-tiler.c),
 * the engine is idle inside: nothing device-side waits for it or takes
 * it for hung; only the driver is told it holds.
 */
uint32_t copro_engine_state(CoproEngine *e)
{
    if (e->tiler.held && e->state == COPRO_ENG_STATE_IDLE) {
        return COPRO_ENG_STATE_HELD;
    }
    return e->state;
}

/* ns needed to move @bytes at @rate bytes (or pixels) per second */
uint64_t copro_cost(CoproEngine *e, uint64_t units, uint64_t rate)
{
    uint64_t lo, hi;

    if (!copro_modelled(e)) {
        return 0;
    }
    /*
     * 128-bit: rates are 64-bit (muldiv64 takes a 32-bit divisor), and
     * units * 1e9 overflows 64 bits for large packets.
     */
    mulu64(&lo, &hi, units, NANOSECONDS_PER_SECOND);
    divu128(&lo, &hi, rate);
    return hi ? UINT64_MAX : lo;
}

/*
 * Saving (or restoring) the modelled context state of a preempted
 * submission: ctx-state-size bytes at the copy bandwidth.
 */
uint64_t copro_ctx_switch_ns(CoproEngine *e)
{
    return copro_cost(e, e->dev->ctx_state_size, e->dev->copy_bw);
}

/* @base + @off in the GPU address space: beyond 2^64 faults, never wraps */
uint64_t copro_gpu_addr_add(uint64_t base, uint64_t off)
{
    uint64_t sum;

    return uadd64_overflow(base, off, &sum) ? UINT64_MAX : sum;
}

/*
 * Faults
 */

static void copro_engine_fault_report(CoproEngine *e);

void copro_engine_fault(CoproEngine *e, uint32_t kind, uint64_t addr,
                        uint32_t info)
{
    e->state = COPRO_ENG_STATE_HALTED;
    e->fault_kind = kind;
    e->fault_offset = e->pc;
    e->fault_addr = addr;
    e->fault_fence = e->active ? e->desc.fence : 0;
    e->fault_context = e->active ? e->desc.context : 0;
    e->fault_info = info;
    e->stat_faults++;
    e->step_pending = false;
    timer_del(e->timer);
    trace_copro_engine_fault(e->index, kind, addr, e->pc, e->fault_fence);
    if (copro_hws_owns(e)) {
        /* a hardware queue's fault stops that queue, not the engine */
        e->state = COPRO_ENG_STATE_BUSY;
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: queue fault: %s "
                      "at packet offset 0x%" PRIx32 ", address 0x%" PRIx64
                      ", fence %" PRIu64 "\n", e->index,
                      copro_fault_name(kind), e->pc, addr, e->fault_fence);
        copro_hws_queue_fault(e);
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u halted: %s at packet "
                  "offset 0x%" PRIx32 ", address 0x%" PRIx64
                  ", fence %" PRIu64 "\n", e->index,
                  copro_fault_name(kind), e->pc, addr, e->fault_fence);
    if (e->batching) {
        /*
         * A step run ahead of its time (quiet-period batching): the fault
         * is reported when the engine clock, the time of the step or
         * fetch that faulted, is reached; until then nothing can look.
         */
        e->fault_irq_due = true;
        trace_copro_batch_fault(e->index, e->cursor);
        timer_mod(e->timer, e->cursor);
        return;
    }
    copro_engine_fault_report(e);
}

/* What a fault shows the rest of the machine: its event and interrupt. */
static void copro_engine_fault_report(CoproEngine *e)
{
    bool error = COPRO_FAULT_IS_ERROR(e->fault_kind);

    copro_tl_engine(e, COPRO_TL_FAULT);
    copro_raise_irq(e->dev, COPRO_INT_ENG(e->index, error ? COPRO_INT_ERROR
                                                          : COPRO_INT_FAULT));
}

const char *copro_fault_name(uint32_t kind)
{
    static const char *const names[] = {
        [COPRO_FAULT_NONE] = "none",
        [COPRO_FAULT_ILLEGAL_OPCODE] = "illegal opcode",
        [COPRO_FAULT_BAD_LENGTH] = "bad packet length",
        [COPRO_FAULT_BUFFER_OVERRUN] = "buffer overrun",
        [COPRO_FAULT_BAD_DESCRIPTOR] = "bad descriptor",
        [COPRO_FAULT_BAD_PACKET] = "bad packet fields",
        [COPRO_FAULT_TRANSLATION] = "translation fault",
        [COPRO_FAULT_DMA] = "DMA error",
        [COPRO_FAULT_INJECTED] = "injected fault",
        [COPRO_FAULT_BAD_SAVE] = "bad save record",
        [COPRO_FAULT_GART] = "GART fault",
        [COPRO_FAULT_PAGE] = "page fault",
        [COPRO_FAULT_TABLE] = "page table outside VRAM",
    };

    return kind < ARRAY_SIZE(names) && names[kind] ? names[kind] : "?";
}

/*
 * GPU memory. Every access goes through copro_mmu_rw() (copro-mmu.c): VRAM,
 * the GART aperture and per-context address spaces. A failed access
 * latches a fault and halts the engine; callers just stop. Accesses made
 * for a submission use its context's address space; ring fetches and the
 * fence write-back use the physical GPU address space.
 */
bool copro_mem_access(CoproEngine *e, bool physical, uint64_t addr,
                      void *buf, uint64_t len, bool is_write)
{
    CoproMemFault f;

    if (copro_mmu_rw(e, physical, addr, buf, len, is_write, &f)) {
        return true;
    }
    copro_engine_fault(e, f.kind, f.addr, f.info);
    return false;
}

/*
 * Statistics
 */

static CoproCtxStat *copro_ctx_stat(CoproState *s, uint32_t context)
{
    unsigned h = context % COPRO_CTX_STATS;

    for (unsigned i = 0; i < COPRO_CTX_STATS; i++) {
        CoproCtxStat *c = &s->ctx_stats[(h + i) % COPRO_CTX_STATS];

        if (!c->used) {
            c->used = 1;
            c->context = context;
            return c;
        }
        if (c->context == context) {
            return c;
        }
    }
    return NULL;    /* table full: the context is not accounted */
}

void copro_account(CoproEngine *e, uint64_t ns)
{
    CoproCtxStat *c;

    e->stat_busy_ns += ns;
    c = copro_ctx_stat(e->dev, e->desc.context);
    if (c) {
        c->busy_ns += ns;
    }
    if (copro_hws_owns(e)) {
        copro_hws_account(e, ns);
    }
}

/*
 * Submissions
 */

/*
 * Load entry @idx of the ring at @base: the kernel ring (which then
 * advances *@advance past it once it is read) or a hardware queue's ring
 * (whose head moves when the submission retires).
 */
bool copro_load_entry(CoproEngine *e, uint64_t base, uint32_t idx,
                      uint32_t *advance)
{
    struct copro_submit_desc *d = &e->desc;
    uint64_t at = base + (uint64_t)idx * COPRO_DESC_SIZE;

    if (at < base) {
        /* beyond 2^64: must fault, not wrap around into VRAM */
        at = UINT64_MAX;
    }
    e->pc = 0;
    /* ring entries live in the physical GPU address space */
    if (!copro_mem_access(e, true, at, d, sizeof(*d), false)) {
        return false;
    }
    d->dma_addr = le64_to_cpu(d->dma_addr);
    d->dma_len = le32_to_cpu(d->dma_len);
    d->flags = le32_to_cpu(d->flags);
    d->fence = le64_to_cpu(d->fence);
    d->context = le32_to_cpu(d->context);
    d->save_addr = le64_to_cpu(d->save_addr);
    if (advance) {
        *advance = (*advance + 1) & (e->ring_size - 1);
    }
    e->active = true;
    trace_copro_submit_start(e->index, d->fence, d->context, d->dma_addr,
                             d->dma_len);
    copro_tl_engine(e, COPRO_TL_START);

    if ((d->dma_addr & 3) || (d->dma_len & 3) || d->dma_len > COPRO_DMA_MAX ||
        (d->flags & ~COPRO_SUBMIT_FLAGS_KNOWN) || d->reserved0 ||
        d->reserved1[0] || d->reserved1[1] || d->reserved1[2]) {
        copro_engine_fault(e, COPRO_FAULT_BAD_DESCRIPTOR, at, 0);
        return false;
    }
    /*
     * the engine loop loads the save record; RETRY of a fault there
     * loads it again rather than starting the buffer from offset 0
     */
    e->restore_pending = d->flags & COPRO_SUBMIT_RESUME;
    return true;
}

static bool copro_load_submission(CoproEngine *e)
{
    return copro_load_entry(e, e->ring_base, e->ring_head, &e->ring_head);
}

static bool copro_complete_submission(CoproEngine *e)
{
    CoproState *s = e->dev;
    CoproCtxStat *c;

    trace_copro_submit_end(e->index, e->desc.fence, e->cursor);
    if (copro_hws_owns(e)) {
        /* the queue's progress fence instead of the engine's write-back */
        if (!copro_hws_retire(e)) {
            return false;
        }
    } else if (e->fence_wb & COPRO_FENCE_WB_ENABLE) {
        uint64_t wb = cpu_to_le64(e->desc.fence);

        /* a fault here leaves the submission in execution, not retired */
        if (!copro_mem_access(e, true, e->fence_wb & ~7ULL, &wb, 8, true)) {
            return false;
        }
    }
    e->completed_fence = e->desc.fence;
    e->stat_submissions++;
    copro_tiler_retire(e);
    copro_tl_engine(e, COPRO_TL_RETIRE);
    c = copro_ctx_stat(s, e->desc.context);
    if (c) {
        c->submissions++;
    }
    e->active = false;
    if (e->inject & COPRO_INJECT_DROP_IRQ) {
        /* injected: the fence is done but its interrupt is lost */
        e->inject &= ~COPRO_INJECT_DROP_IRQ;
    } else if (!(e->desc.flags & COPRO_SUBMIT_NO_IRQ) &&
               copro_hws_completion_irq(e)) {
        copro_raise_irq(s, COPRO_INT_ENG(e->index, COPRO_INT_DMA_DONE));
    }
    copro_engines_fence_written(s);
    return true;
}

/*
 * The engine loop. Runs from the bottom half (doorbell, fence wake-up,
 * slice continuation) and from the timer (end of a modelled step, WAIT
 * poll).
 */
/*
 * Injected hang: with a submission loaded, the engine stays busy and does
 * nothing (no step, no memory access) until an engine reset.
 */
static bool copro_engine_hung(CoproEngine *e)
{
    if (!(e->inject & COPRO_INJECT_HANG) || !e->active) {
        return false;
    }
    e->state = COPRO_ENG_STATE_BUSY;
    timer_del(e->timer);
    return true;
}

/*
 * Let the main loop and the vCPUs run before the engine goes on. Under
 * -icount the continuation is a timer one nanosecond on: the virtual
 * clock stands still while due timers run, so a timer due now would run
 * again in the same pass, for ever if steps cost nothing.
 */
static void copro_engine_yield(CoproEngine *e, int64_t now)
{
    if (icount_enabled()) {
        timer_mod(e->timer, now + 1);
    } else {
        qemu_bh_schedule(e->bh);
    }
}

static void copro_engine_loop(CoproEngine *e)
{
    int64_t now = copro_now_ns();
    const int64_t real = now;   /* now is an end of step when batching */
    int64_t horizon = -1;       /* not computed yet */
    unsigned batched = 0;

    /*
     * Nothing executes while the VM is stopped: a savevm or migration
     * saves guest RAM and then the device, and a step run in between
     * (under -icount the vCPU thread can still run a due timer while the
     * VM is paused) would leave saved state that says a step is done whose
     * memory effect was never saved. copro_vm_state_change() restarts the
     * engines when the VM runs again.
     */
    if (!runstate_is_running() || e->state == COPRO_ENG_STATE_HALTED) {
        return;
    }
    /*
     * The slice budget: x-slice-packets steps per main-loop pass. Under
     * -icount every pass at one virtual time shares it (several passes
     * may run at the same virtual time: doorbells, fence wake-ups).
     */
    if (!icount_enabled() || e->slice_stamp != now) {
        e->slice_stamp = now;
        e->slice_used = 0;
    }
    /* the engine clock restarts from now after an idle or blocked period */
    if (!e->step_pending) {
        e->cursor = MAX(e->cursor, now);
    }

    /*
     * Only executed steps use the budget, and the engine yields with its
     * next step charged, so the continuation does not restart the clock.
     * Without a step each pass retires a ring entry or returns.
     */
    for (;;) {
        StepResult r;

        if (copro_engine_hung(e)) {
            return;
        }
        if (e->step_pending) {
            if (e->cursor > now) {
                if (!copro_batch_step(e, real, &horizon, &batched)) {
                    timer_mod(e->timer, e->cursor);
                    return;
                }
                /* run ahead: the step executes as at its end */
                now = e->cursor;
                e->batching = true;
                e->slice_stamp = now;
                e->slice_used = 0;
            }
            if (e->slice_used >= e->dev->slice_packets) {
                /* slice used up: let the main loop and the vCPUs run */
                copro_engine_yield(e, now);
                return;
            }
            e->slice_used++;
            e->step_pending = false;
            r = copro_packet_exec_step(e);
            switch (r) {
            case STEP_FAULT:
            case STEP_STOPPED:
                return;
            case STEP_BLOCKED:
                if (copro_hws_blocked(e, now)) {
                    /* a queue's WAIT does not hold the engine */
                    continue;
                }
                e->state = COPRO_ENG_STATE_WAITING;
                e->cursor = now;
                timer_mod(e->timer,
                          copro_wait_poll_at(e, now, real, &horizon));
                return;
            case STEP_DONE:
                e->stat_packets++;
                e->in_packet = false;
                e->pc += COPRO_PKT_LEN(e->cur.hdr) * 4;
                break;
            case STEP_MORE:
                break;
            }
            continue;
        }

        /*
         * A submission whose packets have all run retires before any
         * arbitration: preempting it there would only make the driver
         * resume it to retire it.
         */
        if (e->active && !e->in_packet && !e->restore_pending &&
            !e->preempt_saving && e->pc >= e->desc.dma_len) {
            if (e->cursor > now) {
                /*
                 * A restore charged ahead (a resumed submission with
                 * nothing left to run): it retires when the engine clock
                 * has reached its end, not before (its fence would be
                 * written ahead of the time the next buffer starts at).
                 */
                e->state = COPRO_ENG_STATE_BUSY;
                timer_mod(e->timer, e->cursor);
                return;
            }
            if (copro_batch_catch_up(e, now, real) ||
                !copro_complete_submission(e)) {
                return;
            }
            continue;
        }
        /* every step boundary is a potential arbitration point */
        if ((e->preempt_pending || copro_hws_switching(e)) &&
            (copro_batch_catch_up(e, now, real) ||
             copro_preempt_arbitrate(e, now))) {
            return;
        }

        if (!e->active) {
            if (copro_batch_catch_up(e, now, real)) {
                return;
            }
            if (copro_hws_engine_on(e) || copro_hws_owns(e)) {
                /* the device's scheduler picks a queue and loads its head */
                if (!copro_hws_fetch(e)) {
                    return;
                }
            } else if (e->ring_head == e->ring_tail || !e->ring_size ||
                       e->tiler.held) {
                /* held after an OOM stop: no fetch until TILER_ACK */
                e->state = COPRO_ENG_STATE_IDLE;
                return;
            } else if (!copro_load_submission(e)) {
                return;
            }
            if (copro_engine_hung(e)) {
                return;
            }
        }
        if (e->restore_pending) {
            if (copro_batch_catch_up(e, now, real) ||
                !copro_preempt_restore(e)) {
                return;
            }
            if (!e->in_packet && e->pc >= e->desc.dma_len) {
                continue;   /* nothing left: it retires (above) */
            }
        }
        e->state = COPRO_ENG_STATE_BUSY;
        if (!e->in_packet) {
            if (e->pc >= e->desc.dma_len) {
                if (copro_batch_catch_up(e, now, real) ||
                    !copro_complete_submission(e)) {
                    return;
                }
                continue;
            }
            if (!copro_packet_fetch(e)) {
                return;
            }
        }
        /* charge the next step; its effect happens when time catches up */
        {
            uint64_t cost = copro_packet_step_cost(e);

            copro_account(e, cost);
            e->cursor += cost;
            e->step_pending = true;
        }
    }
}

static void copro_engine_run(CoproEngine *e)
{
    copro_engine_loop(e);
    e->batching = false;
}

static void copro_engine_bh(void *opaque)
{
    copro_engine_run(opaque);
}

/* Re-check a blocked WAIT; waiting time is not charged to the engine. */
static void copro_engine_wake(CoproEngine *e)
{
    e->step_pending = true;
    e->state = COPRO_ENG_STATE_BUSY;
    e->cursor = copro_now_ns();
}

/*
 * The timer does most of the engine's work, DMA included, so it is
 * guarded as aio_bh_call() guards the bottom half: while it runs, device
 * DMA that lands on the device's own MMIO is refused by the memory core
 * (the engine faults) instead of re-entering copro_mmio_write mid-step.
 */
static void copro_engine_timer(void *opaque)
{
    CoproEngine *e = opaque;
    MemReentrancyGuard *guard = &DEVICE(e->dev)->mem_reentrancy_guard;
    bool was_engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    if (e->fault_irq_due) {
        /* a fault of a batched step reaches its time (see vm_start) */
        if (runstate_is_running()) {
            e->fault_irq_due = false;
            copro_engine_fault_report(e);
        }
    } else {
        /*
         * a pending preemption takes a blocked WAIT before it is
         * re-checked
         */
        if (e->state == COPRO_ENG_STATE_WAITING && !e->preempt_pending &&
            !copro_hws_switching(e)) {
            copro_engine_wake(e);
        }
        copro_engine_run(e);
    }
    guard->engaged_in_io = was_engaged;
}

/* The VM runs (again): engines with work go on. */
void copro_engine_vm_start(CoproEngine *e)
{
    if (e->fault_irq_due) {
        timer_mod(e->timer, MAX(e->cursor, copro_now_ns()));
    } else if (copro_engine_has_work(e)) {
        copro_engine_kick(e);
    }
    copro_hws_vm_start(e);
}

/*
 * Have the engine look at its work soon. Normally a bottom half. Under
 * -icount a virtual-clock timer due now instead: the vCPU stops at its
 * deadline until it has run, so the engine starts at the exact virtual
 * time of the doorbell (or request) and runs are deterministic; a bottom
 * half would run whenever the main loop got to it.
 */
void copro_engine_kick(CoproEngine *e)
{
    if (icount_enabled()) {
        timer_mod(e->timer, copro_now_ns());
    } else {
        qemu_bh_schedule(e->bh);
    }
}

/*
 * A kick from the guest's register write (doorbell, preemption request).
 * Under -icount with x-batch=on the engine runs at once, in the vCPU
 * thread at the virtual time of the write, as the timer due now would a
 * moment later: that saves the timer's round trip between QEMU's threads.
 */
void copro_engine_kick_io(CoproEngine *e)
{
    if (e->dev->batch && icount_enabled() && qemu_in_vcpu_thread()) {
        timer_del(e->timer);
        copro_engine_timer(e);
    } else {
        copro_engine_kick(e);
    }
}

/* A fence was written: engines blocked in WAIT re-check now. */
void copro_engines_fence_written(CoproState *s)
{
    for (unsigned i = 0; i < s->num_engines; i++) {
        CoproEngine *e = &s->engines[i];

        if (e->state == COPRO_ENG_STATE_WAITING) {
            copro_engine_wake(e);
            timer_del(e->timer);
            copro_engine_kick(e);
        }
    }
    copro_hws_fence_written(s);
}

/*
 * Registers
 */

static bool copro_engine_quiet(CoproEngine *e)
{
    return !e->active && e->ring_head == e->ring_tail;
}

uint64_t copro_engine_read(CoproEngine *e, hwaddr reg)
{
    switch (reg) {
    case COPRO_ENG_RING_BASE:
        return e->ring_base;
    case COPRO_ENG_RING_SIZE:
        return e->ring_size;
    case COPRO_ENG_RING_HEAD:
        return e->ring_head;
    case COPRO_ENG_RING_TAIL:
        return e->ring_tail;
    case COPRO_ENG_STATE:
        return copro_engine_state(e);
    case COPRO_ENG_FENCE_WB:
        return e->fence_wb;
    case COPRO_ENG_COMPLETED_FENCE:
        return e->completed_fence;
    case COPRO_ENG_CURRENT_FENCE:
        return e->active ? e->desc.fence : 0;
    case COPRO_ENG_CURRENT_CONTEXT:
        return e->active ? e->desc.context : 0;
    case COPRO_ENG_FAULT_KIND:
        return e->fault_kind;
    case COPRO_ENG_FAULT_OFFSET:
        return e->fault_offset;
    case COPRO_ENG_FAULT_ADDR:
        return e->fault_addr;
    case COPRO_ENG_FAULT_FENCE:
        return e->fault_fence;
    case COPRO_ENG_ABORTED_FENCE:
        return e->aborted_fence;
    case COPRO_ENG_USER_DATA:
        return e->user_data;
    case COPRO_ENG_FAULT_CONTEXT:
        return e->fault_context;
    case COPRO_ENG_FAULT_INFO:
        return e->fault_info;
    case COPRO_ENG_STAT_BUSY_NS:
        return e->stat_busy_ns;
    case COPRO_ENG_STAT_SUBMISSIONS:
        return e->stat_submissions;
    case COPRO_ENG_STAT_PACKETS:
        return e->stat_packets;
    case COPRO_ENG_STAT_BYTES:
        return e->stat_bytes;
    case COPRO_ENG_STAT_FAULTS:
        return e->stat_faults;
    case COPRO_ENG_INJECT:
        return e->inject;
    case COPRO_ENG_PREEMPT_FENCE:
        return e->preempt_fence;
    case COPRO_ENG_PREEMPTED_FENCE:
        return e->preempted_fence;
    case COPRO_ENG_STAT_PREEMPTIONS:
        return e->stat_preemptions;
    case COPRO_ENG_STAT_PREEMPT_MIN:
        return e->stat_preempt_min;
    case COPRO_ENG_STAT_PREEMPT_MAX:
        return e->stat_preempt_max;
    case COPRO_ENG_STAT_PREEMPT_SUM:
        return e->stat_preempt_sum;
    case COPRO_ENG_STAT_TLB_HITS:
    case COPRO_ENG_STAT_TLB_MISSES:
        return copro_mmu_engine_stat(e, reg);
    case COPRO_ENG_TILER_CAUSE ... COPRO_ENG_TILER_SCENE:
        return copro_tiler_engine_read(e, reg);
    default:
        return 0;
    }
}

/*
 * Drop what the engine is executing, at once: nothing of it resumes. The
 * step (or context save) charged in advance is refunded, and the engine
 * clock restarts now, not at the end of the aborted step. What happens to
 * the ring or the queue is the caller's.
 */
void copro_engine_abort(CoproEngine *e)
{
    int64_t now = copro_now_ns();

    timer_del(e->timer);
    if ((e->step_pending || e->preempt_saving) && e->cursor > now) {
        copro_account(e, -(uint64_t)(e->cursor - now));
    }
    e->cursor = now;
    e->active = false;
    e->in_packet = false;
    e->step_pending = false;
    e->restore_pending = false;
    e->preempt_saving = false;
    e->pc = 0;
    memset(e->targets, 0, sizeof(e->targets));
    e->state = COPRO_ENG_STATE_IDLE;
}

/* Abort the current buffer, drop queued entries and clear the fault. */
static void copro_engine_soft_reset(CoproEngine *e)
{
    e->aborted_fence = e->active ? e->desc.fence : 0;
    trace_copro_engine_reset(e->index, e->aborted_fence, e->completed_fence);
    copro_tl_engine(e, COPRO_TL_RESET);
    /* in queue mode: the run list goes, every queue is written back */
    copro_hws_engine_reset(e);
    copro_engine_abort(e);
    e->ring_head = e->ring_tail;
    e->fault_kind = COPRO_FAULT_NONE;
    e->fault_offset = 0;
    e->fault_addr = 0;
    e->fault_fence = 0;
    e->fault_context = 0;
    e->fault_info = 0;
    e->preempt_pending = false;
    e->fault_irq_due = false;
    e->inject = 0;
    copro_tiler_engine_soft_reset(e);
    e->state = COPRO_ENG_STATE_IDLE;
}

void copro_engine_write(CoproEngine *e, hwaddr reg, uint64_t val,
                        uint64_t mask)
{
    switch (reg) {
    case COPRO_ENG_RING_BASE:
    case COPRO_ENG_RING_SIZE:
        if (!copro_engine_quiet(e)) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: ring "
                          "reprogrammed while busy, ignored\n", e->index);
            return;
        }
        if (reg == COPRO_ENG_RING_BASE) {
            val = (e->ring_base & ~mask) | (val & mask);
            if (val & (COPRO_DESC_SIZE - 1)) {
                qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: "
                              "misaligned ring base 0x%" PRIx64 "\n",
                              e->index, val);
            }
            e->ring_base = val & ~(uint64_t)(COPRO_DESC_SIZE - 1);
        } else {
            if (val > COPRO_RING_MAX_ENTRIES ||
                (val && !is_power_of_2(val))) {
                qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: bad ring "
                              "size %" PRIu64 ", ignored\n", e->index, val);
                return;
            }
            e->ring_size = val;
        }
        e->ring_head = 0;
        e->ring_tail = 0;
        break;
    case COPRO_ENG_RING_TAIL:
        if (!e->ring_size || val >= e->ring_size) {
            qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: doorbell tail "
                          "%" PRIu64 " outside ring of %" PRIu32 " entries, "
                          "ignored\n", e->index, val, e->ring_size);
            return;
        }
        trace_copro_doorbell(e->index, val, e->ring_head);
        e->ring_tail = val;
        copro_tl_engine(e, COPRO_TL_DOORBELL);
        if (e->state != COPRO_ENG_STATE_HALTED) {
            copro_engine_kick_io(e);
        }
        break;
    case COPRO_ENG_FENCE_WB:
        e->fence_wb = (e->fence_wb & ~mask) | (val & mask);
        break;
    case COPRO_ENG_PREEMPT_REQ:
        copro_preempt_request(e, val, mask);
        break;
    case COPRO_ENG_INJECT:
        copro_inject_write(e, val);
        break;
    case COPRO_ENG_CONTROL:
        if (val & COPRO_ENG_CTL_RESET) {
            /* ends a hold too; the other bits have nothing left to do */
            copro_engine_soft_reset(e);
            break;
        }
        if (val & COPRO_ENG_CTL_RETRY) {
            e->fault_irq_due = false;
            copro_engine_retry(e);
        }
        if (val & COPRO_ENG_CTL_TILER_ACK) {
            copro_tiler_ack(e);
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "copro: engine %u: register 0x%"
                      HWADDR_PRIx " is not writable\n", e->index, reg);
        break;
    }
}

/*
 * Lifecycle
 */

void copro_engine_init(CoproState *s, unsigned index)
{
    CoproEngine *e = &s->engines[index];

    e->dev = s;
    e->index = index;
    e->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, copro_engine_timer, e);
    e->bh = qemu_bh_new_guarded(copro_engine_bh, e,
                                &DEVICE(s)->mem_reentrancy_guard);
    e->bounce = g_malloc(COPRO_CHUNK_BYTES);
}

void copro_engine_fini(CoproEngine *e)
{
    if (e->timer) {
        timer_free(e->timer);
        e->timer = NULL;
    }
    g_clear_pointer(&e->bh, qemu_bh_delete);
    g_clear_pointer(&e->bounce, g_free);
}

/* Power-on state: everything but the wiring is cleared. */
void copro_engine_reset(CoproEngine *e)
{
    CoproState *s = e->dev;
    unsigned index = e->index;
    QEMUTimer *timer = e->timer;
    QEMUBH *bh = e->bh;
    uint8_t *bounce = e->bounce;

    if (timer) {
        timer_del(timer);
    }
    if (bh) {
        qemu_bh_cancel(bh);
    }
    memset(e, 0, sizeof(*e));
    e->dev = s;
    e->index = index;
    e->timer = timer;
    e->bh = bh;
    e->bounce = bounce;
}

/* Has the engine anything to do, i.e. must it run when the VM does? */
bool copro_engine_has_work(CoproEngine *e)
{
    return e->state != COPRO_ENG_STATE_HALTED &&
           (e->step_pending || e->active || e->preempt_pending ||
            (e->ring_head != e->ring_tail && !e->tiler.held) ||
            e->state == COPRO_ENG_STATE_WAITING || copro_hws_has_work(e));
}
