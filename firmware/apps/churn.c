/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/churn.h"

#include <stddef.h>

#include "umd/umd.h"

_Static_assert(offsetof(struct churn, app) == 0, "app first");

enum { MODE_NORMAL, MODE_RENDER, MODE_PAGING, MODE_SHARING };

static const char *const mode_names[CHURN_MODES] = {
    "normal", "mid-render", "mid-paging", "sharing",
};

static void fail(struct churn *c, const char *what, int st)
{
    app_fail(&c->app, what, st);
}

/*
 * The launcher's work is its lives: the end of the run stops the other
 * applications' new work, not the lives still to start (a run with heavy
 * paging or short periods takes longer than the scenario's estimate);
 * the scenario's drain limit bounds them.
 */
static bool all_done(const struct churn *c)
{
    return c->finished == c->started &&
           (c->started == c->cfg.lives || c->app.fail_what);
}

/* The life is over once its process exited and the launcher is done
 * with what it shared. */
static void maybe_done(struct churn_life *l)
{
    struct churn *c = l->owner;

    if (l->used && l->exited && !l->peer_busy) {
        l->used = false;
        c->finished++;
        c->app.completed++;
        if (c->app.stopping && all_done(c)) {
            c->app.drained = true;
        }
    }
}

static void kill(struct churn_life *l)
{
    int st = kapi_process_exit(l->p);

    if (st != DDI_OK) {
        fail(l->owner, "process_exit", st);
    }
    l->p = NULL;
    l->exited = true;
    maybe_done(l);
}

/* First and last word of the allocation as the CPU sees them. */
static bool read_pattern(volatile const uint32_t *w, uint64_t size,
                         uint32_t want)
{
    return w[0] == want && w[size / 4 - 1] == want;
}

/* ---- NORMAL: its own wait, its own read, then exit ---- */

static void normal_locked(void *arg, int st, volatile void *cpu)
{
    struct churn_life *l = arg;
    struct churn *c = l->owner;

    if (st != DDI_OK) {
        fail(c, "normal: lock", st);
    } else {
        if (read_pattern(cpu, l->size, l->pattern)) {
            c->reads_ok++;
        } else {
            c->reads_bad++;
            c->bad_mode[MODE_NORMAL]++;
        }
        kapi_unlock(l->p, l->halloc);
    }
    kill(l);
}

static void normal_done(void *arg, int status)
{
    struct churn_life *l = arg;
    int st = status;

    /* the GPU is done with it; vidmm may still be moving it (the
     * scenario keeps VRAM oversubscribed): a lock that waits */
    if (st == DDI_OK) {
        st = kapi_lock_wait(l->p, l->halloc, normal_locked, l);
    }
    if (st != DDI_OK) {
        fail(l->owner, "normal: wait", st);
        kill(l);
    }
}

/* ---- SHARING: the launcher's side ---- */

static void peer_close(struct churn_life *l)
{
    struct app *a = &l->owner->app;

    kapi_destroy_allocation(a->proc, l->peer_alloc);
    kapi_destroy_sync(a->proc, l->peer_sync);
    l->peer_busy = false;
    maybe_done(l);
}

static void peer_locked(void *arg, int status, volatile void *cpu)
{
    struct churn_life *l = arg;
    struct churn *c = l->owner;

    if (status != DDI_OK) {
        fail(c, "sharing: lock", status);
    } else {
        /* drawn (it ran before the kill) or never (cancelled): the
         * allocation was zeroed at creation */
        volatile const uint32_t *w = cpu;

        uint32_t first = w[0], last = w[l->size / 4 - 1];

        if (first == l->pattern && last == l->pattern) {
            c->reads_ok++;
        } else if (first == 0 && last == 0) {
            c->reads_ok++;
            c->peer_zero++;
        } else if ((first == l->pattern || first == 0) &&
                   (last == l->pattern || last == 0)) {
            /* cut in the middle of its FILL by the kill (mid-command
             * preemption): part drawn, the rest as it was */
            c->reads_ok++;
            c->peer_partial++;
        } else {
            c->reads_bad++;
            c->bad_mode[MODE_SHARING]++;
        }
        kapi_unlock(c->app.proc, l->peer_alloc);
    }
    peer_close(l);
}

