/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro: a preemptible GPU-like coprocessor (device-internal definitions)
 *
 * The guest-visible ABI lives in include/copro/; this header holds the
 * device model's own state and is shared by the files in hw/copro/.
 */
#ifndef HW_COPRO_H
#define HW_COPRO_H

#include "hw/pci/pci_device.h"
#include "qemu/notify.h"
#include "qemu/units.h"
#include "qom/object.h"
#include "copro/copro_regs.h"
#include "copro/copro_cmd.h"
#include "copro-display.h"
#include "copro-hwsched.h"
#include "copro-tiler.h"

#define TYPE_COPRO "copro"
OBJECT_DECLARE_SIMPLE_TYPE(CoproState, COPRO)

/* limits and defaults of the cost-model properties */
#define COPRO_PACKET_NS_MAX             1000000000ULL   /* 1 s */
#define COPRO_ARBITRATION_NS_MIN        1000ULL         /* 1 us */
#define COPRO_ARBITRATION_NS_MAX        10000000ULL     /* 10 ms */
#define COPRO_ARBITRATION_NS_DEFAULT    100000ULL       /* 100 us */
/*
 * 256 KiB at the default 8 GiB/s copy bandwidth: about 30 us to save and
 * as much to restore, the order of a real GPU's context switch (tens of
 * MB at hundreds of GB/s; Pascal-class: under 100 us).
 */
#define COPRO_CTX_STATE_DEFAULT         (256 * KiB)
#define COPRO_CTX_STATE_MAX             (1ULL << 32)

/* cost model of the command processor */
typedef enum CoproTiming {
    COPRO_TIMING_MODELLED,
    COPRO_TIMING_INSTANT,
} CoproTiming;

typedef struct CoproTarget {
    uint64_t addr;
    uint32_t pitch;
    uint32_t width;
    uint32_t height;
    uint32_t format;
} CoproTarget;

/* A packet being executed; long packets run in steps. */
typedef struct CoproPacket {
    uint32_t offset;        /* byte offset of the packet in the buffer */
    uint32_t hdr;
    uint32_t dw[COPRO_LEN_SET_TARGET - 1];  /* payload (largest packet) */
    uint64_t progress;      /* bytes or rows done, or ns of WORK done */
} CoproPacket;

typedef struct CoproEngine {
    struct CoproState *dev;
    unsigned index;

    /* driver-programmed registers */
    uint64_t ring_base;
    uint32_t ring_size;
    uint32_t ring_head;
    uint32_t ring_tail;
    uint64_t fence_wb;

    /* execution state */
    uint32_t state;                 /* COPRO_ENG_STATE_* */
    bool active;                    /* a submission is loaded */
    struct copro_submit_desc desc;  /* the loaded submission */
    uint32_t pc;                    /* byte offset of next packet */
    bool in_packet;                 /* cur is fetched, not yet retired */
    bool step_pending;              /* a step is charged, effect pending */
    bool restore_pending;           /* RESUME: save record not loaded yet
                                       (a fault reading it is retried) */
    CoproPacket cur;
    uint32_t rect_x, rect_y, rect_w, rect_h;    /* clipped RECT */
    uint32_t rect_rows_step;        /* RECT rows per step */
    CoproTarget targets[COPRO_TARGET_SLOTS];
    int64_t cursor;                 /* engine clock: end of charged work */
    uint64_t completed_fence;
    uint32_t user_data;

    /* preemption (copro-preempt.c) */
    bool preempt_pending;
    bool preempt_saving;            /* at the arbitration point, saving
                                       context state until cursor */
    uint64_t preempt_req;           /* PREEMPT_REQ as written so far */
    int64_t preempt_req_time;       /* virtual ns of the request */
    uint64_t preempt_fence;         /* last request completed */
    uint64_t preempted_fence;       /* submission it interrupted, or 0 */
    uint64_t stat_preemptions;
    uint64_t stat_preempt_min;
    uint64_t stat_preempt_max;
    uint64_t stat_preempt_sum;
    uint32_t inject;                /* COPRO_INJECT_*, x-fault-injection */

    /* fault latch */
    uint32_t fault_kind;
    uint32_t fault_offset;
    uint64_t fault_addr;
    uint64_t fault_fence;
    uint32_t fault_context;
    uint32_t fault_info;
    uint64_t aborted_fence;

    /* statistics */
    uint64_t stat_busy_ns;
    uint64_t stat_submissions;
    uint64_t stat_packets;
    uint64_t stat_bytes;
    uint64_t stat_faults;

    /* under -icount: steps run so far at virtual time slice_stamp */
    int64_t slice_stamp;
    uint32_t slice_used;

    /*
     * Quiet-period batching (x-batch, copro-batch.c): a step run ahead of
     * its end time. batching is set while one runs (not migrated);
     * fault_irq_due says a fault latched by such a step still has its
     * interrupt (and timeline event) due at the engine clock (cursor).
     */
    bool batching;
    bool fault_irq_due;

    CoproTilerEngine tiler;         /* copro-tiler.c */

    QEMUTimer *timer;
    QEMUBH *bh;
    uint8_t *bounce;                /* one step's data (COPRO_CHUNK_BYTES) */
} CoproEngine;

