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
 * last use; shared allocations and sync objects outlive their creator's
 * handle; a context TDR blames removes its device. The display source
 * (kernel/kdisplay.c) over a fake display: a present waits for its
 * render fence, flips go to the driver in order and only from the DPC
 * queue, results carry the driver's missed vblanks, the vsync event
 * fires once per wait, every display call checks its handles, and a
 * primary lives while it is queued or on screen. With vidmm (a fake
 * build_paging_buffer, a page pool over host memory): allocations may
 * add up to more than VRAM, residency makes paging buffers that run on
 * the copy engine first, a lock pins where it is (the BAR view or the
 * backing run) and a locked allocation is never moved, a free refused
 * while a paging buffer moves the allocation is done once it retired.
 * GPU-VA mode (kernel/kgpuva.c, a fake driver's gpuva ops keeping a
 * software page table): VAs for life, MakeResident pages in and maps the
 * VA onto VRAM, a process over its budget gets a trim callback for
 * exactly its excess and what it evicts is paged out and unmapped, the
 * paging fence holds the context's next buffer, reference counts, foreign
 * handles, a clean out-of-memory, every page back at the end. Scenes
 * (kernel/kscene.c): a partial render's checks, a TILER_OOM answered by
 * the partial render on the kernel's own context with the geometry held
 * until it retired, no partial render (fails), the process killed while
 * its render is queued or its geometry held (everything back).
 */
#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include <copro/copro_cmd.h>
#include <copro/copro_tiler.h>

#include "ddi/ddi.h"
#include "kernel/kapi.h"
#include "kernel/handle.h"
#include "kernel/kernel.h"
#include "kernel/kexit.h"
#include "kernel/kisolate.h"
#include "kernel/ktables.h"
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

/* A fake display source: flips queue in the "driver" and take effect one
 * per vsync, which the test makes with fake_vsync(). */
#define FD_QMAX     16
#define PERIOD_NS   16666666ull

struct fake_display {
    bool on;
    struct ddi_display_mode mode;
    uint64_t scanout;
    unsigned nq, cap;           /* flips handed over, not shown; room */
    struct ddi_flip_args q[FD_QMAX];
    unsigned flips_set;         /* set_source_address calls accepted */
    bool refuse_next;           /* the next flip is refused at its vsync */
    uint64_t vsyncs, last_flip_vsync;
    bool streaming;
    uint64_t shape;
    int32_t px, py;
    bool pvis;
    unsigned shape_calls;
};

static struct fake_display fd;

static struct fake_gpu gpu;
static uint8_t vram[VRAM] __attribute__((aligned(4096)));
static struct kernel kern;
static uint64_t arena[1 << 17];

static void fg_caps(void *drv, struct ddi_caps *c)
{
    (void)drv;
    *c = (struct ddi_caps){
        .engines = ENGINES,
        .engine_ops = { ((1u << (COPRO_OP_COPY_PTE + 1)) - 1) |
                        COPRO_RENDER_SCENE_OPS, COPRO_COPY_ENGINE_OPS },
        .preemption = COPRO_PREEMPT_MID_COMMAND,
        .ring_entries = QMAX,
        .vram_size = VRAM,
        .max_dma_bytes = COPRO_DMA_MAX,
        .display = { .sources = 1, .refresh_hz = 60,
                     .vsync_period_ns = PERIOD_NS, .max_width = 4096,
                     .max_height = 4096, .pointer = true },
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

static int fd_commit(void *drv, unsigned source,
                     const struct ddi_display_mode *mode, uint64_t addr)
{
    (void)drv;
    if (source != 0) {
        return DDI_EINVAL;
    }
    fd.on = mode != NULL;
    if (mode) {
        fd.mode = *mode;
    }
    fd.scanout = addr;
    fd.nq = 0;
    fd.streaming = false;
    return DDI_OK;
}

static int fd_flip(void *drv, const struct ddi_flip_args *a)
{
    (void)drv;
    if (a->source != 0 || !fd.on) {
        return DDI_EINVAL;
    }
    if (fd.nq == fd.cap) {
        return DDI_EBUSY;
    }
    fd.q[fd.nq++] = *a;
    fd.flips_set++;
    return DDI_OK;
}

static int fd_shape(void *drv, unsigned source, uint64_t addr)
{
    (void)drv;
    (void)source;
    fd.shape = addr;
    fd.shape_calls++;
    return DDI_OK;
}

static int fd_pos(void *drv, unsigned source, int32_t x, int32_t y,
                  bool visible)
{
    (void)drv;
    (void)source;
    fd.px = x;
    fd.py = y;
    fd.pvis = visible;
    return DDI_OK;
}

/* build_paging_buffer: records the operations, one NOP packet per
 * buffer (the fake GPU runs nothing). */
static struct {
    unsigned builds, ops, maps, transfers, unmaps;
} fp;

static int fg_build_paging(void *drv, const struct ddi_paging_op *ops,
                           unsigned nops, struct ddi_dmabuf *out)
{
    (void)drv;
    if (!out->dw || out->cap_bytes < 4 || nops == 0) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < nops; i++) {
        fp.maps += ops[i].kind == DDI_PAGING_MAP_APERTURE;
        fp.transfers += ops[i].kind == DDI_PAGING_TRANSFER;
        fp.unmaps += ops[i].kind == DDI_PAGING_UNMAP_APERTURE;
    }
    fp.builds++;
    fp.ops += nops;
    out->dw[0] = 0;
    out->len_bytes = 4;
    return DDI_OK;
}

/* GPU-VA ops: a software page table of the one space the tests use (the
 * entries as the kernel asked, applied at build time: the fake GPU runs
 * nothing). */
#define FV_VA_BASE  (1ull << 32)
#define FV_PAGES    1024
static struct {
    unsigned spaces, binds, unbinds, reserves, updates;
    uint32_t bound_ctx[8];
    /* by space: OS VRAM it maps (a space per process slot at most) */
    uint64_t os_base[KGPUVA_MAX_PROCS + 1], os_bytes[KGPUVA_MAX_PROCS + 1];
    bool reserved[FV_PAGES];
    uint32_t target[FV_PAGES];      /* enum ddi_pte_target */
    uint64_t frame[FV_PAGES];
    bool writable[FV_PAGES];
} fv;

static int fv_space_create(void *drv, uint64_t os_base, uint64_t os_bytes,
                           uint64_t hole_base, uint64_t hole_bytes,
                           uint32_t *as)
{
    (void)drv;
    g_assert_cmpuint(hole_bytes, ==, 0);
    (void)hole_base;
    g_assert_cmpuint(fv.spaces, <, KGPUVA_MAX_PROCS);
    *as = ++fv.spaces;
    fv.os_base[*as] = os_base;
    fv.os_bytes[*as] = os_bytes;
    return DDI_OK;
}

static int fv_space_bind(void *drv, uint32_t as, uint32_t context,
                         uint64_t save, uint64_t save_bytes)
{
    (void)drv;
    if (as == 0 || as > fv.spaces || fv.binds == 8) {
        return DDI_EINVAL;
    }
    /* the only writable page of the kernel's VRAM: a page of its own */
    g_assert_cmpuint(save % 4096, ==, 0);
    g_assert_cmpuint(save_bytes, ==, 4096);
    fv.bound_ctx[fv.binds++] = context;
    return DDI_OK;
}

static void fv_space_unbind(void *drv, uint32_t as, uint32_t context,
                            uint64_t save, uint64_t save_bytes)
{
    (void)drv;
    (void)as;
    (void)context;
    (void)save;
    (void)save_bytes;
    fv.unbinds++;
}

static int fv_space_reserve(void *drv, uint32_t as, uint64_t va,
                            uint64_t bytes)
{
    (void)drv;
    (void)as;
    for (uint64_t a = va; a < va + bytes; a += 4096) {
        uint64_t i = (a - FV_VA_BASE) / 4096;

        if (a < FV_VA_BASE || i >= FV_PAGES) {
            return DDI_EINVAL;
        }
        fv.reserved[i] = true;
    }
    fv.reserves++;
    return DDI_OK;
}

static int fv_pte_update(void *drv, const struct ddi_pte_update *u,
                         unsigned n, struct ddi_dmabuf *out)
{
    (void)drv;
    for (unsigned k = 0; k < n; k++) {
        for (uint64_t p = 0; p < u[k].pages; p++) {
            uint64_t i = (u[k].va - FV_VA_BASE) / 4096 + p;

            /* moves never allocate tables: reserved at creation */
            if (i >= FV_PAGES || !fv.reserved[i]) {
                return DDI_EINVAL;
            }
            fv.target[i] = u[k].target;
            fv.frame[i] = u[k].addr + p * 4096;
            fv.writable[i] = u[k].writable;
        }
    }
    if (out->cap_bytes - out->len_bytes < 4) {
        return DDI_ENOMEM;
    }
    out->dw[out->len_bytes / 4] = 0;
    out->len_bytes += 4;
    fv.updates++;
    return DDI_OK;
}

static const struct ddi_gpuva_ops fv_ops = {
    .space_create = fv_space_create, .space_bind = fv_space_bind,
    .space_unbind = fv_space_unbind,
    .space_reserve = fv_space_reserve, .pte_update = fv_pte_update,
};

static const struct ddi_ops fg_ops = {
    .query_caps = fg_caps, .render = fg_render, .patch = fg_patch,
    .submit = fg_submit, .preempt = fg_preempt, .reset_engine = fg_reset,
    .gpu_time = fg_time,
    .commit_vidpn = fd_commit, .set_source_address = fd_flip,
    .set_pointer_shape = fd_shape, .set_pointer_position = fd_pos,
};

static const struct ddi_ops fg_paging_ops = {
    .query_caps = fg_caps, .render = fg_render, .patch = fg_patch,
    .submit = fg_submit, .preempt = fg_preempt, .reset_engine = fg_reset,
    .gpu_time = fg_time,
    .commit_vidpn = fd_commit, .set_source_address = fd_flip,
    .set_pointer_shape = fd_shape, .set_pointer_position = fd_pos,
    .build_paging_buffer = fg_build_paging,
};

static const struct ddi_ops fg_gpuva_ops = {
    .query_caps = fg_caps, .render = fg_render, .patch = fg_patch,
    .submit = fg_submit, .preempt = fg_preempt, .reset_engine = fg_reset,
    .gpu_time = fg_time,
    .commit_vidpn = fd_commit, .set_source_address = fd_flip,
    .set_pointer_shape = fd_shape, .set_pointer_position = fd_pos,
    .build_paging_buffer = fg_build_paging,
    .gpuva = &fv_ops,
};

/* One vsync: the oldest flip handed over takes effect (its flip_done
 * first, as the driver's DPC makes them), then the vsync upcall. Called
 * between run()s, as an interrupt's DPC would come. */
static void fake_vsync(void)
{
    gpu.now += PERIOD_NS;
    fd.vsyncs++;
    if (fd.nq) {
        struct ddi_flip_done f = {
            .source = 0, .present_id = fd.q[0].present_id,
            .primary_addr = fd.q[0].primary_addr, .vsync = fd.vsyncs,
            .time = gpu.now,
            .missed = fd.streaming ? fd.vsyncs - fd.last_flip_vsync - 1 : 0,
        };

        if (fd.refuse_next) {
            fd.refuse_next = false;
            f.status = DDI_EINVAL;
            f.missed = 0;
        } else {
            fd.streaming = true;
            fd.last_flip_vsync = fd.vsyncs;
            fd.scanout = f.primary_addr;
        }
        fd.nq--;
        for (unsigned i = 0; i < fd.nq; i++) {
            fd.q[i] = fd.q[i + 1];
        }
        kernel_upcalls.flip_done(&kern, &f);
    }
    kernel_upcalls.vsync(&kern, 0, fd.vsyncs, gpu.now);
}

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
    memset(&fd, 0, sizeof(fd));
    fd.cap = FD_QMAX;
    gpu.now = 1000;
    vidsch_config_default(&cfg);
    g_assert_cmpuint(kernel_arena_bytes(NULL), <=, sizeof(arena));
    err = kernel_init(&kern, &dev, 0x10000, VRAM - 0x10000, vram + 0x10000,
                      &cfg, NULL, arena, sizeof(arena));
    g_assert_null(err);
}

/* The kernel with vidmm: 1 MiB of the segment the kernel's, 2 MiB
 * vidmm's, a page pool over host memory (its "physical" addresses are
 * host pointers, as the firmware's identity map makes them). */
#define KSEG        (1u << 20)
#define VMSEG       (2u << 20)
#define POOL_BYTES  (8u << 20)

static uint8_t poolmem[POOL_BYTES] __attribute__((aligned(4096)));
static uint64_t pool_used[PAGE_POOL_WORDS(POOL_BYTES / 4096)];
static struct page_pool pool;

static void setup_vidmm(void)
{
    struct ddi_device dev = { .ops = &fg_paging_ops, .drv = &gpu };
    struct kernel_vidmm_config vc = {
        .kernel_bytes = KSEG, .aperture_base = 1ull << 40,
        .aperture_size = 4u << 20, .copy_engine = 1, .pool = &pool,
    };
    struct vidsch_config cfg;
    const char *err;

    memset(&gpu, 0, sizeof(gpu));
    memset(&fd, 0, sizeof(fd));
    memset(&fp, 0, sizeof(fp));
    fd.cap = FD_QMAX;
    gpu.now = 1000;
    g_assert_true(page_pool_init(&pool, (uint64_t)(uintptr_t)poolmem,
                                 POOL_BYTES / 4096, pool_used));
    vidsch_config_default(&cfg);
    g_assert_cmpuint(kernel_arena_bytes(&vc), <=, sizeof(arena));
    err = kernel_init(&kern, &dev, 0x10000, KSEG + VMSEG, vram + 0x10000,
                      &cfg, &vc, arena, sizeof(arena));
    g_assert_null(err);
    g_assert_nonnull(kern.vm);
    g_assert_cmpuint(kernel_app_vram_bytes(&kern), ==, VMSEG);
    g_assert_cmpuint(kern.seg.size, ==, KSEG);
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

static struct kalloc *kalloc_of(struct proc *a, uint32_t h)
{
    struct kalloc *ka = handle_lookup(&a->p->handles, h, HANDLE_ALLOCATION);

    g_assert_nonnull(ka);
    return ka;
}

static struct vidmm_alloc_state vstate(struct proc *a, uint32_t h)
{
    struct vidmm_alloc_state st;

    g_assert_cmpuint(kalloc_of(a, h)->vm, !=, 0);
    g_assert_cmpint(vidmm_alloc_state(kern.vm, kalloc_of(a, h)->vm, &st),
                    ==, DDI_OK);
    return st;
}

/* Four allocations of 768 KiB on 2 MiB of vidmm VRAM: the first two in
 * VRAM, the others only in their backing pages. */
static void make_big(struct proc *a, uint32_t h[4])
{
    struct kapi_alloc_desc d = { .size = 768u << 10, .cpu_visible = true,
                                 .zeroed = true };

    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmpint(kapi_create_allocation(a->p, a->dev, &d, &h[i]), ==,
                        DDI_OK);
    }
    g_assert_cmpuint(vstate(a, h[0]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vstate(a, h[1]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vstate(a, h[2]).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpuint(vstate(a, h[3]).where, ==, VIDMM_IN_SYSMEM);
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
    d.size = kern.seg.size - 1;     /* fits the segment, not the process's
                                       quota of it */
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_EQUOTA);
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
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
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

static void test_vidmm_oversubscribe(void)
{
    struct kapi_alloc_desc big = { .size = VMSEG + 4096 };
    const struct vidmm_stats *vs;
    struct vidmm_alloc_state st;
    volatile void *cpu, *cpu0;
    struct proc a;
    uint32_t h[4], x;

    setup_vidmm();
    make_proc(&a, "a");
    /* 3 MiB on 2 MiB of VRAM: accepted; more than all of it: refused */
    make_big(&a, h);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &big, &x), ==,
                    DDI_EINVAL);
    /* h[2], h[3] used: older ones evicted, paging buffers first on the
     * copy engine, retired back through buffer_done */
    g_assert_cmpint(fill(&a, a.ctx, h[2], 4096), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, h[3], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 2);
    g_assert_cmpuint(fp.builds, >=, 1);
    g_assert_cmpuint(kern.stats.paging_buffers_done, ==, fp.builds);
    vs = kernel_vidmm_stats(&kern);
    g_assert_nonnull(vs);
    g_assert_cmpuint(vs->paging_buffers, ==, fp.builds);
    g_assert_cmpuint(vs->restores, ==, 2);
    g_assert_cmpuint(vs->evictions, >=, 2);
    g_assert_cmpuint(fp.transfers, ==, vs->restores + vs->evictions);
    g_assert_cmpuint(vstate(&a, h[2]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vstate(&a, h[3]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vstate(&a, h[0]).where, ==, VIDMM_IN_SYSMEM);
    g_assert_true(kernel_gpu_idle(&kern));
    /* lock: VRAM through the segment's CPU view, system memory its
     * backing run */
    st = vstate(&a, h[2]);
    g_assert_cmpint(kapi_lock(a.p, h[2], KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_true(cpu == (volatile void *)(vram + st.gpu_addr));
    st = vstate(&a, h[0]);
    g_assert_cmpint(kapi_lock(a.p, h[0], KAPI_LOCK_DONOTWAIT, &cpu0), ==,
                    DDI_OK);
    g_assert_true(cpu0 == (volatile void *)(uintptr_t)st.pages[0]);
    g_assert_cmpuint(vstate(&a, h[0]).pin, ==, 1);
    /* locked in system memory: the GPU uses it there (mapped in the
     * aperture), its pages stay where the CPU's pointer is */
    g_assert_cmpint(fill(&a, a.ctx, h[0], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 3);
    st = vstate(&a, h[0]);
    g_assert_cmpuint(st.where, ==, VIDMM_IN_APERTURE);
    g_assert_true(cpu0 == (volatile void *)(uintptr_t)st.pages[0]);
    /* unlocked (unpinned), it may come into VRAM */
    g_assert_cmpint(kapi_unlock(a.p, h[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_unlock(a.p, h[2]), ==, DDI_OK);
    g_assert_cmpint(kapi_unlock(a.p, h[2]), ==, DDI_EINVAL);
    g_assert_cmpuint(vstate(&a, h[0]).pin, ==, 0);
    g_assert_cmpint(fill(&a, a.ctx, h[0], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(vstate(&a, h[0]).where, ==, VIDMM_IN_VRAM);
    /* everything freed: the pool has all its pages back */
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(pool.free, ==, pool.pages);
    g_assert_cmpuint(vidmm_vram_used(kern.vm), ==, 0);
    /* the kernel's part holds only the paging buffers' reserved packets */
    g_assert_cmpuint(kern.seg.count, ==, KERNEL_MAX_PAGING);
}

/* Pageable DMA buffers (kernel/kdma.h): a placement per process or per
 * buffer; the buffer is a vidmm allocation, not a block of the kernel's
 * segment, starts in its backing pages, is brought in (copied into
 * VRAM, or mapped in the aperture) before it runs, and everything is
 * given back once it retired. A bad placement is refused. */
static void test_dma_placement(void)
{
    struct kapi_render_args r;
    struct proc a;
    unsigned kseg;

    setup_vidmm();
    make_proc(&a, "a");
    /* a first buffer in the kernel's segment: what the context takes
     * there on its first render stays (counted in kseg) */
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4096), ==, DDI_OK);
    run();
    kseg = kern.seg.count;
    g_assert_cmpint(kapi_set_dma_placement(a.p, KAPI_DMA_PLACEMENTS), ==,
                    DDI_EINVAL);
    umd_init(&cb, cmd, sizeof(cmd));
    umd_fill(&cb, a.buf, 0, 4096, 0x12345678);
    r = (struct kapi_render_args){
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
        .alloc = cb.alloc, .nalloc = cb.nalloc, .patch = cb.patch,
        .npatch = cb.npatch, .placement = KAPI_DMA_PLACEMENTS,
    };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_EINVAL);
    g_assert_cmpuint(kern.stats.dma_pageable, ==, 0);
    /* the process's placement: VRAM */
    g_assert_cmpint(kapi_set_dma_placement(a.p, KAPI_DMA_VRAM), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 4096), ==, DDI_OK);
    g_assert_cmpuint(kern.stats.dma_pageable, ==, 1);
    g_assert_cmpuint(kern.seg.count, ==, kseg);     /* not the kernel's */
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 2);
    g_assert_cmpuint(kern.stats.dma_brought_in, ==, 1);
    g_assert_cmpuint(kern.stats.dma_vram_peak, ==, 4096);
    g_assert_cmpuint(kernel_vidmm_stats(&kern)->restores, >=, 1);
    /* one buffer's own: the aperture */
    r.placement = KAPI_DMA_APERTURE;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, kseg);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 3);
    g_assert_cmpuint(kern.stats.dma_brought_in, ==, 2);
    g_assert_cmpuint(kern.stats.dma_vram_peak, ==, 4096);
    /* the kernel's segment again */
    r.placement = KAPI_DMA_KERNEL;
    g_assert_cmpint(kapi_render(a.p, a.ctx, &r), ==, DDI_OK);
    g_assert_cmpuint(kern.seg.count, ==, kseg + 1);
    run();
    g_assert_cmpuint(kern.stats.buffers_done, ==, 4);
    g_assert_cmpuint(kern.stats.dma_pageable, ==, 2);
    /* nothing left behind */
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(pool.free, ==, pool.pages);
    g_assert_cmpuint(vidmm_vram_used(kern.vm), ==, 0);
    g_assert_cmpuint(kern.seg.count, ==, KERNEL_MAX_PAGING);
}

/* Destroyed while a paging buffer still moves it: vidmm refuses the
 * free, the kernel frees it once that buffer retired. */
static void test_vidmm_free_while_paging(void)
{
    struct proc a;
    struct kalloc *ka;
    uint32_t h[4];

    setup_vidmm();
    make_proc(&a, "a");
    make_big(&a, h);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, h[2], 4096), ==, DDI_OK);
    run();
    g_assert_cmpuint(fp.builds, ==, 1);
    g_assert_cmpuint(kern.stats.paging_buffers_done, ==, 0);
    /* h[0] (least recently used after the 4 KiB buffer) went out */
    g_assert_cmpuint(vstate(&a, h[0]).where, ==, VIDMM_IN_SYSMEM);
    ka = kalloc_of(&a, h[0]);
    g_assert_cmpint(kapi_destroy_allocation(a.p, h[0]), ==, DDI_OK);
    g_assert_true(ka->used && ka->dying);
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.stats.paging_buffers_done, ==, 1);
    g_assert_cmpuint(kern.stats.buffers_done, ==, 1);
    g_assert_false(ka->used);
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

/*
 * A fault removes the whole device [WDDM], not the faulting context
 * alone: the process's other contexts, one with a buffer queued and one
 * held on the faulting context's signal (on the copy engine), are lost
 * with it: neither buffer runs, both are in error. Another process's
 * work runs on.
 */
static void test_lost_whole_device(void)
{
    struct proc a, b;
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t queued, held;
    unsigned submits;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &queued), ==, DDI_OK);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 1, VIDSCH_PRIO_NORMAL,
                                        &held), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    g_assert_cmpint(fill(&a, queued, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(a.p, held, a.sync, 1), ==, DDI_OK);
    umd_init(&cb, cmd, sizeof(cmd));
    umd_copy(&cb, a.buf, 0, a.buf, 2048, 64);
    g_assert_cmpint(render(&a, held), ==, DDI_OK);
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    submits = gpu.submits;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    /* nothing of a's ran after the fault */
    g_assert_cmpuint(gpu.submits, ==, submits);
    g_assert_cmpint(kapi_context_error(a.p, queued), ==, DDI_ELOST);
    g_assert_cmpint(kapi_context_error(a.p, held), ==, DDI_ELOST);
    g_assert_cmpuint(kern.stats.contexts_lost, ==, 3);
    g_assert_cmpuint(kern.stats.buffers_lost, ==, 3);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpint(kapi_context_error(b.p, b.ctx), ==, DDI_OK);
}

/* ---- display ---- */

static void on_vsync_count(void *arg, int status, uint64_t vsyncs,
                           uint64_t time);

#define DW      64
#define DH      32

static void setup_display(void)
{
    setup();
    g_assert_null(kdisplay_start(&kern, 0, DW, DH));
    g_assert_true(fd.on);
    g_assert_cmpuint(fd.mode.pitch, ==, DW * 4);
    run();
}

static uint32_t make_primary(struct proc *a)
{
    struct kapi_alloc_desc d = { .size = DW * 4 * DH, .cpu_visible = true,
                                 .primary = true };
    uint32_t h = 0;

    g_assert_cmpint(kapi_create_allocation(a->p, a->dev, &d, &h), ==,
                    DDI_OK);
    /* the presenting process owns the source (it is the last to) */
    kernel_process_grant(&kern, a->p, KAPI_PRIV_DISPLAY);
    g_assert_cmpint(kapi_set_source_owner(a->p, a->dev, 0), ==, DDI_OK);
    return h;
}

struct presented {
    unsigned calls;
    struct kapi_present_result r[8];
};

static void on_present(void *arg, const struct kapi_present_result *r)
{
    struct presented *p = arg;

    if (p->calls < 8) {
        p->r[p->calls] = *r;
    }
    p->calls++;
}

static int present(struct proc *a, uint32_t hprimary, uint32_t hsync,
                   uint64_t value, uint64_t tag, struct presented *out)
{
    struct kapi_present pr = {
        .source = 0, .hprimary = hprimary, .hsync = hsync, .value = value,
        .tag = tag, .fn = on_present, .arg = out,
    };

    return kapi_present(a->p, a->dev, &pr);
}

