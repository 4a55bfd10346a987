/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_vidmm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmd/copro_paging.h"
#include "vidmm/vidmm.h"

#define US              1000ull
#define MEM_BYTES       (8ull << 20)
#define VRAM_BASE       (MEM_BYTES - SVM_VRAM_BYTES)
#define AP_BASE         (1ull << 32)
#define AP_BYTES        (12ull << 20)
#define SYS_PAGES       3072u
#define NCTX            2
#define MAX_BUFS        256         /* per context */
#define MAX_ALLOCS      64
#define LIST_MAX        3
#define NPAGING         32
#define PAGING_BYTES    4096u
#define PAGING_COOKIE   (1ull << 63)
#define PAGE            4096ull
#define MAX_APAGES      (256 * 1024 / PAGE)
#define DMA_BYTES       512u
#define DMA_SLOT        LIST_MAX    /* its entry in the lists below */

struct svm_alloc {
    uint32_t handle;
    uint32_t process;
    bool offered;
    uint64_t size;
    uint32_t version[MAX_APAGES];   /* expected pattern per page, 0: never
                                       written */
};

struct svm_buf {
    struct ddi_dmabuf dma;
    struct ddi_alloc_desc desc[LIST_MAX + 1];   /* + its pageable DMA
                                                   buffer (DMA_SLOT) */
    uint32_t dma_handle;                /* pageable: its vidmm handle */
    uint32_t cmd[DMA_BYTES / 4];        /* the commands as built */
    uint64_t dma_patched;               /* its address when patched */
    unsigned ctx;
    unsigned aidx[LIST_MAX];
    uint32_t version;
    uint64_t first[LIST_MAX], count[LIST_MAX];  /* pages it fills */
    bool resident, done, patched_once_seen;
    uint64_t wait_ticket;
    uint64_t patched_addr[LIST_MAX];    /* first residency's addresses */
    bool have_patched;
};

struct svm_paging {
    struct ddi_dmabuf dma;
    bool used;
    uint64_t ticket;
};

struct run {
    struct sim_host *h;
    struct ddi_device dev;          /* the model, with the check below */
    struct ddi_ops ops;
    const struct svm_config *cfg;
    struct svm_result *r;
    struct vidmm *vm;
    struct vidsch_ctx *ctx[NCTX];
    struct svm_alloc alloc[MAX_ALLOCS];
    unsigned nalloc;
    struct svm_buf buf[NCTX * MAX_BUFS];
    unsigned nbuf;
    unsigned next_b_submit;         /* context 1's buffers go in over time */
    struct svm_paging paging[NPAGING];
    uint64_t paging_done;
    uint64_t rng;
    bool failed;
};

static struct run R;
static uint32_t pinned_handle;      /* aperture runs: VRAM held pinned */
static uint64_t vidmm_storage[1 << 17];

static void fail(const char *fmt, ...)
{
    va_list ap;

    if (R.failed) {
        return;
    }
    R.failed = true;
    va_start(ap, fmt);
    vsnprintf(R.r->msg, sizeof(R.r->msg), fmt, ap);
    va_end(ap);
}

static uint32_t pattern(unsigned aidx, uint32_t version)
{
    return ((uint32_t)(aidx + 1) << 24) ^ (version * 2654435761u);
}

/* ---- vidmm's environment ---- */

static int env_alloc_pages(void *os, uint64_t *pages, unsigned n)
{
    return sim_gpu_sys_alloc(((struct run *)os)->h->gpu, pages, n)
               ? DDI_OK : DDI_ENOMEM;
}

static void env_free_pages(void *os, const uint64_t *pages, unsigned n)
{
    sim_gpu_sys_free(((struct run *)os)->h->gpu, pages, n);
}

/* ---- checks ---- */

/* Every allocation of every buffer holding residency is where the buffer
 * was told it is. */
