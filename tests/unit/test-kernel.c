/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for the kernel and its application API (firmware/kernel/
 * kernel.c, kapi.c) with the real scheduler (vidsch) over a fake GPU
 * that implements the DDI: render and patch are the real copro ones;
 * submissions complete when the test pumps the GPU; time is a variable.
 * The event loop is driven step by step (kevents_step), as kloop.c does
 * on the CPU.
 *
 * What is checked: every call refuses handles of another process, stale
 * handles and handles of the wrong type with DDI_EHANDLE, bad arguments
 * with DDI_EINVAL, and changes nothing when it refuses; render's refusals
 * reach the caller and nothing reaches the GPU; completions flow back as
 * sync-object values and CPU-wait callbacks; locks wait for the GPU's
 * last use; shared allocations outlive their creator's handle; a context
 * TDR blames removes its device.
 */
#include <glib.h>
#include <string.h>

#include <copro/copro_cmd.h>

#include "ddi/ddi.h"
#include "kernel/kapi.h"
#include "kernel/kernel.h"
#include "kmd/copro_render.h"
#include "umd/umd.h"

#define VRAM        (16u << 20)
#define ENGINES     2
#define QMAX        64

/* ---- a fake GPU behind the DDI ---- */

struct fake_gpu {
    uint64_t now;
    struct ddi_submit_args q[ENGINES][QMAX];
    unsigned nq[ENGINES];
    uint64_t completed[ENGINES];
    uint64_t preempt_fence[ENGINES];
    bool preempt_pending[ENGINES];
    unsigned submits, renders, resets;
    bool hold;              /* do not complete anything when pumped */
};

static struct fake_gpu gpu;
static uint8_t vram[VRAM] __attribute__((aligned(4096)));
static struct kernel kern;
static uint64_t arena[1 << 17];

static void fg_caps(void *drv, struct ddi_caps *c)
{
    (void)drv;
    *c = (struct ddi_caps){
        .engines = ENGINES,
        .engine_ops = { (1u << (COPRO_OP_COPY_PTE + 1)) - 1,
                        COPRO_COPY_ENGINE_OPS },
        .preemption = COPRO_PREEMPT_MID_COMMAND,
        .ring_entries = QMAX,
        .vram_size = VRAM,
        .max_dma_bytes = COPRO_DMA_MAX,
    };
}

static int fg_render(void *drv, const struct ddi_render_args *a,
                     struct ddi_dmabuf *out)
{
    struct ddi_caps c;

    fg_caps(drv, &c);
    gpu.renders++;
    if (a->engine >= ENGINES) {
        return DDI_EINVAL;
    }
    return copro_render_validate(a, c.engine_ops[a->engine], out, NULL);
}

static int fg_patch(void *drv, struct ddi_dmabuf *b,
                    const struct ddi_alloc_desc *alloc, uint32_t first,
                    uint32_t end)
{
    (void)drv;
    return copro_render_patch(b, alloc, first, end);
}

static int fg_submit(void *drv, const struct ddi_submit_args *a)
{
    (void)drv;
    if (a->engine >= ENGINES || gpu.nq[a->engine] == QMAX - 1) {
        return DDI_EBUSY;
    }
    gpu.q[a->engine][gpu.nq[a->engine]++] = *a;
    gpu.submits++;
    return DDI_OK;
}

static int fg_preempt(void *drv, unsigned e, uint64_t fence)
{
    (void)drv;
    gpu.preempt_pending[e] = true;
    gpu.preempt_fence[e] = fence;
    return DDI_OK;
}

static int fg_reset(void *drv, unsigned e, struct ddi_reset_report *rep)
{
    (void)drv;
    rep->aborted_fence = gpu.nq[e] ? gpu.q[e][0].fence : 0;
    rep->completed_fence = gpu.completed[e];
    gpu.nq[e] = 0;
    gpu.preempt_pending[e] = false;
    gpu.resets++;
    return DDI_OK;
}

