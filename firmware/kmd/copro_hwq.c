/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hardware queues, doorbells, run lists and the scheduling log over the
 * device: see copro_hwq.h.
 */
#include "kmd/copro_hwq.h"

#include "kmd/copro_ddi.h"
#include "lib/string.h"

#define SLOT_DESC       0                       /* descriptor, 256 B */
#define SLOT_PROGRESS   COPRO_HWQ_DESC_SIZE     /* progress fence, 8 B */
#define SLOT_RING       (COPRO_HWQ_DESC_SIZE + 64)
#define SLOT_BYTES      (SLOT_RING + COPRO_HWQ_RING * COPRO_DESC_SIZE)
#define RL_BYTES        (COPRO_RUNLIST_MAX * COPRO_RUNLIST_ENTRY_SIZE)
#define LOG_BYTES       (COPRO_HWQ_LOG_ENTRIES * COPRO_SLOG_ENTRY_SIZE)

static uint64_t slot_addr(const struct copro_hwq *h, uint32_t q)
{
    return h->base + (uint64_t)q * SLOT_BYTES;
}

static volatile void *cpu(const struct copro_hwq *h, uint64_t gpu)
{
    return copro_cp_cpu_ptr(h->cp, gpu);
}

static volatile struct copro_hwq_desc *desc_of(const struct copro_hwq *h,
                                               uint32_t q)
{
    return cpu(h, slot_addr(h, q) + SLOT_DESC);
}

static volatile uint64_t *progress_of(const struct copro_hwq *h, uint32_t q)
{
    return cpu(h, slot_addr(h, q) + SLOT_PROGRESS);
}

static volatile struct copro_submit_desc *ring_of(const struct copro_hwq *h,
                                                  uint32_t q)
{
    return cpu(h, slot_addr(h, q) + SLOT_RING);
}

const char *copro_hwq_init(struct copro_hwq *h, struct copro_cp *cp,
                           uint64_t frame_ns)
{
    struct copro *dev = cp->dev;
    uint64_t bytes = (uint64_t)COPRO_HWQ_MAX * SLOT_BYTES +
                     (uint64_t)cp->num_engines * 2 * RL_BYTES + LOG_BYTES +
                     COPRO_SAVE_SIZE;
    uint64_t at;

    memset(h, 0, sizeof(*h));
    h->cp = cp;
    h->dev = dev;
    h->frame_ns = frame_ns ? frame_ns : 16666667;
    if (!(dev->info.caps & COPRO_CAP_HWSCHED)) {
        return "the device has no hardware scheduler (COPRO_CAP_HWSCHED)";
    }
    if (copro_read32(dev, COPRO_REG_HWS_QUEUES) < COPRO_HWQ_MAX) {
        return "the device has fewer queue slots than COPRO_HWQ_MAX";
    }
    h->doorbells = copro_map_doorbells(dev);
    if (!h->doorbells) {
        return "the doorbell BAR is missing or out of reach";
    }
    if (!copro_vram_alloc(&cp->vram, bytes, 4096, &h->base)) {
        return "no VRAM for queues, run lists and the log";
    }
    memset((void *)cpu(h, h->base), 0, bytes);
    at = h->base + (uint64_t)COPRO_HWQ_MAX * SLOT_BYTES;
    for (unsigned e = 0; e < cp->num_engines; e++) {
        h->rl_addr[e][0] = at;
        h->rl_addr[e][1] = at + RL_BYTES;
        at += 2 * RL_BYTES;
    }
    h->log_addr = at;
    at += LOG_BYTES;
    h->paging_save = at;
    copro_write32(dev, COPRO_REG_HWS_LOG_SIZE, COPRO_HWQ_LOG_ENTRIES);
    copro_write64(dev, COPRO_REG_HWS_LOG_ADDR, h->log_addr);
    h->log_rptr = 0;
    /* the scheduler's causes, beside what copro_cp_init unmasked */
    copro_write64(dev, COPRO_REG_INT_MASK,
                  copro_read64(dev, COPRO_REG_INT_MASK) |
                  COPRO_INT_DEV_SCHED_LOG | COPRO_INT_DEV_RUNLIST |
                  COPRO_INT_DEV_HWS_ERROR | COPRO_INT_DEV_HWS_OOM);
    return NULL;
}

struct copro_hwq *copro_ddi_hwq(void *drv)
{
    return ((struct copro_ddi *)drv)->hwq;
}

/* ---- queues ---- */

