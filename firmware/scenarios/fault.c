/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault: command errors, memory faults and recovery by engine reset.
 *
 * 1. ERROR path: on the render engine a retired buffer P, then a buffer A
 *    with valid packets followed by an unknown opcode (and a packet after
 *    it that must not run), then a buffer B queued behind A. The deferred
 *    handler must report ILLEGAL_OPCODE through the ERROR cause with A's
 *    packet offset, address, fence and context; meanwhile the copy engine
 *    keeps working. The engine reset must report A as aborted and P as
 *    completed, B must be dropped, and later submissions must run.
 * 2. FAULT path: a COPY to an address beyond VRAM on the copy engine (a
 *    write) and a WAIT on an unmapped address on the render engine (a
 *    read) must be TRANSLATION faults through the FAULT cause, with the
 *    failing address and the access direction; both engines recover.
 * 3. A fault found while the CPU halts: WORK, then a FILL beyond VRAM on
 *    the render engine, the CPU waiting in hlt. The device may run the
 *    FILL ahead of its time then (quiet-period batching, docs/specs/
 *    copro.rst "Emulation speed"); its FAULT must still come at the
 *    FILL's modelled time. METRICS gives the time waited
 *    (batched_fault_wait_ns), which the fault-batch test compares with
 *    the device's batching off and on.
 *
 * Command line: irq=auto|msix|msi|intx.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "lib/console.h"
#include "scenarios/common.h"

#define RING_ENTRIES        8
#define AREA_SIZE           8192u
#define BLOCK               256u    /* bytes each FILL writes */
#define ILLEGAL_OPCODE      0x7fu
#define CONTEXT_GOOD        0x21
#define CONTEXT_BAD         0xbad
#define CONTEXT_COPY        0x22

struct fault_metrics {
    uint64_t completed[2];      /* last retired fence per engine */
    unsigned faults_handled;
    unsigned resets;
    uint64_t busy_ns[2];
    uint64_t stat_faults[2];
    uint64_t batched_fault_wait_ns;
};

/* Expected contents of the area, one byte value per BLOCK (0: never
 * written). */
static void check_blocks(struct report *r, volatile const uint8_t *area,
                         const uint8_t *want, unsigned nblocks,
                         const char *what)
{
    unsigned bad_block = nblocks;
    uint8_t got = 0;

    for (unsigned k = 0; k < nblocks && bad_block == nblocks; k++) {
        for (unsigned i = 0; i < BLOCK; i++) {
            if (area[k * BLOCK + i] != want[k]) {
                bad_block = k;
                got = area[k * BLOCK + i];
                break;
            }
        }
    }
    report(r, bad_block == nblocks, "%s: %u blocks as expected%s", what,
           nblocks, bad_block == nblocks ? "" : " -- mismatch");
    if (bad_block != nblocks) {
        report_info("  block %u: got %#04x, expected %#04x", bad_block, got,
                    want[bad_block]);
    }
}

struct want_fault {
    uint32_t kind;
    uint32_t offset;
    uint64_t addr;
    uint64_t fence;
    uint32_t context;
    uint32_t info;
};

static void check_fault(struct report *r, struct copro_cp *cp, unsigned e,
                        const struct want_fault *w)
{
    const struct copro_engine *eng = &cp->eng[e];
    const struct copro_fault *f = &eng->fault;
    uint32_t want_cause = copro_fault_cause(w->kind);
    uint32_t state = copro_read32(cp->dev, COPRO_ENG_BASE(e) +
                                  COPRO_ENG_STATE);

    report(r, eng->halted && f->kind == w->kind,
           "engine %u: DPC recorded fault kind %s (expected %s)", e,
           copro_fault_kind_name(f->kind), copro_fault_kind_name(w->kind));
    report(r, f->cause == want_cause, "engine %u: reported through the %s "
           "cause (causes %#x)", e,
           want_cause == COPRO_INT_ERROR ? "ERROR" : "FAULT", f->cause);
    report(r, f->offset == w->offset && f->addr == w->addr,
           "engine %u: fault at packet offset %u, address %#lx (expected %u, "
           "%#lx)", e, f->offset, f->addr, w->offset, w->addr);
    report(r, f->fence == w->fence && f->context == w->context,
           "engine %u: fault names fence %lu context %#x (expected %lu, %#x)",
           e, f->fence, f->context, w->fence, w->context);
    report(r, f->info == w->info, "engine %u: FAULT_INFO %#x (expected %#x: "
           "%s)", e, f->info, w->info,
           w->info & COPRO_FAULT_INFO_WRITE ? "write" : "read");
    report(r, state == COPRO_ENG_STATE_HALTED, "engine %u: STATE halted "
           "(%u)", e, state);
}

