/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Display sources: present queues, flip on vsync, the vsync event, the
 * pointer (kdisplay.h). The display calls of the application API are
 * kapi.c's: they resolve the device's handle and come here.
 */
#include "kernel/kdisplay.h"

#include <stddef.h>

#include <copro/copro_cmd.h>

#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "kernel/kmem.h"

#define Q_INDEX(src, i)     (((src)->q_head + (i)) % KDISPLAY_QUEUE)

static struct ksource *source_on(struct kernel *k, unsigned source)
{
    if (source >= DDI_MAX_SOURCES || source >= k->caps.display.sources ||
        !k->display.src[source].on) {
        return NULL;
    }
    return &k->display.src[source];
}

const struct ksource *kdisplay_source(const struct kernel *k,
                                      unsigned source)
{
    return source_on((struct kernel *)k, source);
}

bool kdisplay_primary_fits(const struct kernel *k, uint64_t size)
{
    const struct ksource *src = kdisplay_source(k, 0);

    return src && size >= (uint64_t)src->mode.pitch * src->mode.height;
}

/* Drops a display reference; the allocation goes if nothing else holds
 * it. */
static void scanout_put(struct kernel *k, struct kalloc *a)
{
    if (a && a->scanout) {
        a->scanout--;
        kalloc_release(k, a);
    }
}

static void queue_deliver(struct kernel *k)
{
    kqueue_push(&k->ev.work, &k->display.deliver);
}

/* A present that will never reach the screen. */
static void present_fail(struct kernel *k, struct ksource *src,
                         struct kpresent *pr, int status)
{
    scanout_put(k, pr->alloc);
    pr->alloc = NULL;
    pr->sync = NULL;
    pr->state = KPRESENT_DONE;
    pr->result = (struct kapi_present_result){
        .status = status, .tag = pr->result.tag,
    };
    src->stats.failed++;
    queue_deliver(k);
}

/*
 * DPC level: hand the waiting presents whose primaries are drawn to the
 * driver, in order (a later present never overtakes an earlier one).
 */
static void display_dpc(void *arg)
{
    struct kernel *k = arg;

    for (unsigned s = 0; s < DDI_MAX_SOURCES; s++) {
        struct ksource *src = source_on(k, s);

        for (unsigned i = 0; src && i < src->q_count; i++) {
            struct kpresent *pr = &src->q[Q_INDEX(src, i)];
            struct ddi_flip_args fa;
            int st;

            if (pr->state != KPRESENT_WAITING) {
                continue;
            }
            if (pr->dev->removed) {
                present_fail(k, src, pr, DDI_ELOST);
                continue;
            }
            if (pr->sync && *pr->sync->cpu < pr->value) {
                break;      /* the GPU has not finished it */
            }
            fa = (struct ddi_flip_args){
                .source = s, .primary_addr = pr->alloc->gpu,
                .present_id = pr->id,
            };
            st = k->dev.ops->set_source_address(k->dev.drv, &fa);
            if (st == DDI_EBUSY) {
                src->stats.driver_busy++;
                break;      /* again at the next flip_done */
            }
            if (st != DDI_OK) {
                present_fail(k, src, pr, st);
                continue;
            }
            pr->state = KPRESENT_FLIPPING;
        }
    }
}

bool kdisplay_waiting(const struct kernel *k)
{
    for (unsigned s = 0; s < DDI_MAX_SOURCES; s++) {
        const struct ksource *src = source_on((struct kernel *)k, s);

        for (unsigned i = 0; src && i < src->q_count; i++) {
            if (src->q[Q_INDEX(src, i)].state == KPRESENT_WAITING) {
                return true;
            }
        }
    }
    return false;
}

void kdisplay_kick(struct kernel *k)
{
    for (unsigned s = 0; s < DDI_MAX_SOURCES; s++) {
        struct ksource *src = source_on(k, s);

        for (unsigned i = 0; src && i < src->q_count; i++) {
            if (src->q[Q_INDEX(src, i)].state == KPRESENT_WAITING) {
                kqueue_push(&k->ev.dpc, &k->display.dpc);
                return;
            }
        }
    }
}

