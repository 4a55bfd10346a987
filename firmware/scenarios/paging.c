/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * paging: the kmd's paging buffer [DxgkDdiBuildPagingBuffer] on the real
 * device, driver level (no OS): kmd/copro_pager over the GART, system
 * pages from lib/page_pool, buffers on the copy engine submitted with
 * COPRO_SUBMIT_PAGING.
 *
 * 1. Evict and restore: a VRAM range filled with a pattern is paged out
 *    to scattered system pages (MAP + TRANSFER + UNMAP in one paging
 *    buffer), the VRAM is clobbered by a paging FILL, and the range is
 *    paged back in (MAP + TRANSFER + UNMAP); every byte is checked in the
 *    system pages and again in VRAM, and the GART entries are checked to
 *    be invalid after each buffer (the copy engine unmapped them).
 * 2. FILL into VRAM and into system pages through the aperture.
 * 3. Refusals: a bad operation after a good MAP, and a buffer too small,
 *    are refused with DDI_EINVAL / DDI_ENOMEM and nothing mapped.
 * 4. Paging is not preempted: a long paging buffer starts with a WAIT
 *    on a semaphore, so it is surely in execution (blocked) when the
 *    preemption request comes; the request stays unanswered while it is
 *    blocked, the CPU then releases it and the whole copy runs under the
 *    pending request, which completes after it, interrupting nothing. The
 *    same buffer without PAGING (the control) is interrupted in its WAIT
 *    at once, then resumed; both copies are checked.
 * 5. Bandwidth: VRAM -> system and system -> VRAM paging buffers of
 *    several sizes, timed by TIMESTAMP packets around them on the GPU
 *    clock, against the modelled copy-bw. Figures only, no assertion.
 *
 * Command line: irq=auto|msix|msi|intx, bench (larger sizes),
 * copy_bw=<bytes/s> (the device's copy-bw property, for the table's
 * "modelled" column; default 8 GiB/s).
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "ddi/ddi.h"
#include "kmd/copro_cp.h"
#include "kmd/copro_ddi.h"
#include "kmd/copro_gart.h"
#include "kmd/copro_pager.h"
#include "kmd/copro_preempt.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/page_alloc.h"
#include "lib/page_pool.h"
#include "lib/wait.h"
#include "scenarios/common.h"

#define RING_ENTRIES        16
#define PG                  4096u
#define GART_ENTRIES        16384u          /* 64 MiB of aperture */
#define EVICT_PAGES         259u                /* phase 1: 1 MiB + 3 pages */
#define EVICT_BYTES         (EVICT_PAGES * PG)
#define BENCH_MAX_TEST      (4 * MIB)       /* largest size without bench */
#define BENCH_MAX           (16 * MIB)      /* ... with bench */
#define POOL_PAGES          (4096u + EVICT_PAGES + 64)    /* BENCH_MAX and more */
#define PAGING_BUF_BYTES    (16 * 1024u)
#define CLOBBER             0xdeadbeefu
#define GATE_DW             COPRO_LEN_WAIT  /* phase 4: WAIT first */
#define CONTEXT_PAGING      0x50
#define CONTEXT_CONTROL     0x51
#define NO_CONTEXT          0xffffffffu
#define DEFAULT_COPY_BW     (8ull << 30)

struct paging_env {
    struct report *r;
    struct copro_cp *cp;
    struct copro_gart gart;
    struct copro_pager pager;
    struct copro_ddi ddi;
    struct ddi_device gpu;      /* the DDI over ddi, as the OS sees it */
    struct page_alloc ram;
    struct page_pool pool;
    struct ddi_dmabuf out;      /* the paging buffer being built */
    uint32_t *buf_cpu;          /* its storage, in VRAM */
    uint64_t buf_gpu;
    uint64_t ts_gpu;            /* two TIMESTAMP slots in VRAM */
    uint64_t sem_gpu;           /* phase 4's WAIT semaphore */
    uint64_t big_gpu;           /* 2 * bench_max of VRAM: bench, phase 4 */
    uint64_t bench_max;
    uint64_t copy_bw;
    uint32_t win_first;         /* an aperture window of bench_max bytes */
    uint64_t win_gpu;
    uint64_t pages[POOL_PAGES]; /* pages handed out, in mapping order */
};

