/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_ddi.h"

#include <stddef.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_ring.h"

/* The OS segment starts on a 64 KiB boundary: room for any alignment an
 * allocation asks, and easy to read in dumps. */
#define SEGMENT_ALIGN       0x10000ull

/* Every opcode the device knows runs on a render engine. */
#define RENDER_ENGINE_OPS   ((1u << (COPRO_OP_COPY_PTE + 1)) - 1)

static uint32_t eng_reg(unsigned e, uint32_t reg)
{
    return COPRO_ENG_BASE(e) + reg;
}

static uint64_t eng_read64(struct copro_ddi *d, unsigned e, uint32_t reg)
{
    return copro_read64(d->cp->dev, eng_reg(e, reg));
}

static uint32_t engine_ops(const struct copro_ddi *d, unsigned e)
{
    if (e >= d->cp->num_engines) {
        return 0;
    }
    return e == COPRO_ENGINE_COPY ? COPRO_COPY_ENGINE_OPS
                                  : RENDER_ENGINE_OPS;
}

static void ddi_query_caps(void *drv, struct ddi_caps *caps)
{
    struct copro_ddi *d = drv;
    const struct copro_info *info = &d->cp->dev->info;

    *caps = (struct ddi_caps){
        .engines = d->cp->num_engines,
        .preemption = info->preempt_caps,
        .ring_entries = d->cp->eng[0].ring_entries,
        .vram_size = info->vram_size,
        .aperture_base = info->aperture_base,
        .aperture_size = info->aperture_size,
        .gpuva = (info->caps & COPRO_CAP_GPUVA) != 0,
        .max_dma_bytes = COPRO_DMA_MAX,
    };
    for (unsigned e = 0; e < caps->engines && e < DDI_MAX_ENGINES; e++) {
        caps->engine_ops[e] = engine_ops(d, e);
    }
}

static int ddi_render(void *drv, const struct ddi_render_args *args,
                      struct ddi_dmabuf *out)
{
    struct copro_ddi *d = drv;
    int st;

    d->renders++;
    if (args->engine >= d->cp->num_engines) {
        d->last_refusal = (struct copro_render_diag){
            DDI_EINVAL, UINT32_MAX, "no such engine",
        };
        d->refusals++;
        return DDI_EINVAL;
    }
    st = copro_render_validate(args, engine_ops(d, args->engine), out,
                               &d->last_refusal);
    if (st != DDI_OK) {
        d->refusals++;
    }
    return st;
}

static int ddi_patch(void *drv, struct ddi_dmabuf *buf,
                     const struct ddi_alloc_desc *alloc, uint32_t first_byte,
                     uint32_t end_byte)
{
    (void)drv;
    return copro_render_patch(buf, alloc, first_byte, end_byte);
}

static int ddi_submit(void *drv, const struct ddi_submit_args *a)
{
    struct copro_ddi *d = drv;
    struct copro_submit_desc desc;

    if (a->engine >= d->cp->num_engines ||
        (a->flags & ~COPRO_SUBMIT_FLAGS_KNOWN) || (a->dma_len & 3) ||
        a->dma_len > COPRO_DMA_MAX) {
        return DDI_EINVAL;
    }
    desc = copro_desc_make(a->dma_addr, a->dma_len, a->fence, a->context,
                           a->flags);
    desc.save_addr = a->save_addr;
    if (!copro_cp_submit_desc(d->cp, a->engine, &desc)) {
        d->ring_full++;
        return DDI_EBUSY;
    }
    d->submits++;
    return DDI_OK;
}

static uint64_t ddi_gpu_time(void *drv)
{
    struct copro_ddi *d = drv;

    return copro_read64(d->cp->dev, COPRO_REG_GPU_TIME);
}

static int ddi_preempt(void *drv, unsigned e, uint64_t preempt_fence)
{
    struct copro_ddi *d = drv;

    if (e >= d->cp->num_engines) {
        return DDI_EINVAL;
    }
    /* The device measures from the first of overlapping requests. */
    if (!d->eng[e].requested_at) {
        d->eng[e].requested_at = ddi_gpu_time(d);
    }
    d->preempts++;
    copro_write64(d->cp->dev, eng_reg(e, COPRO_ENG_PREEMPT_REQ),
                  preempt_fence);
    return DDI_OK;
}

static int ddi_reset_engine(void *drv, unsigned e,
                            struct ddi_reset_report *rep)
{
    struct copro_ddi *d = drv;
    struct copro_engine *eng;
    struct copro_reset_report r;

    if (e >= d->cp->num_engines) {
        return DDI_EINVAL;
    }
    eng = &d->cp->eng[e];
    copro_cp_engine_reset(d->cp, e, &r);
    d->resets++;
    rep->aborted_fence = r.aborted_fence;
    rep->completed_fence = r.completed_fence;
    /* The report supersedes what the engine latched before the reset:
     * its fault and a preemption it may have finished. Completion up to
     * here is in the report too. */
    d->eng[e].faults_seen = eng->faults;
    d->eng[e].preempts_seen = eng->preempt.count;
    d->eng[e].completed_reported = eng->completed;
    d->eng[e].requested_at = 0;
    return DDI_OK;
}

/* The arguments, then MARK: the device records the marker at that write,
 * stamped with its clock. Always written, so a run is the same whether
 * the timeline is on or off. */
