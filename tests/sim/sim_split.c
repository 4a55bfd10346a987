/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_split.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_vidmm.h"
#include "umd/umd.h"
#include "vidmm/vidmm.h"

#define US              1000ull
#define PAGE            4096ull
/* the host's memory as svm_host_init made it, VRAM on top */
#define MEM_BYTES       (8ull << 20)
#define VRAM_BASE       (MEM_BYTES - SVM_VRAM_BYTES)
#define AP_BASE         (1ull << 32)
#define AP_BYTES        (12ull << 20)
#define SYS_PAGES       3072u
#define NA              6                       /* the split buffer's */
#define A_BYTES         (SVM_VRAM_BYTES / 4)    /* six: 1.5x VRAM */
#define NB              2                       /* the HIGH context's */
#define B_BYTES         (64 * 1024)
#define NHIGH           40
#define NBUF            (2 + NHIGH)
#define HIGH0           2                       /* its first cookie */
#define NPAGING         16
#define PAGING_BYTES    4096u
#define PAGING_COOKIE   (1ull << 63)
#define DMA_CAP         4096u
#define TGT_W           256                     /* A2: 256 x 256 XRGB */
#define TGT_PITCH       (TGT_W * 4)
#define B_W             64                      /* B1: 64 x 64 XRGB */

struct salloc {
    uint32_t handle;
    uint32_t process;
    uint64_t size;
    uint32_t *model;                /* what it must hold (host copy) */
};

struct sbuf {
    struct ddi_dmabuf dma;
    struct ddi_alloc_desc desc[DDI_MAX_ALLOC_LIST];
    unsigned ctx;
    bool done, resident;
    int status;
    uint64_t wait_ticket;
};

struct spaging {
    struct ddi_dmabuf dma;
    bool used;
    uint64_t ticket;
};

/* What a umd builder has bound, for the host model's RECTs. */
struct sbuilder {
    struct umd_cmdbuf cb;
    uint32_t words[DMA_CAP / 4];
    struct { int a; uint64_t off; uint32_t pitch; } bound[COPRO_TARGET_SLOTS];
};

struct srun {
    struct sim_host *h;
    struct ssp_result *r;
    struct vidmm *vm;
    struct vidsch_ctx *ctx[2];
    struct salloc alloc[NA + NB];
    struct sbuf buf[NBUF];
    struct spaging paging[NPAGING];
    struct sbuilder sb;
    uint64_t paging_done;
    unsigned next_high;
    uint32_t last_first, last_end; /* the split buffer's last portion */
    bool split_started, split_ended;
    unsigned done_order;            /* retirements of context 0 so far */
    unsigned split_done_at;         /* ... when buffer 0's came */
    bool failed;
};

static struct srun S;
static uint64_t vidmm_storage[1 << 15];

static void fail(const char *fmt, ...)
{
    va_list ap;

    if (S.failed) {
        return;
    }
    S.failed = true;
    va_start(ap, fmt);
    vsnprintf(S.r->msg, sizeof(S.r->msg), fmt, ap);
    va_end(ap);
}

static uint32_t pat(unsigned a, unsigned k)
{
    return ((uint32_t)(a + 1) << 24) ^ (k * 2654435761u);
}

/* ---- the host model of what the buffers write ---- */

static void m_fill(unsigned a, uint64_t off, uint64_t size, uint32_t v)
{
    for (uint64_t i = 0; i < size / 4; i++) {
        S.alloc[a].model[off / 4 + i] = v;
    }
}

static void m_copy(unsigned d, uint64_t doff, unsigned s, uint64_t soff,
                   uint64_t size)
{
    memmove(&S.alloc[d].model[doff / 4], &S.alloc[s].model[soff / 4], size);
}

/* ---- building buffers with the umd, the model alongside ---- */

static void b_begin(void)
{
    umd_init(&S.sb.cb, S.sb.words, sizeof(S.sb.words));
}

static void b_fill(unsigned a, uint64_t off, uint64_t size, uint32_t v)
{
    umd_fill(&S.sb.cb, S.alloc[a].handle, off, size, v);
    m_fill(a, off, size, v);
}

