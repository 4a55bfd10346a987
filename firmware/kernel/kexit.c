/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Process exit [what dxgkrnl does when a process's last handle to the
 * adapter closes: DxgkDestroyProcess]. kapi_process_exit:
 *
 *  1. the process is told nothing more: its CPU waits and lock waits are
 *     dropped (no callback), its presents' and vsync waits' callbacks
 *     are cut, its lost-device callback is forgotten;
 *  2. the sync objects it created and others still hold are abandoned:
 *     other processes' CPU waits on them fail with DDI_EABANDONED (not
 *     DDI_ELOST: their devices are fine; blame follows guilt), and their
 *     value goes to UINT64_MAX (as D3D12 completes a removed device's
 *     fences), so no GPU wait of another process hangs on it for ever;
 *  3. every device of it is destroyed (kapi_destroy_device): its
 *     contexts' queued buffers are cancelled (reported lost) and a
 *     buffer on the GPU is preempted (vidsch_ctx_destroy), its
 *     allocations are freed once no buffer in flight uses them, its sync
 *     objects once no context may still wait on them, shared objects
 *     (created or opened) drop one reference each; GPU-VA devices give
 *     their residency back and the process's address space is recycled
 *     (kgpuva_proc_exit);
 *  4. every handle left (none, once its devices are gone) is closed.
 *
 * The record itself stays until nothing is charged to it any more (its
 * last buffer retired, its last present shown, ...: kquota_empty); the
 * reaper frees it then (kexit_reap), and its id may be reused.
 */
#include "kernel/kexit.h"

#include <stddef.h>

#include "kernel/kapi.h"
#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kquota.h"

uint8_t kexit_new_proc_id(struct kernel *k)
{
    for (unsigned n = 0; n < HANDLE_MAX_OWNER; n++) {
        uint8_t id = k->next_proc_id;
        bool taken = false;

        k->next_proc_id = (uint8_t)(id == HANDLE_MAX_OWNER ? 1 : id + 1);
        for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
            taken |= k->procs[i].used && k->procs[i].id == id;
        }
        if (id && !taken) {
            return id;
        }
    }
    return 0;
}

void kexit_note_open(struct kproc *p, uint32_t h, struct kdevice *dev)
{
    unsigned i = (h & HANDLE_MAX_SLOTS) - 1;

    if (i < KERNEL_PROC_HANDLES) {
        p->opened[i].h = h;
        p->opened[i].dev = dev;
    }
}

struct kdevice *kexit_opened_on(const struct kproc *p, uint32_t h)
{
    unsigned i = (h & HANDLE_MAX_SLOTS) - 1;

    /* the whole handle (generation included): a slot reused since by a
     * created object is not an opened one */
    return i < KERNEL_PROC_HANDLES && p->opened[i].h == h ? p->opened[i].dev
                                                          : NULL;
}

void kexit_handle_gone(struct kproc *p, uint32_t h)
{
    unsigned i = (h & HANDLE_MAX_SLOTS) - 1;

    if (i < KERNEL_PROC_HANDLES && p->opened[i].h == h) {
        p->opened[i].h = 0;
        p->opened[i].dev = NULL;
    }
    if (i < KERNEL_PROC_HANDLES && p->locked[i].h == h) {
        p->locked[i].h = 0;
        p->locked[i].n = 0;
    }
}

void kexit_note_lock(struct kproc *p, uint32_t h, int delta)
{
    unsigned i = (h & HANDLE_MAX_SLOTS) - 1;

    if (i >= KERNEL_PROC_HANDLES) {
        return;
    }
    if (p->locked[i].h != h) {
        p->locked[i].h = h;     /* a slot's earlier handle is closed */
        p->locked[i].n = 0;
    }
    if (delta > 0) {
        p->locked[i].n++;
    } else if (p->locked[i].n) {
        p->locked[i].n--;
    }
}

