/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidmm, packet-based mode: see vidmm.h for the model and its rules.
 *
 * make_resident plans on scratch copies (segments, deferred unmaps, and
 * per-allocation p_* fields), collecting the paging operations, and
 * commits only once the whole list fits and the driver built the paging
 * buffer: a failure leaves everything as it was.
 */
#include "vidmm/vidmm.h"

#include <stddef.h>
#include <string.h>

#define HANDLE_INDEX_BITS   16u

struct vm_alloc {
    bool used, offered, primary, cpu_visible;
    uint16_t gen;
    uint32_t segments, owner;
    uint64_t size, align;
    uint8_t where;
    uint64_t addr;
    uint64_t page_first;            /* index into vm->pages */
    unsigned npages;
    unsigned pin, busy;
    uint64_t last_fence[DDI_MAX_ENGINES];
    uint64_t lru;
    uint64_t ticket;                /* last paging buffer that moved it */
    bool lost;                      /* a paging buffer that moved it was
                                       lost in a reset: contents unknown */
    /* the plan in progress */
    bool in_list, p_moved;
    uint8_t p_where;
    uint64_t p_addr;
};

/* An aperture range given back: its UNMAP runs in paging buffer `ticket`
 * (not emitted yet: in the next paging buffer), and the range is free for
 * another MAP once that buffer retired. */
struct vm_unmap {
    uint64_t addr, size, ticket;
    bool emitted;
};

struct vidmm {
    struct vidmm_config cfg;
    struct vidmm_env env;
    struct ddi_device *dev;
    struct vidmm_segment vram, ap, pages;
    struct vidmm_segment s_vram, s_ap;      /* scratch (the plan) */
    struct vm_alloc *a;
    uint64_t *page_pool;
    struct vm_unmap *unmaps, *s_unmaps;
    unsigned nunmap, s_nunmap, max_unmap;
    uint64_t lru_clock, ticket_next, ticket_done;
    struct ddi_paging_op ops[DDI_MAX_PAGING_OPS];
    unsigned nops;
    bool ops_overflow;
    bool skipped_busy;                      /* a victim was refused only
                                               for being in use now */
    struct vidmm_stats stats;
};

static uint64_t round8(uint64_t v)
{
    return (v + 7) & ~(uint64_t)7;
}

static uint64_t pages_of(uint64_t size)
{
    return (size + VIDMM_PAGE_SIZE - 1) / VIDMM_PAGE_SIZE;
}

uint64_t vidmm_storage_size(const struct vidmm_config *cfg)
{
    uint64_t n = round8(sizeof(struct vidmm));

    n += round8((uint64_t)cfg->max_allocs * sizeof(struct vm_alloc));
    n += 4 * round8((uint64_t)cfg->max_blocks * sizeof(struct vidmm_block));
    n += round8((uint64_t)cfg->max_allocs * sizeof(struct vidmm_block));
    n += round8((uint64_t)cfg->max_pages * sizeof(uint64_t));
    n += 2 * round8((uint64_t)cfg->max_blocks * sizeof(struct vm_unmap));
    return n;
}

struct vidmm *vidmm_create(void *storage, uint64_t storage_bytes,
                           const struct vidmm_config *cfg,
                           const struct vidmm_env *env,
                           struct ddi_device *dev)
{
    struct vidmm *vm = storage;
    uint8_t *p;
    struct vidmm_block *b[5];

    if (!storage || !cfg || !env || !env->alloc_sys_pages ||
        !env->free_sys_pages || ((uintptr_t)storage & 7) ||
        storage_bytes < vidmm_storage_size(cfg) || !cfg->max_allocs ||
        cfg->max_allocs >= (1u << HANDLE_INDEX_BITS) || cfg->max_blocks < 2 ||
        !cfg->vram_size || cfg->copy_engine >= DDI_MAX_ENGINES) {
        return NULL;
    }
    memset(storage, 0, vidmm_storage_size(cfg));
    p = (uint8_t *)storage + round8(sizeof(*vm));
    vm->a = (struct vm_alloc *)p;
    p += round8((uint64_t)cfg->max_allocs * sizeof(struct vm_alloc));
    for (unsigned i = 0; i < 4; i++) {
        b[i] = (struct vidmm_block *)p;
        p += round8((uint64_t)cfg->max_blocks * sizeof(struct vidmm_block));
    }
    b[4] = (struct vidmm_block *)p;
    p += round8((uint64_t)cfg->max_allocs * sizeof(struct vidmm_block));
    vm->page_pool = (uint64_t *)p;
    p += round8((uint64_t)cfg->max_pages * sizeof(uint64_t));
    vm->unmaps = (struct vm_unmap *)p;
    p += round8((uint64_t)cfg->max_blocks * sizeof(struct vm_unmap));
    vm->s_unmaps = (struct vm_unmap *)p;
    vm->max_unmap = cfg->max_blocks;
    vm->cfg = *cfg;
    vm->env = *env;
    vm->dev = dev;
    vidmm_segment_init(&vm->vram, cfg->vram_base, cfg->vram_size, NULL,
                       b[0], cfg->max_blocks);
    vidmm_segment_init(&vm->ap, cfg->aperture_base, cfg->aperture_size,
                       NULL, b[1], cfg->max_blocks);
    vidmm_segment_init(&vm->s_vram, cfg->vram_base, cfg->vram_size, NULL,
                       b[2], cfg->max_blocks);
    vidmm_segment_init(&vm->s_ap, cfg->aperture_base, cfg->aperture_size,
                       NULL, b[3], cfg->max_blocks);
    /* backing-page slices of the pool: a range allocator over indices */
    vidmm_segment_init(&vm->pages, 0, cfg->max_pages, NULL, b[4],
                       cfg->max_allocs);
    return vm;
}

