/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro hardware ABI: hardware scheduling (COPRO_CAP_HWSCHED).
 *
 * Per-context hardware queues (WDDM 2.7's HwQueues, AMD MES's mapped
 * queues), a doorbell page per queue, a run list per engine, the device's
 * own scheduler and its scheduling log. The programming model is in
 * docs/specs/copro.rst, "Hardware scheduling".
 *
 * In brief: the driver writes a queue descriptor (struct copro_hwq_desc)
 * and a ring of ordinary submission descriptors (struct copro_submit_desc)
 * per queue, lists the queues of an engine with their band, quantum and
 * per-frame budget in a run list (struct copro_runlist_entry), and commits
 * it with COPRO_RL_COMMIT. From then on the engine fetches only from its
 * queues (its kernel ring is not fetched while a run list is active) and
 * the device decides every switch: the highest band with runnable work
 * runs, round robin with the quantum within a band. Writing a queue's
 * tail into its doorbell page wakes the scheduler. The device reports what
 * it did in the scheduling log (struct copro_sched_log_entry), and at every
 * vsync each queue's GPU time in the frame that ended, then raises
 * COPRO_INT_DEV_SCHED_LOG.
 *
 * All structures are little-endian and naturally aligned.
 */
#ifndef COPRO_HWSCHED_H
#define COPRO_HWSCHED_H

#include <stdint.h>

/* Queue slots; slot n's doorbell is page n of BAR COPRO_BAR_DOORBELL */
#define COPRO_HWQ_MAX               64u
#define COPRO_HWQ_NONE              0xffffffffu /* no queue */
#define COPRO_DOORBELL_STRIDE       4096u
#define COPRO_DOORBELL_BAR_SIZE     (COPRO_HWQ_MAX * COPRO_DOORBELL_STRIDE)
/* in each doorbell page (other offsets: reads 0, writes ignored) */
#define COPRO_DOORBELL_TAIL         0x0 /* 32: W: the queue's new tail (the
                                           next free ring entry); R: the
                                           last value written */

/* Priority bands, lowest first (WDDM: IDLE, NORMAL, FOCUS, REALTIME) */
#define COPRO_BAND_IDLE             0
#define COPRO_BAND_NORMAL           1
#define COPRO_BAND_FOCUS            2
#define COPRO_BAND_REALTIME         3
#define COPRO_BANDS                 4

/* quantum limits, ns (a run-list entry outside them is refused) */
#define COPRO_HWS_QUANTUM_MIN_NS    10000u      /* 10 us */
#define COPRO_HWS_QUANTUM_MAX_NS    1000000000u /* 1 s */

/*
 * Queue descriptor: 256 bytes at a GPU address (VRAM or aperture, never a
 * context VA), 64-aligned. The driver fills the first part and the head,
 * tail and resume fields before the queue is first put on a run list; the
 * device reads it then ("maps" the queue) and keeps the queue's state
 * inside while it stays on a run list. The device writes the second part
 * back whenever a queue is switched out, at every vsync and when the queue
 * leaves the run list; the driver must not write a mapped queue's
 * descriptor (such writes are not seen, and may be overwritten).
 */
struct copro_hwq_desc {
    /* written by the driver */
    uint32_t magic;             /* COPRO_HWQ_MAGIC */
    uint32_t version;           /* COPRO_HWQ_VERSION */
    uint64_t ring_base;         /* GPU address of the ring, 64-aligned */
    uint32_t ring_size;         /* entries: a power of two, at most
                                   COPRO_RING_MAX_ENTRIES */
    uint32_t context;           /* every entry's context must equal it */
    uint64_t save_addr;         /* COPRO_SAVE_SIZE bytes, 8-aligned: where
                                   the device saves a submission it
                                   preempts mid-buffer */
    uint64_t progress_addr;     /* 8-aligned: the device writes the queue's
                                   last completed fence (u64) here after
                                   every submission; 0: nowhere */
    uint32_t flags;             /* COPRO_HWQ_F_* */
    uint32_t reserved0;         /* zero */
    uint64_t reserved1[2];      /* zero */

