/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: the device, shared by the PCI, KMS and debugfs parts.
 *
 * The driver is split along the device's blocks: copro_drv.c owns the PCI
 * function (BARs, interrupt vectors, dispatch of the cause register),
 * copro_kms.c the display block (one CRTC with its primary and cursor
 * planes), copro_debugfs.c what a developer reads. The render half (GEM
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

#include "copro/copro_regs.h"

#define COPRO_DRIVER_NAME	"copro"
#define COPRO_DRIVER_DESC	"copro coprocessor (QEMU)"

enum copro_irq_mode {
	COPRO_IRQ_INTX,
	COPRO_IRQ_MSI,
	COPRO_IRQ_MSIX,
};

/* One engine: what the render half will grow (ring, scheduler, fences). */
struct copro_engine {
	unsigned int id;
	u64 irqs;		/* causes seen, for debugfs */
	u64 last_causes;
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
	/* a flip chosen by the primary plane, written at the CRTC's flush */
	bool flip_queued;
	u64 flip_addr;
	/* the event of the flip in flight; drm.event_lock */
	struct drm_pending_vblank_event *flip_event;
	/* pipe CRC (debugfs crtc-0/crc): the device latches it per vsync */
	bool crc_on;
	u64 crcs;
	u64 resets;		/* device resets survived */
	/* VSYNC_COUNT restarts at a reset: the vblank counter goes on */
	u64 vsync_base;
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
void copro_kms_vsync(struct copro_device *cdev, u64 causes);

void copro_debugfs_init(struct drm_minor *minor);

#endif
