/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An application's view, for the kernel's host tests (test-kernel.h):
 * a process with a device, a context, a 4 KiB buffer and a sync object
 * (make_proc), its renders, the callbacks that count completions, the
 * display's primary and presents, a GPU-VA process whose trim callback
 * evicts what it holds (gv_make), and the census every test that ends a
 * process compares with where it started.
 */
#include "test-kernel.h"

void make_proc(struct proc *a, const char *name)
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

uint32_t cmd[1024];
struct umd_cmdbuf cb;

int render(struct proc *a, uint32_t ctx)
{
    struct kapi_render_args r = {
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
        .alloc = cb.alloc, .nalloc = cb.nalloc, .patch = cb.patch,
        .npatch = cb.npatch,
    };

    return kapi_render(a->p, ctx, &r);
}

int fill(struct proc *a, uint32_t ctx, uint32_t h, uint64_t size)
{
    umd_init(&cb, cmd, sizeof(cmd));
    umd_fill(&cb, h, 0, size, 0x12345678);
    return render(a, ctx);
}

void on_wait(void *arg, int status)
{
    struct waited *w = arg;

    w->calls++;
    w->status = status;
}

void on_lock(void *arg, int status, volatile void *cpu)
{
    struct waited *w = arg;

    w->calls++;
    w->status = status;
    w->cpu = cpu;
}

struct kalloc *kalloc_of(struct proc *a, uint32_t h)
{
    struct kalloc *ka = handle_lookup(&a->p->handles, h, HANDLE_ALLOCATION);

    g_assert_nonnull(ka);
    return ka;
}

struct vidmm_alloc_state vstate(struct proc *a, uint32_t h)
{
    struct vidmm_alloc_state st;

    g_assert_cmpuint(kalloc_of(a, h)->vm, !=, 0);
    g_assert_cmpint(vidmm_alloc_state(kern.vm, kalloc_of(a, h)->vm, &st),
                    ==, DDI_OK);
    return st;
}

/* Four allocations of 768 KiB on 2 MiB of vidmm VRAM: the first two in
 * VRAM, the others only in their backing pages. */
void make_big(struct proc *a, uint32_t h[4])
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

/* the device-lost callback: counts its calls */
unsigned lost_calls;

void on_lost(void *arg, uint32_t hdev)
{
    (void)arg;
    (void)hdev;
    lost_calls++;
}

void setup_display(void)
{
    setup();
    g_assert_null(kdisplay_start(&kern, 0, DW, DH));
    g_assert_true(fd.on);
    g_assert_cmpuint(fd.mode.pitch, ==, DW * 4);
    run();
}

uint32_t make_primary(struct proc *a)
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

void on_present(void *arg, const struct kapi_present_result *r)
{
    struct presented *p = arg;

    if (p->calls < 8) {
        p->r[p->calls] = *r;
    }
    p->calls++;
}

int present(struct proc *a, uint32_t hprimary, uint32_t hsync,
            uint64_t value, uint64_t tag, struct presented *out)
{
    struct kapi_present pr = {
        .source = 0, .hprimary = hprimary, .hsync = hsync, .value = value,
        .tag = tag, .fn = on_present, .arg = out,
    };

    return kapi_present(a->p, a->dev, &pr);
}

const struct kalloc *alloc_of(struct proc *a, uint32_t h)
{
    return handle_lookup(&a->p->handles, h, HANDLE_ALLOCATION);
}

unsigned vsync_calls;
uint64_t vsync_last;
int vsync_status;

void on_vsync_count(void *arg, int status, uint64_t vsyncs,
                    uint64_t time)
{
    (void)arg;
    (void)time;
    vsync_calls++;
    vsync_last = vsyncs;
    vsync_status = status;
}

/* The trim callback: evict the lowest-numbered held allocation until the
 * bytes are released. */
void gv_on_trim(void *arg, uint64_t bytes)
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

void gv_make(struct gv_app *a, const char *name, unsigned n,
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
void gv_allow_all(struct gv_app *a)
{
    g_assert_cmpint(kquota_set_limit(&kern, a->p, KQ_GPUVA_VRAM,
                                     kern.gpuva.res.capacity), ==, DDI_OK);
    g_assert_cmpint(kapi_set_budget(a->p, 0), ==, DDI_OK);
}

int gv_resident(struct gv_app *a, unsigned i, uint64_t *fence)
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
bool gv_mapped(const struct gv_app *a, unsigned i, uint64_t *vram)
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

int gv_render_va(struct gv_app *a, uint64_t va)
{
    struct kapi_render_args r;

    umd_init(&cb, cmd, sizeof(cmd));
    umd_va_fill(&cb, va, 4096, 0x5a5a5a5a);
    r = (struct kapi_render_args){
        .cmd = umd_words(&cb), .cmd_bytes = umd_bytes(&cb),
    };
    return kapi_render(a->p, a->ctx, &r);
}

/* Everything the kernel holds must end where it started. */
void take_census(struct kernel_census *c)
{
    kernel_census(&kern, c);
}

void assert_census(const struct kernel_census *want)
{
    struct kernel_census now;

    kernel_census(&kern, &now);
    g_assert_cmpstr(kernel_census_diff(&now, want), ==, "");
    g_assert_cmpuint(kern.stats.quota_underflows, ==, 0);
}

/* a shares its buffer with b, granted with access */
uint32_t share_to(struct proc *a, struct proc *b, unsigned access)
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

void dead_timer_fires(void *arg, uint64_t now)
{
    struct dead_timer *d = arg;
    uint32_t h;

    (void)now;
    d->fired++;
    d->st = kapi_create_device(d->p, &h);
}
