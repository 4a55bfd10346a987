/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host tests for vidmm's GPU-VA mode: residency lists, budgets and trims
 * (firmware/vidmm/vidmm_residency.c) and per-process VA spaces with the
 * page-table updates of a move (firmware/vidmm/vidmm_gpuva.c).
 *
 * The pager is a small fake memory manager: a first-fit VRAM segment for
 * resident allocations, the aperture (system memory) for the others, and
 * every move recorded as the ddi_pte_update vidmm_gpuva produced for it,
 * with an increasing paging fence.
 */
#include <glib.h>
#include <string.h>

#include "ddi/ddi.h"
#include "vidmm/vidmm_gpuva.h"
#include "vidmm/vidmm_residency.h"

#define KB              1024ull
#define VRAM_BYTES      (128 * KB)
#define APERTURE        0x10000000000ull    /* where system memory is */
#define VA_BASE         0x100000ull
#define VA_SIZE         0x40000000ull
#define MAX_ALLOCS      16
#define MAX_UPDATES     64

/* The fake memory manager's record of an allocation. */
struct mm_alloc {
    struct vidmm_gpuva_space *space;
    uint64_t va;
    uint64_t sys;                   /* its backing store, aperture address */
    struct vidmm_gpuva_frame frame; /* where it is now */
};

struct pager {
    struct vidmm_segment vram;
    struct vidmm_block blocks[MAX_ALLOCS];
    uint64_t fence;
    unsigned fail_page_in_after;    /* 0: never fail */
    const struct vidmm_res_alloc *in_use;   /* the GPU may still use it */
    unsigned page_ins;
    unsigned nupd;
    struct ddi_pte_update upd[MAX_UPDATES];
};

static void record_move(struct pager *pg, struct mm_alloc *m)
{
    g_assert_cmpuint(pg->nupd, <, MAX_UPDATES);
    g_assert_cmpint(vidmm_gpuva_remap(m->space, m->va, 0, 0, &m->frame,
                                      &pg->upd[pg->nupd++]), ==, DDI_OK);
}

static int fake_page_in(void *ctx, struct vidmm_res_alloc *a, uint64_t *fence)
{
    struct pager *pg = ctx;
    struct mm_alloc *m = a->mm;
    uint64_t addr;

    g_assert_false(a->resident);
    pg->page_ins++;
    if (pg->fail_page_in_after && pg->page_ins >= pg->fail_page_in_after) {
        return DDI_ENOMEM;
    }
    if (!vidmm_segment_alloc(&pg->vram, a->size, 4096, &addr)) {
        return DDI_ENOMEM;
    }
    m->frame = (struct vidmm_gpuva_frame){ DDI_PTE_VRAM, addr, true };
    record_move(pg, m);
    *fence = ++pg->fence;
    return DDI_OK;
}

static void fake_page_out(void *ctx, struct vidmm_res_alloc *a,
                          uint64_t *fence)
{
    struct pager *pg = ctx;
    struct mm_alloc *m = a->mm;

    g_assert_true(a->resident);
    g_assert_cmpuint(m->frame.target, ==, DDI_PTE_VRAM);
    g_assert_true(vidmm_segment_free(&pg->vram, m->frame.addr));
    m->frame = (struct vidmm_gpuva_frame){ DDI_PTE_APERTURE, m->sys, true };
    record_move(pg, m);
    *fence = ++pg->fence;
}

static bool fake_in_use(void *ctx, struct vidmm_res_alloc *a)
{
    struct pager *pg = ctx;

    return a == pg->in_use;
}

/* The world of one test: a manager, processes, devices, allocations. */
struct world {
    struct pager pg;
    struct vidmm_res res;
    struct vidmm_res_alloc storage[MAX_ALLOCS];
    struct vidmm_res_process proc[2];
    struct vidmm_res_device dev[2];
    struct vidmm_res_entry entries[2][8];
    struct vidmm_gpuva_space space[2];
    struct vidmm_block va_blocks[2][MAX_ALLOCS];
    struct mm_alloc mm[MAX_ALLOCS];
    unsigned nmm;
    /* trim callback bookkeeping */
    uint64_t trim_bytes;
    unsigned trim_calls;
    uint32_t trim_evict;            /* handle the callback evicts, 0 none */
    struct vidmm_res_device *trim_dev;
    int trim_status;                /* what the callback's call returned */
    bool trim_makes_resident;
};

static struct world w;

