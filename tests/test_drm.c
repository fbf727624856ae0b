/* test_drm.c - the DRM backend against a card faked in this process: outputs that share CRTCs,
 * page flips it refuses. What each CRTC scans out is the fake's to say. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <drm.h>
#include <drm_fourcc.h>
#include <drm_mode.h>
#include <xf86drmMode.h>

#include "config/config.h"
#include "daemon/app.h"
#include "display/display.h"
#include "testutil.h"

enum { W = 64, H = 48, SLOT = W * 4 * H, NCRTC = 2, NCONN = 3, CONSOLE_FB = 100 };
enum { CRTC0 = 31, ENC0 = 41, CONN0 = 51, PLANE0 = 61, PROP_TYPE = 71, PROP_FB = 72,
       PROP_DPMS = 73 };

static const char card[] = "/dev/dri/card9";

/*
 * The card: open() of card opens a regular file instead, and ioctl() and read() on its
 * descriptor are answered here (drm.c and libdrm, linked into this program, call these
 * definitions); every other path and descriptor goes to the kernel. Connector i has encoder i
 * alone, which may drive the CRTCs of enc_crtcs[i]; dumb buffer n (from 1) is the file's slot
 * n - 1, framebuffer 200 + n.
 */
static struct {
	char *path;
	dev_t dev;
	ino_t ino;
	int nconn;
	bool connected[NCONN];
	uint32_t enc_crtcs[NCONN];	/* possible_crtcs */
	uint32_t enc_crtc[NCONN];	/* the CRTC encoder i drives now; 0: none */
	uint32_t crtc_fb[NCRTC];
	bool atomic;			/* grants atomic commits */
	int handles;			/* dumb buffers made */
	int flips;			/* flips asked for (legacy or atomic) */
	int refuse_from, refuse_to;	/* flips numbered [from, to) refused with refuse_errno */
	int refuse_errno;
	int dirty;			/* DirtyFB calls */
	uint32_t gone;			/* a framebuffer no CRTC is set to, refused with */
	int gone_errno;			/* this errno (a removed one: ENOENT) */
	bool off;			/* DPMS off: flips refused, as atomic drivers do */
	uint64_t events[8];		/* flips done, their user data, not read yet */
	int nevents;
} fake;

static struct drm_mode_modeinfo fake_mode(void)
{
	struct drm_mode_modeinfo m = { .hdisplay = W, .vdisplay = H, .vrefresh = 60,
				       .type = DRM_MODE_TYPE_PREFERRED | DRM_MODE_TYPE_DRIVER };

	snprintf(m.name, sizeof(m.name), "%dx%d", W, H);
	return m;
}

/* An array the caller gave room for, as the kernel fills it: copied where count holds it all,
 * count set to how many there are. */
static void give(uint64_t ptr, uint32_t *count, const void *src, uint32_t n, size_t size)
{
	if (ptr && *count >= n)
		memcpy((void *)(uintptr_t)ptr, src, n * size);
	*count = n;
}

static int crtc_index(uint32_t id)
{
	return id >= CRTC0 && id < CRTC0 + NCRTC ? (int)(id - CRTC0) : -1;
}

static int get_resources(struct drm_mode_card_res *r)
{
	uint32_t crtcs[NCRTC], conns[NCONN], encs[NCONN];

	for (int i = 0; i < NCRTC; i++)
		crtcs[i] = CRTC0 + i;
	for (int i = 0; i < fake.nconn; i++) {
		conns[i] = CONN0 + i;
		encs[i] = ENC0 + i;
	}
	r->count_fbs = 0;
	give(r->crtc_id_ptr, &r->count_crtcs, crtcs, NCRTC, 4);
	give(r->connector_id_ptr, &r->count_connectors, conns, fake.nconn, 4);
	give(r->encoder_id_ptr, &r->count_encoders, encs, fake.nconn, 4);
	r->min_width = r->min_height = 1;
	r->max_width = r->max_height = 4096;
	return 0;
}

static int get_connector(struct drm_mode_get_connector *c)
{
	int i = (int)c->connector_id - CONN0;
	struct drm_mode_modeinfo mode = fake_mode();
	uint32_t enc = ENC0 + i;

	if (i < 0 || i >= fake.nconn)
		return -ENOENT;
	give(c->encoders_ptr, &c->count_encoders, &enc, 1, 4);
	give(c->modes_ptr, &c->count_modes, &mode, 1, sizeof(mode));
	c->count_props = 0;
	c->encoder_id = fake.enc_crtc[i] ? enc : 0;
	c->connector_type = DRM_MODE_CONNECTOR_HDMIA;
	c->connector_type_id = (uint32_t)i + 1;
	c->connection = fake.connected[i] ? 1 : 2;
	return 0;
}

