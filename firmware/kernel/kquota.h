/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-process quotas on the kernel's pools [the per-process limits of
 * dxgkrnl: a process's allocations, contexts, sync objects, and what its
 * submissions hold in kernel memory, are charged to it].
 *
 * Every pool the kernel shares between processes (records of devices,
 * contexts, allocations, sync objects, DMA buffers in flight, CPU waits,
 * the scheduler's GPU signal and wait slots, presents queued on a
 * display source, vsync waits, shared names, grants, parameter buffers,
 * GPU-VA allocations and views; kernel/ktables.h lists every table and
 * which kind charges it) and every memory it hands out on a process's
 * behalf
 * (the kernel's VRAM segment: DMA buffers, save areas, sync values and,
 * with fixed placement, allocations; backing store in the page pool;
 * VRAM pinned for primaries: a pool of half of the VRAM applications
 * use, so that pins, which never move, leave the other half to
 * residency; GPU-VA VRAM held by referenced allocations, which
 * residency never takes back) is charged to the process that asked, and
 * given back when the kernel frees it, whenever that is (after the
 * process exited, once the GPU is done with it).
 *
 * Two numbers per pool and process:
 *  - the limit: a process never holds more; a call that would take it
 *    over fails with DDI_EQUOTA, to that process only;
 *  - the guarantee: pool / KERNEL_MAX_PROCS (or, if the processes
 *    before it took more than that, what they left when it was created),
 *    which no other process can take from it (of a pool only GPU-VA
 *    devices use, once it made one: kquota_gpuva_kind). A call is
 *    granted only if,
 *    after it, the pool still holds every other live process's unused
 *    guarantee; otherwise it fails with DDI_ENOMEM. So a process within
 *    its guarantee never sees ENOMEM however the others behave from then
 *    on, and one beyond it sees ENOMEM only while others use what is
 *    theirs.
 * Limits default to half of each pool, three quarters of the backing
 * store (kquota_set_limit lowers or raises them, never above the pool).
 *
 * Pure C (kernel/, host-tested in tests/unit/test-kernel-quota.c).
 */
#ifndef FW_KERNEL_KQUOTA_H
#define FW_KERNEL_KQUOTA_H

#include <stdbool.h>
#include <stdint.h>

struct kernel;
struct kproc;
struct kalloc;

enum kquota_kind {
    KQ_DEVICES,
    KQ_CONTEXTS,
    KQ_ALLOCS,          /* allocation records (created, not opened) */
    KQ_SYNCS,           /* sync object records */
    KQ_BUFFERS,         /* DMA buffers submitted and not retired */
    KQ_WAITS,           /* pending CPU waits and lock waits */
    KQ_GPU_SYNCS,       /* GPU signals and waits pending in vidsch */
    KQ_PRESENTS,        /* presents queued on a display source */
    KQ_KVRAM,           /* bytes of the kernel's VRAM segment */
    KQ_BACKING,         /* bytes of backing store (page pool) */
    KQ_PINNED,          /* bytes of VRAM pinned (primaries, views) */
    KQ_VIEWS,           /* GPU-VA views (kernel/kvamap.h) */
    KQ_VSYNC_WAITS,     /* pending vsync waits (kernel/kdisplay.h) */
    KQ_SHARED,          /* shared names of its objects (kshare.c) */
    KQ_GRANTS,          /* grants it gave (kernel/kisolate.h) */
    KQ_SCENE_PBS,       /* parameter-buffer records (kernel/kscene.h) */
    KQ_GPUVA_ALLOCS,    /* GPU-VA allocation records (kernel/kgpuva.h) */
    KQ_GPUVA_VRAM,      /* bytes of GPU-VA VRAM its referenced (made
                           resident, not evicted) allocations hold */
    KQ_GPUVA_APER,      /* bytes of the GPU-VA aperture window (each
                           allocation's backing is mapped there for
                           life) */
    KQ_COUNT,
};

struct kquota {
    uint64_t used[KQ_COUNT];
    uint64_t limit[KQ_COUNT];
    uint64_t reserve[KQ_COUNT];     /* its guarantee */
};

/* The pools' sizes, from the kernel's tables and segments: at
 * kernel_init (before any process). */
void kquota_init(struct kernel *k);

/* A new process's limits (the defaults) and nothing used. */
void kquota_proc_init(struct kernel *k, struct kproc *p);

/* Sets p's limit of kind (at most the pool). DDI_EINVAL otherwise. */
/* Whether p, about to make its first GPU-VA device, still has its
 * guarantee of every GPU-VA pool (they are kept only for processes in
 * GPU-VA mode): DDI_ENOMEM if others took it while it had none. */
int kquota_gpuva_admit(const struct kernel *k, const struct kproc *p);
int kquota_set_limit(struct kernel *k, struct kproc *p,
                     enum kquota_kind kind, uint64_t limit);

/* Takes n of kind for p: DDI_OK, DDI_EQUOTA (over p's limit) or
 * DDI_ENOMEM (the others' guarantees). Nothing changes on refusal. */
int kquota_charge(struct kernel *k, struct kproc *p, enum kquota_kind kind,
                  uint64_t n);
/* Counts n of kind for p without refusing: only for what a call was
 * granted already and gave back on the way (a GPU-VA reference a trim
 * callback dropped inside the MakeResident that takes it again). */
void kquota_recharge(struct kproc *p, enum kquota_kind kind, uint64_t n);
/* Gives n of kind back (what was charged). */
void kquota_uncharge(struct kernel *k, struct kproc *p,
                     enum kquota_kind kind, uint64_t n);

/* True when p holds nothing of any pool (its record may then go). */
bool kquota_empty(const struct kproc *p);

/* The kernel's VRAM segment through p's quota: vidmm_segment_alloc's
 * contract, but DDI_OK / DDI_EQUOTA / DDI_ENOMEM; free gives the
 * block's bytes back to p. */
int kquota_seg_alloc(struct kernel *k, struct kproc *p, uint64_t size,
                     uint64_t align, uint64_t *addr);
void kquota_seg_free(struct kernel *k, struct kproc *p, uint64_t addr);

/* An allocation's memory (kernel VRAM with fixed placement, backing
 * store, pinned VRAM for a primary), from its size and kind: charged to
 * a->owner at creation, given back when it is freed. */
int kquota_alloc_charge(struct kernel *k, struct kalloc *a);
void kquota_alloc_uncharge(struct kernel *k, struct kalloc *a);

/* GPU signals and waits: vidsch frees them itself, so what p holds is
 * counted afresh (its contexts' pending ones) before a new one. */
int kquota_gpu_sync(struct kernel *k, struct kproc *p);

const char *kquota_kind_name(enum kquota_kind kind);
/* Pools only GPU-VA devices use: a process keeps its guarantee of them
 * from its first GPU-VA device on (before, it could not use them). */
bool kquota_gpuva_kind(enum kquota_kind kind);
/* The size of kind's pool now (entries, or bytes). */
uint64_t kquota_pool(const struct kernel *k, enum kquota_kind kind);

#endif /* FW_KERNEL_KQUOTA_H */