static void peer_waited(void *arg, int status)
{
    struct churn_life *l = arg;
    struct churn *c = l->owner;
    int st;

    if (status == DDI_EABANDONED) {
        c->peer_lost++;         /* abandoned by its creator: fine */
    } else if (status != DDI_OK) {
        fail(c, "sharing: wait", status);
    }
    st = kapi_lock_wait(c->app.proc, l->peer_alloc, peer_locked, l);
    if (st != DDI_OK) {
        fail(c, "sharing: lock_wait", st);
        peer_close(l);
    }
    if (!l->exited) {
        kill(l);        /* it drew: killed while the launcher reads */
    }
}

/* ---- a life ---- */

/* Its process, device, context, an allocation of size and a sync
 * object; DDI_OK or the failing call's code. */
static int life_objects(struct churn_life *l, enum vidsch_priority prio)
{
    struct kapi_alloc_desc d = { .size = l->size, .cpu_visible = true,
                                 .zeroed = true };
    int st = kapi_create_device(l->p, &l->hdev);

    if (st == DDI_OK) {
        st = kapi_create_context(l->p, l->hdev, COPRO_ENGINE_RENDER, prio,
                                 &l->hctx);
    }
    if (st == DDI_OK) {
        st = kapi_create_allocation(l->p, l->hdev, &d, &l->halloc);
    }
    if (st == DDI_OK) {
        st = kapi_create_sync(l->p, l->hdev, 0, &l->hsync);
    }
    return st;
}

/* FILL (after WORK of work_ns, if any), then a GPU signal of 1. */
static int life_render(struct churn_life *l, uint64_t work_ns)
{
    struct umd_cmdbuf b;
    struct kapi_render_args r;
    int st;

    umd_init(&b, l->cmd, sizeof(l->cmd));
    if (work_ns) {
        umd_work(&b, work_ns);
    }
    umd_fill(&b, l->halloc, 0, l->size, l->pattern);
    if (!umd_ok(&b)) {
        return DDI_EINVAL;
    }
    r = (struct kapi_render_args){
        .cmd = umd_words(&b), .cmd_bytes = umd_bytes(&b),
        .alloc = b.alloc, .nalloc = b.nalloc, .patch = b.patch,
        .npatch = b.npatch,
    };
    st = kapi_render(l->p, l->hctx, &r);
    if (st == DDI_OK) {
        st = kapi_signal_gpu(l->p, l->hctx, l->hsync, 1);
    }
    return st;
}

