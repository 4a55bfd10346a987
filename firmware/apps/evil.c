/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "apps/evil.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#define MS          1000000ull
#define US          1000ull
#define BUF_BYTES   4096u
#define PATTERN     0xe5e5e5e5u

_Static_assert(offsetof(struct evil, app) == 0, "app first");

/* Submits raw words with the given lists on hctx. */
static int render_raw(struct evil *e, uint32_t hctx, const uint32_t *dw,
                      uint32_t bytes, const struct ddi_alloc_ref *alloc,
                      unsigned nalloc, const struct ddi_patch_loc *patch,
                      unsigned npatch)
{
    struct kapi_render_args a = {
        .cmd = dw, .cmd_bytes = bytes, .alloc = alloc, .nalloc = nalloc,
        .patch = patch, .npatch = npatch,
    };

    return kapi_render(e->app.proc, hctx, &a);
}

static int render_cb(struct evil *e, uint32_t hctx)
{
    struct kapi_render_args a = {
        .cmd = umd_words(&e->cb), .cmd_bytes = umd_bytes(&e->cb),
        .alloc = e->cb.alloc, .nalloc = e->cb.nalloc,
        .patch = e->cb.patch, .npatch = e->cb.npatch,
    };

    return kapi_render(e->app.proc, hctx, &a);
}

/* Never called: every present evil makes is refused. */
static void on_present(void *arg, const struct kapi_present_result *r)
{
    struct evil *e = arg;

    (void)r;
    app_fail(&e->app, "a hostile present was accepted", DDI_EINVAL);
}

static void on_vsync(void *arg, int status, uint64_t vsyncs, uint64_t time)
{
    struct evil *e = arg;

    (void)status;
    (void)vsyncs;
    (void)time;
    app_fail(&e->app, "a hostile vsync wait was accepted", DDI_EINVAL);
}