    /* read by the device when it maps the queue, written back by it */
    uint32_t head;              /* next entry to fetch */
    uint32_t tail;              /* last tail taken (doorbell) */
    uint32_t resume;            /* 1: the submission at head was preempted
                                   mid-buffer; its record is at save_addr */
    uint32_t state;             /* COPRO_HWQ_STATE_* */
    uint32_t error;             /* why it is in ERROR: COPRO_HWS_ERR_* */
    uint32_t fault;             /* for COPRO_HWS_ERR_QUEUE_FAULT: the
                                   COPRO_FAULT_* of the submission */
    uint32_t band;              /* band, quantum and budget it runs with */
    uint32_t quantum_ns;
    uint32_t budget_ns;
    uint32_t reserved2;
    uint64_t completed_fence;   /* last submission completed */
    uint64_t error_fence;       /* the submission that faulted or was
                                   reset (it is not retired) */
    uint64_t gpu_time_ns;       /* GPU time spent running, in all */
    uint64_t frame_time_ns;     /* ... since the last vsync */
    uint64_t last_frame_ns;     /* ... in the frame that ended at it */
    uint64_t runs;              /* times switched in */
    uint64_t preemptions;       /* times switched out with work left */
    uint64_t submissions;       /* submissions completed */
    uint64_t oom_scene;         /* OOM_WAIT: the scene's parameter buffer
                                   (copro_tiler.h) whose fill stopped the
                                   submission at head; else the last one */
    uint32_t oom_need;          /* ... bytes the next primitive needed */
    uint32_t ooms;              /* OOM stops of this queue, in all */
    uint8_t reserved3[72];
};

#define COPRO_HWQ_MAGIC             0x44515748u /* "HWQD" */
#define COPRO_HWQ_VERSION           1u
#define COPRO_HWQ_DESC_SIZE         256u

/* copro_hwq_desc.flags */
#define COPRO_HWQ_F_COMPLETION_IRQ  (1u << 0)   /* raise the engine's
                                                   DMA_DONE when one of its
                                                   submissions completes
                                                   (unless it has NO_IRQ) */
#define COPRO_HWQ_F_KNOWN           0x1u

/* copro_hwq_desc.state */
#define COPRO_HWQ_STATE_IDLE        0   /* ring empty */
#define COPRO_HWQ_STATE_READY       1   /* has work, waits for the engine */
#define COPRO_HWQ_STATE_RUNNING     2   /* on the engine */
#define COPRO_HWQ_STATE_BLOCKED     3   /* head is a WAIT not satisfied */
#define COPRO_HWQ_STATE_SUSPENDED   4   /* has work but may not run: not on
                                           a run list, or listed with
                                           COPRO_RL_F_SUSPENDED */
#define COPRO_HWQ_STATE_ERROR       5   /* stopped: error says why */
#define COPRO_HWQ_STATE_OOM_WAIT    6   /* its scene's parameter buffer
                                           filled up: the submission at
                                           head is stopped and saved
                                           (resume 1), and the queue waits
                                           for the driver's answer
                                           (COPRO_REG_HWS_OOM_ANSWER); it
                                           does not run nor hold the
                                           engine meanwhile */

/*
 * Run list entry: 32 bytes. A run list is an array of COPRO_RL_COUNT
 * entries at COPRO_RL_ADDR (GPU address, VRAM or aperture, 8-aligned).
 */
struct copro_runlist_entry {
    uint64_t desc_addr;         /* the queue's descriptor */
    uint32_t queue;             /* its slot (doorbell page), < HWQ_MAX */
    uint32_t band;              /* COPRO_BAND_* */
    uint32_t quantum_ns;        /* its turn within the band */
    uint32_t budget_ns;         /* GPU time per frame; 0: no budget */
    uint32_t flags;             /* COPRO_RL_F_* */
    uint32_t reserved;          /* zero */
};

#define COPRO_RUNLIST_ENTRY_SIZE    32u
#define COPRO_RUNLIST_MAX           COPRO_HWQ_MAX

/* copro_runlist_entry.flags */
#define COPRO_RL_F_SUSPENDED        (1u << 0)   /* keep its state, do not
                                                   run it */
#define COPRO_RL_F_KNOWN            0x1u

/*
 * Device-wide registers (BAR0)
 */