static uint64_t pool_used[PAGE_POOL_WORDS(POOL_PAGES)];

/* The pattern: word i of a range seeded seed. */
static uint32_t pattern(uint32_t seed, uint64_t i)
{
    uint32_t x = seed ^ (uint32_t)(i * 2654435761u) ^ (uint32_t)(i >> 32);

    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return x;
}

/* Words of a range that differ from want(i); the first in *first. */
typedef uint32_t (*want_fn)(uint32_t seed, uint64_t i);

static uint32_t constant(uint32_t value, uint64_t i)
{
    (void)i;
    return value;
}

static uint64_t count_bad(const volatile uint32_t *got, uint64_t words,
                          want_fn want, uint32_t seed, uint64_t *first)
{
    uint64_t bad = 0;

    for (uint64_t i = 0; i < words; i++) {
        if (got[i] != want(seed, i)) {
            *first = bad ? *first : i;
            bad++;
        }
    }
    return bad;
}

static bool check_vram(struct paging_env *env, const char *what,
                       uint64_t gpu, uint64_t bytes, want_fn want,
                       uint32_t seed)
{
    const volatile uint32_t *p =
        (const volatile uint32_t *)copro_cp_cpu_ptr(env->cp, gpu);
    uint64_t first = 0, bad = count_bad(p, bytes / 4, want, seed, &first);

    return report(env->r, bad == 0, "%s: %lu of %lu bytes differ%s", what,
                  bad * 4, bytes, bad ? " (first word below)" : "") ||
           (report_info("  word %lu: got %#x, expected %#x", first,
                        p[first], want(seed, first)), false);
}

/* The system pages pages[0 .. n) hold want, page after page. */
static bool check_pages(struct paging_env *env, const char *what,
                        const uint64_t *pages, uint32_t n, want_fn want,
                        uint32_t seed)
{
    uint64_t bad = 0;

    for (uint32_t k = 0; k < n; k++) {
        const volatile uint32_t *p = page_pool_cpu(pages[k]);

        for (uint32_t i = 0; i < PG / 4; i++) {
            bad += p[i] != want(seed, (uint64_t)k * (PG / 4) + i);
        }
    }
    return report(env->r, bad == 0, "%s: %lu of %lu bytes differ", what,
                  bad * 4, (uint64_t)n * PG);
}

/* GART entries [first, first + n) that are valid. */
static uint32_t mapped_entries(struct paging_env *env, uint32_t first,
                               uint32_t n)
{
    uint32_t valid = 0;

    for (uint32_t i = 0; i < n; i++) {
        valid += (env->gart.entry[first + i] & COPRO_GART_VALID) != 0;
    }
    return valid;
}

/* Starts env->out after reserve_dw dwords of the storage. */
static struct ddi_dmabuf *paging_out(struct paging_env *env,
                                     uint32_t reserve_dw)
{
    env->out.dw = env->buf_cpu + reserve_dw;
    env->out.gpu_addr = env->buf_gpu + reserve_dw * 4;
    env->out.cap_bytes = PAGING_BUF_BYTES - reserve_dw * 4 - 64;
    return &env->out;
}

/* Through the DDI's table, as vidmm calls it. */
static int build(struct paging_env *env, const struct ddi_paging_op *ops,
                 unsigned n)
{
    return env->gpu.ops->build_paging_buffer(env->gpu.drv, ops, n,
                                             paging_out(env, 0));
}

/* Submits env->out on the copy engine as a paging buffer and waits. */
static bool run_paging(struct paging_env *env, const char *what)
{
    struct copro_dmabuf b = {
        .dw = env->out.dw, .gpu_addr = env->out.gpu_addr,
        .cap_dw = env->out.cap_bytes / 4, .len_dw = env->out.len_bytes / 4,
    };
    uint64_t f = copro_cp_submit(env->cp, COPRO_ENGINE_COPY, &b,
                                 CONTEXT_PAGING, COPRO_SUBMIT_PAGING);

    return check_fence_wait(env->r, env->cp, COPRO_ENGINE_COPY, f,
                            COPRO_WAIT_DONE, what);
}

