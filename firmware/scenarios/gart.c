/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gart: the GART aperture over system memory.
 *
 * 1. The driver sets up the GART and moves both engines' rings and fence
 *    write-back slots into system memory mapped through the aperture; the
 *    DMA buffers of the whole scenario live there too. A buffer that
 *    FILLs VRAM, writes a monitored FENCE and a TIMESTAMP into system
 *    memory checks the path: descriptors fetched, packets read, fence
 *    written back, all through GART entries.
 * 2. COPY in both directions between VRAM and an aperture window whose
 *    guest pages are scattered (mapped in reverse order), at an unaligned
 *    offset so every copy crosses pages: VRAM -> aperture is checked byte
 *    for byte in RAM page by page, aperture -> VRAM in VRAM.
 * 3. The window is remapped onto other guest pages and invalidated; the
 *    same COPYs must now reach the new pages only (the old ones keep the
 *    first data), and data the CPU writes into the new pages must come
 *    back through the aperture into VRAM.
 *
 * Command line: irq=auto|msix|msi|intx.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_gart.h"
#include "lib/console.h"
#include "lib/page_alloc.h"
#include "lib/string.h"
#include "scenarios/common.h"

#define RING_ENTRIES        8
#define GART_ENTRIES        4096u       /* 16 MiB of aperture */
#define PG                  4096u
#define WIN_PAGES           6u
#define COPY_OFFSET         50u         /* unaligned start in the window */
#define COPY_LEN            (WIN_PAGES * PG - 100u)
#define DMABUF_BYTES        4096u
#define FENCE_VALUE         ((uint64_t)0x4a52544147)   /* any 64-bit value */
#define FILL_PATTERN        0x5eed0f11u
#define FILL_BYTES          4096u
#define CONTEXT_RENDER      0x30
#define CONTEXT_COPY        0x31

/* Expected contents, kept off the stack. */
static uint8_t data_a[COPY_LEN], data_b[COPY_LEN], data_c[COPY_LEN];

struct gart_metrics {
    uint64_t fences[2];
    uint64_t bytes_copied;
    uint64_t tlb_hits, tlb_misses;
    uint64_t free_pages;
    unsigned remaps;
};

/* The scenario's system memory and the driver objects that use it. */
struct gart_env {
    struct report *r;
    struct copro_cp *cp;
    struct copro_gart gart;
    struct page_alloc pool;
    struct copro_sysmem ring[2], wb, bufs, sync;
    unsigned next_buf;
};

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* The next DMA buffer, in system memory behind the aperture. */
static struct copro_dmabuf *sys_dmabuf(struct gart_env *env,
                                       struct copro_dmabuf *b)
{
    unsigned k = env->next_buf++ % env->bufs.pages;

    copro_dmabuf_init(b, (uint8_t *)copro_sysmem_cpu(&env->bufs) + k * PG,
                      env->bufs.gpu + k * PG, DMABUF_BYTES);
    return b;
}