static uint64_t fg_time(void *drv)
{
    (void)drv;
    return gpu.now;
}

static const struct ddi_ops fg_ops = {
    .query_caps = fg_caps, .render = fg_render, .patch = fg_patch,
    .submit = fg_submit, .preempt = fg_preempt, .reset_engine = fg_reset,
    .gpu_time = fg_time,
};

/* Runs everything queued (each entry retires 10 us after the last), and
 * answers a preemption request once the ring is empty. */
static bool pump(void)
{
    bool did = false;

    for (unsigned e = 0; e < ENGINES && !gpu.hold; e++) {
        if (gpu.nq[e]) {
            gpu.now += 10000 * gpu.nq[e];
            gpu.completed[e] = gpu.q[e][gpu.nq[e] - 1].fence;
            gpu.nq[e] = 0;
            kernel_upcalls.dma_completed(&kern, e, gpu.completed[e]);
            did = true;
        }
        if (gpu.preempt_pending[e]) {
            gpu.preempt_pending[e] = false;
            kernel_upcalls.preempted(&kern, e, gpu.preempt_fence[e], 0,
                                     gpu.completed[e]);
            did = true;
        }
    }
    return did;
}

/* The event loop, as kloop.c runs it, with the fake GPU and clock,
 * for 200 ms of fake time (the scheduler may poll on a timer for ever). */
static void run(void)
{
    uint64_t until = gpu.now + 200000000ull;

    for (unsigned i = 0; i < 1000000; i++) {
        uint64_t wake;

        if (pump()) {
            continue;
        }
        if (kevents_step(&kern.ev, gpu.now, &wake) != KEVENTS_IDLE) {
            continue;
        }
        if (wake == KEVENTS_NEVER || wake > until) {
            return;
        }
        gpu.now = wake;
    }
    g_assert_not_reached();
}

static void setup(void)
{
    struct ddi_device dev = { .ops = &fg_ops, .drv = &gpu };
    struct vidsch_config cfg;
    const char *err;

    memset(&gpu, 0, sizeof(gpu));
    gpu.now = 1000;
    vidsch_config_default(&cfg);
    g_assert_cmpuint(kernel_arena_bytes(), <=, sizeof(arena));
    err = kernel_init(&kern, &dev, 0x10000, VRAM - 0x10000, vram + 0x10000,
                      &cfg, arena, sizeof(arena));
    g_assert_null(err);
}

/* ---- an application's view ---- */

struct proc {
    struct kproc *p;
    uint32_t dev, ctx, buf, sync;
};

static void make_proc(struct proc *a, const char *name)
{
    struct kapi_alloc_desc d = { .size = 4096, .cpu_visible = true,
                                 .zeroed = true };

    a->p = kapi_process_create(&kern, name);
    g_assert_nonnull(a->p);
    g_assert_cmpint(kapi_create_device(a->p, &a->dev), ==, DDI_OK);
    g_assert_cmpint(kapi_create_context(a->p, a->dev, 0, VIDSCH_PRIO_NORMAL,
                                        &a->ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a->p, a->dev, &d, &a->buf), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_create_sync(a->p, a->dev, 0, &a->sync), ==, DDI_OK);
}

static uint32_t cmd[1024];
static struct umd_cmdbuf cb;

static int render(struct proc *a, uint32_t ctx)
{
    struct kapi_render_args r = {
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
        .alloc = cb.alloc, .nalloc = cb.nalloc, .patch = cb.patch,
        .npatch = cb.npatch,
    };

    return kapi_render(a->p, ctx, &r);
}

static int fill(struct proc *a, uint32_t ctx, uint32_t h, uint64_t size)
{
    umd_init(&cb, cmd, sizeof(cmd));
    umd_fill(&cb, h, 0, size, 0x12345678);
    return render(a, ctx);
}

