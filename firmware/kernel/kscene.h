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
 * the process's, reads the header's `used` and asks vidmm_pb_oom. GROW:
 * the new pb_size is written into the header and the buffer resumes.
 * PARTIAL or FAIL: the scene cannot go on here (vidsch does not run
 * partial renders yet: docs/scheduler.rst, "Scheduler classes"), the
 * context is put in error; nobody else is touched.
 */
#ifndef FW_KERNEL_KSCENE_H
#define FW_KERNEL_KSCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "vidmm/vidmm_pb.h"

struct kernel;
struct kproc;
struct vidsch_oom_wait;

#define KSCENE_MAX_PB       8

struct kscene_pb {
    bool used;
    struct kproc *proc;
    uint8_t proc_id;        /* a later process in the same record is
                               another id (and its handles differ) */
    uint32_t halloc;
    struct vidmm_pb pb;
    uint64_t budget;        /* the process's, for all its buffers */
};

struct kscene {
    struct kscene_pb pb[KSCENE_MAX_PB];
    uint64_t ooms, grows, refused;      /* answers given */
};

/* vidsch_env.scene_oom */
int kernel_scene_oom(void *os, uint64_t cookie, uint32_t context,
                     uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait);

#endif /* FW_KERNEL_KSCENE_H */
