/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm's packet-based mode on a fake DDI that records the paging
 * operations it is asked to build: placement, eviction choice, paging-op
 * generation, the patched-once rule, split points, out of memory.
 *
 * One program past a thousand lines: the packet-based mode's rules, each
 * a case over one fake DDI and one fixture (setup, mk, use); residency
 * lists, segments, tiles and paging buffers have programs of their own
 * (test-vidmm-*.c).
 */
#include <glib.h>
#include <string.h>

#include "vidmm/vidmm.h"

#define KIB 1024ull
#define VRAM_BASE 0x100000ull
#define AP_BASE 0x80000000ull

struct fake {
    struct ddi_paging_op ops[DDI_MAX_PAGING_OPS];
    unsigned nops, builds;
    int fail;                       /* build_paging_buffer's answer */
    uint64_t next_page;
    unsigned pages_out;             /* system pages not freed */
};

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
    return a < b + bn && b < a + an;
}

/* The DDI's ordering rules (ddi.h, as kmd/copro_paging checks them): a
 * MAP takes effect at build time, so no earlier operation of the call
 * may use its range; an UNMAP runs in buffer order, so no later transfer
 * or fill may go through its range. */
static void check_order(const struct ddi_paging_op *ops, unsigned nops)
{
    for (unsigned i = 0; i < nops; i++) {
        for (unsigned j = 0; j < i; j++) {
            const struct ddi_paging_op *a = &ops[j], *b = &ops[i];
            bool a_src = a->kind == DDI_PAGING_TRANSFER &&
                         overlaps(a->src, a->size, b->dst, b->size);

            if (b->kind == DDI_PAGING_MAP_APERTURE) {
                g_assert_false(a_src ||
                               overlaps(a->dst, a->size, b->dst, b->size));
            }
            if (a->kind == DDI_PAGING_UNMAP_APERTURE &&
                (b->kind == DDI_PAGING_TRANSFER ||
                 b->kind == DDI_PAGING_FILL)) {
                g_assert_false(overlaps(a->dst, a->size, b->dst, b->size));
                g_assert_false(b->kind == DDI_PAGING_TRANSFER &&
                               overlaps(a->dst, a->size, b->src, b->size));
            }
        }
    }
}

static int fake_build(void *drv, const struct ddi_paging_op *ops,
                      unsigned nops, struct ddi_dmabuf *out)
{
    struct fake *f = drv;

    if (f->fail) {
        return f->fail;
    }
    check_order(ops, nops);
    memcpy(f->ops, ops, nops * sizeof(*ops));
    f->nops = nops;
    f->builds++;
    out->len_bytes = 4;
    return DDI_OK;
}

static int fake_alloc_pages(void *os, uint64_t *pages, unsigned n)
{
    struct fake *f = os;

    for (unsigned i = 0; i < n; i++) {
        pages[i] = (f->next_page += 4096);
    }
    f->pages_out += n;
    return DDI_OK;
}

static void fake_free_pages(void *os, const uint64_t *pages, unsigned n)
{
    struct fake *f = os;

    (void)pages;
    f->pages_out -= n;
}

static const struct ddi_ops fake_ops = { .build_paging_buffer = fake_build };

struct fixture {
    struct fake f;
    struct ddi_device dev;
    struct vidmm *vm;
    uint64_t storage[1 << 14];
    uint32_t pbuf[64];
    struct ddi_dmabuf paging;
};

static void setup(struct fixture *x, uint64_t vram, uint64_t ap,
                  bool own_only)
{
    struct vidmm_config cfg = {
        .vram_base = VRAM_BASE, .vram_size = vram,
        .aperture_base = AP_BASE, .aperture_size = ap,
        .max_allocs = 32, .max_blocks = 32, .max_pages = 2048,
        .copy_engine = 1, .evict_own_only = own_only,
    };
    struct vidmm_env env = {
        .os = &x->f, .alloc_sys_pages = fake_alloc_pages,
        .free_sys_pages = fake_free_pages,
    };

    memset(x, 0, sizeof(*x));
    x->dev = (struct ddi_device){ &fake_ops, &x->f };
    g_assert_cmpuint(vidmm_storage_size(&cfg), <=, sizeof(x->storage));
    x->vm = vidmm_create(x->storage, sizeof(x->storage), &cfg, &env, &x->dev);
    g_assert_nonnull(x->vm);
    x->paging = (struct ddi_dmabuf){ .dw = x->pbuf, .gpu_addr = 0x1000,
                                     .cap_bytes = sizeof(x->pbuf) };
}

static uint32_t mk(struct fixture *x, uint64_t size, uint32_t owner,
                   uint32_t segs)
{
    struct vidmm_alloc_info info = { .size = size, .owner = owner,
                                     .segments = segs };
    uint32_t h = 0;

    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &h), ==, DDI_OK);
    return h;
}

static struct vidmm_alloc_state st(struct fixture *x, uint32_t h)
{
    struct vidmm_alloc_state s;

    g_assert_cmpint(vidmm_alloc_state(x->vm, h, &s), ==, DDI_OK);
    return s;
}

/* Makes one allocation resident for process, retires it at once. */
static int use(struct fixture *x, uint32_t process, uint32_t h,
               struct vidmm_residency *r, bool keep)
{
    struct ddi_alloc_ref ref = { .handle = h };
    struct ddi_alloc_desc d = { 0 };
    int rc;

    *r = (struct vidmm_residency){ .paging = &x->paging };
    x->f.nops = 0;
    rc = vidmm_make_resident(x->vm, process, &ref, 1, &d, false, r);
    if (rc == DDI_OK) {
        if (r->paging_built) {
            vidmm_paging_done(x->vm, r->paging_ticket);
        }
        if (!keep) {
            vidmm_release(x->vm, &ref, 1, 0, 1);
        }
    }
    return rc;
}

static void test_placement(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    uint32_t a, b, c;
    struct vidmm_residency r;

    setup(x, 64 * KIB, 64 * KIB, false);
    a = mk(x, 16 * KIB, 1, 0);
    b = mk(x, 40 * KIB, 1, 0);
    c = mk(x, 16 * KIB, 1, 0);        /* does not fit: system memory */
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, a).gpu_addr, ==, VRAM_BASE);
    g_assert_cmpuint(st(x, b).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpuint(st(x, c).npages, ==, 4);
    /* already resident: no paging buffer */
    g_assert_cmpint(use(x, 1, a, &r, false), ==, DDI_OK);
    g_assert_false(r.paging_built);
    g_assert_cmpuint(r.wait_ticket, ==, 0);
    g_assert_cmpuint(r.paging_bytes, ==, 0);
    /* bad handles and other processes' handles */
    g_assert_cmpint(use(x, 2, a, &r, false), ==, DDI_EHANDLE);
    g_assert_cmpint(use(x, 1, 0x12345, &r, false), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, a), ==, DDI_OK);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, a), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, b), ==, DDI_OK);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, c), ==, DDI_OK);
    g_assert_cmpuint(vidmm_vram_used(x->vm), ==, 0);
    g_assert_cmpuint(x->f.pages_out, ==, 0);
    g_free(x);
}

/* place_on_use (a pageable DMA buffer, kernel/kdma.c): created in its
 * backing pages although VRAM has room, placed in VRAM by the first list
 * that uses it (a paging buffer copies its contents in); in the
 * aperture only, mapped there by that list. */
static void test_place_on_use(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct vidmm_alloc_info info = { .size = 8 * KIB, .owner = 1,
                                     .segments = VIDMM_SEG_VRAM,
                                     .place_on_use = true };
    uint32_t a = 0, b = 0;
    struct vidmm_residency r;

    setup(x, 64 * KIB, 64 * KIB, false);
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &a), ==, DDI_OK);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpuint(vidmm_vram_used(x->vm), ==, 0);
    g_assert_cmpint(use(x, 1, a, &r, false), ==, DDI_OK);
    g_assert_true(r.paging_built);
    g_assert_cmpuint(r.paging_bytes, ==, 8 * KIB);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_VRAM);
    info.segments = VIDMM_SEG_APERTURE;
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &b), ==, DDI_OK);
    g_assert_cmpuint(st(x, b).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpint(use(x, 1, b, &r, false), ==, DDI_OK);
    g_assert_cmpuint(st(x, b).where, ==, VIDMM_IN_APERTURE);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, a), ==, DDI_OK);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, b), ==, DDI_OK);
    g_assert_cmpuint(vidmm_vram_used(x->vm), ==, 0);
    g_free(x);
}

