/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The miniport's hardware queues [WDDM 2.7 HwQueues; AMD MES: MQDs,
 * doorbells, run lists]: the DDI's hws half (ddi/ddi_hws.h) over copro's
 * hardware scheduler (include/copro/copro_hwsched.h, docs/specs/copro.rst
 * "Hardware scheduling").
 *
 * Everything lives in VRAM taken at init (before the OS's segment): per
 * queue slot a 256-byte descriptor, its progress fence and a ring of
 * COPRO_HWQ_RING submission descriptors; per engine two run lists (the
 * one the device may still be reading, and the one written next); one
 * log ring; a save area for the kernel's paging queues. A submission is
 * a ring entry plus a doorbell write (BAR1, page = slot); a run list is
 * written to the spare buffer and committed by register.
 *
 * The DPC (copro_hwq_dpc, from copro_ddi_dpc at every interrupt) reports
 * every queue's progress, the queues the device put in ERROR and the log
 * since last time, all checked (kmd/copro_hwlog.h).
 */
#ifndef FW_KMD_COPRO_HWQ_H
#define FW_KMD_COPRO_HWQ_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi_hws.h"
#include "kmd/copro_cp.h"
#include "kmd/copro_hwlog.h"

#define COPRO_HWQ_RING          64      /* entries per queue */
#define COPRO_HWQ_LOG_ENTRIES   1024
#define COPRO_HWQ_LOG_BATCH     256     /* entries per sched_log upcall */

struct copro_hwq_slot {
    bool used;
    bool error_reported;
    bool oom_reported;              /* in OOM_WAIT, told, not answered */
    unsigned engine;
    uint32_t context;
    uint64_t save_addr;
    uint32_t flags;                 /* COPRO_HWQ_F_* */
    uint32_t tail;                  /* next ring entry (free-running) */
    uint64_t submitted;             /* last fence written */
    uint64_t reported;              /* last fence told to the OS */
    uint64_t fence_at[COPRO_HWQ_RING];  /* fence of each ring entry */
    uint32_t oldest;                /* first entry not known retired */
};

/* Doorbells kept for the benchmark's latency split (the device's share of
 * a submission's wait begins at its doorbell). */
#define COPRO_HWQ_DB_LOG        512

struct copro_hwq_db_rec {
    uint32_t context;
    uint64_t fence;
    uint64_t at;                    /* GPU time of the doorbell write */
};

struct copro_hwq_stats {
    uint64_t doorbells, ring_full, commits, refused, errors;
    uint64_t log_reads;
    uint64_t bad_progress;          /* progress fences not believed */
    uint64_t irq_on, irq_off;       /* completion interrupts turned
                                       on / off (on demand) */
    uint64_t polls, polls_moved;    /* progress read outside the DPC */
    uint64_t ooms, oom_answers;     /* queue_oom upcalls, answers */
    struct copro_hwlog_stats log;
};

struct copro_hwq {
    struct copro_cp *cp;
    struct copro *dev;
    volatile uint8_t *doorbells;    /* BAR1 */
    uint64_t base;                  /* VRAM block: slots, lists, log */
    uint64_t slot_bytes;
    struct copro_hwq_slot q[COPRO_HWQ_MAX];
    uint64_t used_mask;             /* bit q: slot q is used */
    uint64_t rl_addr[COPRO_MAX_ENGINES][2];
    unsigned rl_next[COPRO_MAX_ENGINES];
    uint64_t log_addr;
    uint32_t log_rptr;
    uint32_t log_dropped_seen;      /* LOG_DROPPED last read */
    uint64_t paging_save;           /* save area for queues given none */
    uint64_t frame_ns;
    struct copro_sched_log_entry batch[COPRO_HWQ_LOG_BATCH];
    struct copro_hwq_stats stats;
    unsigned ndb_log;
    struct copro_hwq_db_rec db_log[COPRO_HWQ_DB_LOG];
};

/* Takes its VRAM and maps the doorbell BAR; NULL or why not (no
 * COPRO_CAP_HWSCHED, BAR1 unusable, VRAM). frame_ns: the vsync period
 * (0: 60 Hz). */
const char *copro_hwq_init(struct copro_hwq *h, struct copro_cp *cp,
                           uint64_t frame_ns);

/* The DDI's hws ops; drv is the struct copro_ddi that attached h. */
extern const struct ddi_hws_ops copro_hwq_ops;
struct copro_ddi;
struct copro_hwq *copro_ddi_hwq(void *drv);

/* The DPC's part: progress, errors, log, as upcalls. */
void copro_hwq_dpc(struct copro_hwq *h, const struct ddi_upcalls *up,
                   void *os);

#endif /* FW_KMD_COPRO_HWQ_H */
