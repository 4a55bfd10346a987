/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: the timeline, a host-side log of what the device did
 *
 * Per device, a bounded ring of events stamped with the device clock
 * (QEMU_CLOCK_VIRTUAL): per engine, submissions starting and retiring,
 * preemption requests and saves, resumes, faults, retries and resets;
 * display flips, vsyncs and flips done; device resets; and the markers
 * the guest OS writes to the MARK register (its scheduler's decisions,
 * presents, missed deadlines), so that the OS's side and the engines' side
 * of a run line up on one clock, as GPUView shows them on Windows.
 *
 * The log lives in QEMU's memory, never in the guest's: nothing the guest
 * sees depends on it, so it needs no migration (a destination starts with
 * its own, empty log) and a run behaves the same with it on or off. Off
 * (the default) every hook is one test of a flag. Once full, each new
 * event drops the oldest and counts it.
 *
 * Each kind has a table entry naming its arguments, and QMP
 * (x-copro-timeline) returns the kind as a string and the arguments as an
 * object of named members: a new kind is a new table row, not a new
 * format. tools/copro-trace turns the events into a Perfetto trace.
 *
 * The programming model is docs/specs/copro.rst, "Timeline".
 *
 * Copyright (c) 2026 The copro authors
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-copro.h"
#include "qapi/qapi-visit-copro.h"
#include "qapi/qobject-output-visitor.h"
#include "qapi/visitor.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"
#include "qobject/qnum.h"
#include "qemu/bitmap.h"
#include "system/system.h"
#include "system/runstate.h"
#include "hw/core/cpu.h"
#include "copro.h"
#include "trace.h"

/* How an argument is shown */
typedef enum CoproTlArgType {
    TL_NONE,
    TL_U64,
    TL_U64_OPT,     /* omitted when UINT64_MAX (not known) */
    TL_S64,
    TL_BOOL,
    TL_FAULT,       /* COPRO_FAULT_* as its name */
    TL_REASON,      /* COPRO_MARK_REASON_* as a name */
    TL_TDR_STEP,    /* COPRO_MARK_TDR_* as a name */
    TL_OUT_REASON,  /* COPRO_SLOG_OUT_* as a name */
} CoproTlArgType;

typedef struct CoproTlArgInfo {
    const char *name;
    CoproTlArgType type;
} CoproTlArgInfo;

typedef struct CoproTlKindInfo {
    const char *name;
    CoproTimelineSource source;
    CoproTlArgInfo arg[COPRO_TL_ARGS];
} CoproTlKindInfo;

#define SRC_ENGINE COPRO_TIMELINE_SOURCE_ENGINE
#define SRC_DISPLAY COPRO_TIMELINE_SOURCE_DISPLAY
#define SRC_DEVICE COPRO_TIMELINE_SOURCE_DEVICE
#define SRC_GUEST COPRO_TIMELINE_SOURCE_GUEST
#define MARK(k) [COPRO_TL_MARK + COPRO_MARK_##k]

