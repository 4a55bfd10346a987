/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's tables and their rules: ktables.h says why. A table added
 * to a kernel struct must be listed here by name ("struct.member"):
 * scripts/check-kernel-tables.py fails otherwise.
 */
#include "kernel/ktables.h"

#include <stddef.h>

#include "kernel/kernel.h"

#define COUNT_USED(name, arr, n, test)                                  \
    static uint64_t name(const struct kernel *k)                        \
    {                                                                   \
        uint64_t c = 0;                                                 \
                                                                        \
        for (unsigned i = 0; i < (n); i++) {                            \
            c += (test) ? 1 : 0;                                        \
        }                                                               \
        return c;                                                       \
    }

COUNT_USED(n_procs, procs, KERNEL_MAX_PROCS, k->procs[i].used)
COUNT_USED(n_devices, devices, KERNEL_MAX_DEVICES, k->devices[i].used)
COUNT_USED(n_contexts, contexts, KERNEL_MAX_CONTEXTS, k->contexts[i].used)
COUNT_USED(n_allocs, allocs, KERNEL_MAX_ALLOCS, k->allocs[i].used)
COUNT_USED(n_syncs, syncs, KERNEL_MAX_SYNCS, k->syncs[i].used)
COUNT_USED(n_buffers, buffers, KERNEL_MAX_BUFFERS, k->buffers[i].used)
COUNT_USED(n_waits, waits, KERNEL_MAX_WAITS,
           k->waits[i].kind != KWAIT_NONE)
COUNT_USED(n_shared, shared, KERNEL_MAX_SHARED, k->shared[i].obj != NULL)
COUNT_USED(n_grants, grants, KISOLATE_GRANTS, k->grants[i].name != 0)
COUNT_USED(n_vamaps, vamaps, KVAMAP_MAX, k->vamaps[i].used)
COUNT_USED(n_paging, paging, KERNEL_MAX_PAGING, k->paging[i].used)
COUNT_USED(n_dma_dying, dma_dying, KDMA_DYING_MAX, k->dma_dying[i] != 0)
COUNT_USED(n_vwaits, vwait, KDISPLAY_VSYNC_WAITS,
           k->display.vwait[i].fn != NULL)
COUNT_USED(n_pbs, pb, KSCENE_MAX_PB, k->scene.pb[i].used)
COUNT_USED(n_gv_allocs, alloc, KGPUVA_MAX_ALLOCS, k->gpuva.alloc[i].used)
COUNT_USED(n_gv_paging, paging, KGPUVA_MAX_PAGING,
           k->gpuva.paging[i].used)
COUNT_USED(n_gv_procs, proc, KGPUVA_MAX_PROCS, k->gpuva.proc[i].on)
COUNT_USED(n_gv_devs, dev, KGPUVA_MAX_DEVICES, k->gpuva.dev[i].on)

static uint64_t n_presents(const struct kernel *k)
{
    uint64_t c = 0;

    for (unsigned i = 0; i < DDI_MAX_SOURCES; i++) {
        c += k->display.src[i].q_count;
    }
    return c;
}

static uint64_t n_seg_blocks(const struct kernel *k)
{
    return k->seg.count;
}

static uint64_t n_gv_vram_blocks(const struct kernel *k)
{
    return k->gpuva.on ? k->gpuva.vram.count : 0;
}

static uint64_t n_gv_aper_blocks(const struct kernel *k)
{
    return k->gpuva.on ? k->gpuva.aper.count : 0;
}

/* The pools of bytes: what processes were charged. */
static uint64_t charged(const struct kernel *k, enum kquota_kind kind)
{
    uint64_t c = 0;

    for (unsigned i = 0; i < KERNEL_MAX_PROCS; i++) {
        c += k->procs[i].used ? k->procs[i].quota.used[kind] : 0;
    }
    return c;
}

static uint64_t b_kvram(const struct kernel *k)
{
    return charged(k, KQ_KVRAM);
}

static uint64_t b_backing(const struct kernel *k)
{
    return charged(k, KQ_BACKING);
}

static uint64_t b_pinned(const struct kernel *k)
{
    return charged(k, KQ_PINNED);
}

static uint64_t b_gv_vram(const struct kernel *k)
{
    return charged(k, KQ_GPUVA_VRAM);
}

static uint64_t b_gv_aper(const struct kernel *k)
{
    return charged(k, KQ_GPUVA_APER);
}

/*
 * Every block of the kernel's segment belongs to one record of a table
 * with a quota or to the kernel's fixed set: a context's save area, a
 * DMA buffer, a sync object's value, an allocation with fixed
 * placement; the paging buffers' packets, the GPU-VA DMA arenas and
 * VRAM, the display's black primaries. The block table cannot fill
 * before those tables do.
 */