static void b_copy(unsigned d, uint64_t doff, unsigned s, uint64_t soff,
                   uint64_t size)
{
    umd_copy(&S.sb.cb, S.alloc[d].handle, doff, S.alloc[s].handle, soff,
             size);
    m_copy(d, doff, s, soff, size);
}

static void b_target(unsigned slot, unsigned a, uint64_t off, uint32_t w,
                     uint32_t h)
{
    umd_set_target(&S.sb.cb, slot, S.alloc[a].handle, off, w * 4, w, h,
                   COPRO_FMT_XRGB8888);
    S.sb.bound[slot].a = (int)a;
    S.sb.bound[slot].off = off;
    S.sb.bound[slot].pitch = w * 4;
}

static void b_rect(unsigned slot, uint32_t x, uint32_t y, uint32_t w,
                   uint32_t h, uint32_t colour)
{
    unsigned a = (unsigned)S.sb.bound[slot].a;

    umd_rect(&S.sb.cb, slot, x, y, w, h, colour);
    for (uint32_t r = y; r < y + h; r++) {
        for (uint32_t c = x; c < x + w; c++) {
            S.alloc[a].model[(S.sb.bound[slot].off +
                              (uint64_t)r * S.sb.bound[slot].pitch) / 4 + c] =
                colour;
        }
    }
}

/* The built command buffer becomes DMA buffer i of ctx, in GPU memory
 * (the sim has no render: the umd's lists are final). */
static void b_end(unsigned i, unsigned ctx)
{
    struct sbuf *b = &S.buf[i];
    const struct umd_cmdbuf *cb = &S.sb.cb;
    uint64_t at = sim_gpu_alloc(S.h->gpu, DMA_CAP, 64);

    if (!umd_ok(cb)) {
        fail("buffer %u: the umd refused it: %s", i,
             cb->error ? cb->error : "?");
    }
    memset(b, 0, sizeof(*b));
    b->ctx = ctx;
    b->dma.dw = sim_gpu_ptr(S.h->gpu, at);
    b->dma.gpu_addr = at;
    b->dma.cap_bytes = DMA_CAP;
    b->dma.len_bytes = umd_bytes(cb);
    memcpy(b->dma.dw, umd_words(cb), umd_bytes(cb));
    b->dma.nalloc = cb->nalloc;
    memcpy(b->dma.alloc, cb->alloc, cb->nalloc * sizeof(cb->alloc[0]));
    b->dma.npatch = cb->npatch;
    memcpy(b->dma.patch, cb->patch, cb->npatch * sizeof(cb->patch[0]));
    for (unsigned k = 0; k < cb->nalloc; k++) {
        for (unsigned a = 0; a < NA + NB; a++) {
            if (S.alloc[a].handle == cb->alloc[k].handle) {
                b->desc[k].size = S.alloc[a].size;
            }
        }
    }
}

/*
 * The split buffer (context 0): FILL, COPY and RECT across six
 * allocations of a quarter of VRAM each; RECTs into A2 before and after
 * split points (the umd binds A2 again before those). WORK stretches it
 * so that the HIGH context's buffers come in while it runs.
 */
static void build_split(void)
{
    const uint64_t half = A_BYTES / 2;

    b_begin();
    b_fill(0, 0, A_BYTES, pat(0, 1));
    umd_work(&S.sb.cb, 150 * US);
    b_fill(1, 0, A_BYTES, pat(1, 1));
    b_fill(2, 0, A_BYTES, pat(2, 1));
    b_target(0, 2, 0, TGT_W, TGT_W);
    b_rect(0, 0, 0, TGT_W, TGT_W, 0xc0ffee01);
    b_fill(3, 0, A_BYTES, pat(3, 1));
    umd_work(&S.sb.cb, 150 * US);
    b_copy(4, 0, 0, 0, half);
    b_rect(0, 16, 16, 32, 32, 0xc0ffee02);
    b_fill(5, 0, A_BYTES, pat(5, 1));
    umd_work(&S.sb.cb, 150 * US);
    b_copy(5, 0, 1, half, half);
    b_copy(0, 0, 3, 0, A_BYTES);
    b_fill(4, half, half, pat(4, 1));
    umd_work(&S.sb.cb, 150 * US);
    b_rect(0, 100, 200, 50, 40, 0xc0ffee03);
    b_end(0, 0);
    /* context 0's next buffer: after the split one, whatever it takes */
    b_begin();
    b_fill(0, 0, 2 * PAGE, pat(0, 2));
    b_end(1, 0);
}

