/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "kmd/copro_display.h"

#include <stddef.h>

#define Q_MASK      (COPRO_DISPLAY_QUEUE - 1)
#define EV_MASK     (COPRO_DISPLAY_EVENTS - 1)

_Static_assert((COPRO_DISPLAY_QUEUE & Q_MASK) == 0, "queue: power of two");
_Static_assert((COPRO_DISPLAY_EVENTS & EV_MASK) == 0, "events: power of 2");

static const char *disp_error_name(uint32_t code)
{
    switch (code) {
    case COPRO_DISP_ERR_FORMAT:
        return "bad format";
    case COPRO_DISP_ERR_SIZE:
        return "bad size";
    case COPRO_DISP_ERR_PITCH:
        return "bad pitch";
    case COPRO_DISP_ERR_ADDRESS:
        return "surface outside VRAM and the aperture";
    case COPRO_DISP_ERR_CURSOR:
        return "cursor image outside VRAM";
    default:
        return "refused";
    }
}

const char *copro_display_init(struct copro_display *d, struct copro *dev)
{
    uint64_t mask;

    *d = (struct copro_display){ .dev = dev };
    if (!(dev->info.caps & COPRO_CAP_DISPLAY)) {
        return "device has no display block";
    }
    d->refresh = copro_read32(dev, COPRO_REG_DISP_REFRESH);
    d->period_ns = copro_read64(dev, COPRO_REG_DISP_PERIOD_NS);
    if (!d->refresh || !d->period_ns) {
        return "display reports no refresh rate";
    }
    d->vsyncs = copro_read64(dev, COPRO_REG_DISP_VSYNC_COUNT);
    /* The hook first, then the causes: nothing may arrive unhandled. */
    dev->isr_hook_ctx = d;
    dev->isr_hook = copro_display_isr;
    copro_write64(dev, COPRO_REG_INT_STATUS, COPRO_DISPLAY_INT_CAUSES);
    mask = copro_read64(dev, COPRO_REG_INT_MASK);
    copro_write64(dev, COPRO_REG_INT_MASK, mask | COPRO_DISPLAY_INT_CAUSES);
    return NULL;
}

void copro_display_set_upcalls(struct copro_display *d,
                               const struct copro_display_upcalls *up,
                               void *ctx)
{
    d->up = up;
    d->up_ctx = ctx;
}

const char *copro_display_set_mode(struct copro_display *d,
                                   const struct copro_display_mode *mode,
                                   uint64_t addr)
{
    struct copro *dev = d->dev;
    uint32_t status;

    d->q_head = d->q_tail;
    d->mode = *mode;
    copro_write64(dev, COPRO_REG_DISP_SURFACE, addr);
    copro_write32(dev, COPRO_REG_DISP_PITCH, mode->pitch);
    copro_write32(dev, COPRO_REG_DISP_WIDTH, mode->width);
    copro_write32(dev, COPRO_REG_DISP_HEIGHT, mode->height);
    copro_write32(dev, COPRO_REG_DISP_FORMAT, mode->format);
    copro_write32(dev, COPRO_REG_DISP_CONTROL, COPRO_DISP_CTL_ENABLE);
    status = copro_read32(dev, COPRO_REG_DISP_STATUS);
    if (!(status & COPRO_DISP_STS_ACTIVE)) {
        return disp_error_name(copro_read32(dev, COPRO_REG_DISP_ERROR));
    }
    d->shown = (struct copro_flip){
        .addr = addr,
        .vsync = copro_read64(dev, COPRO_REG_DISP_VSYNC_COUNT),
    };
    return NULL;
}

void copro_display_off(struct copro_display *d)
{
    copro_write32(d->dev, COPRO_REG_DISP_CONTROL, 0);
    /* turning off drops the flip in the hardware: it never completes */
    d->q_head = d->q_tail;
    d->flip_outstanding = false;
    d->streaming = false;
}

unsigned copro_display_pending(const struct copro_display *d)
{
    return (d->q_tail - d->q_head) + (d->flip_outstanding ? 1 : 0);
}

/*
 * Interrupt level: the head of the queue goes to the hardware once its
 * rendering is done and the hardware holds no other flip. Rendering is
 * done when the engine's COMPLETED_FENCE has reached the present's fence
 * (fences only grow), read here as a DIRQL routine reads its registers.
 */
static void program_next(struct copro_display *d, bool from_isr)
{
    const struct copro_present *p;

    if (d->flip_outstanding || d->q_head == d->q_tail) {
        return;
    }
    p = &d->queue[d->q_head & Q_MASK];
    if (p->fence &&
        copro_read64(d->dev, COPRO_ENG_BASE(p->engine) +
                     COPRO_ENG_COMPLETED_FENCE) < p->fence) {
        return;
    }
    d->outstanding_tag = p->tag;
    d->flip_outstanding = true;
    d->q_head++;
    copro_write64(d->dev, COPRO_REG_DISP_FLIP, p->addr);
    d->flips_programmed++;
    d->flips_from_isr += from_isr;
}