/* A locked allocation in system memory (the CPU holds a pointer to its
 * backing pages) is used by the GPU where it is: mapped in the aperture,
 * never copied into VRAM, even when VRAM has room; unlocked, it moves
 * again. */
static void test_locked_stays(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    const uint32_t both = VIDMM_SEG_VRAM | VIDMM_SEG_APERTURE;
    uint32_t a, c;
    struct vidmm_residency r;
    enum vidmm_where where;
    uint64_t at = 1;

    setup(x, 32 * KIB, 64 * KIB, false);
    a = mk(x, 32 * KIB, 1, both);
    c = mk(x, 16 * KIB, 1, both);       /* no room: system memory */
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpint(vidmm_lock(x->vm, c, &where, &at), ==, DDI_OK);
    g_assert_cmpuint(where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpuint(at, ==, 0);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, a), ==, DDI_OK);
    /* VRAM is free now, but c is locked: one MAP of its pages, no copy */
    g_assert_cmpint(use(x, 1, c, &r, false), ==, DDI_OK);
    g_assert_true(r.paging_built);
    g_assert_cmpuint(x->f.nops, ==, 1);
    g_assert_cmpuint(x->f.ops[0].kind, ==, DDI_PAGING_MAP_APERTURE);
    g_assert_true(x->f.ops[0].sys_pages == st(x, c).pages);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_APERTURE);
    g_assert_cmpuint(x->f.builds, ==, 1);
    /* still locked: used again in place, nothing to build */
    g_assert_cmpint(use(x, 1, c, &r, false), ==, DDI_OK);
    g_assert_false(r.paging_built);
    g_assert_cmpint(vidmm_unlock(x->vm, c), ==, DDI_OK);
    /* unlocked: it may come into VRAM */
    g_assert_cmpint(use(x, 1, c, &r, false), ==, DDI_OK);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_VRAM);
    /* VRAM only and locked in system memory: it cannot be used */
    {
        uint32_t v = mk(x, 32 * KIB, 1, 0);

        g_assert_cmpuint(st(x, v).where, ==, VIDMM_IN_SYSMEM);
        g_assert_cmpint(vidmm_lock(x->vm, v, &where, &at), ==, DDI_OK);
        g_assert_cmpint(use(x, 1, v, &r, false), ==, DDI_ENOMEM);
        g_assert_cmpuint(st(x, v).where, ==, VIDMM_IN_SYSMEM);
    }
    g_free(x);
}

/*
 * The move rule for promotions (issue 15, item 13): an allocation that
 * lives in the aperture because VRAM was full, and that a buffer on the
 * GPU still uses there (busy), is not promoted into VRAM when VRAM comes
 * free: the promotion would unmap the range under the running buffer (a
 * GART fault) and copy it while it is being written. Once idle, it moves.
 * The patched-once put-back obeys the same rule: DDI_EBUSY, not a move.
 */
static void test_busy_not_promoted(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    const uint32_t both = VIDMM_SEG_VRAM | VIDMM_SEG_APERTURE;
    struct ddi_alloc_ref ref;
    struct ddi_alloc_desc d = { 0 }, d2 = { 0 };
    struct vidmm_residency r;
    uint32_t a, c;
    uint64_t ap_at;

    setup(x, 32 * KIB, 64 * KIB, false);
    a = mk(x, 32 * KIB, 1, 0);          /* fills VRAM */
    c = mk(x, 16 * KIB, 1, both);       /* system memory */
    /* a buffer of process 1 using a: c must go to the aperture */
    g_assert_cmpint(use(x, 1, a, &r, true), ==, DDI_OK);
    ref.handle = c;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);
    vidmm_paging_done(x->vm, r.paging_ticket);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_APERTURE);
    ap_at = d.gpu_addr;
    /* a's buffer retires, a goes: VRAM is free while c's buffer runs */
    {
        struct ddi_alloc_ref ra = { .handle = a };

        vidmm_release(x->vm, &ra, 1, 0, 1);
    }
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, a), ==, DDI_OK);
    /* the next buffer using c: c stays in the aperture, nothing moves */
    r = (struct vidmm_residency){ .paging = &x->paging };
    x->f.nops = 0;
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d2, false, &r),
                    ==, DDI_OK);
    g_assert_false(r.paging_built);
    g_assert_cmpuint(d2.gpu_addr, ==, ap_at);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_APERTURE);
    g_assert_cmpuint(st(x, c).gpu_addr, ==, ap_at);
    g_assert_cmpuint(st(x, c).busy, ==, 2);
    /* a patched buffer asking for c elsewhere while it is busy: not now */
    {
        struct ddi_alloc_desc far = { .gpu_addr = VRAM_BASE };

        r = (struct vidmm_residency){ .paging = &x->paging };
        g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &far, true,
                                            &r), ==, DDI_EBUSY);
        g_assert_cmpuint(st(x, c).gpu_addr, ==, ap_at);
    }
    /* both buffers retire: idle, the next use promotes it */
    vidmm_release(x->vm, &ref, 1, 0, 2);
    vidmm_release(x->vm, &ref, 1, 0, 3);
    g_assert_cmpint(use(x, 1, c, &r, false), ==, DDI_OK);
    g_assert_true(r.paging_built);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_VRAM);
    g_free(x);
}

/*
 * VRAM being vacated is not given to a new allocation (issue 15, the
 * lifetimes scenario's lost writes). An eviction frees its VRAM in the
 * books at once, but the GPU copies from there until its paging buffer
 * retires; an allocation created there meanwhile was zeroed by the CPU
 * (and written by its first buffer, which waits for no paging) before
 * the copy, and the evicted allocation read back as zeros. Now it starts
 * in system memory (its first list places it after the copy); a primary,
 * VRAM or nothing, is refused for now (DDI_EBUSY). Once the paging
 * buffer retired, the range is given out again.
 */
static void test_vacating_not_given(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct vidmm_alloc_info prim = { .size = 16 * KIB, .owner = 1,
                                     .primary = true };
    struct ddi_alloc_ref ref;
    struct ddi_alloc_desc d = { 0 };
    struct vidmm_residency r;
    uint32_t a, b, c, e, p = 0;

    setup(x, 64 * KIB, 128 * KIB, false);
    a = mk(x, 32 * KIB, 1, 0);
    b = mk(x, 32 * KIB, 1, 0);
    g_assert_cmpuint(st(x, b).gpu_addr, ==, VRAM_BASE + 32 * KIB);
    g_assert_cmpint(use(x, 1, a, &r, false), ==, DDI_OK);
    g_assert_cmpint(use(x, 1, b, &r, false), ==, DDI_OK);
    /* 48 KiB for c: a and b are evicted, c takes [0, 48K); the copy-out
     * of b's [32K, 64K) is in flight */
    c = mk(x, 48 * KIB, 1, 0);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_SYSMEM);
    ref.handle = c;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);
    g_assert_true(r.paging_built);
    g_assert_cmpuint(st(x, b).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpuint(d.gpu_addr, ==, VRAM_BASE);
    /* [48K, 64K) is free but still being copied from */
    e = mk(x, 16 * KIB, 1, 0);
    g_assert_cmpuint(st(x, e).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpint(vidmm_alloc_create(x->vm, &prim, &p), ==, DDI_EBUSY);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, e), ==, DDI_OK);
    /* the copy is done: the range may be given out */
    vidmm_paging_done(x->vm, r.paging_ticket);
    e = mk(x, 16 * KIB, 1, 0);
    g_assert_cmpuint(st(x, e).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, e).gpu_addr, ==, VRAM_BASE + 48 * KIB);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, e), ==, DDI_OK);
    g_assert_cmpint(vidmm_alloc_create(x->vm, &prim, &p), ==, DDI_OK);
    g_assert_cmpuint(st(x, p).where, ==, VIDMM_IN_VRAM);
    g_free(x);
}

/* A paging buffer lost in a reset (issue 15, item 16): the allocations
 * it moved have unknown contents; no buffer may use them (DDI_ELOST),
 * the others are not concerned, and the lost ones can be destroyed. */