static void check_resident_buffers(const char *when)
{
    for (unsigned i = 0; i < R.nbuf; i++) {
        struct svm_buf *b = &R.buf[i];

        for (unsigned k = 0; b->resident && k < b->dma.nalloc; k++) {
            struct vidmm_alloc_state st;

            vidmm_alloc_state(R.vm, R.alloc[b->aidx[k]].handle, &st);
            if (st.where == VIDMM_IN_SYSMEM ||
                st.gpu_addr != b->desc[k].gpu_addr) {
                fail("%s: buffer %u's allocation %u moved while in use "
                     "(at %#" PRIx64 ", patched %#" PRIx64 ")", when, i,
                     b->aidx[k], st.gpu_addr, b->desc[k].gpu_addr);
            }
        }
        if (b->resident && b->dma_handle) {
            struct vidmm_alloc_state st;

            vidmm_alloc_state(R.vm, b->dma_handle, &st);
            if (st.where == VIDMM_IN_SYSMEM ||
                st.gpu_addr != b->dma.gpu_addr) {
                fail("%s: buffer %u's own DMA buffer moved while in use "
                     "(at %#" PRIx64 ", runs at %#" PRIx64 ")", when, i,
                     st.gpu_addr, b->dma.gpu_addr);
            }
        }
    }
}

/* A paging op that touches [at, at + n). */
static bool op_hits(const struct ddi_paging_op *op, uint64_t at, uint64_t n)
{
    bool hit = op->dst < at + n && at < op->dst + op->size;

    if (op->kind == DDI_PAGING_TRANSFER) {
        hit |= op->src < at + n && at < op->src + op->size;
    }
    return hit;
}

/*
 * The move rule, for every kind of move (eviction, promotion, demotion,
 * repacking, the patched-once put-back): no paging operation maps,
 * unmaps, reads for a move or writes any range of an allocation that a
 * buffer holding residency (prepared, on the ring, running) was patched
 * with. check_resident_buffers sees where allocations end up; this sees
 * every operation on the way, temporary ones included.
 */
static void check_ops_spare_busy(const struct ddi_paging_op *ops,
                                 unsigned nops)
{
    for (unsigned i = 0; i < R.nbuf; i++) {
        const struct svm_buf *b = &R.buf[i];

        for (unsigned k = 0; b->resident && k < b->dma.nalloc; k++) {
            uint64_t at = b->desc[k].gpu_addr;
            uint64_t n = (R.alloc[b->aidx[k]].size + PAGE - 1) & ~(PAGE - 1);

            for (unsigned o = 0; o < nops; o++) {
                const struct ddi_paging_op *op = &ops[o];
                bool hit = op->dst < at + n && at < op->dst + op->size;

                if (op->kind == DDI_PAGING_TRANSFER) {
                    hit |= op->src < at + n && at < op->src + op->size;
                }
                if (hit) {
                    fail("paging op %u (kind %u) touches %#" PRIx64
                         ", allocation %u of buffer %u in use there", o,
                         op->kind, at, b->aidx[k], i);
                    return;
                }
            }
        }
        for (unsigned o = 0; b->resident && b->dma_handle && o < nops; o++) {
            if (op_hits(&ops[o], b->dma.gpu_addr, PAGE)) {
                fail("paging op %u (kind %u) touches %#" PRIx64 ", buffer "
                     "%u's own DMA buffer, in use there", o, ops[o].kind,
                     b->dma.gpu_addr, i);
                return;
            }
        }
    }
}

/* Every op list vidmm asks for must also pass the copro kmd's own check
 * (kmd/copro_paging.c, the driver's BuildPagingBuffer on the device):
 * vidmm obeys the real driver's rules, not just the model's. */
static int checked_build(void *drv, const struct ddi_paging_op *ops,
                         unsigned nops, struct ddi_dmabuf *out)
{
    struct sim_gpu *g = drv;
    struct copro_paging_space space = {
        .vram_size = g->cfg.mem_size,
        .aperture_base = g->cfg.aperture_base,
        .aperture_pages = (uint32_t)(g->cfg.aperture_size / PAGE),
        .gart_table = g->gart_addr, .zero_entries = g->gart_zero,
        .zero_count = SIM_GART_ZERO,
    };
    unsigned bad = 0;
    int rc = copro_paging_check(&space, ops, nops, &bad);

    check_ops_spare_busy(ops, nops);

    if (rc != DDI_OK) {
        fail("the kmd refuses paging op %u of %u (kind %u): %s", bad, nops,
             ops[bad].kind, ddi_status_name(rc));
        return rc;
    }
    return sim_gpu_ops.build_paging_buffer(drv, ops, nops, out);
}

/* ---- the scheduler's residency hook ---- */

/* The paging buffer vidmm built into p goes to the scheduler. */
static void give_paging(struct svm_paging *p,
                        const struct vidmm_residency *res,
                        struct vidsch_residency *out)
{
    p->used = true;
    p->ticket = res->paging_ticket;
    *out = (struct vidsch_residency){
        .paging = &p->dma, .paging_engine = 1,
        .paging_cookie = PAGING_COOKIE | (uint64_t)(p - R.paging),
        .paging_ticket = res->paging_ticket,
        .wait_ticket = res->wait_ticket,
        .paging_bytes = res->paging_bytes,
    };
    R.r->paging_reported += res->paging_bytes;
}