void kdisplay_flip_done(struct kernel *k, const struct ddi_flip_done *f)
{
    struct ksource *src = source_on(k, f->source);
    struct kpresent *pr = NULL;

    if (!src) {
        return;
    }
    /* Flips complete in the order they were handed over: the first
     * FLIPPING entry is this one. */
    for (unsigned i = 0; i < src->q_count && !pr; i++) {
        struct kpresent *q = &src->q[Q_INDEX(src, i)];

        if (q->state == KPRESENT_FLIPPING) {
            pr = q;
        }
    }
    if (!pr || pr->id != f->present_id) {
        src->stats.unexpected++;
        return;
    }
    pr->state = KPRESENT_DONE;
    pr->result = (struct kapi_present_result){
        .status = f->status, .tag = pr->result.tag, .vsync = f->vsync,
        .time = f->time, .missed = f->missed,
    };
    /* The old picture is no longer read; the new one holds the present's
     * reference for as long as it stays on screen. A refused flip shows
     * black: nothing is read. */
    scanout_put(k, src->shown);
    if (f->status == DDI_OK) {
        src->shown = pr->alloc;
        src->shown_addr = f->primary_addr;
        src->stats.flips++;
        src->stats.missed += f->missed;
    } else {
        src->shown = NULL;
        src->shown_addr = 0;
        scanout_put(k, pr->alloc);
        src->stats.refused++;
    }
    pr->alloc = NULL;
    pr->sync = NULL;
    queue_deliver(k);
    /* the driver has room again */
    kdisplay_kick(k);
}

/*
 * The first present still waiting for its primary, if it waits on another
 * process's fence for too long (KDISPLAY_FOREIGN_WAIT_VSYNCS): it fails,
 * and the display DPC hands the ones behind it over.
 */
static void expire_foreign_wait(struct kernel *k, struct ksource *src)
{
    for (unsigned i = 0; i < src->q_count; i++) {
        struct kpresent *pr = &src->q[Q_INDEX(src, i)];

        if (pr->state != KPRESENT_WAITING) {
            continue;
        }
        if (pr->sync && *pr->sync->cpu < pr->value && pr->sync->dev &&
            pr->sync->dev->proc != pr->proc &&
            src->vsyncs - pr->queued_vsync > KDISPLAY_FOREIGN_WAIT_VSYNCS) {
            present_fail(k, src, pr, DDI_ETIMEOUT);
            kdisplay_kick(k);
        }
        return;
    }
}

void kdisplay_vsync(struct kernel *k, unsigned source, uint64_t count,
                    uint64_t time)
{
    struct ksource *src = source_on(k, source);

    if (!src) {
        return;
    }
    src->vsyncs = count;
    src->vsync_time = time;
    expire_foreign_wait(k, src);
    if (k->display.nvwaits) {
        queue_deliver(k);
    }
}

/* Passive level: present results in order, then vsync events. */
static void display_deliver(void *arg)
{
    struct kernel *k = arg;

    for (unsigned s = 0; s < DDI_MAX_SOURCES; s++) {
        struct ksource *src = &k->display.src[s];

        while (src->q_count && src->q[src->q_head].state == KPRESENT_DONE) {
            struct kpresent pr = src->q[src->q_head];

            /* free the slot first: the callback may present again */
            src->q[src->q_head] = (struct kpresent){ 0 };
            src->q_head = (src->q_head + 1) % KDISPLAY_QUEUE;
            src->q_count--;
            kquota_uncharge(k, pr.proc, KQ_PRESENTS, 1);
            if (pr.fn) {
                pr.fn(pr.arg, &pr.result);
            }
        }
    }
    for (unsigned i = 0; i < KDISPLAY_VSYNC_WAITS && k->display.nvwaits;
         i++) {
        struct kvsync_wait w = k->display.vwait[i];
        const struct ksource *src;
        int st = DDI_OK;

        if (!w.fn) {
            continue;
        }
        src = &k->display.src[w.source];
        if (w.fail) {
            st = w.fail;
        } else if (w.dev->removed) {
            st = DDI_ELOST;
        } else if (src->vsyncs <= w.after) {
            continue;
        }
        k->display.vwait[i].fn = NULL;
        k->display.nvwaits--;
        kquota_uncharge(k, w.proc, KQ_VSYNC_WAITS, 1);
        if (st == DDI_OK) {
            w.fn(w.arg, DDI_OK, src->vsyncs, src->vsync_time);
        } else {
            w.fn(w.arg, st, 0, 0);
        }
    }
}

void kdisplay_init(struct kernel *k)
{
    k->display = (struct kdisplay){ 0 };
    kitem_init(&k->display.dpc, display_dpc, k);
    kitem_init(&k->display.deliver, display_deliver, k);
}

