/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scene-based rendering's parameter buffers in the kernel (GPU-VA mode),
 * and the answer to the device's TILER_OOM (docs/specs/copro.rst,
 * "Parameter buffer full").
 *
 * A parameter buffer is an allocation of the process (kapi.h,
 * kapi_create_scene_pb): `reserved` bytes of VA and backing, of which the
 * device may use `size` (the scene header's pb_size, which the process
 * passes in SCENE_BEGIN). The kernel keeps vidmm's record of it
 * (vidmm/vidmm_pb.h); what the process's parameter buffers may grow to
 * in all is its parameter-buffer budget, counted against its size sum.
 *
 * When the geometry stops with TILER_OOM, vidsch asks (vidsch_env's
 * scene_oom, kernel_scene_oom below, at DPC level): the kernel finds the
 * scene in the stopped context's save record, the parameter buffer among
 * the process's, reads the header's `used` and asks vidmm_pb_oom:
 *
 *  GROW     the new pb_size is written into the header and the buffer
 *           resumes;
 *  PARTIAL  [PowerVR's FRAG_PR, Mali's incremental render] the process
 *           gave the scene's partial render (kapi_scene_pb_partial: a
 *           SET_TARGET and a TILE_RENDER with COPRO_TILE_PARTIAL on this
 *           parameter buffer, checked when given and rendered again, as
 *           any render of the process, when it runs). It runs on the
 *           kernel's own context in the process's device (made with the
 *           partial render, no handle: the process cannot submit on it
 *           or destroy it; charged to the process like its own) in the
 *           process's address space, never on the stopped context,
 *           whose save area holds the stopped geometry (a preempted tile
 *           pass there would overwrite it). The kernel answers
 *           VIDSCH_OOM_PARTIAL with its monitored fence for this buffer
 *           (kernel memory: the process cannot reach it) and the next
 *           value; vidsch holds the resumed geometry on it; a work item
 *           (the kernel may not call vidsch from inside the upcall)
 *           renders the partial buffer on the kernel's context and
 *           queues the fence's signal after it. Once it retired, the
 *           geometry resumes: the device emptied the bins, so a later
 *           OOM of the scene is answered the same way, and the final
 *           tile pass loads the tiles the partial ones stored;
 *  FAIL     the context is put in error, with every context of its
 *           device (its tile context's held pass never runs over the
 *           unclosed scene); nobody else is touched.
 *
 * What an attacker can do, and what happens:
 *  - a partial render that faults (a target it cannot write): the
 *    kernel's context is lost, so its process's device is removed (the
 *    device's work of others on that engine is restarted, as after any
 *    fault); the device's other contexts are lost with it (vidsch
 *    loses a device's contexts together): the held geometry and the
 *    held tile pass are reported lost, never run; only that process
 *    loses;
 *  - no partial render given, a primitive larger than the emptied heap,
 *    a partial render that cannot be queued (its arena full): the scene
 *    fails as before (a queued render that failed makes the next OOM of
 *    the buffer fail: the geometry, released, stops again at once);
 *  - the process killed while its geometry is held or its partial render
 *    queued: its devices' contexts go (the held buffer and the queued
 *    render are reported lost), the kernel's context with them
 *    (kscene_device_gone), and the buffer's record is not reused while
 *    vidsch may still look at its fence;
 *  - the parameter buffer destroyed under a held geometry: its render
 *    is not run (or, already on the GPU, faults on the unmapped buffer),
 *    the geometry is released, stops again and is refused;
 *  - two geometry contexts on one parameter buffer: one partial render
 *    at a time (until it retired); an OOM meanwhile fails that context.
 */
#ifndef FW_KERNEL_KSCENE_H
#define FW_KERNEL_KSCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "ddi/ddi.h"
#include "kernel/kqueue.h"
#include "vidmm/vidmm_pb.h"

struct kernel;
struct kproc;
struct kdevice;
struct kcontext;
struct vidsch_oom_wait;

/* Records of every process (KQ_SCENE_PBS): 16, so that each of
 * KERNEL_MAX_PROCS processes is guaranteed one. */
#define KSCENE_MAX_PB       16
#define KSCENE_PARTIAL_DW   32      /* a partial render's command buffer */

struct kscene_pb {
    bool used;
    struct kproc *proc;
    uint32_t proc_id;        /* a later process in the same record is
                               another id (and its handles differ) */
    uint32_t halloc;
    struct kdevice *dev;
    uint32_t tiles;
    struct vidmm_pb pb;
    uint64_t budget;        /* the process's, for all its buffers */
    /* the partial render (kapi_scene_pb_partial) */
    uint32_t partial[KSCENE_PARTIAL_DW];
    uint32_t partial_bytes;         /* 0: none given */
    struct kcontext *pctx;          /* the kernel's context for it */
    bool partial_queued;            /* answered; the work item renders */
    bool partial_failed;            /* could not be queued: the scene's
                                       next OOM fails */
    /* The fence the resumed geometry waits on: partial renders retired
     * (written by vidsch_signal) and asked for. Monotonic for the slot,
     * across its reuse: a new record starts at the old values. */
    volatile uint64_t partial_fence;
    uint64_t partial_asked;
};

struct kscene {
    struct kscene_pb pb[KSCENE_MAX_PB];
    uint64_t ooms, grows, partials, refused;    /* answers given */
    uint64_t partial_errors;    /* partial renders that could not be
                                   queued (their scene then failed) */
    struct kitem work;          /* queues the partial renders */
    /* kapi_scene_pb_partial's check through the DDI's render */
    struct ddi_dmabuf check;
    uint32_t check_dw[KSCENE_PARTIAL_DW];
};

/* At kernel_init. */
void kscene_init(struct kernel *k);
/* dev is being destroyed (kapi_destroy_device): the kernel's contexts
 * on it go too, and its buffers' records are let go. */
void kscene_device_gone(struct kernel *k, struct kdevice *dev);

/* vidsch_env.scene_oom */
int kernel_scene_oom(void *os, uint64_t cookie, uint32_t context,
                     uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait);

struct kproc;
struct kdevice;
struct kapi_scene_pb_desc;
struct kapi_scene_partial_desc;

/* The work of kapi_create_scene_pb (on p's device dev),
 * kapi_scene_pb_stats and kapi_scene_pb_partial. */
int kscene_create_pb(struct kproc *p, struct kdevice *dev,
                     const struct kapi_scene_pb_desc *d, uint32_t *halloc,
                     uint64_t *va);
int kscene_pb_stats(struct kproc *p, uint32_t halloc, struct vidmm_pb *out);
int kscene_pb_partial(struct kproc *p, uint32_t halloc,
                      const struct kapi_scene_partial_desc *d);

#endif /* FW_KERNEL_KSCENE_H */