/* Every kind and its arguments: docs/specs/copro.rst lists the same. */
static const CoproTlKindInfo copro_tl_kinds[COPRO_TL_KINDS] = {
    [COPRO_TL_DOORBELL] = { "doorbell", SRC_ENGINE,
        { { "head", TL_U64 }, { "tail", TL_U64 } } },
    [COPRO_TL_START] = { "start", SRC_ENGINE,
        { { "fence", TL_U64 }, { "paging", TL_BOOL }, { "resume", TL_BOOL },
          { "slot", TL_U64 } } },
    [COPRO_TL_RETIRE] = { "retire", SRC_ENGINE,
        { { "fence", TL_U64 }, { "paging", TL_BOOL },
          { "bytes", TL_U64_OPT } } },
    [COPRO_TL_PREEMPT_REQUEST] = { "preempt-request", SRC_ENGINE,
        { { "preempt-fence", TL_U64 }, { "fence", TL_U64 } } },
    [COPRO_TL_PREEMPT_SAVED] = { "preempt-saved", SRC_ENGINE,
        { { "preempt-fence", TL_U64 }, { "fence", TL_U64 },
          { "offset", TL_U64 }, { "dropped", TL_U64 },
          { "latency-ns", TL_U64 } } },
    [COPRO_TL_RESUME] = { "resume", SRC_ENGINE,
        { { "fence", TL_U64 }, { "offset", TL_U64 },
          { "progress", TL_U64 } } },
    [COPRO_TL_FAULT] = { "fault", SRC_ENGINE,
        { { "fault", TL_FAULT }, { "code", TL_U64 }, { "address", TL_U64 },
          { "offset", TL_U64 }, { "fence", TL_U64 } } },
    [COPRO_TL_RETRY] = { "retry", SRC_ENGINE,
        { { "fault", TL_FAULT }, { "fence", TL_U64 } } },
    [COPRO_TL_RESET] = { "reset", SRC_ENGINE,
        { { "aborted-fence", TL_U64 }, { "completed-fence", TL_U64 } } },
    [COPRO_TL_DEVICE_RESET] = { "device-reset", SRC_DEVICE },
    [COPRO_TL_FLIP] = { "flip", SRC_DISPLAY,
        { { "address", TL_U64 }, { "replaces", TL_BOOL } } },
    [COPRO_TL_VSYNC] = { "vsync", SRC_DISPLAY, { { "count", TL_U64 } } },
    [COPRO_TL_FLIP_DONE] = { "flip-done", SRC_DISPLAY,
        { { "address", TL_U64 }, { "vsync", TL_U64 } } },
    [COPRO_TL_SCENE_BEGIN] = { "scene-begin", SRC_ENGINE,
        { { "scene", TL_U64 }, { "fence", TL_U64 } } },
    [COPRO_TL_SCENE_END] = { "scene-end", SRC_ENGINE,
        { { "scene", TL_U64 }, { "prims", TL_U64 } } },
    [COPRO_TL_TILER_OOM] = { "tiler-oom", SRC_ENGINE,
        { { "scene", TL_U64 }, { "need", TL_U64 } } },
    [COPRO_TL_TILE_PASS_START] = { "tile-pass-start", SRC_ENGINE,
        { { "scene", TL_U64 }, { "partial", TL_BOOL } } },
    [COPRO_TL_TILE_PASS_END] = { "tile-pass-end", SRC_ENGINE,
        { { "scene", TL_U64 }, { "partial", TL_BOOL } } },
    [COPRO_TL_QUEUE_IN] = { "queue-switch-in", SRC_ENGINE,
        { { "queue", TL_U64 }, { "fence", TL_U64 }, { "resumed", TL_BOOL },
          { "band", TL_U64 } } },
    [COPRO_TL_QUEUE_OUT] = { "queue-switch-out", SRC_ENGINE,
        { { "queue", TL_U64 }, { "reason", TL_OUT_REASON },
          { "run-ns", TL_U64 }, { "band", TL_U64 } } },
    [COPRO_TL_QUEUE_FRAME] = { "queue-frame", SRC_ENGINE,
        { { "queue", TL_U64 }, { "band", TL_U64 }, { "budget-ns", TL_U64 },
          { "frame-ns", TL_U64 } } },
    MARK(QUEUE) = { "queue", SRC_GUEST,
        { { "buffer", TL_U64 }, { "bytes", TL_U64 } } },
    MARK(ELECT) = { "elect", SRC_GUEST,
        { { "buffer", TL_U64 }, { "priority", TL_U64 } } },
    MARK(PREPARE_START) = { "prepare-start", SRC_GUEST,
        { { "buffer", TL_U64 } } },
    MARK(PREPARE_END) = { "prepare-end", SRC_GUEST, { { "buffer", TL_U64 } } },
    MARK(UNSTAGE) = { "unstage", SRC_GUEST, { { "buffer", TL_U64 } } },
    MARK(RING) = { "ring", SRC_GUEST,
        { { "buffer", TL_U64 }, { "fence", TL_U64 } } },
    MARK(DONE) = { "done", SRC_GUEST,
        { { "buffer", TL_U64 }, { "status", TL_S64 } } },
    MARK(PREEMPT) = { "preempt-decision", SRC_GUEST,
        { { "reason", TL_REASON }, { "preempt-fence", TL_U64 } } },
    MARK(PAGING) = { "paging-built", SRC_GUEST,
        { { "buffer", TL_U64 }, { "bytes", TL_U64 } } },
    MARK(PRESENT) = { "present", SRC_GUEST,
        { { "frame", TL_U64 }, { "surface", TL_U64 } } },
    MARK(DEADLINE_MISS) = { "deadline-miss", SRC_GUEST,
        { { "frame", TL_U64 }, { "late-ns", TL_U64 } } },
    MARK(TDR) = { "tdr", SRC_GUEST,
        { { "step", TL_TDR_STEP }, { "fence", TL_U64 } } },
    MARK(BOOST) = { "boost", SRC_GUEST, { { "priority", TL_U64 } } },
    MARK(UNBOOST) = { "unboost", SRC_GUEST },
    MARK(HOLD) = { "hold", SRC_GUEST },
    MARK(RELEASE) = { "release", SRC_GUEST },
};

