/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: tracepoints (trace-cmd record -e copro, perf -e
 * copro:*), beside drm_sched's own (gpu_scheduler:*).
 *
 * DOC: tracepoints
 *
 * A job's life: copro_submit (the ioctl accepted it: context, engine, its
 * drm_sched fence), copro_run (run_job wrote it to the ring, or held it
 * behind a preemption), copro_irq (an engine's interrupt causes), copro_
 * preempt (the engine stopped a job mid-buffer; @fence is the ring entry
 * that will resume), copro_retire (a job's fence signalled: @error 0, or
 * why it was dropped), copro_reset (an engine reset: the guilty entry),
 * copro_bind (a GTT buffer mapped into the GART aperture or unmapped).
 * Fences are ring-entry ids (hwid) and drm_sched's finished fence
 * context:seqno, so a trace ties both together.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM copro

#if !defined(COPRO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define COPRO_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(copro_submit,
	    TP_PROTO(u32 ctx, u32 engine, u64 fence_ctx, u64 seqno, u32 bytes),
	    TP_ARGS(ctx, engine, fence_ctx, seqno, bytes),
	    TP_STRUCT__entry(__field(u32, ctx)
			     __field(u32, engine)
			     __field(u64, fence_ctx)
			     __field(u64, seqno)
			     __field(u32, bytes)),
	    TP_fast_assign(__entry->ctx = ctx;
			   __entry->engine = engine;
			   __entry->fence_ctx = fence_ctx;
			   __entry->seqno = seqno;
			   __entry->bytes = bytes;),
	    TP_printk("ctx=%u engine=%u fence=%llu:%llu bytes=%u",
		      __entry->ctx, __entry->engine, __entry->fence_ctx,
		      __entry->seqno, __entry->bytes)
);

TRACE_EVENT(copro_run,
	    TP_PROTO(u32 engine, u32 ctx, u64 seq, u64 hwid, bool held),
	    TP_ARGS(engine, ctx, seq, hwid, held),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx)
			     __field(u64, seq)
			     __field(u64, hwid)
			     __field(bool, held)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx = ctx;
			   __entry->seq = seq;
			   __entry->hwid = hwid;
			   __entry->held = held;),
	    TP_printk("engine=%u ctx=%u seq=%llu hwid=%llu%s",
		      __entry->engine, __entry->ctx, __entry->seq,
		      __entry->hwid, __entry->held ? " held" : "")
);

TRACE_EVENT(copro_irq,
	    TP_PROTO(u32 engine, u32 causes),
	    TP_ARGS(engine, causes),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, causes)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->causes = causes;),
	    TP_printk("engine=%u causes=%#x", __entry->engine, __entry->causes)
);

TRACE_EVENT(copro_preempt,
	    TP_PROTO(u32 engine, u64 fence, u64 requests),
	    TP_ARGS(engine, fence, requests),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u64, fence)
			     __field(u64, requests)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->fence = fence;
			   __entry->requests = requests;),
	    TP_printk("engine=%u resume_hwid=%llu request=%llu",
		      __entry->engine, __entry->fence, __entry->requests)
);

TRACE_EVENT(copro_retire,
	    TP_PROTO(u32 engine, u32 ctx, u64 hwid, int error),
	    TP_ARGS(engine, ctx, hwid, error),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx)
			     __field(u64, hwid)
			     __field(int, error)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx = ctx;
			   __entry->hwid = hwid;
			   __entry->error = error;),
	    TP_printk("engine=%u ctx=%u hwid=%llu error=%d", __entry->engine,
		      __entry->ctx, __entry->hwid, __entry->error)
);

TRACE_EVENT(copro_reset,
	    TP_PROTO(u32 engine, u64 guilty, int error),
	    TP_ARGS(engine, guilty, error),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u64, guilty)
			     __field(int, error)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->guilty = guilty;
			   __entry->error = error;),
	    TP_printk("engine=%u guilty_hwid=%llu error=%d", __entry->engine,
		      __entry->guilty, __entry->error)
);

TRACE_EVENT(copro_bind,
	    TP_PROTO(u64 gpu, u64 size, bool map),
	    TP_ARGS(gpu, size, map),
	    TP_STRUCT__entry(__field(u64, gpu)
			     __field(u64, size)
			     __field(bool, map)),
	    TP_fast_assign(__entry->gpu = gpu;
			   __entry->size = size;
			   __entry->map = map;),
	    TP_printk("%s gpu=%#llx size=%llu", __entry->map ? "map" : "unmap",
		      __entry->gpu, __entry->size)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE copro_trace
#include <trace/define_trace.h>
