/* drm.c - a DRM/KMS card shown on the output drm_output.c chose: master, two dumb buffers and
 * their page flips (atomic where granted), VT switches, blanking, the CRTC put back as found. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "display.h"
#include "drm_output.h"

/* Longest wait for a flip under way: a vertical blank at 30 Hz, with room to spare. */
#define FLIP_WAIT_MS 50
/* Flips refused in a row before fbripple gives up flipping, as fbdev gives up panning. */
#define FLIP_TRIES 3

struct drm_buffer {
	uint32_t handle, fb_id;
	uint32_t pitch;
	uint8_t *map;
	size_t size;
};

/* An atomic commit that shows one buffer, made at open: a flip allocates nothing. */
struct drm_flip {
	struct drm_mode_atomic req;
	uint32_t obj, count, prop;
	uint64_t value;
};

struct drm {
	int fd;
	bool atomic;		/* flips are atomic commits; else legacy page flips */
	bool master;
	bool found_another;	/* another process was master at open: the CRTC showed its buffer */
	bool crtc_set;		/* our buffer is on the CRTC: close and release put back over,
				 * else saved; until then present sets the CRTC to the frame
				 * drawn */
	bool flip_pending;	/* a flip was asked for and its event has not come yet */
	int flips_refused;	/* in a row, by the driver */
	bool blanked;		/* DPMS off: flips are refused (the CRTC is off), and not
				 * counted in flips_refused */
	struct drm_output output;
	drmModeCrtc *saved;	/* as found at open */
	drmModeCrtc *over;	/* as another process had it when a show took it (a DRM
				 * application's buffer): put back before saved */
	bool take_over;		/* the next acquire is a show's: it keeps over */
	struct drm_buffer buf[2];
	int nbufs;
	int front;		/* the buffer on screen, or on its way there */
	int drawn;		/* the buffer presented last: front, or one whose flip was
				 * refused */
	struct drm_flip flip[2];
	drmEventContext ev;
	unsigned flips_done;	/* by the event handler, since events last returned */
	uintptr_t flip_token;	/* the flips' user data: this open's alone, never reused */
	char driver[64];
};

static struct drm *drm_of(const struct display *d)
{
	return d->state;
}

/* The card held open already (a reload's new output or mode on it): its descriptor shared,
 * and so its master; NULL for any other. */
static const struct drm *held_card(const struct display_request *req)
{
	const struct display *h = req->held;

	if (!h || h->ops != &display_drm || !display_node_is(h, req->device))
		return NULL;
	return drm_of(h);
}

static int create_buffer(struct drm *st, struct drm_buffer *b)
{
	int bpp = st->output.format == DRM_FORMAT_RGB565 ? 16 : 32;
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint64_t size, offset;

	if (drmModeCreateDumbBuffer(st->fd, st->output.mode.hdisplay, st->output.mode.vdisplay,
				    bpp, 0, &b->handle, &b->pitch, &size) < 0)
		return -errno;
	handles[0] = b->handle;
	pitches[0] = b->pitch;
	if (drmModeAddFB2(st->fd, st->output.mode.hdisplay, st->output.mode.vdisplay,
			  st->output.format, handles, pitches, offsets, &b->fb_id, 0) < 0 ||
	    drmModeMapDumbBuffer(st->fd, b->handle, &offset) < 0)
		return -errno;
	b->map = display_map(st->fd, size, (off_t)offset);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		return -errno;
	}
	b->size = size;
	memset(b->map, 0, b->size);
	return 0;
}

static void destroy_buffer(struct drm *st, struct drm_buffer *b)
{
	if (b->map)
		munmap(b->map, b->size);
	if (b->fb_id)
		drmModeRmFB(st->fd, b->fb_id);
	if (b->handle)
		drmModeDestroyDumbBuffer(st->fd, b->handle);
	*b = (struct drm_buffer){ 0 };
}

/* Two buffers unless double_buffer is off; one where the card has no room for a second. */
static int create_buffers(struct drm *st, enum display_buffering mode)
{
	int ret = create_buffer(st, &st->buf[0]);

	if (ret < 0)
		return ret;
	st->nbufs = 1;
	if (mode != DISPLAY_BUFFER_OFF && create_buffer(st, &st->buf[1]) == 0)
		st->nbufs = 2;
	else
		destroy_buffer(st, &st->buf[1]);
	return 0;
}

