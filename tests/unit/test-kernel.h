/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel's host tests share (one executable, test-kernel, built
 * from test-kernel*.c): the kernel and its application API
 * (firmware/kernel/) with the real scheduler (vidsch) over a fake GPU
 * that implements the DDI (test-kernel-fake.c): render and patch are the
 * real copro ones; submissions complete when the test pumps the GPU;
 * time is a variable. The event loop is driven step by step
 * (kevents_step), as kloop.c does on the CPU. A fake display source, a
 * fake build_paging_buffer that records its operations, and GPU-VA ops
 * keeping a software page table complete the driver.
 *
 * An application's view (test-kernel-fixture.c): a process with a
 * device, a context, a buffer and a sync object (struct proc), a GPU-VA
 * process with its allocations (struct gv_app), the display's primary
 * and presents, and the census every test that ends a process compares
 * with where it started.
 *
 * The tests share one kernel: each starts it afresh with one of the
 * setup functions. Each test file registers its tests (kernel_tests_*);
 * test-kernel.c's main() calls them in the order the paths run.
 */
#ifndef TEST_KERNEL_H
#define TEST_KERNEL_H

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include <copro/copro_cmd.h>
#include <copro/copro_tiler.h>

#include "ddi/ddi.h"
#include "kernel/kapi.h"
#include "kernel/handle.h"
#include "kernel/kernel.h"
#include "kernel/kexit.h"
#include "kernel/kisolate.h"
#include "kernel/ktables.h"
#include "kmd/copro_render.h"
#include "umd/umd.h"

/* ---- the fake GPU behind the DDI (test-kernel-fake.c) ---- */

#define VRAM        (16u << 20)
#define ENGINES     2
#define QMAX        64

struct fake_gpu {
    uint64_t now;
    struct ddi_submit_args q[ENGINES][QMAX];
    unsigned nq[ENGINES];
    uint64_t completed[ENGINES];
    uint64_t preempt_fence[ENGINES];
    bool preempt_pending[ENGINES];
    unsigned submits, renders, resets;
    bool hold;              /* do not complete anything when pumped */
};

/* A fake display source: flips queue in the "driver" and take effect one
 * per vsync, which the test makes with fake_vsync(). */
#define FD_QMAX     16
#define PERIOD_NS   16666666ull

struct fake_display {
    bool on;
    struct ddi_display_mode mode;
    uint64_t scanout;
    unsigned nq, cap;           /* flips handed over, not shown; room */
    struct ddi_flip_args q[FD_QMAX];
    unsigned flips_set;         /* set_source_address calls accepted */
    bool refuse_next;           /* the next flip is refused at its vsync */
    uint64_t vsyncs, last_flip_vsync;
    bool streaming;
    uint64_t shape;
    int32_t px, py;
    bool pvis;
    unsigned shape_calls;
};

/* build_paging_buffer: records the operations, one NOP packet per
 * buffer (the fake GPU runs nothing). */
struct fake_paging {
    unsigned builds, ops, maps, transfers, unmaps;
};

/* GPU-VA ops: a software page table of the one space the tests use (the
 * entries as the kernel asked, applied at build time: the fake GPU runs
 * nothing). */
#define FV_VA_BASE  (1ull << 32)
#define FV_PAGES    1024
struct fake_gpuva {
    unsigned spaces, binds, unbinds, reserves, updates;
    uint32_t bound_ctx[8];
    /* by space: OS VRAM it maps (a space per process slot at most) */
    uint64_t os_base[KGPUVA_MAX_PROCS + 1], os_bytes[KGPUVA_MAX_PROCS + 1];
    bool reserved[FV_PAGES];
    uint32_t target[FV_PAGES];      /* enum ddi_pte_target */
    uint64_t frame[FV_PAGES];
    bool writable[FV_PAGES];
};

/* The kernel with vidmm: 1 MiB of the segment the kernel's, 2 MiB
 * vidmm's, a page pool over host memory (its "physical" addresses are
 * host pointers, as the firmware's identity map makes them). */
#define KSEG        (1u << 20)
#define VMSEG       (2u << 20)
#define POOL_BYTES  (8u << 20)

