/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The application API of the copro OS, in the shape of D3DKMT (the thunks
 * user mode calls into dxgkrnl): devices, contexts, allocations, sync
 * objects (monitored fences), render, signal and wait on the CPU and the
 * GPU, lock and unlock, plus the timers and callbacks an event-driven
 * application needs.
 *
 * Every call names the calling process and its objects by handle; the
 * kernel checks each handle against that process's table (wrong process,
 * stale, wrong type: DDI_EHANDLE), every size and every pointer argument,
 * and returns 0 or a negative DDI_E* code. No argument makes it crash.
 * A context lost to TDR (or a fault, or a scene whose parameter buffer
 * cannot be answered) puts its device in the "removed" state: calls on
 * it then return DDI_ELOST (D3D's DEVICE_REMOVED), destroying still works.
 * Every context of a removed device is stopped with it [WDDM]: their
 * queued and held buffers are reported lost and never run, and their
 * pending GPU signals are not written as if the work had run: the
 * device's sync objects are signalled with an error instead (UINT64_MAX,
 * D3D12's value for a removed device's fence), so that nobody waits for
 * ever: the process's CPU waits on them end with DDI_ELOST, another
 * process's with DDI_EABANDONED, and other processes' GPU waits on them
 * are released (kapi_share_sync). A signal the lost device queued on
 * another process's sync object (opened with write access) is written
 * with its own value when the device is lost: that object's owner is
 * healthy, and UINT64_MAX would end its fence for good; its waiters are
 * released (DDI_OK) and see what the lost process left, as its write
 * access allowed.
 * A call that takes from one of the kernel's pools (a record, a wait, a
 * DMA buffer, kernel VRAM, backing store, pinned VRAM, a present) is
 * charged to the calling process: DDI_EQUOTA when that would take it over
 * its limit, DDI_ENOMEM when the pool is out or what is left is other
 * processes' guarantee (kernel/kquota.h); never because of another
 * process's use beyond its own share. Limits on work in flight throttle
 * instead (kapi_wait_throttle below): a call that queues work on a
 * context answers DDI_EBUSY, and waits, while the process's own work in
 * flight holds what it needs.
 *
 * Applications are state machines: a call never blocks. What would block
 * in D3DKMT (waiting for a fence, locking an allocation the GPU uses)
 * takes a callback instead, which the kernel runs later from its event
 * loop at passive level (never from inside the call, never from an
 * interrupt).
 */
#ifndef FW_KERNEL_KAPI_H
#define FW_KERNEL_KAPI_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "kernel/ktimer.h"
#include "vidsch/vidsch.h"

struct kernel;
struct kproc;

/* ---- processes (the scenario creates them; apps run in one) ---- */

/* A new process named name (kept, not copied); NULL when the table is
 * full. It holds no privilege: only the session manager gives them
 * (kernel_process_grant, kernel/kisolate.h). */
struct kproc *kapi_process_create(struct kernel *k, const char *name);
const char *kapi_process_name(const struct kproc *p);
/* Its id, by which another process names it (a grant): never reused
 * (32 bits, one per life; after 2^32 - 1 lives kapi_process_create
 * fails rather than reuse one). 0 for NULL. */
uint32_t kapi_process_id(const struct kproc *p);

/* Privileges [Windows' SeIncreaseBasePriorityPrivilege, DWM's right to
 * own the VidPN sources]; a call that needs one fails with DDI_EACCESS
 * without it. */
#define KAPI_PRIV_REALTIME      (1u << 0)   /* REALTIME contexts */
#define KAPI_PRIV_DISPLAY       (1u << 1)   /* owning a display source */

