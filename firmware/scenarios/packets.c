/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packets: every packet type on the engine that supports it, results
 * checked byte for byte from the CPU.
 *
 * Each engine gets a result arena in VRAM that the CPU first fills with a
 * background pattern, and a mirror of it in RAM to which the scenario
 * applies the expected effect of every COPY, FILL and RECT it submits.
 * After the buffers retire, the whole arena must equal the mirror: bytes
 * a packet should have written and bytes it should have left alone are
 * checked alike. Timestamps and fence values live outside the arenas and
 * are checked one by one.
 *
 * Engine 0 (render) runs every packet; engine 1 (copy/paging) only COPY,
 * FILL, FENCE, WAIT, TIMESTAMP and NOP, the set the device allows there.
 * A run of empty submissions then wraps both rings.
 *
 * Command line: irq=auto|msix|msi|intx.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "lib/console.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "scenarios/common.h"

#define RING_ENTRIES        4
#define ARENA_SIZE          (256u * 1024)
#define DMABUF_SIZE         4096
#define WORK_NS             (50 * US)
#define USER_DATA           0xfeed0001u
#define CONTEXT_RENDER      0x100
#define CONTEXT_COPY        0x101

/* Slots in the sync block (8 bytes each). */
enum {
    SLOT_TS_E0_START, SLOT_TS_E0_END, SLOT_TS_E1_START, SLOT_TS_E1_END,
    SLOT_FENCE_E0, SLOT_FENCE_E1, SLOT_WAIT_OBJ, SLOT_COUNT
};

#define FENCE_VALUE_E0      0x1122334455667788ull
#define FENCE_VALUE_E1      0x0102030405060708ull
/* The WAIT is satisfied only by the high dword: a 32-bit compare fails. */
#define WAIT_OBJ_VALUE      0x0000000200000000ull
#define WAIT_VALUE          0x0000000100000005ull

/* Per-engine expected arena contents. */
static uint8_t mirror[2][ARENA_SIZE];

struct arena {
    uint64_t gpu;
    volatile uint8_t *cpu;
    uint8_t *want;
    uint64_t bytes_written;     /* what STAT_BYTES should grow by */
};

static uint8_t background(unsigned engine, uint64_t off)
{
    return (uint8_t)(off * 7 + (off >> 9) + 0x3c + engine * 0x55);
}

static bool arena_init(struct copro_cp *cp, unsigned e, struct arena *a)
{
    a->cpu = copro_cp_alloc(cp, ARENA_SIZE, 4096, &a->gpu);
    a->want = mirror[e];
    a->bytes_written = 0;
    if (!a->cpu) {
        return false;
    }
    for (uint64_t off = 0; off < ARENA_SIZE; off++) {
        a->want[off] = background(e, off);
        a->cpu[off] = a->want[off];
    }
    return true;
}

/* The expected effect of each packet, applied to the mirror. */
static void model_copy(struct arena *a, uint64_t dst, uint64_t src,
                       uint64_t size)
{
    memmove(a->want + dst, a->want + src, size);
    a->bytes_written += size;
}

static void model_fill(struct arena *a, uint64_t dst, uint64_t size,
                       uint32_t pattern)
{
    for (uint64_t i = 0; i < size; i++) {
        a->want[dst + i] = (uint8_t)(pattern >> (8 * (i & 3)));
    }
    a->bytes_written += size;
}

/* RECT clips to the surface: [x, x + w) & [0, width), same for y. */
static void model_rect(struct arena *a, uint64_t surf_off,
                       const struct copro_surface *s, uint32_t x, uint32_t y,
                       uint32_t w, uint32_t h, uint32_t colour)
{
    uint32_t bpp = copro_fmt_bpp(s->format);
    uint64_t x1 = (uint64_t)x + w, y1 = (uint64_t)y + h;

    x1 = x1 < s->width ? x1 : s->width;
    y1 = y1 < s->height ? y1 : s->height;
    for (uint64_t row = y; row < y1; row++) {
        for (uint64_t col = x; col < x1; col++) {
            uint8_t *px = a->want + surf_off + row * s->pitch + col * bpp;
            for (uint32_t k = 0; k < bpp; k++) {
                px[k] = (uint8_t)(colour >> (8 * k));
            }
            a->bytes_written += bpp;
        }
    }
}

