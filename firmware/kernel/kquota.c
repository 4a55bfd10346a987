/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-process quotas: kquota.h says what and why.
 */
#include "kernel/kquota.h"

#include <stddef.h>

#include "kernel/kdisplay.h"
#include "kernel/kernel.h"

static const char *const kind_names[KQ_COUNT] = {
    [KQ_DEVICES] = "devices", [KQ_CONTEXTS] = "contexts",
    [KQ_ALLOCS] = "allocations", [KQ_SYNCS] = "sync objects",
    [KQ_BUFFERS] = "DMA buffers", [KQ_WAITS] = "CPU waits",
    [KQ_GPU_SYNCS] = "GPU signals and waits", [KQ_PRESENTS] = "presents",
    [KQ_KVRAM] = "kernel VRAM", [KQ_BACKING] = "backing store",
    [KQ_PINNED] = "pinned VRAM", [KQ_VIEWS] = "GPU-VA views",
    [KQ_VSYNC_WAITS] = "vsync waits", [KQ_SHARED] = "shared names",
    [KQ_GRANTS] = "grants", [KQ_SCENE_PBS] = "parameter buffers",
    [KQ_GPUVA_ALLOCS] = "GPU-VA allocations",
    [KQ_GPUVA_VRAM] = "GPU-VA VRAM referenced",
    [KQ_GPUVA_APER] = "GPU-VA aperture",
};

const char *kquota_kind_name(enum kquota_kind kind)
{
    return (unsigned)kind < KQ_COUNT ? kind_names[kind] : "?";
}

/* What the kernel's own use of its segment is (paging buffers' packets,
 * the display's black primaries, ...): what no process was charged for. */
static uint64_t kvram_kernel_own(const struct kernel *k)
{
    uint64_t charged = 0;

    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        if (k->procs[i].used) {
            charged += k->procs[i].quota.used[KQ_KVRAM];
        }
    }
    return k->seg.used_bytes > charged ? k->seg.used_bytes - charged : 0;
}

/* The size of kind's pool now. Fixed tables are fixed; the kernel's VRAM
 * is what the kernel itself does not hold. */
uint64_t kquota_pool(const struct kernel *k, enum kquota_kind kind)
{
    const struct page_pool *pp = k->pool ? k->pool
                                 : k->gpuva.on ? k->gpuva.cfg.pool : NULL;

    if (kind == KQ_KVRAM) {
        uint64_t own = kvram_kernel_own(k);

        return k->seg.size > own ? k->seg.size - own : 0;
    }
    if (kind == KQ_BACKING) {
        /* vidmm's page pool, or GPU-VA mode's (started after init) */
        return pp ? (uint64_t)pp->pages * VIDMM_PAGE_SIZE : 0;
    }
    if (kind == KQ_GPUVA_VRAM) {
        /* what residency pages into (GPU-VA mode, started after init) */
        return k->gpuva.on ? k->gpuva.res.capacity : 0;
    }
    if (kind == KQ_GPUVA_APER) {
        return k->gpuva.on ? k->gpuva.aper.size : 0;
    }
    return k->quota_pool[kind];
}

void kquota_init(struct kernel *k)
{
    uint64_t *q = k->quota_pool;

    q[KQ_DEVICES] = KERNEL_MAX_DEVICES;
    q[KQ_CONTEXTS] = KERNEL_MAX_CONTEXTS;
    q[KQ_ALLOCS] = KERNEL_MAX_ALLOCS;
    q[KQ_SYNCS] = KERNEL_MAX_SYNCS;
    q[KQ_BUFFERS] = KERNEL_MAX_BUFFERS;
    q[KQ_WAITS] = KERNEL_MAX_WAITS;
    /* the scheduler's table less what DMA buffers and both pagers'
     * buffers can hold of it */
    q[KQ_GPU_SYNCS] = KERNEL_SCHED_BUFFERS - KERNEL_MAX_BUFFERS -
                      KERNEL_MAX_PAGING - KGPUVA_MAX_PAGING;
    q[KQ_PRESENTS] = KDISPLAY_QUEUE;
    q[KQ_KVRAM] = k->seg.size;  /* less the kernel's: kquota_pool() */
    q[KQ_BACKING] = 0;                  /* kquota_pool() */
    /* what all processes may pin together: half of the VRAM residency
     * works in, so pins (which never move) cannot starve everyone's
     * buffers of VRAM */
    q[KQ_PINNED] = kernel_app_vram_bytes(k) / 2;
    q[KQ_VIEWS] = KVAMAP_MAX;
    q[KQ_VSYNC_WAITS] = KDISPLAY_VSYNC_WAITS;
    q[KQ_SHARED] = KERNEL_MAX_SHARED;
    q[KQ_GRANTS] = KISOLATE_GRANTS;
    q[KQ_SCENE_PBS] = KSCENE_MAX_PB;
    q[KQ_GPUVA_ALLOCS] = KGPUVA_MAX_ALLOCS;
    q[KQ_GPUVA_VRAM] = 0;               /* kquota_pool() */
    q[KQ_GPUVA_APER] = 0;               /* kquota_pool() */
}

