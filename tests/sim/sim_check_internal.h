/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The property checker's insides, shared by sim_check.c (its model of
 * where every buffer is: the scheduler's trace, the GPU model's observer,
 * readiness) and sim_check_run.c (building a workload's run, driving it,
 * the bounds and the final checks).
 */
#ifndef SIM_CHECK_INTERNAL_H
#define SIM_CHECK_INTERNAL_H

#include "sim_check.h"

#define US  1000ull
#define MS  1000000ull
#define SCRATCH_BYTES   (4u << 20)

enum where { W_NONE, W_QUEUED, W_SLOT, W_RING, W_RETIRED };

struct cbuf {
    struct ddi_dmabuf *dma;
    int ctx;                    /* -1: paging */
    unsigned engine;
    uint64_t check_addr, fence_addr, fence_value;
    uint32_t check_bytes, pattern;
    uint8_t where;
    bool accepted, loaded, ever_elected, elected_boosted;
    bool in_flight_at_loss;     /* on a ring when its device was lost */
    bool held_at_loss;          /* ... or held by a GPU wait then */
    uint64_t loaded_at;         /* the model last loaded it */
    unsigned done, retired;
    int status;
    uint64_t seq;               /* per context, as vidsch numbers them */
    uint64_t order;             /* global submission order */
    uint64_t ring_seq;          /* the trace event that put it on a ring */
    uint64_t paging_fence;
};

struct cwait {
    uint64_t addr, value, before_seq;
};

struct cctx {
    struct vidsch_ctx *vc;
    uint32_t id;
    unsigned engine, prio;
    unsigned device;            /* the workload's (0: of its own) */
    uint64_t save;
    bool lost, boosted, triggered;
    bool lent;                  /* runs at a level lent through a sync
                                   object (priority inheritance) ... */
    unsigned lent_level;        /* ... this one */
    uint64_t lent_at;           /* ... since then */
    uint64_t lent_seq;          /* ... the trace event that lent it */
    uint64_t raised_seq;        /* the last loan or aging boost (trace) */
    unsigned unlent_level;      /* the last loan taken back: its level */
    uint64_t unlent_at;         /* ... when */
    uint64_t unlent_seq;        /* ... its trace event */
    uint64_t last_active;       /* ran, or became ready with new work */
    uint64_t lowered_at;        /* its last loan or boost ended */
    uint64_t starve_bound;      /* hws: how long it may wait */
    bool waiting;
    uint64_t waiting_since;
    uint64_t next_seq;
    unsigned loaded;
    unsigned nbuf;
    uint16_t bufs[WL_MAX_BUF];  /* in submission order */
    unsigned nwait;
    struct cwait waits[WL_MAX_BUF / 8];    /* pair waits: one a buffer */
};

struct checker {
    struct ddi_dmabuf *dma;     /* WL_MAX_BUF, reused */
    struct cbuf buf[WL_MAX_BUF];
    struct cctx ctx[WL_MAX_CTX];
    const struct workload *w;
    struct sim_host *h;
    const struct check_opts *o;
    struct check_result *r;
    uint64_t sync_addr[WL_MAX_SYNC];
    uint64_t scratch;
    uint64_t max_fence[DDI_MAX_ENGINES];
    uint16_t expect[DDI_MAX_ENGINES][WL_MAX_BUF];  /* paging to go first */
    unsigned nexpect[DDI_MAX_ENGINES];
    bool check_order;
    uint64_t last_order[DDI_MAX_ENGINES];
    uint64_t next_order;
    uint64_t bound_start;       /* priority: how late a lower one may start */
    uint64_t bound_starve[DDI_MAX_ENGINES];
    /* quantum: how long a context may run on while a peer of its level
     * waits (a turn, and the way to the next arbitration point) */
    uint64_t bound_turn;
    /* the context whose buffers the engine has run since another's last
     * loaded (-1: none yet), and since when */
    int turn_ctx[DDI_MAX_ENGINES];
    uint64_t turn_since[DDI_MAX_ENGINES];
    bool dropped_one;
    /* wasted preemptions: the reason of the engine's last request, and
     * the context a preemption cut mid-buffer (-1: none pending) */
    unsigned preempt_reason[DDI_MAX_ENGINES];
    uint64_t preempt_at[DDI_MAX_ENGINES];   /* last request */
    uint64_t preempt_seq[DDI_MAX_ENGINES];  /* ... its trace event */
    bool preempt_for_lost[DDI_MAX_ENGINES]; /* ... asked while a lost
                                               context was on the ring */
    uint64_t trace_seq;         /* trace events so far (order within an
                                   instant) */
    uint64_t lost_seq;          /* ... at the last LOST */
    uint64_t retire_seen[DDI_MAX_ENGINES];  /* vidsch's last RETIRE */
    uint64_t retire_at_req[DDI_MAX_ENGINES];    /* ... at the request */
    int cut_ctx[DDI_MAX_ENGINES];
    /* the context of the engine's last retired buffer (-1: paging), and
     * when the model retired it */
    int ahead_ctx[DDI_MAX_ENGINES];
    uint64_t ahead_at[DDI_MAX_ENGINES];
    /* the devices lost (LOST of one of their contexts) */
    bool dev_lost[WL_MAX_CTX + 1];
    /* hardware scheduling */
    bool hws;
    enum vidsch_policy policy;  /* the one the run uses */
};

uint64_t chk_now(struct checker *k);
void chk_fail(struct checker *k, const char *fmt, ...);
bool chk_policy_is(const struct checker *k, enum vidsch_policy p);
unsigned chk_band_of(unsigned prio);
struct cctx *chk_ctx_of(struct checker *k, const struct cbuf *b);
bool chk_electable(struct checker *k, const struct cctx *c);
void chk_update_waiting(struct checker *k);
void chk_on_trace(void *arg, const struct vidsch_trace *ev);
void chk_on_buffer_done(void *arg, uint64_t cookie, int status);
void chk_on_context_lost(void *arg, uint32_t id);
extern const struct sim_gpu_observer chk_observer;

#endif /* SIM_CHECK_INTERNAL_H */