/* Resets engine e and checks what it reports. */
static void check_reset(struct report *r, struct copro_cp *cp, unsigned e,
                        uint64_t want_aborted, uint64_t want_completed,
                        struct fault_metrics *m)
{
    struct copro_reset_report rep;
    uint32_t kind;

    copro_cp_engine_reset(cp, e, &rep);
    m->resets++;
    kind = copro_read32(cp->dev, COPRO_ENG_BASE(e) + COPRO_ENG_FAULT_KIND);
    report(r, rep.aborted_fence == want_aborted &&
           rep.completed_fence == want_completed,
           "engine %u reset: ABORTED_FENCE %lu, COMPLETED_FENCE %lu "
           "(expected %lu, %lu)", e, rep.aborted_fence, rep.completed_fence,
           want_aborted, want_completed);
    report(r, rep.state == COPRO_ENG_STATE_IDLE && kind == COPRO_FAULT_NONE,
           "engine %u after reset: STATE %u, FAULT_KIND %u (expected idle, "
           "none)", e, rep.state, kind);
}

/* A buffer with one FILL of block k in the area. */
static bool fill_buffer(struct copro_cp *cp, struct copro_dmabuf *b,
                        uint64_t area, unsigned k, uint8_t value)
{
    if (!copro_cp_dmabuf_alloc(cp, b, 256)) {
        return false;
    }
    copro_emit_fill(b, area + k * BLOCK, BLOCK, value * 0x01010101u);
    return copro_dmabuf_ok(b);
}

static void run_error_path(struct report *r, struct copro_cp *cp,
                           uint64_t area, volatile const uint8_t *area_cpu,
                           struct fault_metrics *m)
{
    const uint32_t bad_packet[] = { COPRO_PKT_HDR(ILLEGAL_OPCODE, 0, 1) };
    uint8_t want[8] = { 0 };
    struct copro_dmabuf p, a, b, c, d;
    uint64_t ts, fp, fa, fb, fc, fd;
    uint32_t bad_off;

    if (!report(r, fill_buffer(cp, &p, area, 0, 0x11) &&
                fill_buffer(cp, &b, area, 3, 0x44) &&
                fill_buffer(cp, &c, area, 4, 0x55) &&
                fill_buffer(cp, &d, area, 16, 0x66) &&
                copro_cp_dmabuf_alloc(cp, &a, 256) &&
                copro_cp_alloc(cp, 8, 8, &ts), "buffers allocated")) {
        return;
    }
    copro_emit_nop(&a, 2);
    copro_emit_fill(&a, area + 1 * BLOCK, BLOCK, 0x22222222);
    copro_emit_timestamp(&a, ts);
    bad_off = copro_emit_raw(&a, bad_packet, 1);
    copro_emit_fill(&a, area + 2 * BLOCK, BLOCK, 0x33333333);
    if (!report(r, copro_dmabuf_ok(&a), "faulting buffer built: illegal "
                "opcode %#x at offset %u", ILLEGAL_OPCODE, bad_off)) {
        return;
    }
    vram_write64(cp, ts, 0);

    fp = copro_cp_submit(cp, 0, &p, CONTEXT_GOOD, 0);
    check_fence_wait(r, cp, 0, fp, COPRO_WAIT_DONE, "buffer before the bad "
                     "one");
    want[0] = 0x11;

    fa = copro_cp_submit(cp, 0, &a, CONTEXT_BAD, 0);
    fb = copro_cp_submit(cp, 0, &b, CONTEXT_GOOD, 0);
    check_fence_wait(r, cp, 0, fa, COPRO_WAIT_FAULT, "buffer with an "
                     "illegal opcode");
    check_fault(r, cp, 0, &(struct want_fault){
        .kind = COPRO_FAULT_ILLEGAL_OPCODE, .offset = bad_off,
        .addr = a.gpu_addr + bad_off, .fence = fa, .context = CONTEXT_BAD,
    });
    m->faults_handled++;
    report(r, copro_cp_wait_fence(cp, 0, fb, 0, NULL) == COPRO_WAIT_FAULT,
           "the buffer queued behind it waits on the halted engine");
    report(r, vram_read64(cp, ts) != 0, "packets before the bad one ran "
           "(TIMESTAMP %lu)", vram_read64(cp, ts));

    /* The other engine is unaffected while engine 0 is halted. */
    fd = copro_cp_submit(cp, 1, &d, CONTEXT_COPY, 0);
    check_fence_wait(r, cp, 1, fd, COPRO_WAIT_DONE, "copy engine while the "
                     "render engine is halted");

