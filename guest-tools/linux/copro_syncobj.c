// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * copro DRM driver: the sync objects a submit or an asynchronous VM_BIND
 * signals (struct drm_copro_sync arrays of the uapi).
 *
 * DOC: Out-syncs
 *
 * Everything that can fail is done before the work is committed: each
 * sync object is looked up and, for a timeline point, its chain node
 * allocated (copro_out_syncs_get); once the fence exists, installing it
 * can no longer fail (copro_out_syncs_signal), so a refused call never
 * leaves some of its sync objects signalled and others not.
 */
#include <linux/mm.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>

#include "copro_render.h"
#include "uapi/copro_drm.h"

int copro_out_syncs_get(struct drm_file *file, u64 uptr, u32 count,
			struct copro_out_sync **outp)
{
	struct copro_out_sync *out;
	struct drm_copro_sync s;
	unsigned int i;

	*outp = NULL;
	if (!count)
		return 0;
	out = kvcalloc(count, sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	*outp = out;
	for (i = 0; i < count; i++) {
		if (copy_from_user(&s, u64_to_user_ptr(uptr) + i * sizeof(s),
				   sizeof(s)))
			return -EFAULT;
		if (s.flags)
			return -EINVAL;
		out[i].obj = drm_syncobj_find(file, s.handle);
		if (!out[i].obj)
			return -ENOENT;
		out[i].point = s.point;
		if (s.point) {
			out[i].chain = dma_fence_chain_alloc();
			if (!out[i].chain)
				return -ENOMEM;
		}
	}
	return 0;
}

void copro_out_syncs_signal(struct copro_out_sync *out, u32 count,
			    struct dma_fence *fence)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		if (out[i].chain) {
			drm_syncobj_add_point(out[i].obj, out[i].chain, fence,
					      out[i].point);
			out[i].chain = NULL;
		} else {
			drm_syncobj_replace_fence(out[i].obj, fence);
		}
	}
}

void copro_out_syncs_put(struct copro_out_sync *out, u32 count)
{
	unsigned int i;

	if (!out)
		return;
	for (i = 0; i < count; i++) {
		if (out[i].obj)
			drm_syncobj_put(out[i].obj);
		dma_fence_chain_free(out[i].chain);
	}
	kvfree(out);
}
