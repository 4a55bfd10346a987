/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kernel/kscene.h"

#include <stddef.h>

#include <copro/copro_cmd.h>
#include <copro/copro_tiler.h>

#include "kernel/kapi.h"
#include "kernel/kernel.h"
#include "kernel/kernel_internal.h"
#include "lib/string.h"

static void partial_work(void *arg);
static bool pb_live(struct kscene_pb *r);

void kscene_init(struct kernel *k)
{
    kitem_init(&k->scene.work, partial_work, k);
}

/* The record is dead and its fence unused: the slot may be taken. */
static bool slot_free(struct kernel *k, struct kscene_pb *r)
{
    return !r->pctx && !(r->used && pb_live(r)) &&
           !vidsch_sync_in_use(k->vs, &r->partial_fence);
}

/*
 * Gives the record up (its kernel context too); the fence stays. With
 * release (the device lives on, the parameter buffer was destroyed under
 * it), the fence is written up to what was asked: a geometry still held
 * on it is released, stops again and is refused, instead of waiting for
 * a render that will not come. Without (the device goes: its contexts
 * with it), nothing of it is released to run.
 */
static void pb_forget(struct kernel *k, struct kscene_pb *r, bool release)
{
    if (r->used) {
        kquota_uncharge(k, r->proc, KQ_SCENE_PBS, 1);
    }
    if (r->pctx) {
        kcontext_destroy(k, r->pctx);
        r->pctx = NULL;
    }
    r->used = false;
    r->partial_bytes = 0;
    r->partial_queued = false;
    if (release && r->partial_fence < r->partial_asked) {
        r->partial_fence = r->partial_asked;
        vidsch_sync_changed(k->vs);
    }
}

void kscene_device_gone(struct kernel *k, struct kdevice *dev)
{
    for (unsigned i = 0; i < KSCENE_MAX_PB; i++) {
        if (k->scene.pb[i].used && k->scene.pb[i].dev == dev) {
            pb_forget(k, &k->scene.pb[i], false);
        }
    }
}

/* The record still names a live allocation of its process at its VA:
 * one destroyed since (its handle gone or reused) is not trusted. */
static bool pb_live(struct kscene_pb *r)
{
    struct kalloc *a;
    uint64_t va;

    return r->used && r->proc && r->proc->used &&
           r->proc->pid == r->proc_id &&
           (a = get_alloc(r->proc, r->halloc)) &&
           kalloc_gpu_va(a, &va) == DDI_OK && va == r->pb.va;
}

/* What the process's parameter buffers may still grow by. */
static uint64_t budget_left(struct kernel *k, struct kproc *p)
{
    uint64_t sum = 0, budget = 0;

    for (unsigned i = 0; i < KSCENE_MAX_PB; i++) {
        struct kscene_pb *r = &k->scene.pb[i];

        if (r->proc == p && pb_live(r)) {
            sum += r->pb.size;
            budget = r->budget;
        }
    }
    return budget > sum ? budget - sum : 0;
}

/* The caller's live parameter buffer named halloc, NULL if none. */
static struct kscene_pb *find_pb(struct kproc *p, uint32_t halloc)
{
    struct kernel *k = p ? p->k : NULL;

    for (unsigned i = 0; k && i < KSCENE_MAX_PB; i++) {
        struct kscene_pb *r = &k->scene.pb[i];

        if (r->proc == p && r->halloc == halloc && pb_live(r)) {
            return r;
        }
    }
    return NULL;
}

/*
 * The shape of a partial render, before the DDI's checks: SET_TARGETs
 * (and NOPs) and one TILE_RENDER with COPRO_TILE_PARTIAL over this
 * parameter buffer and its tile count, nothing else. Whatever the
 * target, the device checks it is the scene's size and format, and the
 * process's page tables confine it to the process's own memory.
 */
static bool partial_shape(const struct kscene_pb *r, const uint32_t *cmd,
                          uint32_t bytes)
{
    unsigned renders = 0;

    for (uint32_t i = 0; i < bytes / 4;) {
        unsigned op = COPRO_PKT_OP(cmd[i]);
        unsigned flags = COPRO_PKT_FLAGS(cmd[i]);
        uint32_t len = COPRO_PKT_LEN(cmd[i]);

        if (!len || len > bytes / 4 - i ||
            (op != COPRO_OP_NOP && len != copro_packet_len(op))) {
            return false;
        }
        if (op == COPRO_OP_TILE_RENDER) {
            uint64_t pb = cmd[i + 1] | (uint64_t)cmd[i + 2] << 32;

            if (!(flags & COPRO_TILE_PARTIAL) || pb != r->pb.va ||
                cmd[i + 3] != r->tiles) {
                return false;
            }
            renders++;
        } else if (op != COPRO_OP_SET_TARGET && op != COPRO_OP_NOP) {
            return false;
        }
        i += len;
    }
    return renders == 1;
}

/*
 * Work item: the partial renders answered since it last ran, each on its
 * buffer's kernel context, with the fence's signal after it. One that
 * cannot be queued releases its geometry at once with the buffer marked
 * failed: the geometry stops again on the same primitive and that OOM
 * fails its context (vidsch must not hold it for ever).
 */