static void on_trim(void *ctx, struct vidmm_res_process *p, uint64_t bytes)
{
    struct world *wd = ctx;
    uint64_t fence;

    (void)p;
    wd->trim_calls++;
    wd->trim_bytes = bytes;
    if (wd->trim_makes_resident) {
        wd->trim_status = vidmm_res_make_resident(&wd->res, wd->trim_dev,
                                                  &wd->trim_evict, 1, &fence);
    } else if (wd->trim_evict) {
        wd->trim_status = vidmm_res_evict(&wd->res, wd->trim_dev,
                                          &wd->trim_evict, 1, NULL);
    }
}

/* Two processes (ids 1 and 2), one device each, budgets 0 = all. */
static void setup(uint64_t budget0, uint64_t budget1)
{
    struct vidmm_res_pager pager = {
        .page_in = fake_page_in, .page_out = fake_page_out,
        .in_use = fake_in_use, .ctx = &w.pg,
    };

    memset(&w, 0, sizeof(w));
    vidmm_segment_init(&w.pg.vram, 0, VRAM_BYTES, NULL, w.pg.blocks,
                       MAX_ALLOCS);
    g_assert_cmpint(vidmm_res_init(&w.res, VRAM_BYTES, &pager, w.storage,
                                   MAX_ALLOCS), ==, DDI_OK);
    for (unsigned i = 0; i < 2; i++) {
        g_assert_cmpint(vidmm_res_process_add(&w.res, &w.proc[i], 1 + i,
                                              i ? budget1 : budget0,
                                              on_trim, &w), ==, DDI_OK);
        g_assert_cmpint(vidmm_res_device_add(&w.res, &w.dev[i], &w.proc[i],
                                             w.entries[i], 8), ==, DDI_OK);
        g_assert_cmpint(vidmm_gpuva_init(&w.space[i], 10 + i, 1 + i,
                                         VA_BASE, VA_SIZE, w.va_blocks[i],
                                         MAX_ALLOCS), ==, DDI_OK);
    }
}

/* A new allocation of process pi, with a VA and a system-memory home. */
static uint32_t new_alloc(unsigned pi, uint32_t handle, uint64_t size)
{
    struct mm_alloc *m = &w.mm[w.nmm];

    m->space = &w.space[pi];
    m->sys = APERTURE + w.nmm * 0x100000ull;
    m->frame = (struct vidmm_gpuva_frame){ DDI_PTE_APERTURE, m->sys, true };
    g_assert_cmpint(vidmm_gpuva_map(m->space, size, 0, &m->va), ==, DDI_OK);
    g_assert_cmpint(vidmm_res_alloc_add(&w.res, &w.proc[pi], handle, size, m,
                                        NULL), ==, DDI_OK);
    w.nmm++;
    return handle;
}

static struct vidmm_res_alloc *find(unsigned pi, uint32_t h)
{
    return vidmm_res_alloc_find(&w.res, &w.proc[pi], h);
}

static int mkres(unsigned di, uint32_t h, uint64_t *fence)
{
    uint64_t f;

    return vidmm_res_make_resident(&w.res, &w.dev[di], &h, 1,
                                   fence ? fence : &f);
}

static int evict(unsigned di, uint32_t h)
{
    return vidmm_res_evict(&w.res, &w.dev[di], &h, 1, NULL);
}

static void test_refcounts(void)
{
    uint32_t a;
    uint64_t f1, f2;

    setup(0, 0);
    a = new_alloc(0, 0x101, 16 * KB);
    g_assert_false(find(0, a)->resident);
    g_assert_cmpint(mkres(0, a, &f1), ==, DDI_OK);
    g_assert_true(find(0, a)->resident);
    g_assert_cmpuint(f1, ==, 1);            /* wait for the page-in */
    g_assert_cmpint(mkres(0, a, &f2), ==, DDI_OK);
    g_assert_cmpuint(f2, ==, f1);           /* same page-in, no new move */
    g_assert_cmpuint(w.res.stats.page_ins, ==, 1);
    g_assert_cmpuint(vidmm_res_device_refs(&w.dev[0], find(0, a)), ==, 2);

    /* two MakeResident need two Evict */
    g_assert_cmpint(evict(0, a), ==, DDI_OK);
    g_assert_cmpuint(find(0, a)->refs, ==, 1);
    g_assert_cmpint(evict(0, a), ==, DDI_OK);
    g_assert_cmpuint(find(0, a)->refs, ==, 0);
    g_assert_cmpuint(w.dev[0].count, ==, 0);
    /* Evict does not move: it stays until the room is needed */
    g_assert_true(find(0, a)->resident);
    g_assert_cmpuint(w.res.stats.page_outs, ==, 0);
    /* a third Evict has nothing to take */
    g_assert_cmpint(evict(0, a), ==, DDI_EINVAL);
}