/* The commit that puts buffer i on the plane, with a flip event, never blocking. */
static void prepare_flip(struct drm *st, int i, uint32_t fb_prop)
{
	struct drm_flip *f = &st->flip[i];

	f->obj = st->output.plane_id;
	f->count = 1;
	f->prop = fb_prop;
	f->value = st->buf[i].fb_id;
	f->req = (struct drm_mode_atomic){
		.flags = DRM_MODE_PAGE_FLIP_EVENT | DRM_MODE_ATOMIC_NONBLOCK,
		.count_objs = 1,
		.objs_ptr = (uintptr_t)&f->obj,
		.count_props_ptr = (uintptr_t)&f->count,
		.props_ptr = (uintptr_t)&f->prop,
		.prop_values_ptr = (uintptr_t)&f->value,
		.user_data = st->flip_token,
	};
}

/* FBRIPPLE_TEST_LEGACY=1: legacy page flips though the driver grants atomic commits, so that
 * the tests run that path on QEMU's drivers, which both grant them. */
static bool test_legacy(void)
{
	const char *env = getenv("FBRIPPLE_TEST_LEGACY");

	return env && strcmp(env, "1") == 0;
}

/* Atomic flips where the driver grants atomic commits and the plane says how to flip it. */
static void choose_flips(struct drm *st)
{
	uint32_t fb_prop;

	st->atomic = !test_legacy() && drmSetClientCap(st->fd, DRM_CLIENT_CAP_ATOMIC, 1) == 0 &&
		     drm_property_find(st->fd, st->output.plane_id, DRM_MODE_OBJECT_PLANE, "FB_ID",
				       &fb_prop, NULL) == 0;
	for (int i = 0; st->atomic && i < st->nbufs; i++)
		prepare_flip(st, i, fb_prop);
}

/* The state whose drm_events reads the descriptor now: libdrm's handler gets only the flip's
 * user data, and a descriptor shared with a reload's display may still deliver the flip of a
 * state closed meanwhile (its wait given up): a token, not a pointer, tells them apart. */
static struct drm *flip_reader;

static void on_flip(int fd, unsigned int seq, unsigned int sec, unsigned int usec, void *data)
{
	struct drm *st = flip_reader;

	(void)fd, (void)seq, (void)sec, (void)usec;
	if (!st || (uintptr_t)data != st->flip_token)
		return;
	st->flip_pending = false;
	st->flips_done++;
}

static int set_crtc(struct drm *st, int buffer)
{
	if (drmModeSetCrtc(st->fd, st->output.crtc_id, st->buf[buffer].fb_id, 0, 0,
			   &st->output.conn_id, 1, &st->output.mode) < 0)
		return -errno;
	st->crtc_set = true;
	st->take_over = false;
	st->flip_pending = false;
	st->flips_refused = 0;
	return 0;
}

/* CAP_SYS_ADMIN: master on any descriptor once nobody holds it, not only on one that had it. */
static bool may_become_master(void)
{
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];

	return syscall(SYS_capget, &head, caps) == 0 &&
	       (caps[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN));
}

/* Master: ours since the open when nobody had it; else another process is showing frames.
 * Hidden (idle mode) a privileged fbripple waits for the show, when that process has let it
 * go on its VT switch: the buffer on the CRTC is then that process's. */
static int take_master(struct drm *st, const struct display_request *req, char *err,
		       size_t errlen)
{
	if (drmIsMaster(st->fd) || drmSetMaster(st->fd) == 0) {
		st->master = true;
		return 0;
	}
	if (req->await_master && may_become_master()) {
		st->found_another = true;
		return 0;
	}
	snprintf(err, errlen, "another process is its DRM master (a display server or Plymouth)");
	return -EBUSY;
}

/* What the frames go to, and the CRTC as found there: what close and release put back. */
static int choose_output(struct display *d, const struct display_request *req, char *err,
			 size_t errlen)
{
	struct drm *st = drm_of(d);
	const struct drm *held = held_card(req);
	int ret = drm_output_choose(st->fd, req, held ? held->output.crtc_id : 0, &st->output, err,
				    errlen);

	if (ret < 0)
		return ret;
	st->saved = drmModeGetCrtc(st->fd, st->output.crtc_id);
	d->mode.rotate = st->output.rotate;
	return 0;
}

static void read_driver(struct drm *st)
{
	drmVersion *v = drmGetVersion(st->fd);

	snprintf(st->driver, sizeof(st->driver), "%s", v && v->name ? v->name : "?");
	drmFreeVersion(v);
}