static const struct kalloc *alloc_of(struct proc *a, uint32_t h)
{
    return handle_lookup(&a->p->handles, h, HANDLE_ALLOCATION);
}

/* A present flips only once the GPU has finished the buffer that drew
 * the primary, and only from the DPC queue; its result comes at the
 * vsync it took effect at. */
static void test_present_waits_for_render(void)
{
    struct proc a;
    struct presented got = { 0 };
    struct kapi_display_info info;
    uint32_t prim;

    setup_display();
    make_proc(&a, "a");
    prim = make_primary(&a);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, prim, DW * 4 * DH), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(present(&a, prim, a.sync, 1, 77, &got), ==, DDI_OK);
    g_assert_cmpuint(fd.flips_set, ==, 0);      /* never from the call */
    run();
    g_assert_cmpuint(fd.flips_set, ==, 0);      /* the GPU has not drawn it */
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 0);
    gpu.hold = false;
    run();
    g_assert_cmpuint(fd.flips_set, ==, 1);
    g_assert_cmphex(fd.q[0].primary_addr, ==, alloc_of(&a, prim)->gpu);
    g_assert_cmpuint(got.calls, ==, 0);         /* not shown yet */
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_OK);
    g_assert_cmpuint(got.r[0].tag, ==, 77);
    g_assert_cmpuint(got.r[0].vsync, ==, 2);
    g_assert_cmpuint(got.r[0].missed, ==, 0);
    g_assert_cmpint(kapi_display_info(a.p, a.dev, 0, &info), ==, DDI_OK);
    g_assert_cmpuint(info.flips, ==, 1);
    g_assert_cmpuint(info.vsyncs, ==, 2);
    g_assert_cmpuint(info.width, ==, DW);
    g_assert_cmpuint(info.pitch, ==, DW * 4);
    g_assert_true(info.pointer);
}

/* Flips in order, one per vsync; a vblank without a new picture is
 * reported as missed by the next result, as the driver counts it. */
static void test_present_order_missed(void)
{
    struct proc a;
    struct presented got = { 0 };
    uint32_t p0, p1;

    setup_display();
    make_proc(&a, "a");
    p0 = make_primary(&a);
    p1 = make_primary(&a);
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    g_assert_cmpint(present(&a, p1, 0, 0, 2, &got), ==, DDI_OK);
    g_assert_cmpint(present(&a, p0, 0, 0, 3, &got), ==, DDI_OK);
    run();
    g_assert_cmpuint(fd.flips_set, ==, 3);
    g_assert_cmpuint(fd.q[0].present_id, <, fd.q[1].present_id);
    for (unsigned i = 0; i < 3; i++) {
        fake_vsync();
        run();
    }
    g_assert_cmpuint(got.calls, ==, 3);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpuint(got.r[i].tag, ==, i + 1);
        g_assert_cmpuint(got.r[i].vsync, ==, i + 1);
        g_assert_cmpuint(got.r[i].missed, ==, 0);
    }
    /* two vblanks with nothing new, then a present */
    fake_vsync();
    fake_vsync();
    run();
    g_assert_cmpint(present(&a, p1, 0, 0, 4, &got), ==, DDI_OK);
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 4);
    g_assert_cmpuint(got.r[3].vsync, ==, 6);
    g_assert_cmpuint(got.r[3].missed, ==, 2);
    g_assert_cmpuint(kern.display.src[0].stats.missed, ==, 2);
    g_assert_cmpuint(kern.display.src[0].stats.flips, ==, 4);
    g_assert_cmphex(fd.scanout, ==, alloc_of(&a, p1)->gpu);
}

/* The driver's queue is full: the present waits for a flip_done. */
static void test_present_driver_busy(void)
{
    struct proc a;
    struct presented got = { 0 };
    uint32_t p0;

    setup_display();
    fd.cap = 1;
    make_proc(&a, "a");
    p0 = make_primary(&a);
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    g_assert_cmpint(present(&a, p0, 0, 0, 2, &got), ==, DDI_OK);
    run();
    g_assert_cmpuint(fd.flips_set, ==, 1);
    fake_vsync();
    run();
    g_assert_cmpuint(fd.flips_set, ==, 2);
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_cmpuint(got.r[1].tag, ==, 2);
    g_assert_cmpuint(got.r[1].missed, ==, 0);
}

/* Every display call checks its handles and arguments and changes
 * nothing when it refuses. */
static void test_display_refusals(void)
{
    struct proc a, b;
    struct presented got = { 0 };
    struct kapi_display_info info;
    struct kapi_alloc_desc small = { .size = 64, .primary = true };
    struct kapi_pointer ptr = { .source = 0, .visible = true };
    struct kapi_present pr = { .source = 0, .fn = on_present, .arg = &got };
    uint32_t pa, pb, h;

    setup_display();
    make_proc(&a, "a");
    make_proc(&b, "b");
    pa = make_primary(&a);
    pb = make_primary(&b);
    /* another process's primary, sync and device */
    g_assert_cmpint(present(&a, pb, 0, 0, 1, &got), ==, DDI_EHANDLE);
    g_assert_cmpint(present(&a, pa, b.sync, 1, 1, &got), ==, DDI_EHANDLE);
    pr.hprimary = pa;
    g_assert_cmpint(kapi_present(a.p, b.dev, &pr), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_wait_vsync(a.p, b.dev, 0, on_vsync_count, NULL), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_display_info(a.p, b.dev, 0, &info), ==,
                    DDI_EHANDLE);
    ptr.hshape = b.buf;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_EHANDLE);
    /* wrong types */
    g_assert_cmpint(present(&a, a.sync, 0, 0, 1, &got), ==, DDI_EHANDLE);
    g_assert_cmpint(present(&a, pa, a.buf, 1, 1, &got), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_present(a.p, a.ctx, &pr), ==, DDI_EHANDLE);
    /* not a primary, too small, no callback, no such source */
    g_assert_cmpint(present(&a, a.buf, 0, 0, 1, &got), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &small, &h), ==,
                    DDI_EINVAL);
    pr.fn = NULL;
    g_assert_cmpint(kapi_present(a.p, a.dev, &pr), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_present(a.p, a.dev, NULL), ==, DDI_EINVAL);
    pr.fn = on_present;
    pr.source = 1;
    g_assert_cmpint(kapi_present(a.p, a.dev, &pr), ==, DDI_ENOTSUP);
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 1, on_vsync_count, NULL), ==,
                    DDI_ENOTSUP);
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, NULL, NULL), ==,
                    DDI_EINVAL);
    ptr.hshape = a.buf;             /* 4 KiB: smaller than a shape */
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, NULL), ==, DDI_EINVAL);
    /* stale */
    g_assert_cmpint(kapi_destroy_allocation(a.p, pa), ==, DDI_OK);
    g_assert_cmpint(present(&a, pa, 0, 0, 1, &got), ==, DDI_EHANDLE);
    run();
    g_assert_cmpuint(fd.flips_set, ==, 0);
    g_assert_cmpuint(fd.shape_calls, ==, 0);
    g_assert_cmpuint(kern.display.src[0].stats.presents, ==, 0);
    g_assert_cmpuint(got.calls, ==, 0);
    /* a process may queue half of it (its quota) ... */
    for (unsigned i = 0; i < KDISPLAY_QUEUE / 2; i++) {
        g_assert_cmpint(present(&b, pb, b.sync, 1, i, &got), ==, DDI_OK);
    }
    g_assert_cmpint(present(&b, pb, b.sync, 1, 99, &got), ==, DDI_EQUOTA);
    /* ... and the queue is bounded whatever the quotas */
    g_assert_cmpint(kquota_set_limit(&kern, b.p, KQ_PRESENTS,
                                     KDISPLAY_QUEUE), ==, DDI_OK);
    for (unsigned i = KDISPLAY_QUEUE / 2; i < KDISPLAY_QUEUE; i++) {
        g_assert_cmpint(present(&b, pb, b.sync, 1, i, &got), ==, DDI_OK);
    }
    g_assert_cmpint(present(&b, pb, b.sync, 1, 99, &got), ==, DDI_ENOMEM);
}

/* Without a display source on, the display calls say so. */
static void test_display_off(void)
{
    struct proc a;
    struct presented got = { 0 };
    struct kapi_display_info info;
    struct kapi_alloc_desc d = { .size = 1 << 16, .primary = true };
    uint32_t h;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                    DDI_ENOTSUP);
    g_assert_cmpint(present(&a, a.buf, 0, 0, 1, &got), ==, DDI_ENOTSUP);
    g_assert_cmpint(kapi_display_info(a.p, a.dev, 0, &info), ==,
                    DDI_ENOTSUP);
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, on_vsync_count, NULL), ==,
                    DDI_ENOTSUP);
}

static unsigned vsync_calls;
static uint64_t vsync_last;
static int vsync_status;

static void on_vsync_count(void *arg, int status, uint64_t vsyncs,
                           uint64_t time)
{
    (void)arg;
    (void)time;
    vsync_calls++;
    vsync_last = vsyncs;
    vsync_status = status;
}

/* The vsync event: one callback per wait, at the next vsync. */
static void test_vsync_event(void)
{
    struct proc a;

    setup_display();
    make_proc(&a, "a");
    vsync_calls = 0;
    fake_vsync();
    run();
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, on_vsync_count, NULL), ==,
                    DDI_OK);
    run();
    g_assert_cmpuint(vsync_calls, ==, 0);
    fake_vsync();
    g_assert_cmpuint(vsync_calls, ==, 0);       /* at passive level */
    run();
    g_assert_cmpuint(vsync_calls, ==, 1);
    g_assert_cmpuint(vsync_last, ==, 2);
    g_assert_cmpint(vsync_status, ==, DDI_OK);
    fake_vsync();
    run();
    g_assert_cmpuint(vsync_calls, ==, 1);       /* one-shot */
    /* a destroyed device's wait fails */
    g_assert_cmpint(kapi_wait_vsync(a.p, a.dev, 0, on_vsync_count, NULL), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(vsync_calls, ==, 2);
    g_assert_cmpint(vsync_status, ==, DDI_EHANDLE);
}

/* A primary on screen, or queued, outlives its handle; it goes once
 * another picture replaced it. */
static void test_scanout_keeps_primary(void)
{
    struct proc a;
    struct presented got = { 0 };
    uint32_t p0, p1;
    const struct kalloc *k0;
    unsigned before;

    setup_display();
    make_proc(&a, "a");
    p0 = make_primary(&a);
    p1 = make_primary(&a);
    k0 = alloc_of(&a, p0);
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_allocation(a.p, p0), ==, DDI_OK);
    before = kern.seg.count;
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_OK);
    g_assert_true(k0->used);                    /* on screen */
    g_assert_cmpuint(kern.seg.count, ==, before);
    g_assert_cmpint(present(&a, p1, 0, 0, 2, &got), ==, DDI_OK);
    run();
    g_assert_true(k0->used);                    /* until replaced */
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_false(k0->used);
    g_assert_cmpuint(kern.seg.count, ==, before - 1);
}

/* What cannot be shown is reported: a refused flip, a present whose sync
 * object is destroyed, a removed device's present. */
static void test_present_failures(void)
{
    struct proc a, b;
    struct presented got = { 0 }, gotb = { 0 };
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t p0, pb;

    setup_display();
    make_proc(&a, "a");
    make_proc(&b, "b");
    p0 = make_primary(&a);
    pb = make_primary(&b);
    g_assert_cmpint(kapi_set_source_owner(a.p, a.dev, 0), ==, DDI_OK);
    fd.refuse_next = true;
    g_assert_cmpint(present(&a, p0, 0, 0, 1, &got), ==, DDI_OK);
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_EINVAL);
    g_assert_cmpuint(kern.display.src[0].stats.refused, ==, 1);
    g_assert_cmpuint(alloc_of(&a, p0)->scanout, ==, 0);
    /* waiting on a sync object that goes away */
    g_assert_cmpint(present(&a, p0, a.sync, 5, 2, &got), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_destroy_sync(a.p, a.sync), ==, DDI_OK);
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_cmpint(got.r[1].status, ==, DDI_EHANDLE);
    g_assert_cmpuint(got.r[1].tag, ==, 2);
    /* b's context is blamed: its present waiting for the GPU fails */
    g_assert_cmpint(kapi_set_source_owner(b.p, b.dev, 0), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&b, b.ctx, pb, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(b.p, b.ctx, b.sync, 1), ==, DDI_OK);
    g_assert_cmpint(present(&b, pb, b.sync, 1, 3, &gotb), ==, DDI_OK);
    run();
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    g_assert_cmpuint(gotb.calls, ==, 1);
    g_assert_cmpint(gotb.r[0].status, ==, DDI_ELOST);
    g_assert_cmpuint(fd.flips_set, ==, 1);
}

static void test_pointer(void)
{
    struct proc a;
    struct kapi_alloc_desc d = { .size = DDI_POINTER_BYTES };
    struct kapi_pointer ptr = { .source = 0, .x = -3, .y = 9,
                                .visible = true };
    uint32_t s0, s1;

    setup_display();
    make_proc(&a, "a");
    kernel_process_grant(&kern, a.p, KAPI_PRIV_DISPLAY);
    g_assert_cmpint(kapi_set_source_owner(a.p, a.dev, 0), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &s0), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &s1), ==, DDI_OK);
    /* visible without a shape: nothing to show */
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_false(fd.pvis);
    ptr.hshape = s0;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_cmphex(fd.shape, ==, alloc_of(&a, s0)->gpu);
    g_assert_true(fd.pvis);
    g_assert_cmpint(fd.px, ==, -3);
    g_assert_cmpint(fd.py, ==, 9);
    g_assert_cmpuint(alloc_of(&a, s0)->scanout, ==, 1);
    ptr.hshape = s1;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_cmpuint(alloc_of(&a, s0)->scanout, ==, 0);
    g_assert_cmpuint(alloc_of(&a, s1)->scanout, ==, 1);
    ptr.hshape = 0;
    ptr.x = 5;
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_OK);
    g_assert_cmphex(fd.shape, ==, alloc_of(&a, s1)->gpu);
    g_assert_cmpint(fd.px, ==, 5);
    g_assert_cmpuint(fd.shape_calls, ==, 2);
}

/* A sync object shared with another process: it waits on it on the GPU,
 * and keeps it when the creator lets go. */
static void test_share_sync(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    uint32_t name = 0, h = 0, bad = 0;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_share_sync(a.p, b.sync, &name), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_share_sync(a.p, a.buf, &name), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, NULL), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    /* an allocation's name is not a sync object's, nor the reverse */
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &bad), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, bad, &h), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_sync(b.p, a.dev, name, &h), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name ^ 0x100, &h), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_OK);
    /* b's work waits for a's signal */
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 1);
    /* the creator lets go; b still waits on it and signals it */
    g_assert_cmpint(kapi_destroy_sync(a.p, a.sync), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 2, on_wait, &w), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(b.p, h, 2), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_sync(b.p, h), ==, DDI_OK);
    /* the name died with it */
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_EHANDLE);
}

/* ---- GPU-VA mode ---- */

#define GV_ALLOC    (64u << 10)
#define GV_VRAM     (4 * GV_ALLOC)

/* Fixed placement for the rest, GPU-VA mode with 4 allocations' worth of
 * VRAM and the page pool as backing store. */
static const char *start_gpuva(unsigned copy_engine)
{
    struct ddi_device dev = { .ops = &fg_gpuva_ops, .drv = &gpu };
    const struct kgpuva_config gc = {
        .vram_bytes = GV_VRAM, .aperture_base = 1ull << 40,
        .aperture_size = 4u << 20, .va_base = FV_VA_BASE,
        .va_size = FV_PAGES * 4096ull, .copy_engine = copy_engine,
        .pool = &pool,
    };
    struct vidsch_config cfg;
    const char *err;

    memset(&gpu, 0, sizeof(gpu));
    memset(&fd, 0, sizeof(fd));
    memset(&fp, 0, sizeof(fp));
    memset(&fv, 0, sizeof(fv));
    fd.cap = FD_QMAX;
    gpu.now = 1000;
    g_assert_true(page_pool_init(&pool, (uint64_t)(uintptr_t)poolmem,
                                 POOL_BYTES / 4096, pool_used));
    vidsch_config_default(&cfg);
    err = kernel_init(&kern, &dev, 0x10000, VRAM - 0x10000, vram + 0x10000,
                      &cfg, NULL, arena, sizeof(arena));
    g_assert_null(err);
    return kernel_gpuva_start(&kern, &gc);
}

static void setup_gpuva(void)
{
    g_assert_null(start_gpuva(1));
    /* the VRAM allocations are paged into: mapped in no space but
     * through their VAs */
    g_assert_cmpuint(kern.gpuva.vram_base, !=, 0);
}

/* GPU-VA mode's paging engine must be one of the device's: refused at
 * start with a reason (not every paging buffer refused later); engine
 * 0, which runs every packet, serves a device with one engine. */
static void test_gpuva_paging_engine(void)
{
    const char *err = start_gpuva(ENGINES);

    g_assert_nonnull(err);
    g_assert_nonnull(strstr(err, "paging engine"));
    g_assert_null(start_gpuva(0));
}

struct gv_app {
    struct kproc *p;
    uint32_t dev, ctx, sync;
    uint32_t h[8];
    uint64_t va[8];
    bool held[8];
    unsigned n;
    unsigned trims;
    uint64_t trim_bytes[8];
};

/* The trim callback: evict the lowest-numbered held allocation until the
 * bytes are released. */
static void gv_on_trim(void *arg, uint64_t bytes)
{
    struct gv_app *a = arg;
    uint64_t freed = 0;

    if (a->trims < 8) {
        a->trim_bytes[a->trims] = bytes;
    }
    a->trims++;
    for (unsigned i = 0; i < a->n && freed < bytes; i++) {
        if (a->held[i]) {
            g_assert_cmpint(kapi_evict(a->p, a->dev, &a->h[i], 1, NULL), ==,
                            DDI_OK);
            a->held[i] = false;
            freed += GV_ALLOC;
        }
    }
}