static int hwq_create(void *drv, const struct ddi_hwq_args *a,
                      uint32_t *queue)
{
    struct copro_hwq *h = copro_ddi_hwq(drv);

    if (a->engine >= h->cp->num_engines) {
        return DDI_EINVAL;
    }
    for (uint32_t q = 0; q < COPRO_HWQ_MAX; q++) {
        struct copro_hwq_slot *s = &h->q[q];
        volatile struct copro_hwq_desc *d;

        if (s->used) {
            continue;
        }
        *s = (struct copro_hwq_slot){
            .used = true, .engine = a->engine, .context = a->context,
            .save_addr = a->save_addr ? a->save_addr : h->paging_save,
            .flags = a->completion_irq ? COPRO_HWQ_F_COMPLETION_IRQ : 0,
        };
        d = desc_of(h, q);
        memset((void *)d, 0, COPRO_HWQ_DESC_SIZE);
        memset((void *)ring_of(h, q), 0, COPRO_HWQ_RING * COPRO_DESC_SIZE);
        *progress_of(h, q) = 0;
        d->magic = COPRO_HWQ_MAGIC;
        d->version = COPRO_HWQ_VERSION;
        d->ring_base = slot_addr(h, q) + SLOT_RING;
        d->ring_size = COPRO_HWQ_RING;
        d->context = a->context;
        d->save_addr = s->save_addr;
        d->progress_addr = slot_addr(h, q) + SLOT_PROGRESS;
        d->flags = s->flags;
        d->head = d->tail = 0;
        h->used_mask |= 1ull << q;
        *queue = q;
        return DDI_OK;
    }
    return DDI_ENOMEM;
}

static void hwq_destroy(void *drv, uint32_t queue)
{
    struct copro_hwq *h = copro_ddi_hwq(drv);

    if (queue < COPRO_HWQ_MAX) {
        h->q[queue].used = false;
        h->used_mask &= ~(1ull << queue);
    }
}

/* Ring entries the device is known to be done with, from the progress
 * fence (fences of a queue are consecutive and increasing). */
static unsigned in_flight(struct copro_hwq *h, uint32_t q)
{
    struct copro_hwq_slot *s = &h->q[q];

    while (s->oldest != s->tail &&
           s->fence_at[s->oldest % COPRO_HWQ_RING] <= s->reported) {
        s->oldest++;
    }
    return s->tail - s->oldest;
}

static int hwq_submit(void *drv, uint32_t queue,
                      const struct ddi_submit_args *a)
{
    struct copro_hwq *h = copro_ddi_hwq(drv);
    struct copro_hwq_slot *s;
    volatile struct copro_submit_desc *r;

    if (queue >= COPRO_HWQ_MAX || !h->q[queue].used ||
        h->q[queue].error_reported || a->fence <= h->q[queue].submitted) {
        return DDI_EINVAL;
    }
    s = &h->q[queue];
    /* one entry kept free: a full ring would look empty (head == tail) */
    if (in_flight(h, queue) >= COPRO_HWQ_RING - 1) {
        h->stats.ring_full++;
        return DDI_EBUSY;
    }
    r = &ring_of(h, queue)[s->tail % COPRO_HWQ_RING];
    r->dma_addr = a->dma_addr;
    r->dma_len = a->dma_len;
    r->flags = a->flags;
    r->fence = a->fence;
    r->context = s->context;
    r->reserved0 = 0;
    r->save_addr = s->save_addr;
    r->reserved1[0] = r->reserved1[1] = r->reserved1[2] = 0;
    s->fence_at[s->tail % COPRO_HWQ_RING] = a->fence;
    s->tail++;
    s->submitted = a->fence;
    /* the entry is in memory before the doorbell (x86: stores in order,
     * and MMIO is uncached) */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    mmio_write32(h->doorbells + (uint64_t)queue * COPRO_DOORBELL_STRIDE,
                 COPRO_DOORBELL_TAIL, s->tail % COPRO_HWQ_RING);
    h->stats.doorbells++;
    if (h->ndb_log < COPRO_HWQ_DB_LOG) {
        h->db_log[h->ndb_log++] = (struct copro_hwq_db_rec){
            .context = s->context, .fence = a->fence,
            .at = copro_read64(h->dev, COPRO_REG_GPU_TIME),
        };
    }
    return DDI_OK;
}

/* ---- run lists ---- */