static bool setup_sysmem_rings(struct gart_env *env,
                               const struct boot_info *boot)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    const char *err;

    page_alloc_init(&env->pool, boot->free_start, boot->free_end);
    if (!report(r, page_alloc_free_pages(&env->pool) >= 256,
                "free RAM after the image: %#lx..%#lx (%lu pages)",
                boot->free_start, boot->free_end,
                page_alloc_free_pages(&env->pool))) {
        return false;
    }
    err = copro_gart_init(&env->gart, cp, GART_ENTRIES);
    if (!report(r, err == NULL, "GART: %u entries at VRAM %#lx, aperture at "
                "%#lx%s%s", env->gart.entries, env->gart.table,
                env->gart.aperture_base, err ? ": " : "", err ? err : "")) {
        return false;
    }
    err = NULL;
    for (unsigned e = 0; e < 2 && !err; e++) {
        err = copro_gart_map_sysmem(&env->gart, &env->pool,
                                    RING_ENTRIES * COPRO_DESC_SIZE,
                                    &env->ring[e]);
    }
    if (!err) {
        err = copro_gart_map_sysmem(&env->gart, &env->pool, PG, &env->wb);
    }
    if (!err) {
        err = copro_gart_map_sysmem(&env->gart, &env->pool, 8 * PG,
                                    &env->bufs);
    }
    if (!err) {
        err = copro_gart_map_sysmem(&env->gart, &env->pool, PG, &env->sync);
    }
    if (!report(r, err == NULL, "system memory mapped through the GART%s%s",
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    for (unsigned e = 0; e < 2 && !err; e++) {
        uint64_t *wb = (uint64_t *)copro_sysmem_cpu(&env->wb) + e;

        err = copro_cp_ring_move(cp, e, copro_sysmem_cpu(&env->ring[e]),
                                 env->ring[e].gpu, RING_ENTRIES, wb,
                                 env->wb.gpu + e * 8);
    }
    return report(r, err == NULL, "rings and fence write-back moved to the "
                  "aperture (engine 0 ring at %#lx, RING_BASE %#lx)%s%s",
                  env->ring[0].gpu,
                  copro_read64(cp->dev, COPRO_ENG_BASE(0) +
                               COPRO_ENG_RING_BASE),
                  err ? ": " : "", err ? err : "");
}

/* Phase 1: a buffer from system memory, results in VRAM and RAM. */
static void run_sysmem_submission(struct gart_env *env)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    volatile uint64_t *sync = copro_sysmem_cpu(&env->sync);
    volatile uint64_t *wb = copro_sysmem_cpu(&env->wb);
    struct copro_dmabuf b0, b1;
    uint8_t want[FILL_BYTES];
    volatile uint8_t *area;
    uint64_t area_gpu, f0, f1;

    area = copro_cp_alloc(cp, FILL_BYTES, PG, &area_gpu);
    if (!report(r, area != NULL, "VRAM result area allocated")) {
        return;
    }
    for (unsigned i = 0; i < FILL_BYTES; i++) {
        area[i] = 0;
        want[i] = (uint8_t)(FILL_PATTERN >> (8 * (i & 3)));
    }
    sync[0] = sync[1] = sync[2] = 0;
    sys_dmabuf(env, &b0);
    copro_emit_fill(&b0, area_gpu, FILL_BYTES, FILL_PATTERN);
    copro_emit_timestamp(&b0, env->sync.gpu + 8);
    copro_emit_fence(&b0, env->sync.gpu, FENCE_VALUE, true);
    sys_dmabuf(env, &b1);
    copro_emit_fence(&b1, env->sync.gpu + 16, FENCE_VALUE + 1, false);
    if (!report(r, copro_dmabuf_ok(&b0) && copro_dmabuf_ok(&b1),
                "buffers built in system memory at %#lx and %#lx",
                b0.gpu_addr, b1.gpu_addr)) {
        return;
    }
    f0 = copro_cp_submit(cp, 0, &b0, CONTEXT_RENDER, 0);
    f1 = copro_cp_submit(cp, 1, &b1, CONTEXT_COPY, 0);
    check_fence_wait(r, cp, 0, f0, COPRO_WAIT_DONE, "render buffer from "
                     "system memory");
    check_fence_wait(r, cp, 1, f1, COPRO_WAIT_DONE, "copy-engine buffer "
                     "from system memory");
    check_bytes(r, "FILL into VRAM by a buffer fetched through the "
                "aperture", area, want, FILL_BYTES);
    report(r, sync[0] == FENCE_VALUE && sync[2] == FENCE_VALUE + 1,
           "monitored fences in system memory: %#lx, %#lx (expected %#lx, "
           "%#lx)", sync[0], sync[2], FENCE_VALUE, FENCE_VALUE + 1);
    report(r, sync[1] != 0, "TIMESTAMP written to system memory (%lu)",
           sync[1]);
    report(r, f0 != 0 && wb[0] == f0 && f1 != 0 && wb[1] == f1,
           "fence write-back in system memory: %lu, %lu (expected %lu, %lu)",
           wb[0], wb[1], f0, f1);
    report(r, copro_cp_cause_count(&cp->eng[0], COPRO_INT_FENCE) == 1,
           "FENCE interrupt from the aperture fence (%u)",
           copro_cp_cause_count(&cp->eng[0], COPRO_INT_FENCE));
}

/*
 * An aperture window of WIN_PAGES entries and the guest pages behind it:
 * page[i] backs window page i.
 */
struct window {
    uint32_t first;
    uint64_t gpu;
    uint64_t page[WIN_PAGES];
};

