/* drm_output.h - what a DRM card's frames go to, for drm.c: the connector, its mode, a CRTC
 * and its primary plane, chosen by drm_output.c, which calls nothing of drm.c's. */
#ifndef FBRIPPLE_DRM_OUTPUT_H
#define FBRIPPLE_DRM_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <xf86drmMode.h>

#include "display.h"

/* What the frames go to: a connector, its mode, a CRTC and its primary plane. */
struct drm_output {
	uint32_t conn_id, crtc_id, plane_id;
	uint32_t dpms_prop;	/* 0: the connector has none */
	drmModeModeInfo mode;
	uint32_t format;	/* DRM_FORMAT_XRGB8888 or DRM_FORMAT_RGB565 */
	int rotate;		/* the panel's own, degrees clockwise */
	char name[32];		/* the connector's: "HDMI-A-1" */
};

/* The connector req->output names (else the first connected one), its mode (req->mode, else
 * the preferred one), its CRTC (the one driving it now, else one no other output uses, else
 * ours: the one a display of ours on the card drives; 0: none), the CRTC's primary plane and
 * the format to draw in, the connector's DPMS property and the panel's rotation. 0, or -errno
 * with err saying why (never -EBUSY, which display_open takes for another master). */
int drm_output_choose(int fd, const struct display_request *req, uint32_t ours,
		      struct drm_output *out, char *err, size_t errlen);

/* The value of the property called name on an object, and its id; -ENOENT without one. */
int drm_property_find(int fd, uint32_t obj, uint32_t type, const char *name, uint32_t *id,
		      uint64_t *value);

/* --list-devices: each of the card's connectors, whether connected, and its modes. */
void drm_output_list(int fd, FILE *out);

#endif
