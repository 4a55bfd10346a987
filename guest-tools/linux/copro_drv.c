// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: PCI function, interrupts, DRM device.
 *
 * Interrupts: MSI-X with one vector per engine plus one for the device
 * events (VSYNC, FLIP_DONE, DISPLAY_ERROR), as the device offers; else one
 * MSI vector; else the INTx level interrupt. Every handler reads
 * INT_STATUS, acknowledges the causes it owns by writing them back, then
 * handles them, so no event is lost between the read and the ack (the
 * device sends a new message for each event).
 */
#include <linux/module.h>
#include <linux/aperture.h>
#include <linux/interrupt.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_fbdev_ttm.h>
#ifdef COPRO_DRM_CLIENTS_DIR	/* 6.15 moved it (Kbuild) */
#include <drm/clients/drm_client_setup.h>
#else
#include <drm/drm_client_setup.h>
#endif
#include <drm/drm_file.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_mode_config.h>
#include <drm/drm_modeset_helper.h>
#include <drm/drm_print.h>

#include "copro_drv.h"
#include "uapi/copro_drm.h"

static char *irq_mode = "auto";
module_param(irq_mode, charp, 0444);
MODULE_PARM_DESC(irq_mode, "Interrupts: auto (MSI-X, else MSI, else INTx), msix, msi or intx");

void copro_irq_enable(struct copro_device *cdev, u64 causes)
{
	unsigned long flags;

	spin_lock_irqsave(&cdev->mask_lock, flags);
	cdev->int_mask |= causes;
	copro_wr64(cdev, COPRO_REG_INT_MASK, cdev->int_mask);
	spin_unlock_irqrestore(&cdev->mask_lock, flags);
}

void copro_irq_disable(struct copro_device *cdev, u64 causes)
{
	unsigned long flags;

	spin_lock_irqsave(&cdev->mask_lock, flags);
	cdev->int_mask &= ~causes;
	copro_wr64(cdev, COPRO_REG_INT_MASK, cdev->int_mask);
	spin_unlock_irqrestore(&cdev->mask_lock, flags);
}

/* Acknowledge and handle the pending causes among @owned. */
static irqreturn_t copro_handle(struct copro_device *cdev, u64 owned)
{
	unsigned int e;
	u64 status;
	int idx;

	/*
	 * The registers stay mapped until copro_remove has freed the vectors,
	 * so the handler reads them even once the device is unplugged: the
	 * display keeps its vblanks until removal has turned it off, and the
	 * clients' last commits (made while they are unregistered) see them
	 * pass. A device that is gone reads all ones.
	 */
	status = copro_rd64(cdev, COPRO_REG_INT_STATUS);
	if (status == ~0ull || !(status & owned))
		return IRQ_NONE;
	status &= owned;
	copro_wr64(cdev, COPRO_REG_INT_STATUS, status);
	if (status & COPRO_INT_DEV_ALL) {
		cdev->dev_irqs++;
		copro_kms_vsync(cdev, status & COPRO_INT_DEV_ALL);
	}
	/* unplugged: the engines' jobs are failed by copro_render_unplug */
	if (!drm_dev_enter(&cdev->drm, &idx))
		return IRQ_HANDLED;
	for (e = 0; e < cdev->num_engines; e++) {
		u64 c = status & COPRO_INT_ENGINE_MASK(e);

		if (c) {
			cdev->engines[e].irqs++;
			cdev->engines[e].last_causes = c >> COPRO_INT_ENGINE_SHIFT(e);
			copro_engine_irq(&cdev->engines[e],
					 c >> COPRO_INT_ENGINE_SHIFT(e));
		}
	}
	drm_dev_exit(idx);
	return IRQ_HANDLED;
}

/* MSI and INTx: one vector for every cause */
static irqreturn_t copro_irq_all(int irq, void *arg)
{
	return copro_handle(arg, ~0ull);
}

/* MSI-X: vector NUM_ENGINES carries the device events */
static irqreturn_t copro_irq_dev(int irq, void *arg)
{
	return copro_handle(arg, COPRO_INT_DEV_ALL);
}

/* MSI-X vector e: engine e's causes. The data is the engine. */
static irqreturn_t copro_irq_engine(int irq, void *arg)
{
	struct copro_engine *eng = arg;
	struct copro_device *cdev = container_of(eng - eng->id,
						 struct copro_device,
						 engines[0]);

	return copro_handle(cdev, COPRO_INT_ENGINE_MASK(eng->id));
}

