/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagefault: GPU page faults in a context's own address space, reported
 * by the driver's deferred handler and recovered from both ways the
 * device allows, while other contexts keep running.
 *
 * Context 3 has its own address space and draws into VA surfaces:
 *
 * 1. RETRY. Its surface has one row page left unmapped (a missing leaf
 *    entry). The draw faults; the DPC must report a PAGE fault through the
 *    FAULT cause, at the VA of that page, for context 3 and the draw's
 *    fence and packet, with FAULT_INFO WRITE | VIRTUAL | level 0 -- what
 *    the driver's own software walk of its tables predicts. While the
 *    render engine is halted, context 4 on the copy engine completes its
 *    work. The driver maps the page, invalidates the context (VM_INVAL)
 *    and RETRYs: the draw completes with the whole surface drawn, and the
 *    buffer queued behind it runs too (a retry loses nothing).
 * 2. Engine reset. A draw into a 2 MiB region that has no leaf table
 *    faults at level 1. The driver resets the engine: the draw is
 *    reported aborted, the buffer queued behind it dropped; context 4
 *    completes on the copy engine meanwhile, and after the reset context
 *    5 (physical) and the resubmitted buffer complete on the render
 *    engine.
 *
 * Command line: irq=auto|msix|msi|intx.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_vm.h"
#include "lib/console.h"
#include "scenarios/common.h"

#define RING_ENTRIES        8
#define PG                  4096u

#define CTX_FAULTY          3       /* own address space, faults */
#define CTX_OTHER           4       /* physical, copy engine */
#define CTX_AFTER           5       /* physical, render engine */

/* Context 3's VA layout. */
#define VA_BUF              0x00100000ull   /* DMA buffers */
#define VA_SYNC             0x00200000ull   /* fence page */
#define VA_SURF             0x40000000ull   /* one row per 4 KiB page */
#define VA_HOLE             (VA_SURF + 0x200000ull)   /* no leaf table */

#define SURF_W              (PG / 4)        /* XRGB8888: a row is a page */
#define SURF_H              8u
#define MISSING_ROW         5u
#define DRAW_COLOUR         0xff30c050u
#define AFTER_COLOUR        0xff5050ffu
#define OTHER_PATTERN       0x07e407e4u
#define OTHER_BYTES         (64u * 1024)

struct pf_metrics {
    unsigned faults_reported, retries, resets;
    uint64_t stat_faults[2];
    uint64_t fault_addr[2];
    uint32_t fault_info[2];
    uint64_t completed[2];
};

struct pf_env {
    struct report *r;
    struct copro_cp *cp;
    struct copro_vm vm;
    struct copro_as as;
    uint64_t bufs;                  /* 4 DMA-buffer pages, VRAM */
    uint64_t sync;                  /* fence page, VRAM */
    uint64_t rows;                  /* SURF_H row pages, VRAM */
    uint64_t other;                 /* context 4's area, VRAM */
    uint64_t phys_bufs;             /* physical contexts' buffers */
    unsigned next_phys;
};

struct want_fault {
    uint32_t kind;
    uint64_t addr;
    uint32_t info;
    uint32_t offset;
    uint64_t fence;
    uint32_t context;
};

/* Checks what the DPC recorded against what the driver expected. */
static void check_fault(struct report *r, struct copro_cp *cp,
                        const struct want_fault *w, struct pf_metrics *m,
                        unsigned n)
{
    const struct copro_engine *eng = &cp->eng[0];
    const struct copro_fault *f = &eng->fault;
    uint32_t state = copro_read32(cp->dev, COPRO_ENG_BASE(0) +
                                  COPRO_ENG_STATE);

    report(r, eng->halted && f->kind == w->kind && f->cause ==
           COPRO_INT_FAULT, "DPC: %s fault through the FAULT cause "
           "(causes %#x, expected %s)", copro_fault_kind_name(f->kind),
           f->cause, copro_fault_kind_name(w->kind));
    report(r, f->addr == w->addr, "fault address %#lx (expected %#lx)",
           f->addr, w->addr);
    report(r, f->context == w->context && f->fence == w->fence &&
           f->offset == w->offset, "fault names context %u, fence %lu, "
           "packet +%u (expected %u, %lu, +%u)", f->context, f->fence,
           f->offset, w->context, w->fence, w->offset);
    report(r, f->info == w->info, "FAULT_INFO %#x: %s%s level %u (expected "
           "%#x)", f->info, f->info & COPRO_FAULT_INFO_WRITE ? "write" :
           "read", f->info & COPRO_FAULT_INFO_VIRTUAL ? ", virtual," : ",",
           COPRO_FAULT_INFO_LEVEL(f->info), w->info);
    report(r, state == COPRO_ENG_STATE_HALTED, "render engine halted (STATE "
           "%u)", state);
    m->faults_reported++;
    m->fault_addr[n] = f->addr;
    m->fault_info[n] = f->info;
}

