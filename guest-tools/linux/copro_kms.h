/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copro DRM driver: what the KMS files share: the mode config and
 * connector (copro_kms.c), the planes (copro_plane.c) and the CRTC
 * (copro_crtc.c).
 */
#ifndef COPRO_KMS_H
#define COPRO_KMS_H

#include <drm/drm_crtc.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_plane.h>

#include "copro_drv.h"

/* copro_plane.c */
extern const u32 copro_primary_formats[];
extern const unsigned int copro_num_primary_formats;
extern const u32 copro_cursor_formats[];
extern const unsigned int copro_num_cursor_formats;
extern const u64 copro_modifiers[];
extern const struct drm_plane_helper_funcs copro_primary_helpers;
extern const struct drm_plane_helper_funcs copro_cursor_helpers;
extern const struct drm_plane_funcs copro_plane_funcs;
u32 copro_hw_format(u32 fourcc);
u64 copro_plane_addr(struct drm_plane_state *st);
s64 copro_cursor_image(struct copro_device *cdev, struct drm_plane_state *st);
void copro_cursor_program(struct copro_device *cdev,
			  struct drm_plane_state *st);

/* copro_crtc.c */
extern const struct drm_crtc_helper_funcs copro_crtc_helpers;
extern const struct drm_crtc_funcs copro_crtc_funcs;
enum drm_mode_status copro_check_mode(struct copro_device *cdev,
				      const struct drm_display_mode *mode);
void copro_send_flip_event(struct copro_device *cdev);

#endif