/* A HIGH buffer: fills B0, binds B1 in the same target slot (0) as the
 * split buffer's A2, draws into it. */
static void build_high(unsigned k)
{
    b_begin();
    b_fill(NA, 0, B_BYTES, pat(NA, k));
    b_fill(NA + 1, 0, B_BYTES, pat(NA + 1, k));
    b_target(0, NA + 1, 0, B_W, B_W);
    b_rect(0, 0, 0, B_W, B_W, 0xb1000000u | k);
    umd_work(&S.sb.cb, 30 * US);
    b_end(HIGH0 + k, 1);
}

/* ---- vidmm's environment ---- */

static int env_alloc_pages(void *os, uint64_t *pages, unsigned n)
{
    (void)os;
    return sim_gpu_sys_alloc(S.h->gpu, pages, n) ? DDI_OK : DDI_ENOMEM;
}

static void env_free_pages(void *os, const uint64_t *pages, unsigned n)
{
    (void)os;
    sim_gpu_sys_free(S.h->gpu, pages, n);
}

/* ---- the scheduler's hooks (what the kernel's would do) ---- */

static struct spaging *paging_slot(void)
{
    for (unsigned i = 0; i < NPAGING; i++) {
        if (!S.paging[i].used) {
            S.paging[i].dma.len_bytes = 0;
            return &S.paging[i];
        }
    }
    return NULL;
}

/* The residency vidmm made (DDI_OK: b resident) or a step of it
 * (DDI_EBUSY with a paging buffer built): its paging buffer, if any, goes
 * to the scheduler. */
static void hand_paging(struct sbuf *b, struct spaging *p,
                        const struct vidmm_residency *res,
                        struct vidsch_residency *out, int rc)
{
    if (rc == DDI_OK) {
        b->resident = true;
        b->wait_ticket = res->wait_ticket;
        out->wait_ticket = res->wait_ticket;
    }
    if (res->paging_built) {
        p->used = true;
        p->ticket = res->paging_ticket;
        *out = (struct vidsch_residency){
            .paging = &p->dma, .paging_engine = 1,
            .paging_cookie = PAGING_COOKIE | (uint64_t)(p - S.paging),
            .paging_ticket = res->paging_ticket,
            .wait_ticket = res->wait_ticket,
            .paging_bytes = res->paging_bytes,
        };
    }
}

static int hook_make_resident(void *arg, uint64_t cookie,
                              struct ddi_dmabuf *dma,
                              struct ddi_alloc_desc *desc, bool patched,
                              struct vidsch_residency *out)
{
    struct sbuf *b = &S.buf[cookie];
    struct spaging *p = paging_slot();
    struct vidmm_residency res = { 0 };
    int rc;

    (void)arg;
    if (!p) {
        return DDI_EBUSY;
    }
    res.paging = &p->dma;
    rc = vidmm_make_resident(S.vm, b->ctx + 1, dma->alloc, dma->nalloc, desc,
                             patched, &res);
    if (rc == DDI_ENOMEM && vidmm_splittable(S.vm, dma, NULL, 0)) {
        return VIDSCH_RESIDENT_SPLIT;
    }
    if (rc == DDI_OK || rc == DDI_EBUSY) {
        hand_paging(b, p, &res, out, rc);
    }
    return rc;
}

static void hook_release(void *arg, uint64_t cookie, struct ddi_dmabuf *dma,
                         unsigned engine, uint64_t fence)
{
    (void)arg;
    S.buf[cookie].resident = false;
    vidmm_release(S.vm, dma->alloc, dma->nalloc, engine, fence);
}

static int hook_make_portion(void *arg, uint64_t cookie,
                             struct ddi_dmabuf *dma,
                             struct ddi_alloc_desc *desc, uint32_t first,
                             bool patched, struct vidsch_residency *out,
                             struct vidsch_portion *part)
{
    struct sbuf *b = &S.buf[cookie];
    struct spaging *p = paging_slot();
    struct vidmm_residency res = { 0 };
    struct vidmm_split_range r = { 0 };
    int rc;