struct rect_case {
    unsigned slot;
    uint32_t x, y, w, h, colour;
};

/* Three surfaces, one per format, with pitches wider than a row so the
 * padding between rows is checked to stay untouched. */
static const struct {
    uint64_t off;
    struct copro_surface s;     /* addr filled in at run time */
} surfaces[] = {
    { 0x30000, { 0, 64, 61, 37, COPRO_FMT_R8 } },
    { 0x31000, { 0, 96, 40, 30, COPRO_FMT_RGB565 } },
    { 0x32000, { 0, 200, 48, 32, COPRO_FMT_XRGB8888 } },
};

static const struct rect_case rects[] = {
    { 0, 5, 3, 10, 4, 0x11223344 },         /* inside */
    { 0, 50, 30, 100, 100, 0xa5 },          /* clipped right and bottom */
    { 0, 61, 0, 5, 5, 0xee },               /* starts at the edge: nothing */
    { 1, 0, 0, 3, 2, 0x0000f81f },
    { 1, 38, 25, 10, 10, 0xffff07e0 },      /* clipped; high bytes unused */
    { 2, 10, 10, 5, 5, 0x00ff8040 },
    { 2, 45, 0, 0xffffffffu, 3, 0x12345678 },   /* width overflows */
    { 2, 0, 31, 2, 100, 0xcafef00d },       /* clipped at the bottom */
};

/* Engine 0: every packet type. Returns whether all of it fit. */
static bool build_render(struct copro_dmabuf *b, struct arena *a,
                         uint64_t sync)
{
    struct copro_surface s[3];

    copro_emit_nop(b, 1);
    copro_emit_timestamp(b, sync + SLOT_TS_E0_START * 8);
    copro_emit_nop(b, 4);
    copro_emit_interrupt(b, USER_DATA);
    copro_emit_wait(b, sync + SLOT_WAIT_OBJ * 8, WAIT_VALUE);

    copro_emit_copy(b, a->gpu + 0x2001, a->gpu + 0x0003, 4099);
    model_copy(a, 0x2001, 0x0003, 4099);
    copro_emit_fill(b, a->gpu + 0x4004, 0x1800, 0xdeadbeef);
    model_fill(a, 0x4004, 0x1800, 0xdeadbeef);

    for (unsigned k = 0; k < 3; k++) {
        s[k] = surfaces[k].s;
        s[k].addr = a->gpu + surfaces[k].off;
        copro_emit_set_target(b, k, &s[k]);
    }
    for (unsigned k = 0; k < sizeof(rects) / sizeof(rects[0]); k++) {
        const struct rect_case *rc = &rects[k];
        copro_emit_rect(b, rc->slot, rc->x, rc->y, rc->w, rc->h, rc->colour);
        model_rect(a, surfaces[rc->slot].off, &s[rc->slot], rc->x, rc->y,
                   rc->w, rc->h, rc->colour);
    }

    copro_emit_work(b, WORK_NS);
    copro_emit_timestamp(b, sync + SLOT_TS_E0_END * 8);
    copro_emit_fence(b, sync + SLOT_FENCE_E0 * 8, FENCE_VALUE_E0, true);
    return copro_dmabuf_ok(b);
}