    check_reset(r, cp, 0, fa, fp, m);
    report(r, copro_cp_wait_fence(cp, 0, fb, 0, NULL) == COPRO_WAIT_ABORTED,
           "the queued buffer (fence %lu) is reported as dropped", fb);

    want[1] = 0x22;     /* before the bad packet: stays */
    fc = copro_cp_submit(cp, 0, &c, CONTEXT_GOOD, 0);
    report(r, fc == fb + 1, "fence ids keep growing after the reset (%lu)",
           fc);
    check_fence_wait(r, cp, 0, fc, COPRO_WAIT_DONE, "render engine after "
                     "the reset");
    want[4] = 0x55;
    check_blocks(r, area_cpu, want, 8, "render results (kept before the "
                 "fault, nothing after it, queued buffer dropped, new one "
                 "ran)");
    {
        uint8_t w16 = 0x66;
        check_blocks(r, area_cpu + 16 * BLOCK, &w16, 1, "copy engine's "
                     "result");
    }
}

static void run_fault_path(struct report *r, struct copro_cp *cp,
                           uint64_t area, struct fault_metrics *m)
{
    uint64_t vram = cp->dev->info.vram_size;
    uint64_t beyond = vram + 0x1000;
    /* Between VRAM and the aperture nothing is mapped (the aperture
     * itself is the GART's business, with fault kinds of its own). */
    uint64_t unmapped = vram + 0x10000;
    struct copro_dmabuf cb, wb, ok0, ok1;
    uint64_t prev1, prev0, fcopy, fwait, f0, f1;
    uint32_t copy_off, wait_off;

    if (!report(r, copro_cp_dmabuf_alloc(cp, &cb, 128) &&
                copro_cp_dmabuf_alloc(cp, &wb, 128) &&
                fill_buffer(cp, &ok0, area, 5, 0x77) &&
                fill_buffer(cp, &ok1, area, 6, 0x88), "buffers allocated")) {
        return;
    }
    copro_emit_nop(&cb, 1);
    copro_emit_fill(&cb, area + 7 * BLOCK, BLOCK, 0x99999999);
    copy_off = copro_emit_copy(&cb, beyond, area, BLOCK);
    copro_emit_nop(&wb, 3);
    wait_off = copro_emit_wait(&wb, unmapped, 1);
    if (!report(r, copro_dmabuf_ok(&cb) && copro_dmabuf_ok(&wb),
                "faulting buffers built")) {
        return;
    }

    /* Copy engine: a write beyond VRAM. */
    prev1 = cp->eng[1].completed;
    fcopy = copro_cp_submit(cp, 1, &cb, CONTEXT_COPY, COPRO_SUBMIT_PAGING);
    check_fence_wait(r, cp, 1, fcopy, COPRO_WAIT_FAULT, "COPY beyond VRAM");
    check_fault(r, cp, 1, &(struct want_fault){
        .kind = COPRO_FAULT_TRANSLATION, .offset = copy_off, .addr = beyond,
        .fence = fcopy, .context = CONTEXT_COPY,
        .info = COPRO_FAULT_INFO_WRITE,
    });
    m->faults_handled++;

    /* Render engine: a read of an unmapped address. */
    prev0 = cp->eng[0].completed;
    fwait = copro_cp_submit(cp, 0, &wb, CONTEXT_BAD, 0);
    check_fence_wait(r, cp, 0, fwait, COPRO_WAIT_FAULT, "WAIT on an "
                     "unmapped address");
    check_fault(r, cp, 0, &(struct want_fault){
        .kind = COPRO_FAULT_TRANSLATION, .offset = wait_off, .addr = unmapped,
        .fence = fwait, .context = CONTEXT_BAD, .info = 0,
    });
    m->faults_handled++;

    check_reset(r, cp, 1, fcopy, prev1, m);
    check_reset(r, cp, 0, fwait, prev0, m);

    f1 = copro_cp_submit(cp, 1, &ok1, CONTEXT_COPY, 0);
    f0 = copro_cp_submit(cp, 0, &ok0, CONTEXT_GOOD, 0);
    check_fence_wait(r, cp, 1, f1, COPRO_WAIT_DONE, "copy engine after the "
                     "reset");
    check_fence_wait(r, cp, 0, f0, COPRO_WAIT_DONE, "render engine after "
                     "the reset");
    {
        /* blocks 5, 6 by the recovery buffers; 7 by the FILL that ran
         * before the faulting COPY */
        const uint8_t want[3] = { 0x77, 0x88, 0x99 };
        check_blocks(r, copro_cp_cpu_ptr(cp, area + 5 * BLOCK), want, 3,
                     "results after recovery");
    }
}