    (void)arg;
    if (!p) {
        return DDI_EBUSY;
    }
    if (patched) {
        /* handed back: the same portion, at its patched addresses */
        r = (struct vidmm_split_range){ .first = part->first,
                                        .end = part->end,
                                        .slots = part->slots };
    } else {
        rc = vidmm_portion(S.vm, dma, NULL, 0, first, &r);
        if (rc != DDI_OK) {
            return rc;
        }
    }
    res.paging = &p->dma;
    rc = vidmm_make_resident_portion(S.vm, b->ctx + 1, dma, NULL, desc, &r,
                                     patched, &res);
    if (rc == DDI_EBUSY) {
        hand_paging(b, p, &res, out, rc);
    }
    if (rc == DDI_OK) {
        hand_paging(b, p, &res, out, rc);
        part->end = r.end;
        part->slots = r.slots;
    }
    return rc;
}

static void hook_release_portion(void *arg, uint64_t cookie,
                                 struct ddi_dmabuf *dma,
                                 const struct vidsch_portion *part,
                                 unsigned engine, uint64_t fence)
{
    (void)arg;
    S.buf[cookie].resident = false;
    vidmm_release_portion(S.vm, dma, NULL, part->slots, engine, fence);
}

static void on_done(void *arg, uint64_t cookie, int status)
{
    struct sbuf *b;

    (void)arg;
    if (cookie & PAGING_COOKIE) {
        struct spaging *p = &S.paging[cookie & 0xffff];

        if (status != DDI_OK) {
            fail("paging buffer %" PRIu64 ": %s", p->ticket,
                 ddi_status_name(status));
        }
        vidmm_paging_done(S.vm, p->ticket);
        if (p->ticket > S.paging_done) {
            S.paging_done = p->ticket;
        }
        p->used = false;
        return;
    }
    b = &S.buf[cookie];
    if (b->done) {
        fail("buffer %u reported done twice", (unsigned)cookie);
    }
    b->done = true;
    b->status = status;
    if (cookie == 0) {
        S.r->status = status;
        S.split_ended = true;
        S.split_done_at = S.done_order;
    } else if (status != DDI_OK) {
        fail("buffer %u: %s", (unsigned)cookie, ddi_status_name(status));
    }
    if (b->ctx == 0) {
        if (cookie == 1 && !S.buf[0].done) {
            fail("context 0's second buffer retired before the split one");
        }
        S.done_order++;
    } else if (S.split_started && !S.split_ended) {
        S.r->others_during++;
    }
}

/* A portion (or a whole buffer) starts on the engine: its range's
 * addresses are its allocations' placements, its paging done. */
static void obs_loaded(void *arg, unsigned engine,
                       const struct copro_submit_desc *d)
{
    (void)arg;
    if (engine != 0) {
        return;
    }
    for (unsigned i = 0; i < NBUF; i++) {
        struct sbuf *b = &S.buf[i];
        uint32_t first, end;

        if (d->dma_addr < b->dma.gpu_addr ||
            d->dma_addr >= b->dma.gpu_addr + b->dma.len_bytes) {
            continue;
        }
        first = (uint32_t)(d->dma_addr - b->dma.gpu_addr);
        end = first + d->dma_len;
        if (!b->resident) {
            fail("buffer %u runs without residency", i);
        }
        if (b->wait_ticket > S.paging_done) {
            fail("buffer %u runs before its paging buffer", i);
        }
        if (i == 0) {
            S.r->loads++;
            if (first != S.last_first || !S.split_started) {
                if (first != S.last_end) {
                    fail("portion [%u, %u) after [%u, %u)", first, end,
                         S.last_first, S.last_end);
                }
                S.r->portions++;
            }
            S.split_started = true;
            S.last_first = first;
            S.last_end = end;
        } else if (first || end != b->dma.len_bytes) {
            fail("buffer %u loaded as [%u, %u)", i, first, end);
        }
        for (unsigned p = 0; p < b->dma.npatch; p++) {
            const struct ddi_patch_loc *pl = &b->dma.patch[p];
            uint64_t v = b->dma.dw[pl->patch_offset / 4] |
                         (uint64_t)b->dma.dw[pl->patch_offset / 4 + 1] << 32;
            struct vidmm_alloc_state st;

            if (pl->split_offset < first || pl->split_offset >= end) {
                continue;
            }
            vidmm_alloc_state(S.vm, b->dma.alloc[pl->slot].handle, &st);
            if (st.where == VIDMM_IN_SYSMEM ||
                v != st.gpu_addr + pl->alloc_offset) {
                fail("buffer %u [%u, %u) runs with %#" PRIx64 " at %u, its "
                     "allocation is at %#" PRIx64, i, first, end, v,
                     pl->patch_offset, st.gpu_addr + pl->alloc_offset);
            }
        }
        return;
    }
}