struct waited {
    unsigned calls;
    int status;
    volatile void *cpu;
};

static void on_wait(void *arg, int status)
{
    struct waited *w = arg;

    w->calls++;
    w->status = status;
}

static void on_lock(void *arg, int status, volatile void *cpu)
{
    struct waited *w = arg;

    w->calls++;
    w->status = status;
    w->cpu = cpu;
}

/* ---- tests ---- */

static void test_render_roundtrip(void)
{
    struct proc a;
    struct waited w = { 0 };
    uint64_t v = 0;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4096), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, on_wait, &w), ==, DDI_OK);
    g_assert_cmpuint(w.calls, ==, 0);       /* never from inside a call */
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 1);
    g_assert_cmpuint(kern.stats.buffers_done, ==, 1);
    g_assert_true(kernel_gpu_idle(&kern));
    /* what reached the "GPU" is the validated, patched copy */
    g_assert_cmpuint(gpu.q[0][0].dma_len, ==, COPRO_LEN_FILL * 4);
}

static void test_foreign_stale_wrong_type(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    volatile void *cpu;
    uint32_t h, name = 0;
    uint64_t v;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    /* b's handles mean nothing to a */
    g_assert_cmpint(fill(&a, b.ctx, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(fill(&a, a.ctx, b.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_create_context(a.p, b.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &h), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_lock(a.p, b.buf, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_signal_cpu(a.p, b.sync, 5), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, b.sync, 5), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_wait_gpu(a.p, b.ctx, a.sync, 5), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_wait_cpu(a.p, b.sync, 1, on_wait, &w), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_context(a.p, b.ctx), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_allocation(a.p, b.buf), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_device(a.p, b.dev), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_share_allocation(a.p, b.buf, &name), ==,
                    DDI_EHANDLE);
    /* wrong types, garbage */
    g_assert_cmpint(fill(&a, a.buf, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(fill(&a, a.ctx, a.ctx, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(a.p, a.buf, &v), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(a.p, 0, &v), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(a.p, UINT32_MAX, &v), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_sync_value(NULL, a.sync, &v), ==, DDI_EHANDLE);
    /* stale: destroyed, then used */
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_destroy_context(a.p, a.ctx), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, b.buf, 64), ==, DDI_EHANDLE);
    run();
    /* nothing of it reached the GPU, and b still works */
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    g_assert_cmpuint(w.calls, ==, 0);
}

static void test_render_refusals(void)
{
    struct proc a;
    struct kapi_render_args r = { 0 };
    uint32_t bad[2] = { COPRO_PKT_HDR(0x42, 0, 1), 0 };

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4100), ==, DDI_EBOUNDS);
    r = (struct kapi_render_args){ .cmd = bad, .cmd_bytes = 4 };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EOPCODE);
    r.cmd_bytes = 0;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    r.cmd_bytes = 1u << 30;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    r = (struct kapi_render_args){ .cmd = bad, .cmd_bytes = 4,
                                   .nalloc = 1000 };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    r = (struct kapi_render_args){ .cmd = bad, .cmd_bytes = 4, .nalloc = 1 };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_render(a.p, a.ctx, NULL), ==, DDI_EINVAL);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpuint(kern.stats.render_refusals, ==, 7);
    /* no DMA buffer or record leaked: the segment holds only what the
     * process created (save area, allocation, sync) */
    g_assert_cmpuint(kern.seg.count, ==, 3);
}

static void test_args(void)
{
    struct proc a;
    struct kapi_alloc_desc d = { .size = 0 };
    uint32_t h;
    volatile void *cpu;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_EINVAL);
    d.size = 1ull << 40;
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_EINVAL);
    d.size = kern.seg.size - 1;     /* fits the segment, not what is free */
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_ENOMEM);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, NULL, &h), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 7, VIDSCH_PRIO_NORMAL,
                                        &h), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_COUNT,
                                        &h), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_lock(a.p, a.buf, 0, &cpu), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_lock(a.p, a.buf, 0x80, &cpu), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, NULL, NULL), ==,
                    DDI_EINVAL);
    /* monitored fences never go back */
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 10), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 9), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 10), ==, DDI_OK);
}

