/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro kernel-mode driver, display part: mode setting, presents and flip
 * on vsync (WDDM's FlipOnVSyncMmIo model).
 *
 * A present names a surface and, optionally, the fence of the rendering
 * that fills it. It builds no DMA buffer: the driver queues it and
 * programs DISP_FLIP from interrupt level once that fence has retired and
 * the previous flip has taken effect, as WDDM calls SetVidPnSourceAddress
 * at DIRQL. The flip then happens at the next vsync, and FLIP_DONE tells
 * which vsync that was. At most one flip is in the hardware at a time, so
 * no present is ever replaced (MaxQueuedFlipOnVSync = 1).
 *
 * Division of labour, as in the rest of the driver:
 *  - interrupt level (copro_display_isr, called by the device's ISR
 *    through struct copro's isr_hook): latches VSYNC and FLIP_DONE,
 *    programs the next flip;
 *  - DPC level (copro_display_dpc, interrupts disabled): turns the
 *    latched flips into statistics (missed vsyncs) and the optional
 *    upcalls, WDDM's DXGK_INTERRUPT_CRTC_VSYNC and flip completion.
 * Callers (present, set_mode) run with interrupts disabled, which is how
 * the firmware runs outside its wait loops; the ISR cannot interleave.
 *
 * For the OS (kernel, compositor): after copro_cp_init (and the DDI),
 * copro_display_init; run copro_display_dpc from the same DPC as the
 * command processor's (the ISR's DPC request fires for display causes
 * too). A present is DDI set_source_address [SetVidPnSourceAddress] with
 * a fence: copro_display_present(d, primary, engine, fence of the
 * submission that composed it, frame number), made once the scheduler
 * has given that submission its fence. The flip_done upcall's `missed`
 * is the missed-vblank measurement, the vsync upcall the periodic vsync
 * event applications wait on.
 */
#ifndef FW_KMD_COPRO_DISPLAY_H
#define FW_KMD_COPRO_DISPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <copro/copro_regs.h>

#include "kmd/copro.h"

/* Presents queued behind the one flip the hardware holds. */
#define COPRO_DISPLAY_QUEUE     8
/* Flips completed at interrupt level, not yet seen by the DPC. */
#define COPRO_DISPLAY_EVENTS    16

#define COPRO_DISPLAY_INT_CAUSES (COPRO_INT_DEV_VSYNC | \
                                  COPRO_INT_DEV_FLIP_DONE | \
                                  COPRO_INT_DEV_DISPLAY_ERROR)

struct copro_display_mode {
    uint32_t width;
    uint32_t height;
    uint32_t pitch;     /* bytes */
    uint32_t format;    /* COPRO_FMT_* */
};

struct copro_present {
    uint64_t addr;      /* GPU address of the surface */
    unsigned engine;    /* whose fence says the surface is drawn */
    uint64_t fence;     /* 0: ready now */
    uint32_t tag;       /* the caller's (a frame number) */
};

/* A flip that took effect (or that the display refused at its vsync). */
struct copro_flip {
    uint64_t addr;
    uint64_t vsync;     /* VSYNC_COUNT of the vsync it happened at */
    uint64_t time;      /* its GPU time */
    uint32_t tag;
    bool refused;       /* DISPLAY_ERROR: the screen went black */
};

struct copro_display_upcalls {
    /* A present is on screen; missed: vsyncs since the previous flip of
     * the stream at which nothing new was shown (0: on time). */
    void (*flip_done)(void *ctx, const struct copro_flip *f,
                      uint64_t missed);
    /* vsyncs: VSYNC_COUNT when the DPC ran. */
    void (*vsync)(void *ctx, uint64_t vsyncs, uint64_t time);
    /* Optional: a present the display refused at its vsync (addr: the
     * refused surface; vsync and time are those of the vsync that
     * consumed it). It counts neither as a flip nor as a missed vsync. */
    void (*flip_refused)(void *ctx, const struct copro_flip *f);
};