/* Phase 1: page a VRAM range out to system pages and back in. */
static void run_evict_restore(struct paging_env *env)
{
    struct report *r = env->r;
    uint64_t *pages = env->pages;
    uint64_t scattered[EVICT_PAGES];
    volatile uint32_t *vram;
    uint64_t vram_gpu;
    uint32_t first;
    int rc;

    vram = copro_cp_alloc(env->cp, EVICT_BYTES, PG, &vram_gpu);
    if (!report(r, vram && page_pool_get(&env->pool, EVICT_PAGES, pages) &&
                copro_gart_reserve(&env->gart, EVICT_PAGES, &first),
                "allocation of %u KiB in VRAM at %#lx, %u system pages, "
                "aperture window", EVICT_BYTES / 1024, vram_gpu,
                EVICT_PAGES)) {
        return;
    }
    /* Backing pages out of order, so that a page mixed up shows (5 is
     * prime to 259 = 7 * 37: a permutation). */
    for (uint32_t i = 0; i < EVICT_PAGES; i++) {
        scattered[i] = pages[(i * 5) % EVICT_PAGES];
    }
    for (uint64_t i = 0; i < EVICT_BYTES / 4; i++) {
        vram[i] = pattern(1, i);
    }
    {
        uint64_t win = copro_gart_gpu(&env->gart, first);
        struct ddi_paging_op out_ops[] = {
            { .kind = DDI_PAGING_MAP_APERTURE, .dst = win,
              .size = EVICT_BYTES, .sys_pages = scattered },
            { .kind = DDI_PAGING_TRANSFER, .src = vram_gpu, .dst = win,
              .size = EVICT_BYTES },
            { .kind = DDI_PAGING_UNMAP_APERTURE, .dst = win,
              .size = EVICT_BYTES },
        };
        struct ddi_paging_op clobber = {
            .kind = DDI_PAGING_FILL, .dst = vram_gpu, .size = EVICT_BYTES,
            .value = CLOBBER,
        };
        struct ddi_paging_op in_ops[] = {
            out_ops[0],
            { .kind = DDI_PAGING_TRANSFER, .src = win, .dst = vram_gpu,
              .size = EVICT_BYTES },
            out_ops[2],
        };

        rc = build(env, out_ops, 3);
        report(r, rc == DDI_OK && mapped_entries(env, first, EVICT_PAGES) ==
               EVICT_PAGES, "page-out buffer built (%s, %u bytes), window "
               "mapped by the CPU", ddi_status_name(rc), env->out.len_bytes);
        if (!run_paging(env, "page-out (MAP + TRANSFER + UNMAP) on the copy "
                        "engine")) {
            return;
        }
        report(r, mapped_entries(env, first, EVICT_PAGES) == 0,
               "GART entries of the window invalid after the buffer (the "
               "copy engine unmapped them)");
        check_pages(env, "evicted bytes in the system pages", scattered,
                    EVICT_PAGES, pattern, 1);

        rc = build(env, &clobber, 1);
        if (!report(r, rc == DDI_OK, "clobber FILL built (%s)",
                    ddi_status_name(rc)) ||
            !run_paging(env, "VRAM clobbered by a paging FILL")) {
            return;
        }
        check_vram(env, "VRAM holds the clobber pattern", vram_gpu,
                   EVICT_BYTES, constant, CLOBBER);

        rc = build(env, in_ops, 3);
        if (!report(r, rc == DDI_OK, "page-in buffer built (%s)",
                    ddi_status_name(rc)) ||
            !run_paging(env, "page-in (MAP + TRANSFER + UNMAP)")) {
            return;
        }
        check_vram(env, "every byte restored in VRAM", vram_gpu,
                   EVICT_BYTES, pattern, 1);
        report(r, mapped_entries(env, first, EVICT_PAGES) == 0,
               "window unmapped again after the page-in");
    }
    report(r, page_pool_put(&env->pool, pages, EVICT_PAGES) &&
           env->pool.free == env->pool.pages, "system pages given back to "
           "the pool (%u free)", env->pool.free);
}