/*
 * The process ends or is killed [DxgkDestroyProcess]: every device of it
 * is destroyed (its contexts' queued buffers cancelled, a running one
 * preempted, its allocations freed once the GPU is done with them,
 * shared objects dropped by reference), its pending waits dropped and
 * no callback of it runs any more; other processes' waiters on the sync
 * objects it created fail with DDI_EABANDONED (GPU waits are released: the
 * value goes to UINT64_MAX). p must not be used after this call; its
 * record is reused once nothing is charged to it (kernel/kexit.c).
 * The timers it armed (kapi_timer_arm) are disarmed: none fires after
 * the exit (its callback would call with p, which names the next process
 * once the record is reused).
 * DDI_EINVAL for a process that exited already.
 */
int kapi_process_exit(struct kproc *p);

/* Told once per device when TDR removed it (a context of it was guilty). */
typedef void (*kapi_lost_fn)(void *arg, uint32_t hdevice);
void kapi_set_lost_callback(struct kproc *p, kapi_lost_fn fn, void *arg);

/* ---- time: the GPU clock, virtual ns; one-shot timers ---- */

uint64_t kapi_now(const struct kproc *p);
/* Sets t up unarmed; on a timer that is armed it changes only the
 * function and argument (a NULL fn is ignored): t stays armed. */
void kapi_timer_init(struct ktimer *t, ktimer_fn fn, void *arg);
/* Arms (or re-arms) t for time when; t is the caller's memory and must
 * stay valid while armed. A timer without a function is not armed. */
int kapi_timer_arm(struct kproc *p, struct ktimer *t, uint64_t when);
/* How many timers one process may have armed at once: each armed timer
 * is on the kernel's one list, and every arm walks it (DDI_EQUOTA past
 * this; re-arming an armed timer is always allowed). */
#define KAPI_MAX_TIMERS 32
void kapi_timer_cancel(struct kproc *p, struct ktimer *t);

/* ---- device [D3DKMTCreateDevice] ---- */

int kapi_create_device(struct kproc *p, uint32_t *hdevice);
/* Destroys the device and every context, allocation and sync object the
 * process created on it. */
int kapi_destroy_device(struct kproc *p, uint32_t hdevice);

/* ---- context [D3DKMTCreateContext]: one engine, one priority class ---- */

/* DDI_EACCESS: prio REALTIME without KAPI_PRIV_REALTIME. */
int kapi_create_context(struct kproc *p, uint32_t hdevice, unsigned engine,
                        enum vidsch_priority prio, uint32_t *hcontext);
/* Its queued buffers are dropped (reported lost to the scheduler). */
int kapi_destroy_context(struct kproc *p, uint32_t hcontext);
int kapi_context_stats(struct kproc *p, uint32_t hcontext,
                       struct vidsch_ctx_stats *out);
/* DDI_OK, or why the context is in error: DDI_ELOST (its device was
 * removed by TDR) or the code a buffer of it was refused with at
 * schedule time (DDI_ENOMEM: its allocations cannot be resident even in
 * portions). A context in error renders nothing more. */
int kapi_context_error(struct kproc *p, uint32_t hcontext);

/* ---- allocations [D3DKMTCreateAllocation] ---- */

struct kapi_alloc_desc {
    uint64_t size;          /* bytes, > 0 */
    bool cpu_visible;       /* may be locked */
    bool zeroed;            /* cleared before the handle is returned */
    bool primary;           /* may be presented (D3DDDI_ALLOCATIONINFO's
                               Primary): display source 0 must be on and
                               size at least its pitch x height */
    bool local_only;        /* VRAM only, never used through the aperture
                               (a preferred-segment set of the local
                               segment alone, as render targets often
                               have): with vidmm, a buffer whose list of
                               such allocations exceeds VRAM runs split */
};

/* With vidmm (kboot, the device has an aperture) the allocation may live
 * in VRAM, the aperture or system memory and move at schedule time; all
 * of them together may exceed VRAM (DDI_EINVAL: larger than all of
 * vidmm's VRAM; a primary: DDI_EBUSY while the VRAM it would take is
 * still being vacated by a paging buffer, ask again). Without, fixed
 * placement: VRAM now, kept for life. */
int kapi_create_allocation(struct kproc *p, uint32_t hdevice,
                           const struct kapi_alloc_desc *d,
                           uint32_t *halloc);