static int get_encoder(struct drm_mode_get_encoder *e)
{
	int i = (int)e->encoder_id - ENC0;

	if (i < 0 || i >= fake.nconn)
		return -ENOENT;
	e->encoder_type = DRM_MODE_ENCODER_TMDS;
	e->crtc_id = fake.enc_crtc[i];
	e->possible_crtcs = fake.enc_crtcs[i];
	e->possible_clones = 0;
	return 0;
}

static int get_plane_resources(struct drm_mode_get_plane_res *r)
{
	uint32_t planes[NCRTC];

	for (int i = 0; i < NCRTC; i++)
		planes[i] = PLANE0 + i;
	give(r->plane_id_ptr, &r->count_planes, planes, NCRTC, 4);
	return 0;
}

/* Plane i is CRTC i's primary plane, XRGB8888. */
static int get_plane(struct drm_mode_get_plane *p)
{
	int i = (int)p->plane_id - PLANE0;
	uint32_t format = DRM_FORMAT_XRGB8888;

	if (i < 0 || i >= NCRTC)
		return -ENOENT;
	p->crtc_id = CRTC0 + i;
	p->fb_id = fake.crtc_fb[i];
	p->possible_crtcs = 1u << i;
	give(p->format_type_ptr, &p->count_format_types, &format, 1, 4);
	return 0;
}

/* A plane's type and FB_ID; a connector's DPMS. */
static int get_properties(struct drm_mode_obj_get_properties *o)
{
	int i = (int)o->obj_id - PLANE0;
	uint32_t ids[2] = { PROP_TYPE, PROP_FB };
	uint64_t values[2] = { DRM_PLANE_TYPE_PRIMARY, 0 };
	uint32_t n = o->obj_type == DRM_MODE_OBJECT_PLANE && i >= 0 && i < NCRTC ? 2 : 0;
	uint32_t count = o->count_props;

	if (n)
		values[1] = fake.crtc_fb[i];
	if (o->obj_type == DRM_MODE_OBJECT_CONNECTOR) {
		ids[0] = PROP_DPMS;
		values[0] = fake.off ? DRM_MODE_DPMS_OFF : DRM_MODE_DPMS_ON;
		n = 1;
	}
	give(o->props_ptr, &o->count_props, ids, n, 4);
	give(o->prop_values_ptr, &count, values, n, 8);
	return 0;
}

static int get_property(struct drm_mode_get_property *p)
{
	if (p->prop_id < PROP_TYPE || p->prop_id > PROP_DPMS)
		return -ENOENT;
	snprintf(p->name, sizeof(p->name), "%s", p->prop_id == PROP_TYPE ? "type" :
						 p->prop_id == PROP_FB ? "FB_ID" : "DPMS");
	p->flags = DRM_MODE_PROP_RANGE;
	p->count_values = p->count_enum_blobs = 0;
	return 0;
}

static int get_crtc(struct drm_mode_crtc *c)
{
	int i = crtc_index(c->crtc_id);

	if (i < 0)
		return -ENOENT;
	c->fb_id = fake.crtc_fb[i];
	c->x = c->y = 0;
	c->mode_valid = fake.crtc_fb[i] != 0;
	c->mode = fake_mode();
	return 0;
}

/* The CRTC to fb, driving the connectors given (and only those). */
static int set_crtc(struct drm_mode_crtc *c)
{
	const uint32_t *conns = (const uint32_t *)(uintptr_t)c->set_connectors_ptr;
	int i = crtc_index(c->crtc_id);

	if (i < 0)
		return -ENOENT;
	if (c->fb_id && c->fb_id == fake.gone)
		return -fake.gone_errno;
	for (int e = 0; e < fake.nconn; e++)
		if (fake.enc_crtc[e] == c->crtc_id)
			fake.enc_crtc[e] = 0;
	for (uint32_t k = 0; c->fb_id && k < c->count_connectors; k++) {
		int e = (int)conns[k] - CONN0;

		if (e < 0 || e >= fake.nconn || !(fake.enc_crtcs[e] & (1u << i)))
			return -EINVAL;
		fake.enc_crtc[e] = c->crtc_id;
	}
	fake.crtc_fb[i] = c->fb_id;
	return 0;
}

/* A flip of CRTC i to fb, numbered: refused as the test says, else done with an event. */
static int flip(int i, uint32_t fb, uint64_t user_data)
{
	int n = fake.flips++;

	if (n >= fake.refuse_from && n < fake.refuse_to)
		return -fake.refuse_errno;
	if (i < 0 || !fake.crtc_fb[i] || fake.off || fake.nevents == 8)
		return -EINVAL;
	fake.crtc_fb[i] = fb;
	fake.events[fake.nevents++] = user_data;
	return 0;
}

