/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, GPU-VA mode: residency lists, budgets and trims. The contract is
 * in vidmm_residency.h; this file follows it step by step.
 */
#include "vidmm/vidmm_residency.h"

#include <stddef.h>

#include "ddi/ddi.h"

/* ---- lookups ---- */

static bool process_known(const struct vidmm_res *r,
                          const struct vidmm_res_process *p)
{
    for (unsigned i = 0; p && i < VIDMM_RES_MAX_PROCESSES; i++) {
        if (r->proc[i] == p) {
            return true;
        }
    }
    return false;
}

static bool device_known(const struct vidmm_res *r,
                         const struct vidmm_res_device *d)
{
    for (unsigned i = 0; d && i < VIDMM_RES_MAX_DEVICES; i++) {
        if (r->dev[i] == d) {
            return true;
        }
    }
    return false;
}

struct vidmm_res_alloc *vidmm_res_alloc_find(struct vidmm_res *r,
                                             const struct vidmm_res_process *p,
                                             uint32_t handle)
{
    if (!r || !p || handle == 0) {
        return NULL;
    }
    /* Matching the owner as well as the handle is what makes another
     * process's handle unknown here, even if the values were equal. */
    for (unsigned i = 0; i < r->alloc_cap; i++) {
        struct vidmm_res_alloc *a = &r->alloc[i];

        if (a->live && a->owner == p && a->handle == handle) {
            return a;
        }
    }
    return NULL;
}

static int entry_index(const struct vidmm_res_device *d,
                       const struct vidmm_res_alloc *a)
{
    for (unsigned i = 0; i < d->count; i++) {
        if (d->entry[i].alloc == a) {
            return (int)i;
        }
    }
    return -1;
}

uint32_t vidmm_res_device_refs(const struct vidmm_res_device *d,
                               const struct vidmm_res_alloc *a)
{
    int i;

    if (!d || !a) {
        return 0;
    }
    i = entry_index(d, a);
    return i < 0 ? 0 : d->entry[i].refs;
}

static void entry_drop(struct vidmm_res_device *d, unsigned i)
{
    /* order on the list means nothing: fill the hole with the last */
    d->entry[i] = d->entry[--d->count];
    d->entry[d->count].alloc = NULL;
    d->entry[d->count].refs = 0;
}

/* ---- moves ---- */

static void unreference(struct vidmm_res *r, struct vidmm_res_alloc *a,
                        uint32_t n)
{
    a->refs -= n;
    if (a->refs == 0) {
        a->unref_seq = ++r->seq;
    }
}

static void page_out(struct vidmm_res *r, struct vidmm_res_alloc *a)
{
    uint64_t fence = 0;

    r->pager.page_out(r->pager.ctx, a, &fence);
    if (fence > r->last_fence) {
        r->last_fence = fence;
    }
    a->resident = false;
    r->used -= a->size;
    a->owner->resident_bytes -= a->size;
    r->stats.page_outs++;
    r->stats.bytes_out += a->size;
}

static int page_in(struct vidmm_res *r, struct vidmm_res_alloc *a)
{
    uint64_t fence = 0;
    int err = r->pager.page_in(r->pager.ctx, a, &fence);

    if (err != DDI_OK) {
        return err;
    }
    if (fence > r->last_fence) {
        r->last_fence = fence;
    }
    a->resident = true;
    a->paging_fence = fence;
    r->used += a->size;
    a->owner->resident_bytes += a->size;
    r->stats.page_ins++;
    r->stats.bytes_in += a->size;
    return DDI_OK;
}

/* The handles of one call, each distinct allocation once with how many
 * times it was named. */
struct request {
    unsigned n;
    struct vidmm_res_alloc *alloc[VIDMM_RES_MAX_LIST];
    uint32_t count[VIDMM_RES_MAX_LIST];
};

static bool in_request(const struct request *q,
                       const struct vidmm_res_alloc *a)
{
    for (unsigned i = 0; i < q->n; i++) {
        if (q->alloc[i] == a) {
            return true;
        }
    }
    return false;
}

