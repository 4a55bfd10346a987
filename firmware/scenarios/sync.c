/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sync: GPU-to-GPU synchronisation between the two engines.
 *
 * Engine 1 (copy) gets a buffer that WAITs for a monitored fence value
 * engine 0 will write, then TIMESTAMPs and COPYs the data engine 0
 * produced. It is submitted first, so it really blocks: the scenario
 * checks it sits in STATE_WAITING with nothing retired, and uses the
 * blocked engine to fill its ring to the limit (entries - 1 outstanding;
 * the next submission must be refused).
 *
 * Engine 0 (render) then runs TIMESTAMP, FILL (the data), WORK (2 ms),
 * TIMESTAMP, FENCE. The checks: engine 1's post-wait timestamp is not
 * before engine 0's pre-fence one, engine 1's copy holds engine 0's data
 * (not the stale contents the CPU left there), the WORK took its modelled
 * time, and time spent blocked was not counted as engine 1 busy time.
 *
 * Command line: irq=auto|msix|msi|intx.
 */
#include <stdint.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_cp.h"
#include "lib/console.h"
#include "lib/wait.h"
#include "scenarios/common.h"

#define RING_ENTRIES        8
#define DATA_SIZE           4096u
#define WORK_NS             (2 * MS)
#define BLOCKED_CHECK_NS    (500 * US)
#define SYNC_VALUE          ((uint64_t)0x0000000100000001) /* 64-bit */
#define STALE_BYTE          0x5a
#define DATA_PATTERN        0x600dda7au
#define CONTEXT_RENDER      0x10
#define CONTEXT_COPY        0x11

enum {
    SLOT_SYNC_OBJ, SLOT_TS_E0_START, SLOT_TS_E0_PRE_FENCE,
    SLOT_TS_E1_POST_WAIT, SLOT_COUNT
};

struct sync_metrics {
    uint64_t fences;
    uint64_t ts_e0_start, ts_e0_pre_fence, ts_e1_post_wait;
    uint64_t busy_ns[2];
    uint64_t e1_wait_ns;        /* submit to retirement, guest view */
    unsigned ring_accepted;
};

static uint8_t data_byte(uint64_t i)
{
    return (uint8_t)(DATA_PATTERN >> (8 * (i & 3)));
}

/* The copy engine's view of the data after the wait: every byte must be
 * engine 0's FILL, none the stale CPU byte. */
static void check_copy(struct report *r, volatile const uint8_t *dst)
{
    unsigned bad = 0, stale = 0;

    for (uint64_t i = 0; i < DATA_SIZE; i++) {
        uint8_t v = dst[i];
        bad += v != data_byte(i);
        stale += v == STALE_BYTE;
    }
    report(r, bad == 0, "engine 1's COPY saw engine 0's FILL: %u of %u "
           "bytes differ (%u still stale)", bad, DATA_SIZE, stale);
}

static void run_sync(struct report *r, struct copro_cp *cp,
                     struct sync_metrics *m)
{
    struct copro_dmabuf b0, b1, nop;
    struct engine_stats s0, s1, after;
    uint64_t sync, src, dst, f0, f1, extra[RING_ENTRIES], refused;
    volatile uint8_t *src_cpu, *dst_cpu;
    uint32_t state;
    unsigned accepted = 0;

    if (!report(r, cp->num_engines >= 2, "two engines (%u)",
                cp->num_engines)) {
        return;
    }
    src_cpu = copro_cp_alloc(cp, DATA_SIZE, 4096, &src);
    dst_cpu = copro_cp_alloc(cp, DATA_SIZE, 4096, &dst);
    if (!report(r, src_cpu && dst_cpu && copro_cp_alloc(cp, SLOT_COUNT * 8,
                                                        64, &sync) &&
                copro_cp_dmabuf_alloc(cp, &b0, 1024) &&
                copro_cp_dmabuf_alloc(cp, &b1, 1024) &&
                copro_cp_dmabuf_alloc(cp, &nop, 64), "VRAM allocated")) {
        return;
    }
    for (uint64_t i = 0; i < DATA_SIZE; i++) {
        src_cpu[i] = STALE_BYTE;
        dst_cpu[i] = 0;
    }
    for (unsigned k = 0; k < SLOT_COUNT; k++) {
        vram_write64(cp, sync + k * 8, 0);
    }