static const char *copro_tl_reason_name(uint64_t v)
{
    static const char *const names[] = {
        [COPRO_MARK_REASON_PRIORITY] = "priority",
        [COPRO_MARK_REASON_QUANTUM] = "quantum",
        [COPRO_MARK_REASON_TDR] = "tdr",
        [COPRO_MARK_REASON_OTHER] = "other",
    };

    return v < ARRAY_SIZE(names) && names[v] ? names[v] : NULL;
}

static const char *copro_tl_out_name(uint64_t v)
{
    static const char *const names[] = {
        [COPRO_SLOG_OUT_QUANTUM] = "quantum",
        [COPRO_SLOG_OUT_PREEMPTED] = "preempted",
        [COPRO_SLOG_OUT_BLOCKED] = "blocked",
        [COPRO_SLOG_OUT_EMPTY] = "empty",
        [COPRO_SLOG_OUT_BUDGET] = "budget",
        [COPRO_SLOG_OUT_RUNLIST] = "runlist",
        [COPRO_SLOG_OUT_RESET] = "reset",
        [COPRO_SLOG_OUT_ERROR] = "error",
        [COPRO_SLOG_OUT_SHARE] = "share",
        [COPRO_SLOG_OUT_TILER_OOM] = "tiler-oom",
    };

    return v < ARRAY_SIZE(names) && names[v] ? names[v] : NULL;
}

static const char *copro_tl_tdr_name(uint64_t v)
{
    static const char *const names[] = {
        [COPRO_MARK_TDR_TIMEOUT] = "timeout",
        [COPRO_MARK_TDR_RESET] = "reset",
        [COPRO_MARK_TDR_LOST] = "lost",
        [COPRO_MARK_TDR_DEVICE_RESET] = "device-reset",
    };

    return v < ARRAY_SIZE(names) && names[v] ? names[v] : NULL;
}

/*
 * Recording
 */

/*
 * The slot of the next event; drops the oldest when the log is full. No
 * division on this path: it runs for every event.
 */
static CoproTlEvent *copro_tl_slot(CoproTlLog *tl)
{
    CoproTlEvent *ev = &tl->ev[tl->head];

    if (++tl->head == tl->capacity) {
        tl->head = 0;
    }
    if (tl->count == tl->capacity) {
        tl->first = tl->head;       /* the oldest was just overwritten */
        tl->dropped++;
    } else {
        tl->count++;
    }
    tl->next_seq++;
    return ev;
}

/*
 * Stop the VM as QMP's stop would, at this point of its virtual time.
 * Every vCPU is told to stop before its next instruction, as
 * pause_all_vcpus() would; the stop itself (run state, STOP event) is a
 * bottom half, because vm_stop() cannot run in a vCPU thread. The main
 * loop runs bottom halves before it considers warping an idle -icount
 * clock to its next deadline, so the clock stays where the stop was
 * asked and no device timer runs in between.
 */
static void copro_tl_stop_vm(CoproState *s, const char *why)
{
    CPUState *cpu;

    trace_copro_stop_at(why, copro_now_ns());
    CPU_FOREACH(cpu) {
        cpu->stop = true;
        qemu_cpu_kick(cpu);
    }
    qemu_bh_schedule(s->tl.stop_bh);
}

static void copro_tl_stop_bh(void *opaque)
{
    vm_stop(RUN_STATE_PAUSED);
}

static CoproTlEvent *copro_tl_new(CoproState *s, CoproTlKind kind,
                                  unsigned engine)
{
    CoproTlEvent *ev = copro_tl_slot(&s->tl);

    if (unlikely((int)kind == s->tl.stop_kind) && --s->tl.stop_left == 0) {
        s->tl.stop_kind = -1;
        copro_tl_stop_vm(s, copro_tl_kinds[kind].name);
    }

    *ev = (CoproTlEvent) {
        .time = copro_now_ns(),
        .kind = kind,
        .engine = engine,
    };
    return ev;
}

