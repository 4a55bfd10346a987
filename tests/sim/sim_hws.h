/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device's own scheduler (include/copro/copro_hwsched.h), modelled on
 * the host over the GPU model's engines, so that vidsch's hardware mode
 * (vidsch_hws.c) runs here exactly as over the real device.
 *
 * It plays the part of copro's scheduler (MES's firmware, GuC): per
 * engine a run list of hardware queues with band, quantum and per-frame
 * budget; it feeds the engine (sim_gpu) one submission of the chosen
 * queue at a time and decides every switch in virtual time:
 *
 *  - the highest effective band with runnable work runs (a queue whose
 *    frame budget is used up counts as IDLE until the next frame);
 *    within a band, round robin: the least recently switched-in queue;
 *  - a runnable queue of a higher band, a turn's end (quantum) with a
 *    peer of the same band runnable, a used-up budget, a suspension by
 *    the run list: the running queue is preempted at the engine's
 *    granularity (save and resume as the engine does); a PAGING
 *    submission is never preempted;
 *  - the NORMAL band yields low_share permille of each frame to runnable
 *    IDLE queues (starvation protection), at its turns' ends;
 *  - a queue that does not yield within the preemption timeout is reset:
 *    its queue goes to ERROR (PREEMPT_TIMEOUT), the others go on; a
 *    fault puts the faulting queue in ERROR (QUEUE_FAULT);
 *  - a queue whose scene geometry fills its parameter buffer (the
 *    engine's OOM stop, its save record in the queue's save area) goes
 *    to OOM_WAIT (docs/specs/copro.rst "Parameter buffer full on a
 *    queue"): switched out (TILER_OOM, not a preemption), not runnable,
 *    off the engine, so the others run; a TILER_OOM log entry; the OS
 *    hears of it by the queue_oom upcall (DEV_HWS_OOM) and answers with
 *    queue_oom_answer (HWS_OOM_ANSWER): RESUME makes it runnable again
 *    (its stopped submission resumes from its save area), FAIL puts it
 *    in ERROR (TILER_OOM, error_fence the stopped one); an answer to a
 *    queue not waiting (or not mapped) is refused (DDI_EINVAL, an ERROR
 *    entry OOM_ANSWER) and changes nothing;
 *  - the log (switches in and out with their reason, completions,
 *    budgets, resets, errors) and, at every frame (vsync, frame_ns
 *    apart), each queue's FRAME entry: its GPU time in the frame.
 *
 * The OS hears of it through the DDI's upcalls (ddi_hws.h) upcall_ns after
 * an interrupt: a completion of a queue created with completion_irq, an
 * error, a frame. Every interrupt reports every queue's progress (the
 * driver reads all progress fences in its DPC).
 *
 * Not modelled: blocked WAITs switched out (the property workloads have
 * no GPU WAIT packets; the engine's own WAIT handling still applies), the
 * run list's double buffering (a commit is taken at once; a running queue
 * it removes or suspends is preempted as for any switch), a queue with no
 * save area stopped by OOM (the device fails its scene, QUEUE_OOM; vidsch
 * always gives one) and migration.
 */
#ifndef TESTS_SIM_SIM_HWS_H
#define TESTS_SIM_SIM_HWS_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi_hws.h"
#include "sim_gpu.h"

#define SIM_HWQ_RING        64
#define SIM_HWS_LOG         4096

struct sim_hws_config {
    uint64_t frame_ns;          /* vsync period */
    uint32_t low_share;         /* permille (COPRO_REG_HWS_LOW_SHARE) */
    uint64_t preempt_timeout_ns;
    uint64_t upcall_ns;         /* interrupt to DPC */
    bool flat_bands;            /* (the checkers' own test) every queue
                                   runs in the NORMAL band */
    bool oom_holds_engine;      /* (the checkers' own test) a queue in
                                   OOM_WAIT stays on the engine until
                                   answered: nobody else runs */
};

void sim_hws_config_default(struct sim_hws_config *c);

struct sim_hwq {
    bool used, listed, suspended, irq;
    unsigned engine;
    uint32_t context;
    uint64_t save_addr;
    struct ddi_submit_args ring[SIM_HWQ_RING];
    uint32_t head, tail;        /* free-running */
    uint64_t completed;         /* last retired (the queue's fence) */
    uint64_t reported;          /* ... told to the OS */
    unsigned state;             /* COPRO_HWQ_STATE_* */
    struct ddi_hwq_error err;
    bool err_pending;           /* not yet told */
    unsigned band;
    uint32_t quantum_ns, budget_ns;
    bool resume;                /* its head was preempted mid-buffer */
    uint64_t frame_ns, last_frame_ns, gpu_ns, runs, preemptions;
    uint64_t run_start, last_in;
    /* OOM_WAIT: the stop's parameter buffer, need and submission */
    uint64_t oom_scene, oom_fence;
    uint32_t oom_need, ooms;
    bool oom_pending;           /* not yet told (queue_oom) */
};

struct sim_hws_engine {
    int cur;                    /* queue on the engine, -1: none */
    uint64_t cur_fence;         /* engine fence of its submission, 0 */
    bool cur_resume;            /* ... given with RESUME */
    bool switching;             /* a preemption was asked ... */
    unsigned out_reason;        /* ... for this (COPRO_SLOG_OUT_*) */
    uint64_t switch_at;
    bool share_turn;            /* cur runs on NORMAL's share */
    uint64_t turn_end;
    uint64_t idle_used;         /* IDLE band's GPU time this frame */
    uint64_t fence;             /* engine fences given */
    uint64_t timer_gen;
    uint32_t list[COPRO_RUNLIST_MAX];
    unsigned n;
};

struct sim_hws_stats {
    uint64_t interrupts;        /* upcall batches delivered to the OS */
    uint64_t switches, preemptions, resets, frames, doorbells, commits;
    uint64_t log_dropped;
    uint64_t ooms, oom_resumed, oom_failed, oom_refused;
    uint64_t ran_while_waiting; /* switches in on an engine while a
                                   queue of it was in OOM_WAIT */
};

struct sim_hws {
    struct sim_hws_config cfg;
    struct sim_gpu *g;
    const struct ddi_upcalls *up;
    void *os;
    struct sim_hwq q[COPRO_HWQ_MAX];
    struct sim_hws_engine eng[DDI_MAX_ENGINES];
    struct copro_sched_log_entry log[SIM_HWS_LOG];
    unsigned nlog;
    uint32_t dropped;
    bool deliver_pending, frame_pending;
    uint64_t deliver_gen;
    uint64_t next_frame;        /* time of the next frame boundary */
    bool frame_armed;
    uint64_t vsync;
    struct sim_hws_stats stats;
    struct ddi_ops ops;         /* sim_gpu_ops with .hws set */
};

/* Puts the model over g (whose upcalls it takes: connect the OS with
 * sim_hws_connect). g's own upcall_ns should be 0: the device's scheduler
 * reacts at once; the OS's latency is cfg->upcall_ns. */
void sim_hws_init(struct sim_hws *h, struct sim_gpu *g,
                  const struct sim_hws_config *cfg);
void sim_hws_connect(struct sim_hws *h, const struct ddi_upcalls *up,
                     void *os);

extern const struct ddi_hws_ops sim_hws_ops;

#endif /* TESTS_SIM_SIM_HWS_H */