    copro_emit_wait(&b1, sync + SLOT_SYNC_OBJ * 8, SYNC_VALUE);
    copro_emit_timestamp(&b1, sync + SLOT_TS_E1_POST_WAIT * 8);
    copro_emit_copy(&b1, dst, src, DATA_SIZE);

    copro_emit_timestamp(&b0, sync + SLOT_TS_E0_START * 8);
    copro_emit_fill(&b0, src, DATA_SIZE, DATA_PATTERN);
    copro_emit_work(&b0, WORK_NS);
    copro_emit_timestamp(&b0, sync + SLOT_TS_E0_PRE_FENCE * 8);
    copro_emit_fence(&b0, sync + SLOT_SYNC_OBJ * 8, SYNC_VALUE, false);

    copro_emit_nop(&nop, 1);
    if (!report(r, copro_dmabuf_ok(&b0) && copro_dmabuf_ok(&b1) &&
                copro_dmabuf_ok(&nop), "buffers built (%u + %u packets)",
                b0.packets, b1.packets)) {
        return;
    }
    engine_stats_read(cp, 0, &s0);
    engine_stats_read(cp, 1, &s1);

    /* 1. Engine 1 first: it must block in its WAIT. */
    f1 = copro_cp_submit(cp, 1, &b1, CONTEXT_COPY, 0);
    wait_ns(BLOCKED_CHECK_NS);
    copro_cp_dpc(cp);
    state = copro_read32(cp->dev, COPRO_ENG_BASE(1) + COPRO_ENG_STATE);
    report(r, f1 != 0 && state == COPRO_ENG_STATE_WAITING,
           "engine 1 blocked in WAIT after %lu us (STATE %u, expected %u)",
           BLOCKED_CHECK_NS / US, state, COPRO_ENG_STATE_WAITING);
    report(r, cp->eng[1].completed < f1 &&
           copro_read64(cp->dev, COPRO_ENG_BASE(1) +
                        COPRO_ENG_CURRENT_FENCE) == f1 &&
           copro_read32(cp->dev, COPRO_ENG_BASE(1) +
                        COPRO_ENG_CURRENT_CONTEXT) == CONTEXT_COPY,
           "engine 1 retired nothing; CURRENT_FENCE/CONTEXT name the "
           "waiting submission");
    report(r, vram_read64(cp, sync + SLOT_TS_E1_POST_WAIT * 8) == 0,
           "engine 1's post-wait TIMESTAMP not yet written");

    /* A value whose low dword exceeds SYNC_VALUE's but which is smaller
     * as a 64-bit number must not release it (WAIT re-checks every
     * 20 us of virtual time, so CPU writes are seen too). */
    vram_write64(cp, sync + SLOT_SYNC_OBJ * 8, (uint64_t)0xffffffff);
    wait_ns(BLOCKED_CHECK_NS);
    state = copro_read32(cp->dev, COPRO_ENG_BASE(1) + COPRO_ENG_STATE);
    report(r, state == COPRO_ENG_STATE_WAITING &&
           vram_read64(cp, sync + SLOT_TS_E1_POST_WAIT * 8) == 0,
           "WAIT compares 64 bits: %#lx does not release a wait for %#lx "
           "(STATE %u)", (uint64_t)0xffffffff, SYNC_VALUE, state);

    /* 2. The blocked engine fetched its entry; the ring now takes
     * exactly entries - 1 more before the driver refuses. */
    for (unsigned k = 0; k < RING_ENTRIES; k++) {
        extra[k] = copro_cp_submit(cp, 1, &nop, CONTEXT_COPY, 0);
        if (!extra[k]) {
            break;
        }
        accepted++;
    }
    refused = copro_cp_submit(cp, 1, &nop, CONTEXT_COPY, 0);
    m->ring_accepted = accepted;
    report(r, accepted == RING_ENTRIES - 1 && refused == 0,
           "ring full at %u queued entries behind the running one "
           "(%u-entry ring; next submission %s)", accepted, RING_ENTRIES,
           refused ? "accepted" : "refused");