/* Phase 2: FILL in VRAM and in system memory through the aperture. */
static void run_fills(struct paging_env *env)
{
    struct report *r = env->r;
    uint64_t *pages = env->pages;
    uint64_t gpu = env->big_gpu + 12;       /* unaligned start */
    uint64_t bytes = 256 * 1024 + 20;
    uint64_t win = env->win_gpu;
    struct ddi_paging_op ops[3];
    int rc;

    if (!page_pool_get(&env->pool, 4, pages)) {
        report(r, false, "4 system pages for the fill");
        return;
    }
    ops[0] = (struct ddi_paging_op){ .kind = DDI_PAGING_FILL, .dst = gpu,
                                     .size = bytes, .value = 0x12345678 };
    ops[1] = (struct ddi_paging_op){ .kind = DDI_PAGING_MAP_APERTURE,
                                     .dst = win, .size = 4 * PG,
                                     .sys_pages = pages };
    ops[2] = (struct ddi_paging_op){ .kind = DDI_PAGING_FILL, .dst = win,
                                     .size = 4 * PG, .value = 0xa5a55a5a };
    /* the last op of one buffer need not be an UNMAP: the window stays
     * mapped, and the next buffer unmaps it */
    rc = build(env, ops, 3);
    if (report(r, rc == DDI_OK, "FILL buffer built (%s)",
               ddi_status_name(rc)) &&
        run_paging(env, "FILLs in VRAM and through the aperture")) {
        check_vram(env, "FILL at an unaligned VRAM address", gpu, bytes,
                   constant, 0x12345678);
        check_pages(env, "FILL of system pages through the aperture", pages,
                    4, constant, 0xa5a55a5a);
    }
    ops[0] = (struct ddi_paging_op){ .kind = DDI_PAGING_UNMAP_APERTURE,
                                     .dst = win, .size = 4 * PG };
    rc = build(env, ops, 1);
    report(r, rc == DDI_OK && run_paging(env, "UNMAP alone") &&
           mapped_entries(env, env->win_first, 4) == 0,
           "a buffer of only an UNMAP clears the entries");
    page_pool_put(&env->pool, pages, 4);
}

/* Phase 3: refusals leave nothing mapped. */
static void run_refusals(struct paging_env *env)
{
    struct report *r = env->r;
    uint64_t *pages = env->pages;
    uint64_t win = env->win_gpu;
    uint32_t n = 8;
    struct ddi_paging_op ops[2] = {
        { .kind = DDI_PAGING_MAP_APERTURE, .dst = win, .size = n * PG,
          .sys_pages = pages },
        { .kind = DDI_PAGING_TRANSFER, .src = env->cp->dev->info.vram_size -
          PG, .dst = win, .size = 2 * PG },     /* past the end of VRAM */
    };
    uint64_t refused = env->pager.refused;
    int rc;

    if (!page_pool_get(&env->pool, n, pages)) {
        report(r, false, "system pages for the refusals");
        return;
    }
    rc = build(env, ops, 2);
    report(r, rc == DDI_EINVAL && env->out.len_bytes == 0 &&
           mapped_entries(env, env->win_first, n) == 0,
           "TRANSFER past the end of VRAM after a good MAP: %s, nothing "
           "mapped (%u entries valid)", ddi_status_name(rc),
           mapped_entries(env, env->win_first, n));
    ops[1] = ops[0];
    ops[1].dst = win + 3;                   /* unaligned UNMAP */
    ops[1].kind = DDI_PAGING_UNMAP_APERTURE;
    rc = build(env, ops, 2);
    report(r, rc == DDI_EINVAL && mapped_entries(env, env->win_first, n) == 0,
           "unaligned UNMAP: %s, nothing mapped", ddi_status_name(rc));
    {
        uint64_t keep = pages[3];

        pages[3] = 0;                       /* page 0 in the list */
        rc = build(env, ops, 1);
        pages[3] = keep;
    }
    report(r, rc == DDI_EINVAL && mapped_entries(env, env->win_first, n) == 0,
           "MAP of guest page 0: %s, nothing mapped", ddi_status_name(rc));
    page_pool_put(&env->pool, pages, n);
    report(r, env->pool.free == env->pool.pages, "pool whole again");
    /* too small a buffer: ENOMEM, nothing mapped */
    if (page_pool_get(&env->pool, n, pages)) {
        ops[1] = (struct ddi_paging_op){ .kind = DDI_PAGING_TRANSFER,
                                         .src = env->big_gpu, .dst = win,
                                         .size = n * PG };
        paging_out(env, 0)->cap_bytes = 16;
        rc = copro_pager_build(&env->pager, ops, 2, &env->out);
        report(r, rc == DDI_ENOMEM && mapped_entries(env, env->win_first,
                                                     n) == 0,
               "buffer too small: %s, nothing mapped", ddi_status_name(rc));
        page_pool_put(&env->pool, pages, n);
    }
    report(r, env->pager.refused == refused + 4 && env->cp->eng[1].faults ==
           0, "the pager counted 4 refusals, the engine saw none of them");
}

