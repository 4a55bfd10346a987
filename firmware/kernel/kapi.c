/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The application API (kapi.h) over the kernel's objects. Each call first
 * resolves every handle against the calling process's table, then checks
 * its arguments, and only then changes anything: a refused call leaves
 * no trace.
 */
#include "kernel/kapi.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kisolate.h"
#include "kernel/kexit.h"
#include "kernel/kmem.h"
#include "kernel/kquota.h"

static void fill_zero(volatile void *cpu, uint64_t bytes)
{
    volatile uint64_t *q = cpu;

    for (uint64_t i = 0; i < bytes / 8; i++) {
        q[i] = 0;
    }
}

/* ---- processes, time ---- */

struct kproc *kapi_process_create(struct kernel *k, const char *name)
{
    if (!k) {
        return NULL;
    }
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        struct kproc *p = &k->procs[i];

        if (!p->used) {
            uint8_t id = kexit_new_proc_id(k);

            /* process ids are never reused: after 2^32 - 1 lives no
             * process is created any more rather than one reused */
            if (id == 0 || k->next_pid == UINT32_MAX) {
                return NULL;
            }
            *p = (struct kproc){
                .used = true, .id = id, .pid = ++k->next_pid, .name = name,
                .k = k,
            };
            handle_table_init(&p->handles, p->id, p->slots,
                              KERNEL_PROC_HANDLES);
            kquota_proc_init(k, p);
            return p;
        }
    }
    return NULL;
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
    struct kernel *k;

    KCALL(p, KCALL_CHANGE);

    if (!kproc_live(p) || !hdevice) {
        return DDI_EINVAL;
    }
    k = p->k;
    for (unsigned i = 0; i < KERNEL_MAX_DEVICES; i++) {
        struct kdevice *d = &k->devices[i];

        if (!d->used) {
            int st = kquota_charge(k, p, KQ_DEVICES, 1);

            if (st == DDI_OK) {
                st = handle_alloc(&p->handles, HANDLE_DEVICE, d, hdevice);
                if (st != DDI_OK) {
                    kquota_uncharge(k, p, KQ_DEVICES, 1);
                }
            }
            if (st == DDI_OK) {
                *d = (struct kdevice){ .used = true, .proc = p };
            }
            return st;
        }
    }
    return DDI_ENOMEM;
}

struct destroy_walk {
    struct kproc *p;
    struct kdevice *dev;
};

static void destroy_child(void *arg, uint32_t h, void *obj)
{
    struct destroy_walk *w = arg;

    switch (handle_type_of(h)) {
    case HANDLE_CONTEXT:
        if (((struct kcontext *)obj)->dev == w->dev) {
            kapi_destroy_context(w->p, h);
        }
        break;
    case HANDLE_ALLOCATION:
        /* created on it, or opened on it (a shared one) */
        if (((struct kalloc *)obj)->dev == w->dev ||
            kexit_opened_on(w->p, h) == w->dev) {
            kapi_destroy_allocation(w->p, h);
        }
        break;
    case HANDLE_SYNC:
        if (((struct ksync *)obj)->dev == w->dev ||
            kexit_opened_on(w->p, h) == w->dev) {
            kapi_destroy_sync(w->p, h);
        }
        break;
    default:
        break;
    }
}

int kapi_destroy_device(struct kproc *p, uint32_t hdevice)
{
    struct kdevice *dev = get_device(p, hdevice);
    struct destroy_walk w = { p, dev };

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    kdisplay_device_gone(p->k, dev);
    if (dev->gpuva) {
        /* its allocations' page-outs and unmaps in one paging buffer */
        kgpuva_bulk(p->k, true);
    }
    handle_for_each(&p->handles, HANDLE_NONE, destroy_child, &w);
    /* the kernel's own contexts on it (no handle names them) */
    kscene_device_gone(p->k, dev);
    if (dev->gpuva) {
        kgpuva_bulk(p->k, false);
        /* its references go with it (allocations were destroyed above) */
        kgpuva_device_destroy(p->k, (unsigned)(dev - p->k->devices));
    }
    handle_free(&p->handles, hdevice, HANDLE_DEVICE);
    dev->destroyed = true;
    p->k->reap_objects = true;
    kqueue_push(&p->k->ev.work, &p->k->reap_work);
    return DDI_OK;
}

/* ---- contexts ---- */

int kernel_context_create(struct kproc *p, struct kdevice *dev,
                          unsigned engine, enum vidsch_priority prio,
                          struct kcontext **out)
{
    struct kcontext *c = NULL;
    struct kernel *k = p->k;
    uint64_t save;
    int st;