#define SEG_BLOCKS_BOUND                                                \
    (KERNEL_MAX_CONTEXTS + KERNEL_MAX_BUFFERS + KERNEL_MAX_SYNCS +      \
     KERNEL_MAX_ALLOCS + KERNEL_MAX_PAGING + KGPUVA_MAX_PAGING +        \
     KGPUVA_MAX_PROCS + 1 + DDI_MAX_SOURCES)
_Static_assert(SEG_BLOCKS_BOUND <= KERNEL_SEGMENT_BLOCKS,
               "the kernel segment's block table can fill before the "
               "tables whose records hold its blocks");
_Static_assert(VIDMM_RES_MAX_PROCESSES >= KGPUVA_MAX_PROCS &&
               KGPUVA_MAX_PROCS >= KERNEL_MAX_PROCS &&
               VIDMM_RES_MAX_DEVICES >= KGPUVA_MAX_DEVICES &&
               KGPUVA_MAX_DEVICES >= KERNEL_MAX_DEVICES,
               "a GPU-VA table smaller than the kernel's records");

#define Q(f, k, cap, fn) \
    { .field = f, .rule = KTABLE_QUOTA, .kind = k, .capacity = cap, \
      .count = fn }
#define PER(f, cap, w) \
    { .field = f, .rule = KTABLE_PER_PROCESS, .capacity = cap, .why = w }
#define BOUND(f, cap, b, w, fn) \
    { .field = f, .rule = KTABLE_BOUNDED, .capacity = cap, .bound = b, \
      .why = w, .count = fn }
#define KERN(f, cap, w, fn) \
    { .field = f, .rule = KTABLE_KERNEL, .capacity = cap, .why = w, \
      .count = fn }
#define REC(f, cap, w) \
    { .field = f, .rule = KTABLE_RECORD, .capacity = cap, .why = w }