/* The expected fault, from the driver's own walk of its tables. */
static bool predict_fault(struct pf_env *env, uint64_t va,
                          struct want_fault *w, unsigned want_level)
{
    struct copro_pt_walk walk;

    copro_as_walk(&env->as, va, true, &walk);
    w->kind = walk.kind;
    w->info = walk.info;
    w->addr = va;
    w->context = CTX_FAULTY;
    return report(env->r, !walk.ok && walk.kind == COPRO_FAULT_PAGE &&
                  COPRO_FAULT_INFO_LEVEL(walk.info) == want_level,
                  "software walk predicts a PAGE fault at level %u for "
                  "%#lx (%s, level %u)", want_level, va,
                  walk.ok ? "maps" : copro_fault_kind_name(walk.kind),
                  COPRO_FAULT_INFO_LEVEL(walk.info));
}

static bool setup(struct pf_env *env)
{
    struct copro_cp *cp = env->cp;
    const char *err = copro_vm_init(&env->vm, cp, 16, 16);
    volatile uint8_t *other;

    if (!report(env->r, err == NULL, "context table and page-table pool%s%s",
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    other = copro_cp_alloc(cp, OTHER_BYTES, PG, &env->other);
    if (!report(env->r, other &&
                copro_cp_alloc(cp, 4 * PG, PG, &env->bufs) &&
                copro_cp_alloc(cp, PG, PG, &env->sync) &&
                copro_cp_alloc(cp, SURF_H * PG, PG, &env->rows) &&
                copro_cp_alloc(cp, 8 * 256, 256, &env->phys_bufs),
                "VRAM allocated")) {
        return false;
    }
    for (uint32_t i = 0; i < SURF_H * PG; i++) {
        copro_cp_cpu_ptr(cp, env->rows)[i] = 0;
    }
    for (uint32_t i = 0; i < OTHER_BYTES; i++) {
        other[i] = 0;
    }
    err = copro_as_create(&env->vm, &env->as, CTX_FAULTY);
    if (!err) {
        err = copro_as_map(&env->as, VA_BUF, env->bufs, 4 * PG, 0, PG);
    }
    if (!err) {
        err = copro_as_map(&env->as, VA_SYNC, env->sync, PG,
                           COPRO_PTE_WRITABLE, PG);
    }
    /* Every row page but MISSING_ROW. */
    for (uint32_t y = 0; y < SURF_H && !err; y++) {
        if (y != MISSING_ROW) {
            err = copro_as_map(&env->as, VA_SURF + y * PG,
                               env->rows + y * PG, PG, COPRO_PTE_WRITABLE,
                               PG);
        }
    }
    return report(env->r, err == NULL, "context %u: buffers, fence page and "
                  "surface mapped, row %u left out%s%s", CTX_FAULTY,
                  MISSING_ROW, err ? ": " : "", err ? err : "");
}

/* Context 3's buffer k (VRAM page k, executed at its VA). */
static void va_buffer(struct pf_env *env, struct copro_dmabuf *b,
                      unsigned k)
{
    copro_dmabuf_init(b, (void *)copro_cp_cpu_ptr(env->cp,
                                                  env->bufs + k * PG),
                      VA_BUF + k * PG, PG);
}

/* A small physical buffer for contexts 4 and 5. */
static void phys_buffer(struct pf_env *env, struct copro_dmabuf *b)
{
    uint64_t at = env->phys_bufs + (env->next_phys++ % 8) * 256;

    copro_dmabuf_init(b, (void *)copro_cp_cpu_ptr(env->cp, at), at, 256);
}

/* Context 4 on the copy engine: FILL one 4 KiB block of its area. */
static uint64_t submit_other(struct pf_env *env, unsigned block)
{
    struct copro_dmabuf b;

    phys_buffer(env, &b);
    copro_emit_fill(&b, env->other + block * PG, PG,
                    OTHER_PATTERN + block);
    return copro_cp_submit(env->cp, 1, &b, CTX_OTHER, 0);
}

static void check_other(struct pf_env *env, unsigned block)
{
    const volatile uint32_t *p =
        (const volatile uint32_t *)copro_cp_cpu_ptr(env->cp,
                                                    env->other + block * PG);
    unsigned bad = 0;

    for (unsigned i = 0; i < PG / 4; i++) {
        bad += p[i] != OTHER_PATTERN + block;
    }
    report(env->r, bad == 0, "context %u's FILL landed while the render "
           "engine was halted (%u of %u dwords wrong)", CTX_OTHER, bad,
           PG / 4);
}

static const struct copro_surface surface = {
    .addr = VA_SURF, .pitch = PG, .width = SURF_W, .height = SURF_H,
    .format = COPRO_FMT_XRGB8888,
};

/* Counts the pixels of the row pages that do not hold colour. */
static unsigned rows_not(struct pf_env *env, uint32_t colour)
{
    const volatile uint32_t *p =
        (const volatile uint32_t *)copro_cp_cpu_ptr(env->cp, env->rows);
    unsigned bad = 0;

    for (unsigned i = 0; i < SURF_H * PG / 4; i++) {
        bad += p[i] != colour;
    }
    return bad;
}

static void run_retry(struct pf_env *env, struct pf_metrics *m)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    struct copro_dmabuf draw, behind;
    struct want_fault w;
    uint64_t fdraw, fbehind, fother;
    uint32_t rect_off;
    const char *err;

    report_info("-- case 1: missing leaf entry, recovery by RETRY");
    if (!predict_fault(env, VA_SURF + MISSING_ROW * PG, &w, 0)) {
        return;
    }
    va_buffer(env, &draw, 0);
    copro_emit_set_target(&draw, 0, &surface);
    rect_off = copro_emit_rect(&draw, 0, 0, 0, SURF_W, SURF_H, DRAW_COLOUR);
    copro_emit_fence(&draw, VA_SYNC, 1, false);
    va_buffer(env, &behind, 1);
    copro_emit_fence(&behind, VA_SYNC + 8, 2, false);
    if (!report(r, copro_dmabuf_ok(&draw) && copro_dmabuf_ok(&behind),
                "draw and the buffer behind it built")) {
        return;
    }
    vram_write64(cp, env->sync, 0);
    vram_write64(cp, env->sync + 8, 0);

    fdraw = copro_cp_submit(cp, 0, &draw, CTX_FAULTY, 0);
    fbehind = copro_cp_submit(cp, 0, &behind, CTX_FAULTY, 0);
    check_fence_wait(r, cp, 0, fdraw, COPRO_WAIT_FAULT, "draw over the "
                     "missing page");
    w.offset = rect_off;
    w.fence = fdraw;
    check_fault(r, cp, &w, m, 0);

    fother = submit_other(env, 0);
    check_fence_wait(r, cp, 1, fother, COPRO_WAIT_DONE, "context 4 on the "
                     "copy engine during the fault");
    check_other(env, 0);
    report(r, copro_cp_wait_fence(cp, 0, fbehind, 0, NULL) ==
           COPRO_WAIT_FAULT, "the buffer behind the draw waits on the "
           "halted engine");

    /* Fix: map the page, invalidate the context, retry the step. */
    err = copro_as_map(&env->as, VA_SURF + MISSING_ROW * PG,
                       env->rows + MISSING_ROW * PG, PG, COPRO_PTE_WRITABLE,
                       PG);
    copro_vm_invalidate(&env->vm, CTX_FAULTY);
    report(r, err == NULL && copro_cp_engine_retry(cp, 0), "page mapped, "
           "context invalidated, RETRY written%s%s", err ? ": " : "",
           err ? err : "");
    m->retries++;
    check_fence_wait(r, cp, 0, fdraw, COPRO_WAIT_DONE, "the draw after "
                     "RETRY");
    check_fence_wait(r, cp, 0, fbehind, COPRO_WAIT_DONE, "the buffer behind "
                     "it (not lost by the retry)");
    report(r, vram_read64(cp, env->sync) == 1 &&
           vram_read64(cp, env->sync + 8) == 2, "both buffers' FENCEs "
           "written (%lu, %lu)", vram_read64(cp, env->sync),
           vram_read64(cp, env->sync + 8));
    report(r, rows_not(env, DRAW_COLOUR) == 0, "whole surface drawn, the "
           "retried row included (%u pixels wrong)",
           rows_not(env, DRAW_COLOUR));
}

static void run_reset(struct pf_env *env, struct pf_metrics *m)
{
    const struct copro_surface hole = {
        .addr = VA_HOLE, .pitch = PG, .width = 64, .height = 4,
        .format = COPRO_FMT_XRGB8888,
    };
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    struct copro_dmabuf draw, behind, after;
    struct copro_reset_report rep;
    struct want_fault w;
    uint64_t fdraw, fbehind, fother, fafter, fagain, prev;
    uint32_t rect_off;

    report_info("-- case 2: missing leaf table, recovery by engine reset");
    /* RECT row 1 starts at x = 8: the first byte written is the fault. */
    if (!predict_fault(env, VA_HOLE + PG + 8 * 4, &w, 1)) {
        return;
    }
    va_buffer(env, &draw, 2);
    copro_emit_set_target(&draw, 1, &hole);
    rect_off = copro_emit_rect(&draw, 1, 8, 1, 16, 2, DRAW_COLOUR);
    va_buffer(env, &behind, 3);
    copro_emit_fence(&behind, VA_SYNC + 16, 3, false);
    phys_buffer(env, &after);
    copro_emit_set_target(&after, 0, &(struct copro_surface){
        .addr = env->rows, .pitch = PG, .width = SURF_W, .height = SURF_H,
        .format = COPRO_FMT_XRGB8888 });
    copro_emit_rect(&after, 0, 0, 0, SURF_W, SURF_H, AFTER_COLOUR);
    if (!report(r, copro_dmabuf_ok(&draw) && copro_dmabuf_ok(&behind) &&
                copro_dmabuf_ok(&after), "buffers built")) {
        return;
    }
    vram_write64(cp, env->sync + 16, 0);

    prev = cp->eng[0].completed;
    fdraw = copro_cp_submit(cp, 0, &draw, CTX_FAULTY, 0);
    fbehind = copro_cp_submit(cp, 0, &behind, CTX_FAULTY, 0);
    check_fence_wait(r, cp, 0, fdraw, COPRO_WAIT_FAULT, "draw into the "
                     "unmapped region");
    w.offset = rect_off;
    w.fence = fdraw;
    check_fault(r, cp, &w, m, 1);

    fother = submit_other(env, 1);
    check_fence_wait(r, cp, 1, fother, COPRO_WAIT_DONE, "context 4 on the "
                     "copy engine during the fault");
    check_other(env, 1);

    copro_cp_engine_reset(cp, 0, &rep);
    m->resets++;
    report(r, rep.aborted_fence == fdraw && rep.completed_fence == prev &&
           rep.state == COPRO_ENG_STATE_IDLE, "engine reset: ABORTED_FENCE "
           "%lu, COMPLETED_FENCE %lu, STATE %u (expected %lu, %lu, idle)",
           rep.aborted_fence, rep.completed_fence, rep.state, fdraw, prev);
    report(r, copro_cp_wait_fence(cp, 0, fbehind, 0, NULL) ==
           COPRO_WAIT_ABORTED && vram_read64(cp, env->sync + 16) == 0,
           "the buffer behind the draw was dropped, not run");

    fafter = copro_cp_submit(cp, 0, &after, CTX_AFTER, 0);
    fagain = copro_cp_submit(cp, 0, &behind, CTX_FAULTY, 0);
    check_fence_wait(r, cp, 0, fafter, COPRO_WAIT_DONE, "context 5 on the "
                     "render engine after the reset");
    check_fence_wait(r, cp, 0, fagain, COPRO_WAIT_DONE, "context 3's "
                     "dropped buffer, resubmitted");
    report(r, rows_not(env, AFTER_COLOUR) == 0 &&
           vram_read64(cp, env->sync + 16) == 3, "their results: surface "
           "redrawn (%u pixels wrong), fence %lu", rows_not(env,
           AFTER_COLOUR), vram_read64(cp, env->sync + 16));
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    static struct pf_env env;
    struct report r = { 0 };
    struct pf_metrics m = { 0 };

    report_info("copro pagefault scenario, command line: \"%s\"",
                boot->cmdline);
    env.r = &r;
    env.cp = &cp;
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES) &&
        report(&r, cp.num_engines >= 2, "two engines (%u)",
               cp.num_engines) &&
        setup(&env)) {
        run_retry(&env, &m);
        run_reset(&env, &m);
        for (unsigned e = 0; e < 2; e++) {
            struct engine_stats s;

            engine_stats_read(&cp, e, &s);
            m.stat_faults[e] = s.faults;
            m.completed[e] = cp.eng[e].completed;
        }
        report(&r, m.stat_faults[0] == 2 && m.stat_faults[1] == 0 &&
               copro_cp_cause_count(&cp.eng[0], COPRO_INT_FAULT) == 2 &&
               copro_cp_cause_count(&cp.eng[0], COPRO_INT_ERROR) == 0,
               "STAT_FAULTS %lu, %lu; FAULT causes %u (expected 2, 0; 2)",
               m.stat_faults[0], m.stat_faults[1],
               copro_cp_cause_count(&cp.eng[0], COPRO_INT_FAULT));
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
    }
    kprintf("METRICS {\"scenario\":\"pagefault\",\"irq_mode\":\"%s\","
            "\"faults_reported\":%u,\"retries\":%u,\"resets\":%u,"
            "\"fault_addr\":[%lu,%lu],\"fault_info\":[%u,%u],"
            "\"stat_faults\":[%lu,%lu],\"completed_fence\":[%lu,%lu],"
            "\"irqs\":%u,\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), m.faults_reported, m.retries,
            m.resets, m.fault_addr[0], m.fault_addr[1], m.fault_info[0],
            m.fault_info[1], m.stat_faults[0], m.stat_faults[1],
            m.completed[0], m.completed[1], dev.irq.count, r.tests,
            r.failures);
    return report_summary(&r);
}
