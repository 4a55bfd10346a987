/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fake GPU behind the DDI the kernel's host tests run on
 * (test-kernel.h): render and patch are the real copro ones; submissions
 * complete when the test pumps the GPU (pump(), run()); time is a
 * variable. A display source whose flips take effect one per
 * fake_vsync(), a build_paging_buffer that records its operations, and
 * GPU-VA ops keeping a software page table. The setup functions start
 * the kernel afresh on it: packet-based (setup), with vidmm
 * (setup_vidmm), in GPU-VA mode (setup_gpuva) or both (setup_gpuva_vidmm).
 */
#include "test-kernel.h"

struct fake_display fd;
struct fake_gpu gpu;
uint8_t vram[VRAM] __attribute__((aligned(4096)));
struct kernel kern;
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


struct fake_paging fp;

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


struct fake_gpuva fv;

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
void fake_vsync(void)
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
bool pump(void)
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
void run(void)
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

void setup(void)
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

static uint8_t poolmem[POOL_BYTES] __attribute__((aligned(4096)));
static uint64_t pool_used[PAGE_POOL_WORDS(POOL_BYTES / 4096)];
struct page_pool pool;

void setup_vidmm(void)
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

/* Fixed placement for the rest, GPU-VA mode with 4 allocations' worth of
 * VRAM and the page pool as backing store. */
const char *start_gpuva(unsigned copy_engine)
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

void setup_gpuva(void)
{
    g_assert_null(start_gpuva(1));
    /* the VRAM allocations are paged into: mapped in no space but
     * through their VAs */
    g_assert_cmpuint(kern.gpuva.vram_base, !=, 0);
}

/* vidmm for applications' allocations and GPU-VA mode together, as the
 * firmware boots them: GPU-VA views of vidmm's allocations
 * (kapi_map_gpu_va, kernel/kvamap.h). */
void setup_gpuva_vidmm(void)
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