int kapi_destroy_allocation(struct kproc *p, uint32_t halloc);
int kapi_allocation_size(struct kproc *p, uint32_t halloc, uint64_t *size);

/*
 * Sharing [D3DKMTShareObjects / D3DKMTOpenResource, the NT-handle model]:
 * share gives a global name for an allocation; grant lets process pid
 * (kapi_process_id) open it with access (KAPI_ACCESS_READ, plus
 * KAPI_ACCESS_WRITE to write it in command buffers and lock it); only
 * the creator's process may grant (DDI_EACCESS), and granting again
 * replaces the access. open makes a handle to it in a process it was
 * granted to (on one of its devices), with the granted access; any other
 * process opens nothing by that name, guessed or not (DDI_EHANDLE). A
 * call beyond the handle's access: DDI_EACCESS. The allocation lives
 * while any handle does.
 */
#define KAPI_ACCESS_READ        (1u << 0)
#define KAPI_ACCESS_WRITE       (1u << 1)
int kapi_share_allocation(struct kproc *p, uint32_t halloc, uint32_t *name);
int kapi_grant_allocation(struct kproc *p, uint32_t halloc, uint32_t pid,
                          unsigned access);
int kapi_open_allocation(struct kproc *p, uint32_t hdevice, uint32_t name,
                         uint32_t *halloc);

/* ---- sync objects: monitored fences [D3DKMTCreateSynchronizationObject2,
 *      D3DDDI_MONITORED_FENCE] ---- */

int kapi_create_sync(struct kproc *p, uint32_t hdevice, uint64_t initial,
                     uint32_t *hsync);
int kapi_destroy_sync(struct kproc *p, uint32_t hsync);
/* The current value (what the CPU address holds). */
int kapi_sync_value(struct kproc *p, uint32_t hsync, uint64_t *value);

/*
 * Sharing a sync object [D3DKMTShareObjects / D3DKMTOpenSyncObjectFrom
 * NtHandle2]: share gives a global name; grant and open as for
 * allocations: a process granted it opens a handle to the same monitored
 * fence, which may then wait for it (CPU or GPU; KAPI_ACCESS_READ) or
 * signal it (KAPI_ACCESS_WRITE). The object lives while any handle does
 * (and while a context of a device that held one may still wait on it).
 *
 * Blame follows guilt: when TDR removes the creator's device, the object
 * is signalled with an error: its value becomes UINT64_MAX (no GPU wait
 * of another process hangs on it) and another process's calls and CPU
 * waits on it return DDI_EABANDONED; that process's own device stays
 * healthy. The creator's process gets DDI_ELOST, as for its device.
 */
int kapi_share_sync(struct kproc *p, uint32_t hsync, uint32_t *name);
int kapi_grant_sync(struct kproc *p, uint32_t hsync, uint32_t pid,
                    unsigned access);
int kapi_open_sync(struct kproc *p, uint32_t hdevice, uint32_t name,
                   uint32_t *hsync);

/*
 * Monitored fences only move forward. [D3DKMTSignalSynchronization
 * ObjectFromCpu]: a value below the highest any signal (CPU or GPU) of
 * the object was accepted with is refused (DDI_EINVAL), equal is fine.
 */
int kapi_signal_cpu(struct kproc *p, uint32_t hsync, uint64_t value);
/* [D3DKMTSignalSynchronizationObjectFromGpu]: the value is written once
 * every buffer submitted on the context before this call has retired.
 * Refused the same way (DDI_EINVAL) below the highest accepted signal;
 * and when it lands, it is ignored if the value is higher by then (a
 * CPU signal overtook it): the value never goes back. */
int kapi_signal_gpu(struct kproc *p, uint32_t hcontext, uint32_t hsync,
                    uint64_t value);
/* [D3DKMTWaitForSynchronizationObjectFromGpu]: nothing submitted on the
 * context after this call runs before the value is reached. */
