/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, GPU-VA mode (WDDM 2.x): residency from each device's residency
 * list [D3DKMTMakeResident, D3DKMTEvict, D3DKMTSetVideoMemoryBudget... and
 * the trim notification of D3DKMTRegisterTrimNotification].
 *
 * In GPU-VA mode a DMA buffer carries no allocation list: the GPU reaches
 * memory through the process's page tables, so vidmm cannot learn at
 * schedule time what a buffer touches. The application states it instead:
 * every device keeps a residency list, and an allocation is guaranteed
 * resident (in the local segment, mapped at its VA) while any of its
 * owner's devices lists it. This module keeps those lists and decides
 * what has to move; the moves themselves (placement, paging buffers,
 * page-table updates through vidmm_gpuva) are the pager's, given at init.
 *
 * What residency guarantees (the contract, WDDM 2.0):
 *
 *  - Reference counts. MakeResident adds one reference per listed handle
 *    on that device; Evict takes one away. Two MakeResident need two
 *    Evict before the allocation may leave. Evicting an allocation the
 *    device does not hold a reference on is an error (DDI_EINVAL), as is
 *    evicting it more times than it was made resident; the call is
 *    checked whole first, so a refused call changes nothing.
 *  - While an allocation has a reference it is never paged out by
 *    residency: the only way it leaves is its own Evict or its
 *    destruction. Evict does not move anything either: an allocation with
 *    no reference stays where it is (cheap to make resident again) and
 *    becomes reclaimable, oldest unreferenced first.
 *  - MakeResident is all or nothing. On DDI_OK every listed allocation is
 *    (or is being made) resident, and *paging_fence is the value of the
 *    pager's paging fence to wait for before submitting work that uses
 *    them (0: nothing to wait for). WDDM returns E_PENDING and
 *    PagingFenceValue: submitting earlier may fault. On an error no
 *    reference changes and none of the listed allocations moves.
 *  - Budget (per process, bytes of its allocations resident in the local
 *    segment, referenced or not). It is soft: when a MakeResident would
 *    take the process over it, the process's trim callback is called first
 *    with the number of bytes it is asked to give up [TrimToBudget,
 *    NumBytesToTrim]; the application answers by Evict-ing inside the
 *    callback. Then residency pages out the process's own unreferenced
 *    allocations, oldest first, until the process fits its budget again
 *    or has none left; the request still proceeds if memory allows.
 *  - Over-commit of the local segment (the request needs more bytes than
 *    are free), in this order: (1) trim callbacks of every process over
 *    its budget, the caller included, each asked for its excess; (2) the
 *    caller's own unreferenced allocations are paged out, oldest first;
 *    (3) then other processes' unreferenced allocations (they are promised
 *    nothing, and a process that went idle must not hold memory forever);
 *    (4) if that still cannot make room, DDI_ENOMEM. Room is computed
 *    before anything is paged out, so a request that cannot fit pages
 *    nothing out. Referenced allocations are never taken from anyone.
 *
 * Trim callbacks run synchronously inside MakeResident; they may call
 * vidmm_res_evict (on any of the process's devices) and nothing else of
 * this module: MakeResident, creating or destroying allocations and
 * devices are refused there with DDI_EBUSY.
 *
 * Handles are the kernel's allocation handles (kernel/handle.h): an
 * allocation is known to residency together with its owning process, and
 * a device only ever finds its own process's allocations, so another
 * process's handle, a destroyed one or a made-up one is DDI_EHANDLE.
 *
 * No heap: allocations, device lists and the process and device tables
 * live in the caller's storage or in these structs. Pure C, no hardware:
 * unit-tested on the host (tests/unit/test-vidmm-residency.c).
 */
#ifndef FW_VIDMM_VIDMM_RESIDENCY_H
#define FW_VIDMM_VIDMM_RESIDENCY_H

#include <stdbool.h>
#include <stdint.h>

#define VIDMM_RES_MAX_PROCESSES 16
#define VIDMM_RES_MAX_DEVICES   32
#define VIDMM_RES_MAX_LIST      64      /* handles per MakeResident/Evict */

struct vidmm_res;
struct vidmm_res_process;

/*
 * The trim notification [D3DKMT_TRIMNOTIFICATION, TrimToBudget]: the
 * process should Evict about `bytes` bytes of its allocations.
 */
typedef void (*vidmm_res_trim_fn)(void *ctx, struct vidmm_res_process *p,
                                  uint64_t bytes);

struct vidmm_res_process {
    uint8_t id;                 /* the handle owner id (kernel/handle.h) */
    uint64_t budget;            /* bytes [D3DKMT_QUERYVIDEOMEMORYINFO
                                   Budget] */
    uint64_t resident_bytes;    /* its allocations in the local segment
                                   [CurrentUsage] */
    vidmm_res_trim_fn trim;     /* NULL: the process is never asked */
    void *trim_ctx;
    uint64_t trims;             /* notifications so far */
    uint64_t trimmed_bytes;     /* bytes it was asked for, in total */
    bool live;
};

/* An allocation as residency sees it. The memory manager's own record
 * (placement, VA) hangs off `mm`. */
struct vidmm_res_alloc {
    uint32_t handle;            /* the owner's allocation handle */
    struct vidmm_res_process *owner;
    uint64_t size;              /* bytes it takes in the local segment */
    uint32_t refs;              /* references over all owner's devices */
    bool resident;
    bool live;
    uint64_t paging_fence;      /* fence of its last page-in */
    uint64_t unref_seq;         /* when refs last fell to 0 (eviction
                                   order: smallest first) */
    void *mm;                   /* the memory manager's, opaque here */
};

/* One entry of a device's residency list. */
struct vidmm_res_entry {
    struct vidmm_res_alloc *alloc;
    uint32_t refs;              /* this device's MakeResident count */
};

/* [D3DKMT device] a device of a process, with its residency list. */
struct vidmm_res_device {
    struct vidmm_res_process *process;
    unsigned count;
    unsigned cap;
    struct vidmm_res_entry *entry;  /* cap entries, caller's storage */
    bool live;
};

/*
 * The memory manager's side: the moves. page_in brings a into the local
 * segment (placement, transfer, page-table update in a paging buffer) and
 * gives the paging fence value that signals when it is there; DDI_OK, or
 * DDI_ENOMEM if it found no room after all (fragmentation): the request
 * then fails cleanly. page_out takes a out of the local segment (to its
 * system-memory backing store, which the memory manager reserves at
 * creation, so it cannot fail) and gives its paging fence.
 *
 * in_use (optional, NULL: never): the GPU may still use a, because work
 * its owner submitted before the Evict has not retired [WDDM: VidMm
 * waits for the device's fences before it pages out an evicted
 * allocation]. Such an allocation is not paged out; a request that could
 * only fit by taking it fails with DDI_EBUSY (retry once the work
 * retired) instead of DDI_ENOMEM.
 *
 * admit (optional, NULL: always): p's request, the n allocations of
 * `req` (each once), would reference those of them no device of p
 * references yet (refs 0), which residency then never takes from it.
 * Asked once the trim
 * callbacks ran, before anything moves; a status other than DDI_OK
 * refuses the request with it, nothing changed. The memory manager's
 * owner keeps a quota there (kernel/kgpuva.c) and settles it after the
 * call, whatever its outcome.
 */
struct vidmm_res_pager {
    int (*page_in)(void *ctx, struct vidmm_res_alloc *a, uint64_t *fence);
    void (*page_out)(void *ctx, struct vidmm_res_alloc *a, uint64_t *fence);
    bool (*in_use)(void *ctx, struct vidmm_res_alloc *a);
    int (*admit)(void *ctx, struct vidmm_res_process *p,
                 struct vidmm_res_alloc *const *req, unsigned n);
    void *ctx;
};

struct vidmm_res_stats {
    uint64_t page_ins, page_outs;
    uint64_t bytes_in, bytes_out;
    uint64_t trim_calls;
    uint64_t enomem;
    uint64_t busy;              /* requests refused: memory still in use */
};

struct vidmm_res {
    uint64_t capacity;          /* bytes of the local segment residency
                                   may fill */
    uint64_t used;              /* resident bytes, all processes */
    struct vidmm_res_pager pager;
    unsigned alloc_cap;
    struct vidmm_res_alloc *alloc;      /* alloc_cap, caller's storage */
    struct vidmm_res_process *proc[VIDMM_RES_MAX_PROCESSES];
    struct vidmm_res_device *dev[VIDMM_RES_MAX_DEVICES];
    uint64_t seq;               /* unref_seq clock */
    uint64_t last_fence;        /* the newest paging fence seen */
    bool in_trim;               /* a trim callback is running */
    struct vidmm_res_stats stats;
};

/* Starts a manager of capacity bytes over alloc_storage[alloc_cap]. */
int vidmm_res_init(struct vidmm_res *r, uint64_t capacity,
                   const struct vidmm_res_pager *pager,
                   struct vidmm_res_alloc *alloc_storage, unsigned alloc_cap);

/* A process joins with a budget (0: the whole capacity) and its trim
 * callback (may be NULL). DDI_EINVAL for id 0 or a process already in,
 * DDI_ENOMEM when VIDMM_RES_MAX_PROCESSES are in. */
int vidmm_res_process_add(struct vidmm_res *r, struct vidmm_res_process *p,
                          uint8_t id, uint64_t budget,
                          vidmm_res_trim_fn trim, void *trim_ctx);

/* The process is gone: its devices are removed (their references
 * dropped), its allocations destroyed (paged out), and it leaves r.
 * DDI_EHANDLE if it is not r's, DDI_EBUSY from a trim callback. */
int vidmm_res_process_remove(struct vidmm_res *r, struct vidmm_res_process *p);

/* [D3DKMTSetVideoMemoryBudget...] a new budget; no trim happens until the
 * process's next MakeResident. */
void vidmm_res_set_budget(struct vidmm_res_process *p, uint64_t budget);

/* Bytes the process is over its budget, 0 if within [NumBytesToTrim]. */
uint64_t vidmm_res_over_budget(const struct vidmm_res_process *p);

/* A device of p with a residency list of cap entries in storage. */
int vidmm_res_device_add(struct vidmm_res *r, struct vidmm_res_device *d,
                         struct vidmm_res_process *p,
                         struct vidmm_res_entry *storage, unsigned cap);

/* Drops every reference the device holds (as many Evicts), then the
 * device. DDI_EHANDLE if it is not r's. */
int vidmm_res_device_remove(struct vidmm_res *r, struct vidmm_res_device *d);

/*
 * Makes allocation `handle` of process p known, size bytes, not resident
 * (in system memory); mm is the memory manager's record. *out (may be
 * NULL) gets residency's record. DDI_EINVAL for size 0 or a handle the
 * process already has, DDI_EHANDLE for a process not in r, DDI_ENOMEM
 * when the table is full.
 */
int vidmm_res_alloc_add(struct vidmm_res *r, struct vidmm_res_process *p,
                        uint32_t handle, uint64_t size, void *mm,
                        struct vidmm_res_alloc **out);

/* Destroys an allocation: off every residency list, paged out if
 * resident. DDI_EHANDLE if p has no such handle. */
int vidmm_res_alloc_remove(struct vidmm_res *r, struct vidmm_res_process *p,
                           uint32_t handle);

/* The process's allocation record for handle, NULL if none. */
struct vidmm_res_alloc *vidmm_res_alloc_find(struct vidmm_res *r,
                                             const struct vidmm_res_process *p,
                                             uint32_t handle);

/*
 * [D3DKMTMakeResident] adds one reference on device d for each of
 * handles[0 .. n) (a handle may repeat: one reference each), paging in
 * what is not resident. DDI_OK and *paging_fence (see the contract
 * above); DDI_EINVAL for n 0 or above VIDMM_RES_MAX_LIST or NULL
 * pointers, DDI_EHANDLE for a handle that is not d's process's (foreign,
 * destroyed, unknown), DDI_ENOMEM when the list has no room for the new
 * entries or the memory cannot be found, DDI_EBUSY from a trim callback
 * or when only memory the GPU may still use would make room (the
 * pager's in_use), the pager's admit's refusal. Nothing changes on an
 * error.
 */
int vidmm_res_make_resident(struct vidmm_res *r, struct vidmm_res_device *d,
                            const uint32_t *handles, unsigned n,
                            uint64_t *paging_fence);

/*
 * [D3DKMTEvict] takes one reference on device d away for each handle.
 * DDI_EHANDLE for a handle that is not the process's; DDI_EINVAL for a
 * handle the device holds fewer references on than the call names (Evict
 * without MakeResident). Nothing changes on an error. *bytes_to_trim (may
 * be NULL) gets vidmm_res_over_budget [NumBytesToTrim].
 */
int vidmm_res_evict(struct vidmm_res *r, struct vidmm_res_device *d,
                    const uint32_t *handles, unsigned n,
                    uint64_t *bytes_to_trim);

/* References device d holds on the allocation (0 if not on its list). */
uint32_t vidmm_res_device_refs(const struct vidmm_res_device *d,
                               const struct vidmm_res_alloc *a);

#endif /* FW_VIDMM_VIDMM_RESIDENCY_H */