static void test_paging_lost(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct ddi_alloc_ref ref;
    struct ddi_alloc_desc d = { 0 };
    struct vidmm_residency r;
    uint32_t a, b, c;

    setup(x, 32 * KIB, 64 * KIB, false);
    a = mk(x, 32 * KIB, 1, 0);
    b = mk(x, 16 * KIB, 1, 0);          /* system memory */
    c = mk(x, 16 * KIB, 2, VIDMM_SEG_APERTURE);
    ref.handle = b;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);        /* evicts a, restores b */
    g_assert_true(r.paging_built);
    vidmm_release(x->vm, &ref, 1, 0, 0);
    vidmm_paging_lost(x->vm, r.paging_ticket);
    g_assert_cmpint(use(x, 1, b, &r, false), ==, DDI_ELOST);
    g_assert_cmpint(use(x, 1, a, &r, false), ==, DDI_ELOST);
    g_assert_cmpint(use(x, 2, c, &r, false), ==, DDI_OK);  /* untouched */
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, a), ==, DDI_OK);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, b), ==, DDI_OK);
    g_free(x);
}

static void test_paging_ops(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    uint32_t a, c;
    struct vidmm_residency r;
    struct vidmm_alloc_state sa, sc;

    setup(x, 32 * KIB, 64 * KIB, false);
    a = mk(x, 32 * KIB, 1, 0);
    c = mk(x, 32 * KIB, 1, 0);
    sa = st(x, a);
    g_assert_cmpint(use(x, 1, c, &r, true), ==, DDI_OK);
    g_assert_true(r.paging_built);
    g_assert_cmpuint(r.wait_ticket, ==, r.paging_ticket);
    /* what the scheduler weighs fighting by: a out, c in */
    g_assert_cmpuint(r.paging_bytes, ==, 64 * KIB);
    /* evict a: map its pages, copy out, unmap; bring c the same way */
    g_assert_cmpuint(x->f.nops, ==, 6);
    g_assert_cmpuint(x->f.ops[0].kind, ==, DDI_PAGING_MAP_APERTURE);
    g_assert_true(x->f.ops[0].sys_pages == sa.pages);
    g_assert_cmpuint(x->f.ops[1].kind, ==, DDI_PAGING_TRANSFER);
    g_assert_cmpuint(x->f.ops[1].src, ==, VRAM_BASE);
    g_assert_cmpuint(x->f.ops[1].dst, ==, x->f.ops[0].dst);
    g_assert_cmpuint(x->f.ops[1].size, ==, 32 * KIB);
    g_assert_cmpuint(x->f.ops[2].kind, ==, DDI_PAGING_UNMAP_APERTURE);
    g_assert_cmpuint(x->f.ops[2].dst, ==, x->f.ops[0].dst);
    g_assert_cmpuint(x->f.ops[3].kind, ==, DDI_PAGING_MAP_APERTURE);
    g_assert_true(x->f.ops[3].sys_pages == st(x, c).pages);
    g_assert_cmpuint(x->f.ops[4].kind, ==, DDI_PAGING_TRANSFER);
    g_assert_cmpuint(x->f.ops[4].src, ==, x->f.ops[3].dst);
    g_assert_cmpuint(x->f.ops[4].dst, ==, VRAM_BASE);
    g_assert_cmpuint(x->f.ops[5].kind, ==, DDI_PAGING_UNMAP_APERTURE);
    /* the two temporary ranges differ: both are taken until the buffer
     * retired (the GPU unmaps in buffer order) */
    g_assert_cmpuint(x->f.ops[3].dst, !=, x->f.ops[0].dst);
    sa = st(x, a);
    sc = st(x, c);
    g_assert_cmpuint(sa.where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpuint(sc.where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(sc.busy, ==, 1);
    /* c busy: a (VRAM only) cannot come back: busy is never evicted */
    g_assert_cmpint(use(x, 1, a, &r, false), ==, DDI_EBUSY);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_VRAM);
    g_free(x);
}

static void test_oom_and_busy(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    uint32_t a, c, big;
    struct vidmm_residency r;
    struct vidmm_stats before;

    setup(x, 32 * KIB, 64 * KIB, false);
    a = mk(x, 32 * KIB, 1, VIDMM_SEG_VRAM);
    c = mk(x, 32 * KIB, 1, VIDMM_SEG_VRAM);
    big = mk(x, 64 * KIB, 1, VIDMM_SEG_VRAM);
    /* bigger than VRAM: ENOMEM, nothing changed */
    before = *vidmm_stats(x->vm);
    g_assert_cmpint(use(x, 1, big, &r, false), ==, DDI_ENOMEM);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(vidmm_stats(x->vm)->evictions, ==, before.evictions);
    g_assert_cmpuint(x->f.builds, ==, 0);
    /* a busy: c cannot evict it -> EBUSY (retry once the GPU is done) */
    g_assert_cmpint(use(x, 1, a, &r, true), ==, DDI_OK);
    g_assert_cmpint(use(x, 1, c, &r, false), ==, DDI_EBUSY);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_VRAM);
    /* released: now it can */
    {
        struct ddi_alloc_ref ref = { .handle = a };

        vidmm_release(x->vm, &ref, 1, 0, 7);
    }
    g_assert_cmpint(use(x, 1, c, &r, false), ==, DDI_OK);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_SYSMEM);
    /* pinned is never evicted */
    g_assert_cmpint(vidmm_pin(x->vm, c), ==, DDI_OK);
    g_assert_cmpint(use(x, 1, a, &r, false), ==, DDI_ENOMEM);
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, c), ==, DDI_EBUSY);
    g_assert_cmpint(vidmm_unpin(x->vm, c), ==, DDI_OK);
    g_assert_cmpint(use(x, 1, a, &r, false), ==, DDI_OK);
    /* the driver refusing the paging buffer changes nothing either */
    x->f.fail = DDI_ENOMEM;
    g_assert_cmpint(use(x, 1, c, &r, false), ==, DDI_ENOMEM);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, c).where, ==, VIDMM_IN_SYSMEM);
    x->f.fail = 0;
    g_free(x);
}

static void test_lru(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    uint32_t h[4], n;
    struct vidmm_residency r;

    setup(x, 48 * KIB, 128 * KIB, false);
    for (unsigned i = 0; i < 3; i++) {
        h[i] = mk(x, 16 * KIB, 1, 0);
    }
    n = mk(x, 16 * KIB, 1, 0);
    /* use order: 1, 0, 2: 1 is the least recently used */
    g_assert_cmpint(use(x, 1, h[1], &r, false), ==, DDI_OK);
    g_assert_cmpint(use(x, 1, h[0], &r, false), ==, DDI_OK);
    g_assert_cmpint(use(x, 1, h[2], &r, false), ==, DDI_OK);
    g_assert_cmpint(use(x, 1, n, &r, false), ==, DDI_OK);
    g_assert_cmpuint(st(x, h[1]).where, ==, VIDMM_IN_SYSMEM);
    g_assert_cmpuint(st(x, h[0]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, h[2]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, n).where, ==, VIDMM_IN_VRAM);
    g_free(x);
}

static void test_process_restriction(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    uint32_t other, mine, newer;
    struct vidmm_residency r;

    setup(x, 32 * KIB, 128 * KIB, true);
    other = mk(x, 16 * KIB, 2, 0);
    mine = mk(x, 16 * KIB, 1, 0);
    newer = mk(x, 16 * KIB, 1, 0);
    g_assert_cmpint(use(x, 1, mine, &r, false), ==, DDI_OK);
    /* process 2's allocation is older, but not process 1's to evict */
    g_assert_cmpint(use(x, 1, newer, &r, false), ==, DDI_OK);
    g_assert_cmpuint(st(x, other).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, mine).where, ==, VIDMM_IN_SYSMEM);
    /* with only process 2's in the way: out of memory for process 1 ... */
    g_assert_cmpint(use(x, 1, mine, &r, false), ==, DDI_OK);
    g_assert_cmpuint(st(x, newer).where, ==, VIDMM_IN_SYSMEM);
    {
        uint32_t big = mk(x, 32 * KIB, 1, 0);

        g_assert_cmpint(use(x, 1, big, &r, false), ==, DDI_ENOMEM);
        /* ... until process 2 offers it */
        g_assert_cmpint(vidmm_offer(x->vm, other, true), ==, DDI_OK);
        g_assert_cmpint(use(x, 1, big, &r, false), ==, DDI_OK);
        g_assert_cmpuint(st(x, other).where, ==, VIDMM_IN_SYSMEM);
    }
    g_free(x);
}

