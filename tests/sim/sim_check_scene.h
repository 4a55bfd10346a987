/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs one scene workload (sim_workload_scene.h) through vidsch on the
 * GPU model's tiler and checks, as it runs and at the end:
 *
 *  ordering     no tile pass of a scene starts on the GPU before the
 *               scene's geometry buffer retired; a final pass starts
 *               only after every partial pass of the scene retired;
 *               scenes of one process render in submission order (a
 *               final pass starts after the previous scene's finished);
 *  tiles        every tile of every pass is rendered exactly once and in
 *               order across preemptions and resumes (a resumed pass
 *               continues at the tile its save record names); with
 *               tile-boundary preemption (command, mid-command) and a
 *               preempting policy, a tile pass that becomes ready while
 *               only lower-priority work holds the tile engine starts
 *               within one tile plus the model's switch costs (save and
 *               restore) plus the OS's reaction (two upcalls, the
 *               worker's preparations) plus vidsch's allowance for a
 *               short buffer expected to end soon (it waits up to four
 *               switch times rather than preempt: vidsch_pick.c); and
 *               the device stops a tile pass within one tile and a
 *               context save of the preemption request (and a restore
 *               the request found under way). All in virtual time;
 *  partial      after an OOM answered with a partial render, the
 *               geometry resumes only once the partial pass retired and
 *               the heap's fill is back at heap_start; each scene ends
 *               RENDERED with every primitive binned once and rendered
 *               once in each tile it touches (bin entries counted over
 *               all its passes);
 *  blame        every buffer is reported once; DDI_OK unless its process
 *               was lost, and a process is lost only when its own OOM
 *               could be answered neither by a grow nor by a partial
 *               render (nobody else is blamed or loses work); no device
 *               fault;
 *  drain        the run ends, the scheduler idle.
 *
 * With hws (vidsch's hardware mode over sim_hws) every context is a
 * hardware queue and an OOM stop puts the geometry's queue in OOM_WAIT,
 * answered by vidsch (vs_hws_up_oom, vs_hws_oom_poll): the same checks
 * (the tile-wait bound excepted: the device's scheduler, not vidsch,
 * picks), plus
 *  oom-wait     a queue in OOM_WAIT never holds its engine: at every
 *               load and at every queue_oom the OS hears, no engine's
 *               current queue is a waiting one (the others run); the
 *               OS never answers a queue that is not waiting (no answer
 *               refused).
 */
#ifndef TESTS_SIM_SIM_CHECK_SCENE_H
#define TESTS_SIM_SIM_CHECK_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_host.h"
#include "sim_workload_scene.h"

/* Deliberate breakage, to show that each check can fail (--meta). */
enum scene_mutation {
    SMUT_NONE,
    SMUT_NO_WAIT,           /* OS: tile passes not held on the geometry */
    SMUT_TWO_TILE_CTX,      /* OS: a process's odd scenes' tile passes go
                               to a second, higher tile context */
    SMUT_NOT_BETWEEN_TILES, /* device: tile passes preempted only between
                               buffers (dma-buffer), judged as tiles */
    SMUT_REDO_TILE,         /* device: RESUME renders a tile again */
    SMUT_SKIP_TILE,         /* device: RESUME skips a tile */
    SMUT_KEEP_BINS,         /* device: a partial pass keeps the bins */
    SMUT_PARTIAL_NO_HOLD,   /* OS: the geometry resumes at once after a
                               partial answer, not after the pass */
    SMUT_SKIP_PRIM,         /* device: RESUME after an OOM goes on after
                               the primitive that did not fit */
    SMUT_COARSE,            /* device: a tile pass honours a preemption
                               only at every fourth tile boundary */
    SMUT_HWS_OOM_HOLDS,     /* device (hws): a queue in OOM_WAIT stays on
                               its engine until answered */
    SMUT_COUNT,
};

const char *scene_mutation_name(enum scene_mutation m);

struct scene_check_opts {
    enum scene_mutation mutation;
    uint64_t limit_ns;      /* virtual time allowed (0: 10 s) */
    bool verbose;           /* the scheduler's and the GPU's events on
                               stderr */
    bool hws;               /* hardware scheduling (sim_hws) */
};

struct scene_check_result {
    bool ok;
    char msg[512];          /* the first violation */
    uint64_t end_ns;
    unsigned scenes, tiles, preempted_passes, ooms, grows, partials, lost;
    unsigned bounded_waits;     /* tile-pass waits the bound judged */
    uint64_t max_wait_ns;       /* the longest of those */
    unsigned tile_stops;        /* preemptions that cut a tile pass */
    uint64_t max_stop_ns;       /* the longest request-to-stop of those */
    /* a figure, not a check: every wait of the compositor-like process's
     * tile passes, from its geometry's retirement to the pass's start,
     * whatever held the tile engine (runs where the bound is judged:
     * tile-boundary preemption, a preempting policy) */
    uint64_t comp_wait_ns[WLS_MAX_SCENE];
    unsigned ncomp_wait;
    /* hws: OOM_WAITs, and queues switched in while one waited */
    unsigned oom_waits, ran_while_waiting, oom_failed;
};

struct scene_checker;

struct scene_checker *scene_checker_new(void);
void scene_checker_free(struct scene_checker *k);

/* Runs w on h (reused across runs) and checks it. */
bool scene_checker_run(struct scene_checker *k, struct sim_host *h,
                       const struct scene_workload *w,
                       const struct scene_check_opts *o,
                       struct scene_check_result *r);

#endif /* TESTS_SIM_SIM_CHECK_SCENE_H */