static void gv_make(struct gv_app *a, const char *name, unsigned n,
                    uint64_t budget)
{
    struct kapi_alloc_desc d = { .size = GV_ALLOC, .cpu_visible = true,
                                 .zeroed = true };

    memset(a, 0, sizeof(*a));
    a->n = n;
    a->p = kapi_process_create(&kern, name);
    g_assert_nonnull(a->p);
    /* budget and trim callback need the process's GPU-VA record */
    g_assert_cmpint(kapi_set_budget(a->p, budget), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_create_device_gpuva(a->p, &a->dev), ==, DDI_OK);
    g_assert_cmpint(kapi_create_context(a->p, a->dev, 0, VIDSCH_PRIO_NORMAL,
                                        &a->ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(a->p, a->dev, 0, &a->sync), ==, DDI_OK);
    g_assert_cmpint(kapi_set_budget(a->p, budget), ==, DDI_OK);
    g_assert_cmpint(kapi_set_trim_callback(a->p, gv_on_trim, a), ==, DDI_OK);
    for (unsigned i = 0; i < n; i++) {
        g_assert_cmpint(kapi_create_allocation(a->p, a->dev, &d, &a->h[i]),
                        ==, DDI_OK);
        g_assert_cmpint(kapi_gpu_va(a->p, a->h[i], &a->va[i]), ==, DDI_OK);
    }
    /* the aperture mappings' paging buffers (the fake builds a packet
     * for every MAP) retire: MakeResident wants free paging buffers */
    run();
}

/* [the session manager] a's quota of referenced GPU-VA VRAM raised to
 * all of it (by default half: kquota.h), its budget with it: for tests
 * of residency itself with one process filling the VRAM. */
static void gv_allow_all(struct gv_app *a)
{
    g_assert_cmpint(kquota_set_limit(&kern, a->p, KQ_GPUVA_VRAM,
                                     kern.gpuva.res.capacity), ==, DDI_OK);
    g_assert_cmpint(kapi_set_budget(a->p, 0), ==, DDI_OK);
}

static int gv_resident(struct gv_app *a, unsigned i, uint64_t *fence)
{
    int st = kapi_make_resident(a->p, a->dev, &a->h[i], 1, fence);

    if (st == DDI_OK) {
        a->held[i] = true;
    }
    return st;
}

/* The fake page table's view of allocation i: every page on VRAM,
 * consecutive, inside the VRAM GPU-VA mode pages into; or every
 * page invalid. */
static bool gv_mapped(const struct gv_app *a, unsigned i, uint64_t *vram)
{
    uint64_t first = (a->va[i] - FV_VA_BASE) / 4096;
    uint32_t t = fv.target[first];

    for (uint64_t p = 0; p < GV_ALLOC / 4096; p++) {
        g_assert_true(fv.reserved[first + p]);
        g_assert_cmpuint(fv.target[first + p], ==, t);
        if (t == DDI_PTE_VRAM) {
            g_assert_cmpuint(fv.frame[first + p], ==,
                             fv.frame[first] + p * 4096);
        }
    }
    if (t == DDI_PTE_VRAM) {
        g_assert_cmpuint(fv.frame[first], >=, kern.gpuva.vram_base);
        g_assert_cmpuint(fv.frame[first] + GV_ALLOC, <=,
                         kern.gpuva.vram_base + kern.gpuva.vram.size);
        *vram = fv.frame[first];
        return true;
    }
    g_assert_cmpuint(t, ==, DDI_PTE_INVALID);
    return false;
}

static int gv_render_va(struct gv_app *a, uint64_t va)
{
    struct kapi_render_args r;

    umd_init(&cb, cmd, sizeof(cmd));
    umd_va_fill(&cb, va, 4096, 0x5a5a5a5a);
    r = (struct kapi_render_args){
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
    };
    return kapi_render(a->p, a->ctx, &r);
}

static void test_gpuva_budget_trim(void)
{
    struct gv_app a;
    uint64_t f0 = 0, f1 = 0, f2 = 0, v0, v1, v2, va0, budget, usage;
    volatile void *cpu;

    setup_gpuva();
    gv_make(&a, "a", 3, 2 * GV_ALLOC);
    g_assert_cmpuint(fv.binds, ==, 1);
    /* VAs for life: distinct, non-zero, above the OS's VRAM; nothing
     * mapped until MakeResident */
    g_assert_cmpuint(a.va[0], >=, FV_VA_BASE);
    g_assert_cmpuint(a.va[1], >=, a.va[0] + GV_ALLOC);
    g_assert_false(gv_mapped(&a, 0, &v0));
    va0 = a.va[0];

    g_assert_cmpint(gv_resident(&a, 0, &f0), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a, 1, &f1), ==, DDI_OK);
    g_assert_cmpuint(f0, >, 0);
    g_assert_cmpuint(f1, >, f0);
    g_assert_true(gv_mapped(&a, 0, &v0));
    g_assert_true(gv_mapped(&a, 1, &v1));
    g_assert_cmpuint(v0, !=, v1);
    g_assert_cmpuint(a.trims, ==, 0);
    g_assert_cmpint(kapi_query_video_memory(a.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(budget, ==, 2 * GV_ALLOC);
    g_assert_cmpuint(usage, ==, 2 * GV_ALLOC);

    /* a third one takes it over budget: trimmed for exactly the excess;
     * what it evicted is paged out and unmapped, under the same VA */
    g_assert_cmpint(gv_resident(&a, 2, &f2), ==, DDI_OK);
    g_assert_cmpuint(a.trims, ==, 1);
    g_assert_cmpuint(a.trim_bytes[0], ==, GV_ALLOC);
    g_assert_false(a.held[0]);
    g_assert_false(gv_mapped(&a, 0, &v0));
    g_assert_true(gv_mapped(&a, 2, &v2));
    g_assert_cmpint(kapi_gpu_va(a.p, a.h[0], &a.va[0]), ==, DDI_OK);
    g_assert_cmpuint(a.va[0], ==, va0);
    g_assert_cmpint(kapi_query_video_memory(a.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, 2 * GV_ALLOC);
    /* a lock needs a reference (it may move otherwise) */
    g_assert_cmpint(kapi_lock(a.p, a.h[0], KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_EBUSY);
    g_assert_cmpint(kapi_lock(a.p, a.h[2], KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_lock(a.p, a.h[2], KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_true(cpu == (volatile void *)(vram + v2));
    g_assert_cmpint(kapi_unlock(a.p, a.h[2]), ==, DDI_OK);
    run();
    /* one paging fence value per paging buffer, all retired */
    g_assert_cmpuint(kern.gpuva.fence_done, ==, kern.gpuva.fence_issued);
    g_assert_cmpuint(kern.gpuva.stats.page_outs, ==, 1);
    g_assert_cmpuint(kern.gpuva.stats.page_ins, ==, 3);
}

/* MakeResident's paging fence holds the context's next buffer until the
 * paging buffer retired (kapi_wait_paging), and GPU-VA buffers carry no
 * lists. */
static void test_gpuva_paging_hold(void)
{
    struct gv_app a;
    uint64_t f = 0;
    struct kapi_render_args bad;

    setup_gpuva();
    gv_make(&a, "a", 1, 0);
    run();
    gpu.hold = true;
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpuint(f, >, 0);
    g_assert_cmpint(kapi_wait_paging(a.p, a.ctx, f + 1), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_wait_paging(a.p, a.ctx, f), ==, DDI_OK);
    g_assert_cmpint(gv_render_va(&a, a.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[1], >, 0);     /* the paging buffer */
    g_assert_cmpuint(gpu.nq[0], ==, 0);    /* the render buffer: held */
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.gpuva.fence_done, ==, f);
    g_assert_cmpuint(kern.stats.buffers_done, ==, 1);
    /* an allocation list on a GPU-VA context: refused */
    umd_init(&cb, cmd, sizeof(cmd));
    umd_fill(&cb, a.h[0], 0, 64, 1);
    bad = (struct kapi_render_args){
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
        .alloc = cb.alloc, .nalloc = cb.nalloc, .patch = cb.patch,
        .npatch = cb.npatch,
    };
    g_assert_cmpint(kapi_render(a.p, a.ctx, &bad), ==, DDI_EINVAL);
    /* already reached: nothing to hold */
    g_assert_cmpint(kapi_wait_paging(a.p, a.ctx, f), ==, DDI_OK);
}

static void test_gpuva_refs_and_enomem(void)
{
    struct gv_app a, b;
    struct proc c;
    uint64_t f = 0, budget, usage, u0;
    uint32_t all[5];

    setup_gpuva();
    gv_make(&a, "a", 2, 0);
    gv_make(&b, "b", 5, 0);
    /* two MakeResident need two Evict; a third is refused */
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==,
                    DDI_EINVAL);
    /* a's other one resident too, unreferenced as well */
    g_assert_cmpint(gv_resident(&a, 1, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[1], 1, NULL), ==, DDI_OK);
    /* another process's handle or device; a device without GPU-VA */
    g_assert_cmpint(kapi_make_resident(a.p, a.dev, &b.h[0], 1, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_make_resident(a.p, b.dev, &a.h[0], 1, &f), ==,
                    DDI_EHANDLE);
    make_proc(&c, "c");
    g_assert_cmpint(kapi_make_resident(c.p, c.dev, &c.buf, 1, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_gpu_va(c.p, c.buf, &f), ==, DDI_EINVAL);
    /* b may reference all of the VRAM but a's guarantee: 5 at once
     * (more than the VRAM) is over its quota, 4 (all of it) would take
     * a's guarantee: both refused whole, nothing changed */
    gv_allow_all(&b);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &u0), ==, DDI_OK);
    memcpy(all, b.h, sizeof(all));
    g_assert_cmpint(kapi_make_resident(b.p, b.dev, all, 5, &f), ==,
                    DDI_EQUOTA);
    g_assert_cmpint(kapi_make_resident(b.p, b.dev, all, 4, &f), ==,
                    DDI_ENOMEM);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, u0);
    g_assert_cmpint(kapi_evict(b.p, b.dev, &all[0], 1, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpuint(kern.gpuva.stats.enomem, ==, 1);
    g_assert_cmpuint(b.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    /* 3 fit (one of a's unreferenced ones is taken back from it) */
    g_assert_cmpint(kapi_make_resident(b.p, b.dev, all, 3, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, 3 * GV_ALLOC);
    g_assert_cmpuint(b.p->quota.used[KQ_GPUVA_VRAM], ==, 3 * GV_ALLOC);
    g_assert_cmpint(kapi_query_video_memory(a.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, GV_ALLOC);
    /* everything goes: every backing page back once the GPU is done */
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_device(b.p, b.dev), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_device(c.p, c.dev), ==, DDI_OK);
    run();
    g_assert_cmpuint(fv.unbinds, ==, fv.binds);
    g_assert_cmpuint(pool.free, ==, pool.pages);
    g_assert_cmpuint(kern.gpuva.res.used, ==, 0);
    g_assert_cmpuint(vidmm_segment_used_bytes(&kern.gpuva.vram), ==, 0);
}

/* One MakeResident's moves are one paging buffer; with every paging
 * buffer on the GPU, MakeResident is DDI_EBUSY and changes nothing, and
 * works again once they retired. */
static void test_gpuva_batch_busy(void)
{
    struct gv_app a;
    uint64_t f = 0, budget, usage, u0, bufs, outs, ins;
    unsigned i, busy_at = 0;
    int st = DDI_OK;

    setup_gpuva();
    gv_make(&a, "a", 2, GV_ALLOC);
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    run();
    gpu.hold = true;
    for (i = 1; i < 2 * KGPUVA_MAX_PAGING && st == DDI_OK; i++) {
        bufs = kern.gpuva.stats.paging_buffers;
        outs = kern.gpuva.stats.page_outs;
        ins = kern.gpuva.stats.page_ins;
        kapi_query_video_memory(a.p, &budget, &u0);
        /* over budget: the other is trimmed (out) and this one comes in,
         * both in one buffer */
        st = gv_resident(&a, i % 2, &f);
        if (st == DDI_OK) {
            g_assert_cmpuint(kern.gpuva.stats.paging_buffers, ==, bufs + 1);
            g_assert_cmpuint(kern.gpuva.stats.page_outs, ==, outs + 1);
            g_assert_cmpuint(kern.gpuva.stats.page_ins, ==, ins + 1);
            g_assert_cmpuint(f, ==, kern.gpuva.fence_issued);
        } else {
            busy_at = i;
        }
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(busy_at, >, 1);
    kapi_query_video_memory(a.p, &budget, &usage);
    g_assert_cmpuint(usage, ==, u0);
    g_assert_false(a.held[busy_at % 2]);
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.gpuva.fence_done, ==, kern.gpuva.fence_issued);
    g_assert_cmpint(gv_resident(&a, busy_at % 2, &f), ==, DDI_OK);
}

/* An allocation evicted while the process's work is in flight is not
 * paged out under it: a MakeResident that needs its memory is DDI_EBUSY
 * until that work retired. */
static void test_gpuva_evict_in_use(void)
{
    struct gv_app a;
    uint64_t f = 0, v;

    setup_gpuva();
    gv_make(&a, "a", 5, 0);
    gv_allow_all(&a);
    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmpint(gv_resident(&a, i, &f), ==, DDI_OK);
    }
    run();
    gpu.hold = true;
    g_assert_cmpint(gv_render_va(&a, a.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==, DDI_OK);
    a.held[0] = false;
    g_assert_cmpint(gv_resident(&a, 4, &f), ==, DDI_EBUSY);
    g_assert_true(gv_mapped(&a, 0, &v));
    g_assert_false(gv_mapped(&a, 4, &v));
    gpu.hold = false;
    run();
    g_assert_cmpint(gv_resident(&a, 4, &f), ==, DDI_OK);
    g_assert_false(gv_mapped(&a, 0, &v));
    g_assert_true(gv_mapped(&a, 4, &v));
}

/* ---- limits and lifetimes (issue 15 items 5, 11, 12) ---- */

/* Everything the kernel holds must end where it started. */
static void take_census(struct kernel_census *c)
{
    kernel_census(&kern, c);
}

static void assert_census(const struct kernel_census *want)
{
    struct kernel_census now;

    kernel_census(&kern, &now);
    g_assert_cmpstr(kernel_census_diff(&now, want), ==, "");
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* A hostile process's buffers held behind a GPU wait that never
 * completes: it runs into its own limit (throttled: DDI_EBUSY, its
 * buffers in flight hold the records), its throttle wait never ends
 * while they are held, and a HIGH process can still render, wait, signal
 * and create contexts and sync objects. Before quotas it took every
 * DMA-buffer record and the HIGH process got DDI_ENOMEM everywhere. */
static void test_quota_held_buffers(void)
{
    struct proc evil, high;
    struct waited w = { 0 }, ew = { 0 };
    uint32_t never, ctx, sync;
    unsigned n = 0;
    int st = DDI_OK;

    setup();
    make_proc(&evil, "evil");
    make_proc(&high, "high");
    g_assert_cmpint(kapi_create_sync(evil.p, evil.dev, 0, &never), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(evil.p, evil.ctx, never, 1), ==, DDI_OK);
    while (n < 2 * KERNEL_MAX_BUFFERS &&
           (st = fill(&evil, evil.ctx, evil.buf, 64)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, KERNEL_MAX_BUFFERS / 2);
    g_assert_cmpuint(n, ==, evil.p->quota.used[KQ_BUFFERS]);
    g_assert_cmpint(kapi_wait_throttle(evil.p, on_wait, &ew), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, 0);
    g_assert_cmpuint(ew.calls, ==, 0);      /* nothing of it retired */
    /* the victim: every call works */
    g_assert_cmpint(kapi_create_context(high.p, high.dev, 0,
                                        VIDSCH_PRIO_HIGH, &ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(high.p, high.dev, 0, &sync), ==,
                    DDI_OK);
    g_assert_cmpint(fill(&high, ctx, high.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(high.p, ctx, sync, 1), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(high.p, sync, 1, on_wait, &w), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(high.p, high.ctx, sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpuint(gpu.submits, ==, 1);
    /* the evil one gets its buffers back when it lets go, and its
     * throttle wait is over */
    g_assert_cmpint(kapi_signal_cpu(evil.p, never, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(ew.calls, ==, 1);
    g_assert_cmpint(ew.status, ==, DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_BUFFERS], ==, 0);
    g_assert_cmpuint(evil.p->quota.used[KQ_KVRAM], >, 0);   /* its save
                                                               area */
}

/* Back-pressure (kernel/kthrottle.h): a process at its limit of DMA
 * buffers in flight is throttled (DDI_EBUSY), not failed; its throttle
 * wait ends when one of its buffers retires and the call then succeeds.
 * The same for GPU signal slots. A process with nothing in flight is not
 * throttled: it fails with the pool's code, and its wait is over at
 * once. Before, the 49th render of a process whose frames were queued
 * behind a long buffer failed with DDI_EQUOTA (the hog bench). */
static void test_throttle_room(void)
{
    struct proc a, idle;
    struct waited w = { 0 }, w2 = { 0 };
    unsigned n = 0;
    int st;

    setup();
    make_proc(&a, "frames");
    make_proc(&idle, "idle");
    gpu.hold = true;            /* everything stays in flight */
    while (n < 2 * KERNEL_MAX_BUFFERS &&
           (st = fill(&a, a.ctx, a.buf, 64)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, a.p->quota.limit[KQ_BUFFERS]);
    g_assert_cmpuint(kern.stats.quota_refusals, >, 0);
    g_assert_cmpuint(kern.stats.throttled, ==, 1);
    g_assert_cmpint(kapi_wait_throttle(a.p, on_wait, &w), ==, DDI_OK);
    /* GPU signals: throttled the same way once their slots are used */
    for (n = 0; (st = kapi_signal_gpu(a.p, a.ctx, a.sync, 1)) == DDI_OK;
         n++) {
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, a.p->quota.limit[KQ_GPU_SYNCS]);
    run();
    g_assert_cmpuint(w.calls, ==, 0);       /* nothing retired yet */
    gpu.hold = false;
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 2), ==, DDI_OK);
    run();
    /* nothing in flight: waiting would never make room, so no throttle */
    g_assert_cmpint(kquota_set_limit(&kern, idle.p, KQ_BUFFERS, 0), ==,
                    DDI_OK);
    g_assert_cmpint(fill(&idle, idle.ctx, idle.buf, 64), ==, DDI_EQUOTA);
    g_assert_cmpint(kapi_wait_throttle(idle.p, on_wait, &w2), ==, DDI_OK);
    run();
    g_assert_cmpuint(w2.calls, ==, 1);      /* over at once */
    g_assert_cmpint(fill(&idle, idle.ctx, idle.buf, 64), ==, DDI_EQUOTA);
    g_assert_cmpint(kapi_wait_throttle(idle.p, NULL, NULL), ==, DDI_EINVAL);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* A throttled process cannot freeze another: a hostile process holds
 * its whole limit of buffers behind a GPU wait that never completes and
 * keeps asking (throttled, its wait never over); a victim queues past
 * its own share (throttled too) and its throttle wait ends when its own
 * buffers retire, every time; a process created before them still gets
 * its guarantee at once. */
static void test_throttle_no_freeze(void)
{
    struct proc evil, victim, late;
    struct waited ew = { 0 }, vw = { 0 };
    unsigned n = 0, rounds = 0;
    uint32_t never;
    int st;

    setup();
    make_proc(&late, "late");
    make_proc(&evil, "evil");
    make_proc(&victim, "victim");
    g_assert_cmpint(kapi_create_sync(evil.p, evil.dev, 0, &never), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(evil.p, evil.ctx, never, 1), ==, DDI_OK);
    while (n < 2 * KERNEL_MAX_BUFFERS &&
           (st = fill(&evil, evil.ctx, evil.buf, 64)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpint(kapi_wait_throttle(evil.p, on_wait, &ew), ==, DDI_OK);
    /* the victim: 200 buffers through its share, throttled when full */
    gpu.hold = true;
    for (n = 0; n < 200 && rounds < 100;) {
        st = fill(&victim, victim.ctx, victim.buf, 64);
        if (st == DDI_OK) {
            n++;
            continue;
        }
        g_assert_cmpint(st, ==, DDI_EBUSY);
        g_assert_cmpuint(victim.p->quota.used[KQ_BUFFERS], >, 0);
        vw.calls = 0;
        g_assert_cmpint(kapi_wait_throttle(victim.p, on_wait, &vw), ==,
                        DDI_OK);
        /* the evil one asks again meanwhile: still throttled */
        g_assert_cmpint(fill(&evil, evil.ctx, evil.buf, 64), ==, DDI_EBUSY);
        if (rounds == 0) {
            /* full table: the late process's guarantee is still its */
            g_assert_cmpint(fill(&late, late.ctx, late.buf, 64), ==,
                            DDI_OK);
        }
        gpu.hold = false;
        run();
        gpu.hold = true;
        g_assert_cmpuint(vw.calls, ==, 1);
        g_assert_cmpint(vw.status, ==, DDI_OK);
        rounds++;
    }
    gpu.hold = false;
    run();
    g_assert_cmpuint(n, ==, 200);
    g_assert_cmpuint(rounds, >, 1);
    g_assert_cmpuint(ew.calls, ==, 0);      /* its own never retired */
    g_assert_cmpuint(victim.p->quota.used[KQ_BUFFERS], ==, 0);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Every pool has a limit per process, and only that process is refused:
 * CPU waits, GPU signal slots, sync objects, contexts, allocations,
 * devices; each refusal is DDI_EQUOTA. */
static void test_quota_every_pool(void)
{
    struct proc evil, good;
    struct waited w = { 0 };
    uint32_t h, hs[KERNEL_MAX_ALLOCS];
    unsigned n;
    int st;

    setup();
    make_proc(&evil, "evil");
    make_proc(&good, "good");
    for (n = 0; (st = kapi_wait_cpu(evil.p, evil.sync, 1, on_wait, &w)) ==
                DDI_OK; n++) {
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_WAITS / 2);
    g_assert_cmpint(kapi_wait_cpu(good.p, good.sync, 1, on_wait, &w), ==,
                    DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&evil, evil.ctx, evil.buf, 64), ==, DDI_OK);
    for (n = 0; (st = kapi_signal_gpu(evil.p, evil.ctx, evil.sync, 1)) ==
                DDI_OK; n++) {
    }
    /* its buffer and signals in flight: throttled, not refused */
    g_assert_cmpint(st, ==, DDI_EBUSY);
    g_assert_cmpuint(n, ==, kern.quota_pool[KQ_GPU_SYNCS] / 2);
    g_assert_cmpint(kapi_signal_gpu(good.p, good.ctx, good.sync, 1), ==,
                    DDI_OK);
    for (n = 1; (st = kapi_create_sync(evil.p, evil.dev, 0, &h)) == DDI_OK;
         n++) {
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_SYNCS / 2);
    g_assert_cmpint(kapi_create_sync(good.p, good.dev, 0, &h), ==, DDI_OK);
    for (n = 1; (st = kapi_create_context(evil.p, evil.dev, 0,
                                          VIDSCH_PRIO_IDLE, &h)) == DDI_OK;
         n++) {
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_CONTEXTS / 2);
    g_assert_cmpint(kapi_create_context(good.p, good.dev, 0,
                                        VIDSCH_PRIO_HIGH, &h), ==, DDI_OK);
    /* (a process of its own: the others' handle tables are full) */
    make_proc(&evil, "hoarder");
    for (n = 1; n < KERNEL_MAX_ALLOCS; n++) {
        struct kapi_alloc_desc d = { .size = 64 };

        st = kapi_create_allocation(evil.p, evil.dev, &d, &hs[n]);
        if (st != DDI_OK) {
            break;
        }
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_ALLOCS / 2);
    g_assert_cmpint(kapi_create_allocation(good.p, good.dev,
                    &(struct kapi_alloc_desc){ .size = 64 }, &h), ==,
                    DDI_OK);
    /* the kernel's VRAM: fixed placement, half the segment at most */
    g_assert_cmpint(kapi_create_allocation(evil.p, evil.dev,
                    &(struct kapi_alloc_desc){ .size = kern.seg.size * 3 / 5 },
                    &h), ==, DDI_EQUOTA);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Beyond its limit nobody takes another's guarantee: three hostile
 * processes each up to their limit leave a fourth its share of every
 * pool. The ones that asked late get DDI_ENOMEM, never the victim. */
static void test_quota_guarantee(void)
{
    struct proc evil[3], victim;
    unsigned guarantee = KERNEL_MAX_BUFFERS / KERNEL_MAX_PROCS;
    uint32_t never;

    setup();
    make_proc(&victim, "victim");
    for (unsigned i = 0; i < 3; i++) {
        int st;

        make_proc(&evil[i], "evil");
        g_assert_cmpint(kapi_create_sync(evil[i].p, evil[i].dev, 0, &never),
                        ==, DDI_OK);
        g_assert_cmpint(kapi_wait_gpu(evil[i].p, evil[i].ctx, never, 1), ==,
                        DDI_OK);
        while ((st = fill(&evil[i], evil[i].ctx, evil[i].buf, 64)) ==
               DDI_OK) {
        }
        /* throttled: its buffers in flight hold what it asks for */
        g_assert_cmpint(st, ==, DDI_EBUSY);
    }
    for (unsigned i = 0; i < guarantee; i++) {
        g_assert_cmpint(fill(&victim, victim.ctx, victim.buf, 64), ==,
                        DDI_OK);
    }
}

/* Primaries are pinned in VRAM for life: charged to their creator as
 * pinned VRAM (an IDLE process pinned 13 MiB and a HIGH process's
 * context went into error); beyond its limit DDI_EQUOTA, another
 * process still pins its own, and what is freed comes back. */
static void test_quota_pinned(void)
{
    struct proc a, b;
    struct kapi_alloc_desc d = { .size = DW * 4 * DH, .primary = true };
    uint32_t h[5], hb;

    setup_vidmm();
    g_assert_null(kdisplay_start(&kern, 0, DW, DH));
    run();
    make_proc(&a, "pinner");
    make_proc(&b, "victim");
    /* the default: half of the pinned pool, itself half of vidmm's VRAM
     * (all processes' pins leave the other half to residency) */
    g_assert_cmpuint(a.p->quota.limit[KQ_PINNED], ==, VMSEG / 4);
    g_assert_cmpint(kquota_set_limit(&kern, a.p, KQ_PINNED, 4 * d.size), ==,
                    DDI_OK);
    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h[i]), ==,
                        DDI_OK);
    }
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h[4]), ==,
                    DDI_EQUOTA);
    g_assert_cmpint(kapi_create_allocation(b.p, b.dev, &d, &hb), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_allocation(a.p, h[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h[4]), ==,
                    DDI_OK);
    g_assert_cmpuint(a.p->quota.used[KQ_PINNED], ==, 4 * d.size);
}

/* Destroying a device closes the shared allocations and sync objects
 * opened on it (they leaked: the creator's reference count never came
 * back). */
static void test_destroy_device_opened(void)
{
    struct proc a, b;
    uint32_t name, sname, h, hs;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &sname), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, sname, &hs), ==, DDI_OK);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->refs, ==, 2);
    g_assert_cmpint(kapi_destroy_device(b.p, b.dev), ==, DDI_OK);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->refs, ==, 1);
    g_assert_cmpuint(((struct ksync *)handle_lookup(&a.p->handles, a.sync,
                                                    HANDLE_SYNC))->refs,
                     ==, 1);
    g_assert_cmpuint(b.p->handles.used, ==, 0);
}

/* A lock cannot be held for ever against the others: the locks a process
 * took through a handle go when the handle is closed or the process
 * exits (an opener that locked a shared allocation and died left it
 * pinned: vidmm could never move it again). */
static void test_exit_releases_locks(void)
{
    struct proc a, b;
    struct waited w = { 0 };
    volatile void *cpu;
    uint32_t name, h;

    setup();
    make_proc(&a, "a");
    make_proc(&b, "b");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 2);
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 0);
    /* a's own lock is a's, closed with its handle */
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_DONOTWAIT, &cpu), ==,
                    DDI_OK);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 1);
}

/* GPU-VA mode: a process with resident allocations exits; its residency
 * and backing go back, and the next process of its slot takes its
 * address space instead of asking the driver for a new one (page tables
 * are not leaked per process). */
static void test_exit_gpuva(void)
{
    struct gv_app a, b;
    struct kernel_census start;
    uint64_t f = 0, budget, usage;

    setup_gpuva();
    take_census(&start);
    gv_make(&a, "a", 3, 0);
    g_assert_cmpint(gv_resident(&a, 0, &f), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a, 1, &f), ==, DDI_OK);
    run();
    g_assert_cmpuint(fv.spaces, ==, 1);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1);
    g_assert_cmpuint(kern.gpuva.stats.spaces_recycled, ==, 1);
    assert_census(&start);
    g_assert_cmpuint(kern.gpuva.res.used, ==, 0);
    gv_make(&b, "b", 3, 0);
    g_assert_cmpuint(fv.spaces, ==, 1);     /* a's, taken again */
    g_assert_cmpint(gv_resident(&b, 2, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_query_video_memory(b.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(usage, ==, GV_ALLOC);  /* nothing of a's counted */
}

/* vidmm for applications' allocations and GPU-VA mode together, as the
 * firmware boots them: GPU-VA views of vidmm's allocations
 * (kapi_map_gpu_va, kernel/kvamap.h). */
static void setup_gpuva_vidmm(void)
{
    struct ddi_device dev = { .ops = &fg_gpuva_ops, .drv = &gpu };
    struct kernel_vidmm_config vc = {
        .kernel_bytes = 4 * KSEG, .aperture_base = 1ull << 40,
        .aperture_size = 4u << 20, .copy_engine = 1, .pool = &pool,
    };
    const struct kgpuva_config gc = {
        .vram_bytes = GV_VRAM, .aperture_base = (1ull << 40) + (4u << 20),
        .aperture_size = 4u << 20, .va_base = FV_VA_BASE,
        .va_size = FV_PAGES * 4096ull, .copy_engine = 1, .pool = &pool,
    };
    struct vidsch_config cfg;
    const char *err;

    memset(&gpu, 0, sizeof(gpu));
    memset(&fd, 0, sizeof(fd));
    memset(&fp, 0, sizeof(fp));
    memset(&fv, 0, sizeof(fv));
    fd.cap = FD_QMAX;
    gpu.now = 1000;
    g_assert_true(page_pool_init(&pool, (uint64_t)(uintptr_t)poolmem,
                                 POOL_BYTES / 4096, pool_used));
    vidsch_config_default(&cfg);
    g_assert_cmpuint(kernel_arena_bytes(&vc), <=, sizeof(arena));
    err = kernel_init(&kern, &dev, 0x10000, 4 * KSEG + VMSEG,
                      vram + 0x10000, &cfg, &vc, arena, sizeof(arena));
    g_assert_null(err);
    err = kernel_gpuva_start(&kern, &gc);
    g_assert_null(err);
}

/* The fake page table over [va, + bytes): every page `target`, onto
 * consecutive frames from `frame`, writable as asked. */
static void assert_view(uint64_t va, uint64_t bytes, uint32_t target,
                        uint64_t frame, bool writable)
{
    for (uint64_t a = va; a < va + bytes; a += 4096) {
        uint64_t i = (a - FV_VA_BASE) / 4096;

        g_assert_cmpuint(i, <, FV_PAGES);
        g_assert_true(fv.reserved[i]);
        g_assert_cmpuint(fv.target[i], ==, target);
        if (target != DDI_PTE_INVALID) {
            g_assert_cmpuint(fv.frame[i], ==, frame + (a - va));
            g_assert_cmpint(fv.writable[i], ==, writable);
        }
    }
}

/*
 * A GPU-VA view of an allocation of a packet-based device: its owner's
 * (writable), one shared with another process read-only (read-only on
 * the GPU too); refused for what it cannot be; gone with the handle, the
 * allocation freed only once every view's invalidation retired and
 * nothing of either process left behind.
 */
static void test_gpuva_view(void)
{
    struct kapi_alloc_desc d = { .size = GV_ALLOC, .cpu_visible = true,
                                 .zeroed = true };
    struct kernel_census start;
    struct kproc *a, *b;
    uint32_t da, ga, ha, ha2, hgv, db, gb, hb, name, hs[2];
    uint64_t va, vas[2], vb, f, f2, vram, bufs;
    struct vidmm_alloc_state vs;
    struct kalloc *al;

    setup_gpuva_vidmm();
    take_census(&start);
    a = kapi_process_create(&kern, "a");
    b = kapi_process_create(&kern, "b");
    g_assert_cmpint(kapi_create_device(a, &da), ==, DDI_OK);
    g_assert_cmpint(kapi_create_device_gpuva(a, &ga), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a, da, &d, &ha), ==, DDI_OK);
    g_assert_cmpint(kapi_create_allocation(a, ga, &d, &hgv), ==, DDI_OK);
    run();
    /* refused: not a GPU-VA device, a GPU-VA allocation, bad handles,
     * pointers and counts; nothing changed */
    g_assert_cmpint(kapi_map_gpu_va(a, da, &ha, 1, &va, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &hgv, 1, &va, &f), ==,
                    DDI_EINVAL);
    hs[0] = ha;
    hs[1] = 0x7fff0001;
    g_assert_cmpint(kapi_map_gpu_va(a, ga, hs, 2, vas, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_map_gpu_va(a, 0x7fff0001, &ha, 1, &va, &f), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, NULL, 1, &va, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 1, NULL, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 1, &va, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 0, &va, &f), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, KVAMAP_MAX + 1, &va, &f),
                    ==, DDI_EINVAL);
    g_assert_cmpint(kapi_map_gpu_va(b, ga, &ha, 1, &va, &f), ==,
                    DDI_EHANDLE);
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        g_assert_false(kern.vamaps[i].used);
    }
    /* the owner's view: pinned where it is in VRAM, writable */
    g_assert_cmpint(kapi_map_gpu_va(a, ga, &ha, 1, &va, &f), ==, DDI_OK);
    g_assert_cmpuint(f, >, 0);
    al = handle_lookup(&a->handles, ha, HANDLE_ALLOCATION);
    g_assert_nonnull(al);
    g_assert_cmpint(vidmm_alloc_state(kern.vm, al->vm, &vs), ==, DDI_OK);
    g_assert_cmpuint(vs.where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vs.pin, ==, 1);        /* the view's: it stays */
    vram = vs.gpu_addr;
    assert_view(va, GV_ALLOC, DDI_PTE_VRAM, vram, true);
    /* charged to the viewer: the view and the bytes it pins */
    g_assert_cmpuint(a->quota.used[KQ_VIEWS], ==, 1);
    g_assert_cmpuint(a->quota.used[KQ_PINNED], ==, GV_ALLOC);
    /* again, with a second one in the same call: the same VA, and one
     * paging buffer for the new view */
    g_assert_cmpint(kapi_create_allocation(a, da, &d, &ha2), ==, DDI_OK);
    hs[0] = ha;
    hs[1] = ha2;
    bufs = kern.gpuva.stats.paging_buffers;
    g_assert_cmpint(kapi_map_gpu_va(a, ga, hs, 2, vas, &f2), ==, DDI_OK);
    g_assert_cmpuint(vas[0], ==, va);
    g_assert_cmpuint(vas[1], !=, va);
    g_assert_cmpuint(f2, >, f);
    g_assert_cmpuint(kern.gpuva.stats.paging_buffers, ==, bufs + 1);
    g_assert_cmpuint(a->quota.used[KQ_VIEWS], ==, 2);
    run();
    g_assert_cmpuint(kern.gpuva.fence_done, >=, f2);
    /* shared read-only with b: b's view is read-only */
    g_assert_cmpint(kapi_create_device(b, &db), ==, DDI_OK);
    g_assert_cmpint(kapi_create_device_gpuva(b, &gb), ==, DDI_OK);
    g_assert_cmpint(kapi_share_allocation(a, ha, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a, ha, kapi_process_id(b),
                                          KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b, db, name, &hb), ==, DDI_OK);
    g_assert_cmpint(kapi_map_gpu_va(b, gb, &hb, 1, &vb, &f), ==, DDI_OK);
    /* (the fake keeps one table for every space: b's range is at the
     * same VA as a's) */
    assert_view(vb, GV_ALLOC, DDI_PTE_VRAM, vram, false);
    g_assert_cmpuint(b->quota.used[KQ_VIEWS], ==, 1);
    g_assert_cmpuint(b->quota.used[KQ_PINNED], ==, GV_ALLOC);
    vidmm_alloc_state(kern.vm, al->vm, &vs);
    g_assert_cmpuint(vs.pin, ==, 2);
    run();
    /* b's handle goes: its view with it; the allocation stays a's */
    g_assert_cmpint(kapi_destroy_allocation(b, hb), ==, DDI_OK);
    assert_view(vb, GV_ALLOC, DDI_PTE_INVALID, 0, false);
    run();
    g_assert_true(handle_lookup(&a->handles, ha, HANDLE_ALLOCATION) == al);
    g_assert_true(al->used);
    /* b's pin and charges went with its view */
    vidmm_alloc_state(kern.vm, al->vm, &vs);
    g_assert_cmpuint(vs.pin, ==, 1);
    g_assert_cmpuint(b->quota.used[KQ_VIEWS], ==, 0);
    g_assert_cmpuint(b->quota.used[KQ_PINNED], ==, 0);
    /* a exits with its view: the view, then the allocation go */
    g_assert_cmpint(kapi_process_exit(a), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(b), ==, DDI_OK);
    run();
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        g_assert_false(kern.vamaps[i].used);
    }
    assert_census(&start);
}

/* A process's calls after its exit (its record exiting, then freed):
 * refused or ignored, never a crash (an application's timer firing after
 * its process was killed). */
static void never_fires(void *arg, uint64_t now)
{
    (void)arg;
    (void)now;
    g_assert_not_reached();
}

static void test_exit_dead_calls(void)
{
    struct proc a;
    struct ktimer t;
    uint32_t h;

    setup();
    make_proc(&a, "a");
    kapi_timer_init(&t, NULL, NULL);
    for (unsigned pass = 0; pass < 2; pass++) {
        if (pass == 0) {
            gpu.hold = true;        /* its record stays: a buffer is out */
            g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
            run();
            g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
            g_assert_true(a.p->used && a.p->exiting);
        } else {
            gpu.hold = false;
            gpu.preempt_pending[0] = false;
            gpu.nq[0] = 0;
            kernel_upcalls.preempted(&kern, 0, gpu.preempt_fence[0], 0,
                                     gpu.completed[0]);
            run();
            g_assert_false(a.p->used);  /* freed: zeroed */
        }
        g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_EINVAL);
        g_assert_cmpint(kapi_create_device(a.p, &h), ==, DDI_EINVAL);
        g_assert_cmpint(kapi_create_device_gpuva(a.p, &h), ==, DDI_EINVAL);
        g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_EHANDLE);
        g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_EHANDLE);
        kapi_timer_init(&t, never_fires, NULL);
        kapi_timer_arm(a.p, &t, gpu.now + 1000);     /* not armed */
        run();
        kapi_timer_cancel(a.p, &t);
        kapi_set_lost_callback(a.p, NULL, NULL);
        (void)kapi_now(a.p);
    }
}