static void copro_irq_fini(struct copro_device *cdev)
{
	int i;

	copro_wr64(cdev, COPRO_REG_INT_MASK, 0);
	cdev->int_mask = 0;
	if (cdev->irqs_requested) {
		if (cdev->irq_mode == COPRO_IRQ_MSIX) {
			for (i = 0; i < cdev->nvec - 1; i++)
				free_irq(pci_irq_vector(cdev->pdev, i),
					 &cdev->engines[i]);
			free_irq(pci_irq_vector(cdev->pdev, cdev->nvec - 1), cdev);
		} else {
			free_irq(pci_irq_vector(cdev->pdev, 0), cdev);
		}
		cdev->irqs_requested = false;
	}
	pci_free_irq_vectors(cdev->pdev);
}

static int copro_irq_init(struct copro_device *cdev)
{
	struct pci_dev *pdev = cdev->pdev;
	unsigned int want = cdev->num_engines + 1;
	unsigned int types;
	int n, i, ret;

	/* nothing interrupts before a handler is there */
	copro_wr64(cdev, COPRO_REG_INT_MASK, 0);
	copro_wr64(cdev, COPRO_REG_INT_STATUS, ~0ull);

	if (!strcmp(irq_mode, "msix"))
		types = PCI_IRQ_MSIX;
	else if (!strcmp(irq_mode, "msi"))
		types = PCI_IRQ_MSI;
	else if (!strcmp(irq_mode, "intx"))
		types = PCI_IRQ_INTX;
	else if (!strcmp(irq_mode, "auto"))
		types = PCI_IRQ_ALL_TYPES;
	else
		return dev_err_probe(&pdev->dev, -EINVAL,
				     "irq_mode=%s: want auto, msix, msi or intx\n",
				     irq_mode);

	n = -ENOSPC;
	if ((types & PCI_IRQ_MSIX) &&
	    copro_rd32(cdev, COPRO_REG_MSIX_VECTORS) >= want)
		n = pci_alloc_irq_vectors(pdev, want, want, PCI_IRQ_MSIX);
	if (n == want) {
		cdev->irq_mode = COPRO_IRQ_MSIX;
	} else {
		n = pci_alloc_irq_vectors(pdev, 1, 1, types & ~PCI_IRQ_MSIX);
		if (n < 0)
			return dev_err_probe(&pdev->dev, n, "no interrupt\n");
		cdev->irq_mode = pdev->msi_enabled ? COPRO_IRQ_MSI : COPRO_IRQ_INTX;
	}
	cdev->nvec = n;

	if (cdev->irq_mode == COPRO_IRQ_MSIX) {
		for (i = 0; i < cdev->num_engines; i++) {
			ret = request_irq(pci_irq_vector(pdev, i),
					  copro_irq_engine, 0, COPRO_DRIVER_NAME,
					  &cdev->engines[i]);
			if (ret)
				goto unwind;
		}
		ret = request_irq(pci_irq_vector(pdev, i), copro_irq_dev, 0,
				  COPRO_DRIVER_NAME, cdev);
		if (ret)
			goto unwind;
	} else {
		ret = request_irq(pci_irq_vector(pdev, 0), copro_irq_all,
				  cdev->irq_mode == COPRO_IRQ_INTX ? IRQF_SHARED : 0,
				  COPRO_DRIVER_NAME, cdev);
		if (ret) {
			pci_free_irq_vectors(pdev);
			return ret;
		}
	}
	cdev->irqs_requested = true;
	return 0;

unwind:
	while (--i >= 0)
		free_irq(pci_irq_vector(pdev, i), &cdev->engines[i]);
	pci_free_irq_vectors(pdev);
	return ret;
}

/* Engines: identified; copro_render_init() brings up their rings. */
static void copro_engines_init(struct copro_device *cdev)
{
	unsigned int e;

	for (e = 0; e < cdev->num_engines; e++)
		cdev->engines[e].id = e;
}

