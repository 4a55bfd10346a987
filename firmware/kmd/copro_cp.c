/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_cp.h"

#include <stddef.h>

#include "lib/wait.h"

/* Rings must be 64-byte aligned; write-back slots 8-byte aligned. DMA
 * buffers only need 4, but a cache line keeps dumps easy to read. */
#define RING_ALIGN          64
#define FENCE_WB_ALIGN      8
#define DMABUF_ALIGN        64

static uint32_t eng_reg(unsigned e, uint32_t reg)
{
    return COPRO_ENG_BASE(e) + reg;
}

static uint64_t eng_read64(struct copro_cp *cp, unsigned e, uint32_t reg)
{
    return copro_read64(cp->dev, eng_reg(e, reg));
}

static uint32_t eng_read32(struct copro_cp *cp, unsigned e, uint32_t reg)
{
    return copro_read32(cp->dev, eng_reg(e, reg));
}

void *copro_cp_alloc(struct copro_cp *cp, uint64_t size, uint64_t align,
                     uint64_t *gpu)
{
    if (!copro_vram_alloc(&cp->vram, size, align, gpu)) {
        return NULL;
    }
    return (void *)copro_cp_cpu_ptr(cp, *gpu);
}

bool copro_cp_dmabuf_alloc(struct copro_cp *cp, struct copro_dmabuf *b,
                           uint32_t size)
{
    uint64_t gpu;
    void *cpu = copro_cp_alloc(cp, size, DMABUF_ALIGN, &gpu);

    if (!cpu) {
        return false;
    }
    copro_dmabuf_init(b, cpu, gpu, size);
    return true;
}

static const char *engine_init(struct copro_cp *cp, unsigned e,
                               uint32_t ring_entries)
{
    struct copro_engine *eng = &cp->eng[e];
    struct copro *dev = cp->dev;

    *eng = (struct copro_engine){ .index = e, .ring_entries = ring_entries };
    eng->ring = copro_cp_alloc(cp, (uint64_t)ring_entries * COPRO_DESC_SIZE,
                               RING_ALIGN, &eng->ring_gpu);
    eng->fence_wb = copro_cp_alloc(cp, sizeof(uint64_t), FENCE_WB_ALIGN,
                                   &eng->fence_wb_gpu);
    if (!eng->ring || !eng->fence_wb) {
        return "out of VRAM for rings";
    }
    *eng->fence_wb = 0;

    /* The ring registers only take writes while the engine is idle with
     * an empty ring; after power-on it is. Writing them resets head and
     * tail to 0, which is where the driver starts too. */
    copro_write64(dev, eng_reg(e, COPRO_ENG_RING_BASE), eng->ring_gpu);
    copro_write32(dev, eng_reg(e, COPRO_ENG_RING_SIZE), ring_entries);
    copro_write64(dev, eng_reg(e, COPRO_ENG_FENCE_WB),
                  eng->fence_wb_gpu | COPRO_FENCE_WB_ENABLE);
    if (eng_read64(cp, e, COPRO_ENG_RING_BASE) != eng->ring_gpu ||
        eng_read32(cp, e, COPRO_ENG_RING_SIZE) != ring_entries ||
        eng_read64(cp, e, COPRO_ENG_FENCE_WB) !=
            (eng->fence_wb_gpu | COPRO_FENCE_WB_ENABLE)) {
        return "ring registers did not take (engine not idle?)";
    }
    eng->tail = eng_read32(cp, e, COPRO_ENG_RING_TAIL);
    eng->completed = eng_read64(cp, e, COPRO_ENG_COMPLETED_FENCE);
    eng->last_submitted = eng->completed;
    eng->lost_through = eng->completed;
    return NULL;
}