/* ---- handles ---- */

static struct vm_alloc *lookup(const struct vidmm *vm, uint32_t handle)
{
    uint32_t idx = (handle & ((1u << HANDLE_INDEX_BITS) - 1)) - 1;
    struct vm_alloc *a;

    if (!vm || !handle || idx >= vm->cfg.max_allocs) {
        return NULL;
    }
    a = &vm->a[idx];
    if (!a->used || a->gen != (uint16_t)(handle >> HANDLE_INDEX_BITS)) {
        return NULL;
    }
    return a;
}

static bool in_flight(const struct vidmm *vm, const struct vm_alloc *a)
{
    return a->ticket > vm->ticket_done;
}

/*
 * The move rule, for every kind of move (eviction, promotion from the
 * aperture into VRAM, demotion, repacking, the patched-once put-back):
 * an allocation may leave its place only when no DMA buffer that may
 * still use it holds it (busy: prepared, on the ring or running), no
 * paging buffer that moved it is still in flight, and nobody pinned or
 * locked it. A busy allocation in the aperture stays there: the GPU
 * reaches it as well there, and the buffer on the GPU keeps its
 * addresses (a promotion would unmap the range under it: a GART fault,
 * or writes that land after the copy and are lost).
 */
static bool may_move(const struct vidmm *vm, const struct vm_alloc *a)
{
    return !a->pin && !a->busy && !in_flight(vm, a);
}

int vidmm_alloc_create(struct vidmm *vm, const struct vidmm_alloc_info *info,
                       uint32_t *handle)
{
    struct vm_alloc *a = NULL;
    uint64_t first, npages, align;
    uint32_t segs;
    unsigned idx;

    if (!vm || !info || !handle || !info->size) {
        return DDI_EINVAL;
    }
    align = info->align ? info->align : VIDMM_PAGE_SIZE;
    segs = info->segments ? info->segments : VIDMM_SEG_VRAM;
    if ((align & (align - 1)) || (segs & ~(VIDMM_SEG_VRAM |
                                           VIDMM_SEG_APERTURE)) ||
        ((segs & VIDMM_SEG_APERTURE) && !vm->cfg.aperture_size) ||
        (info->primary && !(segs & VIDMM_SEG_VRAM)) ||
        info->size > UINT64_MAX - VIDMM_PAGE_SIZE) {
        return DDI_EINVAL;
    }
    npages = pages_of(info->size);
    for (idx = 0; idx < vm->cfg.max_allocs; idx++) {
        if (!vm->a[idx].used) {
            a = &vm->a[idx];
            break;
        }
    }
    if (!a || npages > UINT32_MAX ||
        !vidmm_segment_alloc(&vm->pages, npages, 1, &first)) {
        return DDI_ENOMEM;
    }
    if (vm->env.alloc_sys_pages(vm->env.os, &vm->page_pool[first],
                                (unsigned)npages) != DDI_OK) {
        vidmm_segment_free(&vm->pages, first);
        return DDI_ENOMEM;
    }
    *a = (struct vm_alloc){
        .used = true, .gen = (uint16_t)(a->gen + 1), .segments = segs,
        .owner = info->owner, .size = info->size, .align = align,
        .primary = info->primary, .cpu_visible = info->cpu_visible,
        .where = VIDMM_IN_SYSMEM, .page_first = first,
        .npages = (unsigned)npages, .lru = ++vm->lru_clock,
    };
    if (a->gen == 0) {
        a->gen = 1;
    }
    /* a new allocation has no contents to move: VRAM at once if it fits
     * without evicting anyone */
    if ((segs & VIDMM_SEG_VRAM) &&
        vidmm_segment_alloc_best(&vm->vram, info->size, align, &a->addr)) {
        a->where = VIDMM_IN_VRAM;
    } else if (info->primary) {
        vm->env.free_sys_pages(vm->env.os, &vm->page_pool[first],
                               (unsigned)npages);
        vidmm_segment_free(&vm->pages, first);
        a->used = false;
        return DDI_ENOMEM;
    }
    if (info->primary) {
        a->pin = 1;             /* scanout never moves */
    }
    *handle = ((uint32_t)a->gen << HANDLE_INDEX_BITS) | (idx + 1);
    return DDI_OK;
}


int vidmm_alloc_destroy(struct vidmm *vm, uint32_t handle)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (a->busy || (a->pin && !a->primary) || a->pin > 1 ||
        in_flight(vm, a)) {
        return DDI_EBUSY;
    }
    if (a->where == VIDMM_IN_APERTURE) {
        /* unmapped by the next paging buffer; the range stays taken
         * until that one retired */
        if (vm->nunmap == vm->max_unmap) {
            return DDI_ENOMEM;
        }
        vm->unmaps[vm->nunmap++] = (struct vm_unmap){
            .addr = a->addr, .size = pages_of(a->size) * VIDMM_PAGE_SIZE,
        };
    } else if (a->where == VIDMM_IN_VRAM) {
        vidmm_segment_free(&vm->vram, a->addr);
    }
    vm->env.free_sys_pages(vm->env.os, &vm->page_pool[a->page_first],
                           a->npages);
    vidmm_segment_free(&vm->pages, a->page_first);
    a->used = false;
    return DDI_OK;
}

int vidmm_pin(struct vidmm *vm, uint32_t handle)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    a->pin++;
    return DDI_OK;
}

int vidmm_unpin(struct vidmm *vm, uint32_t handle)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (!a->pin || (a->primary && a->pin == 1)) {
        return DDI_EINVAL;
    }
    a->pin--;
    return DDI_OK;
}