/* Engine 1: the copy engine's packets only. */
static bool build_copy(struct copro_dmabuf *b, struct arena *a,
                       uint64_t sync)
{
    copro_emit_nop(b, 1);
    copro_emit_timestamp(b, sync + SLOT_TS_E1_START * 8);
    copro_emit_wait(b, sync + SLOT_WAIT_OBJ * 8, WAIT_VALUE);
    /* More than one 64 KiB chunk, odd size, odd destination. */
    copro_emit_copy(b, a->gpu + 0x20003, a->gpu + 0x00000, 0x18001);
    model_copy(a, 0x20003, 0x00000, 0x18001);
    copro_emit_fill(b, a->gpu + 0x3c000, 0x1000, 0x0badf00d);
    model_fill(a, 0x3c000, 0x1000, 0x0badf00d);
    copro_emit_nop(b, 3);
    copro_emit_timestamp(b, sync + SLOT_TS_E1_END * 8);
    copro_emit_fence(b, sync + SLOT_FENCE_E1 * 8, FENCE_VALUE_E1, true);
    return copro_dmabuf_ok(b);
}

struct packets_metrics {
    uint64_t fences;
    uint64_t busy_ns[2];
    uint64_t ts[4];
    uint64_t bytes[2];
};

static void check_engine_result(struct report *r, struct copro_cp *cp,
                                unsigned e, uint64_t fence,
                                const struct copro_dmabuf *b,
                                const struct engine_stats *before,
                                const struct arena *a)
{
    struct copro_engine *eng = &cp->eng[e];
    struct engine_stats after;
    uint64_t reg = copro_read64(cp->dev, COPRO_ENG_BASE(e) +
                                COPRO_ENG_COMPLETED_FENCE);
    char what[48];

    report(r, eng->completed == fence && reg == fence,
           "engine %u: driver and COMPLETED_FENCE at %lu / %lu (submitted "
           "%lu)", e, eng->completed, reg, fence);
    report(r, *eng->fence_wb == fence, "engine %u: fence write-back slot "
           "holds %lu (expected %lu)", e, *eng->fence_wb, fence);
    report(r, copro_cp_cause_count(eng, COPRO_INT_DMA_DONE) == 1,
           "engine %u: one DMA_DONE interrupt (%u)", e,
           copro_cp_cause_count(eng, COPRO_INT_DMA_DONE));
    report(r, copro_cp_cause_count(eng, COPRO_INT_FENCE) == 1,
           "engine %u: one FENCE interrupt from the FENCE packet's IRQ flag "
           "(%u)", e, copro_cp_cause_count(eng, COPRO_INT_FENCE));
    report(r, !eng->halted && eng->faults == 0,
           "engine %u: no fault or error (%u, kind %s)", e, eng->faults,
           copro_fault_kind_name(eng->fault.kind));

    engine_stats_read(cp, e, &after);
    report(r, after.submissions - before->submissions == 1,
           "engine %u: STAT_SUBMISSIONS grew by %lu (expected 1)", e,
           after.submissions - before->submissions);
    report(r, after.packets - before->packets == b->packets,
           "engine %u: STAT_PACKETS grew by %lu (expected %u)", e,
           after.packets - before->packets, b->packets);
    report(r, after.bytes - before->bytes == a->bytes_written,
           "engine %u: STAT_BYTES grew by %lu (expected %lu from COPY, "
           "FILL, RECT)", e, after.bytes - before->bytes, a->bytes_written);
    ksnprintf(what, sizeof(what), "engine %u result arena (%u KiB)", e,
              ARENA_SIZE / 1024);
    check_bytes(r, what, a->cpu, a->want, ARENA_SIZE);
}

static void run_packets(struct report *r, struct copro_cp *cp,
                        struct packets_metrics *m)
{
    struct arena arena[2];
    struct copro_dmabuf buf[2];
    struct engine_stats before[2], after;
    uint64_t sync, fence[2], t_submit, t_done;
    volatile uint8_t *sync_cpu;
    bool ok, ok_copy;

