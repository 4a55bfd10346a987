/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spawner: a hostile NORMAL application (issue 26 item 6) that, at every
 * vsync, creates a fresh context and submits one long buffer on it
 * (buffer_ns of WORK, 1.9 s by default: just under the watchdog's 2 s).
 * Each buffer is its context's only one: elected while another runs, it
 * goes on the ring behind it, where round robin used to overlook it, and
 * a NORMAL game beside it got 2 frames in 4 s. It stops creating when the
 * kernel refuses a context (its quota) and destroys them all at stop.
 */
#ifndef FW_APPS_SPAWNER_H
#define FW_APPS_SPAWNER_H

#include "apps/app.h"
#include "umd/umd.h"

#define SPAWNER_MAX_CTX     64
#define SPAWNER_PACKET_NS   (100 * 1000000ull)
#define SPAWNER_CMD_WORDS   256

struct spawner {
    struct app app;         /* first */
    uint64_t buffer_ns, period_ns;
    struct ktimer timer;
    unsigned nctx;
    uint32_t hctx[SPAWNER_MAX_CTX];
    unsigned refused;       /* contexts the kernel refused (quota) */
    int last_refusal;
    uint32_t cmd[SPAWNER_CMD_WORDS];
    struct umd_cmdbuf cb;
};

int spawner_init(struct spawner *sp, struct kernel *k, const char *name,
                 uint64_t buffer_ns);

static inline struct app *spawner_app(struct spawner *sp)
{
    return &sp->app;
}

#endif /* FW_APPS_SPAWNER_H */