/* what a step did (copro-engine.c, copro-tiler.c) */
typedef enum StepResult {
    STEP_DONE,      /* packet retired */
    STEP_MORE,      /* packet has more steps */
    STEP_BLOCKED,   /* WAIT not satisfied */
    STEP_FAULT,     /* engine halted */
    STEP_STOPPED,   /* submission stopped and saved (tiler OOM) */
} StepResult;

/* per-context busy time, for statistics (small open-addressed table) */
#define COPRO_CTX_STATS 64
typedef struct CoproCtxStat {
    uint32_t context;
    uint32_t used;
    uint64_t busy_ns;
    uint64_t submissions;
} CoproCtxStat;

/* GPU memory management (copro-mmu.c) */
#define COPRO_TLB_SETS 128      /* per engine, per kind, direct-mapped */
typedef struct CoproTlbEntry {
    uint64_t page;      /* aperture page index, or context VA page */
    uint64_t target;    /* guest-physical page, or GPU physical page */
    uint32_t context;   /* VA entries: the context */
    uint8_t valid;
    uint8_t writable;
} CoproTlbEntry;

typedef struct CoproTlb {
    CoproTlbEntry gart[COPRO_TLB_SETS];
    CoproTlbEntry va[COPRO_TLB_SETS];
    uint64_t hits;
    uint64_t misses;
} CoproTlb;

typedef struct CoproMmuFault {
    uint32_t valid;
    uint32_t engine;
    uint32_t kind;
    uint32_t context;
    uint32_t info;      /* COPRO_FAULT_INFO_* */
    uint64_t addr;
    uint64_t fence;
} CoproMmuFault;

typedef struct CoproMmu {
    uint64_t gart_base;
    uint32_t gart_entries;
    uint32_t gart_inval_first;
    uint64_t ctx_base;
    uint32_t ctx_size;
    uint32_t nfaults;
    CoproMmuFault last_fault;
    CoproTlb tlb[COPRO_MAX_ENGINES];
} CoproMmu;

/* a failed GPU memory access, for copro_engine_fault() */
typedef struct CoproMemFault {
    uint32_t kind;
    uint64_t addr;
    uint32_t info;
} CoproMemFault;

/*
 * The timeline (copro-timeline.c): a host-side log of what the engines,
 * the display and the guest's markers did, for people and tools. It is
 * not guest-visible and not migrated; off, it costs one test per hook.
 */
#define COPRO_TL_ARGS       5
#define COPRO_TL_NO_ENGINE  0xff
#define COPRO_TL_MAX        (4u << 20)      /* events */
#define COPRO_TL_DEFAULT    65536u          /* events, enabled over QMP */

typedef enum CoproTlKind {
    COPRO_TL_DOORBELL = 1,
    COPRO_TL_START,
    COPRO_TL_RETIRE,
    COPRO_TL_PREEMPT_REQUEST,
    COPRO_TL_PREEMPT_SAVED,
    COPRO_TL_RESUME,
    COPRO_TL_FAULT,
    COPRO_TL_RETRY,
    COPRO_TL_RESET,
    COPRO_TL_DEVICE_RESET,
    COPRO_TL_FLIP,
    COPRO_TL_VSYNC,
    COPRO_TL_FLIP_DONE,
    COPRO_TL_SCENE_BEGIN,       /* copro-tiler.c: the two stages */
    COPRO_TL_SCENE_END,
    COPRO_TL_TILER_OOM,
    COPRO_TL_TILE_PASS_START,
    COPRO_TL_TILE_PASS_END,
    COPRO_TL_QUEUE_IN,          /* hardware queue switched in */
    COPRO_TL_QUEUE_OUT,         /* ... switched out */
    COPRO_TL_QUEUE_FRAME,       /* ... its budget and GPU time at a vsync */
    /* guest markers: COPRO_TL_MARK + COPRO_MARK_* */
    COPRO_TL_MARK = 64,
    COPRO_TL_KINDS = COPRO_TL_MARK + COPRO_MARK_LAST + 1,
} CoproTlKind;

