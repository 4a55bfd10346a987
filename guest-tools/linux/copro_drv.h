/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: the device, shared by the PCI, KMS and debugfs parts.
 *
 * The driver is split along the device's blocks: copro_drv.c owns the PCI
 * function (BARs, interrupt vectors, dispatch of the cause register),
 * copro_kms.c, copro_crtc.c and copro_plane.c the display block (one CRTC
 * with its primary and cursor planes), copro_debugfs.c what a developer
 * reads. The render half (GEM
 * objects for the engines, submission through drm_sched) adds its own
 * file and its per-engine state to struct copro_engine; interrupt
 * dispatch already routes each engine's causes there.
 */
#ifndef COPRO_DRV_H
#define COPRO_DRV_H

#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/pci.h>
#include <linux/spinlock.h>

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_plane.h>
#include <drm/drm_vblank.h>
#include <drm/drm_mm.h>
#include <drm/gpu_scheduler.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/iosys-map.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "copro/copro_regs.h"
#include "copro_compat.h"

#define COPRO_DRIVER_NAME	"copro"
#define COPRO_DRIVER_DESC	"copro coprocessor (QEMU)"

enum copro_irq_mode {
	COPRO_IRQ_INTX,
	COPRO_IRQ_MSI,
	COPRO_IRQ_MSIX,
};

struct copro_device;
struct drm_gem_vram_object;
struct copro_ctxt;
struct seq_file;
struct drm_printer;
struct drm_gem_object;
struct file;

/*
 * One engine: its ring, its drm_sched scheduler and the jobs on the ring
 * (copro_ring.c). @lock guards the ring and the job lists; it is taken
 * in the interrupt handler.
 */
struct copro_engine {
	unsigned int id;
	u64 irqs;		/* causes seen, for debugfs */
	u64 last_causes;

	struct copro_device *cdev;
	struct drm_gpu_scheduler sched;
	bool sched_ready;
	spinlock_t lock;	/* the ring, the lists, the preemption state */
	spinlock_t fence_lock;	/* the hardware fences' lock */
	struct list_head ring_jobs;	/* written to the ring, ring order */
	struct list_head held;	/* waiting for a preemption to finish */
	u64 ring_gpu;		/* GPU address of the ring */
	u32 ring_offset;	/* its offset in the kernel pool */
	u32 tail;
	u64 next_hwid;		/* fence id of the next ring entry */
	bool preempting;	/* a PREEMPT_REQ is outstanding */
	bool stopped;		/* a device reset is under way: hold jobs */
	bool unplugged;		/* the device is gone: nothing is written */
	u64 preempt_done;	/* requests completed or cancelled */
	void *rotate_ctx;	/* goes behind its peers at the next rebuild */
	wait_queue_head_t wq;
	unsigned int in_flight;	/* jobs past run_job, not signalled */
	unsigned int hangs_in_row;	/* resets without a retirement between */
	u64 tdr_wait_seq;	/* job found blocked in a WAIT at a timeout */
	u64 last_end_ns;	/* when the engine's last job ended or left */
	struct hrtimer slice_timer;	/* the head job's time slice */
	bool slice_armed;
	u64 slice_seq;		/* the job the slice is for */

	/* counters for debugfs */
	u64 jobs_run;
	u64 jobs_done;
	u64 preempt_reqs;
	u64 preemptions;
	u64 preempt_resumes;
	u64 tdr_preempts;
	u64 slices;		/* time slices that ended in a preemption */
	u64 engine_resets;
	u64 faults;
	u64 banned;
	u64 wait_bans;		/* banned for a WAIT nobody satisfied */
	u64 cancels;		/* jobs of killed processes dropped */
	u64 suspends;		/* system sleeps it was quiesced for */
};

/* The GART: a table in VRAM mapping the aperture to guest pages. */
struct copro_gart {
	struct drm_gem_vram_object *gbo;
	struct iosys_map map;
	u64 base;		/* VRAM offset of the table */
	u64 entries;		/* 0: no GART */
	u64 aperture;		/* APERTURE_BASE */
	struct mutex lock;	/* @mm and the table */
	struct drm_mm mm;	/* entries */
	struct xarray objs;	/* GTT object -> its range */
	u64 used;		/* entries mapped */
};