/* Each attempt: a hostile call; returns the code the kernel gave. */
static int attempt(void *arg, unsigned i)
{
    struct evil *e = arg;
    struct app *a = &e->app;
    const struct app *v = &e->victim->f.app;
    uint32_t words[16] = { 0 };
    struct ddi_alloc_ref ref = { e->hbuf, 1 };
    struct ddi_patch_loc pl = { 0 };
    volatile void *cpu;
    uint32_t h = 0;
    int st;
    struct kapi_present pr = {
        .source = 0, .tag = i, .fn = on_present, .arg = e,
    };

    umd_reset(&e->cb);
    switch (i) {
    case 0:     /* an opcode the device does not have */
        words[0] = COPRO_PKT_HDR(0x42, 0, 1);
        return render_raw(e, a->hctx, words, 4, NULL, 0, NULL, 0);
    case 1:     /* INTERRUPT: the kernel's */
        words[0] = COPRO_PKT_HDR(COPRO_OP_INTERRUPT, 0, COPRO_LEN_INTERRUPT);
        return render_raw(e, a->hctx, words, 8, NULL, 0, NULL, 0);
    case 2:     /* COPY_PTE: page tables are the kernel's */
        words[0] = COPRO_PKT_HDR(COPRO_OP_COPY_PTE, 0, COPRO_LEN_COPY_PTE);
        words[5] = 1;
        return render_raw(e, a->hctx, words, 24, NULL, 0, NULL, 0);
    case 3:     /* a render packet on the copy engine */
        umd_set_target(&e->cb, 0, e->hbuf, 0, 64, 16, 16,
                       COPRO_FMT_XRGB8888);
        return render_cb(e, e->hcopyctx);
    case 4:     /* FILL past the end of its allocation */
        umd_fill(&e->cb, e->hbuf, 0, BUF_BYTES + 4, PATTERN);
        return render_cb(e, a->hctx);
    case 5:     /* COPY from the middle to far beyond */
        umd_copy(&e->cb, e->hbuf, 0, e->hbuf, 2048, 1ull << 32);
        return render_cb(e, a->hctx);
    case 6:     /* the victim's window: its handle means nothing here */
        umd_fill(&e->cb, e->victim->hwin[0], 0, 64, PATTERN);
        return render_cb(e, a->hctx);
    case 7:     /* the victim's context */
        umd_fill(&e->cb, e->hbuf, 0, 64, PATTERN);
        return render_cb(e, v->hctx);
    case 8:     /* a stale handle: created, destroyed, then used */
        h = app_alloc(a, 64, false);
        kapi_destroy_allocation(a->proc, h);
        umd_fill(&e->cb, h, 0, 64, PATTERN);
        return render_cb(e, a->hctx);
    case 9:     /* an address of its own in the buffer */
        umd_fill(&e->cb, e->hbuf, 0, 64, PATTERN);
        e->cb.enc.dw[1] = 0x1000;
        return render_cb(e, a->hctx);
    case 10:    /* a patch location on FILL's size field */
        words[0] = COPRO_PKT_HDR(COPRO_OP_FILL, 0, COPRO_LEN_FILL);
        pl = (struct ddi_patch_loc){ .slot = 0, .patch_offset = 12 };
        return render_raw(e, a->hctx, words, 24, &ref, 1, &pl, 1);
    case 11:    /* a command buffer of 64 MiB */
        return render_raw(e, a->hctx, words, 64u << 20, NULL, 0, NULL, 0);
    case 12:    /* WORK for 292 years */
        umd_work(&e->cb, 1ull << 63);
        return render_cb(e, a->hctx);
    case 13:    /* an allocation list longer than any */
        return render_raw(e, a->hctx, words, 4, &ref, 100000, NULL, 0);
    case 14:    /* a RECT into whatever another context bound to slot 0 */
        umd_rect(&e->cb, 0, 0, 0, 4096, 4096, PATTERN);
        return render_cb(e, a->hctx);
    case 15: {  /* an allocation of 2^62 bytes */
        struct kapi_alloc_desc d = { .size = 1ull << 62 };

        st = kapi_create_allocation(a->proc, a->hdev, &d, &h);
        return st;
    }
    case 16:    /* open with a forged shared name */
        return kapi_open_allocation(a->proc, a->hdev,
                                    e->victim->shared[0] ^ 0x100, &h);
    case 17:    /* lock the victim's window by its handle value */
        return kapi_lock(a->proc, e->victim->hwin[0], KAPI_LOCK_IGNORESYNC,
                         &cpu);
    case 18:    /* destroy the victim's context */
        return kapi_destroy_context(a->proc, v->hctx);
    case 19:    /* a monitored fence going back */
        kapi_signal_cpu(a->proc, e->hsync, 10);
        return kapi_signal_cpu(a->proc, e->hsync, 9);
    case 20:    /* a context handle where an allocation is expected */
        umd_fill(&e->cb, a->hctx, 0, 64, PATTERN);
        return render_cb(e, a->hctx);
    case 21:    /* present another process's surface */
        pr.hprimary = e->victim->hwin[0];
        return kapi_present(a->proc, a->hdev, &pr);
    case 22:    /* present an allocation that is not a primary */
        pr.hprimary = e->hbuf;
        return kapi_present(a->proc, a->hdev, &pr);
    case 23:    /* present on another process's device */
        pr.hprimary = e->hbuf;
        return kapi_present(a->proc, v->hdev, &pr);
    case 24:    /* wait for vsync on another process's device */
        return kapi_wait_vsync(a->proc, v->hdev, 0, on_vsync, e);
    case 25: {  /* another process's surface as the pointer */
        struct kapi_pointer ptr = { .hshape = e->victim->hwin[0],
                                    .visible = true };

        return kapi_set_pointer(a->proc, a->hdev, &ptr);
    }
    case 26:    /* open a sync object by a forged name */
        return kapi_open_sync(a->proc, a->hdev, e->victim->shared[0], &h);
    case 27: {  /* a primary smaller than the screen */
        struct kapi_alloc_desc d = { .size = 4096, .primary = true };

        return kapi_create_allocation(a->proc, a->hdev, &d, &h);
    }
    case 28:    /* lock what its own queued buffer still writes, then free
                 * it under the GPU (freed once the buffer retired) */
    case 29:    /* ... and use the handle it has just freed */
        h = app_alloc(a, BUF_BYTES, true);
        umd_work(&e->cb, 200 * US);
        umd_fill(&e->cb, h, 0, BUF_BYTES, PATTERN);
        st = render_cb(e, a->hctx);
        if (st != DDI_OK) {
            kapi_destroy_allocation(a->proc, h);
            return st;
        }
        if (i == 28) {
            st = kapi_lock(a->proc, h, KAPI_LOCK_DONOTWAIT, &cpu);
            if (st == DDI_OK) {
                kapi_unlock(a->proc, h);
            }
            kapi_destroy_allocation(a->proc, h);
            return st;
        }
        st = kapi_destroy_allocation(a->proc, h);
        if (st != DDI_OK) {
            return st;
        }
        umd_reset(&e->cb);
        umd_fill(&e->cb, h, 0, 64, PATTERN);
        return render_cb(e, a->hctx);
    }
    return DDI_OK;
}

static void add_case(struct evil *e, const char *what, int want)
{
    attacks_add(&e->cases, what, want);
}

static void tick(void *arg, uint64_t now)
{
    struct evil *e = arg;

    if (e->app.stopping) {
        return;
    }
    attacks_try_next(&e->cases, attempt, e);
    kapi_timer_arm(e->app.proc, &e->timer, now + e->period_ns);
}

static void final_done(void *arg, int status)
{
    struct evil *e = arg;

    if (status != DDI_OK) {
        app_fail(&e->app, "wait_cpu", status);
    }
    e->final_done = true;
    e->app.completed++;
    e->app.drained = true;
}

static void start(struct app *a)
{
    struct evil *e = (struct evil *)a;

    tick(e, kapi_now(a->proc));
}

