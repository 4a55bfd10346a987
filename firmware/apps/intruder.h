/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * intruder and partner: hostile applications that use only legal calls
 * (issue 15, docs/os.rst "Security"), beside the desktop of the
 * hostile-multi scenario.
 *
 * partner is a well-behaved process that shares an allocation and a sync
 * object with the intruder, granted read and write, as a producer shares
 * with a consumer. It holds a CPU lock on the allocation for its whole
 * run and writes through that pointer; it draws a surface of its own
 * (SET_TARGET + RECT after its FILLs, as the umd builds it) every
 * millisecond; it watches the shared sync object's value. Its check: the
 * allocation holds what it wrote through its pointer, the surface holds
 * its colour, the fence never went back, and its buffers completed while
 * the intruder's timer spun.
 *
 * intruder, every few milliseconds, tries one attack against another
 * process and records the code it got: a RECT after a split point
 * without binding again (DDI_EINVAL); unlocking the partner's lock
 * through its own handle (DDI_EINVAL); opening the game's window and the
 * compositor's sync object by their exact names, never granted to it
 * (DDI_EHANDLE); passing the partner's grant on (DDI_EACCESS); moving
 * the shared fence back with a GPU signal, 10 then 3 (DDI_EINVAL);
 * owning the display, presenting a primary behind a fence that never
 * comes, moving the pointer (DDI_EACCESS); a REALTIME context
 * (DDI_EACCESS). And once, a timer that re-arms itself with no delay
 * for 5 ms: the kernel's work (the scheduler's worker) still runs.
 *
 * watcher is an innocent process that opened (by grant) a sync object of
 * a process TDR will blame, waits for it on the CPU and holds its own
 * frames behind a GPU wait on it. Blame must follow guilt: its CPU wait
 * ends with DDI_EABANDONED, its held frames run, its device is never
 * removed, and its surface holds its last frame.
 *
 * snoop, in GPU-VA mode, copies from the GPU address where another
 * process's command buffers are (the OS's VRAM, at identity) into an
 * allocation of its own: its space does not map them, so its context
 * faults and its own device is removed; not a byte comes through.
 *
 * scribble, in GPU-VA mode, is granted another process's surface
 * read-only and maps a view of it (kapi_map_gpu_va): it copies the
 * surface through the view into an allocation of its own (reading is
 * what it was granted, and must work), then fills the view: the view is
 * read-only, so its context faults and its own device is removed; the
 * surface keeps every byte (the scenario checks it).
 */
#ifndef FW_APPS_INTRUDER_H
#define FW_APPS_INTRUDER_H

#include <stdint.h>

#include "apps/app.h"
#include "apps/attacks.h"
#include "apps/compositor.h"
#include "apps/winapp.h"
#include "kernel/ktimer.h"
#include "umd/umd.h"

#define INTRUDER_CMD_BYTES  1024
#define PARTNER_WORDS       1024    /* its locked allocation, 4 KiB */
#define PARTNER_SURF_W      64
#define PARTNER_SURF_H      16

struct partner {
    struct app app;         /* first */
    uint32_t hshared;       /* shared with the intruder, locked for life */
    uint32_t hsync;         /* shared with the intruder */
    uint32_t hsurf;         /* its own render target */
    uint32_t hdone;         /* its buffers' completion fence */
    uint32_t shared_name, sync_name;
    volatile uint32_t *cpu; /* its lock's pointer */
    bool locked;
    uint64_t ticks;
    uint64_t fence_seen, fence_backwards;
    /* a CPU wait for its last buffer, one at a time: the kernel must
     * deliver it while the intruder's timer spins */
    bool waiting;
    uint64_t waits_done;
    struct ktimer timer;
    uint32_t cmd[INTRUDER_CMD_BYTES / 4];
    struct umd_cmdbuf cb;
};