static void test_evict_errors(void)
{
    uint32_t a, b, list[3];

    setup(0, 0);
    a = new_alloc(0, 0x101, 4 * KB);
    b = new_alloc(0, 0x102, 4 * KB);
    /* Evict without MakeResident */
    g_assert_cmpint(evict(0, a), ==, DDI_EINVAL);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    /* more Evicts in one call than references: refused whole */
    list[0] = a;
    list[1] = a;
    g_assert_cmpint(vidmm_res_evict(&w.res, &w.dev[0], list, 2, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpuint(find(0, a)->refs, ==, 1);
    /* one good and one never made resident: nothing changes */
    list[1] = b;
    g_assert_cmpint(vidmm_res_evict(&w.res, &w.dev[0], list, 2, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpuint(find(0, a)->refs, ==, 1);
    /* bad arguments */
    g_assert_cmpint(vidmm_res_evict(&w.res, &w.dev[0], list, 0, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_res_evict(&w.res, &w.dev[0], NULL, 1, NULL), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[0], list,
                                            VIDMM_RES_MAX_LIST + 1, NULL), ==,
                    DDI_EINVAL);
    /* repeated handles in one MakeResident count once each */
    list[0] = b;
    list[1] = b;
    list[2] = a;
    {
        uint64_t f;

        g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[0], list, 3,
                                                &f), ==, DDI_OK);
    }
    g_assert_cmpuint(find(0, b)->refs, ==, 2);
    g_assert_cmpuint(find(0, a)->refs, ==, 2);
}

static void test_paging_fence(void)
{
    uint32_t list[2];
    uint64_t f;

    setup(0, 0);
    list[0] = new_alloc(0, 0x101, 8 * KB);
    list[1] = new_alloc(0, 0x102, 8 * KB);
    g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[0], list, 2, &f),
                    ==, DDI_OK);
    /* both paged in: the later page-in's fence covers both */
    g_assert_cmpuint(w.pg.fence, ==, 2);
    g_assert_cmpuint(f, ==, 2);
    /* already resident on another call: still that allocation's fence */
    g_assert_cmpint(mkres(0, list[0], &f), ==, DDI_OK);
    g_assert_cmpuint(f, ==, 1);
}

static void test_budget_trim(void)
{
    uint32_t a, b, c;
    uint64_t f;

    setup(64 * KB, 0);
    a = new_alloc(0, 0x101, 32 * KB);
    b = new_alloc(0, 0x102, 32 * KB);
    c = new_alloc(0, 0x103, 32 * KB);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    g_assert_cmpint(mkres(0, b, NULL), ==, DDI_OK);
    g_assert_cmpuint(w.trim_calls, ==, 0);
    g_assert_cmpuint(w.proc[0].resident_bytes, ==, 64 * KB);

    /* c takes the process 32 KiB over: asked for exactly that, it gives
     * up a, which residency then pages out */
    w.trim_dev = &w.dev[0];
    w.trim_evict = a;
    w.trim_status = 1;
    g_assert_cmpint(mkres(0, c, &f), ==, DDI_OK);
    g_assert_cmpuint(w.trim_calls, ==, 1);
    g_assert_cmpuint(w.trim_bytes, ==, 32 * KB);
    g_assert_cmpint(w.trim_status, ==, DDI_OK);
    g_assert_false(find(0, a)->resident);
    g_assert_true(find(0, b)->resident);
    g_assert_true(find(0, c)->resident);
    g_assert_cmpuint(w.proc[0].resident_bytes, ==, 64 * KB);
    g_assert_cmpuint(vidmm_res_over_budget(&w.proc[0]), ==, 0);
    /* the fence covers c's page-in, which came after a's page-out */
    g_assert_cmpuint(f, ==, w.pg.fence);
    g_assert_cmpuint(w.proc[0].trims, ==, 1);
}

