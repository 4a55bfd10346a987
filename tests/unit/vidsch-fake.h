/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scripted GPU and environment for vidsch's unit tests: the DDI
 * downcalls are recorded, and the test plays the GPU by delivering the
 * upcalls itself (completions, PREEMPTED, faults) and the environment by
 * moving the clock, firing the timer and running the worker. Every
 * decision of the scheduler is then visible and checkable step by step.
 * (tests/sim/ is the other harness: a model of the GPU that runs by
 * itself, for random workloads.)
 */
#ifndef TESTS_UNIT_VIDSCH_FAKE_H
#define TESTS_UNIT_VIDSCH_FAKE_H

#include <glib.h>

#include "vidsch/vidsch.h"

#define FAKE_MAX_SUBS       512
#define FAKE_MAX_BUFS       64
#define FAKE_MAX_EVENTS     2048
#define FAKE_SAVE(id)       (0x100000ull + (uint64_t)(id) * COPRO_SAVE_SIZE)
#define FAKE_DMA(i)         (0x200000ull + (uint64_t)(i) * 0x1000)

struct fake {
    struct ddi_caps caps;
    struct vidsch_config cfg;
    struct vidsch *s;
    void *storage;
    uint64_t now;

    struct ddi_submit_args sub[FAKE_MAX_SUBS];      /* every ring write */
    unsigned nsub;
    int submit_rc;                  /* what submit answers */
    struct { unsigned engine; uint64_t id; } preempt[FAKE_MAX_SUBS];
    unsigned npreempt;
    struct { unsigned engine; } reset[64];
    unsigned nreset;
    struct ddi_reset_report reset_rep[DDI_MAX_ENGINES];  /* next answers */
    unsigned npatch;
    int patch_rc;

    uint64_t timer;                 /* armed, UINT64_MAX if none */
    unsigned timers_set;
    unsigned work;                  /* queue_work calls not yet served */

    struct { uint64_t cookie; int status; } done[FAKE_MAX_SUBS];
    unsigned ndone;
    uint32_t lost[64];
    unsigned nlost;
    struct vidsch_trace ev[FAKE_MAX_EVENTS];
    unsigned nev;
    /* called from buffer_done, to test re-entry */
    void (*on_done)(struct fake *f, uint64_t cookie, int status);

    struct ddi_dmabuf *buf;         /* FAKE_MAX_BUFS, cookie i = buf[i] */

    /* what the GPU would have on each ring, to answer realistically */
    uint64_t ring[DDI_MAX_ENGINES][FAKE_MAX_SUBS];
    unsigned ring_n[DDI_MAX_ENGINES];
    uint64_t completed[DDI_MAX_ENGINES];

    /* (vidmm) the residency hook, scripted (fake_init_residency) */
    int resident_rc;                        /* next answer */
    struct ddi_dmabuf *resident_paging;     /* given with the next DDI_OK
                                               (then cleared), cookie
                                               resident_paging_cookie */
    uint64_t resident_paging_cookie, resident_ticket, resident_wait;
    bool resident_step;                     /* the next DDI_EBUSY carries
                                               resident_paging (a step of
                                               residency; then cleared) */
    struct { uint64_t cookie; bool patched; } resident[FAKE_MAX_SUBS];
    unsigned nresident;                     /* make_resident calls */
    struct { uint64_t cookie; uint64_t fence; } released[FAKE_MAX_SUBS];
    unsigned nreleased;
    /* the paging bytes make_resident reports for cookie (NULL: none) */
    uint64_t (*resident_bytes)(struct fake *f, uint64_t cookie);