static void partial_work(void *arg)
{
    struct kernel *k = arg;

    for (unsigned i = 0; i < KSCENE_MAX_PB; i++) {
        struct kscene_pb *r = &k->scene.pb[i];
        struct kapi_render_args ra = {
            .cmd = r->partial, .cmd_bytes = r->partial_bytes,
        };
        int st = DDI_ELOST;

        if (!r->used || !r->partial_queued) {
            continue;
        }
        r->partial_queued = false;
        if (pb_live(r) && r->pctx && !r->pctx->destroying) {
            st = kbuffer_render(r->proc, r->pctx, &ra);
        }
        if (st == DDI_OK) {
            st = vidsch_signal(k->vs, r->pctx->vctx, &r->partial_fence,
                               r->partial_asked);
        }
        if (st != DDI_OK) {
            r->partial_failed = true;
            k->scene.partial_errors++;
            if (r->partial_fence < r->partial_asked) {
                r->partial_fence = r->partial_asked;
            }
            vidsch_sync_changed(k->vs);
        }
        kernel_after_vidsch(k);
    }
}

int kernel_scene_oom(void *os, uint64_t cookie, uint32_t context,
                     uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait)
{
    struct kernel *k = os;
    struct kbuffer *kb = (struct kbuffer *)(uintptr_t)cookie;
    const volatile struct copro_save_record *rec;
    struct copro_save_tiler st;
    struct kscene_pb *r = NULL;
    volatile struct copro_scene *h;
    volatile void *cpu;
    struct kalloc *a = NULL;
    struct kproc *p;
    enum vidmm_pb_answer ans;
    uint32_t new_size = 0;
    bool partial_ok;

    (void)save_addr;    /* the kernel's own record of it is used */
    k->scene.ooms++;
    if (kb < k->buffers || kb >= k->buffers + KERNEL_MAX_BUFFERS ||
        !kb->used || !kb->ctx || kb->ctx->hw_id != context) {
        k->scene.refused++;
        return VIDSCH_OOM_FAIL;
    }
    p = kb->ctx->proc;
    rec = vidmm_segment_cpu(&k->seg, kb->ctx->save_gpu);
    memcpy(&st, (const void *)rec->reserved, sizeof(st));
    for (unsigned i = 0; i < KSCENE_MAX_PB && !r; i++) {
        struct kscene_pb *x = &k->scene.pb[i];

        if (x->proc == p && x->pb.va == st.scene && pb_live(x)) {
            r = x;
        }
    }
    /* the scene is in a parameter buffer the kernel made (and on the
     * device: resident, so the CPU sees it where the GPU wrote it) */
    if (!r || !(st.flags & COPRO_SAVE_TILER_OOM) ||
        !(a = get_alloc(p, r->halloc)) ||
        kalloc_lock(p, r->halloc, a, KAPI_LOCK_IGNORESYNC, &cpu) != DDI_OK) {
        k->scene.refused++;
        return VIDSCH_OOM_FAIL;
    }
    h = cpu;
    /* a partial render: given, none on its way still (queued or not yet
     * retired: two geometry contexts on one buffer), nothing failed, and
     * vidsch can hold */
    partial_ok = wait && r->partial_bytes && r->pctx &&
                 !r->pctx->destroying && !r->partial_queued &&
                 r->partial_fence >= r->partial_asked && !r->partial_failed;
    if (r->dev->removed) {
        /* its device is gone (a partial render of it faulted): nothing
         * more is given to it, counted as vidmm would */
        r->pb.ooms++;
        r->pb.fails++;
        ans = VIDMM_PB_FAIL;
    } else {
        r->pb.no_partial = !partial_ok;
        ans = vidmm_pb_oom(&r->pb, h->used, need, budget_left(k, p),
                           &new_size);
    }
    if (ans == VIDMM_PB_GROW) {
        /* the pages are there (the reservation is committed): raising
         * the limit is the grow */
        h->pb_size = new_size;
        k->scene.grows++;
    } else if (ans == VIDMM_PB_PARTIAL) {
        r->partial_queued = true;
        wait->addr = &r->partial_fence;
        wait->value = ++r->partial_asked;
        k->scene.partials++;
        /* rendered from the work queue: vidsch is not to be called from
         * inside its upcall */
        kqueue_push(&k->ev.work, &k->scene.work);
    } else {
        k->scene.refused++;
    }
    kalloc_unlock(p, r->halloc, a);
    return ans == VIDMM_PB_GROW ? VIDSCH_OOM_RESUME
           : ans == VIDMM_PB_PARTIAL ? VIDSCH_OOM_PARTIAL : VIDSCH_OOM_FAIL;
}