static void test_budget_soft(void)
{
    uint32_t a, b;
    uint64_t over;

    setup(16 * KB, 0);
    a = new_alloc(0, 0x101, 16 * KB);
    b = new_alloc(0, 0x102, 16 * KB);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    /* an application that ignores the trim still gets its memory while
     * there is some: the budget is a request, not a limit */
    g_assert_cmpint(mkres(0, b, NULL), ==, DDI_OK);
    g_assert_cmpuint(w.trim_calls, ==, 1);
    g_assert_cmpuint(w.trim_bytes, ==, 16 * KB);
    g_assert_cmpuint(vidmm_res_over_budget(&w.proc[0]), ==, 16 * KB);
    /* Evict reports what is still to trim [NumBytesToTrim] */
    g_assert_cmpint(vidmm_res_evict(&w.res, &w.dev[0], &b, 1, &over), ==,
                    DDI_OK);
    g_assert_cmpuint(over, ==, 16 * KB);    /* Evict alone moves nothing */
}

static void test_trim_cannot_make_resident(void)
{
    uint32_t a, b;

    setup(16 * KB, 0);
    a = new_alloc(0, 0x101, 16 * KB);
    b = new_alloc(0, 0x102, 16 * KB);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    w.trim_dev = &w.dev[0];
    w.trim_evict = a;
    w.trim_makes_resident = true;
    g_assert_cmpint(mkres(0, b, NULL), ==, DDI_OK);
    g_assert_cmpint(w.trim_status, ==, DDI_EBUSY);
    g_assert_cmpint(find(0, a)->refs, ==, 1);
}

static void test_out_of_memory_clean(void)
{
    uint32_t p0[3], q[2];
    struct vidmm_res_alloc *x;
    uint64_t f, fence_before;
    unsigned nupd;

    setup(0, 0);
    /* process 1 holds 96 of the 128 KiB, all referenced */
    for (unsigned i = 0; i < 3; i++) {
        p0[i] = new_alloc(0, 0x101 + i, 32 * KB);
        g_assert_cmpint(mkres(0, p0[i], NULL), ==, DDI_OK);
    }
    q[0] = new_alloc(1, 0x201, 32 * KB);
    q[1] = new_alloc(1, 0x202, 32 * KB);
    nupd = w.pg.nupd;
    fence_before = w.pg.fence;
    g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[1], q, 2, &f), ==,
                    DDI_ENOMEM);
    /* nothing moved, nothing referenced */
    g_assert_cmpuint(w.pg.nupd, ==, nupd);
    g_assert_cmpuint(w.pg.fence, ==, fence_before);
    g_assert_false(find(1, q[0])->resident);
    g_assert_false(find(1, q[1])->resident);
    g_assert_cmpuint(w.dev[1].count, ==, 0);
    g_assert_cmpuint(w.res.used, ==, 96 * KB);
    g_assert_cmpuint(w.res.stats.enomem, ==, 1);

    /* once process 1 lets one go, process 2 fits: the unreferenced one
     * is taken even though it is another process's */
    g_assert_cmpint(evict(0, p0[1]), ==, DDI_OK);
    g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[1], q, 2, &f), ==,
                    DDI_OK);
    x = find(0, p0[1]);
    g_assert_false(x->resident);
    g_assert_true(find(0, p0[0])->resident);
    g_assert_true(find(0, p0[2])->resident);
    g_assert_cmpuint(w.res.used, ==, 128 * KB);
}

static void test_overcommit_order(void)
{
    uint32_t theirs, mine, mine2, want;

    setup(0, 0);
    /* process 1's unreferenced allocation is the oldest; process 2's own
     * unreferenced one must still go first */
    theirs = new_alloc(0, 0x101, 32 * KB);
    g_assert_cmpint(mkres(0, theirs, NULL), ==, DDI_OK);
    g_assert_cmpint(evict(0, theirs), ==, DDI_OK);
    mine = new_alloc(1, 0x201, 32 * KB);
    g_assert_cmpint(mkres(1, mine, NULL), ==, DDI_OK);
    g_assert_cmpint(evict(1, mine), ==, DDI_OK);
    mine2 = new_alloc(1, 0x202, 64 * KB);
    g_assert_cmpint(mkres(1, mine2, NULL), ==, DDI_OK);
    g_assert_cmpuint(w.res.used, ==, 128 * KB);
    want = new_alloc(1, 0x203, 32 * KB);
    g_assert_cmpint(mkres(1, want, NULL), ==, DDI_OK);
    g_assert_false(find(1, mine)->resident);
    g_assert_true(find(0, theirs)->resident);
    g_assert_true(find(1, mine2)->resident);
    g_assert_true(find(1, want)->resident);
}