/* One plane's FB_ID, with an event: the commit drm.c prepares for a flip. */
static int atomic_commit(struct drm_mode_atomic *a)
{
	const uint32_t *objs = (const uint32_t *)(uintptr_t)a->objs_ptr;
	const uint32_t *props = (const uint32_t *)(uintptr_t)a->props_ptr;
	const uint64_t *values = (const uint64_t *)(uintptr_t)a->prop_values_ptr;

	if (!fake.atomic || a->count_objs != 1 || props[0] != PROP_FB)
		return -EINVAL;
	return flip((int)objs[0] - PLANE0, (uint32_t)values[0], a->user_data);
}

static int create_dumb(struct drm_mode_create_dumb *c)
{
	c->handle = (uint32_t)++fake.handles;
	c->pitch = c->width * c->bpp / 8;
	c->size = (uint64_t)c->pitch * c->height;
	return c->size > SLOT || fake.handles > 4 ? -ENOMEM : 0;
}

/* A string of the version, as the kernel gives it: copied where there is room. */
static void give_string(char *to, __kernel_size_t *len, const char *s)
{
	if (to && *len >= strlen(s))
		memcpy(to, s, strlen(s));
	*len = strlen(s);
}

static int version(struct drm_version *v)
{
	give_string(v->name, &v->name_len, "fake");
	give_string(v->date, &v->date_len, "0");
	give_string(v->desc, &v->desc_len, "a card faked by test_drm");
	return 0;
}

static int set_client_cap(const struct drm_set_client_cap *cap)
{
	return cap->capability == DRM_CLIENT_CAP_ATOMIC && !fake.atomic ? -EOPNOTSUPP : 0;
}

static int answer(unsigned long req, void *arg)
{
	switch (req) {
	case DRM_IOCTL_VERSION: return version(arg);
	case DRM_IOCTL_SET_CLIENT_CAP: return set_client_cap(arg);
	case DRM_IOCTL_AUTH_MAGIC: case DRM_IOCTL_SET_MASTER: case DRM_IOCTL_DROP_MASTER:
		return 0;
	case DRM_IOCTL_MODE_GETRESOURCES: return get_resources(arg);
	case DRM_IOCTL_MODE_GETCONNECTOR: return get_connector(arg);
	case DRM_IOCTL_MODE_GETENCODER: return get_encoder(arg);
	case DRM_IOCTL_MODE_GETPLANERESOURCES: return get_plane_resources(arg);
	case DRM_IOCTL_MODE_GETPLANE: return get_plane(arg);
	case DRM_IOCTL_MODE_OBJ_GETPROPERTIES: return get_properties(arg);
	case DRM_IOCTL_MODE_GETPROPERTY: return get_property(arg);
	case DRM_IOCTL_MODE_GETCRTC: return get_crtc(arg);
	case DRM_IOCTL_MODE_SETCRTC: return set_crtc(arg);
	case DRM_IOCTL_MODE_CREATE_DUMB: return create_dumb(arg);
	case DRM_IOCTL_MODE_ADDFB2: {
		struct drm_mode_fb_cmd2 *f = arg;

		f->fb_id = 200 + f->handles[0];
		return 0;
	}
	case DRM_IOCTL_MODE_MAP_DUMB: {
		struct drm_mode_map_dumb *m = arg;

		m->offset = (uint64_t)(m->handle - 1) * SLOT;
		return 0;
	}
	case DRM_IOCTL_MODE_RMFB: case DRM_IOCTL_MODE_DESTROY_DUMB: return 0;
	case DRM_IOCTL_MODE_DIRTYFB: fake.dirty++; return 0;
	case DRM_IOCTL_MODE_SETPROPERTY: {
		struct drm_mode_connector_set_property *p = arg;

		if (p->prop_id != PROP_DPMS)
			return -EINVAL;
		fake.off = p->value == DRM_MODE_DPMS_OFF;
		return 0;
	}
	case DRM_IOCTL_MODE_PAGE_FLIP: {
		struct drm_mode_crtc_page_flip *f = arg;

		return flip(crtc_index(f->crtc_id), f->fb_id, f->user_data);
	}
	case DRM_IOCTL_MODE_ATOMIC: return atomic_commit(arg);
	default: return -ENOTTY;
	}
}

/* Any descriptor of the file: drm.c's own, or one it duplicated for a reload's display. */
static bool is_device(int fd)
{
	struct stat st;

	return fake.path && fstat(fd, &st) == 0 && st.st_dev == fake.dev && st.st_ino == fake.ino;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!is_device(fd))
		return (int)syscall(SYS_ioctl, fd, req, arg);
	ret = answer(req, arg);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (flags & O_CREAT) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	if (fake.path && strcmp(path, card) == 0)
		path = fake.path;
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

