// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: pinning buffers in VRAM.
 *
 * DOC: VRAM pins
 *
 * The display and the engines read buffers by VRAM offset, so a buffer
 * the device is about to use is pinned in VRAM. The VRAM helper's own
 * pin with a placement is no longer exported in 7.x (drm_gem_pin pins a
 * buffer wherever it happens to be, system memory included), so the
 * driver asks TTM for a VRAM placement itself: the same code on 6.12 and
 * 7.x. The driver's long-lived buffers (the job pool and rings, the GART
 * table, the cursor image) are pinned at the top of VRAM, away from the
 * framebuffers at the bottom, and mapped for the CPU for their whole life.
 */
#include <drm/drm_gem_vram_helper.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>

#include "copro_drv.h"

int copro_bo_pin_vram(struct drm_gem_vram_object *gbo, bool topdown)
{
	struct ttm_buffer_object *bo = &gbo->bo;
	struct ttm_place place = {
		.mem_type = TTM_PL_VRAM,
		.flags = topdown ? TTM_PL_FLAG_TOPDOWN : 0,
	};
	struct ttm_placement placement = {
		.num_placement = 1,
		.placement = &place,
	};
	struct ttm_operation_ctx ctx = { .interruptible = false };
	int ret;

	ret = ttm_bo_reserve(bo, true, false, NULL);
	if (ret)
		return ret;
	if (bo->pin_count) {
		/* pinned by someone else: only where the device reads it */
		if (bo->resource->mem_type != TTM_PL_VRAM)
			ret = -EBUSY;
	} else {
		ret = ttm_bo_validate(bo, &placement, &ctx);
	}
	if (!ret)
		ttm_bo_pin(bo);
	ttm_bo_unreserve(bo);
	return ret;
}

void copro_bo_unpin(struct drm_gem_vram_object *gbo)
{
	struct ttm_buffer_object *bo = &gbo->bo;

	/* not interruptible: an unpin lost to a signal would leak the pin */
	ttm_bo_reserve(bo, false, false, NULL);
	ttm_bo_unpin(bo);
	ttm_bo_unreserve(bo);
}

/*
 * For fdinfo's drm-resident-vram, under the file's table spinlock: a
 * buffer whose reservation is held (being moved or validated) counts as
 * resident rather than waiting for it.
 */
bool copro_bo_in_vram(struct drm_gem_object *obj)
{
	struct ttm_buffer_object *bo = &drm_gem_vram_of_gem(obj)->bo;
	bool in;

	if (!dma_resv_trylock(obj->resv))
		return true;
	in = bo->resource && bo->resource->mem_type == TTM_PL_VRAM;
	dma_resv_unlock(obj->resv);
	return in;
}

int copro_kbo_create(struct copro_device *cdev, size_t size,
		     struct drm_gem_vram_object **out, struct iosys_map *map,
		     u64 *gpu)
{
	struct drm_gem_vram_object *gbo;
	s64 off;
	int ret;

	gbo = drm_gem_vram_create(&cdev->drm, size, 0);
	if (IS_ERR(gbo))
		return PTR_ERR(gbo);
	ret = copro_bo_pin_vram(gbo, true);
	if (ret)
		goto err_put;
	ttm_bo_reserve(&gbo->bo, false, false, NULL);
	ret = drm_gem_vram_vmap(gbo, map);
	ttm_bo_unreserve(&gbo->bo);
	if (ret)
		goto err_unpin;
	off = drm_gem_vram_offset(gbo);
	if (off < 0) {
		ret = off;
		copro_kbo_destroy(gbo, map);
		return ret;
	}
	*gpu = off;
	*out = gbo;
	return 0;

err_unpin:
	copro_bo_unpin(gbo);
err_put:
	drm_gem_object_put(&gbo->bo.base);
	return ret;
}

void copro_kbo_destroy(struct drm_gem_vram_object *gbo, struct iosys_map *map)
{
	ttm_bo_reserve(&gbo->bo, false, false, NULL);
	drm_gem_vram_vunmap(gbo, map);
	ttm_bo_unreserve(&gbo->bo);
	copro_bo_unpin(gbo);
	drm_gem_object_put(&gbo->bo.base);
}
