/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The copro miniport's DDI (ddi/ddi.h) over the real device: the table of
 * downcalls the OS's scheduler makes (render, patch, submit, preempt,
 * reset_engine, query_caps, gpu_time) and the upcalls it receives
 * (dma_completed, preempted, faulted) from copro_ddi_dpc(), the deferred
 * half of the interrupt, which the OS runs from its DPC queue when the
 * ISR asks (struct copro's queue_dpc hook).
 *
 * Built on the driver's existing parts: copro_cp (rings, the DPC that
 * latches fences and faults), copro_render (the validator and patcher),
 * copro_ring (descriptors). Fence ids are the scheduler's: submit queues
 * exactly the fence it is given.
 *
 * The display half (copro_ddi_attach_display) maps the DDI's display
 * downcalls (commit_vidpn, set_source_address, set_pointer_shape and
 * _position) onto kmd/copro_display and forwards its DPC-level upcalls
 * (flip_done, vsync) to the OS. set_source_address queues the present
 * in copro_display with no fence (the OS calls it once the GPU has
 * finished the primary); copro_display programs DISP_FLIP at once if the
 * hardware holds no flip, else from its ISR hook when FLIP_DONE frees it.
 *
 * Upcalls are made from state, not from interrupt causes: the DPC
 * compares what copro_cp latched (completed fence, PREEMPTED count, fault
 * count) with what it last reported, so nothing is lost when another
 * path (an engine reset) ran copro_cp's DPC in between. An engine reset
 * supersedes a PREEMPTED or a fault of that engine not yet reported.
 * Upcalls are never made from inside a downcall.
 */
#ifndef FW_KMD_COPRO_DDI_H
#define FW_KMD_COPRO_DDI_H

#include <stdint.h>

#include "ddi/ddi.h"
#include "kmd/copro_cp.h"
#include "kmd/copro_display.h"
#include "kmd/copro_gpuva.h"
#include "kmd/copro_hwq.h"
#include "kmd/copro_pager.h"
#include "kmd/copro_render.h"

/* Device-measured preemptions kept for the benchmark's latency split. */
#define COPRO_DDI_PREEMPT_LOG   512

struct copro_ddi_preempt_rec {
    uint64_t requested_at;      /* GPU time of the PREEMPT_REQ write */
    uint64_t latency_ns;        /* request to saved, as the device counts */
    uint64_t preempted_fence;   /* the submission it stopped, 0 if none */
    unsigned engine;
};

struct copro_ddi {
    struct copro_cp *cp;
    const struct ddi_upcalls *up;
    void *os;
    struct {
        uint64_t completed_reported;
        unsigned preempts_seen;     /* copro_engine.preempt.count */
        unsigned ooms_seen;         /* copro_engine.oom.count */
        unsigned faults_seen;       /* copro_engine.faults */
        uint64_t requested_at;      /* of the request in flight, 0 none */
        uint64_t stat_sum, stat_count;  /* STAT_PREEMPT_* last read */
    } eng[COPRO_MAX_ENGINES];
    struct copro_render_diag last_refusal;
    /* paging (build_paging_buffer), NULL if none was attached */
    struct copro_pager *pager;
    /* GPU-VA mode (struct ddi_ops.gpuva), NULL if none was attached */
    struct copro_gpuva *gpuva;
    /* the display source, NULL if none was attached */
    struct copro_display *disp;
    /* hardware queues (struct ddi_ops.hws), NULL if none was attached */
    struct copro_hwq *hwq;
    /* the table copro_ddi_device hands out: the base ops plus paging and
     * GPU-VA mode when a pager (and a GPU-VA state) are attached */
    struct ddi_ops ops;
    struct {
        uint64_t addr;              /* 0: no shape yet */
        int32_t x, y;
        bool visible;
    } pointer;
    /* counters */
    uint64_t renders, refusals, submits, ring_full, preempts, resets;
    unsigned npreempt_log;
    struct copro_ddi_preempt_rec preempt_log[COPRO_DDI_PREEMPT_LOG];
};

/* Over a driver that copro_cp_init() brought up. */
void copro_ddi_init(struct copro_ddi *d, struct copro_cp *cp);

/*
 * Makes disp (copro_display_init done) the DDI's display source 0: its
 * upcalls go to the OS's flip_done and vsync, its DPC runs from
 * copro_ddi_dpc. Before copro_ddi_set_upcalls' first interrupt.
 */
void copro_ddi_attach_display(struct copro_ddi *d, struct copro_display *disp);

/*
 * Gives the DDI build_paging_buffer over pager (copro_pager_init done:
 * it takes VRAM, so before copro_ddi_take_segment). Before
 * copro_ddi_device(), whose table has build_paging_buffer only then.
 */
void copro_ddi_attach_pager(struct copro_ddi *d, struct copro_pager *pager);

/*
 * Gives the DDI GPU-VA mode's ops over g (copro_gpuva_init done; a pager
 * attached too). Before copro_ddi_device().
 */
void copro_ddi_attach_gpuva(struct copro_ddi *d, struct copro_gpuva *g);

/* Hardware scheduling [HwSchEnabled]: the hws ops over h (which
 * copro_hwq_init set up), before copro_ddi_device. */
void copro_ddi_attach_hwq(struct copro_ddi *d, struct copro_hwq *h);

/* Who receives the upcalls (before the first interrupt is taken). */
void copro_ddi_set_upcalls(struct copro_ddi *d, const struct ddi_upcalls *up,
                           void *os);

/* The OS's view: the ops table with d as its driver state. */
struct ddi_device copro_ddi_device(struct copro_ddi *d);

/*
 * Hands the OS the VRAM the driver itself does not use, as one segment
 * [*base, *base + *size) that the CPU sees at *cpu (WDDM's segment
 * descriptor: the local-memory segment and its CPU aperture). Call once,
 * after copro_cp_init (which took the rings). False if nothing is left.
 */
bool copro_ddi_take_segment(struct copro_ddi *d, uint64_t *base,
                            uint64_t *size, volatile uint8_t **cpu);

/*
 * The deferred half of interrupt processing [DxgkDdiDpcRoutine]: latches
 * what the ISR acknowledged and makes the upcalls. Runs at the OS's DPC
 * level (interrupts disabled).
 */
void copro_ddi_dpc(struct copro_ddi *d);

#endif /* FW_KMD_COPRO_DDI_H */