int vidmm_offer(struct vidmm *vm, uint32_t handle, bool offered)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    a->offered = offered;
    return DDI_OK;
}

int vidmm_lock(struct vidmm *vm, uint32_t handle, enum vidmm_where *where,
               uint64_t *gpu_addr)
{
    struct vm_alloc *a = lookup(vm, handle);

    if (!a) {
        return DDI_EHANDLE;
    }
    if (in_flight(vm, a)) {
        return DDI_EBUSY;       /* its contents are moving */
    }
    a->pin++;
    if (where) {
        *where = (enum vidmm_where)a->where;
    }
    if (gpu_addr) {
        *gpu_addr = a->where == VIDMM_IN_SYSMEM ? 0 : a->addr;
    }
    return DDI_OK;
}

int vidmm_unlock(struct vidmm *vm, uint32_t handle)
{
    return vidmm_unpin(vm, handle);
}

int vidmm_alloc_state(const struct vidmm *vm, uint32_t handle,
                      struct vidmm_alloc_state *st)
{
    const struct vm_alloc *a = lookup(vm, handle);

    if (!a || !st) {
        return a ? DDI_EINVAL : DDI_EHANDLE;
    }
    *st = (struct vidmm_alloc_state){
        .where = a->where,
        .gpu_addr = a->where == VIDMM_IN_SYSMEM ? 0 : a->addr,
        .size = a->size, .pages = &vm->page_pool[a->page_first],
        .npages = a->npages, .pin = a->pin, .busy = a->busy, .lru = a->lru,
    };
    return DDI_OK;
}

/* ---- the plan ---- */

static void op(struct vidmm *vm, uint32_t kind, uint64_t src, uint64_t dst,
               uint64_t size, const uint64_t *pages)
{
    if (vm->nops == DDI_MAX_PAGING_OPS) {
        vm->ops_overflow = true;
        return;
    }
    vm->ops[vm->nops++] = (struct ddi_paging_op){
        .kind = kind, .src = src, .dst = dst, .size = size,
        .sys_pages = pages,
    };
}

static uint64_t ap_bytes(const struct vm_alloc *a)
{
    return pages_of(a->size) * VIDMM_PAGE_SIZE;
}

/* The paging buffer being planned. */
static uint64_t plan_ticket(const struct vidmm *vm)
{
    return vm->ticket_next + 1;
}

/* May the plan move a (out of its place) to make room for process? */
static bool victim_ok(struct vidmm *vm, struct vm_alloc *a, uint32_t process,
                      bool ignore_owner)
{
    if (!a->used || a->in_list || a->p_moved || a->pin) {
        return false;
    }
    if (!ignore_owner && vm->cfg.evict_own_only && a->owner != process &&
        !a->offered) {
        return false;
    }
    if (a->busy || in_flight(vm, a)) {
        vm->skipped_busy = true;    /* would do once the GPU is done */
        return false;
    }
    return true;
}

/* Least recently used victim in VRAM (in the plan). */
static struct vm_alloc *lru_victim(struct vidmm *vm, uint32_t process)
{
    struct vm_alloc *best = NULL;

    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *a = &vm->a[i];

        if (a->used && a->p_where == VIDMM_IN_VRAM &&
            victim_ok(vm, a, process, false) && (!best || a->lru < best->lru)) {
            best = a;
        }
    }
    return best;
}

/* Gives an aperture range back: UNMAP in this paging buffer, after the
 * transfers through it (the GPU unmaps in buffer order); the range stays
 * taken until this buffer has retired. */
static bool plan_release_ap(struct vidmm *vm, uint64_t addr, uint64_t bytes)
{
    op(vm, DDI_PAGING_UNMAP_APERTURE, 0, addr, bytes, NULL);
    if (vm->s_nunmap == vm->max_unmap) {
        return false;
    }
    vm->s_unmaps[vm->s_nunmap++] = (struct vm_unmap){
        .addr = addr, .size = bytes, .ticket = plan_ticket(vm),
        .emitted = true,
    };
    return true;
}

/* A free aperture range of `bytes` in the plan. Ranges released by
 * paging buffers still in flight come free when those retire: then the
 * answer is "not now" (DDI_EBUSY), not "never". */
static bool plan_ap_range(struct vidmm *vm, uint64_t bytes, uint64_t *addr)
{
    if (vm->cfg.aperture_size &&
        vidmm_segment_alloc_best(&vm->s_ap, bytes, VIDMM_PAGE_SIZE, addr)) {
        return true;
    }
    if (vm->s_nunmap) {
        vm->skipped_busy = true;
    }
    return false;
}

/* Copies a (in VRAM at from, in the plan) out to its backing pages
 * through a temporary mapping: MAP, TRANSFER, UNMAP. */
static bool plan_vram_to_sys(struct vidmm *vm, struct vm_alloc *a)
{
    uint64_t t;

    if (!plan_ap_range(vm, ap_bytes(a), &t)) {
        return false;
    }
    op(vm, DDI_PAGING_MAP_APERTURE, 0, t, ap_bytes(a),
       &vm->page_pool[a->page_first]);
    op(vm, DDI_PAGING_TRANSFER, a->p_addr, t, a->size, NULL);
    if (!plan_release_ap(vm, t, ap_bytes(a))) {
        return false;
    }
    vidmm_segment_free(&vm->s_vram, a->p_addr);
    a->p_where = VIDMM_IN_SYSMEM;
    a->p_addr = 0;
    a->p_moved = true;
    vm->stats.evictions++;
    vm->stats.bytes_moved += a->size;
    return true;
}

/* Brings a (system memory or aperture, in the plan) into VRAM at `at`
 * (taken by the caller). */
