/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: monitor interface
 *
 * x-query-copro (QMP) returns the state of every copro device as data;
 * "info copro" (HMP) prints the same for people.
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-copro.h"
#include "qapi/qapi-types-copro.h"
#include "monitor/monitor.h"
#include "monitor/hmp.h"
#include "qobject/qdict.h"
#include "copro.h"

static CoproEngineInfo *copro_engine_info(CoproEngine *e)
{
    CoproEngineInfo *info = g_new0(CoproEngineInfo, 1);

    info->index = e->index;
    info->state = g_strdup(copro_engine_state_name(copro_engine_state(e)));
    info->ring_base = e->ring_base;
    info->ring_size = e->ring_size;
    info->ring_head = e->ring_head;
    info->ring_tail = e->ring_tail;
    info->current_context = e->active ? e->desc.context : 0;
    info->current_fence = e->active ? e->desc.fence : 0;
    info->completed_fence = e->completed_fence;
    info->fault = g_strdup(copro_fault_name(e->fault_kind));
    info->fault_address = e->fault_addr;
    info->fault_fence = e->fault_fence;
    info->busy_ns = e->stat_busy_ns;
    info->submissions = e->stat_submissions;
    info->packets = e->stat_packets;
    info->bytes = e->stat_bytes;
    info->faults = e->stat_faults;
    info->tlb_hits = copro_mmu_engine_stat(e, COPRO_ENG_STAT_TLB_HITS);
    info->tlb_misses = copro_mmu_engine_stat(e, COPRO_ENG_STAT_TLB_MISSES);
    info->preempt_pending = e->preempt_pending;
    info->preemptions = e->stat_preemptions;
    info->preempt_min_ns = e->stat_preempt_min;
    info->preempt_max_ns = e->stat_preempt_max;
    info->preempt_mean_ns = e->stat_preemptions ?
        e->stat_preempt_sum / e->stat_preemptions : 0;
    info->tiler_held = e->tiler.held;
    info->tiler_oom_fence = e->tiler.oom_fence;
    return info;
}

static CoproInfo *copro_info(CoproState *s)
{
    CoproInfo *info = g_new0(CoproInfo, 1);
    CoproEngineInfoList **etail = &info->engines;
    CoproContextInfoList **ctail = &info->contexts;

    info->path = object_get_canonical_path(OBJECT(s));
    info->vram_size = s->vram_size;
    info->gpu_time_ns = copro_now_ns();
    info->int_status = s->int_status;
    info->int_mask = s->int_mask;
    for (unsigned i = 0; i < s->num_engines; i++) {
        QAPI_LIST_APPEND(etail, copro_engine_info(&s->engines[i]));
    }
    for (unsigned i = 0; i < COPRO_CTX_STATS; i++) {
        CoproCtxStat *c = &s->ctx_stats[i];
        CoproContextInfo *ci;

        if (!c->used) {
            continue;
        }
        ci = g_new0(CoproContextInfo, 1);
        ci->context = c->context;
        ci->busy_ns = c->busy_ns;
        ci->submissions = c->submissions;
        QAPI_LIST_APPEND(ctail, ci);
    }
    copro_mmu_info(s, info);
    copro_display_info(s, info);
    copro_hws_info(s, info);
    return info;
}

static int copro_collect(Object *obj, void *opaque)
{
    CoproInfoList ***tail = opaque;
    CoproState *s = (CoproState *)object_dynamic_cast(obj, TYPE_COPRO);

    if (s && DEVICE(s)->realized) {
        QAPI_LIST_APPEND(*tail, copro_info(s));
    }
    return 0;
}

CoproInfoList *qmp_x_query_copro(Error **errp)
{
    CoproInfoList *head = NULL, **tail = &head;

    object_child_foreach_recursive(object_get_root(), copro_collect, &tail);
    return head;
}

static void hmp_info_copro(Monitor *mon, const QDict *qdict)
{
    g_autoptr(CoproInfoList) list = qmp_x_query_copro(NULL);

    if (!list) {
        monitor_printf(mon, "no copro device\n");
        return;
    }
    for (CoproInfoList *l = list; l; l = l->next) {
        CoproInfo *d = l->value;

        monitor_printf(mon, "copro %s: vram %" PRIu64 " MiB, gpu time %"
                       PRIu64 " ns, int status 0x%" PRIx64 " mask 0x%"
                       PRIx64 "\n", d->path, d->vram_size >> 20,
                       d->gpu_time_ns, d->int_status, d->int_mask);
        for (CoproEngineInfoList *el = d->engines; el; el = el->next) {
            CoproEngineInfo *e = el->value;

            monitor_printf(mon, "  engine %" PRId64 ": %s, ring base 0x%"
                           PRIx64 " size %u head %u tail %u\n",
                           e->index, e->state, e->ring_base, e->ring_size,
                           e->ring_head, e->ring_tail);
            monitor_printf(mon, "    context %u fence %" PRIu64
                           ", completed fence %" PRIu64 "\n",
                           e->current_context, e->current_fence,
                           e->completed_fence);
            if (strcmp(e->fault, "none")) {
                monitor_printf(mon, "    fault: %s at 0x%" PRIx64
                               " (fence %" PRIu64 ")\n", e->fault,
                               e->fault_address, e->fault_fence);
            }
            monitor_printf(mon, "    busy %" PRIu64 " ns, %" PRIu64
                           " submissions, %" PRIu64 " packets, %" PRIu64
                           " bytes, %" PRIu64 " faults\n", e->busy_ns,
                           e->submissions, e->packets, e->bytes, e->faults);
            monitor_printf(mon, "    translation cache: %" PRIu64 " hits, %"
                           PRIu64 " misses\n", e->tlb_hits, e->tlb_misses);
            monitor_printf(mon, "    preemptions %" PRIu64 "%s, latency min %"
                           PRIu64 " mean %" PRIu64 " max %" PRIu64 " ns\n",
                           e->preemptions,
                           e->preempt_pending ? " (one pending)" : "",
                           e->preempt_min_ns, e->preempt_mean_ns,
                           e->preempt_max_ns);
            if (e->tiler_held) {
                monitor_printf(mon, "    tiler: held after the OOM stop of "
                               "fence %" PRIu64 ": the ring is not fetched "
                               "until TILER_ACK\n", e->tiler_oom_fence);
            }
        }
        copro_mmu_hmp(mon, d);
        for (CoproContextInfoList *cl = d->contexts; cl; cl = cl->next) {
            CoproContextInfo *c = cl->value;

            monitor_printf(mon, "  context %u: busy %" PRIu64 " ns, %"
                           PRIu64 " submissions\n", c->context, c->busy_ns,
                           c->submissions);
        }
        copro_hws_hmp(mon, d);
        /* last, as the spec orders it */
        copro_display_hmp(mon, d);
    }
}

void copro_monitor_register(void)
{
    monitor_register_hmp("copro", true, hmp_info_copro);
}
