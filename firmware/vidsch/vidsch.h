/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vidsch: the GPU scheduler (US 7,444,637; WDDM's VidSch). Pure C: it sees
 * the GPU only through the DDI (ddi/ddi.h) and the rest of the OS only
 * through struct vidsch_env, so the same code runs in the firmware (the
 * kernel's event loop drives it) and on the host against tests/sim.
 *
 * Per engine: one running DMA buffer (plus what is queued on the ring),
 * one being prepared, per-priority ready queues of contexts with an O(1)
 * pick, and contexts blocked on a sync object. Buffers flow:
 *   vidsch_submit (after render) -> context queue -> context ready ->
 *   elected -> prepared on the worker (vidmm residency, patch) ->
 *   ring -> completed | preempted (resume later) | dropped (resubmit) |
 *   aborted by TDR (lost).
 *
 * Threading model: everything runs at one level (the kernel's event loop
 * or the simulator's event loop), never re-entered: upcalls and timers
 * are delivered by the environment between calls.
 *
 * THIS HEADER IS THE CONTRACT BETWEEN THE KERNEL AND THE SCHEDULER. The
 * scheduler may add to it; changing what is here needs both sides.
 */
#ifndef FW_VIDSCH_VIDSCH_H
#define FW_VIDSCH_VIDSCH_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"

/* Priority classes, as D3DKMT's scheduling priority classes. */
enum vidsch_priority {
    VIDSCH_PRIO_IDLE,
    VIDSCH_PRIO_BELOW_NORMAL,
    VIDSCH_PRIO_NORMAL,
    VIDSCH_PRIO_ABOVE_NORMAL,
    VIDSCH_PRIO_HIGH,
    VIDSCH_PRIO_REALTIME,
    VIDSCH_PRIO_COUNT,
};

enum vidsch_policy {
    VIDSCH_POLICY_FIFO,     /* cooperative, submission order, no preemption */
    VIDSCH_POLICY_PRIORITY, /* highest ready priority; preempts lower */
    VIDSCH_POLICY_QUANTUM,  /* priority + round robin with a quantum, aging */
};

const char *vidsch_policy_name(enum vidsch_policy p);
/* "fifo" | "priority" | "quantum" -> 0 and *p, else -1 */
int vidsch_policy_parse(const char *s, enum vidsch_policy *p);

struct vidsch_config {
    enum vidsch_policy policy;
    uint64_t quantum_ns;        /* quantum policy: turn length */
    uint64_t aging_ns;          /* ready this long without running: boost */
    uint64_t tdr_timeout_ns;    /* no progress this long: preempt */
    uint64_t tdr_grace_ns;      /* preemption not honoured: reset */
    unsigned tdr_limit;         /* resets within tdr_window_ns ... */
    uint64_t tdr_window_ns;     /* ... that escalate to a device reset */
    bool serial_prepare;        /* prepare only once the engine is idle
                                   (the `overlap` baseline) */
};

void vidsch_config_default(struct vidsch_config *c);

/*
 * What the scheduler needs from the OS around it. now() is the GPU clock
 * (virtual ns). set_timer() asks for vidsch_timer() to be called at (or
 * soon after) the given time; one timer, re-arming replaces it.
 * queue_work() asks for vidsch_worker() to run soon, at passive level (the
 * patent's worker thread); the sim charges a preparation cost there.
 * Completion and loss are reported per buffer with the cookie the kernel
 * gave at submit.
 */
struct vidsch_env {
    void *os;
    uint64_t (*now)(void *os);
    void (*set_timer)(void *os, uint64_t when_ns);
    void (*queue_work)(void *os);
    /* the buffer retired (status DDI_OK) or was lost (DDI_ELOST) */
    void (*buffer_done)(void *os, uint64_t cookie, int status);
    /* the context was put in error by TDR (its process: device removed) */
    void (*context_lost)(void *os, uint32_t context);
};

struct vidsch;                  /* opaque; vidsch_create gives one */
struct vidsch_ctx;              /* a scheduling context */

/* Per-context statistics (os.md section 4). */
struct vidsch_ctx_stats {
    uint64_t gpu_ns;            /* time on the engine (submit->retire of
                                   its buffers, as the device charges) */
    uint64_t queued_ns;         /* time ready but not running */
    uint64_t submitted, completed, lost;
    uint64_t preemptions;       /* times one of its buffers was preempted */
    uint64_t latency_ns[8];     /* submit->start histogram: <10us, <100us,
                                   <1ms, <10ms, <100ms, <1s, <10s, more */
    uint64_t latency_max_ns;
};

/* Creates a scheduler over dev with env; NULL if out of memory (the
 * firmware gives it static storage: see vidsch_storage_size). */
struct vidsch *vidsch_create(void *storage, uint64_t storage_bytes,
                             struct ddi_device *dev,
                             const struct vidsch_env *env,
                             const struct vidsch_config *cfg);
uint64_t vidsch_storage_size(unsigned max_contexts, unsigned max_buffers);

/* The upcalls the driver must be given (os = the struct vidsch *). */
extern const struct ddi_upcalls vidsch_upcalls;

/* Contexts: id is the hardware context id on the ring; save_addr its
 * save area (COPRO_SAVE_SIZE bytes of GPU memory, from the kernel). */
struct vidsch_ctx *vidsch_ctx_create(struct vidsch *s, uint32_t id,
                                     unsigned engine,
                                     enum vidsch_priority prio,
                                     uint64_t save_addr);
/* Drops its queued buffers (reported lost) and forgets it once its
 * running buffer has retired; false if it has work on the GPU still
 * (call again later). */
bool vidsch_ctx_destroy(struct vidsch *s, struct vidsch_ctx *c);
const struct vidsch_ctx_stats *vidsch_ctx_stats(const struct vidsch_ctx *c);
bool vidsch_ctx_is_lost(const struct vidsch_ctx *c);

/*
 * Queues a rendered DMA buffer on its context. The buffer storage stays
 * the kernel's until buffer_done(cookie). alloc: the allocation
 * descriptors of buf->alloc (placement filled by vidmm before patch; in
 * fixed placement they are final already). DDI_ELOST for a lost
 * context, DDI_ENOMEM if the scheduler's buffer table is full.
 */
int vidsch_submit(struct vidsch *s, struct vidsch_ctx *c,
                  struct ddi_dmabuf *buf, struct ddi_alloc_desc *alloc,
                  uint64_t cookie);

/*
 * GPU-side synchronisation on a monitored fence (sync object): signal
 * queues "write value to *cpu_addr when every buffer submitted before it
 * on c has retired"; wait holds c (nothing of it is elected) until
 * *cpu_addr >= value. The scheduler polls the value when fences retire
 * and on its timer; vidsch_sync_changed() tells it a CPU signal happened.
 */
int vidsch_signal(struct vidsch *s, struct vidsch_ctx *c,
                  volatile uint64_t *cpu_addr, uint64_t value);
int vidsch_wait(struct vidsch *s, struct vidsch_ctx *c,
                volatile const uint64_t *cpu_addr, uint64_t value);
void vidsch_sync_changed(struct vidsch *s);

/* Entry points the environment calls. */
void vidsch_timer(struct vidsch *s);       /* the timer it asked for */
void vidsch_worker(struct vidsch *s);      /* the work it queued */

/* True when nothing is queued, prepared or on any engine. */
bool vidsch_idle(const struct vidsch *s);

#endif /* FW_VIDSCH_VIDSCH_H */