typedef struct CoproTlEvent {
    int64_t time;               /* QEMU_CLOCK_VIRTUAL ns */
    uint16_t kind;              /* CoproTlKind */
    uint8_t engine;             /* or COPRO_TL_NO_ENGINE */
    bool has_context;           /* about a submission (or a marker) */
    uint32_t context;
    uint64_t arg[COPRO_TL_ARGS];    /* as the kind's table entry says */
} CoproTlEvent;

typedef struct CoproTlLog {
    bool on;                    /* recording */
    CoproTlEvent *ev;           /* ring of capacity events, or NULL */
    uint32_t capacity;
    uint32_t first;             /* index of the oldest event */
    uint32_t head;              /* index of the next event */
    uint32_t count;
    uint64_t next_seq;          /* seq of the next event recorded */
    uint64_t dropped;           /* overwritten since enabled or cleared */
    /*
     * engine statistics when its submission started (UINT64_MAX: not
     * seen), so that a retire can say what the submission moved
     */
    uint64_t start_bytes[COPRO_MAX_ENGINES];
    Notifier exit_notifier;     /* writes x-timeline-file at exit */
    /* guest marker registers */
    uint64_t mark_arg[2];
    uint64_t mark;
    /*
     * x-copro-stop-at: stop the VM at the stop_left-th event of kind
     * stop_kind (-1: none), or when stop_timer fires. Host-side, like the
     * log: not migrated, kept across a device reset.
     */
    int stop_kind;
    uint64_t stop_left;
    QEMUTimer *stop_timer;
    QEMUBH *stop_bh;            /* the stop itself (vm_stop) */
} CoproTlLog;

struct CoproState {
    PCIDevice parent_obj;

    /* properties */
    uint64_t vram_size;
    uint32_t num_engines;
    bool msix_enabled_prop;
    bool msi_enabled_prop;
    uint32_t timing;
    uint64_t packet_ns;
    uint64_t copy_bw;       /* bytes per second */
    uint64_t fill_bw;       /* bytes per second */
    uint64_t pixel_rate;    /* pixels per second */
    uint32_t slice_packets; /* packets executed per main-loop slice */
    bool batch;             /* x-batch: run quiet steps back to back */
    uint64_t arbitration_ns; /* WORK slice: mid-command arbitration */
    uint64_t ctx_state_size; /* bytes saved/restored per preemption */
    uint32_t preempt;       /* COPRO_PREEMPT_* granularity */
    bool fault_injection;
    uint32_t refresh;       /* display vsync rate, Hz */
    uint32_t timeline;      /* timeline events kept, 0 = off */
    char *timeline_file;    /* x-timeline-file: written at exit */
    bool hwsched;           /* hardware queues and run lists (BAR1) */

    MemoryRegion mmio;
    MemoryRegion vram;
    uint8_t *vram_ptr;

    uint32_t scratch;
    uint64_t int_status;
    uint64_t int_mask;
    uint32_t int_test_data;

    CoproEngine engines[COPRO_MAX_ENGINES];
    CoproCtxStat ctx_stats[COPRO_CTX_STATS];

    uint64_t aperture_size; /* property */
    CoproMmu mmu;
    CoproDisplay display;   /* copro-display.c */
    CoproTlLog tl;          /* copro-timeline.c */
    CoproHws hws;           /* copro-hwsched.c */
    CoproTiler tiler;       /* copro-tiler.c */

    VMChangeStateEntry *vmstate_change;
};

/* copro.c */
bool copro_dma_hits_self(CoproState *s, dma_addr_t addr, dma_addr_t len);
int64_t copro_now_ns(void);

/* copro-regs.c */
void copro_raise_irq(CoproState *s, uint64_t causes);
void copro_update_intx(CoproState *s);
extern const MemoryRegionOps copro_mmio_ops;

/* copro-engine.c (its migration: copro-engine-state.c) */
void copro_engine_init(CoproState *s, unsigned index);
void copro_engine_fini(CoproEngine *e);
void copro_engine_reset(CoproEngine *e);
uint64_t copro_engine_read(CoproEngine *e, hwaddr reg);
void copro_engine_write(CoproEngine *e, hwaddr reg, uint64_t val,
                        uint64_t mask);