static void test_patched_once(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    uint32_t a, b;
    struct vidmm_residency r;
    struct ddi_alloc_ref ref;
    struct ddi_alloc_desc d = { 0 };
    uint64_t patched_at;

    setup(x, 32 * KIB, 128 * KIB, true);
    a = mk(x, 32 * KIB, 1, 0);
    b = mk(x, 32 * KIB, 2, 0);
    ref.handle = a;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);
    patched_at = d.gpu_addr;
    /* preempted: handed back unrun-to-completion, a not busy any more */
    vidmm_release(x->vm, &ref, 1, 0, 0);
    g_assert_cmpint(vidmm_offer(x->vm, a, true), ==, DDI_OK);
    g_assert_cmpint(use(x, 2, b, &r, false), ==, DDI_OK);  /* a evicted */
    g_assert_cmpint(vidmm_offer(x->vm, a, false), ==, DDI_OK);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_SYSMEM);
    /* back at the patched address, evicting b (another process's: the
     * patched-once rule ignores the restriction) */
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, true, &r),
                    ==, DDI_OK);
    g_assert_true(r.paging_built);
    g_assert_cmpuint(d.gpu_addr, ==, patched_at);
    g_assert_cmpuint(st(x, a).gpu_addr, ==, patched_at);
    g_assert_cmpuint(st(x, b).where, ==, VIDMM_IN_SYSMEM);
    g_free(x);
}

static void test_deferred_unmap(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    uint32_t a, c;
    struct vidmm_residency r;
    struct ddi_alloc_ref ref;
    struct ddi_alloc_desc d = { 0 };

    setup(x, 32 * KIB, 128 * KIB, false);
    a = mk(x, 32 * KIB, 1, 0);
    c = mk(x, 32 * KIB, 1, 0);
    ref.handle = c;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);
    g_assert_cmpuint(r.wait_ticket, ==, r.paging_ticket);
    vidmm_release(x->vm, &ref, 1, 0, 1);
    /* both temporary ranges stay taken until buffer 1 retired */
    g_assert_cmpuint(vidmm_aperture_used(x->vm), ==, 64 * KIB);
    /* the paging buffer has not retired: a (moved by it) is in flight */
    ref.handle = a;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_EBUSY);
    vidmm_paging_done(x->vm, 1);
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);
    g_assert_cmpuint(x->f.nops, ==, 6);
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_VRAM);
    vidmm_release(x->vm, &ref, 1, 0, 2);
    vidmm_paging_done(x->vm, 2);
    /* destroyed while mapped in the aperture: unmapped by the next
     * paging buffer, first, its range free once that one retired */
    {
        struct vidmm_alloc_info info = { .size = 8 * KIB, .owner = 1,
                                         .segments = VIDMM_SEG_APERTURE };
        uint32_t m;

        g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &m), ==, DDI_OK);
        ref.handle = m;
        g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false,
                                            &r), ==, DDI_OK);
        g_assert_cmpuint(st(x, m).where, ==, VIDMM_IN_APERTURE);
        g_assert_cmpuint(d.gpu_addr, >=, AP_BASE);
        vidmm_release(x->vm, &ref, 1, 0, 3);
        vidmm_paging_done(x->vm, r.paging_ticket);
        g_assert_cmpint(vidmm_alloc_destroy(x->vm, m), ==, DDI_OK);
        ref.handle = c;     /* in system memory: brought back */
        g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false,
                                            &r), ==, DDI_OK);
        g_assert_cmpuint(x->f.ops[0].kind, ==, DDI_PAGING_UNMAP_APERTURE);
        g_assert_cmpuint(x->f.ops[0].size, ==, 8 * KIB);
    }
    g_free(x);
}

/* The UNMAP ordering rule across buffers: a range paging buffer 1
 * unmaps is only unmapped when the GPU reaches that UNMAP, so a buffer
 * built before buffer 1 retired must not MAP it again (the GPU would
 * clear the new mapping). With the aperture full of such ranges the
 * answer is "not now", and the range is reused once buffer 1 retired. */
static void test_unmap_reuse_waits(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct vidmm_alloc_info info = { .size = 32 * KIB, .owner = 1,
                                     .segments = VIDMM_SEG_APERTURE };
    uint32_t a, c, m;
    struct vidmm_residency r;
    struct ddi_alloc_ref ref;
    struct ddi_alloc_desc d = { 0 };
    uint64_t t0, t1;

    setup(x, 32 * KIB, 64 * KIB, false);
    a = mk(x, 32 * KIB, 1, 0);
    c = mk(x, 32 * KIB, 1, 0);
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &m), ==, DDI_OK);
    /* buffer 1: evict a through t0, bring c through t1, both unmapped */
    ref.handle = c;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);
    g_assert_cmpuint(x->f.nops, ==, 6);
    t0 = x->f.ops[0].dst;
    t1 = x->f.ops[3].dst;
    g_assert_cmpuint(st(x, a).where, ==, VIDMM_IN_SYSMEM);
    vidmm_release(x->vm, &ref, 1, 0, 1);
    /* buffer 2 before buffer 1 retired: m needs a MAP, the aperture
     * holds only t0 and t1, both still mapped on the GPU */
    ref.handle = m;
    x->f.builds = 0;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_EBUSY);
    g_assert_cmpuint(x->f.builds, ==, 0);
    g_assert_cmpuint(st(x, m).where, ==, VIDMM_IN_SYSMEM);
    /* retired: the MAP takes one of the ranges */
    vidmm_paging_done(x->vm, 1);
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &ref, 1, &d, false, &r),
                    ==, DDI_OK);
    g_assert_cmpuint(x->f.nops, ==, 1);
    g_assert_cmpuint(x->f.ops[0].kind, ==, DDI_PAGING_MAP_APERTURE);
    g_assert_true(x->f.ops[0].dst == t0 || x->f.ops[0].dst == t1);
    g_free(x);
}

static void test_split(void)
{
    struct ddi_dmabuf *buf = g_new0(struct ddi_dmabuf, 1);
    uint64_t size[4] = { 10, 10, 10, 25 };
    struct vidmm_split_range out[8];
    unsigned n = 0;

    buf->len_bytes = 400;
    buf->nalloc = 4;
    /* target (slot 0, state slot 1), then packets using 1, 2, 1, 3 */
    buf->patch[0] = (struct ddi_patch_loc){ .slot = 0, .split_offset = 0,
                                            .slot_id = 1 };
    buf->patch[1] = (struct ddi_patch_loc){ .slot = 1, .split_offset = 100 };
    buf->patch[2] = (struct ddi_patch_loc){ .slot = 2, .split_offset = 200 };
    buf->patch[3] = (struct ddi_patch_loc){ .slot = 1, .split_offset = 250 };
    buf->patch[4] = (struct ddi_patch_loc){ .slot = 3, .split_offset = 300 };
    buf->npatch = 5;
    g_assert_cmpint(vidmm_split(buf, size, 100, out, 8, &n), ==, DDI_OK);
    g_assert_cmpuint(n, ==, 1);
    g_assert_cmpint(vidmm_split(buf, size, 35, out, 8, &n), ==, DDI_OK);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpuint(out[0].first, ==, 0);
    g_assert_cmpuint(out[0].end, ==, 300);
    g_assert_cmpuint(out[0].slots, ==, 0x7);
    /* the target stays with the second range (state slot) */
    g_assert_cmpuint(out[1].first, ==, 300);
    g_assert_cmpuint(out[1].end, ==, 400);
    g_assert_cmpuint(out[1].slots, ==, 0x9);
    g_assert_cmpuint(out[1].bytes, ==, 35);
    g_assert_cmpint(vidmm_split(buf, size, 20, out, 8, &n), ==, DDI_ENOMEM);
    g_assert_cmpint(vidmm_split(buf, size, 35, out, 1, &n), ==, DDI_EINVAL);
    buf->patch[4].slot = 9;
    g_assert_cmpint(vidmm_split(buf, size, 35, out, 8, &n), ==, DDI_EINVAL);
    g_free(buf);
}

/* A packet's patch locations go together (a COPY's source and
 * destination): a range ends before a packet that does not fit whole;
 * a state slot that the packet at the cut programs again is not carried
 * into the next range. */