int kapi_wait_gpu(struct kproc *p, uint32_t hcontext, uint32_t hsync,
                  uint64_t value);

/* [D3DKMTWaitForSynchronizationObjectFromCpu], asynchronous: fn(arg,
 * DDI_OK) once the value is reached, or fn(arg, DDI_ELOST) if the
 * caller's own device that created it is removed first, fn(arg,
 * DDI_EABANDONED) if another process created it and was reset or
 * exited. A wait that starts after that is refused the same way (the
 * call returns DDI_ELOST or DDI_EABANDONED): an abandoned object stays
 * abandoned, whatever its value reads. */
typedef void (*kapi_wait_fn)(void *arg, int status);
int kapi_wait_cpu(struct kproc *p, uint32_t hsync, uint64_t value,
                  kapi_wait_fn fn, void *arg);

/*
 * Back-pressure [the wait inside D3DKMTRender while the context's queue
 * is full; drm_sched's credits] (kernel/kthrottle.h). kapi_render,
 * kapi_signal_gpu, kapi_wait_gpu and kapi_wait_paging take from pools
 * the process's work in flight holds (DMA-buffer records and copies, GPU
 * signal and wait slots). At a limit of one, while the process has work
 * in flight (a DMA buffer, a pending GPU signal or wait) the call queues
 * nothing and returns DDI_EBUSY: it would wait. kapi_wait_throttle then
 * runs fn(arg, DDI_OK) once some of that work retired (a lost device's
 * work retires too: the call again says DDI_ELOST), at passive level;
 * call again (it may answer DDI_EBUSY again). A process with
 * nothing in flight is not throttled: its call fails with the pool's
 * DDI_EQUOTA or DDI_ENOMEM, since waiting would never make room. The
 * wait holds one CPU-wait slot of the caller's (KQ_WAITS).
 */
int kapi_wait_throttle(struct kproc *p, kapi_wait_fn fn, void *arg);

/* ---- render [D3DKMTRender / D3DKMTSubmitCommand] ---- */

struct kapi_render_args {
    const uint32_t *cmd;            /* the command buffer (umd) */
    uint32_t cmd_bytes;
    const struct ddi_alloc_ref *alloc;
    unsigned nalloc;
    const struct ddi_patch_loc *patch;
    unsigned npatch;
    /* where the DMA buffer lives (KAPI_DMA_*; 0: the kernel's default,
     * dmabuf= on the command line) [US 7,444,637: DMA buffers placed by
     * where they are allocated and whether they are pageable] */
    unsigned placement;
};

/* DMA buffer placements (kapi_render_args.placement; kernel/kmem.h):
 *   KERNEL    a block of the kernel's fixed VRAM segment (never moves)
 *   APERTURE  a vidmm allocation in guest pages, mapped into the GART
 *             aperture before the GPU runs it, unmapped when room is
 *             needed while it is not on the GPU
 *   VRAM      a vidmm allocation that runs from VRAM (local only):
 *             copied in before it runs, evicted like any allocation
 *             while it is not on the GPU
 * APERTURE and VRAM need vidmm's packet-based mode; elsewhere the
 * buffer is placed in the kernel's segment. */
enum {
    KAPI_DMA_DEFAULT = 0,
    KAPI_DMA_KERNEL,
    KAPI_DMA_APERTURE,
    KAPI_DMA_VRAM,
    KAPI_DMA_PLACEMENTS,
};

/*
 * Validates the command buffer (DDI render), copies it into a kernel DMA
 * buffer and queues it on the context. On refusal nothing reaches the
 * GPU and the code says why (DDI_EINVAL, DDI_EBOUNDS, DDI_EOPCODE for the
 * buffer; DDI_EHANDLE for a handle in its list; DDI_EACCESS for a
 * listed write to an allocation opened read-only; DDI_EBUSY when the
 * process's buffers in flight hold every DMA-buffer record, DMA-buffer
 * memory or, in GPU-VA mode, its own DMA-buffer arena (KGPUVA_DMA_BYTES)
 * it may use: throttled, kapi_wait_throttle says when to call again;
 * DDI_EQUOTA or DDI_ENOMEM when it has nothing in flight and still
 * cannot have them).
 */
