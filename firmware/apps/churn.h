/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * churn: a launcher that starts short-lived processes and kills them
 * (kapi_process_exit), over and over, in four ways, one after the other:
 *
 *   NORMAL     FILL its allocation, signal its sync object on the GPU,
 *              wait for the value on the CPU, read the pattern back
 *              (checked), then exit: nothing of it in flight;
 *   RENDER     a buffer of WORK then FILL, killed one period later:
 *              mid-render (queued or running; the kernel cancels or
 *              preempts it);
 *   PAGING     FILL a large allocation that must be made resident
 *              (the launcher's scenario keeps VRAM oversubscribed),
 *              killed one period later: mid-paging;
 *   SHARING    shares an allocation and a sync object with the launcher's
 *              own process, FILLs and signals, and is killed at once or
 *              (every other time) once the launcher's wait for its
 *              signal is over: the launcher waits for the value
 *              (DDI_OK, or DDI_ELOST: the creator abandoned it), locks
 *              the allocation and finds the pattern or zeros (or both,
 *              a FILL cut by the kill), never anything else, then
 *              closes its handles.
 *
 * Identities across lives (issue 26): the launcher holds a shared
 * allocation of its own (the bait) and grants it, read-only, to every
 * life once the life has tried to open it. A life must never open it
 * first: that would be an earlier life's grant passed on to a process
 * the kernel took for it (a reused process id; grants must die with the
 * process they name). Over more lives than 8-bit ids, that is checked
 * 1000 times by default.
 *
 * A new life starts every period_ns while fewer than CHURN_SLOTS live
 * (and the kernel has a process record free). Checked: every life ran
 * to its end, every read was right, no call failed unexpectedly, no life
 * inherited an earlier one's grant.
 */
#ifndef FW_APPS_CHURN_H
#define FW_APPS_CHURN_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/app.h"

#define CHURN_SLOTS     6
#define CHURN_MODES     4

struct churn_config {
    uint64_t lives;             /* processes to create and kill */
    uint64_t period_ns;         /* between ticks */
    uint64_t big_bytes;         /* the PAGING mode's allocation */
    uint64_t work_ns;           /* the RENDER mode's WORK */
    unsigned modes;             /* bit m: lives of mode m (NORMAL 0,
                                   RENDER 1, PAGING 2, SHARING 3), in
                                   turn; all four by default */
};

struct churn;

struct churn_life {
    struct churn *owner;
    bool used;
    unsigned mode;
    unsigned stage;             /* ticks since it started */
    bool exited;
    bool peer_busy;             /* SHARING: the launcher still reads */
    struct kproc *p;
    uint32_t hdev, hctx, halloc, hsync;
    uint32_t peer_alloc, peer_sync;   /* the launcher's handles */
    uint32_t pattern;
    uint64_t size;
    uint32_t cmd[64];
};

struct churn {
    struct app app;             /* first: the launcher's process */
    struct churn_config cfg;
    struct ktimer tick;
    struct churn_life life[CHURN_SLOTS];
    uint64_t started, finished;
    uint64_t per_mode[CHURN_MODES];
    uint64_t create_waits;      /* ticks a process record was not free */
    uint64_t reads_ok, reads_bad, peer_lost, peer_zero, peer_partial;
    uint64_t bad_mode[CHURN_MODES];
    uint32_t bait, bait_name;   /* the launcher's, granted to each life */
    uint64_t bait_tries, stale_opens, bait_grant_refusals;
};

void churn_config_default(struct churn_config *c);
int churn_init(struct churn *c, struct kernel *k, const char *name,
               const struct churn_config *cfg);

static inline struct app *churn_app(struct churn *c)
{
    return &c->app;
}

#endif /* FW_APPS_CHURN_H */