/* Whether o keeps its guarantee of kind now: pools only GPU-VA devices
 * use (their records, VRAM and aperture, parameter buffers, views) are
 * kept for processes in GPU-VA mode (from their first GPU-VA device
 * on), not wasted on the others, which can never use them. */
bool kquota_gpuva_kind(enum kquota_kind kind)
{
    switch (kind) {
    case KQ_GPUVA_ALLOCS:
    case KQ_GPUVA_VRAM:
    case KQ_GPUVA_APER:
    case KQ_SCENE_PBS:
    case KQ_VIEWS:
        return true;
    default:
        return false;
    }
}

static bool keeps(const struct kernel *k, const struct kproc *o,
                  enum kquota_kind kind)
{
    return !kquota_gpuva_kind(kind) || kgpuva_proc_on(k, o);
}

/* What the live processes other than p use and keep for themselves of
 * kind: *used, and *held, their guarantees not used yet. */
static void others(const struct kernel *k, const struct kproc *p,
                   enum kquota_kind kind, uint64_t *used, uint64_t *held)
{
    *used = *held = 0;
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        const struct kproc *o = &k->procs[i];

        if (!o->used || o == p) {
            continue;
        }
        *used += o->quota.used[kind];
        if (!o->exiting && o->quota.used[kind] < o->quota.reserve[kind] &&
            keeps(k, o, kind)) {
            *held += o->quota.reserve[kind] - o->quota.used[kind];
        }
    }
}

void kquota_proc_init(struct kernel *k, struct kproc *p)
{
    for (unsigned i = 0; i < KQ_COUNT; i++) {
        uint64_t size = kquota_pool(k, i), used, held;

        p->quota.used[i] = 0;
        p->quota.reserve[i] = 0;
        p->quota.limit[i] = size / 2 ? size / 2 : size;
        if (i == KQ_BACKING) {
            /* system memory backing oversubscribed VRAM: one working
             * set may be most of it (split's 1.5x-VRAM buffers) */
            p->quota.limit[i] = size / 4 * 3;
        }
        /* its guarantee: its share, or what the others left of the pool
         * when it came (what they took already is theirs) */
        others(k, p, i, &used, &held);
        if (size > used + held) {
            p->quota.reserve[i] = size - used - held;
            if (p->quota.reserve[i] > size / KERNEL_MAX_PROCS) {
                p->quota.reserve[i] = size / KERNEL_MAX_PROCS;
            }
        }
    }
}

int kquota_gpuva_admit(const struct kernel *k, const struct kproc *p)
{
    for (unsigned i = 0; i < KQ_COUNT; i++) {
        uint64_t size = kquota_pool(k, i), used, held, mine;

        if (!kquota_gpuva_kind(i)) {
            continue;
        }
        /* its guarantee was not kept while it had no GPU-VA device: if
         * the others took it meanwhile, say so now rather than fail its
         * first MakeResident (issue 26's third review) */
        others(k, p, i, &used, &held);
        mine = p->quota.used[i] > p->quota.reserve[i] ? p->quota.used[i]
                                                      : p->quota.reserve[i];
        if (used + held + mine > size) {
            return DDI_ENOMEM;
        }
    }
    return DDI_OK;
}

int kquota_set_limit(struct kernel *k, struct kproc *p,
                     enum kquota_kind kind, uint64_t limit)
{
    if (!k || !p || (unsigned)kind >= KQ_COUNT ||
        limit > kquota_pool(k, kind)) {
        return DDI_EINVAL;
    }
    p->quota.limit[kind] = limit;
    return DDI_OK;
}

/* A refused charge, noted (kernel.h: quota_denials). */
static int denied(struct kernel *k, enum kquota_kind kind, int status)
{
    k->stats.quota_denials++;
    k->stats.quota_last_kind = kind;
    k->stats.quota_last_status = status;
    return status;
}

int kquota_charge(struct kernel *k, struct kproc *p, enum kquota_kind kind,
                  uint64_t n)
{
    uint64_t size = kquota_pool(k, kind), used, held;

    if (p->quota.used[kind] + n > p->quota.limit[kind]) {
        k->stats.quota_refusals++;
        return denied(k, kind, DDI_EQUOTA);
    }
    /* every other live process's unused guarantee stays free for it */
    others(k, p, kind, &used, &held);
    if (used + p->quota.used[kind] + n + held > size) {
        return denied(k, kind, DDI_ENOMEM);
    }
    p->quota.used[kind] += n;
    return DDI_OK;
}