static int hook_make_resident(void *arg, uint64_t cookie,
                              struct ddi_dmabuf *dma,
                              struct ddi_alloc_desc *desc, bool patched,
                              struct vidsch_residency *out)
{
    struct svm_buf *b = &R.buf[cookie];
    struct svm_paging *p = NULL;
    struct vidmm_residency res = { 0 };
    struct vidmm_alloc_state before[MAX_ALLOCS];
    struct ddi_alloc_ref list[LIST_MAX + 1];
    struct ddi_alloc_desc d[LIST_MAX + 1];
    enum vidmm_where dma_where = VIDMM_IN_SYSMEM;
    bool dma_locked = false;
    unsigned n;
    int rc;

    (void)arg;
    (void)dma;
    for (unsigned i = 0; i < NPAGING && !p; i++) {
        if (!R.paging[i].used) {
            p = &R.paging[i];
        }
    }
    if (!p) {
        return DDI_EBUSY;
    }
    p->dma.len_bytes = 0;
    res.paging = &p->dma;
    for (unsigned a = 0; a < R.nalloc; a++) {
        vidmm_alloc_state(R.vm, R.alloc[a].handle, &before[a]);
    }
    n = b->dma.nalloc;
    for (unsigned k = 0; k < n; k++) {
        list[k] = b->dma.alloc[k];
        d[k] = desc[k];
    }
    if (b->dma_handle) {
        enum vidmm_where where;
        uint64_t at;

        /* as kernel/kdma.c: not while a paging buffer moves it; kept at
         * its VRAM address through the plan (the patch goes there) */
        if (vidmm_lock(R.vm, b->dma_handle, &where, &at) != DDI_OK) {
            return DDI_EBUSY;
        }
        dma_where = where;
        dma_locked = where == VIDMM_IN_VRAM;
        if (!dma_locked) {
            vidmm_unlock(R.vm, b->dma_handle);
        }
        list[n] = (struct ddi_alloc_ref){ .handle = b->dma_handle };
        d[n] = (struct ddi_alloc_desc){ .size = DMA_BYTES,
                                        .gpu_addr = b->dma.gpu_addr };
        n++;
    }
    rc = vidmm_make_resident(R.vm, b->ctx + 1, list, n, d, patched, &res);
    if (dma_locked) {
        vidmm_unlock(R.vm, b->dma_handle);
    }
    for (unsigned k = 0; rc == DDI_OK && k < b->dma.nalloc; k++) {
        desc[k] = d[k];
    }
    if (rc == DDI_OK && b->dma_handle) {
        struct vidmm_alloc_state st;

        vidmm_alloc_state(R.vm, b->dma_handle, &st);
        if (patched && st.gpu_addr != b->dma_patched) {
            fail("buffer %u's DMA buffer came back at %#" PRIx64
                 ", patched at %#" PRIx64, (unsigned)cookie, st.gpu_addr,
                 b->dma_patched);
        }
        b->dma.gpu_addr = st.gpu_addr;
        b->dma.dw = st.where == VIDMM_IN_VRAM && dma_locked
                    ? sim_gpu_ptr(R.h->gpu, st.gpu_addr)
                    : (uint32_t *)sim_gpu_sys_ptr(R.h->gpu, st.pages[0]);
        if (!patched) {
            b->dma_patched = st.gpu_addr;
        }
        if (dma_where == VIDMM_IN_SYSMEM) {
            R.r->dma_brought_in++;
            R.r->dma_back_patched += patched;
        }
    }
    if (rc == DDI_EBUSY) {
        if (res.paging_built) {
            /* a step of a residency that takes several paging buffers */
            give_paging(p, &res, out);
            R.r->paging_steps++;
        }
        return rc;
    }
    if (rc == DDI_ENOMEM && R.cfg->evict_own_only) {
        R.r->enomem++;          /* the restriction's price: allowed */
        return rc;
    }
    if (rc != DDI_OK) {
        fail("make_resident of buffer %u: %s", (unsigned)cookie,
             ddi_status_name(rc));
        return rc;
    }
    /* the patent's restriction: another process's allocation leaves VRAM
     * only if offered (or for the patched-once rule) */
    for (unsigned a = 0; R.cfg->evict_own_only && !patched && a < R.nalloc;
         a++) {
        struct vidmm_alloc_state st;

        vidmm_alloc_state(R.vm, R.alloc[a].handle, &st);
        if (R.alloc[a].process != b->ctx + 1 && !R.alloc[a].offered &&
            before[a].where == VIDMM_IN_VRAM &&
            (st.where != VIDMM_IN_VRAM || st.gpu_addr != before[a].gpu_addr)) {
            fail("process %u's buffer %u evicted process %u's allocation %u",
                 b->ctx + 1, (unsigned)cookie, R.alloc[a].process, a);
        }
    }
    if (patched) {
        R.r->handed_back++;
        for (unsigned k = 0; k < b->dma.nalloc; k++) {
            if (desc[k].gpu_addr != b->patched_addr[k]) {
                fail("buffer %u came back with allocation %u at %#" PRIx64
                     ", patched at %#" PRIx64, (unsigned)cookie, b->aidx[k],
                     desc[k].gpu_addr, b->patched_addr[k]);
            }
        }
    } else if (!b->have_patched) {
        for (unsigned k = 0; k < b->dma.nalloc; k++) {
            b->patched_addr[k] = desc[k].gpu_addr;
        }
        b->have_patched = true;
    }
    b->resident = true;
    b->wait_ticket = res.wait_ticket;
    if (res.paging_built) {
        give_paging(p, &res, out);
    } else {
        out->wait_ticket = res.wait_ticket;
    }
    for (unsigned a = 0; a < R.nalloc; a++) {
        struct vidmm_alloc_state st;

        vidmm_alloc_state(R.vm, R.alloc[a].handle, &st);
        R.r->promotions += before[a].where == VIDMM_IN_APERTURE &&
                           st.where == VIDMM_IN_VRAM;
    }
    check_resident_buffers("after make_resident");
    return DDI_OK;
}