/* The card, non-blocking: events drains what is there and never waits in read. */
static int open_card(struct drm *st, const struct display_request *req)
{
	const struct drm *held = held_card(req);

	if (held)
		st->fd = fcntl(held->fd, F_DUPFD_CLOEXEC, 0);
	else
		st->fd = open(req->device, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	return st->fd < 0 ? -errno : 0;
}

/* The CRTC as the held display found it, not as it shows that display's frame now: the console's
 * framebuffer is what goes back on the CRTC at the end. */
static void keep_found_crtc(struct drm *st, const struct display_request *req)
{
	const struct drm *held = held_card(req);
	drmModeCrtc *found;

	if (held)	/* of the card: whichever CRTC a reload's output is on */
		st->found_another = held->found_another;
	if (!held || !held->saved || held->output.crtc_id != st->output.crtc_id)
		return;
	found = malloc(sizeof(*found));
	if (!found)
		return;
	*found = *held->saved;
	drmModeFreeCrtc(st->saved);
	st->saved = found;
	if (held->over && (st->over = malloc(sizeof(*st->over))))
		*st->over = *held->over;
}

static int drm_open(struct display *d, const struct display_request *req, char *err,
		    size_t errlen)
{
	struct display_mode *m = &d->mode;
	struct drm *st = calloc(1, sizeof(*st));
	static uintptr_t tokens;	/* opens so far: the loop's thread opens displays */
	int ret;

	if (!st)
		return display_errorf(-ENOMEM, err, errlen, "%s", strerror(ENOMEM));
	d->state = st;
	st->flip_token = ++tokens;
	st->ev = (drmEventContext){ .version = 2, .page_flip_handler = on_flip };
	ret = open_card(st, req);
	if (ret < 0)
		return display_open_error(req->device, ret, err, errlen);
	/* it takes no master: that would pass for another process holding the card */
	if (drmGetNodeTypeFromFd(st->fd) == DRM_NODE_RENDER)
		return display_errorf(-EINVAL, err, errlen, "a render node, which shows nothing "
				      "(display.device names a /dev/dri/card*)");
	ret = take_master(st, req, err, errlen);
	if (ret < 0)
		return ret;
	read_driver(st);
	drmSetClientCap(st->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	ret = choose_output(d, req, err, errlen);
	if (ret < 0)
		return ret;
	keep_found_crtc(st, req);
	ret = create_buffers(st, req->buffering);
	if (ret < 0)
		return display_errorf(ret, err, errlen, "dumb buffer %ux%u: %s",
			    st->output.mode.hdisplay, st->output.mode.vdisplay, strerror(-ret));
	choose_flips(st);
	pixfmt_by_name(&m->fmt, st->output.format == DRM_FORMAT_RGB565 ? "RGB565" : "XRGB8888");
	m->width = st->output.mode.hdisplay;
	m->height = st->output.mode.vdisplay;
	m->stride = st->buf[0].pitch;
	m->pages = st->nbufs;
	ret = req->hidden ? 0 : set_crtc(st, 0);
	if (ret < 0)
		return display_errorf(ret, err, errlen, "setting mode %s on %s: %s",
			    st->output.mode.name, st->output.name, strerror(-ret));
	d->event_fd = st->fd;
	return 0;
}

static int drm_events(struct display *d, bool wait);
static bool drm_shows_another(const struct display *d);

/* The framebuffer on our CRTC now; 0: none, or it cannot be told. */
static uint32_t crtc_buffer(const struct drm *st)
{
	drmModeCrtc *c = drmModeGetCrtc(st->fd, st->output.crtc_id);
	uint32_t id = c ? c->buffer_id : 0;

	drmModeFreeCrtc(c);
	return id;
}

static bool is_ours(const struct drm *st, uint32_t fb_id)
{
	for (int i = 0; i < st->nbufs; i++)
		if (fb_id == st->buf[i].fb_id)
			return true;
	return false;
}

/* Whether the CRTC shows one of our buffers: not after another display on the same card
 * (a reload's) took it over. */
static bool shows_ours(const struct drm *st)
{
	uint32_t id = crtc_buffer(st);

	return id && is_ours(st, id);
}

/* The CRTC as s had it. */
static int set_found(struct drm *st, const drmModeCrtc *s)
{
	return drmModeSetCrtc(st->fd, s->crtc_id, s->buffer_id, s->x, s->y,
			      s->mode_valid ? &st->output.conn_id : NULL, s->mode_valid ? 1 : 0,
			      s->mode_valid ? (drmModeModeInfo *)&s->mode : NULL);
}

/* The CRTC as found, while it shows our frames (not once another display of ours, a reload's,
 * shows its own there): the application's buffer a show found, if it is still there, rather
 * than the console's found at open (on its VT the application shows its own again, and
 * meanwhile the console's would flash up). 0, also with nothing known to put back (the CRTC
 * could not be read at open); else the kernel's error for the last one tried: -ENOENT where
 * its buffer is gone (a client's that closed), and a frame of ours stays on screen. */
static int put_back_crtc(struct drm *st)
{
	int ret = 0;

	if (st->crtc_set && shows_ours(st)) {
		if (st->over)
			ret = set_found(st, st->over);
		if ((!st->over || ret < 0) && st->saved)
			ret = set_found(st, st->saved);
	}
	st->crtc_set = false;
	return ret;
}

/* Nothing found could go back (err): the frame presented last goes on the CRTC where its flip
 * was refused, an application's frame put back rather than the water before it. err, or the
 * kernel's refusal of that frame. */
static int leave_drawn(struct drm *st, int err)
{
	int ret = 0;

	if (st->drawn != st->front)
		ret = drmModeSetCrtc(st->fd, st->output.crtc_id, st->buf[st->drawn].fb_id, 0, 0,
				     &st->output.conn_id, 1, &st->output.mode);
	return ret < 0 ? ret : err;
}

/* What a fatal signal handler puts back, the first that the kernel takes: the application's
 * CRTC a show found, then the one found at open. Read only there; written only by arm_crash,
 * with fd -1 meanwhile. */
static struct {
	int fd;
	int count;
	uint32_t conn;
	struct drm_mode_crtc crtc[2];
} crash = { .fd = -1 };

static struct drm_mode_crtc crtc_request(const drmModeCrtc *s)
{
	struct drm_mode_crtc r = { .crtc_id = s->crtc_id, .fb_id = s->buffer_id, .x = s->x,
				   .y = s->y, .mode_valid = s->mode_valid };

	if (s->mode_valid) {
		r.set_connectors_ptr = (uintptr_t)&crash.conn;
		r.count_connectors = 1;
		_Static_assert(sizeof(r.mode) == sizeof(s->mode), "the same mode info");
		memcpy(&r.mode, &s->mode, sizeof(s->mode));
	}
	return r;
}

/* As put_back_crtc would: a crash while shown beside an application puts its buffer back, not
 * the console's, which would show until it takes the card again. */
static void arm_crash(const struct drm *st)
{
	crash.fd = -1;
	atomic_signal_fence(memory_order_seq_cst);
	crash.count = 0;
	crash.conn = st->output.conn_id;
	if (st->over)
		crash.crtc[crash.count++] = crtc_request(st->over);
	if (st->saved)
		crash.crtc[crash.count++] = crtc_request(st->saved);
	atomic_signal_fence(memory_order_seq_cst);
	crash.fd = crash.count ? st->fd : -1;
}

/* Puts back the CRTC as found, unless another VT's process is master now; clear has nothing to
 * do: our buffers go with the state, and a CRTC still showing one (nothing found could go back)
 * is turned off by the kernel as that buffer goes. */
static void drm_close(struct display *d, bool clear)
{
	struct drm *st = drm_of(d);

	(void)clear;
	if (!st)
		return;
	/* a flip under way reports to this state: read before it goes (a descriptor shared with
	 * a reload's display would hand the event to that one) */
	if (st->fd >= 0 && st->flip_pending)
		drm_events(d, true);
	if (st->fd >= 0 && st->master)
		put_back_crtc(st);
	for (int i = 0; i < 2; i++)
		destroy_buffer(st, &st->buf[i]);
	drmModeFreeCrtc(st->saved);
	drmModeFreeCrtc(st->over);
	if (st->fd >= 0)
		close(st->fd);
	free(st);
	d->state = NULL;
	d->event_fd = -1;
}

/* The buffer off screen: events(wait) has seen the last flip through. */
static struct display_buffer drm_buffer(const struct display *d)
{
	const struct drm *st = drm_of(d);
	int i = st->nbufs == 2 ? st->front ^ 1 : 0;

	return (struct display_buffer){ st->buf[i].map, i };
}

/* The first frame since the open (hidden) or since the VT came back: the CRTC set to it, so
 * that nothing but a whole frame of ours is ever shown; it counts as a flip done. */
static int show_first(struct drm *st, int buffer)
{
	int ret = set_crtc(st, buffer);

	if (ret < 0)
		return ret;
	st->front = st->drawn = buffer;
	st->flips_done++;
	return 0;
}

/* One buffer from now on, the one on screen (buffer 0, as a single buffer is), drawn on and
 * shown with DirtyFB as double_buffer "off" does; the other one freed. */
static void one_buffer(struct display *d)
{
	struct drm *st = drm_of(d);

	if (st->front == 1) {
		struct drm_buffer shown = st->buf[1];

		st->buf[1] = st->buf[0];
		st->buf[0] = shown;
	}
	destroy_buffer(st, &st->buf[1]);
	st->nbufs = 1;
	st->front = st->drawn = 0;
	d->mode.pages = 1;
}

/* The driver refused the flip to the buffer just drawn: it stays off screen and is handed out
 * again (-EAGAIN). Refused FLIP_TRIES times in a row, one buffer, the one on screen, and the
 * driver's error. A card gone (-ENODEV) is no refusal; nor, to count, a flip while blanked (a
 * reload's redraw), which atomic drivers refuse on a CRTC that DPMS turned off. */
static int flip_refused(struct display *d, int err)
{
	struct drm *st = drm_of(d);

	if (err == -ENODEV)
		return err;
	if (st->blanked || ++st->flips_refused < FLIP_TRIES)
		return -EAGAIN;
	one_buffer(d);
	return err;
}

/* Shows the buffer just drawn: a flip with an event, or DirtyFB for the single buffer (which
 * drivers that scan out of their own copy, as virtio-gpu, need to see the new frame). */
static int drm_present(struct display *d)
{
	struct drm *st = drm_of(d);
	int back = st->front ^ 1, ret;

	st->drawn = st->nbufs < 2 ? 0 : back;
	if (!st->crtc_set)
		return show_first(st, st->nbufs < 2 ? 0 : back);
	if (st->nbufs < 2) {
		ret = drmModeDirtyFB(st->fd, st->buf[0].fb_id, NULL, 0);
		return ret < 0 && errno != ENOSYS ? -errno : 0;
	}
	if (st->atomic)
		ret = ioctl(st->fd, DRM_IOCTL_MODE_ATOMIC, &st->flip[back].req);
	else
		ret = drmModePageFlip(st->fd, st->output.crtc_id, st->buf[back].fb_id,
				      DRM_MODE_PAGE_FLIP_EVENT, (void *)st->flip_token);
	if (ret < 0)
		return flip_refused(d, -errno);
	st->flips_refused = 0;
	st->flip_pending = true;
	st->front = back;
	return 0;
}

static int drm_events(struct display *d, bool wait)
{
	struct drm *st = drm_of(d);
	struct pollfd p = { .fd = st->fd, .events = POLLIN };
	int done;

	if (wait && st->flip_pending)
		poll(&p, 1, FLIP_WAIT_MS);
	/* each read returns whole events; a handful of reads empties any queue there can be */
	flip_reader = st;
	for (int i = 0; i < 8 && drmHandleEvent(st->fd, &st->ev) == 0; i++)
		;
	flip_reader = NULL;
	/* a flip that never reported (a driver in trouble) must not stop the frames for good */
	if (wait)
		st->flip_pending = false;
	done = (int)st->flips_done;
	st->flips_done = 0;
	return done;
}

static int drm_blank(struct display *d, bool blank)
{
	struct drm *st = drm_of(d);

	if (!st->output.dpms_prop)
		return -ENOTTY;
	if (drmModeConnectorSetProperty(st->fd, st->output.conn_id, st->output.dpms_prop,
					blank ? DRM_MODE_DPMS_OFF : DRM_MODE_DPMS_ON) < 0)
		return -errno;
	st->blanked = blank;
	return 0;
}

/* Another VT takes the screen (its console or display server needs master), or an application
 * beside us gets it back: the CRTC as found, then master dropped. */
static int drm_release(struct display *d)
{
	struct drm *st = drm_of(d);
	int ret;

	drm_events(d, true);
	if (!st->master)
		return 0;
	ret = put_back_crtc(st);
	if (ret < 0)
		ret = leave_drawn(st, ret);
	if (drmDropMaster(st->fd) < 0)
		return -errno;
	st->master = false;
	return ret;
}

/* Back on our VT: master again (only on the descriptor that had it, unless privileged); the
 * next frame presented goes on the CRTC, which the console or a display server changed
 * meanwhile. */
static int drm_acquire(struct display *d)
{
	struct drm *st = drm_of(d);

	if (!st->master) {
		if (drmSetMaster(st->fd) < 0)
			return errno == EBUSY || errno == EACCES || errno == EPERM ? -EBUSY : -errno;
		st->master = true;
	}
	st->crtc_set = false;
	/* a show's: what the application showed, for the hide (a VT switched away and back
	 * meanwhile leaves it as the show found it) */
	if (st->take_over) {
		drmModeFreeCrtc(st->over);
		st->over = drm_shows_another(d) ? drmModeGetCrtc(st->fd, st->output.crtc_id) : NULL;
		st->take_over = false;
		if (crash.fd == st->fd)
			arm_crash(st);
	}
	return 0;
}

/* Opened hidden: a show beside an application comes, or a reload's display for one under way.
 * The show's acquire keeps what the application shows; a frame presented first (the reload's)
 * leaves what the show kept (keep_found_crtc). Not on a display whose frames are on the CRTC
 * already (the always mode's reload). */
static void drm_share(struct display *d, bool shared)
{
	struct drm *st = drm_of(d);

	(void)shared;
	st->take_over = !st->crtc_set;
}

/* The pixel layouts of a buffer another process may show, read by their RGB alone. */
static const char *format_name(uint32_t fourcc)
{
	switch (fourcc) {
	case DRM_FORMAT_XRGB8888: case DRM_FORMAT_ARGB8888: return "XRGB8888";
	case DRM_FORMAT_XBGR8888: case DRM_FORMAT_ABGR8888: return "XBGR8888";
	case DRM_FORMAT_RGBX8888: case DRM_FORMAT_RGBA8888: return "RGBX8888";
	case DRM_FORMAT_BGRX8888: case DRM_FORMAT_BGRA8888: return "BGRX8888";
	case DRM_FORMAT_RGB888: return "RGB888";
	case DRM_FORMAT_BGR888: return "BGR888";
	case DRM_FORMAT_RGB565: return "RGB565";
	case DRM_FORMAT_BGR565: return "BGR565";
	default: return NULL;
	}
}

/* The part of buffer fb the CRTC scans out, mapped: it must be linear, of a layout we read,
 * and hold the whole mode (display_read_another's errors). */
static int read_buffer(int fd, const drmModeFB2 *fb, const drmModeCrtc *c, struct image *img)
{
	struct drm_mode_map_dumb map = { .handle = fb->handles[0] };
	const char *name = format_name(fb->pixel_format);
	struct pixfmt fmt;
	size_t size;
	uint8_t *px;
	int ret;

	if (!fb->handles[0])
		return -EACCES;
	if (!name || fb->handles[1] || ((fb->flags & DRM_MODE_FB_MODIFIERS) &&
					fb->modifier != DRM_FORMAT_MOD_LINEAR))
		return -EMEDIUMTYPE;
	pixfmt_by_name(&fmt, name);
	if (!c->mode_valid || !fb->height || c->x + c->mode.hdisplay > fb->width ||
	    c->y + c->mode.vdisplay > fb->height || fb->pitches[0] < fb->width * fmt.bytes)
		return -ERANGE;
	/* as far as its last pixel: the kernel holds a buffer to no more */
	size = fb->offsets[0] + (size_t)fb->pitches[0] * (fb->height - 1) +
	       (size_t)fb->width * fmt.bytes;
	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0)
		return -EXDEV;	/* an imported buffer, or one the CPU may not touch */
	px = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)map.offset);
	if (px == MAP_FAILED)
		return -EXDEV;
	ret = pixfmt_read_image(&fmt, px + fb->offsets[0] + (size_t)c->y * fb->pitches[0] +
				      (size_t)c->x * fmt.bytes,
				fb->pitches[0], c->mode.hdisplay, c->mode.vdisplay, img);
	munmap(px, size);
	return ret;
}