bool copro_display_present(struct copro_display *d, uint64_t addr,
                           unsigned engine, uint64_t fence, uint32_t tag)
{
    if (d->q_tail - d->q_head >= COPRO_DISPLAY_QUEUE ||
        engine >= d->dev->info.num_engines) {
        return false;
    }
    d->queue[d->q_tail & Q_MASK] = (struct copro_present){
        .addr = addr, .engine = engine, .fence = fence, .tag = tag,
    };
    d->q_tail++;
    /* Already drawn and nothing in the hardware: no need to wait for an
     * interrupt. Interrupts are off here, so the ISR cannot interleave. */
    program_next(d, false);
    return true;
}

/* The flip in the hardware is over: shown (FLIP_DONE) or refused. */
static void latch_flip(struct copro_display *d, bool refused)
{
    struct copro *dev = d->dev;
    uint64_t now_vsync = copro_read64(dev, COPRO_REG_DISP_VSYNC_COUNT);
    struct copro_flip f = {
        .addr = copro_read64(dev, refused ? COPRO_REG_DISP_ERROR_ADDR :
                                            COPRO_REG_DISP_FLIP_ADDR),
        /* a refused flip was consumed by the last vsync */
        .vsync = refused ? now_vsync :
                 copro_read64(dev, COPRO_REG_DISP_FLIP_VSYNC),
        .tag = d->outstanding_tag,
        .refused = refused,
    };

    /* VSYNC_TIME is the last vsync's: step back if the ISR ran late */
    f.time = copro_read64(dev, COPRO_REG_DISP_VSYNC_TIME) -
             (now_vsync - f.vsync) * d->period_ns;
    d->flip_outstanding = false;
    if (d->ev_tail - d->ev_head >= COPRO_DISPLAY_EVENTS) {
        d->events_lost++;
        return;
    }
    d->events[d->ev_tail & EV_MASK] = f;
    d->ev_tail++;
}

void copro_display_isr(void *ctx, uint64_t status)
{
    struct copro_display *d = ctx;
    struct copro *dev = d->dev;

    if (status & COPRO_INT_DEV_VSYNC) {
        d->vsyncs = copro_read64(dev, COPRO_REG_DISP_VSYNC_COUNT);
        d->vsync_time = copro_read64(dev, COPRO_REG_DISP_VSYNC_TIME);
        d->vsync_irqs++;
    }
    if ((status & COPRO_INT_DEV_FLIP_DONE) && d->flip_outstanding) {
        latch_flip(d, false);
    }
    if (status & COPRO_INT_DEV_DISPLAY_ERROR) {
        d->errors++;
        d->last_error = copro_read32(dev, COPRO_REG_DISP_ERROR);
        /* a refused flip was consumed by its vsync all the same */
        if (d->flip_outstanding &&
            !(copro_read32(dev, COPRO_REG_DISP_STATUS) &
              COPRO_DISP_STS_FLIP_PENDING)) {
            latch_flip(d, true);
            d->flips_refused++;
        }
    }
    /* Any interrupt may be the one that makes the head present ready: a
     * DMA_DONE of its engine, or the FLIP_DONE that frees the hardware.
     * VSYNC comes every frame, so a fence retired with NO_IRQ is seen at
     * the next vsync at the latest. */
    program_next(d, true);
}

unsigned copro_display_dpc(struct copro_display *d)
{
    unsigned n = 0;

    while (d->ev_head != d->ev_tail) {
        struct copro_flip f = d->events[d->ev_head & EV_MASK];
        uint64_t missed = 0;

        d->ev_head++;
        if (f.refused) {
            if (d->up && d->up->flip_refused) {
                d->up->flip_refused(d->up_ctx, &f);
            }
            n++;
            continue;
        }
        if (d->streaming && f.vsync > d->last_flip_vsync) {
            missed = f.vsync - d->last_flip_vsync - 1;
        }
        d->streaming = true;
        d->last_flip_vsync = f.vsync;
        d->missed += missed;
        d->flips_done++;
        d->shown = f;
        if (d->up && d->up->flip_done) {
            d->up->flip_done(d->up_ctx, &f, missed);
        }
        n++;
    }
    if (d->vsyncs != d->vsyncs_reported) {
        d->vsyncs_reported = d->vsyncs;
        if (d->up && d->up->vsync) {
            d->up->vsync(d->up_ctx, d->vsyncs, d->vsync_time);
        }
    }
    return n;
}

void copro_display_restart_stream(struct copro_display *d)
{
    d->streaming = false;
}

bool copro_display_cursor(struct copro_display *d, bool on, int16_t x,
                          int16_t y, uint64_t img)
{
    struct copro *dev = d->dev;

    copro_write64(dev, COPRO_REG_CURSOR_SURFACE, img);
    copro_write32(dev, COPRO_REG_CURSOR_POS, COPRO_CURSOR_POS(x, y));
    copro_write32(dev, COPRO_REG_CURSOR_CONTROL,
                  on ? COPRO_CURSOR_CTL_ENABLE : 0);
    return copro_read64(dev, COPRO_REG_CURSOR_SURFACE) == img;
}