static bool plan_to_vram(struct vidmm *vm, struct vm_alloc *a, uint64_t at)
{
    uint64_t from = a->p_addr;

    if (a->p_where == VIDMM_IN_SYSMEM) {
        if (!plan_ap_range(vm, ap_bytes(a), &from)) {
            return false;
        }
        op(vm, DDI_PAGING_MAP_APERTURE, 0, from, ap_bytes(a),
           &vm->page_pool[a->page_first]);
    }
    op(vm, DDI_PAGING_TRANSFER, from, at, a->size, NULL);
    if (!plan_release_ap(vm, from, ap_bytes(a))) {
        return false;
    }
    a->p_where = VIDMM_IN_VRAM;
    a->p_addr = at;
    a->p_moved = true;
    vm->stats.restores++;
    vm->stats.bytes_moved += a->size;
    return true;
}

/* A VRAM range for a (list member) in the plan, evicting LRU victims. */
static bool plan_vram_range(struct vidmm *vm, struct vm_alloc *a,
                            uint32_t process, uint64_t *at)
{
    for (;;) {
        struct vm_alloc *v;

        if (vidmm_segment_alloc_best(&vm->s_vram, a->size, a->align, at)) {
            return true;
        }
        v = lru_victim(vm, process);
        if (!v || !plan_vram_to_sys(vm, v)) {
            return false;
        }
    }
}

/* Maps a (system memory) at a new aperture range: it lives there. */
static bool plan_map(struct vidmm *vm, struct vm_alloc *a)
{
    uint64_t at;

    if (!plan_ap_range(vm, ap_bytes(a), &at)) {
        return false;
    }
    op(vm, DDI_PAGING_MAP_APERTURE, 0, at, ap_bytes(a),
       &vm->page_pool[a->page_first]);
    a->p_where = VIDMM_IN_APERTURE;
    a->p_addr = at;
    a->p_moved = true;
    return true;
}

/* Places list member a anywhere its segments allow, VRAM first. */
static bool plan_place(struct vidmm *vm, struct vm_alloc *a, uint32_t process)
{
    uint64_t at;

    if (a->p_where == VIDMM_IN_VRAM) {
        return true;
    }
    if (a->p_where == VIDMM_IN_APERTURE &&
        (!(a->segments & VIDMM_SEG_VRAM) || !may_move(vm, a))) {
        /* lives there, or in use there: a promotion waits until the
         * allocation is idle (the move rule) */
        return true;
    }
    if (a->pin) {
        /* locked where it is (its backing pages, a CPU pointer out):
         * never moved; the GPU reaches the same pages through the
         * aperture, a mapping, not a move */
        if (a->p_where == VIDMM_IN_APERTURE) {
            return true;
        }
        return (a->segments & VIDMM_SEG_APERTURE) && plan_map(vm, a);
    }
    if (a->segments & VIDMM_SEG_VRAM) {
        if (plan_vram_range(vm, a, process, &at)) {
            return plan_to_vram(vm, a, at);
        }
        if (!(a->segments & VIDMM_SEG_APERTURE)) {
            return false;
        }
        /* no VRAM: the aperture will do */
    }
    return a->p_where == VIDMM_IN_APERTURE || plan_map(vm, a);
}

/* Evicts every allocation that overlaps [at, at + size) of VRAM in the
 * plan: the patched-once rule (the process restriction does not apply). */
static bool plan_clear_vram(struct vidmm *vm, uint64_t at, uint64_t size,
                            uint32_t process)
{
    (void)process;
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *v = &vm->a[i];

        if (!v->used || v->p_where != VIDMM_IN_VRAM ||
            v->p_addr >= at + size || v->p_addr + v->size <= at) {
            continue;
        }
        if (!victim_ok(vm, v, process, true) || !plan_vram_to_sys(vm, v)) {
            return false;
        }
    }
    return true;
}

/* Takes [at, at + bytes) of the aperture for the patched-once rule. A
 * range still waiting for its unmap to retire comes free later (EBUSY);
 * one another allocation lives in cannot be had in this buffer (a MAP
 * takes effect before the buffer's UNMAPs run): DDI_ENOMEM then. */
static bool plan_take_ap(struct vidmm *vm, uint64_t at, uint64_t bytes)
{
    if (vidmm_segment_alloc_at(&vm->s_ap, at, bytes)) {
        return true;
    }
    for (unsigned k = 0; k < vm->s_nunmap; k++) {
        struct vm_unmap *u = &vm->s_unmaps[k];

        if (u->addr < at + bytes && u->addr + u->size > at) {
            vm->skipped_busy = true;
        }
    }
    return false;
}