/* Process exit: a process with buffers on the GPU (held), queued behind
 * a wait, CPU waits, shared objects and presents... is killed: the
 * running buffer is preempted, everything it had comes back, the other
 * process keeps what it opened, and its waiter on the dead process's
 * sync object is released with DDI_EABANDONED. */
static void test_exit_reclaims(void)
{
    struct proc a, b;
    struct kernel_census start;
    struct waited wa = { 0 }, wb = { 0 };
    uint32_t name, sname, h, hs, never, ctx2;

    setup();
    take_census(&start);
    make_proc(&b, "b");
    make_proc(&a, "a");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &sname), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, sname, &hs), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.p, hs, 5, on_wait, &wb), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, hs, 5), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);  /* held */
    /* a: one buffer running (the GPU holds it), more queued behind a
     * wait that never completes, a CPU wait */
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_IDLE,
                                        &ctx2), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(a.p, a.dev, 0, &never), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(a.p, ctx2, never, 1), ==, DDI_OK);
    for (unsigned i = 0; i < 5; i++) {
        g_assert_cmpint(fill(&a, ctx2, a.buf, 64), ==, DDI_OK);
    }
    g_assert_cmpint(kapi_wait_cpu(a.p, never, 1, on_wait, &wa), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_EINVAL);
    run();
    /* the running buffer: preempted, not run to its end */
    g_assert_true(gpu.preempt_pending[0]);
    gpu.preempt_pending[0] = false;
    gpu.nq[0] = 0;                      /* the engine dropped it */
    gpu.hold = false;
    kernel_upcalls.preempted(&kern, 0, gpu.preempt_fence[0], 0,
                             gpu.completed[0]);
    run();
    g_assert_cmpuint(wa.calls, ==, 0);  /* nothing calls the dead one */
    g_assert_cmpuint(wb.calls, ==, 1);
    g_assert_cmpint(wb.status, ==, DDI_EABANDONED);
    /* b's GPU wait was released: its buffer ran (after a's first) */
    g_assert_cmpuint(gpu.submits, ==, 2);
    g_assert_cmpuint(kern.stats.processes_freed, ==, 0);  /* b holds two */
    g_assert_cmpint(fill(&b, b.ctx, h, 64), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_sync(b.p, hs), ==, DDI_OK);
    run();
    /* b let go of the last things a created: a's record goes (the
     * sync object's word too: no wait or signal of it is pending) */
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1);
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 2);
    assert_census(&start);
}

/* Processes come and go far more often than there are ids or records:
 * 1000 lives, each with work on the GPU when it is killed. */
static void test_exit_many(void)
{
    struct kernel_census start;

    setup();
    take_census(&start);
    for (unsigned i = 0; i < 1000; i++) {
        struct proc a;

        make_proc(&a, "short-lived");
        g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
        g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
        if (i % 2) {
            run();
        }
        g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
        if (i % 3 == 0) {
            run();
        }
    }
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1000);
    assert_census(&start);
}

/* ---- hostile processes, at random (property test) ---- */

#define HP_PROCS    4
#define HP_HANDLES  48

struct hp_proc {
    struct kproc *p;
    uint32_t dev, ctx;
    uint32_t h[HP_HANDLES];     /* allocations and sync objects it made */
    unsigned nh;
    struct waited w;
    uint32_t gdev;              /* GPU-VA mode: its GPU-VA device */
    uint32_t res[8];            /* references it made resident */
    unsigned nres;
    bool lock_pending;          /* a lock wait of it is pending ... */
    uint32_t lock_h;            /* ... on this handle */
};

/* What the property test knows across lives: the mode, every shared
 * name seen (with its creator's pid) and every grant made, to check that
 * an open succeeds only where a grant (or creation) allows it. */
#define HP_NAMES    64
#define HP_GRANTS   4096

static struct {
    bool gpuva;
    unsigned exit_one_in;       /* exits: one step in this many */
    GRand *r;
    struct hp_proc *all;
    uint32_t last_pid;
    unsigned lives, trims, opens, lock_waits, refused_in_trim, waits_done;
    struct { uint32_t name, creator; bool sync; } names[HP_NAMES];
    unsigned nnames;
    struct { uint32_t name, pid; } grants[HP_GRANTS];
    unsigned ngrants;
    uint32_t dead_pids[16];
} hp;

/* The pid of the process that created the object x's handle h names. */
static uint32_t hp_creator(struct hp_proc *x, uint32_t h, bool sync)
{
    const struct kdevice *d;

    if (sync) {
        const struct ksync *o = handle_lookup(&x->p->handles, h,
                                              HANDLE_SYNC);
        d = o ? o->dev : NULL;
    } else {
        const struct kalloc *o = handle_lookup(&x->p->handles, h,
                                               HANDLE_ALLOCATION);
        d = o ? o->dev : NULL;
    }
    g_assert_nonnull(d);
    return kapi_process_id(d->proc);
}

static void hp_note_name(uint32_t name, uint32_t creator, bool sync)
{
    unsigned i = hp.nnames++ % HP_NAMES;

    hp.names[i].name = name;
    hp.names[i].creator = creator;
    hp.names[i].sync = sync;
}

static void hp_note_grant(uint32_t name, uint32_t pid)
{
    g_assert_cmpuint(hp.ngrants, <, HP_GRANTS);
    hp.grants[hp.ngrants].name = name;
    hp.grants[hp.ngrants].pid = pid;
    hp.ngrants++;
}

static bool hp_was_granted(uint32_t name, uint32_t pid)
{
    for (unsigned i = 0; i < hp.ngrants; i++) {
        if (hp.grants[i].name == name && hp.grants[i].pid == pid) {
            return true;
        }
    }
    return false;
}

/* What every process holds adds up to what the tables hold. */
static void hp_check_books(const struct kernel_census *start)
{
    struct kernel_census now;
    uint64_t used[KQ_COUNT] = { 0 };

    kernel_census(&kern, &now);
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        for (unsigned q = 0; kern.procs[i].used && q < KQ_COUNT; q++) {
            used[q] += kern.procs[i].quota.used[q];
        }
    }
    g_assert_cmpuint(used[KQ_DEVICES], ==, now.devices);
    g_assert_cmpuint(used[KQ_CONTEXTS], ==, now.contexts);
    g_assert_cmpuint(used[KQ_ALLOCS], ==, now.allocs);
    g_assert_cmpuint(used[KQ_SYNCS], ==, now.syncs);
    g_assert_cmpuint(used[KQ_BUFFERS], ==, now.buffers);
    g_assert_cmpuint(used[KQ_WAITS], ==, now.waits);
    g_assert_cmpuint(used[KQ_KVRAM], ==, now.seg_bytes - start->seg_bytes);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
    /* every table with a quota: its charges are its entries */
    {
        unsigned n;
        const struct ktable *t = ktables(&n);

        for (unsigned i = 0; i < n; i++) {
            if (t[i].rule == KTABLE_QUOTA && t[i].capacity && t[i].count) {
                g_assert_cmpuint(used[t[i].kind], ==, now.tables[i]);
            }
        }
    }
}

static void hp_trim(void *arg, uint64_t bytes);

static void hp_spawn(struct hp_proc *x)
{
    memset(x, 0, sizeof(*x));
    x->p = kapi_process_create(&kern, "hostile");
    if (!x->p) {
        /* every record is an exited process the GPU still holds: let
         * the GPU run, and the reaper free them */
        gpu.hold = false;
        run();
        x->p = kapi_process_create(&kern, "hostile");
    }
    g_assert_nonnull(x->p);
    /* a new id each life, never one seen before */
    g_assert_cmpuint(kapi_process_id(x->p), >, hp.last_pid);
    hp.last_pid = kapi_process_id(x->p);
    hp.lives++;
    if (kapi_create_device(x->p, &x->dev) != DDI_OK) {
        /* device records of exited processes whose contexts' work the
         * GPU holds: as above */
        gpu.hold = false;
        run();
        g_assert_cmpint(kapi_create_device(x->p, &x->dev), ==, DDI_OK);
    }
    g_assert_cmpint(kapi_create_context(x->p, x->dev, 0, VIDSCH_PRIO_NORMAL,
                                        &x->ctx), ==, DDI_OK);
    if (hp.gpuva) {
        int st = kapi_create_device_gpuva(x->p, &x->gdev);

        if (st == DDI_ENOMEM) {
            /* GPU-VA device records held by exited processes whose work
             * the GPU holds: as above */
            gpu.hold = false;
            run();
            st = kapi_create_device_gpuva(x->p, &x->gdev);
        }
        g_assert_cmpint(st, ==, DDI_OK);
        /* small budgets: MakeResidents trim each other often */
        g_assert_cmpint(kapi_set_budget(x->p, GV_ALLOC), ==, DDI_OK);
        g_assert_cmpint(kapi_set_trim_callback(x->p, hp_trim, x), ==,
                        DDI_OK);
    }
}

static void hp_exit(struct hp_proc *x)
{
    hp.dead_pids[hp.lives % 16] = kapi_process_id(x->p);
    g_assert_cmpint(kapi_process_exit(x->p), ==, DDI_OK);
    hp_spawn(x);
}

static void hp_forget_res(struct hp_proc *x, uint32_t h)
{
    for (unsigned k = 0; k < x->nres; k++) {
        if (x->res[k] == h) {
            x->res[k--] = x->res[--x->nres];
        }
    }
}

/* The trim callback, inside someone's MakeResident: every call but an
 * evict (and queries) is refused, its own and anyone else's; then it
 * evicts what it holds. */
static void hp_trim(void *arg, uint64_t bytes)
{
    struct hp_proc *x = arg, *o = &hp.all[g_rand_int_range(hp.r, 0,
                                                          HP_PROCS)];
    uint32_t h = x->nh ? x->h[g_rand_int_range(hp.r, 0, x->nh)] : 0x1234;
    uint64_t f, budget, usage;
    int st;

    (void)bytes;
    hp.trims++;
    switch (g_rand_int_range(hp.r, 0, 7)) {
    case 0:
        st = kapi_destroy_allocation(x->p, h);
        break;
    case 1:
        st = kapi_destroy_device(x->p, x->gdev);
        break;
    case 2:
        st = kapi_process_exit(x->p);
        break;
    case 3:
        st = kapi_make_resident(x->p, x->gdev, &h, 1, &f);
        break;
    case 4:
        st = kapi_create_sync(o->p, o->dev, 0, &h);
        break;
    case 5:
        st = fill(&(struct proc){ .p = x->p }, x->ctx, h, 64);
        break;
    default:
        st = kapi_destroy_sync(o->p, h);
        break;
    }
    g_assert_cmpint(st, ==, DDI_EACCESS);
    hp.refused_in_trim++;
    g_assert_cmpint(kapi_query_video_memory(x->p, &budget, &usage), ==,
                    DDI_OK);
    while (x->nres) {
        st = kapi_evict(x->p, x->gdev, &x->res[0], 1, NULL);
        g_assert_true(st == DDI_OK || st == DDI_EHANDLE);
        hp_forget_res(x, x->res[0]);
        if (st == DDI_OK) {
            break;
        }
    }
}

static void hp_locked(void *arg, int status, volatile void *cpu)
{
    struct hp_proc *x = arg;

    (void)cpu;
    g_assert_true(x->lock_pending);
    x->lock_pending = false;
    hp.lock_waits++;
    if (status == DDI_OK) {
        /* from the callback: unlock, or keep it and exit (its lock goes
         * with it) */
        if (g_rand_int_range(hp.r, 0, 4) == 0) {
            hp_exit(x);
            return;
        }
        g_assert_cmpint(kapi_unlock(x->p, x->lock_h), ==, DDI_OK);
    } else {
        g_assert_true(status == DDI_ETIMEOUT || status == DDI_EHANDLE ||
                      status == DDI_ELOST);
    }
}

static void hp_forget(struct hp_proc *x, uint32_t h);

/* A CPU wait's callback: at times it destroys what it waited on, or
 * exits its process from there. */
static void hp_waited(void *arg, int status)
{
    struct hp_proc *x = arg;

    g_assert_true(status == DDI_OK || status == DDI_EHANDLE ||
                  status == DDI_ELOST || status == DDI_EABANDONED);
    hp.waits_done++;
    switch (g_rand_int_range(hp.r, 0, 6)) {
    case 0:
        hp_exit(x);
        break;
    case 1:
        if (x->nh) {
            uint32_t h = x->h[0];
            int st = handle_type_of(h) == HANDLE_SYNC
                     ? kapi_destroy_sync(x->p, h)
                     : kapi_destroy_allocation(x->p, h);

            g_assert_cmpint(st, ==, DDI_OK);
            hp_forget(x, h);
            hp_forget_res(x, h);
        }
        break;
    default:
        break;
    }
}

/* A handle of x's, or (one time in four) another process's: the call
 * must then refuse it. */
static uint32_t hp_pick(GRand *r, struct hp_proc *all, unsigned i,
                        bool *foreign)
{
    unsigned j = g_rand_int_range(r, 0, 4) ? i
                 : (unsigned)g_rand_int_range(r, 0, HP_PROCS);
    struct hp_proc *x = &all[j];

    *foreign = j != i;
    if (!x->p || x->nh == 0) {
        *foreign = false;
        return all[i].nh ? all[i].h[0] : 0x1234;
    }
    return x->h[g_rand_int_range(r, 0, x->nh)];
}

static void hp_forget(struct hp_proc *x, uint32_t h)
{
    for (unsigned k = 0; k < x->nh; k++) {
        if (x->h[k] == h) {
            x->h[k] = x->h[--x->nh];
            return;
        }
    }
}

/* The calls added for issue 26: lock waits, opens of any name seen
 * (another's, a dead process's), grants to live and dead pids, GPU-VA
 * residency (whose MakeResidents run the others' trim callbacks). */
static void hp_step_more(GRand *r, struct hp_proc *all, unsigned i)
{
    struct hp_proc *x = &all[i];
    bool foreign = false;
    uint32_t h = hp_pick(r, all, i, &foreign), h2, name;
    uint32_t pid = x->p ? kapi_process_id(x->p) : 0;
    uint64_t f;
    int st = DDI_OK;

    switch (g_rand_int_range(r, 0, 5)) {
    case 0:
        if (x->lock_pending) {
            return;
        }
        st = kapi_lock_wait(x->p, h, hp_locked, x);
        if (st == DDI_OK) {
            x->lock_pending = true;
            x->lock_h = h;
        }
        break;
    case 1: {
        unsigned n = hp.nnames < HP_NAMES ? hp.nnames : HP_NAMES;
        unsigned j;

        if (!n) {
            return;
        }
        j = (unsigned)g_rand_int_range(r, 0, n);
        name = hp.names[j].name;
        st = hp.names[j].sync ? kapi_open_sync(x->p, x->dev, name, &h2)
                              : kapi_open_allocation(x->p, x->dev, name,
                                                     &h2);
        hp.opens++;
        if (st == DDI_OK) {
            /* only the creator, or a process it was granted to */
            g_assert_true(hp.names[j].creator == pid ||
                          hp_was_granted(name, pid));
            if (x->nh < HP_HANDLES) {
                x->h[x->nh++] = h2;
            } else if (hp.names[j].sync) {
                kapi_destroy_sync(x->p, h2);
            } else {
                kapi_destroy_allocation(x->p, h2);
            }
        } else {
            g_assert_true(st == DDI_EHANDLE || st == DDI_ENOMEM ||
                          st == DDI_EQUOTA || st == DDI_ELOST);
        }
        return;
    }
    case 2: {
        /* to a live process, a dead one, or made up */
        struct hp_proc *o = &all[g_rand_int_range(r, 0, HP_PROCS)];
        unsigned how = (unsigned)g_rand_int_range(r, 0, 3);
        uint32_t to = how == 0 ? kapi_process_id(o->p)
                      : how == 1 ? hp.dead_pids[g_rand_int_range(r, 0, 16)]
                      : (uint32_t)g_rand_int_range(r, 1, 1000);
        bool sync = handle_type_of(h) == HANDLE_SYNC;

        st = sync ? kapi_share_sync(x->p, h, &name)
                  : kapi_share_allocation(x->p, h, &name);
        if (st != DDI_OK) {
            break;
        }
        if (!foreign) {
            hp_note_name(name, hp_creator(x, h, sync), sync);
        }
        if (!to) {
            return;
        }
        st = sync ? kapi_grant_sync(x->p, h, to, KAPI_ACCESS_READ)
                  : kapi_grant_allocation(x->p, h, to, KAPI_ACCESS_READ);
        if (st == DDI_OK) {
            hp_note_grant(name, to);
        }
        break;
    }
    case 3:
        if (!hp.gpuva) {
            return;
        }
        if (x->nh < HP_HANDLES && g_rand_int_range(r, 0, 3) == 0) {
            struct kapi_alloc_desc d = { .size = GV_ALLOC,
                                         .cpu_visible = true };

            if (kapi_create_allocation(x->p, x->gdev, &d, &h2) == DDI_OK) {
                x->h[x->nh++] = h2;
            }
            return;
        }
        if (!foreign) {
            /* one of its GPU-VA allocations, if it has one */
            for (unsigned k = 0, n = x->nh; k < n; k++) {
                uint32_t c = x->h[(k + (unsigned)g_rand_int_range(r, 0, n))
                                  % n];
                const struct kalloc *ka =
                    handle_type_of(c) == HANDLE_ALLOCATION
                    ? handle_lookup(&x->p->handles, c, HANDLE_ALLOCATION)
                    : NULL;

                if (ka && ka->gv) {
                    h = c;
                    break;
                }
            }
        }
        st = kapi_make_resident(x->p, x->gdev, &h, 1, &f);
        if (st == DDI_OK) {
            g_assert_false(foreign);
            if (x->nres < 8) {
                x->res[x->nres++] = h;
            } else {
                g_assert_cmpint(kapi_evict(x->p, x->gdev, &h, 1, NULL), ==,
                                DDI_OK);
            }
        }
        break;
    default:
        if (!hp.gpuva || !x->nres) {
            return;
        }
        h = x->res[0];
        g_assert_cmpint(kapi_evict(x->p, x->gdev, &h, 1, NULL), ==, DDI_OK);
        hp_forget_res(x, h);
        return;
    }
    if (foreign) {
        g_assert_cmpint(st, ==, DDI_EHANDLE);
    }
}

