// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: buffers in guest memory, through the GART.
 *
 * A GTT buffer (COPRO_GEM_GTT) is a shmem GEM object whose pages are
 * pinned and mapped into the device's aperture for the object's whole
 * life: one GART entry per page, in a table of APERTURE_SIZE / 4 KiB
 * entries in VRAM. The engines reach it at APERTURE_BASE + its first
 * entry * 4 KiB; the submit ioctl patches those addresses as it does
 * VRAM offsets. Such buffers are never scanned out (the display reads
 * VRAM only): framebuffers refuse them.
 */
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_gem_vram_helper.h>

#include "copro/copro_cmd.h"
#include "copro_render.h"
#include "copro_trace.h"
#include "copro_vm.h"

/* the GART range of each GTT object, by object */
struct copro_gtt {
	struct drm_mm_node node;	/* entries */
	struct copro_proc *proc;	/* charged for them (copro_limits.c) */
};

/*
 * Write (or, without @sgt, clear) @n entries from @first and invalidate
 * them in the device. gart.lock and reset_sem (read) held: a PCI reset
 * has the BARs off between its reset_prepare and reset_done, and the
 * writes would be dropped, leaving entries that name pages the kernel
 * gave back (a buffer freed) or another buffer's (one created in the
 * same range). Holding reset_sem for read makes every change wait for
 * the end of a reset, so the table the device sees is always the one the
 * driver wrote, and a buffer's pages are freed only once their entries
 * are gone from it.
 */
static void copro_gart_write(struct copro_device *cdev, u64 first, u64 n,
			     struct sg_table *sgt)
{
	struct sg_dma_page_iter it;
	u64 i = first;
	int idx;

	lockdep_assert_held(&cdev->gart.lock);
	lockdep_assert_held_read(&cdev->reset_sem);
	/* unplugged: the device is gone, it reaches no page any more */
	if (!drm_dev_enter(&cdev->drm, &idx))
		return;

	trace_copro_bind(cdev->gart.aperture + first * COPRO_GPU_PAGE_SIZE,
			 n * COPRO_GPU_PAGE_SIZE, sgt);
	if (sgt) {
		for_each_sgtable_dma_page(sgt, &it, 0) {
			u64 e = (sg_page_iter_dma_address(&it) &
				 COPRO_GART_ADDR_MASK) | COPRO_GART_VALID |
				COPRO_GART_WRITABLE;

			iosys_map_wr(&cdev->gart.map, i * 8, u64, e);
			i++;
		}
	} else {
		iosys_map_memset(&cdev->gart.map, first * 8, 0, n * 8);
	}
	/* the entries reach VRAM before the device may cache them */
	wmb();
	copro_wr32(cdev, COPRO_REG_GART_INVAL_FIRST, first);
	copro_wr32(cdev, COPRO_REG_GART_INVAL, n);
	drm_dev_exit(idx);
}

static void copro_gart_unmap(struct copro_device *cdev, struct copro_gtt *g)
{
	down_read(&cdev->reset_sem);
	mutex_lock(&cdev->gart.lock);
	copro_gart_write(cdev, g->node.start, g->node.size, NULL);
	cdev->gart.used -= g->node.size;
	drm_mm_remove_node(&g->node);
	mutex_unlock(&cdev->gart.lock);
	up_read(&cdev->reset_sem);
}

static void copro_gtt_free(struct drm_gem_object *obj)
{
	struct copro_device *cdev = to_copro(obj->dev);
	struct copro_gtt *g = xa_erase(&cdev->gart.objs, (unsigned long)obj);

	if (g) {
		u64 pages = g->node.size;

		copro_gart_unmap(cdev, g);
		copro_uncharge(g->proc, COPRO_RES_GART, pages);
		copro_proc_put(g->proc);
		kfree(g);
	}
	/* the entries are gone from the table: the pages may go now */
	drm_gem_shmem_object_free(obj);
}

