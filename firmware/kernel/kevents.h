/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decisions of the kernel's event loop, without the hardware: one
 * DPC queue, one work queue, one timer list, and the order in which they
 * are served. kernel/kloop.c wraps this around the CPU (halt until the
 * next interrupt, LAPIC one-shot for the next timer); tests/unit runs it
 * with a fake clock.
 *
 * Order, as a WDDM kernel has it: DPCs first (they are the deferred half
 * of interrupts: completions, preemptions and faults reach the scheduler
 * there), then timers that are due, then one work item (passive level:
 * the scheduler's worker, applications' callbacks). After every step the
 * loop comes back here, so an interrupt that arrived during a work item
 * is served before the next one.
 *
 * Timers are applications' as well as the kernel's, and one that re-arms
 * itself at once is always due: at most KEVENTS_TIMER_BURST timers run
 * in a row while a work item waits, then the oldest work item runs (the
 * scheduler's worker cannot be starved by a timer loop; issue 15 item 8).
 * One: an application that cuts its CPU work into timer steps (the tiled
 * game's pixel check, 4 rows a step) delays the worker by one step, not
 * four (the desktop with the tiled game, one run of
 * scripts/bench-tiling-os.sh's "tile" row: cursor p99 698 -> 224 us,
 * compositor 370 -> 210 us, video 1.0 ms -> 310 us of virtual time).
 *
 * Pure C, no hardware: unit-tested on the host (tests/unit/test-kevents.c).
 */
#ifndef FW_KERNEL_KEVENTS_H
#define FW_KERNEL_KEVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kqueue.h"
#include "kernel/ktimer.h"

#define KEVENTS_NEVER   UINT64_MAX
#define KEVENTS_TIMER_BURST     1
/* The idle loop's own work is done at least this often, idle or not. */
#define KEVENTS_IDLE_WORK_NS    (100 * 1000ull)

struct kevents {
    struct kqueue dpc;
    struct kqueue work;
    struct ktimer_list timers;
    /* counters */
    uint64_t dpcs, timers_fired, works, idles;
    unsigned timer_run;     /* timers run in a row since the last work
                               item or idle */
    uint64_t timer_yields;  /* work items run ahead of a due timer */
    uint64_t idle_work_at;  /* the idle loop's work last done (or the
                               loop last idle), ns */
    uint64_t busy_idle_works;   /* ... done while the loop was busy */
};

enum kevents_step {
    KEVENTS_RAN_DPC,
    KEVENTS_RAN_TIMER,
    KEVENTS_RAN_WORK,
    KEVENTS_IDLE,       /* nothing to do before *wake (KEVENTS_NEVER) */
};

void kevents_init(struct kevents *ev);

/*
 * Runs the one thing that should run next at time now and says what it
 * was; or, when nothing is ready, returns KEVENTS_IDLE with *wake the due
 * time of the earliest timer (KEVENTS_NEVER if none): the caller sleeps
 * until then or the next interrupt.
 */
enum kevents_step kevents_step(struct kevents *ev, uint64_t now,
                               uint64_t *wake);

/*
 * The work the loop does when it is about to halt (the kernel's
 * kernel_before_idle: in hardware mode, completion interrupts turned on
 * for a CPU waiter and the queues' progress polled) must not wait for an
 * idle that a busy loop never reaches (an application's timer that
 * re-arms itself at once). True when the loop has not idled nor done it
 * for KEVENTS_IDLE_WORK_NS: the caller does it now; kevents counts it.
 */
bool kevents_idle_work_due(struct kevents *ev, uint64_t now);

#endif /* FW_KERNEL_KEVENTS_H */
