/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * yield: a huge amount of zero-cost work must not stall the machine.
 *
 * Run with `-device copro,timing=instant -icount shift=N,sleep=off`: every
 * step costs nothing, so the engine could run for ever at one virtual
 * time. The spec promises that it yields to the main loop and the vCPUs
 * after every slice of steps anyway. The scenario fills engine 0's ring
 * with 4095 submissions of a 1 MiB buffer of one-dword NOPs (about 10^9
 * packets, a minute or more of host time) and rings the doorbell once.
 * If the engine did not yield, the CPU would never execute another
 * instruction and the runner's timeout would fail the test; so every line
 * after the doorbell is itself the check. The CPU then watches the engine
 * make progress, resets it, and the engine is idle with its ring drained.
 *
 * This is a driver-level image: it programs the ring itself.
 * Command line: irq=auto|msix|msi|intx.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "kmd/copro_preempt.h"
#include "kmd/copro_ring.h"
#include "lib/console.h"
#include "scenarios/common.h"

#define RING_ENTRIES        4096
#define BUF_BYTES           (1u << 20)
#define CONTEXT             0x30
#define WATCH_READS         64

static uint32_t eng_read32(struct copro_cp *cp, unsigned e, uint32_t reg)
{
    return copro_read32(cp->dev, COPRO_ENG_BASE(e) + reg);
}

static void run_yield(struct report *r, struct copro_cp *cp)
{
    struct copro_engine *eng = &cp->eng[COPRO_ENGINE_RENDER];
    struct copro_dmabuf nops;
    struct copro_reset_report rep;
    uint32_t head0, head, n = RING_ENTRIES - 1;
    uint64_t t0, t;

    if (!report(r, copro_cp_dmabuf_alloc(cp, &nops, BUF_BYTES),
                "1 MiB DMA buffer allocated")) {
        return;
    }
    while (copro_emit_nop(&nops, 1) != COPRO_DMABUF_FAILED) {
    }
    report_info("%u submissions of %u NOPs each", n, nops.packets);
    for (uint32_t i = 0; i < n; i++) {
        eng->ring[i] = copro_desc_make(nops.gpu_addr,
                                       copro_dmabuf_bytes(&nops), i + 1,
                                       CONTEXT, COPRO_SUBMIT_NO_IRQ);
    }
    eng->last_submitted = n;
    eng->tail = n;
    t0 = copro_gpu_time(cp);
    copro_write32(cp->dev, COPRO_ENG_BASE(eng->index) + COPRO_ENG_RING_TAIL,
                  n);

    /* reaching this line at all is the point */
    head0 = eng_read32(cp, eng->index, COPRO_ENG_RING_HEAD);
    report(r, true, "the CPU runs after the doorbell (engine at entry %u)",
           head0);
    for (unsigned i = 0; i < WATCH_READS; i++) {
        head = eng_read32(cp, eng->index, COPRO_ENG_RING_HEAD);
    }
    t = copro_gpu_time(cp);
    report(r, t > t0, "virtual time advances while the engine works "
           "(%lu ns)", t - t0);
    report(r, eng_read32(cp, eng->index, COPRO_ENG_STATE) ==
           COPRO_ENG_STATE_BUSY && head != n,
           "the engine is still busy working through its ring (entry %u of "
           "%u)", head, n);

    copro_cp_engine_reset(cp, eng->index, &rep);
    report(r, rep.state == COPRO_ENG_STATE_IDLE &&
           eng_read32(cp, eng->index, COPRO_ENG_RING_HEAD) ==
           eng_read32(cp, eng->index, COPRO_ENG_RING_TAIL),
           "engine reset: idle, ring drained (aborted fence %lu)",
           rep.aborted_fence);
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    struct report r = { 0 };

    report_info("copro yield scenario, command line: \"%s\"", boot->cmdline);
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES)) {
        run_yield(&r, &cp);
    }
    return report_summary(&r);
}