/* Puts list member a back at addr (where it was patched). */
static bool plan_place_at(struct vidmm *vm, struct vm_alloc *a, uint64_t addr,
                          uint32_t process)
{
    if (a->p_where != VIDMM_IN_SYSMEM && a->p_addr == addr) {
        return true;
    }
    if (a->p_where != VIDMM_IN_SYSMEM && !a->p_moved && !may_move(vm, a)) {
        /* elsewhere and in use there: not now (the move rule) */
        if (!a->pin) {
            vm->skipped_busy = true;
        }
        return false;
    }
    if (vidmm_segment_contains(&vm->s_vram, addr, a->size)) {
        if (a->p_where == VIDMM_IN_VRAM) {
            /* elsewhere in VRAM (maybe overlapping its target): out to its
             * pages first, then back at addr */
            a->in_list = false;
            if (!victim_ok(vm, a, process, true) || !plan_vram_to_sys(vm, a)) {
                a->in_list = true;
                return false;
            }
            a->in_list = true;
        }
        return plan_clear_vram(vm, addr, a->size, process) &&
               vidmm_segment_alloc_at(&vm->s_vram, addr, a->size) &&
               plan_to_vram(vm, a, addr);
    }
    if (!vidmm_segment_contains(&vm->s_ap, addr, ap_bytes(a)) ||
        !plan_take_ap(vm, addr, ap_bytes(a))) {
        return false;
    }
    op(vm, DDI_PAGING_MAP_APERTURE, 0, addr, ap_bytes(a),
       &vm->page_pool[a->page_first]);
    if (a->p_where == VIDMM_IN_VRAM) {
        op(vm, DDI_PAGING_TRANSFER, a->p_addr, addr, a->size, NULL);
        vidmm_segment_free(&vm->s_vram, a->p_addr);
        vm->stats.evictions++;
        vm->stats.bytes_moved += a->size;
    } else if (a->p_where == VIDMM_IN_APERTURE &&
               !plan_release_ap(vm, a->p_addr, ap_bytes(a))) {
        return false;
    }
    a->p_where = VIDMM_IN_APERTURE;
    a->p_addr = addr;
    a->p_moved = true;
    return true;
}

static void plan_begin(struct vidmm *vm)
{
    vm->nops = 0;
    vm->ops_overflow = false;
    vm->skipped_busy = false;
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *a = &vm->a[i];

        a->in_list = a->p_moved = false;
        a->p_where = a->where;
        a->p_addr = a->addr;
    }
    memcpy(vm->s_vram.used, vm->vram.used,
           vm->vram.count * sizeof(struct vidmm_block));
    vm->s_vram.count = vm->vram.count;
    vm->s_vram.used_bytes = vm->vram.used_bytes;
    vm->s_vram.peak_bytes = vm->vram.peak_bytes;
    memcpy(vm->s_ap.used, vm->ap.used,
           vm->ap.count * sizeof(struct vidmm_block));
    vm->s_ap.count = vm->ap.count;
    vm->s_ap.used_bytes = vm->ap.used_bytes;
    vm->s_ap.peak_bytes = vm->ap.peak_bytes;
    /* aperture ranges given back: free once their unmap retired; those
     * not unmapped yet (destroyed allocations) are unmapped by this
     * buffer, first */
    vm->s_nunmap = 0;
    for (unsigned k = 0; k < vm->nunmap; k++) {
        struct vm_unmap u = vm->unmaps[k];

        if (u.emitted && u.ticket <= vm->ticket_done) {
            vidmm_segment_free(&vm->s_ap, u.addr);
            continue;
        }
        if (!u.emitted) {
            op(vm, DDI_PAGING_UNMAP_APERTURE, 0, u.addr, u.size, NULL);
            u.emitted = true;
            u.ticket = plan_ticket(vm);
        }
        vm->s_unmaps[vm->s_nunmap++] = u;
    }
}

static void copy_segment(struct vidmm_segment *to,
                         const struct vidmm_segment *from)
{
    memcpy(to->used, from->used, from->count * sizeof(struct vidmm_block));
    to->count = from->count;
    to->used_bytes = from->used_bytes;
    if (from->peak_bytes > to->peak_bytes) {
        to->peak_bytes = from->peak_bytes;
    }
}

static void plan_commit(struct vidmm *vm, uint64_t ticket)
{
    copy_segment(&vm->vram, &vm->s_vram);
    copy_segment(&vm->ap, &vm->s_ap);
    memcpy(vm->unmaps, vm->s_unmaps, vm->s_nunmap * sizeof(struct vm_unmap));
    vm->nunmap = vm->s_nunmap;
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *a = &vm->a[i];

        if (a->used && a->p_moved) {
            a->where = a->p_where;
            a->addr = a->p_addr;
            a->ticket = ticket;
        }
    }
}

/* The VRAM bytes a takes (the segment's blocks are whole pages). */
static uint64_t vram_bytes(const struct vm_alloc *a)
{
    return pages_of(a->size) * VIDMM_PAGE_SIZE;
}

/*
 * Repacking (the fallback when best fit left VRAM too fragmented for a
 * list): a goes to the lowest VRAM range that only allocations the plan
 * may evict occupy, and those are evicted. Members placed this way sit
 * side by side from the bottom, so a list whose bytes fit VRAM (less
 * what is pinned or busy) is placed whatever the holes were.
 */
static bool plan_pack(struct vidmm *vm, struct vm_alloc *a, uint32_t process)
{
    uint64_t end = vm->cfg.vram_base + vm->cfg.vram_size;
    uint64_t at = vm->cfg.vram_base, size = vram_bytes(a);

    for (;;) {
        uint64_t next = 0;

        at = (at + a->align - 1) & ~(a->align - 1);
        if (at + size > end || at + size < at) {
            return false;
        }
        /* the furthest end of what may not move in the way */
        for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
            struct vm_alloc *v = &vm->a[i];

            if (v->used && v->p_where == VIDMM_IN_VRAM && v != a &&
                v->p_addr < at + size && v->p_addr + vram_bytes(v) > at &&
                !victim_ok(vm, v, process, false) &&
                v->p_addr + vram_bytes(v) > next) {
                next = v->p_addr + vram_bytes(v);
            }
        }
        if (!next) {
            break;
        }
        at = next;
    }
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        struct vm_alloc *v = &vm->a[i];

        if (v->used && v->p_where == VIDMM_IN_VRAM && v != a &&
            v->p_addr < at + size && v->p_addr + vram_bytes(v) > at &&
            !plan_vram_to_sys(vm, v)) {
            return false;
        }
    }
    return vidmm_segment_alloc_at(&vm->s_vram, at, a->size) &&
           plan_to_vram(vm, a, at);
}

