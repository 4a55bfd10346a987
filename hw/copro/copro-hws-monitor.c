/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: hardware scheduling in x-query-copro and info copro.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "monitor/monitor.h"
#include "qapi/qapi-types-copro.h"
#include "copro.h"
#include "copro-hws-internal.h"

/*
 * Monitor (x-query-copro, info copro)
 */

void copro_hws_info(CoproState *s, CoproInfo *info)
{
    CoproHws *h = &s->hws;
    CoproHwSchedInfo *hi;
    CoproRunListInfoList **rtail;
    CoproHwQueueInfoList **qtail;

    if (!s->hwsched) {
        return;
    }
    hi = g_new0(CoproHwSchedInfo, 1);
    rtail = &hi->run_lists;
    qtail = &hi->queues;
    hi->log_address = h->log_addr;
    hi->log_size = h->log_size;
    hi->log_written = h->log_wptr;
    hi->log_read = h->log_rptr;
    hi->log_dropped = h->log_dropped;
    hi->error = h->error;
    hi->doorbells = h->doorbells;
    hi->switches = h->switches;
    for (unsigned i = 0; i < s->num_engines; i++) {
        CoproHwsEngine *he = &h->eng[i];
        CoproRunListInfo *ri = g_new0(CoproRunListInfo, 1);
        uint32List **stail = &ri->queues;

        ri->engine = i;
        ri->seq = he->seq;
        ri->pending = he->pending;
        ri->status = he->status;
        ri->has_current = he->current != COPRO_HWQ_NONE;
        ri->current = he->current;
        ri->switching = he->switching;
        for (uint32_t k = 0; k < he->active_count; k++) {
            QAPI_LIST_APPEND(stail, he->active[k]);
        }
        QAPI_LIST_APPEND(rtail, ri);
    }
    for (uint32_t k = 0; k < COPRO_HWQ_MAX; k++) {
        CoproHwq *q = &h->q[k];
        CoproHwQueueInfo *qi;

        if (!q->mapped) {
            continue;
        }
        qi = g_new0(CoproHwQueueInfo, 1);
        qi->slot = k;
        qi->engine = q->engine;
        qi->band = q->band;
        qi->effective_band = hwq_band(q);
        qi->state = g_strdup(copro_hwq_state_name(q->state));
        qi->error = q->error;
        qi->context = q->context;
        qi->head = q->head;
        qi->tail = q->tail;
        qi->ring_size = q->ring_size;
        qi->resume = q->resume;
        qi->quantum_ns = q->quantum_ns;
        qi->budget_ns = q->budget_ns;
        qi->completed_fence = q->completed_fence;
        qi->gpu_time_ns = q->gpu_time_ns;
        qi->frame_time_ns = q->frame_time_ns;
        qi->last_frame_ns = q->last_frame_ns;
        qi->runs = q->runs;
        qi->preemptions = q->preemptions;
        qi->submissions = q->submissions;
        QAPI_LIST_APPEND(qtail, qi);
    }
    info->hwsched = hi;
}

void copro_hws_hmp(Monitor *mon, CoproInfo *d)
{
    CoproHwSchedInfo *hi = d->hwsched;

    if (!hi) {
        return;
    }
    monitor_printf(mon, "  hardware scheduling: log at 0x%" PRIx64
                   " size %u written %u read %u dropped %u, error %u, "
                   "%" PRIu64 " doorbells, %" PRIu64 " switches\n",
                   hi->log_address, hi->log_size, hi->log_written,
                   hi->log_read, hi->log_dropped, hi->error, hi->doorbells,
                   hi->switches);
    for (CoproRunListInfoList *rl = hi->run_lists; rl; rl = rl->next) {
        CoproRunListInfo *r = rl->value;

        monitor_printf(mon, "    engine %u run list (seq %u%s):", r->engine,
                       r->seq, r->pending ? ", one pending" : "");
        for (uint32List *l = r->queues; l; l = l->next) {
            monitor_printf(mon, " %u", l->value);
        }
        if (!r->queues) {
            monitor_printf(mon, " none (kernel ring)");
        }
        if (r->has_current) {
            monitor_printf(mon, "; running queue %u%s", r->current,
                           r->switching ? " (switching out)" : "");
        }
        monitor_printf(mon, "\n");
    }
    for (CoproHwQueueInfoList *ql = hi->queues; ql; ql = ql->next) {
        CoproHwQueueInfo *q = ql->value;

        monitor_printf(mon, "    queue %u: engine %u band %u (runs at %u) "
                       "%s%s, context %u, head %u tail %u of %u, fence %"
                       PRIu64 "\n", q->slot, q->engine, q->band,
                       q->effective_band, q->state, q->resume ? " resume" :
                       "", q->context, q->head, q->tail, q->ring_size,
                       q->completed_fence);
        monitor_printf(mon, "      gpu %" PRIu64 " ns (frame %" PRIu64
                       ", last frame %" PRIu64 ", budget %u), runs %"
                       PRIu64 ", preemptions %" PRIu64 ", submissions %"
                       PRIu64 "\n", q->gpu_time_ns, q->frame_time_ns,
                       q->last_frame_ns, q->budget_ns, q->runs,
                       q->preemptions, q->submissions);
    }
}