static bool preempt_settled(void *ctx)
{
    struct copro_preempt *p = ctx;

    copro_cp_dpc(p->cp);
    return copro_preempt_done(p);
}

/* Waits until engine e is blocked in a WAIT of submission fence. It stays
 * there until the CPU releases it, so no timing can make this miss. */
static bool wait_blocked(struct copro_cp *cp, unsigned e, uint64_t fence)
{
    uint32_t base = COPRO_ENG_BASE(e);

    for (unsigned i = 0; i < 1000000; i++) {
        if (copro_read32(cp->dev, base + COPRO_ENG_STATE) ==
                COPRO_ENG_STATE_WAITING &&
            copro_read64(cp->dev, base + COPRO_ENG_CURRENT_FENCE) == fence) {
            return true;
        }
    }
    return false;
}

/* What one gated run saw. */
struct gated_run {
    uint64_t fence;
    bool answered_while_blocked;    /* PREEMPTED before the release */
    struct copro_stop_plan plan;
};

/*
 * The buffer in env->buf: a WAIT on a semaphore, then the paging packets
 * built after it. Submitted with flags, it blocks in the WAIT; then a
 * preemption request, a while for it to be answered, the semaphore
 * released (the copy runs, under the request if it is still pending), and
 * the request answered and settled.
 */
static bool preempt_gated(struct paging_env *env, struct copro_preempt *pp,
                          const struct copro_context *ctx, uint32_t flags,
                          struct gated_run *run)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    volatile uint64_t *sem = (volatile uint64_t *)copro_cp_cpu_ptr(
        cp, env->sem_gpu);
    const char *what = flags & COPRO_SUBMIT_PAGING ? "PAGING" : "ordinary";
    const char *err;
    bool done;

    *sem = 0;
    run->fence = copro_preempt_submit(pp, ctx, env->buf_gpu,
                                      GATE_DW * 4 + env->out.len_bytes,
                                      flags, 1);
    if (!report(r, run->fence && wait_blocked(cp, COPRO_ENGINE_COPY,
                                              run->fence),
                "%s buffer (fence %lu) in execution, blocked in its WAIT",
                what, run->fence)) {
        *sem = 1;
        return false;
    }
    copro_preempt_request(pp);
    /* Long enough for any answer: a blocked WAIT is interruptible at once */
    run->answered_while_blocked = wait_for(preempt_settled, pp, 2 * MS, NULL);
    *sem = 1;
    done = run->answered_while_blocked ||
           wait_for(preempt_settled, pp, FENCE_TIMEOUT_NS, NULL);
    if (!report(r, done, "preemption request answered")) {
        return false;
    }
    err = copro_preempt_settle(pp, &run->plan);
    return report(r, err == NULL, "preemption settled%s%s", err ? ": " : "",
                  err ? err : "");
}