#define COPRO_REG_HWS_QUEUES        0x0500  /* 32: RO, COPRO_HWQ_MAX */
#define COPRO_REG_HWS_PREEMPT_TIMEOUT 0x0504 /* 32: RW, ns a queue has to
                                               yield once the device
                                               decided to switch it out;
                                               then it is reset (0: never) */
#define COPRO_REG_HWS_LOW_SHARE     0x0508  /* 32: RW, permille of each
                                               frame the bands above IDLE
                                               yield to runnable IDLE
                                               queues (0: none; <= 1000) */
#define COPRO_REG_HWS_LOG_ADDR      0x0510  /* 64: RW, scheduling log, GPU
                                               address, 32-aligned; a
                                               write zeroes WPTR, RPTR and
                                               DROPPED */
#define COPRO_REG_HWS_LOG_SIZE      0x0518  /* 32: RW, entries, a power of
                                               two <= COPRO_HWS_LOG_MAX;
                                               0: no log */
#define COPRO_REG_HWS_LOG_WPTR      0x051c  /* 32: RO, entries written
                                               (free-running; entry i is
                                               at index i & (size - 1)) */
#define COPRO_REG_HWS_LOG_RPTR      0x0520  /* 32: RW, entries consumed */
#define COPRO_REG_HWS_LOG_DROPPED   0x0524  /* 32: RO, entries lost: full */
#define COPRO_REG_HWS_ERROR         0x0528  /* 32: RO, last COPRO_HWS_ERR_* */
#define COPRO_REG_HWS_ERROR_QUEUE   0x052c  /* 32: RO, its queue slot, or
                                               COPRO_HWQ_NONE */
#define COPRO_REG_HWS_ERROR_ADDR    0x0530  /* 64: RO, the address or value
                                               it concerns */
#define COPRO_REG_HWS_DOORBELLS     0x0538  /* 64: RO, doorbell writes */
#define COPRO_REG_HWS_SWITCHES      0x0540  /* 64: RO, queue switches */
#define COPRO_REG_HWS_OOM_ANSWER    0x0548  /* 32: WO, the driver's answer
                                               to a queue in OOM_WAIT:
                                               COPRO_HWS_OOM_ANSWER() */
#define COPRO_REG_HWS_OOM_WAITING   0x0550  /* 64: RO, bit n: queue slot n
                                               is in OOM_WAIT */

/*
 * COPRO_REG_HWS_OOM_ANSWER value: the queue slot in bits 0..15, the answer
 * in bits 16..23. RESUME: the driver grew the parameter buffer (pb_size
 * in the scene header), or chose to let the queue try again: the queue is
 * runnable and resumes its stopped submission from its save area. FAIL:
 * the queue goes to ERROR (COPRO_HWS_ERR_TILER_OOM, error_fence the stopped
 * submission's). Any other value, or a slot not mapped or not in OOM_WAIT
 * (ERROR included), is refused: COPRO_HWS_ERR_OOM_ANSWER, nothing changes.
 */
#define COPRO_HWS_OOM_ANSWER(slot, ans) (((uint32_t)(ans) << 16) | \
                                         ((slot) & 0xffffu))
#define COPRO_HWS_OOM_SLOT(v)       ((v) & 0xffffu)
#define COPRO_HWS_OOM_ANS(v)        (((v) >> 16) & 0xffu)
#define COPRO_HWS_OOM_RESUME        1u
#define COPRO_HWS_OOM_FAIL          2u

#define COPRO_HWS_LOG_MAX           65536u
#define COPRO_HWS_PREEMPT_TIMEOUT_DEFAULT 100000000u    /* 100 ms */
#define COPRO_HWS_LOW_SHARE_DEFAULT 100u                /* 10 % */

/*
 * Per-engine run-list registers (BAR0): engine e at COPRO_RL_BASE(e).
 * ADDR and COUNT are staged; a write of COMMIT reads and checks the staged
 * list at once and, if it is good, makes it pending: the device takes it
 * at its next safe point (at once unless the running queue leaves the
 * list or is suspended by it: then once that queue is saved), and
 * raises COPRO_INT_DEV_RUNLIST. A bad list is refused at the commit
 * (STATUS.ERROR, COPRO_INT_DEV_RUNLIST and COPRO_INT_DEV_HWS_ERROR) and
 * the active list stays. A commit while one is pending replaces it.
 * COUNT 0 empties the list: the engine goes back to its kernel ring.
 */