static void test_overcommit_trims_first(void)
{
    uint32_t a, b, c;

    /* process 1 over its budget with a referenced allocation; process 2
     * needs the room: process 1 is asked to trim, complies, and its
     * allocation is what makes room */
    setup(64 * KB, 0);
    a = new_alloc(0, 0x101, 64 * KB);
    b = new_alloc(0, 0x102, 32 * KB);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    g_assert_cmpint(mkres(0, b, NULL), ==, DDI_OK);     /* 96 > 64 */
    g_assert_cmpuint(w.trim_calls, ==, 1);
    w.trim_calls = 0;
    w.trim_dev = &w.dev[0];
    w.trim_evict = b;
    c = new_alloc(1, 0x201, 64 * KB);
    g_assert_cmpint(mkres(1, c, NULL), ==, DDI_OK);
    g_assert_cmpuint(w.trim_calls, ==, 1);
    g_assert_cmpuint(w.trim_bytes, ==, 32 * KB);
    g_assert_false(find(0, b)->resident);
    g_assert_true(find(0, a)->resident);
    g_assert_true(find(1, c)->resident);
}

static void test_foreign_handles(void)
{
    uint32_t mine, theirs, list[2];
    uint64_t f;

    setup(0, 0);
    mine = new_alloc(0, 0x101, 4 * KB);
    theirs = new_alloc(1, 0x201, 4 * KB);
    /* process 1's device cannot name process 2's allocation */
    g_assert_cmpint(mkres(0, theirs, NULL), ==, DDI_EHANDLE);
    g_assert_false(find(1, theirs)->resident);
    list[0] = mine;
    list[1] = theirs;
    g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[0], list, 2, &f),
                    ==, DDI_EHANDLE);
    g_assert_false(find(0, mine)->resident);    /* nothing changed */
    g_assert_cmpint(mkres(1, theirs, NULL), ==, DDI_OK);
    g_assert_cmpint(evict(0, theirs), ==, DDI_EHANDLE);
    g_assert_cmpuint(find(1, theirs)->refs, ==, 1);
    /* unknown and destroyed handles */
    g_assert_cmpint(mkres(0, 0x999, NULL), ==, DDI_EHANDLE);
    g_assert_cmpint(mkres(0, 0, NULL), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_res_alloc_remove(&w.res, &w.proc[0], mine), ==,
                    DDI_OK);
    g_assert_cmpint(mkres(0, mine, NULL), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_res_alloc_remove(&w.res, &w.proc[0], mine), ==,
                    DDI_EHANDLE);
    /* nor may one process destroy another's */
    g_assert_cmpint(vidmm_res_alloc_remove(&w.res, &w.proc[0], theirs), ==,
                    DDI_EHANDLE);
    /* an unregistered device */
    {
        struct vidmm_res_device stray = { 0 };

        g_assert_cmpint(vidmm_res_make_resident(&w.res, &stray, list, 1, &f),
                        ==, DDI_EHANDLE);
    }
}

static void test_list_full_and_destroy(void)
{
    uint32_t h[9];
    uint64_t f;

    setup(0, 0);
    for (unsigned i = 0; i < 9; i++) {
        h[i] = new_alloc(0, 0x101 + i, 4 * KB);
    }
    g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[0], h, 8, &f), ==,
                    DDI_OK);
    /* the list has 8 entries: a ninth is refused, nothing paged in */
    g_assert_cmpint(mkres(0, h[8], NULL), ==, DDI_ENOMEM);
    g_assert_false(find(0, h[8])->resident);
    /* a known one still takes another reference */
    g_assert_cmpint(mkres(0, h[0], NULL), ==, DDI_OK);
    /* destroying a referenced allocation takes it off the list and out */
    g_assert_cmpint(vidmm_res_alloc_remove(&w.res, &w.proc[0], h[0]), ==,
                    DDI_OK);
    g_assert_cmpuint(w.dev[0].count, ==, 7);
    g_assert_cmpuint(w.res.used, ==, 28 * KB);
    g_assert_cmpint(mkres(0, h[8], NULL), ==, DDI_OK);
    /* a destroyed device drops its references */
    g_assert_cmpint(vidmm_res_device_remove(&w.res, &w.dev[0]), ==, DDI_OK);
    g_assert_cmpuint(find(0, h[1])->refs, ==, 0);
    g_assert_cmpint(vidmm_res_device_remove(&w.res, &w.dev[0]), ==,
                    DDI_EHANDLE);
}