/* One well-formed buffer after all that: it must run. */
static void stop(struct app *a)
{
    struct evil *e = (struct evil *)a;
    int st;

    kapi_timer_cancel(a->proc, &e->timer);
    umd_reset(&e->cb);
    umd_fill(&e->cb, e->hbuf, 0, BUF_BYTES, PATTERN);
    st = render_cb(e, a->hctx);
    if (st == DDI_OK) {
        st = kapi_signal_gpu(a->proc, a->hctx, e->hsync, 100);
    }
    if (st == DDI_OK) {
        st = kapi_wait_cpu(a->proc, e->hsync, 100, final_done, e);
    }
    if (st != DDI_OK) {
        app_fail(a, "final render", st);
        a->drained = true;
        return;
    }
    a->submitted++;
}

static void check(struct app *a, struct report *r)
{
    struct evil *e = (struct evil *)a;
    volatile void *cpu = NULL;
    uint64_t bad = 0;

    attacks_report(&e->cases, r, a->name);
    if (kapi_lock(a->proc, e->hbuf, KAPI_LOCK_DONOTWAIT, &cpu) == DDI_OK) {
        for (unsigned i = 0; i < BUF_BYTES / 4; i++) {
            bad += ((volatile uint32_t *)cpu)[i] != PATTERN;
        }
        kapi_unlock(a->proc, e->hbuf);
    } else {
        bad = BUF_BYTES / 4;
    }
    report(r, e->final_done && bad == 0, "%s: its well-formed buffer still "
           "ran after the refusals (%lu words wrong)", a->name, bad);
}

static const struct app_ops evil_ops = {
    .start = start, .stop = stop, .check = check,
};

int evil_init(struct evil *e, struct kernel *k, const char *name,
              const struct winapp *victim)
{
    struct app *a = &e->app;
    int st;

    e->victim = victim;
    e->period_ns = 2 * MS;
    umd_init(&e->cb, e->cmd, sizeof(e->cmd));
    kapi_timer_init(&e->timer, tick, e);
    add_case(e, "an unknown opcode", DDI_EOPCODE);
    add_case(e, "INTERRUPT", DDI_EOPCODE);
    add_case(e, "COPY_PTE", DDI_EOPCODE);
    add_case(e, "SET_TARGET on the copy engine", DDI_EOPCODE);
    add_case(e, "FILL past its allocation", DDI_EBOUNDS);
    add_case(e, "a 4 GiB COPY from a 4 KiB allocation", DDI_EBOUNDS);
    add_case(e, "another process's allocation handle", DDI_EHANDLE);
    add_case(e, "another process's context handle", DDI_EHANDLE);
    add_case(e, "a stale allocation handle", DDI_EHANDLE);
    add_case(e, "an address in the command buffer", DDI_EINVAL);
    add_case(e, "a patch location on a size field", DDI_EINVAL);
    add_case(e, "a 64 MiB command buffer", DDI_EINVAL);
    add_case(e, "WORK of 2^63 ns", DDI_EINVAL);
    add_case(e, "an allocation list of 100000 entries", DDI_EINVAL);
    add_case(e, "RECT on a target slot it did not bind", DDI_EINVAL);
    add_case(e, "a 2^62-byte allocation", DDI_EINVAL);
    add_case(e, "opening a forged shared name", DDI_EHANDLE);
    add_case(e, "locking another process's allocation", DDI_EHANDLE);
    add_case(e, "destroying another process's context", DDI_EHANDLE);
    add_case(e, "a monitored fence signalled backwards", DDI_EINVAL);
    add_case(e, "a context handle as an allocation", DDI_EHANDLE);
    add_case(e, "presenting another process's surface", DDI_EHANDLE);
    add_case(e, "presenting an allocation that is not a primary",
             DDI_EINVAL);
    add_case(e, "presenting on another process's device", DDI_EHANDLE);
    add_case(e, "a vsync wait on another process's device", DDI_EHANDLE);
    add_case(e, "another process's surface as the pointer", DDI_EHANDLE);
    add_case(e, "opening an allocation's name as a sync object",
             DDI_EHANDLE);
    add_case(e, "a primary smaller than the screen", DDI_EINVAL);
    add_case(e, "locking an allocation its queued buffer writes",
             DDI_EBUSY);
    add_case(e, "an allocation freed while its buffer is queued",
             DDI_EHANDLE);
    st = app_init(a, k, name, COPRO_ENGINE_RENDER, VIDSCH_PRIO_NORMAL,
                  &evil_ops);
    if (st != DDI_OK) {
        return st;
    }
    st = kapi_create_context(a->proc, a->hdev, COPRO_ENGINE_COPY,
                             VIDSCH_PRIO_NORMAL, &e->hcopyctx);
    if (st == DDI_OK) {
        st = kapi_create_sync(a->proc, a->hdev, 0, &e->hsync);
    }
    if (st != DDI_OK) {
        app_fail(a, "create_context/sync", st);
        return st;
    }
    e->hbuf = app_alloc(a, BUF_BYTES, true);
    return e->hbuf ? DDI_OK : a->fail_status;
}
