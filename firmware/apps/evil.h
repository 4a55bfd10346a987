/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evil: a hostile application. Every few milliseconds it makes one of a
 * list of malformed or hostile calls (bad opcodes, opcodes reserved to
 * the kernel or to another engine, out-of-bounds accesses, addresses of
 * its own, forged patch locations, handles of another process, stale
 * handles, huge sizes; presents, vsync waits and pointers with other
 * processes' objects, a primary too small; a lock of, and a use after
 * freeing, an allocation its own queued buffer writes) and records
 * whether the
 * kernel refused it with
 * the code the API documents. When stopped it submits one well-formed
 * buffer, which must still run: refusals cost it nothing but the call.
 */
#ifndef FW_APPS_EVIL_H
#define FW_APPS_EVIL_H

#include <stdint.h>

#include "apps/app.h"
#include "apps/attacks.h"
#include "apps/winapp.h"
#include "kernel/ktimer.h"
#include "umd/umd.h"

#define EVIL_CMD_BYTES      1024

struct evil {
    struct app app;         /* first */
    const struct winapp *victim;    /* whose handles it tries to use */
    uint32_t hbuf;          /* its own 4 KiB allocation */
    uint32_t hcopyctx;      /* a context on the copy engine */
    uint32_t hsync;
    struct ktimer timer;
    uint64_t period_ns;
    struct attacks cases;
    bool final_done;
    uint32_t cmd[EVIL_CMD_BYTES / 4];
    struct umd_cmdbuf cb;
};

/* victim: an application whose handle values it steals (they are only
 * numbers to it: they name nothing in its own process). */
int evil_init(struct evil *e, struct kernel *k, const char *name,
              const struct winapp *victim);

static inline struct app *evil_app(struct evil *e)
{
    return &e->app;
}

#endif /* FW_APPS_EVIL_H */
