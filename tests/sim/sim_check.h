/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs one workload (sim_workload.h) through vidsch on the GPU model and
 * checks, while it runs and at the end, the scheduler's properties:
 *
 *  exactly-once   every submitted buffer is reported once: DDI_OK and
 *                 retired by the GPU exactly once, its memory effects in
 *                 place; or DDI_ELOST and never retired, its context lost
 *  priority       (priority, quantum) no buffer is elected while a
 *                 context of a higher priority has an electable buffer,
 *                 unless aging boosted it, and only after it waited
 *                 aging_ns without running; no lower buffer starts on the
 *                 engine while a higher one has waited longer than the
 *                 granularity allows (preparation, plus the queued ring
 *                 without preemption)
 *  starvation     (quantum) no context ready to run waits longer than
 *                 aging plus one turn per context of its engine
 *  blame          TDR and faults put in error only contexts whose buffer
 *                 hung or faulted, and every such context, and with it
 *                 every other context of its device, no one else
 *  lost device    once a context is lost (its LOST decision), no buffer
 *                 of any context of its device starts on the GPU but
 *                 those another context of the device already had then:
 *                 on the engine's ring (software mode: stopped at the
 *                 next arbitration point, what comes back is lost), or
 *                 in the context's queue ring (hardware mode: the
 *                 entries it was given run out and retire); all others
 *                 are reported lost (the guilty one's all, its ring
 *                 entries dropped by the reset)
 *  fences         fresh ids grow per engine; a paging buffer keeps its
 *                 id; after a stop dropped paging buffers, they are
 *                 resubmitted before any DMA buffer
 *  device         no fault but the injected ones (a bad save record or
 *                 descriptor would be the scheduler's fault)
 *  fifo           (fifo) no preemption but the watchdog's (and the stop
 *                 of a lost device's buffer on the ring); without waits
 *                 and recovery, buffers start in submission order
 *  drain          the run ends: no event left, the scheduler idle
 */
#ifndef TESTS_SIM_SIM_CHECK_H
#define TESTS_SIM_SIM_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_host.h"
#include "sim_workload.h"

/* Deliberate breakage, to show that each check can fail. */
enum check_mutation {
    MUT_NONE,
    MUT_STRICT_FIFO,        /* check fifo runs with the priority rules */
    MUT_STARVE_PRIORITY,    /* check priority runs for starvation */
    MUT_FORGET_TRIGGERS,    /* the checker does not see hangs/faults */
    MUT_DROP_DONE,          /* the checker loses one buffer_done */
    MUT_CORRUPT_MEMORY,     /* a retired buffer's output is overwritten */
    MUT_HWS_NO_SHARE,       /* the device gives IDLE no share (hws) */
    MUT_HWS_FLAT_BANDS,     /* the device ignores bands (hws) */
    MUT_NO_DEVICES,         /* vidsch is told nothing about devices */
    MUT_TURNS_PRIORITY,     /* check priority runs for quantum turns */
};

struct check_opts {
    bool verbose;           /* print the run's events on stderr */
    enum check_mutation mutation;
    uint64_t limit_ns;      /* virtual time allowed (0: 10 s) */
    /* hardware scheduling (vidsch_hws.c over sim_hws): the workload's
     * scheduler config with hwsched, policy quantum (even seeds) or
     * joblist (odd); judged by the device's rules (bands) */
    bool hws;
};

struct check_result {
    bool ok;
    char msg[512];          /* the first violation */
    uint64_t end_ns;        /* virtual time at the end */
    uint64_t last_retired_ns;   /* ... at the GPU's last retirement */
    uint64_t events;
    unsigned buffers, lost, preemptions, resets, device_resets, boosts;
    /* lost devices: contexts lost with another of their device, their
     * buffers reported lost, and those that ran after the loss (on a
     * ring then) */
    unsigned lost_with_device, device_bufs_lost, device_ran_after;
    unsigned device_held_lost;  /* of the lost: held by a GPU wait */
};

struct checker;

struct checker *checker_new(void);
void checker_free(struct checker *k);

/* Runs w on h (reused across runs) and checks it. */
bool checker_run(struct checker *k, struct sim_host *h,
                 const struct workload *w, const struct check_opts *o,
                 struct check_result *r);

#endif /* TESTS_SIM_SIM_CHECK_H */