static const struct sim_gpu_observer observer = { .loaded = obs_loaded };

static void submit(unsigned i)
{
    struct sbuf *b = &S.buf[i];
    int rc = vidsch_submit(S.h->vs, S.ctx[b->ctx], &b->dma, b->desc, i);

    if (rc != DDI_OK) {
        fail("submit of buffer %u: %s", i, ddi_status_name(rc));
    }
}

static void submit_high(void *obj, uint64_t arg)
{
    (void)obj;
    (void)arg;
    submit(HIGH0 + S.next_high++);
    if (S.next_high < NHIGH) {
        sim_at(&S.h->clk, S.h->clk.now + 100 * US, submit_high, NULL, 0);
    }
}

/* Every byte of allocation a against the model, wherever it is. */
static void check_alloc(unsigned a)
{
    static uint32_t page[PAGE / 4];
    struct salloc *al = &S.alloc[a];
    struct vidmm_alloc_state st;

    vidmm_alloc_state(S.vm, al->handle, &st);
    for (uint64_t p = 0; p < al->size / PAGE && !S.failed; p++) {
        if (st.where == VIDMM_IN_SYSMEM) {
            memcpy(page, sim_gpu_sys_ptr(S.h->gpu, st.pages[p]), PAGE);
        } else if (!sim_gpu_read(S.h->gpu, st.gpu_addr + p * PAGE, page,
                                 PAGE)) {
            fail("allocation %u page %" PRIu64 " not backed", a, p);
            return;
        }
        for (unsigned w = 0; w < PAGE / 4; w++) {
            if (page[w] != al->model[p * PAGE / 4 + w]) {
                fail("allocation %u byte %" PRIu64 ": %#x, expected %#x", a,
                     p * PAGE + w * 4, page[w], al->model[p * PAGE / 4 + w]);
                return;
            }
        }
    }
}

bool ssp_run(struct sim_host *h, uint64_t seed, bool split,
             struct ssp_result *r)
{
    struct sim_gpu_config g;
    struct vidsch_config vc;
    struct vidmm_config mc = {
        .vram_base = VRAM_BASE, .vram_size = SVM_VRAM_BYTES,
        .aperture_base = AP_BASE, .aperture_size = AP_BYTES,
        .max_allocs = 16, .max_blocks = 64, .max_pages = SYS_PAGES,
        .copy_engine = 1,
    };
    struct vidmm_env env = {
        .alloc_sys_pages = env_alloc_pages, .free_sys_pages = env_free_pages,
    };
    struct sim_host_hooks hooks = {
        .buffer_done = on_done, .make_resident = hook_make_resident,
        .release_resident = hook_release,
        .make_portion = split ? hook_make_portion : NULL,
        .release_portion = split ? hook_release_portion : NULL,
    };
    static struct ddi_device dev;

