/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's display sources (dxgkrnl's VidPN sources and their flip
 * queues), over the DDI's display half: the mode, the present queue per
 * source, flip on vsync, the vsync event, the pointer.
 *
 * A present is "show this primary once the GPU has finished the buffer
 * that drew it". It builds no DMA buffer. Each source keeps its presents
 * in order:
 *
 *   WAITING   queued; its sync object has not reached its value
 *   FLIPPING  handed to the driver (set_source_address): the flip happens
 *             at a vsync, which flip_done reports
 *   DONE      shown (or failed); its result waits to be delivered
 *
 * Levels: presents are handed to the driver only from the kernel's DPC
 * queue (the display's own DPC item, queued whenever sync values may
 * have moved and at every flip_done), so the flip is programmed at
 * interrupt level as WDDM does for FlipOnVSyncMmIo; the driver writes
 * the register at once or from its ISR when the previous flip is done.
 * Results and vsync events reach applications at passive level, from a
 * work item, present results before the vsync of the same DPC.
 *
 * The allocation on screen, and every queued one, holds a scanout
 * reference: it is not freed while the display may read it.
 *
 * A source has one owner (kapi_set_source_owner, a privileged call):
 * only its device's presents and pointer updates are taken, so another
 * process can neither show a picture nor queue a present that never
 * becomes ready in front of the owner's.
 *
 * Pure C over the DDI (part of the kernel proper): unit-tested on the
 * host with a fake display (tests/unit/test-kernel-display.c).
 */
#ifndef FW_KERNEL_KDISPLAY_H
#define FW_KERNEL_KDISPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "kernel/kapi.h"
#include "kernel/kqueue.h"

#define KDISPLAY_QUEUE          8   /* presents per source not yet
                                       reported to their caller */
#define KDISPLAY_VSYNC_WAITS    32
/*
 * A present waits for its primary to be drawn: on a fence of another
 * process's (a producer the owner opened) for at most this many vsyncs,
 * then it fails with DDI_ETIMEOUT and the owner's later presents go on. A
 * hostile or hung producer cannot hold the owner's display for ever; the
 * owner's own GPU work has the watchdog (TDR) for that.
 */
#define KDISPLAY_FOREIGN_WAIT_VSYNCS 30

struct kalloc;
struct kdevice;
struct kproc;
struct ksync;
struct kernel;

enum kpresent_state {
    KPRESENT_FREE,
    KPRESENT_WAITING,
    KPRESENT_FLIPPING,
    KPRESENT_DONE,
};

struct kpresent {
    enum kpresent_state state;
    struct kproc *proc;
    struct kdevice *dev;
    struct kalloc *alloc;       /* holds a scanout reference until DONE */
    struct ksync *sync;         /* NULL: drawn already */
    uint64_t value;
    uint64_t queued_vsync;      /* the source's vsync count when queued */
    uint32_t id;                /* the DDI's present_id */
    kapi_present_fn fn;
    void *arg;
    struct kapi_present_result result;
};

struct kvsync_wait {
    kapi_vsync_fn fn;           /* NULL: a free slot */
    void *arg;
    struct kproc *proc;
    struct kdevice *dev;
    unsigned source;
    uint64_t after;             /* fires once the count passes this */
    int fail;                   /* non-zero: deliver this status */
};

struct kdisplay_stats {
    uint64_t presents;          /* accepted by kapi_present */
    uint64_t flips;             /* shown */
    uint64_t missed;            /* sum of the flips' missed vblanks */
    uint64_t refused;           /* flips the display refused */
    uint64_t failed;            /* presents that never reached the driver */
    uint64_t driver_busy;       /* set_source_address said EBUSY */
    uint64_t unexpected;        /* flip_done for no present handed over */
};

struct ksource {
    bool on;
    struct ddi_display_mode mode;
    uint64_t blank_gpu;         /* the kernel's black primary */
    struct kalloc *shown;       /* on screen; NULL: the blank (or black) */
    uint64_t shown_addr;
    struct kalloc *pointer;     /* the pointer shape's allocation */
    const struct kdevice *owner;    /* the only device whose presents and
                                       pointer updates are taken (NULL:
                                       nobody's; kapi_set_source_owner) */
    struct kpresent q[KDISPLAY_QUEUE];  /* in order from q_head */
    unsigned q_head, q_count;
    uint32_t next_id;
    uint64_t vsyncs, vsync_time;
    struct kdisplay_stats stats;
};

struct kdisplay {
    struct ksource src[DDI_MAX_SOURCES];
    unsigned nvwaits;
    struct kvsync_wait vwait[KDISPLAY_VSYNC_WAITS];
    struct kitem dpc;           /* hands ready presents to the driver */
    struct kitem deliver;       /* results and vsync events */
};

/* Part of kernel_init. */
void kdisplay_init(struct kernel *k);

/*
 * Sets display source `source` to width x height XRGB8888 (pitch width *
 * 4) showing a black primary of the kernel's, from the segment; vsync
 * events run from here on. NULL or why not (no display, no room, the
 * driver refused).
 */
const char *kdisplay_start(struct kernel *k, unsigned source,
                           uint32_t width, uint32_t height);

/* The source if it exists and is on, else NULL. */
const struct ksource *kdisplay_source(const struct kernel *k,
                                      unsigned source);

/* Hooks for the rest of the kernel. */
/* Sync values may have moved: look at the waiting presents (DPC). */
void kdisplay_kick(struct kernel *k);
/* A present waits for a sync value (the GPU's progress). */
bool kdisplay_waiting(const struct kernel *k);
/* A sync object is going away: presents waiting on it fail. */
void kdisplay_sync_gone(struct kernel *k, const struct ksync *s);
/* A device is being destroyed: its presents and vsync waits fail. */
void kdisplay_device_gone(struct kernel *k, const struct kdevice *dev);
/* True if an allocation of size bytes can be a primary of source 0. */
bool kdisplay_primary_fits(const struct kernel *k, uint64_t size);

/* The DDI's display upcalls (DPC level), for kernel_upcalls. */
void kdisplay_vsync(struct kernel *k, unsigned source, uint64_t count,
                    uint64_t time);
void kdisplay_flip_done(struct kernel *k, const struct ddi_flip_done *f);

struct kproc;

/* The work of the display calls once kapi.c resolved p's device dev:
 * kapi_display_info, kapi_present, kapi_set_source_owner,
 * kapi_wait_vsync, kapi_set_pointer. */
int kdisplay_info(struct kernel *k, unsigned source,
                  struct kapi_display_info *out);
int kdisplay_present(struct kproc *p, struct kdevice *dev,
                     const struct kapi_present *a);
int kdisplay_set_owner(struct kproc *p, struct kdevice *dev, unsigned source);
int kdisplay_wait_vsync(struct kproc *p, struct kdevice *dev, unsigned source,
                        kapi_vsync_fn fn, void *arg);
int kdisplay_set_pointer(struct kproc *p, struct kdevice *dev,
                         const struct kapi_pointer *ptr);

#endif /* FW_KERNEL_KDISPLAY_H */