#define COPRO_RL_BLOCK              0x0580
#define COPRO_RL_STRIDE             0x20
#define COPRO_RL_BASE(e)            (COPRO_RL_BLOCK + (e) * COPRO_RL_STRIDE)
#define COPRO_RL_ADDR               0x00    /* 64: RW, staged list */
#define COPRO_RL_COUNT              0x08    /* 32: RW, staged entries */
#define COPRO_RL_COMMIT             0x0c    /* 32: WO, any value */
#define COPRO_RL_STATUS             0x10    /* 32: RO, COPRO_RL_STS_* */
#define COPRO_RL_SEQ                0x14    /* 32: RO, lists taken */
#define COPRO_RL_CURRENT            0x18    /* 32: RO, queue running on
                                               the engine, or HWQ_NONE */
#define COPRO_RL_ACTIVE             0x1c    /* 32: RO, entries active */

/* COPRO_RL_STATUS */
#define COPRO_RL_STS_PENDING        (1u << 0)   /* a commit waits */
#define COPRO_RL_STS_ERROR_SHIFT    8           /* bits 8..15: the
                                                   COPRO_HWS_ERR_* of the
                                                   last refused commit,
                                                   cleared by a good one */
#define COPRO_RL_STS_ERROR(sts)     (((sts) >> 8) & 0xffu)

/* Errors (COPRO_REG_HWS_ERROR, RL_STATUS, copro_hwq_desc.error, log) */
#define COPRO_HWS_ERR_NONE          0
#define COPRO_HWS_ERR_RUNLIST       1   /* list misaligned, unreadable,
                                           or COUNT > COPRO_RUNLIST_MAX */
#define COPRO_HWS_ERR_ENTRY         2   /* entry: slot, band, quantum,
                                           flags or reserved bad */
#define COPRO_HWS_ERR_DUPLICATE     3   /* a slot or descriptor listed
                                           twice */
#define COPRO_HWS_ERR_QUEUE_BUSY    4   /* slot mapped on another engine,
                                           or with another descriptor */
#define COPRO_HWS_ERR_DESC          5   /* descriptor unreadable, magic,
                                           version, ring, save, progress,
                                           flags, head, tail or reserved
                                           bad */
#define COPRO_HWS_ERR_DOORBELL      6   /* tail >= ring size (the queue
                                           goes to ERROR), or the slot is
                                           not mapped (ignored) */
#define COPRO_HWS_ERR_DOORBELL_ERROR 7  /* doorbell of a queue in ERROR:
                                           ignored */
#define COPRO_HWS_ERR_QUEUE_FAULT   8   /* a submission faulted (ring
                                           entry, packet or memory):
                                           the queue goes to ERROR */
#define COPRO_HWS_ERR_PREEMPT_TIMEOUT 9 /* did not yield in time: its
                                           submission was reset and the
                                           queue goes to ERROR */
#define COPRO_HWS_ERR_WRITEBACK     10  /* descriptor, progress or log
                                           write failed */
#define COPRO_HWS_ERR_REGISTER      11  /* register write refused:
                                           LOG_ADDR not 32-aligned,
                                           LOG_SIZE not a power of two or
                                           > COPRO_HWS_LOG_MAX, LOG_RPTR
                                           outside [WPTR - SIZE, WPTR],
                                           LOW_SHARE > 1000 (the register
                                           keeps its value) */
#define COPRO_HWS_ERR_ENGINE_RESET  12  /* the engine was reset
                                           (ENG_CONTROL.RESET) while the
                                           queue was on it: its submission
                                           was aborted */
#define COPRO_HWS_ERR_OOM_ANSWER    13  /* OOM_ANSWER refused: slot out
                                           of range or not mapped, queue
                                           not in OOM_WAIT, bad answer or
                                           bits 24..31 set (address: the
                                           value written) */
#define COPRO_HWS_ERR_TILER_OOM     14  /* the driver answered FAIL to
                                           the queue's OOM stop */

/*
 * Interrupt causes (device events, in COPRO_REG_INT_STATUS's upper half;
 * the MSI-X device vector). Defined here, listed in copro_regs.h's block.
 */
#define COPRO_INT_DEV_SCHED_LOG     (1ull << 36)    /* a vsync: each
                                                       queue's FRAME entry
                                                       was logged */