static void test_split_packets(void)
{
    struct ddi_dmabuf *buf = g_new0(struct ddi_dmabuf, 1);
    uint64_t size[3] = { 10, 10, 10 };
    struct vidmm_split_range out[8];
    unsigned n = 0;

    buf->len_bytes = 300;
    buf->nalloc = 3;
    /* FILL 0; COPY 1 -> 2 */
    buf->patch[0] = (struct ddi_patch_loc){ .slot = 0, .split_offset = 0 };
    buf->patch[1] = (struct ddi_patch_loc){ .slot = 1, .split_offset = 100 };
    buf->patch[2] = (struct ddi_patch_loc){ .slot = 2, .split_offset = 100 };
    buf->npatch = 3;
    g_assert_cmpint(vidmm_split(buf, size, 25, out, 8, &n), ==, DDI_OK);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpuint(out[0].end, ==, 100);
    g_assert_cmpuint(out[0].slots, ==, 0x1);    /* not the COPY's source */
    g_assert_cmpuint(out[0].bytes, ==, 10);
    g_assert_cmpuint(out[1].first, ==, 100);
    g_assert_cmpuint(out[1].end, ==, 300);
    g_assert_cmpuint(out[1].slots, ==, 0x6);
    g_assert_cmpuint(out[1].bytes, ==, 20);

    /* SET_TARGET 1 <- 0; FILL 1; SET_TARGET 1 <- 2: cut at the second
     * SET_TARGET, which replaces the binding of 0 */
    buf->patch[0].slot_id = 1;
    buf->patch[2] = (struct ddi_patch_loc){ .slot = 2, .split_offset = 200,
                                            .slot_id = 1 };
    g_assert_cmpint(vidmm_split(buf, size, 20, out, 8, &n), ==, DDI_OK);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpuint(out[0].end, ==, 200);
    g_assert_cmpuint(out[1].slots, ==, 0x4);
    g_assert_cmpuint(out[1].bytes, ==, 10);
    g_free(buf);
}

/*
 * vidmm running a split buffer: three allocations of 5 pages over 16
 * pages of VRAM, 5 of them pinned. The whole list is refused
 * (DDI_ENOMEM) but splittable; the portions are planned with vidmm's own
 * sizes (rounded to pages) and budget (VRAM less what is pinned), each
 * made resident on its own (only its slots' addresses written, the next
 * one evicting the previous one's allocations once released); unpinned,
 * the list fits at once; an allocation larger than VRAM makes the buffer
 * unsplittable.
 */
static void test_split_portions(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct ddi_dmabuf *buf = g_new0(struct ddi_dmabuf, 1);
    struct ddi_alloc_desc desc[3] = { 0 };
    struct vidmm_residency r;
    struct vidmm_split_range pr;
    uint32_t h[3], big, pin;

    setup(x, 16 * 4096, 64 * 4096, false);
    pin = mk(x, 5 * 4096, 1, 0);
    g_assert_cmpint(vidmm_pin(x->vm, pin), ==, DDI_OK);
    g_assert_cmpuint(st(x, pin).where, ==, VIDMM_IN_VRAM);
    for (unsigned i = 0; i < 3; i++) {
        h[i] = mk(x, 5 * 4096 - 100, 1, 0);
        buf->alloc[i].handle = h[i];
        buf->patch[i] = (struct ddi_patch_loc){ .slot = i,
                                                .split_offset = 32 * i };
    }
    buf->nalloc = 3;
    buf->npatch = 3;
    buf->len_bytes = 96;
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, buf->alloc, 3, desc, false,
                                        &r), ==, DDI_ENOMEM);
    g_assert_true(vidmm_splittable(x->vm, buf, NULL, 0));

    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 0, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.end, ==, 64);
    g_assert_cmpuint(pr.slots, ==, 0x3);
    g_assert_cmpuint(pr.bytes, ==, 10 * 4096);
    g_assert_cmpint(vidmm_make_resident_portion(x->vm, 1, buf, NULL, desc, &pr,
                                                false, &r), ==, DDI_OK);
    if (r.paging_built) {
        vidmm_paging_done(x->vm, r.paging_ticket);
    }
    g_assert_cmpuint(desc[0].gpu_addr, ==, st(x, h[0]).gpu_addr);
    g_assert_cmpuint(desc[1].gpu_addr, ==, st(x, h[1]).gpu_addr);
    g_assert_cmpuint(st(x, h[0]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, h[0]).busy, ==, 1);
    g_assert_cmpuint(desc[2].gpu_addr, ==, 0);  /* not this portion's */
    g_assert_cmpuint(st(x, h[2]).busy, ==, 0);
    /* not a split point / the next one while the first holds VRAM */
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 40, &pr), ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 64, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.first, ==, 64);
    g_assert_cmpuint(pr.end, ==, 96);
    g_assert_cmpuint(pr.slots, ==, 0x4);
    g_assert_cmpint(vidmm_make_resident_portion(x->vm, 1, buf, NULL, desc, &pr,
                                                false, &r), ==, DDI_EBUSY);
    vidmm_release_portion(x->vm, buf, NULL, 0x3, 0, 7);
    g_assert_cmpuint(st(x, h[0]).busy, ==, 0);
    g_assert_cmpint(vidmm_make_resident_portion(x->vm, 1, buf, NULL, desc, &pr,
                                                false, &r), ==, DDI_OK);
    g_assert_true(r.paging_built);      /* evicted one of the first two */
    vidmm_paging_done(x->vm, r.paging_ticket);
    g_assert_cmpuint(st(x, h[2]).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(desc[2].gpu_addr, ==, st(x, h[2]).gpu_addr);
    vidmm_release_portion(x->vm, buf, NULL, pr.slots, 0, 8);
    g_assert_cmpuint(st(x, h[2]).busy, ==, 0);

    /* unpinned, the budget is all of VRAM: one portion, the whole */
    g_assert_cmpint(vidmm_unpin(x->vm, pin), ==, DDI_OK);
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 0, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.end, ==, 96);
    g_assert_false(vidmm_splittable(x->vm, buf, NULL, 0));

    /* larger than VRAM: no portion can hold it */
    big = mk(x, 17 * 4096, 1, 0);
    buf->alloc[1].handle = big;
    g_assert_false(vidmm_splittable(x->vm, buf, NULL, 0));
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 32, &pr), ==, DDI_ENOMEM);
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 0, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.end, ==, 32);
    buf->alloc[1].handle = 0xdead;
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 0, &pr), ==, DDI_EHANDLE);
    g_free(buf);
    g_free(x);
}

/*
 * A pageable DMA buffer in VRAM (kernel/kdma.c) is made resident with
 * every portion of itself: the planner takes its page off each
 * portion's budget. Without it the first portion fills VRAM to the byte
 * (two 4-page allocations in 8 pages) and cannot be made resident with
 * the buffer; with it, each portion is one allocation and runs. A
 * buffer in the aperture takes no VRAM: the portions are as without it.
 */
static void test_split_own_buffer(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct ddi_dmabuf *buf = g_new0(struct ddi_dmabuf, 1);
    struct ddi_alloc_ref list[2];
    struct ddi_alloc_desc desc[2] = { 0 };
    struct vidmm_residency r;
    struct vidmm_split_range pr;
    struct vidmm_alloc_info info = { .size = 100, .owner = 1,
                                     .segments = VIDMM_SEG_VRAM,
                                     .place_on_use = true };
    uint32_t own = 0, own_ap = 0;

    setup(x, 8 * 4096, 64 * 4096, false);
    for (unsigned i = 0; i < 3; i++) {
        buf->alloc[i].handle = mk(x, 4 * 4096, 1, 0);
        buf->patch[i] = (struct ddi_patch_loc){ .slot = i,
                                                .split_offset = 16 * i };
    }
    buf->nalloc = 3;
    buf->npatch = 3;
    buf->len_bytes = 48;
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &own), ==, DDI_OK);
    info.segments = VIDMM_SEG_APERTURE;
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &own_ap), ==, DDI_OK);

    /* in the kernel's segment (own 0) or the aperture: 8 pages a portion */
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 0, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.end, ==, 32);
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, own_ap, 0, &pr), ==,
                    DDI_OK);
    g_assert_cmpuint(pr.end, ==, 32);

    /* in VRAM: 4 pages and the buffer's own page, three portions */
    g_assert_true(vidmm_splittable(x->vm, buf, NULL, own));
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, own, 0, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.end, ==, 16);
    g_assert_cmpuint(pr.slots, ==, 0x1);
    /* what the kernel's dma_portion makes resident: the portion and own */
    list[0] = (struct ddi_alloc_ref){ .handle = buf->alloc[0].handle };
    list[1] = (struct ddi_alloc_ref){ .handle = own };
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, list, 2, desc, false, &r),
                    ==, DDI_OK);
    if (r.paging_built) {
        vidmm_paging_done(x->vm, r.paging_ticket);
    }
    g_assert_cmpuint(st(x, own).where, ==, VIDMM_IN_VRAM);
    vidmm_release(x->vm, list, 2, 0, 1);
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, own, 16, &pr), ==,
                    DDI_OK);
    g_assert_cmpuint(pr.end, ==, 32);

    /* the one-portion plan of before (slots 0 and 1 with own) never fits */
    list[0] = (struct ddi_alloc_ref){ .handle = buf->alloc[1].handle };
    r = (struct vidmm_residency){ .paging = &x->paging };
    {
        struct ddi_alloc_ref three[3] = {
            { .handle = buf->alloc[0].handle }, list[0], list[1],
        };
        struct ddi_alloc_desc d3[3] = { 0 };

        g_assert_cmpint(vidmm_make_resident(x->vm, 1, three, 3, d3, false,
                                            &r), ==, DDI_ENOMEM);
    }

    /* a packet that needs all of VRAM alone cannot run beside its buffer:
     * refused before any portion runs */
    buf->alloc[1].handle = mk(x, 8 * 4096, 1, 0);
    g_assert_false(vidmm_splittable(x->vm, buf, NULL, own));
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, own, 16, &pr), ==,
                    DDI_ENOMEM);
    g_assert_true(vidmm_splittable(x->vm, buf, NULL, own_ap));
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0xdead, 0, &pr), ==,
                    DDI_EHANDLE);
    g_free(buf);
    g_free(x);
}