static int gather(struct vidmm_res *r, const struct vidmm_res_process *p,
                  const uint32_t *handles, unsigned n, struct request *q)
{
    q->n = 0;
    for (unsigned i = 0; i < n; i++) {
        struct vidmm_res_alloc *a = vidmm_res_alloc_find(r, p, handles[i]);
        unsigned j;

        if (!a) {
            return DDI_EHANDLE;
        }
        for (j = 0; j < q->n && q->alloc[j] != a; j++) {
        }
        if (j == q->n) {
            q->alloc[q->n] = a;
            q->count[q->n++] = 0;
        }
        q->count[j]++;
    }
    return DDI_OK;
}

/* Which unreferenced allocations a reclaim pass may take. */
enum reclaim_from { RECLAIM_OWN, RECLAIM_OTHERS };

/* The pager's in_use: work queued before the Evict may still use it. */
static bool busy(const struct vidmm_res *r, struct vidmm_res_alloc *a)
{
    return r->pager.in_use && r->pager.in_use(r->pager.ctx, a);
}

/* with_busy: count allocations the GPU may still use too (to tell "not
 * now" from "never"). */
static bool reclaimable(const struct vidmm_res *r, struct vidmm_res_alloc *a,
                        const struct vidmm_res_process *p,
                        enum reclaim_from from, const struct request *q,
                        bool with_busy)
{
    if (!a->live || !a->resident || a->refs || in_request(q, a) ||
        (!with_busy && busy(r, a))) {
        return false;
    }
    return from == RECLAIM_OWN ? a->owner == p : a->owner != p;
}

/* The oldest unreferenced allocation a pass may take, NULL if none. */
static struct vidmm_res_alloc *oldest(struct vidmm_res *r,
                                      const struct vidmm_res_process *p,
                                      enum reclaim_from from,
                                      const struct request *q)
{
    struct vidmm_res_alloc *best = NULL;

    for (unsigned i = 0; i < r->alloc_cap; i++) {
        struct vidmm_res_alloc *a = &r->alloc[i];

        if (reclaimable(r, a, p, from, q, false) &&
            (!best || a->unref_seq < best->unref_seq)) {
            best = a;
        }
    }
    return best;
}

static uint64_t reclaimable_bytes(const struct vidmm_res *r,
                                  const struct vidmm_res_process *p,
                                  const struct request *q, bool with_busy)
{
    uint64_t bytes = 0;

    for (unsigned i = 0; i < r->alloc_cap; i++) {
        struct vidmm_res_alloc *a = &r->alloc[i];

        if (reclaimable(r, a, p, RECLAIM_OWN, q, with_busy) ||
            reclaimable(r, a, p, RECLAIM_OTHERS, q, with_busy)) {
            bytes += a->size;
        }
    }
    return bytes;
}

static void notify_trim(struct vidmm_res *r, struct vidmm_res_process *p,
                        uint64_t bytes)
{
    if (!p->trim || bytes == 0) {
        return;
    }
    p->trims++;
    p->trimmed_bytes += bytes;
    r->stats.trim_calls++;
    /* The callback may Evict (that only drops references) but may not
     * create, destroy or make resident: the request being served holds
     * pointers to allocations and counted the list's room. */
    r->in_trim = true;
    p->trim(p->trim_ctx, p, bytes);
    r->in_trim = false;
}

/* ---- setup ---- */

int vidmm_res_init(struct vidmm_res *r, uint64_t capacity,
                   const struct vidmm_res_pager *pager,
                   struct vidmm_res_alloc *alloc_storage, unsigned alloc_cap)
{
    if (!r || !pager || !pager->page_in || !pager->page_out ||
        !alloc_storage || !alloc_cap) {
        return DDI_EINVAL;
    }
    *r = (struct vidmm_res){
        .capacity = capacity,
        .pager = *pager,
        .alloc_cap = alloc_cap,
        .alloc = alloc_storage,
    };
    for (unsigned i = 0; i < alloc_cap; i++) {
        alloc_storage[i] = (struct vidmm_res_alloc){ 0 };
    }
    return DDI_OK;
}

