/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostile-multi: the desktop's compositor, cursor and game, a partner
 * process that shares an allocation and a sync object with an intruder,
 * and the intruder, which uses only legal calls against the others
 * (apps/intruder.h; issue 15, docs/os.rst "Security"). Every attack must
 * be refused with its code, and every victim's output must be right by
 * content: the compositor's screen and pointer, the game's window as
 * composed, the partner's locked allocation, surface and fence, and the
 * partner's buffers must complete while the intruder's timer spins.
 *
 * blame=1 runs another desktop-less run instead (needs -device
 * copro,preempt=command, so that a hang is a hang): a guilty process's
 * buffer hangs the engine, and a watcher that opened its sync object
 * waits on it (CPU and GPU). TDR resets the guilty one; blame must
 * follow guilt: the watcher's wait ends with DDI_EABANDONED, its frames
 * run, its device stays healthy.
 *
 * gpuva=1 runs another instead, in GPU-VA mode: a process renders by VA
 * (resapp) while snoop copies from the GPU address of its command
 * buffers: snoop's space does not map them, so snoop faults and loses
 * its own device; the other's output stays right. Beside them, scribble
 * is granted a process's surface read-only and maps a GPU-VA view of it
 * (kapi_map_gpu_va): it reads the surface through the view, then fills
 * the view, faults and loses its own device; the surface keeps every
 * byte.
 *
 * hoard=1 adds a hoarder (apps/hoarder.h) started before everybody: it
 * fills the vsync-wait, shared-name and grant tables as far as its quotas
 * let it (issue 26 items 7, 8: it took all of them, and the compositor
 * started later could not wait for vsync or share); the desktop beside it
 * must be right by content all the same. With gpuva=1 the hoarder
 * (started first, done before anybody else is created) fills the
 * parameter-buffer and GPU-VA allocation tables and references as much
 * GPU-VA VRAM as its quotas let it (items 9-11): a process started after
 * it makes a parameter buffer, and the victim, snoop and scribble are
 * made and run as without it.
 *
 * fresh=1 runs another instead: a NORMAL game beside a spawner (apps/
 * spawner.h), which at every vsync creates a context and submits one
 * 1.9 s buffer on it (issue 26 item 6). Each such buffer goes on the ring
 * behind the running one; round robin must still give the game its
 * turns: it must draw at least a frame every 100 ms (it drew 2 in 4 s).
 *
 * Command line: irq=..., duration_ms= (300), blame= (0), gpuva= (0),
 * hoard= (0), fresh= (0),
 * the scheduler options (blame=1: the watchdog at 50 ms + 10 ms, as in
 * tdr).
 */
#include <stdint.h>

#include "apps/compositor.h"
#include "apps/hoarder.h"
#include "apps/hog.h"
#include "apps/intruder.h"
#include "apps/resapp.h"
#include "apps/spawner.h"
#include "apps/winapp.h"
#include "kernel/kloop.h"
#include "lib/console.h"
#include "scenarios/os_common.h"

static struct os_scenario s;
static struct compositor comp;
static struct winapp cursor, game;
static struct partner partner;
static struct intruder intruder;
static struct hog guilty;
static struct watcher watcher;
static uint32_t guilty_cmd[256];
static struct resapp victim;
static struct snoop snoop;
static struct scribble scribble;
static struct hoarder hoarder;
static struct spawner spawner;

#define SCRIBBLE_PATTERN    0x00a5c3e1u

/* A process with a surface holding pattern, shared with nobody yet. */
static int make_owner(struct kproc **owner, uint32_t *hsurface)
{
    struct kapi_alloc_desc d = { .size = SNOOP_BYTES, .cpu_visible = true };
    volatile void *cpu = NULL;
    uint32_t hdev;
    int st;

    *owner = kapi_process_create(&s.boot.k, "owner");
    st = *owner ? kapi_create_device(*owner, &hdev) : DDI_ENOMEM;
    if (st == DDI_OK) {
        st = kapi_create_allocation(*owner, hdev, &d, hsurface);
    }
    if (st == DDI_OK) {
        st = kapi_lock(*owner, *hsurface, KAPI_LOCK_DONOTWAIT, &cpu);
    }
    if (st == DDI_OK) {
        for (unsigned i = 0; i < SNOOP_BYTES / 4; i++) {
            ((volatile uint32_t *)cpu)[i] = SCRIBBLE_PATTERN;
        }
        kapi_unlock(*owner, *hsurface);
    }
    return st;
}