    if (!report(r, cp->num_engines >= 2, "device has a render and a copy "
                "engine (%u engines)", cp->num_engines)) {
        return;
    }
    /* Arguments are evaluated before report() runs: do the work first. */
    sync_cpu = copro_cp_alloc(cp, SLOT_COUNT * 8, 64, &sync);
    ok = sync_cpu && arena_init(cp, 0, &arena[0]) &&
         arena_init(cp, 1, &arena[1]) &&
         copro_cp_dmabuf_alloc(cp, &buf[0], DMABUF_SIZE) &&
         copro_cp_dmabuf_alloc(cp, &buf[1], DMABUF_SIZE);
    if (!report(r, ok,
                "VRAM allocated: arenas, buffers, sync block (%lu KiB left)",
                copro_vram_free_bytes(&cp->vram) / 1024)) {
        return;
    }
    for (unsigned k = 0; k < SLOT_COUNT; k++) {
        vram_write64(cp, sync + k * 8, 0);
    }
    vram_write64(cp, sync + SLOT_WAIT_OBJ * 8, WAIT_OBJ_VALUE);

    ok = build_render(&buf[0], &arena[0], sync);
    ok_copy = build_copy(&buf[1], &arena[1], sync);
    if (!report(r, ok,
                "render buffer built: %u packets, %u bytes%s%s",
                buf[0].packets, copro_dmabuf_bytes(&buf[0]),
                buf[0].error ? ": " : "", buf[0].error ? buf[0].error : "") ||
        !report(r, ok_copy,
                "copy buffer built: %u packets, %u bytes%s%s",
                buf[1].packets, copro_dmabuf_bytes(&buf[1]),
                buf[1].error ? ": " : "", buf[1].error ? buf[1].error : "")) {
        return;
    }

    engine_stats_read(cp, 0, &before[0]);
    engine_stats_read(cp, 1, &before[1]);
    t_submit = copro_read64(cp->dev, COPRO_REG_GPU_TIME);
    fence[0] = copro_cp_submit(cp, 0, &buf[0], CONTEXT_RENDER, 0);
    fence[1] = copro_cp_submit(cp, 1, &buf[1], CONTEXT_COPY,
                               COPRO_SUBMIT_PAGING);
    report(r, fence[0] == 1 && fence[1] == 1, "first fences are 1 on each "
           "engine (%lu, %lu)", fence[0], fence[1]);
    check_fence_wait(r, cp, 0, fence[0], COPRO_WAIT_DONE, "render buffer");
    check_fence_wait(r, cp, 1, fence[1], COPRO_WAIT_DONE, "copy buffer");
    t_done = copro_read64(cp->dev, COPRO_REG_GPU_TIME);
    m->fences += 2;

    check_engine_result(r, cp, 0, fence[0], &buf[0], &before[0], &arena[0]);
    check_engine_result(r, cp, 1, fence[1], &buf[1], &before[1], &arena[1]);

    /* INTERRUPT: the USER cause and its payload. */
    report(r, copro_cp_cause_count(&cp->eng[0], COPRO_INT_USER) == 1 &&
           cp->eng[0].user_data == USER_DATA,
           "INTERRUPT: %u USER interrupt(s), USER_DATA %#x (expected 1, %#x)",
           copro_cp_cause_count(&cp->eng[0], COPRO_INT_USER),
           cp->eng[0].user_data, USER_DATA);
    report(r, copro_cp_cause_count(&cp->eng[1], COPRO_INT_USER) == 0,
           "no USER interrupt from the copy engine");

    /* FENCE packets' values; the WAIT object untouched. */
    report(r, vram_read64(cp, sync + SLOT_FENCE_E0 * 8) == FENCE_VALUE_E0 &&
           vram_read64(cp, sync + SLOT_FENCE_E1 * 8) == FENCE_VALUE_E1,
           "FENCE packets wrote %#lx and %#lx",
           vram_read64(cp, sync + SLOT_FENCE_E0 * 8),
           vram_read64(cp, sync + SLOT_FENCE_E1 * 8));
    report(r, vram_read64(cp, sync + SLOT_WAIT_OBJ * 8) == WAIT_OBJ_VALUE,
           "WAIT left its object alone (%#lx)",
           vram_read64(cp, sync + SLOT_WAIT_OBJ * 8));