    /* every patch call's range */
    struct { uint64_t cookie; uint32_t first, end; } patched[FAKE_MAX_SUBS];
    /* (splitting) make_resident answers VIDSCH_RESIDENT_SPLIT with
     * resident_rc; make_portion then cuts every buffer at cut[0 .. ncut)
     * (byte offsets, increasing) and answers portion_rc */
    uint32_t cut[8];
    unsigned ncut;
    int portion_rc;
    struct { uint64_t cookie; uint32_t first, end; bool patched; }
        portion[FAKE_MAX_SUBS];
    unsigned nportion;                      /* make_portion calls */
    struct { uint64_t cookie; uint32_t first; uint64_t fence; }
        portion_released[FAKE_MAX_SUBS];
    unsigned nportion_released;
    /* (scenes) the scene_oom hook: every call, and its next answer */
    int oom_answer;
    /* ... with VIDSCH_OOM_PARTIAL: the fence the resumed buffer waits
     * for (oom_fence reaching oom_fence_value) */
    volatile uint64_t oom_fence;
    uint64_t oom_fence_value;
    bool oom_answer_no_fence;       /* PARTIAL, but wait left empty */
    struct { uint64_t cookie, save_addr; uint32_t context, need;
             bool wait; } oom[16];
    unsigned noom;
};

/* The oldest fence on engine's ring not yet completed (0: none), and the
 * last completed one, as this fake GPU tracks them. */
uint64_t fake_ring_oldest(struct fake *f, unsigned engine);
uint64_t fake_ring_completed(struct fake *f, unsigned engine);

/* hardware scheduling: queue ops for the next fake_init_cfg (NULL: none) */
extern const struct ddi_hws_ops *fake_hws;

void fake_init(struct fake *f, unsigned engines, unsigned preemption,
               enum vidsch_policy policy);
/* fake_init with cfg adjusted by the caller before vidsch_create. */
void fake_init_cfg(struct fake *f, unsigned engines, unsigned preemption,
                   const struct vidsch_config *cfg);
void fake_fini(struct fake *f);
/* fake_init with the residency hook (vidmm) in the environment. */
void fake_init_residency(struct fake *f, unsigned engines,
                         unsigned preemption, enum vidsch_policy policy);
void fake_init_residency_cfg(struct fake *f, unsigned engines,
                             unsigned preemption,
                             const struct vidsch_config *cfg);

struct vidsch_ctx *fake_ctx(struct fake *f, uint32_t id, unsigned engine,
                            enum vidsch_priority prio);
/* Submits buf[cookie] (engine of the context) for c. */
int fake_submit(struct fake *f, struct vidsch_ctx *c, unsigned cookie);

/* Runs the worker for every queued work item (and those it queues). */
void fake_work(struct fake *f);
/* Runs the worker once, if work is queued. */
void fake_work_one(struct fake *f);
/* Moves the clock to t, firing the timer when due (repeatedly). */
void fake_advance_to(struct fake *f, uint64_t t);
static inline void fake_advance(struct fake *f, uint64_t ns)
{
    fake_advance_to(f, f->now + ns);
}

/* GPU side */
void fake_complete(struct fake *f, unsigned engine, uint64_t fence);
/* The engine stopped fence with TILER_OOM (need heap bytes), its ring
 * dropped, completed retired. */
void fake_tiler_oom(struct fake *f, unsigned engine, uint64_t fence,
                    uint32_t need, uint64_t completed);
void fake_preempted(struct fake *f, unsigned engine, uint64_t preempted,
                    uint64_t completed);

/* The last ring write, or the i-th. */
static inline const struct ddi_submit_args *fake_last_sub(struct fake *f)
{
    g_assert_cmpuint(f->nsub, >, 0);
    return &f->sub[f->nsub - 1];
}
/* Cookie of buf at dma address a. */
static inline unsigned fake_cookie_of(uint64_t dma_addr)
{
    return (unsigned)((dma_addr - FAKE_DMA(0)) / 0x1000);
}
/* Ring writes since index from, as cookies, into out; returns count. */
unsigned fake_subs_since(struct fake *f, unsigned from, unsigned *out,
                         unsigned max);
/* Trace events of kind since index from. */
unsigned fake_count_events(struct fake *f, enum vidsch_trace_kind kind,
                           unsigned from);
/* Status reported for cookie, or 1 if not reported. */
int fake_status(struct fake *f, uint64_t cookie);

#endif /* TESTS_UNIT_VIDSCH_FAKE_H */