static void window_map(struct gart_env *env, struct window *w,
                       const uint64_t *pages, bool reverse)
{
    for (unsigned i = 0; i < WIN_PAGES; i++) {
        w->page[i] = pages[reverse ? WIN_PAGES - 1 - i : i];
        copro_gart_set(&env->gart, w->first + i, w->page[i], true);
    }
    copro_gart_invalidate(&env->gart, w->first, WIN_PAGES);
}

/* Byte k of the copy as it must sit in RAM: window offset
 * COPY_OFFSET + k lands in the guest page backing that window page. */
static volatile uint8_t *window_byte(const struct window *w, uint64_t k)
{
    uint64_t off = COPY_OFFSET + k;

    return (volatile uint8_t *)(uintptr_t)(w->page[off / PG] + off % PG);
}

static bool check_window(struct report *r, const struct window *w,
                         const uint8_t *want, const char *what)
{
    uint64_t bad = 0, first = 0;

    for (uint64_t k = 0; k < COPY_LEN; k++) {
        if (*window_byte(w, k) != want[k]) {
            first = bad ? first : k;
            bad++;
        }
    }
    if (!report(r, bad == 0, "%s: %lu of %u bytes differ in RAM", what,
                bad, COPY_LEN)) {
        report_info("  first: byte %lu, got %#04x, expected %#04x", first,
                    *window_byte(w, first), want[first]);
        return false;
    }
    return true;
}

/* VRAM -> window, then window -> VRAM dst; returns the fence. */
static uint64_t copy_round_trip(struct gart_env *env, const struct window *w,
                                uint64_t src, uint64_t dst)
{
    struct copro_dmabuf b;

    sys_dmabuf(env, &b);
    copro_emit_copy(&b, w->gpu + COPY_OFFSET, src, COPY_LEN);
    copro_emit_copy(&b, dst, w->gpu + COPY_OFFSET, COPY_LEN);
    return copro_cp_submit(env->cp, 0, &b, CONTEXT_RENDER, 0);
}