/* Words of the owner's surface that are no longer the pattern. */
static uint64_t owner_damage(struct kproc *owner, uint32_t hsurface,
                             int *st)
{
    volatile void *cpu = NULL;
    uint64_t bad = 0;

    *st = kapi_lock(owner, hsurface, KAPI_LOCK_IGNORESYNC, &cpu);
    for (unsigned i = 0; *st == DDI_OK && i < SNOOP_BYTES / 4; i++) {
        bad += ((volatile uint32_t *)cpu)[i] != SCRIBBLE_PATTERN;
    }
    if (*st == DDI_OK) {
        kapi_unlock(owner, hsurface);
    }
    return bad;
}

/* A process started after the hoarder makes a parameter buffer (issue
 * 26 item 9: the hoarder took every record). */
static void late_scene_pb(struct kernel *k)
{
    struct kproc *p = kapi_process_create(k, "late");
    uint32_t hdev = 0, hpb = 0;
    uint64_t va = 0;
    int st = p ? kapi_create_device_gpuva(p, &hdev) : DDI_ENOMEM;

    if (st == DDI_OK) {
        struct kapi_scene_pb_desc pd = {
            .tiles = kapi_scene_tiles(p, 64, 64), .size = 1024,
            .reserved = 4096, .step = 4096, .budget = 4096,
        };

        st = kapi_create_scene_pb(p, hdev, &pd, &hpb, &va);
    }
    report(&s.r, st == DDI_OK, "a process started after the hoarder makes "
           "a parameter buffer (%s)", ddi_status_name(st));
    if (p) {
        kapi_process_exit(p);
    }
}

/* GPU-VA mode: snoop reads where the victim's command buffers are. */
static void run_gpuva(uint64_t duration_ms, bool hoard)
{
    struct kernel *k = &s.boot.k;
    struct resapp_config c;
    const struct kgpuva_proc *gp;
    struct kproc *owner = NULL;
    uint32_t hsurface = 0;
    uint64_t bad;
    int st, lst;

    if (hoard) {
        /* first, and done before anybody else is created */
        st = hoarder_init_gpuva(&hoarder, k, "hoarder");
        if (st == DDI_OK) {
            kernel_run(k, hoarder_hoarded, &hoarder);
        }
        report(&s.r, st == DDI_OK, "a GPU-VA hoarder, started first, "
               "hoarded (%s)", ddi_status_name(st));
        os_add_app(&s, hoarder_app(&hoarder));
        late_scene_pb(k);
    }
    resapp_config_default(&c);
    c.nallocs = 2;
    c.work_ns = 1 * MS;
    st = resapp_init(&victim, k, "victim", &c);
    gp = kgpuva_proc_of(k, victim.app.proc);
    if (st == DDI_OK && gp) {
        st = snoop_init(&snoop, k, "snoop", gp->dma_base);
    }
    if (st == DDI_OK) {
        st = make_owner(&owner, &hsurface);
    }
    if (st == DDI_OK) {
        st = scribble_init(&scribble, k, "scribble", owner, hsurface,
                           SCRIBBLE_PATTERN);
    }
    if (!report(&s.r, st == DDI_OK && gp, "a GPU-VA victim, snoop, and "
                "scribble granted a surface read-only (%s)",
                ddi_status_name(st))) {
        return;
    }
    os_add_app(&s, resapp_app(&victim));
    os_add_app(&s, snoop_app(&snoop));
    os_add_app(&s, scribble_app(&scribble));
    os_run(&s, duration_ms * MS, 5000 * MS);
    bad = owner_damage(owner, hsurface, &lst);
    report(&s.r, lst == DDI_OK && bad == 0, "owner: its surface, which "
           "scribble filled through a read-only view, keeps every byte (%lu "
           "words changed; lock %s)", bad, ddi_status_name(lst));
}

/* A game beside a process that spawns a context with a long buffer at
 * every vsync. */
static void run_fresh(uint64_t duration_ms)
{
    struct kernel *k = &s.boot.k;
    struct winapp_config wc;
    const struct app *g = winapp_app(&game);
    uint64_t want = duration_ms / 100;
    int st;

    game_config_default(&wc);
    wc.draw = WINAPP_DRAW_RECT;     /* nobody composes it */
    wc.buffers = 1;
    /* a frame of 1 ms at every vsync, one in flight: between frames the
     * game has nothing queued, and its next frame is elected onto the
     * ring behind a long buffer */
    wc.frames.period_ns = 16666667;
    wc.frames.depth = 1;
    wc.work_ns = 1 * MS;
    winapp_init(&game, k, "game", &wc);
    st = spawner_init(&spawner, k, "spawner", 1900 * MS);
    if (!report(&s.r, st == DDI_OK, "a NORMAL game and a spawner of "
                "contexts with 1.9 s buffers (%s)", ddi_status_name(st))) {
        return;
    }
    os_add_app(&s, winapp_app(&game));
    os_add_app(&s, spawner_app(&spawner));
    os_run(&s, duration_ms * MS, 1000 * MS);
    report(&s.r, g->completed >= want, "game: %lu frames in %lu ms beside "
           "%u fresh contexts' long buffers (at least %lu: a turn in every "
           "round of the level)", g->completed, duration_ms, spawner.nctx,
           want);
}

