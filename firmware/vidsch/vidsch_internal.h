/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch's own records, shared by its modules (vidsch.c: the API, the
 * upcalls and the event plumbing; vidsch_pick.c: policies, election and
 * preemption decisions; vidsch_recover.c: what to do when an engine stops
 * early; vidsch_sync.c: waits and signals). Nothing outside
 * firmware/vidsch/ includes this.
 *
 * Where a buffer is at any time (WDDM's names in brackets):
 *
 *   context queue   submitted, not chosen yet [the context's queue of
 *                   DMA buffers]; dropped and preempted ones come back to
 *                   its front, in order
 *   engine slot     elected: being prepared by the worker, or prepared
 *                   and waiting for room on the ring ("being prepared" /
 *                   "ready to submit" in the patent)
 *   ring            submitted to the engine, in order [the hardware queue]
 *   done list       finished; its buffer_done callback is pending
 *
 * Paging buffers skip the context queue: they wait on the engine's paging
 * queue and go to the ring before anything else.
 */
#ifndef FW_VIDSCH_VIDSCH_INTERNAL_H
#define FW_VIDSCH_VIDSCH_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi_hws.h"
#include "vidsch/vidsch.h"
#include "vidsch/vidsch_list.h"
#include "vidsch/vidsch_ready.h"
#include "vidsch/vidsch_ring.h"
#include "vidsch/vidsch_tdr.h"

#define VS_NEVER            UINT64_MAX
#define VS_TDR_HISTORY      16      /* most tdr_limit honoured */
#define VS_HWS_HISTORY      16      /* submit times kept per queue */

enum vs_where {
    VS_FREE,
    VS_QUEUED,              /* context queue, or an engine's paging queue */
    VS_SLOT,
    VS_RING,
    VS_DONE,
};

struct vidsch_buf {
    struct vs_link link;            /* context queue, paging queue, done
                                       list or free list */
    struct vs_link fifo;            /* the engine's fifo (fifo policy) */
    struct vidsch_sub sub;          /* the ring entry: linked on the ring
                                       while submitted; fence and flags
                                       persist (RESUME, paging fence) */
    struct vidsch_ctx *ctx;         /* NULL for a paging buffer */
    struct ddi_dmabuf *dma;
    struct ddi_alloc_desc *alloc;
    uint64_t cookie;
    uint64_t seq;                   /* per context, from 1 */
    uint64_t submitted_at;          /* vidsch_submit */
    unsigned engine;
    unsigned submissions;           /* times put on the ring */
    int status;                     /* on the done list */
    uint8_t where;                  /* enum vs_where */
    bool prepared;                  /* patched once: never again */
    bool resident;                  /* make_resident placed its list and
                                       release_resident is owed */
    uint64_t ticket;                /* paging buffer: vidmm's ticket */
    uint64_t wait_ticket;           /* DMA buffer: runs once the paging
                                       buffer with this ticket finished */
    bool started;                   /* has been the ring's head */
    uint64_t ran_ns;                /* time as the ring's head so far */
    bool in_fifo;
    /* splitting: the buffer runs as portions (part), one
     * ring entry each, in order; prepared and resident are the current
     * portion's */
    bool split;
    struct vidsch_portion part;
};

/* A wait (holds the context's buffers from seq on) or a signal (fires
 * once the context's buffers up to seq are done). */
struct vidsch_sync {
    struct vs_link link;
    volatile uint64_t *addr;
    uint64_t value;
    uint64_t seq;
};

enum vs_ctx_state {
    VS_CTX_IDLE,            /* nothing electable */
    VS_CTX_READY,           /* on its engine's ready queue (or fifo) */
    VS_CTX_HELD,            /* its next buffer waits on a sync object */
};

struct vidsch_ctx {
    struct vs_link rq;              /* ready level list or the held list */
    struct vs_link lost_link;       /* lost notification pending */
    struct vs_list queue;           /* buffers not on the GPU, in order */
    struct vs_list waits;           /* struct vidsch_sync, by seq */
    struct vs_list signals;         /* struct vidsch_sync, by seq */
    struct vidsch_buf *unfed;       /* fifo: first queued buffer not yet
                                       on the engine's fifo */
    uint32_t id;
    uint32_t device;                /* lost together (0: alone) */
    unsigned engine;
    uint64_t save_addr;
    uint8_t base;                   /* its priority class */
    uint8_t level;                  /* effective: base, or the boost */
    uint8_t rstate;                 /* enum vs_ctx_state */
    bool used, lost, dying;
    bool boosted;                   /* aging: at the level on top ... */
    bool boost_spent;               /* ... for one turn, begun already */
    bool inherited;                 /* level lent by a held context that
                                       waits on a signal of it ... */
    uint8_t inherit_level;          /* ... this one ... */
    struct vidsch_ctx *donor;       /* ... by this one (vidsch_inherit.c) */
    bool in_turn;                   /* quantum: its turn has started and
                                       not ended (it keeps its place at
                                       the head of its level) */
    int64_t credit;                 /* quantum: ns left in its turn */
    uint64_t ready_since;           /* since when it has wanted the engine
                                       without running: set when new work
                                       makes it ready and whenever a buffer
                                       of it runs or ends a turn (what
                                       aging measures) */
    uint64_t next_seq;              /* seq of the next submission */
    uint64_t done_seq;              /* buffers up to this one are done */
    unsigned on_gpu;                /* in the slot or on the ring */
    bool split_open;                /* a split buffer of it is between
                                       portions on the GPU: its later
                                       buffers wait (a context's buffers
                                       run in order) */
    uint64_t buf_avg_ns;            /* smoothed run time of its buffers
                                       (0: none retired yet): how soon
                                       the one running will end */
    bool acct_waiting;              /* queued_ns accounting */
    uint64_t acct_mark;
    struct vidsch_ctx_stats stats;
    /* hardware scheduling (vidsch_hws.c) */
    uint32_t hwq;                   /* its hardware queue */
    struct vidsch_ring hwring;      /* its buffers on it, in order */
    uint64_t hwq_fence;             /* the queue's fences given */
    uint64_t hw_progress_at;        /* last retirement (watchdog) */
    bool hw_suspended;              /* listed suspended by the watchdog */
    uint64_t hw_suspend_at;
    bool hw_in;                     /* the log shows it on the engine ... */
    uint64_t hw_in_at;              /* ... since then */
    uint64_t hw_submitted_at[VS_HWS_HISTORY];  /* by fence: latency */
    struct vidsch_oom_wait hw_oom;  /* its queue's OOM stop waits for
                                       this partial render (addr NULL:
                                       none) before it is answered */
    uint64_t hw_avg_frame_ns;       /* joblist: smoothed frame time */
    uint64_t hw_peak_frame_ns;      /* joblist: recent peak */
};

struct vidsch_engine {
    unsigned index;
    struct vidsch_ring ring;
    struct vs_list paging;          /* paging buffers for the ring */
    struct vidsch_buf *slot;        /* elected (being prepared / prepared) */
    bool slot_prepared;
    bool resident_wait;             /* make_resident said EBUSY ... */
    uint64_t resident_wait_gen;     /* ... at this release_gen */
    struct vidsch_ready rq;         /* priority and quantum policies */
    struct vs_list fifo;            /* fifo policy: buffers in the order
                                       they became electable */
    uint64_t last_fence;            /* SubmissionFenceIds given */
    uint64_t preempt_seq;           /* preemption request ids given */
    uint64_t preempt_id;            /* request in flight, 0 if none */
    uint64_t preempt_at;            /* ... asked at */
    uint64_t switch_ns;             /* measured context save time: the
                                       shortest request-to-PREEMPTED of
                                       a mid-buffer preemption (0: none
                                       yet); caps.ctx_switch_ns wins */
    bool preempt_deferred;          /* a preemption waits for the head's
                                       expected end (switch cost) ... */
    uint64_t defer_until;           /* ... then */
    uint64_t head_since;            /* when the ring's oldest entry began
                                       executing (as far as we can tell:
                                       when it reached the head) */
    unsigned depth;                 /* ring entries the policy allows */
    uint64_t turn_paging;           /* paging bytes since the last turn
                                       began on this engine */
    uint64_t paging_avg;            /* smoothed paging bytes per turn */
    bool fighting;                  /* eviction fighting: longer turns */
    bool watch_wasted;              /* a buffer of watch_ctx was preempted
                                       mid-buffer and nothing ran since */
    uint32_t watch_ctx;             /* (context id: wasted preemptions) */
    struct vidsch_tdr tdr;
    struct vidsch_engine_stats stats;
    /* hardware scheduling (vidsch_hws.c) */
    uint32_t paging_hwq;            /* its paging queue, or NONE */
    struct vidsch_ring paging_ring; /* paging buffers on it */
    uint64_t paging_fence;
    bool rl_dirty;                  /* the run list must be rewritten */
    /* hardware mode: the watchdog's next deadline, as last computed when
     * the timer was armed (vs_hws_deadline): before it, nothing is due
     * and the watchdog is not walked */
    uint64_t wd_at;
};

struct vidsch {
    const struct ddi_ops *ops;
    void *drv;
    struct vidsch_env env;
    struct vidsch_config cfg;
    struct ddi_caps caps;
    unsigned nengines;
    struct vidsch_engine engine[DDI_MAX_ENGINES];

    struct vidsch_ctx *ctxs;
    struct vidsch_buf *bufs;
    struct vidsch_sync *syncs;
    struct vs_list free_bufs, free_syncs;
    struct vs_list held;            /* contexts held on a wait */
    struct vs_list done;            /* finished buffers to report */
    struct vs_list lost;            /* lost contexts to report */
    unsigned live;                  /* buffer records in use */

    unsigned nesting;               /* public calls in progress */
    bool dirty;                     /* decisions to make before returning */
    bool sync_dirty;                /* sync values may have changed */
    bool work_queued;               /* env->queue_work outstanding */
    unsigned worker_next;           /* engine the worker serves next */
    uint64_t timer_at;              /* armed timer, VS_NEVER if none */
    uint64_t last_poll;             /* held contexts last looked at */

    uint64_t tdr_times[VS_TDR_HISTORY];     /* recent TDR resets */
    unsigned tdr_count;

    uint64_t paging_done;           /* highest finished paging ticket */
    uint64_t release_gen;           /* buffers finished or handed back:
                                       memory may have come free */

    struct vidsch_stats stats;

    /* hardware scheduling (vidsch_hws.c) */
    bool hws;
    const struct ddi_hws_ops *hws_ops;
    struct vidsch_ctx *hwq_ctx[COPRO_HWQ_MAX];  /* queue -> context */
    struct vidsch_ctx *hw_live[COPRO_HWQ_MAX];  /* the same, packed: the
                                                   decisions walk only
                                                   these */
    unsigned nhw_live;
    uint64_t frame_ns;
    uint64_t log_at;                /* the device's log last came */
    struct vidsch_hws_stats hws_stats;
    struct vidsch_cycles cyc;
};

/* ---- vidsch.c ---- */
/* A public call's frame (enter ... leave: decisions and callbacks on the
 * way out of the outermost), for the upcalls of other modules. */
void vs_enter(struct vidsch *s);
/* A buffer record from the free list (NULL if none) */
struct vidsch_buf *vs_buf_alloc(struct vidsch *s);
/* b (a paging buffer vidmm built) queued on engine's paging list */
void vs_paging_enqueue(struct vidsch *s, struct vidsch_buf *b,
                       unsigned engine, struct ddi_dmabuf *buf,
                       uint64_t cookie, uint64_t ticket);
void vs_leave(struct vidsch *s);
uint64_t vs_now(struct vidsch *s);
/* The CPU's cycle counter (0 without env.cycles): struct vidsch_cycles */
uint64_t vs_cycles(const struct vidsch *s);
void vs_trace(struct vidsch *s, enum vidsch_trace_kind kind, unsigned engine,
              const struct vidsch_ctx *c, const struct vidsch_buf *b,
              uint64_t fence, unsigned reason);
/* Reports b finished with status (after its callback queue), updates its
 * context's counters and signals. b must be off every list. */
void vs_finish(struct vidsch *s, struct vidsch_buf *b, int status);
void vs_ctx_account(struct vidsch *s, struct vidsch_ctx *c);
/* A buffer of the context started lat_ns after it was submitted: the
 * latency histogram, sum and maximum (either mode's path to the engine). */
void vs_count_start(struct vidsch_ctx_stats *st, uint64_t lat_ns);
/* Gives b's residency back to vidmm (release_resident), once. */
void vs_release_resident(struct vidsch *s, struct vidsch_buf *b,
                         uint64_t fence);
/* The bytes of b the next ring entry runs: the current portion of a
 * split buffer, else all of it. */
static inline uint32_t vs_run_first(const struct vidsch_buf *b)
{
    return b->split ? b->part.first : 0;
}

static inline uint32_t vs_run_end(const struct vidsch_buf *b)
{
    return b->split ? b->part.end : b->dma->len_bytes;
}

/* b's portion retired and more follow: b goes back to its context's
 * queue for the next one (vidsch.c). */
void vs_portion_done(struct vidsch *s, struct vidsch_engine *e,
                     struct vidsch_buf *b);
/* b may go on the ring: its paging buffer (if any) has finished. */
static inline bool vs_paging_ready(const struct vidsch *s,
                                   const struct vidsch_buf *b);

static inline bool vs_fifo(const struct vidsch *s)
{
    return s->cfg.policy == VIDSCH_POLICY_FIFO;
}

static inline bool vs_quantum(const struct vidsch *s)
{
    return s->cfg.policy == VIDSCH_POLICY_QUANTUM;
}

static inline struct vidsch_engine *vs_engine_of(struct vidsch *s,
                                                 const struct vidsch_ctx *c)
{
    return &s->engine[c->engine];
}

static inline struct vidsch_ctx *vs_rq_ctx(struct vs_link *n)
{
    return vs_entry(n, struct vidsch_ctx, rq);
}

/* ---- vidsch_pick.c ---- */
/* Recomputes c's state (idle / ready / held) and its queue membership. */
void vs_ctx_update(struct vidsch *s, struct vidsch_ctx *c);
/* Every decision for one engine: unstage, preempt, fill the ring, elect. */
void vs_schedule_engine(struct vidsch *s, struct vidsch_engine *e);
/* Earliest time a decision of e depends on (quantum end, aging). */
uint64_t vs_pick_deadline(struct vidsch *s, struct vidsch_engine *e);
/* Quantum credit left to c, counting the buffer of c executing now. */
int64_t vs_credit_now(struct vidsch *s, const struct vidsch_ctx *c);
void vs_request_preempt(struct vidsch *s, struct vidsch_engine *e,
                        enum vidsch_preempt_reason why);
/* Has another context at level >= c's a buffer on e's ring? Round robin
 * counts it as waiting, as one in a ready list (issue 26 item 6). */
bool vs_peer_on_ring(const struct vidsch_engine *e,
                     const struct vidsch_ctx *c);
/* Before a stop gives the ring's entries back: the slot's buffer, elected
 * after them, is handed back first if they are of its level or above. */
void vs_slot_yields_to_ring(struct vidsch *s, struct vidsch_engine *e);
/* One context save (or restore) on e, ns (0: unknown). */
uint64_t vs_switch_ns(const struct vidsch *s, const struct vidsch_engine *e);

/* ---- vidsch_turn.c ---- */
/* Ends c's turn (quantum): back to the tail of its own level. */
void vs_end_turn(struct vidsch *s, struct vidsch_ctx *c);
/* A boosted context goes back to its own level (at the tail). */
void vs_unboost(struct vidsch *s, struct vidsch_ctx *c);
/* Aging: boosts a context starving below the top ready level of e. */
void vs_age(struct vidsch *s, struct vidsch_engine *e);
/* The context whose buffer runs next on e (beginning or ending turns
 * under the quantum policy), or NULL. */
struct vidsch_ctx *vs_pick_ctx(struct vidsch *s, struct vidsch_engine *e);
/* Aging looks at this many contexts at the head of each level. */
#define VS_AGING_LOOK   4

/* ---- vidsch_recover.c ---- */
/* The ring's oldest entry changed (retire or stop): who runs now. */
void vs_head_changed(struct vidsch *s, struct vidsch_engine *e);
void vs_retire_upto(struct vidsch *s, struct vidsch_engine *e,
                    uint64_t completed);
void vs_on_preempted(struct vidsch *s, struct vidsch_engine *e,
                     uint64_t preempt_fence, uint64_t preempted,
                     uint64_t completed);
void vs_on_fault(struct vidsch *s, struct vidsch_engine *e,
                 const struct ddi_fault *f);
/* The engine stopped by itself (not asked: a TILER_OOM) with the fences
 * of a preemption: requeues as vs_on_preempted does (interrupted gets
 * RESUME, dropped entries go back as they were, nobody is blamed).
 * false: the fences were inconsistent (the engine was reset). */
bool vs_on_stopped(struct vidsch *s, struct vidsch_engine *e,
                   uint64_t completed, uint64_t interrupted);

/* ---- vidsch_scene.c ---- */
void vs_on_tiler_oom(struct vidsch *s, struct vidsch_engine *e,
                     uint64_t oom_fence, uint32_t need, uint64_t completed);
void vs_tdr_poll(struct vidsch *s, struct vidsch_engine *e);
/* Puts the context in error: its buffers lost, its signals written. */
void vs_lose_ctx(struct vidsch *s, struct vidsch_ctx *c);
/* Gives b back to whoever submits it next (context queue front, or the
 * paging queue front), or reports it lost if its context is gone. */
void vs_requeue_front(struct vidsch *s, struct vidsch_engine *e,
                      struct vidsch_buf *b);

/* ---- vidsch_inherit.c ---- */
/* w is held: lend its level to the contexts whose pending signals would
 * release it. */
void vs_inherit_from(struct vidsch *s, struct vidsch_ctx *w);
/* w is not held any more: what it lent comes back. */
void vs_inherit_release(struct vidsch *s, struct vidsch_ctx *w);
/* A signal was queued: the held contexts lend again. */
void vs_inherit_signal(struct vidsch *s);

/* ---- vidsch_hws.c (hardware scheduling) ---- */
/* At vidsch_create: false if the DDI has no hws ops. */
bool vs_hws_init(struct vidsch *s);
/* A context's queue: DDI_OK or why not. */
int vs_hws_ctx_create(struct vidsch *s, struct vidsch_ctx *c);
/* The context is forgotten: off the run list, queue destroyed. */
void vs_hws_ctx_gone(struct vidsch *s, struct vidsch_ctx *c);
/* Every decision for one engine in hardware mode (vs_schedule_engine's
 * counterpart): feed the queues, write the run list. */
void vs_hws_schedule_engine(struct vidsch *s, struct vidsch_engine *e);
uint64_t vs_hws_deadline(struct vidsch *s, struct vidsch_engine *e);
void vs_hws_up_progress(void *os, const struct ddi_hwq_progress *p,
                        unsigned n);
void vs_hws_up_oom(void *os, uint32_t queue, const struct ddi_hwq_oom *oom);
void vs_hws_oom_poll(struct vidsch *s, struct vidsch_engine *e);
void vs_hws_up_error(void *os, uint32_t queue,
                     const struct ddi_hwq_error *err);
void vs_hws_up_log(void *os, const struct copro_sched_log_entry *ent,
                   unsigned n, uint32_t dropped);

/* ---- vidsch_sync.c ---- */
struct vidsch_sync *vs_sync_alloc(struct vidsch *s);
void vs_sync_free(struct vidsch *s, struct vidsch_sync *y);
/* Writes the signals of c whose buffers are all done (all if lost). */
void vs_fire_signals(struct vidsch *s, struct vidsch_ctx *c);
/* Looks again at every held context's wait. */
void vs_poll_held(struct vidsch *s);
/* The first wait of c that holds buffer seq and is not satisfied (drops
 * the satisfied ones in front of it), or NULL. */
struct vidsch_sync *vs_blocking_wait(struct vidsch *s, struct vidsch_ctx *c,
                                     uint64_t seq);

static inline struct vidsch_buf *vs_buf_of_sub(struct vidsch_sub *sub)
{
    return vs_container_of(sub, struct vidsch_buf, sub);
}

static inline struct vidsch_buf *vs_queue_head(const struct vidsch_ctx *c)
{
    return vs_entry(vs_list_first(&c->queue), struct vidsch_buf, link);
}

static inline struct vidsch_buf *vs_ring_head(const struct vidsch_engine *e)
{
    struct vidsch_sub *sub = vidsch_ring_oldest(&e->ring);

    return sub ? vs_buf_of_sub(sub) : NULL;
}

static inline bool vs_is_paging(const struct vidsch_buf *b)
{
    return b->ctx == NULL;
}

static inline bool vs_paging_ready(const struct vidsch *s,
                                   const struct vidsch_buf *b)
{
    return b->wait_ticket <= s->paging_done;
}

#endif /* FW_VIDSCH_VIDSCH_INTERNAL_H */