static const struct file_operations copro_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_ioctl_desc copro_ioctls[] = {
	DRM_IOCTL_DEF_DRV(COPRO_GET_PARAM, copro_ioctl_get_param, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(COPRO_GEM_CREATE, copro_ioctl_gem_create, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(COPRO_GEM_INFO, copro_ioctl_gem_info, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(COPRO_CTX_CREATE, copro_ioctl_ctx_create, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(COPRO_CTX_DESTROY, copro_ioctl_ctx_destroy, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(COPRO_CTX_QUERY, copro_ioctl_ctx_query, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(COPRO_SUBMIT, copro_ioctl_submit, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(COPRO_VM_BIND, copro_ioctl_vm_bind, DRM_RENDER_ALLOW),
};

static int copro_dumb_create(struct drm_file *file, struct drm_device *drm,
			     struct drm_mode_create_dumb *args)
{
	/*
	 * The display wants pitches that are multiples of 4 bytes; 64 keeps
	 * rows aligned for the engines too.
	 */
	return drm_gem_vram_fill_create_dumb(file, drm, 0, 64, args);
}

static const struct drm_driver copro_driver = {
	.driver_features = DRIVER_GEM | DRIVER_MODESET | DRIVER_ATOMIC |
			   DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE | COPRO_DRIVER_GEM_GPUVA,
	.fops = &copro_fops,
	.show_fdinfo = copro_show_fdinfo,
	.ioctls = copro_ioctls,
	.num_ioctls = ARRAY_SIZE(copro_ioctls),
	.open = copro_open,
	.postclose = copro_postclose,
	.name = COPRO_DRIVER_NAME,
	.desc = COPRO_DRIVER_DESC,
	.major = 0,
	.minor = 1,
	.debugfs_init = copro_debugfs_init,
	.dumb_create = copro_dumb_create,
	.dumb_map_offset = drm_gem_ttm_dumb_map_offset,
	DRM_FBDEV_TTM_DRIVER_OPS,
};

static int copro_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct copro_device *cdev;
	struct drm_device *drm;
	u32 id, version;
	int ret;

	ret = aperture_remove_conflicting_pci_devices(pdev, copro_driver.name);
	if (ret)
		return ret;

	cdev = devm_drm_dev_alloc(&pdev->dev, &copro_driver,
				  struct copro_device, drm);
	if (IS_ERR(cdev))
		return PTR_ERR(cdev);
	drm = &cdev->drm;
	cdev->pdev = pdev;
	spin_lock_init(&cdev->mask_lock);
	init_rwsem(&cdev->reset_sem);
	pci_set_drvdata(pdev, cdev);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = pcim_iomap_regions(pdev, BIT(COPRO_BAR_MMIO), COPRO_DRIVER_NAME);
	if (ret)
		return ret;
	cdev->mmio = pcim_iomap_table(pdev)[COPRO_BAR_MMIO];
	if (pci_resource_len(pdev, COPRO_BAR_MMIO) < COPRO_MMIO_SIZE)
		return dev_err_probe(&pdev->dev, -ENODEV, "BAR0 too small\n");

	id = copro_rd32(cdev, COPRO_REG_ID);
	version = copro_rd32(cdev, COPRO_REG_VERSION);
	if (id != COPRO_ID_MAGIC || (version >> 16) != COPRO_VERSION_MAJOR)
		return dev_err_probe(&pdev->dev, -ENODEV,
				     "ID %#x version %#x: not a copro v%u\n",
				     id, version, COPRO_VERSION_MAJOR);
	cdev->caps = copro_rd32(cdev, COPRO_REG_CAPS);
	cdev->num_engines = copro_rd32(cdev, COPRO_REG_NUM_ENGINES);
	if (!cdev->num_engines || cdev->num_engines > COPRO_MAX_ENGINES ||
	    !(cdev->caps & COPRO_CAP_DISPLAY))
		return dev_err_probe(&pdev->dev, -ENODEV,
				     "%u engines, caps %#x: unsupported\n",
				     cdev->num_engines, cdev->caps);
	cdev->refresh = copro_rd32(cdev, COPRO_REG_DISP_REFRESH);
	cdev->period_ns = copro_rd64(cdev, COPRO_REG_DISP_PERIOD_NS);
	if (!cdev->refresh || cdev->refresh > COPRO_DISP_REFRESH_MAX ||
	    !cdev->period_ns)
		return dev_err_probe(&pdev->dev, -ENODEV, "refresh %u Hz?\n",
				     cdev->refresh);

	/* VRAM: the GPU address of a byte is its offset in BAR2 */
	cdev->vram_base = pci_resource_start(pdev, COPRO_BAR_VRAM);
	cdev->vram_size = min_t(u64, pci_resource_len(pdev, COPRO_BAR_VRAM),
				copro_rd64(cdev, COPRO_REG_VRAM_SIZE));
	if (!cdev->vram_base || cdev->vram_size < COPRO_VRAM_MIN)
		return dev_err_probe(&pdev->dev, -ENODEV, "no VRAM BAR\n");
	if (!devm_request_mem_region(&pdev->dev, cdev->vram_base,
				     cdev->vram_size, "copro-vram"))
		return -EBUSY;
	ret = drmm_vram_helper_init(drm, cdev->vram_base, cdev->vram_size);
	if (ret)
		return ret;

	copro_engines_init(cdev);
	ret = copro_irq_init(cdev);
	if (ret)
		return ret;

	ret = copro_render_init(cdev);
	if (ret)
		goto err_render;

	ret = copro_kms_init(cdev);
	if (ret)
		goto err_render;

	ret = drm_dev_register(drm, 0);
	if (ret)
		goto err_render;

	drm_info(drm, "copro v%u.%u: %u engines, %llu MiB VRAM, %u Hz, %s\n",
		 version >> 16, version & 0xffff, cdev->num_engines,
		 cdev->vram_size >> 20, cdev->refresh,
		 cdev->irq_mode == COPRO_IRQ_MSIX ? "MSI-X" :
		 cdev->irq_mode == COPRO_IRQ_MSI ? "MSI" : "INTx");
	/* fbdev (fbcon) through the DRM client, drawn in a shadow buffer */
	drm_client_setup_with_color_mode(drm, 32);
	return 0;

err_render:
	copro_render_unplug(cdev);
	copro_irq_fini(cdev);
	return ret;
}

/*
 * Driver unbind or hot-unplug (the function may already be gone). After
 * drm_dev_unplug no ioctl enters and every section that touches the
 * device (drm_dev_enter) has ended; what the files hold lives on until
 * they are closed (copro_render_release). The display and the engines
 * are stopped here, the function's own last accesses, so the device
 * reads no buffer the kernel frees later; every outstanding fence
 * signals -ENODEV.
 */
static void copro_remove(struct pci_dev *pdev)
{
	struct copro_device *cdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&cdev->drm);
	/* commits no longer reach the device: the events are sent */
	drm_atomic_helper_shutdown(&cdev->drm);
	copro_wr32(cdev, COPRO_REG_CURSOR_CONTROL, 0);
	copro_wr32(cdev, COPRO_REG_DISP_CONTROL, 0);
	copro_render_unplug(cdev);
	copro_irq_fini(cdev);
}

static void copro_shutdown(struct pci_dev *pdev)
{
	struct copro_device *cdev = pci_get_drvdata(pdev);

	drm_atomic_helper_shutdown(&cdev->drm);
}

/*
 * A function or bus reset (sysfs reset, a hot reset through the port)
 * clears the device's registers: interrupt masks, the display and its
 * counters. The modeset state is saved and switched off before, and
 * committed again after; the PCI core restores the config space and the
 * MSI-X table.
 */
static void copro_reset_prepare(struct pci_dev *pdev)
{
	struct copro_device *cdev = pci_get_drvdata(pdev);

	copro_render_reset_prepare(cdev);
	if (drm_mode_config_helper_suspend(&cdev->drm))
		drm_err(&cdev->drm, "reset: could not save the display state\n");
	/* the display is off now: no vblank until it is committed again */
	cdev->vsync_base += copro_rd64(cdev, COPRO_REG_DISP_VSYNC_COUNT);
	WRITE_ONCE(cdev->vsync_last, 0);
}

static void copro_reset_done(struct pci_dev *pdev)
{
	struct copro_device *cdev = pci_get_drvdata(pdev);
	unsigned long flags;

	spin_lock_irqsave(&cdev->mask_lock, flags);
	copro_wr64(cdev, COPRO_REG_INT_STATUS, ~0ull);
	copro_wr64(cdev, COPRO_REG_INT_MASK, cdev->int_mask);
	spin_unlock_irqrestore(&cdev->mask_lock, flags);
	if (READ_ONCE(cdev->crc_on))
		copro_wr32(cdev, COPRO_REG_DISP_CRC_CONTROL,
			   COPRO_DISP_CRC_CTL_ENABLE);
	cdev->hw_on = false;
	cdev->resets++;
	copro_render_reset_done(cdev);
	if (drm_mode_config_helper_resume(&cdev->drm))
		drm_err(&cdev->drm, "reset: could not restore the display\n");
}

static const struct pci_error_handlers copro_err_handlers = {
	.reset_prepare = copro_reset_prepare,
	.reset_done = copro_reset_done,
};

static const struct pci_device_id copro_pci_ids[] = {
	{ PCI_DEVICE(COPRO_PCI_VENDOR_ID, COPRO_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, copro_pci_ids);

static struct pci_driver copro_pci_driver = {
	.name = COPRO_DRIVER_NAME,
	.id_table = copro_pci_ids,
	.probe = copro_probe,
	.remove = copro_remove,
	.shutdown = copro_shutdown,
	.driver.pm = pm_sleep_ptr(&copro_pm_ops),
	.err_handler = &copro_err_handlers,
};

module_pci_driver(copro_pci_driver);

MODULE_DESCRIPTION(COPRO_DRIVER_DESC);
MODULE_LICENSE("GPL");
