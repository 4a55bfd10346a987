/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kboot.h"

#include <stddef.h>

#include <copro/copro_tiler.h>

#include "kernel/kdma.h"
#include "kernel/kmem.h"
#include "kmd/copro_bringup.h"
#include "lib/cmdline.h"
#include "lib/console.h"
#include "lib/idt.h"
#include "lib/string.h"

#define COPRO_VECTOR_BASE   IRQ_VEC_DEVICE_BASE

/* The ISR's hook (interrupts disabled): queue the miniport's DPC. */
static void queue_dpc(void *ctx)
{
    struct kboot *b = ctx;

    kqueue_push(&b->k.ev.dpc, &b->dpc);
}

static void run_dpc(void *arg)
{
    struct kboot *b = arg;
    uint64_t t0 = rdtsc(), dt;
    struct kcyc cy;

    kcyc_begin(&b->k, &cy);
    copro_ddi_dpc(&b->ddi);
    /* the miniport's part (progress, log, display) apart from vidsch's */
    b->k.stats.complete_cycles += kcyc_own(&b->k, &cy);
    dt = rdtsc() - t0;
    b->k.stats.dpcs++;
    b->k.stats.dpc_cycles += dt;
    b->k.stats.sched_cycles += dt;
}

static uint64_t cpu_cycles(void)
{
    return rdtsc();
}

static bool option_u64(struct report *r, const char *cmdline, const char *key,
                       uint64_t scale, uint64_t *out)
{
    uint64_t v;
    int got = cmdline_get_u64(cmdline, key, &v);

    if (got < 0 || (got > 0 && v > UINT64_MAX / scale)) {
        return report(r, false, "command line: %s= must be a decimal number",
                      key);
    }
    if (got > 0) {
        *out = v * scale;
    }
    return true;
}

bool kboot_sched_options(struct report *r, const char *cmdline,
                         struct vidsch_config *cfg)
{
    char arg[16];

    if (cmdline_get(cmdline, "policy", arg, sizeof(arg)) &&
        vidsch_policy_parse(arg, &cfg->policy) < 0) {
        return report(r, false, "command line: unknown policy=%s (fifo, "
                      "priority, quantum, joblist)", arg);
    }
    /* hwsched=1 [HwSchEnabled]: the device's scheduler makes every
     * switch; vidsch writes run lists (vidsch_hws.c) */
    if (cmdline_get(cmdline, "hwsched", arg, sizeof(arg))) {
        if (strcmp(arg, "0") && strcmp(arg, "1")) {
            return report(r, false, "command line: hwsched=%s (0 or 1)", arg);
        }
        cfg->hwsched = !strcmp(arg, "1");
    }
    /* hws_irq=CLASS: the lowest priority class whose queues interrupt at
     * every completion (the others are reaped at the next interrupt) */
    if (cmdline_get(cmdline, "hws_irq", arg, sizeof(arg))) {
        unsigned p = 0;

        while (p < VIDSCH_PRIO_COUNT &&
               strcmp(arg, vidsch_priority_name((enum vidsch_priority)p))) {
            p++;
        }
        if (p == VIDSCH_PRIO_COUNT) {
            return report(r, false, "command line: hws_irq=%s (IDLE, "
                          "BELOW_NORMAL, NORMAL, ABOVE_NORMAL, HIGH, "
                          "REALTIME)", arg);
        }
        cfg->hws_irq_prio = (enum vidsch_priority)p;
    }
    if (cfg->policy == VIDSCH_POLICY_JOBLIST && !cfg->hwsched) {
        return report(r, false, "command line: policy=joblist needs "
                      "hardware scheduling (hwsched=1): the job list is "
                      "handed to the device's scheduler at every vsync");
    }
    if (cmdline_has_flag(cmdline, "serial_prepare")) {
        cfg->serial_prepare = true;
    }
    /* fight_kib=N: eviction fighting's threshold, paging KiB per turn
     * (0: off), so a scenario runs with and without the avoidance */
    if (!option_u64(r, cmdline, "fight_kib", 1024, &cfg->fight_bytes) ||
        !option_u64(r, cmdline, "quantum_us", 1000, &cfg->quantum_ns) ||
        !option_u64(r, cmdline, "aging_ms", 1000000, &cfg->aging_ns) ||
        !option_u64(r, cmdline, "tdr_ms", 1000000, &cfg->tdr_timeout_ns) ||
        !option_u64(r, cmdline, "tdr_grace_ms", 1000000,
                    &cfg->tdr_grace_ns)) {
        return false;
    }
    /* fight_factor=N: turns while fighting last N quanta; 1 detects
     * fighting (counted) without avoiding it */
    {
        uint64_t f = cfg->fight_factor;

        if (!option_u64(r, cmdline, "fight_factor", 1, &f)) {
            return false;
        }
        if (f < 1 || f > 64) {
            return report(r, false, "command line: fight_factor=%lu "
                          "(1..64)", f);
        }
        cfg->fight_factor = (unsigned)f;
    }
    /* below these the watchdog would reset healthy engines (vidsch.h):
     * vidsch raises them, the console says so */
    if (cfg->tdr_timeout_ns < VIDSCH_TDR_TIMEOUT_MIN_NS) {
        kprintf("# tdr_ms=%lu is below the minimum: %lu ms\n",
                cfg->tdr_timeout_ns / 1000000,
                (uint64_t)(VIDSCH_TDR_TIMEOUT_MIN_NS / 1000000));
        cfg->tdr_timeout_ns = VIDSCH_TDR_TIMEOUT_MIN_NS;
    }
    if (cfg->tdr_grace_ns < VIDSCH_TDR_GRACE_MIN_NS) {
        kprintf("# tdr_grace_ms=%lu is below the minimum: %lu ms\n",
                cfg->tdr_grace_ns / 1000000,
                (uint64_t)(VIDSCH_TDR_GRACE_MIN_NS / 1000000));
        cfg->tdr_grace_ns = VIDSCH_TDR_GRACE_MIN_NS;
    }
    return true;
}