struct intruder {
    struct app app;         /* first */
    struct partner *partner;
    const struct winapp *game;
    const struct compositor *comp;
    uint32_t hbuf, hprimary, hsync;
    uint32_t hshared, hpsync;   /* the partner's, opened by grant */
    uint64_t fence_next;
    struct ktimer timer, spinner;
    uint64_t period_ns;
    struct attacks cases;
    /* The timer attacks: a timer that re-arms itself at once, for
     * SPIN_NS each: spin 0 asks for now (issue 15 item 8), spin 1 for a
     * time long past, 0 (issue 26 item 5). Per spin: its firings, the
     * partner's completions, and what the watched counter moved by */
    unsigned spin;
    uint64_t spin_from, spin_until;
    uint64_t spins[2], partner_done_at_spin, partner_done_in_spin[2];
    uint64_t partner_waits_at_spin, partner_waits_in_spin[2];
    const uint64_t *watch;  /* a kernel counter the scenario watches */
    uint64_t watch_at_spin, watch_in_spin[2];
    uint32_t cmd[INTRUDER_CMD_BYTES / 4];
    struct umd_cmdbuf cb;
};

struct watcher {
    struct app app;         /* first */
    uint32_t hwatch;        /* the creator's sync object, opened */
    uint32_t hsurf, hdone;
    int watch_status;       /* what its CPU wait ended with */
    bool watch_told;
    unsigned lost_calls;    /* its own device removed: never, one hopes */
    unsigned max_frames;
    struct ktimer timer;
    uint32_t cmd[INTRUDER_CMD_BYTES / 4];
    struct umd_cmdbuf cb;
};

#define SNOOP_BYTES         4096u

struct snoop {
    struct app app;         /* first */
    uint64_t target;        /* the GPU address it tries to read */
    uint32_t hbuf, hdone;
    uint64_t va;
    int status;             /* what its wait for the copy ended with */
    bool told;
    uint32_t cmd[INTRUDER_CMD_BYTES / 4];
    struct umd_cmdbuf cb;
};

struct scribble {
    struct app app;         /* first */
    uint32_t pattern;       /* what the surface holds */
    uint32_t hsurface, hbuf, hdone;
    uint64_t view, va;
    int status;             /* what its wait for the fill ended with */
    bool told;
    uint32_t cmd[INTRUDER_CMD_BYTES / 4];
    struct umd_cmdbuf cb;
};

int partner_init(struct partner *m, struct kernel *k, const char *name);
/* A GPU-VA process that will read target through its own space. */
int snoop_init(struct snoop *n, struct kernel *k, const char *name,
               uint64_t target);
/* A GPU-VA process granted owner's hsurface (SNOOP_BYTES, holding
 * pattern in every word) read-only. */
int scribble_init(struct scribble *n, struct kernel *k, const char *name,
                  struct kproc *owner, uint32_t hsurface, uint32_t pattern);
int watcher_init(struct watcher *w, struct kernel *k, const char *name,
                 unsigned max_frames);
/* creator shares hsync with the watcher (read: wait only), which opens
 * it. */
int watcher_watch(struct watcher *w, struct app *creator, uint32_t hsync);
/* Opens what partner grants it; game and comp are whose exact shared
 * names it tries without a grant. */
int intruder_init(struct intruder *e, struct kernel *k, const char *name,
                  struct partner *partner, const struct winapp *game,
                  const struct compositor *comp);
/* A kernel counter the timer attacks' check must see move during each
 * spin (the scenario's: vidsch's timer firings). */
void intruder_watch(struct intruder *e, const uint64_t *counter);

static inline struct app *partner_app(struct partner *m)
{
    return &m->app;
}

static inline struct app *snoop_app(struct snoop *n)
{
    return &n->app;
}

static inline struct app *scribble_app(struct scribble *n)
{
    return &n->app;
}

static inline struct app *watcher_app(struct watcher *w)
{
    return &w->app;
}

static inline struct app *intruder_app(struct intruder *e)
{
    return &e->app;
}

#endif /* FW_APPS_INTRUDER_H */
