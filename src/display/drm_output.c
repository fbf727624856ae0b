/* drm_output.c - what a DRM card's frames go to: the card, its connector and mode, a CRTC no
 * other output uses, the primary plane and its format; the card's properties. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drmMode.h>

#include "display.h"
#include "drm_output.h"

/* "HDMI-A-1": the name the kernel and display.output use. */
static void connector_name(const drmModeConnector *c, char *name, size_t len)
{
	const char *type = drmModeGetConnectorTypeName(c->connector_type);

	snprintf(name, len, "%s-%u", type ? type : "Unknown", c->connector_type_id);
}

/* What the kernel knows of a connector, probed only where it knows nothing yet: without fbdev
 * emulation no client in the kernel probes at boot, and the status stays unknown, no modes,
 * until a master asks (the first opener of a card nobody holds is its master). */
static bool is_connected(int fd, uint32_t id)
{
	drmModeConnector *c = drmModeGetConnectorCurrent(fd, id);
	bool found;

	if (c && (c->connection == DRM_MODE_UNKNOWNCONNECTION ||
		  (c->connection == DRM_MODE_CONNECTED && c->count_modes == 0))) {
		drmModeFreeConnector(c);
		c = drmModeGetConnector(fd, id);
	}
	found = c && c->connection == DRM_MODE_CONNECTED && c->count_modes > 0;
	drmModeFreeConnector(c);
	return found;
}

/* 1: a connector is connected; 0: none is; -ENODEV: no connectors to ask (a GPU that renders
 * only, as the Raspberry Pi's v3d and i.MX's etnaviv, is card0 beside the display's card). */
static int has_connected(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	int found = res ? 0 : -ENODEV;

	for (int i = 0; res && !found && i < res->count_connectors; i++)
		found = is_connected(fd, res->connectors[i]);
	drmModeFreeResources(res);
	return found;
}

int display_drm_find(char *path, size_t len)
{
	int ret = -ENOENT;

	for (int i = 0; i < 16; i++) {
		char card[32];
		int fd, found;

		snprintf(card, sizeof(card), "/dev/dri/card%d", i);
		fd = open(card, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		found = has_connected(fd);
		close(fd);
		if (found == 1 || (found == 0 && ret == -ENOENT))
			snprintf(path, len, "%s", card);
		if (found == 1)
			return 0;
		if (found == 0)
			ret = -ENODEV;
	}
	return ret;
}

/* The card's own fbdev emulation is the fb* the kernel registered on the card's device: on a
 * machine with two cards /dev/fb0 may be the other card's. */
int display_drm_fbdev(const char *card, char *path, size_t len)
{
	char dir[96];
	struct stat st;
	struct dirent *e;
	DIR *graphics;
	long best = -1;

	if (stat(card, &st) < 0 || !S_ISCHR(st.st_mode))
		return -ENOENT;
	snprintf(dir, sizeof(dir), "/sys/dev/char/%u:%u/device", major(st.st_rdev),
		 minor(st.st_rdev));
	if (access(dir, F_OK) < 0)
		return -ENOENT;		/* no sysfs to ask */
	strcat(dir, "/graphics");
	graphics = opendir(dir);
	while (graphics && (e = readdir(graphics))) {
		char *end;
		long n = strtol(e->d_name + 2, &end, 10);

		if (!strncmp(e->d_name, "fb", 2) && end != e->d_name + 2 && !*end && n >= 0 &&
		    (best < 0 || n < best))
			best = n;
	}
	if (graphics)
		closedir(graphics);
	if (best < 0)
		return -ENODEV;
	snprintf(path, len, "/dev/fb%ld", best);
	return 0;
}

int drm_property_find(int fd, uint32_t obj, uint32_t type, const char *name, uint32_t *id,
		      uint64_t *value)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, obj, type);
	int ret = -ENOENT;

	for (uint32_t i = 0; props && ret && i < props->count_props; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);

		if (p && strcmp(p->name, name) == 0) {
			*id = p->prop_id;
			if (value)
				*value = props->prop_values[i];
			ret = 0;
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return ret;
}

/* The connector display.output names, or the first connected one; when there is none, the
 * names of those there are in all. */
static drmModeConnector *choose_connector(int fd, const drmModeRes *res, const char *want,
					  char *name, size_t len, char *all, size_t all_len)
{
	size_t at = 0;

	all[0] = '\0';
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		if (!c)
			continue;
		connector_name(c, name, len);
		if (want && want[0] ? strcmp(name, want) == 0
				    : c->connection == DRM_MODE_CONNECTED && c->count_modes > 0)
			return c;
		if (at < all_len)
			at += (size_t)snprintf(all + at, all_len - at, "%s%s", at ? ", " : "", name);
		drmModeFreeConnector(c);
	}
	return NULL;
}