#define COPRO_INT_DEV_RUNLIST       (1ull << 37)    /* a commit was taken
                                                       or refused */
#define COPRO_INT_DEV_HWS_ERROR     (1ull << 38)    /* a queue went to
                                                       ERROR, or input was
                                                       refused: HWS_ERROR */
#define COPRO_INT_DEV_HWS_OOM       (1ull << 39)    /* a queue went to
                                                       OOM_WAIT
                                                       (HWS_OOM_WAITING) */

/*
 * Scheduling log entry: 32 bytes (the shape of WDDM's
 * DXGK_SCHEDULING_LOG_ENTRY and MES's log).
 */
struct copro_sched_log_entry {
    uint64_t time_ns;           /* device clock (COPRO_REG_GPU_TIME) */
    uint16_t kind;              /* COPRO_SLOG_* */
    uint8_t engine;             /* 0xff: not an engine's */
    uint8_t band;               /* the queue's effective band */
    uint32_t queue;             /* slot, or COPRO_HWQ_NONE */
    uint64_t arg0;
    uint64_t arg1;
};

#define COPRO_SLOG_ENTRY_SIZE       32u

/* log kinds: what arg0 and arg1 hold */
#define COPRO_SLOG_SWITCH_IN        1   /* fence at head, 1 if resumed */
#define COPRO_SLOG_SWITCH_OUT       2   /* ns of this run, COPRO_SLOG_OUT_* */
#define COPRO_SLOG_PREEMPTED        3   /* fence saved, decision-to-saved
                                           ns */
#define COPRO_SLOG_COMPLETED        4   /* fence, ns the submission ran */
#define COPRO_SLOG_BLOCKED          5   /* WAIT address, value awaited */
#define COPRO_SLOG_UNBLOCKED        6   /* WAIT address, value seen */
#define COPRO_SLOG_BUDGET           7   /* frame time, budget: dropped to
                                           IDLE until the next vsync */
#define COPRO_SLOG_RESET            8   /* fence aborted, ns waited */
#define COPRO_SLOG_ERROR            9   /* COPRO_HWS_ERR_*, address or
                                           value */
#define COPRO_SLOG_FRAME            10  /* GPU ns in the frame that ended,
                                           that vsync's VSYNC_COUNT */
#define COPRO_SLOG_RUNLIST          11  /* entries, RL_SEQ (queue NONE) */
#define COPRO_SLOG_TILER_OOM        12  /* parameter buffer, need | (fence
                                           stopped << 32) (its low 32
                                           bits): the queue went to
                                           OOM_WAIT */
#define COPRO_SLOG_OOM_ANSWER       13  /* COPRO_HWS_OOM_*, parameter
                                           buffer: the driver answered */

/* COPRO_SLOG_SWITCH_OUT reasons */
#define COPRO_SLOG_OUT_QUANTUM      1   /* turn over, another is ready */
#define COPRO_SLOG_OUT_PREEMPTED    2   /* a higher band became ready */
#define COPRO_SLOG_OUT_BLOCKED      3   /* head is an unsatisfied WAIT */
#define COPRO_SLOG_OUT_EMPTY        4   /* ring drained */
#define COPRO_SLOG_OUT_BUDGET       5   /* frame budget used up */
#define COPRO_SLOG_OUT_RUNLIST      6   /* removed or suspended */
#define COPRO_SLOG_OUT_RESET        7   /* did not yield: reset */
#define COPRO_SLOG_OUT_ERROR        8   /* its submission faulted */
#define COPRO_SLOG_OUT_SHARE        9   /* yields to the IDLE band */
#define COPRO_SLOG_OUT_TILER_OOM    10  /* parameter buffer full: waits
                                           for the driver (OOM_WAIT) */

_Static_assert(sizeof(struct copro_hwq_desc) == COPRO_HWQ_DESC_SIZE,
               "queue descriptor layout");
_Static_assert(sizeof(struct copro_runlist_entry) ==
               COPRO_RUNLIST_ENTRY_SIZE, "run list entry layout");
_Static_assert(sizeof(struct copro_sched_log_entry) ==
               COPRO_SLOG_ENTRY_SIZE, "log entry layout");

#endif /* COPRO_HWSCHED_H */