static void hp_step(GRand *r, struct hp_proc *all, unsigned i)
{
    struct hp_proc *x = &all[i];
    struct kapi_alloc_desc d = {
        .size = 64u << g_rand_int_range(r, 0, 10), .cpu_visible = true,
    };
    bool foreign = false;
    uint32_t h = hp_pick(r, all, i, &foreign), name, h2;
    volatile void *cpu;
    int st = DDI_OK;
    unsigned v = (unsigned)g_rand_int_range(r, 0, 60);

    if (g_rand_int_range(r, 0, hp.exit_one_in) == 0) {
        hp_exit(x);
        return;
    }
    if (g_rand_int_range(r, 0, hp.gpuva ? 2 : 4) == 0) {
        hp_step_more(r, all, i);
        return;
    }
    /* renders twice as often as the rest */
    switch (v % 12 == 10 || v == 59 ? 3 : v % 12) {
    case 0:
        if (x->nh < HP_HANDLES &&
            kapi_create_allocation(x->p, x->dev, &d, &h2) == DDI_OK) {
            x->h[x->nh++] = h2;
        }
        return;
    case 1:
        if (x->nh < HP_HANDLES &&
            kapi_create_sync(x->p, x->dev, 0, &h2) == DDI_OK) {
            x->h[x->nh++] = h2;
        }
        return;
    case 2:
        st = handle_type_of(h) == HANDLE_SYNC ? kapi_destroy_sync(x->p, h)
                                              : kapi_destroy_allocation(x->p,
                                                                        h);
        if (st == DDI_OK) {
            hp_forget(x, h);
            hp_forget_res(x, h);
        }
        break;
    case 3:
        st = fill(&(struct proc){ .p = x->p }, x->ctx, h, 64);
        break;
    case 4:
        st = kapi_signal_gpu(x->p, x->ctx, h,
                             (uint64_t)g_rand_int_range(r, 1, 4));
        break;
    case 5:
        /* a value that may never come: its buffers are held */
        st = kapi_wait_gpu(x->p, x->ctx, h,
                           (uint64_t)g_rand_int_range(r, 1, 8));
        break;
    case 6:
        st = kapi_wait_cpu(x->p, h, (uint64_t)g_rand_int_range(r, 1, 8),
                           hp_waited, x);
        break;
    case 7:
        st = kapi_signal_cpu(x->p, h, (uint64_t)g_rand_int_range(r, 1, 4));
        break;
    case 8: {
        struct hp_proc *o = &all[(i + 1) % HP_PROCS];

        st = handle_type_of(h) == HANDLE_SYNC
             ? kapi_share_sync(x->p, h, &name)
             : kapi_share_allocation(x->p, h, &name);
        /* and the grant (only a creator's goes through) */
        if (st == DDI_OK && o->p) {
            st = handle_type_of(h) == HANDLE_SYNC
                 ? kapi_grant_sync(x->p, h, kapi_process_id(o->p),
                                   KAPI_ACCESS_READ | KAPI_ACCESS_WRITE)
                 : kapi_grant_allocation(x->p, h, kapi_process_id(o->p),
                                         KAPI_ACCESS_READ |
                                         KAPI_ACCESS_WRITE);
            if (st == DDI_OK) {
                hp_note_grant(name, kapi_process_id(o->p));
            }
        }
        if (st == DDI_OK && o->p && o->nh < HP_HANDLES &&
            (handle_type_of(h) == HANDLE_SYNC
             ? kapi_open_sync(o->p, o->dev, name, &h2)
             : kapi_open_allocation(o->p, o->dev, name, &h2)) == DDI_OK) {
            o->h[o->nh++] = h2;
        }
        break;
    }
    case 9:
        st = kapi_lock(x->p, h, KAPI_LOCK_DONOTWAIT, &cpu);
        if (st == DDI_OK && g_rand_boolean(r)) {
            kapi_unlock(x->p, h);
        }
        break;
    case 11:
        gpu.hold = g_rand_int_range(r, 0, 3) == 0;
        run();
        return;
    default:
        pump();
        return;
    }
    if (foreign) {
        g_assert_cmpint(st, ==, DDI_EHANDLE);
    }
}

/*
 * Hostile processes at random: each step one of four processes makes a
 * legal call (create, destroy, render, signal and wait on the GPU and
 * the CPU, share and open, lock, exit and be replaced by a new one),
 * often with another process's handles (always refused with
 * DDI_EHANDLE), with the GPU holding its work at times, so processes
 * exit with work queued, running, waiting for values that never come.
 * After every step what the processes are charged adds up to what the
 * tables hold; at the end every process exits and the kernel is as it
 * started.
 */
static void hp_run(unsigned seed, unsigned steps, bool gpuva,
                   unsigned exit_one_in)
{
    GRand *r = g_rand_new_with_seed(seed);
    struct hp_proc all[HP_PROCS];
    struct kernel_census start;

    memset(&hp, 0, sizeof(hp));
    hp.gpuva = gpuva;
    hp.exit_one_in = exit_one_in;
    hp.r = r;
    hp.all = all;
    if (gpuva) {
        setup_gpuva();
    } else {
        setup();
    }
    take_census(&start);
    for (unsigned i = 0; i < HP_PROCS; i++) {
        hp_spawn(&all[i]);
    }
    for (unsigned n = 0; n < steps; n++) {
        hp_step(r, all, (unsigned)g_rand_int_range(r, 0, HP_PROCS));
        hp_check_books(&start);
    }
    for (unsigned i = 0; i < HP_PROCS; i++) {
        g_assert_cmpint(kapi_process_exit(all[i].p), ==, DDI_OK);
    }
    gpu.hold = false;
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==,
                     kern.stats.processes_exited);
    assert_census(&start);
    g_rand_free(r);
}

static void test_exit_hostile_random(void)
{
    for (unsigned seed = 1; seed <= 200; seed++) {
        hp_run(seed, 600, false, 60);
    }
}

/*
 * The same with more lives than the 8-bit id space (no process ever
 * inherits a dead one's grants or opens a name it was not granted: each
 * open checked against every grant made), and in GPU-VA mode, where
 * MakeResidents over small budgets run the others' trim callbacks, which
 * try calls they may not make (each refused) before evicting.
 */
static void test_exit_hostile_lives(void)
{
    unsigned lives = 0, opens = 0, waits = 0;

    for (unsigned seed = 1; seed <= 3; seed++) {
        hp_run(seed, 3000, false, 8);
        lives += hp.lives;
        opens += hp.opens;
        waits += hp.waits_done;
    }
    g_test_message("%u lives, %u opens of names seen, %u CPU-wait "
                   "callbacks (some destroying or exiting)", lives, opens,
                   waits);
    g_assert_cmpuint(waits, >, 0);
    g_assert_cmpuint(lives / 3, >, HANDLE_MAX_OWNER);
    g_assert_cmpuint(opens, >, 0);
}

static void test_exit_hostile_gpuva(void)
{
    unsigned trims = 0, lives = 0, locks = 0;

    for (unsigned seed = 1; seed <= 40; seed++) {
        hp_run(seed, 600, true, 30);
        trims += hp.trims;
        lives += hp.lives;
        locks += hp.lock_waits;
    }
    hp_run(41, 3000, true, 8);
    lives += hp.lives;
    trims += hp.trims;
    g_test_message("%u lives, %u trim callbacks (each tried a call it may "
                   "not make), %u lock waits answered", lives, trims, locks);
    g_assert_cmpuint(trims, >, 0);
    g_assert_cmpuint(locks, >, 0);
    g_assert_cmpuint(hp.lives, >, HANDLE_MAX_OWNER);
}

/* ---- isolation between processes (issue 15; kernel/kisolate.h) ---- */

/* a shares its buffer with b, granted with access */
static uint32_t share_to(struct proc *a, struct proc *b, unsigned access)
{
    uint32_t name = 0, h = 0;

    g_assert_cmpint(kapi_share_allocation(a->p, a->buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a->p, a->buf,
                                          kapi_process_id(b->p), access),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b->p, b->dev, name, &h), ==,
                    DDI_OK);
    return h;
}

/* Item 2: a lock is its handle's. An opener cannot release the owner's
 * lock (vidmm would then move the allocation under the owner's pointer),
 * nor does destroying its handle. */
static void test_lock_per_handle(void)
{
    struct proc a, b;
    volatile void *cpu = NULL;
    struct kalloc *ka;
    uint32_t h;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "opener");
    h = share_to(&a, &b, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    ka = kalloc_of(&a, a.buf);
    g_assert_cmpint(kapi_lock(a.p, a.buf, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 1);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_EINVAL);
    g_assert_cmpuint(ka->locks, ==, 1);
    /* its own lock, then its handle goes with a lock held: only its
     * lock goes with it */
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_OK);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_IGNORESYNC, &cpu), ==,
                    DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 2);
    g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 1);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_OK);
    g_assert_cmpuint(ka->locks, ==, 0);
    g_assert_cmpint(kapi_unlock(a.p, a.buf), ==, DDI_EINVAL);
}

/* Item 3: a shared name opens nothing without a grant; a grant is the
 * creator's to give and carries access rights. */
static void test_share_needs_grant(void)
{
    struct proc a, b, c;
    struct waited w = { 0 };
    uint32_t name = 0, sname = 0, h = 0, hs = 0, hc = 0;
    uint64_t v = 0;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "granted");
    make_proc(&c, "guesser");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &sname), ==, DDI_OK);
    /* the exact names, as a perfect guess: nothing */
    g_assert_cmpint(kapi_open_allocation(c.p, c.dev, name, &hc), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_open_sync(c.p, c.dev, sname, &hc), ==, DDI_EHANDLE);
    /* bad grants change nothing */
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          0), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_WRITE), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, 0, KAPI_ACCESS_READ),
                    ==, DDI_EINVAL);
    g_assert_cmpint(kapi_grant_allocation(b.p, a.buf, kapi_process_id(c.p),
                                          KAPI_ACCESS_READ), ==, DDI_EHANDLE);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==,
                    DDI_EHANDLE);
    /* read-only grants */
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, sname, &hs), ==, DDI_OK);
    /* b's grant is not c's; and b, an opener, cannot pass it on */
    g_assert_cmpint(kapi_open_allocation(c.p, c.dev, name, &hc), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_grant_allocation(b.p, h, kapi_process_id(c.p),
                                          KAPI_ACCESS_READ), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_grant_sync(b.p, hs, kapi_process_id(c.p),
                                    KAPI_ACCESS_READ), ==, DDI_EACCESS);
    /* read: a command buffer may read it, not write it; no lock */
    umd_init(&cb, cmd, sizeof(cmd));
    umd_copy(&cb, b.buf, 0, h, 0, 64);
    g_assert_cmpint(render(&b, b.ctx), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, h, 64), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_lock(b.p, h, KAPI_LOCK_IGNORESYNC,
                              &w.cpu), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w), ==, DDI_EACCESS);
    /* a sync object opened to wait on cannot be signalled */
    g_assert_cmpint(kapi_signal_cpu(b.p, hs, 7), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_signal_gpu(b.p, b.ctx, hs, 7), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_wait_cpu(b.p, hs, 1, on_wait, &w), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 0);
    g_assert_cmpuint(w.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpuint(gpu.submits, ==, 1);   /* b's COPY only */
}

/* ---- identities and lifetimes (issue 26, docs/os.rst "Identities and
 * lifetimes") ---- */

/*
 * Item 1: a device destroyed while an allocation created on it lives on
 * (another process holds it open) keeps its record: the record is the
 * allocation's creator, and freed and taken by another process's new
 * device, it would make that process the creator of the shared
 * allocation (open with every right, grant it on) without any grant.
 */
static void test_ident_device_outlives_allocs(void)
{
    struct proc a, b;
    struct kproc *c;
    uint32_t name = 0, hb, dc, hc = 0;
    struct kdevice *adev;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "granted");
    hb = share_to(&a, &b, KAPI_ACCESS_READ);
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    adev = kalloc_of(&b, hb)->dev;
    g_assert_cmpint(kapi_destroy_device(a.p, a.dev), ==, DDI_OK);
    run();
    /* the record stays while b's handles name what was created on it */
    g_assert_true(adev->used);
    g_assert_true(kalloc_of(&b, hb)->dev == adev);
    /* a process with no grant, whose new device would take a free
     * device record: the exact name opens nothing, it grants nothing */
    c = kapi_process_create(&kern, "guesser");
    g_assert_nonnull(c);
    g_assert_cmpint(kapi_create_device(c, &dc), ==, DDI_OK);
    g_assert_true(handle_lookup(&c->handles, dc, HANDLE_DEVICE) != adev);
    g_assert_cmpint(kapi_open_allocation(c, dc, name, &hc), ==, DDI_EHANDLE);
    /* b's grant still reads, never writes */
    g_assert_cmpint(fill(&b, b.ctx, hb, 64), ==, DDI_EACCESS);
    /* the last reference goes: the device record with it */
    g_assert_cmpint(kapi_destroy_allocation(b.p, hb), ==, DDI_OK);
    run();
    g_assert_false(adev->used);
}

/*
 * Item 2: process ids are never reused (kapi_process_id is 32 bits, one
 * per life; the 8-bit id in handles is only a check), and grants die with
 * the process they name: after more lives than the 8-bit id space, no new
 * process inherits a dead process's grant.
 */
static void test_ident_pid_never_reused(void)
{
    struct proc a, b;
    struct kernel_census start;
    uint32_t name = 0, pid_b, h;
    uint32_t last = 0;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "granted");
    take_census(&start);
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    pid_b = kapi_process_id(b.p);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, pid_b,
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    run();
    /* its grant went with it */
    for (unsigned i = 0; i < KISOLATE_GRANTS; i++) {
        g_assert_true(kern.grants[i].name == 0 ||
                      kern.grants[i].pid != pid_b);
    }
    last = kapi_process_id(a.p) > pid_b ? kapi_process_id(a.p) : pid_b;
    for (unsigned life = 0; life < 3 * HANDLE_MAX_OWNER; life++) {
        struct proc x;

        make_proc(&x, "later");
        /* a new id each life, above every earlier one */
        g_assert_cmpuint(kapi_process_id(x.p), >, last);
        last = kapi_process_id(x.p);
        g_assert_cmpint(kapi_open_allocation(x.p, x.dev, name, &h), ==,
                        DDI_EHANDLE);
        /* a's grant to the dead pid gives it nothing either */
        g_assert_cmpint(kapi_grant_allocation(x.p, a.buf, pid_b,
                                              KAPI_ACCESS_READ), ==,
                        DDI_EHANDLE);
        g_assert_cmpint(kapi_process_exit(x.p), ==, DDI_OK);
        run();
    }
    g_assert_cmpuint(kern.stats.processes_freed, ==,
                     3 * HANDLE_MAX_OWNER + 1);
    (void)start;
}

/*
 * Item 12: a CPU wait that starts after the sync object's creator exited
 * fails with DDI_EABANDONED, as one pending at the exit does (kapi.h),
 * not DDI_OK because the value reads UINT64_MAX; the other calls on it
 * say the same.
 */
static void test_ident_wait_after_creator_exit(void)
{
    struct proc a, b;
    struct waited before = { 0 }, after = { 0 };
    uint32_t name = 0, h = 0;

    setup();
    make_proc(&a, "creator");
    make_proc(&b, "waiter");
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 5, on_wait, &before), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(before.calls, ==, 1);
    g_assert_cmpint(before.status, ==, DDI_EABANDONED);
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 6, on_wait, &after), ==,
                    DDI_EABANDONED);
    run();
    g_assert_cmpuint(after.calls, ==, 0);
    g_assert_cmpint(kapi_signal_cpu(b.p, h, UINT64_MAX), ==, DDI_EABANDONED);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 1), ==, DDI_EABANDONED);
    /* closing it still works, and frees it */
    g_assert_cmpint(kapi_destroy_sync(b.p, h), ==, DDI_OK);
}

/* Allocation i of a is in VRAM (the fake's page table is one for every
 * space, so another process's entries cannot be told apart there). */
static bool gv_in_vram(const struct gv_app *a, unsigned i)
{
    const struct kalloc *ka = handle_lookup(&a->p->handles, a->h[i],
                                            HANDLE_ALLOCATION);

    g_assert_nonnull(ka);
    g_assert_nonnull(ka->gv);
    return ka->gv->vram != 0;
}

/* A hostile trim callback: tries a call a trim callback may not make
 * (what), then evicts as asked. */
enum ht_what { HT_DESTROY_ALLOC, HT_DESTROY_DEVICE, HT_EXIT, HT_RESIDENT,
               HT_RENDER, HT_OPEN_SYNC, HT_OPEN_ALLOC, HT_COUNT };

struct hostile_trim {
    struct gv_app *a;
    enum ht_what what;
    int st, evict_st;
    unsigned calls;
    uint32_t name;      /* HT_OPEN_*: a name of the process's own */
    uint32_t dev2;      /* HT_OPEN_ALLOC: a device without GPU VA */
    uint32_t opened;    /* the handle the refused open wrote (0: none) */
};

static void ht_on_trim(void *arg, uint64_t bytes)
{
    struct hostile_trim *t = arg;
    struct gv_app *a = t->a;
    uint64_t f;

    (void)bytes;
    t->calls++;
    switch (t->what) {
    case HT_DESTROY_ALLOC:
        t->st = kapi_destroy_allocation(a->p, a->h[0]);
        break;
    case HT_DESTROY_DEVICE:
        t->st = kapi_destroy_device(a->p, a->dev);
        break;
    case HT_EXIT:
        t->st = kapi_process_exit(a->p);
        break;
    case HT_RESIDENT:
        t->st = kapi_make_resident(a->p, a->dev, &a->h[3], 1, &f);
        break;
    case HT_OPEN_SYNC:
        t->st = kapi_open_sync(a->p, a->dev, t->name, &t->opened);
        break;
    case HT_OPEN_ALLOC:
        t->st = kapi_open_allocation(a->p, t->dev2, t->name, &t->opened);
        break;
    default:
        t->st = gv_render_va(a, a->va[0]);
        break;
    }
    /* then what a trim callback is for: its first allocation out (a
     * destroyed handle would be refused here) */
    t->evict_st = kapi_evict(a->p, a->dev, &a->h[0], 1, NULL);
    if (t->evict_st == DDI_OK) {
        a->held[0] = false;
    }
}

/*
 * Item 3 and the suspected trim paths: a trim callback runs inside
 * another process's MakeResident and may only evict. Destroying the
 * allocation it is asked to evict, its device, exiting its process,
 * MakeResident, render, opening a shared sync object or allocation: each
 * refused (DDI_EACCESS, nothing changed, no handle made),
 * so the allocation's record is never freed under residency's
 * reference, its evict goes through, and the victim's MakeResident
 * pages out only what the trimmed process let go of: the victim's
 * allocations stay mapped, no context of either is lost.
 */
static void test_ident_trim_callback_limits(void)
{
    for (unsigned what = 0; what < HT_COUNT; what++) {
        struct gv_app a, v;
        struct hostile_trim t = { .a = &a, .what = what };
        uint64_t f = 0;
        struct kernel_census start;

        setup_gpuva();
        take_census(&start);
        gv_make(&a, "trimmed", 4, 0);
        if (what == HT_OPEN_SYNC) {
            g_assert_cmpint(kapi_share_sync(a.p, a.sync, &t.name), ==, DDI_OK);
        } else if (what == HT_OPEN_ALLOC) {
            struct kapi_alloc_desc d = { .size = 4096, .cpu_visible = true };
            uint32_t h;

            /* a shareable one: a GPU-VA allocation is its process's alone */
            g_assert_cmpint(kapi_create_device(a.p, &t.dev2), ==, DDI_OK);
            g_assert_cmpint(kapi_create_allocation(a.p, t.dev2, &d, &h), ==,
                            DDI_OK);
            g_assert_cmpint(kapi_share_allocation(a.p, h, &t.name), ==,
                            DDI_OK);
        }
        g_assert_cmpint(kapi_set_trim_callback(a.p, ht_on_trim, &t), ==,
                        DDI_OK);
        gv_make(&v, "victim", 2, 2 * GV_ALLOC);
        for (unsigned i = 0; i < 3; i++) {
            g_assert_cmpint(gv_resident(&a, i, &f), ==, DDI_OK);
            run();
        }
        g_assert_cmpint(gv_resident(&v, 0, &f), ==, DDI_OK);
        run();
        /* VRAM full: the victim's second one trims the other process */
        g_assert_cmpint(kapi_set_budget(a.p, 2 * GV_ALLOC), ==, DDI_OK);
        g_assert_cmpint(gv_resident(&v, 1, &f), ==, DDI_OK);
        g_assert_cmpuint(t.calls, >=, 1);
        g_assert_cmpint(t.st, ==, DDI_EACCESS);
        /* refused: nothing changed, no handle made (one made without its
         * reference would free the object under the other holders) */
        g_assert_cmpuint(t.opened, ==, 0);
        g_assert_cmpint(t.evict_st, ==, DDI_OK);
        g_assert_cmpuint(kern.cb.refused, >=, 1);
        g_assert_null(kern.cb.proc);
        run();
        g_assert_true(gv_in_vram(&v, 0));
        g_assert_true(gv_in_vram(&v, 1));
        g_assert_false(gv_in_vram(&a, 0));
        g_assert_cmpint(kapi_context_error(v.p, v.ctx), ==, DDI_OK);
        g_assert_cmpint(kapi_context_error(a.p, a.ctx), ==, DDI_OK);
        /* outside the callback the same calls are the process's own */
        g_assert_cmpint(kapi_destroy_allocation(a.p, a.h[0]), ==, DDI_OK);
        g_assert_cmpint(kapi_evict(a.p, a.dev, &a.h[0], 1, NULL), ==,
                        DDI_EHANDLE);
        /* a second round: the victim's references are still its own */
        g_assert_cmpint(gv_resident(&v, 0, &f), ==, DDI_OK);
        run();
        g_assert_true(gv_in_vram(&v, 0));
        g_assert_true(gv_in_vram(&v, 1));
        g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
        g_assert_cmpint(kapi_process_exit(v.p), ==, DDI_OK);
        run();
        assert_census(&start);
    }
}

/*
 * Item 4: a GPU-VA process exits holding more views than the kernel has
 * paging buffers. Its unmaps go in one paging buffer (the exit's bulk),
 * and an unmap that finds no buffer free waits for one instead of
 * keeping the view for ever: every view goes, every record is freed,
 * and lives go on past the process table's size.
 */
static void test_ident_exit_many_views(void)
{
    struct kapi_alloc_desc d = { .size = 16u << 10, .cpu_visible = true,
                                 .zeroed = true };
    struct kernel_census start;
    enum { NVIEWS = KGPUVA_MAX_PAGING + 4, LIVES = 2 * KERNEL_MAX_PROCS };

    setup_gpuva_vidmm();
    take_census(&start);
    for (unsigned life = 0; life < LIVES; life++) {
        struct kproc *p = kapi_process_create(&kern, "viewer");
        uint32_t da, ga, h[NVIEWS];
        uint64_t va, f;

        g_assert_nonnull(p);
        g_assert_cmpint(kapi_create_device(p, &da), ==, DDI_OK);
        g_assert_cmpint(kapi_create_device_gpuva(p, &ga), ==, DDI_OK);
        for (unsigned i = 0; i < NVIEWS; i++) {
            g_assert_cmpint(kapi_create_allocation(p, da, &d, &h[i]), ==,
                            DDI_OK);
        }
        run();
        for (unsigned i = 0; i < NVIEWS; i++) {
            g_assert_cmpint(kapi_map_gpu_va(p, ga, &h[i], 1, &va, &f), ==,
                            DDI_OK);
            run();
        }
        /* the second half of the lives: with the copy engine busy, so
         * that the exit finds few buffers free */
        gpu.hold = life >= LIVES / 2;
        g_assert_cmpint(kapi_process_exit(p), ==, DDI_OK);
        gpu.hold = false;
        run();
        g_assert_cmpuint(kern.stats.processes_freed, ==, life + 1);
    }
    for (unsigned i = 0; i < KVAMAP_MAX; i++) {
        g_assert_false(kern.vamaps[i].used);
    }
    assert_census(&start);
}

/*
 * Suspected path: page-outs at exit when every paging buffer is on the
 * GPU (a process's own destructions took the last ones). Before, such a
 * page-out was dropped: its entries stayed valid, pointing at a block
 * never freed, in a space the slot's next process gets. Now it waits for
 * a paging buffer: the entries go invalid, the block and the process's
 * record are freed after it, and the next process of the slot starts
 * with nothing mapped.
 */