static void hook_release(void *arg, uint64_t cookie, struct ddi_dmabuf *dma,
                         unsigned engine, uint64_t fence)
{
    struct svm_buf *b = &R.buf[cookie];

    (void)arg;
    (void)dma;
    if (!b->resident) {
        fail("release of buffer %u that holds no residency", (unsigned)cookie);
    }
    b->resident = false;
    vidmm_release(R.vm, b->dma.alloc, b->dma.nalloc, engine, fence);
    if (b->dma_handle) {
        struct ddi_alloc_ref own = { .handle = b->dma_handle };

        vidmm_release(R.vm, &own, 1, engine, fence);
    }
}

static void on_done(void *arg, uint64_t cookie, int status)
{
    (void)arg;
    if (cookie & PAGING_COOKIE) {
        struct svm_paging *p = &R.paging[cookie & 0xffff];

        if (status != DDI_OK) {
            fail("paging buffer %" PRIu64 ": %s", p->ticket,
                 ddi_status_name(status));
        }
        vidmm_paging_done(R.vm, p->ticket);
        if (p->ticket > R.paging_done) {
            R.paging_done = p->ticket;
        }
        p->used = false;
        R.r->paging_buffers++;
        return;
    }
    if (R.buf[cookie].done) {
        fail("buffer %u completed twice", (unsigned)cookie);
    }
    if (status == DDI_ENOMEM && R.cfg->evict_own_only) {
        R.buf[cookie].done = true;      /* never ran: writes nothing */
        return;
    }
    if (status != DDI_OK) {
        fail("buffer %u: %s", (unsigned)cookie, ddi_status_name(status));
    }
    {
        /* its fills land: a context's buffers retire in order, so the
         * last one to retire wins */
        struct svm_buf *b = &R.buf[cookie];

        for (unsigned k = 0; k < b->dma.nalloc; k++) {
            for (uint64_t p = b->first[k]; p < b->first[k] + b->count[k];
                 p++) {
                R.alloc[b->aidx[k]].version[p] = b->version;
            }
        }
    }
    R.buf[cookie].done = true;
    R.r->buffers++;
    /* the kernel frees a pageable DMA buffer once it retired (kdma.c);
     * one a paging buffer still moves goes at the end */
    if (R.buf[cookie].dma_handle &&
        vidmm_alloc_destroy(R.vm, R.buf[cookie].dma_handle) == DDI_OK) {
        R.buf[cookie].dma_handle = 0;
    }
    R.r->gpu_ns = R.h->clk.now;
}