static const struct ktable list[] = {
    /* what the API fills: a quota each (kquota.h) */
    Q("kernel.devices", KQ_DEVICES, KERNEL_MAX_DEVICES, n_devices),
    Q("kernel.contexts", KQ_CONTEXTS, KERNEL_MAX_CONTEXTS, n_contexts),
    Q("kernel.allocs", KQ_ALLOCS, KERNEL_MAX_ALLOCS, n_allocs),
    Q("kernel.syncs", KQ_SYNCS, KERNEL_MAX_SYNCS, n_syncs),
    Q("kernel.buffers", KQ_BUFFERS, KERNEL_MAX_BUFFERS, n_buffers),
    Q("kernel.waits", KQ_WAITS, KERNEL_MAX_WAITS, n_waits),
    Q("kernel.shared", KQ_SHARED, KERNEL_MAX_SHARED, n_shared),
    Q("kernel.grants", KQ_GRANTS, KISOLATE_GRANTS, n_grants),
    Q("kernel.vamaps", KQ_VIEWS, KVAMAP_MAX, n_vamaps),
    /* the scheduler's buffer table less what DMA buffers and paging
     * buffers can hold of it: its GPU signals and waits */
    Q("vidsch.buffers", KQ_GPU_SYNCS,
      KERNEL_SCHED_BUFFERS - KERNEL_MAX_BUFFERS - KERNEL_MAX_PAGING -
      KGPUVA_MAX_PAGING, NULL),
    /* presents: only the source's owner (a privileged process) queues */
    Q("ksource.q", KQ_PRESENTS, KDISPLAY_QUEUE, n_presents),
    Q("kdisplay.vwait", KQ_VSYNC_WAITS, KDISPLAY_VSYNC_WAITS, n_vwaits),
    Q("kscene.pb", KQ_SCENE_PBS, KSCENE_MAX_PB, n_pbs),
    Q("kgpuva.alloc", KQ_GPUVA_ALLOCS, KGPUVA_MAX_ALLOCS, n_gv_allocs),
    Q("kgpuva.res_alloc", KQ_GPUVA_ALLOCS, KGPUVA_MAX_ALLOCS, n_gv_allocs),
    /* pools of bytes (capacity: 0, the pool is sized at start) */
    Q("kernel.seg bytes", KQ_KVRAM, 0, b_kvram),
    Q("page_pool bytes", KQ_BACKING, 0, b_backing),
    Q("pinned VRAM bytes", KQ_PINNED, 0, b_pinned),
    Q("kgpuva.vram bytes", KQ_GPUVA_VRAM, 0, b_gv_vram),
    Q("kgpuva.aper bytes", KQ_GPUVA_APER, 0, b_gv_aper),

    /* bounded by the tables above */
    BOUND("kernel.seg_blocks", KERNEL_SEGMENT_BLOCKS, SEG_BLOCKS_BOUND,
          "one block per save area, DMA buffer, sync value, allocation "
          "with fixed placement, and the kernel's fixed set",
          n_seg_blocks),
    BOUND("kgpuva.vram_blocks", KGPUVA_MAX_ALLOCS + 1, KGPUVA_MAX_ALLOCS,
          "one block per resident GPU-VA allocation", n_gv_vram_blocks),
    BOUND("kgpuva.aper_blocks", KGPUVA_MAX_ALLOCS + 1, KGPUVA_MAX_ALLOCS,
          "one range per GPU-VA allocation", n_gv_aper_blocks),
    BOUND("kgpuva.proc", KGPUVA_MAX_PROCS, KERNEL_MAX_PROCS,
          "one per process record, at its index", n_gv_procs),
    BOUND("kgpuva.dev", KGPUVA_MAX_DEVICES, KERNEL_MAX_DEVICES,
          "one per device record, at its index", n_gv_devs),
    BOUND("vidmm_res.proc", VIDMM_RES_MAX_PROCESSES, KGPUVA_MAX_PROCS,
          "one per GPU-VA process", NULL),
    BOUND("vidmm_res.dev", VIDMM_RES_MAX_DEVICES, KGPUVA_MAX_DEVICES,
          "one per GPU-VA device", NULL),
    BOUND("vidsch.contexts", KERNEL_MAX_CONTEXTS, KERNEL_MAX_CONTEXTS,
          "one per context record", NULL),
    BOUND("kdisplay.src", DDI_MAX_SOURCES, DDI_MAX_SOURCES,
          "one per display source of the GPU", NULL),

    /* one per process: its owner alone fills its own */
    PER("kproc.slots", KERNEL_PROC_HANDLES, "the process's handles"),
    PER("kproc.opened", KERNEL_PROC_HANDLES, "per handle slot"),
    PER("kproc.locked", KERNEL_PROC_HANDLES, "per handle slot"),
    PER("kproc.handle_denied", KERNEL_PROC_HANDLES, "per handle slot"),
    PER("kgpuva_proc.va_blocks", KGPUVA_MAX_ALLOCS + 1,
        "its own address space"),
    PER("kgpuva_proc.dma_blocks", KGPUVA_DMA_BLOCKS,
        "its own DMA-buffer arena"),
    PER("kgpuva_dev.entry", KGPUVA_LIST, "its device's residency list"),

    /* the kernel's own */
    KERN("kernel.procs", KERNEL_MAX_PROCS,
         "processes are started by the session manager, not by a call "
         "of theirs", n_procs),
    KERN("kernel.paging", KERNEL_MAX_PAGING,
         "vidmm's paging buffers, held until they retire", n_paging),
    KERN("kernel.dma_dying", KDMA_DYING_MAX,
         "freed pageable DMA buffers that a paging buffer in flight still "
         "moves, destroyed when it retires: at most every move of the "
         "KERNEL_MAX_PAGING paging buffers", n_dma_dying),
    KERN("kgpuva.paging", KGPUVA_MAX_PAGING,
         "the GPU-VA pager's buffers, held until they retire",
         n_gv_paging),
    KERN("kernel.trace", KERNEL_TRACE,
         "a ring of scheduler decisions, oldest overwritten", NULL),

    /* fields of one record */
    REC("kbuffer.desc", DDI_MAX_ALLOC_LIST, "a buffer's allocation list"),
    REC("kbuffer.alloc", DDI_MAX_ALLOC_LIST, "a buffer's allocation list"),
    REC("kbuffer.vm_list", DDI_MAX_ALLOC_LIST + 1,
        "a buffer's list and its own pageable DMA buffer"),
    REC("kbuffer.vm_slot", DDI_MAX_ALLOC_LIST + 1,
        "a buffer's list and its own pageable DMA buffer"),
    REC("kscene_pb.partial", KSCENE_PARTIAL_DW, "a partial render"),
    REC("kscene.check_dw", KSCENE_PARTIAL_DW, "the partial render check"),
    REC("kernel.quota_pool", KQ_COUNT, "per quota kind"),
    REC("kernel_census.tables", KTABLES_MAX, "per table of this list"),
    REC("kquota.used", KQ_COUNT, "per quota kind"),
    REC("kquota.limit", KQ_COUNT, "per quota kind"),
    REC("kquota.reserve", KQ_COUNT, "per quota kind"),
};

_Static_assert(sizeof(list) / sizeof(list[0]) <= KTABLES_MAX,
               "kernel_census keeps KTABLES_MAX counts");

const struct ktable *ktables(unsigned *n)
{
    *n = sizeof(list) / sizeof(list[0]);
    return list;
}