/*
 * The device's shared pools that processes draw on (copro_limits.c): each
 * has a bound per process and a reserve that only a process holding none
 * of it may take.
 */
enum copro_res {
	COPRO_RES_POOL,		/* kernel job pool, bytes */
	COPRO_RES_CTX,		/* device context ids */
	COPRO_RES_GART,		/* GART entries (pinned TT pages) */
	COPRO_RES_VRAM,		/* VRAM pinned by queued jobs, bytes */
	COPRO_RES_COUNT
};

struct copro_limits {
	spinlock_t lock;	/* @used, every copro_proc's held[] */
	u64 cap[COPRO_RES_COUNT];	/* the pool's size */
	u64 max[COPRO_RES_COUNT];	/* one process's bound */
	u64 reserve[COPRO_RES_COUNT];
	u64 used[COPRO_RES_COUNT];
	wait_queue_head_t wq;	/* charges waiting for a release */
	atomic_t releases;	/* wakes @wq */
	struct mutex pins_lock;	/* @pins */
	struct xarray pins;	/* VRAM object -> copro_pin, while jobs pin it */
};

/* Kernel memory in VRAM: rings, DMA buffers and save areas. */
struct copro_pool {
	struct drm_gem_vram_object *gbo;
	struct iosys_map map;
	u64 gpu;		/* VRAM offset */
	u64 size;
	struct mutex lock;	/* @mm, @used */
	struct drm_mm mm;
	u64 used;		/* bytes handed out */
};

struct copro_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *mmio;

	u32 caps;
	u32 num_engines;
	u64 vram_base;		/* bus address of BAR2 */
	u64 vram_size;
	u32 refresh;		/* Hz, DISP_REFRESH */
	u64 period_ns;		/* DISP_PERIOD_NS */

	enum copro_irq_mode irq_mode;
	int nvec;
	bool irqs_requested;
	spinlock_t mask_lock;	/* INT_MASK read-modify-write */
	u64 int_mask;

	struct copro_engine engines[COPRO_MAX_ENGINES];
	u64 dev_irqs;		/* device-event interrupts handled */
	u64 vsyncs;
	u64 flips_done;
	u64 display_errors;

	/* display: modeset state lives in the DRM objects below */
	struct drm_plane primary;
	struct drm_plane cursor;
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;

	/* what the display block was last committed with (DISP_CONTROL) */
	bool hw_on;
	u32 hw_pitch, hw_width, hw_height, hw_format;
	/* DISP_MODE_SIZE, DISP_PLANE_POS; CONTROL.PRIMARY_OFF */
	u32 hw_mode_size, hw_plane_pos;
	u32 hw_background;	/* DISP_BACKGROUND (XRGB8888) */
	bool hw_primary_off;
	/* a flip chosen by the primary plane, written at the CRTC's flush */
	bool flip_queued;
	u64 flip_addr;
	/* the cursor image the driver owns (a copy of a larger buffer's) */
	struct drm_gem_vram_object *cursor_gbo;
	struct iosys_map cursor_map;
	u64 cursor_off;
	/* the event of the flip in flight; drm.event_lock */
	struct drm_pending_vblank_event *flip_event;
	/* pipe CRC (debugfs crtc-0/crc): the device latches it per vsync */
	bool crc_on;
	u64 crcs;
	u64 resets;		/* device resets survived */
	u32 preempt_caps;	/* PREEMPT_CAPS */
	struct copro_pool pool;
	struct copro_gart gart;
	struct copro_ctxt *ctxt;	/* the context table (copro_vm.c) */
	struct copro_limits limits;
	struct ida ctx_ids;	/* device context ids (descriptor field) */
	atomic_t jobs;		/* copro_jobs alive: drm_sched_fini waits */
	wait_queue_head_t jobs_wq;
	struct mutex procs_lock;	/* @procs */
	struct list_head procs;	/* copro_proc of processes holding anything */
	u64 device_recoveries;	/* device resets after repeated hangs */
	struct work_struct recovery_work;
	struct rw_semaphore reset_sem;	/* write: a PCI reset is under way */
	/* VSYNC_COUNT restarts at a reset: the vblank counter goes on */
	u64 vsync_base;
	u64 vsync_last;		/* VSYNC_COUNT as last read */
	int vblank_error_ns;	/* the last vblank timestamp's error bound */
};