int vidmm_res_process_add(struct vidmm_res *r, struct vidmm_res_process *p,
                          uint8_t id, uint64_t budget,
                          vidmm_res_trim_fn trim, void *trim_ctx)
{
    int slot = -1;

    if (!r || !p || id == 0) {
        return DDI_EINVAL;
    }
    if (r->in_trim) {
        return DDI_EBUSY;
    }
    for (unsigned i = 0; i < VIDMM_RES_MAX_PROCESSES; i++) {
        if (r->proc[i] == p || (r->proc[i] && r->proc[i]->id == id)) {
            return DDI_EINVAL;
        }
        if (!r->proc[i] && slot < 0) {
            slot = (int)i;
        }
    }
    if (slot < 0) {
        return DDI_ENOMEM;
    }
    *p = (struct vidmm_res_process){
        .id = id,
        .budget = budget ? budget : r->capacity,
        .trim = trim,
        .trim_ctx = trim_ctx,
        .live = true,
    };
    r->proc[slot] = p;
    return DDI_OK;
}

void vidmm_res_set_budget(struct vidmm_res_process *p, uint64_t budget)
{
    if (p) {
        p->budget = budget;
    }
}

uint64_t vidmm_res_over_budget(const struct vidmm_res_process *p)
{
    if (!p || p->resident_bytes <= p->budget) {
        return 0;
    }
    return p->resident_bytes - p->budget;
}

int vidmm_res_device_add(struct vidmm_res *r, struct vidmm_res_device *d,
                         struct vidmm_res_process *p,
                         struct vidmm_res_entry *storage, unsigned cap)
{
    int slot = -1;

    if (!r || !d || !storage || !cap) {
        return DDI_EINVAL;
    }
    if (r->in_trim) {
        return DDI_EBUSY;
    }
    if (!process_known(r, p)) {
        return DDI_EHANDLE;
    }
    for (unsigned i = 0; i < VIDMM_RES_MAX_DEVICES; i++) {
        if (r->dev[i] == d) {
            return DDI_EINVAL;
        }
        if (!r->dev[i] && slot < 0) {
            slot = (int)i;
        }
    }
    if (slot < 0) {
        return DDI_ENOMEM;
    }
    *d = (struct vidmm_res_device){
        .process = p, .cap = cap, .entry = storage, .live = true,
    };
    for (unsigned i = 0; i < cap; i++) {
        storage[i] = (struct vidmm_res_entry){ 0 };
    }
    r->dev[slot] = d;
    return DDI_OK;
}

int vidmm_res_device_remove(struct vidmm_res *r, struct vidmm_res_device *d)
{
    if (!r || !d) {
        return DDI_EINVAL;
    }
    if (r->in_trim) {
        return DDI_EBUSY;
    }
    if (!device_known(r, d)) {
        return DDI_EHANDLE;
    }
    while (d->count) {
        unreference(r, d->entry[0].alloc, d->entry[0].refs);
        entry_drop(d, 0);
    }
    for (unsigned i = 0; i < VIDMM_RES_MAX_DEVICES; i++) {
        if (r->dev[i] == d) {
            r->dev[i] = NULL;
        }
    }
    d->live = false;
    return DDI_OK;
}

int vidmm_res_alloc_add(struct vidmm_res *r, struct vidmm_res_process *p,
                        uint32_t handle, uint64_t size, void *mm,
                        struct vidmm_res_alloc **out)
{
    if (!r || size == 0 || handle == 0) {
        return DDI_EINVAL;
    }
    if (r->in_trim) {
        return DDI_EBUSY;
    }
    if (!process_known(r, p)) {
        return DDI_EHANDLE;
    }
    if (vidmm_res_alloc_find(r, p, handle)) {
        return DDI_EINVAL;
    }
    for (unsigned i = 0; i < r->alloc_cap; i++) {
        struct vidmm_res_alloc *a = &r->alloc[i];

        if (!a->live) {
            *a = (struct vidmm_res_alloc){
                .handle = handle, .owner = p, .size = size, .live = true,
                .mm = mm,
            };
            if (out) {
                *out = a;
            }
            return DDI_OK;
        }
    }
    return DDI_ENOMEM;
}