const char *copro_cp_init(struct copro_cp *cp, struct copro *dev,
                          uint32_t ring_entries)
{
    uint64_t mask = 0;
    const char *err;

    if (!copro_ring_size_valid(ring_entries)) {
        return "ring size not a power of two in 1..4096";
    }
    cp->dev = dev;
    cp->num_engines = dev->info.num_engines;
    if (cp->num_engines > COPRO_MAX_ENGINES) {
        return "more engines than the driver supports";
    }
    copro_vram_init(&cp->vram, dev->info.vram_size);
    for (unsigned e = 0; e < cp->num_engines; e++) {
        err = engine_init(cp, e, ring_entries);
        if (err) {
            return err;
        }
        mask |= COPRO_INT_ENG(e, COPRO_CP_INT_CAUSES);
    }
    /* Drop anything left over from before this driver, then enable. */
    copro_write64(dev, COPRO_REG_INT_STATUS, ~0ull);
    dev->irq.pending = 0;
    copro_write64(dev, COPRO_REG_INT_MASK, mask);
    return NULL;
}

/* Copies a descriptor into a ring slot with aligned 64-bit stores. */
static void ring_write(volatile struct copro_submit_desc *slot,
                       const struct copro_submit_desc *d)
{
    const uint64_t *src = (const uint64_t *)d;
    volatile uint64_t *dst = (volatile uint64_t *)slot;

    for (unsigned i = 0; i < COPRO_DESC_SIZE / 8; i++) {
        dst[i] = src[i];
    }
}

bool copro_cp_submit_desc(struct copro_cp *cp, unsigned e,
                          const struct copro_submit_desc *d)
{
    struct copro_engine *eng = &cp->eng[e];
    uint32_t head;

    if (e >= cp->num_engines) {
        return false;
    }
    /* RING_HEAD advances when the engine loads an entry (it keeps its own
     * copy), so a slot behind head may be reused at once. */
    head = eng_read32(cp, e, COPRO_ENG_RING_HEAD);
    if (copro_ring_space(head, eng->tail, eng->ring_entries) == 0) {
        return false;
    }
    ring_write(&eng->ring[eng->tail], d);
    eng->tail = copro_ring_next(eng->tail, eng->ring_entries);
    if (d->fence > eng->last_submitted) {
        eng->last_submitted = d->fence;
    }
    /* The doorbell. Its MMIO store is ordered after the descriptor and
     * packet stores (x86 keeps stores in order; io.h's clobber keeps the
     * compiler from reordering). */
    copro_write32(cp->dev, eng_reg(e, COPRO_ENG_RING_TAIL), eng->tail);
    return true;
}

uint64_t copro_cp_submit_save(struct copro_cp *cp, unsigned e,
                              uint64_t dma_addr, uint32_t dma_len,
                              uint32_t context, uint32_t flags,
                              uint64_t save_addr)
{
    struct copro_submit_desc d;
    uint64_t fence;

    if (e >= cp->num_engines) {
        return 0;
    }
    fence = cp->eng[e].last_submitted + 1;
    d = copro_desc_make(dma_addr, dma_len, fence, context, flags);
    d.save_addr = save_addr;
    return copro_cp_submit_desc(cp, e, &d) ? fence : 0;
}

uint64_t copro_cp_submit(struct copro_cp *cp, unsigned e,
                         const struct copro_dmabuf *buf, uint32_t context,
                         uint32_t flags)
{
    if (buf && !copro_dmabuf_ok(buf)) {
        return 0;
    }
    return copro_cp_submit_save(cp, e, buf ? buf->gpu_addr : 0,
                                buf ? copro_dmabuf_bytes(buf) : 0, context,
                                flags, 0);
}

static void read_fault(struct copro_cp *cp, unsigned e, uint32_t cause)
{
    struct copro_engine *eng = &cp->eng[e];

    eng->fault = (struct copro_fault){
        .kind = eng_read32(cp, e, COPRO_ENG_FAULT_KIND),
        .offset = eng_read32(cp, e, COPRO_ENG_FAULT_OFFSET),
        .addr = eng_read64(cp, e, COPRO_ENG_FAULT_ADDR),
        .fence = eng_read64(cp, e, COPRO_ENG_FAULT_FENCE),
        .context = eng_read32(cp, e, COPRO_ENG_FAULT_CONTEXT),
        .info = eng_read32(cp, e, COPRO_ENG_FAULT_INFO),
        .cause = cause,
    };
    eng->halted = true;
    eng->faults++;
}