static inline struct copro_device *to_copro(struct drm_device *drm)
{
	return container_of(drm, struct copro_device, drm);
}

static inline u32 copro_rd32(struct copro_device *cdev, u32 reg)
{
	return readl(cdev->mmio + reg);
}

static inline void copro_wr32(struct copro_device *cdev, u32 reg, u32 val)
{
	writel(val, cdev->mmio + reg);
}

/* 64-bit registers: one 8-byte access, as the spec allows. */
static inline u64 copro_rd64(struct copro_device *cdev, u32 reg)
{
	return readq(cdev->mmio + reg);
}

static inline void copro_wr64(struct copro_device *cdev, u32 reg, u64 val)
{
	writeq(val, cdev->mmio + reg);
}

void copro_irq_enable(struct copro_device *cdev, u64 causes);
void copro_irq_disable(struct copro_device *cdev, u64 causes);

int copro_kms_init(struct copro_device *cdev);
extern const struct dev_pm_ops copro_pm_ops;
void copro_kms_vsync(struct copro_device *cdev, u64 causes);

void copro_debugfs_init(struct drm_minor *minor);

/* the render half: copro_render.c, copro_gem.c, copro_submit.c */
int copro_render_init(struct copro_device *cdev);
void copro_render_unplug(struct copro_device *cdev);
void copro_render_reset_prepare(struct copro_device *cdev);
void copro_render_reset_done(struct copro_device *cdev);
void copro_render_suspend(struct copro_device *cdev);
void copro_render_resume(struct copro_device *cdev);
void copro_engine_irq(struct copro_engine *eng, u32 causes);
void copro_engines_show(struct copro_device *cdev, struct seq_file *m);

int copro_pool_init(struct copro_device *cdev, u64 size, u64 reserved);
void copro_pool_fini(struct copro_device *cdev);
int copro_pool_alloc(struct copro_device *cdev, struct drm_mm_node *node,
		     u64 size);
void copro_pool_free(struct copro_device *cdev, struct drm_mm_node *node);

/* copro_vram.c */
int copro_bo_pin_vram(struct drm_gem_vram_object *gbo, bool topdown);
void copro_bo_unpin(struct drm_gem_vram_object *gbo);
bool copro_bo_in_vram(struct drm_gem_object *obj);
int copro_kbo_create(struct copro_device *cdev, size_t size,
		     struct drm_gem_vram_object **out, struct iosys_map *map,
		     u64 *gpu);
void copro_kbo_destroy(struct drm_gem_vram_object *gbo, struct iosys_map *map);

int copro_gart_init(struct copro_device *cdev);
void copro_gart_disable(struct copro_device *cdev);
void copro_gart_fini(struct copro_device *cdev);
void copro_gart_program(struct copro_device *cdev);
bool copro_is_gtt(struct drm_gem_object *obj);
u64 copro_gart_used(struct copro_device *cdev);
u64 copro_gtt_gpu(struct drm_gem_object *obj);
struct drm_gem_object *copro_gtt_create(struct copro_device *cdev, u64 size);

struct drm_file;
int copro_ioctl_get_param(struct drm_device *drm, void *data,
			  struct drm_file *file);
int copro_ioctl_gem_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int copro_ioctl_gem_info(struct drm_device *drm, void *data,
			 struct drm_file *file);
int copro_ioctl_ctx_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int copro_ioctl_ctx_destroy(struct drm_device *drm, void *data,
			    struct drm_file *file);
int copro_ioctl_ctx_query(struct drm_device *drm, void *data,
			  struct drm_file *file);
int copro_ioctl_submit(struct drm_device *drm, void *data,
		       struct drm_file *file);
int copro_ioctl_vm_bind(struct drm_device *drm, void *data,
			struct drm_file *file);
int copro_open(struct drm_device *drm, struct drm_file *file);
void copro_postclose(struct drm_device *drm, struct drm_file *file);
void copro_show_fdinfo(struct drm_printer *p, struct drm_file *file);

#endif