int vidmm_res_alloc_remove(struct vidmm_res *r, struct vidmm_res_process *p,
                           uint32_t handle)
{
    struct vidmm_res_alloc *a;

    if (!r) {
        return DDI_EINVAL;
    }
    if (r->in_trim) {
        return DDI_EBUSY;
    }
    a = vidmm_res_alloc_find(r, p, handle);
    if (!a) {
        return DDI_EHANDLE;
    }
    /* Destroying implies evicting it from every list [DestroyAllocation
     * of a resident allocation]. */
    for (unsigned i = 0; i < VIDMM_RES_MAX_DEVICES; i++) {
        struct vidmm_res_device *d = r->dev[i];
        int e = d ? entry_index(d, a) : -1;

        if (e >= 0) {
            entry_drop(d, (unsigned)e);
        }
    }
    a->refs = 0;
    if (a->resident) {
        page_out(r, a);
    }
    a->live = false;
    return DDI_OK;
}

int vidmm_res_process_remove(struct vidmm_res *r, struct vidmm_res_process *p)
{
    if (!r || !p) {
        return DDI_EINVAL;
    }
    if (r->in_trim) {
        return DDI_EBUSY;
    }
    if (!process_known(r, p)) {
        return DDI_EHANDLE;
    }
    for (unsigned i = 0; i < VIDMM_RES_MAX_DEVICES; i++) {
        if (r->dev[i] && r->dev[i]->process == p) {
            vidmm_res_device_remove(r, r->dev[i]);
        }
    }
    for (unsigned i = 0; i < r->alloc_cap; i++) {
        struct vidmm_res_alloc *a = &r->alloc[i];

        if (a->live && a->owner == p) {
            vidmm_res_alloc_remove(r, p, a->handle);
        }
    }
    for (unsigned i = 0; i < VIDMM_RES_MAX_PROCESSES; i++) {
        if (r->proc[i] == p) {
            r->proc[i] = NULL;
        }
    }
    p->live = false;
    return DDI_OK;
}

/* ---- MakeResident / Evict ---- */

static unsigned new_entries(const struct vidmm_res_device *d,
                            const struct request *q)
{
    unsigned n = 0;

    for (unsigned i = 0; i < q->n; i++) {
        n += entry_index(d, q->alloc[i]) < 0;
    }
    return n;
}

static uint64_t bytes_to_page_in(const struct request *q)
{
    uint64_t bytes = 0;

    for (unsigned i = 0; i < q->n; i++) {
        if (!q->alloc[i]->resident) {
            bytes += q->alloc[i]->size;
        }
    }
    return bytes;
}

/* Over-commit step (1): every process over its budget is asked for its
 * excess; p's excess counts what the request would add. */
static void trim_over_budget(struct vidmm_res *r, struct vidmm_res_process *p,
                             uint64_t needed, bool p_notified)
{
    for (unsigned i = 0; i < VIDMM_RES_MAX_PROCESSES; i++) {
        struct vidmm_res_process *o = r->proc[i];
        uint64_t use;

        if (!o || (o == p && p_notified)) {
            continue;
        }
        use = o->resident_bytes + (o == p ? needed : 0);
        if (use > o->budget) {
            notify_trim(r, o, use - o->budget);
        }
    }
}

