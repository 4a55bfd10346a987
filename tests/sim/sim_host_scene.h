/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's scene half on the host (firmware/kernel/kscene.c's role in
 * the sim): it owns the parameter buffers of scene-based processes and
 * answers vidsch's scene_oom with vidmm's policy (vidmm_pb_oom):
 *
 *   grow     pb_size raised in the scene header, within the buffer's
 *            reservation and the process's budget: RESUME;
 *   partial  VIDSCH_OOM_PARTIAL: a partial TILE_RENDER of the scene on
 *            the process's kernel tile context (engine 2, its own save
 *            area: a preemption of it cannot overwrite the stopped
 *            geometry's save record), submitted from a work item (not
 *            from the upcall) and followed by a vidsch_signal of the
 *            process's partial fence; vidsch holds the resumed geometry
 *            on that fence (the wait it filled);
 *   fail     the context is lost.
 */
#ifndef TESTS_SIM_SIM_HOST_SCENE_H
#define TESTS_SIM_SIM_HOST_SCENE_H

#include "sim_host.h"
#include "vidmm/vidmm_pb.h"

#define SIM_SCENE_OS_PROCS     8
#define SIM_SCENE_OS_SCENES    64

struct sim_scene_os_scene {
    uint64_t geom_cookie;
    unsigned proc;
    struct vidmm_pb pb;
    struct ddi_dmabuf *partial;     /* its partial pass (PARTIAL flag) */
    uint64_t partial_cookie;
    uint64_t partial_value;         /* the fence value it signals */
    bool partial_pending;           /* asked for, not retired yet */
};

struct sim_scene_os {
    struct sim_host *h;
    struct {
        struct vidsch_ctx *kern;    /* the kernel's tile context */
        uint64_t budget_left;       /* bytes its buffers may still grow */
        volatile uint64_t partial_fence;    /* signalled after each of
                                               its partial passes */
        uint64_t partial_seq;       /* ... the last value asked for */
    } proc[SIM_SCENE_OS_PROCS];
    struct sim_scene_os_scene scene[SIM_SCENE_OS_SCENES];
    unsigned nscene;
    bool no_hold;           /* (--meta) the OS answers RESUME, not PARTIAL,
                               when it runs a partial pass: the geometry
                               is not held */
    unsigned grows, partials, fails;
};

void sim_scene_os_init(struct sim_scene_os *o, struct sim_host *h);
void sim_scene_os_add_proc(struct sim_scene_os *o, unsigned proc,
                           struct vidsch_ctx *kern, uint64_t budget);
/* A scene whose geometry buffer has geom_cookie, its parameter buffer at
 * pb (size usable, reserved to grow into) for tiles tiles, and the
 * partial pass the kernel submits over it (partial_cookie). DDI_OK or
 * vidmm_pb_init's error. */
int sim_scene_os_add_scene(struct sim_scene_os *o, uint64_t geom_cookie,
                           unsigned proc, uint64_t pb, uint32_t tiles,
                           uint32_t size, uint32_t reserved,
                           struct ddi_dmabuf *partial,
                           uint64_t partial_cookie);

/* The hooks (sim_host_hooks) the harness forwards to. */
int sim_scene_os_oom(struct sim_scene_os *o, uint64_t cookie,
                     uint32_t context, uint64_t save_addr, uint32_t need,
                     struct vidsch_oom_wait *wait);
/* buffer_done: true if cookie was a partial pass (the OS's, not the
 * harness's) */
bool sim_scene_os_buffer_done(struct sim_scene_os *o, uint64_t cookie,
                              int status);

/* The scene of a geometry cookie, or NULL. */
struct sim_scene_os_scene *sim_scene_os_find(struct sim_scene_os *o,
                                             uint64_t geom_cookie);

#endif /* TESTS_SIM_SIM_HOST_SCENE_H */