const char *kdisplay_start(struct kernel *k, unsigned source, uint32_t width,
                           uint32_t height)
{
    const struct ddi_display_caps *c = &k->caps.display;
    struct ksource *src;
    struct ddi_display_mode mode = {
        .width = width, .height = height, .pitch = width * 4,
        .format = COPRO_FMT_XRGB8888,
    };
    uint64_t bytes = (uint64_t)mode.pitch * height, gpu;
    volatile uint64_t *cpu;

    if (source >= DDI_MAX_SOURCES || source >= c->sources ||
        !k->dev.ops->commit_vidpn || !k->dev.ops->set_source_address) {
        return "the GPU has no such display source";
    }
    if (!width || !height || width > c->max_width || height > c->max_height) {
        return "mode beyond the display's limits";
    }
    src = &k->display.src[source];
    if (src->on) {
        return "source already on";
    }
    if (!vidmm_segment_alloc(&k->seg, bytes, KERNEL_ALLOC_ALIGN, &gpu)) {
        return "no VRAM for the blank primary";
    }
    cpu = (volatile uint64_t *)vidmm_segment_cpu(&k->seg, gpu);
    for (uint64_t i = 0; i < bytes / 8; i++) {
        cpu[i] = 0;
    }
    if (k->dev.ops->commit_vidpn(k->dev.drv, source, &mode, gpu) != DDI_OK) {
        vidmm_segment_free(&k->seg, gpu);
        return "the driver refused the mode";
    }
    *src = (struct ksource){
        .on = true, .mode = mode, .blank_gpu = gpu, .shown_addr = gpu,
        .next_id = 1,
    };
    return NULL;
}

void kdisplay_sync_gone(struct kernel *k, const struct ksync *s)
{
    for (unsigned n = 0; n < DDI_MAX_SOURCES; n++) {
        struct ksource *src = &k->display.src[n];

        for (unsigned i = 0; i < src->q_count; i++) {
            struct kpresent *pr = &src->q[Q_INDEX(src, i)];

            if (pr->state == KPRESENT_WAITING && pr->sync == s) {
                present_fail(k, src, pr, DDI_EHANDLE);
            }
        }
    }
}

void kdisplay_device_gone(struct kernel *k, const struct kdevice *dev)
{
    for (unsigned n = 0; n < DDI_MAX_SOURCES; n++) {
        struct ksource *src = &k->display.src[n];

        if (src->owner == dev) {
            src->owner = NULL;
        }

        for (unsigned i = 0; i < src->q_count; i++) {
            struct kpresent *pr = &src->q[Q_INDEX(src, i)];

            if (pr->state == KPRESENT_WAITING && pr->dev == dev) {
                present_fail(k, src, pr, DDI_EHANDLE);
            }
        }
    }
    for (unsigned i = 0; i < KDISPLAY_VSYNC_WAITS; i++) {
        struct kvsync_wait *w = &k->display.vwait[i];

        if (w->fn && w->dev == dev) {
            w->fail = DDI_EHANDLE;
            queue_deliver(k);
        }
    }
}

/* ---- the display calls' work (kapi.c resolved the device) ---- */

int kdisplay_info(struct kernel *k, unsigned source,
                  struct kapi_display_info *out)
{
    const struct ksource *src;

    if (!out) {
        return DDI_EINVAL;
    }
    src = source_on(k, source);
    if (!src) {
        return DDI_ENOTSUP;
    }
    *out = (struct kapi_display_info){
        .width = src->mode.width, .height = src->mode.height,
        .pitch = src->mode.pitch, .format = src->mode.format,
        .refresh_hz = k->caps.display.refresh_hz,
        .vsync_period_ns = k->caps.display.vsync_period_ns,
        .pointer = k->caps.display.pointer &&
                   k->dev.ops->set_pointer_shape &&
                   k->dev.ops->set_pointer_position,
        .pointer_size = DDI_POINTER_SIZE,
        .vsyncs = src->vsyncs, .vsync_time = src->vsync_time,
        .flips = src->stats.flips, .missed = src->stats.missed,
    };
    return DDI_OK;
}

int kdisplay_present(struct kproc *p, struct kdevice *dev,
                     const struct kapi_present *a)
{
    struct kalloc *alloc;
    struct ksync *sync = NULL;
    struct ksource *src;
    struct kpresent *pr;
    int st;

    if (dev->removed) {
        return DDI_ELOST;
    }
    if (!a) {
        return DDI_EINVAL;
    }
    alloc = handle_lookup(&p->handles, a->hprimary, HANDLE_ALLOCATION);
    if (a->hsync) {
        sync = handle_lookup(&p->handles, a->hsync, HANDLE_SYNC);
    }
    if (!alloc || (a->hsync && !sync)) {
        return DDI_EHANDLE;
    }
    src = source_on(p->k, a->source);
    if (!src) {
        return DDI_ENOTSUP;
    }
    if (!a->fn || !alloc->primary ||
        alloc->size < (uint64_t)src->mode.pitch * src->mode.height) {
        return DDI_EINVAL;
    }
    /* only the owner queues: nobody else can show a picture, or hold
     * the owner's flips behind a present that never becomes ready */
    if (src->owner != dev) {
        return DDI_EACCESS;
    }
    if (src->q_count == KDISPLAY_QUEUE) {
        return DDI_ENOMEM;
    }
    st = kquota_charge(p->k, p, KQ_PRESENTS, 1);
    if (st != DDI_OK) {
        return st;
    }
    pr = &src->q[Q_INDEX(src, src->q_count)];
    *pr = (struct kpresent){
        .state = KPRESENT_WAITING, .proc = p, .dev = dev, .alloc = alloc,
        .sync = sync, .value = a->value, .queued_vsync = src->vsyncs,
        .id = src->next_id++,
        .fn = a->fn, .arg = a->arg, .result = { .tag = a->tag },
    };
    src->q_count++;
    alloc->scanout++;
    src->stats.presents++;
    kdisplay_kick(p->k);
    return DDI_OK;
}