int kscene_create_pb(struct kproc *p, struct kdevice *dev,
                     const struct kapi_scene_pb_desc *d, uint32_t *halloc,
                     uint64_t *va)
{
    struct kernel *k = p ? p->k : NULL;
    struct kscene_pb *slot = NULL;
    struct kapi_alloc_desc ad;
    struct kalloc *a;
    struct vidmm_pb pb;
    uint32_t h;
    uint64_t at;
    int st;

    if (!halloc || !va || !d) {
        return DDI_EINVAL;
    }
    if (!dev->gpuva) {
        return DDI_ENOTSUP;
    }
    /* every record whose allocation was destroyed is let go first (its
     * process's charge with it), whoever's it was */
    for (unsigned i = 0; i < KSCENE_MAX_PB; i++) {
        struct kscene_pb *r = &k->scene.pb[i];

        if (r->used && !pb_live(r)) {
            pb_forget(k, r, true);
        }
        if (!slot && slot_free(k, r)) {
            slot = r;
        }
    }
    /* checked before anything is made (va 0 stands for any 8-aligned) */
    st = vidmm_pb_init(&pb, 0, d->tiles, d->size, d->reserved, d->step);
    if (st != DDI_OK || d->budget < d->size) {
        return DDI_EINVAL;
    }
    /* a record of the kernel-wide table: within p's quota, never another
     * process's guarantee (issue 26 item 9) */
    st = kquota_charge(k, p, KQ_SCENE_PBS, 1);
    if (st != DDI_OK) {
        return st;
    }
    if (!slot) {
        /* a forgotten record's fence still in vidsch's hands */
        kquota_uncharge(k, p, KQ_SCENE_PBS, 1);
        return DDI_ENOMEM;
    }
    ad = (struct kapi_alloc_desc){
        .size = d->reserved, .cpu_visible = true, .zeroed = true,
    };
    st = kalloc_create(p, dev, &ad, &h);
    if (st != DDI_OK) {
        kquota_uncharge(k, p, KQ_SCENE_PBS, 1);
        return st;
    }
    a = get_alloc(p, h);
    st = a ? kalloc_gpu_va(a, &at) : DDI_EHANDLE;
    if (st == DDI_OK) {
        st = vidmm_pb_init(&pb, at, d->tiles, d->size, d->reserved,
                           d->step);
    }
    if (st != DDI_OK) {
        if (a) {
            kalloc_close(p, h, a);
        }
        kquota_uncharge(k, p, KQ_SCENE_PBS, 1);
        return st;
    }
    {
        /* the fence goes on from where the slot's last record left it */
        uint64_t fence = slot->partial_fence;

        *slot = (struct kscene_pb){
            .used = true, .proc = p, .proc_id = p->pid, .halloc = h,
            .dev = dev, .tiles = d->tiles, .pb = pb, .budget = d->budget,
            .partial_fence = fence, .partial_asked = fence,
        };
    }
    *halloc = h;
    *va = at;
    return DDI_OK;
}

int kscene_pb_stats(struct kproc *p, uint32_t halloc, struct vidmm_pb *out)
{
    struct kscene_pb *r = find_pb(p, halloc);

    if (!r || !out) {
        return r ? DDI_EINVAL : DDI_EHANDLE;
    }
    *out = r->pb;
    return DDI_OK;
}

int kscene_pb_partial(struct kproc *p, uint32_t halloc,
                      const struct kapi_scene_partial_desc *d)
{
    struct kscene_pb *r = find_pb(p, halloc);
    struct kernel *k;
    struct ddi_render_args args;
    int st;

    if (!r) {
        return DDI_EHANDLE;
    }
    k = p->k;
    if (r->dev->removed) {
        return DDI_ELOST;
    }
    if (!d || !d->cmd || !d->cmd_bytes || d->cmd_bytes % 4 ||
        d->cmd_bytes > sizeof(r->partial) ||
        !partial_shape(r, d->cmd, d->cmd_bytes)) {
        return DDI_EINVAL;
    }
    if (r->partial_queued || r->partial_fence < r->partial_asked) {
        return DDI_EBUSY;       /* one is on its way: not now */
    }
    if (d->engine >= k->caps.engines) {
        return DDI_EINVAL;
    }
    /* the DDI's checks, as a render of the process on that engine */
    k->scene.check = (struct ddi_dmabuf){
        .dw = k->scene.check_dw, .cap_bytes = sizeof(k->scene.check_dw),
    };
    args = (struct ddi_render_args){
        .engine = d->engine, .cmd = d->cmd, .cmd_bytes = d->cmd_bytes,
        .gpuva = true,
    };
    st = k->dev.ops->render(k->dev.drv, &args, &k->scene.check);
    if (st != DDI_OK) {
        return st;
    }
    if (r->pctx && (r->pctx->engine != d->engine ||
                    r->pctx->prio != d->prio)) {
        kcontext_destroy(k, r->pctx);
        r->pctx = NULL;
    }
    if (!r->pctx) {
        st = kcontext_create(p, r->dev, d->engine, d->prio, &r->pctx);
        if (st != DDI_OK) {
            r->pctx = NULL;
            r->partial_bytes = 0;
            return st;
        }
    }
    memcpy(r->partial, d->cmd, d->cmd_bytes);
    r->partial_bytes = d->cmd_bytes;
    r->partial_failed = false;
    return DDI_OK;
}