static const struct drm_gem_object_funcs copro_gtt_funcs = {
	.free = copro_gtt_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

u64 copro_gart_used(struct copro_device *cdev)
{
	return READ_ONCE(cdev->gart.used);
}

bool copro_is_gtt(struct drm_gem_object *obj)
{
	return obj->funcs == &copro_gtt_funcs;
}

/* the GPU address of a GTT object's first byte */
u64 copro_gtt_gpu(struct drm_gem_object *obj)
{
	struct copro_device *cdev = to_copro(obj->dev);
	struct copro_gtt *g = xa_load(&cdev->gart.objs, (unsigned long)obj);

	return cdev->gart.aperture + g->node.start * COPRO_GPU_PAGE_SIZE;
}

struct drm_gem_object *copro_gtt_create(struct copro_device *cdev, u64 size)
{
	struct drm_gem_shmem_object *shmem;
	struct drm_gem_object *obj;
	struct copro_gtt *g;
	struct sg_table *sgt;
	int ret;

	if (!cdev->gart.entries)
		return ERR_PTR(-ENODEV);
	if (size > cdev->gart.entries * (u64)COPRO_GPU_PAGE_SIZE)
		return ERR_PTR(-EINVAL);
	shmem = drm_gem_shmem_create(&cdev->drm, size);
	if (IS_ERR(shmem))
		return ERR_CAST(shmem);
	obj = &shmem->base;
	obj->funcs = &copro_gtt_funcs;
	g = kzalloc_obj(*g);
	if (!g) {
		ret = -ENOMEM;
		goto err;
	}
	/*
	 * The aperture (and the guest pages pinned behind it) is a shared
	 * pool: charged to the allocating process, within its bound and
	 * leaving the reserve to others (copro_limits.c).
	 */
	g->proc = copro_proc_get(cdev);
	if (!g->proc) {
		ret = -ENOMEM;
		goto err_free;
	}
	if (copro_charge(g->proc, COPRO_RES_GART,
			 obj->size / COPRO_GPU_PAGE_SIZE)) {
		ret = -ENOSPC;
		goto err_put;
	}
	/* the pages stay pinned and mapped for the device until the end */
	sgt = drm_gem_shmem_get_pages_sgt(shmem);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto err_uncharge;
	}
	down_read(&cdev->reset_sem);
	mutex_lock(&cdev->gart.lock);
	ret = drm_mm_insert_node(&cdev->gart.mm, &g->node,
				 obj->size / COPRO_GPU_PAGE_SIZE);
	if (!ret) {
		copro_gart_write(cdev, g->node.start, g->node.size, sgt);
		cdev->gart.used += g->node.size;
	}
	mutex_unlock(&cdev->gart.lock);
	up_read(&cdev->reset_sem);
	if (ret) {
		ret = -ENOSPC;
		goto err_uncharge;
	}
	ret = xa_err(xa_store(&cdev->gart.objs, (unsigned long)obj, g,
			      GFP_KERNEL));
	if (ret) {
		copro_gart_unmap(cdev, g);
		goto err_uncharge;
	}
	return obj;

err_uncharge:
	copro_uncharge(g->proc, COPRO_RES_GART, obj->size / COPRO_GPU_PAGE_SIZE);
err_put:
	copro_proc_put(g->proc);
err_free:
	kfree(g);
err:
	drm_gem_object_put(obj);
	return ERR_PTR(ret);
}

int copro_gart_init(struct copro_device *cdev)
{
	struct copro_gart *gart = &cdev->gart;
	u64 aperture = copro_rd64(cdev, COPRO_REG_APERTURE_SIZE);
	int ret;

	mutex_init(&gart->lock);
	xa_init(&gart->objs);
	/* the context table of the GPU VMs (copro_vm.c) */
	ret = copro_vm_init(cdev);
	if (ret)
		return ret;
	if (!(cdev->caps & COPRO_CAP_GART) || !aperture)
		return 0;
	ret = dma_set_mask_and_coherent(cdev->drm.dev, DMA_BIT_MASK(52));
	if (ret)
		goto err;
	/* at most 256 MiB of aperture: a 512 KiB table */
	gart->entries = min_t(u64, aperture, SZ_256M) / COPRO_GPU_PAGE_SIZE;
	gart->aperture = copro_rd64(cdev, COPRO_REG_APERTURE_BASE);
	ret = copro_kbo_create(cdev, gart->entries * 8, &gart->gbo, &gart->map,
			       &gart->base);
	if (ret)
		goto err;
	iosys_map_memset(&gart->map, 0, 0, gart->entries * 8);
	drm_mm_init(&gart->mm, 0, gart->entries);
	copro_gart_program(cdev);
	return 0;

err:
	gart->gbo = NULL;
	gart->entries = 0;
	copro_vm_fini(cdev);
	return ret;
}

/* also after a device reset, which clears the registers (VRAM stays) */
void copro_gart_program(struct copro_device *cdev)
{
	copro_vm_program(cdev);
	if (!cdev->gart.entries)
		return;
	copro_wr64(cdev, COPRO_REG_GART_BASE, cdev->gart.base);
	copro_wr32(cdev, COPRO_REG_GART_ENTRIES, cdev->gart.entries);
	copro_wr32(cdev, COPRO_REG_GART_INVAL, 0);
}

/* the device goes away: it reaches no guest page from here on */
void copro_gart_disable(struct copro_device *cdev)
{
	copro_vm_disable(cdev);
	if (cdev->gart.entries)
		copro_wr32(cdev, COPRO_REG_GART_ENTRIES, 0);
}

/* the DRM device's release: copro_gart_disable came first */
void copro_gart_fini(struct copro_device *cdev)
{
	struct copro_gart *gart = &cdev->gart;

	copro_vm_fini(cdev);
	if (!gart->gbo)
		return;
	drm_mm_takedown(&gart->mm);
	copro_kbo_destroy(gart->gbo, &gart->map);
	gart->gbo = NULL;
	gart->entries = 0;
	xa_destroy(&gart->objs);
}