static void test_ident_exit_paging_busy(void)
{
    struct kapi_alloc_desc d = { .size = GV_ALLOC };
    struct gv_app a, b, c;
    struct kernel_census start;
    uint64_t f, vb[3];
    unsigned busy = 0;

    setup_gpuva();
    take_census(&start);
    gv_make(&b, "exiting", 3, 0);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpint(gv_resident(&b, i, &f), ==, DDI_OK);
        run();
        vb[i] = b.va[i];
    }
    gv_make(&a, "busy", 0, 0);
    /* the copy engine holds everything: a's creations take paging
     * buffers (their aperture mappings) until two are left, its
     * destructions (never refused) the last ones */
    gpu.hold = true;
    while (busy < 8 && kapi_create_allocation(a.p, a.dev, &d,
                                              &a.h[busy]) == DDI_OK) {
        busy++;
    }
    g_assert_cmpuint(busy, >=, 2);
    for (unsigned i = 0; i < busy; i++) {
        g_assert_cmpint(kapi_destroy_allocation(a.p, a.h[i]), ==, DDI_OK);
    }
    for (unsigned i = 0; i < KGPUVA_MAX_PAGING; i++) {
        g_assert_true(kern.gpuva.paging[i].used);
    }
    g_assert_cmpint(kapi_process_exit(b.p), ==, DDI_OK);
    g_assert_cmpuint(kern.gpuva.stats.deferred_page_outs, >=, 1);
    gpu.hold = false;
    run();
    /* b's entries are invalid (the fake's one table: b's VAs), its
     * record freed only after that */
    for (unsigned i = 0; i < 3; i++) {
        uint64_t first = (vb[i] - FV_VA_BASE) / 4096;

        g_assert_cmpuint(fv.target[first], !=, DDI_PTE_VRAM);
    }
    g_assert_cmpuint(kern.stats.processes_freed, ==, 1);
    gv_make(&c, "next", 1, 0);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(c.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/*
 * Item 14: a live process's work that never retires (held behind a GPU
 * wait on a fence it never signals) cannot block another process's
 * lock wait for ever: the wait is answered DDI_ETIMEOUT after
 * KERNEL_LOCK_WAIT_NS (no lock taken), and a wait after the work
 * retired gets the lock. With a read grant the wait is refused at once.
 */
static void test_ident_lock_wait_bounded(void)
{
    struct proc a, b, c;
    struct waited w = { 0 }, w2 = { 0 }, wr = { 0 };
    uint32_t h, hr;
    uint64_t t0;

    setup();
    make_proc(&a, "holder");
    make_proc(&b, "waiter");
    h = share_to(&a, &b, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    g_assert_cmpint(kapi_wait_gpu(a.p, a.ctx, a.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    t0 = gpu.now;
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w), ==, DDI_OK);
    run();
    g_assert_cmpuint(w.calls, ==, 0);   /* 200 ms: still waiting */
    run();
    run();
    g_assert_cmpuint(w.calls, ==, 1);
    g_assert_cmpint(w.status, ==, DDI_ETIMEOUT);
    g_assert_null(w.cpu);
    g_assert_cmpuint(gpu.now - t0, >=, KERNEL_LOCK_WAIT_NS);
    g_assert_cmpuint(kalloc_of(&a, a.buf)->locks, ==, 0);
    /* a read grant is answered at once */
    make_proc(&c, "holder2");
    hr = share_to(&c, &b, KAPI_ACCESS_READ);
    g_assert_cmpint(kapi_lock_wait(b.p, hr, on_lock, &wr), ==, DDI_EACCESS);
    g_assert_cmpuint(wr.calls, ==, 0);
    /* the holder's work retires: the next wait gets the lock */
    g_assert_cmpint(kapi_lock_wait(b.p, h, on_lock, &w2), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(w2.calls, ==, 1);
    g_assert_cmpint(w2.status, ==, DDI_OK);
    g_assert_nonnull(w2.cpu);
    g_assert_cmpint(kapi_unlock(b.p, h), ==, DDI_OK);
}

/* The last INHERIT trace event for hardware context hw at or after
 * since with reason lent (1) or returned (0); NULL if none. */
static const struct vidsch_trace *inherit_event(uint32_t hw, uint64_t since,
                                                unsigned lent)
{
    const struct vidsch_trace *found = NULL;
    uint64_t n = kern.trace_count < KERNEL_TRACE ? kern.trace_count
                                                 : KERNEL_TRACE;

    for (uint64_t i = 0; i < n; i++) {
        const struct vidsch_trace *ev = &kern.trace[i];

        if (ev->kind == VIDSCH_TRACE_INHERIT && ev->context == hw &&
            ev->time >= since && ev->reason == lent &&
            (!found || ev->time >= found->time)) {
            found = ev;
        }
    }
    return found;
}

/*
 * Suspected path: a read grant used to lend HIGH to a third process's
 * producer through priority inheritance. A process granted a sync object
 * read-only may wait on it on the GPU, and its held context then lends
 * its own level to the context whose pending signal satisfies the wait
 * (vidsch_inherit.c): that is the mechanism, not a breach, as long as a
 * loan never exceeds the lender's own level (which the lender could use
 * for its own work anyway: HIGH needs no privilege, REALTIME does) and
 * dies with the lender. Both are checked here: the loan is the waiter's
 * HIGH, and it ends when the waiter's process exits.
 */
static void test_ident_inherit_loan_dies(void)
{
    struct proc v, prod, x;
    uint32_t name = 0, hp, hx, pctx, xctx, xsync;
    const struct vidsch_trace *ev;
    uint64_t t0;
    struct kcontext *pc;

    setup();
    make_proc(&v, "owner");
    make_proc(&prod, "producer");
    make_proc(&x, "lender");
    g_assert_cmpint(kapi_share_sync(v.p, v.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(v.p, v.sync, kapi_process_id(prod.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(v.p, v.sync, kapi_process_id(x.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(prod.p, prod.dev, name, &hp), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(x.p, x.dev, name, &hx), ==, DDI_OK);
    /* the producer, IDLE: its signal of the owner's fence pending behind
     * a wait on its own fence */
    g_assert_cmpint(kapi_create_context(prod.p, prod.dev, 0,
                                        VIDSCH_PRIO_IDLE, &pctx), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(prod.p, pctx, prod.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&prod, pctx, prod.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(prod.p, pctx, hp, 1), ==, DDI_OK);
    /* the lender, HIGH, with a read grant: held on the owner's fence */
    g_assert_cmpint(kapi_create_context(x.p, x.dev, 0, VIDSCH_PRIO_HIGH,
                                        &xctx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(x.p, x.dev, 0, &xsync), ==, DDI_OK);
    t0 = gpu.now;
    g_assert_cmpint(kapi_wait_gpu(x.p, xctx, hx, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&x, xctx, x.buf, 64), ==, DDI_OK);
    run();
    pc = handle_lookup(&prod.p->handles, pctx, HANDLE_CONTEXT);
    g_assert_nonnull(pc);
    ev = inherit_event(pc->hw_id, t0, 1);
    g_assert_nonnull(ev);
    g_assert_cmpuint(ev->level, ==, VIDSCH_PRIO_HIGH);  /* the lender's */
    /* the lender exits: its loan goes with it */
    t0 = gpu.now;
    g_assert_cmpint(kapi_process_exit(x.p), ==, DDI_OK);
    run();
    ev = inherit_event(pc->hw_id, t0, 0);
    g_assert_nonnull(ev);
    g_assert_cmpuint(ev->level, ==, VIDSCH_PRIO_IDLE);
    (void)xsync;
}

/*
 * Suspected path: a writer's queued GPU signal raises the fence's highest
 * accepted value before it runs, so the owner's CPU signals below it are
 * refused while the value is still low. Ruled out as a breach: write
 * access lets the writer signal that value from the CPU at once anyway,
 * and an accepted signal is a promise the kernel keeps: written when the
 * writer's work retires, and when its process exits or its device is
 * lost before that (never left below it for ever): the owner's waiters
 * for lower values are released then.
 */
static void test_ident_queued_signal_kept(void)
{
    struct proc o, w;
    struct waited ow = { 0 };
    uint32_t name = 0, h;
    uint64_t v = 0;

    setup();
    make_proc(&o, "owner");
    make_proc(&w, "writer");
    g_assert_cmpint(kapi_share_sync(o.p, o.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(o.p, o.sync, kapi_process_id(w.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(w.p, w.dev, name, &h), ==, DDI_OK);
    /* held behind a wait on its own fence, which never comes */
    g_assert_cmpint(kapi_wait_gpu(w.p, w.ctx, w.sync, 1), ==, DDI_OK);
    g_assert_cmpint(fill(&w, w.ctx, w.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(w.p, w.ctx, h, 100), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(o.p, o.sync, 5, on_wait, &ow), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_sync_value(o.p, o.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 0);
    /* documented: below an accepted signal is refused, equal is fine */
    g_assert_cmpint(kapi_signal_cpu(o.p, o.sync, 5), ==, DDI_EINVAL);
    g_assert_cmpuint(ow.calls, ==, 0);
    /* the writer dies with its signal queued: the promise is kept */
    g_assert_cmpint(kapi_process_exit(w.p), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_sync_value(o.p, o.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, >=, 100);
    g_assert_cmpuint(ow.calls, ==, 1);
    g_assert_cmpint(ow.status, ==, DDI_OK);
    g_assert_cmpint(kapi_signal_cpu(o.p, o.sync, 100), ==, DDI_OK);
}

/*
 * New attack (issue 26, identities): a shared name carries its slot's
 * 16-bit generation, so after 65536 shares of one slot a name comes
 * back. A grant made for the old object must not survive to name the new
 * one: grants die with the name they name (kiso_revoke_name when the
 * object's name is freed). The attacker cycles the slot's generation
 * with objects of its own until the victim's next share gets the old
 * name; the process granted the old object then tries to open it.
 */
static void test_ident_name_wrap(void)
{
    struct kapi_alloc_desc d = { .size = 64 };
    struct proc a, b, v;
    uint32_t name = 0, n2 = 0, h, vname = 0;

    setup();
    make_proc(&a, "attacker");
    make_proc(&b, "granted-once");
    make_proc(&v, "victim");
    g_assert_cmpint(kapi_share_allocation(a.p, a.buf, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_allocation(a.p, a.buf, kapi_process_id(b.p),
                                          KAPI_ACCESS_READ |
                                          KAPI_ACCESS_WRITE), ==, DDI_OK);
    g_assert_cmpint(kapi_destroy_allocation(a.p, a.buf), ==, DDI_OK);
    /* the slot's generation round to one before the old name's */
    for (unsigned i = 0; i < 65535; i++) {
        g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &d, &h), ==,
                        DDI_OK);
        g_assert_cmpint(kapi_share_allocation(a.p, h, &n2), ==, DDI_OK);
        g_assert_cmpint(kapi_destroy_allocation(a.p, h), ==, DDI_OK);
        g_assert_cmpuint(n2, !=, name);
    }
    g_assert_cmpint(kapi_share_allocation(v.p, v.buf, &vname), ==, DDI_OK);
    g_assert_cmpuint(vname, ==, name);      /* the name came back */
    g_assert_cmpint(kapi_open_allocation(b.p, b.dev, vname, &h), ==,
                    DDI_EHANDLE);
}

/*
 * New attack on oneself (identities): a handle value comes back after
 * 1024 generations of its slot. What the kernel noted for a closed
 * handle (opened on which device, its locks) must go with it: before, a
 * created allocation that got an old opened handle's value was destroyed
 * with the device the old one had been opened on.
 */
static void test_ident_handle_notes_die(void)
{
    struct kapi_alloc_desc d = { .size = 64 };
    struct proc a, b;
    uint32_t hx, d2, h = 0;
    unsigned tries = 0;

    setup();
    make_proc(&a, "owner");
    make_proc(&b, "opener");
    hx = share_to(&a, &b, KAPI_ACCESS_READ);
    g_assert_cmpint(kapi_destroy_allocation(b.p, hx), ==, DDI_OK);
    g_assert_cmpint(kapi_create_device(b.p, &d2), ==, DDI_OK);
    /* the same value, for an allocation created on its other device */
    do {
        if (h) {
            g_assert_cmpint(kapi_destroy_allocation(b.p, h), ==, DDI_OK);
        }
        g_assert_cmpint(kapi_create_allocation(b.p, d2, &d, &h), ==, DDI_OK);
    } while (h != hx && ++tries < 400000);
    g_assert_cmpuint(h, ==, hx);
    /* the device the old handle was opened on goes: not this one */
    g_assert_cmpint(kapi_destroy_device(b.p, b.dev), ==, DDI_OK);
    g_assert_nonnull(handle_lookup(&b.p->handles, h, HANDLE_ALLOCATION));
}

/* A dead application's timer: calls with its (dead) process pointer. */
struct dead_timer {
    struct kproc *p;
    unsigned fired;
    int st;
};

static void dead_timer_fires(void *arg, uint64_t now)
{
    struct dead_timer *d = arg;
    uint32_t h;

    (void)now;
    d->fired++;
    d->st = kapi_create_device(d->p, &h);
}

/*
 * New attack (identities): a process record is reused once its process
 * is gone, and the application's code names its process by the record's
 * pointer. A timer it armed before it was killed fired later and called
 * with that pointer: the call was the next process's (a device created
 * in it, charged to it). The timers a process armed are disarmed at its
 * exit: none of its code runs again.
 */
static void test_ident_dead_timer(void)
{
    struct proc a, b;
    struct dead_timer d = { 0 };
    struct ktimer t;

    setup();
    make_proc(&a, "killed");
    d.p = a.p;
    kapi_timer_init(&t, dead_timer_fires, &d);
    kapi_timer_arm(a.p, &t, gpu.now + 300000000ull);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_false(a.p->used);
    make_proc(&b, "next");
    g_assert_true(b.p == a.p);          /* the record, reused */
    gpu.now += 250000000ull;            /* the timer's time comes */
    run();
    g_assert_cmpuint(d.fired, ==, 0);
    g_assert_cmpuint(b.p->quota.used[KQ_DEVICES], ==, 1);
    kapi_timer_cancel(b.p, &t);
}

/* Item 4: a monitored fence only moves forward. A GPU signal below one
 * already accepted is refused; one a CPU signal overtook is ignored. */
static void test_fence_forward(void)
{
    struct proc a;
    uint64_t v = 0;

    setup();
    make_proc(&a, "a");
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 10), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 3), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 5), ==, DDI_EINVAL);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 10), ==, DDI_OK);
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 10);
    /* a GPU signal of 15 overtaken by a CPU signal of 20: stays 20 */
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.p, a.ctx, a.sync, 15), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 20), ==, DDI_OK);
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_sync_value(a.p, a.sync, &v), ==, DDI_OK);
    g_assert_cmpuint(v, ==, 20);
    g_assert_cmpint(kapi_signal_cpu(a.p, a.sync, 19), ==, DDI_EINVAL);
}

/* Item 7: REALTIME needs the privilege. */
static void test_realtime_privilege(void)
{
    struct proc a;
    uint32_t h = 0;

    setup();
    make_proc(&a, "a");
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_REALTIME,
                                        &h), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_HIGH,
                                        &h), ==, DDI_OK);
    kernel_process_grant(&kern, a.p, KAPI_PRIV_REALTIME);
    g_assert_cmpint(kapi_create_context(a.p, a.dev, 0, VIDSCH_PRIO_REALTIME,
                                        &h), ==, DDI_OK);
}

/* Item 6: only the source's owner presents and moves the pointer; owning
 * needs the privilege; a stranger's present never reaches the queue, so
 * it cannot hold the owner's back. */
static void test_display_owner(void)
{
    struct proc a, o;
    struct presented got = { 0 }, gota = { 0 };
    struct kapi_alloc_desc pd = { .size = DW * 4 * DH, .primary = true };
    struct kapi_pointer ptr = { .source = 0, .visible = true };
    uint32_t pa = 0, po;

    setup_display();
    make_proc(&a, "stranger");
    make_proc(&o, "owner");
    g_assert_cmpint(kapi_create_allocation(a.p, a.dev, &pd, &pa), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_set_source_owner(a.p, a.dev, 0), ==, DDI_EACCESS);
    /* nobody owns it yet: nobody presents */
    g_assert_cmpint(present(&a, pa, a.sync, 1, 1, &gota), ==, DDI_EACCESS);
    po = make_primary(&o);
    g_assert_cmpint(present(&a, pa, a.sync, 1, 1, &gota), ==, DDI_EACCESS);
    g_assert_cmpint(present(&a, pa, 0, 0, 2, &gota), ==, DDI_EACCESS);
    g_assert_cmpint(kapi_set_pointer(a.p, a.dev, &ptr), ==, DDI_EACCESS);
    g_assert_cmpint(present(&o, po, 0, 0, 7, &got), ==, DDI_OK);
    run();
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_OK);
    g_assert_cmpuint(gota.calls, ==, 0);
    g_assert_cmpuint(kern.display.src[0].stats.presents, ==, 1);
    g_assert_cmpint(kapi_set_pointer(o.p, o.dev, &ptr), ==, DDI_OK);
    /* the owner's device goes: nobody owns the source */
    g_assert_cmpint(kapi_destroy_device(o.p, o.dev), ==, DDI_OK);
    g_assert_null(kern.display.src[0].owner);
}

/* Item 6: the owner's present waits on a fence a producer process never
 * signals. After KDISPLAY_FOREIGN_WAIT_VSYNCS vsyncs it fails with
 * DDI_ETIMEOUT and the owner's next present is shown; a present waiting
 * on the owner's own fence is left to the watchdog, never timed out. */
static void test_display_foreign_wait(void)
{
    struct proc a, o;
    struct presented got = { 0 };
    uint32_t name = 0, h = 0, po;

    setup_display();
    make_proc(&a, "producer");
    make_proc(&o, "owner");
    po = make_primary(&o);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(o.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(o.p, o.dev, name, &h), ==, DDI_OK);
    g_assert_cmpint(present(&o, po, h, 5, 1, &got), ==, DDI_OK);
    g_assert_cmpint(present(&o, po, 0, 0, 2, &got), ==, DDI_OK);
    run();
    for (unsigned i = 0; i < KDISPLAY_FOREIGN_WAIT_VSYNCS; i++) {
        fake_vsync();
        run();
    }
    /* still waiting within the bound: nothing shown, nothing failed */
    g_assert_cmpuint(got.calls, ==, 0);
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, >=, 1);
    g_assert_cmpint(got.r[0].status, ==, DDI_ETIMEOUT);
    g_assert_cmpuint(got.r[0].tag, ==, 1);
    fake_vsync();
    run();
    g_assert_cmpuint(got.calls, ==, 2);
    g_assert_cmpint(got.r[1].status, ==, DDI_OK);
    g_assert_cmpuint(got.r[1].tag, ==, 2);

    /* the owner's own fence: no time limit from the display */
    g_assert_cmpint(present(&o, po, o.sync, 5, 3, &got), ==, DDI_OK);
    for (unsigned i = 0; i < 3 * KDISPLAY_FOREIGN_WAIT_VSYNCS; i++) {
        fake_vsync();
        run();
    }
    g_assert_cmpuint(got.calls, ==, 2);
}

/* Item 10: the creator of a shared sync object is reset by TDR. The
 * opener's waits end with DDI_EABANDONED, its GPU work waiting on the
 * object runs, its device stays healthy; the creator gets DDI_ELOST. */
static void test_blame_follows_guilt(void)
{
    struct proc a, b;
    struct waited wa = { 0 }, wb = { 0 };
    struct ddi_fault f = { .kind = COPRO_FAULT_BAD_PACKET };
    uint32_t name = 0, h = 0;
    uint64_t v = 0;
    unsigned submits;

    setup();
    make_proc(&a, "guilty");
    make_proc(&b, "innocent");
    lost_calls = 0;
    kapi_set_lost_callback(b.p, on_lost, NULL);
    g_assert_cmpint(kapi_share_sync(a.p, a.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.p, a.sync, kapi_process_id(b.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.p, b.dev, name, &h), ==, DDI_OK);
    /* b waits for 5 on the CPU and the GPU; a never gets there */
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 5, on_wait, &wb), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 5, on_wait, &wa), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 5), ==, DDI_OK);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(fill(&a, a.ctx, a.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    submits = gpu.submits;
    f.fence = gpu.q[0][0].fence;
    f.context = gpu.q[0][0].context;
    kernel_upcalls.faulted(&kern, 0, &f);
    gpu.hold = false;
    run();
    g_assert_cmpuint(wa.calls, ==, 1);
    g_assert_cmpint(wa.status, ==, DDI_ELOST);
    g_assert_cmpuint(wb.calls, ==, 1);
    g_assert_cmpint(wb.status, ==, DDI_EABANDONED);
    g_assert_cmpint(kapi_sync_value(b.p, h, &v), ==, DDI_OK);
    g_assert_cmphex(v, ==, UINT64_MAX);
    /* b's held buffer ran; b is not lost and renders on */
    g_assert_cmpuint(gpu.submits, >, submits);
    g_assert_cmpuint(lost_calls, ==, 0);
    g_assert_cmpint(kapi_context_error(b.p, b.ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.p, h, 9, on_wait, &wb), ==,
                    DDI_EABANDONED);
    g_assert_cmpint(kapi_wait_gpu(b.p, b.ctx, h, 9), ==, DDI_EABANDONED);
    g_assert_cmpint(fill(&b, b.ctx, b.buf, 64), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_context_error(b.p, b.ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.p, a.sync, 9, on_wait, &wa), ==,
                    DDI_ELOST);
}

/* Item 9: a GPU-VA space maps, of the OS's VRAM, only its process's DMA
 * arena: its DMA buffers are there, other processes' are not, nor save
 * areas, sync values or the VRAM allocations are paged into. */
static void test_gpuva_space_own_only(void)
{
    static struct gv_app a, b;
    struct kgpuva_proc *ga, *gb;
    const struct kbuffer *kb = NULL;
    uint64_t a_lo, a_hi, b_lo, b_hi;

    setup_gpuva();
    gv_make(&a, "a", 1, 0);
    gv_make(&b, "b", 1, 0);
    ga = kgpuva_proc_of(&kern, a.p);
    gb = kgpuva_proc_of(&kern, b.p);
    g_assert_nonnull(ga);
    g_assert_nonnull(gb);
    a_lo = fv.os_base[ga->as];
    a_hi = a_lo + fv.os_bytes[ga->as];
    b_lo = fv.os_base[gb->as];
    b_hi = b_lo + fv.os_bytes[gb->as];
    g_assert_cmpuint(a_lo, ==, ga->dma_base);
    g_assert_cmpuint(fv.os_bytes[ga->as], ==, KGPUVA_DMA_BYTES);
    g_assert_cmpuint(fv.os_bytes[ga->as], <, kern.seg.size / 4);
    g_assert_true(a_hi <= b_lo || b_hi <= a_lo);
    /* nothing else of the kernel's in it */
    for (unsigned i = 0; i < KERNEL_MAX_SYNCS; i++) {
        if (kern.syncs[i].used) {
            g_assert_true(kern.syncs[i].gpu < a_lo ||
                          kern.syncs[i].gpu >= a_hi);
        }
    }
    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
        if (kern.contexts[i].used) {
            g_assert_true(kern.contexts[i].save_gpu + KGPUVA_SAVE_BYTES <=
                          a_lo || kern.contexts[i].save_gpu >= a_hi);
        }
    }
    g_assert_true(kern.gpuva.vram_base + kern.gpuva.vram.size <= a_lo ||
                  kern.gpuva.vram_base >= a_hi);
    /* a's command buffer lands in a's arena, b's in b's */
    gpu.hold = true;
    g_assert_cmpint(gv_render_va(&a, a.va[0]), ==, DDI_OK);
    g_assert_cmpint(gv_render_va(&b, b.va[0]), ==, DDI_OK);
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        kb = &kern.buffers[i];
        if (!kb->used) {
            continue;
        }
        if (kb->ctx->proc == a.p) {
            g_assert_true(kb->dma_gpu >= a_lo &&
                          kb->dma_gpu + kb->dmabuf.len_bytes <= a_hi);
        } else {
            g_assert_true(kb->dma_gpu >= b_lo &&
                          kb->dma_gpu + kb->dmabuf.len_bytes <= b_hi);
        }
    }
    gpu.hold = false;
    run();
    g_assert_cmpuint(ga->dma.count, ==, 0);
    g_assert_cmpuint(gb->dma.count, ==, 0);
}

/* ---- scenes: the partial render's answer to TILER_OOM (kscene.c) ---- */

#define SC_W        128u
#define SC_H        96u
#define SC_TILES    12u     /* 4 x 3 tiles of 32 */

struct scene_app {
    struct gv_app g;        /* h[0]: the target */
    uint32_t hpb;
    uint64_t pb_va;
    uint32_t cmd[64];
    struct umd_cmdbuf b;
};

static void scene_make(struct scene_app *a, const char *name)
{
    struct kapi_scene_pb_desc pd = {
        .tiles = SC_TILES, .size = 1024, .reserved = 1024, .step = 4096,
        .budget = 1024,
    };
    uint64_t f = 0;

    gv_make(&a->g, name, 1, 0);
    g_assert_cmpint(kapi_create_scene_pb(a->g.p, a->g.dev, &pd, &a->hpb,
                                         &a->pb_va), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&a->g, 0, &f), ==, DDI_OK);
    g_assert_cmpint(kapi_make_resident(a->g.p, a->g.dev, &a->hpb, 1, &f),
                    ==, DDI_OK);
    run();
}

/* The partial render: SET_TARGET, TILE_RENDER (flags as given). */
static struct kapi_scene_partial_desc scene_partial(struct scene_app *a,
                                                    bool partial,
                                                    uint64_t pb_va,
                                                    uint32_t tiles)
{
    umd_init(&a->b, a->cmd, sizeof(a->cmd));
    umd_va_set_target(&a->b, 0, a->g.va[0], SC_W * 4, SC_W, SC_H,
                      COPRO_FMT_XRGB8888);
    umd_va_tile_render(&a->b, 0, partial, pb_va, tiles);
    return (struct kapi_scene_partial_desc){
        .engine = 0, .prio = VIDSCH_PRIO_NORMAL, .cmd = umd_words(&a->b),
        .cmd_bytes = umd_bytes(&a->b),
    };
}

/* What the device leaves when the geometry of the buffer just submitted
 * on a's context stops on OOM: the save record names the scene, the
 * header says OOM; the ring is dropped; the upcall. */
static void scene_oom(struct scene_app *a, uint32_t need)
{
    struct kcontext *c = handle_lookup(&a->g.p->handles, a->g.ctx,
                                       HANDLE_CONTEXT);
    volatile struct copro_save_record *rec;
    struct copro_save_tiler t = {
        .scene = a->pb_va,
        .flags = COPRO_SAVE_TILER_SCENE | COPRO_SAVE_TILER_OOM,
    };
    volatile void *cpu;
    volatile struct copro_scene *h;
    uint64_t fence;

    g_assert_nonnull(c);
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    fence = gpu.q[0][0].fence;
    rec = vidmm_segment_cpu(&kern.seg, c->save_gpu);
    memcpy((void *)rec->reserved, &t, sizeof(t));
    g_assert_cmpint(kapi_lock(a->g.p, a->hpb, KAPI_LOCK_IGNORESYNC, &cpu),
                    ==, DDI_OK);
    h = cpu;
    h->state = COPRO_SCENE_OOM;
    h->pb_size = 1024;
    h->used = 1000;
    kapi_unlock(a->g.p, a->hpb);
    gpu.nq[0] = 0;
    kernel_upcalls.tiler_oom(&kern, 0, fence, need, gpu.completed[0]);
}

static int scene_geometry(struct scene_app *a)
{
    struct kapi_render_args ra;

    umd_init(&a->b, a->cmd, sizeof(a->cmd));
    umd_va_set_target(&a->b, 0, a->g.va[0], SC_W * 4, SC_W, SC_H,
                      COPRO_FMT_XRGB8888);
    umd_va_scene_begin(&a->b, 0, true, a->pb_va, 1024, 0);
    umd_bin_rect(&a->b, 0, 0, SC_W, SC_H, 0xff);
    umd_scene_end(&a->b);
    ra = (struct kapi_render_args){
        .cmd = umd_words(&a->b), .cmd_bytes = umd_bytes(&a->b),
    };
    return kapi_render(a->g.p, a->g.ctx, &ra);
}