unsigned kexit_take_locks(struct kproc *p, uint32_t h)
{
    unsigned i = (h & HANDLE_MAX_SLOTS) - 1, n;

    if (i >= KERNEL_PROC_HANDLES || p->locked[i].h != h) {
        return 0;
    }
    n = p->locked[i].n;
    p->locked[i].n = 0;
    return n;
}

static void no_present(void *arg, const struct kapi_present_result *r)
{
    (void)arg;
    (void)r;
}

static void no_vsync(void *arg, int status, uint64_t vsyncs, uint64_t time)
{
    (void)arg;
    (void)status;
    (void)vsyncs;
    (void)time;
}

/* Step 1: nothing of the kernel calls into the process any more. */
static void silence(struct kernel *k, struct kproc *p)
{
    for (unsigned i = 0; i < KERNEL_MAX_WAITS; i++) {
        struct kwait *w = &k->waits[i];

        if (w->kind != KWAIT_NONE && w->proc == p) {
            w->kind = KWAIT_NONE;
            k->nwaits--;
            kquota_uncharge(k, p, KQ_WAITS, 1);
        }
    }
    for (unsigned n = 0; n < DDI_MAX_SOURCES; n++) {
        struct ksource *src = &k->display.src[n];

        for (unsigned i = 0; i < KDISPLAY_QUEUE; i++) {
            if (src->q[i].proc == p && src->q[i].fn) {
                src->q[i].fn = no_present;
            }
        }
    }
    for (unsigned i = 0; i < KDISPLAY_VSYNC_WAITS; i++) {
        struct kvsync_wait *w = &k->display.vwait[i];

        if (w->fn && w->proc == p) {
            w->fn = no_vsync;
        }
    }
    p->lost_fn = NULL;
    /* its timers: an exited process's code never runs again (its
     * callback would call with its process pointer, which names the
     * next process once the record is reused) */
    ktimer_cancel_owned(&k->ev.timers, p->pid);
}

/* Step 2: its sync objects that outlive it are abandoned. */
static void abandon_syncs(struct kernel *k, struct kproc *p)
{
    bool moved = false;

    for (unsigned i = 0; i < KERNEL_MAX_SYNCS; i++) {
        struct ksync *s = &k->syncs[i];

        if (!s->used || s->zombie || s->dev->proc != p) {
            continue;
        }
        for (unsigned j = 0; j < KERNEL_MAX_WAITS; j++) {
            struct kwait *w = &k->waits[j];

            if (w->kind == KWAIT_SYNC && w->u.sync.sync == s) {
                w->fail = DDI_EABANDONED;
            }
        }
        *s->cpu = UINT64_MAX;
        s->abandoned = true;    /* later waits too (kapi_wait_cpu) */
        moved = true;
    }
    if (moved) {
        vidsch_sync_changed(k->vs);
        kernel_after_vidsch(k);
        kqueue_push(&k->ev.work, &k->deliver_work);
    }
}

/*
 * The exit closes every handle as the process's own calls would, through
 * the objects' functions (kapi_process_exit's class check covers them):
 * each handle is resolved again when its turn comes, since closing one
 * may have closed others.
 */
static void destroy_device(void *arg, uint32_t h, void *obj)
{
    struct kdevice *dev = get_device(arg, h);

    (void)obj;
    if (dev) {
        kdevice_destroy(arg, h, dev);
    }
}

static void close_handle(void *arg, uint32_t h, void *obj)
{
    struct kproc *p = arg;
    struct kcontext *c;
    struct kalloc *a;
    struct ksync *s;

    (void)obj;
    switch (handle_type_of(h)) {
    case HANDLE_CONTEXT:
        c = get_context(p, h);
        if (c) {
            kcontext_close(p, h, c);
        }
        break;
    case HANDLE_ALLOCATION:
        a = get_alloc(p, h);
        if (a) {
            kalloc_close(p, h, a);
        }
        break;
    case HANDLE_SYNC:
        s = get_sync(p, h);
        if (s) {
            ksync_close(p, h, s);
        }
        break;
    default:
        break;
    }
}