/* The engine starts (or resumes) a DMA buffer: its addresses must be its
 * allocations' placements, its paging done. */
static void obs_loaded(void *arg, unsigned engine,
                       const struct copro_submit_desc *d)
{
    (void)arg;
    if (engine != 0) {
        return;
    }
    for (unsigned i = 0; i < R.nbuf; i++) {
        struct svm_buf *b = &R.buf[i];

        if (b->dma.gpu_addr != d->dma_addr || b->done ||
            (b->dma_handle && !b->resident)) {
            /* a pageable buffer not resident has no address: another's
             * DMA buffer may be where it was */
            continue;
        }
        if (!b->resident) {
            fail("buffer %u runs without residency", i);
        }
        if (b->dma_handle) {
            /* what the engine reads there is what was built, patched */
            static uint32_t seen[DMA_BYTES / 4];

            if (!sim_gpu_read(R.h->gpu, d->dma_addr, seen,
                              b->dma.len_bytes)) {
                fail("buffer %u's DMA buffer at %#" PRIx64 " not backed",
                     i, d->dma_addr);
                return;
            }
            for (unsigned w = 0; w < b->dma.len_bytes / 4; w++) {
                bool patch = false;

                for (unsigned p = 0; p < b->dma.npatch; p++) {
                    unsigned f = b->dma.patch[p].patch_offset / 4;

                    patch |= w == f || w == f + 1;
                }
                if (!patch && seen[w] != b->cmd[w]) {
                    fail("buffer %u's DMA buffer word %u: %#x, built %#x",
                         i, w, seen[w], b->cmd[w]);
                    return;
                }
            }
            for (unsigned p = 0; p < b->dma.npatch; p++) {
                const struct ddi_patch_loc *pl = &b->dma.patch[p];
                uint64_t v = seen[pl->patch_offset / 4] |
                             (uint64_t)seen[pl->patch_offset / 4 + 1] << 32;
                struct vidmm_alloc_state st;

                vidmm_alloc_state(R.vm, R.alloc[b->aidx[pl->slot]].handle,
                                  &st);
                if (v != st.gpu_addr + pl->alloc_offset) {
                    fail("buffer %u loaded with %#" PRIx64 " patched, "
                         "allocation at %#" PRIx64, i, v,
                         st.gpu_addr + pl->alloc_offset);
                    return;
                }
            }
            R.r->dma_loads_checked++;
        }
        if (b->wait_ticket > R.paging_done) {
            fail("buffer %u runs before paging buffer %" PRIu64, i,
                 b->wait_ticket);
        }
        for (unsigned p = 0; p < b->dma.npatch; p++) {
            const struct ddi_patch_loc *pl = &b->dma.patch[p];
            uint64_t v = b->dma.dw[pl->patch_offset / 4] |
                         (uint64_t)b->dma.dw[pl->patch_offset / 4 + 1] << 32;
            struct vidmm_alloc_state st;

            vidmm_alloc_state(R.vm, R.alloc[b->aidx[pl->slot]].handle, &st);
            if (st.where == VIDMM_IN_SYSMEM ||
                v != st.gpu_addr + pl->alloc_offset) {
                fail("buffer %u runs with %#" PRIx64 " patched, allocation "
                     "%u at %#" PRIx64, i, v, b->aidx[pl->slot],
                     st.gpu_addr + pl->alloc_offset);
            }
        }
        return;
    }
}

static const struct sim_gpu_observer observer = { .loaded = obs_loaded };

/* ---- the workload ---- */