/*
 * Repacking: a list member already in VRAM splits the free space so that
 * the other member cannot fit although the list's bytes equal VRAM's.
 * Best fit fails; vidmm then moves the member out and packs the list
 * from the bottom (what lets a split buffer's portions fill VRAM).
 */
static void test_repack(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct ddi_alloc_ref list[2];
    struct ddi_alloc_desc desc[2] = { 0 };
    struct vidmm_residency r;
    uint32_t v1, m, v2, z;

    setup(x, 8 * 4096, 64 * 4096, false);
    v1 = mk(x, 2 * 4096, 1, 0);
    m = mk(x, 4 * 4096, 1, 0);
    v2 = mk(x, 2 * 4096, 1, 0);
    z = mk(x, 4 * 4096, 1, 0);
    g_assert_cmpuint(st(x, m).gpu_addr, ==, VRAM_BASE + 2 * 4096);
    g_assert_cmpuint(st(x, z).where, ==, VIDMM_IN_SYSMEM);
    list[0] = (struct ddi_alloc_ref){ .handle = m };
    list[1] = (struct ddi_alloc_ref){ .handle = z };
    r = (struct vidmm_residency){ .paging = &x->paging };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, list, 2, desc, false, &r),
                    ==, DDI_OK);
    g_assert_true(r.paging_built);
    g_assert_cmpuint(st(x, m).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, z).where, ==, VIDMM_IN_VRAM);
    g_assert_cmpuint(desc[0].gpu_addr, ==, VRAM_BASE);
    g_assert_cmpuint(desc[1].gpu_addr, ==, VRAM_BASE + 4 * 4096);
    g_assert_cmpuint(st(x, v1).where, !=, VIDMM_IN_VRAM);
    g_assert_cmpuint(st(x, v2).where, !=, VIDMM_IN_VRAM);
    vidmm_paging_done(x->vm, r.paging_ticket);

    /* while m is busy it cannot move: not now (another list) */
    list[1] = (struct ddi_alloc_ref){ .handle = v1 };
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, &list[1], 1, desc, false,
                                        &r), ==, DDI_EBUSY);
    vidmm_release(x->vm, list, 1, 0, 1);
    g_free(x);
}

/* The kernel's lists name process handles and may hold allocations vidmm
 * does not manage (fixed placement): a map gives vidmm's handle per slot,
 * 0 for those, which cost nothing and are never made resident. */
static void test_split_handles(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct ddi_dmabuf *buf = g_new0(struct ddi_dmabuf, 1);
    struct ddi_alloc_desc desc[4] = { 0 };
    struct vidmm_residency r = { 0 };
    struct vidmm_split_range pr;
    uint32_t map[4];

    setup(x, 8 * 4096, 64 * 4096, false);
    for (unsigned i = 0; i < 4; i++) {
        map[i] = i < 3 ? mk(x, 4 * 4096, 1, 0) : 0;
        buf->alloc[i].handle = 100 + i;     /* the process's handles */
        buf->patch[i] = (struct ddi_patch_loc){ .slot = i,
                                                .split_offset = 16 * i };
    }
    map[3] = 0;
    desc[3].gpu_addr = 0x1234;              /* fixed: left as it is */
    buf->nalloc = 4;
    buf->npatch = 4;
    buf->len_bytes = 64;
    g_assert_cmpint(vidmm_portion(x->vm, buf, NULL, 0, 0, &pr), ==,
                    DDI_EHANDLE);
    g_assert_true(vidmm_splittable(x->vm, buf, map, 0));
    g_assert_cmpint(vidmm_portion(x->vm, buf, map, 0, 0, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.end, ==, 32);
    g_assert_cmpint(vidmm_portion(x->vm, buf, map, 0, 32, &pr), ==, DDI_OK);
    g_assert_cmpuint(pr.slots, ==, 0xc);    /* slot 2 and the fixed one */
    g_assert_cmpuint(pr.bytes, ==, 4 * 4096);
    r.paging = &x->paging;
    g_assert_cmpint(vidmm_make_resident_portion(x->vm, 1, buf, map, desc,
                                                &pr, false, &r), ==, DDI_OK);
    g_assert_cmpuint(desc[2].gpu_addr, ==, st(x, map[2]).gpu_addr);
    g_assert_cmpuint(desc[3].gpu_addr, ==, 0x1234);
    g_assert_cmpuint(st(x, map[2]).busy, ==, 1);
    vidmm_release_portion(x->vm, buf, map, pr.slots, 0, 1);
    g_assert_cmpuint(st(x, map[2]).busy, ==, 0);
    g_free(buf);
    g_free(x);
}

static void test_segment_best_fit(void)
{
    struct vidmm_block blocks[8];
    struct vidmm_segment s;
    uint64_t a, b, c, d;

    vidmm_segment_init(&s, 0, 100, NULL, blocks, 8);
    g_assert_true(vidmm_segment_alloc(&s, 10, 1, &a));
    g_assert_true(vidmm_segment_alloc(&s, 30, 1, &b));
    g_assert_true(vidmm_segment_alloc(&s, 10, 1, &c));
    g_assert_true(vidmm_segment_alloc(&s, 10, 1, &d));
    vidmm_segment_free(&s, b);          /* gap of 30 at 10, 40 at 60 */
    vidmm_segment_free(&s, a);          /* and a gap of 40 at 0..40 */
    vidmm_segment_free(&s, d);          /* 0..40 and 50..100 */
    g_assert_true(vidmm_segment_alloc_best(&s, 35, 1, &a));
    g_assert_cmpuint(a, ==, 0);         /* the tighter of 40 and 50 */
    g_assert_false(vidmm_segment_alloc_at(&s, 45, 10));
    g_assert_true(vidmm_segment_alloc_at(&s, 60, 10));
    g_assert_false(vidmm_segment_alloc_at(&s, 95, 10));
}

static void test_bad_input(void)
{
    struct fixture *x = g_new0(struct fixture, 1);
    struct vidmm_alloc_info info = { .size = 4096, .owner = 1 };
    struct ddi_alloc_ref refs[DDI_MAX_ALLOC_LIST + 1] = { { 0 } };
    struct ddi_alloc_desc d[DDI_MAX_ALLOC_LIST + 1] = { { 0 } };
    struct vidmm_residency r = { 0 };
    struct vidmm_alloc_state s;
    struct vidmm_config cfg = { .vram_size = 0 };
    uint32_t h;

    setup(x, 64 * KIB, 64 * KIB, false);
    /* creation */
    g_assert_null(vidmm_create(x->storage, sizeof(x->storage), &cfg, NULL,
                               &x->dev));
    g_assert_null(vidmm_create(x->storage, 8, &cfg, NULL, &x->dev));
    g_assert_cmpint(vidmm_alloc_create(x->vm, NULL, &h), ==, DDI_EINVAL);
    info.size = 0;
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &h), ==, DDI_EINVAL);
    info.size = 4096;
    info.align = 3;
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &h), ==, DDI_EINVAL);
    info.align = 0;
    info.segments = 0x80;
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &h), ==, DDI_EINVAL);
    info.segments = 0;
    info.size = UINT64_MAX;
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &h), ==, DDI_EINVAL);
    info.size = 1ull << 40;     /* more backing pages than the pool */
    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &h), ==, DDI_ENOMEM);
    /* handles */
    g_assert_cmpint(vidmm_alloc_destroy(x->vm, 0), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_pin(x->vm, 0xffffffff), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_unpin(NULL, 1), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_lock(x->vm, 7, NULL, NULL), ==, DDI_EHANDLE);
    g_assert_cmpint(vidmm_alloc_state(x->vm, 7, &s), ==, DDI_EHANDLE);
    h = mk(x, 4096, 1, 0);
    g_assert_cmpint(vidmm_unpin(x->vm, h), ==, DDI_EINVAL);  /* not pinned */
    g_assert_cmpint(vidmm_alloc_state(x->vm, h, NULL), ==, DDI_EINVAL);
    /* residency */
    r.paging = &x->paging;
    g_assert_cmpint(vidmm_make_resident(NULL, 1, refs, 1, d, false, &r), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, NULL, 1, d, false, &r), ==,
                    DDI_EINVAL);
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, refs, 1, d, false, NULL),
                    ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, refs,
                                        DDI_MAX_ALLOC_LIST + 1, d, false, &r),
                    ==, DDI_EINVAL);
    refs[0].handle = h;
    refs[1].handle = h;         /* twice in one list: fine */
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, refs, 2, d, false, &r), ==,
                    DDI_OK);
    g_assert_cmpuint(st(x, h).busy, ==, 2);
    vidmm_release(x->vm, refs, 2, 0, 1);
    g_assert_cmpuint(st(x, h).busy, ==, 0);
    vidmm_release(x->vm, refs, 2, 0, 1);                /* no underflow */
    vidmm_release(NULL, refs, 1, 0, 1);
    g_assert_cmpuint(st(x, h).busy, ==, 0);
    /* a patched address outside every segment */
    d[0].gpu_addr = 0x1234000;
    g_assert_cmpint(vidmm_make_resident(x->vm, 1, refs, 1, d, true, &r), ==,
                    DDI_ENOMEM);
    /* split */
    {
        unsigned n;
        struct vidmm_split_range out[2];
        uint64_t size[1] = { 1 };

        g_assert_cmpint(vidmm_split(NULL, size, 1, out, 2, &n), ==,
                        DDI_EINVAL);
        g_assert_cmpint(vidmm_split(&x->paging, NULL, 1, out, 2, &n), ==,
                        DDI_EINVAL);
        g_assert_cmpint(vidmm_split(&x->paging, size, 1, out, 0, &n), ==,
                        DDI_EINVAL);
    }
    g_free(x);
}