/* The aperture for vidmm: the GART and the kmd's pager behind the DDI's
 * build_paging_buffer. Before copro_ddi_take_segment (both take VRAM).
 * False (reported) only for a bad option; no aperture is fixed
 * placement, said so. */
static bool paging_setup(struct kboot *b, struct report *r,
                         const char *cmdline)
{
    uint64_t on = 1;
    const char *err;

    if (!option_u64(r, cmdline, "vidmm", 1, &on)) {
        return false;
    }
    b->paging = false;
    if (!on) {
        kprintf("# vidmm=0: fixed placement\n");
        return true;
    }
    err = copro_gart_init(&b->gart, &b->cp, KBOOT_GART_ENTRIES);
    if (!err) {
        err = copro_pager_init(&b->pager, &b->cp, &b->gart);
    }
    if (err) {
        kprintf("# no paging (%s): fixed placement\n", err);
        return true;
    }
    copro_ddi_attach_pager(&b->ddi, &b->pager);
    b->paging = true;
    if (b->gpuva_vram) {
        /* page tables from the driver's VRAM: before the OS's segment */
        err = copro_gpuva_init(&b->gpuva, &b->cp,
                               (uint64_t)b->gart.entries *
                               COPRO_GPU_PAGE_SIZE);
        if (!report(r, err == NULL, "GPU-VA mode: context table, page-"
                    "table pool, PTE staging ring%s%s", err ? ": " : "",
                    err ? err : "")) {
            return false;
        }
        copro_ddi_attach_gpuva(&b->ddi, &b->gpuva);
    }
    return report(r, true, "aperture for vidmm: GART of %u entries (%lu "
                  "MiB at %#lx), pager attached", b->gart.entries,
                  ((uint64_t)b->gart.entries * COPRO_GPU_PAGE_SIZE) >> 20,
                  b->gart.aperture_base);
}

/* vidmm's configuration: the backing store from free RAM, the kernel's
 * part of the segment. False (reported) if it cannot be had. */
/* The engine that runs paging buffers: the copy engine, or on a device
 * with one engine the render engine, which runs every packet (the
 * spec's "Engines"); vidsch puts paging buffers on a ring before any
 * DMA buffer and never preempts them, on whichever engine. */
static unsigned paging_engine(const struct kboot *b)
{
    return b->cp.num_engines > COPRO_ENGINE_COPY ? COPRO_ENGINE_COPY
                                                 : COPRO_ENGINE_RENDER;
}

static bool vidmm_setup(struct kboot *b, struct report *r,
                        const char *cmdline, uint64_t seg_size,
                        struct kernel_vidmm_config *vc)
{
    uint64_t pool_mib = KBOOT_POOL_MIB, kbytes = seg_size / 8, bitmap;
    uint32_t pages;
    bool ok;