    /* TIMESTAMPs: within the submit..done window, in order, and the
     * render engine's span covers its WORK. */
    for (unsigned k = 0; k < 4; k++) {
        m->ts[k] = vram_read64(cp, sync + (SLOT_TS_E0_START + k) * 8);
    }
    report(r, m->ts[0] >= t_submit && m->ts[1] <= t_done &&
           m->ts[2] >= t_submit && m->ts[3] <= t_done,
           "TIMESTAMPs %lu, %lu (render), %lu, %lu (copy) within GPU_TIME "
           "%lu..%lu", m->ts[0], m->ts[1], m->ts[2], m->ts[3], t_submit,
           t_done);
    report(r, m->ts[1] >= m->ts[0] + WORK_NS,
           "render TIMESTAMPs %lu ns apart, at least the WORK's %lu ns",
           m->ts[1] - m->ts[0], WORK_NS);
    report(r, m->ts[3] > m->ts[2], "copy TIMESTAMPs advance (%lu ns apart)",
           m->ts[3] - m->ts[2]);

    engine_stats_read(cp, 0, &after);
    m->busy_ns[0] = after.busy_ns - before[0].busy_ns;
    m->bytes[0] = after.bytes - before[0].bytes;
    report(r, m->busy_ns[0] >= WORK_NS, "render STAT_BUSY_NS grew by %lu ns "
           "(at least the WORK's %lu)", m->busy_ns[0], WORK_NS);
    engine_stats_read(cp, 1, &after);
    m->busy_ns[1] = after.busy_ns - before[1].busy_ns;
    m->bytes[1] = after.bytes - before[1].bytes;
    report(r, m->busy_ns[1] > 0, "copy STAT_BUSY_NS grew by %lu ns",
           m->busy_ns[1]);
}

/* Empty submissions (only a fence) around both rings, twice over. */
static void run_ring_wrap(struct report *r, struct copro_cp *cp,
                          struct packets_metrics *m)
{
    for (unsigned e = 0; e < 2; e++) {
        struct copro_engine *eng = &cp->eng[e];
        uint64_t first = eng->last_submitted + 1, fence = 0;
        unsigned n = 2 * eng->ring_entries + 1, done = 0;
        uint32_t tail;

        for (unsigned k = 0; k < n; k++) {
            fence = copro_cp_submit(cp, e, NULL, 0x200 + e, 0);
            if (fence != first + k ||
                copro_cp_wait_fence(cp, e, fence, FENCE_TIMEOUT_NS, NULL) !=
                    COPRO_WAIT_DONE) {
                break;
            }
            done++;
        }
        m->fences += done;
        tail = copro_read32(cp->dev, COPRO_ENG_BASE(e) + COPRO_ENG_RING_TAIL);
        report(r, done == n && eng->completed == first + n - 1 &&
               *eng->fence_wb == eng->completed,
               "engine %u: %u of %u empty submissions retired in order "
               "across the %u-entry ring (fences %lu..%lu, write-back %lu)",
               e, done, n, eng->ring_entries, first, eng->completed,
               *eng->fence_wb);
        report(r, tail == eng->tail && tail == (1 + n) % eng->ring_entries,
               "engine %u: RING_TAIL %u wrapped to the driver's %u", e, tail,
               eng->tail);
    }
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    struct report r = { 0 };
    struct packets_metrics m = { 0 };

    report_info("copro packets scenario, command line: \"%s\"",
                boot->cmdline);
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES)) {
        run_packets(&r, &cp, &m);
        run_ring_wrap(&r, &cp, &m);
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
    }
    kprintf("METRICS {\"scenario\":\"packets\",\"irq_mode\":\"%s\","
            "\"fences_completed\":%lu,\"irqs\":%u,"
            "\"busy_ns\":[%lu,%lu],\"bytes\":[%lu,%lu],"
            "\"ts_render\":[%lu,%lu],\"ts_copy\":[%lu,%lu],"
            "\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), m.fences, dev.irq.count,
            m.busy_ns[0], m.busy_ns[1], m.bytes[0], m.bytes[1], m.ts[0],
            m.ts[1], m.ts[2], m.ts[3], r.tests, r.failures);
    return report_summary(&r);
}