/* GPU-VA mode: 4 allocations' worth of VRAM */
#define GV_ALLOC    (64u << 10)
#define GV_VRAM     (4 * GV_ALLOC)

extern struct fake_gpu gpu;
extern struct fake_display fd;
extern struct fake_paging fp;
extern struct fake_gpuva fv;
extern uint8_t vram[VRAM];
extern struct kernel kern;
extern struct page_pool pool;

void fake_vsync(void);
bool pump(void);
void run(void);
void setup(void);
void setup_vidmm(void);
const char *start_gpuva(unsigned copy_engine);
void setup_gpuva(void);
void setup_gpuva_vidmm(void);

/* ---- an application's view (test-kernel-fixture.c) ---- */

struct proc {
    struct kproc *p;
    uint32_t dev, ctx, buf, sync;
};

struct waited {
    unsigned calls;
    int status;
    volatile void *cpu;
};

/* the display's mode */
#define DW      64
#define DH      32

struct presented {
    unsigned calls;
    struct kapi_present_result r[8];
};

struct gv_app {
    struct kproc *p;
    uint32_t dev, ctx, sync;
    uint32_t h[8];
    uint64_t va[8];
    bool held[8];
    unsigned n;
    unsigned trims;
    uint64_t trim_bytes[8];
};

/* a scene's target (test-kernel-scene.c) */
#define SC_W        128u
#define SC_H        96u
#define SC_TILES    12u     /* 4 x 3 tiles of 32 */

/* A dead application's timer: calls with its (dead) process pointer. */
struct dead_timer {
    struct kproc *p;
    unsigned fired;
    int st;
};

/* the command buffer render() and fill() build in */
extern uint32_t cmd[1024];
extern struct umd_cmdbuf cb;
extern unsigned lost_calls;
extern unsigned vsync_calls;
extern uint64_t vsync_last;
extern int vsync_status;

void make_proc(struct proc *a, const char *name);
int render(struct proc *a, uint32_t ctx);
int fill(struct proc *a, uint32_t ctx, uint32_t h, uint64_t size);
void on_wait(void *arg, int status);
void on_lock(void *arg, int status, volatile void *cpu);
struct kalloc *kalloc_of(struct proc *a, uint32_t h);
struct vidmm_alloc_state vstate(struct proc *a, uint32_t h);
void make_big(struct proc *a, uint32_t h[4]);
void on_lost(void *arg, uint32_t hdev);
uint32_t share_to(struct proc *a, struct proc *b, unsigned access);

void setup_display(void);
uint32_t make_primary(struct proc *a);
void on_present(void *arg, const struct kapi_present_result *r);
int present(struct proc *a, uint32_t hprimary, uint32_t hsync,
            uint64_t value, uint64_t tag, struct presented *out);
const struct kalloc *alloc_of(struct proc *a, uint32_t h);
void on_vsync_count(void *arg, int status, uint64_t vsyncs, uint64_t time);

void gv_on_trim(void *arg, uint64_t bytes);
void gv_make(struct gv_app *a, const char *name, unsigned n,
             uint64_t budget);
void gv_allow_all(struct gv_app *a);
int gv_resident(struct gv_app *a, unsigned i, uint64_t *fence);
bool gv_mapped(const struct gv_app *a, unsigned i, uint64_t *vram);
int gv_render_va(struct gv_app *a, uint64_t va);

void take_census(struct kernel_census *c);
void assert_census(const struct kernel_census *want);
void dead_timer_fires(void *arg, uint64_t now);

/* ---- the tests, by file; main() registers them in this order ---- */

void kernel_tests_objects(void);    /* test-kernel-objects.c */
void kernel_tests_isolation(void);  /* test-kernel-isolation.c */
void kernel_tests_display(void);    /* test-kernel-display.c */
void kernel_tests_gpuva(void);      /* test-kernel-gpuva.c */
void kernel_tests_quota(void);      /* test-kernel-quota.c */
void kernel_tests_exit(void);       /* test-kernel-exit.c */
void kernel_tests_scene(void);      /* test-kernel-scene.c */
void kernel_tests_ident(void);      /* test-kernel-ident.c */
void kernel_tests_attack(void);     /* test-kernel-attack.c */

#endif