static void copro_tl_set_context(CoproTlEvent *ev, uint32_t context)
{
    ev->has_context = true;
    ev->context = context;
}

void copro_tl_engine_event(CoproEngine *e, CoproTlKind kind)
{
    CoproState *s = e->dev;
    CoproTlEvent *ev = copro_tl_new(s, kind, e->index);
    uint64_t *a = ev->arg;
    bool paging = e->desc.flags & COPRO_SUBMIT_PAGING;

    /* about the submission loaded, if any (a doorbell too, as it runs) */
    if (e->active) {
        copro_tl_set_context(ev, e->desc.context);
    }
    switch (kind) {
    case COPRO_TL_DOORBELL:
        a[0] = e->ring_head;
        a[1] = e->ring_tail;
        break;
    case COPRO_TL_START:
        /* called once the entry is consumed: it was the one before head */
        a[0] = e->desc.fence;
        a[1] = paging;
        a[2] = !!(e->desc.flags & COPRO_SUBMIT_RESUME);
        /* a hardware queue's entry stays at its head until it retires */
        a[3] = copro_hws_owns(e) ?
               s->hws.q[s->hws.eng[e->index].current].head :
               (e->ring_head - 1) & (e->ring_size - 1);
        s->tl.start_bytes[e->index] = e->stat_bytes;
        break;
    case COPRO_TL_RETIRE:
        a[0] = e->desc.fence;
        a[1] = paging;
        a[2] = s->tl.start_bytes[e->index] == UINT64_MAX ? UINT64_MAX :
               e->stat_bytes - s->tl.start_bytes[e->index];
        s->tl.start_bytes[e->index] = UINT64_MAX;
        break;
    case COPRO_TL_PREEMPT_REQUEST:
        a[0] = e->preempt_req;
        a[1] = e->active ? e->desc.fence : 0;
        break;
    case COPRO_TL_PREEMPT_SAVED:
        /* before the engine drops what its ring still held */
        a[0] = e->preempt_req;
        a[1] = e->active ? e->desc.fence : 0;
        a[2] = e->active ? e->pc : 0;
        a[3] = e->ring_size ? (e->ring_tail - e->ring_head) &
                              (e->ring_size - 1) : 0;
        a[4] = MAX(copro_now_ns() - e->preempt_req_time, 0);
        s->tl.start_bytes[e->index] = UINT64_MAX;
        break;
    case COPRO_TL_RESUME:
        a[0] = e->desc.fence;
        a[1] = e->pc;
        a[2] = e->in_packet ? e->cur.progress : 0;
        break;
    case COPRO_TL_FAULT:
        a[0] = e->fault_kind;
        a[1] = e->fault_kind;
        a[2] = e->fault_addr;
        a[3] = e->fault_offset;
        a[4] = e->fault_fence;
        break;
    case COPRO_TL_RETRY:
        a[0] = e->fault_kind;
        a[1] = e->active ? e->desc.fence : 0;
        break;
    case COPRO_TL_RESET:
        a[0] = e->aborted_fence;
        a[1] = e->completed_fence;
        s->tl.start_bytes[e->index] = UINT64_MAX;
        break;
    default:
        g_assert_not_reached();
    }
}

/* the tiler's stage events (copro-tiler.c): two arguments, as named */
void copro_tl_tiler_event(CoproEngine *e, CoproTlKind kind, uint64_t a0,
                          uint64_t a1)
{
    CoproTlEvent *ev = copro_tl_new(e->dev, kind, e->index);

    if (e->active) {
        copro_tl_set_context(ev, e->desc.context);
    }
    ev->arg[0] = a0;
    ev->arg[1] = a1;
}

void copro_tl_device_event(CoproState *s, CoproTlKind kind, uint64_t a0,
                           uint64_t a1)
{
    CoproTlEvent *ev = copro_tl_new(s, kind, COPRO_TL_NO_ENGINE);

    ev->arg[0] = a0;
    ev->arg[1] = a1;
}

/* A hardware queue's event, on its engine's track, about its context. */
void copro_tl_queue_event(CoproState *s, CoproTlKind kind, unsigned engine,
                          uint32_t context, uint64_t a0, uint64_t a1,
                          uint64_t a2, uint64_t a3)
{
    CoproTlEvent *ev = copro_tl_new(s, kind, engine);

    copro_tl_set_context(ev, context);
    ev->arg[0] = a0;
    ev->arg[1] = a1;
    ev->arg[2] = a2;
    ev->arg[3] = a3;
}

