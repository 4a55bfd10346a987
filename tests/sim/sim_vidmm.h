/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm on the GPU model: a seeded workload whose working set is a chosen
 * fraction of VRAM, run through vidsch with vidmm's residency hook, the
 * paging buffers executed by the model's copy engine through its GART
 * aperture, and checked as it runs:
 *
 *  - an allocation of a prepared or running buffer never moves (checked
 *    after every make_resident, for every buffer holding residency);
 *  - when a buffer starts on the engine, every patched address in it
 *    equals its allocation's placement, and the paging buffer it waited
 *    for has finished;
 *  - a buffer handed back and made resident again keeps the addresses it
 *    was patched with (patched once);
 *  - every byte of every allocation survives the evictions: buffers FILL
 *    page ranges of their allocations with per-(allocation, buffer)
 *    patterns, and at the end each written page is read wherever the
 *    allocation is (VRAM, aperture, system pages);
 *  - no VRAM and no system page is leaked once every allocation is
 *    destroyed; every buffer retired;
 *  - every paging op list passes the copro kmd's own check
 *    (copro_paging_check), not only the model's;
 *  - with evict_own_only (a quarter of the allocations offered), no
 *    process's buffer evicts another process's allocation that is not
 *    offered; a list that cannot fit then fails with DDI_ENOMEM (the
 *    restriction's price, counted, not a failure of the test).
 *
 * With fight set, the two contexts are of one level and saturate the
 * engine together (eviction fighting), with the same checks.
 *
 * Used by test-sim-vidmm (properties) and bench-vidmm (throughput).
 */
#ifndef TESTS_SIM_SIM_VIDMM_H
#define TESTS_SIM_SIM_VIDMM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_host.h"

#define SVM_VRAM_BYTES      (2ull << 20)    /* vidmm's local segment */

struct svm_config {
    uint64_t seed;
    unsigned ws_pct;            /* working set, % of SVM_VRAM_BYTES */
    unsigned buffers;           /* per context */
    uint64_t work_ns;           /* WORK per buffer (besides its fills) */
    bool evict_own_only;
    /* every other allocation may live in the aperture too (VRAM |
     * APERTURE): placed there when VRAM is full, promoted into VRAM when
     * used again: the moves of a busy allocation the move rule forbids */
    bool aperture;
    /* eviction fighting: both contexts NORMAL under the quantum policy,
     * every buffer queued at the start (two saturating apps of one
     * level), fight_bytes the scheduler's threshold (0: policy off) */
    bool fight;
    uint64_t fight_bytes;
    /* pageable DMA buffers (the kernel's dmabuf=, kernel/kdma.h): 0 in
     * fixed memory; SVM_DMA_APERTURE / SVM_DMA_VRAM each buffer a vidmm
     * allocation of its own, the last entry of its list, made resident
     * with it, evicted while not in use and brought back to the address
     * it was patched with; checked when the engine loads it: its bytes
     * there are the commands built, its patches its allocations' places,
     * and no paging op touches it while it is in use */
    unsigned dma;
    bool verbose;
};

#define SVM_DMA_APERTURE    1
#define SVM_DMA_VRAM        2

struct svm_result {
    char msg[256];              /* the first violation, "" if none */
    uint64_t gpu_ns;            /* virtual time until the last retired */
    uint64_t buffers;           /* DMA buffers retired */
    uint64_t paging_buffers, evictions, restores, bytes_moved;
    uint64_t handed_back;       /* make_resident with patched set */
    uint64_t enomem;            /* evict_own_only: lists refused */
    uint64_t turns, fight_turns;    /* the render engine's (vidsch) */
    uint64_t paging_reported;   /* paging bytes vidsch was told of */
    uint64_t promotions;        /* aperture -> VRAM moves seen */
    uint64_t dma_brought_in;    /* pageable DMA buffers made resident
                                   from system memory */
    uint64_t dma_back_patched;  /* of those, patched before (handed back,
                                   taken out, brought back) */
    uint64_t dma_loads_checked; /* loads whose bytes were compared */
    uint64_t paging_steps;      /* DDI_EBUSY with a paging buffer: a list
                                   made resident over several */
};

/* The host the runs share (sim memory, scheduler tables). */
void svm_host_init(struct sim_host *h);

/* One run; false (and r->msg) on the first violated property. */
bool svm_run(struct sim_host *h, const struct svm_config *c,
             struct svm_result *r);

#endif /* TESTS_SIM_SIM_VIDMM_H */