    memset(&S, 0, sizeof(S));
    memset(r, 0, sizeof(*r));
    S.h = h;
    S.r = r;
    r->status = 1;
    sim_gpu_config_default(&g);
    g.mem_size = MEM_BYTES;
    g.aperture_base = AP_BASE;
    g.aperture_size = AP_BYTES;
    g.sys_pages = SYS_PAGES;
    vidsch_config_default(&vc);
    vc.policy = VIDSCH_POLICY_PRIORITY;
    vc.max_contexts = 2;
    vc.max_buffers = NBUF + NPAGING;
    sim_host_start(h, &g, &vc, 5 * US, 2 * US, seed, &hooks, NULL);
    sim_gpu_observe(h->gpu, &observer, NULL);
    if (sizeof(vidmm_storage) < vidmm_storage_size(&mc)) {
        abort();
    }
    dev = (struct ddi_device){ .ops = &sim_gpu_ops, .drv = h->gpu };
    S.vm = vidmm_create(vidmm_storage, sizeof(vidmm_storage), &mc, &env,
                        &dev);
    for (unsigned i = 0; i < NPAGING; i++) {
        uint64_t at = sim_gpu_alloc(h->gpu, PAGING_BYTES, 64);

        S.paging[i].dma = (struct ddi_dmabuf){
            .dw = sim_gpu_ptr(h->gpu, at), .gpu_addr = at,
            .cap_bytes = PAGING_BYTES, .engine = 1,
        };
    }
    for (unsigned i = 0; i < 2; i++) {
        S.ctx[i] = vidsch_ctx_create(h->vs, i + 1, 0,
                                     i ? VIDSCH_PRIO_HIGH : VIDSCH_PRIO_NORMAL,
                                     sim_gpu_alloc(h->gpu, COPRO_SAVE_SIZE,
                                                   64));
    }
    for (unsigned a = 0; a < NA + NB; a++) {
        struct vidmm_alloc_info info = {
            .size = a < NA ? A_BYTES : B_BYTES, .owner = a < NA ? 1 : 2,
            .segments = VIDMM_SEG_VRAM,
        };
        struct salloc *al = &S.alloc[a];

        if (vidmm_alloc_create(S.vm, &info, &al->handle) != DDI_OK) {
            fail("alloc_create %u", a);
        }
        al->process = info.owner;
        al->size = info.size;
        /* (every byte is written by the buffers before it is compared) */
        al->model = calloc(info.size / 4, 4);
    }
    build_split();
    for (unsigned k = 0; k < NHIGH; k++) {
        build_high(k);
    }
    if (!S.failed) {
        submit(0);
        submit(1);
        sim_at(&h->clk, 20 * US, submit_high, NULL, 0);
        if (!sim_host_run(h, 1000000000000ull)) {
            fail("the run did not drain");
        }
    }
    for (unsigned i = 0; i < NBUF && !S.failed; i++) {
        if (!S.buf[i].done) {
            fail("buffer %u never retired", i);
        }
    }
    if (!S.failed && split) {
        if (r->status != DDI_OK) {
            fail("the split buffer: %s", ddi_status_name(r->status));
        } else if (r->portions < 2) {
            fail("the buffer ran in %u portion(s)", r->portions);
        } else if (S.last_end != S.buf[0].dma.len_bytes) {
            fail("the last portion ended at %u of %u", S.last_end,
                 S.buf[0].dma.len_bytes);
        }
        for (unsigned a = 0; a < NA + NB && !S.failed; a++) {
            check_alloc(a);
        }
    } else if (!S.failed) {
        if (r->status != DDI_ENOMEM) {
            fail("without splitting the buffer ended with %s",
                 ddi_status_name(r->status));
        }
        /* it never ran; the other context's surfaces are still right
         * (B0 is written whole by every HIGH buffer) */
        check_alloc(NA);
        check_alloc(NA + 1);
    }
    r->evictions = vidmm_stats(S.vm)->evictions;
    r->bytes_moved = vidmm_stats(S.vm)->bytes_moved;
    for (unsigned a = 0; a < NA + NB; a++) {
        if (!S.failed && vidmm_alloc_destroy(S.vm, S.alloc[a].handle)) {
            fail("destroy of allocation %u", a);
        }
        free(S.alloc[a].model);
    }
    if (!S.failed && vidmm_vram_used(S.vm)) {
        fail("%" PRIu64 " bytes of VRAM leaked",
             (uint64_t)vidmm_vram_used(S.vm));
    }
    if (!S.failed && h->gpu->nsys_free != SYS_PAGES) {
        fail("%u system pages leaked", SYS_PAGES - h->gpu->nsys_free);
    }
    return !S.failed;
}