/* A handle GETFB or GETFB2 gave (GEM_CLOSE: drmCloseBufferHandle is libdrm 2.4.109's). */
static void close_handle(int fd, uint32_t handle)
{
	struct drm_gem_close close = { .handle = handle };

	drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &close);
}

/* Each handle GETFB2 gave, once: planes may share one. */
static void close_handles(int fd, const drmModeFB2 *fb)
{
	for (int i = 0; i < 4; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= fb->handles[j] == fb->handles[i];
		if (fb->handles[i] && !seen)
			close_handle(fd, fb->handles[i]);
	}
}

/* Another process's buffer on our CRTC, as it scans it out. */
static int drm_read_another(const struct display *d, struct image *img)
{
	const struct drm *st = drm_of(d);
	drmModeCrtc *c = drmModeGetCrtc(st->fd, st->output.crtc_id);
	drmModeFB2 *fb = NULL;
	int ret = -ENOENT;	/* no buffer there any more */

	if (c && c->buffer_id && !is_ours(st, c->buffer_id) &&
	    !(fb = drmModeGetFB2(st->fd, c->buffer_id)))
		ret = errno == EINVAL || errno == ENOTTY ? -ENOTSUP : -errno;
	if (fb) {
		ret = read_buffer(st->fd, fb, c, img);
		close_handles(st->fd, fb);
	}
	drmModeFreeFB2(fb);
	drmModeFreeCrtc(c);
	return ret;
}