    if (kbytes < KBOOT_KERNEL_VRAM_MIN) {
        kbytes = KBOOT_KERNEL_VRAM_MIN;
    }
    if (!option_u64(r, cmdline, "pool_mib", 1, &pool_mib) ||
        !option_u64(r, cmdline, "kernel_vram_kib", 1024, &kbytes) ||
        !report(r, pool_mib >= 1 && pool_mib <= 1024 &&
                kbytes + (1u << 20) <= seg_size, "vidmm options: pool_mib="
                "%lu (1..1024), kernel_vram_kib=%lu (leaves >= 1 MiB of "
                "%lu KiB to vidmm)", pool_mib, kbytes >> 10, seg_size >> 10)) {
        return false;
    }
    /* GPU-VA mode's VRAM and paging buffers live in the kernel's part,
     * on top of what it keeps for itself */
    if (b->gpuva_vram) {
        kbytes += b->gpuva_vram + KGPUVA_MAX_PAGING * KGPUVA_PAGING_BYTES +
                  KGPUVA_MAX_PROCS * KGPUVA_DMA_BYTES;
        if (!report(r, kbytes + (1u << 20) <= seg_size, "GPU-VA mode: "
                    "%lu KiB more for the kernel's part", b->gpuva_vram >> 10)) {
            return false;
        }
    }
    pages = (uint32_t)(pool_mib << 20) / PAGE_ALLOC_PAGE;
    ok = page_alloc_pages(&b->ram, (PAGE_POOL_WORDS(pages) * 8 +
                                    PAGE_ALLOC_PAGE - 1) / PAGE_ALLOC_PAGE,
                          0, &bitmap) &&
         page_pool_carve(&b->pool, &b->ram, pages,
                         (uint64_t *)(uintptr_t)bitmap);
    if (!report(r, ok, "vidmm backing store: %lu MiB of RAM at %#lx; the "
                "kernel keeps %lu KiB of VRAM, vidmm gets %lu KiB",
                pool_mib, b->pool.base, kbytes >> 10,
                (seg_size - kbytes) >> 10)) {
        return false;
    }
    *vc = (struct kernel_vidmm_config){
        .kernel_bytes = kbytes,
        .aperture_base = b->gart.aperture_base,
        .aperture_size = (uint64_t)b->gart.entries * COPRO_GPU_PAGE_SIZE /
                         (b->gpuva_vram ? 2 : 1),
        .copy_engine = paging_engine(b),
        .pool = &b->pool,
    };
    return true;
}