void kquota_recharge(struct kproc *p, enum kquota_kind kind, uint64_t n)
{
    if (p) {
        p->quota.used[kind] += n;
    }
}

void kquota_uncharge(struct kernel *k, struct kproc *p,
                     enum kquota_kind kind, uint64_t n)
{
    if (!p) {
        return;
    }
    if (p->quota.used[kind] < n) {
        k->stats.quota_underflows++;    /* a bookkeeping bug: never */
        n = p->quota.used[kind];
    }
    p->quota.used[kind] -= n;
    if (p->exiting && kquota_empty(p)) {
        /* its record may go now (kexit_reap) */
        kqueue_push(&k->ev.work, &k->reap_work);
    }
}

bool kquota_empty(const struct kproc *p)
{
    for (unsigned i = 0; i < KQ_COUNT; i++) {
        /* GPU syncs are counted afresh from live contexts only */
        if (i != KQ_GPU_SYNCS && p->quota.used[i]) {
            return false;
        }
    }
    return true;
}

int kquota_seg_alloc(struct kernel *k, struct kproc *p, uint64_t size,
                     uint64_t align, uint64_t *addr)
{
    int st = kquota_charge(k, p, KQ_KVRAM, size);

    if (st != DDI_OK) {
        return st;
    }
    if (!vidmm_segment_alloc(&k->seg, size, align, addr)) {
        kquota_uncharge(k, p, KQ_KVRAM, size);
        return DDI_ENOMEM;
    }
    /* the block may be larger than asked (rounding): charge all of it */
    p->quota.used[KQ_KVRAM] += vidmm_segment_block_size(&k->seg, *addr) -
                               size;
    return DDI_OK;
}

void kquota_seg_free(struct kernel *k, struct kproc *p, uint64_t addr)
{
    kquota_uncharge(k, p, KQ_KVRAM, vidmm_segment_block_size(&k->seg, addr));
    vidmm_segment_free(&k->seg, addr);
}

/* What an allocation of a's kind costs, by kind. */
static void alloc_cost(const struct kernel *k, const struct kalloc *a,
                       uint64_t cost[KQ_COUNT])
{
    uint64_t pages = (a->size + VIDMM_PAGE_SIZE - 1) /
                     VIDMM_PAGE_SIZE * VIDMM_PAGE_SIZE;

    for (unsigned i = 0; i < KQ_COUNT; i++) {
        cost[i] = 0;
    }
    cost[KQ_ALLOCS] = 1;
    if (!a->owner_gpuva && !k->vm) {
        /* fixed placement: a block of the kernel's segment */
        cost[KQ_KVRAM] = (a->size + KERNEL_ALLOC_ALIGN - 1) &
                         ~(uint64_t)(KERNEL_ALLOC_ALIGN - 1);
    }
    if (a->owner_gpuva || k->vm) {
        cost[KQ_BACKING] = pages;       /* its run of the page pool */
        if (a->primary) {
            cost[KQ_PINNED] = pages;    /* in VRAM for life */
        }
    }
}

int kquota_alloc_charge(struct kernel *k, struct kalloc *a)
{
    uint64_t cost[KQ_COUNT];

    alloc_cost(k, a, cost);
    for (unsigned i = 0; i < KQ_COUNT; i++) {
        int st = cost[i] ? kquota_charge(k, a->owner, i, cost[i]) : DDI_OK;

        if (st != DDI_OK) {
            while (i--) {
                kquota_uncharge(k, a->owner, i, cost[i]);
            }
            return st;
        }
    }
    return DDI_OK;
}

void kquota_alloc_uncharge(struct kernel *k, struct kalloc *a)
{
    uint64_t cost[KQ_COUNT];

    alloc_cost(k, a, cost);
    for (unsigned i = 0; i < KQ_COUNT; i++) {
        if (cost[i]) {
            kquota_uncharge(k, a->owner, i, cost[i]);
        }
    }
}

int kquota_gpu_sync(struct kernel *k, struct kproc *p)
{
    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        k->procs[i].quota.used[KQ_GPU_SYNCS] = 0;
    }
    for (unsigned i = 0; i < KERNEL_MAX_CONTEXTS; i++) {
        const struct kcontext *c = &k->contexts[i];

        if (c->used && c->proc) {
            c->proc->quota.used[KQ_GPU_SYNCS] += vidsch_ctx_syncs(c->vctx);
        }
    }
    /* vidsch counts the new one from now on */
    return kquota_charge(k, p, KQ_GPU_SYNCS, 1);
}