/* Pins and CPU locks are two counts of vm_state: an unlock never takes
 * back a pin (the scanout's), an unpin never a lock (a CPU pointer's),
 * and a primary keeps its pin for life. */
static void test_pins_and_locks(void)
{
    struct fixture x;
    struct vidmm_alloc_info pi = { .size = 64 * KIB, .primary = true };
    enum vidmm_where where;
    uint64_t at;
    uint32_t a, p;

    setup(&x, 512 * KIB, 0, false);
    a = mk(&x, 64 * KIB, 1, VIDMM_SEG_VRAM);
    g_assert_cmpint(vidmm_pin(x.vm, a), ==, DDI_OK);
    g_assert_cmpint(vidmm_unlock(x.vm, a), ==, DDI_EINVAL);
    g_assert_cmpuint(st(&x, a).pin, ==, 1);
    g_assert_cmpint(vidmm_lock(x.vm, a, &where, &at), ==, DDI_OK);
    g_assert_cmpuint(st(&x, a).pin, ==, 2);
    g_assert_cmpint(vidmm_unpin(x.vm, a), ==, DDI_OK);
    g_assert_cmpint(vidmm_unpin(x.vm, a), ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_alloc_destroy(x.vm, a), ==, DDI_EBUSY);
    g_assert_cmpint(vidmm_unlock(x.vm, a), ==, DDI_OK);
    g_assert_cmpuint(st(&x, a).pin, ==, 0);
    g_assert_cmpint(vidmm_alloc_destroy(x.vm, a), ==, DDI_OK);

    g_assert_cmpint(vidmm_alloc_create(x.vm, &pi, &p), ==, DDI_OK);
    g_assert_cmpint(vidmm_unpin(x.vm, p), ==, DDI_EINVAL);
    g_assert_cmpint(vidmm_lock(x.vm, p, &where, &at), ==, DDI_OK);
    g_assert_cmpint(vidmm_alloc_destroy(x.vm, p), ==, DDI_EBUSY);
    g_assert_cmpint(vidmm_unlock(x.vm, p), ==, DDI_OK);
    g_assert_cmpint(vidmm_alloc_destroy(x.vm, p), ==, DDI_OK);
}

static uint32_t mk_aligned(struct fixture *x, uint64_t size, uint64_t align,
                           uint32_t segs)
{
    struct vidmm_alloc_info info = { .size = size, .align = align,
                                     .owner = 0, .segments = segs };
    uint32_t h = 0;

    g_assert_cmpint(vidmm_alloc_create(x->vm, &info, &h), ==, DDI_OK);
    return h;
}

/* The estimate's arithmetic: each allocation once, its pages, and in
 * VRAM the gap its alignment may leave; what VRAM could ever hold less
 * what is pinned for life; must_split only for VRAM-only bytes. */
static void test_estimate_basic(void)
{
    struct fixture x;
    struct vidmm_alloc_info pi = { .size = 100 * KIB, .primary = true };
    struct vidmm_estimate e;
    struct ddi_alloc_ref l[5] = { 0 };
    uint32_t p;

    setup(&x, 1024 * KIB, 1024 * KIB, false);
    l[0].handle = mk_aligned(&x, 5000, 0, VIDMM_SEG_VRAM);
    l[1].handle = mk_aligned(&x, 4096, 64 * KIB, VIDMM_SEG_VRAM);
    l[2].handle = mk_aligned(&x, 12 * KIB, 0,
                             VIDMM_SEG_VRAM | VIDMM_SEG_APERTURE);
    l[3].handle = mk_aligned(&x, 4 * KIB, 0, VIDMM_SEG_APERTURE);
    l[4] = l[0];                /* listed twice */
    g_assert_cmpint(vidmm_estimate(x.vm, l, 5, &e), ==, DDI_OK);
    g_assert_cmpuint(e.vram_bytes, ==, 8 * KIB + 64 * KIB);
    g_assert_cmpuint(e.vram_any_bytes, ==, 8 * KIB + 64 * KIB + 12 * KIB);
    g_assert_cmpuint(e.aperture_bytes, ==, 12 * KIB + 4 * KIB);
    g_assert_cmpuint(e.vram_capacity, ==, 1024 * KIB);
    g_assert_cmpuint(e.aperture_capacity, ==, 1024 * KIB);
    g_assert_false(e.must_split);

    g_assert_cmpint(vidmm_alloc_create(x.vm, &pi, &p), ==, DDI_OK);
    g_assert_cmpint(vidmm_estimate(x.vm, l, 5, &e), ==, DDI_OK);
    g_assert_cmpuint(e.vram_capacity, ==, 1024 * KIB - 100 * KIB);
    /* a pin that comes and goes (the scanout's) does not count */
    g_assert_cmpint(vidmm_pin(x.vm, l[2].handle), ==, DDI_OK);
    g_assert_cmpint(vidmm_estimate(x.vm, l, 5, &e), ==, DDI_OK);
    g_assert_cmpuint(e.vram_capacity, ==, 1024 * KIB - 100 * KIB);

    l[1].handle = mk_aligned(&x, 920 * KIB, 0, VIDMM_SEG_VRAM);
    g_assert_cmpint(vidmm_estimate(x.vm, l, 2, &e), ==, DDI_OK);
    g_assert_true(e.must_split);

    g_assert_cmpint(vidmm_estimate(x.vm, NULL, 1, &e), ==, DDI_EINVAL);
    l[0].handle = 0x7777;
    g_assert_cmpint(vidmm_estimate(x.vm, l, 1, &e), ==, DDI_EHANDLE);
}

/*
 * The estimate is never below what the list needs: for random lists
 * (sizes of any byte count, alignments up to 64 KiB, VRAM-only,
 * aperture-only and either), a fresh vidmm whose VRAM and aperture are
 * exactly the estimate's makes the list resident, its VRAM-only members
 * in VRAM, and the members take no more of either than estimated.
 */