int kapi_render(struct kproc *p, uint32_t hcontext,
                const struct kapi_render_args *a);

/* p's DMA buffers from now on go where placement says (KAPI_DMA_*;
 * KAPI_DMA_DEFAULT: the kernel's default again) unless a render names
 * its own. DDI_EINVAL for anything else. Buffers in flight stay where
 * they are. */
int kapi_set_dma_placement(struct kproc *p, unsigned placement);

/*
 * Records an application event in the GPU's timeline, for the context
 * (the ETW events a presenting application emits for GPUView):
 * COPRO_MARK_PRESENT (frame, surface) or COPRO_MARK_DEADLINE_MISS (frame,
 * ns late; 0: dropped). DDI_EINVAL for any other kind (an application
 * cannot speak for the scheduler), DDI_EHANDLE for a bad context.
 */
int kapi_mark(struct kproc *p, uint32_t hcontext, unsigned kind,
              uint64_t arg0, uint64_t arg1);

/* ---- CPU access [D3DKMTLock / D3DKMTUnlock] ---- */

#define KAPI_LOCK_DONOTWAIT     (1u << 0)   /* DDI_EBUSY if the GPU uses it */
#define KAPI_LOCK_IGNORESYNC    (1u << 1)   /* map now: the caller knows,
                                               from its own fences, what
                                               the GPU is done with */

/* Maps a CPU-visible allocation now: flags must say what to do if the
 * GPU still uses it (DONOTWAIT or IGNORESYNC). */
int kapi_lock(struct kproc *p, uint32_t halloc, unsigned flags,
              volatile void **cpu);
/* Maps it once every buffer submitted so far that uses it has retired:
 * fn(arg, DDI_OK, cpu), or fn(arg, DDI_ELOST, NULL). The wait is
 * bounded: if those buffers have not retired KERNEL_LOCK_WAIT_NS
 * (250 ms) of GPU time later (another process's work held behind a
 * fence it never signals, say), fn(arg, DDI_ETIMEOUT, NULL): the
 * allocation is still in use [D3D's DXGI_ERROR_WAS_STILL_DRAWING], no
 * lock was taken; wait again to keep waiting. A live process's work can
 * thus never block a lock waiter for ever. */
typedef void (*kapi_lock_fn)(void *arg, int status, volatile void *cpu);
int kapi_lock_wait(struct kproc *p, uint32_t halloc, kapi_lock_fn fn,
                   void *arg);
int kapi_unlock(struct kproc *p, uint32_t halloc);

/* ---- display sources (the VidPN sources the kernel set a mode on) ----
 *
 * The kernel gives display source 0 its mode at boot and shows a black
 * primary of its own until the first present. A present builds no DMA
 * buffer: the kernel queues it on the source, waits (at DPC level, as
 * fences retire) until the GPU has finished the primary, then has the
 * driver flip to it on the next vsync (flip on vsync through MMIO,
 * programmed at interrupt level). Presents are shown in the order they
 * were made, each for at least one refresh. A primary stays alive while
 * it is queued or on screen, whatever happens to its handles.
 */

/* [D3DKMTGetDisplayModeList / D3DKMT_GETVERTICALBLANKEVENT's source] */
struct kapi_display_info {
    uint32_t width, height;         /* pixels */
    uint32_t pitch;                 /* bytes: primaries are pitch x height */
    uint32_t format;                /* COPRO_FMT_* */
    uint32_t refresh_hz;
    uint64_t vsync_period_ns;
    bool pointer;                   /* a pointer plane: kapi_set_pointer */
    uint32_t pointer_size;          /* its shapes: square, ARGB8888 */
    uint64_t vsyncs;                /* vsyncs the kernel has seen */
    uint64_t vsync_time;            /* GPU time of the last one */
    uint64_t flips;                 /* presents shown since boot */
    uint64_t missed;                /* vblanks missed by them (the sum of
                                       their results' missed) */
};