int kdisplay_set_owner(struct kproc *p, struct kdevice *dev, unsigned source)
{
    struct ksource *src;

    if (dev->removed) {
        return DDI_ELOST;
    }
    src = source_on(p->k, source);
    if (!src) {
        return DDI_ENOTSUP;
    }
    if (!kiso_privileged(p, KAPI_PRIV_DISPLAY)) {
        return DDI_EACCESS;
    }
    if (src->owner != dev) {
        /* the previous owner's presents not yet handed over go */
        for (unsigned i = 0; i < src->q_count; i++) {
            struct kpresent *pr = &src->q[Q_INDEX(src, i)];

            if (pr->state == KPRESENT_WAITING) {
                present_fail(p->k, src, pr, DDI_EACCESS);
            }
        }
        src->owner = dev;
    }
    return DDI_OK;
}

int kdisplay_wait_vsync(struct kproc *p, struct kdevice *dev, unsigned source,
                        kapi_vsync_fn fn, void *arg)
{
    const struct ksource *src;
    int st;

    if (dev->removed) {
        return DDI_ELOST;
    }
    if (!fn) {
        return DDI_EINVAL;
    }
    src = source_on(p->k, source);
    if (!src) {
        return DDI_ENOTSUP;
    }
    /* a slot of the kernel-wide table: within p's quota, never another
     * process's guarantee (issue 26 item 7) */
    st = kquota_charge(p->k, p, KQ_VSYNC_WAITS, 1);
    if (st != DDI_OK) {
        return st;
    }
    for (unsigned i = 0; i < KDISPLAY_VSYNC_WAITS; i++) {
        struct kvsync_wait *w = &p->k->display.vwait[i];

        if (!w->fn) {
            *w = (struct kvsync_wait){
                .fn = fn, .proc = p, .dev = dev, .source = source,
                .after = src->vsyncs, .arg = arg,
            };
            p->k->display.nvwaits++;
            return DDI_OK;
        }
    }
    kquota_uncharge(p->k, p, KQ_VSYNC_WAITS, 1);    /* charges = slots */
    return DDI_ENOMEM;
}

int kdisplay_set_pointer(struct kproc *p, struct kdevice *dev,
                         const struct kapi_pointer *ptr)
{
    const struct ddi_ops *ops;
    struct kalloc *shape = NULL;
    struct ksource *src;
    int st;

    if (dev->removed) {
        return DDI_ELOST;
    }
    if (!ptr) {
        return DDI_EINVAL;
    }
    if (ptr->hshape) {
        shape = handle_lookup(&p->handles, ptr->hshape, HANDLE_ALLOCATION);
        if (!shape) {
            return DDI_EHANDLE;
        }
    }
    src = source_on(p->k, ptr->source);
    ops = p->k->dev.ops;
    if (!src || !p->k->caps.display.pointer || !ops->set_pointer_shape ||
        !ops->set_pointer_position) {
        return DDI_ENOTSUP;
    }
    if (shape && shape->size < DDI_POINTER_BYTES) {
        return DDI_EINVAL;
    }
    if (src->owner != dev) {
        return DDI_EACCESS;
    }
    if (shape && shape != src->pointer) {
        uint64_t addr;

        /* the display reads it from now on: vidmm must not move it */
        st = kmem_scanout_addr(p->k, shape, &addr);
        if (st != DDI_OK) {
            return st;
        }
        st = ops->set_pointer_shape(p->k->dev.drv, ptr->source, addr);
        if (st != DDI_OK) {
            return st;
        }
        shape->scanout++;
        scanout_put(p->k, src->pointer);
        src->pointer = shape;
    }
    return ops->set_pointer_position(p->k->dev.drv, ptr->source, ptr->x,
                                     ptr->y, ptr->visible && src->pointer);
}
