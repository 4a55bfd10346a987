/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The application API (kapi.h) over the kernel's objects: the call layer.
 * Each call first states its class (KCALL: what a callback the kernel
 * runs may call), resolves the handle it names against the calling
 * process's table, then hands the object to its file's function, which
 * checks the arguments and only then changes anything: a refused call
 * leaves no trace. Nothing below calls back up into this layer. The sync
 * objects' calls are kapi_sync.c, the sharing calls kshare.c.
 */
#include "kernel/kapi.h"

#include <stddef.h>

#include <copro/copro_cmd.h>
#include <copro/copro_tiler.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kisolate.h"
#include "kernel/kexit.h"
#include "kernel/kmem.h"
#include "kernel/kquota.h"
#include "kernel/kscene.h"
#include "kernel/kvamap.h"

/* ---- processes, time ---- */

struct kproc *kapi_process_create(struct kernel *k, const char *name)
{
    /* admitted first, as every call that changes state: a callback the
     * kernel runs inside another call may not make a process (it has no
     * process of its own to pass, hence kcall_check and not KCALL) */
    if (kcall_check(k, NULL, KCALL_CHANGE) != DDI_OK) {
        return NULL;
    }
    return kproc_create(k, name);
}

const char *kapi_process_name(const struct kproc *p)
{
    return p ? p->name : "?";
}

uint32_t kapi_process_id(const struct kproc *p)
{
    return p ? p->pid : 0;
}

void kapi_set_lost_callback(struct kproc *p, kapi_lost_fn fn, void *arg)
{
    KCALL_VOID(p, KCALL_CHANGE);
    if (!kproc_live(p)) {
        return;
    }
    p->lost_fn = fn;
    p->lost_arg = arg;
}

int kapi_process_exit(struct kproc *p)
{
    KCALL(p, KCALL_CHANGE);

    return kexit_process(p);
}

uint64_t kapi_now(const struct kproc *p)
{
    return p && p->k ? kernel_now(p->k) : 0;
}

void kapi_timer_init(struct ktimer *t, ktimer_fn fn, void *arg)
{
    if (!t) {
        return;
    }
    if (t->armed) {
        /*
         * It is on the kernel's timer list, linked through its own memory,
         * and its owner is who disarms it at exit: setting it up afresh
         * would cut the list behind it (other processes' and the
         * scheduler's timers never fire), make it a cycle at the next arm
         * (the kernel loops for ever), or let it outlive its process
         * (issue 26's second attack review). It stays armed and linked;
         * only what it calls changes.
         */
        if (fn) {
            t->fn = fn;
            t->arg = arg;
        }
        return;
    }
    ktimer_init(t, fn, arg);
}

int kapi_timer_arm(struct kproc *p, struct ktimer *t, uint64_t when)
{
    KCALL(p, KCALL_CHANGE);
    if (!kproc_live(p) || !t || !t->fn) {
        return DDI_EINVAL;
    }
    /* a quota like every table's: the list is the kernel's, and each arm
     * walks it (issue 26's third review: 8,000 timers of one process made
     * every other arm, the scheduler's included, walk past them) */
    if (!(t->armed && t->owner == p->pid) &&
        ktimer_count_owned(&p->k->ev.timers, p->pid) >=
            KAPI_MAX_TIMERS) {
        return DDI_EQUOTA;
    }
    t->owner = p->pid;      /* disarmed at its exit (kexit.c) */
    ktimer_arm(&p->k->ev.timers, t, when);
    return DDI_OK;
}

void kapi_timer_cancel(struct kproc *p, struct ktimer *t)
{
    KCALL_VOID(p, KCALL_CHANGE);
    if (p && p->k && t) {
        ktimer_cancel(&p->k->ev.timers, t);
    }
}

/* ---- devices ---- */

int kapi_create_device(struct kproc *p, uint32_t *hdevice)
{
    KCALL(p, KCALL_CHANGE);

    return kdevice_create(p, hdevice);
}

int kapi_destroy_device(struct kproc *p, uint32_t hdevice)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    kdevice_destroy(p, hdevice, dev);
    return DDI_OK;
}

/* ---- contexts ---- */