    if (dev->removed) {
        return DDI_ELOST;
    }
    if (engine >= k->caps.engines || (unsigned)prio >= VIDSCH_PRIO_COUNT) {
        return DDI_EINVAL;
    }
    /* REALTIME preempts everything, the compositor included: Windows
     * asks SeIncreaseBasePriorityPrivilege for it */
    if (prio == VIDSCH_PRIO_REALTIME &&
        !kiso_privileged(p, KAPI_PRIV_REALTIME)) {
        return DDI_EACCESS;
    }
    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS && !c; i++) {
        if (!k->contexts[i].used) {
            c = &k->contexts[i];
        }
    }
    if (!c) {
        return DDI_ENOMEM;
    }
    st = kquota_charge(k, p, KQ_CONTEXTS, 1);
    /* GPU-VA mode: a page of its own, the only writable page of the
     * kernel's VRAM in the process's space */
    if (st == DDI_OK) {
        st = kquota_seg_alloc(k, p, dev->gpuva ? KGPUVA_SAVE_BYTES
                                               : COPRO_SAVE_SIZE,
                              dev->gpuva ? KGPUVA_SAVE_BYTES
                                         : KERNEL_ALLOC_ALIGN, &save);
        if (st != DDI_OK) {
            kquota_uncharge(k, p, KQ_CONTEXTS, 1);
        }
    }
    if (st != DDI_OK) {
        return st;
    }
    /* A zeroed save area has no magic: a RESUME before any preemption
     * fails on the device instead of resuming garbage. */
    fill_zero(vidmm_segment_cpu(&k->seg, save), COPRO_SAVE_SIZE);
    *c = (struct kcontext){
        .used = true, .dev = dev, .proc = p, .hw_id = k->next_hw_ctx++,
        .engine = engine, .prio = prio, .save_gpu = save,
    };
    c->vctx = vidsch_ctx_create(k->vs, c->hw_id, engine, prio, save);
    /* a device removed stops all of its contexts, not the guilty one
     * alone: vidsch loses them together (vidsch_ctx_set_device) */
    vidsch_ctx_set_device(c->vctx, (uint32_t)(dev - k->devices) + 1);
    st = c->vctx ? DDI_OK : DDI_ENOMEM;
    if (st == DDI_OK && dev->gpuva) {
        /* it runs in the process's address space from its first buffer */
        st = kgpuva_context_bind(k, p, c->hw_id, save);
        if (st != DDI_OK) {
            /* Nothing was submitted: the scheduler lets go at once. */
            vidsch_ctx_destroy(k->vs, c->vctx);
        }
    }
    if (st != DDI_OK) {
        kquota_seg_free(k, p, save);
        kquota_uncharge(k, p, KQ_CONTEXTS, 1);
        *c = (struct kcontext){ 0 };
        return st;
    }
    dev->contexts++;
    *out = c;
    return DDI_OK;
}