/* DDI_ENOTSUP if the source does not exist or is off. */
int kapi_display_info(struct kproc *p, uint32_t hdevice, unsigned source,
                      struct kapi_display_info *out);

/* What became of a present, given to its callback. */
struct kapi_present_result {
    int status;             /* DDI_OK: shown; DDI_ELOST: the device was
                               removed first; DDI_EHANDLE: its sync object
                               or device was destroyed first; DDI_EINVAL:
                               the display refused it (black) */
    uint64_t tag;           /* the present's */
    uint64_t vsync;         /* shown from this vsync (count) on */
    uint64_t time;          /* ... at this GPU time */
    uint64_t missed;        /* vblanks since the source's previous flip
                               at which nothing new was shown, measured
                               from the driver's FLIP_DONE */
};
typedef void (*kapi_present_fn)(void *arg,
                                const struct kapi_present_result *r);

/* [D3DKMTPresent] */
struct kapi_present {
    unsigned source;        /* VidPnSourceId */
    uint32_t hprimary;      /* a primary allocation of the caller's */
    uint32_t hsync;         /* flip once this sync object of the caller's */
    uint64_t value;         /* ... reaches value (0 handle: drawn already) */
    uint64_t tag;           /* the caller's, given back */
    kapi_present_fn fn;     /* once shown or failed: at passive level */
    void *arg;
};

/* DDI_ENOMEM when the source's queue is full (KDISPLAY_QUEUE presents
 * not yet reported): retry after a result. DDI_EACCESS when the device
 * does not own the source (kapi_set_source_owner). */
int kapi_present(struct kproc *p, uint32_t hdevice,
                 const struct kapi_present *a);

/* [D3DKMTSetVidPnSourceOwner] hdevice owns the source from now on: only
 * its presents and pointer updates are taken (others: DDI_EACCESS), so
 * no other process can show a picture or hold back the owner's flips
 * with a present that never becomes ready. Needs KAPI_PRIV_DISPLAY
 * (DDI_EACCESS); a previous owner's waiting presents fail with
 * DDI_EACCESS. Owned until the device is destroyed. */
int kapi_set_source_owner(struct kproc *p, uint32_t hdevice,
                          unsigned source);

/* [D3DKMTWaitForVerticalBlankEvent], asynchronous: fn(arg, DDI_OK, the
 * source's vsync count, that vsync's GPU time) once at the next vsync the
 * kernel sees, or fn(arg, DDI_ELOST or DDI_EHANDLE, 0, 0) if the device
 * is removed or destroyed first. Wait again for the one after. */
typedef void (*kapi_vsync_fn)(void *arg, int status, uint64_t vsyncs,
                              uint64_t time);
int kapi_wait_vsync(struct kproc *p, uint32_t hdevice, unsigned source,
                    kapi_vsync_fn fn, void *arg);

/* [D3DKMTSetPointerShape / SetPointerPosition], the source's owner only
 * (DDI_EACCESS): the pointer plane shows
 * hshape (an allocation of the caller's of at least pointer_size^2 * 4
 * bytes, ARGB8888, the info's pointer_size * 4 bytes per row; 0: keep
 * the current shape) with its top-left pixel at (x, y). At once, not at
 * a vsync. DDI_ENOTSUP without a pointer plane. */
struct kapi_pointer {
    unsigned source;
    uint32_t hshape;
    int32_t x, y;
    bool visible;
};
int kapi_set_pointer(struct kproc *p, uint32_t hdevice,
                     const struct kapi_pointer *ptr);