/* display.mode's WxH[@Hz], or the preferred mode (else the first, which drivers sort first). */
static int choose_mode(const drmModeConnector *c, const char *want, drmModeModeInfo *mode)
{
	int w, h, hz;

	if (c->count_modes < 1)
		return -ENOENT;
	if (!want || !want[0]) {
		*mode = c->modes[0];
		for (int i = 0; i < c->count_modes; i++)
			if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
				*mode = c->modes[i];
				break;
			}
		return 0;
	}
	if (display_mode_parse(want, &w, &h, &hz) < 0)
		return -EINVAL;
	for (int i = 0; i < c->count_modes; i++)
		if (c->modes[i].hdisplay == w && c->modes[i].vdisplay == h &&
		    (!hz || (int)c->modes[i].vrefresh == hz)) {
			*mode = c->modes[i];
			return 0;
		}
	return -ENOENT;
}

/* Whether a connector other than conn drives crtc now (its encoder's): that output's screen,
 * the console's or another program's, is not ours to take. */
static bool crtc_in_use(int fd, const drmModeRes *res, uint32_t conn, uint32_t crtc)
{
	bool used = false;

	for (int i = 0; !used && i < res->count_connectors; i++) {
		drmModeConnector *c = res->connectors[i] == conn ? NULL :
				      drmModeGetConnectorCurrent(fd, res->connectors[i]);
		drmModeEncoder *enc = c && c->encoder_id ? drmModeGetEncoder(fd, c->encoder_id)
							 : NULL;

		used = enc && enc->crtc_id == crtc;
		drmModeFreeEncoder(enc);
		drmModeFreeConnector(c);
	}
	return used;
}

/* Whether one of the connector's encoders can drive the card's CRTC number index. */
static bool can_drive(int fd, const drmModeConnector *c, int index)
{
	bool can = false;

	for (int i = 0; !can && i < c->count_encoders; i++) {
		drmModeEncoder *enc = drmModeGetEncoder(fd, c->encoders[i]);

		can = enc && (enc->possible_crtcs & (1u << index));
		drmModeFreeEncoder(enc);
	}
	return can;
}

/* The CRTC driving the connector now, else one its encoders can drive that no other connector
 * uses, else ours: the one a display of ours on the card drives (a reload's new output takes
 * its place; 0: none). -ENOENT: its encoders can drive none; -ENOSPC: every one they can
 * drives another output. */
static int choose_crtc(int fd, const drmModeRes *res, const drmModeConnector *c, uint32_t ours,
		       uint32_t *crtc)
{
	drmModeEncoder *enc = c->encoder_id ? drmModeGetEncoder(fd, c->encoder_id) : NULL;
	bool ours_fits = false;
	int ret = -ENOENT;

	*crtc = enc ? enc->crtc_id : 0;
	drmModeFreeEncoder(enc);
	if (*crtc)
		return 0;
	for (int j = 0; j < res->count_crtcs; j++) {
		if (!can_drive(fd, c, j))
			continue;
		if (res->crtcs[j] != ours &&
		    !crtc_in_use(fd, res, c->connector_id, res->crtcs[j])) {
			*crtc = res->crtcs[j];
			return 0;
		}
		ours_fits |= res->crtcs[j] == ours;
		ret = -ENOSPC;
	}
	if (ours_fits)
		*crtc = ours;
	return ours_fits ? 0 : ret;
}

/* err says why choose_crtc found none for output; returns ret (never -EBUSY, which
 * display_open takes for a card another process is master of). */
static int crtc_error(int ret, const char *output, char *err, size_t errlen)
{
	if (ret == -ENOSPC)
		snprintf(err, errlen, "no free CRTC for %s: each one that can drive it drives "
			 "another output now (the console's or another program's)", output);
	else if (ret < 0)
		snprintf(err, errlen, "no CRTC for %s", output);
	return ret;
}

static int crtc_index(const drmModeRes *res, uint32_t crtc)
{
	for (int i = 0; i < res->count_crtcs; i++)
		if (res->crtcs[i] == crtc)
			return i;
	return -1;
}

/* How well primary plane p suits crtc: the one that scans it out now, else one that scans out
 * nothing (where every plane may serve every CRTC, msm's, another CRTC's is taken); -1: not
 * a primary plane it can use. */