static void engine_dpc(struct copro_cp *cp, unsigned e, uint32_t causes)
{
    struct copro_engine *eng = &cp->eng[e];
    uint64_t completed;

    for (unsigned bit = 0; bit < COPRO_CP_CAUSE_BITS; bit++) {
        if (causes & (1u << bit)) {
            eng->irq_causes[bit]++;
        }
    }
    if (causes & COPRO_INT_USER) {
        eng->user_data = eng_read32(cp, e, COPRO_ENG_USER_DATA);
    }
    /* Any cause may come with retired fences (DMA_DONE is per submission
     * and may be suppressed by NO_IRQ), so always re-read the counter. */
    completed = eng_read64(cp, e, COPRO_ENG_COMPLETED_FENCE);
    if (completed > eng->completed) {
        eng->completed = completed;
    }
    if (causes & COPRO_INT_PREEMPTED) {
        eng->preempt.preempt_fence = eng_read64(cp, e,
                                                COPRO_ENG_PREEMPT_FENCE);
        eng->preempt.preempted_fence = eng_read64(cp, e,
                                                  COPRO_ENG_PREEMPTED_FENCE);
        eng->preempt.completed_fence = completed;
        eng->preempt.count++;
    }
    if (causes & COPRO_INT_TILER_OOM) {
        eng->oom.fence = eng_read64(cp, e, COPRO_ENG_TILER_OOM_FENCE);
        eng->oom.need = eng_read32(cp, e, COPRO_ENG_TILER_OOM_NEED);
        eng->oom.completed_fence = completed;
        eng->oom.count++;
        eng->oom.held = true;
    }
    if (causes & (COPRO_INT_FAULT | COPRO_INT_ERROR)) {
        read_fault(cp, e, causes & (COPRO_INT_FAULT | COPRO_INT_ERROR));
    }
}

uint64_t copro_cp_dpc(struct copro_cp *cp)
{
    uint64_t causes = cp->dev->irq.pending;

    cp->dev->irq.pending = 0;
    for (unsigned e = 0; e < cp->num_engines; e++) {
        uint32_t mine = (uint32_t)((causes >> COPRO_INT_ENGINE_SHIFT(e)) &
                                   COPRO_CP_ENGINE_CAUSES);
        if (mine) {
            engine_dpc(cp, e, mine);
        }
    }
    return causes;
}

const char *copro_wait_result_name(enum copro_wait_result r)
{
    switch (r) {
    case COPRO_WAIT_DONE:    return "done";
    case COPRO_WAIT_FAULT:   return "fault";
    case COPRO_WAIT_ABORTED: return "aborted";
    case COPRO_WAIT_TIMEOUT: return "timeout";
    }
    return "?";
}

struct fence_wait {
    struct copro_cp *cp;
    struct copro_engine *eng;
    uint64_t fence;
};

static enum copro_wait_result fence_state(const struct fence_wait *w)
{
    if (w->eng->completed >= w->fence) {
        return COPRO_WAIT_DONE;
    }
    if (w->fence <= w->eng->lost_through) {
        return COPRO_WAIT_ABORTED;
    }
    if (w->eng->halted) {
        return COPRO_WAIT_FAULT;
    }
    return COPRO_WAIT_TIMEOUT;
}

static bool fence_settled(void *ctx)
{
    struct fence_wait *w = ctx;

    copro_cp_dpc(w->cp);
    return fence_state(w) != COPRO_WAIT_TIMEOUT;
}

enum copro_wait_result copro_cp_wait_fence(struct copro_cp *cp, unsigned e,
                                           uint64_t fence,
                                           uint64_t timeout_ns,
                                           uint64_t *waited_ns)
{
    struct fence_wait w = { .cp = cp, .eng = &cp->eng[e], .fence = fence };

    if (e >= cp->num_engines) {
        return COPRO_WAIT_TIMEOUT;
    }
    /* Settled already: no need to arm the timer (a zero timeout would
     * not expire at all on the LAPIC). */
    if (fence_settled(&w)) {
        if (waited_ns) {
            *waited_ns = 0;
        }
        return fence_state(&w);
    }
    wait_for(fence_settled, &w, timeout_ns, waited_ns);
    return fence_state(&w);
}

void copro_cp_engine_reset(struct copro_cp *cp, unsigned e,
                           struct copro_reset_report *rep)
{
    struct copro_engine *eng = &cp->eng[e];