/*
 * Guest markers
 */

static void copro_tl_mark(CoproState *s, uint64_t v)
{
    CoproTlLog *tl = &s->tl;
    uint32_t kind = COPRO_MARK_KIND(v), engine = COPRO_MARK_ENGINE(v);
    CoproTlEvent *ev;

    if (!kind || kind > COPRO_MARK_LAST || (v & COPRO_MARK_RESERVED) ||
        (engine != COPRO_MARK_NO_ENGINE && engine >= s->num_engines)) {
        qemu_log_mask(LOG_GUEST_ERROR, "copro: bad MARK value 0x%" PRIx64
                      " (kind %u, engine %u), not recorded\n", v, kind,
                      engine);
        return;
    }
    trace_copro_mark(kind, engine, COPRO_MARK_CONTEXT(v), tl->mark_arg[0],
                     tl->mark_arg[1]);
    if (!tl->on) {
        return;
    }
    ev = copro_tl_new(s, COPRO_TL_MARK + kind,
                      engine == COPRO_MARK_NO_ENGINE ? COPRO_TL_NO_ENGINE
                                                     : engine);
    copro_tl_set_context(ev, COPRO_MARK_CONTEXT(v));
    ev->arg[0] = tl->mark_arg[0];
    ev->arg[1] = tl->mark_arg[1];
}

uint64_t copro_tl_mark_read(CoproState *s, hwaddr reg)
{
    switch (reg) {
    case COPRO_REG_MARK_ARG0:
        return s->tl.mark_arg[0];
    case COPRO_REG_MARK_ARG1:
        return s->tl.mark_arg[1];
    default:
        return 0;
    }
}

/*
 * MARK records on its upper half (or a whole 8-byte write), as
 * PREEMPT_REQ does: a 4-byte driver writes the lower half first.
 */
void copro_tl_mark_write(CoproState *s, hwaddr reg, uint64_t val,
                         uint64_t mask)
{
    CoproTlLog *tl = &s->tl;

    switch (reg) {
    case COPRO_REG_MARK_ARG0:
    case COPRO_REG_MARK_ARG1:
        tl->mark_arg[reg == COPRO_REG_MARK_ARG1] =
            (tl->mark_arg[reg == COPRO_REG_MARK_ARG1] & ~mask) | (val & mask);
        break;
    case COPRO_REG_MARK:
        tl->mark = (tl->mark & ~mask) | (val & mask);
        if (mask >> 32) {
            copro_tl_mark(s, tl->mark);
        }
        break;
    default:
        g_assert_not_reached();
    }
}

/*
 * Enabling, reading
 */

/*
 * Start recording into a log of @capacity events (a new, empty one if
 * its capacity differs from the current log's).
 */
static bool copro_tl_enable(CoproState *s, uint32_t capacity, Error **errp)
{
    CoproTlLog *tl = &s->tl;

    if (!capacity || capacity > COPRO_TL_MAX) {
        error_setg(errp, "copro: timeline capacity %" PRIu32 " is out of "
                   "range (1 to %u events)", capacity, COPRO_TL_MAX);
        return false;
    }
    if (!tl->ev || tl->capacity != capacity) {
        CoproTlEvent *ev = g_try_new(CoproTlEvent, capacity);

        if (!ev) {
            error_setg(errp, "copro: no memory for %" PRIu32 " timeline "
                       "events", capacity);
            return false;
        }
        g_free(tl->ev);
        tl->ev = ev;
        tl->capacity = capacity;
        tl->first = 0;
        tl->head = 0;
        tl->count = 0;
        tl->dropped = 0;
    }
    if (!tl->on) {
        /* submissions already running were not seen starting */
        for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
            tl->start_bytes[i] = UINT64_MAX;
        }
    }
    tl->on = true;
    trace_copro_timeline_set(true, capacity);
    return true;
}