bool copro_engine_post_load(CoproEngine *e);
bool copro_engine_has_work(CoproEngine *e);
void copro_engine_vm_start(CoproEngine *e);
void copro_engines_fence_written(CoproState *s);
void copro_engine_kick(CoproEngine *e);
void copro_engine_kick_io(CoproEngine *e);
const char *copro_op_name(uint32_t op);             /* copro-packet.c */
const char *copro_fault_name(uint32_t kind);
const char *copro_engine_state_name(uint32_t state);
uint32_t copro_engine_state(CoproEngine *e);
extern const VMStateDescription vmstate_copro_engine;
extern const VMStateDescription vmstate_copro_ctx_stat;

/* copro-mmu.c */
bool copro_mmu_rw(CoproEngine *e, bool physical, uint64_t addr, void *buf,
                  uint64_t len, bool is_write, CoproMemFault *f);
bool copro_mmu_rw_ctx(CoproEngine *e, bool physical, uint32_t context,
                      uint64_t addr, void *buf, uint64_t len, bool is_write,
                      CoproMemFault *f);
void copro_mmu_flush(CoproState *s);
void copro_mmu_reset(CoproState *s);
uint64_t copro_mmu_read(CoproState *s, hwaddr reg);
void copro_mmu_write(CoproState *s, hwaddr reg, uint64_t val, uint64_t mask);
uint64_t copro_mmu_engine_stat(CoproEngine *e, hwaddr reg);
uint64_t copro_mmu_gart_valid(CoproState *s);
bool copro_gart_lookup(CoproState *s, uint64_t ap_off, uint64_t *bus);
void copro_engine_retry(CoproEngine *e);
struct CoproInfo;
void copro_mmu_info(CoproState *s, struct CoproInfo *info);
void copro_mmu_hmp(Monitor *mon, struct CoproInfo *d);
extern const VMStateDescription vmstate_copro_mmu;

/* copro-engine.c, copro-packet.c: for the other parts of the engine */
bool copro_mem_access(CoproEngine *e, bool physical, uint64_t addr,
                      void *buf, uint64_t len, bool is_write);
void copro_engine_fault(CoproEngine *e, uint32_t kind, uint64_t addr,
                        uint32_t info);
bool copro_prepare_rect(CoproEngine *e);
bool copro_target_ok(const CoproTarget *t);
uint32_t copro_packet_check(CoproEngine *e);
bool copro_packet_progress_ok(CoproEngine *e);
uint64_t copro_ctx_switch_ns(CoproEngine *e);
void copro_account(CoproEngine *e, uint64_t ns);
uint64_t copro_gpu_addr_add(uint64_t base, uint64_t off);
uint64_t copro_cost(CoproEngine *e, uint64_t units, uint64_t rate);

/* copro-tiler.c */
bool copro_tiler_op(uint32_t op);
bool copro_tiler_check_props(CoproState *s, Error **errp);
void copro_tiler_init(CoproState *s);
void copro_tiler_fini(CoproState *s);
void copro_tiler_reset(CoproState *s);
void copro_tiler_engine_soft_reset(CoproEngine *e);
bool copro_tiler_fields_ok(CoproEngine *e);
bool copro_tiler_progress_ok(CoproEngine *e);
uint64_t copro_tiler_step_cost(CoproEngine *e);
StepResult copro_tiler_exec(CoproEngine *e);
bool copro_tiler_at_boundary(CoproEngine *e);
void copro_tiler_retire(CoproEngine *e);
void copro_tiler_ack(CoproEngine *e);
void copro_tiler_save(CoproEngine *e, struct copro_save_record *r);
bool copro_tiler_restore(CoproEngine *e, const struct copro_save_record *r);
uint64_t copro_tiler_engine_read(CoproEngine *e, hwaddr reg);
uint64_t copro_tiler_read(CoproState *s, hwaddr reg);
bool copro_tiler_engine_post_load(CoproEngine *e);
extern const VMStateDescription vmstate_copro_tiler_engine;
extern const VMStateDescription vmstate_copro_tiler;

/* copro-preempt.c */
void copro_save_record_fill(CoproEngine *e, struct copro_save_record *r);
void copro_engine_stop(CoproEngine *e);
void copro_engine_abort(CoproEngine *e);
void copro_preempt_request(CoproEngine *e, uint64_t val, uint64_t mask);
bool copro_preempt_possible(CoproEngine *e);
bool copro_preempt_arbitrate(CoproEngine *e, int64_t now);
bool copro_preempt_restore(CoproEngine *e);
void copro_inject_write(CoproEngine *e, uint32_t val);

/* copro-engine.c: load ring entry @idx of the ring at @base */
bool copro_load_entry(CoproEngine *e, uint64_t base, uint32_t idx,
                      uint32_t *advance);