/* Plans list member[0 .. n) (see vidmm_make_resident). repack: first
 * move the members in VRAM that may move out to their pages, then place
 * those that want VRAM with plan_pack. A pinned (locked) member is never
 * packed: the CPU holds a pointer to where it is (plan_place's rule). */
static int plan_list(struct vidmm *vm, uint32_t process,
                     struct vm_alloc **member, unsigned n,
                     const struct ddi_alloc_desc *desc, bool patched,
                     bool repack)
{
    int rc = DDI_OK;

    plan_begin(vm);
    for (unsigned i = 0; i < n; i++) {
        member[i]->in_list = true;
    }
    for (unsigned i = 0; repack && i < n && rc == DDI_OK; i++) {
        struct vm_alloc *a = member[i];

        if (a->p_where == VIDMM_IN_VRAM && !a->p_moved && may_move(vm, a) &&
            !plan_vram_to_sys(vm, a)) {
            rc = vm->skipped_busy ? DDI_EBUSY : DDI_ENOMEM;
        }
    }
    /* fixed addresses first (patched once), then the rest, in list order */
    for (unsigned pass = 0; pass < 2 && rc == DDI_OK; pass++) {
        for (unsigned i = 0; i < n && rc == DDI_OK; i++) {
            struct vm_alloc *a = member[i];
            bool fixed = patched && desc[i].gpu_addr;

            if (fixed != (pass == 0)) {
                continue;
            }
            if (fixed ? !plan_place_at(vm, a, desc[i].gpu_addr, process)
                : repack && (a->segments & VIDMM_SEG_VRAM) &&
                  a->p_where != VIDMM_IN_VRAM &&
                  (a->p_where == VIDMM_IN_SYSMEM || may_move(vm, a)) &&
                  !a->pin
                ? !plan_pack(vm, a, process) && !plan_place(vm, a, process)
                : !plan_place(vm, a, process)) {
                rc = vm->skipped_busy ? DDI_EBUSY : DDI_ENOMEM;
            }
        }
    }
    return rc;
}

int vidmm_make_resident(struct vidmm *vm, uint32_t process,
                        const struct ddi_alloc_ref *list, unsigned n,
                        struct ddi_alloc_desc *desc, bool patched,
                        struct vidmm_residency *res)
{
    struct vm_alloc *member[DDI_MAX_ALLOC_LIST];
    struct vidmm_stats saved;
    bool moves = false;
    uint64_t ticket = 0, wait = 0;
    int rc = DDI_OK;

    if (!vm || (n && (!list || !desc)) || !res || n > DDI_MAX_ALLOC_LIST) {
        return DDI_EINVAL;
    }
    res->paging_built = false;
    res->paging_ticket = 0;
    res->wait_ticket = 0;
    res->paging_bytes = 0;
    for (unsigned i = 0; i < n; i++) {
        member[i] = lookup(vm, list[i].handle);
        if (!member[i] || member[i]->owner != process) {
            return DDI_EHANDLE;
        }
        if (member[i]->lost) {
            return DDI_ELOST;   /* would run on whatever is there */
        }
    }
    saved = vm->stats;
    rc = plan_list(vm, process, member, n, desc, patched, false);
    if (rc == DDI_ENOMEM && !patched) {
        /* the members already in VRAM may be what fragments it (a split
         * buffer's portions fill VRAM to the byte): once more, with
         * those not in use moved out first and placed again anew */
        vm->stats = saved;
        rc = plan_list(vm, process, member, n, desc, patched, true);
    }
    if (rc == DDI_OK && vm->ops_overflow) {
        rc = DDI_EINVAL;
    }
    for (unsigned i = 0; rc == DDI_OK && i < vm->cfg.max_allocs; i++) {
        moves |= vm->a[i].used && vm->a[i].p_moved;
    }
    if (rc == DDI_OK && moves) {
        ticket = vm->ticket_next + 1;
        if (!vm->dev || !vm->dev->ops->build_paging_buffer) {
            rc = DDI_ENOTSUP;
        } else if (!res->paging) {
            rc = DDI_EINVAL;
        } else {
            res->paging->engine = vm->cfg.copy_engine;
            rc = vm->dev->ops->build_paging_buffer(vm->dev->drv, vm->ops,
                                                   vm->nops, res->paging);
        }
    }
    if (rc != DDI_OK) {
        /* the plan's stats were counted on the way: take them back */
        vm->stats = saved;
        if (rc == DDI_ENOMEM || rc == DDI_EBUSY) {
            vm->stats.enomem++;
        }
        for (unsigned i = 0; i < n; i++) {
            member[i]->in_list = false;
        }
        return rc;
    }
    if (moves) {
        vm->ticket_next = ticket;
        plan_commit(vm, ticket);
        vm->stats.paging_buffers++;
        res->paging_built = true;
        res->paging_ticket = ticket;
        /* the plan counted every transfer it made into the stats */
        res->paging_bytes = vm->stats.bytes_moved - saved.bytes_moved;
    }
    for (unsigned i = 0; i < n; i++) {
        struct vm_alloc *a = member[i];

        a->in_list = false;
        desc[i].gpu_addr = a->addr;
        desc[i].size = a->size;
        desc[i].cpu_visible = a->cpu_visible;
        if (a->ticket > vm->ticket_done && a->ticket > wait) {
            wait = a->ticket;
        }
    }
    /* busy once per list entry (duplicates too: release mirrors it) */
    for (unsigned i = 0; i < n; i++) {
        member[i]->busy++;
        member[i]->lru = ++vm->lru_clock;
    }
    res->wait_ticket = wait;
    return DDI_OK;
}

