/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: hardware scheduling (hardware queues, doorbells, run lists, the
 * device's scheduler and its log). Device-internal state; the ABI is
 * include/copro/copro_hwsched.h, the code copro-hwsched.c and
 * copro-hws-*.c.
 */
#ifndef HW_COPRO_HWSCHED_H
#define HW_COPRO_HWSCHED_H

#include "exec/memory.h"
#include "qemu/timer.h"
#include "copro/copro_regs.h"
#include "copro/copro_hwsched.h"

/* one hardware queue slot */
typedef struct CoproHwq {
    bool mapped;                /* on an engine's active run list */
    uint32_t engine;
    uint64_t desc_addr;

    /* the driver's part of the descriptor, as read when mapped */
    uint64_t ring_base;
    uint32_t ring_size;
    uint32_t context;
    uint64_t save_addr;
    uint64_t progress_addr;
    uint32_t flags;

    /* the device's part (written back) */
    uint32_t head;
    uint32_t tail;
    uint32_t resume;
    uint32_t state;
    uint32_t error;
    uint32_t fault;
    uint32_t band;
    uint32_t quantum_ns;
    uint32_t budget_ns;
    uint64_t completed_fence;
    uint64_t error_fence;
    uint64_t gpu_time_ns;
    uint64_t frame_time_ns;
    uint64_t last_frame_ns;
    uint64_t runs;
    uint64_t preemptions;
    uint64_t submissions;
    uint64_t oom_scene;         /* OOM_WAIT: the full parameter buffer */
    uint32_t oom_need;
    uint32_t ooms;

    /* device-internal */
    uint64_t oom_fence;         /* OOM_WAIT: the stopped submission */
    bool suspended;             /* listed with COPRO_RL_F_SUSPENDED */
    bool over_budget;           /* effective band IDLE until the vsync */
    uint64_t wait_addr;         /* BLOCKED: the WAIT's address, value */
    uint64_t wait_value;
    int64_t wait_since;         /* its poll grid starts here */
    uint64_t sub_ns;            /* GPU ns of the submission at head */
    uint32_t doorbell;          /* last value written to its doorbell */
} CoproHwq;

/* one engine's run lists */
typedef struct CoproHwsEngine {
    uint64_t rl_addr;           /* staged */
    uint32_t rl_count;
    uint32_t status;            /* COPRO_RL_STATUS */
    uint32_t seq;
    uint32_t active_count;
    uint32_t active[COPRO_RUNLIST_MAX];     /* slots, in list order */
    bool pending;
    uint32_t pending_count;
    struct copro_runlist_entry pend[COPRO_RUNLIST_MAX];
    CoproHwq pend_q[COPRO_RUNLIST_MAX];     /* descriptors read at commit */

    uint32_t current;           /* slot on the engine, or COPRO_HWQ_NONE */
    bool switching;             /* the device switches current out */
    uint32_t switch_reason;     /* COPRO_SLOG_OUT_* */
    int64_t switch_time;        /* when it decided */
    int64_t run_start;          /* current's run began (its switch-in) */
    int64_t quantum_start;      /* ... and its present quantum */
    bool share_turn;            /* current runs on the IDLE band's share */
    bool share_next;            /* the next turn is the IDLE band's */
    int64_t share_end;
    uint32_t rr[COPRO_BANDS];   /* slot that last began a turn, per band */
    uint64_t idle_ns;           /* GPU ns of IDLE-band work this frame */

    QEMUTimer *timer;           /* quantum, budget, timeout, WAIT polls */
} CoproHwsEngine;

typedef struct CoproHws {
    uint32_t preempt_timeout;
    uint32_t low_share;
    uint64_t log_addr;
    uint32_t log_size;
    uint32_t log_wptr;
    uint32_t log_rptr;
    uint32_t log_dropped;
    uint32_t error;
    uint32_t error_queue;
    uint64_t error_addr;
    uint64_t doorbells;
    uint64_t switches;
    CoproHwq q[COPRO_HWQ_MAX];
    CoproHwsEngine eng[COPRO_MAX_ENGINES];
    MemoryRegion doorbell_mr;
} CoproHws;

#endif /* HW_COPRO_HWSCHED_H */