static void make_buffer(unsigned ctx, uint32_t version)
{
    struct svm_buf *b = &R.buf[R.nbuf];
    unsigned n = (unsigned)sim_rand_range(&R.rng, 1, LIST_MAX), at = 0;
    uint64_t addr = sim_gpu_alloc(R.h->gpu, 512, 64);
    unsigned mine[MAX_ALLOCS], nmine = 0;

    for (unsigned i = 0; i < R.nalloc; i++) {
        if (R.alloc[i].process == ctx + 1) {
            mine[nmine++] = i;
        }
    }
    memset(b, 0, sizeof(*b));
    b->ctx = ctx;
    b->version = version;
    b->dma.dw = R.cfg->dma ? b->cmd : sim_gpu_ptr(R.h->gpu, addr);
    b->dma.gpu_addr = addr;
    b->dma.cap_bytes = DMA_BYTES;
    b->dma.engine = 0;
    for (unsigned k = 0; k < n && nmine; k++) {
        unsigned j = (unsigned)sim_rand_range(&R.rng, 0, nmine - 1);
        unsigned a = mine[j];
        struct svm_alloc *al = &R.alloc[a];
        uint64_t pages = al->size / PAGE;
        uint64_t first = sim_rand_range(&R.rng, 0, pages - 1);
        uint64_t count = sim_rand_range(&R.rng, 1, pages - first);

        mine[j] = mine[--nmine];        /* distinct allocations */
        b->aidx[k] = a;
        b->dma.alloc[k] = (struct ddi_alloc_ref){ .handle = al->handle,
                                                  .write = 1 };
        b->desc[k].size = al->size;
        b->dma.patch[k] = (struct ddi_patch_loc){
            .slot = k, .patch_offset = (at + 1) * 4,
            .alloc_offset = first * PAGE, .split_offset = at * 4,
        };
        at = sim_emit_fill(b->dma.dw, at, 0, count * PAGE,
                           pattern(a, version));
        b->first[k] = first;
        b->count[k] = count;
        b->dma.nalloc = k + 1;
        b->dma.npatch = k + 1;
    }
    at = sim_emit_work(b->dma.dw, at, R.cfg->work_ns);
    b->dma.len_bytes = at * 4;
    if (R.cfg->dma) {
        /* pageable: a vidmm allocation of the process, filled where
         * creation put it (VRAM, or its backing page) */
        struct vidmm_alloc_info info = {
            .size = DMA_BYTES, .owner = ctx + 1, .cpu_visible = true,
            .place_on_use = true,
            .segments = R.cfg->dma == SVM_DMA_VRAM ? VIDMM_SEG_VRAM
                                                   : VIDMM_SEG_APERTURE,
        };
        struct vidmm_alloc_state st;

        if (vidmm_alloc_create(R.vm, &info, &b->dma_handle) != DDI_OK) {
            fail("DMA buffer %u: no allocation", R.nbuf);
            return;
        }
        vidmm_alloc_state(R.vm, b->dma_handle, &st);
        b->dma.dw = st.where == VIDMM_IN_VRAM
                    ? sim_gpu_ptr(R.h->gpu, st.gpu_addr)
                    : (uint32_t *)sim_gpu_sys_ptr(R.h->gpu, st.pages[0]);
        b->dma.gpu_addr = st.gpu_addr;
        memcpy(b->dma.dw, b->cmd, b->dma.len_bytes);
    }
    R.nbuf++;
}

static void submit(unsigned i)
{
    struct svm_buf *b = &R.buf[i];
    int rc = vidsch_submit(R.h->vs, R.ctx[b->ctx], &b->dma, b->desc, i);

    if (rc != DDI_OK) {
        fail("submit of buffer %u: %s", i, ddi_status_name(rc));
    }
}

/* Context 1 (HIGH) submits one buffer every 300 us: it preempts
 * context 0's, whose allocations may then be evicted. */
static void submit_next_b(void *obj, uint64_t arg)
{
    (void)obj;
    (void)arg;
    while (R.next_b_submit < R.nbuf && R.buf[R.next_b_submit].ctx != 1) {
        R.next_b_submit++;
    }
    if (R.next_b_submit < R.nbuf) {
        submit(R.next_b_submit++);
        sim_at(&R.h->clk, R.h->clk.now + 300 * US, submit_next_b, NULL, 0);
    }
}

/* Reads every written page of every allocation wherever it is. */
static void check_contents(void)
{
    static uint32_t page[PAGE / 4];

    for (unsigned a = 0; a < R.nalloc && !R.failed; a++) {
        struct svm_alloc *al = &R.alloc[a];
        struct vidmm_alloc_state st;

        vidmm_alloc_state(R.vm, al->handle, &st);
        for (uint64_t p = 0; p < al->size / PAGE && !R.failed; p++) {
            if (!al->version[p]) {
                continue;
            }
            if (st.where == VIDMM_IN_SYSMEM) {
                memcpy(page, sim_gpu_sys_ptr(R.h->gpu, st.pages[p]), PAGE);
            } else if (!sim_gpu_read(R.h->gpu, st.gpu_addr + p * PAGE, page,
                                     PAGE)) {
                fail("allocation %u page %" PRIu64 " not backed", a, p);
                break;
            }
            for (unsigned w = 0; w < PAGE / 4; w++) {
                if (page[w] != pattern(a, al->version[p])) {
                    fail("allocation %u (%s) page %" PRIu64 " word %u: "
                         "%#x, expected %#x (version %u)", a,
                         st.where == VIDMM_IN_VRAM ? "vram" :
                         st.where == VIDMM_IN_APERTURE ? "aperture" :
                         "sysmem", p, w, page[w],
                         pattern(a, al->version[p]), al->version[p]);
                    break;
                }
            }
        }
    }
}