void vidmm_release(struct vidmm *vm, const struct ddi_alloc_ref *list,
                   unsigned n, unsigned engine, uint64_t fence)
{
    if (!vm || !list) {
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct vm_alloc *a = lookup(vm, list[i].handle);

        if (!a || !a->busy) {
            continue;
        }
        a->busy--;
        if (fence && engine < DDI_MAX_ENGINES) {
            a->last_fence[engine] = fence;
        }
        a->lru = ++vm->lru_clock;
    }
}

void vidmm_paging_lost(struct vidmm *vm, uint64_t ticket)
{
    if (!vm || !ticket || ticket <= vm->ticket_done) {
        return;
    }
    /* moved by it, or by a later paging buffer (which moved what it
     * left): their contents are whatever the half-run buffer made */
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        if (vm->a[i].used && vm->a[i].ticket >= ticket) {
            vm->a[i].lost = true;
        }
    }
    vidmm_paging_done(vm, ticket);
}

void vidmm_paging_done(struct vidmm *vm, uint64_t ticket)
{
    if (vm && ticket > vm->ticket_done && ticket <= vm->ticket_next) {
        vm->ticket_done = ticket;
    }
}

uint64_t vidmm_vram_used(const struct vidmm *vm)
{
    return vm->vram.used_bytes;
}

uint64_t vidmm_aperture_used(const struct vidmm *vm)
{
    return vm->ap.used_bytes;
}

uint64_t vidmm_aperture_unmapping(const struct vidmm *vm)
{
    uint64_t bytes = 0;

    for (unsigned k = 0; k < vm->nunmap; k++) {
        bytes += vm->unmaps[k].size;
    }
    return bytes;
}

const struct vidmm_stats *vidmm_stats(const struct vidmm *vm)
{
    return &vm->stats;
}

/* ---- split points ---- */

/* The patch locations are sorted by split_offset and name real slots. */
static bool split_args_ok(const struct ddi_dmabuf *buf)
{
    if (!buf || buf->nalloc > DDI_MAX_ALLOC_LIST ||
        buf->npatch > DDI_MAX_PATCH_LIST) {
        return false;
    }
    for (unsigned p = 0; p < buf->npatch; p++) {
        const struct ddi_patch_loc *pl = &buf->patch[p];

        if (pl->slot >= buf->nalloc || pl->slot_id > COPRO_TARGET_SLOTS ||
            pl->split_offset >= buf->len_bytes ||
            (p && pl->split_offset < buf->patch[p - 1].split_offset)) {
            return false;
        }
    }
    return true;
}

/*
 * The range of buf beginning at first (0, or a split offset): whole
 * packets (all the patch locations of one split_offset go together: a
 * COPY's source and destination) as long as their allocations fit
 * capacity with the state slots programmed before first and not
 * reprogrammed by first's own packet.
 */
static int split_from(const struct ddi_dmabuf *buf, const uint64_t *slot_size,
                      uint64_t capacity, uint32_t first,
                      struct vidmm_split_range *out)
{
    uint32_t state_slot[COPRO_TARGET_SLOTS + 1] = { 0 };  /* slot_id -> 1+
                                                            list slot */
    struct vidmm_split_range cur = { .first = first, .end = buf->len_bytes };
    unsigned p = 0;

    for (; p < buf->npatch && buf->patch[p].split_offset < first; p++) {
        if (buf->patch[p].slot_id) {
            state_slot[buf->patch[p].slot_id] = buf->patch[p].slot + 1;
        }
    }
    if (first && (p == buf->npatch || buf->patch[p].split_offset != first)) {
        return DDI_EINVAL;      /* not a split point */
    }
    for (unsigned q = p; q < buf->npatch &&
         buf->patch[q].split_offset == first; q++) {
        state_slot[buf->patch[q].slot_id] = 0;
    }
    for (unsigned k = 1; k <= COPRO_TARGET_SLOTS; k++) {
        uint32_t bit = state_slot[k] ? 1u << (state_slot[k] - 1) : 0;

        if (bit && !(cur.slots & bit)) {
            cur.slots |= bit;
            cur.bytes += slot_size[state_slot[k] - 1];
        }
    }
    while (p < buf->npatch) {
        uint32_t at = buf->patch[p].split_offset, slots = cur.slots;
        uint64_t bytes = cur.bytes;
        unsigned q = p;

        for (; q < buf->npatch && buf->patch[q].split_offset == at; q++) {
            uint32_t bit = 1u << buf->patch[q].slot;

            if (!(slots & bit)) {
                slots |= bit;
                bytes += slot_size[buf->patch[q].slot];
                if (bytes > capacity || bytes < slot_size[buf->patch[q].slot]) {
                    /* the packet does not fit: the range ends before it,
                     * unless it is the range's first (cannot split) */
                    if (at == first) {
                        return DDI_ENOMEM;
                    }
                    cur.end = at;
                    *out = cur;
                    return DDI_OK;
                }
            }
        }
        cur.slots = slots;
        cur.bytes = bytes;
        p = q;
    }
    *out = cur;
    return DDI_OK;
}

int vidmm_split(const struct ddi_dmabuf *buf, const uint64_t *slot_size,
                uint64_t capacity, struct vidmm_split_range *out,
                unsigned max, unsigned *nout)
{
    uint32_t first = 0;
    unsigned n = 0;

    if (!split_args_ok(buf) || !slot_size || !out || !nout || !max) {
        return DDI_EINVAL;
    }
    for (;;) {
        int rc;

        if (n == max) {
            return DDI_EINVAL;
        }
        rc = split_from(buf, slot_size, capacity, first, &out[n]);
        if (rc != DDI_OK) {
            return rc;
        }
        first = out[n++].end;
        if (first >= buf->len_bytes) {
            break;
        }
    }
    *nout = n;
    return DDI_OK;
}