static void run_batched_fault(struct report *r, struct copro_cp *cp,
                              struct fault_metrics *m)
{
    uint64_t beyond = cp->dev->info.vram_size + 0x1000;
    struct copro_dmabuf b;
    uint64_t prev0, f;
    uint32_t fill_off;

    if (!report(r, copro_cp_dmabuf_alloc(cp, &b, 128), "buffer allocated")) {
        return;
    }
    /* long enough for the CPU to be halted when the FILL starts */
    copro_emit_work(&b, 20 * US);
    fill_off = copro_emit_fill(&b, beyond, BLOCK, 0x5a5a5a5a);
    if (!report(r, copro_dmabuf_ok(&b), "WORK + faulting FILL built")) {
        return;
    }
    prev0 = cp->eng[0].completed;
    f = copro_cp_submit(cp, 0, &b, CONTEXT_BAD, 0);
    report(r, copro_cp_wait_fence(cp, 0, f, 10 * MS,
                                  &m->batched_fault_wait_ns) ==
           COPRO_WAIT_FAULT, "FILL beyond VRAM after WORK, CPU halted: "
           "fault after %lu ns", m->batched_fault_wait_ns);
    check_fault(r, cp, 0, &(struct want_fault){
        .kind = COPRO_FAULT_TRANSLATION, .offset = fill_off, .addr = beyond,
        .fence = f, .context = CONTEXT_BAD, .info = COPRO_FAULT_INFO_WRITE,
    });
    m->faults_handled++;
    check_reset(r, cp, 0, f, prev0, m);
}

static void check_causes(struct report *r, struct copro_cp *cp,
                         struct fault_metrics *m)
{
    const struct copro_engine *e0 = &cp->eng[0], *e1 = &cp->eng[1];
    struct engine_stats s;

    report(r, copro_cp_cause_count(e0, COPRO_INT_ERROR) == 1 &&
           copro_cp_cause_count(e0, COPRO_INT_FAULT) == 2 &&
           copro_cp_cause_count(e1, COPRO_INT_ERROR) == 0 &&
           copro_cp_cause_count(e1, COPRO_INT_FAULT) == 1,
           "interrupt causes: engine 0 ERROR %u FAULT %u, engine 1 ERROR %u "
           "FAULT %u (expected 1 2 0 1)",
           copro_cp_cause_count(e0, COPRO_INT_ERROR),
           copro_cp_cause_count(e0, COPRO_INT_FAULT),
           copro_cp_cause_count(e1, COPRO_INT_ERROR),
           copro_cp_cause_count(e1, COPRO_INT_FAULT));
    for (unsigned e = 0; e < 2; e++) {
        engine_stats_read(cp, e, &s);
        m->stat_faults[e] = s.faults;
        m->busy_ns[e] = s.busy_ns;
        m->completed[e] = cp->eng[e].completed;
    }
    report(r, m->stat_faults[0] == 3 && m->stat_faults[1] == 1,
           "STAT_FAULTS %lu and %lu (expected 3, 1)", m->stat_faults[0],
           m->stat_faults[1]);
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    struct report r = { 0 };
    struct fault_metrics m = { 0 };
    volatile uint8_t *area_cpu;
    uint64_t area;

    report_info("copro fault scenario, command line: \"%s\"", boot->cmdline);
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES) &&
        report(&r, cp.num_engines >= 2, "two engines (%u)",
               cp.num_engines) &&
        report(&r, (area_cpu = copro_cp_alloc(&cp, AREA_SIZE, 4096,
                                              &area)) != NULL,
               "result area allocated")) {
        for (unsigned i = 0; i < AREA_SIZE; i++) {
            area_cpu[i] = 0;
        }
        run_error_path(&r, &cp, area, area_cpu, &m);
        run_fault_path(&r, &cp, area, &m);
        run_batched_fault(&r, &cp, &m);
        check_causes(&r, &cp, &m);
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
    }
    kprintf("METRICS {\"scenario\":\"fault\",\"irq_mode\":\"%s\","
            "\"completed_fence\":[%lu,%lu],\"faults_handled\":%u,\"resets\":%u,"
            "\"stat_faults\":[%lu,%lu],\"busy_ns\":[%lu,%lu],"
            "\"batched_fault_wait_ns\":%lu,\"irqs\":%u,"
            "\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), m.completed[0], m.completed[1],
            m.faults_handled,
            m.resets, m.stat_faults[0], m.stat_faults[1], m.busy_ns[0],
            m.busy_ns[1], m.batched_fault_wait_ns, dev.irq.count, r.tests,
            r.failures);
    return report_summary(&r);
}