/* ---- GPU-VA mode (WDDM 2.x): VAs, residency lists, budgets ----
 *
 * A GPU-VA device's process has one GPU virtual address space; each of
 * its allocations gets a VA at creation and keeps it while it lives,
 * wherever its memory goes (VRAM or system memory). Its contexts' command
 * buffers use those VAs directly: no allocation or patch-location list
 * (kapi_render with nalloc = npatch = 0); the GPU's MMU confines them to
 * the process's space, and an access to an allocation that is not
 * resident faults that context. Residency is the application's
 * (kernel/kgpuva.h, docs/vidmm-gpuva.rst): an allocation is in VRAM while
 * a MakeResident of one of its process's devices holds it. Needs the
 * kernel started in GPU-VA mode (DDI_ENOTSUP otherwise). GPU-VA
 * allocations cannot be primaries or shared (DDI_ENOTSUP); a GPU-VA
 * device reaches a primary or a shared surface through a view
 * (kapi_map_gpu_va below).
 */

/* [D3DKMTCreateDevice in a GpuMmu process] */
int kapi_create_device_gpuva(struct kproc *p, uint32_t *hdevice);

/* [D3DKMTMapGpuVirtualAddress's result] the allocation's VA (for life). */
int kapi_gpu_va(struct kproc *p, uint32_t halloc, uint64_t *va);

/*
 * [D3DKMTRegisterTrimNotification] fn(arg, bytes): evict about bytes now.
 * Called synchronously from inside the MakeResident that needs the
 * memory, possibly another process's; it may only call kapi_evict (and
 * calls that only read): any other call, by anyone, while it runs fails
 * with DDI_EACCESS and changes nothing.
 * [D3DKMTSetVideoMemoryBudget...] the process's budget (0, or more
 * than its quota of referenced GPU-VA VRAM lets it hold: that quota's
 * limit, also its budget at creation). Both need a GPU-VA device first
 * (DDI_EINVAL).
 */
typedef void (*kapi_trim_fn)(void *arg, uint64_t bytes);
int kapi_set_trim_callback(struct kproc *p, kapi_trim_fn fn, void *arg);
int kapi_set_budget(struct kproc *p, uint64_t bytes);
/* [D3DKMTQueryVideoMemoryInfo] Budget, CurrentUsage (bytes in VRAM). */
int kapi_query_video_memory(struct kproc *p, uint64_t *budget,
                            uint64_t *usage);

/*
 * [D3DKMTMakeResident] one reference on the device for each handle, all
 * or nothing; *paging_fence: wait for it (kapi_wait_paging) before
 * submitting work that uses them (0: nothing to wait for); all the
 * moves of one call are one paging buffer. DDI_ENOMEM: they cannot all
 * be in VRAM; DDI_EBUSY: the kernel's paging buffers are all on the GPU,
 * retry once one retired (nothing changed either way). [D3DKMTEvict] drops one
 * reference each (DDI_EINVAL: more than the device holds; nothing
 * changed); *bytes_to_trim (may be NULL): how far the process is still
 * over its budget.
 */
int kapi_make_resident(struct kproc *p, uint32_t hdevice,
                       const uint32_t *halloc, unsigned n,
                       uint64_t *paging_fence);
int kapi_evict(struct kproc *p, uint32_t hdevice, const uint32_t *halloc,
               unsigned n, uint64_t *bytes_to_trim);

/* Nothing submitted on the context after this call runs before the
 * paging fence reaches value (a scheduler hold on the kernel's paging
 * fence) [the PagingFenceValue wait of D3DKMTSubmitCommand]. */
int kapi_wait_paging(struct kproc *p, uint32_t hcontext, uint64_t value);

/*
 * Scene-based rendering (GPU-VA mode, kernel/kscene.h): a parameter
 * buffer for scenes of `tiles` tiles, an allocation of `reserved` bytes
 * (make it resident like any other) of which the device may use `size`
 * now (give that size to SCENE_BEGIN); when the geometry runs out, the
 * kernel raises the scene's pb_size by `step`s, up to `reserved` and
 * while the process's parameter buffers stay within `budget` bytes in
 * all; beyond, it runs the scene's partial render if the process gave
 * one (kapi_scene_pb_partial). DDI_EINVAL for sizes vidmm_pb_init
 * refuses or a budget below size; DDI_ENOTSUP without a GPU-VA device.
 */