void svm_host_init(struct sim_host *h)
{
    sim_host_init(h, MEM_BYTES, NCTX, 2 * MAX_BUFS + NPAGING);
}

bool svm_run(struct sim_host *h, const struct svm_config *c,
             struct svm_result *r)
{
    struct sim_gpu_config g;
    struct vidsch_config vc;
    struct vidmm_config mc = {
        .vram_base = VRAM_BASE, .vram_size = SVM_VRAM_BYTES,
        .aperture_base = AP_BASE, .aperture_size = AP_BYTES,
        .max_allocs = MAX_ALLOCS + NCTX * MAX_BUFS,
        .max_blocks = 2 * (MAX_ALLOCS + NCTX * MAX_BUFS),
        .max_pages = SYS_PAGES, .copy_engine = 1,
        .evict_own_only = c->evict_own_only,
    };
    struct vidmm_env env = {
        .os = &R, .alloc_sys_pages = env_alloc_pages,
        .free_sys_pages = env_free_pages,
    };
    struct sim_host_hooks hooks = {
        .buffer_done = on_done, .make_resident = hook_make_resident,
        .release_resident = hook_release,
    };
    uint64_t ws = SVM_VRAM_BYTES * c->ws_pct / 100, total = 0;
    uint32_t version = 0;

    memset(&R, 0, sizeof(R));
    memset(r, 0, sizeof(*r));
    R.h = h;
    R.cfg = c;
    R.r = r;
    R.rng = c->seed * 0x9e3779b97f4a7c15ull + c->ws_pct;
    sim_gpu_config_default(&g);
    g.mem_size = MEM_BYTES;
    g.aperture_base = AP_BASE;
    g.aperture_size = AP_BYTES;
    g.sys_pages = SYS_PAGES;
    vidsch_config_default(&vc);
    vc.policy = c->fight ? VIDSCH_POLICY_QUANTUM : VIDSCH_POLICY_PRIORITY;
    vc.fight_bytes = c->fight ? c->fight_bytes : 0;
    vc.max_contexts = NCTX;
    vc.max_buffers = 2 * MAX_BUFS + NPAGING;
    sim_host_start(h, &g, &vc, 5 * US, 2 * US, c->seed, &hooks, NULL);
    sim_gpu_observe(h->gpu, &observer, NULL);
    if (sizeof(vidmm_storage) < vidmm_storage_size(&mc)) {
        abort();
    }
    R.ops = sim_gpu_ops;
    R.ops.build_paging_buffer = checked_build;
    R.dev = (struct ddi_device){ .ops = &R.ops, .drv = h->gpu };
    R.vm = vidmm_create(vidmm_storage, sizeof(vidmm_storage), &mc, &env,
                        &R.dev);
    for (unsigned i = 0; i < NPAGING; i++) {
        uint64_t at = sim_gpu_alloc(h->gpu, PAGING_BYTES, 64);

        R.paging[i].dma = (struct ddi_dmabuf){
            .dw = sim_gpu_ptr(h->gpu, at), .gpu_addr = at,
            .cap_bytes = PAGING_BYTES, .engine = 1,
        };
    }
    for (unsigned i = 0; i < NCTX; i++) {
        R.ctx[i] = vidsch_ctx_create(h->vs, i + 1, 0,
                                     i && !c->fight ? VIDSCH_PRIO_HIGH
                                                    : VIDSCH_PRIO_NORMAL,
                                     sim_gpu_alloc(h->gpu, COPRO_SAVE_SIZE,
                                                   64));
    }
    /* aperture runs: a pinned primary holds half of VRAM, so the lists
     * of the buffer running and of the one prepared often do not fit
     * together and members go to the aperture, to be promoted later */
    pinned_handle = 0;
    if (c->aperture) {
        struct vidmm_alloc_info pi = {
            .size = SVM_VRAM_BYTES / 2, .owner = NCTX + 1,
            .primary = true,
        };

        if (vidmm_alloc_create(R.vm, &pi, &pinned_handle) != DDI_OK) {
            fail("pinned primary");
        }
    }
    /* the working set: random sizes, alternating processes */
    while (total < ws && R.nalloc < MAX_ALLOCS) {
        struct vidmm_alloc_info info = {
            .size = sim_rand_range(&R.rng, 4, MAX_APAGES) * PAGE,
            .owner = R.nalloc % NCTX + 1, .segments = VIDMM_SEG_VRAM,
        };

        if (c->aperture && R.nalloc % 2) {
            info.segments |= VIDMM_SEG_APERTURE;
        }
        struct svm_alloc *al = &R.alloc[R.nalloc];

        if (info.size > ws - total + 4 * PAGE) {
            info.size = ((ws - total) / PAGE + 4) * PAGE;
            if (info.size > MAX_APAGES * PAGE) {
                info.size = MAX_APAGES * PAGE;
            }
        }
        if (vidmm_alloc_create(R.vm, &info, &al->handle) != DDI_OK) {
            fail("alloc_create %u", R.nalloc);
            break;
        }
        al->process = info.owner;
        if (c->evict_own_only && R.nalloc % 4 == 0) {
            /* some offered [OfferAllocations]: anyone may evict them */
            vidmm_offer(R.vm, al->handle, true);
            al->offered = true;
        }
        al->size = info.size;
        total += info.size;
        R.nalloc++;
    }
    for (unsigned i = 0; i < c->buffers && i < MAX_BUFS; i++) {
        for (unsigned k = 0; k < NCTX; k++) {
            make_buffer(k, ++version);
        }
    }
    for (unsigned i = 0; i < R.nbuf; i++) {
        if (R.buf[i].ctx == 0 || c->fight) {
            submit(i);
        }
    }
    if (!c->fight) {
        sim_at(&h->clk, 50 * US, submit_next_b, NULL, 0);
    }
    if (!sim_host_run(h, 1000000000000ull)) {
        fail("the run did not drain");
    }
    for (unsigned i = 0; i < R.nbuf && !R.failed; i++) {
        if (!R.buf[i].done) {
            fail("buffer %u never retired", i);
        }
    }
    check_contents();
    for (unsigned a = 0; a < R.nalloc && !R.failed; a++) {
        int rc = vidmm_alloc_destroy(R.vm, R.alloc[a].handle);

        if (rc != DDI_OK) {
            fail("destroy of allocation %u: %s", a, ddi_status_name(rc));
        }
    }
    for (unsigned i = 0; i < R.nbuf && !R.failed; i++) {
        if (R.buf[i].dma_handle &&
            vidmm_alloc_destroy(R.vm, R.buf[i].dma_handle) != DDI_OK) {
            fail("destroy of buffer %u's DMA buffer", i);
        }
    }
    if (pinned_handle &&
        vidmm_alloc_destroy(R.vm, pinned_handle) != DDI_OK) {
        fail("destroy of the pinned primary");
    }
    if (!R.failed && vidmm_vram_used(R.vm)) {
        fail("%" PRIu64 " bytes of VRAM leaked",
             (uint64_t)vidmm_vram_used(R.vm));
    }
    if (!R.failed && h->gpu->nsys_free != SYS_PAGES) {
        fail("%u system pages leaked", SYS_PAGES - h->gpu->nsys_free);
    }
    r->evictions = vidmm_stats(R.vm)->evictions;
    r->restores = vidmm_stats(R.vm)->restores;
    r->bytes_moved = vidmm_stats(R.vm)->bytes_moved;
    r->turns = vidsch_engine_stats(h->vs, 0)->turns;
    r->fight_turns = vidsch_engine_stats(h->vs, 0)->fight_turns;
    if (!R.failed && r->paging_reported != r->bytes_moved) {
        fail("vidsch was told of %" PRIu64 " paging bytes, vidmm moved %"
             PRIu64, r->paging_reported, r->bytes_moved);
    }
    if (c->verbose) {
        printf("# seed %" PRIu64 " ws %u%%: %u allocations, %" PRIu64
               " buffers in %" PRIu64 " us, %" PRIu64 " paging buffers, %"
               PRIu64 " evictions, %" PRIu64 " restores, %" PRIu64
               " handed back, %" PRIu64 " ENOMEM\n", c->seed, c->ws_pct, R.nalloc, r->buffers,
               (uint64_t)(r->gpu_ns / US), r->paging_buffers, r->evictions, r->restores,
               r->handed_back, r->enomem);
    }
    return !R.failed;
}