/* A screenshot reads the buffer on screen once, not per frame: dumb buffers may be slow to read
 * (DRM_CAP_DUMB_PREFER_SHADOW), but a copy of every frame kept in memory for the rare
 * screenshot would cost a whole frame's writes every frame. */
static int drm_read(const struct display *d, struct image *img)
{
	const struct drm *st = drm_of(d);

	return pixfmt_read_image(&d->mode.fmt, st->buf[st->front].map, d->mode.stride,
				 d->mode.width, d->mode.height, img);
}

/* Another process was master at open: any buffer not ours is its. Else only where the buffer
 * found at open is known and still there (the console's, which the fbdev emulation shows): a
 * CRTC that was off, or a client's buffer gone since (Plymouth's), leaves it unknown, taken as
 * not another. */
static bool drm_shows_another(const struct display *d)
{
	const struct drm *st = drm_of(d);
	drmModeFB *found;
	uint32_t id;

	if (st->found_another) {
		id = crtc_buffer(st);
		return id && !is_ours(st, id);
	}
	found = st->saved && st->saved->buffer_id ? drmModeGetFB(st->fd, st->saved->buffer_id)
						  : NULL;
	id = found ? crtc_buffer(st) : 0;
	if (found && found->handle)	/* given to a master or CAP_SYS_ADMIN: not kept */
		close_handle(st->fd, found->handle);
	drmModeFreeFB(found);
	return id && id != st->saved->buffer_id && !is_ours(st, id);
}

