/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: hardware scheduling, what its files share (copro-hwsched.c:
 * descriptors, the log, errors, run lists, doorbells, registers;
 * copro-hws-sched.c: the scheduler and the engine's side;
 * copro-hws-migration.c; copro-hws-monitor.c). Not for the rest of the
 * device, which uses copro.h.
 *
 * Copyright (c) 2026 The copro authors
 */
#ifndef HW_COPRO_HWS_INTERNAL_H
#define HW_COPRO_HWS_INTERNAL_H

#include "copro.h"

#define HWS_POLL_NS     (20 * SCALE_US) /* the engine's WAIT poll period */
#define COPRO_HWS_NO_ENGINE   0xff

/* the device-written part of the descriptor, from head on */
#define HWQ_WB_OFFSET   offsetof(struct copro_hwq_desc, head)
#define HWQ_WB_SIZE     (offsetof(struct copro_hwq_desc, reserved3) - \
                         HWQ_WB_OFFSET)

/*
 * Have the engine look at its queues at once: its timer due now, in
 * every mode (a bottom half would wait for the main loop, and a switch
 * made in virtual time must start the next queue at that time).
 */
static inline void hws_kick(CoproEngine *e)
{
    timer_mod(e->timer, copro_now_ns());
}

static inline CoproHwsEngine *hws_eng(CoproEngine *e)
{
    return &e->dev->hws.eng[e->index];
}

static inline CoproHwq *hws_current(CoproEngine *e)
{
    uint32_t slot = hws_eng(e)->current;

    return slot < COPRO_HWQ_MAX ? &e->dev->hws.q[slot] : NULL;
}

static inline uint32_t hwq_slot(CoproState *s, CoproHwq *q)
{
    return q - s->hws.q;
}

static inline bool hwq_has_work(const CoproHwq *q)
{
    return q->head != q->tail || q->resume;
}

static inline uint32_t hwq_band(const CoproHwq *q)
{
    return q->over_budget ? COPRO_BAND_IDLE : q->band;
}

/* The state of a queue that is not on the engine, from its ring. */
static inline uint32_t hwq_rest_state(const CoproHwq *q)
{
    if (!hwq_has_work(q)) {
        return COPRO_HWQ_STATE_IDLE;
    }
    return q->suspended || !q->mapped ? COPRO_HWQ_STATE_SUSPENDED
                                      : COPRO_HWQ_STATE_READY;
}


/* copro-hwsched.c */
bool copro_hws_rw(CoproState *s, unsigned engine, uint64_t addr, void *buf,
                  uint64_t len, bool is_write);
void copro_hws_log(CoproState *s, uint16_t kind, unsigned engine,
                   uint32_t band, uint32_t queue, uint64_t a0, uint64_t a1);
void copro_hwq_log(CoproState *s, CoproHwq *q, uint16_t kind, uint64_t a0,
                   uint64_t a1);
void copro_hws_error(CoproState *s, uint32_t err, unsigned engine,
                     uint32_t queue, uint64_t addr, const char *why);
void copro_hwq_writeback(CoproState *s, CoproHwq *q);
uint64_t copro_hwq_head_fence(CoproState *s, unsigned engine, CoproHwq *q);
void copro_hwq_unmap(CoproState *s, CoproHwq *q);
void copro_hws_take(CoproEngine *e);

/* copro-hws-sched.c */
void copro_hws_update(CoproEngine *e);
void copro_hws_arm(CoproEngine *e);
void copro_hws_fail_current(CoproEngine *e, uint32_t err, uint32_t fault,
                            uint64_t addr, uint32_t reason);
void copro_hws_oom_answer(CoproState *s, uint32_t val);
void copro_hws_timer(void *opaque);

#endif /* HW_COPRO_HWS_INTERNAL_H */