/* The card is a character device, as display_open learns it (and a reload, the card held). */
int stat(const char *path, struct stat *st)
{
	bool is_card = fake.path && strcmp(path, card) == 0;
	int ret = (int)syscall(SYS_newfstatat, AT_FDCWD, is_card ? fake.path : path, st, 0);

	if (ret == 0 && is_card)
		st->st_mode = S_IFCHR | 0660;
	return ret;
}

/* The card's events: the flips done, as the kernel reports them. */
ssize_t read(int fd, void *buf, size_t len)
{
	struct drm_event_vblank ev = { .base = { DRM_EVENT_FLIP_COMPLETE, sizeof(ev) } };
	size_t at = 0;

	if (!is_device(fd))
		return syscall(SYS_read, fd, buf, len);
	if (!fake.nevents) {
		errno = EAGAIN;
		return -1;
	}
	for (int i = 0; i < fake.nevents && at + sizeof(ev) <= len; i++, at += sizeof(ev)) {
		ev.user_data = fake.events[i];
		memcpy((char *)buf + at, &ev, sizeof(ev));
	}
	fake.nevents = 0;
	return (ssize_t)at;
}

/* A card of nconn connectors, all connected, on two CRTCs each encoder may drive; connector 0
 * shows the console on CRTC 0. */
static void fake_card(int nconn, bool atomic)
{
	struct stat st;

	memset(&fake, 0, sizeof(fake));
	fake.path = tu_device_file("card", 4 * SLOT, &st);
	fake.dev = st.st_dev;
	fake.ino = st.st_ino;
	fake.nconn = nconn;
	fake.atomic = atomic;
	fake.refuse_from = fake.refuse_to = -1;
	for (int i = 0; i < nconn; i++) {
		fake.connected[i] = true;
		fake.enc_crtcs[i] = (1u << NCRTC) - 1;
	}
	fake.enc_crtc[0] = CRTC0;
	fake.crtc_fb[0] = CONSOLE_FB;
}

static void remove_card(void)
{
	tu_device_file_remove(fake.path);	/* and frees it */
	fake.path = NULL;
}

static int open_output(struct display *d, const char *output, char *err, size_t len)
{
	struct display_request req = { .device = card, .buffering = DISPLAY_BUFFER_AUTO,
				       .output = output };

	err[0] = '\0';
	return display_open(d, &req, err, len);
}

/* The pixels of the buffer CRTC i scans out, one of fbripple's. */
static void read_shown(int i, uint32_t px[W * H])
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, fake.path, O_RDONLY | O_CLOEXEC, 0);

	assert_true(fd >= 0 && fake.crtc_fb[i] > 200);
	assert_true(pread(fd, px, SLOT, (off_t)(fake.crtc_fb[i] - 201) * SLOT) == SLOT);
	close(fd);
}

/* The frame number every pixel of the buffer CRTC i scans out holds, -1 when they differ,
 * -2 for a buffer not fbripple's (the console's). */
static long shown_frame(int i)
{
	uint32_t px[W * H];

	if (fake.crtc_fb[i] <= 200)
		return -2;
	read_shown(i, px);
	for (int k = 1; k < W * H; k++)
		if (px[k] != px[0])
			return -1;
	return px[0];
}

/* Frames first .. last drawn and presented on CRTC crtc, as test_fbdev's run_frames: each
 * shown whole or refused (-EAGAIN: the same buffer, off screen, handed out again), the screen
 * then still showing the last one shown; a fall back to one buffer returns the driver's error,
 * counted in *fallbacks. Never a frame drawn into the buffer on screen while two are flipped. */
static long run_frames(struct display *d, int crtc, uint32_t first, uint32_t last, long shown,
		       int *fallbacks)
{
	for (uint32_t n = first; n <= last; n++) {
		int pages = d->mode.pages, ret;

		display_events(d, true);
		if (pages == 2 && display_buffer(d).page == (int)fake.crtc_fb[crtc] - 201)
			fail_msg("frame %u handed the buffer on screen to draw into", n);
		tu_draw_frame(d, n);
		ret = display_present(d);
		if (ret == 0) {
			shown = n;
		} else if (d->mode.pages < pages) {
			assert_int_equal(ret, -fake.refuse_errno);
			++*fallbacks;
		} else {
			assert_int_equal(ret, -EAGAIN);
		}
		if (shown_frame(crtc) != shown)
			fail_msg("after frame %u the screen shows %ld, not frame %ld", n,
				 shown_frame(crtc), shown);
	}
	return shown;
}

/* Two outputs, each encoder able to drive either CRTC, the console on the first: fbripple on
 * the second takes the free CRTC, and the console's screen stays as it was. */
