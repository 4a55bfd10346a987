/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The property checker, second half: a workload's buffers built, the run
 * driven op by op on the simulated host, the bounds each policy (and the
 * device's scheduler) must keep, and the checks at the end of the run.
 */
#include "sim_check_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building the run ---- */

/* Writes buffer i's packets into GPU memory (after a tagging NOP) and
 * injects its hang or fault. */
static void build_buffer(struct checker *k, unsigned i)
{
    const struct wl_buf *spec = &k->w->buf[i];
    struct cbuf *b = &k->buf[i];
    struct sim_gpu *g = k->h->gpu;
    uint32_t off[WL_MAX_PKT + 2];
    unsigned bytes = 8 + (WL_MAX_PKT + 2) * 4 * COPRO_LEN_COPY + 64;
    uint64_t at = sim_gpu_alloc(g, bytes, 64);
    uint32_t *dw = sim_gpu_ptr(g, at);
    unsigned n = 0;

    *b = (struct cbuf){
        .dma = &k->dma[i],
        .ctx = spec->ctx == WL_PAGING ? -1 : spec->ctx,
        .engine = spec->engine,
        .check_bytes = spec->check_bytes,
        .pattern = (uint32_t)(k->w->seed * 2654435761u) ^ (i * 0x9e3779b9u),
        .fence_value = ((uint64_t)i << 32) | 0x600d,
    };
    b->check_addr = sim_gpu_alloc(g, b->check_bytes, 64);
    b->fence_addr = sim_gpu_alloc(g, 8, 8);
    dw[n++] = COPRO_PKT_HDR(COPRO_OP_NOP, 0, 2);
    dw[n++] = i;
    for (unsigned p = 0; p < spec->npkt; p++) {
        const struct wl_pkt *pk = &spec->pkt[p];

        off[p] = n * 4;
        switch (pk->op) {
        case COPRO_OP_WORK:
            n = sim_emit_work(dw, n, pk->arg);
            break;
        case COPRO_OP_FILL:
            n = sim_emit_fill(dw, n, k->scratch, pk->arg, i);
            break;
        case COPRO_OP_TIMESTAMP:
            n = sim_emit_timestamp(dw, n, k->scratch + 8 * (i % 64));
            break;
        default:
            n = sim_emit_nop(dw, n, (unsigned)pk->arg);
            break;
        }
    }
    off[spec->npkt] = n * 4;
    n = sim_emit_fill(dw, n, b->check_addr, b->check_bytes, b->pattern);
    off[spec->npkt + 1] = n * 4;
    n = sim_emit_fence(dw, n, b->fence_addr, b->fence_value);
    *b->dma = (struct ddi_dmabuf){ 0 };
    b->dma->dw = dw;
    b->dma->gpu_addr = at;
    b->dma->cap_bytes = bytes;
    b->dma->len_bytes = n * 4;
    b->dma->engine = spec->engine;
    if (spec->hang_pkt >= 0) {
        sim_gpu_inject(g, at, off[spec->hang_pkt], SIM_INJECT_HANG);
    }
    if (spec->fault_pkt >= 0) {
        sim_gpu_inject(g, at, off[spec->fault_pkt], SIM_INJECT_FAULT);
    }
}

/*
 * Hardware scheduling: how long a context may wait for the engine. The
 * device runs the highest band first, so it waits for at most the work of
 * the bands above its own (all other work under joblist, whose budgets
 * demote queues) and a turn of everyone (quantum, the granularity, the
 * preparations); an IDLE one gets NORMAL's share every frame, in turns
 * of at most a quantum; plus the recovery from hangs and faults (the
 * watchdog's suspension after tdr_timeout, the device's timeout) and a
 * few frames (the log, and so the watchdog, comes at vsyncs).
 */
static void compute_bounds_hws(struct checker *k, uint64_t g, uint64_t prep,
                               uint64_t cs, unsigned depth)
{
    const struct workload *w = k->w;
    uint64_t frame = k->h->hws_cfg.frame_ns;
    uint64_t turn = 2 * w->vs.quantum_ns + g + 3 * prep + 2 * cs;
    uint64_t recovery = (w->nhang + w->nfault) *
                        (2 * w->vs.tdr_timeout_ns + w->vs.tdr_grace_ns +
                         3 * frame + turn);
    bool joblist = chk_policy_is(k, VIDSCH_POLICY_JOBLIST);

    k->bound_start += g + 2 * cs;
    for (unsigned i = 0; i < w->nctx; i++) {
        struct cctx *c = &k->ctx[i];
        unsigned mine = chk_band_of(w->ctx[i].prio), n = 0, idle = 0;
        uint64_t higher = w->npaging * w->max_paging_ns;

        for (unsigned j = 0; j < w->nctx; j++) {
            n += w->ctx[j].engine == w->ctx[i].engine;
            idle += w->ctx[j].engine == w->ctx[i].engine &&
                    chk_band_of(w->ctx[j].prio) == COPRO_BAND_IDLE;
        }
        for (unsigned b = 0; b < w->nbuf; b++) {
            const struct wl_buf *x = &w->buf[b];
            unsigned xb;

            if (x->ctx == WL_PAGING || x->ctx == i ||
                x->engine != w->ctx[i].engine) {
                continue;
            }
            xb = chk_band_of(w->ctx[x->ctx].prio);
            if (joblist || (xb > mine &&
                            !(mine == COPRO_BAND_IDLE &&
                              xb == COPRO_BAND_NORMAL))) {
                higher += wl_buf_ns(w, x);
            }
        }
        c->starve_bound = higher + (n + 2) * turn +
                          (depth + 1) * w->max_buf_ns + recovery +
                          frame + 2 * w->vs.sync_poll_ns;
        if (mine == COPRO_BAND_IDLE || joblist) {
            /* a turn on NORMAL's share for every IDLE one before it, at
             * least one per frame (joblist: anyone may be demoted) */
            c->starve_bound += ((joblist ? n : idle) + 1) * frame;
        }
    }
}

static void compute_bounds(struct checker *k)
{
    const struct workload *w = k->w;
    unsigned depth = w->vs.ring_depth ? w->vs.ring_depth
                     : w->gpu.preemption == COPRO_PREEMPT_NONE ? 1 : 2;
    uint64_t cs = w->gpu.ctx_state_size * 1000000000ull / w->gpu.copy_bw;
    uint64_t prep = (w->gpu.engines + 2) * (w->prep_ns + w->prep_jitter_ns) +
                    4 * w->gpu.upcall_ns + 2 * cs + 10 * US;
    uint64_t g, turn, recovery;

    if (depth > w->gpu.ring_entries - 1) {
        depth = w->gpu.ring_entries - 1;
    }
    /* a lower buffer may still start while the higher one is prepared;
     * without preemption, also while the ring drains */
    k->bound_start = prep;
    if (w->gpu.preemption == COPRO_PREEMPT_NONE) {
        k->bound_start += depth * w->max_buf_ns;
    }
    /* the longest the engine runs without an arbitration point */
    switch (w->gpu.preemption) {
    case COPRO_PREEMPT_MID_COMMAND:
        g = w->gpu.arbitration_ns + w->gpu.packet_ns + cs;
        break;
    case COPRO_PREEMPT_COMMAND:
        g = w->max_pkt_ns + cs;
        break;
    case COPRO_PREEMPT_DMA_BUFFER:
        g = w->max_buf_ns;
        break;
    default:
        g = (depth + 1) * w->max_buf_ns;
        break;
    }
    turn = w->vs.quantum_ns + g + 3 * prep + 2 * cs +
           w->npaging * w->max_paging_ns;
    recovery = (w->nhang + w->nfault) *
               (w->vs.tdr_timeout_ns + w->vs.tdr_grace_ns + turn);
    /* A turn: a quantum (fight_factor of them while contexts fight over
     * VRAM), the way to the next arbitration point, the decision's own
     * latency, a buffer expected to end soon waited for instead of cut
     * (at most twice the switch cost: vidsch_pick.c), paging between, and
     * the recovery from hangs on the way */
    k->bound_turn = w->vs.quantum_ns * (w->vs.fight_bytes &&
                                        w->vs.fight_factor > 1
                                        ? w->vs.fight_factor : 1) +
                    g + 3 * prep + 6 * cs + w->npaging * w->max_paging_ns +
                    recovery + 2 * w->vs.sync_poll_ns;
    /* A context ready to run waits at most: aging_ns until it is boosted
     * to the top level, a turn for everyone there, and the work of more
     * urgent contexts already committed to the ring when it got there
     * (higher levels are never preempted for it) */
    for (unsigned e = 0; e < w->gpu.engines; e++) {
        unsigned n = 0;

        for (unsigned c = 0; c < w->nctx; c++) {
            n += w->ctx[c].engine == e;
        }
        k->bound_starve[e] = w->vs.aging_ns + (n + 2) * turn +
                             (depth + 1) * w->max_buf_ns + recovery +
                             2 * w->vs.sync_poll_ns;
    }
    if (k->hws) {
        compute_bounds_hws(k, g, prep, cs, depth);
    }
}

static void run_op(void *obj, uint64_t idx)
{
    struct checker *k = obj;
    const struct wl_op *op = &k->w->op[idx];
    struct vidsch *vs = k->h->vs;
    struct cctx *c = op->ctx < k->w->nctx ? &k->ctx[op->ctx] : NULL;
    volatile uint64_t *sync = op->sync < WL_MAX_SYNC
        ? sim_gpu_ptr(k->h->gpu, k->sync_addr[op->sync]) : NULL;
    struct cbuf *b = &k->buf[op->buf];
    bool was;
    int rc;

    if (k->o->verbose && op->kind != WL_SUBMIT) {
        fprintf(stderr, "%12" PRIu64 "    op %u ctx %u sync %u value %" PRIu64
                "\n", chk_now(k), op->kind, op->ctx + 1, op->sync,
                op->value);
    }
    switch (op->kind) {
    case WL_SUBMIT:
        /* the scheduler starts a context's aging clock when work comes
         * to a context that had none queued or on the GPU */
        was = false;
        for (unsigned i = 0; i < c->nbuf; i++) {
            uint8_t wh = k->buf[c->bufs[i]].where;

            was |= wh == W_QUEUED || wh == W_SLOT || wh == W_RING;
        }
        b->where = W_QUEUED;
        b->accepted = true;
        b->seq = c->next_seq;
        b->order = ++k->next_order;
        c->bufs[c->nbuf++] = op->buf;
        rc = vidsch_submit(vs, c->vc, b->dma, NULL, op->buf);
        if (rc == DDI_OK) {
            c->next_seq++;
            if (!was && chk_electable(k, c)) {
                c->last_active = chk_now(k);
            }
        } else {
            b->accepted = false;
            b->where = W_NONE;
            c->nbuf--;
            if (rc != DDI_ELOST || !c->lost) {
                chk_fail(k, "vidsch_submit: %d", rc);
            }
        }
        break;
    case WL_PAGING_SUBMIT:
        b->where = W_QUEUED;
        b->accepted = true;
        rc = vidsch_submit_paging(vs, b->engine, b->dma, op->buf);
        if (rc != DDI_OK) {
            chk_fail(k, "vidsch_submit_paging: %d", rc);
        }
        break;
    case WL_WAIT:
        if (c->nwait == sizeof(c->waits) / sizeof(c->waits[0])) {
            chk_fail(k, "ctx %u: more waits than the checker keeps", c->id);
            break;
        }
        rc = vidsch_wait(vs, c->vc, sync, op->value);
        if (rc == DDI_OK) {
            c->waits[c->nwait++] = (struct cwait){
                .addr = k->sync_addr[op->sync], .value = op->value,
                .before_seq = c->next_seq };
        } else if (rc != DDI_ELOST) {
            chk_fail(k, "vidsch_wait: %d", rc);
        }
        break;
    case WL_SIGNAL:
        rc = vidsch_signal(vs, c->vc, sync, op->value);
        if (rc == DDI_ELOST) {
            /* a removed device's fences complete, as D3D12's do */
            *sync = op->value;
            vidsch_sync_changed(vs);
        } else if (rc != DDI_OK) {
            chk_fail(k, "vidsch_signal: %d", rc);
        }
        break;
    case WL_CPU_SIGNAL:
        *sync = op->value;
        vidsch_sync_changed(vs);
        break;
    }
}

static void final_checks(struct checker *k, bool drained)
{
    const struct workload *w = k->w;
    struct sim_gpu *g = k->h->gpu;

    if (!drained) {
        chk_fail(k, "the run did not end within the time limit");
    }
    if (!vidsch_idle(k->h->vs)) {
        for (unsigned i = 0; k->o->verbose && i < w->nbuf; i++) {
            if (k->buf[i].accepted && !k->buf[i].done) {
                fprintf(stderr, "buffer %u (ctx %d) not done, where %u\n",
                        i, k->buf[i].ctx + 1, k->buf[i].where);
            }
        }
        chk_fail(k, "the scheduler is not idle at the end");
    }
    for (unsigned i = 0; i < w->nbuf; i++) {
        struct cbuf *b = &k->buf[i];
        struct cctx *c = chk_ctx_of(k, b);

        if (!b->accepted) {
            continue;
        }
        if (b->done != 1) {
            chk_fail(k, "buffer %u reported %u times", i, b->done);
            continue;
        }
        if (b->status == DDI_OK) {
            const uint8_t *m = sim_gpu_ptr(g, b->check_addr);

            if (b->retired != 1) {
                chk_fail(k, "buffer %u completed but retired %u times", i,
                     b->retired);
            }
            for (uint32_t o = 0; o < b->check_bytes; o += 4) {
                if (memcmp(m + o, &b->pattern, 4)) {
                    chk_fail(k, "buffer %u completed but its FILL is wrong at "
                         "+%u", i, o);
                    break;
                }
            }
            if (*(uint64_t *)sim_gpu_ptr(g, b->fence_addr) !=
                    b->fence_value) {
                chk_fail(k, "buffer %u completed but its FENCE is missing", i);
            }
        } else if (b->status == DDI_ELOST) {
            if (b->retired) {
                chk_fail(k, "buffer %u reported lost but it retired", i);
            }
            if (!c || !c->lost) {
                chk_fail(k, "buffer %u lost, but its context was not", i);
            }
        } else {
            chk_fail(k, "buffer %u reported with status %d", i, b->status);
        }
    }
    for (unsigned i = 0; i < w->nctx; i++) {
        const struct cctx *c = &k->ctx[i];

        if (c->triggered && !c->lost) {
            chk_fail(k, "ctx %u hung or faulted but was not put in error",
                 c->id);
        }
        /* a lost device stops all of its contexts */
        if (c->device && k->dev_lost[c->device] && !c->lost) {
            chk_fail(k, "ctx %u of lost device %u was not lost with it",
                     c->id, c->device);
        }
        for (unsigned j = 0; c->lost && !c->triggered && j < c->nbuf; j++) {
            const struct cbuf *b = &k->buf[c->bufs[j]];

            bool lost = b->accepted && b->done && b->status == DDI_ELOST;

            k->r->device_bufs_lost += lost;
            k->r->device_held_lost += lost && b->held_at_loss;
        }
    }
}

bool checker_run(struct checker *k, struct sim_host *h,
                 const struct workload *w, const struct check_opts *o,
                 struct check_result *r)
{
    static const struct sim_host_hooks hooks = {
        .buffer_done = chk_on_buffer_done, .context_lost = chk_on_context_lost,
        .trace = chk_on_trace,
    };
    uint64_t limit = o->limit_ns ? o->limit_ns : 10000 * MS;
    struct vidsch_config vc = w->vs;
    bool drained;

    *r = (struct check_result){ .ok = true, .buffers = w->nbuf };
    k->w = w;
    k->h = h;
    k->o = o;
    k->r = r;
    memset(k->ctx, 0, sizeof(k->ctx));
    memset(k->max_fence, 0, sizeof(k->max_fence));
    memset(k->nexpect, 0, sizeof(k->nexpect));
    memset(k->last_order, 0, sizeof(k->last_order));
    k->next_order = 0;
    k->dropped_one = false;
    k->trace_seq = 0;
    k->lost_seq = 0;
    k->hws = o->hws;
    if (o->hws) {
        vc.hwsched = true;
        vc.policy = (w->seed & 1) ? VIDSCH_POLICY_JOBLIST
                                  : VIDSCH_POLICY_QUANTUM;
        vc.hws_low_share = o->mutation == MUT_HWS_NO_SHARE
                           ? 0 : COPRO_HWS_LOW_SHARE_DEFAULT;
        sim_hws_config_default(&h->hws_cfg);
        h->hws_cfg.flat_bands = o->mutation == MUT_HWS_FLAT_BANDS;
    }
    k->policy = vc.policy;
    for (unsigned e = 0; e < DDI_MAX_ENGINES; e++) {
        k->cut_ctx[e] = -1;
        k->turn_ctx[e] = -1;
        k->turn_since[e] = 0;
        k->ahead_ctx[e] = -1;
        k->ahead_at[e] = 0;
        k->preempt_reason[e] = VIDSCH_PREEMPT_OTHER;
        k->preempt_at[e] = 0;
        k->preempt_seq[e] = 0;
        k->preempt_for_lost[e] = false;
        k->retire_seen[e] = 0;
        k->retire_at_req[e] = 0;
    }
    k->check_order = chk_policy_is(k, VIDSCH_POLICY_FIFO) && !w->nwait &&
                     !w->nhang && !w->nfault && !w->npaging;

    {
        struct sim_gpu_config gc = w->gpu;

        /* the timing FILLs' target: nobody reads it back */
        gc.discard_base = w->gpu.mem_size - SCRATCH_BYTES;
        gc.discard_size = SCRATCH_BYTES;
        sim_host_start(h, &gc, &vc, w->prep_ns, w->prep_jitter_ns,
                       w->seed, &hooks, k);
    }
    h->ignore_devices = o->mutation == MUT_NO_DEVICES;
    memset(k->ctx, 0, sizeof(k->ctx));
    memset(k->dev_lost, 0, sizeof(k->dev_lost));
    compute_bounds(k);
    sim_gpu_observe(h->gpu, &chk_observer, k);
    k->scratch = w->gpu.mem_size - SCRATCH_BYTES;
    for (unsigned s = 0; s < WL_MAX_SYNC; s++) {
        k->sync_addr[s] = sim_gpu_alloc(h->gpu, 8, 8);
    }
    for (unsigned i = 0; i < w->nctx; i++) {
        struct cctx *c = &k->ctx[i];

        c->id = i + 1;
        c->engine = w->ctx[i].engine;
        c->prio = w->ctx[i].prio;
        c->save = sim_gpu_alloc(h->gpu, COPRO_SAVE_SIZE, 64);
        c->device = w->ctx[i].device;
        c->next_seq = 1;
        c->vc = sim_host_ctx_create(h, c->id, c->engine,
                                    (enum vidsch_priority)c->prio, c->save,
                                    c->device);
        if (!c->vc) {
            chk_fail(k, "vidsch_ctx_create failed");
            return false;
        }
    }
    for (unsigned i = 0; i < w->nbuf; i++) {
        build_buffer(k, i);
    }
    for (unsigned i = 0; i < w->nop; i++) {
        sim_at(&h->clk, w->op[i].at, run_op, k, i);
    }

    while (sim_step(&h->clk, limit)) {
        chk_update_waiting(k);
    }
    drained = !sim_pending(&h->clk);

    if (o->mutation == MUT_CORRUPT_MEMORY) {
        for (unsigned i = 0; i < w->nbuf; i++) {
            if (k->buf[i].done && k->buf[i].status == DDI_OK) {
                memset(sim_gpu_ptr(h->gpu, k->buf[i].check_addr), 0, 4);
                break;
            }
        }
    }
    final_checks(k, drained);
    r->end_ns = h->clk.now;
    r->events = h->clk.executed;
    return r->ok;
}