/* kapi_scene_pb_partial's checks: its shape, its buffer, its engine,
 * the caller's handle. */
static void test_scene_partial_refusals(void)
{
    struct scene_app a, b;
    struct kapi_scene_partial_desc d;
    struct kernel_census start;

    setup_gpuva();
    take_census(&start);
    scene_make(&a, "a");
    scene_make(&b, "b");
    d = scene_partial(&a, false, a.pb_va, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    d = scene_partial(&a, true, a.pb_va + 8, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* another of its allocations: not this scene's parameter buffer */
    d = scene_partial(&a, true, a.g.va[0], SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    d = scene_partial(&a, true, a.pb_va, SC_TILES + 1);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* one more packet of another kind */
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    umd_rect(&a.b, 0, 0, 0, 1, 1, 0);
    d.cmd_bytes = umd_bytes(&a.b);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* two partial renders */
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    umd_va_tile_render(&a.b, 0, true, a.pb_va, SC_TILES);
    d.cmd_bytes = umd_bytes(&a.b);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    /* the copy engine does not render: the DDI says so */
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    d.engine = 1;
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==,
                    DDI_EOPCODE);
    d.engine = 7;
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_EINVAL);
    d.engine = 0;
    d.prio = VIDSCH_PRIO_REALTIME;
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==,
                    DDI_EACCESS);
    d.prio = VIDSCH_PRIO_NORMAL;
    /* another process's buffer, a stale or wrong-type handle */
    g_assert_cmpint(kapi_scene_pb_partial(b.g.p, a.hpb, &d), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.g.ctx, &d), ==,
                    DDI_EHANDLE);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.g.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(b.g.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/*
 * An OOM answered by a partial render, step by step: the geometry is not
 * resumed while the kernel's render (on its own context, not the
 * process's) is on the GPU; once that retired the geometry resumes with
 * RESUME in its own save area. Then the scene's next OOM is answered the
 * same way. Counted in vidmm_pb and the kernel.
 */
static void test_scene_partial_oom(void)
{
    struct scene_app a;
    struct kapi_scene_partial_desc d;
    struct kernel_census start;
    struct kcontext *c;
    struct vidmm_pb pb;
    uint64_t save;

    setup_gpuva();
    take_census(&start);
    scene_make(&a, "a");
    c = handle_lookup(&a.g.p->handles, a.g.ctx, HANDLE_CONTEXT);
    save = c->save_gpu;
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    run();
    for (unsigned round = 1; round <= 2; round++) {
        scene_oom(&a, 128);
        run();
        /* the kernel's partial render on the GPU, alone: not the
         * geometry, not on the geometry's context */
        g_assert_cmpuint(gpu.nq[0], ==, 1);
        g_assert_cmpuint(gpu.q[0][0].context, !=, c->hw_id);
        g_assert_cmpuint(gpu.q[0][0].save_addr, !=, save);
        g_assert_cmphex(gpu.q[0][0].flags, ==, 0);
        g_assert_cmpuint(kern.scene.partials, ==, round);
        /* it retires: the geometry resumes where it stopped */
        gpu.completed[0] = gpu.q[0][0].fence;
        gpu.nq[0] = 0;
        kernel_upcalls.dma_completed(&kern, 0, gpu.completed[0]);
        run();
        g_assert_cmpuint(gpu.nq[0], ==, 1);
        g_assert_cmpuint(gpu.q[0][0].context, ==, c->hw_id);
        g_assert_cmphex(gpu.q[0][0].flags, ==, COPRO_SUBMIT_RESUME);
        g_assert_cmpuint(gpu.q[0][0].save_addr, ==, save);
    }
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_scene_pb_stats(a.g.p, a.hpb, &pb), ==, DDI_OK);
    g_assert_cmpuint(pb.ooms, ==, 2);
    g_assert_cmpuint(pb.partials, ==, 2);
    g_assert_cmpuint(pb.fails + pb.grows, ==, 0);
    g_assert_cmpuint(kern.scene.partial_errors, ==, 0);
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(a.g.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/* Without a partial render given, the same OOM fails the context (its
 * device removed), as before. */
static void test_scene_no_partial(void)
{
    struct scene_app a;
    struct vidmm_pb pb;

    setup_gpuva();
    scene_make(&a, "a");
    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    run();
    scene_oom(&a, 128);
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_ELOST);
    g_assert_cmpint(kapi_scene_pb_stats(a.g.p, a.hpb, &pb), ==, DDI_OK);
    g_assert_cmpuint(pb.fails, ==, 1);
    g_assert_cmpuint(kern.scene.partials, ==, 0);
}

/* The parameter buffer destroyed under a held geometry, before its
 * render was queued: the render is not run, the geometry is released at
 * once (not held for ever), stops again and is refused. */
static void test_scene_pb_destroyed(void)
{
    struct scene_app a;
    struct kapi_scene_partial_desc d;
    unsigned submits;

    setup_gpuva();
    scene_make(&a, "a");
    d = scene_partial(&a, true, a.pb_va, SC_TILES);
    g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    run();
    scene_oom(&a, 128);
    g_assert_cmpint(kapi_destroy_allocation(a.g.p, a.hpb), ==, DDI_OK);
    submits = gpu.submits;
    run();
    /* the geometry again, not the render */
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpuint(gpu.q[0][0].context, ==,
                     ((struct kcontext *)handle_lookup(&a.g.p->handles,
                                                       a.g.ctx,
                                                       HANDLE_CONTEXT))
                     ->hw_id);
    g_assert_cmpuint(kern.scene.partial_errors, ==, 1);
    /* it stops on the same primitive: refused, its context lost */
    gpu.nq[0] = 1;
    kernel_upcalls.tiler_oom(&kern, 0, gpu.q[0][0].fence, 128,
                             gpu.completed[0]);
    gpu.nq[0] = 0;
    gpu.hold = false;
    run();
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_ELOST);
    g_assert_true(kernel_gpu_idle(&kern));
}

/*
 * The process killed at the worst moments: right after the OOM was
 * answered (its render not yet queued), and while its geometry is held
 * behind its render on the GPU. Everything comes back (census), nothing
 * runs for the dead process afterwards, and the kernel's context goes
 * with its device.
 */
static void test_scene_partial_killed(void)
{
    struct kernel_census start;

    for (unsigned when = 0; when < 2; when++) {
        struct scene_app a;
        struct kapi_scene_partial_desc d;
        unsigned submits;

        setup_gpuva();
        take_census(&start);
        scene_make(&a, "a");
        d = scene_partial(&a, true, a.pb_va, SC_TILES);
        g_assert_cmpint(kapi_scene_pb_partial(a.g.p, a.hpb, &d), ==, DDI_OK);
        gpu.hold = true;
        g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
        run();
        scene_oom(&a, 128);
        if (when == 1) {
            run();      /* the render is on the GPU, the geometry held */
            g_assert_cmpuint(gpu.nq[0], ==, 1);
        }
        g_assert_cmpint(kapi_process_exit(a.g.p), ==, DDI_OK);
        run();
        submits = gpu.submits;
        if (when == 1) {
            /* the render is preempted (the fake answers once the ring is
             * empty): what comes back is lost */
            gpu.nq[0] = 0;
        }
        gpu.hold = false;
        run();
        g_assert_cmpuint(gpu.submits, ==, submits);
        g_assert_cmpuint(kern.scene.partial_errors, ==, 0);
        assert_census(&start);
    }
}

/* A fill of the first 4 KiB at va on context ctx of a (a tile pass's
 * stand-in: what matters is whether it runs). */
static int scene_fill(struct scene_app *a, uint32_t ctx, uint64_t va)
{
    struct kapi_render_args ra;

    umd_init(&a->b, a->cmd, sizeof(a->cmd));
    umd_va_fill(&a->b, va, 4096, 0x5a5a5a5a);
    ra = (struct kapi_render_args){
        .cmd = umd_words(&a->b), .cmd_bytes = umd_bytes(&a->b),
    };
    return kapi_render(a->g.p, ctx, &ra);
}

/*
 * A device lost stops all of its contexts [WDDM: device removed]: the
 * scene's geometry cannot be built (an OOM with no answer) and its
 * context is lost; the process's tile context, held on the geometry's
 * signal, is lost with it: its held buffer never runs (reported lost),
 * later calls on it get DDI_ELOST. The sync object is signalled with an
 * error: the process's own CPU waiter gets DDI_ELOST; another process
 * that opened it gets DDI_EABANDONED on the CPU and its GPU wait is
 * released (its buffer runs, its context stays healthy). A signal the
 * lost device queued on another process's object is written with its
 * value: that waiter is released too, and the object is not poisoned.
 */