/* copro-hwsched.c (hardware scheduling) */
void copro_hws_init(CoproState *s);
void copro_hws_fini(CoproState *s);
void copro_hws_reset(CoproState *s);
uint64_t copro_hws_read(CoproState *s, hwaddr reg);
void copro_hws_write(CoproState *s, hwaddr reg, uint64_t val, uint64_t mask);
bool copro_hws_fetch(CoproEngine *e);
bool copro_hws_blocked(CoproEngine *e, int64_t now);
bool copro_hws_retire(CoproEngine *e);
bool copro_hws_completion_irq(CoproEngine *e);
void copro_hws_queue_fault(CoproEngine *e);
void copro_hws_tiler_oom(CoproEngine *e, uint64_t scene, uint32_t need);
void copro_hws_saved(CoproEngine *e, bool saved, uint64_t fence);
void copro_hws_account(CoproEngine *e, uint64_t ns);
void copro_hws_engine_reset(CoproEngine *e);
void copro_hws_fence_written(CoproState *s);
uint64_t copro_hws_vsync(CoproState *s, uint64_t vsync_count);
void copro_hws_vm_start(CoproEngine *e);
bool copro_hws_has_work(CoproEngine *e);
bool copro_hws_any_blocked(CoproState *s);
bool copro_hws_post_load(CoproState *s);
const char *copro_hwq_state_name(uint32_t state);
void copro_hws_info(CoproState *s, struct CoproInfo *info);
void copro_hws_hmp(Monitor *mon, struct CoproInfo *d);
extern const VMStateDescription vmstate_copro_hws;

/* the engine fetches from its run list's queues, not its kernel ring */
static inline bool copro_hws_engine_on(CoproEngine *e)
{
    return e->dev->hws.eng[e->index].active_count != 0;
}

/* a queue is on the engine: its faults and switches are the device's */
static inline bool copro_hws_owns(CoproEngine *e)
{
    return e->dev->hws.eng[e->index].current != COPRO_HWQ_NONE;
}

/* the device's scheduler wants the engine's queue switched out */
static inline bool copro_hws_switching(CoproEngine *e)
{
    return e->dev->hws.eng[e->index].switching;
}

/* copro-monitor.c */
void copro_monitor_register(void);

/* copro-timeline.c */
bool copro_tl_realize(CoproState *s, Error **errp);
void copro_tl_unrealize(CoproState *s);
void copro_tl_reset(CoproState *s);
uint64_t copro_tl_mark_read(CoproState *s, hwaddr reg);
void copro_tl_mark_write(CoproState *s, hwaddr reg, uint64_t val,
                         uint64_t mask);
void copro_tl_engine_event(CoproEngine *e, CoproTlKind kind);
void copro_tl_device_event(CoproState *s, CoproTlKind kind, uint64_t a0,
                           uint64_t a1);
void copro_tl_tiler_event(CoproEngine *e, CoproTlKind kind, uint64_t a0,
                          uint64_t a1);
void copro_tl_queue_event(CoproState *s, CoproTlKind kind, unsigned engine,
                          uint32_t context, uint64_t a0, uint64_t a1,
                          uint64_t a2, uint64_t a3);

/*
 * The hooks: one test when the log is off. An engine event reads what it
 * records from the engine, so call it where that state is current (for
 * PREEMPT_SAVED, before the engine drops its ring).
 */
static inline void copro_tl_engine(CoproEngine *e, CoproTlKind kind)
{
    if (unlikely(e->dev->tl.on)) {
        copro_tl_engine_event(e, kind);
    }
}

static inline void copro_tl_tiler(CoproEngine *e, CoproTlKind kind,
                                  uint64_t a0, uint64_t a1)
{
    if (unlikely(e->dev->tl.on)) {
        copro_tl_tiler_event(e, kind, a0, a1);
    }
}

/* a hardware queue's event on its engine's track (copro-hwsched.c) */
static inline void copro_tl_queue(CoproState *s, CoproTlKind kind,
                                  unsigned engine, uint32_t context,
                                  uint64_t a0, uint64_t a1, uint64_t a2,
                                  uint64_t a3)
{
    if (unlikely(s->tl.on)) {
        copro_tl_queue_event(s, kind, engine, context, a0, a1, a2, a3);
    }
}

static inline void copro_tl_device(CoproState *s, CoproTlKind kind,
                                   uint64_t a0, uint64_t a1)
{
    if (unlikely(s->tl.on)) {
        copro_tl_device_event(s, kind, a0, a1);
    }
}

#endif /* HW_COPRO_H */