int vidmm_res_make_resident(struct vidmm_res *r, struct vidmm_res_device *d,
                            const uint32_t *handles, unsigned n,
                            uint64_t *paging_fence)
{
    struct request q;
    struct vidmm_res_process *p;
    struct vidmm_res_alloc *a;
    uint64_t needed, fence = 0;
    bool p_notified = false;
    bool brought[VIDMM_RES_MAX_LIST];
    unsigned done;
    int err;

    if (!r || !d || !handles || !paging_fence || n == 0 ||
        n > VIDMM_RES_MAX_LIST) {
        return DDI_EINVAL;
    }
    if (r->in_trim) {
        return DDI_EBUSY;
    }
    if (!device_known(r, d)) {
        return DDI_EHANDLE;
    }
    p = d->process;
    err = gather(r, p, handles, n, &q);
    if (err != DDI_OK) {
        return err;
    }
    for (unsigned i = 0; i < q.n; i++) {
        if (vidmm_res_device_refs(d, q.alloc[i]) > UINT32_MAX - q.count[i]) {
            return DDI_EINVAL;
        }
    }
    if (new_entries(d, &q) > d->cap - d->count) {
        return DDI_ENOMEM;
    }
    needed = bytes_to_page_in(&q);

    /* Trim notifications first: the application chooses what to give up
     * (it knows what its next frames use), so the OS asks before it
     * takes anything. */
    if (p->resident_bytes + needed > p->budget) {
        notify_trim(r, p, p->resident_bytes + needed - p->budget);
        p_notified = true;
    }
    if (r->used + needed > r->capacity) {
        trim_over_budget(r, p, needed, p_notified);
    }
    /* The callbacks may have emptied list entries; room only grows, but
     * an evicted entry of the request itself must come back. */
    if (new_entries(d, &q) > d->cap - d->count) {
        return DDI_ENOMEM;
    }
    /* What it may reference (the owner's quota), now that the trims gave
     * back what they could */
    if (r->pager.admit) {
        err = r->pager.admit(r->pager.ctx, p, q.alloc, q.n);
        if (err != DDI_OK) {
            return err;
        }
    }
    /* Decide before moving anything: a request that cannot fit must not
     * cost anybody their memory. */
    if (r->used + needed > r->capacity &&
        r->used + needed - reclaimable_bytes(r, p, &q, false) >
            r->capacity) {
        /* memory the GPU may still use would do: not now, but later */
        if (r->used + needed - reclaimable_bytes(r, p, &q, true) <=
            r->capacity) {
            r->stats.busy++;
            return DDI_EBUSY;
        }
        r->stats.enomem++;
        return DDI_ENOMEM;
    }
    /* Back to budget with the process's own unreferenced allocations. */
    while (p->resident_bytes + needed > p->budget &&
           (a = oldest(r, p, RECLAIM_OWN, &q))) {
        page_out(r, a);
    }
    /* Room in the segment: own unreferenced first, then others'. */
    while (r->used + needed > r->capacity &&
           (a = oldest(r, p, RECLAIM_OWN, &q))) {
        page_out(r, a);
    }
    while (r->used + needed > r->capacity &&
           (a = oldest(r, p, RECLAIM_OTHERS, &q))) {
        page_out(r, a);
    }
    for (done = 0; done < q.n; done++) {
        a = q.alloc[done];
        brought[done] = !a->resident;
        if (brought[done] && (err = page_in(r, a)) != DDI_OK) {
            brought[done] = false;
            break;
        }
    }
    if (done < q.n) {
        /* The pager found no room after all (fragmentation): put back
         * what this call brought in, leaving the request unchanged. */
        while (done--) {
            if (brought[done]) {
                page_out(r, q.alloc[done]);
            }
        }
        r->stats.enomem++;
        return err;
    }
    for (unsigned i = 0; i < q.n; i++) {
        int e;

        a = q.alloc[i];
        e = entry_index(d, a);
        if (e < 0) {
            e = (int)d->count++;
            d->entry[e].alloc = a;
            d->entry[e].refs = 0;
        }
        d->entry[e].refs += q.count[i];
        a->refs += q.count[i];
        if (a->paging_fence > fence) {
            fence = a->paging_fence;
        }
    }
    *paging_fence = fence;
    return DDI_OK;
}

int vidmm_res_evict(struct vidmm_res *r, struct vidmm_res_device *d,
                    const uint32_t *handles, unsigned n,
                    uint64_t *bytes_to_trim)
{
    struct request q;
    int err;

    if (!r || !d || !handles || n == 0 || n > VIDMM_RES_MAX_LIST) {
        return DDI_EINVAL;
    }
    if (!device_known(r, d)) {
        return DDI_EHANDLE;
    }
    err = gather(r, d->process, handles, n, &q);
    if (err != DDI_OK) {
        return err;
    }
    /* All checked before any reference drops: a refused Evict changes
     * nothing. */
    for (unsigned i = 0; i < q.n; i++) {
        if (vidmm_res_device_refs(d, q.alloc[i]) < q.count[i]) {
            return DDI_EINVAL;
        }
    }
    for (unsigned i = 0; i < q.n; i++) {
        int e = entry_index(d, q.alloc[i]);

        d->entry[e].refs -= q.count[i];
        unreference(r, q.alloc[i], q.count[i]);
        if (d->entry[e].refs == 0) {
            entry_drop(d, (unsigned)e);
        }
    }
    if (bytes_to_trim) {
        *bytes_to_trim = vidmm_res_over_budget(d->process);
    }
    return DDI_OK;
}
