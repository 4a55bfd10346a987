/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch: the GPU scheduler (US 7,444,637; WDDM's VidSch). Pure C: it sees
 * the GPU only through the DDI (ddi/ddi.h) and the rest of the OS only
 * through struct vidsch_env, so the same code runs in the firmware (the
 * kernel's event loop drives it) and on the host against tests/sim.
 *
 * Per engine: one running DMA buffer (plus what is queued on the ring),
 * one being prepared, per-priority ready queues of contexts with an O(1)
 * pick, and contexts blocked on a sync object. Buffers flow:
 *   vidsch_submit (after render) -> context queue -> context ready ->
 *   elected -> prepared on the worker (vidmm residency, patch) ->
 *   ring -> completed | preempted (resume later) | dropped (resubmit) |
 *   aborted by TDR (lost).
 *
 * Threading model: everything runs at one level (the kernel's event loop
 * or the simulator's event loop), never re-entered: upcalls and timers
 * are delivered by the environment between calls.
 *
 * THIS HEADER IS THE CONTRACT BETWEEN THE KERNEL AND THE SCHEDULER. The
 * scheduler may add to it; changing what is here needs both sides.
 */
#ifndef FW_VIDSCH_VIDSCH_H
#define FW_VIDSCH_VIDSCH_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"

/* Priority classes, as D3DKMT's scheduling priority classes. */
enum vidsch_priority {
    VIDSCH_PRIO_IDLE,
    VIDSCH_PRIO_BELOW_NORMAL,
    VIDSCH_PRIO_NORMAL,
    VIDSCH_PRIO_ABOVE_NORMAL,
    VIDSCH_PRIO_HIGH,
    VIDSCH_PRIO_REALTIME,
    VIDSCH_PRIO_COUNT,
};

enum vidsch_policy {
    VIDSCH_POLICY_FIFO,     /* cooperative, submission order, no preemption */
    VIDSCH_POLICY_PRIORITY, /* highest ready priority; preempts lower */
    VIDSCH_POLICY_QUANTUM,  /* priority + round robin with a quantum, aging */
    VIDSCH_POLICY_JOBLIST,  /* (added) hardware scheduling only: at every
                               vsync, per-queue budgets for the next frame
                               from the last one's actual times (US
                               7,444,637's job list; vidsch_hws.c) */
};

const char *vidsch_policy_name(enum vidsch_policy p);
/* "fifo" | "priority" | "quantum" | "joblist" -> 0 and *p, else -1 */
int vidsch_policy_parse(const char *s, enum vidsch_policy *p);

struct vidsch_config {
    enum vidsch_policy policy;
    uint64_t quantum_ns;        /* quantum policy: turn length */
    uint64_t aging_ns;          /* ready this long without running: boost */
    uint64_t tdr_timeout_ns;    /* no progress this long: preempt */
    uint64_t tdr_grace_ns;      /* preemption not honoured: reset */
    unsigned tdr_limit;         /* resets within tdr_window_ns ... */
    uint64_t tdr_window_ns;     /* ... that escalate to a device reset */
    bool serial_prepare;        /* prepare only once the engine is idle
                                   (the `overlap` baseline) */
    /* Added by the scheduler (defaults from vidsch_config_default): */
    unsigned ring_depth;        /* most submissions kept on an engine's
                                   ring; 0: automatic (1 when the device
                                   cannot preempt, 2 otherwise), always
                                   below caps.ring_entries */
    uint64_t sync_poll_ns;      /* while a context is held on a wait, look
                                   at the value at least this often */
    unsigned max_contexts;      /* table sizes: vidsch_create needs at */
    unsigned max_buffers;       /* least vidsch_storage_size(these) bytes;
                                   max_buffers also bounds the waits and
                                   signals pending at once */
    /* Eviction fighting (quantum policy): when an engine's smoothed
     * paging bytes per turn (what vidmm moved to make each turn's
     * buffers resident) reach fight_bytes, contexts of the same level
     * are evicting each other's allocations at every switch; turns then
     * last fight_factor quanta, so the working sets are swapped
     * fight_factor times less often. Back to normal turns once the
     * smoothed figure falls below fight_bytes / 2 (hysteresis).
     * fight_bytes 0: off. */
    uint64_t fight_bytes;
    unsigned fight_factor;      /* >= 1 (0 and 1: turns never change) */
    /* (added) Hardware scheduling [HwSchEnabled] (vidsch_hws.c): each
     * context gets a hardware queue, the device makes every switch and
     * vidsch writes the run lists (bands, quanta, budgets). Needs the
     * DDI's hws ops (vidsch_create fails without them). */
    bool hwsched;
    uint32_t hws_low_share;     /* permille of a frame NORMAL yields to
                                   IDLE (the device's LOW_SHARE) */
    enum vidsch_priority hws_irq_prio;  /* contexts at or above it get a
                                           completion interrupt; the
                                           others are reaped at the next
                                           interrupt (at most a frame) */
    unsigned hws_depth;         /* submissions on a queue at once (16)
                                   for a queue without completion
                                   interrupts: it is refilled at the next
                                   interrupt, so it must hold a frame's
                                   work or the engine idles; 2 for the
                                   others (at most this) */
};

void vidsch_config_default(struct vidsch_config *c);

/*
 * (added) The watchdog's smallest settings; vidsch_create raises smaller
 * ones to these (kboot says so on the console). A healthy buffer must be
 * able to honour a preemption within the grace: the device's longest
 * stretch without an arbitration point plus a context save (100 us and
 * 31 us with copro's defaults); and a timeout shorter than a few frames
 * of work only preempts healthy buffers over and over. Above the
 * minimum, the grace also grows to twice the longest preemption the
 * engine has honoured (a large ctx-state-size: a 16 MiB save takes 2 ms),
 * so tdr_grace_ms=0 never resets a healthy engine.
 */
#define VIDSCH_TDR_TIMEOUT_MIN_NS   (10ull * 1000000)
#define VIDSCH_TDR_GRACE_MIN_NS     (1ull * 1000000)

struct vidsch_trace;            /* below */

/*
 * (added) What vidmm's residency hook gives back for one DMA buffer
 * (vidsch_env.make_resident).
 */
struct vidsch_residency {
    struct ddi_dmabuf *paging;  /* a paging buffer to run first (the
                                   scheduler puts it on paging_engine's
                                   paging queue, cookie paging_cookie);
                                   NULL: nothing to move */
    unsigned paging_engine;
    uint64_t paging_cookie;
    uint64_t paging_ticket;     /* its ticket (> 0, increasing) */
    uint64_t wait_ticket;       /* the DMA buffer starts only once the
                                   paging buffer with this ticket has
                                   finished; 0: at once */
    uint64_t paging_bytes;      /* bytes that paging buffer moves (0 if
                                   none, or unknown): the scheduler's
                                   measure of eviction fighting */
};

/* (added) One portion of a split buffer (vidsch_env.make_portion). */
struct vidsch_portion {
    uint32_t first, end;        /* bytes [first, end) of the buffer */
    uint32_t slots;             /* allocation-list slots made resident (a
                                   mask, the hook's to define) */
};

/*
 * (added) What the resumed geometry buffer waits for after a TILER_OOM
 * answered with a partial render (vidsch_env.scene_oom): a monitored
 * fence, as vidsch_wait takes.
 */
struct vidsch_oom_wait {
    volatile const uint64_t *addr;
    uint64_t value;
};

/*
 * What the scheduler needs from the OS around it. now() is the GPU clock
 * (virtual ns). set_timer() asks for vidsch_timer() to be called at (or
 * soon after) the given time; one timer, re-arming replaces it.
 * queue_work() asks for vidsch_worker() to run soon, at passive level (the
 * patent's worker thread); the sim charges a preparation cost there.
 * Completion and loss are reported per buffer with the cookie the kernel
 * gave at submit.
 */
struct vidsch_env {
    void *os;
    uint64_t (*now)(void *os);
    void (*set_timer)(void *os, uint64_t when_ns);
    void (*queue_work)(void *os);
    /* the buffer retired (status DDI_OK) or was lost (DDI_ELOST); or
     * (added) patch refused it at schedule time: that DDI error, and the
     * buffer never ran */
    void (*buffer_done)(void *os, uint64_t cookie, int status);
    /* the context was put in error by TDR (its process: device removed) */
    void (*context_lost)(void *os, uint32_t context);
    /* Added by the scheduler. Optional (NULL: none): every scheduling
     * decision as it is made, for timelines and the host's property
     * checkers (struct vidsch_trace below). */
    void (*trace)(void *os, const struct vidsch_trace *ev);
    /*
     * (added) vidmm's residency work at schedule time [VidMm during
     * VidSch's preparation of a DMA buffer]. Optional: NULL is fixed
     * placement (alloc[] final at submit, as before).
     *
     * make_resident places buf's allocation list, writes alloc[i].gpu_addr
     * and may hand back a paging buffer (struct vidsch_residency). patched:
     * the buffer was patched already (preempted or handed back): its
     * allocations must come back to alloc[i].gpu_addr (patched once).
     * DDI_OK; DDI_EBUSY: not now (memory held by buffers on the GPU), the
     * scheduler asks again after the next buffer finishes or is handed
     * back; DDI_EBUSY may come with a paging buffer in *out (a step of a
     * residency that needs more than one: the scheduler queues it as
     * with DDI_OK and asks again once a buffer finished); any other error: the buffer is reported finished with it and
     * never runs. Called from the worker; it must not call vidsch.
     *
     * release_resident: the buffer that make_resident placed retired
     * (fence: its fence on engine), was lost (fence 0) or was handed
     * back to its context unfinished (fence 0; make_resident is called
     * again with patched before it runs again). Must not call vidsch.
     */
    int (*make_resident)(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                         struct ddi_alloc_desc *alloc, bool patched,
                         struct vidsch_residency *out);
    void (*release_resident)(void *os, uint64_t cookie,
                             struct ddi_dmabuf *buf, unsigned engine,
                             uint64_t fence);
    /*
     * (added) Splitting [WDDM: a DMA buffer run in portions cut at its
     * patch locations' SplitOffset]. Optional (both or neither).
     * make_resident returns VIDSCH_RESIDENT_SPLIT when buf's allocation
     * list cannot be resident at once but its portions can, one after the
     * other. The scheduler then runs the buffer portion by portion: for
     * the portion beginning at byte first, make_portion places the
     * allocations that portion uses (contract of make_resident otherwise:
     * DDI_EBUSY, patched, the paging buffer) and fills *part: its end
     * (> first, a packet boundary) and what it made resident; the
     * scheduler patches the locations in [first, end), submits that range
     * as one ring entry, and when it retired (or was handed back, or
     * lost: fence 0) gives *part back to release_portion; after a
     * retirement it goes on at end. A portion handed back is made
     * resident again with patched set and *part as it was made (end,
     * slots given), and must keep them.
     * DDI_ENOMEM from make_portion: this portion cannot fit even alone;
     * the buffer is reported finished with DDI_ENOMEM (its context goes
     * on: only that buffer fails).
     */
    int (*make_portion)(void *os, uint64_t cookie, struct ddi_dmabuf *buf,
                        struct ddi_alloc_desc *alloc, uint32_t first,
                        bool patched, struct vidsch_residency *out,
                        struct vidsch_portion *part);
    void (*release_portion)(void *os, uint64_t cookie,
                            struct ddi_dmabuf *buf,
                            const struct vidsch_portion *part,
                            unsigned engine, uint64_t fence);
    /*
     * (added) The CPU's cycle counter. Optional (NULL: the CPU's cost is
     * not measured, vidsch_cycles stays 0). Read at the boundaries of
     * vidsch's work so that its cost is split into scheduling proper and
     * completion work (struct vidsch_cycles).
     */
    uint64_t (*cycles)(void *os);
    /*
     * (added) Scene-based rendering (vidsch_scene.c): the geometry
     * buffer cookie of context (its save area save_addr, where the
     * device saved its progress and the scene's parameter buffer
     * address) stopped with TILER_OOM, the primitive that did not fit
     * needing need more heap bytes. The OS (vidmm, vidmm_pb.h) answers:
     *  - VIDSCH_OOM_RESUME: it grew the parameter buffer; the stopped
     *    buffer resumes (RESUME, first in its context's queue);
     *  - VIDSCH_OOM_PARTIAL: it will run a partial render of the scene
     *    (a TILE_RENDER with COPRO_TILE_PARTIAL, on a context of its
     *    own: not this one, whose save area holds the stopped geometry)
     *    and fills *wait: the stopped buffer resumes only once
     *    *wait->addr >= wait->value (a monitored fence the OS signals
     *    when its partial render has retired, e.g. with vidsch_signal
     *    after it on its context). vidsch holds the resumed buffer on
     *    that wait at the front of its context's queue (vidsch's held
     *    state) before it returns from the upcall; the OS submits the
     *    partial render after that (from a work item: not from here).
     *    wait is NULL when vidsch has no room to hold the buffer (its
     *    sync table is full): PARTIAL is then taken as FAIL;
     *  - VIDSCH_OOM_FAIL: the scene cannot be built (the context is put
     *    in error, as for a fault: only its own work is lost).
     * Every other context's dropped entries go back as they were,
     * whatever the answer. Called at DPC level; must not call vidsch.
     * NULL: every OOM fails.
     */
    int (*scene_oom)(void *os, uint64_t cookie, uint32_t context,
                     uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait);
};

/* Answers of vidsch_env.scene_oom. */
enum vidsch_oom_answer {
    VIDSCH_OOM_RESUME,
    VIDSCH_OOM_FAIL,
    VIDSCH_OOM_PARTIAL,
};

/* make_resident's answer for a buffer to run in portions (not a DDI
 * error: positive). */
#define VIDSCH_RESIDENT_SPLIT   1

/*
 * Callbacks and re-entry: buffer_done and context_lost are called as the
 * outermost vidsch call returns, with the scheduler's state consistent,
 * and may call vidsch_submit, vidsch_submit_paging, vidsch_signal,
 * vidsch_wait, vidsch_sync_changed, vidsch_ctx_create and the read-only
 * queries (an application's fence callback submitting its next frame at
 * once is fine); the work they start is scheduled before that call
 * returns. They must not call vidsch_timer, vidsch_worker, the upcalls or
 * vidsch_ctx_destroy. trace is called in the middle of decisions and must
 * not call vidsch at all. set_timer and queue_work must not call back
 * (they only arrange for a later call).
 */

struct vidsch;                  /* opaque; vidsch_create gives one */
struct vidsch_ctx;              /* a scheduling context */

/* Per-context statistics (os.md section 4). */
struct vidsch_ctx_stats {
    uint64_t gpu_ns;            /* time on the engine (submit->retire of
                                   its buffers, as the device charges) */
    uint64_t queued_ns;         /* time ready but not running */
    uint64_t submitted, completed, lost;
    uint64_t preemptions;       /* times one of its buffers was preempted */
    uint64_t latency_ns[8];     /* submit->start histogram: <10us, <100us,
                                   <1ms, <10ms, <100ms, <1s, <10s, more */
    uint64_t latency_max_ns;
    /* Added by the scheduler: */
    uint64_t resumed;           /* preempted buffers resubmitted (RESUME) */
    uint64_t resubmitted;       /* dropped ring entries submitted again */
    uint64_t boosts;            /* aging boosts against starvation */
    uint64_t latency_sum_ns;    /* for the mean: latency_sum_ns/started */
    uint64_t started;           /* buffers that started on the engine */
    uint64_t paging_bytes;      /* paging its buffers caused (bytes vidmm
                                   moved to make them resident) */
    uint64_t wasted_preemptions;    /* preemptions of one of its buffers
                                       after which its own buffer was the
                                       next to run on the engine (should
                                       be 0: see vidsch_pick.c) */
    uint64_t inherits;          /* levels lent to it by held contexts
                                   waiting on its signals */
    /* hardware scheduling, from the device's log (vidsch_hws.c) */
    uint64_t budget_ns;         /* its budget per frame now (0: none) */
    uint64_t last_frame_ns;     /* GPU time in the last frame */
    uint64_t frames_run;        /* frames in which it ran */
    uint64_t frames_over;       /* ... and used more than its budget */
    uint64_t frames_gpu_ns;     /* the sum of its FRAME times (the device's
                                   GPU time, as budgets count it) ... */
    uint64_t frames_budget_ns;  /* ... and of its budgets in those frames */
};

#define VIDSCH_LATENCY_BUCKETS  8

/* Per-engine statistics (added by the scheduler). */
struct vidsch_engine_stats {
    uint64_t elected;           /* buffers chosen to run next */
    uint64_t prepared;          /* ... prepared on the worker */
    uint64_t prepared_ahead;    /* ... while the engine still had work on
                                   its ring (the overlap; never with
                                   serial_prepare) */
    uint64_t submitted;         /* ring entries written (resubmits too) */
    uint64_t completed;         /* buffers retired */
    uint64_t unstaged;          /* prepared buffers handed back to their
                                   context for more urgent work */
    uint64_t preempt_requests[4];   /* by enum vidsch_preempt_reason */
    uint64_t preemptions;       /* PREEMPTED upcalls acted on */
    uint64_t preempted_mid_buffer;  /* ... that interrupted a buffer */
    uint64_t wasted_preemptions;    /* ... after which the interrupted
                                       buffer's context was the next to
                                       run (preempted to run itself) */
    uint64_t switch_ns;             /* one context save (or restore), ns:
                                       caps.ctx_switch_ns, or measured */
    uint64_t preempts_deferred;     /* preemptions not asked because the
                                       running buffer was expected to end
                                       within the switch cost */
    uint64_t dropped;           /* ring entries the engine dropped */
    uint64_t resets;            /* engine resets (TDR, fault, device) */
    uint64_t faults;            /* FAULTED upcalls acted on */
    uint64_t stale_upcalls;     /* upcalls about work already settled */
    uint64_t inconsistent;      /* fences that fit no outstanding list: a
                                   driver or device bug (engine reset) */
    uint64_t busy_ns;           /* sum of buffers' time on the engine */
    /* eviction fighting (quantum policy; vidsch_config.fight_bytes) */
    uint64_t turns;             /* turns begun (context switches of the
                                   round robin, boosted turns included) */
    uint64_t paging_bytes;      /* paging for this engine's DMA buffers */
    uint64_t paging_per_turn;   /* smoothed paging bytes per turn, now */
    uint64_t fight_episodes;    /* times fighting was detected */
    uint64_t fight_turns;       /* turns lengthened because of it */
    /* splitting (vidsch_env.make_portion) */
    uint64_t split_buffers;     /* DMA buffers run in portions */
    uint64_t portions;          /* portions retired (the last included) */
    /* scene-based rendering (vidsch_scene.c) */
    uint64_t tiler_ooms;        /* TILER_OOM upcalls acted on */
    uint64_t tiler_oom_resumed; /* ... answered by a grow: resumed */
    uint64_t tiler_oom_partial; /* ... answered by a partial render: the
                                   resumed buffer held on its wait */
    uint64_t tiler_oom_failed;  /* ... that lost the scene's context */
};

/* Device-wide statistics (added by the scheduler). */
struct vidsch_stats {
    uint64_t tdr_resets;        /* engine resets for a timeout */
    uint64_t device_resets;     /* every engine reset at once: too many
                                   TDRs in the window, or a paging buffer
                                   was hit */
    uint64_t contexts_lost;
    uint64_t contexts_lost_with_device; /* of those, not guilty: lost
                                           because another context of
                                           their device was */
};

/* (added) Hardware scheduling: what vidsch did and what the device told
 * it (vidsch_hws.c). */
struct vidsch_hws_stats {
    uint64_t runlist_commits;   /* run lists written */
    uint64_t runlist_refused;   /* ... that the device refused */
    uint64_t queue_submits;     /* submissions written to queues */
    uint64_t progress_upcalls, error_upcalls, log_upcalls;
    uint64_t log_entries;       /* entries read */
    uint64_t log_dropped;       /* lost (device full) */
    uint64_t log_bad;           /* entries naming no queue of ours */
    uint64_t device_switches;   /* SWITCH_IN entries */
    uint64_t device_preemptions;    /* PREEMPTED entries */
    uint64_t device_resets;     /* RESET entries */
    uint64_t frames;            /* FRAME batches (vsyncs) */
    uint64_t budget_drops;      /* BUDGET entries */
    uint64_t suspensions;       /* queues suspended by the watchdog */
    uint64_t relisted;          /* ... listed again once off the engine */
    uint64_t budget_updates;    /* joblist: run lists rewritten for new
                                   budgets */
};

const struct vidsch_hws_stats *vidsch_hws_stats(const struct vidsch *s);

/*
 * (added) vidsch's own CPU time (env.cycles), on every path into it
 * (upcalls, timer, worker, and the kernel API's calls):
 *  - decide: scheduling proper: electing, preparing for the ring
 *    (residency, patch), preemption requests, quantum and watchdog
 *    timers, run lists and budgets, re-arming the timer;
 *  - complete: completion work: retiring buffers, signalling monitored
 *    fences, releasing residency, the buffer_done and context_lost
 *    callbacks (the kernel's bookkeeping of them), reading the device's
 *    log into the statistics.
 */
struct vidsch_cycles {
    uint64_t decide, complete;
    uint64_t prepare;           /* of decide: the worker's preparation */
};

const struct vidsch_cycles *vidsch_cycles(const struct vidsch *s);

/* (added) Whether vidsch waits for GPU progress itself (hardware mode:
 * held contexts, a slot, paging in flight, buffers waiting for room on
 * their queue); the kernel keeps completion interrupts on meanwhile.
 * Software mode: always true. */
bool vidsch_wants_progress(const struct vidsch *s);
bool vidsch_hwsched(const struct vidsch *s);

/* Why the scheduler asked an engine to preempt. */
enum vidsch_preempt_reason {
    VIDSCH_PREEMPT_PRIORITY,    /* more urgent work is prepared */
    VIDSCH_PREEMPT_QUANTUM,     /* the running context's turn is over */
    VIDSCH_PREEMPT_TDR,         /* the watchdog: no progress */
    VIDSCH_PREEMPT_OTHER,
};

/*
 * Trace events (env->trace), one per decision. A checker can rebuild the
 * scheduler's view from them; the host property tests do.
 */
enum vidsch_trace_kind {
    VIDSCH_TRACE_ELECT,         /* buffer chosen to run next (level: the
                                   context's effective priority then) */
    VIDSCH_TRACE_PREPARED,      /* the worker patched it */
    VIDSCH_TRACE_UNSTAGE,       /* a prepared buffer handed back */
    VIDSCH_TRACE_SUBMIT,        /* written to the ring (fence, flags) */
    VIDSCH_TRACE_RETIRE,        /* retired */
    VIDSCH_TRACE_PREEMPT,       /* preemption requested (reason) */
    VIDSCH_TRACE_PREEMPTED,     /* preemption done (fence: the one it
                                   interrupted, 0 if none) */
    VIDSCH_TRACE_RESET,         /* engine reset (fence: aborted) */
    VIDSCH_TRACE_DEVICE_RESET,
    VIDSCH_TRACE_LOST,          /* context put in error */
    VIDSCH_TRACE_BOOST,         /* aging boost (level: the boost level) */
    VIDSCH_TRACE_UNBOOST,       /* back to its own priority */
    VIDSCH_TRACE_HOLD,          /* context held on a wait */
    VIDSCH_TRACE_RELEASE,       /* not held any more (reason 1: its wait
                                   is satisfied and it has nothing on the
                                   GPU, so its aging clock starts; 0:
                                   otherwise) */
    VIDSCH_TRACE_PREPARE,       /* (added) the worker starts preparing it
                                   (PREPARED when done): for timelines */
    VIDSCH_TRACE_FIGHT,         /* (added) eviction fighting on the engine
                                   detected (reason 1: longer turns from
                                   now on) or over (reason 0); fence: the
                                   smoothed paging bytes per turn */
    VIDSCH_TRACE_INHERIT,       /* (added) priority inheritance: the
                                   context runs at level (reason 1) lent
                                   by the held context whose id is fence,
                                   or gives it back (reason 0) */
};

struct vidsch_trace {
    enum vidsch_trace_kind kind;
    unsigned engine;
    uint64_t time;              /* env->now */
    uint32_t context;           /* hardware id; 0 for paging or none */
    uint64_t cookie;            /* the buffer's, when there is one */
    uint64_t fence;
    uint32_t flags;             /* SUBMIT: COPRO_SUBMIT_* */
    unsigned level;             /* effective priority (ELECT, BOOST) */
    unsigned reason;            /* PREEMPT: enum vidsch_preempt_reason;
                                   RELEASE: see above */
};

/* Creates a scheduler over dev with env; NULL if out of memory (the
 * firmware gives it static storage: see vidsch_storage_size), or (added)
 * if storage_bytes < vidsch_storage_size(cfg->max_contexts,
 * cfg->max_buffers) or the storage is not 8-byte aligned. */
struct vidsch *vidsch_create(void *storage, uint64_t storage_bytes,
                             struct ddi_device *dev,
                             const struct vidsch_env *env,
                             const struct vidsch_config *cfg);
uint64_t vidsch_storage_size(unsigned max_contexts, unsigned max_buffers);

/* The upcalls the driver must be given (os = the struct vidsch *). */
extern const struct ddi_upcalls vidsch_upcalls;

/* Contexts: id is the hardware context id on the ring; save_addr its
 * save area (COPRO_SAVE_SIZE bytes of GPU memory, from the kernel). */
struct vidsch_ctx *vidsch_ctx_create(struct vidsch *s, uint32_t id,
                                     unsigned engine,
                                     enum vidsch_priority prio,
                                     uint64_t save_addr);
/* Drops its queued buffers (reported lost) and forgets it once its
 * running buffer has retired; false if it has work on the GPU still
 * (call again later). */
bool vidsch_ctx_destroy(struct vidsch *s, struct vidsch_ctx *c);
const struct vidsch_ctx_stats *vidsch_ctx_stats(const struct vidsch_ctx *c);
bool vidsch_ctx_is_lost(const struct vidsch_ctx *c);
/*
 * (added) The device c belongs to [WDDM's DXGDEVICE]: 0 (as created) is
 * none of its own. When a context is lost (TDR blame, a fault, a scene
 * that cannot be built), every context of its device is lost with it
 * at once [device removed]: their queued, prepared and held buffers are
 * reported DDI_ELOST and never run, a buffer of theirs on a ring is
 * stopped at the engine's next arbitration point (reported lost), and
 * their signals are written only when all are in error, so a held
 * buffer of the same device is never released by its sibling's loss.
 * Each is reported with context_lost.
 */
void vidsch_ctx_set_device(struct vidsch_ctx *c, uint32_t device);

/*
 * Queues a rendered DMA buffer on its context. The buffer storage stays
 * the kernel's until buffer_done(cookie). alloc: the allocation
 * descriptors of buf->alloc (placement filled by vidmm before patch; in
 * fixed placement they are final already). DDI_ELOST for a lost
 * context, DDI_ENOMEM if the scheduler's buffer table is full, (added)
 * DDI_EINVAL if buf is not for the context's engine or its length breaks
 * the descriptor rules.
 */
int vidsch_submit(struct vidsch *s, struct vidsch_ctx *c,
                  struct ddi_dmabuf *buf, struct ddi_alloc_desc *alloc,
                  uint64_t cookie);

/*
 * GPU-side synchronisation on a monitored fence (sync object): signal
 * queues "write value to *cpu_addr when every buffer submitted before it
 * on c has retired"; wait holds c (nothing of it is elected) until
 * *cpu_addr >= value. The scheduler polls the value when fences retire
 * and on its timer; vidsch_sync_changed() tells it a CPU signal happened.
 */
int vidsch_signal(struct vidsch *s, struct vidsch_ctx *c,
                  volatile uint64_t *cpu_addr, uint64_t value);
int vidsch_wait(struct vidsch *s, struct vidsch_ctx *c,
                volatile const uint64_t *cpu_addr, uint64_t value);
void vidsch_sync_changed(struct vidsch *s);
/*
 * Memory came free outside vidsch's sight (an allocation destroyed, an
 * unlock): a buffer whose residency was refused with DDI_EBUSY is made
 * resident again. vidsch asks again by itself only when its own buffers
 * retire or are handed back; when they are all done, nothing else would
 * (the engine stalled with its slot waiting for ever).
 */
void vidsch_memory_changed(struct vidsch *s);
/*
 * (added) The wait holds the buffers submitted on c after the call. When
 * c is lost, its pending signals are written at once (once every context
 * of its device is lost too: vidsch_ctx_set_device), so that no other
 * context waits for ever on a removed device; the OS may then give the
 * device's sync objects an error value (the kernel: UINT64_MAX). Signal
 * and wait on a lost context return DDI_ELOST. DDI_ENOMEM when
 * max_buffers waits and signals are pending already.
 */

/*
 * A paging buffer (vidmm's transfers) for an engine: never preempted, put
 * on the ring before any DMA buffer not yet there, and if an engine stop
 * drops it, resubmitted first with its original fence id (as WDDM does).
 * It is final: not patched. buffer_done(cookie) as for vidsch_submit.
 * DDI_EINVAL for a bad engine, DDI_ENOMEM if the buffer table is full.
 */
int vidsch_submit_paging(struct vidsch *s, unsigned engine,
                         struct ddi_dmabuf *buf, uint64_t cookie);

/* Queries (added by the scheduler). */
uint32_t vidsch_ctx_id(const struct vidsch_ctx *c);
enum vidsch_priority vidsch_ctx_priority(const struct vidsch_ctx *c);
unsigned vidsch_ctx_engine(const struct vidsch_ctx *c);
/* GPU waits and signals of c pending in the scheduler's table (what a
 * process's quota counts). */
unsigned vidsch_ctx_syncs(const struct vidsch_ctx *c);
/* True while a GPU wait or signal on cpu_addr is pending (its memory may
 * not be reused before). */
bool vidsch_sync_in_use(const struct vidsch *s,
                        volatile const uint64_t *cpu_addr);
const struct vidsch_engine_stats *vidsch_engine_stats(const struct vidsch *s,
                                                      unsigned engine);
const struct vidsch_stats *vidsch_stats(const struct vidsch *s);
/* (added) The engine's occupied time until now: every buffer's time at
 * the head of the ring, the one there now included. Never more than the
 * time that passed, unlike the device's STAT_BUSY_NS, which charges a
 * step's whole cost when the step begins (a 1 GiB context save: 125 ms
 * at once). */
uint64_t vidsch_engine_busy_ns(const struct vidsch *s, unsigned engine);
const char *vidsch_priority_name(enum vidsch_priority p);

/* Entry points the environment calls. */
void vidsch_timer(struct vidsch *s);       /* the timer it asked for */
void vidsch_worker(struct vidsch *s);      /* the work it queued */

/* True when nothing is queued, prepared or on any engine. */
bool vidsch_idle(const struct vidsch *s);

#endif /* FW_VIDSCH_VIDSCH_H */