static void drm_describe(const struct display *d, FILE *out)
{
	const struct drm *st = drm_of(d);
	const struct display_mode *m = &d->mode;

	fprintf(out, "display %s: drm %s\n", d->path, st->driver);
	drm_output_list(st->fd, out);
	fprintf(out, "  chosen %s %dx%d@%u, %d bpp %s, stride %zu bytes\n", st->output.name,
		m->width, m->height, st->output.mode.vrefresh, m->fmt.bpp, m->fmt.name, m->stride);
	fprintf(out, "  flips: %s; drawing: %s\n", st->atomic ? "atomic" : "legacy",
		m->pages == 2 ? "double buffered" : "single buffer");
}

static void drm_crash_guard(const struct display *d)
{
	arm_crash(drm_of(d));
}

/* An ioctl or two; refused by the kernel when another VT's process is master. */
static void drm_crash_restore(bool clear)
{
	(void)clear;
	for (int i = 0; crash.fd >= 0 && i < crash.count; i++)
		if (ioctl(crash.fd, DRM_IOCTL_MODE_SETCRTC, &crash.crtc[i]) == 0)
			break;
}

const struct display_ops display_drm = {
	.name = "drm",
	.open = drm_open,
	.close = drm_close,
	.buffer = drm_buffer,
	.present = drm_present,
	.events = drm_events,
	.blank = drm_blank,
	.release = drm_release,
	.acquire = drm_acquire,
	.share = drm_share,
	.read = drm_read,
	.shows_another = drm_shows_another,
	.read_another = drm_read_another,
	.describe = drm_describe,
	.crash_guard = drm_crash_guard,
	.crash_restore = drm_crash_restore,
};