static void test_estimate_never_below(void)
{
    static const uint64_t aligns[] = { 0, 4 * KIB, 16 * KIB, 64 * KIB };
    GRand *rnd = g_rand_new_with_seed(29);

    for (unsigned trial = 0; trial < 400; trial++) {
        struct fixture big, x;
        struct vidmm_alloc_info info[8];
        struct ddi_alloc_ref l[8] = { 0 };
        struct ddi_alloc_desc d[8] = { 0 };
        struct vidmm_residency res = { 0 };
        struct vidmm_estimate e;
        unsigned n = g_rand_int_range(rnd, 1, 9);
        uint64_t vram_only = 0;

        setup(&big, 64 << 20, 64 << 20, false);
        for (unsigned i = 0; i < n; i++) {
            unsigned kind = g_rand_int_range(rnd, 0, 4);

            info[i] = (struct vidmm_alloc_info){
                .size = g_rand_int_range(rnd, 1, 48 * 4096),
                .align = aligns[g_rand_int_range(rnd, 0, 4)],
                .segments = kind == 3 ? VIDMM_SEG_APERTURE
                            : kind == 2 ? VIDMM_SEG_VRAM | VIDMM_SEG_APERTURE
                            : VIDMM_SEG_VRAM,
            };
            g_assert_cmpint(vidmm_alloc_create(big.vm, &info[i], &l[i].handle),
                            ==, DDI_OK);
        }
        g_assert_cmpint(vidmm_estimate(big.vm, l, n, &e), ==, DDI_OK);

        /* VRAM-only members first: the others may take what is left */
        setup(&x, e.vram_bytes ? e.vram_bytes : 4096,
              e.aperture_bytes ? e.aperture_bytes : 4096, false);
        for (unsigned pass = 0; pass < 2; pass++) {
            for (unsigned i = 0; i < n; i++) {
                bool only = info[i].segments == VIDMM_SEG_VRAM;

                if (only == (pass == 0)) {
                    g_assert_cmpint(vidmm_alloc_create(x.vm, &info[i],
                                                       &l[i].handle),
                                    ==, DDI_OK);
                }
            }
        }
        res.paging = &x.paging;
        g_assert_cmpint(vidmm_make_resident(x.vm, 0, l, n, d, false, &res),
                        ==, DDI_OK);
        for (unsigned i = 0; i < n; i++) {
            struct vidmm_alloc_state s = st(&x, l[i].handle);

            if (info[i].segments == VIDMM_SEG_VRAM) {
                g_assert_cmpuint(s.where, ==, VIDMM_IN_VRAM);
                vram_only += (s.size + 4095) / 4096 * 4096;
            }
        }
        g_assert_cmpuint(vram_only, <=, e.vram_bytes);
        g_assert_cmpuint(vidmm_vram_used(x.vm), <=, e.vram_any_bytes);
        g_assert_cmpuint(vidmm_aperture_used(x.vm), <=, e.aperture_bytes);
    }
    g_rand_free(rnd);
}

/*
 * Residency in steps (the fighting scenario on a 64 MiB device): each
 * move maps its pages at an aperture range that stays taken until its
 * paging buffer retired, so one paging buffer moves at most the
 * aperture's worth. Process 2's list needs 4 evictions and 4 restores
 * (8 ranges) through an aperture of 4: no single plan can do it. vidmm
 * said DDI_EBUSY for ever, with nothing in flight to wait for (a
 * livelock: the scenario never drained). Now every DDI_EBUSY comes with a
 * paging buffer that moved part of it, and a few steps make it resident.
 * A list one member of which cannot be moved even alone is DDI_ENOMEM.
 */
static void test_residency_in_steps(void)
{
    struct fixture x;
    struct ddi_alloc_ref list[6];
    struct ddi_alloc_desc d[6];
    struct vidmm_residency r;
    uint32_t other[6];
    unsigned steps = 0;
    int rc;

    setup(&x, 384 * KIB, 256 * KIB, false);
    for (unsigned i = 0; i < 6; i++) {
        other[i] = mk(&x, 64 * KIB, 1, VIDMM_SEG_VRAM);
        g_assert_cmpuint(st(&x, other[i]).where, ==, VIDMM_IN_VRAM);
    }
    for (unsigned i = 0; i < 6; i++) {
        list[i] = (struct ddi_alloc_ref){ .handle = mk(&x, 64 * KIB, 2,
                                                       VIDMM_SEG_VRAM) };
        g_assert_cmpuint(st(&x, list[i].handle).where, ==, VIDMM_IN_SYSMEM);
    }
    for (;;) {
        memset(d, 0, sizeof(d));
        r = (struct vidmm_residency){ .paging = &x.paging };
        rc = vidmm_make_resident(x.vm, 2, list, 6, d, false, &r);
        if (rc != DDI_EBUSY) {
            break;
        }
        /* nothing of process 1 is busy, no paging buffer is in flight:
         * a DDI_EBUSY must be a step, with its paging buffer */
        g_assert_true(r.paging_built);
        g_assert_cmpuint(r.paging_bytes, >, 0);
        g_assert_cmpuint(r.paging_bytes, <=, 256 * KIB);
        g_assert_cmpuint(++steps, <, 6);
        vidmm_paging_done(x.vm, r.paging_ticket);
        for (unsigned i = 0; i < 6; i++) {
            g_assert_cmpuint(st(&x, list[i].handle).busy, ==, 0);
        }
    }
    g_assert_cmpint(rc, ==, DDI_OK);
    g_assert_cmpuint(steps, >=, 1);
    g_assert_cmpuint(vidmm_stats(x.vm)->paging_steps, ==, steps);
    for (unsigned i = 0; i < 6; i++) {
        struct vidmm_alloc_state s = st(&x, list[i].handle);

        g_assert_cmpuint(s.where, ==, VIDMM_IN_VRAM);
        g_assert_cmpuint(d[i].gpu_addr, ==, s.gpu_addr);
        g_assert_cmpuint(st(&x, other[i]).where, ==, VIDMM_IN_SYSMEM);
    }
    if (r.paging_built) {
        vidmm_paging_done(x.vm, r.paging_ticket);
    }
    vidmm_release(x.vm, list, 6, 0, 1);

    /* one allocation larger than the aperture can never be moved in:
     * DDI_ENOMEM, nothing changed, not a step */
    {
        uint32_t big = mk(&x, 320 * KIB, 2, VIDMM_SEG_VRAM);
        struct ddi_alloc_ref ref = { .handle = big };

        g_assert_cmpuint(st(&x, big).where, ==, VIDMM_IN_SYSMEM);
        r = (struct vidmm_residency){ .paging = &x.paging };
        g_assert_cmpint(vidmm_make_resident(x.vm, 2, &ref, 1, d, false, &r),
                        ==, DDI_ENOMEM);
        g_assert_false(r.paging_built);
        g_assert_cmpuint(vidmm_stats(x.vm)->paging_steps, ==, steps);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vidmm/placement", test_placement);
    g_test_add_func("/vidmm/place-on-use", test_place_on_use);
    g_test_add_func("/vidmm/paging-ops", test_paging_ops);
    g_test_add_func("/vidmm/locked-stays", test_locked_stays);
    g_test_add_func("/vidmm/busy-not-promoted", test_busy_not_promoted);
    g_test_add_func("/vidmm/vacating-not-given", test_vacating_not_given);
    g_test_add_func("/vidmm/paging-lost", test_paging_lost);
    g_test_add_func("/vidmm/oom-and-busy", test_oom_and_busy);
    g_test_add_func("/vidmm/lru", test_lru);
    g_test_add_func("/vidmm/process-restriction", test_process_restriction);
    g_test_add_func("/vidmm/patched-once", test_patched_once);
    g_test_add_func("/vidmm/deferred-unmap", test_deferred_unmap);
    g_test_add_func("/vidmm/unmap-reuse-waits", test_unmap_reuse_waits);
    g_test_add_func("/vidmm/residency-in-steps", test_residency_in_steps);
    g_test_add_func("/vidmm/split", test_split);
    g_test_add_func("/vidmm/split-packets", test_split_packets);
    g_test_add_func("/vidmm/split-portions", test_split_portions);
    g_test_add_func("/vidmm/repack", test_repack);
    g_test_add_func("/vidmm/split-handles", test_split_handles);
    g_test_add_func("/vidmm/bad-input", test_bad_input);
    g_test_add_func("/vidmm/segment-best-fit", test_segment_best_fit);
    g_test_add_func("/vidmm/pins-and-locks", test_pins_and_locks);
    g_test_add_func("/vidmm/split-own-buffer", test_split_own_buffer);
    g_test_add_func("/vidmm/estimate/basic", test_estimate_basic);
    g_test_add_func("/vidmm/estimate/never-below", test_estimate_never_below);
    return g_test_run();
}