static void test_scene_lost_device(void)
{
    struct scene_app a, b;
    struct waited wa = { 0 }, wb = { 0 }, wown = { 0 };
    struct kcontext *tc, *bc;
    uint32_t tile, name, hb, ha;
    uint64_t value = 0, lost;
    unsigned submits;

    setup_gpuva();
    scene_make(&a, "a");
    scene_make(&b, "b");
    g_assert_cmpint(kapi_create_context(a.g.p, a.g.dev, 0, VIDSCH_PRIO_NORMAL,
                                        &tile), ==, DDI_OK);
    tc = handle_lookup(&a.g.p->handles, tile, HANDLE_CONTEXT);
    bc = handle_lookup(&b.g.p->handles, b.g.ctx, HANDLE_CONTEXT);
    g_assert_cmpint(kapi_share_sync(a.g.p, a.g.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(a.g.p, a.g.sync,
                                    kapi_process_id(b.g.p),
                                    KAPI_ACCESS_READ), ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(b.g.p, b.g.dev, name, &hb), ==, DDI_OK);
    /* and a signals a sync object of b's (granted write) after its pass */
    g_assert_cmpint(kapi_share_sync(b.g.p, b.g.sync, &name), ==, DDI_OK);
    g_assert_cmpint(kapi_grant_sync(b.g.p, b.g.sync,
                                    kapi_process_id(a.g.p),
                                    KAPI_ACCESS_READ | KAPI_ACCESS_WRITE),
                    ==, DDI_OK);
    g_assert_cmpint(kapi_open_sync(a.g.p, a.g.dev, name, &ha), ==, DDI_OK);

    gpu.hold = true;
    g_assert_cmpint(scene_geometry(&a), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.g.p, a.g.ctx, a.g.sync, 1), ==,
                    DDI_OK);
    /* the tile pass waits for the geometry, as the tiled game's does */
    g_assert_cmpint(kapi_wait_gpu(a.g.p, tile, a.g.sync, 1), ==, DDI_OK);
    g_assert_cmpint(scene_fill(&a, tile, a.g.va[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_signal_gpu(a.g.p, tile, ha, 5), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(a.g.p, a.g.sync, 1, on_wait, &wa), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.g.p, b.g.sync, 5, on_wait, &wown), ==,
                    DDI_OK);
    /* another process's work waits on it too, on the GPU and the CPU */
    g_assert_cmpint(kapi_wait_gpu(b.g.p, b.g.ctx, hb, 1), ==, DDI_OK);
    g_assert_cmpint(scene_fill(&b, b.g.ctx, b.g.va[0]), ==, DDI_OK);
    g_assert_cmpint(kapi_wait_cpu(b.g.p, hb, 1, on_wait, &wb), ==, DDI_OK);
    run();
    lost = kern.stats.buffers_lost;
    scene_oom(&a, 128);     /* the geometry alone on the GPU */
    submits = gpu.submits;
    run();
    /* one buffer went to the GPU since: b's, released; nothing of a's */
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpuint(gpu.nq[0], ==, 1);
    g_assert_cmpuint(gpu.q[0][0].context, ==, bc->hw_id);
    g_assert_cmpuint(gpu.q[0][0].context, !=, tc->hw_id);
    gpu.hold = false;
    run();
    g_assert_cmpuint(gpu.submits, ==, submits + 1);
    g_assert_cmpint(kapi_context_error(a.g.p, a.g.ctx), ==, DDI_ELOST);
    g_assert_cmpint(kapi_context_error(a.g.p, tile), ==, DDI_ELOST);
    g_assert_true(vidsch_ctx_is_lost(tc->vctx));
    g_assert_cmpuint(vidsch_stats(kern.vs)->contexts_lost_with_device, ==, 1);
    /* the geometry and the held tile pass: lost, never run */
    g_assert_cmpuint(kern.stats.buffers_lost, ==, lost + 2);
    g_assert_cmpint(scene_fill(&a, tile, a.g.va[0]), ==, DDI_ELOST);
    g_assert_cmpint(kapi_wait_gpu(a.g.p, tile, a.g.sync, 2), ==, DDI_ELOST);
    g_assert_cmpuint(wa.calls, ==, 1);
    g_assert_cmpint(wa.status, ==, DDI_ELOST);
    g_assert_cmpuint(wb.calls, ==, 1);
    g_assert_cmpint(wb.status, ==, DDI_EABANDONED);
    /* D3D12's value for a removed device's fence */
    g_assert_cmpint(kapi_sync_value(b.g.p, hb, &value), ==, DDI_OK);
    g_assert_cmphex(value, ==, UINT64_MAX);
    /* b's own object that a was to signal: released at the value a
     * promised (b's waiter does not hang), never poisoned: b signals on */
    g_assert_cmpuint(wown.calls, ==, 1);
    g_assert_cmpint(wown.status, ==, DDI_OK);
    g_assert_cmpint(kapi_sync_value(b.g.p, b.g.sync, &value), ==, DDI_OK);
    g_assert_cmpuint(value, ==, 5);
    g_assert_cmpint(kapi_signal_cpu(b.g.p, b.g.sync, 6), ==, DDI_OK);
    g_assert_cmpint(kapi_context_error(b.g.p, b.g.ctx), ==, DDI_OK);
    g_assert_cmpint(scene_fill(&b, b.g.ctx, b.g.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpuint(gpu.submits, ==, submits + 2);
    g_assert_true(kernel_gpu_idle(&kern));
}

/* ---- a quota on every table (issue 26 items 7-11) ---- */

/*
 * Structural: every table of the kernel's list (kernel/ktables.h) has a
 * rule, and every quota covers its table: the quota kind's pool is the
 * table, each of KERNEL_MAX_PROCS processes is guaranteed one entry at
 * least (presents excepted: one owner per source queues them), a
 * process's default limit is not all of it; every quota kind charges
 * some table or pool; every bound holds. scripts/check-kernel-tables.py
 * fails for an array of a kernel struct missing from the list.
 */
static void test_quota_tables(void)
{
    bool covered[KQ_COUNT] = { false };
    struct kernel_census c;
    const struct ktable *t;
    struct kproc *p;
    unsigned n;

    setup_gpuva_vidmm();
    p = kapi_process_create(&kern, "probe");
    g_assert_nonnull(p);
    t = ktables(&n);
    g_assert_cmpuint(n, <=, KTABLES_MAX);
    kernel_census(&kern, &c);
    for (unsigned i = 0; i < n; i++) {
        g_test_message("%s: rule %d, %" PRIu64 " of %" PRIu64, t[i].field,
                       t[i].rule, c.tables[i], t[i].capacity);
        for (unsigned j = 0; j < i; j++) {
            g_assert_cmpstr(t[i].field, !=, t[j].field);
        }
        if (t[i].capacity) {
            g_assert_cmpuint(c.tables[i], <=, t[i].capacity);
        }
        switch (t[i].rule) {
        case KTABLE_QUOTA: {
            uint64_t pool = kquota_pool(&kern, t[i].kind);

            g_assert_cmpuint(t[i].kind, <, KQ_COUNT);
            covered[t[i].kind] = true;
            if (t[i].capacity) {
                g_assert_cmpuint(pool, ==, t[i].capacity);
            }
            if (t[i].kind != KQ_PRESENTS) {
                g_assert_cmpuint(pool / KERNEL_MAX_PROCS, >=, 1);
                g_assert_cmpuint(p->quota.reserve[t[i].kind], >=, 1);
            }
            g_assert_cmpuint(p->quota.limit[t[i].kind], <, pool);
            g_assert_cmpuint(p->quota.limit[t[i].kind], >, 0);
            break;
        }
        case KTABLE_BOUNDED:
            g_assert_cmpuint(t[i].bound, <=, t[i].capacity);
            g_assert_nonnull(t[i].why);
            break;
        default:
            g_assert_nonnull(t[i].why);
            break;
        }
    }
    for (unsigned q = 0; q < KQ_COUNT; q++) {
        g_test_message("%s: pool %" PRIu64, kquota_kind_name(q),
                       kquota_pool(&kern, q));
        g_assert_true(covered[q]);
    }
}

/* What one charge of kind takes in the generic test: an entry, or a
 * guarantee's worth of bytes. */
static uint64_t unit_of(enum kquota_kind q)
{
    uint64_t pool = kquota_pool(&kern, q);

    return q == KQ_KVRAM || q == KQ_BACKING || q == KQ_PINNED ||
           q == KQ_GPUVA_VRAM || q == KQ_GPUVA_APER
               ? pool / KERNEL_MAX_PROCS / 4 : 1;
}

/* A process, in GPU-VA mode if gpuva (a GPU-VA device: the guarantees
 * of the GPU-VA pools are kept for such processes only). */
static struct kproc *gv_proc(const char *name, bool gpuva)
{
    struct kproc *p = kapi_process_create(&kern, name);
    uint32_t hdev;

    g_assert_nonnull(p);
    if (gpuva) {
        g_assert_cmpint(kapi_create_device_gpuva(p, &hdev), ==, DDI_OK);
    }
    return p;
}

/*
 * Every quota kind, generically (a kind added is covered): a hostile
 * process fills the pool as far as it may (refused with DDI_EQUOTA at
 * its limit), and a victim started later still gets its guarantee; a
 * victim started first keeps its whole guarantee against every other
 * process filling what it can (fifteen; five for the GPU-VA pools, whose
 * guarantees are kept for processes in GPU-VA mode).
 */
static void test_quota_every_kind(void)
{
    for (unsigned q = 0; q < KQ_COUNT; q++) {
        struct kproc *evil[KERNEL_MAX_PROCS - 1], *victim;
        /* GPU-VA pools: processes with a GPU-VA device (the fake driver
         * has 7 address spaces) */
        bool gv = kquota_gpuva_kind(q);
        unsigned others = gv ? 5 : KERNEL_MAX_PROCS - 1;
        uint64_t unit, got;
        int st;

        if (q == KQ_PRESENTS) {
            continue;   /* the source owner's alone (test_quota_tables) */
        }
        setup_gpuva_vidmm();
        unit = unit_of(q);
        g_assert_cmpuint(unit, >, 0);
        evil[0] = gv_proc("evil", gv);
        while ((st = kquota_charge(&kern, evil[0], q, unit)) == DDI_OK) {
        }
        g_assert_cmpint(st, ==, DDI_EQUOTA);
        g_assert_cmpuint(evil[0]->quota.used[q] + unit, >,
                         evil[0]->quota.limit[q]);
        victim = gv_proc("victim", gv);
        g_test_message("%s: victim guaranteed %" PRIu64,
                       kquota_kind_name(q), victim->quota.reserve[q]);
        g_assert_cmpuint(victim->quota.reserve[q], >=, unit);
        for (got = victim->quota.used[q];
             got + unit <= victim->quota.reserve[q];
             got += unit) {
            g_assert_cmpint(kquota_charge(&kern, victim, q, unit), ==,
                            DDI_OK);
        }

        /* the victim first, then everybody else */
        setup_gpuva_vidmm();
        victim = gv_proc("victim", gv);
        for (unsigned i = 0; i < others; i++) {
            evil[i] = gv_proc("evil", false);  /* (the pool may be full) */
            g_assert_nonnull(evil[i]);
            while (kquota_charge(&kern, evil[i], q, unit) == DDI_OK) {
            }
        }
        for (got = victim->quota.used[q];
             got + unit <= victim->quota.reserve[q];
             got += unit) {
            g_assert_cmpint(kquota_charge(&kern, victim, q, unit), ==,
                            DDI_OK);
        }
        g_assert_cmpuint(victim->quota.used[q], >=,
                         victim->quota.reserve[q] / unit * unit);
    }
}

/* Item 7: one process waited for vsync until refused (it held all 32
 * slots, and a compositor started later got DDI_ENOMEM 200 times of
 * 200); now its quota stops it and the compositor waits. */
static void test_quota_vsync_waits(void)
{
    struct proc evil, victim;
    unsigned n = 0;
    int st;

    setup_display();
    make_proc(&evil, "evil");
    vsync_calls = 0;
    while (n < 2 * KDISPLAY_VSYNC_WAITS &&
           (st = kapi_wait_vsync(evil.p, evil.dev, 0, on_vsync_count,
                                 NULL)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KDISPLAY_VSYNC_WAITS / 2);
    make_proc(&victim, "compositor");
    for (unsigned i = 0; i < KDISPLAY_VSYNC_WAITS / KERNEL_MAX_PROCS; i++) {
        g_assert_cmpint(kapi_wait_vsync(victim.p, victim.dev, 0,
                                        on_vsync_count, NULL), ==, DDI_OK);
    }
    fake_vsync();
    run();
    g_assert_cmpuint(vsync_calls, ==, n + KDISPLAY_VSYNC_WAITS /
                                          KERNEL_MAX_PROCS);
    /* delivered: given back */
    g_assert_cmpuint(evil.p->quota.used[KQ_VSYNC_WAITS], ==, 0);
    g_assert_cmpuint(victim.p->quota.used[KQ_VSYNC_WAITS], ==, 0);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Item 8, names: one process shared objects until the name table was
 * full; a window started later could not share with the compositor. Now
 * its quota stops it; the window shares, grants, the compositor opens;
 * names go back with their objects, to their creators. */
static void test_quota_shared_names(void)
{
    struct kapi_alloc_desc d = { .size = 64 };
    struct proc evil, window, comp;
    struct kernel_census start;
    uint32_t h[KERNEL_MAX_SHARED], name;
    unsigned n;
    int st = DDI_OK;

    setup();
    take_census(&start);
    make_proc(&evil, "evil");
    for (n = 0; n < KERNEL_MAX_SHARED; n++) {
        g_assert_cmpint(kapi_create_allocation(evil.p, evil.dev, &d, &h[n]),
                        ==, DDI_OK);
        st = kapi_share_allocation(evil.p, h[n], &name);
        if (st != DDI_OK) {
            break;
        }
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KERNEL_MAX_SHARED / 2);
    make_proc(&window, "window");
    make_proc(&comp, "compositor");
    g_assert_cmpuint(share_to(&window, &comp, KAPI_ACCESS_READ), !=, 0);
    g_assert_cmpuint(window.p->quota.used[KQ_SHARED], ==, 1);
    for (unsigned i = 0; i <= n; i++) {
        g_assert_cmpint(kapi_destroy_allocation(evil.p, h[i]), ==, DDI_OK);
    }
    g_assert_cmpuint(evil.p->quota.used[KQ_SHARED], ==, 0);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(window.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(comp.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/* Item 8, grants: one process granted one name to process ids until the
 * grant table was full; a window started later could not grant its
 * buffer to the compositor. Now its quota stops it; grants go with their
 * name (they lingered until their slot was reused), to their granter. */
static void test_quota_grants(void)
{
    struct proc evil, window, comp;
    struct kernel_census start;
    uint32_t name;
    unsigned n;
    int st = DDI_OK;

    setup();
    take_census(&start);
    make_proc(&evil, "evil");
    g_assert_cmpint(kapi_share_allocation(evil.p, evil.buf, &name), ==,
                    DDI_OK);
    for (n = 0; n < 2 * KISOLATE_GRANTS; n++) {
        st = kapi_grant_allocation(evil.p, evil.buf, 100 + n,
                                   KAPI_ACCESS_READ);
        if (st != DDI_OK) {
            break;
        }
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KISOLATE_GRANTS / 2);
    make_proc(&window, "window");
    make_proc(&comp, "compositor");
    g_assert_cmpuint(share_to(&window, &comp, KAPI_ACCESS_READ), !=, 0);
    g_assert_cmpuint(window.p->quota.used[KQ_GRANTS], ==, 1);
    g_assert_cmpint(kapi_destroy_allocation(evil.p, evil.buf), ==, DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GRANTS], ==, 0);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(window.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(comp.p), ==, DDI_OK);
    run();
    assert_census(&start);
}

/* Item 9: one process made parameter buffers until the table was full
 * (8, no quota), and another's first one was refused. */
static void test_quota_scene_pbs(void)
{
    struct kapi_scene_pb_desc pd = {
        .tiles = SC_TILES, .size = 1024, .reserved = 1024, .step = 4096,
        .budget = 1024,
    };
    struct gv_app evil, victim;
    uint32_t h;
    uint64_t va;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 0, 0);
    while (n < 2 * KSCENE_MAX_PB &&
           (st = kapi_create_scene_pb(evil.p, evil.dev, &pd, &h, &va)) ==
               DDI_OK) {
        n++;
        run();      /* the aperture mappings' paging buffers retire */
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KSCENE_MAX_PB / 2);
    gv_make(&victim, "victim", 0, 0);
    g_assert_cmpint(kapi_create_scene_pb(victim.p, victim.dev, &pd, &h, &va),
                    ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_SCENE_PBS], ==, 1);
    run();
    /* its record goes with its allocation (let go at the next creation,
     * whoever's), its charge with it */
    g_assert_cmpint(kapi_destroy_allocation(victim.p, h), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_create_scene_pb(victim.p, victim.dev, &pd, &h, &va),
                    ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_SCENE_PBS], ==, 1);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Item 10: the GPU-VA allocation table (64) was smaller than one
 * process's allocation limit (80): a process took all of it and
 * another's first GPU-VA allocation got DDI_ENOMEM. */
static void test_quota_gpuva_allocs(void)
{
    struct kapi_alloc_desc d = { .size = 4096 };
    struct gv_app evil, victim;
    uint32_t h;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 0, 0);
    while (n < KERNEL_MAX_ALLOCS &&
           (st = kapi_create_allocation(evil.p, evil.dev, &d, &h)) ==
               DDI_OK) {
        n++;
        run();      /* the aperture mappings' paging buffers retire */
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, KGPUVA_MAX_ALLOCS / 2);
    gv_make(&victim, "victim", 0, 0);
    for (unsigned i = 0; i < KGPUVA_MAX_ALLOCS / KERNEL_MAX_PROCS; i++) {
        g_assert_cmpint(kapi_create_allocation(victim.p, victim.dev, &d, &h),
                        ==, DDI_OK);
        run();
    }
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(victim.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
    g_assert_cmpuint(kern.stats.processes_freed, ==, 2);
}

/* Item 11: a process's budget was its own (the whole VRAM by default)
 * and what it references residency never takes back: one referenced all
 * of the GPU-VA VRAM and a victim's first MakeResident got DDI_ENOMEM.
 * Now referenced VRAM is a quota: the hog is refused (DDI_EQUOTA) at
 * half, its budget is no more than that whatever it asks, and the victim
 * makes its allocation resident. */
static void test_quota_gpuva_vram(void)
{
    struct gv_app evil, victim;
    uint64_t f = 0, budget, usage;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 4, 0);
    g_assert_cmpint(kapi_set_budget(evil.p, GV_VRAM), ==, DDI_OK);
    g_assert_cmpint(kapi_set_trim_callback(evil.p, NULL, NULL), ==, DDI_OK);
    while (n < evil.n && (st = gv_resident(&evil, n, &f)) == DDI_OK) {
        n++;
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpint(kapi_query_video_memory(evil.p, &budget, &usage), ==,
                    DDI_OK);
    g_assert_cmpuint(budget, ==, GV_VRAM / 2);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    run();
    gv_make(&victim, "victim", 1, 0);
    g_assert_cmpint(gv_resident(&victim, 0, &f), ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_GPUVA_VRAM], ==, GV_ALLOC);
    /* an Evict gives it back, a device's end too */
    g_assert_cmpint(kapi_evict(victim.p, victim.dev, &victim.h[0], 1, NULL),
                    ==, DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    g_assert_cmpint(kapi_destroy_device(evil.p, evil.dev), ==, DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    run();
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Attacking item 11's fix: an allocation evicted while its owner's work
 * is in flight stays in VRAM (residency may not page it out under that
 * work), so a quota of referenced bytes alone let a process reference
 * half, evict it behind a buffer that never runs, reference the other
 * half, and leave a victim's MakeResident DDI_EBUSY for ever. It stays
 * charged until the work retired (the owner's MakeResident meanwhile:
 * DDI_EBUSY, as residency answers for memory still in use). */
static void test_quota_gpuva_vram_busy(void)
{
    struct gv_app evil, victim;
    uint32_t never;
    uint64_t f = 0;

    setup_gpuva();
    gv_make(&evil, "evil", 4, 0);
    g_assert_cmpint(kapi_set_trim_callback(evil.p, NULL, NULL), ==, DDI_OK);
    g_assert_cmpint(kapi_create_sync(evil.p, evil.dev, 0, &never), ==,
                    DDI_OK);
    g_assert_cmpint(kapi_wait_gpu(evil.p, evil.ctx, never, 1), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&evil, 0, &f), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&evil, 1, &f), ==, DDI_OK);
    g_assert_cmpint(gv_render_va(&evil, evil.va[0]), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_evict(evil.p, evil.dev, evil.h, 2, NULL), ==,
                    DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    /* within its quota once its work retired: retry then */
    g_assert_cmpint(gv_resident(&evil, 2, &f), ==, DDI_EBUSY);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    /* the same ones again: charged once */
    g_assert_cmpint(kapi_make_resident(evil.p, evil.dev, evil.h, 2, &f), ==,
                    DDI_OK);
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 2 * GV_ALLOC);
    g_assert_cmpint(kapi_evict(evil.p, evil.dev, evil.h, 2, NULL), ==,
                    DDI_OK);
    run();
    gv_make(&victim, "victim", 1, 0);
    g_assert_cmpint(gv_resident(&victim, 0, &f), ==, DDI_OK);
    /* the work retires: what it kept goes back */
    g_assert_cmpint(kapi_signal_cpu(evil.p, never, 1), ==, DDI_OK);
    run();
    g_assert_cmpuint(evil.p->quota.used[KQ_GPUVA_VRAM], ==, 0);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* Found looking for every pool: each GPU-VA allocation's backing is
 * mapped at a range of the GPU-VA aperture window for its life, and the
 * window (4 MiB here) is smaller than a process's backing-store limit
 * (6 MiB): one process filled it and another's first allocation got
 * DDI_ENOMEM. */
static void test_quota_gpuva_aperture(void)
{
    struct kapi_alloc_desc big = { .size = GV_VRAM };  /* the largest */
    struct kapi_alloc_desc d = { .size = GV_ALLOC };
    struct gv_app evil, victim;
    uint32_t h;
    unsigned n = 0;
    int st;

    setup_gpuva();
    gv_make(&evil, "evil", 0, 0);
    while (n < 64 && (st = kapi_create_allocation(evil.p, evil.dev, &big,
                                                  &h)) == DDI_OK) {
        n++;
        run();
    }
    g_assert_cmpint(st, ==, DDI_EQUOTA);
    g_assert_cmpuint(n, ==, (4u << 20) / 2 / GV_VRAM);
    gv_make(&victim, "victim", 0, 0);
    g_assert_cmpint(kapi_create_allocation(victim.p, victim.dev, &d, &h), ==,
                    DDI_OK);
    g_assert_cmpuint(victim.p->quota.used[KQ_GPUVA_APER], ==, GV_ALLOC);
    g_assert_cmpint(kapi_process_exit(evil.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(victim.p), ==, DDI_OK);
    run();
    g_assert_cmpuint(kern.stats.processes_freed, ==, 2);
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* ---- attack2: second-round hostile applications (fail on this kernel) ---- */

struct a2_trim {
    struct gv_app *a;
    int st, evict_st;
    unsigned calls, waits_done, allowed;   /* allowed: waits not refused */
};

static void a2_wait_done(void *arg, int status)
{
    struct a2_trim *t = arg;

    (void)status;
    t->waits_done++;
}

static void a2_on_trim(void *arg, uint64_t bytes)
{
    struct a2_trim *t = arg;

    (void)bytes;
    t->calls++;
    /* a change (a CPU-wait slot taken, work queued) made from inside
     * another process's MakeResident: a trim callback may only evict */
    t->st = kapi_wait_throttle(t->a->p, a2_wait_done, t);
    t->allowed += t->st != DDI_EACCESS;
    t->evict_st = kapi_evict(t->a->p, t->a->dev, &t->a->h[0], 1, NULL);
    if (t->evict_st == DDI_OK) {
        t->a->held[0] = false;
    }
}

/*
 * attack2/trim-wait-throttle: kapi_wait_throttle makes no class check
 * (no KCALL), so a trim callback running inside ANOTHER process's
 * MakeResident takes a wait slot and queues kernel work there. Rule
 * broken: "a call made from a callback is checked against what that
 * callback may do" (kernel_internal.h: a trim callback may only evict;
 * everything else is DDI_EACCESS). kapi_timer_arm and
 * kapi_set_lost_callback have no class check either.
 */
static void test_attack2_trim_wait_throttle(void)
{
    struct gv_app a, v;
    struct a2_trim t = { .a = &a };
    uint64_t f = 0;

    setup_gpuva();
    gv_make(&a, "trimmed", 4, 0);
    g_assert_cmpint(kapi_set_trim_callback(a.p, a2_on_trim, &t), ==, DDI_OK);
    gv_make(&v, "victim", 2, 2 * GV_ALLOC);
    for (unsigned i = 0; i < 3; i++) {
        g_assert_cmpint(gv_resident(&a, i, &f), ==, DDI_OK);
        run();
    }
    g_assert_cmpint(gv_resident(&v, 0, &f), ==, DDI_OK);
    run();
    g_assert_cmpint(kapi_set_budget(a.p, 2 * GV_ALLOC), ==, DDI_OK);
    g_assert_cmpint(gv_resident(&v, 1, &f), ==, DDI_OK);
    g_assert_cmpuint(t.calls, >=, 1);
    g_assert_cmpint(t.evict_st, ==, DDI_OK);
    /* the breach: OK, and no refusal counted; now every wait the trim
     * callback asked for was refused, and counted as a refusal */
    g_assert_cmpuint(t.allowed, ==, 0);
    g_assert_cmpuint(kern.cb.refused, >=, t.calls);
    run();
    g_assert_cmpuint(t.waits_done, ==, 0);
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    g_assert_cmpint(kapi_process_exit(v.p), ==, DDI_OK);
    run();
}

static void a2_count_fire(void *arg, uint64_t now)
{
    (void)now;
    (*(unsigned *)arg)++;
}

/*
 * attack2/timer-init-armed: kapi_timer_init on a timer the caller armed
 * (its own memory, a legal call: kapi.h forbids nothing) wipes its link
 * while the kernel's list still holds it. The hostile process arms its
 * timer first in the list and re-initialises it: when it is popped the
 * rest of the kernel's timer list goes with it. Another process's timer
 * never fires (frozen), nor would vidsch's quantum/TDR timers. Rule:
 * one process must never freeze another; the kernel's own list must not
 * live in state an application call can rewrite behind its back.
 */
static void test_attack2_timer_init_armed(void)
{
    struct proc a, b;
    struct ktimer ta, tb;
    unsigned a_fired = 0, b_fired = 0;

    setup();
    make_proc(&a, "hostile");
    make_proc(&b, "victim");
    kapi_timer_init(&tb, a2_count_fire, &b_fired);
    kapi_timer_arm(b.p, &tb, gpu.now + 2000000);
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    kapi_timer_arm(a.p, &ta, gpu.now + 1000);
    /* armed, then initialised again: legal calls on its own memory */
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    gpu.now += 5000000;
    run();
    /* the victim's timer was due 3 ms ago */
    g_assert_cmpuint(b_fired, ==, 1);
}

/*
 * attack2/timer-init-rearm-cycle: the same, then armed again: the
 * timer is inserted in front of itself (t->next == t). The kernel's
 * timer list is a cycle: the next walk of it (any kapi_timer_arm, any
 * vidsch timer, an exit's disarm) never ends -- the kernel hangs. The
 * test walks the list with a bound instead of hanging.
 */
static void test_attack2_timer_init_rearm_cycle(void)
{
    struct proc a;
    struct ktimer ta;
    unsigned a_fired = 0, n = 0;

    setup();
    make_proc(&a, "hostile");
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    kapi_timer_arm(a.p, &ta, gpu.now + 1000);
    kapi_timer_init(&ta, a2_count_fire, &a_fired);
    kapi_timer_arm(a.p, &ta, gpu.now + 1000);
    for (struct ktimer *t = kern.ev.timers.head; t && n <= 1000;
         t = t->next) {
        n++;
    }
    /* a well-formed list ends, and has as many entries as it counts */
    g_assert_cmpuint(n, <=, 1000);
    g_assert_cmpuint(n, ==, kern.ev.timers.count);
    kapi_timer_cancel(a.p, &ta);
}

/*
 * attack2/timer-init-outlives-exit: the exit disarms the timers whose
 * owner is the exiting pid; kapi_timer_init on an armed timer resets
 * its owner to 0 (the kernel's) and "armed" to false while it stays
 * linked behind another process's timer. The exit leaves it there; when
 * that timer is popped the hostile one comes to the head and fires
 * after its process exited and after its record went to a new process:
 * its callback calls with its old process pointer and creates a device
 * charged to the new process (the ident/dead-timer breach of issue 26,
 * again). Rule: none of an exited process's code runs again; a later
 * process is never taken for it.
 */
static void test_attack2_timer_init_outlives_exit(void)
{
    struct proc a, b, c;
    struct dead_timer d = { 0 };
    struct ktimer ta, tb;
    unsigned b_fired = 0;

    setup();
    make_proc(&b, "bystander");
    make_proc(&a, "killed");
    d.p = a.p;
    kapi_timer_init(&tb, a2_count_fire, &b_fired);
    kapi_timer_arm(b.p, &tb, gpu.now + 300000000ull);
    kapi_timer_init(&ta, dead_timer_fires, &d);
    kapi_timer_arm(a.p, &ta, gpu.now + 400000000ull);
    kapi_timer_init(&ta, dead_timer_fires, &d);   /* still linked */
    g_assert_cmpint(kapi_process_exit(a.p), ==, DDI_OK);
    run();
    g_assert_false(a.p->used);
    make_proc(&c, "next");
    g_assert_true(c.p == a.p);          /* the record, reused */
    gpu.now += 350000000ull;            /* the bystander's timer's time */
    run();
    g_test_message("dead callback ran %u time(s), its create_device "
                   "returned %d; devices charged to the next process: %u",
                   d.fired, d.st, (unsigned)c.p->quota.used[KQ_DEVICES]);
    g_assert_cmpuint(b_fired, ==, 1);
    g_assert_cmpuint(d.fired, ==, 0);
    g_assert_cmpuint(c.p->quota.used[KQ_DEVICES], ==, 1);
}

/* ---- attack3: third-round hostile applications (fail on this kernel) ---- */

/*
 * attack3/timer-quota: kapi_timer_arm takes no charge and has no limit.
 * The hostile process arms 8000 timers of its own memory, all due
 * far in the future at the same time; every later kapi_timer_arm by
 * anyone (and vidsch's quantum/TDR timers) walks past all of them
 * (ktimer_arm is a sorted-list insert), and each exit's disarm walks
 * them too: one process makes every other's arm O(its count) without
 * bound -- the loop starves deterministically as the count grows.
 * Rule (docs/os.rst, "A quota on every table"): no process may grow a
 * kernel table without a charge and a limit. The test asserts that
 * the kernel's timer list does not hold more of one process's timers
 * than a generous bound (4096); a kernel with any per-process timer
 * quota refuses the rest.
 */
#define A3_TIMERS 8000
static void test_attack3_timer_quota(void)
{
    struct proc a, b;
    static struct ktimer ta[A3_TIMERS];
    struct ktimer tb;
    unsigned a_fired = 0, b_fired = 0, a_armed = 0;

    setup();
    make_proc(&a, "hostile");
    make_proc(&b, "victim");
    for (unsigned i = 0; i < A3_TIMERS; i++) {
        kapi_timer_init(&ta[i], a2_count_fire, &a_fired);
        kapi_timer_arm(a.p, &ta[i], gpu.now + 1000000000000ull);
    }
    for (struct ktimer *t = kern.ev.timers.head; t; t = t->next) {
        a_armed += t->owner == a.p->pid;
    }
    /* the victim's arm walks the hostile process's whole list */
    kapi_timer_init(&tb, a2_count_fire, &b_fired);
    kapi_timer_arm(b.p, &tb, gpu.now + 2000000000000ull);
    g_test_message("one process holds %u timers on the kernel's list "
                   "(%u in all)", a_armed,
                   (unsigned)kern.ev.timers.count);
    kapi_timer_cancel(b.p, &tb);
    for (unsigned i = 0; i < A3_TIMERS; i++) {
        kapi_timer_cancel(a.p, &ta[i]);
    }
    g_assert_cmpuint(a_armed, <=, 4096);
}

/*
 * attack3/gpuva-guarantee-before-device: a process's guarantee of the
 * GPU-VA pools is kept "from its first GPU-VA device on" (docs/os.rst),
 * and nothing checks, when that device comes, that the guarantee is
 * still there. The victim is created first, on an empty machine
 * (guarantee: a sixteenth of the GPU-VA VRAM); before it makes its
 * GPU-VA device two hostile processes, each within its quota (half),
 * reference all of the GPU-VA VRAM. The victim's device is created
 * (DDI_OK), yet its first MakeResident of one page -- far below its
 * guarantee -- fails with DDI_ENOMEM for as long as the hostile
 * processes like. Rule: each live process is guaranteed a sixteenth of
 * each pool (or what the others left when it was created); a call that
 * would take another's guarantee fails. A correct kernel either keeps
 * the victim's share or refuses its GPU-VA device with a clear error.
 */
static void test_attack3_gpuva_guarantee_before_device(void)
{
    struct gv_app h1, h2;
    struct kproc *v;
    struct kapi_alloc_desc d = { .size = 4096, .cpu_visible = true };
    uint32_t dev, h;
    uint64_t f = 0, va;
    int st;

    setup_gpuva();
    v = kapi_process_create(&kern, "victim");
    g_assert_nonnull(v);
    g_test_message("victim's guarantee of GPU-VA VRAM: %" PRIu64 " bytes",
                   v->quota.reserve[KQ_GPUVA_VRAM]);
    g_assert_cmpuint(v->quota.reserve[KQ_GPUVA_VRAM], >=, 4096);
    gv_make(&h1, "hostile1", 2, 0);
    gv_make(&h2, "hostile2", 2, 0);
    for (unsigned i = 0; i < 2; i++) {
        g_test_message("hostile1 MakeResident %u: %d", i,
                       gv_resident(&h1, i, &f));
        g_test_message("hostile2 MakeResident %u: %d", i,
                       gv_resident(&h2, i, &f));
    }
    run();
    st = kapi_create_device_gpuva(v, &dev);
    g_test_message("victim's GPU-VA device: %d", st);
    if (st != DDI_OK) {
        return;     /* refused with a clear error: the rule holds */
    }
    g_assert_cmpint(kapi_create_allocation(v, dev, &d, &h), ==, DDI_OK);
    g_assert_cmpint(kapi_gpu_va(v, h, &va), ==, DDI_OK);
    run();
    st = kapi_make_resident(v, dev, &h, 1, &f);
    g_test_message("victim's MakeResident of one page: %d (hostiles "
                   "charged %" PRIu64 " + %" PRIu64 " of %" PRIu64 ")", st,
                   h1.p->quota.used[KQ_GPUVA_VRAM],
                   h2.p->quota.used[KQ_GPUVA_VRAM],
                   kern.gpuva.res.capacity);
    g_assert_cmpint(st, !=, DDI_ENOMEM);
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
    g_test_add_func("/kernel/vidmm/oversubscribe", test_vidmm_oversubscribe);
    g_test_add_func("/kernel/vidmm/dma-placement", test_dma_placement);
    g_test_add_func("/kernel/vidmm/free-while-paging",
                    test_vidmm_free_while_paging);
    g_test_add_func("/kernel/lost", test_lost);
    g_test_add_func("/kernel/lost-whole-device", test_lost_whole_device);
    g_test_add_func("/kernel/share-sync", test_share_sync);
    g_test_add_func("/kernel/isolation/lock-per-handle",
                    test_lock_per_handle);
    g_test_add_func("/kernel/isolation/share-needs-grant",
                    test_share_needs_grant);
    g_test_add_func("/kernel/isolation/fence-forward", test_fence_forward);
    g_test_add_func("/kernel/isolation/realtime-privilege",
                    test_realtime_privilege);
    g_test_add_func("/kernel/isolation/display-owner", test_display_owner);
    g_test_add_func("/kernel/isolation/display-foreign-wait",
                    test_display_foreign_wait);
    g_test_add_func("/kernel/isolation/gpuva-space-own-only",
                    test_gpuva_space_own_only);
    g_test_add_func("/kernel/isolation/blame-follows-guilt",
                    test_blame_follows_guilt);
    g_test_add_func("/kernel/display/present-waits-for-render",
                    test_present_waits_for_render);
    g_test_add_func("/kernel/display/order-and-missed",
                    test_present_order_missed);
    g_test_add_func("/kernel/display/driver-busy", test_present_driver_busy);
    g_test_add_func("/kernel/display/refusals", test_display_refusals);
    g_test_add_func("/kernel/display/off", test_display_off);
    g_test_add_func("/kernel/display/vsync-event", test_vsync_event);
    g_test_add_func("/kernel/display/scanout-keeps-primary",
                    test_scanout_keeps_primary);
    g_test_add_func("/kernel/display/failures", test_present_failures);
    g_test_add_func("/kernel/display/pointer", test_pointer);
    g_test_add_func("/kernel/gpuva/budget-trim", test_gpuva_budget_trim);
    g_test_add_func("/kernel/gpuva/view", test_gpuva_view);
    g_test_add_func("/kernel/gpuva/paging-hold", test_gpuva_paging_hold);
    g_test_add_func("/kernel/gpuva/batch-busy", test_gpuva_batch_busy);
    g_test_add_func("/kernel/gpuva/evict-in-use", test_gpuva_evict_in_use);
    g_test_add_func("/kernel/quota/held-buffers", test_quota_held_buffers);
    g_test_add_func("/kernel/quota/every-pool", test_quota_every_pool);
    g_test_add_func("/kernel/throttle/room", test_throttle_room);
    g_test_add_func("/kernel/throttle/no-freeze", test_throttle_no_freeze);
    g_test_add_func("/kernel/quota/guarantee", test_quota_guarantee);
    g_test_add_func("/kernel/quota/pinned", test_quota_pinned);
    g_test_add_func("/kernel/quota/tables", test_quota_tables);
    g_test_add_func("/kernel/quota/every-kind", test_quota_every_kind);
    g_test_add_func("/kernel/quota/vsync-waits", test_quota_vsync_waits);
    g_test_add_func("/kernel/quota/shared-names", test_quota_shared_names);
    g_test_add_func("/kernel/quota/grants", test_quota_grants);
    g_test_add_func("/kernel/quota/scene-pbs", test_quota_scene_pbs);
    g_test_add_func("/kernel/quota/gpuva-allocs", test_quota_gpuva_allocs);
    g_test_add_func("/kernel/quota/gpuva-vram", test_quota_gpuva_vram);
    g_test_add_func("/kernel/quota/gpuva-vram-busy",
                    test_quota_gpuva_vram_busy);
    g_test_add_func("/kernel/quota/gpuva-aperture",
                    test_quota_gpuva_aperture);
    g_test_add_func("/kernel/destroy-device-opened",
                    test_destroy_device_opened);
    g_test_add_func("/kernel/exit/reclaims", test_exit_reclaims);
    g_test_add_func("/kernel/exit/releases-locks", test_exit_releases_locks);
    g_test_add_func("/kernel/exit/gpuva", test_exit_gpuva);
    g_test_add_func("/kernel/exit/dead-calls", test_exit_dead_calls);
    g_test_add_func("/kernel/exit/hostile-random", test_exit_hostile_random);
    g_test_add_func("/kernel/exit/many", test_exit_many);
    g_test_add_func("/kernel/scene/partial-refusals",
                    test_scene_partial_refusals);
    g_test_add_func("/kernel/scene/partial-oom", test_scene_partial_oom);
    g_test_add_func("/kernel/scene/no-partial", test_scene_no_partial);
    g_test_add_func("/kernel/scene/partial-killed",
                    test_scene_partial_killed);
    g_test_add_func("/kernel/scene/pb-destroyed", test_scene_pb_destroyed);
    g_test_add_func("/kernel/scene/lost-device", test_scene_lost_device);
    g_test_add_func("/kernel/gpuva/paging-engine", test_gpuva_paging_engine);
    g_test_add_func("/kernel/gpuva/refs-and-enomem",
                    test_gpuva_refs_and_enomem);
    g_test_add_func("/kernel/ident/device-outlives-allocs",
                    test_ident_device_outlives_allocs);
    g_test_add_func("/kernel/ident/pid-never-reused",
                    test_ident_pid_never_reused);
    g_test_add_func("/kernel/ident/wait-after-creator-exit",
                    test_ident_wait_after_creator_exit);
    g_test_add_func("/kernel/ident/trim-callback-limits",
                    test_ident_trim_callback_limits);
    g_test_add_func("/kernel/ident/exit-many-views",
                    test_ident_exit_many_views);
    g_test_add_func("/kernel/ident/exit-paging-busy",
                    test_ident_exit_paging_busy);
    g_test_add_func("/kernel/ident/lock-wait-bounded",
                    test_ident_lock_wait_bounded);
    g_test_add_func("/kernel/ident/inherit-loan-dies",
                    test_ident_inherit_loan_dies);
    g_test_add_func("/kernel/ident/queued-signal-kept",
                    test_ident_queued_signal_kept);
    g_test_add_func("/kernel/exit/hostile-lives", test_exit_hostile_lives);
    g_test_add_func("/kernel/exit/hostile-gpuva", test_exit_hostile_gpuva);
    g_test_add_func("/kernel/ident/name-wrap", test_ident_name_wrap);
    /* attack2: breaches the review of issue 26's fixes found (each failed
     * before its fix) */
    g_test_add_func("/kernel/attack2/trim-wait-throttle",
                    test_attack2_trim_wait_throttle);
    g_test_add_func("/kernel/attack2/timer-init-armed",
                    test_attack2_timer_init_armed);
    g_test_add_func("/kernel/attack2/timer-init-rearm-cycle",
                    test_attack2_timer_init_rearm_cycle);
    g_test_add_func("/kernel/attack2/timer-init-outlives-exit",
                    test_attack2_timer_init_outlives_exit);
    g_test_add_func("/kernel/ident/handle-notes-die",
                    test_ident_handle_notes_die);
    g_test_add_func("/kernel/ident/dead-timer", test_ident_dead_timer);
    /* attack3: breaches the third review found (each failed before its
     * fix) */
    g_test_add_func("/kernel/attack3/timer-quota", test_attack3_timer_quota);
    g_test_add_func("/kernel/attack3/gpuva-guarantee-before-device",
                    test_attack3_gpuva_guarantee_before_device);
    return g_test_run();
}