/* Phase 4: the device does not preempt a paging buffer. */
static void run_no_preempt(struct paging_env *env)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    struct copro_engine *eng = &cp->eng[COPRO_ENGINE_COPY];
    static struct copro_preempt pp;
    static struct gated_run run;
    struct copro_context ctx_paging, ctx_control;
    uint64_t half = env->bench_max;
    uint64_t src = env->big_gpu, dst = env->big_gpu + half;
    struct ddi_paging_op op = { .kind = DDI_PAGING_TRANSFER, .src = src,
                                .dst = dst, .size = half };
    volatile uint32_t *s = (volatile uint32_t *)copro_cp_cpu_ptr(cp, src);
    volatile uint32_t *d = (volatile uint32_t *)copro_cp_cpu_ptr(cp, dst);
    struct copro_dmabuf gate;
    const char *err;
    unsigned n;
    int rc;

    copro_preempt_init(&pp, cp, COPRO_ENGINE_COPY);
    err = copro_context_init(cp, &ctx_paging, CONTEXT_PAGING, 0);
    if (!err) {
        err = copro_context_init(cp, &ctx_control, CONTEXT_CONTROL, 0);
    }
    if (!report(r, err == NULL, "save areas allocated%s%s", err ? ": " : "",
                err ? err : "")) {
        return;
    }
    for (uint64_t i = 0; i < half / 4; i++) {
        s[i] = pattern(7, i);
        d[i] = 0;
    }
    copro_dmabuf_init(&gate, env->buf_cpu, env->buf_gpu, GATE_DW * 4);
    copro_emit_wait(&gate, env->sem_gpu, 1);
    rc = env->gpu.ops->build_paging_buffer(env->gpu.drv, &op, 1,
                                           paging_out(env, GATE_DW));
    if (!report(r, copro_dmabuf_ok(&gate) && rc == DDI_OK,
                "a %lu MiB paging TRANSFER built behind a WAIT (%s)",
                half / MIB, ddi_status_name(rc))) {
        return;
    }

    if (preempt_gated(env, &pp, &ctx_paging, COPRO_SUBMIT_PAGING, &run)) {
        report(r, !run.answered_while_blocked, "the request is not answered "
               "while the PAGING buffer is blocked in its WAIT");
        report(r, eng->preempt.preempted_fence == 0 &&
               run.plan.preempted == 0 && eng->completed >= run.fence,
               "PAGING buffer ran to its end under the pending request: "
               "PREEMPTED_FENCE %lu, completed %lu",
               eng->preempt.preempted_fence, eng->completed);
        check_vram(env, "the paging copy is whole", dst, half, pattern, 7);
    }

    /* The control: the same buffer without PAGING is interrupted. */
    for (uint64_t i = 0; i < half / 4; i++) {
        d[i] = 0;
    }
    if (preempt_gated(env, &pp, &ctx_control, 0, &run)) {
        report(r, run.answered_while_blocked &&
               eng->preempt.preempted_fence == run.fence &&
               run.plan.preempted == 1,
               "control: the same buffer without PAGING is interrupted in "
               "its WAIT (PREEMPTED_FENCE %lu)",
               eng->preempt.preempted_fence);
        n = copro_preempt_resubmit(&pp, &run.plan, NO_CONTEXT, &err);
        if (report(r, n == 1, "control resumed (%u resubmitted%s%s)", n,
                   err ? ": " : "", err ? err : "")) {
            check_fence_wait(r, cp, COPRO_ENGINE_COPY, eng->last_submitted,
                             COPRO_WAIT_DONE, "resumed control finished");
            check_vram(env, "the resumed copy is whole", dst, half, pattern,
                       7);
        }
    }
}

/* Phase 5: paging bandwidth in the GPU clock. */
struct bw_row {
    uint64_t bytes;
    uint64_t ns[2];             /* out (VRAM -> system), in */
};

static bool time_paging(struct paging_env *env, const struct ddi_paging_op *ops,
                        unsigned n, uint64_t *ns)
{
    volatile uint64_t *ts = (volatile uint64_t *)copro_cp_cpu_ptr(env->cp,
                                                               env->ts_gpu);
    struct copro_dmabuf b;
    uint64_t f;
    int rc;

    /* TIMESTAMP, the paging buffer's packets, TIMESTAMP: the difference
     * is the GPU time of the packets (plus one packet-ns). */
    copro_dmabuf_init(&b, env->buf_cpu, env->buf_gpu, PAGING_BUF_BYTES);
    copro_emit_timestamp(&b, env->ts_gpu);
    rc = copro_pager_build(&env->pager, ops, n, paging_out(env, b.len_dw));
    if (rc != DDI_OK) {
        return false;
    }
    b.len_dw += env->out.len_bytes / 4;
    copro_emit_timestamp(&b, env->ts_gpu + 8);
    ts[0] = ts[1] = 0;
    f = copro_cp_submit(env->cp, COPRO_ENGINE_COPY, &b, CONTEXT_PAGING,
                        COPRO_SUBMIT_PAGING);
    if (copro_cp_wait_fence(env->cp, COPRO_ENGINE_COPY, f, FENCE_TIMEOUT_NS,
                            NULL) != COPRO_WAIT_DONE || ts[1] <= ts[0]) {
        return false;
    }
    *ns = ts[1] - ts[0];
    return true;
}