static int rl_commit(void *drv, unsigned engine,
                     const struct ddi_runlist_entry *ent, unsigned n)
{
    struct copro_hwq *h = copro_ddi_hwq(drv);
    volatile struct copro_runlist_entry *rl;
    uint64_t addr;
    uint32_t base, sts;

    if (engine >= h->cp->num_engines || n > COPRO_RUNLIST_MAX) {
        return DDI_EINVAL;
    }
    /* the other buffer: the device may still be reading the last one */
    addr = h->rl_addr[engine][h->rl_next[engine]];
    h->rl_next[engine] ^= 1;
    rl = cpu(h, addr);
    for (unsigned i = 0; i < n; i++) {
        uint32_t q = ent[i].queue;

        if (q >= COPRO_HWQ_MAX || !h->q[q].used) {
            return DDI_EINVAL;
        }
        rl[i].desc_addr = slot_addr(h, q) + SLOT_DESC;
        rl[i].queue = q;
        rl[i].band = ent[i].band;
        rl[i].quantum_ns = ent[i].quantum_ns;
        rl[i].budget_ns = ent[i].budget_ns;
        rl[i].flags = ent[i].suspended ? COPRO_RL_F_SUSPENDED : 0;
        rl[i].reserved = 0;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    base = COPRO_RL_BASE(engine);
    copro_write64(h->dev, base + COPRO_RL_ADDR, addr);
    copro_write32(h->dev, base + COPRO_RL_COUNT, n);
    copro_write32(h->dev, base + COPRO_RL_COMMIT, 1);
    h->stats.commits++;
    /* checked at the commit: a refusal is in STATUS at once */
    sts = copro_read32(h->dev, base + COPRO_RL_STATUS);
    if (COPRO_RL_STS_ERROR(sts)) {
        h->stats.refused++;
        return DDI_EINVAL;
    }
    return DDI_OK;
}

static void hws_configure(void *drv, uint32_t low_share, uint64_t timeout)
{
    struct copro_hwq *h = copro_ddi_hwq(drv);

    copro_write32(h->dev, COPRO_REG_HWS_LOW_SHARE,
                  low_share > 1000 ? 1000 : low_share);
    copro_write32(h->dev, COPRO_REG_HWS_PREEMPT_TIMEOUT,
                  timeout > UINT32_MAX ? UINT32_MAX : (uint32_t)timeout);
}

static uint64_t hws_frame_ns(void *drv)
{
    return copro_ddi_hwq(drv)->frame_ns;
}

/* The engines' DMA_DONE causes. */
static uint64_t done_causes(const struct copro_hwq *h)
{
    uint64_t m = 0;

    for (unsigned e = 0; e < h->cp->num_engines; e++) {
        m |= COPRO_INT_ENG(e, COPRO_INT_DMA_DONE);
    }
    return m;
}

static void hws_completion_irq(void *drv, bool on)
{
    struct copro_hwq *h = copro_ddi_hwq(drv);
    uint64_t done = done_causes(h);
    uint64_t mask = copro_read64(h->dev, COPRO_REG_INT_MASK);

    if (on) {
        /* what finished while masked is read by the caller's poll: a
         * latched cause would only interrupt for it once more */
        copro_write64(h->dev, COPRO_REG_INT_STATUS, done);
        copro_write64(h->dev, COPRO_REG_INT_MASK, mask | done);
        h->stats.irq_on++;
    } else {
        copro_write64(h->dev, COPRO_REG_INT_MASK, mask & ~done);
        h->stats.irq_off++;
    }
}

static bool progress_and_errors(struct copro_hwq *h,
                                const struct ddi_upcalls *up, void *os);

static bool hws_poll(void *drv)
{
    struct copro_ddi *d = drv;
    bool moved;

    if (!d->hwq || !d->up) {
        return false;
    }
    d->hwq->stats.polls++;
    moved = progress_and_errors(d->hwq, d->up, d->os);
    d->hwq->stats.polls_moved += moved;
    return moved;
}

/* The answer to a queue's OOM stop (COPRO_REG_HWS_OOM_ANSWER). */
static int oom_answer(struct copro_hwq *h, uint32_t queue, bool resume)
{
    if (queue >= COPRO_HWQ_MAX || !h->q[queue].used ||
        !h->q[queue].oom_reported) {
        return DDI_EINVAL;
    }
    h->q[queue].oom_reported = false;
    h->stats.oom_answers++;
    copro_write32(h->dev, COPRO_REG_HWS_OOM_ANSWER,
                  COPRO_HWS_OOM_ANSWER(queue, resume ? COPRO_HWS_OOM_RESUME
                                                     : COPRO_HWS_OOM_FAIL));
    return DDI_OK;
}

static int hws_oom_answer(void *drv, uint32_t queue, bool resume)
{
    return oom_answer(copro_ddi_hwq(drv), queue, resume);
}

const struct ddi_hws_ops copro_hwq_ops = {
    .queue_oom_answer = hws_oom_answer,
    .completion_irq = hws_completion_irq,
    .poll = hws_poll,
    .queue_create = hwq_create,
    .queue_destroy = hwq_destroy,
    .queue_submit = hwq_submit,
    .runlist_commit = rl_commit,
    .configure = hws_configure,
    .frame_ns = hws_frame_ns,
};

/* ---- the DPC ---- */

static void report_error(struct copro_hwq *h, uint32_t q,
                         const struct ddi_upcalls *up, void *os)
{
    struct copro_hwq_slot *s = &h->q[q];
    volatile struct copro_hwq_desc *d = desc_of(h, q);
    struct ddi_hwq_error err = {
        .error = d->error, .fault = d->fault,
        .error_fence = d->error_fence, .completed = d->completed_fence,
    };

    /* what the device says retired must be what the OS gave */
    if (err.completed > s->submitted || err.completed < s->reported) {
        err.completed = s->reported;
    }
    if (err.error_fence > s->submitted) {
        err.error_fence = 0;
    }
    s->error_reported = true;
    h->stats.errors++;
    if (up->queue_error) {
        up->queue_error(os, q, &err);
    }
}

/*
 * Queues in OOM_WAIT not reported yet: after the progress (what retired
 * before the stop is news first). The descriptor is the device's
 * write-back at the stop; what it says is checked against what the OS
 * gave (the fence at the queue's head was submitted).
 */
static bool report_ooms(struct copro_hwq *h, const struct ddi_upcalls *up,
                        void *os)
{
    uint64_t waiting = copro_read64(h->dev, COPRO_REG_HWS_OOM_WAITING) &
                       h->used_mask;
    bool any = false;

    for (uint64_t m = waiting; m; m &= m - 1) {
        uint32_t q = (uint32_t)__builtin_ctzll(m);
        struct copro_hwq_slot *s = &h->q[q];
        volatile struct copro_hwq_desc *d = desc_of(h, q);
        struct ddi_hwq_oom oom = {
            .scene = d->oom_scene, .need = d->oom_need,
            .oom_fence = s->fence_at[d->head % COPRO_HWQ_RING],
            .completed = s->reported,
        };

        if (s->oom_reported || s->error_reported) {
            continue;
        }
        s->oom_reported = true;
        h->stats.ooms++;
        any = true;
        if (up->queue_oom) {
            up->queue_oom(os, q, &oom);
        } else {
            /* nobody to ask: the queue cannot go on */
            oom_answer(h, q, false);
        }
    }
    return any;
}

/* The queues' progress fences and errors, as upcalls: true if any. */
static bool progress_and_errors(struct copro_hwq *h,
                                const struct ddi_upcalls *up, void *os)
{
    struct ddi_hwq_progress moved[COPRO_HWQ_MAX];
    unsigned nmoved = 0;
    bool errors = false;

    /* the slots in use only: the DPC runs at every interrupt */
    for (uint64_t m = h->used_mask; m; m &= m - 1) {
        uint32_t q = (uint32_t)__builtin_ctzll(m);
        struct copro_hwq_slot *s = &h->q[q];
        uint64_t p = *progress_of(h, q);

        if (p != s->reported) {
            uint64_t ok = copro_hwlog_progress(p, s->reported, s->submitted);

            if (!ok) {
                h->stats.bad_progress++;
            } else {
                s->reported = ok;
                moved[nmoved++] = (struct ddi_hwq_progress){ q, ok };
            }
        }
    }
    /* retirements first: an error's queue reports what finished before */
    if (nmoved && up->queue_progress) {
        up->queue_progress(os, moved, nmoved);
    }
    for (uint64_t m = h->used_mask; m; m &= m - 1) {
        uint32_t q = (uint32_t)__builtin_ctzll(m);

        if (!h->q[q].error_reported &&
            desc_of(h, q)->state == COPRO_HWQ_STATE_ERROR) {
            report_error(h, q, up, os);
            errors = true;
        }
    }
    errors |= report_ooms(h, up, os);
    return nmoved || errors;
}

void copro_hwq_dpc(struct copro_hwq *h, const struct ddi_upcalls *up,
                   void *os)
{
    struct copro_hwlog_view v = { .engines = h->cp->num_engines,
                                  .mapped = h->used_mask };
    uint32_t wptr;
    unsigned n;

    progress_and_errors(h, up, os);
    /* the log: everything since the last DPC, in batches */
    wptr = copro_read32(h->dev, COPRO_REG_HWS_LOG_WPTR);
    while (h->log_rptr != wptr) {
        /* the register counts since LOG_ADDR was written: the news */
        uint32_t all = copro_read32(h->dev, COPRO_REG_HWS_LOG_DROPPED);
        uint32_t dropped = all - h->log_dropped_seen;

        h->log_dropped_seen = all;

        n = copro_hwlog_take(cpu(h, h->log_addr), COPRO_HWQ_LOG_ENTRIES,
                             &h->log_rptr, wptr, &v, h->batch,
                             COPRO_HWQ_LOG_BATCH, &h->stats.log);
        copro_write32(h->dev, COPRO_REG_HWS_LOG_RPTR, h->log_rptr);
        h->stats.log_reads++;
        if (up->sched_log) {
            up->sched_log(os, h->batch, n, dropped);
        }
    }
}