int kapi_create_context(struct kproc *p, uint32_t hdevice, unsigned engine,
                        enum vidsch_priority prio, uint32_t *hcontext)
{
    struct kdevice *dev = get_device(p, hdevice);
    struct kcontext *c;
    int st;

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    if (!hcontext && !dev->removed) {
        return DDI_EINVAL;
    }
    st = kcontext_create(p, dev, engine, prio, &c);
    if (st == DDI_OK) {
        st = handle_alloc(&p->handles, HANDLE_CONTEXT, c, hcontext);
        if (st != DDI_OK) {
            /* nothing was submitted: the reaper frees it at once */
            kcontext_destroy(p->k, c);
        }
    }
    return st;
}

int kapi_destroy_context(struct kproc *p, uint32_t hcontext)
{
    struct kcontext *c = get_context(p, hcontext);

    KCALL(p, KCALL_CHANGE);

    if (!c) {
        return DDI_EHANDLE;
    }
    kcontext_close(p, hcontext, c);
    return DDI_OK;
}

int kapi_context_stats(struct kproc *p, uint32_t hcontext,
                       struct vidsch_ctx_stats *out)
{
    struct kcontext *c = get_context(p, hcontext);

    if (!c) {
        return DDI_EHANDLE;
    }
    if (!out) {
        return DDI_EINVAL;
    }
    *out = *vidsch_ctx_stats(c->vctx);
    return DDI_OK;
}

int kapi_context_error(struct kproc *p, uint32_t hcontext)
{
    struct kcontext *c = get_context(p, hcontext);

    if (!c) {
        return DDI_EHANDLE;
    }
    if (c->dev->removed) {
        return DDI_ELOST;
    }
    return c->error;
}

/* ---- allocations ---- */

int kapi_create_allocation(struct kproc *p, uint32_t hdevice,
                           const struct kapi_alloc_desc *d, uint32_t *halloc)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kalloc_create(p, dev, d, halloc);
}

int kapi_destroy_allocation(struct kproc *p, uint32_t halloc)
{
    struct kalloc *a = get_alloc(p, halloc);

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    kalloc_close(p, halloc, a);
    return DDI_OK;
}

int kapi_allocation_size(struct kproc *p, uint32_t halloc, uint64_t *size)
{
    struct kalloc *a = get_alloc(p, halloc);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (!size) {
        return DDI_EINVAL;
    }
    *size = a->size;
    return DDI_OK;
}

/* ---- render ---- */

int kapi_render(struct kproc *p, uint32_t hcontext,
                const struct kapi_render_args *a)
{
    struct kcontext *c = get_context(p, hcontext);

    KCALL(p, KCALL_CHANGE);

    if (!c) {
        return DDI_EHANDLE;
    }
    return kbuffer_render(p, c, a);
}

int kapi_mark(struct kproc *p, uint32_t hcontext, unsigned kind,
              uint64_t arg0, uint64_t arg1)
{
    struct kcontext *c = get_context(p, hcontext);

    KCALL(p, KCALL_CHANGE);

    if (!c) {
        return DDI_EHANDLE;
    }
    if (kind != COPRO_MARK_PRESENT && kind != COPRO_MARK_DEADLINE_MISS) {
        return DDI_EINVAL;
    }
    kernel_mark(p->k, kind, COPRO_MARK_NO_ENGINE, c->hw_id, arg0, arg1);
    return DDI_OK;
}

/* ---- lock ---- */

int kapi_lock(struct kproc *p, uint32_t halloc, unsigned flags,
              volatile void **cpu)
{
    struct kalloc *a = get_alloc(p, halloc);

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    return kalloc_lock(p, halloc, a, flags, cpu);
}

int kapi_unlock(struct kproc *p, uint32_t halloc)
{
    struct kalloc *a = get_alloc(p, halloc);

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    return kalloc_unlock(p, halloc, a);
}


int kapi_lock_wait(struct kproc *p, uint32_t halloc, kapi_lock_fn fn,
                   void *arg)
{
    struct kalloc *a = get_alloc(p, halloc);
    struct kwait *w;
    int st;

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (!fn || !a->cpu_visible) {
        return DDI_EINVAL;
    }
    if (!kiso_may(p, halloc, KAPI_ACCESS_WRITE)) {
        return DDI_EACCESS;
    }
    w = kwait_new(p, &st);
    if (!w) {
        return st;
    }
    *w = (struct kwait){
        .kind = KWAIT_LOCK, .proc = p,
        .u.lock = { .alloc = a, .seq = p->k->seq, .fn = fn, .h = halloc,
                    .deadline = kernel_now(p->k) + KERNEL_LOCK_WAIT_NS },
        .arg = arg,
    };
    kernel_arm_lock_timer(p->k);
    kqueue_push(&p->k->ev.work, &p->k->deliver_work);
    return DDI_OK;
}