/* Bytes per second moved by bytes in ns (bytes < 2^34: no overflow). */
static uint64_t bytes_per_s(uint64_t bytes, uint64_t ns)
{
    return ns ? bytes * 1000000000ull / ns : 0;
}

/* Hundredths of a GiB/s, for "x.xx" without floating point. */
static uint64_t gib_centi(uint64_t bps)
{
    return bps * 100 / (1ull << 30);
}

static void run_bandwidth(struct paging_env *env)
{
    struct report *r = env->r;
    static const uint64_t sizes[] = { 64 * 1024, 1 * MIB, 4 * MIB, 16 * MIB };
    struct bw_row rows[4];
    unsigned nrows = 0;
    uint64_t *pages = env->pages;
    uint64_t win = env->win_gpu;
    bool ok = true;

    for (unsigned k = 0; k < 4 && ok && sizes[k] <= env->bench_max; k++) {
        uint64_t bytes = sizes[k];
        uint32_t np = (uint32_t)(bytes / PG);
        struct ddi_paging_op out_ops[3] = {
            { .kind = DDI_PAGING_MAP_APERTURE, .dst = win, .size = bytes,
              .sys_pages = pages },
            { .kind = DDI_PAGING_TRANSFER, .src = env->big_gpu, .dst = win,
              .size = bytes },
            { .kind = DDI_PAGING_UNMAP_APERTURE, .dst = win, .size = bytes },
        };
        struct ddi_paging_op in_ops[3] = {
            out_ops[0],
            { .kind = DDI_PAGING_TRANSFER, .src = win,
              .dst = env->big_gpu + env->bench_max, .size = bytes },
            out_ops[2],
        };
        struct bw_row *row = &rows[nrows];

        ok = page_pool_get(&env->pool, np, pages);
        for (uint64_t i = 0; ok && i < bytes / 4; i += 1024) {
            ((volatile uint32_t *)copro_cp_cpu_ptr(env->cp,
                                                   env->big_gpu))[i] =
                (uint32_t)(i ^ bytes);
        }
        row->bytes = bytes;
        ok = ok && time_paging(env, out_ops, 3, &row->ns[0]) &&
             time_paging(env, in_ops, 3, &row->ns[1]);
        if (ok) {
            /* spot check: one word per 4 KiB came back */
            const volatile uint32_t *back = (const volatile uint32_t *)
                copro_cp_cpu_ptr(env->cp, env->big_gpu + env->bench_max);

            for (uint64_t i = 0; i < bytes / 4; i += 1024) {
                ok = ok && back[i] == (uint32_t)(i ^ bytes);
            }
        }
        page_pool_put(&env->pool, pages, np);
        nrows += ok;
    }
    if (!report(r, ok, "paging bandwidth runs (%u sizes) completed, data "
                "round-tripped", nrows)) {
        return;
    }
    kprintf("\npaging bandwidth (GPU clock; modelled copy-bw %lu.%02lu "
            "GiB/s; MAP on the CPU, not timed; UNMAP's COPY_PTE included)\n",
            gib_centi(env->copy_bw) / 100, gib_centi(env->copy_bw) % 100);
    kprintf("%10s  %12s  %10s  %6s  %12s  %10s  %6s\n", "size",
            "out ns", "out GiB/s", "% bw", "in ns", "in GiB/s", "% bw");
    for (unsigned k = 0; k < nrows; k++) {
        uint64_t out = bytes_per_s(rows[k].bytes, rows[k].ns[0]);
        uint64_t in = bytes_per_s(rows[k].bytes, rows[k].ns[1]);

        kprintf("%7lu KiB  %12lu  %7lu.%02lu  %5lu%%  %12lu  %7lu.%02lu  "
                "%5lu%%\n", rows[k].bytes / 1024, rows[k].ns[0],
                gib_centi(out) / 100, gib_centi(out) % 100,
                out * 100 / env->copy_bw, rows[k].ns[1], gib_centi(in) / 100,
                gib_centi(in) % 100, in * 100 / env->copy_bw);
    }
    kprintf("BANDWIDTH {\"copy_bw\":%lu,\"rows\":[", env->copy_bw);
    for (unsigned k = 0; k < nrows; k++) {
        kprintf("%s{\"bytes\":%lu,\"out_ns\":%lu,\"in_ns\":%lu}",
                k ? "," : "", rows[k].bytes, rows[k].ns[0], rows[k].ns[1]);
    }
    kprintf("]}\n");
}