static void test_crtc_of_another_output_left_alone(void **state)
{
	struct display d;
	char err[256];
	int fallbacks = 0;

	(void)state;
	fake_card(2, false);
	if (open_output(&d, "HDMI-A-2", err, sizeof(err)) < 0)
		fail_msg("open: %s", err);
	assert_int_equal(run_frames(&d, 1, 1, 3, 0, &fallbacks), 3);
	assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
	assert_int_equal(fake.enc_crtc[0], CRTC0);
	assert_int_equal(fake.enc_crtc[1], CRTC0 + 1);
	display_close(&d, false);
	remove_card();
}

/* Three outputs on two CRTCs, both driving the first two: the third gets none, and says why,
 * rather than taking another output's screen. */
static void test_no_free_crtc_says_so(void **state)
{
	struct display d;
	char err[256];

	(void)state;
	fake_card(3, false);
	fake.enc_crtc[1] = CRTC0 + 1;
	fake.crtc_fb[1] = CONSOLE_FB;
	assert_int_equal(open_output(&d, "HDMI-A-3", err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "no free CRTC for HDMI-A-3: each one that can drive it drives "
				 "another output now (the console's or another program's)");
	assert_false(display_is_open(&d));
	assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
	assert_int_equal(fake.crtc_fb[1], CONSOLE_FB);
	remove_card();
}

/* The display a reload opens on the card fbripple holds, for output. */
static int open_reload(struct display *d, const struct display *held, const char *output)
{
	struct display_request req = { .device = card, .buffering = DISPLAY_BUFFER_AUTO,
				       .output = output, .held = held };
	char err[256] = "";
	int ret = display_open(d, &req, err, sizeof(err));

	if (ret < 0)
		print_message("reload to %s: %s\n", output, err);
	return ret;
}

/* A reload that moves fbripple to another output whose encoder can drive only the CRTC
 * fbripple drives: that CRTC is fbripple's own to take, and the frames go on there; closed,
 * both displays leave it to the console as found. */
static void test_reload_to_another_output_takes_our_crtc(void **state)
{
	struct display d, r;
	char err[256];
	int fallbacks = 0;

	(void)state;
	fake_card(2, false);
	fake.enc_crtcs[0] = fake.enc_crtcs[1] = 1;
	if (open_output(&d, "HDMI-A-1", err, sizeof(err)) < 0)
		fail_msg("open: %s", err);
	assert_int_equal(run_frames(&d, 0, 1, 2, -2, &fallbacks), 2);
	assert_int_equal(open_reload(&r, &d, "HDMI-A-2"), 0);
	assert_int_equal(run_frames(&r, 0, 3, 5, 2, &fallbacks), 5);
	assert_int_equal(fake.enc_crtc[1], CRTC0);
	display_close(&d, false);
	display_close(&r, false);
	assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
	remove_card();
}

/* Such a reload where a CRTC is free besides: the free one, and the output left is given back
 * to the console as found when the old display closes. */
static void test_reload_to_another_output_takes_a_free_crtc_first(void **state)
{
	struct display d, r;
	char err[256];
	int fallbacks = 0;

	(void)state;
	fake_card(2, false);
	if (open_output(&d, "HDMI-A-1", err, sizeof(err)) < 0)
		fail_msg("open: %s", err);
	assert_int_equal(run_frames(&d, 0, 1, 2, -2, &fallbacks), 2);
	assert_int_equal(open_reload(&r, &d, "HDMI-A-2"), 0);
	assert_int_equal(run_frames(&r, 1, 3, 5, -2, &fallbacks), 5);
	display_close(&d, false);
	assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
	assert_int_equal(shown_frame(1), 5);
	display_close(&r, false);
	remove_card();
}

/* One flip refused (-EBUSY): -EAGAIN, the frame not shown, its buffer handed out again; the
 * next flip flips as before, two buffers still. Legacy flips, then atomic commits. */
static void test_one_refused_flip_keeps_the_buffer(void **state)
{
	for (int atomic = 0; atomic < 2; atomic++) {
		struct display d;
		char err[256];
		int fallbacks = 0;

		(void)state;
		fake_card(1, atomic);
		if (open_output(&d, NULL, err, sizeof(err)) < 0)
			fail_msg("open: %s", err);
		assert_int_equal(d.mode.pages, 2);
		fake.refuse_from = 2;
		fake.refuse_to = 3;
		fake.refuse_errno = EBUSY;
		assert_int_equal(run_frames(&d, 0, 1, 8, -2, &fallbacks), 8);
		assert_int_equal(fallbacks, 0);
		assert_int_equal(d.mode.pages, 2);
		display_close(&d, false);
		assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
		remove_card();
	}
}

/* A driver that flips at first and then refuses every flip (-EINVAL): after a few tries one
 * buffer, the one on screen, the driver's error once, and every frame from then on drawn
 * there whole and shown with DirtyFB. */
static void test_refused_flips_fall_back_to_the_buffer_on_screen(void **state)
{
	for (int atomic = 0; atomic < 2; atomic++) {
		struct display d;
		char err[256];
		int fallbacks = 0, dirty;

		(void)state;
		fake_card(1, atomic);
		if (open_output(&d, NULL, err, sizeof(err)) < 0)
			fail_msg("open: %s", err);
		fake.refuse_from = 2;
		fake.refuse_to = 1 << 30;
		fake.refuse_errno = EINVAL;
		assert_int_equal(run_frames(&d, 0, 1, 6, -2, &fallbacks), 6);
		assert_int_equal(fallbacks, 1);
		assert_int_equal(d.mode.pages, 1);
		dirty = fake.dirty;
		assert_int_equal(run_frames(&d, 0, 7, 9, 6, &fallbacks), 9);
		assert_int_equal(fake.dirty, dirty + 3);
		display_close(&d, false);
		assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
		remove_card();
	}
}

/* A flip refused because the card went away is no refusal to try again: -ENODEV at once. */
static void test_flip_on_a_card_gone_says_so(void **state)
{
	struct display d;
	char err[256];

	(void)state;
	fake_card(1, true);
	if (open_output(&d, NULL, err, sizeof(err)) < 0)
		fail_msg("open: %s", err);
	tu_draw_frame(&d, 1);
	assert_int_equal(display_present(&d), 0);	/* the first sets the CRTC */
	fake.refuse_from = fake.flips;
	fake.refuse_to = 1 << 30;
	fake.refuse_errno = ENODEV;
	display_events(&d, true);
	tu_draw_frame(&d, 2);
	assert_int_equal(display_present(&d), -ENODEV);
	display_close(&d, false);
	remove_card();
}

/* How many pixels of the buffer CRTC i scans out hold v. */
static int shown_pixels(int i, uint32_t v)
{
	uint32_t px[W * H];
	int n = 0;

	read_shown(i, px);
	for (int k = 0; k < W * H; k++)
		n += px[k] == v;
	return n;
}

/* The daemon's screen, calm water, asked for a whole frame on every page (as after an unblank,
 * which may have lost the picture: here both buffers overwritten) whose first flip the driver
 * refuses: the frame drawn again, and each buffer shown after drawn whole, no row left as it
 * was. */
static void test_screen_draws_every_page_whole_after_a_refused_flip(void **state)
{
	struct display_request req = { .device = card, .buffering = DISPLAY_BUFFER_AUTO };
	static const uint32_t lost = 0xdeadbeef;
	struct config cfg;
	struct screen s;
	int fd;

	(void)state;
	fake_card(1, true);
	config_defaults(&cfg);
	cfg.display.threads = 1;
	screen_init(&s);
	assert_int_equal(screen_open(&s, &req), 0);
	assert_int_equal(screen_setup(&s, &cfg), 0);
	assert_int_equal(s.display.mode.pages, 2);
	for (int i = 0; i < 3; i++)
		screen_draw(&s, false);
	fd = (int)syscall(SYS_openat, AT_FDCWD, fake.path, O_WRONLY | O_CLOEXEC, 0);
	assert_true(fd >= 0);
	for (int k = 0; k < 2 * W * H; k++)
		assert_true(pwrite(fd, &lost, 4, (off_t)k * 4) == 4);
	close(fd);
	fake.refuse_from = fake.flips;
	fake.refuse_to = fake.flips + 1;
	fake.refuse_errno = EBUSY;
	screen_draw(&s, true);
	assert_int_equal(fake.flips, fake.refuse_to);	/* the refused flip */
	for (int i = 0; i < 4; i++) {
		screen_draw(&s, false);
		if (shown_pixels(0, lost))
			fail_msg("frame %d after the refused flip shows %d pixels not drawn", i + 1,
				 shown_pixels(0, lost));
	}
	screen_release(&s);
	remove_card();
}

/* The daemon's screen over a card that stops flipping: one warning that says so and why, and
 * from then on every frame shown on the buffer on screen. */
static void test_screen_says_once_it_draws_on_one_buffer(void **state)
{
	struct display_request req = { .device = card, .buffering = DISPLAY_BUFFER_AUTO };
	char text[4096] = "";
	struct tu_log log;
	struct config cfg;
	struct screen s;

	(void)state;
	tu_log_open(&log);
	fake_card(1, false);
	config_defaults(&cfg);
	cfg.display.threads = 1;
	screen_init(&s);
	assert_int_equal(screen_open(&s, &req), 0);
	assert_int_equal(screen_setup(&s, &cfg), 0);
	assert_int_equal(s.frames, 0);
	assert_int_equal(fake.flips, 0);
	fake.refuse_from = 2;
	fake.refuse_to = 1 << 30;
	fake.refuse_errno = EINVAL;
	tu_log_start(&log);
	for (int i = 0; i < 10; i++)
		screen_draw(&s, false);
	tu_log_stop(&log);
	assert_int_equal(s.display.mode.pages, 1);
	/* 2 flipped, 3 refused, 5 with DirtyFB on the buffer on screen */
	assert_int_equal(fake.flips, 5);
	assert_int_equal(s.frames, 7);
	assert_int_equal(fake.dirty, 5);
	tu_log_text(&log, text, sizeof(text));
	assert_non_null(strstr(text, "/dev/dri/card9: the driver refused to flip to the page "
				     "drawn (Invalid argument); drawing on the page on screen from "
				     "now on, single buffered: frames may tear\n"));
	assert_null(strstr(strstr(text, "refused to flip") + 1, "refused to flip"));	/* once */
	screen_release(&s);
	tu_log_close(&log);
	remove_card();
}

/* Blanked (DPMS off), an atomic driver refuses every flip, as a reload's redraw asks for:
 * each frame stays off screen and is drawn again, however many, never a fall back to one
 * buffer; woken, the frames flip again. */
static void test_flips_refused_while_blanked_keep_two_buffers(void **state)
{
	struct display d;
	char err[256];
	int fallbacks = 0;
	long shown;

	(void)state;
	fake_card(1, true);
	if (open_output(&d, NULL, err, sizeof(err)) < 0)
		fail_msg("open: %s", err);
	shown = run_frames(&d, 0, 1, 3, -2, &fallbacks);
	assert_int_equal(display_blank(&d, true), 0);
	assert_true(fake.off);
	fake.refuse_errno = EINVAL;
	assert_int_equal(run_frames(&d, 0, 4, 9, shown, &fallbacks), shown);
	assert_int_equal(d.mode.pages, 2);
	assert_int_equal(display_blank(&d, false), 0);
	assert_int_equal(run_frames(&d, 0, 10, 12, shown, &fallbacks), 12);
	assert_int_equal(fallbacks, 0);
	assert_int_equal(d.mode.pages, 2);
	display_close(&d, false);
	remove_card();
}

/* The application's frame as a show reads it: every pixel v (opaque), W x H. */
static void app_frame(struct image *img, uint32_t v)
{
	img->width = W;
	img->height = H;
	img->pixels = malloc((size_t)W * H * sizeof(*img->pixels));
	assert_non_null(img->pixels);
	for (int k = 0; k < W * H; k++)
		img->pixels[k] = 0xff000000u | v;
}

static void refuse_flips_from_now(void)
{
	fake.refuse_from = fake.flips;
	fake.refuse_to = 1 << 30;
	fake.refuse_errno = EINVAL;
}

/* Idle mode beside an fbdev application on the card (its frames on the console's buffer, the
 * card's fbdev emulation): s shown on the application's VT, the application's frame as "@screen"
 * reads it, water moving; every flip refused from before frames before the hide on, and where
 * gone is an errno, the console's buffer refused with it by then (ENOENT: removed, a client's
 * that closed, as Plymouth's), so that the CRTC cannot be put back; then hidden. The caller
 * releases s and the card. */
static void hide_with_flips_refused(struct screen *s, int before, int gone)
{
	struct display_request req = { .device = card, .buffering = DISPLAY_BUFFER_AUTO,
				       .hidden = true, .await_master = true };
	struct config cfg;

	fake_card(1, true);
	config_defaults(&cfg);
	cfg.display.threads = 1;
	cfg.display.vt = 0;
	screen_init(s);
	assert_int_equal(screen_open(s, &req), 0);
	s->display.node_dev = 0;	/* no guard forked: the card is none of the host's */
	assert_int_equal(screen_setup(s, &cfg), 0);
	screen_stand_by(s);
	assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
	assert_int_equal(screen_show(s, &cfg), 0);
	app_frame(&s->app_frame, 0x123456);
	screen_drop(s, W / 2, H / 2, 10, 500);
	for (int i = 0; i < 4; i++) {
		if (i == 4 - before)
			refuse_flips_from_now();
		screen_step(s, 1, 1.0 / 60);
		screen_draw(s, false);
	}
	assert_true(fake.crtc_fb[0] > 200);	/* the water on screen */
	if (!before)
		refuse_flips_from_now();
	if (gone) {
		fake.gone = CONSOLE_FB;
		fake.gone_errno = gone;
	}
	screen_hide(s, &cfg);
	assert_true(fake.flips > fake.refuse_from);	/* refused */
	/* the third refused in a row gives up flipping: in the hide's redraw or its put back */
	assert_int_equal(s->display.mode.pages, before ? 1 : 2);
}

/* With the hide's flips refused, once each or until fbripple gives up flipping (in the put
 * back, or before it), the CRTC scans out the buffer found at open after the hide, none of
 * fbripple's: the release puts it back as found, so no flip refused leaves water on the
 * application's screen. */
static void test_hide_gives_the_crtc_back_though_flips_are_refused(void **state)
{
	(void)state;
	for (int before = 0; before <= 2; before++) {
		struct screen s;

		hide_with_flips_refused(&s, before, 0);
		assert_int_equal(fake.crtc_fb[0], CONSOLE_FB);
		assert_int_equal(fake.enc_crtc[0], CRTC0);
		screen_release(&s);
		remove_card();
	}
}

/* Hidden with the flips refused from before frames ahead, the console's buffer refused with
 * gone: a buffer of fbripple's stays on the CRTC, and it holds the application's frame put back,
 * every pixel, not the water before it; the log says why the screen was not put back (want). */
static void hide_leaves_the_app_frame(int before, int gone, const char *want)
{
	char text[4096] = "";
	struct tu_log log;
	struct screen s;

	tu_log_open(&log);
	tu_log_start(&log);
	hide_with_flips_refused(&s, before, gone);
	tu_log_stop(&log);
	if (shown_pixels(0, 0x123456) != W * H)
		fail_msg("refused from %d frames before the hide: %d pixels of the application's "
			 "frame on screen, not %d", before, shown_pixels(0, 0x123456), W * H);
	tu_log_text(&log, text, sizeof(text));
	if (!strstr(text, want))
		fail_msg("no \"%s\" in the log:\n%s", want, text);
	assert_null(strstr(text, "may not show again"));
	screen_release(&s);
	tu_log_close(&log);
	remove_card();
}

/* Where the buffer found is gone by the hide (the kernel's ENOENT), whether the hide's flip was
 * refused or fbripple gave up flipping on the way: the warning says the buffer is gone. */
static void test_hide_leaves_the_app_frame_where_the_crtc_cannot_go_back(void **state)
{
	(void)state;
	for (int before = 0; before <= 2; before++)
		hide_leaves_the_app_frame(before, ENOENT, "/dev/dri/card9: release: the screen "
				"cannot be put back as it was found (the buffer it showed is "
				"gone); fbripple's last frame stays on it until another program "
				"shows its own or fbripple closes the card\n");
}

/* Refused for another reason (a mode the monitor no longer takes), the warning gives the
 * kernel's own, not a buffer gone. */
static void test_hide_says_the_kernels_refusal_of_the_crtc_found(void **state)
{
	(void)state;
	hide_leaves_the_app_frame(0, EINVAL, "/dev/dri/card9: release: Invalid argument\n");
}

/* Every hide finds the buffer gone again: the warning once, not at every hide. */
static void test_a_release_refused_alike_is_said_once(void **state)
{
	char text[8192] = "";
	struct tu_log log;
	struct screen s;
	struct config cfg;
	const char *at;
	int said = 0;

	(void)state;
	config_defaults(&cfg);
	cfg.display.threads = 1;
	cfg.display.vt = 0;
	tu_log_open(&log);
	tu_log_start(&log);
	hide_with_flips_refused(&s, 0, ENOENT);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(screen_show(&s, &cfg), 0);
		screen_draw(&s, false);
		screen_hide(&s, &cfg);
	}
	tu_log_stop(&log);
	tu_log_text(&log, text, sizeof(text));
	for (at = text; (at = strstr(at, "release: the screen cannot be put back")); at++)
		said++;
	if (said != 1)
		fail_msg("said %d times in three hides:\n%s", said, text);
	screen_release(&s);
	tu_log_close(&log);
	remove_card();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crtc_of_another_output_left_alone),
		cmocka_unit_test(test_no_free_crtc_says_so),
		cmocka_unit_test(test_reload_to_another_output_takes_our_crtc),
		cmocka_unit_test(test_reload_to_another_output_takes_a_free_crtc_first),
		cmocka_unit_test(test_one_refused_flip_keeps_the_buffer),
		cmocka_unit_test(test_refused_flips_fall_back_to_the_buffer_on_screen),
		cmocka_unit_test(test_flip_on_a_card_gone_says_so),
		cmocka_unit_test(test_screen_draws_every_page_whole_after_a_refused_flip),
		cmocka_unit_test(test_screen_says_once_it_draws_on_one_buffer),
		cmocka_unit_test(test_flips_refused_while_blanked_keep_two_buffers),
		cmocka_unit_test(test_hide_gives_the_crtc_back_though_flips_are_refused),
		cmocka_unit_test(test_hide_leaves_the_app_frame_where_the_crtc_cannot_go_back),
		cmocka_unit_test(test_hide_says_the_kernels_refusal_of_the_crtc_found),
		cmocka_unit_test(test_a_release_refused_alike_is_said_once),
	};

	if (getenv("FBRIPPLE_TEST_FILTER"))
		cmocka_set_test_filter(getenv("FBRIPPLE_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