bool kboot_start(struct kboot *b, struct report *r,
                 const struct boot_info *boot,
                 const struct vidsch_config *cfg)
{
    struct ddi_device ddi;
    struct kernel_vidmm_config vc;
    uint64_t seg_base = 0, seg_size = 0, arena, need;
    volatile uint8_t *seg_cpu = NULL;
    const char *err;
    bool ok;

    b->sched = *cfg;
    if (!copro_bringup(r, boot->cmdline, COPRO_VECTOR_BASE, &b->dev, &b->cp,
                       KBOOT_RING_ENTRIES)) {
        return false;
    }
    copro_ddi_init(&b->ddi, &b->cp);
    if (b->display.width) {
        /* after copro_cp_init, which rewrote INT_MASK */
        err = copro_display_init(&b->disp, &b->dev);
        if (!report(r, err == NULL, "display block taken over: %u Hz%s%s",
                    b->disp.refresh, err ? ": " : "", err ? err : "")) {
            return false;
        }
        copro_ddi_attach_display(&b->ddi, &b->disp);
    }
    if (!paging_setup(b, r, boot->cmdline)) {
        return false;
    }
    if (cfg->hwsched) {
        /* its VRAM before the OS's segment takes the rest */
        err = copro_hwq_init(&b->hwq, &b->cp, b->display.width
                             ? 1000000000ull / b->disp.refresh : 0);
        if (!report(r, err == NULL, "hardware scheduling (hwsched=1): %u "
                    "queues of %u entries, doorbells, run lists, a log of "
                    "%u entries%s%s", COPRO_HWQ_MAX, COPRO_HWQ_RING,
                    COPRO_HWQ_LOG_ENTRIES, err ? ": " : "", err ? err : "")) {
            return false;
        }
        copro_ddi_attach_hwq(&b->ddi, &b->hwq);
    }
    ddi = copro_ddi_device(&b->ddi);
    ok = copro_ddi_take_segment(&b->ddi, &seg_base, &seg_size, &seg_cpu);
    if (!report(r, ok, "VRAM segment for the OS: %lu KiB at %#lx",
                seg_size >> 10, seg_base)) {
        return false;
    }
    /* The scheduler's tables come from free RAM: the firmware has no
     * heap, and their size is the scheduler's business. */
    page_alloc_init(&b->ram, boot->free_start, boot->free_end);
    if (b->paging &&
        !vidmm_setup(b, r, boot->cmdline, seg_size, &vc)) {
        return false;
    }
    need = kernel_arena_bytes(b->paging ? &vc : NULL);
    ok = page_alloc_pages(&b->ram, (need + PAGE_ALLOC_PAGE - 1) /
                                   PAGE_ALLOC_PAGE, 0, &arena);
    if (!report(r, ok,
                "scheduler and vidmm storage: %lu KiB of RAM",
                need >> 10)) {
        return false;
    }
    err = kernel_init(&b->k, &ddi, seg_base, seg_size, seg_cpu, cfg,
                      b->paging ? &vc : NULL, (void *)(uintptr_t)arena,
                      need);
    if (!report(r, err == NULL, "kernel up: policy %s, quantum %lu us%s%s",
                vidsch_policy_name(cfg->policy), cfg->quantum_ns / 1000,
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    if (b->gpuva_vram) {
        uint64_t half = (uint64_t)b->gart.entries * COPRO_GPU_PAGE_SIZE / 2;
        const struct kgpuva_config gc = {
            .vram_bytes = b->gpuva_vram,
            .aperture_base = b->gart.aperture_base + half,
            .aperture_size = half,
            /* above any VRAM offset: the OS's VRAM is at identity */
            .va_base = 1ull << 32, .va_size = 1ull << 32,
            .copy_engine = paging_engine(b), .pool = &b->pool,
        };

        err = b->paging ? kernel_gpuva_start(&b->k, &gc)
                        : "no paging (vidmm=0 or no aperture)";
        if (!report(r, err == NULL, "GPU-VA mode: %lu KiB of VRAM for "
                    "residency, %lu MiB of aperture%s%s",
                    b->gpuva_vram >> 10, half >> 20, err ? ": " : "",
                    err ? err : "")) {
            return false;
        }
    }
    /* split=schedule|upfront|both: when a DMA buffer whose list does
     * not fit VRAM is split (kmem.h) */
    {
        char arg[16];
        unsigned p = KMEM_SPLIT_SCHEDULE;

        if (cmdline_get(boot->cmdline, "split", arg, sizeof(arg))) {
            while (p <= KMEM_SPLIT_BOTH &&
                   strcmp(arg, kmem_split_policy_name(p))) {
                p++;
            }
            if (p > KMEM_SPLIT_BOTH) {
                return report(r, false, "command line: split=%s (schedule, "
                              "upfront, both)", arg);
            }
        }
        b->k.split_policy = p;
    }
    /* dmabuf=kernel|aperture|vram: where DMA buffers live by default
     * (kdma.h) */
    {
        char arg[16];
        unsigned p = KAPI_DMA_KERNEL;

        if (cmdline_get(boot->cmdline, "dmabuf", arg, sizeof(arg))) {
            while (p < KAPI_DMA_PLACEMENTS &&
                   strcmp(arg, kdma_placement_name(p))) {
                p++;
            }
            if (p >= KAPI_DMA_PLACEMENTS) {
                return report(r, false, "command line: dmabuf=%s (kernel, "
                              "aperture, vram)", arg);
            }
            if (p != KAPI_DMA_KERNEL && !b->k.vm) {
                return report(r, false, "command line: dmabuf=%s needs "
                              "vidmm's packet-based mode", arg);
            }
        }
        b->k.dma_placement = p;
    }
    kitem_init(&b->dpc, run_dpc, b);
    b->k.cycles = cpu_cycles;
    /* irq_demand=0: completion interrupts always on (hardware mode); by
     * default on only while someone waits for the GPU (kernel.h) */
    {
        uint64_t demand = 1;

        if (!option_u64(r, boot->cmdline, "irq_demand", 1, &demand)) {
            return false;
        }
        b->k.irq_demand = demand != 0;
        b->k.irq_on = true;     /* copro_cp_init unmasked DMA_DONE */
    }
    copro_ddi_set_upcalls(&b->ddi, &kernel_upcalls, &b->k);
    if (b->display.width) {
        err = kdisplay_start(&b->k, 0, b->display.width, b->display.height);
        if (!report(r, err == NULL, "display source 0: %ux%u XRGB8888, "
                    "black until the first present%s%s", b->display.width,
                    b->display.height, err ? ": " : "", err ? err : "")) {
            return false;
        }
    }
    /* Last: from here an interrupt queues the DPC. */
    b->dev.queue_dpc_ctx = b;
    b->dev.queue_dpc = queue_dpc;
    if (b->dev.irq.pending) {
        queue_dpc(b);
    }
    return true;
}

uint64_t kboot_engine_busy_ns(const struct kboot *b, unsigned e)
{
    if (e >= b->cp.num_engines) {
        return 0;
    }
    return copro_read64(&b->dev, COPRO_ENG_BASE(e) + COPRO_ENG_STAT_BUSY_NS);
}

void kboot_engine_mem_bytes(const struct kboot *b, unsigned e,
                            uint64_t *read, uint64_t *write)
{
    *read = *write = 0;
    if (e < b->cp.num_engines) {
        *read = copro_read64(&b->dev, COPRO_ENG_BASE(e) +
                             COPRO_ENG_STAT_MEM_READ);
        *write = copro_read64(&b->dev, COPRO_ENG_BASE(e) +
                              COPRO_ENG_STAT_MEM_WRITE);
    }
}

uint64_t kboot_interrupts(const struct kboot *b)
{
    return b->dev.irq.count;
}