/* vidmm's handle of list slot i: handles[i] (0: not vidmm's), or the
 * list's own handle without a map. */
static uint32_t slot_handle(const struct ddi_dmabuf *buf,
                            const uint32_t *handles, unsigned i)
{
    return handles ? handles[i] : buf->alloc[i].handle;
}

/* What a portion is planned with: each allocation's size as the VRAM
 * allocator rounds it (pages, alignment; 0 for a slot that is not
 * vidmm's), and VRAM less what is pinned there (those never make room).
 * DDI_EHANDLE for an unknown handle. */
static int split_sizes(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                       const uint32_t *handles, uint64_t *slot_size,
                       uint64_t *capacity)
{
    uint64_t pinned = 0;

    for (unsigned i = 0; i < buf->nalloc; i++) {
        uint32_t h = slot_handle(buf, handles, i);
        const struct vm_alloc *a = lookup(vm, h);
        uint64_t al;

        if (!h) {
            slot_size[i] = 0;       /* fixed placement: costs nothing */
            continue;
        }
        if (!a) {
            return DDI_EHANDLE;
        }
        al = a->align > VIDMM_PAGE_SIZE ? a->align : VIDMM_PAGE_SIZE;
        slot_size[i] = (a->size + al - 1) & ~(al - 1);
    }
    for (unsigned i = 0; i < vm->cfg.max_allocs; i++) {
        const struct vm_alloc *a = &vm->a[i];

        if (a->used && a->pin && a->where == VIDMM_IN_VRAM) {
            pinned += pages_of(a->size) * VIDMM_PAGE_SIZE;
        }
    }
    *capacity = vm->cfg.vram_size > pinned ? vm->cfg.vram_size - pinned : 0;
    return DDI_OK;
}

int vidmm_portion(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                  const uint32_t *handles, uint32_t first,
                  struct vidmm_split_range *out)
{
    uint64_t slot_size[DDI_MAX_ALLOC_LIST], capacity;
    int rc;

    if (!vm || !out || !split_args_ok(buf) ||
        (first && first >= buf->len_bytes)) {
        return DDI_EINVAL;
    }
    rc = split_sizes(vm, buf, handles, slot_size, &capacity);
    return rc == DDI_OK ? split_from(buf, slot_size, capacity, first, out)
                        : rc;
}

bool vidmm_splittable(const struct vidmm *vm, const struct ddi_dmabuf *buf,
                      const uint32_t *handles)
{
    uint64_t slot_size[DDI_MAX_ALLOC_LIST], capacity;
    struct vidmm_split_range r = { 0 };
    unsigned n = 0;

    if (!vm || !split_args_ok(buf) ||
        split_sizes(vm, buf, handles, slot_size, &capacity) != DDI_OK) {
        return false;
    }
    /* every portion must fit, or none runs: a buffer half run and then
     * refused would leave its output half written */
    do {
        if (split_from(buf, slot_size, capacity, r.end, &r) != DDI_OK) {
            return false;
        }
        n++;
    } while (r.end < buf->len_bytes);
    return n > 1;
}

/* The sub-list of vidmm's slots in mask, in list order (k -> slot[k]). */
static unsigned sub_list(const struct ddi_dmabuf *buf, const uint32_t *handles,
                         uint32_t mask, struct ddi_alloc_ref *list,
                         unsigned *slot)
{
    unsigned n = 0;

    for (unsigned i = 0; i < buf->nalloc; i++) {
        uint32_t h = slot_handle(buf, handles, i);

        if ((mask & (1u << i)) && h) {
            list[n] = (struct ddi_alloc_ref){ h, buf->alloc[i].write };
            slot[n++] = i;
        }
    }
    return n;
}

int vidmm_make_resident_portion(struct vidmm *vm, uint32_t process,
                                const struct ddi_dmabuf *buf,
                                const uint32_t *handles,
                                struct ddi_alloc_desc *desc,
                                const struct vidmm_split_range *r,
                                bool patched, struct vidmm_residency *res)
{
    struct ddi_alloc_ref list[DDI_MAX_ALLOC_LIST];
    struct ddi_alloc_desc sub[DDI_MAX_ALLOC_LIST];
    unsigned slot[DDI_MAX_ALLOC_LIST], n;
    int rc;

    if (!vm || !buf || !desc || !r || buf->nalloc > DDI_MAX_ALLOC_LIST ||
        (buf->nalloc < 32 && (r->slots >> buf->nalloc))) {
        return DDI_EINVAL;
    }
    n = sub_list(buf, handles, r->slots, list, slot);
    for (unsigned k = 0; k < n; k++) {
        sub[k] = desc[slot[k]];
    }
    rc = vidmm_make_resident(vm, process, list, n, sub, patched, res);
    if (rc == DDI_OK) {
        /* only the portion's slots: the others' addresses are not
         * patched into this portion */
        for (unsigned k = 0; k < n; k++) {
            desc[slot[k]] = sub[k];
        }
    }
    return rc;
}

void vidmm_release_portion(struct vidmm *vm, const struct ddi_dmabuf *buf,
                           const uint32_t *handles, uint32_t slots,
                           unsigned engine, uint64_t fence)
{
    struct ddi_alloc_ref list[DDI_MAX_ALLOC_LIST];
    unsigned slot[DDI_MAX_ALLOC_LIST];

    if (vm && buf && buf->nalloc <= DDI_MAX_ALLOC_LIST) {
        vidmm_release(vm, list, sub_list(buf, handles, slots, list, slot),
                      engine, fence);
    }
}