struct copro_display {
    struct copro *dev;
    struct copro_display_mode mode;
    uint32_t refresh;           /* Hz */
    uint64_t period_ns;

    /* Present queue: the caller adds at tail, interrupt level takes from
     * head. Indices grow without wrapping (mod COPRO_DISPLAY_QUEUE). */
    struct copro_present queue[COPRO_DISPLAY_QUEUE];
    volatile uint32_t q_head, q_tail;

    /* The flip in the hardware (written, FLIP_DONE not seen yet). */
    volatile bool flip_outstanding;
    volatile uint32_t outstanding_tag;

    /* Written at interrupt level. */
    struct copro_flip events[COPRO_DISPLAY_EVENTS];
    volatile uint32_t ev_head, ev_tail;
    volatile uint64_t vsyncs;           /* VSYNC_COUNT at the last VSYNC */
    volatile uint64_t vsync_time;
    volatile uint32_t vsync_irqs;       /* VSYNC causes seen */
    volatile uint32_t flips_programmed; /* DISP_FLIP writes */
    volatile uint32_t flips_from_isr;   /* of which at interrupt level */
    volatile uint32_t flips_refused;    /* flips the display refused */
    volatile uint32_t errors;           /* DISPLAY_ERROR causes */
    volatile uint32_t last_error;       /* DISP_ERROR then */
    volatile uint32_t events_lost;      /* event ring overflowed */

    /* DPC level. */
    uint64_t flips_done;
    uint64_t missed;            /* sum over the stream, see upcalls */
    bool streaming;             /* a flip of the stream was seen */
    uint64_t last_flip_vsync;
    uint64_t vsyncs_reported;   /* for the vsync upcall */
    struct copro_flip shown;    /* the last flip that took effect */

    const struct copro_display_upcalls *up;
    void *up_ctx;
};

/*
 * Takes over the display: checks the capability, reads the refresh rate,
 * hooks the ISR and enables VSYNC, FLIP_DONE and DISPLAY_ERROR in
 * INT_MASK. Call after copro_cp_init (which rewrites INT_MASK). The
 * display stays off until copro_display_set_mode. NULL or why not.
 */
const char *copro_display_init(struct copro_display *d, struct copro *dev);

/* Who receives the upcalls (NULL: nobody). */
void copro_display_set_upcalls(struct copro_display *d,
                               const struct copro_display_upcalls *up,
                               void *ctx);

/*
 * Commits mode with surface addr and turns the display on (at once, not
 * at a vsync; the vsync phase starts here if it was off). Pending
 * presents are dropped. NULL, or why the device refused the surface.
 */
const char *copro_display_set_mode(struct copro_display *d,
                                   const struct copro_display_mode *mode,
                                   uint64_t addr);

/* Display off: no vsync, black; pending presents are dropped. */
void copro_display_off(struct copro_display *d);

/*
 * Queues a present of the surface at addr (committed geometry), shown at
 * the first vsync after engine's fence retired and the previous present
 * was shown. False if the queue is full.
 */
bool copro_display_present(struct copro_display *d, uint64_t addr,
                           unsigned engine, uint64_t fence, uint32_t tag);

/* Presents queued or in the hardware, not yet shown. */
unsigned copro_display_pending(const struct copro_display *d);

/* The device ISR's hook (struct copro isr_hook): interrupt level. */
void copro_display_isr(void *ctx, uint64_t status);

/*
 * The deferred half: consumes the flips latched at interrupt level,
 * counts missed vsyncs, makes the upcalls. Interrupts disabled. Returns
 * the number of flips it consumed.
 */
unsigned copro_display_dpc(struct copro_display *d);

/* The next flip starts a new stream: no missed vsyncs for the gap. */
void copro_display_restart_stream(struct copro_display *d);

/* The cursor plane: image (64 x 64 ARGB8888) at VRAM offset img. */
bool copro_display_cursor(struct copro_display *d, bool on, int16_t x,
                          int16_t y, uint64_t img);

#endif /* FW_KMD_COPRO_DISPLAY_H */