    copro_cp_dpc(cp);
    copro_write32(cp->dev, eng_reg(e, COPRO_ENG_CONTROL),
                  COPRO_ENG_CTL_RESET);
    rep->aborted_fence = eng_read64(cp, e, COPRO_ENG_ABORTED_FENCE);
    rep->completed_fence = eng_read64(cp, e, COPRO_ENG_COMPLETED_FENCE);
    rep->state = eng_read32(cp, e, COPRO_ENG_STATE);

    if (rep->completed_fence > eng->completed) {
        eng->completed = rep->completed_fence;
    }
    /* The reset set head = tail: nothing queued survives. It also ended
     * a TILER_OOM hold. */
    eng->lost_through = eng->last_submitted;
    eng->oom.held = false;
    eng->tail = eng_read32(cp, e, COPRO_ENG_RING_TAIL);
    eng->halted = false;
    eng->fault = (struct copro_fault){ 0 };
}

void copro_cp_tiler_ack(struct copro_cp *cp, unsigned e)
{
    if (e >= cp->num_engines || !cp->eng[e].oom.held) {
        return;
    }
    cp->eng[e].oom.held = false;
    copro_write32(cp->dev, eng_reg(e, COPRO_ENG_CONTROL),
                  COPRO_ENG_CTL_TILER_ACK);
}

bool copro_cp_engine_retry(struct copro_cp *cp, unsigned e)
{
    struct copro_engine *eng = &cp->eng[e];

    copro_cp_dpc(cp);
    if (!eng->halted || !COPRO_FAULT_IS_RETRYABLE(eng->fault.kind)) {
        return false;
    }
    /* Clear the record first: if the retry faults again, the DPC sees a
     * new FAULT cause and records it afresh. */
    eng->halted = false;
    eng->fault = (struct copro_fault){ 0 };
    copro_write32(cp->dev, eng_reg(e, COPRO_ENG_CONTROL),
                  COPRO_ENG_CTL_RETRY);
    return true;
}

const char *copro_cp_ring_move(struct copro_cp *cp, unsigned e,
                               volatile struct copro_submit_desc *ring_cpu,
                               uint64_t ring_gpu, uint32_t ring_entries,
                               volatile uint64_t *wb_cpu, uint64_t wb_gpu)
{
    struct copro_engine *eng = &cp->eng[e];
    struct copro *dev = cp->dev;

    if (e >= cp->num_engines) {
        return "no such engine";
    }
    if (!copro_ring_size_valid(ring_entries) || (ring_gpu & 63) ||
        (wb_gpu & 7)) {
        return "ring size or alignment the device refuses";
    }
    copro_cp_dpc(cp);
    if (eng->completed < eng->last_submitted &&
        eng->lost_through < eng->last_submitted) {
        return "engine has submissions outstanding";
    }
    if (eng_read32(cp, e, COPRO_ENG_STATE) != COPRO_ENG_STATE_IDLE) {
        return "engine not idle";
    }
    *wb_cpu = eng->completed;
    /* Writing RING_BASE/RING_SIZE resets head and tail to 0. */
    copro_write64(dev, eng_reg(e, COPRO_ENG_RING_BASE), ring_gpu);
    copro_write32(dev, eng_reg(e, COPRO_ENG_RING_SIZE), ring_entries);
    copro_write64(dev, eng_reg(e, COPRO_ENG_FENCE_WB),
                  wb_gpu | COPRO_FENCE_WB_ENABLE);
    if (eng_read64(cp, e, COPRO_ENG_RING_BASE) != ring_gpu ||
        eng_read32(cp, e, COPRO_ENG_RING_SIZE) != ring_entries ||
        eng_read64(cp, e, COPRO_ENG_FENCE_WB) !=
            (wb_gpu | COPRO_FENCE_WB_ENABLE)) {
        return "ring registers did not take";
    }
    eng->ring = ring_cpu;
    eng->ring_gpu = ring_gpu;
    eng->ring_entries = ring_entries;
    eng->fence_wb = wb_cpu;
    eng->fence_wb_gpu = wb_gpu;
    eng->tail = eng_read32(cp, e, COPRO_ENG_RING_TAIL);
    return NULL;
}
