// SPDX-License-Identifier: GPL-2.0-or-later
/**
 * DOC: the kernel pool
 *
 * One pinned VRAM buffer, carved with drm_mm: the rings' descriptors at
 * its start, then each job's stream, save area and end time
 * (copro_submit.c). Bounded per process by copro_limits.c.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "copro/copro_cmd.h"
#include "copro_engine.h"
#include "copro_trace.h"

/* ---- the kernel pool: one pinned VRAM buffer, carved with drm_mm ---- */

int copro_pool_init(struct copro_device *cdev, u64 size, u64 reserved)
{
	struct copro_pool *pool = &cdev->pool;
	int ret;

	mutex_init(&pool->lock);
	ret = copro_kbo_create(cdev, size, &pool->gbo, &pool->map, &pool->gpu);
	if (ret) {
		pool->gbo = NULL;
		return ret;
	}
	pool->size = size;
	/* [0, reserved): the rings; the rest is handed out to jobs */
	drm_mm_init(&pool->mm, reserved, size - reserved);
	return 0;
}

void copro_pool_fini(struct copro_device *cdev)
{
	struct copro_pool *pool = &cdev->pool;

	if (!pool->gbo)
		return;
	drm_mm_takedown(&pool->mm);
	copro_kbo_destroy(pool->gbo, &pool->map);
	pool->gbo = NULL;
}

int copro_pool_alloc(struct copro_device *cdev, struct drm_mm_node *node,
		     u64 size)
{
	int ret;

	mutex_lock(&cdev->pool.lock);
	ret = drm_mm_insert_node_generic(&cdev->pool.mm, node, size, 64, 0,
					 DRM_MM_INSERT_BEST);
	if (!ret)
		cdev->pool.used += node->size;
	mutex_unlock(&cdev->pool.lock);
	return ret;
}

void copro_pool_free(struct copro_device *cdev, struct drm_mm_node *node)
{
	if (!drm_mm_node_allocated(node))
		return;
	mutex_lock(&cdev->pool.lock);
	cdev->pool.used -= node->size;
	drm_mm_remove_node(node);
	mutex_unlock(&cdev->pool.lock);
}