static void blame_defaults(struct vidsch_config *c)
{
    c->tdr_timeout_ns = 50 * MS;
    c->tdr_grace_ns = 10 * MS;
}

/* A guilty process's buffer hangs; a watcher waits on its fence. */
static void run_blame(uint64_t duration_ms)
{
    const struct hog_config hc = {
        .prio = VIDSCH_PRIO_NORMAL, .hog_ns = 10000 * MS,
        .work_packet_ns = 10000 * MS, .max_buffers = 1,
    };
    struct kernel *k = &s.boot.k;
    struct app *g;
    uint32_t hsync = 0;
    int st;

    hog_init(&guilty, k, "guilty", &hc, guilty_cmd, sizeof(guilty_cmd));
    watcher_init(&watcher, k, "watcher", 10);
    g = hog_app(&guilty);
    g->expect_lost = true;
    st = kapi_create_sync(g->proc, g->hdev, 0, &hsync);
    if (st == DDI_OK) {
        st = watcher_watch(&watcher, g, hsync);
    }
    report(&s.r, st == DDI_OK, "the guilty process shares a sync object "
           "with the watcher (%s)", ddi_status_name(st));
    os_add_app(&s, g);
    os_add_app(&s, watcher_app(&watcher));
    os_run(&s, duration_ms * MS, 1000 * MS);
    report(&s.r, vidsch_stats(k->vs)->contexts_lost == 1, "one context "
           "lost to TDR, the guilty one's (%lu)",
           vidsch_stats(k->vs)->contexts_lost);
}

int scenario_main(const struct boot_info *boot)
{
    uint64_t duration_ms = 300, blame = 0, gpuva = 0, hoard = 0, fresh = 0;
    struct winapp_config wc;
    struct kernel *k = &s.boot.k;

    kprintf("hostile-multi: processes that use legal calls against each "
            "other beside a desktop\n");
    s.boot.display.width = 640;
    s.boot.display.height = 480;
    if (os_option(&s, boot, "duration_ms", &duration_ms) &&
        os_option(&s, boot, "blame", &blame) &&
        os_option(&s, boot, "gpuva", &gpuva) &&
        os_option(&s, boot, "hoard", &hoard) &&
        os_option(&s, boot, "fresh", &fresh) &&
        (!gpuva || (s.boot.gpuva_vram = 6 * (256u << 10))) &&
        os_boot(&s, boot, blame ? blame_defaults : NULL)) {
        if (blame) {
            run_blame(duration_ms);
            goto done;
        }
        if (gpuva) {
            run_gpuva(duration_ms, hoard);
            goto done;
        }
        if (fresh) {
            run_fresh(duration_ms);
            goto done;
        }
        if (hoard) {
            /* first: everybody else is started later */
            int st = hoarder_init(&hoarder, k, "hoarder");

            report(&s.r, st == DDI_OK, "a hoarder, started first (%s)",
                   ddi_status_name(st));
            os_add_app(&s, hoarder_app(&hoarder));
        }
        compositor_init(&comp, k, "compositor", false);
        cursor_config_default(&wc);
        winapp_init(&cursor, k, "cursor", &wc);
        game_config_default(&wc);
        winapp_init(&game, k, "game", &wc);
        compositor_add_window(&comp, &game, 24, 40, 0x002060c0);
        compositor_set_cursor(&comp, &cursor);
        partner_init(&partner, k, "partner");
        intruder_init(&intruder, k, "intruder", &partner, &game, &comp);
        /* its timer attacks must not starve vidsch's timer (quantum,
         * aging, watchdog: issue 26 item 5); in hardware mode the device
         * keeps those and vidsch arms none */
        if (!vidsch_hwsched(k->vs)) {
            intruder_watch(&intruder, &k->stats.vidsch_timers);
        }
        os_add_app(&s, compositor_app(&comp));
        os_add_app(&s, winapp_app(&cursor));
        os_add_app(&s, winapp_app(&game));
        os_add_app(&s, partner_app(&partner));
        os_add_app(&s, intruder_app(&intruder));
        os_run(&s, duration_ms * MS, 1000 * MS);
done:
        os_print_table(&s);
    }
    kprintf("METRICS {\"scenario\":\"hostile-multi\",\"policy\":\"%s\","
            "\"duration_ms\":%lu,\"timer_yields\":%lu",
            vidsch_policy_name(s.sched.policy), duration_ms,
            k->ev.timer_yields);
    os_print_apps_json(&s);
    kprintf(",\"tests\":%u,\"failures\":%u}\n", s.r.tests, s.r.failures);
    return report_summary(&s.r);
}
