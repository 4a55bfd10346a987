/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_ddi.h"

#include <stddef.h>

#include <copro/copro_cmd.h>
#include <copro/copro_regs.h>

#include "kmd/copro_ring.h"

/* The OS segment starts on a 64 KiB boundary: room for any alignment an
 * allocation asks, and easy to read in dumps. */
#define SEGMENT_ALIGN       0x10000ull

/*
 * What a render engine runs for applications: every opcode up to COPY_PTE,
 * and the tiling path's packets (COPRO_RENDER_SCENE_OPS) on a device with
 * COPRO_CAP_TILER: a geometry submission stopped by TILER_OOM is reported
 * by the tiler_oom upcall (the DPC, which acknowledges the engine's hold),
 * and the OS grows its parameter buffer and resumes it (vidsch_scene.c,
 * kernel/kscene.h).
 */
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
    if (e == COPRO_ENGINE_COPY) {
        return COPRO_COPY_ENGINE_OPS;
    }
    /* the tiling path where the device has it (the validator accepts it
     * in GPU-VA mode only); TILER_OOM goes to the OS as an upcall */
    return RENDER_ENGINE_OPS |
           ((d->cp->dev->info.caps & COPRO_CAP_TILER) ? COPRO_RENDER_SCENE_OPS
                                                       : 0);
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
        .ctx_switch_ns = info->ctx_switch_ns,
        /* what the device reports, checked against the ABI's range */
        .tile_size = info->tile_size >= COPRO_TILE_SIZE_MIN &&
                     info->tile_size <= COPRO_TILE_SIZE_MAX
                     ? info->tile_size : 0,
    };
    for (unsigned e = 0; e < caps->engines && e < DDI_MAX_ENGINES; e++) {
        caps->engine_ops[e] = engine_ops(d, e);
    }
    if (d->disp) {
        /* the device's display block: one CRTC with a cursor plane, and
         * the surface check's size limit (docs/specs/copro.rst) */
        caps->display = (struct ddi_display_caps){
            .sources = 1,
            .refresh_hz = d->disp->refresh,
            .vsync_period_ns = d->disp->period_ns,
            .max_width = 4096, .max_height = 4096,
            .pointer = true,
        };
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
    if (args->gpuva && !d->gpuva) {
        /* raw addresses on a context without page tables would reach
         * any physical memory */
        d->last_refusal = (struct copro_render_diag){
            DDI_EINVAL, UINT32_MAX, "GPU-VA buffer without GPU-VA mode",
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
    /*
     * No check for a TILER_OOM stop here: a submission written after a
     * stop the OS has not heard of yet is not run. The engine holds until
     * the DPC acknowledges the stop, as it reports it, and the
     * acknowledgement drops what the ring received meanwhile; the OS
     * takes it back with the rest (copro_ddi_dpc).
     */
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

/* ---- display ---- */

static struct copro_display *source_of(struct copro_ddi *d, unsigned source)
{
    return source == 0 ? d->disp : NULL;
}

static int ddi_commit_vidpn(void *drv, unsigned source,
                            const struct ddi_display_mode *mode,
                            uint64_t primary_addr)
{
    struct copro_ddi *d = drv;
    struct copro_display *disp = source_of(d, source);
    struct copro_display_mode m;

    if (!disp) {
        return DDI_EINVAL;
    }
    if (!mode) {
        copro_display_off(disp);
        return DDI_OK;
    }
    m = (struct copro_display_mode){
        .width = mode->width, .height = mode->height, .pitch = mode->pitch,
        .format = mode->format,
    };
    /* the first flip after a mode change starts a new stream: the gap
     * before it is no missed vblank */
    copro_display_restart_stream(disp);
    return copro_display_set_mode(disp, &m, primary_addr) ? DDI_EINVAL
                                                          : DDI_OK;
}

static int ddi_set_source_address(void *drv, const struct ddi_flip_args *a)
{
    struct copro_ddi *d = drv;
    struct copro_display *disp = source_of(d, a->source);

    if (!disp) {
        return DDI_EINVAL;
    }
    /* No fence: the OS calls this once the primary is drawn. The flip is
     * written now if the hardware holds none, else by the ISR hook at
     * the FLIP_DONE that frees it. */
    return copro_display_present(disp, a->primary_addr, COPRO_ENGINE_RENDER,
                                 0, a->present_id) ? DDI_OK : DDI_EBUSY;
}

/* The cursor registers hold shape, position and enable together. */
static int program_pointer(struct copro_ddi *d, struct copro_display *disp)
{
    int16_t x = (int16_t)(d->pointer.x < INT16_MIN ? INT16_MIN :
                          d->pointer.x > INT16_MAX ? INT16_MAX :
                          d->pointer.x);
    int16_t y = (int16_t)(d->pointer.y < INT16_MIN ? INT16_MIN :
                          d->pointer.y > INT16_MAX ? INT16_MAX :
                          d->pointer.y);
    bool on = d->pointer.visible && d->pointer.addr;

    return copro_display_cursor(disp, on, x, y, d->pointer.addr) ? DDI_OK
                                                                 : DDI_EINVAL;
}

static int ddi_set_pointer_shape(void *drv, unsigned source,
                                 uint64_t shape_addr)
{
    struct copro_ddi *d = drv;
    struct copro_display *disp = source_of(d, source);
    uint64_t old = d->pointer.addr;
    int st;

    if (!disp) {
        return DDI_EINVAL;
    }
    d->pointer.addr = shape_addr;
    st = program_pointer(d, disp);
    if (st != DDI_OK) {
        /* the device kept the old image: so do we */
        d->pointer.addr = old;
        program_pointer(d, disp);
    }
    return st;
}

static int ddi_set_pointer_position(void *drv, unsigned source, int32_t x,
                                    int32_t y, bool visible)
{
    struct copro_ddi *d = drv;
    struct copro_display *disp = source_of(d, source);

    if (!disp) {
        return DDI_EINVAL;
    }
    d->pointer.x = x;
    d->pointer.y = y;
    d->pointer.visible = visible;
    return program_pointer(d, disp);
}

/* copro_display's DPC-level upcalls, forwarded as the DDI's. */
static void disp_flip_done(void *ctx, const struct copro_flip *f,
                           uint64_t missed)
{
    struct copro_ddi *d = ctx;
    struct ddi_flip_done fd = {
        .source = 0, .present_id = f->tag, .primary_addr = f->addr,
        .status = DDI_OK, .vsync = f->vsync, .time = f->time,
        .missed = missed,
    };

    if (d->up && d->up->flip_done) {
        d->up->flip_done(d->os, &fd);
    }
}

static void disp_flip_refused(void *ctx, const struct copro_flip *f)
{
    struct copro_ddi *d = ctx;
    struct ddi_flip_done fd = {
        .source = 0, .present_id = f->tag, .primary_addr = f->addr,
        .status = DDI_EINVAL, .vsync = f->vsync, .time = f->time,
    };

    if (d->up && d->up->flip_done) {
        d->up->flip_done(d->os, &fd);
    }
}

static void disp_vsync(void *ctx, uint64_t vsyncs, uint64_t time)
{
    struct copro_ddi *d = ctx;

    if (d->up && d->up->vsync) {
        d->up->vsync(d->os, 0, vsyncs, time);
    }
}

static const struct copro_display_upcalls disp_upcalls = {
    .flip_done = disp_flip_done,
    .vsync = disp_vsync,
    .flip_refused = disp_flip_refused,
};

void copro_ddi_attach_display(struct copro_ddi *d, struct copro_display *disp)
{
    d->disp = disp;
    copro_display_set_upcalls(disp, &disp_upcalls, d);
}

/* The arguments, then MARK: the device records the marker at that write,
 * stamped with its clock. Written whether or not the device's log is on
 * (the driver cannot know, and must not: a run is the same either way). */
static void ddi_mark(void *drv, unsigned kind, unsigned engine,
                     uint32_t context, uint64_t arg0, uint64_t arg1)
{
    struct copro_ddi *d = drv;

    if (!(d->cp->dev->info.caps & COPRO_CAP_MARKERS)) {
        return;     /* a device without them: nothing to tell */
    }
    copro_write64(d->cp->dev, COPRO_REG_MARK_ARG0, arg0);
    copro_write64(d->cp->dev, COPRO_REG_MARK_ARG1, arg1);
    copro_write64(d->cp->dev, COPRO_REG_MARK,
                  COPRO_MARK(kind, engine, context));
}

static int ddi_build_paging_buffer(void *drv, const struct ddi_paging_op *ops,
                                   unsigned nops, struct ddi_dmabuf *out)
{
    struct copro_ddi *d = drv;

    if (!d->pager) {
        return DDI_ENOTSUP;     /* not reached: the table without paging */
    }
    return copro_pager_build(d->pager, ops, nops, out);
}

/* The base table. Without a pager build_paging_buffer stays NULL (the
 * DDI's "cannot page": the OS keeps allocations where they were placed);
 * GPU-VA mode needs paging too, its moves being paging buffers.
 * copro_ddi_device adds what is attached. */
static const struct ddi_ops copro_ddi_ops = {
    .query_caps = ddi_query_caps,
    .render = ddi_render,
    .patch = ddi_patch,
    .submit = ddi_submit,
    .preempt = ddi_preempt,
    .reset_engine = ddi_reset_engine,
    .gpu_time = ddi_gpu_time,
    .commit_vidpn = ddi_commit_vidpn,
    .set_source_address = ddi_set_source_address,
    .set_pointer_shape = ddi_set_pointer_shape,
    .set_pointer_position = ddi_set_pointer_position,
    .mark = ddi_mark,
};

void copro_ddi_attach_gpuva(struct copro_ddi *d, struct copro_gpuva *g)
{
    d->gpuva = g;
}

void copro_ddi_attach_hwq(struct copro_ddi *d, struct copro_hwq *h)
{
    d->hwq = h;
}

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

void copro_ddi_attach_pager(struct copro_ddi *d, struct copro_pager *pager)
{
    d->pager = pager;
}

void copro_ddi_set_upcalls(struct copro_ddi *d, const struct ddi_upcalls *up,
                           void *os)
{
    d->up = up;
    d->os = os;
}

struct ddi_device copro_ddi_device(struct copro_ddi *d)
{
    d->ops = copro_ddi_ops;
    if (d->pager) {
        d->ops.build_paging_buffer = ddi_build_paging_buffer;
        if (d->gpuva) {
            d->ops.gpuva = &copro_gpuva_ops;
        }
    }
    if (d->hwq) {
        d->ops.hws = &copro_hwq_ops;
    }
    return (struct ddi_device){ .ops = &d->ops, .drv = d };
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
        /* An OOM stop before a PREEMPTED of the same DPC: a preemption
         * pending at the stop completes after it (with nothing to
         * interrupt), and the OS must requeue the stopped one first. */
        if (eng->oom.count != d->eng[e].ooms_seen) {
            d->eng[e].ooms_seen = eng->oom.count;
            /*
             * The engine holds after the stop: nothing written to its ring
             * since has run. The OS's upcall takes back every submission
             * of the engine that has not retired, those written during the
             * hold included (it wrote them not knowing of the stop), and
             * resubmits them from within the upcall (vidsch schedules as
             * it leaves), the stopped one first with RESUME. So the stop
             * is acknowledged here, as the OS hears of it and before it
             * writes the ring again: the acknowledgement drops what the
             * hold kept from running, which is exactly what the OS takes
             * back. (After the upcall it would drop the resubmissions;
             * at the ISR or in a fence wait's DPC, before the OS knows,
             * the engine would run what the OS writes meanwhile ahead of
             * the stopped submission.) Interrupts are off in the DPC:
             * nothing is submitted between the two.
             */
            copro_cp_tiler_ack(d->cp, e);
            if (d->up && d->up->tiler_oom) {
                d->up->tiler_oom(d->os, e, eng->oom.fence, eng->oom.need,
                                 eng->oom.completed_fence);
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
    /* Hardware queues: their progress, errors and the log (after the
     * engines' kernel rings: paging before the work that needs it). */
    if (d->hwq && d->up) {
        copro_hwq_dpc(d->hwq, d->up, d->os);
    }
    /* The display's flips and vsync after the engines: a flip_done the
     * OS sees never comes before the completion that made it ready. */
    if (d->disp) {
        copro_display_dpc(d->disp);
    }
}