static void run_copies(struct gart_env *env, struct gart_metrics *m)
{
    struct report *r = env->r;
    struct copro_cp *cp = env->cp;
    uint64_t pages_a[WIN_PAGES], pages_b[WIN_PAGES];
    uint64_t src, dst, base;
    volatile uint8_t *src_cpu, *dst_cpu;
    struct window w;
    struct copro_dmabuf b;
    uint64_t f;
    bool ok = true;

    for (unsigned i = 0; i < WIN_PAGES && ok; i++) {
        /* Two runs, so that A and B never share a page and B's are not
         * simply A's neighbours. */
        ok = page_alloc_pages(&env->pool, 1, 0, &pages_a[i]) &&
             page_alloc_pages(&env->pool, 1, 0, &pages_b[i]);
    }
    src_cpu = copro_cp_alloc(cp, WIN_PAGES * PG, PG, &src);
    dst_cpu = copro_cp_alloc(cp, WIN_PAGES * PG, PG, &dst);
    if (!report(r, ok && src_cpu && dst_cpu &&
                copro_gart_reserve(&env->gart, WIN_PAGES, &w.first),
                "window of %u aperture pages, guest pages and VRAM "
                "allocated", WIN_PAGES)) {
        return;
    }
    w.gpu = copro_gart_gpu(&env->gart, w.first);
    for (unsigned i = 0; i < WIN_PAGES; i++) {
        memset((void *)(uintptr_t)pages_a[i], 0, PG);
        memset((void *)(uintptr_t)pages_b[i], 0, PG);
    }
    fill_pattern(data_a, COPY_LEN, 1);
    fill_pattern(data_b, COPY_LEN, 2);
    fill_pattern(data_c, COPY_LEN, 3);

    /* A: the window backed by pages_a in reverse order. */
    window_map(env, &w, pages_a, true);
    for (uint64_t k = 0; k < COPY_LEN; k++) {
        src_cpu[k] = data_a[k];
        dst_cpu[k] = 0;
    }
    f = copy_round_trip(env, &w, src, dst);
    check_fence_wait(r, cp, 0, f, COPRO_WAIT_DONE, "COPY VRAM -> aperture "
                     "-> VRAM over reversed pages");
    check_window(r, &w, data_a, "VRAM -> aperture, scattered guest pages");
    check_bytes(r, "aperture -> VRAM", dst_cpu, data_a, COPY_LEN);
    m->bytes_copied += 2 * COPY_LEN;

    /* B: remap the same window onto pages_b, in order, and invalidate. */
    window_map(env, &w, pages_b, false);
    m->remaps++;
    for (uint64_t k = 0; k < COPY_LEN; k++) {
        src_cpu[k] = data_b[k];
        dst_cpu[k] = 0;
    }
    f = copy_round_trip(env, &w, src, dst);
    check_fence_wait(r, cp, 0, f, COPRO_WAIT_DONE, "COPY through the "
                     "remapped window");
    check_window(r, &w, data_b, "after remap + GART_INVAL: new pages hold "
                 "the new data");
    base = w.page[0];
    {
        /* The old pages must still hold A exactly: nothing went through
         * a stale translation. */
        struct window old = w;

        for (unsigned i = 0; i < WIN_PAGES; i++) {
            old.page[i] = pages_a[WIN_PAGES - 1 - i];
        }
        check_window(r, &old, data_a, "old pages untouched after the "
                     "remap");
    }
    check_bytes(r, "aperture -> VRAM after the remap", dst_cpu, data_b,
                COPY_LEN);
    m->bytes_copied += 2 * COPY_LEN;

    /* C: the CPU writes system memory, the GPU reads it into VRAM. */
    for (uint64_t k = 0; k < COPY_LEN; k++) {
        *window_byte(&w, k) = data_c[k];
        dst_cpu[k] = 0;
    }
    sys_dmabuf(env, &b);
    copro_emit_copy(&b, dst, w.gpu + COPY_OFFSET, COPY_LEN);
    f = copro_cp_submit(cp, 1, &b, CONTEXT_COPY, 0);
    check_fence_wait(r, cp, 1, f, COPRO_WAIT_DONE, "copy engine: CPU data "
                     "in system memory -> VRAM");
    check_bytes(r, "CPU-written system memory read through the aperture",
                dst_cpu, data_c, COPY_LEN);
    m->bytes_copied += COPY_LEN;
    report_info("window at %#lx, first page now %#lx", w.gpu, base);
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    static struct gart_env env;
    struct report r = { 0 };
    struct gart_metrics m = { 0 };

    report_info("copro gart scenario, command line: \"%s\"", boot->cmdline);
    env.r = &r;
    env.cp = &cp;
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES) &&
        report(&r, cp.num_engines >= 2, "two engines (%u)",
               cp.num_engines) &&
        report(&r, dev.info.caps & COPRO_CAP_GART, "device has a GART "
               "(aperture %lu MiB)", dev.info.aperture_size / MIB) &&
        setup_sysmem_rings(&env, boot)) {
        run_sysmem_submission(&env);
        run_copies(&env, &m);
        for (unsigned e = 0; e < 2; e++) {
            uint32_t base = COPRO_ENG_BASE(e);

            m.fences[e] = cp.eng[e].completed;
            m.tlb_hits += copro_read64(cp.dev, base +
                                       COPRO_ENG_STAT_TLB_HITS);
            m.tlb_misses += copro_read64(cp.dev, base +
                                         COPRO_ENG_STAT_TLB_MISSES);
        }
        report(&r, m.tlb_misses > 0 && m.tlb_hits > 0,
               "translation caches used: %lu hits, %lu misses",
               m.tlb_hits, m.tlb_misses);
        report(&r, cp.eng[0].faults == 0 && cp.eng[1].faults == 0,
               "no faults on either engine");
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
        m.free_pages = page_alloc_free_pages(&env.pool);
    }
    kprintf("METRICS {\"scenario\":\"gart\",\"irq_mode\":\"%s\","
            "\"fences_completed\":[%lu,%lu],\"bytes_copied\":%lu,"
            "\"remaps\":%u,\"tlb_hits\":%lu,\"tlb_misses\":%lu,"
            "\"free_pages\":%lu,\"irqs\":%u,\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), m.fences[0], m.fences[1],
            m.bytes_copied, m.remaps, m.tlb_hits, m.tlb_misses, m.free_pages,
            dev.irq.count, r.tests, r.failures);
    return report_summary(&r);
}