/* The tiles of a scene over a width x height target on this GPU (its
 * tile size, read from the device: never assume 32); 0 when the GPU has
 * no tiling path or the size is 0. */
uint32_t kapi_scene_tiles(const struct kproc *p, uint32_t width,
                          uint32_t height);
struct kapi_scene_pb_desc {
    uint32_t tiles, size, reserved, step;
    uint64_t budget;
};
int kapi_create_scene_pb(struct kproc *p, uint32_t hdevice,
                         const struct kapi_scene_pb_desc *d,
                         uint32_t *halloc, uint64_t *va);
/* vidmm's record of it: size now and the OOM answers counted. */
struct vidmm_pb;
int kapi_scene_pb_stats(struct kproc *p, uint32_t halloc,
                        struct vidmm_pb *out);
/*
 * The partial render of the scenes built in parameter buffer halloc
 * [PowerVR's FRAG_PR command given with the kick]: a command buffer of
 * SET_TARGETs (NOPs allowed) and one TILE_RENDER with COPRO_TILE_PARTIAL
 * over this buffer's VA and tile count, at most KSCENE_PARTIAL_DW
 * dwords, which must render to the surface the scene's final tile pass
 * renders to (the stored tiles are loaded from there). When a scene
 * stops on OOM and the buffer cannot grow, the kernel runs it on a
 * context of its own in the process's device (on `engine`, at `prio`:
 * the engine the process renders its tile passes on) and resumes the
 * geometry once it retired (kernel/kscene.h). Giving it again replaces
 * it. DDI_EINVAL for another shape or a render the DDI refuses on that
 * engine, DDI_EBUSY while one is on its way, DDI_ELOST on a removed
 * device, DDI_EACCESS for REALTIME without the privilege.
 */
struct kapi_scene_partial_desc {
    unsigned engine;
    enum vidsch_priority prio;
    const uint32_t *cmd;
    uint32_t cmd_bytes;
};
int kapi_scene_pb_partial(struct kproc *p, uint32_t halloc,
                          const struct kapi_scene_partial_desc *d);

/*
 * [D3DKMTMapGpuVirtualAddress of an allocation a packet-based device
 * made] Views, in p's GPU-VA space, of the n allocations p holds through
 * halloc[] that are not GPU-VA ones: its own primary, a surface shared
 * with it (kernel/kvamap.h). Each is pinned in VRAM from then on, until
 * freed, and mapped over its whole pages at va[i], writable only if the
 * handle may write (KAPI_ACCESS_WRITE); all of the call's entries go in
 * one paging buffer: wait for *paging_fence (kapi_wait_paging) before
 * work that uses them. One view per handle (mapped again: the same VA);
 * it goes with the handle. DDI_EHANDLE / DDI_EINVAL (hdevice not a
 * GPU-VA device, a GPU-VA allocation, which has kapi_gpu_va, n not in
 * 1..16, KVAMAP_MAX) change nothing. Then, in order, a handle may fail with
 * DDI_EINVAL (memory vidmm does not place), DDI_EBUSY (not in VRAM now,
 * or being moved, or paging buffers in flight: retry later) or DDI_ENOMEM
 * (no room for one more view): the views made before it stay.
 */
int kapi_map_gpu_va(struct kproc *p, uint32_t hdevice,
                    const uint32_t *halloc, unsigned n, uint64_t *va,
                    uint64_t *paging_fence);

/* What the pager did, for reports. */
struct kapi_gpuva_stats {
    uint64_t page_ins, page_outs, bytes_in, bytes_out;
    uint64_t paging_buffers, trims_delivered, enomem;
    uint64_t paging_fence;          /* the value retired so far */
};
int kapi_gpuva_stats(struct kproc *p, struct kapi_gpuva_stats *out);

#endif /* FW_KERNEL_KAPI_H */