static bool setup(struct paging_env *env, const struct boot_info *boot)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    const char *err;

    bool carved;

    page_alloc_init(&env->ram, boot->free_start, boot->free_end);
    carved = page_pool_carve(&env->pool, &env->ram, POOL_PAGES, pool_used);
    if (!report(r, carved, "page pool of %u system pages at %#lx", POOL_PAGES,
                env->pool.base)) {
        return false;
    }
    err = copro_gart_init(&env->gart, cp, GART_ENTRIES);
    if (!err) {
        err = copro_pager_init(&env->pager, cp, &env->gart);
    }
    if (!report(r, err == NULL, "GART (%u entries) and pager set up%s%s",
                env->gart.entries, err ? ": " : "", err ? err : "")) {
        return false;
    }
    /* The DDI offers build_paging_buffer only once a pager is attached. */
    copro_ddi_init(&env->ddi, cp);
    report(r, copro_ddi_device(&env->ddi).ops->build_paging_buffer == NULL,
           "DDI without a pager: build_paging_buffer NULL (cannot page)");
    copro_ddi_attach_pager(&env->ddi, &env->pager);
    env->gpu = copro_ddi_device(&env->ddi);
    if (!report(r, env->gpu.ops->build_paging_buffer != NULL,
                "DDI with the pager attached offers build_paging_buffer")) {
        return false;
    }
    env->buf_cpu = copro_cp_alloc(cp, PAGING_BUF_BYTES, PG, &env->buf_gpu);
    if (!copro_cp_alloc(cp, 16, 8, &env->ts_gpu) ||
        !copro_cp_alloc(cp, 8, 8, &env->sem_gpu) ||
        !copro_cp_alloc(cp, 2 * env->bench_max, PG, &env->big_gpu) ||
        !env->buf_cpu ||
        !copro_gart_reserve(&env->gart, (uint32_t)(env->bench_max / PG),
                            &env->win_first)) {
        report(r, false, "VRAM and aperture for the buffers");
        return false;
    }
    env->win_gpu = copro_gart_gpu(&env->gart, env->win_first);
    return true;
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    static struct paging_env env;
    struct report r = { 0 };

    report_info("copro paging scenario, command line: \"%s\"", boot->cmdline);
    env.r = &r;
    env.cp = &cp;
    env.bench_max = cmdline_has_flag(boot->cmdline, "bench") ? BENCH_MAX
                                                            : BENCH_MAX_TEST;
    env.copy_bw = DEFAULT_COPY_BW;
    if (cmdline_get_u64(boot->cmdline, "copy_bw", &env.copy_bw) < 0 ||
        env.copy_bw == 0) {
        report(&r, false, "copy_bw= is not a positive number");
        return report_summary(&r);
    }
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES) &&
        report(&r, cp.num_engines >= 2, "a copy engine (%u engines)",
               cp.num_engines) &&
        report(&r, dev.info.caps & COPRO_CAP_GART, "device has a GART") &&
        setup(&env, boot)) {
        run_evict_restore(&env);
        run_fills(&env);
        run_refusals(&env);
        run_no_preempt(&env);
        run_bandwidth(&env);
        report(&r, cp.eng[0].faults == 0 && cp.eng[1].faults == 0,
               "no faults on either engine");
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
    }
    kprintf("METRICS {\"scenario\":\"paging\",\"irq_mode\":\"%s\","
            "\"paging_builds\":%lu,\"refused\":%lu,\"pages_mapped\":%lu,"
            "\"pages_unmapped\":%lu,\"bytes_transferred\":%lu,"
            "\"bytes_filled\":%lu,\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), env.pager.builds,
            env.pager.refused, env.pager.pages_mapped,
            env.pager.pages_unmapped, env.pager.bytes_transferred,
            env.pager.bytes_filled, r.tests, r.failures);
    return report_summary(&r);
}
