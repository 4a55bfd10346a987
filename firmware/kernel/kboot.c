/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kboot.h"

#include <stddef.h>

#include "kmd/copro_bringup.h"
#include "lib/cmdline.h"
#include "lib/idt.h"

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

    copro_ddi_dpc(&b->ddi);
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
                      "priority, quantum)", arg);
    }
    if (cmdline_has_flag(cmdline, "serial_prepare")) {
        cfg->serial_prepare = true;
    }
    /* fight_kib=N: eviction fighting's threshold, paging KiB per turn
     * (0: off), so a scenario runs with and without the avoidance */
    return option_u64(r, cmdline, "fight_kib", 1024, &cfg->fight_bytes) &&
           option_u64(r, cmdline, "quantum_us", 1000, &cfg->quantum_ns) &&
           option_u64(r, cmdline, "aging_ms", 1000000, &cfg->aging_ns) &&
           option_u64(r, cmdline, "tdr_ms", 1000000, &cfg->tdr_timeout_ns) &&
           option_u64(r, cmdline, "tdr_grace_ms", 1000000,
                      &cfg->tdr_grace_ns);
}

bool kboot_start(struct kboot *b, struct report *r,
                 const struct boot_info *boot,
                 const struct vidsch_config *cfg)
{
    struct ddi_device ddi;
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
    ddi = copro_ddi_device(&b->ddi);
    ok = copro_ddi_take_segment(&b->ddi, &seg_base, &seg_size, &seg_cpu);
    if (!report(r, ok, "VRAM segment for the OS: %lu KiB at %#lx",
                seg_size >> 10, seg_base)) {
        return false;
    }
    /* The scheduler's tables come from free RAM: the firmware has no
     * heap, and their size is the scheduler's business. */
    page_alloc_init(&b->ram, boot->free_start, boot->free_end);
    need = kernel_arena_bytes();
    ok = page_alloc_pages(&b->ram, (need + PAGE_ALLOC_PAGE - 1) /
                                   PAGE_ALLOC_PAGE, 0, &arena);
    if (!report(r, ok,
                "scheduler storage: %lu KiB of RAM", need >> 10)) {
        return false;
    }
    err = kernel_init(&b->k, &ddi, seg_base, seg_size, seg_cpu, cfg,
                      (void *)(uintptr_t)arena, need);
    if (!report(r, err == NULL, "kernel up: policy %s, quantum %lu us%s%s",
                vidsch_policy_name(cfg->policy), cfg->quantum_ns / 1000,
                err ? ": " : "", err ? err : "")) {
        return false;
    }
    kitem_init(&b->dpc, run_dpc, b);
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

uint64_t kboot_interrupts(const struct kboot *b)
{
    return b->dev.irq.count;
}