static QObject *copro_tl_args(const CoproTlEvent *ev)
{
    const CoproTlKindInfo *k = &copro_tl_kinds[ev->kind];
    QDict *args = qdict_new();

    for (unsigned i = 0; i < COPRO_TL_ARGS && k->arg[i].name; i++) {
        const char *name = k->arg[i].name, *text = NULL;
        bool named = false;
        uint64_t v = ev->arg[i];

        switch (k->arg[i].type) {
        case TL_U64_OPT:
            if (v == UINT64_MAX) {
                break;
            }
            /* fall through */
        case TL_U64:
            qdict_put_obj(args, name, QOBJECT(qnum_from_uint(v)));
            break;
        case TL_S64:
            qdict_put_int(args, name, (int64_t)v);
            break;
        case TL_BOOL:
            qdict_put_bool(args, name, v != 0);
            break;
        case TL_FAULT:
            text = copro_fault_name(v);
            named = true;
            break;
        case TL_REASON:
            text = copro_tl_reason_name(v);
            named = true;
            break;
        case TL_TDR_STEP:
            text = copro_tl_tdr_name(v);
            named = true;
            break;
        case TL_OUT_REASON:
            text = copro_tl_out_name(v);
            named = true;
            break;
        case TL_NONE:
            g_assert_not_reached();
        }
        if (named) {
            /* a value the guest made up has no name: show the number */
            if (text) {
                qdict_put_str(args, name, text);
            } else {
                qdict_put_obj(args, name, QOBJECT(qnum_from_uint(v)));
            }
        }
    }
    return QOBJECT(args);
}

static CoproTimelineEvent *copro_tl_event_info(const CoproTlEvent *ev,
                                               uint64_t seq)
{
    const CoproTlKindInfo *k = &copro_tl_kinds[ev->kind];
    CoproTimelineEvent *info = g_new0(CoproTimelineEvent, 1);

    info->seq = seq;
    info->time_ns = ev->time;
    info->kind = g_strdup(k->name);
    info->source = k->source;
    if (ev->engine != COPRO_TL_NO_ENGINE) {
        info->has_engine = true;
        info->engine = ev->engine;
    }
    if (ev->has_context) {
        info->has_context = true;
        info->context = ev->context;
    }
    info->args = copro_tl_args(ev);
    return info;
}

/* What a reader asked for */
typedef struct CoproTlQuery {
    uint64_t since;
    uint64_t max;
    bool filter;                    /* only the kinds in kinds */
    DECLARE_BITMAP(kinds, COPRO_TL_KINDS);
} CoproTlQuery;

static const CoproTlQuery copro_tl_all = { .max = UINT64_MAX };

/* The first event the query selects at or after *seq, NULL if none. */
static const CoproTlEvent *copro_tl_next(CoproTlLog *tl,
                                         const CoproTlQuery *q,
                                         uint64_t *seq)
{
    uint64_t oldest = tl->next_seq - tl->count;

    for (*seq = MAX(*seq, oldest); *seq < tl->next_seq; (*seq)++) {
        const CoproTlEvent *ev =
            &tl->ev[(tl->first + (*seq - oldest)) % tl->capacity];

        if (!q->filter || test_bit(ev->kind, q->kinds)) {
            return ev;
        }
    }
    return NULL;
}

/* Iterate over the selected events: ev, seq and n (counted) */
#define COPRO_TL_FOREACH(tl, q, ev, seq, n) \
    for ((seq) = (q)->since, (n) = 0; \
         (n) < (q)->max && ((ev) = copro_tl_next((tl), (q), &(seq))); \
         (seq)++, (n)++)

/* The kind named @name, or -1 with @errp set. */
static int copro_tl_kind(const char *name, Error **errp)
{
    for (unsigned i = 0; i < COPRO_TL_KINDS; i++) {
        if (copro_tl_kinds[i].name && !strcmp(copro_tl_kinds[i].name, name)) {
            return i;
        }
    }
    error_setg(errp, "copro: unknown timeline event kind '%s'", name);
    return -1;
}

static bool copro_tl_parse_kinds(CoproTlQuery *q, strList *kinds,
                                 Error **errp)
{
    for (strList *k = kinds; k; k = k->next) {
        int i = copro_tl_kind(k->value, errp);

        if (i < 0) {
            return false;
        }
        set_bit(i, q->kinds);
    }
    return true;
}

static CoproTimeline *copro_tl_header(CoproState *s)
{
    CoproTimeline *t = g_new0(CoproTimeline, 1);

    t->path = object_get_canonical_path(OBJECT(s));
    t->enabled = s->tl.on;
    t->capacity = s->tl.capacity;
    t->engines = s->num_engines;
    t->refresh = s->refresh;
    t->gpu_time_ns = copro_now_ns();
    t->next_seq = s->tl.next_seq;
    t->dropped = s->tl.dropped;
    return t;
}