static int plane_fit(int fd, const drmModePlane *p, uint32_t crtc, int index)
{
	uint32_t prop;
	uint64_t type = 0;

	if (!p || index < 0 || !(p->possible_crtcs & (1u << index)) ||
	    drm_property_find(fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type", &prop, &type) < 0 ||
	    type != DRM_PLANE_TYPE_PRIMARY)
		return -1;
	return p->crtc_id == crtc ? 2 : p->crtc_id == 0 ? 1 : 0;
}

/* The CRTC's primary plane, and the format to draw in: XRGB8888, RGB565 only where the plane
 * has nothing else. */
static int choose_plane(int fd, const drmModeRes *res, struct drm_output *out)
{
	drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
	int index = crtc_index(res, out->crtc_id), best = -1, ret = -ENOENT;

	for (uint32_t i = 0; planes && best < 2 && i < planes->count_planes; i++) {
		drmModePlane *p = drmModeGetPlane(fd, planes->planes[i]);
		int fit = plane_fit(fd, p, out->crtc_id, index);
		bool xrgb = false, rgb565 = false;

		if (fit > best) {
			for (uint32_t f = 0; f < p->count_formats; f++) {
				xrgb |= p->formats[f] == DRM_FORMAT_XRGB8888;
				rgb565 |= p->formats[f] == DRM_FORMAT_RGB565;
			}
			best = fit;
			out->plane_id = p->plane_id;
			out->format = xrgb ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_RGB565;
			ret = xrgb || rgb565 ? 0 : -ENOTSUP;
		}
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(planes);
	return ret;
}

/* "Right Side Up": the panel's top is on the right, so the picture turns 90 degrees
 * clockwise to stand upright; "Left Side Up" 270 (as fbcon turns its text). */
static int panel_rotation(int fd, uint32_t conn)
{
	static const int degrees[] = { 0, 180, 270, 90 };
	uint32_t prop;
	uint64_t value;

	if (drm_property_find(fd, conn, DRM_MODE_OBJECT_CONNECTOR, "panel orientation", &prop,
			      &value) < 0 || value > 3)
		return 0;
	return degrees[value];
}

/* err says why choose_connector found none: want is not among all, the connectors there are,
 * or none of them is connected. -ENODEV. */
static int connector_error(const char *want, const char *all, char *err, size_t errlen)
{
	if (want && want[0])
		snprintf(err, errlen, "no connector %.32s (the card has %.128s)", want,
			 all[0] ? all : "none");
	else
		snprintf(err, errlen, "no connected connector among %.128s (a monitor off or "
			 "unplugged at start?)", all[0] ? all : "none");
	return -ENODEV;
}

/* err says why choose_mode found no mode want on connector c, called name; returns ret. */
static int mode_error(int ret, const drmModeConnector *c, const char *want, const char *name,
		      char *err, size_t errlen)
{
	if (ret < 0 && c->connection != DRM_MODE_CONNECTED)
		snprintf(err, errlen, "%s is not connected (a monitor off or unplugged at start?)",
			 name);
	else if (ret < 0)
		snprintf(err, errlen, want && want[0] ? "%s has no mode %s (see --list-devices)"
			 : "%s has no modes%s", name, want ? want : "");
	return ret;
}

int drm_output_choose(int fd, const struct display_request *req, uint32_t ours,
		      struct drm_output *out, char *err, size_t errlen)
{
	drmModeRes *res = drmModeGetResources(fd);
	drmModeConnector *c;
	char all[128];
	int ret;

	if (!res) {
		snprintf(err, errlen, "not a KMS device: %s", strerror(errno));
		return -ENODEV;
	}
	c = choose_connector(fd, res, req->output, out->name, sizeof(out->name), all,
			     sizeof(all));
	if (!c) {
		drmModeFreeResources(res);
		return connector_error(req->output, all, err, errlen);
	}
	out->conn_id = c->connector_id;
	ret = mode_error(choose_mode(c, req->mode, &out->mode), c, req->mode, out->name, err,
			 errlen);
	if (ret == 0)
		ret = crtc_error(choose_crtc(fd, res, c, ours, &out->crtc_id), out->name, err,
				 errlen);
	if (ret == 0 && (ret = choose_plane(fd, res, out)) < 0)
		snprintf(err, errlen, "no primary plane drawing XRGB8888 or RGB565 for %s",
			 out->name);
	if (ret == 0) {
		drm_property_find(fd, out->conn_id, DRM_MODE_OBJECT_CONNECTOR, "DPMS",
				  &out->dpms_prop, NULL);
		out->rotate = panel_rotation(fd, out->conn_id);
	}
	drmModeFreeConnector(c);
	drmModeFreeResources(res);
	return ret;
}

static void describe_connector(int fd, uint32_t id, FILE *out)
{
	drmModeConnector *c = drmModeGetConnector(fd, id);
	char name[32];

	if (!c)
		return;
	connector_name(c, name, sizeof(name));
	fprintf(out, "  connector %s: %s", name,
		c->connection == DRM_MODE_CONNECTED ? "connected" :
		c->connection == DRM_MODE_DISCONNECTED ? "disconnected" : "unknown");
	for (int i = 0; i < c->count_modes; i++)
		fprintf(out, "%s %ux%u@%u%s", i ? "," : "; modes", c->modes[i].hdisplay,
			c->modes[i].vdisplay, c->modes[i].vrefresh,
			c->modes[i].type & DRM_MODE_TYPE_PREFERRED ? " (preferred)" : "");
	fputc('\n', out);
	drmModeFreeConnector(c);
}

void drm_output_list(int fd, FILE *out)
{
	drmModeRes *res = drmModeGetResources(fd);

	for (int i = 0; res && i < res->count_connectors; i++)
		describe_connector(fd, res->connectors[i], out);
	drmModeFreeResources(res);
}