static void ddi_mark(void *drv, unsigned kind, unsigned engine,
                     uint32_t context, uint64_t arg0, uint64_t arg1)
{
    struct copro_ddi *d = drv;

    copro_write64(d->cp->dev, COPRO_REG_MARK_ARG0, arg0);
    copro_write64(d->cp->dev, COPRO_REG_MARK_ARG1, arg1);
    copro_write64(d->cp->dev, COPRO_REG_MARK,
                  COPRO_MARK(kind, engine, context));
}

static const struct ddi_ops copro_ddi_ops = {
    .query_caps = ddi_query_caps,
    .render = ddi_render,
    .patch = ddi_patch,
    .submit = ddi_submit,
    .preempt = ddi_preempt,
    .reset_engine = ddi_reset_engine,
    .gpu_time = ddi_gpu_time,
    .mark = ddi_mark,
};

void copro_ddi_init(struct copro_ddi *d, struct copro_cp *cp)
{
    *d = (struct copro_ddi){ .cp = cp };
    for (unsigned e = 0; e < cp->num_engines; e++) {
        d->eng[e].completed_reported = cp->eng[e].completed;
        d->eng[e].preempts_seen = cp->eng[e].preempt.count;
        d->eng[e].faults_seen = cp->eng[e].faults;
        d->eng[e].stat_sum = eng_read64(d, e, COPRO_ENG_STAT_PREEMPT_SUM);
        d->eng[e].stat_count = eng_read64(d, e, COPRO_ENG_STAT_PREEMPTIONS);
    }
}

void copro_ddi_set_upcalls(struct copro_ddi *d, const struct ddi_upcalls *up,
                           void *os)
{
    d->up = up;
    d->os = os;
}

struct ddi_device copro_ddi_device(struct copro_ddi *d)
{
    return (struct ddi_device){ .ops = &copro_ddi_ops, .drv = d };
}

bool copro_ddi_take_segment(struct copro_ddi *d, uint64_t *base,
                            uint64_t *size, volatile uint8_t **cpu)
{
    struct copro_vram_heap *h = &d->cp->vram;
    uint64_t end = 0, start;

    /* copro_cp_init allocated from the bottom: the rest is one range. */
    for (unsigned k = 0; k < h->count; k++) {
        if (h->used[k].addr + h->used[k].size > end) {
            end = h->used[k].addr + h->used[k].size;
        }
    }
    start = (end + SEGMENT_ALIGN - 1) & ~(SEGMENT_ALIGN - 1);
    if (start >= h->size ||
        !copro_vram_alloc(h, h->size - start, SEGMENT_ALIGN, base) ||
        *base != start) {
        return false;
    }
    *size = h->size - start;
    *cpu = copro_cp_cpu_ptr(d->cp, start);
    return true;
}

/* The device's own measure of the request that just completed. */
static void log_preemption(struct copro_ddi *d, unsigned e)
{
    uint64_t sum = eng_read64(d, e, COPRO_ENG_STAT_PREEMPT_SUM);
    uint64_t count = eng_read64(d, e, COPRO_ENG_STAT_PREEMPTIONS);
    struct copro_ddi_preempt_rec *rec;

    if (count > d->eng[e].stat_count &&
        d->npreempt_log < COPRO_DDI_PREEMPT_LOG) {
        rec = &d->preempt_log[d->npreempt_log++];
        *rec = (struct copro_ddi_preempt_rec){
            .requested_at = d->eng[e].requested_at,
            .latency_ns = (sum - d->eng[e].stat_sum) /
                          (count - d->eng[e].stat_count),
            .preempted_fence = d->cp->eng[e].preempt.preempted_fence,
            .engine = e,
        };
    }
    d->eng[e].stat_sum = sum;
    d->eng[e].stat_count = count;
    d->eng[e].requested_at = 0;
}

void copro_ddi_dpc(struct copro_ddi *d)
{
    struct copro_cp *cp = d->cp;

    copro_cp_dpc(cp);
    for (unsigned e = 0; e < cp->num_engines; e++) {
        struct copro_engine *eng = &cp->eng[e];

        /* Retirements first: a PREEMPTED or a fault comes after them. */
        if (eng->completed != d->eng[e].completed_reported) {
            d->eng[e].completed_reported = eng->completed;
            if (d->up && d->up->dma_completed) {
                d->up->dma_completed(d->os, e, eng->completed);
            }
        }
        if (eng->preempt.count != d->eng[e].preempts_seen) {
            d->eng[e].preempts_seen = eng->preempt.count;
            log_preemption(d, e);
            if (d->up && d->up->preempted) {
                d->up->preempted(d->os, e, eng->preempt.preempt_fence,
                                 eng->preempt.preempted_fence,
                                 eng->preempt.completed_fence);
            }
        }
        if (eng->halted && eng->faults != d->eng[e].faults_seen) {
            struct ddi_fault f = {
                .kind = eng->fault.kind, .context = eng->fault.context,
                .fence = eng->fault.fence, .addr = eng->fault.addr,
                .offset = eng->fault.offset,
            };

            d->eng[e].faults_seen = eng->faults;
            if (d->up && d->up->faulted) {
                d->up->faulted(d->os, e, &f);
            }
        }
    }
}