static GString *copro_tl_json(CoproTimeline *t, CoproTimelineEvent *ev)
{
    QObject *obj = NULL;
    Visitor *v = qobject_output_visitor_new(&obj);
    GString *json;

    if (t) {
        visit_type_CoproTimeline(v, NULL, &t, &error_abort);
    } else {
        visit_type_CoproTimelineEvent(v, NULL, &ev, &error_abort);
    }
    visit_complete(v, &obj);
    visit_free(v);
    if (t) {
        /* the events follow, written one by one */
        qdict_del(qobject_to(QDict, obj), "events");
    }
    json = qobject_to_json(obj);
    qobject_unref(obj);
    return json;
}

/*
 * Write the header and the events @q selects to @path as the object
 * x-copro-timeline returns. Events are converted one at a time: a log of
 * millions of events never exists as one QObject tree.
 */
static bool copro_tl_write(CoproState *s, const char *path,
                           const CoproTlQuery *q, Error **errp)
{
    g_autoptr(CoproTimeline) head = copro_tl_header(s);
    g_autoptr(GString) out = copro_tl_json(head, NULL);
    FILE *f = fopen(path, "w");
    const CoproTlEvent *e;
    uint64_t seq, n;
    bool ok;

    if (!f) {
        error_setg_errno(errp, errno, "copro: cannot write timeline to '%s'",
                         path);
        return false;
    }
    /* {"path": ..., "dropped": N} -> {"path": ..., "dropped": N, "events": [ */
    g_string_truncate(out, out->len - 1);
    g_string_append(out, ", \"events\": [");
    COPRO_TL_FOREACH(&s->tl, q, e, seq, n) {
        g_autoptr(CoproTimelineEvent) info = copro_tl_event_info(e, seq);
        g_autoptr(GString) ev = copro_tl_json(NULL, info);

        g_string_append(out, n ? ",\n" : "\n");
        g_string_append_len(out, ev->str, ev->len);
        if (out->len > 1 * MiB) {
            fwrite(out->str, 1, out->len, f);
            g_string_truncate(out, 0);
        }
    }
    g_string_append(out, "]}\n");
    fwrite(out->str, 1, out->len, f);
    ok = !ferror(f);
    if (fclose(f) || !ok) {
        error_setg(errp, "copro: error writing timeline to '%s'", path);
        return false;
    }
    return true;
}

static void copro_tl_clear(CoproTlLog *tl)
{
    tl->first = 0;
    tl->head = 0;
    tl->count = 0;
    tl->dropped = 0;
}

static CoproState *copro_tl_find(const char *device, Error **errp)
{
    bool ambiguous = false;
    Object *obj = object_resolve_path_type(device ? device : "", TYPE_COPRO,
                                           &ambiguous);

    if (!obj || !DEVICE(obj)->realized) {
        if (device) {
            error_setg(errp, "copro: no copro device '%s'", device);
        } else if (ambiguous) {
            error_setg(errp, "copro: several copro devices: name one");
        } else {
            error_setg(errp, "copro: no copro device");
        }
        return NULL;
    }
    return COPRO(obj);
}

CoproTimeline *qmp_x_copro_timeline(const char *device, bool has_since,
                                    uint64_t since, bool has_max,
                                    uint32_t max, bool has_kinds,
                                    strList *kinds, bool has_clear,
                                    bool clear,
                                    const char *file, Error **errp)
{
    CoproState *s = copro_tl_find(device, errp);
    CoproTlQuery q = {
        .since = has_since ? since : 0,
        .max = has_max ? max : UINT64_MAX,
        .filter = has_kinds,        /* an empty list selects nothing */
    };
    const CoproTlEvent *ev;
    CoproTimeline *t;
    CoproTimelineEventList **tail;
    uint64_t seq, n;

    if (!s || !copro_tl_parse_kinds(&q, kinds, errp)) {
        return NULL;
    }
    if (file && !copro_tl_write(s, file, &q, errp)) {
        return NULL;
    }
    t = copro_tl_header(s);
    tail = &t->events;
    if (!file) {
        COPRO_TL_FOREACH(&s->tl, &q, ev, seq, n) {
            QAPI_LIST_APPEND(tail, copro_tl_event_info(ev, seq));
        }
    }
    if (has_clear && clear) {
        copro_tl_clear(&s->tl);
    }
    return t;
}

