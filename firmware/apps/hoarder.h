/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hoarder: a hostile application that fills the kernel's tables with
 * legal calls before anybody else starts (issue 26 items 7, 8): it waits
 * for vsync until refused and waits again from every callback, so it
 * holds every slot it got for as long as it runs; it shares allocations
 * until refused; it grants one name to made-up process ids until
 * refused. Each must end with DDI_EQUOTA at half the table (its quota,
 * kernel/kquota.h), and the applications started after it must work as
 * if it were not there (the scenario checks them by content).
 *
 * In GPU-VA mode (hoarder_init_gpuva; items 9-11) it makes parameter
 * buffers, then GPU-VA allocations, then makes them resident one by one,
 * each until refused, step by step from a timer (a call the pager's
 * paging buffers in flight answer DDI_EBUSY is retried at the next
 * step); the scenario runs the kernel until it is done
 * (hoarder_hoarded) before it creates anybody else.
 */
#ifndef FW_APPS_HOARDER_H
#define FW_APPS_HOARDER_H

#include <stdint.h>

#include "apps/app.h"
#include "kernel/ktimer.h"

#define HOARDER_MAX     64      /* most of any table it tries to take */

struct hoard {
    const char *what;
    unsigned got;           /* entries it holds */
    unsigned want;          /* what its quota should let it have */
    int last;               /* the code that stopped it */
};

struct hoarder {
    struct app app;         /* first */
    struct hoard vsync, names, grants;
    struct hoard pbs, gv_allocs, gv_resident;   /* GPU-VA mode */
    bool gpuva;
    unsigned step;          /* GPU-VA mode: which hoard is going on */
    uint32_t hgv;           /* its GPU-VA device */
    struct ktimer timer;
    unsigned vsync_held;    /* vsync waits pending now */
    uint64_t rearm_refused; /* a re-wait from a callback refused */
    int rearm_status;
    uint32_t halloc[HOARDER_MAX];
};

/* Creates the process and fills the tables at once (before the others
 * are created). */
int hoarder_init(struct hoarder *h, struct kernel *k, const char *name);

/* GPU-VA mode: the process, a GPU-VA device, and the hoarding started
 * (the kernel must run until hoarder_hoarded). */
int hoarder_init_gpuva(struct hoarder *h, struct kernel *k,
                       const char *name);
bool hoarder_hoarded(void *h);

static inline struct app *hoarder_app(struct hoarder *h)
{
    return &h->app;
}

#endif /* FW_APPS_HOARDER_H */