/* ---- GPU-VA mode ---- */

int kapi_gpu_va(struct kproc *p, uint32_t halloc, uint64_t *va)
{
    struct kalloc *a = get_alloc(p, halloc);

    if (!a) {
        return DDI_EHANDLE;
    }
    return kalloc_gpu_va(a, va);
}

int kapi_create_device_gpuva(struct kproc *p, uint32_t *hdevice)
{
    KCALL(p, KCALL_CHANGE);

    return kdevice_create_gpuva(p, hdevice);
}

static struct kdevice *get_gpuva_device(struct kproc *p, uint32_t h)
{
    struct kdevice *d = get_device(p, h);

    return d && d->gpuva ? d : NULL;
}

int kapi_set_trim_callback(struct kproc *p, kapi_trim_fn fn, void *arg)
{
    struct kgpuva_proc *gp = kproc_live(p) ? kgpuva_proc_of(p->k, p)
                                           : NULL;

    KCALL(p, KCALL_CHANGE);

    if (!gp) {
        return DDI_EINVAL;
    }
    gp->trim_fn = fn;
    gp->trim_arg = arg;
    return DDI_OK;
}

int kapi_set_budget(struct kproc *p, uint64_t bytes)
{
    struct kgpuva_proc *gp = kproc_live(p) ? kgpuva_proc_of(p->k, p)
                                           : NULL;

    KCALL(p, KCALL_CHANGE);

    if (!gp) {
        return DDI_EINVAL;
    }
    /* 0: no limit of its own, as at creation (residency's 0 would be
     * a budget of nothing: every MakeResident a trim); never beyond what
     * its quota lets it reference (issue 26 item 11: the budget was the
     * process's own, the whole VRAM by default) */
    gp->budget_asked = bytes;
    vidmm_res_set_budget(&gp->rp, kgpuva_budget(p->k, p));
    return DDI_OK;
}

int kapi_query_video_memory(struct kproc *p, uint64_t *budget,
                            uint64_t *usage)
{
    struct kgpuva_proc *gp = kproc_live(p) ? kgpuva_proc_of(p->k, p)
                                           : NULL;

    if (!gp || !budget || !usage) {
        return DDI_EINVAL;
    }
    *budget = kgpuva_budget(p->k, p);
    *usage = gp->rp.resident_bytes;
    return DDI_OK;
}

int kapi_make_resident(struct kproc *p, uint32_t hdevice,
                       const uint32_t *halloc, unsigned n,
                       uint64_t *paging_fence)
{
    struct kdevice *d = get_gpuva_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!d) {
        return DDI_EHANDLE;
    }
    if (d->removed) {
        return DDI_ELOST;
    }
    if (!halloc || !paging_fence || n == 0 || n > VIDMM_RES_MAX_LIST) {
        return DDI_EINVAL;
    }
    /* every handle first, as every call does (foreign, stale, made up:
     * DDI_EHANDLE, whatever the paging buffers' state; residency checks
     * them again against the device's process) */
    for (unsigned i = 0; i < n; i++) {
        const struct kalloc *a = get_alloc(p, halloc[i]);

        if (!a || !a->gv) {
            return DDI_EHANDLE;
        }
    }
    return kgpuva_make_resident(p->k, (unsigned)(d - p->k->devices), halloc,
                                n, paging_fence);
}

int kapi_evict(struct kproc *p, uint32_t hdevice, const uint32_t *halloc,
               unsigned n, uint64_t *bytes_to_trim)
{
    struct kdevice *d = get_gpuva_device(p, hdevice);

    KCALL(p, KCALL_EVICT);

    if (!d) {
        return DDI_EHANDLE;
    }
    return kgpuva_evict(p->k, (unsigned)(d - p->k->devices), halloc, n,
                        bytes_to_trim);
}