static void test_cpu_signal_wakes(void)
{
    struct proc a;
    struct waited w = { 0 };

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 3, on_wait, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 2), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 3), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
}

/* A GPU wait holds the context's later work until the value is there. */
static void test_gpu_wait(void)
{
    struct proc a;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_wait_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
}

static void test_lock(void)
{
    struct proc a;
    struct waited w = { 0 };
    volatile void *cpu = NULL;
    struct kapi_alloc_desc hidden = { .size = 64, .cpu_visible = false };
    uint32_t h;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_nonnull(cpu);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    /* the GPU still uses it */
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_EBUSY);
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpint(kapi_lock_wait(a.p, a.buf, on_lock, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);
    gpu.hold = false;
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_true(w.cpu == cpu);
    g_assert_cmphex(*(volatile uint32_t *)w.cpu, ==, 0);   /* fake GPU */
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    /* not CPU-visible: never mapped */
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &hidden, &h), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_lock(a.p, h, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_lock_wait(a.p, h, on_lock, &w), ==, DDI_EINVAL);
}

static void test_share(void)
{
    struct proc a, b;
    uint32_t name = 0, h = 0;
    unsigned before;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmphex(name, !=, 0);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name ^ 0x100, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, 0, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, a.dev, name, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmphex(h, !=, a.buf);
    /* the creator lets go: b's handle keeps it */
    before = kern.seg.count;
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, before);
    g_assert_cmpint(fill(&b, b.ctx, h, 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, before - 1);
    /* the name died with it */
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==,
                    DDI_EHANDLE);
}

/* Destroying an allocation the GPU still uses frees it afterwards. */
static void test_deferred_free(void)
{
    struct proc a;
    unsigned before;

    setup();
    make_proc(&a, "a");
    before = kern.seg.count;
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, before + 1);     /* + DMA buffer */
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.seg.count, ==, before - 1);
}

static void test_destroy_device(void)
{
    struct proc a;
    struct waited w = { 0 };

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, on_wait, &w), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_EHANDLE);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_EHANDLE);
    g_assert_cmpuint(kern.seg.count, ==, 0);
    g_assert_cmpuint(a.p->handles.used, ==, 0);
}

/* A fault blames the context: its device is removed, its process told,
 * its waits fail, its calls return DDI_ELOST; others go on. */
static unsigned lost_calls;

static void on_lost(void *arg, uint32_t hdev)
{
    (void)arg;
    (void)hdev;
    lost_calls++;
}

static void test_lost(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t h;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    lost_calls = 0;
    kapi_set_lost_callback(a.p, on_lost, NULL);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 1, on_wait, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    g_assert_cmpuint(gpu.resets, >=, 1);
    g_assert_cmpuint(lost_calls, ==, 1);
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_ELOST);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &h), ==, DDI_ELOST);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.buffers_lost, ==, 1);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/kernel/render-roundtrip", test_render_roundtrip);
    g_test_add_func("/kernel/foreign-stale-wrong-type",
                    test_foreign_stale_wrong_type);
    g_test_add_func("/kernel/render-refusals", test_render_refusals);
    g_test_add_func("/kernel/args", test_args);
    g_test_add_func("/kernel/cpu-signal-wakes", test_cpu_signal_wakes);
    g_test_add_func("/kernel/gpu-wait", test_gpu_wait);
    g_test_add_func("/kernel/lock", test_lock);
    g_test_add_func("/kernel/share", test_share);
    g_test_add_func("/kernel/deferred-free", test_deferred_free);
    g_test_add_func("/kernel/destroy-device", test_destroy_device);
    g_test_add_func("/kernel/lost", test_lost);
    return g_test_run();
}