static void test_pager_failure_rolls_back(void)
{
    uint32_t list[2];
    uint64_t f;

    setup(0, 0);
    list[0] = new_alloc(0, 0x101, 8 * KB);
    list[1] = new_alloc(0, 0x102, 8 * KB);
    w.pg.fail_page_in_after = 2;    /* the second page-in finds no room */
    g_assert_cmpint(vidmm_res_make_resident(&w.res, &w.dev[0], list, 2, &f),
                    ==, DDI_ENOMEM);
    g_assert_false(find(0, list[0])->resident);
    g_assert_false(find(0, list[1])->resident);
    g_assert_cmpuint(find(0, list[0])->refs, ==, 0);
    g_assert_cmpuint(w.res.used, ==, 0);
    g_assert_cmpuint(w.proc[0].resident_bytes, ==, 0);
    g_assert_cmpuint(vidmm_segment_used_bytes(&w.pg.vram), ==, 0);
}

static void test_process_exit_frees_everything(void)
{
    uint32_t a, b, c;

    setup(0, 0);
    a = new_alloc(0, 0x101, 32 * KB);
    b = new_alloc(0, 0x102, 32 * KB);
    c = new_alloc(1, 0x201, 32 * KB);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    g_assert_cmpint(mkres(0, b, NULL), ==, DDI_OK);
    g_assert_cmpint(mkres(1, c, NULL), ==, DDI_OK);
    g_assert_cmpint(vidmm_res_process_remove(&w.res, &w.proc[0]), ==,
                    DDI_OK);
    /* nothing of process 1 is left: no VRAM, no list, no handles */
    g_assert_cmpuint(w.res.used, ==, 32 * KB);
    g_assert_cmpuint(vidmm_segment_used_bytes(&w.pg.vram), ==, 32 * KB);
    g_assert_null(find(0, a));
    g_assert_false(w.dev[0].live);
    g_assert_cmpint(vidmm_res_evict(&w.res, &w.dev[0], &a, 1, NULL), ==,
                    DDI_EHANDLE);           /* the device is gone */
    g_assert_cmpint(vidmm_res_process_remove(&w.res, &w.proc[0]), ==,
                    DDI_EHANDLE);
    /* the other process is untouched */
    g_assert_true(find(1, c)->resident);
    g_assert_cmpuint(find(1, c)->refs, ==, 1);
    g_assert_cmpint(vidmm_res_process_remove(&w.res, &w.proc[1]), ==,
                    DDI_OK);
    g_assert_cmpuint(w.res.used, ==, 0);
    g_assert_cmpuint(vidmm_segment_used_bytes(&w.pg.vram), ==, 0);
}

/* ---- GPU VA ---- */

static void test_va_stable_across_moves(void)
{
    uint32_t a, filler, big;
    struct mm_alloc *m;
    uint64_t va, frame;

    setup(0, 0);
    filler = new_alloc(0, 0x100, 32 * KB);
    a = new_alloc(0, 0x101, 24 * KB);
    m = find(0, a)->mm;
    va = m->va;
    g_assert_cmphex(va, >=, VA_BASE);
    g_assert_cmpuint(vidmm_gpuva_range_bytes(&w.space[0], va), ==, 24 * KB);

    /* in: VRAM at 0 */
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    g_assert_cmpuint(w.pg.nupd, ==, 1);
    g_assert_cmpuint(w.pg.upd[0].as, ==, 10);
    g_assert_cmpuint(w.pg.upd[0].target, ==, DDI_PTE_VRAM);
    g_assert_cmphex(w.pg.upd[0].va, ==, va);
    g_assert_cmpuint(w.pg.upd[0].pages, ==, 6);
    g_assert_cmphex(w.pg.upd[0].addr, ==, 0);
    g_assert_true(w.pg.upd[0].writable);

    /* out to system memory through the aperture, pushed by process 2 */
    big = new_alloc(1, 0x201, VRAM_BYTES);
    g_assert_cmpint(evict(0, a), ==, DDI_OK);
    g_assert_cmpint(mkres(1, big, NULL), ==, DDI_OK);
    g_assert_cmpuint(w.pg.nupd, ==, 3);
    g_assert_cmpuint(w.pg.upd[1].target, ==, DDI_PTE_APERTURE);
    g_assert_cmphex(w.pg.upd[1].va, ==, va);
    g_assert_cmphex(w.pg.upd[1].addr, ==, m->sys);
    g_assert_true(vidmm_gpuva_update_covers(&w.pg.upd[1], va + 5 * 4096,
                                            &frame));
    g_assert_cmphex(frame, ==, m->sys + 5 * 4096);
    g_assert_false(vidmm_gpuva_update_covers(&w.pg.upd[1], va + 6 * 4096,
                                             &frame));
    g_assert_cmphex(m->va, ==, va);

    /* back in, at another VRAM address (the filler took 0): same VA */
    g_assert_cmpint(evict(1, big), ==, DDI_OK);
    g_assert_cmpint(vidmm_res_alloc_remove(&w.res, &w.proc[1], big), ==,
                    DDI_OK);
    g_assert_cmpint(mkres(0, filler, NULL), ==, DDI_OK);
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    g_assert_cmpuint(w.pg.nupd, ==, 6);
    g_assert_cmphex(w.pg.upd[5].va, ==, va);
    g_assert_cmpuint(w.pg.upd[5].target, ==, DDI_PTE_VRAM);
    g_assert_cmphex(w.pg.upd[5].addr, ==, 32 * KB);
    g_assert_cmpuint(w.pg.upd[5].pages, ==, 6);
    g_assert_cmphex(m->va, ==, va);
}