int kapi_wait_paging(struct kproc *p, uint32_t hcontext, uint64_t value)
{
    struct kcontext *c = get_context(p, hcontext);
    int st;

    KCALL(p, KCALL_CHANGE);

    if (!c) {
        return DDI_EHANDLE;
    }
    if (!c->dev->gpuva || value > p->k->gpuva.fence_issued) {
        return DDI_EINVAL;      /* a value never handed out: never reached */
    }
    if (value <= p->k->gpuva.fence_done) {
        return DDI_OK;
    }
    st = kquota_gpu_sync(p->k, p);
    if (st != DDI_OK) {
        return kthrottle_refused(p->k, p, st);
    }
    st = vidsch_wait(p->k->vs, c->vctx, &p->k->gpuva.fence_done, value);
    kernel_after_vidsch(p->k);
    return st;
}

int kapi_gpuva_stats(struct kproc *p, struct kapi_gpuva_stats *out)
{
    const struct kgpuva *g;

    if (!kproc_live(p) || !out) {
        return DDI_EINVAL;
    }
    g = &p->k->gpuva;
    if (!g->on) {
        return DDI_ENOTSUP;
    }
    *out = (struct kapi_gpuva_stats){
        .page_ins = g->stats.page_ins, .page_outs = g->stats.page_outs,
        .bytes_in = g->stats.bytes_in, .bytes_out = g->stats.bytes_out,
        .paging_buffers = g->stats.paging_buffers,
        .trims_delivered = g->stats.trims_delivered,
        .enomem = g->stats.enomem, .paging_fence = g->fence_done,
    };
    return DDI_OK;
}

/* ---- GPU-VA views (kvamap.c) ---- */

int kapi_map_gpu_va(struct kproc *p, uint32_t hdevice,
                    const uint32_t *halloc, unsigned n, uint64_t *va,
                    uint64_t *paging_fence)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kvamap_map(p, dev, halloc, n, va, paging_fence);
}

/* ---- scene-based rendering's parameter buffers (kscene.c) ---- */

int kapi_create_scene_pb(struct kproc *p, uint32_t hdevice,
                         const struct kapi_scene_pb_desc *d,
                         uint32_t *halloc, uint64_t *va)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kscene_create_pb(p, dev, d, halloc, va);
}

uint32_t kapi_scene_tiles(const struct kproc *p, uint32_t width,
                          uint32_t height)
{
    uint32_t ts = p && p->k ? p->k->caps.tile_size : 0;
    uint64_t tiles;

    if (!ts || !width || !height) {
        return 0;
    }
    tiles = (uint64_t)copro_tiles_of(width, ts) * copro_tiles_of(height, ts);
    return tiles <= COPRO_TILER_MAX_TILES ? (uint32_t)tiles : 0;
}

int kapi_scene_pb_stats(struct kproc *p, uint32_t halloc,
                        struct vidmm_pb *out)
{
    return kscene_pb_stats(p, halloc, out);
}

int kapi_scene_pb_partial(struct kproc *p, uint32_t halloc,
                          const struct kapi_scene_partial_desc *d)
{
    KCALL(p, KCALL_CHANGE);

    return kscene_pb_partial(p, halloc, d);
}

/* ---- display sources (kdisplay.c) ---- */

int kapi_display_info(struct kproc *p, uint32_t hdevice, unsigned source,
                      struct kapi_display_info *out)
{
    struct kdevice *dev = get_device(p, hdevice);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kdisplay_info(p->k, source, out);
}

int kapi_present(struct kproc *p, uint32_t hdevice,
                 const struct kapi_present *a)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kdisplay_present(p, dev, a);
}

int kapi_set_source_owner(struct kproc *p, uint32_t hdevice,
                          unsigned source)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kdisplay_set_owner(p, dev, source);
}

int kapi_wait_vsync(struct kproc *p, uint32_t hdevice, unsigned source,
                    kapi_vsync_fn fn, void *arg)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kdisplay_wait_vsync(p, dev, source, fn, arg);
}

int kapi_set_pointer(struct kproc *p, uint32_t hdevice,
                     const struct kapi_pointer *ptr)
{
    struct kdevice *dev = get_device(p, hdevice);

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    return kdisplay_set_pointer(p, dev, ptr);
}