void qmp_x_copro_timeline_set(const char *device, bool enable,
                              bool has_capacity, uint32_t capacity,
                              Error **errp)
{
    CoproState *s = copro_tl_find(device, errp);

    if (!s) {
        return;
    }
    if (!enable) {
        s->tl.on = false;
        trace_copro_timeline_set(false, s->tl.capacity);
        return;
    }
    if (!has_capacity) {
        capacity = s->tl.ev ? s->tl.capacity
                            : s->timeline ? s->timeline : COPRO_TL_DEFAULT;
    }
    copro_tl_enable(s, capacity, errp);
}

static void copro_tl_stop_timer(void *opaque)
{
    copro_tl_stop_vm(opaque, "time");
}

void qmp_x_copro_stop_at(const char *device, const char *kind,
                         bool has_count, uint64_t count, bool has_time_ns,
                         uint64_t time_ns, Error **errp)
{
    CoproState *s = copro_tl_find(device, errp);
    int k = -1;

    if (!s) {
        return;
    }
    if (!kind == !has_time_ns) {
        error_setg(errp, "copro: x-copro-stop-at takes either 'kind' or "
                   "'time-ns'");
        return;
    }
    if (has_time_ns) {
        if (time_ns > INT64_MAX || (int64_t)time_ns <= copro_now_ns()) {
            error_setg(errp, "copro: time-ns %" PRIu64 " is not after the "
                       "device clock (%" PRId64 " ns)", time_ns,
                       copro_now_ns());
            return;
        }
    } else {
        k = copro_tl_kind(kind, errp);
        if (k < 0) {
            return;
        }
        if (!s->tl.on) {
            error_setg(errp, "copro: the timeline is off: events are seen "
                       "only while it records (x-copro-timeline-set)");
            return;
        }
        if (has_count && count == 0) {
            error_setg(errp, "copro: count must be at least 1");
            return;
        }
    }
    /* one stop armed at a time: this one replaces the last */
    timer_del(s->tl.stop_timer);
    s->tl.stop_kind = k;
    s->tl.stop_left = has_count ? count : 1;
    if (has_time_ns) {
        timer_mod(s->tl.stop_timer, time_ns);
    }
}

/*
 * Lifecycle
 */

static void copro_tl_write_all(CoproState *s)
{
    Error *err = NULL;

    if (!copro_tl_write(s, s->timeline_file, &copro_tl_all, &err)) {
        error_report_err(err);
    }
}

/* QEMU is exiting (a guest shutdown too): save the log if asked to. */
static void copro_tl_exit(Notifier *n, void *data)
{
    CoproState *s = container_of(n, CoproState, tl.exit_notifier);

    copro_tl_write_all(s);
}

bool copro_tl_realize(CoproState *s, Error **errp)
{
    s->tl.stop_kind = -1;
    if (s->timeline && !copro_tl_enable(s, s->timeline, errp)) {
        return false;
    }
    s->tl.stop_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, copro_tl_stop_timer,
                                    s);
    s->tl.stop_bh = qemu_bh_new_guarded(copro_tl_stop_bh, s,
                                        &DEVICE(s)->mem_reentrancy_guard);
    if (s->timeline_file) {
        s->tl.exit_notifier.notify = copro_tl_exit;
        qemu_add_exit_notifier(&s->tl.exit_notifier);
    }
    return true;
}

void copro_tl_unrealize(CoproState *s)
{
    if (s->tl.exit_notifier.notify) {
        /* unplugged: QEMU goes on without the device, save it now */
        copro_tl_write_all(s);
        qemu_remove_exit_notifier(&s->tl.exit_notifier);
        s->tl.exit_notifier.notify = NULL;
    }
    s->tl.on = false;
    s->tl.stop_kind = -1;
    g_clear_pointer(&s->tl.stop_timer, timer_free);
    g_clear_pointer(&s->tl.stop_bh, qemu_bh_delete);
    g_clear_pointer(&s->tl.ev, g_free);
    s->tl.capacity = 0;
    s->tl.first = 0;
    s->tl.head = 0;
    s->tl.count = 0;
}

/* A device reset is an event; the log itself, host-side, survives it. */
void copro_tl_reset(CoproState *s)
{
    s->tl.mark_arg[0] = 0;
    s->tl.mark_arg[1] = 0;
    s->tl.mark = 0;
    for (unsigned i = 0; i < COPRO_MAX_ENGINES; i++) {
        s->tl.start_bytes[i] = UINT64_MAX;
    }
    copro_tl_device(s, COPRO_TL_DEVICE_RESET, 0, 0);
}