static int life_share(struct churn_life *l)
{
    struct app *a = &l->owner->app;
    uint32_t an, sn;
    int st = kapi_share_allocation(l->p, l->halloc, &an);

    if (st == DDI_OK) {
        st = kapi_share_sync(l->p, l->hsync, &sn);
    }
    /* the NT-handle model: granted to the owner's process (read and
     * write: it locks and signals them as before) */
    if (st == DDI_OK) {
        st = kapi_grant_allocation(l->p, l->halloc,
                                   kapi_process_id(a->proc),
                                   KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    }
    if (st == DDI_OK) {
        st = kapi_grant_sync(l->p, l->hsync, kapi_process_id(a->proc),
                             KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    }
    if (st == DDI_OK) {
        st = kapi_open_allocation(a->proc, a->hdev, an, &l->peer_alloc);
    }
    if (st == DDI_OK) {
        st = kapi_open_sync(a->proc, a->hdev, sn, &l->peer_sync);
        if (st != DDI_OK) {
            kapi_destroy_allocation(a->proc, l->peer_alloc);
        }
    }
    return st;
}

/* The life tries the launcher's bait before it was granted anything
 * (an earlier life's grant must not be its), then gets its own grant,
 * which dies with it. */
static void life_bait(struct churn *c, struct churn_life *l)
{
    uint32_t h;
    int st;

    if (!c->bait_name) {
        return;
    }
    c->bait_tries++;
    st = kapi_open_allocation(l->p, l->hdev, c->bait_name, &h);
    if (st == DDI_OK) {
        c->stale_opens++;
        kapi_destroy_allocation(l->p, h);
    }
    st = kapi_grant_allocation(c->app.proc, c->bait,
                               kapi_process_id(l->p), KAPI_ACCESS_READ);
    if (st != DDI_OK) {
        c->bait_grant_refusals++;
    }
}

static void life_start(struct churn *c, struct churn_life *l)
{
    static const enum vidsch_priority prio[CHURN_MODES] = {
        VIDSCH_PRIO_HIGH, VIDSCH_PRIO_IDLE, VIDSCH_PRIO_NORMAL,
        VIDSCH_PRIO_ABOVE_NORMAL,
    };
    unsigned mode = 0, n = 0, pick;
    struct kproc *p;

    /* the modes of cfg.modes in turn */
    for (unsigned m = 0; m < CHURN_MODES; m++) {
        n += (c->cfg.modes >> m) & 1;
    }
    pick = n ? (unsigned)(c->started % n) : 0;
    for (unsigned m = 0; m < CHURN_MODES; m++) {
        if (((c->cfg.modes >> m) & 1) && pick-- == 0) {
            mode = m;
            break;
        }
    }
    p = kapi_process_create(c->app.k, mode_names[mode]);
    int st;

    if (!p) {
        c->create_waits++;  /* records of killed ones not reaped yet */
        return;
    }
    *l = (struct churn_life){
        .owner = c, .used = true, .mode = mode, .p = p,
        .size = mode == MODE_PAGING ? c->cfg.big_bytes : 64u << 10,
        .pattern = 0x5a000000u | (uint32_t)(c->started & 0xffffff),
    };
    c->started++;
    c->app.submitted++;
    c->per_mode[mode]++;
    st = life_objects(l, prio[mode]);
    if (st == DDI_OK) {
        life_bait(c, l);
    }
    if (st == DDI_OK) {
        st = life_render(l, mode == MODE_RENDER ? c->cfg.work_ns : 0);
    }
    if (st == DDI_OK && mode == MODE_SHARING) {
        st = life_share(l);
        l->peer_busy = st == DDI_OK;
    }
    if (st == DDI_OK && mode == MODE_NORMAL) {
        st = kapi_wait_cpu(l->p, l->hsync, 1, normal_done, l);
    }
    if (st != DDI_OK) {
        fail(c, mode_names[mode], st);
        kill(l);
        return;
    }
    if (mode == MODE_SHARING) {
        /* the launcher waits on what the dead process shared */
        st = kapi_wait_cpu(c->app.proc, l->peer_sync, 1, peer_waited, l);
        if (st != DDI_OK) {
            fail(c, "sharing: wait_cpu", st);
            peer_close(l);
        }
        /* every other one at once (its buffer queued at most: never
         * drawn), the others once the launcher saw its signal (drawn,
         * and the process killed while the launcher holds its objects) */
        if (c->per_mode[MODE_SHARING] % 2) {
            kill(l);
        }
    }
}

static void tick(void *arg, uint64_t now)
{
    struct churn *c = arg;
    struct churn_life *free_slot = NULL;

    for (unsigned i = 0; i < CHURN_SLOTS; i++) {
        struct churn_life *l = &c->life[i];

        if (!l->used) {
            free_slot = free_slot ? free_slot : l;
            continue;
        }
        /* mid-render and mid-paging: killed one period in */
        if (!l->exited && ++l->stage == 1 &&
            (l->mode == MODE_RENDER || l->mode == MODE_PAGING)) {
            kill(l);
        }
    }
    if (!c->app.fail_what && c->started < c->cfg.lives) {
        if (free_slot) {
            life_start(c, free_slot);
        }
        kapi_timer_arm(c->app.proc, &c->tick, now + c->cfg.period_ns);
    } else if (c->finished < c->started) {
        kapi_timer_arm(c->app.proc, &c->tick, now + c->cfg.period_ns);
    }
}

/* ---- the app's life cycle ---- */

static void start(struct app *a)
{
    struct churn *c = (struct churn *)a;

    kapi_timer_arm(a->proc, &c->tick, kapi_now(a->proc) + c->cfg.period_ns);
}

static void stop(struct app *a)
{
    struct churn *c = (struct churn *)a;

    if (all_done(c)) {
        a->drained = true;
    }
}

static void check(struct app *a, struct report *r)
{
    struct churn *c = (struct churn *)a;
    /* only normal and sharing lives read what they drew: with neither
     * (modes= of mid-render and mid-paging lives alone) there is
     * nothing to read, and nothing wrong */
    bool reads = c->cfg.modes & (1u << MODE_NORMAL | 1u << MODE_SHARING);

    report(r, c->started == c->cfg.lives && c->finished == c->started,
           "%s: %lu of %lu processes created and killed (%lu normal, %lu "
           "mid-render, %lu mid-paging, %lu sharing; %lu ticks waited for "
           "a process record)", a->name, c->finished, c->cfg.lives,
           c->per_mode[MODE_NORMAL], c->per_mode[MODE_RENDER],
           c->per_mode[MODE_PAGING], c->per_mode[MODE_SHARING],
           c->create_waits);
    report(r, c->reads_bad == 0 && (c->reads_ok > 0 || !reads),
           "%s: %lu reads of what a life drew, %lu wrong (%lu of its own, "
           "%lu shared); %lu shared ones never drawn, %lu cut mid-FILL, %lu "
           "waits released by the creator's exit", a->name, c->reads_ok,
           c->reads_bad, c->bad_mode[MODE_NORMAL], c->bad_mode[MODE_SHARING],
           c->peer_zero, c->peer_partial, c->peer_lost);
    report(r, c->bait_tries == c->started && c->stale_opens == 0 &&
              c->bait_grant_refusals == 0,
           "%s: no life opened what the launcher granted an earlier one "
           "(%lu of %lu tries opened it; %lu grants refused)", a->name,
           c->stale_opens, c->bait_tries, c->bait_grant_refusals);
}

static const struct app_ops churn_ops = {
    .start = start, .stop = stop, .check = check,
};

void churn_config_default(struct churn_config *c)
{
    *c = (struct churn_config){
        .lives = 1000, .period_ns = 100000, .big_bytes = 1u << 20,
        .work_ns = 300000, .modes = (1u << CHURN_MODES) - 1,
    };
}

int churn_init(struct churn *c, struct kernel *k, const char *name,
               const struct churn_config *cfg)
{
    int st;

    if (cfg->modes == 0 || cfg->modes >> CHURN_MODES) {
        return DDI_EINVAL;
    }
    c->cfg = *cfg;
    c->started = c->finished = 0;
    c->create_waits = c->reads_ok = c->reads_bad = 0;
    c->peer_lost = c->peer_zero = c->peer_partial = 0;
    for (unsigned i = 0; i < CHURN_MODES; i++) {
        c->per_mode[i] = c->bad_mode[i] = 0;
    }
    for (unsigned i = 0; i < CHURN_SLOTS; i++) {
        c->life[i].used = false;
    }
    c->bait = c->bait_name = 0;
    c->bait_tries = c->stale_opens = c->bait_grant_refusals = 0;
    kapi_timer_init(&c->tick, tick, c);
    /* the launcher: a process with a device (what lives share with) */
    st = app_init(&c->app, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_NORMAL,
                  &churn_ops);
    if (st == DDI_OK) {
        c->bait = app_alloc(&c->app, 4096, true);
        st = c->bait ? kapi_share_allocation(c->app.proc, c->bait,
                                             &c->bait_name)
                     : c->app.fail_status;
    }
    return st;
}