void kernel_context_destroy(struct kernel *k, struct kcontext *c)
{
    c->destroying = true;
    k->reap_contexts = true;
    kqueue_push(&k->ev.work, &k->reap_work);
}

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
    st = kernel_context_create(p, dev, engine, prio, &c);
    if (st == DDI_OK) {
        st = handle_alloc(&p->handles, HANDLE_CONTEXT, c, hcontext);
        if (st != DDI_OK) {
            /* nothing was submitted: the reaper frees it at once */
            kernel_context_destroy(p->k, c);
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
    handle_free(&p->handles, hcontext, HANDLE_CONTEXT);
    kernel_context_destroy(p->k, c);
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
    struct kalloc *a = NULL;
    struct kernel *k;
    int st;

    KCALL(p, KCALL_CHANGE);

    if (!dev) {
        return DDI_EHANDLE;
    }
    if (dev->removed) {
        return DDI_ELOST;
    }
    k = p->k;
    /* larger than all the VRAM it could ever have at once: refused (an
     * oversubscribed OS accepts many that do not fit together) */
    if (!d || !halloc || d->size == 0 || d->size > kernel_app_vram_bytes(k)) {
        return DDI_EINVAL;
    }
    if (dev->gpuva && d->primary) {
        return DDI_ENOTSUP;
    }
    if (d->primary && !kdisplay_primary_fits(k, d->size)) {
        return kdisplay_source(k, 0) ? DDI_EINVAL : DDI_ENOTSUP;
    }
    for (unsigned i = 0; i < KERNEL_MAX_ALLOCS && !a; i++) {
        if (!k->allocs[i].used) {
            a = &k->allocs[i];
        }
    }
    if (!a) {
        return DDI_ENOMEM;
    }
    *a = (struct kalloc){
        .dev = dev, .size = d->size, .cpu_visible = d->cpu_visible,
        .refs = 1, .primary = d->primary, .owner = p,
        .owner_gpuva = dev->gpuva,
    };
    st = kquota_alloc_charge(k, a);
    if (st != DDI_OK) {
        *a = (struct kalloc){ 0 };
        return st;
    }
    if (dev->gpuva) {
        /* the residency record is keyed by the handle: handle first */
        st = handle_alloc(&p->handles, HANDLE_ALLOCATION, a, halloc);
        if (st == DDI_OK) {
            st = kgpuva_alloc_create(k, p, *halloc, d->size, d->zeroed,
                                     &a->gv);
            if (st != DDI_OK) {
                handle_free(&p->handles, *halloc, HANDLE_ALLOCATION);
            }
        }
        if (st != DDI_OK) {
            kquota_alloc_uncharge(k, a);
            *a = (struct kalloc){ 0 };
            return st;
        }
        kiso_handle_new(p, *halloc, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
        a->used = true;
        return DDI_OK;
    }
    st = kmem_alloc_create(k, a, d);
    if (st != DDI_OK) {
        kquota_alloc_uncharge(k, a);
        *a = (struct kalloc){ 0 };
        return st;
    }
    st = handle_alloc(&p->handles, HANDLE_ALLOCATION, a, halloc);
    if (st != DDI_OK) {
        kmem_alloc_free(k, a);      /* new: nothing moves it yet */
        kquota_alloc_uncharge(k, a);
        *a = (struct kalloc){ 0 };
        return st;
    }
    kiso_handle_new(p, *halloc, KAPI_ACCESS_READ | KAPI_ACCESS_WRITE);
    a->used = true;
    return DDI_OK;
}

/* Waits on an object that goes away fail instead of touching it later. */
void kernel_fail_waits(struct kernel *k, struct kproc *p, const void *obj)
{
    for (unsigned i = 0; i < KERNEL_MAX_WAITS; i++) {
        struct kwait *w = &k->waits[i];

        if (w->kind == KWAIT_NONE || w->proc != p) {
            continue;
        }
        if ((w->kind == KWAIT_SYNC && w->u.sync.sync == obj) ||
            (w->kind == KWAIT_LOCK && w->u.lock.alloc == obj)) {
            w->fail = DDI_EHANDLE;
            kqueue_push(&k->ev.work, &k->deliver_work);
        }
    }
}

int kapi_destroy_allocation(struct kproc *p, uint32_t halloc)
{
    struct kalloc *a = get_alloc(p, halloc);

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    kiso_handle_gone(p, halloc);
    /* the locks taken through this handle go with it (a process that
     * dies holding one does not pin the allocation for ever), never
     * another handle's */
    for (unsigned n = kexit_take_locks(p, halloc); n && a->locks; n--) {
        a->locks--;
        kmem_unlock(p->k, a);
    }
    kvamap_handle_gone(p->k, p, halloc);
    handle_free(&p->handles, halloc, HANDLE_ALLOCATION);
    kexit_handle_gone(p, halloc);
    kernel_fail_waits(p->k, p, a);
    a->refs--;
    /* Freed now if no buffer in flight uses it, else when the last one
     * retires (WDDM defers the destruction the same way). */
    kernel_alloc_release(p->k, a);
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

static struct kbuffer *new_buffer(struct kernel *k)
{
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        if (!k->buffers[i].used) {
            return &k->buffers[i];
        }
    }
    return NULL;
}

int kapi_render(struct kproc *p, uint32_t hcontext,
                const struct kapi_render_args *a)
{
    struct kcontext *c = get_context(p, hcontext);

    KCALL(p, KCALL_CHANGE);

    if (!c) {
        return DDI_EHANDLE;
    }
    return kernel_render(p, c, a);
}

int kernel_render(struct kproc *p, struct kcontext *c,
                  const struct kapi_render_args *a)
{
    struct ddi_render_args args;
    struct kbuffer *kb;
    struct kernel *k;
    uint64_t dma;
    int st;

    if (c->dev->removed) {
        return DDI_ELOST;
    }
    if (c->error) {
        return c->error;
    }
    k = p->k;
    if (!a || !a->cmd || a->cmd_bytes == 0 || a->cmd_bytes % 4 ||
        a->cmd_bytes > k->caps.max_dma_bytes ||
        a->nalloc > DDI_MAX_ALLOC_LIST || a->npatch > DDI_MAX_PATCH_LIST ||
        (a->nalloc && !a->alloc) || (a->npatch && !a->patch)) {
        k->stats.render_refusals++;
        k->stats.last_refusal = DDI_EINVAL;
        return DDI_EINVAL;
    }
    /* GPU-VA mode: addresses are the process's VAs, no lists */
    if (c->dev->gpuva && (a->nalloc || a->npatch)) {
        k->stats.render_refusals++;
        k->stats.last_refusal = DDI_EINVAL;
        return DDI_EINVAL;
    }
    /* a full table is work in flight too: wait for one's retirement */
    kb = new_buffer(k);
    if (!kb) {
        return kthrottle_refused(k, p, DDI_ENOMEM);
    }
    kb->dmabuf.nalloc = 0;
    for (unsigned i = 0; i < a->nalloc; i++) {
        struct kalloc *al = get_alloc(p, a->alloc[i].handle);

        if (!al) {
            k->stats.render_refusals++;
            k->stats.last_refusal = DDI_EHANDLE;
            return DDI_EHANDLE;
        }
        if (a->alloc[i].write &&
            !kiso_may(p, a->alloc[i].handle, KAPI_ACCESS_WRITE)) {
            k->stats.render_refusals++;
            k->stats.last_refusal = DDI_EACCESS;
            return DDI_EACCESS;     /* opened read-only */
        }
        kb->alloc[i] = al;
        kb->desc[i] = (struct ddi_alloc_desc){
            .size = al->size, .gpu_addr = al->gpu,
            .cpu_visible = al->cpu_visible,
        };
    }
    /* the buffer record and its copy in VRAM are the process's to pay
     * for (kquota.h); in GPU-VA mode the copy goes to the process's own
     * arena, the only OS VRAM its space maps (bounded by its size) */
    st = kquota_charge(k, p, KQ_BUFFERS, 1);
    if (st == DDI_OK) {
        if (c->dev->gpuva) {
            kb->dma_seg = kgpuva_dma_segment(k, p);
            st = kb->dma_seg &&
                 vidmm_segment_alloc(kb->dma_seg, a->cmd_bytes,
                                     KERNEL_ALLOC_ALIGN, &dma)
                 ? DDI_OK : DDI_ENOMEM;
        } else {
            kb->dma_seg = &k->seg;
            st = kquota_seg_alloc(k, p, a->cmd_bytes, KERNEL_ALLOC_ALIGN,
                                  &dma);
        }
        if (st != DDI_OK) {
            kquota_uncharge(k, p, KQ_BUFFERS, 1);
        }
    }
    if (st != DDI_OK) {
        /* records and copies are what buffers in flight hold: the
         * process waits for its own to retire (kthrottle.h) */
        return kthrottle_refused(k, p, st);
    }
    kb->dmabuf.dw = (uint32_t *)vidmm_segment_cpu(kb->dma_seg, dma);
    kb->dmabuf.gpu_addr = dma;
    kb->dmabuf.cap_bytes = a->cmd_bytes;
    args = (struct ddi_render_args){
        .engine = c->engine, .cmd = a->cmd, .cmd_bytes = a->cmd_bytes,
        .alloc = a->alloc, .nalloc = a->nalloc, .patch = a->patch,
        .npatch = a->npatch, .alloc_desc = kb->desc,
        .gpuva = c->dev->gpuva,
    };
    st = k->dev.ops->render(k->dev.drv, &args, &kb->dmabuf);
    if (st != DDI_OK) {
        if (kb->dma_seg == &k->seg) {
            kquota_seg_free(k, p, dma);
        } else {
            vidmm_segment_free(kb->dma_seg, dma);
        }
        kquota_uncharge(k, p, KQ_BUFFERS, 1);
        kb->dmabuf.nalloc = 0;
        k->stats.render_refusals++;
        k->stats.last_refusal = st;
        return st;
    }
    kmem_render_list(k, kb);
    kb->used = true;
    kb->done = false;
    kb->seq = ++k->seq;
    kb->ctx = c;
    kb->dma_gpu = dma;
    for (unsigned i = 0; i < kb->dmabuf.nalloc; i++) {
        kb->alloc[i]->busy++;
    }
    c->inflight++;
    /* before vidsch_submit: the scheduler may elect it at once */
    kernel_mark(k, COPRO_MARK_QUEUE, c->engine, c->hw_id,
                (uint64_t)(uintptr_t)kb, kb->dmabuf.len_bytes);
    st = vidsch_submit(k->vs, c->vctx, &kb->dmabuf, kb->desc,
                       (uint64_t)(uintptr_t)kb);
    kernel_after_vidsch(k);
    if (st != DDI_OK) {
        kernel_mark(k, COPRO_MARK_DONE, c->engine, c->hw_id,
                    (uint64_t)(uintptr_t)kb, (uint64_t)(int64_t)st);
        kernel_buffer_free(k, kb);
        return st;
    }
    k->stats.renders++;
    return DDI_OK;
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

/* A free wait slot, counted as pending and charged to p: the caller
 * fills it. NULL and *st why not. */
struct kwait *kernel_new_wait(struct kproc *p, int *st)
{
    struct kernel *k = p->k;

    for (unsigned i = 0; i < KERNEL_MAX_WAITS; i++) {
        if (k->waits[i].kind == KWAIT_NONE) {
            *st = kquota_charge(k, p, KQ_WAITS, 1);
            if (*st != DDI_OK) {
                return NULL;
            }
            k->nwaits++;
            return &k->waits[i];
        }
    }
    *st = DDI_ENOMEM;
    return NULL;
}


int kapi_lock(struct kproc *p, uint32_t halloc, unsigned flags,
              volatile void **cpu)
{
    struct kalloc *a = get_alloc(p, halloc);
    const unsigned known = KAPI_LOCK_DONOTWAIT | KAPI_LOCK_IGNORESYNC;
    int st;

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (!cpu || !a->cpu_visible || (flags & ~known) || !(flags & known)) {
        return DDI_EINVAL;
    }
    if (!kiso_may(p, halloc, KAPI_ACCESS_WRITE)) {
        return DDI_EACCESS;     /* a lock maps it writable */
    }
    if (a->gv && !(flags & KAPI_LOCK_IGNORESYNC)) {
        return DDI_EINVAL;  /* no lists: only the caller knows GPU use */
    }
    if (!(flags & KAPI_LOCK_IGNORESYNC) &&
        !kernel_lock_ready(p->k, a, p->k->seq)) {
        return DDI_EBUSY;
    }
    st = kmem_lock(p->k, a, cpu);
    if (st == DDI_OK) {
        a->locks++;
        kexit_note_lock(p, halloc, 1);
    }
    return st;
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
    w = kernel_new_wait(p, &st);
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

int kapi_unlock(struct kproc *p, uint32_t halloc)
{
    struct kalloc *a = get_alloc(p, halloc);

    KCALL(p, KCALL_CHANGE);

    if (!a) {
        return DDI_EHANDLE;
    }
    /* per handle: only a lock this handle took (an opener cannot
     * release the owner's and let vidmm move it under its pointer) */
    if (a->locks == 0 || !kiso_lock_held(p, halloc)) {
        return DDI_EINVAL;
    }
    a->locks--;
    kmem_unlock(p->k, a);
    kexit_note_lock(p, halloc, -1);
    return DDI_OK;
}

/* ---- GPU-VA mode ---- */

static struct kdevice *get_gpuva_device(struct kproc *p, uint32_t h)
{
    struct kdevice *d = get_device(p, h);

    return d && d->gpuva ? d : NULL;
}

int kapi_create_device_gpuva(struct kproc *p, uint32_t *hdevice)
{
    struct kdevice *d;
    int st;

    KCALL(p, KCALL_CHANGE);

    if (!kproc_live(p) || !hdevice) {
        return DDI_EINVAL;
    }
    if (!p->k->gpuva.on) {
        return DDI_ENOTSUP;
    }
    st = kapi_create_device(p, hdevice);
    if (st != DDI_OK) {
        return st;
    }
    d = get_device(p, *hdevice);
    st = kgpuva_device_create(p->k, p, (unsigned)(d - p->k->devices));
    if (st != DDI_OK) {
        kapi_destroy_device(p, *hdevice);
        return st;
    }
    d->gpuva = true;
    return DDI_OK;
}

int kapi_gpu_va(struct kproc *p, uint32_t halloc, uint64_t *va)
{
    struct kalloc *a = get_alloc(p, halloc);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (!va || !a->gv) {
        return DDI_EINVAL;
    }
    *va = a->gv->va;
    return DDI_OK;
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
