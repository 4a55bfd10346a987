/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A workload client (docs/workloads.rst): one process that runs cycles
 * of GPU jobs as a workload file describes them, the copro OS's side of
 * guest-tools/tools/copro-workload on Linux. A cycle is jobs_per_cycle
 * DMA buffers of TIMESTAMP(start), the job (WORK, FILL or COPY),
 * TIMESTAMP(end), then a GPU signal of the client's sync object (the
 * cycle number) and a CPU wait for it.
 *
 *   sync:    the next cycle begins sleep_ns after the last one completed
 *   async:   the next cycle begins sleep_ns after the last one was
 *            submitted, with at most WLCLIENT_SLOTS - 1 cycles in flight
 *            (a cycle waits for the oldest to complete), as on Linux
 *   present: cycles are released at each vsync of display source 0
 *            instead (a release while the previous cycle, or for async
 *            WLCLIENT_SLOTS - 1 of them, is still in flight is dropped
 *            and counted as a miss); with a deadline, a cycle whose last
 *            job ends after release + deadline is a miss. Nothing is
 *            flipped: the release and the deadline are what is measured.
 *
 * Cycles begin from start_ns to stop_ns after the app's start, at most
 * `cycles` of them (0: as many as fit). Every time is the GPU clock
 * (kapi_now and the TIMESTAMP packets): deterministic under -icount.
 * A job's submit-to-start latency is its start TIMESTAMP minus the GPU
 * time read just before its render; a cycle's time is from its start to
 * the next cycle's; the elapsed time from the first cycle's earliest
 * start to the end of the last (when the next could begin, or the stop).
 */
#ifndef FW_APPS_WLCLIENT_H
#define FW_APPS_WLCLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/app.h"
#include "kernel/ktimer.h"
#include "umd/umd.h"

#define WLCLIENT_SLOTS      4       /* cycles whose timestamps are kept */
#define WLCLIENT_MAX_JPC    64
#define WLCLIENT_SAMPLES    2048    /* latency and cycle-time samples */
/* allocations a job touches: a DMA buffer's list holds DDI_MAX_ALLOC_LIST,
 * of which the records and the job's own take three */
#define WLCLIENT_MAX_WS     28

enum wlclient_job { WLCLIENT_WORK, WLCLIENT_FILL, WLCLIENT_COPY };

struct wlclient_config {
    char name[17];
    enum vidsch_priority prio;
    unsigned jobs_per_cycle;
    enum wlclient_job kind;
    uint64_t value;             /* WORK ns, or FILL/COPY bytes */
    uint64_t sleep_ns;
    bool async;
    bool present;
    uint64_t deadline_ns;       /* present only; 0: none */
    uint64_t start_ns, stop_ns; /* after the app's start */
    uint64_t cycles;            /* 0: as many as fit */
    unsigned ws_allocs;         /* working set: allocations each job
                                   touches (VRAM only), 0: none */
    uint64_t ws_bytes;          /* ... of this size each */
    int depends_on;             /* another client's index, -1: none */
};

/* Parses one client as tools/copro-workload encodes it on the command
 * line: NAME:PRIO:JPC:KIND VALUE:SLEEP_US:SUBMIT:PRESENT:START_MS:
 * STOP_MS:CYCLES:WS_ALLOCS:WS_BYTES:DEP with PRIO l|n|h, KIND w|f|c,
 * SUBMIT s|a, PRESENT - (no) or the deadline in us (0: none), DEP - or
 * the index of the client it depends on. False on anything else. */
bool wlclient_parse(const char *s, struct wlclient_config *c);

struct wlclient {
    struct app app;             /* first */
    struct wlclient_config cfg;
    struct umd_cmdbuf cb;
    uint32_t cmd[48 + 8 * WLCLIENT_MAX_WS];
    uint32_t hrec, hsync, hsrc, hdst;
    uint32_t hws[WLCLIENT_MAX_WS];  /* the working set */
    /* depends_on: each cycle's first job waits on the GPU for the value
     * the other client last submitted (its sync object, opened through a
     * grant); dep is how that value reaches this process, as a counter
     * in shared memory would */
    const struct wlclient *dep;
    uint32_t hdep;
    bool dep_waited;            /* the cycle being submitted waited */
    volatile uint64_t *rec;     /* SLOTS x JPC x {start, end} */
    struct ktimer timer;

    uint64_t begin, end;        /* GPU time: cycles begin in [begin, end) */
    uint64_t begun;             /* cycles begun */
    uint64_t done;              /* cycles completed, in order */
    unsigned job;               /* the next job of the cycle being
                                   submitted */
    bool submitting;            /* a cycle is partly submitted */
    bool throttled;             /* a kapi_wait_throttle is pending */
    bool want_cycle;            /* async: a cycle waits for a slot */
    bool finished;              /* no more cycles will begin */
    uint64_t last_cstart;       /* the last cycle's start */
    uint64_t release[WLCLIENT_SLOTS];
    uint64_t submit[WLCLIENT_SLOTS][WLCLIENT_MAX_JPC];
    uint64_t jobs, misses, dropped;
    uint64_t last_end;          /* the last cycle ended, as the client sees
                                   it: the next could begin (sync: its
                                   completion and sleep; async: its
                                   submission and sleep), or the stop */

    unsigned nlat, ncyc;
    uint64_t lat[WLCLIENT_SAMPLES];
    uint64_t cyc[WLCLIENT_SAMPLES];
};

int wlclient_init(struct wlclient *w, struct kernel *k,
                  const struct wlclient_config *cfg);

/* Makes w's cycles depend on other's (w->cfg.depends_on): other shares
 * its sync object and grants w's process read access, w opens it. The
 * launcher's part, before either starts. DDI_OK or the failing call's
 * code (recorded on w). */
int wlclient_depend(struct wlclient *w, struct wlclient *other);

static inline struct app *wlclient_app(struct wlclient *w)
{
    return &w->app;
}

/* Once drained: the client's metrics as one JSON object (the Linux
 * runner's schema plus preemptions and deadline misses) on one
 * "WORKLOAD {...}" line, then every job's latency, sorted, on one
 * "WORKLOAD-SAMPLES {...}" line (the first WLCLIENT_SAMPLES jobs'). */
void wlclient_print_json(struct wlclient *w);

#endif /* FW_APPS_WLCLIENT_H */