static void test_va_evicted_by_pressure_keeps_va(void)
{
    uint32_t a, big;
    struct mm_alloc *m;
    uint64_t va;

    setup(0, 0);
    a = new_alloc(0, 0x101, 64 * KB);
    big = new_alloc(1, 0x201, 128 * KB);
    m = find(0, a)->mm;
    va = m->va;
    g_assert_cmpint(mkres(0, a, NULL), ==, DDI_OK);
    g_assert_cmpint(evict(0, a), ==, DDI_OK);
    /* another process's request pushes it out: its PTEs follow it to
     * system memory, its VA does not change */
    g_assert_cmpint(mkres(1, big, NULL), ==, DDI_OK);
    g_assert_false(find(0, a)->resident);
    g_assert_cmphex(m->va, ==, va);
    g_assert_cmpuint(w.pg.upd[1].as, ==, 10);
    g_assert_cmphex(w.pg.upd[1].va, ==, va);
    g_assert_cmpuint(w.pg.upd[1].target, ==, DDI_PTE_APERTURE);
    g_assert_cmpuint(w.pg.upd[1].pages, ==, 16);
    /* big's update is in the other space */
    g_assert_cmpuint(w.pg.upd[2].as, ==, 11);
}

static void test_gpuva_errors(void)
{
    struct vidmm_gpuva_space s;
    struct vidmm_block blocks[2];
    struct vidmm_gpuva_frame f = { DDI_PTE_VRAM, 0x10000, false };
    struct ddi_pte_update u;
    uint64_t va, va2, va3;

    g_assert_cmpint(vidmm_gpuva_init(&s, 1, 1, 0, VA_SIZE, blocks, 2), ==,
                    DDI_EINVAL);            /* VA 0 is never handed out */
    g_assert_cmpint(vidmm_gpuva_init(&s, 1, 1, 0x1800, VA_SIZE, blocks, 2),
                    ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_gpuva_init(&s, 1, 1, 0x1000, 0x10000, blocks, 2),
                    ==, DDI_OK);
    g_assert_cmpint(vidmm_gpuva_map(&s, 0, 0, &va), ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_gpuva_map(&s, 1, 3, &va), ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_gpuva_map(&s, 1, 512, &va), ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_gpuva_map(&s, 100, 0, &va), ==, DDI_OK);
    g_assert_cmphex(va, ==, 0x1000);
    g_assert_cmpuint(vidmm_gpuva_range_bytes(&s, va), ==, 4096);
    g_assert_cmpint(vidmm_gpuva_map(&s, 0x2000, 0x4000, &va2), ==, DDI_OK);
    g_assert_cmphex(va2, ==, 0x4000);
    g_assert_cmpint(vidmm_gpuva_map(&s, 0x1000, 0, &va3), ==, DDI_ENOMEM);
    g_assert_cmpint(vidmm_gpuva_free(&s, va + 0x1000), ==, DDI_EHANDLE);

    /* remap: bounds, frames, partial updates */
    g_assert_cmpint(vidmm_gpuva_remap(&s, 0x5000, 0, 0, &f, &u), ==,
                    DDI_EHANDLE);           /* not the start of a range */
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 2, 0, &f, &u), ==,
                    DDI_EBOUNDS);
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 1, 2, &f, &u), ==,
                    DDI_EBOUNDS);
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 1, 1, &f, &u), ==, DDI_OK);
    g_assert_cmphex(u.va, ==, va2 + 0x1000);
    g_assert_cmphex(u.addr, ==, 0x11000);
    g_assert_cmpuint(u.pages, ==, 1);
    g_assert_false(u.writable);
    f.addr = 0x10800;
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 0, 0, &f, &u), ==,
                    DDI_EINVAL);
    f.target = 7;
    f.addr = 0x10000;
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 0, 0, &f, &u), ==,
                    DDI_EINVAL);
    f.target = DDI_PTE_INVALID;
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 0, 0, &f, &u), ==,
                    DDI_EINVAL);            /* INVALID with an address */
    f.addr = 0;
    f.writable = true;
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 0, 0, &f, &u), ==, DDI_OK);
    g_assert_cmpuint(u.target, ==, DDI_PTE_INVALID);
    g_assert_cmpuint(u.pages, ==, 2);
    g_assert_false(u.writable);
    g_assert_cmpint(vidmm_gpuva_free(&s, va2), ==, DDI_OK);
    g_assert_cmpint(vidmm_gpuva_remap(&s, va2, 0, 0, &f, &u), ==,
                    DDI_EHANDLE);
}

