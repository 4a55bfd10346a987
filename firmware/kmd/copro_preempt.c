/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_preempt.h"

#include <stddef.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

/* The device reads and writes whole records; 64 keeps them in one cache
 * line pair and is more than the 8 the 64-bit fields need. */
#define SAVE_ALIGN          64

/* Request ids start high so a dump never confuses them with the small
 * submission fence ids. */
#define REQUEST_ID_BASE     0x5000000000000000ull

static uint32_t eng_reg(unsigned e, uint32_t reg)
{
    return COPRO_ENG_BASE(e) + reg;
}

const char *copro_context_init(struct copro_cp *cp, struct copro_context *ctx,
                               uint32_t id, unsigned priority)
{
    volatile uint8_t *save;

    *ctx = (struct copro_context){ .id = id, .priority = priority };
    save = copro_cp_alloc(cp, COPRO_SAVE_SIZE, SAVE_ALIGN, &ctx->save_gpu);
    if (!save) {
        return "out of VRAM for a context save area";
    }
    /* A zeroed record has no magic: a RESUME from it before any
     * preemption fails with BAD_SAVE rather than resuming garbage. */
    for (unsigned i = 0; i < COPRO_SAVE_SIZE; i++) {
        save[i] = 0;
    }
    return NULL;
}

void copro_preempt_init(struct copro_preempt *p, struct copro_cp *cp,
                        unsigned engine)
{
    *p = (struct copro_preempt){
        .cp = cp, .engine = engine, .last_request = REQUEST_ID_BASE,
    };
    copro_fences_init(&p->outstanding);
}

uint64_t copro_gpu_time(struct copro_cp *cp)
{
    return copro_read64(cp->dev, COPRO_REG_GPU_TIME);
}

uint64_t copro_preempt_submit(struct copro_preempt *p,
                              const struct copro_context *ctx,
                              uint64_t dma_addr, uint32_t dma_len,
                              uint32_t flags, uint64_t tag)
{
    struct copro_sub s = {
        .dma_addr = dma_addr, .dma_len = dma_len, .flags = flags,
        .context = ctx->id, .save_addr = ctx->save_gpu, .tag = tag,
    };

    if (ctx->lost || p->pending ||
        p->outstanding.count == COPRO_FENCES_MAX) {
        return 0;
    }
    s.fence = copro_cp_submit_save(p->cp, p->engine, dma_addr, dma_len,
                                   ctx->id, flags, ctx->save_gpu);
    if (s.fence == 0) {
        return 0;
    }
    /* Cannot fail: the list had room and fences grow. */
    copro_fences_push(&p->outstanding, &s);
    return s.fence;
}

unsigned copro_preempt_retire(struct copro_preempt *p)
{
    return copro_fences_retire(&p->outstanding,
                               p->cp->eng[p->engine].completed);
}

uint64_t copro_preempt_request(struct copro_preempt *p)
{
    struct copro_engine *eng = &p->cp->eng[p->engine];

    if (!p->pending) {
        p->seen = eng->preempt.count;
        p->requested_at = copro_gpu_time(p->cp);
    }
    p->pending = ++p->last_request;
    p->requests++;
    /* One 8-byte write makes the request. */
    copro_write64(p->cp->dev, eng_reg(p->engine, COPRO_ENG_PREEMPT_REQ),
                  p->pending);
    return p->pending;
}

bool copro_preempt_done(const struct copro_preempt *p)
{
    const struct copro_engine *eng = &p->cp->eng[p->engine];

    return p->pending && eng->preempt.count != p->seen &&
           eng->preempt.preempt_fence == p->pending;
}

/* The ring entries a stop left unfinished will never retire under their
 * fence ids: let waiters on them see ABORTED. */
static void forget_ring(struct copro_preempt *p)
{
    struct copro_engine *eng = &p->cp->eng[p->engine];

    eng->lost_through = eng->last_submitted;
}

const char *copro_preempt_settle(struct copro_preempt *p,
                                 struct copro_stop_plan *plan)
{
    const struct copro_engine *eng = &p->cp->eng[p->engine];
    struct copro_stop_regs regs = {
        .completed = eng->preempt.completed_fence,
        .interrupted = eng->preempt.preempted_fence,
    };
    const char *err;

    p->pending = 0;
    p->done_at = copro_gpu_time(p->cp);
    err = copro_fences_settle(&p->outstanding, COPRO_STOP_PREEMPT, &regs,
                              plan);
    if (err) {
        return err;
    }
    if (plan->preempted) {
        p->interrupted++;
    }
    forget_ring(p);
    return NULL;
}

const char *copro_preempt_reset(struct copro_preempt *p,
                                struct copro_stop_plan *plan,
                                struct copro_reset_report *rep)
{
    struct copro_stop_regs regs;
    const char *err;

    copro_cp_engine_reset(p->cp, p->engine, rep);
    p->pending = 0;     /* the reset cancelled it */
    regs = (struct copro_stop_regs){
        .completed = rep->completed_fence,
        .interrupted = rep->aborted_fence,
    };
    err = copro_fences_settle(&p->outstanding, COPRO_STOP_RESET, &regs,
                              plan);
    /* copro_cp_engine_reset already marked the ring's fences lost. */
    return err;
}

unsigned copro_preempt_resubmit(struct copro_preempt *p,
                                const struct copro_stop_plan *plan,
                                uint32_t skip_context, const char **err)
{
    unsigned n = 0;

    if (err) {
        *err = NULL;
    }
    for (unsigned i = 0; i < plan->count; i++) {
        const struct copro_sub *s = &plan->entry[i].sub;
        enum copro_fate fate = plan->entry[i].fate;
        struct copro_context ctx = {
            .id = s->context, .save_gpu = s->save_addr,
        };

        if ((fate != COPRO_FATE_PREEMPTED && fate != COPRO_FATE_DROPPED) ||
            s->context == skip_context) {
            continue;
        }
        if (!copro_preempt_submit(p, &ctx, s->dma_addr, s->dma_len,
                                  copro_fate_resubmit_flags(s, fate),
                                  s->tag)) {
            if (err) {
                *err = "resubmission refused (ring full?)";
            }
            break;
        }
        if (fate == COPRO_FATE_PREEMPTED) {
            p->resumed++;
        } else {
            p->resubmitted++;
        }
        n++;
    }
    return n;
}