int kexit_process(struct kproc *p)
{
    struct kernel *k;

    if (!p || !p->used || p->exiting) {
        return DDI_EINVAL;
    }
    k = p->k;
    p->exiting = true;
    k->stats.processes_exited++;
    /* every unmap and page-out of the exit in one paging buffer (one per
     * view or device would take them all, and the rest would wait) */
    kgpuva_bulk(k, true);
    silence(k, p);
    /* what was granted to it dies with it (its pid is never reused
     * either: a later process is never taken for it) */
    kiso_revoke_process(k, p->pid);
    abandon_syncs(k, p);
    handle_for_each(&p->handles, HANDLE_DEVICE, destroy_device, p);
    handle_for_each(&p->handles, HANDLE_NONE, close_handle, p);
    kgpuva_proc_exit(k, p);
    kgpuva_bulk(k, false);
    kqueue_push(&k->ev.work, &k->reap_work);
    return DDI_OK;
}

void kexit_reap(struct kernel *k)
{
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        struct kproc *p = &k->procs[i];

        /* nothing charged, and nothing of its GPU-VA space pending (its
         * slot's space goes to the next process of the record) */
        if (p->used && p->exiting && kquota_empty(p) &&
            !kgpuva_slot_busy(k, p)) {
            *p = (struct kproc){ 0 };
            k->stats.processes_freed++;
        }
    }
}

void kernel_census(const struct kernel *k, struct kernel_census *c)
{
    *c = (struct kernel_census){
        .seg_blocks = k->seg.count, .seg_bytes = k->seg.used_bytes,
        .vm_vram = k->vm ? vidmm_vram_used(k->vm) : 0,
        /* ranges of freed allocations waiting for their unmap are free
         * in all but name: the next paging buffer unmaps them */
        .vm_aperture = k->vm ? vidmm_aperture_used(k->vm) -
                               vidmm_aperture_unmapping(k->vm) : 0,
        .pool_free = k->pool ? k->pool->free : 0,
        .sched_idle = vidsch_idle(k->vs), .waits = k->nwaits,
    };
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        c->procs += k->procs[i].used;
        c->handles += k->procs[i].used ? k->procs[i].handles.used : 0;
    }
    for (unsigned i = 0; i < KERNEL_MAX_DEVICES; i++) {
        c->devices += k->devices[i].used;
    }
    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
        c->contexts += k->contexts[i].used;
    }
    for (unsigned i = 0; i < KERNEL_MAX_ALLOCS; i++) {
        c->allocs += k->allocs[i].used;
    }
    for (unsigned i = 0; i < KERNEL_MAX_SYNCS; i++) {
        c->syncs += k->syncs[i].used;
    }
    for (unsigned i = 0; i < KERNEL_MAX_BUFFERS; i++) {
        c->buffers += k->buffers[i].used;
    }
    for (unsigned i = 0; i < DDI_MAX_SOURCES; i++) {
        c->presents += k->display.src[i].q_count;
    }
    {
        unsigned n;
        const struct ktable *t = ktables(&n);

        for (unsigned i = 0; i < n; i++) {
            c->tables[i] = t[i].count ? t[i].count(k) : 0;
        }
    }
}

const char *kernel_census_diff(const struct kernel_census *a,
                               const struct kernel_census *b)
{
#define KC_DIFF(f) if (a->f != b->f) { return #f; }
    KC_DIFF(procs) KC_DIFF(devices) KC_DIFF(contexts) KC_DIFF(allocs)
    KC_DIFF(syncs) KC_DIFF(buffers) KC_DIFF(waits) KC_DIFF(handles)
    KC_DIFF(presents) KC_DIFF(seg_blocks) KC_DIFF(seg_bytes)
    KC_DIFF(vm_vram) KC_DIFF(vm_aperture) KC_DIFF(pool_free)
    KC_DIFF(sched_idle)
#undef KC_DIFF
    {
        unsigned n;
        const struct ktable *t = ktables(&n);

        for (unsigned i = 0; i < n; i++) {
            if (a->tables[i] != b->tables[i]) {
                return t[i].field;
            }
        }
    }
    return "";
}