/* Evicted but still used by queued work (the pager's in_use): never paged
 * out; a request that needs its memory is DDI_EBUSY (not ENOMEM) and
 * changes nothing; once the work retired it fits. */
static void test_in_use_not_paged_out(void)
{
    uint32_t p0[4], q;
    uint64_t f;
    unsigned nupd;

    setup(0, 0);
    for (unsigned i = 0; i < 4; i++) {
        p0[i] = new_alloc(0, 0x101 + i, 32 * KB);
        g_assert_cmpint(mkres(0, p0[i], NULL), ==, DDI_OK);
    }
    q = new_alloc(1, 0x201, 32 * KB);
    g_assert_cmpint(evict(0, p0[2]), ==, DDI_OK);
    w.pg.in_use = find(0, p0[2]);
    nupd = w.pg.nupd;
    g_assert_cmpint(mkres(1, q, &f), ==, DDI_EBUSY);
    g_assert_cmpuint(w.pg.nupd, ==, nupd);
    g_assert_true(find(0, p0[2])->resident);
    g_assert_false(find(1, q)->resident);
    g_assert_cmpuint(w.dev[1].count, ==, 0);
    g_assert_cmpuint(w.res.stats.busy, ==, 1);
    g_assert_cmpuint(w.res.stats.enomem, ==, 0);
    w.pg.in_use = NULL;
    g_assert_cmpint(mkres(1, q, &f), ==, DDI_OK);
    g_assert_false(find(0, p0[2])->resident);
    g_assert_true(find(1, q)->resident);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidmm-residency/refcounts", test_refcounts);
    g_test_add_func("/vidmm-residency/evict-errors", test_evict_errors);
    g_test_add_func("/vidmm-residency/paging-fence", test_paging_fence);
    g_test_add_func("/vidmm-residency/budget-trim", test_budget_trim);
    g_test_add_func("/vidmm-residency/budget-soft", test_budget_soft);
    g_test_add_func("/vidmm-residency/trim-cannot-make-resident",
                    test_trim_cannot_make_resident);
    g_test_add_func("/vidmm-residency/out-of-memory-clean",
                    test_out_of_memory_clean);
    g_test_add_func("/vidmm-residency/overcommit-order",
                    test_overcommit_order);
    g_test_add_func("/vidmm-residency/overcommit-trims-first",
                    test_overcommit_trims_first);
    g_test_add_func("/vidmm-residency/foreign-handles", test_foreign_handles);
    g_test_add_func("/vidmm-residency/in-use-not-paged-out",
                    test_in_use_not_paged_out);
    g_test_add_func("/vidmm-residency/list-full-and-destroy",
                    test_list_full_and_destroy);
    g_test_add_func("/vidmm-residency/pager-failure-rolls-back",
                    test_pager_failure_rolls_back);
    g_test_add_func("/vidmm-residency/process-exit-frees-everything",
                    test_process_exit_frees_everything);
    g_test_add_func("/vidmm-gpuva/va-stable-across-moves",
                    test_va_stable_across_moves);
    g_test_add_func("/vidmm-gpuva/evicted-by-pressure-keeps-va",
                    test_va_evicted_by_pressure_keeps_va);
    g_test_add_func("/vidmm-gpuva/errors", test_gpuva_errors);
    return g_test_run();
}