    /* 3. Now engine 0: it releases engine 1 with its FENCE. */
    f0 = copro_cp_submit(cp, 0, &b0, CONTEXT_RENDER, 0);
    check_fence_wait(r, cp, 0, f0, COPRO_WAIT_DONE, "render buffer");
    check_fence_wait(r, cp, 1, f1, COPRO_WAIT_DONE,
                     "copy buffer (released by the render fence)");
    if (accepted) {
        check_fence_wait(r, cp, 1, extra[accepted - 1], COPRO_WAIT_DONE,
                         "queued submissions behind it");
    }
    m->fences = cp->eng[0].completed + cp->eng[1].completed;

    m->ts_e0_start = vram_read64(cp, sync + SLOT_TS_E0_START * 8);
    m->ts_e0_pre_fence = vram_read64(cp, sync + SLOT_TS_E0_PRE_FENCE * 8);
    m->ts_e1_post_wait = vram_read64(cp, sync + SLOT_TS_E1_POST_WAIT * 8);
    report(r, m->ts_e0_pre_fence != 0 &&
           m->ts_e1_post_wait >= m->ts_e0_pre_fence,
           "engine 1 post-wait TIMESTAMP %lu >= engine 0 pre-fence "
           "TIMESTAMP %lu", m->ts_e1_post_wait, m->ts_e0_pre_fence);
    report(r, m->ts_e0_pre_fence - m->ts_e0_start >= WORK_NS,
           "engine 0 spent %lu ns between its TIMESTAMPs (WORK %lu ns)",
           m->ts_e0_pre_fence - m->ts_e0_start, WORK_NS);
    report(r, vram_read64(cp, sync + SLOT_SYNC_OBJ * 8) == SYNC_VALUE,
           "sync object holds %#lx", vram_read64(cp, sync + SLOT_SYNC_OBJ * 8));
    check_copy(r, dst_cpu);

    engine_stats_read(cp, 0, &after);
    m->busy_ns[0] = after.busy_ns - s0.busy_ns;
    engine_stats_read(cp, 1, &after);
    m->busy_ns[1] = after.busy_ns - s1.busy_ns;
    report(r, m->busy_ns[0] >= WORK_NS, "engine 0 busy %lu ns >= WORK",
           m->busy_ns[0]);
    report(r, m->busy_ns[1] < WORK_NS, "engine 1 busy only %lu ns: blocked "
           "time (~%lu ns) is not busy time", m->busy_ns[1], WORK_NS);
    report(r, cp->eng[0].faults == 0 && cp->eng[1].faults == 0,
           "no faults on either engine");
}

int scenario_main(const struct boot_info *boot)
{
    static struct copro dev;
    static struct copro_cp cp;
    struct report r = { 0 };
    struct sync_metrics m = { 0 };

    report_info("copro sync scenario, command line: \"%s\"", boot->cmdline);
    if (scenario_bringup(&r, boot, &dev, &cp, RING_ENTRIES)) {
        run_sync(&r, &cp, &m);
        report(&r, dev.irq.spurious == 0, "no interrupt without a cause "
               "(%u of %u)", dev.irq.spurious, dev.irq.count);
    }
    kprintf("METRICS {\"scenario\":\"sync\",\"irq_mode\":\"%s\","
            "\"fences_completed\":%lu,\"irqs\":%u,\"busy_ns\":[%lu,%lu],"
            "\"ts_e0_start\":%lu,\"ts_e0_pre_fence\":%lu,"
            "\"ts_e1_post_wait\":%lu,\"ring_accepted\":%u,"
            "\"tests\":%u,\"failures\":%u}\n",
            copro_irq_mode_name(dev.irq_mode), m.fences, dev.irq.count,
            m.busy_ns[0], m.busy_ns[1], m.ts_e0_start, m.ts_e0_pre_fence,
            m.ts_e1_post_wait, m.ring_accepted, r.tests, r.failures);
    return report_summary(&r);
}
